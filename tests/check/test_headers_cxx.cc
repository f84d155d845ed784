// The public headers in a C++ translation unit, after CUDA's runtime header
// when CUDA is present: proves the two can be mixed (no dim3 or other name
// collision) and that the declarations have C linkage.
#include "config.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "acl/acl.h"
#include "acl/acl_cuda.h"

#include <cstdio>

// Referencing the functions makes the link resolve their unmangled names,
// which proves the declarations have C linkage.
static aclError (*volatile set_device)(int32_t) = aclrtSetDevice;
static aclError (*volatile native_stream)(aclrtStream, void **) = aclcudaGetNativeStream;

int main()
{
    int failed = 0;
#ifdef ACLCUDA_HAVE_CUDA
    dim3 grid(4, 2);
    if (grid.x != 4 || grid.y != 2 || grid.z != 1)
        failed++;
    cudaStream_t cuda_stream = nullptr;
    aclrtStream acl_stream = cuda_stream;
    if (acl_stream != nullptr)
        failed++;
#endif
    aclrtMemcpyKind kind = ACL_MEMCPY_DEVICE_TO_HOST;
    aclrtStreamAttrValue attr = {};
    attr.failureMode = ACL_STOP_ON_FAILURE;
    aclrtUuid uuid = {};
    if (kind != 2 || attr.failureMode != 1 || sizeof uuid != 16)
        failed++;
    if (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT != 507046 || ACL_SUCCESS != 0)
        failed++;
    if (set_device == nullptr || native_stream == nullptr)
        failed++;
    std::printf("%d passed, %d failed\n", failed == 0 ? 1 : 0, failed == 0 ? 0 : 1);
    return failed == 0 ? 0 : 1;
}
