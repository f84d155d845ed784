"""acl.util: bytes and NumPy buffers as pointers, and back."""
import ctypes
import warnings

import numpy as np
import pytest

import acl

ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2

deprecated = pytest.mark.filterwarnings("ignore:acl.util.*deprecated:Warning")


# ---- bytes ----------------------------------------------------------------------------

def test_bytes_to_ptr_is_the_objects_own_buffer():
    data = bytes(16)
    ptr = acl.util.bytes_to_ptr(data)
    ctypes.memmove(ptr, b"written through", 15)
    assert data[:15] == b"written through"
    assert acl.util.bytes_to_ptr(data) == ptr


def test_memcpy_into_bytes(context, device_memory):
    dev, size = device_memory
    source = bytes(range(256)) * (size // 256)
    assert acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(source), size, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    result = bytes(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(result), size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert result == source
    assert np.array_equal(np.frombuffer(result, np.uint8), np.frombuffer(source, np.uint8))


@pytest.mark.parametrize("bad", [bytearray(4), "text", memoryview(b"abc"), None, 5])
def test_bytes_to_ptr_needs_bytes(bad):
    with pytest.raises(ValueError, match="^needs an byte as argument$"):  # pyACL's text
        acl.util.bytes_to_ptr(bad)


def test_ptr_to_bytes_copies(host_memory):
    host, size = host_memory
    assert acl.rt.memset(host, size, 0x61, size) == 0
    copy = acl.util.ptr_to_bytes(host, 8)
    assert copy == b"aaaaaaaa"
    assert acl.rt.memset(host, size, 0x62, size) == 0
    assert copy == b"aaaaaaaa"
    assert acl.util.ptr_to_bytes(host, 0) == b""


def test_ptr_to_bytes_null_pointer():
    with pytest.raises(ValueError, match="^convert c pointer to bytes failed$"):
        acl.util.ptr_to_bytes(0, 4)


# Sizes as "k" reads them: masked to 64 bits, so a negative size is a huge one.
@pytest.mark.parametrize("size", [1 << 63, (1 << 64) - 1, -1, -(1 << 62), 1 << 64 | 1 << 63])
def test_ptr_to_bytes_refuses_sizes_from_2_to_the_63(size):
    data = b"0123456789abcdef"
    with pytest.raises(ValueError, match="^convert c pointer to bytes failed$"):
        acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), size)


@pytest.mark.parametrize("size", [(1 << 63) - 1, 1 << 62])
def test_ptr_to_bytes_with_a_size_no_bytes_object_can_hold(size):
    # Python cannot allocate that much: pyACL's ValueError, and nothing is read.
    data = b"0123456789abcdef"
    with pytest.raises(ValueError, match="^convert c pointer to bytes failed$") as raised:
        acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), size)
    assert isinstance(raised.value.__cause__, (MemoryError, OverflowError))


@pytest.mark.parametrize("size", [1, 15, 16])
def test_ptr_to_bytes_copies_exactly_size_bytes(size):
    data = b"0123456789abcdef"
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), size) == data[:size]
    # A size masked to 64 bits, as pyACL reads it.
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), size + (1 << 64)) == data[:size]


def test_ptr_to_bytes_past_two_gigabytes_is_not_cut_to_a_c_int(monkeypatch):
    # ctypes.string_at takes its size as a C int: 2**32 + 4 would copy 4
    # bytes, 2**32 - 1 read up to a NUL. The copy gets the whole size (a
    # stand-in copies here: 4 GiB are too much for a test).
    sizes = []
    monkeypatch.setattr(acl._lib, "bytes_from_memory", lambda ptr, size: sizes.append(size) or b"")
    for size in ((1 << 32) + 4, (1 << 32) - 1, 1 << 31):
        acl.util.ptr_to_bytes(4096, size)
    assert sizes == [(1 << 32) + 4, (1 << 32) - 1, 1 << 31]


def test_ptr_to_bytes_copy_functions():
    data = bytes(range(256))
    assert acl._lib.bytes_from_memory(acl.util.bytes_to_ptr(data) + 10, 200) == data[10:210]
    # Where the interpreter has no C API to call: a copy through a bytearray.
    saved = acl._lib.bytes_from_memory
    acl._lib.bytes_from_memory = None
    try:
        assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data) + 3, 100) == data[3:103]
    finally:
        acl._lib.bytes_from_memory = saved


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

