/* What a collective engine gives libhccl: NCCL on the cuda backend, Gloo on
 * the host backend. The API layer (api.c) checks every argument, resolves the
 * communicator and describes the call as one hccl_op; an engine only runs
 * ops, queued in order on the ACL stream it is given. Engines are clients of
 * libascendcl's public API (acl/acl.h, acl/acl_cuda.h), like the rest of
 * libhccl. */
#ifndef ACLCUDA_HCCL_ENGINE_H
#define ACLCUDA_HCCL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "hccl/hccl_types.h"

/* The Gloo engine (C++) includes it too. */
#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of HcclRootInfo an engine may use for what its ranks need to meet
 * (the rest of the 4108 carry libhccl's own header, root_info.h). */
#define HCCL_ENGINE_ROOT_BYTES 3968

typedef enum {
    HCCL_OP_ALLREDUCE,
    HCCL_OP_BROADCAST,
    HCCL_OP_REDUCE,
    HCCL_OP_ALLGATHER,
    HCCL_OP_ALLGATHERV,
    HCCL_OP_REDUCE_SCATTER,
    HCCL_OP_REDUCE_SCATTERV,
    HCCL_OP_SCATTER,
    HCCL_OP_ALLTOALL,  /* counts/displs filled in per peer by the API layer */
    HCCL_OP_ALLTOALLV, /* and HcclAlltoAllVC, whose matrix row becomes counts */
    HCCL_OP_SEND,
    HCCL_OP_RECV,
    HCCL_OP_BATCH_SEND_RECV,
    HCCL_OP_BARRIER,
} hccl_op_kind;

/* One collective, as the caller gave it, checked. Counts are in elements of
 * dtype; the arrays are copies owned by the op (the caller's may change once
 * the call returned). The API layer allocates the op (hccl_op_new) and hands it
 * to submit, which owns it from then on, whether it succeeds or fails;
 * hccl_op_free frees the arrays and the op. What each kind uses:
 *   ALLREDUCE, REDUCE     send, recv, count, reduce (REDUCE: root)
 *   BROADCAST             send == recv == the buffer, count, root
 *   ALLGATHER             send, recv, count (elements each rank sends)
 *   ALLGATHERV            send, recv, count (this rank's), recv_counts, recv_displs
 *   REDUCE_SCATTER        send, recv, count (elements each rank receives), reduce
 *   REDUCE_SCATTERV       send, recv, count (this rank's), send_counts,
 *                         send_displs, reduce
 *   SCATTER               send (read on root), recv, count (per rank), root
 *   ALLTOALL, ALLTOALLV   send, recv and all four arrays (HcclAlltoAll's filled
 *                         in per peer: count each, displacement i * count;
 *                         HcclAlltoAllVC's from its matrix, packed); count 0
 *   SEND / RECV           send / recv, count, peer
 *   BATCH_SEND_RECV       items (each with its own type), item_count; dtype
 *                         HCCL_DATA_TYPE_RESERVED
 *   BARRIER               nothing */
typedef struct hccl_op {
    hccl_op_kind kind;
    HcclDataType dtype;
    HcclReduceOp reduce; /* HCCL_REDUCE_RESERVED when the kind reduces nothing */
    const void *send;
    void *recv;
    uint64_t count;
    uint32_t root;
    uint32_t peer;
    uint64_t *send_counts; /* [nranks] */
    uint64_t *send_displs; /* [nranks] */
    uint64_t *recv_counts; /* [nranks] */
    uint64_t *recv_displs; /* [nranks] */
    HcclSendRecvItem *items;
    uint32_t item_count;
} hccl_op;

typedef struct hccl_engine_comm hccl_engine_comm; /* an engine's own communicator */

/* How one rank joins a communicator. root_bytes are what the engine's
 * root_info wrote on rank 0: the program carried them in HcclRootInfo, or a
 * rank table's rendezvous (rendezvous.h) handed them to every rank. */
typedef struct hccl_join {
    uint32_t nranks;
    uint32_t rank;
    int32_t device;                  /* the ACL device current at init */
    const unsigned char *root_bytes; /* HCCL_ENGINE_ROOT_BYTES */
    double connect_timeout_s;        /* HCCL_CONNECT_TIMEOUT */
    double exec_timeout_s;           /* HCCL_EXEC_TIMEOUT or the config's; its
                                        0 (no limit) arrives as INT32_MAX s */
} hccl_join;

/* How one rank joins a communicator of some of its parent's ranks
 * (HcclCreateSubCommConfig). Only those ranks take part: the parent's
 * others need not call at all, as with CANN. */
typedef struct hccl_split {
    uint32_t nranks;          /* the sub-communicator's */
    const uint32_t *ranks;    /* [nranks]: each sub-rank's rank in the parent */
    uint32_t rank;            /* this rank's in the sub-communicator */
    uint64_t id;              /* the caller's subCommId */
    double connect_timeout_s; /* HCCL_CONNECT_TIMEOUT */
    double exec_timeout_s;    /* as in hccl_join */
} hccl_split;

typedef struct hccl_engine {
    const char *name; /* "nccl", "gloo" */
    /* Fills HCCL_ENGINE_ROOT_BYTES bytes with what ranks need to join. */
    HcclResult (*root_info)(unsigned char *out);
    HcclResult (*comm_init)(const hccl_join *join, hccl_engine_comm **comm);
    /* One communicator per listed device, in this process. */
    HcclResult (*comm_init_all)(uint32_t ndev, const int32_t *devices, hccl_engine_comm **comms);
    /* A communicator of split->ranks of parent, on parent's device; parent
     * stays usable. */
    HcclResult (*comm_split)(hccl_engine_comm *parent, const hccl_split *split,
                             hccl_engine_comm **comm);
    /* Waits for the ops queued on the communicator, then frees it; never hangs
     * past the exec timeout (the engine aborts instead). */
    HcclResult (*comm_destroy)(hccl_engine_comm *comm);
    /* Queues op on stream in stream order. The engine owns op afterwards
     * (it may keep it alive for a captured model's replays). */
    HcclResult (*submit)(hccl_engine_comm *comm, hccl_op *op, aclrtStream stream);
    HcclResult (*group_start)(void);
    HcclResult (*group_end)(void);
    HcclResult (*async_error)(hccl_engine_comm *comm, HcclResult *error);
    /* NULL when every type and reduce op is supported; else a message for
     * one the engine cannot reduce. */
    const char *(*unsupported)(HcclDataType dtype, HcclReduceOp op);
} hccl_engine;

extern const hccl_engine hccl_engine_nccl;
extern const hccl_engine hccl_engine_gloo;

/* An op of kind on count elements of dtype from send to recv, the rest
 * zero (reduce: HCCL_REDUCE_RESERVED); NULL when out of memory. */
hccl_op *hccl_op_new(hccl_op_kind kind, HcclDataType dtype, const void *send, void *recv,
                     uint64_t count);
void hccl_op_free(hccl_op *op);

/* Bytes per element of dtype; 0 for a type HCCL does not define. */
size_t hccl_dtype_size(HcclDataType dtype);

/* A message for the most recent error on this thread (HcclGetLastErrorMsg /
 * logs); engines call it with the reason before returning a code. */
void hccl_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif
