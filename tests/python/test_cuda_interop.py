"""acl.cuda without torch or CuPy (issue #18): handles, DeviceBuffer, DLPack
capsules and their lifetime, the CUDA Array Interface, data_ptr. Runs on
both backends; the NumPy DLPack path (kDLCPU) is the host backend's, the
CUDA side of the same calls is tests/python/test_cuda_torch.py's."""
import ctypes
import gc
import weakref

import numpy
import pytest

import acl
import acl.cuda

ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000
ACL_MEM_LOCATION_TYPE_DEVICE = 1
ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2

ON_HOST = acl.cuda.backend() == "host"
host_only = pytest.mark.skipif(not ON_HOST, reason="the host backend's kDLCPU path")
cuda_only = pytest.mark.skipif(ON_HOST, reason="needs the cuda backend")

_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))


def capsule_named(capsule, name):
    return bool(_capsule_is_valid(capsule, name))


def location(ptr):
    attributes, ret = acl.rt.pointer_get_attributes(ptr)
    assert ret == 0
    return attributes["location"]["type"]


def settle():
    """Runs pending finalizers: DLPack deleters and buffers' frees."""
    for _ in range(3):
        gc.collect()


def test_import_acl_alone_stays_pyacl(run_python):
    result = run_python("import sys, acl; print('acl.cuda' in sys.modules, hasattr(acl, 'cuda'))")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]


def test_backend_and_native_handles(context, stream, event):
    assert acl.cuda.backend() in ("cuda", "host")
    device, ret = acl.rt.get_device()
    assert ret == 0
    assert acl.cuda.stream_device(stream) == device
    assert acl.cuda.stream_device(0) == device
    assert acl.cuda.native_device() == acl.cuda.native_device(device) >= 0
    natives = (acl.cuda.native_stream(stream), acl.cuda.native_stream(0), acl.cuda.native_event(event))
    if ON_HOST:
        assert natives == (0, 0, 0)
    else:
        assert all(natives) and natives[0] != natives[1]


def test_refusals_raise_with_the_code_and_message(context):
    with pytest.raises(acl.cuda.Error) as info:
        acl.cuda.native_device(4096)
    assert info.value.ret == 107001  # ACL_ERROR_RT_INVALID_DEVICEID
    assert "4096" in str(info.value)
    with pytest.raises(acl.cuda.Error) as info:
        acl.cuda.native_stream(0x1234)  # not a handle
    assert info.value.ret == ACL_ERROR_INVALID_PARAM
    for beyond in (2**32, 2**70, -2**31 - 1):  # not cut to 32 bits (2**32 was device 0)
        with pytest.raises(ValueError):
            acl.cuda.native_device(beyond)
    with pytest.raises(TypeError):
        acl.cuda.native_device(1.0)


@host_only
def test_host_backend_has_no_native_handles_to_wrap(context):
    for wrap in (acl.cuda.stream_from_native, acl.cuda.event_from_native):
        with pytest.raises(acl.cuda.Error) as info:
            wrap(0x1000)
        assert info.value.ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert "host backend" in str(info.value)
    with pytest.raises(acl.cuda.Error):
        acl.cuda.torch_stream(0)


@cuda_only
def test_native_stream_and_event_wrapped_back(context, stream, event):
    wrapped_stream = acl.cuda.stream_from_native(acl.cuda.native_stream(stream))
    wrapped_event = acl.cuda.event_from_native(acl.cuda.native_event(event))
    try:
        assert wrapped_stream not in (0, stream) and wrapped_event not in (0, event)
        assert acl.cuda.native_stream(wrapped_stream) == acl.cuda.native_stream(stream)
        assert acl.cuda.native_event(wrapped_event) == acl.cuda.native_event(event)
        assert acl.rt.record_event(event, stream) == 0
        assert acl.rt.stream_wait_event(wrapped_stream, wrapped_event) == 0
        assert acl.rt.synchronize_stream(wrapped_stream) == 0
    finally:
        assert acl.rt.destroy_event(wrapped_event) == 0
        assert acl.rt.destroy_stream(wrapped_stream) == 0
    # The CUDA objects were the originals', and still work.
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_event(event) == 0


