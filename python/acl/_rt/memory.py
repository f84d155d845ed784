"""acl.rt memory: device and host allocation, memory information, cache
maintenance, registration of host memory, pointer attributes, UCE, custom
allocators."""

import threading as _threading
from ctypes import byref as _byref
from ctypes import c_size_t as _c_size_t
from ctypes import c_void_p as _c_void_p

from .. import _lib
from .._module import exported as _exported
from .callback import _report_exception
from .common import api as _api
from .common import c as _c
from .common import handle_out as _handle_out
from .common import unsigned as _unsigned


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


# The union members of aclrtMallocAttrValue, in the order pyACL looks for
# them, with their widths ("vaFlag" is ours: pyACL knows only the others).
_MALLOC_VALUE_FIELDS = (("moduleId", 16), ("deviceId", 32), ("vaFlag", 32))
_RSV_BYTES = 8
_INT_RANGE = (-(1 << 31), (1 << 31) - 1)


def _malloc_attribute(slot, item):
    """Fills slot, an aclrtMallocAttribute, from one item of cfg["attrs"]:
    {"attr": int, "value": {"moduleId" | "deviceId" | "vaFlag" | "rsv": ...}}."""
    if not isinstance(item, dict):
        raise TypeError("the aclrtMallocWithCfg argument is not dict")
    attr = item.get("attr")
    if isinstance(attr, int):  # pyACL leaves attr 0 when it is missing or not an int
        # pyACL: PyLong_AsLong, then a cast to the C enum (an int), which
        # would cut what is wider: refused too.
        if not _INT_RANGE[0] <= attr <= _INT_RANGE[1]:
            raise ValueError("PyLong_AsLong failed")
        slot.attr = attr
    if "value" not in item:
        return  # pyACL leaves the value zeroed
    value = item["value"]
    if not isinstance(value, dict):
        raise TypeError("the aclrtMallocAttrValue argument is not dict")
    for key, bits in _MALLOC_VALUE_FIELDS:
        if key in value:
            setattr(slot.value, key, _unsigned(value[key], bits))
            return
    if "rsv" in value:
        rsv = value["rsv"]
        if not isinstance(rsv, list):  # pyACL leaves an error set and goes on
            raise TypeError("the rsv of an aclrtMallocAttrValue must be a list")
        for i, byte in enumerate(rsv[:_RSV_BYTES]):  # pyACL takes the first 8
            slot.value.rsv[i] = _unsigned(byte, 8)
        return
    raise KeyError("No valid key found in aclrtMallocAttrValue")


def _malloc_config(cfg):
    """An aclrtMallocConfig (None for {}) and the array it points to, from
    pyACL's cfg dict {"numAttrs": n, "attrs": [attribute, ...]}; every
    check and text is pyACL's (rt/rt_memory.cpp), and numAttrs must be the
    length of attrs, so the library reads only what is there."""
    if not isinstance(cfg, dict):
        raise TypeError("pyCfg is not dict!")
    if not cfg:
        return None, None
    if "attrs" not in cfg:
        raise TypeError("the aclrtMallocAttrValue argument is not dict")
    attrs = cfg["attrs"]
    if not isinstance(attrs, list):  # pyACL's calloc of PyList_Size(attrs) = -1 items fails
        raise TypeError("cfg.attrs malloc failed!")
    count = cfg.get("numAttrs", 0)
    if isinstance(count, int):  # pyACL takes 0 for a missing or non-int numAttrs
        count = _unsigned(count, 64)
    else:
        count = 0
    if count != len(attrs):
        raise KeyError("The numAttrs inputed does not match the expected numAttrs")
    array = (_lib.aclrtMallocAttribute * max(count, 1))()
    for slot, item in zip(array, attrs):
        _malloc_attribute(slot, item)
    config = _lib.aclrtMallocConfig()
    config.attrs = array
    config.numAttrs = count
    return config, array


