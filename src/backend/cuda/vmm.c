/* The cuda backend's virtual memory: the driver's virtual memory management
 * (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess), reached
 * through driver.h. Physical memory is created exportable as a POSIX file
 * descriptor where the driver allows it, so that it can be shared with
 * other processes later. */
#include <stdlib.h>
#include <unistd.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

#define GIB ((size_t)1 << 30)

struct backend_phys {
    CUmemGenericAllocationHandle handle;
    size_t size;
    bool host;
    int dev;
};

static bool vmm_ready(void)
{
    return driver_ready() && drv.cuMemAddressReserve && drv.cuMemCreate && drv.cuMemMap &&
           drv.cuMemSetAccess && drv.cuMemUnmap && drv.cuMemRelease && drv.cuMemAddressFree &&
           drv.cuMemGetAllocationGranularity;
}

/* The driver works in the current context: make dev's primary context
 * current. */
static aclError cuda_vmm_enter(int dev)
{
    if (!vmm_ready())
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = use_device_checked(dev < 0 ? 0 : dev);
    return rc != ACL_SUCCESS ? rc : check(cudaFree(NULL));
}

static CUmemAllocationProp prop_of(bool host, int dev, bool shareable)
{
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    if (host) {
        prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
        prop.location.id = 0;
    } else {
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = dev;
    }
    if (shareable)
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}

