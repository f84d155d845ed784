"""acl-cuda's package where pyACL leaves the behaviour open: the deprecated
NumPy helpers warn with category Warning (and again for a non-contiguous
array); NULL pointers, sizes past 2**63 or past what a bytes object holds,
and malformed shapes are ValueError/TypeError, with pyACL's texts where
pyACL has one (pyACL's ptr_to_bytes builds an uninitialised bytes object
from NULL); ptr_to_bytes copies exactly the size asked for, through the
package's own copy functions."""
import warnings

import numpy as np
import pytest

import acl

deprecated = pytest.mark.filterwarnings("ignore:acl.util.*deprecated:Warning")


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


def test_numpy_to_ptr_warns_again_for_non_contiguous_arrays():
    array = np.zeros((4, 4), dtype=np.float32).T
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert acl.util.numpy_to_ptr(array) == array.ctypes.data
    assert len(caught) == 2 and "contiguous" in str(caught[1].message)


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


def test_util_null_pointers_are_value_errors():
    with pytest.raises(ValueError):
        acl.util.ptr_to_bytes(0, 16)
    with pytest.raises(ValueError):
        acl.util.ptr_to_bytes((1 << 64) * 3, 16)  # masks to NULL
    assert acl.util.ptr_to_bytes(0, 0) == b""


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