# ---- DeviceBuffer ----------------------------------------------------------------------

def test_empty_describes_its_memory(context):
    buffer = acl.cuda.empty((2, 3), "float32")
    assert buffer.shape == (2, 3) and buffer.dtype == "float32" and buffer.itemsize == 4
    assert buffer.nbytes == 24 and buffer.ptr != 0
    assert location(buffer.ptr) == ACL_MEM_LOCATION_TYPE_DEVICE
    device, _ = acl.rt.get_device()
    assert buffer.device == device
    expected = (1, 0) if ON_HOST else (2, acl.cuda.native_device(device))
    assert buffer.__dlpack_device__() == expected
    ptr = buffer.ptr
    buffer.close()
    assert buffer.ptr == 0
    if ON_HOST:  # (on CUDA the driver may still know the freed range)
        assert location(ptr) == ACL_MEM_LOCATION_TYPE_UNREGISTERED


@pytest.mark.parametrize("dtype, name", [
    ("float16", "float16"), (numpy.float32, "float32"), (numpy.dtype("int64"), "int64"),
    ("torch.bfloat16", "bfloat16"), ("bool", "bool"), ("half", "float16"), (numpy.uint8, "uint8"),
    ("complex64", "complex64"),
])
def test_dtypes_by_any_name(context, dtype, name):
    buffer = acl.cuda.empty(4, dtype)
    assert buffer.dtype == name
    buffer.close()


def test_unknown_dtypes_and_shapes_are_refused(context):
    with pytest.raises(TypeError):
        acl.cuda.empty(4, "float128x")
    with pytest.raises(ValueError):
        acl.cuda.empty((2, -1), "float32")


def test_as_array_does_not_own_its_memory(context):
    ptr, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    owner = object()
    buffer = acl.cuda.as_array(ptr, (16,), "int32", owner=owner)
    assert buffer.nbytes == 64 and not buffer._owned
    buffer.close()  # not owned: nothing freed
    del buffer
    settle()
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_DEVICE
    assert acl.rt.free(ptr) == 0


def test_data_ptr_of_arrays_and_buffers(context):
    array = numpy.arange(12, dtype=numpy.int16).reshape(3, 4)
    assert acl.cuda.data_ptr(array) == (array.__array_interface__["data"][0], 24)
    buffer = acl.cuda.empty(5, "float64")
    assert acl.cuda.data_ptr(buffer) == (buffer.ptr, 40)
    with pytest.raises(ValueError):
        acl.cuda.data_ptr(array[:, ::2])
    with pytest.raises(TypeError):
        acl.cuda.data_ptr(object())
    buffer.close()


def test_dlpack_capsules_versioned_on_request(context):
    buffer = acl.cuda.empty(8, "uint8")
    before = acl.cuda._exported_count()
    versioned = buffer.__dlpack__(max_version=(1, 1))
    legacy = buffer.__dlpack__()
    old_version = buffer.__dlpack__(max_version=(0, 8))
    assert capsule_named(versioned, b"dltensor_versioned")
    assert capsule_named(legacy, b"dltensor")
    assert capsule_named(old_version, b"dltensor")
    assert acl.cuda._exported_count() == before + 3
    # Capsules nobody consumed release what they hold.
    del versioned, legacy, old_version
    settle()
    assert acl.cuda._exported_count() == before
    buffer.close()


def test_dlpack_refuses_copies_and_other_devices(context):
    buffer = acl.cuda.empty(8, "uint8")
    before = acl.cuda._exported_count()
    with pytest.raises(BufferError):
        buffer.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        buffer.__dlpack__(dl_device=(13, 7))
    assert acl.cuda._exported_count() == before
    capsule = buffer.__dlpack__(dl_device=buffer.__dlpack_device__(), copy=False)
    assert capsule_named(capsule, b"dltensor")
    del capsule
    settle()
    buffer.close()


