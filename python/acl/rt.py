"""acl.rt: devices, contexts, streams, events, memory, callbacks.

Every function has pyACL's call form: positional arguments, integer handles
(0 for NULL, and 0 as a stream means the current context's default
stream), and either a bare ``ret`` or a tuple whose last item is ``ret``.
Functions whose C counterpart the loaded libascendcl.so does not export
are absent, as they would be from a pyACL build without them.
"""

import collections as _collections
import itertools as _itertools
import sys as _sys
import traceback as _traceback
from ctypes import byref as _byref
from ctypes import c_float as _c_float
from ctypes import c_int as _c_int
from ctypes import c_int32 as _c_int32
from ctypes import c_int64 as _c_int64
from ctypes import c_size_t as _c_size_t
from ctypes import c_uint32 as _c_uint32
from ctypes import c_uint64 as _c_uint64
from ctypes import c_void_p as _c_void_p

from . import _lib
from ._parse import api as _api_for
from ._parse import drop_unavailable as _drop_unavailable
from ._parse import foreign_api as _foreign_api_for

_c = _lib.api


def _api(fmt, *c_functions):
    return _api_for("acl.rt", fmt, _lib.has(*c_functions))


def _foreign(fmt, c_function, out=None):
    """For the hot calls that only pass their arguments on to c_function:
    the wrapper calls it directly, with no Python body in between (the
    decorated def gives the signature and docstring). With out, the result
    is (value, ret), value being what c_function wrote to its last argument
    (0 when ret is not 0)."""
    return _foreign_api_for("acl.rt", fmt, getattr(_c, c_function, None), out)


def _handle_out(function, *args):
    """Calls function(&handle, *args) and returns (handle, ret), NULL as 0."""
    handle = _c_void_p()
    ret = function(_byref(handle), *args)
    return handle.value or 0, ret


def _value_out(ctype, function, *args):
    """Calls function(*args, &value) and returns (value, ret)."""
    value = ctype()
    ret = function(*args, _byref(value))
    return value.value, ret


# ==== devices ====================================================================

@_api("i", "aclrtSetDevice")
def set_device(device_id, /):
    """ret = acl.rt.set_device(device_id)"""
    return _c.aclrtSetDevice(device_id)


@_api("i", "aclrtResetDevice")
def reset_device(device_id, /):
    """ret = acl.rt.reset_device(device_id)"""
    return _c.aclrtResetDevice(device_id)


@_api("i", "aclrtResetDeviceForce")
def reset_device_force(device_id, /):
    """ret = acl.rt.reset_device_force(device_id)"""
    return _c.aclrtResetDeviceForce(device_id)


@_api("", "aclrtGetDevice")
def get_device():
    """device_id, ret = acl.rt.get_device()"""
    return _value_out(_c_int32, _c.aclrtGetDevice)


@_api("", "aclrtGetDeviceCount")
def get_device_count():
    """count, ret = acl.rt.get_device_count()"""
    return _value_out(_c_uint32, _c.aclrtGetDeviceCount)


@_api("", "aclrtGetRunMode")
def get_run_mode():
    """run_mode, ret = acl.rt.get_run_mode(): 0 ACL_DEVICE, 1 ACL_HOST."""
    return _value_out(_c_int, _c.aclrtGetRunMode)


@_api("i", "aclrtSetTsDevice")
def set_ts_device(ts_id, /):
    """ret = acl.rt.set_ts_device(ts_id)"""
    return _c.aclrtSetTsDevice(ts_id)


@_api("", "aclrtSynchronizeDevice")
def synchronize_device():
    """ret = acl.rt.synchronize_device() (other Python threads keep running)"""
    return _c.aclrtSynchronizeDevice()


@_api("i", "aclrtSynchronizeDeviceWithTimeout")
def synchronize_device_with_timeout(timeout_ms, /):
    """ret = acl.rt.synchronize_device_with_timeout(timeout_ms): -1 waits forever."""
    return _c.aclrtSynchronizeDeviceWithTimeout(timeout_ms)


@_api("i", "aclrtSetDeviceSatMode")
def set_device_sat_mode(mode, /):
    """ret = acl.rt.set_device_sat_mode(mode)"""
    return _c.aclrtSetDeviceSatMode(mode)


