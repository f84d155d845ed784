#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/graph.h"
#include "core/notify.h"
#include "util/fork.h"

enum {
    NOTIFY_LIMIT = 65536, /* live notifies of both kinds, as the largest Ascend devices */
    NOTIFY_MAX_PIDS = 1024,
    PAGE_MAGIC = 0x41434e46, /* "ACNF" */
};

static atomic_uint next_notify_id;
static atomic_int live_notifies;

static void exported_remove(const char *path);

typedef struct notify_page {
    uint32_t magic;
    uint32_t check_pid; /* the allow-list applies */
    int32_t owner;      /* the exporting process */
    char backend[16];   /* importers must run the same backend */
    _Atomic uint32_t word;
    _Atomic uint32_t npids;
    int32_t pids[NOTIFY_MAX_PIDS];
    unsigned char blob[NOTIFY_BLOB_SIZE];
} notify_page;

struct notify_share {
    notify_page *page;
    char path[64];
    bool owner;
};

static const char *kind_name(bool counting)
{
    return counting ? "counting notify" : "notify";
}

/* ---- objects ------------------------------------------------------------------------ */

static void notify_free(object *o)
{
    acl_notify *n = (acl_notify *)o;
    backend()->notify->destroy(notify_backend(n));
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
    aclError err = capture_check_unsafe(api, "creating a notify");
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
    if (n->exported)
        exported_remove(n->share->path); /* no new imports; importers keep theirs */
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
    aclError err = capture_check_unsafe(api, "resetting a notify from the host");
    if (err)
        return err;
    err = backend()->notify->reset(notify_backend(n));
    if (err)
        return acl_raise(api, err, "resetting notify %u failed", n->id);
    return ACL_SUCCESS;
}

/* ---- sharing with other processes ---------------------------------------------------------
 * An exported notify's key is "aclnotify-<pid>-<id>"; its page is the file
 * /dev/shm/acl-cuda-notify-<pid>-<id> (readable and writable by the user
 * only), mapped by the exporter and by every importer, and removed when the
 * exporter destroys the notify or exits: importers keep their mapping, new
 * imports fail. Pages stay mapped until the process ends, as queued work
 * may still use a host backend's word in them. */

/* Names this process exported and still owns, removed at exit. */
static pthread_mutex_t exported_lock = PTHREAD_MUTEX_INITIALIZER;
static char (*exported_paths)[64];
static size_t exported_count, exported_cap;

static void exported_add(const char *path)
{
    pthread_mutex_lock(&exported_lock);
    if (exported_count == exported_cap) {
        size_t cap = exported_cap ? 2 * exported_cap : 16;
        char(*grown)[64] = realloc(exported_paths, cap * sizeof *grown);
        if (grown) {
            exported_paths = grown;
            exported_cap = cap;
        }
    }
    if (exported_count < exported_cap)
        snprintf(exported_paths[exported_count++], 64, "%s", path);
    pthread_mutex_unlock(&exported_lock);
}

static void exported_remove(const char *path)
{
    (void)unlink(path);
    pthread_mutex_lock(&exported_lock);
    for (size_t i = 0; i < exported_count; i++) {
        if (strcmp(exported_paths[i], path) == 0) {
            memcpy(exported_paths[i], exported_paths[--exported_count], 64);
            break;
        }
    }
    pthread_mutex_unlock(&exported_lock);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&exported_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&exported_lock);
}

__attribute__((constructor)) static void notify_init(void)
{
    fork_register(FORK_RANK_CALLBACKS, fork_prepare, fork_done, fork_done);
}

__attribute__((destructor)) static void exported_cleanup(void)
{
    /* Only the process that made them: a forked child shares the list. */
    static const char prefix[] = "/dev/shm/acl-cuda-notify-";
    char mine[64];
    snprintf(mine, sizeof mine, "%s%d-", prefix, (int)getpid());
    for (size_t i = 0; i < exported_count; i++)
        if (strncmp(exported_paths[i], mine, strlen(mine)) == 0)
            (void)unlink(exported_paths[i]);
}

static void page_path(char *out, size_t size, int pid, unsigned id)
{
    snprintf(out, size, "/dev/shm/acl-cuda-notify-%d-%u", pid, id);
}

