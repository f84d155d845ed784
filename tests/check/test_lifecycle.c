/* Handles and teardown under concurrent use: racing destroys, destroys
 * while other threads are inside calls on the same object, stale handles
 * whose object's memory was reused, and fork() while threads are inside
 * the library. Every scenario runs many times (ACLCUDA_TEST_ROUNDS, default
 * 2000) and must neither crash nor hang: each call either succeeds or
 * returns ACL's invalid-handle error. */
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "acltest.h"

static int rounds(void)
{
    const char *text = getenv("ACLCUDA_TEST_ROUNDS");
    int n = text ? atoi(text) : 0;
    return n > 0 ? n : 2000;
}

/* ---- racing destroys ---------------------------------------------------------------- */

typedef struct race {
    pthread_barrier_t start;
    void *handle;
    aclError (*destroy)(void *);
    aclError result[2];
    aclrtContext context;
} race;

static aclError destroy_stream(void *h)
{
    return aclrtDestroyStream(h);
}

static aclError destroy_stream_force(void *h)
{
    return aclrtDestroyStreamForce(h);
}

static aclError destroy_event(void *h)
{
    return aclrtDestroyEvent(h);
}

static aclError destroy_buffer(void *h)
{
    return aclDestroyDataBuffer(h);
}

static void *racer(void *arg)
{
    race *r = arg;
    aclrtSetCurrentContext(r->context);
    pthread_barrier_wait(&r->start);
    aclError err = r->destroy(r->handle);
    pthread_barrier_wait(&r->start); /* both results are in before the next round */
    return (void *)(intptr_t)err;
}

/* Two threads destroy one handle at the same moment, `count` times: exactly
 * one succeeds each time, the other gets the invalid-handle error. */
static void race_destroys(void *(*make)(void), aclError (*destroy)(void *), int count)
{
    race r;
    ACL_OK(aclrtGetCurrentContext(&r.context));
    r.destroy = destroy;
    for (int i = 0; i < count; i++) {
        pthread_barrier_init(&r.start, NULL, 2);
        r.handle = make();
        pthread_t other;
        ck_assert_int_eq(pthread_create(&other, NULL, racer, &r), 0);
        void *mine = racer(&r);
        void *theirs;
        pthread_join(other, &theirs);
        pthread_barrier_destroy(&r.start);
        aclError a = (aclError)(intptr_t)mine, b = (aclError)(intptr_t)theirs;
        ck_assert_msg((a == ACL_SUCCESS) != (b == ACL_SUCCESS),
                      "round %d: the two destroys returned %d and %d; exactly one must succeed", i,
                      (int)a, (int)b);
        aclError loser = a == ACL_SUCCESS ? b : a;
        ck_assert_msg(loser == ACL_ERROR_INVALID_PARAM, "round %d: the losing destroy returned %d", i,
                      (int)loser);
    }
    (void)aclGetRecentErrMsg();
}

static void *make_stream(void)
{
    return acltest_new_stream();
}

static void *make_event(void)
{
    aclrtEvent e;
    ACL_OK(aclrtCreateEvent(&e));
    return e;
}

static void *make_buffer(void)
{
    aclDataBuffer *b = aclCreateDataBuffer(NULL, 0);
    ck_assert_ptr_nonnull(b);
    return b;
}

START_TEST(racing_stream_destroys)
{
    race_destroys(make_stream, destroy_stream, rounds() / 2);
    race_destroys(make_stream, destroy_stream_force, rounds() / 2);
}
END_TEST

START_TEST(racing_event_destroys)
{
    race_destroys(make_event, destroy_event, rounds());
}
END_TEST

START_TEST(racing_buffer_destroys)
{
    race_destroys(make_buffer, destroy_buffer, rounds());
}
END_TEST

/* ---- destroy while another thread is inside a call ---------------------------------- */

typedef struct user {
    aclrtContext context;
    aclrtStream stream;
    void *dev;
    atomic_bool stop;
    atomic_int calls;
    aclError bad; /* a result that is neither success nor invalid handle */
} user;

