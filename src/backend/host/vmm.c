/* The host backend's virtual memory: a reservation is an inaccessible
 * anonymous mapping, physical memory is a memfd (charged to its device's
 * capacity like any device memory), and mapping places the memfd over part
 * of a reservation with MAP_FIXED; unmapping puts the inaccessible mapping
 * back. Because the physical memory is a file, another process can map it
 * too (export_fd).
 *
 * A forked child gets a copy of each physical allocation (a new memfd with
 * what the old one holds) mapped where its parent's was, with the same
 * access, so that a child never writes its parent's memory (nor the
 * memory of a process its parent shares with) while its own mappings of
 * one allocation still alias. So the physical allocations and mappings are
 * listed, under vmm_lock (of the backend's rank). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels take it as a hint */
#endif

#include "backend/host/host.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/memfd.h"

#define GIB ((size_t)1 << 30)
#define HUGE_PAGE ((size_t)2 << 20)

struct backend_phys {
    int fd;
    size_t size;
    int32_t dev; /* charged device, -1 for host memory */
    /* Under vmm_lock: in all_phys until destroyed and unmapped. */
    backend_phys *next, *prev;
    size_t maps;
    bool destroyed;
};

/* A mapping of physical memory (offset 0) and the access it has now. */
typedef struct mapping {
    char *va;
    size_t size;
    backend_phys *phys;
    int prot;
    struct mapping *next;
} mapping;

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static backend_phys *all_phys;
static mapping *all_mappings;

static void phys_list_add(backend_phys *p)
{
    pthread_mutex_lock(&vmm_lock);
    p->prev = NULL;
    p->next = all_phys;
    if (all_phys)
        all_phys->prev = p;
    all_phys = p;
    pthread_mutex_unlock(&vmm_lock);
}

/* With vmm_lock held: p leaves the list once destroyed and unmapped, and
 * the caller frees it. */
static bool phys_list_leave(backend_phys *p)
{
    if (!p->destroyed || p->maps > 0)
        return false;
    if (p->prev)
        p->prev->next = p->next;
    else
        all_phys = p->next;
    if (p->next)
        p->next->prev = p->prev;
    return true;
}

static void host_phys_free(backend_phys *p)
{
    close(p->fd);
    free(p);
}

/* ---- fork ------------------------------------------------------------------------ */

/* Copies what from holds into to (both size bytes), extent by extent where
 * the file system tells holes from data. */
static bool copy_file(int from, int to, size_t size)
{
    enum { CHUNK = 1 << 16 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return false;
    bool ok = true;
    off_t at = 0, end = (off_t)size;
    while (ok && at < end) {
        off_t data = lseek(from, at, SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO)
                break; /* only a hole is left */
            data = at;
        }
        off_t hole = lseek(from, data, SEEK_HOLE);
        if (hole < 0 || hole > end)
            hole = end;
        for (off_t pos = data; ok && pos < hole;) {
            size_t want = (size_t)(hole - pos) < CHUNK ? (size_t)(hole - pos) : CHUNK;
            ssize_t got = pread(from, buf, want, pos);
            ok = got > 0 && pwrite(to, buf, (size_t)got, pos) == got;
            pos += got > 0 ? got : 0;
        }
        at = hole;
    }
    free(buf);
    return ok;
}

/* phys's memory becomes a copy of its own, and its mappings map the copy. */
static bool phys_make_private(backend_phys *p)
{
    int fd = sealed_memfd("acl-physical", p->size);
    if (fd < 0)
        return false;
    if (!copy_file(p->fd, fd, p->size)) {
        close(fd);
        return false;
    }
    bool ok = true;
    for (mapping *m = all_mappings; m; m = m->next)
        if (m->phys == p &&
            mmap(m->va, m->size, m->prot, MAP_SHARED | MAP_FIXED, fd, 0) != (void *)m->va)
            ok = false;
    close(p->fd);
    p->fd = fd;
    return ok;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&vmm_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&vmm_lock);
}

