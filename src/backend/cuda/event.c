/* The cuda backend's events. Destroyed events go back to a pool per device
 * and timing flavour unless their CUDA handle went to the application; a
 * recycled event may still carry its last record, which the core tracks
 * itself (see backend.h). */
#include <stdlib.h>

#include "backend/cuda/cuda.h"
#include "util/clock.h"

enum { EVENT_POOL_MAX = 1024 };

static cudaError_t query_event(void *handle)
{
    return cudaEventQuery((cudaEvent_t)handle);
}

static cudaError_t make_event(cudaEvent_t *e, bool timing)
{
    return cudaEventCreateWithFlags(e, timing ? cudaEventDefault : cudaEventDisableTiming);
}

/* No cudaEventBlockingSync: synchronize spins or yields for the lowest
 * latency, as raw CUDA does by default. */
static aclError cuda_event_create(backend_event *e, int32_t dev, bool timing)
{
    e->dev = dev;
    e->timing = timing;
    atomic_init(&e->exported, false);
    e->e = pool_take(cuda_event_pool(dev, timing), 0);
    atomic_init(&e->reused, e->e != NULL);
    if (e->e)
        return ACL_SUCCESS;
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(make_event(&e->e, timing));
}

/* Neither cudaEventDestroy nor a return to the pool waits for a pending
 * record. */
