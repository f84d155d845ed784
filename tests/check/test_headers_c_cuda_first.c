/* CUDA's runtime header first (when CUDA is present), then ACL's, in C:
 * acl_rt.h finds dim3 defined and leaves it to CUDA. */
#include "config.h"

#include <stddef.h>

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "acl/acl.h"

int headers_c_cuda_first_failures(void);

/* The SIMT launch takes dim3 by value: it is the same type as CUDA's. */
static aclError (*volatile simt_launch)(void *, dim3, dim3, size_t, aclrtStream, aclrtLaunchKernelCfg *,
                                        void **) = aclrtLaunchSIMTKernelWithArgsArray;

int headers_c_cuda_first_failures(void)
{
    int failed = 0;
    dim3 grid = {4, 2, 1};
    if (sizeof(dim3) != 12 || offsetof(dim3, z) != 8 || grid.x * grid.y * grid.z != 8)
        failed++;
#ifdef ACLCUDA_HAVE_CUDA
    uint3 cuda_vector = {1, 2, 3};
    cudaStream_t cuda_stream = NULL;
    aclrtStream acl_stream = cuda_stream;
    if (cuda_vector.z != 3 || acl_stream != NULL)
        failed++;
#endif
    if (ACL_MINOR_VERSION != 17 || simt_launch == NULL)
        failed++;
    return failed;
}
