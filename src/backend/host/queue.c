/* The host backend's streams as queues of tasks. Below the stream
 * operations (stream.c) and every other file that queues work, it calls
 * none of them: a capture takes a captured stream's tasks through the hooks
 * graph.c registers, and what the tasks do to notify words, shared events'
 * pages and memory is in word.c, ipc_page.c and copy.c.
 *
 * Each stream is a FIFO of tasks run in order by a worker thread that starts
 * when work arrives and exits after a short idle spell, so thousands of idle
 * streams cost no threads. Every task gets a sequence number; a stream counts
 * tasks enqueued and completed, and an event is a mark (stream, sequence)
 * that is complete once the stream's completed count reaches it.
 *
 * Locking: each stream has one mutex guarding its queue and counters, and an
 * event has one guarding its current mark. No code holds two stream locks at
 * once, and no lock is held while a task runs, so a worker may block on
 * another stream's progress (a cross-stream wait) or in a user function
 * without stalling anyone else. Streams and marks are reference counted:
 * a destroyed stream lives on while its worker drains the queue or a mark
 * (held by an event or a queued wait) still points at it. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/host/host.h"
#include "util/clock.h"
#include "util/fork.h"

enum {
    WORKER_STACK = 1024 * 1024, /* enough for host functions; mostly untouched */
    WORKER_IDLE_MS = 200,       /* an idle worker exits after this long */
};

struct task {
    struct task *next;
    task_kind kind;
    bool cancelled;  /* by an abort: skipped when its turn comes */
    bool any_thread; /* a host function a synchronizing thread may run (sync_seq) */
    union {
        struct {
            void *dst;
            const void *src;
            size_t n;
        } copy;
        struct {
            void *dst;
            const void *src;
            size_t dpitch, spitch, width, height;
        } copy_2d;
        struct {
            void *dst;
            size_t n;
            uint8_t value;
        } set;
        struct {
            host_fn fn;
            void *arg;
        } call;
        mark *mark; /* TASK_WAIT, TASK_TIMESTAMP: one reference */
        struct {
            _Atomic uint64_t *addr;
            uint64_t value;
            uint32_t cmp;
        } value;
        word_op word; /* TASK_WORD, TASK_WORD_WAIT: holds a reference to word.w */
        struct {
            const host_job_ops *ops;
            void *payload;
        } job;
        struct {
            uint32_t *dst;
            size_t count;
            uint32_t value;
        } set32;
        struct {
            batch_copy *copies; /* owned */
            size_t count;
        } batch;
        indirect_copy indirect;
        struct {
            ipc_map *map; /* a reference */
            uint64_t seq;
        } ipc;
        backend_event *event; /* TASK_EXT_RECORD, TASK_EXT_WAIT: the core holds it */
    } u;
};

struct host_stream {
    atomic_int refs; /* the creator until destroy, a running worker, marks */
    int32_t dev;
    pthread_mutex_t lock;
    pthread_cond_t work_cv; /* the worker waits here for tasks */
    pthread_cond_t done_cv; /* waiters for completions */
    task *head, *tail;
    uint64_t enqueued, completed;
    /* Smallest sequence anyone waits for on done_cv; completions below it
     * wake no one, so a long queue does not broadcast once per task. */
    uint64_t wake_at;
    bool worker_running;
    bool worker_idle;   /* waiting for tasks, not running one */
    bool worker_joined; /* destroy joins it; otherwise it detaches itself */
    pthread_t worker;
    bool destroyed;
    /* Bumped by every abort; tasks that wait give up when it changes. */
    atomic_uint abort_gen;
    /* The waits of the tasks up to this sequence number are cancelled (a
     * teardown): they give up, and the tasks after them run. */
    _Atomic uint64_t cancelled_to;
    /* The worker is testing a wait's stop and readiness (watch_stop). */
    atomic_bool testing_wait;
    /* The first failure of a task (a wait that timed out) since the last
     * synchronize, which reports and clears it. Under lock. */
    aclError failed;
    host_stream *fork_next, *fork_prev; /* every stream, for the fork handlers */
    bool orphaned_ref; /* a reference of a worker left behind in the parent by fork */
    task *running;     /* the task the worker is running, NULL between tasks */
    /* The running task is a model's replay whose current node writes no
     * memory (a wait), or which waits for a pause to end (host_node_begin).
     * Written by the replay without the lock between pauses; sequentially
     * consistent with workers_paused. */
    atomic_bool node_quiet;
    /* While captured (graph.c): the capture (a reference), the stream's
     * last node in it, and the nodes its next one must also wait for. */
    host_capture *capture;
    int64_t capture_tail;
    int64_t *pending;
    size_t npending, pending_cap;
};

/* The capture that takes a captured stream's work, as graph.c registers
 * it: the queue below captures never names their code. */
static const host_capture_hooks *capture_hooks;

void host_capture_hooks_set(const host_capture_hooks *hooks)
{
    capture_hooks = hooks;
}

