/* acl-cuda C benchmarks: the cost of ACL calls, against the raw CUDA runtime
 * doing the same work where the cuda backend runs.
 *
 * Method. Every operation is timed in batches of calls with
 * CLOCK_MONOTONIC around the whole batch; the acl-cuda batch and the raw
 * CUDA batch run alternately in the same process (their order swaps every
 * round, so neither side always runs first), after warm-up batches. What a
 * batch leaves queued is drained outside the timed window. The figure of a
 * round is batch time / calls; we report the median over rounds and the
 * 10th and 90th percentiles as the spread.
 *
 * The raw CUDA side is this program's own statically linked cudart working
 * on its own streams and events of the same device (the library keeps its
 * cudart copy to itself); both share the device's primary context, and the
 * bandwidth runs copy between the very same buffers.
 *
 * Output: tables on stdout, and a JSON file (--json PATH) for tools. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "harness.h"

#ifdef ACLCUDA_HAVE_CUDA
/* The raw side's streams are what aclrtCreateStream makes: non-blocking, at
 * the device's greatest priority (ACL streams are of the highest priority). */
static int raw_priority;

static cudaError_t raw_stream_create(cudaStream_t *s)
{
    return cudaStreamCreateWithPriority(s, cudaStreamNonBlocking, raw_priority);
}
#endif

/* ---- results ------------------------------------------------------------------ */

typedef enum section_kind { PER_CALL, CALLBACK_HOPS, BANDWIDTH, SCALING } section_kind;

typedef struct result {
    section_kind section;
    const char *name;  /* operation, or copy direction for bandwidth */
    const char *mode;  /* bandwidth: "sync" or "async" */
    size_t bytes;      /* bandwidth: bytes per copy */
    int live;          /* scaling: live streams and events */
    int calls;         /* per timed batch */
    int rounds;
    comparison cmp;
} result;

static result *results;
static size_t result_count, result_cap;

static void keep(result r)
{
    if (result_count == result_cap) {
        result_cap = result_cap ? 2 * result_cap : 64;
        results = realloc(results, result_cap * sizeof *results);
        if (!results)
            fail("out of memory");
    }
    results[result_count++] = r;
}

/* ---- the run's settings and fixture ----------------------------------------------- */

static struct {
    bool raw_cuda;      /* the raw CUDA column runs */
    bool host;          /* host backend: shorter runs, smaller copies */
    int rounds;         /* per-call rounds */
    int bw_rounds;      /* bandwidth rounds */
    int scaling_rounds;
    size_t max_bytes;   /* largest copy */
    int max_live;       /* largest live-handle count of the scaling runs */
} cfg;

/* Handles the cases work on; created once. */
static struct {
    aclrtStream stream, other_stream, callback_stream;
    aclrtEvent event, recorded_event;
    void *dev4, *host4; /* 4-byte device and pinned host buffers */
    pthread_t report_thread;
#ifdef ACLCUDA_HAVE_CUDA
    cudaStream_t raw_stream, raw_other_stream;
    cudaEvent_t raw_event, raw_recorded_event;
#endif
} fx;

static volatile uint64_t callbacks_run;

static void count_callback(void *arg)
{
    (void)arg;
    callbacks_run++;
}

/* The report thread may only call aclrtProcessReport once it serves a
 * stream: it starts looping after main has subscribed it. */
static pthread_barrier_t report_subscribed;
static atomic_bool report_stopping;

/* ACL callbacks run inside aclrtProcessReport on a thread subscribed to the
 * stream; the loop ends when the subscription does. */
static void *report_loop(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&report_subscribed);
    for (;;) {
        aclError err = aclrtProcessReport(1000);
        if (err == ACL_SUCCESS || err == ACL_ERROR_RT_REPORT_TIMEOUT)
            continue;
        if (!atomic_load(&report_stopping))
            fail("aclrtProcessReport returned %d: %s", (int)err, aclGetRecentErrMsg());
        return NULL;
    }
}

static void fixture_setup(void)
{
    ACL_OK(aclrtCreateStream(&fx.stream));
    ACL_OK(aclrtCreateStream(&fx.other_stream));
    ACL_OK(aclrtCreateStream(&fx.callback_stream));
    ACL_OK(aclrtCreateEvent(&fx.event));
    ACL_OK(aclrtCreateEvent(&fx.recorded_event));
    /* A wait on a never-recorded ACL event returns before reaching the
     * backend; record once so waits and queries do the real work. */
    ACL_OK(aclrtRecordEvent(fx.recorded_event, fx.stream));
    ACL_OK(aclrtSynchronizeStream(fx.stream));
    ACL_OK(aclrtMalloc(&fx.dev4, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&fx.host4, 4));
    memset(fx.host4, 0x5a, 4);

    pthread_barrier_init(&report_subscribed, NULL, 2);
    if (pthread_create(&fx.report_thread, NULL, report_loop, NULL))
        fail("cannot start the report thread");
    ACL_OK(aclrtSubscribeReport((uint64_t)fx.report_thread, fx.callback_stream));
    pthread_barrier_wait(&report_subscribed);

#ifdef ACLCUDA_HAVE_CUDA
    if (cfg.raw_cuda) {
        CUDA_OK(cudaSetDevice(0));
        int least;
        CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &raw_priority));
        CUDA_OK(raw_stream_create(&fx.raw_stream));
        CUDA_OK(raw_stream_create(&fx.raw_other_stream));
        CUDA_OK(cudaEventCreate(&fx.raw_event));
        CUDA_OK(cudaEventCreate(&fx.raw_recorded_event));
        CUDA_OK(cudaEventRecord(fx.raw_recorded_event, fx.raw_stream));
        CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
    }
