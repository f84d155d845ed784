#!/usr/bin/env python3
"""Memory information and the host <-> device copy pattern of the
memcpy_host_device sample: query free/total memory (DDR and HBM), then
allocate, fill, copy host -> device -> host -> bytes, and check."""
import sys

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_DDR_MEM = 0
ACL_HBM_MEM = 1
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEVICE_ID = 0
SIZE = 1 << 20


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def memory_info(attr, name):
    free, total, ret = acl.rt.get_mem_info(attr)
    check(ret, "acl.rt.get_mem_info(%s)" % name)
    print("%s: %d MiB free of %d MiB" % (name, free >> 20, total >> 20))
    if free > total:
        raise RuntimeError("%s: more free than total memory" % name)
    return free


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")

    memory_info(ACL_DDR_MEM, "ACL_DDR_MEM")
    free_before = memory_info(ACL_HBM_MEM, "ACL_HBM_MEM")

    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc(%d)" % SIZE)
    free_after = memory_info(ACL_HBM_MEM, "ACL_HBM_MEM after malloc")
    print("the allocation took %d KiB of device memory" % ((free_before - free_after) >> 10))

    host, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")
    check(acl.rt.memset(host, SIZE, 0x11, SIZE), "acl.rt.memset (host)")
    check(acl.rt.memcpy(device, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE), "acl.rt.memcpy host -> device")
    check(acl.rt.memset(host, SIZE, 0, SIZE), "acl.rt.memset (clear host)")
    check(acl.rt.memcpy(host, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST), "acl.rt.memcpy device -> host")

    if "bytes_to_ptr" in dir(acl.util):
        result = bytes(SIZE)
        check(acl.rt.memcpy(acl.util.bytes_to_ptr(result), SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_HOST),
              "acl.rt.memcpy host -> bytes")
        data = np.frombuffer(result, dtype=np.uint8)
    else:
        data = np.zeros(SIZE, dtype=np.uint8)
        check(acl.rt.memcpy(acl.util.numpy_to_ptr(data), SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_HOST),
              "acl.rt.memcpy host -> numpy")
    if not np.all(data == 0x11):
        raise RuntimeError("data mismatch after the round trip")
    print("verified %d bytes after host -> device -> host -> bytes" % SIZE)

    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
