"""acl-cuda's own answers where it goes past pyACL's documentation: its
stubs report ACL_ERROR_RT_FEATURE_NOT_SUPPORT with the function's name, and
an allocation policy outside aclrtMemMallocPolicy is refused (the API
reference says CANN treats one as a size-based choice)."""
import pytest

import acl

ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000


def test_stubs_answer_feature_not_supported(context):
    if not hasattr(acl.rt, "get_devices_topo"):
        pytest.skip("the library does not export aclrtGetDevicesTopo")
    value, ret = acl.rt.get_devices_topo(0, 0)
    assert ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "aclrtGetDevicesTopo" in acl.get_recent_err_msg()


def test_unknown_malloc_policy_is_refused(context):
    ptr, ret = acl.rt.malloc(64, 0x7777)
    assert ptr == 0 and ret != 0