#endif
}

static void fixture_teardown(void)
{
    atomic_store(&report_stopping, true);
    ACL_OK(aclrtUnSubscribeReport((uint64_t)fx.report_thread, fx.callback_stream));
    pthread_join(fx.report_thread, NULL);
    pthread_barrier_destroy(&report_subscribed);
    ACL_OK(aclrtFree(fx.dev4));
    ACL_OK(aclrtFreeHost(fx.host4));
    ACL_OK(aclrtDestroyEvent(fx.event));
    ACL_OK(aclrtDestroyEvent(fx.recorded_event));
    ACL_OK(aclrtDestroyStream(fx.stream));
    ACL_OK(aclrtDestroyStream(fx.other_stream));
    ACL_OK(aclrtDestroyStream(fx.callback_stream));
#ifdef ACLCUDA_HAVE_CUDA
    if (cfg.raw_cuda) {
        CUDA_OK(cudaEventDestroy(fx.raw_event));
        CUDA_OK(cudaEventDestroy(fx.raw_recorded_event));
        CUDA_OK(cudaStreamDestroy(fx.raw_stream));
        CUDA_OK(cudaStreamDestroy(fx.raw_other_stream));
    }
#endif
}

/* ---- per-call cases: acl-cuda ------------------------------------------------------- */

static void acl_settle(void)
{
    ACL_OK(aclrtSynchronizeStream(fx.stream));
    ACL_OK(aclrtSynchronizeStream(fx.other_stream));
}

static void acl_stream_create_destroy(int calls)
{
    for (int i = 0; i < calls; i++) {
        aclrtStream s;
        ACL_OK(aclrtCreateStream(&s));
        ACL_OK(aclrtDestroyStream(s));
    }
}

static void acl_event_create_destroy(int calls)
{
    for (int i = 0; i < calls; i++) {
        aclrtEvent e;
        ACL_OK(aclrtCreateEvent(&e));
        ACL_OK(aclrtDestroyEvent(e));
    }
}

static void acl_event_record(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtRecordEvent(fx.event, fx.stream));
}

static void acl_stream_wait_event(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtStreamWaitEvent(fx.other_stream, fx.recorded_event));
}

static void acl_record_wait(int calls)
{
    for (int i = 0; i < calls; i++) {
        ACL_OK(aclrtRecordEvent(fx.event, fx.stream));
        ACL_OK(aclrtStreamWaitEvent(fx.other_stream, fx.event));
    }
}

static void acl_event_query(int calls)
{
    for (int i = 0; i < calls; i++) {
        aclrtEventRecordedStatus status;
        ACL_OK(aclrtQueryEventStatus(fx.recorded_event, &status));
    }
}

static void acl_sync_empty(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtSynchronizeStream(fx.stream));
}

static void acl_memcpy_async_4b(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtMemcpyAsync(fx.dev4, 4, fx.host4, 4, ACL_MEMCPY_HOST_TO_DEVICE, fx.stream));
}

static void acl_memset_async_4b(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtMemsetAsync(fx.dev4, 4, 0, 4, fx.stream));
}

/* Latency of one stream releasing another: record, wait, and the waiting
 * stream's synchronize returns once both empty streams have moved on. */
static void acl_cross_stream_wait(int calls)
{
    for (int i = 0; i < calls; i++) {
        ACL_OK(aclrtRecordEvent(fx.event, fx.stream));
        ACL_OK(aclrtStreamWaitEvent(fx.other_stream, fx.event));
        ACL_OK(aclrtSynchronizeStream(fx.other_stream));
    }
}

/* With every stream idle: what an allocation and its free cost when no
 * queued work keeps the memory alive. */
static void acl_malloc_free_4k(int calls)
{
    for (int i = 0; i < calls; i++) {
        void *p;
        ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtFree(p));
    }
}

static void acl_malloc_free_host_4k(int calls)
{
    for (int i = 0; i < calls; i++) {
        void *p;
        ACL_OK(aclrtMallocHost(&p, 4096));
        ACL_OK(aclrtFreeHost(p));
    }
}

/* Stream reaches the callback, the report thread runs it, the stream
 * (held by ACL_CALLBACK_BLOCK) continues, and the synchronize returns. */
static void acl_callback_round_trip(int calls)
{
    for (int i = 0; i < calls; i++) {
        ACL_OK(aclrtLaunchCallback(count_callback, NULL, ACL_CALLBACK_BLOCK, fx.callback_stream));
        ACL_OK(aclrtSynchronizeStream(fx.callback_stream));
    }
}

/* ---- per-call cases: raw CUDA ------------------------------------------------------- */

#ifdef ACLCUDA_HAVE_CUDA
static void raw_settle(void)
{
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
    CUDA_OK(cudaStreamSynchronize(fx.raw_other_stream));
}

static void raw_stream_create_destroy(int calls)
{
    for (int i = 0; i < calls; i++) {
        cudaStream_t s;
        CUDA_OK(raw_stream_create(&s));
        CUDA_OK(cudaStreamDestroy(s));
    }
}

static void raw_event_create_destroy(int calls)
{
    for (int i = 0; i < calls; i++) {
        cudaEvent_t e;
        CUDA_OK(cudaEventCreate(&e));
        CUDA_OK(cudaEventDestroy(e));
    }
}

static void raw_event_record(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaEventRecord(fx.raw_event, fx.raw_stream));
}

static void raw_stream_wait_event(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaStreamWaitEvent(fx.raw_other_stream, fx.raw_recorded_event, 0));
}

