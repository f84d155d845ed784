/* Internals shared by the cuda backend's files. */
#ifndef ACLCUDA_BACKEND_CUDA_H
#define ACLCUDA_BACKEND_CUDA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "backend/backend.h"

/* The backend's part of a core stream. Once the CUDA stream has been handed
 * to the application (native()), work may reach it behind our back, so it
 * is never recycled. */
struct backend_stream {
    /* What each submission reads first (core/stream.h keeps it on the
     * stream's hot line). */
    cudaStream_t s;
    int dev;
    /* Wraps the application's stream (adopt): never destroyed or pooled
     * here. Such a stream may be one of CUDA's per-device handles (the
     * legacy or per-thread stream), so every operation on it makes its
     * device current first. */
    bool adopted;
    int priority;
    atomic_bool exported;
    /* The CUDA stream an abort swapped out, still running what was queued
     * on it; destroyed at the next abort or with the stream, so that a
     * thread that read `s` just before the swap never uses a destroyed
     * stream. */
    cudaStream_t retired;
    /* Where device code of this stream reports a failure (a notify wait
     * that timed out): a word of mapped host memory (memops.c), taken on
     * first use; synchronize reports and clears it. */
    _Atomic(uint32_t *) fault;
    /* The waits queued on the stream (memops.c), which a teardown releases;
     * made on the first one. */
    _Atomic(struct wait_log *) waits;
    /* The graph of the capture graph.c began on the stream, whose waits it
     * takes when the capture ends, whatever became of the capture. */
    cudaGraph_t capture_graph;
};

struct backend_event {
    cudaEvent_t e;
    int dev;
    bool timing;
    atomic_bool exported; /* the CUDA handle went to the application */
    atomic_bool reused;   /* recycled and not recorded since: may carry an old record */
    bool adopted;         /* the application's event (adopt): never destroyed or pooled here */
};

/* Timestamps of timing events (event.c): called by record, makes the
 * device's first anchor. */
void cuda_event_recorded(backend_event *e);

/* ---- errors (errors.c) ---- */

/* The one place a CUDA error becomes an ACL code. */
aclError from_cuda(cudaError_t err);

/* Maps a result and, on failure, clears the runtime's per-thread last
 * error so that a later cudaGetLastError (ours or the application's) does
 * not report it again. Sticky errors stay sticky regardless. */
static inline aclError check(cudaError_t err)
{
    if (__builtin_expect(err == cudaSuccess, 1))
        return ACL_SUCCESS;
    (void)cudaGetLastError();
    return from_cuda(err);
}

/* ---- the current device (current.c) ----
 * The CUDA current device is per thread, while ACL objects remember their
 * device. Ops that create objects or allocate make the object's device
 * current first. Each thread caches the device it last set so that hot
 * paths compare an integer instead of calling cudaSetDevice; slow paths
 * ask the runtime (cudaGetDevice) as well, because application code using
 * the CUDA interop may switch devices behind our back. Record, wait, query
 * and synchronize never switch: CUDA accepts them from any current device. */

/* The device this thread last made current through this backend, -1 unknown. */
extern _Thread_local int cuda_tls_device;

aclError cuda_set_device(int dev);
/* Slow paths (creation, allocation, sync copies): also right after the
 * application switched devices itself. */
aclError use_device_checked(int dev);

/* Hot paths: trusts the cache. */
static inline aclError use_device(int dev)
{
    if (__builtin_expect(cuda_tls_device == dev, 1))
        return ACL_SUCCESS;
    return cuda_set_device(dev);
}

/* CUDA's legacy and per-thread streams (and NULL, the legacy one) stand for
 * a stream of whichever device is current: operations on an adopted stream
 * make its device current first (the others need not: a stream carries its
 * context). */
static inline aclError use_adopted_device(const backend_stream *s)
{
    return __builtin_expect(s->adopted, 0) ? use_device(s->dev) : ACL_SUCCESS;
}

/* The CUDA copy kind of a direction (memory.c). */
enum cudaMemcpyKind memcpy_kind(copy_dir dir);
/* ACL's managed-memory location as CUDA's (stream.c). */
struct cudaMemLocation cuda_managed_location(managed_location loc);