static void stream_retain(host_stream *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

/* ---- fork -----------------------------------------------------------------------
 * A child process inherits every stream but none of the worker threads, and
 * none of the work: the child handler forgets the workers and drops every
 * task its parent queued or was running, unrun (events they would record
 * read as complete), so that each stream is idle and the next enqueue
 * starts a fresh worker. The dropped tasks are freed by the first worker
 * the child starts: freeing one may release what it holds through the
 * library, whose locks the fork handlers still hold. The prepare handler
 * holds every stream lock across the fork, so that none is inherited
 * locked. */
static host_stream *all_streams;
static pthread_mutex_t all_streams_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(task *) fork_dropped;

/* Streams with work enqueued and not completed, changed under the
 * stream's lock when it turns busy or idle (not per task), so that a free
 * learns in one load that no queued work can touch its memory. */
static atomic_size_t busy_streams;

static void init_stream_conds(host_stream *s)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->work_cv, &attr);
    pthread_cond_init(&s->done_cv, &attr);
    pthread_condattr_destroy(&attr);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&all_streams_lock);
    for (host_stream *s = all_streams; s; s = s->fork_next)
        pthread_mutex_lock(&s->lock);
}

static void fork_parent(void)
{
    for (host_stream *s = all_streams; s; s = s->fork_next)
        pthread_mutex_unlock(&s->lock);
    pthread_mutex_unlock(&all_streams_lock);
}

static void fork_child(void)
{
    task *dropped = atomic_load_explicit(&fork_dropped, memory_order_relaxed);
    for (host_stream *s = all_streams; s; s = s->fork_next) {
        if (s->running) {
            s->running->next = dropped;
            dropped = s->running;
            s->running = NULL;
        }
        if (s->head) {
            s->tail->next = dropped;
            dropped = s->head;
            s->head = s->tail = NULL;
        }
        s->completed = s->enqueued;
        s->failed = ACL_SUCCESS;
        s->wake_at = UINT64_MAX;
        if (s->worker_running) {
            s->worker_running = false;
            s->worker_idle = false;
            /* The worker's reference stays: the next worker takes it over. */
            s->orphaned_ref = true;
        }
        init_stream_conds(s); /* their waiters were threads of the parent */
        pthread_mutex_unlock(&s->lock);
    }
    atomic_store_explicit(&fork_dropped, dropped, memory_order_relaxed);
    atomic_store_explicit(&busy_streams, 0, memory_order_relaxed);
    pthread_mutex_unlock(&all_streams_lock);
}

/* Called by workers, holding no lock. */
static void free_fork_dropped(void)
{
    if (!atomic_load_explicit(&fork_dropped, memory_order_relaxed))
        return;
    task *t = atomic_exchange_explicit(&fork_dropped, NULL, memory_order_acquire);
    while (t) {
        task *next = t->next;
        task_free(t);
        t = next;
    }
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, fork_prepare, fork_parent, fork_child);
}

