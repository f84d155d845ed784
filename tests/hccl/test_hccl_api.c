/* libhccl's frame: every function's bad arguments and codes, root info,
 * rank tables, configs, groups and the engine that refuses when acl-cuda was
 * built without one. Collectives are checked against a fake engine that
 * records what it is given (hccl_engine_override); what NCCL and Gloo do
 * with it is tested where they are. Each test runs forked (the environment
 * is read once per process). */
#include "config.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "../check/acltest.h"
#include "hccl/comm.h"
#include "hccl/engine.h"
#include "hccl/errors.h"
#include "hccl/hccl.h"
#include "hccl/rank_table.h"
#include "hccl/select.h"
#include "hccl/sha256.h"

#define HCCL_OK(call) ck_assert_int_eq((call), HCCL_SUCCESS)
#define HCCL_FAILS(call, code, words)                                                              \
    do {                                                                                           \
        HcclResult got_ = (call);                                                                  \
        ck_assert_msg(got_ == (code), "%s returned %d, not %d (%s)", #call, (int)got_,             \
                      (int)(code), hccl_last_error());                                             \
        ck_assert_msg(strstr(hccl_last_error(), (words)) != NULL,                                  \
                      "%s: the message \"%s\" does not say \"%s\"", #call, hccl_last_error(),      \
                      (words));                                                                    \
    } while (0)

/* A stream the fake engine never touches. */
#define STREAM ((aclrtStream)(uintptr_t)0x1000)
#define BUF ((void *)(uintptr_t)0x2000)
#define BUF2 ((void *)(uintptr_t)0x3000)

/* ---- the fake engine ------------------------------------------------------- */

static hccl_op *last_op;
static hccl_join last_join;
static hccl_split last_split;
static uint32_t last_split_ranks[8];
static int splits;
static int group_starts, group_ends, destroyed;

static HcclResult fake_root_info(unsigned char *out)
{
    memset(out, 0xab, HCCL_ENGINE_ROOT_BYTES);
    return HCCL_SUCCESS;
}

static HcclResult fake_comm_init(const hccl_join *join, hccl_engine_comm **comm)
{
    last_join = *join;
    ck_assert_int_eq(join->root_bytes[0], 0xab);
    ck_assert_int_eq(join->root_bytes[HCCL_ENGINE_ROOT_BYTES - 1], 0xab);
    *comm = malloc(1);
    return HCCL_SUCCESS;
}

static HcclResult fake_comm_init_all(uint32_t ndev, const int32_t *devices,
                                     hccl_engine_comm **comms)
{
    (void)devices;
    for (uint32_t i = 0; i < ndev; i++)
        comms[i] = malloc(1);
    return HCCL_SUCCESS;
}

static HcclResult fake_comm_split(hccl_engine_comm *parent, const hccl_split *split,
                                  hccl_engine_comm **comm)
{
    ck_assert_ptr_nonnull(parent);
    ck_assert_uint_le(split->nranks, 8);
    last_split = *split;
    memcpy(last_split_ranks, split->ranks, split->nranks * sizeof *split->ranks);
    last_split.ranks = last_split_ranks;
    splits++;
    *comm = malloc(1);
    return HCCL_SUCCESS;
}

static HcclResult fake_comm_destroy(hccl_engine_comm *comm)
{
    free(comm);
    destroyed++;
    return HCCL_SUCCESS;
}

static HcclResult fake_submit(hccl_engine_comm *comm, hccl_op *op, aclrtStream stream)
{
    (void)comm;
    ck_assert_ptr_eq(stream, STREAM);
    hccl_op_free(last_op);
    last_op = op;
    return HCCL_SUCCESS;
}

static HcclResult fake_group_start(void)
{
    group_starts++;
    return HCCL_SUCCESS;
}

static HcclResult fake_group_end(void)
{
    group_ends++;
    return HCCL_SUCCESS;
}

static HcclResult fake_async_error(hccl_engine_comm *comm, HcclResult *error)
{
    (void)comm;
    *error = HCCL_E_REMOTE;
    return HCCL_SUCCESS;
}

static const char *fake_unsupported(HcclDataType dtype, HcclReduceOp op)
{
    return dtype == HCCL_DATA_TYPE_BFP16 && op == HCCL_REDUCE_MAX ? "fake: no BFP16 max" : NULL;
}

static const hccl_engine fake_a = {
    .name = "fakeA",
    .root_info = fake_root_info,
    .comm_init = fake_comm_init,
    .comm_init_all = fake_comm_init_all,
    .comm_split = fake_comm_split,
    .comm_destroy = fake_comm_destroy,
    .submit = fake_submit,
    .group_start = fake_group_start,
    .group_end = fake_group_end,
    .async_error = fake_async_error,
    .unsupported = fake_unsupported,
};
static hccl_engine fake_b;

static void use_fake_engine(void)
{
    ck_assert_int_eq(aclrtSetDevice(0), ACL_SUCCESS);
    hccl_engine_override(&fake_a);
}

/* A communicator of nranks ranks made by the fake engine, as rank. */
static HcclComm fake_comm(uint32_t nranks, uint32_t rank)
{
    HcclRootInfo root;
    HCCL_OK(HcclGetRootInfo(&root));
    HcclComm comm = NULL;
    HCCL_OK(HcclCommInitRootInfo(nranks, &root, rank, &comm));
    ck_assert_ptr_nonnull(comm);
    return comm;
}

static char *fixture(const char *name)
{
    static char path[4096];
    const char *srcdir = getenv("ACLCUDA_TEST_SRCDIR");
    snprintf(path, sizeof path, "%s/tests/hccl/ranktables/%s", srcdir ? srcdir : "..", name);
    return path;
}

/* ---- values -------------------------------------------------------------- */

START_TEST(error_strings_name_every_code)
{
    static const struct {
        HcclResult code;
        const char *name;
    } codes[] = {
        {HCCL_SUCCESS, "HCCL_SUCCESS"},
        {HCCL_E_PARA, "HCCL_E_PARA"},
        {HCCL_E_PTR, "HCCL_E_PTR"},
        {HCCL_E_MEMORY, "HCCL_E_MEMORY"},
        {HCCL_E_INTERNAL, "HCCL_E_INTERNAL"},
        {HCCL_E_NOT_SUPPORT, "HCCL_E_NOT_SUPPORT"},
        {HCCL_E_NOT_FOUND, "HCCL_E_NOT_FOUND"},
        {HCCL_E_UNAVAIL, "HCCL_E_UNAVAIL"},
        {HCCL_E_SYSCALL, "HCCL_E_SYSCALL"},
        {HCCL_E_TIMEOUT, "HCCL_E_TIMEOUT"},
        {HCCL_E_OPEN_FILE_FAILURE, "HCCL_E_OPEN_FILE_FAILURE"},
        {HCCL_E_TCP_CONNECT, "HCCL_E_TCP_CONNECT"},
        {HCCL_E_ROCE_CONNECT, "HCCL_E_ROCE_CONNECT"},
        {HCCL_E_TCP_TRANSFER, "HCCL_E_TCP_TRANSFER"},
        {HCCL_E_ROCE_TRANSFER, "HCCL_E_ROCE_TRANSFER"},
        {HCCL_E_RUNTIME, "HCCL_E_RUNTIME"},
        {HCCL_E_DRV, "HCCL_E_DRV"},
        {HCCL_E_PROFILING, "HCCL_E_PROFILING"},
        {HCCL_E_CCE, "HCCL_E_CCE"},
        {HCCL_E_NETWORK, "HCCL_E_NETWORK"},
        {HCCL_E_AGAIN, "HCCL_E_AGAIN"},
        {HCCL_E_REMOTE, "HCCL_E_REMOTE"},
        {HCCL_E_SUSPENDING, "HCCL_E_SUSPENDING"},
        {HCCL_E_OPRETRY_FAIL, "HCCL_E_OPRETRY_FAIL"},
        {HCCL_E_OOM, "HCCL_E_OOM"},
        {HCCL_E_IN_STATUS, "HCCL_E_IN_STATUS"},
    };
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        ck_assert_str_eq(HcclGetErrorString(codes[i].code), codes[i].name);
    ck_assert_int_eq(HCCL_E_OOM, 24);
    ck_assert_int_eq(HCCL_E_IN_STATUS, 1041);
    ck_assert_str_eq(HcclGetErrorString((HcclResult)77), "unknown HcclResult");
    ck_assert_str_eq(HcclGetErrorString(HCCL_E_RESERVED), "unknown HcclResult");
}
END_TEST

