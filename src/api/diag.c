/* Diagnostics (acl_rt.h): device exceptions and their callbacks, device
 * errors and their repair, device task abort, process snapshots, profiling
 * marks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/exception.h"
#include "core/graph.h"
#include "core/statecb.h"

/* ---- exception callbacks and the info they get (core/exception.h) ------------------------ */

ACL_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    PROF_API();
    exception_set_callback(callback);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    PROF_API();
    if (!callback)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "callback is NULL");
    aclError err = exception_register(callback);
    return err ? ACL_RAISE(err, "out of host memory") : ACL_SUCCESS;
}

/* Unregistering a callback that is not registered does nothing, as in CANN. */
ACL_EXPORT aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    PROF_API();
    if (!callback)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "callback is NULL");
    exception_unregister(callback);
    return ACL_SUCCESS;
}

/* An info is valid only in the callback it was given to, on that thread;
 * any other pointer is refused without being read. */
static const struct rtExceptionInfo *info_of(const char *func, const aclrtExceptionInfo *info)
{
    const struct rtExceptionInfo *mine = exception_info_check(info);
    if (!mine)
        acl_raise(func, ACL_ERROR_INVALID_PARAM,
                  info ? "info %p is not the exception info of a callback running on this thread"
                       : "info is NULL (%p)",
                  (const void *)info);
    return mine;
}

ACL_EXPORT uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    PROF_API();
    const struct rtExceptionInfo *i = info_of(__func__, info);
    return i ? i->task_id : UINT32_MAX;
}

ACL_EXPORT uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    PROF_API();
    const struct rtExceptionInfo *i = info_of(__func__, info);
    return i ? i->stream_id : UINT32_MAX;
}

ACL_EXPORT uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    PROF_API();
    const struct rtExceptionInfo *i = info_of(__func__, info);
    return i ? i->thread_id : UINT32_MAX;
}

ACL_EXPORT uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    PROF_API();
    const struct rtExceptionInfo *i = info_of(__func__, info);
    return i ? i->device_id : UINT32_MAX;
}

ACL_EXPORT uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    PROF_API();
    const struct rtExceptionInfo *i = info_of(__func__, info);
    return i ? i->error_code : UINT32_MAX;
}

/* The argument buffer and function of the failed task, when it was a
 * kernel and the backend can tell which one (core/exception.h: CUDA
 * cannot). */
ACL_EXPORT aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                  uint32_t *devArgsLen)
{
    PROF_API();
    if (!devArgsPtr || !devArgsLen)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "devArgsPtr or devArgsLen is NULL");
    const struct rtExceptionInfo *i = info_of(__func__, info);
    if (!i)
        return ACL_ERROR_INVALID_PARAM;
    if (!i->func)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "the fault names no kernel: CUDA reports a fault for the whole "
                         "context, not for the task that caused it, so there are no arguments "
                         "to give");
    *devArgsPtr = i->args;
    *devArgsLen = i->args_len;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info,
                                                        aclrtFuncHandle *func)
{
    PROF_API();
    if (!func)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "func is NULL");
    const struct rtExceptionInfo *i = info_of(__func__, info);
    if (!i)
        return ACL_ERROR_INVALID_PARAM;
    if (!i->func)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "the fault names no kernel: CUDA reports a fault for the whole "
                         "context, not for the task that caused it");
    *func = i->func;
    return ACL_SUCCESS;
}

/* ---- device errors and their repair ---------------------------------------------------- */

static aclrtErrorType error_type(aclError fault)
{
    switch (fault) {
    case ACL_SUCCESS:
        return ACL_RT_NO_ERROR;
    case ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR:
        return ACL_RT_ERROR_MEMORY;
    case ACL_ERROR_RT_LINK_ERROR:
        return ACL_RT_ERROR_LINK;
    case ACL_ERROR_RT_AICORE_EXCEPTION:
    case ACL_ERROR_RT_AICORE_TIMEOUT:
    case ACL_ERROR_RT_AICORE_TRAP_EXCEPTION:
        return ACL_RT_ERROR_AICORE;
    default:
        return ACL_RT_ERROR_OTHERS;
    }
}

