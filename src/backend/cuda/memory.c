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

/* ---- memory of other allocators --------------------------------------------------- */

/* What the driver knows of ptr, in one call: device memory from any
 * allocator of the process (cudaMalloc, cudaMallocAsync pools, VMM
 * mappings, managed memory; torch's and CuPy's allocators use these) or
 * page-locked host memory, with its address range: the allocation, or for
 * VMM and pool memory the whole reserved range (the driver's "mappable
 * address range"), of which only some may be mapped. Device memory must be
 * mapped at ptr. cuPointerGetAttributes answers a pointer it does not know
 * with a memory type of 0 rather than an error. Each result is read from a
 * zeroed 64-bit slot: the driver writes 1, 4 or 8 bytes depending on the
 * attribute. */
static void cuda_pointer_info(const void *ptr, foreign_memory *out)
{
    *out = (foreign_memory){.kind = FOREIGN_NONE, .dev = -1};
    if (!driver_ready() || drv.cuPointerGetAttributes == NULL)
        return;
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE,
        CU_POINTER_ATTRIBUTE_IS_MANAGED,
        CU_POINTER_ATTRIBUTE_MAPPED,
        CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
    };
    enum { N = sizeof attrs / sizeof attrs[0] };
    uint64_t values[N] = {0};
    void *data[N];
    for (unsigned i = 0; i < N; i++)
        data[i] = &values[i];
    if (drv.cuPointerGetAttributes(N, attrs, data, (CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS) {
        /* A driver refusing one of the attributes for this kind of memory:
         * the type, device and managed state alone; the range is then
         * unknown (unchecked) and device memory taken as mapped. */
        attrs[2] = CU_POINTER_ATTRIBUTE_IS_MANAGED;
        memset(values, 0, sizeof values);
        if (drv.cuPointerGetAttributes(3, attrs, data, (CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS)
            return;
        values[4] = values[2];
        values[2] = 0;
        values[5] = 1; /* mapped */
        values[6] = 1; /* nothing to check at the end of an unknown range */
    }
    unsigned type = (unsigned)values[0];
    int ordinal = (int)(uint32_t)values[1];
    uintptr_t base = (uintptr_t)values[2];
    size_t size = (size_t)values[3];
    bool managed = values[4] != 0, mapped = values[5] != 0;
    /* cudaIpcGetMemHandle takes only memory of cuMemAlloc (cudaMalloc):
     * one allocation, mapped throughout, never a reservation. */
    bool whole = values[6] != 0;
    /* Where the driver gives no range (page-locked host memory may have
     * none), the block runs to the top of the address space: unchecked, as
     * for pageable memory. */
    if (size == 0 || (uintptr_t)ptr - base >= size) {
        base = (uintptr_t)ptr;
        size = UINTPTR_MAX - base + 1;
        whole = true; /* no end to check either */
    }
    if (type == CU_MEMORYTYPE_DEVICE || managed) {
        /* Reserved address space without memory behind it is not memory:
         * a copy there would fault on the device. (cudaMalloc and managed
         * allocations are mapped whole: not asked of them.) */
        if (ordinal < 0 || !(mapped || whole || managed))
            return;
        *out = (foreign_memory){
            .kind = FOREIGN_DEVICE, .dev = ordinal, .base = base, .size = size, .whole = whole};
    } else if (type == CU_MEMORYTYPE_HOST) {
        *out = (foreign_memory){
            .kind = FOREIGN_HOST_PINNED, .dev = -1, .base = base, .size = size, .whole = true};
    }
}

const backend_memory_ops cuda_memory_ops = {
    .free_waits_for_device = true,
    .share_block = 2 << 20,
    .malloc_device = cuda_malloc_device,
    .free_device = cuda_free_device,
    .malloc_host = cuda_malloc_host,
    .free_host = cuda_free_host,
    .memcpy_sync = cuda_memcpy_sync,
    .memcpy2d_sync = cuda_memcpy2d_sync,
    .memset_sync = cuda_memset_sync,
    .memset32_sync = cuda_memset32_sync,
    .pointer_info = cuda_pointer_info,
};
