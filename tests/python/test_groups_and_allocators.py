"""acl.rt.cmo_async and the core group functions (pyACL's rt/rt_memory.cpp,
rt_group.cpp): their result shapes and pyACL's texts."""
import pytest

import acl

ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_GROUP_NOT_CREATE = 100041
CMO_TYPES = (0, 1, 2, 3)  # prefetch, write-back, invalidate, flush


def _parse_error(name, call, bang=""):
    with pytest.raises(TypeError) as raised:
        call()
    assert str(raised.value) == "acl.rt.%s args parse failed%s" % (name, bang)


# ---- cache maintenance -----------------------------------------------------------

def test_cmo_async_returns_ret_alone(stream, device_memory):
    ptr, size = device_memory
    for cmo_type in CMO_TYPES:
        ret = acl.rt.cmo_async(ptr, size, cmo_type, stream)
        assert type(ret) is int and ret == 0, cmo_type
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.cmo_async(ptr, size, 1, 0) == 0  # the default stream
    assert acl.rt.cmo_async(0, size, 0, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.cmo_async(ptr, 0, 0, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.cmo_async(ptr, size, 7, stream) != 0


def test_cmo_async_parse_failures_end_with_a_bang(context):
    _parse_error("cmo_async", lambda: acl.rt.cmo_async(0, 0, "0", 0), "!")
    _parse_error("cmo_async", lambda: acl.rt.cmo_async(0, 0, 1 << 31, 0), "!")
    _parse_error("cmo_async", lambda: acl.rt.cmo_async(0, 0, 0), "!")


# ---- core groups -------------------------------------------------------------------

def test_get_group_count_takes_one_ignored_argument_or_none(context):
    assert acl.rt.get_group_count(0) == (1, 0)  # pyACL's form
    assert acl.rt.get_group_count(12345) == (1, 0)
    assert acl.rt.get_group_count(-1) == (1, 0)  # "I" masks, as PyArg_ParseTuple does
    assert acl.rt.get_group_count() == (1, 0)
    _parse_error("get_group_count", lambda: acl.rt.get_group_count("0"))
    _parse_error("get_group_count", lambda: acl.rt.get_group_count(0, 0))


def test_set_group_takes_the_one_group(context):
    assert acl.rt.set_group(0) == 0
    assert acl.rt.set_group(1) == ACL_ERROR_GROUP_NOT_CREATE
    assert acl.rt.set_group((1 << 32) + 1) == ACL_ERROR_GROUP_NOT_CREATE  # masked to 1
    _parse_error("set_group", lambda: acl.rt.set_group(None))
    _parse_error("set_group", lambda: acl.rt.set_group(1.0))


def test_group_info_handle_alone_then_ret(context):
    info = acl.rt.create_group_info()
    assert type(info) is int and info != 0  # no ret
    assert acl.rt.get_all_group_info(info) == 0
    assert acl.rt.destroy_group_info(info) == 0
    assert acl.rt.destroy_group_info(info) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_all_group_info(0) == ACL_ERROR_INVALID_PARAM
    _parse_error("destroy_group_info", lambda: acl.rt.destroy_group_info("x"))
    _parse_error("get_all_group_info", lambda: acl.rt.get_all_group_info(None))

