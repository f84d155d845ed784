/* Stream callbacks: report threads, aclrtLaunchCallback, aclrtLaunchHostFunc,
 * and the device-exception callback API.
 *
 * Two channels share this machinery: aclrtSubscribeReport threads run
 * aclrtLaunchCallback's callbacks in aclrtProcessReport, and
 * aclrtSubscribeHostFunc threads run aclrtLaunchHostFunc's functions in
 * aclrtProcessHostFunc (always blocking: later work waits for the
 * function, as aclrtLaunchHostFunc documents). Each channel has its own
 * registry and its own subscriber field per stream; what follows holds for
 * both.
 *
 * How a callback travels. aclrtLaunchCallback queues a backend host function
 * on the stream. When the stream reaches it, that function posts the call to
 * the queue of the report thread subscribed to the stream; for
 * ACL_CALLBACK_BLOCK it then waits until the report thread has run the call,
 * which holds back all later work on the stream. The report thread runs posted
 * calls inside aclrtProcessReport with none of our locks held, so a callback
 * may itself call ACL (allocate, copy, free, launch more work); memory it
 * frees is parked by memory.c (cudaFree and cudaFreeHost would wait for the
 * device, which waits for a BLOCK callback). What a callback must not do is
 * wait for its own stream while holding it: a BLOCK callback that
 * synchronises that stream or the device deadlocks, as ACL documents.
 *
 * What happens when a subscription ends with callbacks in flight. No callback
 * is ever dropped, and no BLOCK callback can hang a stream's destruction:
 *  - Calls already posted to a report thread's queue stay there and run in
 *    its next aclrtProcessReport, even after its last unsubscribe (the thread
 *    stays known until its queue is empty).
 *  - aclrtUnSubscribeReport keeps BLOCK semantics for posted calls: the stream
 *    waits until the report thread has run them.
 *  - Destroying the stream (callback_stream_gone, called by stream.c before
 *    the stream is freed) releases the stream from BLOCK calls still posted or
 *    running, so the destroy never waits on a report thread that has stopped
 *    processing; those calls still run in the thread's next
 *    aclrtProcessReport.
 *  - A call that the stream reaches after the stream lost its subscriber (it
 *    was unsubscribed, destroyed, or subscribed again to another thread after
 *    the launch) runs directly on the backend's stream thread, with a
 *    warning. Such a call cannot rely on the order with respect to calls still
 *    queued at the old report thread, and on the CUDA backend it must not call
 *    ACL (CUDA forbids CUDA calls from that thread).
 *
 * Error codes we chose where CANN documents none: a subscription to a stream
 * of another device than the thread's other streams gives
 * ACL_ERROR_RT_THREAD_SUBSCRIBE; unsubscribing a stream that has no
 * subscriber gives ACL_ERROR_RT_STREAM_NO_CB_REG, and one that another thread
 * serves gives ACL_ERROR_RT_THREAD_SUBSCRIBE.
 *
 * Locks, always taken in this order: report_registry_lock (the set of
 * report threads), a subscription stripe (guards the streams' subscriber
 * fields), a report thread's own lock (its queue and the streams it serves).
 * The launch path takes only a stripe and the report thread's lock; none of
 * them is held while a callback runs or while we call into stream.c.
 *
 * Spinning before blocking. Each hand-off (stream thread to report thread,
 * and back for BLOCK) would otherwise cost a futex wake-up, several
 * microseconds on a VM. So the BLOCK host function spins for a bounded time
 * on its entry's state before it sleeps on rt->finished, and a report thread
 * that ran a callback a short while ago spins on rt->posts before it sleeps
 * on rt->posted. Both read only C11 atomics while spinning; every change they
 * wait for is still made under rt->lock and followed by the condvar signal,
 * so a thread that stopped spinning and sleeps is always woken. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <pthread.h>
#include <stdatomic.h>

#include "core/callback.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/sink.h"
#include "core/lifecycle.h"
#include "util/clock.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/spin.h"

/* How long the BLOCK host function spins for its callback before sleeping:
 * a bit more than a futex wake-up on a VM (~7 us), which is what it saves. */
