/* Managed memory (acl_rt.h): allocation, advice, attributes and
 * prefetches. The rules are in core/managed.h; this file checks arguments
 * in CANN's order (the library's checks answer ACL_ERROR_INVALID_PARAM,
 * the runtime's ACL_ERROR_RT_PARAM_INVALID). aclrtFree frees the memory. */
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "core/current.h"
#include "core/managed.h"

ACL_EXPORT aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (flag != ACL_RT_MEM_ATTACH_GLOBAL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag %u must be ACL_RT_MEM_ATTACH_GLOBAL (1)",
                         (unsigned)flag);
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "size is 0");
    aclError ret = BACKEND_REQUIRE(__func__, managed);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    int32_t phys = ctx->phys, device = ctx->device;
    context_put(ctx);
    return managed_alloc(__func__, ptr, size, phys, device);
}

ACL_EXPORT aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
                                          aclrtMemManagedAdviseType advise,
                                          aclrtMemManagedLocation location)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError ret = BACKEND_REQUIRE(__func__, managed);
    return ret != ACL_SUCCESS ? ret : managed_advise(__func__, ptr, size, advise, location);
}

ACL_EXPORT aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr,
                                           size_t size, void *data, size_t dataSize)
{
    PROF_API();
    if (ptr == NULL || data == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", ptr == NULL ? "ptr" : "data");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError ret = BACKEND_REQUIRE(__func__, managed);
    return ret != ACL_SUCCESS ? ret
                              : managed_get_attr(__func__, attribute, ptr, size, data, dataSize);
}

ACL_EXPORT aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes,
                                            size_t numAttributes, const void *ptr, size_t size,
                                            void **data, size_t *dataSizes)
{
    PROF_API();
    if (ptr == NULL || attributes == NULL || data == NULL || dataSizes == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         ptr == NULL          ? "ptr"
                         : attributes == NULL ? "attributes"
                         : data == NULL       ? "data"
                                              : "dataSizes");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError ret = BACKEND_REQUIRE(__func__, managed);
    if (ret != ACL_SUCCESS)
        return ret;
    for (size_t i = 0; i < numAttributes; i++)
        if (attributes[i] < ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY ||
            attributes[i] > ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                             "attributes[%zu] %d is not an aclrtMemManagedRangeAttribute (1..8)", i,
                             (int)attributes[i]);
    for (size_t i = 0; i < numAttributes; i++) {
        if (data[i] == NULL)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "data[%zu] is NULL", i);
        ret = managed_get_attr(__func__, attributes[i], ptr, size, data[i], dataSizes[i]);
        if (ret != ACL_SUCCESS)
            return ret;
    }
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
                                                 aclrtMemManagedLocation location, uint32_t flags,
                                                 aclrtStream stream)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags %u is reserved and must be 0",
                         (unsigned)flags);
    aclError ret = BACKEND_REQUIRE(__func__, managed);
    if (ret != ACL_SUCCESS)
        return ret;
    aclrtMemManagedLocation user;
    managed_location loc;
    ret = managed_location_resolve(__func__, "location", location, false, &user, &loc);
    if (ret == ACL_SUCCESS)
        ret = managed_check_range(__func__, "ptr", ptr, size);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = managed_prefetch(__func__, s, ptr, size, user, loc);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtMemManagedPrefetchBatchAsync(
    const void **ptrs, size_t *sizes, size_t count, aclrtMemManagedLocation *prefetchLocs,
    size_t *prefetchLocIdxs, size_t numPrefetchLocs, uint64_t flags, aclrtStream stream)
{
    PROF_API();
    if (ptrs == NULL || sizes == NULL || prefetchLocs == NULL || prefetchLocIdxs == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         ptrs == NULL           ? "ptrs"
                         : sizes == NULL        ? "sizes"
                         : prefetchLocs == NULL ? "prefetchLocs"
                                                : "prefetchLocIdxs");
    if (count == 0 || numPrefetchLocs == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is 0",
                         count == 0 ? "count" : "numPrefetchLocs");
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags %llu is reserved and must be 0",
                         (unsigned long long)flags);
    if (count < numPrefetchLocs)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "count %zu is less than numPrefetchLocs %zu",
                         count, numPrefetchLocs);
    aclError ret = BACKEND_REQUIRE(__func__, managed);
    if (ret != ACL_SUCCESS)
        return ret;
    if (prefetchLocIdxs[0] != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "prefetchLocIdxs[0] is %zu, not 0",
                         prefetchLocIdxs[0]);
    for (size_t i = 0; i < count; i++)
        if (ptrs[i] == NULL)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "ptrs[%zu] is NULL", i);
    for (size_t k = 1; k < numPrefetchLocs; k++)
        if (prefetchLocIdxs[k] >= count || prefetchLocIdxs[k] <= prefetchLocIdxs[k - 1])
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                             "prefetchLocIdxs[%zu] %zu must be greater than the entry before it "
                             "and less than count %zu",
                             k, prefetchLocIdxs[k], count);
    aclrtMemManagedLocation *users = malloc(numPrefetchLocs * sizeof *users);
    managed_location *locs = malloc(numPrefetchLocs * sizeof *locs);
    if (users == NULL || locs == NULL) {
        free(users);
        free(locs);
        return ACL_RAISE(ACL_ERROR_BAD_ALLOC, "out of memory");
    }
    for (size_t k = 0; k < numPrefetchLocs && ret == ACL_SUCCESS; k++) {
        char role[48];
        snprintf(role, sizeof role, "prefetchLocs[%zu]", k);
        ret = managed_location_resolve(__func__, role, prefetchLocs[k], false, &users[k], &locs[k]);
    }
    for (size_t i = 0; i < count && ret == ACL_SUCCESS; i++) {
        char role[32];
        snprintf(role, sizeof role, "ptrs[%zu]", i);
        ret = managed_check_range(__func__, role, ptrs[i], sizes[i]);
    }
    acl_stream *s = NULL;
    if (ret == ACL_SUCCESS)
        ret = current_stream_get(__func__, stream, &s);
    /* Everything is checked: what is queued now is only refused by a
     * backend failure, which the first error reports. */
    for (size_t k = 0, i = 0; ret == ACL_SUCCESS && i < count; i++) {
        while (k + 1 < numPrefetchLocs && i >= prefetchLocIdxs[k + 1])
            k++;
        ret = managed_prefetch(__func__, s, ptrs[i], sizes[i], users[k], locs[k]);
    }
    if (s != NULL)
        stream_put(s);
    free(users);
    free(locs);
    return ret;
}
