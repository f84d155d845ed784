#!/usr/bin/env python3
"""Capturing a stream's work into a model and replaying it (aclmdlRI*,
acl-cuda's acl.mdl wrappers): a host -> device copy of the input, the
vector_add kernel (z = x + y) and a device -> host copy of the result are
captured from one stream, then the model runs five times, each time on new
input written into the same page-locked buffer, and every result is
checked. Captured work does not run: the output stays untouched until the
first replay.

The kernel file is found as in launch_kernel.py."""
import struct
import sys

import numpy as np

import acl

from launch_kernel import check, kernel_file, to_device

ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0
ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1
DEVICE_ID = 0
N = 4096
NUM_BLOCKS = 16
REPLAYS = 5


def write_pinned(ptr, array):
    data = array.tobytes()
    check(acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data), ACL_MEMCPY_HOST_TO_HOST),
          "acl.rt.memcpy into the input buffer")


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    binary, ret = acl.rt.binary_load_from_file(kernel_file(), [])
    check(ret, "acl.rt.binary_load_from_file")
    vector_add, ret = acl.rt.binary_get_function(binary, "vector_add")
    check(ret, "acl.rt.binary_get_function")

    size = 4 * N
    host_in, ret = acl.rt.malloc_host(size)
    check(ret, "acl.rt.malloc_host (input)")
    host_out, ret = acl.rt.malloc_host(size)
    check(ret, "acl.rt.malloc_host (output)")
    write_pinned(host_out, np.full(N, -1, np.float32))
    y = np.full(N, 0.25, np.float32)
    dx, dy, dz = to_device(np.zeros(N, np.float32)), to_device(y), to_device(np.zeros(N, np.float32))
    packed = np.frombuffer(struct.pack("QQQI4x", dx, dy, dz, N), np.uint8)
    dargs = to_device(packed)

    check(acl.mdl.ri_capture_begin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), "acl.mdl.ri_capture_begin")
    status, _, ret = acl.mdl.ri_capture_get_info(stream)
    check(ret, "acl.mdl.ri_capture_get_info")
    if status != ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE:
        raise RuntimeError("the stream is not capturing (status %d)" % status)
    check(acl.rt.memcpy_async(dx, size, host_in, size, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "captured acl.rt.memcpy_async host -> device")
    check(acl.rt.launch_kernel(vector_add, NUM_BLOCKS, dargs, packed.nbytes, stream), "captured acl.rt.launch_kernel")
    check(acl.rt.memcpy_async(host_out, size, dz, size, ACL_MEMCPY_DEVICE_TO_HOST, stream),
          "captured acl.rt.memcpy_async device -> host")
    model, ret = acl.mdl.ri_capture_end(stream)
    check(ret, "acl.mdl.ri_capture_end")
    if np.frombuffer(acl.util.ptr_to_bytes(host_out, size), np.float32)[0] != -1:
        raise RuntimeError("captured work ran during the capture")

    for replay in range(REPLAYS):
        x = np.arange(N, dtype=np.float32) * (replay + 1)
        write_pinned(host_in, x)
        check(acl.mdl.ri_execute_async(model, stream), "acl.mdl.ri_execute_async (replay %d)" % replay)
        check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
        z = np.frombuffer(acl.util.ptr_to_bytes(host_out, size), np.float32)
        print("replay %d: z = %s ..." % (replay, z[:4]))
        if not np.array_equal(z, x + y):
            raise RuntimeError("replay %d: wrong result" % replay)
    print("verified %d replays of %d elements" % (REPLAYS, N))

    check(acl.mdl.ri_destroy(model), "acl.mdl.ri_destroy")
    for ptr in (dargs, dz, dy, dx):
        check(acl.rt.free(ptr), "acl.rt.free")
    check(acl.rt.free_host(host_out), "acl.rt.free_host")
    check(acl.rt.free_host(host_in), "acl.rt.free_host")
    check(acl.rt.binary_unload(binary), "acl.rt.binary_unload")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
