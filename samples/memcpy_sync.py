#!/usr/bin/env python3
"""Synchronous copies host -> device -> device -> host, through malloc_host
memory, bytes objects and NumPy arrays; the data is checked at the end."""
import sys
import warnings

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
NPY_FLOAT32 = 11
DEVICE_ID = 0
ELEMENTS = 1024


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")

    source = np.arange(ELEMENTS, dtype=np.float32) * 0.5
    source_bytes = source.tobytes()
    size = len(source_bytes)

    host, ret = acl.rt.malloc_host(size)
    check(ret, "acl.rt.malloc_host(%d)" % size)
    check(acl.rt.memcpy(host, size, acl.util.bytes_to_ptr(source_bytes), size, ACL_MEMCPY_HOST_TO_HOST),
          "memcpy bytes -> pinned host")

    dev_a, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    check(ret, "acl.rt.malloc (a)")
    dev_b, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    check(ret, "acl.rt.malloc (b)")

    check(acl.rt.memcpy(dev_a, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE), "memcpy host -> device")
    check(acl.rt.memcpy(dev_b, size, dev_a, size, ACL_MEMCPY_DEVICE_TO_DEVICE), "memcpy device -> device")

    # Back to the host into a bytes object, as samples do when bytes_to_ptr exists.
    result_bytes = bytes(size)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(result_bytes), size, dev_b, size, ACL_MEMCPY_DEVICE_TO_HOST),
          "memcpy device -> bytes")
    from_bytes = np.frombuffer(result_bytes, dtype=np.float32)

    # ... and into a NumPy array, the older way (deprecated helpers, hence the warnings filter).
    result_array = np.zeros(ELEMENTS, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        array_ptr = acl.util.numpy_to_ptr(result_array)
        check(acl.rt.memcpy(array_ptr, size, dev_b, size, ACL_MEMCPY_DEVICE_TO_HOST),
              "memcpy device -> numpy array")
        check(acl.rt.memcpy(host, size, dev_b, size, ACL_MEMCPY_DEVICE_TO_HOST), "memcpy device -> pinned host")
        host_view = acl.util.ptr_to_numpy(host, (ELEMENTS,), NPY_FLOAT32)
        host_matches = np.array_equal(host_view, source)

    if not (np.array_equal(from_bytes, source) and np.array_equal(result_array, source) and host_matches):
        raise RuntimeError("data mismatch after the copies")
    if acl.util.ptr_to_bytes(host, size) != source_bytes:
        raise RuntimeError("ptr_to_bytes does not return the copied data")
    print("verified %d float32 values through bytes, numpy and pinned host memory" % ELEMENTS)

    check(acl.rt.free(dev_b), "acl.rt.free (b)")
    check(acl.rt.free(dev_a), "acl.rt.free (a)")
    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
