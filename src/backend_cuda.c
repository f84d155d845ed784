/* The "cuda" backend: each backend op is one CUDA runtime call or a few.
 * Compiled with a plain C compiler against the runtime API only (no kernels)
 * and linked with the static cudart, so the library still loads where no
 * driver is installed; probe() then fails and the host backend is chosen.
 *
 * Current device. The CUDA current device is per thread, while ACL objects
 * remember their device. Ops that create objects or allocate make the
 * object's device current first. Each thread caches the device it last set
 * so that hot paths compare an integer instead of calling cudaSetDevice;
 * slow paths ask the runtime (cudaGetDevice) as well, because application
 * code using the CUDA interop may switch devices behind our back. Record,
 * wait, query and synchronize never switch: CUDA accepts them from any
 * current device (a record needs event and stream on the same device, which
 * is the caller's rule too).
 *
 * Default stream. Every stream made here is non-blocking, as ACL streams
 * (default ones included) never synchronise implicitly with each other. The
 * synchronous copies and memsets run on CUDA's legacy stream 0 of the
 * current device: the legacy stream does not order against non-blocking
 * streams, so an aclrtMemcpy never waits for (or holds up) queued ACL work,
 * which is ACL's documented behaviour. It does order against blocking
 * streams an application made itself through raw CUDA, and sync copies from
 * several threads to one device queue behind each other there. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "backend.h"

/* Creating and destroying CUDA streams and events costs microseconds in the
 * driver, and programs make them per iteration. Destroyed ones are kept in
 * pools, per device and flavour, and handed out again (see the stream and
 * event sections for when one may be). The link is the first member of
 * what is pooled. */
typedef struct pool_link {
    struct pool_link *next;
    int32_t flavour; /* what a taker asks for: a stream's priority */
} pool_link;

typedef struct pool {
    pthread_mutex_t lock;
    pool_link *head;
    size_t count;
} pool;

/* Synchronizing a stream costs a driver round trip (1.5 us on the H200 VM)
 * even when it is empty, and aclrtDestroyStream synchronizes. So each
 * stream counts the work queued through this backend, and remembers the
 * count its last successful synchronize covered: when nothing was queued
 * since, synchronize and query answer without the driver. Once the CUDA
 * stream has been handed to the application (aclcudaGetNativeStream), work
 * may reach it behind our back and every synchronize asks the driver. */
struct backend_stream {
    pool_link link;
    cudaStream_t s;
    int dev;
    atomic_uint_fast64_t queued; /* submissions, counted after each one */
    atomic_uint_fast64_t done;   /* the count a synchronize saw complete */
    atomic_bool exported;
};

struct backend_event {
    pool_link link;
    cudaEvent_t e;
    int dev;
    bool timing;
    atomic_bool exported;   /* the CUDA handle went to the application */
    atomic_bool reused;     /* from the pool and not recorded since: may carry an old record */
};

/* ---- errors ------------------------------------------------------------- */

/* The one place a CUDA error becomes an ACL code. */
static aclError from_cuda(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return ACL_SUCCESS;

    case cudaErrorInvalidValue:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidHostPointer:
    case cudaErrorPeerAccessNotEnabled:
    case cudaErrorPeerAccessAlreadyEnabled:
        return ACL_ERROR_RT_PARAM_INVALID;

    case cudaErrorMemoryAllocation:
        return ACL_ERROR_RT_MEMORY_ALLOCATION;

    case cudaErrorInvalidDevice:
        return ACL_ERROR_RT_INVALID_DEVICEID;

    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
        return ACL_ERROR_RT_NO_DEVICE;

    case cudaErrorNotSupported:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorPeerAccessUnsupported:
    case cudaErrorCompatNotSupportedOnDevice:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;

    case cudaErrorNotPermitted:
        return ACL_ERROR_RT_NO_PERMISSION;

    case cudaErrorNotReady:
        return ACL_ERROR_RT_EVENT_NOT_COMPLETE;

    case cudaErrorInvalidResourceHandle:
    case cudaErrorContextIsDestroyed:
        return ACL_ERROR_RT_INVALID_HANDLE;

    case cudaErrorTooManyPeers:
        return ACL_ERROR_RT_OVER_LIMIT;

    /* A kernel (ours never, an interop user's perhaps) faulted: the context
     * is unusable, as after an AI core exception. */
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
        return ACL_ERROR_RT_AICORE_EXCEPTION;

    case cudaErrorLaunchTimeout:
        return ACL_ERROR_RT_AICORE_TIMEOUT;

    case cudaErrorECCUncorrectable:
        return ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR;

    case cudaErrorNvlinkUncorrectable:
        return ACL_ERROR_RT_LINK_ERROR;

    default:
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
}

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

