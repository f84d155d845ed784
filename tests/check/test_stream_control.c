/* Stream control beyond creation and synchronisation: configurations and
 * aclrtCreateStreamV2, abort, stop, persistent tasks, state callbacks, task
 * ids, resource limits; events recorded and waited for with flags, their
 * timestamps; host-function threads (aclrtSubscribeHostFunc). */
#include <stdint.h>
#include <time.h>

#include "acltest.h"
#include "acl/acl_cuda.h"

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

static bool on_host_backend(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

static aclrtStreamStatus status_of(aclrtStream s)
{
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    return st;
}

/* ---- configurations ---------------------------------------------------------------------- */

START_TEST(create_v2_takes_the_configuration)
{
    aclrtStreamConfigHandle *c = aclrtCreateStreamConfigHandle();
    ck_assert_ptr_nonnull(c);
    uint32_t priority = 3, flag = ACL_STREAM_FAST_LAUNCH;
    uint64_t work_size = 4096;
    void *work = &work_size;
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority));
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_WORK_SIZE, &work_size, sizeof work_size));
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_WORK_ADDR_PTR, &work, sizeof work));
    aclrtStream s;
    ACL_OK(aclrtCreateStreamV2(&s, c));
    uint32_t got_priority, got_flags;
    ACL_OK(aclrtStreamGetPriority(s, &got_priority));
    ACL_OK(aclrtStreamGetFlags(s, &got_flags));
    ck_assert_uint_eq(got_priority, 3);
    ck_assert_uint_eq(got_flags, ACL_STREAM_FAST_LAUNCH);
    ACL_OK(aclrtSynchronizeStream(s));
    /* The configuration outlives the stream and the other way round. */
    ACL_OK(aclrtDestroyStreamConfigHandle(c));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

START_TEST(configuration_rules)
{
    aclrtStreamConfigHandle *c = aclrtCreateStreamConfigHandle();
    ck_assert_ptr_nonnull(c);
    uint32_t eight = 8;
    ACL_FAILS_WITH(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_PRIORITY, &eight, sizeof eight),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetStreamConfigOpt(c, (aclrtStreamConfigAttr)9, &eight, sizeof eight),
                   ACL_ERROR_INVALID_PARAM);
    /* A fresh configuration makes a plain stream. */
    aclrtStream s;
    ACL_OK(aclrtCreateStreamV2(&s, c));
    uint32_t priority, flags;
    ACL_OK(aclrtStreamGetPriority(s, &priority));
    ACL_OK(aclrtStreamGetFlags(s, &flags));
    ck_assert_uint_eq(priority, 0);
    ck_assert_uint_eq(flags, 0);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStreamConfigHandle(c));
    ACL_FAILS_WITH(aclrtCreateStreamV2(&s, c), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDestroyStreamConfigHandle(c), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* ---- abort, stop, persistent tasks ----------------------------------------------------------- */

/* Abort settles the stream's bookkeeping: it answers idle at once and
 * synchronises without waiting, and new work runs normally. */
START_TEST(abort_leaves_a_usable_stream)
{
    aclrtStream s = acltest_new_stream();
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtStreamAbort(s)); /* nothing queued: nothing to do */
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtMemsetAsync(dev, 4096, i, 4096, s));
    ACL_OK(aclrtStreamAbort(s));
    ck_assert_int_eq(status_of(s), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char host[16];
    ACL_OK(aclrtMemsetAsync(dev, 4096, 0x5a, 4096, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], 0x5a);
    ck_assert_uint_eq(host[15], 0x5a);
    /* The default stream too. */
    ACL_OK(aclrtStreamAbort(NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* On the host backend, what had not started when the stream was aborted is
 * cancelled, but host functions, which own what they were given, still
 * run; a synchronize under way ends with ACL_ERROR_RT_STREAM_ABORT. (On
 * CUDA, queued work still runs on the stream the abort retired.) */
typedef struct counter {
    pthread_mutex_t lock;
    int calls;
} counter;

static void count_call(void *arg)
{
    counter *c = arg;
    pthread_mutex_lock(&c->lock);
    c->calls++;
    pthread_mutex_unlock(&c->lock);
}

typedef struct sync_arg {
    aclrtStream stream;
    aclError result;
} sync_arg;

static void *synchronize_thread(void *arg)
{
    sync_arg *a = arg;
    ACL_OK(aclrtSetDevice(0));
    a->result = aclrtSynchronizeStream(a->stream);
    ACL_OK(aclrtResetDevice(0));
    return NULL;
}

START_TEST(host_abort_cancels_all_but_host_functions)
{
    if (!on_host_backend())
        return;
    aclrtStream s = acltest_new_stream();
    unsigned char *dev = NULL;
    ACL_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, 64, 1, 64));
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemsetAsync(dev, 64, 9, 64, s));
    counter c = {PTHREAD_MUTEX_INITIALIZER, 0};
    ACL_OK(aclrtLaunchHostFunc(s, count_call, &c));
    acltest_gate_wait_reached(&gate);
    sync_arg waiter = {s, ACL_SUCCESS};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, synchronize_thread, &waiter), 0);
    ACL_OK(aclrtStreamAbort(s));
    acltest_gate_open(&gate);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    /* Work queued after the abort runs after what the abort kept. */
    ACL_OK(aclrtMemsetAsync(dev + 32, 32, 7, 32, s));
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char host[64];
    ACL_OK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], 1); /* the fill was cancelled */
    ck_assert_uint_eq(host[32], 7);
    ck_assert_int_eq(c.calls, 1);  /* the host function ran */
    ck_assert_msg(waiter.result == ACL_SUCCESS || waiter.result == ACL_ERROR_RT_STREAM_ABORT,
                  "synchronize during the abort returned %d", (int)waiter.result);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

