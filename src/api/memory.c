/* Memory (acl_rt.h): allocation, copies and fills. The rules about where
 * pointers live are in core/memory.h and core/copy.h; this file checks
 * arguments in ACL's order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/copy.h"
#include "core/current.h"
#include "core/deferred.h"
#include "core/device.h"
#include "core/sink.h"
#include "core/memory.h"
#include "core/undefined.h"
#include "core/vmm.h"

/* ---- device memory ------------------------------------------------------------ */

/* The documented policy set: one of the eight page policies, optionally with
 * one band-width bit and the read-only bit. */
static bool policy_valid(uint32_t policy)
{
    const uint32_t page_mask = 0x7u;
    const uint32_t band_bits = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH;
    if ((policy & ~(page_mask | band_bits | ACL_MEM_ACCESS_USER_SPACE_READONLY)) != 0)
        return false;
    return (policy & band_bits) != band_bits;
}

/* Checks what every device allocation takes and computes the size to
 * reserve: ALIGN_UP(size, 32), plus 32 bytes of slack unless align32_only. */
static aclError device_alloc_args(const char *func, void **dev_ptr, size_t size, uint32_t policy,
                                  bool align32_only, size_t *padded)
{
    if (dev_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    if (!policy_valid(policy))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "policy 0x%x is not an aclrtMemMallocPolicy: one of 0..7, optionally "
                         "with one of the band-width bits 0x100/0x1000 and the read-only bit "
                         "0x100000",
                         (unsigned)policy);
    size_t extra = align32_only ? 0 : 32;
    if (size > SIZE_MAX - 31 - extra)
        return acl_raise(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu cannot be allocated",
                         size);
    *padded = ALIGN_UP(size, 32) + extra;
    return ACL_SUCCESS;
}

/* A device allocation is one of CUDA's capture-unsafe calls (cudaMalloc is
 * not stream-ordered, so a replay would not make it again): refused, and
 * the captures concerned invalidated, where the calling thread's capture
 * mode forbids it (global: while any thread captures in global mode, or
 * this one in thread-local mode; never in relaxed mode). */
static aclError device_alloc(const char *func, void **dev_ptr, size_t size, size_t padded,
                             uint32_t policy, int32_t phys, int32_t device, mem_origin origin)
{
    aclError ret = sink_check_unsafe(func, "a device allocation");
    if (ret != ACL_SUCCESS)
        return ret;
    return memory_alloc_device(func, dev_ptr, size, padded, policy, phys, device, origin);
}

static aclError malloc_current(const char *func, void **dev_ptr, size_t size,
                               aclrtMemMallocPolicy policy, bool align32_only, mem_origin origin)
{
    size_t padded;
    aclError ret = device_alloc_args(func, dev_ptr, size, (uint32_t)policy, align32_only, &padded);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_context *ctx;
    ret = current_context_get(func, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    int32_t phys = ctx->phys, device = ctx->device;
    context_put(ctx);
    return device_alloc(func, dev_ptr, size, padded, (uint32_t)policy, phys, device, origin);
}

ACL_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    PROF_API();
    return malloc_current(__func__, devPtr, size, policy, false, ORIGIN_MALLOC);
}

ACL_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    PROF_API();
    return malloc_current(__func__, devPtr, size, policy, true, ORIGIN_MALLOC);
}

/* Cached and uncached device memory are the same thing on both backends. */
ACL_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    PROF_API();
    return malloc_current(__func__, devPtr, size, policy, false, ORIGIN_MALLOC);
}

/* Reads an aclrtMallocConfig. A device id attribute picks the device
 * (instead of the current context's); module ids and VA flags only matter
 * to Ascend's memory accounting and are accepted. */
static aclError malloc_config_read(const char *func, const aclrtMallocConfig *cfg, bool *has_device,
                                   int32_t *device)
{
    *has_device = false;
    if (cfg == NULL)
        return ACL_SUCCESS;
    if (cfg->numAttrs > 0 && cfg->attrs == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "cfg has %zu attributes but attrs is NULL",
                         cfg->numAttrs);
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        switch (a->attr) {
        case ACL_RT_MEM_ATTR_MODULE_ID:
        case ACL_RT_MEM_ATTR_VA_FLAG:
            break;
        case ACL_RT_MEM_ATTR_DEVICE_ID:
            if (a->value.deviceId > INT32_MAX)
                return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID,
                                 "cfg attribute %zu: device id %u is out of range", i,
                                 (unsigned)a->value.deviceId);
            *has_device = true;
            *device = (int32_t)a->value.deviceId;
            break;
        default:
            return acl_raise(func, ACL_ERROR_INVALID_PARAM, "cfg attribute %zu has unknown type %d",
                             i, (int)a->attr);
        }
    }
    return ACL_SUCCESS;
}