def test_numpy_helpers_warn_with_category_warning():
    array = np.arange(4, dtype=np.int32)
    for call in (lambda: acl.util.numpy_to_ptr(array),
                 lambda: acl.util.numpy_contiguous_to_ptr(array),
                 lambda: acl.util.ptr_to_numpy(acl.util.numpy_contiguous_to_ptr(array)[0], (4,), 5)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert caught and all(w.category is Warning for w in caught)
        assert any("deprecated" in str(w.message) for w in caught)
        assert caught[-1].filename == __file__


@deprecated
def test_numpy_to_ptr_is_the_data_address():
    array = np.arange(10, dtype=np.float32)
    assert acl.util.numpy_to_ptr(array) == array.ctypes.data


def test_numpy_to_ptr_warns_again_for_non_contiguous_arrays():
    array = np.zeros((4, 4), dtype=np.float32).T
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert acl.util.numpy_to_ptr(array) == array.ctypes.data
    assert len(caught) == 2 and "contiguous" in str(caught[1].message)


@deprecated
@pytest.mark.parametrize("bad", [[1, 2], b"ab", None, 1.0])
def test_numpy_functions_need_an_ndarray(bad):
    with pytest.raises(ValueError, match="ndarray"):
        acl.util.numpy_to_ptr(bad)
    with pytest.raises(ValueError, match="ndarray"):
        acl.util.numpy_contiguous_to_ptr(bad)


@deprecated
def test_numpy_contiguous_to_ptr():
    array = np.arange(12, dtype=np.int64).reshape(3, 4)
    ptr, same = acl.util.numpy_contiguous_to_ptr(array)
    assert same is array and ptr == array.ctypes.data
    transposed = array.T
    ptr, copy = acl.util.numpy_contiguous_to_ptr(transposed)
    assert copy is not transposed and copy.flags.c_contiguous
    assert np.array_equal(copy, transposed) and ptr == copy.ctypes.data


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
def test_ptr_to_numpy_type_numbers(host_memory, type_number, dtype):
    host, _ = host_memory
    array = acl.util.ptr_to_numpy(host, (2, 3), type_number)
    assert array.dtype == np.dtype(dtype) and array.dtype.num == type_number
    assert array.shape == (2, 3)


@deprecated
def test_ptr_to_numpy_argument_checks(host_memory):
    host, _ = host_memory
    # pyACL's texts (util/numpy_convert.cpp), and NumPy's where pyACL passes them on.
    with pytest.raises(ValueError, match="^shape is empty$"):
        acl.util.ptr_to_numpy(host, [2, 3], 11)
    with pytest.raises(TypeError, match="^the second argument is not list of int$"):
        acl.util.ptr_to_numpy(host, (2.0, 3), 11)
    with pytest.raises(TypeError, match="^the second argument is not list of int$"):
        acl.util.ptr_to_numpy(host, (np.int64(2), 3), 11)
    with pytest.raises(ValueError, match="^negative dimensions are not allowed$"):
        acl.util.ptr_to_numpy(host, (-1,), 11)
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(host, (4,), 17)  # NPY_OBJECT
    with pytest.raises(ValueError, match="^Invalid data-type for array$"):
        acl.util.ptr_to_numpy(host, (4,), 999)
    with pytest.raises(ValueError, match="null"):
        acl.util.ptr_to_numpy(0, (4,), 11)
    assert acl.util.ptr_to_numpy(0, (0, 5), 11).shape == (0, 5)
    assert acl.util.ptr_to_numpy(host, (), 5).shape == ()


@deprecated
@pytest.mark.parametrize("shape", [(1 << 62, 4), ((1 << 63) - 1,), (1 << 40, 1 << 40), (3, 1 << 62)])
def test_ptr_to_numpy_refuses_shapes_past_what_an_array_can_address(host_memory, shape):
    host, _ = host_memory
    with pytest.raises(ValueError, match="array is too big"):  # NumPy's text, as in pyACL
        acl.util.ptr_to_numpy(host, shape, 11)


@deprecated
@pytest.mark.parametrize("dim", [1 << 63, (1 << 64) - 1])
def test_ptr_to_numpy_dimensions_are_signed_pointer_sized_ints(host_memory, dim):
    host, _ = host_memory
    with pytest.raises(ValueError, match="^negative dimensions are not allowed$"):
        acl.util.ptr_to_numpy(host, (dim,), 11)
    for outside in (1 << 64, -(1 << 63) - 1):
        with pytest.raises(ValueError, match="^PyLong_AsVoidPtr failed$"):
            acl.util.ptr_to_numpy(host, (outside,), 11)


@deprecated
def test_numpy_round_trip_through_the_device(context, device_memory):
    dev, size = device_memory
    source = np.linspace(-1, 1, size // 4, dtype=np.float32)
    assert acl.rt.memcpy(dev, size, acl.util.numpy_to_ptr(source), source.nbytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    result = np.empty_like(source)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(result), result.nbytes, dev, source.nbytes,
                         ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert np.array_equal(result, source)


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
    assert acl.destroy_data_buffer(buffer) != 0
    assert acl.get_data_buffer_addr(0) == 0


def test_data_type_sizes():
    assert [acl.data_type_size(t) for t in (0, 1, 2, 3, 9, 11, 12)] == [4, 2, 1, 4, 8, 8, 1]
