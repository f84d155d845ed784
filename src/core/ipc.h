/* IPC: device memory shared between processes through keys
 * (aclrtIpcMemGetExportKey ... aclrtIpcMemClose), and events another
 * process waits for (aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle).
 *
 * A key is a string naming the exporting process, an entry of its sharing
 * broker and a random nonce (share.h): "acl-cuda-ipc:<pid>:<id>:<nonce>".
 * The importer fetches the memory's description (and, on the host backend,
 * its file descriptor) from the exporter, which checks the importer's pid
 * against the key's list unless validation was turned off. Imported memory
 * is recorded in the allocation registry (origin ORIGIN_IPC) until
 * aclrtIpcMemClose. All functions raise. */
#ifndef ACLCUDA_CORE_IPC_H
#define ACLCUDA_CORE_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "core/context.h"
#include "core/event.h"

/* The length of every key, terminator included (ACL's 65 at most). */
enum { IPC_KEY_LEN = 64 };

/* What the exporter publishes for a key besides its backend's description
 * (backend.h, IPC_BLOB_MAX): what an importer receives from another
 * process, and checks. */
typedef struct mem_blob {
    uint64_t size;
    uint32_t backend_len;
    unsigned char backend[IPC_BLOB_MAX];
} mem_blob;

aclError ipc_mem_export(const char *api, void *ptr, size_t size, char *key, size_t len,
                        bool check_pids);
aclError ipc_mem_allow(const char *api, const char *key, const int32_t *pids, size_t count);
aclError ipc_mem_import(const char *api, acl_context *ctx, void **ptr, const char *key);
aclError ipc_mem_set_attr(const char *api, const char *key, uint64_t attr);
aclError ipc_mem_close(const char *api, const char *key);

/* The event must have been created with ACL_EVENT_IPC. */
aclError ipc_event_export(const char *api, acl_event *e, aclrtIpcEventHandle *handle);
/* A new event in ctx on what handle names; borrowed (event_put). */
aclError ipc_event_open(const char *api, acl_context *ctx, const aclrtIpcEventHandle *handle,
                        acl_event **out);

#endif
