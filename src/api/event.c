/* Events (acl_rt.h); the three creation flavours are described in
 * core/event.h. */
#include "api/api.h"
#include "core/current.h"
#include "core/event.h"
#include "core/undefined.h"

static aclError create(const char *api, aclrtEvent *out, event_flavour flavour, uint32_t flags)
{
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "event is NULL");
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    acl_event *e;
    err = event_create(api, ctx, flavour, flags, &e);
    context_put(ctx);
    if (!err)
        *out = handle_of(&e->obj);
    return err;
}

ACL_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    PROF_API();
    return create(__func__, event, EVENT_PLAIN, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
}

/* EXTERNAL and IPC events must stand alone. */
static aclError check_flags(const char *api, uint32_t flag, uint32_t allowed)
{
    if (flag & ~allowed)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "event flags 0x%x include unknown bits 0x%x",
                         flag, flag & ~allowed);
    const uint32_t exclusive = ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;
    if ((flag & exclusive) && (flag & ~exclusive || (flag & exclusive) == exclusive))
        return acl_raise(
            api, ACL_ERROR_INVALID_PARAM,
            "ACL_EVENT_EXTERNAL and ACL_EVENT_IPC cannot be combined with other flags (0x%x)",
            flag);
    if ((flag & ACL_EVENT_IPC) && !backend()->ipc)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend has no inter-process events", backend()->name);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    PROF_API();
    const uint32_t allowed = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                             ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL;
    aclError err = check_flags(__func__, flag, allowed);
    return err ? err : create(__func__, event, EVENT_WITH_FLAG, flag);
}

ACL_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    PROF_API();
    const uint32_t allowed = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                             ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL |
                             ACL_EVENT_IPC;
    aclError err = check_flags(__func__, flag, allowed);
    return err ? err : create(__func__, event, EVENT_EX, flag);
}

ACL_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    PROF_API();
    return event_destroy(__func__, event);
}

/* An event and a stream, both borrowed (put_pair). Records and waits come
 * by the million: both are looked up at once when the stream is not the
 * default one; a failure, or the NULL stream, takes one lookup at a time,
 * which says what is wrong in ACL's order. */
static inline __attribute__((always_inline)) aclError get_pair(const char *api, aclrtEvent event,
                                                               aclrtStream stream, acl_event **e,
                                                               acl_stream **s)
{
    object *oe, *os;
    if (__builtin_expect(stream != NULL, 1) &&
        handle_get_pair(event, HANDLE_EVENT, stream, HANDLE_STREAM, &oe, &os)) {
        *e = (acl_event *)oe;
        *s = (acl_stream *)os;
        return ACL_SUCCESS;
    }
    aclError err = event_get(api, event, e);
    if (err)
        return err;
    err = current_stream_get(api, stream, s);
    if (err)
        event_put(*e);
    return err;
}

static inline void put_pair(acl_event *e, acl_stream *s)
{
    object_put_pair(&e->obj, &s->obj);
}

ACL_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    PROF_API();
    acl_event *e;
    acl_stream *s;
    aclError err = get_pair(__func__, event, stream, &e, &s);
    if (err)
        return err;
    if (s->phys != e->phys)
        err = ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                        "event %u and stream %d are on different devices", e->id, (int)s->id);
    else
        err = event_record(__func__, e, s);
    put_pair(e, s);
    return err;
}

ACL_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    PROF_API();
    acl_event *e;
    acl_stream *s;
    aclError err = get_pair(__func__, event, stream, &e, &s);
    if (err)
        return err;
    /* The API reference allows only aclrtCreateEventWithFlag's events with
     * ACL_EVENT_SYNC and leaves aclrtCreateEvent's undefined; CANN's runtime
     * resets those too (they carry ACL_EVENT_SYNC), and its own multi-stream
     * example relies on it: an undefined use, refused in strict mode.
     * aclrtCreateEventExWithFlag's are refused, as documented. */
    if (e->flag)
        err = event_reset_flag(__func__, e, s);
    else if (e->flavour == EVENT_EX || !(e->flags & ACL_EVENT_SYNC))
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                        "only events made with ACL_EVENT_SYNC or ACL_EVENT_EXTERNAL by "
                        "aclrtCreateEventWithFlag (or aclrtCreateEvent) can be reset");
    else {
        if (e->flavour == EVENT_PLAIN)
            err = undefined_use_check(__func__, CALL_SITE(), UNDEFINED_EVENT_RESET,
                                      ACL_ERROR_INVALID_PARAM,
                                      "event %u was made by aclrtCreateEvent: only events made "
                                      "with ACL_EVENT_SYNC or ACL_EVENT_EXTERNAL by "
                                      "aclrtCreateEventWithFlag can be reset",
                                      e->id);
        if (err == ACL_SUCCESS)
            event_reset(e);
    }
    put_pair(e, s);
    return err;
}