START_TEST(types_have_cann_layouts)
{
    ck_assert_uint_eq(sizeof(HcclRootInfo), 4108);
    ck_assert_uint_eq(offsetof(HcclSendRecvItem, buf), 8);
    ck_assert_uint_eq(offsetof(HcclSendRecvItem, count), 16);
    ck_assert_uint_eq(offsetof(HcclSendRecvItem, dataType), 24);
    ck_assert_uint_eq(offsetof(HcclSendRecvItem, remoteRank), 28);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclBufferSize), 24);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclCommName), 32);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclUdi), 160);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclOpExpansionMode), 288);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclJobID), 304);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclExecTimeOut), 316);
    ck_assert_uint_eq(offsetof(HcclCommConfig, hcclAlgo), 320);
    ck_assert_uint_eq(HCCL_DATA_TYPE_FP8E8M0, 17);
    ck_assert_uint_eq(hccl_dtype_size(HCCL_DATA_TYPE_INT128), 16);
    ck_assert_uint_eq(hccl_dtype_size(HCCL_DATA_TYPE_BFP16), 2);
    ck_assert_uint_eq(hccl_dtype_size((HcclDataType)13), 0);
}
END_TEST

START_TEST(config_init_sets_every_field)
{
    HcclCommConfig config;
    memset(&config, 0x5a, sizeof config);
    HcclCommConfigInit(&config);
    size_t size;
    uint32_t magic, version;
    memcpy(&size, config.reserved, sizeof size);
    memcpy(&magic, config.reserved + 8, sizeof magic);
    memcpy(&version, config.reserved + 12, sizeof version);
    ck_assert_uint_eq(size, sizeof(HcclCommConfig));
    ck_assert_uint_eq(magic, 0xf0f0f0f0);
    ck_assert_uint_eq(version, 10);
    ck_assert_uint_eq(config.hcclBufferSize, 0xffffffff);
    ck_assert_uint_eq(config.hcclDeterministic, 0xffffffff);
    ck_assert_str_eq(config.hcclCommName, "");
    ck_assert_str_eq(config.hcclUdi, "");
    ck_assert_uint_eq(config.hcclOpExpansionMode, 0);
    ck_assert_uint_eq(config.hcclRdmaTrafficClass, 0xffffffff);
    ck_assert_uint_eq(config.hcclRdmaServiceLevel, 0xffffffff);
    ck_assert_uint_eq(config.hcclWorldRankID, 0);
    ck_assert_uint_eq(config.hcclJobID, 0);
    ck_assert_uint_eq(config.aclGraphZeroCopyEnable, 0);
    ck_assert_int_eq(config.hcclExecTimeOut, -1);
    ck_assert_str_eq(config.hcclAlgo, "");
    ck_assert_str_eq(config.hcclRetryEnable, "");
    ck_assert_str_eq(config.hcclRetryParams, "");
    ck_assert_str_eq(config.hcclBufferName, "");
    ck_assert_uint_eq(config.hcclQos, 0xffffffff);
    ck_assert_uint_eq(config.hcclSymWinMaxMemSizePerRank, 16);
    HcclCommConfigInit(NULL);
    ck_assert_uint_eq(HcclGetCommConfigCapability(), HCCL_COMM_CONFIG_RESERVED);
}
END_TEST

START_TEST(sha256_known_answers)
{
    static const char abc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    static const char two_blocks[] =
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
    unsigned char digest[HCCL_SHA256_BYTES];
    char hex[65];
    hccl_sha256("abc", 3, digest);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", digest[i]);
    ck_assert_str_eq(hex, abc);
    const char *long_text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hccl_sha256(long_text, strlen(long_text), digest);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", digest[i]);
    ck_assert_str_eq(hex, two_blocks);
}
END_TEST

/* ---- arguments ------------------------------------------------------------- */

/* CANN checks a zero count before anything else: nothing to do succeeds. */
START_TEST(zero_counts_succeed_before_any_check)
{
    HCCL_OK(HcclAllReduce(NULL, NULL, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, NULL, NULL));
    HCCL_OK(HcclBroadcast(NULL, 0, HCCL_DATA_TYPE_FP32, 0, NULL, NULL));
    HCCL_OK(HcclReduce(NULL, NULL, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, NULL, NULL));
    HCCL_OK(HcclReduceScatter(NULL, NULL, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, NULL, NULL));
    HCCL_OK(HcclScatter(NULL, NULL, 0, HCCL_DATA_TYPE_FP32, 0, NULL, NULL));
    HCCL_OK(HcclAllGather(NULL, NULL, 0, HCCL_DATA_TYPE_FP32, NULL, NULL));
    HCCL_OK(HcclSend(NULL, 0, HCCL_DATA_TYPE_FP32, 0, NULL, NULL));
    HCCL_OK(HcclRecv(NULL, 0, HCCL_DATA_TYPE_FP32, 0, NULL, NULL));
    HCCL_OK(HcclAlltoAll(NULL, 0, HCCL_DATA_TYPE_FP32, NULL, 0, HCCL_DATA_TYPE_FP32, NULL, NULL));
    HCCL_OK(HcclBatchSendRecv(NULL, 0, NULL, NULL));
}
END_TEST

