#!/usr/bin/env python3
"""An ACL stream waits for work torch queued on a stream of its own: torch
computes on a torch.cuda.Stream and records a torch.cuda.Event; the event
becomes an ACL event (acl.cuda.event_from_torch), an ACL stream waits for it
with acl.rt.stream_wait_event and copies torch's result, straight from
torch's memory, into ACL memory (acl.rt.memcpy_async); torch then reads the
ACL memory without a copy (torch.from_dlpack). Prints what torch computed
and what it read back from ACL.

Needs torch with CUDA and acl-cuda's cuda backend; elsewhere it says why it
skipped and exits 0."""
import sys

import acl

ACL_SUCCESS = 0
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
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


def main():
    torch = torch_or_none()
    if torch is None:
        return 0
    import acl.cuda

    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")

    # torch's side: its own stream, its own event.
    torch_side = torch.cuda.Stream()
    done = torch.cuda.Event()
    t = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device="cuda")
    with torch.cuda.stream(torch_side):
        computed = t * 2 + 10
        done.record()

    # ACL's side: a stream that waits for torch's event, then copies.
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    event = acl.cuda.event_from_torch(done)
    print("acl.cuda.event_from_torch: ok")
    check(acl.rt.stream_wait_event(stream, event), "acl.rt.stream_wait_event (torch's event)")
    buffer = acl.cuda.empty(computed.shape, computed.dtype)
    src, nbytes = acl.cuda.data_ptr(computed)
    check(acl.rt.memcpy_async(buffer.ptr, buffer.nbytes, src, nbytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
          "acl.rt.memcpy_async (torch's memory -> ACL memory)")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    # torch reads the ACL memory in place.
    torch_side.synchronize()
    print("torch computed:", computed.tolist())
    view = torch.from_dlpack(buffer)
    print("torch read from ACL memory:", view.tolist())
    if view.data_ptr() != buffer.ptr or view.tolist() != [12.0, 14.0, 16.0, 18.0, 20.0]:
        raise RuntimeError("the ACL copy does not hold torch's result")
    print(view)

    del view, buffer
    check(acl.rt.destroy_event(event), "acl.rt.destroy_event (torch's event stays torch's)")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    torch.cuda.synchronize()
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
