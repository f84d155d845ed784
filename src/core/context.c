#include <stdlib.h>

#include "core/context.h"
#include "core/errors.h"
#include "util/clock.h"

/* Without a lock held: the stream may go with it. */
static void retired_free(retired_work *w)
{
    backend()->event->destroy((backend_event *)w->mark);
    stream_release(w->stream);
    free(w);
}

/* Retired work holds its stream, which holds the context: none is left. */
static void context_free(object *o)
{
    acl_context *ctx = (acl_context *)o;
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

aclError context_create(const char *api, int32_t device, int32_t phys, bool is_default,
                        acl_context **out)
{
    device_props props;
    aclError err = backend()->device->props(phys, &props);
    if (err)
        return acl_raise(api, err, "reading the properties of device %d failed", (int)device);
    acl_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    ctx->device = device;
    ctx->phys = phys;
    ctx->greatest_priority = props.greatest_priority;
    ctx->least_priority = props.least_priority;
    ctx->is_default = is_default;
    list_init(&ctx->device_link);
    list_init(&ctx->streams);
    list_init(&ctx->retired);
    pthread_mutex_init(&ctx->lock, NULL);
    err = handle_publish(&ctx->obj, HANDLE_CONTEXT, context_free);
    if (err) {
        context_free(&ctx->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    acl_stream *s;
    err = stream_create(ctx, 0, 0, true, &s);
    if (err) {
        object_take(&ctx->obj);
        return acl_raise(api, err, "creating the default stream on device %d failed", (int)device);
    }
    ctx->default_stream = s;
    ctx->default_handle = handle_of(&s->obj);
    stream_put(s);
    *out = ctx;
    return ACL_SUCCESS;
}

acl_context *context_get_handle(aclrtContext handle)
{
    return (acl_context *)handle_get(handle, HANDLE_CONTEXT);
}

bool context_link_stream(acl_context *ctx, acl_stream *s)
{
    pthread_mutex_lock(&ctx->lock);
    bool linked = !ctx->closing;
    if (linked)
        list_add(&ctx->streams, &s->ctx_link);
    pthread_mutex_unlock(&ctx->lock);
    return linked;
}

/* Harmless when the stream already left (a teardown emptied the list). */
void context_unlink_stream(acl_context *ctx, acl_stream *s)
{
    pthread_mutex_lock(&ctx->lock);
    list_remove(&s->ctx_link);
    pthread_mutex_unlock(&ctx->lock);
}

/* Takes every stream out of the list with a reference (under the lock, so
 * that a concurrent destroy's unlink finds it gone). With close, no stream
 * may join afterwards. */
static acl_stream **collect_streams(acl_context *ctx, bool close, bool take_out, size_t *count,
                                    aclError *err)
{
    *count = 0;
    *err = ACL_SUCCESS;
    pthread_mutex_lock(&ctx->lock);
    if (close)
        ctx->closing = true;
    size_t n = 0;
    list_for_each(pos, &ctx->streams) n++;
    acl_stream **streams = n ? malloc(n * sizeof *streams) : NULL;
    if (n && !streams) {
        *err = ACL_ERROR_RT_MEMORY_ALLOCATION;
        n = 0;
    }
    size_t i = 0;
    for (list_node *pos = ctx->streams.next; i < n && pos != &ctx->streams;) {
        acl_stream *s = list_entry(pos, acl_stream, ctx_link);
        pos = pos->next;
        if (take_out)
            list_remove(&s->ctx_link);
        /* One that cannot be held is being destroyed by another thread. */
        if (stream_hold(s))
            streams[i++] = s;
    }
    pthread_mutex_unlock(&ctx->lock);
    *count = i;
    return streams;
}

acl_stream **context_streams(acl_context *ctx, bool retired_too, size_t *count, aclError *err)
{
    acl_stream **streams = collect_streams(ctx, false, false, count, err);
    if (!retired_too || *err)
        return streams;
    /* After the live ones: a stream destroyed without waiting is retired
     * before it leaves the live list, so none is missed between the two. */
    pthread_mutex_lock(&ctx->lock);
    size_t n = 0;
    list_for_each(pos, &ctx->retired) n++;
    acl_stream **all = n ? realloc(streams, (*count + n) * sizeof *all) : streams;
    if (all)
        list_for_each(pos, &ctx->retired)
        {
            acl_stream *s = list_entry(pos, retired_work, link)->stream;
            if (stream_hold(s)) /* held by the work: always */
                all[(*count)++] = s;
        }
    pthread_mutex_unlock(&ctx->lock);
    if (!all) {
        for (size_t i = 0; i < *count; i++)
            stream_release(streams[i]);
        free(streams);
        *count = 0;
        *err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    return all;
}

/* The waits of every stream whose work was retired, cancelled with no lock
 * held (the cuda backend waits for the device to release them). */
static void cancel_retired_waits(acl_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    size_t n = 0;
    list_for_each(pos, &ctx->retired) n++;
    acl_stream **streams = n ? malloc(n * sizeof *streams) : NULL;
    size_t held = 0;
    if (streams)
        list_for_each(pos, &ctx->retired)
        {
            acl_stream *s = list_entry(pos, retired_work, link)->stream;
            if (stream_hold(s)) /* held by the work: always */
                streams[held++] = s;
        }
    if (n && !streams) /* out of memory: under the lock, then */
        list_for_each(pos, &ctx->retired)
            stream_cancel_waits(list_entry(pos, retired_work, link)->stream);
    pthread_mutex_unlock(&ctx->lock);
    for (size_t i = 0; i < held; i++) {
        stream_cancel_waits(streams[i]);
        stream_release(streams[i]);
    }
    free(streams);
}

/* How long a plain teardown waits for its streams' work before it gives
 * up their waits, as CANN's runtime bounds its wait for a stream it tears
 * down before it recycles the stream's tasks: nothing the application can
 * still do releases a wait once its stream is being torn down. */
enum { TEARDOWN_GRACE_MS = 3000 };

/* Whether s's work is done (or failed) by the deadline. */
static bool settled_by(acl_stream *s, int64_t deadline)
{
    return stream_synchronize(s, ms_left(deadline)) != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
}

void context_teardown(acl_context *ctx, bool force)
{
    size_t count;
    aclError err;
    acl_stream **streams = collect_streams(ctx, true, true, &count, &err);
    cancel_retired_waits(ctx);
    int64_t deadline = monotonic_ns() + (int64_t)TEARDOWN_GRACE_MS * 1000000;
    /* Without memory for the array, take the streams one at a time. */
    if (err) {
        for (;;) {
            pthread_mutex_lock(&ctx->lock);
            acl_stream *s = list_empty(&ctx->streams)
                                ? NULL
                                : list_entry(ctx->streams.next, acl_stream, ctx_link);
            bool held = false;
            if (s) {
                held = stream_hold(s);
                list_remove(&s->ctx_link);
            }
            pthread_mutex_unlock(&ctx->lock);
            if (!s)
                break;
            if (held && object_take(&s->obj)) {
                if (force || !settled_by(s, deadline))
                    stream_cancel_waits(s);
                stream_teardown(s, true);
            }
            if (held)
                stream_release(s);
        }
    }
    for (size_t i = 0; i < count; i++) {
        /* A stream another thread is destroying is that thread's to finish. */
        if (!object_take(&streams[i]->obj)) {
            stream_release(streams[i]);
            streams[i] = NULL;
        }
    }
    bool pending = false;
    if (!force)
        for (size_t i = 0; i < count && !pending; i++)
            pending = streams[i] && !settled_by(streams[i], deadline);
    /* Every wait is cancelled before any stream is waited for without a
     * limit: a stream may wait for an event that another records after a
     * wait of its own. */
    if (force || pending)
        for (size_t i = 0; i < count; i++)
            if (streams[i])
                stream_cancel_waits(streams[i]);
    for (size_t i = 0; i < count; i++) {
        if (streams[i]) {
            stream_teardown(streams[i], true);
            stream_release(streams[i]);
        }
    }
    free(streams);
    cancel_retired_waits(ctx); /* streams another thread destroyed meanwhile too */
    (void)context_wait_retired(ctx, -1);
}

void context_keep_retired(acl_context *ctx, retired_work *w)
{
    const backend_event_ops *ev = backend()->event;
    list_node complete_ones;
    list_init(&complete_ones);
    pthread_mutex_lock(&ctx->lock);
    for (list_node *pos = ctx->retired.next, *next; pos != &ctx->retired; pos = next) {
        next = pos->next;
        retired_work *old = list_entry(pos, retired_work, link);
        bool complete = false;
        if (ev->query((backend_event *)old->mark, &complete) == ACL_SUCCESS && complete) {
            list_remove(&old->link);
            list_add(&complete_ones, &old->link);
        }
    }
    list_add(&ctx->retired, &w->link);
    pthread_mutex_unlock(&ctx->lock);
    while (!list_empty(&complete_ones)) {
        retired_work *old = list_entry(complete_ones.next, retired_work, link);
        list_remove(&old->link);
        retired_free(old);
    }
}

aclError context_wait_retired(acl_context *ctx, int32_t timeout_ms)
{
    list_node waiting;
    list_init(&waiting);
    pthread_mutex_lock(&ctx->lock);
    if (!list_empty(&ctx->retired)) {
        waiting = ctx->retired;
        waiting.next->prev = waiting.prev->next = &waiting;
        list_init(&ctx->retired);
    }
    pthread_mutex_unlock(&ctx->lock);
    if (list_empty(&waiting))
        return ACL_SUCCESS;
    int64_t deadline = timeout_ms >= 0 ? monotonic_ns() + (int64_t)timeout_ms * 1000000 : 0;
    aclError err = ACL_SUCCESS;
    unsigned borrowed = borrow_suspend(); /* a wait is no place for a borrow */
    while (!list_empty(&waiting)) {
        retired_work *w = list_entry(waiting.next, retired_work, link);
        int32_t left = timeout_ms >= 0 ? ms_left(deadline) : -1;
        if (backend()->event->synchronize((backend_event *)w->mark, left) ==
            ACL_ERROR_RT_EVENT_SYNC_TIMEOUT) {
            err = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
            break;
        }
        /* Complete, or failed: nothing more to wait for (a device fault
         * is reported by the synchronizes of the streams still live). */
        list_remove(&w->link);
        retired_free(w);
    }
    borrow_resume(borrowed);
    if (!list_empty(&waiting)) { /* expired: kept for the next wait */
        pthread_mutex_lock(&ctx->lock);
        while (!list_empty(&waiting)) {
            retired_work *w = list_entry(waiting.next, retired_work, link);
            list_remove(&w->link);
            list_add(&ctx->retired, &w->link);
        }
        pthread_mutex_unlock(&ctx->lock);
    }
    return err;
}

void context_set_param(acl_context *ctx, int opt, int64_t value)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->sys_params[opt] = value;
    ctx->sys_params_set |= 1u << opt;
    pthread_mutex_unlock(&ctx->lock);
}

bool context_get_param(acl_context *ctx, int opt, int64_t *value)
{
    pthread_mutex_lock(&ctx->lock);
    bool set = ctx->sys_params_set & (1u << opt);
    *value = ctx->sys_params[opt];
    pthread_mutex_unlock(&ctx->lock);
    return set;
}