static bool acceptable(aclError err)
{
    return err == ACL_SUCCESS || err == ACL_ERROR_INVALID_PARAM || err == ACL_ERROR_RT_CONTEXT_NULL ||
           err == ACL_ERROR_RT_STREAM_CONTEXT;
}

/* Queues fills and synchronizes the stream until told to stop. */
static void *stream_user(void *arg)
{
    user *u = arg;
    aclrtSetCurrentContext(u->context);
    while (!atomic_load(&u->stop)) {
        aclError err = aclrtMemsetAsync(u->dev, 64, 1, 64, u->stream);
        if (!acceptable(err))
            u->bad = err;
        err = aclrtSynchronizeStream(u->stream);
        if (!acceptable(err))
            u->bad = err;
        atomic_fetch_add(&u->calls, 1);
        if (err != ACL_SUCCESS)
            break;
    }
    (void)aclGetRecentErrMsg();
    return NULL;
}

static void destroy_under_use(aclError (*destroy)(aclrtStream), int count)
{
    user u = {0};
    ACL_OK(aclrtGetCurrentContext(&u.context));
    /* 64 bytes per round: a stream destroyed without waiting (force) may
     * still be filling its round's bytes while the next round's fills. */
    unsigned char *base = NULL;
    ACL_OK(aclrtMalloc((void **)&base, 64 * (size_t)(count > 0 ? count : 1),
                       ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < count; i++) {
        u.dev = base + 64 * (size_t)i;
        u.stream = acltest_new_stream();
        atomic_store(&u.stop, false);
        atomic_store(&u.calls, 0);
        pthread_t thread;
        ck_assert_int_eq(pthread_create(&thread, NULL, stream_user, &u), 0);
        while (atomic_load(&u.calls) < 1 + i % 3)
            sched_yield();
        ACL_OK(destroy(u.stream));
        atomic_store(&u.stop, true);
        pthread_join(thread, NULL);
        ck_assert_msg(u.bad == ACL_SUCCESS, "round %d: a call on the stream returned %d", i, (int)u.bad);
    }
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtFree(base));
}

START_TEST(stream_destroyed_while_in_use)
{
    destroy_under_use(aclrtDestroyStream, rounds() / 4);
}
END_TEST

START_TEST(stream_force_destroyed_while_in_use)
{
    destroy_under_use(aclrtDestroyStreamForce, rounds() / 4);
}
END_TEST

/* Threads create streams, queue work and synchronize in a context that
 * another thread destroys (or whose device it resets, or finalizes). */
typedef struct ctx_user {
    aclrtContext context;
    atomic_bool stop;
    atomic_int calls;
    aclError bad;
} ctx_user;

static void *context_user(void *arg)
{
    ctx_user *u = arg;
    aclrtSetCurrentContext(u->context);
    while (!atomic_load(&u->stop)) {
        aclrtStream s = NULL;
        aclError err = aclrtCreateStream(&s);
        if (err == ACL_SUCCESS) {
            aclError e2 = aclrtSynchronizeStream(s);
            if (!acceptable(e2))
                u->bad = e2;
            e2 = aclrtDestroyStream(s);
            if (!acceptable(e2))
                u->bad = e2;
        } else if (!acceptable(err)) {
            u->bad = err;
        }
        err = aclrtSynchronizeStream(NULL);
        if (!acceptable(err))
            u->bad = err;
        atomic_fetch_add(&u->calls, 1);
    }
    (void)aclGetRecentErrMsg();
    return NULL;
}

enum teardown { TEARDOWN_CONTEXT, TEARDOWN_RESET_FORCE };

