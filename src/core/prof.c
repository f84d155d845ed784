/* Profiling: records kept in memory while profiling runs, written out as a
 * Chrome trace (timeline.json), CSV summaries and an SVG picture of the
 * same timeline when it stops (docs/profiling.md).
 *
 * Tasks are timed by the backend's device activity where it has one
 * (CUPTI on cuda, backend/cuda/cupti.c): each ACL call is tagged with its
 * id, the backend reports the device's own times of the work queued inside
 * it, and they are matched to the call's tasks by stream when profiling
 * stops. Otherwise (the host backend, CUPTI missing, kinds of work it does
 * not time) a task goes between two host functions of the backend's
 * stream that stamp the clock, so its start and end are when its stream
 * reached it and left it: exact on the host backend, where a stream runs
 * its tasks one after another; on cuda the stamps order the stream and
 * cost a round trip each. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "backend/backend.h"
#include "core/context.h"
#include "core/lifecycle.h"
#include "core/prof.h"
#include "core/stream.h"
#include "util/clock.h"
#include "util/log.h"

_Atomic uint64_t prof_collecting;

#define TASK_BITS                                                                                  \
    (ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME_L2 | ACL_PROF_TASK_TIME_L3)
#define API_BITS (ACL_PROF_ACL_API | ACL_PROF_RUNTIME_API | ACL_PROF_API_STATS)
#define TX_BITS ACL_PROF_MSPROFTX
/* A stop waits this long at most for stamps still queued on streams. */
enum { STAMP_WAIT_MS = 5000, PUSH_DEPTH = 64, PATH_MAX_LEN = 4096 };
/* Device activity still missing for some task after this long without any
 * arriving is taken as never coming (work the profiler does not time). */
enum { DEVICE_QUIET_MS = 1000 };

/* REC_NATIVE: a call into the native runtime or driver (device activity). */
typedef enum rec_type { REC_API, REC_TASK, REC_MARK, REC_RANGE, REC_NATIVE } rec_type;

typedef struct prof_rec {
    rec_type type;
    task_kind kind;
    int32_t device, stream;     /* tasks and marks on a stream; -1 otherwise */
    uint32_t tid;               /* the host thread of calls, marks and ranges */
    _Atomic int64_t begin, end; /* tasks: written by the stamps, end last */
    const char *name;           /* a function's or a task's name, static */
    char *text;                 /* marks and ranges: their message, owned */
    uintptr_t key;              /* records and waits: the event or notify */
    uint64_t seq;               /* order of submission */
    uint64_t call;              /* the ACL call (prof_call.id) made in or queued from, 0: none */
    /* Tasks timed by device activity: the backend's name of the stream,
     * how many activities made the times, the next task of the same call. */
    uint64_t native;
    uint32_t parts;
    bool device_timed, inferred; /* inferred: a record's time from the work before it */
    struct prof_rec *next_in_call;
} prof_rec;

enum { CHUNK_RECS = 1024 };
typedef struct rec_chunk {
    struct rec_chunk *next;
    size_t used;
    prof_rec recs[CHUNK_RECS];
} rec_chunk;

typedef struct open_range {
    uint64_t id, native;
    uint32_t tid;
    int64_t begin;
    char *text;
} open_range;

static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialised, from_env;
static uint64_t started; /* the bits aclprofStart was given, 0 when stopped */
static char out_dir[PATH_MAX_LEN + 1];
static int64_t origin_ns;
static rec_chunk *chunks, *last_chunk;
static uint64_t rec_seq;
static open_range *ranges;
static size_t range_count, range_cap;
static uint64_t next_range_id = 1;
static atomic_int stamps_pending;
/* The backend's device activity times tasks (started with the profile). */
static atomic_bool device_timed;
static size_t device_pending; /* tasks still waiting for device activity, under prof_lock */
static _Atomic uint64_t next_call_id;
static _Thread_local uint64_t current_call;
static _Thread_local bool current_call_tagged;

static _Thread_local uint32_t thread_tid;
static _Thread_local struct {
    char *text;
    int64_t begin;
} pushes[PUSH_DEPTH];
static _Thread_local int push_depth;

static uint32_t current_tid(void)
{
    if (!thread_tid)
        thread_tid = (uint32_t)syscall(SYS_gettid);
    return thread_tid;
}

void prof_call_enter(prof_call *call, const char *name)
{
    int64_t now = monotonic_ns();
    call->name = name;
    call->begin_ns = now ? now : 1;
    call->id = atomic_fetch_add_explicit(&next_call_id, 1, memory_order_relaxed) + 1;
    call->outer = current_call;
    call->outer_tagged = current_call_tagged;
    call->tagged = atomic_load_explicit(&device_timed, memory_order_acquire);
    current_call = call->id;
    current_call_tagged = call->tagged;
    if (call->tagged)
        backend()->diag->activity_push(call->id);
}

/* A new record, under prof_lock; NULL when memory ran out. */
static prof_rec *rec_new(rec_type type)
{
    if (!last_chunk || last_chunk->used == CHUNK_RECS) {
        rec_chunk *c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        if (last_chunk)
            last_chunk->next = c;
        else
            chunks = c;
        last_chunk = c;
    }
    prof_rec *r = &last_chunk->recs[last_chunk->used++];
    memset(r, 0, sizeof *r);
    r->type = type;
    r->device = r->stream = -1;
    r->seq = ++rec_seq;
    return r;
}

static void recs_free(void)
{
    for (rec_chunk *c = chunks, *next; c; c = next) {
        next = c->next;
        for (size_t i = 0; i < c->used; i++)
            free(c->recs[i].text);
        free(c);
    }
    chunks = last_chunk = NULL;
    rec_seq = 0;
}

