#!/usr/bin/env python3
"""Callbacks on a report thread made with threading.Thread: its ident is the
pthread id subscribe_report wants. Callbacks launched with block type 1
(the later copy waits for them) and 0 run on that thread while the main
thread waits in synchronize_stream."""
import sys
import threading

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1
DEVICE_ID = 0
SIZE = 4096
REPORT_TIMEOUT_MS = 50


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    stop = threading.Event()
    ran_on = []

    def report_loop():
        acl.rt.set_context(context)
        while not stop.is_set():
            acl.rt.process_report(REPORT_TIMEOUT_MS)

    thread = threading.Thread(target=report_loop, name="report")
    thread.start()
    check(acl.rt.subscribe_report(thread.ident, stream), "acl.rt.subscribe_report(thread.ident)")

    host, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")
    device, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    check(acl.rt.memset(host, SIZE, 1, SIZE), "fill host")

    def rewrite_host(user_data):
        # Runs between the two copies: the second copy must see this fill.
        ran_on.append(threading.get_ident())
        acl.rt.memset(user_data["host"], SIZE, user_data["value"], SIZE)

    def note(user_data):
        ran_on.append(threading.get_ident())
        user_data.append("done")
        note_ran.set()

    check(acl.rt.memcpy_async(device, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream), "copy 1")
    check(acl.rt.launch_callback(rewrite_host, {"host": host, "value": 9}, ACL_CALLBACK_BLOCK, stream),
          "acl.rt.launch_callback (block)")
    check(acl.rt.memcpy_async(device, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream), "copy 2")
    marker = []
    note_ran = threading.Event()
    check(acl.rt.launch_callback(note, marker, ACL_CALLBACK_NO_BLOCK, stream), "acl.rt.launch_callback (no block)")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    # A non-blocking callback need not have finished when the stream has.
    if not note_ran.wait(30):
        raise RuntimeError("the non-blocking callback never ran")

    check(acl.rt.unsubscribe_report(thread.ident, stream), "acl.rt.unsubscribe_report")
    stop.set()
    thread.join()

    result = bytes(SIZE)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(result), SIZE, device, SIZE, ACL_MEMCPY_DEVICE_TO_HOST),
          "read back")
    if result != b"\x09" * SIZE:
        raise RuntimeError("the blocking callback did not run before the second copy")
    if ran_on != [thread.ident, thread.ident]:
        raise RuntimeError("callbacks ran on %r, not on the report thread %d" % (ran_on, thread.ident))
    if marker != ["done"]:
        raise RuntimeError("the non-blocking callback got %r" % marker)
    print("both callbacks ran on the report thread, in stream order")

    check(acl.rt.free(device), "acl.rt.free")
    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
