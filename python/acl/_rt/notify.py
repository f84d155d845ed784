"""acl.rt notifies: create, record, wait and reset, share with other processes.

pyACL's texts and checks: wait_and_reset_notify takes the timeout (seconds)
as a signed 64-bit integer and refuses negative ones and 2**32 and above
with TypeError; the list arguments must be lists of ints, else ValueError."""

import ctypes as _ctypes

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import handle_out as _handle_out
from .common import value_out as _value_out

_U64 = (1 << 64) - 1
_MAX_KEY_LEN = 1024


@_api("K", "aclrtCreateNotify")
def create_notify(flag, /):
    """notify, ret = acl.rt.create_notify(flag)"""
    return _handle_out(_c.aclrtCreateNotify, flag)


@_api("k", "aclrtDestroyNotify")
def destroy_notify(notify, /):
    """ret = acl.rt.destroy_notify(notify)"""
    return _c.aclrtDestroyNotify(notify)


@_api("kk", "aclrtRecordNotify")
def record_notify(notify, stream, /):
    """ret = acl.rt.record_notify(notify, stream)"""
    return _c.aclrtRecordNotify(notify, stream)


@_api("kkL", "aclrtWaitAndResetNotify")
def wait_and_reset_notify(notify, stream, timeout, /):
    """ret = acl.rt.wait_and_reset_notify(notify, stream, timeout_s): 0 waits without limit."""
    if timeout < 0:
        raise TypeError("timeout can't be a negative number!")
    if timeout >= 1 << 32:
        raise TypeError("timeout should be less than 2**32!")
    return _c.aclrtWaitAndResetNotify(notify, stream, timeout)


@_api("k", "aclrtGetNotifyId")
def get_notify_id(notify, /):
    """notify_id, ret = acl.rt.get_notify_id(notify)"""
    return _value_out(_ctypes.c_uint32, _c.aclrtGetNotifyId, notify)


@_api("O", "aclrtNotifyBatchReset")
def notify_batch_reset(notify_list, /):
    """ret = acl.rt.notify_batch_reset(notify_list): a list of notifies."""
    if not isinstance(notify_list, list):
        raise ValueError("argument only support the format of list")
    handles = (_ctypes.c_void_p * (len(notify_list) + 1))()
    for i, item in enumerate(notify_list):
        if not isinstance(item, int) or not 0 <= item <= _U64:
            raise ValueError("get notify pointers from PyList failed")
        handles[i] = item or None
    return _c.aclrtNotifyBatchReset(handles, len(notify_list))


@_api("kkK", "aclrtNotifyGetExportKey")
def notify_get_export_key(notify, key_len, flag, /):
    """key, ret = acl.rt.notify_get_export_key(notify, key_len, flag): key_len < 1024
    (ACL asks for 65); the key is a str, empty when ret is not 0."""
    if key_len >= _MAX_KEY_LEN:
        raise ValueError("key len should be less than 1024")
    key = _ctypes.create_string_buffer(key_len + 1)
    ret = _c.aclrtNotifyGetExportKey(notify, key, key_len, flag)
    return key.value.decode("utf-8", "replace"), ret


@_api("kO", "aclrtNotifySetImportPid")
def notify_set_import_pid(notify, pid_list, /):
    """ret = acl.rt.notify_set_import_pid(notify, pid_list): a list of process ids."""
    if not isinstance(pid_list, list):
        raise ValueError("argument 2 only support the format of list")
    pids = (_ctypes.c_int32 * (len(pid_list) + 1))()
    for i, item in enumerate(pid_list):
        if not isinstance(item, int) or not -(1 << 31) <= item < 1 << 31:
            raise ValueError("get values from PyList failed")
        pids[i] = item
    return _c.aclrtNotifySetImportPid(notify, pids, len(pid_list))


@_api("sK", "aclrtNotifyImportByKey")
def notify_import_by_key(key, flag, /):
    """notify, ret = acl.rt.notify_import_by_key(key, flag)"""
    return _handle_out(_c.aclrtNotifyImportByKey, key, flag)


__all__ = _exported(globals())
