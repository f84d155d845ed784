#!/usr/bin/env python3
"""Multi-stream synchronisation with a notify: a producer stream fills a
buffer and records the notify; two consumer streams take turns, each
waiting for (and resetting) the notify before it copies what the producer
wrote. Unlike an event, a notify is a state: the consumer's wait may be
queued before the producer's record."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_NOTIFY_DEFAULT = 0
WAIT_FOREVER = 0
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

    notify, ret = acl.rt.create_notify(ACL_NOTIFY_DEFAULT)
    check(ret, "acl.rt.create_notify")
    notify_id, ret = acl.rt.get_notify_id(notify)
    check(ret, "acl.rt.get_notify_id (%d)" % notify_id)
    producer, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (producer)")
    consumers = []
    for name in ("consumer 1", "consumer 2"):
        stream, ret = acl.rt.create_stream()
        check(ret, "acl.rt.create_stream (%s)" % name)
        consumers.append((name, stream))

    host_in, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (in)")
    host_out, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (out)")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")

    for round_number in range(1, ROUNDS + 1):
        name, consumer = consumers[round_number % 2]
        value = 0x11 * round_number
        check(acl.rt.memset(host_in, SIZE, value, SIZE), "round %d: fill host input" % round_number)
        # The wait is queued first: it holds the consumer until the record.
        check(acl.rt.wait_and_reset_notify(notify, consumer, WAIT_FOREVER),
              "round %d: %s wait_and_reset_notify" % (round_number, name))
        check(acl.rt.memcpy_async(host_out, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer),
              "round %d: %s memcpy_async device -> host" % (round_number, name))
        check(acl.rt.memcpy_async(device, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, producer),
              "round %d: producer memcpy_async host -> device" % round_number)
        check(acl.rt.record_notify(notify, producer), "round %d: producer record_notify" % round_number)
        check(acl.rt.synchronize_stream(consumer), "round %d: synchronize_stream %s" % (round_number, name))
        check(acl.rt.synchronize_stream(producer), "round %d: synchronize_stream producer" % round_number)
        if acl.util.ptr_to_bytes(host_out, SIZE) != bytes([value]) * SIZE:
            raise RuntimeError("round %d: %s did not read what the producer wrote" % (round_number, name))
        print("round %d: %s read the 0x%02x bytes the producer wrote" % (round_number, name, value))

    check(acl.rt.notify_batch_reset([notify]), "acl.rt.notify_batch_reset")
    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.free_host(host_out), "acl.rt.free_host (out)")
    check(acl.rt.free_host(host_in), "acl.rt.free_host (in)")
    for name, stream in consumers:
        check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream (%s)" % name)
    check(acl.rt.destroy_stream(producer), "acl.rt.destroy_stream (producer)")
    check(acl.rt.destroy_notify(notify), "acl.rt.destroy_notify")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