@_api("", "aclrtGetDeviceSatMode")
def get_device_sat_mode():
    """mode, ret = acl.rt.get_device_sat_mode()"""
    return _value_out(_c_int, _c.aclrtGetDeviceSatMode)


@_api("i", "aclrtGetDeviceUtilizationRate")
def get_device_utilization_rate(device_id, /):
    """info_dict, ret = acl.rt.get_device_utilization_rate(device_id)"""
    info = _lib.aclrtUtilizationInfo()
    ret = _c.aclrtGetDeviceUtilizationRate(device_id, _byref(info))
    return {
        "cube_utilization": info.cubeUtilization,
        "vector_utilization": info.vectorUtilization,
        "aicpu_utilization": info.aicpuUtilization,
        "memory_utilization": info.memoryUtilization,
        "utilization_extend": info.utilizationExtend or 0,
    }, ret


@_api("i", "aclrtQueryDeviceStatus")
def query_device_status(device_id, /):
    """status, ret = acl.rt.query_device_status(device_id)"""
    return _value_out(_c_int, _c.aclrtQueryDeviceStatus, device_id)


@_api("II", "aclrtGetDeviceInfo")
def get_device_info(device_id, attr, /):
    """value, ret = acl.rt.get_device_info(device_id, attr)

    The value is the full int64 (pyACL truncates it to a C int)."""
    return _value_out(_c_int64, _c.aclrtGetDeviceInfo, device_id, attr)


@_api("", "aclrtDeviceGetStreamPriorityRange")
def device_get_stream_priority_range():
    """least, greatest, ret = acl.rt.device_get_stream_priority_range()"""
    least, greatest = _c_int32(), _c_int32()
    ret = _c.aclrtDeviceGetStreamPriorityRange(_byref(least), _byref(greatest))
    return least.value, greatest.value, ret


@_api("iI", "aclrtGetDeviceCapability")
def get_device_capability(device_id, feature, /):
    """value, ret = acl.rt.get_device_capability(device_id, feature)"""
    return _value_out(_c_int32, _c.aclrtGetDeviceCapability, device_id, feature)


@_api("iI", "aclrtGetDeviceResLimit")
def get_device_res_limit(device_id, limit_type, /):
    """value, ret = acl.rt.get_device_res_limit(device_id, type)"""
    return _value_out(_c_uint32, _c.aclrtGetDeviceResLimit, device_id, limit_type)


@_api("iII", "aclrtSetDeviceResLimit")
def set_device_res_limit(device_id, limit_type, value, /):
    """ret = acl.rt.set_device_res_limit(device_id, type, value)"""
    return _c.aclrtSetDeviceResLimit(device_id, limit_type, value)


@_api("i", "aclrtResetDeviceResLimit")
def reset_device_res_limit(device_id, /):
    """ret = acl.rt.reset_device_res_limit(device_id)"""
    return _c.aclrtResetDeviceResLimit(device_id)


@_api("II", "aclrtGetDevicesTopo")
def get_devices_topo(device_id, other_device_id, /):
    """value, ret = acl.rt.get_devices_topo(dev, other_dev)

    The value is the full uint64 bitmask (pyACL truncates it to 32 bits)."""
    return _value_out(_c_uint64, _c.aclrtGetDevicesTopo, device_id, other_device_id)


@_api("i", "aclrtGetLogicDevIdByUserDevId")
def get_logic_dev_id_by_user_dev_id(user_dev_id, /):
    """logic_dev_id, ret = acl.rt.get_logic_dev_id_by_user_dev_id(user_dev_id)"""
    return _value_out(_c_int32, _c.aclrtGetLogicDevIdByUserDevId, user_dev_id)


@_api("i", "aclrtGetUserDevIdByLogicDevId")
def get_user_dev_id_by_logic_dev_id(logic_dev_id, /):
    """user_dev_id, ret = acl.rt.get_user_dev_id_by_logic_dev_id(logic_dev_id)"""
    return _value_out(_c_int32, _c.aclrtGetUserDevIdByLogicDevId, logic_dev_id)


