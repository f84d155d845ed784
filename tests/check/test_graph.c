/* Model run instances: stream capture of every kind of task and replays
 * with their results checked, capture across streams joined by events,
 * what a capture forbids (and that it never hangs), the idle-stream
 * shortcut around captures and replays, models destroyed while they run,
 * models built from persistent streams, task groups updated in place, and
 * the inspection calls. */
#include <stdatomic.h>
#include <unistd.h>

#include "kerneltest.h"

enum { N = 4096, REPLAYS = 5 };

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

static aclrtStream persistent_stream(void)
{
    aclrtStream s = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    return s;
}

static void count_call(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* ---- a report thread for captured callbacks --------------------------------------------- */

typedef struct reporter {
    pthread_t thread;
    atomic_bool stop;
} reporter;

static void *report_loop(void *arg)
{
    reporter *r = arg;
    while (!atomic_load(&r->stop))
        (void)aclrtProcessReport(10);
    return NULL;
}

static void reporter_start(reporter *r, aclrtStream s)
{
    atomic_init(&r->stop, false);
    ck_assert_int_eq(pthread_create(&r->thread, NULL, report_loop, r), 0);
    ACL_OK(aclrtSubscribeReport((uint64_t)r->thread, s));
}

static void reporter_stop(reporter *r, aclrtStream s)
{
    ACL_OK(aclrtUnSubscribeReport((uint64_t)r->thread, s));
    atomic_store(&r->stop, true);
    pthread_join(r->thread, NULL);
}

/* ---- capture of every kind of task ---------------------------------------------------- */

START_TEST(capture_every_task_kind)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle increment = kt_function(bin, "increment");
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtStream s = acltest_new_stream(), side = acltest_new_stream();
    reporter rep;
    reporter_start(&rep, s);

    int32_t *counter = kt_device(sizeof(int32_t));
    int32_t *data = kt_device(N * sizeof(int32_t));
    int32_t *copy = kt_device(N * sizeof(int32_t));
    float *acc = kt_device(N * sizeof(float)), *one = kt_device(N * sizeof(float));
    float *rnd = kt_device(N * sizeof(float));
    int32_t *pinned = kt_pinned(N * sizeof(int32_t));
    int32_t *result = kt_pinned(N * sizeof(int32_t));
    int32_t *grid2d = kt_device(64 * sizeof(int32_t));
    ACL_OK(aclrtMemset(counter, 4, 0, 4));
    ACL_OK(aclrtMemset(acc, N * 4, 0, N * 4));
    float *ones = malloc(N * sizeof *ones);
    for (int i = 0; i < N; i++) {
        ones[i] = 1.0f;
        pinned[i] = i;
    }
    ACL_OK(aclrtMemcpy(one, N * 4, ones, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    atomic_int host_calls = 0, callbacks = 0;
    aclrtEvent fork = NULL, join = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&fork, ACL_EVENT_SYNC));
    ACL_OK(aclrtCreateEventWithFlag(&join, ACL_EVENT_SYNC));

    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRI during = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &during));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    ck_assert_ptr_nonnull(during);
    /* host -> device, fill, kernel, 2D copy, device -> device, device -> host */
    ACL_OK(aclrtMemcpyAsync(data, N * 4, pinned, N * 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
    ACL_OK(aclrtMemsetAsync(grid2d, 64 * 4, 0, 64 * 4, s));
    uint32_t n = N;
    int32_t seven = 7;
    void *add_args[] = {&data, &seven, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, (N + 255) / 256, s, NULL, add_args));
    ACL_OK(
        aclrtMemcpy2dAsync(grid2d, 8 * 4, data, 16 * 4, 4 * 4, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtMemcpyAsync(copy, N * 4, data, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    /* a branch on another stream, joined back */
    ACL_OK(aclrtRecordEvent(fork, s));
    ACL_OK(aclrtStreamWaitEvent(side, fork));
    ACL_OK(
        aclrtLaunchKernelWithHostArgs(increment, 1, side, NULL, &counter, sizeof counter, NULL, 0));
    ACL_OK(
        aclrtReduceAsync(acc, one, N * 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, side, NULL));
    ACL_OK(aclrtRecordEvent(join, side));
    ACL_OK(aclrtStreamWaitEvent(s, join));
    /* random numbers, a host function, a callback, device -> host */
    float lo = 0.0f, hi = 1.0f;
    uint64_t seed = 5, count = N;
    aclrtRandomNumTaskInfo info = {
        .dataType = ACL_FLOAT,
        .randomNumFuncParaInfo = {.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS},
        .randomResultAddr = rnd,
        .randomSeed = {.isAddr = 0, .size = 8},
        .randomNum = {.isAddr = 0, .size = 8},
    };
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 4;
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 4;
    memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.valueOrAddr, &lo, 4);
    memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr, &hi, 4);
    memcpy(info.randomSeed.valueOrAddr, &seed, 8);
    memcpy(info.randomNum.valueOrAddr, &count, 8);
    ACL_OK(aclrtRandomNumAsync(&info, s, NULL));
    ACL_OK(aclrtLaunchHostFunc(s, count_call, &host_calls));
    ACL_OK(aclrtLaunchCallback(count_call, &callbacks, ACL_CALLBACK_BLOCK, s));
    ACL_OK(aclrtMemcpyAsync(result, N * 4, copy, N * 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ck_assert_ptr_eq(model, during);
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &during));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);

    /* Nothing ran during the capture. */
    int32_t c;
    kt_read_i32(counter, &c, 1);
    ck_assert_int_eq(c, 0);
    ck_assert_int_eq(atomic_load(&host_calls), 0);
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_COMPLETE);

    float *first_rnd = malloc(N * sizeof *first_rnd), *h = malloc(N * sizeof *h);
    for (int r = 1; r <= REPLAYS; r++) {
        memset(result, 0, N * 4);
        ACL_OK(aclmdlRIExecuteAsync(model, s));
        ACL_OK(aclrtSynchronizeStream(s));
        kt_read_i32(counter, &c, 1);
        ck_assert_int_eq(c, r);
        ck_assert_int_eq(atomic_load(&host_calls), r);
        ck_assert_int_eq(atomic_load(&callbacks), r);
        ck_assert_int_eq(result[0], 7);
        ck_assert_int_eq(result[N - 1], N - 1 + 7);
        ACL_OK(aclrtMemcpy(h, N * 4, acc, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
        ck_assert(h[0] == (float)r && h[N - 1] == (float)r);
        int32_t g[64];
        kt_read_i32(grid2d, g, 64);
        ck_assert_int_eq(g[0], 7);
        ck_assert_int_eq(g[8], 16 + 7); /* row 1 of the 2D copy */
        ACL_OK(aclrtMemcpy(h, N * 4, rnd, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
        if (r == 1)
            memcpy(first_rnd, h, N * 4);
        else /* same seed, same counter: the same numbers each replay */
            ck_assert(memcmp(first_rnd, h, N * 4) == 0);
    }
    ck_assert(first_rnd[0] >= 0.0f && first_rnd[0] < 1.0f);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_FAILS_WITH(aclmdlRIExecuteAsync(model, s), ACL_ERROR_INVALID_PARAM);
    reporter_stop(&rep, s);
    free(first_rnd);
    free(h);
    free(ones);
    ACL_OK(aclrtDestroyEvent(fork));
    ACL_OK(aclrtDestroyEvent(join));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtFree(counter));
    ACL_OK(aclrtFree(data));
    ACL_OK(aclrtFree(copy));
    ACL_OK(aclrtFree(acc));
    ACL_OK(aclrtFree(one));
    ACL_OK(aclrtFree(rnd));
    ACL_OK(aclrtFree(grid2d));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtFreeHost(result));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(capture_two_streams_joined_by_events)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    int32_t *x = kt_device(N * 4), *y = kt_device(N * 4);
    ACL_OK(aclrtMemset(x, N * 4, 0, N * 4));
    ACL_OK(aclrtMemset(y, N * 4, 0, N * 4));
    aclrtEvent e1, e2;
    ACL_OK(aclrtCreateEvent(&e1));
    ACL_OK(aclrtCreateEvent(&e2));
    uint32_t n = N;
    int32_t one = 1, ten = 10;
    ACL_OK(aclmdlRICaptureBegin(a, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    void *ax[] = {&x, &one, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, a, NULL, ax));
    ACL_OK(aclrtRecordEvent(e1, a));
    ACL_OK(aclrtStreamWaitEvent(b, e1)); /* b joins the capture */
    /* b is capturing now: its work is recorded, not run. */
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(b, &status, NULL));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    void *by[] = {&y, &ten, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, b, NULL, by));
    /* A capture cannot end on a joined stream. */
    aclmdlRI model = NULL;
    ACL_FAILS_WITH(aclmdlRICaptureEnd(b, &model), ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED);
    /* The event of the capture cannot be waited for or queried meanwhile. */
    aclrtEventRecordedStatus es;
    ACL_FAILS_WITH(aclrtQueryEventStatus(e1, &es), ACL_ERROR_RT_EVENT_CAPTURED);
    ACL_OK(aclrtRecordEvent(e2, b));
    ACL_OK(aclrtStreamWaitEvent(a, e2));
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, a, NULL, ax));
    ACL_OK(aclmdlRICaptureEnd(a, &model));
    ACL_OK(aclmdlRICaptureGetInfo(b, &status, NULL));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    uint32_t nstreams = 0;
    ACL_OK(aclmdlRIGetStreams(model, NULL, &nstreams));
    ck_assert_uint_eq(nstreams, 2);
    for (int r = 1; r <= REPLAYS; r++)
        ACL_OK(aclmdlRIExecuteAsync(model, a));
    ACL_OK(aclrtSynchronizeStream(a));
    int32_t got;
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 2 * REPLAYS);
    kt_read_i32(y, &got, 1);
    ck_assert_int_eq(got, 10 * REPLAYS);
    /* b works normally again. */
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, b, NULL, by));
    ACL_OK(aclrtSynchronizeStream(b));
    kt_read_i32(y, &got, 1);
    ck_assert_int_eq(got, 10 * REPLAYS + 10);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(e1));
    ACL_OK(aclrtDestroyEvent(e2));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtFree(y));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(unjoined_stream_fails_the_capture)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEvent(&e));
    int32_t *x = kt_device(64);
    ACL_OK(aclmdlRICaptureBegin(a, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(x, 64, 1, 64, a));
    ACL_OK(aclrtRecordEvent(e, a));
    ACL_OK(aclrtStreamWaitEvent(b, e));
    ACL_OK(aclrtMemsetAsync(x, 64, 2, 64, b)); /* never joined back */
    aclmdlRI model = (aclmdlRI)1;
    ACL_FAILS_WITH(aclmdlRICaptureEnd(a, &model), ACL_ERROR_RT_STREAM_UNJOINED);
    ck_assert_ptr_null(model);
    /* Both streams are free again. */
    ACL_OK(aclrtMemsetAsync(x, 64, 3, 64, b));
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_OK(aclrtFree(x));
}
END_TEST

