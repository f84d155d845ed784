/* The cuda backend's streams: every one is a non-blocking CUDA stream, as
 * ACL streams (default ones included) never synchronise implicitly with
 * each other, and each stream-ordered operation is one CUDA call. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

/* A destroyed stream with nothing left to run, whose CUDA handle never went
 * to the application, is as good as a new one of its priority. */
enum { STREAM_POOL_MAX = 64 };

static cudaError_t query_stream(void *handle)
{
    return cudaStreamQuery((cudaStream_t)handle);
}

static aclError cuda_stream_create(backend_stream *s, int32_t dev, int32_t priority)
{
    s->dev = dev;
    s->priority = priority;
    atomic_init(&s->exported, false);
    s->retired = NULL;
    atomic_init(&s->fault, NULL);
    atomic_init(&s->waits, NULL);
    s->s = pool_take(cuda_stream_pool(dev), priority);
    if (s->s)
        return ACL_SUCCESS;
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaStreamCreateWithPriority(&s->s, cudaStreamNonBlocking, priority));
}

/* cudaStreamDestroy returns at once; queued work still runs and events
 * recorded on the stream stay valid. */
static void cuda_stream_destroy(backend_stream *s, bool idle)
{
    cuda_stream_fault_release(s);
    cuda_waits_free(s);
    if (s->retired)
        (void)check(cudaStreamDestroy(s->retired));
    if (s->adopted)
        return; /* the application's */
    if (idle && !atomic_load_explicit(&s->exported, memory_order_relaxed) &&
        pool_put(cuda_stream_pool(s->dev), s->s, s->priority, STREAM_POOL_MAX))
        return;
    (void)check(cudaStreamDestroy(s->s));
}

/* A failure that device code reported in the stream's fault word (a notify
 * wait that timed out) is reported once the stream is done. */
/* Once the stream is done, the waits noted before are passed, if the
 * stream an abort retired (which may hold some) is done too. */
static void waits_passed(backend_stream *s, size_t noted)
{
    if (noted == 0)
        return;
    cudaError_t err = s->retired ? cudaStreamQuery(s->retired) : cudaSuccess;
    if (err == cudaSuccess)
        cuda_waits_passed(s, noted);
    else if (err != cudaErrorNotReady)
        (void)cudaGetLastError();
}

static aclError cuda_stream_synchronize(backend_stream *s, int32_t timeout_ms)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t noted = cuda_waits_noted(s);
    if (timeout_ms < 0)
        rc = check(cudaStreamSynchronize(s->s));
    else
        rc = cuda_wait_until_done(query_stream, s->s, timeout_ms, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    if (rc != ACL_SUCCESS)
        return rc;
    waits_passed(s, noted);
    return cuda_stream_fault_take(s);
}

static aclError cuda_stream_query(backend_stream *s, bool *complete)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t noted = cuda_waits_noted(s);
    cudaError_t err = cudaStreamQuery(s->s);
    if (err == cudaSuccess || err == cudaErrorNotReady) {
        *complete = err == cudaSuccess;
        if (*complete)
            waits_passed(s, noted);
        return ACL_SUCCESS;
    }
    return check(err);
}

static void *cuda_stream_native(backend_stream *s)
{
    atomic_store_explicit(&s->exported, true, memory_order_relaxed);
    return s->s;
}

/* An application's stream, wrapped without being owned. Its device comes
 * from CUDA (cudaStreamGetDevice, drivers of CUDA 12.8 and newer); the
 * per-device handles, and any stream where the driver cannot tell, are
 * taken to be on dev. */
static aclError cuda_stream_adopt(backend_stream *s, int32_t dev, void *native, int32_t *native_dev,
                                  int32_t *priority)
{
    cudaStream_t cs = native;
    s->s = cs;
    s->dev = dev;
    s->adopted = true;
    atomic_init(&s->exported, true);
    atomic_init(&s->waits, NULL);
    *native_dev = dev;
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (cs != NULL && cs != cudaStreamLegacy && cs != cudaStreamPerThread) {
        int owner;
        cudaError_t err = cudaStreamGetDevice(cs, &owner);
        if (err == cudaSuccess)
            *native_dev = owner;
        else if (err == cudaErrorInvalidResourceHandle || err == cudaErrorContextIsDestroyed)
            return check(err);
        else
            (void)cudaGetLastError(); /* an older driver: trust the caller */
    }
    int p = 0;
    rc = check(cudaStreamGetPriority(cs, &p));
    s->priority = p;
    *priority = p;
    return rc;
}

/* ---- stream-ordered work ------------------------------------------------------ */

static aclError cuda_memcpy_async(backend_stream *s, void *dst, const void *src, size_t n,
                                  copy_dir dir)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMemcpyAsync(dst, src, n, memcpy_kind(dir), s->s));
}

static aclError cuda_memcpy2d_async(backend_stream *s, void *dst, size_t dpitch, const void *src,
                                    size_t spitch, size_t width, size_t height, copy_dir dir)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(
        cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, memcpy_kind(dir), s->s));
}