@host_only
def test_cuda_array_interface_only_for_cuda_device_memory(context):
    buffer = acl.cuda.empty(8, "float32")
    assert not hasattr(buffer, "__cuda_array_interface__")
    buffer.close()


@cuda_only
def test_cuda_array_interface_version_3_with_the_stream(context, stream):
    buffer = acl.cuda.empty((2, 4), "float32")
    interface = buffer.__cuda_array_interface__
    assert interface == {"shape": (2, 4), "typestr": "<f4", "data": (buffer.ptr, False),
                         "strides": None, "version": 3, "stream": None}
    produced = acl.cuda.as_array(buffer.ptr, (2, 4), "float32", stream=stream, owner=buffer)
    assert produced.__cuda_array_interface__["stream"] == acl.cuda.native_stream(stream)
    bf16 = acl.cuda.as_array(buffer.ptr, (2, 4), "bfloat16", owner=buffer)
    assert not hasattr(bf16, "__cuda_array_interface__")  # no typestr: DLPack only
    del produced, bf16
    buffer.close()


# ---- the host backend: NumPy through DLPack (what CI proves) ---------------------------------

@host_only
def test_numpy_from_dlpack_shares_acl_memory(context):
    buffer = acl.cuda.empty((2, 3), "float32")
    source = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    ptr, nbytes = acl.cuda.data_ptr(source)
    assert acl.rt.memcpy(buffer.ptr, buffer.nbytes, ptr, nbytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    array = numpy.from_dlpack(buffer)
    assert array.__array_interface__["data"][0] == buffer.ptr  # no copy
    assert array.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    array[1, 2] = 42.0  # written through, read back by ACL
    back = numpy.zeros(6, dtype=numpy.float32)
    ptr, nbytes = acl.cuda.data_ptr(back)
    assert acl.rt.memcpy(ptr, nbytes, buffer.ptr, buffer.nbytes, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert back[5] == 42.0
    del array
    buffer.close()


@host_only
def test_a_refused_capsule_keeps_the_consumers_error_and_releases_its_view(context):
    # numpy refuses bfloat16: it raises, then drops the capsule, whose
    # destructor runs with numpy's exception pending.
    buffer = acl.cuda.empty(4, "bfloat16")
    before = acl.cuda._exported_count()
    for _ in range(3):
        with pytest.raises(Exception) as refused:
            numpy.from_dlpack(buffer)
        assert not isinstance(refused.value, SystemError), refused.value
    settle()
    assert acl.cuda._exported_count() == before
    buffer.close()


@host_only
def test_numpy_through_the_unversioned_capsule(context):
    buffer = acl.cuda.empty(4, "int64")

    class OldProducer:  # a DLPack 0.x producer: no max_version
        def __dlpack__(self, stream=None):
            return buffer.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return buffer.__dlpack_device__()

    array = numpy.from_dlpack(OldProducer())
    assert array.dtype == numpy.int64 and array.shape == (4,)
    assert array.__array_interface__["data"][0] == buffer.ptr
    del array
    buffer.close()


@host_only
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "uint64", "float16", "float64",
                                   "complex128"])
def test_numpy_reads_every_dtype(context, dtype):
    buffer = acl.cuda.empty((3, 2), dtype)
    array = numpy.from_dlpack(buffer)
    assert array.dtype == numpy.dtype(dtype) and array.shape == (3, 2)
    del array
    buffer.close()


