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

#ifdef __cplusplus
}
#endif

#endif /* ACLCUDA_ACL_CUDA_H */
