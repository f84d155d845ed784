/* The host backend's sharing between processes.
 *
 * Memory: an exported block of device memory has pages of its own in a
 * memfd (memory.c); the export passes that descriptor and the exported
 * range's offset in it, and the importer maps those pages. A forked child
 * did not import them: its imports become private copies of what they hold,
 * at the same addresses.
 *
 * Events: an event shared with other processes keeps its state in a page
 * of a memfd that every holder maps: how many records were made and how
 * many completed. A record takes the next number and queues a task that
 * completes it (in stream order); a wait or synchronize takes the number of
 * records made at the call and waits until that many completed, sleeping
 * on a futex of the shared page (a process-shared futex; the page and what
 * its tasks do: ipc_page.c). Any process holding the event may record it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/host/host.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/memfd.h"

/* ---- memory --------------------------------------------------------------------------- */

typedef struct mem_blob {
    uint64_t offset, size;
} mem_blob;

struct backend_import {
    void *map;
    size_t span;
    backend_import *next, *prev; /* every import, under imports_lock */
};

static backend_import *imports;
static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;

static void fork_prepare(void)
{
    pthread_mutex_lock(&imports_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&imports_lock);
}

/* A private copy replaces each shared mapping where it is. */
static void fork_child(void)
{
    for (backend_import *i = imports; i; i = i->next) {
        void *copy =
            mmap(NULL, i->span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        bool ok = copy != MAP_FAILED;
        if (ok) {
            memcpy(copy, i->map, i->span);
            ok = mremap(copy, i->span, i->span, MREMAP_MAYMOVE | MREMAP_FIXED, i->map) == i->map;
            if (!ok)
                munmap(copy, i->span);
        }
        if (!ok)
            ACL_LOG(LOG_ERROR, "imported memory at %p could not be made private after fork",
                    i->map);
    }
    pthread_mutex_unlock(&imports_lock);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, fork_prepare, fork_parent, fork_child);
}

static aclError host_mem_export(int32_t dev, void *base, size_t offset, size_t size, void *blob,
                                size_t *blob_len, int *fd)
{
    uint64_t at;
    if (*blob_len < sizeof(mem_blob))
        return ACL_ERROR_RT_INTERNAL_ERROR;
    aclError err = host_arena_export(dev, base, offset, size, fd, &at);
    if (err != ACL_SUCCESS)
        return err;
    mem_blob b = {.offset = at, .size = size};
    memcpy(blob, &b, sizeof b);
    *blob_len = sizeof b;
    return ACL_SUCCESS;
}

/* The exporter's description is checked against its descriptor: a memory
 * file sealed against shrinking that holds the range, or the importer
 * would fault on the missing pages. */
static aclError host_mem_import(int32_t dev, const void *blob, size_t blob_len, int fd, void **ptr,
                                size_t *mapped, backend_import **imp)
{
    (void)dev;
    mem_blob b;
    if (blob_len != sizeof b || fd < 0)
        return ACL_ERROR_RT_IPC_ERROR;
    memcpy(&b, blob, sizeof b);
    size_t page = host_config_get()->page_size;
    uint64_t first = b.offset / page * page;
    if (b.size > SIZE_MAX - page || b.offset > UINT64_MAX - b.size ||
        !memfd_holds(fd, b.offset + b.size))
        return ACL_ERROR_RT_IPC_ERROR;
    size_t span = (size_t)((b.offset - first + b.size + page - 1) / page * page);
    backend_import *i = malloc(sizeof *i);
    if (!i)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    void *map = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)first);
    if (map == MAP_FAILED) {
        free(i);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    *i = (backend_import){.map = map, .span = span};
    pthread_mutex_lock(&imports_lock);
    i->next = imports;
    if (imports)
        imports->prev = i;
    imports = i;
    pthread_mutex_unlock(&imports_lock);
    *ptr = (char *)map + (b.offset - first);
    *mapped = b.size;
    *imp = i;
    return ACL_SUCCESS;
}