static void raw_record_wait(int calls)
{
    for (int i = 0; i < calls; i++) {
        CUDA_OK(cudaEventRecord(fx.raw_event, fx.raw_stream));
        CUDA_OK(cudaStreamWaitEvent(fx.raw_other_stream, fx.raw_event, 0));
    }
}

static void raw_event_query(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaEventQuery(fx.raw_recorded_event));
}

static void raw_sync_empty(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
}

static void raw_memcpy_async_4b(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaMemcpyAsync(fx.dev4, fx.host4, 4, cudaMemcpyHostToDevice, fx.raw_stream));
}

static void raw_memset_async_4b(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaMemsetAsync(fx.dev4, 0, 4, fx.raw_stream));
}

static void raw_malloc_free_4k(int calls)
{
    for (int i = 0; i < calls; i++) {
        void *p;
        CUDA_OK(cudaMalloc(&p, 4096));
        CUDA_OK(cudaFree(p));
    }
}

static void raw_malloc_free_host_4k(int calls)
{
    for (int i = 0; i < calls; i++) {
        void *p;
        CUDA_OK(cudaHostAlloc(&p, 4096, cudaHostAllocPortable));
        CUDA_OK(cudaFreeHost(p));
    }
}

static void raw_cross_stream_wait(int calls)
{
    for (int i = 0; i < calls; i++) {
        CUDA_OK(cudaEventRecord(fx.raw_event, fx.raw_stream));
        CUDA_OK(cudaStreamWaitEvent(fx.raw_other_stream, fx.raw_event, 0));
        CUDA_OK(cudaStreamSynchronize(fx.raw_other_stream));
    }
}

static void raw_callback_round_trip(int calls)
{
    for (int i = 0; i < calls; i++) {
        CUDA_OK(cudaLaunchHostFunc(fx.raw_stream, count_callback, NULL));
        CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
    }
}
#define RAW(fn) fn
#else
#define RAW(fn) NULL
#endif

typedef struct per_call_case {
    const char *name;
    int calls; /* per batch */
    side acl, cuda;
} per_call_case;

static const per_call_case per_call_cases[] = {
    {"stream create+destroy", 64, {acl_stream_create_destroy, NULL},
     {RAW(raw_stream_create_destroy), NULL}},
    {"event create+destroy", 128, {acl_event_create_destroy, NULL},
     {RAW(raw_event_create_destroy), NULL}},
    {"event record", 256, {acl_event_record, acl_settle}, {RAW(raw_event_record), RAW(raw_settle)}},
    {"stream wait event", 256, {acl_stream_wait_event, acl_settle},
     {RAW(raw_stream_wait_event), RAW(raw_settle)}},
    {"record + wait pair", 256, {acl_record_wait, acl_settle},
     {RAW(raw_record_wait), RAW(raw_settle)}},
    {"event query", 256, {acl_event_query, NULL}, {RAW(raw_event_query), NULL}},
    {"synchronize empty stream", 256, {acl_sync_empty, NULL}, {RAW(raw_sync_empty), NULL}},
    {"memcpy async 4 B H2D", 256, {acl_memcpy_async_4b, acl_settle},
     {RAW(raw_memcpy_async_4b), RAW(raw_settle)}},
    {"memset async 4 B", 256, {acl_memset_async_4b, acl_settle},
     {RAW(raw_memset_async_4b), RAW(raw_settle)}},
    {"cross-stream wait latency", 32, {acl_cross_stream_wait, NULL},
     {RAW(raw_cross_stream_wait), NULL}},
    {"malloc+free 4 KiB", 64, {acl_malloc_free_4k, NULL}, {RAW(raw_malloc_free_4k), NULL}},
    {"mallocHost+freeHost 4 KiB", 64, {acl_malloc_free_host_4k, NULL},
     {RAW(raw_malloc_free_host_4k), NULL}},
    {"callback round trip", 32, {acl_callback_round_trip, NULL},
     {RAW(raw_callback_round_trip), NULL}},
};

enum { PER_CALL_CASES = sizeof per_call_cases / sizeof per_call_cases[0] };

/* ---- table printing ------------------------------------------------------------------ */

/* Targets, reported and not asserted: within 10 % or 50 ns of raw CUDA
 * (the difference taken round by round, comparison.diff). */
static const char *overhead_verdict(const comparison *c)
{
    if (!c->has_cuda)
        return "";
    return c->acl.median <= 1.10 * c->cuda.median || c->diff.median <= 50.0 ? "ok" : "MISS";
}

static void print_ns(const stats *s)
{
    printf("  %9.0f [%7.0f-%7.0f]", s->median, s->p10, s->p90);
}

static void print_per_call_header(const char *title, const char *first_column)
{
    printf("\n%s\n", title);
    printf("%-28s  %9s [%-15s]", first_column, "acl-cuda", "p10-p90 ns");
    if (cfg.raw_cuda)
        printf("  %9s [%-15s]  %6s  %7s  %s", "raw CUDA", "p10-p90 ns", "ratio", "diff", "target");
    printf("\n");
}

/* judged: the row has a target (a whole call, not a part of one). */
static void print_per_call_row(const char *label, const comparison *c, bool judged)
{
    printf("%-28s", label);
    print_ns(&c->acl);
    if (c->has_cuda) {
        print_ns(&c->cuda);
        printf("  %6.2f  %+7.0f  %s", c->acl.median / c->cuda.median, c->diff.median,
               judged ? overhead_verdict(c) : "");
    }
    printf("\n");
    fflush(stdout);
}

/* ---- per-call section ------------------------------------------------------------------ */

