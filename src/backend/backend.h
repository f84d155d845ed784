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

typedef struct backend_stream backend_stream; /* per backend */
typedef struct backend_event backend_event;   /* per backend */
typedef struct backend_phys backend_phys;     /* physical memory (vmm), per backend */
typedef struct backend_pool backend_pool;     /* a memory pool, per backend */
typedef struct backend_import backend_import; /* memory imported from a process */

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
} device_props;

typedef void (*host_fn)(void *arg);

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
} backend_device_ops;

/* Allocation and the synchronous copies. All copies take plain pointers
 * whose direction the caller resolved. src_pinned: the source is
 * page-locked memory from malloc_host. The synchronous calls neither wait
 * for nor hold up queued stream work. */
typedef struct backend_memory_ops {
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
} backend_memory_ops;

/* One copy of a batch: plain pointers, the direction resolved. */
typedef struct batch_copy {
    void *dst;
    const void *src;
    size_t n;
} batch_copy;

/* A copy whose addresses are read from device memory when it runs (the
 * "second-level pointer" copies): it copies count bytes (*count_slot when
 * count_slot is set), at most dest_max, from *src_slot + src_offset to
 * *dst_slot + dst_offset. The slots are 64-bit words in device memory.
 * With dst_slot NULL nothing is copied: the source range (src_slot may
 * then be NULL too, src_offset being the address) is prefetched into the
 * device's cache, where the backend has one. */
typedef struct indirect_copy {
    const uint64_t *dst_slot, *src_slot, *count_slot;
    uint64_t dst_offset, src_offset, count, dest_max;
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

    aclError (*memcpy_async)(backend_stream *s, void *dst, const void *src, size_t n, copy_dir dir);
    aclError (*memcpy2d_async)(backend_stream *s, void *dst, size_t dpitch, const void *src,
                               size_t spitch, size_t width, size_t height, copy_dir dir);
    aclError (*memset_async)(backend_stream *s, void *ptr, uint8_t value, size_t n, bool on_device);
    aclError (*record)(backend_stream *s, backend_event *e);
    aclError (*wait)(backend_stream *s, backend_event *e);
    aclError (*host_func)(backend_stream *s, host_fn fn, void *arg);

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
} backend_event_ops;

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
    /* Maps what mem_export described; *ptr is where the memory appears. */
    aclError (*mem_import)(int32_t dev, const void *blob, size_t blob_len, int fd, void **ptr,
                           backend_import **imp);
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
    /* flags: ACL_HOST_REG_MAPPED / ACL_HOST_REG_PINNED of a range of
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
/* False when ACLCUDA_BACKEND=cuda was asked for but cannot work: the
 * process then has no devices. */
bool backend_usable(void);

#endif
