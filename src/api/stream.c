/* Streams (acl_rt.h). */
#include <string.h>

#include "api/api.h"
#include "core/current.h"
#include "core/graph.h"
#include "core/reslimit.h"
#include "core/statecb.h"
#include "core/stream_config.h"

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
    err = stream_create(ctx, priority, flag & known, false, &s);
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
    PROF_API();
    return create(__func__, stream, 0, 0);
}

ACL_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
                                                uint32_t flag)
{
    PROF_API();
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
    /* The teardown waits: it holds the stream rather than borrowing it. */
    bool taken = !err && object_take_hold(&s->obj);
    stream_put(s);
    if (err)
        return err;
    if (!taken)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is being destroyed by another thread",
                         stream);
    stream_teardown(s, wait);
    stream_release(s);
    return ACL_SUCCESS;
}

/* Waits for the stream's queued work, as ACL's newest documentation says. */
ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    PROF_API();
    return destroy(__func__, stream, true);
}

/* Returns at once; queued work still completes. */
ACL_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    PROF_API();
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
    else if (err == ACL_ERROR_RT_TASK_TIMEOUT)
        acl_raise(api, err,
                  "a notify wait queued on stream %d timed out (aclrtWaitAndResetNotify or "
                  "aclrtCntNotifyWaitWithTimeout); the stream went on past it",
                  (int)s->id);
    else if (err == ACL_ERROR_RT_STREAM_ABORT)
        acl_raise(api, err, "stream %d was aborted during the wait", (int)s->id);
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
    PROF_API();
    return synchronize(__func__, stream, -1);
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    PROF_API();
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0",
                         (int)timeout);
    return synchronize(__func__, stream, timeout);
}

ACL_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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
    /* As aclrtGetOverflowStatus and its family (api/device.c): there is no
     * overflow status to check on a GPU, so the check cannot be turned on. */
    if (attr == ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK && value->overflowSwitch == 1) {
        stream_put(s);
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "a GPU keeps no floating-point overflow status to check: overflow gives "
                         "inf or NaN in the results (INFNAN mode)");
    }
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
    PROF_API();
    return set_attribute(__func__, stream, ACL_STREAM_ATTR_FAILURE_MODE,
                         &(aclrtStreamAttrValue){.failureMode = mode});
}

ACL_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    PROF_API();
    return set_attribute(__func__, stream, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK,
                         &(aclrtStreamAttrValue){.overflowSwitch = flag});
}

ACL_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                            aclrtStreamAttrValue *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    return set_attribute(__func__, stream, stmAttrType, value);
}

ACL_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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

/* ---- configurations and aclrtCreateStreamV2 --------------------------------------- */

ACL_EXPORT aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    PROF_API();
    stream_config *c = stream_config_create();
    if (!c) {
        ACL_RAISE(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return NULL;
    }
    return handle_of(&c->obj);
}

ACL_EXPORT aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    PROF_API();
    if (!handle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (!stream_config_destroy(handle))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "%p is not a live handle of aclrtCreateStreamConfigHandle",
                         (void *)handle);
    return ACL_SUCCESS;
}

/* Reads an unsigned option of 4 or 8 bytes. */
static bool read_unsigned(const void *value, size_t size, uint64_t *out)
{
    if (size == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, value, sizeof v);
        *out = v;
        return true;
    }
    if (size == sizeof(uint64_t)) {
        memcpy(out, value, sizeof *out);
        return true;
    }
    return false;
}