/* ---- work counted per stream (see struct backend_stream) ------------------ */

/* Counts a submission to s. After the CUDA call: a synchronize that reads
 * the count before this store began before the call returned, and so need
 * not cover it. */
static aclError submitted(backend_stream *s, cudaError_t err)
{
    atomic_fetch_add_explicit(&s->queued, 1, memory_order_release);
    return check(err);
}

/* True when everything counted so far is known complete. */
static bool known_idle(backend_stream *s, uint_fast64_t *queued)
{
    *queued = atomic_load_explicit(&s->queued, memory_order_acquire);
    return !atomic_load_explicit(&s->exported, memory_order_relaxed) &&
           atomic_load_explicit(&s->done, memory_order_acquire) == *queued;
}

static void mark_done(backend_stream *s, uint_fast64_t queued)
{
    uint_fast64_t seen = atomic_load_explicit(&s->done, memory_order_relaxed);
    while (seen < queued &&
           !atomic_compare_exchange_weak_explicit(&s->done, &seen, queued, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

/* ---- current device ------------------------------------------------------ */

/* The device this thread last made current through this file, -1 unknown. */
static _Thread_local int tls_device = -1;

static aclError set_device(int dev)
{
    cudaError_t err = cudaSetDevice(dev);
    if (err != cudaSuccess) {
        tls_device = -1;
        return check(err);
    }
    tls_device = dev;
    return ACL_SUCCESS;
}

/* Hot paths: trusts the cache. */
static inline aclError use_device(int dev)
{
    if (__builtin_expect(tls_device == dev, 1))
        return ACL_SUCCESS;
    return set_device(dev);
}

/* Slow paths (creation, allocation, sync copies): also right after the
 * application switched devices itself. */
static aclError use_device_checked(int dev)
{
    int cur;
    cudaError_t err = cudaGetDevice(&cur);
    if (err == cudaSuccess && cur == dev) {
        tls_device = dev;
        return ACL_SUCCESS;
    }
    if (err != cudaSuccess)
        (void)cudaGetLastError();
    return set_device(dev);
}

static aclError cuda_make_current(int32_t dev)
{
    return use_device_checked(dev);
}

/* ---- process level --------------------------------------------------------- */

/* Properties are asked for often and never change: each device's are
 * queried once, under props_lock, and published through `ready`. */
typedef struct props_slot {
    atomic_bool ready;
    device_props props;
} props_slot;

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static aclError probe_result = ACL_ERROR_RT_NO_DEVICE;
static int device_total;
static props_slot *props_cache;
static pthread_mutex_t props_lock = PTHREAD_MUTEX_INITIALIZER;

static void probe_run(void)
{
    int count = 0;
    /* Without a driver the static runtime fails here instead of crashing. */
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count <= 0) {
        (void)cudaGetLastError();
        probe_result = ACL_ERROR_RT_NO_DEVICE;
        return;
    }
    props_cache = calloc((size_t)count, sizeof *props_cache);
    if (props_cache == NULL) {
        probe_result = ACL_ERROR_RT_MEMORY_ALLOCATION;
        return;
    }
    device_total = count;
    probe_result = ACL_SUCCESS;
}

static aclError cuda_probe(void)
{
    pthread_once(&probe_once, probe_run);
    return probe_result;
}

static int32_t cuda_device_count(void)
{
    pthread_once(&probe_once, probe_run);
    return device_total;
}

/* The priority range is a property of a context, so it is read with dev
 * current (which initialises dev's primary context), and the thread's
 * previous device is restored afterwards. */
static aclError query_priority_range(int dev, int *least, int *greatest)
{
    int prev;
    cudaError_t err = cudaGetDevice(&prev);
    if (err != cudaSuccess)
        return check(err);
    if (prev != dev) {
        err = cudaSetDevice(dev);
        if (err != cudaSuccess)
            return check(err);
    }
    err = cudaDeviceGetStreamPriorityRange(least, greatest);
    if (prev != dev) {
        cudaError_t back = cudaSetDevice(prev);
        tls_device = back == cudaSuccess ? prev : -1;
        if (err == cudaSuccess)
            err = back;
    }
    return check(err);
}

static aclError query_props(int dev, device_props *p)
{
    struct cudaDeviceProp cp;
    cudaError_t err = cudaGetDeviceProperties(&cp, dev);
    if (err != cudaSuccess)
        return check(err);
    int least, greatest;
    aclError rc = query_priority_range(dev, &least, &greatest);
    if (rc != ACL_SUCCESS)
        return rc;

    memset(p, 0, sizeof *p);
    memcpy(p->name, cp.name, sizeof p->name - 1);
    p->name[sizeof p->name - 1] = '\0';
    memcpy(p->uuid, cp.uuid.bytes, sizeof p->uuid);
    p->total_mem = cp.totalGlobalMem;
    p->multiprocessors = cp.multiProcessorCount;
    p->warp_size = cp.warpSize;
    p->max_threads_per_block = cp.maxThreadsPerBlock;
    p->max_threads_per_mp = cp.maxThreadsPerMultiProcessor;
    p->shared_mem_per_block = (int64_t)cp.sharedMemPerBlock;
    p->l2_cache_size = cp.l2CacheSize;
    for (int i = 0; i < 3; i++) {
        p->max_grid[i] = cp.maxGridSize[i];
        p->max_block[i] = cp.maxThreadsDim[i];
    }
    p->pci_bus = cp.pciBusID;
    p->pci_device = cp.pciDeviceID;
    p->pci_domain = cp.pciDomainID;
    p->least_priority = least;
    p->greatest_priority = greatest;
    return ACL_SUCCESS;
}

static aclError cuda_device_props(int32_t dev, device_props *props)
{
    if (dev < 0 || dev >= cuda_device_count())
        return ACL_ERROR_RT_INVALID_DEVICEID;
    props_slot *slot = &props_cache[dev];
    if (!atomic_load_explicit(&slot->ready, memory_order_acquire)) {
        aclError rc = ACL_SUCCESS;
        pthread_mutex_lock(&props_lock);
        if (!atomic_load_explicit(&slot->ready, memory_order_relaxed)) {
            rc = query_props(dev, &slot->props);
            if (rc == ACL_SUCCESS)
                atomic_store_explicit(&slot->ready, true, memory_order_release);
        }
        pthread_mutex_unlock(&props_lock);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    *props = slot->props;
    return ACL_SUCCESS;
}

static aclError cuda_mem_info(int32_t dev, size_t *free_bytes, size_t *total_bytes)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMemGetInfo(free_bytes, total_bytes));
}

static aclError cuda_can_access_peer(int32_t dev, int32_t peer, int32_t *can)
{
    int value = 0;
    aclError rc = check(cudaDeviceCanAccessPeer(&value, dev, peer));
    if (rc == ACL_SUCCESS)
        *can = value ? 1 : 0;
    return rc;
}

/* Enabling twice is not an error here: the second call changes nothing. */
static aclError cuda_enable_peer(int32_t dev, int32_t peer)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    cudaError_t err = cudaDeviceEnablePeerAccess(peer, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
        return ACL_SUCCESS;
    }
    return check(err);
}