/* A memset of host memory in stream order: CUDA's memset functions only
 * take device memory, so the stream runs this on its host-function thread. */
typedef struct host_memset {
    void *ptr;
    size_t n;
    uint8_t value;
    bool captured; /* the graph owns the job: it runs once per replay */
} host_memset;

static void run_host_memset(void *arg)
{
    host_memset *job = arg;
    memset(job->ptr, job->value, job->n);
    if (!job->captured)
        free(job);
}

static aclError cuda_memset_async(backend_stream *s, void *ptr, uint8_t value, size_t n,
                                  bool on_device)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (on_device)
        return check(cudaMemsetAsync(ptr, value, n, s->s));

    host_memset *job = malloc(sizeof *job);
    if (job == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *job = (host_memset){.ptr = ptr, .n = n, .value = value};
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if ((rc = check(cudaStreamIsCapturing(s->s, &status)))) {
        free(job);
        return rc;
    }
    if (status == cudaStreamCaptureStatusActive) {
        if ((rc = cuda_capture_keep(s->s, job, free))) {
            free(job);
            return rc;
        }
        job->captured = true;
    }
    rc = check(cudaLaunchHostFunc(s->s, run_host_memset, job));
    if (rc != ACL_SUCCESS && !job->captured)
        free(job);
    return rc;
}

/* 32-bit words of device memory (the core sets host memory itself). */
static aclError cuda_memset32_async(backend_stream *s, void *ptr, uint32_t value, size_t count,
                                    bool on_device)
{
    if (!on_device)
        return ACL_ERROR_RT_PARAM_INVALID;
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!driver_ready() || !drv.cuMemsetD32Async)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return from_cu(drv.cuMemsetD32Async((CUdeviceptr)(uintptr_t)ptr, value, count, (CUstream)s->s));
}

/* The arrays cudaMemcpyBatchAsync takes, per thread, grown as needed. */
static _Thread_local struct {
    void **dsts;
    const void **srcs;
    size_t *sizes;
    size_t cap;
} batch_arrays;

static bool batch_reserve(size_t count)
{
    if (count <= batch_arrays.cap)
        return true;
    size_t cap = batch_arrays.cap ? batch_arrays.cap : 256;
    while (cap < count)
        cap *= 2;
    void **d = realloc(batch_arrays.dsts, cap * sizeof *d);
    if (d)
        batch_arrays.dsts = d;
    const void **sr = d ? realloc(batch_arrays.srcs, cap * sizeof *sr) : NULL;
    if (sr)
        batch_arrays.srcs = sr;
    size_t *sz = sr ? realloc(batch_arrays.sizes, cap * sizeof *sz) : NULL;
    if (!sz)
        return false;
    batch_arrays.sizes = sz;
    batch_arrays.cap = cap;
    return true;
}

/* One cudaMemcpyBatchAsync (CUDA 12.8 and later), else a copy at a time. */
static aclError cuda_memcpy_batch_async(backend_stream *s, const batch_copy *copies, size_t count,
                                        copy_dir dir)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
#if CUDART_VERSION >= 12080
    if (!batch_reserve(count))
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    for (size_t i = 0; i < count; i++) {
        batch_arrays.dsts[i] = copies[i].dst;
        batch_arrays.srcs[i] = copies[i].src;
        batch_arrays.sizes[i] = copies[i].n;
    }
    struct cudaMemcpyAttributes attr = {.srcAccessOrder = cudaMemcpySrcAccessOrderStream};
    struct cudaMemLocation host = {.type = cudaMemLocationTypeHost},
                           device = {.type = cudaMemLocationTypeDevice, .id = s->dev};
    attr.srcLocHint = dir == COPY_HOST_TO_DEVICE ? host : device;
    attr.dstLocHint = dir == COPY_HOST_TO_DEVICE ? device : host;
    size_t attr_index = 0;
#if CUDART_VERSION >= 13000
    return check(cudaMemcpyBatchAsync(batch_arrays.dsts, (const void *const *)batch_arrays.srcs,
                                      batch_arrays.sizes, count, &attr, &attr_index, 1, s->s));
#else
    size_t fail_index;
    return check(cudaMemcpyBatchAsync(batch_arrays.dsts, (const void **)batch_arrays.srcs,
                                      batch_arrays.sizes, count, &attr, &attr_index, 1, &fail_index,
                                      s->s));
#endif
#else
    for (size_t i = 0; i < count; i++) {
        rc = check(
            cudaMemcpyAsync(copies[i].dst, copies[i].src, copies[i].n, memcpy_kind(dir), s->s));
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
#endif
}

static aclError cuda_memcpy_indirect_async(backend_stream *s, const indirect_copy *copy)
{
    return cuda_launch_indirect_copy(s->dev, s->s, copy);
}

