/* The cuda backend's diagnostics: profiling marks as NVTX marks, which
 * Nsight Systems shows on the calling thread's timeline (NVTX is header
 * only: without a tool injected, a mark costs a load and a branch), and
 * process snapshots on the driver's checkpoint API (CUDA 12.8 drivers on),
 * which moves the device state of a process to the host and back. */
#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

#include <nvtx3/nvToolsExt.h>

static void cuda_mark(const char *text, uint64_t payload)
{
    nvtxEventAttributes_t attributes = {0};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = text;
    attributes.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    attributes.payload.ullValue = payload;
    nvtxMarkEx(&attributes);
}

static void cuda_range_push(const char *text)
{
    nvtxRangePushA(text);
}

static void cuda_range_pop(void)
{
    nvtxRangePop();
}

static uint64_t cuda_range_start(const char *text)
{
    return nvtxRangeStartA(text);
}

static void cuda_range_end(uint64_t id)
{
    nvtxRangeEnd(id);
}

/* A lock that is not granted within this long fails with
 * ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT. */
enum { SNAPSHOT_LOCK_TIMEOUT_MS = 60 * 1000 };

static aclError checkpoint_result(CUresult r, aclError failed)
{
    switch (r) {
    case CUDA_SUCCESS:
        return ACL_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case CUDA_ERROR_INVALID_VALUE:
        return ACL_ERROR_RT_PARAM_INVALID;
    default:
        return failed;
    }
}

static aclError cuda_snapshot_lock(int pid)
{
    if (!driver_ready() || !drv.cuCheckpointProcessLock)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    CUcheckpointLockArgs args = {.timeoutMs = SNAPSHOT_LOCK_TIMEOUT_MS};
    CUresult r = drv.cuCheckpointProcessLock(pid, &args);
    if (r == CUDA_ERROR_NOT_READY)
        return ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT;
    return checkpoint_result(r, ACL_ERROR_SNAPSHOT_LOCK_FAILED);
}

static aclError cuda_snapshot_backup(int pid)
{
    if (!driver_ready() || !drv.cuCheckpointProcessCheckpoint)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return checkpoint_result(drv.cuCheckpointProcessCheckpoint(pid, NULL),
                             ACL_ERROR_SNAPSHOT_BACKUP_FAILED);
}

static aclError cuda_snapshot_restore(int pid)
{
    if (!driver_ready() || !drv.cuCheckpointProcessRestore)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return checkpoint_result(drv.cuCheckpointProcessRestore(pid, NULL),
                             ACL_ERROR_SNAPSHOT_RESTORE_FAILED);
}

static aclError cuda_snapshot_unlock(int pid)
{
    if (!driver_ready() || !drv.cuCheckpointProcessUnlock)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return checkpoint_result(drv.cuCheckpointProcessUnlock(pid, NULL),
                             ACL_ERROR_SNAPSHOT_UNLOCK_FAILED);
}

const backend_diag_ops cuda_diag_ops = {
    .mark = cuda_mark,
    .range_push = cuda_range_push,
    .range_pop = cuda_range_pop,
    .range_start = cuda_range_start,
    .range_end = cuda_range_end,
    .snapshot_lock = cuda_snapshot_lock,
    .snapshot_backup = cuda_snapshot_backup,
    .snapshot_restore = cuda_snapshot_restore,
    .snapshot_unlock = cuda_snapshot_unlock,
    .activity_start = cuda_activity_start,
    .activity_push = cuda_activity_push,
    .activity_pop = cuda_activity_pop,
    .activity_stream = cuda_activity_stream,
    .activity_flush = cuda_activity_flush,
    .activity_stop = cuda_activity_stop,
};
