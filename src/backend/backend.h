/* The backend interface: the few primitives a device must provide, in
 * groups by concern. ACL semantics live above (src/core, src/api) and are
 * written once; a backend only moves bytes, orders work and reports
 * completion. Two implementations: cuda/ (the product) and host/ (CPU
 * threads).
 *
 * Rules every backend follows:
 *  - Functions return an aclError (ACL_SUCCESS on success) and never record
 *    an error message: the layers above do.
 *  - A backend never calls up into core or api.
 *  - A NULL group, or a NULL function in a group, means "this backend
 *    cannot do it"; the API layer reports it as
 *    ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 *  - Streams and events live inside the core's objects: the core allocates
 *    `size` bytes for the backend's part and hands that memory to create(),
 *    which initialises it in place. */
#ifndef ACLCUDA_BACKEND_H
#define ACLCUDA_BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#include "acl/acl.h"

typedef struct backend_stream backend_stream;     /* per backend */
typedef struct backend_event backend_event;       /* per backend */
typedef struct backend_module backend_module;     /* a loaded binary, per backend */
typedef struct backend_function backend_function; /* a kernel of one, per backend */
typedef struct backend_graph backend_graph;       /* a captured graph, per backend */
typedef struct backend_notify backend_notify;     /* per backend */
typedef struct backend_phys backend_phys;         /* physical memory (vmm), per backend */
typedef struct backend_pool backend_pool;         /* a memory pool, per backend */
typedef struct backend_import backend_import;     /* memory imported from a process */
typedef struct node_work node_work;               /* new work for a graph's node (below) */

typedef enum copy_dir {
    COPY_HOST_TO_HOST,
    COPY_HOST_TO_DEVICE,
    COPY_DEVICE_TO_HOST,
    COPY_DEVICE_TO_DEVICE,
} copy_dir;

/* What aclrtGetDeviceInfo, aclrtGetSocName and friends report. */
typedef struct device_props {
    char name[256]; /* e.g. "NVIDIA H200" */
    uint8_t uuid[16];
    size_t total_mem;
    int64_t multiprocessors; /* "AI cores" */
    int64_t warp_size;
    int64_t max_threads_per_block;
    int64_t max_threads_per_mp;
    int64_t shared_mem_per_block;
    int64_t l2_cache_size;
    int64_t max_grid[3];
    int64_t max_block[3];
    int32_t pci_bus, pci_device, pci_domain;
    int32_t least_priority, greatest_priority; /* numerically: greatest < least */
    int32_t cc_major, cc_minor;                /* compute capability; 0.0 on the host backend */
    int32_t copy_engines;                      /* engines that copy while kernels run */
} device_props;

/* Per-device limits of aclrtDeviceSetLimit the backend can apply. */
typedef enum device_limit {
    DEVICE_LIMIT_STACK_SIZE,  /* bytes of stack per thread */
    DEVICE_LIMIT_PRINTF_FIFO, /* bytes of the device printf buffer */
} device_limit;

/* How two devices are linked (aclrtGetDevicesTopo). */
typedef enum device_link {
    DEVICE_LINK_NVLINK,      /* a direct high-speed link (NVLink) */
    DEVICE_LINK_PCIE_SWITCH, /* below a common PCIe switch */
    DEVICE_LINK_HOST_BRIDGE, /* through a PCIe host bridge (one CPU socket) */
    DEVICE_LINK_SYSTEM,      /* across CPU sockets */
} device_link;

/* Atomic operations of aclrtDeviceGet*AtomicCapabilities, numbered as
 * ACL (and CUDA) number them; capability bits are ACL's. */
enum { ATOMIC_OPERATION_COUNT = 13 };

typedef void (*host_fn)(void *arg);

/* A kernel launch. The argument buffer is host memory that the call
 * copies: the caller may reuse it as soon as the call returns, as with
 * cuLaunchKernel. (ACL's placeholder data are staged by the core: the
 * buffer already points at them.) */
typedef struct launch_params {
    backend_function *fn;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shared_bytes;
    bool cooperative; /* every block resident at once (ACL's batch scheduling) */
    const void *args;
    size_t args_size;
} launch_params;

/* Element-wise dst = dst op src of aclrtReduceAsync. */
typedef enum reduce_op { REDUCE_SUM, REDUCE_MAX, REDUCE_MIN } reduce_op;
typedef enum reduce_type {
    REDUCE_INT8,
    REDUCE_INT16,
    REDUCE_INT32,
    REDUCE_UINT32,
    REDUCE_FP16,
    REDUCE_BF16,
    REDUCE_FP32,
} reduce_type;

/* A random-number task (aclrtRandomNumAsync), checked by the core. Values
 * and addresses are ACL's aclrtRandomParaInfo, read when the task runs. */
typedef enum random_dist {
    RANDOM_DROPOUT_BITMASK,
    RANDOM_UNIFORM,
    RANDOM_NORMAL,
    RANDOM_TRUNCATED_NORMAL,
} random_dist;

typedef enum random_type {
    RANDOM_INT32,
    RANDOM_INT64,
    RANDOM_UINT32,
    RANDOM_UINT64,
    RANDOM_FP16,
    RANDOM_BF16,
    RANDOM_FP32,
} random_type;

/* One scalar parameter: a value of `size` bytes, or the device address of
 * one (is_addr). Floating-point parameters are of the task's type (FP16 and
 * BF16 as their bits), integer ones of its type, the seed and the count
 * 64-bit unsigned (fewer bytes are zero-extended). */
