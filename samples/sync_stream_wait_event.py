#!/usr/bin/env python3
"""Stream-to-stream synchronisation: stream 1 writes device memory and records
an event; stream 2 waits for the event, then reads what stream 1 wrote."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_EVENT_SYNC = 0x1
DEVICE_ID = 0
SIZE = 4 << 20
ROUNDS = 3


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")

    event, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC)
    check(ret, "acl.rt.create_event_with_flag(ACL_EVENT_SYNC)")
    writer, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (s1, writer)")
    reader, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (s2, reader)")

    host_in, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (in)")
    host_out, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (out)")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")

    for round_number in range(1, ROUNDS + 1):
        value = 0x10 * round_number
        check(acl.rt.memset(host_in, SIZE, value, SIZE), "round %d: fill host input" % round_number)
        check(acl.rt.memcpy_async(device, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, writer),
              "round %d: s1 memcpy_async host -> device" % round_number)
        check(acl.rt.record_event(event, writer), "round %d: record_event on s1" % round_number)
        check(acl.rt.stream_wait_event(reader, event), "round %d: s2 stream_wait_event" % round_number)
        check(acl.rt.reset_event(event, reader), "round %d: reset_event on s2" % round_number)
        check(acl.rt.memcpy_async(host_out, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, reader),
              "round %d: s2 memcpy_async device -> host" % round_number)
        check(acl.rt.synchronize_stream(writer), "round %d: synchronize_stream s1" % round_number)
        check(acl.rt.synchronize_stream(reader), "round %d: synchronize_stream s2" % round_number)
        if acl.util.ptr_to_bytes(host_out, SIZE) != bytes([value]) * SIZE:
            raise RuntimeError("round %d: s2 did not read what s1 wrote" % round_number)
        print("round %d: s2 read the 0x%02x bytes s1 wrote" % (round_number, value))

    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.free_host(host_out), "acl.rt.free_host (out)")
    check(acl.rt.free_host(host_in), "acl.rt.free_host (in)")
    check(acl.rt.destroy_stream(reader), "acl.rt.destroy_stream (s2)")
    check(acl.rt.destroy_stream(writer), "acl.rt.destroy_stream (s1)")
    check(acl.rt.destroy_event(event), "acl.rt.destroy_event")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