START_TEST(null_pointers_are_e_ptr)
{
    HcclComm comm = (HcclComm)(uintptr_t)0x1239;
    uint64_t counts[2] = {1, 1};
    HcclSendRecvItem item = {HCCL_SEND, BUF, 1, HCCL_DATA_TYPE_FP32, 0};
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, NULL),
               HCCL_E_PTR, "HcclAllReduce: stream is NULL");
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, NULL, STREAM),
               HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclAllReduce(NULL, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, STREAM),
               HCCL_E_PTR, "sendBuf is NULL");
    HCCL_FAILS(HcclAllReduce(BUF, NULL, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, STREAM),
               HCCL_E_PTR, "recvBuf is NULL");
    HCCL_FAILS(HcclBroadcast(NULL, 1, HCCL_DATA_TYPE_FP32, 0, comm, STREAM), HCCL_E_PTR,
               "buf is NULL");
    HCCL_FAILS(HcclReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, comm, NULL),
               HCCL_E_PTR, "stream is NULL");
    HCCL_FAILS(HcclReduceScatter(BUF, NULL, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, STREAM),
               HCCL_E_PTR, "recvBuf is NULL");
    HCCL_FAILS(HcclReduceScatterV(BUF, NULL, counts, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                  comm, STREAM),
               HCCL_E_PTR, "sendCounts is NULL");
    HCCL_FAILS(HcclScatter(BUF, NULL, 1, HCCL_DATA_TYPE_FP32, 0, comm, STREAM), HCCL_E_PTR,
               "recvBuf is NULL");
    HCCL_FAILS(HcclAllGather(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, NULL, STREAM), HCCL_E_PTR,
               "comm is NULL");
    HCCL_FAILS(HcclAllGatherV(BUF, 1, BUF, counts, NULL, HCCL_DATA_TYPE_FP32, comm, STREAM),
               HCCL_E_PTR, "recvDispls is NULL");
    HCCL_FAILS(HcclAllGatherV(NULL, 1, BUF, counts, counts, HCCL_DATA_TYPE_FP32, comm, STREAM),
               HCCL_E_PTR, "sendBuf is NULL");
    HCCL_FAILS(HcclSend(NULL, 1, HCCL_DATA_TYPE_FP32, 0, comm, STREAM), HCCL_E_PTR,
               "sendBuf is NULL");
    HCCL_FAILS(HcclRecv(NULL, 1, HCCL_DATA_TYPE_FP32, 0, comm, STREAM), HCCL_E_PTR,
               "recvBuf is NULL");
    HCCL_FAILS(
        HcclAlltoAll(BUF, 1, HCCL_DATA_TYPE_FP32, NULL, 1, HCCL_DATA_TYPE_FP32, comm, STREAM),
        HCCL_E_PTR, "recvBuf is NULL");
    HCCL_FAILS(HcclAlltoAllV(BUF, counts, counts, HCCL_DATA_TYPE_FP32, BUF, NULL, counts,
                             HCCL_DATA_TYPE_FP32, comm, STREAM),
               HCCL_E_PTR, "recvCounts is NULL");
    HCCL_FAILS(
        HcclAlltoAllVC(BUF, NULL, HCCL_DATA_TYPE_FP32, BUF, HCCL_DATA_TYPE_FP32, comm, STREAM),
        HCCL_E_PTR, "sendCountMatrix is NULL");
    HCCL_FAILS(HcclBatchSendRecv(NULL, 1, comm, STREAM), HCCL_E_PTR, "sendRecvInfo is NULL");
    HCCL_FAILS(HcclBatchSendRecv(&item, 1, comm, NULL), HCCL_E_PTR, "stream is NULL");
    HCCL_FAILS(HcclBarrier(comm, NULL), HCCL_E_PTR, "stream is NULL");
    HCCL_FAILS(HcclBarrier(NULL, STREAM), HCCL_E_PTR, "comm is NULL");

    HcclRootInfo root;
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    uint32_t value;
    char name[COMM_NAME_MAX_LENGTH];
    int32_t device = 0;
    HcclResult error;
    HcclCommStatus status;
    bool enabled;
    HcclConfigValue config_value;
    HCCL_FAILS(HcclGetRootInfo(NULL), HCCL_E_PTR, "rootInfo is NULL");
    HCCL_FAILS(HcclCommInitRootInfo(2, NULL, 0, &comm), HCCL_E_PTR, "rootInfo is NULL");
    HCCL_FAILS(HcclCommInitRootInfo(2, &root, 0, NULL), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, NULL, &comm), HCCL_E_PTR, "config is NULL");
    HCCL_FAILS(HcclCommInitClusterInfo(NULL, 0, &comm), HCCL_E_PTR, "clusterInfo is NULL");
    HCCL_FAILS(HcclCommInitClusterInfo("x", 0, NULL), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclCommInitClusterInfoConfig("x", 0, NULL, &comm), HCCL_E_PTR, "config is NULL");
    HCCL_FAILS(HcclCommInitAll(1, NULL, &comm), HCCL_E_PTR, "devices is NULL");
    HCCL_FAILS(HcclCommInitAll(1, &device, NULL), HCCL_E_PTR, "comms is NULL");
    HCCL_FAILS(HcclCommDestroy(NULL), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclGetRankSize(NULL, &value), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclGetRankId(NULL, &value), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclGetCommName(NULL, name), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclCommGetHandleWithName(NULL, &comm), HCCL_E_PTR, "commName is NULL");
    HCCL_FAILS(HcclCommGetHandleWithName("x", NULL), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclCommGetStatus(NULL, &status), HCCL_E_PTR, "commId is NULL");
    HCCL_FAILS(HcclCommGetStatus("x", NULL), HCCL_E_PTR, "status is NULL");
    HCCL_FAILS(HcclGetCommAsyncError(NULL, &error), HCCL_E_PTR, "comm is NULL");
    HCCL_FAILS(HcclConfigGetInfo(NULL, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 4, &value), HCCL_E_PTR,
               "comm is NULL");
    HCCL_FAILS(HcclGroupStatusGet(NULL), HCCL_E_PTR, "isGroupEnabled is NULL");
    HCCL_FAILS(HcclGetConfig(HCCL_DETERMINISTIC, NULL), HCCL_E_PTR, "configValue is NULL");
    HCCL_FAILS(HcclCommRegCommStateCallback(NULL, NULL, NULL), HCCL_E_PTR, "regName is NULL");
    HCCL_FAILS(HcclCommRegCommStateCallback("svc", NULL, NULL), HCCL_E_PTR, "cb is NULL");
    (void)enabled;
    (void)config_value;
}
END_TEST

/* A handle that is no communicator is refused, never followed. */
START_TEST(foreign_comms_are_e_para)
{
    int local;
    HcclComm foreign[] = {(HcclComm)&local, (HcclComm)(uintptr_t)0x1239, (HcclComm)(uintptr_t)8};
    uint32_t value;
    char name[COMM_NAME_MAX_LENGTH];
    HcclResult error;
    for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++) {
        HcclComm comm = foreign[i];
        HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, STREAM),
                   HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclBarrier(comm, STREAM), HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclGetRankSize(comm, &value), HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclGetRankId(comm, &value), HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclGetCommName(comm, name), HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclGetCommAsyncError(comm, &error), HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclCommDestroy(comm), HCCL_E_PARA, "not a communicator");
        HCCL_FAILS(HcclConfigGetInfo(comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 4, &value),
                   HCCL_E_PARA, "not a communicator");
    }
}
END_TEST

START_TEST(bad_values_are_refused_with_cann_codes)
{
    use_fake_engine();
    HcclComm comm = fake_comm(4, 1);
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, (HcclDataType)13, HCCL_REDUCE_SUM, comm, STREAM),
               HCCL_E_NOT_SUPPORT, "dataType 13 is not an HcclDataType");
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_UINT8, HCCL_REDUCE_SUM, comm, STREAM),
               HCCL_E_NOT_SUPPORT, "UINT8 is not reduced");
    HCCL_FAILS(HcclReduce(BUF, BUF, 1, HCCL_DATA_TYPE_INT16, HCCL_REDUCE_PROD, 0, comm, STREAM),
               HCCL_E_NOT_SUPPORT, "HCCL_REDUCE_PROD does not take dataType INT16");
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, (HcclReduceOp)7, comm, STREAM),
               HCCL_E_NOT_SUPPORT, "op 7 is not an HcclReduceOp");
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MAX, comm, STREAM),
               HCCL_E_NOT_SUPPORT, "fake: no BFP16 max");
    HCCL_FAILS(HcclBroadcast(BUF, 1, HCCL_DATA_TYPE_INT128, 0, comm, STREAM), HCCL_E_NOT_SUPPORT,
               "INT128 is moved by no collective");
    HCCL_FAILS(
        HcclAllReduce(BUF, BUF, 0x800000000ULL, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, STREAM),
        HCCL_E_PARA, "count 34359738368 is more than the largest count");
    HCCL_FAILS(HcclBroadcast(BUF, 1, HCCL_DATA_TYPE_FP32, 4, comm, STREAM), HCCL_E_PARA,
               "root 4 is not a rank of the communicator (0 to 3)");
    HCCL_FAILS(HcclReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 9, comm, STREAM),
               HCCL_E_PARA, "root 9");
    HCCL_FAILS(HcclScatter(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, 7, comm, STREAM), HCCL_E_PARA,
               "root 7");
    HCCL_FAILS(HcclScatter(NULL, BUF, 1, HCCL_DATA_TYPE_FP32, 1, comm, STREAM), HCCL_E_PTR,
               "sendBuf is NULL on the root");
    HCCL_FAILS(HcclSend(BUF, 1, HCCL_DATA_TYPE_FP32, 4, comm, STREAM), HCCL_E_PARA, "destRank 4");
    HCCL_FAILS(HcclRecv(BUF, 1, HCCL_DATA_TYPE_FP32, 5, comm, STREAM), HCCL_E_PARA, "srcRank 5");
    HCCL_FAILS(HcclSend(BUF, 1, HCCL_DATA_TYPE_FP32, 0, comm, NULL), HCCL_E_PTR, "stream is NULL");
    uint64_t counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6};
    HCCL_FAILS(HcclAllGatherV(BUF, 1, BUF, counts, displs, HCCL_DATA_TYPE_FP32, comm, STREAM),
               HCCL_E_PARA, "recvCounts[1] is 2 but this rank (1) sends sendCount 1");
    HCCL_FAILS(HcclReduceScatterV(BUF, counts, displs, BUF, 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                  comm, STREAM),
               HCCL_E_PARA, "sendCounts[1] is 2 but this rank (1) receives recvCount 3");
    HCCL_FAILS(HcclAlltoAll(BUF, 2, HCCL_DATA_TYPE_FP32, BUF, 3, HCCL_DATA_TYPE_FP32, comm, STREAM),
               HCCL_E_PARA, "sendCount 2 and recvCount 3 differ");
    HCCL_FAILS(
        HcclAlltoAll(BUF, 2, HCCL_DATA_TYPE_FP32, BUF, 2, HCCL_DATA_TYPE_INT32, comm, STREAM),
        HCCL_E_PARA, "sendType FP32 and recvType INT32 differ");
    HCCL_FAILS(HcclAlltoAllV(NULL, counts, displs, HCCL_DATA_TYPE_FP32, BUF, counts, displs,
                             HCCL_DATA_TYPE_FP32, comm, STREAM),
               HCCL_E_PTR, "sendBuf is NULL");
    HcclSendRecvItem items[2] = {{HCCL_SEND, BUF, 1, HCCL_DATA_TYPE_FP32, 0},
                                 {(HcclSendRecvType)5, BUF, 1, HCCL_DATA_TYPE_FP32, 2}};
    HCCL_FAILS(HcclBatchSendRecv(items, 2, comm, STREAM), HCCL_E_PARA,
               "sendRecvInfo[1].sendRecvType is 5");
    items[1].sendRecvType = HCCL_RECV;
    items[1].remoteRank = 4;
    HCCL_FAILS(HcclBatchSendRecv(items, 2, comm, STREAM), HCCL_E_PARA,
               "sendRecvInfo[1].remoteRank 4");
    items[1].remoteRank = 2;
    items[1].buf = NULL;
    HCCL_FAILS(HcclBatchSendRecv(items, 2, comm, STREAM), HCCL_E_PTR,
               "sendRecvInfo[1].buf is NULL");
    ck_assert_ptr_null(last_op);
    HCCL_OK(HcclCommDestroy(comm));
}
END_TEST