static void run_per_call(void)
{
    char title[160];
    snprintf(title, sizeof title,
             "Per call, ns (median [p10-p90] over %d interleaved rounds; batches of 32-256 calls)",
             cfg.rounds);
    print_per_call_header(title, "operation");
    for (int i = 0; i < PER_CALL_CASES; i++) {
        const per_call_case *pc = &per_call_cases[i];
        const side *cuda = cfg.raw_cuda ? &pc->cuda : NULL;
        comparison c = compare(&pc->acl, cuda, pc->calls, cfg.rounds);
        keep((result){.section = PER_CALL, .name = pc->name, .calls = pc->calls,
                      .rounds = cfg.rounds, .cmp = c});
        print_per_call_row(pc->name, &c, true);
    }
}

/* ---- callback hops section ------------------------------------------------------------ */

/* Where a callback round trip spends its time: from the launch call until
 * the callback runs (on the report thread for ACL, on CUDA's own thread for
 * raw CUDA), and from then until the synchronize returns. Timestamps from
 * one clock on both threads; the synchronize orders the callback's store
 * before the read. */
static _Atomic int64_t callback_ran_ns;

static void stamp_callback(void *arg)
{
    (void)arg;
    atomic_store_explicit(&callback_ran_ns, now_ns(), memory_order_release);
    callbacks_run++;
}

typedef struct hop_means {
    double to_run, to_return;
} hop_means;

static hop_means add_hops(hop_means m, int64_t launched, int64_t returned)
{
    int64_t ran = atomic_load_explicit(&callback_ran_ns, memory_order_acquire);
    return (hop_means){m.to_run + (double)(ran - launched), m.to_return + (double)(returned - ran)};
}

static hop_means acl_callback_hops(int calls)
{
    hop_means sum = {0, 0};
    for (int i = 0; i < calls; i++) {
        int64_t launched = now_ns();
        ACL_OK(aclrtLaunchCallback(stamp_callback, NULL, ACL_CALLBACK_BLOCK, fx.callback_stream));
        ACL_OK(aclrtSynchronizeStream(fx.callback_stream));
        sum = add_hops(sum, launched, now_ns());
    }
    return (hop_means){sum.to_run / calls, sum.to_return / calls};
}

#ifdef ACLCUDA_HAVE_CUDA
static hop_means raw_callback_hops(int calls)
{
    hop_means sum = {0, 0};
    for (int i = 0; i < calls; i++) {
        int64_t launched = now_ns();
        CUDA_OK(cudaLaunchHostFunc(fx.raw_stream, stamp_callback, NULL));
        CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
        sum = add_hops(sum, launched, now_ns());
    }
    return (hop_means){sum.to_run / calls, sum.to_return / calls};
}
#endif

static void run_callback_hops(void)
{
    enum { CALLS = 32 };
    static double acl_run[MAX_ROUNDS], acl_return[MAX_ROUNDS];
    static double raw_run[MAX_ROUNDS], raw_return[MAX_ROUNDS];
    for (int r = -WARMUP_BATCHES; r < cfg.rounds; r++) {
        for (int turn = 0; turn < 2; turn++) {
            bool acl_side = (turn == 0) == (r % 2 == 0);
            hop_means m;
            if (acl_side) {
                m = acl_callback_hops(CALLS);
            } else {
#ifdef ACLCUDA_HAVE_CUDA
                if (!cfg.raw_cuda)
                    continue;
                m = raw_callback_hops(CALLS);
#else
                continue;
#endif
            }
            if (r < 0)
                continue;
            (acl_side ? acl_run : raw_run)[r] = m.to_run;
            (acl_side ? acl_return : raw_return)[r] = m.to_return;
        }
    }
    char title[200];
    snprintf(title, sizeof title,
             "Callback round trip by hop, ns (median [p10-p90] over %d interleaved rounds of %d "
             "calls)",
             cfg.rounds, CALLS);
    print_per_call_header(title, "hop");
    const char *const names[] = {"launch to callback", "callback to sync return"};
    double *const acl_values[] = {acl_run, acl_return}, *const raw_values[] = {raw_run, raw_return};
    for (int h = 0; h < 2; h++) {
        comparison c = {.acl = summarize(acl_values[h], cfg.rounds), .has_cuda = cfg.raw_cuda};
        if (cfg.raw_cuda)
            c.cuda = summarize(raw_values[h], cfg.rounds);
        keep((result){.section = CALLBACK_HOPS, .name = names[h], .calls = CALLS,
                      .rounds = cfg.rounds, .cmp = c});
        print_per_call_row(names[h], &c, false);
    }
}

/* ---- bandwidth section ------------------------------------------------------------------- */

static struct {
    void *dev_a, *dev_b, *host; /* cfg.max_bytes each; host is pinned */
    void *dst, *src;            /* the current direction's pair */
    size_t bytes;
    aclrtMemcpyKind kind;
#ifdef ACLCUDA_HAVE_CUDA
    enum cudaMemcpyKind raw_kind;
#endif
} bw;

static void acl_copy_sync(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtMemcpy(bw.dst, bw.bytes, bw.src, bw.bytes, bw.kind));
}

static void acl_copy_async(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtMemcpyAsync(bw.dst, bw.bytes, bw.src, bw.bytes, bw.kind, fx.stream));
    ACL_OK(aclrtSynchronizeStream(fx.stream));
}

#ifdef ACLCUDA_HAVE_CUDA
/* cudaMemcpy returns before a device-to-device copy has landed; ACL's
 * aclrtMemcpy returns after. Wait for it, so both sides time landed data. */
static void raw_copy_sync(int calls)
{
    for (int i = 0; i < calls; i++) {
        CUDA_OK(cudaMemcpy(bw.dst, bw.src, bw.bytes, bw.raw_kind));
        if (bw.raw_kind == cudaMemcpyDeviceToDevice)
            CUDA_OK(cudaStreamSynchronize(cudaStreamLegacy));
    }
}

