/* The Gloo engine through engine.h, and the rendezvous store under it, on
 * the host backend ("device" memory is host memory there, so the tests
 * read and write it directly). Ranks run as threads of one process and as
 * forked processes; every collective and type is checked by value. */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "hccl/engine.h"
#include "hccl/rendezvous.h"
#include "hccl/errors.h"

#define ENGINE (&hccl_engine_gloo)
#define MAX_RANKS 8

/* ---- ranks ----------------------------------------------------------------------------- */

typedef struct rank_env rank_env;
typedef bool (*rank_body)(rank_env *env);

struct rank_env {
    uint32_t rank, nranks;
    const unsigned char *root;
    double connect_s, exec_s;
    hccl_engine_comm *comm;
    aclrtStream stream;
    rank_body body;
    HcclResult init_result;
    bool init_may_fail;
    char err[512];
};

#define REQUIRE(env, cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int at_ = snprintf((env)->err, sizeof(env)->err, "rank %u, line %d: ", (env)->rank,    \
                               __LINE__);                                                          \
            snprintf((env)->err + at_, sizeof(env)->err - (size_t)at_, __VA_ARGS__);               \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

static void *rank_main(void *arg)
{
    rank_env *env = arg;
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&env->stream) != ACL_SUCCESS) {
        snprintf(env->err, sizeof env->err, "rank %u: ACL setup failed", env->rank);
        return NULL;
    }
    hccl_join join = {env->nranks, env->rank, 0, env->root, env->connect_s, env->exec_s};
    env->init_result = ENGINE->comm_init(&join, &env->comm);
    if (env->init_result == HCCL_SUCCESS) {
        if (env->body)
            env->body(env);
        if (aclrtSynchronizeStream(env->stream) != ACL_SUCCESS && !env->err[0])
            snprintf(env->err, sizeof env->err, "rank %u: stream failed", env->rank);
        HcclResult destroyed = ENGINE->comm_destroy(env->comm);
        if (destroyed != HCCL_SUCCESS && !env->err[0])
            snprintf(env->err, sizeof env->err, "rank %u: comm_destroy %d", env->rank, destroyed);
    } else if (!env->init_may_fail) {
        snprintf(env->err, sizeof env->err, "rank %u: comm_init %d: %s", env->rank,
                 env->init_result, hccl_last_error());
    }
    aclrtDestroyStream(env->stream);
    aclrtResetDevice(0);
    return NULL;
}

static void env_init(rank_env *env, uint32_t rank, uint32_t nranks, const unsigned char *root,
                     rank_body body)
{
    memset(env, 0, sizeof *env);
    env->rank = rank;
    env->nranks = nranks;
    env->root = root;
    env->body = body;
    env->connect_s = 30;
    env->exec_s = 30;
}

/* Runs body on nranks threads, each a rank of one communicator. */
static void run_threads(uint32_t nranks, rank_body body)
{
    static unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    ck_assert_int_eq(ENGINE->root_info(root), HCCL_SUCCESS);
    rank_env envs[MAX_RANKS];
    pthread_t threads[MAX_RANKS];
    for (uint32_t r = 0; r < nranks; r++) {
        env_init(&envs[r], r, nranks, root, body);
        ck_assert_int_eq(pthread_create(&threads[r], NULL, rank_main, &envs[r]), 0);
    }
    for (uint32_t r = 0; r < nranks; r++)
        ck_assert_int_eq(pthread_join(threads[r], NULL), 0);
    for (uint32_t r = 0; r < nranks; r++)
        ck_assert_msg(!envs[r].err[0], "%s", envs[r].err);
}

/* Shared between the forked ranks. */
typedef struct shared_state {
    unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    atomic_int root_ready;
    atomic_int arrived;
    HcclResult async_error[MAX_RANKS];
    char err[MAX_RANKS][512];
} shared_state;

static shared_state *shared;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int process_rank(uint32_t rank, uint32_t nranks, rank_body body)
{
    signal(SIGALRM, SIG_DFL);
    alarm(120);
    if (aclInit(NULL) != ACL_SUCCESS)
        return 2;
    if (rank == 0) {
        if (ENGINE->root_info(shared->root) != HCCL_SUCCESS)
            return 3;
        atomic_store(&shared->root_ready, 1);
    }
    for (int i = 0; i < 60000 && !atomic_load(&shared->root_ready); i++)
        sleep_ms(1);
    rank_env env;
    env_init(&env, rank, nranks, shared->root, body);
    rank_main(&env);
    memcpy(shared->err[rank], env.err, sizeof env.err);
    aclFinalize();
    return env.err[0] ? 1 : 0;
}

/* Runs body in nranks forked processes, each a rank. */
static void run_processes(uint32_t nranks, rank_body body)
{
    memset(shared, 0, sizeof *shared);
    pid_t pids[MAX_RANKS];
    fflush(stdout);
    fflush(stderr);
    for (uint32_t r = 0; r < nranks; r++) {
        pids[r] = fork();
        ck_assert_int_ge(pids[r], 0);
        if (pids[r] == 0)
            _exit(process_rank(r, nranks, body));
    }
    for (uint32_t r = 0; r < nranks; r++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[r], &status, 0), pids[r]);
        ck_assert_msg(!WIFSIGNALED(status), "rank %u %s (signal %d)", r,
                      WTERMSIG(status) == SIGALRM ? "hung" : "crashed", WTERMSIG(status));
        ck_assert_msg(!shared->err[r][0], "%s", shared->err[r]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "rank %u exited with %d", r,
                      WEXITSTATUS(status));
    }
}

/* ---- ops ------------------------------------------------------------------------------- */

/* An op as the frame builds it (heap-allocated, its arrays its own),
 * reducing with SUM unless a test says otherwise. */
static hccl_op *op_new(hccl_op_kind kind, HcclDataType dtype, const void *send, void *recv,
                       uint64_t count)
{
    hccl_op *op = hccl_op_new(kind, dtype, send, recv, count);
    ck_assert_ptr_nonnull(op);
    op->reduce = HCCL_REDUCE_SUM;
    return op;
}