static aclError cuda_disable_peer(int32_t dev, int32_t peer)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaDeviceDisablePeerAccess(peer));
}

/* ---- memory ------------------------------------------------------------------ */

static aclError cuda_malloc_device(int32_t dev, void **ptr, size_t size)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMalloc(ptr, size));
}

/* cudaFree waits for the device's queued work before it returns, so memory
 * still used by a stream is never handed out again under it. */
static aclError cuda_free_device(int32_t dev, void *ptr)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaFree(ptr));
}

/* Portable: pinned for every device's context, not only the current one. */
static aclError cuda_malloc_host(void **ptr, size_t size)
{
    return check(cudaHostAlloc(ptr, size, cudaHostAllocPortable));
}

static aclError cuda_free_host(void *ptr)
{
    return check(cudaFreeHost(ptr));
}

static enum cudaMemcpyKind memcpy_kind(copy_dir dir)
{
    switch (dir) {
    case COPY_HOST_TO_HOST:
        return cudaMemcpyHostToHost;
    case COPY_HOST_TO_DEVICE:
        return cudaMemcpyHostToDevice;
    case COPY_DEVICE_TO_HOST:
        return cudaMemcpyDeviceToHost;
    case COPY_DEVICE_TO_DEVICE:
        return cudaMemcpyDeviceToDevice;
    }
    return cudaMemcpyDefault;
}

