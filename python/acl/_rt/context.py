"""acl.rt contexts: create, destroy, current context, system parameters."""

from ctypes import byref as _byref
from ctypes import c_int32 as _c_int32
from ctypes import c_int64 as _c_int64

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import handle_out as _handle_out
from .common import value_out as _value_out


@_api("i", "aclrtCreateContext")
def create_context(device_id, /):
    """context, ret = acl.rt.create_context(device_id): also made current for this thread."""
    return _handle_out(_c.aclrtCreateContext, device_id)


@_api("k", "aclrtDestroyContext")
def destroy_context(context, /):
    """ret = acl.rt.destroy_context(context)"""
    return _c.aclrtDestroyContext(context)


@_api("k", "aclrtSetCurrentContext")
def set_context(context, /):
    """ret = acl.rt.set_context(context)"""
    return _c.aclrtSetCurrentContext(context)


@_api(None, "aclrtGetCurrentContext")
def get_context():
    """context, ret = acl.rt.get_context()"""
    return _handle_out(_c.aclrtGetCurrentContext)


@_api(None, "aclrtCtxGetCurrentDefaultStream")
def ctx_get_current_default_stream():
    """stream, ret = acl.rt.ctx_get_current_default_stream(): the handle 0 stands for."""
    return _handle_out(_c.aclrtCtxGetCurrentDefaultStream)


@_api("il", "aclrtCtxSetSysParamOpt")
def ctx_set_sys_param_opt(opt, value, /):
    """ret = acl.rt.ctx_set_sys_param_opt(opt, value)"""
    return _c.aclrtCtxSetSysParamOpt(opt, value)


@_api("i", "aclrtCtxGetSysParamOpt")
def ctx_get_sys_param_opt(opt, /):
    """value, ret = acl.rt.ctx_get_sys_param_opt(opt)"""
    return _value_out(_c_int64, _c.aclrtCtxGetSysParamOpt, opt)


@_api("il", "aclrtSetSysParamOpt", error="{name} args parse faild")
def set_sys_param_opt(opt, value, /):
    """ret = acl.rt.set_sys_param_opt(opt, value)"""
    return _c.aclrtSetSysParamOpt(opt, value)


@_api("i", "aclrtGetSysParamOpt", error="{name} args parse faild")
def get_sys_param_opt(opt, /):
    """value, ret = acl.rt.get_sys_param_opt(opt)"""
    return _value_out(_c_int64, _c.aclrtGetSysParamOpt, opt)


@_api("i", "aclrtGetPrimaryCtxState")
def get_primary_ctx_state(device_id, /):
    """active, flags, ret = acl.rt.get_primary_ctx_state(device_id): flags is always 0."""
    active = _c_int32()
    ret = _c.aclrtGetPrimaryCtxState(device_id, None, _byref(active))
    return active.value, 0, ret


__all__ = _exported(globals())
