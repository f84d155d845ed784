/* The cuda backend's sharing between processes: CUDA's IPC handles. Memory
 * from cudaMalloc is named by cudaIpcGetMemHandle and mapped by the
 * importer with cudaIpcOpenMemHandle (no descriptor passes: the driver
 * resolves the handle); events are created interprocess and named by
 * cudaIpcGetEventHandle, whose 64 bytes are exactly an
 * aclrtIpcEventHandle. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

typedef struct mem_blob {
    cudaIpcMemHandle_t handle;
    uint64_t offset, size;
} mem_blob;

struct backend_import {
    void *base; /* what cudaIpcOpenMemHandle returned */
    int dev;
};

static aclError cuda_mem_export(int32_t dev, void *base, size_t offset, size_t size, void *blob,
                                size_t *blob_len, int *fd)
{
    if (*blob_len < sizeof(mem_blob))
        return ACL_ERROR_RT_INTERNAL_ERROR;
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    mem_blob b = {.offset = offset, .size = size};
    rc = check(cudaIpcGetMemHandle(&b.handle, base));
    if (rc != ACL_SUCCESS)
        return rc;
    memcpy(blob, &b, sizeof b);
    *blob_len = sizeof b;
    *fd = -1;
    return ACL_SUCCESS;
}

static void cuda_mem_close(backend_import *imp)
{
    if (use_device_checked(imp->dev) == ACL_SUCCESS)
        (void)check(cudaIpcCloseMemHandle(imp->base));
    free(imp);
}

/* The bytes from base to the end of the allocation it lies in; 0 where
 * the driver cannot tell. */
static size_t cuda_allocation_size(void *base)
{
    if (!driver_ready() || drv.cuPointerGetAttributes == NULL)
        return 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    uint64_t start = 0, size = 0; /* the driver writes a pointer and a size_t */
    void *data[] = {&start, &size};
    uintptr_t at = (uintptr_t)base;
    if (drv.cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)at) != CUDA_SUCCESS || at < start ||
        at - start >= size)
        return 0;
    return (size_t)(size - (at - start));
}

/* CUDA maps the exporter's whole allocation; the driver tells its size,
 * which bounds the blob's offset and what the importer may use. */
static aclError cuda_mem_import(int32_t dev, const void *blob, size_t blob_len, int fd, void **ptr,
                                size_t *mapped, backend_import **imp)
{
    (void)fd;
    mem_blob b;
    if (blob_len != sizeof b)
        return ACL_ERROR_RT_IPC_ERROR;
    memcpy(&b, blob, sizeof b);
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    backend_import *i = malloc(sizeof *i);
    if (!i)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    rc = check(cudaIpcOpenMemHandle(&i->base, b.handle, cudaIpcMemLazyEnablePeerAccess));
    if (rc != ACL_SUCCESS) {
        free(i);
        return rc;
    }
    i->dev = dev;
    size_t allocation = cuda_allocation_size(i->base);
    if (b.offset >= allocation) {
        cuda_mem_close(i);
        return ACL_ERROR_RT_IPC_ERROR;
    }
    *ptr = (char *)i->base + b.offset;
    *mapped = allocation - b.offset;
    *imp = i;
    return ACL_SUCCESS;
}

/* Interprocess events cannot time; they are never recycled (exported). */
static aclError cuda_ipc_event_create(backend_event *e, int32_t dev)
{
    e->dev = dev;
    e->timing = false;
    atomic_init(&e->exported, true);
    atomic_init(&e->reused, false);
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaEventCreateWithFlags(&e->e, cudaEventInterprocess | cudaEventDisableTiming));
}

static aclError cuda_ipc_event_export(backend_event *e, void *blob, size_t *blob_len, int *fd)
{
    cudaIpcEventHandle_t h;
    if (*blob_len < sizeof h)
        return ACL_ERROR_RT_INTERNAL_ERROR;
    aclError rc = check(cudaIpcGetEventHandle(&h, e->e));
    if (rc != ACL_SUCCESS)
        return rc;
    memcpy(blob, &h, sizeof h);
    *blob_len = sizeof h;
    *fd = -1;
    return ACL_SUCCESS;
}

static aclError cuda_ipc_event_open(backend_event *e, int32_t dev, const void *blob,
                                    size_t blob_len, int fd)
{
    (void)fd;
    cudaIpcEventHandle_t h;
    if (blob_len < sizeof h)
        return ACL_ERROR_RT_PARAM_INVALID;
    memcpy(&h, blob, sizeof h);
    e->dev = dev;
    e->timing = false;
    atomic_init(&e->exported, true);
    atomic_init(&e->reused, false);
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaIpcOpenEventHandle(&e->e, h));
}

const backend_ipc_ops cuda_ipc_ops = {
    .mem_export = cuda_mem_export,
    .mem_import = cuda_mem_import,
    .mem_close = cuda_mem_close,
    .event_create = cuda_ipc_event_create,
    .event_export = cuda_ipc_event_export,
    .event_open = cuda_ipc_event_open,
};
