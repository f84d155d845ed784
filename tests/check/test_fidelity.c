/* Where acl-cuda once differed from CANN, and bad input that used to hurt
 * (issue #14): each test pins the behaviour CANN documents or the fix. */
#include <fcntl.h>
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
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        aclrtStream s;
        ACL_OK(aclrtCreateStreamWithConfig(&s, 0, flags[i]));
        ACL_FAILS_WITH(aclrtLaunchHostFunc(s, nop, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        ACL_FAILS_WITH(aclrtMemsetAsync(dev, 256, 1, 256, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
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