static uint64_t *u64_copy(uint32_t n, const uint64_t *values)
{
    uint64_t *a = malloc(n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    memcpy(a, values, n * sizeof *a);
    return a;
}

/* Submits op, waits for the stream and checks that the op did not fail. */
static bool run_op(rank_env *env, hccl_op *op)
{
    HcclResult ret = ENGINE->submit(env->comm, op, env->stream);
    REQUIRE(env, ret == HCCL_SUCCESS, "submit: %d %s", ret, hccl_last_error());
    REQUIRE(env, aclrtSynchronizeStream(env->stream) == ACL_SUCCESS, "synchronize");
    HcclResult async = HCCL_E_INTERNAL;
    REQUIRE(env, ENGINE->async_error(env->comm, &async) == HCCL_SUCCESS, "async_error");
    REQUIRE(env, async == HCCL_SUCCESS, "the op failed: %d %s", async, hccl_last_error());
    return true;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    memset(p, 0xEE, bytes ? bytes : 1);
    return p;
}

/* ---- values ---------------------------------------------------------------------------- */

static const HcclDataType reducible[] = {
    HCCL_DATA_TYPE_INT8,    HCCL_DATA_TYPE_INT16,   HCCL_DATA_TYPE_INT32,  HCCL_DATA_TYPE_INT64,
    HCCL_DATA_TYPE_UINT8,   HCCL_DATA_TYPE_UINT16,  HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_UINT64,
    HCCL_DATA_TYPE_FP16,    HCCL_DATA_TYPE_BFP16,   HCCL_DATA_TYPE_FP32,   HCCL_DATA_TYPE_FP64,
    HCCL_DATA_TYPE_FP8E4M3, HCCL_DATA_TYPE_FP8E5M2,
};
#define NREDUCIBLE (sizeof reducible / sizeof reducible[0])

static const HcclDataType every_type[] = {
    HCCL_DATA_TYPE_INT8,    HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,   HCCL_DATA_TYPE_FP16,
    HCCL_DATA_TYPE_FP32,    HCCL_DATA_TYPE_INT64,  HCCL_DATA_TYPE_UINT64,  HCCL_DATA_TYPE_UINT8,
    HCCL_DATA_TYPE_UINT16,  HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_FP64,    HCCL_DATA_TYPE_BFP16,
    HCCL_DATA_TYPE_INT128,  HCCL_DATA_TYPE_HIF8,   HCCL_DATA_TYPE_FP8E4M3, HCCL_DATA_TYPE_FP8E5M2,
    HCCL_DATA_TYPE_FP8E8M0,
};
#define NTYPES (sizeof every_type / sizeof every_type[0])

/* Bits of v (0, or a small value exactly representable) in a binary
 * format with mbits fraction bits and the given bias. */
static uint32_t exact_float_bits(double v, int mbits, int bias)
{
    if (v == 0)
        return 0;
    int e = ilogb(v);
    double fraction = v / ldexp(1, e) - 1;
    return (uint32_t)(e + bias) << mbits | (uint32_t)(fraction * (1 << mbits));
}

/* Stores v as element i of a buffer of dtype (integers wrap). */
static void put_value(HcclDataType t, void *buf, size_t i, double v)
{
    int64_t n = (int64_t)v;
    switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
        ((uint8_t *)buf)[i] = (uint8_t)n;
        break;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
        ((uint16_t *)buf)[i] = (uint16_t)n;
        break;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)n;
        break;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
        ((uint64_t *)buf)[i] = (uint64_t)n;
        break;
    case HCCL_DATA_TYPE_FP32:
        ((float *)buf)[i] = (float)v;
        break;
    case HCCL_DATA_TYPE_FP64:
        ((double *)buf)[i] = v;
        break;
    case HCCL_DATA_TYPE_FP16:
        ((uint16_t *)buf)[i] = (uint16_t)exact_float_bits(v, 10, 15);
        break;
    case HCCL_DATA_TYPE_BFP16:
        ((uint16_t *)buf)[i] = (uint16_t)exact_float_bits(v, 7, 127);
        break;
    case HCCL_DATA_TYPE_FP8E4M3:
        ((uint8_t *)buf)[i] = (uint8_t)exact_float_bits(v, 3, 7);
        break;
    case HCCL_DATA_TYPE_FP8E5M2:
        ((uint8_t *)buf)[i] = (uint8_t)exact_float_bits(v, 2, 15);
        break;
    default:
        ck_abort_msg("no values for type %d", t);
    }
}

/* Rank r's element i, chosen so that every partial result in any order is
 * exact in the type (fp8 sums stay at most 8, products are powers of 2). */
static double value_of(HcclDataType t, HcclReduceOp op, uint32_t r, size_t i)
{
    if (op == HCCL_REDUCE_PROD)
        return (double)((r + i) % 2 + 1);
    if (op == HCCL_REDUCE_SUM && (t == HCCL_DATA_TYPE_FP8E4M3 || t == HCCL_DATA_TYPE_FP8E5M2))
        return 1;
    return (double)((r * 3 + i) % 7 + 1);
}

static double expected_of(HcclDataType t, HcclReduceOp op, uint32_t nranks, size_t i)
{
    double acc = value_of(t, op, 0, i);
    for (uint32_t r = 1; r < nranks; r++) {
        double v = value_of(t, op, r, i);
        acc = op == HCCL_REDUCE_SUM    ? acc + v
              : op == HCCL_REDUCE_PROD ? acc * v
              : op == HCCL_REDUCE_MAX  ? fmax(acc, v)
                                       : fmin(acc, v);
    }
    return acc;
}

static void fill_values(HcclDataType t, HcclReduceOp op, uint32_t r, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_value(t, buf, i, value_of(t, op, r, i));
}

/* Whether buf[0..n) holds the reduction of elements from..from+n. */
static bool holds_reduction(HcclDataType t, HcclReduceOp op, uint32_t nranks, const void *buf,
                            size_t from, size_t n)
{
    size_t es = hccl_dtype_size(t);
    unsigned char expect[16];
    for (size_t i = 0; i < n; i++) {
        put_value(t, expect, 0, expected_of(t, op, nranks, from + i));
        if (memcmp(expect, (const unsigned char *)buf + i * es, es) != 0)
            return false;
    }
    return true;
}

static uint8_t pattern(uint32_t a, uint32_t b, size_t k)
{
    return (uint8_t)(a * 37 + b * 11 + k * 3 + 1);
}

static bool all_bytes(const void *buf, size_t n, uint8_t byte)
{
    for (size_t i = 0; i < n; i++)
        if (((const uint8_t *)buf)[i] != byte)
            return false;
    return true;
}

/* ---- the reductions -------------------------------------------------------------------- */

enum { RCOUNT = 7 };

