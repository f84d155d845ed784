#include <stddef.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/errors.h"
#include "core/exception.h"
#include "core/event.h"
#include "core/sink.h"
#include "core/share.h"
#include "util/cacheline.h"

enum { EVENT_LIMIT = 1 << 20 };

static atomic_uint next_event_id;
static atomic_int live_events;

static void event_free(object *o)
{
    acl_event *e = (acl_event *)o;
    if (e->share) {
        share_withdraw(e->share);
        free(e->share);
    }
    backend()->event->destroy(event_backend(e)); /* never blocks */
    if (e->flag) {
        backend()->notify->destroy(e->flag);
        free(e->flag);
    }
    cacheline_free(e);
    atomic_fetch_sub(&live_events, 1);
}

/* The word of an ACL_EVENT_EXTERNAL event: a counting notify (set to 1 or
 * 0, waited for until 1 or more), so that a wait queued before the record
 * still waits for it. */
static aclError flag_create(acl_event *e)
{
    const backend_notify_ops *ops = backend()->notify;
    if (!ops)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    backend_notify *n = calloc(1, ops->size);
    if (!n)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    aclError err = ops->create(n, e->phys);
    if (err) {
        free(n);
        return err;
    }
    e->flag = n;
    return ACL_SUCCESS;
}

static aclError flag_set(const char *api, acl_event *e, acl_stream *s, uint32_t value)
{
    return stream_submit(api, s,
                         &(task){.kind = TASK_CNT_NOTIFY_RECORD,
                                 .u.notify = {.notify = e->flag,
                                              .mode = ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE,
                                              .value = value}});
}

/* A zeroed event of the backend whose operations are ops, with room for
 * the backend's, aligned as its hot line asks (acl_event.flag). */
static acl_event *event_alloc(const backend_event_ops *ops)
{
    _Static_assert(_Alignof(acl_event) <= CACHELINE_BYTES, "events start on a cache line");
    acl_event *e = cacheline_zalloc(offsetof(acl_event, backend) + ops->size);
    if (e)
        e->ops = ops;
    return e;
}

