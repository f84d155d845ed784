/* HCCL's collectives through the public API, ranks as threads of one
 * process (one per device), with every value checked: each collective ×
 * data type × reduce op on 1, 2, 4 and 8 ranks, in place, grouped
 * point-to-point, stream order with ACL events, capture and replay,
 * destroy with work queued, sub-communicators, and a rank that never
 * arrives; and every collective × data type × reduce op again with the
 * ranks as 2 and 4 forked processes. The host backend runs it on Gloo
 * with eight host devices; the cuda backend on NCCL runs the rank counts
 * the GPUs allow (one NCCL rank per GPU) and reports the others skipped. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acltest.h"
#include "acl/acl_cuda.h"
#include "hccl/hccl.h"

enum { MAX_RANKS = 8, COUNT = 37 };

/* ---- element values, through double (every value used is a small integer) --------- */

static const HcclDataType ALL_TYPES[] = {
    HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,  HCCL_DATA_TYPE_INT64,
    HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_UINT16, HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_UINT64,
    HCCL_DATA_TYPE_FP16,  HCCL_DATA_TYPE_BFP16,  HCCL_DATA_TYPE_FP32,   HCCL_DATA_TYPE_FP64,
};
enum { NTYPES = sizeof ALL_TYPES / sizeof ALL_TYPES[0] };

static const HcclReduceOp ALL_OPS[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX,
                                       HCCL_REDUCE_MIN};

static size_t type_size(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
        return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
        return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32:
        return 4;
    default:
        return 8;
    }
}