static bool check_reductions(rank_env *env, HcclDataType t, HcclReduceOp op)
{
    const uint32_t n = env->nranks, me = env->rank;
    const size_t es = hccl_dtype_size(t), full = RCOUNT * n;
    uint8_t *send = dev_alloc(full * es), *recv = dev_alloc(full * es);
    REQUIRE(env, send && recv, "aclrtMalloc");

    /* allreduce, then in place */
    fill_values(t, op, me, send, RCOUNT);
    hccl_op *o = op_new(HCCL_OP_ALLREDUCE, t, send, recv, RCOUNT);
    o->reduce = op;
    if (!run_op(env, o))
        return false;
    REQUIRE(env, holds_reduction(t, op, n, recv, 0, RCOUNT), "allreduce type %d op %d", t, op);
    o = op_new(HCCL_OP_ALLREDUCE, t, send, send, RCOUNT);
    o->reduce = op;
    if (!run_op(env, o))
        return false;
    REQUIRE(env, holds_reduction(t, op, n, send, 0, RCOUNT), "in-place allreduce %d/%d", t, op);

    /* reduce to the last rank; the others' output stays as it was */
    uint32_t root = n - 1;
    fill_values(t, op, me, send, RCOUNT);
    memset(recv, 0xEE, full * es);
    o = op_new(HCCL_OP_REDUCE, t, send, recv, RCOUNT);
    o->reduce = op;
    o->root = root;
    if (!run_op(env, o))
        return false;
    if (me == root)
        REQUIRE(env, holds_reduction(t, op, n, recv, 0, RCOUNT), "reduce %d/%d", t, op);
    else
        REQUIRE(env, all_bytes(recv, full * es, 0xEE), "reduce wrote a non-root's output");
    o = op_new(HCCL_OP_REDUCE, t, send, send, RCOUNT);
    o->reduce = op;
    o->root = root;
    if (!run_op(env, o))
        return false;
    if (me == root)
        REQUIRE(env, holds_reduction(t, op, n, send, 0, RCOUNT), "in-place reduce %d/%d", t, op);

    /* reduce-scatter: RCOUNT per rank, out of place and in place */
    fill_values(t, op, me, send, full);
    o = op_new(HCCL_OP_REDUCE_SCATTER, t, send, recv, RCOUNT);
    o->reduce = op;
    if (!run_op(env, o))
        return false;
    REQUIRE(env, holds_reduction(t, op, n, recv, me * RCOUNT, RCOUNT), "reduce-scatter %d/%d", t,
            op);
    o = op_new(HCCL_OP_REDUCE_SCATTER, t, send, send, RCOUNT);
    o->reduce = op;
    if (!run_op(env, o))
        return false;
    REQUIRE(env, holds_reduction(t, op, n, send, me * RCOUNT, RCOUNT),
            "in-place reduce-scatter %d/%d", t, op);

    /* reduce-scatterv: rank j's block has j+1 elements, one element apart */
    uint64_t counts[MAX_RANKS], displs[MAX_RANKS], at = 0;
    for (uint32_t j = 0; j < n; j++) {
        counts[j] = j + 1;
        displs[j] = at;
        at += counts[j] + 1;
    }
    ck_assert_uint_le(at, full * 2);
    uint8_t *vsend = dev_alloc(at * es);
    REQUIRE(env, vsend, "aclrtMalloc");
    fill_values(t, op, me, vsend, at);
    o = op_new(HCCL_OP_REDUCE_SCATTERV, t, vsend, recv, counts[me]);
    o->reduce = op;
    o->send_counts = u64_copy(n, counts);
    o->send_displs = u64_copy(n, displs);
    if (!run_op(env, o))
        return false;
    REQUIRE(env, holds_reduction(t, op, n, recv, displs[me], counts[me]), "reduce-scatterv %d/%d",
            t, op);
    aclrtFree(vsend);
    aclrtFree(send);
    aclrtFree(recv);
    return true;
}

static bool every_reduction(rank_env *env)
{
    for (size_t t = 0; t < NREDUCIBLE; t++)
        for (int op = HCCL_REDUCE_SUM; op <= HCCL_REDUCE_MIN; op++)
            if (!check_reductions(env, reducible[t], (HcclReduceOp)op))
                return false;
    return true;
}

/* ---- the data-moving collectives ------------------------------------------------------- */

enum { MCOUNT = 5 };

