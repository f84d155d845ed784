/* The "cuda" backend: each backend op is one CUDA runtime call or a few.
 * Compiled with a plain C compiler against the runtime API only (no
 * kernels) and linked with the static cudart, so the library still loads
 * where no driver is installed; probe() then fails and the host backend is
 * chosen. */
#include "backend/cuda/cuda.h"

const backend_ops backend_cuda_ops = {
    .name = "cuda",
    .device = &cuda_device_ops,
    .memory = &cuda_memory_ops,
    .stream = &cuda_stream_ops,
    .event = &cuda_event_ops,
    .notify = &cuda_notify_ops,
    .diag = &cuda_diag_ops,
    .module = &cuda_module_ops,
    .graph = &cuda_graph_ops,
    .vmm = &cuda_vmm_ops,
    .ipc = &cuda_ipc_ops,
    .host_register = &cuda_host_register_ops,
    .managed = &cuda_managed_ops,
    .pool = &cuda_pool_ops,
};