static void fork_child(void)
{
    for (backend_phys *p = all_phys; p; p = p->next)
        if (!phys_make_private(p))
            ACL_LOG(LOG_ERROR, "physical memory of %zu bytes could not be copied after fork",
                    p->size);
    pthread_mutex_unlock(&vmm_lock);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, fork_prepare, fork_parent, fork_child);
}

static aclError host_vmm_granularity(bool host, int32_t dev, uint32_t page, bool recommended,
                                     size_t *granularity)
{
    (void)recommended;
    if (!host && !host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    switch (page) {
    case HUGE1G_PAGE_TYPE:
        *granularity = GIB;
        break;
    case HUGE_PAGE_TYPE:
        *granularity = HUGE_PAGE;
        break;
    default:
        *granularity = host_config_get()->page_size;
        break;
    }
    return ACL_SUCCESS;
}

static const int reserved_flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

static aclError host_vmm_reserve(int32_t dev, void **va, size_t size, size_t alignment,
                                 void *expect)
{
    (void)dev;
    if (expect) {
        /* An address in use fails as CANN says: ACL_ERROR_RT_MEMORY_ALLOCATION. */
        void *p = mmap(expect, size, PROT_NONE, reserved_flags | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            return errno == ENOMEM || errno == EEXIST ? ACL_ERROR_RT_MEMORY_ALLOCATION
                                                      : ACL_ERROR_RT_PARAM_INVALID;
        if (p != expect) { /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
            munmap(p, size);
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        *va = p;
        return ACL_SUCCESS;
    }
    if (alignment < host_config_get()->page_size)
        alignment = host_config_get()->page_size;
    if (size > SIZE_MAX - alignment)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    char *p = mmap(NULL, size + alignment, PROT_NONE, reserved_flags, -1, 0);
    if (p == MAP_FAILED)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    uintptr_t start = ((uintptr_t)p + alignment - 1) / alignment * alignment;
    if (start > (uintptr_t)p)
        munmap(p, start - (uintptr_t)p);
    size_t tail = (uintptr_t)p + size + alignment - (start + size);
    if (tail)
        munmap((char *)(start + size), tail);
    *va = (void *)start;
    return ACL_SUCCESS;
}

/* Puts the inaccessible reservation back over [va, va + size) and forgets
 * the mappings there. */
static aclError vmm_unmap_listed(void *va, size_t size)
{
    backend_phys *gone = NULL;
    pthread_mutex_lock(&vmm_lock);
    void *p = mmap(va, size, PROT_NONE, reserved_flags | MAP_FIXED, -1, 0);
    for (mapping **link = &all_mappings; *link;) {
        mapping *m = *link;
        if (m->va >= (char *)va && m->va + m->size <= (char *)va + size) {
            *link = m->next;
            m->phys->maps--;
            if (phys_list_leave(m->phys)) {
                m->phys->next = gone;
                gone = m->phys;
            }
            free(m);
        } else {
            link = &m->next;
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    while (gone) {
        backend_phys *next = gone->next;
        host_phys_free(gone);
        gone = next;
    }
    return p == va ? ACL_SUCCESS : ACL_ERROR_RT_INTERNAL_ERROR;
}

static aclError host_vmm_release(void *va, size_t size)
{
    return munmap(va, size) == 0 ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
}

static bool charge(int32_t dev, size_t size)
{
    if (dev < 0)
        return true;
    size_t used = atomic_load(&host_device_used[dev]);
    do {
        if (size > host_config_get()->capacity - used)
            return false;
    } while (!atomic_compare_exchange_weak(&host_device_used[dev], &used, used + size));
    return true;
}

static void uncharge(int32_t dev, size_t size)
{
    if (dev >= 0)
        atomic_fetch_sub(&host_device_used[dev], size);
}

static aclError phys_new(int fd, size_t size, bool host, int32_t dev, backend_phys **out)
{
    int32_t charged = host ? -1 : dev;
    if (!charge(charged, size))
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    backend_phys *p = malloc(sizeof *p);
    if (!p) {
        uncharge(charged, size);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    *p = (backend_phys){.fd = fd, .size = size, .dev = charged};
    phys_list_add(p);
    *out = p;
    return ACL_SUCCESS;
}

static aclError vmm_create(backend_phys **phys, size_t size, bool host, int32_t dev, uint32_t page)
{
    (void)page;
    if (!host && !host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    int fd = sealed_memfd("acl-physical", size);
    if (fd < 0)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    aclError err = phys_new(fd, size, host, dev, phys);
    if (err != ACL_SUCCESS)
        close(fd);
    return err;
}

/* Mappings keep the memory (and its listing) alive. */
static void vmm_destroy(backend_phys *phys)
{
    uncharge(phys->dev, phys->size);
    pthread_mutex_lock(&vmm_lock);
    phys->destroyed = true;
    bool gone = phys_list_leave(phys);
    pthread_mutex_unlock(&vmm_lock);
    if (gone)
        host_phys_free(phys);
}

static int host_prot_of(uint32_t flags)
{
    switch (flags) {
    case ACL_RT_MEM_ACCESS_FLAGS_READ:
        return PROT_READ;
    case ACL_RT_MEM_ACCESS_FLAGS_READWRITE:
        return PROT_READ | PROT_WRITE;
    default:
        return PROT_NONE;
    }
}

static aclError host_vmm_map(void *va, size_t size, backend_phys *phys, bool accessible,
                             int32_t access_dev)
{
    (void)access_dev;
    if (size > phys->size)
        return ACL_ERROR_RT_PARAM_INVALID;
    mapping *m = malloc(sizeof *m);
    if (!m)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    int prot = accessible ? PROT_READ | PROT_WRITE : PROT_NONE;
    /* Listed and made under vmm_lock: a fork finds every mapping listed. */
    *m = (mapping){.va = va, .size = size, .phys = phys, .prot = prot};
    pthread_mutex_lock(&vmm_lock);
    m->next = all_mappings;
    all_mappings = m;
    phys->maps++;
    void *p = mmap(va, size, prot, MAP_SHARED | MAP_FIXED, phys->fd, 0);
    pthread_mutex_unlock(&vmm_lock);
    if (p == va)
        return ACL_SUCCESS;
    (void)vmm_unmap_listed(va, size);
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
}

static aclError host_vmm_unmap(void *va, size_t size)
{
    return vmm_unmap_listed(va, size);
}

/* Every "device" here is the CPU: the access of the memory's own location
 * decides the protection (noted for the copy a forked child maps: per
 * mapping, as ACL sets access on whole mappings). */
static aclError host_vmm_set_access(void *va, size_t size, const vmm_access *access, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (!access[i].owner)
            continue;
        int prot = host_prot_of(access[i].flags);
        pthread_mutex_lock(&vmm_lock);
        bool ok = mprotect(va, size, prot) == 0;
        for (mapping *m = all_mappings; ok && m; m = m->next)
            if (m->va < (char *)va + size && (char *)va < m->va + m->size)
                m->prot = prot;
        pthread_mutex_unlock(&vmm_lock);
        if (!ok)
            return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

static aclError vmm_export_fd(backend_phys *phys, int *fd)
{
    int copy = fcntl(phys->fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    *fd = copy;
    return ACL_SUCCESS;
}

/* The imported memory is charged to the importing process's device too:
 * the process sees it as memory of that device. */
static aclError vmm_import_fd(int fd, size_t size, bool host, int32_t dev, uint32_t page,
                              backend_phys **phys)
{
    (void)page;
    if (!host && !host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!memfd_holds(fd, size))
        return ACL_ERROR_RT_PARAM_INVALID;
    int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    aclError err = phys_new(mine, size, host, dev, phys);
    if (err != ACL_SUCCESS)
        close(mine);
    return err;
}

const backend_vmm_ops host_vmm_ops = {
    .granularity = host_vmm_granularity,
    .reserve = host_vmm_reserve,
    .release = host_vmm_release,
    .create = vmm_create,
    .destroy = vmm_destroy,
    .map = host_vmm_map,
    .unmap = host_vmm_unmap,
    .set_access = host_vmm_set_access,
    .export_fd = vmm_export_fd,
    .import_fd = vmm_import_fd,
};