/* ---- the backend's own kernels (kernels.c) ---- */

/* Queues a copy (or L2 prefetch) whose addresses are read on the device. */
aclError cuda_launch_indirect_copy(int dev, cudaStream_t stream, const indirect_copy *c);
/* Load the backend's own kernels into dev's primary context now (see
 * backend_device_ops.prepare); each keeps its error for later launches.
 * kernels.c's, notify_module.c's and builtin.c's. */
void cuda_kernels_preload(int dev);
void cuda_notify_preload(int dev);
void cuda_builtin_preload(int dev);

/* ---- waiting with a deadline (deadline.c) ---- */

/* Polls query(handle) with a growing sleep until it is not
 * cudaErrorNotReady or timeout_ms passes (timeout_code then). */
typedef cudaError_t (*cuda_query_fn)(void *handle);
aclError cuda_wait_until_done(cuda_query_fn query, void *handle, int32_t timeout_ms,
                              aclError timeout_code);

/* ---- recycling of streams and events (pool.c) ---- */

/* A pool of CUDA handles per device and flavour (a stream's priority, an
 * event's timing), so that programs that make and destroy them per
 * iteration do not pay the driver each time. */
typedef struct handle_pool handle_pool;
handle_pool *cuda_stream_pool(int dev);
handle_pool *cuda_event_pool(int dev, bool timing);
/* A pooled handle of the flavour, or NULL. */
void *pool_take(handle_pool *p, int flavour);
/* False when the pool is full (or p is NULL): the caller destroys. */
bool pool_put(handle_pool *p, void *handle, int flavour, size_t most);

/* ---- stream memory operations and notifies (memops.c, notify.c) ---- */

/* Whether the driver's stream memory operations work on dev: 32-bit ones
 * (need64: 64-bit ones too; need_nor: ACL_STREAM_WAIT_VALUE_NOR). Bare
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT when not. */
aclError cuda_memops_ready(int dev, bool need64, bool need_nor);
/* The stream's fault word (device address), taken on first use. */
aclError cuda_stream_fault_word(backend_stream *s, uint32_t **word);
/* Returns a stream's fault word to the pool (destroy). */
void cuda_stream_fault_release(backend_stream *s);
/* A zeroed word of mapped host memory (the same address on the device)
 * and its serial number (when serial is not NULL), and its return; NULL:
 * out of memory. holds: whether w is still the word handed out with
 * serial. */
uint32_t *cuda_host_word_get(uint64_t *serial);
void cuda_host_word_put(uint32_t *w);
bool cuda_host_word_holds(const uint32_t *w, uint64_t serial);
/* The failure device code left in the stream's fault word, cleared; 0 when
 * none. */
aclError cuda_stream_fault_take(backend_stream *s);
aclError cuda_value_write(backend_stream *s, void *addr, uint64_t value);
aclError cuda_value_wait(backend_stream *s, void *addr, uint64_t value, uint32_t cmp);

/* A wait queued on a stream, as a teardown releases it: the word it waits
 * on, and what makes it true (notify_kernels.cu's aclcuda_wait_release). */
typedef enum wait_kind {
    WAIT_VALUE64, /* aclrtValueWait: cmp is ACL_STREAM_WAIT_VALUE_* */
    WAIT_FLAG32,  /* a plain notify: the word becomes 1 */
    WAIT_COUNT32, /* a counting notify: cmp is ACL_RT_CNT_NOTIFY_WAIT_* */
    WAIT_STOP32,  /* a model's stop word (graph_waits.c): the word becomes 1;
                     value is the word's serial (host_words.c) */
} wait_kind;
typedef struct pending_wait {
    uint64_t addr, value;
    uint32_t kind, cmp;
} pending_wait;
/* Notes a wait just queued on s: in its log, or in the waits of the graph
 * s is captured into. */
void cuda_wait_note(backend_stream *s, wait_kind kind, const void *addr, uint64_t value,
                    uint32_t cmp);