/* ACL's managed locations as CUDA's. */
struct cudaMemLocation cuda_managed_location(managed_location loc)
{
    struct cudaMemLocation l = {.type = cudaMemLocationTypeDevice, .id = loc.id};
    switch (loc.type) {
    case ACL_MEM_LOCATIONTYPE_HOST:
        l.type = cudaMemLocationTypeHost;
        l.id = 0;
        break;
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA:
        l.type = cudaMemLocationTypeHostNuma;
        break;
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT:
        l.type = cudaMemLocationTypeHostNumaCurrent;
        l.id = 0;
        break;
    default:
        break;
    }
    return l;
}

static aclError cuda_prefetch_async(backend_stream *s, const void *ptr, size_t n,
                                    managed_location loc)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
#if CUDART_VERSION >= 13000
    return check(cudaMemPrefetchAsync(ptr, n, cuda_managed_location(loc), 0, s->s));
#else
    int target = loc.type == ACL_MEM_LOCATIONTYPE_DEVICE ? loc.id : cudaCpuDeviceId;
    return check(cudaMemPrefetchAsync(ptr, n, target, s->s));
#endif
}

static aclError cuda_record(backend_stream *s, backend_event *e)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaEventRecord(e->e, s->s));
    if (rc == ACL_SUCCESS) {
        atomic_store_explicit(&e->reused, false, memory_order_relaxed);
        if (e->timing)
            cuda_event_recorded(e);
    }
    return rc;
}

static aclError cuda_wait(backend_stream *s, backend_event *e)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The application may record its events in a capture of its own,
     * which this wait then draws s into. */
    if (e->adopted || atomic_load_explicit(&e->exported, memory_order_relaxed))
        cuda_capture_possible();
    return check(cudaStreamWaitEvent(s->s, e->e, 0));
}

/* s is being captured: CUDA makes an event record node and an event wait
 * node of these, which act at each launch of the graph. */
static aclError cuda_record_external(backend_stream *s, backend_event *e)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaEventRecordWithFlags(e->e, s->s, cudaEventRecordExternal));
    if (rc == ACL_SUCCESS)
        atomic_store_explicit(&e->reused, false, memory_order_relaxed);
    return rc;
}

static aclError cuda_wait_external(backend_stream *s, backend_event *e)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaStreamWaitEvent(s->s, e->e, cudaEventWaitExternal));
}

static aclError cuda_host_func(backend_stream *s, host_fn fn, void *arg)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaLaunchHostFunc(s->s, fn, arg));
}

/* CUDA cannot take back work once queued. So the ACL stream moves on to a
 * fresh CUDA stream of its priority, and the old one is retired: what was
 * queued there still runs (or, for a wait that is never satisfied, stays
 * pending), but the ACL stream no longer waits for it. Events recorded
 * there stay valid. A stream whose CUDA handle went to the application
 * (aclcudaGetNativeStream) cannot be swapped. */
static aclError cuda_stream_abort(backend_stream *s, bool *owes)
{
    *owes = false; /* the retired stream's work is no longer the stream's */
    if (atomic_load_explicit(&s->exported, memory_order_relaxed))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = use_device_checked(s->dev);
    cudaStream_t fresh;
    if (rc == ACL_SUCCESS)
        rc = check(cudaStreamCreateWithPriority(&fresh, cudaStreamNonBlocking, s->priority));
    if (rc != ACL_SUCCESS)
        return rc;
    cudaStream_t old = s->s;
    s->s = fresh;
    if (s->retired)
        (void)check(cudaStreamDestroy(s->retired));
    s->retired = old; /* destroyed at the next abort or with the stream */
    (void)cuda_stream_fault_take(s);
    return ACL_SUCCESS;
}

const backend_stream_ops cuda_stream_ops = {
    .size = sizeof(backend_stream),
    .create = cuda_stream_create,
    .destroy = cuda_stream_destroy,
    .synchronize = cuda_stream_synchronize,
    .query = cuda_stream_query,
    .native = cuda_stream_native,
    .adopt = cuda_stream_adopt,
    .memcpy_async = cuda_memcpy_async,
    .memcpy2d_async = cuda_memcpy2d_async,
    .memset_async = cuda_memset_async,
    .record = cuda_record,
    .wait = cuda_wait,
    .record_external = cuda_record_external,
    .wait_external = cuda_wait_external,
    .host_func = cuda_host_func,
    .value_write = cuda_value_write,
    .value_wait = cuda_value_wait,
    .abort = cuda_stream_abort,
    .launch = cuda_launch,
#ifdef ACLCUDA_HAVE_BUILTIN_KERNELS
    .reduce = cuda_reduce,
    .random = cuda_random,
#endif
    .graph_launch = cuda_graph_launch,
    .graph_set_node = cuda_graph_set_node_ordered,
    .memset32_async = cuda_memset32_async,
    .memcpy_batch_async = cuda_memcpy_batch_async,
    .memcpy_indirect_async = cuda_memcpy_indirect_async,
    .prefetch_async = cuda_prefetch_async,
    .pool_alloc_async = cuda_pool_alloc_async,
    .pool_free_async = cuda_pool_free_async,
    .cancel_waits = cuda_stream_cancel_waits,
};