/* ---- what a capture forbids ------------------------------------------------------------ */

START_TEST(forbidden_during_capture)
{
    aclrtStream s = acltest_new_stream();
    int32_t *dev = kt_device(64);
    int32_t host[16] = {0};
    aclrtEvent e;
    ACL_OK(aclrtCreateEvent(&e));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_FAILS_WITH(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                   ACL_ERROR_RT_STREAM_CAPTURED);
    /* Waiting for or asking about a capturing stream, its device or its
     * events: refused at once, never a hang. */
    ACL_FAILS_WITH(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    aclrtStreamStatus st;
    ACL_FAILS_WITH(aclrtStreamQuery(s, &st), ACL_ERROR_RT_STREAM_CAPTURED);
    ACL_FAILS_WITH(aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_CAPTURED);
    ACL_OK(aclrtRecordEvent(e, s));
    ACL_FAILS_WITH(aclrtSynchronizeEvent(e), ACL_ERROR_RT_EVENT_CAPTURED);
    /* Relaxed, this thread may copy synchronously. */
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    ck_assert_int_eq(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    ACL_OK(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    /* Back to global: a synchronous copy is refused and invalidates. */
    ACL_FAILS_WITH(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, NULL));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
    ACL_FAILS_WITH(aclrtMemsetAsync(dev, 64, 0, 64, s), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    aclmdlRI model = (aclmdlRI)1;
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    ck_assert_ptr_null(model);
    /* The stream is usable again, and the event is as if never recorded. */
    ACL_OK(aclrtMemsetAsync(dev, 64, 0, 64, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtSynchronizeEvent(e));
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_NOT_CAPTURED);

    /* Pageable host memory cannot be captured. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);

    /* A wait on work outside the capture is refused. */
    aclrtStream other = acltest_new_stream();
    ACL_OK(aclrtRecordEvent(e, other));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_FAILS_WITH(aclrtStreamWaitEvent(s, e), ACL_ERROR_RT_CAPTURE_DEPENDENCY);
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    /* The default stream cannot be captured. */
    ACL_FAILS_WITH(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(other));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(dev));
}
END_TEST

typedef struct other_thread_copy {
    void *dev;
    aclError ret;
} other_thread_copy;

static void *copy_on_other_thread(void *arg)
{
    other_thread_copy *c = arg;
    int32_t host[16] = {0};
    ACL_OK(aclrtSetDevice(0));
    c->ret = aclrtMemcpy(c->dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE);
    ACL_OK(aclrtResetDevice(0));
    return NULL;
}

START_TEST(capture_modes_across_threads)
{
    aclrtStream s = acltest_new_stream();
    other_thread_copy c = {kt_device(64), ACL_SUCCESS};
    /* Thread-local: other threads may copy. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    acltest_run_thread(copy_on_other_thread, &c);
    ck_assert_int_eq(c.ret, ACL_SUCCESS);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));
    /* Global: they may not, and the capture is invalidated. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    acltest_run_thread(copy_on_other_thread, &c);
    ck_assert_int_eq(c.ret, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    ACL_OK(aclrtFree(c.dev));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

static void *malloc_on_other_thread(void *arg)
{
    aclError *ret = arg;
    void *p = NULL;
    ACL_OK(aclrtSetDevice(0));
    *ret = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    if (*ret == ACL_SUCCESS)
        ACL_OK(aclrtFree(p));
    ACL_OK(aclrtResetDevice(0));
    return NULL;
}

/* cudaMalloc is one of CUDA's capture-unsafe calls: in global mode it is
 * refused with cudaErrorStreamCaptureUnsupported and invalidates the
 * capture; relaxed mode allows it. aclrtMalloc follows the same rules. */
START_TEST(malloc_during_capture)
{
    aclrtStream s = acltest_new_stream();
    void *p = NULL;
    aclmdlRI model = NULL;
    aclmdlRICaptureStatus status;
    void *before = NULL;
    ACL_OK(aclrtMalloc(&before, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_FAILS_WITH(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ck_assert_ptr_null(p);
    /* So is freeing (cudaFree synchronises the device): the memory stays. */
    ACL_FAILS_WITH(aclrtFree(before), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtFreeWithDevSync(before), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMallocAlign32(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                   ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, NULL));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    /* Another thread in global mode may not allocate either. */
    aclError other = ACL_SUCCESS;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    acltest_run_thread(malloc_on_other_thread, &other);
    ck_assert_int_eq(other, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    /* A thread-local capture leaves other threads free. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    acltest_run_thread(malloc_on_other_thread, &other);
    ck_assert_int_eq(other, ACL_SUCCESS);
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));
    /* Relaxed: allowed, and the capture goes on. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemsetAsync(p, 64, 3, 64, s));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    uint8_t host[64];
    ACL_OK(aclrtMemcpy(host, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[63], 3);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(p));
    /* So is a thread switched to relaxed in a global capture. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtFree(before));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- captures begun and ended while another thread queues work ------------------------ */

enum { CAPTURE_CYCLES = 3000 };

typedef struct racing_filler {
    aclrtContext ctx;
    aclrtStream s;
    void *dev;
    atomic_bool stop;
    atomic_int ran; /* host functions run */
    int submitted;  /* host functions queued or captured */
    aclError err;   /* the first failure */
    char why[256];  /* its message */
} racing_filler;

static void *fill_while_captured(void *arg)
{
    racing_filler *f = arg;
    aclError err = aclrtSetCurrentContext(f->ctx);
    while (!err && !atomic_load(&f->stop)) {
        err = aclrtMemsetAsync(f->dev, 64, f->submitted & 0xff, 64, f->s);
        if (!err && !(err = aclrtLaunchHostFunc(f->s, count_call, &f->ran)))
            f->submitted++;
    }
    f->err = err;
    if (err)
        snprintf(f->why, sizeof f->why, "%s", aclGetRecentErrMsg());
    return NULL;
}

START_TEST(capture_end_races_with_work_queued)
{
    racing_filler f = {.s = acltest_new_stream(), .dev = kt_device(64)};
    ACL_OK(aclrtGetCurrentContext(&f.ctx));
    pthread_t filler;
    ck_assert_int_eq(pthread_create(&filler, NULL, fill_while_captured, &f), 0);
    for (int i = 0; i < CAPTURE_CYCLES; i++) {
        ACL_OK(aclmdlRICaptureBegin(f.s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
        aclmdlRI model = NULL;
        ACL_OK(aclmdlRICaptureEnd(f.s, &model));
        /* What the capture took runs once, in this replay, in order with
         * the fills queued. */
        ACL_OK(aclmdlRIExecuteAsync(model, f.s));
        ACL_OK(aclmdlRIDestroy(model));
    }
    atomic_store(&f.stop, true);
    ck_assert_int_eq(pthread_join(filler, NULL), 0);
    ck_assert_msg(f.err == ACL_SUCCESS, "the filler failed with %d: %s", f.err, f.why);
    ACL_OK(aclrtSynchronizeStream(f.s));
    /* Each host function was captured by one capture or queued, once. */
    ck_assert_int_eq(atomic_load(&f.ran), f.submitted);
    ACL_OK(aclrtFree(f.dev));
    ACL_OK(aclrtDestroyStream(f.s));
}
END_TEST

/* Two threads begin and end captures at once, each of its own stream: a
 * capture's start waits for work queued without seeing it, never for the
 * other start. */
typedef struct capturing_thread {
    aclrtContext ctx;
    aclrtStream s;
    void *dev;
    aclError err;
} capturing_thread;

static void *capture_cycles(void *arg)
{
    capturing_thread *c = arg;
    aclError err = aclrtSetCurrentContext(c->ctx);
    for (int i = 0; !err && i < CAPTURE_CYCLES / 6; i++) {
        aclmdlRI model = NULL;
        if (!(err = aclmdlRICaptureBegin(c->s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED)) &&
            !(err = aclrtMemsetAsync(c->dev, 64, i & 0xff, 64, c->s)) &&
            !(err = aclmdlRICaptureEnd(c->s, &model)) && !(err = aclmdlRIExecuteAsync(model, c->s)))
            err = aclmdlRIDestroy(model);
    }
    if (!err)
        err = aclrtSynchronizeStream(c->s);
    c->err = err;
    return NULL;
}

START_TEST(captures_begin_on_two_threads_at_once)
{
    capturing_thread c[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        c[i] = (capturing_thread){.s = acltest_new_stream(), .dev = kt_device(64)};
        ACL_OK(aclrtGetCurrentContext(&c[i].ctx));
    }
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, capture_cycles, &c[i]), 0);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        ck_assert_int_eq(c[i].err, ACL_SUCCESS);
        uint8_t host[64];
        ACL_OK(aclrtMemcpy(host, 64, c[i].dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
        ck_assert_uint_eq(host[0], (CAPTURE_CYCLES / 6 - 1) & 0xff);
        ACL_OK(aclrtFree(c[i].dev));
        ACL_OK(aclrtDestroyStream(c[i].s));
    }
}
END_TEST

/* ---- the idle-stream shortcut, and destroying a running model ------------------------ */

START_TEST(replay_is_queued_work)
{
    aclrtStream s = acltest_new_stream();
    acltest_gate gate;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    acltest_gate_close(&gate, s); /* captured: the gate's host function runs per replay */
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    /* The capture queued nothing: the stream is idle. */
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeStream(s));
    /* A replay is queued work: not complete until the gate opens. */
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    acltest_gate_wait_reached(&gate);
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY);
    /* Destroyed while it runs: it finishes, as it was. */
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

START_TEST(destroy_model_while_kernels_run)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtStream s = acltest_new_stream();
    int32_t *x = kt_device(N * 4);
    ACL_OK(aclrtMemset(x, N * 4, 0, N * 4));
    acltest_gate gate;
    uint32_t n = N;
    int32_t three = 3;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    acltest_gate_close(&gate, s);
    /* A placeholder-free launch and one with placeholder data the model keeps. */
    void *args[] = {&x, &three, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 8, s, NULL, args));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    for (int r = 0; r < 3; r++)
        ACL_OK(aclmdlRIExecuteAsync(model, s));
    acltest_gate_wait_reached(&gate);
    ACL_OK(aclmdlRIDestroy(model));
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    int32_t got;
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 9);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* Host arguments of "scale" (data, factor, n) multiplying data's N floats by
 * 2, with the factor passed through a placeholder: the buffer holds the
 * parameters, then the factor's data at dataOffset 32. */
enum { SCALE_ARGS_SIZE = 48 };
static aclrtPlaceHolderInfo scale_by_two_args(unsigned char buf[SCALE_ARGS_SIZE], float *data)
{
    uint32_t n = N;
    float factor = 2.0f;
    memset(buf, 0, SCALE_ARGS_SIZE);
    memcpy(buf, &data, 8);
    memcpy(buf + 16, &n, 4);
    memcpy(buf + 32, &factor, 4);
    return (aclrtPlaceHolderInfo){.addrOffset = 8, .dataOffset = 32};
}

START_TEST(captured_placeholders_live_with_the_model)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle scale = kt_function(bin, "scale");
    aclrtStream s = acltest_new_stream();
    float *data = kt_device(N * 4);
    float *host = malloc(N * 4);
    for (int i = 0; i < N; i++)
        host[i] = 1.0f;
    ACL_OK(aclrtMemcpy(data, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    unsigned char buf[SCALE_ARGS_SIZE];
    aclrtPlaceHolderInfo ph = scale_by_two_args(buf, data);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtLaunchKernelWithHostArgs(scale, 4, s, NULL, buf, sizeof buf, &ph, 1));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    memset(buf, 0, sizeof buf); /* the model copied what it needs */
    for (int r = 0; r < 4; r++)
        ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(host, N * 4, data, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(host[0] == 16.0f && host[N - 1] == 16.0f, "got %g", (double)host[0]);
    ACL_OK(aclmdlRIDestroy(model));
    free(host);
    ACL_OK(aclrtFree(data));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* ---- built models --------------------------------------------------------------------- */

START_TEST(build_from_persistent_streams)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtStream head = persistent_stream(), second = persistent_stream();
    aclrtStream plain = acltest_new_stream();
    int32_t *x = kt_device(N * 4), *y = kt_device(N * 4);
    ACL_OK(aclrtMemset(x, N * 4, 0, N * 4));
    ACL_OK(aclrtMemset(y, N * 4, 0, N * 4));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_FAILS_WITH(aclmdlRIBindStream(model, plain, ACL_MODEL_STREAM_FLAG_HEAD),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclmdlRIBindStream(model, head, 1), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclmdlRIBindStream(model, head, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, second, ACL_MODEL_STREAM_FLAG_HEAD));
    uint32_t n = N;
    int32_t one = 1, two = 2;
    void *ax[] = {&x, &one, &n}, *ay[] = {&y, &two, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, head, NULL, ax));
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, second, NULL, ay));
    ACL_OK(aclmdlRIEndTask(model, second));
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(add, 4, second, NULL, ay),
                   ACL_ERROR_RT_STREAM_MODEL);
    ACL_OK(aclmdlRIEndTask(model, head));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    /* Built: the streams take no more host work. */
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(add, 4, head, NULL, ax),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    int32_t got;
    kt_read_i32(x, &got, 1);
    ck_assert_int_eq(got, 0);
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclmdlRIExecute(model, 10000));
    ACL_OK(aclmdlRIExecuteAsync(model, plain));
    ACL_OK(aclrtSynchronizeStream(plain));
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 3);
    kt_read_i32(y, &got, 1);
    ck_assert_int_eq(got, 6);
    ACL_OK(aclmdlRIUnbindStream(model, second));
    ACL_FAILS_WITH(aclmdlRIUnbindStream(model, second), ACL_ERROR_RT_STREAM_MODEL);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(head));
    ACL_OK(aclrtDestroyStream(second));
    ACL_OK(aclrtDestroyStream(plain));
    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtFree(y));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(capture_persistent_stream)
{
    aclrtStream s = persistent_stream();
    int32_t *x = kt_device(64);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(x, 64, 5, 64, s)); /* a persistent stream takes work into a model */
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_FAILS_WITH(aclrtMemsetAsync(x, 64, 5, 64, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtStream plain = acltest_new_stream();
    ACL_OK(aclmdlRIExecuteAsync(model, plain));
    ACL_OK(aclrtSynchronizeStream(plain));
    unsigned char b[64];
    ACL_OK(aclrtMemcpy(b, 64, x, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(b[63], 5);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(plain));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(x));
}
END_TEST

/* ---- task groups, inspection ----------------------------------------------------------- */

/* A model on stream s whose one task, in a task group, is a launch of
 * add_scalar adding 1 to x (N zeroed words), and a second stream u for
 * its updates. */
typedef struct grouped_add {
    aclrtBinHandle bin;
    aclrtFuncHandle add;
    aclrtStream s, u;
    int32_t *x;
    aclrtTaskGrp group;
    aclmdlRI model;
} grouped_add;

static grouped_add grouped_add_new(void)
{
    grouped_add g;
    g.bin = kt_load();
    g.add = kt_function(g.bin, "add_scalar");
    g.s = acltest_new_stream();
    g.u = acltest_new_stream();
    g.x = kt_device(N * 4);
    ACL_OK(aclrtMemset(g.x, N * 4, 0, N * 4));
    int32_t one = 1;
    uint32_t n = N;
    void *args[] = {&g.x, &one, &n};
    ACL_OK(aclmdlRICaptureBegin(g.s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclmdlRICaptureTaskGrpBegin(g.s));
    ACL_OK(aclrtLaunchKernelWithArgsArray(g.add, 4, g.s, NULL, args));
    g.group = NULL;
    ACL_OK(aclmdlRICaptureTaskGrpEnd(g.s, &g.group));
    ck_assert_ptr_nonnull(g.group);
    g.model = NULL;
    ACL_OK(aclmdlRICaptureEnd(g.s, &g.model));
    return g;
}

/* The group's launch becomes one adding value, as u's work. */
static void grouped_add_update(const grouped_add *g, int32_t value)
{
    uint32_t n = N;
    int32_t *x = g->x;
    void *args[] = {&x, &value, &n};
    ACL_OK(aclmdlRICaptureTaskUpdateBegin(g->u, g->group));
    ACL_OK(aclrtLaunchKernelWithArgsArray(g->add, 4, g->u, NULL, args));
    ACL_OK(aclmdlRICaptureTaskUpdateEnd(g->u));
}

/* A run of the model, to its end; x's last word then. */
static int32_t grouped_add_run(const grouped_add *g)
{
    ACL_OK(aclmdlRIExecuteAsync(g->model, g->s));
    ACL_OK(aclrtSynchronizeStream(g->s));
    int32_t got;
    kt_read_i32(g->x + N - 1, &got, 1);
    return got;
}

static void grouped_add_free(grouped_add *g)
{
    if (g->model)
        ACL_OK(aclmdlRIDestroy(g->model));
    ACL_OK(aclrtDestroyStream(g->s));
    ACL_OK(aclrtDestroyStream(g->u));
    ACL_OK(aclrtFree(g->x));
    ACL_OK(aclrtBinaryUnLoad(g->bin));
}

START_TEST(task_group_update)
{
    grouped_add g = grouped_add_new();
    ck_assert_int_eq(grouped_add_run(&g), 1);
    grouped_add_update(&g, 100);
    ACL_OK(aclrtSynchronizeStream(g.u)); /* the update is u's work (CANN: asynchronous) */
    int32_t got;
    kt_read_i32(g.x, &got, 1);
    ck_assert_int_eq(got, 1); /* an update runs nothing */
    ck_assert_int_eq(grouped_add_run(&g), 101);
    /* An update of another shape is refused. */
    ACL_OK(aclmdlRICaptureTaskUpdateBegin(g.u, g.group));
    ACL_FAILS_WITH(aclmdlRICaptureTaskUpdateEnd(g.u), ACL_ERROR_RT_MODEL_UPDATE_FAILED);
    ACL_OK(aclmdlRIDestroy(g.model));
    g.model = NULL;
    ACL_FAILS_WITH(aclmdlRICaptureTaskUpdateBegin(g.u, g.group), ACL_ERROR_INVALID_PARAM);
    grouped_add_free(&g);
}
END_TEST

/* CANN's model-update flow (runtime sample model_ri/1_model_update): the
 * model waits inside for an event and resets it; a run is queued, then a
 * task update on another stream, then that stream records the event. The
 * update is that stream's work, and the run already queued, reaching the
 * group's task after it, runs the updated task. */
START_TEST(task_update_in_stream_order)
{
    /* ACLCUDA_DEVICE_TASK_UPDATES=0 stops the cuda backend's ordering on the
     * device (docs/backends.md, task updates): the queued run takes the old
     * task then. */
    const char *device_updates = getenv("ACLCUDA_DEVICE_TASK_UPDATES");
    if (!kt_on_host() && device_updates && strcmp(device_updates, "0") == 0)
        return;
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtStream s = acltest_new_stream(), u = acltest_new_stream();
    aclrtEvent ready;
    ACL_OK(aclrtCreateEventWithFlag(&ready, ACL_EVENT_EXTERNAL));
    int32_t *x = kt_device(N * 4);
    ACL_OK(aclrtMemset(x, N * 4, 0, N * 4));
    uint32_t n = N;
    int32_t one = 1, ten = 10, hundred = 100;
    void *first[] = {&x, &one, &n}, *grouped[] = {&x, &ten, &n}, *update[] = {&x, &hundred, &n};
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, s, NULL, first));
    ACL_OK(aclrtStreamWaitEvent(s, ready));
    ACL_OK(aclrtResetEvent(ready, s));
    ACL_OK(aclmdlRICaptureTaskGrpBegin(s));
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, s, NULL, grouped));
    aclrtTaskGrp group = NULL;
    ACL_OK(aclmdlRICaptureTaskGrpEnd(s, &group));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    int32_t got;
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtRecordEvent(ready, u));
    ACL_OK(aclrtSynchronizeStream(u));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 1 + 10);
    /* Queued first, the run waits for the event that u records after the
     * update. */
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclmdlRICaptureTaskUpdateBegin(u, group));
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, u, NULL, update));
    ACL_OK(aclmdlRICaptureTaskUpdateEnd(u));
    ACL_OK(aclrtRecordEvent(ready, u));
    ACL_OK(aclrtSynchronizeStream(u));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_read_i32(x, &got, 1);
    ck_assert_int_eq(got, 11 + 1 + 100);
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 11 + 1 + 100);
    /* The update stays for the runs after it. */
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtRecordEvent(ready, u));
    ACL_OK(aclrtSynchronizeStream(u));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 112 + 1 + 100);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(ready));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(u));
    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