typedef struct random_scalar {
    bool is_addr;
    uint8_t size;
    uint8_t bytes[8];
} random_scalar;

typedef struct random_params {
    random_dist dist;
    random_type type;
    random_scalar a, b; /* dropout: ratio; uniform: min, max; normal: mean, stddev */
    random_scalar seed, count;
    void *result;
    const void *counter; /* device memory holding the 64-bit Philox offset, or NULL */
} random_params;

/* Process level. probe() is called once; a failure means the backend is
 * unusable on this machine (no driver, no device). Devices are the
 * backend's own indices. */
typedef struct backend_device_ops {
    aclError (*probe)(void);
    int32_t (*count)(void);
    aclError (*props)(int32_t dev, device_props *props);
    aclError (*mem_info)(int32_t dev, size_t *free_bytes, size_t *total_bytes);
    /* Peer access between devices (0/1); enabling twice is not an error. */
    aclError (*can_access_peer)(int32_t dev, int32_t peer, int32_t *can);
    aclError (*enable_peer)(int32_t dev, int32_t peer);
    aclError (*disable_peer)(int32_t dev, int32_t peer);
    /* Makes dev the calling thread's device for code outside this library
     * too (a CUDA program launching its own kernels on our streams). */
    aclError (*make_current)(int32_t dev);
    /* aclrtDeviceSetLimit / GetLimit, applied to dev. NULL: none. */
    aclError (*set_limit)(int32_t dev, device_limit limit, size_t value);
    aclError (*get_limit)(int32_t dev, device_limit limit, size_t *value);
    /* For each operation (0 .. ATOMIC_OPERATION_COUNT-1), ACL's capability
     * bits, between dev and the host (peer < 0) or dev and peer. */
    aclError (*atomic_caps)(int32_t dev, int32_t peer, const int *ops, uint32_t *caps,
                            uint32_t count);
    /* How dev and peer (dev != peer) are linked. */
    aclError (*link)(int32_t dev, int32_t peer, device_link *link);
    /* Loads into dev's context the device code the backend launches on its
     * own, when the device is opened: loading code may wait for the whole
     * context (CUDA's lazy loading), which a stream held by a host function
     * would never let finish. A failure is kept for the launches that need
     * the code. NULL: nothing to load. */
    void (*prepare)(int32_t dev);
} backend_device_ops;

/* Memory the backend knows of without ACL having allocated it: another
 * allocator of the same process (torch, CuPy, cudaMalloc, a memory pool, a
 * virtual memory mapping). Device memory is reported only where it is
 * mapped. base and size: the range that holds the pointer, as the driver
 * reports it (an allocation, or a whole reserved range of which only parts
 * may be mapped); where the driver cannot tell, from the pointer to the
 * top of the address space. */
typedef enum foreign_kind {
    FOREIGN_NONE,        /* not memory the backend knows */
    FOREIGN_DEVICE,      /* device memory (managed memory too) of device dev */
    FOREIGN_HOST_PINNED, /* page-locked host memory */
} foreign_kind;

typedef struct foreign_memory {
    foreign_kind kind;
    int32_t dev;
    uintptr_t base;
    size_t size;
    bool whole; /* the range is one allocation, mapped throughout */
} foreign_memory;

/* Allocation and the synchronous copies. All copies take plain pointers
 * whose direction the caller resolved. src_pinned: the source is
 * page-locked memory from malloc_host. The synchronous calls neither wait
 * for nor hold up queued stream work. Memory freed (free_device,
 * free_host, managed free) is never handed out again while work queued
 * before the free may still touch it: the free waits for that work
 * (free_waits_for_device), or the backend holds the memory back until it
 * has run. */
typedef struct backend_memory_ops {
    /* The frees wait for the device's queued work, as cudaFree does: the
     * core parks frees made where that work cannot go on (memory.c). */
    bool free_waits_for_device;
    /* 0, or the unit in which another process maps shared device memory:
     * an importer maps the whole allocation, in blocks of this size that a
     * smaller allocation shares with others (cudaIpcOpenMemHandle). The core
     * then rounds allocations of at least this size up to a multiple of it,
     * so each owns its blocks, and exports only whole allocations. */
    size_t share_block;
    aclError (*malloc_device)(int32_t dev, void **ptr, size_t size);
    aclError (*free_device)(int32_t dev, void *ptr);
    aclError (*malloc_host)(void **ptr, size_t size); /* page-locked */
    aclError (*free_host)(void *ptr);
    aclError (*memcpy_sync)(int32_t dev, void *dst, const void *src, size_t n, copy_dir dir,
                            bool src_pinned);
    aclError (*memcpy2d_sync)(int32_t dev, void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, copy_dir dir, bool src_pinned);
    aclError (*memset_sync)(int32_t dev, void *ptr, uint8_t value, size_t n, bool on_device);
    /* count 32-bit words of value from ptr (4-byte aligned). */
    aclError (*memset32_sync)(int32_t dev, void *ptr, uint32_t value, size_t count, bool on_device);
    /* Optional (NULL: the backend knows no memory but what it allocated for
     * ACL): what ptr is to the backend. Asked only for pointers outside
     * ACL's own allocations; never fails, answering FOREIGN_NONE instead. */
    void (*pointer_info)(const void *ptr, foreign_memory *out);
    /* Optional: whether ptr lies where the backend places device memory,
     * allocated or not (so a stale device pointer is not taken for host
     * memory). NULL where device memory is not host memory. */
    bool (*device_address)(const void *ptr);
} backend_memory_ops;

