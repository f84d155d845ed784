"""acl.rt kernels: execution time limits.

Binaries, functions and kernel launch (aclrtBinaryLoad*, aclrtLaunchKernel*,
the kernel_args_* family) belong here."""

from ctypes import byref as _byref
from ctypes import c_uint32 as _c_uint32
from ctypes import c_uint64 as _c_uint64

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import value_out as _value_out


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
