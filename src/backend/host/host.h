/* Internals shared by the host backend's files. See queue.c for the model:
 * a worker thread per busy stream, events as marks (stream, sequence). */
#ifndef ACLCUDA_BACKEND_HOST_H
#define ACLCUDA_BACKEND_HOST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

enum {
    HOST_MAX_DEVICES = 64,
    DEVICE_ALIGN = 256, /* start of every device allocation */
};

/* ---- configuration (device.c) ---- */

typedef struct host_config {
    int32_t device_count;
    size_t capacity; /* bytes of "device" memory per device */
    int64_t cpus;
    size_t page_size;
} host_config;

/* Loaded once from ACLCUDA_HOST_DEVICE_COUNT and ACLCUDA_HOST_DEVICE_MEMORY. */
const host_config *host_config_get(void);
bool host_device_valid(int32_t dev);
/* Bytes of "device" memory in use per device (memory.c charges it). */
extern _Atomic size_t host_device_used[HOST_MAX_DEVICES];

/* ---- copies and fills (copy.c) ---- */

void host_copy_2d(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                  size_t height);
aclError host_check_2d(const void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width);
void host_fill32(uint32_t *dst, uint32_t value, size_t count);
aclError host_copy_indirect(const indirect_copy *copy);

/* ---- memory (memory.c) ---- */

/* A descriptor holding the pages of dev's block at base (aclrtMalloc's
 * address) and nothing else, the caller's to close, for another process to
 * map; *fd_offset is where base + offset lies in it. The first export
 * moves the block's pages into a memfd of their own (the block keeps its
 * address and contents); its free gives the block fresh arena pages, so
 * importers that still map the memfd never reach what is allocated there
 * next. */
aclError host_arena_export(int32_t dev, void *base, size_t offset, size_t size, int *fd,
                           uint64_t *fd_offset);

/* ---- streams, tasks and marks (queue.c) ---- */

/* Until host_streams_resume, no worker starts a task; returns once no
 * running task may write memory (the caller's own stream excepted, when
 * it is a worker). One pause at a time. */
void host_streams_pause(void);
void host_streams_resume(void);
/* Whether some stream has work enqueued that has not completed (work a
 * capture recorded is not enqueued). */
bool host_work_in_flight(void);

typedef struct host_stream host_stream;
typedef struct mark mark;

/* Marks of the end of the work enqueued so far on every stream that has
 * any (streams destroyed while their work drains included): *count of
 * them in a new array, for host_marks_free. False when out of memory. */
bool host_mark_busy_streams(mark ***out, size_t *count);
void host_marks_free(mark **marks, size_t count);

/* Memory freed while work is queued (quarantine.c): release(ptr) runs at
 * once when no stream has work, else once the work queued on every stream
 * before this call has run, at a later host_release_held. Where queued
 * work cannot be marked (out of memory) the memory is never released. */
void host_release_after_work(void (*release)(void *ptr), void *ptr);
/* Releases what waited for work that has now run. Never blocks on a
 * stream; called by every allocation and free. */
void host_release_held(void);

/* The backend's part of a core stream: the stream itself is reference
 * counted, as it outlives its destroy while its worker drains the queue or
 * a mark still points at it. */
struct backend_stream {
    host_stream *impl;
};

/* Where an event was recorded: complete once the stream's completed count
 * reaches seq. A NULL stream means it was complete when taken. Immutable
 * once published, except stamp_ns, which the worker writes before it
 * counts the timestamp task complete (the stream lock orders that write
 * before any reader). */
typedef struct host_capture host_capture;

struct mark {
    atomic_int refs;
    host_stream *stream; /* one reference, or NULL */
    uint64_t seq;
    int64_t stamp_ns; /* CLOCK_MONOTONIC, timing marks only */
    /* A record made during a capture: node `node` of that capture (one
     * reference). Such a mark is complete for queries; a wait on it joins
     * the capture. */
    host_capture *capture;
    int64_t node;
};

/* The state of an event shared between processes (ipc_page.c): a page of a
 * memfd that every process holding the event maps. */
typedef struct ipc_page ipc_page;

/* This process's mapping of such a page (ipc_page.c), reference counted: the
 * event holds one reference and every queued or captured task on it
 * another, so work queued before a destroy still finds the page. */
typedef struct ipc_map {
    atomic_int refs;
    ipc_page *page;
    int fd; /* the memfd, closed with the last reference */
} ipc_map;

struct backend_event {
    int32_t dev;
    bool timing;
    pthread_mutex_t lock;
    mark *current; /* NULL until first recorded */
    ipc_map *ipc;  /* shared with other processes, else NULL */
};