static void cuda_event_destroy(backend_event *e)
{
    if (e->adopted)
        return; /* the application's */
    if (!atomic_load_explicit(&e->exported, memory_order_relaxed) &&
        pool_put(cuda_event_pool(e->dev, e->timing), e->e, 0, EVENT_POOL_MAX))
        return;
    (void)check(cudaEventDestroy(e->e));
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
    return cuda_wait_until_done(query_event, e->e, timeout_ms, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
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

/* ---- timestamps -------------------------------------------------------------
 * CUDA gives no event an absolute time, only differences between two
 * timing events. So each device keeps anchors: timing events recorded
 * where the host clock was read just before and just after (the anchor's
 * time is taken as the middle), the first when the device's first timing
 * event is recorded, later ones when a timestamp is asked for and the
 * newest anchor is more than ANCHOR_REFRESH_NS old. An event's time is
 * that of the newest anchor that completed before it, plus
 * cudaEventElapsedTime between the two: kept within seconds, so that the
 * float milliseconds keep microsecond precision. Which anchor that is, is
 * found when the timestamp is asked for (the time from an anchor recorded
 * after the event is negative), so that a record reads no clock: on some
 * virtual machines a clock read is a system call. */
enum { ANCHOR_DEVICES = 64 };
#define ANCHOR_REFRESH_NS (10LL * 1000000000)

typedef struct anchor {
    cudaEvent_t e;
    int64_t ns;
} anchor;

typedef struct anchor_list {
    pthread_mutex_t lock;
    atomic_bool any;
    anchor *list;
    size_t count, cap;
} anchor_list;

static anchor_list anchors[ANCHOR_DEVICES];

__attribute__((constructor)) static void anchors_init(void)
{
    for (int i = 0; i < ANCHOR_DEVICES; i++)
        pthread_mutex_init(&anchors[i].lock, NULL);
}

/* With a->lock held. */
static aclError anchor_add(anchor_list *a, int dev)
{
    if (a->count == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        anchor *grown = realloc(a->list, cap * sizeof *grown);
        if (!grown)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        a->list = grown;
        a->cap = cap;
    }
    cudaEvent_t e;
    aclError rc = use_device_checked(dev);
    if (rc == ACL_SUCCESS)
        rc = check(cudaEventCreateWithFlags(&e, cudaEventDefault));
    if (rc != ACL_SUCCESS)
        return rc;
    /* On the legacy stream, which holds nothing of ours: the record is
     * executed at once. */
    int64_t before = monotonic_ns();
    rc = check(cudaEventRecord(e, cudaStreamLegacy));
    if (rc == ACL_SUCCESS)
        rc = check(cudaEventSynchronize(e));
    int64_t after = monotonic_ns();
    if (rc != ACL_SUCCESS) {
        (void)check(cudaEventDestroy(e));
        return rc;
    }
    a->list[a->count++] = (anchor){.e = e, .ns = before + (after - before) / 2};
    atomic_store_explicit(&a->any, true, memory_order_release);
    return ACL_SUCCESS;
}

/* Only the device's first anchor: a record reads no clock. */
void cuda_event_recorded(backend_event *e)
{
    if (e->dev < 0 || e->dev >= ANCHOR_DEVICES)
        return;
    anchor_list *a = &anchors[e->dev];
    if (__builtin_expect(atomic_load_explicit(&a->any, memory_order_acquire), 1))
        return;
    pthread_mutex_lock(&a->lock);
    if (a->count == 0)
        (void)anchor_add(a, e->dev); /* without one, timestamps report the failure */
    pthread_mutex_unlock(&a->lock);
}

/* The newest of a's anchors that completed before done (complete itself),
 * and the milliseconds from it to done; the oldest (a negative time) when
 * done came before them all. Anchors are in recording order, so the time
 * from them to done falls with their index: bisection. With a->lock held. */
static aclError anchor_before(const anchor_list *a, cudaEvent_t done, anchor *base, float *ms)
{
    size_t lo = 0, hi = a->count; /* before lo: at or before done; from hi on: after */
    float before_ms = 0, after_ms = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        float t;
        aclError rc = check(cudaEventElapsedTime(&t, a->list[mid].e, done));
        if (rc != ACL_SUCCESS)
            return rc;
        if (t >= 0) {
            lo = mid + 1;
            before_ms = t;
        } else {
            hi = mid;
            after_ms = t;
        }
    }
    *base = a->list[lo > 0 ? lo - 1 : 0];
    *ms = lo > 0 ? before_ms : after_ms;
    return ACL_SUCCESS;
}

static aclError cuda_event_timestamp(backend_event *e, uint64_t *us)
{
    if (!e->timing)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    if (e->dev < 0 || e->dev >= ANCHOR_DEVICES)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    cudaError_t q = cudaEventQuery(e->e);
    if (q == cudaErrorNotReady)
        return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    if (q != cudaSuccess)
        return check(q);
    anchor_list *a = &anchors[e->dev];
    pthread_mutex_lock(&a->lock);
    aclError rc = ACL_SUCCESS;
    if (a->count == 0 || monotonic_ns() - a->list[a->count - 1].ns > ANCHOR_REFRESH_NS)
        rc = anchor_add(a, e->dev);
    anchor base = {0};
    float ms = 0;
    if (a->count > 0)
        rc = anchor_before(a, e->e, &base, &ms);
    else if (rc == ACL_SUCCESS)
        rc = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    pthread_mutex_unlock(&a->lock);
    if (rc != ACL_SUCCESS)
        return rc;
    int64_t ns = base.ns + (int64_t)((double)ms * 1e6);
    *us = ns > 0 ? (uint64_t)ns / 1000 : 0;
    return ACL_SUCCESS;
}

/* The application must get what a new CUDA event is (complete, no
 * timestamp), not a recycled one still carrying an earlier owner's record:
 * such an event is swapped for a new one first. */
static void *cuda_event_native(backend_event *e)
{
    cudaEvent_t fresh;
    if (atomic_load_explicit(&e->reused, memory_order_relaxed) &&
        use_device_checked(e->dev) == ACL_SUCCESS &&
        check(make_event(&fresh, e->timing)) == ACL_SUCCESS) {
        (void)check(cudaEventDestroy(e->e));
        e->e = fresh;
        atomic_store_explicit(&e->reused, false, memory_order_relaxed);
    }
    atomic_store_explicit(&e->exported, true, memory_order_relaxed);
    return e->e;
}

/* An application's event, wrapped without being owned. CUDA cannot tell
 * an event's device or whether it times, so dev is the caller's and timing
 * is left to cudaEventElapsedTime to refuse. A query checks the handle. */
static aclError cuda_event_adopt(backend_event *e, int32_t dev, void *native)
{
    e->e = native;
    e->dev = dev;
    e->timing = true;
    e->adopted = true;
    atomic_init(&e->exported, true);
    atomic_init(&e->reused, false);
    if (native == NULL)
        return ACL_ERROR_RT_PARAM_INVALID;
    cudaError_t err = cudaEventQuery(e->e);
    return err == cudaErrorNotReady ? ACL_SUCCESS : check(err);
}

const backend_event_ops cuda_event_ops = {
    .size = sizeof(backend_event),
    .create = cuda_event_create,
    .destroy = cuda_event_destroy,
    .query = cuda_event_query,
    .synchronize = cuda_event_synchronize,
    .elapsed = cuda_event_elapsed,
    .native = cuda_event_native,
    .timestamp = cuda_event_timestamp,
    .adopt = cuda_event_adopt,
};
