/* Device activity for the profiler (core/prof.c) from CUPTI's activity
 * API: kernels, copies, memsets, stream waits, event records and the
 * runtime and driver calls, timed by the device and by CUPTI itself, so
 * that no task needs a host function on its stream to be timed.
 *
 * CUPTI is opened at run time (dlopen): libascendcl loads and runs where
 * it is missing, and the profiler then stamps tasks itself. Its records
 * are read with the layouts of the CUPTI headers acl-cuda was built with,
 * so only a CUPTI of the same major version is used. Each ACL call pushes
 * its id as an external correlation id (CUSTOM0): CUPTI then reports, for
 * every runtime or driver call made inside it, which native correlation id
 * belongs to that ACL call, and every device record carries the native
 * id of the call that queued it. Timestamps come from util/clock.h's
 * clock (cuptiActivityRegisterTimestampCallback), the profiler's own. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "backend/cuda/cuda.h"
#include "util/clock.h"
#include "util/log.h"

enum { BUFFER_BYTES = 1 << 20, BUFFER_ALIGN = 8 };

#define CUPTI_FUNCTIONS(X)                                                                         \
    X(cuptiGetVersion, (uint32_t *))                                                               \
    X(cuptiActivityEnable, (CUpti_ActivityKind))                                                   \
    X(cuptiActivityDisable, (CUpti_ActivityKind))                                                  \
    X(cuptiActivityRegisterCallbacks,                                                              \
      (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc))                       \
    X(cuptiActivityRegisterTimestampCallback, (CUpti_TimestampCallbackFunc))                       \
    X(cuptiActivityFlushAll, (uint32_t))                                                           \
    X(cuptiActivityGetNextRecord, (uint8_t *, size_t, CUpti_Activity **))                          \
    X(cuptiActivityPushExternalCorrelationId, (CUpti_ExternalCorrelationKind, uint64_t))           \
    X(cuptiActivityPopExternalCorrelationId, (CUpti_ExternalCorrelationKind, uint64_t *))          \
    X(cuptiGetStreamIdEx, (CUcontext, CUstream, uint8_t, uint32_t *))                              \
    X(cuptiGetCallbackName, (CUpti_CallbackDomain, uint32_t, const char **))

static struct {
#define CUPTI_POINTER(name, args) CUptiResult(CUPTIAPI *name) args;
    CUPTI_FUNCTIONS(CUPTI_POINTER)
#undef CUPTI_POINTER
    /* Optional: device times of event records (CUPTI 12.8 on). */
    CUptiResult(CUPTIAPI *cuptiActivityEnableCudaEventDeviceTimestamps)(uint8_t);
} cupti;

/* The kinds collected; those marked optional may be missing from a CUPTI
 * (or refused on a device) without giving up. */
static const struct {
    CUpti_ActivityKind kind;
    bool optional;
} collected[] = {
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, false},
    {CUPTI_ACTIVITY_KIND_RUNTIME, false},
    {CUPTI_ACTIVITY_KIND_DRIVER, false},
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, false},
    {CUPTI_ACTIVITY_KIND_MEMCPY, false},
    {CUPTI_ACTIVITY_KIND_MEMSET, false},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, true},
    {CUPTI_ACTIVITY_KIND_CUDA_EVENT, true},
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
static const char *unavailable; /* why not, for the one note */

