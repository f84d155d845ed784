"""acl.mdl model run instances: stream capture, building from bound
streams, execution, names, ids and debug output, the tasks of a model and
conditional tasks (aclmdlRI*).

Each function is named after its C function the way pyACL names its own
(aclmdlRICaptureBegin: ri_capture_begin) and parses its arguments with
pyACL's format letters and error texts ("acl.mdl.<name> args parse
failed"). Capture modes and statuses are the integers of acl_rt.h."""

from ctypes import addressof as _addressof
from ctypes import byref as _byref
from ctypes import c_int as _c_int
from ctypes import c_uint32 as _c_uint32
from ctypes import c_void_p as _c_void_p
from ctypes import create_string_buffer as _create_string_buffer

from .. import _lib
from .._module import exported as _exported
from .._parse import api as _api_for
from .._parse import DEFAULT_ERROR

_c = _lib.api
_NAME_LIMIT = 1024
_MAX_BRANCHES = 1024  # of a SWITCH task


def _api(fmt, *c_functions, error=DEFAULT_ERROR):
    return _api_for("acl.mdl", fmt, _lib.has(*c_functions), error)


def _handle_out(function, *args):
    """function(*args, &handle): (handle, ret), NULL as 0."""
    handle = _c_void_p()
    ret = function(*args, _byref(handle))
    return handle.value or 0, ret


# ---- capture --------------------------------------------------------------------

@_api("ki", "aclmdlRICaptureBegin")
def ri_capture_begin(stream, mode, /):
    """ret = acl.mdl.ri_capture_begin(stream, mode): mode 0 global, 1 thread
    local, 2 relaxed. Work queued to stream is recorded, not run."""
    return _c.aclmdlRICaptureBegin(stream, mode)


@_api("k", "aclmdlRICaptureGetInfo")
def ri_capture_get_info(stream, /):
    """status, model_ri, ret = acl.mdl.ri_capture_get_info(stream)

    status: 0 none, 1 active, 2 invalidated."""
    status = _c_int()
    model = _c_void_p()
    ret = _c.aclmdlRICaptureGetInfo(stream, _byref(status), _byref(model))
    return status.value, model.value or 0, ret


@_api("k", "aclmdlRICaptureEnd")
def ri_capture_end(stream, /):
    """model_ri, ret = acl.mdl.ri_capture_end(stream)"""
    return _handle_out(_c.aclmdlRICaptureEnd, stream)


@_api("i", "aclmdlRICaptureThreadExchangeMode")
def ri_capture_thread_exchange_mode(mode, /):
    """previous_mode, ret = acl.mdl.ri_capture_thread_exchange_mode(mode)"""
    value = _c_int(mode)
    ret = _c.aclmdlRICaptureThreadExchangeMode(_byref(value))
    return value.value, ret


@_api("k", "aclmdlRICaptureTaskGrpBegin")
def ri_capture_task_grp_begin(stream, /):
    """ret = acl.mdl.ri_capture_task_grp_begin(stream)"""
    return _c.aclmdlRICaptureTaskGrpBegin(stream)


@_api("k", "aclmdlRICaptureTaskGrpEnd")
def ri_capture_task_grp_end(stream, /):
    """task_grp, ret = acl.mdl.ri_capture_task_grp_end(stream)"""
    return _handle_out(_c.aclmdlRICaptureTaskGrpEnd, stream)


@_api("kk", "aclmdlRICaptureTaskUpdateBegin")
def ri_capture_task_update_begin(stream, task_grp, /):
    """ret = acl.mdl.ri_capture_task_update_begin(stream, task_grp)"""
    return _c.aclmdlRICaptureTaskUpdateBegin(stream, task_grp)


@_api("k", "aclmdlRICaptureTaskUpdateEnd")
def ri_capture_task_update_end(stream, /):
    """ret = acl.mdl.ri_capture_task_update_end(stream)"""
    return _c.aclmdlRICaptureTaskUpdateEnd(stream)


# ---- building from bound streams ---------------------------------------------------

@_api("I", "aclmdlRIBuildBegin")
def ri_build_begin(flag, /):
    """model_ri, ret = acl.mdl.ri_build_begin(flag)"""
    model = _c_void_p()
    ret = _c.aclmdlRIBuildBegin(_byref(model), flag)
    return model.value or 0, ret


