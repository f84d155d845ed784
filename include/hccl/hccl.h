/* HCCL's collectives (CANN's names and prototypes), for acl-cuda's libhccl.
 * Every collective is queued on stream, in stream order, like any ACL task.
 * Counts are in elements of the data type; count arrays (sendCounts, ...)
 * are uint64_t, one per rank. Compiles as C11 and as C++. */
#ifndef HCCL_H_
#define HCCL_H_

#include <stdint.h>

#include "acl/acl.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

extern HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                                HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                aclrtStream stream);

extern HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                HcclComm comm, aclrtStream stream);

/* recvCount: elements each rank receives. */
extern HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                    HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                    aclrtStream stream);

extern HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                     void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                     HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* sendBuf is read on root only. */
extern HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                              HcclDataType dataType, uint32_t root, HcclComm comm,
                              aclrtStream stream);

/* sendCount: elements each rank sends. */
extern HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                HcclDataType dataType, HcclComm comm, aclrtStream stream);

extern HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                 const void *recvCounts, const void *recvDispls,
                                 HcclDataType dataType, HcclComm comm, aclrtStream stream);

extern HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                           HcclComm comm, aclrtStream stream);

extern HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                           HcclComm comm, aclrtStream stream);

/* sendCountMatrix: nranks x nranks; row i, column j is what rank i sends to rank j. */
extern HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                                 HcclDataType sendType, const void *recvBuf,
                                 HcclDataType recvType, HcclComm comm, aclrtStream stream);

extern HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                HcclDataType sendType, const void *recvBuf,
                                const void *recvCounts, const void *rdispls,
                                HcclDataType recvType, HcclComm comm, aclrtStream stream);

extern HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                               const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                               HcclComm comm, aclrtStream stream);

extern HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                             HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);

extern HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                                    HcclComm comm, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