#define BLOCK_SPIN_NS 50000
/* How long a report thread spins for the next post before sleeping, and only
 * within REPORT_SPIN_WINDOW_NS of the end of its last callback: callbacks
 * come in bursts, an idle report thread must not burn CPU. */
#define REPORT_SPIN_NS 50000
#define REPORT_SPIN_WINDOW_NS 1000000

typedef struct callback_entry callback_entry;
typedef struct report_thread report_thread;

/* How many callbacks this thread is running (they may nest through
 * aclrtProcessReport). */
static _Thread_local int callback_depth;

bool callback_running(void)
{
    return callback_depth > 0;
}

enum { ENTRY_PENDING, ENTRY_DONE, ENTRY_RELEASED };

struct callback_entry {
    aclrtCallback fn;
    void *user_data;
    int32_t stream_id; /* identity only: the stream may be gone before we run */
    report_thread *rt; /* holds one reference until the entry is freed */
    bool block;
    uint64_t epoch; /* abort_epoch when it was launched (or, replayed, posted) */
    /* The report thread's side holds one reference, a waiting BLOCK host
     * function another; the last one frees the entry. */
    atomic_int refs;
    /* Written under rt->lock, read by the spinning waiter without it:
     * ENTRY_DONE once it ran for its waiter, ENTRY_RELEASED once its stream
     * no longer waits for it. */
    atomic_uint state;
    /* Guarded by rt->lock. */
    bool waiter; /* a BLOCK host function still waits for it */
    callback_entry *next;
};

/* A stream a report thread serves, and the abort epoch of its last abort
 * since it was added (0: none): a BLOCK call launched before an abort (at
 * an earlier epoch) no longer holds the stream when it is reached after it. */
typedef struct served_stream {
    int32_t id;
    uint64_t aborted_at;
} served_stream;

/* Counts aborts of streams that have a report thread, process-wide. */
static _Atomic uint64_t abort_epoch;

struct report_thread {
    uint64_t thread_id; /* pthread_self() of the thread, as ACL passes it */
    callback_channel channel;
    atomic_int refs;     /* subscribed streams, entries, running ProcessReports */
    report_thread *next; /* report_registry, under report_registry_lock */

    pthread_mutex_t lock;
    pthread_cond_t posted;   /* the queue got an entry or lost its last stream */
    pthread_cond_t finished; /* a BLOCK entry ran or was released */
    atomic_uint posts;       /* bumped with every signal of posted, for spinners */
    int64_t last_ran_ns;     /* when its last callback ended, 0 before any */
    callback_entry *head, *tail;
    size_t queued;
    callback_entry *running; /* entries being run, innermost first */
    served_stream *streams;  /* the streams it serves */
    size_t nstreams, stream_cap;
    int32_t phys; /* their device, valid while nstreams > 0 */
};

static pthread_mutex_t report_registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* One registry per channel: a thread may serve both, as two records. */
static report_thread *report_registries[CHANNEL_COUNT];
/* How many records the registries hold, also readable without the lock:
 * every stream's destruction asks, and most programs have none. */
static atomic_uint report_thread_count;

/* What a channel's messages call its functions. */
static const char *const subscribe_name[CHANNEL_COUNT] = {"aclrtSubscribeReport",
                                                          "aclrtSubscribeHostFunc"};

/* The stream's subscriber field of a channel. */
static _Atomic(report_thread *) *subscriber_of(acl_stream *s, callback_channel channel)
{
    return channel == CHANNEL_REPORT ? &s->subscriber : &s->host_func_subscriber;
}

/* Stripes of locks for the streams' subscriber fields: a launch reads the
 * field and takes a reference on the report thread atomically with respect
 * to an unsubscribe, without a process-wide lock. */
