/* Where acl-cuda once differed from CANN, and bad input that used to hurt
 * (issue #14): each test pins the behaviour CANN documents or the fix. */
#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

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
