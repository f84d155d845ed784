"""acl-cuda's own answers where it goes past pyACL's documentation: its
stubs report ACL_ERROR_RT_FEATURE_NOT_SUPPORT with the function's name, and
an allocation policy outside aclrtMemMallocPolicy is refused (the API
reference says CANN treats one as a size-based choice)."""
import pytest

import acl

ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000


# Wrappers of functions that may still be stubs, with the C function each
# calls: the first that is a stub today is tried.
_STUB_CANDIDATES = (
    ("aclrtDeviceGetBareTgid", lambda: acl.rt.device_get_bare_tgid()),
    ("aclrtMallocForTaskScheduler", lambda: acl.rt.malloc_for_task_scheduler(64, 0, {})),
    ("aclrtHostUnregister", lambda: (None, acl.rt.host_unregister(0))),
)


def _stubs():
    import os
    import re
    root = os.environ.get("ACLCUDA_TEST_SRCDIR")
    if not root:
        return None
    with open(os.path.join(root, "src", "api", "api.def")) as table:
        return set(re.findall(r"^ACL_API\((\w+), \w+, \w+, UNSUPPORTED,", table.read(), re.M))


def test_stubs_answer_feature_not_supported(context):
    stubs = _stubs()
    if stubs is None:
        pytest.skip("no source tree (ACLCUDA_TEST_SRCDIR) to tell the stubs")
    for c_name, call in _STUB_CANDIDATES:
        if c_name in stubs and acl._lib.has(c_name):
            result = call()
            ret = result[-1] if isinstance(result, tuple) else result
            assert ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            assert c_name in acl.get_recent_err_msg()
            return
    pytest.skip("none of the candidates is a stub any more")


def test_unknown_malloc_policy_is_refused(context):
    ptr, ret = acl.rt.malloc(64, 0x7777)
    assert ptr == 0 and ret != 0
