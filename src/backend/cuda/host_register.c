/* The cuda backend's registered host memory: cudaHostRegister, portable
 * (every device's context sees it as page-locked), mapped and read-only
 * when asked. */
#include "backend/cuda/cuda.h"

static aclError cuda_register_range(int32_t dev, void *ptr, size_t size, uint32_t flags)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    unsigned int how = cudaHostRegisterPortable;
    if (flags & ACL_HOST_REG_MAPPED)
        how |= cudaHostRegisterMapped;
    if (flags & ACL_HOST_REG_READONLY)
        how |= cudaHostRegisterReadOnly;
    return check(cudaHostRegister(ptr, size, how));
}

static aclError cuda_unregister_range(int32_t dev, void *ptr)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaHostUnregister(ptr));
}

static aclError cuda_device_pointer(int32_t dev, void *ptr, void **dev_ptr)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaHostGetDevicePointer(dev_ptr, ptr, 0));
}

static aclError cuda_can_map(int32_t dev, bool *can)
{
    int value = 0;
    aclError rc = check(cudaDeviceGetAttribute(&value, cudaDevAttrCanMapHostMemory, dev));
    if (rc == ACL_SUCCESS)
        *can = value != 0;
    return rc;
}

const backend_host_register_ops cuda_host_register_ops = {
    .register_range = cuda_register_range,
    .unregister_range = cuda_unregister_range,
    .device_pointer = cuda_device_pointer,
    .can_map = cuda_can_map,
};