void prof_call_end(const prof_call *call)
{
    if (call->tagged)
        backend()->diag->activity_pop();
    current_call = call->outer;
    current_call_tagged = call->outer_tagged;
    if (!(atomic_load_explicit(&prof_collecting, memory_order_relaxed) & API_BITS))
        return;
    int64_t end = monotonic_ns();
    pthread_mutex_lock(&prof_lock);
    prof_rec *r = rec_new(REC_API);
    if (r) {
        r->name = call->name;
        r->tid = current_tid();
        r->begin = call->begin_ns;
        r->end = end;
        r->call = call->id;
    }
    pthread_mutex_unlock(&prof_lock);
}

/* ---- tasks ----------------------------------------------------------------------------------- */

/* What ACL calls each kind of task on a timeline. */
static const char *task_timeline_name(task_kind kind)
{
    switch (kind) {
    case TASK_COPY:
    case TASK_COPY_INDIRECT:
        return "MemcpyAsync";
    case TASK_COPY_2D:
        return "Memcpy2dAsync";
    case TASK_COPY_BATCH:
        return "MemcpyBatchAsync";
    case TASK_FILL:
    case TASK_FILL32:
        return "MemsetAsync";
    case TASK_RECORD:
    case TASK_RECORD_EXTERNAL:
        return "EventRecord";
    case TASK_WAIT:
    case TASK_WAIT_EXTERNAL:
        return "StreamWaitEvent";
    case TASK_HOST_FUNC:
        return "HostFunc";
    case TASK_VALUE_WRITE:
        return "ValueWrite";
    case TASK_VALUE_WAIT:
        return "ValueWait";
    case TASK_NOTIFY_RECORD:
        return "NotifyRecord";
    case TASK_NOTIFY_WAIT:
        return "NotifyWait";
    case TASK_CNT_NOTIFY_RECORD:
        return "CntNotifyRecord";
    case TASK_CNT_NOTIFY_WAIT:
        return "CntNotifyWait";
    case TASK_LAUNCH:
        return "KernelLaunch";
    case TASK_REDUCE:
        return "ReduceAsync";
    case TASK_RANDOM:
        return "RandomNumAsync";
    case TASK_GRAPH:
        return "ModelExecute";
    case TASK_PREFETCH:
        return "MemPrefetch";
    case TASK_POOL_ALLOC:
        return "MemPoolMallocAsync";
    case TASK_POOL_FREE:
        return "MemPoolFreeAsync";
    case TASK_GRAPH_SET_NODE:
        return "TaskUpdate";
    }
    return "Task";
}

static bool task_is_wait(task_kind kind)
{
    return kind == TASK_WAIT || kind == TASK_WAIT_EXTERNAL || kind == TASK_VALUE_WAIT ||
           kind == TASK_NOTIFY_WAIT || kind == TASK_CNT_NOTIFY_WAIT;
}

static uintptr_t task_key(const task *t)
{
    switch (t->kind) {
    case TASK_RECORD:
    case TASK_WAIT:
    case TASK_RECORD_EXTERNAL:
    case TASK_WAIT_EXTERNAL:
        return (uintptr_t)t->u.event.backend;
    case TASK_NOTIFY_RECORD:
    case TASK_NOTIFY_WAIT:
    case TASK_CNT_NOTIFY_RECORD:
    case TASK_CNT_NOTIFY_WAIT:
        return (uintptr_t)t->u.notify.notify;
    default:
        return 0;
    }
}

static void stamp_begin(void *arg)
{
    prof_rec *r = arg;
    atomic_store_explicit(&r->begin, monotonic_ns(), memory_order_release);
    atomic_fetch_sub(&stamps_pending, 1);
}

static void stamp_end(void *arg)
{
    prof_rec *r = arg;
    atomic_store_explicit(&r->end, monotonic_ns(), memory_order_release);
    atomic_fetch_sub(&stamps_pending, 1);
}

static bool stamp(acl_stream *s, host_fn fn, prof_rec *r)
{
    atomic_fetch_add(&stamps_pending, 1);
    if (s->ops->host_func(stream_backend(s), fn, r) == ACL_SUCCESS)
        return true;
    atomic_fetch_sub(&stamps_pending, 1);
    return false;
}

/* Work the device activity times: kernels, copies, fills, graph replays,
 * waits (the stream's wait) and records (when the device reached it). */
static bool device_times(task_kind kind)
{
    switch (kind) {
    case TASK_COPY:
    case TASK_COPY_2D:
    case TASK_COPY_BATCH:
    case TASK_COPY_INDIRECT:
    case TASK_FILL:
    case TASK_FILL32:
    case TASK_LAUNCH:
    case TASK_REDUCE:
    case TASK_RANDOM:
    case TASK_GRAPH:
    case TASK_WAIT:
    case TASK_RECORD:
        return true;
    default:
        return false;
    }
}