/* IEEE half from a small integer-valued double, and back (exact here). */
static uint16_t half_from(double v)
{
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    if (f == 0)
        return sign;
    int exp = (int)((x >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | (uint16_t)(exp << 10) | (uint16_t)((x >> 13) & 0x3ff));
}

static double half_to(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    double mant = h & 0x3ff;
    double v = exp ? ldexp(1.0 + mant / 1024.0, exp - 15) : ldexp(mant / 1024.0, -14);
    return (h & 0x8000) ? -v : v;
}

static void put(void *buf, size_t i, HcclDataType t, double v)
{
    unsigned char *p = (unsigned char *)buf + i * type_size(t);
    switch (t) {
    case HCCL_DATA_TYPE_INT8:
        *(int8_t *)p = (int8_t)v;
        break;
    case HCCL_DATA_TYPE_INT16:
        *(int16_t *)p = (int16_t)v;
        break;
    case HCCL_DATA_TYPE_INT32:
        *(int32_t *)p = (int32_t)v;
        break;
    case HCCL_DATA_TYPE_INT64:
        *(int64_t *)p = (int64_t)v;
        break;
    case HCCL_DATA_TYPE_UINT8:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case HCCL_DATA_TYPE_UINT16:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case HCCL_DATA_TYPE_UINT32:
        *(uint32_t *)p = (uint32_t)v;
        break;
    case HCCL_DATA_TYPE_UINT64:
        *(uint64_t *)p = (uint64_t)v;
        break;
    case HCCL_DATA_TYPE_FP16:
        *(uint16_t *)p = half_from(v);
        break;
    case HCCL_DATA_TYPE_BFP16: {
        float f = (float)v;
        uint32_t x;
        memcpy(&x, &f, 4);
        *(uint16_t *)p = (uint16_t)(x >> 16);
        break;
    }
    case HCCL_DATA_TYPE_FP32:
        *(float *)p = (float)v;
        break;
    default:
        *(double *)p = v;
        break;
    }
}

static double get(const void *buf, size_t i, HcclDataType t)
{
    const unsigned char *p = (const unsigned char *)buf + i * type_size(t);
    switch (t) {
    case HCCL_DATA_TYPE_INT8:
        return *(const int8_t *)p;
    case HCCL_DATA_TYPE_INT16:
        return *(const int16_t *)p;
    case HCCL_DATA_TYPE_INT32:
        return *(const int32_t *)p;
    case HCCL_DATA_TYPE_INT64:
        return (double)*(const int64_t *)p;
    case HCCL_DATA_TYPE_UINT8:
        return *(const uint8_t *)p;
    case HCCL_DATA_TYPE_UINT16:
        return *(const uint16_t *)p;
    case HCCL_DATA_TYPE_UINT32:
        return *(const uint32_t *)p;
    case HCCL_DATA_TYPE_UINT64:
        return (double)*(const uint64_t *)p;
    case HCCL_DATA_TYPE_FP16:
        return half_to(*(const uint16_t *)p);
    case HCCL_DATA_TYPE_BFP16: {
        uint32_t x = (uint32_t) * (const uint16_t *)p << 16;
        float f;
        memcpy(&f, &x, 4);
        return f;
    }
    case HCCL_DATA_TYPE_FP32:
        return *(const float *)p;
    default:
        return *(const double *)p;
    }
}

/* Rank r's element i for a reduction by op: products stay within int8. */
static double input(HcclReduceOp op, uint32_t r, size_t i)
{
    if (op == HCCL_REDUCE_PROD)
        return 1 + (double)((r + i) % 2);
    return (double)(r + 1) + (double)(i % 3);
}

static double reduced(HcclReduceOp op, uint32_t n, size_t i)
{
    double acc = input(op, 0, i);
    for (uint32_t r = 1; r < n; r++) {
        double v = input(op, r, i);
        switch (op) {
        case HCCL_REDUCE_SUM:
            acc += v;
            break;
        case HCCL_REDUCE_PROD:
            acc *= v;
            break;
        case HCCL_REDUCE_MAX:
            acc = v > acc ? v : acc;
            break;
        default:
            acc = v < acc ? v : acc;
            break;
        }
    }
    return acc;
}

/* Whether reducing t with op is refused with HCCL_E_NOT_SUPPORT: CANN
 * reduces no unsigned type but UINT64 and has no product of INT16 or
 * BFP16; NCCL (the cuda backend) has no 16-bit integers. */
static bool reduction_refused(HcclDataType t, HcclReduceOp op)
{
    if (t == HCCL_DATA_TYPE_UINT8 || t == HCCL_DATA_TYPE_UINT16 || t == HCCL_DATA_TYPE_UINT32)
        return true;
    if (op == HCCL_REDUCE_PROD && (t == HCCL_DATA_TYPE_INT16 || t == HCCL_DATA_TYPE_BFP16))
        return true;
    return strcmp(aclcudaGetBackendName(), "cuda") == 0 && t == HCCL_DATA_TYPE_INT16;
}

/* ---- ranks as threads ------------------------------------------------------------- */

typedef struct world world;

typedef struct rank_ctx {
    world *w;
    uint32_t rank;
    int kind; /* which of its collectives the body runs, for bodies that run several */
    int32_t device;
    HcclComm comm;
    aclrtStream stream;
    char failure[512]; /* the first failure, empty when none */
} rank_ctx;

typedef void (*rank_body)(rank_ctx *r);

/* In memory shared with forked ranks (run_processes), so that they meet
 * at its barrier and leave their failures in it. */
struct world {
    uint32_t nranks;
    HcclRootInfo root;
    atomic_int root_ready; /* rank 0's process wrote root */
    pthread_barrier_t barrier;
    rank_body body;
    rank_ctx ranks[MAX_RANKS];
};

static world *shared_world;

static void rank_fail(rank_ctx *r, const char *fmt, ...) CK_ATTRIBUTE_FORMAT(printf, 2, 3);
static void rank_fail(rank_ctx *r, const char *fmt, ...)
{
    if (r->failure[0])
        return;
    int n = snprintf(r->failure, sizeof r->failure, "rank %u: ", r->rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->failure + n, sizeof r->failure - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Records a failing call in the rank and leaves the body. */
#define RANK_ACL(r, expr)                                                                          \
    do {                                                                                           \
        aclError rank_ret_ = (expr);                                                               \
        if (rank_ret_ != ACL_SUCCESS) {                                                            \
            rank_fail(r, "%s returned %d: %s", #expr, (int)rank_ret_, aclGetRecentErrMsg());       \
            return;                                                                                \
        }                                                                                          \
    } while (0)
#define RANK_HCCL(r, expr)                                                                         \
    do {                                                                                           \
        HcclResult rank_ret_ = (expr);                                                             \
        if (rank_ret_ != HCCL_SUCCESS) {                                                           \
            rank_fail(r, "%s returned %d (%s)", #expr, (int)rank_ret_,                             \
                      HcclGetErrorString(rank_ret_));                                              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void *rank_main(void *arg)
{
    rank_ctx *r = arg;
    world *w = r->w;
    aclError err = aclrtSetDevice(r->device);
    if (err) {
        rank_fail(r, "aclrtSetDevice(%d) returned %d", r->device, (int)err);
        return NULL;
    }
    HcclResult hr = HcclCommInitRootInfo(w->nranks, &w->root, r->rank, &r->comm);
    if (hr != HCCL_SUCCESS) {
        rank_fail(r, "HcclCommInitRootInfo returned %d (%s)", (int)hr, HcclGetErrorString(hr));
    } else if ((err = aclrtCreateStream(&r->stream)) != ACL_SUCCESS) {
        rank_fail(r, "aclrtCreateStream returned %d", (int)err);
    } else {
        w->body(r);
        /* The other ranks may still need this one (a collective waits for
         * all): nobody leaves before everyone is done. */
        pthread_barrier_wait(&w->barrier);
        if ((err = aclrtSynchronizeStream(r->stream)) != ACL_SUCCESS)
            rank_fail(r, "aclrtSynchronizeStream returned %d", (int)err);
        (void)aclrtDestroyStream(r->stream);
    }
    if (r->comm && (hr = HcclCommDestroy(r->comm)) != HCCL_SUCCESS)
        rank_fail(r, "HcclCommDestroy returned %d", (int)hr);
    (void)aclrtResetDevice(r->device);
    return NULL;
}

/* Whether n ranks fit the devices (one per device); skips otherwise. */
static bool ranks_fit_in(uint32_t n, uint32_t devices)
{
    if (n <= devices)
        return true;
    compat_skip("%u ranks need %u devices, %u here (one rank per device%s)", n, n, devices,
                strcmp(aclcudaGetBackendName(), "cuda") == 0 ? ": one NCCL rank per GPU" : "");
    return false;
}

static bool ranks_fit(uint32_t n)
{
    return ranks_fit_in(n, compat_device_count());
}

/* The shared world, set for n ranks running body (of kind), rank r on
 * device r; its barrier works across processes too. */
static world *world_of(uint32_t n, rank_body body, int kind)
{
    world *w = shared_world;
    memset(w, 0, sizeof *w);
    w->nranks = n;
    w->body = body;
    pthread_barrierattr_t attr;
    ck_assert_int_eq(pthread_barrierattr_init(&attr), 0);
    ck_assert_int_eq(pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    ck_assert_int_eq(pthread_barrier_init(&w->barrier, &attr, n), 0);
    pthread_barrierattr_destroy(&attr);
    for (uint32_t r = 0; r < n; r++)
        w->ranks[r] = (rank_ctx){.w = w, .rank = r, .kind = kind, .device = (int32_t)r};
    return w;
}

static void world_check(world *w)
{
    pthread_barrier_destroy(&w->barrier);
    for (uint32_t r = 0; r < w->nranks; r++)
        ck_assert_msg(!w->ranks[r].failure[0], "%s", w->ranks[r].failure);
}

/* Runs body (of kind) on n ranks as threads, and fails the test with the
 * first rank's failure. */
static void run_world(uint32_t n, rank_body body, int kind)
{
    world *w = world_of(n, body, kind);
    ACL_OK(aclrtSetDevice(0));
    HcclResult hr = HcclGetRootInfo(&w->root);
    ck_assert_msg(hr == HCCL_SUCCESS, "HcclGetRootInfo returned %d", (int)hr);
    pthread_t threads[MAX_RANKS];
    for (uint32_t r = 0; r < n; r++)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, rank_main, &w->ranks[r]), 0);
    for (uint32_t r = 0; r < n; r++)
        ck_assert_int_eq(pthread_join(threads[r], NULL), 0);
    ACL_OK(aclrtResetDevice(0));
    world_check(w);
}

/* ---- ranks as processes -------------------------------------------------------------- */

enum { PROCESS_LIMIT_S = 110, ROOT_WAIT_MS = 60000 };

/* One forked rank: ACL of its own (the test's process starts none, so
 * that CUDA is not inherited half made), rank 0 making the root info and
 * the others waiting for it. alarm ends a rank that hangs. */
static void process_rank(rank_ctx *r)
{
    signal(SIGALRM, SIG_DFL);
    alarm(PROCESS_LIMIT_S);
    world *w = r->w;
    aclError err = aclInit(NULL);
    if (err) {
        rank_fail(r, "aclInit returned %d", (int)err);
        _exit(1);
    }
    if (r->rank == 0) {
        HcclResult hr = HCCL_E_INTERNAL;
        if ((err = aclrtSetDevice(0)) == ACL_SUCCESS)
            hr = HcclGetRootInfo(&w->root);
        if (hr != HCCL_SUCCESS) {
            rank_fail(r, "HcclGetRootInfo returned %d (aclrtSetDevice %d)", (int)hr, (int)err);
            atomic_store(&w->root_ready, -1);
            _exit(1);
        }
        atomic_store(&w->root_ready, 1);
    }
    for (int ms = 0; ms < ROOT_WAIT_MS && atomic_load(&w->root_ready) == 0; ms++)
        nanosleep(&(struct timespec){0, 1000000L}, NULL);
    if (atomic_load(&w->root_ready) != 1) {
        rank_fail(r, "rank 0 made no root info");
        _exit(1);
    }
    rank_main(r);
    if (r->rank == 0)
        (void)aclrtResetDevice(0);
    (void)aclFinalize();
    _exit(r->failure[0] ? 1 : 0);
}

/* Runs body (of kind) on n ranks as forked processes. */
static void run_processes(uint32_t n, rank_body body, int kind)
{
    world *w = world_of(n, body, kind);
    pid_t pids[MAX_RANKS];
    fflush(stdout);
    fflush(stderr);
    for (uint32_t r = 0; r < n; r++) {
        pids[r] = fork();
        ck_assert_int_ge(pids[r], 0);
        if (pids[r] == 0)
            process_rank(&w->ranks[r]);
    }
    for (uint32_t r = 0; r < n; r++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[r], &status, 0), pids[r]);
        ck_assert_msg(!w->ranks[r].failure[0], "%s", w->ranks[r].failure);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "rank %u %s %d", r,
                      WIFSIGNALED(status) ? "ended by signal" : "exited with",
                      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    world_check(w);
}

/* The devices of this machine, asked in a child: the test's process starts
 * no ACL before it forks its ranks. */
static uint32_t device_count_probed(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        uint32_t count = 0;
        if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS)
            count = 0;
        _exit((int)(count < 255 ? count : 255));
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 0;
    return (uint32_t)WEXITSTATUS(status);
}

/* ---- device buffers ---------------------------------------------------------------- */

static void *dev_alloc(rank_ctx *r, size_t bytes)
{
    void *p = NULL;
    aclError err = aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (err)
        rank_fail(r, "aclrtMalloc(%zu) returned %d", bytes, (int)err);
    return p;
}

static bool to_dev(rank_ctx *r, void *dev, const void *host, size_t bytes)
{
    aclError err = aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    if (err)
        rank_fail(r, "aclrtMemcpy to the device returned %d", (int)err);
    return !err;
}

static bool to_host(rank_ctx *r, void *host, const void *dev, size_t bytes)
{
    aclError err = aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    if (err)
        rank_fail(r, "aclrtMemcpy to the host returned %d", (int)err);
    return !err;
}

/* Compares n elements of got with want(i), naming what is checked. */
#define EXPECT_VALUES(r, what, t, got, n, want_expr)                                               \
    do {                                                                                           \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                      \
            size_t i = i_;                                                                         \
            double want_ = (want_expr);                                                            \
            double got_ = get((got), i, (t));                                                      \
            if (got_ != want_) {                                                                   \
                rank_fail((r), "%s, type %d: element %zu is %g, expected %g", (what), (int)(t), i, \
                          got_, want_);                                                            \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* ---- reductions -------------------------------------------------------------------- */

/* A reduction over every type and op; refusals checked where the engine
 * has no such reduction. kind: 0 allreduce, 1 reduce (root n-1), 2
 * reduce-scatter, 3 reduce-scatterv, 4 allreduce in place. */
static void reductions(rank_ctx *r)
{
    uint32_t n = r->w->nranks;
    int kind = r->kind;
    static const char *names[] = {"allreduce", "reduce", "reduce-scatter", "reduce-scatterv",
                                  "allreduce in place"};
    for (size_t ti = 0; ti < NTYPES; ti++) {
        HcclDataType t = ALL_TYPES[ti];
        size_t es = type_size(t);
        for (size_t oi = 0; oi < 4; oi++) {
            HcclReduceOp op = ALL_OPS[oi];
            /* reduce-scatterv: rank k receives k + 1 elements */
            uint64_t counts[MAX_RANKS], displs[MAX_RANKS], total = 0;
            for (uint32_t k = 0; k < n; k++) {
                counts[k] = k + 1;
                displs[k] = total;
                total += counts[k];
            }
            size_t elems = kind == 2 ? (size_t)COUNT * n : kind == 3 ? total : COUNT;
            unsigned char host[COUNT * MAX_RANKS * 8];
            for (size_t i = 0; i < elems; i++)
                put(host, i, t, input(op, r->rank, i));
            void *send = dev_alloc(r, elems * es), *recv = dev_alloc(r, elems * es);
            if (!send || !recv || !to_dev(r, send, host, elems * es))
                return;
            HcclResult hr;
            switch (kind) {
            case 0:
                hr = HcclAllReduce(send, recv, COUNT, t, op, r->comm, r->stream);
                break;
            case 1:
                hr = HcclReduce(send, recv, COUNT, t, op, n - 1, r->comm, r->stream);
                break;
            case 2:
                hr = HcclReduceScatter(send, recv, COUNT, t, op, r->comm, r->stream);
                break;
            case 3:
                hr = HcclReduceScatterV(send, counts, displs, recv, counts[r->rank], t, op, r->comm,
                                        r->stream);
                break;
            default:
                hr = HcclAllReduce(send, send, COUNT, t, op, r->comm, r->stream);
                break;
            }
            if (reduction_refused(t, op)) {
                if (hr != HCCL_E_NOT_SUPPORT)
                    rank_fail(r, "%s of type %d returned %d, expected HCCL_E_NOT_SUPPORT",
                              names[kind], (int)t, (int)hr);
            } else if (hr != HCCL_SUCCESS) {
                rank_fail(r, "%s of type %d, op %d returned %d (%s)", names[kind], (int)t, (int)op,
                          (int)hr, HcclGetErrorString(hr));
            } else if (aclrtSynchronizeStream(r->stream) != ACL_SUCCESS) {
                rank_fail(r, "aclrtSynchronizeStream after %s failed", names[kind]);
            } else if (kind == 0 || kind == 4) {
                if (to_host(r, host, kind == 4 ? send : recv, COUNT * es))
                    EXPECT_VALUES(r, names[kind], t, host, (size_t)COUNT, reduced(op, n, i));
            } else if (kind == 1) {
                if (r->rank == n - 1 && to_host(r, host, recv, COUNT * es))
                    EXPECT_VALUES(r, names[kind], t, host, (size_t)COUNT, reduced(op, n, i));
            } else {
                size_t first = kind == 2 ? (size_t)COUNT * r->rank : displs[r->rank];
                size_t mine = kind == 2 ? COUNT : counts[r->rank];
                if (to_host(r, host, recv, mine * es))
                    EXPECT_VALUES(r, names[kind], t, host, mine, reduced(op, n, first + i));
            }
            (void)aclrtFree(send);
            (void)aclrtFree(recv);
            if (r->failure[0])
                return;
        }
    }
}

/* ---- data movement: every type, as bytes ------------------------------------------ */

static double moved(uint32_t from, size_t i)
{
    return (double)((from * 7 + i) % 100);
}

/* kind: 0 broadcast (root n-1), 1 allgather, 2 allgatherv, 3 scatter (root
 * 0), 4 alltoall, 5 alltoallv, 6 alltoallvc. */
static void movement(rank_ctx *r)
{
    uint32_t n = r->w->nranks, me = r->rank;
    int kind = r->kind;
    static const char *names[] = {"broadcast", "allgather", "allgatherv", "scatter",
                                  "alltoall",  "alltoallv", "alltoallvc"};
    for (size_t ti = 0; ti < NTYPES; ti++) {
        HcclDataType t = ALL_TYPES[ti];
        size_t es = type_size(t);
        /* v variants: rank k contributes k + 1 elements (to each peer) */
        uint64_t counts[MAX_RANKS], displs[MAX_RANKS], total = 0;
        for (uint32_t k = 0; k < n; k++) {
            counts[k] = k + 1;
            displs[k] = total;
            total += counts[k];
        }
        size_t cap = (size_t)COUNT * n + total * n;
        unsigned char host[(COUNT * MAX_RANKS + 36 * MAX_RANKS) * 8];
        void *send = dev_alloc(r, cap * es), *recv = dev_alloc(r, cap * es);
        if (!send || !recv)
            return;
        HcclResult hr = HCCL_SUCCESS;
        uint64_t scounts[MAX_RANKS], sdispls[MAX_RANKS], rcounts[MAX_RANKS], rdispls[MAX_RANKS];
        uint64_t matrix[MAX_RANKS * MAX_RANKS];
        size_t sent = 0;
        switch (kind) {
        case 0:
            for (size_t i = 0; i < COUNT; i++)
                put(host, i, t, me == n - 1 ? moved(me, i) : 0);
            if (to_dev(r, recv, host, COUNT * es))
                hr = HcclBroadcast(recv, COUNT, t, n - 1, r->comm, r->stream);
            break;
        case 1:
            for (size_t i = 0; i < COUNT; i++)
                put(host, i, t, moved(me, i));
            if (to_dev(r, send, host, COUNT * es))
                hr = HcclAllGather(send, recv, COUNT, t, r->comm, r->stream);
            break;
        case 2:
            for (size_t i = 0; i < counts[me]; i++)
                put(host, i, t, moved(me, i));
            if (to_dev(r, send, host, counts[me] * es))
                hr = HcclAllGatherV(send, counts[me], recv, counts, displs, t, r->comm, r->stream);
            break;
        case 3:
            for (size_t i = 0; i < (size_t)COUNT * n; i++)
                put(host, i, t, moved((uint32_t)(i / COUNT), i % COUNT));
            if (to_dev(r, send, host, (size_t)COUNT * n * es))
                hr = HcclScatter(send, recv, COUNT, t, 0, r->comm, r->stream);
            break;
        case 4:
            /* block k goes to rank k: moved(me * n + k, i) */
            for (size_t i = 0; i < (size_t)COUNT * n; i++)
                put(host, i, t, moved(me * n + (uint32_t)(i / COUNT), i % COUNT));
            if (to_dev(r, send, host, (size_t)COUNT * n * es))
                hr = HcclAlltoAll(send, COUNT, t, recv, COUNT, t, r->comm, r->stream);
            break;
        default:
            /* rank me sends me + k + 1 elements to rank k */
            for (uint32_t k = 0; k < n; k++) {
                scounts[k] = me + k + 1;
                sdispls[k] = sent;
                for (size_t i = 0; i < scounts[k]; i++)
                    put(host, sent + i, t, moved(me * n + k, i));
                sent += scounts[k];
            }
            for (uint32_t k = 0, at = 0; k < n; k++) {
                rcounts[k] = k + me + 1;
                rdispls[k] = at;
                at += (uint32_t)rcounts[k];
            }
            for (uint32_t a = 0; a < n; a++)
                for (uint32_t b = 0; b < n; b++)
                    matrix[a * n + b] = a + b + 1;
            if (!to_dev(r, send, host, sent * es))
                break;
            hr = kind == 5 ? HcclAlltoAllV(send, scounts, sdispls, t, recv, rcounts, rdispls, t,
                                           r->comm, r->stream)
                           : HcclAlltoAllVC(send, matrix, t, recv, t, r->comm, r->stream);
            break;
        }
        if (r->failure[0])
            return;
        if (hr != HCCL_SUCCESS) {
            rank_fail(r, "%s of type %d returned %d (%s)", names[kind], (int)t, (int)hr,
                      HcclGetErrorString(hr));
            return;
        }
        RANK_ACL(r, aclrtSynchronizeStream(r->stream));
        switch (kind) {
        case 0:
            if (to_host(r, host, recv, COUNT * es))
                EXPECT_VALUES(r, names[kind], t, host, (size_t)COUNT, moved(n - 1, i));
            break;
        case 1:
            if (to_host(r, host, recv, (size_t)COUNT * n * es))
                EXPECT_VALUES(r, names[kind], t, host, (size_t)COUNT * n,
                              moved((uint32_t)(i / COUNT), i % COUNT));
            break;
        case 2:
            if (to_host(r, host, recv, total * es))
                for (uint32_t k = 0; k < n; k++)
                    EXPECT_VALUES(r, names[kind], t, host + displs[k] * es, counts[k], moved(k, i));
            break;
        case 3:
            if (to_host(r, host, recv, COUNT * es))
                EXPECT_VALUES(r, names[kind], t, host, (size_t)COUNT, moved(me, i));
            break;
        case 4:
            if (to_host(r, host, recv, (size_t)COUNT * n * es))
                EXPECT_VALUES(r, names[kind], t, host, (size_t)COUNT * n,
                              moved((uint32_t)(i / COUNT) * n + me, i % COUNT));
            break;
        default: {
            size_t got = 0;
            for (uint32_t k = 0; k < n; k++)
                got += rcounts[k];
            if (to_host(r, host, recv, got * es))
                for (uint32_t k = 0; k < n; k++)
                    EXPECT_VALUES(r, names[kind], t, host + rdispls[k] * es, rcounts[k],
                                  moved(k * n + me, i));
            break;
        }
        }
        (void)aclrtFree(send);
        (void)aclrtFree(recv);
        if (r->failure[0])
            return;
    }
}

/* ---- point to point ------------------------------------------------------------------ */

/* kind: 0 send/recv in a group, 1 batch send/recv. Each rank sends to the
 * next and receives from the previous: without grouping, a ring deadlocks. */
static void ring(rank_ctx *r)
{
    uint32_t n = r->w->nranks, me = r->rank;
    int kind = r->kind;
    if (n < 2)
        return;
    uint32_t next = (me + 1) % n, prev = (me + n - 1) % n;
    const HcclDataType t = HCCL_DATA_TYPE_INT32;
    int32_t host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = (int32_t)(me * 1000 + i);
    void *send = dev_alloc(r, sizeof host), *recv = dev_alloc(r, sizeof host);
    if (!send || !recv || !to_dev(r, send, host, sizeof host))
        return;
    if (kind == 0) {
        RANK_HCCL(r, HcclGroupStart());
        RANK_HCCL(r, HcclSend(send, COUNT, t, next, r->comm, r->stream));
        RANK_HCCL(r, HcclRecv(recv, COUNT, t, prev, r->comm, r->stream));
        RANK_HCCL(r, HcclGroupEnd());
    } else {
        HcclSendRecvItem items[2] = {
            {.sendRecvType = HCCL_SEND,
             .buf = send,
             .count = COUNT,
             .dataType = t,
             .remoteRank = next},
            {.sendRecvType = HCCL_RECV,
             .buf = recv,
             .count = COUNT,
             .dataType = t,
             .remoteRank = prev},
        };
        RANK_HCCL(r, HcclBatchSendRecv(items, 2, r->comm, r->stream));
    }
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (to_host(r, host, recv, sizeof host))
        EXPECT_VALUES(r, kind ? "batch send/recv" : "grouped send/recv", t, host, (size_t)COUNT,
                      (double)(prev * 1000 + i));
    (void)aclrtFree(send);
    (void)aclrtFree(recv);
}

/* Pairs exchange with plain sends and receives, ordered so that nothing
 * waits for itself: even ranks send first. */
static void pairs_body(rank_ctx *r)
{
    uint32_t n = r->w->nranks, me = r->rank;
    if (n < 2 || (n % 2 && me == n - 1))
        return;
    uint32_t peer = me ^ 1u;
    int64_t host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = (int64_t)(me * 100 + i);
    void *send = dev_alloc(r, sizeof host), *recv = dev_alloc(r, sizeof host);
    if (!send || !recv || !to_dev(r, send, host, sizeof host))
        return;
    if (me % 2 == 0) {
        RANK_HCCL(r, HcclSend(send, COUNT, HCCL_DATA_TYPE_INT64, peer, r->comm, r->stream));
        RANK_HCCL(r, HcclRecv(recv, COUNT, HCCL_DATA_TYPE_INT64, peer, r->comm, r->stream));
    } else {
        RANK_HCCL(r, HcclRecv(recv, COUNT, HCCL_DATA_TYPE_INT64, peer, r->comm, r->stream));
        RANK_HCCL(r, HcclSend(send, COUNT, HCCL_DATA_TYPE_INT64, peer, r->comm, r->stream));
    }
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (to_host(r, host, recv, sizeof host))
        EXPECT_VALUES(r, "send/recv", HCCL_DATA_TYPE_INT64, host, (size_t)COUNT,
                      (double)(peer * 100 + i));
    (void)aclrtFree(send);
    (void)aclrtFree(recv);
}

static void barrier_body(rank_ctx *r)
{
    for (int i = 0; i < 3; i++)
        RANK_HCCL(r, HcclBarrier(r->comm, r->stream));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
}

/* What the communicator tells about itself. */
static void identity_body(rank_ctx *r)
{
    uint32_t size = 0, rank = 99;
    RANK_HCCL(r, HcclGetRankSize(r->comm, &size));
    RANK_HCCL(r, HcclGetRankId(r->comm, &rank));
    if (size != r->w->nranks || rank != r->rank)
        rank_fail(r, "the communicator says rank %u of %u", rank, size);
    HcclResult async = HCCL_E_INTERNAL;
    RANK_HCCL(r, HcclGetCommAsyncError(r->comm, &async));
    if (async != HCCL_SUCCESS)
        rank_fail(r, "a fresh communicator reports async error %d", (int)async);
}

/* ---- stream order ------------------------------------------------------------------ */

/* The allreduce's input is written on another stream behind a gate; an
 * event orders it before the collective, and a second event orders a copy
 * of the result on a third stream after it. */
static void event_order_body(rank_ctx *r)
{
    uint32_t n = r->w->nranks;
    aclrtStream producer = NULL, consumer = NULL;
    aclrtEvent written = NULL, reduced_ev = NULL;
    RANK_ACL(r, aclrtCreateStream(&producer));
    RANK_ACL(r, aclrtCreateStream(&consumer));
    RANK_ACL(r, aclrtCreateEvent(&written));
    RANK_ACL(r, aclrtCreateEvent(&reduced_ev));
    float host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = (float)(r->rank + i);
    void *pinned = NULL;
    RANK_ACL(r, aclrtMallocHost(&pinned, sizeof host));
    memcpy(pinned, host, sizeof host);
    void *in = dev_alloc(r, sizeof host), *out = dev_alloc(r, sizeof host),
         *copy = dev_alloc(r, sizeof host);
    if (!in || !out || !copy)
        return;
    RANK_ACL(r, aclrtMemset(in, sizeof host, 0, sizeof host));
    compat_gate gate;
    compat_gate_close(&gate, producer);
    RANK_ACL(r, aclrtMemcpyAsync(in, sizeof host, pinned, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE,
                                 producer));
    RANK_ACL(r, aclrtRecordEvent(written, producer));
    RANK_ACL(r, aclrtStreamWaitEvent(r->stream, written));
    RANK_HCCL(
        r, HcclAllReduce(in, out, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm, r->stream));
    RANK_ACL(r, aclrtRecordEvent(reduced_ev, r->stream));
    RANK_ACL(r, aclrtStreamWaitEvent(consumer, reduced_ev));
    RANK_ACL(r, aclrtMemcpyAsync(copy, sizeof host, out, sizeof host, ACL_MEMCPY_DEVICE_TO_DEVICE,
                                 consumer));
    compat_gate_wait_reached(&gate);
    compat_gate_open(&gate);
    RANK_ACL(r, aclrtSynchronizeStream(consumer));
    if (to_host(r, host, copy, sizeof host))
        EXPECT_VALUES(r, "allreduce ordered by events", HCCL_DATA_TYPE_FP32, host, (size_t)COUNT,
                      (double)(n * (n - 1) / 2) + (double)n * (double)i);
    RANK_ACL(r, aclrtSynchronizeStream(producer));
    (void)aclrtFree(in);
    (void)aclrtFree(out);
    (void)aclrtFree(copy);
    (void)aclrtFreeHost(pinned);
    (void)aclrtDestroyEvent(written);
    (void)aclrtDestroyEvent(reduced_ev);
    (void)aclrtDestroyStream(producer);
    (void)aclrtDestroyStream(consumer);
}

/* An allreduce captured into a model runs at each replay, on the input the
 * buffer holds then; capturing it runs nothing. */
static void capture_body(rank_ctx *r)
{
    uint32_t n = r->w->nranks;
    int32_t host[COUNT];
    void *in = dev_alloc(r, sizeof host), *out = dev_alloc(r, sizeof host);
    if (!in || !out)
        return;
    RANK_ACL(r, aclrtMemset(out, sizeof host, 0, sizeof host));
    aclmdlRI model = NULL;
    RANK_ACL(r, aclmdlRICaptureBegin(r->stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    RANK_HCCL(r, HcclAllReduce(in, out, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                               r->stream));
    RANK_ACL(r, aclmdlRICaptureEnd(r->stream, &model));
    if (to_host(r, host, out, sizeof host))
        EXPECT_VALUES(r, "output after the capture", HCCL_DATA_TYPE_INT32, host, (size_t)COUNT,
                      0.0);
    for (int replay = 1; replay <= 3; replay++) {
        for (size_t i = 0; i < COUNT; i++)
            host[i] = (int32_t)(replay * (int)(r->rank + 1) + (int)i);
        if (!to_dev(r, in, host, sizeof host))
            return;
        RANK_ACL(r, aclmdlRIExecuteAsync(model, r->stream));
        RANK_ACL(r, aclrtSynchronizeStream(r->stream));
        if (to_host(r, host, out, sizeof host))
            EXPECT_VALUES(r, "replayed allreduce", HCCL_DATA_TYPE_INT32, host, (size_t)COUNT,
                          (double)replay * n * (n + 1) / 2 + (double)n * (double)i);
        if (r->failure[0])
            return;
    }
    RANK_ACL(r, aclmdlRIDestroy(model));
    (void)aclrtFree(in);
    (void)aclrtFree(out);
}

/* A model holding a captured allreduce outlives its communicator: the
 * replays after HcclCommDestroy skip the collective (the output stays as
 * it was), nothing crashes, and the model goes later. */
static void replay_after_destroy_body(rank_ctx *r)
{
    int32_t host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = 7;
    void *in = dev_alloc(r, sizeof host), *out = dev_alloc(r, sizeof host);
    if (!in || !out || !to_dev(r, in, host, sizeof host))
        return;
    RANK_ACL(r, aclrtMemset(out, sizeof host, 0, sizeof host));
    aclmdlRI model = NULL;
    RANK_ACL(r, aclmdlRICaptureBegin(r->stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    RANK_HCCL(r, HcclAllReduce(in, out, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                               r->stream));
    RANK_ACL(r, aclmdlRICaptureEnd(r->stream, &model));
    /* Every rank destroys its communicator before any replays. */
    pthread_barrier_wait(&r->w->barrier);
    HcclComm comm = r->comm;
    r->comm = NULL;
    RANK_HCCL(r, HcclCommDestroy(comm));
    pthread_barrier_wait(&r->w->barrier);
    RANK_ACL(r, aclmdlRIExecuteAsync(model, r->stream));
    RANK_ACL(r, aclmdlRIExecuteAsync(model, r->stream));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (to_host(r, host, out, sizeof host))
        EXPECT_VALUES(r, "output of replays after the destroy", HCCL_DATA_TYPE_INT32, host,
                      (size_t)COUNT, 0.0);
    RANK_ACL(r, aclmdlRIDestroy(model));
    (void)aclrtFree(in);
    (void)aclrtFree(out);
}

/* HcclCommDestroy while the communicator's collective waits behind a gate
 * on its stream: the destroy waits for it, and the collective completes. */
static void destroy_with_work_queued_body(rank_ctx *r)
{
    uint32_t n = r->w->nranks;
    int32_t host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = (int32_t)i;
    void *buf = dev_alloc(r, sizeof host);
    if (!buf || !to_dev(r, buf, host, sizeof host))
        return;
    compat_gate gate;
    compat_gate_close(&gate, r->stream);
    RANK_HCCL(r, HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                               r->stream));
    compat_gate_wait_reached(&gate);
    compat_gate_open(&gate);
    HcclComm comm = r->comm;
    r->comm = NULL; /* destroyed here, not by rank_main */
    RANK_HCCL(r, HcclCommDestroy(comm));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (to_host(r, host, buf, sizeof host))
        EXPECT_VALUES(r, "allreduce queued before the destroy", HCCL_DATA_TYPE_INT32, host,
                      (size_t)COUNT, (double)n * (double)i);
    (void)aclrtFree(buf);
}

/* ---- sub-communicators ------------------------------------------------------------- */

/* An all-reduce (sum) and a broadcast from its rank 1 in the two-rank
 * sub-communicator sub of parent ranks pair, checked by value: rank p
 * gives (p + 1) * 100 + i. */
static void pair_collectives(rank_ctx *r, HcclComm sub, const uint32_t pair[2])
{
    int32_t host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = (int32_t)((r->rank + 1) * 100 + i);
    void *buf = dev_alloc(r, sizeof host);
    if (!buf || !to_dev(r, buf, host, sizeof host))
        return;
    RANK_HCCL(
        r, HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, sub, r->stream));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (!to_host(r, host, buf, sizeof host))
        return;
    EXPECT_VALUES(r, "allreduce in a sub-communicator", HCCL_DATA_TYPE_INT32, host, (size_t)COUNT,
                  (double)((pair[0] + pair[1] + 2) * 100 + 2 * i));
    for (size_t i = 0; i < COUNT; i++)
        host[i] = r->rank == pair[1] ? (int32_t)moved(r->rank, i) : -1;
    if (!to_dev(r, buf, host, sizeof host))
        return;
    RANK_HCCL(r, HcclBroadcast(buf, COUNT, HCCL_DATA_TYPE_INT32, 1, sub, r->stream));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (to_host(r, host, buf, sizeof host))
        EXPECT_VALUES(r, "broadcast in a sub-communicator", HCCL_DATA_TYPE_INT32, host,
                      (size_t)COUNT, moved(pair[1], i));
    (void)aclrtFree(buf);
}

/* Joins the sub-communicator id of parent ranks pair, checks what it says
 * of itself and runs pair_collectives in it. */
static void join_pair(rank_ctx *r, const uint32_t pair[2], uint64_t id)
{
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    uint32_t sub_rank = r->rank == pair[0] ? 0 : 1;
    HcclComm sub = NULL;
    RANK_HCCL(r,
              HcclCreateSubCommConfig(&r->comm, 2, (uint32_t *)pair, id, sub_rank, &config, &sub));
    uint32_t rank = 99, size = 0;
    char parent_name[COMM_NAME_MAX_LENGTH], name[COMM_NAME_MAX_LENGTH], want[COMM_NAME_MAX_LENGTH];
    if (HcclGetRankId(sub, &rank) != HCCL_SUCCESS || HcclGetRankSize(sub, &size) != HCCL_SUCCESS ||
        rank != sub_rank || size != 2)
        rank_fail(r, "the sub-communicator says rank %u of %u, not %u of 2", rank, size, sub_rank);
    else if (HcclGetCommName(r->comm, parent_name) != HCCL_SUCCESS ||
             HcclGetCommName(sub, name) != HCCL_SUCCESS)
        rank_fail(r, "HcclGetCommName failed");
    else if (snprintf(want, sizeof want, "%.100s_sub_%llu", parent_name, (unsigned long long)id) >
                 0 &&
             strcmp(name, want) != 0)
        rank_fail(r, "the sub-communicator is named %s, not %s", name, want);
    else
        pair_collectives(r, sub, pair);
    RANK_HCCL(r, HcclCommDestroy(sub));
}

/* kind 0: ranks 1 and 3 of 4 make a sub-communicator; rank 0 calls as a
 * rank outside it does (rankIds NULL, subCommId 0xFFFFFFFF) and rank 2 not
 * at all. kind 1: ranks {0, 1} and {2, 3} make two at once, each with its
 * own values; then the parent still all-reduces over all four. kind 2:
 * both ranks of two make one, in the order {1, 0}. */
static void sub_comm_body(rank_ctx *r)
{
    uint32_t me = r->rank;
    if (r->kind == 2) {
        join_pair(r, (const uint32_t[2]){1, 0}, 9);
        return;
    }
    if (r->kind == 0) {
        if (me == 0) {
            HcclCommConfig config;
            HcclCommConfigInit(&config);
            HcclComm untouched = NULL;
            RANK_HCCL(r, HcclCreateSubCommConfig(&r->comm, 0, NULL, 0xFFFFFFFFULL, 0, &config,
                                                 &untouched));
            if (untouched)
                rank_fail(r, "a rank outside the sub-communicator was given one");
        }
        if (me == 1 || me == 3)
            join_pair(r, (const uint32_t[2]){1, 3}, 7);
        return;
    }
    join_pair(r, me < 2 ? (const uint32_t[2]){0, 1} : (const uint32_t[2]){2, 3}, me < 2 ? 1 : 2);
    if (r->failure[0])
        return;
    int32_t host[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        host[i] = (int32_t)(me + i);
    void *buf = dev_alloc(r, sizeof host);
    if (!buf || !to_dev(r, buf, host, sizeof host))
        return;
    RANK_HCCL(r, HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                               r->stream));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    if (to_host(r, host, buf, sizeof host))
        EXPECT_VALUES(r, "allreduce in the parent after its sub-communicators",
                      HCCL_DATA_TYPE_INT32, host, (size_t)COUNT, (double)(6 + 4 * i));
    (void)aclrtFree(buf);
}

/* Rank 0 makes a sub-communicator with rank 1, which never calls: the call
 * gives up with HCCL_E_TIMEOUT after the connect timeout, not a hang. */
static void sub_comm_member_missing_body(rank_ctx *r)
{
    if (r->rank != 0)
        return;
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    uint32_t pair[2] = {0, 1};
    HcclComm sub = NULL;
    HcclResult hr = HcclCreateSubCommConfig(&r->comm, 2, pair, 5, 0, &config, &sub);
    if (hr != HCCL_E_TIMEOUT || sub)
        rank_fail(r, "a sub-communicator whose other rank never came returned %d (%s), sub %p",
                  (int)hr, HcclGetErrorString(hr), (void *)sub);
}

/* ---- every collective in one communicator ------------------------------------------ */

/* Each collective × data type × reduce op, one after another in the same
 * communicator, as the threaded tests run them one per test. */
static void every_collective(rank_ctx *r)
{
    static const rank_body bodies[] = {reductions, movement, ring};
    static const int kinds[] = {5, 7, 2};
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++)
        for (int k = 0; k < kinds[b]; k++) {
            r->kind = k;
            bodies[b](r);
            if (r->failure[0])
                return;
        }
    pairs_body(r);
    if (!r->failure[0])
        barrier_body(r);
}

/* ---- the tests ---------------------------------------------------------------------- */

/* Each collective on 1, 2, 4 and 8 ranks (_i is the loop index). */
static const uint32_t RANK_COUNTS[] = {1, 2, 4, 8};

#define WORLD_TEST_OF(name, body, kind)                                                            \
    START_TEST(name)                                                                               \
    {                                                                                              \
        uint32_t n = RANK_COUNTS[_i];                                                              \
        if (ranks_fit(n))                                                                          \
            run_world(n, body, kind);                                                              \
    }                                                                                              \
    END_TEST
#define WORLD_TEST(name, body) WORLD_TEST_OF(name, body, 0)

WORLD_TEST_OF(allreduce_every_type_and_op, reductions, 0)
WORLD_TEST_OF(allreduce_in_place, reductions, 4)
WORLD_TEST_OF(reduce_every_type_and_op, reductions, 1)
WORLD_TEST_OF(reduce_scatter_every_type_and_op, reductions, 2)
WORLD_TEST_OF(reduce_scatterv_every_type_and_op, reductions, 3)
WORLD_TEST_OF(broadcast_every_type, movement, 0)
WORLD_TEST_OF(allgather_every_type, movement, 1)
WORLD_TEST_OF(allgatherv_every_type, movement, 2)
WORLD_TEST_OF(scatter_every_type, movement, 3)
WORLD_TEST_OF(alltoall_every_type, movement, 4)
WORLD_TEST_OF(alltoallv_every_type, movement, 5)
WORLD_TEST_OF(alltoallvc_every_type, movement, 6)
WORLD_TEST_OF(grouped_send_recv_ring, ring, 0)
WORLD_TEST_OF(batch_send_recv_ring, ring, 1)
WORLD_TEST(send_recv_pairs, pairs_body)
WORLD_TEST(barrier, barrier_body)
WORLD_TEST(rank_and_size, identity_body)
WORLD_TEST(ordered_by_acl_events, event_order_body)
WORLD_TEST(captured_and_replayed, capture_body)
WORLD_TEST(destroy_with_work_queued, destroy_with_work_queued_body)

/* Rank 0 of two alone: the init gives up after the connect timeout with
 * HCCL_E_TIMEOUT instead of waiting for ever (HCCL_CONNECT_TIMEOUT is at
 * least 120 s; acl-cuda's ACLCUDA_HCCL_CONNECT_TIMEOUT goes lower). */
START_TEST(rank_that_never_arrives)
{
    setenv("ACLCUDA_HCCL_CONNECT_TIMEOUT", "2", 1);
    ACL_OK(aclrtSetDevice(0));
    HcclRootInfo root;
    ck_assert_int_eq(HcclGetRootInfo(&root), HCCL_SUCCESS);
    HcclComm comm = NULL;
    HcclResult hr = HcclCommInitRootInfo(2, &root, 0, &comm);
    ck_assert_msg(hr == HCCL_E_TIMEOUT, "HcclCommInitRootInfo alone returned %d (%s)", (int)hr,
                  HcclGetErrorString(hr));
    ck_assert_ptr_null(comm);
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

/* Rank 1 never joins rank 0's allreduce (it waits at the end instead):
 * after HCCL_EXEC_TIMEOUT the collective gives up, the stream goes on and
 * the communicator reports HCCL_E_TIMEOUT. */
static void peer_never_joins_body(rank_ctx *r)
{
    if (r->rank != 0)
        return;
    int32_t host[COUNT] = {0};
    void *buf = dev_alloc(r, sizeof host);
    if (!buf)
        return;
    RANK_HCCL(r, HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                               r->stream));
    RANK_ACL(r, aclrtSynchronizeStream(r->stream));
    HcclResult async = HCCL_SUCCESS;
    RANK_HCCL(r, HcclGetCommAsyncError(r->comm, &async));
    if (async != HCCL_E_TIMEOUT)
        rank_fail(r, "the abandoned allreduce left async error %d, not HCCL_E_TIMEOUT", (int)async);
    (void)aclrtFree(buf);
}

START_TEST(exec_timeout_when_a_peer_never_joins)
{
    if (strcmp(aclcudaGetBackendName(), "cuda") == 0)
        COMPAT_SKIP("NCCL: a collective already running on the GPU waits for its peers; "
                    "HCCL_EXEC_TIMEOUT bounds queuing and teardown there");
    setenv("HCCL_EXEC_TIMEOUT", "2", 1);
    if (ranks_fit(2))
        run_world(2, peer_never_joins_body, 0);
}
END_TEST

START_TEST(captured_collective_outlives_its_communicator)
{
    if (strcmp(aclcudaGetBackendName(), "cuda") == 0)
        COMPAT_SKIP("NCCL requires a captured graph to go before its communicator");
    if (ranks_fit(2))
        run_world(2, replay_after_destroy_body, 0);
}
END_TEST

/* As forked processes, 2 and 4 of them: no ACL in the test's own process. */
static const uint32_t PROCESS_COUNTS[] = {2, 4};

START_TEST(every_collective_as_processes)
{
    uint32_t n = PROCESS_COUNTS[_i];
    if (ranks_fit_in(n, device_count_probed()))
        run_processes(n, every_collective, 0);
}
END_TEST

START_TEST(sub_communicators_as_processes)
{
    if (ranks_fit_in(4, device_count_probed()))
        run_processes(4, sub_comm_body, 1);
}
END_TEST

START_TEST(sub_communicator_of_two_of_four)
{
    if (ranks_fit(4))
        run_world(4, sub_comm_body, 0);
}
END_TEST

START_TEST(two_disjoint_sub_communicators_at_once)
{
    if (ranks_fit(4))
        run_world(4, sub_comm_body, 1);
}
END_TEST

START_TEST(sub_communicator_of_both_of_two)
{
    if (ranks_fit(2))
        run_world(2, sub_comm_body, 2);
}
END_TEST

START_TEST(sub_communicator_member_that_never_comes)
{
    setenv("ACLCUDA_HCCL_CONNECT_TIMEOUT", "2", 1);
    if (ranks_fit(2))
        run_world(2, sub_comm_member_missing_body, 0);
}
END_TEST

/* HcclCommInitAll: one communicator per listed device, in this process. */
START_TEST(init_all)
{
    uint32_t devices = compat_device_count();
    uint32_t n = devices < 4 ? devices : 4;
    int32_t list[4] = {0, 1, 2, 3};
    HcclComm comms[4] = {NULL};
    ck_assert_int_eq(HcclCommInitAll(n, list, comms), HCCL_SUCCESS);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t rank = 99, size = 0;
        ck_assert_int_eq(HcclGetRankId(comms[i], &rank), HCCL_SUCCESS);
        ck_assert_int_eq(HcclGetRankSize(comms[i], &size), HCCL_SUCCESS);
        ck_assert_uint_eq(rank, i);
        ck_assert_uint_eq(size, n);
    }
    for (uint32_t i = 0; i < n; i++)
        ck_assert_int_eq(HcclCommDestroy(comms[i]), HCCL_SUCCESS);
}
END_TEST

static Suite *hccl_collectives_suite(void)
{
    Suite *s = suite_create("hccl collectives");
    TCase *c = tcase_create("collectives");
    tcase_add_checked_fixture(c, compat_init, compat_finalize);
    tcase_set_timeout(c, 120);
    size_t nc = sizeof RANK_COUNTS / sizeof RANK_COUNTS[0];
    tcase_add_loop_test(c, allreduce_every_type_and_op, 0, (int)nc);
    tcase_add_loop_test(c, allreduce_in_place, 0, (int)nc);
    tcase_add_loop_test(c, reduce_every_type_and_op, 0, (int)nc);
    tcase_add_loop_test(c, reduce_scatter_every_type_and_op, 0, (int)nc);
    tcase_add_loop_test(c, reduce_scatterv_every_type_and_op, 0, (int)nc);
    tcase_add_loop_test(c, broadcast_every_type, 0, (int)nc);
    tcase_add_loop_test(c, allgather_every_type, 0, (int)nc);
    tcase_add_loop_test(c, allgatherv_every_type, 0, (int)nc);
    tcase_add_loop_test(c, scatter_every_type, 0, (int)nc);
    tcase_add_loop_test(c, alltoall_every_type, 0, (int)nc);
    tcase_add_loop_test(c, alltoallv_every_type, 0, (int)nc);
    tcase_add_loop_test(c, alltoallvc_every_type, 0, (int)nc);
    tcase_add_loop_test(c, grouped_send_recv_ring, 0, (int)nc);
    tcase_add_loop_test(c, batch_send_recv_ring, 0, (int)nc);
    tcase_add_loop_test(c, send_recv_pairs, 0, (int)nc);
    tcase_add_loop_test(c, barrier, 0, (int)nc);
    tcase_add_loop_test(c, rank_and_size, 0, (int)nc);
    suite_add_tcase(s, c);

    TCase *order = tcase_create("order");
    tcase_add_checked_fixture(order, compat_init, compat_finalize);
    tcase_set_timeout(order, 120);
    tcase_add_loop_test(order, ordered_by_acl_events, 0, (int)nc);
    tcase_add_loop_test(order, captured_and_replayed, 0, (int)nc);
    tcase_add_loop_test(order, destroy_with_work_queued, 0, (int)nc);
    suite_add_tcase(s, order);

    TCase *life = tcase_create("lifecycle");
    tcase_add_checked_fixture(life, compat_init, compat_finalize);
    tcase_set_timeout(life, 120);
    tcase_add_test(life, rank_that_never_arrives);
    tcase_add_test(life, exec_timeout_when_a_peer_never_joins);
    tcase_add_test(life, captured_collective_outlives_its_communicator);
    tcase_add_test(life, init_all);
    suite_add_tcase(s, life);

    TCase *sub = tcase_create("sub-communicators");
    tcase_add_checked_fixture(sub, compat_init, compat_finalize);
    tcase_set_timeout(sub, 120);
    tcase_add_test(sub, sub_communicator_of_two_of_four);
    tcase_add_test(sub, sub_communicator_of_both_of_two);
    tcase_add_test(sub, two_disjoint_sub_communicators_at_once);
    tcase_add_test(sub, sub_communicator_member_that_never_comes);
    suite_add_tcase(s, sub);

    TCase *processes = tcase_create("processes");
    tcase_set_timeout(processes, 120);
    tcase_add_loop_test(processes, every_collective_as_processes, 0,
                        (int)(sizeof PROCESS_COUNTS / sizeof PROCESS_COUNTS[0]));
    tcase_add_test(processes, sub_communicators_as_processes);
    suite_add_tcase(s, processes);
    return s;
}

int main(void)
{
    /* The host backend: a device per rank. */
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "8", 0);
    shared_world =
        mmap(NULL, sizeof *shared_world, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared_world == MAP_FAILED)
        return EXIT_FAILURE;
    return acltest_run(hccl_collectives_suite());
}
