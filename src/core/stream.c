#include <stdlib.h>

#include "core/context.h"
#include "core/errors.h"
#include "core/lifecycle.h"
#include "core/stream.h"

enum { STREAM_LIMIT = 65536 };

static atomic_int next_stream_id;
static atomic_int live_streams;

static const char *task_name(task_kind kind)
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
    case TASK_HOST_FUNC:
        return "a host function";
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
    }
    return "a task";
}

/* The failure of t on s, described for aclGetRecentErrMsg. */
static aclError submit_failed(const char *api, const acl_stream *s, const task *t, aclError err)
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
    default:
        return acl_raise(api, err, "queueing %s on stream %d failed: %s", task_name(t->kind),
                         (int)s->id, acl_error_text(err));
    }
}

aclError stream_submit(const char *api, acl_stream *s, const task *t)
{
    if (__builtin_expect(s->flags & STREAM_DEVICE_FED_FLAGS, 0)) {
        if (!api)
            return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        return acl_raise(
            api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "stream %d was created with flags 0x%x (persistent, CPU-scheduled or "
            "device-only): only the device feeds it and synchronizing it does not wait, "
            "so %s queued from the host is refused",
            (int)s->id, s->flags, task_name(t->kind));
    }
    const backend_stream_ops *ops = backend()->stream;
    backend_stream *bs = stream_backend(s);
    aclError err;
    switch (t->kind) {
    case TASK_COPY:
        err = ops->memcpy_async(bs, t->u.copy.dst, t->u.copy.src, t->u.copy.n, t->u.copy.dir);
        break;
    case TASK_COPY_2D:
        err = ops->memcpy2d_async(bs, t->u.copy_2d.dst, t->u.copy_2d.dpitch, t->u.copy_2d.src,
                                  t->u.copy_2d.spitch, t->u.copy_2d.width, t->u.copy_2d.height,
                                  t->u.copy_2d.dir);
        break;
    case TASK_FILL:
        err =
            ops->memset_async(bs, t->u.fill.ptr, t->u.fill.value, t->u.fill.n, t->u.fill.on_device);
        break;
    case TASK_RECORD:
        err = ops->record(bs, t->u.event);
        break;
    case TASK_WAIT:
        err = ops->wait(bs, t->u.event);
        break;
    case TASK_HOST_FUNC:
        err = ops->host_func(bs, t->u.host_func.fn, t->u.host_func.arg);
        break;
    case TASK_FILL32:
        err = ops->memset32_async ? ops->memset32_async(bs, t->u.fill32.ptr, t->u.fill32.value,
                                                        t->u.fill32.count, t->u.fill32.on_device)
                                  : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        break;
    case TASK_COPY_BATCH:
        err = ops->memcpy_batch_async
                  ? ops->memcpy_batch_async(bs, t->u.copy_batch.copies, t->u.copy_batch.count,
                                            t->u.copy_batch.dir)
                  : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        break;
    case TASK_COPY_INDIRECT:
        err = ops->memcpy_indirect_async ? ops->memcpy_indirect_async(bs, &t->u.copy_indirect)
                                         : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        break;
    case TASK_PREFETCH:
        err = ops->prefetch_async
                  ? ops->prefetch_async(bs, t->u.prefetch.ptr, t->u.prefetch.n, t->u.prefetch.loc)
                  : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        break;
    case TASK_POOL_ALLOC:
        err = ops->pool_alloc_async ? ops->pool_alloc_async(bs, t->u.pool_alloc.pool,
                                                            t->u.pool_alloc.n, t->u.pool_alloc.out)
                                    : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        break;
    case TASK_POOL_FREE:
        err = ops->pool_free_async
                  ? ops->pool_free_async(bs, t->u.pool_free.pool, t->u.pool_free.ptr,
                                         t->u.pool_free.n, t->u.pool_free.phys)
                  : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        break;
    default:
        err = ACL_ERROR_RT_INTERNAL_ERROR;
        break;
    }
    /* Counted after the call: a synchronize that read the count before
     * this store began before the call returned, and need not cover it. */
    atomic_fetch_add_explicit(&s->queued, 1, memory_order_release);
    return __builtin_expect(err == ACL_SUCCESS, 1) ? err : submit_failed(api, s, t, err);
}