/* One copy of a batch: plain pointers, the direction resolved. */
typedef struct batch_copy {
    void *dst;
    const void *src;
    size_t n;
} batch_copy;

/* Whether a copy of n bytes from src to dst, addresses read when it runs,
 * touches only memory a device may: the core's answer from its registry
 * (logging why not). */
typedef bool (*indirect_check_fn)(uint64_t dst, uint64_t src, uint64_t n);

/* A copy whose addresses are read from device memory when it runs (the
 * "second-level pointer" copies): it copies count bytes (*count_slot when
 * count_slot is set), at most dest_max, from *src_slot + src_offset to
 * *dst_slot + dst_offset. The slots are 64-bit words in device memory.
 * With dst_slot NULL nothing is copied: the source range (src_slot may
 * then be NULL too, src_offset being the address) is prefetched into the
 * device's cache, where the backend has one. A backend that reads the
 * addresses on the host asks check (when set) first, and for a range it
 * refuses, or one that wraps, copies nothing and fails the stream with
 * ACL_ERROR_RT_SYS_DMA; a GPU reads them itself, and its MMU judges them. */
typedef struct indirect_copy {
    const uint64_t *dst_slot, *src_slot, *count_slot;
    uint64_t dst_offset, src_offset, count, dest_max;
    indirect_check_fn check;
} indirect_copy;

/* Where managed memory is advised to live or is prefetched to:
 * ACL's aclrtMemManagedLocationType values, id the backend device (host
 * types ignore it). */
typedef struct managed_location {
    int32_t type;
    int32_t id;
} managed_location;

/* Streams. priority: smaller is higher, within device_props' range.
 * synchronize: timeout_ms -1 = forever, >= 0 = limit, expiry returns
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT. destroy does not wait: queued work
 * still completes, and events recorded on the stream stay valid; `idle`
 * says the caller knows nothing is queued (the stream may then be
 * recycled).
 *
 * The stream-ordered functions below are called by the core's
 * stream_submit only. host_func runs fn(arg) on a backend thread once all
 * earlier work on s is done; later work on s waits until fn returned; fn
 * must not call the backend for s itself. record captures the work queued
 * on s so far (recording again re-captures); wait makes later work on s
 * wait for e's latest record. */
typedef struct backend_stream_ops {
    size_t size;
    aclError (*create)(backend_stream *s, int32_t dev, int32_t priority);
    void (*destroy)(backend_stream *s, bool idle);
    aclError (*synchronize)(backend_stream *s, int32_t timeout_ms);
    aclError (*query)(backend_stream *s, bool *complete);
    /* The native object (cudaStream_t), NULL where the backend has none. */
    void *(*native)(backend_stream *s);
    /* Optional (NULL: the backend has no native streams): makes s stand for
     * an existing native stream, which it does not own (destroy leaves it
     * alone). dev is the device the caller expects; *native_dev receives
     * the device the native stream belongs to (dev where the backend cannot
     * tell, or for a handle that means "the current device's", such as
     * CUDA's legacy stream), *priority its priority in the backend's range.
     * s is initialised even when *native_dev differs from dev. */
    aclError (*adopt)(backend_stream *s, int32_t dev, void *native, int32_t *native_dev,
                      int32_t *priority);

    aclError (*memcpy_async)(backend_stream *s, void *dst, const void *src, size_t n, copy_dir dir);
    aclError (*memcpy2d_async)(backend_stream *s, void *dst, size_t dpitch, const void *src,
                               size_t spitch, size_t width, size_t height, copy_dir dir);
    aclError (*memset_async)(backend_stream *s, void *ptr, uint8_t value, size_t n, bool on_device);
    aclError (*record)(backend_stream *s, backend_event *e);
    aclError (*wait)(backend_stream *s, backend_event *e);
    /* Only while s is captured (ACL_EVENT_RECORD_EXTERNAL and
     * ACL_EVENT_WAIT_EXTERNAL): a node of the graph that, each time the
     * graph runs, records e (a record made at the launch, at the node's
     * place in the graph) or waits for e's latest record as of the launch.
     * e outlives the graph (the core holds it). NULL: cannot. */
    aclError (*record_external)(backend_stream *s, backend_event *e);
    aclError (*wait_external)(backend_stream *s, backend_event *e);
    aclError (*host_func)(backend_stream *s, host_fn fn, void *arg);
    /* Optional (NULL: host_func): as host_func, except that fn may also run
     * on a thread that synchronizes s without a limit, when fn is next and
     * nothing of s runs (aclcudaLaunchHostFuncAnyThread). */
    aclError (*host_func_any_thread)(backend_stream *s, host_fn fn, void *arg);
    /* Stream memory operations on a 64-bit word: a write (ordered after
     * earlier work), and a wait until the word compares true with value
     * (cmp: ACL_STREAM_WAIT_VALUE_GEQ, EQ, AND or NOR). */
    aclError (*value_write)(backend_stream *s, void *addr, uint64_t value);
    aclError (*value_wait)(backend_stream *s, void *addr, uint64_t value, uint32_t cmp);

    /* Not stream-ordered. abort: the stream no longer owes anything queued
     * so far (backends say what becomes of it), but what *owes says it
     * still runs (host functions the host backend keeps), and stays
     * usable; work queued afterwards runs normally. NULL: cannot. */
    aclError (*abort)(backend_stream *s, bool *owes);
    /* Kernels and built-in tasks; NULL where the backend lacks them. */
    aclError (*launch)(backend_stream *s, const launch_params *p);
    aclError (*reduce)(backend_stream *s, void *dst, const void *src, size_t elements, reduce_op op,
                       reduce_type type);
    aclError (*random)(backend_stream *s, const random_params *p);
    /* Runs a captured graph (one replay) in stream order. */
    aclError (*graph_launch)(backend_stream *s, backend_graph *g);

    /* Optional (NULL: the backend cannot). */
    aclError (*memset32_async)(backend_stream *s, void *ptr, uint32_t value, size_t count,
                               bool on_device);
    /* The copies of one batch, all in direction dir, in any order; the
     * array is the caller's until the call returns. */
    aclError (*memcpy_batch_async)(backend_stream *s, const batch_copy *copies, size_t count,
                                   copy_dir dir);
    aclError (*memcpy_indirect_async)(backend_stream *s, const indirect_copy *copy);
    /* Managed memory: moves [ptr, ptr + n) towards loc; the batch form
     * takes each range's location. */
    aclError (*prefetch_async)(backend_stream *s, const void *ptr, size_t n, managed_location loc);
    /* Stream-ordered pool memory: alloc returns the address at once, valid
     * for work queued after it; free returns the n bytes at ptr to their
     * pool once the work queued before it is done (pool NULL: ptr is
     * malloc_device memory of backend device dev, which is freed then). */
    aclError (*pool_alloc_async)(backend_stream *s, backend_pool *pool, size_t n, void **ptr);
    aclError (*pool_free_async)(backend_stream *s, backend_pool *pool, void *ptr, size_t n,
                                int32_t dev);
    /* Not stream-ordered, for a teardown: every wait queued on s so far
     * (value and notify waits; the host backend's event waits and the waits
     * inside models too), running or not yet begun, ends without its
     * condition, and s goes on past it; waits queued afterwards are not
     * affected. The work queued around them still runs. */
    void (*cancel_waits)(backend_stream *s);
    /* Optional: node `node` of g (backend device dev) takes the work w
     * (a kernel launch) in s's order: every run of g
     * that reaches the node after s did, a run launched before included,
     * runs w; w is read by the call. g stays alive until then (the caller
     * holds it). ACL_ERROR_RT_FEATURE_NOT_SUPPORT when the node cannot be
     * changed this way (graph_ops.set_node can change it for later runs). */
    aclError (*graph_set_node)(backend_stream *s, backend_graph *g, uint64_t node, int32_t dev,
                               const node_work *w);
} backend_stream_ops;