/* ---- what the engine is given ------------------------------------------- */

START_TEST(collectives_reach_the_engine_as_described)
{
    use_fake_engine();
    HcclComm comm = fake_comm(3, 2);
    HCCL_OK(HcclAllReduce(BUF, BUF2, 5, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MAX, comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_ALLREDUCE);
    ck_assert_ptr_eq(last_op->send, BUF);
    ck_assert_ptr_eq(last_op->recv, BUF2);
    ck_assert_uint_eq(last_op->count, 5);
    ck_assert_int_eq(last_op->dtype, HCCL_DATA_TYPE_FP16);
    ck_assert_int_eq(last_op->reduce, HCCL_REDUCE_MAX);

    HCCL_OK(HcclBroadcast(BUF, 7, HCCL_DATA_TYPE_UINT8, 1, comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_BROADCAST);
    ck_assert_uint_eq(last_op->root, 1);
    ck_assert_ptr_eq(last_op->recv, BUF);

    HCCL_OK(HcclSend(BUF, 3, HCCL_DATA_TYPE_INT8, 0, comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_SEND);
    ck_assert_uint_eq(last_op->peer, 0);

    HCCL_OK(
        HcclAlltoAll(BUF, 4, HCCL_DATA_TYPE_INT32, BUF2, 4, HCCL_DATA_TYPE_INT32, comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_ALLTOALL);
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(last_op->send_counts[i], 4);
        ck_assert_uint_eq(last_op->recv_counts[i], 4);
        ck_assert_uint_eq(last_op->send_displs[i], 4 * i);
        ck_assert_uint_eq(last_op->recv_displs[i], 4 * i);
    }

    /* Rank 2 sends its row of the matrix and receives its column. */
    uint64_t matrix[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    HCCL_OK(
        HcclAlltoAllVC(BUF, matrix, HCCL_DATA_TYPE_FP32, BUF2, HCCL_DATA_TYPE_FP32, comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_ALLTOALLV);
    uint64_t row[3] = {6, 7, 8}, column[3] = {2, 5, 8}, row_displs[3] = {0, 6, 13},
             column_displs[3] = {0, 2, 7};
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(last_op->send_counts[i], row[i]);
        ck_assert_uint_eq(last_op->recv_counts[i], column[i]);
        ck_assert_uint_eq(last_op->send_displs[i], row_displs[i]);
        ck_assert_uint_eq(last_op->recv_displs[i], column_displs[i]);
    }

    /* The counts are copies: the caller may reuse its arrays at once. */
    uint64_t counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
    HCCL_OK(HcclAllGatherV(BUF, 3, BUF2, counts, displs, HCCL_DATA_TYPE_FP32, comm, STREAM));
    counts[0] = displs[2] = 99;
    ck_assert_int_eq(last_op->kind, HCCL_OP_ALLGATHERV);
    ck_assert_uint_eq(last_op->count, 3);
    ck_assert_uint_eq(last_op->recv_counts[0], 1);
    ck_assert_uint_eq(last_op->recv_displs[2], 3);

    uint64_t send_counts[3] = {5, 6, 2};
    HCCL_OK(HcclReduceScatterV(BUF, send_counts, displs, BUF2, 2, HCCL_DATA_TYPE_INT64,
                               HCCL_REDUCE_SUM, comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_REDUCE_SCATTERV);
    ck_assert_uint_eq(last_op->send_counts[1], 6);

    HcclSendRecvItem items[2] = {{HCCL_SEND, BUF, 1, HCCL_DATA_TYPE_FP32, 0},
                                 {HCCL_RECV, BUF2, 2, HCCL_DATA_TYPE_INT8, 1}};
    HCCL_OK(HcclBatchSendRecv(items, 2, comm, STREAM));
    items[1].count = 50;
    ck_assert_int_eq(last_op->kind, HCCL_OP_BATCH_SEND_RECV);
    ck_assert_uint_eq(last_op->item_count, 2);
    ck_assert_uint_eq(last_op->items[1].count, 2);

    HCCL_OK(HcclBarrier(comm, STREAM));
    ck_assert_int_eq(last_op->kind, HCCL_OP_BARRIER);

    /* A V collective with nothing anywhere is a success that queues nothing. */
    uint64_t zeros[3] = {0, 0, 0};
    hccl_op *before = last_op;
    HCCL_OK(HcclAllGatherV(NULL, 0, NULL, zeros, zeros, HCCL_DATA_TYPE_FP32, comm, STREAM));
    ck_assert_ptr_eq(last_op, before);
    HCCL_OK(HcclCommDestroy(comm));
}
END_TEST

/* ---- communicators --------------------------------------------------------- */

static int callback_phases[4];
static HcclComm callback_comm;

static HcclResult state_callback(HcclComm comm, HcclCommStatePhase phase, void *args)
{
    ck_assert_ptr_eq(args, BUF);
    callback_comm = comm;
    callback_phases[phase]++;
    return HCCL_SUCCESS;
}

START_TEST(communicators_live_until_destroyed)
{
    use_fake_engine();
    HcclComm comm = fake_comm(2, 1);
    uint32_t value = 0;
    HCCL_OK(HcclGetRankSize(comm, &value));
    ck_assert_uint_eq(value, 2);
    HCCL_OK(HcclGetRankId(comm, &value));
    ck_assert_uint_eq(value, 1);
    ck_assert_int_eq(last_join.device, 0);
    ck_assert_uint_eq(last_join.nranks, 2);
    ck_assert_uint_eq(last_join.rank, 1);
    ck_assert(last_join.connect_timeout_s == 120);
    ck_assert(last_join.exec_timeout_s == 1836);
    char name[COMM_NAME_MAX_LENGTH];
    HCCL_OK(HcclGetCommName(comm, name));
    ck_assert_msg(strncmp(name, "hccl_root_", 10) == 0, "name %s", name);
    HcclComm found = NULL;
    HCCL_OK(HcclCommGetHandleWithName(name, &found));
    ck_assert_ptr_eq(found, comm);
    HcclCommStatus status = HCCL_COMM_STATUS_INVALID;
    HCCL_OK(HcclCommGetStatus(name, &status));
    ck_assert_int_eq(status, HCCL_COMM_STATUS_READY);
    HcclResult async = HCCL_SUCCESS;
    HCCL_OK(HcclGetCommAsyncError(comm, &async));
    ck_assert_int_eq(async, HCCL_E_REMOTE);
    HcclConfigTypeOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_INVALID;
    HCCL_OK(HcclConfigGetInfo(comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, sizeof mode, &mode));
    ck_assert_int_eq(mode, HCCL_OP_EXPANSION_MODE_HOST);
    HCCL_FAILS(HcclConfigGetInfo(comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 2, &mode), HCCL_E_PARA,
               "infoLen 2");
    HCCL_FAILS(HcclConfigGetInfo(comm, (HcclConfigType)3, 4, &mode), HCCL_E_PARA, "cfgType 3");

    HCCL_OK(HcclCommRegCommStateCallback("service", state_callback, BUF));
    HCCL_OK(HcclCommDestroy(comm));
    ck_assert_int_eq(destroyed, 1);
    ck_assert_int_eq(callback_phases[HCCL_COMM_STATE_PHASE_DESTROY_PRE], 1);
    ck_assert_int_eq(callback_phases[HCCL_COMM_STATE_PHASE_DESTROY_POST], 1);
    ck_assert_ptr_eq(callback_comm, comm);

    /* Destroyed: every call is refused, and a new comm never reuses the handle. */
    HCCL_FAILS(HcclGetRankSize(comm, &value), HCCL_E_PARA, "or was destroyed");
    HCCL_FAILS(HcclCommDestroy(comm), HCCL_E_PARA, "or was destroyed");
    HCCL_FAILS(HcclAllReduce(BUF, BUF, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, STREAM),
               HCCL_E_PARA, "or was destroyed");
    HCCL_FAILS(HcclCommGetHandleWithName(name, &found), HCCL_E_NOT_FOUND, name);
    HCCL_FAILS(HcclCommGetStatus(name, &status), HCCL_E_NOT_FOUND, name);
    HcclComm again = fake_comm(2, 0);
    ck_assert_ptr_ne(again, comm);
    HCCL_OK(HcclCommDestroy(again));
}
END_TEST

START_TEST(init_checks_ranks_and_root_info)
{
    use_fake_engine();
    HcclRootInfo root;
    HcclComm comm;
    HCCL_OK(HcclGetRootInfo(&root));
    HCCL_FAILS(HcclCommInitRootInfo(0, &root, 0, &comm), HCCL_E_PARA, "nRanks is 0");
    HCCL_FAILS(HcclCommInitRootInfo(2, &root, 2, &comm), HCCL_E_PARA,
               "rank 2 is not below nRanks 2");

    HcclRootInfo garbage;
    memset(&garbage, 0x33, sizeof garbage);
    HCCL_FAILS(HcclCommInitRootInfo(2, &garbage, 0, &comm), HCCL_E_PARA,
               "not made by HcclGetRootInfo");
    HcclRootInfo changed = root;
    changed.internal[2000] ^= 1;
    HCCL_FAILS(HcclCommInitRootInfo(2, &changed, 0, &comm), HCCL_E_PARA, "checksum");

    /* Made by another engine (another backend) is refused by name. */
    fake_b = fake_a;
    fake_b.name = "fakeB";
    hccl_engine_override(&fake_b);
    HCCL_FAILS(HcclCommInitRootInfo(2, &root, 0, &comm), HCCL_E_PARA,
               "made for the fakeA engine; this process runs fakeB");

    /* Without a current device there is no rank to place. */
    hccl_engine_override(&fake_a);
    ck_assert_int_eq(aclrtResetDevice(0), ACL_SUCCESS);
    HCCL_FAILS(HcclCommInitRootInfo(2, &root, 0, &comm), HCCL_E_RUNTIME, "aclrtSetDevice");
}
END_TEST

START_TEST(configs_are_read_and_checked)
{
    use_fake_engine();
    HcclRootInfo root;
    HCCL_OK(HcclGetRootInfo(&root));
    HcclCommConfig config;
    HcclComm comm;
    HcclCommConfigInit(&config);
    snprintf(config.hcclCommName, sizeof config.hcclCommName, "%s", "my_comm");
    config.hcclExecTimeOut = 30;
    HCCL_OK(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm));
    char name[COMM_NAME_MAX_LENGTH];
    HCCL_OK(HcclGetCommName(comm, name));
    ck_assert_str_eq(name, "my_comm");
    ck_assert(last_join.exec_timeout_s == 30);
    HCCL_OK(HcclCommDestroy(comm));

    config.hcclExecTimeOut = 0; /* no limit */
    HCCL_OK(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm));
    ck_assert(last_join.exec_timeout_s == 2147483647.0);
    HCCL_OK(HcclCommDestroy(comm));

    HcclCommConfigInit(&config);
    config.hcclOpExpansionMode = 2;
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_NOT_SUPPORT,
               "AI CPU");
    config.hcclOpExpansionMode = 3;
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_NOT_SUPPORT, "AIV");
    config.hcclOpExpansionMode = 9;
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA,
               "hcclOpExpansionMode is 9");
    HcclCommConfigInit(&config);
    config.hcclDeterministic = 5;
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA,
               "hcclDeterministic is 5");
    HcclCommConfigInit(&config);
    config.hcclExecTimeOut = -5;
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA,
               "hcclExecTimeOut is -5");
    HcclCommConfigInit(&config);
    memset(config.hcclCommName, 'x', sizeof config.hcclCommName);
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA,
               "hcclCommName is not terminated");
    memset(&config, 0, sizeof config);
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA,
               "not prepared by HcclCommConfigInit");

    /* A config from an older, shorter header: the settings past its size are not set. */
    HcclCommConfigInit(&config);
    size_t short_size = offsetof(HcclCommConfig, hcclUdi);
    memcpy(config.reserved, &short_size, sizeof short_size);
    config.hcclOpExpansionMode = 3;
    HCCL_OK(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm));
    HCCL_OK(HcclCommDestroy(comm));

    HcclConfigValue value = {.value = 1};
    HCCL_OK(HcclSetConfig(HCCL_DETERMINISTIC, value));
    value.value = 0;
    HCCL_OK(HcclGetConfig(HCCL_DETERMINISTIC, &value));
    ck_assert_int_eq(value.value, 1);
    value.value = 3;
    HCCL_FAILS(HcclSetConfig(HCCL_DETERMINISTIC, value), HCCL_E_PARA, "not 3");
    HCCL_FAILS(HcclSetConfig(HCCL_CONFIG_RESERVED, value), HCCL_E_PARA, "not HCCL_DETERMINISTIC");
}
END_TEST

