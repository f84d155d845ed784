/* The host backend's virtual memory: a reservation is an inaccessible
 * anonymous mapping, physical memory is a memfd (charged to its device's
 * capacity like any device memory), and mapping places the memfd over part
 * of a reservation with MAP_FIXED; unmapping puts the inaccessible mapping
 * back. Because the physical memory is a file, another process can map it
 * too (export_fd). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels take it as a hint */
#endif

#include "backend/host/host.h"

#define GIB ((size_t)1 << 30)
#define HUGE_PAGE ((size_t)2 << 20)

struct backend_phys {
    int fd;
    size_t size;
    int32_t dev; /* charged device, -1 for host memory */
};

static aclError vmm_granularity(bool host, int32_t dev, uint32_t page, bool recommended,
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

static aclError vmm_reserve(int32_t dev, void **va, size_t size, size_t alignment, void *expect)
{
    (void)dev;
    if (expect) {
        void *p = mmap(expect, size, PROT_NONE, reserved_flags | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            return errno == ENOMEM ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_ERROR_RT_PARAM_INVALID;
        if (p != expect) { /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
            munmap(p, size);
            return ACL_ERROR_RT_PARAM_INVALID;
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

static aclError vmm_release(void *va, size_t size)
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
    *out = p;
    return ACL_SUCCESS;
}

static aclError vmm_create(backend_phys **phys, size_t size, bool host, int32_t dev, uint32_t page)
{
    (void)page;
    if (!host && !host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    int fd = memfd_create("acl-physical", MFD_CLOEXEC);
    if (fd < 0)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    aclError err = phys_new(fd, size, host, dev, phys);
    if (err != ACL_SUCCESS)
        close(fd);
    return err;
}

static void vmm_destroy(backend_phys *phys)
{
    close(phys->fd);
    uncharge(phys->dev, phys->size);
    free(phys);
}

static int prot_of(uint32_t flags)
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

static aclError vmm_map(void *va, size_t size, backend_phys *phys, bool accessible,
                        int32_t access_dev)
{
    (void)access_dev;
    if (size > phys->size)
        return ACL_ERROR_RT_PARAM_INVALID;
    int prot = accessible ? PROT_READ | PROT_WRITE : PROT_NONE;
    void *p = mmap(va, size, prot, MAP_SHARED | MAP_FIXED, phys->fd, 0);
    return p == va ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

static aclError vmm_unmap(void *va, size_t size)
{
    void *p = mmap(va, size, PROT_NONE, reserved_flags | MAP_FIXED, -1, 0);
    return p == va ? ACL_SUCCESS : ACL_ERROR_RT_INTERNAL_ERROR;
}

/* Every "device" here is the CPU: the access of the memory's own location
 * decides the protection. */
static aclError vmm_set_access(void *va, size_t size, const vmm_access *access, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (access[i].owner && mprotect(va, size, prot_of(access[i].flags)) != 0)
            return ACL_ERROR_RT_PARAM_INVALID;
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
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0 || (size_t)end < size)
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
    .granularity = vmm_granularity,
    .reserve = vmm_reserve,
    .release = vmm_release,
    .create = vmm_create,
    .destroy = vmm_destroy,
    .map = vmm_map,
    .unmap = vmm_unmap,
    .set_access = vmm_set_access,
    .export_fd = vmm_export_fd,
    .import_fd = vmm_import_fd,
};