enum { SUBSCRIPTION_STRIPES = 16 };
#define STRIPE_INIT PTHREAD_MUTEX_INITIALIZER
#define STRIPE_INIT4 STRIPE_INIT, STRIPE_INIT, STRIPE_INIT, STRIPE_INIT
static pthread_mutex_t subscription_locks[SUBSCRIPTION_STRIPES] = {
    STRIPE_INIT4,
    STRIPE_INIT4,
    STRIPE_INIT4,
    STRIPE_INIT4,
};

static pthread_mutex_t *subscription_lock(const acl_stream *s)
{
    uintptr_t a = (uintptr_t)s;
    return &subscription_locks[((a >> 4) ^ (a >> 10)) % SUBSCRIPTION_STRIPES];
}

/* ---- report thread records -------------------------------------------------- */

static report_thread *registry_find(callback_channel channel, uint64_t thread_id)
{
    for (report_thread *rt = report_registries[channel]; rt; rt = rt->next)
        if (rt->thread_id == thread_id)
            return rt;
    return NULL;
}

static report_thread *report_thread_new(callback_channel channel, uint64_t thread_id)
{
    report_thread *rt = calloc(1, sizeof *rt);
    if (!rt)
        return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* ProcessReport's timed wait */
    pthread_mutex_init(&rt->lock, NULL);
    pthread_cond_init(&rt->posted, &attr);
    pthread_cond_init(&rt->finished, NULL);
    pthread_condattr_destroy(&attr);
    rt->thread_id = thread_id;
    rt->channel = channel;
    atomic_init(&rt->refs, 0);
    rt->phys = -1;
    return rt;
}

static void report_thread_free(report_thread *rt)
{
    pthread_mutex_destroy(&rt->lock);
    pthread_cond_destroy(&rt->posted);
    pthread_cond_destroy(&rt->finished);
    free(rt->streams);
    free(rt);
}

/* Drops a reference with report_registry_lock held; the last one unlinks
 * and frees the record (by then no stream, entry or ProcessReport refers to
 * it). */
static void report_thread_put_locked(report_thread *rt)
{
    if (atomic_fetch_sub(&rt->refs, 1) != 1)
        return;
    for (report_thread **p = &report_registries[rt->channel]; *p; p = &(*p)->next) {
        if (*p == rt) {
            *p = rt->next;
            atomic_fetch_sub_explicit(&report_thread_count, 1, memory_order_relaxed);
            break;
        }
    }
    report_thread_free(rt);
}

/* Drops a reference. Only a drop that may be the last takes the registry
 * lock, since references found through the registry are only made under it. */
static void report_thread_put(report_thread *rt)
{
    int refs = atomic_load(&rt->refs);
    while (refs > 1)
        if (atomic_compare_exchange_weak(&rt->refs, &refs, refs - 1))
            return;
    pthread_mutex_lock(&report_registry_lock);
    report_thread_put_locked(rt);
    pthread_mutex_unlock(&report_registry_lock);
}

/* The entry of a stream rt serves, NULL if it serves none of that id.
 * With rt->lock held. */
static served_stream *report_thread_served(report_thread *rt, int32_t stream_id)
{
    for (size_t i = 0; i < rt->nstreams; i++)
        if (rt->streams[i].id == stream_id)
            return &rt->streams[i];
    return NULL;
}

/* With rt->lock held. */
static bool report_thread_add_stream(report_thread *rt, const acl_stream *s)
{
    if (rt->nstreams == rt->stream_cap) {
        size_t cap = rt->stream_cap ? 2 * rt->stream_cap : 4;
        served_stream *grown = realloc(rt->streams, cap * sizeof *grown);
        if (!grown)
            return false;
        rt->streams = grown;
        rt->stream_cap = cap;
    }
    rt->streams[rt->nstreams++] = (served_stream){s->id, 0};
    rt->phys = s->ctx->phys;
    return true;
}

/* With rt->lock held. A thread left without streams wakes its waiting
 * aclrtProcessReport, which then reports that it serves nothing. */