START_TEST(stop_is_refused_with_reason)
{
    aclrtStream s = acltest_new_stream();
    ACL_FAILS_WITH(aclrtStreamStop(s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

START_TEST(persistent_task_clean)
{
    aclrtStream p, plain = acltest_new_stream();
    ACL_OK(aclrtCreateStreamWithConfig(&p, 0, ACL_STREAM_PERSISTENT));
    ACL_OK(aclrtPersistentTaskClean(p));
    ACL_FAILS_WITH(aclrtPersistentTaskClean(plain), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(p));
    ACL_OK(aclrtDestroyStream(plain));
}
END_TEST

/* ---- state callbacks ---------------------------------------------------------------------- */

enum { MAX_SEEN = 16 };

typedef struct seen_states {
    int count;
    aclrtStream streams[MAX_SEEN];
    aclrtStreamState states[MAX_SEEN];
} seen_states;

static void remember_state(aclrtStream stm, aclrtStreamState state, void *args)
{
    seen_states *seen = args;
    if (seen->count < MAX_SEEN) {
        seen->streams[seen->count] = stm;
        seen->states[seen->count] = state;
    }
    seen->count++;
}

START_TEST(stream_state_callbacks)
{
    seen_states seen = {0};
    ACL_OK(aclrtRegStreamStateCallback("test", remember_state, &seen));
    ACL_FAILS_WITH(aclrtRegStreamStateCallback("test", remember_state, &seen),
                   ACL_ERROR_RT_PARAM_INVALID);
    aclrtStream s = acltest_new_stream();
    ck_assert_int_eq(seen.count, 1);
    ck_assert_ptr_eq(seen.streams[0], s);
    ck_assert_int_eq(seen.states[0], ACL_RT_STREAM_STATE_CREATE_POST);
    ACL_OK(aclrtDestroyStream(s));
    ck_assert_int_eq(seen.count, 2);
    ck_assert_ptr_eq(seen.streams[1], s);
    ck_assert_int_eq(seen.states[1], ACL_RT_STREAM_STATE_DESTROY_PRE);
    /* A new context's default stream is a stream too. */
    aclrtContext current, ctx;
    ACL_OK(aclrtGetCurrentContext(&current));
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream default_stream;
    ACL_OK(aclrtCtxGetCurrentDefaultStream(&default_stream));
    ck_assert_int_eq(seen.count, 3);
    ck_assert_ptr_eq(seen.streams[2], default_stream);
    ACL_OK(aclrtDestroyContext(ctx));
    ck_assert_int_eq(seen.count, 4);
    ck_assert_int_eq(seen.states[3], ACL_RT_STREAM_STATE_DESTROY_PRE);
    ACL_OK(aclrtSetCurrentContext(current));
    /* Unregistered: no more calls. Unregistering again is harmless. */
    ACL_OK(aclrtRegStreamStateCallback("test", NULL, NULL));
    ACL_OK(aclrtRegStreamStateCallback("test", NULL, NULL));
    s = acltest_new_stream();
    ACL_OK(aclrtDestroyStream(s));
    ck_assert_int_eq(seen.count, 4);
}
END_TEST

/* ---- task ids ---------------------------------------------------------------------------- */

START_TEST(thread_last_task_id)
{
    aclrtStream s = acltest_new_stream(), t = acltest_new_stream();
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    uint32_t id;
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtMemsetAsync(dev, 64, i, 64, s));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    uint32_t third = id;
    ACL_OK(aclrtMemsetAsync(dev, 64, 0, 64, s));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, third + 1);
    ACL_OK(aclrtMemsetAsync(dev, 64, 0, 64, t));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, 1); /* the first task of t */
    /* Tasks on the default stream leave it alone. */
    ACL_OK(aclrtMemsetAsync(dev, 64, 0, 64, NULL));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtSynchronizeStream(t));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(t));
}
END_TEST

