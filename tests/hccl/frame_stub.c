/* Test-only stand-ins for the frame functions an engine calls (engine.h):
 * messages, op ownership and element sizes, as the frame defines them.
 * Replaced by the frame's own (src/hccl/errors.c) once it is merged. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "frame_stub.h"
#include "hccl/engine.h"

static _Thread_local char last_error[1024];

void hccl_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *frame_stub_last_error(void)
{
    return last_error;
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
