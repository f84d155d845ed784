/* Device faults: a task that failed on the device (an illegal address in a
 * kernel, an uncorrectable ECC error, a link failure), as a backend
 * reports it when a stream, an event or the device is synchronised. The
 * first fault seen on a device is reported to the exception callbacks
 * (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister) with
 * the device, the stream, the task and the error code, and kept for
 * aclrtGetErrorVerbose. CUDA faults are sticky (the context is lost), so
 * every later call fails too; they are not reported again. */
#ifndef ACLCUDA_CORE_EXCEPTION_H
#define ACLCUDA_CORE_EXCEPTION_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"

/* What aclrtExceptionInfo points at: valid only during the callback. */
struct rtExceptionInfo {
    uint32_t task_id;
    uint32_t stream_id;
    uint32_t thread_id;
    uint32_t device_id;
    uint32_t error_code;
    /* The kernel launch that failed and its arguments. CUDA reports a
     * fault for the context, not for a task, so acl-cuda cannot name the
     * kernel: these stay NULL, and the getters say why. A backend that can
     * tell would set them here. */
    void *func;
    void *args;
    uint32_t args_len;
};

/* Whether a backend's code says the device failed a task. */
bool exception_is_device_fault(aclError code);
/* A fault seen by a synchronisation; called with no lock held. device is
 * the user's id, stream_id -1 when none, task_id the stream's count of
 * tasks. Reports only a device's first fault. */
void exception_report(int32_t phys, int32_t device, int32_t stream_id, uint32_t task_id,
                      aclError code);
/* The fault kept for a device (ACL_SUCCESS when none). */
aclError exception_device_fault(int32_t phys);

/* aclrtSetExceptionInfoCallback's one callback (NULL removes it). */
void exception_set_callback(aclrtExceptionInfoCallback fn);
/* aclrtExceptionInfoCallbackRegister / Unregister. Bare codes:
 * ACL_ERROR_RT_MEMORY_ALLOCATION. */
aclError exception_register(aclrtExceptionInfoCallback fn);
void exception_unregister(aclrtExceptionInfoCallback fn);

/* aclrtBinarySetExceptionCallback: fn(info, user_data) is told of the
 * faults of device phys, for the loaded binary `binary` (an identity, not
 * read); the last one set for a binary wins, NULL forgets it (its
 * unload). CUDA cannot say which kernel faulted: every binary of the
 * device with a callback is told. Bare codes. */
aclError exception_binary_callback(const void *binary, int32_t phys, aclrtOpExceptionCallback fn,
                                   void *user_data);

/* The info being reported to the calling thread's callback, if info is
 * it; NULL for any other pointer (never read through). */
const struct rtExceptionInfo *exception_info_check(const aclrtExceptionInfo *info);

#endif
