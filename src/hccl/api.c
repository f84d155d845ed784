/* The collectives of hccl.h, and HcclBarrier: each checks its arguments in
 * CANN's order (a zero count first: nothing to do is a success; then NULL
 * pointers; then the communicator; then counts, types and ranks) and queues
 * one op. Data types and reduce ops follow CANN's rules: a type no
 * collective takes, or one this collective cannot reduce, is
 * HCCL_E_NOT_SUPPORT, as CANN returns it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl/api.h"
#include "hccl/hccl.h"

/* CANN's largest count. */
#define MAX_COUNT 0x7FFFFFFFFULL

HcclResult hccl_submit(const char *api, hccl_comm *comm, hccl_op *op, aclrtStream stream)
{
    if (!op) {
        hccl_comm_put(comm);
        return hccl_raise(api, HCCL_E_MEMORY, "out of memory for the collective");
    }
    hccl_clear_error();
    HcclResult err = comm->engine->submit(comm->engine_comm, op, stream);
    hccl_comm_put(comm);
    return err ? hccl_raise_engine(api, err) : HCCL_SUCCESS;
}

/* Names for messages. */
static const char *dtype_name(HcclDataType dtype)
{
    static const char *const names[] = {
        "INT8",   "INT16", "INT32", "FP16",   "FP32", "INT64", "UINT64",  "UINT8",   "UINT16",
        "UINT32", "FP64",  "BFP16", "INT128", "",     "HIF8",  "FP8E4M3", "FP8E5M2", "FP8E8M0",
    };
    if ((unsigned)dtype < sizeof names / sizeof *names && names[dtype][0])
        return names[dtype];
    return "not a data type";
}

static HcclResult check_count(const char *api, const char *what, uint64_t count)
{
    if (count > MAX_COUNT)
        return hccl_raise(api, HCCL_E_PARA, "%s %llu is more than the largest count, %llu", what,
                          (unsigned long long)count, MAX_COUNT);
    return HCCL_SUCCESS;
}

/* A type this collective moves; reduce: one it can also reduce with op. */
static HcclResult check_type(const char *api, const hccl_comm *comm, const char *what,
                             HcclDataType dtype, bool reduce, HcclReduceOp op)
{
    if (hccl_dtype_size(dtype) == 0)
        return hccl_raise(api, HCCL_E_NOT_SUPPORT, "%s %d is not an HcclDataType", what,
                          (int)dtype);
    if (!reduce) {
        if (dtype == HCCL_DATA_TYPE_INT128)
            return hccl_raise(api, HCCL_E_NOT_SUPPORT, "%s INT128 is moved by no collective", what);
        return HCCL_SUCCESS;
    }
    switch (dtype) {
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_INT128:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0:
        return hccl_raise(api, HCCL_E_NOT_SUPPORT,
                          "%s %s is not reduced by HCCL (INT8, INT16, INT32, INT64, UINT64, FP16, "
                          "FP32, FP64 and BFP16 are)",
                          what, dtype_name(dtype));
    default:
        break;
    }
    if ((unsigned)op > HCCL_REDUCE_MIN)
        return hccl_raise(api, HCCL_E_NOT_SUPPORT,
                          "op %d is not an HcclReduceOp (SUM 0, PROD 1, MAX 2, MIN 3)", (int)op);
    if (op == HCCL_REDUCE_PROD && (dtype == HCCL_DATA_TYPE_INT16 || dtype == HCCL_DATA_TYPE_BFP16))
        return hccl_raise(api, HCCL_E_NOT_SUPPORT,
                          "HCCL_REDUCE_PROD does not take %s %s (INT8, INT32, INT64, UINT64, "
                          "FP16, FP32 and FP64 it does)",
                          what, dtype_name(dtype));
    const char *engine_refusal = comm->engine->unsupported(dtype, op);
    if (engine_refusal)
        return hccl_raise(api, HCCL_E_NOT_SUPPORT, "%s", engine_refusal);
    return HCCL_SUCCESS;
}

