/* The few primitives a device must provide. ACL semantics live above this
 * table (the src/ files) and are written once; a backend only moves bytes, orders
 * work and reports completion. Two implementations: backend_cuda.c and
 * backend_host.c. Every function returns an aclError code (ACL_SUCCESS on
 * success) and never records an error message itself: the caller does. */
#ifndef ACLCUDA_BACKEND_H
#define ACLCUDA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "acl/acl.h"

/* The clock of every timeout and spin deadline, in both layers. */
static inline int64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

typedef struct backend_stream backend_stream; /* opaque, per backend */
typedef struct backend_event backend_event;   /* opaque, per backend */

typedef enum copy_dir {
    COPY_HOST_TO_HOST,
    COPY_HOST_TO_DEVICE,
    COPY_DEVICE_TO_HOST,
    COPY_DEVICE_TO_DEVICE,
} copy_dir;

/* What aclrtGetDeviceInfo, aclrtGetSocName and friends report. */
typedef struct device_props {
    char name[256];            /* e.g. "NVIDIA H200" */
    uint8_t uuid[16];
    size_t total_mem;
    int64_t multiprocessors;   /* "AI cores" */
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

typedef struct backend_ops {
    const char *name; /* "cuda" or "host" */

    /* Process level. probe() is called once; a failure means the backend is
     * unusable on this machine (no driver, no device). */
    aclError (*probe)(void);
    int32_t (*device_count)(void);
    aclError (*device_props)(int32_t dev, device_props *props);
    aclError (*mem_info)(int32_t dev, size_t *free_bytes, size_t *total_bytes);
    /* Peer access between physical devices (0/1). */
    aclError (*can_access_peer)(int32_t dev, int32_t peer, int32_t *can);
    aclError (*enable_peer)(int32_t dev, int32_t peer);
    aclError (*disable_peer)(int32_t dev, int32_t peer);
    /* Makes dev the calling thread's device for code outside this library
     * too (a CUDA program launching its own kernels on our streams). */
    aclError (*make_current)(int32_t dev);

    /* Memory. Device allocations are made on `dev`; all copies take plain
     * pointers whose direction the caller already resolved. src_pinned: the
     * source is page-locked memory from malloc_host. */
    aclError (*malloc_device)(int32_t dev, void **ptr, size_t size);
    aclError (*free_device)(int32_t dev, void *ptr);
    aclError (*malloc_host)(void **ptr, size_t size); /* page-locked */
    aclError (*free_host)(void *ptr);
    aclError (*memcpy_sync)(int32_t dev, void *dst, const void *src, size_t n, copy_dir dir,
                            bool src_pinned);
    aclError (*memcpy_async)(backend_stream *s, void *dst, const void *src, size_t n, copy_dir dir);
    aclError (*memcpy2d_sync)(int32_t dev, void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, copy_dir dir, bool src_pinned);
    aclError (*memcpy2d_async)(backend_stream *s, void *dst, size_t dpitch, const void *src,
                               size_t spitch, size_t width, size_t height, copy_dir dir);
    aclError (*memset_sync)(int32_t dev, void *ptr, uint8_t value, size_t n, bool on_device);
    aclError (*memset_async)(backend_stream *s, void *ptr, uint8_t value, size_t n, bool on_device);

    /* Streams. priority: smaller is higher, within device_props' range.
     * synchronize: timeout_ms -1 = forever, >= 0 = limit, expiry returns
     * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT. destroy does not wait: queued work
     * still completes, and events recorded on the stream stay valid. */
    aclError (*stream_create)(int32_t dev, int32_t priority, backend_stream **out);
    aclError (*stream_destroy)(backend_stream *s);
    aclError (*stream_synchronize)(backend_stream *s, int32_t timeout_ms);
    aclError (*stream_query)(backend_stream *s, bool *complete);
    aclError (*stream_wait_event)(backend_stream *s, backend_event *e);
    /* Runs fn(arg) on a backend thread once all earlier work on s is done;
     * later work on s waits until fn returned. fn must not call the backend
     * for s itself. */
    aclError (*launch_host_func)(backend_stream *s, host_fn fn, void *arg);

    /* Events. A new event may still carry a record from an earlier life (the
     * cuda backend reuses destroyed events), so callers track whether it was
     * recorded since it was created. record captures the work queued on s
     * so far; recording again re-captures. destroy never blocks.
     * synchronize expiry returns ACL_ERROR_RT_EVENT_SYNC_TIMEOUT. elapsed
     * needs both events created with timing and completed; it returns
     * ACL_ERROR_RT_EVENT_NOT_COMPLETE while either is pending. */
    aclError (*event_create)(int32_t dev, bool timing, backend_event **out);
    aclError (*event_destroy)(backend_event *e);
    aclError (*event_record)(backend_event *e, backend_stream *s);
    aclError (*event_query)(backend_event *e, bool *complete);
    aclError (*event_synchronize)(backend_event *e, int32_t timeout_ms);
    aclError (*event_elapsed)(backend_event *start, backend_event *end, float *ms);

    /* Interop: the native object behind a handle (cudaStream_t, cudaEvent_t),
     * NULL where the backend has none. */
    void *(*stream_native)(backend_stream *s);
    void *(*event_native)(backend_event *e);
} backend_ops;

extern const backend_ops backend_host_ops;
#ifdef ACLCUDA_HAVE_CUDA
extern const backend_ops backend_cuda_ops;
#endif

/* The backend chosen for this process (ACLCUDA_BACKEND=cuda|host|auto),
 * selected on first use. Never NULL. */
const backend_ops *backend(void);

#endif
