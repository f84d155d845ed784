/* Shared buffers (acl_rt.h): aclrtMbuf. The rules are in core/mbuf.h; this
 * file checks arguments in CANN's order (the user-data bounds before the
 * NULL checks, as CANN's library does). */
#include "api/api.h"
#include "core/mbuf.h"

ACL_EXPORT aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size)
{
    PROF_API();
    if (buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    return mbuf_alloc(__func__, buf, size);
}

ACL_EXPORT aclError aclrtFreeBuf(aclrtMbuf buf)
{
    PROF_API();
    if (buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    return mbuf_free(__func__, buf);
}

ACL_EXPORT aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size)
{
    PROF_API();
    if (buf == NULL || dataPtr == NULL || size == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         buf == NULL       ? "buf"
                         : dataPtr == NULL ? "dataPtr"
                                           : "size");
    return mbuf_data(__func__, buf, dataPtr, size);
}

ACL_EXPORT aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len)
{
    PROF_API();
    if (buf == NULL || len == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", buf == NULL ? "buf" : "len");
    return mbuf_data_len(__func__, buf, len, NULL);
}

ACL_EXPORT aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len)
{
    PROF_API();
    if (buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    return mbuf_data_len(__func__, buf, NULL, &len);
}

static aclError user_data_bounds(const char *func, size_t size, size_t offset)
{
    if (size > MBUF_USER_DATA || offset > MBUF_USER_DATA - size)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "size %zu + offset %zu exceed the %d bytes of user data", size, offset,
                         MBUF_USER_DATA);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size,
                                        size_t offset)
{
    PROF_API();
    aclError ret = user_data_bounds(__func__, size, offset);
    if (ret != ACL_SUCCESS)
        return ret;
    if (buf == NULL || dataPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", buf == NULL ? "buf" : "dataPtr");
    return mbuf_user_data(__func__, buf, dataPtr, NULL, size, offset);
}

ACL_EXPORT aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size,
                                        size_t offset)
{
    PROF_API();
    aclError ret = user_data_bounds(__func__, size, offset);
    if (ret != ACL_SUCCESS)
        return ret;
    if (buf == NULL || dataPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", buf == NULL ? "buf" : "dataPtr");
    return mbuf_user_data(__func__, buf, NULL, dataPtr, size, offset);
}

ACL_EXPORT aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf)
{
    PROF_API();
    if (buf == NULL || newBuf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", buf == NULL ? "buf" : "newBuf");
    return mbuf_copy_ref(__func__, buf, newBuf);
}

ACL_EXPORT aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf)
{
    PROF_API();
    if (headBuf == NULL || buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         headBuf == NULL ? "headBuf" : "buf");
    return mbuf_chain_append(__func__, headBuf, buf);
}

ACL_EXPORT aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num)
{
    PROF_API();
    if (headBuf == NULL || num == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         headBuf == NULL ? "headBuf" : "num");
    return mbuf_chain_count(__func__, headBuf, num);
}

ACL_EXPORT aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
    PROF_API();
    if (headBuf == NULL || buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         headBuf == NULL ? "headBuf" : "buf");
    return mbuf_chain_get(__func__, headBuf, index, buf);
}