/* An ACL_EVENT_EXTERNAL event is a flag that streams and models wait on:
 * it records no work whose completion could be asked for. */
static aclError flag_refused(const char *api, const acl_event *e)
{
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "event %u was made with ACL_EVENT_EXTERNAL: a flag for streams and models "
                     "to wait on (aclrtStreamWaitEvent), with no record to query or wait for "
                     "from the host",
                     e->id);
}

/* The three status queries differ in which events they accept and in the
 * numbers they answer with (aclrtQueryEvent's COMPLETE is 0,
 * aclrtQueryEventStatus's is 1). */
static aclError query(const char *api, aclrtEvent event, bool ex_allowed, bool *complete)
{
    acl_event *e;
    aclError err = event_get(api, event, &e);
    if (err)
        return err;
    if (!complete)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "status is NULL");
    else if (!ex_allowed && e->flavour == EVENT_EX)
        err = acl_raise(
            api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "events made by aclrtCreateEventExWithFlag only answer aclrtQueryEventStatus");
    else if (e->flag)
        err = flag_refused(api, e);
    else if ((err = event_query(e, complete)))
        acl_raise(api, err, "querying event %u failed", e->id);
    event_put(e);
    return err;
}

ACL_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    PROF_API();
    bool complete;
    aclError err = query(__func__, event, false, status ? &complete : NULL);
    if (!err)
        *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return err;
}

ACL_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    PROF_API();
    bool complete;
    aclError err = query(__func__, event, true, status ? &complete : NULL);
    if (!err)
        *status =
            complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return err;
}

/* A stream's wait on an event is released when the awaited record
 * completes, so the waits on an event are done exactly when its latest
 * record is. */
ACL_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    PROF_API();
    bool complete;
    aclError err = query(__func__, event, false, status ? &complete : NULL);
    if (!err)
        *status = complete ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return err;
}

static aclError synchronize(const char *api, aclrtEvent event, int32_t timeout_ms)
{
    acl_event *e;
    aclError err = event_get(api, event, &e);
    if (err)
        return err;
    if (e->flag) {
        err = flag_refused(api, e);
        event_put(e);
        return err;
    }
    err = event_synchronize(e, timeout_ms);
    if (err == ACL_ERROR_INVALID_PARAM)
        acl_raise(api, err, "event %u was destroyed by another thread during the call", e->id);
    else if (err == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        acl_raise(api, err, "event %u not complete after %d ms", e->id, (int)timeout_ms);
    else if (err)
        acl_raise(api, err, "waiting for event %u failed", e->id);
    event_put(e);
    return err;
}

ACL_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    PROF_API();
    return synchronize(__func__, event, -1);
}

ACL_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    PROF_API();
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0",
                         (int)timeout);
    return synchronize(__func__, event, timeout);
}

ACL_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    PROF_API();
    if (!ms || !startEvent || !endEvent)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "NULL argument");
    acl_event *start, *end;
    aclError err = event_get(__func__, startEvent, &start);
    if (err)
        return err;
    err = event_get(__func__, endEvent, &end);
    if (err) {
        event_put(start);
        return err;
    }
    bool start_recorded = atomic_load(&start->recorded), end_recorded = atomic_load(&end->recorded);
    if (!(start->flags & ACL_EVENT_TIME_LINE) || !(end->flags & ACL_EVENT_TIME_LINE))
        err = ACL_RAISE(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                        "both events need timing (aclrtCreateEvent or ACL_EVENT_TIME_LINE)");
    else if (!start_recorded || !end_recorded)
        err = ACL_RAISE(ACL_ERROR_RT_INTERNAL_ERROR, "the %s event was never recorded",
                        start_recorded ? "end" : "start");
    else if ((err = event_elapsed(start, end, ms)) == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
        ACL_RAISE(err, "the events have not completed yet: synchronize first");
    else if (err)
        ACL_RAISE(err, "reading the elapsed time failed");
    event_put(end);
    event_put(start);
    return err;
}

/* timeout_s: seconds, 0 = not bounded (event_wait_timed). */
static aclError wait_event(const char *api, aclrtStream stream, aclrtEvent event,
                           uint32_t timeout_s)
{
    acl_event *e;
    acl_stream *s;
    aclError err = get_pair(api, event, stream, &e, &s);
    if (err)
        return err;
    /* IPC events stand alone and are made to be waited for (CANN's IPC
     * flow: the other process's stream waits); so are EXTERNAL ones. */
    if (!(e->flags & (ACL_EVENT_SYNC | ACL_EVENT_IPC | ACL_EVENT_EXTERNAL)))
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "event %u was created without ACL_EVENT_SYNC and cannot be waited for",
                        e->id);
    else
        err = event_wait_timed(api, s, e, timeout_s);
    put_pair(e, s);
    return err;
}

