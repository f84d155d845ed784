"""acl.cuda with torch on the GPU (issue #18): ACL streams as torch streams
and back, orderings both ways proven against a long-running kernel
(torch.cuda._sleep) or a held stream, torch memory in ACL copies and
fills, ACL memory in torch without copies (DLPack, the CUDA Array
Interface) and how long it lives.

Needs the cuda backend and torch with CUDA; skipped otherwise (CI has
neither). The GPU run has both: nothing here may skip there."""
import ctypes
import gc
import os
import subprocess
import sys
import threading
import weakref

import pytest

import acl
import acl.cuda

torch = pytest.importorskip("torch", reason="torch is not installed")
if acl.cuda.backend() != "cuda":
    pytest.skip("needs the cuda backend", allow_module_level=True)
if not torch.cuda.is_available():
    pytest.skip("torch sees no GPU", allow_module_level=True)

ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_ERROR_INVALID_PARAM = 100000
ACL_EVENT_SYNC = 0x1
STREAM_NOT_READY = 1  # acl.rt.stream_query's status
# About 0.1 s of GPU time on an H200: long enough that work not ordered
# after the kernel runs first and reads what the kernel's successors have
# not written yet.
SLEEP_CYCLES = 200_000_000

_HOST_FUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_launch_host_func = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, _HOST_FUNC, ctypes.c_void_p)(
    ("aclrtLaunchHostFunc", acl._lib.library))


class Gate:
    """Holds an ACL stream deterministically: a host function in stream
    order that returns once the test opens the gate."""

    def __init__(self, stream):
        self._open = threading.Event()

        def hold(_):
            self._open.wait()

        self._function = _HOST_FUNC(hold)
        assert _launch_host_func(stream, self._function, None) == 0

    def open(self):
        self._open.set()


@pytest.fixture
def streams(context):
    """Two ACL streams and their torch.cuda.ExternalStream views."""
    made = []
    for _ in range(2):
        stream, ret = acl.rt.create_stream()
        assert ret == 0
        made.append(stream)
    yield made[0], made[1], acl.cuda.torch_stream(made[0]), acl.cuda.torch_stream(made[1])
    torch.cuda.synchronize()
    for stream in made:
        assert acl.rt.destroy_stream(stream) == 0


def read_back(tensor_or_ptr, nbytes=None):
    """The bytes of device memory, copied by ACL into page-locked memory."""
    if nbytes is None:
        ptr, nbytes = acl.cuda.data_ptr(tensor_or_ptr)
    else:
        ptr = tensor_or_ptr
    host, ret = acl.rt.malloc_host(nbytes)
    assert ret == 0
    try:
        assert acl.rt.memcpy(host, nbytes, ptr, nbytes, ACL_MEMCPY_DEVICE_TO_HOST) == 0
        return acl.util.ptr_to_bytes(host, nbytes)
    finally:
        acl.rt.free_host(host)


