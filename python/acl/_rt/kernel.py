"""acl.rt kernels: binaries, functions, argument lists, kernel launches,
execution time limits.

The call forms, argument formats, error texts and results are pyACL's
(rt/rt_binary.cpp): handles are ints, options and launch attributes are
lists of dicts. pyACL has no wrapper for aclrtLaunchKernelWithHostArgs,
aclrtLaunchKernelV2 or the symbol calls, so neither has acl.rt.

What a binary is on acl-cuda (a cubin, fatbin or PTX image on the cuda
backend, a shared object on the host backend) is in docs/porting.md."""

from ctypes import byref as _byref
from ctypes import c_size_t as _c_size_t
from ctypes import c_uint32 as _c_uint32
from ctypes import c_uint64 as _c_uint64
from ctypes import c_void_p as _c_void_p
from ctypes import create_string_buffer as _create_string_buffer

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import handle_out as _handle_out
from .common import unsigned as _unsigned
from .common import value_out as _value_out

_INT_RANGE = (-(1 << 31), (1 << 31) - 1)
# pyACL's texts for the list arguments (the same "argument 2" whichever
# argument the list is).
_NOT_LIST = "argument 2 only support the format of list"
_NAME_LIMIT = 1024


def _dict_int(item, key):
    """pyACL's GetValueFromPyDict into an int: 0 when the key is missing or
    not an int; ValueError when it does not fit (PyLong_AsLong, then a cast
    that would cut it: refused too, as elsewhere in the package)."""
    value = item.get(key)
    if not isinstance(value, int):
        return 0
    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise ValueError("PyLong_AsLong failed")
    return int(value)


def _dict_uint32(item, key):
    """pyACL's GetValueFromPyDict into an unsigned int: 0 when missing or not
    an int; ValueError with pyACL's text when negative or too wide."""
    value = item.get(key)
    if not isinstance(value, int):
        return 0
    return _unsigned(value, 32)


def _struct_array(items, struct, not_dict, fill):
    """The ctypes array (None for an empty list) pyACL builds from a list of
    dicts: ValueError for what is not a list, TypeError not_dict for an
    item that is not a dict; fill(slot, item) sets one element."""
    if not isinstance(items, list):
        raise ValueError(_NOT_LIST)
    if not items:
        return None
    array = (struct * len(items))()
    for slot, item in zip(array, items):
        if not isinstance(item, dict):
            raise TypeError(not_dict)
        fill(slot, item)
    return array


def _fill_option(slot, item):
    slot.type = _dict_int(item, "type")
    slot.value.isLazyLoad = _dict_uint32(item, "value")


def _load_options(options):
    """(aclrtBinaryLoadOptions or None, the array it points to) from pyACL's
    list of {"type": int, "value": int}; an empty list passes NULL."""
    array = _struct_array(options, _lib.aclrtBinaryLoadOption, "the bin_option argument is not dict",
                          _fill_option)
    if array is None:
        return None, None
    loaded = _lib.aclrtBinaryLoadOptions()
    loaded.options = array
    loaded.numOpt = len(array)
    return loaded, array


def _fill_attr(slot, item):
    slot.id = _dict_int(item, "id")
    slot.value.blockDimOffset = _dict_uint32(item, "value")


def _launch_cfg(cfg):
    """(aclrtLaunchKernelCfg or None, its array) from pyACL's list of
    {"id": int, "value": int}. As in pyACL the value fills the union as
    blockDimOffset (a uint32), which the narrower members (schemMode, ...)
    read from its low bytes."""
    array = _struct_array(cfg, _lib.aclrtLaunchKernelAttr, "the cfg argument is not dict", _fill_attr)
    if array is None:
        return None, None
    config = _lib.aclrtLaunchKernelCfg()
    config.attrs = array
    config.numAttrs = len(array)
    return config, array


# ---- binaries -------------------------------------------------------------------

@_api("sO", "aclrtBinaryLoadFromFile", error="{name} args parse failed!")
def binary_load_from_file(bin_path, options, /):
    """bin_handle, ret = acl.rt.binary_load_from_file(path, options_list)

    options_list: [{"type": option_type, "value": value}, ...], [] for none."""
    loaded, _keep = _load_options(options)
    return _handle_out(lambda out: _c.aclrtBinaryLoadFromFile(bin_path, _byref(loaded) if loaded else None, out))


