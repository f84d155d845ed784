#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/sink.h"
#include "core/notify.h"
#include "core/share.h"
#include "util/fork.h"
#include "util/memfd.h"

enum {
    NOTIFY_LIMIT = 65536,    /* live notifies of both kinds, as the largest Ascend devices */
    PAGE_MAGIC = 0x41434e46, /* "ACNF" */
};

#define KEY_FORMAT "aclnotify-%" PRId32 "-%016" PRIx64 "-%016" PRIx64

typedef struct notify_page {
    uint32_t magic;
    _Atomic uint32_t word;
} notify_page;

/* What the importer gets besides the page. */
typedef struct notify_blob {
    char backend[16]; /* importers must run the same backend */
    unsigned char blob[NOTIFY_BLOB_SIZE];
} notify_blob;
_Static_assert(sizeof(notify_blob) <= SHARE_BLOB_MAX, "a notify's blob fits the broker's");

/* An exported notify's: its page went to the backend with the word. */
struct notify_share {
    int fd;           /* the page's memfd until the broker's entry owns it, then -1 */
    notify_blob blob; /* what the broker hands out with it */
    share_name name;  /* once published */
};

static atomic_uint next_notify_id;
static atomic_int live_notifies;

/* Serialises exports with each other and with destroys: a notify is
 * published once, and never after its destroy withdrew what was. */
static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *kind_name(bool counting)
{
    return counting ? "counting notify" : "notify";
}

/* ---- objects ------------------------------------------------------------------------ */

static void notify_free(object *o)
{
    acl_notify *n = (acl_notify *)o;
    backend()->notify->destroy(notify_backend(n));
    if (n->share && n->share->fd >= 0)
        close(n->share->fd);
    free(n->share);
    free(n);
    atomic_fetch_sub(&live_notifies, 1);
}

/* An unpublished notify with room for the backend's; the caller makes it. */
static acl_notify *notify_alloc(const char *api, bool counting, aclError *err)
{
    if (atomic_fetch_add(&live_notifies, 1) >= NOTIFY_LIMIT) {
        atomic_fetch_sub(&live_notifies, 1);
        *err = acl_raise(api, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "%d notifies are live already",
                         NOTIFY_LIMIT);
        return NULL;
    }
    acl_notify *n = calloc(1, sizeof *n + backend()->notify->size);
    if (!n) {
        atomic_fetch_sub(&live_notifies, 1);
        *err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return NULL;
    }
    n->counting = counting;
    return n;
}

