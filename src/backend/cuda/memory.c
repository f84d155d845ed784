/* The cuda backend's memory: allocation and the synchronous copies.
 *
 * The synchronous copies and memsets run on CUDA's legacy stream 0 of the
 * current device: the legacy stream does not order against non-blocking
 * streams (every stream made here is one), so an aclrtMemcpy never waits
 * for (or holds up) queued ACL work, which is ACL's documented behaviour.
 * It does order against blocking streams an application made itself
 * through raw CUDA, and sync copies from several threads to one device
 * queue behind each other there. */
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

static aclError cuda_malloc_device(int32_t dev, void **ptr, size_t size)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMalloc(ptr, size));
}

/* cudaFree waits for the device's queued work before it returns, so memory
 * still used by a stream is never handed out again under it. */
static aclError cuda_free_device(int32_t dev, void *ptr)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaFree(ptr));
}

/* Portable: pinned for every device's context, not only the current one. */
static aclError cuda_malloc_host(void **ptr, size_t size)
{
    return check(cudaHostAlloc(ptr, size, cudaHostAllocPortable));
}

static aclError cuda_free_host(void *ptr)
{
    return check(cudaFreeHost(ptr));
}

enum cudaMemcpyKind memcpy_kind(copy_dir dir)
{
    switch (dir) {
    case COPY_HOST_TO_HOST:
        return cudaMemcpyHostToHost;
    case COPY_HOST_TO_DEVICE:
        return cudaMemcpyHostToDevice;
    case COPY_DEVICE_TO_HOST:
        return cudaMemcpyDeviceToHost;
    case COPY_DEVICE_TO_DEVICE:
        return cudaMemcpyDeviceToDevice;
    }
    return cudaMemcpyDefault;
}

/* cudaMemcpy may return before the data has landed when the destination is
 * device memory (device-to-device copies, and pageable host-to-device ones
 * once the source is staged; from page-locked memory it returns after), and
 * cudaMemset on device memory always may.
 * ACL's synchronous copy promises the data is in place, and later work on
 * a non-blocking stream would not wait for the legacy stream, so wait for
 * the legacy stream here. It holds only sync copies (see the top). */
static aclError finish_on_legacy_stream(void)
{
    return check(cudaStreamSynchronize(cudaStreamLegacy));
}

static bool may_land_later(copy_dir dir, bool src_pinned)
{
    return (dir == COPY_HOST_TO_DEVICE && !src_pinned) || dir == COPY_DEVICE_TO_DEVICE;
}

static aclError cuda_memcpy_sync(int32_t dev, void *dst, const void *src, size_t n, copy_dir dir,
                                 bool src_pinned)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaMemcpy(dst, src, n, memcpy_kind(dir)));
    if (rc != ACL_SUCCESS || !may_land_later(dir, src_pinned))
        return rc;
    return finish_on_legacy_stream();
}

static aclError cuda_memcpy2d_sync(int32_t dev, void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height, copy_dir dir,
                                   bool src_pinned)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, memcpy_kind(dir)));
    if (rc != ACL_SUCCESS || !may_land_later(dir, src_pinned))
        return rc;
    return finish_on_legacy_stream();
}

static aclError cuda_memset_sync(int32_t dev, void *ptr, uint8_t value, size_t n, bool on_device)
{
    if (!on_device) {
        memset(ptr, value, n);
        return ACL_SUCCESS;
    }
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaMemset(ptr, value, n));
    if (rc != ACL_SUCCESS)
        return rc;
    return finish_on_legacy_stream();
}

static aclError cuda_memset32_sync(int32_t dev, void *ptr, uint32_t value, size_t count,
                                   bool on_device)
{
    if (!on_device) {
        uint32_t *words = ptr;
        for (size_t i = 0; i < count; i++)
            words[i] = value;
        return ACL_SUCCESS;
    }
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!driver_ready() || !drv.cuMemsetD32Async)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    rc = from_cu(drv.cuMemsetD32Async((CUdeviceptr)(uintptr_t)ptr, value, count, CU_STREAM_LEGACY));
    if (rc != ACL_SUCCESS)
        return rc;
    return finish_on_legacy_stream();
}

const backend_memory_ops cuda_memory_ops = {
    .malloc_device = cuda_malloc_device,
    .free_device = cuda_free_device,
    .malloc_host = cuda_malloc_host,
    .free_host = cuda_free_host,
    .memcpy_sync = cuda_memcpy_sync,
    .memcpy2d_sync = cuda_memcpy2d_sync,
    .memset_sync = cuda_memset_sync,
    .memset32_sync = cuda_memset32_sync,
};
