#!/usr/bin/env python3
"""Virtual memory: reserve an address range, back it with two separately
allocated pieces of physical memory mapped side by side, use it as one
buffer (a fill and copies across the seam), then unmap and release."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_HANDLE_TYPE_NONE = 0
ACL_MEM_ALLOCATION_TYPE_PINNED = 0
ACL_HBM_MEM_HUGE = 4
ACL_MEM_LOCATION_TYPE_DEVICE = 1
ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEVICE_ID = 0


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")

    prop = {"handleType": ACL_MEM_HANDLE_TYPE_NONE, "allocationType": ACL_MEM_ALLOCATION_TYPE_PINNED,
            "memAttr": ACL_HBM_MEM_HUGE, "location": {"id": DEVICE_ID, "type": ACL_MEM_LOCATION_TYPE_DEVICE},
            "reserve": 0}
    chunk, ret = acl.rt.mem_get_allocation_granularity(prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM)
    check(ret, "acl.rt.mem_get_allocation_granularity (%d bytes)" % chunk)

    base, ret = acl.rt.reserve_mem_address(2 * chunk, 0, 0, 0)
    check(ret, "acl.rt.reserve_mem_address")
    handles = []
    for i in range(2):
        handle, ret = acl.rt.malloc_physical(chunk, prop, 0)
        check(ret, "acl.rt.malloc_physical (%d)" % i)
        handles.append(handle)
        check(acl.rt.map_mem(base + i * chunk, chunk, 0, handle, 0), "acl.rt.map_mem (%d)" % i)

    # One buffer of two chunks: a fill over all of it, then a copy across the seam.
    size = 2 * chunk
    check(acl.rt.memset(base, size, 0x11, size), "acl.rt.memset over both mappings")
    pattern = bytes(range(256)) * 16
    seam = base + chunk - len(pattern) // 2
    check(acl.rt.memcpy(seam, len(pattern), acl.util.bytes_to_ptr(pattern), len(pattern),
                        ACL_MEMCPY_HOST_TO_DEVICE), "memcpy host -> across the seam")
    back = bytes(3 * len(pattern))
    start = seam - len(pattern)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(back), len(back), start, len(back), ACL_MEMCPY_DEVICE_TO_HOST),
          "memcpy device -> host")
    if back != b"\x11" * len(pattern) + pattern + b"\x11" * len(pattern):
        raise RuntimeError("data mismatch across the mappings")
    print("verified %d bytes across two mappings of %d bytes" % (len(back), chunk))

    for i, handle in enumerate(handles):
        check(acl.rt.unmap_mem(base + i * chunk), "acl.rt.unmap_mem (%d)" % i)
        check(acl.rt.free_physical(handle), "acl.rt.free_physical (%d)" % i)
    check(acl.rt.release_mem_address(base), "acl.rt.release_mem_address")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