aclError api_malloc_with_cfg(const char *func, void **devPtr, size_t size,
                             aclrtMemMallocPolicy policy, const aclrtMallocConfig *cfg,
                             mem_origin origin)
{
    size_t padded;
    aclError ret = device_alloc_args(func, devPtr, size, (uint32_t)policy, false, &padded);
    if (ret != ACL_SUCCESS)
        return ret;
    bool has_device;
    int32_t device = 0, phys;
    ret = malloc_config_read(func, cfg, &has_device, &device);
    if (ret != ACL_SUCCESS)
        return ret;
    if (has_device) {
        ret = device_to_phys(device, &phys);
        if (ret != ACL_SUCCESS)
            return acl_raise(func, ret, "device %d does not exist (%d visible)", device,
                             device_visible_count());
    } else {
        acl_context *ctx;
        ret = current_context_get(func, &ctx);
        if (ret != ACL_SUCCESS)
            return ret;
        phys = ctx->phys;
        device = ctx->device;
        context_put(ctx);
    }
    return device_alloc(func, devPtr, size, padded, (uint32_t)policy, phys, device, origin);
}

ACL_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                       aclrtMallocConfig *cfg)
{
    PROF_API();
    return api_malloc_with_cfg(__func__, devPtr, size, policy, cfg, ORIGIN_MALLOC);
}

/* What aclrtFree releases. */
#define FREE_ORIGINS                                                                               \
    (ORIGIN_BIT(ORIGIN_MALLOC) | ORIGIN_BIT(ORIGIN_TASK_SCHEDULER) | ORIGIN_BIT(ORIGIN_MANAGED))

/* Freeing device memory is capture-unsafe as allocating is (cudaFree
 * synchronises the device), under the same rules (device_alloc). */
static aclError device_free(const char *func, void *dev_ptr)
{
    aclError ret = sink_check_unsafe(func, "freeing device memory");
    if (ret != ACL_SUCCESS)
        return ret;
    return memory_free(func, dev_ptr, FREE_ORIGINS);
}

ACL_EXPORT aclError aclrtFree(void *devPtr)
{
    PROF_API();
    return device_free(__func__, devPtr);
}

ACL_EXPORT aclError aclrtFreeWithDevSync(void *devPtr)
{
    PROF_API();
    aclError unsafe = sink_check_unsafe(__func__, "freeing device memory");
    if (unsafe != ACL_SUCCESS)
        return unsafe;
    mem_block b;
    /* Only live device allocations are synchronised for; release
     * reports every other pointer. */
    if (devPtr != NULL && registry_find(devPtr, &b) && (FREE_ORIGINS & ORIGIN_BIT(b.origin)) &&
        b.base == (uintptr_t)devPtr) {
        aclError ret = device_synchronize(b.phys, -1);
        if (ret != ACL_SUCCESS)
            return ACL_RAISE(ret,
                             "synchronising device %d before freeing %p failed; the memory "
                             "was not freed",
                             b.device, devPtr);
    }
    return device_free(__func__, devPtr);
}

/* Device and host memory are coherent on both backends: cache maintenance
 * has nothing to do beyond checking its arguments. */
static aclError cache_maintenance(const char *func, const void *dev_ptr, size_t size)
{
    if (dev_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    mem_block b;
    return memory_locate_live(func, dev_ptr, size, &b);
}

ACL_EXPORT aclError aclrtMemFlush(void *devPtr, size_t size)
{
    PROF_API();
    return cache_maintenance(__func__, devPtr, size);
}

ACL_EXPORT aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
    PROF_API();
    return cache_maintenance(__func__, devPtr, size);
}

/* Every memory attribute is answered with the whole memory of the current
 * device as the backend reports it: neither backend has separate DDR/HBM
 * pools, and huge/normal/1G pages and P2P memory are carved from the same
 * memory, so each of those splits reports the same free and total bytes. */
