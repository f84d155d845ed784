/* IPC memory keys and IPC events (see ipc.h). One mutex (ipc_lock) guards
 * this process's exports and imports; it is taken before the sharing
 * broker's and the allocation registry's. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/deferred.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/ipc.h"
#include "core/lifecycle.h"
#include "core/memory.h"
#include "core/share.h"
#include "util/fork.h"
#include "util/log.h"

#define KEY_PREFIX "acl-cuda-ipc:"

typedef struct ipc_export {
    char key[IPC_KEY_LEN];
    share_name name;
    uintptr_t ptr;  /* the exported address */
    bool withdrawn; /* its memory was freed: the broker no longer has it */
    uint64_t attr;
    struct ipc_export *next;
} ipc_export;

typedef struct ipc_import {
    char key[IPC_KEY_LEN];
    void *ptr;
    size_t size;
    backend_import *imp;
    unsigned refs; /* imports of the key not closed yet */
    uint64_t attr;
    struct ipc_import *next;
} ipc_import;

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static ipc_export *exports;
static ipc_import *imports;
/* How many exports are listed or under way: frees look at the list only
 * when some are. */
static atomic_size_t export_count;

static void key_of(const share_name *name, char key[IPC_KEY_LEN])
{
    snprintf(key, IPC_KEY_LEN, KEY_PREFIX "%" PRId32 ":%" PRIx64 ":%016" PRIx64, name->pid,
             name->id, name->nonce);
}

static bool key_parse(const char *key, share_name *name)
{
    if (strnlen(key, IPC_KEY_LEN) >= IPC_KEY_LEN ||
        strncmp(key, KEY_PREFIX, sizeof KEY_PREFIX - 1) != 0)
        return false;
    int32_t pid;
    uint64_t id, nonce;
    int used = 0;
    if (sscanf(key + sizeof KEY_PREFIX - 1, "%" SCNd32 ":%" SCNx64 ":%" SCNx64 "%n", &pid, &id,
               &nonce, &used) != 3 ||
        key[sizeof KEY_PREFIX - 1 + (size_t)used] != '\0' || pid <= 0)
        return false;
    *name = (share_name){.pid = pid, .id = id, .nonce = nonce};
    return true;
}

static ipc_export *export_of(const char *key)
{
    for (ipc_export *x = exports; x; x = x->next)
        if (strcmp(x->key, key) == 0)
            return x;
    return NULL;
}

static ipc_import *import_of(const char *key)
{
    for (ipc_import *m = imports; m; m = m->next)
        if (strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

static aclError unknown_key(const char *api, const char *key)
{
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "key \"%.*s\" is not a key this process exported or imported (never made by "
                     "aclrtIpcMemGetExportKey, or closed)",
                     IPC_KEY_LEN, key);
}

/* An importer gets the whole allocation whatever the key's range (on CUDA
 * it maps the whole cudaMalloc allocation, on the host backend it is passed
 * the allocation's descriptor), so a key names a whole allocation: anything
 * less would hand the importer memory that was not exported. Where memory
 * is mapped in whole blocks (share_block: on CUDA allocations under 2 MiB
 * share them with others), the allocation must also own its blocks. CANN
 * refuses exports that are not page aligned for the same reason. ACL's
 * padding (at most 63 bytes) may stay out of the export. */
static aclError check_whole_allocation(const char *api, const void *ptr, size_t size,
                                       const mem_block *b)
{
    size_t block = backend()->memory->share_block;
    if (block != 0 && (b->capacity < block || b->base % block != 0 || b->capacity % block != 0))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p (%zu bytes) shares its %zu MiB block with other allocations, all "
                         "of which an importer would map; allocate memory you export with at "
                         "least %zu MiB (as CANN's huge pages), or share it through the VMM "
                         "interfaces",
                         ptr, b->size, block >> 20, block >> 20);
    if ((uintptr_t)ptr != b->base || size + 64 <= b->size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p..+%zu is part of the %zu-byte allocation at %#" PRIxPTR
                         ", all of which an importer would map; export the allocation whole, "
                         "from its start",
                         ptr, size, b->size, b->base);
    return ACL_SUCCESS;
}