aclError prof_submit(const char *api, acl_stream *s, const task *t)
{
    prof_rec *r = NULL;
    /* Only work queued inside a tagged call can be matched to its activity. */
    bool on_device = current_call_tagged && device_times(t->kind) &&
                     atomic_load_explicit(&device_timed, memory_order_relaxed);
    uint64_t native = on_device ? backend()->diag->activity_stream(stream_backend(s)) : 0;
    on_device = on_device && native != 0;
    if (atomic_load_explicit(&prof_collecting, memory_order_relaxed) & TASK_BITS) {
        pthread_mutex_lock(&prof_lock);
        r = rec_new(REC_TASK);
        if (r) {
            r->kind = t->kind;
            r->name = api;
            r->device = s->ctx->device;
            r->stream = s->id;
            r->tid = current_tid();
            r->key = task_key(t);
            r->call = current_call;
            r->native = native;
            r->device_timed = on_device;
            device_pending += on_device;
        }
        pthread_mutex_unlock(&prof_lock);
    }
    if (r && r->device_timed) {
        aclError err = stream_task_dispatch(s, t->kind, t);
        if (err != ACL_SUCCESS) {
            pthread_mutex_lock(&prof_lock);
            r->device_timed = false; /* never drawn: begin stays 0 */
            device_pending--;
            pthread_mutex_unlock(&prof_lock);
        }
        return stream_count(api, s, t, err);
    }
    if (r && !stamp(s, stamp_begin, r))
        r = NULL;
    aclError err = stream_task_dispatch(s, t->kind, t);
    if (r && err == ACL_SUCCESS)
        (void)stamp(s, stamp_end, r);
    return stream_count(api, s, t, err);
}

/* ---- device activity --------------------------------------------------------------------------- */

/* The calls of the profile by id, with their record and their device-timed
 * tasks; and the streams the backend named, for work it did on its own. */
typedef struct call_slot {
    uint64_t call;
    prof_rec *api, *tasks;
} call_slot;

typedef struct known_stream {
    uint64_t native;
    int32_t device, stream;
} known_stream;

typedef struct activity_index {
    call_slot *slots;
    size_t mask;
    known_stream *streams;
    size_t stream_count, stream_cap;
} activity_index;

static call_slot *slot_of(activity_index *x, uint64_t call)
{
    if (!call || !x->slots)
        return NULL;
    for (size_t i = (size_t)(call * 0x9e3779b97f4a7c15ull) & x->mask;; i = (i + 1) & x->mask) {
        if (x->slots[i].call == call || x->slots[i].call == 0)
            return &x->slots[i];
    }
}

static void index_free(activity_index *x)
{
    free(x->slots);
    free(x->streams);
    *x = (activity_index){0};
}

/* (Re)builds the index over every record; under prof_lock. */
static void index_build(activity_index *x)
{
    index_free(x);
    size_t n = 0;
    for (rec_chunk *c = chunks; c; c = c->next)
        n += c->used;
    size_t size = 64;
    while (size < 2 * n)
        size *= 2;
    x->slots = calloc(size, sizeof *x->slots);
    if (!x->slots)
        return;
    x->mask = size - 1;
    for (rec_chunk *c = chunks; c; c = c->next) {
        for (size_t i = 0; i < c->used; i++) {
            prof_rec *r = &c->recs[i];
            if (!r->call || !(r->type == REC_API || (r->type == REC_TASK && r->device_timed)))
                continue;
            call_slot *slot = slot_of(x, r->call);
            slot->call = r->call;
            if (r->type == REC_API) {
                slot->api = r;
                continue;
            }
            /* Tasks chained in submission order. */
            r->next_in_call = NULL;
            prof_rec **tail = &slot->tasks;
            while (*tail)
                tail = &(*tail)->next_in_call;
            *tail = r;
            size_t k = 0;
            while (k < x->stream_count && x->streams[k].native != r->native)
                k++;
            if (k == x->stream_count) {
                if (x->stream_count == x->stream_cap) {
                    size_t cap = x->stream_cap ? 2 * x->stream_cap : 16;
                    known_stream *grown = realloc(x->streams, cap * sizeof *grown);
                    if (!grown)
                        continue;
                    x->streams = grown;
                    x->stream_cap = cap;
                }
                x->streams[x->stream_count++] = (known_stream){r->native, r->device, r->stream};
            }
        }
    }
}

static bool same_stream(uint64_t native, uint64_t activity)
{
    return (uint32_t)native == (uint32_t)activity &&
           ((activity >> 32) == ACTIVITY_STREAM_ANY_DEVICE || (native >> 32) == (activity >> 32));
}

/* Whether an activity can be (part of) a task of this kind. */
static bool activity_fits(task_kind kind, backend_activity_kind a)
{
    switch (a) {
    case ACTIVITY_SYNC:
        return kind == TASK_WAIT;
    case ACTIVITY_EVENT:
        return kind == TASK_RECORD;
    case ACTIVITY_KERNEL:
    case ACTIVITY_COPY:
    case ACTIVITY_FILL:
        return kind != TASK_WAIT && kind != TASK_RECORD;
    case ACTIVITY_API:
        return false;
    }
    return false;
}

static task_kind task_kind_of(backend_activity_kind a)
{
    return a == ACTIVITY_COPY ? TASK_COPY : a == ACTIVITY_FILL ? TASK_FILL : TASK_LAUNCH;
}