static aclError cuda_vmm_granularity(bool host, int32_t dev, uint32_t page, bool recommended,
                                     size_t *granularity)
{
    aclError rc = cuda_vmm_enter(host ? -1 : dev);
    if (rc != ACL_SUCCESS)
        return rc;
    CUmemAllocationProp prop = prop_of(host, dev, false);
    size_t g = 0;
    rc = from_cu(drv.cuMemGetAllocationGranularity(
        &g, &prop,
        recommended ? CU_MEM_ALLOC_GRANULARITY_RECOMMENDED : CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (rc != ACL_SUCCESS)
        return rc;
    /* 1 GiB pages: CUDA picks page sizes itself; keep ACL's granularity. */
    if (page == HUGE1G_PAGE_TYPE && g < GIB)
        g = GIB;
    *granularity = g;
    return ACL_SUCCESS;
}

static aclError cuda_vmm_reserve(int32_t dev, void **va, size_t size, size_t alignment,
                                 void *expect)
{
    aclError rc = cuda_vmm_enter(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    CUdeviceptr p = 0;
    rc = from_cu(drv.cuMemAddressReserve(&p, size, alignment, (CUdeviceptr)(uintptr_t)expect, 0));
    if (rc != ACL_SUCCESS)
        return rc;
    if (expect && (void *)(uintptr_t)p != expect) { /* in use: to CUDA the address is a hint */
        (void)drv.cuMemAddressFree(p, size);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    *va = (void *)(uintptr_t)p;
    return ACL_SUCCESS;
}

static aclError cuda_vmm_release(void *va, size_t size)
{
    if (!vmm_ready())
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return from_cu(drv.cuMemAddressFree((CUdeviceptr)(uintptr_t)va, size));
}

static aclError vmm_create(backend_phys **phys, size_t size, bool host, int32_t dev, uint32_t page)
{
    (void)page;
    aclError rc = cuda_vmm_enter(host ? -1 : dev);
    if (rc != ACL_SUCCESS)
        return rc;
    backend_phys *p = malloc(sizeof *p);
    if (!p)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    CUmemAllocationProp prop = prop_of(host, dev, true);
    CUresult r = drv.cuMemCreate(&p->handle, size, &prop, 0);
    if (r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_INVALID_VALUE) {
        /* No POSIX file descriptors here: memory that cannot be shared. */
        prop = prop_of(host, dev, false);
        r = drv.cuMemCreate(&p->handle, size, &prop, 0);
    }
    if (r != CUDA_SUCCESS) {
        free(p);
        return from_cu(r);
    }
    p->size = size;
    p->host = host;
    p->dev = dev;
    *phys = p;
    return ACL_SUCCESS;
}

static void vmm_destroy(backend_phys *phys)
{
    if (vmm_ready())
        (void)drv.cuMemRelease(phys->handle);
    free(phys);
}

static CUmemAccess_flags cu_flags(uint32_t flags)
{
    switch (flags) {
    case ACL_RT_MEM_ACCESS_FLAGS_READ:
        return CU_MEM_ACCESS_FLAGS_PROT_READ;
    case ACL_RT_MEM_ACCESS_FLAGS_READWRITE:
        return CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    default:
        return CU_MEM_ACCESS_FLAGS_PROT_NONE;
    }
}

static aclError cuda_vmm_map(void *va, size_t size, backend_phys *phys, bool accessible,
                             int32_t access_dev)
{
    aclError rc = cuda_vmm_enter(phys->host ? access_dev : phys->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    CUdeviceptr ptr = (CUdeviceptr)(uintptr_t)va;
    rc = from_cu(drv.cuMemMap(ptr, size, 0, phys->handle, 0));
    if (rc != ACL_SUCCESS || !accessible)
        return rc;
    CUmemAccessDesc desc[2];
    size_t n = 0;
    desc[n].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc[n].location.id = phys->host ? access_dev : phys->dev;
    desc[n++].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (phys->host) {
        desc[n].location.type = CU_MEM_LOCATION_TYPE_HOST;
        desc[n].location.id = 0;
        desc[n++].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    rc = from_cu(drv.cuMemSetAccess(ptr, size, desc, n));
    if (rc != ACL_SUCCESS)
        (void)drv.cuMemUnmap(ptr, size);
    return rc;
}

static aclError cuda_vmm_unmap(void *va, size_t size)
{
    if (!vmm_ready())
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return from_cu(drv.cuMemUnmap((CUdeviceptr)(uintptr_t)va, size));
}

static aclError cuda_vmm_set_access(void *va, size_t size, const vmm_access *access, size_t count)
{
    if (!vmm_ready())
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    enum { MOST = 72 };
    CUmemAccessDesc desc[MOST];
    if (count > MOST)
        return ACL_ERROR_RT_PARAM_INVALID;
    for (size_t i = 0; i < count; i++) {
        desc[i].location.type =
            access[i].host ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
        desc[i].location.id = access[i].host ? 0 : access[i].dev;
        desc[i].flags = cu_flags(access[i].flags);
    }
    return from_cu(drv.cuMemSetAccess((CUdeviceptr)(uintptr_t)va, size, desc, count));
}

static aclError vmm_export_fd(backend_phys *phys, int *fd)
{
    if (!vmm_ready() || !drv.cuMemExportToShareableHandle)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    int out = -1;
    aclError rc = from_cu(drv.cuMemExportToShareableHandle(
        &out, phys->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    if (rc == ACL_SUCCESS)
        *fd = out;
    return rc;
}

static aclError vmm_import_fd(int fd, size_t size, bool host, int32_t dev, uint32_t page,
                              backend_phys **phys)
{
    (void)page;
    if (!vmm_ready() || !drv.cuMemImportFromShareableHandle)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = cuda_vmm_enter(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    backend_phys *p = malloc(sizeof *p);
    if (!p)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    rc = from_cu(drv.cuMemImportFromShareableHandle(&p->handle, (void *)(uintptr_t)fd,
                                                    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    if (rc != ACL_SUCCESS) {
        free(p);
        return rc;
    }
    p->size = size;
    p->host = host;
    p->dev = dev;
    *phys = p;
    return ACL_SUCCESS;
}

const backend_vmm_ops cuda_vmm_ops = {
    .granularity = cuda_vmm_granularity,
    .reserve = cuda_vmm_reserve,
    .release = cuda_vmm_release,
    .create = vmm_create,
    .destroy = vmm_destroy,
    .map = cuda_vmm_map,
    .unmap = cuda_vmm_unmap,
    .set_access = cuda_vmm_set_access,
    .export_fd = vmm_export_fd,
    .import_fd = vmm_import_fd,
};
