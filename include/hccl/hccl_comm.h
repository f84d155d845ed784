/* HCCL's communicators (CANN's names and prototypes), for acl-cuda's libhccl:
 * creating and destroying them, their ranks and names, groups of
 * collectives, errors and configuration. Compiles as C11 and as C++. */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Joins the communicator a rank table (CANN's JSON file) describes, as rank. */
extern HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
extern HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                                HcclCommConfig *config, HcclComm *comm);

/* A communicator of some ranks of comm (rankIds), numbered subCommRankId in it. */
extern HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                          uint64_t subCommId, uint32_t subCommRankId,
                                          HcclCommConfig *config, HcclComm *subComm);

/* Rank 0 calls it once; the program gives the bytes to every rank. */
extern HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                       uint32_t rank, HcclComm *comm);
extern HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                             uint32_t rank, const HcclCommConfig *config,
                                             HcclComm *comm);

/* Process-wide settings (HCCL_DETERMINISTIC). */
extern HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
extern HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);

/* commName holds COMM_NAME_MAX_LENGTH bytes. */
extern HcclResult HcclGetCommName(HcclComm comm, char *commName);
extern HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm);

extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);
extern HcclResult HcclCommDestroy(HcclComm comm);

/* One communicator per listed device, in this process (comms: ndev of them). */
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);
extern const char *HcclGetErrorString(HcclResult code);
extern uint32_t HcclGetCommConfigCapability(void);

/* Fills the header of config and sets every setting to "not set". */
static inline void HcclCommConfigInit(HcclCommConfig *config)
{
    typedef struct {
        size_t size;
        uint32_t magicWord;
        uint32_t version;
        uint64_t reserved;
    } HcclCommConfigInfo;
    HcclCommConfigInfo *info;

    if (config == NULL) {
        return;
    }
    info = (HcclCommConfigInfo *)config;
    info->size = sizeof(HcclCommConfig);
    info->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
    info->version = HCCL_COMM_CONFIG_VERSION;
    info->reserved = 0;
    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
    config->hcclCommName[0] = '\0';
    config->hcclUdi[0] = '\0';
    config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
    config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
    config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
    config->aclGraphZeroCopyEnable = 0;
    config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
    config->hcclAlgo[0] = '\0';
    config->hcclRetryEnable[0] = '\0';
    config->hcclRetryParams[0] = '\0';
    config->hcclBufferName[0] = '\0';
    config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
    config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}

extern HcclResult HcclCommSuspend(HcclComm comm);
extern HcclResult HcclCommResume(HcclComm comm);

typedef HcclResult (*HcclCommStateCallback)(HcclComm comm, HcclCommStatePhase state, void *args);
/* cb runs, with args, around every communicator's destruction in this process. */
extern HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb,
                                               void *args);
/* commId is a communicator's name. */
extern HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status);

extern HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
                                         size_t alignment, uint64_t flags);
extern HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
extern HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size,
                                             size_t offset, aclrtDrvMemHandle handle,
                                             uint64_t flags);
extern HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);
extern HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks, bool *useBackup,
                                           uint32_t nRanks);

/* Collectives between a start and its end (per thread, nesting) run as one. */
extern HcclResult HcclGroupStart(void);
extern HcclResult HcclGroupEnd(void);
extern HcclResult HcclGroupStatusGet(bool *isGroupEnabled);

extern HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                         HcclCommSymWindow *winHandle, uint32_t flag);
extern HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
extern HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                                    HcclCommSymWindow *winHandle, size_t *offset);

typedef enum {
    HCCL_OP_EXPANSION_MODE_INVALID = -1,
    HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
    HCCL_OP_EXPANSION_MODE_AIV = 1,
    HCCL_OP_EXPANSION_MODE_HOST = 2,
    HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
    HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
    HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
    HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;

typedef enum {
    HCCL_CONFIG_TYPE_INVALID = -1,
    HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0
} HcclConfigType;

typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

/* HCCL_CONFIG_TYPE_OP_EXPANSION_MODE: info gets an HcclConfigTypeOpExpansionMode. */
extern HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen,
                                    void *info);

#ifdef __cplusplus
}
#endif

#endif
