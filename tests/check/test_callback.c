/* Callbacks: report threads subscribed to streams, BLOCK and NO_BLOCK
 * callbacks and their ordering against other work, callbacks that call ACL,
 * aclrtLaunchHostFunc, every error code, and what happens to callbacks in
 * flight when a stream is unsubscribed or destroyed. */
#include <stdatomic.h>
#include <stdint.h>

#include "acltest.h"

enum { WORDS = 256 };

/* ---- the fixture's report thread ------------------------------------------------ */

/* Loops on aclrtProcessReport while it serves a stream. Without a stream it
 * waits for the next subscription made through subscribe(), so it does not
 * spin on ACL_ERROR_RT_THREAD_SUBSCRIBE between tests' subscriptions. */
static struct {
    pthread_t thread;
    aclrtContext ctx;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool stop;
    unsigned subscriptions;
} reporter = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static bool reporter_stopping(void)
{
    pthread_mutex_lock(&reporter.lock);
    bool stop = reporter.stop;
    pthread_mutex_unlock(&reporter.lock);
    return stop;
}

static void *reporter_main(void *unused)
{
    (void)unused;
    ACL_OK(aclrtSetCurrentContext(reporter.ctx)); /* callbacks call ACL */
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&reporter.lock);
        while (!reporter.stop && reporter.subscriptions == seen)
            pthread_cond_wait(&reporter.cond, &reporter.lock);
        bool stop = reporter.stop;
        seen = reporter.subscriptions;
        pthread_mutex_unlock(&reporter.lock);
        if (stop)
            return NULL;
        while (!reporter_stopping() && aclrtProcessReport(50) != ACL_ERROR_RT_THREAD_SUBSCRIBE)
            ;
    }
}

static uint64_t reporter_id(void)
{
    return (uint64_t)reporter.thread;
}

/* Subscribes the fixture's report thread to stream and wakes it. */
static void subscribe(aclrtStream stream)
{
    ACL_OK(aclrtSubscribeReport(reporter_id(), stream));
    pthread_mutex_lock(&reporter.lock);
    reporter.subscriptions++;
    pthread_cond_broadcast(&reporter.cond);
    pthread_mutex_unlock(&reporter.lock);
}

static aclrtStream stream;

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtGetCurrentContext(&reporter.ctx));
    reporter.stop = false;
    reporter.subscriptions = 0;
    ck_assert_int_eq(pthread_create(&reporter.thread, NULL, reporter_main, NULL), 0);
}

static void set_up_small_device(void)
{
    ck_assert_int_eq(setenv("ACLCUDA_HOST_DEVICE_MEMORY", "64M", 1), 0);
    set_up();
}