static aclError notify_publish(const char *api, acl_notify *n, acl_context *ctx, acl_notify **out)
{
    n->phys = ctx->phys;
    n->device = ctx->device;
    n->id = atomic_fetch_add(&next_notify_id, 1);
    aclError err =
        handle_publish(&n->obj, n->counting ? HANDLE_CNT_NOTIFY : HANDLE_NOTIFY, notify_free);
    if (err) {
        notify_free(&n->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    *out = n;
    return ACL_SUCCESS;
}

aclError notify_create(const char *api, acl_context *ctx, bool counting, acl_notify **out)
{
    /* A notify's word is device memory cleared in place: on CUDA, an
     * allocation and a synchronous fill, which captures forbid. */
    aclError err = sink_check_unsafe(api, "creating a notify");
    if (err)
        return err;
    acl_notify *n = notify_alloc(api, counting, &err);
    if (!n)
        return err;
    err = backend()->notify->create(notify_backend(n), ctx->phys);
    if (err) {
        free(n);
        atomic_fetch_sub(&live_notifies, 1);
        return acl_raise(api, err, "creating a %s on device %d failed", kind_name(counting),
                         (int)ctx->device);
    }
    return notify_publish(api, n, ctx, out);
}

static handle_kind notify_kind(bool counting)
{
    return counting ? HANDLE_CNT_NOTIFY : HANDLE_NOTIFY;
}

aclError notify_get(const char *api, void *handle, bool counting, acl_notify **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the %s is NULL", kind_name(counting));
    *out = (acl_notify *)handle_get(handle, notify_kind(counting));
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live %s%s", handle,
                     kind_name(counting),
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

/* Queued records and waits keep the backend's word (backend.h). */
aclError notify_destroy(const char *api, void *handle, bool counting)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the %s is NULL", kind_name(counting));
    object *o = handle_take(handle, notify_kind(counting));
    if (!o)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live %s%s", handle,
                         kind_name(counting),
                         handle_kind_of(handle) ? " (it is another kind of handle)" : "");
    acl_notify *n = (acl_notify *)o;
    pthread_mutex_lock(&export_lock);
    if (n->exported)
        share_withdraw(&n->share->name); /* no new imports; importers keep theirs */
    pthread_mutex_unlock(&export_lock);
    object_put(o);
    return ACL_SUCCESS;
}

/* ---- stream tasks ----------------------------------------------------------------------- */

aclError notify_record(const char *api, acl_notify *n, acl_stream *s)
{
    return stream_submit(api, s,
                         &(task){.kind = TASK_NOTIFY_RECORD, .u.notify.notify = notify_backend(n)});
}

aclError notify_wait(const char *api, acl_notify *n, acl_stream *s, uint32_t timeout_s)
{
    return stream_submit(
        api, s,
        &(task){.kind = TASK_NOTIFY_WAIT,
                .u.notify = {.notify = notify_backend(n), .timeout_s = timeout_s}});
}

aclError notify_count(const char *api, acl_notify *n, acl_stream *s, uint32_t mode, uint32_t value)
{
    return stream_submit(
        api, s,
        &(task){.kind = TASK_CNT_NOTIFY_RECORD,
                .u.notify = {.notify = notify_backend(n), .mode = mode, .value = value}});
}

aclError notify_count_wait(const char *api, acl_notify *n, acl_stream *s, uint32_t cmp,
                           uint32_t value, uint32_t timeout_s, bool clear)
{
    return stream_submit(api, s,
                         &(task){.kind = TASK_CNT_NOTIFY_WAIT,
                                 .u.notify = {.notify = notify_backend(n),
                                              .mode = cmp,
                                              .value = value,
                                              .timeout_s = timeout_s,
                                              .clear = clear}});
}

aclError notify_reset(const char *api, acl_notify *n)
{
    aclError err = sink_check_unsafe(api, "resetting a notify from the host");
    if (err)
        return err;
    err = backend()->notify->reset(notify_backend(n));
    if (err)
        return acl_raise(api, err, "resetting notify %u failed", n->id);
    return ACL_SUCCESS;
}

/* ---- sharing with other processes ---------------------------------------------------------
 * An exported notify is an entry of the sharing broker (share.h): its key
 * is "aclnotify-<pid>-<id>-<nonce>" (the broker's random name), the
 * descriptor it passes is a page of a memfd holding the word (the host
 * backend keeps the word there from then on), sealed against resizing,
 * and its blob the backend's description (the cuda backend's CUDA IPC
 * handle). The exporter's broker checks the allow-list; destroying the
 * notify withdraws it: importers keep their mapping, new imports fail.
 * Each process's mapping goes to the backend with the word
 * (backend_shared_word), which unmaps it once nothing can use the word:
 * on the host backend after the notify's destroy and its last queued or
 * captured task, on cuda at once (its word is device memory). */

static notify_page *page_map(int fd)
{
    void *p = mmap(NULL, sizeof(notify_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void page_unmap(void *page)
{
    munmap(page, sizeof(notify_page));
}

/* A mapped page of a fresh memfd (*fd), sealed: no process can resize it,
 * which would make every other process's next touch of its word a
 * SIGBUS. NULL with errno set. */
static notify_page *page_make(int *fd)
{
    *fd = sealed_memfd("acl-notify", sizeof(notify_page));
    if (*fd < 0)
        return NULL;
    notify_page *page = page_map(*fd);
    if (!page) {
        int saved = errno;
        close(*fd);
        errno = saved;
    }
    return page;
}

/* Moves n's word into a page of its own (n->share), once: stream work
 * may use it there at once, so a failed publication keeps it for the
 * next export. */
static aclError notify_move_word(const char *api, acl_notify *n)
{
    struct notify_share *share = calloc(1, sizeof *share); /* the blob goes out whole */
    if (!share)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    notify_page *page = page_make(&share->fd);
    if (!page) {
        aclError err =
            acl_raise(api, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                      "cannot make a shared page for notify %u: %s", n->id, strerror(errno));
        free(share);
        return err;
    }
    page->magic = PAGE_MAGIC;
    snprintf(share->blob.backend, sizeof share->blob.backend, "%s", backend()->name);
    aclError err = backend()->notify->share(
        notify_backend(n), &(backend_shared_word){&page->word, page_unmap, page}, share->blob.blob);
    if (err) {
        page_unmap(page);
        close(share->fd);
        free(share);
        if (err == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
            return acl_raise(api, err,
                             "notify %u was recorded or waited for already: the %s backend "
                             "exports a notify before its first stream task",
                             n->id, backend()->name);
        return acl_raise(api, err, "notify %u cannot be shared on the %s backend: %s", n->id,
                         backend()->name, acl_error_text(err));
    }
    n->share = share;
    return ACL_SUCCESS;
}

/* Under export_lock. */
static aclError export_locked(const char *api, acl_notify *n, char *key, size_t len, bool check_pid)
{
    if (!object_live(&n->obj))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "notify %u was destroyed meanwhile", n->id);
    if (n->exported || n->imported)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "notify %u is %s already", n->id,
                         n->exported ? "exported" : "imported from another process");
    aclError err = n->share ? ACL_SUCCESS : notify_move_word(api, n);
    if (err)
        return err;
    struct notify_share *share = n->share;
    err = share_publish(SHARE_NOTIFY, share->fd, &share->blob, sizeof share->blob, check_pid, false,
                        &share->name);
    if (err)
        return acl_raise(api, err, "notify %u cannot be shared: %s", n->id, acl_error_text(err));
    share->fd = -1;
    n->exported = true;
    snprintf(key, len, KEY_FORMAT, share->name.pid, share->name.id, share->name.nonce);
    return ACL_SUCCESS;
}

aclError notify_export(const char *api, acl_notify *n, char *key, size_t len, bool check_pid)
{
    /* Every key of this process has the same length (the numbers are padded). */
    size_t need =
        (size_t)snprintf(NULL, 0, KEY_FORMAT, (int32_t)getpid(), (uint64_t)0, (uint64_t)0) + 1;
    if (len < need)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "key buffer of %zu bytes is too small: the key needs %zu (ACL asks for "
                         "%d)",
                         len, need, NOTIFY_KEY_SIZE);
    pthread_mutex_lock(&export_lock);
    aclError err = export_locked(api, n, key, len, check_pid);
    pthread_mutex_unlock(&export_lock);
    return err;
}

aclError notify_allow_pids(const char *api, acl_notify *n, const int32_t *pids, size_t num)
{
    pthread_mutex_lock(&export_lock);
    bool exported = n->exported;
    pthread_mutex_unlock(&export_lock);
    if (!exported)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "notify %u was not exported: call aclrtNotifyGetExportKey first", n->id);
    return share_allow(api, &n->share->name, pids, num);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&export_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&export_lock);
}

