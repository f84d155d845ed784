#!/usr/bin/env python3
"""Asynchronous copies with page-locked host memory: memset_async and
memcpy_async on a stream, then synchronize_stream and check the data."""
import sys

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
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
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    host_in, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (in)")
    host_out, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host (out)")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")

    # Round 1: a fill of the pinned input, copied there and back.
    check(acl.rt.memset_async(host_in, SIZE, 0x5A, SIZE, stream), "acl.rt.memset_async (host)")
    check(acl.rt.memset_async(host_out, SIZE, 0, SIZE, stream), "acl.rt.memset_async (clear output)")
    check(acl.rt.memcpy_async(device, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "acl.rt.memcpy_async host -> device")
    check(acl.rt.memcpy_async(host_out, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream),
          "acl.rt.memcpy_async device -> host")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    if acl.util.ptr_to_bytes(host_out, SIZE) != b"\x5a" * SIZE:
        raise RuntimeError("round 1: the device -> host copy does not hold the fill value")

    # Round 2: real data, and a memset_async of the device buffer in the middle of the queue.
    pattern = np.random.default_rng(7).integers(0, 256, SIZE, dtype=np.uint8).tobytes()
    check(acl.rt.memcpy(host_in, SIZE, acl.util.bytes_to_ptr(pattern), SIZE, 0), "acl.rt.memcpy bytes -> pinned")
    half = SIZE // 2
    check(acl.rt.memcpy_async(device, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "acl.rt.memcpy_async host -> device")
    check(acl.rt.memset_async(device + half, SIZE - half, 0xFF, SIZE - half, stream),
          "acl.rt.memset_async (device, upper half)")
    check(acl.rt.memcpy_async(host_out, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream),
          "acl.rt.memcpy_async device -> host")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    expected = pattern[:half] + b"\xff" * (SIZE - half)
    if acl.util.ptr_to_bytes(host_out, SIZE) != expected:
        raise RuntimeError("round 2: data mismatch")
    print("verified %d bytes in two rounds" % SIZE)

    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.free_host(host_out), "acl.rt.free_host (out)")
    check(acl.rt.free_host(host_in), "acl.rt.free_host (in)")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