static void teardown_under_use(enum teardown how, int count)
{
    enum { USERS = 2 };
    for (int i = 0; i < count; i++) {
        ctx_user u = {0};
        if (how == TEARDOWN_CONTEXT)
            ACL_OK(aclrtCreateContext(&u.context, 0));
        else
            ACL_OK(aclrtGetCurrentContext(&u.context));
        pthread_t threads[USERS];
        for (int t = 0; t < USERS; t++)
            ck_assert_int_eq(pthread_create(&threads[t], NULL, context_user, &u), 0);
        while (atomic_load(&u.calls) < 1 + i % 3)
            sched_yield();
        if (how == TEARDOWN_CONTEXT)
            ACL_OK(aclrtDestroyContext(u.context));
        else
            ACL_OK(aclrtResetDeviceForce(0));
        atomic_store(&u.stop, true);
        for (int t = 0; t < USERS; t++)
            pthread_join(threads[t], NULL);
        ck_assert_msg(u.bad == ACL_SUCCESS, "round %d: a call in the torn-down context returned %d", i,
                      (int)u.bad);
        ACL_OK(aclrtSetDevice(0)); /* the device was reset, or the thread bound the destroyed context */
    }
}

START_TEST(context_destroyed_while_in_use)
{
    teardown_under_use(TEARDOWN_CONTEXT, rounds() / 8);
}
END_TEST

START_TEST(device_reset_while_in_use)
{
    teardown_under_use(TEARDOWN_RESET_FORCE, rounds() / 8);
}
END_TEST

START_TEST(finalize_while_in_use)
{
    for (int i = 0; i < rounds() / 8; i++) {
        ctx_user u = {0};
        ACL_OK(aclrtGetCurrentContext(&u.context));
        pthread_t thread;
        ck_assert_int_eq(pthread_create(&thread, NULL, context_user, &u), 0);
        while (atomic_load(&u.calls) < 1 + i % 3)
            sched_yield();
        ACL_OK(aclFinalize());
        atomic_store(&u.stop, true);
        pthread_join(thread, NULL);
        ck_assert_msg(u.bad == ACL_SUCCESS, "round %d: a call during aclFinalize returned %d", i,
                      (int)u.bad);
        ACL_OK(aclInit(NULL));
        ACL_OK(aclrtSetDevice(0));
    }
}
END_TEST

/* ---- stale handles ------------------------------------------------------------------ */

/* A destroyed handle stays invalid even when a new object of the same kind
 * is made right after (in C programs, often at the same address): a second
 * destroy of the old handle must not destroy the new object. */
START_TEST(stale_handles_are_rejected)
{
    for (int i = 0; i < rounds(); i++) {
        aclrtStream old_stream = acltest_new_stream();
        ACL_OK(aclrtDestroyStream(old_stream));
        aclrtStream new_stream = acltest_new_stream();
        ACL_FAILS_WITH(aclrtDestroyStream(old_stream), ACL_ERROR_INVALID_PARAM);
        ACL_OK(aclrtSynchronizeStream(new_stream));

        aclrtEvent old_event, new_event;
        ACL_OK(aclrtCreateEvent(&old_event));
        ACL_OK(aclrtDestroyEvent(old_event));
        ACL_OK(aclrtCreateEvent(&new_event));
        ACL_FAILS_WITH(aclrtDestroyEvent(old_event), ACL_ERROR_INVALID_PARAM);
        ACL_FAILS_WITH(aclrtRecordEvent(old_event, new_stream), ACL_ERROR_INVALID_PARAM);
        ACL_OK(aclrtRecordEvent(new_event, new_stream));
        ACL_OK(aclrtSynchronizeEvent(new_event));

        ACL_OK(aclrtDestroyEvent(new_event));
        ACL_OK(aclrtDestroyStream(new_stream));
    }
}
END_TEST

/* ---- reclamation while another thread is a reader ------------------------------------ */

/* A thread that has used the library (so that the main thread is no longer
 * its only reader) and then idles until told to end. */
typedef struct idle_reader {
    pthread_barrier_t ready, done;
    aclrtContext context;
} idle_reader;

