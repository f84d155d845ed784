"""acl.prof: profiling (acl/acl_prof.h), in pyACL's call forms.

Configurations, stamps and step infos are integer addresses (0 for NULL);
each function returns a bare ``ret``, the new object's address (0 when it
could not be made), or a tuple whose last item is ``ret``. Data-type bits,
metrics and tags are the integers of acl_prof.h; strings are passed as
UTF-8. What is written and where: docs/profiling.md."""

from ctypes import byref as _byref
from ctypes import c_uint32 as _c_uint32

from . import _lib
from ._module import exported as _exported
from ._parse import api as _api_for
from ._parse import DEFAULT_ERROR

_c = _lib.api


def _api(fmt, *c_functions, error=DEFAULT_ERROR):
    return _api_for("acl.prof", fmt, _lib.has(*c_functions), error)


# ---- collection ------------------------------------------------------------------

@_api("s", "aclprofInit")
def init(profiler_result_path, /):
    """ret = acl.prof.init(profiler_result_path): where the data goes (made if missing)."""
    return _c.aclprofInit(profiler_result_path, len(profiler_result_path))


@_api(None, "aclprofFinalize")
def finalize():
    """ret = acl.prof.finalize()"""
    return _c.aclprofFinalize()


@_api("OiKK", "aclprofCreateConfig")
def create_config(device_list, aicore_metrics, aicore_events, data_type_config, /):
    """prof_config = acl.prof.create_config(device_list, aicore_metrics, aicore_events,
    data_type_config): 0 when refused. aicore_events is reserved (0)."""
    devices = [int(d) for d in device_list]
    array = (_c_uint32 * max(len(devices), 1))(*devices)
    return _c.aclprofCreateConfig(array, len(devices), aicore_metrics, None, data_type_config) or 0


@_api("k", "aclprofDestroyConfig")
def destroy_config(prof_config, /):
    """ret = acl.prof.destroy_config(prof_config)"""
    return _c.aclprofDestroyConfig(prof_config)


@_api("k", "aclprofStart")
def start(prof_config, /):
    """ret = acl.prof.start(prof_config)"""
    return _c.aclprofStart(prof_config)


@_api("k", "aclprofStop")
def stop(prof_config, /):
    """ret = acl.prof.stop(prof_config): writes the profile."""
    return _c.aclprofStop(prof_config)


@_api("is", "aclprofSetConfig")
def set_config(config_type, config, /):
    """ret = acl.prof.set_config(config_type, config)"""
    return _c.aclprofSetConfig(config_type, config, len(config))


# ---- steps -----------------------------------------------------------------------

@_api(None, "aclprofCreateStepInfo")
def create_step_info():
    """stepinfo = acl.prof.create_step_info(): 0 when out of memory."""
    return _c.aclprofCreateStepInfo() or 0


@_api("k", "aclprofDestroyStepInfo")
def destroy_step_info(stepinfo, /):
    """acl.prof.destroy_step_info(stepinfo): returns nothing, as its C function."""
    _c.aclprofDestroyStepInfo(stepinfo)


@_api("kik", "aclprofGetStepTimestamp")
def get_step_timestamp(stepinfo, tag, stream, /):
    """ret = acl.prof.get_step_timestamp(stepinfo, tag, stream): ACL_STEP_START 0, ACL_STEP_END 1."""
    return _c.aclprofGetStepTimestamp(stepinfo, tag, stream)


# ---- msproftx marks and ranges ---------------------------------------------------

@_api(None, "aclprofCreateStamp")
def create_stamp():
    """stamp = acl.prof.create_stamp(): 0 when it could not be made."""
    return _c.aclprofCreateStamp() or 0


@_api("k", "aclprofDestroyStamp")
def destroy_stamp(stamp, /):
    """acl.prof.destroy_stamp(stamp): returns nothing, as its C function."""
    _c.aclprofDestroyStamp(stamp)


@_api("ksI", "aclprofSetStampTraceMessage")
def set_stamp_trace_message(stamp, msg, msg_len, /):
    """ret = acl.prof.set_stamp_trace_message(stamp, msg, msg_len)"""
    return _c.aclprofSetStampTraceMessage(stamp, msg, msg_len)


@_api("k", "aclprofMark")
def mark(stamp, /):
    """ret = acl.prof.mark(stamp): an instant on the calling thread's track."""
    return _c.aclprofMark(stamp)


@_api("sk", "aclprofMarkEx")
def mark_ex(msg, stream, /):
    """ret = acl.prof.mark_ex(msg, stream): a mark tied to a stream."""
    return _c.aclprofMarkEx(msg, len(msg), stream)


@_api("k", "aclprofPush")
def push(stamp, /):
    """ret = acl.prof.push(stamp): opens a range on the calling thread."""
    return _c.aclprofPush(stamp)


@_api(None, "aclprofPop")
def pop():
    """ret = acl.prof.pop(): closes the thread's latest push."""
    return _c.aclprofPop()


@_api("k", "aclprofRangeStart")
def range_start(stamp, /):
    """range_id, ret = acl.prof.range_start(stamp): a range any thread may stop."""
    range_id = _c_uint32()
    ret = _c.aclprofRangeStart(stamp, _byref(range_id))
    return range_id.value, ret


@_api("I", "aclprofRangeStop")
def range_stop(range_id, /):
    """ret = acl.prof.range_stop(range_id)"""
    return _c.aclprofRangeStop(range_id)


__all__ = _exported(globals())