static HcclResult check_rank(const char *api, const hccl_comm *comm, const char *what,
                             uint32_t rank)
{
    if (rank >= comm->nranks)
        return hccl_raise(api, HCCL_E_PARA, "%s %u is not a rank of the communicator (0 to %u)",
                          what, rank, comm->nranks - 1);
    return HCCL_SUCCESS;
}

/* Gives comm back and returns err: every exit after the lookup goes through
 * here or hccl_submit. */
static HcclResult give_back(hccl_comm *comm, HcclResult err)
{
    hccl_comm_put(comm);
    return err;
}

/* A copy of an array of n counts; NULL when out of memory. */
static uint64_t *copy_counts(const void *counts, uint32_t n)
{
    uint64_t *copy = malloc((size_t)n * sizeof *copy);
    if (copy)
        memcpy(copy, counts, (size_t)n * sizeof *copy);
    return copy;
}

static bool all_zero(const uint64_t *counts, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (counts[i])
            return false;
    return true;
}

static HcclResult check_counts(const char *api, const char *what, const uint64_t *counts,
                               uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (counts[i] > MAX_COUNT)
            return hccl_raise(api, HCCL_E_PARA, "%s[%u] %llu is more than the largest count, %llu",
                              what, i, (unsigned long long)counts[i], MAX_COUNT);
    return HCCL_SUCCESS;
}

/* The checks after the communicator's lookup that most collectives make in
 * this order: the count, then the data type (reduce: also the op). */
static HcclResult check_count_type(const char *api, const hccl_comm *c, const char *count_name,
                                   uint64_t count, HcclDataType dtype, bool reduce, HcclReduceOp op)
{
    HcclResult err = check_count(api, count_name, count);
    if (!err)
        err = check_type(api, c, "dataType", dtype, reduce, op);
    return err;
}

/* HcclAllReduce, HcclAllGather and HcclReduceScatter: one count of one type
 * from sendBuf to recvBuf on every rank; reduce: with op. */
static HcclResult every_rank(const char *api, hccl_op_kind kind, void *sendBuf, void *recvBuf,
                             const char *count_name, uint64_t count, HcclDataType dataType,
                             bool reduce, HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    if (count == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR_IN(api, stream);
    HCCL_REQUIRE_PTR_IN(api, comm);
    HCCL_REQUIRE_PTR_IN(api, sendBuf);
    HCCL_REQUIRE_PTR_IN(api, recvBuf);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(api, comm, &c);
    if (err)
        return err;
    err = check_count_type(api, c, count_name, count, dataType, reduce, op);
    if (err)
        return give_back(c, err);
    hccl_op *o = hccl_op_new(kind, dataType, sendBuf, recvBuf, count);
    if (o && reduce)
        o->reduce = op;
    return hccl_submit(api, c, o, stream);
}

HCCL_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                                     HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                     aclrtStream stream)
{
    return every_rank(__func__, HCCL_OP_ALLREDUCE, sendBuf, recvBuf, "count", count, dataType, true,
                      op, comm, stream);
}

HCCL_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
                                     uint32_t root, HcclComm comm, aclrtStream stream)
{
    if (count == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(buf);
    HCCL_REQUIRE_PTR(stream);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    err = check_rank(__func__, c, "root", root);
    if (!err)
        err = check_count_type(__func__, c, "count", count, dataType, false, HCCL_REDUCE_RESERVED);
    if (err)
        return give_back(c, err);
    hccl_op *o = hccl_op_new(HCCL_OP_BROADCAST, dataType, buf, buf, count);
    if (o)
        o->root = root;
    return hccl_submit(__func__, c, o, stream);
}

HCCL_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
                                  HcclDataType dataType, HcclReduceOp op, uint32_t root,
                                  HcclComm comm, aclrtStream stream)
{
    if (count == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendBuf);
    HCCL_REQUIRE_PTR(recvBuf);
    HCCL_REQUIRE_PTR(stream);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    err = check_count_type(__func__, c, "count", count, dataType, true, op);
    if (!err)
        err = check_rank(__func__, c, "root", root);
    if (err)
        return give_back(c, err);
    hccl_op *o = hccl_op_new(HCCL_OP_REDUCE, dataType, sendBuf, recvBuf, count);
    if (o) {
        o->reduce = op;
        o->root = root;
    }
    return hccl_submit(__func__, c, o, stream);
}