/* Takes one activity of the backend; under prof_lock. */
static void activity_sink(void *arg, const backend_activity *a)
{
    activity_index *x = arg;
    call_slot *slot = slot_of(x, a->call);
    if (slot && slot->call != a->call)
        slot = NULL;
    if (a->kind == ACTIVITY_API) {
        prof_rec *r = rec_new(REC_NATIVE);
        if (!r)
            return;
        r->name = "cuda_api";
        r->text = strdup(a->name ? a->name : "native call");
        r->tid = slot && slot->api ? slot->api->tid : a->thread;
        r->call = a->call;
        r->begin = a->begin_ns;
        r->end = a->end_ns;
        return;
    }
    prof_rec *match = NULL;
    for (prof_rec *r = slot ? slot->tasks : NULL; r; r = r->next_in_call) {
        if (!activity_fits(r->kind, a->kind) || !same_stream(r->native, a->stream))
            continue;
        match = r;
        if (r->parts == 0)
            break; /* the first task still without times takes it */
    }
    if (match) {
        if (match->parts++ == 0) {
            device_pending--;
            match->end = a->end_ns;
            atomic_store_explicit(&match->begin, a->begin_ns, memory_order_release);
        } else {
            if (a->begin_ns < match->begin)
                match->begin = a->begin_ns;
            if (a->end_ns > match->end)
                match->end = a->end_ns;
        }
        if (a->name && !match->text && match->kind == TASK_LAUNCH)
            match->text = strdup(a->name);
        return;
    }
    if (a->kind == ACTIVITY_SYNC || a->kind == ACTIVITY_EVENT)
        return;
    /* Device work no task of ours queued (a synchronous copy's, work on a
     * stream ACL does not know): on its stream's track if known, else on
     * the device's track -1. */
    prof_rec *r = rec_new(REC_TASK);
    if (!r)
        return;
    r->kind = task_kind_of(a->kind);
    r->name = slot && slot->api ? slot->api->name : "native";
    r->device = (int32_t)(a->stream >> 32);
    r->stream = -1;
    for (size_t k = 0; k < x->stream_count; k++) {
        if (same_stream(x->streams[k].native, a->stream)) {
            r->device = x->streams[k].device;
            r->stream = x->streams[k].stream;
            break;
        }
    }
    r->call = a->call;
    r->native = a->stream;
    r->parts = 1;
    r->text = a->name ? strdup(a->name) : NULL;
    r->end = a->end_ns;
    r->begin = a->begin_ns;
}

/* An event record the device profiler did not time (CUPTI gives event
 * records device times only from 12.8, and maybe not for every event)
 * happened when its stream finished the work queued before it: the end of
 * the latest earlier task of the stream that has device times. Under
 * prof_lock. */
static void infer_records(void)
{
    for (rec_chunk *c = chunks; c && device_pending; c = c->next) {
        for (size_t i = 0; i < c->used; i++) {
            prof_rec *r = &c->recs[i];
            if (r->type != REC_TASK || !r->device_timed || r->parts || r->kind != TASK_RECORD)
                continue;
            const prof_rec *before = NULL;
            for (rec_chunk *d = chunks; d; d = d->next)
                for (size_t k = 0; k < d->used; k++) {
                    const prof_rec *o = &d->recs[k];
                    if (o->type == REC_TASK && o->parts && o->device_timed &&
                        o->native == r->native && o->seq < r->seq &&
                        (!before || o->seq > before->seq))
                        before = o;
                }
            if (!before)
                continue;
            r->inferred = true;
            device_pending--;
            r->end = before->end;
            atomic_store_explicit(&r->begin, (int64_t)before->end, memory_order_release);
        }
    }
}

/* Collects the device activity of the profile into its records: waits up
 * to STAMP_WAIT_MS for every device-timed task to get its times, or until
 * none came for DEVICE_QUIET_MS; then stops the backend's collection.
 * Under prof_lock (released while it sleeps). */
static void device_collect(void)
{
    if (!atomic_load(&device_timed))
        return;
    const backend_diag_ops *diag = backend()->diag;
    activity_index x = {0};
    int64_t now = monotonic_ns(), deadline = now + (int64_t)STAMP_WAIT_MS * 1000000, last = now;
    index_build(&x);
    for (;;) {
        if (diag->activity_flush(activity_sink, &x) > 0)
            last = monotonic_ns();
        now = monotonic_ns();
        if (device_pending == 0 || now >= deadline ||
            now - last >= (int64_t)DEVICE_QUIET_MS * 1000000)
            break;
        /* Calls still in flight may add tasks meanwhile (the sink's own
         * records need no index). */
        uint64_t seen = rec_seq;
        pthread_mutex_unlock(&prof_lock);
        sleep_ns(2000000);
        pthread_mutex_lock(&prof_lock);
        if (rec_seq != seen)
            index_build(&x);
    }
    infer_records();
    if (device_pending)
        ACL_LOG(LOG_WARNING, "profiling: %zu tasks got no device activity and are left out",
                device_pending);
    index_free(&x);
    atomic_store(&device_timed, false);
    diag->activity_stop();
    device_pending = 0;
}

/* At the start of a profile with task times: the backend's device activity
 * if it has one (ACLCUDA_PROF_CUPTI=off: stamps always). Under prof_lock. */
static void device_start(uint64_t types)
{
    const backend_diag_ops *diag = backend()->diag;
    const char *cupti = getenv("ACLCUDA_PROF_CUPTI");
    bool wanted = (types & TASK_BITS) && diag && diag->activity_start &&
                  !(cupti && strcmp(cupti, "off") == 0);
    atomic_store(&device_timed, wanted && diag->activity_start());
}

/* ---- marks and ranges ------------------------------------------------------------------------ */

static bool tx_collected(void)
{
    return (atomic_load_explicit(&prof_collecting, memory_order_relaxed) & TX_BITS) != 0;
}

static char *labelled(const char *domain, const char *text)
{
    char *out;
    if (asprintf(&out, "%s%s%s", domain ? domain : "", domain ? ": " : "", text ? text : "") < 0)
        return NULL;
    return out;
}

void prof_mark(const char *domain, const char *text, int32_t stream_id)
{
    char *label = labelled(domain, text);
    if (!label)
        return;
    const backend_diag_ops *diag = backend()->diag;
    if (diag && diag->mark)
        diag->mark(label, 0);
    if (tx_collected()) {
        int64_t now = monotonic_ns();
        pthread_mutex_lock(&prof_lock);
        prof_rec *r = rec_new(REC_MARK);
        if (r) {
            r->name = "mark";
            r->tid = current_tid();
            r->stream = stream_id;
            r->begin = r->end = now;
            r->text = label;
            label = NULL;
        }
        pthread_mutex_unlock(&prof_lock);
    }
    free(label);
}

