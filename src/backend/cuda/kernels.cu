/* The few device functions the cuda backend needs for ACL operations that
 * CUDA has no call for. This file is not compiled by the build: the PTX of
 * it is kept in kernels_ptx.h (regenerate with scripts/gen-kernels-ptx.sh)
 * and the driver compiles that for the device at run time, so the library
 * needs no nvcc and runs on any GPU the driver supports. */
#include <stdint.h>

/* A copy whose addresses live in device memory (aclrtMemcpyAsyncWithDesc,
 * aclrtMemcpyAsyncWithOffset): read them when the copy runs. With dst_slot
 * NULL it prefetches the source range into L2 instead (aclrtCmoAsync). */
extern "C" __global__ void aclcuda_indirect_copy(const uint64_t *dst_slot, uint64_t dst_offset,
                                                 const uint64_t *src_slot, uint64_t src_offset,
                                                 const uint64_t *count_slot, uint64_t count,
                                                 uint64_t dest_max)
{
    uint64_t n = count_slot ? *count_slot : count;
    if (n > dest_max)
        n = dest_max;
    uint64_t src_addr = (src_slot ? *src_slot : 0) + src_offset;
    uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    if (dst_slot == 0) {
        /* One prefetch per 128-byte line. */
        for (uint64_t off = first * 128; off < n; off += stride * 128)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(src_addr + off));
        return;
    }
    unsigned char *dst = (unsigned char *)(*dst_slot + dst_offset);
    const unsigned char *src = (const unsigned char *)src_addr;
    if ((((uintptr_t)dst | (uintptr_t)src) & 15) == 0) {
        uint64_t words = n / 16;
        uint4 *d = (uint4 *)dst;
        const uint4 *s = (const uint4 *)src;
        for (uint64_t i = first; i < words; i += stride)
            d[i] = s[i];
        for (uint64_t i = words * 16 + first; i < n; i += stride)
            dst[i] = src[i];
    } else {
        for (uint64_t i = first; i < n; i += stride)
            dst[i] = src[i];
    }
}
