"""acl.rt memory: device and host allocation, memory information,
registration of host memory, pointer attributes."""

from ctypes import byref as _byref
from ctypes import c_size_t as _c_size_t
from ctypes import c_void_p as _c_void_p

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import handle_out as _handle_out


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


@_api("kiO", "aclrtMallocWithCfg", error="{name} args parse failed!")
def malloc_with_cfg(size, policy, cfg, /):
    """dev_ptr, ret = acl.rt.malloc_with_cfg(size, policy, cfg_dict)"""
    config, _keep = _malloc_config("acl.rt.malloc_with_cfg()", cfg)
    return _handle_out(_c.aclrtMallocWithCfg, size, policy, _byref(config) if config else None)


@_api("kiO", "aclrtMallocForTaskScheduler", error="{name} args parse failed!")
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


__all__ = _exported(globals())
