/* Stream callbacks, report threads and host functions (acl_rt.h), and the
 * device-exception callback API. */
#include <stdatomic.h>

#include "api/api.h"
#include "core/callback.h"
#include "core/current.h"

ACL_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = callback_subscribe(__func__, CHANNEL_REPORT, threadId, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = callback_unsubscribe(__func__, CHANNEL_REPORT, threadId, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                                        aclrtCallbackBlockType blockType, aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK)
        ret = ACL_RAISE(
            ACL_ERROR_INVALID_PARAM,
            "blockType %d is neither ACL_CALLBACK_NO_BLOCK (0) nor ACL_CALLBACK_BLOCK (1)",
            (int)blockType);
    else if (!fn)
        ret = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    else
        ret = callback_launch(__func__, CHANNEL_REPORT, s, fn, userData,
                              blockType == ACL_CALLBACK_BLOCK);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    PROF_API();
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!fn)
        ret = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    else
        ret = callback_launch_host_func(__func__, s, fn, args, false);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    PROF_API();
    if (timeout == 0 || timeout < -1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "timeout %d ms is invalid; use -1 (wait forever) or a positive value",
                         (int)timeout);
    return callback_process(__func__, CHANNEL_REPORT, timeout);
}

/* ---- host function threads ---------------------------------------------------------
 * With a thread subscribed to a stream, aclrtLaunchHostFunc's functions on
 * that stream run on that thread, inside its aclrtProcessHostFunc, and the
 * stream waits for each (core/callback.c). */

static aclError host_func_stream(const char *api, aclrtStream stream, acl_stream **s)
{
    if (!stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "exeStream is NULL: the default stream cannot be subscribed");
    return current_stream_get(api, stream, s);
}

ACL_EXPORT aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    PROF_API();
    acl_stream *s;
    aclError ret = host_func_stream(__func__, exeStream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = callback_subscribe(__func__, CHANNEL_HOST_FUNC, hostFuncThreadId, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    PROF_API();
    acl_stream *s;
    aclError ret = host_func_stream(__func__, exeStream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = callback_unsubscribe(__func__, CHANNEL_HOST_FUNC, hostFuncThreadId, s);
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtProcessHostFunc(int32_t timeout)
{
    PROF_API();
    if (timeout == 0 || timeout < -1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "timeout %d ms is invalid; use -1 (wait forever) or a positive value",
                         (int)timeout);
    return callback_process(__func__, CHANNEL_HOST_FUNC, timeout);
}