ACL_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *freeBytes, size_t *totalBytes)
{
    PROF_API();
    if (freeBytes == NULL || totalBytes == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         freeBytes == NULL ? "free" : "total");
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attr %d is not an aclrtMemAttr (0..%d)",
                         (int)attr, (int)ACL_MEM_P2P_HUGE1G);
    acl_context *ctx;
    aclError ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    int32_t phys = ctx->phys, device = ctx->device;
    context_put(ctx);
    size_t free_bytes = 0, total_bytes = 0;
    deferred_reap(); /* memory released behind work that has completed counts as free */
    ret = backend()->device->mem_info(phys, &free_bytes, &total_bytes);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "cannot read the memory of device %d: %s", device,
                         acl_error_text(ret));
    *freeBytes = free_bytes;
    *totalBytes = total_bytes;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (attributes == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attributes is NULL");
    const uint32_t small_page = 4096, huge_page = 2u << 20;
    mem_block b;
    memory_locate(ptr, &b);
    memset(attributes, 0, sizeof *attributes);
    attributes->pageSize = small_page;
    switch (b.kind) {
    case MEM_DEVICE:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)b.device;
        if (memory_policy_is_huge(b.policy) && b.size >= huge_page)
            attributes->pageSize = huge_page;
        break;
    case MEM_HOST_PINNED:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        break;
    case MEM_MANAGED:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
        attributes->location.id = (uint32_t)b.device;
        attributes->pageSize = huge_page;
        break;
    case MEM_UNKNOWN:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        break;
    }
    return ACL_SUCCESS;
}

/* ---- page-locked host memory -------------------------------------------------- */

static aclError host_alloc_args(const char *func, void **host_ptr, uint64_t size)
{
    if (host_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "hostPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    if (size > SIZE_MAX)
        return acl_raise(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %llu cannot be allocated",
                         (unsigned long long)size);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    PROF_API();
    aclError ret = host_alloc_args(__func__, hostPtr, size);
    if (ret != ACL_SUCCESS)
        return ret;
    return memory_alloc_host(__func__, hostPtr, size, ORIGIN_MALLOC_HOST);
}

ACL_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    PROF_API();
    aclError ret = host_alloc_args(__func__, ptr, size);
    if (ret != ACL_SUCCESS)
        return ret;
    bool has_device;
    int32_t device;
    ret = malloc_config_read(__func__, cfg, &has_device, &device);
    if (ret != ACL_SUCCESS)
        return ret;
    /* Host memory belongs to no device; a device id is checked, not used. */
    int32_t phys;
    if (has_device && device_to_phys(device, &phys) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d visible)",
                         device, device_visible_count());
    return memory_alloc_host(__func__, ptr, size, ORIGIN_MALLOC_HOST);
}

ACL_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
    PROF_API();
    return memory_free(__func__, hostPtr, ORIGIN_BIT(ORIGIN_MALLOC_HOST));
}

/* Page-locked memory can be in use by any device, so every visible device
 * is synchronised before it goes. */
ACL_EXPORT aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
    PROF_API();
    mem_block b;
    if (hostPtr != NULL && registry_find(hostPtr, &b) && b.origin == ORIGIN_MALLOC_HOST &&
        b.base == (uintptr_t)hostPtr) {
        int32_t count = device_visible_count();
        for (int32_t device = 0; device < count; device++) {
            int32_t phys;
            if (device_to_phys(device, &phys) != ACL_SUCCESS)
                continue;
            aclError ret = device_synchronize(phys, -1);
            if (ret != ACL_SUCCESS)
                return ACL_RAISE(ret,
                                 "synchronising device %d before freeing %p failed; the "
                                 "memory was not freed",
                                 device, hostPtr);
        }
    }
    return memory_free(__func__, hostPtr, ORIGIN_BIT(ORIGIN_MALLOC_HOST));
}

/* ---- copies ------------------------------------------------------------------- */

/* Shared checks of aclrtMemcpy and aclrtMemcpyAsync, in ACL's order. Returns
 * ACL_SUCCESS with *nothing_to_do set for the documented no-ops. */
static aclError copy_args(const char *func, void *dst, size_t dest_max, const void *src,
                          size_t count, aclrtMemcpyKind kind, bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (dst == NULL || src == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "kind %d is not a copy kind this function takes (0..5)", (int)kind);
    if (count == 0) {
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    if (dest_max == 0)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "destMax is 0 but count is %zu", count);
    if (count > dest_max)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds destMax %zu", count,
                         dest_max);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                aclrtMemcpyKind kind)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret = copy_args(__func__, dst, destMax, src, count, kind, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = copy_sync(__func__, CALL_SITE(), ctx, dst, src, count, kind);
    context_put(ctx);
    return ret;
}

static aclError queue_copy(const char *api, const void *site, void *dst, size_t dest_max,
                           const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream)
{
    bool nothing_to_do;
    aclError ret = copy_args(api, dst, dest_max, src, count, kind, &nothing_to_do);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = current_stream_get(api, stream, &s);
    if (ret != ACL_SUCCESS || nothing_to_do) {
        if (ret == ACL_SUCCESS)
            stream_put(s);
        return ret;
    }
    ret = copy_async(api, site, s, dst, src, count, kind);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                     aclrtMemcpyKind kind, aclrtStream stream)
{
    PROF_API();
    return queue_copy(__func__, CALL_SITE(), dst, destMax, src, count, kind, stream);
}