void prof_push(const char *text)
{
    const backend_diag_ops *diag = backend()->diag;
    if (diag && diag->range_push)
        diag->range_push(text ? text : "");
    if (push_depth < PUSH_DEPTH) {
        pushes[push_depth].text = strdup(text ? text : "");
        pushes[push_depth].begin = monotonic_ns();
    }
    push_depth++;
}

static void range_record(char *text, uint32_t tid, int64_t begin)
{
    if (!tx_collected() || !text) {
        free(text);
        return;
    }
    int64_t end = monotonic_ns();
    pthread_mutex_lock(&prof_lock);
    prof_rec *r = rec_new(REC_RANGE);
    if (r) {
        r->name = "range";
        r->tid = tid;
        r->begin = begin;
        r->end = end;
        r->text = text;
        text = NULL;
    }
    pthread_mutex_unlock(&prof_lock);
    free(text);
}

bool prof_pop(void)
{
    if (push_depth == 0)
        return false;
    const backend_diag_ops *diag = backend()->diag;
    if (diag && diag->range_pop)
        diag->range_pop();
    push_depth--;
    if (push_depth < PUSH_DEPTH)
        range_record(pushes[push_depth].text, current_tid(), pushes[push_depth].begin);
    return true;
}

uint64_t prof_range_start(const char *domain, const char *text)
{
    char *label = labelled(domain, text);
    if (!label)
        return 0;
    const backend_diag_ops *diag = backend()->diag;
    uint64_t native = diag && diag->range_start ? diag->range_start(label) : 0;
    pthread_mutex_lock(&prof_lock);
    if (range_count == range_cap) {
        size_t cap = range_cap ? 2 * range_cap : 16;
        open_range *grown = realloc(ranges, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&prof_lock);
            free(label);
            return 0;
        }
        ranges = grown;
        range_cap = cap;
    }
    uint64_t id = next_range_id++;
    ranges[range_count++] = (open_range){id, native, current_tid(), monotonic_ns(), label};
    pthread_mutex_unlock(&prof_lock);
    return id;
}

bool prof_range_end(uint64_t id)
{
    pthread_mutex_lock(&prof_lock);
    for (size_t i = 0; i < range_count; i++) {
        if (ranges[i].id != id)
            continue;
        open_range r = ranges[i];
        ranges[i] = ranges[--range_count];
        pthread_mutex_unlock(&prof_lock);
        const backend_diag_ops *diag = backend()->diag;
        if (diag && diag->range_end)
            diag->range_end(r.native);
        range_record(r.text, r.tid, r.begin);
        return true;
    }
    pthread_mutex_unlock(&prof_lock);
    return false;
}

/* ---- output ---------------------------------------------------------------------------------- */

static double us(int64_t ns)
{
    return (double)(ns - origin_ns) / 1000.0;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
    }
}

/* Whether a record is complete enough to draw. */
static bool rec_done(prof_rec *r)
{
    int64_t begin = atomic_load_explicit(&r->begin, memory_order_acquire);
    int64_t end = atomic_load_explicit(&r->end, memory_order_acquire);
    return begin > 0 && end >= begin;
}

#define FOR_EACH_REC(r)                                                                            \
    for (rec_chunk *chunk_##r = chunks; chunk_##r; chunk_##r = chunk_##r->next)                    \
        for (prof_rec *r = chunk_##r->recs; r < chunk_##r->recs + chunk_##r->used; r++)            \
            if (rec_done(r))

/* The pid of a record's track: 0 the host, 1 + device for streams. */
static int track_pid(const prof_rec *r)
{
    return r->type == REC_TASK ? 1 + r->device : 0;
}

static long track_tid(const prof_rec *r)
{
    return r->type == REC_TASK ? (long)r->stream : (long)r->tid;
}

/* The latest record of r's event or notify submitted before r. */
static const prof_rec *released_by(const prof_rec *wait)
{
    const prof_rec *found = NULL;
    FOR_EACH_REC(r)
    {
        if (r->type == REC_TASK && !task_is_wait(r->kind) && r->key == wait->key &&
            r->seq < wait->seq && (!found || r->seq > found->seq))
            found = r;
    }
    return found;
}

static void write_json(FILE *f)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"acl-cuda\"},"
          "\"traceEvents\":[\n",
          f);
    fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,"
               "\"args\":{\"name\":\"Host\"}}");
    /* Names of the tracks: each stream once, each host thread once. */
    FOR_EACH_REC(r)
    {
        bool first = true;
        FOR_EACH_REC(o)
        {
            if (o == r)
                break;
            if (track_pid(o) == track_pid(r) && track_tid(o) == track_tid(r)) {
                first = false;
                break;
            }
        }
        if (!first)
            continue;
        if (r->type == REC_TASK) {
            fprintf(f,
                    ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
                    "\"args\":{\"name\":\"Device %d\"}}",
                    track_pid(r), (int)r->device);
            fprintf(f,
                    ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%ld,"
                    "\"args\":{\"name\":\"Stream %d\"}}",
                    track_pid(r), track_tid(r), (int)r->stream);
        } else {
            fprintf(f,
                    ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%ld,"
                    "\"args\":{\"name\":\"Thread %ld\"}}",
                    track_tid(r), track_tid(r));
        }
    }
    FOR_EACH_REC(r)
    {
        switch (r->type) {
        case REC_API:
        case REC_RANGE:
        case REC_NATIVE:
            fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":",
                    r->type == REC_API      ? "acl_api"
                    : r->type == REC_NATIVE ? "cuda_api"
                                            : "range");
            json_string(f, r->type == REC_API ? r->name : r->text);
            fprintf(f, ",\"pid\":0,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f", track_tid(r),
                    us(r->begin), (double)(r->end - r->begin) / 1000.0);
            if (r->type != REC_RANGE)
                fprintf(f, ",\"args\":{\"call\":%llu}", (unsigned long long)r->call);
            fputc('}', f);
            break;
        case REC_MARK:
            fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"mark\",\"name\":", f);
            json_string(f, r->text);
            fprintf(f, ",\"pid\":0,\"tid\":%ld,\"ts\":%.3f,\"args\":{\"stream\":%d}}", track_tid(r),
                    us(r->begin), (int)r->stream);
            break;
        case REC_TASK:
            fputs(",\n{\"ph\":\"X\",\"cat\":\"task\",\"name\":", f);
            json_string(f, task_timeline_name(r->kind));
            fprintf(f, ",\"pid\":%d,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"api\":",
                    track_pid(r), track_tid(r), us(r->begin), (double)(r->end - r->begin) / 1000.0);
            json_string(f, r->name);
            fprintf(f, ",\"seq\":%llu,\"thread\":%u,\"call\":%llu,\"timing\":\"%s\"",
                    (unsigned long long)r->seq, r->tid, (unsigned long long)r->call,
                    r->parts      ? "device"
                    : r->inferred ? "inferred"
                                  : "stream");
            if (r->parts)
                fprintf(f, ",\"records\":%u", r->parts);
            if (r->text) {
                fputs(",\"kernel\":", f);
                json_string(f, r->text);
            }
            fputs("}}", f);
            if (task_is_wait(r->kind) && r->key) {
                const prof_rec *rec = released_by(r);
                if (rec) {
                    fprintf(f,
                            ",\n{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"release\",\"id\":%llu,"
                            "\"pid\":%d,\"tid\":%ld,\"ts\":%.3f}",
                            (unsigned long long)r->seq, track_pid(rec), track_tid(rec),
                            us(rec->begin));
                    fprintf(f,
                            ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"release\","
                            "\"id\":%llu,\"pid\":%d,\"tid\":%ld,\"ts\":%.3f}",
                            (unsigned long long)r->seq, track_pid(r), track_tid(r), us(r->begin));
                }
            }
            break;
        }
    }
    fputs("\n]}\n", f);
}