def as_floats(data):
    import struct
    return list(struct.unpack("%df" % (len(data) // 4), data))


# ---- ACL streams as torch streams ---------------------------------------------------------

def test_torch_stream_views_the_acl_stream(streams):
    s1, _, ts1, _ = streams
    assert isinstance(ts1, torch.cuda.ExternalStream)
    assert ts1.cuda_stream == acl.cuda.native_stream(s1)
    assert ts1.device == torch.device("cuda", acl.cuda.native_device())
    assert acl.cuda.torch_stream(s1) is ts1  # cached: conversions stay cheap
    default = acl.cuda.torch_stream(0)
    assert default.cuda_stream == acl.cuda.native_stream(0) != 0


def test_wait_stream_orders_acl_streams_after_a_long_kernel(streams):
    s1, s2, ts1, ts2 = streams
    t = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(ts1):
        torch.cuda._sleep(SLEEP_CYCLES)
        t1 = t * 2
        t2 = t + 10
    ts2.wait_stream(ts1)
    with torch.cuda.stream(ts2):
        result = t1 + t2
    assert acl.rt.synchronize_stream(s2) == 0
    assert result.tolist() == [13.0, 16.0, 19.0, 22.0, 25.0]


def test_acl_event_orders_torch_work_on_two_acl_streams(streams):
    s1, s2, ts1, ts2 = streams
    event, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC)
    assert ret == 0
    try:
        t = torch.tensor([1, 2, 3, 4, 5], device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(ts1):
            torch.cuda._sleep(SLEEP_CYCLES)
            tripled = t * 3
        assert acl.rt.record_event(event, s1) == 0
        assert acl.rt.stream_wait_event(s2, event) == 0
        with torch.cuda.stream(ts2):
            result = tripled + 5
        assert acl.rt.synchronize_stream(s2) == 0
        assert result.tolist() == [8, 11, 14, 17, 20]
    finally:
        acl.rt.destroy_event(event)


def test_a_held_acl_stream_holds_torch_work_waiting_for_it(streams):
    """Deterministic: nothing on s1 runs until the gate opens, so s2, which
    waits for s1 through torch's wait_stream, cannot be complete before."""
    s1, s2, ts1, ts2 = streams
    t = torch.tensor([[1, 2, 3], [4, 5, 6]], device="cuda")
    torch.cuda.synchronize()
    gate = Gate(s1)
    try:
        with torch.cuda.stream(ts1):
            doubled = t * 2
        ts2.wait_stream(ts1)
        with torch.cuda.stream(ts2):
            result = doubled + 1
        status, ret = acl.rt.stream_query(s2)
        assert ret == 0 and status == STREAM_NOT_READY
    finally:
        gate.open()
    assert acl.rt.synchronize_stream(s2) == 0
    assert result.tolist() == [[3, 5, 7], [9, 11, 13]]


# ---- torch's streams and events as ACL handles ----------------------------------------------

def test_acl_stream_waits_for_torch_event(context):
    side = torch.cuda.Stream()
    t = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device="cuda")
    torch.cuda.synchronize()
    done = torch.cuda.Event()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)
        result = t * 2 + 10
        done.record()
    event = acl.cuda.event_from_torch(done)
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    host, ret = acl.rt.malloc_host(result.nbytes)
    assert ret == 0
    try:
        assert acl.rt.stream_wait_event(stream, event) == 0
        ptr, nbytes = acl.cuda.data_ptr(result)
        assert acl.rt.memcpy_async(host, nbytes, ptr, nbytes, ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert as_floats(acl.util.ptr_to_bytes(host, nbytes)) == [12.0, 14.0, 16.0, 18.0, 20.0]
    finally:
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.destroy_event(event)
    done.synchronize()  # torch's event lives on
    assert done.query()


def test_event_from_torch_needs_a_recorded_event(context):
    with pytest.raises(ValueError):
        acl.cuda.event_from_torch(torch.cuda.Event())


def test_acl_copies_on_torch_stream_follow_its_kernels(context):
    side = torch.cuda.Stream()
    x = torch.zeros(1 << 16, device="cuda")
    torch.cuda.synchronize()
    handle = acl.cuda.stream_from_torch(side)
    try:
        assert acl.cuda.native_stream(handle) == side.cuda_stream
        with torch.cuda.stream(side):
            torch.cuda._sleep(SLEEP_CYCLES)
            x.fill_(3.0)
        host, ret = acl.rt.malloc_host(x.nbytes)
        assert ret == 0
        ptr, nbytes = acl.cuda.data_ptr(x)
        assert acl.rt.memcpy_async(host, nbytes, ptr, nbytes, ACL_MEMCPY_DEVICE_TO_HOST, handle) == 0
        # Work torch queued is waited for, though ACL queued only the copy.
        assert acl.rt.synchronize_stream(handle) == 0
        assert set(as_floats(acl.util.ptr_to_bytes(host, nbytes))) == {3.0}
        acl.rt.free_host(host)
    finally:
        assert acl.rt.destroy_stream(handle) == 0
    with torch.cuda.stream(side):  # torch's stream is still torch's
        x.add_(1.0)
    side.synchronize()
    assert float(x[0]) == 4.0


def test_torch_default_stream_as_an_acl_stream(context):
    current = torch.cuda.current_stream()
    handle = acl.cuda.stream_from_torch(current)
    try:
        x = torch.full((1024,), 2.0, device="cuda")
        ptr, nbytes = acl.cuda.data_ptr(x)
        assert acl.rt.memset_async(ptr, nbytes, 0, nbytes, handle) == 0
        assert acl.rt.synchronize_stream(handle) == 0
        assert float(x.sum()) == 0.0
    finally:
        assert acl.rt.destroy_stream(handle) == 0


# ---- torch memory in ACL calls ---------------------------------------------------------------

def test_torch_memory_in_acl_copies_and_fills(context):
    t = torch.arange(4096, dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    ptr, nbytes = acl.cuda.data_ptr(t)
    assert nbytes == 4096 * 4
    own, ret = acl.rt.malloc(nbytes, 0)
    assert ret == 0
    try:
        assert acl.rt.memcpy(own, nbytes, ptr, nbytes, ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
        assert as_floats(read_back(own, nbytes)) == [float(i) for i in range(4096)]
        assert acl.rt.memset(ptr, nbytes, 0, nbytes) == 0
        assert float(t.abs().sum()) == 0.0
        assert acl.rt.memcpy(ptr, nbytes, own, nbytes, ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
        assert float(t[4095]) == 4095.0
        # Never freed through ACL.
        assert acl.rt.free(ptr) == ACL_ERROR_INVALID_PARAM
        assert "free it through the allocator" in acl.get_recent_err_msg()
        assert float(t[4095]) == 4095.0
        attributes, ret = acl.rt.pointer_get_attributes(ptr)
        assert ret == 0 and attributes["location"]["type"] == 1  # device
    finally:
        acl.rt.free(own)


def test_torch_memory_of_expandable_segments(run_python):
    """torch's expandable segments map memory with the VMM API: one range of
    several mappings. A copy over a whole large tensor spans them."""
    code = """
import acl, acl.cuda, torch
assert acl.init() == 0 and acl.rt.set_device(0) == 0
t = torch.arange(16 << 20, dtype=torch.float32, device="cuda")  # 64 MiB
torch.cuda.synchronize()
ptr, nbytes = acl.cuda.data_ptr(t)
own, ret = acl.rt.malloc(nbytes, 0)
assert ret == 0
assert acl.rt.memcpy(own, nbytes, ptr, nbytes, 3) == 0
assert acl.rt.memset(ptr, nbytes, 0, nbytes) == 0
assert float(t.abs().sum()) == 0.0
assert acl.rt.memcpy(ptr, nbytes, own, nbytes, 3) == 0
assert float(t[-1]) == float((16 << 20) - 1)
assert acl.rt.free(ptr) == 100000
print("ok")
"""
    result = run_python(code, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# ---- ACL memory in torch ---------------------------------------------------------------------

def test_torch_from_dlpack_shares_acl_memory(context):
    buffer = acl.cuda.empty((2, 3), "float32")
    tensor = torch.from_dlpack(buffer)
    assert tensor.data_ptr() == buffer.ptr and tensor.shape == (2, 3)
    assert tensor.device == torch.device("cuda", acl.cuda.native_device())
    tensor.copy_(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    torch.cuda.synchronize()
    assert as_floats(read_back(buffer.ptr, buffer.nbytes)) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    del tensor


def test_torch_as_tensor_through_the_cuda_array_interface(context):
    buffer = acl.cuda.empty(8, "int32")
    tensor = torch.as_tensor(buffer, device="cuda")
    assert tensor.data_ptr() == buffer.ptr and tensor.dtype == torch.int32
    tensor.fill_(9)
    torch.cuda.synchronize()
    assert read_back(buffer.ptr, 32) == (9).to_bytes(4, "little") * 8
    del tensor


def test_dlpack_consumer_waits_for_the_buffers_stream(streams):
    """A buffer produced on ACL stream s1 behind a long kernel: torch's
    reading stream, which torch.from_dlpack passes as DLPack's stream
    argument, is ordered after it."""
    s1, _, ts1, _ = streams
    buffer = acl.cuda.empty(1 << 16, "uint8", stream=s1)
    assert acl.rt.memset(buffer.ptr, buffer.nbytes, 0, buffer.nbytes) == 0
    with torch.cuda.stream(ts1):
        torch.cuda._sleep(SLEEP_CYCLES)
    assert acl.rt.memset_async(buffer.ptr, buffer.nbytes, 5, buffer.nbytes, s1) == 0
    reader = torch.cuda.Stream()
    with torch.cuda.stream(reader):
        tensor = torch.from_dlpack(buffer)
        total = tensor.sum(dtype=torch.int64)
    reader.synchronize()
    assert int(total) == 5 * buffer.nbytes
    del tensor


def test_a_torch_tensor_keeps_acl_memory_alive(context):
    buffer = acl.cuda.empty(1 << 20, "uint8")
    alive = weakref.ref(buffer)
    tensor = torch.from_dlpack(buffer)
    tensor.fill_(1)
    del buffer
    gc.collect()
    assert alive() is not None  # held by the tensor's DLPack deleter
    assert int(tensor.sum()) == 1 << 20
    del tensor
    gc.collect()
    torch.cuda.synchronize()
    assert alive() is None


def test_close_waits_for_torch_views(context):
    """close() frees ACL memory only once no torch tensor uses it (issue 26,
    item 13): through DLPack and through the CUDA Array Interface."""
    for make_view in (torch.from_dlpack, lambda b: torch.as_tensor(b, device="cuda")):
        buffer = acl.cuda.empty(1 << 16, "uint8")
        ptr = buffer.ptr
        tensor = make_view(buffer)
        buffer.close()
        assert buffer.ptr == 0
        tensor.fill_(3)  # the memory is still the tensor's
        torch.cuda.synchronize()
        assert read_back(ptr, 4) == bytes([3, 3, 3, 3])
        del tensor, buffer
        gc.collect()
        torch.cuda.synchronize()
        assert acl.rt.free(ptr) == ACL_ERROR_INVALID_PARAM  # freed, once


def test_torch_tensor_into_acl_and_back_without_copies(context):
    t = torch.linspace(0, 1, 1000, device="cuda")
    buffer = acl.cuda.as_array(t.data_ptr(), t.shape, t.dtype, owner=t)
    assert buffer.dtype == "float32" and buffer.device == acl.rt.get_device()[0]
    back = torch.from_dlpack(buffer)
    assert back.data_ptr() == t.data_ptr()
    assert torch.equal(back, t)


def test_bfloat16_through_dlpack(context):
    buffer = acl.cuda.empty(16, "bfloat16")
    tensor = torch.from_dlpack(buffer)
    assert tensor.dtype == torch.bfloat16
    tensor.fill_(1.5)
    assert float(tensor.float().sum()) == 24.0
    del tensor


def test_the_wait_stream_samples_print_the_documented_tensors():
    """samples/torch_*.py as the GPU run must see them (tests/python/test_samples.py
    runs them too; this checks what they print against torch's own printing)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    expected = [repr(torch.tensor([13.0, 16.0, 19.0, 22.0, 25.0], device="cuda:0")),
                repr(torch.tensor([8, 11, 14, 17, 20], device="cuda:0")),
                repr(torch.tensor([[3, 5, 7], [9, 11, 13]], device="cuda:0"))]
    for sample in ("torch_wait_stream.py", "torch_wait_event.py"):
        completed = subprocess.run([sys.executable, os.path.join(root, "samples", sample)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True, timeout=120)
        assert completed.returncode == 0, completed.stdout
        assert "skipped" not in completed.stdout
        for tensor in expected:
            assert tensor in completed.stdout, (sample, tensor, completed.stdout)
