/* The host backend's events: each is the mark of its latest record, and
 * record and wait are tasks (or no task at all) on the recording and the
 * waiting stream. */
#include "backend/host/host.h"

static aclError host_event_create(backend_event *e, int32_t dev, bool timing)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (pthread_mutex_init(&e->lock, NULL))
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    e->dev = dev;
    e->timing = timing;
    e->current = NULL;
    e->ipc = NULL;
    return ACL_SUCCESS;
}

/* Queued waits and timestamp tasks hold the mark, not the event. */
static void host_event_destroy(backend_event *e)
{
    mark_release(e->current);
    pthread_mutex_destroy(&e->lock);
    host_ipc_event_release(e);
}

aclError host_record(backend_stream *bs, backend_event *e)
{
    host_stream *s = bs->impl;
    if (e->ipc)
        return host_ipc_record(s, e->ipc);
    /* During a capture the record names the stream's current node; no
     * time is taken (models are not timed). */
    mark *m = capture_mark(s);
    if (!m && e->timing) {
        /* The mark is the timestamp task itself, which stamps it when run. */
        m = mark_new(s);
        task *t = m ? task_new(TASK_TIMESTAMP) : NULL;
        if (!t) {
            mark_release(m);
            return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        }
        mark_retain(m);
        task_set_mark(t, m);
        aclError err = stream_enqueue(s, t, m);
        if (err != ACL_SUCCESS) {
            task_discard(t);
            mark_release(m); /* the task's */
            mark_release(m); /* ours */
            return err;
        }
    } else if (!m) {
        /* Just note how far the stream has been fed; no task needed. */
        bool done;
        uint64_t seq = stream_fed(s, &done);
        m = mark_new(done ? NULL : s);
        if (!m)
            return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        m->seq = seq;
    }
    pthread_mutex_lock(&e->lock);
    mark *old = e->current;
    e->current = m;
    pthread_mutex_unlock(&e->lock);
    mark_release(old);
    return ACL_SUCCESS;
}

/* s is being captured: the task becomes a node, which its graph's
 * launches act on (graph.c). */
static aclError capture_external(backend_stream *bs, backend_event *e, task_kind kind)
{
    host_stream *s = bs->impl;
    host_capture *c = stream_capture_of(s, NULL);
    if (!c)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    capture_release(c);
    task *t = task_new(kind);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    task_set_event(t, e);
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS)
        task_discard(t);
    return err;
}

aclError host_record_external(backend_stream *bs, backend_event *e)
{
    return capture_external(bs, e, TASK_EXT_RECORD);
}

aclError host_wait_external(backend_stream *bs, backend_event *e)
{
    return capture_external(bs, e, TASK_EXT_WAIT);
}

aclError host_wait(backend_stream *bs, backend_event *e)
{
    host_stream *s = bs->impl;
    if (e->ipc)
        return host_ipc_wait(s, e->ipc);
    mark *m = host_event_mark(e);
    if (m && m->capture) {
        aclError err = capture_wait_mark(s, m);
        mark_release(m);
        return err;
    }
    /* Nothing to wait for: never recorded, already complete, or recorded on
     * s itself, whose FIFO order already puts that work first. */
    if (!m || !m->stream || m->stream == s || mark_wait(m, 0)) {
        mark_release(m);
        return ACL_SUCCESS;
    }
    task *t = task_new(TASK_WAIT);
    if (!t) {
        mark_release(m);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    task_set_mark(t, m); /* our reference passes to the task */
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS) {
        task_discard(t);
        mark_release(m);
    }
    return err;
}

static aclError host_event_query(backend_event *e, bool *complete)
{
    if (e->ipc) {
        *complete = host_ipc_complete(e->ipc->page, host_ipc_recorded(e->ipc->page));
        return ACL_SUCCESS;
    }
    mark *m = host_event_mark(e);
    *complete = mark_wait(m, 0);
    mark_release(m);
    return ACL_SUCCESS;
}

static aclError host_event_synchronize(backend_event *e, int32_t timeout_ms)
{
    if (e->ipc)
        return host_ipc_wait_for(e->ipc->page, host_ipc_recorded(e->ipc->page), timeout_ms)
                   ? ACL_SUCCESS
                   : ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
    mark *m = host_event_mark(e);
    bool reached = mark_wait(m, timeout_ms);
    mark_release(m);
    return reached ? ACL_SUCCESS : ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
}

static aclError host_event_elapsed(backend_event *start, backend_event *end, float *ms)
{
    if (!start->timing || !end->timing)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    mark *a = host_event_mark(start);
    mark *b = host_event_mark(end);
    aclError err = ACL_SUCCESS;
    if (!a || !b)
        err = ACL_ERROR_RT_INTERNAL_ERROR; /* never recorded */
    else if (!mark_wait(a, 0) || !mark_wait(b, 0))
        err = ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    else if (!a->stamp_ns || !b->stamp_ns)
        err = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID; /* a record an abort cancelled */
    else
        *ms = (float)((double)(b->stamp_ns - a->stamp_ns) / 1e6);
    mark_release(a);
    mark_release(b);
    return err;
}

static aclError host_event_timestamp(backend_event *e, uint64_t *us)
{
    if (!e->timing)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    mark *m = host_event_mark(e);
    aclError err = ACL_SUCCESS;
    if (!m)
        err = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID; /* never recorded */
    else if (!mark_wait(m, 0))
        err = ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    else if (!m->stamp_ns)
        err = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID; /* a record an abort cancelled */
    else
        *us = (uint64_t)m->stamp_ns / 1000;
    mark_release(m);
    return err;
}

static void *host_event_native(backend_event *e)
{
    (void)e;
    return NULL;
}

const backend_event_ops host_event_ops = {
    .size = sizeof(backend_event),
    .create = host_event_create,
    .destroy = host_event_destroy,
    .query = host_event_query,
    .synchronize = host_event_synchronize,
    .elapsed = host_event_elapsed,
    .native = host_event_native,
    .timestamp = host_event_timestamp,
};
