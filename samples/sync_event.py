#!/usr/bin/env python3
"""Event synchronisation: record an event after queued copies, wait for it on
the host, check its status and the data, and time the work with two events."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
DEVICE_ID = 0
SIZE = 1 << 20


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")

    start, ret = acl.rt.create_event()
    check(ret, "acl.rt.create_event (start)")
    event, ret = acl.rt.create_event()
    check(ret, "acl.rt.create_event")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    host, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    check(acl.rt.memset(host, SIZE, 0x3C, SIZE), "acl.rt.memset (host)")

    check(acl.rt.record_event(start, stream), "acl.rt.record_event (start)")
    check(acl.rt.memcpy_async(device, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "acl.rt.memcpy_async host -> device")
    check(acl.rt.memset_async(host, SIZE, 0, SIZE, stream), "acl.rt.memset_async (clear host)")
    check(acl.rt.memcpy_async(host, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream),
          "acl.rt.memcpy_async device -> host")
    check(acl.rt.record_event(event, stream), "acl.rt.record_event")
    check(acl.rt.synchronize_event(event), "acl.rt.synchronize_event")

    status, ret = acl.rt.query_event_status(event)
    check(ret, "acl.rt.query_event_status")
    if status != ACL_EVENT_RECORDED_STATUS_COMPLETE:
        raise RuntimeError("event not complete after synchronize_event (status %d)" % status)
    if acl.util.ptr_to_bytes(host, SIZE) != b"\x3c" * SIZE:
        raise RuntimeError("data mismatch after the event completed")
    print("the work recorded before the event is done and its data is right")

    elapsed_ms, ret = acl.rt.event_elapsed_time(start, event)
    check(ret, "acl.rt.event_elapsed_time")
    print("the copies took %.3f ms" % elapsed_ms)

    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_event(event), "acl.rt.destroy_event")
    check(acl.rt.destroy_event(start), "acl.rt.destroy_event (start)")
    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