@_api("kkI", "aclmdlRIBindStream")
def ri_bind_stream(model_ri, stream, flag, /):
    """ret = acl.mdl.ri_bind_stream(model_ri, stream, flag)"""
    return _c.aclmdlRIBindStream(model_ri, stream, flag)


@_api("kk", "aclmdlRIEndTask")
def ri_end_task(model_ri, stream, /):
    """ret = acl.mdl.ri_end_task(model_ri, stream)"""
    return _c.aclmdlRIEndTask(model_ri, stream)


@_api("kk", "aclmdlRIBuildEnd")
def ri_build_end(model_ri, reserve, /):
    """ret = acl.mdl.ri_build_end(model_ri, reserve): reserve is 0."""
    return _c.aclmdlRIBuildEnd(model_ri, reserve)


@_api("kk", "aclmdlRIUnbindStream")
def ri_unbind_stream(model_ri, stream, /):
    """ret = acl.mdl.ri_unbind_stream(model_ri, stream)"""
    return _c.aclmdlRIUnbindStream(model_ri, stream)


# ---- running and destroying ----------------------------------------------------

@_api("kk", "aclmdlRIExecuteAsync")
def ri_execute_async(model_ri, stream, /):
    """ret = acl.mdl.ri_execute_async(model_ri, stream)"""
    return _c.aclmdlRIExecuteAsync(model_ri, stream)


@_api("ki", "aclmdlRIExecute")
def ri_execute(model_ri, timeout, /):
    """ret = acl.mdl.ri_execute(model_ri, timeout_ms): -1 waits for ever."""
    return _c.aclmdlRIExecute(model_ri, timeout)


@_api("k", "aclmdlRIDestroy")
def ri_destroy(model_ri, /):
    """ret = acl.mdl.ri_destroy(model_ri)"""
    return _c.aclmdlRIDestroy(model_ri)


# ---- names, ids, streams, debug output --------------------------------------------

@_api("ks", "aclmdlRISetName")
def ri_set_name(model_ri, name, /):
    """ret = acl.mdl.ri_set_name(model_ri, name)"""
    return _c.aclmdlRISetName(model_ri, name)


@_api("kI", "aclmdlRIGetName")
def ri_get_name(model_ri, max_len, /):
    """name, ret = acl.mdl.ri_get_name(model_ri, max_len): max_len < 1024,
    as for acl.rt.get_function_name."""
    if max_len >= _NAME_LIMIT:
        raise ValueError("maxLen should be less than 1024")
    name = _create_string_buffer(max_len + 1)
    ret = _c.aclmdlRIGetName(model_ri, max_len, name)
    return name.value.decode("utf-8", "replace"), ret


@_api("k", "aclmdlRIGetId")
def ri_get_id(model_ri, /):
    """model_ri_id, ret = acl.mdl.ri_get_id(model_ri)"""
    value = _c_uint32()
    ret = _c.aclmdlRIGetId(model_ri, _byref(value))
    return value.value, ret


@_api("k", "aclmdlRIGetStreams")
def ri_get_streams(model_ri, /):
    """streams, ret = acl.mdl.ri_get_streams(model_ri): the list of the
    model's streams ([] when ret is not 0)."""
    count = _c_uint32()
    ret = _c.aclmdlRIGetStreams(model_ri, None, _byref(count))
    if ret:
        return [], ret
    array = (_c_void_p * max(count.value, 1))()
    ret = _c.aclmdlRIGetStreams(model_ri, array, _byref(count))
    if ret:
        return [], ret
    return [array[i] or 0 for i in range(count.value)], ret


@_api("k", "aclmdlRIDebugPrint")
def ri_debug_print(model_ri, /):
    """ret = acl.mdl.ri_debug_print(model_ri): the model's tasks to the log."""
    return _c.aclmdlRIDebugPrint(model_ri)


@_api("ksI", "aclmdlRIDebugJsonPrint")
def ri_debug_json_print(model_ri, path, flags, /):
    """ret = acl.mdl.ri_debug_json_print(model_ri, path, flags)"""
    return _c.aclmdlRIDebugJsonPrint(model_ri, path, flags)


# ---- captures into branches, abort, update -------------------------------------------