static void host_stream_release(host_stream *s)
{
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    /* The last reference: no worker, hence an empty queue, and no waiters. */
    pthread_mutex_lock(&all_streams_lock);
    if (s->fork_prev)
        s->fork_prev->fork_next = s->fork_next;
    else
        all_streams = s->fork_next;
    if (s->fork_next)
        s->fork_next->fork_prev = s->fork_prev;
    pthread_mutex_unlock(&all_streams_lock);
    if (s->capture)
        capture_hooks->release(s->capture);
    free(s->pending);
    pthread_cond_destroy(&s->done_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void stream_retain_ref(host_stream *s)
{
    stream_retain(s);
}

void stream_release_ref(host_stream *s)
{
    host_stream_release(s);
}

mark *mark_new(host_stream *s)
{
    mark *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    atomic_init(&m->refs, 1);
    m->stream = s;
    if (s)
        stream_retain(s);
    m->seq = 0;
    m->stamp_ns = 0;
    m->capture = NULL;
    m->node = -1;
    return m;
}

void mark_release(mark *m)
{
    if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (m->stream)
        host_stream_release(m->stream);
    if (m->capture)
        capture_hooks->release(m->capture);
    free(m);
}

/* An event's current mark, which its record replaces (event.c) and its
 * waits take. */
mark *host_event_mark(backend_event *e)
{
    pthread_mutex_lock(&e->lock);
    mark *m = e->current;
    if (m)
        mark_retain(m);
    pthread_mutex_unlock(&e->lock);
    return m;
}

void host_event_set_mark(backend_event *e, mark *m)
{
    mark_retain(m);
    pthread_mutex_lock(&e->lock);
    mark *old = e->current;
    e->current = m;
    pthread_mutex_unlock(&e->lock);
    mark_release(old);
}

static aclError worker_start(host_stream *s);

/* Waits until s has completed seq. timeout_ms: negative = forever, 0 = just
 * look. Returns whether seq was reached. Takes only s's lock. */
static bool stream_wait_seq(host_stream *s, uint64_t seq, int32_t timeout_ms)
{
    struct timespec deadline;
    if (timeout_ms > 0)
        deadline_after_ms(&deadline, timeout_ms);
    bool reached = true;
    pthread_mutex_lock(&s->lock);
    while (s->completed < seq) {
        if (timeout_ms == 0) {
            reached = false;
            break;
        }
        if (seq < s->wake_at)
            s->wake_at = seq;
        if (timeout_ms < 0) {
            pthread_cond_wait(&s->done_cv, &s->lock);
        } else if (pthread_cond_timedwait(&s->done_cv, &s->lock, &deadline) == ETIMEDOUT) {
            reached = s->completed >= seq;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return reached;
}

bool mark_wait(const mark *m, int32_t timeout_ms)
{
    if (!m || !m->stream)
        return true; /* never recorded, complete when taken, or a record in a capture */
    return stream_wait_seq(m->stream, m->seq, timeout_ms);
}

task_kind task_kind_of(const task *t)
{
    return t->kind;
}

const host_job_ops *task_job(const task *t)
{
    return t->kind == TASK_JOB ? t->u.job.ops : NULL;
}

/* The stream whose worker this thread is (a task, or a model replaying
 * captured tasks, runs on it): where waits look for aborts and failures
 * are reported; the sequence number of the task it runs, which
 * cancelled_to is compared with; and the stream's abort generation when
 * the task was taken off the queue, under the stream's lock: an abort
 * from then on stops it (one that came before marked it cancelled). */
static _Thread_local host_stream *running_stream;
static _Thread_local uint64_t running_seq;
static _Thread_local unsigned running_abort_gen;

/* A value wait's word is ACL memory that the application may also change
 * with plain stores (aclrtMemcpy from the host, its own code), as a device
 * polls memory that the host writes: the load is atomic, and left out of
 * ThreadSanitizer's instrumentation, which would report the application's
 * store as a race with it. */
__attribute__((noinline, no_sanitize_thread)) static uint64_t load_watched(_Atomic uint64_t *addr)
{
    return atomic_load_explicit(addr, memory_order_acquire);
}

/* Whether a 64-bit word compares true (ACL_STREAM_WAIT_VALUE_*). */
static bool value_ready(void *arg)
{
    const task *t = arg;
    uint64_t now = load_watched(t->u.value.addr);
    uint64_t v = t->u.value.value;
    switch (t->u.value.cmp) {
    case ACL_STREAM_WAIT_VALUE_GEQ:
        return (int64_t)(now - v) >= 0;
    case ACL_STREAM_WAIT_VALUE_EQ:
        return now == v;
    case ACL_STREAM_WAIT_VALUE_AND:
        return (now & v) != 0;
    default: /* ACL_STREAM_WAIT_VALUE_NOR */
        return ~(now | v) != 0;
    }
}

static void stream_fail(host_stream *s, aclError err)
{
    pthread_mutex_lock(&s->lock);
    if (s->failed == ACL_SUCCESS)
        s->failed = err;
    pthread_mutex_unlock(&s->lock);
}

enum { STOP_CHECK_MS = 10 }; /* how often waits that cannot be woken look at their stop */

/* An event wait, given up when the stream is aborted or its waits cancelled. */
static void wait_mark(const mark *m, const watch_stop *stop)
{
    while (!watch_stopped(stop) && !mark_wait(m, STOP_CHECK_MS))
        ;
}

/* Runs t on the worker (or a model replay, on the worker of the stream
 * that replays it); no lock is held. */
void task_run(task *t)
{
    host_stream *s = running_stream;
    const watch_stop stop = {
        .abort_gen = &s->abort_gen,
        .gen = running_abort_gen,
        .cancelled_to = &s->cancelled_to,
        .seq = running_seq,
        .testing = &s->testing_wait,
    };
    switch (t->kind) {
    case TASK_COPY:
        memmove(t->u.copy.dst, t->u.copy.src, t->u.copy.n);
        break;
    case TASK_COPY_2D:
        host_copy_2d(t->u.copy_2d.dst, t->u.copy_2d.dpitch, t->u.copy_2d.src, t->u.copy_2d.spitch,
                     t->u.copy_2d.width, t->u.copy_2d.height);
        break;
    case TASK_SET:
        memset(t->u.set.dst, t->u.set.value, t->u.set.n);
        break;
    case TASK_HOST_FN:
        t->u.call.fn(t->u.call.arg);
        break;
    case TASK_WAIT:
        wait_mark(t->u.mark, &stop);
        break;
    case TASK_TIMESTAMP:
        t->u.mark->stamp_ns = monotonic_ns();
        break;
    case TASK_VALUE_WRITE:
        atomic_store_explicit(t->u.value.addr, t->u.value.value, memory_order_release);
        host_watch_changed();
        break;
    case TASK_VALUE_WAIT:
        (void)host_watch(value_ready, t, -1, &stop);
        break;
    case TASK_WORD:
        host_word_apply(&t->u.word);
        host_watch_changed();
        break;
    case TASK_WORD_WAIT: {
        int64_t deadline = -1;
        if (t->u.word.timeout_s)
            deadline = monotonic_ns() + (int64_t)t->u.word.timeout_s * 1000000000;
        if (host_watch(host_word_ready, &t->u.word, deadline, &stop) == WATCH_TIMEOUT)
            stream_fail(s, ACL_ERROR_RT_TASK_TIMEOUT);
        else if (t->u.word.clear || !t->u.word.counting)
            host_watch_changed(); /* the word was cleared */
        break;
    }
    case TASK_JOB:
        t->u.job.ops->run(t->u.job.payload);
        break;
    case TASK_SET32:
        host_fill32(t->u.set32.dst, t->u.set32.value, t->u.set32.count);
        break;
    case TASK_BATCH:
        for (size_t i = 0; i < t->u.batch.count; i++)
            memmove(t->u.batch.copies[i].dst, t->u.batch.copies[i].src, t->u.batch.copies[i].n);
        break;
    case TASK_INDIRECT: {
        aclError err = host_copy_indirect(&t->u.indirect);
        if (err != ACL_SUCCESS)
            stream_fail(s, err);
        break;
    }
    case TASK_IPC_SIGNAL:
        host_ipc_signal(t->u.ipc.map->page, t->u.ipc.seq);
        break;
    case TASK_IPC_WAIT:
        while (!watch_stopped(&stop) &&
               !host_ipc_wait_for(t->u.ipc.map->page, t->u.ipc.seq, STOP_CHECK_MS))
            ;
        break;
    /* Run as nodes only where a launch could not act on them beforehand (a
     * conditional branch, a model replayed inside another model's run): the
     * record marks everything so far done, the wait waits for the event's
     * record as it is now. */
    case TASK_EXT_RECORD: {
        mark *done = mark_new(NULL);
        if (done) {
            host_event_set_mark(t->u.event, done);
            mark_release(done);
        } else {
            stream_fail(s, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL);
        }
        break;
    }
    case TASK_EXT_WAIT: {
        mark *m = host_event_mark(t->u.event);
        if (m && !m->capture && m->stream != s)
            wait_mark(m, &stop);
        mark_release(m);
        break;
    }
    }
}

task *task_new_job(const host_job_ops *ops, void *payload)
{
    task *t = task_new(TASK_JOB);
    if (t) {
        t->u.job.ops = ops;
        t->u.job.payload = payload;
    }
    return t;
}

task *task_new_wait(mark *m)
{
    task *t = task_new(TASK_WAIT);
    if (t)
        t->u.mark = m;
    return t;
}

backend_event *task_event(const task *t)
{
    return t->u.event;
}

void task_set_event(task *t, backend_event *e)
{
    t->u.event = e;
}

/* Frees a task that ran (or never will) with its mark reference. Called
 * without stream locks: the last reference to a mark may free a stream. */
void task_free(task *t)
{
    if (t->kind == TASK_WAIT || t->kind == TASK_TIMESTAMP)
        mark_release(t->u.mark);
    else if (t->kind == TASK_WORD || t->kind == TASK_WORD_WAIT)
        host_word_release(t->u.word.w);
    else if (t->kind == TASK_IPC_SIGNAL || t->kind == TASK_IPC_WAIT)
        host_ipc_map_release(t->u.ipc.map);
    else if (t->kind == TASK_JOB && t->u.job.ops->release)
        t->u.job.ops->release(t->u.job.payload);
    if (t->kind == TASK_BATCH)
        free(t->u.batch.copies);
    free(t);
}

/* ---- pausing every worker ---------------------------------------------------------
 * For the moment memory.c moves an exported block's pages under it: no
 * worker starts a task while paused, and the pause begins once no running
 * task can write device memory. Read under each stream's
 * lock, which orders it with the pauser's look at the stream. pause_lock
 * is held from pause to resume, and ranks before the streams and arenas
 * (FORK_RANK_PAUSE): a fork waits for a pause to end. */
static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool workers_paused;

static void pause_fork_prepare(void)
{
    pthread_mutex_lock(&pause_lock);
}

static void pause_fork_done(void)
{
    pthread_mutex_unlock(&pause_lock);
}

__attribute__((constructor)) static void register_pause_fork_handlers(void)
{
    fork_register(FORK_RANK_PAUSE, pause_fork_prepare, pause_fork_done, pause_fork_done);
}

/* Whether a running task may still write device memory. Waits write
 * nothing; a host function is host code, whose ACL calls are any thread's
 * (and may wait for the pauser: a gate the exporting thread opens). */
static bool task_writes_memory(const task *t)
{
    switch (t->kind) {
    case TASK_WAIT:
    case TASK_VALUE_WAIT:
    case TASK_WORD_WAIT:
    case TASK_IPC_WAIT:
    case TASK_EXT_WAIT:
    case TASK_HOST_FN:
        return false;
    default:
        return true;
    }
}

void host_streams_pause(void)
{
    pthread_mutex_lock(&pause_lock);
    atomic_store(&workers_paused, true);
    /* Held, not locked, while waiting: a running task may make streams. */
    size_t count = 0;
    pthread_mutex_lock(&all_streams_lock);
    for (host_stream *s = all_streams; s; s = s->fork_next)
        count++;
    host_stream **busy = calloc(count ? count : 1, sizeof *busy);
    count = 0;
    for (host_stream *s = all_streams; s && busy; s = s->fork_next) {
        if (s != running_stream) { /* a task pausing from its own worker */
            stream_retain(s);
            busy[count++] = s;
        }
    }
    pthread_mutex_unlock(&all_streams_lock);
    for (size_t i = 0; i < count; i++) {
        host_stream *s = busy[i];
        pthread_mutex_lock(&s->lock);
        while (s->running && task_writes_memory(s->running) && !atomic_load(&s->node_quiet)) {
            if (s->completed + 1 < s->wake_at)
                s->wake_at = s->completed + 1;
            pthread_cond_wait(&s->done_cv, &s->lock);
        }
        pthread_mutex_unlock(&s->lock);
        host_stream_release(s);
    }
    free(busy);
}

/* Between pauses a node takes no lock: the replay says whether it writes,
 * then looks for a pause, and the pauser sets workers_paused, then reads
 * node_quiet (all sequentially consistent), so either the pauser sees the
 * node for what it is or the replay sees the pause: then a quiet node
 * wakes a pauser that waits for the replay, and a writing one waits for
 * the resume. */
void host_node_begin(const task *t)
{
    host_stream *s = running_stream;
    if (!s)
        return;
    bool writes = task_writes_memory(t);
    atomic_store(&s->node_quiet, !writes);
    if (!atomic_load(&workers_paused))
        return;
    pthread_mutex_lock(&s->lock);
    while (writes && atomic_load(&workers_paused)) {
        atomic_store(&s->node_quiet, true);
        pthread_cond_broadcast(&s->done_cv);
        pthread_cond_wait(&s->work_cv, &s->lock);
    }
    atomic_store(&s->node_quiet, !writes);
    if (!writes)
        pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->lock);
}

void host_streams_resume(void)
{
    atomic_store(&workers_paused, false);
    pthread_mutex_lock(&all_streams_lock);
    for (host_stream *s = all_streams; s; s = s->fork_next) {
        pthread_mutex_lock(&s->lock);
        pthread_cond_broadcast(&s->work_cv);
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&all_streams_lock);
    pthread_mutex_unlock(&pause_lock);
}

/* Counts the task s ran as completed. With s's lock held. The release
 * orders what the stream's work wrote before a free that finds every
 * stream idle (host_work_in_flight). */
static void task_completed_locked(host_stream *s)
{
    s->completed++;
    if (s->completed == s->enqueued)
        atomic_fetch_sub_explicit(&busy_streams, 1, memory_order_release);
}

bool host_work_in_flight(void)
{
    return atomic_load_explicit(&busy_streams, memory_order_acquire) != 0;
}

/* A busy stream has a worker, which holds a reference: marking it cannot
 * revive a stream whose last reference is going (stream_release unlinks
 * it under all_streams_lock). */
bool host_mark_busy_streams(mark ***out, size_t *count)
{
    mark **marks = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    pthread_mutex_lock(&all_streams_lock);
    for (host_stream *s = all_streams; s && ok; s = s->fork_next) {
        pthread_mutex_lock(&s->lock);
        if (s->enqueued != s->completed) {
            if (n == cap) {
                cap = cap ? 2 * cap : 4;
                mark **grown = realloc(marks, cap * sizeof *grown);
                ok = grown != NULL;
                if (ok)
                    marks = grown;
            }
            mark *m = ok ? mark_new(s) : NULL;
            ok = m != NULL;
            if (ok) {
                m->seq = s->enqueued;
                marks[n++] = m;
            }
        }
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&all_streams_lock);
    if (!ok) {
        host_marks_free(marks, n);
        return false;
    }
    *out = marks;
    *count = n;
    return true;
}

void host_marks_free(mark **marks, size_t count)
{
    for (size_t i = 0; i < count; i++)
        mark_release(marks[i]);
    free(marks);
}

static void *stream_worker(void *arg)
{
    host_stream *s = arg;
    pthread_setname_np(pthread_self(), "acl-host-stream"); /* for ps, gdb, perf */
    free_fork_dropped();
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (!s->head && !s->destroyed) {
            struct timespec idle_until;
            deadline_after_ms(&idle_until, WORKER_IDLE_MS);
            int rc = 0;
            s->worker_idle = true;
            while (!s->head && !s->destroyed && rc != ETIMEDOUT)
                rc = pthread_cond_timedwait(&s->work_cv, &s->lock, &idle_until);
            s->worker_idle = false;
        }
        /* Paused (host_streams_pause): start nothing until resumed; and
         * nothing while a synchronizing thread runs a task (sync_seq). */
        bool idled = !s->head;
        while (s->running ||
               (s->head && atomic_load_explicit(&workers_paused, memory_order_relaxed)))
            pthread_cond_wait(&s->work_cv, &s->lock);
        if (!s->head && (idled || s->destroyed))
            break; /* idle for a while, or destroyed and drained */
        if (!s->head)
            continue; /* taken by a synchronizing thread: idle again */
        task *t = s->head;
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        s->running = t;
        atomic_store(&s->node_quiet, false);
        running_seq = s->completed + 1; /* tasks complete in order */
        running_abort_gen = atomic_load_explicit(&s->abort_gen, memory_order_relaxed);
        pthread_mutex_unlock(&s->lock);

        running_stream = s;
        if (!t->cancelled)
            task_run(t);

        pthread_mutex_lock(&s->lock);
        s->running = NULL;
        task_completed_locked(s);
        if (s->completed >= s->wake_at) {
            s->wake_at = UINT64_MAX;
            pthread_cond_broadcast(&s->done_cv);
        }
        pthread_mutex_unlock(&s->lock);
        task_free(t);
        pthread_mutex_lock(&s->lock);
    }
    s->worker_running = false;
    if (!s->worker_joined)
        pthread_detach(pthread_self());
    pthread_mutex_unlock(&s->lock);
    host_stream_release(s);
    return NULL;
}

/* Called with s->lock held. The worker gets its own reference. */
static aclError worker_start(host_stream *s)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    pthread_attr_setstacksize(&attr, WORKER_STACK);
    /* Workers inherit a full signal mask, so asynchronous signals go to the
     * application's own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool inherited_ref = s->orphaned_ref;
    if (inherited_ref)
        s->orphaned_ref = false;
    else
        stream_retain(s);
    int rc = pthread_create(&s->worker, &attr, stream_worker, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc) {
        if (inherited_ref)
            s->orphaned_ref = true;
        else /* not the last reference: the caller holds one */
            atomic_fetch_sub_explicit(&s->refs, 1, memory_order_relaxed);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    s->worker_running = true;
    return ACL_SUCCESS;
}

/* With s's lock held and its worker running. */
static void append_locked(host_stream *s, task *t, mark *m)
{
    t->next = NULL;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    if (s->enqueued == s->completed)
        atomic_fetch_add_explicit(&busy_streams, 1, memory_order_relaxed);
    s->enqueued++;
    if (m)
        m->seq = s->enqueued;
}

aclError stream_enqueue(host_stream *s, task *t, mark *m)
{
    t->next = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->capture) {
        /* Recorded, not run: the capture takes the task, unless its end
         * has begun (it then leaves the stream). */
        aclError err = capture_hooks->record_task(s->capture, s, t);
        if (err != ACL_ERROR_RT_STREAM_NOT_CAPTURED) {
            pthread_mutex_unlock(&s->lock);
            return err;
        }
    }
    if (!s->worker_running) {
        aclError err = worker_start(s);
        if (err != ACL_SUCCESS) {
            pthread_mutex_unlock(&s->lock);
            return err;
        }
    }
    append_locked(s, t, m);
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

aclError stream_enqueue_all(host_stream *s, task **tasks, mark **marks, size_t n)
{
    pthread_mutex_lock(&s->lock);
    aclError err = ACL_SUCCESS;
    if (s->capture)
        err = ACL_ERROR_RT_STREAM_CAPTURED; /* the caller checked: a capture began meanwhile */
    else if (!s->worker_running)
        err = worker_start(s);
    if (err == ACL_SUCCESS) {
        for (size_t i = 0; i < n; i++)
            append_locked(s, tasks[i], marks[i]);
        pthread_cond_signal(&s->work_cv);
    }
    pthread_mutex_unlock(&s->lock);
    return err;
}

task *task_new(task_kind kind)
{
    task *t = malloc(sizeof *t);
    if (t) {
        t->kind = kind;
        t->cancelled = false;
        t->any_thread = false;
    }
    return t;
}

void task_discard(task *t)
{
    free(t);
}

void task_set_mark(task *t, mark *m)
{
    t->u.mark = m;
}

void mark_retain(mark *m)
{
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
}

aclError stream_enqueue_job(host_stream *s, const host_job_ops *ops, void *payload)
{
    task *t = task_new_job(ops, payload);
    if (!t) {
        ops->release(payload);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS)
        task_free(t);
    return err;
}

host_capture *stream_capture_of(host_stream *s, int64_t *tail)
{
    pthread_mutex_lock(&s->lock);
    host_capture *c = s->capture;
    if (c)
        capture_hooks->retain(c);
    if (tail)
        *tail = s->capture_tail;
    pthread_mutex_unlock(&s->lock);
    return c;
}

host_capture *stream_capture_of_locked(host_stream *s)
{
    return s->capture;
}

/* Under s's lock (graph.c takes it through these). */
void stream_set_capture(host_stream *s, host_capture *c, int64_t tail)
{
    host_capture *old = s->capture;
    s->capture = c;
    s->capture_tail = tail;
    s->npending = 0;
    if (c)
        capture_hooks->retain(c);
    if (old)
        capture_hooks->release(old);
}

void stream_add_pending(host_stream *s, int64_t node)
{
    if (s->npending == s->pending_cap) {
        size_t cap = s->pending_cap ? 2 * s->pending_cap : 4;
        int64_t *grown = realloc(s->pending, cap * sizeof *grown);
        if (!grown)
            return; /* the dependency stays implied by the order of the nodes */
        s->pending = grown;
        s->pending_cap = cap;
    }
    s->pending[s->npending++] = node;
}

/* graph.c: the stream's tail and pending dependencies, with its lock. */
void stream_lock(host_stream *s)
{
    pthread_mutex_lock(&s->lock);
}

void stream_unlock(host_stream *s)
{
    pthread_mutex_unlock(&s->lock);
}

int64_t *stream_pending(host_stream *s, size_t *count, int64_t *tail)
{
    *count = s->npending;
    *tail = s->capture_tail;
    return s->pending;
}

void stream_set_tail(host_stream *s, int64_t tail)
{
    s->capture_tail = tail;
    s->npending = 0;
}

uint64_t stream_fed(host_stream *s, bool *done)
{
    pthread_mutex_lock(&s->lock);
    uint64_t seq = s->enqueued;
    *done = s->completed >= seq;
    pthread_mutex_unlock(&s->lock);
    return seq;
}

/* Enqueues t, freeing it and what it owns (task_free) if that fails. */
static aclError submit(host_stream *s, task *t)
{
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS)
        task_free(t);
    return err;
}