static void *idle_reader_main(void *arg)
{
    idle_reader *r = arg;
    aclrtSetCurrentContext(r->context);
    aclrtStream s;
    if (aclrtCreateStream(&s) == ACL_SUCCESS) {
        (void)aclrtSynchronizeStream(s);
        (void)aclrtDestroyStream(s);
    }
    pthread_barrier_wait(&r->ready);
    pthread_barrier_wait(&r->done);
    return NULL;
}

static pthread_t idle_reader_start(idle_reader *r)
{
    pthread_barrier_init(&r->ready, NULL, 2);
    pthread_barrier_init(&r->done, NULL, 2);
    ACL_OK(aclrtGetCurrentContext(&r->context));
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, idle_reader_main, r), 0);
    pthread_barrier_wait(&r->ready);
    return thread;
}

static void idle_reader_stop(idle_reader *r, pthread_t thread)
{
    pthread_barrier_wait(&r->done);
    pthread_join(thread, NULL);
    pthread_barrier_destroy(&r->ready);
    pthread_barrier_destroy(&r->done);
}

/* With another reader, destroyed objects may be freed later, in batches:
 * the streams count as gone as soon as they are destroyed all the same. */
START_TEST(stream_count_returns_at_destroy_with_other_readers)
{
    idle_reader r;
    pthread_t thread = idle_reader_start(&r);
    uint32_t before, during, after;
    ACL_OK(aclrtGetStreamAvailableNum(&before));
    aclrtStream streams[50];
    for (int i = 0; i < 50; i++)
        streams[i] = acltest_new_stream();
    ACL_OK(aclrtGetStreamAvailableNum(&during));
    ck_assert_uint_eq(during, before - 50);
    for (int i = 0; i < 50; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
    ACL_OK(aclrtGetStreamAvailableNum(&after));
    ck_assert_uint_eq(after, before);
    idle_reader_stop(&r, thread);
}
END_TEST

/* The slot a handle names (handle.c: generation << 32 | slot << 8 | kind). */
static unsigned handle_slot(const void *h)
{
    return (unsigned)(((uintptr_t)h >> 8) & 0xffffff);
}

/* Freed objects give their slots back, with another reader as without
 * one: thousands of create/destroy cycles use a bounded set of slots,
 * and a stale handle is refused throughout. */
START_TEST(destroyed_objects_are_reclaimed_with_other_readers)
{
    for (int readers = 1; readers <= 2; readers++) {
        idle_reader r;
        pthread_t thread = readers == 2 ? idle_reader_start(&r) : 0;
        unsigned highest = 0;
        for (int i = 0; i < 5000; i++) {
            aclrtEvent e;
            ACL_OK(aclrtCreateEvent(&e));
            if (handle_slot(e) > highest)
                highest = handle_slot(e);
            ACL_OK(aclrtDestroyEvent(e));
            ACL_FAILS_WITH(aclrtDestroyEvent(e), ACL_ERROR_INVALID_PARAM);
        }
        ck_assert_msg(highest < 1024, "%d reader(s): slots up to %u in use", readers, highest);
        if (readers == 2)
            idle_reader_stop(&r, thread);
    }
}
END_TEST

/* ---- teardown with waits nothing will release -------------------------------------------- */

static void set_flag(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

static uint64_t *zeroed_word(void)
{
    void *w = NULL;
    ACL_OK(aclrtMalloc(&w, sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(w, sizeof(uint64_t), 0, sizeof(uint64_t)));
    return w;
}

/* The device is set again and a copy round-trips through it. */
static void device_usable_again(void)
{
    ACL_OK(aclrtSetDevice(0));
    uint64_t out = 0x1122334455667788, back = 0;
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, sizeof out, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev, sizeof out, &out, sizeof out, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(&back, sizeof back, dev, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(back, out);
    ACL_OK(aclrtFree(dev));
}

/* Stream b waits for an event that stream a records after a value wait
 * nothing will satisfy: a force reset releases both, and b's later work
 * runs. */
START_TEST(reset_force_releases_chained_waits)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEvent(&e));
    uint64_t *w = zeroed_word();
    atomic_int ran = 0;
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, a));
    ACL_OK(aclrtRecordEvent(e, a));
    ACL_OK(aclrtStreamWaitEvent(b, e));
    ACL_OK(aclrtLaunchHostFunc(b, set_flag, &ran));
    ACL_OK(aclrtResetDeviceForce(0));
    ck_assert_int_eq(atomic_load(&ran), 1);
    ACL_OK(aclrtDestroyEvent(e));
    device_usable_again();
}
END_TEST