/* Events. A new event may still carry a record from an earlier life (the
 * cuda backend recycles events), so callers track whether it was recorded
 * since it was created. destroy never blocks. synchronize expiry returns
 * ACL_ERROR_RT_EVENT_SYNC_TIMEOUT. elapsed needs both events created with
 * timing and completed; it returns ACL_ERROR_RT_EVENT_NOT_COMPLETE while
 * either is pending. */
typedef struct backend_event_ops {
    size_t size;
    aclError (*create)(backend_event *e, int32_t dev, bool timing);
    void (*destroy)(backend_event *e);
    aclError (*query)(backend_event *e, bool *complete);
    aclError (*synchronize)(backend_event *e, int32_t timeout_ms);
    aclError (*elapsed)(backend_event *start, backend_event *end, float *ms);
    /* The native object (cudaEvent_t), NULL where the backend has none. */
    void *(*native)(backend_event *e);
    /* When e's latest record completed, in microseconds of the backend's
     * clock (CLOCK_MONOTONIC on both). Timing events only;
     * ACL_ERROR_RT_EVENT_NOT_COMPLETE while pending. */
    aclError (*timestamp)(backend_event *e, uint64_t *us);
    /* Optional (NULL: the backend has no native events): makes e stand for
     * an existing native event of device dev, which it does not own
     * (destroy leaves it alone). Its state is the native event's own. */
    aclError (*adopt)(backend_event *e, int32_t dev, void *native);
} backend_event_ops;

/* Notifies: a flag word (plain notifies: a record sets it, a wait waits for
 * it and clears it) or a 32-bit counter (counting notifies), in memory the
 * device reads. Like events, they live inside the core's objects (`size`
 * bytes). A queued wait whose timeout (seconds, 0: none) expires lets its
 * stream go on, and the stream's next synchronize reports
 * ACL_ERROR_RT_TASK_TIMEOUT. record, wait, count and count_wait are
 * stream-ordered and called by stream_submit only. Shared notifies: the
 * host backend keeps its word at `at->word` (memory shared between
 * processes); the cuda backend describes its device word in `blob`
 * (NOTIFY_BLOB_SIZE bytes), which open() in another process maps. What
 * another process maps holds that word and nothing else of this one's;
 * share returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT where that takes moving
 * the word and stream work already uses it where it is (cuda). */
enum { NOTIFY_BLOB_SIZE = 128 };
/* The shared memory of a shared notify's word, and how it goes back. A
 * successful share or open takes it: the backend calls release(owner)
 * once neither the notify nor any work queued or captured with it can
 * touch the word, which may be long after destroy (a queued wait); a
 * backend that does not keep its word there (cuda) calls it at once. A
 * failed one leaves it the caller's. */
