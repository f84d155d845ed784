/* Helpers shared by the Check suites. Suites use the public API only, so
 * they run unchanged on every backend (ACLCUDA_BACKEND=cuda|host). Each test
 * runs in its own forked process: main() must not call ACL before
 * srunner_run_all, so no backend (and no CUDA) is initialised in the parent. */
#ifndef ACLTEST_H
#define ACLTEST_H

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

/* Asserts that an ACL call succeeded, showing the library's message if not. */
#define ACL_OK(expr)                                                                         \
    do {                                                                                     \
        aclError acltest_ret_ = (expr);                                                      \
        if (acltest_ret_ != ACL_SUCCESS) {                                                   \
            const char *acltest_msg_ = aclGetRecentErrMsg();                                 \
            ck_abort_msg("%s returned %d: %s", #expr, (int)acltest_ret_,                     \
                         acltest_msg_ ? acltest_msg_ : "(no message)");                      \
        }                                                                                    \
    } while (0)

/* Asserts an exact error code and that a message was left for the user. */
#define ACL_FAILS_WITH(expr, code)                                                           \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        aclError acltest_ret_ = (expr);                                                      \
        ck_assert_msg(acltest_ret_ == (aclError)(code), "%s returned %d, expected %s (%d)",   \
                      #expr, (int)acltest_ret_, #code, (int)(code));                         \
        ck_assert_msg(aclGetRecentErrMsg() != NULL, "%s left no error message", #expr);     \
    } while (0)

/* Asserts a failure with a message, where ACL documents no exact code. */
#define ACL_FAILS(expr)                                                                      \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        aclError acltest_ret_ = (expr);                                                      \
        ck_assert_msg(acltest_ret_ != ACL_SUCCESS, "%s succeeded, expected an error", #expr); \
        ck_assert_msg(aclGetRecentErrMsg() != NULL, "%s left no error message", #expr);     \
    } while (0)

/* Runs body(arg) on a new thread and waits for it. */
static inline void acltest_run_thread(void *(*body)(void *), void *arg)
{
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, body, arg), 0);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
}

static inline aclrtStream acltest_new_stream(void)
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ck_assert_ptr_nonnull(stream);
    return stream;
}

/* Fixture: device 0 set for the test, reset afterwards. */
static inline void acltest_set_device(void)
{
    ACL_OK(aclrtSetDevice(0));
}

static inline void acltest_reset_device(void)
{
    ACL_OK(aclrtResetDevice(0));
}

/* A gate holds a stream deterministically: every task queued behind it waits
 * until the test opens it. Built on aclrtLaunchHostFunc. Keep one gate
 * closed at a time (or open them in the order the streams reach them): CUDA
 * runs the host functions of all streams on one thread, so a gate that is
 * reached first and opened last holds every other gate back. Compare buffers
 * whole and assert once: a ck_assert per byte is slow. */
typedef struct acltest_gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool open;
    bool reached; /* the stream has reached the gate */
} acltest_gate;

static inline void acltest_gate_body(void *arg)
{
    acltest_gate *g = arg;
    pthread_mutex_lock(&g->lock);
    g->reached = true;
    pthread_cond_broadcast(&g->cond);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static inline void acltest_gate_close(acltest_gate *g, aclrtStream stream)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    g->open = false;
    g->reached = false;
    ACL_OK(aclrtLaunchHostFunc(stream, acltest_gate_body, g));
}

static inline void acltest_gate_wait_reached(acltest_gate *g)
{
    pthread_mutex_lock(&g->lock);
    while (!g->reached)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static inline void acltest_gate_open(acltest_gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* Runs one suite, each test forked unless CK_FORK=no (for slow checkers), and turns the result into an exit code. */
static inline int acltest_run(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_FORK_GETENV); /* CK_FORK=no runs all in one process */
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
