/* Managed memory (aclrtMemAllocManaged): one address on the host and every
 * device, in 2 MiB pages. The advice given to each page
 * (aclrtMemManagedAdvise) and the last place each was prefetched to are
 * kept here, per page, which is what aclrtMemManagedGetAttr(s) answers:
 * device locations by user device id, the host as -1, "not the same over
 * the range" or "none" as -2, as ACL defines them. The backend is told the
 * advice too, to migrate pages by it where it can.
 *
 * Codes: a range that is not inside one managed allocation, a size that is
 * not a multiple of 2 MiB where ACL asks for one, a location or attribute
 * outside ACL's enums, and a data size that does not fit the attribute are
 * ACL_ERROR_RT_PARAM_INVALID. */
#ifndef ACLCUDA_CORE_MANAGED_H
#define ACLCUDA_CORE_MANAGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "core/stream.h"

#define MANAGED_PAGE ((size_t)2 << 20)

/* Allocates size bytes rounded up to 2 MiB on the caller's device.
 * Raises. */
aclError managed_alloc(const char *api, void **ptr, uint64_t size, int32_t phys, int32_t device);
/* A location as the caller gave it, checked and resolved: a device id
 * turned into the backend's, HOST_NUMA_CURRENT into the node the thread
 * runs on. Raises. */
aclError managed_location_resolve(const char *api, const char *role,
                                  aclrtMemManagedLocation location, bool invalid_ok,
                                  aclrtMemManagedLocation *user, managed_location *backend_loc);

aclError managed_advise(const char *api, const void *ptr, uint64_t size,
                        aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location);
aclError managed_get_attr(const char *api, aclrtMemManagedRangeAttribute attribute, const void *ptr,
                          size_t size, void *data, size_t data_size);
/* Checks one prefetch range (inside a managed allocation, size a multiple
 * of 2 MiB). Raises. */
aclError managed_check_range(const char *api, const char *role, const void *ptr, size_t size);
/* Queues the prefetch of a checked range to loc on s and records it as
 * the range's last prefetch location. Raises. */
aclError managed_prefetch(const char *api, acl_stream *s, const void *ptr, size_t size,
                          aclrtMemManagedLocation user, managed_location loc);

#endif