HCCL_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                     HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    return every_rank(__func__, HCCL_OP_ALLGATHER, sendBuf, recvBuf, "sendCount", sendCount,
                      dataType, false, HCCL_REDUCE_RESERVED, comm, stream);
}

/* The names of a v-collective's arguments, for messages: its vector side
 * (counts and displacements per rank, and a buffer) and its one-count side,
 * which moves counts[rank]. */
typedef struct vector_names {
    const char *buf;    /* the vector side's buffer */
    const char *count;  /* the one count */
    const char *counts; /* the vector of counts */
    const char *moves;  /* what this rank does with count */
} vector_names;

/* HcclAllGatherV and HcclReduceScatterV after their pointer checks: nothing
 * to do when every count is 0; else vector_buf, the counts, counts[rank] ==
 * count and the type (reduce: with op), then one op for kind with the
 * counts and displacements copied. */
static HcclResult vector_collective(const char *api, hccl_op_kind kind, const vector_names *names,
                                    void *vector_buf, void *one_buf, uint64_t count,
                                    const uint64_t *counts, const void *displs,
                                    HcclDataType dataType, bool reduce, HcclReduceOp op,
                                    HcclComm comm, aclrtStream stream)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(api, comm, &c);
    if (err)
        return err;
    if (all_zero(counts, c->nranks) && count == 0)
        return give_back(c, HCCL_SUCCESS);
    if (!vector_buf)
        return give_back(c, hccl_raise(api, HCCL_E_PTR, "%s is NULL", names->buf));
    err = check_count(api, names->count, count);
    if (!err)
        err = check_counts(api, names->counts, counts, c->nranks);
    if (!err && counts[c->rank] != count)
        err = hccl_raise(api, HCCL_E_PARA, "%s[%u] is %llu but this rank (%u) %s %s %llu",
                         names->counts, c->rank, (unsigned long long)counts[c->rank], c->rank,
                         names->moves, names->count, (unsigned long long)count);
    if (!err)
        err = check_type(api, c, "dataType", dataType, reduce, op);
    if (err)
        return give_back(c, err);
    bool gathers = kind == HCCL_OP_ALLGATHERV;
    hccl_op *o = hccl_op_new(kind, dataType, gathers ? one_buf : vector_buf,
                             gathers ? vector_buf : one_buf, count);
    if (o) {
        if (reduce)
            o->reduce = op;
        uint64_t **op_counts = gathers ? &o->recv_counts : &o->send_counts;
        uint64_t **op_displs = gathers ? &o->recv_displs : &o->send_displs;
        *op_counts = copy_counts(counts, c->nranks);
        *op_displs = copy_counts(displs, c->nranks);
        if (!*op_counts || !*op_displs) {
            hccl_op_free(o);
            o = NULL;
        }
    }
    return hccl_submit(api, c, o, stream);
}

HCCL_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                      const void *recvCounts, const void *recvDispls,
                                      HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    static const vector_names names = {"recvBuf", "sendCount", "recvCounts", "sends"};
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(recvCounts);
    HCCL_REQUIRE_PTR(recvDispls);
    HCCL_REQUIRE_PTR(stream);
    if (sendCount > 0)
        HCCL_REQUIRE_PTR(sendBuf);
    return vector_collective(__func__, HCCL_OP_ALLGATHERV, &names, recvBuf, sendBuf, sendCount,
                             recvCounts, recvDispls, dataType, false, HCCL_REDUCE_RESERVED, comm,
                             stream);
}

HCCL_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                         HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                         aclrtStream stream)
{
    return every_rank(__func__, HCCL_OP_REDUCE_SCATTER, sendBuf, recvBuf, "recvCount", recvCount,
                      dataType, true, op, comm, stream);
}