static void raw_copy_async(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaMemcpyAsync(bw.dst, bw.src, bw.bytes, bw.raw_kind, fx.raw_stream));
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
}

/* Raw cudaMemcpyAsync on the CUDA stream behind an ACL stream (one of its
 * own, so that fx.stream stays un-exported): set against raw_copy_async,
 * it separates what the stream costs from what the library's call path
 * costs. */
static aclrtStream native_owner;
static cudaStream_t native_stream;

static void native_copy_async(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaMemcpyAsync(bw.dst, bw.src, bw.bytes, bw.raw_kind, native_stream));
    CUDA_OK(cudaStreamSynchronize(native_stream));
}
#endif

static const side acl_sync_side = {acl_copy_sync, NULL}, acl_async_side = {acl_copy_async, NULL};
#ifdef ACLCUDA_HAVE_CUDA
static const side raw_sync_side = {raw_copy_sync, NULL}, raw_async_side = {raw_copy_async, NULL};
static const side native_async_side = {native_copy_async, NULL};
#endif

static void print_gbps(size_t bytes, const stats *s)
{
    /* Bytes per ns is GB/s; the slowest rounds give the lowest rate. */
    printf("  %8.2f [%6.2f-%6.2f]", bytes / s->median, bytes / s->p90, bytes / s->p10);
}

static void format_size(size_t bytes, char *out, size_t len)
{
    if (bytes >= (size_t)1 << 30)
        snprintf(out, len, "%zu GiB", bytes >> 30);
    else if (bytes >= (size_t)1 << 20)
        snprintf(out, len, "%zu MiB", bytes >> 20);
    else
        snprintf(out, len, "%zu KiB", bytes >> 10);
}

static void run_bandwidth(void)
{
    ACL_OK(aclrtMalloc(&bw.dev_a, cfg.max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&bw.dev_b, cfg.max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&bw.host, cfg.max_bytes));
    memset(bw.host, 1, cfg.max_bytes); /* fault every page in before timing */
    ACL_OK(aclrtMemset(bw.dev_a, cfg.max_bytes, 2, cfg.max_bytes));
    ACL_OK(aclrtMemset(bw.dev_b, cfg.max_bytes, 3, cfg.max_bytes));
#ifdef ACLCUDA_HAVE_CUDA
    if (cfg.raw_cuda) {
        void *native = NULL;
        ACL_OK(aclrtCreateStream(&native_owner));
        ACL_OK(aclcudaGetNativeStream(native_owner, &native));
        native_stream = native;
    }
#endif

    printf("\nCopy bandwidth, GB/s (median [p10-p90] over %d interleaved rounds; pinned host "
           "memory; async = batch of copies + one stream synchronize; native = raw CUDA copies "
           "on an ACL stream's CUDA stream)\n",
           cfg.bw_rounds);
    printf("%-5s %-6s %-8s  %8s [%-13s]", "dir", "mode", "size", "acl-cuda", "p10-p90");
    if (cfg.raw_cuda)
        printf("  %8s [%-13s]  %6s  %s", "raw CUDA", "p10-p90", "ratio", "target");
    printf("\n");

    static const struct {
        const char *name;
        aclrtMemcpyKind kind;
    } dirs[] = {
        {"H2D", ACL_MEMCPY_HOST_TO_DEVICE},
        {"D2H", ACL_MEMCPY_DEVICE_TO_HOST},
        {"D2D", ACL_MEMCPY_DEVICE_TO_DEVICE},
    };
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        bw.kind = dirs[d].kind;
        switch (bw.kind) {
        case ACL_MEMCPY_HOST_TO_DEVICE: bw.dst = bw.dev_a; bw.src = bw.host; break;
        case ACL_MEMCPY_DEVICE_TO_HOST: bw.dst = bw.host; bw.src = bw.dev_a; break;
        default: bw.dst = bw.dev_b; bw.src = bw.dev_a; break;
        }
#ifdef ACLCUDA_HAVE_CUDA
        bw.raw_kind = bw.kind == ACL_MEMCPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                      : bw.kind == ACL_MEMCPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                             : cudaMemcpyDeviceToDevice;
#endif
        /* Mode "native" (D2D, raw CUDA only): raw copies on an ACL stream's
         * CUDA stream in the acl-cuda column. */
        static const char *const mode_names[] = {"sync", "async", "native"};
        for (int mode = 0; mode < 3; mode++) {
            if (mode == 2 && (!cfg.raw_cuda || bw.kind != ACL_MEMCPY_DEVICE_TO_DEVICE))
                continue;
            for (size_t bytes = 4096; bytes <= cfg.max_bytes; bytes *= 4) {
                bw.bytes = bytes;
                /* About 64 MiB per batch, so small copies are timed over many calls. */
                size_t per_batch = ((size_t)64 << 20) / bytes;
                int calls = per_batch > 256 ? 256 : per_batch < 1 ? 1 : (int)per_batch;
                const side *acl = mode ? &acl_async_side : &acl_sync_side;
                const side *cuda = NULL;
#ifdef ACLCUDA_HAVE_CUDA
                if (cfg.raw_cuda)
                    cuda = mode ? &raw_async_side : &raw_sync_side;
                if (mode == 2)
                    acl = &native_async_side;
#endif
                comparison c = compare(acl, cuda, calls, cfg.bw_rounds);
                keep((result){.section = BANDWIDTH, .name = dirs[d].name,
                              .mode = mode_names[mode], .bytes = bytes, .calls = calls,
                              .rounds = cfg.bw_rounds, .cmp = c});
                char size[32];
                format_size(bytes, size, sizeof size);
                printf("%-5s %-6s %-8s", dirs[d].name, mode_names[mode], size);
                print_gbps(bytes, &c.acl);
                if (c.has_cuda) {
                    /* Rates: acl over raw, so below 1 means slower. */
                    double ratio = c.cuda.median / c.acl.median;
                    print_gbps(bytes, &c.cuda);
                    printf("  %6.3f  %s", ratio,
                           bytes < ((size_t)1 << 20) ? "" : ratio >= 0.97 ? "ok" : "MISS");
                }
                printf("\n");
                fflush(stdout);
            }
        }
    }