typedef enum task_kind {
    TASK_COPY,
    TASK_COPY_2D,
    TASK_SET,
    TASK_HOST_FN,
    TASK_WAIT,      /* until a mark on another stream is complete */
    TASK_TIMESTAMP, /* stamps a timing event's mark */
    TASK_VALUE_WRITE,
    TASK_VALUE_WAIT, /* until a 64-bit word compares true */
    TASK_WORD,       /* a notify record */
    TASK_WORD_WAIT,  /* a notify wait */
    TASK_JOB,        /* run(payload); release(payload) when the task goes */
    TASK_SET32,
    TASK_BATCH,      /* copies of a batch, owned by the task */
    TASK_INDIRECT,   /* a copy through addresses read when it runs */
    TASK_IPC_SIGNAL, /* completes a record of a shared event */
    TASK_IPC_WAIT,   /* until a shared event's record completes */
    TASK_EXT_RECORD, /* a captured external record (graph.c acts on it at launch) */
    TASK_EXT_WAIT,   /* a captured external wait (likewise) */
} task_kind;

typedef struct task task;

/* What a job task does: kernels, built-in tasks, model replays. */
typedef struct host_job_ops {
    const char *name; /* "kernel", for debug prints */
    void (*run)(void *payload);
    void (*release)(void *payload);
} host_job_ops;

task *task_new(task_kind kind);
/* Frees a task that was never enqueued (its mark reference stays). */
void task_discard(task *t);
void task_set_mark(task *t, mark *m);
/* Appends t to s; when m is given it becomes the mark of t's completion.
 * On failure t stays the caller's. */
aclError stream_enqueue(host_stream *s, task *t, mark *m);
/* Appends n tasks at once, no other work between them; marks[i], when not
 * NULL, becomes the mark of tasks[i]'s completion. On failure every task
 * stays the caller's. */
aclError stream_enqueue_all(host_stream *s, task **tasks, mark **marks, size_t n);
/* A job task, not enqueued (NULL when out of memory; the payload stays the
 * caller's). */
task *task_new_job(const host_job_ops *ops, void *payload);
/* A TASK_WAIT for m (the task takes the caller's reference). */
task *task_new_wait(mark *m);
/* The event of a TASK_EXT_RECORD or TASK_EXT_WAIT. */
backend_event *task_event(const task *t);
void task_set_event(task *t, backend_event *e);
/* s's enqueued count, and whether everything enqueued has completed. */
uint64_t stream_fed(host_stream *s, bool *done);
/* Queues a job; on failure its payload is released. */
aclError stream_enqueue_job(host_stream *s, const host_job_ops *ops, void *payload);
/* Runs t now, on the calling thread (a task of a model replay). */
void task_run(task *t);
void task_free(task *t);
task_kind task_kind_of(const task *t);
const host_job_ops *task_job(const task *t);
/* References to s for holders outside queue.c (captures). */
void stream_retain_ref(host_stream *s);
void stream_release_ref(host_stream *s);

/* A stream's life, for its operations (stream.c): a new stream of dev; its
 * destroy (queued work still runs); a wait for everything queued, which
 * reports a failed task or an abort once; whether everything queued has
 * run; an abort (queued tasks are skipped, but host functions; running
 * waits give up); and a teardown's cancel of its waits. */
aclError host_queue_create(int32_t dev, host_stream **out);
void host_queue_destroy(host_stream *s);
aclError host_queue_synchronize(host_stream *s, int32_t timeout_ms);
bool host_queue_idle(host_stream *s);
bool host_queue_abort(host_stream *s);
/* A model's replay on this worker is about to run node t: while workers
 * are paused a node that writes memory waits here, and a pause does not
 * wait for a replay whose node writes nothing (a wait the pauser's caller
 * may be the one to release). */
void host_node_begin(const task *t);
void host_queue_cancel_waits(host_stream *s);
/* Whether the task this worker runs had its stream's waits cancelled by a
 * teardown since it began: long work (a model's loop) stops there. */
bool host_task_cancelled(void);
/* The tasks of the stream operations, queued on s (the arguments checked). */
aclError host_enqueue_copy(host_stream *s, void *dst, const void *src, size_t n);
aclError host_enqueue_copy_2d(host_stream *s, void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height);
aclError host_enqueue_set(host_stream *s, void *ptr, uint8_t value, size_t n);
aclError host_enqueue_set32(host_stream *s, void *ptr, uint32_t value, size_t count);
aclError host_enqueue_batch(host_stream *s, const batch_copy *copies, size_t count);
aclError host_enqueue_indirect(host_stream *s, const indirect_copy *copy);
aclError host_enqueue_host_fn(host_stream *s, host_fn fn, void *arg, bool any_thread);
/* TASK_VALUE_WRITE (cmp unused) or TASK_VALUE_WAIT. */
aclError host_enqueue_value(host_stream *s, task_kind kind, void *addr, uint64_t value,
                            uint32_t cmp);