aclError event_create(const char *api, acl_context *ctx, event_flavour flavour, uint32_t flags,
                      acl_event **out)
{
    const backend_event_ops *ops = backend()->event;
    if (atomic_fetch_add(&live_events, 1) >= EVENT_LIMIT) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, ACL_ERROR_RT_NO_EVENT_RESOURCE, "%d events are live already",
                         EVENT_LIMIT);
    }
    acl_event *e = event_alloc(ops);
    if (!e) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    aclError err;
    if (flags & ACL_EVENT_IPC)
        err = backend()->ipc ? backend()->ipc->event_create(event_backend(e), ctx->phys)
                             : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    else
        err = ops->create(event_backend(e), ctx->phys, flags & ACL_EVENT_TIME_LINE);
    if (err) {
        cacheline_free(e);
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, err, "creating an event on device %d failed", (int)ctx->device);
    }
    e->flavour = flavour;
    e->flags = flags;
    e->id = atomic_fetch_add(&next_event_id, 1);
    e->phys = ctx->phys;
    if (flags == ACL_EVENT_EXTERNAL && (err = flag_create(e))) {
        event_free(&e->obj);
        return acl_raise(api, err, "creating the flag of an ACL_EVENT_EXTERNAL event failed: %s",
                         acl_error_text(err));
    }
    if ((err = handle_publish(&e->obj, HANDLE_EVENT, event_free))) {
        event_free(&e->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    *out = e;
    return ACL_SUCCESS;
}

aclError event_adopt(const char *api, acl_context *ctx, void *native, acl_event **out)
{
    const backend_event_ops *ops = backend()->event;
    if (ops->adopt == NULL)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend has no native events to wrap", backend()->name);
    if (atomic_fetch_add(&live_events, 1) >= EVENT_LIMIT) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, ACL_ERROR_RT_NO_EVENT_RESOURCE, "%d events are live already",
                         EVENT_LIMIT);
    }
    acl_event *e = event_alloc(ops);
    if (!e) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    aclError err = ops->adopt(event_backend(e), ctx->phys, native);
    if (err) {
        ops->destroy(event_backend(e)); /* leaves the native event */
        cacheline_free(e);
        atomic_fetch_sub(&live_events, 1);
        bool bad_handle = err == ACL_ERROR_RT_PARAM_INVALID || err == ACL_ERROR_RT_INVALID_HANDLE;
        return acl_raise(api, bad_handle ? ACL_ERROR_INVALID_PARAM : err,
                         "%p is not a live native event of device %d: %s", native, (int)ctx->device,
                         acl_error_text(err));
    }
    e->flavour = EVENT_WITH_FLAG;
    e->flags = ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE;
    e->id = atomic_fetch_add(&next_event_id, 1);
    e->phys = ctx->phys;
    atomic_store_explicit(&e->recorded, true, memory_order_relaxed);
    if ((err = handle_publish(&e->obj, HANDLE_EVENT, event_free))) {
        event_free(&e->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    *out = e;
    return ACL_SUCCESS;
}

aclError event_open_ipc(const char *api, acl_context *ctx, const void *blob, size_t len, int fd,
                        acl_event **out)
{
    const backend_event_ops *ops = backend()->event;
    if (atomic_fetch_add(&live_events, 1) >= EVENT_LIMIT) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, ACL_ERROR_RT_NO_EVENT_RESOURCE, "%d events are live already",
                         EVENT_LIMIT);
    }
    acl_event *e = event_alloc(ops);
    if (!e) {
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    aclError err = backend()->ipc->event_open(event_backend(e), ctx->phys, blob, len, fd);
    if (err) {
        cacheline_free(e);
        atomic_fetch_sub(&live_events, 1);
        return acl_raise(api, err, "opening the event of another process failed: %s",
                         acl_error_text(err));
    }
    e->flavour = EVENT_EX;
    e->flags = ACL_EVENT_IPC;
    e->id = atomic_fetch_add(&next_event_id, 1);
    e->phys = ctx->phys;
    /* Its records are made in the other process: always wait for them. */
    atomic_init(&e->recorded, true);
    if ((err = handle_publish(&e->obj, HANDLE_EVENT, event_free))) {
        event_free(&e->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    *out = e;
    return ACL_SUCCESS;
}

aclError event_get_failed(const char *api, aclrtEvent handle)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "event is NULL");
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live event%s", handle,
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

aclError event_destroy(const char *api, aclrtEvent handle)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "event is NULL");
    object *o = handle_take(handle, HANDLE_EVENT);
    if (!o)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live event%s", handle,
                         handle_kind_of(handle) ? " (it is another kind of handle)" : "");
    object_put(o); /* pending work keeps the backend's own reference */
    return ACL_SUCCESS;
}

aclError event_record(const char *api, acl_event *e, acl_stream *s)
{
    if (e->flag) /* captured as any stream-ordered task */
        return flag_set(api, e, s, 1);
    /* The sink that takes the record, if one does (a capture), ties the
     * event to it (the stream's sink may close meanwhile: the record is
     * then queued). */
    uint64_t recorder = 0;
    aclError err = stream_submit(
        api, s,
        &(task){.kind = TASK_RECORD,
                .u.event = {.backend = event_backend(e), .acl = e, .recorded_in = &recorder}});
    if (err == ACL_SUCCESS) {
        atomic_store_explicit(&e->recorder, recorder, memory_order_relaxed);
        atomic_store_explicit(&e->recorded, true, memory_order_release);
    }
    return err;
}

aclError event_wait(const char *api, acl_stream *s, acl_event *e)
{
    if (e->flag)
        return stream_submit(
            api, s,
            &(task){.kind = TASK_CNT_NOTIFY_WAIT,
                    .u.notify = {.notify = e->flag,
                                 .mode = ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE,
                                 .value = 1}});
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire))
        return ACL_SUCCESS; /* nothing captured: nothing to wait for */
    uint64_t recorder = atomic_load_explicit(&e->recorder, memory_order_relaxed);
    /* Its record was made by a sink: the wait is that sink's to decide. */
    if (__builtin_expect(recorder != 0, 0))
        return sink_event_wait(
            api, s,
            &(task){.kind = TASK_WAIT,
                    .u.event = {.backend = event_backend(e), .acl = e, .recorder = recorder}},
            recorder);
    return stream_submit(
        api, s, &(task){.kind = TASK_WAIT, .u.event = {.backend = event_backend(e), .acl = e}});
}

