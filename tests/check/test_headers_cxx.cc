// The public headers in C++ and, with CUDA, beside CUDA's runtime header in
// both orders and in both languages: this file includes CUDA's first; the
// other translation units of this program include ACL's first
// (test_headers_cxx_acl_first.cc, test_headers_c_acl_first.c) or CUDA's
// first in C (test_headers_c_cuda_first.c). Proves the two can be mixed (no
// dim3 or other name collision) and that the declarations have C linkage.
#include "config.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "acl/acl.h"
#include "acl/acl_cuda.h"

#include <cstdio>

extern "C" int headers_c_acl_first_failures(void);
extern "C" int headers_c_cuda_first_failures(void);
int headers_cxx_acl_first_failures();

// Referencing the functions makes the link resolve their unmangled names,
// which proves the declarations have C linkage.
static aclError (*volatile set_device)(int32_t) = aclrtSetDevice;
static aclError (*volatile native_stream)(aclrtStream, void **) = aclcudaGetNativeStream;

// dim3 (CUDA's with CUDA, else acl-cuda's) is usable in constant expressions.
static_assert(sizeof(dim3) == 12, "dim3 is three 32-bit values");
static_assert(dim3().x == 1 && dim3(4).y == 1 && dim3(4, 2).z == 1, "dim3 defaults to 1");

int main()
{
    int failed = 0;
    dim3 grid(4, 2);
    if (grid.x != 4 || grid.y != 2 || grid.z != 1)
        failed++;
#ifdef ACLCUDA_HAVE_CUDA
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
    failed += headers_cxx_acl_first_failures();
    failed += headers_c_acl_first_failures();
    failed += headers_c_cuda_first_failures();
    std::printf("%d passed, %d failed\n", failed == 0 ? 1 : 0, failed == 0 ? 0 : 1);
    return failed == 0 ? 0 : 1;
}
