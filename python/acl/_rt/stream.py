"""acl.rt streams: create, destroy, synchronize, query, attributes."""

from ctypes import byref as _byref
from ctypes import c_int as _c_int
from ctypes import c_int32 as _c_int32
from ctypes import c_uint32 as _c_uint32

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import foreign as _foreign
from .common import foreign_wait as _foreign_wait
from .common import handle_out as _handle_out
from .common import unsigned as _unsigned
from .common import value_out as _value_out


@_api(None, "aclrtCreateStream")
def create_stream():
    """stream, ret = acl.rt.create_stream()"""
    return _handle_out(_c.aclrtCreateStream)


@_api("ii", "aclrtCreateStreamWithConfig")
def create_stream_with_config(priority, flag, /):
    """stream, ret = acl.rt.create_stream_with_config(priority, flag)"""
    return _handle_out(_c.aclrtCreateStreamWithConfig, priority & 0xFFFFFFFF, flag & 0xFFFFFFFF)


@_api("k", "aclrtDestroyStream")
def destroy_stream(stream, /):
    """ret = acl.rt.destroy_stream(stream)"""
    return _c.aclrtDestroyStream(stream)


@_api("k", "aclrtDestroyStreamForce")
def destroy_stream_force(stream, /):
    """ret = acl.rt.destroy_stream_force(stream): without waiting for queued work."""
    return _c.aclrtDestroyStreamForce(stream)


@_foreign_wait("k", "aclcudaSynchronizeStreamSlice")
def synchronize_stream(stream, /):
    """ret = acl.rt.synchronize_stream(stream) (other Python threads keep running)

    Waits in slices (see common.wait_in_slices), so Ctrl-C interrupts it."""


@_api("ki", "aclrtSynchronizeStreamWithTimeout")
def synchronize_stream_with_timeout(stream, timeout_ms, /):
    """ret = acl.rt.synchronize_stream_with_timeout(stream, timeout_ms): -1 waits forever."""
    return _c.aclrtSynchronizeStreamWithTimeout(stream, timeout_ms)


@_api("k", "aclrtStreamQuery", error="{name} args parse failed!")
def stream_query(stream, /):
    """status, ret = acl.rt.stream_query(stream): 0 complete, 1 not ready."""
    return _value_out(_c_int, _c.aclrtStreamQuery, stream)


@_foreign("kk", "aclrtStreamWaitEvent")
def stream_wait_event(stream, event, /):
    """ret = acl.rt.stream_wait_event(stream, event): stream first."""


@_api("kI", "aclrtSetStreamFailureMode", error="{name} args parse failed!")
def set_stream_failure_mode(stream, mode, /):
    """ret = acl.rt.set_stream_failure_mode(stream, mode): 0 continue, 1 stop."""
    return _c.aclrtSetStreamFailureMode(stream, mode)


@_api("kI", "aclrtSetStreamOverflowSwitch")
def set_stream_overflow_switch(stream, flag, /):
    """ret = acl.rt.set_stream_overflow_switch(stream, flag)"""
    return _c.aclrtSetStreamOverflowSwitch(stream, flag)


@_api("k", "aclrtGetStreamOverflowSwitch")
def get_stream_overflow_switch(stream, /):
    """flag, ret = acl.rt.get_stream_overflow_switch(stream)"""
    return _value_out(_c_uint32, _c.aclrtGetStreamOverflowSwitch, stream)


@_api("k", "aclrtStreamAbort")
def stream_abort(stream, /):
    """ret = acl.rt.stream_abort(stream)"""
    return _c.aclrtStreamAbort(stream)


@_api("k", "aclrtStreamGetId")
def stream_get_id(stream, /):
    """stream_id, ret = acl.rt.stream_get_id(stream)"""
    return _value_out(_c_int32, _c.aclrtStreamGetId, stream)


@_api(None, "aclrtGetStreamAvailableNum")
def get_stream_available_num():
    """count, ret = acl.rt.get_stream_available_num()"""
    return _value_out(_c_uint32, _c.aclrtGetStreamAvailableNum)


