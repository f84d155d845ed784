/* Streams: every one belongs to a context and is a real backend stream; NULL
 * stands for the current context's default stream, which never synchronises
 * implicitly with the others (backends make all streams non-blocking). */
#include <stdlib.h>

#include "internal.h"

enum { STREAM_LIMIT = 65536 };

/* Flags whose streams are only fed by the device: synchronising them
 * returns at once, as ACL documents. */
#define DEVICE_FED_FLAGS (ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

static atomic_int next_stream_id;
static atomic_int live_streams;

aclError stream_new(const char *func, acl_context *ctx, uint32_t priority, uint32_t flags,
                    acl_stream **out)
{
    const backend_ops *be = backend();
    if (atomic_fetch_add(&live_streams, 1) >= STREAM_LIMIT) {
        atomic_fetch_sub(&live_streams, 1);
        return acl_raise(func, ACL_ERROR_RT_NO_STREAM_RESOURCE, "%d streams are live already",
                         STREAM_LIMIT);
    }
    /* Spread ACL's 0..7 over the backend's range; 0 is the highest. */
    device_props props;
    aclError err = be->device_props(ctx->phys, &props);
    int32_t span = props.least_priority - props.greatest_priority;
    int32_t backend_priority = props.greatest_priority + (span * (int32_t)priority) / 7;

    acl_stream *s = NULL;
    backend_stream *bs = NULL;
    if (!err)
        err = be->stream_create(ctx->phys, backend_priority, &bs);
    if (!err && !(s = calloc(1, sizeof *s))) {
        be->stream_destroy(bs);
        err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    if (err) {
        atomic_fetch_sub(&live_streams, 1);
        return acl_raise(func, err, "creating a stream on device %d failed", (int)ctx->device);
    }
    s->magic = MAGIC_STREAM;
    s->ctx = ctx;
    s->bs = bs;
    s->id = atomic_fetch_add(&next_stream_id, 1);
    s->flags = flags;
    s->priority = priority;
    if ((err = handle_register(s))) {
        be->stream_destroy(bs);
        free(s);
        atomic_fetch_sub(&live_streams, 1);
        return acl_raise(func, err, "out of host memory for the handle table");
    }

    pthread_mutex_lock(&registry_lock);
    s->next = ctx->streams;
    if (ctx->streams)
        ctx->streams->prev = s;
    ctx->streams = s;
    pthread_mutex_unlock(&registry_lock);
    *out = s;
    return ACL_SUCCESS;
}

static void unlink_stream(acl_stream *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        s->ctx->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->next = s->prev = NULL;
}

/* The handle is gone first, so no new work can reach the stream; callbacks
 * it still holds are handed over before its work is waited for. */
static void stream_free(acl_stream *s, bool wait)
{
    handle_unregister(s);
    callback_stream_gone(s);
    if (wait)
        backend()->stream_synchronize(s->bs, -1);
    backend()->stream_destroy(s->bs);
    s->magic = 0;
    free(s);
    atomic_fetch_sub(&live_streams, 1);
}

void stream_free_context(acl_context *ctx)
{
    pthread_mutex_lock(&registry_lock);
    acl_stream *list = ctx->streams;
    ctx->streams = NULL;
    pthread_mutex_unlock(&registry_lock);
    while (list) {
        acl_stream *next = list->next;
        stream_free(list, true);
        list = next;
    }
    ctx->default_stream = NULL;
}

aclError stream_resolve(const char *func, aclrtStream handle, acl_stream **out)
{
    if (!handle) {
        acl_context *ctx;
        aclError err = context_require(func, &ctx);
        if (err)
            return err;
        *out = ctx->default_stream;
        return ACL_SUCCESS;
    }
    *out = handle_lookup(handle, MAGIC_STREAM);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%p is not a live stream%s", handle,
                     handle_kind(handle) ? " (it is another kind of handle)" : "");
}

