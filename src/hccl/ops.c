/* What engines share with the API layer about ops and types. */
#include <stdlib.h>

#include "hccl/engine.h"

hccl_op *hccl_op_new(hccl_op_kind kind, HcclDataType dtype, const void *send, void *recv,
                     uint64_t count)
{
    hccl_op *op = calloc(1, sizeof *op);
    if (op) {
        op->kind = kind;
        op->dtype = dtype;
        op->reduce = HCCL_REDUCE_RESERVED;
        op->send = send;
        op->recv = recv;
        op->count = count;
    }
    return op;
}

void hccl_op_free(hccl_op *op)
{
    if (!op)
        return;
    free(op->send_counts);
    free(op->send_displs);
    free(op->recv_counts);
    free(op->recv_displs);
    free(op->items);
    free(op);
}

size_t hccl_dtype_size(HcclDataType dtype)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0:
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
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64:
        return 8;
    case HCCL_DATA_TYPE_INT128:
        return 16;
    default:
        return 0;
    }
}
