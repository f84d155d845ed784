/* Kernel launches on the cuda backend: cuLaunchKernel (cuLaunchKernelEx for
 * cooperative launches) with the packed argument buffer as it is
 * (CU_LAUNCH_PARAM_BUFFER_POINTER), which the driver copies at the call.
 *
 * Placeholder data must be readable by the kernel when it runs. It goes
 * to staging blocks of page-locked, mapped host memory (the kernel reads
 * it over the bus, through the same address, as UVA allows), returned once
 * the kernel is done: by a host function queued after it, or, when the
 * launch is being captured, when the graph is destroyed (a CUDA user
 * object). Returned blocks are reused; the return itself calls no CUDA. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

enum {
    STAGING_MIN_SHIFT = 8,  /* 256 bytes */
    STAGING_MAX_SHIFT = 16, /* 64 KiB; larger blocks are not kept */
    STAGING_CLASSES = STAGING_MAX_SHIFT - STAGING_MIN_SHIFT + 1,
    STAGING_KEEP = 64, /* free blocks kept per class */
    LOCAL_ARGS = 4096,
};

typedef struct staging {
    struct staging *next;
    size_t capacity; /* bytes after the header */
    int cls;         /* size class, -1 when larger than the largest */
    _Alignas(16) unsigned char data[];
} staging;

static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;
static staging *staging_free[STAGING_CLASSES];
static size_t staging_count[STAGING_CLASSES];
static staging *staging_returned; /* from host functions and graph teardown */

static void staging_return(void *arg)
{
    staging *b = arg;
    pthread_mutex_lock(&staging_lock);
    b->next = staging_returned;
    staging_returned = b;
    pthread_mutex_unlock(&staging_lock);
}

/* A block of at least size bytes. */
static staging *staging_get(size_t size)
{
    int cls = -1;
    for (int c = 0; c < STAGING_CLASSES; c++)
        if (size <= (size_t)1 << (STAGING_MIN_SHIFT + c)) {
            cls = c;
            break;
        }
    staging *drop = NULL, *found = NULL;
    pthread_mutex_lock(&staging_lock);
    while (staging_returned) {
        staging *b = staging_returned;
        staging_returned = b->next;
        if (b->cls >= 0 && staging_count[b->cls] < STAGING_KEEP) {
            b->next = staging_free[b->cls];
            staging_free[b->cls] = b;
            staging_count[b->cls]++;
        } else {
            b->next = drop;
            drop = b;
        }
    }
    if (cls >= 0 && staging_free[cls]) {
        found = staging_free[cls];
        staging_free[cls] = found->next;
        staging_count[cls]--;
    }
    pthread_mutex_unlock(&staging_lock);
    while (drop) {
        staging *b = drop;
        drop = b->next;
        (void)check(cudaFreeHost(b));
    }
    if (found)
        return found;
    size_t capacity = cls >= 0 ? (size_t)1 << (STAGING_MIN_SHIFT + cls) : size;
    void *p = NULL;
    if (check(cudaHostAlloc(&p, sizeof(staging) + capacity,
                            cudaHostAllocMapped | cudaHostAllocPortable)) != ACL_SUCCESS)
        return NULL;
    staging *b = p;
    b->capacity = capacity;
    b->cls = cls;
    return b;
}

/* Gives the block back once the work queued on s so far is done. */
static aclError staging_release_after(cudaStream_t s, staging *b)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    aclError rc = check(cudaStreamIsCapturing(s, &status));
    if (rc)
        return rc;
    if (status == cudaStreamCaptureStatusActive)
        return cuda_capture_keep(s, b, staging_return);
    return check(cudaLaunchHostFunc(s, staging_return, b));
}

aclError cuda_launch(backend_stream *s, const launch_params *p)
{
    if (!driver_ready() || !drv.cuLaunchKernel)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    CUfunction f = cuda_function_handle(p->fn);
    if ((rc = cuda_function_allow_shared(p->fn, p->shared_bytes)))
        return rc;

    const void *args = p->args;
    size_t size = p->args_size;
    unsigned char local[LOCAL_ARGS];
    unsigned char *heap = NULL;
    staging *block = NULL;
    if (p->placeholder_count) {
        /* Our own copy of the parameters, pointing at staged data. */
        size_t data = 0;
        for (size_t i = 0; i < p->placeholder_count; i++) {
            if (p->placeholders[i].addr_offset + sizeof(void *) > size)
                return ACL_ERROR_RT_PARAM_INVALID;
            data += (p->placeholders[i].size + 15) / 16 * 16;
        }
        unsigned char *copy = size <= LOCAL_ARGS ? local : (heap = malloc(size));
        if (!copy || !(block = staging_get(data ? data : 16))) {
            free(heap);
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        memcpy(copy, args, size);
        size_t at = 0;
        for (size_t i = 0; i < p->placeholder_count; i++) {
            const launch_placeholder *ph = &p->placeholders[i];
            void *where = block->data + at;
            if (ph->size)
                memcpy(where, ph->data, ph->size);
            memcpy(copy + ph->addr_offset, &where, sizeof where);
            at += (ph->size + 15) / 16 * 16;
        }
        args = copy;
    }

    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)args, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &size, CU_LAUNCH_PARAM_END};
    void **launch_extra = size ? extra : NULL;
    CUresult r;
    if (p->cooperative) {
        if (!drv.cuLaunchKernelEx) {
            r = CUDA_ERROR_NOT_SUPPORTED;
        } else {
            CUlaunchAttribute attr;
            memset(&attr, 0, sizeof attr);
            attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attr.value.cooperative = 1;
            CUlaunchConfig config = {
                .gridDimX = p->grid[0],
                .gridDimY = p->grid[1],
                .gridDimZ = p->grid[2],
                .blockDimX = p->block[0],
                .blockDimY = p->block[1],
                .blockDimZ = p->block[2],
                .sharedMemBytes = p->shared_bytes,
                .hStream = (CUstream)s->s,
                .attrs = &attr,
                .numAttrs = 1,
            };
            r = drv.cuLaunchKernelEx(&config, f, NULL, launch_extra);
        }
    } else {
        r = drv.cuLaunchKernel(f, p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1],
                               p->block[2], p->shared_bytes, (CUstream)s->s, NULL, launch_extra);
    }
    rc = from_cu(r);
    if (r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
        rc = ACL_ERROR_RT_PARAM_INVALID; /* more blocks than fit at once */
    if (block) {
        /* Given back once the kernel ran (or at once, if it never will). */
        aclError released = rc ? ACL_ERROR_RT_INTERNAL_ERROR : staging_release_after(s->s, block);
        if (released) {
            if (!rc)
                (void)check(cudaStreamSynchronize(s->s)); /* the kernel must not read freed data */
            staging_return(block);
        }
    }
    free(heap);
    return rc;
}