aclError host_ipc_enqueue(host_stream *s, task_kind kind, ipc_map *map, uint64_t seq)
{
    task *t = task_new(kind);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    host_ipc_map_retain(map);
    t->u.ipc.map = map;
    t->u.ipc.seq = seq;
    return submit(s, t);
}

aclError host_enqueue_word_op(host_stream *s, const word_op *op)
{
    task *t = task_new(op->wait ? TASK_WORD_WAIT : TASK_WORD);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.word = *op;
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS)
        free(t); /* the reference stays the caller's */
    return err;
}

/* ---- the tasks of the stream operations (stream.c) ------------------------------------- */

aclError host_enqueue_copy(host_stream *s, void *dst, const void *src, size_t n)
{
    task *t = task_new(TASK_COPY);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.n = n;
    return submit(s, t);
}

aclError host_enqueue_copy_2d(host_stream *s, void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height)
{
    task *t = task_new(TASK_COPY_2D);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.copy_2d.dst = dst;
    t->u.copy_2d.dpitch = dpitch;
    t->u.copy_2d.src = src;
    t->u.copy_2d.spitch = spitch;
    t->u.copy_2d.width = width;
    t->u.copy_2d.height = height;
    return submit(s, t);
}

aclError host_enqueue_set(host_stream *s, void *ptr, uint8_t value, size_t n)
{
    task *t = task_new(TASK_SET);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.set.dst = ptr;
    t->u.set.value = value;
    t->u.set.n = n;
    return submit(s, t);
}

