/* Timed event waits (aclrtStreamWaitEventWithTimeout, and
 * aclrtStreamWaitEventWithFlag with a timeout): the stream waits, in its
 * order, for the event's latest record, and at most timeout seconds; on
 * expiry it goes on, and its next synchronize reports
 * ACL_ERROR_RT_TASK_TIMEOUT, as CANN reports a stream wait past its limit
 * at the next synchronize, and as notify waits with a timeout do here.
 *
 * Neither backend can bound an event wait (CUDA's stream waits have no
 * limit), but both bound a counting notify wait (a host thread, a
 * one-thread kernel on cuda). A watcher turns the one into the other: its
 * own backend stream waits for the event, then sets its counter to a new
 * generation; the waiting stream waits, bounded, until the counter
 * reaches that generation. A watcher serves one wait at a time: a host
 * function queued after the set gives it back, so its counter only grows,
 * and a wait for generation g is met by g or by any later set, each made
 * after g's. The watcher's stream is no ACL stream (nothing of the
 * application reaches it), so its work goes to the backend directly.
 * Watchers are kept for reuse until aclFinalize.
 *
 * Lock: the watcher list, taken alone (also on the backend's thread that
 * runs the host function). */
#include <pthread.h>
#include <stdlib.h>

#include "core/event.h"
#include "core/errors.h"
#include "core/lifecycle.h"
#include "util/fork.h"

typedef struct watcher {
    struct watcher *next; /* every watcher, under watchers_lock */
    int32_t phys;
    bool busy;           /* serving a wait, under watchers_lock */
    uint32_t generation; /* the last one set, by its taker */
    backend_stream *stream;
    backend_notify *counter;
} watcher;

static pthread_mutex_t watchers_lock = PTHREAD_MUTEX_INITIALIZER;
static watcher *watchers;

static void watcher_free(watcher *w)
{
    const backend_ops *be = backend_chosen();
    if (w->counter) {
        be->notify->destroy(w->counter);
        free(w->counter);
    }
    if (w->stream) {
        be->stream->destroy(w->stream, false);
        free(w->stream);
    }
    free(w);
}

static aclError watcher_new(int32_t phys, watcher **out)
{
    const backend_ops *be = backend_chosen();
    watcher *w = calloc(1, sizeof *w);
    if (!w)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    w->phys = phys;
    w->stream = calloc(1, be->stream->size);
    w->counter = calloc(1, be->notify->size);
    aclError err = w->stream && w->counter ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (!err && (err = be->stream->create(w->stream, phys, 0))) {
        free(w->stream);
        w->stream = NULL;
    }
    if (!err && (err = be->notify->create(w->counter, phys))) {
        free(w->counter);
        w->counter = NULL;
    }
    if (err) {
        watcher_free(w);
        return err;
    }
    *out = w;
    return ACL_SUCCESS;
}

/* An idle watcher of device phys, busy from now on. */
static aclError watcher_take(int32_t phys, watcher **out)
{
    pthread_mutex_lock(&watchers_lock);
    watcher *w = watchers;
    while (w && (w->busy || w->phys != phys))
        w = w->next;
    if (w)
        w->busy = true;
    pthread_mutex_unlock(&watchers_lock);
    if (!w) {
        aclError err = watcher_new(phys, &w);
        if (err)
            return err;
        w->busy = true;
        pthread_mutex_lock(&watchers_lock);
        w->next = watchers;
        watchers = w;
        pthread_mutex_unlock(&watchers_lock);
    }
    *out = w;
    return ACL_SUCCESS;
}

/* On the backend's thread, after the watcher's set: it may serve again. */
static void watcher_done(void *arg)
{
    watcher *w = arg;
    pthread_mutex_lock(&watchers_lock);
    w->busy = false;
    pthread_mutex_unlock(&watchers_lock);
}

/* The watcher's part of a wait for e: the generation its counter reaches
 * once e's latest record is complete. */