/* Deprecated by CANN; the same copy. */
ACL_EXPORT aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src,
                                                  size_t count, aclrtMemcpyKind kind,
                                                  aclrtStream stream)
{
    PROF_API();
    return queue_copy(__func__, CALL_SITE(), dst, destMax, src, count, kind, stream);
}

/* ---- 2D copies ------------------------------------------------------------------ */

/* ACL's documented limits of a queued 2D copy. */
enum { COPY2D_ASYNC_MAX_WIDTH = 5000000, COPY2D_ASYNC_MAX_HEIGHT = 5242880 };

/* Argument checks of a 2D copy, in ACL's order; *nothing_to_do for the
 * documented no-op. Kinds: H2D, D2H, D2D, DEFAULT and H2H; the caller
 * rejects H2H where it cannot be done. */
static aclError copy2d_args(const char *func, const void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                            bool queued, bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (dst == NULL || src == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_DEFAULT)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "kind %d is not a 2D copy kind (0..4: host/device directions or "
                         "ACL_MEMCPY_DEFAULT)",
                         (int)kind);
    if (width == 0 || height == 0) {
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    if (width > dpitch || width > spitch)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "width %zu exceeds %s %zu: rows would overlap", width,
                         width > dpitch ? "dpitch" : "spitch", width > dpitch ? dpitch : spitch);
    if (queued && (width > COPY2D_ASYNC_MAX_WIDTH || height > COPY2D_ASYNC_MAX_HEIGHT))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "a %zu x %zu copy exceeds the limits of a queued 2D copy (width <= %d, "
                         "height <= %d)",
                         width, height, COPY2D_ASYNC_MAX_WIDTH, COPY2D_ASYNC_MAX_HEIGHT);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, aclrtMemcpyKind kind)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret =
        copy2d_args(__func__, dst, dpitch, src, spitch, width, height, kind, false, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = copy2d_sync(__func__, CALL_SITE(), ctx, dst, dpitch, src, spitch, width, height, kind);
    context_put(ctx);
    return ret;
}

ACL_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, aclrtMemcpyKind kind,
                                       aclrtStream stream)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret =
        copy2d_args(__func__, dst, dpitch, src, spitch, width, height, kind, true, &nothing_to_do);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!nothing_to_do)
        ret = copy2d_async(__func__, CALL_SITE(), s, dst, dpitch, src, spitch, width, height, kind);
    stream_put(s);
    return ret;
}

/* ---- fills ---------------------------------------------------------------------- */

/* Argument checks of aclrtMemset(Async); *nothing_to_do for count 0. */
static aclError set_args(const char *func, const void *dev_ptr, size_t max_count, size_t count,
                         bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (dev_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (count == 0) {
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    if (count > max_count)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds maxCount %zu", count,
                         max_count);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret = set_args(__func__, devPtr, maxCount, count, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = fill_sync(__func__, CALL_SITE(), ctx, devPtr, value, count);
    context_put(ctx);
    return ret;
}

ACL_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                     aclrtStream stream)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret = set_args(__func__, devPtr, maxCount, count, &nothing_to_do);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!nothing_to_do)
        ret = fill_async(__func__, CALL_SITE(), s, devPtr, value, count);
    stream_put(s);
    return ret;
}

/* ---- 32-bit fills ------------------------------------------------------------------- */

