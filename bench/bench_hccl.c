/* HCCL's collectives (issue #27): HcclAllReduce and HcclAllGather against
 * the library libhccl's engine runs them on, called directly in the same
 * run on the same buffers: NCCL on the cuda backend, Gloo on the host
 * backend.
 *
 * Ranks are threads of this process, one per device (one NCCL rank per
 * GPU): as many as the cuda backend has GPUs, ACLCUDA_HOST_DEVICE_COUNT
 * (default 2 here) on the host backend, or --ranks N. Rank 0 is the main
 * thread and runs the harness (harness.h, bench_c's method: warm-up,
 * interleaved rounds, medians); each batch it times is run by every rank at
 * once, so a batch's time is the time until the slowest rank is done.
 *
 *  - Latency, 8 B, mode "sync": each call followed by its stream's
 *    synchronize (aclrtSynchronizeStream; raw NCCL cudaStreamSynchronize;
 *    raw Gloo's calls return when done). Target: HCCL <= 1.05x raw + 2 us.
 *    Mode "async": the same calls, one synchronize per batch; no target,
 *    it tells the stream's hand-offs apart from the collective's cost.
 *  - Bus bandwidth, 1 MiB to 1 GiB (64 MiB on the host backend, where the
 *    bytes go through TCP on loopback): a batch of calls, then one
 *    synchronize. Bus bandwidth as NCCL's tests define it: size / time x
 *    2(n-1)/n for all-reduce, x (n-1)/n for all-gather, size being the
 *    all-reduce's buffer and the all-gather's whole output. With one rank
 *    the factor is 0: the rows give size / time, marked "1 rank". Target:
 *    HCCL >= 0.97x raw.
 *
 * All-reduce sums fp32, out of place; all-gather moves bytes (INT8).
 *
 * The raw NCCL side dlopens libnccl.so.2 (or HCCL_NCCL_LIBRARY) as the
 * engine does, with blocking communicators from ncclCommInitRank, and
 * queues on its own CUDA streams (non-blocking, greatest priority, as
 * aclrtCreateStream makes them). The raw Gloo side connects a TCP device
 * per rank on HCCL_IF_IP (set to 127.0.0.1 when unset, for both sides),
 * meeting through Gloo's HashStore.
 *
 *   bench_hccl [--json PATH] [--rounds N] [--max-bytes N] [--ranks N]
 *
 * The results go to PATH under the key "hccl". */
#include "config.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "harness.h"
#include "hccl/hccl.h"

#if defined(ACLCUDA_HAVE_NCCL) && defined(ACLCUDA_HAVE_CUDA)
#define HAVE_RAW_NCCL 1
#include <dlfcn.h>
/* nccl.h declares ncclGroupStart() and friends without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#endif

#ifdef ACLCUDA_HAVE_GLOO
#include "bench_hccl_gloo.h"
#endif

#define HCCL_OK(call)                                                                              \
    do {                                                                                           \
        HcclResult hccl_ok_ret_ = (call);                                                          \
        if (hccl_ok_ret_ != HCCL_SUCCESS)                                                          \
            fail("%s:%d: %s returned %d: %s", __FILE__, __LINE__, #call, (int)hccl_ok_ret_,        \
                 HcclGetErrorString(hccl_ok_ret_));                                                \
    } while (0)

enum { MAX_RANKS = 8, LATENCY_BYTES = 8, LATENCY_CALLS = 32 };

/* A raw collective that does not finish within this fails the run. */
#define RAW_TIMEOUT_S 120.0

typedef enum { RAW_NONE, RAW_WITH_NCCL, RAW_WITH_GLOO } raw_library;

static struct {
    uint32_t nranks;
    raw_library raw;
    bool host;
    int rounds, bw_rounds;
    size_t max_bytes;
} cfg;

/* ---- raw NCCL ------------------------------------------------------------------------------ */

