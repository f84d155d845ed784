"""acl.cuda with CuPy on the GPU (issue #18): ACL memory as CuPy arrays
without copies (__cuda_array_interface__, DLPack), CuPy memory in ACL
copies, streams both ways. Skipped without CuPy or the cuda backend."""
import gc
import weakref

import pytest

import acl
import acl.cuda

cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
if acl.cuda.backend() != "cuda":
    pytest.skip("needs the cuda backend", allow_module_level=True)

ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_ERROR_INVALID_PARAM = 100000


def test_cupy_asarray_and_from_dlpack_share_acl_memory(context):
    buffer = acl.cuda.empty((4, 4), "float32")
    through_interface = cupy.asarray(buffer)
    through_dlpack = cupy.from_dlpack(buffer)
    assert through_interface.data.ptr == through_dlpack.data.ptr == buffer.ptr
    through_interface[:] = 2.5
    cupy.cuda.Device().synchronize()
    assert float(through_dlpack.sum()) == 40.0
    alive = weakref.ref(buffer)
    del buffer
    gc.collect()
    assert alive() is not None  # held by the DLPack array (and CuPy's view of the interface)
    del through_interface, through_dlpack
    gc.collect()


def test_cupy_memory_in_acl_copies(context):
    source = cupy.arange(256, dtype=cupy.int32)
    target = cupy.zeros(256, dtype=cupy.int32)
    cupy.cuda.Device().synchronize()
    (src, nbytes), (dst, _) = acl.cuda.data_ptr(source), acl.cuda.data_ptr(target)
    assert acl.rt.memcpy(dst, nbytes, src, nbytes, ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
    assert bool((target == source).all())
    assert acl.rt.free(src) == ACL_ERROR_INVALID_PARAM


def test_streams_both_ways(context):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    try:
        view = acl.cuda.cupy_stream(stream)
        assert view.ptr == acl.cuda.native_stream(stream)
        with view:
            x = cupy.ones(1024, dtype=cupy.float32) * 3
        assert acl.rt.synchronize_stream(stream) == 0
        assert float(x.sum()) == 3072.0
        own = cupy.cuda.Stream(non_blocking=True)
        handle = acl.cuda.stream_from_cupy(own)
        assert acl.cuda.native_stream(handle) == own.ptr
        event = cupy.cuda.Event()
        event.record(own)
        wrapped = acl.cuda.event_from_cupy(event)
        assert acl.rt.stream_wait_event(stream, wrapped) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert acl.rt.destroy_event(wrapped) == 0
        assert acl.rt.destroy_stream(handle) == 0
        own.synchronize()  # CuPy's stream is still CuPy's
    finally:
        acl.rt.destroy_stream(stream)
