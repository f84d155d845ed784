"""acl.util: bytes and NumPy buffers as pointers, and back."""
import ctypes

import numpy as np
import pytest

import acl

ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2

deprecated = pytest.mark.filterwarnings("ignore:acl.util.*deprecated:Warning")


# ---- bytes ----------------------------------------------------------------------------

@pytest.mark.pins("bytes_to_ptr returns the bytes object's own buffer: writes through it show in the object",
                  'pyACL util bytes_to_ptr (samples memcpy into bytes)')
def test_bytes_to_ptr_is_the_objects_own_buffer():
    data = bytes(16)
    ptr = acl.util.bytes_to_ptr(data)
    ctypes.memmove(ptr, b"written through", 15)
    assert data[:15] == b"written through"
    assert acl.util.bytes_to_ptr(data) == ptr


@pytest.mark.pins('memcpy to and from bytes_to_ptr pointers moves the data',
                  'pyACL sample memcpy_host_device.py')
def test_memcpy_into_bytes(context, device_memory):
    dev, size = device_memory
    source = bytes(range(256)) * (size // 256)
    assert acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(source), size, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    result = bytes(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(result), size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert result == source
    assert np.array_equal(np.frombuffer(result, np.uint8), np.frombuffer(source, np.uint8))


@pytest.mark.pins("bytes_to_ptr of anything but bytes raises ValueError('needs an byte as argument')",
                  'pyACL conventions: non-bytes to bytes_to_ptr -> ValueError; the text '
                  '[impl: pyACL util/bytes_convert.cpp]')
@pytest.mark.parametrize("bad", [bytearray(4), "text", memoryview(b"abc"), None, 5])
def test_bytes_to_ptr_needs_bytes(bad):
    with pytest.raises(ValueError, match="^needs an byte as argument$"):
        acl.util.bytes_to_ptr(bad)


@pytest.mark.pins("ptr_to_bytes copies: later writes to the memory do not change the bytes; size 0 gives b''",
                  'pyACL API ref acl.util.ptr_to_bytes')
def test_ptr_to_bytes_copies(host_memory):
    host, size = host_memory
    assert acl.rt.memset(host, size, 0x61, size) == 0
    copy = acl.util.ptr_to_bytes(host, 8)
    assert copy == b"aaaaaaaa"
    assert acl.rt.memset(host, size, 0x62, size) == 0
    assert copy == b"aaaaaaaa"
    assert acl.util.ptr_to_bytes(host, 0) == b""


@pytest.mark.pins('bytes go to the device and back into malloc_host memory intact',
                  'pyACL API ref acl.util bytes_to_ptr / ptr_to_bytes')
def test_bytes_round_trip_through_the_device(context, device_memory):
    dev, size = device_memory
    source = b"pyACL" * 100
    count = len(source)
    assert acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(source), count, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    host, ret = acl.rt.malloc_host(count)
    assert ret == 0
    assert acl.rt.memcpy(host, count, dev, count, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert acl.util.ptr_to_bytes(host, count) == source
    assert acl.rt.free_host(host) == 0


# ---- NumPy -----------------------------------------------------------------------------


@pytest.mark.pins("numpy_to_ptr returns the array's data address",
                  'pyACL API ref acl.util.numpy_to_ptr')
@deprecated
def test_numpy_to_ptr_is_the_data_address():
    array = np.arange(10, dtype=np.float32)
    assert acl.util.numpy_to_ptr(array) == array.ctypes.data


@pytest.mark.pins('numpy_to_ptr and numpy_contiguous_to_ptr of a non-ndarray raise ValueError mentioning ndarray',
                  "pyACL conventions: non-ndarray -> ValueError 'needs an ndarray as argument'")
@deprecated
@pytest.mark.parametrize("bad", [[1, 2], b"ab", None, 1.0])
def test_numpy_functions_need_an_ndarray(bad):
    with pytest.raises(ValueError, match="ndarray"):
        acl.util.numpy_to_ptr(bad)
    with pytest.raises(ValueError, match="ndarray"):
        acl.util.numpy_contiguous_to_ptr(bad)


@pytest.mark.pins('numpy_contiguous_to_ptr returns (ptr, array): the same array if contiguous, a contiguous copy otherwise',
                  'pyACL API ref acl.util.numpy_contiguous_to_ptr')
@deprecated
def test_numpy_contiguous_to_ptr():
    array = np.arange(12, dtype=np.int64).reshape(3, 4)
    ptr, same = acl.util.numpy_contiguous_to_ptr(array)
    assert same is array and ptr == array.ctypes.data
    transposed = array.T
    ptr, copy = acl.util.numpy_contiguous_to_ptr(transposed)
    assert copy is not transposed and copy.flags.c_contiguous
    assert np.array_equal(copy, transposed) and ptr == copy.ctypes.data


@pytest.mark.pins('ptr_to_numpy gives a zero-copy, writeable view of the memory',
                  'pyACL API ref acl.util.ptr_to_numpy')
@deprecated
def test_ptr_to_numpy_is_zero_copy_and_writeable(host_memory):
    host, size = host_memory
    assert acl.rt.memset(host, size, 0, size) == 0
    view = acl.util.ptr_to_numpy(host, (4, 8), 11)
    assert view.shape == (4, 8) and view.dtype == np.float32 and view.flags.writeable
    view[1, 2] = 2.5
    expected = np.zeros((4, 8), np.float32)
    expected[1, 2] = 2.5
    assert acl.util.ptr_to_bytes(host, expected.nbytes) == expected.tobytes()
    assert acl.rt.memset(host, size, 0, size) == 0
    assert view[1, 2] == 0.0


@deprecated
@pytest.mark.parametrize("type_number,dtype", [
    (0, np.bool_), (1, np.int8), (2, np.uint8), (3, np.int16), (4, np.uint16), (5, np.int32),
    (6, np.uint32), (7, np.int64), (8, np.uint64), (9, np.longlong), (10, np.ulonglong),
    (11, np.float32), (12, np.float64), (23, np.float16),
])
@pytest.mark.pins('ptr_to_numpy takes NumPy type numbers (0 bool ... 11 float32, 12 float64, 23 float16)',
                  'pyACL API ref ptr_to_numpy type codes')
def test_ptr_to_numpy_type_numbers(host_memory, type_number, dtype):
    host, _ = host_memory
    array = acl.util.ptr_to_numpy(host, (2, 3), type_number)
    assert array.dtype == np.dtype(dtype) and array.dtype.num == type_number
    assert array.shape == (2, 3)


@pytest.mark.pins('NumPy arrays go to the device and back through numpy_to_ptr',
                  'pyACL API ref acl.util.numpy_to_ptr')
@deprecated
def test_numpy_round_trip_through_the_device(context, device_memory):
    dev, size = device_memory
    source = np.linspace(-1, 1, size // 4, dtype=np.float32)
    assert acl.rt.memcpy(dev, size, acl.util.numpy_to_ptr(source), source.nbytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    result = np.empty_like(source)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(result), result.nbytes, dev, source.nbytes,
                         ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert np.array_equal(result, source)


@pytest.mark.pins("float16_to_float and float_to_float16 convert IEEE half floats; 'H' masks the input; non-numbers raise TypeError",
                  "pyACL acl.float16_to_float ('H'), acl.float_to_float16 ('f')")
def test_float16_conversions():
    assert acl.float16_to_float(0x3C00) == 1.0
    assert acl.float16_to_float(0xC000) == -2.0
    assert acl.float_to_float16(0.5) == 0x3800
    assert acl.float_to_float16(1) == 0x3C00
    assert acl.float16_to_float(-0x4400) == -1.0  # "H" masks: 0xBC00
    for value in (0.0, 1.5, -3.25, 65504.0):
        assert acl.float16_to_float(acl.float_to_float16(value)) == value
        assert acl.float_to_float16(value) == int(np.array(value, np.float16).view(np.uint16))
    with pytest.raises(TypeError):
        acl.float_to_float16("1.0")
    with pytest.raises(TypeError):
        acl.float16_to_float(1.0)


@pytest.mark.pins('data buffer helpers: create returns a handle, the getters its address and size, update changes them, destroy returns 0; get_data_buffer_addr(0) is 0',
                  'pyACL acl.create_data_buffer etc. (values without ret)')
def test_data_buffers(host_memory):
    host, size = host_memory
    buffer = acl.create_data_buffer(host, size)
    assert buffer != 0
    assert acl.get_data_buffer_addr(buffer) == host
    assert acl.get_data_buffer_size(buffer) == size
    assert acl.get_data_buffer_size_v2(buffer) == size
    assert acl.update_data_buffer(buffer, host + 64, 64) == 0
    assert (acl.get_data_buffer_addr(buffer), acl.get_data_buffer_size_v2(buffer)) == (host + 64, 64)
    assert acl.destroy_data_buffer(buffer) == 0
    assert acl.get_data_buffer_addr(0) == 0


@pytest.mark.pins("data_type_size gives each ACL data type's size",
                  'pyACL acl.data_type_size; acl_base_rt.h aclDataType')
def test_data_type_sizes():
    assert [acl.data_type_size(t) for t in (0, 1, 2, 3, 9, 11, 12)] == [4, 2, 1, 4, 8, 8, 1]


@pytest.mark.hostile
@pytest.mark.pins('destroying a data buffer twice returns a non-zero ret',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_destroyed_data_buffer_is_refused(host_memory):
    host, size = host_memory
    buffer = acl.create_data_buffer(host, size)
    assert acl.destroy_data_buffer(buffer) == 0
    assert acl.destroy_data_buffer(buffer) != 0