/* Under ipc_lock, counted in export_count. */
static aclError export_locked(const char *api, void *ptr, size_t size, char *key, size_t len,
                              bool check_pids)
{
    mem_block b;
    if (!registry_find(ptr, &b) || b.kind != MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not device memory from aclrtMalloc (never allocated, freed, or "
                         "another kind of memory)",
                         ptr);
    if (b.origin != ORIGIN_MALLOC && b.origin != ORIGIN_TASK_SCHEDULER)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is %s; only memory from aclrtMalloc can be shared with a key", ptr,
                         memory_where(&b));
    aclError ret = memory_check_extent(api, "devPtr", ptr, size, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    if (len < IPC_KEY_LEN)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "len %zu is too short for a key (%d bytes with its terminator; ACL "
                         "passes 65)",
                         len, IPC_KEY_LEN);
    ret = check_whole_allocation(api, ptr, size, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    mem_blob blob = {.size = size};
    size_t backend_len = sizeof blob.backend;
    int fd = -1;
    ret = backend()->ipc->mem_export(b.phys, (void *)b.base, (size_t)((uintptr_t)ptr - b.base),
                                     size, blob.backend, &backend_len, &fd);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "%p cannot be shared: %s", ptr, acl_error_text(ret));
    blob.backend_len = (uint32_t)backend_len;
    ipc_export *x = calloc(1, sizeof *x);
    if (x == NULL) {
        if (fd >= 0)
            close(fd);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    ret = share_publish(SHARE_IPC_MEMORY, fd, &blob, sizeof blob, check_pids, false, &x->name);
    if (ret != ACL_SUCCESS) {
        if (fd >= 0)
            close(fd);
        free(x);
        return acl_raise(api, ret, "%p cannot be shared: %s", ptr, acl_error_text(ret));
    }
    key_of(&x->name, x->key);
    x->ptr = (uintptr_t)ptr;
    x->next = exports;
    exports = x;
    memcpy(key, x->key, IPC_KEY_LEN);
    ACL_LOG(LOG_DEBUG, "%p (%zu bytes) exported as %s", ptr, size, x->key);
    return ACL_SUCCESS;
}

/* An export in flight counts already, and holds ipc_lock from its look at
 * the registry to its listing: a free of the memory meanwhile either took
 * it out of the registry first (the export is refused) or waits in
 * memory_freed and withdraws the export, before the backend frees the
 * block the backend was exporting. */
aclError ipc_mem_export(const char *api, void *ptr, size_t size, char *key, size_t len,
                        bool check_pids)
{
    atomic_fetch_add_explicit(&export_count, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst); /* the count, then the registry: see memory_freed */
    pthread_mutex_lock(&ipc_lock);
    aclError ret = export_locked(api, ptr, size, key, len, check_pids);
    pthread_mutex_unlock(&ipc_lock);
    if (ret != ACL_SUCCESS)
        atomic_fetch_sub_explicit(&export_count, 1, memory_order_relaxed);
    return ret;
}

aclError ipc_mem_allow(const char *api, const char *key, const int32_t *pids, size_t count)
{
    pthread_mutex_lock(&ipc_lock);
    ipc_export *x = export_of(key);
    share_name name = x ? x->name : (share_name){0};
    bool withdrawn = x && x->withdrawn;
    pthread_mutex_unlock(&ipc_lock);
    if (x == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "key \"%.*s\" is not a key this process exported (or it was closed)",
                         IPC_KEY_LEN, key);
    if (withdrawn)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the memory of key \"%s\" was freed: the key names nothing any more", key);
    return share_allow(api, &name, pids, count);
}

/* ---- imports closed while work may use them ---------------------------------------
 * The last aclrtIpcMemClose of an import takes it out of the registry at
 * once (nothing new reaches it), and its mapping goes once the work queued
 * before the close on every stream (of any device: peers reach it too) has
 * passed, as a release of virtual memory does (core/deferred.h). */

