/* The host backend's memory: "device" memory is aligned heap memory charged
 * to its device's capacity; "page-locked" host memory is only a label. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backend/host/host.h"
#include "util/log.h"

#define ALLOC_MAGIC UINT64_C(0x686f73746d656d21) /* "hostmem!" */

/* Sits in the DEVICE_ALIGN bytes before each device block, so a free knows
 * what to give back to which device. */
typedef struct alloc_header {
    uint64_t magic;
    size_t charged;
    int32_t dev;
} alloc_header;
_Static_assert(sizeof(alloc_header) <= DEVICE_ALIGN, "header must fit in front of the block");

static aclError host_malloc_device(int32_t dev, void **ptr, size_t size)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (size > SIZE_MAX - 2 * DEVICE_ALIGN)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t charged = ((size ? size : 1) + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN;

    size_t used = atomic_load(&host_device_used[dev]);
    do {
        if (charged > host_config_get()->capacity - used)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
    } while (!atomic_compare_exchange_weak(&host_device_used[dev], &used, used + charged));

    char *block = aligned_alloc(DEVICE_ALIGN, DEVICE_ALIGN + charged);
    if (!block) {
        atomic_fetch_sub(&host_device_used[dev], charged);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    alloc_header *h = (alloc_header *)block;
    h->magic = ALLOC_MAGIC;
    h->charged = charged;
    h->dev = dev;
    *ptr = block + DEVICE_ALIGN;
    return ACL_SUCCESS;
}

static aclError host_free_device(int32_t dev, void *ptr)
{
    (void)dev; /* the header knows which device the block came from */
    if (!ptr || (uintptr_t)ptr % DEVICE_ALIGN)
        return ACL_ERROR_RT_PARAM_INVALID;
    char *block = (char *)ptr - DEVICE_ALIGN;
    alloc_header *h = (alloc_header *)block;
    if (h->magic != ALLOC_MAGIC || h->dev < 0 || h->dev >= HOST_MAX_DEVICES)
        return ACL_ERROR_RT_MEMORY_FREE;
    h->magic = 0;
    atomic_fetch_sub(&host_device_used[h->dev], h->charged);
    free(block);
    return ACL_SUCCESS;
}

static aclError host_malloc_host(void **ptr, size_t size)
{
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    size_t page = host_config_get()->page_size;
    if (size > SIZE_MAX - page)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t rounded = ((size ? size : 1) + page - 1) / page * page;
    /* "Pinned" is only a label here: nothing pages the memory out that a copy
     * would have to wait for, so it is not locked. */
    void *p = aligned_alloc(page, rounded);
    if (!p)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *ptr = p;
    return ACL_SUCCESS;
}

static aclError host_free_host(void *ptr)
{
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    free(ptr);
    return ACL_SUCCESS;
}

void host_copy_2d(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                  size_t height)
{
    for (size_t row = 0; row < height; row++)
        memmove(dst + row * dpitch, src + row * spitch, width);
}

aclError host_check_2d(const void *dst, size_t dpitch, const void *src, size_t spitch, size_t width)
{
    if (!dst || !src || dpitch < width || spitch < width)
        return ACL_ERROR_RT_PARAM_INVALID;
    return ACL_SUCCESS;
}

static aclError host_memcpy_sync(int32_t dev, void *dst, const void *src, size_t n, copy_dir dir,
                                 bool src_pinned)
{
    (void)dev;
    (void)dir; /* every direction is a CPU copy */
    (void)src_pinned;
    if (n == 0)
        return ACL_SUCCESS;
    if (!dst || !src)
        return ACL_ERROR_RT_PARAM_INVALID;
    memmove(dst, src, n);
    return ACL_SUCCESS;
}

static aclError host_memcpy2d_sync(int32_t dev, void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height, copy_dir dir,
                                   bool src_pinned)
{
    (void)dev;
    (void)dir;
    (void)src_pinned;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    aclError err = host_check_2d(dst, dpitch, src, spitch, width);
    if (err == ACL_SUCCESS)
        host_copy_2d(dst, dpitch, src, spitch, width, height);
    return err;
}

static aclError host_memset_sync(int32_t dev, void *ptr, uint8_t value, size_t n, bool on_device)
{
    (void)dev;
    (void)on_device;
    if (n == 0)
        return ACL_SUCCESS;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    memset(ptr, value, n);
    return ACL_SUCCESS;
}

void host_fill32(uint32_t *dst, uint32_t value, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dst[i] = value;
}

/* Reads the addresses when it runs, as the device would. The addresses
 * come from memory the caller wrote, so the copy goes through the kernel
 * (process_vm_readv on ourselves), which refuses unmapped addresses instead
 * of faulting: a device would report a bad address, not bring the process
 * down. */
void host_copy_indirect(const indirect_copy *copy)
{
    uint64_t n = copy->count_slot ? *copy->count_slot : copy->count;
    if (n > copy->dest_max)
        n = copy->dest_max;
    if (copy->dst_slot == NULL || n == 0)
        return;
    char *dst = (char *)(uintptr_t)(*copy->dst_slot + copy->dst_offset);
    const char *src = (const char *)(uintptr_t)(*copy->src_slot + copy->src_offset);
    struct iovec local = {dst, (size_t)n}, remote = {(void *)src, (size_t)n};
    ssize_t done = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (done < 0 && (errno == ENOSYS || errno == EPERM))
        memmove(dst, src, (size_t)n); /* the call is filtered here: copy directly */
    else if (done != (ssize_t)n)
        ACL_LOG(LOG_ERROR,
                "a copy through device-side addresses from %p to %p (%llu bytes) hit "
                "an unmapped address; nothing more was copied",
                (const void *)src, (void *)dst, (unsigned long long)n);
}

static aclError host_memset32_sync(int32_t dev, void *ptr, uint32_t value, size_t count,
                                   bool on_device)
{
    (void)dev;
    (void)on_device;
    if (!ptr && count)
        return ACL_ERROR_RT_PARAM_INVALID;
    host_fill32(ptr, value, count);
    return ACL_SUCCESS;
}

const backend_memory_ops host_memory_ops = {
    .malloc_device = host_malloc_device,
    .free_device = host_free_device,
    .malloc_host = host_malloc_host,
    .free_host = host_free_host,
    .memcpy_sync = host_memcpy_sync,
    .memcpy2d_sync = host_memcpy2d_sync,
    .memset_sync = host_memset_sync,
    .memset32_sync = host_memset32_sync,
};
