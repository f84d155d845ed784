/* The cuda backend's stream memory operations (aclrtValueWrite,
 * aclrtValueWait): one driver call each, cuStreamWriteValue64 and
 * cuStreamWaitValue64, whose comparisons are ACL's (GEQ, EQ, AND, NOR have
 * the same numbers). The streams' fault words: a word of mapped host
 * memory per stream that device code (a notify wait that timed out) sets,
 * and synchronize reads. And the waits a teardown releases: a wait the GPU
 * runs cannot be taken back, so each stream notes the words its value and
 * notify waits wait on, until it is known to have passed them, and
 * cancel_waits makes those words satisfy them. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "util/clock.h"
#include "util/log.h"

enum { MAX_DEVICES = 64 };

/* ---- can the device do them ------------------------------------------------ */

enum { CAP_UNKNOWN = 0, CAP_KNOWN = 1 };

typedef struct memops_caps {
    atomic_int known; /* CAP_UNKNOWN until asked */
    bool ops32, ops64, nor;
} memops_caps;

static memops_caps caps[MAX_DEVICES];

static bool attribute(CUdevice d, CUdevice_attribute attr)
{
    int v = 0;
    return drv.cuDeviceGetAttribute(&v, attr, d) == CUDA_SUCCESS && v;
}

aclError cuda_memops_ready(int dev, bool need64, bool need_nor)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    memops_caps *c = &caps[dev];
    if (atomic_load_explicit(&c->known, memory_order_acquire) == CAP_UNKNOWN) {
        bool ops32 = false, ops64 = false, nor = false;
        CUdevice d;
        if (driver_ready() && drv.cuDeviceGet && drv.cuDeviceGetAttribute &&
            drv.cuStreamWriteValue32 && drv.cuStreamWriteValue64 && drv.cuStreamWaitValue64 &&
            drv.cuStreamBatchMemOp && drv.cuDeviceGet(&d, dev) == CUDA_SUCCESS) {
            /* 32-bit ones are always there in the version 2 API (CUDA 11.7
             * on); 64-bit ones and NOR depend on the device. */
            ops32 = true;
            ops64 = attribute(d, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS);
            nor = attribute(d, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR);
        }
        c->ops32 = ops32;
        c->ops64 = ops64;
        c->nor = nor;
        atomic_store_explicit(&c->known, CAP_KNOWN, memory_order_release);
    }
    if (!c->ops32 || (need64 && !c->ops64) || (need_nor && !c->nor))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return ACL_SUCCESS;
}

/* ---- aclrtValueWrite / aclrtValueWait ------------------------------------------ */

/* The write is ordered after the stream's earlier work, whose writes it
 * makes visible first (no CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER). */
aclError cuda_value_write(backend_stream *s, void *addr, uint64_t value)
{
    aclError rc = use_adopted_device(s);
    if (rc == ACL_SUCCESS)
        rc = cuda_memops_ready(s->dev, true, false);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuStreamWriteValue64(s->s, (CUdeviceptr)(uintptr_t)addr, value,
                                            CU_STREAM_WRITE_VALUE_DEFAULT));
}

aclError cuda_value_wait(backend_stream *s, void *addr, uint64_t value, uint32_t cmp)
{
    aclError rc = use_adopted_device(s);
    if (rc == ACL_SUCCESS)
        rc = cuda_memops_ready(s->dev, true, cmp == ACL_STREAM_WAIT_VALUE_NOR);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = from_cu(drv.cuStreamWaitValue64(s->s, (CUdeviceptr)(uintptr_t)addr, value, cmp));
    if (rc == ACL_SUCCESS)
        cuda_wait_note(s, WAIT_VALUE64, addr, value, cmp);
    return rc;
}

/* ---- the waits a teardown releases ---------------------------------------------- */

static bool stream_idle(cudaStream_t cs)
{
    cudaError_t err = cudaStreamQuery(cs);
    if (err != cudaSuccess && err != cudaErrorNotReady)
        (void)cudaGetLastError();
    return err == cudaSuccess;
}

/* s, and the stream an abort retired, have run all their work. */
static bool streams_idle(backend_stream *s)
{
    return stream_idle(s->s) && (!s->retired || stream_idle(s->retired));
}

/* A log this long is emptied when it would grow and the stream has passed
 * it all: streams that are never synchronized (models launched and waited
 * for through events) do not keep every wait they ever ran. */
enum { LOG_TRIM_AT = 256 };

struct wait_log {
    pthread_mutex_t lock;
    pending_wait *waits;
    size_t count, cap;
};

