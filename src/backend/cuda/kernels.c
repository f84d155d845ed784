/* The backend's own device functions (kernels.cu, kept as PTX in
 * kernels_ptx.h): loaded once per device through the driver API, which
 * compiles the PTX for the GPU at hand. */
#include <pthread.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "backend/cuda/kernels_ptx.h"

enum { KERNEL_DEVICES = 64, THREADS = 256, MAX_BLOCKS = 1024 };

typedef struct device_kernels {
    pthread_mutex_t lock;
    bool loaded;
    aclError error; /* of the one load attempt */
    CUfunction indirect_copy;
} device_kernels;

#define KERNELS_INIT                                                                               \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, false, ACL_SUCCESS, NULL                                        \
    }
#define KERNELS_INIT4 KERNELS_INIT, KERNELS_INIT, KERNELS_INIT, KERNELS_INIT
#define KERNELS_INIT16 KERNELS_INIT4, KERNELS_INIT4, KERNELS_INIT4, KERNELS_INIT4
static device_kernels kernels[KERNEL_DEVICES] = {KERNELS_INIT16, KERNELS_INIT16, KERNELS_INIT16,
                                                 KERNELS_INIT16};

/* Loads the module into dev's primary context (current after
 * use_device). The module stays for the life of the context. */
static aclError load(int dev, device_kernels *k)
{
    if (!driver_ready() || !drv.cuModuleLoadData || !drv.cuModuleGetFunction || !drv.cuLaunchKernel)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    /* cudart makes the primary context current lazily: make sure it is. */
    rc = check(cudaFree(NULL));
    if (rc != ACL_SUCCESS)
        return rc;
    CUmodule module;
    CUresult r = drv.cuModuleLoadData(&module, kernels_ptx);
    if (r == CUDA_SUCCESS)
        r = drv.cuModuleGetFunction(&k->indirect_copy, module, "aclcuda_indirect_copy");
    return from_cu(r);
}

static aclError kernels_for(int dev, device_kernels **out)
{
    if (dev < 0 || dev >= KERNEL_DEVICES)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    device_kernels *k = &kernels[dev];
    pthread_mutex_lock(&k->lock);
    if (!k->loaded) {
        k->error = load(dev, k);
        k->loaded = true;
    }
    pthread_mutex_unlock(&k->lock);
    *out = k;
    return k->error;
}

void cuda_kernels_preload(int dev)
{
    device_kernels *k;
    (void)kernels_for(dev, &k);
}

aclError cuda_launch_indirect_copy(int dev, cudaStream_t stream, const indirect_copy *c)
{
    device_kernels *k;
    aclError rc = kernels_for(dev, &k);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = use_device(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Enough blocks for the known size (16 bytes per thread and step, or
     * a 128-byte line per thread for a prefetch); a size read on the
     * device gets the most. */
    uint64_t per_block = c->dst_slot ? (uint64_t)THREADS * 16 : (uint64_t)THREADS * 128;
    uint64_t blocks = c->count_slot ? MAX_BLOCKS : (c->count + per_block - 1) / per_block;
    if (blocks == 0)
        blocks = 1;
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    const uint64_t *dst_slot = c->dst_slot, *src_slot = c->src_slot, *count_slot = c->count_slot;
    uint64_t dst_offset = c->dst_offset, src_offset = c->src_offset, count = c->count,
             dest_max = c->dest_max;
    void *params[] = {&dst_slot,   &dst_offset, &src_slot, &src_offset,
                      &count_slot, &count,      &dest_max};
    return from_cu(drv.cuLaunchKernel(k->indirect_copy, (unsigned)blocks, 1, 1, THREADS, 1, 1, 0,
                                      (CUstream)stream, params, NULL));
}
