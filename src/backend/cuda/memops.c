/* The cuda backend's stream memory operations (aclrtValueWrite,
 * aclrtValueWait): one driver call each, cuStreamWriteValue64 and
 * cuStreamWaitValue64, whose comparisons are ACL's (GEQ, EQ, AND, NOR have
 * the same numbers). And the streams' fault words: a word of mapped host
 * memory per stream that device code (a notify wait that timed out) sets,
 * and synchronize reads. */
#include <pthread.h>
#include <stdlib.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

enum { MAX_DEVICES = 64, FAULT_PAGE_WORDS = 1024 };

/* ---- can the device do them ------------------------------------------------ */

enum { CAP_UNKNOWN = 0, CAP_KNOWN = 1 };

typedef struct memops_caps {
    atomic_int known; /* CAP_UNKNOWN until asked */
    bool ops32, ops64, nor;
} memops_caps;

static memops_caps caps[MAX_DEVICES];

static bool attribute(CUdevice d, CUdevice_attribute attr)
{
    int v = 0;
    return drv.cuDeviceGetAttribute(&v, attr, d) == CUDA_SUCCESS && v;
}

aclError cuda_memops_ready(int dev, bool need64, bool need_nor)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    memops_caps *c = &caps[dev];
    if (atomic_load_explicit(&c->known, memory_order_acquire) == CAP_UNKNOWN) {
        bool ops32 = false, ops64 = false, nor = false;
        CUdevice d;
        if (driver_ready() && drv.cuDeviceGet && drv.cuDeviceGetAttribute &&
            drv.cuStreamWriteValue32 && drv.cuStreamWriteValue64 && drv.cuStreamWaitValue64 &&
            drv.cuStreamBatchMemOp && drv.cuDeviceGet(&d, dev) == CUDA_SUCCESS) {
            /* 32-bit ones are always there in the version 2 API (CUDA 11.7
             * on); 64-bit ones and NOR depend on the device. */
            ops32 = true;
            ops64 = attribute(d, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS);
            nor = attribute(d, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR);
        }
        c->ops32 = ops32;
        c->ops64 = ops64;
        c->nor = nor;
        atomic_store_explicit(&c->known, CAP_KNOWN, memory_order_release);
    }
    if (!c->ops32 || (need64 && !c->ops64) || (need_nor && !c->nor))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return ACL_SUCCESS;
}

/* ---- aclrtValueWrite / aclrtValueWait ------------------------------------------ */

/* The write is ordered after the stream's earlier work, whose writes it
 * makes visible first (no CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER). */
aclError cuda_value_write(backend_stream *s, void *addr, uint64_t value)
{
    aclError rc = use_adopted_device(s);
    if (rc == ACL_SUCCESS)
        rc = cuda_memops_ready(s->dev, true, false);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuStreamWriteValue64(s->s, (CUdeviceptr)(uintptr_t)addr, value,
                                            CU_STREAM_WRITE_VALUE_DEFAULT));
}

aclError cuda_value_wait(backend_stream *s, void *addr, uint64_t value, uint32_t cmp)
{
    aclError rc = use_adopted_device(s);
    if (rc == ACL_SUCCESS)
        rc = cuda_memops_ready(s->dev, true, cmp == ACL_STREAM_WAIT_VALUE_NOR);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuStreamWaitValue64(s->s, (CUdeviceptr)(uintptr_t)addr, value, cmp));
}

/* ---- fault words ------------------------------------------------------------ */

/* Pages of mapped, portable host memory, never freed (cudaFreeHost would
 * wait for the device). */
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t **free_words; /* a stack of free words */
static size_t free_count, free_cap;

static bool fault_page_new(void)
{
    uint32_t *page;
    if (cudaHostAlloc((void **)&page, FAULT_PAGE_WORDS * sizeof *page,
                      cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    if (free_count + FAULT_PAGE_WORDS > free_cap) {
        size_t cap = free_cap * 2 + FAULT_PAGE_WORDS;
        uint32_t **grown = realloc(free_words, cap * sizeof *grown);
        if (!grown)
            return false; /* the page stays allocated, unused */
        free_words = grown;
        free_cap = cap;
    }
    for (size_t i = 0; i < FAULT_PAGE_WORDS; i++) {
        page[i] = 0;
        free_words[free_count++] = &page[i];
    }
    return true;
}

aclError cuda_stream_fault_word(backend_stream *s, uint32_t **word)
{
    uint32_t *w = atomic_load_explicit(&s->fault, memory_order_acquire);
    if (!w) {
        pthread_mutex_lock(&fault_lock);
        w = atomic_load_explicit(&s->fault, memory_order_acquire);
        if (!w && (free_count > 0 || fault_page_new())) {
            w = free_words[--free_count];
            atomic_store_explicit(&s->fault, w, memory_order_release);
        }
        pthread_mutex_unlock(&fault_lock);
        if (!w)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    /* Mapped host memory has the same address on the device (UVA). */
    void *dev_ptr;
    aclError rc = check(cudaHostGetDevicePointer(&dev_ptr, w, 0));
    if (rc == ACL_SUCCESS)
        *word = dev_ptr;
    return rc;
}

aclError cuda_stream_fault_take(backend_stream *s)
{
    uint32_t *w = atomic_load_explicit(&s->fault, memory_order_acquire);
    if (!w)
        return ACL_SUCCESS;
    return (aclError)__atomic_exchange_n(w, 0u, __ATOMIC_ACQ_REL);
}

void cuda_stream_fault_release(backend_stream *s)
{
    uint32_t *w = atomic_exchange(&s->fault, NULL);
    if (!w)
        return;
    __atomic_store_n(w, 0u, __ATOMIC_RELEASE);
    pthread_mutex_lock(&fault_lock);
    if (free_count < free_cap)
        free_words[free_count++] = w;
    pthread_mutex_unlock(&fault_lock);
}
