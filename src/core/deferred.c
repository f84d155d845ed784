/* Releases deferred behind queued work (see deferred.h). One mutex guards
 * the queue and runs the releases, so that they reach the backend in the
 * order they were added (an unmap before the release of its reservation);
 * it is taken after vmm_lock and before the backend's locks. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "backend/backend.h"
#include "core/callback.h"
#include "core/deferred.h"
#include "core/device.h"
#include "core/lifecycle.h"
#include "core/stream.h"
#include "util/clock.h"
#include "util/fork.h"

struct deferral {
    struct deferral *next;
    deferred_fn run, done;
    void *arg;
    uintptr_t base;
    size_t size; /* 0: releases no addresses (a cancelled release's marks) */
    /* Backend events, one recorded at the end of each busy stream's work;
     * NULL once seen complete. Each is allocated on its own: a queued
     * record refers to it, so it never moves and is freed only once
     * complete. */
    backend_event **marks;
    size_t count, cap;
    size_t left; /* marks not yet seen complete */
};

static pthread_mutex_t deferred_lock = PTHREAD_MUTEX_INITIALIZER;
static deferral *head, **tail = &head;
static atomic_size_t queued; /* entries in the queue, read without the lock */

static void mark_forget(deferral *d, size_t i, bool destroy)
{
    if (destroy)
        backend()->event->destroy(d->marks[i]);
    free(d->marks[i]);
    d->marks[i] = NULL;
    d->left--;
}

/* Marks the end of s's work in d unless s is idle. A stream being
 * captured queues nothing until its capture ends, and records into the
 * model: its earlier work is not marked. False when out of memory. */
static bool mark_stream(deferral *d, acl_stream *s, int32_t phys)
{
    bool idle = false;
    aclError queried = stream_query(s, &idle);
    if (queried == ACL_ERROR_RT_STREAM_CAPTURED || (queried == ACL_SUCCESS && idle))
        return true;
    if (d->count == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 8;
        backend_event **grown = realloc(d->marks, cap * sizeof *grown);
        if (grown == NULL)
            return false;
        d->marks = grown;
        d->cap = cap;
    }
    const backend_event_ops *ev = backend()->event;
    backend_event *mark = calloc(1, ev->size);
    if (mark == NULL)
        return false;
    if (ev->create(mark, phys, false) != ACL_SUCCESS) {
        free(mark);
        return false;
    }
    /* A stream that takes no more work (failed, or torn down meanwhile)
     * has none of ours to wait for either. */
    if (stream_submit(NULL, s, &(task){.kind = TASK_RECORD, .u.event.backend = mark}) !=
        ACL_SUCCESS) {
        ev->destroy(mark);
        free(mark);
        return true;
    }
    d->marks[d->count++] = mark;
    d->left++;
    return true;
}

/* Marks every busy stream of every device, streams destroyed without
 * waiting included (their work still runs). The thread's last task id
 * (aclrtGetThreadLastTaskId) stays the user's. */
static bool mark_busy_streams(deferral *d)
{
    uint32_t last_task = stream_last_task_of_thread;
    bool ok = true;
    for (int32_t phys = 0; phys < device_present_count() && ok; phys++) {
        size_t count;
        aclError err;
        acl_stream **streams = device_streams(phys, true, &count, &err);
        ok = err == ACL_SUCCESS;
        for (size_t i = 0; i < count; i++) {
            if (ok)
                ok = mark_stream(d, streams[i], phys);
            stream_release(streams[i]);
        }
        free(streams);
    }
    stream_last_task_of_thread = last_task;
    return ok;
}

/* Whether every mark of d completed; those that did are dropped. A mark
 * the backend cannot answer for (a failed device) waits for nothing. */
static bool work_done(deferral *d)
{
    const backend_event_ops *ev = backend()->event;
    for (size_t i = 0; i < d->count && d->left > 0; i++) {
        bool complete = false;
        if (d->marks[i] != NULL && (ev->query(d->marks[i], &complete) != ACL_SUCCESS || complete))
            mark_forget(d, i, true);
    }
    return d->left == 0;
}

/* Only once every mark is gone. */
static void deferral_free(deferral *d)
{
    free(d->marks);
    free(d);
}

deferral *deferred_begin(bool mark_work)
{
    deferral *d = calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    if (mark_work && !mark_busy_streams(d)) {
        deferred_cancel(d);
        return NULL;
    }
    return d;
}