aclError event_external(const char *api, acl_stream *s, acl_event *e, bool record)
{
    aclError err = stream_submit(api, s,
                                 &(task){.kind = record ? TASK_RECORD_EXTERNAL : TASK_WAIT_EXTERNAL,
                                         .u.event = {.backend = event_backend(e), .acl = e}});
    if (err == ACL_SUCCESS && record) {
        /* Waits from now on are real ones: until the model first runs the
         * event is as its backend left it (a wait on it passes), and each run
         * records it at its launch. */
        atomic_store_explicit(&e->recorder, 0, memory_order_relaxed);
        atomic_store_explicit(&e->recorded, true, memory_order_release);
    }
    return err;
}

aclError event_reset_flag(const char *api, acl_event *e, acl_stream *s)
{
    return flag_set(api, e, s, 0);
}

void event_reset(acl_event *e)
{
    atomic_store_explicit(&e->recorded, false, memory_order_release);
}

/* Recorded by a capture: busy while it goes on, then as if never recorded
 * (the record belongs to the model). */
static bool recorded_outside_captures(acl_event *e, aclError *err)
{
    uint64_t recorder = atomic_load_explicit(&e->recorder, memory_order_relaxed);
    *err = ACL_SUCCESS;
    if (__builtin_expect(recorder == 0, 1))
        return true;
    if (sink_open(recorder))
        *err = ACL_ERROR_RT_EVENT_CAPTURED;
    return false;
}

aclError event_query(acl_event *e, bool *complete)
{
    aclError err;
    if (atomic_load_explicit(&e->recorded, memory_order_acquire) &&
        !recorded_outside_captures(e, &err)) {
        *complete = true;
        return err;
    }
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire)) {
        /* CANN: an event from aclrtCreateEvent or aclrtCreateEventWithFlag
         * is not ready until its first record (or after a reset); one from
         * aclrtCreateEventExWithFlag reports complete. */
        *complete = e->flavour == EVENT_EX;
        return ACL_SUCCESS;
    }
    return e->ops->query(event_backend(e), complete);
}

aclError event_synchronize(acl_event *e, int32_t timeout_ms)
{
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire))
        return ACL_SUCCESS;
    aclError err;
    if (!recorded_outside_captures(e, &err))
        return err;
    /* A wait is no place for a borrow (handle.h). */
    if (!object_hold(&e->obj))
        return ACL_ERROR_INVALID_PARAM;
    unsigned borrowed = borrow_suspend();
    err = e->ops->synchronize(event_backend(e), timeout_ms);
    borrow_resume(borrowed);
    object_release(&e->obj);
    if (exception_is_device_fault(err))
        exception_report(e->phys, device_from_phys(e->phys), -1, 0, err);
    return err;
}

aclError event_elapsed(acl_event *start, acl_event *end, float *ms)
{
    aclError err;
    if (!recorded_outside_captures(start, &err) || !recorded_outside_captures(end, &err))
        return err ? err : ACL_ERROR_RT_EVENT_CAPTURED;
    return start->ops->elapsed(event_backend(start), event_backend(end), ms);
}

aclError event_timestamp(acl_event *e, uint64_t *us)
{
    const backend_event_ops *ops = backend()->event;
    if (!ops->timestamp)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return ops->timestamp(event_backend(e), us);
}

void *event_native(acl_event *e)
{
    return e->ops->native(event_backend(e));
}

uint32_t event_available(void)
{
    int live = atomic_load(&live_events);
    return live < EVENT_LIMIT ? (uint32_t)(EVENT_LIMIT - live) : 0;
}