@_api("i", "aclrtGetLogicDevIdByPhyDevId")
def get_logic_dev_id_by_phy_dev_id(phy_dev_id, /):
    """logic_dev_id, ret = acl.rt.get_logic_dev_id_by_phy_dev_id(phy_dev_id)"""
    return _value_out(_c_int32, _c.aclrtGetLogicDevIdByPhyDevId, phy_dev_id)


@_api("i", "aclrtGetPhyDevIdByLogicDevId")
def get_phy_dev_id_by_logic_dev_id(logic_dev_id, /):
    """phy_dev_id, ret = acl.rt.get_phy_dev_id_by_logic_dev_id(logic_dev_id)"""
    return _value_out(_c_int32, _c.aclrtGetPhyDevIdByLogicDevId, logic_dev_id)


@_api("i", "aclrtDeviceGetUuid")
def device_get_uuid(device_id, /):
    """uuid_dict, ret = acl.rt.device_get_uuid(device_id): {"bytes": [16 ints]}"""
    uuid = _lib.aclrtUuid()
    ret = _c.aclrtDeviceGetUuid(device_id, _byref(uuid))
    raw = bytes(bytearray(uuid)[:16])
    return {"bytes": [b - 256 if b > 127 else b for b in raw]}, ret


@_api("", "aclrtDeviceGetBareTgid")
def device_get_bare_tgid():
    """pid, ret = acl.rt.device_get_bare_tgid()"""
    return _value_out(_c_int32, _c.aclrtDeviceGetBareTgid)


# ---- peer access ----

@_api("ii", "aclrtDeviceCanAccessPeer")
def device_can_access_peer(device_id, peer_device_id, /):
    """can_access, ret = acl.rt.device_can_access_peer(device_id, peer_device_id): 1 = yes"""
    can_access = _c_int32()
    ret = _c.aclrtDeviceCanAccessPeer(_byref(can_access), device_id, peer_device_id)
    return can_access.value, ret


@_api("iI", "aclrtDeviceEnablePeerAccess")
def device_enable_peer_access(peer_device_id, flags, /):
    """ret = acl.rt.device_enable_peer_access(peer_device_id, flags): from the current device, flags 0"""
    return _c.aclrtDeviceEnablePeerAccess(peer_device_id, flags)


@_api("i", "aclrtDeviceDisablePeerAccess")
def device_disable_peer_access(peer_device_id, /):
    """ret = acl.rt.device_disable_peer_access(peer_device_id)"""
    return _c.aclrtDeviceDisablePeerAccess(peer_device_id)


@_api("ii", "aclrtDevicePeerAccessStatus")
def device_peer_access_status(device_id, peer_device_id, /):
    """status, ret = acl.rt.device_peer_access_status(device_id, peer_device_id)"""
    return _value_out(_c_int32, _c.aclrtDevicePeerAccessStatus, device_id, peer_device_id)


@_api("kkk", "aclrtGetOverflowStatus")
def get_overflow_status(output_addr, output_size, stream, /):
    """ret = acl.rt.get_overflow_status(out_addr, out_size, stream)"""
    return _c.aclrtGetOverflowStatus(output_addr, output_size, stream)


@_api("k", "aclrtResetOverflowStatus")
def reset_overflow_status(stream, /):
    """ret = acl.rt.reset_overflow_status(stream)"""
    return _c.aclrtResetOverflowStatus(stream)


# ==== contexts =====================================================================

@_api("i", "aclrtCreateContext")
def create_context(device_id, /):
    """context, ret = acl.rt.create_context(device_id): also made current for this thread."""
    return _handle_out(_c.aclrtCreateContext, device_id)


@_api("k", "aclrtDestroyContext")
def destroy_context(context, /):
    """ret = acl.rt.destroy_context(context)"""
    return _c.aclrtDestroyContext(context)


@_api("k", "aclrtSetCurrentContext")
def set_context(context, /):
    """ret = acl.rt.set_context(context)"""
    return _c.aclrtSetCurrentContext(context)


@_api("", "aclrtGetCurrentContext")
def get_context():
    """context, ret = acl.rt.get_context()"""
    return _handle_out(_c.aclrtGetCurrentContext)