_STREAM_ATTR_KEYS = {1: "failureMode", 2: "overflowSwitch", 3: "userCustomTag"}
# The widths of the union members set from the value dict.
_STREAM_ATTR_BITS = {"failureMode": 64, "overflowSwitch": 32, "userCustomTag": 32}
_RESERVED_WORDS = 4


@_api("kiO", "aclrtSetStreamAttribute", error="{name} args parse failed!")
def set_stream_attribute(stream, attr, value, /):
    """ret = acl.rt.set_stream_attribute(stream, attr, value_dict)

    value_dict holds "failureMode" (attr 1), "overflowSwitch" (2),
    "userCustomTag" (3), or for other attributes "reserved" (up to 4 ints).
    As in pyACL, a missing key or a value that is not an int leaves 0, and
    "reserved" stops at its first item that is not an int."""
    if not isinstance(value, dict):
        raise TypeError("the aclrtStreamAttrValue argument is not dict")  # pyACL's texts
    union = _lib.aclrtStreamAttrValue()
    key = _STREAM_ATTR_KEYS.get(attr, "reserved")
    item = value.get(key)
    if key != "reserved":
        if isinstance(item, int):
            setattr(union, key, _unsigned(item, _STREAM_ATTR_BITS[key]))
    elif isinstance(item, list):
        if len(item) > _RESERVED_WORDS:
            raise ValueError("The length of reserved should be no greater than %d" % _RESERVED_WORDS)
        for i, word in enumerate(item):
            if not isinstance(word, int):
                break
            union.reserve[i] = _unsigned(word, 32)
    return _c.aclrtSetStreamAttribute(stream, attr, _byref(union))


@_api("ki", "aclrtGetStreamAttribute", error="{name} args parse failed!")
def get_stream_attribute(stream, attr, /):
    """value_dict, ret = acl.rt.get_stream_attribute(stream, attr)"""
    union = _lib.aclrtStreamAttrValue()
    ret = _c.aclrtGetStreamAttribute(stream, attr, _byref(union))
    key = _STREAM_ATTR_KEYS.get(attr, "reserved")
    if key == "reserved":
        return {key: list(union.reserve)}, ret
    return {key: getattr(union, key)}, ret


@_api(None, "aclrtGetThreadLastTaskId")
def get_thread_last_task_id():
    """task_id, ret = acl.rt.get_thread_last_task_id()"""
    return _value_out(_c_uint32, _c.aclrtGetThreadLastTaskId)


# ---- resource limits: pyACL's texts say "parse failed", without "args" ------------

@_api("ki", "aclrtGetStreamResLimit", error="{name} parse failed")
def get_stream_res_limit(stream, limit_type, /):
    """value, ret = acl.rt.get_stream_res_limit(stream, type)"""
    return _value_out(_c_uint32, _c.aclrtGetStreamResLimit, stream, limit_type)


@_api("kiI", "aclrtSetStreamResLimit", error="{name} parse failed")
def set_stream_res_limit(stream, limit_type, value, /):
    """ret = acl.rt.set_stream_res_limit(stream, type, value)"""
    return _c.aclrtSetStreamResLimit(stream, limit_type, value)


@_api("k", "aclrtResetStreamResLimit", error="{name} parse failed")
def reset_stream_res_limit(stream, /):
    """ret = acl.rt.reset_stream_res_limit(stream)"""
    return _c.aclrtResetStreamResLimit(stream)


@_api("k", "aclrtUseStreamResInCurrentThread", error="{name} parse failed")
def use_stream_res_in_current_thread(stream, /):
    """ret = acl.rt.use_stream_res_in_current_thread(stream)"""
    return _c.aclrtUseStreamResInCurrentThread(stream)


@_api("k", "aclrtUnuseStreamResInCurrentThread", error="{name} parse failed")
def unuse_stream_res_in_current_thread(stream, /):
    """ret = acl.rt.unuse_stream_res_in_current_thread(stream)"""
    return _c.aclrtUnuseStreamResInCurrentThread(stream)


@_api("i", "aclrtGetResInCurrentThread", error="{name} parse failed")
def get_res_in_current_thread(limit_type, /):
    """value, ret = acl.rt.get_res_in_current_thread(type)"""
    return _value_out(_c_uint32, _c.aclrtGetResInCurrentThread, limit_type)


__all__ = _exported(globals())