static void on_destroy(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

START_TEST(name_id_debug_and_callbacks)
{
    aclrtStream s = acltest_new_stream();
    int32_t *x = kt_device(64);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(x, 64, 1, 64, s));
    ACL_OK(aclrtMemsetAsync(x, 32, 2, 32, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    char name[16] = "x";
    ACL_OK(aclmdlRIGetName(model, sizeof name, name));
    ck_assert_str_eq(name, "");
    ACL_OK(aclmdlRISetName(model, "first"));
    ACL_OK(aclmdlRISetName(model, "decoder-step"));
    ACL_OK(aclmdlRIGetName(model, sizeof name, name));
    ck_assert_str_eq(name, "decoder-step");
    ACL_OK(aclmdlRIGetName(model, 4, name));
    ck_assert_str_eq(name, "dec");
    uint32_t id1 = 0, id2 = 0;
    ACL_OK(aclmdlRIGetId(model, &id1));
    aclmdlRI other = NULL;
    ACL_OK(aclmdlRIBuildBegin(&other, 0));
    ACL_OK(aclmdlRIGetId(other, &id2));
    ck_assert_uint_ne(id1, id2);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ACL_OK(aclmdlRIDebugPrint(model)); /* deprecated by CANN, still supported */
#pragma GCC diagnostic pop
    char path[256];
    snprintf(path, sizeof path, "%s/acl-model-%d.json",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    ACL_OK(aclmdlRIDebugJsonPrint(model, path, ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char text[4096] = {0};
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    ck_assert_uint_gt(len, 0);
    ck_assert_ptr_nonnull(strstr(text, "decoder-step"));
    ck_assert_ptr_nonnull(strstr(text, "\"taskCount\": 2"));
    ACL_FAILS_WITH(aclmdlRIDebugJsonPrint(model, "/nonexistent/dir/m.json", 0),
                   ACL_ERROR_INVALID_FILE);
    atomic_int destroyed = 0;
    ACL_OK(aclmdlRIDestroyRegisterCallback(model, on_destroy, &destroyed));
    ACL_OK(aclmdlRIDestroyRegisterCallback(other, on_destroy, &destroyed));
    ACL_OK(aclmdlRIDestroyUnregisterCallback(other, on_destroy));
    ACL_FAILS_WITH(aclmdlRIDestroyUnregisterCallback(other, on_destroy), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclmdlRIDestroy(other));
    ck_assert_int_eq(atomic_load(&destroyed), 1);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(x));
}
END_TEST

START_TEST(destroying_a_capturing_stream)
{
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI model = NULL;
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    ACL_FAILS_WITH(aclmdlRIDestroy(model), ACL_ERROR_RT_MODEL_CAPTURED);
    /* The stream goes; its capture is abandoned, the model broken. */
    ACL_OK(aclrtDestroyStream(s));
    aclrtStream plain = acltest_new_stream();
    ACL_FAILS_WITH(aclmdlRIExecuteAsync(model, plain), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(plain));
}
END_TEST

/* ---- the tasks of a model ---------------------------------------------------------------- */

static aclmdlRITask *stream_tasks(aclrtStream s, uint32_t *n)
{
    ACL_OK(aclmdlRIGetTasksByStream(s, NULL, n));
    aclmdlRITask *tasks = calloc(*n ? *n : 1, sizeof *tasks);
    ck_assert_ptr_nonnull(tasks);
    ACL_OK(aclmdlRIGetTasksByStream(s, tasks, n));
    return tasks;
}

static aclmdlRITask first_of_type(aclrtStream s, aclmdlRITaskType type)
{
    uint32_t n;
    aclmdlRITask *tasks = stream_tasks(s, &n);
    aclmdlRITask found = NULL;
    for (uint32_t i = 0; i < n && !found; i++) {
        aclmdlRITaskType t;
        ACL_OK(aclmdlRITaskGetType(tasks[i], &t));
        if (t == type)
            found = tasks[i];
    }
    free(tasks);
    ck_assert_ptr_nonnull(found);
    return found;
}

START_TEST(kernel_task_params)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtStream s = acltest_new_stream();
    int32_t *x = kt_device(N * 4);
    ACL_OK(aclrtMemset(x, N * 4, 0, N * 4));
    uint32_t n = N;
    int32_t one = 1;
    void *args[] = {&x, &one, &n};
    aclrtLaunchKernelAttr attrs[2] = {{.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT},
                                      {.id = ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP}};
    attrs[0].value.timeout = 5;
    attrs[1].value.isDataDump = 1;
    aclrtLaunchKernelCfg cfg = {.attrs = attrs, .numAttrs = 2};
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 4, s, &cfg, args));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));

    aclmdlRITask k = first_of_type(s, ACL_MODEL_RI_TASK_KERNEL);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(k, &p));
    ck_assert_ptr_eq(p.kernelTaskParams.funcHandle, add);
    ck_assert_uint_eq(p.kernelTaskParams.numBlocks, 4);
    ck_assert_uint_eq(p.kernelTaskParams.argsSize, 16);
    ck_assert_uint_eq(p.kernelTaskParams.isHostArgs, 1);
    int32_t *captured_x;
    memcpy(&captured_x, p.kernelTaskParams.args, sizeof captured_x);
    ck_assert_ptr_eq(captured_x, x);
    aclrtLaunchKernelAttrValue v;
    ACL_OK(aclmdlRIKernelTaskGetAttribute(k, ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, &v));
    ck_assert_uint_eq(v.timeout, 5);
    ACL_OK(aclmdlRIKernelTaskGetAttribute(k, ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP, &v));
    ck_assert_uint_eq(v.isDataDump, 1);
    ACL_OK(aclmdlRIKernelTaskGetAttribute(k, ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &v));
    ck_assert_uint_eq(v.schemMode, 0);
    ACL_FAILS_WITH(aclmdlRIKernelTaskGetAttribute(k, ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, &v),
                   ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    int32_t got;
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 1);
    /* New arguments (host memory), staged until aclmdlRIUpdate. */
    struct {
        int32_t *data;
        int32_t value;
        uint32_t n;
    } next = {x, 100, N};
    p.kernelTaskParams.args = &next;
    p.kernelTaskParams.argsSize = sizeof next;
    p.kernelTaskParams.isHostArgs = 1;
    p.kernelTaskParams.numBlocks = 2;
    p.kernelTaskParams.cfg = NULL;
    p.taskGrp = (aclrtTaskGrp)&next;
    ACL_FAILS_WITH(aclmdlRITaskSetParams(k, &p), ACL_ERROR_INVALID_PARAM); /* taskGrp */
    p.taskGrp = NULL;
    p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
    ACL_FAILS_WITH(aclmdlRITaskSetParams(k, &p), ACL_ERROR_INVALID_PARAM); /* type */
    p.type = ACL_MODEL_RI_TASK_KERNEL;
    ACL_OK(aclmdlRITaskSetParams(k, &p));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 2); /* not updated yet */
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 102);
    ACL_OK(aclmdlRITaskGetParams(k, &p));
    ck_assert_uint_eq(p.kernelTaskParams.numBlocks, 2);
    /* Disabled, the kernel runs no more. */
    ACL_OK(aclmdlRITaskDisable(k));
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_read_i32(x + N - 1, &got, 1);
    ck_assert_int_eq(got, 102);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_FAILS_WITH(aclmdlRITaskGetParams(k, &p), ACL_ERROR_INVALID_PARAM); /* gone with it */
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* A value task's new word is checked as aclrtValueWrite and aclrtValueWait
 * check theirs: memory ACL did not allocate, an unmapped address, NULL or
 * a misaligned word is refused, and the task keeps its word. */
