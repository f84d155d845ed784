"""acl-cuda's package where pyACL leaves the behaviour open: the deprecated
NumPy helpers warn with category Warning (and again for a non-contiguous
array), NULL pointers and malformed shapes are ValueError/TypeError with
messages of its own (pyACL's ptr_to_bytes builds an uninitialised bytes
object from NULL)."""
import warnings

import numpy as np
import pytest

import acl

deprecated = pytest.mark.filterwarnings("ignore:acl.util.*deprecated:Warning")


def test_ptr_to_bytes_null_pointer():
    with pytest.raises(ValueError, match="null"):
        acl.util.ptr_to_bytes(0, 4)


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
    with pytest.raises(TypeError, match="tuple"):
        acl.util.ptr_to_numpy(host, [2, 3], 11)
    with pytest.raises(TypeError):
        acl.util.ptr_to_numpy(host, (2.0, 3), 11)
    with pytest.raises(ValueError, match="negative"):
        acl.util.ptr_to_numpy(host, (-1,), 11)
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(host, (4,), 17)  # NPY_OBJECT
    with pytest.raises(ValueError):
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