/* CANN's checks, in its order; *nothing_to_do for N == 0. */
static aclError set32_args(const char *func, const void *ptr, size_t mem_size, size_t n,
                           bool *nothing_to_do)
{
    *nothing_to_do = n == 0;
    if (n == 0)
        return ACL_SUCCESS;
    if (ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if ((uintptr_t)ptr % sizeof(uint32_t) != 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "ptr %p is not 4-byte aligned", ptr);
    if (n > SIZE_MAX / sizeof(uint32_t) || mem_size < n * sizeof(uint32_t))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "N %zu values of 4 bytes do not fit in memSize %zu", n, mem_size);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret = set32_args(__func__, ptr, memSize, N, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = fill32_sync(__func__, ctx, ptr, value, N);
    context_put(ctx);
    return ret;
}

ACL_EXPORT aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                                        aclrtStream stream)
{
    PROF_API();
    bool nothing_to_do;
    aclError ret = set32_args(__func__, ptr, memSize, N, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = fill32_async(__func__, s, ptr, value, N);
    stream_put(s);
    return ret;
}

/* ---- batches of copies -------------------------------------------------------------- */

/* The most copies one synchronous batch takes (CANN's driver limit). */
enum { BATCH_SYNC_MAX = 4096 };

/* CANN's checks of a batch, in its order (but for numAttrs, checked before
 * the attributes it counts are read): the library's, then the runtime's
 * (which answer ACL_ERROR_RT_PARAM_INVALID). *nothing_to_do when every size
 * is 0. */
static aclError batch_args(const char *func, const copy_batch_args *a, const size_t *dest_maxs,
                           bool sync, size_t *fail_index, bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (a->sizes == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "sizes is NULL");
    if (a->count == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "numBatches is 0");
    bool all_zero = true;
    for (size_t i = 0; i < a->count && all_zero; i++)
        all_zero = a->sizes[i] == 0;
    if (all_zero) {
        if (fail_index)
            *fail_index = SIZE_MAX;
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    const char *null = a->dsts == NULL            ? "dsts"
                       : dest_maxs == NULL        ? "destMaxs"
                       : a->srcs == NULL          ? "srcs"
                       : a->attrs == NULL         ? "attrs"
                       : a->attrs_indexes == NULL ? "attrsIndexes"
                                                  : NULL;
    if (null)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL", null);
    for (size_t i = 0; i < a->count; i++)
        if (dest_maxs[i] < a->sizes[i])
            return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                             "copy %zu: size %zu exceeds destMaxs[%zu] %zu", i, a->sizes[i], i,
                             dest_maxs[i]);
    /* numAttrs bounds attrs[]: it is checked before any attribute is read
     * (CANN reads the reserved bytes first, past the array when numAttrs
     * is too large). */
    if (fail_index)
        *fail_index = SIZE_MAX;
    if (a->num_attrs == 0)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "numAttrs is 0");
    if (a->num_attrs > a->count)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "numAttrs %zu exceeds numBatches %zu",
                         a->num_attrs, a->count);
    for (size_t k = 0; k < a->num_attrs; k++)
        for (size_t j = 0; j < sizeof a->attrs[k].rsv; j++)
            if (a->attrs[k].rsv[j] != 0)
                return acl_raise(func, ACL_ERROR_INVALID_PARAM, "attrs[%zu].rsv[%zu] is %u, not 0",
                                 k, j, (unsigned)a->attrs[k].rsv[j]);
    if (sync && a->count > BATCH_SYNC_MAX)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID,
                         "numBatches %zu exceeds %d, the most one synchronous batch takes",
                         a->count, BATCH_SYNC_MAX);
    if (a->attrs_indexes[0] != 0)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "attrsIndexes[0] is %zu, not 0",
                         a->attrs_indexes[0]);
    for (size_t k = 1; k < a->num_attrs; k++) {
        if (a->attrs_indexes[k] <= a->attrs_indexes[k - 1])
            return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID,
                             "attrsIndexes[%zu] %zu does not exceed attrsIndexes[%zu] %zu", k,
                             a->attrs_indexes[k], k - 1, a->attrs_indexes[k - 1]);
        if (a->attrs_indexes[k] >= a->count)
            return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID,
                             "attrsIndexes[%zu] %zu is not below numBatches %zu", k,
                             a->attrs_indexes[k], a->count);
    }
    return ACL_SUCCESS;
}

static aclError batch(const char *func, void **dsts, size_t *dest_maxs, void **srcs, size_t *sizes,
                      size_t count, aclrtMemcpyBatchAttr *attrs, size_t *attrs_indexes,
                      size_t num_attrs, size_t *fail_index, bool queued, aclrtStream stream)
{
    copy_batch_args a = {.dsts = dsts,
                         .srcs = srcs,
                         .sizes = sizes,
                         .count = count,
                         .attrs = attrs,
                         .attrs_indexes = attrs_indexes,
                         .num_attrs = num_attrs,
                         .stream_ordered = queued};
    bool nothing_to_do;
    aclError ret = batch_args(func, &a, dest_maxs, !queued, fail_index, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    if (queued) {
        acl_stream *s;
        ret = current_stream_get(func, stream, &s);
        if (ret != ACL_SUCCESS)
            return ret;
        ret = copy_batch(func, s, s->ctx, &a, fail_index);
        stream_put(s);
        return ret;
    }
    acl_context *ctx;
    ret = current_context_get(func, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = copy_batch(func, NULL, ctx, &a, fail_index);
    context_put(ctx);
    return ret;
}

ACL_EXPORT aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                     size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                     size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)
{
    PROF_API();
    if (failIndex == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "failIndex is NULL");
    return batch(__func__, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                 failIndex, false, NULL);
}

ACL_EXPORT aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                       size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                       size_t *attrsIndexes, size_t numAttrs)
{
    PROF_API();
    return batch(__func__, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                 NULL, false, NULL);
}

