"""acl.media memory: device memory for media data (acldvppMalloc)."""

from ctypes import byref as _byref

from .. import _lib
from .._module import exported as _exported
from .._parse import api as _api_for
from .._rt.common import handle_out as _handle_out
from .._rt.memory import _malloc_config

_c = _lib.api


def _api(fmt, *c_functions):
    return _api_for("acl.media", fmt, _lib.has(*c_functions), "{name} args parse failed!")


@_api("k", "acldvppMalloc")
def dvpp_malloc(size, /):
    """dev_ptr, ret = acl.media.dvpp_malloc(size)"""
    return _handle_out(_c.acldvppMalloc, size)


@_api("kiO", "acldvppMallocWithCfg")
def dvpp_malloc_with_cfg(size, policy, cfg, /):
    """dev_ptr, ret = acl.media.dvpp_malloc_with_cfg(size, policy, cfg_dict)

    cfg_dict as for acl.rt.malloc_with_cfg ({} for none)."""
    config, _keep = _malloc_config(cfg)
    return _handle_out(_c.acldvppMallocWithCfg, size, policy, _byref(config) if config else None)


@_api("k", "acldvppFree")
def dvpp_free(dev_ptr, /):
    """ret = acl.media.dvpp_free(dev_ptr)"""
    return _c.acldvppFree(dev_ptr)


__all__ = _exported(globals())