/* Adds w to the log of s, which is not captured. */
void cuda_wait_log_add(backend_stream *s, const pending_wait *w);
/* How many noted waits s has; and the first `count` of them forgotten,
 * once the stream is known to have passed them. */
size_t cuda_waits_noted(backend_stream *s);
void cuda_waits_passed(backend_stream *s, size_t count);
/* The stream's cancel_waits, and its destroy's part. */
void cuda_stream_cancel_waits(backend_stream *s);
void cuda_waits_free(backend_stream *s);

/* ---- notify_kernels.cu's kernels (notify_module.c) ---- */

/* The one-thread kernels of the notifies (counting, timed waits: notify.c)
 * and of a teardown's release of waits (memops.c), in dev's primary
 * context; the first call (or the device's preload) loads them, and each
 * device keeps the error of that one attempt. */
typedef struct cuda_notify_kernels {
    struct CUfunc_st *count, *wait, *release;
} cuda_notify_kernels;
aclError cuda_notify_kernels_get(int dev, const cuda_notify_kernels **out);
/* ---- kernels (module.c, launch.c, builtin.c) and graphs (graph.c) ---- */

/* The driver's handle of a kernel; the library's CUfunction type comes
 * from driver.h, so it travels as a pointer here. */
struct CUfunc_st;
struct CUfunc_st *cuda_function_handle(backend_function *f);
/* Raises a kernel's dynamic shared memory limit when a launch needs it. */
aclError cuda_function_allow_shared(backend_function *f, uint32_t bytes);
aclError cuda_launch(backend_stream *s, const launch_params *p);
aclError cuda_reduce(backend_stream *s, void *dst, const void *src, size_t elements, reduce_op op,
                     reduce_type type);
aclError cuda_random(backend_stream *s, const random_params *p);
/* Queues the one-thread kernel that sets conditional handle cond, of a
 * node of that kind, from the 64-bit word at word (a conditional node's
 * condition, graph.c), or as not taken once the model's stop word is set. */
aclError cuda_set_condition(backend_stream *s, uint64_t cond, const void *word, cond_kind kind);
/* Queues the one-thread kernel that sets *word as sel says (a selection
 * node of a model with stream control flow, graph.c). */
aclError cuda_flow_select(backend_stream *s, uint64_t *word, const flow_select *sel);
aclError cuda_graph_launch(backend_stream *s, backend_graph *g);
/* backend_stream_ops.graph_set_node (graph.c). */
aclError cuda_graph_set_node_ordered(backend_stream *s, backend_graph *g, uint64_t node,
                                     int32_t dev, const node_work *w);

/* ---- the waits inside graphs (graph_waits.c) ---- */

typedef struct graph_wait {
    pending_wait w;
    cudaGraphNode_t node; /* the node it is; NULL in a piece or a launch put into a graph */
    bool disabled;
} graph_wait;
typedef struct graph_waits {
    graph_wait *at;
    size_t count, cap;
} graph_waits;
/* Notes a wait just queued on s in the waits of the graph s is captured
 * into (nothing when that is not a graph of ours). false: s is not
 * captured, the wait is the stream's own. */
bool cuda_capture_wait_note(cudaStream_t s, const pending_wait *w);
/* A CUDA capture may begin: one of ours, or the application's reaching
 * our streams through an event it can record (adopted or exported). */
void cuda_capture_possible(void);
/* Whether s may be in a CUDA capture: none can be before the first
 * cuda_capture_possible, unless the application has the stream. */
bool cuda_capture_may_hold(const backend_stream *s);
/* A capture of ours into graph began: it notes its waits from now on. */
void cuda_graph_waits_begin(cudaGraph_t graph);
/* body (a conditional node's) belongs to parent: its waits count there. */
void cuda_graph_waits_body(cudaGraph_t body, cudaGraph_t parent);
/* The waits noted for graph, taken out of the table (and its bodies'
 * entries dropped); empty when none. */
void cuda_graph_waits_take(cudaGraph_t graph, graph_waits *out);
/* Adds from's waits to those of graph (a piece put into it), their nodes
 * forgotten. */