typedef struct backend_shared_word {
    _Atomic uint32_t *word;
    void (*release)(void *owner);
    void *owner;
} backend_shared_word;
typedef struct backend_notify_ops {
    size_t size;
    aclError (*create)(backend_notify *n, int32_t dev);
    void (*destroy)(backend_notify *n);
    /* Clears it now, from the host. */
    aclError (*reset)(backend_notify *n);
    aclError (*record)(backend_stream *s, backend_notify *n);
    aclError (*wait)(backend_stream *s, backend_notify *n, uint32_t timeout_s);
    /* Counting: mode and cmp are ACL's aclrtCntNotifyRecordMode and
     * aclrtCntNotifyWaitMode; clear resets the value once the wait ends. */
    aclError (*count)(backend_stream *s, backend_notify *n, uint32_t mode, uint32_t value);
    aclError (*count_wait)(backend_stream *s, backend_notify *n, uint32_t cmp, uint32_t value,
                           uint32_t timeout_s, bool clear);
    aclError (*share)(backend_notify *n, const backend_shared_word *at, void *blob);
    aclError (*open)(backend_notify *n, int32_t dev, const backend_shared_word *at,
                     const void *blob, bool peer_access);
} backend_notify_ops;

/* Work of the device as a device profiler saw it (CUPTI on cuda): what
 * backend_diag_ops.activity_flush hands over. */
typedef enum backend_activity_kind {
    ACTIVITY_KERNEL,
    ACTIVITY_COPY,
    ACTIVITY_FILL,
    ACTIVITY_SYNC,  /* a stream waiting for an event (device side of a wait) */
    ACTIVITY_EVENT, /* an event recorded: begin == end, when the device reached it */
    ACTIVITY_API,   /* a call into the native runtime or driver, on a host thread */
} backend_activity_kind;

enum { ACTIVITY_STREAM_ANY_DEVICE = 0xffffffffu };

typedef struct backend_activity {
    backend_activity_kind kind;
    uint64_t call; /* the id activity_push gave the calling thread then, 0: none */
    /* As activity_stream names the stream: the device in the high half
     * (ACTIVITY_STREAM_ANY_DEVICE where the profiler did not say); API
     * calls: 0. */
    uint64_t stream;
    uint32_t thread;          /* API calls: the native runtime's thread id */
    bool in_graph;            /* part of a graph launch */
    int64_t begin_ns, end_ns; /* CLOCK_MONOTONIC (util/clock.h) */
    const char *name; /* a kernel's or an API function's name, NULL: none; valid during the sink */
} backend_activity;

typedef void (*backend_activity_sink)(void *arg, const backend_activity *a);

/* Diagnostics: profiling marks, device activity and process snapshots. */
typedef struct backend_diag_ops {
    /* A mark on the profiler's timeline (NVTX on cuda); NULL where no
     * profiler can see one. */
    void (*mark)(const char *text, uint64_t payload);
    /* Ranges on the same timeline, NULL where there is none: push and pop
     * nest on the calling thread; start gives an id that end takes, on any
     * thread. */
    void (*range_push)(const char *text);
    void (*range_pop)(void);
    uint64_t (*range_start)(const char *text);
    void (*range_end)(uint64_t id);
    /* Process snapshots of pid (the calling process): stop device work
     * and API calls, save device state to the host, restore it, resume.
     * NULL: the backend cannot. */
    aclError (*snapshot_lock)(int pid);
    aclError (*snapshot_backup)(int pid);
    aclError (*snapshot_restore)(int pid);
    aclError (*snapshot_unlock)(int pid);
    /* Device activity, NULL where the backend has no device profiler: the
     * device's own times of the work queued while it runs, so that the
     * core's profiler need not stamp each task on its stream. start: false
     * (a one-line note logged once) when the profiler cannot run; the core
     * then stamps. While it runs, push tags the work the calling thread
     * queues until the matching pop with call (pushes nest). stream: the
     * name activities give a stream's work. flush: hands every activity
     * complete so far to sink, on the calling thread, and answers how many.
     * stop: collects no more and forgets the tags. */
    bool (*activity_start)(void);
    void (*activity_push)(uint64_t call);
    void (*activity_pop)(void);
    uint64_t (*activity_stream)(backend_stream *s);
    size_t (*activity_flush)(backend_activity_sink sink, void *arg);
    void (*activity_stop)(void);
} backend_diag_ops;
/* Binaries and their kernels. A binary is what the backend runs: cubin,
 * fatbin or PTX (cuda), an ELF shared object (host). Modules are loaded on
 * one device; functions belong to their module and go with it. */
