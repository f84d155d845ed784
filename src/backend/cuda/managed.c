/* The cuda backend's managed memory: cudaMallocManaged (attached
 * globally), cudaFree, and cudaMemAdvise, whose advice is ACL's shifted
 * by one (cudaMemAdviseSetReadMostly is 1, ACL_MEM_ADVISE_SET_READ_MOSTLY
 * 0, in the same order). */
#include "backend/cuda/cuda.h"

static aclError cuda_managed_alloc(int32_t dev, void **ptr, size_t size)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMallocManaged(ptr, size, cudaMemAttachGlobal));
}

static aclError cuda_managed_free(int32_t dev, void *ptr)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaFree(ptr));
}

static aclError cuda_managed_advise(const void *ptr, size_t size, int32_t advice,
                                    managed_location loc)
{
    enum cudaMemoryAdvise how = (enum cudaMemoryAdvise)(advice + 1);
#if CUDART_VERSION >= 13000
    struct cudaMemLocation where = cuda_managed_location(loc);
    /* CUDA counts the host as one processor that may access the range: a
     * NUMA node of it is refused here (the core keeps ACL's node). */
    if ((how == cudaMemAdviseSetAccessedBy || how == cudaMemAdviseUnsetAccessedBy) &&
        where.type != cudaMemLocationTypeDevice) {
        where.type = cudaMemLocationTypeHost;
        where.id = 0;
    }
    return check(cudaMemAdvise(ptr, size, how, where));
#else
    int target = loc.type == ACL_MEM_LOCATIONTYPE_DEVICE ? loc.id : cudaCpuDeviceId;
    return check(cudaMemAdvise(ptr, size, how, target));
#endif
}

const backend_managed_ops cuda_managed_ops = {
    .alloc = cuda_managed_alloc,
    .free = cuda_managed_free,
    .advise = cuda_managed_advise,
};