typedef struct stat_row {
    const char *name;
    int32_t device, stream;
    uint64_t count;
    int64_t total, min, max, first, last;
} stat_row;

static stat_row *stat_find(stat_row **rows, size_t *n, size_t *cap, const char *name,
                           int32_t device, int32_t stream)
{
    for (size_t i = 0; i < *n; i++)
        if ((*rows)[i].device == device && (*rows)[i].stream == stream &&
            strcmp((*rows)[i].name, name) == 0)
            return &(*rows)[i];
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 32;
        stat_row *grown = realloc(*rows, grown_cap * sizeof *grown);
        if (!grown)
            return NULL;
        *rows = grown;
        *cap = grown_cap;
    }
    stat_row *row = &(*rows)[(*n)++];
    *row = (stat_row){.name = name, .device = device, .stream = stream, .min = INT64_MAX};
    return row;
}

static void stat_add(stat_row *row, const prof_rec *r)
{
    int64_t d = r->end - r->begin;
    if (!row->count || r->begin < row->first)
        row->first = r->begin;
    if (!row->count || r->end > row->last)
        row->last = r->end;
    row->count++;
    row->total += d;
    row->min = d < row->min ? d : row->min;
    row->max = d > row->max ? d : row->max;
}

static void write_summary(FILE *f, const char *what, rec_type type)
{
    stat_row *rows = NULL;
    size_t n = 0, cap = 0;
    FOR_EACH_REC(r)
    {
        if (r->type != type)
            continue;
        stat_row *row = stat_find(&rows, &n, &cap,
                                  type == REC_API ? r->name : task_timeline_name(r->kind), -1, -1);
        if (row)
            stat_add(row, r);
    }
    fprintf(f, "%s,count,total_us,mean_us,min_us,max_us\n", what);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s,%llu,%.3f,%.3f,%.3f,%.3f\n", rows[i].name, (unsigned long long)rows[i].count,
                rows[i].total / 1000.0, rows[i].total / 1000.0 / (double)rows[i].count,
                rows[i].min / 1000.0, rows[i].max / 1000.0);
    free(rows);
}

/* Per stream: its tasks, the time it was busy running them (waits
 * excluded), and the time they spanned. */
static void write_streams(FILE *f)
{
    stat_row *rows = NULL;
    size_t n = 0, cap = 0;
    FOR_EACH_REC(r)
    {
        if (r->type != REC_TASK)
            continue;
        stat_row *row = stat_find(&rows, &n, &cap, "", r->device, r->stream);
        if (!row)
            continue;
        int64_t total = row->total;
        stat_add(row, r);
        if (task_is_wait(r->kind))
            row->total = total;
    }
    fputs("device,stream,tasks,busy_us,span_us\n", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%d,%d,%llu,%.3f,%.3f\n", (int)rows[i].device, (int)rows[i].stream,
                (unsigned long long)rows[i].count, rows[i].total / 1000.0,
                (rows[i].last - rows[i].first) / 1000.0);
    free(rows);
}

