#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/context.h"
#include "core/errors.h"
#include "core/exception.h"
#include "core/lifecycle.h"
#include "core/sink.h"
#include "core/stream.h"
#include "util/cacheline.h"

enum { STREAM_LIMIT = 65536 };

/* Stream ids handed out (high half) and live streams (low half), in one
 * word so that a creation counts both with one atomic add. */
static _Atomic uint64_t stream_counts;
#define STREAM_COUNT_ID (UINT64_C(1) << 32)
_Thread_local uint32_t stream_last_task_of_thread;

uint32_t stream_thread_last_task(void)
{
    return stream_last_task_of_thread;
}

void stream_note_thread_task(uint32_t id)
{
    stream_last_task_of_thread = id;
}

const char *stream_task_name(task_kind kind)
{
    switch (kind) {
    case TASK_COPY:
        return "a copy";
    case TASK_COPY_2D:
        return "a 2D copy";
    case TASK_FILL:
        return "a fill";
    case TASK_RECORD:
        return "an event record";
    case TASK_WAIT:
        return "an event wait";
    case TASK_RECORD_EXTERNAL:
        return "an external event record";
    case TASK_WAIT_EXTERNAL:
        return "an external event wait";
    case TASK_HOST_FUNC:
        return "a host function";
    case TASK_VALUE_WRITE:
        return "a value write";
    case TASK_VALUE_WAIT:
        return "a value wait";
    case TASK_NOTIFY_RECORD:
        return "a notify record";
    case TASK_NOTIFY_WAIT:
        return "a notify wait";
    case TASK_CNT_NOTIFY_RECORD:
        return "a counting notify record";
    case TASK_CNT_NOTIFY_WAIT:
        return "a counting notify wait";
    case TASK_LAUNCH:
        return "a kernel launch";
    case TASK_REDUCE:
        return "a reduction";
    case TASK_RANDOM:
        return "a random-number task";
    case TASK_GRAPH:
        return "a model execution";
    case TASK_FILL32:
        return "a 32-bit fill";
    case TASK_COPY_BATCH:
        return "a batch of copies";
    case TASK_COPY_INDIRECT:
        return "a copy through device-side addresses";
    case TASK_PREFETCH:
        return "a prefetch of managed memory";
    case TASK_POOL_ALLOC:
        return "a pool allocation";
    case TASK_POOL_FREE:
        return "a pool free";
    case TASK_GRAPH_SET_NODE:
        return "a task update";
    }
    return "a task";
}

/* The failure of t on s, described for aclGetRecentErrMsg. */
aclError stream_submit_failed(const char *api, const acl_stream *s, const task *t, aclError err)
{
    if (!api)
        return err;
    switch (t->kind) {
    case TASK_COPY:
        return acl_raise(api, err, "queueing a %zu-byte copy from %p to %p on stream %d failed: %s",
                         t->u.copy.n, t->u.copy.src, t->u.copy.dst, (int)s->id,
                         acl_error_text(err));
    case TASK_COPY_2D:
        return acl_raise(
            api, err, "queueing a 2D copy of %zu x %zu bytes from %p to %p on stream %d failed: %s",
            t->u.copy_2d.width, t->u.copy_2d.height, t->u.copy_2d.src, t->u.copy_2d.dst, (int)s->id,
            acl_error_text(err));
    case TASK_FILL:
        return acl_raise(api, err, "queueing a %zu-byte fill at %p on stream %d failed: %s",
                         t->u.fill.n, t->u.fill.ptr, (int)s->id, acl_error_text(err));
    case TASK_VALUE_WRITE:
    case TASK_VALUE_WAIT:
        return acl_raise(api, err, "queueing %s at %p on stream %d failed: %s",
                         stream_task_name(t->kind), t->u.value.addr, (int)s->id,
                         acl_error_text(err));
    case TASK_GRAPH:
        return acl_raise(api, err, "queueing model %u on stream %d failed: %s",
                         (unsigned)t->u.graph.model_id, (int)s->id, acl_error_text(err));
    default:
        return acl_raise(api, err, "queueing %s on stream %d failed: %s", stream_task_name(t->kind),
                         (int)s->id, acl_error_text(err));
    }
}

aclError stream_dispatch(acl_stream *s, const task *t)
{
    return stream_task_dispatch(s, t->kind, t);
}

/* Waits until s's sink k is ready for its work, or s left it. A sink
 * that needs this waits for every read section begun before s was given
 * to it (a capture does, as it starts), so this wait is outside any: s is
 * held instead. False when s is being destroyed. */