@_api("kkO", "aclrtBinaryLoadFromData", error="{name} args parse failed!")
def binary_load_from_data(data, length, options, /):
    """bin_handle, ret = acl.rt.binary_load_from_data(data_ptr, length, options_list)"""
    loaded, _keep = _load_options(options)
    return _handle_out(
        lambda out: _c.aclrtBinaryLoadFromData(data, length, _byref(loaded) if loaded else None, out))


@_api("kk", "aclrtCreateBinary")
def create_binary(data, length, /):
    """binary = acl.rt.create_binary(data_ptr, length): no ret, 0 on failure."""
    return _c.aclrtCreateBinary(data, length) or 0


@_api("k", "aclrtDestroyBinary")
def destroy_binary(binary, /):
    """ret = acl.rt.destroy_binary(binary)"""
    return _c.aclrtDestroyBinary(binary)


@_api("k", "aclrtBinaryLoad")
def binary_load(binary, /):
    """bin_handle, ret = acl.rt.binary_load(binary)"""
    return _handle_out(lambda out: _c.aclrtBinaryLoad(binary, out))


@_api("k", "aclrtBinaryUnLoad")
def binary_unload(bin_handle, /):
    """ret = acl.rt.binary_unload(bin_handle)"""
    return _c.aclrtBinaryUnLoad(bin_handle)


@_api("ks", "aclrtBinaryGetFunction")
def binary_get_function(bin_handle, kernel_name, /):
    """func_handle, ret = acl.rt.binary_get_function(bin_handle, kernel_name)"""
    return _handle_out(lambda out: _c.aclrtBinaryGetFunction(bin_handle, kernel_name, out))


@_api("kss", "aclrtRegisterCpuFunc", error="{name} args parse failed!")
def register_cpu_func(bin_handle, func_name, kernel_name, /):
    """func_handle, ret = acl.rt.register_cpu_func(bin_handle, func_name, kernel_name)"""
    if not func_name or not kernel_name:
        raise ValueError("argument 2 or 3 must not be empty")
    return _handle_out(lambda out: _c.aclrtRegisterCpuFunc(bin_handle, func_name, kernel_name, out))


# ---- functions ------------------------------------------------------------------

@_api("k", "aclrtGetFunctionAddr", error="{name} args parse failed!")
def get_function_addr(func_handle, /):
    """aic_addr, aiv_addr, ret = acl.rt.get_function_addr(func_handle)"""
    aic, aiv = _c_void_p(), _c_void_p()
    ret = _c.aclrtGetFunctionAddr(func_handle, _byref(aic), _byref(aiv))
    return aic.value or 0, aiv.value or 0, ret


@_api("kI", "aclrtGetFunctionName", error="{name} args parse failed!")
def get_function_name(func_handle, max_len, /):
    """name, ret = acl.rt.get_function_name(func_handle, max_len): max_len < 1024."""
    if max_len >= _NAME_LIMIT:
        raise ValueError("maxLen should be less than 1024")
    name = _create_string_buffer(max_len + 1)
    ret = _c.aclrtGetFunctionName(func_handle, max_len, name)
    return name.value.decode("utf-8", "replace"), ret


# ---- argument lists -------------------------------------------------------------

@_api("k", "aclrtKernelArgsInit")
def kernel_args_init(func_handle, /):
    """args_handle, ret = acl.rt.kernel_args_init(func_handle)"""
    return _handle_out(lambda out: _c.aclrtKernelArgsInit(func_handle, out))


@_api("kkkk", "aclrtKernelArgsInitByUserMem")
def kernel_args_init_by_user_mem(func_handle, args_handle, user_host_mem, actual_args_size, /):
    """ret = acl.rt.kernel_args_init_by_user_mem(func_handle, args_handle, host_mem, size)

    args_handle is memory of kernel_args_get_handle_mem_size bytes the caller
    owns; it becomes the argument list's handle."""
    return _c.aclrtKernelArgsInitByUserMem(func_handle, args_handle, user_host_mem, actual_args_size)


@_api("kk", "aclrtKernelArgsGetMemSize")
def kernel_args_get_mem_size(func_handle, user_args_size, /):
    """actual_size, ret = acl.rt.kernel_args_get_mem_size(func_handle, user_args_size)"""
    return _value_out(_c_size_t, _c.aclrtKernelArgsGetMemSize, func_handle, user_args_size)


