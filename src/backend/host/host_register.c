/* The host backend's registered host memory. Its "device" is this
 * process's CPUs, which reach every byte of the process, so a registered
 * range is its own device address, and pinning is only a label (nothing
 * pages memory out from under a copy here, as for aclrtMallocHost). What
 * registration checks is that the range is mapped memory: madvise answers
 * ENOMEM for any page of it that is not. */
#include <errno.h>
#include <sys/mman.h>

#include "backend/host/host.h"

static aclError host_register_range(int32_t dev, void *ptr, size_t size, uint32_t flags)
{
    (void)flags;
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (madvise(ptr, size, MADV_NORMAL) != 0)
        return errno == ENOMEM ? ACL_ERROR_RT_PARAM_INVALID : ACL_ERROR_RT_INTERNAL_ERROR;
    return ACL_SUCCESS;
}

static aclError host_unregister_range(int32_t dev, void *ptr)
{
    (void)ptr;
    return host_device_valid(dev) ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}

static aclError host_device_pointer(int32_t dev, void *ptr, void **dev_ptr)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    *dev_ptr = ptr;
    return ACL_SUCCESS;
}

static aclError host_can_map(int32_t dev, bool *can)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    *can = true;
    return ACL_SUCCESS;
}

const backend_host_register_ops host_host_register_ops = {
    .register_range = host_register_range,
    .unregister_range = host_unregister_range,
    .device_pointer = host_device_pointer,
    .can_map = host_can_map,
};
