"""Every function of acl, acl.rt, acl.util and acl.mdl's model run instances called at least once with valid
arguments, checking the shape of its result (ret alone, or a tuple with ret
last, or the value alone where pyACL returns no ret) and its ret.

What ret to expect comes from the implementation: COMPAT_IMPLEMENTED may
name a file listing the C functions it implements (one name a line, or the
rows of an API table ACL_API(name, header, area, status, ...)); a listed
function must return 0, an unlisted one ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
Without the file only the shape and the explicit expectations are checked.
A function the package does not have is skipped (pyACL's acl.mdl has no
ri_* wrappers: acl-cuda's acl.mdl adds them with pyACL's conventions).

The kernel functions are called where no device binary is needed (one is
platform-specific): with bytes that are no binary, or a NULL handle, and
expected to fail; acl-cuda's own tests launch real kernels
(tests/python/test_kernel.py)."""
import os
import re
import tempfile
import threading
import types

import numpy as np
import pytest

import acl

ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000
NO_EXCEPTION_INFO = 0xFFFFFFFF

RET = "ret"       # the position of ret in a result shape
OK, FAIL, ANY, AUTO = "ok", "fail", "any", "auto"

_API_ROW = re.compile(r"^\s*ACL_API\(\s*(\w+)\s*,[^,]*,[^,]*,\s*(\w+)\s*,")


def _implemented():
    path = os.environ.get("COMPAT_IMPLEMENTED")
    if not path or not os.path.exists(path):
        return None
    with open(path) as listing:
        lines = listing.readlines()
    rows = [row for row in map(_API_ROW.match, lines) if row]
    if rows:  # an API table: the rows of functions that succeed (ACCEPTED ones with no effect)
        return {row.group(1) for row in rows if row.group(2) in ("IMPLEMENTED", "ACCEPTED")}
    return {line.strip() for line in lines if re.match(r"^\s*acl\w+\s*$", line)}


IMPLEMENTED = _implemented()


class Case:
    def __init__(self, name, c_function, call, shape=RET, expect=AUTO):
        self.name, self.c_function, self.call, self.shape, self.expect = name, c_function, call, shape, expect


def _noop_callback(_):
    pass


def _group_info(env):
    info = acl.rt.create_group_info()
    assert info
    env.cleanup.append(lambda: acl.rt.destroy_group_info(info))
    return info


def _group_detail(env):
    """The first attribute of group 0 (pyACL raises RuntimeError if the
    call fails)."""
    info = _group_info(env)
    assert acl.rt.get_all_group_info(info) == 0
    return acl.rt.get_group_info_detail(info, 0, 0)


def _allocator_desc(env, functions=True):
    """A custom allocator's descriptor, destroyed after the test; with
    functions, its object and all four functions set (Python callables that
    allocate nothing)."""
    desc = acl.rt.allocator_create_desc()
    assert desc
    env.cleanup.append(lambda: acl.rt.allocator_destroy_desc(desc))
    if functions:
        assert acl.rt.allocator_set_obj_to_desc(desc, 1) == 0
        assert acl.rt.allocator_set_alloc_func_to_desc(desc, lambda allocator, size: None) == 0
        assert acl.rt.allocator_set_free_func_to_desc(desc, lambda allocator, block: None) == 0
        assert acl.rt.allocator_set_alloc_advise_func_to_desc(desc, lambda allocator, size, addr: None) == 0
        assert acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, lambda block: None) == 0
    return desc


def _allocator_registered(env):
    ret = acl.rt.allocator_register(env.stream, _allocator_desc(env))
    if ret == 0:
        env.cleanup.append(lambda: acl.rt.allocator_unregister(env.stream))
    return ret


def _event_pair(env):
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, env.stream)
    acl.rt.record_event(end, env.stream)
    acl.rt.synchronize_stream(env.stream)
    env.cleanup.append(lambda: (acl.rt.destroy_event(start), acl.rt.destroy_event(end)))
    return acl.rt.event_elapsed_time(start, end)


def _sync_event(env):
    event, ret = acl.rt.create_event_with_flag(0x1)
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.destroy_event(event))
    return event


def _created(create, destroy):
    """Runs create(); the handle it made is destroyed after the test."""
    def call(env):
        result = create()
        if result[-1] == 0:
            env.cleanup.append(lambda: destroy(result[0]))
        return result
    return call


def _then(first, second):
    def call(env):
        first(env)
        return second(env)
    return call


def _notify(env, destroy=True):
    notify, ret = acl.rt.create_notify(0)
    assert ret == 0
    if destroy:
        env.cleanup.append(lambda: acl.rt.destroy_notify(notify))
    return notify


def _recorded_then_waited(env):
    notify = _notify(env)
    assert acl.rt.record_notify(notify, env.stream) == 0
    return acl.rt.wait_and_reset_notify(notify, env.stream, 0)


def _exported_then(env, use):
    notify = _notify(env)
    key, ret = acl.rt.notify_get_export_key(notify, 65, 0)
    assert ret == 0 and key
    return use(notify, key)


def _notify_imported(env, key):
    result = acl.rt.notify_import_by_key(key, 0)
    if result[-1] == 0:
        env.cleanup.append(lambda: acl.rt.destroy_notify(result[0]))
    return result


# Device memory of device 0 for the virtual memory cases (ACL_MEM_HANDLE_TYPE_NONE,
# ACL_MEM_ALLOCATION_TYPE_PINNED, ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_DEVICE).
_PHYSICAL_PROP = {"handleType": 0, "allocationType": 0, "memAttr": 4,
                  "location": {"id": 0, "type": 1}, "reserve": 0}
_VMM_SIZE = 2 << 20


def _physical(env):
    handle, ret = acl.rt.malloc_physical(_VMM_SIZE, _PHYSICAL_PROP, 0)
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.free_physical(handle))
    return handle


def _mapped(env, unmap):
    """Maps physical memory at a reserved address; map_mem's result, or
    unmap_mem's."""
    va, ret = acl.rt.reserve_mem_address(_VMM_SIZE, 0, 0, 0)
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.release_mem_address(va))
    ret = acl.rt.map_mem(va, _VMM_SIZE, 0, _physical(env), 0)
    if ret != 0 or not unmap:
        return ret if unmap else acl.rt.unmap_mem(va)
    env.cleanup.insert(len(env.cleanup) - 1, lambda: acl.rt.unmap_mem(va))
    return ret


def _imported(env):
    shareable, ret = acl.rt.mem_export_to_shareable_handle(_physical(env), 0, 0)
    assert ret == 0
    assert acl.rt.mem_set_pid_to_shareable_handle(shareable, [os.getpid()]) == 0
    result = acl.rt.mem_import_from_shareable_handle(shareable, 0)
    if result[1] == 0:
        env.cleanup.append(lambda: acl.rt.free_physical(result[0]))
    return result


def _device(env, size):
    """Device memory freed after the test."""
    ptr, ret = acl.rt.malloc(size, 0)
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.free(ptr))
    return ptr


# Memory shared by key: whole 2 MiB blocks (as CANN's huge pages; on CUDA
# nothing smaller is exported).
SHARED = 2 << 20


def _exported(env):
    """The key of device memory exported for the test."""
    key, ret = acl.rt.ipc_mem_get_export_key(_device(env, SHARED), SHARED, 65, 0)
    assert ret == 0
    return key


