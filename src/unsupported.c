/*
 * Functions that the headers declare but acl-cuda does not provide.
 *
 * They exist so that programs using them still link; each one fails with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT and leaves a message naming itself for
 * aclGetRecentErrMsg. The implemented functions are listed in
 * implemented.txt.
 */
#include "api/api.h"

/* A stub ignores its arguments by design. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* One aclError stub: UNSUPPORTED(name, (parameters)). */
#define UNSUPPORTED(name, params)                                                          \
    ACL_EXPORT aclError name params                                                        \
    {                                                                                      \
        return acl_unsupported(__func__);                                                  \
    }

/* A stub returning something else: the failure value is given explicitly. */
#define UNSUPPORTED_RETURNING(type, name, params, failed)                                  \
    ACL_EXPORT type name params                                                            \
    {                                                                                      \
        (void)acl_unsupported(__func__);                                                   \
        return failed;                                                                     \
    }

/* Base helpers (acl_base_rt.h) */
UNSUPPORTED(aclGetCannAttributeList, (const aclCannAttr **cannAttrList, size_t *num))
UNSUPPORTED(aclGetCannAttribute, (aclCannAttr cannAttr, int32_t *value))

/* Devices (acl_rt.h) */
UNSUPPORTED(aclrtGetOverflowStatus, (void *outputAddr, size_t outputSize, aclrtStream stream))
UNSUPPORTED(aclrtResetOverflowStatus, (aclrtStream stream))
UNSUPPORTED(aclrtGetDevicesTopo, (uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value))
UNSUPPORTED(aclrtRegDeviceStateCallback, (const char *regName, aclrtDeviceStateCallback callback, void *args))
UNSUPPORTED(aclrtDeviceGetBareTgid, (int32_t *pid))
UNSUPPORTED(aclrtGetDeviceResLimit, (int32_t deviceId, aclrtDevResLimitType type, uint32_t *value))
UNSUPPORTED(aclrtSetDeviceResLimit, (int32_t deviceId, aclrtDevResLimitType type, uint32_t value))
UNSUPPORTED(aclrtResetDeviceResLimit, (int32_t deviceId))

/* Contexts (acl_rt.h) */
UNSUPPORTED(aclrtCtxGetFloatOverflowAddr, (void **overflowAddr))

/* Streams (acl_rt.h) */
UNSUPPORTED_RETURNING(aclrtStreamConfigHandle *, aclrtCreateStreamConfigHandle, (void), NULL)
UNSUPPORTED(aclrtDestroyStreamConfigHandle, (aclrtStreamConfigHandle *handle))
UNSUPPORTED(aclrtSetStreamConfigOpt, (aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                      const void *attrValue, size_t valueSize))
UNSUPPORTED(aclrtCreateStreamV2, (aclrtStream *stream, const aclrtStreamConfigHandle *handle))
UNSUPPORTED(aclrtStreamAbort, (aclrtStream stream))
UNSUPPORTED(aclrtStreamStop, (aclrtStream stream))
UNSUPPORTED(aclrtPersistentTaskClean, (aclrtStream stream))
UNSUPPORTED(aclrtRegStreamStateCallback, (const char *regName, aclrtStreamStateCallback callback, void *args))
UNSUPPORTED(aclrtActiveStream, (aclrtStream activeStream, aclrtStream stream))
UNSUPPORTED(aclrtSwitchStream, (void *leftValue, aclrtCondition cond, void *rightValue,
                                aclrtCompareDataType dataType, aclrtStream trueStream,
                                aclrtStream falseStream, aclrtStream stream))
UNSUPPORTED(aclrtGetThreadLastTaskId, (uint32_t *taskId))

/* Events (acl_rt.h) */
UNSUPPORTED(aclrtEventGetTimestamp, (aclrtEvent event, uint64_t *timestamp))
UNSUPPORTED(aclrtIpcGetEventHandle, (aclrtEvent event, aclrtIpcEventHandle *handle))
UNSUPPORTED(aclrtIpcOpenEventHandle, (aclrtIpcEventHandle handle, aclrtEvent *event))

/* Device memory (acl_rt.h) */
UNSUPPORTED(aclrtMallocForTaskScheduler, (void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                          aclrtMallocConfig *cfg))
UNSUPPORTED(aclrtCheckMemType, (void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
                                uint32_t reserve))

/* Host memory (acl_rt.h) */
UNSUPPORTED(aclrtHostRegister, (void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr))
UNSUPPORTED(aclrtHostUnregister, (void *ptr))

/* Copies and fills (acl_rt.h) */
UNSUPPORTED(aclrtMemcpyBatch, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                               aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
                               size_t *failIndex))
UNSUPPORTED(aclrtMemcpyBatchAsync, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                    size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                    size_t numAttrs, size_t *failIndex, aclrtStream stream))
UNSUPPORTED(aclrtGetMemcpyDescSize, (aclrtMemcpyKind kind, size_t *descSize))
UNSUPPORTED(aclrtSetMemcpyDesc, (void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count,
                                 void *config))
UNSUPPORTED(aclrtMemcpyAsyncWithDesc, (void *desc, aclrtMemcpyKind kind, aclrtStream stream))
UNSUPPORTED(aclrtMemcpyAsyncWithOffset, (void **dst, size_t destMax, size_t dstDataOffset, const void **src,
                                         size_t count, size_t srcDataOffset, aclrtMemcpyKind kind,
                                         aclrtStream stream))
UNSUPPORTED(aclrtReduceAsync, (void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
                               aclDataType type, aclrtStream stream, void *reserve))

/* Memory shared between processes (acl_rt.h) */
UNSUPPORTED(aclrtIpcMemGetExportKey, (void *devPtr, size_t size, char *key, size_t len, uint64_t flags))
UNSUPPORTED(aclrtIpcMemSetImportPid, (const char *key, int32_t *pid, size_t num))
UNSUPPORTED(aclrtIpcMemImportPidInterServer, (const char *key, aclrtServerPid *serverPids, size_t num))
UNSUPPORTED(aclrtIpcMemImportByKey, (void **devPtr, const char *key, uint64_t flags))
UNSUPPORTED(aclrtIpcMemSetAttr, (const char *key, aclrtIpcMemAttrType type, uint64_t attr))
UNSUPPORTED(aclrtIpcMemClose, (const char *key))

/* Callbacks and device exception reports (acl_rt.h) */
UNSUPPORTED(aclrtSubscribeHostFunc, (uint64_t hostFuncThreadId, aclrtStream exeStream))
UNSUPPORTED(aclrtProcessHostFunc, (int32_t timeout))
UNSUPPORTED(aclrtUnSubscribeHostFunc, (uint64_t hostFuncThreadId, aclrtStream exeStream))
