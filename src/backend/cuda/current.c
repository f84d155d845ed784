/* The calling thread's current device (cuda.h, "the current device"),
 * apart from the devices' operations: every file of the backend calls it,
 * and it calls none of them but the error mapping. */
#include "backend/cuda/cuda.h"

_Thread_local int cuda_tls_device = -1;

aclError cuda_set_device(int dev)
{
    cudaError_t err = cudaSetDevice(dev);
    if (err != cudaSuccess) {
        cuda_tls_device = -1;
        return check(err);
    }
    cuda_tls_device = dev;
    return ACL_SUCCESS;
}

aclError use_device_checked(int dev)
{
    int cur;
    cudaError_t err = cudaGetDevice(&cur);
    if (err == cudaSuccess && cur == dev) {
        cuda_tls_device = dev;
        return ACL_SUCCESS;
    }
    if (err != cudaSuccess)
        (void)cudaGetLastError();
    return cuda_set_device(dev);
}
