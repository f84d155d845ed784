/* Kernel launches on the cuda backend: cuLaunchKernel (cuLaunchKernelEx for
 * cooperative launches) with the packed argument buffer as it is
 * (CU_LAUNCH_PARAM_BUFFER_POINTER), which the driver copies at the call.
 * Placeholder data was staged by the core (core/staging.h), in page-locked
 * host memory the kernel reads through the same address. */
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

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
    return rc;
}