#ifdef ACLCUDA_HAVE_CUDA
    if (cfg.raw_cuda)
        ACL_OK(aclrtDestroyStream(native_owner));
#endif
    ACL_OK(aclrtFree(bw.dev_a));
    ACL_OK(aclrtFree(bw.dev_b));
    ACL_OK(aclrtFreeHost(bw.host));
}

/* ---- scaling section ------------------------------------------------------------------------ */

/* Extra live handles, beyond the fixture's. */
static struct {
    aclrtStream *streams;
    aclrtEvent *events;
    int count;
#ifdef ACLCUDA_HAVE_CUDA
    cudaStream_t *raw_streams;
    cudaEvent_t *raw_events;
#endif
} extra;

/* Creates handles until `target` extra ones of each kind are alive and
 * returns how many are; a backend that runs out first ends the growth
 * there (reported, not fatal: the run's other results stay). */
static int grow_live_handles(int target)
{
    extra.streams = realloc(extra.streams, (size_t)target * sizeof *extra.streams);
    extra.events = realloc(extra.events, (size_t)target * sizeof *extra.events);
#ifdef ACLCUDA_HAVE_CUDA
    extra.raw_streams = realloc(extra.raw_streams, (size_t)target * sizeof *extra.raw_streams);
    extra.raw_events = realloc(extra.raw_events, (size_t)target * sizeof *extra.raw_events);
    if (!extra.raw_streams || !extra.raw_events)
        fail("out of memory");
#endif
    if (!extra.streams || !extra.events)
        fail("out of memory");
    while (extra.count < target) {
        int i = extra.count;
        aclError err = aclrtCreateStream(&extra.streams[i]);
        if (err != ACL_SUCCESS) {
            printf("(creating acl stream %d failed: %d %s)\n", i + 1, (int)err,
                   aclGetRecentErrMsg());
            break;
        }
        err = aclrtCreateEvent(&extra.events[i]);
        if (err != ACL_SUCCESS) {
            printf("(creating acl event %d failed: %d %s)\n", i + 1, (int)err,
                   aclGetRecentErrMsg());
            ACL_OK(aclrtDestroyStream(extra.streams[i]));
            break;
        }
#ifdef ACLCUDA_HAVE_CUDA
        if (cfg.raw_cuda) {
            cudaError_t raw = raw_stream_create(&extra.raw_streams[i]);
            if (raw == cudaSuccess) {
                raw = cudaEventCreate(&extra.raw_events[i]);
                if (raw != cudaSuccess)
                    CUDA_OK(cudaStreamDestroy(extra.raw_streams[i]));
            }
            if (raw != cudaSuccess) {
                printf("(creating raw CUDA stream/event %d failed: %s)\n", i + 1,
                       cudaGetErrorString(raw));
                ACL_OK(aclrtDestroyStream(extra.streams[i]));
                ACL_OK(aclrtDestroyEvent(extra.events[i]));
                break;
            }
        }
#endif
        extra.count++;
    }
    return extra.count;
}

static void drop_live_handles(void)
{
    for (int i = 0; i < extra.count; i++) {
        ACL_OK(aclrtDestroyStream(extra.streams[i]));
        ACL_OK(aclrtDestroyEvent(extra.events[i]));
#ifdef ACLCUDA_HAVE_CUDA
        if (cfg.raw_cuda) {
            CUDA_OK(cudaStreamDestroy(extra.raw_streams[i]));
            CUDA_OK(cudaEventDestroy(extra.raw_events[i]));
        }
#endif
    }
    free(extra.streams);
    free(extra.events);
#ifdef ACLCUDA_HAVE_CUDA
    free(extra.raw_streams);
    free(extra.raw_events);
#endif
    memset(&extra, 0, sizeof extra);
}

/* The per-call cases whose cost must not depend on how many handles are
 * alive. */
static const char *const scaling_ops[] = {
    "stream create+destroy", "event create+destroy", "event record", "stream wait event",
    "event query", "synchronize empty stream", "memcpy async 4 B H2D",
};

static const per_call_case *find_case(const char *name)
{
    for (int i = 0; i < PER_CALL_CASES; i++)
        if (!strcmp(per_call_cases[i].name, name))
            return &per_call_cases[i];
    fail("no case %s", name);
}