@_api("", "aclrtCtxGetCurrentDefaultStream")
def ctx_get_current_default_stream():
    """stream, ret = acl.rt.ctx_get_current_default_stream(): the handle 0 stands for."""
    return _handle_out(_c.aclrtCtxGetCurrentDefaultStream)


@_api("il", "aclrtCtxSetSysParamOpt")
def ctx_set_sys_param_opt(opt, value, /):
    """ret = acl.rt.ctx_set_sys_param_opt(opt, value)"""
    return _c.aclrtCtxSetSysParamOpt(opt, value)


@_api("i", "aclrtCtxGetSysParamOpt")
def ctx_get_sys_param_opt(opt, /):
    """value, ret = acl.rt.ctx_get_sys_param_opt(opt)"""
    return _value_out(_c_int64, _c.aclrtCtxGetSysParamOpt, opt)


@_api("il", "aclrtSetSysParamOpt")
def set_sys_param_opt(opt, value, /):
    """ret = acl.rt.set_sys_param_opt(opt, value)"""
    return _c.aclrtSetSysParamOpt(opt, value)


@_api("i", "aclrtGetSysParamOpt")
def get_sys_param_opt(opt, /):
    """value, ret = acl.rt.get_sys_param_opt(opt)"""
    return _value_out(_c_int64, _c.aclrtGetSysParamOpt, opt)


@_api("i", "aclrtGetPrimaryCtxState")
def get_primary_ctx_state(device_id, /):
    """active, flags, ret = acl.rt.get_primary_ctx_state(device_id): flags is always 0."""
    active = _c_int32()
    ret = _c.aclrtGetPrimaryCtxState(device_id, None, _byref(active))
    return active.value, 0, ret


# ==== streams ========================================================================

@_api("", "aclrtCreateStream")
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


@_foreign("k", "aclrtSynchronizeStream")
def synchronize_stream(stream, /):
    """ret = acl.rt.synchronize_stream(stream) (other Python threads keep running)"""


@_api("ki", "aclrtSynchronizeStreamWithTimeout")
def synchronize_stream_with_timeout(stream, timeout_ms, /):
    """ret = acl.rt.synchronize_stream_with_timeout(stream, timeout_ms): -1 waits forever."""
    return _c.aclrtSynchronizeStreamWithTimeout(stream, timeout_ms)


@_api("k", "aclrtStreamQuery")
def stream_query(stream, /):
    """status, ret = acl.rt.stream_query(stream): 0 complete, 1 not ready."""
    return _value_out(_c_int, _c.aclrtStreamQuery, stream)


@_foreign("kk", "aclrtStreamWaitEvent")
def stream_wait_event(stream, event, /):
    """ret = acl.rt.stream_wait_event(stream, event): stream first."""


@_api("kI", "aclrtSetStreamFailureMode")
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


@_api("", "aclrtGetStreamAvailableNum")
def get_stream_available_num():
    """count, ret = acl.rt.get_stream_available_num()"""
    return _value_out(_c_uint32, _c.aclrtGetStreamAvailableNum)


_STREAM_ATTR_KEYS = {1: "failureMode", 2: "overflowSwitch", 3: "userCustomTag"}


@_api("kiO", "aclrtSetStreamAttribute")
def set_stream_attribute(stream, attr, value, /):
    """ret = acl.rt.set_stream_attribute(stream, attr, value_dict)

    value_dict holds "failureMode" (attr 1), "overflowSwitch" (2),
    "userCustomTag" (3), or for other attributes "reserved" (4 ints)."""
    if not isinstance(value, dict):
        raise TypeError("acl.rt.set_stream_attribute() argument 3 must be dict, not %s"
                        % type(value).__name__)
    union = _lib.aclrtStreamAttrValue()
    key = _STREAM_ATTR_KEYS.get(attr, "reserved")
    if key not in value:
        raise ValueError("acl.rt.set_stream_attribute(): attribute %d needs the key %r" % (attr, key))
    if key == "reserved":
        words = list(value[key])
        if len(words) > 4:
            raise ValueError("acl.rt.set_stream_attribute(): 'reserved' holds at most 4 ints")
        for i, word in enumerate(words):
            union.reserve[i] = word
    elif key == "failureMode":
        union.failureMode = value[key]
    else:
        setattr(union, key, value[key])
    return _c.aclrtSetStreamAttribute(stream, attr, _byref(union))