static void import_close(void *imp)
{
    backend()->ipc->mem_close(imp);
}

static void retire_import(backend_import *imp)
{
    deferral *d = deferred_begin(true);
    if (d == NULL) {
        ACL_LOG(LOG_ERROR, "the work queued before an import's close could not be marked (out of "
                           "host memory): its mapping stays until the process ends");
        return;
    }
    if (deferred_idle(d)) {
        deferred_cancel(d);
        import_close(imp);
        return;
    }
    deferred_add(d, import_close, NULL, imp, NULL, 0);
}

aclError ipc_mem_import(const char *api, acl_context *ctx, void **ptr, const char *key)
{
    deferred_reap();
    share_name name;
    if (!key_parse(key, &name))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "\"%.*s\" is not a key from aclrtIpcMemGetExportKey", IPC_KEY_LEN, key);
    if (name.pid == (int32_t)getpid())
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "key \"%s\" was exported by this process: a key is imported by another "
                         "process",
                         key);
    pthread_mutex_lock(&ipc_lock);
    ipc_import *m = import_of(key);
    if (m != NULL) {
        /* Imported already: the same address, one more close to come. */
        m->refs++;
        *ptr = m->ptr;
        pthread_mutex_unlock(&ipc_lock);
        return ACL_SUCCESS;
    }
    pthread_mutex_unlock(&ipc_lock);

    mem_blob blob;
    size_t len = sizeof blob;
    int fd;
    aclError ret = share_fetch(&name, SHARE_IPC_MEMORY, &fd, &blob, &len);
    if (ret == ACL_ERROR_RT_NO_PERMISSION)
        return acl_raise(api, ret,
                         "process %d is not allowed to import \"%s\": the exporter lists "
                         "importers with aclrtIpcMemSetImportPid (pids from "
                         "aclrtDeviceGetBareTgid)",
                         (int)getpid(), key);
    if (ret == ACL_ERROR_INVALID_PARAM)
        return acl_raise(api, ret,
                         "key \"%s\" names no shared memory (closed, or its process ended)", key);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot reach process %d for key \"%s\": %s", (int)name.pid, key,
                         acl_error_text(ret));
    if (len != sizeof blob || blob.backend_len > sizeof blob.backend) {
        if (fd >= 0)
            close(fd);
        return acl_raise(api, ACL_ERROR_RT_IPC_ERROR, "process %d described key \"%s\" badly",
                         (int)name.pid, key);
    }
    m = calloc(1, sizeof *m);
    void *p = NULL;
    size_t mapped = 0;
    backend_import *imp = NULL;
    ret = m ? backend()->ipc->mem_import(ctx->phys, blob.backend, blob.backend_len, fd, &p, &mapped,
                                         &imp)
            : ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (fd >= 0)
        close(fd);
    if (ret == ACL_SUCCESS && blob.size > mapped) {
        backend()->ipc->mem_close(imp);
        ret = ACL_ERROR_RT_IPC_ERROR;
    }
    if (ret != ACL_SUCCESS) {
        free(m);
        return acl_raise(api, ret, "mapping the memory of key \"%s\" failed: %s", key,
                         acl_error_text(ret));
    }
    ret = memory_register(&(mem_block){.base = (uintptr_t)p,
                                       .size = blob.size,
                                       .capacity = blob.size,
                                       .kind = MEM_DEVICE,
                                       .origin = ORIGIN_IPC,
                                       .phys = ctx->phys,
                                       .device = ctx->device,
                                       .owner = m});
    if (ret != ACL_SUCCESS) {
        backend()->ipc->mem_close(imp);
        free(m);
        return acl_raise(api, ret, "cannot record the memory of key \"%s\"", key);
    }
    snprintf(m->key, sizeof m->key, "%s", key);
    m->ptr = p;
    m->size = blob.size;
    m->imp = imp;
    m->refs = 1;
    pthread_mutex_lock(&ipc_lock);
    ipc_import *raced = import_of(key);
    void *raced_ptr = NULL;
    if (raced == NULL) {
        m->next = imports;
        imports = m;
    } else {
        raced->refs++;
        raced_ptr = raced->ptr; /* read here: a close may free raced once the lock is gone */
    }
    pthread_mutex_unlock(&ipc_lock);
    if (raced != NULL) { /* another thread imported it meanwhile: use that one */
        mem_block gone;
        (void)memory_unregister(p, ORIGIN_IPC, &gone);
        backend()->ipc->mem_close(imp);
        free(m);
        *ptr = raced_ptr;
        return ACL_SUCCESS;
    }
    ACL_LOG(LOG_DEBUG, "%s imported at %p (%zu bytes)", key, p, m->size);
    *ptr = p;
    return ACL_SUCCESS;
}