/* A name a live communicator of the device has is refused, by whichever
 * call would make the second, before the engine joins anything; once the
 * first is destroyed the name is free, and another device may have it. */
START_TEST(comm_names_are_one_per_device)
{
    use_fake_engine();
    HcclRootInfo root;
    HCCL_OK(HcclGetRootInfo(&root));
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    snprintf(config.hcclCommName, sizeof config.hcclCommName, "%s", "dp_group");
    HcclComm first = NULL, second = NULL;
    HCCL_OK(HcclCommInitRootInfoConfig(2, &root, 0, &config, &first));
    memset(&last_join, 0, sizeof last_join);
    HCCL_FAILS(HcclCommInitRootInfoConfig(2, &root, 1, &config, &second), HCCL_E_PARA,
               "a communicator on device 0 is named dp_group already");
    HCCL_FAILS(HcclCommInitClusterInfoConfig(fixture("single_device0.json"), 0, &config, &second),
               HCCL_E_PARA, "named dp_group already");
    uint32_t ids[2] = {0, 1};
    HCCL_FAILS(HcclCreateSubCommConfig(&first, 2, ids, 3, 0, &config, &second), HCCL_E_PARA,
               "named dp_group already");
    ck_assert_uint_eq(last_join.nranks, 0);
    ck_assert_int_eq(splits, 0);
    ck_assert_ptr_null(second);

    uint32_t count;
    ACL_OK(aclrtGetDeviceCount(&count));
    if (count >= 2) {
        ACL_OK(aclrtSetDevice(1));
        HCCL_OK(HcclCommInitRootInfoConfig(2, &root, 1, &config, &second));
        HCCL_OK(HcclCommDestroy(second));
        ACL_OK(aclrtSetDevice(0));
    }
    HCCL_OK(HcclCommDestroy(first));
    HCCL_OK(HcclCommInitClusterInfoConfig(fixture("single_device0.json"), 0, &config, &second));
    HCCL_OK(HcclCommDestroy(second));
}
END_TEST

