"""pyACL's runtime API on top of acl-cuda's libascendcl.so.

Code written for Huawei's pyACL (``import acl``) runs unchanged: the same
functions in ``acl``, ``acl.rt`` and ``acl.util``, the same call forms
(positional arguments, integer handles, ``0`` for the default stream) and
the same results (a bare ``ret`` error code, or a tuple with ``ret`` last).
Like pyACL the package defines no constants; scripts use the integers of
the ACL headers.

The library is found as described in acl._lib (``ACLCUDA_LIBRARY`` first).
"""

import sys as _sys
from ctypes import byref as _byref
from ctypes import c_char_p as _c_char_p
from ctypes import c_int as _c_int
from ctypes import c_int32 as _c_int32
from ctypes import c_int64 as _c_int64
from ctypes import c_size_t as _c_size_t
from ctypes import c_uint64 as _c_uint64
from ctypes import create_string_buffer as _create_string_buffer
from ctypes import POINTER as _POINTER

from . import _lib
from ._parse import api as _api_for
from ._parse import drop_unavailable as _drop_unavailable

__version__ = "0.1.0"

_c = _lib.api


def _api(fmt, *c_functions):
    return _api_for("acl", fmt, _lib.has(*c_functions))


def _text(raw):
    """A C string result as str; NULL stays None, as pyACL's "s" builds it."""
    return None if raw is None else raw.decode("utf-8", "replace")


# ---- initialisation and versions ------------------------------------------------

@_api("|s", "aclInit")
def init(config_path=None, /):
    """ret = acl.init([config_path]): initialise, optionally from a JSON file."""
    return _c.aclInit(config_path)


@_api(None, "aclFinalize")
def finalize():
    """ret = acl.finalize(): release everything, whatever the number of init calls."""
    return _c.aclFinalize()


@_api(None, "aclFinalizeReference")
def finalize_reference():
    """ref_count, ret = acl.finalize_reference(): counted finalize."""
    count = _c_uint64()
    ret = _c.aclFinalizeReference(_byref(count))
    return count.value, ret


@_api(None, "aclrtGetVersion")
def get_version():
    """major, minor, patch, ret = acl.get_version()"""
    major, minor, patch = _c_int32(), _c_int32(), _c_int32()
    ret = _c.aclrtGetVersion(_byref(major), _byref(minor), _byref(patch))
    return major.value, minor.value, patch.value, ret


@_api("I", "aclsysGetCANNVersion")
def get_cann_version(pkg_name, /):
    """version_dict, ret = acl.get_cann_version(pkg_name)"""
    version = _lib.aclCANNPackageVersion()
    ret = _c.aclsysGetCANNVersion(pkg_name, _byref(version))
    fields = (("version", "version"), ("major_version", "majorVersion"),
              ("minor_version", "minorVersion"), ("release_version", "releaseVersion"),
              ("patch_version", "patchVersion"), ("reserved", "reserved"))
    return {key: _text(getattr(version, field)) for key, field in fields}, ret


@_api("s", "aclsysGetVersionStr")
def get_version_str(pkg_name, /):
    """version_str, ret = acl.get_version_str(pkg_name)"""
    buffer = _create_string_buffer(_lib.ACL_PKG_VERSION_MAX_SIZE)
    ret = _c.aclsysGetVersionStr(pkg_name, buffer)
    return _text(buffer.value), ret


@_api(None, "aclGetCannAttributeList")
def get_cann_attribute_list():
    """attr_list, num, ret = acl.get_cann_attribute_list()"""
    attrs = _POINTER(_c_int)()
    num = _c_size_t()
    ret = _c.aclGetCannAttributeList(_byref(attrs), _byref(num))
    values = [attrs[i] for i in range(num.value)] if ret == 0 and attrs else []
    return values, num.value, ret