@_api("ki", "aclrtGetStreamAttribute")
def get_stream_attribute(stream, attr, /):
    """value_dict, ret = acl.rt.get_stream_attribute(stream, attr)"""
    union = _lib.aclrtStreamAttrValue()
    ret = _c.aclrtGetStreamAttribute(stream, attr, _byref(union))
    key = _STREAM_ATTR_KEYS.get(attr, "reserved")
    if key == "reserved":
        return {key: list(union.reserve)}, ret
    return {key: getattr(union, key)}, ret


@_api("", "aclrtGetThreadLastTaskId")
def get_thread_last_task_id():
    """task_id, ret = acl.rt.get_thread_last_task_id()"""
    return _value_out(_c_uint32, _c.aclrtGetThreadLastTaskId)


# ==== events ======================================================================

@_api("", "aclrtCreateEvent")
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


@_api("k", "aclrtSynchronizeEvent")
def synchronize_event(event, /):
    """ret = acl.rt.synchronize_event(event) (other Python threads keep running)"""
    return _c.aclrtSynchronizeEvent(event)


@_api("ki", "aclrtSynchronizeEventWithTimeout")
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


@_api("k", "aclrtGetEventId")
def get_event_id(event, /):
    """event_id, ret = acl.rt.get_event_id(event)"""
    return _value_out(_c_uint32, _c.aclrtGetEventId, event)


@_api("", "aclrtGetEventAvailNum")
def get_event_avail_num():
    """count, ret = acl.rt.get_event_avail_num()"""
    return _value_out(_c_uint32, _c.aclrtGetEventAvailNum)


@_api("I", "aclrtSetOpWaitTimeout")
def set_op_wait_timeout(timeout, /):
    """ret = acl.rt.set_op_wait_timeout(timeout_s)"""
    return _c.aclrtSetOpWaitTimeout(timeout)


# ==== kernel execution time limits ===================================================

@_api("I", "aclrtSetOpExecuteTimeOut")
def set_op_execute_time_out(timeout, /):
    """ret = acl.rt.set_op_execute_time_out(timeout_s)"""
    return _c.aclrtSetOpExecuteTimeOut(timeout)


@_api("K", "aclrtSetOpExecuteTimeOutV2")
def set_op_execute_timeout_v2(timeout, /):
    """actual_timeout, ret = acl.rt.set_op_execute_timeout_v2(timeout_us)"""
    actual = _c_uint64()
    ret = _c.aclrtSetOpExecuteTimeOutV2(timeout, _byref(actual))
    return actual.value, ret


@_api("", "aclrtGetOpTimeOutInterval")
def get_op_timeout_interval():
    """interval, ret = acl.rt.get_op_timeout_interval()"""
    return _value_out(_c_uint64, _c.aclrtGetOpTimeOutInterval)


@_api("", "aclrtGetOpExecuteTimeout")
def get_op_execute_timeout():
    """timeout_ms, ret = acl.rt.get_op_execute_timeout()"""
    return _value_out(_c_uint32, _c.aclrtGetOpExecuteTimeout)


# ==== memory =========================================================================

@_api("ki", "aclrtMalloc")
def malloc(size, policy, /):
    """dev_ptr, ret = acl.rt.malloc(size, policy)"""
    return _handle_out(_c.aclrtMalloc, size, policy)


@_api("ki", "aclrtMallocAlign32")
def malloc_align32(size, policy, /):
    """dev_ptr, ret = acl.rt.malloc_align32(size, policy)"""
    return _handle_out(_c.aclrtMallocAlign32, size, policy)


@_api("ki", "aclrtMallocCached")
def malloc_cached(size, policy, /):
    """dev_ptr, ret = acl.rt.malloc_cached(size, policy)"""
    return _handle_out(_c.aclrtMallocCached, size, policy)


