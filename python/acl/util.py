"""acl.util: pointers to and from Python buffers, and report threads.

NumPy is imported on first use, so the bytes helpers and the thread
helpers work without it. Pointers are plain ints, as everywhere in acl.
"""

import ctypes as _ctypes
import sys as _sys
import threading as _threading
import traceback as _traceback
import warnings as _warnings

from . import _lib
from ._parse import CPYTHON_ERRORS as _CPYTHON_ERRORS
from ._parse import DEFAULT_ERROR as _DEFAULT_ERROR
from ._parse import type_name as _type_name
from ._parse import parsed as _parsed

_ESRCH = 3     # what pthread_join answers for an unknown thread
_EDEADLK = 35  # ... and for joining oneself
_EAGAIN = 11   # what pthread_create answers when no thread can be made


def _api(fmt, error=_DEFAULT_ERROR):
    def decorate(body):
        return _parsed("acl.util.%s" % body.__name__, fmt, error)(body)
    return decorate


def _numpy():
    try:
        import numpy
    except ImportError as exc:
        raise ImportError("acl.util: this function needs NumPy (1.22 or newer)") from exc
    return numpy


def _deprecated(name, replacement):
    # pyACL's text and category (Warning, not DeprecationWarning).
    _warnings.warn("acl.util.%s will be deprecated. Please use acl.util.%s instead." % (name, replacement),
                   Warning, stacklevel=4)  # past the body and the argument-checking wrapper


def _require_ndarray(array):
    numpy = _numpy()
    if not isinstance(array, numpy.ndarray):
        raise ValueError("needs an ndarray as argument")  # pyACL's text
    return numpy


def _data_address(array):
    return array.__array_interface__["data"][0]


# ---- NumPy arrays ------------------------------------------------------------------

@_api("O")
def numpy_to_ptr(array, /):
    """ptr = acl.util.numpy_to_ptr(ndarray): address of the array's data, no copy
    (deprecated: use bytes_to_ptr). Keep the array alive while the pointer is used."""
    _deprecated("numpy_to_ptr", "bytes_to_ptr")
    _require_ndarray(array)
    if not array.flags.c_contiguous:
        _warnings.warn("The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead.",
                       Warning, stacklevel=3)
    return _data_address(array)


@_api("O")
def numpy_contiguous_to_ptr(array, /):
    """ptr, array = acl.util.numpy_contiguous_to_ptr(ndarray): the data address of a
    C-contiguous version of the array (a copy only if needed) and that array, which
    must be kept alive while the pointer is used (deprecated: use bytes_to_ptr)."""
    _deprecated("numpy_contiguous_to_ptr", "bytes_to_ptr")
    _require_ndarray(array)
    contiguous = array if array.flags.c_contiguous else array.copy(order="C")
    return _data_address(contiguous), contiguous


_INTP_RANGE = 1 << 64  # a dimension is a pointer-sized int, as pyACL reads it


def _dtype_of_number(numpy, type_number):
    for code in numpy.typecodes["All"]:
        dtype = numpy.dtype(code)
        if dtype.num == type_number:
            if dtype.itemsize == 0 or dtype.hasobject:
                raise ValueError("acl.util.ptr_to_numpy(): NumPy type %d has no fixed size of plain data"
                                 % type_number)
            return dtype
    raise ValueError("Invalid data-type for array")  # NumPy's text, which pyACL passes on


class _Memory:
    """What an array made by ptr_to_numpy refers to: the address alone,
    described as NumPy's array interface. Nothing is owned."""
    __slots__ = ("__array_interface__",)

    def __init__(self, ptr, dims, dtype):
        self.__array_interface__ = {"version": 3, "shape": dims, "typestr": dtype.str, "data": (ptr, False)}


@_api("kOi")
def ptr_to_numpy(ptr, shape, type_number, /):
    """ndarray = acl.util.ptr_to_numpy(ptr, shape, npy_type): a writeable array over
    existing host memory, no copy, no ownership (deprecated: use ptr_to_bytes).

    shape is a tuple of ints; npy_type a NumPy type number (11 float32, 5 int32, ...)."""
    _deprecated("ptr_to_numpy", "ptr_to_bytes")
    numpy = _numpy()
    # pyACL's texts: PyTuple_Size fails on what is not a tuple, PyLong_AsVoidPtr
    # on what does not fit a pointer.
    if not isinstance(shape, tuple):
        raise ValueError("shape is empty")
    dims = []
    for dim in shape:
        if not isinstance(dim, int):
            raise TypeError("the second argument is not list of int")
        if not -(_INTP_RANGE >> 1) <= dim < _INTP_RANGE:
            raise ValueError("PyLong_AsVoidPtr failed")
        # Read as a signed npy_intp: 2**63 and above are negative dimensions.
        dims.append(dim - _INTP_RANGE if dim >= _INTP_RANGE >> 1 else int(dim))
    dtype = _dtype_of_number(numpy, type_number)
    if ptr == 0 and all(dim > 0 for dim in dims):
        raise ValueError("acl.util.ptr_to_numpy(): null pointer")
    # NumPy checks the shape as for any array: a negative dimension, or a
    # size in bytes past what an array can address, is its ValueError.
    array = numpy.asarray(_Memory(ptr, tuple(dims), dtype))
    return array if array.dtype.num == dtype.num else array.view(dtype)


