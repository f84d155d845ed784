/* The samples' kernel on the host backend: the same vector_add as
 * vector_add.cu, as a host kernel (acl/acl_cuda.h): a C function run once
 * per block on the library's worker threads, given its block index, the
 * number of blocks and the packed argument buffer, built into a shared
 * object that aclrtBinaryLoadFromFile loads. Block b adds its share of the
 * n elements. */
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_cuda.h"

struct vector_add_args {
    const float *x, *y;
    float *z;
    uint32_t n;
};

__attribute__((visibility("default"))) void vector_add(uint32_t block, uint32_t nblocks, void *args,
                                                       size_t size)
{
    (void)size;
    const struct vector_add_args *a = args;
    uint32_t first = (uint32_t)((uint64_t)a->n * block / nblocks);
    uint32_t end = (uint32_t)((uint64_t)a->n * (block + 1) / nblocks);
    for (uint32_t i = first; i < end; i++)
        a->z[i] = a->x[i] + a->y[i];
}

/* The parameter sizes, so that launches with a wrong argument size are refused. */
__attribute__((visibility("default"))) ACLCUDA_HOST_KERNEL_PARAMS(vector_add, 8, 8, 8, 4);