/* The work after a wait has not run a while after it was queued: the wait
 * holds the stream. */
static void still_waiting(atomic_int *ran)
{
    nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
    ck_assert_int_eq(atomic_load(ran), 0);
}

/* Work queued on s after model (launched there, waiting) has not run: a
 * force reset releases the model and the work runs; then the model goes
 * and the device works again. */
static void force_reset_runs_what_follows(aclrtStream s, aclmdlRI model)
{
    atomic_int ran = 0;
    ACL_OK(aclrtLaunchHostFunc(s, set_flag, &ran));
    still_waiting(&ran);
    ACL_OK(aclrtResetDeviceForce(0));
    ck_assert_int_eq(atomic_load(&ran), 1);
    ACL_OK(aclmdlRIDestroy(model));
    device_usable_again();
}

/* A model whose captured value waits nothing will satisfy is running: a
 * force reset releases them, the second (on the same word) after the
 * first has seen its value, and the work after the model runs. */
START_TEST(reset_force_releases_a_model_waiting)
{
    aclrtStream s = acltest_new_stream();
    uint64_t *w = zeroed_word();
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclrtValueWait(w, 2, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    force_reset_runs_what_follows(s, model);
}
END_TEST

/* The same with notify waits inside the model, one without a timeout and
 * one with a timeout far longer than the test. */
START_TEST(reset_force_releases_a_model_waiting_on_notifies)
{
    aclrtStream s = acltest_new_stream();
    aclrtNotify plain, timed;
    ACL_OK(aclrtCreateNotify(&plain, 0));
    ACL_OK(aclrtCreateNotify(&timed, 0));
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtWaitAndResetNotify(plain, s, 0));
    ACL_OK(aclrtWaitAndResetNotify(timed, s, 3600));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    force_reset_runs_what_follows(s, model);
}
END_TEST

/* A model waiting on a notify is launched three times: each launch's wait
 * is released in turn (a released flag is consumed by the wait before the
 * next launch needs it again). */
START_TEST(reset_force_releases_every_launch_of_a_model)
{
    aclrtStream s = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    for (int i = 0; i < 3; i++)
        ACL_OK(aclmdlRIExecuteAsync(model, s));
    force_reset_runs_what_follows(s, model);
}
END_TEST

/* A wait inside a conditional task's branch. Host backend only: a CUDA
 * conditional body takes no stream memory operations (porting.md). */
START_TEST(reset_force_releases_a_wait_in_a_branch)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream();
    uint64_t *w = zeroed_word();
    aclmdlRI parent = NULL, branch = NULL, model = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &parent));
    aclmdlRICondHandle cond = NULL;
    ACL_OK(aclmdlRICondHandleCreate(parent, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &cond));
    aclmdlRICondTaskParams params = {
        .handle = cond, .type = ACL_MODEL_RI_COND_TYPE_IF, .size = 1, .modelRIArray = &branch};
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    ACL_OK(aclmdlRICaptureToModelRIBegin(body, branch, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, body));
    ACL_OK(aclmdlRICaptureEnd(body, &branch));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    force_reset_runs_what_follows(s, model);
}
END_TEST

/* A wait task given another word before the run: the new word is the one
 * released, and the old one is left alone. */