static aclError stream_of_current_context(const char *func, aclrtStream handle, acl_stream **out)
{
    if (!handle)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "stream is NULL");
    aclError err = stream_resolve(func, handle, out);
    if (err)
        return err;
    acl_stream *s = *out;
    if (s == s->ctx->default_stream)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "the default stream goes away with its context, it cannot be destroyed");
    if (context_current() != s->ctx)
        return acl_raise(func, ACL_ERROR_RT_STREAM_CONTEXT,
                         "stream %d belongs to another context than the thread's current one", (int)s->id);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    return aclrtCreateStreamWithConfig(stream, 0, 0);
}

ACL_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    if (!stream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (priority > 7)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "priority %u is outside 0..7", priority);
    const uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT |
                           ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    if (flag & ~known)
        ACL_LOG(LOG_WARNING, "unknown stream flags 0x%x ignored: a plain stream is made", flag & ~known);
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    acl_stream *s;
    err = stream_new(__func__, ctx, priority, flag & known, &s);
    if (err)
        return err;
    *stream = s;
    return ACL_SUCCESS;
}

static aclError destroy(const char *func, aclrtStream stream, bool wait)
{
    acl_stream *s;
    aclError err = stream_of_current_context(func, stream, &s);
    if (err)
        return err;
    pthread_mutex_lock(&registry_lock);
    unlink_stream(s);
    pthread_mutex_unlock(&registry_lock);
    stream_free(s, wait);
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

static aclError synchronize(const char *func, aclrtStream stream, int32_t timeout_ms)
{
    acl_stream *s;
    aclError err = stream_resolve(func, stream, &s);
    if (err)
        return err;
    if (s->flags & DEVICE_FED_FLAGS)
        return ACL_SUCCESS;
    err = backend()->stream_synchronize(s->bs, timeout_ms);
    if (err == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        return acl_raise(func, err, "stream %d still busy after %d ms", (int)s->id, (int)timeout_ms);
    if (err)
        return acl_raise(func, err, "work on stream %d failed", (int)s->id);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return synchronize(__func__, stream, -1);
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0", (int)timeout);
    return synchronize(__func__, stream, timeout);
}

ACL_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (!status)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "status is NULL");
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    bool complete;
    err = backend()->stream_query(s->bs, &complete);
    if (err)
        return ACL_RAISE(err, "querying stream %d failed", (int)s->id);
    *status = complete ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    if (!streamId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "streamId is NULL");
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    *streamId = s->id;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    if (!streamCount)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "streamCount is NULL");
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    int live = atomic_load(&live_streams);
    *streamCount = live < STREAM_LIMIT ? (uint32_t)(STREAM_LIMIT - live) : 0;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "failure mode %llu is not CONTINUE (0) or STOP (1)",
                         (unsigned long long)mode);
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    s->failure_mode = mode;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    if (flag > 1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "overflow switch %u is not 0 or 1", flag);
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    s->overflow_switch = flag;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    if (!flag)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag is NULL");
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    *flag = s->overflow_switch;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                            aclrtStreamAttrValue *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE: return aclrtSetStreamFailureMode(stream, value->failureMode);
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: return aclrtSetStreamOverflowSwitch(stream, value->overflowSwitch);
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
    case ACL_STREAM_ATTR_CACHE_OP_INFO: {
        acl_stream *s;
        aclError err = stream_resolve(__func__, stream, &s);
        if (err)
            return err;
        if (stmAttrType == ACL_STREAM_ATTR_USER_CUSTOM_TAG)
            s->user_custom_tag = value->userCustomTag;
        else
            s->cache_op_info = value->cacheOpInfoSwitch;
        return ACL_SUCCESS;
    }
    case ACL_STREAM_ATTR_PRIORITY:
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "a stream's priority is fixed when it is created");
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown stream attribute %d", (int)stmAttrType);
    }
}

ACL_EXPORT aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                            aclrtStreamAttrValue *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE: value->failureMode = s->failure_mode; break;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: value->overflowSwitch = s->overflow_switch; break;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: value->userCustomTag = s->user_custom_tag; break;
    case ACL_STREAM_ATTR_CACHE_OP_INFO: value->cacheOpInfoSwitch = s->cache_op_info; break;
    case ACL_STREAM_ATTR_PRIORITY: value->streamPriority = s->priority; break;
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown stream attribute %d", (int)stmAttrType);
    }
    return ACL_SUCCESS;
}