/* ---- resource limits ----------------------------------------------------------------------- */

START_TEST(resource_limit_levels)
{
    uint32_t hw, v;
    ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &hw));
    ck_assert_uint_ge(hw, 1);
    int64_t cores;
    ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores));
    ck_assert_int_eq((int64_t)hw, cores);
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);

    ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1); /* the process level, for a stream without its own */
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1); /* the thread does not use the stream yet */
    ACL_OK(aclrtUseStreamResInCurrentThread(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_OK(aclrtUseStreamResInCurrentThread(s));
    ACL_OK(aclrtResetStreamResLimit(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);
    ACL_OK(aclrtResetDeviceResLimit(0));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    /* A stream in use that goes away leaves the device's limit. */
    ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_FAILS_WITH(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, hw + 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)2, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetDeviceResLimit(1 << 20, ACL_RT_DEV_RES_CUBE_CORE, &v),
                   ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

/* ---- events with flags, timestamps ----------------------------------------------------------- */

START_TEST(record_and_wait_with_flags)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    unsigned char *dev = NULL;
    ACL_OK(aclrtMalloc((void **)&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    acltest_gate gate;
    acltest_gate_close(&gate, a);
    ACL_OK(aclrtMemsetAsync(dev, 64, 0x33, 64, a));
    ACL_OK(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_DEFAULT));
    ACL_OK(aclrtStreamWaitEventWithFlag(b, e, 0, ACL_EVENT_WAIT_DEFAULT));
    ACL_OK(aclrtMemcpyAsync(dev + 64, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    acltest_gate_wait_reached(&gate);
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(b));
    unsigned char host[64];
    ACL_OK(aclrtMemcpy(host, 64, dev + 64, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[63], 0x33);

    /* External records and waits belong to graph capture. */
    ACL_FAILS_WITH(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_EXTERNAL),
                   ACL_ERROR_INVALID_PARAM);
    aclrtEvent ex;
    ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    ACL_FAILS_WITH(aclrtRecordEventWithFlag(ex, a, ACL_EVENT_RECORD_EXTERNAL),
                   ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    ACL_FAILS_WITH(aclrtStreamWaitEventWithFlag(b, ex, 0, ACL_EVENT_WAIT_EXTERNAL),
                   ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    ACL_FAILS_WITH(aclrtStreamWaitEventWithFlag(b, ex, 5, ACL_EVENT_WAIT_EXTERNAL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtRecordEventWithFlag(e, a, 2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtStreamWaitEventWithFlag(b, e, 0, 2), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyEvent(ex));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

static uint64_t monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The time of a record in microseconds of CLOCK_MONOTONIC: between the
 * host's clock before the record and after the synchronize (with a margin
 * for the cuda backend's estimate), and in the records' order. */
START_TEST(event_timestamps)
{
    enum { MARGIN_US = 50 * 1000 };
    aclrtStream s = acltest_new_stream();
    aclrtEvent first, second, plain;
    ACL_OK(aclrtCreateEvent(&first));
    ACL_OK(aclrtCreateEventWithFlag(&second, ACL_EVENT_TIME_LINE));
    ACL_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_SYNC));
    uint64_t t;
    ACL_FAILS_WITH(aclrtEventGetTimestamp(first, &t), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    uint64_t before = monotonic_us();
    ACL_OK(aclrtRecordEvent(first, s));
    ACL_OK(aclrtRecordEvent(second, s));
    ACL_OK(aclrtRecordEvent(plain, s));
    acltest_gate_wait_reached(&gate);
    ACL_FAILS_WITH(aclrtEventGetTimestamp(first, &t), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    uint64_t after = monotonic_us();
    uint64_t t1, t2;
    ACL_OK(aclrtEventGetTimestamp(first, &t1));
    ACL_OK(aclrtEventGetTimestamp(second, &t2));
    ck_assert_uint_le(t1, t2);
    ck_assert_uint_ge(t1 + MARGIN_US, before);
    ck_assert_uint_le(t2, after + MARGIN_US);
    /* Asked again, the same answer. */
    ACL_OK(aclrtEventGetTimestamp(first, &t));
    ck_assert_uint_eq(t, t1);
    ACL_FAILS_WITH(aclrtEventGetTimestamp(plain, &t), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    ACL_OK(aclrtDestroyEvent(first));
    ACL_OK(aclrtDestroyEvent(second));
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- host-function threads ------------------------------------------------------------------ */

typedef struct host_func_run {
    pthread_t ran_on;
    int runs;
    uint64_t *word; /* where the stream writes after the function */
} host_func_run;

static void note_thread(void *arg)
{
    host_func_run *r = arg;
    r->ran_on = pthread_self();
    r->runs++;
}

typedef struct processor {
    aclrtContext ctx;
    aclError first, second;
    acltest_gate start; /* opened once the thread is subscribed */
} processor;

/* Runs two rounds of aclrtProcessHostFunc. */
static void *process_host_funcs(void *arg)
{
    processor *p = arg;
    acltest_gate_body(&p->start);
    ACL_OK(aclrtSetCurrentContext(p->ctx));
    p->first = aclrtProcessHostFunc(30000);
    p->second = aclrtProcessHostFunc(30000);
    return NULL;
}

START_TEST(host_functions_run_on_the_subscribed_thread)
{
    aclrtStream s = acltest_new_stream();
    processor p = {.first = -1, .second = -1};
    ACL_OK(aclrtGetCurrentContext(&p.ctx));
    pthread_mutex_init(&p.start.lock, NULL);
    pthread_cond_init(&p.start.cond, NULL);
    pthread_t worker;
    ck_assert_int_eq(pthread_create(&worker, NULL, process_host_funcs, &p), 0);
    ACL_OK(aclrtSubscribeHostFunc((uint64_t)worker, s));
    acltest_gate_open(&p.start);
    ACL_FAILS_WITH(aclrtSubscribeHostFunc((uint64_t)pthread_self(), s),
                   ACL_ERROR_RT_STREAM_SUBSCRIBE);
    host_func_run r1 = {0}, r2 = {0};
    ACL_OK(aclrtLaunchHostFunc(s, note_thread, &r1));
    ACL_OK(aclrtLaunchHostFunc(s, note_thread, &r2));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(r1.runs, 1);
    ck_assert_int_eq(r2.runs, 1);
    ck_assert(pthread_equal(r1.ran_on, worker));
    ck_assert(pthread_equal(r2.ran_on, worker));
    ck_assert_int_eq(pthread_join(worker, NULL), 0);
    ACL_OK(p.first);
    ACL_OK(p.second);
    ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)worker, s));
    ACL_FAILS_WITH(aclrtUnSubscribeHostFunc((uint64_t)worker, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
    /* Without a subscriber, host functions run on the stream's own thread. */
    host_func_run r3 = {0};
    ACL_OK(aclrtLaunchHostFunc(s, note_thread, &r3));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(r3.runs, 1);
    ck_assert(!pthread_equal(r3.ran_on, pthread_self()));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

START_TEST(process_host_func_rules)
{
    ACL_FAILS_WITH(aclrtProcessHostFunc(100), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_FAILS_WITH(aclrtProcessHostFunc(0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtProcessHostFunc(-2), ACL_ERROR_INVALID_PARAM);
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtSubscribeHostFunc((uint64_t)pthread_self(), s));
    ACL_FAILS_WITH(aclrtProcessHostFunc(10), ACL_ERROR_RT_REPORT_TIMEOUT);
    /* Report threads and host-function threads are apart. */
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)pthread_self(), s));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("stream_control");

    TCase *config = tcase_create("config");
    tcase_add_checked_fixture(config, set_up, tear_down);
    tcase_add_test(config, create_v2_takes_the_configuration);
    tcase_add_test(config, configuration_rules);
    suite_add_tcase(s, config);

    TCase *abort_ = tcase_create("abort");
    tcase_add_checked_fixture(abort_, set_up, tear_down);
    tcase_add_test(abort_, abort_leaves_a_usable_stream);
    tcase_add_test(abort_, host_abort_cancels_all_but_host_functions);
    tcase_add_test(abort_, stop_is_refused_with_reason);
    tcase_add_test(abort_, persistent_task_clean);
    suite_add_tcase(s, abort_);

    TCase *observe = tcase_create("observe");
    tcase_add_checked_fixture(observe, set_up, tear_down);
    tcase_add_test(observe, stream_state_callbacks);
    tcase_add_test(observe, thread_last_task_id);
    tcase_add_test(observe, resource_limit_levels);
    suite_add_tcase(s, observe);

    TCase *events = tcase_create("events");
    tcase_add_checked_fixture(events, set_up, tear_down);
    tcase_add_test(events, record_and_wait_with_flags);
    tcase_add_test(events, event_timestamps);
    suite_add_tcase(s, events);

    TCase *host_funcs = tcase_create("host_funcs");
    tcase_add_checked_fixture(host_funcs, set_up, tear_down);
    tcase_add_test(host_funcs, host_functions_run_on_the_subscribed_thread);
    tcase_add_test(host_funcs, process_host_func_rules);
    suite_add_tcase(s, host_funcs);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