static bool check_moves(rank_env *env, HcclDataType t)
{
    const uint32_t n = env->nranks, me = env->rank;
    const size_t es = hccl_dtype_size(t), bytes = MCOUNT * es, big = bytes * n * 3;
    uint8_t *send = dev_alloc(big), *recv = dev_alloc(big);
    REQUIRE(env, send && recv, "aclrtMalloc");

    /* broadcast from rank 1 % n */
    uint32_t root = 1 % n;
    for (size_t k = 0; k < bytes; k++)
        recv[k] = me == root ? pattern(root, 0, k) : 0;
    hccl_op *o = op_new(HCCL_OP_BROADCAST, t, recv, recv, MCOUNT);
    o->root = root;
    if (!run_op(env, o))
        return false;
    for (size_t k = 0; k < bytes; k++)
        REQUIRE(env, recv[k] == pattern(root, 0, k), "broadcast type %d byte %zu", t, k);

    /* allgather, out of place and in place */
    for (size_t k = 0; k < bytes; k++)
        send[k] = pattern(me, 1, k);
    memset(recv, 0, big);
    if (!run_op(env, op_new(HCCL_OP_ALLGATHER, t, send, recv, MCOUNT)))
        return false;
    for (uint32_t j = 0; j < n; j++)
        for (size_t k = 0; k < bytes; k++)
            REQUIRE(env, recv[j * bytes + k] == pattern(j, 1, k), "allgather type %d", t);
    memset(recv, 0, big);
    for (size_t k = 0; k < bytes; k++)
        recv[me * bytes + k] = pattern(me, 2, k);
    if (!run_op(env, op_new(HCCL_OP_ALLGATHER, t, recv + me * bytes, recv, MCOUNT)))
        return false;
    for (uint32_t j = 0; j < n; j++)
        for (size_t k = 0; k < bytes; k++)
            REQUIRE(env, recv[j * bytes + k] == pattern(j, 2, k), "in-place allgather type %d", t);

    /* allgatherv: rank j sends j+1 elements, placed one element apart */
    uint64_t counts[MAX_RANKS], displs[MAX_RANKS], at = 0;
    for (uint32_t j = 0; j < n; j++) {
        counts[j] = j + 1;
        displs[j] = at;
        at += counts[j] + 1;
    }
    for (size_t k = 0; k < counts[me] * es; k++)
        send[k] = pattern(me, 3, k);
    memset(recv, 0xEE, big);
    o = op_new(HCCL_OP_ALLGATHERV, t, send, recv, counts[me]);
    o->recv_counts = u64_copy(n, counts);
    o->recv_displs = u64_copy(n, displs);
    if (!run_op(env, o))
        return false;
    for (uint32_t j = 0; j < n; j++) {
        for (size_t k = 0; k < counts[j] * es; k++)
            REQUIRE(env, recv[displs[j] * es + k] == pattern(j, 3, k), "allgatherv type %d", t);
        REQUIRE(env, all_bytes(recv + (displs[j] + counts[j]) * es, es, 0xEE),
                "allgatherv wrote a gap");
    }

    /* scatter from rank 0, out of place and in place at the root */
    for (uint32_t j = 0; j < n; j++)
        for (size_t k = 0; k < bytes; k++)
            send[j * bytes + k] = me == 0 ? pattern(j, 4, k) : 0;
    memset(recv, 0, big);
    if (!run_op(env, op_new(HCCL_OP_SCATTER, t, send, recv, MCOUNT)))
        return false;
    for (size_t k = 0; k < bytes; k++)
        REQUIRE(env, recv[k] == pattern(me, 4, k), "scatter type %d", t);
    uint8_t *out = me == 0 ? send : recv; /* the root's block 0 is its own */
    if (!run_op(env, op_new(HCCL_OP_SCATTER, t, send, out, MCOUNT)))
        return false;
    for (size_t k = 0; k < bytes; k++)
        REQUIRE(env, out[k] == pattern(me, 4, k), "in-place scatter type %d", t);

    /* alltoall (counts and displs per peer, as the API layer fills them),
     * out of place and in place */
    uint64_t uc[MAX_RANKS], ud[MAX_RANKS];
    for (uint32_t j = 0; j < n; j++) {
        uc[j] = MCOUNT;
        ud[j] = j * MCOUNT;
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        for (uint32_t j = 0; j < n; j++)
            for (size_t k = 0; k < bytes; k++)
                send[j * bytes + k] = pattern(me, j + 5, k);
        uint8_t *dst = in_place ? send : recv;
        o = op_new(HCCL_OP_ALLTOALL, t, send, dst, MCOUNT);
        o->send_counts = u64_copy(n, uc);
        o->send_displs = u64_copy(n, ud);
        o->recv_counts = u64_copy(n, uc);
        o->recv_displs = u64_copy(n, ud);
        if (!run_op(env, o))
            return false;
        for (uint32_t j = 0; j < n; j++)
            for (size_t k = 0; k < bytes; k++)
                REQUIRE(env, dst[j * bytes + k] == pattern(j, me + 5, k), "alltoall type %d%s", t,
                        in_place ? " in place" : "");
    }

    /* alltoallv: rank a sends (2a + b) % 3 + 1 elements to b, blocks one
     * element apart on both sides */
    uint64_t sc[MAX_RANKS], sd[MAX_RANKS], rc[MAX_RANKS], rd[MAX_RANKS], sat = 0, rat = 0;
    for (uint32_t j = 0; j < n; j++) {
        sc[j] = (2 * me + j) % 3 + 1;
        rc[j] = (2 * j + me) % 3 + 1;
        sd[j] = sat;
        rd[j] = rat;
        sat += sc[j] + 1;
        rat += rc[j] + 1;
    }
    for (uint32_t j = 0; j < n; j++)
        for (size_t k = 0; k < sc[j] * es; k++)
            send[sd[j] * es + k] = pattern(me, j + 20, k);
    memset(recv, 0xEE, big);
    o = op_new(HCCL_OP_ALLTOALLV, t, send, recv, 0);
    o->send_counts = u64_copy(n, sc);
    o->send_displs = u64_copy(n, sd);
    o->recv_counts = u64_copy(n, rc);
    o->recv_displs = u64_copy(n, rd);
    if (!run_op(env, o))
        return false;
    for (uint32_t j = 0; j < n; j++) {
        for (size_t k = 0; k < rc[j] * es; k++)
            REQUIRE(env, recv[rd[j] * es + k] == pattern(j, me + 20, k), "alltoallv type %d", t);
        REQUIRE(env, all_bytes(recv + (rd[j] + rc[j]) * es, es, 0xEE), "alltoallv wrote a gap");
    }

    /* send and receive: even ranks send to the next odd one */
    if (n > 1 && (me % 2 == 0 ? me + 1 < n : true)) {
        uint32_t peer = me ^ 1;
        bool sending = me % 2 == 0;
        for (size_t k = 0; k < bytes; k++)
            send[k] = pattern(me, 30, k);
        memset(recv, 0, bytes);
        o = op_new(sending ? HCCL_OP_SEND : HCCL_OP_RECV, t, send, recv, MCOUNT);
        o->peer = peer;
        if (!run_op(env, o))
            return false;
        if (!sending)
            for (size_t k = 0; k < bytes; k++)
                REQUIRE(env, recv[k] == pattern(peer, 30, k), "send/recv type %d", t);
    }
    aclrtFree(send);
    aclrtFree(recv);
    return true;
}

static bool every_move(rank_env *env)
{
    for (size_t t = 0; t < NTYPES; t++)
        if (!check_moves(env, every_type[t]))
            return false;
    return run_op(env, op_new(HCCL_OP_BARRIER, HCCL_DATA_TYPE_INT8, NULL, NULL, 0));
}

/* A large allreduce: many of Gloo's segments per rank. */
static bool large_allreduce(rank_env *env)
{
    const size_t n = (size_t)1 << 20;
    float *buf = dev_alloc(n * sizeof(float));
    REQUIRE(env, buf, "aclrtMalloc");
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)((i + env->rank) % 1000);
    if (!run_op(env, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, buf, buf, n)))
        return false;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (uint32_t r = 0; r < env->nranks; r++)
            sum += (double)((i + r) % 1000);
        REQUIRE(env, buf[i] == (float)sum, "element %zu: %f, expected %f", i, buf[i], sum);
    }
    aclrtFree(buf);
    return true;
}

static bool matrix(rank_env *env)
{
    return every_reduction(env) && every_move(env) && large_allreduce(env);
}

static const uint32_t thread_ranks[] = {1, 2, 4, 8};
static const uint32_t process_ranks[] = {2, 4};

START_TEST(matrix_as_threads)
{
    run_threads(thread_ranks[_i], matrix);
}
END_TEST

START_TEST(matrix_as_processes)
{
    run_processes(process_ranks[_i], matrix);
}
END_TEST