HCCL_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts,
                                          const void *sendDispls, void *recvBuf, uint64_t recvCount,
                                          HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                          aclrtStream stream)
{
    static const vector_names names = {"sendBuf", "recvCount", "sendCounts", "receives"};
    HCCL_REQUIRE_PTR(stream);
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendCounts);
    HCCL_REQUIRE_PTR(sendDispls);
    if (recvCount > 0)
        HCCL_REQUIRE_PTR(recvBuf);
    return vector_collective(__func__, HCCL_OP_REDUCE_SCATTERV, &names, sendBuf, recvBuf, recvCount,
                             sendCounts, sendDispls, dataType, true, op, comm, stream);
}

HCCL_EXPORT HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                   HcclDataType dataType, uint32_t root, HcclComm comm,
                                   aclrtStream stream)
{
    if (recvCount == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(recvBuf);
    HCCL_REQUIRE_PTR(stream);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    if (c->rank == root && !sendBuf)
        return give_back(c, HCCL_RAISE(HCCL_E_PTR, "sendBuf is NULL on the root"));
    err = check_rank(__func__, c, "root", root);
    if (!err)
        err = check_count_type(__func__, c, "recvCount", recvCount, dataType, false,
                               HCCL_REDUCE_RESERVED);
    if (err)
        return give_back(c, err);
    hccl_op *o = hccl_op_new(HCCL_OP_SCATTER, dataType, sendBuf, recvBuf, recvCount);
    if (o)
        o->root = root;
    return hccl_submit(__func__, c, o, stream);
}

static HcclResult point_to_point(const char *api, hccl_op_kind kind, void *buf, uint64_t count,
                                 HcclDataType dataType, uint32_t peer, HcclComm comm,
                                 aclrtStream stream)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(api, comm, &c);
    if (err)
        return err;
    err = check_count_type(api, c, "count", count, dataType, false, HCCL_REDUCE_RESERVED);
    if (!err)
        err = check_rank(api, c, kind == HCCL_OP_SEND ? "destRank" : "srcRank", peer);
    if (!err && !stream)
        err = hccl_raise(api, HCCL_E_PTR, "stream is NULL");
    if (err)
        return give_back(c, err);
    hccl_op *o = hccl_op_new(kind, dataType, kind == HCCL_OP_SEND ? buf : NULL,
                             kind == HCCL_OP_RECV ? buf : NULL, count);
    if (o)
        o->peer = peer;
    return hccl_submit(api, c, o, stream);
}

HCCL_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
                                uint32_t destRank, HcclComm comm, aclrtStream stream)
{
    if (count == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendBuf);
    return point_to_point(__func__, HCCL_OP_SEND, sendBuf, count, dataType, destRank, comm, stream);
}