aclError host_enqueue_set32(host_stream *s, void *ptr, uint32_t value, size_t count)
{
    task *t = task_new(TASK_SET32);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.set32.dst = ptr;
    t->u.set32.value = value;
    t->u.set32.count = count;
    return submit(s, t);
}

aclError host_enqueue_batch(host_stream *s, const batch_copy *copies, size_t count)
{
    task *t = task_new(TASK_BATCH);
    batch_copy *mine = t ? malloc(count * sizeof *mine) : NULL;
    if (!mine) {
        free(t);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    memcpy(mine, copies, count * sizeof *mine);
    t->u.batch.copies = mine;
    t->u.batch.count = count;
    return submit(s, t);
}

aclError host_enqueue_indirect(host_stream *s, const indirect_copy *copy)
{
    task *t = task_new(TASK_INDIRECT);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.indirect = *copy;
    return submit(s, t);
}

aclError host_enqueue_host_fn(host_stream *s, host_fn fn, void *arg, bool any_thread)
{
    task *t = task_new(TASK_HOST_FN);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.call.fn = fn;
    t->u.call.arg = arg;
    t->any_thread = any_thread;
    return submit(s, t);
}

aclError host_enqueue_value(host_stream *s, task_kind kind, void *addr, uint64_t value,
                            uint32_t cmp)
{
    task *t = task_new(kind);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.value.addr = addr;
    t->u.value.value = value;
    t->u.value.cmp = cmp;
    return submit(s, t);
}

/* ---- a stream's life (stream.c's operations) -------------------------------------- */

aclError host_queue_create(int32_t dev, host_stream **out)
{
    host_stream *s = calloc(1, sizeof *s);
    if (!s)
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr)) {
        free(s);
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    bool ok = pthread_mutex_init(&s->lock, NULL) == 0;
    bool work_ok = ok && pthread_cond_init(&s->work_cv, &attr) == 0;
    bool done_ok = work_ok && pthread_cond_init(&s->done_cv, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!done_ok) {
        if (work_ok)
            pthread_cond_destroy(&s->work_cv);
        if (ok)
            pthread_mutex_destroy(&s->lock);
        free(s);
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
    atomic_init(&s->refs, 1);
    s->dev = dev;
    s->wake_at = UINT64_MAX;
    pthread_mutex_lock(&all_streams_lock);
    s->fork_next = all_streams;
    if (all_streams)
        all_streams->fork_prev = s;
    all_streams = s;
    pthread_mutex_unlock(&all_streams_lock);
    *out = s;
    return ACL_SUCCESS;
}

/* No waiting for work: a busy worker drains what is queued, then exits on
 * its own. An idle one is joined, which takes only as long as the thread
 * needs to end, so that a program which destroys its streams and exits
 * leaves no thread behind. */
void host_queue_destroy(host_stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->destroyed = true;
    bool join = s->worker_running && s->worker_idle;
    s->worker_joined = join;
    pthread_t worker = s->worker;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    if (join)
        pthread_join(worker, NULL);
    host_stream_release(s);
}

/* Runs t, the head of s, on this thread instead of the worker, which waits
 * meanwhile (stream_worker): called with s's lock held and nothing of s
 * running; returns with the lock held again. */
static void run_here_locked(host_stream *s, task *t)
{
    s->head = t->next;
    if (!s->head)
        s->tail = NULL;
    s->running = t;
    atomic_store(&s->node_quiet, false);
    running_seq = s->completed + 1;
    running_abort_gen = atomic_load_explicit(&s->abort_gen, memory_order_relaxed);
    pthread_mutex_unlock(&s->lock);
    running_stream = s;
    if (!t->cancelled)
        task_run(t);
    running_stream = NULL;
    pthread_mutex_lock(&s->lock);
    s->running = NULL;
    task_completed_locked(s);
    if (s->completed >= s->wake_at) {
        s->wake_at = UINT64_MAX;
        pthread_cond_broadcast(&s->done_cv);
    }
    pthread_cond_signal(&s->work_cv); /* the worker waits while a task runs */
    pthread_mutex_unlock(&s->lock);
    task_free(t);
    pthread_mutex_lock(&s->lock);
}

/* stream_wait_seq for a thread that synchronizes s without a limit: a
 * host function that may run on any thread (aclcudaLaunchHostFuncAnyThread),
 * next with nothing running, it runs itself instead of handing it to the
 * worker and waiting to be woken: two thread wake-ups fewer. A wait with a
 * limit never does (the function may outlast it), nor a task's own wait
 * (this thread is then a worker, of s or of another stream). */
static bool sync_seq(host_stream *s, uint64_t seq, int32_t timeout_ms)
{
    if (timeout_ms >= 0 || running_stream)
        return stream_wait_seq(s, seq, timeout_ms);
    stream_retain(s); /* a function run here may destroy s */
    pthread_mutex_lock(&s->lock);
    while (s->completed < seq) {
        task *t = s->head;
        if (t && t->any_thread && !s->running &&
            !atomic_load_explicit(&workers_paused, memory_order_relaxed)) {
            run_here_locked(s, t);
            continue;
        }
        if (seq < s->wake_at)
            s->wake_at = seq;
        pthread_cond_wait(&s->done_cv, &s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    host_stream_release(s);
    return true;
}

/* A failure of a task is reported once, by the synchronize that covers it;
 * an abort during the wait ends it with ACL_ERROR_RT_STREAM_ABORT, as ACL
 * documents. */
aclError host_queue_synchronize(host_stream *s, int32_t timeout_ms)
{
    unsigned gen = atomic_load_explicit(&s->abort_gen, memory_order_acquire);
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->enqueued;
    pthread_mutex_unlock(&s->lock);
    if (!sync_seq(s, target, timeout_ms))
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    host_pools_settle();
    if (atomic_load_explicit(&s->abort_gen, memory_order_acquire) != gen)
        return ACL_ERROR_RT_STREAM_ABORT;
    pthread_mutex_lock(&s->lock);
    aclError failed = s->failed;
    s->failed = ACL_SUCCESS;
    pthread_mutex_unlock(&s->lock);
    return failed;
}

bool host_queue_idle(host_stream *s)
{
    pthread_mutex_lock(&s->lock);
    bool idle = s->completed == s->enqueued;
    pthread_mutex_unlock(&s->lock);
    return idle;
}

/* Tasks not yet started are cancelled, except host functions (and through
 * them callbacks), which still run: they own what they were given (a
 * callback's entry, a Python object) and may be waited for. A running wait
 * gives up; a running copy or host function finishes. Cancelled tasks
 * still count as done, in their turn, so event marks stay ordered. True
 * when a host function is still owed (running or kept). */
bool host_queue_abort(host_stream *s)
{
    pthread_mutex_lock(&s->lock);
    bool owes = s->running && s->running->kind == TASK_HOST_FN;
    for (task *t = s->head; t; t = t->next) {
        if (t->kind != TASK_HOST_FN)
            t->cancelled = true;
        else
            owes = true;
    }
    s->failed = ACL_SUCCESS;
    atomic_fetch_add(&s->abort_gen, 1);
    pthread_mutex_unlock(&s->lock);
    watch_stopper_settle(&s->testing_wait);
    host_watch_changed(); /* running value and notify waits look again */
    return owes;
}

bool host_task_cancelled(void)
{
    host_stream *s = running_stream;
    return s && atomic_load_explicit(&s->cancelled_to, memory_order_acquire) >= running_seq;
}

void host_queue_cancel_waits(host_stream *s)
{
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->cancelled_to, s->enqueued);
    pthread_mutex_unlock(&s->lock);
    watch_stopper_settle(&s->testing_wait);
    host_watch_changed(); /* running value and notify waits look again */
}
