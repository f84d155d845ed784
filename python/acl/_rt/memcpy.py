"""acl.rt copies and fills: memcpy, memset, 2D copies, copy descriptors, reductions."""

from ctypes import c_size_t as _c_size_t

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c
from .common import foreign as _foreign
from .common import value_out as _value_out


@_api("kkkki", "aclrtMemcpy")
def memcpy(dst, dest_max, src, count, kind, /):
    """ret = acl.rt.memcpy(dst, dest_max, src, count, kind)"""
    return _c.aclrtMemcpy(dst, dest_max, src, count, kind)


@_foreign("kkkkik", "aclrtMemcpyAsync")
def memcpy_async(dst, dest_max, src, count, kind, stream, /):
    """ret = acl.rt.memcpy_async(dst, dest_max, src, count, kind, stream)"""


@_api("kkkkik", "aclrtMemcpyAsyncWithCondition")
def memcpy_async_with_condition(dst, dest_max, src, count, kind, stream, /):
    """ret = acl.rt.memcpy_async_with_condition(dst, dest_max, src, count, kind, stream) (deprecated)"""
    return _c.aclrtMemcpyAsyncWithCondition(dst, dest_max, src, count, kind, stream)


@_foreign("kkikk", "aclrtMemsetAsync")
def memset_async(dev_ptr, max_count, value, count, stream, /):
    """ret = acl.rt.memset_async(dev_ptr, max_count, value, count, stream)"""


@_api("kkik", "aclrtMemset")
def memset(dev_ptr, max_count, value, count, /):
    """ret = acl.rt.memset(dev_ptr, max_count, value, count): byte fill."""
    return _c.aclrtMemset(dev_ptr, max_count, value, count)


@_api("kkkkkki", "aclrtMemcpy2d")
def memcpy2d(dst, dpitch, src, spitch, width, height, kind, /):
    """ret = acl.rt.memcpy2d(dst, dpitch, src, spitch, width, height, kind)"""
    return _c.aclrtMemcpy2d(dst, dpitch, src, spitch, width, height, kind)


@_api("kkkkkkik", "aclrtMemcpy2dAsync")
def memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream, /):
    """ret = acl.rt.memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream)"""
    return _c.aclrtMemcpy2dAsync(dst, dpitch, src, spitch, width, height, kind, stream)


@_api("i", "aclrtGetMemcpyDescSize")
def get_memcpy_desc_size(kind, /):
    """desc_size, ret = acl.rt.get_memcpy_desc_size(kind)"""
    return _value_out(_c_size_t, _c.aclrtGetMemcpyDescSize, kind)


@_api("kikkkk", "aclrtSetMemcpyDesc")
def set_memcpy_desc(desc, kind, src, dst, count, config, /):
    """desc, ret = acl.rt.set_memcpy_desc(desc, kind, src, dst, count, config)"""
    return desc, _c.aclrtSetMemcpyDesc(desc, kind, src, dst, count, config)


@_api("kik", "aclrtMemcpyAsyncWithDesc")
def memcpy_async_with_desc(desc, kind, stream, /):
    """ret = acl.rt.memcpy_async_with_desc(desc, kind, stream)"""
    return _c.aclrtMemcpyAsyncWithDesc(desc, kind, stream)


@_api("kkkiikk", "aclrtReduceAsync")
def reduce_async(dst, src, count, kind, data_type, stream, reserve, /):
    """ret = acl.rt.reduce_async(dst, src, count, kind, data_type, stream, reserve)"""
    return _c.aclrtReduceAsync(dst, src, count, kind, data_type, stream, reserve)


@_api("kkIk", "aclrtValueWrite")
def value_write(dev_addr, value, flag, stream, /):
    """ret = acl.rt.value_write(dev_addr, value, flag, stream): a 64-bit write in stream order."""
    return _c.aclrtValueWrite(dev_addr, value, flag, stream)


@_api("kkIk", "aclrtValueWait")
def value_wait(dev_addr, value, flag, stream, /):
    """ret = acl.rt.value_wait(dev_addr, value, flag, stream): holds the stream until the
    64-bit word compares true (flag: 0 GEQ, 1 EQ, 2 AND, 3 NOR)."""
    return _c.aclrtValueWait(dev_addr, value, flag, stream)


__all__ = _exported(globals())
