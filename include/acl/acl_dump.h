/*
 * acl-cuda: dumps (CANN's acl/acl_dump.h). Names, values, layouts and
 * prototypes are CANN's; the text is acl-cuda's own.
 *
 * CANN dumps the tensors of its operators (data, overflow and exception
 * dumps). acl-cuda runs no CANN operators: the functions that dump operator
 * tensors are refused with the reason (docs/api-coverage.md). What has a
 * meaning without operators works: the dump paths, and the exception
 * information written when the device faults (the faulting device, stream
 * and task, as the core knows them).
 */
#ifndef INC_EXTERNAL_ACL_DUMP_H_
#define INC_EXTERNAL_ACL_DUMP_H_

#include <stdint.h>

#include "acl_base.h"

#if defined(_WIN32) || defined(_WIN64) || defined(_MSC_VER)
#define ACL_DUMP_API __declspec(dllexport)
#define ACL_DUMP_WEAK
#else
#define ACL_DUMP_API __attribute__((visibility("default")))
#define ACL_DUMP_WEAK __attribute__((weak))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096

/* One piece of a dump file, handed to acldumpRegCallback's callback. */
typedef struct acldumpChunk {
    char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH]; /* absolute path of the file */
    uint32_t bufLen;                              /* bytes in dataBuf */
    uint32_t isLastChunk;                         /* 1 for the file's last piece */
    int64_t offset;                               /* in the file; -1: append */
    int32_t flag;                                 /* reserved */
    uint8_t dataBuf[0];
} acldumpChunk;

ACL_DUMP_API aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *,
                                                                          int32_t),
                                         int32_t flag);
ACL_DUMP_API void acldumpUnregCallback(void);

/* aclopStartDumpArgs' dumpType bits. */
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t dumpType);

typedef enum acldumpType {
    AIC_ERR_BRIEF_DUMP = 1,  /* exception dump, brief */
    AIC_ERR_NORM_DUMP = 2,   /* exception dump with shapes, types, formats */
    AIC_ERR_DETAIL_DUMP = 3, /* exception dump with the core's state */
    DATA_DUMP = 4,           /* model or operator data dump */
    OVERFLOW_DUMP = 5        /* overflowing operators */
} acldumpType;

/* The directory a kind of dump goes to, NULL when that dump is off. */
ACL_FUNC_VISIBILITY const char *acldumpGetPath(acldumpType dumpType);

#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef enum acldumpTensorType {
    ACL_DUMP_TENSOR_INPUT = 0,
    ACL_DUMP_TENSOR_OUTPUT,
    ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

typedef enum acldumpTensorAddressType {
    ACL_DUMP_ADDR_PTR = 0, /* the address of a pointer to the data */
    ACL_DUMP_ADDR_PTR_PTR, /* two dereferences reach the data */
    ACL_DUMP_ADDR_RAW      /* the data's own address */
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
    ACL_DUMP_PLACEMENT_DEVICE = 0,
    ACL_DUMP_PLACEMENT_HOST,
    ACL_DUMP_PLACEMENT_END /* bound, not a placement */
} acldumpTensorPlacement;

typedef struct acldumpTensorInfo {
    acldumpTensorType type;
    size_t tensorSize; /* bytes */
    int32_t format;
    int32_t dataType;
    int64_t *tensorAddr;
    acldumpTensorAddressType addrType;
    acldumpTensorPlacement placement;
    uint32_t argsOffset;     /* in the operator's arguments */
    uint32_t shapeNum;       /* at most ACL_DUMP_MAX_SHAPE_NUM */
    uint32_t originShapeNum; /* at most ACL_DUMP_MAX_SHAPE_NUM */
    uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
    uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

ACL_DUMP_WEAK ACL_FUNC_VISIBILITY aclError acldumpSaveExceptionInfo(const char *fileName,
                                                                    const char *userTag,
                                                                    const acldumpTensorInfo *tensors,
                                                                    size_t tensorCount);
/* Where exception information is written, in path (maxLen bytes). */
ACL_DUMP_WEAK ACL_FUNC_VISIBILITY aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_DUMP_H_ */