ACL_EXPORT aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                          size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                          size_t *attrsIndexes, size_t numAttrs, size_t *failIndex,
                                          aclrtStream stream)
{
    PROF_API();
    if (failIndex == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "failIndex is NULL");
    return batch(__func__, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                 failIndex, true, stream);
}

ACL_EXPORT aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs,
                                            size_t *sizes, size_t numBatches,
                                            aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                            size_t numAttrs, aclrtStream stream)
{
    PROF_API();
    return batch(__func__, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                 NULL, true, stream);
}

/* ---- copies through device-side addresses -------------------------------------------- */

/* A kind value aclrtMemcpyKind has; only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
 * is supported by the descriptor copies, as in CANN. */
static aclError desc_kind(const char *func, aclrtMemcpyKind kind)
{
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "kind %d is not an aclrtMemcpyKind",
                         (int)kind);
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return acl_raise(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "kind %d: only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6) is supported",
                         (int)kind);
    return ACL_SUCCESS;
}

/* Largest copy the descriptor copies take (4 GiB), and largest offset of
 * an aclrtMemcpyAsyncWithOffset (48 bits), as CANN. */
#define INDIRECT_COPY_MAX (UINT64_C(4) << 30)
#define INDIRECT_OFFSET_MAX ((UINT64_C(1) << 48) - 1)

ACL_EXPORT aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
    PROF_API();
    if (descSize == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "descSize is NULL");
    aclError ret = desc_kind(__func__, kind);
    if (ret == ACL_SUCCESS)
        *descSize = COPY_DESC_SIZE;
    return ret;
}

ACL_EXPORT aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr,
                                       void *dstAddr, size_t count, void *config)
{
    PROF_API();
    if (desc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "desc is NULL");
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "kind %d is not an aclrtMemcpyKind", (int)kind);
    if (srcAddr == NULL || dstAddr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         srcAddr == NULL ? "srcAddr" : "dstAddr");
    if (count == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "count is 0");
    if (config != NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "config is reserved and must be NULL");
    aclError ret = desc_kind(__func__, kind);
    if (ret != ACL_SUCCESS)
        return ret;
    if ((uint64_t)count > INDIRECT_COPY_MAX)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds 4 GiB", count);
    if ((uintptr_t)desc % 64 != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "desc %p is not 64-byte aligned", desc);
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = copy_desc_set(__func__, ctx, desc, srcAddr, dstAddr, count);
    context_put(ctx);
    return ret;
}

ACL_EXPORT aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
    PROF_API();
    if (desc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "desc is NULL");
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "kind %d is not an aclrtMemcpyKind", (int)kind);
    if (stream == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    aclError ret = desc_kind(__func__, kind);
    if (ret != ACL_SUCCESS)
        return ret;
    if ((uintptr_t)desc % 64 != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "desc %p is not 64-byte aligned", desc);
    acl_stream *s;
    ret = stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = copy_desc_async(__func__, s, desc);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
                                               const void **src, size_t count, size_t srcDataOffset,
                                               aclrtMemcpyKind kind, aclrtStream stream)
{
    PROF_API();
    if (count == 0)
        return ACL_SUCCESS;
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                         "kind %d: only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6) is supported",
                         (int)kind);
    if (dst == NULL || src == NULL)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "%s is NULL", dst == NULL ? "dst" : "src");
    if (count > destMax)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds destMax %zu", count,
                         destMax);
    if ((uint64_t)count > INDIRECT_COPY_MAX)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds 4 GiB", count);
    if ((uint64_t)srcDataOffset > INDIRECT_OFFSET_MAX ||
        (uint64_t)dstDataOffset > INDIRECT_OFFSET_MAX)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "%s %zu exceeds 0x%llx",
                         srcDataOffset > INDIRECT_OFFSET_MAX ? "srcDataOffset" : "dstDataOffset",
                         srcDataOffset > INDIRECT_OFFSET_MAX ? srcDataOffset : dstDataOffset,
                         (unsigned long long)INDIRECT_OFFSET_MAX);
    if (dstDataOffset >= destMax)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "dstDataOffset %zu is not below destMax %zu",
                         dstDataOffset, destMax);
    if (count > destMax - dstDataOffset)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                         "count %zu from dstDataOffset %zu runs past destMax %zu", count,
                         dstDataOffset, destMax);
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = copy_offset_async(__func__, s, dst, destMax, dstDataOffset, src, count, srcDataOffset);
    stream_put(s);
    return ret;
}

