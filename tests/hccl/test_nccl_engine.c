/* The NCCL engine (src/hccl/engine_nccl.c) driven through engine.h, as
 * libhccl's frame drives it: a 1-rank communicator on device 0, where every
 * collective is a copy (an all-reduce of one rank is its input, and so on),
 * so values can be checked exactly. Every op kind, every type NCCL reduces,
 * the types it only moves, the reductions it refuses, stream order against
 * ACL events and callbacks, aclmdlRI capture and replay, a destroy with work
 * queued, and a rank that never comes (a timeout, not a hang).
 *
 * The GPU cases need the cuda backend, a GPU and NCCL (libnccl.so.2 or
 * HCCL_NCCL_LIBRARY); elsewhere they are left out with the reason printed,
 * and only the cases that need no GPU run (NCCL missing; what is refused). */
#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "acltest.h"
#include "hccl/errors.h"
#include "hccl/engine.h"

enum { BYTES = 4096, BIG_BYTES = 64 << 20 };

static const hccl_engine *const engine = &hccl_engine_nccl;

#define HCCL_OK(expr)                                                                              \
    do {                                                                                           \
        HcclResult hccl_ret_ = (expr);                                                             \
        ck_assert_msg(hccl_ret_ == HCCL_SUCCESS, "%s returned %d: %s", #expr, (int)hccl_ret_,      \
                      hccl_last_error());                                                          \
    } while (0)

/* An exact code and a message. */
#define HCCL_FAILS_WITH(expr, code)                                                                \
    do {                                                                                           \
        hccl_set_error("%s", "");                                                                  \
        HcclResult hccl_ret_ = (expr);                                                             \
        ck_assert_msg(hccl_ret_ == (code), "%s returned %d, expected %s (%d): %s", #expr,          \
                      (int)hccl_ret_, #code, (int)(code), hccl_last_error());                      \
        ck_assert_msg(hccl_last_error()[0] != '\0', "%s left no message", #expr);                  \
    } while (0)

/* The types NCCL reduces, and those it only moves. */
static const HcclDataType nccl_types[] = {
    HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_UINT8,  HCCL_DATA_TYPE_INT32,   HCCL_DATA_TYPE_UINT32,
    HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_FP16,    HCCL_DATA_TYPE_FP32,
    HCCL_DATA_TYPE_FP64,  HCCL_DATA_TYPE_BFP16,  HCCL_DATA_TYPE_FP8E4M3, HCCL_DATA_TYPE_FP8E5M2};
static const HcclDataType moved_only_types[] = {HCCL_DATA_TYPE_INT16, HCCL_DATA_TYPE_UINT16,
                                                HCCL_DATA_TYPE_INT128, HCCL_DATA_TYPE_HIF8,
                                                HCCL_DATA_TYPE_FP8E8M0};
static const HcclReduceOp reduce_ops[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX,
                                          HCCL_REDUCE_MIN};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool is_fp8(HcclDataType t)
{
    return t == HCCL_DATA_TYPE_FP8E4M3 || t == HCCL_DATA_TYPE_FP8E5M2;
}

/* ---- fixtures ----------------------------------------------------------------------------- */

static aclrtStream stream;
static hccl_engine_comm *comm;

static hccl_join join_of(const unsigned char *root, uint32_t nranks, uint32_t rank,
                         double connect_timeout_s)
{
    return (hccl_join){.nranks = nranks,
                       .rank = rank,
                       .device = 0,
                       .root_bytes = root,
                       .connect_timeout_s = connect_timeout_s,
                       .exec_timeout_s = 120};
}

static void set_up_device(void)
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&stream));
}

static void tear_down_device(void)
{
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
}

static void set_up(void)
{
    set_up_device();
    unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    HCCL_OK(engine->root_info(root));
    hccl_join join = join_of(root, 1, 0, 60);
    HCCL_OK(engine->comm_init(&join, &comm));
}

static void tear_down(void)
{
    if (comm)
        HCCL_OK(engine->comm_destroy(comm));
    comm = NULL;
    tear_down_device();
}

/* ---- buffers and values ------------------------------------------------------------------- */

static void *device_buffer(size_t bytes)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_NORMAL_ONLY));
    return p;
}