static void report_thread_remove_stream(report_thread *rt, const acl_stream *s)
{
    for (size_t i = 0; i < rt->nstreams; i++) {
        if (rt->streams[i].id == s->id) {
            rt->streams[i] = rt->streams[--rt->nstreams];
            break;
        }
    }
    if (rt->nstreams == 0) {
        atomic_fetch_add(&rt->posts, 1);
        pthread_cond_broadcast(&rt->posted);
    }
}

/* Clears s's subscriber field and returns its report thread (with the
 * stream's reference, which the caller drops), or NULL. */
static report_thread *subscription_take(acl_stream *s, callback_channel channel)
{
    pthread_mutex_t *stripe = subscription_lock(s);
    pthread_mutex_lock(stripe);
    report_thread *rt = atomic_exchange(subscriber_of(s, channel), NULL);
    pthread_mutex_unlock(stripe);
    return rt;
}

/* ---- subscription --------------------------------------------------------------- */

aclError callback_subscribe(const char *api, callback_channel channel, uint64_t threadId,
                            acl_stream *s)
{
    pthread_mutex_lock(&report_registry_lock);
    if (atomic_load(subscriber_of(s, channel))) {
        pthread_mutex_unlock(&report_registry_lock);
        return acl_raise(api, ACL_ERROR_RT_STREAM_SUBSCRIBE,
                         "stream %d already has a thread (%s); unsubscribe it first", s->id,
                         subscribe_name[channel]);
    }
    report_thread *rt = registry_find(channel, threadId);
    bool created = false;
    if (!rt) {
        rt = report_thread_new(channel, threadId);
        if (!rt) {
            pthread_mutex_unlock(&report_registry_lock);
            return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
        }
        created = true;
    }

    pthread_mutex_lock(&rt->lock);
    if (rt->nstreams > 0 && rt->phys != s->ctx->phys) {
        pthread_mutex_unlock(&rt->lock);
        pthread_mutex_unlock(&report_registry_lock);
        return acl_raise(api, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                         "thread %#" PRIx64 " serves streams of another device than stream %d "
                         "(device %d); a report thread serves one device only",
                         threadId, s->id, (int)s->ctx->device);
    }
    bool added = report_thread_add_stream(rt, s);
    pthread_mutex_unlock(&rt->lock);
    if (!added) {
        if (created)
            report_thread_free(rt);
        pthread_mutex_unlock(&report_registry_lock);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    }
    if (created) {
        rt->next = report_registries[channel];
        report_registries[channel] = rt;
        atomic_fetch_add_explicit(&report_thread_count, 1, memory_order_relaxed);
    }
    atomic_fetch_add(&rt->refs, 1); /* the stream's reference */

    pthread_mutex_t *stripe = subscription_lock(s);
    pthread_mutex_lock(stripe);
    atomic_store(subscriber_of(s, channel), rt);
    pthread_mutex_unlock(stripe);
    pthread_mutex_unlock(&report_registry_lock);
    return ACL_SUCCESS;
}

aclError callback_unsubscribe(const char *api, callback_channel channel, uint64_t threadId,
                              acl_stream *s)
{
    pthread_mutex_lock(&report_registry_lock);
    report_thread *current = atomic_load(subscriber_of(s, channel));
    if (!current) {
        pthread_mutex_unlock(&report_registry_lock);
        return acl_raise(api, ACL_ERROR_RT_STREAM_NO_CB_REG, "stream %d has no thread of %s", s->id,
                         subscribe_name[channel]);
    }
    if (current->thread_id != threadId) {
        uint64_t owner = current->thread_id;
        pthread_mutex_unlock(&report_registry_lock);
        return acl_raise(api, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                         "stream %d is served by thread %#" PRIx64 ", not by thread %#" PRIx64,
                         s->id, owner, threadId);
    }
    report_thread *rt = subscription_take(s, channel);
    pthread_mutex_lock(&rt->lock);
    report_thread_remove_stream(rt, s);
    pthread_mutex_unlock(&rt->lock);
    report_thread_put_locked(rt);
    pthread_mutex_unlock(&report_registry_lock);
    return ACL_SUCCESS;
}