def _malloc_config(where, cfg):
    """An aclrtMallocConfig (or None for {}) from pyACL's cfg dict:
    {"numAttrs": n, "attrs": [{"attr": int, "value": {"moduleId"|"deviceId"|"vaFlag"|"rsv": ...}}]}."""
    if not isinstance(cfg, dict):
        raise TypeError("%s: cfg must be dict, not %s" % (where, type(cfg).__name__))
    if not cfg:
        return None, None
    try:
        attrs = list(cfg["attrs"])
        count = int(cfg.get("numAttrs", len(attrs)))
    except (KeyError, TypeError) as exc:
        raise ValueError("%s: cfg needs an 'attrs' list (%s)" % (where, exc)) from None
    array = (_lib.aclrtMallocAttribute * max(len(attrs), 1))()
    for slot, item in zip(array, attrs):
        try:
            slot.attr = item["attr"]
            ((key, value),) = item["value"].items()
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError("%s: bad cfg attribute %r (%s)" % (where, item, exc)) from None
        if key == "rsv":
            for i, byte in enumerate(list(value)[:8]):
                slot.value.rsv[i] = byte
        elif key in ("moduleId", "deviceId", "vaFlag"):
            setattr(slot.value, key, value)
        else:
            raise ValueError("%s: unknown cfg value key %r" % (where, key))
    config = _lib.aclrtMallocConfig()
    config.attrs = array
    config.numAttrs = min(count, len(attrs))
    return config, array


@_api("kiO", "aclrtMallocWithCfg")
def malloc_with_cfg(size, policy, cfg, /):
    """dev_ptr, ret = acl.rt.malloc_with_cfg(size, policy, cfg_dict)"""
    config, _keep = _malloc_config("acl.rt.malloc_with_cfg()", cfg)
    return _handle_out(_c.aclrtMallocWithCfg, size, policy, _byref(config) if config else None)


@_api("kiO", "aclrtMallocForTaskScheduler")
def malloc_for_task_scheduler(size, policy, cfg, /):
    """dev_ptr, ret = acl.rt.malloc_for_task_scheduler(size, policy, cfg_dict)"""
    config, _keep = _malloc_config("acl.rt.malloc_for_task_scheduler()", cfg)
    return _handle_out(_c.aclrtMallocForTaskScheduler, size, policy, _byref(config) if config else None)


@_api("kO", "aclrtMallocHostWithCfg")
def malloc_host_with_cfg(size, cfg, /):
    """host_ptr, ret = acl.rt.malloc_host_with_cfg(size, cfg_dict)"""
    config, _keep = _malloc_config("acl.rt.malloc_host_with_cfg()", cfg)
    return _handle_out(_c.aclrtMallocHostWithCfg, size, _byref(config) if config else None)


@_api("k", "aclrtFree")
def free(dev_ptr, /):
    """ret = acl.rt.free(dev_ptr)"""
    return _c.aclrtFree(dev_ptr)


@_api("k", "aclrtMallocHost")
def malloc_host(size, /):
    """host_ptr, ret = acl.rt.malloc_host(size): page-locked host memory."""
    return _handle_out(_c.aclrtMallocHost, size)


@_api("k", "aclrtFreeHost")
def free_host(host_ptr, /):
    """ret = acl.rt.free_host(host_ptr)"""
    return _c.aclrtFreeHost(host_ptr)


@_api("i", "aclrtGetMemInfo")
def get_mem_info(attr, /):
    """free, total, ret = acl.rt.get_mem_info(attr): 0 ACL_DDR_MEM, 1 ACL_HBM_MEM, ..."""
    free_bytes, total_bytes = _c_size_t(), _c_size_t()
    ret = _c.aclrtGetMemInfo(attr, _byref(free_bytes), _byref(total_bytes))
    return free_bytes.value, total_bytes.value, ret


@_api("kk", "aclrtMemFlush")
def mem_flush(dev_ptr, size, /):
    """ret = acl.rt.mem_flush(ptr, size)"""
    return _c.aclrtMemFlush(dev_ptr, size)


@_api("kk", "aclrtMemInvalidate")
def mem_invalidate(dev_ptr, size, /):
    """ret = acl.rt.mem_invalidate(ptr, size)"""
    return _c.aclrtMemInvalidate(dev_ptr, size)


