/* The host backend's managed memory: process memory, which its "devices"
 * (this process's CPUs) and the host reach alike, so there is nothing to
 * migrate and advice changes nothing here (the core keeps it for the
 * attribute queries). Allocations start on a 2 MiB boundary, as the pages
 * ACL counts in. A free waits for queued work as device memory's does
 * (quarantine.c). */
#include <stdlib.h>

#include "backend/host/host.h"

enum { MANAGED_ALIGN = 2 << 20 };

static aclError host_managed_alloc(int32_t dev, void **ptr, size_t size)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (size == 0 || size % MANAGED_ALIGN != 0)
        return ACL_ERROR_RT_PARAM_INVALID;
    host_release_held();
    void *p = aligned_alloc(MANAGED_ALIGN, size);
    if (p == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *ptr = p;
    return ACL_SUCCESS;
}

static aclError host_managed_free(int32_t dev, void *ptr)
{
    (void)dev;
    host_release_after_work(free, ptr);
    return ACL_SUCCESS;
}

static aclError host_managed_advise(const void *ptr, size_t size, int32_t advice,
                                    managed_location loc)
{
    (void)ptr;
    (void)size;
    (void)advice;
    if (loc.type == ACL_MEM_LOCATIONTYPE_DEVICE && !host_device_valid(loc.id))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    return ACL_SUCCESS;
}

const backend_managed_ops host_managed_ops = {
    .alloc = host_managed_alloc,
    .free = host_managed_free,
    .advise = host_managed_advise,
};