#ifdef HAVE_RAW_NCCL
static struct {
    __typeof__(ncclGetUniqueId) *get_unique_id;
    __typeof__(ncclCommInitRank) *comm_init_rank;
    __typeof__(ncclCommDestroy) *comm_destroy;
    __typeof__(ncclAllReduce) *all_reduce;
    __typeof__(ncclAllGather) *all_gather;
    __typeof__(ncclGetErrorString) *error_string;
} nccl;

#define NCCL_OK(call)                                                                              \
    do {                                                                                           \
        ncclResult_t nccl_ok_ret_ = (call);                                                        \
        if (nccl_ok_ret_ != ncclSuccess)                                                           \
            fail("%s:%d: %s returned %d: %s", __FILE__, __LINE__, #call, (int)nccl_ok_ret_,        \
                 nccl.error_string(nccl_ok_ret_));                                                 \
    } while (0)

/* The library the engine loads (engine_nccl.c): HCCL_NCCL_LIBRARY, else
 * libnccl.so.2; dlopen gives both the same copy. */
static void load_nccl(void)
{
    const char *name = getenv("HCCL_NCCL_LIBRARY");
    if (!name || !*name)
        name = "libnccl.so.2";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        fail("cannot load NCCL from %s: %s", name, dlerror());
    struct {
        void **slot;
        const char *symbol;
    } const entries[] = {
        {(void **)&nccl.get_unique_id, "ncclGetUniqueId"},
        {(void **)&nccl.comm_init_rank, "ncclCommInitRank"},
        {(void **)&nccl.comm_destroy, "ncclCommDestroy"},
        {(void **)&nccl.all_reduce, "ncclAllReduce"},
        {(void **)&nccl.all_gather, "ncclAllGather"},
        {(void **)&nccl.error_string, "ncclGetErrorString"},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (!(*entries[i].slot = dlsym(lib, entries[i].symbol)))
            fail("%s has no %s", name, entries[i].symbol);
}
#endif

/* ---- ranks as threads ---------------------------------------------------------------------- */

typedef struct rank_ctx {
    uint32_t rank;
    HcclComm comm;
    aclrtStream stream;
    void *send, *recv; /* cfg.max_bytes each, on the rank's device */
#ifdef HAVE_RAW_NCCL
    ncclComm_t nccl;
    cudaStream_t raw_stream;
#endif
#ifdef ACLCUDA_HAVE_GLOO
    raw_gloo *gloo;
#endif
    pthread_t thread;
} rank_ctx;

static rank_ctx ranks[MAX_RANKS];

/* What every rank runs now: a job over `calls` calls of the current op. */
typedef void (*rank_job)(rank_ctx *r, int calls);

static struct {
    pthread_barrier_t start, done;
    rank_job job; /* NULL: the rank threads end */
    int calls;
    HcclRootInfo root;
    const char *address; /* raw Gloo's */
#ifdef HAVE_RAW_NCCL
    ncclUniqueId nccl_id;
#endif
#ifdef ACLCUDA_HAVE_GLOO
    raw_gloo_store *gloo_store;
#endif
} world;

/* The op the jobs run. */
typedef enum { ALLREDUCE, ALLGATHER } collective;

static struct {
    collective coll;
    size_t count;   /* elements each rank sends: fp32 (all-reduce) or bytes (all-gather) */
    bool sync_each; /* a stream synchronize after every call, else one per batch */
} op;

/* Rank 0 (this thread) runs its part of a job while the other ranks run
 * theirs; the barriers bracket the job, so the harness's clock on rank 0
 * spans the whole of it on every rank. */
static void run_on_all_ranks(rank_job job, int calls)
{
    world.job = job;
    world.calls = calls;
    pthread_barrier_wait(&world.start);
    if (job)
        job(&ranks[0], calls);
    pthread_barrier_wait(&world.done);
}

static void *rank_thread(void *arg)
{
    rank_ctx *r = arg;
    for (;;) {
        pthread_barrier_wait(&world.start);
        rank_job job = world.job;
        if (job)
            job(r, world.calls);
        pthread_barrier_wait(&world.done);
        if (!job)
            return NULL;
    }
}

/* Joins both sides' communicators (every rank at once: joining is
 * collective) and makes the rank's stream and buffers. */
static void rank_setup(rank_ctx *r, int calls)
{
    (void)calls;
    ACL_OK(aclrtSetDevice((int32_t)r->rank));
    HCCL_OK(HcclCommInitRootInfo(cfg.nranks, &world.root, r->rank, &r->comm));
    ACL_OK(aclrtCreateStream(&r->stream));
    ACL_OK(aclrtMalloc(&r->send, cfg.max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&r->recv, cfg.max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Every page touched before timing; zeros, whose sums stay zero. */
    ACL_OK(aclrtMemset(r->send, cfg.max_bytes, 0, cfg.max_bytes));
    ACL_OK(aclrtMemset(r->recv, cfg.max_bytes, 0, cfg.max_bytes));
#ifdef HAVE_RAW_NCCL
    if (cfg.raw == RAW_WITH_NCCL) {
        CUDA_OK(cudaSetDevice((int)r->rank));
        int least, greatest;
        CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CUDA_OK(cudaStreamCreateWithPriority(&r->raw_stream, cudaStreamNonBlocking, greatest));
        NCCL_OK(nccl.comm_init_rank(&r->nccl, (int)cfg.nranks, world.nccl_id, (int)r->rank));
    }
#endif
#ifdef ACLCUDA_HAVE_GLOO
    if (cfg.raw == RAW_WITH_GLOO) {
        char why[512];
        r->gloo = raw_gloo_join(world.gloo_store, world.address, (int)r->rank, (int)cfg.nranks,
                                RAW_TIMEOUT_S, why, sizeof why);
        if (!r->gloo)
            fail("rank %u: %s", r->rank, why);
    }
#endif
}

static void rank_teardown(rank_ctx *r, int calls)
{
    (void)calls;
#ifdef HAVE_RAW_NCCL
    if (cfg.raw == RAW_WITH_NCCL) {
        NCCL_OK(nccl.comm_destroy(r->nccl));
        CUDA_OK(cudaStreamDestroy(r->raw_stream));
    }
#endif
#ifdef ACLCUDA_HAVE_GLOO
    if (cfg.raw == RAW_WITH_GLOO)
        raw_gloo_free(r->gloo);
#endif
    ACL_OK(aclrtSynchronizeStream(r->stream));
    HCCL_OK(HcclCommDestroy(r->comm));
    ACL_OK(aclrtDestroyStream(r->stream));
    ACL_OK(aclrtFree(r->send));
    ACL_OK(aclrtFree(r->recv));
    ACL_OK(aclrtResetDevice((int32_t)r->rank));
}

/* ---- the two sides ------------------------------------------------------------------------- */

static void hccl_calls(rank_ctx *r, int calls)
{
    for (int i = 0; i < calls; i++) {
        if (op.coll == ALLREDUCE)
            HCCL_OK(HcclAllReduce(r->send, r->recv, op.count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                  r->comm, r->stream));
        else
            HCCL_OK(
                HcclAllGather(r->send, r->recv, op.count, HCCL_DATA_TYPE_INT8, r->comm, r->stream));
        if (op.sync_each)
            ACL_OK(aclrtSynchronizeStream(r->stream));
    }
    if (!op.sync_each)
        ACL_OK(aclrtSynchronizeStream(r->stream));
}

static void raw_calls(rank_ctx *r, int calls)
{
#ifdef HAVE_RAW_NCCL
    if (cfg.raw == RAW_WITH_NCCL) {
        for (int i = 0; i < calls; i++) {
            if (op.coll == ALLREDUCE)
                NCCL_OK(nccl.all_reduce(r->send, r->recv, op.count, ncclFloat32, ncclSum, r->nccl,
                                        r->raw_stream));
            else
                NCCL_OK(
                    nccl.all_gather(r->send, r->recv, op.count, ncclInt8, r->nccl, r->raw_stream));
            if (op.sync_each)
                CUDA_OK(cudaStreamSynchronize(r->raw_stream));
        }
        if (!op.sync_each)
            CUDA_OK(cudaStreamSynchronize(r->raw_stream));
        return;
    }
#endif
#ifdef ACLCUDA_HAVE_GLOO
    if (cfg.raw == RAW_WITH_GLOO) {
        char why[512];
        for (int i = 0; i < calls; i++) {
            bool done =
                op.coll == ALLREDUCE
                    ? raw_gloo_allreduce_f32(r->gloo, r->send, r->recv, op.count, why, sizeof why)
                    : raw_gloo_allgather(r->gloo, r->send, r->recv, op.count, why, sizeof why);
            if (!done)
                fail("rank %u: %s", r->rank, why);
        }
        return;
    }
#endif
    (void)r;
    (void)calls;
    fail("no raw side on this backend");
}

static void hccl_batch(int calls)
{
    run_on_all_ranks(hccl_calls, calls);
}

static void raw_batch(int calls)
{
    run_on_all_ranks(raw_calls, calls);
}

static const side hccl_side = {hccl_batch, NULL}, raw_side = {raw_batch, NULL};

/* ---- rows ---------------------------------------------------------------------------------- */

static const char *collective_name(collective c)
{
    return c == ALLREDUCE ? "allreduce" : "all-gather";
}

static const char *raw_name(void)
{
    return cfg.raw == RAW_WITH_NCCL ? "NCCL" : cfg.raw == RAW_WITH_GLOO ? "Gloo" : "none";
}

static const char *raw_key(void)
{
    return cfg.raw == RAW_WITH_NCCL ? "nccl" : cfg.raw == RAW_WITH_GLOO ? "gloo" : "none";
}

/* Sets op for a collective of `bytes` (the all-reduce's buffer, the
 * all-gather's whole output) and returns the bytes it really moves: an
 * all-gather's share per rank is rounded down, to at least one byte. */
static size_t set_op(collective c, size_t bytes, bool sync_each)
{
    op.coll = c;
    op.sync_each = sync_each;
    if (c == ALLREDUCE) {
        op.count = bytes / sizeof(float);
        return op.count * sizeof(float);
    }
    op.count = bytes / cfg.nranks ? bytes / cfg.nranks : 1;
    return op.count * cfg.nranks;
}

/* NCCL's tests' bus bandwidth factor; with one rank, 1 (size / time). */
static double busbw_factor(collective c)
{
    double n = cfg.nranks;
    if (cfg.nranks == 1)
        return 1;
    return c == ALLREDUCE ? 2 * (n - 1) / n : (n - 1) / n;
}

static bool latency_met(const comparison *c)
{
    return c->acl.median <= 1.05 * c->cuda.median + 2000;
}

static void format_size(size_t bytes, char *out, size_t len)
{
    if (bytes >= (size_t)1 << 30 && bytes % ((size_t)1 << 30) == 0)
        snprintf(out, len, "%zu GiB", bytes >> 30);
    else if (bytes >= (size_t)1 << 20 && bytes % ((size_t)1 << 20) == 0)
        snprintf(out, len, "%zu MiB", bytes >> 20);
    else
        snprintf(out, len, "%zu B", bytes);
}

static json_t *row_json(collective c, size_t bytes, int calls, int rounds, const comparison *cmp)
{
    json_t *row =
        json_pack("{s:s, s:s, s:I, s:i, s:i, s:o}", "name", collective_name(c), "mode",
                  op.sync_each ? "sync" : "async", "bytes", (json_int_t)bytes, "calls_per_batch",
                  calls, "rounds", rounds, "acl", stats_json(&cmp->acl));
    if (cmp->has_cuda) {
        json_object_set_new(row, raw_key(), stats_json(&cmp->cuda));
        json_object_set_new(row, "ratio", json_real(cmp->acl.median / cmp->cuda.median));
        json_object_set_new(row, "diff", stats_json(&cmp->diff));
    }
    return row;
}

static void print_ns(const stats *s)
{
    printf("  %9.0f [%7.0f-%7.0f]", s->median, s->p10, s->p90);
}

static json_t *run_latency(void)
{
    json_t *rows = json_array();
    printf("\nLatency, ns per call (median [p10-p90] over %d interleaved rounds of %d calls; "
           "sync = each call + its stream's synchronize, async = one synchronize per batch, "
           "no target)\n",
           cfg.rounds, LATENCY_CALLS);
    printf("%-20s %-6s  %9s [%-15s]", "operation", "mode", "hccl", "p10-p90 ns");
    if (cfg.raw != RAW_NONE)
        printf("  %9s [%-15s]  %6s  %7s  %s", raw_name(), "p10-p90 ns", "ratio", "diff", "target");
    printf("\n");
    const collective colls[] = {ALLREDUCE, ALLGATHER};
    for (int mode = 0; mode < 2; mode++) {
        for (size_t i = 0; i < 2; i++) {
            bool sync_each = mode == 0;
            size_t bytes = set_op(colls[i], LATENCY_BYTES, sync_each);
            comparison c = compare(&hccl_side, cfg.raw != RAW_NONE ? &raw_side : NULL,
                                   LATENCY_CALLS, cfg.rounds);
            char label[64], size[32];
            format_size(bytes, size, sizeof size);
            snprintf(label, sizeof label, "%s %s", collective_name(colls[i]), size);
            printf("%-20s %-6s", label, sync_each ? "sync" : "async");
            print_ns(&c.acl);
            if (c.has_cuda) {
                print_ns(&c.cuda);
                printf("  %6.2f  %+7.0f  %s", c.acl.median / c.cuda.median, c.diff.median,
                       !sync_each        ? ""
                       : latency_met(&c) ? "ok"
                                         : "MISS");
            }
            printf("\n");
            fflush(stdout);
            json_t *row = row_json(colls[i], bytes, LATENCY_CALLS, cfg.rounds, &c);
            if (c.has_cuda && sync_each)
                json_object_set_new(row, "target_met", json_boolean(latency_met(&c)));
            json_array_append_new(rows, row);
        }
    }
    return rows;
}

static void print_gbps(double factor, size_t bytes, const stats *s)
{
    /* Bytes per ns is GB/s; the slowest rounds give the lowest rate. */
    printf("  %8.2f [%6.2f-%6.2f]", factor * bytes / s->median, factor * bytes / s->p90,
           factor * bytes / s->p10);
}

static json_t *run_bandwidth(void)
{
    json_t *rows = json_array();
    printf("\nBus bandwidth, GB/s (median [p10-p90] over %d interleaved rounds; a batch of calls "
           "+ one stream synchronize; %s)\n",
           cfg.bw_rounds,
           cfg.nranks == 1 ? "1 rank: size / time, no bus bandwidth"
                           : "size / time x 2(n-1)/n all-reduce, x (n-1)/n all-gather");
    printf("%-10s %-8s  %8s [%-13s]", "operation", "size", "hccl", "p10-p90");
    if (cfg.raw != RAW_NONE)
        printf("  %8s [%-13s]  %6s  %s", raw_name(), "p10-p90", "ratio", "target");
    printf("\n");
    const collective colls[] = {ALLREDUCE, ALLGATHER};
    for (size_t i = 0; i < 2; i++) {
        for (size_t want = (size_t)1 << 20; want <= cfg.max_bytes; want *= 4) {
            size_t bytes = set_op(colls[i], want, false);
            /* About 256 MiB per batch on GPUs (64 MiB on the host), at least 2 calls. */
            size_t per_batch = (cfg.host ? (size_t)64 << 20 : (size_t)256 << 20) / bytes;
            int calls = per_batch > 32 ? 32 : per_batch < 2 ? 2 : (int)per_batch;
            comparison c =
                compare(&hccl_side, cfg.raw != RAW_NONE ? &raw_side : NULL, calls, cfg.bw_rounds);
            double factor = busbw_factor(colls[i]);
            char size[32];
            format_size(bytes, size, sizeof size);
            printf("%-10s %-8s", collective_name(colls[i]), size);
            print_gbps(factor, bytes, &c.acl);
            json_t *row = row_json(colls[i], bytes, calls, cfg.bw_rounds, &c);
            json_object_set_new(row, "busbw_factor", json_real(factor));
            json_object_set_new(row, "acl_busbw_gbps", json_real(factor * bytes / c.acl.median));
            if (c.has_cuda) {
                /* Rates: HCCL over raw, so below 1 means slower. */
                double rate_ratio = c.cuda.median / c.acl.median;
                print_gbps(factor, bytes, &c.cuda);
                printf("  %6.3f  %s", rate_ratio, rate_ratio >= 0.97 ? "ok" : "MISS");
                char key[32];
                snprintf(key, sizeof key, "%s_busbw_gbps", raw_key());
                json_object_set_new(row, key, json_real(factor * bytes / c.cuda.median));
                json_object_set_new(row, "rate_ratio", json_real(rate_ratio));
                json_object_set_new(row, "target_met", json_boolean(rate_ratio >= 0.97));
            }
            printf("\n");
            fflush(stdout);
            json_array_append_new(rows, row);
        }
    }
    return rows;
}

/* ---- main ---------------------------------------------------------------------------------- */

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
    bench_name = "bench_hccl";
    const char *json_path = NULL;
    long rounds = 41, max_bytes = 0, nranks = 0;
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--json") && next)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--rounds"))
            rounds = parse_positive(next, argv[i++]);
        else if (!strcmp(argv[i], "--max-bytes"))
            max_bytes = parse_positive(next, argv[i++]);
        else if (!strcmp(argv[i], "--ranks"))
            nranks = parse_positive(next, argv[i++]);
        else
            fail("usage: bench_hccl [--json PATH] [--rounds N] [--max-bytes N] [--ranks N]\n"
                 "  --rounds N     latency rounds (default 41; bandwidth uses at most 15)\n"
                 "  --max-bytes N  largest buffer (default 1 GiB on cuda, 64 MiB on host)\n"
                 "  --ranks N      ranks (default: one per device; the host backend has\n"
                 "                 ACLCUDA_HOST_DEVICE_COUNT devices, 2 when unset)");
    }
    if (rounds > MAX_ROUNDS)
        fail("--rounds must be 1..%d", MAX_ROUNDS);
    /* Read by the host backend only; the raw Gloo side and the engine's
     * rendezvous both go through loopback unless told otherwise. */
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "2", 0);
    setenv("HCCL_IF_IP", "127.0.0.1", 0);

    ACL_OK(aclInit(NULL));
    const char *backend = aclcudaGetBackendName();
    cfg.host = strcmp(backend, "cuda") != 0;
