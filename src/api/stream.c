/* Streams (acl_rt.h). */
#include "api/api.h"
#include "core/current.h"

/* A non-NULL stream handle of the thread's current context, for destroy. */
static aclError check_destroyable(const char *api, acl_stream *s)
{
    if (s == s->ctx->default_stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the default stream goes away with its context, it cannot be destroyed");
    acl_context *current = current_context();
    bool ours = current == s->ctx;
    if (current)
        context_put(current);
    if (!ours)
        return acl_raise(api, ACL_ERROR_RT_STREAM_CONTEXT,
                         "stream %d belongs to another context than the thread's current one",
                         (int)s->id);
    return ACL_SUCCESS;
}

static aclError create(const char *api, aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    if (!stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (priority > 7)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "priority %u is outside 0..7", priority);
    const uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT |
                           ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    if (flag & ~known)
        ACL_LOG(LOG_WARNING, "unknown stream flags 0x%x ignored: a plain stream is made",
                flag & ~known);
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    acl_stream *s;
    err = stream_create(ctx, priority, flag & known, &s);
    int32_t device = ctx->device;
    context_put(ctx);
    if (err == ACL_ERROR_RT_NO_STREAM_RESOURCE)
        return acl_raise(api, err, "as many streams as acl-cuda allows are live already");
    if (err == ACL_ERROR_RT_CONTEXT_NULL)
        return acl_raise(api, err, "the current context is being destroyed");
    if (err)
        return acl_raise(api, err, "creating a stream on device %d failed", (int)device);
    *stream = handle_of(&s->obj);
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    return create(__func__, stream, 0, 0);
}

ACL_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
                                                uint32_t flag)
{
    return create(__func__, stream, priority, flag);
}

static aclError destroy(const char *api, aclrtStream stream, bool wait)
{
    if (!stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "stream is NULL");
    acl_stream *s;
    aclError err = stream_get(api, stream, &s);
    if (err)
        return err;
    err = check_destroyable(api, s);
    bool held = !err && stream_hold(s); /* the teardown waits: no borrow then */
    stream_put(s);
    if (err)
        return err;
    if (!held || !object_take(&s->obj)) {
        if (held)
            stream_release(s);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is being destroyed by another thread",
                         stream);
    }
    stream_teardown(s, wait);
    stream_release(s);
    return ACL_SUCCESS;
}

/* Waits for the stream's queued work, as ACL's newest documentation says. */
ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    return destroy(__func__, stream, true);
}

/* Returns at once; queued work still completes. */
ACL_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy(__func__, stream, false);
}

static aclError synchronize(const char *api, aclrtStream stream, int32_t timeout_ms)
{
    acl_stream *s;
    aclError err = current_stream_get(api, stream, &s);
    if (err)
        return err;
    err = stream_synchronize(s, timeout_ms);
    if (err == ACL_ERROR_INVALID_PARAM)
        acl_raise(api, err, "stream %d was destroyed by another thread during the call",
                  (int)s->id);
    else if (err == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        acl_raise(api, err, "stream %d still busy after %d ms", (int)s->id, (int)timeout_ms);
    else if (err == ACL_ERROR_RT_STREAM_CAPTURED)
        acl_raise(api, err, "stream %d is being captured: its work runs when the model does",
                  (int)s->id);
    else if (err)
        acl_raise(api, err, "work on stream %d failed", (int)s->id);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return synchronize(__func__, stream, -1);
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0",
                         (int)timeout);
    return synchronize(__func__, stream, timeout);
}

ACL_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (!status)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "status is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    bool complete;
    err = stream_query(s, &complete);
    if (err == ACL_ERROR_RT_STREAM_CAPTURED)
        ACL_RAISE(err, "stream %d is being captured: its work runs when the model does",
                  (int)s->id);
    else if (err)
        ACL_RAISE(err, "querying stream %d failed", (int)s->id);
    else
        *status = complete ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    if (!streamId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "streamId is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *streamId = s->id;
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    if (!streamCount)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "streamCount is NULL");
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    context_put(ctx);
    *streamCount = stream_available();
    return ACL_SUCCESS;
}

/* ---- attributes ---------------------------------------------------------------- */

static aclError set_attribute(const char *api, aclrtStream stream, aclrtStreamAttr attr,
                              const aclrtStreamAttrValue *value)
{
    switch (attr) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        if (value->failureMode != ACL_CONTINUE_ON_FAILURE &&
            value->failureMode != ACL_STOP_ON_FAILURE)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "failure mode %llu is not CONTINUE (0) or STOP (1)",
                             (unsigned long long)value->failureMode);
        break;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        if (value->overflowSwitch > 1)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "overflow switch %u is not 0 or 1",
                             value->overflowSwitch);
        break;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        break;
    case ACL_STREAM_ATTR_PRIORITY:
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "a stream's priority is fixed when it is created");
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown stream attribute %d", (int)attr);
    }
    acl_stream *s;
    aclError err = current_stream_get(api, stream, &s);
    if (err)
        return err;
    switch (attr) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        s->failure_mode = value->failureMode;
        break;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        s->overflow_switch = value->overflowSwitch;
        break;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        s->user_custom_tag = value->userCustomTag;
        break;
    default:
        s->cache_op_info = value->cacheOpInfoSwitch;
        break;
    }
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    return set_attribute(__func__, stream, ACL_STREAM_ATTR_FAILURE_MODE,
                         &(aclrtStreamAttrValue){.failureMode = mode});
}

ACL_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    return set_attribute(__func__, stream, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK,
                         &(aclrtStreamAttrValue){.overflowSwitch = flag});
}

ACL_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                            aclrtStreamAttrValue *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    return set_attribute(__func__, stream, stmAttrType, value);
}

ACL_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    if (!flag)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *flag = s->overflow_switch;
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                            aclrtStreamAttrValue *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        value->failureMode = s->failure_mode;
        break;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        value->overflowSwitch = s->overflow_switch;
        break;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        value->userCustomTag = s->user_custom_tag;
        break;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        value->cacheOpInfoSwitch = s->cache_op_info;
        break;
    case ACL_STREAM_ATTR_PRIORITY:
        value->streamPriority = s->priority;
        break;
    default:
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown stream attribute %d", (int)stmAttrType);
        break;
    }
    stream_put(s);
    return err;
}

/* The priority (ACL's 0..7) and the ACL_STREAM_* flags the stream was
 * created with; the default stream has 0 and 0. */
ACL_EXPORT aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    if (!priority)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "priority is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *priority = s->priority;
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    if (!flags)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *flags = s->flags;
    stream_put(s);
    return ACL_SUCCESS;
}