def _memcpy_desc(env):
    """A descriptor of a 64-byte copy within env.dev."""
    desc = _device(env, 64)
    assert acl.rt.set_memcpy_desc(desc, 6, env.dev, env.dev + 64, 64, 0)[1] == 0
    return desc


def _data_buffer(env, use):
    handle = acl.create_data_buffer(env.host, env.size)
    assert handle != 0
    env.cleanup.append(lambda: acl.destroy_data_buffer(handle))
    return use(handle)


# 64 bytes that are no operator binary on any platform, kept alive for the session.
_JUNK = bytes(range(7, 7 + 64))


def _junk_ptr():
    return acl.util.bytes_to_ptr(_JUNK)


def _binary(env):
    """An aclrtBinary describing _JUNK, destroyed after the test."""
    binary = acl.rt.create_binary(_junk_ptr(), len(_JUNK))
    assert binary != 0
    env.cleanup.append(lambda: acl.rt.destroy_binary(binary))
    return binary


def _captured(env):
    """A model captured from env.stream (one memset), destroyed after the test."""
    assert acl.mdl.ri_capture_begin(env.stream, 0) == 0
    assert acl.rt.memset_async(env.dev, env.size, 1, env.size, env.stream) == 0
    model, ret = acl.mdl.ri_capture_end(env.stream)
    assert ret == 0 and model != 0
    env.cleanup.append(lambda: acl.mdl.ri_destroy(model))
    return model


def _capturing(env, during):
    """Runs during(env) while env.stream captures; the capture is ended and
    its model destroyed afterwards."""
    assert acl.mdl.ri_capture_begin(env.stream, 0) == 0
    try:
        return during(env)
    finally:
        model, ret = acl.mdl.ri_capture_end(env.stream)
        if ret == 0:
            env.cleanup.append(lambda: acl.mdl.ri_destroy(model))


def _capture_begin(env):
    ret = acl.mdl.ri_capture_begin(env.stream, 0)
    if ret == 0:
        assert acl.rt.memset_async(env.dev, env.size, 1, env.size, env.stream) == 0
        model, end = acl.mdl.ri_capture_end(env.stream)
        if end == 0:
            env.cleanup.append(lambda: acl.mdl.ri_destroy(model))
    return ret


def _group(env, result):
    """Opens and closes a task group of one memset while env.stream
    captures: the result of ri_capture_task_grp_begin (result 0) or of
    ri_capture_task_grp_end (result 1)."""
    def grouped(e):
        begin = acl.mdl.ri_capture_task_grp_begin(e.stream)
        assert acl.rt.memset_async(e.dev, e.size, 1, e.size, e.stream) == 0
        end = acl.mdl.ri_capture_task_grp_end(e.stream)
        return (begin, end)[result]
    return _capturing(env, grouped)


def _update_stream(env):
    """A task group of the model captured from env.stream, and a stream for its update."""
    group, ret = _group(env, 1)
    assert ret == 0 and group != 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.destroy_stream(stream))
    return group, stream


def _update_begin(env):
    group, stream = _update_stream(env)
    ret = acl.mdl.ri_capture_task_update_begin(stream, group)
    if ret == 0:
        assert acl.rt.memset_async(env.dev, env.size, 2, env.size, stream) == 0
        acl.mdl.ri_capture_task_update_end(stream)
    return ret


def _update(env):
    group, stream = _update_stream(env)
    assert acl.mdl.ri_capture_task_update_begin(stream, group) == 0
    assert acl.rt.memset_async(env.dev, env.size, 2, env.size, stream) == 0
    return acl.mdl.ri_capture_task_update_end(stream)


def _persistent_stream(env):
    stream, ret = acl.rt.create_stream_with_config(0, 0x4)  # ACL_STREAM_PERSISTENT
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.destroy_stream(stream))
    return stream


def _building(env):
    """A model being built, destroyed after the test."""
    model, ret = acl.mdl.ri_build_begin(0)
    assert ret == 0 and model != 0
    env.cleanup.append(lambda: acl.mdl.ri_destroy(model))
    return model


def _bound(env):
    """(model being built, persistent stream bound to it as its head)."""
    model, stream = _building(env), _persistent_stream(env)
    assert acl.mdl.ri_bind_stream(model, stream, 0) == 0  # ACL_MODEL_STREAM_FLAG_HEAD
    return model, stream


def _built(env):
    """A built model of one memset on a bound stream."""
    model, stream = _bound(env)
    assert acl.rt.memset_async(env.dev, env.size, 3, env.size, stream) == 0
    assert acl.mdl.ri_end_task(model, stream) == 0
    assert acl.mdl.ri_build_end(model, 0) == 0
    return model, stream


def _side_stream(env):
    """Another stream, destroyed after the test."""
    side, ret = acl.rt.create_stream()
    assert ret == 0
    env.cleanup.append(lambda: acl.rt.destroy_stream(side))
    return side


def _conditional(env, step):
    """While env.stream captures: a condition ("create": its result), its
    pointer ("ptr"), an IF task of one branch ("add"), the capture of the
    branch ("branch": its begin's result); the capture ends and the model
    is destroyed after the test."""
    side = _side_stream(env)
    assert acl.mdl.ri_capture_begin(env.stream, 0) == 0
    results = {}
    try:
        _, model, ret = acl.mdl.ri_capture_get_info(env.stream)
        results["create"] = acl.mdl.ri_cond_handle_create(model, 0, 0)
        cond = results["create"][0]
        results["ptr"] = acl.mdl.ri_cond_handle_get_cond_ptr(cond)
        results["add"] = acl.mdl.ri_add_cond_task(cond, 0, 1, env.stream, 0)
        branches = results["add"][0]
        results["branch"] = acl.mdl.ri_capture_to_model_ri_begin(side, branches[0] if branches else 0, 0)
        if results["branch"] == 0:
            assert acl.rt.memset_async(env.dev, env.size, 2, env.size, side) == 0
            acl.mdl.ri_capture_end(side)
    finally:
        model, ret = acl.mdl.ri_capture_end(env.stream)
        if ret == 0:
            env.cleanup.append(lambda: acl.mdl.ri_destroy(model))
    return results[step]


def _value_write_task(env):
    """The value-write task of a model captured from env.stream."""
    assert acl.mdl.ri_capture_begin(env.stream, 0) == 0
    assert acl.rt.value_write(env.dev, 1, 0, env.stream) == 0
    model, ret = acl.mdl.ri_capture_end(env.stream)
    assert ret == 0
    env.cleanup.append(lambda: acl.mdl.ri_destroy(model))
    tasks, ret = acl.mdl.ri_get_tasks_by_stream(env.stream)
    assert ret == 0
    writes = [t for t in tasks if acl.mdl.ri_task_get_type(t) == (5, 0)]  # ACL_MODEL_RI_TASK_VALUE_WRITE
    assert writes
    return writes[0]


def _exchange_mode(env):
    result = acl.mdl.ri_capture_thread_exchange_mode(1)
    if result[-1] == 0:
        env.cleanup.append(lambda: acl.mdl.ri_capture_thread_exchange_mode(result[0]))
    return result


def _build_end(env):
    model, stream = _bound(env)
    assert acl.rt.memset_async(env.dev, env.size, 3, env.size, stream) == 0
    assert acl.mdl.ri_end_task(model, stream) == 0
    return acl.mdl.ri_build_end(model, 0)


