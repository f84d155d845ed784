/* Stream-ordered memory pools (acl_rt_memory_soma.h). The rules are in
 * core/mempool.h; this file checks arguments in CANN's order (the
 * library's checks answer ACL_ERROR_INVALID_PARAM, the runtime's
 * ACL_ERROR_RT_PARAM_INVALID). */
#include <string.h>

#include "api/api.h"
#include "core/current.h"
#include "core/mempool.h"

ACL_EXPORT aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps)
{
    PROF_API();
    if (memPool == NULL || poolProps == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         memPool == NULL ? "memPool" : "poolProps");
    if (poolProps->allocType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "poolProps->allocType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED (0)",
                         (int)poolProps->allocType);
    if (poolProps->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "poolProps->location.type %d must be ACL_MEM_LOCATION_TYPE_DEVICE (1)",
                         (int)poolProps->location.type);
    static const unsigned char zeros[sizeof poolProps->reserved];
    if (memcmp(poolProps->reserved, zeros, sizeof zeros) != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "poolProps->reserved must be all zero");
    if (poolProps->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "poolProps->handleType %d: pools shared between processes are not "
                         "supported",
                         (int)poolProps->handleType);
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    return ret != ACL_SUCCESS ? ret : mempool_create(__func__, memPool, poolProps);
}

ACL_EXPORT aclError aclrtMemPoolDestroy(const aclrtMemPool memPool)
{
    PROF_API();
    if (memPool == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memPool is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    return ret != ACL_SUCCESS ? ret : mempool_destroy(__func__, memPool);
}

ACL_EXPORT aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
    PROF_API();
    if (memPool == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memPool is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    return ret != ACL_SUCCESS ? ret : mempool_set_attr(__func__, memPool, attr, value);
}

ACL_EXPORT aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
    PROF_API();
    if (memPool == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memPool is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    return ret != ACL_SUCCESS ? ret : mempool_get_attr(__func__, memPool, attr, value);
}

/* The NULL stream is the current context's default stream, as for every
 * other call that takes a stream (CANN's own refuses it here). A size of
 * 0 allocates nothing and succeeds, as in CANN, and sets *ptr to NULL (as
 * cudaMalloc answers 0 bytes) rather than leave it unset. */
ACL_EXPORT aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool,
                                            aclrtStream stream)
{
    PROF_API();
    if (ptr == NULL || memPool == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", ptr == NULL ? "ptr" : "memPool");
    if (size == 0) {
        *ptr = NULL;
        return ACL_SUCCESS;
    }
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = mempool_malloc_async(__func__, ptr, size, memPool, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = mempool_free_async(__func__, ptr, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep)
{
    PROF_API();
    if (memPool == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memPool is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, pool);
    return ret != ACL_SUCCESS ? ret : mempool_trim(__func__, memPool, minBytesToKeep);
}
