/* acl-cuda's own choices for the memory functions of issue #15, where ACL
 * leaves the behaviour undefined or names no error code (the documented
 * behaviour is pinned by tests/compat/test_memory.c, test_vmm.c,
 * test_ipc.c): the registry refuses copies that touch unmapped or
 * inaccessible virtual memory; the codes of the virtual-memory and IPC
 * refusals; on the host backend, a forked child's device memory is its own
 * and a copy through a bad device-side address does not bring the process
 * down. Queued work keeps the memory it touches alive through frees, as on
 * CUDA. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acltest.h"
#include "acl/acl_cuda.h"
#include "acl/acl_rt_memory_soma.h"

static bool on_host_backend(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

static size_t huge_granularity(aclrtPhysicalMemProp *prop)
{
    memset(prop, 0, sizeof *prop);
    prop->memAttr = ACL_MEM_HUGE;
    prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t g = 0;
    ACL_OK(aclrtMemGetAllocationGranularity(prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    return g;
}

/* A failure with the code and a message that says `text`. */
#define FAILS_SAYING(expr, code, text)                                                             \
    do {                                                                                           \
        (void)aclGetRecentErrMsg();                                                                \
        aclError ret_ = (expr);                                                                    \
        const char *msg_ = aclGetRecentErrMsg();                                                   \
        ck_assert_msg(ret_ == (code), "%s returned %d", #expr, (int)ret_);                         \
        ck_assert_msg(msg_ &&strstr(msg_, text), "%s said \"%s\", not \"%s\"", #expr,              \
                      msg_ ? msg_ : "(nothing)", text);                                            \
    } while (0)

/* Copies and fills stay inside what is mapped, with access. */
START_TEST(virtual_memory_registry)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va, in[256], out[256];
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 3 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, h, 0));
    memset(in, 1, sizeof in);
    /* Past the mapped part; into the reserved, unmapped part. */
    FAILS_SAYING(aclrtMemcpy(out, 256, va + g - 128, 256, ACL_MEMCPY_DEVICE_TO_HOST),
                 ACL_ERROR_INVALID_PARAM, "mapped part");
    FAILS_SAYING(aclrtMemcpy(va + g, 256, in, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                 ACL_ERROR_INVALID_PARAM, "nothing is mapped");
    ACL_FAILS_WITH(aclrtMemset(va + 2 * g, 64, 0, 64), ACL_ERROR_INVALID_PARAM);
    /* aclrtFree refuses a mapping and names what releases it. */
    FAILS_SAYING(aclrtFree(va), ACL_ERROR_INVALID_PARAM, "aclrtUnmapMem");
    /* Read-only and no access. */
    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
    ACL_OK(aclrtMemSetAccess(va, g, &desc, 1));
    ACL_FAILS_WITH(aclrtMemcpy(va, 256, in, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtMemcpy(out, 256, va, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtMemMapNoAccess(va, g, 0, h, 0));
    ACL_FAILS_WITH(aclrtMemcpy(out, 256, va, 256, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(va, 256, 0, 256), ACL_ERROR_INVALID_PARAM);
    void *base;
    size_t size;
    ACL_OK(aclrtUnmapMem(va));
    ACL_FAILS_WITH(aclrtMemGetAddressRange(va, &base, &size), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
}
END_TEST

/* Stream memory operations obey a mapping's access as fills do: a write
 * needs write access, a wait read access; refused at the call, not queued
 * (queued, the host backend's stream faulted on it, a GPU waits forever). */
START_TEST(value_ops_respect_access)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va;
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMemMapNoAccess(va, g, 0, h, 0));
    aclrtStream s = acltest_new_stream();
    FAILS_SAYING(aclrtValueWrite(va, 1, 0, s), ACL_ERROR_INVALID_PARAM, "no access");
    FAILS_SAYING(aclrtValueWait(va, 0, ACL_STREAM_WAIT_VALUE_GEQ, s), ACL_ERROR_INVALID_PARAM,
                 "no access");
    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
    ACL_OK(aclrtMemSetAccess(va, g, &desc, 1));
    FAILS_SAYING(aclrtValueWrite(va + 8, 1, 0, s), ACL_ERROR_INVALID_PARAM, "only read");
    ACL_OK(aclrtValueWait(va + 8, 0, ACL_STREAM_WAIT_VALUE_GEQ, s));
    ACL_OK(aclrtSynchronizeStream(s));
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    ACL_OK(aclrtMemSetAccess(va, g, &desc, 1));
    ACL_OK(aclrtValueWrite(va + 16, 0x1234, 0, s));
    ACL_OK(aclrtValueWait(va + 16, 0x1234, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclrtSynchronizeStream(s));
    uint64_t word = 0;
    ACL_OK(aclrtMemcpy(&word, 8, va + 16, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(word, 0x1234);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
}
END_TEST

/* A host function that holds its stream until the test opens it (or 10 s
 * pass: a guard against a hang, not a timing). */
static void hold_stream(void *arg)
{
    atomic_int *open = arg;
    for (int i = 0; i < 10000 && !atomic_load(open); i++)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
}

static void *open_later(void *arg)
{
    nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
    atomic_store((atomic_int *)arg, 1);
    return NULL;
}

/* Queued work keeps what it touches alive: an unmap, the free of its
 * physical memory and the release of its range, with a fill of the
 * mapping still queued, succeed at once and change what the caller sees
 * at once, while the fill and a copy behind it still reach the memory. */
START_TEST(vmm_release_with_work_queued)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va, *dev;
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, h, 0));
    ACL_OK(aclrtMalloc((void **)&dev, g, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = acltest_new_stream();
    atomic_int open = 0;
    ACL_OK(aclrtLaunchHostFunc(s, hold_stream, &open));
    ACL_OK(aclrtMemsetAsync(va, g, 0x5A, g, s));
    ACL_OK(aclrtMemcpyAsync(dev, g, va, g, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
    /* Gone for the caller. */
    ACL_FAILS_WITH(aclrtUnmapMem(va), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreePhysical(h), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReleaseMemAddress(va), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(va, 64, 0, 64, s), ACL_ERROR_INVALID_PARAM);
    atomic_store(&open, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char out[256];
    ACL_OK(
        aclrtMemcpy(out, sizeof out, dev + g - sizeof out, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_uint_eq(out[i], 0x5A);
    /* The addresses are free again once the work completed. */
    unsigned char *again = NULL;
    ACL_OK(aclrtReserveMemAddress((void **)&again, 2 * g, 0, va, 0));
    ck_assert_ptr_eq(again, va);
    ACL_OK(aclrtReleaseMemAddress(again));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* A reservation asked at an address whose release still waits for queued
 * work that waits for this thread: it fails as at an occupied address
 * (CANN: ACL_ERROR_RT_MEMORY_ALLOCATION) instead of waiting for ever, and
 * succeeds once the work ran. */
START_TEST(vmm_reserve_where_a_release_waits_for_the_caller)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va;
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, h, 0));
    aclrtStream s = acltest_new_stream();
    atomic_int open = 0;
    ACL_OK(aclrtLaunchHostFunc(s, hold_stream, &open));
    ACL_OK(aclrtMemsetAsync(va, g, 0x5A, g, s));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
    void *at = NULL;
    ACL_FAILS_WITH(aclrtReserveMemAddress(&at, g, 0, va, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
    atomic_store(&open, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtReserveMemAddress(&at, g, 0, va, 0));
    ck_assert_ptr_eq(at, va);
    ACL_OK(aclrtReleaseMemAddress(at));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* The same with the stream destroyed by aclrtDestroyStreamForce before the
 * releases: its work still runs (porting.md), so it still keeps the
 * memory it touches. */
START_TEST(vmm_release_with_work_of_a_force_destroyed_stream)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va, *dev;
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, h, 0));
    ACL_OK(aclrtMalloc((void **)&dev, g, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = acltest_new_stream();
    atomic_int open = 0;
    ACL_OK(aclrtLaunchHostFunc(s, hold_stream, &open));
    ACL_OK(aclrtMemsetAsync(va, g, 0x5A, g, s));
    ACL_OK(aclrtMemcpyAsync(dev, g, va, g, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtDestroyStreamForce(s));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
    atomic_store(&open, 1);
    ACL_OK(aclrtSynchronizeDevice());
    unsigned char out[256];
    ACL_OK(
        aclrtMemcpy(out, sizeof out, dev + g - sizeof out, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_uint_eq(out[i], 0x5A);
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* Mapping again where an unmap still waits for queued work waits for it:
 * the queued fill lands in the memory that was mapped when it was queued,
 * never in the new one. */
START_TEST(vmm_remap_after_unmap_with_work_queued)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va;
    aclrtDrvMemHandle first, second;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&first, g, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&second, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, first, 0));
    ACL_OK(aclrtMemset(va, g, 0, g));
    aclrtStream s = acltest_new_stream();
    atomic_int open = 0;
    ACL_OK(aclrtLaunchHostFunc(s, hold_stream, &open));
    ACL_OK(aclrtMemsetAsync(va, g, 0x11, g, s));
    ACL_OK(aclrtUnmapMem(va));
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_later, &open), 0);
    ACL_OK(aclrtMapMem(va, g, 0, second, 0));
    ACL_OK(aclrtMemset(va, g, 0x22, g));
    ck_assert_int_eq(pthread_join(opener, NULL), 0);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMapMem(va + g, g, 0, first, 0));
    unsigned char out[2];
    ACL_OK(aclrtMemcpy(&out[0], 1, va + g + g / 2, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    ACL_OK(aclrtMemcpy(&out[1], 1, va + g / 2, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(out[0], 0x11);
    ck_assert_uint_eq(out[1], 0x22);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtUnmapMem(va + g));
    ACL_OK(aclrtFreePhysical(first));
    ACL_OK(aclrtFreePhysical(second));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- frees behind queued work ------------------------------------------------ */

/* A stream held at a gate until hold_open. The host backend's frees
 * return at once, so the test opens the gate itself after its frees and
 * allocations; on CUDA a free waits for the device (cudaFree), so a thread
 * opens the gate a little later instead. */
typedef struct hold {
    acltest_gate gate;
    pthread_t opener;
    bool by_thread;
} hold;

static void *open_gate_later(void *arg)
{
    nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
    acltest_gate_open(arg);
    return NULL;
}

static void hold_close(hold *h, aclrtStream s)
{
    acltest_gate_close(&h->gate, s);
    h->by_thread = !on_host_backend();
    if (h->by_thread)
        ck_assert_int_eq(pthread_create(&h->opener, NULL, open_gate_later, &h->gate), 0);
}

static void hold_open(hold *h)
{
    if (h->by_thread)
        ck_assert_int_eq(pthread_join(h->opener, NULL), 0);
    else
        acltest_gate_open(&h->gate);
}

/* Every byte of n bytes at p (device memory unless host) is value. */
static void expect_bytes(const void *p, size_t n, unsigned char value, bool host)
{
    unsigned char *out = malloc(n);
    ck_assert_ptr_nonnull(out);
    if (host)
        memcpy(out, p, n);
    else
        ACL_OK(aclrtMemcpy(out, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        if (out[i] != value)
            ck_abort_msg("byte %zu of %zu at %p is 0x%02x, expected 0x%02x", i, n, p, out[i],
                         value);
    free(out);
}

/* Queued work keeps what it touches alive, as cudaFree's wait for the
 * device does on CUDA: device memory freed while a fill of it and a copy
 * from it are queued is not handed out again under them (a small block
 * and a large one: their free lists differ), and the copy still reads
 * what the fill wrote. The bytes count as free at once. */
START_TEST(free_with_work_queued)
{
    const size_t sizes[] = {4096, 4 << 20};
    aclrtStream s = acltest_new_stream();
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *a, *b, *kept;
        ACL_OK(aclrtMalloc((void **)&kept, n, ACL_MEM_MALLOC_HUGE_FIRST));
        size_t free_before, free_after, total;
        ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total));
        ACL_OK(aclrtMalloc((void **)&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
        hold h;
        hold_close(&h, s);
        ACL_OK(aclrtMemsetAsync(a, n, 0x5A, n, s));
        ACL_OK(aclrtMemcpyAsync(kept, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
        ACL_OK(aclrtFree(a));
        ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_after, &total));
        if (on_host_backend()) /* no other process shares the device */
            ck_assert_uint_eq(free_after, free_before);
        ACL_OK(aclrtMalloc((void **)&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtMemset(b, n, 0x22, n));
        hold_open(&h);
        ACL_OK(aclrtSynchronizeStream(s));
        expect_bytes(b, n, 0x22, false);
        expect_bytes(kept, n, 0x5A, false);
        ACL_OK(aclrtFree(b));
        ACL_OK(aclrtFree(kept));
    }
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* The same for page-locked host memory (aclrtFreeHost): a copy into it and
 * one out of it queued before its free. (Large enough that the host
 * backend's heap would give it back to the system at once.) */
START_TEST(free_host_with_work_queued)
{
    enum { N = 1 << 20 };
    aclrtStream s = acltest_new_stream();
    unsigned char *src, *kept, *a, *b;
    ACL_OK(aclrtMalloc((void **)&src, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&kept, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(src, N, 0x5A, N));
    ACL_OK(aclrtMallocHost((void **)&a, N));
    hold h;
    hold_close(&h, s);
    ACL_OK(aclrtMemcpyAsync(a, N, src, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtMemcpyAsync(kept, N, a, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    ACL_OK(aclrtFreeHost(a));
    ACL_OK(aclrtMallocHost((void **)&b, N));
    memset(b, 0x22, N);
    hold_open(&h);
    ACL_OK(aclrtSynchronizeStream(s));
    expect_bytes(b, N, 0x22, true);
    expect_bytes(kept, N, 0x5A, false);
    ACL_OK(aclrtFreeHost(b));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(kept));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* The same for managed memory (aclrtMemAllocManaged, aclrtFree). */
START_TEST(free_managed_with_work_queued)
{
    const size_t n = (size_t)2 << 20;
    aclrtStream s = acltest_new_stream();
    unsigned char *a, *b;
    ACL_OK(aclrtMemAllocManaged((void **)&a, n, ACL_RT_MEM_ATTACH_GLOBAL));
    hold h;
    hold_close(&h, s);
    ACL_OK(aclrtMemsetAsync(a, n, 0x5A, n, s));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtMemAllocManaged((void **)&b, n, ACL_RT_MEM_ATTACH_GLOBAL));
    ACL_OK(aclrtMemset(b, n, 0x22, n));
    hold_open(&h);
    ACL_OK(aclrtSynchronizeStream(s));
    expect_bytes(b, n, 0x22, false);
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* Work that waits for another stream counts too: a fill queued on a stream
 * that waits for an event recorded behind the held stream's gate. */
START_TEST(free_with_a_chain_queued)
{
    enum { N = 4096 };
    aclrtStream held = acltest_new_stream(), waiting = acltest_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEvent(&e));
    unsigned char *a, *b;
    ACL_OK(aclrtMalloc((void **)&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
    hold h;
    hold_close(&h, held);
    ACL_OK(aclrtRecordEvent(e, held));
    ACL_OK(aclrtStreamWaitEvent(waiting, e));
    ACL_OK(aclrtMemsetAsync(a, N, 0x5A, N, waiting));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtMalloc((void **)&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(b, N, 0x22, N));
    hold_open(&h);
    ACL_OK(aclrtSynchronizeStream(waiting));
    expect_bytes(b, N, 0x22, false);
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtDestroyStream(held));
    ACL_OK(aclrtDestroyStream(waiting));
}
END_TEST

/* And a queued replay of a captured model that fills the memory. */
START_TEST(free_with_a_model_replay_queued)
{
    enum { N = 4096 };
    aclrtStream held = acltest_new_stream(), capturing = acltest_new_stream();
    unsigned char *a, *b;
    ACL_OK(aclrtMalloc((void **)&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(capturing, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(a, N, 0x5A, N, capturing));
    ACL_OK(aclmdlRICaptureEnd(capturing, &model));
    hold h;
    hold_close(&h, held);
    ACL_OK(aclmdlRIExecuteAsync(model, held));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtMalloc((void **)&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(b, N, 0x22, N));
    hold_open(&h);
    ACL_OK(aclrtSynchronizeStream(held));
    expect_bytes(b, N, 0x22, false);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtDestroyStream(held));
    ACL_OK(aclrtDestroyStream(capturing));
}
END_TEST

/* A free never waits for queued work on the host backend: a stream waiting
 * for a notify that only the caller records after the free does not hold
 * the free up, and its fill still misses the memory allocated meanwhile.
 * (On CUDA the free would wait for that stream for ever.) */
START_TEST(host_free_before_a_wait_ends)
{
    if (!on_host_backend())
        return;
    enum { N = 4096 };
    aclrtStream s = acltest_new_stream(), other = acltest_new_stream();
    aclrtNotify notify;
    ACL_OK(aclrtCreateNotify(&notify, 0));
    unsigned char *a, *b;
    ACL_OK(aclrtMalloc((void **)&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtWaitAndResetNotify(notify, s, 0));
    ACL_OK(aclrtMemsetAsync(a, N, 0x5A, N, s));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtMalloc((void **)&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(b, N, 0x22, N));
    ACL_OK(aclrtRecordNotify(notify, other));
    ACL_OK(aclrtSynchronizeStream(s));
    expect_bytes(b, N, 0x22, false);
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtDestroyNotify(notify));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(other));
}
END_TEST

typedef struct callback_free {
    void *ptr;
    aclError result;
} callback_free;

static void free_in_callback(void *arg)
{
    callback_free *f = arg;
    f->result = aclrtFree(f->ptr);
}

static void *process_reports(void *arg)
{
    atomic_int *stop = arg;
    while (!atomic_load(stop))
        (void)aclrtProcessReport(20);
    return NULL;
}

/* Memory freed inside a callback is not handed out again under the work
 * queued before the free either. (The core parks such frees where a free
 * waits for the device, as on CUDA, and hands them out again at once.) */
START_TEST(host_free_in_a_callback_with_work_queued)
{
    if (!on_host_backend())
        return;
    enum { N = 4096 };
    atomic_int stop = 0;
    pthread_t reporter;
    ck_assert_int_eq(pthread_create(&reporter, NULL, process_reports, &stop), 0);
    aclrtStream s = acltest_new_stream(), callbacks = acltest_new_stream();
    ACL_OK(aclrtSubscribeReport((uint64_t)reporter, callbacks));
    unsigned char *b;
    callback_free f = {.result = -1};
    ACL_OK(aclrtMalloc(&f.ptr, N, ACL_MEM_MALLOC_HUGE_FIRST));
    hold h;
    hold_close(&h, s);
    ACL_OK(aclrtMemsetAsync(f.ptr, N, 0x5A, N, s));
    ACL_OK(aclrtLaunchCallback(free_in_callback, &f, ACL_CALLBACK_BLOCK, callbacks));
    ACL_OK(aclrtSynchronizeStream(callbacks));
    ACL_OK(f.result);
    ACL_OK(aclrtMalloc((void **)&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(b, N, 0x22, N));
    hold_open(&h);
    ACL_OK(aclrtSynchronizeStream(s));
    expect_bytes(b, N, 0x22, false);
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtUnSubscribeReport((uint64_t)reporter, callbacks));
    atomic_store(&stop, 1);
    ck_assert_int_eq(pthread_join(reporter, NULL), 0);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(callbacks));
}
END_TEST

/* The codes acl-cuda gives where CANN's documents name none: relations the
 * runtime checks are ACL_ERROR_RT_PARAM_INVALID. */
START_TEST(virtual_memory_codes)
{
    aclrtPhysicalMemProp prop;
    size_t g = huge_granularity(&prop);
    unsigned char *va;
    aclrtDrvMemHandle a, big;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&a, g, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&big, 2 * g, &prop, 0));
    ACL_FAILS_WITH(aclrtMapMem(va, g / 2, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va, g, g, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va + 4096, g, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va + 3 * g, 2 * g, 0, big, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtMapMem(va, g, 0, a, 0));
    ACL_FAILS_WITH(aclrtMapMem(va, g, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);
    uint64_t shareable, again;
    ACL_OK(aclrtMemExportToShareableHandle(a, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable));
    ACL_FAILS_WITH(aclrtMemExportToShareableHandle(a, ACL_MEM_HANDLE_TYPE_NONE, 0, &again),
                   ACL_ERROR_RT_PARAM_INVALID);
    aclrtDrvMemHandle mine;
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandle(shareable, 0, &mine),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(a));
    ACL_OK(aclrtFreePhysical(big));
    ACL_OK(aclrtReleaseMemAddress(va));
    /* A shareable handle of a process that is gone names nothing. */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandle((uint64_t)child << 40 | 1, 0, &mine),
                   ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* IPC keys: codes of the refusals, and the pid list enforced (a forked
 * child imports; host backend only, a CUDA context does not survive fork). */
START_TEST(ipc_codes)
{
    void *dev;
    char key[65];
    enum { SHARED = 2 << 20 }; /* on CUDA only whole 2 MiB blocks are exported */
    ACL_OK(aclrtMalloc(&dev, SHARED, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, SHARED, 0x42, SHARED));
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, SHARED, key, 8, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtIpcMemGetExportKey(dev, SHARED, key, sizeof key, 0));
    void *p;
    ACL_FAILS_WITH(aclrtIpcMemImportByKey(&p, key, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtIpcMemImportByKey(&p, "acl-cuda-ipc:1:1:0000000000000001", 0),
                   ACL_ERROR_INVALID_PARAM);
    if (on_host_backend()) {
        for (int round = 0; round < 2; round++) {
            int go[2];
            ck_assert_int_eq(pipe(go), 0);
            pid_t child = fork();
            if (child == 0) {
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) != 1)
                    _exit(4);
                void *q = NULL;
                aclError ret = aclrtIpcMemImportByKey(&q, key, 0);
                unsigned char byte = 0;
                if (ret == ACL_SUCCESS)
                    ret = aclrtMemcpy(&byte, 1, q, 1, ACL_MEMCPY_DEVICE_TO_HOST);
                _exit(ret == ACL_SUCCESS                  ? (byte == 0x42 ? 0 : 3)
                      : ret == ACL_ERROR_RT_NO_PERMISSION ? 2
                                                          : 1);
            }
            close(go[0]);
            int32_t pid = (int32_t)child;
            if (round == 1)
                ACL_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
            ck_assert_int_eq(write(go[1], "g", 1), 1);
            close(go[1]);
            int status = 0;
            ck_assert_int_eq(waitpid(child, &status, 0), child);
            ck_assert(WIFEXITED(status));
            /* Not listed: no permission; listed: the memory. */
            ck_assert_int_eq(WEXITSTATUS(status), round == 0 ? 2 : 0);
        }
    }
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* Host backend: a forked child's device memory is its own copy. */
START_TEST(host_fork_keeps_device_memory_private)
{
    if (!on_host_backend())
        return;
    unsigned char *dev, byte = 0;
    ACL_OK(aclrtMalloc((void **)&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, 4096, 0x11, 4096));
    pid_t child = fork();
    if (child == 0) {
        unsigned char seen = 0;
        aclError ret = aclrtMemcpy(&seen, 1, dev, 1, ACL_MEMCPY_DEVICE_TO_HOST);
        if (ret == ACL_SUCCESS)
            ret = aclrtMemset(dev, 4096, 0x99, 4096);
        _exit(ret == ACL_SUCCESS && seen == 0x11 ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ACL_OK(aclrtMemcpy(&byte, 1, dev, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(byte, 0x11); /* the child's fill stayed in the child */
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* Host backend: a descriptor naming an unmapped address copies nothing,
 * the process goes on, and the stream's synchronize reports the failed
 * copy once, as a device reports a bad address (issue 26, item 10). */
START_TEST(host_indirect_copy_with_bad_address)
{
    if (!on_host_backend())
        return;
    unsigned char *desc, *dst;
    ACL_OK(aclrtMalloc((void **)&desc, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dst, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dst, 4096, 0x7, 4096));
    unsigned char *src;
    ACL_OK(aclrtMalloc((void **)&src, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 4096, NULL));
    /* Point the source at address 16 behind the library's back. */
    uint64_t bad = 16;
    ACL_OK(aclrtMemcpy(desc, 8, &bad, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    ACL_FAILS_WITH(aclrtSynchronizeStream(s), ACL_ERROR_RT_SYS_DMA);
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char out[16];
    ACL_OK(aclrtMemcpy(out, 16, dst, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(out[i], 0x7);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(desc));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}
END_TEST

/* Registration: the codes acl-cuda picks where CANN leaves them to its
 * driver, the registry's view of registered memory, and registrations of
 * aclrtMallocHost memory forgotten when it is freed. */
START_TEST(host_registration_choices)
{
    size_t size = 8 * 4096;
    unsigned char *host =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(host, MAP_FAILED);
    void *dev;
    ACL_FAILS_WITH(aclrtHostRegisterV2(host + 16, 64, ACL_HOST_REG_MAPPED),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtHostRegister(host, size, ACL_HOST_REGISTER_IOMEMORY, &dev),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtHostRegisterV2(host, size, 0x40), ACL_ERROR_RT_PARAM_INVALID);

    /* Registered memory is page-locked host memory to copies. */
    ACL_OK(aclrtHostRegisterV2(host, size, ACL_HOST_REG_PINNED));
    aclrtPtrAttributes attrs;
    ACL_OK(aclrtPointerGetAttributes(host + 100, &attrs));
    ck_assert_int_eq(attrs.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    ACL_FAILS_WITH(aclrtHostGetDevicePointer(host, &dev, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtHostUnregister(host + 4096), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    ACL_FAILS_WITH(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtHostUnregister(host));

    /* Device memory is not host memory. */
    void *devmem;
    ACL_OK(aclrtMalloc(&devmem, size, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtHostRegisterV2(devmem, 4096, ACL_HOST_REG_MAPPED),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtFree(devmem));

    /* Pinning page-locked memory again: already registered. Freeing it
     * drops a mapped registration with it. */
    void *pinned;
    ACL_OK(aclrtMallocHost(&pinned, size));
    ck_assert_uint_eq((uintptr_t)pinned % 4096, 0);
    ACL_FAILS_WITH(aclrtHostRegisterV2(pinned, size, ACL_HOST_REG_PINNED),
                   ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    ACL_OK(aclrtHostRegisterV2(pinned, size, ACL_HOST_REG_MAPPED));
    ACL_OK(aclrtHostGetDevicePointer((char *)pinned + 8, &dev, 0));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_FAILS_WITH(aclrtHostUnregister(pinned), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    munmap(host, size);

    aclrtHostMemMapCapability cap;
    ACL_OK(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_SDMA, &cap));
    ck_assert_int_eq(cap, ACL_RT_HOST_MEM_MAP_SUPPORTED);
    ACL_OK(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_DVPP, &cap));
    ck_assert_int_eq(cap, ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED);
    ACL_FAILS_WITH(aclrtHostMemMapCapabilities(0, (aclrtHacType)10, &cap),
                   ACL_ERROR_RT_PARAM_INVALID);
}
END_TEST

/* Registration refuses what CUDA refuses (the first copy or fill would
 * fault on it): pages not mapped, without access, or read-only unless the
 * registration is read-only; copies and fills never write a read-only
 * registration. */
START_TEST(host_registration_checks_pages)
{
    const size_t page = 4096;
    unsigned char *rw =
        mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(rw, MAP_FAILED);
    memset(rw, 0x5A, 3 * page);
    ck_assert_int_eq(mprotect(rw + page, page, PROT_READ), 0);
    void *dev = NULL;
    FAILS_SAYING(aclrtHostRegisterV2(rw, 3 * page, ACL_HOST_REG_MAPPED), ACL_ERROR_RT_PARAM_INVALID,
                 "read-only");
    FAILS_SAYING(aclrtHostRegister(rw, 3 * page, ACL_HOST_REGISTER_MAPPED, &dev),
                 ACL_ERROR_RT_PARAM_INVALID, "read-only");
    unsigned char *none = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(none, MAP_FAILED);
    FAILS_SAYING(aclrtHostRegisterV2(none, 2 * page, ACL_HOST_REG_PINNED),
                 ACL_ERROR_RT_PARAM_INVALID, "PROT_NONE");
    FAILS_SAYING(aclrtHostRegisterV2(none, 2 * page, ACL_HOST_REG_READONLY),
                 ACL_ERROR_RT_PARAM_INVALID, "PROT_NONE");
    ck_assert_int_eq(munmap(none + page, page), 0);
    ck_assert_int_eq(mprotect(none, page, PROT_READ | PROT_WRITE), 0);
    FAILS_SAYING(aclrtHostRegisterV2(none, 2 * page, ACL_HOST_REG_MAPPED),
                 ACL_ERROR_RT_PARAM_INVALID, "not all mapped");
    munmap(none, page);

    /* Read-only: registered, read by copies, never written. */
    aclError ret =
        aclrtHostRegisterV2(rw + page, page, ACL_HOST_REG_READONLY | ACL_HOST_REG_MAPPED);
    if (ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT && !on_host_backend()) {
        munmap(rw, 3 * page); /* a GPU without cudaDevAttrHostRegisterReadOnlySupported */
        return;
    }
    ACL_OK(ret);
    void *devmem;
    unsigned char in[64], out[64];
    memset(in, 0x11, sizeof in);
    ACL_OK(aclrtMalloc(&devmem, page, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(devmem, page, rw + page, page, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(out, sizeof out, devmem, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(out[0], 0x5A);
    FAILS_SAYING(aclrtMemcpy(rw + page, page, devmem, page, ACL_MEMCPY_DEVICE_TO_HOST),
                 ACL_ERROR_INVALID_PARAM, "read-only");
    FAILS_SAYING(aclrtMemcpy(rw + page, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_HOST),
                 ACL_ERROR_INVALID_PARAM, "read-only");
    FAILS_SAYING(aclrtMemset(rw + page, page, 0, page), ACL_ERROR_INVALID_PARAM, "read-only");
    ACL_OK(aclrtHostUnregister(rw + page));
    ACL_OK(aclrtHostRegister(rw + page, page, ACL_HOST_REGISTER_READONLY, &dev));
    ck_assert_ptr_nonnull(dev);
    ACL_OK(aclrtHostUnregister(rw + page));
    /* Writable pages: registered as before. */
    ACL_OK(aclrtHostRegisterV2(rw, page, ACL_HOST_REG_MAPPED));
    ACL_OK(aclrtMemcpy(rw, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_HOST));
    ck_assert_uint_eq(rw[0], 0x11);
    ACL_OK(aclrtHostUnregister(rw));
    ACL_OK(aclrtFree(devmem));
    munmap(rw, 3 * page);
}
END_TEST

/* Managed memory: the codes acl-cuda picks, NUMA locations, and advice
 * kept per 2 MiB page. */
START_TEST(managed_choices)
{
    const size_t page = (size_t)2 << 20;
    char *p = NULL;
    ACL_FAILS_WITH(aclrtMemAllocManaged((void **)&p, 0, ACL_RT_MEM_ATTACH_GLOBAL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtMemAllocManaged((void **)&p, 3 * page - 1, ACL_RT_MEM_ATTACH_GLOBAL));
    aclrtMemManagedLocation host = {ACL_MEM_LOCATIONTYPE_HOST, 0};
    ACL_FAILS_WITH(aclrtMemManagedAdvise(p, page / 2, ACL_MEM_ADVISE_SET_READ_MOSTLY, host),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemManagedAdvise(p, 4 * page, ACL_MEM_ADVISE_SET_READ_MOSTLY, host),
                   ACL_ERROR_RT_PARAM_INVALID);
    aclrtMemManagedLocation invalid = {ACL_MEM_LOCATIONTYPE_INVALID, 0};
    ACL_FAILS_WITH(aclrtMemManagedAdvise(p, page, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, invalid),
                   ACL_ERROR_RT_PARAM_INVALID);
    aclrtMemManagedLocation numa = {ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT, 99};
    ACL_OK(aclrtMemManagedAdvise(p + page, page, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, numa));
    int32_t v = 7;
    ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p + page, page,
                                  &v, 4));
    ck_assert_int_eq(v, ACL_MEM_LOCATIONTYPE_HOST_NUMA);
    ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p + page, page, &v,
                                  4));
    ck_assert_int_ge(v, 0);
    aclrtMemManagedLocation node0 = {ACL_MEM_LOCATIONTYPE_HOST_NUMA, 0};
    ACL_OK(aclrtMemManagedAdvise(p, page, ACL_MEM_ADVISE_SET_ACCESSED_BY, node0));
    ACL_OK(aclrtMemManagedAdvise(p, page, ACL_MEM_ADVISE_SET_ACCESSED_BY, host));
    int32_t ids[3];
    ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, page, ids, sizeof ids));
    ck_assert_int_eq(ids[0], -1);
    ck_assert_int_eq(ids[1], 0);
    ck_assert_int_eq(ids[2], -2);
    aclrtMemManagedLocation far_node = {ACL_MEM_LOCATIONTYPE_HOST_NUMA, 63};
    ACL_FAILS_WITH(aclrtMemManagedAdvise(p, page, ACL_MEM_ADVISE_SET_ACCESSED_BY, far_node),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* An interior address covers the pages it touches. */
    ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p + 100, page, &v, 4));
    ACL_FAILS_WITH(
        aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p + 100, 3 * page, &v, 4),
        ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtFreeHost(p), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(p));
    ACL_FAILS_WITH(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, page, &v, 4),
                   ACL_ERROR_RT_PARAM_INVALID);
}
END_TEST

/* Pools: the codes acl-cuda picks where CANN's are internal ones, the
 * registry's view of pool memory, and same-stream reuse. */
START_TEST(pool_choices)
{
    const size_t mib = (size_t)1 << 20;
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.maxSize = 8 * mib;
    aclrtMemPool pool;
    props.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    ACL_FAILS_WITH(aclrtMemPoolCreate(&pool, &props), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    props.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    props.maxSize = SIZE_MAX / 2;
    ACL_FAILS_WITH(aclrtMemPoolCreate(&pool, &props), ACL_ERROR_RT_PARAM_INVALID);
    props.maxSize = 8 * mib;
    ACL_OK(aclrtMemPoolCreate(&pool, &props));
    aclrtStream s = acltest_new_stream();
    void *p = NULL, *q = NULL;
    ACL_FAILS_WITH(aclrtMemPoolMallocAsync(&p, 9 * mib, pool, s), ACL_ERROR_RT_MEMORY_ALLOCATION);
    ACL_OK(aclrtMemPoolMallocAsync(&p, 100, pool, s));
    ACL_FAILS_WITH(aclrtFree(p), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemPoolDestroy(pool), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemPoolTrimTo(pool, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemPoolTrimTo(pool, 9 * mib), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemPoolFreeAsync((char *)p + 64, s), ACL_ERROR_INVALID_PARAM);
    /* Blocks are 2 MiB: the whole block is the allocation's. */
    ACL_OK(aclrtMemsetAsync(p, 2 * mib, 0, 2 * mib, s));
    ACL_FAILS_WITH(aclrtMemsetAsync(p, 2 * mib + 1, 0, 2 * mib + 1, s), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtMemPoolFreeAsync(p, s));
    ACL_FAILS_WITH(aclrtMemsetAsync(p, 16, 0, 16, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemPoolFreeAsync(p, s), ACL_ERROR_INVALID_PARAM);
    if (on_host_backend()) {
        /* Reused on its own stream before the free even ran. */
        ACL_OK(aclrtMemPoolMallocAsync(&q, 100, pool, s));
        ck_assert_ptr_eq(q, p);
        ACL_OK(aclrtMemPoolFreeAsync(q, s));
    }
    uint32_t on = 5, got = 0;
    ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &on));
    ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &got));
    ck_assert_uint_eq(got, 1);
    uint64_t too_much = 9 * mib;
    ACL_FAILS_WITH(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &too_much),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtSynchronizeStream(s));
    /* Pool memory comes and goes at the call: a model cannot record it. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_FAILS_WITH(aclrtMemPoolMallocAsync(&q, 100, pool, s),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    if (model != NULL)
        ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_FAILS_WITH(aclrtMemPoolDestroy(pool), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* Pools: the NULL stream is the default stream, as for every other call
 * that takes a stream (CANN's aclrtMemPoolMallocAsync refuses it); a
 * 0-byte allocation sets the pointer to NULL (CANN leaves it unset). */
START_TEST(pool_default_stream_and_size_zero)
{
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.maxSize = (size_t)8 << 20;
    aclrtMemPool pool;
    ACL_OK(aclrtMemPoolCreate(&pool, &props));
    aclrtStream s = acltest_new_stream();
    void *p = (void *)0x1;
    ACL_OK(aclrtMemPoolMallocAsync(&p, 0, pool, s));
    ck_assert_ptr_null(p);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtMemPoolMallocAsync(&p, 4096, pool, NULL));
    ck_assert_ptr_nonnull(p);
    unsigned char out[64];
    ACL_OK(aclrtMemsetAsync(p, 4096, 0x3C, 4096, NULL));
    ACL_OK(aclrtMemcpyAsync(out, sizeof out, p, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST, NULL));
    ACL_OK(aclrtMemPoolFreeAsync(p, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_uint_eq(out[i], 0x3C);
    uint64_t used = 1;
    ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &used));
    ck_assert_uint_eq(used, 0);
    ACL_OK(aclrtMemPoolDestroy(pool));
}
END_TEST

/* Pools: a destroy racing allocations and frees on other threads fails
 * (ACL_ERROR_RT_PARAM_INVALID) while any block is allocated and succeeds
 * only when none is; every block allocated before it frees normally, and
 * no allocation begun after it succeeds. */
enum { POOL_RACE_THREADS = 3, POOL_RACE_ROUNDS = 400 };

typedef struct pool_race {
    aclrtContext ctx;
    aclrtMemPool pool;
    atomic_bool destroyed;
    atomic_int rounds_done, workers_done;
} pool_race;

typedef struct pool_racer {
    pool_race *race;
    const char *failure; /* NULL: none */
} pool_racer;

static const char *pool_race_rounds(pool_race *r, aclrtStream s)
{
    for (int i = 0; i < POOL_RACE_ROUNDS; i++, atomic_fetch_add(&r->rounds_done, 1)) {
        bool after_destroy = atomic_load(&r->destroyed);
        void *p = NULL;
        aclError ret = aclrtMemPoolMallocAsync(&p, (size_t)2 << 20, r->pool, s);
        if (ret == ACL_ERROR_INVALID_PARAM)
            return NULL; /* destroyed */
        /* Blocks freed on other streams may not be reusable yet. */
        if (ret == ACL_ERROR_RT_MEMORY_ALLOCATION)
            continue;
        if (ret != ACL_SUCCESS)
            return "an allocation failed other than for a destroyed pool";
        if (after_destroy)
            return "an allocation begun after the destroy succeeded";
        if (aclrtMemsetAsync(p, 64, i & 0xff, 64, s) != ACL_SUCCESS)
            return "a fill of a pool block failed";
        if (aclrtMemPoolFreeAsync(p, s) != ACL_SUCCESS)
            return "a free of a pool block failed";
    }
    return NULL;
}

static void *pool_race_worker(void *arg)
{
    pool_racer *me = arg;
    aclrtStream s;
    if (aclrtSetCurrentContext(me->race->ctx) != ACL_SUCCESS ||
        aclrtCreateStream(&s) != ACL_SUCCESS)
        me->failure = "no stream";
    else if ((me->failure = pool_race_rounds(me->race, s)) == NULL &&
             (aclrtSynchronizeStream(s) != ACL_SUCCESS || aclrtDestroyStream(s) != ACL_SUCCESS))
        me->failure = "the stream failed";
    atomic_fetch_add(&me->race->workers_done, 1);
    return NULL;
}

START_TEST(pool_destroy_races_allocations)
{
    pool_race r = {0};
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.maxSize = (size_t)32 << 20;
    ACL_OK(aclrtMemPoolCreate(&r.pool, &props));
    ACL_OK(aclrtGetCurrentContext(&r.ctx));
    pthread_t threads[POOL_RACE_THREADS];
    pool_racer racers[POOL_RACE_THREADS];
    for (int i = 0; i < POOL_RACE_THREADS; i++) {
        racers[i] = (pool_racer){.race = &r};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, pool_race_worker, &racers[i]), 0);
    }
    while (atomic_load(&r.rounds_done) < POOL_RACE_ROUNDS / 4 &&
           atomic_load(&r.workers_done) < POOL_RACE_THREADS)
        sched_yield();
    /* Succeeds at the latest once the workers are done. */
    aclError ret;
    while ((ret = aclrtMemPoolDestroy(r.pool)) != ACL_SUCCESS) {
        ck_assert_int_eq(ret, ACL_ERROR_RT_PARAM_INVALID);
        sched_yield();
    }
    atomic_store(&r.destroyed, true);
    for (int i = 0; i < POOL_RACE_THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(racers[i].failure == NULL, "thread %d: %s", i, racers[i].failure);
    }
    ACL_FAILS_WITH(aclrtMemPoolDestroy(r.pool), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* Shared buffers: acl-cuda's choices where CANN leaves them to its driver. */
START_TEST(mbuf_choices)
{
    aclrtMbuf head, a, b, copy;
    ACL_OK(aclrtAllocBuf(&head, 64));
    ACL_OK(aclrtAllocBuf(&a, 64));
    ACL_OK(aclrtAllocBuf(&b, 64));
    ACL_FAILS_WITH(aclrtSetBufDataLen(a, 65), ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtSetBufDataLen(a, 64));
    unsigned char tag[4] = {1, 2, 3, 4}, got[4] = {0};
    ACL_OK(aclrtSetBufUserData(a, tag, 4, 92));
    ACL_OK(aclrtCopyBufRef(a, &copy));
    size_t len = 0;
    ACL_OK(aclrtGetBufDataLen(copy, &len));
    ck_assert_uint_eq(len, 64);
    ACL_OK(aclrtGetBufUserData(copy, got, 4, 92));
    ck_assert_mem_eq(got, tag, 4);
    void *data;
    size_t size;
    ACL_OK(aclrtGetBufData(a, &data, &size));
    ACL_FAILS_WITH(aclrtFreeHost(data), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtAppendBufChain(head, a));
    ACL_FAILS_WITH(aclrtAppendBufChain(b, a), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtAppendBufChain(a, b), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtAppendBufChain(head, head), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtFreeBuf(a), ACL_ERROR_RT_PARAM_INVALID);
    /* A chain appended to a chain joins it whole. */
    ACL_OK(aclrtAppendBufChain(b, copy));
    ACL_OK(aclrtAppendBufChain(head, b));
    uint32_t num = 0;
    ACL_OK(aclrtGetBufChainNum(head, &num));
    ck_assert_uint_eq(num, 4);
    ACL_OK(aclrtFreeBuf(head));
    ACL_FAILS_WITH(aclrtGetBufDataLen(a, &len), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetBufDataLen(copy, &len), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* Allocators: a stream's registration goes with the stream (CANN keys it
 * by the stream's address and keeps it after the stream is gone). */
static void *ws_alloc(aclrtAllocator a, size_t n)
{
    (void)a;
    (void)n;
    return NULL;
}
static void ws_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a;
    (void)b;
}
static void *ws_addr(aclrtAllocatorBlock b)
{
    return b;
}

START_TEST(allocator_choices)
{
    static int obj;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    ACL_OK(aclrtAllocatorSetObjToDesc(d, &obj));
    ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, ws_alloc));
    ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, ws_free));
    ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, ws_addr));
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtAllocatorRegister(s, d));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtAllocatorUnregister(s));
    aclrtAllocatorDesc got;
    ACL_FAILS_WITH(aclrtAllocatorGetByStream(s, &got, NULL, NULL, NULL, NULL, NULL),
                   ACL_ERROR_INVALID_PARAM);
    aclrtStream again = acltest_new_stream();
    ACL_FAILS_WITH(aclrtAllocatorGetByStream(again, &got, NULL, NULL, NULL, NULL, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(again));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
    ACL_FAILS_WITH(aclrtAllocatorDestroyDesc(d), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* A block exported while a model run waits on a word that only the
 * exporter writes afterwards: the export does not wait for the run (a
 * waiting model writes nothing), and the run goes on once released. With
 * a long fill before the wait, the export may also begin while the fill
 * runs: it then goes on once the run reaches the wait. */
static void export_while_a_model_waits_after(size_t fill)
{
    aclrtStream s = acltest_new_stream(), w = acltest_new_stream();
    uint64_t *word = NULL;
    void *block = NULL, *filled = NULL;
    ACL_OK(aclrtMalloc((void **)&word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    /* 2 MiB: on cuda an exported allocation owns its 2 MiB blocks. */
    ACL_OK(aclrtMalloc(&block, 2 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&filled, fill, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(word, 64, 0, 64));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtMemsetAsync(filled, fill, 1, fill, s));
    ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
    ACL_OK(aclrtMemsetAsync(block, 64, 3, 64, s));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    if (fill < (1 << 20))
        nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL); /* in the wait */
    char key[128];
    ACL_OK(aclrtIpcMemGetExportKey(block, 2 << 20, key, sizeof key, 0));
    ACL_OK(aclrtValueWrite(word, 1, 0, w));
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char head = 0;
    ACL_OK(aclrtMemcpy(&head, 1, block, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(head, 3);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(filled));
    ACL_OK(aclrtFree(block));
    ACL_OK(aclrtFree(word));
    ACL_OK(aclrtDestroyStream(w));
    ACL_OK(aclrtDestroyStream(s));
}

START_TEST(export_while_a_model_waits)
{
    export_while_a_model_waits_after(64);
    export_while_a_model_waits_after((size_t)64 << 20);
}
END_TEST

static Suite *memory_complete_suite(void)
{
    Suite *s = suite_create("memory_complete");
    TCase *tc = tcase_create("choices");
    tcase_add_checked_fixture(tc, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, virtual_memory_registry);
    tcase_add_test(tc, virtual_memory_codes);
    tcase_add_test(tc, value_ops_respect_access);
    tcase_add_test(tc, vmm_release_with_work_queued);
    tcase_add_test(tc, vmm_reserve_where_a_release_waits_for_the_caller);
    tcase_add_test(tc, vmm_release_with_work_of_a_force_destroyed_stream);
    tcase_add_test(tc, vmm_remap_after_unmap_with_work_queued);
    tcase_add_test(tc, free_with_work_queued);
    tcase_add_test(tc, export_while_a_model_waits);
    tcase_add_test(tc, free_host_with_work_queued);
    tcase_add_test(tc, free_managed_with_work_queued);
    tcase_add_test(tc, free_with_a_chain_queued);
    tcase_add_test(tc, free_with_a_model_replay_queued);
    tcase_add_test(tc, host_free_before_a_wait_ends);
    tcase_add_test(tc, host_free_in_a_callback_with_work_queued);
    tcase_add_test(tc, ipc_codes);
    tcase_add_test(tc, host_fork_keeps_device_memory_private);
    tcase_add_test(tc, host_indirect_copy_with_bad_address);
    tcase_add_test(tc, host_registration_choices);
    tcase_add_test(tc, host_registration_checks_pages);
    tcase_add_test(tc, managed_choices);
    tcase_add_test(tc, pool_choices);
    tcase_add_test(tc, pool_default_stream_and_size_zero);
    tcase_add_test(tc, pool_destroy_races_allocations);
    tcase_add_test(tc, mbuf_choices);
    tcase_add_test(tc, allocator_choices);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return acltest_run(memory_complete_suite());
}
