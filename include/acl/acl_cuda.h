/*
 * acl-cuda extensions: what AscendCL has no name for.
 *
 * Not part of AscendCL and not included by acl.h; include it explicitly to
 * mix ACL calls with native CUDA code on the same streams and events.
 */
#ifndef ACLCUDA_ACL_CUDA_H
#define ACLCUDA_ACL_CUDA_H

#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend this process runs on: "cuda" or "host". It is chosen on first
 * use (ACLCUDA_BACKEND=cuda|host|auto) and fixed for the process lifetime. */
ACL_FUNC_VISIBILITY const char *aclcudaGetBackendName(void);

/* Stores in *native the cudaStream_t behind stream (NULL stream = the current
 * context's default stream). On the host backend *native is set to NULL. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeStream(aclrtStream stream, void **native);

/* Stores in *native the cudaEvent_t behind event; NULL on the host backend.
 * ACL's status queries, waits and synchronizations follow the records made
 * through ACL; a record made directly through CUDA is not seen by them. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeEvent(aclrtEvent event, void **native);

/* Waits at most sliceMs milliseconds (>= 0) for the work of a stream (NULL:
 * the current context's default stream), an event, or the current device,
 * like the aclrtSynchronize*WithTimeout functions, except that an expiry is
 * not an error: it returns ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (the event:
 * ACL_ERROR_RT_EVENT_SYNC_TIMEOUT) and records no message. For callers that
 * must stay responsive while they wait for long work: the Python package
 * waits in slices, so that Ctrl-C interrupts acl.rt.synchronize_*. */
ACL_FUNC_VISIBILITY aclError aclcudaSynchronizeStreamSlice(aclrtStream stream, int32_t sliceMs);
ACL_FUNC_VISIBILITY aclError aclcudaSynchronizeEventSlice(aclrtEvent event, int32_t sliceMs);
ACL_FUNC_VISIBILITY aclError aclcudaSynchronizeDeviceSlice(int32_t sliceMs);

#ifdef __cplusplus
}
#endif

#endif /* ACLCUDA_ACL_CUDA_H */