@_api("k", "aclrtKernelArgsGetHandleMemSize")
def kernel_args_get_handle_mem_size(func_handle, /):
    """size, ret = acl.rt.kernel_args_get_handle_mem_size(func_handle)"""
    return _value_out(_c_size_t, _c.aclrtKernelArgsGetHandleMemSize, func_handle)


@_api("kkk", "aclrtKernelArgsAppend")
def kernel_args_append(args_handle, param, param_size, /):
    """param_handle, ret = acl.rt.kernel_args_append(args_handle, param_ptr, param_size)

    param_ptr is the host address of the value (acl.util.bytes_to_ptr of its
    bytes, for instance); the value is copied into the list."""
    return _handle_out(lambda out: _c.aclrtKernelArgsAppend(args_handle, param, param_size, out))


@_api("k", "aclrtKernelArgsAppendPlaceHolder")
def kernel_args_append_place_holder(args_handle, /):
    """param_handle, ret = acl.rt.kernel_args_append_place_holder(args_handle)"""
    return _handle_out(lambda out: _c.aclrtKernelArgsAppendPlaceHolder(args_handle, out))


@_api("kkk", "aclrtKernelArgsGetPlaceHolderBuffer")
def kernel_args_get_place_holder_buffer(args_handle, param_handle, data_size, /):
    """buffer, ret = acl.rt.kernel_args_get_place_holder_buffer(args_handle, param_handle, size)"""
    return _handle_out(
        lambda out: _c.aclrtKernelArgsGetPlaceHolderBuffer(args_handle, param_handle, data_size, out))


@_api("kkkk", "aclrtKernelArgsParaUpdate")
def kernel_args_para_update(args_handle, param_handle, param, param_size, /):
    """ret = acl.rt.kernel_args_para_update(args_handle, param_handle, param_ptr, param_size)"""
    return _c.aclrtKernelArgsParaUpdate(args_handle, param_handle, param, param_size)


@_api("k", "aclrtKernelArgsFinalize")
def kernel_args_finalize(args_handle, /):
    """ret = acl.rt.kernel_args_finalize(args_handle)"""
    return _c.aclrtKernelArgsFinalize(args_handle)


# ---- launches -------------------------------------------------------------------

@_api("kIkkk", "aclrtLaunchKernel")
def launch_kernel(func_handle, block_dim, args, args_size, stream, /):
    """ret = acl.rt.launch_kernel(func_handle, num_blocks, args_ptr, args_size, stream)

    args_ptr: the host address of the packed argument buffer."""
    return _c.aclrtLaunchKernel(func_handle, block_dim, args, args_size, stream)


@_api("kIkOkk", "aclrtLaunchKernelWithConfig")
def launch_kernel_with_config(func_handle, block_dim, stream, cfg, args_handle, reserve, /):
    """ret = acl.rt.launch_kernel_with_config(func_handle, num_blocks, stream, cfg_list, args_handle, reserve)

    cfg_list: [{"id": attribute_id, "value": value}, ...], [] for none."""
    config, _keep = _launch_cfg(cfg)
    return _c.aclrtLaunchKernelWithConfig(func_handle, block_dim, stream, _byref(config) if config else None,
                                          args_handle, reserve)


# ---- execution time limits ------------------------------------------------------


@_api("I", "aclrtSetOpExecuteTimeOut", error="acl.rt.set_op_execute_timeout args parse failed!")
def set_op_execute_time_out(timeout, /):
    """ret = acl.rt.set_op_execute_time_out(timeout_s)"""
    return _c.aclrtSetOpExecuteTimeOut(timeout)


@_api("K", "aclrtSetOpExecuteTimeOutV2", error="{name} args parse failed!")
def set_op_execute_timeout_v2(timeout, /):
    """actual_timeout, ret = acl.rt.set_op_execute_timeout_v2(timeout_us)"""
    actual = _c_uint64()
    ret = _c.aclrtSetOpExecuteTimeOutV2(timeout, _byref(actual))
    return actual.value, ret


@_api(None, "aclrtGetOpTimeOutInterval")
def get_op_timeout_interval():
    """interval, ret = acl.rt.get_op_timeout_interval()"""
    return _value_out(_c_uint64, _c.aclrtGetOpTimeOutInterval)


@_api(None, "aclrtGetOpExecuteTimeout")
def get_op_execute_timeout():
    """timeout_ms, ret = acl.rt.get_op_execute_timeout()"""
    return _value_out(_c_uint32, _c.aclrtGetOpExecuteTimeout)


__all__ = _exported(globals())
