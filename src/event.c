/* Events, with ACL's three creation flavours and their flag rules:
 *  - aclrtCreateEvent: sync and timing capable; not for aclrtResetEvent;
 *  - aclrtCreateEventWithFlag: what the flags say (SYNC for waits and resets,
 *    TIME_LINE for timing);
 *  - aclrtCreateEventExWithFlag: like WithFlag, but without reset, QueryEvent
 *    or QueryEventWaitStatus.
 * A record captures the work queued so far; recording again re-captures and
 * later waits use the latest record. A reset (queued on a stream in ACL)
 * returns the event to "never recorded": later waits on it do not wait and
 * queries report it complete, until it is recorded again. */
#include <stdlib.h>

#include "internal.h"

enum { EVENT_LIMIT = 1 << 20 };

typedef enum event_flavour { EVENT_PLAIN, EVENT_WITH_FLAG, EVENT_EX } event_flavour;

typedef struct acl_event {
    uint32_t magic;
    event_flavour flavour;
    uint32_t flags;
    uint32_t id;
    int32_t phys;
    backend_event *be;
    atomic_bool recorded;
} acl_event;

static atomic_uint next_event_id;
static atomic_int live_events;

static aclError create(const char *func, aclrtEvent *out, event_flavour flavour, uint32_t flags)
{
    if (!out)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "event is NULL");
    acl_context *ctx;
    aclError err = context_require(func, &ctx);
    if (err)
        return err;
    if (atomic_fetch_add(&live_events, 1) >= EVENT_LIMIT) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(func, ACL_ERROR_RT_NO_EVENT_RESOURCE, "%d events are live already", EVENT_LIMIT);
    }
    acl_event *e = calloc(1, sizeof *e);
    if (!e) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    err = backend()->event_create(ctx->phys, flags & ACL_EVENT_TIME_LINE, &e->be);
    if (err) {
        free(e);
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(func, err, "creating an event on device %d failed", (int)ctx->device);
    }
    e->magic = MAGIC_EVENT;
    e->flavour = flavour;
    e->flags = flags;
    e->id = atomic_fetch_add(&next_event_id, 1);
    e->phys = ctx->phys;
    if ((err = handle_register(e))) {
        backend()->event_destroy(e->be);
        free(e);
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(func, err, "out of host memory for the handle table");
    }
    *out = e;
    return ACL_SUCCESS;
}

static aclError lookup(const char *func, aclrtEvent handle, acl_event **out)
{
    if (!handle)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "event is NULL");
    *out = handle_lookup(handle, MAGIC_EVENT);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%p is not a live event%s", handle,
                     handle_kind(handle) ? " (it is another kind of handle)" : "");
}

ACL_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create(__func__, event, EVENT_PLAIN, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
}

/* EXTERNAL and IPC events must stand alone. */
static aclError check_flags(const char *func, uint32_t flag, uint32_t allowed)
{
    if (flag & ~allowed)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "event flags 0x%x include unknown bits 0x%x",
                         flag, flag & ~allowed);
    const uint32_t exclusive = ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;
    if ((flag & exclusive) && (flag & ~exclusive || (flag & exclusive) == exclusive))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "ACL_EVENT_EXTERNAL and ACL_EVENT_IPC cannot be combined with other flags (0x%x)", flag);
    if (flag & exclusive)
        return acl_raise(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "%s events belong to graph capture / inter-process use, which acl-cuda does not provide",
                         flag & ACL_EVENT_IPC ? "IPC" : "external");
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    const uint32_t allowed = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                             ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL;
    aclError err = check_flags(__func__, flag, allowed);
    return err ? err : create(__func__, event, EVENT_WITH_FLAG, flag);
}

ACL_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    const uint32_t allowed = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                             ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;
    aclError err = check_flags(__func__, flag, allowed);
    return err ? err : create(__func__, event, EVENT_EX, flag);
}

ACL_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    acl_event *e;
    aclError err = lookup(__func__, event, &e);
    if (err)
        return err;
    handle_unregister(e);
    backend()->event_destroy(e->be); /* never blocks; pending work keeps its own reference */
    e->magic = 0;
    free(e);
    atomic_fetch_sub(&live_events, 1);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    acl_event *e;
    acl_stream *s;
    aclError err = lookup(__func__, event, &e);
    if (!err)
        err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    if (s->ctx->phys != e->phys)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "event %u and stream %d are on different devices",
                         e->id, (int)s->id);
    err = backend()->event_record(e->be, s->bs);
    if (err)
        return ACL_RAISE(err, "recording event %u on stream %d failed", e->id, (int)s->id);
    atomic_store_explicit(&e->recorded, true, memory_order_release);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    acl_event *e;
    acl_stream *s;
    aclError err = lookup(__func__, event, &e);
    if (!err)
        err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    if (e->flavour != EVENT_WITH_FLAG || !(e->flags & ACL_EVENT_SYNC))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "only events made by aclrtCreateEventWithFlag with ACL_EVENT_SYNC can be reset");
    atomic_store_explicit(&e->recorded, false, memory_order_release);
    return ACL_SUCCESS;
}

