/*
 * acl-cuda: shared queues (AscendCL's acl_tdt_queue.h).
 *
 * A queue, named by a 32-bit id, holds at most `depth` messages: shared
 * buffers (acltdtBuf, each a data area and 96 bytes of user data, possibly
 * chained) or plain bytes with user data. The creating process may grant
 * other processes of the machine permission to use a queue, which they
 * take up with acltdtAttachQueue. Routes forward every message of one
 * queue to another. Waits take a timeout in milliseconds: -1 for ever, 0
 * not at all.
 */
#ifndef ACLCUDA_ACL_TDT_QUEUE_H
#define ACLCUDA_ACL_TDT_QUEUE_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Permission bits of acltdtGrantQueue and acltdtAttachQueue. */
#define ACL_TDT_QUEUE_PERMISSION_MANAGE 1
#define ACL_TDT_QUEUE_PERMISSION_DEQUEUE 2
#define ACL_TDT_QUEUE_PERMISSION_ENQUEUE 4

/* A route's status. */
#define ACL_TDT_QUEUE_ROUTE_UNBIND 0
#define ACL_TDT_QUEUE_ROUTE_BIND 1
#define ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL 2

typedef void *acltdtBuf;
typedef struct tagMemQueueAttr acltdtQueueAttr;
typedef struct acltdtQueueRouteList acltdtQueueRouteList;
typedef struct acltdtQueueRouteQueryInfo acltdtQueueRouteQueryInfo;
typedef struct acltdtQueueRoute acltdtQueueRoute;

/* A queue attribute: the name (a pointer to a string of fewer than 128
 * bytes) or the depth (a uint32_t). */
typedef enum { ACL_TDT_QUEUE_NAME_PTR = 0, ACL_TDT_QUEUE_DEPTH_UINT32 } acltdtQueueAttrType;

/* A route's fields. */
typedef enum {
    ACL_TDT_QUEUE_ROUTE_SRC_UINT32 = 0,
    ACL_TDT_QUEUE_ROUTE_DST_UINT32,
    ACL_TDT_QUEUE_ROUTE_STATUS_INT32
} acltdtQueueRouteParamType;

/* Which routes a query finds. */
typedef enum {
    ACL_TDT_QUEUE_ROUTE_QUERY_SRC = 0,
    ACL_TDT_QUEUE_ROUTE_QUERY_DST = 1,
    ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST = 2,
    ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL = 100
} acltdtQueueRouteQueryMode;

/* A query's fields. */
typedef enum {
    ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM = 0,
    ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32,
    ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32
} acltdtQueueRouteQueryInfoParamType;

/* Where acltdtAllocBuf places a buffer. */
typedef enum { ACL_TDT_NORMAL_MEM = 0, ACL_TDT_DVPP_MEM } acltdtAllocBufType;

/* Queues. attr NULL: a generated name and depth 8. */
ACL_FUNC_VISIBILITY aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueue(uint32_t qid);
/* Moves buf into the queue (it is the queue's once this succeeds). */
ACL_FUNC_VISIBILITY aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout);
/* Takes the oldest message as a new buffer, the caller's to free. */
ACL_FUNC_VISIBILITY aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout);
/* Copies dataSize bytes at data (host or device memory) and userDataSize
 * (at most 96) bytes at userData into the queue; rsv is reserved (0). */
ACL_FUNC_VISIBILITY aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize,
                                               const void *userData, size_t userDataSize,
                                               int32_t timeout, uint32_t rsv);
/* Takes the oldest message into data (dataSize bytes; *retDataSize its
 * length) and its user data into userData. */
ACL_FUNC_VISIBILITY aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize,
                                               size_t *retDataSize, void *userData,
                                               size_t userDataSize, int32_t timeout);
/* Allows process pid to use the queue with the given permission bits. */
ACL_FUNC_VISIBILITY aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission,
                                              int32_t timeout);
/* Opens a queue another process granted to this one; *permission gets the
 * bits granted. */
ACL_FUNC_VISIBILITY aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission);

/* Routes: each listed route's status is set by the call. */
ACL_FUNC_VISIBILITY aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList);
ACL_FUNC_VISIBILITY aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList);
ACL_FUNC_VISIBILITY aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
                                                    acltdtQueueRouteList *qRouteList);

/* Shared buffers: size bytes of data and 96 bytes of user data. type is
 * an acltdtAllocBufType. */
ACL_FUNC_VISIBILITY aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf);
ACL_FUNC_VISIBILITY aclError acltdtFreeBuf(acltdtBuf buf);
ACL_FUNC_VISIBILITY aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size);
/* The length of the valid data, at most the buffer's size. */
ACL_FUNC_VISIBILITY aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len);
ACL_FUNC_VISIBILITY aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len);
/* Chains of buffers. */
ACL_FUNC_VISIBILITY aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf);
ACL_FUNC_VISIBILITY aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num);
ACL_FUNC_VISIBILITY aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf);
/* size bytes of user data at offset (size + offset at most 96). */
ACL_FUNC_VISIBILITY aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size,
                                                  size_t offset);
ACL_FUNC_VISIBILITY aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size,
                                                  size_t offset);
/* A new buffer on the same data area. */
ACL_FUNC_VISIBILITY aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf);

/* Queue attributes. */
ACL_FUNC_VISIBILITY acltdtQueueAttr *acltdtCreateQueueAttr(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr);
ACL_FUNC_VISIBILITY aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type,
                                                size_t len, const void *param);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type,
                                                size_t len, size_t *paramRetSize, void *param);

/* Routes and lists of them. */
ACL_FUNC_VISIBILITY acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route,
                                                      acltdtQueueRouteParamType type, size_t len,
                                                      size_t *paramRetSize, void *param);
ACL_FUNC_VISIBILITY acltdtQueueRouteList *acltdtCreateQueueRouteList(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList);
ACL_FUNC_VISIBILITY aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList,
                                                 const acltdtQueueRoute *route);
/* Copies the index-th route of the list into route. */
ACL_FUNC_VISIBILITY aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index,
                                                 acltdtQueueRoute *route);
ACL_FUNC_VISIBILITY size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList);

/* Route queries. */
ACL_FUNC_VISIBILITY acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info);
ACL_FUNC_VISIBILITY aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
                                                          acltdtQueueRouteQueryInfoParamType type,
                                                          size_t len, const void *value);

#ifdef __cplusplus
}
#endif

#endif
