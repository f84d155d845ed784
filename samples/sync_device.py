#!/usr/bin/env python3
"""Device synchronisation: work queued on several streams of the device is
waited for at once with synchronize_device, then checked."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEFAULT_STREAM = 0
DEVICE_ID = 0
SIZE = 1 << 20
STREAMS = 3


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device(0)")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context(0)")

    streams = []
    for _ in range(STREAMS):
        stream, ret = acl.rt.create_stream()
        check(ret, "acl.rt.create_stream")
        streams.append(stream)
    streams.append(DEFAULT_STREAM)

    buffers = []
    for index, stream in enumerate(streams):
        host_in, ret = acl.rt.malloc_host(SIZE)
        check(ret, "acl.rt.malloc_host")
        host_out, ret = acl.rt.malloc_host(SIZE)
        check(ret, "acl.rt.malloc_host")
        device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "acl.rt.malloc")
        check(acl.rt.memset(host_in, SIZE, index + 1, SIZE), "fill input %d" % index)
        check(acl.rt.memcpy_async(device, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
              "stream %d: memcpy_async host -> device" % index)
        check(acl.rt.memcpy_async(host_out, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream),
              "stream %d: memcpy_async device -> host" % index)
        buffers.append((host_in, host_out, device))

    check(acl.rt.synchronize_device(), "acl.rt.synchronize_device")
    for index, (_, host_out, _) in enumerate(buffers):
        if acl.util.ptr_to_bytes(host_out, SIZE) != bytes([index + 1]) * SIZE:
            raise RuntimeError("stream %d: data mismatch after synchronize_device" % index)
    print("verified the output of %d streams (the default stream included)" % len(streams))

    for host_in, host_out, device in buffers:
        check(acl.rt.free(device), "acl.rt.free")
        check(acl.rt.free_host(host_out), "acl.rt.free_host")
        check(acl.rt.free_host(host_in), "acl.rt.free_host")
    for stream in streams[:-1]:
        check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device(0)")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
