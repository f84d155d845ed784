#!/usr/bin/env python3
"""Runtime resources: device, context, stream, run mode; released in reverse order."""
import sys

import acl

ACL_SUCCESS = 0
ACL_DEVICE = 0
ACL_HOST = 1
DEVICE_ID = 0


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    check(acl.init(), "acl.init")
    count, ret = acl.rt.get_device_count()
    check(ret, "acl.rt.get_device_count (%d devices)" % count)

    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device(%d)" % DEVICE_ID)
    default_context, ret = acl.rt.get_context()
    check(ret, "acl.rt.get_context (default context)")

    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    current, ret = acl.rt.get_context()
    check(ret, "acl.rt.get_context")
    if current != context or context == default_context:
        raise RuntimeError("the new context is not current")
    device, ret = acl.rt.get_device()
    check(ret, "acl.rt.get_device (device %d)" % device)

    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    run_mode, ret = acl.rt.get_run_mode()
    check(ret, "acl.rt.get_run_mode")
    print("run mode: %s" % {ACL_DEVICE: "ACL_DEVICE", ACL_HOST: "ACL_HOST"}.get(run_mode, run_mode))
    if run_mode == ACL_HOST:
        print("the application runs on the host: transfers go through host buffers")

    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