static bool wait_sink_ready(acl_stream *s, sink *k)
{
    if (!stream_hold(s))
        return false;
    unsigned borrowed = borrow_suspend();
    for (unsigned round = 0; !atomic_load_explicit(&s->sink_ready, memory_order_acquire) &&
                             atomic_load_explicit(&s->sink, memory_order_acquire) == k;
         round++) {
        if (round < 64)
            sched_yield();
        else
            usleep(50);
    }
    borrow_resume(borrowed);
    stream_release(s);
    return true;
}

aclError stream_submit_diverted(const char *api, acl_stream *s, const task *t)
{
    /* Work on a stream with a sink goes to the sink (a capture records
     * it), never queued, and so never counted. The sink is read again, in
     * a read section that keeps it from being freed (sink.h): one that
     * closed since stream_submit looked, or closes before it takes the
     * work, leaves the work to the stream's next sink or to be queued as
     * on any stream. Sequentially consistent, as a lookup's load
     * (handle.c, reader_register). */
    aclError err;
    borrow_begin();
    for (sink *k; (k = atomic_load_explicit(&s->sink, memory_order_seq_cst)) != NULL;) {
        if (!atomic_load_explicit(&s->sink_ready, memory_order_acquire)) {
            if (!wait_sink_ready(s, k)) {
                borrow_end();
                return api ? acl_raise(api, ACL_ERROR_INVALID_PARAM, "stream %d is being destroyed",
                                       (int)s->id)
                           : ACL_ERROR_INVALID_PARAM;
            }
            continue;
        }
        if (k->ops->submit(k, api, s, t, &err)) {
            borrow_end();
            return err;
        }
    }
    borrow_end();
    if ((s->flags & STREAM_DEVICE_FED_FLAGS) && !(t->kind == TASK_GRAPH && t->u.graph.from_model)) {
        if (!api)
            return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        return acl_raise(
            api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "stream %d was created with flags 0x%x (persistent, CPU-scheduled or "
            "device-only): only the device feeds it and synchronizing it does not wait, "
            "so %s queued from the host is refused%s",
            (int)s->id, s->flags, stream_task_name(t->kind),
            (s->flags & ACL_STREAM_PERSISTENT)
                ? " (a persistent stream takes work while it is captured or bound to a model "
                  "being built)"
                : "");
    }
    if (prof_on())
        return prof_submit(api, s, t);
    return stream_count(api, s, t, stream_task_dispatch(s, t->kind, t));
}

/* True when everything counted so far is known complete. */
static bool known_idle(acl_stream *s, uint_fast64_t *queued)
{
    *queued = atomic_load_explicit(&s->queued, memory_order_acquire);
    return !atomic_load_explicit(&s->exported, memory_order_relaxed) &&
           atomic_load_explicit(&s->done, memory_order_acquire) == *queued;
}

bool stream_known_idle(acl_stream *s)
{
    uint_fast64_t queued;
    return known_idle(s, &queued);
}