static void host_mem_close(backend_import *imp)
{
    pthread_mutex_lock(&imports_lock);
    if (imp->prev)
        imp->prev->next = imp->next;
    else
        imports = imp->next;
    if (imp->next)
        imp->next->prev = imp->prev;
    pthread_mutex_unlock(&imports_lock);
    munmap(imp->map, imp->span);
    free(imp);
}

/* ---- events --------------------------------------------------------------------------- */

/* Maps fd's page as e's; fd stays the caller's on failure. */
static aclError map_page(backend_event *e, int fd)
{
    ipc_map *map = malloc(sizeof *map);
    if (!map)
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    void *p = mmap(NULL, host_config_get()->page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        free(map);
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    }
    atomic_init(&map->refs, 1);
    map->page = p;
    map->fd = fd;
    e->ipc = map;
    return ACL_SUCCESS;
}

static aclError host_ipc_event_create(backend_event *e, int32_t dev)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    int fd = sealed_memfd("acl-ipc-event", host_config_get()->page_size);
    if (fd < 0)
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    if (pthread_mutex_init(&e->lock, NULL)) {
        close(fd);
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    }
    e->dev = dev;
    e->timing = false;
    e->current = NULL;
    aclError err = map_page(e, fd);
    if (err != ACL_SUCCESS) {
        pthread_mutex_destroy(&e->lock);
        close(fd);
        return err;
    }
    host_ipc_page_init(e->ipc->page);
    return ACL_SUCCESS;
}

static aclError host_ipc_event_export(backend_event *e, void *blob, size_t *blob_len, int *fd)
{
    (void)blob;
    if (!e->ipc)
        return ACL_ERROR_RT_PARAM_INVALID;
    int copy = fcntl(e->ipc->fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    *blob_len = 0;
    *fd = copy;
    return ACL_SUCCESS;
}

static aclError host_ipc_event_open(backend_event *e, int32_t dev, const void *blob,
                                    size_t blob_len, int fd)
{
    (void)blob;
    (void)blob_len;
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (fd < 0)
        return ACL_ERROR_RT_PARAM_INVALID; /* no handle of this backend */
    if (!memfd_holds(fd, host_config_get()->page_size))
        return ACL_ERROR_RT_PARAM_INVALID; /* not an event's page */
    int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (pthread_mutex_init(&e->lock, NULL)) {
        close(mine);
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    }
    e->dev = dev;
    e->timing = false;
    e->current = NULL;
    aclError err = map_page(e, mine);
    if (err != ACL_SUCCESS) {
        close(mine);
    } else if (!host_ipc_page_valid(e->ipc->page)) {
        host_ipc_map_release(e->ipc); /* closes mine */
        e->ipc = NULL;
        err = ACL_ERROR_RT_PARAM_INVALID;
    }
    if (err != ACL_SUCCESS)
        pthread_mutex_destroy(&e->lock);
    return err;
}

void host_ipc_event_release(backend_event *e)
{
    if (!e->ipc)
        return;
    host_ipc_map_release(e->ipc);
    e->ipc = NULL;
}

aclError host_ipc_record(host_stream *s, ipc_map *map)
{
    uint64_t seq = host_ipc_record_next(map->page);
    aclError err = host_ipc_enqueue(s, TASK_IPC_SIGNAL, map, seq);
    if (err != ACL_SUCCESS)
        host_ipc_signal(map->page, seq); /* a record that cannot run must not block waiters */
    return err;
}

aclError host_ipc_wait(host_stream *s, ipc_map *map)
{
    uint64_t target = host_ipc_recorded(map->page);
    if (host_ipc_complete(map->page, target))
        return ACL_SUCCESS;
    return host_ipc_enqueue(s, TASK_IPC_WAIT, map, target);
}

const backend_ipc_ops host_ipc_ops = {
    .mem_export = host_mem_export,
    .mem_import = host_mem_import,
    .mem_close = host_mem_close,
    .event_create = host_ipc_event_create,
    .event_export = host_ipc_event_export,
    .event_open = host_ipc_event_open,
};