static void run_scaling(void)
{
    enum { OPS = sizeof scaling_ops / sizeof scaling_ops[0] };
    comparison table[3][OPS];

    int lives[] = {1, 100, cfg.max_live};
    int levels = 0;
    for (int l = 0; l < 3; l++, levels++) {
        /* The fixture's stream and event are the first live ones. */
        int live = grow_live_handles(lives[l] - 1) + 1;
        if (live < lives[l]) {
            if (live <= lives[l > 0 ? l - 1 : 0])
                break;
            lives[l] = live;
        }
        for (int o = 0; o < OPS; o++) {
            const per_call_case *pc = find_case(scaling_ops[o]);
            table[l][o] = compare(&pc->acl, cfg.raw_cuda ? &pc->cuda : NULL, pc->calls,
                                  cfg.scaling_rounds);
            keep((result){.section = SCALING, .name = pc->name, .live = lives[l],
                          .calls = pc->calls, .rounds = cfg.scaling_rounds, .cmp = table[l][o]});
        }
    }
    drop_live_handles();

    printf("\nScaling: median ns per call with");
    for (int l = 0; l < levels; l++)
        printf("%s%d", l == 0 ? " " : l == levels - 1 ? " and " : ", ", lives[l]);
    printf(" live streams and events each (%d rounds)%s; growth = last / first\n",
           cfg.scaling_rounds, cfg.raw_cuda ? "; raw CUDA has as many raw handles alive" : "");
    printf("%-26s", "operation");
    for (int l = 0; l < levels; l++)
        printf(" %9d", lives[l]);
    printf("  %7s", "growth");
    if (cfg.raw_cuda) {
        printf("   ");
        for (int l = 0; l < levels; l++)
            printf("  raw %5d", lives[l]);
        printf("  %7s", "growth");
    }
    printf("\n");
    for (int o = 0; o < OPS; o++) {
        printf("%-26s", scaling_ops[o]);
        for (int l = 0; l < levels; l++)
            printf(" %9.0f", table[l][o].acl.median);
        printf("  %6.2fx", table[levels - 1][o].acl.median / table[0][o].acl.median);
        if (cfg.raw_cuda) {
            printf("   ");
            for (int l = 0; l < levels; l++)
                printf(" %9.0f", table[l][o].cuda.median);
            printf("  %6.2fx", table[levels - 1][o].cuda.median / table[0][o].cuda.median);
        }
        printf("\n");
    }
    fflush(stdout);
}

/* ---- machine description ---------------------------------------------------------------- */

static struct {
    char date[32];
    char host[256];
    char cpu[128];
    long cpus;
    char device[256];
    char driver[64];     /* NVIDIA kernel driver version, "" unknown */
    int driver_cuda;     /* cudaDriverGetVersion, 0 unknown */
    int runtime_cuda;    /* cudaRuntimeGetVersion of the raw side */
} machine;

/* The first "model name" of /proc/cpuinfo. */
static void read_cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            colon += 1 + strspn(colon + 1, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(out, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

#ifdef ACLCUDA_HAVE_CUDA
/* The version number in /proc/driver/nvidia/version ("... Module  570.124.06 ..."). */
static void read_nvidia_driver(char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\n", &save); tok;
             tok = strtok_r(NULL, " \t\n", &save)) {
            unsigned a, b;
            if (sscanf(tok, "%u.%u", &a, &b) == 2 && strspn(tok, "0123456789.") == strlen(tok)) {
                snprintf(out, len, "%s", tok);
                break;
            }
        }
    }
    fclose(f);
}
#endif

static void describe_machine(void)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(machine.date, sizeof machine.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(machine.host, sizeof machine.host, "%s %s %s", u.sysname, u.release, u.machine);
    read_cpu_model(machine.cpu, sizeof machine.cpu);
    machine.cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const char *soc = aclrtGetSocName();
    snprintf(machine.device, sizeof machine.device, "%s", soc ? soc : "unknown");
#ifdef ACLCUDA_HAVE_CUDA
    if (cfg.raw_cuda) {
        struct cudaDeviceProp p;
        CUDA_OK(cudaGetDeviceProperties(&p, 0));
        snprintf(machine.device, sizeof machine.device, "%s", p.name);
        CUDA_OK(cudaDriverGetVersion(&machine.driver_cuda));
        CUDA_OK(cudaRuntimeGetVersion(&machine.runtime_cuda));
        read_nvidia_driver(machine.driver, sizeof machine.driver);
    }
#endif
}