__attribute__((constructor)) static void notify_fork_register(void)
{
    fork_register(FORK_RANK_VMM, fork_prepare, fork_done, fork_done);
}

aclError notify_import(const char *api, acl_context *ctx, const char *key, bool peer_access,
                       acl_notify **out)
{
    share_name name = {0};
    int used = 0;
    if (strnlen(key, NOTIFY_KEY_SIZE) == NOTIFY_KEY_SIZE ||
        sscanf(key, "aclnotify-%" SCNd32 "-%" SCNx64 "-%" SCNx64 "%n", &name.pid, &name.id,
               &name.nonce, &used) != 3 ||
        key[used] != '\0' || name.pid <= 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "\"%.*s\" is not a key of aclrtNotifyGetExportKey", NOTIFY_KEY_SIZE, key);
    notify_blob blob;
    size_t blob_len = sizeof blob;
    int fd = -1;
    aclError err = share_fetch(&name, SHARE_NOTIFY, &fd, &blob, &blob_len);
    if (err == ACL_ERROR_RT_NO_PERMISSION)
        return acl_raise(api, err,
                         "cannot import \"%s\": process %d is not on the notify's allow-list "
                         "(aclrtNotifySetImportPid)",
                         key, (int)getpid());
    if (err == ACL_ERROR_INVALID_PARAM)
        return acl_raise(api, err,
                         "cannot import \"%s\": no notify is exported under this key (or its "
                         "exporter destroyed it or ended)",
                         key);
    if (err)
        return acl_raise(api, err, "cannot reach process %d for \"%s\": %s", (int)name.pid, key,
                         acl_error_text(err));
    notify_page *page = NULL;
    const char *refusal = NULL;
    if (fd < 0 || blob_len != sizeof blob)
        refusal = "the exporter described the notify badly";
    else if (!memfd_holds(fd, sizeof(notify_page)))
        refusal = "the exporter's page is too small or not sealed against resizing";
    else if (!(page = page_map(fd)))
        refusal = "the exporter's page cannot be mapped";
    else if (page->magic != PAGE_MAGIC)
        refusal = "the exporter's page is not a notify's";
    else if (strncmp(blob.backend, backend()->name, sizeof blob.backend) != 0)
        refusal = "the exporting process runs another backend";
    if (fd >= 0)
        close(fd);
    if (refusal) {
        if (page)
            page_unmap(page);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "cannot import \"%s\": %s", key, refusal);
    }
    acl_notify *n = notify_alloc(api, false, &err);
    if (!n) {
        page_unmap(page);
        return err;
    }
    err = backend()->notify->open(notify_backend(n), ctx->phys,
                                  &(backend_shared_word){&page->word, page_unmap, page}, blob.blob,
                                  peer_access);
    if (err) {
        page_unmap(page);
        free(n);
        atomic_fetch_sub(&live_notifies, 1);
        return acl_raise(api, err, "opening notify \"%s\" on device %d failed", key,
                         (int)ctx->device);
    }
    n->imported = true;
    return notify_publish(api, n, ctx, out);
}
