/* Stream callbacks, report threads and host functions (acl_rt.h), and the
 * device-exception callback API. */
#include <stdatomic.h>

#include "api/api.h"
#include "core/callback.h"
#include "core/current.h"

ACL_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = callback_subscribe(__func__, threadId, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = callback_unsubscribe(__func__, threadId, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                                        aclrtCallbackBlockType blockType, aclrtStream stream)
{
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK)
        ret = ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                        "blockType %d is neither ACL_CALLBACK_NO_BLOCK (0) nor ACL_CALLBACK_BLOCK (1)",
                        (int)blockType);
    else if (!fn)
        ret = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    else
        ret = callback_launch(__func__, s, fn, userData, blockType == ACL_CALLBACK_BLOCK);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!fn)
        ret = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    else if ((ret = stream_submit(s, &(task){.kind = TASK_HOST_FUNC, .u.host_func = {fn, args}})))
        ACL_RAISE(ret, "could not queue the host function on stream %d: %s", s->id, acl_error_text(ret));
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    if (timeout == 0 || timeout < -1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "timeout %d ms is invalid; use -1 (wait forever) or a positive value", (int)timeout);
    return callback_process(__func__, timeout);
}

/* ---- device exceptions ----------------------------------------------------------------- */

/* Stored for the API's sake only: acl-cuda never raises device exceptions
 * (a failing CUDA task surfaces as an error code from the next synchronising
 * call instead), so this callback is never called. */
static _Atomic(aclrtExceptionInfoCallback) exception_callback;

ACL_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    atomic_store(&exception_callback, callback);
    return ACL_SUCCESS;
}

/* We never hand out an aclrtExceptionInfo, so no pointer given to the
 * getters can be one of ours; we do not read through it. */
static uint32_t exception_info_unavailable(const char *func, const aclrtExceptionInfo *info)
{
    if (!info)
        acl_raise(func, ACL_ERROR_INVALID_PARAM, "info is NULL");
    else
        acl_raise(func, ACL_ERROR_INVALID_PARAM,
                  "info %p was not made by this library, which reports no device exceptions",
                  (const void *)info);
    return UINT32_MAX;
}

ACL_EXPORT uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}