/* The timeline as a picture: one row per host thread, then one per stream. */
static void write_svg(FILE *f)
{
    enum { LABEL_W = 170, PLOT_W = 1400, ROW_H = 26, TOP = 40 };
    typedef struct track {
        int pid;
        long tid;
    } track;
    track *tracks = NULL;
    size_t n = 0, cap = 0;
    int64_t t0 = INT64_MAX, t1 = 0;
    for (int pass = 0; pass < 2; pass++) {
        FOR_EACH_REC(r)
        {
            if ((pass == 0) != (track_pid(r) == 0))
                continue;
            t0 = r->begin < t0 ? r->begin : t0;
            t1 = r->end > t1 ? r->end : t1;
            size_t i = 0;
            while (i < n && !(tracks[i].pid == track_pid(r) && tracks[i].tid == track_tid(r)))
                i++;
            if (i < n)
                continue;
            if (n == cap) {
                size_t grown_cap = cap ? 2 * cap : 16;
                track *grown = realloc(tracks, grown_cap * sizeof *grown);
                if (!grown)
                    break;
                tracks = grown;
                cap = grown_cap;
            }
            tracks[n++] = (track){track_pid(r), track_tid(r)};
        }
    }
    if (t1 <= t0)
        t1 = t0 + 1;
    double scale = (double)PLOT_W / (double)(t1 - t0);
    int height = TOP + (int)n * ROW_H + 30;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"monospace\" font-size=\"11\">\n"
            "<title>acl-cuda timeline</title>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"4\" y=\"16\" font-size=\"13\">acl-cuda timeline: %.3f ms</text>\n",
            LABEL_W + PLOT_W + 20, height, (t1 - t0) / 1e6);
    for (int i = 0; i <= 10; i++) {
        double x = LABEL_W + PLOT_W * i / 10.0;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                "<text x=\"%.1f\" y=\"%d\" fill=\"#666\">%.3f ms</text>\n",
                x, TOP - 6, x, height - 24, x + 2, height - 10, (t1 - t0) * i / 10.0 / 1e6);
    }
    for (size_t i = 0; i < n; i++) {
        int y = TOP + (int)i * ROW_H;
        fprintf(f, "<text x=\"4\" y=\"%d\">", y + 16);
        if (tracks[i].pid == 0)
            fprintf(f, "Thread %ld", tracks[i].tid);
        else
            fprintf(f, "Device %d Stream %ld", tracks[i].pid - 1, tracks[i].tid);
        fputs("</text>\n", f);
    }
    static const char *const colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                          "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
    FOR_EACH_REC(r)
    {
        size_t row = 0;
        while (row < n && !(tracks[row].pid == track_pid(r) && tracks[row].tid == track_tid(r)))
            row++;
        if (row == n)
            continue;
        const char *name = r->type == REC_API    ? r->name
                           : r->type == REC_TASK ? task_timeline_name(r->kind)
                                                 : r->text;
        double x = LABEL_W + (double)(r->begin - t0) * scale;
        int y = TOP + (int)row * ROW_H + 3;
        if (r->type == REC_MARK) {
            fprintf(f, "<path d=\"M%.1f %d l-4 -3 h8 z\" fill=\"#e15759\"><title>", x, y + 3);
        } else {
            double w = (double)(r->end - r->begin) * scale;
            unsigned h = 0;
            for (const char *p = name; p && *p; p++)
                h = h * 31 + (unsigned char)*p;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                    "stroke=\"#333\" stroke-width=\"0.3\"><title>",
                    x, r->type == REC_RANGE ? y + ROW_H / 2 : y, w < 0.5 ? 0.5 : w,
                    r->type == REC_RANGE ? ROW_H / 2 - 6 : ROW_H - 6,
                    r->type == REC_RANGE ? "#bab0ac" : colours[h % 8]);
        }
        xml_text(f, name);
        fprintf(f, " %.3f us</title></%s>\n", (r->end - r->begin) / 1000.0,
                r->type == REC_MARK ? "path" : "rect");
        double w = (double)(r->end - r->begin) * scale;
        if (r->type != REC_MARK && w > 8.0 * (double)strlen(name)) {
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"white\">", x + 2, y + 13);
            xml_text(f, name);
            fputs("</text>\n", f);
        }
    }
    fputs("</svg>\n", f);
    free(tracks);
}

static bool write_file(const char *name, void (*write)(FILE *))
{
    char path[PATH_MAX_LEN + 64];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        ACL_LOG(LOG_ERROR, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    write(f);
    return fclose(f) == 0;
}

static void write_api_summary(FILE *f)
{
    write_summary(f, "api", REC_API);
}

static void write_task_summary(FILE *f)
{
    write_summary(f, "task", REC_TASK);
}

/* Waits for queued stamps, then writes every file; under prof_lock. */
static aclError write_all(void)
{
    device_collect();
    int64_t deadline = monotonic_ns() + (int64_t)STAMP_WAIT_MS * 1000000;
    while (atomic_load(&stamps_pending) > 0 && monotonic_ns() < deadline) {
        pthread_mutex_unlock(&prof_lock);
        sleep_ns(200000);
        pthread_mutex_lock(&prof_lock);
    }
    bool ok = write_file("timeline.json", write_json) &&
              write_file("api_summary.csv", write_api_summary) &&
              write_file("task_summary.csv", write_task_summary) &&
              write_file("stream_summary.csv", write_streams) &&
              write_file("timeline.svg", write_svg);
    return ok ? ACL_SUCCESS : ACL_ERROR_PROFILING_FAILURE;
}

/* ---- control --------------------------------------------------------------------------------- */

static bool make_dirs(const char *path)
{
    char buf[PATH_MAX_LEN + 1];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0750) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    if (mkdir(buf, 0750) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) && access(buf, W_OK) == 0;
}

/* A collection of types begins or ends (prof_lock held); the end writes
 * the profile. */
static void collection_start(uint64_t types)
{
    started = types;
    device_start(types);
    atomic_store(&prof_collecting, types);
}

static aclError collection_stop(void)
{
    atomic_store(&prof_collecting, 0);
    started = 0;
    return write_all();
}

/* At the end of profiling (prof_lock held): stamps still queued (past the
 * stop's wait) keep their records. */