START_TEST(value_task_params_take_acl_memory_only)
{
    aclrtStream s = acltest_new_stream();
    uint64_t *words = NULL;
    ACL_OK(aclrtMalloc((void **)&words, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(words, 64, 0, 64));
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWrite(&words[0], 5, 0, s));
    ACL_OK(aclrtValueWait(&words[0], 5, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    uint64_t on_stack = 0;
    void *bad[] = {&on_stack, (void *)(uintptr_t)0x1000, NULL, (char *)&words[1] + 4};
    aclmdlRITaskType types[] = {ACL_MODEL_RI_TASK_VALUE_WRITE, ACL_MODEL_RI_TASK_VALUE_WAIT};
    for (size_t k = 0; k < 2; k++) {
        aclmdlRITask task = first_of_type(s, types[k]);
        aclmdlRITaskParams p;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            ACL_OK(aclmdlRITaskGetParams(task, &p));
            if (k == 0)
                p.valueWriteTaskParams.devAddr = bad[i];
            else
                p.valueWaitTaskParams.devAddr = bad[i];
            ACL_FAILS_WITH(aclmdlRITaskSetParams(task, &p), ACL_ERROR_INVALID_PARAM);
        }
        ACL_OK(aclmdlRITaskGetParams(task, &p));
        ck_assert_ptr_eq(k == 0 ? p.valueWriteTaskParams.devAddr : p.valueWaitTaskParams.devAddr,
                         &words[0]);
    }
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(on_stack, 0);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(words));
}
END_TEST

