"""acl-cuda's own answers where it goes past pyACL's documentation: a function
it refuses (no meaning on a GPU) reports ACL_ERROR_RT_FEATURE_NOT_SUPPORT
with the function's name and the reason, and an allocation policy outside
aclrtMemMallocPolicy is refused (the API reference says CANN treats one as a
size-based choice)."""
import acl

ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000


def test_refused_functions_say_which_and_why(context):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    try:
        assert acl.rt.reset_overflow_status(stream) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        message = acl.get_recent_err_msg()
        assert "aclrtResetOverflowStatus" in message and "overflow" in message.split(":", 1)[-1]
        buffer, ret = acl.rt.malloc(64, 0)
        assert ret == 0
        assert acl.rt.get_overflow_status(buffer, 64, stream) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert "aclrtGetOverflowStatus" in acl.get_recent_err_msg()
        assert acl.rt.free(buffer) == 0
        # Refusing queued nothing: the stream is as it was.
        assert acl.rt.synchronize_stream(stream) == 0
    finally:
        assert acl.rt.destroy_stream(stream) == 0


def test_unknown_malloc_policy_is_refused(context):
    ptr, ret = acl.rt.malloc(64, 0x7777)
    assert ptr == 0 and ret != 0