bool deferred_idle(const deferral *d)
{
    return d->left == 0;
}

/* Queues d, under the lock. */
static void enqueue(deferral *d)
{
    d->next = NULL;
    *tail = d;
    tail = &d->next;
    atomic_fetch_add_explicit(&queued, 1, memory_order_release);
}

/* Marks still pending belong to queued records: they are kept until they
 * complete, in the queue as a release of nothing. */
void deferred_cancel(deferral *d)
{
    if (d->left == 0) {
        deferral_free(d);
        return;
    }
    d->run = d->done = NULL;
    d->size = 0;
    pthread_mutex_lock(&deferred_lock);
    enqueue(d);
    pthread_mutex_unlock(&deferred_lock);
}

void deferred_add(deferral *d, deferred_fn run, deferred_fn done, void *arg, const void *base,
                  size_t size)
{
    d->run = run;
    d->done = done;
    d->arg = arg;
    d->base = (uintptr_t)base;
    d->size = size;
    pthread_mutex_lock(&deferred_lock);
    enqueue(d);
    pthread_mutex_unlock(&deferred_lock);
}

bool deferred_overlaps(const void *base, size_t size)
{
    if (atomic_load_explicit(&queued, memory_order_acquire) == 0 || size == 0)
        return false;
    uintptr_t first = (uintptr_t)base, last = first + (size - 1);
    bool hit = false;
    pthread_mutex_lock(&deferred_lock);
    for (deferral *d = head; d != NULL && !hit; d = d->next)
        hit = d->size != 0 && d->base <= last && first <= d->base + (d->size - 1);
    pthread_mutex_unlock(&deferred_lock);
    return hit;
}

/* Takes the queue's head while its work is done and runs its release, in
 * order, under the lock; the done functions run after it. */
static void reap(void)
{
    if (atomic_load_explicit(&queued, memory_order_acquire) == 0)
        return;
    deferral *ran = NULL, **ran_tail = &ran;
    pthread_mutex_lock(&deferred_lock);
    while (head != NULL && work_done(head)) {
        deferral *d = head;
        head = d->next;
        if (head == NULL)
            tail = &head;
        atomic_fetch_sub_explicit(&queued, 1, memory_order_relaxed);
        if (d->run != NULL)
            d->run(d->arg);
        d->next = NULL;
        *ran_tail = d;
        ran_tail = &d->next;
    }
    pthread_mutex_unlock(&deferred_lock);
    while (ran != NULL) {
        deferral *d = ran;
        ran = d->next;
        if (d->done != NULL)
            d->done(d->arg);
        deferral_free(d);
    }
}

void deferred_reap(void)
{
    reap();
}

/* Polls: the marks may go at any reap, so nothing here waits on them. */
bool deferred_wait(const void *base, size_t size, int64_t limit_ms)
{
    int64_t until = limit_ms < 0 ? INT64_MAX : monotonic_ns() + limit_ms * 1000000;
    for (unsigned round = 0;; round++) {
        reap();
        if (!deferred_overlaps(base, size))
            return true;
        if (callback_running() || monotonic_ns() >= until)
            return false;
        long ns = round < 10 ? 1000L << round : 1000000L;
        nanosleep(&(struct timespec){.tv_nsec = ns}, NULL);
    }
}

static void lifecycle_reap(void *subject)
{
    (void)subject;
    reap();
}

/* ---- fork -------------------------------------------------------------------------- */

static void fork_prepare(void)
{
    pthread_mutex_lock(&deferred_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&deferred_lock);
}

/* The child runs none of its parent's queued work: its releases wait for
 * nothing (they happen at its next reap, in its own address space). */
static void fork_child(void)
{
    pthread_mutex_unlock(&deferred_lock);
    for (deferral *d = head; d != NULL; d = d->next)
        for (size_t i = 0; i < d->count; i++)
            if (d->marks[i] != NULL) {
                d->marks[i] = NULL; /* the parent's; not freed in the child */
                d->left--;
            }
}

__attribute__((constructor)) static void deferred_init(void)
{
    fork_register(FORK_RANK_DEFERRED, fork_prepare, fork_parent, fork_child);
    lifecycle_observe(LIFECYCLE_DEVICE_RELEASED, lifecycle_reap);
    lifecycle_observe(LIFECYCLE_FINALIZED, lifecycle_reap);
}