/* A task of a group takes an update, then new parameters from the host
 * (aclmdlRITaskSetParams + aclmdlRIUpdate), then an update again: each
 * time the latest change is the one the next runs see (on the cuda backend
 * with device-side updates: what an update posted does not outlive a change
 * from the host). */
START_TEST(task_update_then_host_params)
{
    grouped_add g = grouped_add_new();
    aclmdlRITask k = first_of_type(g.s, ACL_MODEL_RI_TASK_KERNEL);
    ck_assert_int_eq(grouped_add_run(&g), 1);
    grouped_add_update(&g, 100);
    ACL_OK(aclrtSynchronizeStream(g.u));
    ck_assert_int_eq(grouped_add_run(&g), 1 + 100);
    struct {
        int32_t *data;
        int32_t value;
        uint32_t n;
    } host_args = {g.x, 1000, N};
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(k, &p));
    p.kernelTaskParams.args = &host_args;
    p.kernelTaskParams.argsSize = sizeof host_args;
    p.kernelTaskParams.isHostArgs = 1;
    p.kernelTaskParams.cfg = NULL;
    p.taskGrp = NULL;
    ACL_OK(aclmdlRITaskSetParams(k, &p));
    ACL_OK(aclmdlRIUpdate(g.model));
    ck_assert_int_eq(grouped_add_run(&g), 101 + 1000);
    ck_assert_int_eq(grouped_add_run(&g), 1101 + 1000);
    grouped_add_update(&g, 10);
    ACL_OK(aclrtSynchronizeStream(g.u));
    ck_assert_int_eq(grouped_add_run(&g), 2101 + 10);
    grouped_add_free(&g);
}
END_TEST

