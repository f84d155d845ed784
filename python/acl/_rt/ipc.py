"""acl.rt IPC: device memory shared with other processes through keys."""

from ctypes import byref as _byref
from ctypes import c_void_p as _c_void_p
from ctypes import create_string_buffer as _create_string_buffer

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .vmm import _pid_array

_MAX_KEY_LEN = 1024


@_api("kkkK", "aclrtIpcMemGetExportKey")
def ipc_mem_get_export_key(dev_ptr, size, length, flags, /):
    """key, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, size, key_len, flags)"""
    if length >= _MAX_KEY_LEN:
        raise ValueError("key len should be less than 1024")
    buffer = _create_string_buffer(length + 1)
    ret = _c.aclrtIpcMemGetExportKey(dev_ptr, size, buffer, length, flags)
    return buffer.value.decode("utf-8", "replace"), ret


@_api("sO", "aclrtIpcMemSetImportPid")
def ipc_mem_set_import_pid(key, pids, /):
    """ret = acl.rt.ipc_mem_set_import_pid(key, [pid, ...])"""
    array, count = _pid_array(pids)
    return _c.aclrtIpcMemSetImportPid(key, array, count)


@_api("sK", "aclrtIpcMemImportByKey")
def ipc_mem_import_by_key(key, flags, /):
    """dev_ptr, ret = acl.rt.ipc_mem_import_by_key(key, flags)"""
    dev_ptr = _c_void_p()
    ret = _c.aclrtIpcMemImportByKey(_byref(dev_ptr), key, flags)
    return dev_ptr.value or 0, ret


@_api("s", "aclrtIpcMemClose")
def ipc_mem_close(key, /):
    """ret = acl.rt.ipc_mem_close(key)"""
    return _c.aclrtIpcMemClose(key)


__all__ = _exported(globals())
