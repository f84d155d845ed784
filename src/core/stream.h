/* Streams: every one belongs to a context and is a real backend stream; the
 * NULL handle stands for the current context's default stream, which never
 * synchronises implicitly with the others.
 *
 * The one submission path: every piece of stream-ordered work (copies,
 * fills, event records, waits, host functions and callbacks) reaches the
 * backend through stream_submit, which also keeps the count of work
 * queued that lets synchronize and query answer an idle stream without
 * asking the backend, or, while the stream has a sink (a capture's
 * recorder: core/sink.h), goes to that sink. */
#ifndef ACLCUDA_CORE_STREAM_H
#define ACLCUDA_CORE_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"
#include "backend/backend.h"
#include "core/handle.h"
#include "core/prof.h"
#include "util/list.h"

typedef struct acl_context acl_context;
typedef struct acl_event acl_event;
typedef struct sink sink;
struct report_thread;

/* Flags whose streams are only fed by the device: synchronising them
 * returns at once, as ACL documents. A persistent stream takes work from the
 * host while it has a sink: bound to a model being built, or captured
 * (graph.h). */
#define STREAM_DEVICE_FED_FLAGS                                                                    \
    (ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

typedef struct acl_stream {
    object obj;
    acl_context *ctx;   /* a reference */
    list_node ctx_link; /* in ctx->streams, under ctx->lock */
    /* In kernel_keep.c's streams, under its lock; both links NULL once
     * the stream went before it could be noted there. */
    list_node keep_link;
    int32_t id;
    int32_t phys;      /* ctx->phys, at hand for every submission's checks */
    uint32_t priority; /* ACL's 0 (highest) .. 7 */
    /* Attributes kept for aclrtGet/SetStreamAttribute. */
    uint64_t failure_mode;
    uint32_t overflow_switch;
    uint32_t user_custom_tag;
    uint32_t cache_op_info;
    _Atomic(struct report_thread *) subscriber;           /* owned by callback.c */
    _Atomic(struct report_thread *) host_func_subscriber; /* owned by callback.c */
    /* The count a synchronize or query last saw complete (queued, below).
     * Once the native stream went to the application (exported), work may
     * reach it behind our back and only the backend knows. */
    atomic_uint_fast64_t done;
    atomic_bool exported;
    /* aclrtSetStreamResLimit per aclrtDevResLimitType, 0 when not set. */
    _Atomic uint32_t res_limit[2];
    /* Whether the sink takes this stream's work yet: set after sink
     * (below) and once the sink is ready for it (a capture: after the
     * backend began capturing the stream); a submitter that finds the sink
     * before that waits (stream_submit_diverted). False while there is no
     * sink. */
    atomic_bool sink_ready;
    /* What every submission reads, then the head of the backend's stream,
     * in one cache line (streams are allocated aligned to it), which is all
     * a submission touches of the stream. sink: where this stream's work
     * goes instead of its queue (core/sink.h), NULL when none; work
     * submitted meanwhile is recorded, not queued, and not counted. */
    _Alignas(64) _Atomic(sink *) sink;
    const backend_stream_ops *ops; /* backend()->stream */
    atomic_uint_fast64_t queued;   /* work submitted, counted after each submission */
    uint32_t flags;
    bool is_default;                      /* ctx's default stream */
    _Alignas(16) unsigned char backend[]; /* the backend's stream, in place */
} acl_stream;

static inline backend_stream *stream_backend(acl_stream *s)
{
    return (backend_stream *)s->backend;
}

typedef enum task_kind {
    TASK_COPY,
    TASK_COPY_2D,
    TASK_FILL,
    TASK_RECORD,
    TASK_WAIT,
    TASK_RECORD_EXTERNAL, /* a captured record of an event outside the model */
    TASK_WAIT_EXTERNAL,   /* a captured wait for an event outside the model */
    TASK_HOST_FUNC,
    TASK_VALUE_WRITE,
    TASK_VALUE_WAIT,
    TASK_NOTIFY_RECORD,
    TASK_NOTIFY_WAIT,
    TASK_CNT_NOTIFY_RECORD,
    TASK_CNT_NOTIFY_WAIT,
    TASK_LAUNCH, /* a kernel */
    TASK_REDUCE,
    TASK_RANDOM,
    TASK_GRAPH, /* one replay of a captured or built model */
    TASK_FILL32,
    TASK_COPY_BATCH,
    TASK_COPY_INDIRECT,
    TASK_PREFETCH,
    TASK_POOL_ALLOC,
    TASK_POOL_FREE,
    TASK_GRAPH_SET_NODE, /* a node of a model takes new work, in stream order */
} task_kind;

/* What a task is besides its kind, for a sink. */
enum {
    /* It stands for pageable host memory (the caller stages it or waits
     * for it): a capture cannot record it, and it is capture-unsafe. */
    TASK_PAGEABLE = 1,
};

/* One piece of stream-ordered work, built on the caller's stack: what the
 * backend's operation takes and, for a sink, the ACL objects behind it (a
 * capture's model keeps them with its tasks). */
typedef struct task {
    task_kind kind;
    uint32_t flags; /* TASK_PAGEABLE */
    union {
        struct {
            void *dst;
            const void *src;
            size_t n;
            copy_dir dir;
        } copy;
        struct {
            void *dst;
            size_t dpitch;
            const void *src;
            size_t spitch, width, height;
            copy_dir dir;
        } copy_2d;
        struct {
            void *ptr;
            size_t n;
            uint8_t value;
            bool on_device;
        } fill;
        /* TASK_RECORD, TASK_WAIT and their external forms. */
        struct {
            backend_event *backend;
            acl_event *acl; /* NULL: the library's own */
            union {
                /* A record: the sink that takes it writes its id here. */
                uint64_t *recorded_in;
                /* A wait: the sink that made the event's latest record
                 * (its id; 0: none did). */
                uint64_t recorder;
            };
        } event;
        struct {
            host_fn fn;
            void *arg;
            bool any_thread; /* aclcudaLaunchHostFuncAnyThread's */
        } host_func;
        struct {
            void *addr;
            uint64_t value;
            uint32_t cmp; /* TASK_VALUE_WAIT: ACL_STREAM_WAIT_VALUE_* */
        } value;
        struct {
            backend_notify *notify;
            uint32_t mode;      /* counting: record mode or wait comparison */
            uint32_t value;     /* counting */
            uint32_t timeout_s; /* waits; 0: none */
            bool clear;         /* counting waits */
        } notify;
        struct {
            const launch_params *params;
            aclrtFuncHandle fn; /* NULL: the library's own */
            const aclrtLaunchKernelCfg *cfg;
            /* Its arguments point at placeholder data staged for it. */
            bool placeholders;
        } launch;
        struct {
            void *dst;
            const void *src;
            size_t elements;
            reduce_op op;
            reduce_type type;
        } reduce;
        struct {
            const random_params *params;
            const aclrtRandomNumTaskInfo *info;
        } random;
        struct {
            backend_graph *graph;
            uint32_t model_id;
            /* The model's own run on its bound stream (aclmdlRIExecute):
             * the device feeding a stream only the device feeds. */
            bool from_model;
        } graph;
        struct {
            void *ptr;
            size_t count; /* 32-bit words */
            uint32_t value;
            bool on_device;
        } fill32;
        struct {
            const batch_copy *copies;
            size_t count;
            copy_dir dir;
        } copy_batch;
        indirect_copy copy_indirect;
        struct {
            const void *ptr;
            size_t n;
            managed_location loc;
        } prefetch;
        struct {
            backend_pool *pool;
            size_t n;
            void **out;
        } pool_alloc;
        struct {
            backend_pool *pool; /* NULL: malloc_device memory of phys */
            void *ptr;
            size_t n;
            int32_t phys;
        } pool_free;
        struct {
            backend_graph *graph; /* held by the caller until the task has run */
            uint64_t node;
            int32_t dev;
            const node_work *work; /* the caller's, read by the call */
        } graph_set;
    } u;
} task;

/* The backend call of t, nothing else: for a sink, which records. */
aclError stream_dispatch(acl_stream *s, const task *t);
/* The failure of t on s, raised (api NULL: just the code). */
aclError stream_submit_failed(const char *api, const acl_stream *s, const task *t, aclError err);
/* What t is, for messages ("a copy"). */
const char *stream_task_name(task_kind kind);

/* Where s's work goes instead of its queue, NULL when to its queue: for
 * a test (the sink may close meanwhile; sink.h reads it safely). */
static inline sink *stream_sink(acl_stream *s)
{
    return atomic_load_explicit(&s->sink, memory_order_acquire);
}

/* The backend call of t. Inline, and forced so: at a call site that
 * names the task's kind the switch folds away into one direct load of the
 * backend's function, with no jump table and no task in memory. */
static inline __attribute__((always_inline)) aclError stream_task_dispatch(acl_stream *s,
                                                                           task_kind kind,
                                                                           const task *t)
{
    backend_stream *bs = stream_backend(s);
    switch (kind) {
    case TASK_COPY:
        return s->ops->memcpy_async(bs, t->u.copy.dst, t->u.copy.src, t->u.copy.n, t->u.copy.dir);
    case TASK_COPY_2D:
        return s->ops->memcpy2d_async(bs, t->u.copy_2d.dst, t->u.copy_2d.dpitch, t->u.copy_2d.src,
                                      t->u.copy_2d.spitch, t->u.copy_2d.width, t->u.copy_2d.height,
                                      t->u.copy_2d.dir);
    case TASK_FILL:
        return s->ops->memset_async(bs, t->u.fill.ptr, t->u.fill.value, t->u.fill.n,
                                    t->u.fill.on_device);
    case TASK_RECORD:
        return s->ops->record(bs, t->u.event.backend);
    case TASK_WAIT:
        return s->ops->wait(bs, t->u.event.backend);
    case TASK_RECORD_EXTERNAL:
        return s->ops->record_external ? s->ops->record_external(bs, t->u.event.backend)
                                       : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_WAIT_EXTERNAL:
        return s->ops->wait_external ? s->ops->wait_external(bs, t->u.event.backend)
                                     : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_HOST_FUNC:
        if (t->u.host_func.any_thread && s->ops->host_func_any_thread)
            return s->ops->host_func_any_thread(bs, t->u.host_func.fn, t->u.host_func.arg);
        return s->ops->host_func(bs, t->u.host_func.fn, t->u.host_func.arg);
    case TASK_LAUNCH:
        return s->ops->launch ? s->ops->launch(bs, t->u.launch.params)
                              : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_REDUCE:
        return s->ops->reduce
                   ? s->ops->reduce(bs, t->u.reduce.dst, t->u.reduce.src, t->u.reduce.elements,
                                    t->u.reduce.op, t->u.reduce.type)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_RANDOM:
        return s->ops->random ? s->ops->random(bs, t->u.random.params)
                              : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_GRAPH:
        return s->ops->graph_launch ? s->ops->graph_launch(bs, t->u.graph.graph)
                                    : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_VALUE_WRITE:
        return s->ops->value_write(bs, t->u.value.addr, t->u.value.value);
    case TASK_VALUE_WAIT:
        return s->ops->value_wait(bs, t->u.value.addr, t->u.value.value, t->u.value.cmp);
    case TASK_NOTIFY_RECORD:
        return backend_chosen()->notify->record(bs, t->u.notify.notify);
    case TASK_NOTIFY_WAIT:
        return backend_chosen()->notify->wait(bs, t->u.notify.notify, t->u.notify.timeout_s);
    case TASK_CNT_NOTIFY_RECORD:
        return backend_chosen()->notify->count(bs, t->u.notify.notify, t->u.notify.mode,
                                               t->u.notify.value);
    case TASK_CNT_NOTIFY_WAIT:
        return backend_chosen()->notify->count_wait(bs, t->u.notify.notify, t->u.notify.mode,
                                                    t->u.notify.value, t->u.notify.timeout_s,
                                                    t->u.notify.clear);
    case TASK_FILL32:
        return s->ops->memset32_async
                   ? s->ops->memset32_async(bs, t->u.fill32.ptr, t->u.fill32.value,
                                            t->u.fill32.count, t->u.fill32.on_device)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_COPY_BATCH:
        return s->ops->memcpy_batch_async
                   ? s->ops->memcpy_batch_async(bs, t->u.copy_batch.copies, t->u.copy_batch.count,
                                                t->u.copy_batch.dir)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_COPY_INDIRECT:
        return s->ops->memcpy_indirect_async
                   ? s->ops->memcpy_indirect_async(bs, &t->u.copy_indirect)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_PREFETCH:
        return s->ops->prefetch_async ? s->ops->prefetch_async(bs, t->u.prefetch.ptr,
                                                               t->u.prefetch.n, t->u.prefetch.loc)
                                      : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_POOL_ALLOC:
        return s->ops->pool_alloc_async
                   ? s->ops->pool_alloc_async(bs, t->u.pool_alloc.pool, t->u.pool_alloc.n,
                                              t->u.pool_alloc.out)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_POOL_FREE:
        return s->ops->pool_free_async
                   ? s->ops->pool_free_async(bs, t->u.pool_free.pool, t->u.pool_free.ptr,
                                             t->u.pool_free.n, t->u.pool_free.phys)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case TASK_GRAPH_SET_NODE:
        return s->ops->graph_set_node
                   ? s->ops->graph_set_node(bs, t->u.graph_set.graph, t->u.graph_set.node,
                                            t->u.graph_set.dev, t->u.graph_set.work)
                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

/* The id of the calling thread's latest task on a stream other than a
 * default one (aclrtGetThreadLastTaskId). */
extern _Thread_local uint32_t stream_last_task_of_thread;

/* Counts a task just handed to s's backend stream (err: how that went).
 * Counted after the call: a synchronize that read the count before this
 * store began before the call returned, and need not cover it. */
static inline __attribute__((always_inline)) aclError stream_count(const char *api, acl_stream *s,
                                                                   const task *t, aclError err)
{
    uint_fast64_t seq = atomic_fetch_add_explicit(&s->queued, 1, memory_order_release) + 1;
    if (!s->is_default)
        stream_last_task_of_thread = (uint32_t)seq;
    return __builtin_expect(err == ACL_SUCCESS, 1) ? err : stream_submit_failed(api, s, t, err);
}

/* stream_submit on a stream with a sink or only the device feeds, or
 * while profiling (core/prof.h). */
aclError stream_submit_diverted(const char *api, acl_stream *s, const task *t);

/* Queues t on s. Raises every failure, naming api, unless api is NULL:
 * the backend's, and ACL_ERROR_RT_FEATURE_NOT_SUPPORT for a stream only
 * the device feeds (STREAM_DEVICE_FED_FLAGS: CANN documents that
 * synchronizing such a stream returns at once, so work queued from the
 * host would be waited for by nothing) unless it has a sink. On a stream
 * with a sink the task goes to the sink (core/sink.h), which records it or
 * refuses it. Inline: every copy, fill, record and wait comes this way,
 * and each call site then makes one direct backend call. */
static inline __attribute__((always_inline)) aclError stream_submit(const char *api, acl_stream *s,
                                                                    const task *t)
{
    /* Read before the atomic load of the sink, after which the compiler
     * would read it back from memory: the switch on it then folds away. */
    task_kind kind = t->kind;
    /* The three reasons to leave the inline path in one test: a sink, a
     * stream only the device feeds, profiling (core/prof.h). */
    uintptr_t diverted = (uintptr_t)stream_sink(s) | (s->flags & STREAM_DEVICE_FED_FLAGS) |
                         (uintptr_t)atomic_load_explicit(&prof_collecting, memory_order_relaxed);
    if (__builtin_expect(diverted != 0, 0))
        return stream_submit_diverted(api, s, t);
    return stream_count(api, s, t, stream_task_dispatch(s, kind, t));
}

/* Makes a published stream in ctx, linked into ctx's stream list and
 * borrowed by the caller (stream_put); it holds a reference to ctx.
 * priority is ACL's 0..7; is_default for the context's default stream
 * (context.c). Bare codes:
 * ACL_ERROR_RT_NO_STREAM_RESOURCE at the limit, ACL_ERROR_RT_CONTEXT_NULL
 * when ctx is being torn down, else the backend's. */
aclError stream_create(acl_context *ctx, uint32_t priority, uint32_t flags, bool is_default,
                       acl_stream **out);
/* Like stream_create, for a native stream of the backend that the
 * application owns (backend_stream_ops.adopt): the stream is never
 * recycled and its native stream never destroyed, and it counts as
 * exported (the idle-stream shortcut never applies: work reaches it
 * behind our back). Bare codes as stream_create's, plus
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT when the backend cannot adopt and
 * ACL_ERROR_RT_STREAM_CONTEXT when the native stream belongs to another
 * device than ctx's (its device in *native_dev). */
aclError stream_adopt(acl_context *ctx, void *native, acl_stream **out, int32_t *native_dev);
/* The failure of stream_get, raised. */
aclError stream_get_failed(const char *api, aclrtStream handle);
/* The live stream behind a (non-NULL) handle, borrowed (stream_put).
 * Raises. current_stream_get also resolves NULL. */
static inline aclError stream_get(const char *api, aclrtStream handle, acl_stream **out)
{
    *out = (acl_stream *)handle_get(handle, HANDLE_STREAM);
    return __builtin_expect(*out != NULL, 1) ? ACL_SUCCESS : stream_get_failed(api, handle);
}
/* Ends a borrow (handle.h). */
static inline void stream_put(acl_stream *s)
{
    object_put(&s->obj);
}

static inline bool stream_hold(acl_stream *s)
{
    return object_hold(&s->obj);
}

static inline void stream_release(acl_stream *s)
{
    object_release(&s->obj);
}
/* Tears down a stream whose handle the caller took (holding it): no new
 * work can reach it, callbacks it holds are handed over, its work is
 * waited for when wait is set, and it leaves its context. The caller then
 * releases it; the backend stream goes when it is freed. */
void stream_teardown(acl_stream *s, bool wait);
/* For a teardown: every wait queued on s so far ends unsatisfied, and s
 * goes on past it (backend.h, cancel_waits). */
void stream_cancel_waits(acl_stream *s);

/* Both return bare codes (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT on expiry;
 * synchronize: ACL_ERROR_INVALID_PARAM when the stream was destroyed by
 * another thread before the wait could begin; ACL_ERROR_RT_STREAM_CAPTURED
 * for a stream being captured, which ACL forbids). */
aclError stream_synchronize(acl_stream *s, int32_t timeout_ms);
aclError stream_query(acl_stream *s, bool *complete);
/* True when all work counted on s is known complete, without asking the
 * backend (a synchronize or query saw it done). */
bool stream_known_idle(acl_stream *s);
/* The backend's native stream; from then on, work may bypass us. */
void *stream_native(acl_stream *s);

/* How many more streams may be made. */
uint32_t stream_available(void);

/* aclrtStreamAbort: what is queued on s is no longer owed (backend.h says
 * what becomes of it), the stream stays usable, and its idle bookkeeping
 * says so. Bare codes (the backend's; ACL_ERROR_RT_FEATURE_NOT_SUPPORT when
 * it cannot). */
aclError stream_abort(acl_stream *s);

/* The task id of the calling thread's last submission on a stream it
 * created (not a default stream): its sequence number on that stream. */
uint32_t stream_thread_last_task(void);
/* A task the calling thread queued on a stream with a sink has this id
 * there (a capture: among the model's tasks of that stream). */
void stream_note_thread_task(uint32_t id);

#endif
