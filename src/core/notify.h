/* Notifies (aclrtNotify) and counting notifies (aclrtCntNotify): device
 * words that streams set and wait for, with the backend's word inside the
 * object (backend.h). Record and wait are stream tasks (stream_submit).
 *
 * Sharing with other processes (aclrtNotifyGetExportKey, ImportByKey,
 * SetImportPid) goes through the sharing broker (share.h), which enforces
 * the allow-list in the exporting process: an exported notify passes a
 * shared page (the host backend's word lives in it, and each process's
 * mapping of it lasts as long as the backend's word) and what the
 * importer needs besides (the cuda backend's CUDA IPC handle). All
 * functions raise. */
#ifndef ACLCUDA_CORE_NOTIFY_H
#define ACLCUDA_CORE_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/context.h"
#include "core/handle.h"
#include "core/stream.h"

struct notify_share;

typedef struct acl_notify {
    object obj;
    bool counting;
    int32_t phys, device;
    uint32_t id;
    struct notify_share *share; /* once its word is in a page of ours; owned by notify.c */
    bool exported;              /* published under share's key */
    bool imported;
    _Alignas(16) unsigned char backend[]; /* the backend's notify, in place */
} acl_notify;

static inline backend_notify *notify_backend(acl_notify *n)
{
    return (backend_notify *)n->backend;
}

static inline void notify_put(acl_notify *n)
{
    object_put(&n->obj);
}

/* A published notify on ctx's device. */
aclError notify_create(const char *api, acl_context *ctx, bool counting, acl_notify **out);
/* The live (counting) notify behind a handle, borrowed (notify_put). */
aclError notify_get(const char *api, void *handle, bool counting, acl_notify **out);
aclError notify_destroy(const char *api, void *handle, bool counting);

aclError notify_record(const char *api, acl_notify *n, acl_stream *s);
aclError notify_wait(const char *api, acl_notify *n, acl_stream *s, uint32_t timeout_s);
aclError notify_count(const char *api, acl_notify *n, acl_stream *s, uint32_t mode, uint32_t value);
aclError notify_count_wait(const char *api, acl_notify *n, acl_stream *s, uint32_t cmp,
                           uint32_t value, uint32_t timeout_s, bool clear);
/* Clears it now (aclrtNotifyBatchReset). */
aclError notify_reset(const char *api, acl_notify *n);

/* Longest key, its terminating NUL included; ACL asks for 65 bytes. */
enum { NOTIFY_KEY_SIZE = 65 };
aclError notify_export(const char *api, acl_notify *n, char *key, size_t len, bool check_pid);
aclError notify_allow_pids(const char *api, acl_notify *n, const int32_t *pids, size_t num);
aclError notify_import(const char *api, acl_context *ctx, const char *key, bool peer_access,
                       acl_notify **out);

#endif