aclError ipc_mem_set_attr(const char *api, const char *key, uint64_t attr)
{
    pthread_mutex_lock(&ipc_lock);
    ipc_export *x = export_of(key);
    ipc_import *m = x ? NULL : import_of(key);
    if (x)
        x->attr = attr;
    else if (m)
        m->attr = attr;
    pthread_mutex_unlock(&ipc_lock);
    return x || m ? ACL_SUCCESS : unknown_key(api, key);
}

aclError ipc_mem_close(const char *api, const char *key)
{
    deferred_reap();
    pthread_mutex_lock(&ipc_lock);
    ipc_import *gone_import = NULL;
    ipc_export *gone_export = NULL;
    for (ipc_import **link = &imports; *link; link = &(*link)->next) {
        if (strcmp((*link)->key, key) == 0) {
            if (--(*link)->refs == 0) {
                gone_import = *link;
                *link = gone_import->next;
            }
            pthread_mutex_unlock(&ipc_lock);
            goto close_import;
        }
    }
    for (ipc_export **link = &exports; *link; link = &(*link)->next) {
        if (strcmp((*link)->key, key) == 0) {
            gone_export = *link;
            *link = gone_export->next;
            atomic_fetch_sub_explicit(&export_count, 1, memory_order_relaxed);
            break;
        }
    }
    pthread_mutex_unlock(&ipc_lock);
    if (gone_export == NULL)
        return unknown_key(api, key);
    if (!gone_export->withdrawn)
        share_withdraw(&gone_export->name);
    free(gone_export);
    return ACL_SUCCESS;
close_import:
    if (gone_import) {
        mem_block b;
        (void)memory_unregister(gone_import->ptr, ORIGIN_IPC, &b);
        retire_import(gone_import->imp);
        free(gone_import);
    }
    return ACL_SUCCESS;
}

/* Freed memory is shared no more: its keys are withdrawn at once, so that
 * none of them names the next allocation placed there. The exporter's
 * aclrtIpcMemClose of such a key still succeeds (and forgets it). */