/* ---- cache maintenance ------------------------------------------------------------------- */

static aclError cmo_type_valid(const char *func, aclrtCmoType type)
{
    if ((int)type < ACL_RT_CMO_TYPE_PREFETCH || (int)type > ACL_RT_CMO_TYPE_FLUSH)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "cmoType %d is not an aclrtCmoType",
                         (int)type);
    return ACL_SUCCESS;
}

static aclError cmo_queue(const char *func, void *src, size_t size, aclrtCmoType type,
                          aclrtStream stream)
{
    acl_stream *s;
    aclError ret = current_stream_get(func, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = cmo_async(func, s, src, size, type);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
    PROF_API();
    if (src == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "src is NULL");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError ret = cmo_type_valid(__func__, cmoType);
    return ret != ACL_SUCCESS ? ret : cmo_queue(__func__, src, size, cmoType, stream);
}

/* Barrier ids name invalidations that aclrtCmoWaitBarrier waits for; as
 * invalidation has nothing to do on either backend, the wait is already
 * satisfied in stream order. */
ACL_EXPORT aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType,
                                             uint32_t barrierId, aclrtStream stream)
{
    PROF_API();
    if (src == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "src is NULL");
    aclError ret = cmo_type_valid(__func__, cmoType);
    if (ret != ACL_SUCCESS)
        return ret;
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "size is 0");
    if (cmoType == ACL_RT_CMO_TYPE_INVALID && barrierId == 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                         "an invalidation takes a barrierId greater than 0");
    if (cmoType != ACL_RT_CMO_TYPE_INVALID && barrierId != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                         "barrierId %u: only an invalidation takes a barrier id (others take 0)",
                         (unsigned)barrierId);
    return cmo_queue(__func__, src, size, cmoType, stream);
}

ACL_EXPORT aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream,
                                        uint32_t flag)
{
    PROF_API();
    if (taskInfo == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "taskInfo is NULL");
    if (flag != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag %u is reserved and must be 0",
                         (unsigned)flag);
    if (taskInfo->barrierNum == 0 || taskInfo->barrierNum > ACL_RT_CMO_MAX_BARRIER_NUM)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "barrierNum %zu is not in 1..%u",
                         taskInfo->barrierNum, ACL_RT_CMO_MAX_BARRIER_NUM);
    for (size_t i = 0; i < taskInfo->barrierNum; i++) {
        if (taskInfo->cmoInfo[i].cmoType != ACL_RT_CMO_TYPE_INVALID)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                             "cmoInfo[%zu].cmoType is %d: barriers wait for invalidations "
                             "(ACL_RT_CMO_TYPE_INVALID) only",
                             i, (int)taskInfo->cmoInfo[i].cmoType);
        if (taskInfo->cmoInfo[i].barrierId == 0)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "cmoInfo[%zu].barrierId is 0", i);
    }
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret == ACL_SUCCESS)
        stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtCmoGetDescSize(size_t *size)
{
    PROF_API();
    if (size == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is NULL");
    *size = CMO_DESC_SIZE;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size)
{
    PROF_API();
    if (cmoDesc == NULL || src == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         cmoDesc == NULL ? "cmoDesc" : "src");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    if ((uintptr_t)cmoDesc % 64 != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "cmoDesc %p is not 64-byte aligned", cmoDesc);
    return cmo_desc_set(__func__, cmoDesc, src, size);
}

ACL_EXPORT aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
                                          const void *reserve)
{
    PROF_API();
    if (cmoDesc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "cmoDesc is NULL");
    if (reserve != NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
    aclError ret = cmo_type_valid(__func__, cmoType);
    if (ret != ACL_SUCCESS)
        return ret;
    if (cmoType != ACL_RT_CMO_TYPE_PREFETCH)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "cmoType %d: a descriptor takes ACL_RT_CMO_TYPE_PREFETCH only",
                         (int)cmoType);
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = cmo_desc_async(__func__, s, cmoDesc);
    stream_put(s);
    return ret;
}

/* A GPU's L2 is the point of coherence for everything that reaches its
 * memory (SMs, copy engines, peers, the host through copies), so there is
 * nothing to flush; the call checks its argument and the current device. */
ACL_EXPORT aclError aclrtDeviceL2CacheFlush(void *rsv)
{
    PROF_API();
    if (rsv != NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "rsv is reserved and must be NULL");
    acl_context *ctx;
    aclError ret = current_context_get(__func__, &ctx);
    if (ret == ACL_SUCCESS)
        context_put(ctx);
    return ret;
}

