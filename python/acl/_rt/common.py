"""What the acl.rt areas share: the loaded library, the decorators that
check arguments per pyACL's format letters, and the out-parameter helpers."""

from ctypes import byref as _byref
from ctypes import c_void_p as _c_void_p

from .. import _lib
from .._parse import api as _api_for
from .._parse import DEFAULT_ERROR
from .._parse import foreign_api as _foreign_api_for


# The foreign functions, one attribute each (absent when the library lacks it).
c = _lib.api


def api(fmt, *c_functions, error=DEFAULT_ERROR):
    """Decorator: an acl.rt function taking arguments per fmt (see
    acl._parse; None: any arguments, ignored), present when the library
    exports every one of c_functions. error: what arguments that do not
    parse raise, pyACL's "acl.rt.<name> args parse failed" by default."""
    return _api_for("acl.rt", fmt, _lib.has(*c_functions), error)


def foreign(fmt, c_function, out=None, error=DEFAULT_ERROR):
    """For the hot calls that only pass their arguments on to c_function:
    the wrapper calls it directly, with no Python body in between (the
    decorated def gives the signature and docstring). With out, the result
    is (value, ret), value being what c_function wrote to its last argument
    (0 when ret is not 0)."""
    return _foreign_api_for("acl.rt", fmt, getattr(c, c_function, None), out, error)


# How long one C wait lasts before control returns to Python, where a
# pending Ctrl-C raises KeyboardInterrupt (signal handlers only run between
# bytecodes, never inside a foreign call).
WAIT_SLICE_MS = 100
_STILL_BUSY = (507046, 507047)  # ACL_ERROR_RT_STREAM/EVENT_SYNC_TIMEOUT


def foreign_wait(fmt, c_function):
    """foreign() for a wait with no limit through c_function(..., slice_ms),
    called again while the work is still busy (as wait_in_slices does),
    with no Python frame between the caller and the C function."""
    return _foreign_api_for("acl.rt", fmt, getattr(c, c_function, None),
                            sliced=(WAIT_SLICE_MS, _STILL_BUSY))


def wait_in_slices(wait, *args):
    """Calls wait(*args, WAIT_SLICE_MS) until the work is done or an error
    other than "still busy" comes back; waits with no limit stay
    interruptible that way. The stream or event is never left changed
    between slices."""
    ret = wait(*args, WAIT_SLICE_MS)
    while ret in _STILL_BUSY:
        ret = wait(*args, WAIT_SLICE_MS)
    return ret


def handle_out(function, *args):
    """Calls function(&handle, *args) and returns (handle, ret), NULL as 0."""
    handle = _c_void_p()
    ret = function(_byref(handle), *args)
    return handle.value or 0, ret


def value_out(ctype, function, *args):
    """Calls function(*args, &value) and returns (value, ret)."""
    value = ctype()
    ret = function(*args, _byref(value))
    return value.value, ret


# pyACL's text when a dict value does not convert to an unsigned C integer.
NOT_UNSIGNED = "PyLong_AsUnsignedLong failed"


def unsigned(value, bits):
    """value, an int of bits bits at most, for an unsigned field of a C
    struct filled from a dict; ValueError with pyACL's text otherwise.

    pyACL converts with PyLong_AsUnsignedLong, which refuses what is not an
    int and what is outside [0, 2**64), then casts to the field's type,
    which cuts what is wider: those are refused too (ctypes would cut them
    the same way, silently)."""
    if not isinstance(value, int) or not 0 <= value < (1 << bits):
        raise ValueError(NOT_UNSIGNED)
    return int(value)