@_api("kiO", "aclrtMallocWithCfg", error="{name} args parse failed!")
def malloc_with_cfg(size, policy, cfg, /):
    """dev_ptr, ret = acl.rt.malloc_with_cfg(size, policy, cfg_dict)"""
    config, _keep = _malloc_config(cfg)
    return _handle_out(_c.aclrtMallocWithCfg, size, policy, _byref(config) if config else None)


@_api("kiO", "aclrtMallocForTaskScheduler", error="{name} args parse failed!")
def malloc_for_task_scheduler(size, policy, cfg, /):
    """dev_ptr, ret = acl.rt.malloc_for_task_scheduler(size, policy, cfg_dict)"""
    config, _keep = _malloc_config(cfg)
    return _handle_out(_c.aclrtMallocForTaskScheduler, size, policy, _byref(config) if config else None)


@_api("kO", "aclrtMallocHostWithCfg")
def malloc_host_with_cfg(size, cfg, /):
    """host_ptr, ret = acl.rt.malloc_host_with_cfg(size, cfg_dict)"""
    config, _keep = _malloc_config(cfg)
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


@_api("kkik", "aclrtCmoAsync", error="{name} args parse failed!")
def cmo_async(src, size, cmo_type, stream, /):
    """ret = acl.rt.cmo_async(src, size, cmo_type, stream): cache maintenance
    (0 prefetch, 1 write-back, 2 invalidate, 3 flush) in stream order."""
    return _c.aclrtCmoAsync(src, size, cmo_type, stream)


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


@_api("KKI", "aclrtHostRegisterV2")
def host_register_v2(host_ptr, size, flag, /):
    """ret = acl.rt.host_register_v2(host_ptr, size, flag)"""
    return _c.aclrtHostRegisterV2(host_ptr, size, flag)


@_api("KI", "aclrtHostGetDevicePointer", error="{name} parse failed")
def host_get_device_pointer(host_ptr, flag, /):
    """dev_ptr, ret = acl.rt.host_get_device_pointer(host_ptr, flag)"""
    dev_ptr = _c_void_p()
    ret = _c.aclrtHostGetDevicePointer(host_ptr, _byref(dev_ptr), flag)
    return dev_ptr.value or 0, ret


_UCE_INFO_MAX_NUM = 20


@_api("iI", "aclrtGetMemUceInfo", error="{name} args parse failed!")
def get_mem_uce_info(device_id, array_size, /):
    """info_list, ret = acl.rt.get_mem_uce_info(device_id, array_size)

    info_list: [{"addr": int, "len": int, "reserved": [14 ints]}, ...], as
    many as the device reported. A device reports ACL_RT_MEM_UCE_INFO_MAX_NUM
    (20) at most, so a larger array_size asks for 20 (where pyACL would try
    to allocate the whole array first)."""
    size = min(array_size, _UCE_INFO_MAX_NUM)
    array = (_lib.aclrtMemUceInfo * max(size, 1))()
    count = _c_size_t()
    ret = _c.aclrtGetMemUceInfo(device_id, array, size, _byref(count))
    return [{"addr": item.addr or 0, "len": item.len, "reserved": list(item.reserved)}
            for item in array[:min(count.value, size)]], ret


def _void_pointer(value):
    """A dict value for a void * field, converted as pyACL does (None or a
    missing key: NULL; else PyLong_AsVoidPtr, which takes ints from -2**63,
    negative ones wrapping to 64 bits, below 2**64)."""
    if value is None:
        return 0
    if not isinstance(value, int) or not -(1 << 63) <= value < (1 << 64):
        raise ValueError("PyLong_AsVoidPtr failed")
    return value & ((1 << 64) - 1)