START_TEST(task_listing_rules)
{
    aclrtStream s = acltest_new_stream(), t = acltest_new_stream();
    void *dev = kt_device(N);
    uint32_t n = 0;
    /* A stream that took part in no model. */
    ACL_FAILS_WITH(aclmdlRIGetTasksByStream(s, NULL, &n), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, N, 1, N, s));
    uint32_t id = 0;
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, 1); /* the model's first task of s */
    ACL_OK(aclrtMemsetAsync(dev, N, 2, N, s));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, 2);
    aclmdlRI first = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &first));
    uint32_t count;
    aclmdlRITask *tasks = stream_tasks(s, &count);
    ck_assert_uint_eq(count, 2);
    aclmdlRITaskType type;
    ACL_OK(aclmdlRITaskGetType(tasks[0], &type));
    ck_assert_int_eq(type, ACL_MODEL_RI_TASK_DEFAULT);
    aclmdlRITaskParams p;
    ACL_FAILS_WITH(aclmdlRITaskGetParams(tasks[0], &p), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclmdlRITaskDisable(tasks[0]), ACL_ERROR_INVALID_PARAM);
    uint32_t a, b;
    ACL_OK(aclmdlRITaskGetSeqId(tasks[0], &a));
    ACL_OK(aclmdlRITaskGetSeqId(tasks[1], &b));
    ck_assert_uint_eq(b, a + 1);
    free(tasks);
    /* The newest model a stream took part in answers. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, N, 3, N, s));
    aclmdlRI second = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &second));
    tasks = stream_tasks(s, &count);
    ck_assert_uint_eq(count, 1);
    free(tasks);
    ACL_OK(aclmdlRIDestroy(second));
    tasks = stream_tasks(s, &count);
    ck_assert_uint_eq(count, 2);
    /* Too small an array. */
    count = 1;
    ACL_FAILS_WITH(aclmdlRIGetTasksByStream(s, tasks, &count),
                   ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY);
    free(tasks);
    ACL_OK(aclmdlRIDestroy(first));
    /* Event records and waits between captured streams are edges: they
     * are listed, and cannot be disabled. */
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEvent(&e));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtRecordEvent(e, s));
    ACL_OK(aclrtStreamWaitEvent(t, e));
    ACL_OK(aclrtMemsetAsync(dev, N, 4, N, t));
    ACL_OK(aclrtRecordEvent(e, t));
    ACL_OK(aclrtStreamWaitEvent(s, e));
    aclmdlRI joined = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &joined));
    aclmdlRITask wait = first_of_type(t, ACL_MODEL_RI_TASK_EVENT_WAIT);
    ACL_OK(aclmdlRITaskGetParams(wait, &p));
    ck_assert_ptr_eq(p.eventWaitTaskParams.event, e);
    ACL_FAILS_WITH(aclmdlRITaskDisable(wait), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclmdlRIDestroy(joined));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(t));
}
END_TEST

static aclrtRandomParaInfo value_param(const void *v, uint8_t size)
{
    aclrtRandomParaInfo p = {.isAddr = 0, .size = size};
    memcpy(p.valueOrAddr, v, size);
    return p;
}