/* ---- capture (graph.c) ----
 * While a stream is captured, stream_enqueue appends its tasks to the
 * capture as nodes instead of queueing them; each node depends on the
 * stream's previous node and on the nodes its waits named. */
host_capture *stream_capture_of(host_stream *s, int64_t *tail);
/* What the queue asks of a capture, which graph.c registers from a
 * constructor: the queue sits below captures and never names their code. */
typedef struct host_capture_hooks {
    /* With s's lock held (stream_enqueue): t becomes a node of c;
     * ACL_ERROR_RT_STREAM_NOT_CAPTURED once c's end has begun, and the task
     * is then queued as on a stream not captured. */
    aclError (*record_task)(host_capture *c, host_stream *s, task *t);
    void (*retain)(host_capture *c);
    void (*release)(host_capture *c);
} host_capture_hooks;
void host_capture_hooks_set(const host_capture_hooks *hooks);
/* A mark of s's current node in its capture, or NULL when s is not capturing. */
mark *capture_mark(host_stream *s);
/* s waits for a capture mark: it joins the capture or depends on the node. */
aclError capture_wait_mark(host_stream *s, const mark *m);
void capture_retain(host_capture *c);
void capture_release(host_capture *c);
/* Under s's lock (stream_lock), for graph.c (queue.c). */
void stream_lock(host_stream *s);
void stream_unlock(host_stream *s);
host_capture *stream_capture_of_locked(host_stream *s);
void stream_set_capture(host_stream *s, host_capture *c, int64_t tail);
void stream_add_pending(host_stream *s, int64_t node);
int64_t *stream_pending(host_stream *s, size_t *count, int64_t *tail);
void stream_set_tail(host_stream *s, int64_t tail);

/* ---- kernels (launch.c, module.c, builtin.c, elf_check.c) ---- */

/* Whether the dynamic loader can load the shared object in image without
 * reading or writing outside it or calling code outside its executable
 * segments: NULL when so, else what is wrong with it. */
const char *host_elf_check(const void *image, size_t size);

/* The C function of a host kernel (module.c). */
typedef void (*host_kernel_fn)(uint32_t block, uint32_t nblocks, void *args, size_t size);
host_kernel_fn host_function_entry(const backend_function *f);

/* Runs fn for blocks 0 .. nblocks-1 on the calling thread and the block
 * pool's workers; returns when all have run. */
typedef void (*host_block_fn)(uint32_t block, uint32_t nblocks, void *args, size_t size);
void host_run_blocks(host_block_fn fn, uint32_t nblocks, void *args, size_t size);
aclError host_launch(backend_stream *bs, const launch_params *p);
aclError host_reduce(backend_stream *bs, void *dst, const void *src, size_t elements, reduce_op op,
                     reduce_type type);
aclError host_random(backend_stream *bs, const random_params *p);
aclError host_graph_launch(backend_stream *bs, backend_graph *g);
/* backend_stream_ops.graph_set_node (graph.c). */
aclError host_graph_set_node_ordered(backend_stream *bs, backend_graph *g, uint64_t node,
                                     int32_t dev, const node_work *w);

mark *mark_new(host_stream *s);
void mark_retain(mark *m);
void mark_release(mark *m);
/* Waits for m (NULL or stream-less: complete); timeout_ms < 0 forever,
 * 0 just looks. Returns whether it is complete. */
bool mark_wait(const mark *m, int32_t timeout_ms);

/* Shared events (ipc.c): record and wait. */
aclError host_ipc_record(host_stream *s, ipc_map *map);
aclError host_ipc_wait(host_stream *s, ipc_map *map);
/* Drops a shared event's reference to its page (its destroy). */
void host_ipc_event_release(backend_event *e);
/* A shared event's page (ipc_page.c): made, recognised, the number of a
 * new record, what the tasks do; references to its mapping (the last one
 * unmaps it and closes its memfd). */
void host_ipc_map_retain(ipc_map *map);
void host_ipc_map_release(ipc_map *map);
void host_ipc_page_init(ipc_page *page);
bool host_ipc_page_valid(const ipc_page *page);
uint64_t host_ipc_record_next(ipc_page *page);
bool host_ipc_complete(ipc_page *page, uint64_t target);
uint64_t host_ipc_recorded(ipc_page *page);
void host_ipc_signal(ipc_page *page, uint64_t seq);
/* Waits until target completed; timeout_ms < 0 forever. */
bool host_ipc_wait_for(ipc_page *page, uint64_t target, int32_t timeout_ms);
/* Queues TASK_IPC_SIGNAL or TASK_IPC_WAIT on s (queue.c); the task holds
 * a reference to map. */
aclError host_ipc_enqueue(host_stream *s, task_kind kind, ipc_map *map, uint64_t seq);