static void tear_down(void)
{
    pthread_mutex_lock(&reporter.lock);
    reporter.stop = true;
    pthread_cond_broadcast(&reporter.cond);
    pthread_mutex_unlock(&reporter.lock);
    ck_assert_int_eq(pthread_join(reporter.thread, NULL), 0);
    ACL_OK(aclrtDestroyStream(stream));
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

static uint64_t self_id(void)
{
    return (uint64_t)pthread_self();
}

/* ---- what callbacks record ---------------------------------------------------------- */

/* Calls in the order they ran, with the thread each ran on. */
typedef struct call_log {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int values[2048];
    pthread_t threads[2048];
    size_t count;
} call_log;

static call_log calls = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void log_call(int value)
{
    pthread_mutex_lock(&calls.lock);
    ck_assert_uint_lt(calls.count, sizeof calls.values / sizeof calls.values[0]);
    calls.threads[calls.count] = pthread_self();
    calls.values[calls.count++] = value;
    pthread_cond_broadcast(&calls.cond);
    pthread_mutex_unlock(&calls.lock);
}

static size_t call_count(void)
{
    pthread_mutex_lock(&calls.lock);
    size_t n = calls.count;
    pthread_mutex_unlock(&calls.lock);
    return n;
}

static void wait_for_calls(size_t n)
{
    pthread_mutex_lock(&calls.lock);
    while (calls.count < n)
        pthread_cond_wait(&calls.cond, &calls.lock);
    pthread_mutex_unlock(&calls.lock);
}

/* userData is the value to record. */
static void record(void *userData)
{
    log_call((int)(intptr_t)userData);
}

#define VALUE(v) ((void *)(intptr_t)(v))

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

    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    launch(stream, fill_pattern, VALUE(1000));
    ACL_OK(aclrtMemcpyAsync(dev, bytes, src, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    ACL_OK(aclrtMemcpyAsync(dst, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    acltest_gate_open(&gate);
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

START_TEST(block_callback_orders_later_work)
{
    subscribe(stream);
    check_copy_sees_callback(launch_block_callback);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

START_TEST(block_callback_holds_stream)
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
END_TEST

START_TEST(no_block_callback_does_not_hold_stream)
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
END_TEST

START_TEST(callbacks_run_on_the_subscribed_thread)
{
    subscribe(stream);
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_NO_BLOCK, stream));
    wait_for_calls(2);
    for (size_t i = 0; i < 2; i++)
        ck_assert(pthread_equal(calls.threads[i], reporter.thread));
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

START_TEST(default_stream_callbacks)
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
END_TEST

START_TEST(one_thread_serves_several_streams)
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
END_TEST

static uint32_t *acl_check_device;
static bool acl_check_passed;
static aclError acl_check_second_free;

/* Uses ACL from inside a callback as pyACL's samples do: allocates pinned
 * memory, copies into it, checks it and frees it again, and frees the
 * device buffer too. On CUDA a free waits for the device, which waits for
 * this BLOCK callback; the library must not let that deadlock. */
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
    acl_check_second_free = aclrtFree(acl_check_device);
    acl_check_passed = ok;
}

START_TEST(callback_may_call_acl)
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
    /* Freed inside the callback: the memory is gone for ACL at once. */
    ck_assert_int_eq(acl_check_second_free, ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

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

START_TEST(batches_copy_back_in_callbacks)
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
END_TEST

/* Memory freed inside callbacks is kept for later allocations (it cannot
 * go back to CUDA while a BLOCK callback holds the device); callbacks that
 * allocate buffers of varying sizes must still find room. On the host
 * backend the device has 64 MiB here (see set_up_small_device). */
enum { VARYING_CALLBACKS = 200 };
static atomic_int varying_ok;

static void allocate_varying(void *user_data)
{
    size_t bytes = ((size_t)1 << 20) + (size_t)(intptr_t)user_data * 4096;
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return;
    if (aclrtMemset(p, bytes, 0x5A, bytes) == ACL_SUCCESS && aclrtFree(p) == ACL_SUCCESS)
        atomic_fetch_add(&varying_ok, 1);
}

START_TEST(callbacks_allocate_varying_sizes)
{
    subscribe(stream);
    for (int i = 0; i < VARYING_CALLBACKS; i++)
        ACL_OK(aclrtLaunchCallback(allocate_varying, (void *)(intptr_t)((i * 7919) % 256),
                                   ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_int_eq(atomic_load(&varying_ok), VARYING_CALLBACKS);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

START_TEST(many_callbacks_keep_their_order)
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
END_TEST

START_TEST(resubscribe_after_unsubscribe)
{
    for (int round = 0; round < 3; round++) {
        subscribe(stream);
        ACL_OK(aclrtLaunchCallback(record, VALUE(round), ACL_CALLBACK_BLOCK, stream));
        ACL_OK(aclrtSynchronizeStream(stream));
        ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
    }
    ck_assert_uint_eq(call_count(), 3);
}
END_TEST

START_TEST(host_func_runs_in_stream_order)
{
    check_copy_sees_callback(launch_host_func);
    for (int i = 0; i < 100; i++)
        ACL_OK(aclrtLaunchHostFunc(stream, record, VALUE(i)));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_uint_eq(call_count(), 100);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(calls.values[i], i);
}
END_TEST

START_TEST(host_func_on_default_stream)
{
    ACL_OK(aclrtLaunchHostFunc(NULL, record, VALUE(5)));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_uint_eq(call_count(), 1);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------- */

START_TEST(process_report_rejects_bad_timeouts)
{
    ACL_FAILS_WITH(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtProcessReport(INT32_MIN), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(process_report_needs_a_subscription)
{
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_FAILS_WITH(aclrtProcessReport(-1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ck_assert_int_eq(ACL_ERROR_RT_THREAD_SUBSCRIBE, 107012);
}
END_TEST

START_TEST(process_report_times_out)
{
    ACL_OK(aclrtSubscribeReport(self_id(), stream));
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
    ck_assert_int_eq(ACL_ERROR_RT_REPORT_TIMEOUT, 507012);
    ACL_OK(aclrtUnSubscribeReport(self_id(), stream));
}
END_TEST

static void *process_forever(void *result)
{
    *(aclError *)result = aclrtProcessReport(-1);
    return NULL;
}

/* A thread waiting forever is let go when it loses its last stream. */
START_TEST(unsubscribe_wakes_waiting_process_report)
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
END_TEST

START_TEST(launch_needs_a_subscriber)
{
    ACL_FAILS_WITH(aclrtLaunchCallback(record, NULL, ACL_CALLBACK_BLOCK, stream),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ACL_FAILS_WITH(aclrtLaunchCallback(record, NULL, ACL_CALLBACK_NO_BLOCK, NULL),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_NO_CB_REG, 107015);
}
END_TEST

START_TEST(launch_rejects_bad_arguments)
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
END_TEST

START_TEST(second_subscription_is_refused)
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
END_TEST

START_TEST(unsubscribe_errors)
{
    ACL_FAILS_WITH(aclrtUnSubscribeReport(reporter_id(), stream), ACL_ERROR_RT_STREAM_NO_CB_REG);
    subscribe(stream);
    ACL_FAILS_WITH(aclrtUnSubscribeReport(self_id(), stream), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
    ACL_FAILS_WITH(aclrtUnSubscribeReport(reporter_id(), stream), ACL_ERROR_RT_STREAM_NO_CB_REG);
}
END_TEST

START_TEST(exception_info)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ACL_OK(aclrtSetExceptionInfoCallback(NULL));
#pragma GCC diagnostic pop
    ck_assert_uint_eq(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetStreamIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetThreadIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetDeviceIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xFFFFFFFFu);
}
END_TEST

/* No fixture: the host backend's device count is read on first use. */
START_TEST(thread_serves_one_device_only)
{
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "2", 1);
    ACL_OK(aclInit(NULL));
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    if (count >= 2) {
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
END_TEST

/* ---- subscriptions ending with callbacks in flight ----------------------------------------- */

/* Drains what the calling thread still has queued; its last stream is gone. */
static void drain_own_queue(void)
{
    aclError ret;
    while ((ret = aclrtProcessReport(100)) == ACL_SUCCESS)
        ;
    ck_assert_int_eq(ret, ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

START_TEST(unsubscribe_keeps_posted_callbacks)
{
    ACL_OK(aclrtSubscribeReport(self_id(), stream));
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtLaunchCallback(record, VALUE(i), ACL_CALLBACK_NO_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream)); /* all three are posted, none ran */
    ck_assert_uint_eq(call_count(), 0);
    ACL_OK(aclrtUnSubscribeReport(self_id(), stream));
    ACL_FAILS_WITH(aclrtLaunchCallback(record, VALUE(9), ACL_CALLBACK_NO_BLOCK, stream),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ACL_OK(aclrtProcessReport(100));
    ck_assert_uint_eq(call_count(), 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(calls.values[i], i);
        ck_assert(pthread_equal(calls.threads[i], pthread_self()));
    }
    ACL_FAILS_WITH(aclrtProcessReport(100), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}
END_TEST

/* Callbacks the stream reaches only after the unsubscribe run on the
 * stream's own thread instead, BLOCK ones included, without hanging. */
START_TEST(unsubscribe_before_stream_reaches_callbacks)
{
    ACL_OK(aclrtSubscribeReport(self_id(), stream));
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_NO_BLOCK, stream));
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtUnSubscribeReport(self_id(), stream));
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_uint_eq(call_count(), 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(calls.values[i], i + 1);
        ck_assert(!pthread_equal(calls.threads[i], pthread_self()));
    }
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}
END_TEST

/* The subscribed thread does not process while the stream is destroyed:
 * the destroy does not hang, and every callback still runs exactly once
 * (posted ones in the thread's next aclrtProcessReport). */
START_TEST(destroy_stream_with_callbacks_queued)
{
    aclrtStream doomed;
    ACL_OK(aclrtCreateStream(&doomed));
    ACL_OK(aclrtSubscribeReport(self_id(), doomed));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_NO_BLOCK, doomed));
    ACL_OK(aclrtSynchronizeStream(doomed)); /* the first one is posted */
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_BLOCK, doomed));
    ACL_OK(aclrtLaunchCallback(record, VALUE(3), ACL_CALLBACK_NO_BLOCK, doomed));
    ACL_OK(aclrtDestroyStream(doomed));
    drain_own_queue();
    ck_assert_uint_eq(call_count(), 3);
    bool seen[4] = {false};
    for (size_t i = 0; i < 3; i++) {
        int v = calls.values[i];
        ck_assert(v >= 1 && v <= 3 && !seen[v]);
        seen[v] = true;
    }
}
END_TEST

/* A BLOCK callback posted before an unsubscribe still holds its stream; a
 * destroy then releases it although the stream has no subscriber left, and
 * the callback runs in the old thread's next aclrtProcessReport. */
START_TEST(destroy_after_unsubscribe_with_block_callback_posted)
{
    aclrtStream doomed;
    ACL_OK(aclrtCreateStream(&doomed));
    ACL_OK(aclrtSubscribeReport(self_id(), doomed));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, doomed));
    /* Held by the posted callback (nobody processes it yet). */
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(doomed, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclrtUnSubscribeReport(self_id(), doomed));
    ACL_OK(aclrtDestroyStream(doomed));
    drain_own_queue();
    ck_assert_uint_eq(call_count(), 1);
    ck_assert_int_eq(calls.values[0], 1);
}
END_TEST

static aclrtStream destroyed_from_callback;
static aclError destroy_result;
static size_t calls_after_destroy;

static void destroy_own_stream(void *unused)
{
    (void)unused;
    destroy_result = aclrtDestroyStream(destroyed_from_callback);
    calls_after_destroy = call_count();
}

/* A BLOCK callback that destroys its own stream does not deadlock: the
 * destroy releases the stream from it, and the later callback, reached with
 * no subscriber left, runs on the stream's own thread. */
START_TEST(block_callback_destroys_its_stream)
{
    ACL_OK(aclrtCreateStream(&destroyed_from_callback));
    ACL_OK(aclrtSubscribeReport(self_id(), destroyed_from_callback));
    ACL_OK(aclrtLaunchCallback(destroy_own_stream, NULL, ACL_CALLBACK_BLOCK,
                               destroyed_from_callback));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_NO_BLOCK, destroyed_from_callback));
    ACL_OK(aclrtProcessReport(-1));
    ck_assert_int_eq(destroy_result, ACL_SUCCESS);
    ck_assert_uint_eq(calls_after_destroy, 1);
    ck_assert(!pthread_equal(calls.threads[0], pthread_self()));
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("callback");

    /* Each callback allocates and fills device memory while it holds its
     * stream; compute-sanitizer, which serialises device work, skips the
     * tag (see scripts/device-check.sh). */
    TCase *small = tcase_create("small device");
    tcase_set_tags(small, "concurrent");
    tcase_add_checked_fixture(small, set_up_small_device, tear_down);
    tcase_add_test(small, callbacks_allocate_varying_sizes);
    suite_add_tcase(s, small);

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
    tcase_add_test(errors, exception_info);
    suite_add_tcase(s, errors);

    TCase *devices = tcase_create("devices");
    tcase_add_test(devices, thread_serves_one_device_only);
    suite_add_tcase(s, devices);

    TCase *ending = tcase_create("ending");
    tcase_add_checked_fixture(ending, set_up, tear_down);
    tcase_add_test(ending, unsubscribe_keeps_posted_callbacks);
    tcase_add_test(ending, unsubscribe_before_stream_reaches_callbacks);
    tcase_add_test(ending, destroy_stream_with_callbacks_queued);
    tcase_add_test(ending, destroy_after_unsubscribe_with_block_callback_posted);
    tcase_add_test(ending, block_callback_destroys_its_stream);
    suite_add_tcase(s, ending);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