/* ---- point to point, groups, batches ---------------------------------------------------- */

/* Every rank sends to the next and receives from the previous, in one
 * batch that lists the send first: posted together, the ring cannot
 * deadlock. */
static bool batch_ring(rank_env *env)
{
    const uint32_t n = env->nranks, me = env->rank;
    int32_t *out = dev_alloc(64 * sizeof(int32_t)), *in = dev_alloc(64 * sizeof(int32_t));
    int64_t *out2 = dev_alloc(8 * sizeof(int64_t)), *in2 = dev_alloc(8 * sizeof(int64_t));
    REQUIRE(env, out && in && out2 && in2, "aclrtMalloc");
    for (int i = 0; i < 64; i++)
        out[i] = (int32_t)(me * 1000 + i);
    for (int i = 0; i < 8; i++)
        out2[i] = -(int64_t)(me * 100 + i);
    hccl_op *o = op_new(HCCL_OP_BATCH_SEND_RECV, HCCL_DATA_TYPE_INT32, NULL, NULL, 0);
    o->item_count = 4;
    o->items = calloc(4, sizeof *o->items);
    o->items[0] = (HcclSendRecvItem){HCCL_SEND, out, 64, HCCL_DATA_TYPE_INT32, (me + 1) % n};
    o->items[1] = (HcclSendRecvItem){HCCL_SEND, out2, 8, HCCL_DATA_TYPE_INT64, (me + 1) % n};
    o->items[2] = (HcclSendRecvItem){HCCL_RECV, in, 64, HCCL_DATA_TYPE_INT32, (me + n - 1) % n};
    o->items[3] = (HcclSendRecvItem){HCCL_RECV, in2, 8, HCCL_DATA_TYPE_INT64, (me + n - 1) % n};
    if (!run_op(env, o))
        return false;
    uint32_t prev = (me + n - 1) % n;
    for (int i = 0; i < 64; i++)
        REQUIRE(env, in[i] == (int32_t)(prev * 1000 + i), "batch ring int32 %d", i);
    for (int i = 0; i < 8; i++)
        REQUIRE(env, in2[i] == -(int64_t)(prev * 100 + i), "batch ring int64 %d", i);
    aclrtFree(out);
    aclrtFree(in);
    aclrtFree(out2);
    aclrtFree(in2);
    return true;
}

/* The same ring as separate send and recv calls inside a group. */
static bool group_ring(rank_env *env)
{
    const uint32_t n = env->nranks, me = env->rank;
    uint16_t *out = dev_alloc(100 * sizeof(uint16_t)), *in = dev_alloc(100 * sizeof(uint16_t));
    REQUIRE(env, out && in, "aclrtMalloc");
    for (int i = 0; i < 100; i++)
        out[i] = (uint16_t)(me * 7 + i);
    REQUIRE(env, ENGINE->group_start() == HCCL_SUCCESS, "group_start");
    hccl_op *s = op_new(HCCL_OP_SEND, HCCL_DATA_TYPE_UINT16, out, NULL, 100);
    s->peer = (me + 1) % n;
    hccl_op *r = op_new(HCCL_OP_RECV, HCCL_DATA_TYPE_UINT16, NULL, in, 100);
    r->peer = (me + n - 1) % n;
    REQUIRE(env, ENGINE->submit(env->comm, s, env->stream) == HCCL_SUCCESS, "submit send");
    REQUIRE(env, ENGINE->submit(env->comm, r, env->stream) == HCCL_SUCCESS, "submit recv");
    REQUIRE(env, ENGINE->group_end() == HCCL_SUCCESS, "group_end: %s", hccl_last_error());
    REQUIRE(env, aclrtSynchronizeStream(env->stream) == ACL_SUCCESS, "synchronize");
    HcclResult async = HCCL_E_INTERNAL;
    ENGINE->async_error(env->comm, &async);
    REQUIRE(env, async == HCCL_SUCCESS, "group failed: %d %s", async, hccl_last_error());
    uint32_t prev = (me + n - 1) % n;
    for (int i = 0; i < 100; i++)
        REQUIRE(env, in[i] == (uint16_t)(prev * 7 + i), "group ring element %d", i);
    aclrtFree(out);
    aclrtFree(in);
    return batch_ring(env);
}

START_TEST(batch_and_group_rings)
{
    run_threads(4, group_ring);
    run_threads(2, group_ring);
}
END_TEST

/* ---- stream order and capture ---------------------------------------------------------- */

/* The input is written by a copy on another stream; the allreduce waits for
 * it through an event, and a copy after it on the same stream sees its
 * result. */
static bool ordered_by_events(rank_env *env)
{
    enum { N = 4096 };
    int32_t *host = NULL, *result = NULL;
    REQUIRE(env, aclrtMallocHost((void **)&host, N * sizeof(int32_t)) == ACL_SUCCESS, "host");
    REQUIRE(env, aclrtMallocHost((void **)&result, N * sizeof(int32_t)) == ACL_SUCCESS, "host");
    int32_t *dev = dev_alloc(N * sizeof(int32_t));
    REQUIRE(env, dev, "aclrtMalloc");
    for (int i = 0; i < N; i++)
        host[i] = (int32_t)(env->rank + i);
    aclrtStream producer = NULL;
    aclrtEvent written = NULL;
    REQUIRE(env, aclrtCreateStream(&producer) == ACL_SUCCESS, "stream");
    REQUIRE(env, aclrtCreateEvent(&written) == ACL_SUCCESS, "event");
    REQUIRE(env,
            aclrtMemcpyAsync(dev, N * sizeof(int32_t), host, N * sizeof(int32_t),
                             ACL_MEMCPY_HOST_TO_DEVICE, producer) == ACL_SUCCESS,
            "copy in");
    REQUIRE(env, aclrtRecordEvent(written, producer) == ACL_SUCCESS, "record");
    REQUIRE(env, aclrtStreamWaitEvent(env->stream, written) == ACL_SUCCESS, "wait");
    REQUIRE(env,
            ENGINE->submit(env->comm, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_INT32, dev, dev, N),
                           env->stream) == HCCL_SUCCESS,
            "submit");
    REQUIRE(env,
            aclrtMemcpyAsync(result, N * sizeof(int32_t), dev, N * sizeof(int32_t),
                             ACL_MEMCPY_DEVICE_TO_HOST, env->stream) == ACL_SUCCESS,
            "copy out");
    REQUIRE(env, aclrtSynchronizeStream(env->stream) == ACL_SUCCESS, "synchronize");
    for (int i = 0; i < N; i++) {
        int32_t sum = 0;
        for (uint32_t r = 0; r < env->nranks; r++)
            sum += (int32_t)(r + i);
        REQUIRE(env, result[i] == sum, "element %d: %d, expected %d", i, result[i], sum);
    }
    aclrtDestroyEvent(written);
    aclrtDestroyStream(producer);
    aclrtFreeHost(host);
    aclrtFreeHost(result);
    aclrtFree(dev);
    return true;
}