void cuda_graph_waits_add(cudaGraph_t graph, const graph_waits *from);
void cuda_graph_waits_append(graph_waits *to, const graph_waits *from);
void cuda_graph_waits_free(graph_waits *gw);
/* node now does what from_node of from does (no wait when from is NULL or
 * does not name it). */
void cuda_graph_waits_set_node(graph_waits *gw, cudaGraphNode_t node, const graph_waits *from,
                               cudaGraphNode_t from_node);
void cuda_graph_waits_enable(graph_waits *gw, cudaGraphNode_t node, bool enable);
/* A graph with these waits was launched on s. true: s is captured, and
 * they went to its capture's waits (when that is ours); false: s runs
 * them. */
bool cuda_graph_waits_captured(cudaStream_t s, const graph_waits *gw);
/* The graph being captured on s; NULL when s is not captured, or when
 * that cannot be told. */
cudaGraph_t cuda_capture_graph(cudaStream_t s);
/* The stop word of the graph of ours that s is captured into (its root's,
 * for a conditional body), made on first use and noted among its waits:
 * a teardown sets it, and the graph's conditions then read as not taken
 * (loops end). NULL when there is none. */
const uint32_t *cuda_capture_stop_word(cudaStream_t s);

/* ---- task updates in stream order (graph_ordered.c) ---- */

/* A graph's task-group kernels and their appliers. */
typedef struct graph_appliers graph_appliers;
/* backend_graph_ops.mark_updatable: the node is a task-group kernel. */
aclError cuda_mark_updatable(backend_stream *s, uint64_t node);
/* The capture of graph ended (dev current); when apply, its marked kernels
 * get appliers, before it is instantiated. NULL: none. */
graph_appliers *cuda_updatable_settle(cudaGraph_t graph, bool apply, int dev);
void cuda_appliers_free(graph_appliers *ap);
/* The node changed on the host side (for later launches); ap may be NULL. */
void cuda_appliers_host_changed(graph_appliers *ap, cudaGraphNode_t node);
/* Before each launch of the executable graph on s (the graph's lock held). */
aclError cuda_appliers_prepare(graph_appliers *ap, cudaGraphExec_t exec, backend_stream *s);
/* Queues on s the posting of w to node's mailbox; the graph's lock held.
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT: the node takes it for later launches. */
aclError cuda_appliers_post(graph_appliers *ap, backend_stream *s, uint64_t node,
                            const node_work *w);
/* Ties ptr to the graph being captured on s (release(ptr) runs once the
 * graph and its launches are gone; it must not call CUDA). On failure
 * ptr stays the caller's. */
aclError cuda_capture_keep(cudaStream_t s, void *ptr, void (*release)(void *));

/* ---- device activity for the profiler (cupti.c; backend_diag_ops says what) ---- */

bool cuda_activity_start(void);
void cuda_activity_push(uint64_t call);
void cuda_activity_pop(void);
uint64_t cuda_activity_stream(backend_stream *s);
size_t cuda_activity_flush(backend_activity_sink sink, void *arg);
void cuda_activity_stop(void);

/* ---- the groups of operations, one per file ---- */

extern const backend_device_ops cuda_device_ops;
extern const backend_memory_ops cuda_memory_ops;
extern const backend_stream_ops cuda_stream_ops;
extern const backend_event_ops cuda_event_ops;
extern const backend_notify_ops cuda_notify_ops;
extern const backend_diag_ops cuda_diag_ops;
extern const backend_module_ops cuda_module_ops;
extern const backend_graph_ops cuda_graph_ops;
extern const backend_vmm_ops cuda_vmm_ops;
extern const backend_ipc_ops cuda_ipc_ops;
extern const backend_host_register_ops cuda_host_register_ops;
extern const backend_managed_ops cuda_managed_ops;
extern const backend_pool_ops cuda_pool_ops;
/* Stream operations of mempool.c. */
aclError cuda_pool_alloc_async(backend_stream *s, backend_pool *p, size_t n, void **ptr);
aclError cuda_pool_free_async(backend_stream *s, backend_pool *p, void *ptr, size_t n, int32_t dev);

#endif