@host_only
def test_a_dlpack_tensor_keeps_the_memory_alive(context):
    buffer = acl.cuda.empty(1024, "uint8")
    ptr = buffer.ptr
    alive = weakref.ref(buffer)
    array = numpy.from_dlpack(buffer)
    array[:] = 7
    del buffer
    settle()
    # The buffer (and its ACL memory) lives on with the array.
    assert alive() is not None
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_DEVICE
    assert int(array.sum()) == 7 * 1024
    del array
    settle()
    assert alive() is None
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_UNREGISTERED
    assert acl.rt.free(ptr) == ACL_ERROR_INVALID_PARAM  # freed once, by the buffer


@host_only
def test_as_array_keeps_its_owner_alive_through_dlpack(context):
    class Owner:
        pass

    owner = Owner()
    alive = weakref.ref(owner)
    storage = numpy.zeros(16, dtype=numpy.float32)
    owner.storage = storage
    ptr, _ = acl.cuda.data_ptr(storage)
    array = numpy.from_dlpack(acl.cuda.as_array(ptr, 16, "float32", owner=owner))
    del owner, storage
    settle()
    assert alive() is not None
    del array
    settle()
    assert alive() is None


# ---- close() and views; views within their memory (issue 26, item 13) -----------------------

@host_only
def test_close_defers_the_free_until_the_last_dlpack_view_is_gone(context):
    buffer = acl.cuda.empty(1024, "uint8")
    ptr = buffer.ptr
    array = numpy.from_dlpack(buffer)
    view = numpy.from_dlpack(buffer)
    buffer.close()
    assert buffer.ptr == 0
    # The views still use the memory: it stays ACL's, and theirs.
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_DEVICE
    array[:] = 9
    assert int(view.sum()) == 9 * 1024
    del array
    settle()
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_DEVICE
    del view
    settle()
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_UNREGISTERED
    assert acl.rt.free(ptr) == ACL_ERROR_INVALID_PARAM  # freed once
    buffer.close()  # closing again does nothing


def test_close_without_views_frees_at_once(context):
    buffer = acl.cuda.empty(64, "uint8")
    ptr = buffer.ptr
    capsule = buffer.__dlpack__()
    del capsule  # never consumed: no view
    settle()
    buffer.close()
    if ON_HOST:  # (on CUDA the driver may still know the freed range)
        assert location(ptr) == ACL_MEM_LOCATION_TYPE_UNREGISTERED
    assert acl.rt.free(ptr) == ACL_ERROR_INVALID_PARAM


def test_a_closed_buffer_makes_no_views(context):
    buffer = acl.cuda.empty(16, "float32")
    buffer.close()
    with pytest.raises(BufferError):
        buffer.__dlpack__()
    assert not hasattr(buffer, "__cuda_array_interface__")
    with pytest.raises(ValueError):
        acl.cuda.data_ptr(buffer)


@cuda_only
def test_close_after_the_cuda_array_interface_waits_for_the_buffer(context):
    # A consumer of the interface (torch.as_tensor, cupy.asarray) holds the
    # buffer itself: its memory goes with the buffer, not at close().
    buffer = acl.cuda.empty(256, "float32")
    ptr = buffer.ptr
    consumer = [buffer, buffer.__cuda_array_interface__]
    buffer.close()
    assert location(ptr) == ACL_MEM_LOCATION_TYPE_DEVICE
    del buffer
    settle()
    assert location(consumer[1]["data"][0]) == ACL_MEM_LOCATION_TYPE_DEVICE
    del consumer
    settle()
    assert acl.rt.free(ptr) == ACL_ERROR_INVALID_PARAM


def test_as_array_refuses_views_past_the_allocation(context):
    ptr, ret = acl.rt.malloc(64, 0)  # ACL reserves 96 bytes: 64, rounded, plus 32
    assert ret == 0
    try:
        assert acl.cuda.as_array(ptr, 24, "float32").nbytes == 96
        assert acl.cuda.as_array(ptr + 32, (4, 4), "int32").nbytes == 64
        for args in ((ptr, 1000, "float32"), (ptr, (5, 5), "int32"), (ptr, 13, "float64"),
                     (ptr + 64, 16, "float32"), (ptr + 95, 2, "uint8")):
            with pytest.raises(ValueError):
                acl.cuda.as_array(*args)
    finally:
        assert acl.rt.free(ptr) == 0