/* cudaMemcpy may return before the data has landed when the destination is
 * device memory (device-to-device copies, and pageable host-to-device ones
 * once the source is staged; from page-locked memory it returns after), and
 * cudaMemset on device memory always may.
 * ACL's synchronous copy promises the data is in place, and later work on
 * a non-blocking stream would not wait for the legacy stream, so wait for
 * the legacy stream here. It holds only sync copies (see the top). */
static aclError finish_on_legacy_stream(void)
{
    return check(cudaStreamSynchronize(cudaStreamLegacy));
}

static bool may_land_later(copy_dir dir, bool src_pinned)
{
    return (dir == COPY_HOST_TO_DEVICE && !src_pinned) || dir == COPY_DEVICE_TO_DEVICE;
}

static aclError cuda_memcpy_sync(int32_t dev, void *dst, const void *src, size_t n, copy_dir dir,
                                 bool src_pinned)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaMemcpy(dst, src, n, memcpy_kind(dir)));
    if (rc != ACL_SUCCESS || !may_land_later(dir, src_pinned))
        return rc;
    return finish_on_legacy_stream();
}

static aclError cuda_memcpy_async(backend_stream *s, void *dst, const void *src, size_t n,
                                  copy_dir dir)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return submitted(s, cudaMemcpyAsync(dst, src, n, memcpy_kind(dir), s->s));
}

static aclError cuda_memcpy2d_sync(int32_t dev, void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height, copy_dir dir,
                                   bool src_pinned)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, memcpy_kind(dir)));
    if (rc != ACL_SUCCESS || !may_land_later(dir, src_pinned))
        return rc;
    return finish_on_legacy_stream();
}

static aclError cuda_memcpy2d_async(backend_stream *s, void *dst, size_t dpitch, const void *src,
                                    size_t spitch, size_t width, size_t height, copy_dir dir)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return submitted(s, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                          memcpy_kind(dir), s->s));
}

static aclError cuda_memset_sync(int32_t dev, void *ptr, uint8_t value, size_t n, bool on_device)
{
    if (!on_device) {
        memset(ptr, value, n);
        return ACL_SUCCESS;
    }
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check(cudaMemset(ptr, value, n));
    if (rc != ACL_SUCCESS)
        return rc;
    return finish_on_legacy_stream();
}

/* A memset of host memory in stream order: CUDA's memset functions only
 * take device memory, so the stream runs this on its host-function thread. */
typedef struct host_memset {
    void *ptr;
    size_t n;
    uint8_t value;
} host_memset;

static void run_host_memset(void *arg)
{
    host_memset *job = arg;
    memset(job->ptr, job->value, job->n);
    free(job);
}