START_TEST(init_all_makes_one_comm_per_device)
{
    use_fake_engine();
    /* One communicator per listed device, ranked in list order: two where
     * the machine has two devices (the host backend here), else one. */
    uint32_t count;
    ACL_OK(aclrtGetDeviceCount(&count));
    uint32_t ndev = count >= 2 ? 2 : 1;
    int32_t devices[2] = {(int32_t)ndev - 1, 0};
    HcclComm comms[2];
    HCCL_OK(HcclCommInitAll(ndev, devices, comms));
    for (uint32_t i = 0; i < ndev; i++) {
        uint32_t rank;
        HCCL_OK(HcclGetRankId(comms[i], &rank));
        ck_assert_uint_eq(rank, i);
        HCCL_OK(HcclCommDestroy(comms[i]));
    }
    HCCL_FAILS(HcclCommInitAll(0, devices, comms), HCCL_E_PARA, "ndev is 0");
    devices[0] = 0;
    HCCL_FAILS(HcclCommInitAll(2, devices, comms), HCCL_E_PARA, "both device 0");
    devices[1] = 64;
    HCCL_FAILS(HcclCommInitAll(2, devices, comms), HCCL_E_PARA, "devices[1] is 64");
}
END_TEST

START_TEST(groups_nest_per_thread)
{
    use_fake_engine();
    bool enabled = true;
    HCCL_FAILS(HcclGroupEnd(), HCCL_E_PARA, "no HcclGroupStart");
    HCCL_OK(HcclGroupStatusGet(&enabled));
    ck_assert(!enabled);
    HCCL_OK(HcclGroupStart());
    HCCL_OK(HcclGroupStart());
    HCCL_OK(HcclGroupStatusGet(&enabled));
    ck_assert(enabled);
    HCCL_OK(HcclGroupEnd());
    HCCL_OK(HcclGroupStatusGet(&enabled));
    ck_assert(enabled);
    HCCL_OK(HcclGroupEnd());
    HCCL_OK(HcclGroupStatusGet(&enabled));
    ck_assert(!enabled);
    HCCL_FAILS(HcclGroupEnd(), HCCL_E_PARA, "no HcclGroupStart");
    ck_assert_int_eq(group_starts, 2);
    ck_assert_int_eq(group_ends, 2);
}
END_TEST

START_TEST(refused_functions_say_why)
{
    HcclComm comm = NULL;
    HcclCommSymWindow window = NULL;
    size_t offset;
    uint32_t ranks[1] = {0};
    bool backup[1] = {true};
    HCCL_FAILS(HcclCommSuspend(comm), HCCL_E_NOT_SUPPORT, "refused: suspending");
    HCCL_FAILS(HcclCommResume(comm), HCCL_E_NOT_SUPPORT, "refused: suspending");
    HCCL_FAILS(HcclCommSetMemoryRange(comm, BUF, 4096, 0, 0), HCCL_E_NOT_SUPPORT,
               "refused: communication memory ranges");
    HCCL_FAILS(HcclCommUnsetMemoryRange(comm, BUF), HCCL_E_NOT_SUPPORT, "refused");
    HCCL_FAILS(HcclCommActivateCommMemory(comm, BUF, 4096, 0, NULL, 0), HCCL_E_NOT_SUPPORT,
               "refused");
    HCCL_FAILS(HcclCommDeactivateCommMemory(comm, BUF), HCCL_E_NOT_SUPPORT, "refused");
    HCCL_FAILS(HcclCommWorkingDevNicSet(comm, ranks, backup, 1), HCCL_E_NOT_SUPPORT,
               "refused: switching a rank to its backup NIC");
    HCCL_FAILS(HcclCommSymWinRegister(comm, BUF, 64, &window, 1), HCCL_E_NOT_SUPPORT,
               "refused: symmetric memory windows");
    HCCL_FAILS(HcclCommSymWinDeregister(window), HCCL_E_NOT_SUPPORT, "refused");
    HCCL_FAILS(HcclCommSymWinGet(comm, BUF, 64, &window, &offset), HCCL_E_NOT_SUPPORT, "refused");
}
END_TEST

/* ---- sub-communicators ----------------------------------------------------- */

/* Rank 1 of 4 joins sub-communicators: the engine is given the parent ranks
 * by sub-rank and the caller's ids and settings; the sub-communicator is
 * named after its parent and lives on its own. */
START_TEST(sub_communicators_reach_the_engine_as_described)
{
    use_fake_engine();
    setenv("HCCL_CONNECT_TIMEOUT", "200", 1);
    HcclComm parent = fake_comm(4, 1);
    char parent_name[COMM_NAME_MAX_LENGTH], name[COMM_NAME_MAX_LENGTH];
    HCCL_OK(HcclGetCommName(parent, parent_name));
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    config.hcclExecTimeOut = 40;
    uint32_t ids[3] = {3, 1, 0};
    HcclComm sub = NULL;
    HCCL_OK(HcclCreateSubCommConfig(&parent, 3, ids, 7, 1, &config, &sub));
    ck_assert_ptr_nonnull(sub);
    ck_assert_ptr_ne(sub, parent);
    ck_assert_uint_eq(last_split.nranks, 3);
    ck_assert_uint_eq(last_split.rank, 1);
    ck_assert_uint_eq(last_split.ranks[0], 3);
    ck_assert_uint_eq(last_split.ranks[1], 1);
    ck_assert_uint_eq(last_split.ranks[2], 0);
    ck_assert_uint_eq(last_split.id, 7);
    ck_assert(last_split.connect_timeout_s == 200);
    ck_assert(last_split.exec_timeout_s == 40);
    uint32_t value = 0;
    HCCL_OK(HcclGetRankId(sub, &value));
    ck_assert_uint_eq(value, 1);
    HCCL_OK(HcclGetRankSize(sub, &value));
    ck_assert_uint_eq(value, 3);
    HCCL_OK(HcclGetCommName(sub, name));
    char want[COMM_NAME_MAX_LENGTH + 16];
    snprintf(want, sizeof want, "%s_sub_7", parent_name);
    ck_assert_str_eq(name, want);

    /* The same id again makes the same name: refused while the first lives. */
    HcclComm again = NULL;
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 3, ids, 7, 1, &config, &again), HCCL_E_PARA,
               "named hccl_root_");
    ck_assert_ptr_null(again);
    /* As CANN, a sub-communicator is split no further. */
    uint32_t sub_ids[2] = {0, 1};
    HCCL_FAILS(HcclCreateSubCommConfig(&sub, 2, sub_ids, 8, 1, &config, &again), HCCL_E_NOT_SUPPORT,
               "comm is itself a sub-communicator");
    ck_assert_ptr_null(again);
    ck_assert_int_eq(splits, 1);
    /* A name of the config's own wins over the id. */
    snprintf(config.hcclCommName, sizeof config.hcclCommName, "%s", "tp_group");
    HCCL_OK(HcclCreateSubCommConfig(&parent, 3, ids, 7, 1, &config, &again));
    HCCL_OK(HcclGetCommName(again, name));
    ck_assert_str_eq(name, "tp_group");
    ck_assert_int_eq(splits, 2);

    /* The parent goes first; its sub-communicators stay. */
    HCCL_OK(HcclCommDestroy(parent));
    HCCL_OK(HcclGetRankSize(sub, &value));
    ck_assert_uint_eq(value, 3);
    HCCL_OK(HcclCommDestroy(sub));
    HCCL_OK(HcclCommDestroy(again));
    ck_assert_int_eq(destroyed, 3);
}
END_TEST