START_TEST(stream_order_with_events)
{
    run_threads(4, ordered_by_events);
}
END_TEST

/* An allreduce captured into a model runs at each replay, on the inputs of
 * that moment. */
static bool captured_allreduce(rank_env *env)
{
    enum { N = 256 };
    int64_t *in = dev_alloc(N * sizeof(int64_t)), *out = dev_alloc(N * sizeof(int64_t));
    REQUIRE(env, in && out, "aclrtMalloc");
    REQUIRE(env,
            aclmdlRICaptureBegin(env->stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED) == ACL_SUCCESS,
            "capture begin: %s", aclGetRecentErrMsg());
    REQUIRE(env,
            ENGINE->submit(env->comm, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_INT64, in, out, N),
                           env->stream) == HCCL_SUCCESS,
            "submit");
    aclmdlRI model = NULL;
    REQUIRE(env, aclmdlRICaptureEnd(env->stream, &model) == ACL_SUCCESS, "capture end: %s",
            aclGetRecentErrMsg());
    for (int round = 1; round <= 3; round++) {
        for (int i = 0; i < N; i++)
            in[i] = (int64_t)(round * 100 + env->rank * 10 + i);
        memset(out, 0, N * sizeof(int64_t));
        REQUIRE(env, aclmdlRIExecuteAsync(model, env->stream) == ACL_SUCCESS, "execute: %s",
                aclGetRecentErrMsg());
        REQUIRE(env, aclrtSynchronizeStream(env->stream) == ACL_SUCCESS, "synchronize");
        for (int i = 0; i < N; i++) {
            int64_t sum = 0;
            for (uint32_t r = 0; r < env->nranks; r++)
                sum += round * 100 + r * 10 + i;
            REQUIRE(env, out[i] == sum, "round %d element %d: %lld, expected %lld", round, i,
                    (long long)out[i], (long long)sum);
        }
    }
    HcclResult async = HCCL_E_INTERNAL;
    ENGINE->async_error(env->comm, &async);
    REQUIRE(env, async == HCCL_SUCCESS, "async error %d", async);
    REQUIRE(env, aclmdlRIDestroy(model) == ACL_SUCCESS, "model destroy");
    aclrtFree(in);
    aclrtFree(out);
    return true;
}

START_TEST(captured_allreduce_replays)
{
    run_threads(2, captured_allreduce);
}
END_TEST

/* ---- failures -------------------------------------------------------------------------- */

/* Rank 1 never arrives: rank 0's init ends with HCCL_E_TIMEOUT. */
START_TEST(missing_rank_times_out)
{
    static unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    ck_assert_int_eq(ENGINE->root_info(root), HCCL_SUCCESS);
    rank_env env;
    env_init(&env, 0, 2, root, NULL);
    env.connect_s = 1;
    env.init_may_fail = true;
    rank_main(&env);
    ck_assert_msg(!env.err[0], "%s", env.err);
    ck_assert_int_eq(env.init_result, HCCL_E_TIMEOUT);
    ck_assert_ptr_nonnull(strstr(hccl_last_error(), "timeout"));
}
END_TEST

/* Rank 1 dies while rank 0 waits in an allreduce: rank 0's stream goes on
 * and the communicator reports an error. */
static bool allreduce_with_dying_peer(rank_env *env)
{
    enum { N = 1 << 16 };
    int32_t *buf = dev_alloc(N * sizeof(int32_t));
    REQUIRE(env, buf, "aclrtMalloc");
    atomic_fetch_add(&shared->arrived, 1);
    if (env->rank == 1) {
        while (atomic_load(&shared->arrived) < 2)
            sleep_ms(1);
        sleep_ms(200);
        _exit(0);
    }
    REQUIRE(env,
            ENGINE->submit(env->comm, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_INT32, buf, buf, N),
                           env->stream) == HCCL_SUCCESS,
            "submit");
    REQUIRE(env, aclrtSynchronizeStream(env->stream) == ACL_SUCCESS, "the stream stopped");
    HcclResult async = HCCL_SUCCESS;
    REQUIRE(env, ENGINE->async_error(env->comm, &async) == HCCL_SUCCESS, "async_error");
    shared->async_error[0] = async;
    REQUIRE(env, async == HCCL_E_REMOTE || async == HCCL_E_TCP_TRANSFER || async == HCCL_E_TIMEOUT,
            "async error %d (%s)", async, hccl_last_error());
    /* Later ops fail at once and the stream still goes on. */
    REQUIRE(env,
            ENGINE->submit(env->comm, op_new(HCCL_OP_BARRIER, HCCL_DATA_TYPE_INT8, NULL, NULL, 0),
                           env->stream) == HCCL_SUCCESS,
            "submit barrier");
    REQUIRE(env, aclrtSynchronizeStream(env->stream) == ACL_SUCCESS, "the stream stopped");
    return true;
}

START_TEST(dying_peer_is_an_async_error)
{
    run_processes(2, allreduce_with_dying_peer);
    ck_assert_int_ne(shared->async_error[0], HCCL_SUCCESS);
}
END_TEST

START_TEST(unsupported_types_are_refused)
{
    ck_assert_ptr_nonnull(ENGINE->unsupported(HCCL_DATA_TYPE_INT128, HCCL_REDUCE_SUM));
    ck_assert_ptr_nonnull(ENGINE->unsupported(HCCL_DATA_TYPE_HIF8, HCCL_REDUCE_MAX));
    ck_assert_ptr_nonnull(ENGINE->unsupported(HCCL_DATA_TYPE_FP8E8M0, HCCL_REDUCE_PROD));
    ck_assert_ptr_nonnull(ENGINE->unsupported(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED));
    ck_assert_ptr_nonnull(ENGINE->unsupported((HcclDataType)13, HCCL_REDUCE_SUM));
    for (size_t t = 0; t < NREDUCIBLE; t++)
        for (int op = HCCL_REDUCE_SUM; op <= HCCL_REDUCE_MIN; op++)
            ck_assert_ptr_null(ENGINE->unsupported(reducible[t], (HcclReduceOp)op));
    ck_assert_int_eq(ENGINE->group_end(), HCCL_E_PARA);
}
END_TEST