def _json_print(env):
    with tempfile.TemporaryDirectory() as directory:
        return acl.mdl.ri_debug_json_print(_captured(env), os.path.join(directory, "model.json"), 0)


TOP_LEVEL = [
    Case("get_version", "aclrtGetVersion", lambda e: acl.get_version(), (int, int, int, RET)),
    Case("get_cann_version", "aclsysGetCANNVersion", lambda e: acl.get_cann_version(0), (dict, RET)),
    Case("get_version_str", "aclsysGetVersionStr", lambda e: acl.get_version_str("runtime"), (str, RET)),
    Case("get_cann_attribute_list", "aclGetCannAttributeList", lambda e: acl.get_cann_attribute_list(),
         (list, int, RET)),
    Case("get_cann_attribute", "aclGetCannAttribute", lambda e: acl.get_cann_attribute(0), (int, RET)),
    Case("get_device_capability", "aclGetDeviceCapability", lambda e: acl.get_device_capability(0, 0),
         (int, RET)),
    Case("get_soc_name", "aclrtGetSocName", lambda e: acl.get_soc_name(), str),
    Case("get_recent_err_msg", "aclGetRecentErrMsg", lambda e: acl.get_recent_err_msg(), type(None)),
    Case("app_log", "aclAppLog", lambda e: acl.app_log(1, "test_api: app_log"), type(None)),
    Case("float16_to_float", "aclFloat16ToFloat", lambda e: acl.float16_to_float(0x3C00), float),
    Case("float_to_float16", "aclFloatToFloat16", lambda e: acl.float_to_float16(1.0), int),
    Case("data_type_size", "aclDataTypeSize", lambda e: acl.data_type_size(0), int),
    Case("create_data_buffer", "aclCreateDataBuffer",
         _created(lambda: (acl.create_data_buffer(1, 8), 0), acl.destroy_data_buffer), (int, RET)),
    Case("destroy_data_buffer", "aclDestroyDataBuffer",
         lambda e: acl.destroy_data_buffer(acl.create_data_buffer(e.host, e.size))),
    Case("update_data_buffer", "aclUpdateDataBuffer",
         lambda e: _data_buffer(e, lambda h: acl.update_data_buffer(h, e.host, 8))),
    Case("get_data_buffer_addr", "aclGetDataBufferAddr",
         lambda e: _data_buffer(e, acl.get_data_buffer_addr), int),
    Case("get_data_buffer_size", "aclGetDataBufferSize",
         lambda e: _data_buffer(e, acl.get_data_buffer_size), int),
    Case("get_data_buffer_size_v2", "aclGetDataBufferSizeV2",
         lambda e: _data_buffer(e, acl.get_data_buffer_size_v2), int),
]

# init, finalize and finalize_reference change the whole process: test_init.py runs them apart.
SUBPROCESS_ONLY = {"init", "finalize", "finalize_reference"}

RT = [
    # devices
    Case("set_device", "aclrtSetDevice", lambda e: acl.rt.set_device(0)),
    Case("reset_device", "aclrtResetDevice", _then(lambda e: acl.rt.set_device(0),
                                                   lambda e: acl.rt.reset_device(0))),
    Case("reset_device_force", "aclrtResetDeviceForce", lambda e: acl.rt.reset_device_force(1 << 20),
         expect=FAIL),
    Case("get_device", "aclrtGetDevice", lambda e: acl.rt.get_device(), (int, RET)),
    Case("get_device_count", "aclrtGetDeviceCount", lambda e: acl.rt.get_device_count(), (int, RET)),
    Case("get_run_mode", "aclrtGetRunMode", lambda e: acl.rt.get_run_mode(), (int, RET)),
    Case("set_ts_device", "aclrtSetTsDevice", lambda e: acl.rt.set_ts_device(0)),
    Case("synchronize_device", "aclrtSynchronizeDevice", lambda e: acl.rt.synchronize_device()),
    Case("synchronize_device_with_timeout", "aclrtSynchronizeDeviceWithTimeout",
         lambda e: acl.rt.synchronize_device_with_timeout(10000)),
    Case("set_device_sat_mode", "aclrtSetDeviceSatMode", lambda e: acl.rt.set_device_sat_mode(1)),
    Case("get_device_sat_mode", "aclrtGetDeviceSatMode", lambda e: acl.rt.get_device_sat_mode(), (int, RET)),
    Case("get_device_utilization_rate", "aclrtGetDeviceUtilizationRate",
         lambda e: acl.rt.get_device_utilization_rate(0), (dict, RET)),
    Case("query_device_status", "aclrtQueryDeviceStatus", lambda e: acl.rt.query_device_status(0), (int, RET)),
    Case("get_device_info", "aclrtGetDeviceInfo", lambda e: acl.rt.get_device_info(0, 301), (int, RET)),
    Case("device_get_stream_priority_range", "aclrtDeviceGetStreamPriorityRange",
         lambda e: acl.rt.device_get_stream_priority_range(), (int, int, RET)),
    Case("get_device_capability", "aclrtGetDeviceCapability", lambda e: acl.rt.get_device_capability(0, 1),
         (int, RET)),
    Case("get_device_res_limit", "aclrtGetDeviceResLimit", lambda e: acl.rt.get_device_res_limit(0, 0),
         (int, RET)),
    Case("set_device_res_limit", "aclrtSetDeviceResLimit", lambda e: acl.rt.set_device_res_limit(0, 0, 1)),
    Case("reset_device_res_limit", "aclrtResetDeviceResLimit", lambda e: acl.rt.reset_device_res_limit(0)),
    Case("device_task_abort", "aclrtDeviceTaskAbort", lambda e: acl.rt.device_task_abort(0, 1000)),
    Case("get_devices_topo", "aclrtGetDevicesTopo", lambda e: acl.rt.get_devices_topo(0, 0), (int, RET),
         expect=FAIL),  # a device has no link to itself
    Case("get_logic_dev_id_by_user_dev_id", "aclrtGetLogicDevIdByUserDevId",
         lambda e: acl.rt.get_logic_dev_id_by_user_dev_id(0), (int, RET)),
    Case("get_user_dev_id_by_logic_dev_id", "aclrtGetUserDevIdByLogicDevId",
         lambda e: acl.rt.get_user_dev_id_by_logic_dev_id(0), (int, RET)),
    Case("get_logic_dev_id_by_phy_dev_id", "aclrtGetLogicDevIdByPhyDevId",
         lambda e: acl.rt.get_logic_dev_id_by_phy_dev_id(0), (int, RET)),
    Case("get_phy_dev_id_by_logic_dev_id", "aclrtGetPhyDevIdByLogicDevId",
         lambda e: acl.rt.get_phy_dev_id_by_logic_dev_id(0), (int, RET)),
    Case("device_get_uuid", "aclrtDeviceGetUuid", lambda e: acl.rt.device_get_uuid(0), (dict, RET)),
    Case("device_get_bare_tgid", "aclrtDeviceGetBareTgid", lambda e: acl.rt.device_get_bare_tgid(), (int, RET)),
    # peer access with one device: a device is not its own peer
    Case("device_can_access_peer", "aclrtDeviceCanAccessPeer", lambda e: acl.rt.device_can_access_peer(0, 0),
         (int, RET), FAIL),
    Case("device_enable_peer_access", "aclrtDeviceEnablePeerAccess",
         lambda e: acl.rt.device_enable_peer_access(0, 0), expect=FAIL),
    Case("device_disable_peer_access", "aclrtDeviceDisablePeerAccess",
         lambda e: acl.rt.device_disable_peer_access(0), expect=FAIL),
    Case("device_peer_access_status", "aclrtDevicePeerAccessStatus",
         lambda e: acl.rt.device_peer_access_status(0, 0), (int, RET), ANY),
    Case("get_overflow_status", "aclrtGetOverflowStatus",
         lambda e: acl.rt.get_overflow_status(e.dev, 64, e.stream)),
    Case("reset_overflow_status", "aclrtResetOverflowStatus", lambda e: acl.rt.reset_overflow_status(e.stream)),
    # contexts
    Case("create_context", "aclrtCreateContext",
         _created(lambda: acl.rt.create_context(0), acl.rt.destroy_context), (int, RET)),
    Case("destroy_context", "aclrtDestroyContext",
         lambda e: acl.rt.destroy_context(acl.rt.create_context(0)[0])),
    Case("set_context", "aclrtSetCurrentContext", lambda e: acl.rt.set_context(e.context)),
    Case("get_context", "aclrtGetCurrentContext", lambda e: acl.rt.get_context(), (int, RET)),
    Case("ctx_get_current_default_stream", "aclrtCtxGetCurrentDefaultStream",
         lambda e: acl.rt.ctx_get_current_default_stream(), (int, RET)),
    Case("ctx_set_sys_param_opt", "aclrtCtxSetSysParamOpt", lambda e: acl.rt.ctx_set_sys_param_opt(0, 1)),
    Case("ctx_get_sys_param_opt", "aclrtCtxGetSysParamOpt",
         _then(lambda e: acl.rt.ctx_set_sys_param_opt(0, 1), lambda e: acl.rt.ctx_get_sys_param_opt(0)),
         (int, RET)),
    Case("set_sys_param_opt", "aclrtSetSysParamOpt", lambda e: acl.rt.set_sys_param_opt(0, 0)),
    Case("get_sys_param_opt", "aclrtGetSysParamOpt",
         _then(lambda e: acl.rt.set_sys_param_opt(0, 0), lambda e: acl.rt.get_sys_param_opt(0)), (int, RET)),
    Case("get_primary_ctx_state", "aclrtGetPrimaryCtxState", lambda e: acl.rt.get_primary_ctx_state(0),
         (int, int, RET)),
    # streams
    Case("create_stream", "aclrtCreateStream", _created(acl.rt.create_stream, acl.rt.destroy_stream),
         (int, RET)),
    Case("create_stream_with_config", "aclrtCreateStreamWithConfig",
         _created(lambda: acl.rt.create_stream_with_config(0, 0), acl.rt.destroy_stream), (int, RET)),
    Case("destroy_stream", "aclrtDestroyStream", lambda e: acl.rt.destroy_stream(acl.rt.create_stream()[0])),
    Case("destroy_stream_force", "aclrtDestroyStreamForce",
         lambda e: acl.rt.destroy_stream_force(acl.rt.create_stream()[0])),
    Case("synchronize_stream", "aclrtSynchronizeStream", lambda e: acl.rt.synchronize_stream(e.stream)),
    Case("synchronize_stream_with_timeout", "aclrtSynchronizeStreamWithTimeout",
         lambda e: acl.rt.synchronize_stream_with_timeout(e.stream, 10000)),
    Case("stream_query", "aclrtStreamQuery", lambda e: acl.rt.stream_query(e.stream), (int, RET)),
    Case("stream_wait_event", "aclrtStreamWaitEvent", lambda e: acl.rt.stream_wait_event(e.stream, e.event)),
    Case("set_stream_failure_mode", "aclrtSetStreamFailureMode",
         lambda e: acl.rt.set_stream_failure_mode(e.stream, 0)),
    Case("set_stream_overflow_switch", "aclrtSetStreamOverflowSwitch",
         lambda e: acl.rt.set_stream_overflow_switch(e.stream, 0)),
    Case("get_stream_overflow_switch", "aclrtGetStreamOverflowSwitch",
         lambda e: acl.rt.get_stream_overflow_switch(e.stream), (int, RET)),
    Case("stream_abort", "aclrtStreamAbort", lambda e: acl.rt.stream_abort(e.stream)),
    Case("stream_get_id", "aclrtStreamGetId", lambda e: acl.rt.stream_get_id(e.stream), (int, RET)),
    Case("get_stream_available_num", "aclrtGetStreamAvailableNum",
         lambda e: acl.rt.get_stream_available_num(), (int, RET)),
    Case("set_stream_attribute", "aclrtSetStreamAttribute",
         lambda e: acl.rt.set_stream_attribute(e.stream, 3, {"userCustomTag": 7})),
    Case("get_stream_attribute", "aclrtGetStreamAttribute",
         lambda e: acl.rt.get_stream_attribute(e.stream, 2), (dict, RET)),
    Case("get_stream_res_limit", "aclrtGetStreamResLimit", lambda e: acl.rt.get_stream_res_limit(e.stream, 0),
         (int, RET)),
    Case("set_stream_res_limit", "aclrtSetStreamResLimit", lambda e: acl.rt.set_stream_res_limit(e.stream, 0, 1)),
    Case("reset_stream_res_limit", "aclrtResetStreamResLimit", lambda e: acl.rt.reset_stream_res_limit(e.stream)),
    Case("use_stream_res_in_current_thread", "aclrtUseStreamResInCurrentThread",
         lambda e: acl.rt.use_stream_res_in_current_thread(e.stream)),
    Case("unuse_stream_res_in_current_thread", "aclrtUnuseStreamResInCurrentThread",
         lambda e: acl.rt.unuse_stream_res_in_current_thread(e.stream)),
    Case("get_res_in_current_thread", "aclrtGetResInCurrentThread", lambda e: acl.rt.get_res_in_current_thread(0),
         (int, RET)),
    Case("get_thread_last_task_id", "aclrtGetThreadLastTaskId",
         lambda e: acl.rt.get_thread_last_task_id(), (int, RET)),
    # events
    Case("create_event", "aclrtCreateEvent", _created(acl.rt.create_event, acl.rt.destroy_event), (int, RET)),
    Case("create_event_with_flag", "aclrtCreateEventWithFlag",
         _created(lambda: acl.rt.create_event_with_flag(0x1), acl.rt.destroy_event), (int, RET)),
    Case("create_event_ex_with_flag", "aclrtCreateEventExWithFlag",
         _created(lambda: acl.rt.create_event_ex_with_flag(0x1), acl.rt.destroy_event), (int, RET)),
    Case("destroy_event", "aclrtDestroyEvent", lambda e: acl.rt.destroy_event(acl.rt.create_event()[0])),
    Case("record_event", "aclrtRecordEvent", lambda e: acl.rt.record_event(e.event, e.stream)),
    Case("reset_event", "aclrtResetEvent", lambda e: acl.rt.reset_event(_sync_event(e), e.stream)),
    Case("query_event", "aclrtQueryEvent", lambda e: acl.rt.query_event(e.event), (int, RET)),
    Case("query_event_status", "aclrtQueryEventStatus", lambda e: acl.rt.query_event_status(e.event), (int, RET)),
    Case("query_event_wait_status", "aclrtQueryEventWaitStatus",
         lambda e: acl.rt.query_event_wait_status(_sync_event(e)), (int, RET)),
    Case("synchronize_event", "aclrtSynchronizeEvent", lambda e: acl.rt.synchronize_event(e.event)),
    Case("synchronize_event_with_timeout", "aclrtSynchronizeEventWithTimeout",
         lambda e: acl.rt.synchronize_event_with_timeout(e.event, 10000)),
    Case("event_elapsed_time", "aclrtEventElapsedTime", _event_pair, (float, RET)),
    Case("event_get_timestamp", "aclrtEventGetTimestamp", lambda e: acl.rt.event_get_timestamp(e.event),
         (int, RET)),
    Case("get_event_id", "aclrtGetEventId", lambda e: acl.rt.get_event_id(e.event), (int, RET)),
    Case("get_event_avail_num", "aclrtGetEventAvailNum", lambda e: acl.rt.get_event_avail_num(), (int, RET)),
    Case("set_op_wait_timeout", "aclrtSetOpWaitTimeout", lambda e: acl.rt.set_op_wait_timeout(0)),
    # kernel execution time limits
    Case("set_op_execute_time_out", "aclrtSetOpExecuteTimeOut", lambda e: acl.rt.set_op_execute_time_out(0)),
    Case("set_op_execute_timeout_v2", "aclrtSetOpExecuteTimeOutV2",
         lambda e: acl.rt.set_op_execute_timeout_v2(1000000), (int, RET)),
    Case("get_op_timeout_interval", "aclrtGetOpTimeOutInterval", lambda e: acl.rt.get_op_timeout_interval(),
         (int, RET)),
    Case("get_op_execute_timeout", "aclrtGetOpExecuteTimeout", lambda e: acl.rt.get_op_execute_timeout(),
         (int, RET)),
    # binaries, functions, argument lists, launches: no device binary here (see the docstring)
    Case("binary_load_from_file", "aclrtBinaryLoadFromFile",
         lambda e: acl.rt.binary_load_from_file("/nonexistent/acl-compat/kernel.o", []), (int, RET), FAIL),
    Case("binary_load_from_data", "aclrtBinaryLoadFromData",
         lambda e: acl.rt.binary_load_from_data(_junk_ptr(), len(_JUNK), []), (int, RET), FAIL),
    Case("create_binary", "aclrtCreateBinary", lambda e: _binary(e), int),
    Case("destroy_binary", "aclrtDestroyBinary",
         lambda e: acl.rt.destroy_binary(acl.rt.create_binary(_junk_ptr(), len(_JUNK)))),
    Case("binary_load", "aclrtBinaryLoad", lambda e: acl.rt.binary_load(_binary(e)), (int, RET), FAIL),
    Case("binary_unload", "aclrtBinaryUnLoad", lambda e: acl.rt.binary_unload(0), expect=FAIL),
    Case("binary_get_function", "aclrtBinaryGetFunction", lambda e: acl.rt.binary_get_function(0, "kernel"),
         (int, RET), FAIL),
    Case("register_cpu_func", "aclrtRegisterCpuFunc", lambda e: acl.rt.register_cpu_func(0, "func", "kernel"),
         (int, RET), FAIL),
    Case("get_function_addr", "aclrtGetFunctionAddr", lambda e: acl.rt.get_function_addr(0), (int, int, RET),
         FAIL),
    Case("get_function_name", "aclrtGetFunctionName", lambda e: acl.rt.get_function_name(0, 64), (str, RET),
         FAIL),
    Case("kernel_args_init", "aclrtKernelArgsInit", lambda e: acl.rt.kernel_args_init(0), (int, RET), FAIL),
    Case("kernel_args_init_by_user_mem", "aclrtKernelArgsInitByUserMem",
         lambda e: acl.rt.kernel_args_init_by_user_mem(0, e.host, e.host + 1024, 64), expect=FAIL),
    Case("kernel_args_get_mem_size", "aclrtKernelArgsGetMemSize", lambda e: acl.rt.kernel_args_get_mem_size(0, 8),
         (int, RET), FAIL),
    Case("kernel_args_get_handle_mem_size", "aclrtKernelArgsGetHandleMemSize",
         lambda e: acl.rt.kernel_args_get_handle_mem_size(0), (int, RET), FAIL),
    Case("kernel_args_append", "aclrtKernelArgsAppend", lambda e: acl.rt.kernel_args_append(0, e.host, 8),
         (int, RET), FAIL),
    Case("kernel_args_append_place_holder", "aclrtKernelArgsAppendPlaceHolder",
         lambda e: acl.rt.kernel_args_append_place_holder(0), (int, RET), FAIL),
    Case("kernel_args_get_place_holder_buffer", "aclrtKernelArgsGetPlaceHolderBuffer",
         lambda e: acl.rt.kernel_args_get_place_holder_buffer(0, 0, 8), (int, RET), FAIL),
    Case("kernel_args_para_update", "aclrtKernelArgsParaUpdate",
         lambda e: acl.rt.kernel_args_para_update(0, 0, e.host, 8), expect=FAIL),
    Case("kernel_args_finalize", "aclrtKernelArgsFinalize", lambda e: acl.rt.kernel_args_finalize(0),
         expect=FAIL),
    Case("launch_kernel", "aclrtLaunchKernel", lambda e: acl.rt.launch_kernel(0, 1, e.host, 8, e.stream),
         expect=FAIL),
    Case("launch_kernel_with_config", "aclrtLaunchKernelWithConfig",
         lambda e: acl.rt.launch_kernel_with_config(0, 1, e.stream, [], 0, 0), expect=FAIL),
    # memory
    Case("malloc", "aclrtMalloc", _created(lambda: acl.rt.malloc(64, 0), acl.rt.free), (int, RET)),
    Case("malloc_align32", "aclrtMallocAlign32", _created(lambda: acl.rt.malloc_align32(64, 0), acl.rt.free),
         (int, RET)),
    Case("malloc_cached", "aclrtMallocCached", _created(lambda: acl.rt.malloc_cached(64, 0), acl.rt.free),
         (int, RET)),
    Case("malloc_with_cfg", "aclrtMallocWithCfg",
         _created(lambda: acl.rt.malloc_with_cfg(64, 0, {}), acl.rt.free), (int, RET)),
    Case("malloc_for_task_scheduler", "aclrtMallocForTaskScheduler",
         _created(lambda: acl.rt.malloc_for_task_scheduler(64, 0, {}), acl.rt.free), (int, RET)),
    Case("malloc_host_with_cfg", "aclrtMallocHostWithCfg",
         _created(lambda: acl.rt.malloc_host_with_cfg(64, {}), acl.rt.free_host), (int, RET)),
    Case("free", "aclrtFree", lambda e: acl.rt.free(acl.rt.malloc(64, 0)[0])),
    Case("malloc_host", "aclrtMallocHost", _created(lambda: acl.rt.malloc_host(64), acl.rt.free_host),
         (int, RET)),
    Case("free_host", "aclrtFreeHost", lambda e: acl.rt.free_host(acl.rt.malloc_host(64)[0])),
    Case("get_mem_info", "aclrtGetMemInfo", lambda e: acl.rt.get_mem_info(0), (int, int, RET)),
    Case("mem_flush", "aclrtMemFlush", lambda e: acl.rt.mem_flush(e.dev, e.size)),
    Case("mem_invalidate", "aclrtMemInvalidate", lambda e: acl.rt.mem_invalidate(e.dev, e.size)),
    Case("host_register", "aclrtHostRegister",
         lambda e: _created(lambda: acl.rt.host_register(e.host, e.size, 0),
                            lambda _: acl.rt.host_unregister(e.host))(e), (int, RET)),
    Case("host_unregister", "aclrtHostUnregister",
         _then(lambda e: acl.rt.host_register(e.host, e.size, 0), lambda e: acl.rt.host_unregister(e.host))),
    Case("host_register_v2", "aclrtHostRegisterV2",
         lambda e: _created(lambda: (acl.rt.host_register_v2(e.host, e.size, 0x2),),
                            lambda _: acl.rt.host_unregister(e.host))(e)[0]),
    Case("host_get_device_pointer", "aclrtHostGetDevicePointer",
         _then(lambda e: _created(lambda: (acl.rt.host_register_v2(e.host, e.size, 0x2),),
                                  lambda _: acl.rt.host_unregister(e.host))(e),
               lambda e: acl.rt.host_get_device_pointer(e.host, 0)), (int, RET)),
    Case("pointer_get_attributes", "aclrtPointerGetAttributes",
         lambda e: acl.rt.pointer_get_attributes(e.dev), (dict, RET)),
    # copies and fills
    Case("memcpy", "aclrtMemcpy", lambda e: acl.rt.memcpy(e.dev, e.size, e.host, e.size, 1)),
    Case("memcpy_async", "aclrtMemcpyAsync",
         lambda e: acl.rt.memcpy_async(e.dev, e.size, e.host, e.size, 1, e.stream)),
    Case("memcpy_async_with_condition", "aclrtMemcpyAsyncWithCondition",
         lambda e: acl.rt.memcpy_async_with_condition(e.dev, e.size, e.host, e.size, 1, e.stream)),
    Case("memset", "aclrtMemset", lambda e: acl.rt.memset(e.dev, e.size, 0, e.size)),
    Case("memset_async", "aclrtMemsetAsync", lambda e: acl.rt.memset_async(e.dev, e.size, 0, e.size, e.stream)),
    Case("memcpy2d", "aclrtMemcpy2d", lambda e: acl.rt.memcpy2d(e.dev, 128, e.host, 128, 64, 8, 1)),
    Case("memcpy2d_async", "aclrtMemcpy2dAsync",
         lambda e: acl.rt.memcpy2d_async(e.host, 128, e.dev, 128, 64, 8, 2, e.stream)),
    Case("get_memcpy_desc_size", "aclrtGetMemcpyDescSize", lambda e: acl.rt.get_memcpy_desc_size(6), (int, RET)),
    Case("set_memcpy_desc", "aclrtSetMemcpyDesc",
         lambda e: acl.rt.set_memcpy_desc(_device(e, 64), 6, e.dev, e.dev + 64, 64, 0), (int, RET)),
    Case("memcpy_async_with_desc", "aclrtMemcpyAsyncWithDesc",
         lambda e: acl.rt.memcpy_async_with_desc(_memcpy_desc(e), 6, e.stream)),
    Case("value_write", "aclrtValueWrite", lambda e: acl.rt.value_write(e.dev, 7, 0, e.stream)),
    Case("value_wait", "aclrtValueWait", _then(lambda e: acl.rt.value_write(e.dev, 7, 0, e.stream),
                                               lambda e: acl.rt.value_wait(e.dev, 7, 1, e.stream))),
    # notifies
    Case("create_notify", "aclrtCreateNotify", _created(lambda: acl.rt.create_notify(0), acl.rt.destroy_notify),
         (int, RET)),
    Case("destroy_notify", "aclrtDestroyNotify", lambda e: acl.rt.destroy_notify(_notify(e, destroy=False))),
    Case("record_notify", "aclrtRecordNotify", lambda e: acl.rt.record_notify(_notify(e), e.stream)),
    Case("wait_and_reset_notify", "aclrtWaitAndResetNotify",
         lambda e: _recorded_then_waited(e)),
    Case("get_notify_id", "aclrtGetNotifyId", lambda e: acl.rt.get_notify_id(_notify(e)), (int, RET)),
    Case("notify_batch_reset", "aclrtNotifyBatchReset", lambda e: acl.rt.notify_batch_reset([_notify(e)])),
    Case("notify_get_export_key", "aclrtNotifyGetExportKey",
         lambda e: acl.rt.notify_get_export_key(_notify(e), 65, 0), (str, RET)),
    Case("notify_set_import_pid", "aclrtNotifySetImportPid",
         lambda e: _exported_then(e, lambda n, key: acl.rt.notify_set_import_pid(n, [os.getpid()]))),
    Case("notify_import_by_key", "aclrtNotifyImportByKey",
         lambda e: _exported_then(e, lambda n, key: _notify_imported(e, key)), (int, RET)),
    Case("reduce_async", "aclrtReduceAsync", lambda e: acl.rt.reduce_async(e.dev, e.dev, 16, 10, 0, e.stream, 0)),
    # callbacks: without a subscription the calls fail with their documented codes
    Case("subscribe_report", "aclrtSubscribeReport", lambda e: e.subscribe()),
    Case("unsubscribe_report", "aclrtUnSubscribeReport",
         _then(lambda e: e.subscribe(), lambda e: acl.rt.unsubscribe_report(threading.get_ident(), e.stream))),
    Case("process_report", "aclrtProcessReport", lambda e: acl.rt.process_report(1), expect=FAIL),
    Case("launch_callback", "aclrtLaunchCallback",
         lambda e: acl.rt.launch_callback(_noop_callback, None, 1, e.stream), expect=FAIL),
    Case("set_exception_info_callback", "aclrtSetExceptionInfoCallback",
         lambda e: acl.rt.set_exception_info_callback(_noop_callback)),
    Case("get_error_code_from_exception_info", "aclrtGetErrorCodeFromExceptionInfo",
         lambda e: acl.rt.get_error_code_from_exception_info(0), int),
    Case("get_task_id_from_exception_info", "aclrtGetTaskIdFromExceptionInfo",
         lambda e: acl.rt.get_task_id_from_exception_info(0), int),
    Case("get_stream_id_from_exception_info", "aclrtGetStreamIdFromExceptionInfo",
         lambda e: acl.rt.get_stream_id_from_exception_info(0), int),
    Case("get_thread_id_from_exception_info", "aclrtGetThreadIdFromExceptionInfo",
         lambda e: acl.rt.get_thread_id_from_exception_info(0), int),
    Case("get_device_id_from_exception_info", "aclrtGetDeviceIdFromExceptionInfo",
         lambda e: acl.rt.get_device_id_from_exception_info(0), int),
    Case("peek_at_last_error", "aclrtPeekAtLastError", lambda e: acl.rt.peek_at_last_error(0)),
    Case("get_last_error", "aclrtGetLastError", lambda e: acl.rt.get_last_error(0)),
    Case("get_mem_uce_info", "aclrtGetMemUceInfo", lambda e: acl.rt.get_mem_uce_info(0, 4), (list, RET)),
    Case("mem_uce_repair", "aclrtMemUceRepair",
         lambda e: acl.rt.mem_uce_repair(0, [{"addr": e.dev, "len": 64, "reserved": [0] * 14}]), expect=FAIL),
    Case("cmo_async", "aclrtCmoAsync", lambda e: acl.rt.cmo_async(e.dev, 64, 0, e.stream)),  # prefetch
    # groups (of AI cores on Ascend): group 0 is there
    Case("set_group", "aclrtSetGroup", lambda e: acl.rt.set_group(0)),
    Case("get_group_count", "aclrtGetGroupCount", lambda e: acl.rt.get_group_count(0), (int, RET)),
    Case("create_group_info", "aclrtCreateGroupInfo",
         lambda e: _group_info(e), int),
    Case("destroy_group_info", "aclrtDestroyGroupInfo",
         lambda e: acl.rt.destroy_group_info(acl.rt.create_group_info())),
    Case("get_all_group_info", "aclrtGetAllGroupInfo", lambda e: acl.rt.get_all_group_info(_group_info(e))),
    Case("get_group_info_detail", "aclrtGetGroupInfoDetail", _group_detail, (list, RET)),
    # custom allocators
    Case("allocator_create_desc", "aclrtAllocatorCreateDesc",
         lambda e: _allocator_desc(e, functions=False), int),
    Case("allocator_destroy_desc", "aclrtAllocatorDestroyDesc",
         lambda e: acl.rt.allocator_destroy_desc(acl.rt.allocator_create_desc())),
    Case("allocator_set_obj_to_desc", "aclrtAllocatorSetObjToDesc",
         lambda e: acl.rt.allocator_set_obj_to_desc(_allocator_desc(e, functions=False), 1)),
    Case("allocator_set_alloc_func_to_desc", "aclrtAllocatorSetAllocFuncToDesc",
         lambda e: acl.rt.allocator_set_alloc_func_to_desc(_allocator_desc(e, functions=False),
                                                           lambda allocator, size: None)),
    Case("allocator_set_free_func_to_desc", "aclrtAllocatorSetFreeFuncToDesc",
         lambda e: acl.rt.allocator_set_free_func_to_desc(_allocator_desc(e, functions=False),
                                                          lambda allocator, block: None)),
    Case("allocator_set_alloc_advise_func_to_desc", "aclrtAllocatorSetAllocAdviseFuncToDesc",
         lambda e: acl.rt.allocator_set_alloc_advise_func_to_desc(_allocator_desc(e, functions=False),
                                                                  lambda allocator, size, addr: None)),
    Case("allocator_set_get_addr_from_block_func_to_desc", "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
         lambda e: acl.rt.allocator_set_get_addr_from_block_func_to_desc(_allocator_desc(e, functions=False),
                                                                         lambda block: None)),
    Case("allocator_register", "aclrtAllocatorRegister", _allocator_registered),
    Case("allocator_unregister", "aclrtAllocatorUnregister",
         _then(_allocator_registered, lambda e: acl.rt.allocator_unregister(e.stream))),
    # virtual memory
    Case("mem_get_allocation_granularity", "aclrtMemGetAllocationGranularity",
         lambda e: acl.rt.mem_get_allocation_granularity(_PHYSICAL_PROP, 0), (int, RET)),
    Case("reserve_mem_address", "aclrtReserveMemAddress",
         _created(lambda: acl.rt.reserve_mem_address(_VMM_SIZE, 0, 0, 0), acl.rt.release_mem_address), (int, RET)),
    Case("release_mem_address", "aclrtReleaseMemAddress",
         lambda e: acl.rt.release_mem_address(acl.rt.reserve_mem_address(_VMM_SIZE, 0, 0, 0)[0])),
    Case("malloc_physical", "aclrtMallocPhysical",
         _created(lambda: acl.rt.malloc_physical(_VMM_SIZE, _PHYSICAL_PROP, 0), acl.rt.free_physical), (int, RET)),
    Case("free_physical", "aclrtFreePhysical",
         lambda e: acl.rt.free_physical(acl.rt.malloc_physical(_VMM_SIZE, _PHYSICAL_PROP, 0)[0])),
    Case("map_mem", "aclrtMapMem", lambda e: _mapped(e, unmap=True)),
    Case("unmap_mem", "aclrtUnmapMem", lambda e: _mapped(e, unmap=False)),
    Case("mem_export_to_shareable_handle", "aclrtMemExportToShareableHandle",
         lambda e: acl.rt.mem_export_to_shareable_handle(_physical(e), 0, 0), (int, RET)),
    Case("mem_set_pid_to_shareable_handle", "aclrtMemSetPidToShareableHandle",
         lambda e: acl.rt.mem_set_pid_to_shareable_handle(
             acl.rt.mem_export_to_shareable_handle(_physical(e), 0, 0)[0], [os.getpid()])),
    Case("mem_import_from_shareable_handle", "aclrtMemImportFromShareableHandle",
         lambda e: _imported(e), (int, RET), expect=FAIL),  # in the exporting process: refused
    # IPC
    Case("ipc_mem_get_export_key", "aclrtIpcMemGetExportKey",
         lambda e: acl.rt.ipc_mem_get_export_key(_device(e, SHARED), SHARED, 65, 0), (str, RET)),
    Case("ipc_mem_set_import_pid", "aclrtIpcMemSetImportPid",
         lambda e: acl.rt.ipc_mem_set_import_pid(_exported(e), [os.getpid()])),
    Case("ipc_mem_import_by_key", "aclrtIpcMemImportByKey",
         lambda e: acl.rt.ipc_mem_import_by_key(_exported(e), 0),
         (int, RET), expect=FAIL),
    Case("ipc_mem_close", "aclrtIpcMemClose",
         lambda e: acl.rt.ipc_mem_close(_exported(e))),
]

