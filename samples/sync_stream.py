#!/usr/bin/env python3
"""Stream synchronisation: queue copies on a stream and on the default stream
(0), wait for each, then check the data."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_STREAM_STATUS_COMPLETE = 0
DEFAULT_STREAM = 0
DEVICE_ID = 0
SIZE = 4096


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def round_trip(stream, host, device, data, label):
    check(acl.rt.memcpy(host, SIZE, acl.util.bytes_to_ptr(data), SIZE, 0), "%s: fill host" % label)
    check(acl.rt.memcpy_async(device, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "%s: memcpy_async host -> device" % label)
    check(acl.rt.memset_async(host, SIZE, 0, SIZE, stream), "%s: memset_async (clear host)" % label)
    check(acl.rt.memcpy_async(host, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream),
          "%s: memcpy_async device -> host" % label)
    check(acl.rt.synchronize_stream(stream), "%s: synchronize_stream" % label)
    status, ret = acl.rt.stream_query(stream)
    check(ret, "%s: stream_query" % label)
    if status != ACL_STREAM_STATUS_COMPLETE:
        raise RuntimeError("%s: stream not complete after synchronize_stream" % label)
    if acl.util.ptr_to_bytes(host, SIZE) != data:
        raise RuntimeError("%s: data mismatch" % label)
    print("%s: verified %d bytes" % (label, SIZE))


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    host, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")

    round_trip(stream, host, device, bytes(i % 251 for i in range(SIZE)), "created stream")
    round_trip(DEFAULT_STREAM, host, device, bytes((i * 7) % 253 for i in range(SIZE)), "default stream")

    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
