/* The functions of hccl_comm.h that have no meaning on acl-cuda (refused,
 * with why) or are not written yet. scripts/api-coverage.py reads the
 * reasons from here for docs/api-coverage.md. */
#include "hccl/api.h"
#include "hccl/hccl_comm.h"

#define SUSPEND_RESUME                                                                             \
    "suspending and resuming a communicator is Ascend's step-level fast "                          \
    "recovery, which restores the device's communication resources in place; "                     \
    "NCCL and Gloo communicators cannot be paused: destroy the communicator "                      \
    "and make a new one"
#define MEMORY_RANGES                                                                              \
    "communication memory ranges let HCCL map physical memory into a "                             \
    "communicator's reserved addresses for Ascend's device-side expansion; "                       \
    "NCCL and Gloo read and write the buffers each collective is given, "                          \
    "wherever they are"
#define BACKUP_NIC                                                                                 \
    "switching a rank to its backup NIC is Ascend's device NIC failover; NCCL "                    \
    "picks its network interfaces at init (NCCL_SOCKET_IFNAME, NCCL_IB_HCA) "                      \
    "and Gloo its address from HCCL_IF_IP or HCCL_SOCKET_IFNAME"
#define SYMMETRIC_WINDOWS                                                                          \
    "symmetric memory windows are HCCL's device-side one-sided access for "                        \
    "Ascend's AIV and CCU kernels; NCCL and Gloo collectives take ordinary "                       \
    "buffers, so there is nothing to register a window for"

HCCL_EXPORT HcclResult HcclCommSuspend(HcclComm comm)
{
    (void)comm;
    return HCCL_REFUSE(SUSPEND_RESUME);
}

HCCL_EXPORT HcclResult HcclCommResume(HcclComm comm)
{
    (void)comm;
    return HCCL_REFUSE(SUSPEND_RESUME);
}

HCCL_EXPORT HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
                                              size_t alignment, uint64_t flags)
{
    (void)comm, (void)baseVirPtr, (void)size, (void)alignment, (void)flags;
    return HCCL_REFUSE(MEMORY_RANGES);
}

HCCL_EXPORT HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr)
{
    (void)comm, (void)baseVirPtr;
    return HCCL_REFUSE(MEMORY_RANGES);
}

HCCL_EXPORT HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size,
                                                  size_t offset, aclrtDrvMemHandle handle,
                                                  uint64_t flags)
{
    (void)comm, (void)virPtr, (void)size, (void)offset, (void)handle, (void)flags;
    return HCCL_REFUSE(MEMORY_RANGES);
}

HCCL_EXPORT HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr)
{
    (void)comm, (void)virPtr;
    return HCCL_REFUSE(MEMORY_RANGES);
}

HCCL_EXPORT HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks, bool *useBackup,
                                                uint32_t nRanks)
{
    (void)comm, (void)ranks, (void)useBackup, (void)nRanks;
    return HCCL_REFUSE(BACKUP_NIC);
}

HCCL_EXPORT HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                              HcclCommSymWindow *winHandle, uint32_t flag)
{
    (void)comm, (void)addr, (void)size, (void)winHandle, (void)flag;
    return HCCL_REFUSE(SYMMETRIC_WINDOWS);
}

HCCL_EXPORT HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle)
{
    (void)winHandle;
    return HCCL_REFUSE(SYMMETRIC_WINDOWS);
}

HCCL_EXPORT HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                                         HcclCommSymWindow *winHandle, size_t *offset)
{
    (void)comm, (void)ptr, (void)size, (void)winHandle, (void)offset;
    return HCCL_REFUSE(SYMMETRIC_WINDOWS);
}