/* A rank outside passes rankIds NULL and subCommId 0xFFFFFFFF: nothing is
 * made and the engine is not called. Every bad argument is refused before
 * the engine is. */
START_TEST(sub_communicator_arguments_are_checked)
{
    use_fake_engine();
    HcclComm parent = fake_comm(4, 1);
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    HcclComm sub = BUF;
    HCCL_OK(HcclCreateSubCommConfig(&parent, 0, NULL, 0xFFFFFFFFULL, 0, &config, &sub));
    ck_assert_ptr_eq(sub, BUF);
    HCCL_OK(HcclCreateSubCommConfig(NULL, 0, NULL, 0xFFFFFFFFULL, 0, NULL, &sub));
    sub = NULL;

    uint32_t ids[4] = {0, 1, 2, 3};
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 1, 1, &config, NULL), HCCL_E_PTR,
               "subComm is NULL");
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, NULL, 1, 1, &config, &sub), HCCL_E_PARA,
               "rankIds is NULL and subCommId is 1");
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 0xFFFFFFFFULL, 1, &config, &sub),
               HCCL_E_PARA, "rankIds is set and subCommId is 4294967295");
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 0, ids, 1, 0, &config, &sub), HCCL_E_PARA,
               "rankNum is 0");
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 1, 2, &config, &sub), HCCL_E_PARA,
               "subCommRankId 2 is not below rankNum 2");
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 1, 1, NULL, &sub), HCCL_E_PTR,
               "config is NULL");
    HCCL_FAILS(HcclCreateSubCommConfig(NULL, 2, ids, 1, 1, &config, &sub), HCCL_E_PTR,
               "comm is NULL");
    HcclComm foreign = (HcclComm)(uintptr_t)0x1239;
    HCCL_FAILS(HcclCreateSubCommConfig(&foreign, 2, ids, 1, 1, &config, &sub), HCCL_E_PARA,
               "not a communicator");
    uint32_t too_many[5] = {0, 1, 2, 3, 4};
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 5, too_many, 1, 1, &config, &sub), HCCL_E_PARA,
               "rankNum 5 is more than the 4 ranks of comm");
    uint32_t outside[2] = {1, 4};
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, outside, 1, 0, &config, &sub), HCCL_E_PARA,
               "rankIds[1] is 4, not a rank of comm (4 ranks)");
    uint32_t twice[3] = {1, 2, 1};
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 3, twice, 1, 0, &config, &sub), HCCL_E_PARA,
               "rankIds[0] and rankIds[2] are both rank 1");
    uint32_t not_mine[2] = {0, 2};
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, not_mine, 1, 1, &config, &sub), HCCL_E_PARA,
               "rankIds[subCommRankId = 1] is 2, but this rank is rank 1 of comm");
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 1, 0, &config, &sub), HCCL_E_PARA,
               "rankIds[subCommRankId = 0] is 0");
    HcclCommConfig bad = config;
    bad.hcclExecTimeOut = -5;
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 1, 1, &bad, &sub), HCCL_E_PARA,
               "hcclExecTimeOut is -5");
    HCCL_OK(HcclGroupStart());
    HCCL_FAILS(HcclCreateSubCommConfig(&parent, 2, ids, 1, 1, &config, &sub), HCCL_E_PARA,
               "between HcclGroupStart and HcclGroupEnd");
    HCCL_OK(HcclGroupEnd());
    ck_assert_int_eq(splits, 0);
    ck_assert_ptr_null(sub);
    HCCL_OK(HcclCommDestroy(parent));
}
END_TEST

/* ---- rank tables ------------------------------------------------------------ */

START_TEST(rank_tables_map_ranks_to_servers_and_devices)
{
    hccl_rank_table table;
    HCCL_OK(hccl_rank_table_load("test", fixture("flat_1.0.json"), &table));
    ck_assert_str_eq(table.version, "1.0");
    ck_assert_uint_eq(table.nranks, 4);
    ck_assert_uint_eq(table.nservers, 2);
    ck_assert_str_eq(table.ranks[0].server_id, "10.0.0.1");
    ck_assert_str_eq(table.ranks[0].server_address, "10.0.0.1");
    ck_assert_str_eq(table.ranks[0].address_field, "server_id");
    ck_assert_int_eq(table.ranks[1].device, 1);
    ck_assert_str_eq(table.ranks[1].device_ip, "192.168.1.11");
    ck_assert_int_eq(table.ranks[2].device, 0);
    ck_assert_int_eq(table.ranks[3].device, 1);
    ck_assert_str_eq(table.ranks[3].server_id, "10.0.0.2");
    ck_assert_str_eq(table.ranks[3].server_address, "172.17.0.2");
    ck_assert_str_eq(table.ranks[3].address_field, "container_ip");
    ck_assert_int_eq(table.ranks[3].super_device_id, -1);
    hccl_rank_table_free(&table);

    HCCL_OK(hccl_rank_table_load("test", fixture("grouped_1.0.json"), &table));
    ck_assert_uint_eq(table.nranks, 2);
    ck_assert_str_eq(table.ranks[0].server_id, "node-b");
    ck_assert_str_eq(table.ranks[0].server_address, "10.1.0.2");
    ck_assert_str_eq(table.ranks[0].address_field, "server_ip");
    ck_assert_int_eq(table.ranks[0].device, 3);
    ck_assert_str_eq(table.ranks[1].server_id, "node-a");
    ck_assert_int_eq(table.ranks[1].device, 0);
    hccl_rank_table_free(&table);

    HCCL_OK(hccl_rank_table_load("test", fixture("super_pod_1.2.json"), &table));
    ck_assert_str_eq(table.version, "1.2");
    ck_assert_uint_eq(table.nranks, 3);
    ck_assert_int_eq(table.ranks[1].device, 7);
    ck_assert_int_eq(table.ranks[1].super_device_id, 38600711);
    ck_assert_str_eq(table.ranks[1].super_pod_id, "0");
    ck_assert_str_eq(table.ranks[2].super_pod_id, "1");
    hccl_rank_table_free(&table);
}
END_TEST