static void records_release(void)
{
    if (atomic_load(&stamps_pending) == 0)
        recs_free();
}

aclError prof_init(const char *path, size_t length)
{
    pthread_mutex_lock(&prof_lock);
    aclError err = ACL_SUCCESS;
    if (from_env)
        err = ACL_ERROR_PROF_API_CONFLICT;
    else if (initialised)
        err = ACL_ERROR_PROF_ALREADY_RUN;
    else {
        snprintf(out_dir, sizeof out_dir, "%.*s", (int)length, path);
        if (!make_dirs(out_dir))
            err = ACL_ERROR_INVALID_PARAM;
        else
            initialised = true;
    }
    pthread_mutex_unlock(&prof_lock);
    return err;
}

aclError prof_start(uint64_t types)
{
    pthread_mutex_lock(&prof_lock);
    aclError err = ACL_SUCCESS;
    if (from_env)
        err = ACL_ERROR_PROF_API_CONFLICT;
    else if (!initialised)
        err = ACL_ERROR_PROF_NOT_RUN;
    else if (started)
        err = ACL_ERROR_PROF_ALREADY_RUN;
    else {
        if (!chunks)
            origin_ns = monotonic_ns();
        collection_start(types);
    }
    pthread_mutex_unlock(&prof_lock);
    return err;
}

aclError prof_stop(uint64_t types)
{
    pthread_mutex_lock(&prof_lock);
    aclError err = ACL_SUCCESS;
    if (from_env)
        err = ACL_ERROR_PROF_API_CONFLICT;
    else if (!initialised || !started)
        err = ACL_ERROR_PROF_NOT_RUN;
    else if (types != started)
        err = ACL_ERROR_INVALID_PROFILING_CONFIG;
    else
        err = collection_stop();
    pthread_mutex_unlock(&prof_lock);
    return err;
}

aclError prof_finalize(void)
{
    pthread_mutex_lock(&prof_lock);
    aclError err = ACL_SUCCESS;
    if (from_env)
        err = ACL_ERROR_PROF_API_CONFLICT;
    else if (!initialised)
        err = ACL_ERROR_PROF_NOT_RUN;
    else {
        if (started)
            err = collection_stop();
        records_release();
        initialised = false;
    }
    pthread_mutex_unlock(&prof_lock);
    return err;
}

const char *prof_output_dir(void)
{
    return out_dir;
}

bool prof_started_by_environment(void)
{
    return from_env;
}

/* ACLCUDA_PROF_OUTPUT=DIR (acl-cuda-prof sets it): profile from aclInit to
 * aclFinalize; ACLCUDA_PROF_TASK_TIME=off leaves task times out. */
void prof_environment_start(void)
{
    const char *dir = getenv("ACLCUDA_PROF_OUTPUT");
    if (!dir || !*dir)
        return;
    pthread_mutex_lock(&prof_lock);
    if (!initialised && make_dirs(dir)) {
        snprintf(out_dir, sizeof out_dir, "%s", dir);
        const char *task_time = getenv("ACLCUDA_PROF_TASK_TIME");
        uint64_t types = API_BITS | TX_BITS;
        if (!task_time || strcmp(task_time, "off") != 0)
            types |= ACL_PROF_TASK_TIME;
        initialised = from_env = true;
        origin_ns = monotonic_ns();
        collection_start(types);
    } else if (!initialised) {
        ACL_LOG(LOG_ERROR, "ACLCUDA_PROF_OUTPUT=%s: cannot make that directory; not profiling",
                dir);
    }
    pthread_mutex_unlock(&prof_lock);
}

static void environment_finish(void *subject)
{
    (void)subject;
    pthread_mutex_lock(&prof_lock);
    if (from_env) {
        if (collection_stop() == ACL_SUCCESS)
            ACL_LOG(LOG_INFO, "profile written to %s", out_dir);
        records_release();
        initialised = from_env = false;
    }
    pthread_mutex_unlock(&prof_lock);
}

/* ---- objects --------------------------------------------------------------------------------- */

typedef struct live_object {
    const void *p;
    prof_object_kind kind;
} live_object;

static pthread_mutex_t object_lock = PTHREAD_MUTEX_INITIALIZER;
static live_object *objects;
static size_t object_count, object_cap;

void *prof_object_new(prof_object_kind kind, size_t size)
{
    void *p = calloc(1, size);
    if (!p)
        return NULL;
    pthread_mutex_lock(&object_lock);
    if (object_count == object_cap) {
        size_t cap = object_cap ? 2 * object_cap : 32;
        live_object *grown = realloc(objects, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&object_lock);
            free(p);
            return NULL;
        }
        objects = grown;
        object_cap = cap;
    }
    objects[object_count++] = (live_object){p, kind};
    pthread_mutex_unlock(&object_lock);
    return p;
}

static bool object_find(prof_object_kind kind, const void *p, bool remove)
{
    bool found = false;
    pthread_mutex_lock(&object_lock);
    for (size_t i = 0; p && i < object_count; i++) {
        if (objects[i].p == p && objects[i].kind == kind) {
            found = true;
            if (remove)
                objects[i] = objects[--object_count];
            break;
        }
    }
    pthread_mutex_unlock(&object_lock);
    return found;
}

bool prof_object_live(prof_object_kind kind, const void *p)
{
    return object_find(kind, p, false);
}

bool prof_object_free(prof_object_kind kind, const void *p)
{
    if (!object_find(kind, p, true))
        return false;
    free((void *)p);
    return true;
}

__attribute__((constructor)) static void prof_register(void)
{
    lifecycle_observe(LIFECYCLE_FINALIZED, environment_finish);
}
