/* Notifies and counting notifies (acl_rt.h); the model is in core/notify.h. */
#include "api/api.h"
#include "core/current.h"
#include "core/notify.h"

static aclError create(const char *api, void **out, bool counting)
{
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the output pointer is NULL");
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    acl_notify *n;
    err = notify_create(api, ctx, counting, &n);
    context_put(ctx);
    if (!err)
        *out = handle_of(&n->obj);
    return err;
}

/* A notify and a stream, both borrowed. */
static aclError get_pair(const char *api, void *handle, bool counting, aclrtStream stream,
                         acl_notify **n, acl_stream **s)
{
    aclError err = notify_get(api, handle, counting, n);
    if (err)
        return err;
    err = current_stream_get(api, stream, s);
    if (err)
        notify_put(*n);
    return err;
}

static void put_pair(acl_notify *n, acl_stream *s)
{
    stream_put(s);
    notify_put(n);
}

/* ---- notifies ------------------------------------------------------------------------ */

/* ACL_NOTIFY_DEVICE_USE_ONLY notifies are for device-side code on Ascend;
 * here every notify is a word the device reads and writes, so both
 * flavours are the same. */
ACL_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    PROF_API();
    if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "flag 0x%llx is not ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY",
                         (unsigned long long)flag);
    return create(__func__, notify, false);
}

ACL_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
    PROF_API();
    return notify_destroy(__func__, notify, false);
}

ACL_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    PROF_API();
    acl_notify *n;
    acl_stream *s;
    aclError err = get_pair(__func__, notify, false, stream, &n, &s);
    if (err)
        return err;
    err = notify_record(__func__, n, s);
    put_pair(n, s);
    return err;
}

/* timeout: seconds, 0 = forever. An expired wait lets the stream go on; its
 * next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT. */
ACL_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream,
                                            uint32_t timeout)
{
    PROF_API();
    acl_notify *n;
    acl_stream *s;
    aclError err = get_pair(__func__, notify, false, stream, &n, &s);
    if (err)
        return err;
    err = notify_wait(__func__, n, s, timeout);
    put_pair(n, s);
    return err;
}

ACL_EXPORT aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    PROF_API();
    acl_notify *n;
    aclError err = notify_get(__func__, notify, false, &n);
    if (err)
        return err;
    if (!notifyId)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "notifyId is NULL");
    else
        *notifyId = n->id;
    notify_put(n);
    return err;
}

/* All handles are checked before any notify is reset. */
ACL_EXPORT aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    PROF_API();
    if (!notifies)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "notifies is NULL");
    if (num == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "num is 0");
    for (size_t i = 0; i < num; i++) {
        acl_notify *n;
        aclError err = notify_get(__func__, notifies[i], false, &n);
        if (err)
            return ACL_RAISE(err, "notifies[%zu] is not a live notify: nothing was reset", i);
        notify_put(n);
    }
    for (size_t i = 0; i < num; i++) {
        acl_notify *n;
        aclError err = notify_get(__func__, notifies[i], false, &n);
        if (err)
            return err; /* destroyed by another thread meanwhile */
        err = notify_reset(__func__, n);
        notify_put(n);
        if (err)
            return err;
    }
    return ACL_SUCCESS;
}

/* ---- shared with other processes ---------------------------------------------------------- */

ACL_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len,
                                            uint64_t flags)
{
    PROF_API();
    if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT &&
        flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "flags 0x%llx: use ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT or "
                         "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                         (unsigned long long)flags);
    acl_notify *n;
    aclError err = notify_get(__func__, notify, false, &n);
    if (err)
        return err;
    if (!key)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "key is NULL");
    else
        err = notify_export(__func__, n, key, len,
                            flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION);
    notify_put(n);
    return err;
}

ACL_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    PROF_API();
    acl_notify *n;
    aclError err = notify_get(__func__, notify, false, &n);
    if (err)
        return err;
    if (!pid)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pid is NULL");
    else if (num == 0)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "num is 0");
    else
        err = notify_allow_pids(__func__, n, pid, num);
    notify_put(n);
    return err;
}

/* The notify is opened on the current context's device. */
ACL_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    PROF_API();
    if (!notify)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "notify is NULL");
    if (!key)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "key is NULL");
    if (flags != ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT &&
        flags != ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "flags 0x%llx: use ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT or "
                         "ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS",
                         (unsigned long long)flags);
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    acl_notify *n;
    err = notify_import(__func__, ctx, key, flags == ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS,
                        &n);
    context_put(ctx);
    if (!err)
        *notify = handle_of(&n->obj);
    return err;
}

ACL_EXPORT aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify,
                                                       aclrtServerPid *serverPids, size_t num)
{
    PROF_API();
    (void)notify;
    (void)serverPids;
    (void)num;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "sharing a notify with processes of other servers needs an Ascend "
                     "super-node's inter-server links; use aclrtNotifySetImportPid for processes "
                     "of this machine");
}

/* ---- counting notifies ---------------------------------------------------------------- */

ACL_EXPORT aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
    PROF_API();
    if (flag != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag 0x%llx is reserved and must be 0",
                         (unsigned long long)flag);
    return create(__func__, cntNotify, true);
}

ACL_EXPORT aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
    PROF_API();
    return notify_destroy(__func__, cntNotify, true);
}

ACL_EXPORT aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
                                         aclrtCntNotifyRecordInfo *info)
{
    PROF_API();
    if (!info)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "info is NULL");
    switch (info->mode) {
    case ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE:
    case ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE:
    case ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE:
    case ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE:
        break;
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "record mode %d is not an aclrtCntNotifyRecordMode", (int)info->mode);
    }
    acl_notify *n;
    acl_stream *s;
    aclError err = get_pair(__func__, cntNotify, true, stream, &n, &s);
    if (err)
        return err;
    err = notify_count(__func__, n, s, (uint32_t)info->mode, info->value);
    put_pair(n, s);
    return err;
}

ACL_EXPORT aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
                                                  aclrtCntNotifyWaitInfo *info)
{
    PROF_API();
    if (!info)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "info is NULL");
    if ((unsigned)info->mode > ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "wait mode %d is not an aclrtCntNotifyWaitMode",
                         (int)info->mode);
    if (info->isClear > 1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "isClear %u is not 0 or 1", info->isClear);
    acl_notify *n;
    acl_stream *s;
    aclError err = get_pair(__func__, cntNotify, true, stream, &n, &s);
    if (err)
        return err;
    err = notify_count_wait(__func__, n, s, (uint32_t)info->mode, info->value, info->timeout,
                            info->isClear);
    put_pair(n, s);
    return err;
}

/* In stream order, as a record of 0. */
ACL_EXPORT aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
    PROF_API();
    acl_notify *n;
    acl_stream *s;
    aclError err = get_pair(__func__, cntNotify, true, stream, &n, &s);
    if (err)
        return err;
    err = notify_count(__func__, n, s, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 0);
    put_pair(n, s);
    return err;
}

ACL_EXPORT aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
    PROF_API();
    acl_notify *n;
    aclError err = notify_get(__func__, cntNotify, true, &n);
    if (err)
        return err;
    if (!notifyId)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "notifyId is NULL");
    else
        *notifyId = n->id;
    notify_put(n);
    return err;
}