START_TEST(bad_rank_tables_name_the_field)
{
    static const struct {
        const char *file;
        HcclResult code;
        const char *words;
    } files[] = {
        {"bad_not_json.json", HCCL_E_PARA, "not JSON"},
        {"bad_rank_id_number.json", HCCL_E_PARA,
         "server_list[0].device[0].rank_id must be a string"},
        {"bad_rank_missing.json", HCCL_E_PARA, "server_list[0].device[1].rank_id is 2"},
        {"bad_super_device_id.json", HCCL_E_PARA,
         "server_list[0].device[0].super_device_id is missing"},
        {"bad_server_count.json", HCCL_E_PARA, "server_count is 3"},
        {"no_such_file.json", HCCL_E_OPEN_FILE_FAILURE, "cannot be opened"},
        {"", HCCL_E_OPEN_FILE_FAILURE, "not a regular file"},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        hccl_rank_table table;
        HCCL_FAILS(hccl_rank_table_load("test", fixture(files[i].file), &table), files[i].code,
                   files[i].words);
    }
    static const struct {
        const char *json;
        const char *words;
    } texts[] = {
        {"[]", "not a JSON object"},
        {"{\"server_list\": []}", "version is missing"},
        {"{\"version\": \"2.0\", \"server_list\": []}", "version is \"2.0\""},
        {"{\"version\": \"1.0\", \"status\": \"initializing\", \"server_list\": []}",
         "status is \"initializing\""},
        {"{\"version\": \"1.0\"}", "server_list is missing"},
        {"{\"version\": \"1.0\", \"server_list\": {}}", "server_list must be a list"},
        {"{\"version\": \"1.0\", \"server_list\": []}", "no server lists a device"},
        {"{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": "
         "[{\"device_id\": \"0\", \"rank_id\": \"0\"}]}, {\"server_id\": \"b\", \"device\": []}]}",
         "server_list[1].device lists no device"},
        {"{\"version\": \"1.0\", \"server_list\": [{\"device\": [{\"device_id\": \"0\", "
         "\"rank_id\": \"0\"}]}]}",
         "server_list[0].server_id is missing"},
        {"{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": "
         "[{\"device_id\": \"x\", \"rank_id\": \"0\"}]}]}",
         "server_list[0].device[0].device_id is \"x\""},
        {"{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": "
         "[{\"device_id\": \"0\", \"rank_id\": \"0\"}, {\"device_id\": \"1\", \"rank_id\": "
         "\"0\"}]}]}",
         "server_list[0].device[1].rank_id: rank 0 is listed twice"},
        {"{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": "
         "[{\"device_id\": \"0\", \"rank_id\": \"0\"}, {\"device_id\": \"0\", \"rank_id\": "
         "\"1\"}]}]}",
         "device 0 of server a is listed twice"},
        {"{\"version\": \"1.0\", \"server_group_list\": [{\"server_list\": [{\"server_id\": "
         "\"a\", \"device\": [{\"device_id\": 0, \"rank_id\": \"0\"}]}]}]}",
         "server_group_list[0].server_list[0].device[0].device_id must be a string"},
        {"{\"version\": \"1.2\", \"server_list\": [{\"server_id\": \"a\", \"device\": "
         "[{\"device_id\": \"0\", \"rank_id\": \"0\", \"super_device_id\": \"1\"}]}], "
         "\"super_pod_list\": [{\"super_pod_id\": \"0\", \"server_list\": [{\"server_id\": "
         "\"b\"}]}]}",
         "super_pod_list[0].server_list[0].server_id \"b\" is no server"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        hccl_rank_table table;
        HCCL_FAILS(hccl_rank_table_parse("test", texts[i].json, strlen(texts[i].json), &table),
                   HCCL_E_PARA, texts[i].words);
    }
}
END_TEST

START_TEST(cluster_init_checks_the_rank_and_its_device)
{
    use_fake_engine();
    HcclComm comm;
    HCCL_FAILS(HcclCommInitClusterInfo(fixture("no_such_file.json"), 0, &comm),
               HCCL_E_OPEN_FILE_FAILURE, "cannot be opened");
    HCCL_FAILS(HcclCommInitClusterInfo(fixture("flat_1.0.json"), 4, &comm), HCCL_E_PARA,
               "rank 4 is not in rank table");
    HCCL_FAILS(HcclCommInitClusterInfo(fixture("single_device1.json"), 0, &comm), HCCL_E_PARA,
               "call aclrtSetDevice(1) first");
    HCCL_FAILS(HcclCommInitClusterInfo(fixture("bad_rank_missing.json"), 0, &comm), HCCL_E_PARA,
               "rank_id is 2");

    /* A table of one rank needs no rendezvous. */
    HCCL_OK(HcclCommInitClusterInfo(fixture("single_device0.json"), 0, &comm));
    char name[COMM_NAME_MAX_LENGTH];
    HCCL_OK(HcclGetCommName(comm, name));
    ck_assert_str_eq(name, "hccl_world_group");
    uint32_t size;
    HCCL_OK(HcclGetRankSize(comm, &size));
    ck_assert_uint_eq(size, 1);
    HCCL_OK(HcclCommDestroy(comm));
}
END_TEST

START_TEST(environment_values_out_of_range_fall_back)
{
    setenv("HCCL_CONNECT_TIMEOUT", "30", 1); /* below CANN's 120 */
    setenv("HCCL_EXEC_TIMEOUT", "0", 1);
    setenv("HCCL_IF_BASE_PORT", "port", 1);
    use_fake_engine();
    HcclComm comm = fake_comm(2, 0);
    ck_assert(last_join.connect_timeout_s == 120);
    ck_assert(last_join.exec_timeout_s == 2147483647.0);
    HCCL_OK(HcclCommDestroy(comm));
}
END_TEST

/* ---- without an engine ---------------------------------------------------- */

START_TEST(missing_engine_refuses_every_call_saying_why)
{
#if defined(ACLCUDA_HAVE_GLOO) && defined(ACLCUDA_HAVE_NCCL)
    return; /* both engines are built in: nothing is missing */
#else
    const char *backend = aclcudaGetBackendName();
#ifdef ACLCUDA_HAVE_GLOO
    if (strcmp(backend, "cuda") != 0)
        return;
    const char *why = "built without NCCL";
#elif defined(ACLCUDA_HAVE_NCCL)
    if (strcmp(backend, "host") != 0)
        return;
    const char *why = "built without Gloo (install libgloo-dev and reconfigure)";
#else
    const char *why = strcmp(backend, "host") == 0
                          ? "built without Gloo (install libgloo-dev and reconfigure)"
                          : "built without NCCL";
#endif
    ck_assert_int_eq(aclrtSetDevice(0), ACL_SUCCESS);
    HcclRootInfo root;
    HcclComm comm;
    int32_t devices[1] = {0};
    HCCL_FAILS(HcclGetRootInfo(&root), HCCL_E_NOT_SUPPORT, why);
    HCCL_FAILS(HcclCommInitClusterInfo(fixture("single_device0.json"), 0, &comm),
               HCCL_E_NOT_SUPPORT, why);
    HCCL_FAILS(HcclCommInitAll(1, devices, &comm), HCCL_E_NOT_SUPPORT, why);
    HCCL_FAILS(HcclGroupStart(), HCCL_E_NOT_SUPPORT, why);
    /* No root info can be made, so none can be read either. */
    memset(&root, 0, sizeof root);
    HCCL_FAILS(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_E_PARA,
               "not made by HcclGetRootInfo");
#endif
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hccl api");
    TCase *values = tcase_create("values");
    tcase_add_test(values, error_strings_name_every_code);
    tcase_add_test(values, types_have_cann_layouts);
    tcase_add_test(values, config_init_sets_every_field);
    tcase_add_test(values, sha256_known_answers);
    suite_add_tcase(s, values);
    TCase *args = tcase_create("arguments");
    tcase_add_test(args, zero_counts_succeed_before_any_check);
    tcase_add_test(args, null_pointers_are_e_ptr);
    tcase_add_test(args, foreign_comms_are_e_para);
    tcase_add_test(args, bad_values_are_refused_with_cann_codes);
    tcase_add_test(args, refused_functions_say_why);
    suite_add_tcase(s, args);
    TCase *comms = tcase_create("communicators");
    tcase_add_test(comms, collectives_reach_the_engine_as_described);
    tcase_add_test(comms, communicators_live_until_destroyed);
    tcase_add_test(comms, init_checks_ranks_and_root_info);
    tcase_add_test(comms, configs_are_read_and_checked);
    tcase_add_test(comms, comm_names_are_one_per_device);
    tcase_add_test(comms, init_all_makes_one_comm_per_device);
    tcase_add_test(comms, sub_communicators_reach_the_engine_as_described);
    tcase_add_test(comms, sub_communicator_arguments_are_checked);
    tcase_add_test(comms, groups_nest_per_thread);
    tcase_add_test(comms, environment_values_out_of_range_fall_back);
    tcase_add_test(comms, missing_engine_refuses_every_call_saying_why);
    suite_add_tcase(s, comms);
    TCase *tables = tcase_create("rank tables");
    tcase_add_test(tables, rank_tables_map_ranks_to_servers_and_devices);
    tcase_add_test(tables, bad_rank_tables_name_the_field);
    tcase_add_test(tables, cluster_init_checks_the_rank_and_its_device);
    suite_add_tcase(s, tables);
    return s;
}

int main(void)
{
    setenv("ACLCUDA_BACKEND", "host", 0);
    return acltest_run(suite());
}