static aclError watch(watcher *w, acl_event *e, uint32_t *generation)
{
    const backend_ops *be = backend_chosen();
    uint32_t g = ++w->generation;
    aclError err = be->stream->wait(w->stream, event_backend(e));
    if (!err)
        err = be->notify->count(w->stream, w->counter, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, g);
    /* Given back once what was queued is done, whatever was. */
    aclError back = be->stream->host_func(w->stream, watcher_done, w);
    if (back)
        return err ? err : back; /* kept busy: never served again (nor freed) */
    *generation = g;
    return err;
}

static _Atomic uint32_t op_wait_timeout_s;

void event_set_op_wait_timeout(uint32_t timeout_s)
{
    atomic_store_explicit(&op_wait_timeout_s, timeout_s, memory_order_relaxed);
}

uint32_t event_op_wait_timeout(void)
{
    return atomic_load_explicit(&op_wait_timeout_s, memory_order_relaxed);
}

aclError event_wait_timed(const char *api, acl_stream *s, acl_event *e, uint32_t timeout_s)
{
    if (timeout_s == 0)
        return event_wait(api, s, e);
    /* A flag (ACL_EVENT_EXTERNAL) is a counting notify already. */
    if (e->flag)
        return stream_submit(
            api, s,
            &(task){.kind = TASK_CNT_NOTIFY_WAIT,
                    .u.notify = {.notify = e->flag,
                                 .mode = ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE,
                                 .value = 1,
                                 .timeout_s = timeout_s}});
    if (!atomic_load_explicit(&e->recorded, memory_order_acquire))
        return ACL_SUCCESS; /* nothing captured: nothing to wait for */
    /* In a capture the wait is a node of the model's graph, which cannot
     * be bounded (CUDA's graph event waits have no limit). */
    if (atomic_load_explicit(&e->recorder, memory_order_relaxed) != 0 || stream_sink(s))
        return event_wait(api, s, e);
    const backend_ops *be = backend_chosen();
    if (!be->notify || !be->stream->host_func)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend cannot bound a stream's wait (no notifies)", be->name);
    watcher *w;
    aclError err = watcher_take(s->phys, &w);
    if (err)
        return acl_raise(api, err, "setting up a timed wait on device %d failed: %s",
                         (int)s->ctx->device, acl_error_text(err));
    uint32_t generation = 0;
    if ((err = watch(w, e, &generation)))
        return acl_raise(api, err, "queueing the wait for event %u failed: %s", e->id,
                         acl_error_text(err));
    return stream_submit(api, s,
                         &(task){.kind = TASK_CNT_NOTIFY_WAIT,
                                 .u.notify = {.notify = w->counter,
                                              .mode = ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE,
                                              .value = generation,
                                              .timeout_s = timeout_s}});
}

/* Every stream's work is done (the contexts are gone): watchers finish
 * their last set at once, and go. One whose event never completes within
 * a second (recorded behind a wait that nothing ends) is left as it is:
 * aclFinalize returns. */
static void finalized(void *subject)
{
    (void)subject;
    pthread_mutex_lock(&watchers_lock);
    watcher *all = watchers;
    watchers = NULL;
    pthread_mutex_unlock(&watchers_lock);
    const backend_ops *be = backend_chosen();
    while (all) {
        watcher *w = all;
        all = w->next;
        (void)be->stream->synchronize(w->stream, 1000);
        pthread_mutex_lock(&watchers_lock);
        bool busy = w->busy;
        pthread_mutex_unlock(&watchers_lock);
        if (!busy)
            watcher_free(w);
    }
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&watchers_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&watchers_lock);
}

__attribute__((constructor)) static void event_timed_init(void)
{
    lifecycle_observe(LIFECYCLE_FINALIZED, finalized);
    fork_register(FORK_RANK_BACKEND - 1, fork_prepare, fork_done, fork_done);
}
