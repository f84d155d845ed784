#!/usr/bin/env python3
"""Loading a kernel binary and launching it with pyACL's calls:
binary_load_from_file and binary_get_function, then vector_add (z = x + y)
launched twice: with launch_kernel and one packed argument buffer in device
memory, and with launch_kernel_with_config and an argument list built
parameter by parameter (kernel_args_init, append, finalize): w = x + z.
Checks every element of both results.

The kernel file is $ACLCUDA_SAMPLE_KERNEL, else the one the build made for
the backend in use (samples/kernels/vector_add.ptx on cuda, .so on host):
kernel_file() holds the only acl-cuda specific lines."""
import os
import struct
import sys

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEVICE_ID = 0
N = 4096
NUM_BLOCKS = 16
HERE = os.path.dirname(os.path.abspath(__file__))


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def kernel_file():
    """acl-cuda: which file holds vector_add for the backend in use."""
    explicit = os.environ.get("ACLCUDA_SAMPLE_KERNEL")
    if explicit:
        return explicit
    import acl.cuda
    name = "vector_add.so" if acl.cuda.backend() == "host" else "vector_add.ptx"
    top = os.path.dirname(HERE)  # make's build directory: make check's, quickstart's, or the tree itself
    builds = [os.environ.get("ACLCUDA_TEST_BUILDDIR"), os.path.join(top, "_build"), top]
    for build in filter(None, builds):
        path = os.path.join(build, "samples", "kernels", name)
        if os.path.exists(path):
            return path
    raise RuntimeError("%s is not built: run `make` (or set ACLCUDA_SAMPLE_KERNEL)" % name)


def to_device(array):
    ptr, ret = acl.rt.malloc(array.nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    data = array.tobytes()
    check(acl.rt.memcpy(ptr, array.nbytes, acl.util.bytes_to_ptr(data), array.nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
          "acl.rt.memcpy host -> device")
    return ptr


def from_device(ptr, count):
    out = bytes(4 * count)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(out), len(out), ptr, len(out), ACL_MEMCPY_DEVICE_TO_HOST),
          "acl.rt.memcpy device -> host")
    return np.frombuffer(out, np.float32)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    path = kernel_file()
    binary, ret = acl.rt.binary_load_from_file(path, [])
    check(ret, "acl.rt.binary_load_from_file %s" % path)
    vector_add, ret = acl.rt.binary_get_function(binary, "vector_add")
    check(ret, "acl.rt.binary_get_function vector_add")

    x = np.arange(N, dtype=np.float32)
    y = np.linspace(0, 1, N, dtype=np.float32)
    dx, dy = to_device(x), to_device(y)
    dz, dw = to_device(np.zeros(N, np.float32)), to_device(np.zeros(N, np.float32))

    # 1. One packed buffer: the kernel's parameters as C lays them out.
    packed = np.frombuffer(struct.pack("QQQI4x", dx, dy, dz, N), np.uint8)
    dargs = to_device(packed)
    check(acl.rt.launch_kernel(vector_add, NUM_BLOCKS, dargs, packed.nbytes, stream), "acl.rt.launch_kernel")

    # 2. An argument list: w = x + z, queued after launch 1.
    args, ret = acl.rt.kernel_args_init(vector_add)
    check(ret, "acl.rt.kernel_args_init")
    for value in (struct.pack("Q", dx), struct.pack("Q", dz), struct.pack("Q", dw), struct.pack("I", N)):
        _, ret = acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(value), len(value))
        check(ret, "acl.rt.kernel_args_append")
    check(acl.rt.kernel_args_finalize(args), "acl.rt.kernel_args_finalize")
    check(acl.rt.launch_kernel_with_config(vector_add, NUM_BLOCKS, stream, [], args, 0),
          "acl.rt.launch_kernel_with_config")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    z, w = from_device(dz, N), from_device(dw, N)
    print("z = x + y:", z[:4], "...")
    print("w = x + z:", w[:4], "...")
    if not np.array_equal(z, x + y) or not np.array_equal(w, x + z):
        raise RuntimeError("the kernels' results are wrong")
    print("verified %d elements of two launches" % N)

    for ptr in (dargs, dw, dz, dy, dx):
        check(acl.rt.free(ptr), "acl.rt.free")
    check(acl.rt.binary_unload(binary), "acl.rt.binary_unload")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
