// ACL's headers first, then CUDA's runtime header (when CUDA is present):
// acl_rt.h takes dim3 from CUDA's vector_types.h, so cuda_runtime.h does not
// define it a second time.
#include "config.h"

#include "acl/acl.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

int headers_cxx_acl_first_failures();

// The SIMT launch takes dim3 by value: it is the same type as CUDA's.
static aclError (*volatile simt_launch)(void *, dim3, dim3, size_t, aclrtStream, aclrtLaunchKernelCfg *,
                                        void **) = aclrtLaunchSIMTKernelWithArgsArray;

int headers_cxx_acl_first_failures()
{
    int failed = 0;
    constexpr dim3 block(32);
    static_assert(block.x == 32 && block.y == 1 && block.z == 1, "dim3 defaults to 1");
#ifdef ACLCUDA_HAVE_CUDA
    // Only CUDA's dim3 converts from a uint3.
    dim3 from_cuda(make_uint3(1, 2, 3));
    if (from_cuda.z != 3)
        failed++;
    cudaStream_t cuda_stream = nullptr;
    aclrtStream acl_stream = cuda_stream;
    if (acl_stream != nullptr)
        failed++;
#endif
    if (sizeof(dim3) != 12 || ACL_MINOR_VERSION != 17 || simt_launch == nullptr)
        failed++;
    return failed;
}