def _uce_info(slot, item):
    """Fills slot, an aclrtMemUceInfo, from {"addr": int, "len": int,
    "reserved": [int, ...]}, with pyACL's checks: a missing key or a len or
    reserved of another type leaves its field 0, reserved takes 14 items at
    most, and its items are read up to the first one that is not an int."""
    if not isinstance(item, dict):
        raise TypeError("the aclrtMemUceInfo argument is not dict")
    slot.addr = _void_pointer(item.get("addr"))
    length = item.get("len")
    if isinstance(length, int):
        slot.len = _unsigned(length, 64)
    reserved = item.get("reserved")
    if not isinstance(reserved, list):
        return
    if len(reserved) > _lib.UCE_INFO_RESERVED_SIZE:
        raise ValueError("The length of reserved should be no greater than %d" % _lib.UCE_INFO_RESERVED_SIZE)
    for i, word in enumerate(reserved):
        if not isinstance(word, int):
            break
        slot.reserved[i] = _unsigned(word, 64)


@_api("iO", "aclrtMemUceRepair", error="{name} args parse failed!")
def mem_uce_repair(device_id, info_list, /):
    """ret = acl.rt.mem_uce_repair(device_id, info_list): info_list as
    get_mem_uce_info returns it."""
    if not isinstance(info_list, list):
        raise TypeError("aclrtMemUceInfo argument is not list")
    array = (_lib.aclrtMemUceInfo * (len(info_list) + 1))()
    for slot, item in zip(array, info_list):
        _uce_info(slot, item)
    return _c.aclrtMemUceRepair(device_id, array, len(info_list))


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


# ---- custom allocators ---------------------------------------------------------
#
# Each function given to a descriptor gets a C function pointer of its own (a
# ctypes trampoline around it), so that two descriptors can hold different
# Python functions of one kind. The trampolines must live as long as C may
# call them: a descriptor's while it has them (until allocator_destroy_desc),
# a stream's from allocator_register, which copies the descriptor's
# functions, until allocator_unregister or the next registration for that
# stream handle (a stream destroyed while registered keeps them: a few small
# objects). One lock orders the C calls with this bookkeeping, so that a
# registration copies exactly the trampolines recorded for the descriptor.

_allocator_lock = _threading.Lock()
_descriptor_functions = {}  # descriptor -> {kind: trampoline}
_stream_functions = {}  # stream -> the trampolines its registration copied
_U64 = (1 << 64) - 1


def _pointer_from(kind, fn, args, outcome="NULL returned to the runtime"):
    """Calls fn(*args) for the C caller: an int it returns is the pointer
    (masked to 64 bits, as handles are), anything else NULL; an exception is
    reported on stderr and NULL returned, never propagated into C."""
    try:
        result = fn(*args)
    except BaseException as exc:  # noqa: B036 - nothing may unwind into C
        _report_exception("the allocator's %s function" % kind, fn, exc, outcome)
        return None
    return result & _U64 if isinstance(result, int) else None


def _alloc_trampoline(fn):
    return _lib.aclrtAllocatorAllocFunc(lambda allocator, size: _pointer_from("alloc", fn, (allocator or 0, size)))


def _free_trampoline(fn):
    def free_block(allocator, block):
        _pointer_from("free", fn, (allocator or 0, block or 0), "ignored")
    return _lib.aclrtAllocatorFreeFunc(free_block)


def _advise_trampoline(fn):
    return _lib.aclrtAllocatorAllocAdviseFunc(
        lambda allocator, size, addr: _pointer_from("alloc advise", fn, (allocator or 0, size, addr or 0)))


def _addr_trampoline(fn):
    return _lib.aclrtAllocatorGetAddrFromBlockFunc(lambda block: _pointer_from("get addr", fn, (block or 0,)))


def _set_function(kind, c_set, trampoline, desc):
    """Gives desc the trampoline; kept for desc only if the C call succeeded."""
    with _allocator_lock:
        ret = c_set(desc, trampoline)
        if ret == 0:
            _descriptor_functions.setdefault(desc, {})[kind] = trampoline
    return ret