static struct wait_log *wait_log_of(backend_stream *s)
{
    struct wait_log *log = atomic_load_explicit(&s->waits, memory_order_acquire);
    if (log)
        return log;
    struct wait_log *made = calloc(1, sizeof *made);
    if (!made)
        return NULL;
    pthread_mutex_init(&made->lock, NULL);
    if (atomic_compare_exchange_strong_explicit(&s->waits, &log, made, memory_order_acq_rel,
                                                memory_order_acquire))
        return made;
    pthread_mutex_destroy(&made->lock); /* another thread made it first */
    free(made);
    return log;
}

void cuda_wait_log_add(backend_stream *s, const pending_wait *w)
{
    struct wait_log *log = wait_log_of(s);
    if (!log)
        return; /* out of memory: a teardown cannot release this one */
    pthread_mutex_lock(&log->lock);
    if (log->count == log->cap && log->count >= LOG_TRIM_AT && streams_idle(s)) {
        log->count = 0; /* w was queued before: passed too */
        pthread_mutex_unlock(&log->lock);
        return;
    }
    if (log->count == log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 8;
        pending_wait *grown = realloc(log->waits, cap * sizeof *grown);
        if (grown) {
            log->waits = grown;
            log->cap = cap;
        }
    }
    if (log->count < log->cap)
        log->waits[log->count++] = *w;
    pthread_mutex_unlock(&log->lock);
}

void cuda_wait_note(backend_stream *s, wait_kind kind, const void *addr, uint64_t value,
                    uint32_t cmp)
{
    pending_wait w = {.addr = (uint64_t)(uintptr_t)addr, .value = value, .kind = kind, .cmp = cmp};
    if (!cuda_capture_may_hold(s) || !cuda_capture_wait_note(s->s, &w))
        cuda_wait_log_add(s, &w);
}

size_t cuda_waits_noted(backend_stream *s)
{
    struct wait_log *log = atomic_load_explicit(&s->waits, memory_order_acquire);
    if (!log)
        return 0;
    pthread_mutex_lock(&log->lock);
    size_t count = log->count;
    pthread_mutex_unlock(&log->lock);
    return count;
}

/* Waits are noted in stream order, so the first ones are the passed ones;
 * those noted since count was read stay. */
void cuda_waits_passed(backend_stream *s, size_t count)
{
    struct wait_log *log = atomic_load_explicit(&s->waits, memory_order_acquire);
    if (!log || count == 0)
        return;
    pthread_mutex_lock(&log->lock);
    if (count > log->count)
        count = log->count;
    memmove(log->waits, log->waits + count, (log->count - count) * sizeof *log->waits);
    log->count -= count;
    pthread_mutex_unlock(&log->lock);
}

static bool word_released_before(const pending_wait *w, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (w[j].addr == w[i].addr)
            return true;
    return false;
}

/* Whether w's word still is what it was when w was noted: a model's stop
 * word goes back to its pool once the model is gone, which a log the
 * stream has not been found past yet may outlive. */
static bool word_still_noted(const pending_wait *w)
{
    return w->kind != WAIT_STOP32 ||
           cuda_host_word_holds((const uint32_t *)(uintptr_t)w->addr, w->value);
}

/* The releases queued on own have run; then s gets up to ns to pass the
 * waits they released (it is idle, or the time is up: a stream stuck on a
 * later wait never shows which it passed). */
static void let_pass(cudaStream_t own, backend_stream *s, int64_t ns)
{
    (void)check(cudaStreamSynchronize(own));
    int64_t until = monotonic_ns() + ns;
    while (!streams_idle(s) && monotonic_ns() < until)
        nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
}

/* A wait is released by making its word satisfy it, which a later wait on
 * the same word may undo before the stream got there (an EQ 1 then an EQ
 * 2; a notify's flag set while still set, which the first wait then
 * consumes). So the stream gets a while to pass each wait before the next
 * one on its word is released, and the waits are released again, in
 * rounds, while the stream is stuck (a loop's body runs its waits again).
 * The rounds are bounded: a stream may be stuck behind another stream's
 * wait, which that stream's own release frees. */
enum {
    RELEASE_ROUNDS = 20,
    SAME_WORD_GAP_NS = 1000000,
    ROUND_GAP_NS = 5000000,
};