# ---- bytes -------------------------------------------------------------------------------

@_api("O")
def bytes_to_ptr(data, /):
    """ptr = acl.util.bytes_to_ptr(bytes_obj): address of the bytes object's own
    buffer, no copy. Writes through it (e.g. acl.rt.memcpy into it) show in the
    object; keep it alive while the pointer is used."""
    if not isinstance(data, bytes):
        raise ValueError("needs an byte as argument")  # pyACL's text
    # c_char_p keeps a pointer to the object's internal buffer, not a copy.
    return _ctypes.cast(_ctypes.c_char_p(data), _ctypes.c_void_p).value


_BYTES_FAILED = "convert c pointer to bytes failed"  # pyACL's text
_SSIZE_MAX = (1 << 63) - 1


def _copy_out(ptr, size):
    if _lib.bytes_from_memory is not None:
        return _lib.bytes_from_memory(ptr, size)
    copy = bytearray(size)
    _ctypes.memmove((_ctypes.c_char * size).from_buffer(copy), ptr, size)
    return bytes(copy)


@_api("kk")
def ptr_to_bytes(ptr, size, /):
    """data = acl.util.ptr_to_bytes(ptr, size): a copy of size bytes of host memory.

    A size of 2**63 or more (a negative size is one, masked to 64 bits as
    pyACL reads it) or one no bytes object can hold is pyACL's ValueError,
    as is a NULL pointer (from which pyACL would return uninitialised bytes)."""
    if size == 0:
        return b""
    if size > _SSIZE_MAX or ptr == 0:
        raise ValueError(_BYTES_FAILED)
    try:
        return _copy_out(ptr, size)
    except (MemoryError, OverflowError) as exc:
        raise ValueError(_BYTES_FAILED) from exc


# ---- threads ----------------------------------------------------------------------------

class _ThreadRecord:
    __slots__ = ("thread", "errors")

    def __init__(self):
        self.thread = None
        self.errors = []


_threads = {}
_threads_lock = _threading.Lock()


def _thread_body(record, function, args):
    try:
        if args is None:
            function()
        else:
            function(args)
    except BaseException as exc:  # noqa: B036 - reported by stop_thread
        # pyACL's record of it, which stop_thread raises.
        record.errors.append("exception=%s,msg=thread call failed;" % _type_name(exc))
        _sys.stderr.write("acl: exception in the acl.util.start_thread function %r:\n" % (function,))
        _traceback.print_exception(type(exc), exc, exc.__traceback__, file=_sys.stderr)


@_api("OO", error=_CPYTHON_ERRORS)
def start_thread(function, args, /):
    """thread_id, ret = acl.util.start_thread(fn, args): runs fn(args) (fn() when
    args is None) on a new thread. thread_id is its pthread id, for
    acl.rt.subscribe_report; the thread starts with no current context
    (call acl.rt.set_context in it). Join it with stop_thread."""
    if not callable(function):
        raise TypeError("parameter must be callable")  # pyACL's text
    record = _ThreadRecord()
    # Daemon, like the raw pthread pyACL makes: it does not hold the process at exit.
    thread = _threading.Thread(target=_thread_body, args=(record, function, args),
                               name="acl.util.start_thread", daemon=True)
    record.thread = thread
    try:
        thread.start()
    except RuntimeError:
        return 0, _EAGAIN
    # threading.Thread.ident is pthread_self() of the new thread on POSIX.
    with _threads_lock:
        _threads[thread.ident] = record
    return thread.ident, 0


@_api("K")
def stop_thread(thread_id, /):
    """ret = acl.util.stop_thread(thread_id): waits for the thread to return (it
    is not cancelled: give it an exit flag). Raises RuntimeError if the thread's
    function raised."""
    if thread_id == _threading.get_ident():
        return _EDEADLK
    with _threads_lock:
        record = _threads.pop(thread_id, None)
    if record is None:
        return _ESRCH
    record.thread.join()
    if record.errors:
        raise RuntimeError("".join(record.errors))
    return 0