@_api(None, "aclrtAllocatorCreateDesc")
def allocator_create_desc():
    """desc = acl.rt.allocator_create_desc(): the handle alone (0 on failure), no ret."""
    with _allocator_lock:
        desc = _c.aclrtAllocatorCreateDesc() or 0
        _descriptor_functions.pop(desc, None)  # a gone descriptor's, at the same address
    return desc


@_api("k", "aclrtAllocatorDestroyDesc")
def allocator_destroy_desc(desc, /):
    """ret = acl.rt.allocator_destroy_desc(desc): releases the Python functions
    given to desc (a stream registered with it keeps its own)."""
    with _allocator_lock:
        ret = _c.aclrtAllocatorDestroyDesc(desc)
        if ret == 0:
            _descriptor_functions.pop(desc, None)
    return ret


@_api("kk", "aclrtAllocatorSetObjToDesc")
def allocator_set_obj_to_desc(desc, obj, /):
    """ret = acl.rt.allocator_set_obj_to_desc(desc, obj): obj, an int (not 0),
    is the allocator the functions receive. (pyACL passes the address of a
    copy of obj on its stack instead, which its functions cannot use.)"""
    return _c.aclrtAllocatorSetObjToDesc(desc, obj)


@_api("kO", "aclrtAllocatorSetAllocFuncToDesc")
def allocator_set_alloc_func_to_desc(desc, fn, /):
    """ret = acl.rt.allocator_set_alloc_func_to_desc(desc, fn): the runtime
    calls fn(allocator, size) for a block; fn returns the block as an int
    (None or any other value: NULL). pyACL ignores what fn returns (its
    blocks are always NULL) and cuts size to 32 bits; this passes all of
    size and uses the result. An exception in fn is printed and gives NULL."""
    return _set_function("alloc", _c.aclrtAllocatorSetAllocFuncToDesc, _alloc_trampoline(fn), desc)


@_api("kO", "aclrtAllocatorSetFreeFuncToDesc")
def allocator_set_free_func_to_desc(desc, fn, /):
    """ret = acl.rt.allocator_set_free_func_to_desc(desc, fn): the runtime
    calls fn(allocator, block) to free a block the alloc function gave."""
    return _set_function("free", _c.aclrtAllocatorSetFreeFuncToDesc, _free_trampoline(fn), desc)


@_api("kO", "aclrtAllocatorSetAllocAdviseFuncToDesc")
def allocator_set_alloc_advise_func_to_desc(desc, fn, /):
    """ret = acl.rt.allocator_set_alloc_advise_func_to_desc(desc, fn): the
    runtime calls fn(allocator, size, addr) for a block at (or near) addr;
    fn returns the block as an int, as the alloc function does."""
    return _set_function("alloc advise", _c.aclrtAllocatorSetAllocAdviseFuncToDesc, _advise_trampoline(fn), desc)


@_api("kO", "aclrtAllocatorSetGetAddrFromBlockFuncToDesc")
def allocator_set_get_addr_from_block_func_to_desc(desc, fn, /):
    """ret = acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, fn):
    the runtime calls fn(block) for the address of a block's memory, an int."""
    return _set_function("get addr", _c.aclrtAllocatorSetGetAddrFromBlockFuncToDesc, _addr_trampoline(fn), desc)


@_api("kk", "aclrtAllocatorRegister")
def allocator_register(stream, desc, /):
    """ret = acl.rt.allocator_register(stream, desc): the stream takes the
    allocator desc describes now (later changes to desc do not reach it)."""
    with _allocator_lock:
        ret = _c.aclrtAllocatorRegister(stream, desc)
        if ret == 0:
            _stream_functions[stream] = dict(_descriptor_functions.get(desc, {}))
    return ret


@_api("k", "aclrtAllocatorUnregister")
def allocator_unregister(stream, /):
    """ret = acl.rt.allocator_unregister(stream)"""
    with _allocator_lock:
        ret = _c.aclrtAllocatorUnregister(stream)
        if ret == 0:
            _stream_functions.pop(stream, None)
    return ret


__all__ = _exported(globals())