/* Releases stream_id from its BLOCK calls posted to or running at rt
 * (they still run there); how many of its calls rt holds. With rt->lock
 * held. */
static size_t release_block_calls(report_thread *rt, int32_t stream_id)
{
    size_t pending = 0, released = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (callback_entry *e = pass == 0 ? rt->head : rt->running; e; e = e->next) {
            if (e->stream_id != stream_id)
                continue;
            pending++;
            if (e->waiter && atomic_load(&e->state) == ENTRY_PENDING) {
                e->waiter = false;
                atomic_store_explicit(&e->state, ENTRY_RELEASED, memory_order_release);
                released++;
            }
        }
    }
    if (released)
        pthread_cond_broadcast(&rt->finished);
    return pending;
}

/* An abort settles the stream's work: its BLOCK calls, posted, running or
 * still to be reached, no longer hold it (synchronize returns); they
 * still run at their report thread. */
static void stream_aborted(void *subject)
{
    const acl_stream *s = subject;
    if (atomic_load_explicit(&report_thread_count, memory_order_relaxed) == 0)
        return;
    uint64_t epoch = atomic_fetch_add(&abort_epoch, 1) + 1;
    pthread_mutex_lock(&report_registry_lock);
    for (int channel = 0; channel < CHANNEL_COUNT; channel++)
        for (report_thread *rt = report_registries[channel]; rt; rt = rt->next) {
            pthread_mutex_lock(&rt->lock);
            served_stream *served = report_thread_served(rt, s->id);
            if (served)
                served->aborted_at = epoch;
            (void)release_block_calls(rt, s->id);
            pthread_mutex_unlock(&rt->lock);
        }
    pthread_mutex_unlock(&report_registry_lock);
}

static void stream_gone(void *subject)
{
    acl_stream *s = subject;
    /* Without a report thread no stream has a subscriber and no call waits
     * anywhere: nothing to do (the common case, on every stream's
     * destruction). A subscriber is a record of the registry for as long as
     * it serves a stream, and so is a thread holding calls. */
    if (atomic_load_explicit(&report_thread_count, memory_order_relaxed) == 0)
        return;
    pthread_mutex_lock(&report_registry_lock);
    for (int channel = 0; channel < CHANNEL_COUNT; channel++) {
        report_thread *subscriber = subscription_take(s, (callback_channel)channel);
        if (subscriber) {
            pthread_mutex_lock(&subscriber->lock);
            report_thread_remove_stream(subscriber, s);
            pthread_mutex_unlock(&subscriber->lock);
        }
        /* Calls of s may sit at any report thread, not only at its
         * subscriber: the thread it was subscribed to when they were posted
         * may have been unsubscribed or replaced since, and stays known
         * while it holds them. */
        for (report_thread *rt = report_registries[channel]; rt; rt = rt->next) {
            pthread_mutex_lock(&rt->lock);
            size_t pending = release_block_calls(rt, s->id);
            pthread_mutex_unlock(&rt->lock);
            if (pending)
                ACL_LOG(LOG_WARNING,
                        "stream %d destroyed with %zu call(s) still at thread %#" PRIx64
                        "; they run in its next %s",
                        s->id, pending, rt->thread_id,
                        channel == CHANNEL_REPORT ? "aclrtProcessReport" : "aclrtProcessHostFunc");
        }
        if (subscriber)
            report_thread_put_locked(subscriber);
    }
    pthread_mutex_unlock(&report_registry_lock);
}

/* ---- launching ------------------------------------------------------------------- */

static void callback_entry_free(callback_entry *e)
{
    report_thread *rt = e->rt;
    free(e);
    report_thread_put(rt);
}

static void callback_entry_put(callback_entry *e)
{
    if (atomic_fetch_sub(&e->refs, 1) == 1)
        callback_entry_free(e);
}

