#!/usr/bin/env python3
"""Callbacks on a report thread made with acl.util.start_thread, following the
asynchronous ResNet-50 sample: the thread sets the context and loops on
process_report; callbacks launched with block type 1 copy results back to
the host with malloc_host + memcpy while the main thread waits in
synchronize_stream."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_CALLBACK_BLOCK = 1
DEVICE_ID = 0
SIZE = 64 * 1024
BATCHES = 4
REPORT_TIMEOUT_MS = 50


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


class Sample:
    def __init__(self):
        self.exit_flag = False
        self.results = []
        self.context = None
        self.stream = None

    def report_loop(self, args_list):
        context, timeout_ms = args_list
        ret = acl.rt.set_context(context)
        if ret != ACL_SUCCESS:
            raise RuntimeError("set_context in the report thread failed, ret=%d" % ret)
        while not self.exit_flag:
            # Timeouts are expected while no callback is due.
            acl.rt.process_report(timeout_ms)

    def on_batch_done(self, user_data):
        device, batch = user_data
        host, ret = acl.rt.malloc_host(SIZE)
        if ret != ACL_SUCCESS:
            raise RuntimeError("malloc_host in the callback failed, ret=%d" % ret)
        ret = acl.rt.memcpy(host, SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST)
        if ret != ACL_SUCCESS:
            raise RuntimeError("memcpy in the callback failed, ret=%d" % ret)
        self.results.append((batch, acl.util.ptr_to_bytes(host, SIZE)))
        acl.rt.free_host(host)

    def run(self):
        check(acl.init(), "acl.init")
        check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
        self.context, ret = acl.rt.create_context(DEVICE_ID)
        check(ret, "acl.rt.create_context")
        self.stream, ret = acl.rt.create_stream()
        check(ret, "acl.rt.create_stream")

        thread_id, ret = acl.util.start_thread(self.report_loop, [self.context, REPORT_TIMEOUT_MS])
        check(ret, "acl.util.start_thread (thread id %d)" % thread_id)
        check(acl.rt.subscribe_report(thread_id, self.stream), "acl.rt.subscribe_report")

        host_inputs = []
        devices = []
        for batch in range(BATCHES):
            host, ret = acl.rt.malloc_host(SIZE)
            check(ret, "batch %d: acl.rt.malloc_host" % batch)
            device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
            check(ret, "batch %d: acl.rt.malloc" % batch)
            check(acl.rt.memset(host, SIZE, batch + 0x41, SIZE), "batch %d: fill input" % batch)
            check(acl.rt.memcpy_async(device, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, self.stream),
                  "batch %d: acl.rt.memcpy_async" % batch)
            check(acl.rt.launch_callback(self.on_batch_done, [device, batch], ACL_CALLBACK_BLOCK, self.stream),
                  "batch %d: acl.rt.launch_callback" % batch)
            host_inputs.append(host)
            devices.append(device)

        check(acl.rt.synchronize_stream(self.stream), "acl.rt.synchronize_stream")
        check(acl.rt.unsubscribe_report(thread_id, self.stream), "acl.rt.unsubscribe_report")
        self.exit_flag = True
        check(acl.util.stop_thread(thread_id), "acl.util.stop_thread")

        if [batch for batch, _ in self.results] != list(range(BATCHES)):
            raise RuntimeError("callbacks ran for batches %r" % [b for b, _ in self.results])
        for batch, data in self.results:
            if data != bytes([batch + 0x41]) * SIZE:
                raise RuntimeError("batch %d: the callback read wrong data" % batch)
        print("%d callbacks ran in order on the report thread and read the right data" % BATCHES)

        for host, device in zip(host_inputs, devices):
            check(acl.rt.free(device), "acl.rt.free")
            check(acl.rt.free_host(host), "acl.rt.free_host")
        check(acl.rt.destroy_stream(self.stream), "acl.rt.destroy_stream")
        check(acl.rt.destroy_context(self.context), "acl.rt.destroy_context")
        check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
        check(acl.finalize(), "acl.finalize")
        return 0


if __name__ == "__main__":
    sys.exit(Sample().run())