static aclError release_round(backend_stream *s, cudaStream_t own, CUfunction release,
                              const pending_wait *w, size_t n)
{
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
        if (!word_still_noted(&w[i]))
            continue;
        if (word_released_before(w, i))
            let_pass(own, s, SAME_WORD_GAP_NS);
        CUdeviceptr addr = (CUdeviceptr)w[i].addr;
        unsigned long long value = w[i].value;
        unsigned kind = w[i].kind, cmp = w[i].cmp;
        void *params[] = {&addr, &value, &kind, &cmp};
        rc = from_cu(drv.cuLaunchKernel(release, 1, 1, 1, 1, 1, 1, 0, own, params, NULL));
    }
    return rc;
}

/* Makes each wait of w[0..n) of s true with notify_kernels.cu's
 * aclcuda_wait_release, on a stream of its own, which the waits do not
 * hold up, and waits until that is done. */
static aclError cuda_waits_release(backend_stream *s, const pending_wait *w, size_t n)
{
    const cuda_notify_kernels *k;
    aclError rc = cuda_notify_kernels_get(s->dev, &k);
    if (rc == ACL_SUCCESS)
        rc = use_device_checked(s->dev);
    cudaStream_t own;
    if (rc == ACL_SUCCESS)
        rc = check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    if (rc != ACL_SUCCESS)
        return rc;
    for (int round = 0; round < RELEASE_ROUNDS && rc == ACL_SUCCESS; round++) {
        rc = release_round(s, own, k->release, w, n);
        let_pass(own, s, ROUND_GAP_NS);
        if (streams_idle(s))
            break;
    }
    aclError done = check(cudaStreamSynchronize(own));
    (void)check(cudaStreamDestroy(own));
    return rc != ACL_SUCCESS ? rc : done;
}

/* The noted waits are taken out and released, unless the stream (and the
 * one an abort retired) has passed them all. A word the stream passed
 * since its last synchronize is written too, where it no longer satisfies
 * its wait: a notify may be left recorded. */
void cuda_stream_cancel_waits(backend_stream *s)
{
    struct wait_log *log = atomic_load_explicit(&s->waits, memory_order_acquire);
    if (!log)
        return;
    pthread_mutex_lock(&log->lock);
    pending_wait *waits = log->waits;
    size_t count = log->count;
    log->waits = NULL;
    log->count = log->cap = 0;
    pthread_mutex_unlock(&log->lock);
    if (count && use_device_checked(s->dev) == ACL_SUCCESS && streams_idle(s))
        count = 0;
    if (count && cuda_waits_release(s, waits, count) != ACL_SUCCESS)
        ACL_LOG(LOG_ERROR, "%zu wait(s) of a stream being torn down could not be released", count);
    /* A stop word set here ended its model's run on s; once the stream
     * has passed it, the model's later runs (on other streams) loop again.
     * Still stuck, the stream holds the run, and CUDA queues the model's
     * later runs behind it. */
    if (count && streams_idle(s))
        for (size_t i = 0; i < count; i++)
            if (waits[i].kind == WAIT_STOP32 && word_still_noted(&waits[i]))
                __atomic_store_n((uint32_t *)(uintptr_t)waits[i].addr, 0u, __ATOMIC_RELEASE);
    free(waits);
}

void cuda_waits_free(backend_stream *s)
{
    struct wait_log *log = atomic_exchange(&s->waits, NULL);
    if (!log)
        return;
    free(log->waits);
    pthread_mutex_destroy(&log->lock);
    free(log);
}

/* ---- fault words ------------------------------------------------------------ */

aclError cuda_stream_fault_word(backend_stream *s, uint32_t **word)
{
    uint32_t *w = atomic_load_explicit(&s->fault, memory_order_acquire);
    if (!w) {
        uint32_t *made = cuda_host_word_get(NULL);
        if (!made)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        if (atomic_compare_exchange_strong_explicit(&s->fault, &w, made, memory_order_acq_rel,
                                                    memory_order_acquire))
            w = made;
        else
            cuda_host_word_put(made); /* another thread gave the stream one first */
    }
    /* Mapped host memory has the same address on the device (UVA). */
    void *dev_ptr;
    aclError rc = check(cudaHostGetDevicePointer(&dev_ptr, w, 0));
    if (rc == ACL_SUCCESS)
        *word = dev_ptr;
    return rc;
}

aclError cuda_stream_fault_take(backend_stream *s)
{
    uint32_t *w = atomic_load_explicit(&s->fault, memory_order_acquire);
    if (!w)
        return ACL_SUCCESS;
    return (aclError)__atomic_exchange_n(w, 0u, __ATOMIC_ACQ_REL);
}

void cuda_stream_fault_release(backend_stream *s)
{
    uint32_t *w = atomic_exchange(&s->fault, NULL);
    if (w)
        cuda_host_word_put(w);
}
