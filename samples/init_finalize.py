#!/usr/bin/env python3
"""Initialise and finalise pyACL, with and without a JSON configuration file."""
import json
import os
import sys
import tempfile

import acl

ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def main():
    with tempfile.TemporaryDirectory() as workdir:
        config_path = os.path.join(workdir, "acl.json")
        with open(config_path, "w") as config:
            json.dump({"err_msg_mode": "0"}, config)
        check(acl.init(config_path), "acl.init(%r)" % os.path.basename(config_path))

    major, minor, patch, ret = acl.get_version()
    check(ret, "acl.get_version")
    print("ACL version %d.%d.%d, SoC %s" % (major, minor, patch, acl.get_soc_name()))

    # A second init is reported and may be ignored, as the documentation says.
    ret = acl.init()
    if ret not in (ACL_SUCCESS, ACL_ERROR_REPEAT_INITIALIZE):
        raise RuntimeError("second acl.init returned %d" % ret)
    print("second acl.init: ret=%d (repeat initialisation)" % ret)
    acl.get_recent_err_msg()

    check(acl.finalize(), "acl.finalize")

    # init -> finalize -> init is allowed; the counted variant closes this round.
    check(acl.init(), "acl.init() again")
    ref_count, ret = acl.finalize_reference()
    check(ret, "acl.finalize_reference")
    if ref_count != 0:
        raise RuntimeError("reference count after the last finalize_reference is %d" % ref_count)
    print("reference count after finalize_reference: %d" % ref_count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