#ifdef HAVE_RAW_NCCL
    if (!cfg.host)
        cfg.raw = RAW_WITH_NCCL;
#endif
#ifdef ACLCUDA_HAVE_GLOO
    if (cfg.host)
        cfg.raw = RAW_WITH_GLOO;
#endif
    if (cfg.raw == RAW_NONE) {
        printf("bench_hccl: libhccl has no engine for the %s backend in this build\n", backend);
        ACL_OK(aclFinalize());
        return 0;
    }
    uint32_t devices = 0;
    ACL_OK(aclrtGetDeviceCount(&devices));
    if (nranks > (long)devices || nranks > MAX_RANKS)
        fail("--ranks %ld: one rank per device, %u devices here (at most %d ranks)", nranks,
             devices, MAX_RANKS);
    cfg.nranks = nranks ? (uint32_t)nranks : devices < MAX_RANKS ? devices : MAX_RANKS;
    cfg.rounds = (int)rounds;
    cfg.bw_rounds = cfg.rounds < 15 ? cfg.rounds : 15;
    cfg.max_bytes = max_bytes ? (size_t)max_bytes : cfg.host ? (size_t)64 << 20 : (size_t)1 << 30;
    if (cfg.max_bytes < LATENCY_BYTES)
        fail("--max-bytes must be at least %d", LATENCY_BYTES);

    ACL_OK(aclrtSetDevice(0));
    HCCL_OK(HcclGetRootInfo(&world.root));
