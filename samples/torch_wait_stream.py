#!/usr/bin/env python3
"""torch on ACL streams: the three torch.cuda.Stream.wait_stream examples of
PyTorch's documentation, with both streams created by acl.rt.create_stream
and handed to torch through acl.cuda.torch_stream. The second stream waits
for the first with torch's own wait_stream; each example prints its result,
which is the documentation's.

Needs torch with CUDA and acl-cuda's cuda backend; elsewhere it says why it
skipped and exits 0."""
import sys

import acl

ACL_SUCCESS = 0
DEVICE_ID = 0


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what)


def torch_or_none():
    """torch, or None after saying why this sample cannot run here."""
    try:
        import torch
    except ImportError:
        print("skipped (no torch)")
        return None
    import acl.cuda
    if acl.cuda.backend() != "cuda":
        print("skipped (acl-cuda runs on its %s backend: no CUDA streams)" % acl.cuda.backend())
        return None
    if not torch.cuda.is_available():
        print("skipped (torch sees no GPU)")
        return None
    return torch


def two_streams_then_sum(torch, s1, s2):
    """Two results on the first stream, summed on the second."""
    t = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device="cuda")
    with torch.cuda.stream(s1):
        t1 = t * 2
        t2 = t + 10
    s2.wait_stream(s1)
    with torch.cuda.stream(s2):
        return t1 + t2


def multiply_then_add(torch, s1, s2):
    t = torch.tensor([1, 2, 3, 4, 5], device="cuda")
    with torch.cuda.stream(s1):
        tripled = t * 3
    s2.wait_stream(s1)
    with torch.cuda.stream(s2):
        return tripled + 5


def matrix_double_then_increment(torch, s1, s2):
    t = torch.tensor([[1, 2, 3], [4, 5, 6]], device="cuda")
    with torch.cuda.stream(s1):
        doubled = t * 2
    s2.wait_stream(s1)
    with torch.cuda.stream(s2):
        return doubled + 1


def main():
    torch = torch_or_none()
    if torch is None:
        return 0
    import acl.cuda

    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    first, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (s1)")
    second, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (s2)")
    s1, s2 = acl.cuda.torch_stream(first), acl.cuda.torch_stream(second)
    print("torch streams on the ACL streams: ok")

    for example in (two_streams_then_sum, multiply_then_add, matrix_double_then_increment):
        result = example(torch, s1, s2)
        check(acl.rt.synchronize_stream(second), "%s: acl.rt.synchronize_stream (s2)" % example.__name__)
        print(result)
        del result

    torch.cuda.synchronize()
    check(acl.rt.destroy_stream(second), "acl.rt.destroy_stream (s2)")
    check(acl.rt.destroy_stream(first), "acl.rt.destroy_stream (s1)")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