ACL_EXPORT aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
                                            aclrtStreamConfigAttr attr, const void *attrValue,
                                            size_t valueSize)
{
    PROF_API();
    if (!handle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (!attrValue)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attrValue is NULL");
    uint64_t number = 0;
    void *pointer = NULL;
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        if (valueSize != sizeof(void *))
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                             "ACL_RT_STREAM_WORK_ADDR_PTR takes the address of a pointer "
                             "(valueSize %zu, not %zu)",
                             valueSize, sizeof(void *));
        memcpy(&pointer, attrValue, sizeof pointer);
        break;
    case ACL_RT_STREAM_WORK_SIZE:
    case ACL_RT_STREAM_FLAG:
    case ACL_RT_STREAM_PRIORITY:
        if (!read_unsigned(attrValue, valueSize, &number))
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                             "attribute %d takes a 4- or 8-byte integer (valueSize %zu)", (int)attr,
                             valueSize);
        break;
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclrtStreamConfigAttr %d", (int)attr);
    }
    if (attr == ACL_RT_STREAM_PRIORITY && number > 7)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "priority %llu is outside 0..7",
                         (unsigned long long)number);
    if (attr == ACL_RT_STREAM_FLAG && number > UINT32_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag 0x%llx is not an ACL_STREAM_* flag set",
                         (unsigned long long)number);
    stream_config *c = stream_config_get(handle);
    if (!c)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "%p is not a live handle of aclrtCreateStreamConfigHandle",
                         (void *)handle);
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        c->work_ptr = pointer;
        break;
    case ACL_RT_STREAM_WORK_SIZE:
        c->work_size = (size_t)number;
        break;
    case ACL_RT_STREAM_FLAG:
        c->flags = (uint32_t)number;
        break;
    default:
        c->priority = (uint32_t)number;
        break;
    }
    object_put(&c->obj);
    return ACL_SUCCESS;
}

/* The work address and size are for Ascend's task scheduler; a CUDA stream
 * needs no workspace, so they are accepted and unused. */
ACL_EXPORT aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    PROF_API();
    if (!stream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (!handle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    stream_config *c = stream_config_get(handle);
    if (!c)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "%p is not a live handle of aclrtCreateStreamConfigHandle",
                         (const void *)handle);
    uint32_t priority = c->priority, flags = c->flags;
    object_put(&c->obj);
    return create(__func__, stream, priority, flags);
}

/* ---- abort, stop, persistent tasks ---------------------------------------------------- */

/* What becomes of the work queued so far is up to the backend (the host
 * backend cancels what has not started but host functions; CUDA keeps
 * running it on the stream it swaps out, see docs/backends.md); either way
 * the stream owes nothing queued before the call and takes new work. */
ACL_EXPORT aclError aclrtStreamAbort(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = stream_abort(s);
    if (err == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        ACL_RAISE(err,
                  "stream %d cannot be aborted on the %s backend: its native stream went to the "
                  "application (aclcudaGetNativeStream), which may still queue work on it",
                  (int)s->id, backend()->name);
    else if (err == ACL_ERROR_RT_STREAM_CAPTURED)
        ACL_RAISE(err,
                  "stream %d is being captured: its work is recorded into the model, with "
                  "nothing queued to abort; end the capture first",
                  (int)s->id);
    else if (err)
        ACL_RAISE(err, "aborting stream %d failed", (int)s->id);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtStreamStop(aclrtStream stream)
{
    PROF_API();
    (void)stream;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "a CUDA device cannot stop a running kernel or hold a stream's queued work "
                     "in place; aclrtStreamAbort moves a stream past its queued work");
}

/* Control tasks of a model being built (core/graph_flow.h): the streams
 * must be explicit ones bound to it (NULL is not the default stream here). */
static aclError model_stream(const char *api, aclrtStream stream, const char *what, acl_stream **s)
{
    if (!stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", what);
    return stream_get(api, stream, s);
}

ACL_EXPORT aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
    PROF_API();
    acl_stream *target, *s;
    aclError err = model_stream(__func__, activeStream, "activeStream", &target);
    if (err)
        return err;
    if (!(err = model_stream(__func__, stream, "stream", &s))) {
        err = model_activate(__func__, target, s);
        stream_put(s);
    }
    stream_put(target);
    return err;
}

ACL_EXPORT aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                                      aclrtCompareDataType dataType, aclrtStream trueStream,
                                      aclrtStream falseStream, aclrtStream stream)
{
    PROF_API();
    if (!leftValue)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "leftValue is NULL");
    if (!rightValue)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "rightValue is NULL");
    if (!trueStream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "trueStream is NULL");
    if (!stream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (falseStream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "falseStream is reserved: pass NULL (when the condition is false, the "
                         "rest of stream goes on)");
    if ((unsigned)cond > ACL_RT_LESS_OR_EQUAL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown condition %d", (int)cond);
    if ((unsigned)dataType > ACL_RT_SWITCH_INT64)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown data type %d", (int)dataType);
    acl_stream *target, *s;
    aclError err = stream_get(__func__, trueStream, &target);
    if (err)
        return err;
    if (!(err = stream_get(__func__, stream, &s))) {
        err = model_switch_stream(__func__, leftValue, cond, rightValue, dataType, target, s);
        stream_put(s);
    }
    stream_put(target);
    return err;
}

/* Persistent streams take no work from the host here (see stream_submit),
 * so there is never a task to clean. */
ACL_EXPORT aclError aclrtPersistentTaskClean(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    if (!(s->flags & ACL_STREAM_PERSISTENT))
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                        "stream %d was not created with ACL_STREAM_PERSISTENT", (int)s->id);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtRegStreamStateCallback(const char *regName,
                                                aclrtStreamStateCallback callback, void *args)
{
    PROF_API();
    return statecb_register(__func__, STATECB_STREAM, regName, (void (*)(void))callback, args);
}

ACL_EXPORT aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    PROF_API();
    if (!taskId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "taskId is NULL");
    *taskId = stream_thread_last_task();
    return ACL_SUCCESS;
}