#ifdef HAVE_RAW_NCCL
    if (cfg.raw == RAW_WITH_NCCL) {
        load_nccl();
        NCCL_OK(nccl.get_unique_id(&world.nccl_id));
    }
#endif
#ifdef ACLCUDA_HAVE_GLOO
    if (cfg.raw == RAW_WITH_GLOO) {
        char why[512];
        world.address = getenv("HCCL_IF_IP");
        if (!(world.gloo_store = raw_gloo_store_new(why, sizeof why)))
            fail("%s", why);
    }
#endif
    printf("HCCL collectives, backend %s: libhccl (engine %s) against raw %s, %u rank%s as "
           "threads, one per device\n",
           backend, cfg.raw == RAW_WITH_NCCL ? "nccl" : "gloo", raw_name(), cfg.nranks,
           cfg.nranks == 1 ? "" : "s");

    if (pthread_barrier_init(&world.start, NULL, cfg.nranks) ||
        pthread_barrier_init(&world.done, NULL, cfg.nranks))
        fail("cannot make the ranks' barriers");
    world.job = rank_setup;
    for (uint32_t r = 0; r < cfg.nranks; r++) {
        ranks[r].rank = r;
        if (r > 0 && pthread_create(&ranks[r].thread, NULL, rank_thread, &ranks[r]))
            fail("cannot start rank %u's thread", r);
    }
    run_on_all_ranks(rank_setup, 0);

    json_t *latency = run_latency();
    json_t *bandwidth = run_bandwidth();

    run_on_all_ranks(rank_teardown, 0);
    run_on_all_ranks(NULL, 0);
    for (uint32_t r = 1; r < cfg.nranks; r++)
        pthread_join(ranks[r].thread, NULL);
    pthread_barrier_destroy(&world.start);
    pthread_barrier_destroy(&world.done);
