/* Shared queues (acl_tdt_queue.h): queues, buffers, queue attributes,
 * routes and their lists and queries. Buffers are the shared buffers of
 * acl_rt.h (core/mbuf.h): an acltdtBuf is an aclrtMbuf, its arguments
 * checked where aclrt*Buf*'s are (api/mbuf.h). The rest of the rules are in
 * core/tdt_queue.h and core/tdt_objects.h. */
#include "acl/acl_tdt_queue.h"
#include "api/api.h"
#include "api/mbuf.h"
#include "core/prof.h"
#include "core/mbuf.h"
#include "core/tdt_objects.h"
#include "core/tdt_queue.h"
#include "core/undefined.h"

/* ---- queues -------------------------------------------------------------------- */

static aclError timeout_check(const char *func, int32_t timeout)
{
    if (timeout < -1)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "timeout %d is not -1 (for ever), 0 (no wait) or a number of ms",
                         (int)timeout);
    return ACL_SUCCESS;
}

/* The user data of acltdtEnqueueData and acltdtDequeueData: at most the
 * buffer's, from or to a pointer when there is any. */
static aclError user_data_check(const char *func, const void *userData, size_t userDataSize)
{
    if (userData == NULL && userDataSize > 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "userData is NULL");
    if (userDataSize > MBUF_USER_DATA)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "userDataSize %zu exceeds %d", userDataSize,
                         MBUF_USER_DATA);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid)
{
    PROF_API();
    if (qid == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "qid is NULL");
    return tdt_queue_create(__func__, attr, qid);
}

ACL_EXPORT aclError acltdtDestroyQueue(uint32_t qid)
{
    PROF_API();
    return tdt_queue_destroy(__func__, qid);
}

ACL_EXPORT aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout)
{
    PROF_API();
    if (buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    aclError ret = timeout_check(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_queue_enqueue_buf(__func__, qid, buf, timeout);
}

ACL_EXPORT aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout)
{
    PROF_API();
    if (buf == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    aclError ret = timeout_check(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_queue_dequeue_buf(__func__, qid, buf, timeout);
}

ACL_EXPORT aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize,
                                      const void *userData, size_t userDataSize, int32_t timeout,
                                      uint32_t rsv)
{
    PROF_API();
    if (data == NULL && dataSize > 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "data is NULL");
    aclError ret = user_data_check(__func__, userData, userDataSize);
    if (ret != ACL_SUCCESS)
        return ret;
    if (rsv != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "rsv is reserved and must be 0");
    ret = timeout_check(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_queue_enqueue_data(__func__, CALL_SITE(), qid, data, dataSize, userData,
                                  userDataSize, timeout);
}

ACL_EXPORT aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize,
                                      size_t *retDataSize, void *userData, size_t userDataSize,
                                      int32_t timeout)
{
    PROF_API();
    if ((data == NULL && dataSize > 0) || retDataSize == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         retDataSize == NULL ? "retDataSize" : "data");
    aclError ret = user_data_check(__func__, userData, userDataSize);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = timeout_check(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_queue_dequeue_data(__func__, CALL_SITE(), qid, data, dataSize, retDataSize, userData,
                                  userDataSize, timeout);
}

ACL_EXPORT aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission,
                                     int32_t timeout)
{
    PROF_API();
    const uint32_t all = ACL_TDT_QUEUE_PERMISSION_MANAGE | ACL_TDT_QUEUE_PERMISSION_DEQUEUE |
                         ACL_TDT_QUEUE_PERMISSION_ENQUEUE;
    if (pid <= 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pid %d is not a process id", (int)pid);
    if (permission == 0 || (permission & ~all) != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "permission 0x%x is not a set of ACL_TDT_QUEUE_PERMISSION_* bits",
                         permission);
    aclError ret = timeout_check(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_queue_grant(__func__, qid, pid, permission);
}

ACL_EXPORT aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission)
{
    PROF_API();
    if (permission == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "permission is NULL");
    aclError ret = timeout_check(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_queue_attach(__func__, qid, timeout, permission);
}

ACL_EXPORT aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
    PROF_API();
    if (qRouteList == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL");
    return tdt_queue_bind(__func__, qRouteList);
}

ACL_EXPORT aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
    PROF_API();
    if (qRouteList == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL");
    return tdt_queue_unbind(__func__, qRouteList);
}

ACL_EXPORT aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
                                           acltdtQueueRouteList *qRouteList)
{
    PROF_API();
    if (queryInfo == NULL || qRouteList == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         queryInfo == NULL ? "queryInfo" : "qRouteList");
    return tdt_queue_query(__func__, queryInfo, qRouteList);
}

/* ---- buffers --------------------------------------------------------------------- */

ACL_EXPORT aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf)
{
    PROF_API();
    aclError ret = api_buf_alloc_check(__func__, buf, size);
    if (ret != ACL_SUCCESS)
        return ret;
    if (type != ACL_TDT_NORMAL_MEM && type != ACL_TDT_DVPP_MEM)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "type %u is not an acltdtAllocBufType", type);
    return mbuf_alloc(__func__, buf, size);
}

ACL_EXPORT aclError acltdtFreeBuf(acltdtBuf buf)
{
    PROF_API();
    return api_buf_free(__func__, buf);
}

ACL_EXPORT aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size)
{
    PROF_API();
    return api_buf_data(__func__, buf, dataPtr, size);
}