/* ---- resource limits (core/reslimit.h) ------------------------------------------------- */

static aclError check_res_type(const char *api, aclrtDevResLimitType type)
{
    if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "type %d is not ACL_RT_DEV_RES_CUBE_CORE or ACL_RT_DEV_RES_VECTOR_CORE",
                         (int)type);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
                                           uint32_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    aclError err = check_res_type(__func__, type);
    if (err)
        return err;
    acl_stream *s;
    err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = reslimit_stream_get(s, (int)type, value);
    if (err)
        ACL_RAISE(err, "reading the cores of stream %d's device failed", (int)s->id);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
                                           uint32_t value)
{
    PROF_API();
    aclError err = check_res_type(__func__, type);
    if (err)
        return err;
    acl_stream *s;
    err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    uint32_t hardware;
    err = reslimit_hardware(s->ctx->phys, &hardware);
    if (err)
        ACL_RAISE(err, "reading the cores of stream %d's device failed", (int)s->id);
    else if (value == 0 || value > hardware)
        err =
            ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%u cores: the device has 1 to %u", value, hardware);
    else
        atomic_store(&s->res_limit[type], value);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtResetStreamResLimit(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    for (int i = 0; i < RES_LIMIT_TYPES; i++)
        atomic_store(&s->res_limit[i], 0);
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    reslimit_thread_use(handle_of(&s->obj));
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    if (reslimit_thread_stream() == handle_of(&s->obj))
        reslimit_thread_use(NULL);
    stream_put(s);
    return ACL_SUCCESS;
}

/* The stream this thread uses, if it is still live and on the current
 * context's device, else the current device's process-level limit. */
ACL_EXPORT aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    aclError err = check_res_type(__func__, type);
    if (err)
        return err;
    acl_context *ctx;
    err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    aclrtStream used = reslimit_thread_stream();
    acl_stream *s = used ? (acl_stream *)handle_get(used, HANDLE_STREAM) : NULL;
    if (s && s->ctx->phys == ctx->phys)
        err = reslimit_stream_get(s, (int)type, value);
    else
        err = reslimit_device_get(ctx->phys, (int)type, value);
    if (s)
        stream_put(s);
    if (err)
        ACL_RAISE(err, "reading the cores of device %d failed", (int)ctx->device);
    context_put(ctx);
    return err;
}