typedef struct backend_module_ops {
    /* Loads an image (size bytes). A binary the backend cannot run is
     * refused with ACL_ERROR_INVALID_PARAM and *why set to a short static
     * description of what it is instead. lazy: load on first use. */
    aclError (*load)(int32_t dev, const void *image, size_t size, bool lazy, backend_module **out,
                     const char **why);
    void (*unload)(backend_module *m);
    /* ACL_ERROR_RT_SYMBOL_NOT_FOUND when there is no such kernel/global. */
    aclError (*function)(backend_module *m, const char *name, backend_function **out);
    aclError (*global)(backend_module *m, const char *name, void **dptr, size_t *size);
    /* The image in device memory (copied there on first request). */
    aclError (*image)(backend_module *m, void **addr, size_t *size);
    /* The kernel's entry (an address, or an opaque value that identifies the
     * kernel) and the size of its code, 0 when unknown. */
    aclError (*code)(backend_function *f, void **entry, size_t *size);
    /* Parameter index's offset and size in the packed buffer;
     * ACL_ERROR_RT_PARAM_INVALID past the last one,
     * ACL_ERROR_RT_FEATURE_NOT_SUPPORT when the kernel does not say. */
    aclError (*param)(backend_function *f, size_t index, size_t *offset, size_t *size);
    /* Most threads a block of the kernel may have, and most bytes of
     * dynamic shared memory a block of it may ask for. */
    aclError (*max_block_threads)(backend_function *f, int32_t dev, uint32_t *threads);
    aclError (*max_dynamic_shared)(backend_function *f, int32_t dev, size_t *bytes);
    /* The kernel behind a host-side symbol of the application (a __global__
     * function of an nvcc program, a host kernel function), kept for the
     * process lifetime; and the address and size of a device variable. */
    aclError (*symbol_function)(const void *symbol, int32_t dev, backend_function **out,
                                const char **name);
    aclError (*symbol_address)(const void *symbol, int32_t dev, void **dptr, size_t *size);
} backend_module_ops;

/* Stream capture into graphs. The core decides what may be captured and
 * keeps ACL's bookkeeping (which streams capture into which model); the
 * backend records. Work queued on a capturing stream through the stream
 * operations is recorded, not run. A wait on an event recorded by a
 * capturing stream makes the waiting stream join that capture. */
/* What a node of a captured graph is given anew (set_node): the work of
 * one launch, random-number task, value write or value wait. */
typedef enum node_work_kind {
    NODE_WORK_KERNEL,
    NODE_WORK_RANDOM,
    NODE_WORK_VALUE_WRITE,
    NODE_WORK_VALUE_WAIT,
} node_work_kind;

typedef struct node_work {
    node_work_kind kind;
    union {
        const launch_params *launch;
        const random_params *random;
        struct {
            void *addr;
            uint64_t value;
            uint32_t cmp; /* waits: as value_wait's */
        } value;
    } u;
} node_work;

typedef enum cond_kind { COND_IF, COND_WHILE, COND_SWITCH } cond_kind;

/* What a selection node of a model with stream control flow writes to its
 * 64-bit word (backend_graph_ops.add_select), each time a run reaches it:
 * a constant; min(*index, count - 1), index pointing at a uint32_t in
 * device memory (a label switch's branch); bit min(*index, count - 1) of
 * the mask in value (count at most 64: whether a jump goes back to a
 * loop's head); or 1 when *left compares true with *right (cmp: an
 * aclrtCondition; int64_t operands when wide, else int32_t), else 0. */
typedef enum flow_select_kind {
    FLOW_SELECT_CONSTANT,
    FLOW_SELECT_INDEX,
    FLOW_SELECT_MASK,
    FLOW_SELECT_COMPARE,
} flow_select_kind;

typedef struct flow_select {
    flow_select_kind kind;
    uint32_t count;
    uint32_t cmp;
    bool wide;
    uint64_t value;
    const void *index, *left, *right;
} flow_select;

