#!/usr/bin/env python3
"""Stream memory operations: a flag word in device memory orders two
streams. The consumer stream waits (acl.rt.value_wait) until the flag
reaches the round's number, then copies the data out; the producer
stream copies the data in and then writes the flag (acl.rt.value_write).
The same flag serves every round: the wait compares with GEQ, so the
producer only ever counts up."""
import struct
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_STREAM_WAIT_VALUE_GEQ = 0
ACL_STREAM_WAIT_VALUE_EQ = 1
DEVICE_ID = 0
SIZE = 1 << 20
ROUNDS = 4


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    producer, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (producer)")
    consumer, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (consumer)")

    flag, ret = acl.rt.malloc(8, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc (flag)")
    check(acl.rt.memset(flag, 8, 0, 8), "acl.rt.memset (flag = 0)")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc (data)")
    host_in, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (in)")
    host_out, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (out)")
    host_flag, ret = acl.rt.malloc_host(8)
    check(ret, "acl.rt.malloc_host (flag read-back)")

    for round_number in range(1, ROUNDS + 1):
        value = 0x21 * round_number
        check(acl.rt.memset(host_in, SIZE, value, SIZE), "round %d: fill host input" % round_number)
        check(acl.rt.value_wait(flag, round_number, ACL_STREAM_WAIT_VALUE_GEQ, consumer),
              "round %d: consumer value_wait(flag >= %d)" % (round_number, round_number))
        check(acl.rt.memcpy_async(host_out, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer),
              "round %d: consumer memcpy_async device -> host" % round_number)
        check(acl.rt.memcpy_async(device, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, producer),
              "round %d: producer memcpy_async host -> device" % round_number)
        check(acl.rt.value_write(flag, round_number, 0, producer),
              "round %d: producer value_write(flag = %d)" % (round_number, round_number))
        check(acl.rt.synchronize_stream(consumer), "round %d: synchronize_stream consumer" % round_number)
        check(acl.rt.synchronize_stream(producer), "round %d: synchronize_stream producer" % round_number)
        if acl.util.ptr_to_bytes(host_out, SIZE) != bytes([value]) * SIZE:
            raise RuntimeError("round %d: the consumer did not read what the producer wrote" % round_number)
        print("round %d: the consumer read the 0x%02x bytes the producer wrote" % (round_number, value))

    # An EQ wait on the final value passes at once.
    check(acl.rt.value_wait(flag, ROUNDS, ACL_STREAM_WAIT_VALUE_EQ, consumer),
          "value_wait(flag == %d)" % ROUNDS)
    check(acl.rt.memcpy_async(host_flag, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST, consumer),
          "memcpy_async flag -> host")
    check(acl.rt.synchronize_stream(consumer), "synchronize_stream consumer")
    final = struct.unpack("<Q", acl.util.ptr_to_bytes(host_flag, 8))[0]
    if final != ROUNDS:
        raise RuntimeError("the flag reads %d, not %d" % (final, ROUNDS))
    print("the flag reads %d" % final)

    check(acl.rt.free_host(host_flag), "acl.rt.free_host (flag read-back)")
    check(acl.rt.free_host(host_out), "acl.rt.free_host (out)")
    check(acl.rt.free_host(host_in), "acl.rt.free_host (in)")
    check(acl.rt.free(device), "acl.rt.free (data)")
    check(acl.rt.free(flag), "acl.rt.free (flag)")
    check(acl.rt.destroy_stream(consumer), "acl.rt.destroy_stream (consumer)")
    check(acl.rt.destroy_stream(producer), "acl.rt.destroy_stream (producer)")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