/* Collected records not yet flushed, and the native correlation ids of the
 * ACL calls (kept until stop: a device record may come a flush later
 * than the call's). Under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static backend_activity *pending;
static size_t pending_count, pending_cap;
typedef struct correlation {
    uint32_t native;
    uint64_t call;
} correlation;
static correlation *correlations;
static size_t correlation_count, correlation_cap;

static bool grow(void **array, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return true;
    size_t grown_cap = *cap ? 2 * *cap : 256;
    void *grown = realloc(*array, grown_cap * size);
    if (!grown)
        return false;
    *array = grown;
    *cap = grown_cap;
    return true;
}

static void *open_library(void)
{
    static const char *const names[] = {
        "libcupti.so.13",
        "libcupti.so",
        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
        "/usr/local/cuda/lib64/libcupti.so.13",
    };
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        char path[4096];
        snprintf(path, sizeof path, "%s/extras/CUPTI/lib64/libcupti.so.13", home);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

static void load(void)
{
    void *h = open_library();
    if (!h) {
        unavailable = "libcupti.so.13 not found (CUDA toolkit's extras/CUPTI/lib64 or the loader "
                      "path)";
        return;
    }
#define CUPTI_LOOKUP(name, args)                                                                   \
    *(void **)&cupti.name = dlsym(h, #name);                                                       \
    if (!cupti.name) {                                                                             \
        unavailable = "libcupti lacks " #name;                                                     \
        return;                                                                                    \
    }
    CUPTI_FUNCTIONS(CUPTI_LOOKUP)
#undef CUPTI_LOOKUP
    *(void **)&cupti.cuptiActivityEnableCudaEventDeviceTimestamps =
        dlsym(h, "cuptiActivityEnableCudaEventDeviceTimestamps");
    uint32_t version = 0;
    if (cupti.cuptiGetVersion(&version) != CUPTI_SUCCESS ||
        version / 10000 != CUPTI_API_VERSION / 10000) {
        unavailable = "libcupti is of another major version than the headers acl-cuda was built "
                      "with";
        return;
    }
    loaded = true;
}

static uint64_t CUPTIAPI clock_now(void)
{
    return (uint64_t)monotonic_ns();
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(BUFFER_ALIGN, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static const char *api_name(CUpti_CallbackDomain domain, uint32_t cbid)
{
    const char *name = NULL;
    if (cupti.cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS)
        return NULL;
    return name;
}

static backend_activity device_work(backend_activity_kind kind, uint32_t device, uint32_t stream,
                                    uint32_t graph, uint64_t begin, uint64_t end)
{
    return (backend_activity){.kind = kind,
                              .stream = (uint64_t)device << 32 | stream,
                              .in_graph = graph != 0,
                              .begin_ns = (int64_t)begin,
                              .end_ns = (int64_t)end};
}

/* One record as an activity (false: not one the profiler uses), and the
 * native correlation id of the call that made it. */
static bool activity_of(const CUpti_Activity *record, backend_activity *a, uint32_t *native)
{
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
        *a = device_work(ACTIVITY_KERNEL, k->deviceId, k->streamId, k->graphId, k->start, k->end);
        a->name = k->name;
        *native = k->correlationId;
        return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
        *a = device_work(ACTIVITY_COPY, m->deviceId, m->streamId, m->graphId, m->start, m->end);
        *native = m->correlationId;
        return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
        *a = device_work(ACTIVITY_FILL, m->deviceId, m->streamId, m->graphId, m->start, m->end);
        *native = m->correlationId;
        return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *w = (const CUpti_ActivitySynchronization2 *)record;
        if (w->type != CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
            return false;
        /* The record names no device (backend.h: ACTIVITY_STREAM_ANY_DEVICE). */
        *a = device_work(ACTIVITY_SYNC, ACTIVITY_STREAM_ANY_DEVICE, w->streamId, 0, w->start,
                         w->end);
        *native = w->correlationId;
        return true;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const CUpti_ActivityCudaEvent2 *e = (const CUpti_ActivityCudaEvent2 *)record;
        if (!e->deviceTimestamp)
            return false;
        *a = device_work(ACTIVITY_EVENT, e->deviceId, e->streamId, 0, e->deviceTimestamp,
                         e->deviceTimestamp);
        *native = e->correlationId;
        return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *api = (const CUpti_ActivityAPI *)record;
        *a = (backend_activity){.kind = ACTIVITY_API,
                                .thread = api->threadId,
                                .begin_ns = (int64_t)api->start,
                                .end_ns = (int64_t)api->end,
                                .name = api_name(record->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                                     ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                     : CUPTI_CB_DOMAIN_DRIVER_API,
                                                 api->cbid)};
        *native = api->correlationId;
        return true;
    }
    default:
        return false;
    }
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)context;
    (void)stream_id;
    (void)size;
    pthread_mutex_lock(&lock);
    CUpti_Activity *record = NULL;
    while (valid && cupti.cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const CUpti_ActivityExternalCorrelation *x =
                (const CUpti_ActivityExternalCorrelation *)record;
            if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 &&
                grow((void **)&correlations, &correlation_cap, correlation_count,
                     sizeof *correlations))
                correlations[correlation_count++] = (correlation){x->correlationId, x->externalId};
            continue;
        }
        backend_activity a;
        uint32_t native = 0;
        if (!activity_of(record, &a, &native) ||
            !grow((void **)&pending, &pending_cap, pending_count, sizeof *pending))
            continue;
        /* The name (a kernel's lives as long as its module) is copied; the
         * native correlation id waits in call until the flush resolves it. */
        a.name = a.name ? strdup(a.name) : NULL;
        a.call = native;
        pending[pending_count++] = a;
    }
    pthread_mutex_unlock(&lock);
    free(buffer);
}