/* The first device fault seen (a kernel that faulted: ACL_RT_ERROR_AICORE;
 * an uncorrectable ECC error: MEMORY; an NVLink error: LINK), else
 * ACL_RT_NO_ERROR. Nothing can be repaired in place on a GPU: tryRepair is
 * always 0. */
ACL_EXPORT aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    PROF_API();
    if (!errorInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "errorInfo is NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    memset(errorInfo, 0, sizeof *errorInfo);
    errorInfo->errorType = error_type(exception_device_fault(phys));
    if (errorInfo->errorType == ACL_RT_ERROR_AICORE) {
        errorInfo->hasDetail = 1;
        errorInfo->detail.aicoreErrType = ACL_RT_AICORE_ERROR_UNKNOWN;
    }
    return ACL_SUCCESS;
}

/* No fault: nothing to repair. A fault is not repairable in place: a CUDA
 * context that faulted is lost, and the process must start again. */
ACL_EXPORT aclError aclrtRepairError(int32_t deviceId, const aclrtErrorInfo *errorInfo)
{
    PROF_API();
    if (!errorInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "errorInfo is NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    aclError fault = exception_device_fault(phys);
    if (errorInfo->errorType == ACL_RT_NO_ERROR && fault == ACL_SUCCESS)
        return ACL_SUCCESS;
    if (fault == ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "device %d has no error to repair (errorInfo says type %d)", (int)deviceId,
                         (int)errorInfo->errorType);
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "device %d failed a task (error %d): a GPU context that faulted cannot be "
                     "repaired in place, the process must start again",
                     (int)deviceId, (int)fault);
}

/* ---- process snapshots -----------------------------------------------------------------------
 * RUNNING -> Lock -> LOCKED -> Backup -> BACKED_UP -> Restore -> LOCKED ->
 * Unlock -> RUNNING (Unlock also from BACKED_UP), for the calling process
 * only, as ACL allows. The device state moves with the backend's snapshot
 * operations (the driver's checkpoint API on CUDA). Callbacks registered
 * per stage run for every device set in the process. */

typedef enum snapshot_state { SNAP_RUNNING, SNAP_LOCKED, SNAP_BACKED_UP } snapshot_state;

typedef struct snapshot_callback {
    aclrtSnapShotStage stage;
    aclrtSnapShotCallBack fn;
    void *args;
} snapshot_callback;

enum { SNAPSHOT_STAGES = ACL_RT_SNAPSHOT_UNLOCK_POST + 1, MAX_SNAPSHOT_CALLBACKS = 64 };

static pthread_mutex_t snapshot_lock = PTHREAD_MUTEX_INITIALIZER;
static snapshot_state snapshot_now = SNAP_RUNNING;
static snapshot_callback snapshot_callbacks[MAX_SNAPSHOT_CALLBACKS];
static size_t snapshot_callback_count;

static aclError check_stage(const char *api, aclrtSnapShotStage stage)
{
    if ((int)stage < 0 || (int)stage >= SNAPSHOT_STAGES)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown aclrtSnapShotStage %d", (int)stage);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage,
                                                  aclrtSnapShotCallBack callback, void *args)
{
    PROF_API();
    aclError err = check_stage(__func__, stage);
    if (err)
        return err;
    if (!callback)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "callback is NULL");
    pthread_mutex_lock(&snapshot_lock);
    for (size_t i = 0; i < snapshot_callback_count && !err; i++)
        if (snapshot_callbacks[i].stage == stage && snapshot_callbacks[i].fn == callback)
            err = ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED;
    if (!err && snapshot_callback_count == MAX_SNAPSHOT_CALLBACKS)
        err = ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED;
    if (!err)
        snapshot_callbacks[snapshot_callback_count++] =
            (snapshot_callback){.stage = stage, .fn = callback, .args = args};
    size_t count = snapshot_callback_count;
    pthread_mutex_unlock(&snapshot_lock);
    if (err)
        return ACL_RAISE(err,
                         count == MAX_SNAPSHOT_CALLBACKS
                             ? "%d callbacks are registered already"
                             : "this callback is registered for this stage already (%d at most)",
                         MAX_SNAPSHOT_CALLBACKS);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage,
                                                    aclrtSnapShotCallBack callback)
{
    PROF_API();
    aclError err = check_stage(__func__, stage);
    if (err)
        return err;
    if (!callback)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "callback is NULL");
    bool found = false;
    pthread_mutex_lock(&snapshot_lock);
    for (size_t i = 0; i < snapshot_callback_count; i++) {
        if (snapshot_callbacks[i].stage == stage && snapshot_callbacks[i].fn == callback) {
            snapshot_callbacks[i] = snapshot_callbacks[--snapshot_callback_count];
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&snapshot_lock);
    if (!found)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "no such callback is registered for stage %d",
                         (int)stage);
    return ACL_SUCCESS;
}

