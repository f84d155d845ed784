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
        ret = ACL_RAISE(
            ACL_ERROR_INVALID_PARAM,
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
    else
        ret =
            stream_submit(__func__, s, &(task){.kind = TASK_HOST_FUNC, .u.host_func = {fn, args}});
    stream_put(s);
    return ret;
}

ACL_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    if (timeout == 0 || timeout < -1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "timeout %d ms is invalid; use -1 (wait forever) or a positive value",
                         (int)timeout);
    return callback_process(__func__, timeout);
}