MEDIA = [
    Case("dvpp_malloc", "acldvppMalloc", _created(lambda: acl.media.dvpp_malloc(64), acl.media.dvpp_free),
         (int, RET)),
    Case("dvpp_malloc_with_cfg", "acldvppMallocWithCfg",
         _created(lambda: acl.media.dvpp_malloc_with_cfg(64, 0, {}), acl.media.dvpp_free), (int, RET)),
    Case("dvpp_free", "acldvppFree", lambda e: acl.media.dvpp_free(acl.media.dvpp_malloc(64)[0])),
]

UTIL = [
    Case("numpy_to_ptr", None, lambda e: acl.util.numpy_to_ptr(np.zeros(4)), int),
    Case("numpy_contiguous_to_ptr", None, lambda e: acl.util.numpy_contiguous_to_ptr(np.zeros((4, 4)).T),
         (int, np.ndarray)),
    Case("ptr_to_numpy", None, lambda e: acl.util.ptr_to_numpy(e.host, (2, 2), 11), np.ndarray),
    Case("bytes_to_ptr", None, lambda e: acl.util.bytes_to_ptr(b"abc"), int),
    Case("ptr_to_bytes", None, lambda e: acl.util.ptr_to_bytes(e.host, 16), bytes),
    Case("start_thread", None, lambda e: e.start_thread(), (int, RET)),
    Case("stop_thread", None, lambda e: acl.util.stop_thread(e.start_thread()[0])),
]