/* ---- memory use ------------------------------------------------------------------------ */

static int usage_by_size(const void *a, const void *b)
{
    const memory_usage_entry *x = a, *y = b;
    return x->current < y->current   ? 1
           : x->current > y->current ? -1
                                     : (int)x->origin - (int)y->origin;
}

/* One entry per ACL allocator that has held memory on the device, named
 * after its function, largest current use first. */
ACL_EXPORT aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo,
                                         size_t inputNum, size_t *outputNum)
{
    PROF_API();
    if (memUsageInfo == NULL || outputNum == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         memUsageInfo == NULL ? "memUsageInfo" : "outputNum");
    int32_t phys;
    if (device_to_phys(deviceId, &phys) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d visible)",
                         deviceId, device_visible_count());
    memory_usage_entry entries[ORIGIN_COUNT];
    size_t n = memory_usage(phys, entries, ORIGIN_COUNT);
    qsort(entries, n, sizeof entries[0], usage_by_size);
    if (n > inputNum)
        n = inputNum;
    for (size_t i = 0; i < n; i++) {
        memset(&memUsageInfo[i], 0, sizeof memUsageInfo[i]);
        snprintf(memUsageInfo[i].name, sizeof memUsageInfo[i].name, "%s",
                 memory_origin_maker(entries[i].origin));
        memUsageInfo[i].curMemSize = entries[i].current;
        memUsageInfo[i].memPeakSize = entries[i].peak;
    }
    *outputNum = n;
    return ACL_SUCCESS;
}

/* ---- memory for the task scheduler, and memory types ---------------------------------- */

/* Device memory the GPU's scheduler may use is any device memory. A policy
 * outside aclrtMemMallocPolicy is not an error here: CANN then picks huge
 * pages from 2 MiB on. */
ACL_EXPORT aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size,
                                                aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg)
{
    PROF_API();
    const size_t huge = (size_t)2 << 20;
    uint32_t p = (uint32_t)policy;
    if (!policy_valid(p))
        p = size >= huge ? ACL_MEM_MALLOC_HUGE_ONLY : ACL_MEM_MALLOC_NORMAL_ONLY;
    size_t padded;
    aclError ret = device_alloc_args(__func__, devPtr, size, p, false, &padded);
    if (ret != ACL_SUCCESS)
        return ret;
    bool has_device;
    int32_t device = 0, phys;
    ret = malloc_config_read(__func__, cfg, &has_device, &device);
    if (ret != ACL_SUCCESS)
        return ret;
    if (has_device) {
        if (device_to_phys(device, &phys) != ACL_SUCCESS)
            return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d visible)",
                             device, device_visible_count());
    } else {
        acl_context *ctx;
        ret = current_context_get(__func__, &ctx);
        if (ret != ACL_SUCCESS)
            return ret;
        phys = ctx->phys;
        device = ctx->device;
        context_put(ctx);
    }
    return device_alloc(__func__, devPtr, size, padded, p, phys, device, ORIGIN_TASK_SCHEDULER);
}

/* The types an address has, as aclrtCheckMemType's bits. */
static uint32_t mem_types_of(const void *addr)
{
    uint32_t types = 0;
    mem_block b;
    if (registry_find(addr, &b)) {
        if (b.origin == ORIGIN_DVPP)
            types |= ACL_RT_MEM_TYPE_DVPP;
        else if (b.kind == MEM_DEVICE && b.origin != ORIGIN_MAPPED)
            types |= ACL_RT_MEM_TYPE_DEV;
    }
    if (vmm_reserved(addr))
        types |= ACL_RT_MEM_TYPE_RSVD;
    return types;
}

ACL_EXPORT aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType,
                                      uint32_t *checkResult, uint32_t reserve)
{
    PROF_API();
    if (addrList == NULL || checkResult == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         addrList == NULL ? "addrList" : "checkResult");
    *checkResult = 0;
    if (reserve != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "reserve %u must be 0", (unsigned)reserve);
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "size is 0");
    const uint32_t known = ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD;
    if ((memType & ~known) != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                         "memType 0x%x has bits beyond ACL_RT_MEM_TYPE_DEV | _DVPP | _RSVD (0x%x)",
                         (unsigned)memType, (unsigned)known);
    uint32_t result = 1;
    for (uint32_t i = 0; i < size && result; i++)
        if ((mem_types_of(addrList[i]) & memType) == 0)
            result = 0;
    *checkResult = result;
    return ACL_SUCCESS;
}