HCCL_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
                                uint32_t srcRank, HcclComm comm, aclrtStream stream)
{
    if (count == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(recvBuf);
    return point_to_point(__func__, HCCL_OP_RECV, recvBuf, count, dataType, srcRank, comm, stream);
}

/* An all-to-all moves one type: CANN requires sendType == recvType. */
static HcclResult check_alltoall_types(const char *api, const hccl_comm *c, HcclDataType sendType,
                                       HcclDataType recvType)
{
    HcclResult err = check_type(api, c, "sendType", sendType, false, HCCL_REDUCE_RESERVED);
    if (!err)
        err = check_type(api, c, "recvType", recvType, false, HCCL_REDUCE_RESERVED);
    if (!err && sendType != recvType)
        err = hccl_raise(api, HCCL_E_PARA, "sendType %s and recvType %s differ",
                         dtype_name(sendType), dtype_name(recvType));
    return err;
}

/* A side that moves anything needs its buffer. */
static HcclResult check_alltoall_bufs(const char *api, const void *sendBuf, bool sends,
                                      const void *recvBuf, bool receives)
{
    if (sends && !sendBuf)
        return hccl_raise(api, HCCL_E_PTR, "sendBuf is NULL");
    if (receives && !recvBuf)
        return hccl_raise(api, HCCL_E_PTR, "recvBuf is NULL");
    return HCCL_SUCCESS;
}

/* displs[i] = the sum of counts before i. */
static uint64_t *packed_displs(const uint64_t *counts, uint32_t n)
{
    uint64_t *displs = malloc((size_t)n * sizeof *displs);
    uint64_t at = 0;
    for (uint32_t i = 0; displs && i < n; i++) {
        displs[i] = at;
        at += counts[i];
    }
    return displs;
}

static hccl_op *alltoall_op(HcclDataType dtype, const void *send, const void *recv,
                            uint64_t *send_counts, uint64_t *send_displs, uint64_t *recv_counts,
                            uint64_t *recv_displs)
{
    hccl_op *o = hccl_op_new(HCCL_OP_ALLTOALLV, dtype, send, (void *)recv, 0);
    if (o) {
        o->send_counts = send_counts;
        o->send_displs = send_displs;
        o->recv_counts = recv_counts;
        o->recv_displs = recv_displs;
    }
    if (!o || !send_counts || !send_displs || !recv_counts || !recv_displs) {
        if (o) {
            hccl_op_free(o);
        } else {
            free(send_counts);
            free(send_displs);
            free(recv_counts);
            free(recv_displs);
        }
        return NULL;
    }
    return o;
}

HCCL_EXPORT HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                    const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                                    HcclComm comm, aclrtStream stream)
{
    if (sendCount == 0 && recvCount == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendBuf);
    HCCL_REQUIRE_PTR(recvBuf);
    HCCL_REQUIRE_PTR(stream);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    if (sendCount != recvCount)
        err = HCCL_RAISE(HCCL_E_PARA, "sendCount %llu and recvCount %llu differ",
                         (unsigned long long)sendCount, (unsigned long long)recvCount);
    if (!err)
        err = check_count(__func__, "recvCount", recvCount);
    if (!err)
        err = check_alltoall_types(__func__, c, sendType, recvType);
    if (err)
        return give_back(c, err);
    uint32_t n = c->nranks;
    uint64_t *counts[4] = {malloc(n * sizeof(uint64_t)), malloc(n * sizeof(uint64_t)),
                           malloc(n * sizeof(uint64_t)), malloc(n * sizeof(uint64_t))};
    for (uint32_t i = 0; i < n && counts[0] && counts[1] && counts[2] && counts[3]; i++) {
        counts[0][i] = counts[2][i] = sendCount;
        counts[1][i] = counts[3][i] = (uint64_t)i * sendCount;
    }
    hccl_op *o =
        alltoall_op(sendType, sendBuf, recvBuf, counts[0], counts[1], counts[2], counts[3]);
    if (o)
        o->kind = HCCL_OP_ALLTOALL;
    return hccl_submit(__func__, c, o, stream);
}

HCCL_EXPORT HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
                                     const void *sdispls, HcclDataType sendType,
                                     const void *recvBuf, const void *recvCounts,
                                     const void *rdispls, HcclDataType recvType, HcclComm comm,
                                     aclrtStream stream)
{
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendCounts);
    HCCL_REQUIRE_PTR(sdispls);
    HCCL_REQUIRE_PTR(recvCounts);
    HCCL_REQUIRE_PTR(rdispls);
    HCCL_REQUIRE_PTR(stream);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    uint32_t n = c->nranks;
    err = check_alltoall_bufs(__func__, sendBuf, !all_zero(sendCounts, n), recvBuf,
                              !all_zero(recvCounts, n));
    if (!err)
        err = check_counts(__func__, "sendCounts", sendCounts, n);
    if (!err)
        err = check_counts(__func__, "recvCounts", recvCounts, n);
    if (!err)
        err = check_alltoall_types(__func__, c, sendType, recvType);
    if (err)
        return give_back(c, err);
    return hccl_submit(__func__, c,
                       alltoall_op(sendType, sendBuf, recvBuf, copy_counts(sendCounts, n),
                                   copy_counts(sdispls, n), copy_counts(recvCounts, n),
                                   copy_counts(rdispls, n)),
                       stream);
}