/* The backend host function: runs when the stream reaches the callback. */
static void callback_reached(void *arg)
{
    callback_entry *e = arg;
    report_thread *rt = e->rt;

    pthread_mutex_lock(&rt->lock);
    const served_stream *served = report_thread_served(rt, e->stream_id);
    if (!served) {
        pthread_mutex_unlock(&rt->lock);
        ACL_LOG(LOG_WARNING,
                "thread %#" PRIx64 " no longer serves the stream of callback %p; running it on "
                "the stream's own thread",
                rt->thread_id, (void *)e);
        e->fn(e->user_data);
        callback_entry_free(e);
        return;
    }
    /* Once posted, a NO_BLOCK entry is not ours to read. An abort since the
     * launch released the stream from its BLOCK calls: it is delivered
     * without holding the stream. */
    bool block = e->block && served->aborted_at <= e->epoch;
    e->waiter = block;
    if (block)
        atomic_store_explicit(&e->refs, 2, memory_order_relaxed); /* ours too */
    e->next = NULL;
    if (rt->tail)
        rt->tail->next = e;
    else
        rt->head = e;
    rt->tail = e;
    rt->queued++;
    if (!block) {
        /* Announced under the lock: once it is released the entry may run
         * and drop the last reference to rt. */
        atomic_fetch_add(&rt->posts, 1);
        pthread_cond_signal(&rt->posted);
        pthread_mutex_unlock(&rt->lock);
        return;
    }
    pthread_mutex_unlock(&rt->lock);
    /* Announced after the unlock, so that the report thread, spinning or
     * woken, does not find the lock still held and sleep on it; our
     * reference to e keeps rt alive. */
    atomic_fetch_add(&rt->posts, 1);
    pthread_cond_signal(&rt->posted);

    /* Our reference keeps e, and through it rt, alive until we drop it. */
    spin_while_equal(&e->state, ENTRY_PENDING, monotonic_ns() + BLOCK_SPIN_NS);
    if (atomic_load_explicit(&e->state, memory_order_acquire) == ENTRY_PENDING) {
        pthread_mutex_lock(&rt->lock);
        while (atomic_load_explicit(&e->state, memory_order_relaxed) == ENTRY_PENDING)
            pthread_cond_wait(&rt->finished, &rt->lock);
        pthread_mutex_unlock(&rt->lock);
    }
    callback_entry_put(e);
}

/* A callback recorded by a capture runs once per replay: the model keeps
 * this template (and with it a reference to the report thread), and each
 * run posts a fresh entry made from it. */
static void callback_replayed(void *arg)
{
    const callback_entry *tmpl = arg;
    callback_entry *e = malloc(sizeof *e);
    if (!e) {
        ACL_LOG(LOG_ERROR, "out of memory: a replayed callback runs on the stream's own thread");
        tmpl->fn(tmpl->user_data);
        return;
    }
    atomic_fetch_add(&tmpl->rt->refs, 1); /* safe: the template holds one */
    *e = (callback_entry){
        .fn = tmpl->fn,
        .user_data = tmpl->user_data,
        .stream_id = tmpl->stream_id,
        .rt = tmpl->rt,
        .block = tmpl->block,
        .epoch = atomic_load(&abort_epoch),
        .refs = 1,
        .state = ENTRY_PENDING,
    };
    callback_reached(e);
}

static void callback_template_release(void *arg)
{
    callback_entry_free(arg);
}