START_TEST(task_update_async)
{
    /* Programs ask first whether kernel tasks can be updated. */
    int32_t updatable = -1;
    ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &updatable));
    ck_assert_int_eq(updatable, ACL_DEV_FEATURE_SUPPORT);
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle last = kt_function(bin, "last_block");
    aclrtFuncHandle inc = kt_function(bin, "increment");
    void *last_entry, *inc_entry, *aiv;
    ACL_OK(aclrtGetFunctionAddr(last, &last_entry, &aiv));
    ACL_OK(aclrtGetFunctionAddr(inc, &inc_entry, &aiv));
    aclrtStream bound = persistent_stream(), exec = acltest_new_stream();
    uint32_t *out = kt_device(64);
    ACL_OK(aclrtMemset(out, 64, 0, 64));
    uint32_t *rnd = kt_device(N * 4);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, bound, ACL_MODEL_STREAM_FLAG_HEAD));
    void *args[] = {&out};
    ACL_OK(aclrtLaunchKernelWithArgsArray(last, 4, bound, NULL, args));
    uint32_t kernel_id = 0;
    ACL_OK(aclrtGetThreadLastTaskId(&kernel_id));
    uint32_t lo = 0, hi = 1000;
    uint64_t seed = 1, count = N;
    aclrtRandomNumTaskInfo info = {
        .dataType = ACL_UINT32,
        .randomNumFuncParaInfo = {.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
                                  .paramInfo.uniformDisInfo = {value_param(&lo, 4),
                                                               value_param(&hi, 4)}},
        .randomResultAddr = rnd,
        .randomSeed = value_param(&seed, 8),
        .randomNum = value_param(&count, 8),
    };
    ACL_OK(aclrtRandomNumAsync(&info, bound, NULL));
    uint32_t random_id = 0;
    ACL_OK(aclrtGetThreadLastTaskId(&random_id));
    ck_assert_uint_eq(random_id, kernel_id + 1);
    ACL_OK(aclmdlRIEndTask(model, bound));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    ACL_OK(aclmdlRIExecute(model, -1));
    uint32_t h[2];
    ACL_OK(aclrtMemcpy(h, 8, out, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(h[1], 4);
    uint32_t *first = malloc(N * 4), *second = malloc(N * 4);
    ACL_OK(aclrtMemcpy(first, N * 4, rnd, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));

    /* The kernel: 7 blocks, then another function, both read from device memory. */
    uint64_t *entry = kt_device(8);
    uint32_t *blocks = kt_device(4);
    uint64_t e = (uint64_t)(uintptr_t)last_entry;
    uint32_t seven = 7;
    ACL_OK(aclrtMemcpy(entry, 8, &e, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpyAsync(blocks, 4, &seven, 4, ACL_MEMCPY_HOST_TO_DEVICE, exec));
    aclrtTaskUpdateInfo up = {.id = ACL_RT_UPDATE_AIC_AIV_TASK};
    up.val.aicAivTaskAttr.binHandle = bin;
    up.val.aicAivTaskAttr.funcEntryAddr = entry;
    up.val.aicAivTaskAttr.blockDimAddr = blocks;
    ACL_OK(aclrtTaskUpdateAsync(bound, kernel_id, &up, exec));
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclrtMemcpy(h, 8, out, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(h[1], 7);
    e = (uint64_t)(uintptr_t)inc_entry;
    ACL_OK(aclrtMemcpy(entry, 8, &e, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtTaskUpdateAsync(bound, kernel_id, &up, exec));
    ACL_OK(aclrtMemset(out, 64, 0, 64));
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclrtMemcpy(h, 8, out, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(h[0], 1); /* increment's work now */
    ck_assert_uint_eq(h[1], 0);
    /* The random task: another seed. */
    aclrtRandomNumTaskInfo next = info;
    uint64_t other = 2;
    next.randomSeed = value_param(&other, 8);
    void *src = kt_device(sizeof next);
    ACL_OK(aclrtMemcpy(src, sizeof next, &next, sizeof next, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtTaskUpdateInfo ur = {.id = ACL_RT_UPDATE_RANDOM_TASK};
    ur.val.randomTaskAttr.srcAddr = src;
    ur.val.randomTaskAttr.size = sizeof next;
    ACL_OK(aclrtTaskUpdateAsync(bound, random_id, &ur, exec));
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclrtMemcpy(second, N * 4, rnd, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_ne(memcmp(first, second, N * 4), 0);
    /* Wrong ids and kinds. */
    ACL_FAILS_WITH(aclrtTaskUpdateAsync(bound, random_id + 5, &ur, exec), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtTaskUpdateAsync(bound, kernel_id, &ur, exec), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtTaskUpdateAsync(exec, kernel_id, &up, exec), ACL_ERROR_INVALID_PARAM);
    free(first);
    free(second);
    ACL_OK(aclmdlRIUnbindStream(model, bound));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(bound));
    ACL_OK(aclrtDestroyStream(exec));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFree(rnd));
    ACL_OK(aclrtFree(entry));
    ACL_OK(aclrtFree(blocks));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* The host backend stops a model's runs; CUDA cannot stop a launched
 * graph, and says so. */
/* A kernel launched with placeholders records the caller's buffer, not the
 * device copies the launch made: an update that keeps its arguments is
 * refused, and the model goes on running what it was built with. */
START_TEST(task_update_async_refuses_placeholder_launches)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle scale = kt_function(bin, "scale");
    void *entry_of_scale, *aiv;
    ACL_OK(aclrtGetFunctionAddr(scale, &entry_of_scale, &aiv));
    aclrtStream bound = persistent_stream(), exec = acltest_new_stream();
    float *data = kt_device(N * 4);
    float one = 1.0f, got[2];
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtMemcpy(data + i, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    unsigned char buf[SCALE_ARGS_SIZE];
    aclrtPlaceHolderInfo ph = scale_by_two_args(buf, data);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, bound, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtLaunchKernelWithHostArgs(scale, 4, bound, NULL, buf, sizeof buf, &ph, 1));
    uint32_t kernel_id = 0;
    ACL_OK(aclrtGetThreadLastTaskId(&kernel_id));
    ACL_OK(aclmdlRIEndTask(model, bound));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));

    uint64_t *entry = kt_device(8);
    uint32_t *blocks = kt_device(4);
    uint64_t e = (uint64_t)(uintptr_t)entry_of_scale;
    uint32_t two = 2;
    ACL_OK(aclrtMemcpy(entry, 8, &e, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(blocks, 4, &two, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtTaskUpdateInfo up = {.id = ACL_RT_UPDATE_AIC_AIV_TASK};
    up.val.aicAivTaskAttr.binHandle = bin;
    up.val.aicAivTaskAttr.funcEntryAddr = entry;
    up.val.aicAivTaskAttr.blockDimAddr = blocks;
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclrtTaskUpdateAsync(bound, kernel_id, &up, exec),
                     ACL_ERROR_RT_MODEL_UPDATE_FAILED);
    const char *why = aclGetRecentErrMsg();
    ck_assert_msg(why && strstr(why, "placeholders"), "the message: %s", why ? why : "(none)");
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclrtMemcpy(got, 4, data, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    ACL_OK(aclrtMemcpy(got + 1, 4, data + N - 1, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(got[0] == 4.0f && got[1] == 4.0f, "two runs of x2 gave %g and %g", (double)got[0],
                  (double)got[1]);

    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(entry));
    ACL_OK(aclrtFree(blocks));
    ACL_OK(aclrtFree(data));
    ACL_OK(aclrtDestroyStream(exec));
    ACL_OK(aclrtDestroyStream(bound));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(abort_model)
{
    aclrtStream s = acltest_new_stream(), side = acltest_new_stream();
    uint64_t *gate = kt_device(64);
    int32_t *counter = kt_device(64);
    ACL_OK(aclrtMemset(gate, 64, 0, 64));
    ACL_OK(aclrtMemset(counter, 64, 0, 64));
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle inc = kt_function(bin, "increment");
    void *args[] = {&counter};
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtLaunchKernelWithArgsArray(inc, 1, s, NULL, args));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    if (!kt_on_host()) {
        ACL_FAILS_WITH(aclmdlRIAbort(model), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    } else {
        /* Three runs queued behind a wait that holds them. */
        ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
        for (int i = 0; i < 3; i++)
            ACL_OK(aclmdlRIExecuteAsync(model, s));
        ACL_OK(aclmdlRIAbort(model));
        ACL_OK(aclrtValueWrite(gate, 1, 0, side));
        ACL_OK(aclrtSynchronizeStream(s));
        int32_t got;
        kt_read_i32(counter, &got, 1);
        ck_assert_int_eq(got, 0);
        /* Executed again, it runs. */
        ACL_OK(aclmdlRIExecuteAsync(model, s));
        ACL_OK(aclrtSynchronizeStream(s));
        kt_read_i32(counter, &got, 1);
        ck_assert_int_eq(got, 1);
    }
    ACL_OK(aclrtSynchronizeStream(side));
    ACL_OK(aclmdlRIDestroy(model));
    /* Not while it is being captured. */
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status;
    aclmdlRI during = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &during));
    ACL_FAILS_WITH(aclmdlRIAbort(during), ACL_ERROR_RT_MODEL_CAPTURED);
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(gate));
    ACL_OK(aclrtFree(counter));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* A WHILE task whose body is a kernel: the kernel counts and the word
 * counts down (a value write would set it; here a kernel of ours adds -1
 * through add_scalar on its low half). */
/* Begins a capture on s whose model gets one conditional task of `type`
 * with one branch, the condition starting from def at each run when flag
 * says so: the model in *model, the branch in *branch, the condition's
 * word in *word when word is not NULL. Returns the condition. */
static aclmdlRICondHandle capture_one_branch(aclrtStream s, aclmdlRICondTaskType type, uint32_t def,
                                             aclmdlRICondHandleFlag flag, aclmdlRI *model,
                                             aclmdlRI *branch, uint64_t **word)
{
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, model));
    aclmdlRICondHandle cond = NULL;
    ACL_OK(aclmdlRICondHandleCreate(*model, def, flag, &cond));
    if (word)
        ACL_OK(aclmdlRICondHandleGetCondPtr(cond, word));
    aclmdlRICondTaskParams params = {
        .handle = cond, .type = type, .size = 1, .modelRIArray = branch};
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    return cond;
}

START_TEST(cond_while_with_kernels)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    aclrtFuncHandle inc = kt_function(bin, "increment");
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream();
    int32_t *counter = kt_device(64);
    ACL_OK(aclrtMemset(counter, 64, 0, 64));
    aclmdlRI parent = NULL, loop = NULL;
    uint64_t *word = NULL;
    aclmdlRICondHandle cond =
        capture_one_branch(s, ACL_MODEL_RI_COND_TYPE_WHILE, 5,
                           ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &parent, &loop, &word);
    /* The branch cannot run alone, and the parent cannot end first. */
    ACL_FAILS_WITH(aclmdlRIExecuteAsync(loop, body), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclmdlRICaptureToModelRIBegin(body, loop, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI ended = NULL;
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &ended), ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING);
    void *inc_args[] = {&counter};
    ACL_OK(aclrtLaunchKernelWithArgsArray(inc, 1, body, NULL, inc_args));
    int32_t *low = (int32_t *)word; /* little-endian: the word's low half */
    int32_t minus_one = -1;
    uint32_t one = 1;
    void *dec_args[] = {&low, &minus_one, &one};
    ACL_OK(aclrtLaunchKernelWithArgsArray(add, 1, body, NULL, dec_args));
    ACL_OK(aclmdlRICaptureEnd(body, &ended));
    ck_assert_ptr_eq(ended, loop);
    ACL_FAILS_WITH(aclmdlRICaptureToModelRIBegin(body, loop, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                   ACL_ERROR_INVALID_PARAM); /* captured already */
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    for (int run = 1; run <= 2; run++) {
        ACL_OK(aclmdlRIExecuteAsync(model, s));
        ACL_OK(aclrtSynchronizeStream(s));
        int32_t got;
        kt_read_i32(counter, &got, 1);
        ck_assert_int_eq(got, 5 * run); /* each run starts from 5 (ASSIGN_DEFAULT) */
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_FAILS_WITH(aclmdlRICondHandleGetCondPtr(cond, &word), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(counter));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(body));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* A capture abandoned while a branch is captured takes the branch's
 * capture with it. */
START_TEST(cond_parent_abandoned)
{
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream();
    void *dev = kt_device(N);
    aclmdlRI parent = NULL, branch = NULL;
    capture_one_branch(s, ACL_MODEL_RI_COND_TYPE_IF, 1, 0, &parent, &branch, NULL);
    ACL_OK(aclmdlRICaptureToModelRIBegin(body, branch, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, N, 1, N, body));
    ACL_OK(aclrtDestroyStream(s)); /* the parent's capture goes */
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(body, &status, NULL));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    ACL_OK(aclrtMemsetAsync(dev, N, 2, N, body)); /* runs at once */
    ACL_OK(aclrtSynchronizeStream(body));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(body));
}
END_TEST

/* A capture whose end fails (a task group left open) takes its model's
 * branches and conditions with it: their handles are dead afterwards. */
START_TEST(failed_capture_end_takes_branches_and_conditions)
{
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream();
    aclmdlRI during = NULL, branch = NULL, model = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &during));
    aclmdlRICondHandle cond = NULL;
    ACL_OK(aclmdlRICondHandleCreate(during, 1, 0, &cond));
    aclmdlRICondTaskParams params = {
        .handle = cond, .type = ACL_MODEL_RI_COND_TYPE_IF, .size = 1, .modelRIArray = &branch};
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    ACL_OK(aclmdlRICaptureTaskGrpBegin(s));
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    ck_assert_ptr_null(model);
    uint64_t *word = NULL;
    ACL_FAILS_WITH(aclmdlRICondHandleGetCondPtr(cond, &word), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclmdlRICaptureToModelRIBegin(body, branch, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclmdlRIDestroy(branch), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclmdlRIDestroy(during), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(body));
}
END_TEST

typedef struct racing_begin {
    aclrtStream s;
    aclrtContext ctx;
    pthread_barrier_t *start;
    aclError err;
} racing_begin;

static void *begin_capture(void *arg)
{
    racing_begin *r = arg;
    ACL_OK(aclrtSetCurrentContext(r->ctx));
    pthread_barrier_wait(r->start);
    r->err = aclmdlRICaptureBegin(r->s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    return NULL;
}

/* Two threads begin capturing one stream at once: one capture gets it, the
 * other is refused (ACL_ERROR_RT_STREAM_CAPTURED) and leaves it alone, and
 * the winner's capture ends whole, leaving the stream uncaptured. */
START_TEST(two_begins_on_one_stream_race)
{
    aclrtContext ctx;
    ACL_OK(aclrtGetCurrentContext(&ctx));
    void *dev = kt_device(64);
    for (int round = 0; round < 300; round++) {
        aclrtStream s = acltest_new_stream();
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 2);
        racing_begin r[2] = {{s, ctx, &start, ACL_SUCCESS}, {s, ctx, &start, ACL_SUCCESS}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            ck_assert_int_eq(pthread_create(&t[i], NULL, begin_capture, &r[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&start);
        ck_assert_msg((r[0].err == ACL_SUCCESS) != (r[1].err == ACL_SUCCESS),
                      "round %d: the begins returned %d and %d", round, (int)r[0].err,
                      (int)r[1].err);
        aclError lost = r[0].err ? r[0].err : r[1].err;
        ck_assert_int_eq(lost, ACL_ERROR_RT_STREAM_CAPTURED);
        ACL_OK(aclrtMemsetAsync(dev, 64, round, 64, s));
        aclmdlRI model = NULL;
        ACL_OK(aclmdlRICaptureEnd(s, &model));
        ACL_OK(aclrtSynchronizeStream(s)); /* no longer captured */
        ACL_OK(aclmdlRIDestroy(model));
        ACL_OK(aclrtDestroyStream(s));
    }
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* A model run queued on a stream being captured: on the host backend the
 * outer model runs it; CUDA cannot capture a graph's launch, so the cuda
 * backend refuses it and the capture goes on unharmed. */
START_TEST(model_run_into_a_capture)
{
    aclrtStream s = acltest_new_stream(), t = acltest_new_stream();
    uint8_t *dev = kt_device(N);
    ACL_OK(aclrtMemset(dev, N, 0, N));
    aclmdlRI inner = NULL, outer = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtMemsetAsync(dev, N, 0x5a, N, s));
    ACL_OK(aclmdlRICaptureEnd(s, &inner));
    ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    bool nests = strcmp(aclcudaGetBackendName(), "host") == 0;
    if (nests) {
        ACL_OK(aclmdlRIExecuteAsync(inner, t));
    } else {
        ck_assert_int_eq(aclmdlRIExecuteAsync(inner, t), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        const char *why = aclGetRecentErrMsg();
        ck_assert_ptr_nonnull(why);
        ck_assert_ptr_nonnull(strstr(why, "captured"));
        ACL_OK(aclrtMemsetAsync(dev, N, 0x5a, N, t));
    }
    ACL_OK(aclmdlRICaptureEnd(t, &outer));
    uint8_t host[N];
    ACL_OK(aclrtMemcpy(host, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], 0); /* nothing ran during the captures */
    ACL_OK(aclmdlRIExecuteAsync(outer, t));
    ACL_OK(aclrtSynchronizeStream(t));
    ACL_OK(aclrtMemcpy(host, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], 0x5a);
    ck_assert_uint_eq(host[N - 1], 0x5a);
    ACL_OK(aclmdlRIDestroy(outer));
    ACL_OK(aclmdlRIDestroy(inner));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(t));
}
END_TEST

/* External records and waits where a launch cannot act on them beforehand
 * act when reached: in a conditional branch, and in a model launched into
 * another model's capture. Host backend only: CUDA takes no event nodes in
 * conditional bodies. */
START_TEST(external_nodes_act_when_reached_in_branches_and_nested_models)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream(), other = acltest_new_stream();
    aclrtEvent waited, recorded;
    ACL_OK(aclrtCreateEventExWithFlag(&waited, ACL_EVENT_SYNC));
    ACL_OK(aclrtCreateEventExWithFlag(&recorded, ACL_EVENT_SYNC));
    uint8_t *src = kt_device(N), *dst = kt_device(N);

    /* A branch that waits for `waited`, copies, and records `recorded`. */
    aclmdlRI model = NULL, branch = NULL;
    capture_one_branch(s, ACL_MODEL_RI_COND_TYPE_IF, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT,
                       &model, &branch, NULL);
    ACL_OK(aclmdlRICaptureToModelRIBegin(body, branch, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtStreamWaitEventWithFlag(body, waited, 0, ACL_EVENT_WAIT_EXTERNAL));
    ACL_OK(aclrtMemcpyAsync(dst, N, src, N, ACL_MEMCPY_DEVICE_TO_DEVICE, body));
    ACL_OK(aclrtRecordEventWithFlag(recorded, body, ACL_EVENT_RECORD_EXTERNAL));
    aclmdlRI ended = NULL;
    ACL_OK(aclmdlRICaptureEnd(body, &ended));
    ACL_OK(aclmdlRICaptureEnd(s, &model));

    /* The same model launched into the capture of another. */
    aclrtStream outer_stream = acltest_new_stream();
    ACL_OK(aclmdlRICaptureBegin(outer_stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclmdlRIExecuteAsync(model, outer_stream));
    aclmdlRI outer = NULL;
    ACL_OK(aclmdlRICaptureEnd(outer_stream, &outer));

    aclmdlRI runs[2] = {model, outer};
    aclrtStream on[2] = {s, outer_stream};
    for (int r = 0; r < 2; r++) {
        uint8_t value = (uint8_t)(0x31 + r);
        ACL_OK(aclrtMemset(dst, N, 0, N));
        acltest_gate gate;
        acltest_gate_close(&gate, other);
        ACL_OK(aclrtMemsetAsync(src, N, value, N, other));
        ACL_OK(aclrtRecordEvent(waited, other));
        ACL_OK(aclmdlRIExecuteAsync(runs[r], on[r]));
        acltest_gate_wait_reached(&gate);
        aclrtStreamStatus st;
        ACL_OK(aclrtStreamQuery(on[r], &st));
        ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY);
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(on[r]));
        uint8_t host[N];
        ACL_OK(aclrtMemcpy(host, N, dst, N, ACL_MEMCPY_DEVICE_TO_HOST));
        ck_assert_uint_eq(host[0], value);
        ck_assert_uint_eq(host[N - 1], value);
        aclrtEventRecordedStatus rs;
        ACL_OK(aclrtQueryEventStatus(recorded, &rs));
        ck_assert_int_eq(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
        ACL_OK(aclrtSynchronizeStream(other));
    }
    ACL_OK(aclmdlRIDestroy(outer));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(waited));
    ACL_OK(aclrtDestroyEvent(recorded));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(body));
    ACL_OK(aclrtDestroyStream(other));
    ACL_OK(aclrtDestroyStream(outer_stream));
}
END_TEST

static Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *capture = tcase_create("capture");
    tcase_add_checked_fixture(capture, set_up, tear_down);
    tcase_set_timeout(capture, 60);
    tcase_add_test(capture, capture_every_task_kind);
    tcase_add_test(capture, capture_two_streams_joined_by_events);
    tcase_add_test(capture, unjoined_stream_fails_the_capture);
    tcase_add_test(capture, forbidden_during_capture);
    tcase_add_test(capture, capture_modes_across_threads);
    tcase_add_test(capture, malloc_during_capture);
    tcase_add_test(capture, captured_placeholders_live_with_the_model);
    tcase_add_test(capture, destroying_a_capturing_stream);
    suite_add_tcase(s, capture);

    TCase *running = tcase_create("running");
    tcase_set_tags(running, "concurrent");
    tcase_add_checked_fixture(running, set_up, tear_down);
    tcase_add_test(running, replay_is_queued_work);
    tcase_add_test(running, model_run_into_a_capture);
    tcase_add_test(running, failed_capture_end_takes_branches_and_conditions);
    tcase_add_test(running, two_begins_on_one_stream_race);
    tcase_add_test(running, destroy_model_while_kernels_run);
    tcase_add_test(running, capture_end_races_with_work_queued);
    tcase_add_test(running, captures_begin_on_two_threads_at_once);
    suite_add_tcase(s, running);

    TCase *models = tcase_create("models");
    tcase_add_checked_fixture(models, set_up, tear_down);
    tcase_add_test(models, build_from_persistent_streams);
    tcase_add_test(models, capture_persistent_stream);
    tcase_add_test(models, task_group_update);
    tcase_add_test(models, task_update_in_stream_order);
    tcase_add_test(models, name_id_debug_and_callbacks);
    suite_add_tcase(s, models);

    TCase *tasks = tcase_create("tasks");
    tcase_add_checked_fixture(tasks, set_up, tear_down);
    tcase_set_timeout(tasks, 60);
    tcase_add_test(tasks, kernel_task_params);
    tcase_add_test(tasks, task_update_then_host_params);
    tcase_add_test(tasks, value_task_params_take_acl_memory_only);
    tcase_add_test(tasks, task_listing_rules);
    tcase_add_test(tasks, task_update_async);
    tcase_add_test(tasks, task_update_async_refuses_placeholder_launches);
    tcase_add_test(tasks, abort_model);
    tcase_add_test(tasks, cond_while_with_kernels);
    tcase_add_test(tasks, cond_parent_abandoned);
    tcase_add_test(tasks, external_nodes_act_when_reached_in_branches_and_nested_models);
    suite_add_tcase(s, tasks);
    return s;
}

int main(void)
{
    return acltest_run(graph_suite());
}
