"""acl.tdt queues, their attributes, routes and shared buffers
(acl_tdt_queue.h). Queue ids, pids and permissions are ints; pointers are
ints (addresses); results as in acl.rt: ``ret`` or a tuple with ``ret`` last."""

import ctypes as _ctypes

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c


@_api("K", "acltdtCreateQueue")
def create_queue(attr, /):
    """qid, ret = acl.tdt.create_queue(attr): attr 0 for the defaults (depth 8)."""
    qid = _ctypes.c_uint32()
    ret = _c.acltdtCreateQueue(attr, _ctypes.byref(qid))
    return qid.value, ret


@_api("I", "acltdtDestroyQueue")
def destroy_queue(qid, /):
    """ret = acl.tdt.destroy_queue(qid)"""
    return _c.acltdtDestroyQueue(qid)


@_api("IKi", "acltdtEnqueue")
def enqueue(qid, buf, timeout, /):
    """ret = acl.tdt.enqueue(qid, buf, timeout): the queue takes buf on success."""
    return _c.acltdtEnqueue(qid, buf, timeout)


@_api("Ii", "acltdtDequeue")
def dequeue(qid, timeout, /):
    """buf, ret = acl.tdt.dequeue(qid, timeout)"""
    buf = _ctypes.c_void_p()
    ret = _c.acltdtDequeue(qid, _ctypes.byref(buf), timeout)
    return buf.value or 0, ret


@_api("IKKKKiI", "acltdtEnqueueData")
def enqueue_data(qid, data, data_size, user_data, user_data_size, timeout, rsv, /):
    """ret = acl.tdt.enqueue_data(qid, data_ptr, data_size, user_data_ptr,
    user_data_size, timeout, rsv)"""
    return _c.acltdtEnqueueData(qid, data, data_size, user_data, user_data_size, timeout, rsv)


@_api("IKKKKi", "acltdtDequeueData")
def dequeue_data(qid, data, data_size, user_data, user_data_size, timeout, /):
    """ret_data_size, ret = acl.tdt.dequeue_data(qid, data_ptr, data_size,
    user_data_ptr, user_data_size, timeout)"""
    size = _ctypes.c_size_t()
    ret = _c.acltdtDequeueData(qid, data, data_size, _ctypes.byref(size), user_data,
                               user_data_size, timeout)
    return size.value, ret


@_api("IiIi", "acltdtGrantQueue")
def grant_queue(qid, pid, permission, timeout, /):
    """ret = acl.tdt.grant_queue(qid, pid, permission, timeout)"""
    return _c.acltdtGrantQueue(qid, pid, permission, timeout)


@_api("Ii", "acltdtAttachQueue")
def attach_queue(qid, timeout, /):
    """permission, ret = acl.tdt.attach_queue(qid, timeout)"""
    permission = _ctypes.c_uint32()
    ret = _c.acltdtAttachQueue(qid, timeout, _ctypes.byref(permission))
    return permission.value, ret


@_api("K", "acltdtBindQueueRoutes")
def bind_queue_routes(route_list, /):
    """ret = acl.tdt.bind_queue_routes(route_list)"""
    return _c.acltdtBindQueueRoutes(route_list)


@_api("K", "acltdtUnbindQueueRoutes")
def unbind_queue_routes(route_list, /):
    """ret = acl.tdt.unbind_queue_routes(route_list)"""
    return _c.acltdtUnbindQueueRoutes(route_list)


@_api("KK", "acltdtQueryQueueRoutes")
def query_queue_routes(query_info, route_list, /):
    """ret = acl.tdt.query_queue_routes(query_info, route_list)"""
    return _c.acltdtQueryQueueRoutes(query_info, route_list)


@_api(None, "acltdtCreateQueueAttr")
def create_queue_attr():
    """attr = acl.tdt.create_queue_attr(): 0 on failure."""
    return _c.acltdtCreateQueueAttr() or 0


@_api("K", "acltdtDestroyQueueAttr")
def destroy_queue_attr(attr, /):
    """ret = acl.tdt.destroy_queue_attr(attr)"""
    return _c.acltdtDestroyQueueAttr(attr)


@_api("KiKK", "acltdtSetQueueAttr")
def set_queue_attr(attr, attr_type, length, param, /):
    """ret = acl.tdt.set_queue_attr(attr, type, len, param_ptr): param_ptr the
    address of the value (a uint32 depth, or a char * name)."""
    return _c.acltdtSetQueueAttr(attr, attr_type, length, param)


@_api("KI", "acltdtCreateQueueRoute")
def create_queue_route(src_id, dst_id, /):
    """route = acl.tdt.create_queue_route(src_id, dst_id)"""
    return _c.acltdtCreateQueueRoute(src_id, dst_id) or 0


@_api("K", "acltdtDestroyQueueRoute")
def destroy_queue_route(route, /):
    """ret = acl.tdt.destroy_queue_route(route)"""
    return _c.acltdtDestroyQueueRoute(route)


@_api(None, "acltdtCreateQueueRouteList")
def create_queue_route_list():
    """route_list = acl.tdt.create_queue_route_list()"""
    return _c.acltdtCreateQueueRouteList() or 0


@_api("K", "acltdtDestroyQueueRouteList")
def destroy_queue_route_list(route_list, /):
    """ret = acl.tdt.destroy_queue_route_list(route_list)"""
    return _c.acltdtDestroyQueueRouteList(route_list)


@_api("KK", "acltdtAddQueueRoute")
def add_queue_route(route_list, route, /):
    """ret = acl.tdt.add_queue_route(route_list, route)"""
    return _c.acltdtAddQueueRoute(route_list, route)


@_api("K", "acltdtGetQueueRouteNum")
def get_queue_route_num(route_list, /):
    """num = acl.tdt.get_queue_route_num(route_list)"""
    return _c.acltdtGetQueueRouteNum(route_list)


@_api("KI", "acltdtAllocBuf")
def alloc_buf(size, buf_type, /):
    """buf, ret = acl.tdt.alloc_buf(size, type)"""
    buf = _ctypes.c_void_p()
    ret = _c.acltdtAllocBuf(size, buf_type, _ctypes.byref(buf))
    return buf.value or 0, ret


@_api("K", "acltdtFreeBuf")
def free_buf(buf, /):
    """ret = acl.tdt.free_buf(buf)"""
    return _c.acltdtFreeBuf(buf)


@_api("K", "acltdtGetBufData")
def get_buf_data(buf, /):
    """data_ptr, size, ret = acl.tdt.get_buf_data(buf)"""
    data = _ctypes.c_void_p()
    size = _ctypes.c_size_t()
    ret = _c.acltdtGetBufData(buf, _ctypes.byref(data), _ctypes.byref(size))
    return data.value or 0, size.value, ret


@_api("KK", "acltdtSetBufDataLen")
def set_buf_data_len(buf, length, /):
    """ret = acl.tdt.set_buf_data_len(buf, len)"""
    return _c.acltdtSetBufDataLen(buf, length)


@_api("K", "acltdtGetBufDataLen")
def get_buf_data_len(buf, /):
    """len, ret = acl.tdt.get_buf_data_len(buf)"""
    length = _ctypes.c_size_t()
    ret = _c.acltdtGetBufDataLen(buf, _ctypes.byref(length))
    return length.value, ret


__all__ = _exported(globals())
