#!/usr/bin/env python3
"""A tensor crosses a TDT channel and a message crosses a shared queue
(acl.tdt, pyACL's call forms): the producer thread sends three float32
tensors, the consumer receives them and prints their shapes and sums; then
the same bytes go through a queue of depth 2 and come back with their user
data. Runs on either backend."""
import ctypes
import sys
import threading

import acl

ACL_TENSOR_DATA_TENSOR = 0
ACL_FLOAT = 0
ACL_TDT_QUEUE_DEPTH_UINT32 = 1


def check(ret, what):
    if ret != 0:
        sys.exit("%s failed: %d (%s)" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def produce(channel, count):
    for n in range(count):
        values = (ctypes.c_float * 6)(*(float(n + i) for i in range(6)))
        item = acl.tdt.create_data_item(ACL_TENSOR_DATA_TENSOR, [2, 3], ACL_FLOAT,
                                        ctypes.addressof(values), ctypes.sizeof(values))
        dataset = acl.tdt.create_dataset()
        check(acl.tdt.add_data_item(dataset, item), "add_data_item")
        check(acl.tdt.send_tensor(channel, dataset, -1), "send_tensor")
        acl.tdt.destroy_dataset(dataset)
        acl.tdt.destroy_data_item(item)


def main():
    check(acl.init(), "init")
    check(acl.rt.set_device(0), "set_device")
    channel = acl.tdt.create_channel_with_capacity(0, "sample-channel", 2)
    if channel == 0:
        sys.exit("create_channel failed: %s" % acl.get_recent_err_msg())
    producer = threading.Thread(target=produce, args=(channel, 3))
    producer.start()
    for _ in range(3):
        dataset = acl.tdt.create_dataset()
        check(acl.tdt.receive_tensor(channel, dataset, 10000), "receive_tensor")
        item = acl.tdt.get_data_item(dataset, 0)
        dims, ret = acl.tdt.get_dims_from_item(item)
        values = (ctypes.c_float * 6).from_address(acl.tdt.get_data_addr_from_item(item))
        print("received a tensor of shape %s, sum %.1f" % (dims, sum(values)))
        acl.tdt.destroy_dataset(dataset)
    producer.join()
    check(acl.tdt.stop_channel(channel), "stop_channel")
    check(acl.tdt.destroy_channel(channel), "destroy_channel")

    attr = acl.tdt.create_queue_attr()
    depth = ctypes.c_uint32(2)
    check(acl.tdt.set_queue_attr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, ctypes.addressof(depth)),
          "set_queue_attr")
    qid, ret = acl.tdt.create_queue(attr)
    check(ret, "create_queue")
    acl.tdt.destroy_queue_attr(attr)
    message = ctypes.create_string_buffer(b"one message through a queue")
    tag = ctypes.c_uint32(7)
    check(acl.tdt.enqueue_data(qid, ctypes.addressof(message), len(message.value),
                               ctypes.addressof(tag), 4, 0, 0), "enqueue_data")
    out, got = ctypes.create_string_buffer(64), ctypes.c_uint32()
    size, ret = acl.tdt.dequeue_data(qid, ctypes.addressof(out), 64, ctypes.addressof(got), 4, 0)
    check(ret, "dequeue_data")
    print("queue %u gave back %r (user data %d)" % (qid, out.raw[:size].decode(), got.value))
    check(acl.tdt.destroy_queue(qid), "destroy_queue")
    check(acl.rt.reset_device(0), "reset_device")
    check(acl.finalize(), "finalize")


if __name__ == "__main__":
    main()
