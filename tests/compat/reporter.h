/* The callback tests' fixture: a report thread (the thread pyACL's samples
 * start to run aclrtProcessReport in a loop) that serves whatever stream a
 * test subscribes it to, a stream per test, and a log of the callbacks that
 * ran, in order, with the thread each ran on. Public API only. */
#ifndef COMPAT_REPORTER_H
#define COMPAT_REPORTER_H

#include <stdint.h>

#include "compat.h"

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

static inline bool reporter_stopping(void)
{
    pthread_mutex_lock(&reporter.lock);
    bool stop = reporter.stop;
    pthread_mutex_unlock(&reporter.lock);
    return stop;
}

static inline void *reporter_main(void *unused)
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

static inline uint64_t reporter_id(void)
{
    return (uint64_t)reporter.thread;
}

/* Subscribes the fixture's report thread to stream and wakes it. */
static inline void subscribe(aclrtStream stream)
{
    ACL_OK(aclrtSubscribeReport(reporter_id(), stream));
    pthread_mutex_lock(&reporter.lock);
    reporter.subscriptions++;
    pthread_cond_broadcast(&reporter.cond);
    pthread_mutex_unlock(&reporter.lock);
}

static aclrtStream stream;

static inline void set_up(void)
{
    ACL_OK(aclInit(NULL));
    compat_set_device();
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtGetCurrentContext(&reporter.ctx));
    reporter.stop = false;
    reporter.subscriptions = 0;
    ck_assert_int_eq(pthread_create(&reporter.thread, NULL, reporter_main, NULL), 0);
}

static inline void tear_down(void)
{
    pthread_mutex_lock(&reporter.lock);
    reporter.stop = true;
    pthread_cond_broadcast(&reporter.cond);
    pthread_mutex_unlock(&reporter.lock);
    ck_assert_int_eq(pthread_join(reporter.thread, NULL), 0);
    ACL_OK(aclrtDestroyStream(stream));
    compat_reset_device();
    ACL_OK(aclFinalize());
}

static inline uint64_t self_id(void)
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

static inline void log_call(int value)
{
    pthread_mutex_lock(&calls.lock);
    ck_assert_uint_lt(calls.count, sizeof calls.values / sizeof calls.values[0]);
    calls.threads[calls.count] = pthread_self();
    calls.values[calls.count++] = value;
    pthread_cond_broadcast(&calls.cond);
    pthread_mutex_unlock(&calls.lock);
}

static inline size_t call_count(void)
{
    pthread_mutex_lock(&calls.lock);
    size_t n = calls.count;
    pthread_mutex_unlock(&calls.lock);
    return n;
}

static inline void wait_for_calls(size_t n)
{
    pthread_mutex_lock(&calls.lock);
    while (calls.count < n)
        pthread_cond_wait(&calls.cond, &calls.lock);
    pthread_mutex_unlock(&calls.lock);
}

/* userData is the value to record. */
static inline void record(void *userData)
{
    log_call((int)(intptr_t)userData);
}

#define VALUE(v) ((void *)(intptr_t)(v))

#endif