@_api("kki", "aclmdlRICaptureToModelRIBegin")
def ri_capture_to_model_ri_begin(stream, model_ri, mode, /):
    """ret = acl.mdl.ri_capture_to_model_ri_begin(stream, model_ri, mode):
    model_ri is a branch of a conditional task (ri_add_cond_task)."""
    return _c.aclmdlRICaptureToModelRIBegin(stream, model_ri, mode)


@_api("k", "aclmdlRIAbort")
def ri_abort(model_ri, /):
    """ret = acl.mdl.ri_abort(model_ri)"""
    return _c.aclmdlRIAbort(model_ri)


@_api("k", "aclmdlRIUpdate")
def ri_update(model_ri, /):
    """ret = acl.mdl.ri_update(model_ri): applies ri_task_disable (and the C
    API's aclmdlRITaskSetParams)."""
    return _c.aclmdlRIUpdate(model_ri)


# ---- the tasks of a model ---------------------------------------------------------------

@_api("k", "aclmdlRIGetTasksByStream")
def ri_get_tasks_by_stream(stream, /):
    """tasks, ret = acl.mdl.ri_get_tasks_by_stream(stream): the list of the
    stream's tasks in the newest model it took part in ([] when ret is not 0)."""
    count = _c_uint32()
    ret = _c.aclmdlRIGetTasksByStream(stream, None, _byref(count))
    if ret:
        return [], ret
    array = (_c_void_p * max(count.value, 1))()
    ret = _c.aclmdlRIGetTasksByStream(stream, array, _byref(count))
    if ret:
        return [], ret
    return [array[i] or 0 for i in range(count.value)], ret


@_api("k", "aclmdlRITaskGetType")
def ri_task_get_type(task, /):
    """task_type, ret = acl.mdl.ri_task_get_type(task): aclmdlRITaskType's
    integers (0 default, 1 kernel, 2 event record, ...)."""
    value = _c_int()
    ret = _c.aclmdlRITaskGetType(task, _byref(value))
    return value.value, ret


@_api("k", "aclmdlRITaskGetSeqId")
def ri_task_get_seq_id(task, /):
    """seq_id, ret = acl.mdl.ri_task_get_seq_id(task)"""
    value = _c_uint32()
    ret = _c.aclmdlRITaskGetSeqId(task, _byref(value))
    return value.value, ret


@_api("k", "aclmdlRITaskDisable")
def ri_task_disable(task, /):
    """ret = acl.mdl.ri_task_disable(task): takes effect with ri_update."""
    return _c.aclmdlRITaskDisable(task)


# ---- conditional tasks --------------------------------------------------------------------

@_api("kIi", "aclmdlRICondHandleCreate")
def ri_cond_handle_create(model_ri, default_launch_value, flag, /):
    """cond_handle, ret = acl.mdl.ri_cond_handle_create(model_ri,
    default_launch_value, flag): flag 0 or 1 (ASSIGN_DEFAULT)."""
    return _handle_out(_c.aclmdlRICondHandleCreate, model_ri, default_launch_value, flag)


@_api("k", "aclmdlRICondHandleGetCondPtr")
def ri_cond_handle_get_cond_ptr(cond_handle, /):
    """cond_ptr, ret = acl.mdl.ri_cond_handle_get_cond_ptr(cond_handle): the
    device address of the 64-bit condition."""
    return _handle_out(_c.aclmdlRICondHandleGetCondPtr, cond_handle)


@_api("kiIkI", "aclmdlRIAddCondTask")
def ri_add_cond_task(cond_handle, cond_type, size, stream, flags, /):
    """model_ris, ret = acl.mdl.ri_add_cond_task(cond_handle, cond_type, size,
    stream, flags): cond_type 0 IF, 1 WHILE, 2 SWITCH; the list of the
    branches' models ([] when ret is not 0)."""
    # More branches than any task has are refused by the C function: an
    # array that large is not made for it.
    array = (_c_void_p * (size if 0 < size <= _MAX_BRANCHES else 1))()
    params = _lib.aclmdlRICondTaskParams(cond_handle, cond_type, size, _addressof(array))
    ret = _c.aclmdlRIAddCondTask(params, stream, flags)
    if ret:
        return [], ret
    return [array[i] or 0 for i in range(size)], ret


__all__ = _exported(globals())