@_api("kki", "aclrtHostRegister")
def host_register(host_ptr, size, register_type, /):
    """dev_ptr, ret = acl.rt.host_register(host_ptr, size, type)"""
    dev_ptr = _c_void_p()
    ret = _c.aclrtHostRegister(host_ptr, size, register_type, _byref(dev_ptr))
    return dev_ptr.value or 0, ret


@_api("k", "aclrtHostUnregister")
def host_unregister(host_ptr, /):
    """ret = acl.rt.host_unregister(host_ptr)"""
    return _c.aclrtHostUnregister(host_ptr)


@_api("k", "aclrtPointerGetAttributes")
def pointer_get_attributes(ptr, /):
    """attr_dict, ret = acl.rt.pointer_get_attributes(ptr)

    {"location": {"id": int, "type": int}, "page_size": int, "rsv": [4 ints]}"""
    attributes = _lib.aclrtPtrAttributes()
    ret = _c.aclrtPointerGetAttributes(ptr, _byref(attributes))
    return {
        "location": {"id": attributes.location.id, "type": attributes.location.type},
        "page_size": attributes.pageSize,
        "rsv": list(attributes.rsv),
    }, ret


# ==== copies and fills ==================================================================

@_api("kkkki", "aclrtMemcpy")
def memcpy(dst, dest_max, src, count, kind, /):
    """ret = acl.rt.memcpy(dst, dest_max, src, count, kind)"""
    return _c.aclrtMemcpy(dst, dest_max, src, count, kind)


@_foreign("kkkkik", "aclrtMemcpyAsync")
def memcpy_async(dst, dest_max, src, count, kind, stream, /):
    """ret = acl.rt.memcpy_async(dst, dest_max, src, count, kind, stream)"""


@_api("kkkkik", "aclrtMemcpyAsyncWithCondition")
def memcpy_async_with_condition(dst, dest_max, src, count, kind, stream, /):
    """ret = acl.rt.memcpy_async_with_condition(dst, dest_max, src, count, kind, stream) (deprecated)"""
    return _c.aclrtMemcpyAsyncWithCondition(dst, dest_max, src, count, kind, stream)


@_foreign("kkikk", "aclrtMemsetAsync")
def memset_async(dev_ptr, max_count, value, count, stream, /):
    """ret = acl.rt.memset_async(dev_ptr, max_count, value, count, stream)"""


@_api("kkik", "aclrtMemset")
def memset(dev_ptr, max_count, value, count, /):
    """ret = acl.rt.memset(dev_ptr, max_count, value, count): byte fill."""
    return _c.aclrtMemset(dev_ptr, max_count, value, count)


@_api("kkkkkki", "aclrtMemcpy2d")
def memcpy2d(dst, dpitch, src, spitch, width, height, kind, /):
    """ret = acl.rt.memcpy2d(dst, dpitch, src, spitch, width, height, kind)"""
    return _c.aclrtMemcpy2d(dst, dpitch, src, spitch, width, height, kind)


@_api("kkkkkkik", "aclrtMemcpy2dAsync")
def memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream, /):
    """ret = acl.rt.memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream)"""
    return _c.aclrtMemcpy2dAsync(dst, dpitch, src, spitch, width, height, kind, stream)


@_api("i", "aclrtGetMemcpyDescSize")
def get_memcpy_desc_size(kind, /):
    """desc_size, ret = acl.rt.get_memcpy_desc_size(kind)"""
    return _value_out(_c_size_t, _c.aclrtGetMemcpyDescSize, kind)


@_api("kikkkk", "aclrtSetMemcpyDesc")
def set_memcpy_desc(desc, kind, src, dst, count, config, /):
    """desc, ret = acl.rt.set_memcpy_desc(desc, kind, src, dst, count, config)"""
    return desc, _c.aclrtSetMemcpyDesc(desc, kind, src, dst, count, config)


@_api("kik", "aclrtMemcpyAsyncWithDesc")
def memcpy_async_with_desc(desc, kind, stream, /):
    """ret = acl.rt.memcpy_async_with_desc(desc, kind, stream)"""
    return _c.aclrtMemcpyAsyncWithDesc(desc, kind, stream)


