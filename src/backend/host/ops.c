/* The host backend: "devices" are plain CPU memory and threads. */
#include "backend/host/host.h"

const backend_ops backend_host_ops = {
    .name = "host",
    .device = &host_device_ops,
    .memory = &host_memory_ops,
    .stream = &host_stream_ops,
    .event = &host_event_ops,
    .notify = &host_notify_ops,
    .diag = &host_diag_ops,
    .module = &host_module_ops,
    .graph = &host_graph_ops,
    .vmm = &host_vmm_ops,
    .ipc = &host_ipc_ops,
    .host_register = &host_host_register_ops,
    .managed = &host_managed_ops,
    .pool = &host_pool_ops,
};
