/* Interop with CUDA code of the same process (issue #18), on the cuda
 * backend only: memory of other CUDA allocators (cudaMalloc, a
 * cudaMallocAsync pool, managed memory, VMM mappings, cudaHostAlloc and
 * cudaHostRegister) in ACL's copies and fills, with extent checks and
 * never freed through ACL; CUDA streams and events wrapped as ACL handles
 * (aclcudaStreamFromNative, aclcudaEventFromNative) without being owned;
 * what an exported notify hands another process, read through CUDA.
 *
 * The test links its own cudart (static), as an application using torch or
 * CuPy beside acl-cuda has two; both share the driver's primary context.
 * Elsewhere (host backend, no GPU) it reports "skipped" (exit 77). */
#include <inttypes.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "acl/acl_cuda.h"
#include "acltest.h"
#include "core/share.h"

enum { SIZE = 1 << 20 };

#define CUDA_OK(call)                                                                        \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        ck_assert_msg(err_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(err_));      \
    } while (0)

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    int32_t native = -1;
    ACL_OK(aclcudaGetNativeDevice(0, &native));
    CUDA_OK(cudaSetDevice(native));
}

static void tear_down(void)
{
    (void)aclrtResetDeviceForce(0);
    (void)aclFinalize();
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 131 + seed);
}

static void assert_same(const void *a, const void *b, size_t n, const char *what)
{
    ck_assert_msg(memcmp(a, b, n) == 0, "%s: the bytes differ", what);
}

/* Reads n bytes of device memory through CUDA itself, not ACL. */
static void cuda_read(void *dst, const void *dev, size_t n)
{
    CUDA_OK(cudaMemcpy(dst, dev, n, cudaMemcpyDeviceToHost));
}

static void *driver_function(const char *name, int version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult status;
    CUDA_OK(cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &status));
    ck_assert_msg(status == cudaDriverEntryPointSuccess && fn, "driver function %s", name);
    return fn;
}

/* The end of the allocation (or mapping) holding ptr, as the driver tells
 * it; NULL where it cannot. */