static aclError cuda_memset_async(backend_stream *s, void *ptr, uint8_t value, size_t n,
                                  bool on_device)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (on_device)
        return submitted(s, cudaMemsetAsync(ptr, value, n, s->s));

    host_memset *job = malloc(sizeof *job);
    if (job == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *job = (host_memset){.ptr = ptr, .n = n, .value = value};
    rc = submitted(s, cudaLaunchHostFunc(s->s, run_host_memset, job));
    if (rc != ACL_SUCCESS)
        free(job);
    return rc;
}

/* ---- waiting with a deadline ------------------------------------------------------ */

enum {
    POLL_FIRST_NS = 20 * 1000,    /* first sleep between queries */
    POLL_MAX_NS = 1000 * 1000,    /* back-off ceiling */
};

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    /* An interrupted sleep only means an early query. */
    (void)nanosleep(&ts, NULL);
}

typedef cudaError_t (*query_fn)(const void *handle);

static cudaError_t query_stream(const void *handle)
{
    return cudaStreamQuery(((const backend_stream *)handle)->s);
}

static cudaError_t query_event(const void *handle)
{
    return cudaEventQuery(((const backend_event *)handle)->e);
}

/* CUDA has no timed wait, so poll with a growing sleep until the deadline.
 * cudaErrorNotReady only means "not yet" (the runtime does not record it as
 * the thread's last error). timeout_ms 0 is a single query. */
static aclError wait_until_done(query_fn query, const void *handle, int32_t timeout_ms,
                                aclError timeout_code)
{
    int64_t deadline = monotonic_ns() + (int64_t)timeout_ms * 1000000;
    int64_t delay = POLL_FIRST_NS;
    for (;;) {
        cudaError_t err = query(handle);
        if (err == cudaSuccess)
            return ACL_SUCCESS;
        if (err != cudaErrorNotReady)
            return check(err);
        int64_t left = deadline - monotonic_ns();
        if (left <= 0)
            return timeout_code;
        sleep_ns(delay < left ? delay : left);
        delay = delay * 2 < POLL_MAX_NS ? delay * 2 : POLL_MAX_NS;
    }
}

/* ---- pools ------------------------------------------------------------------- */

enum { POOL_DEVICES = 64 };

#define POOL_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0}
#define POOL_INIT4 POOL_INIT, POOL_INIT, POOL_INIT, POOL_INIT
#define POOL_INIT16 POOL_INIT4, POOL_INIT4, POOL_INIT4, POOL_INIT4
#define POOL_INIT64 POOL_INIT16, POOL_INIT16, POOL_INIT16, POOL_INIT16

/* The first pooled item of the flavour, or NULL. */
static pool_link *pool_take(pool *p, int32_t flavour)
{
    if (p == NULL)
        return NULL;
    pthread_mutex_lock(&p->lock);
    pool_link **at = &p->head;
    while (*at && (*at)->flavour != flavour)
        at = &(*at)->next;
    pool_link *taken = *at;
    if (taken) {
        *at = taken->next;
        p->count--;
    }
    pthread_mutex_unlock(&p->lock);
    return taken;
}

/* False when the pool is full (or there is none): the caller destroys. */
static bool pool_put(pool *p, pool_link *item, size_t most)
{
    if (p == NULL)
        return false;
    pthread_mutex_lock(&p->lock);
    bool kept = p->count < most;
    if (kept) {
        item->next = p->head;
        p->head = item;
        p->count++;
    }
    pthread_mutex_unlock(&p->lock);
    return kept;
}

/* ---- streams ----------------------------------------------------------------- */

/* A stream destroyed with nothing left to run, whose CUDA handle never went
 * to the application, is as good as a new one of its priority. */
enum { STREAM_POOL_MAX = 64 };

static pool stream_pools[POOL_DEVICES] = {POOL_INIT64};

static pool *stream_pool_of(int32_t dev)
{
    return dev >= 0 && dev < POOL_DEVICES ? &stream_pools[dev] : NULL;
}