/* The three status queries differ in which events they accept and in the
 * numbers they answer with (aclrtQueryEvent's COMPLETE is 0,
 * aclrtQueryEventStatus's is 1). */
static aclError query(const char *func, aclrtEvent event, bool ex_allowed, bool *complete)
{
    acl_event *e;
    aclError err = lookup(func, event, &e);
    if (err)
        return err;
    if (!complete)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "status is NULL");
    if (!ex_allowed && e->flavour == EVENT_EX)
        return acl_raise(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "events made by aclrtCreateEventExWithFlag only answer aclrtQueryEventStatus");
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire)) {
        *complete = true;
        return ACL_SUCCESS;
    }
    err = backend()->event_query(e->be, complete);
    return err ? acl_raise(func, err, "querying event %u failed", e->id) : ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    bool complete;
    aclError err = query(__func__, event, false, status ? &complete : NULL);
    if (!err)
        *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return err;
}

ACL_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    bool complete;
    aclError err = query(__func__, event, true, status ? &complete : NULL);
    if (!err)
        *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return err;
}

/* A stream's wait on an event is released when the awaited record
 * completes, so the waits on an event are done exactly when its latest
 * record is. */
ACL_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    bool complete;
    aclError err = query(__func__, event, false, status ? &complete : NULL);
    if (!err)
        *status = complete ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return err;
}

static aclError synchronize(const char *func, aclrtEvent event, int32_t timeout_ms)
{
    acl_event *e;
    aclError err = lookup(func, event, &e);
    if (err)
        return err;
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire))
        return ACL_SUCCESS;
    err = backend()->event_synchronize(e->be, timeout_ms);
    if (err == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        return acl_raise(func, err, "event %u not complete after %d ms", e->id, (int)timeout_ms);
    return err ? acl_raise(func, err, "waiting for event %u failed", e->id) : ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return synchronize(__func__, event, -1);
}

ACL_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0", (int)timeout);
    return synchronize(__func__, event, timeout);
}

ACL_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    if (!ms || !startEvent || !endEvent)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "NULL argument");
    acl_event *start, *end;
    aclError err = lookup(__func__, startEvent, &start);
    if (!err)
        err = lookup(__func__, endEvent, &end);
    if (err)
        return err;
    if (!(start->flags & ACL_EVENT_TIME_LINE) || !(end->flags & ACL_EVENT_TIME_LINE))
        return ACL_RAISE(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                         "both events need timing (aclrtCreateEvent or ACL_EVENT_TIME_LINE)");
    if (!atomic_load(&start->recorded) || !atomic_load(&end->recorded))
        return ACL_RAISE(ACL_ERROR_RT_INTERNAL_ERROR, "the %s event was never recorded",
                         atomic_load(&start->recorded) ? "end" : "start");
    err = backend()->event_elapsed(start->be, end->be, ms);
    if (err == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
        return ACL_RAISE(err, "the events have not completed yet: synchronize first");
    return err ? ACL_RAISE(err, "reading the elapsed time failed") : ACL_SUCCESS;
}

static aclError wait_event(const char *func, aclrtStream stream, aclrtEvent event)
{
    acl_event *e;
    acl_stream *s;
    aclError err = lookup(func, event, &e);
    if (!err)
        err = stream_resolve(func, stream, &s);
    if (err)
        return err;
    if (!(e->flags & ACL_EVENT_SYNC))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "event %u was created without ACL_EVENT_SYNC and cannot be waited for", e->id);
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire))
        return ACL_SUCCESS; /* nothing captured: nothing to wait for */
    err = backend()->stream_wait_event(s->bs, e->be);
    return err ? acl_raise(func, err, "stream %d cannot wait for event %u", (int)s->id, e->id) : ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return wait_event(__func__, stream, event);
}

/* The wait itself cannot expire on either backend (CUDA has no timed
 * stream waits); 0 means "never" in ACL too. */
ACL_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    if (timeout < 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timeout %d s must be >= 0", (int)timeout);
    if (timeout > 0)
        ACL_LOG(LOG_DEBUG, "stream wait timeout of %d s is not enforced", (int)timeout);
    return wait_event(__func__, stream, event);
}

ACL_EXPORT aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    acl_event *e;
    aclError err = lookup(__func__, event, &e);
    if (err)
        return err;
    if (!eventId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "eventId is NULL");
    *eventId = e->id;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
    if (!eventCount)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "eventCount is NULL");
    int live = atomic_load(&live_events);
    *eventCount = live < EVENT_LIMIT ? (uint32_t)(EVENT_LIMIT - live) : 0;
    return ACL_SUCCESS;
}

/* Accepted for compatibility: stream waits are not timed on either backend
 * (see aclrtStreamWaitEventWithTimeout), so a wait never fails late. */
ACL_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    if (timeout)
        ACL_LOG(LOG_DEBUG, "op wait timeout of %u s is not enforced", timeout);
    return ACL_SUCCESS;
}

void *event_native(aclrtEvent handle)
{
    acl_event *e = handle_lookup(handle, MAGIC_EVENT);
    return e ? backend()->event_native(e->be) : NULL;
}