static uint8_t *driver_range_end(const void *ptr)
{
    PFN_cuMemGetAddressRange_v3020 range = driver_function("cuMemGetAddressRange", 3020);
    CUdeviceptr base = 0;
    size_t size = 0;
    if (range(&base, &size, (CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS || size == 0)
        return NULL;
    return (uint8_t *)(uintptr_t)(base + size);
}

/* Every ACL copy and fill on foreign device memory `f` of SIZE bytes at
 * least, and the extent checks at `end`, the end of the memory mapped
 * there (NULL: not checked). */
static void copies_and_fills_on(void *f, uint8_t *end, const char *what)
{
    uint8_t *src = malloc(SIZE), *back = malloc(SIZE);
    ck_assert(src && back);
    void *own = NULL;
    ACL_OK(aclrtMalloc(&own, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = acltest_new_stream();

    /* Synchronous: host -> foreign -> ACL -> host. */
    fill(src, SIZE, 1);
    ACL_OK(aclrtMemcpy(f, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(own, SIZE, f, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(aclrtMemcpy(back, SIZE, own, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_same(src, back, SIZE, what);
    cuda_read(back, f, SIZE);
    assert_same(src, back, SIZE, what);

    /* ACL_MEMCPY_DEFAULT finds where foreign memory lives. */
    fill(src, SIZE, 2);
    ACL_OK(aclrtMemcpy(f, SIZE, src, SIZE, ACL_MEMCPY_DEFAULT));
    memset(back, 0, SIZE);
    ACL_OK(aclrtMemcpy(back, SIZE, f, SIZE, ACL_MEMCPY_DEFAULT));
    assert_same(src, back, SIZE, what);

    /* Queued, on an ACL stream. */
    fill(src, SIZE, 3);
    ACL_OK(aclrtMemcpy(own, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpyAsync(f, SIZE, own, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtMemcpyAsync(back, SIZE, f, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtSynchronizeStream(s));
    assert_same(src, back, SIZE, what);

    /* Fills. */
    ACL_OK(aclrtMemset(f, SIZE, 0x3c, SIZE));
    cuda_read(back, f, SIZE);
    compat_assert_filled(back, SIZE, 0x3c);
    ACL_OK(aclrtMemsetAsync((uint8_t *)f + 4096, SIZE - 4096, 0x4d, SIZE - 4096, s));
    ACL_OK(aclrtSynchronizeStream(s));
    cuda_read(back, f, SIZE);
    compat_assert_filled(back, 4096, 0x3c);
    compat_assert_filled(back + 4096, SIZE - 4096, 0x4d);

    /* 2D: 64 rows of 1000 bytes, pitch 4096 in the foreign memory. */
    enum { ROWS = 64, WIDTH = 1000, PITCH = 4096 };
    fill(src, ROWS * WIDTH, 4);
    ACL_OK(aclrtMemcpy2d(f, PITCH, src, WIDTH, WIDTH, ROWS, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(back, 0, SIZE);
    ACL_OK(aclrtMemcpy2dAsync(back, WIDTH, f, PITCH, WIDTH, ROWS, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtSynchronizeStream(s));
    assert_same(src, back, ROWS * WIDTH, what);

    /* Kinds that contradict where it lives: copied as the pointers say
     * (strict mode refuses them; test_fidelity, "undefined uses"). */
    fill(src, SIZE, 5);
    ACL_OK(aclrtMemcpy(own, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(f, SIZE, own, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(back, 0, SIZE);
    ACL_OK(aclrtMemcpy(back, SIZE, f, SIZE, ACL_MEMCPY_HOST_TO_HOST));
    assert_same(src, back, SIZE, what);

    /* Extents come from the driver, as for ACL's own memory. */
    if (end == NULL)
        goto frees;
    ck_assert_msg(end >= (uint8_t *)f + SIZE, "%s: the driver's range", what);
    ACL_OK(aclrtMemcpy(end - 16, 16, src, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(end - 16, 16, 0, 16));
    ACL_FAILS_WITH(aclrtMemcpy(end - 16, 32, src, 32, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(src, 32, end - 16, 32, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(end - 16, 32, own, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(end - 16, 32, 0, 32), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(end - 16, 32, 0, 32, s), ACL_ERROR_INVALID_PARAM);
    size_t region = (size_t)PITCH * (ROWS - 1) + WIDTH;
    ACL_OK(aclrtMemcpy2d(end - region, PITCH, src, WIDTH, WIDTH, ROWS, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_FAILS_WITH(aclrtMemcpy2d(end - region + 1, PITCH, src, WIDTH, WIDTH, ROWS,
                                 ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);

frees:
    /* Never freed through ACL, and still usable after the refusal. */
    ACL_FAILS_WITH(aclrtFree(f), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeWithDevSync(f), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(f), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtMemcpy(f, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    cuda_read(back, f, SIZE);
    assert_same(src, back, SIZE, what);

    aclrtPtrAttributes attributes;
    ACL_OK(aclrtPointerGetAttributes(f, &attributes));
    ck_assert_int_eq(attributes.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_uint_eq(attributes.location.id, 0);

    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(own));
    free(src);
    free(back);
}

START_TEST(cuda_malloc_memory)
{
    void *f = NULL;
    CUDA_OK(cudaMalloc(&f, SIZE));
    copies_and_fills_on(f, driver_range_end(f), "cudaMalloc");
    /* An interior pointer is in the same allocation. */
    uint8_t *src = calloc(1, 64);
    ACL_OK(aclrtMemcpy((uint8_t *)f + 100, 64, src, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    free(src);
    CUDA_OK(cudaFree(f));
    /* Gone from the driver: host memory again, so a device kind is refused. */
    struct cudaPointerAttributes attrs;
    if (cudaPointerGetAttributes(&attrs, f) == cudaSuccess &&
        attrs.type == cudaMemoryTypeUnregistered) {
        uint8_t byte = 0;
        ACL_FAILS_WITH(aclrtMemcpy(f, 1, &byte, 1, ACL_MEMCPY_HOST_TO_DEVICE),
                       ACL_ERROR_INVALID_PARAM);
    }
    (void)cudaGetLastError();
}
END_TEST

START_TEST(stream_ordered_pool_memory)
{
    cudaStream_t cs;
    CUDA_OK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    void *f = NULL;
    CUDA_OK(cudaMallocAsync(&f, SIZE, cs));
    CUDA_OK(cudaStreamSynchronize(cs));
    /* A pool's range is its reservation, which may hold more mapped memory
     * past this allocation: extents are not the allocation's. */
    copies_and_fills_on(f, NULL, "cudaMallocAsync");
    CUDA_OK(cudaFreeAsync(f, cs));
    CUDA_OK(cudaStreamSynchronize(cs));
    CUDA_OK(cudaStreamDestroy(cs));
}
END_TEST

START_TEST(managed_memory)
{
    void *f = NULL;
    CUDA_OK(cudaMallocManaged(&f, SIZE, cudaMemAttachGlobal));
    copies_and_fills_on(f, driver_range_end(f), "cudaMallocManaged");
    CUDA_OK(cudaFree(f));
}
END_TEST

/* ---- virtual memory mappings (the driver API, through cudart) ------------------------ */

typedef struct vmm_api {
    PFN_cuMemGetAllocationGranularity_v10020 granularity;
    PFN_cuMemCreate_v10020 create;
    PFN_cuMemRelease_v10020 release;
    PFN_cuMemAddressReserve_v10020 reserve;
    PFN_cuMemAddressFree_v10020 address_free;
    PFN_cuMemMap_v10020 map;
    PFN_cuMemUnmap_v10020 unmap;
    PFN_cuMemSetAccess_v10020 set_access;
} vmm_api;

#define CU_OK(call) ck_assert_msg((call) == CUDA_SUCCESS, "%s failed", #call)

/* Two physical chunks mapped back to back in one reservation, as torch's
 * expandable segments and memory pools do: a copy across the seam is one
 * range to the application, two mappings to the driver; the reserved but
 * unmapped rest of the range is not memory. */
START_TEST(vmm_mappings)
{
    vmm_api v = {
        .granularity = driver_function("cuMemGetAllocationGranularity", 10020),
        .create = driver_function("cuMemCreate", 10020),
        .release = driver_function("cuMemRelease", 10020),
        .reserve = driver_function("cuMemAddressReserve", 10020),
        .address_free = driver_function("cuMemAddressFree", 10020),
        .map = driver_function("cuMemMap", 10020),
        .unmap = driver_function("cuMemUnmap", 10020),
        .set_access = driver_function("cuMemSetAccess", 10020),
    };
    int device = 0;
    CUDA_OK(cudaGetDevice(&device));
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device}};
    size_t chunk = 0;
    CU_OK(v.granularity(&chunk, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (chunk < SIZE)
        chunk = (SIZE + chunk - 1) / chunk * chunk;
    CUdeviceptr base = 0;
    CU_OK(v.reserve(&base, 3 * chunk, 0, 0, 0)); /* the third chunk stays unmapped */
    CUmemGenericAllocationHandle h[2];
    CUmemAccessDesc access = {.location = prop.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    for (int i = 0; i < 2; i++) {
        CU_OK(v.create(&h[i], chunk, &prop, 0));
        CU_OK(v.map(base + i * chunk, chunk, 0, h[i], 0));
    }
    CU_OK(v.set_access(base, 2 * chunk, &access, 1));

    uint8_t *f = (uint8_t *)(uintptr_t)base;
    /* The last SIZE bytes of the second mapping: its end is the end of
     * what is mapped. */
    copies_and_fills_on(f + 2 * chunk - SIZE, f + 2 * chunk, "a VMM mapping");
    /* Across the seam between the two mappings. */
    uint8_t *src = malloc(SIZE), *back = malloc(SIZE);
    fill(src, SIZE, 9);
    uint8_t *seam = f + chunk - SIZE / 2;
    ACL_OK(aclrtMemcpy(seam, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(back, SIZE, seam, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_same(src, back, SIZE, "across two VMM mappings");
    ACL_OK(aclrtMemset(seam, SIZE, 0x6b, SIZE));
    cuda_read(back, seam, SIZE);
    compat_assert_filled(back, SIZE, 0x6b);
    /* Into the reserved but unmapped third chunk: past the end. */
    ACL_FAILS_WITH(aclrtMemcpy(f + 2 * chunk - 8, 16, src, 16, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);

    CU_OK(v.unmap(base, 2 * chunk));
    for (int i = 0; i < 2; i++)
        CU_OK(v.release(h[i]));
    CU_OK(v.address_free(base, 3 * chunk));
    free(src);
    free(back);
}
END_TEST

/* ---- page-locked host memory of CUDA -------------------------------------------------- */

/* Page-locked memory is not waited for: a queued copy from it returns while
 * the stream is held (a pageable copy would wait for the stream, and the
 * gate would never open). */
static void pinned_copy_is_queued(uint8_t *pinned, const char *what)
{
    aclrtPtrAttributes attributes;
    ACL_OK(aclrtPointerGetAttributes(pinned, &attributes));
    ck_assert_msg(attributes.location.type == ACL_MEM_LOCATION_TYPE_HOST,
                  "%s: not seen as page-locked memory (location type %d)", what,
                  (int)attributes.location.type);
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = acltest_new_stream();
    fill(pinned, SIZE, 5);
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyAsync(dev, SIZE, pinned, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, s));
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    ACL_OK(aclrtStreamQuery(s, &status));
    ck_assert_msg(status == ACL_STREAM_STATUS_NOT_READY, "%s: the copy was waited for", what);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    uint8_t *back = malloc(SIZE);
    ACL_OK(aclrtMemcpy(back, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_same(pinned, back, SIZE, what);
    /* A fill of page-locked memory is allowed too. */
    ACL_OK(aclrtMemset(pinned, SIZE, 0x21, SIZE));
    compat_assert_filled(pinned, SIZE, 0x21);
    /* Its extent is the driver's, where the driver tells it. */
    uint8_t *end = driver_range_end(pinned);
    if (end != NULL)
        ACL_FAILS_WITH(aclrtMemcpy(dev, 32, end - 16, 32, ACL_MEMCPY_HOST_TO_DEVICE),
                       ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(pinned), ACL_ERROR_INVALID_PARAM);
    free(back);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(dev));
}

START_TEST(cuda_host_alloc_memory)
{
    void *pinned = NULL;
    CUDA_OK(cudaHostAlloc(&pinned, SIZE, cudaHostAllocPortable));
    pinned_copy_is_queued(pinned, "cudaHostAlloc");
    CUDA_OK(cudaFreeHost(pinned));
}
END_TEST

START_TEST(cuda_host_register_memory)
{
    void *plain = NULL;
    ck_assert_int_eq(posix_memalign(&plain, 4096, SIZE), 0);
    CUDA_OK(cudaHostRegister(plain, SIZE, cudaHostRegisterPortable));
    pinned_copy_is_queued(plain, "cudaHostRegister");
    CUDA_OK(cudaHostUnregister(plain));
    free(plain);
}
END_TEST

/* ---- CUDA streams and events as ACL handles ------------------------------------------ */

typedef struct cuda_gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool open;
} cuda_gate;

static void CUDART_CB cuda_gate_body(void *arg)
{
    cuda_gate *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

/* Holds a CUDA stream from CUDA itself, behind ACL's back. */
static void cuda_gate_close(cuda_gate *g, cudaStream_t cs)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    g->open = false;
    CUDA_OK(cudaLaunchHostFunc(cs, cuda_gate_body, g));
}

static void cuda_gate_open(cuda_gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

START_TEST(wrapped_cuda_stream)
{
    cudaStream_t cs;
    CUDA_OK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    aclrtStream wrapped = NULL;
    ACL_OK(aclcudaStreamFromNative(cs, &wrapped));
    void *native = NULL;
    ACL_OK(aclcudaGetNativeStream(wrapped, &native));
    ck_assert_ptr_eq(native, cs);

    uint8_t *src = malloc(SIZE);
    fill(src, SIZE, 6);
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    void *pinned = NULL;
    ACL_OK(aclrtMallocHost(&pinned, SIZE));
    memset(pinned, 0, SIZE);

    /* Work CUDA queued is waited for: the idle shortcut never applies. */
    cuda_gate gate;
    cuda_gate_close(&gate, cs);
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    ACL_OK(aclrtStreamQuery(wrapped, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    ck_assert_int_eq(aclrtSynchronizeStreamWithTimeout(wrapped, 20),
                     ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    /* ACL work queued on it runs after CUDA's. */
    ACL_OK(aclrtMemcpyAsync(pinned, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, wrapped));
    compat_assert_filled(pinned, SIZE, 0);
    /* Destroying the handle without waiting leaves the CUDA stream alone. */
    ACL_OK(aclrtDestroyStreamForce(wrapped));
    ck_assert_int_eq(cudaStreamQuery(cs), cudaErrorNotReady);
    cuda_gate_open(&gate);
    CUDA_OK(cudaStreamSynchronize(cs));
    assert_same(src, pinned, SIZE, "copy queued on a wrapped stream");
    ACL_OK(aclrtFree(dev));

    /* A handle the device reset takes with it: the CUDA stream lives on. */
    ACL_OK(aclcudaStreamFromNative(cs, &wrapped));
    ACL_OK(aclrtResetDeviceForce(0));
    ACL_OK(aclrtSetDevice(0));
    CUDA_OK(cudaLaunchHostFunc(cs, cuda_gate_body, &gate)); /* gate is open */
    CUDA_OK(cudaStreamSynchronize(cs));
    CUDA_OK(cudaStreamDestroy(cs));
    ACL_OK(aclrtFreeHost(pinned));
    free(src);
}
END_TEST

START_TEST(wrapped_cuda_event)
{
    cudaStream_t cs;
    cudaEvent_t ce, t0, t1;
    CUDA_OK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&ce, cudaEventDisableTiming));
    aclrtEvent wrapped = NULL;
    ACL_OK(aclcudaEventFromNative(ce, &wrapped));

    /* Recorded by CUDA behind a held stream: an ACL stream waiting on the
     * wrapped event holds too, and ACL sees the event pending. */
    void *dev = NULL, *pinned = NULL;
    ACL_OK(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&pinned, SIZE));
    ACL_OK(aclrtMemset(dev, SIZE, 0, SIZE));
    cuda_gate gate;
    cuda_gate_close(&gate, cs);
    CUDA_OK(cudaMemsetAsync(dev, 0x5e, SIZE, cs));
    CUDA_OK(cudaEventRecord(ce, cs));
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    ACL_OK(aclrtQueryEventStatus(wrapped, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtStreamWaitEvent(s, wrapped));
    ACL_OK(aclrtMemcpyAsync(pinned, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    ACL_OK(aclrtStreamQuery(s, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    cuda_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    compat_assert_filled(pinned, SIZE, 0x5e);
    ACL_OK(aclrtSynchronizeEvent(wrapped));

    /* Recorded through ACL, seen by CUDA. */
    ACL_OK(aclrtRecordEvent(wrapped, s));
    CUDA_OK(cudaEventSynchronize(ce));
    /* It times only if CUDA made it so. */
    float ms = -1;
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, wrapped, wrapped),
                   ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&t1));
    aclrtEvent w0, w1;
    ACL_OK(aclcudaEventFromNative(t0, &w0));
    ACL_OK(aclcudaEventFromNative(t1, &w1));
    ACL_OK(aclrtRecordEvent(w0, s));
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 1, SIZE, s));
    ACL_OK(aclrtRecordEvent(w1, s));
    ACL_OK(aclrtSynchronizeEvent(w1));
    ACL_OK(aclrtEventElapsedTime(&ms, w0, w1));
    ck_assert(ms >= 0);

    /* Destroying the handles leaves the CUDA events alone. */
    ACL_OK(aclrtDestroyEvent(wrapped));
    ACL_OK(aclrtDestroyEvent(w0));
    ACL_OK(aclrtDestroyEvent(w1));
    CUDA_OK(cudaEventRecord(ce, cs));
    CUDA_OK(cudaEventSynchronize(ce));
    CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
    CUDA_OK(cudaEventDestroy(ce));
    CUDA_OK(cudaEventDestroy(t0));
    CUDA_OK(cudaEventDestroy(t1));
    ACL_OK(aclrtDestroyStream(s));
    CUDA_OK(cudaStreamDestroy(cs));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

START_TEST(stream_of_another_device)
{
    int count = 0;
    CUDA_OK(cudaGetDeviceCount(&count));
    if (count < 2)
        return; /* one GPU: nothing to mix up */
    int32_t native0 = -1;
    ACL_OK(aclcudaGetNativeDevice(0, &native0));
    CUDA_OK(cudaSetDevice(native0 == 0 ? 1 : 0));
    cudaStream_t other;
    CUDA_OK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    aclrtStream wrapped = NULL;
    ACL_FAILS_WITH(aclcudaStreamFromNative(other, &wrapped), ACL_ERROR_INVALID_PARAM);
    CUDA_OK(cudaStreamDestroy(other));
}
END_TEST

/* ---- what an exported notify hands out ---------------------------------------------- */

/* The entry of a notify key as the sharing broker hands it to any process
 * of this user (core/share.h's wire format; a descriptor passed with it is
 * closed). */
static share_reply fetch_notify_entry(const char *key)
{
    share_request req = {.magic = SHARE_MAGIC, .kind = SHARE_NOTIFY};
    int32_t pid;
    ck_assert_msg(
        sscanf(key, "aclnotify-%" SCNd32 "-%" SCNx64 "-%" SCNx64, &pid, &req.id, &req.nonce) == 3,
        "unexpected key format: %s", key);
    int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(sock, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "acl-cuda.share.%d", (int)pid);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    ck_assert_int_eq(connect(sock, (struct sockaddr *)&addr, len), 0);
    ck_assert_int_eq(send(sock, &req, sizeof req, MSG_NOSIGNAL), (ssize_t)sizeof req);
    share_reply rep;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {&rep, sizeof rep};
    struct msghdr in = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof control.buf};
    ck_assert_int_eq(recvmsg(sock, &in, MSG_CMSG_CLOEXEC), (ssize_t)sizeof rep);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&in); c; c = CMSG_NXTHDR(&in, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int fd;
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
            close(fd);
        }
    close(sock);
    ck_assert_uint_eq(rep.magic, SHARE_MAGIC);
    return rep;
}

/* The notify blob: the backend's name, then what the cuda backend
 * describes (src/backend/cuda/notify.c): its allocation's IPC handle, and
 * the word's offset in it and address in the exporting process. */
typedef struct cuda_notify_entry {
    char backend[16];
    uint32_t magic;
    int32_t pid, dev;
    uint32_t offset;
    uint64_t address;
    cudaIpcMemHandle_t handle;
} cuda_notify_entry;

/* The allocation an exported notify's IPC handle maps in an importer holds
 * that notify's word and nothing else of the exporter's: not the words of
 * its other notifies (one of them recorded here), nor what freed memory
 * held. CUDA maps the whole block a cudaMalloc came from, so the
 * allocation is a block of its own (a multiple of 2 MiB). */
START_TEST(exported_notify_hands_out_only_its_word)
{
    aclrtStream s = acltest_new_stream();
    aclrtNotify recorded, exported;
    ACL_OK(aclrtCreateNotify(&recorded, ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtCreateNotify(&exported, ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtRecordNotify(recorded, s));
    ACL_OK(aclrtSynchronizeStream(s));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(exported, key, sizeof key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    share_reply rep = fetch_notify_entry(key);
    ck_assert_int_eq(rep.status, ACL_SUCCESS);
    cuda_notify_entry entry;
    ck_assert_uint_ge(rep.len, sizeof entry);
    memcpy(&entry, rep.blob, sizeof entry);
    ck_assert_str_eq(entry.backend, "cuda");

    PFN_cuMemGetAddressRange_v3020 range = driver_function("cuMemGetAddressRange", 3020);
    CUdeviceptr base = 0;
    size_t size = 0;
    ck_assert_int_eq(range(&base, &size, (CUdeviceptr)entry.address), CUDA_SUCCESS);
    ck_assert_msg(size % (2u << 20) == 0, "the exported allocation has %zu bytes", size);
    ck_assert_uint_eq(entry.address - base, entry.offset);
    uint8_t *all = malloc(size);
    ck_assert_ptr_nonnull(all);
    cuda_read(all, (void *)(uintptr_t)base, size);
    for (size_t i = 0; i < size; i++)
        ck_assert_msg(all[i] == 0, "byte %zu of the exported allocation is %#x", i, all[i]);

    /* The exported word is the notify's: a record sets it, a wait clears it. */
    uint32_t word = 0;
    ACL_OK(aclrtRecordNotify(exported, s));
    ACL_OK(aclrtSynchronizeStream(s));
    cuda_read(&word, (void *)(uintptr_t)entry.address, sizeof word);
    ck_assert_uint_eq(word, 1);
    ACL_OK(aclrtWaitAndResetNotify(exported, s, 0));
    ACL_OK(aclrtSynchronizeStream(s));
    cuda_read(&word, (void *)(uintptr_t)entry.address, sizeof word);
    ck_assert_uint_eq(word, 0);

    /* A notify stream work already used keeps its word where that work
     * expects it: it is not exported. */
    ACL_FAILS_WITH(aclrtNotifyGetExportKey(recorded, key, sizeof key,
                                           ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    free(all);
    ACL_OK(aclrtDestroyNotify(exported));
    ACL_OK(aclrtDestroyNotify(recorded));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* An IPC key hands out only what was exported: CUDA maps the whole
 * allocation a handle names, and an allocation under 2 MiB shares its
 * block with others, so such memory, or part of an allocation, is not
 * exported; allocations of 2 MiB and more own whole 2 MiB blocks. */
START_TEST(exported_memory_is_a_whole_allocation)
{
    char key[65];
    const int64_t flags = ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
    void *small, *neighbour;
    ACL_OK(aclrtMalloc(&small, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&neighbour, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclrtIpcMemGetExportKey(small, 4096, key, sizeof key, flags),
                     ACL_ERROR_INVALID_PARAM);
    const char *why = aclGetRecentErrMsg();
    ck_assert_msg(why != NULL && strstr(why, "2 MiB") != NULL, "the refusal says %s",
                  why ? why : "nothing");

    PFN_cuMemGetAddressRange_v3020 range = driver_function("cuMemGetAddressRange", 3020);
    const size_t sizes[] = {2u << 20, (2u << 20) + 1, 3u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *dev;
        ACL_OK(aclrtMalloc((void **)&dev, sizes[i], ACL_MEM_MALLOC_HUGE_FIRST));
        CUdeviceptr base = 0;
        size_t size = 0;
        ck_assert_int_eq(range(&base, &size, (CUdeviceptr)(uintptr_t)dev), CUDA_SUCCESS);
        ck_assert_uint_eq(base, (uintptr_t)dev);
        ck_assert_msg(base % (2u << 20) == 0 && size % (2u << 20) == 0,
                      "%zu bytes asked: %zu bytes at %#llx", sizes[i], size,
                      (unsigned long long)base);
        /* Part of it: the importer would map the rest too. */
        ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, sizes[i] / 2, key, sizeof key, flags),
                       ACL_ERROR_INVALID_PARAM);
        ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev + 4096, sizes[i] - 4096, key, sizeof key,
                                               flags),
                       ACL_ERROR_INVALID_PARAM);
        ACL_OK(aclrtIpcMemGetExportKey(dev, sizes[i], key, sizeof key, flags));
        ACL_OK(aclrtIpcMemClose(key));
        ACL_OK(aclrtFree(dev));
    }
    ACL_OK(aclrtFree(neighbour));
    ACL_OK(aclrtFree(small));
}
END_TEST

/* Whether the backend is cuda, asked in a child process so that this one
 * initialises no CUDA before Check forks the cases. */
static bool backend_is_cuda(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        uint32_t count = 0;
        _exit(strcmp(aclcudaGetBackendName(), "cuda") == 0 &&
                      aclrtGetDeviceCount(&count) == ACL_SUCCESS && count > 0
                  ? 0
                  : 1);
    }
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

int main(void)
{
    if (!backend_is_cuda()) {
        printf("skipped: needs the cuda backend and a GPU (ACLCUDA_BACKEND=cuda)\n");
        return 77;
    }
    Suite *s = suite_create("interop with CUDA");
    TCase *memory = tcase_create("foreign memory");
    tcase_add_checked_fixture(memory, set_up, tear_down);
    tcase_add_test(memory, cuda_malloc_memory);
    tcase_add_test(memory, stream_ordered_pool_memory);
    tcase_add_test(memory, managed_memory);
    tcase_add_test(memory, vmm_mappings);
    tcase_add_test(memory, cuda_host_alloc_memory);
    tcase_add_test(memory, cuda_host_register_memory);
    suite_add_tcase(s, memory);

    TCase *handles = tcase_create("wrapped handles");
    tcase_add_checked_fixture(handles, set_up, tear_down);
    tcase_add_test(handles, wrapped_cuda_stream);
    tcase_add_test(handles, wrapped_cuda_event);
    tcase_add_test(handles, stream_of_another_device);
    suite_add_tcase(s, handles);

    TCase *sharing = tcase_create("sharing");
    tcase_add_checked_fixture(sharing, set_up, tear_down);
    tcase_add_test(sharing, exported_notify_hands_out_only_its_word);
    tcase_add_test(sharing, exported_memory_is_a_whole_allocation);
    suite_add_tcase(s, sharing);
    return acltest_run(s);
}