static int by_native(const void *a, const void *b)
{
    uint32_t x = ((const correlation *)a)->native, y = ((const correlation *)b)->native;
    return (x > y) - (x < y);
}

bool cuda_activity_start(void)
{
    pthread_once(&load_once, load);
    static bool registered, noted;
    if (loaded && !registered) {
        /* The clock first: records of kinds enabled before it would keep
         * CUPTI's own. */
        if (cupti.cuptiActivityRegisterTimestampCallback(clock_now) != CUPTI_SUCCESS)
            unavailable = "cuptiActivityRegisterTimestampCallback failed";
        else if (cupti.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) !=
                 CUPTI_SUCCESS)
            unavailable = "cuptiActivityRegisterCallbacks failed";
        else
            registered = true;
        if (registered && cupti.cuptiActivityEnableCudaEventDeviceTimestamps)
            (void)cupti.cuptiActivityEnableCudaEventDeviceTimestamps(1);
    }
    size_t enabled = 0;
    if (registered) {
        for (; enabled < sizeof collected / sizeof collected[0]; enabled++) {
            if (cupti.cuptiActivityEnable(collected[enabled].kind) != CUPTI_SUCCESS &&
                !collected[enabled].optional) {
                unavailable = "CUPTI refused an activity kind (another profiler attached?)";
                break;
            }
        }
        if (enabled == sizeof collected / sizeof collected[0])
            return true;
        while (enabled-- > 0)
            (void)cupti.cuptiActivityDisable(collected[enabled].kind);
    }
    if (!noted) {
        noted = true;
        ACL_LOG(LOG_WARNING, "profiling: CUPTI unavailable (%s); tasks are timed on their streams",
                unavailable ? unavailable : "unknown");
    }
    return false;
}

void cuda_activity_push(uint64_t call)
{
    (void)cupti.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                       call);
}

void cuda_activity_pop(void)
{
    (void)cupti.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                      NULL);
}

uint64_t cuda_activity_stream(backend_stream *s)
{
    uint32_t id = 0;
    if (!loaded || cupti.cuptiGetStreamIdEx(NULL, (CUstream)s->s, 0, &id) != CUPTI_SUCCESS)
        return 0;
    return (uint64_t)(uint32_t)s->dev << 32 | id;
}

size_t cuda_activity_flush(backend_activity_sink sink, void *arg)
{
    if (!loaded)
        return 0;
    (void)cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&lock);
    backend_activity *taken = pending;
    size_t count = pending_count;
    pending = NULL;
    pending_count = pending_cap = 0;
    qsort(correlations, correlation_count, sizeof *correlations, by_native);
    for (size_t i = 0; i < count; i++) {
        correlation key = {(uint32_t)taken[i].call, 0};
        const correlation *found =
            bsearch(&key, correlations, correlation_count, sizeof *correlations, by_native);
        taken[i].call = found ? found->call : 0;
    }
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < count; i++) {
        sink(arg, &taken[i]);
        free((char *)taken[i].name);
    }
    free(taken);
    return count;
}

void cuda_activity_stop(void)
{
    if (!loaded)
        return;
    for (size_t i = sizeof collected / sizeof collected[0]; i-- > 0;)
        (void)cupti.cuptiActivityDisable(collected[i].kind);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < pending_count; i++)
        free((char *)pending[i].name);
    pending_count = 0;
    correlation_count = 0;
    pthread_mutex_unlock(&lock);
}