/* Runs a stage's callbacks for every device set in the process (with
 * snapshot_lock held: callbacks must not call the snapshot functions). */
static aclError run_stage(const char *api, aclrtSnapShotStage stage)
{
    int32_t count = device_visible_count();
    for (size_t i = 0; i < snapshot_callback_count; i++) {
        if (snapshot_callbacks[i].stage != stage)
            continue;
        for (int32_t d = 0; d < count; d++) {
            int32_t phys;
            if (device_to_phys(d, &phys) || !device_primary_active(phys))
                continue;
            uint32_t ret = snapshot_callbacks[i].fn(d, snapshot_callbacks[i].args);
            if (ret)
                return acl_raise(api, ACL_ERROR_SNAPSHOT_CALLBACK_FAILED,
                                 "a callback of stage %d returned %u for device %d", (int)stage,
                                 ret, (int)d);
        }
    }
    return ACL_SUCCESS;
}

static const char *const state_names[] = {"RUNNING", "LOCKED", "BACKED_UP"};

/* One step of the state machine: from one of the states allowed, through
 * the backend's operation, between the callbacks of two stages (-1:
 * none). */
static aclError snapshot_step(const char *api, int pid, unsigned from_mask, snapshot_state to,
                              int pre, aclError (*op)(int), int post, aclError wrong_state)
{
    if (pid != (int)getpid())
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "pid %d is not this process (%d): only the calling process can be "
                         "snapshotted",
                         pid, (int)getpid());
    if (!op)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend cannot snapshot a process", backend()->name);
    pthread_mutex_lock(&snapshot_lock);
    aclError err = ACL_SUCCESS;
    if (!(from_mask & (1u << snapshot_now)))
        err = acl_raise(api, wrong_state, "the process is %s", state_names[snapshot_now]);
    if (!err && pre >= 0)
        err = run_stage(api, (aclrtSnapShotStage)pre);
    if (!err && (err = op(pid)))
        acl_raise(api, err,
                  err == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
                      ? "the driver has no checkpoint API (CUDA 12.8 drivers on have it)"
                      : "the backend's snapshot operation failed");
    if (!err) {
        snapshot_now = to;
        if (post >= 0)
            err = run_stage(api, (aclrtSnapShotStage)post);
    }
    pthread_mutex_unlock(&snapshot_lock);
    return err;
}

ACL_EXPORT aclError aclrtSnapShotProcessLock(int pid, void *reserve)
{
    PROF_API();
    if (reserve)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
    return snapshot_step(__func__, pid, 1u << SNAP_RUNNING, SNAP_LOCKED, ACL_RT_SNAPSHOT_LOCK_PRE,
                         backend()->diag->snapshot_lock, -1, ACL_ERROR_SNAPSHOT_LOCK_FAILED);
}

ACL_EXPORT aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args)
{
    PROF_API();
    if (args)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "args must be NULL");
    return snapshot_step(__func__, pid, 1u << SNAP_LOCKED | 1u << SNAP_BACKED_UP, SNAP_BACKED_UP,
                         ACL_RT_SNAPSHOT_BACKUP_PRE, backend()->diag->snapshot_backup,
                         ACL_RT_SNAPSHOT_BACKUP_POST, ACL_ERROR_SNAPSHOT_BACKUP_FAILED);
}

