/* The host backend's copies and fills that run both at once (the memory
 * operations, memory.c) and as tasks of a stream (queue.c): plain CPU work
 * on memory the caller names, apart from the arenas that own it. */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backend/host/host.h"
#include "util/log.h"

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

void host_fill32(uint32_t *dst, uint32_t value, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dst[i] = value;
}

/* Reads the addresses when it runs, as the device would, and copies only
 * between memory the core's check accepts (a device reaches its own memory,
 * never the host's heap): anything else fails as a DMA fault would. The
 * copy itself goes through the kernel (process_vm_readv on ourselves),
 * which refuses unmapped addresses instead of faulting. */
aclError host_copy_indirect(const indirect_copy *copy)
{
    uint64_t n = copy->count_slot ? *copy->count_slot : copy->count;
    if (n > copy->dest_max)
        n = copy->dest_max;
    if (copy->dst_slot == NULL || n == 0)
        return ACL_SUCCESS;
    uint64_t dst_addr, src_addr, dst_end, src_end;
    if (__builtin_add_overflow(*copy->dst_slot, copy->dst_offset, &dst_addr) ||
        __builtin_add_overflow(*copy->src_slot, copy->src_offset, &src_addr) ||
        __builtin_add_overflow(dst_addr, n, &dst_end) ||
        __builtin_add_overflow(src_addr, n, &src_end)) {
        ACL_LOG(LOG_ERROR,
                "a copy through device-side addresses (0x%llx + %llu to 0x%llx + %llu, %llu "
                "bytes) runs past the end of the address space; nothing was copied",
                (unsigned long long)*copy->src_slot, (unsigned long long)copy->src_offset,
                (unsigned long long)*copy->dst_slot, (unsigned long long)copy->dst_offset,
                (unsigned long long)n);
        return ACL_ERROR_RT_SYS_DMA;
    }
    if (copy->check && !copy->check(dst_addr, src_addr, n))
        return ACL_ERROR_RT_SYS_DMA;
    char *dst = (char *)(uintptr_t)dst_addr;
    const char *src = (const char *)(uintptr_t)src_addr;
    struct iovec local = {dst, (size_t)n}, remote = {(void *)src, (size_t)n};
    ssize_t done = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (done < 0 && (errno == ENOSYS || errno == EPERM)) {
        memmove(dst, src, (size_t)n); /* the call is filtered here: copy directly */
    } else if (done != (ssize_t)n) {
        ACL_LOG(LOG_ERROR,
                "a copy through device-side addresses from %p to %p (%llu bytes) hit "
                "an unmapped address; nothing more was copied",
                (const void *)src, (void *)dst, (unsigned long long)n);
        return ACL_ERROR_RT_SYS_DMA;
    }
    return ACL_SUCCESS;
}