@_api("kkkiikk", "aclrtReduceAsync")
def reduce_async(dst, src, count, kind, data_type, stream, reserve, /):
    """ret = acl.rt.reduce_async(dst, src, count, kind, data_type, stream, reserve)"""
    return _c.aclrtReduceAsync(dst, src, count, kind, data_type, stream, reserve)


# ==== callbacks ===========================================================================
#
# The C library gets one trampoline, made once and never freed, and an
# integer cookie as userData. The cookie indexes the (fn, user_data) pairs
# still to run, which keeps them alive until their callback has run. ctypes
# takes the GIL for the trampoline, so the report thread runs Python while
# the main thread waits in synchronize_stream with the GIL released. Each
# access to the pairs is one dict operation, atomic on its own, so they
# need no lock (launch_callback is a hot call).

_pending_callbacks = {}
_cookies = _itertools.count(1)
# The most recent exceptions raised by callbacks: (callback, exception).
_callback_errors = _collections.deque(maxlen=32)


def _report_exception(what, fn, exc):
    try:
        _sys.stderr.write("acl: exception in %s %r (ignored, the report thread goes on):\n" % (what, fn))
        _traceback.print_exception(type(exc), exc, exc.__traceback__, file=_sys.stderr)
    except Exception:  # stderr gone (interpreter shutdown): nothing left to tell
        pass
    # Kept without its traceback, whose frames would keep the callback's data alive.
    _callback_errors.append((fn, exc.with_traceback(None)))


def _run_callback(cookie):
    entry = _pending_callbacks.pop(cookie, None)
    if entry is None:
        _sys.stderr.write("acl: callback with unknown cookie %r ignored\n" % (cookie,))
        return
    fn, user_data = entry
    try:
        fn(user_data)
    except BaseException as exc:  # noqa: B036 - nothing may unwind into C
        _report_exception("acl.rt.launch_callback callback", fn, exc)


_callback_trampoline = _lib.aclrtCallback(_run_callback)
_launch_callback = getattr(_c, "aclrtLaunchCallback", None)


@_api("Kk", "aclrtSubscribeReport")
def subscribe_report(thread_id, stream, /):
    """ret = acl.rt.subscribe_report(thread_id, stream): thread_id from
    acl.util.start_thread or threading.Thread.ident."""
    return _c.aclrtSubscribeReport(thread_id, stream)


@_api("Kk", "aclrtUnSubscribeReport")
def unsubscribe_report(thread_id, stream, /):
    """ret = acl.rt.unsubscribe_report(thread_id, stream)"""
    return _c.aclrtUnSubscribeReport(thread_id, stream)


@_api("i", "aclrtProcessReport")
def process_report(timeout_ms, /):
    """ret = acl.rt.process_report(timeout_ms): runs due callbacks on this
    (subscribed) thread; -1 waits forever. Other Python threads keep running."""
    return _c.aclrtProcessReport(timeout_ms)


@_api("OOik", "aclrtLaunchCallback")
def launch_callback(fn, user_data, block_type, stream, /):
    """ret = acl.rt.launch_callback(fn, user_data, block_type, stream)

    fn(user_data) runs once on the thread subscribed to stream, inside its
    process_report; block_type 1 holds later work of the stream until fn returned."""
    if not callable(fn):
        raise TypeError("acl.rt.launch_callback() parameter must be callable")
    cookie = next(_cookies)
    _pending_callbacks[cookie] = (fn, user_data)
    ret = _launch_callback(_callback_trampoline, cookie, block_type, stream)
    if ret != 0:
        _pending_callbacks.pop(cookie, None)
    return ret


# ==== exception reports and last errors ========================================================

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
        raise TypeError("acl.rt.set_exception_info_callback() parameter must be callable")
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


@_api("i", "aclrtPeekAtLastError")
def peek_at_last_error(level, /):
    """ret = acl.rt.peek_at_last_error(level): the thread's last error code, kept."""
    return _c.aclrtPeekAtLastError(level)


@_api("i", "aclrtGetLastError")
def get_last_error(level, /):
    """ret = acl.rt.get_last_error(level): the thread's last error code, then cleared."""
    return _c.aclrtGetLastError(level)


_drop_unavailable(globals())
