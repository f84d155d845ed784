"""acl.rt's notify and value wrappers: pyACL's argument checks and texts
(rt/rt_notify.cpp, rt/rt_memory.cpp), and a round trip through the C
functions: a record on one stream releases a wait on another, a value
write releases a value wait."""
import os

import pytest

import acl


def test_wait_timeout_must_fit_uint32(context, stream):
    notify, ret = acl.rt.create_notify(0)
    assert ret == 0
    try:
        with pytest.raises(TypeError, match="^timeout can't be a negative number!$"):
            acl.rt.wait_and_reset_notify(notify, stream, -1)
        with pytest.raises(TypeError, match=r"^timeout should be less than 2\*\*32!$"):
            acl.rt.wait_and_reset_notify(notify, stream, 1 << 32)
        with pytest.raises(TypeError, match="^acl.rt.wait_and_reset_notify args parse failed$"):
            acl.rt.wait_and_reset_notify(notify, stream, 1.5)
    finally:
        assert acl.rt.destroy_notify(notify) == 0


def test_list_arguments(context):
    notify, ret = acl.rt.create_notify(0)
    assert ret == 0
    try:
        with pytest.raises(ValueError, match="^argument only support the format of list$"):
            acl.rt.notify_batch_reset((notify,))
        with pytest.raises(ValueError, match="^get notify pointers from PyList failed$"):
            acl.rt.notify_batch_reset([notify, "x"])
        with pytest.raises(ValueError, match="^argument 2 only support the format of list$"):
            acl.rt.notify_set_import_pid(notify, os.getpid())
        with pytest.raises(ValueError, match="^get values from PyList failed$"):
            acl.rt.notify_set_import_pid(notify, [1 << 40])
        with pytest.raises(ValueError, match="^key len should be less than 1024$"):
            acl.rt.notify_get_export_key(notify, 1024, 0)
        assert acl.rt.notify_batch_reset([notify]) == 0
        assert acl.rt.notify_batch_reset([]) != 0  # ACL refuses an empty list
    finally:
        assert acl.rt.destroy_notify(notify) == 0


def test_record_releases_wait_and_key_round_trip(context, stream):
    other, ret = acl.rt.create_stream()
    assert ret == 0
    notify, ret = acl.rt.create_notify(0)
    assert ret == 0
    word, ret = acl.rt.malloc(8, 0)
    assert ret == 0
    try:
        key, ret = acl.rt.notify_get_export_key(notify, 65, 0)
        assert ret == 0 and key.startswith("aclnotify-")
        assert acl.rt.notify_set_import_pid(notify, [os.getpid()]) == 0
        imported, ret = acl.rt.notify_import_by_key(key, 0)
        assert ret == 0 and imported
        assert acl.rt.wait_and_reset_notify(notify, stream, 0) == 0
        assert acl.rt.value_write(word, 5, 0, stream) == 0
        assert acl.rt.record_notify(imported, other) == 0
        assert acl.rt.value_wait(word, 5, 1, other) == 0
        assert acl.rt.synchronize_stream(other) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        notify_id, ret = acl.rt.get_notify_id(notify)
        assert ret == 0 and notify_id >= 0
        assert acl.rt.destroy_notify(imported) == 0
    finally:
        assert acl.rt.free(word) == 0
        assert acl.rt.destroy_notify(notify) == 0
        assert acl.rt.destroy_stream(other) == 0