/* Bounded by aclrtSetOpWaitTimeout's limit when one is set. */
ACL_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    PROF_API();
    return wait_event(__func__, stream, event, event_op_wait_timeout());
}

/* A stream-ordered wait, as aclrtStreamWaitEvent, that gives up after
 * timeout seconds (0: never, as in ACL): the stream then goes on and its
 * next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT. */
ACL_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event,
                                                    int32_t timeout)
{
    PROF_API();
    if (timeout < 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timeout %d s must be >= 0", (int)timeout);
    return wait_event(__func__, stream, event, (uint32_t)timeout);
}

ACL_EXPORT aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    PROF_API();
    acl_event *e;
    aclError err = event_get(__func__, event, &e);
    if (err)
        return err;
    if (!eventId)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "eventId is NULL");
    else
        *eventId = e->id;
    event_put(e);
    return err;
}

ACL_EXPORT aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
    PROF_API();
    if (!eventCount)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "eventCount is NULL");
    *eventCount = event_available();
    return ACL_SUCCESS;
}

/* Waits queued from now on by aclrtStreamWaitEvent give up after timeout
 * seconds (0: never), as aclrtStreamWaitEventWithTimeout's do: the stream
 * goes on and its next synchronize reports ACL_ERROR_RT_TASK_TIMEOUT. */
ACL_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    PROF_API();
    event_set_op_wait_timeout(timeout);
    return ACL_SUCCESS;
}

/* ACL_EVENT_RECORD_EXTERNAL and ACL_EVENT_WAIT_EXTERNAL belong to graph
 * capture: an event of aclrtCreateEventExWithFlag(ACL_EVENT_SYNC) recorded
 * or waited for by a model being captured, across the model's boundary
 * (a stream or another model on the other side). Outside a capture they
 * are refused as CANN refuses them. */
static aclError external(const char *api, acl_event *e, acl_stream *s, bool record)
{
    if (e->flavour != EVENT_EX || e->flags != ACL_EVENT_SYNC)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "an external record or wait needs an event of "
                         "aclrtCreateEventExWithFlag(ACL_EVENT_SYNC); event %u is not one",
                         e->id);
    if (stream_sink(s) == NULL)
        return acl_raise(
            api, ACL_ERROR_RT_STREAM_NOT_CAPTURED,
            "an external record or wait needs a stream being captured; stream %d is not",
            (int)s->id);
    if (s->phys != e->phys)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "event %u and stream %d are on different devices", e->id, (int)s->id);
    return event_external(api, s, e, record);
}

ACL_EXPORT aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
    PROF_API();
    if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "flag %u is not ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL",
                         flag);
    acl_event *e;
    acl_stream *s;
    aclError err = get_pair(__func__, event, stream, &e, &s);
    if (err)
        return err;
    if (flag == ACL_EVENT_RECORD_EXTERNAL)
        err = external(__func__, e, s, true);
    else if (s->phys != e->phys)
        err = ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                        "event %u and stream %d are on different devices", e->id, (int)s->id);
    else
        err = event_record(__func__, e, s);
    put_pair(e, s);
    return err;
}

/* timeout: seconds, 0 = never, as for aclrtStreamWaitEventWithTimeout
 * (CANN's default flag is that function). */
ACL_EXPORT aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
                                                 uint32_t timeout, uint32_t flag)
{
    PROF_API();
    if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "flag %u is not ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL", flag);
    if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "an external wait takes timeout 0, not %u",
                         timeout);
    if (flag == ACL_EVENT_WAIT_DEFAULT)
        return wait_event(__func__, stream, event, timeout);
    acl_event *e;
    acl_stream *s;
    aclError err = get_pair(__func__, event, stream, &e, &s);
    if (err)
        return err;
    err = external(__func__, e, s, false);
    put_pair(e, s);
    return err;
}

/* Microseconds of CLOCK_MONOTONIC (time since the host booted) at which the
 * event's latest record completed; the event must time (aclrtCreateEvent
 * or ACL_EVENT_TIME_LINE) and its record be complete. */
ACL_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    PROF_API();
    acl_event *e;
    aclError err = event_get(__func__, event, &e);
    if (err)
        return err;
    if (!timestamp)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timestamp is NULL");
    else if (!(e->flags & ACL_EVENT_TIME_LINE))
        err = ACL_RAISE(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                        "event %u does not time (aclrtCreateEvent or ACL_EVENT_TIME_LINE)", e->id);
    else if (!atomic_load(&e->recorded))
        err = ACL_RAISE(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "event %u was never recorded", e->id);
    else if ((err = event_timestamp(e, timestamp)) == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
        ACL_RAISE(err, "event %u has not completed yet: synchronize first", e->id);
    else if (err)
        ACL_RAISE(err, "reading the time of event %u failed", e->id);
    event_put(e);
    return err;
}