static void print_machine(const char *backend)
{
    printf("acl-cuda %s benchmarks, backend %s, %s\n", PACKAGE_VERSION, backend, machine.date);
    printf("host: %s, %s, %ld CPUs\n", machine.host, machine.cpu, machine.cpus);
    if (cfg.raw_cuda)
        printf("device: %s, driver %s (CUDA %d.%d), runtime %d.%d\n", machine.device,
               machine.driver[0] ? machine.driver : "?", machine.driver_cuda / 1000,
               machine.driver_cuda % 1000 / 10, machine.runtime_cuda / 1000,
               machine.runtime_cuda % 1000 / 10);
    else
        printf("device: %s (no raw CUDA column on the %s backend)\n", machine.device, backend);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_stats(FILE *f, const char *key, const stats *s)
{
    fprintf(f, "\"%s\": {\"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f}", key, s->median,
            s->p10, s->p90);
}

static void json_result(FILE *f, const result *r)
{
    fputs("    {\"name\": ", f);
    json_string(f, r->name);
    if (r->section == BANDWIDTH)
        fprintf(f, ", \"mode\": \"%s\", \"bytes\": %zu", r->mode, r->bytes);
    if (r->section == SCALING)
        fprintf(f, ", \"live\": %d", r->live);
    fprintf(f, ", \"calls_per_batch\": %d, \"rounds\": %d, ", r->calls, r->rounds);
    json_stats(f, "acl", &r->cmp.acl);
    if (r->section == BANDWIDTH)
        fprintf(f, ", \"acl_gbps\": %.3f", r->bytes / r->cmp.acl.median);
    if (r->cmp.has_cuda) {
        fputs(", ", f);
        json_stats(f, "cuda", &r->cmp.cuda);
        fprintf(f, ", \"ratio\": %.4f, ", r->cmp.acl.median / r->cmp.cuda.median);
        json_stats(f, "diff", &r->cmp.diff);
        if (r->section == BANDWIDTH)
            fprintf(f, ", \"cuda_gbps\": %.3f, \"rate_ratio\": %.4f", r->bytes / r->cmp.cuda.median,
                    r->cmp.cuda.median / r->cmp.acl.median);
    }
    fputc('}', f);
}

static void write_json(const char *path, const char *backend)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail("cannot write %s", path);
    fprintf(f, "{\n  \"tool\": \"bench_c\",\n  \"version\": \"%s\",\n  \"backend\": \"%s\",\n",
            PACKAGE_VERSION, backend);
    fputs("  \"date\": ", f);
    json_string(f, machine.date);
    fputs(",\n  \"host\": ", f);
    json_string(f, machine.host);
    fputs(",\n  \"cpu\": ", f);
    json_string(f, machine.cpu);
    fprintf(f, ",\n  \"cpus\": %ld,\n  \"device\": ", machine.cpus);
    json_string(f, machine.device);
    fputs(",\n  \"nvidia_driver\": ", f);
    json_string(f, machine.driver);
    fprintf(f, ",\n  \"cuda_driver_version\": %d,\n  \"cuda_runtime_version\": %d,\n",
            machine.driver_cuda, machine.runtime_cuda);
    fprintf(f, "  \"method\": \"interleaved batches, order swapped every round, %d warm-up "
               "batches; ns per call = batch time / calls; ratio = acl / raw CUDA time; "
               "diff = acl minus raw CUDA within each round; "
               "rate_ratio = acl / raw CUDA bandwidth\",\n",
            WARMUP_BATCHES);
    static const char *const keys[] = {"per_call", "callback_hops", "bandwidth", "scaling"};
    for (int sec = PER_CALL; sec <= SCALING; sec++) {
        fprintf(f, "  \"%s\": [\n", keys[sec]);
        bool first = true;
        for (size_t i = 0; i < result_count; i++) {
            if (results[i].section != (section_kind)sec)
                continue;
            if (!first)
                fputs(",\n", f);
            first = false;
            json_result(f, &results[i]);
        }
        fprintf(f, "\n  ]%s\n", sec == SCALING ? "" : ",");
    }
    fputs("}\n", f);
    if (fclose(f))
        fail("cannot write %s", path);
}

/* ---- main ------------------------------------------------------------------------------------ */

static void usage(void)
{
    puts("usage: bench_c [--backend] [--json PATH] [--rounds N] [--max-bytes N] [--max-live N]\n"
         "  --backend      print the backend this process gets (cuda or host) and exit\n"
         "  --json PATH    write the results as JSON to PATH\n"
         "  --rounds N     rounds per per-call measurement (default 41; bandwidth uses\n"
         "                 at most 15, scaling at most 21)\n"
         "  --max-bytes N  largest copy (default 1 GiB on cuda, 64 MiB on host)\n"
         "  --max-live N   most live streams/events of the scaling runs (default 10000)");
}

static long parse_positive(const char *text, const char *option)
{
    char *end;
    long long v = text ? strtoll(text, &end, 0) : 0;
    if (!text || *end || v <= 0)
        fail("%s needs a positive number", option);
    return (long)v;
}

int main(int argc, char **argv)
{
    bench_name = "bench_c";
    const char *json_path = NULL;
    long rounds = 0, max_bytes = 0, max_live = 0;
    bool print_backend = false;
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--backend")) {
            print_backend = true;
        } else if (!strcmp(argv[i], "--json") && next) {
            json_path = argv[++i];
        } else if (!strcmp(argv[i], "--rounds")) {
            rounds = parse_positive(next, argv[i]);
            i++;
        } else if (!strcmp(argv[i], "--max-bytes")) {
            max_bytes = parse_positive(next, argv[i]);
            i++;
        } else if (!strcmp(argv[i], "--max-live")) {
            max_live = parse_positive(next, argv[i]);
            i++;
        } else {
            usage();
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }

    ACL_OK(aclInit(NULL));
    const char *backend = aclcudaGetBackendName();
    if (print_backend) {
        puts(backend);
        ACL_OK(aclFinalize());
        return 0;
    }
    ACL_OK(aclrtSetDevice(0));

#ifdef ACLCUDA_HAVE_CUDA
    cfg.raw_cuda = !strcmp(backend, "cuda");
#endif
    cfg.host = strcmp(backend, "cuda") != 0;
    cfg.rounds = rounds ? (int)rounds : 41;
    if (cfg.rounds > MAX_ROUNDS)
        fail("at most %d rounds", MAX_ROUNDS);
    cfg.bw_rounds = cfg.rounds < 15 ? cfg.rounds : 15;
    cfg.scaling_rounds = cfg.rounds < 21 ? cfg.rounds : 21;
    cfg.max_bytes = max_bytes ? (size_t)max_bytes : cfg.host ? (size_t)64 << 20 : (size_t)1 << 30;
    if (cfg.max_bytes < 4096)
        fail("--max-bytes must be at least 4096");
    cfg.max_live = max_live ? (int)max_live : 10000;
    if (cfg.max_live <= 100)
        fail("--max-live must be above 100");

    describe_machine();
    print_machine(backend);
    fixture_setup();
    /* The JSON is rewritten after each section, so that a run cut short
     * keeps what it measured. */
    void (*const sections[])(void) = {run_per_call, run_callback_hops, run_bandwidth, run_scaling};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        sections[i]();
        if (json_path)
            write_json(json_path, backend);
    }
    if (callbacks_run == 0)
        fail("no callback ran");
    fixture_teardown();
    if (json_path)
        printf("\nJSON: %s\n", json_path);
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    free(results);
    return 0;
}