HCCL_EXPORT HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                                      HcclDataType sendType, const void *recvBuf,
                                      HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendCountMatrix);
    HCCL_REQUIRE_PTR(stream);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    uint32_t n = c->nranks, me = c->rank;
    const uint64_t *matrix = sendCountMatrix;
    uint64_t *send_counts = malloc(n * sizeof(uint64_t)),
             *recv_counts = malloc(n * sizeof(uint64_t));
    if (!send_counts || !recv_counts) {
        free(send_counts);
        free(recv_counts);
        return give_back(c, HCCL_RAISE(HCCL_E_MEMORY, "out of memory for the collective"));
    }
    /* This rank's row is what it sends, its column what it receives. */
    for (uint32_t j = 0; j < n; j++) {
        send_counts[j] = matrix[(size_t)me * n + j];
        recv_counts[j] = matrix[(size_t)j * n + me];
    }
    err = check_alltoall_bufs(__func__, sendBuf, !all_zero(send_counts, n), recvBuf,
                              !all_zero(recv_counts, n));
    if (!err)
        err = check_counts(__func__, "sendCountMatrix", matrix, n * n);
    if (!err)
        err = check_alltoall_types(__func__, c, sendType, recvType);
    if (err) {
        free(send_counts);
        free(recv_counts);
        return give_back(c, err);
    }
    return hccl_submit(__func__, c,
                       alltoall_op(sendType, sendBuf, recvBuf, send_counts,
                                   packed_displs(send_counts, n), recv_counts,
                                   packed_displs(recv_counts, n)),
                       stream);
}

HCCL_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                                         HcclComm comm, aclrtStream stream)
{
    if (itemNum == 0)
        return HCCL_SUCCESS;
    HCCL_REQUIRE_PTR(stream);
    HCCL_REQUIRE_PTR(comm);
    HCCL_REQUIRE_PTR(sendRecvInfo);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    for (uint32_t i = 0; i < itemNum && !err; i++) {
        const HcclSendRecvItem *item = &sendRecvInfo[i];
        char what[48];
        if (item->sendRecvType != HCCL_SEND && item->sendRecvType != HCCL_RECV)
            err = HCCL_RAISE(HCCL_E_PARA,
                             "sendRecvInfo[%u].sendRecvType is %d, not HCCL_SEND or HCCL_RECV", i,
                             (int)item->sendRecvType);
        snprintf(what, sizeof what, "sendRecvInfo[%u].count", i);
        if (!err)
            err = check_count(__func__, what, item->count);
        snprintf(what, sizeof what, "sendRecvInfo[%u].dataType", i);
        if (!err)
            err = check_type(__func__, c, what, item->dataType, false, HCCL_REDUCE_RESERVED);
        snprintf(what, sizeof what, "sendRecvInfo[%u].remoteRank", i);
        if (!err)
            err = check_rank(__func__, c, what, item->remoteRank);
        if (!err && item->count && !item->buf)
            err = HCCL_RAISE(HCCL_E_PTR, "sendRecvInfo[%u].buf is NULL", i);
    }
    if (err)
        return give_back(c, err);
    hccl_op *o = hccl_op_new(HCCL_OP_BATCH_SEND_RECV, HCCL_DATA_TYPE_RESERVED, NULL, NULL, 0);
    if (o) {
        o->items = malloc((size_t)itemNum * sizeof *o->items);
        o->item_count = itemNum;
        if (o->items) {
            memcpy(o->items, sendRecvInfo, (size_t)itemNum * sizeof *o->items);
        } else {
            hccl_op_free(o);
            o = NULL;
        }
    }
    return hccl_submit(__func__, c, o, stream);
}

HCCL_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    HCCL_REQUIRE_PTR(stream);
    HCCL_REQUIRE_PTR(comm);
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    return hccl_submit(
        __func__, c, hccl_op_new(HCCL_OP_BARRIER, HCCL_DATA_TYPE_RESERVED, NULL, NULL, 0), stream);
}
