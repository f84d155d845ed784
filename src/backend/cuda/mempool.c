/* The cuda backend's memory pools: CUDA memory pools (cudaMemPoolCreate),
 * allocated from with cudaMallocFromPoolAsync and freed with
 * cudaFreeAsync. ACL's aclrtMemPoolAttr values are CUDA's cudaMemPoolAttr
 * values, in the same order; the reuse switches start off, as in CANN
 * (CUDA's own default is on). */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_rt_memory_soma.h"
#include "backend/cuda/cuda.h"

struct backend_pool {
    cudaMemPool_t pool;
    int dev;
};

static aclError cuda_pool_create(backend_pool **out, int32_t dev, size_t max_size)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    backend_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
#if CUDART_VERSION >= 12020
    props.maxSize = max_size;
#else
    (void)max_size; /* the core enforces the size */
#endif
    rc = check(cudaMemPoolCreate(&p->pool, &props));
    if (rc != ACL_SUCCESS) {
        free(p);
        return rc;
    }
    p->dev = dev;
    int off = 0;
    (void)cudaMemPoolSetAttribute(p->pool, cudaMemPoolReuseFollowEventDependencies, &off);
    (void)cudaMemPoolSetAttribute(p->pool, cudaMemPoolReuseAllowOpportunistic, &off);
    (void)cudaMemPoolSetAttribute(p->pool, cudaMemPoolReuseAllowInternalDependencies, &off);
    *out = p;
    return ACL_SUCCESS;
}

/* Memory still allocated (or with frees still queued) keeps CUDA's pool
 * until it is freed. */
static void cuda_pool_destroy(backend_pool *p)
{
    (void)cudaMemPoolDestroy(p->pool);
    free(p);
}

static aclError cuda_pool_trim(backend_pool *p, size_t keep)
{
    return check(cudaMemPoolTrimTo(p->pool, keep));
}

static aclError cuda_pool_set_attr(backend_pool *p, int32_t attr, uint64_t value)
{
    enum cudaMemPoolAttr a = (enum cudaMemPoolAttr)attr;
    if (attr <= ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
        int on = value != 0;
        return check(cudaMemPoolSetAttribute(p->pool, a, &on));
    }
    unsigned long long v = value;
    return check(cudaMemPoolSetAttribute(p->pool, a, &v));
}

static aclError cuda_pool_get_attr(backend_pool *p, int32_t attr, uint64_t *value)
{
    enum cudaMemPoolAttr a = (enum cudaMemPoolAttr)attr;
    if (attr <= ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
        int on = 0;
        aclError rc = check(cudaMemPoolGetAttribute(p->pool, a, &on));
        *value = (uint64_t)(on != 0);
        return rc;
    }
    unsigned long long v = 0;
    aclError rc = check(cudaMemPoolGetAttribute(p->pool, a, &v));
    *value = v;
    return rc;
}

aclError cuda_pool_alloc_async(backend_stream *s, backend_pool *p, size_t n, void **ptr)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMallocFromPoolAsync(ptr, n, p->pool, s->s));
}

/* Pool memory goes back to its pool in stream order. aclrtMalloc memory
 * (cudaMalloc's) is freed once the stream has done its work: a host
 * function cannot call CUDA, so the stream is waited for here. */
aclError cuda_pool_free_async(backend_stream *s, backend_pool *p, void *ptr, size_t n, int32_t dev)
{
    (void)n;
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (p != NULL)
        return check(cudaFreeAsync(ptr, s->s));
    rc = check(cudaStreamSynchronize(s->s));
    if (rc == ACL_SUCCESS)
        rc = use_device(dev);
    return rc == ACL_SUCCESS ? check(cudaFree(ptr)) : rc;
}

const backend_pool_ops cuda_pool_ops = {
    .create = cuda_pool_create,
    .destroy = cuda_pool_destroy,
    .trim = cuda_pool_trim,
    .set_attr = cuda_pool_set_attr,
    .get_attr = cuda_pool_get_attr,
};
