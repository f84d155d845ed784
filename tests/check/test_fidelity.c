/* Where acl-cuda once differed from CANN, and bad input that used to hurt
 * (issue #14): each test pins the behaviour CANN documents or the fix. */
#include <fcntl.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "acltest.h"

/* ---- system parameters: an option never set reads as 0 (CANN) -------------- */

START_TEST(process_option_never_set_reads_zero)
{
    int64_t value = 42;
    ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
    ck_assert_int_eq(value, 0);
    ACL_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
    ck_assert_int_eq(value, 1);
    /* The per-context options keep their documented "not set" error. */
    ACL_FAILS_WITH(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value),
                   ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
}
END_TEST

/* ---- overflow mode: current hardware starts in INFNAN ------------------------ */

START_TEST(default_overflow_mode_is_infnan)
{
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    ACL_OK(aclrtGetDeviceSatMode(&mode));
    ck_assert_int_eq(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
}
END_TEST

/* ---- streams only the device feeds ------------------------------------------- */

static void nop(void *arg)
{
    (void)arg;
}

/* CANN documents that synchronizing such a stream returns at once; work
 * queued from the host would then be waited for by nothing, so it is
 * refused instead of leaving stale data. */
START_TEST(device_fed_streams_refuse_host_work)
{
    const uint32_t flags[] = {ACL_STREAM_PERSISTENT, ACL_STREAM_CPU_SCHEDULE,
                              ACL_STREAM_DEVICE_USE_ONLY};
    unsigned char host[64]; /* no allocator's: filled at once elsewhere */
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        aclrtStream s;
        ACL_OK(aclrtCreateStreamWithConfig(&s, 0, flags[i]));
        ACL_FAILS_WITH(aclrtLaunchHostFunc(s, nop, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        ACL_FAILS_WITH(aclrtMemsetAsync(dev, 256, 1, 256, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        ACL_FAILS_WITH(aclrtMemsetAsync(host, sizeof host, 1, sizeof host, s),
                       ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        ACL_FAILS_WITH(aclrtRecordEvent(event, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        ACL_OK(aclrtSynchronizeStream(s));
        ACL_OK(aclrtDestroyStream(s));
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* ---- pageable copies queued by a BLOCK callback on its own stream ----------- */

enum { BYTES = 64 * 1024, ROWS = 16, ROW = 1024, PITCH = 1536 };

typedef struct reporter {
    pthread_t thread;
    atomic_bool stop;
    atomic_uint_fast64_t id;
} reporter;

static void *report_loop(void *arg)
{
    reporter *r = arg;
    atomic_store(&r->id, (uint_fast64_t)pthread_self());
    while (!atomic_load(&r->stop))
        (void)aclrtProcessReport(20);
    (void)aclGetRecentErrMsg();
    return NULL;
}

typedef struct copy_job {
    aclrtStream stream;
    void *dev;
    unsigned char *host_src, *host_dst; /* pageable */
    int kind;                           /* which copy the callback queues */
    aclError result;
} copy_job;

enum { JOB_H2D, JOB_D2H, JOB_H2D_2D, JOB_D2H_2D, JOB_BUF_H2D };

static void queue_copy_from_callback(void *arg)
{
    copy_job *j = arg;
    switch (j->kind) {
    case JOB_H2D:
        j->result = aclrtMemcpyAsync(j->dev, BYTES, j->host_src, BYTES, ACL_MEMCPY_HOST_TO_DEVICE,
                                     j->stream);
        break;
    case JOB_BUF_H2D:
        j->result = aclrtMemcpyAsync(j->dev, BYTES, j->host_src, BYTES,
                                     ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, j->stream);
        break;
    case JOB_D2H:
        j->result = aclrtMemcpyAsync(j->host_dst, BYTES, j->dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST,
                                     j->stream);
        break;
    case JOB_H2D_2D:
        j->result = aclrtMemcpy2dAsync(j->dev, ROW, j->host_src, PITCH, ROW, ROWS,
                                       ACL_MEMCPY_HOST_TO_DEVICE, j->stream);
        break;
    case JOB_D2H_2D:
        j->result = aclrtMemcpy2dAsync(j->host_dst, PITCH, j->dev, ROW, ROW, ROWS,
                                       ACL_MEMCPY_DEVICE_TO_HOST, j->stream);
        break;
    }
    /* The source may be reused at once: change it after the call. */
    memset(j->host_src, 0xEE, BYTES);
}

static void run_in_block_callback(copy_job *j, aclrtStream s, reporter *r)
{
    j->result = -1;
    ACL_OK(aclrtLaunchCallback(queue_copy_from_callback, j, ACL_CALLBACK_BLOCK, s));
    ACL_OK(aclrtSynchronizeStream(s)); /* hung forever before the fix */
    ck_assert_int_eq(j->result, ACL_SUCCESS);
    /* The copy was queued during the callback, after the first synchronize
     * began: that one need not cover it, this one does. */
    ACL_OK(aclrtSynchronizeStream(s));
    (void)r;
}

START_TEST(block_callback_queues_pageable_copies_on_its_stream)
{
    reporter r = {0};
    ck_assert_int_eq(pthread_create(&r.thread, NULL, report_loop, &r), 0);
    while (!atomic_load(&r.id))
        sched_yield();
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtSubscribeReport((uint64_t)atomic_load(&r.id), s));

    copy_job j = {.stream = s};
    ACL_OK(aclrtMalloc(&j.dev, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    j.host_src = malloc(BYTES);
    j.host_dst = malloc(BYTES);
    unsigned char *expect = malloc(BYTES);
    ck_assert(j.host_src && j.host_dst && expect);

    const int to_device[] = {JOB_H2D, JOB_BUF_H2D};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < BYTES; i++)
            j.host_src[i] = expect[i] = (unsigned char)(i * 7 + k);
        j.kind = to_device[k];
        run_in_block_callback(&j, s, &r);
        memset(j.host_dst, 0, BYTES);
        ACL_OK(aclrtMemcpy(j.host_dst, BYTES, j.dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
        ck_assert_msg(memcmp(j.host_dst, expect, BYTES) == 0, "copy %zu to the device", k);
    }

    j.kind = JOB_D2H;
    memset(j.host_dst, 0, BYTES);
    run_in_block_callback(&j, s, &r);
    ck_assert_msg(memcmp(j.host_dst, expect, BYTES) == 0, "copy to pageable host memory");

    /* 2D: ROWS rows of ROW bytes, PITCH apart on the host. */
    for (size_t i = 0; i < BYTES; i++)
        j.host_src[i] = (unsigned char)(i * 13);
    memcpy(expect, j.host_src, BYTES);
    j.kind = JOB_H2D_2D;
    run_in_block_callback(&j, s, &r);
    j.kind = JOB_D2H_2D;
    memset(j.host_dst, 0, BYTES);
    run_in_block_callback(&j, s, &r);
    for (size_t row = 0; row < ROWS; row++)
        ck_assert_msg(memcmp(j.host_dst + row * PITCH, expect + row * PITCH, ROW) == 0,
                      "2D row %zu", row);

    ACL_OK(aclrtUnSubscribeReport((uint64_t)atomic_load(&r.id), s));
    atomic_store(&r.stop, true);
    pthread_join(r.thread, NULL);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(j.dev));
    free(j.host_src);
    free(j.host_dst);
    free(expect);
}
END_TEST

/* ---- batches of copies: counts before the arrays they bound ----------------- */

static aclrtMemcpyBatchAttr h2d_attr(void)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    a.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    return a;
}

/* numAttrs beyond numBatches is refused as such before attrs[] is read:
 * one attribute with numAttrs 2 used to read past it (a heap overflow
 * under ASan), and whatever lay there could be reported as a reserved
 * byte instead. */
START_TEST(batch_checks_num_attrs_before_reading_attrs)
{
    enum { N = 64 };
    unsigned char *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, N));
    void *dsts[1] = {dev}, *srcs[1] = {pinned};
    size_t sizes[1] = {N}, maxs[1] = {N}, idx[2] = {0, 1}, fail = 0;
    aclrtMemcpyBatchAttr *one = malloc(sizeof *one);
    ck_assert_ptr_nonnull(one);
    *one = h2d_attr();
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, one, idx, 2, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_uint_eq(fail, SIZE_MAX);
    ACL_FAILS_WITH(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 1, one, idx, 2, &fail, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* What lies past the last attribute is not read as one. */
    aclrtMemcpyBatchAttr two[2] = {h2d_attr(), h2d_attr()};
    two[1].rsv[0] = 1;
    ACL_FAILS_WITH(aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 1, two, idx, 2),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 1, two, idx, 2, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    free(one);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

/* ---- copies through device-resident addresses ------------------------------ */

/* The addresses aclrtMemcpyAsyncWithOffset reads when the copy runs must
 * lie, with their offsets and the count, inside live device memory: a
 * device cannot write the host's heap, nor past an allocation. Such a copy
 * copies nothing and the stream's next synchronize reports
 * ACL_ERROR_RT_SYS_DMA, once. On the cuda backend the GPU reads the
 * addresses and its MMU alone judges them (allocation bounds are not
 * checked there), so this runs on the host backend. */
START_TEST(offset_copy_refuses_addresses_outside_device_memory)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    enum { N = 256 };
    uint64_t *slots;
    unsigned char *a, *b, *freed;
    ACL_OK(aclrtMalloc((void **)&slots, 2 * sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&freed, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(freed));
    ACL_OK(aclrtMemset(a, N, 0x5A, N));
    ACL_OK(aclrtMemset(b, N, 0, N));
    unsigned char *heap = malloc(N);
    ck_assert_ptr_nonnull(heap);
    memset(heap, 0x11, N);
    void **dst = (void **)&slots[0];
    const void **src = (const void **)&slots[1];
    const aclrtMemcpyKind inner = ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
    aclrtStream s;
    ACL_OK(aclrtCreateStream(&s));

    struct {
        uintptr_t dst, src;
        size_t dst_offset, src_offset, count;
    } bad[] = {
        {(uintptr_t)heap, (uintptr_t)a, 0, 0, N}, /* into the host's heap */
        {(uintptr_t)b, (uintptr_t)heap, 0, 0, N}, /* from it */
        /* past the source's allocation, and the destination's (with their padding) */
        {(uintptr_t)b, (uintptr_t)a, 0, N + 28, 8},
        {(uintptr_t)a, (uintptr_t)b, 64, 0, N},
        {(uintptr_t)freed, (uintptr_t)a, 0, 0, 8},           /* freed memory */
        {UINTPTR_MAX - 4, (uintptr_t)a, 16, 0, 8},           /* an address that wraps */
        {(uintptr_t)b, (uintptr_t)a, 0, (size_t)1 << 40, 8}, /* far past the source */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t bases[2] = {bad[i].dst, bad[i].src};
        ACL_OK(aclrtMemcpy(slots, sizeof bases, bases, sizeof bases, ACL_MEMCPY_HOST_TO_DEVICE));
        ACL_OK(aclrtMemcpyAsyncWithOffset(dst, SIZE_MAX, bad[i].dst_offset, src, bad[i].count,
                                          bad[i].src_offset, inner, s));
        aclError err = aclrtSynchronizeStream(s);
        ck_assert_msg(err == ACL_ERROR_RT_SYS_DMA, "case %zu: synchronize returned %d", i,
                      (int)err);
        (void)aclGetRecentErrMsg();
        ACL_OK(aclrtSynchronizeStream(s)); /* reported once */
    }
    for (size_t i = 0; i < N; i++)
        ck_assert_uint_eq(heap[i], 0x11);
    unsigned char out[N];
    ACL_OK(aclrtMemcpy(out, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < N; i++)
        ck_assert_uint_eq(out[i], 0);

    /* The stream goes on: a good copy after a refused one lands. */
    uint64_t good[2] = {(uintptr_t)b, (uintptr_t)a};
    ACL_OK(aclrtMemcpy(slots, sizeof good, good, sizeof good, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpyAsyncWithOffset(dst, N, 8, src, N - 8, 0, inner, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(out, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(out[7], 0);
    ck_assert_uint_eq(out[8], 0x5A);
    ck_assert_uint_eq(out[N - 1], 0x5A);

    /* A descriptor rewritten to point into the heap is refused the same way. */
    void *desc;
    ACL_OK(aclrtMalloc(&desc, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtSetMemcpyDesc(desc, inner, a, b, 8, NULL));
    uint64_t heap_dst = (uintptr_t)heap;
    ACL_OK(aclrtMemcpy((char *)desc + 8, 8, &heap_dst, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpyAsyncWithDesc(desc, inner, s));
    ck_assert_int_eq(aclrtSynchronizeStream(s), ACL_ERROR_RT_SYS_DMA);
    (void)aclGetRecentErrMsg();
    for (size_t i = 0; i < N; i++)
        ck_assert_uint_eq(heap[i], 0x11);

    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(desc));
    ACL_OK(aclrtFree(slots));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
    free(heap);
}
END_TEST

/* ---- uses the API reference leaves undefined ----------------------------------- */

/* CANN's own samples copy with a kind that contradicts the pointers (a
 * pyACL sample reads an aclrtMallocHost buffer with DEVICE_TO_HOST) and
 * call aclrtMemset on host memory no allocator made (a runtime sample sets
 * a struct on the stack). By default acl-cuda does what the pointers say,
 * with one warning per call site in the log; in strict mode (ACLCUDA_STRICT=1,
 * or "acl_cuda": {"strict": 1} in aclInit's configuration) it refuses them.
 * These tests read their environment at the process's first call (Check
 * runs each in a process of its own). */

enum { UNDEF_N = 256 };

typedef struct undefined_memory {
    unsigned char *dev, *pinned, *pinned2, *heap;
    aclrtStream stream;
} undefined_memory;

static void undefined_memory_get(undefined_memory *m)
{
    ACL_OK(aclrtMalloc((void **)&m->dev, UNDEF_N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&m->pinned, UNDEF_N));
    ACL_OK(aclrtMallocHost((void **)&m->pinned2, UNDEF_N));
    /* Defined before the library fills it: valgrind does not see the
     * writes of process_vm_writev (util/hostfill.c), which set it. */
    m->heap = calloc(1, UNDEF_N);
    ck_assert_ptr_nonnull(m->heap);
    ACL_OK(aclrtCreateStream(&m->stream));
}

static void undefined_memory_put(undefined_memory *m)
{
    ACL_OK(aclrtDestroyStream(m->stream));
    ACL_OK(aclrtFree(m->dev));
    ACL_OK(aclrtFreeHost(m->pinned));
    ACL_OK(aclrtFreeHost(m->pinned2));
    free(m->heap);
}

static void all_bytes(const unsigned char *p, size_t n, unsigned char value)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(p[i] == value, "byte %zu is 0x%02x, expected 0x%02x", i, p[i], value);
}

/* Lines of the log holding both strings. */
static int log_lines(FILE *log, const char *a, const char *b)
{
    char line[2048];
    int count = 0;
    rewind(log);
    while (fgets(line, sizeof line, log))
        if (strstr(line, a) && strstr(line, b))
            count++;
    return count;
}

static void refused_with(aclError err, const char *text)
{
    ck_assert_int_eq(err, ACL_ERROR_INVALID_PARAM);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, text) != NULL, "\"%s\" does not say \"%s\"", msg, text);
}

START_TEST(undefined_uses_follow_the_pointers_by_default)
{
    /* Warnings go to stderr, here a file read back at the end. */
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "2", 1);
    unsetenv("ASCEND_MODULE_LOG_LEVEL");
    unsetenv("ASCEND_LOG_PRINT_TO_STDOUT");
    unsetenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    FILE *log = tmpfile();
    ck_assert_ptr_nonnull(log);
    fflush(stderr);
    int saved_stderr = dup(2);
    ck_assert_int_ge(dup2(fileno(log), 2), 0);

    ACL_OK(aclrtSetDevice(0));
    undefined_memory m;
    undefined_memory_get(&m);
    unsigned char page[UNDEF_N];

    /* Page-locked memory as the source of DEVICE_TO_HOST: host to host.
     * Three calls from one call site. */
    memset(m.pinned, 0x3C, UNDEF_N);
    for (int i = 0; i < 3; i++) {
        memset(page, 0, sizeof page);
        ACL_OK(aclrtMemcpy(page, UNDEF_N, m.pinned, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST));
        all_bytes(page, UNDEF_N, 0x3C);
    }
    /* Device memory as a DEVICE_TO_HOST destination, page-locked memory as
     * a DEVICE_TO_DEVICE one. */
    ACL_OK(aclrtMemcpy(m.dev, UNDEF_N, m.pinned, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST));
    ACL_OK(aclrtMemcpy(m.pinned2, UNDEF_N, m.dev, UNDEF_N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    all_bytes(m.pinned2, UNDEF_N, 0x3C);
    /* Queued copies, one of them 2D. */
    memset(m.pinned, 0x4D, UNDEF_N);
    ACL_OK(
        aclrtMemcpyAsync(m.dev, UNDEF_N, m.pinned, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST, m.stream));
    ACL_OK(aclrtMemcpy2dAsync(m.pinned2, 16, m.dev, 16, 16, UNDEF_N / 16, ACL_MEMCPY_HOST_TO_DEVICE,
                              m.stream));
    ACL_OK(aclrtSynchronizeStream(m.stream));
    all_bytes(m.pinned2, UNDEF_N, 0x4D);

    /* Fills of host memory no allocator made: a struct on the stack, set
     * at once; heap memory, set in stream order and complete on return. */
    struct {
        int family;
        unsigned char address[20];
    } on_stack;
    memset(&on_stack, 0x55, sizeof on_stack);
    ACL_OK(aclrtMemset(&on_stack, sizeof on_stack, 0, sizeof on_stack));
    all_bytes((const unsigned char *)&on_stack, sizeof on_stack, 0);
    ACL_OK(aclrtMemsetAsync(m.dev, UNDEF_N, 0x11, UNDEF_N, m.stream));
    ACL_OK(aclrtMemsetAsync(m.heap, UNDEF_N, 0x77, UNDEF_N, m.stream));
    all_bytes(m.heap, UNDEF_N, 0x77);
    ACL_OK(aclrtMemcpy(page, UNDEF_N, m.dev, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST));
    all_bytes(page, UNDEF_N, 0x11); /* the earlier fill was done first */

    /* An aclrtCreateEvent event reset, as CANN's runtime allows. */
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    ACL_OK(aclrtRecordEvent(event, m.stream));
    ACL_OK(aclrtSynchronizeEvent(event));
    ACL_OK(aclrtResetEvent(event, m.stream));
    ACL_OK(aclrtSynchronizeStream(m.stream));
    ACL_OK(aclrtDestroyEvent(event));

    /* Nothing to go by, or nothing to write: refused in every mode. */
    ACL_FAILS_WITH(aclrtMemcpy(m.dev, UNDEF_N, page, UNDEF_N, ACL_MEMCPY_DEVICE_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    long page_size = sysconf(_SC_PAGESIZE);
    unsigned char *none =
        mmap(NULL, (size_t)page_size * 2, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(none, MAP_FAILED);
    ck_assert_int_eq(mprotect(none, (size_t)page_size, PROT_READ | PROT_WRITE), 0);
    memset(none, 0x21, (size_t)page_size);
    ACL_FAILS_WITH(aclrtMemset(none + page_size, (size_t)page_size, 1, (size_t)page_size),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(none + 8, (size_t)page_size * 2, 1, (size_t)page_size),
                   ACL_ERROR_INVALID_PARAM); /* runs into the page without access */
    ck_assert_int_eq(mprotect(none, (size_t)page_size, PROT_READ), 0);
    ACL_FAILS_WITH(aclrtMemsetAsync(none, (size_t)page_size, 1, 16, m.stream),
                   ACL_ERROR_INVALID_PARAM);
    all_bytes(none, 8, 0x21);
    munmap(none, (size_t)page_size * 2);
    void *freed;
    ACL_OK(aclrtMalloc(&freed, UNDEF_N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(freed));
    ACL_FAILS_WITH(aclrtMemset(freed, UNDEF_N, 0, UNDEF_N), ACL_ERROR_INVALID_PARAM);

    undefined_memory_put(&m);
    ACL_OK(aclrtResetDevice(0));
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    /* One warning per call site: the loop's three copies are one. */
    ck_assert_int_eq(log_lines(log, "[WARNING]", "contradicts the pointers"), 5);
    ck_assert_int_eq(log_lines(log, "[WARNING]", "is not live memory"), 2);
    ck_assert_int_eq(log_lines(log, "[WARNING]", "made by aclrtCreateEvent"), 1);
    fclose(log);
}
END_TEST

/* What strict mode refuses, with the messages it gives; and nothing
 * written. */
static void strict_refusals(void)
{
    undefined_memory m;
    undefined_memory_get(&m);
    unsigned char page[UNDEF_N];
    memset(page, 0, sizeof page);
    memset(m.pinned, 0x3C, UNDEF_N);
    (void)aclGetRecentErrMsg();
    refused_with(aclrtMemcpy(page, UNDEF_N, m.pinned, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST),
                 "ACL_MEMCPY_DEVICE_TO_HOST contradicts the pointers");
    all_bytes(page, UNDEF_N, 0);
    refused_with(
        aclrtMemcpyAsync(m.dev, UNDEF_N, m.pinned, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST, m.stream),
        "contradicts the pointers");
    refused_with(
        aclrtMemcpy2d(m.pinned2, 16, m.dev, 16, 16, UNDEF_N / 16, ACL_MEMCPY_HOST_TO_DEVICE),
        "contradicts the pointers");
    memset(m.heap, 0x55, UNDEF_N);
    refused_with(aclrtMemset(m.heap, UNDEF_N, 0, UNDEF_N), "is not live memory");
    refused_with(aclrtMemsetAsync(m.heap, UNDEF_N, 0, UNDEF_N, m.stream), "is not live memory");
    all_bytes(m.heap, UNDEF_N, 0x55);
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    ACL_OK(aclrtRecordEvent(event, m.stream));
    refused_with(aclrtResetEvent(event, m.stream), "made by aclrtCreateEvent");
    ACL_OK(aclrtSynchronizeStream(m.stream));
    ACL_OK(aclrtDestroyEvent(event));
    /* What the reference defines goes on as ever. */
    ACL_OK(aclrtMemcpy(m.dev, UNDEF_N, m.pinned, UNDEF_N, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(page, UNDEF_N, m.dev, UNDEF_N, ACL_MEMCPY_DEFAULT));
    all_bytes(page, UNDEF_N, 0x3C);
    undefined_memory_put(&m);
}

static void write_config(char *path, const char *text)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

START_TEST(strict_mode_from_the_configuration)
{
    char path[] = "/tmp/acl-strict-XXXXXX";
    write_config(path, "{\"acl_cuda\": {\"strict\": 1}}");
    ACL_OK(aclInit(path));
    unlink(path);
    ACL_OK(aclrtSetDevice(0));
    strict_refusals();
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    /* aclFinalize ends the configuration: the default again. */
    ACL_OK(aclrtSetDevice(0));
    unsigned char *pinned, page[UNDEF_N];
    ACL_OK(aclrtMallocHost((void **)&pinned, UNDEF_N));
    memset(pinned, 0x5E, UNDEF_N);
    ACL_OK(aclrtMemcpy(page, UNDEF_N, pinned, UNDEF_N, ACL_MEMCPY_DEVICE_TO_HOST));
    all_bytes(page, UNDEF_N, 0x5E);
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

START_TEST(strict_mode_from_the_environment)
{
    setenv("ACLCUDA_STRICT", "1", 1);
    ACL_OK(aclrtSetDevice(0));
    strict_refusals();
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

START_TEST(strict_key_is_checked)
{
    const char *bad[] = {"{\"acl_cuda\": {\"strict\": 2}}", "{\"acl_cuda\": {\"strict\": \"on\"}}",
                         "{\"acl_cuda\": 1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[] = "/tmp/acl-strict-XXXXXX";
        write_config(path, bad[i]);
        ACL_FAILS_WITH(aclInit(path), ACL_ERROR_INVALID_PARAM);
        unlink(path);
    }
    char path[] = "/tmp/acl-strict-XXXXXX";
    write_config(path, "{\"acl_cuda\": {\"strict\": \"0\", \"later\": 1}}");
    ACL_OK(aclInit(path));
    unlink(path);
    ACL_OK(aclFinalize());
}
END_TEST

/* ---- aclInit ------------------------------------------------------------------ */

/* A config file far beyond any configuration is refused at once, without
 * being read (it used to be read whole, and a memory limit made that
 * never return). */
START_TEST(huge_config_file_is_refused)
{
    char path[] = "/tmp/acl-huge-config-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 300 << 20), 0); /* sparse: costs no disk */
    close(fd);
    ACL_FAILS_WITH(aclInit(path), ACL_ERROR_INVALID_FILE_SIZE);
    unlink(path);
    ACL_OK(aclInit(NULL)); /* nothing was left behind */
    ACL_OK(aclFinalize());
}
END_TEST

static aclError failing_init(const char *config, size_t len, void *user_data)
{
    (void)config;
    (void)len;
    (*(int *)user_data)++;
    return ACL_ERROR_FAILURE;
}

/* A failed aclInit is no init: the next one is the first again, and one
 * aclFinalize ends it. */
START_TEST(failed_init_leaves_nothing_behind)
{
    int calls = 0;
    ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, failing_init, &calls));
    ACL_FAILS_WITH(aclInit(NULL), ACL_ERROR_FAILURE);
    ck_assert_int_eq(calls, 1);
    ACL_FAILS_WITH(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, failing_init));
    ACL_OK(aclInit(NULL)); /* the first init, not a repeated one */
    ACL_OK(aclFinalize());
    ACL_FAILS_WITH(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}
END_TEST

/* ---- ASCEND_RT_VISIBLE_DEVICES ------------------------------------------------ */

/* Each case runs in a forked process of its own (the variable is read once
 * per process): the message names the variable and its value. */
static void check_visible(const char *value)
{
    setenv("ASCEND_RT_VISIBLE_DEVICES", value, 1);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    (void)aclGetRecentErrMsg();
    aclError err = aclrtSetDevice((int32_t)count);
    ck_assert_int_eq(err, ACL_ERROR_RT_INVALID_DEVICEID);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    char expected[128];
    snprintf(expected, sizeof expected, "ASCEND_RT_VISIBLE_DEVICES=%s", value);
    ck_assert_msg(strstr(msg, expected) != NULL, "\"%s\" does not name %s", msg, expected);
}

START_TEST(visible_devices_not_a_number)
{
    check_visible("abc");
}
END_TEST

START_TEST(visible_devices_negative)
{
    check_visible("-1");
}
END_TEST

START_TEST(visible_devices_hex)
{
    check_visible("0x0");
}
END_TEST

START_TEST(visible_devices_beyond_present)
{
    check_visible("0,4096");
}
END_TEST

/* ---- timed event waits (issue #26): stream-ordered and bounded --------------- */

static void *open_after_50_ms(void *arg)
{
    acltest_gate_wait_reached(arg);
    usleep(50 * 1000);
    acltest_gate_open(arg);
    return NULL;
}

START_TEST(timed_event_waits)
{
    aclrtStream producer = acltest_new_stream(), consumer = acltest_new_stream();
    uint8_t *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&host, 64));
    aclrtEvent e;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    /* The wait waits: held behind a gate that opens later, the copy after
     * it sees the fill before the record. */
    acltest_gate gate;
    acltest_gate_close(&gate, producer);
    ACL_OK(aclrtMemsetAsync(dev, 64, 0xEE, 64, producer));
    ACL_OK(aclrtRecordEvent(e, producer));
    ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, e, 30));
    ACL_OK(aclrtMemcpyAsync(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_after_50_ms, &gate), 0);
    ACL_OK(aclrtSynchronizeStream(consumer));
    ck_assert_int_eq(pthread_join(opener, NULL), 0);
    ck_assert_uint_eq(host[0], 0xEE);
    /* Waits in turn, each for the record made just before it. */
    for (int i = 0; i < 200; i++) {
        ACL_OK(aclrtMemsetAsync(dev, 64, (uint8_t)i, 64, producer));
        ACL_OK(aclrtRecordEvent(e, producer));
        ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, e, 30));
        ACL_OK(aclrtMemcpyAsync(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
        ACL_OK(aclrtSynchronizeStream(consumer));
        ck_assert_uint_eq(host[63], (uint8_t)i);
    }
    /* A flag (ACL_EVENT_EXTERNAL) never set: the wait expires. */
    aclrtEvent flag;
    ACL_OK(aclrtCreateEventWithFlag(&flag, ACL_EVENT_EXTERNAL));
    ACL_OK(aclrtStreamWaitEventWithFlag(consumer, flag, 1, ACL_EVENT_WAIT_DEFAULT));
    ACL_FAILS_WITH(aclrtSynchronizeStream(consumer), ACL_ERROR_RT_TASK_TIMEOUT);
    ACL_OK(aclrtSynchronizeStream(consumer));
    /* In a capture the wait is a node of the model, not bounded. */
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureBegin(consumer, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, 64, 0x42, 64, consumer));
    ACL_OK(aclrtRecordEvent(e, consumer));
    ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, e, 1));
    ACL_OK(aclrtMemcpyAsync(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    ACL_OK(aclmdlRICaptureEnd(consumer, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, consumer));
    ACL_OK(aclrtSynchronizeStream(consumer));
    ck_assert_uint_eq(host[0], 0x42);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(flag));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(producer));
    ACL_OK(aclrtDestroyStream(consumer));
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("fidelity");
    TCase *cann = tcase_create("cann");
    tcase_add_checked_fixture(cann, acltest_set_device, acltest_reset_device);
    tcase_add_test(cann, process_option_never_set_reads_zero);
    tcase_add_test(cann, default_overflow_mode_is_infnan);
    tcase_add_test(cann, device_fed_streams_refuse_host_work);
    suite_add_tcase(suite, cann);

    TCase *callbacks = tcase_create("callbacks");
    tcase_add_checked_fixture(callbacks, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(callbacks, 60);
    tcase_add_test(callbacks, block_callback_queues_pageable_copies_on_its_stream);
    suite_add_tcase(suite, callbacks);

    TCase *memory = tcase_create("memory");
    tcase_add_checked_fixture(memory, acltest_set_device, acltest_reset_device);
    tcase_add_test(memory, batch_checks_num_attrs_before_reading_attrs);
    tcase_add_test(memory, offset_copy_refuses_addresses_outside_device_memory);
    suite_add_tcase(suite, memory);

    TCase *undefined = tcase_create("undefined uses");
    tcase_add_test(undefined, undefined_uses_follow_the_pointers_by_default);
    tcase_add_test(undefined, strict_mode_from_the_configuration);
    tcase_add_test(undefined, strict_mode_from_the_environment);
    tcase_add_test(undefined, strict_key_is_checked);
    suite_add_tcase(suite, undefined);

    TCase *waits = tcase_create("waits");
    tcase_add_checked_fixture(waits, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(waits, 60);
    tcase_add_test(waits, timed_event_waits);
    suite_add_tcase(suite, waits);

    TCase *init = tcase_create("init");
    tcase_add_test(init, huge_config_file_is_refused);
    tcase_add_test(init, failed_init_leaves_nothing_behind);
    suite_add_tcase(suite, init);

    TCase *visible = tcase_create("visible devices");
    tcase_add_test(visible, visible_devices_not_a_number);
    tcase_add_test(visible, visible_devices_negative);
    tcase_add_test(visible, visible_devices_hex);
    tcase_add_test(visible, visible_devices_beyond_present);
    suite_add_tcase(suite, visible);
    return acltest_run(suite);
}
