"""acl.rt devices: selection, counts and properties, core groups, peer access,
overflow status."""

from ctypes import byref as _byref
from ctypes import c_int as _c_int
from ctypes import c_int32 as _c_int32
from ctypes import c_int64 as _c_int64
from ctypes import c_size_t as _c_size_t
from ctypes import c_uint32 as _c_uint32
from ctypes import c_uint64 as _c_uint64
from ctypes import sizeof as _sizeof

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import value_out as _value_out
from .common import wait_in_slices as _wait_in_slices


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


@_api(None, "aclrtGetDevice")
def get_device():
    """device_id, ret = acl.rt.get_device()"""
    return _value_out(_c_int32, _c.aclrtGetDevice)


@_api(None, "aclrtGetDeviceCount")
def get_device_count():
    """count, ret = acl.rt.get_device_count()"""
    return _value_out(_c_uint32, _c.aclrtGetDeviceCount)


@_api(None, "aclrtGetRunMode")
def get_run_mode():
    """run_mode, ret = acl.rt.get_run_mode(): 0 ACL_DEVICE, 1 ACL_HOST."""
    return _value_out(_c_int, _c.aclrtGetRunMode)


@_api("i", "aclrtSetTsDevice")
def set_ts_device(ts_id, /):
    """ret = acl.rt.set_ts_device(ts_id)"""
    return _c.aclrtSetTsDevice(ts_id)


@_api(None, "aclcudaSynchronizeDeviceSlice")
def synchronize_device():
    """ret = acl.rt.synchronize_device() (other Python threads keep running)

    Waits in slices (see common.wait_in_slices), so Ctrl-C interrupts it."""
    return _wait_in_slices(_c.aclcudaSynchronizeDeviceSlice)


@_api("i", "aclrtSynchronizeDeviceWithTimeout", error="{name} args parse failed!")
def synchronize_device_with_timeout(timeout_ms, /):
    """ret = acl.rt.synchronize_device_with_timeout(timeout_ms): -1 waits forever."""
    return _c.aclrtSynchronizeDeviceWithTimeout(timeout_ms)


@_api("i", "aclrtSetDeviceSatMode")
def set_device_sat_mode(mode, /):
    """ret = acl.rt.set_device_sat_mode(mode)"""
    return _c.aclrtSetDeviceSatMode(mode)


@_api(None, "aclrtGetDeviceSatMode")
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


@_api(None, "aclrtDeviceGetStreamPriorityRange")
def device_get_stream_priority_range():
    """least, greatest, ret = acl.rt.device_get_stream_priority_range()"""
    least, greatest = _c_int32(), _c_int32()
    ret = _c.aclrtDeviceGetStreamPriorityRange(_byref(least), _byref(greatest))
    return least.value, greatest.value, ret


@_api("iI", "aclrtGetDeviceCapability")
def get_device_capability(device_id, feature, /):
    """value, ret = acl.rt.get_device_capability(device_id, feature)"""
    return _value_out(_c_int32, _c.aclrtGetDeviceCapability, device_id, feature)


@_api("iI", "aclrtDeviceTaskAbort")
def device_task_abort(device_id, timeout, /):
    """ret = acl.rt.device_task_abort(device_id, timeout_ms): 0 waits without limit."""
    return _c.aclrtDeviceTaskAbort(device_id, timeout)


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


@_api("II", "aclrtGetDevicesTopo", error="acl.rt.reset_device_res_limit args parse failed")
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


@_api(None, "aclrtDeviceGetBareTgid")
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


@_api("kkk", "aclrtGetOverflowStatus", error="{name} args parse failed!")
def get_overflow_status(output_addr, output_size, stream, /):
    """ret = acl.rt.get_overflow_status(out_addr, out_size, stream)"""
    return _c.aclrtGetOverflowStatus(output_addr, output_size, stream)


@_api("k", "aclrtResetOverflowStatus", error="{name} args parse failed!")
def reset_overflow_status(stream, /):
    """ret = acl.rt.reset_overflow_status(stream)"""
    return _c.aclrtResetOverflowStatus(stream)


# ---- core groups ----------------------------------------------------------------

@_api("I", "aclrtSetGroup")
def set_group(group_id, /):
    """ret = acl.rt.set_group(group_id)"""
    return _c.aclrtSetGroup(group_id)


@_api("|I", "aclrtGetGroupCount")
def get_group_count(ignored=0, /):
    """count, ret = acl.rt.get_group_count(0): pyACL takes one unsigned int
    argument and ignores it; the call without it works here too."""
    return _value_out(_c_uint32, _c.aclrtGetGroupCount)


@_api(None, "aclrtCreateGroupInfo")
def create_group_info():
    """group_info = acl.rt.create_group_info(): the handle alone (0 on failure), no ret."""
    return _c.aclrtCreateGroupInfo() or 0


@_api("k", "aclrtDestroyGroupInfo")
def destroy_group_info(group_info, /):
    """ret = acl.rt.destroy_group_info(group_info)"""
    return _c.aclrtDestroyGroupInfo(group_info)


@_api("k", "aclrtGetAllGroupInfo")
def get_all_group_info(group_info, /):
    """ret = acl.rt.get_all_group_info(group_info): reads every group into group_info."""
    return _c.aclrtGetAllGroupInfo(group_info)


_GROUP_DETAIL_WORDS = 0x100  # pyACL's buffer: 256 int32 values


@_api("kii", "aclrtGetGroupInfoDetail")
def get_group_info_detail(group_info, group_id, attr, /):
    """values, ret = acl.rt.get_group_info_detail(group_info, group_id, attr)

    values: the attribute's int32 values, as many as the bytes the library
    returns hold ([value] for the one int32 each attribute is). A failed
    call, or one returning no bytes, raises RuntimeError("aclrtGetGroupInfoDetail
    failed"), as pyACL does, so the ret returned is always 0. pyACL's list
    has one item per byte returned (the value and three unrelated words for
    an int32)."""
    values = (_c_int32 * _GROUP_DETAIL_WORDS)()
    size = _c_size_t()
    ret = _c.aclrtGetGroupInfoDetail(group_info, group_id, attr, values, _sizeof(values), _byref(size))
    if ret != 0 or size.value == 0:
        raise RuntimeError("aclrtGetGroupInfoDetail failed")
    count = min((size.value + _sizeof(_c_int32) - 1) // _sizeof(_c_int32), _GROUP_DETAIL_WORDS)
    return list(values[:count]), ret


__all__ = _exported(globals())