/* An INT128 allreduce is refused at submit; the communicator stays usable. */
static bool refuse_int128(rank_env *env)
{
    void *buf = dev_alloc(64);
    REQUIRE(env, buf, "aclrtMalloc");
    HcclResult ret = ENGINE->submit(
        env->comm, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_INT128, buf, buf, 4), env->stream);
    REQUIRE(env, ret == HCCL_E_NOT_SUPPORT, "submit returned %d", ret);
    REQUIRE(env, strstr(hccl_last_error(), "INT128"), "message: %s", hccl_last_error());
    aclrtFree(buf);
    return true;
}

/* Rounding: fp16 2048 + 1 is 2048 (ties to even); fp8 overflow is NaN in
 * e4m3 (no infinity) and infinity in e5m2. */
static bool rounding(rank_env *env)
{
    uint16_t *h = dev_alloc(2 * sizeof(uint16_t));
    uint8_t *e4 = dev_alloc(1), *e5 = dev_alloc(1);
    REQUIRE(env, h && e4 && e5, "aclrtMalloc");
    h[0] = env->rank == 0 ? 0x6800 /* 2048 */ : 0x3c00 /* 1 */;
    h[1] = 0x3555; /* 0.333... */
    *e4 = 0x7c;    /* 384: the sum 768 is beyond e4m3's 448 */
    *e5 = 0x7b;    /* 57344: the sum overflows e5m2 */
    if (!run_op(env, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP16, h, h, 2)) ||
        !run_op(env, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP8E4M3, e4, e4, 1)) ||
        !run_op(env, op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP8E5M2, e5, e5, 1)))
        return false;
    REQUIRE(env, h[0] == 0x6800, "2048 + 1 gave 0x%04x", h[0]);
    REQUIRE(env, h[1] == 0x3955, "1/3 + 1/3 gave 0x%04x", h[1]);
    REQUIRE(env, *e4 == 0x7f, "e4m3 overflow gave 0x%02x", *e4);
    REQUIRE(env, *e5 == 0x7c, "e5m2 overflow gave 0x%02x", *e5);
    return refuse_int128(env);
}

START_TEST(rounding_and_refusals)
{
    run_threads(2, rounding);
}
END_TEST

START_TEST(init_all_over_loopback)
{
    int32_t devices[4] = {0, 0, 0, 0};
    hccl_engine_comm *comms[4] = {NULL};
    ck_assert_int_eq(ENGINE->comm_init_all(4, devices, comms), HCCL_SUCCESS);
    aclrtStream streams[4];
    float *bufs[4];
    for (int r = 0; r < 4; r++) {
        streams[r] = compat_new_stream();
        bufs[r] = compat_device_buffer(16 * sizeof(float));
        for (int i = 0; i < 16; i++)
            bufs[r][i] = (float)(r + i);
        hccl_op *op = op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, bufs[r], bufs[r], 16);
        op->reduce = HCCL_REDUCE_MAX;
        ck_assert_int_eq(ENGINE->submit(comms[r], op, streams[r]), HCCL_SUCCESS);
    }
    for (int r = 0; r < 4; r++) {
        ACL_OK(aclrtSynchronizeStream(streams[r]));
        HcclResult async = HCCL_E_INTERNAL;
        ck_assert_int_eq(ENGINE->async_error(comms[r], &async), HCCL_SUCCESS);
        ck_assert_int_eq(async, HCCL_SUCCESS);
        for (int i = 0; i < 16; i++)
            ck_assert_float_eq(bufs[r][i], (float)(3 + i));
        ck_assert_int_eq(ENGINE->comm_destroy(comms[r]), HCCL_SUCCESS);
        ACL_OK(aclrtDestroyStream(streams[r]));
        ACL_OK(aclrtFree(bufs[r]));
    }
}
END_TEST

/* ---- the rendezvous store -------------------------------------------------------------- */

static const unsigned char token[HCCL_RV_TOKEN_BYTES] = "0123456789abcdef";

typedef struct late_setter {
    uint16_t port;
    HcclResult ret;
} late_setter;

static void *set_later(void *arg)
{
    late_setter *s = arg;
    hccl_rv *rv = NULL;
    s->ret = hccl_rv_connect("127.0.0.1", s->port, token, 5, &rv);
    if (s->ret != HCCL_SUCCESS)
        return NULL;
    sleep_ms(100);
    s->ret = hccl_rv_set(rv, "late", "value", 5);
    hccl_rv_close(rv);
    return NULL;
}

START_TEST(store_sets_gets_and_waits)
{
    hccl_rv_server *server = NULL;
    uint16_t port = 0;
    ck_assert_int_eq(hccl_rv_serve("127.0.0.1", 0, token, &server, &port), HCCL_SUCCESS);
    ck_assert_uint_ne(port, 0);
    hccl_rv *rv = NULL;
    ck_assert_int_eq(hccl_rv_connect("127.0.0.1", port, token, 5, &rv), HCCL_SUCCESS);
    ck_assert_int_eq(hccl_rv_set(rv, "k", "abc", 3), HCCL_SUCCESS);
    void *data = NULL;
    size_t len = 0;
    ck_assert_int_eq(hccl_rv_get(rv, "k", &data, &len, 1), HCCL_SUCCESS);
    ck_assert_uint_eq(len, 3);
    ck_assert_mem_eq(data, "abc", 3);
    free(data);
    /* empty values and overwrites */
    ck_assert_int_eq(hccl_rv_set(rv, "k", NULL, 0), HCCL_SUCCESS);
    ck_assert_int_eq(hccl_rv_get(rv, "k", &data, &len, 1), HCCL_SUCCESS);
    ck_assert_uint_eq(len, 0);
    free(data);
    /* a get waits for another client's set */
    late_setter s = {port, HCCL_E_INTERNAL};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, set_later, &s), 0);
    ck_assert_int_eq(hccl_rv_get(rv, "late", &data, &len, 10), HCCL_SUCCESS);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(s.ret, HCCL_SUCCESS);
    ck_assert_mem_eq(data, "value", 5);
    free(data);
    /* a key never set times out; the connection stays usable */
    ck_assert_int_eq(hccl_rv_get(rv, "never", &data, &len, 0.2), HCCL_E_TIMEOUT);
    ck_assert_int_eq(hccl_rv_get(rv, "late", &data, &len, 1), HCCL_SUCCESS);
    free(data);
    /* bad keys and values */
    ck_assert_int_eq(hccl_rv_set(rv, "", "x", 1), HCCL_E_PARA);
    char long_key[400];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    ck_assert_int_eq(hccl_rv_set(rv, long_key, "x", 1), HCCL_E_PARA);
    ck_assert_int_eq(hccl_rv_set(rv, "big", "x", (size_t)64 << 20), HCCL_E_PARA);
    hccl_rv_close(rv);
    hccl_rv_server_stop(server);
}
END_TEST