/* record and wait (event.c), in the stream operations. */
aclError host_record(backend_stream *bs, backend_event *e);
aclError host_wait(backend_stream *bs, backend_event *e);
aclError host_record_external(backend_stream *bs, backend_event *e);
aclError host_wait_external(backend_stream *bs, backend_event *e);
/* e's current mark with a reference of the caller's, NULL if never
 * recorded; and e's mark replaced by m (which takes a reference of its own)
 * (queue.c, whose tasks act on events too). */
mark *host_event_mark(backend_event *e);
void host_event_set_mark(backend_event *e, mark *m);

/* ---- words that tasks wait on (watch.c) ----
 * Value waits and notify waits watch a word in memory. Workers that change
 * such a word call host_watch_changed(), which wakes the watchers at once;
 * stores the library does not see (the application's, another process's)
 * are noticed by polling, within WATCH_POLL_MAX_NS. */
enum { WATCH_POLL_MAX_NS = 1000 * 1000 };
typedef enum watch_result { WATCH_READY, WATCH_TIMEOUT, WATCH_ABORTED } watch_result;
void host_watch_changed(void);
/* What ends a stream's wait early: an abort of the stream since the wait
 * began (*abort_gen no longer gen), or a teardown that cancelled the
 * stream's waits through the task running it (*cancelled_to reached seq).
 * *testing is set while the waiter tests stop and then ready(): a stopper
 * waits for it to clear, so that once an abort returns no wait it stopped
 * takes a notify's record (watch_stopper_settle). */
typedef struct watch_stop {
    const atomic_uint *abort_gen;
    unsigned gen;
    const _Atomic uint64_t *cancelled_to;
    uint64_t seq;
    atomic_bool *testing;
} watch_stop;
bool watch_stopped(const watch_stop *stop);
/* Called by whoever moved a stop's abort_gen or cancelled_to (sequentially
 * consistent), after it did: returns once the waiter is not between its
 * test of the stop and its ready(). */
void watch_stopper_settle(const atomic_bool *testing);
/* Waits until ready(ctx), deadline_ns (monotonic_ns; < 0: none) or stop
 * (NULL: none); a stopped wait does not test ready again. */
watch_result host_watch(bool (*ready)(void *ctx), void *ctx, int64_t deadline_ns,
                        const watch_stop *stop);

/* ---- notifies (notify.c) and their words (word.c) ---- */

/* A notify's word, reference counted: queued tasks outlive a destroy. */
typedef struct host_word {
    atomic_int refs;
    _Atomic(_Atomic uint32_t *) word; /* &own, or memory shared with other processes */
    _Atomic uint32_t own;
    struct host_word *shared_next, *shared_prev; /* while shared (word.c) */
    bool shared;
    backend_shared_word memory; /* once shared: given back with the last reference */
} host_word;

struct backend_notify {
    host_word *w;
};

/* What a notify task does to its word. */
typedef struct word_op {
    host_word *w; /* a reference, held by the task */
    bool wait;    /* a wait, else a record */
    bool counting;
    bool clear;
    uint32_t mode; /* counting: record mode or wait comparison */
    uint32_t value;
    uint32_t timeout_s;
} word_op;

host_word *host_word_new(void);
void host_word_retain(host_word *w);
void host_word_release(host_word *w);
/* From now on w lives in at->word, memory shared with other processes,
 * which w's last reference gives back (even in a forked child, which holds
 * the mapping too). */
void host_word_share(host_word *w, const backend_shared_word *at);
/* A record: changes the word (the caller then calls host_watch_changed). */
void host_word_apply(const word_op *op);
/* A wait's test: true once satisfied, the word then cleared as asked. */
bool host_word_ready(void *op);
/* Queues op on s (queue.c); the task takes op->w's reference. */
aclError host_enqueue_word_op(host_stream *s, const word_op *op);

/* ---- the groups of operations, one per file ---- */

extern const backend_device_ops host_device_ops;
extern const backend_memory_ops host_memory_ops;
extern const backend_stream_ops host_stream_ops;
extern const backend_event_ops host_event_ops;
extern const backend_notify_ops host_notify_ops;
extern const backend_diag_ops host_diag_ops;
extern const backend_module_ops host_module_ops;
extern const backend_graph_ops host_graph_ops;
extern const backend_vmm_ops host_vmm_ops;
extern const backend_ipc_ops host_ipc_ops;
extern const backend_host_register_ops host_host_register_ops;
extern const backend_managed_ops host_managed_ops;
extern const backend_pool_ops host_pool_ops;
/* Stream operations of mempool.c. */
aclError host_pool_alloc_async(backend_stream *bs, backend_pool *p, size_t n, void **ptr);
aclError host_pool_free_async(backend_stream *bs, backend_pool *p, void *ptr, size_t n,
                              int32_t dev);
/* Gives idle pool memory above each pool's release threshold back (after
 * a stream synchronize). */
void host_pools_settle(void);

#endif