aclError callback_launch(const char *api, callback_channel channel, acl_stream *s, aclrtCallback fn,
                         void *user_data, bool block)
{
    callback_entry *e = malloc(sizeof *e);
    if (!e)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");

    pthread_mutex_t *stripe = subscription_lock(s);
    pthread_mutex_lock(stripe);
    report_thread *rt = atomic_load(subscriber_of(s, channel));
    if (rt)
        atomic_fetch_add(&rt->refs, 1); /* safe: the stream holds one */
    pthread_mutex_unlock(stripe);
    if (!rt) {
        free(e);
        return acl_raise(api, ACL_ERROR_RT_STREAM_NO_CB_REG,
                         "stream %d has no thread to run it; call %s first", s->id,
                         subscribe_name[channel]);
    }

    *e = (callback_entry){
        .fn = fn,
        .user_data = user_data,
        .stream_id = s->id,
        .rt = rt,
        .block = block,
        .epoch = atomic_load(&abort_epoch),
        .refs = 1,
        .state = ENTRY_PENDING,
    };
    host_fn reached = callback_reached;
    if (stream_sink(s)) {
        if (sink_keep(s, e, callback_template_release) != ACL_SUCCESS) {
            callback_entry_free(e);
            return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "the capture of stream %d could not keep the callback", s->id);
        }
        reached = callback_replayed; /* e is the model's template from now on */
    }
    aclError ret = stream_submit(
        api, s, &(task){.kind = TASK_HOST_FUNC, .u.host_func = {.fn = reached, .arg = e}});
    if (ret != ACL_SUCCESS && reached == callback_reached)
        callback_entry_free(e);
    return ret;
}

/* ---- processing --------------------------------------------------------------------- */

/* Waits for posted calls and runs those present when the wait ended (not
 * ones posted meanwhile, so that a fast producer cannot keep us here). A
 * thread that loses its last stream while waiting, even forever, is told so
 * at once with ACL_ERROR_RT_THREAD_SUBSCRIBE. */
static aclError report_thread_process(const char *api, report_thread *rt, int32_t timeout)
{
    struct timespec deadline;
    if (timeout > 0)
        deadline_after_ms(&deadline, timeout);
    bool spun = false;

    pthread_mutex_lock(&rt->lock);
    while (rt->queued == 0) {
        if (rt->nstreams == 0) {
            pthread_mutex_unlock(&rt->lock);
            return acl_raise(api, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                             "thread %#" PRIx64 " no longer serves any stream", rt->thread_id);
        }
        if (!spun && rt->last_ran_ns) {
            /* Once per call, and only within a burst of callbacks. */
            spun = true;
            int64_t now = monotonic_ns();
            if (now - rt->last_ran_ns < REPORT_SPIN_WINDOW_NS) {
                int64_t spin_end = now + REPORT_SPIN_NS;
                if (timeout > 0 && spin_end > now + (int64_t)timeout * 1000000)
                    spin_end = now + (int64_t)timeout * 1000000;
                unsigned seen = atomic_load_explicit(&rt->posts, memory_order_relaxed);
                pthread_mutex_unlock(&rt->lock);
                spin_while_equal(&rt->posts, seen, spin_end);
                pthread_mutex_lock(&rt->lock);
                continue;
            }
        }
        if (timeout < 0) {
            pthread_cond_wait(&rt->posted, &rt->lock);
        } else if (pthread_cond_timedwait(&rt->posted, &rt->lock, &deadline) == ETIMEDOUT &&
                   rt->queued == 0) {
            pthread_mutex_unlock(&rt->lock);
            return acl_raise(api, ACL_ERROR_RT_REPORT_TIMEOUT, "no callback arrived within %d ms",
                             (int)timeout);
        }
    }

    for (size_t batch = rt->queued; batch > 0 && rt->head; batch--) {
        callback_entry *e = rt->head;
        rt->head = e->next;
        if (!rt->head)
            rt->tail = NULL;
        rt->queued--;
        e->next = rt->running;
        rt->running = e;
        pthread_mutex_unlock(&rt->lock);

        callback_depth++;
        e->fn(e->user_data);
        callback_depth--;

        pthread_mutex_lock(&rt->lock);
        /* A callback that itself processes reports pushes and pops above
         * us, so e is on top again here. */
        rt->running = e->next;
        if (e->waiter) {
            e->waiter = false;
            atomic_store_explicit(&e->state, ENTRY_DONE, memory_order_release);
            pthread_cond_broadcast(&rt->finished);
        }
        /* After the waiter is released: off a spinning waiter's path. */
        rt->last_ran_ns = monotonic_ns();
        if (atomic_fetch_sub(&e->refs, 1) == 1) {
            pthread_mutex_unlock(&rt->lock);
            callback_entry_free(e); /* never rt's last reference: we hold one */
            pthread_mutex_lock(&rt->lock);
        }
    }
    pthread_mutex_unlock(&rt->lock);
    return ACL_SUCCESS;
}

