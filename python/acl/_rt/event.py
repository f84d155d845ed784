"""acl.rt events: create, record, wait, query, synchronize, timing."""

from ctypes import byref as _byref
from ctypes import c_float as _c_float
from ctypes import c_int as _c_int
from ctypes import c_uint32 as _c_uint32
from ctypes import c_uint64 as _c_uint64

from .._module import exported as _exported
from .._parse import CPYTHON_ERRORS as _CPYTHON_ERRORS
from .common import api as _api
from .common import c as _c
from .common import foreign as _foreign
from .common import foreign_wait as _foreign_wait
from .common import handle_out as _handle_out
from .common import value_out as _value_out


@_api(None, "aclrtCreateEvent")
def create_event():
    """event, ret = acl.rt.create_event()"""
    return _handle_out(_c.aclrtCreateEvent)


@_api("I", "aclrtCreateEventWithFlag")
def create_event_with_flag(flag, /):
    """event, ret = acl.rt.create_event_with_flag(flag)"""
    return _handle_out(_c.aclrtCreateEventWithFlag, flag)


@_api("I", "aclrtCreateEventExWithFlag")
def create_event_ex_with_flag(flag, /):
    """event, ret = acl.rt.create_event_ex_with_flag(flag)"""
    return _handle_out(_c.aclrtCreateEventExWithFlag, flag)


@_api("k", "aclrtDestroyEvent")
def destroy_event(event, /):
    """ret = acl.rt.destroy_event(event)"""
    return _c.aclrtDestroyEvent(event)


@_foreign("kk", "aclrtRecordEvent")
def record_event(event, stream, /):
    """ret = acl.rt.record_event(event, stream): event first."""


@_api("kk", "aclrtResetEvent")
def reset_event(event, stream, /):
    """ret = acl.rt.reset_event(event, stream)"""
    return _c.aclrtResetEvent(event, stream)


@_foreign("k", "aclrtQueryEvent", out=_c_int)
def query_event(event, /):
    """status, ret = acl.rt.query_event(event): 0 complete, 1 not ready (deprecated)."""


@_foreign("k", "aclrtQueryEventStatus", out=_c_int)
def query_event_status(event, /):
    """status, ret = acl.rt.query_event_status(event): 1 complete, 0 not ready."""


@_api("k", "aclrtQueryEventWaitStatus")
def query_event_wait_status(event, /):
    """status, ret = acl.rt.query_event_wait_status(event): 0 complete, 1 not ready."""
    return _value_out(_c_int, _c.aclrtQueryEventWaitStatus, event)


@_foreign_wait("k", "aclcudaSynchronizeEventSlice")
def synchronize_event(event, /):
    """ret = acl.rt.synchronize_event(event) (other Python threads keep running)

    Waits in slices (see common.wait_in_slices), so Ctrl-C interrupts it."""


@_api("ki", "aclrtSynchronizeEventWithTimeout", error="{name} args parse failed!")
def synchronize_event_with_timeout(event, timeout_ms, /):
    """ret = acl.rt.synchronize_event_with_timeout(event, timeout_ms): -1 waits forever."""
    return _c.aclrtSynchronizeEventWithTimeout(event, timeout_ms)


@_api("kk", "aclrtEventElapsedTime")
def event_elapsed_time(start, end, /):
    """ms, ret = acl.rt.event_elapsed_time(start, end)"""
    ms = _c_float()
    ret = _c.aclrtEventElapsedTime(_byref(ms), start, end)
    return ms.value, ret


@_api("k", "aclrtEventGetTimestamp")
def event_get_timestamp(event, /):
    """timestamp, ret = acl.rt.event_get_timestamp(event)"""
    return _value_out(_c_uint64, _c.aclrtEventGetTimestamp, event)


@_api("k", "aclrtGetEventId", error=_CPYTHON_ERRORS)
def get_event_id(event, /):
    """event_id, ret = acl.rt.get_event_id(event)"""
    return _value_out(_c_uint32, _c.aclrtGetEventId, event)


@_api(None, "aclrtGetEventAvailNum")
def get_event_avail_num():
    """count, ret = acl.rt.get_event_avail_num()"""
    return _value_out(_c_uint32, _c.aclrtGetEventAvailNum)


@_api("I", "aclrtSetOpWaitTimeout", error="{name} args parse failed!")
def set_op_wait_timeout(timeout, /):
    """ret = acl.rt.set_op_wait_timeout(timeout_s)"""
    return _c.aclrtSetOpWaitTimeout(timeout)


__all__ = _exported(globals())
