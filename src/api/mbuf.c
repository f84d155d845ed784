/* Shared buffers (acl_rt.h): aclrtMbuf. The rules are in core/mbuf.h; the
 * argument checks, which acl_tdt_queue.h's buffers share, are here
 * (api/mbuf.h). */
#include "api/mbuf.h"

#include "core/mbuf.h"

/* ---- the checks both APIs make --------------------------------------------------------------- */

aclError api_buf_alloc_check(const char *api, const aclrtMbuf *buf, size_t size)
{
    if (buf == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "buf is NULL");
    if (size == 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "size is 0");
    return ACL_SUCCESS;
}

aclError api_buf_free(const char *api, aclrtMbuf buf)
{
    if (buf == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "buf is NULL");
    return mbuf_free(api, buf);
}

aclError api_buf_data(const char *api, aclrtMbuf buf, void **dataPtr, size_t *size)
{
    if (buf == NULL || dataPtr == NULL || size == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         buf == NULL       ? "buf"
                         : dataPtr == NULL ? "dataPtr"
                                           : "size");
    return mbuf_data(api, buf, dataPtr, size);
}

aclError api_buf_get_data_len(const char *api, aclrtMbuf buf, size_t *len)
{
    if (buf == NULL || len == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", buf == NULL ? "buf" : "len");
    return mbuf_data_len(api, buf, len, NULL);
}

aclError api_buf_set_data_len(const char *api, aclrtMbuf buf, size_t len)
{
    if (buf == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "buf is NULL");
    return mbuf_data_len(api, buf, NULL, &len);
}

static aclError user_data_bounds(const char *api, size_t size, size_t offset)
{
    if (size > MBUF_USER_DATA || offset > MBUF_USER_DATA - size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "size %zu + offset %zu exceed the %d bytes of user data", size, offset,
                         MBUF_USER_DATA);
    return ACL_SUCCESS;
}

aclError api_buf_user_data(const char *api, bool bounds_first, aclrtMbuf buf, void *to,
                           const void *from, size_t size, size_t offset)
{
    aclError ret;
    if (bounds_first && (ret = user_data_bounds(api, size, offset)) != ACL_SUCCESS)
        return ret;
    if (buf == NULL || (to == NULL && from == NULL))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         buf == NULL ? "buf" : "dataPtr");
    if (!bounds_first && (ret = user_data_bounds(api, size, offset)) != ACL_SUCCESS)
        return ret;
    return mbuf_user_data(api, buf, to, from, size, offset);
}

aclError api_buf_copy_ref(const char *api, aclrtMbuf buf, aclrtMbuf *newBuf)
{
    if (buf == NULL || newBuf == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         buf == NULL ? "buf" : "newBuf");
    return mbuf_copy_ref(api, buf, newBuf);
}

aclError api_buf_chain_append(const char *api, aclrtMbuf headBuf, aclrtMbuf buf)
{
    if (headBuf == NULL || buf == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         headBuf == NULL ? "headBuf" : "buf");
    return mbuf_chain_append(api, headBuf, buf);
}

aclError api_buf_chain_count(const char *api, aclrtMbuf headBuf, uint32_t *num)
{
    if (headBuf == NULL || num == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         headBuf == NULL ? "headBuf" : "num");
    return mbuf_chain_count(api, headBuf, num);
}

aclError api_buf_chain_get(const char *api, aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
    if (headBuf == NULL || buf == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         headBuf == NULL ? "headBuf" : "buf");
    return mbuf_chain_get(api, headBuf, index, buf);
}

/* ---- acl_rt.h: the user-data bounds before the NULL checks, as CANN's library does ---------- */

ACL_EXPORT aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size)
{
    PROF_API();
    aclError ret = api_buf_alloc_check(__func__, buf, size);
    if (ret != ACL_SUCCESS)
        return ret;
    return mbuf_alloc(__func__, buf, size);
}

ACL_EXPORT aclError aclrtFreeBuf(aclrtMbuf buf)
{
    PROF_API();
    return api_buf_free(__func__, buf);
}

ACL_EXPORT aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size)
{
    PROF_API();
    return api_buf_data(__func__, buf, dataPtr, size);
}

ACL_EXPORT aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len)
{
    PROF_API();
    return api_buf_get_data_len(__func__, buf, len);
}

ACL_EXPORT aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len)
{
    PROF_API();
    return api_buf_set_data_len(__func__, buf, len);
}

ACL_EXPORT aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size,
                                        size_t offset)
{
    PROF_API();
    return api_buf_user_data(__func__, true, buf, dataPtr, NULL, size, offset);
}

ACL_EXPORT aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size,
                                        size_t offset)
{
    PROF_API();
    return api_buf_user_data(__func__, true, buf, NULL, dataPtr, size, offset);
}

ACL_EXPORT aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf)
{
    PROF_API();
    return api_buf_copy_ref(__func__, buf, newBuf);
}

ACL_EXPORT aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf)
{
    PROF_API();
    return api_buf_chain_append(__func__, headBuf, buf);
}

ACL_EXPORT aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num)
{
    PROF_API();
    return api_buf_chain_count(__func__, headBuf, num);
}

ACL_EXPORT aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
    PROF_API();
    return api_buf_chain_get(__func__, headBuf, index, buf);
}
