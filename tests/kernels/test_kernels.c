/* The test kernels as host backend kernels (acl/acl_cuda.h): the same
 * names, parameters and results as test_kernels.cu. A block covers its
 * share of the elements; the CUDA versions use grid-stride loops, so both
 * give the same results for any number of blocks. */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl_cuda.h"

#define EXPORT __attribute__((visibility("default")))

/* This block's share [*first, *end) of n elements. */
static void share(uint32_t block, uint32_t nblocks, uint32_t n, uint32_t *first, uint32_t *end)
{
    *first = (uint32_t)((uint64_t)n * block / nblocks);
    *end = (uint32_t)((uint64_t)n * (block + 1) / nblocks);
}

struct vector_add_args {
    const float *x, *y;
    float *z;
    uint32_t n;
};

EXPORT void vector_add(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)size;
    const struct vector_add_args *a = args;
    uint32_t first, end;
    share(block, nblocks, a->n, &first, &end);
    for (uint32_t i = first; i < end; i++)
        a->z[i] = a->x[i] + a->y[i];
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(vector_add, 8, 8, 8, 4);

EXPORT void empty(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)block;
    (void)nblocks;
    (void)args;
    (void)size;
}
EXPORT const uint32_t empty_aclcuda_params[] = {0};

/* out[0] = the last block's index, out[1] = the number of blocks. */
EXPORT void last_block(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)size;
    uint32_t *out;
    memcpy(&out, args, sizeof out);
    if (block == nblocks - 1) {
        out[0] = block;
        out[1] = nblocks;
    }
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(last_block, 8);

struct scale_args {
    float *data;
    const float *factor; /* a placeholder */
    uint32_t n;
};

EXPORT void scale(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)size;
    const struct scale_args *a = args;
    uint32_t first, end;
    share(block, nblocks, a->n, &first, &end);
    for (uint32_t i = first; i < end; i++)
        a->data[i] *= *a->factor;
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(scale, 8, 8, 4);

struct add_scalar_args {
    int32_t *data;
    int32_t value;
    uint32_t n;
};

EXPORT void add_scalar(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)size;
    const struct add_scalar_args *a = args;
    uint32_t first, end;
    share(block, nblocks, a->n, &first, &end);
    for (uint32_t i = first; i < end; i++)
        a->data[i] += a->value;
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(add_scalar, 8, 4, 4);

/* counter[0] += 1, once per launch. */
EXPORT void increment(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    int32_t *counter;
    memcpy(&counter, args, sizeof counter);
    if (block == 0)
        counter[0] += 1;
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(increment, 8);

/* out[i] = test_global[i] for i < 4. */
EXPORT int32_t test_global[4] = {11, 22, 33, 44};

EXPORT void read_global(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    int32_t *out;
    memcpy(&out, args, sizeof out);
    if (block == 0)
        for (int i = 0; i < 4; i++)
            out[i] = test_global[i];
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(read_global, 8);

/* *p = 1 (the cuda backend's tests make it fault; never given a bad address here). */
EXPORT void store_one(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    int32_t *p;
    memcpy(&p, args, sizeof p);
    if (block == 0)
        *p = 1;
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(store_one, 8);

/* Waits until *flag (host memory the test writes) is not 0, then *out = 1:
 * a kernel that runs for as long as the test wants. */
EXPORT void store_after_flag(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    struct {
        const int32_t *flag;
        int32_t *out;
    } a;
    memcpy(&a, args, sizeof a);
    if (block != 0)
        return;
    while (__atomic_load_n(a.flag, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    *a.out = 1;
}
EXPORT ACLCUDA_HOST_KERNEL_PARAMS(store_after_flag, 8, 8);

/* out[0] = a + b. It does not describe its parameters (no
 * ACLCUDA_HOST_KERNEL_PARAMS): a launch passes the whole argument buffer. */
EXPORT void add_pair(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    struct {
        int32_t *out;
        int32_t a, b;
    } p;
    if (block != 0 || size < sizeof p)
        return;
    memcpy(&p, args, sizeof p);
    p.out[0] = p.a + p.b;
}