ACL_EXPORT aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len)
{
    PROF_API();
    return api_buf_set_data_len(__func__, buf, len);
}

ACL_EXPORT aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len)
{
    PROF_API();
    return api_buf_get_data_len(__func__, buf, len);
}

ACL_EXPORT aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf)
{
    PROF_API();
    return api_buf_chain_append(__func__, headBuf, buf);
}

ACL_EXPORT aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num)
{
    PROF_API();
    return api_buf_chain_count(__func__, headBuf, num);
}

ACL_EXPORT aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf)
{
    PROF_API();
    return api_buf_chain_get(__func__, headBuf, index, buf);
}

ACL_EXPORT aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size,
                                         size_t offset)
{
    PROF_API();
    return api_buf_user_data(__func__, false, buf, dataPtr, NULL, size, offset);
}

ACL_EXPORT aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size,
                                         size_t offset)
{
    PROF_API();
    return api_buf_user_data(__func__, false, buf, NULL, dataPtr, size, offset);
}

ACL_EXPORT aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf)
{
    PROF_API();
    return api_buf_copy_ref(__func__, buf, newBuf);
}

/* ---- attributes ------------------------------------------------------------------ */

ACL_EXPORT acltdtQueueAttr *acltdtCreateQueueAttr(void)
{
    PROF_API();
    acltdtQueueAttr *a = NULL;
    (void)tdt_attr_create(__func__, &a);
    return a;
}

ACL_EXPORT aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr)
{
    PROF_API();
    if (attr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attr is NULL");
    return tdt_attr_destroy(__func__, attr);
}

ACL_EXPORT aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
                                       const void *param)
{
    PROF_API();
    if (attr == NULL || param == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", attr == NULL ? "attr" : "param");
    return tdt_attr_set(__func__, attr, type, len, param);
}

ACL_EXPORT aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type,
                                       size_t len, size_t *paramRetSize, void *param)
{
    PROF_API();
    if (attr == NULL || param == NULL || paramRetSize == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         attr == NULL    ? "attr"
                         : param == NULL ? "param"
                                         : "paramRetSize");
    return tdt_attr_get(__func__, attr, type, len, paramRetSize, param);
}

/* ---- routes, lists, queries ------------------------------------------------------ */

ACL_EXPORT acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId)
{
    PROF_API();
    acltdtQueueRoute *r = NULL;
    (void)tdt_route_create(__func__, srcId, dstId, &r);
    return r;
}

ACL_EXPORT aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route)
{
    PROF_API();
    if (route == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "route is NULL");
    return tdt_route_destroy(__func__, route);
}

ACL_EXPORT aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route,
                                             acltdtQueueRouteParamType type, size_t len,
                                             size_t *paramRetSize, void *param)
{
    PROF_API();
    if (route == NULL || param == NULL || paramRetSize == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         route == NULL   ? "route"
                         : param == NULL ? "param"
                                         : "paramRetSize");
    return tdt_route_param(__func__, route, type, len, paramRetSize, param);
}

ACL_EXPORT acltdtQueueRouteList *acltdtCreateQueueRouteList(void)
{
    PROF_API();
    acltdtQueueRouteList *l = NULL;
    (void)tdt_route_list_create(__func__, &l);
    return l;
}

ACL_EXPORT aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList)
{
    PROF_API();
    if (routeList == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "routeList is NULL");
    return tdt_route_list_destroy(__func__, routeList);
}

ACL_EXPORT aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList,
                                        const acltdtQueueRoute *route)
{
    PROF_API();
    if (routeList == NULL || route == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         routeList == NULL ? "routeList" : "route");
    return tdt_route_list_add(__func__, routeList, route);
}

ACL_EXPORT aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index,
                                        acltdtQueueRoute *route)
{
    PROF_API();
    if (routeList == NULL || route == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         routeList == NULL ? "routeList" : "route");
    return tdt_route_list_get(__func__, routeList, index, route);
}

ACL_EXPORT size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList)
{
    PROF_API();
    size_t n = 0;
    if (routeList == NULL)
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "routeList is NULL");
    else
        (void)tdt_route_list_count(__func__, routeList, &n);
    return n;
}

ACL_EXPORT acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void)
{
    PROF_API();
    acltdtQueueRouteQueryInfo *q = NULL;
    (void)tdt_query_create(__func__, &q);
    return q;
}

ACL_EXPORT aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info)
{
    PROF_API();
    if (info == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "info is NULL");
    return tdt_query_destroy(__func__, info);
}

ACL_EXPORT aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
                                                 acltdtQueueRouteQueryInfoParamType type,
                                                 size_t len, const void *value)
{
    PROF_API();
    if (param == NULL || value == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", param == NULL ? "param" : "value");
    return tdt_query_set(__func__, param, type, len, value);
}