bool callback_has_subscriber(acl_stream *s, callback_channel channel)
{
    return atomic_load_explicit(subscriber_of(s, channel), memory_order_relaxed) != NULL;
}

aclError callback_process(const char *api, callback_channel channel, int32_t timeout)
{
    uint64_t self = (uint64_t)pthread_self();
    pthread_mutex_lock(&report_registry_lock);
    report_thread *rt = registry_find(channel, self);
    if (rt)
        atomic_fetch_add(&rt->refs, 1);
    pthread_mutex_unlock(&report_registry_lock);
    if (!rt)
        return acl_raise(api, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                         "thread %#" PRIx64 " serves no stream; call %s first", self,
                         subscribe_name[channel]);
    aclError ret = report_thread_process(api, rt, timeout);
    report_thread_put(rt);
    return ret;
}

/* ---- fork: the registry, every stripe, every report thread ------------------------------ */

static void fork_prepare(void)
{
    pthread_mutex_lock(&report_registry_lock);
    for (int i = 0; i < SUBSCRIPTION_STRIPES; i++)
        pthread_mutex_lock(&subscription_locks[i]);
    for (int channel = 0; channel < CHANNEL_COUNT; channel++)
        for (report_thread *rt = report_registries[channel]; rt; rt = rt->next)
            pthread_mutex_lock(&rt->lock);
}

static void fork_done(void)
{
    for (int channel = CHANNEL_COUNT - 1; channel >= 0; channel--)
        for (report_thread *rt = report_registries[channel]; rt; rt = rt->next)
            pthread_mutex_unlock(&rt->lock);
    for (int i = SUBSCRIPTION_STRIPES - 1; i >= 0; i--)
        pthread_mutex_unlock(&subscription_locks[i]);
    pthread_mutex_unlock(&report_registry_lock);
}

/* The child has one thread, the one that forked: the calls posted to
 * report threads are its parent's work and are dropped unrun, and the
 * other report threads serve no stream there, so that a callback reaching
 * one of their streams runs on the stream's own thread (as after an
 * unsubscribe) instead of waiting for a thread the child does not have. */
static void fork_child(void)
{
    uint64_t self = (uint64_t)pthread_self();
    for (int channel = 0; channel < CHANNEL_COUNT; channel++) {
        for (report_thread *rt = report_registries[channel]; rt; rt = rt->next) {
            rt->head = rt->tail = rt->running = NULL;
            rt->queued = 0;
            if (rt->thread_id != self)
                rt->nstreams = 0;
            pthread_condattr_t attr;
            pthread_condattr_init(&attr);
            pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
            pthread_cond_init(&rt->posted, &attr); /* their waiters were threads of the parent */
            pthread_cond_init(&rt->finished, NULL);
            pthread_condattr_destroy(&attr);
        }
    }
    fork_done();
}

__attribute__((constructor)) static void callback_init(void)
{
    lifecycle_observe(LIFECYCLE_STREAM_GONE, stream_gone);
    lifecycle_observe(LIFECYCLE_STREAM_ABORTED, stream_aborted);
    fork_register(FORK_RANK_CALLBACKS, fork_prepare, fork_done, fork_child);
}

aclError callback_launch_host_func(const char *api, acl_stream *s, aclrtHostFunc fn, void *args,
                                   bool any_thread)
{
    if (callback_has_subscriber(s, CHANNEL_HOST_FUNC))
        return callback_launch(api, CHANNEL_HOST_FUNC, s, fn, args, true);
    return stream_submit(api, s,
                         &(task){.kind = TASK_HOST_FUNC, .u.host_func = {fn, args, any_thread}});
}