typedef struct waiting_get {
    hccl_rv *rv;
    HcclResult ret;
} waiting_get;

static void *get_forever(void *arg)
{
    waiting_get *w = arg;
    void *data = NULL;
    size_t len = 0;
    w->ret = hccl_rv_get(w->rv, "nobody-sets-this", &data, &len, 600);
    free(data);
    return NULL;
}

/* A wrong token is dropped; a client speaking nonsense is dropped without
 * harm to the others; stopping the server wakes a waiting get. */
START_TEST(store_refuses_strangers_and_stops_cleanly)
{
    hccl_rv_server *server = NULL;
    uint16_t port = 0;
    ck_assert_int_eq(hccl_rv_serve("127.0.0.1", 0, token, &server, &port), HCCL_SUCCESS);
    unsigned char wrong[HCCL_RV_TOKEN_BYTES];
    memcpy(wrong, token, sizeof wrong);
    wrong[15] ^= 1;
    hccl_rv *rv = NULL;
    ck_assert_int_eq(hccl_rv_connect("127.0.0.1", port, wrong, 2, &rv), HCCL_E_TCP_CONNECT);
    ck_assert_ptr_nonnull(strstr(hccl_last_error(), "token"));

    /* a stranger claiming a 4 GiB request after the right token */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(send(fd, token, sizeof token, 0), (ssize_t)sizeof token);
    unsigned char huge[7] = {0xff, 0xff, 0xff, 0xff, 1, 0, 1};
    ck_assert_int_eq(send(fd, huge, sizeof huge, MSG_NOSIGNAL), (ssize_t)sizeof huge);
    char byte = 0;
    ck_assert_int_eq(recv(fd, &byte, 1, 0), 1); /* the token's answer */
    ck_assert_int_le(recv(fd, &byte, 1, 0), 0); /* then dropped (closed or reset) */
    close(fd);

    ck_assert_int_eq(hccl_rv_connect("127.0.0.1", port, token, 2, &rv), HCCL_SUCCESS);
    ck_assert_int_eq(hccl_rv_set(rv, "still", "ok", 2), HCCL_SUCCESS);
    waiting_get w = {rv, HCCL_SUCCESS};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, get_forever, &w), 0);
    sleep_ms(100);
    hccl_rv_server_stop(server);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(w.ret, HCCL_E_TCP_TRANSFER);
    hccl_rv_close(rv);

    /* nobody serves: connect retries until its timeout */
    ck_assert_int_eq(hccl_rv_connect("127.0.0.1", port, token, 0.3, &rv), HCCL_E_TIMEOUT);
    ck_assert_int_eq(hccl_rv_connect("not-an-address", port, token, 0.3, &rv), HCCL_E_PARA);
}
END_TEST

START_TEST(local_address_follows_the_environment)
{
    char addr[INET6_ADDRSTRLEN];
    setenv("HCCL_IF_IP", "10.1.2.3", 1);
    ck_assert_int_eq(hccl_rv_local_address(addr, sizeof addr), HCCL_SUCCESS);
    ck_assert_str_eq(addr, "10.1.2.3");
    setenv("HCCL_IF_IP", "::1", 1);
    ck_assert_int_eq(hccl_rv_local_address(addr, sizeof addr), HCCL_SUCCESS);
    ck_assert_str_eq(addr, "::1");
    setenv("HCCL_IF_IP", "eth0", 1);
    ck_assert_int_eq(hccl_rv_local_address(addr, sizeof addr), HCCL_E_PARA);
    unsetenv("HCCL_IF_IP");
    setenv("HCCL_SOCKET_IFNAME", "=lo", 1);
    ck_assert_int_eq(hccl_rv_local_address(addr, sizeof addr), HCCL_SUCCESS);
    ck_assert_str_eq(addr, "127.0.0.1");
    setenv("HCCL_SOCKET_IFNAME", "no-such-interface", 1);
    ck_assert_int_eq(hccl_rv_local_address(addr, sizeof addr), HCCL_E_NOT_FOUND);
    unsetenv("HCCL_SOCKET_IFNAME");
    ck_assert_int_eq(hccl_rv_local_address(addr, sizeof addr), HCCL_SUCCESS);
    struct in_addr v4;
    ck_assert_int_eq(inet_pton(AF_INET, addr, &v4), 1);
    ck_assert_int_eq(hccl_rv_local_address(addr, 8), HCCL_E_PARA);
}
END_TEST

static Suite *gloo_suite(void)
{
    Suite *s = suite_create("gloo_engine");
    TCase *store = tcase_create("store");
    tcase_add_test(store, store_sets_gets_and_waits);
    tcase_add_test(store, store_refuses_strangers_and_stops_cleanly);
    tcase_add_test(store, local_address_follows_the_environment);
    tcase_add_test(store, unsupported_types_are_refused);
    suite_add_tcase(s, store);

    TCase *threads = tcase_create("threads");
    tcase_add_checked_fixture(threads, compat_set_up, compat_tear_down);
    tcase_set_timeout(threads, 600);
    tcase_add_loop_test(threads, matrix_as_threads, 0,
                        sizeof thread_ranks / sizeof thread_ranks[0]);
    tcase_add_test(threads, batch_and_group_rings);
    tcase_add_test(threads, stream_order_with_events);
    tcase_add_test(threads, captured_allreduce_replays);
    tcase_add_test(threads, missing_rank_times_out);
    tcase_add_test(threads, rounding_and_refusals);
    tcase_add_test(threads, init_all_over_loopback);
    suite_add_tcase(s, threads);

    /* No ACL in the parent: each forked rank initialises its own. */
    TCase *processes = tcase_create("processes");
    tcase_set_timeout(processes, 600);
    tcase_add_loop_test(processes, matrix_as_processes, 0,
                        sizeof process_ranks / sizeof process_ranks[0]);
    tcase_add_test(processes, dying_peer_is_an_async_error);
    suite_add_tcase(s, processes);
    return s;
}

int main(void)
{
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return EXIT_FAILURE;
    return compat_run(gloo_suite());
}