static notify_page *page_map(int fd)
{
    void *p = mmap(NULL, sizeof(notify_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

aclError notify_export(const char *api, acl_notify *n, char *key, size_t len, bool check_pid)
{
    int pid = (int)getpid();
    char k[NOTIFY_KEY_SIZE];
    snprintf(k, sizeof k, "aclnotify-%d-%u", pid, n->id);
    if (len < strlen(k) + 1)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "key buffer of %zu bytes is too small: the key needs %zu (ACL asks for "
                         "%d)",
                         len, strlen(k) + 1, NOTIFY_KEY_SIZE);
    if (n->share)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "notify %u is %s already", n->id,
                         n->exported ? "exported" : "imported from another process");
    struct notify_share *share = calloc(1, sizeof *share);
    if (!share)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    page_path(share->path, sizeof share->path, pid, n->id);
    int fd = open(share->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    notify_page *page = NULL;
    if (fd >= 0 && ftruncate(fd, sizeof(notify_page)) == 0)
        page = page_map(fd);
    int saved = errno;
    aclError err;
    if (fd >= 0)
        close(fd);
    if (!page) {
        if (fd >= 0)
            (void)unlink(share->path);
        err = acl_raise(api, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot make %s: %s", share->path,
                        strerror(saved));
        free(share);
        return err;
    }
    memset(page, 0, sizeof *page);
    page->check_pid = check_pid;
    page->owner = pid;
    snprintf(page->backend, sizeof page->backend, "%s", backend()->name);
    err = backend()->notify->share(notify_backend(n), &page->word, page->blob);
    if (err) {
        munmap(page, sizeof *page);
        (void)unlink(share->path);
        free(share);
        return acl_raise(api, err, "notify %u cannot be shared on the %s backend", n->id,
                         backend()->name);
    }
    atomic_thread_fence(memory_order_release);
    page->magic = PAGE_MAGIC; /* complete: importers may use it */
    share->page = page;
    share->owner = true;
    n->share = share;
    n->exported = true;
    exported_add(share->path);
    memcpy(key, k, strlen(k) + 1);
    return ACL_SUCCESS;
}

aclError notify_allow_pids(const char *api, acl_notify *n, const int32_t *pids, size_t num)
{
    if (!n->exported)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "notify %u was not exported: call aclrtNotifyGetExportKey first", n->id);
    notify_page *page = n->share->page;
    uint32_t have = atomic_load(&page->npids);
    if (num > NOTIFY_MAX_PIDS - have)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "at most %d processes may be allowed per notify (%u are already)",
                         NOTIFY_MAX_PIDS, have);
    for (size_t i = 0; i < num; i++) {
        if (pids[i] <= 0)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "pid[%zu] = %d is not a process id", i,
                             (int)pids[i]);
    }
    /* Written before the count that publishes them. */
    memcpy(&page->pids[have], pids, num * sizeof *pids);
    atomic_store(&page->npids, have + (uint32_t)num);
    return ACL_SUCCESS;
}

static bool pid_allowed(const notify_page *page, int pid)
{
    if (!page->check_pid || page->owner == pid)
        return true;
    uint32_t count = atomic_load((_Atomic uint32_t *)&page->npids);
    for (uint32_t i = 0; i < count && i < NOTIFY_MAX_PIDS; i++)
        if (page->pids[i] == pid)
            return true;
    return false;
}

aclError notify_import(const char *api, acl_context *ctx, const char *key, bool peer_access,
                       acl_notify **out)
{
    int pid, used = 0;
    unsigned id;
    if (strnlen(key, NOTIFY_KEY_SIZE) == NOTIFY_KEY_SIZE ||
        sscanf(key, "aclnotify-%d-%u%n", &pid, &id, &used) != 2 || key[used] != '\0' || pid <= 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "\"%.*s\" is not a key of aclrtNotifyGetExportKey", NOTIFY_KEY_SIZE, key);
    struct notify_share *share = calloc(1, sizeof *share);
    if (!share)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    page_path(share->path, sizeof share->path, pid, id);
    int fd = open(share->path, O_RDWR | O_CLOEXEC);
    struct stat st;
    notify_page *page = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size == sizeof(notify_page))
        page = page_map(fd);
    if (fd >= 0)
        close(fd);
    const char *refusal = NULL;
    aclError code = ACL_ERROR_INVALID_PARAM;
    if (!page)
        refusal = "no notify is exported under this key (or its exporter destroyed it)";
    else if (page->magic != PAGE_MAGIC)
        refusal = "the notify's export is not complete";
    else if (strcmp(page->backend, backend()->name) != 0)
        refusal = "the exporting process runs another backend";
    else if (!pid_allowed(page, (int)getpid())) {
        refusal = "this process is not on the notify's allow-list (aclrtNotifySetImportPid)";
        code = ACL_ERROR_RT_NO_PERMISSION;
    }
    if (refusal) {
        if (page)
            munmap(page, sizeof *page);
        free(share);
        return acl_raise(api, code, "cannot import \"%s\": %s", key, refusal);
    }
    share->page = page;
    aclError err;
    acl_notify *n = notify_alloc(api, false, &err);
    if (!n) {
        munmap(page, sizeof *page);
        free(share);
        return err;
    }
    err =
        backend()->notify->open(notify_backend(n), ctx->phys, &page->word, page->blob, peer_access);
    if (err) {
        munmap(page, sizeof *page);
        free(share);
        free(n);
        atomic_fetch_sub(&live_notifies, 1);
        return acl_raise(api, err, "opening notify \"%s\" on device %d failed", key,
                         (int)ctx->device);
    }
    n->share = share;
    return notify_publish(api, n, ctx, out);
}
