/* Which engine runs this process's collectives: NCCL on the cuda backend,
 * Gloo on the host backend (aclcudaGetBackendName). An engine acl-cuda was
 * configured without is replaced by one that refuses every call saying so. */
#ifndef ACLCUDA_HCCL_SELECT_H
#define ACLCUDA_HCCL_SELECT_H

#include "hccl/engine.h"

/* NULL, with the error raised for api, when the backend has no engine. */
const hccl_engine *hccl_engine_select(const char *api);

/* For libhccl's own tests: every later selection returns engine (NULL
 * restores the backend's). */
void hccl_engine_override(const hccl_engine *engine);

#endif