ACL_EXPORT aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args)
{
    PROF_API();
    if (args)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "args must be NULL");
    return snapshot_step(__func__, pid, 1u << SNAP_BACKED_UP, SNAP_LOCKED,
                         ACL_RT_SNAPSHOT_RESTORE_PRE, backend()->diag->snapshot_restore,
                         ACL_RT_SNAPSHOT_RESTORE_POST, ACL_ERROR_SNAPSHOT_RESTORE_FAILED);
}

ACL_EXPORT aclError aclrtSnapShotProcessUnlock(int pid, void *reserve)
{
    PROF_API();
    if (reserve)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
    return snapshot_step(__func__, pid, 1u << SNAP_LOCKED | 1u << SNAP_BACKED_UP, SNAP_RUNNING, -1,
                         backend()->diag->snapshot_unlock, ACL_RT_SNAPSHOT_UNLOCK_POST,
                         ACL_ERROR_SNAPSHOT_UNLOCK_FAILED);
}

/* ---- profiling marks --------------------------------------------------------------------------
 * aclrtProfTrace's user data (up to 18 bytes) becomes a mark on the
 * profiler's timeline, on the calling thread at the call (an NVTX mark on
 * CUDA, seen by Nsight Systems: its text the bytes in hexadecimal, its
 * payload the first eight). Without a profiler, and on the host backend,
 * nothing is recorded. */
enum { PROF_TRACE_MAX = 18 };

ACL_EXPORT aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream)
{
    PROF_API();
    if (!userdata)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "userdata is NULL");
    if (length <= 0 || length > PROF_TRACE_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "length %d: 1 to %d bytes", (int)length,
                         PROF_TRACE_MAX);
    /* Read without trusting the pointer: a bad one fails, never faults. */
    unsigned char bytes[PROF_TRACE_MAX] = {0};
    struct iovec to = {bytes, (size_t)length}, from = {userdata, (size_t)length};
    if (process_vm_readv(getpid(), &to, 1, &from, 1, 0) != (ssize_t)length)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "userdata %p: %d bytes cannot be read there",
                         userdata, (int)length);
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    void (*mark)(const char *, uint64_t) = backend()->diag->mark;
    if (mark) {
        char text[sizeof "aclrtProfTrace stream 2147483647: " + 2 * PROF_TRACE_MAX];
        int at = snprintf(text, sizeof text, "aclrtProfTrace stream %d: ", (int)s->id);
        for (int i = 0; i < length && at + 2 < (int)sizeof text; i++)
            at += snprintf(text + at, sizeof text - (size_t)at, "%02x", bytes[i]);
        uint64_t payload;
        memcpy(&payload, bytes, sizeof payload);
        mark(text, payload);
    }
    stream_put(s);
    return ACL_SUCCESS;
}

/* ---- device task abort ------------------------------------------------------------------ */

ACL_EXPORT aclError aclrtSetDeviceTaskAbortCallback(const char *regName,
                                                    aclrtDeviceTaskAbortCallback callback,
                                                    void *args)
{
    PROF_API();
    return statecb_register(__func__, STATECB_TASK_ABORT, regName, (void (*)(void))callback, args);
}

/* Every stream of the device is aborted (aclrtStreamAbort: the host backend
 * cancels what has not started, CUDA swaps in fresh streams), between the
 * callbacks' PRE and POST. The abort never waits for the device, so the
 * timeout only bounds what the callbacks are told. */
ACL_EXPORT aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
    PROF_API();
    enum { MAX_TIMEOUT_MS = 36 * 60 * 1000 };
    if (timeout > MAX_TIMEOUT_MS)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timeout %u ms exceeds 36 minutes", timeout);
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    int32_t ret = statecb_task_abort(deviceId, ACL_RT_DEVICE_TASK_ABORT_PRE, timeout);
    if (ret)
        return ACL_RAISE(ACL_ERROR_RT_DEVICE_TASK_ABORT,
                         "a task-abort callback returned %d before the abort: nothing was aborted",
                         (int)ret);
    err = device_abort(phys);
    if (err)
        return ACL_RAISE(err, "aborting the streams of device %d failed", (int)deviceId);
    ret = statecb_task_abort(deviceId, ACL_RT_DEVICE_TASK_ABORT_POST, timeout);
    if (ret)
        return ACL_RAISE(ACL_ERROR_RT_DEVICE_TASK_ABORT,
                         "a task-abort callback returned %d after the abort", (int)ret);
    return ACL_SUCCESS;
}