static aclError cuda_stream_create(int32_t dev, int32_t priority, backend_stream **out)
{
    backend_stream *s = (backend_stream *)pool_take(stream_pool_of(dev), priority);
    if (s) {
        *out = s;
        return ACL_SUCCESS;
    }
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    s = malloc(sizeof *s);
    if (s == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    rc = check(cudaStreamCreateWithPriority(&s->s, cudaStreamNonBlocking, priority));
    if (rc != ACL_SUCCESS) {
        free(s);
        return rc;
    }
    s->link = (pool_link){.flavour = priority};
    s->dev = dev;
    atomic_init(&s->queued, 0);
    atomic_init(&s->done, 0);
    atomic_init(&s->exported, false);
    *out = s;
    return ACL_SUCCESS;
}

/* cudaStreamDestroy returns at once; queued work still runs and events
 * recorded on the stream stay valid. The wrapper goes either way: the
 * caller drops its handle whatever the result. */
static aclError cuda_stream_destroy(backend_stream *s)
{
    uint_fast64_t queued;
    if (known_idle(s, &queued) && pool_put(stream_pool_of(s->dev), &s->link, STREAM_POOL_MAX))
        return ACL_SUCCESS;
    aclError rc = check(cudaStreamDestroy(s->s));
    free(s);
    return rc;
}

static aclError cuda_stream_synchronize(backend_stream *s, int32_t timeout_ms)
{
    uint_fast64_t queued;
    if (known_idle(s, &queued))
        return ACL_SUCCESS;
    aclError rc = timeout_ms < 0
                      ? check(cudaStreamSynchronize(s->s))
                      : wait_until_done(query_stream, s, timeout_ms, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    if (rc == ACL_SUCCESS)
        mark_done(s, queued);
    return rc;
}

static aclError cuda_stream_query(backend_stream *s, bool *complete)
{
    uint_fast64_t queued;
    if (known_idle(s, &queued)) {
        *complete = true;
        return ACL_SUCCESS;
    }
    cudaError_t err = cudaStreamQuery(s->s);
    if (err == cudaSuccess || err == cudaErrorNotReady) {
        *complete = err == cudaSuccess;
        if (*complete)
            mark_done(s, queued);
        return ACL_SUCCESS;
    }
    return check(err);
}

static aclError cuda_stream_wait_event(backend_stream *s, backend_event *e)
{
    return submitted(s, cudaStreamWaitEvent(s->s, e->e, 0));
}

static aclError cuda_launch_host_func(backend_stream *s, host_fn fn, void *arg)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return submitted(s, cudaLaunchHostFunc(s->s, fn, arg));
}

/* ---- events -------------------------------------------------------------------- */

/* Events go back to a pool per device and timing flavour unless their CUDA
 * handle went to the application. A reused event may still carry its last
 * record; the ACL layer tracks "never recorded" itself (see backend.h). */
enum { EVENT_POOL_MAX = 1024 };

static pool event_pools[POOL_DEVICES * 2] = {POOL_INIT64, POOL_INIT64};

static pool *event_pool_of(int32_t dev, bool timing)
{
    return dev >= 0 && dev < POOL_DEVICES ? &event_pools[dev * 2 + timing] : NULL;
}

/* No cudaEventBlockingSync: synchronize spins or yields for the lowest
 * latency, as raw CUDA does by default. */
static aclError cuda_event_create(int32_t dev, bool timing, backend_event **out)
{
    backend_event *e = (backend_event *)pool_take(event_pool_of(dev, timing), 0);
    if (e) {
        atomic_store_explicit(&e->reused, true, memory_order_relaxed);
        *out = e;
        return ACL_SUCCESS;
    }
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    e = malloc(sizeof *e);
    if (e == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
    rc = check(cudaEventCreateWithFlags(&e->e, flags));
    if (rc != ACL_SUCCESS) {
        free(e);
        return rc;
    }
    e->dev = dev;
    e->timing = timing;
    atomic_init(&e->exported, false);
    atomic_init(&e->reused, false);
    e->link = (pool_link){.flavour = 0};
    *out = e;
    return ACL_SUCCESS;
}

/* cudaEventDestroy does not wait for a pending record; neither does a
 * return to the pool. */
static aclError cuda_event_destroy(backend_event *e)
{
    if (!atomic_load_explicit(&e->exported, memory_order_relaxed) &&
        pool_put(event_pool_of(e->dev, e->timing), &e->link, EVENT_POOL_MAX))
        return ACL_SUCCESS;
    aclError rc = check(cudaEventDestroy(e->e));
    free(e);
    return rc;
}

static aclError cuda_event_record(backend_event *e, backend_stream *s)
{
    aclError rc = submitted(s, cudaEventRecord(e->e, s->s));
    if (rc == ACL_SUCCESS)
        atomic_store_explicit(&e->reused, false, memory_order_relaxed);
    return rc;
}

static aclError cuda_event_query(backend_event *e, bool *complete)
{
    cudaError_t err = cudaEventQuery(e->e);
    if (err == cudaSuccess || err == cudaErrorNotReady) {
        *complete = err == cudaSuccess;
        return ACL_SUCCESS;
    }
    return check(err);
}

static aclError cuda_event_synchronize(backend_event *e, int32_t timeout_ms)
{
    if (timeout_ms < 0)
        return check(cudaEventSynchronize(e->e));
    return wait_until_done(query_event, e, timeout_ms, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
}

static aclError cuda_event_elapsed(backend_event *start, backend_event *end, float *ms)
{
    if (!start->timing || !end->timing)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    if (start->dev != end->dev)
        return ACL_ERROR_RT_PARAM_INVALID;
    cudaError_t err = cudaEventElapsedTime(ms, start->e, end->e);
    /* With timing on both, this handle error means one was never recorded:
     * there is no timestamp to subtract. */
    if (err == cudaErrorInvalidResourceHandle) {
        (void)cudaGetLastError();
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
    return check(err);
}

/* ---- interop ------------------------------------------------------------------------ */

static void *cuda_stream_native(backend_stream *s)
{
    atomic_store_explicit(&s->exported, true, memory_order_relaxed);
    return s->s;
}

/* The application must get what a new CUDA event is (complete, no
 * timestamp), not a pooled one still carrying an earlier owner's record:
 * such an event is swapped for a new one first. */
static void *cuda_event_native(backend_event *e)
{
    cudaEvent_t fresh;
    if (atomic_load_explicit(&e->reused, memory_order_relaxed) &&
        use_device_checked(e->dev) == ACL_SUCCESS &&
        check(cudaEventCreateWithFlags(&fresh, e->timing ? cudaEventDefault : cudaEventDisableTiming)) ==
            ACL_SUCCESS) {
        (void)check(cudaEventDestroy(e->e));
        e->e = fresh;
        atomic_store_explicit(&e->reused, false, memory_order_relaxed);
    }
    atomic_store_explicit(&e->exported, true, memory_order_relaxed);
    return e->e;
}

const backend_ops backend_cuda_ops = {
    .name = "cuda",
    .probe = cuda_probe,
    .device_count = cuda_device_count,
    .device_props = cuda_device_props,
    .mem_info = cuda_mem_info,
    .can_access_peer = cuda_can_access_peer,
    .enable_peer = cuda_enable_peer,
    .disable_peer = cuda_disable_peer,
    .make_current = cuda_make_current,
    .malloc_device = cuda_malloc_device,
    .free_device = cuda_free_device,
    .malloc_host = cuda_malloc_host,
    .free_host = cuda_free_host,
    .memcpy_sync = cuda_memcpy_sync,
    .memcpy_async = cuda_memcpy_async,
    .memcpy2d_sync = cuda_memcpy2d_sync,
    .memcpy2d_async = cuda_memcpy2d_async,
    .memset_sync = cuda_memset_sync,
    .memset_async = cuda_memset_async,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_synchronize = cuda_stream_synchronize,
    .stream_query = cuda_stream_query,
    .stream_wait_event = cuda_stream_wait_event,
    .launch_host_func = cuda_launch_host_func,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_query = cuda_event_query,
    .event_synchronize = cuda_event_synchronize,
    .event_elapsed = cuda_event_elapsed,
    .stream_native = cuda_stream_native,
    .event_native = cuda_event_native,
};