def test_as_array_of_a_buffer_stays_inside_it(context):
    buffer = acl.cuda.empty(16, "float32")
    try:
        inner = acl.cuda.as_array(buffer.ptr + 16, 12, "float32", owner=buffer)
        assert inner.nbytes == 48
        for ptr, count in ((buffer.ptr, 17), (buffer.ptr + 4, 16), (buffer.ptr + 64, 1),
                           (buffer.ptr - 4, 1)):
            with pytest.raises(ValueError):
                acl.cuda.as_array(ptr, count, "float32", owner=buffer)
        closed = acl.cuda.empty(4, "float32")
        closed.close()
        with pytest.raises(ValueError):
            acl.cuda.as_array(buffer.ptr, 4, "float32", owner=closed)
    finally:
        buffer.close()


# ---- misuse and races (hostile review of 2026-12-07) ------------------------------------------

def test_views_of_a_view_keep_its_owner(context):
    """A DLPack tensor of an as_array view inside a DeviceBuffer holds the
    owner's memory: closing the owner leaves it to the tensor."""
    owner = acl.cuda.empty(64, "uint8")
    view = acl.cuda.as_array(owner.ptr + 16, 16, "uint8", owner=owner)
    capsule = view.__dlpack__(stream=-1)
    address = owner.ptr
    owner.close()
    assert acl.cuda._exported_count() == 1
    again = acl.cuda.empty(64, "uint8")  # the freed block would come back first
    assert again.ptr != address
    again.close()
    with pytest.raises(BufferError):
        view.__dlpack__(stream=-1)  # its owner is closed
    del capsule
    settle()
    assert acl.cuda._exported_count() == 0


@host_only
def test_host_consumer_waits_for_the_producer_stream(context, stream):
    buffer = acl.cuda.empty(1 << 20, "uint8", stream=stream)
    assert acl.rt.memset_async(buffer.ptr, buffer.nbytes, 7, buffer.nbytes, stream) == 0
    array = numpy.from_dlpack(buffer)  # ordered after the memset: the host reads
    assert array[-1] == 7
    del array
    settle()
    buffer.close()


def test_shapes_and_addresses_out_of_range_are_refused(context):
    with pytest.raises(ValueError):
        acl.cuda.empty((1 << 63,), "uint8")
    with pytest.raises(ValueError):
        acl.cuda.as_array(-1, 4, "uint8")
    with pytest.raises(ValueError):
        acl.cuda.as_array(1 << 70, 4, "uint8")
    with pytest.raises(TypeError):
        acl.cuda.as_array(1.5, 4, "uint8")
    assert acl.cuda.empty(numpy.int64(3), "uint8").shape == (3,)


def test_data_ptr_of_wide_and_dated_typestrs():
    text = numpy.array(["abcde", "xy"])  # <U5: 5 UCS-4 characters each
    assert acl.cuda.data_ptr(text)[1] == 2 * 5 * 4
    dates = numpy.array(["2026-12-07"], dtype="datetime64[s]")
    assert acl.cuda.data_ptr(dates)[1] == 8


@host_only
def test_tensors_alive_at_exit_do_not_crash_it(run_python):
    """A NumPy array of ACL memory, or a capsule nobody consumed, that lives
    until the interpreter shuts down is released after acl.cuda's globals
    are gone."""
    code = ("import sys, numpy, acl, acl.cuda\n"
            "acl.init(); acl.rt.set_device(0)\n"
            "sys.kept = [numpy.from_dlpack(acl.cuda.empty(8, 'uint8')),\n"
            "            acl.cuda.empty(8, 'uint8').__dlpack__()]\n"
            "print('done')\n")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"
