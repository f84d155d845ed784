"""acl.rt exception reports and last errors."""

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .callback import _report_exception


_exception_callback = None


def _run_exception_callback(info):
    fn = _exception_callback
    if fn is None:
        return
    try:
        fn(info or 0)
    except BaseException as exc:  # noqa: B036 - nothing may unwind into C
        _report_exception("acl.rt.set_exception_info_callback callback", fn, exc)


_exception_trampoline = _lib.aclrtExceptionInfoCallback(_run_exception_callback)
_no_exception_callback = _lib.aclrtExceptionInfoCallback()  # a NULL function pointer


@_api("|O", "aclrtSetExceptionInfoCallback")
def set_exception_info_callback(fn=None, /):
    """ret = acl.rt.set_exception_info_callback(fn): fn(exception_info) is called
    when a device task fails; None (or no argument) removes it."""
    global _exception_callback
    if fn is not None and not callable(fn):
        raise TypeError("acl.rt.set_exception_info_callback args parse failed")  # pyACL's text
    previous = _exception_callback
    _exception_callback = fn
    ret = _c.aclrtSetExceptionInfoCallback(_no_exception_callback if fn is None else _exception_trampoline)
    if ret != 0:
        _exception_callback = previous
    return ret


@_api("k", "aclrtGetErrorCodeFromExceptionInfo")
def get_error_code_from_exception_info(info, /):
    """code = acl.rt.get_error_code_from_exception_info(info)"""
    return _c.aclrtGetErrorCodeFromExceptionInfo(info)


@_api("k", "aclrtGetTaskIdFromExceptionInfo")
def get_task_id_from_exception_info(info, /):
    """task_id = acl.rt.get_task_id_from_exception_info(info)"""
    return _c.aclrtGetTaskIdFromExceptionInfo(info)


@_api("k", "aclrtGetStreamIdFromExceptionInfo")
def get_stream_id_from_exception_info(info, /):
    """stream_id = acl.rt.get_stream_id_from_exception_info(info)"""
    return _c.aclrtGetStreamIdFromExceptionInfo(info)


@_api("k", "aclrtGetThreadIdFromExceptionInfo")
def get_thread_id_from_exception_info(info, /):
    """thread_id = acl.rt.get_thread_id_from_exception_info(info)"""
    return _c.aclrtGetThreadIdFromExceptionInfo(info)


@_api("k", "aclrtGetDeviceIdFromExceptionInfo")
def get_device_id_from_exception_info(info, /):
    """device_id = acl.rt.get_device_id_from_exception_info(info)"""
    return _c.aclrtGetDeviceIdFromExceptionInfo(info)


@_api("i", "aclrtPeekAtLastError", error="{name} args parse failed!")
def peek_at_last_error(level, /):
    """ret = acl.rt.peek_at_last_error(level): the thread's last error code, kept."""
    return _c.aclrtPeekAtLastError(level)


@_api("i", "aclrtGetLastError", error="{name} args parse failed!")
def get_last_error(level, /):
    """ret = acl.rt.get_last_error(level): the thread's last error code, then cleared."""
    return _c.aclrtGetLastError(level)


__all__ = _exported(globals())
