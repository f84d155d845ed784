"""acl.rt virtual memory: reserved address ranges, physical memory, mappings,
the allocation granularity and shareable handles of physical memory."""

from ctypes import byref as _byref
from ctypes import c_int32 as _c_int32
from ctypes import c_size_t as _c_size_t
from ctypes import c_uint64 as _c_uint64
from ctypes import c_void_p as _c_void_p

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import handle_out as _handle_out
from .common import unsigned as _unsigned

_INT_RANGE = (-(1 << 31), (1 << 31) - 1)


def _enum(value):
    """A dict value for a C enum field: pyACL leaves 0 for a missing key or
    a value that is not an int, and refuses an int out of the C int range."""
    if not isinstance(value, int):
        return 0
    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise ValueError("PyLong_AsLong failed")
    return value


def _physical_mem_prop(prop):
    """An aclrtPhysicalMemProp from pyACL's dict: {"handleType", "allocationType",
    "memAttr", "location": {"id", "type"}, "reserve"}, checked in pyACL's
    order (a missing key leaves its field 0)."""
    if not isinstance(prop, dict):
        raise TypeError("the aclrtPhysicalMemProp argument is not dict")
    out = _lib.aclrtPhysicalMemProp()
    out.handleType = _enum(prop.get("handleType"))
    out.allocationType = _enum(prop.get("allocationType"))
    out.memAttr = _enum(prop.get("memAttr"))
    if "location" in prop:  # pyACL leaves a missing location zeroed
        location = prop["location"]
        if not isinstance(location, dict):
            raise TypeError("the aclrtMemLocation argument is not dict")
        location_id = location.get("id")
        out.location.id = _unsigned(location_id, 32) if isinstance(location_id, int) else 0
        out.location.type = _enum(location.get("type"))
    reserve = prop.get("reserve")
    out.reserve = _unsigned(reserve, 64) if isinstance(reserve, int) else 0
    return out


def _pid_array(pids):
    if not isinstance(pids, list):
        raise ValueError("argument 2 only support the format of list")
    for pid in pids:
        if not isinstance(pid, int) or not _INT_RANGE[0] <= pid <= _INT_RANGE[1]:
            raise ValueError("get values from PyList failed")
    return (_c_int32 * max(len(pids), 1))(*pids), len(pids)


@_api("kkkK", "aclrtReserveMemAddress")
def reserve_mem_address(size, alignment, expect_ptr, flags, /):
    """vir_ptr, ret = acl.rt.reserve_mem_address(size, alignment, expect_ptr, flags)"""
    return _handle_out(_c.aclrtReserveMemAddress, size, alignment, expect_ptr or None, flags)


@_api("k", "aclrtReleaseMemAddress")
def release_mem_address(vir_ptr, /):
    """ret = acl.rt.release_mem_address(vir_ptr)"""
    return _c.aclrtReleaseMemAddress(vir_ptr)


@_api("kOK", "aclrtMallocPhysical")
def malloc_physical(size, prop, flags, /):
    """handle, ret = acl.rt.malloc_physical(size, prop_dict, flags)

    prop_dict: {"handleType": int, "allocationType": int, "memAttr": int,
    "location": {"id": int, "type": int}, "reserve": int}"""
    c_prop = _physical_mem_prop(prop)
    return _handle_out(_c.aclrtMallocPhysical, size, _byref(c_prop), flags)


@_api("k", "aclrtFreePhysical")
def free_physical(handle, /):
    """ret = acl.rt.free_physical(handle)"""
    return _c.aclrtFreePhysical(handle)


@_api("kkkkK", "aclrtMapMem")
def map_mem(vir_ptr, size, offset, handle, flags, /):
    """ret = acl.rt.map_mem(vir_ptr, size, offset, handle, flags)"""
    return _c.aclrtMapMem(vir_ptr, size, offset, handle, flags)


@_api("k", "aclrtUnmapMem")
def unmap_mem(vir_ptr, /):
    """ret = acl.rt.unmap_mem(vir_ptr)"""
    return _c.aclrtUnmapMem(vir_ptr)


@_api("Oi", "aclrtMemGetAllocationGranularity")
def mem_get_allocation_granularity(prop, option, /):
    """granularity, ret = acl.rt.mem_get_allocation_granularity(prop_dict, option)"""
    c_prop = _physical_mem_prop(prop)
    granularity = _c_size_t()
    ret = _c.aclrtMemGetAllocationGranularity(_byref(c_prop), option, _byref(granularity))
    return granularity.value, ret


@_api("kiK", "aclrtMemExportToShareableHandle")
def mem_export_to_shareable_handle(handle, handle_type, flags, /):
    """shareable_handle, ret = acl.rt.mem_export_to_shareable_handle(handle, handle_type, flags)"""
    shareable = _c_uint64()
    ret = _c.aclrtMemExportToShareableHandle(handle, handle_type, flags, _byref(shareable))
    return shareable.value, ret


@_api("KO", "aclrtMemSetPidToShareableHandle")
def mem_set_pid_to_shareable_handle(shareable_handle, pids, /):
    """ret = acl.rt.mem_set_pid_to_shareable_handle(shareable_handle, [pid, ...])"""
    array, count = _pid_array(pids)
    return _c.aclrtMemSetPidToShareableHandle(shareable_handle, array, count)


@_api("Ki", "aclrtMemImportFromShareableHandle")
def mem_import_from_shareable_handle(shareable_handle, device_id, /):
    """handle, ret = acl.rt.mem_import_from_shareable_handle(shareable_handle, device_id)"""
    handle = _c_void_p()
    ret = _c.aclrtMemImportFromShareableHandle(shareable_handle, device_id, _byref(handle))
    return handle.value or 0, ret


__all__ = _exported(globals())