static void memory_freed(void *subject)
{
    const mem_block *b = subject;
    /* The registry, then the count; an export counts, then looks at the
     * registry: one of the two sees the other. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&export_count, memory_order_relaxed) == 0 || b->kind != MEM_DEVICE)
        return;
    pthread_mutex_lock(&ipc_lock);
    for (ipc_export *x = exports; x; x = x->next) {
        if (!x->withdrawn && x->ptr >= b->base && x->ptr - b->base < b->size) {
            share_withdraw(&x->name);
            x->withdrawn = true;
            ACL_LOG(LOG_DEBUG, "%s withdrawn: its memory was freed", x->key);
        }
    }
    pthread_mutex_unlock(&ipc_lock);
}

/* ---- events -------------------------------------------------------------------- */

/* An aclrtIpcEventHandle is either the backend's own description, when it
 * fits and needs no descriptor (CUDA's cudaIpcEventHandle_t), or a name
 * for the sharing broker behind this tag. */
static const char event_tag[8] = {'a', 'c', 'l', 'e', 'v', 'n', 't', 1};

typedef struct event_name {
    char tag[8];
    share_name name;
} event_name;
_Static_assert(sizeof(event_name) <= sizeof(aclrtIpcEventHandle), "the name fits a handle");

aclError ipc_event_export(const char *api, acl_event *e, aclrtIpcEventHandle *handle)
{
    if (!(e->flags & ACL_EVENT_IPC))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the event was not created with ACL_EVENT_IPC "
                         "(aclrtCreateEventExWithFlag)");
    unsigned char blob[IPC_BLOB_MAX];
    size_t len = sizeof blob;
    int fd = -1;
    aclError ret = backend()->ipc->event_export(event_backend(e), blob, &len, &fd);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "the event cannot be shared: %s", acl_error_text(ret));
    memset(handle, 0, sizeof *handle);
    if (fd < 0 && len <= sizeof handle->reserved) {
        memcpy(handle->reserved, blob, len);
        return ACL_SUCCESS;
    }
    event_name n;
    memcpy(n.tag, event_tag, sizeof n.tag);
    pthread_mutex_lock(&ipc_lock);
    if (e->share != NULL) { /* exported before: the same name */
        n.name = *(share_name *)e->share;
        pthread_mutex_unlock(&ipc_lock);
        if (fd >= 0)
            close(fd);
        memcpy(handle->reserved, &n, sizeof n);
        return ACL_SUCCESS;
    }
    share_name *kept = malloc(sizeof *kept);
    ret = kept ? share_publish(SHARE_EVENT, fd, blob, len, false, false, &n.name)
               : ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (ret == ACL_SUCCESS) {
        *kept = n.name;
        e->share = kept; /* withdrawn when the event goes */
    }
    pthread_mutex_unlock(&ipc_lock);
    if (ret != ACL_SUCCESS) {
        free(kept);
        if (fd >= 0)
            close(fd);
        return acl_raise(api, ret, "the event cannot be shared: %s", acl_error_text(ret));
    }
    memcpy(handle->reserved, &n, sizeof n);
    return ACL_SUCCESS;
}

aclError ipc_event_open(const char *api, acl_context *ctx, const aclrtIpcEventHandle *handle,
                        acl_event **out)
{
    event_name n;
    memcpy(&n, handle->reserved, sizeof n);
    if (memcmp(n.tag, event_tag, sizeof n.tag) != 0)
        return event_open_ipc(api, ctx, handle->reserved, sizeof handle->reserved, -1, out);
    if (n.name.pid == (int32_t)getpid())
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the handle names an event of this process: it is opened by another "
                         "process");
    unsigned char blob[IPC_BLOB_MAX];
    size_t len = sizeof blob;
    int fd;
    aclError ret = share_fetch(&n.name, SHARE_EVENT, &fd, blob, &len);
    if (ret == ACL_ERROR_INVALID_PARAM)
        return acl_raise(api, ret, "the handle names no event (destroyed, or its process ended)");
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot reach process %d for the event: %s", (int)n.name.pid,
                         acl_error_text(ret));
    ret = event_open_ipc(api, ctx, blob, len, fd, out);
    if (fd >= 0)
        close(fd);
    return ret;
}

/* ---- fork ---------------------------------------------------------------------- */

static void fork_prepare(void)
{
    pthread_mutex_lock(&ipc_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&ipc_lock);
}

/* The child's keys are its parent's: it exported none of them. */
static void fork_child(void)
{
    ipc_export *x = exports;
    exports = NULL;
    atomic_store_explicit(&export_count, 0, memory_order_relaxed);
    while (x) {
        ipc_export *next = x->next;
        free(x);
        x = next;
    }
    pthread_mutex_unlock(&ipc_lock);
}

__attribute__((constructor)) static void ipc_init(void)
{
    fork_register(FORK_RANK_VMM, fork_prepare, fork_parent, fork_child);
    lifecycle_observe(LIFECYCLE_MEMORY_FREED, memory_freed);
}
