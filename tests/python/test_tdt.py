"""acl.tdt: pyACL-style wrappers of acl_tdt.h and acl_tdt_queue.h. A
dataset crosses a channel; bytes and user data cross a queue; full and
empty queues give their codes; bad arguments raise pyACL's parse error."""
import ctypes

import pytest

import acl

ACL_TENSOR_DATA_TENSOR = 0
ACL_FLOAT = 0
ACL_ERROR_RT_QUEUE_FULL = 207014
ACL_ERROR_RT_QUEUE_EMPTY = 207013
ACL_ERROR_INVALID_QUEUE_ID = 100032
ACL_TDT_QUEUE_DEPTH_UINT32 = 1


def test_channel_round_trip(context):
    handle = acl.tdt.create_channel_with_capacity(0, "pytest-channel", 4)
    assert handle != 0
    values = (ctypes.c_float * 6)(*range(6))
    item = acl.tdt.create_data_item(ACL_TENSOR_DATA_TENSOR, [2, 3], ACL_FLOAT,
                                    ctypes.addressof(values), ctypes.sizeof(values))
    sent, received = acl.tdt.create_dataset(), acl.tdt.create_dataset()
    try:
        assert acl.tdt.add_data_item(sent, item) == 0
        assert acl.tdt.send_tensor(handle, sent, 1000) == 0
        assert acl.tdt.query_channel_size(handle) == (1, 0)
        assert acl.tdt.receive_tensor(handle, received, 1000) == 0
        assert acl.tdt.get_dataset_size(received) == 1
        got = acl.tdt.get_data_item(received, 0)
        assert acl.tdt.get_dims_from_item(got) == ([2, 3], 0)
        assert acl.tdt.get_data_size_from_item(got) == ctypes.sizeof(values)
        out = (ctypes.c_float * 6).from_address(acl.tdt.get_data_addr_from_item(got))
        assert list(out) == list(values)
    finally:
        assert acl.tdt.destroy_dataset(sent) == 0
        assert acl.tdt.destroy_dataset(received) == 0
        assert acl.tdt.destroy_data_item(item) == 0
        assert acl.tdt.stop_channel(handle) == 0
        assert acl.tdt.destroy_channel(handle) == 0


def test_queue_round_trip_full_and_empty(context):
    attr = acl.tdt.create_queue_attr()
    depth = ctypes.c_uint32(2)
    assert acl.tdt.set_queue_attr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, ctypes.addressof(depth)) == 0
    qid, ret = acl.tdt.create_queue(attr)
    assert ret == 0 and qid != 0
    assert acl.tdt.destroy_queue_attr(attr) == 0
    try:
        data = ctypes.create_string_buffer(b"hello queue")
        user = ctypes.c_uint32(42)
        for _ in range(2):
            assert acl.tdt.enqueue_data(qid, ctypes.addressof(data), 11, ctypes.addressof(user),
                                        4, 0, 0) == 0
        assert acl.tdt.enqueue_data(qid, ctypes.addressof(data), 11, 0, 0, 0, 0) == \
            ACL_ERROR_RT_QUEUE_FULL
        out = ctypes.create_string_buffer(64)
        got_user = ctypes.c_uint32()
        for _ in range(2):
            size, ret = acl.tdt.dequeue_data(qid, ctypes.addressof(out), 64,
                                             ctypes.addressof(got_user), 4, 0)
            assert (size, ret) == (11, 0)
            assert out.raw[:11] == b"hello queue" and got_user.value == 42
        assert acl.tdt.dequeue_data(qid, ctypes.addressof(out), 64, 0, 0, 0)[1] == \
            ACL_ERROR_RT_QUEUE_EMPTY
        buf, ret = acl.tdt.alloc_buf(16, 0)
        assert ret == 0
        ptr, size, ret = acl.tdt.get_buf_data(buf)
        ctypes.memmove(ptr, b"buffer", 6)
        assert acl.tdt.set_buf_data_len(buf, 6) == 0
        assert acl.tdt.enqueue(qid, buf, 0) == 0
        back, ret = acl.tdt.dequeue(qid, 0)
        assert ret == 0
        assert acl.tdt.get_buf_data_len(back) == (6, 0)
        ptr, _, _ = acl.tdt.get_buf_data(back)
        assert ctypes.string_at(ptr, 6) == b"buffer"
        assert acl.tdt.free_buf(back) == 0
    finally:
        assert acl.tdt.destroy_queue(qid) == 0
    assert acl.tdt.destroy_queue(qid) == ACL_ERROR_INVALID_QUEUE_ID


def test_routes(context):
    a, ret = acl.tdt.create_queue(0)
    b, ret = acl.tdt.create_queue(0)
    routes = acl.tdt.create_queue_route_list()
    route = acl.tdt.create_queue_route(a, b)
    assert acl.tdt.add_queue_route(routes, route) == 0
    assert acl.tdt.get_queue_route_num(routes) == 1
    assert acl.tdt.bind_queue_routes(routes) == 0
    data = ctypes.create_string_buffer(b"routed")
    assert acl.tdt.enqueue_data(a, ctypes.addressof(data), 6, 0, 0, 0, 0) == 0
    out = ctypes.create_string_buffer(16)
    assert acl.tdt.dequeue_data(b, ctypes.addressof(out), 16, 0, 0, 20000) == (6, 0)
    assert out.raw[:6] == b"routed"
    assert acl.tdt.unbind_queue_routes(routes) == 0
    assert acl.tdt.destroy_queue_route(route) == 0
    assert acl.tdt.destroy_queue_route_list(routes) == 0
    assert acl.tdt.destroy_queue(a) == 0
    assert acl.tdt.destroy_queue(b) == 0


def test_argument_parsing(context):
    with pytest.raises(TypeError, match="^acl.tdt.create_channel args parse failed$"):
        acl.tdt.create_channel(0, 5)
    with pytest.raises(TypeError, match="^acl.tdt.enqueue_data args parse failed$"):
        acl.tdt.enqueue_data(1, 0, 0, 0, 0, 1.5, 0)
    with pytest.raises(ValueError, match="^argument only support the format of list$"):
        acl.tdt.create_data_item(0, (1, 2), 0, 0, 0)
