/* The arguments of the built-in kernels (builtin_kernels.cu), shared by the
 * C side that launches them (builtin.c). Plain C types only: nvcc and the C
 * compiler lay them out alike. */
#ifndef ACLCUDA_BACKEND_CUDA_BUILTIN_KERNELS_H
#define ACLCUDA_BACKEND_CUDA_BUILTIN_KERNELS_H

#include <stdint.h>

/* What random_params says, in kernel form (the enums' values as numbers). */
typedef struct builtin_scalar {
    uint8_t is_addr;
    uint8_t size;
    uint8_t bytes[8];
} builtin_scalar;

typedef struct builtin_random_args {
    uint32_t dist; /* random_dist */
    uint32_t type; /* random_type */
    builtin_scalar a, b, seed, count;
    void *result;
    const void *counter;
} builtin_random_args;

/* What aclcuda_flow_select writes to its word: flow_select of backend.h,
 * its kind as a number. */
typedef struct builtin_select_args {
    uint32_t kind; /* flow_select_kind */
    uint32_t count;
    uint32_t cmp; /* aclrtCondition */
    uint32_t wide;
    uint64_t value;
    const void *index, *left, *right;
} builtin_select_args;

#endif