static void mark_done(acl_stream *s, uint_fast64_t queued)
{
    uint_fast64_t seen = atomic_load_explicit(&s->done, memory_order_relaxed);
    while (seen < queued &&
           !atomic_compare_exchange_weak_explicit(&s->done, &seen, queued, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

aclError stream_synchronize(acl_stream *s, int32_t timeout_ms)
{
    uint_fast64_t queued;
    if (__builtin_expect(stream_sink(s) != NULL, 0))
        return ACL_ERROR_RT_STREAM_CAPTURED; /* ACL: no synchronize while capturing */
    if ((s->flags & STREAM_DEVICE_FED_FLAGS) || known_idle(s, &queued))
        return ACL_SUCCESS;
    /* A wait is no place for a borrow (handle.h). */
    if (!stream_hold(s))
        return ACL_ERROR_INVALID_PARAM;
    unsigned borrowed = borrow_suspend();
    aclError err = backend()->stream->synchronize(stream_backend(s), timeout_ms);
    borrow_resume(borrowed);
    if (err == ACL_SUCCESS)
        mark_done(s, queued);
    else if (exception_is_device_fault(err))
        exception_report(s->ctx->phys, s->ctx->device, s->id, (uint32_t)queued, err);
    stream_release(s);
    return err;
}

aclError stream_query(acl_stream *s, bool *complete)
{
    uint_fast64_t queued;
    if (__builtin_expect(stream_sink(s) != NULL, 0))
        return ACL_ERROR_RT_STREAM_CAPTURED;
    if (known_idle(s, &queued)) {
        *complete = true;
        return ACL_SUCCESS;
    }
    /* Complete is not marked known here: a failure the stream recorded
     * (a timed-out wait) is the next synchronize's to report, and only the
     * backend's synchronize reads it. */
    return backend()->stream->query(stream_backend(s), complete);
}

void *stream_native(acl_stream *s)
{
    atomic_store_explicit(&s->exported, true, memory_order_relaxed);
    return backend()->stream->native(stream_backend(s));
}

aclError stream_abort(acl_stream *s)
{
    const backend_stream_ops *ops = backend()->stream;
    if (!ops->abort)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    /* A stream with a sink queues nothing: its work belongs to a model. */
    if (stream_sink(s) != NULL)
        return ACL_ERROR_RT_STREAM_CAPTURED;
    /* Everything counted before the abort is settled by it, unless the
     * backend still runs some of it (kept host functions): synchronize
     * and teardown wait for those. */
    uint_fast64_t queued = atomic_load_explicit(&s->queued, memory_order_acquire);
    bool owes = false;
    aclError err = ops->abort(stream_backend(s), &owes);
    if (err != ACL_SUCCESS)
        return err;
    lifecycle_notify(LIFECYCLE_STREAM_ABORTED, s);
    if (!owes)
        mark_done(s, queued);
    return ACL_SUCCESS;
}

uint32_t stream_available(void)
{
    uint32_t live = (uint32_t)atomic_load_explicit(&stream_counts, memory_order_relaxed);
    return live < STREAM_LIMIT ? STREAM_LIMIT - live : 0;
}

/* A new stream's id, or -1 when as many streams as allowed are live. */
static int32_t stream_count_new(void)
{
    uint64_t counts =
        atomic_fetch_add_explicit(&stream_counts, STREAM_COUNT_ID | 1, memory_order_relaxed);
    if ((uint32_t)counts >= STREAM_LIMIT) {
        atomic_fetch_sub_explicit(&stream_counts, 1, memory_order_relaxed);
        return -1;
    }
    return (int32_t)((counts >> 32) & INT32_MAX);
}

static void stream_count_gone(void)
{
    atomic_fetch_sub_explicit(&stream_counts, 1, memory_order_relaxed);
}

/* The last reference is gone: nothing can use the stream any more. */
/* A zeroed stream of the backend whose operations are ops, with room for
 * the backend's, aligned as its hot line asks (acl_stream.sink). */
static acl_stream *stream_alloc(const backend_stream_ops *ops)
{
    _Static_assert(_Alignof(acl_stream) <= CACHELINE_BYTES, "streams start on a cache line");
    acl_stream *s = cacheline_zalloc(offsetof(acl_stream, backend) + ops->size);
    if (s)
        s->ops = ops;
    return s;
}

static void stream_free(object *o)
{
    acl_stream *s = (acl_stream *)o;
    uint_fast64_t queued;
    backend()->stream->destroy(stream_backend(s), known_idle(s, &queued));
    context_release(s->ctx);
    cacheline_free(s);
}

aclError stream_create(acl_context *ctx, uint32_t priority, uint32_t flags, bool is_default,
                       acl_stream **out)
{
    const backend_ops *be = backend();
    int32_t id = stream_count_new();
    if (id < 0)
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    acl_stream *s = stream_alloc(be->stream);
    if (!s) {
        stream_count_gone();
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    /* Spread ACL's 0..7 over the backend's range; 0 is the highest. */
    int32_t span = ctx->least_priority - ctx->greatest_priority;
    int32_t backend_priority = ctx->greatest_priority + (span * (int32_t)priority) / 7;
    aclError err = be->stream->create(stream_backend(s), ctx->phys, backend_priority);
    if (err) {
        cacheline_free(s);
        stream_count_gone();
        return err;
    }
    if (!context_hold(ctx)) {
        be->stream->destroy(stream_backend(s), true);
        cacheline_free(s);
        stream_count_gone();
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    s->id = id;
    s->phys = ctx->phys;
    s->is_default = is_default;
    s->flags = flags;
    s->priority = priority;
    list_init(&s->ctx_link);
    list_init(&s->keep_link);
    s->ctx = ctx;
    if ((err = handle_publish(&s->obj, HANDLE_STREAM, stream_free))) {
        s->obj.free = stream_free;
        stream_free(&s->obj);
        stream_count_gone();
        return err;
    }
    /* The caller's borrow: once linked, a context teardown may take the
     * stream at any moment. */
    borrow_begin();
    if (!context_link_stream(ctx, s)) {
        /* ctx is being torn down: it will not see this stream. */
        object_take(&s->obj);
        stream_put(s);
        stream_count_gone();
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    lifecycle_notify(LIFECYCLE_STREAM_MADE, s);
    *out = s;
    return ACL_SUCCESS;
}

/* ACL's priority 0 (highest) .. 7 of a backend priority: the inverse of
 * stream_create's spread. */
static uint32_t acl_priority(const acl_context *ctx, int32_t backend_priority)
{
    int32_t span = ctx->least_priority - ctx->greatest_priority;
    if (span <= 0 || backend_priority <= ctx->greatest_priority)
        return 0;
    if (backend_priority >= ctx->least_priority)
        return 7;
    return (uint32_t)((7 * (backend_priority - ctx->greatest_priority) + span / 2) / span);
}

aclError stream_adopt(acl_context *ctx, void *native, acl_stream **out, int32_t *native_dev)
{
    const backend_ops *be = backend();
    *native_dev = ctx->phys;
    if (be->stream->adopt == NULL)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    int32_t id = stream_count_new();
    if (id < 0)
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    int32_t backend_priority = 0;
    aclError err = ACL_SUCCESS;
    acl_stream *s = stream_alloc(be->stream);
    if (!s)
        err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (!err) {
        err =
            be->stream->adopt(stream_backend(s), ctx->phys, native, native_dev, &backend_priority);
        if (!err && *native_dev != ctx->phys)
            err = ACL_ERROR_INVALID_PARAM;
    }
    if (!err && !context_hold(ctx))
        err = ACL_ERROR_RT_CONTEXT_NULL;
    if (err) {
        if (s) {
            be->stream->destroy(stream_backend(s), false); /* leaves the native stream */
            cacheline_free(s);
        }
        stream_count_gone();
        return err;
    }
    s->id = id;
    s->phys = ctx->phys;
    s->priority = acl_priority(ctx, backend_priority);
    atomic_store_explicit(&s->exported, true, memory_order_relaxed);
    list_init(&s->ctx_link);
    list_init(&s->keep_link);
    s->ctx = ctx;
    if ((err = handle_publish(&s->obj, HANDLE_STREAM, stream_free))) {
        s->obj.free = stream_free;
        stream_free(&s->obj);
        stream_count_gone();
        return err;
    }
    borrow_begin(); /* the caller's borrow, as in stream_create */
    if (!context_link_stream(ctx, s)) {
        object_take(&s->obj);
        stream_put(s);
        stream_count_gone();
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    lifecycle_notify(LIFECYCLE_STREAM_MADE, s); /* an ACL stream from now on, as a created one */
    *out = s;
    return ACL_SUCCESS;
}

aclError stream_get_failed(const char *api, aclrtStream handle)
{
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live stream%s", handle,
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

void stream_cancel_waits(acl_stream *s)
{
    backend()->stream->cancel_waits(stream_backend(s));
}

/* A stream destroyed without waiting leaves its context a mark after its
 * last work, and itself (context.h). Without memory or an event for it,
 * the work still runs, unwaited for. */
static void retire_unfinished_work(acl_stream *s)
{
    uint_fast64_t queued;
    if (known_idle(s, &queued) || stream_sink(s) != NULL || (s->flags & STREAM_DEVICE_FED_FLAGS))
        return;
    const backend_event_ops *ev = backend()->event;
    retired_work *w = malloc(sizeof *w + ev->size);
    if (!w)
        return;
    backend_event *mark = (backend_event *)w->mark;
    if (ev->create(mark, s->phys, false) != ACL_SUCCESS) {
        free(w);
        return;
    }
    if (stream_submit(NULL, s, &(task){.kind = TASK_RECORD, .u.event.backend = mark}) !=
            ACL_SUCCESS ||
        !stream_hold(s)) {
        ev->destroy(mark);
        free(w);
        return;
    }
    w->stream = s;
    context_keep_retired(s->ctx, w);
}

void stream_teardown(acl_stream *s, bool wait)
{
    /* Counted out when withdrawn: its memory may be freed later (handle.c). */
    stream_count_gone();
    if (!wait)
        retire_unfinished_work(s);
    context_unlink_stream(s->ctx, s);
    lifecycle_notify(LIFECYCLE_STREAM_GONE, s);
    if (wait)
        (void)stream_synchronize(s, -1);
}
