"""Uses of pyACL that the API reference leaves undefined but CANN's samples
rely on (issue 26): a copy whose kind contradicts the pointers (a
malloc_host buffer read with ACL_MEMCPY_DEVICE_TO_HOST) and a memset of host
memory no ACL allocator made. By default they are done as the pointers
say; ACLCUDA_STRICT=1 refuses them (ACL_ERROR_INVALID_PARAM)."""
import numpy

import acl

ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_ERROR_INVALID_PARAM = 100000
SIZE = 64

SAMPLE = """
import numpy, acl
assert acl.rt.set_device(0) == 0
host, ret = acl.rt.malloc_host(%(size)d)
assert ret == 0
assert acl.rt.memset(host, %(size)d, 7, %(size)d) == 0
out = numpy.zeros(%(size)d, dtype=numpy.uint8)
copy = acl.rt.memcpy(out.ctypes.data, %(size)d, host, %(size)d, %(d2h)d)
fill = acl.rt.memset(out.ctypes.data, %(size)d, 9, %(size)d)
print(copy, fill, int(out.sum()))
assert acl.rt.free_host(host) == 0
assert acl.rt.reset_device(0) == 0
""" % {"size": SIZE, "d2h": ACL_MEMCPY_DEVICE_TO_HOST}


def test_done_as_the_pointers_say_by_default(context):
    host, ret = acl.rt.malloc_host(SIZE)
    assert ret == 0
    try:
        assert acl.rt.memset(host, SIZE, 7, SIZE) == 0
        out = numpy.zeros(SIZE, dtype=numpy.uint8)
        assert acl.rt.memcpy(out.ctypes.data, SIZE, host, SIZE, ACL_MEMCPY_DEVICE_TO_HOST) == 0
        assert int(out.sum()) == 7 * SIZE
        assert acl.rt.memset(out.ctypes.data, SIZE, 9, SIZE) == 0
        assert int(out.sum()) == 9 * SIZE
    finally:
        assert acl.rt.free_host(host) == 0


def test_strict_mode_refuses_them(run_python):
    default = run_python(SAMPLE, env={"ACLCUDA_STRICT": "0"})
    assert default.returncode == 0, default.stderr
    assert default.stdout.split() == ["0", "0", str(9 * SIZE)]
    strict = run_python(SAMPLE, env={"ACLCUDA_STRICT": "1"})
    assert strict.returncode == 0, strict.stderr
    assert strict.stdout.split() == [str(ACL_ERROR_INVALID_PARAM)] * 2 + ["0"]