typedef struct backend_graph_ops {
    aclError (*capture_begin)(backend_stream *s);
    /* Ends the capture begun on s; every joined stream must have been
     * waited for by s (ACL_ERROR_RT_STREAM_UNJOINED otherwise). discard:
     * the capture was invalidated, nothing is kept (*out NULL). */
    aclError (*capture_end)(backend_stream *s, bool discard, backend_graph **out);
    /* The node the last work captured on s became (for task groups and
     * task lists), an opaque value. */
    aclError (*capture_last_node)(backend_stream *s, uint64_t *node);
    /* Ties ptr to the graph being captured on s: release(ptr) runs once the
     * graph and every run of it are gone, on any thread, and must not call
     * the backend. */
    aclError (*capture_keep)(backend_stream *s, void *ptr, void (*release)(void *));
    /* Never blocks; a graph still running is freed once it finished. */
    void (*destroy)(backend_graph *g);
    /* Whether a graph's launch (backend_stream_ops.graph_launch) may be
     * queued on a captured stream, into the graph being captured. */
    bool launch_captured;
    /* How many nodes it has, and the kind of each (for debug prints). */
    aclError (*nodes)(backend_graph *g, size_t *count, const char **kinds, size_t max);
    /* Gives node `target` of g the parameters of node `source` of update
     * (same kind: kernel, copy or fill); ACL_ERROR_RT_MODEL_UPDATE_FAILED
     * when they cannot be exchanged. */
    aclError (*update_node)(backend_graph *g, uint64_t target, backend_graph *update,
                            uint64_t source);
    /* Enables or disables one node for later launches. */
    aclError (*enable_node)(backend_graph *g, uint64_t node, bool enable);
    /* Optional, while s is captured: `node`, a kernel node of the graph
     * being captured, will take new work in stream order
     * (backend_stream_ops.graph_set_node). An error (or NULL): it cannot,
     * and set_node remains. */
    aclError (*mark_updatable)(backend_stream *s, uint64_t node);
    /* Gives node `node` of g (backend device dev) the work w describes,
     * of the node's own kind, for later launches (runs already started
     * keep what they had). ACL_ERROR_RT_MODEL_UPDATE_FAILED when the node
     * cannot take it. */
    aclError (*set_node)(backend_graph *g, uint64_t node, int32_t dev, const node_work *w);

    /* Conditional nodes (aclmdlRIAddCondTask). cond_create makes a
     * condition of the graph being captured on s (opaque; 0 where the
     * backend needs none). add_cond adds, after s's work so far, a node
     * that reads the 64-bit word at `word` (device memory) when a run
     * reaches it: IF runs bodies[0] when it is not 0, else bodies[1] (size
     * 2); WHILE runs bodies[0] as long as it is not 0, reading it again
     * after each run; SWITCH runs bodies[value] when value < size. The
     * bodies (size of them, written to bodies[]) start empty, are filled
     * by captures begun with capture_begin_into, belong to the graph being
     * captured, and are never launched on their own; destroy frees a
     * body's handle only. */
    aclError (*cond_create)(backend_stream *s, uint32_t default_value, bool assign_default,
                            uint64_t *out);
    aclError (*add_cond)(backend_stream *s, uint64_t cond, const void *word, cond_kind kind,
                         uint32_t size, backend_graph **bodies);
    aclError (*capture_begin_into)(backend_stream *s, backend_graph *body);
    /* Ends it; discard: what was recorded may stay in the body, whose
     * graph the caller then gives up. */
    aclError (*capture_end_into)(backend_stream *s, backend_graph *body, bool discard);
    /* Stops g's runs (aclmdlRIAbort): the ones not begun do nothing, the
     * one running stops after its current node. NULL: cannot. */
    aclError (*abort)(backend_graph *g);

    /* Models with stream control flow (aclrtActiveStream, aclrtSwitchStream,
     * labels: core/graph_flow*.c). Each stream's work between two control
     * tasks is captured as a piece, and the model's graph is put together
     * from pieces, selections and conditional nodes once its build ends,
     * node by node: a node is an opaque value, deps are the nodes a new
     * one follows (none: it starts with its graph). NULL: the backend has
     * no such models. */
    /* Ends the capture begun on s (capture_begin) as capture_end does, but
     * keeps the graph as a piece: not runnable until finish, open to the
     * nodes below; *end is a node of it that follows all its work. */
    aclError (*capture_end_piece)(backend_stream *s, bool discard, backend_graph **out,
                                  uint64_t *end);
    /* A node of g that runs piece, which has no conditional node and which
     * the caller keeps until g is destroyed. */
    aclError (*add_child)(backend_graph *g, const uint64_t *deps, size_t ndeps,
                          backend_graph *piece, uint64_t *node);
    /* A node of g that sets *word (device memory) as sel says. */
    aclError (*add_select)(backend_graph *g, const uint64_t *deps, size_t ndeps, uint64_t *word,
                           const flow_select *sel, uint64_t *node);
    /* A conditional node of g, as add_cond's (word read when a run reaches
     * it); its bodies start empty and take nodes through these functions. */
    aclError (*add_cond_node)(backend_graph *g, const uint64_t *deps, size_t ndeps,
                              const uint64_t *word, cond_kind kind, uint32_t size,
                              backend_graph **bodies, uint64_t *node);
    /* The end of a WHILE body of add_cond_node: the word is read again
     * after deps, for the next round. */
    aclError (*loop_end)(backend_graph *body, const uint64_t *deps, size_t ndeps);
    /* Ties ptr to g (not a body) as capture_keep ties it to a capture's. */
    aclError (*keep)(backend_graph *g, void *ptr, void (*release)(void *));
    /* Makes a piece the runnable graph of a model. */
    aclError (*finish)(backend_graph *g);
} backend_graph_ops;

/* Virtual memory: reserved address ranges, physical memory and mappings.
 * Locations: host true = host memory, else device dev. page is ACL's page
 * type of the memory (NORMAL_PAGE_TYPE, HUGE_PAGE_TYPE, HUGE1G_PAGE_TYPE).
 * Sizes and addresses are multiples of the granularity (the core checks). */
typedef struct vmm_access {
    bool host; /* the host, else device dev */
    int32_t dev;
    uint32_t flags; /* ACL's aclrtMemAccessFlags */
    bool owner;     /* the location of the memory itself */
} vmm_access;

typedef struct backend_vmm_ops {
    aclError (*granularity)(bool host, int32_t dev, uint32_t page, bool recommended,
                            size_t *granularity);
    /* dev: the caller's device (for the driver's context). */
    aclError (*reserve)(int32_t dev, void **va, size_t size, size_t alignment, void *expect);
    aclError (*release)(void *va, size_t size);
    aclError (*create)(backend_phys **phys, size_t size, bool host, int32_t dev, uint32_t page);
    /* Drops the creator's reference; mappings keep the memory alive. */
    void (*destroy)(backend_phys *phys);
    /* Maps phys at va; accessible: readable and writable at once by
     * access_dev (the memory's device, or the caller's for host memory)
     * and, for host memory, by the host. */
    aclError (*map)(void *va, size_t size, backend_phys *phys, bool accessible, int32_t access_dev);
    aclError (*unmap)(void *va, size_t size);
    aclError (*set_access)(void *va, size_t size, const vmm_access *access, size_t count);
    /* A file descriptor (the caller's to close) that another process can
     * import, and the import of one (the descriptor stays the caller's). */
    aclError (*export_fd)(backend_phys *phys, int *fd);
    aclError (*import_fd)(int fd, size_t size, bool host, int32_t dev, uint32_t page,
                          backend_phys **phys);
} backend_vmm_ops;

/* Sharing between processes. The blob is what the importer needs besides
 * the file descriptor (which may be -1 where the backend needs none). */