/* True when everything counted so far is known complete. */
static bool known_idle(acl_stream *s, uint_fast64_t *queued)
{
    *queued = atomic_load_explicit(&s->queued, memory_order_acquire);
    return !atomic_load_explicit(&s->exported, memory_order_relaxed) &&
           atomic_load_explicit(&s->done, memory_order_acquire) == *queued;
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
    stream_release(s);
    return err;
}

aclError stream_query(acl_stream *s, bool *complete)
{
    uint_fast64_t queued;
    if (known_idle(s, &queued)) {
        *complete = true;
        return ACL_SUCCESS;
    }
    aclError err = backend()->stream->query(stream_backend(s), complete);
    if (err == ACL_SUCCESS && *complete)
        mark_done(s, queued);
    return err;
}

void *stream_native(acl_stream *s)
{
    atomic_store_explicit(&s->exported, true, memory_order_relaxed);
    return backend()->stream->native(stream_backend(s));
}

uint32_t stream_available(void)
{
    int live = atomic_load(&live_streams);
    return live < STREAM_LIMIT ? (uint32_t)(STREAM_LIMIT - live) : 0;
}

/* The last reference is gone: nothing can use the stream any more. */
static void stream_free(object *o)
{
    acl_stream *s = (acl_stream *)o;
    uint_fast64_t queued;
    backend()->stream->destroy(stream_backend(s), known_idle(s, &queued));
    context_release(s->ctx);
    free(s);
    atomic_fetch_sub(&live_streams, 1);
}

aclError stream_create(acl_context *ctx, uint32_t priority, uint32_t flags, acl_stream **out)
{
    const backend_ops *be = backend();
    if (atomic_fetch_add(&live_streams, 1) >= STREAM_LIMIT) {
        atomic_fetch_sub(&live_streams, 1);
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
    /* Spread ACL's 0..7 over the backend's range; 0 is the highest. */
    device_props props;
    aclError err = be->device->props(ctx->phys, &props);
    acl_stream *s = NULL;
    if (!err && !(s = calloc(1, sizeof *s + be->stream->size)))
        err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (!err) {
        int32_t span = props.least_priority - props.greatest_priority;
        int32_t backend_priority = props.greatest_priority + (span * (int32_t)priority) / 7;
        err = be->stream->create(stream_backend(s), ctx->phys, backend_priority);
        if (err) {
            free(s);
            s = NULL;
        }
    }
    if (err) {
        atomic_fetch_sub(&live_streams, 1);
        return err;
    }
    if (!context_hold(ctx)) {
        be->stream->destroy(stream_backend(s), true);
        free(s);
        atomic_fetch_sub(&live_streams, 1);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    s->id = atomic_fetch_add(&next_stream_id, 1);
    s->flags = flags;
    s->priority = priority;
    list_init(&s->ctx_link);
    s->ctx = ctx;
    if ((err = handle_publish(&s->obj, HANDLE_STREAM, stream_free))) {
        s->obj.free = stream_free;
        stream_free(&s->obj);
        return err;
    }
    /* The caller's borrow: once linked, a context teardown may take the
     * stream at any moment. */
    borrow_begin();
    if (!context_link_stream(ctx, s)) {
        /* ctx is being torn down: it will not see this stream. */
        object_take(&s->obj);
        stream_put(s);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *out = s;
    return ACL_SUCCESS;
}

aclError stream_get(const char *api, aclrtStream handle, acl_stream **out)
{
    *out = (acl_stream *)handle_get(handle, HANDLE_STREAM);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live stream%s", handle,
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

void stream_teardown(acl_stream *s, bool wait)
{
    context_unlink_stream(s->ctx, s);
    lifecycle_notify(LIFECYCLE_STREAM_GONE, s);
    if (wait)
        (void)stream_synchronize(s, -1);
}