@_api("i", "aclGetCannAttribute")
def get_cann_attribute(attr, /):
    """value, ret = acl.get_cann_attribute(attr)"""
    value = _c_int32()
    ret = _c.aclGetCannAttribute(attr, _byref(value))
    return value.value, ret


@_api("Ii", "aclGetDeviceCapability")
def get_device_capability(device_id, info, /):
    """value, ret = acl.get_device_capability(device_id, info)"""
    value = _c_int64()
    ret = _c.aclGetDeviceCapability(device_id, info, _byref(value))
    return value.value, ret


# ---- error text and logging ---------------------------------------------------------

@_api(None, "aclrtGetSocName")
def get_soc_name():
    """name = acl.get_soc_name(): str, or None when the library cannot tell."""
    return _text(_c.aclrtGetSocName())


@_api(None, "aclGetRecentErrMsg")
def get_recent_err_msg():
    """msg = acl.get_recent_err_msg(): pending error text of this thread (then cleared), or None."""
    return _text(_c.aclGetRecentErrMsg())


@_api("is", "aclAppLog")
def app_log(level, msg, /):
    """acl.app_log(level, msg): one application log line, tagged with the Python caller."""
    # Called through the argument-checking wrapper, so the user's frame is two up.
    caller = _sys._getframe(2)
    _c.aclAppLog(level, caller.f_code.co_name.encode("utf-8", "replace"),
                 caller.f_code.co_filename.encode("utf-8", "replace"), caller.f_lineno,
                 b"%s", _c_char_p(msg))


# ---- data types and buffers -------------------------------------------------------------

@_api("H", "aclFloat16ToFloat")
def float16_to_float(value, /):
    """f = acl.float16_to_float(u16): IEEE half bits to float."""
    return _c.aclFloat16ToFloat(value)


@_api("f", "aclFloatToFloat16")
def float_to_float16(value, /):
    """u16 = acl.float_to_float16(f): float to IEEE half bits."""
    return _c.aclFloatToFloat16(value)


@_api("i", "aclDataTypeSize")
def data_type_size(data_type, /):
    """size = acl.data_type_size(dtype): bytes per element of an aclDataType (0 if none)."""
    return _c.aclDataTypeSize(data_type)


@_api("kk", "aclCreateDataBuffer")
def create_data_buffer(data, size, /):
    """buffer = acl.create_data_buffer(ptr, size): a descriptor (0 on failure)."""
    return _c.aclCreateDataBuffer(data, size) or 0


@_api("k", "aclDestroyDataBuffer")
def destroy_data_buffer(data_buffer, /):
    """ret = acl.destroy_data_buffer(buffer): frees the descriptor, not the memory."""
    return _c.aclDestroyDataBuffer(data_buffer)


@_api("kkk", "aclUpdateDataBuffer")
def update_data_buffer(data_buffer, data, size, /):
    """ret = acl.update_data_buffer(buffer, ptr, size)"""
    return _c.aclUpdateDataBuffer(data_buffer, data, size)


@_api("k", "aclGetDataBufferAddr")
def get_data_buffer_addr(data_buffer, /):
    """ptr = acl.get_data_buffer_addr(buffer)"""
    return _c.aclGetDataBufferAddr(data_buffer) or 0


@_api("k", "aclGetDataBufferSize")
def get_data_buffer_size(data_buffer, /):
    """size = acl.get_data_buffer_size(buffer) (deprecated: use get_data_buffer_size_v2)"""
    return _c.aclGetDataBufferSize(data_buffer)


@_api("k", "aclGetDataBufferSizeV2")
def get_data_buffer_size_v2(data_buffer, /):
    """size = acl.get_data_buffer_size_v2(buffer)"""
    return _c.aclGetDataBufferSizeV2(data_buffer)


_drop_unavailable(globals())

from . import rt  # noqa: E402  (submodules use the loaded library above)
from . import mdl  # noqa: E402
from . import util  # noqa: E402
from . import media  # noqa: E402
from . import prof  # noqa: E402
from . import tdt  # noqa: E402