enum { IPC_BLOB_MAX = 128 };
typedef struct backend_ipc_ops {
    /* Makes size bytes at base + offset of device dev's memory importable;
     * base is the start of the allocation (aclrtMalloc's address). */
    aclError (*mem_export)(int32_t dev, void *base, size_t offset, size_t size, void *blob,
                           size_t *blob_len, int *fd);
    /* Maps what mem_export described; *ptr is where the memory appears, and
     * *mapped how many bytes from there the mapping holds (whatever the
     * exporter claims elsewhere: the blob comes from another process). */
    aclError (*mem_import)(int32_t dev, const void *blob, size_t blob_len, int fd, void **ptr,
                           size_t *mapped, backend_import **imp);
    void (*mem_close)(backend_import *imp);
    /* Events another process can wait for: create one, describe it, and
     * open a description (the creating process records it, others wait). */
    aclError (*event_create)(backend_event *e, int32_t dev);
    aclError (*event_export)(backend_event *e, void *blob, size_t *blob_len, int *fd);
    aclError (*event_open)(backend_event *e, int32_t dev, const void *blob, size_t blob_len,
                           int fd);
} backend_ipc_ops;

/* Host memory made reachable by the device. dev: the caller's device
 * (the registration itself serves every device). */
typedef struct backend_host_register_ops {
    /* flags: ACL_HOST_REG_MAPPED / ACL_HOST_REG_PINNED /
     * ACL_HOST_REG_READONLY (the device only reads it) of a range of
     * ordinary (pageable) process memory. */
    aclError (*register_range)(int32_t dev, void *ptr, size_t size, uint32_t flags);
    aclError (*unregister_range)(int32_t dev, void *ptr);
    /* The device's address of registered or page-locked host memory (an
     * address inside such a range gives the matching address). */
    aclError (*device_pointer)(int32_t dev, void *ptr, void **dev_ptr);
    /* Whether the device's compute units can reach mapped host memory. */
    aclError (*can_map)(int32_t dev, bool *can);
} backend_host_register_ops;

/* Managed memory (one address on the host and every device). The core
 * keeps the advice given (what aclrtMemManagedGetAttr answers); the
 * backend passes it on to whatever migrates the pages. */
typedef struct backend_managed_ops {
    aclError (*alloc)(int32_t dev, void **ptr, size_t size);
    aclError (*free)(int32_t dev, void *ptr);
    /* advice: ACL's aclrtMemManagedAdviseType; loc.id a backend device,
     * or a NUMA node; HOST_NUMA_CURRENT is resolved by the caller. */
    aclError (*advise)(const void *ptr, size_t size, int32_t advice, managed_location loc);
} backend_managed_ops;

/* Memory pools for stream-ordered allocation of device memory
 * (pool_alloc_async and pool_free_async are stream operations). attr:
 * ACL's aclrtMemPoolAttr, each value as a uint64_t (the core checks them;
 * it keeps the used-memory counts itself). destroy drops the creator's
 * reference: frees still queued return their memory to the backend. An
 * allocation beyond max_size fails with ACL_ERROR_RT_MEMORY_ALLOCATION. */
typedef struct backend_pool_ops {
    aclError (*create)(backend_pool **pool, int32_t dev, size_t max_size);
    void (*destroy)(backend_pool *pool);
    /* Releases idle memory until the pool holds at most keep bytes. */
    aclError (*trim)(backend_pool *pool, size_t keep);
    aclError (*set_attr)(backend_pool *pool, int32_t attr, uint64_t value);
    aclError (*get_attr)(backend_pool *pool, int32_t attr, uint64_t *value);
} backend_pool_ops;

typedef struct backend_ops {
    const char *name; /* "cuda" or "host" */
    const backend_device_ops *device;
    const backend_memory_ops *memory;
    const backend_stream_ops *stream;
    const backend_event_ops *event;
    const backend_notify_ops *notify;
    const backend_diag_ops *diag;
    const backend_module_ops *module; /* NULL: no kernels */
    const backend_graph_ops *graph;   /* NULL: no capture */
    /* Optional groups (NULL: not supported by this backend). */
    const backend_vmm_ops *vmm;
    const backend_ipc_ops *ipc;
    const backend_host_register_ops *host_register;
    const backend_managed_ops *managed;
    const backend_pool_ops *pool;
} backend_ops;

extern const backend_ops backend_host_ops;
#ifdef ACLCUDA_HAVE_CUDA
extern const backend_ops backend_cuda_ops;
#endif

/* The backend chosen for this process (ACLCUDA_BACKEND=cuda|host|auto),
 * selected on first use. Never NULL. Every ACL call asks, so the answer
 * is one load once chosen. */
extern const backend_ops *_Atomic backend_in_use;
const backend_ops *backend_choose(void);

static inline const backend_ops *backend(void)
{
    const backend_ops *in_use = atomic_load_explicit(&backend_in_use, memory_order_acquire);
    return in_use ? in_use : backend_choose();
}
/* backend(), for code that holds an object of the backend (a stream, an
 * event): one was chosen before it was made, and the holder's lookup of it
 * ordered that choice before this load. No call, so a caller's values in
 * memory need not be read again after it. */
static inline const backend_ops *backend_chosen(void)
{
    return atomic_load_explicit(&backend_in_use, memory_order_relaxed);
}
/* False when ACLCUDA_BACKEND=cuda was asked for but cannot work: the
 * process then has no devices. */
bool backend_usable(void);

#endif