/* ---- data dumps ---------------------------------------------------------------------------
 * CANN's dumps record the input and output tensors of its operators as a
 * model or operator runs. acl-cuda runs no CANN operators: a kernel
 * launched through it is the application's own code, with no tensor
 * descriptions to dump. Refused; CUDA's tools (compute-sanitizer, Nsight
 * Compute) inspect kernels instead. */
static aclError no_dump(const char *api)
{
    return acl_raise(
        api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        "acl-cuda runs no CANN operators whose input and output tensors could be "
        "dumped; inspect kernels with CUDA's tools (compute-sanitizer, Nsight Compute)");
}

ACL_EXPORT aclError aclmdlInitDump(void)
{
    PROF_API();
    return no_dump(__func__);
}

ACL_EXPORT aclError aclmdlSetDump(const char *dumpCfgPath)
{
    PROF_API();
    (void)dumpCfgPath;
    return no_dump(__func__);
}

ACL_EXPORT aclError aclmdlFinalizeDump(void)
{
    PROF_API();
    return no_dump(__func__);
}

/* Uncorrectable memory errors. Neither backend learns of any: a GPU with an
 * uncorrectable ECC error reports it as a fatal error of the context (the
 * next synchronising call fails), not as an address to repair, and the host
 * backend's memory is the process's own. So no error is ever listed and
 * there is nothing to repair. */
static aclError uce_device(const char *func, int32_t device_id)
{
    int32_t phys;
    if (device_to_phys(device_id, &phys) != ACL_SUCCESS)
        return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID,
                         "device %d does not exist (%d visible)", device_id,
                         device_visible_count());
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                       size_t arraySize, size_t *retSize)
{
    PROF_API();
    if (memUceInfoArray == NULL || retSize == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         memUceInfoArray == NULL ? "memUceInfoArray" : "retSize");
    if (arraySize == 0 || arraySize > MAX_MEM_UCE_INFO_ARRAY_SIZE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "arraySize %zu is not in 1..%d", arraySize,
                         MAX_MEM_UCE_INFO_ARRAY_SIZE);
    aclError ret = uce_device(__func__, deviceId);
    if (ret != ACL_SUCCESS)
        return ret;
    *retSize = 0;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                      size_t arraySize)
{
    PROF_API();
    if (memUceInfoArray == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memUceInfoArray is NULL");
    if (arraySize == 0 || arraySize > MAX_MEM_UCE_INFO_ARRAY_SIZE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "arraySize %zu is not in 1..%d", arraySize,
                         MAX_MEM_UCE_INFO_ARRAY_SIZE);
    aclError ret = uce_device(__func__, deviceId);
    if (ret != ACL_SUCCESS)
        return ret;
    for (size_t i = 0; i < arraySize; i++)
        if (memUceInfoArray[i].addr == NULL || memUceInfoArray[i].len == 0)
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "entry %zu has no address or length", i);
    return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                     "no uncorrectable memory error was reported on device %d (%p is not one): "
                     "there is nothing to repair",
                     deviceId, memUceInfoArray[0].addr);
}

/* ---- information cached on captured tasks --------------------------------------------- */

/* The calling thread's last task queued on a stream being captured keeps
 * the bytes: aclmdlRITaskGetParams gives them back (opInfoPtr). */
ACL_EXPORT aclError aclrtCacheLastTaskOpInfo(const void *const infoPtr, const size_t infoSize)
{
    PROF_API();
    return capture_cache_op_info(__func__, infoPtr, infoSize);
}

/* The text goes into aclmdlRIDebugJsonPrint's file, with the task. */
ACL_EXPORT aclError aclrtCacheLastTaskExtendInfo(const char *const extendInfoPtr,
                                                 const size_t infoSize)
{
    PROF_API();
    return capture_cache_extend_info(__func__, extendInfoPtr, infoSize);
}