#ifdef ACLCUDA_HAVE_GLOO
    raw_gloo_store_free(world.gloo_store);
#endif

    if (json_path) {
        char method[768];
        snprintf(
            method, sizeof method,
            "ranks as threads, one per device; interleaved batches, order swapped every "
            "round, %d warm-up batches; a batch runs on every rank at once and is timed on "
            "rank 0 until every rank is done; latency: each call + stream synchronize "
            "(mode sync) or one synchronize per batch (mode async); "
            "bandwidth: a batch + one synchronize (mode async); busbw = bytes / time x 2(n-1)/n "
            "(allreduce), x (n-1)/n (all-gather), x 1 with one rank; ratio = acl / raw "
            "time; rate_ratio = acl / raw bandwidth",
            WARMUP_BATCHES);
        json_t *section = json_pack("{s:s, s:s, s:s, s:i, s:s, s:o, s:o}", "backend", backend,
                                    "engine", cfg.raw == RAW_WITH_NCCL ? "nccl" : "gloo", "raw",
                                    raw_key(), "ranks", (int)cfg.nranks, "method", method,
                                    "latency", latency, "bandwidth", bandwidth);
        bench_json_merge(json_path, "hccl", section);
        printf("\nJSON: %s (key \"hccl\")\n", json_path);
    } else {
        json_decref(latency);
        json_decref(bandwidth);
    }
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return 0;
}
