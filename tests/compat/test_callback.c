/* Callbacks: report threads subscribed to streams, BLOCK and NO_BLOCK
 * callbacks and their ordering against other work, callbacks that call ACL,
 * aclrtLaunchHostFunc, every error code, and the bad-argument rows of the
 * callback functions. What acl-cuda does with callbacks in flight when a
 * stream is unsubscribed or destroyed (ACL leaves it open) is acl-cuda's own
 * test (tests/check/test_callback_ending.c). */
#include <stdatomic.h>
#include <stdint.h>

#include "bad_args.h"
#include "reporter.h"

enum { WORDS = 256 };

/* A latch a callback can block on until the test releases it. */
typedef struct latch {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool entered, released, left;
} latch;

static latch hold = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void wait_on_latch(void *arg)
{
    latch *l = arg;
    pthread_mutex_lock(&l->lock);
    l->entered = true;
    pthread_cond_broadcast(&l->cond);
    while (!l->released)
        pthread_cond_wait(&l->cond, &l->lock);
    l->left = true;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

static void latch_wait_entered(latch *l)
{
    pthread_mutex_lock(&l->lock);
    while (!l->entered)
        pthread_cond_wait(&l->cond, &l->lock);
    pthread_mutex_unlock(&l->lock);
}

static void latch_release_and_wait_left(latch *l)
{
    pthread_mutex_lock(&l->lock);
    l->released = true;
    pthread_cond_broadcast(&l->cond);
    while (!l->left)
        pthread_cond_wait(&l->cond, &l->lock);
    pthread_mutex_unlock(&l->lock);
}

/* ---- buffers -------------------------------------------------------------------------- */

static uint32_t *pinned_words(void)
{
    void *p = NULL;
    ACL_OK(aclrtMallocHost(&p, WORDS * sizeof(uint32_t)));
    memset(p, 0, WORDS * sizeof(uint32_t));
    return p;
}

static void *device_words(void)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, WORDS * sizeof(uint32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static uint32_t *fill_target;

static void fill_pattern(void *userData)
{
    uint32_t base = (uint32_t)(uintptr_t)userData;
    for (uint32_t i = 0; i < WORDS; i++)
        fill_target[i] = base + i;
}

/* Queues, behind a closed gate: fn filling src, then src -> device -> dst.
 * launch queues fn. After the gate opens and the stream drains, dst holds
 * the pattern only if the copy waited for fn. */
static void check_copy_sees_callback(void (*launch)(aclrtStream, void (*)(void *), void *))
{
    uint32_t *src = pinned_words(), *dst = pinned_words();
    void *dev = device_words();
    size_t bytes = WORDS * sizeof(uint32_t);
    fill_target = src;

    compat_gate gate;
    compat_gate_close(&gate, stream);
    launch(stream, fill_pattern, VALUE(1000));
    ACL_OK(aclrtMemcpyAsync(dev, bytes, src, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    ACL_OK(aclrtMemcpyAsync(dst, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    for (uint32_t i = 0; i < WORDS; i++)
        ck_assert_uint_eq(dst[i], 1000 + i);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(src));
    ACL_OK(aclrtFreeHost(dst));
}

static void launch_block_callback(aclrtStream s, void (*fn)(void *), void *arg)
{
    ACL_OK(aclrtLaunchCallback(fn, arg, ACL_CALLBACK_BLOCK, s));
}

static void launch_host_func(aclrtStream s, void (*fn)(void *), void *arg)
{
    ACL_OK(aclrtLaunchHostFunc(s, fn, arg));
}

/* ---- behaviour -------------------------------------------------------------------------- */

COMPAT_TEST(block_callback_orders_later_work,
            "work queued after an ACL_CALLBACK_BLOCK callback sees what the callback did",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): BLOCK holds later tasks until the callback returns")
{
    subscribe(stream);
    check_copy_sees_callback(launch_block_callback);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(block_callback_holds_stream,
            "a running ACL_CALLBACK_BLOCK callback keeps its stream from completing",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): ACL_CALLBACK_BLOCK")
{
    subscribe(stream);
    ACL_OK(aclrtLaunchCallback(wait_on_latch, &hold, ACL_CALLBACK_BLOCK, stream));
    latch_wait_entered(&hold);
    /* The stream cannot finish while the callback is held. */
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    latch_release_and_wait_left(&hold);
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(no_block_callback_does_not_hold_stream,
            "an ACL_CALLBACK_NO_BLOCK callback does not hold its stream: synchronize returns while it waits",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): ACL_CALLBACK_NO_BLOCK")
{
    subscribe(stream);
    ACL_OK(aclrtLaunchCallback(wait_on_latch, &hold, ACL_CALLBACK_NO_BLOCK, stream));
    ACL_OK(aclrtLaunchCallback(record, VALUE(7), ACL_CALLBACK_NO_BLOCK, stream));
    /* Returns although the first callback waits for us. */
    ACL_OK(aclrtSynchronizeStream(stream));
    latch_wait_entered(&hold);
    ck_assert_uint_eq(call_count(), 0);
    latch_release_and_wait_left(&hold);
    wait_for_calls(1);
    ck_assert_int_eq(calls.values[0], 7);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(callbacks_run_on_the_subscribed_thread,
            "callbacks run on the thread subscribed to their stream, inside its aclrtProcessReport",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow)")
{
    subscribe(stream);
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_NO_BLOCK, stream));
    wait_for_calls(2);
    for (size_t i = 0; i < 2; i++)
        ck_assert(pthread_equal(calls.threads[i], reporter.thread));
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(default_stream_callbacks,
            "the default stream (NULL) can be subscribed and take callbacks; that subscribes no other stream",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow); NULL = default stream")
{
    subscribe(NULL);
    ACL_OK(aclrtLaunchCallback(record, VALUE(3), ACL_CALLBACK_BLOCK, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_uint_eq(call_count(), 1);
    ck_assert_int_eq(calls.values[0], 3);
    /* The explicit stream is not subscribed by that. */
    ACL_FAILS_WITH(aclrtLaunchCallback(record, VALUE(4), ACL_CALLBACK_BLOCK, stream),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), NULL));
}

COMPAT_TEST(one_thread_serves_several_streams,
            "one report thread may serve several streams; each stream's callbacks run in its own order",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): one thread may serve several streams")
{
    enum { STREAMS = 3, PER_STREAM = 20 };
    aclrtStream streams[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
        ACL_OK(aclrtCreateStream(&streams[i]));
        subscribe(streams[i]);
    }
    for (int n = 0; n < PER_STREAM; n++)
        for (int i = 0; i < STREAMS; i++)
            ACL_OK(aclrtLaunchCallback(record, VALUE(i * 1000 + n),
                                       n % 2 ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK,
                                       streams[i]));
    for (int i = 0; i < STREAMS; i++)
        ACL_OK(aclrtSynchronizeStream(streams[i]));
    /* The last callback of each stream blocks, so all of them have run. */
    ck_assert_uint_eq(call_count(), STREAMS * PER_STREAM);
    int next[STREAMS] = {0};
    for (size_t k = 0; k < calls.count; k++) {
        int i = calls.values[k] / 1000, n = calls.values[k] % 1000;
        ck_assert_int_eq(n, next[i]++); /* each stream in its own order */
        ck_assert(pthread_equal(calls.threads[k], reporter.thread));
    }
    for (int i = 0; i < STREAMS; i++) {
        ACL_OK(aclrtUnSubscribeReport(reporter_id(), streams[i]));
        ACL_OK(aclrtDestroyStream(streams[i]));
    }
}

static uint32_t *acl_check_device;
static bool acl_check_passed;

/* Uses ACL from inside a callback as pyACL's samples do: allocates pinned
 * memory, copies into it, checks it and frees it again, and frees the
 * device buffer too. Where a free waits for the device, the device waits
 * for this BLOCK callback: the implementation must not let that deadlock. */
static void copy_inside_callback(void *unused)
{
    (void)unused;
    size_t bytes = WORDS * sizeof(uint32_t);
    uint32_t *host = NULL;
    bool ok = aclrtMallocHost((void **)&host, bytes) == ACL_SUCCESS &&
              aclrtMemcpy(host, bytes, acl_check_device, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS;
    for (uint32_t i = 0; ok && i < WORDS; i++)
        ok = host[i] == 0x5A5A5A5Au;
    ok = ok && aclrtFreeHost(host) == ACL_SUCCESS && aclrtFree(acl_check_device) == ACL_SUCCESS;
    acl_check_passed = ok;
}

COMPAT_TEST(callback_may_call_acl,
            "a BLOCK callback may allocate, copy and free with ACL (as pyACL's samples do) without deadlocking the stream",
            "pyACL async sample (resnet50_async: callback calls malloc_host and memcpy); API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow)")
{
    subscribe(stream);
    size_t bytes = WORDS * sizeof(uint32_t);
    acl_check_device = device_words();
    ACL_OK(aclrtMemsetAsync(acl_check_device, bytes, 0x5A, bytes, stream));
    ACL_OK(aclrtLaunchCallback(copy_inside_callback, NULL, ACL_CALLBACK_BLOCK, stream));
    /* A second BLOCK callback keeps the stream busy behind the first. */
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert(acl_check_passed);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

/* The pattern of pyACL's asynchronous samples: every batch ends in a BLOCK
 * callback that allocates pinned memory, copies its results back and frees
 * the pinned memory again, while the main thread synchronizes the stream. */
enum { BATCHES = 8 };
static uint32_t *batch_device[BATCHES];
static atomic_int batches_checked;

static void copy_batch_back(void *user_data)
{
    int batch = (int)(intptr_t)user_data;
    size_t bytes = WORDS * sizeof(uint32_t);
    uint32_t *host = NULL;
    if (aclrtMallocHost((void **)&host, bytes) != ACL_SUCCESS)
        return;
    bool ok = aclrtMemcpy(host, bytes, batch_device[batch], bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS;
    for (uint32_t i = 0; ok && i < WORDS; i++)
        ok = host[i] == 0x01010101u * (uint32_t)(batch + 1);
    if (aclrtFreeHost(host) == ACL_SUCCESS && ok)
        atomic_fetch_add(&batches_checked, 1);
}

COMPAT_TEST(batches_copy_back_in_callbacks,
            "pyACL's asynchronous pattern: each batch ends in a BLOCK callback that copies its results back while the main thread synchronizes",
            "pyACL sample resnet50_async_imagenet_classification; API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow)")
{
    subscribe(stream);
    size_t bytes = WORDS * sizeof(uint32_t);
    for (int b = 0; b < BATCHES; b++) {
        batch_device[b] = device_words();
        ACL_OK(aclrtMemsetAsync(batch_device[b], bytes, b + 1, bytes, stream));
        ACL_OK(aclrtLaunchCallback(copy_batch_back, (void *)(intptr_t)b, ACL_CALLBACK_BLOCK, stream));
    }
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_int_eq(atomic_load(&batches_checked), BATCHES);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
    for (int b = 0; b < BATCHES; b++)
        ACL_OK(aclrtFree(batch_device[b]));
}

COMPAT_TEST(many_callbacks_keep_their_order,
            "callbacks on one stream run in launch order",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): stream order")
{
    enum { COUNT = 1000 };
    subscribe(stream);
    for (int i = 0; i < COUNT; i++)
        ACL_OK(aclrtLaunchCallback(record, VALUE(i),
                                   i % 2 ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream)); /* the last one blocks */
    ck_assert_uint_eq(call_count(), COUNT);
    for (int i = 0; i < COUNT; i++)
        ck_assert_int_eq(calls.values[i], i);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(resubscribe_after_unsubscribe,
            "a stream may be subscribed again after aclrtUnSubscribeReport",
            "acl_rt.h aclrtUnSubscribeReport, aclrtSubscribeReport")
{
    for (int round = 0; round < 3; round++) {
        subscribe(stream);
        ACL_OK(aclrtLaunchCallback(record, VALUE(round), ACL_CALLBACK_BLOCK, stream));
        ACL_OK(aclrtSynchronizeStream(stream));
        ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
    }
    ck_assert_uint_eq(call_count(), 3);
}

COMPAT_TEST(host_func_runs_in_stream_order,
            "aclrtLaunchHostFunc runs its function in stream order, holding the work behind it",
            "acl_rt.h aclrtLaunchHostFunc (runtime-managed thread, always blocking)")
{
    check_copy_sees_callback(launch_host_func);
    for (int i = 0; i < 100; i++)
        ACL_OK(aclrtLaunchHostFunc(stream, record, VALUE(i)));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_uint_eq(call_count(), 100);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(calls.values[i], i);
}

COMPAT_TEST(host_func_on_default_stream,
            "aclrtLaunchHostFunc takes the default stream (NULL)",
            "acl_rt.h aclrtLaunchHostFunc; NULL = default stream")
{
    ACL_OK(aclrtLaunchHostFunc(NULL, record, VALUE(5)));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_uint_eq(call_count(), 1);
}

/* ---- errors ------------------------------------------------------------------------------- */

COMPAT_TEST(process_report_rejects_bad_timeouts,
            "aclrtProcessReport refuses timeouts of 0 and below -1 with ACL_ERROR_INVALID_PARAM",
            "API ref aclrtProcessReport (-1 forever, > 0 limit); [impl] 0 or < -1 -> 100000")
{
    ACL_FAILS_WITH(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtProcessReport(INT32_MIN), ACL_ERROR_INVALID_PARAM);
}

COMPAT_TEST(process_report_needs_a_subscription,
            "aclrtProcessReport in a thread subscribed to no stream returns ACL_ERROR_RT_THREAD_SUBSCRIBE (107012)",
            "API ref aclrtProcessReport; rt_error_codes.h")
{
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_FAILS_WITH(aclrtProcessReport(-1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ck_assert_int_eq(ACL_ERROR_RT_THREAD_SUBSCRIBE, 107012);
}

COMPAT_TEST(process_report_times_out,
            "aclrtProcessReport with nothing to run returns ACL_ERROR_RT_REPORT_TIMEOUT (507012) after its timeout",
            "API ref aclrtProcessReport: timeout; ACL_ERROR_WAIT_CALLBACK_TIMEOUT is deprecated")
{
    ACL_OK(aclrtSubscribeReport(self_id(), stream));
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
    ck_assert_int_eq(ACL_ERROR_RT_REPORT_TIMEOUT, 507012);
    ACL_OK(aclrtUnSubscribeReport(self_id(), stream));
}

static void *process_forever(void *result)
{
    *(aclError *)result = aclrtProcessReport(-1);
    return NULL;
}

/* A thread waiting forever is let go when it loses its last stream. */
COMPAT_TEST(unsubscribe_wakes_waiting_process_report,
            "a thread waiting in aclrtProcessReport(-1) returns ACL_ERROR_RT_THREAD_SUBSCRIBE when it loses its last stream",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow); [impl]")
{
    aclrtStream other;
    ACL_OK(aclrtCreateStream(&other));
    aclError result = ACL_SUCCESS;
    pthread_t waiter;
    ck_assert_int_eq(pthread_create(&waiter, NULL, process_forever, &result), 0);
    ACL_OK(aclrtSubscribeReport((uint64_t)waiter, other));
    ACL_OK(aclrtUnSubscribeReport((uint64_t)waiter, other));
    ck_assert_int_eq(pthread_join(waiter, NULL), 0);
    ck_assert_int_eq(result, ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_OK(aclrtDestroyStream(other));
}

COMPAT_TEST(launch_needs_a_subscriber,
            "aclrtLaunchCallback on a stream no thread is subscribed to returns ACL_ERROR_RT_STREAM_NO_CB_REG (107015)",
            "API ref aclrtLaunchCallback; rt_error_codes.h")
{
    ACL_FAILS_WITH(aclrtLaunchCallback(record, NULL, ACL_CALLBACK_BLOCK, stream),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ACL_FAILS_WITH(aclrtLaunchCallback(record, NULL, ACL_CALLBACK_NO_BLOCK, NULL),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_NO_CB_REG, 107015);
}

COMPAT_TEST(launch_rejects_bad_arguments,
            "aclrtLaunchCallback refuses an unknown block type and a NULL function, aclrtLaunchHostFunc a NULL function, with ACL_ERROR_INVALID_PARAM; nothing runs",
            "API ref aclrtLaunchCallback; [impl] 100000")
{
    subscribe(stream);
    ACL_FAILS_WITH(aclrtLaunchCallback(record, NULL, (aclrtCallbackBlockType)2, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchCallback(record, NULL, (aclrtCallbackBlockType)-1, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchHostFunc(stream, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_uint_eq(call_count(), 0);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(second_subscription_is_refused,
            "a stream may have one subscribed thread: a second subscription returns ACL_ERROR_RT_STREAM_SUBSCRIBE (107011) and the first keeps working",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): one thread per stream; [impl] 107011")
{
    subscribe(stream);
    ACL_FAILS_WITH(aclrtSubscribeReport(reporter_id(), stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    ACL_FAILS_WITH(aclrtSubscribeReport(self_id(), stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_SUBSCRIBE, 107011);
    /* The first subscription still works. */
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert(pthread_equal(calls.threads[0], reporter.thread));
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}

COMPAT_TEST(unsubscribe_errors,
            "aclrtUnSubscribeReport for a stream without subscription returns ACL_ERROR_RT_STREAM_NO_CB_REG, for another thread ACL_ERROR_RT_THREAD_SUBSCRIBE",
            "acl_rt.h aclrtUnSubscribeReport; [impl]")
{
    ACL_FAILS_WITH(aclrtUnSubscribeReport(reporter_id(), stream), ACL_ERROR_RT_STREAM_NO_CB_REG);
    subscribe(stream);
    ACL_FAILS_WITH(aclrtUnSubscribeReport(self_id(), stream), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
    ACL_FAILS_WITH(aclrtUnSubscribeReport(reporter_id(), stream), ACL_ERROR_RT_STREAM_NO_CB_REG);
}

/* Needs two devices. */
COMPAT_TEST(thread_serves_one_device_only,
            "a report thread serves streams of one device only; with none left it may move to another device",
            "API ref aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport (callback flow): the same thread cannot be registered on two devices")
{
    ACL_OK(aclInit(NULL));
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    if (count < 2) {
        ACL_OK(aclFinalize());
        COMPAT_SKIP("one device: a thread has no other device to serve");
    }
    {
        aclrtStream first, second;
        aclrtContext first_ctx;
        ACL_OK(aclrtSetDevice(0));
        ACL_OK(aclrtGetCurrentContext(&first_ctx));
        ACL_OK(aclrtCreateStream(&first));
        ACL_OK(aclrtSetDevice(1));
        ACL_OK(aclrtCreateStream(&second));
        ACL_OK(aclrtSubscribeReport(self_id(), first));
        ACL_FAILS_WITH(aclrtSubscribeReport(self_id(), second), ACL_ERROR_RT_THREAD_SUBSCRIBE);
        ACL_OK(aclrtUnSubscribeReport(self_id(), first));
        /* Without streams of device 0 the thread may move to device 1. */
        ACL_OK(aclrtSubscribeReport(self_id(), second));
        ACL_OK(aclrtUnSubscribeReport(self_id(), second));
        ACL_OK(aclrtDestroyStream(second));
        ACL_OK(aclrtResetDevice(1));
        ACL_OK(aclrtSetCurrentContext(first_ctx));
        ACL_OK(aclrtDestroyStream(first));
        ACL_OK(aclrtResetDevice(0));
    }
    ACL_OK(aclFinalize());
}

/* ---- bad arguments ------------------------------------------------------------------ */

static void host_func_noop(void *arg)
{
    (void)arg;
}

ROW(aclrtLaunchCallback)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtLaunchCallback(host_func_noop, NULL, ACL_CALLBACK_BLOCK, h));
    REJECTS(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclrtLaunchHostFunc)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtLaunchHostFunc(h, host_func_noop, NULL));
    REJECTS(aclrtLaunchHostFunc(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL function");
}

ROW(aclrtSubscribeReport)
{
    uint64_t me = (uint64_t)pthread_self();
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSubscribeReport(me, h));
}

ROW(aclrtUnSubscribeReport)
{
    uint64_t me = (uint64_t)pthread_self();
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtUnSubscribeReport(me, h));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtLaunchCallback),
    COMPAT_ROW(aclrtLaunchHostFunc),
    COMPAT_ROW(aclrtSubscribeReport),
    COMPAT_ROW(aclrtUnSubscribeReport),
};
COMPAT_BAD_ARGS(callback, rows);

Suite *compat_suite_callback(void);
Suite *compat_suite_callback(void)
{
    Suite *s = suite_create("callback");

    TCase *behaviour = tcase_create("behaviour");
    tcase_add_checked_fixture(behaviour, set_up, tear_down);
    tcase_add_test(behaviour, block_callback_orders_later_work);
    tcase_add_test(behaviour, block_callback_holds_stream);
    tcase_add_test(behaviour, no_block_callback_does_not_hold_stream);
    tcase_add_test(behaviour, callbacks_run_on_the_subscribed_thread);
    tcase_add_test(behaviour, default_stream_callbacks);
    tcase_add_test(behaviour, one_thread_serves_several_streams);
    tcase_add_test(behaviour, callback_may_call_acl);
    tcase_add_test(behaviour, batches_copy_back_in_callbacks);
    tcase_add_test(behaviour, many_callbacks_keep_their_order);
    tcase_add_test(behaviour, resubscribe_after_unsubscribe);
    tcase_add_test(behaviour, host_func_runs_in_stream_order);
    tcase_add_test(behaviour, host_func_on_default_stream);
    suite_add_tcase(s, behaviour);

    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, set_up, tear_down);
    tcase_add_test(errors, process_report_rejects_bad_timeouts);
    tcase_add_test(errors, process_report_needs_a_subscription);
    tcase_add_test(errors, process_report_times_out);
    tcase_add_test(errors, unsubscribe_wakes_waiting_process_report);
    tcase_add_test(errors, launch_needs_a_subscriber);
    tcase_add_test(errors, launch_rejects_bad_arguments);
    tcase_add_test(errors, second_subscription_is_refused);
    tcase_add_test(errors, unsubscribe_errors);
    suite_add_tcase(s, errors);

    TCase *devices = tcase_create("devices");
    tcase_add_test(devices, thread_serves_one_device_only);
    suite_add_tcase(s, devices);

    compat_add_bad_args(s, &compat_rows_callback);
    return s;
}

COMPAT_MAIN(callback)
