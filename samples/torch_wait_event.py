#!/usr/bin/env python3
"""torch on ACL streams, ordered by ACL: the three torch.cuda.Stream.wait_stream
examples of PyTorch's documentation with both streams created by
acl.rt.create_stream, where the second stream waits for the first through
acl.rt.record_event and acl.rt.stream_wait_event instead of torch's
wait_stream. Each example prints its result, which is the documentation's.

Needs torch with CUDA and acl-cuda's cuda backend; elsewhere it says why it
skipped and exits 0."""
import sys

import acl

ACL_SUCCESS = 0
ACL_EVENT_SYNC = 0x1
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


class Streams:
    """The two ACL streams, their torch views, and the event that orders them."""

    def __init__(self, torch, first, second, event):
        import acl.cuda
        self.torch, self.first, self.second, self.event = torch, first, second, event
        self.s1, self.s2 = acl.cuda.torch_stream(first), acl.cuda.torch_stream(second)

    def second_waits_for_first(self, what):
        check(acl.rt.record_event(self.event, self.first), "%s: acl.rt.record_event (s1)" % what)
        check(acl.rt.stream_wait_event(self.second, self.event), "%s: acl.rt.stream_wait_event (s2)" % what)


def two_streams_then_sum(torch, streams):
    t = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device="cuda")
    with torch.cuda.stream(streams.s1):
        t1 = t * 2
        t2 = t + 10
    streams.second_waits_for_first("two_streams_then_sum")
    with torch.cuda.stream(streams.s2):
        return t1 + t2


def multiply_then_add(torch, streams):
    t = torch.tensor([1, 2, 3, 4, 5], device="cuda")
    with torch.cuda.stream(streams.s1):
        tripled = t * 3
    streams.second_waits_for_first("multiply_then_add")
    with torch.cuda.stream(streams.s2):
        return tripled + 5


def matrix_double_then_increment(torch, streams):
    t = torch.tensor([[1, 2, 3], [4, 5, 6]], device="cuda")
    with torch.cuda.stream(streams.s1):
        doubled = t * 2
    streams.second_waits_for_first("matrix_double_then_increment")
    with torch.cuda.stream(streams.s2):
        return doubled + 1


def main():
    torch = torch_or_none()
    if torch is None:
        return 0

    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    first, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (s1)")
    second, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream (s2)")
    event, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC)
    check(ret, "acl.rt.create_event_with_flag")
    streams = Streams(torch, first, second, event)

    for example in (two_streams_then_sum, multiply_then_add, matrix_double_then_increment):
        result = example(torch, streams)
        check(acl.rt.synchronize_stream(second), "%s: acl.rt.synchronize_stream (s2)" % example.__name__)
        print(result)
        del result

    torch.cuda.synchronize()
    check(acl.rt.destroy_event(event), "acl.rt.destroy_event")
    check(acl.rt.destroy_stream(second), "acl.rt.destroy_stream (s2)")
    check(acl.rt.destroy_stream(first), "acl.rt.destroy_stream (s1)")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