START_TEST(reset_force_releases_an_updated_wait)
{
    aclrtStream s = acltest_new_stream();
    uint64_t *old_word = zeroed_word(), *new_word = zeroed_word();
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtValueWait(old_word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    uint32_t n = 1;
    aclmdlRITask task;
    ACL_OK(aclmdlRIGetTasksByStream(s, &task, &n));
    ck_assert_uint_eq(n, 1);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(task, &p));
    ck_assert_int_eq(p.type, ACL_MODEL_RI_TASK_VALUE_WAIT);
    p.valueWaitTaskParams.devAddr = new_word;
    p.valueWaitTaskParams.value = 7;
    ACL_OK(aclmdlRITaskSetParams(task, &p));
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    force_reset_runs_what_follows(s, model);
    uint64_t old_now = 1;
    ACL_OK(
        aclrtMemcpy(&old_now, sizeof old_now, old_word, sizeof old_now, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(old_now, 0);
}
END_TEST

/* A model launched while another stream is captured: its wait becomes
 * part of the outer model, and is released when that one runs. Host
 * backend only: CUDA cannot capture a graph's launch (test_graph). */
START_TEST(reset_force_releases_a_wait_of_a_model_in_a_model)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    aclrtStream s = acltest_new_stream(), t = acltest_new_stream();
    uint64_t *w = zeroed_word();
    aclmdlRI inner, outer;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
    ACL_OK(aclmdlRICaptureEnd(s, &inner));
    ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclmdlRIExecuteAsync(inner, t));
    ACL_OK(aclmdlRICaptureEnd(t, &outer));
    ACL_OK(aclmdlRIExecuteAsync(outer, t));
    force_reset_runs_what_follows(t, outer);
    ACL_OK(aclmdlRIDestroy(inner));
}
END_TEST

/* A model whose WHILE task's condition stays 1, captured on s and launched
 * there: it loops for ever, filling the word at scratch. */
static aclmdlRI looping_model(aclrtStream s, aclrtStream body, void *scratch)
{
    aclmdlRI parent = NULL, loop = NULL, model = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &parent));
    aclmdlRICondHandle cond = NULL;
    ACL_OK(aclmdlRICondHandleCreate(parent, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &cond));
    aclmdlRICondTaskParams params = {
        .handle = cond, .type = ACL_MODEL_RI_COND_TYPE_WHILE, .size = 1, .modelRIArray = &loop};
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    ACL_OK(aclmdlRICaptureToModelRIBegin(body, loop, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(scratch, 8, 1, 8, body));
    ACL_OK(aclmdlRICaptureEnd(body, &loop));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    return model;
}

/* A force reset stops a model looping for ever, and the work after it
 * runs. */
START_TEST(reset_force_stops_a_model_looping)
{
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream();
    uint64_t *scratch = zeroed_word();
    aclmdlRI model = looping_model(s, body, scratch);
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    force_reset_runs_what_follows(s, model);
}
END_TEST

/* aclmdlRIAbort stops a model looping for ever: its stream synchronizes. */
START_TEST(abort_stops_a_model_looping)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream();
    uint64_t *scratch = zeroed_word();
    aclmdlRI model = looping_model(s, body, scratch);
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ck_assert_int_eq(aclrtSynchronizeStreamWithTimeout(s, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclmdlRIAbort(model));
    ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 10000));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(scratch));
}
END_TEST

/* aclmdlRIAbort of a model run inside another (a run launched while the
 * outer was captured) stops it there; an abort of the outer stops the
 * inner's loop too. Host backend only: CUDA cannot capture a launch. */
START_TEST(abort_stops_a_model_looping_inside_another)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    aclrtStream s = acltest_new_stream(), body = acltest_new_stream(), t = acltest_new_stream();
    uint64_t *scratch = zeroed_word();
    aclmdlRI inner = looping_model(s, body, scratch), outer = NULL;
    ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclmdlRIExecuteAsync(inner, t));
    ACL_OK(aclmdlRICaptureEnd(t, &outer));
    ACL_OK(aclmdlRIExecuteAsync(outer, t));
    ck_assert_int_eq(aclrtSynchronizeStreamWithTimeout(t, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclmdlRIAbort(outer));
    ACL_OK(aclrtSynchronizeStreamWithTimeout(t, 10000));
    ACL_OK(aclmdlRIDestroy(outer));
    ACL_OK(aclmdlRIDestroy(inner));
    ACL_OK(aclrtFree(scratch));
}
END_TEST