MDL = [
    # capture
    Case("ri_capture_begin", "aclmdlRICaptureBegin", _capture_begin),
    Case("ri_capture_get_info", "aclmdlRICaptureGetInfo", lambda e: acl.mdl.ri_capture_get_info(e.stream),
         (int, int, RET)),
    Case("ri_capture_end", "aclmdlRICaptureEnd", lambda e: (_captured(e), 0), (int, RET)),
    Case("ri_capture_thread_exchange_mode", "aclmdlRICaptureThreadExchangeMode", _exchange_mode, (int, RET)),
    Case("ri_capture_task_grp_begin", "aclmdlRICaptureTaskGrpBegin", lambda e: _group(e, 0)),
    Case("ri_capture_task_grp_end", "aclmdlRICaptureTaskGrpEnd", lambda e: _group(e, 1), (int, RET)),
    Case("ri_capture_task_update_begin", "aclmdlRICaptureTaskUpdateBegin", _update_begin),
    Case("ri_capture_task_update_end", "aclmdlRICaptureTaskUpdateEnd", _update, expect=ANY),
    # built models
    Case("ri_build_begin", "aclmdlRIBuildBegin", lambda e: (_building(e), 0), (int, RET)),
    Case("ri_bind_stream", "aclmdlRIBindStream",
         lambda e: acl.mdl.ri_bind_stream(_building(e), _persistent_stream(e), 0)),
    Case("ri_end_task", "aclmdlRIEndTask", lambda e: acl.mdl.ri_end_task(*_bound(e))),
    Case("ri_build_end", "aclmdlRIBuildEnd", _build_end),
    Case("ri_unbind_stream", "aclmdlRIUnbindStream", lambda e: acl.mdl.ri_unbind_stream(*_built(e))),
    # running and destroying
    Case("ri_execute_async", "aclmdlRIExecuteAsync", lambda e: acl.mdl.ri_execute_async(_captured(e), e.stream)),
    Case("ri_execute", "aclmdlRIExecute", lambda e: acl.mdl.ri_execute(_built(e)[0], -1)),
    Case("ri_destroy", "aclmdlRIDestroy", lambda e: acl.mdl.ri_destroy(acl.mdl.ri_build_begin(0)[0])),
    # names, ids, streams, debug output
    Case("ri_set_name", "aclmdlRISetName", lambda e: acl.mdl.ri_set_name(_building(e), "compat")),
    Case("ri_get_name", "aclmdlRIGetName", lambda e: acl.mdl.ri_get_name(_building(e), 64), (str, RET)),
    Case("ri_get_id", "aclmdlRIGetId", lambda e: acl.mdl.ri_get_id(_building(e)), (int, RET)),
    Case("ri_get_streams", "aclmdlRIGetStreams", lambda e: acl.mdl.ri_get_streams(_built(e)[0]), (list, RET)),
    Case("ri_debug_print", "aclmdlRIDebugPrint", lambda e: acl.mdl.ri_debug_print(_captured(e))),
    Case("ri_debug_json_print", "aclmdlRIDebugJsonPrint", _json_print),
    # the tasks of a model, update, abort
    Case("ri_get_tasks_by_stream", "aclmdlRIGetTasksByStream",
         lambda e: (_captured(e), acl.mdl.ri_get_tasks_by_stream(e.stream))[1], (list, RET)),
    Case("ri_task_get_type", "aclmdlRITaskGetType", lambda e: acl.mdl.ri_task_get_type(_value_write_task(e)),
         (int, RET)),
    Case("ri_task_get_seq_id", "aclmdlRITaskGetSeqId",
         lambda e: acl.mdl.ri_task_get_seq_id(_value_write_task(e)), (int, RET)),
    Case("ri_task_disable", "aclmdlRITaskDisable", lambda e: acl.mdl.ri_task_disable(_value_write_task(e))),
    Case("ri_update", "aclmdlRIUpdate", lambda e: acl.mdl.ri_update(_captured(e))),
    # cuda: refused (a launched CUDA graph runs to its end)
    Case("ri_abort", "aclmdlRIAbort", lambda e: acl.mdl.ri_abort(_captured(e)), expect=ANY),
    # conditional tasks
    Case("ri_cond_handle_create", "aclmdlRICondHandleCreate", lambda e: _conditional(e, "create"), (int, RET)),
    Case("ri_cond_handle_get_cond_ptr", "aclmdlRICondHandleGetCondPtr", lambda e: _conditional(e, "ptr"),
         (int, RET)),
    Case("ri_add_cond_task", "aclmdlRIAddCondTask", lambda e: _conditional(e, "add"), (list, RET)),
    Case("ri_capture_to_model_ri_begin", "aclmdlRICaptureToModelRIBegin", lambda e: _conditional(e, "branch")),
]