static void put(void *dev, const void *host, size_t bytes)
{
    ACL_OK(aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* Fills with 0xee, which no op of these tests writes where it should not. */
static void poison(void *dev, size_t bytes)
{
    ACL_OK(aclrtMemset(dev, bytes, 0xee, bytes));
}

static void drain(void)
{
    ACL_OK(aclrtSynchronizeStream(stream));
}

/* Elements that are finite, nonzero numbers in every floating type (a
 * reduction of one rank gives them back bit for bit). */
static void pattern(void *host, size_t bytes, HcclDataType type, unsigned seed)
{
    size_t elem = hccl_dtype_size(type);
    uint8_t *p = host;
    memset(host, 0, bytes);
    for (size_t i = 0; i < bytes / elem; i++, p += elem) {
        uint64_t v = i * 37 + seed;
        uint16_t half;
        float f;
        double d;
        switch (type) {
        case HCCL_DATA_TYPE_FP16:
            half = (uint16_t)(0x3c00 | (v & 0x3ff)); /* [1, 2) */
            memcpy(p, &half, 2);
            break;
        case HCCL_DATA_TYPE_BFP16:
            half = (uint16_t)(0x3f80 | (v & 0x7f)); /* [1, 2) */
            memcpy(p, &half, 2);
            break;
        case HCCL_DATA_TYPE_FP32:
            f = (float)(v % 1000) + 0.5f;
            memcpy(p, &f, 4);
            break;
        case HCCL_DATA_TYPE_FP64:
            d = (double)(v % 100000) + 0.25;
            memcpy(p, &d, 8);
            break;
        case HCCL_DATA_TYPE_FP8E4M3:
        case HCCL_DATA_TYPE_FP8E5M2:
            *p = (uint8_t)(0x20 + v % 0x20); /* positive, finite in both */
            break;
        default:
            memcpy(p, &v, elem < sizeof v ? elem : sizeof v);
            break;
        }
    }
}

/* Asserts that bytes of device memory at dev equal host's. */
static void expect_device(const void *dev, const void *host, size_t bytes, const char *what)
{
    uint8_t *seen = malloc(bytes);
    ck_assert_ptr_nonnull(seen);
    ACL_OK(aclrtMemcpy(seen, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    const uint8_t *want = host;
    size_t i = 0;
    while (i < bytes && seen[i] == want[i])
        i++;
    uint8_t got = i < bytes ? seen[i] : 0, expected = i < bytes ? want[i] : 0;
    free(seen);
    ck_assert_msg(i == bytes, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, bytes, got,
                  expected);
}

static void expect_poisoned(const void *dev, size_t bytes, const char *what)
{
    uint8_t *want = malloc(bytes);
    ck_assert_ptr_nonnull(want);
    memset(want, 0xee, bytes);
    expect_device(dev, want, bytes, what);
    free(want);
}

/* ---- ops ---------------------------------------------------------------------------------- */

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

/* The one entry of a per-rank array of a 1-rank communicator. */
static uint64_t *one(uint64_t value)
{
    uint64_t *a = malloc(sizeof *a);
    ck_assert_ptr_nonnull(a);
    *a = value;
    return a;
}

static void submit(hccl_op *op)
{
    HCCL_OK(engine->submit(comm, op, stream));
}

/* Runs one op of count elements from a fresh pattern into a poisoned
 * buffer and checks that the output is the input (one rank). */
static void check_copying_op(hccl_op_kind kind, HcclDataType type, HcclReduceOp reduce,
                             const char *what)
{
    size_t elem = hccl_dtype_size(type);
    uint64_t count = BYTES / elem;
    uint8_t host[BYTES];
    pattern(host, BYTES, type, (unsigned)kind * 7 + (unsigned)reduce);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    put(src, host, BYTES);
    poison(dst, BYTES);
    hccl_op *op = op_new(kind, type, src, dst, count);
    op->reduce = reduce;
    if (kind == HCCL_OP_ALLTOALL || kind == HCCL_OP_ALLTOALLV) {
        op->send_counts = one(count);
        op->send_displs = one(0);
        op->recv_counts = one(count);
        op->recv_displs = one(0);
    }
    submit(op);
    drain();
    char label[160];
    snprintf(label, sizeof label, "%s, type %d, reduce %d", what, (int)type, (int)reduce);
    expect_device(dst, host, BYTES, label);
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}

/* Broadcasts a pattern of type from rank 0, in place, and checks that the
 * buffer keeps it. */
static void check_broadcast(HcclDataType type, unsigned seed)
{
    uint8_t host[BYTES];
    pattern(host, BYTES, type, seed);
    void *buf = device_buffer(BYTES);
    put(buf, host, BYTES);
    submit(op_new(HCCL_OP_BROADCAST, type, buf, buf, BYTES / hccl_dtype_size(type)));
    drain();
    expect_device(buf, host, BYTES, "broadcast");
    ACL_OK(aclrtFree(buf));
}

/* ---- every op kind ------------------------------------------------------------------------ */

START_TEST(allreduce_of_one_rank_is_its_input)
{
    check_copying_op(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, "all-reduce");
    uint8_t host[BYTES];
    pattern(host, BYTES, HCCL_DATA_TYPE_INT32, 5);
    void *buf = device_buffer(BYTES);
    put(buf, host, BYTES);
    submit(op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_INT32, buf, buf, BYTES / 4));
    drain();
    expect_device(buf, host, BYTES, "in-place all-reduce");
    ACL_OK(aclrtFree(buf));
}
END_TEST

START_TEST(broadcast_leaves_the_roots_data)
{
    check_broadcast(HCCL_DATA_TYPE_FP32, 9);
}
END_TEST

START_TEST(reduce_gives_the_root_the_input)
{
    check_copying_op(HCCL_OP_REDUCE, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX, "reduce");
}
END_TEST

START_TEST(allgather_of_one_rank_is_its_input)
{
    check_copying_op(HCCL_OP_ALLGATHER, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, "all-gather");
}
END_TEST

START_TEST(reduce_scatter_of_one_rank_is_its_input)
{
    check_copying_op(HCCL_OP_REDUCE_SCATTER, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_SUM,
                     "reduce-scatter");
}
END_TEST

START_TEST(scatter_gives_the_root_its_block)
{
    check_copying_op(HCCL_OP_SCATTER, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM, "scatter");
}
END_TEST

START_TEST(alltoall_of_one_rank_is_its_input)
{
    check_copying_op(HCCL_OP_ALLTOALL, HCCL_DATA_TYPE_UINT32, HCCL_REDUCE_SUM, "all-to-all");
}
END_TEST

/* The block lands at its displacement; the rest stays as it was. */
START_TEST(allgatherv_places_the_block_at_its_displacement)
{
    enum { SENT = 256, DISPL = 128 };
    uint8_t host[SENT * 4];
    pattern(host, sizeof host, HCCL_DATA_TYPE_INT32, 3);
    void *src = device_buffer(sizeof host), *dst = device_buffer(BYTES);
    put(src, host, sizeof host);
    poison(dst, BYTES);
    hccl_op *op = op_new(HCCL_OP_ALLGATHERV, HCCL_DATA_TYPE_INT32, src, dst, SENT);
    op->recv_counts = one(SENT);
    op->recv_displs = one(DISPL);
    submit(op);
    drain();
    expect_poisoned(dst, DISPL * 4, "before the block");
    expect_device((uint8_t *)dst + DISPL * 4, host, sizeof host, "the block");
    expect_poisoned((uint8_t *)dst + (DISPL + SENT) * 4, BYTES - (DISPL + SENT) * 4,
                    "after the block");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

START_TEST(reduce_scatterv_gives_the_rank_its_block)
{
    enum { BLOCK = 256, DISPL = 64 };
    uint8_t host[BYTES];
    pattern(host, BYTES, HCCL_DATA_TYPE_FP32, 11);
    void *src = device_buffer(BYTES), *dst = device_buffer(BLOCK * 4);
    put(src, host, BYTES);
    poison(dst, BLOCK * 4);
    hccl_op *op = op_new(HCCL_OP_REDUCE_SCATTERV, HCCL_DATA_TYPE_FP32, src, dst, BLOCK);
    op->reduce = HCCL_REDUCE_MIN;
    op->send_counts = one(BLOCK);
    op->send_displs = one(DISPL);
    submit(op);
    drain();
    expect_device(dst, host + DISPL * 4, BLOCK * 4, "the rank's block");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

START_TEST(alltoallv_moves_between_displacements)
{
    enum { MOVED = 200, SEND_AT = 10, RECV_AT = 30 };
    uint8_t host[BYTES];
    pattern(host, BYTES, HCCL_DATA_TYPE_UINT16, 13);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    put(src, host, BYTES);
    poison(dst, BYTES);
    hccl_op *op = op_new(HCCL_OP_ALLTOALLV, HCCL_DATA_TYPE_UINT16, src, dst, 0);
    op->send_counts = one(MOVED);
    op->send_displs = one(SEND_AT);
    op->recv_counts = one(MOVED);
    op->recv_displs = one(RECV_AT);
    submit(op);
    drain();
    expect_poisoned(dst, RECV_AT * 2, "before the block");
    expect_device((uint8_t *)dst + RECV_AT * 2, host + SEND_AT * 2, MOVED * 2, "the block");
    expect_poisoned((uint8_t *)dst + (RECV_AT + MOVED) * 2, BYTES - (RECV_AT + MOVED) * 2,
                    "after the block");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

/* A rank may send to itself when the send and the receive are one group. */
START_TEST(send_and_recv_to_self_in_a_group)
{
    uint8_t host[BYTES];
    pattern(host, BYTES, HCCL_DATA_TYPE_INT8, 17);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    put(src, host, BYTES);
    poison(dst, BYTES);
    HCCL_OK(engine->group_start());
    hccl_op *send = op_new(HCCL_OP_SEND, HCCL_DATA_TYPE_INT8, src, NULL, BYTES);
    send->peer = 0;
    submit(send);
    hccl_op *recv = op_new(HCCL_OP_RECV, HCCL_DATA_TYPE_INT8, NULL, dst, BYTES);
    recv->peer = 0;
    submit(recv);
    HCCL_OK(engine->group_end());
    drain();
    expect_device(dst, host, BYTES, "send/receive");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

START_TEST(batch_send_recv_to_self)
{
    uint8_t host[BYTES];
    pattern(host, BYTES, HCCL_DATA_TYPE_INT16, 19);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    put(src, host, BYTES);
    poison(dst, BYTES);
    hccl_op *op = op_new(HCCL_OP_BATCH_SEND_RECV, HCCL_DATA_TYPE_INT16, NULL, NULL, 0);
    op->items = calloc(2, sizeof *op->items);
    ck_assert_ptr_nonnull(op->items);
    op->items[0] = (HcclSendRecvItem){HCCL_SEND, src, BYTES / 2, HCCL_DATA_TYPE_INT16, 0};
    op->items[1] = (HcclSendRecvItem){HCCL_RECV, dst, BYTES / 2, HCCL_DATA_TYPE_INT16, 0};
    op->item_count = 2;
    submit(op);
    drain();
    expect_device(dst, host, BYTES, "batch send/receive");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

START_TEST(barrier_completes)
{
    for (int i = 0; i < 3; i++)
        submit(op_new(HCCL_OP_BARRIER, HCCL_DATA_TYPE_RESERVED, NULL, NULL, 0));
    drain();
    HcclResult error = HCCL_E_RESERVED;
    HCCL_OK(engine->async_error(comm, &error));
    ck_assert_int_eq(error, HCCL_SUCCESS);
}
END_TEST

/* ---- types -------------------------------------------------------------------------------- */

START_TEST(every_type_nccl_has_reduces)
{
    for (size_t t = 0; t < COUNT_OF(nccl_types); t++) {
        HcclDataType type = nccl_types[t];
        const char *why = engine->unsupported(type, HCCL_REDUCE_SUM);
        if (why && is_fp8(type)) {
            printf("note: fp8 type %d not reduced by this NCCL: %s\n", (int)type, why);
            continue;
        }
        ck_assert_msg(why == NULL, "type %d refused: %s", (int)type, why);
        for (size_t o = 0; o < COUNT_OF(reduce_ops); o++) {
            ck_assert_ptr_null(engine->unsupported(type, reduce_ops[o]));
            check_copying_op(HCCL_OP_ALLREDUCE, type, reduce_ops[o], "all-reduce");
            check_copying_op(HCCL_OP_REDUCE, type, reduce_ops[o], "reduce");
            check_copying_op(HCCL_OP_REDUCE_SCATTER, type, reduce_ops[o], "reduce-scatter");
        }
    }
}
END_TEST

/* Types NCCL lacks move as bytes in collectives that copy. */
START_TEST(types_nccl_lacks_move_as_bytes)
{
    for (size_t t = 0; t < COUNT_OF(moved_only_types); t++) {
        HcclDataType type = moved_only_types[t];
        check_copying_op(HCCL_OP_ALLGATHER, type, HCCL_REDUCE_SUM, "all-gather");
        check_copying_op(HCCL_OP_SCATTER, type, HCCL_REDUCE_SUM, "scatter");
        check_copying_op(HCCL_OP_ALLTOALL, type, HCCL_REDUCE_SUM, "all-to-all");
        check_broadcast(type, 23);
    }
}
END_TEST

START_TEST(reductions_nccl_cannot_do_are_refused)
{
    void *buf = device_buffer(BYTES);
    static const hccl_op_kind reducing[] = {HCCL_OP_ALLREDUCE, HCCL_OP_REDUCE,
                                            HCCL_OP_REDUCE_SCATTER};
    for (size_t t = 0; t < COUNT_OF(moved_only_types); t++)
        for (size_t k = 0; k < COUNT_OF(reducing); k++) {
            HcclDataType type = moved_only_types[t];
            ck_assert_ptr_nonnull(engine->unsupported(type, HCCL_REDUCE_SUM));
            HCCL_FAILS_WITH(engine->submit(comm, op_new(reducing[k], type, buf, buf, 8), stream),
                            HCCL_E_NOT_SUPPORT);
        }
    hccl_op *op = op_new(HCCL_OP_REDUCE_SCATTERV, HCCL_DATA_TYPE_INT128, buf, buf, 8);
    op->send_counts = one(8);
    op->send_displs = one(0);
    HCCL_FAILS_WITH(engine->submit(comm, op, stream), HCCL_E_NOT_SUPPORT);
    ck_assert_ptr_nonnull(engine->unsupported(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED));
    drain();
    ACL_OK(aclrtFree(buf));
}
END_TEST

/* ---- stream order ------------------------------------------------------------------------- */

typedef struct reporter {
    pthread_t thread;
    aclrtContext ctx;
    atomic_bool stop;
} reporter;

static void *report_loop(void *arg)
{
    reporter *r = arg;
    ACL_OK(aclrtSetCurrentContext(r->ctx));
    while (!atomic_load(&r->stop))
        if (aclrtProcessReport(20) == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            usleep(1000); /* not subscribed yet */
    return NULL;
}

typedef struct seen_by_callback {
    const uint8_t *out, *expected;
    atomic_bool ran, matched;
} seen_by_callback;

static void compare_in_callback(void *arg)
{
    seen_by_callback *s = arg;
    atomic_store(&s->matched, memcmp(s->out, s->expected, BYTES) == 0);
    atomic_store(&s->ran, true);
}

/* Behind a closed gate: a copy in, the all-reduce, a copy out, a callback
 * reading it, an event another stream waits for before its own copy out.
 * Nothing runs before the gate opens (and ACL says the stream is busy, as
 * CUDA does: the native stream was exported); afterwards the callback and
 * the other stream see the result. */
START_TEST(events_and_callbacks_order_around_a_collective)
{
    uint8_t *in = NULL, *out = NULL, *other_out = NULL;
    ACL_OK(aclrtMallocHost((void **)&in, BYTES));
    ACL_OK(aclrtMallocHost((void **)&out, BYTES));
    ACL_OK(aclrtMallocHost((void **)&other_out, BYTES));
    pattern(in, BYTES, HCCL_DATA_TYPE_FP32, 29);
    memset(out, 0, BYTES);
    memset(other_out, 0, BYTES);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    poison(dst, BYTES);
    aclrtStream other = NULL;
    aclrtEvent done = NULL;
    ACL_OK(aclrtCreateStream(&other));
    ACL_OK(aclrtCreateEvent(&done));

    reporter r = {.stop = false};
    ACL_OK(aclrtGetCurrentContext(&r.ctx));
    ck_assert_int_eq(pthread_create(&r.thread, NULL, report_loop, &r), 0);
    ACL_OK(aclrtSubscribeReport((uint64_t)r.thread, stream));
    seen_by_callback seen = {.out = out, .expected = in};

    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtMemcpyAsync(src, BYTES, in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    submit(op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, src, dst, BYTES / 4));
    ACL_OK(aclrtMemcpyAsync(out, BYTES, dst, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtLaunchCallback(compare_in_callback, &seen, ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtRecordEvent(done, stream));
    ACL_OK(aclrtStreamWaitEvent(other, done));
    ACL_OK(aclrtMemcpyAsync(other_out, BYTES, dst, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, other));

    compat_gate_wait_reached(&gate);
    ck_assert_int_eq(compat_stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
    ck_assert(!atomic_load(&seen.ran));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(other));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_msg(atomic_load(&seen.ran), "the callback did not run");
    ck_assert_msg(atomic_load(&seen.matched), "the callback saw the copy before the all-reduce");
    ck_assert_msg(memcmp(other_out, in, BYTES) == 0, "the event did not order the other stream");

    ACL_OK(aclrtUnSubscribeReport((uint64_t)r.thread, stream));
    atomic_store(&r.stop, true);
    ck_assert_int_eq(pthread_join(r.thread, NULL), 0);
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtDestroyStream(other));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtFreeHost(in));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtFreeHost(other_out));
}
END_TEST

/* The stream was idle by ACL's own count when the collective was queued
 * straight onto its CUDA stream; synchronizing must still wait for it. */
START_TEST(synchronize_waits_for_a_collective_alone)
{
    float *host = malloc(BIG_BYTES);
    ck_assert_ptr_nonnull(host);
    for (size_t i = 0; i < BIG_BYTES / 4; i++)
        host[i] = (float)(i % 4096) + 0.5f;
    void *src = device_buffer(BIG_BYTES), *dst = device_buffer(BIG_BYTES);
    put(src, host, BIG_BYTES);
    poison(dst, BIG_BYTES);
    drain();
    for (int i = 0; i < 8; i++)
        submit(op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, src, dst, BIG_BYTES / 4));
    drain();
    expect_device(dst, host, BIG_BYTES, "after aclrtSynchronizeStream");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
    free(host);
}
END_TEST

/* ---- capture ------------------------------------------------------------------------------ */

START_TEST(captured_allreduce_replays_with_current_values)
{
    uint8_t first[BYTES], second[BYTES];
    pattern(first, BYTES, HCCL_DATA_TYPE_FP32, 31);
    pattern(second, BYTES, HCCL_DATA_TYPE_FP32, 37);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    put(src, first, BYTES);
    poison(dst, BYTES);

    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    submit(op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, src, dst, BYTES / 4));
    ACL_OK(aclmdlRICaptureEnd(stream, &model));
    drain();
    expect_poisoned(dst, BYTES, "after capture, before any replay");

    ACL_OK(aclmdlRIExecuteAsync(model, stream));
    drain();
    expect_device(dst, first, BYTES, "first replay");
    put(src, second, BYTES);
    ACL_OK(aclmdlRIExecuteAsync(model, stream));
    drain();
    expect_device(dst, second, BYTES, "second replay");
    /* NCCL's destroy waits for graphs that reference the communicator. */
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

/* ---- lifetime ----------------------------------------------------------------------------- */

static void *open_later(void *arg)
{
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    compat_gate_open(arg);
    return NULL;
}

/* A destroy with a collective still queued (behind a gate that opens from
 * another thread) returns, and the collective completes with its values. */
START_TEST(destroy_with_work_queued)
{
    uint8_t host[BYTES];
    pattern(host, BYTES, HCCL_DATA_TYPE_FP32, 41);
    void *src = device_buffer(BYTES), *dst = device_buffer(BYTES);
    put(src, host, BYTES);
    poison(dst, BYTES);
    compat_gate gate;
    compat_gate_close(&gate, stream);
    submit(op_new(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, src, dst, BYTES / 4));
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_later, &gate), 0);
    HCCL_OK(engine->comm_destroy(comm));
    comm = NULL;
    ck_assert_int_eq(pthread_join(opener, NULL), 0);
    drain();
    expect_device(dst, host, BYTES, "the collective queued before the destroy");
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

START_TEST(init_all_of_one_device)
{
    hccl_engine_comm *all[1] = {NULL};
    const int32_t devices[1] = {0};
    HCCL_OK(engine->comm_init_all(1, devices, all));
    ck_assert_ptr_nonnull(all[0]);
    hccl_engine_comm *rooted = comm;
    comm = all[0];
    check_copying_op(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, "init-all comm");
    comm = rooted;
    HCCL_OK(engine->comm_destroy(all[0]));
}
END_TEST

/* A sub-communicator of the one rank: its own NCCL communicator, which
 * works on its own and leaves the parent working; a rank outside the
 * parent is refused. */
START_TEST(split_of_the_one_rank)
{
    const uint32_t ranks[1] = {0};
    hccl_split split = {.nranks = 1,
                        .ranks = ranks,
                        .rank = 0,
                        .id = 3,
                        .connect_timeout_s = 60,
                        .exec_timeout_s = 60};
    hccl_engine_comm *sub = NULL;
    HCCL_OK(engine->comm_split(comm, &split, &sub));
    ck_assert_ptr_nonnull(sub);
    hccl_engine_comm *parent = comm;
    comm = sub;
    check_copying_op(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, "sub-communicator");
    comm = parent;
    HCCL_OK(engine->comm_destroy(sub));
    check_copying_op(HCCL_OP_ALLREDUCE, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, "parent after");

    const uint32_t outside[1] = {1};
    split.ranks = outside;
    sub = NULL;
    HCCL_FAILS_WITH(engine->comm_split(comm, &split, &sub), HCCL_E_PARA);
    ck_assert_ptr_null(sub);
}
END_TEST

/* Rank 1 of 2 never comes: rank 0's init gives up after its connect
 * timeout instead of waiting forever. */
START_TEST(a_rank_that_never_comes_times_out)
{
    set_up_device();
    unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    HCCL_OK(engine->root_info(root));
    hccl_join join = join_of(root, 2, 0, 2);
    hccl_engine_comm *lonely = NULL;
    HCCL_FAILS_WITH(engine->comm_init(&join, &lonely), HCCL_E_TIMEOUT);
    ck_assert_ptr_null(lonely);
    ck_assert_ptr_nonnull(strstr(hccl_last_error(), "HCCL_CONNECT_TIMEOUT"));
    tear_down_device();
}
END_TEST

/* ---- without a GPU ------------------------------------------------------------------------ */

START_TEST(missing_nccl_is_not_supported_with_the_reason)
{
    if (getenv("CK_FORK") && strcmp(getenv("CK_FORK"), "no") == 0) {
        printf("skipped: needs a fresh process (CK_FORK=no): NCCL loads once\n");
        return;
    }
    setenv("HCCL_NCCL_LIBRARY", "/nonexistent/libnccl-for-the-test.so.2", 1);
    unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    HCCL_FAILS_WITH(engine->root_info(root), HCCL_E_NOT_SUPPORT);
    ck_assert_ptr_nonnull(strstr(hccl_last_error(), "libnccl-for-the-test"));
    ck_assert_ptr_nonnull(strstr(hccl_last_error(), "HCCL_NCCL_LIBRARY"));
    hccl_join join = join_of(root, 1, 0, 1);
    hccl_engine_comm *c = NULL;
    HCCL_FAILS_WITH(engine->comm_init(&join, &c), HCCL_E_NOT_SUPPORT);
    const int32_t devices[1] = {0};
    HCCL_FAILS_WITH(engine->comm_init_all(1, devices, &c), HCCL_E_NOT_SUPPORT);
    const uint32_t ranks[1] = {0};
    hccl_split split = {.nranks = 1, .ranks = ranks};
    HCCL_FAILS_WITH(engine->comm_split(NULL, &split, &c), HCCL_E_NOT_SUPPORT);
    HCCL_FAILS_WITH(engine->group_start(), HCCL_E_NOT_SUPPORT);
    HCCL_FAILS_WITH(engine->group_end(), HCCL_E_NOT_SUPPORT);
    const char *why = engine->unsupported(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM);
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why, "libnccl-for-the-test"));
    ck_assert_str_eq(engine->name, "nccl");
}
END_TEST

static bool nccl_loads(void)
{
    const char *name = getenv("HCCL_NCCL_LIBRARY");
    void *lib = dlopen(name && *name ? name : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib)
        dlclose(lib);
    return lib != NULL;
}

START_TEST(refusals_name_their_reason)
{
    if (!nccl_loads()) {
        printf("skipped: NCCL is not installed\n");
        return;
    }
    for (size_t t = 0; t < COUNT_OF(moved_only_types); t++)
        for (size_t o = 0; o < COUNT_OF(reduce_ops); o++) {
            const char *why = engine->unsupported(moved_only_types[t], reduce_ops[o]);
            ck_assert_msg(why && *why, "type %d reduces", (int)moved_only_types[t]);
        }
    for (size_t t = 0; t < COUNT_OF(nccl_types); t++)
        if (!is_fp8(nccl_types[t]))
            ck_assert_ptr_null(engine->unsupported(nccl_types[t], HCCL_REDUCE_PROD));
    ck_assert_ptr_nonnull(engine->unsupported(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED));
    ck_assert_ptr_nonnull(engine->unsupported(HCCL_DATA_TYPE_RESERVED, HCCL_REDUCE_SUM));
}
END_TEST

/* Why the GPU cases cannot run here, or NULL. Asked in a child, so that
 * this process starts no backend (and no CUDA) before Check forks. */
static const char *gpu_cases_unavailable(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        uint32_t count = 0;
        if (strcmp(aclcudaGetBackendName(), "cuda") != 0 ||
            aclrtGetDeviceCount(&count) != ACL_SUCCESS || count == 0)
            _exit(1);
        _exit(nccl_loads() ? 0 : 2);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return "the probe for a GPU failed";
    switch (WEXITSTATUS(status)) {
    case 0:
        return NULL;
    case 2:
        return "NCCL is not installed (libnccl.so.2, or HCCL_NCCL_LIBRARY)";
    default:
        return "needs the cuda backend and a GPU (ACLCUDA_BACKEND=cuda)";
    }
}

int main(void)
{
    Suite *s = suite_create("NCCL engine");
    TCase *anywhere = tcase_create("without a GPU");
    tcase_add_test(anywhere, missing_nccl_is_not_supported_with_the_reason);
    tcase_add_test(anywhere, refusals_name_their_reason);
    suite_add_tcase(s, anywhere);

    const char *why = gpu_cases_unavailable();
    if (why) {
        printf("skipped, the GPU cases: %s\n", why);
        return acltest_run(s);
    }
    TCase *ops = tcase_create("ops");
    tcase_add_checked_fixture(ops, set_up, tear_down);
    tcase_set_timeout(ops, 120);
    tcase_add_test(ops, allreduce_of_one_rank_is_its_input);
    tcase_add_test(ops, broadcast_leaves_the_roots_data);
    tcase_add_test(ops, reduce_gives_the_root_the_input);
    tcase_add_test(ops, allgather_of_one_rank_is_its_input);
    tcase_add_test(ops, reduce_scatter_of_one_rank_is_its_input);
    tcase_add_test(ops, scatter_gives_the_root_its_block);
    tcase_add_test(ops, alltoall_of_one_rank_is_its_input);
    tcase_add_test(ops, allgatherv_places_the_block_at_its_displacement);
    tcase_add_test(ops, reduce_scatterv_gives_the_rank_its_block);
    tcase_add_test(ops, alltoallv_moves_between_displacements);
    tcase_add_test(ops, send_and_recv_to_self_in_a_group);
    tcase_add_test(ops, batch_send_recv_to_self);
    tcase_add_test(ops, barrier_completes);
    tcase_add_test(ops, every_type_nccl_has_reduces);
    tcase_add_test(ops, types_nccl_lacks_move_as_bytes);
    tcase_add_test(ops, reductions_nccl_cannot_do_are_refused);
    tcase_add_test(ops, events_and_callbacks_order_around_a_collective);
    tcase_add_test(ops, synchronize_waits_for_a_collective_alone);
    tcase_add_test(ops, captured_allreduce_replays_with_current_values);
    tcase_add_test(ops, destroy_with_work_queued);
    tcase_add_test(ops, init_all_of_one_device);
    tcase_add_test(ops, split_of_the_one_rank);
    suite_add_tcase(s, ops);

    TCase *joining = tcase_create("joining");
    tcase_set_timeout(joining, 60);
    tcase_add_test(joining, a_rank_that_never_comes_times_out);
    suite_add_tcase(s, joining);
    return acltest_run(s);
}