static void count_call(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* An abort of a model stops the runs begun before it, not the runs of a
 * model that holds it which begin later. Host backend only, as above. */
START_TEST(abort_of_an_inner_model_spares_later_outer_runs)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return;
    aclrtStream s = acltest_new_stream(), t = acltest_new_stream();
    atomic_int calls = 0;
    aclmdlRI inner = NULL, outer = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtLaunchHostFunc(s, count_call, &calls));
    ACL_OK(aclmdlRICaptureEnd(s, &inner));
    ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclmdlRIExecuteAsync(inner, t));
    ACL_OK(aclmdlRICaptureEnd(t, &outer));
    ACL_OK(aclmdlRIExecuteAsync(outer, t));
    ACL_OK(aclrtSynchronizeStream(t));
    ck_assert_int_eq(atomic_load(&calls), 1);
    ACL_OK(aclmdlRIAbort(inner));
    for (int i = 0; i < 3; i++)
        ACL_OK(aclmdlRIExecuteAsync(outer, t));
    ACL_OK(aclrtSynchronizeStream(t));
    ck_assert_int_eq(atomic_load(&calls), 4);
    ACL_OK(aclmdlRIDestroy(outer));
    ACL_OK(aclmdlRIDestroy(inner));
}
END_TEST

/* aclrtDestroyContext after aclrtDestroyStreamForce left a wait of the
 * context's stream: the work before the wait has run when it returns. */
START_TEST(destroy_context_releases_a_wait_of_a_force_destroyed_stream)
{
    aclrtContext ctx;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream s = acltest_new_stream();
    uint64_t *w = zeroed_word();
    atomic_int ran = 0;
    ACL_OK(aclrtLaunchHostFunc(s, set_flag, &ran));
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclrtDestroyStreamForce(s));
    ACL_OK(aclrtDestroyContext(ctx));
    ck_assert_int_eq(atomic_load(&ran), 1);
    device_usable_again();
}
END_TEST

/* ---- fork while other threads are inside the library -------------------------------- */

static void *busy_user(void *arg)
{
    atomic_bool *stop = arg;
    ACL_OK(aclrtSetDevice(0));
    while (!atomic_load(stop)) {
        aclrtStream s;
        if (aclrtCreateStream(&s) == ACL_SUCCESS) {
            (void)aclrtDestroyStream(s);
        }
        void *host;
        if (aclrtMallocHost(&host, 4096) == ACL_SUCCESS)
            (void)aclrtFreeHost(host);
        (void)aclrtSynchronizeDevice();
        aclrtEvent e;
        if (aclrtCreateEvent(&e) == ACL_SUCCESS)
            (void)aclrtDestroyEvent(e);
    }
    (void)aclrtResetDevice(0);
    (void)aclGetRecentErrMsg();
    return NULL;
}

/* The child uses the library (on the host backend it can; on CUDA a child
 * cannot use the parent's GPU context, so it only calls what needs none)
 * and must finish within a few seconds: no lock was inherited locked. */
static void child_body(void)
{
    alarm(10);
    void *host;
    if (aclrtMallocHost(&host, 4096) == ACL_SUCCESS)
        (void)aclrtFreeHost(host);
    aclDataBuffer *b = aclCreateDataBuffer(NULL, 0);
    if (b)
        (void)aclDestroyDataBuffer(b);
    (void)aclGetRecentErrMsg();
    if (strcmp(aclcudaGetBackendName(), "host") == 0) {
        if (aclrtSetDevice(0) != ACL_SUCCESS)
            _exit(3);
        aclrtStream s;
        if (aclrtCreateStream(&s) != ACL_SUCCESS || aclrtSynchronizeStream(s) != ACL_SUCCESS ||
            aclrtDestroyStream(s) != ACL_SUCCESS || aclrtSynchronizeDevice() != ACL_SUCCESS)
            _exit(4);
    }
    _exit(0);
}