MODULES = {"acl": (acl, TOP_LEVEL), "acl.rt": (acl.rt, RT), "acl.util": (acl.util, UTIL),
           "acl.mdl": (getattr(acl, "mdl", None), MDL), "acl.media": (getattr(acl, "media", None), MEDIA)}
ALL_CASES = [(module, case) for module, (_, cases) in MODULES.items() for case in cases]


@pytest.fixture
def env(context, stream, event, device_memory, host_memory):
    environment = types.SimpleNamespace(context=context, stream=stream, event=event, dev=device_memory[0],
                                        host=host_memory[0], size=device_memory[1], cleanup=[])
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0

    def subscribe():
        ret = acl.rt.subscribe_report(threading.get_ident(), stream)
        if ret == 0:
            environment.cleanup.append(lambda: acl.rt.unsubscribe_report(threading.get_ident(), stream))
        return ret

    def start_thread():
        result = acl.util.start_thread(lambda: None, None)
        environment.cleanup.append(lambda: acl.util.stop_thread(result[0]))
        return result

    environment.subscribe = subscribe
    environment.start_thread = start_thread
    yield environment
    acl.rt.synchronize_device()
    for undo in reversed(environment.cleanup):
        undo()
    acl.rt.set_context(context)


def _expected_ret(case):
    if case.expect != AUTO:
        return case.expect
    if IMPLEMENTED is None or case.c_function is None:
        return ANY
    return OK if case.c_function in IMPLEMENTED else ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def _check_shape(result, shape):
    if shape == RET:
        assert type(result) is int
        return result
    if not isinstance(shape, tuple):
        assert isinstance(result, shape), "%r is not a %s" % (result, shape)
        return None
    assert type(result) is tuple and len(result) == len(shape), "%r does not have the shape %r" % (result, shape)
    for item, kind in zip(result, shape):
        if kind == RET:
            assert type(item) is int
        else:
            assert isinstance(item, kind), "%r is not a %s in %r" % (item, kind, result)
    return result[-1] if shape[-1] == RET else None


@pytest.mark.pins("every pyACL function returns its documented shape: ret alone, a tuple with ret last, "
                  "or the bare value where pyACL returns no ret; ret is 0 where implemented",
                  "pyACL API ref (acl, acl.rt, acl.util tables); pyrt_methods.cpp Py_BuildValue formats")
@pytest.mark.filterwarnings("ignore:acl.util.*deprecated:Warning")
@pytest.mark.parametrize("module,case", ALL_CASES, ids=["%s.%s" % (m, c.name) for m, c in ALL_CASES])
def test_function(env, module, case):
    function = getattr(MODULES[module][0], case.name, None)
    if function is None:
        pytest.skip("%s has no %s" % (module, case.name))
    ret = _check_shape(case.call(env), case.shape)
    expected = _expected_ret(case)
    message = "%s.%s returned %r: %s" % (module, case.name, ret, acl.get_recent_err_msg())
    if ret is None or expected == ANY:
        return
    if expected == OK:
        assert ret == 0, message
    elif expected == FAIL:
        assert ret != 0, message
    else:
        assert ret == expected, message
