/* The cuda backend's events. Destroyed events go back to a pool per device
 * and timing flavour unless their CUDA handle went to the application; a
 * recycled event may still carry its last record, which the core tracks
 * itself (see backend.h). */
#include "backend/cuda/cuda.h"

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
    .adopt = cuda_event_adopt,
};