START_TEST(fork_while_threads_are_inside)
{
    enum { USERS = 3 };
    atomic_bool stop = false;
    pthread_t threads[USERS];
    for (int t = 0; t < USERS; t++)
        ck_assert_int_eq(pthread_create(&threads[t], NULL, busy_user, &stop), 0);
    int children = rounds() / 10 < 150 ? rounds() / 10 : 150;
    for (int i = 0; i < children; i++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
            child_body();
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "child %d of %d %s %d", i, children,
                      WIFSIGNALED(status) ? "was killed by signal (SIGALRM: it hung)" : "exited with",
                      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    atomic_store(&stop, true);
    for (int t = 0; t < USERS; t++)
        pthread_join(threads[t], NULL);
}
END_TEST

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    (void)aclrtResetDeviceForce(0);
    (void)aclFinalize();
}

int main(void)
{
    Suite *s = suite_create("lifecycle");
    TCase *races = tcase_create("races");
    tcase_set_tags(races, "concurrent");
    tcase_add_checked_fixture(races, set_up, tear_down);
    tcase_set_timeout(races, 240);
    tcase_add_test(races, racing_stream_destroys);
    tcase_add_test(races, racing_event_destroys);
    tcase_add_test(races, racing_buffer_destroys);
    tcase_add_test(races, stream_destroyed_while_in_use);
    tcase_add_test(races, stream_force_destroyed_while_in_use);
    tcase_add_test(races, context_destroyed_while_in_use);
    tcase_add_test(races, device_reset_while_in_use);
    tcase_add_test(races, finalize_while_in_use);
    suite_add_tcase(s, races);

    TCase *stale = tcase_create("stale");
    tcase_add_checked_fixture(stale, set_up, tear_down);
    tcase_set_timeout(stale, 120);
    tcase_add_test(stale, stale_handles_are_rejected);
    suite_add_tcase(s, stale);

    TCase *reclaim = tcase_create("reclaim");
    tcase_set_tags(reclaim, "concurrent");
    tcase_add_checked_fixture(reclaim, set_up, tear_down);
    tcase_add_test(reclaim, stream_count_returns_at_destroy_with_other_readers);
    tcase_add_test(reclaim, destroyed_objects_are_reclaimed_with_other_readers);
    suite_add_tcase(s, reclaim);

    /* The hang guard: a teardown that waits for the waits never returns. */
    TCase *teardown = tcase_create("teardown");
    tcase_add_checked_fixture(teardown, set_up, tear_down);
    tcase_set_timeout(teardown, 20);
    tcase_add_test(teardown, reset_force_releases_chained_waits);
    tcase_add_test(teardown, reset_force_releases_a_model_waiting);
    tcase_add_test(teardown, reset_force_releases_a_model_waiting_on_notifies);
    tcase_add_test(teardown, reset_force_releases_every_launch_of_a_model);
    tcase_add_test(teardown, reset_force_releases_a_wait_in_a_branch);
    tcase_add_test(teardown, reset_force_releases_an_updated_wait);
    tcase_add_test(teardown, reset_force_releases_a_wait_of_a_model_in_a_model);
    tcase_add_test(teardown, reset_force_stops_a_model_looping);
    tcase_add_test(teardown, abort_stops_a_model_looping);
    tcase_add_test(teardown, abort_stops_a_model_looping_inside_another);
    tcase_add_test(teardown, abort_of_an_inner_model_spares_later_outer_runs);
    tcase_add_test(teardown, destroy_context_releases_a_wait_of_a_force_destroyed_stream);
    suite_add_tcase(s, teardown);

    TCase *forked = tcase_create("fork");
    tcase_set_tags(forked, "fork");
    tcase_add_checked_fixture(forked, set_up, tear_down);
    tcase_set_timeout(forked, 240);
    tcase_add_test(forked, fork_while_threads_are_inside);
    suite_add_tcase(s, forked);
    return acltest_run(s);
}
