/* The cuda backend's built-in tasks: reductions and random numbers, run by
 * our own kernels (builtin_kernels.cu). The fatbin is part of the library
 * (builtin_blob.S) and loaded into a CUDA library on first use, so a
 * library without a driver still loads. */
#include <stdio.h>
#include <string.h>

#include "backend/cuda/builtin_kernels.h"
#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

#ifdef ACLCUDA_HAVE_BUILTIN_KERNELS

extern const unsigned char aclcuda_builtin_fatbin[];

enum {
    THREADS = 256,
    MAX_BLOCKS = 65536,
    RANDOM_BLOCKS_UNKNOWN = 1024, /* when the count is read on the device */
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static CUlibrary builtin_library;
static CUresult load_result = CUDA_ERROR_NOT_INITIALIZED;

static void load_builtin(void)
{
    if (!driver_ready() || !drv.cuLibraryLoadData) {
        load_result = CUDA_ERROR_NOT_SUPPORTED;
        return;
    }
    load_result = drv.cuLibraryLoadData(&builtin_library, aclcuda_builtin_fatbin, NULL, NULL, 0,
                                        NULL, NULL, 0);
}

/* The kernel by name; launched as a CUfunction of the current context. */
static aclError builtin_kernel(const char *name, CUkernel *out)
{
    pthread_once(&load_once, load_builtin);
    if (load_result != CUDA_SUCCESS)
        return load_result == CUDA_ERROR_NOT_SUPPORTED ? ACL_ERROR_RT_FEATURE_NOT_SUPPORT
                                                       : from_cu(load_result);
    return from_cu(drv.cuLibraryGetKernel(out, builtin_library, name));
}

static unsigned blocks_for(unsigned long long work)
{
    unsigned long long blocks = (work + THREADS - 1) / THREADS;
    return blocks == 0 ? 1 : blocks > MAX_BLOCKS ? MAX_BLOCKS : (unsigned)blocks;
}

static aclError cuda_builtin_launch(backend_stream *s, CUkernel k, unsigned blocks, void **params)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    return from_cu(drv.cuLaunchKernel((CUfunction)k, blocks, 1, 1, THREADS, 1, 1, 0, (CUstream)s->s,
                                      params, NULL));
}

static const char *const reduce_ops[] = {"sum", "max", "min"};
static const char *const reduce_types[] = {"i8", "i16", "i32", "u32", "f16", "bf16", "f32"};
enum { REDUCE_OPS = sizeof reduce_ops / sizeof *reduce_ops };
enum { REDUCE_TYPES = sizeof reduce_types / sizeof *reduce_types };

static void reduce_kernel_name(char name[64], int op, int type)
{
    snprintf(name, 64, "aclcuda_reduce_%s_%s", reduce_ops[op], reduce_types[type]);
}

void cuda_builtin_preload(int dev)
{
    CUkernel k;
    CUfunction f;
    if (builtin_kernel("aclcuda_random", &k) != ACL_SUCCESS || !drv.cuKernelGetFunction ||
        use_device_checked(dev) != ACL_SUCCESS || check(cudaFree(NULL)) != ACL_SUCCESS)
        return; /* the launches report it */
    (void)drv.cuKernelGetFunction(&f, k);
    /* Loaded now: conditional tasks launch them while streams are captured. */
    if (builtin_kernel("aclcuda_set_condition", &k) == ACL_SUCCESS)
        (void)drv.cuKernelGetFunction(&f, k);
    if (builtin_kernel("aclcuda_flow_select", &k) == ACL_SUCCESS)
        (void)drv.cuKernelGetFunction(&f, k);
    for (int op = 0; op < REDUCE_OPS; op++)
        for (int type = 0; type < REDUCE_TYPES; type++) {
            char name[64];
            reduce_kernel_name(name, op, type);
            if (builtin_kernel(name, &k) == ACL_SUCCESS)
                (void)drv.cuKernelGetFunction(&f, k);
        }
}

