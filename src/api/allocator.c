/* Custom allocators (acl_rt_allocator.h). The rules are in
 * core/allocator.h; this file checks arguments in CANN's order. */
#include "api/api.h"
#include "core/allocator.h"
#include "core/current.h"

ACL_EXPORT aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    PROF_API();
    return allocator_desc_create(__func__);
}

ACL_EXPORT aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    PROF_API();
    if (allocatorDesc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");
    return allocator_desc_destroy(__func__, allocatorDesc);
}

static aclError set(const char *func, aclrtAllocatorDesc desc, int which, void *value,
                    const char *name)
{
    if (desc == NULL || value == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         desc == NULL ? "allocatorDesc" : name);
    return allocator_desc_set(func, desc, which, value);
}

ACL_EXPORT aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                               aclrtAllocator allocator)
{
    PROF_API();
    return set(__func__, allocatorDesc, ALLOC_FIELD_OBJ, allocator, "allocator");
}

ACL_EXPORT aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorAllocFunc func)
{
    PROF_API();
    return set(__func__, allocatorDesc, ALLOC_FIELD_ALLOC, (void *)func, "func");
}

ACL_EXPORT aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                    aclrtAllocatorFreeFunc func)
{
    PROF_API();
    return set(__func__, allocatorDesc, ALLOC_FIELD_FREE, (void *)func, "func");
}

ACL_EXPORT aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                           aclrtAllocatorAllocAdviseFunc func)
{
    PROF_API();
    return set(__func__, allocatorDesc, ALLOC_FIELD_ADVISE, (void *)func, "func");
}

ACL_EXPORT aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    aclrtAllocatorDesc allocatorDesc, aclrtAllocatorGetAddrFromBlockFunc func)
{
    PROF_API();
    return set(__func__, allocatorDesc, ALLOC_FIELD_ADDR, (void *)func, "func");
}

/* A stream is required: NULL (the default stream) is refused, as in CANN. */
ACL_EXPORT aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    PROF_API();
    if (stream == NULL || allocatorDesc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         stream == NULL ? "stream" : "allocatorDesc");
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = allocator_register(__func__, s, allocatorDesc);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtAllocatorGetByStream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    PROF_API();
    if (allocatorDesc == NULL || stream == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         allocatorDesc == NULL ? "allocatorDesc" : "stream");
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    allocator_fns fns;
    bool found = allocator_of(s, &fns);
    stream_put(s);
    if (!found)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream %p has no allocator registered", stream);
    *allocatorDesc = fns.desc;
    if (allocator != NULL)
        *allocator = fns.obj;
    if (allocFunc != NULL)
        *allocFunc = fns.alloc;
    if (freeFunc != NULL)
        *freeFunc = fns.free;
    if (allocAdviseFunc != NULL)
        *allocAdviseFunc = fns.alloc_advise;
    if (getAddrFromBlockFunc != NULL)
        *getAddrFromBlockFunc = fns.get_addr;
    return ACL_SUCCESS;
}

/* A stream without a registration (or no longer live) is fine, as in CANN. */
ACL_EXPORT aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    PROF_API();
    if (stream == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    allocator_unregister_handle(stream);
    return ACL_SUCCESS;
}