aclError cuda_reduce(backend_stream *s, void *dst, const void *src, size_t elements, reduce_op op,
                     reduce_type type)
{
    static const unsigned sizes[REDUCE_TYPES] = {1, 2, 4, 4, 2, 2, 4};
    char name[64];
    reduce_kernel_name(name, op, type);
    CUkernel k;
    aclError rc = builtin_kernel(name, &k);
    if (rc)
        return rc;
    unsigned long long n = elements;
    /* One thread per 16-byte vector covers the aligned bulk. */
    unsigned long long work = n / (16 / sizes[type]) + 16;
    void *params[] = {&dst, &src, &n};
    return cuda_builtin_launch(s, k, blocks_for(work), params);
}

static builtin_scalar scalar_of(const random_scalar *r)
{
    builtin_scalar b;
    b.is_addr = r->is_addr;
    b.size = r->size;
    memcpy(b.bytes, r->bytes, sizeof b.bytes);
    return b;
}

aclError cuda_random(backend_stream *s, const random_params *p)
{
    CUkernel k;
    aclError rc = builtin_kernel("aclcuda_random", &k);
    if (rc)
        return rc;
    builtin_random_args a = {
        .dist = (uint32_t)p->dist,
        .type = (uint32_t)p->type,
        .a = scalar_of(&p->a),
        .b = scalar_of(&p->b),
        .seed = scalar_of(&p->seed),
        .count = scalar_of(&p->count),
        .result = p->result,
        .counter = p->counter,
    };
    unsigned blocks = RANDOM_BLOCKS_UNKNOWN;
    if (!p->count.is_addr) {
        unsigned long long n = 0;
        memcpy(&n, p->count.bytes, p->count.size);
        blocks = blocks_for(p->dist == RANDOM_DROPOUT_BITMASK ? (n + 7) / 8 : n);
    }
    void *params[] = {&a};
    return cuda_builtin_launch(s, k, blocks, params);
}

#endif

#ifdef ACLCUDA_HAVE_BUILTIN_KERNELS
aclError cuda_set_condition(backend_stream *s, uint64_t cond, const void *word, cond_kind kind)
{
    CUkernel k;
    aclError rc = builtin_kernel("aclcuda_set_condition", &k);
    if (rc)
        return rc;
    unsigned long long handle = cond;
    const uint32_t *stop = cuda_capture_stop_word(s->s);
    unsigned stopped = kind == COND_SWITCH ? 0xffffffffu : 0u;
    void *params[] = {&handle, &word, &stop, &stopped};
    if ((rc = use_device(s->dev)))
        return rc;
    return from_cu(
        drv.cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, (CUstream)s->s, params, NULL));
}

/* builtin_kernels.cu's aclcuda_flow_select takes the kinds as numbers. */
_Static_assert(FLOW_SELECT_CONSTANT == 0 && FLOW_SELECT_INDEX == 1 && FLOW_SELECT_MASK == 2 &&
                   FLOW_SELECT_COMPARE == 3,
               "aclcuda_flow_select's kinds");

aclError cuda_flow_select(backend_stream *s, uint64_t *word, const flow_select *sel)
{
    CUkernel k;
    aclError rc = builtin_kernel("aclcuda_flow_select", &k);
    if (rc)
        return rc;
    builtin_select_args a = {
        .kind = (uint32_t)sel->kind,
        .count = sel->count,
        .cmp = sel->cmp,
        .wide = sel->wide,
        .value = sel->value,
        .index = sel->index,
        .left = sel->left,
        .right = sel->right,
    };
    void *params[] = {&word, &a};
    if ((rc = use_device(s->dev)))
        return rc;
    return from_cu(
        drv.cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, (CUstream)s->s, params, NULL));
}
#else
aclError cuda_set_condition(backend_stream *s, uint64_t cond, const void *word, cond_kind kind)
{
    (void)s;
    (void)cond;
    (void)word;
    (void)kind;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

aclError cuda_flow_select(backend_stream *s, uint64_t *word, const flow_select *sel)
{
    (void)s;
    (void)word;
    (void)sel;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}
#endif
