/* The compatibility suite's helpers. Everything here uses ACL's public
 * headers only (acl/acl.h), so the suite builds against any libascendcl:
 * acl-cuda from any prefix, or CANN's own.
 *
 * Every test pins one documented behaviour and names it, with a short
 * reference to where ACL documents it:
 *
 *     COMPAT_TEST(second_init_reports_repeat,
 *                 "a second aclInit returns ACL_ERROR_REPEAT_INITIALIZE (100002)",
 *                 "acl_rt.h aclInit; API ref aclInit (repeated init)")
 *     {
 *         ...
 *     }
 *
 * A failing assertion inside it, Check's own ck_assert_* included, ends its
 * message with "[pins: <behaviour> | ref: <reference>]", so a failure on
 * either implementation can be traced to the documentation.
 *
 * Each test runs in its own forked process: main() must not call ACL before
 * srunner_run_all, so no backend (and no device runtime) is initialised in
 * the parent. Requires Check 0.11 or newer (tags). */
#ifndef COMPAT_H
#define COMPAT_H

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"

#ifndef CK_ATTRIBUTE_NORETURN
#define CK_ATTRIBUTE_NORETURN __attribute__((noreturn))
#endif
#ifndef CK_ATTRIBUTE_FORMAT
#define CK_ATTRIBUTE_FORMAT(a, b, c) __attribute__((format(a, b, c)))
#endif
#ifndef CK_ATTRIBUTE_UNUSED
#define CK_ATTRIBUTE_UNUSED __attribute__((unused))
#endif

/* ---- what the running test pins ------------------------------------------------ */

static char compat_pin_behaviour[512];
static char compat_pin_ref[256];
static char compat_pin_test[128];
static char compat_pin_file[128];

static inline void compat_pin(const char *file, const char *test, const char *behaviour,
                              const char *ref)
{
    const char *slash = strrchr(file, '/');
    snprintf(compat_pin_file, sizeof compat_pin_file, "%s", slash ? slash + 1 : file);
    snprintf(compat_pin_test, sizeof compat_pin_test, "%s", test);
    snprintf(compat_pin_behaviour, sizeof compat_pin_behaviour, "%s", behaviour);
    snprintf(compat_pin_ref, sizeof compat_pin_ref, "%s", ref);
}

/* Every Check assertion ends in _ck_assert_failed(file, line, expr, msg,
 * ...). This stand-in formats the message, adds what the test pins and
 * hands the result to Check's own function. */
static void compat_assert_failed(const char *file, int line, const char *expr, const char *msg,
                                 ...) CK_ATTRIBUTE_NORETURN;
static void compat_assert_failed(const char *file, int line, const char *expr, const char *msg,
                                 ...)
{
    char text[2048];
    if (msg) {
        va_list ap;
        va_start(ap, msg);
        vsnprintf(text, sizeof text, msg, ap);
        va_end(ap);
    } else {
        snprintf(text, sizeof text, "%s", expr);
    }
    if (compat_pin_behaviour[0])
        _ck_assert_failed(file, line, expr, "%s [pins: %s | ref: %s]", text,
                          compat_pin_behaviour, compat_pin_ref);
    _ck_assert_failed(file, line, expr, "%s", text);
}
#define _ck_assert_failed(file, line, expr, ...) compat_assert_failed(file, line, expr, __VA_ARGS__)

/* A test that names what it pins. The body follows as a block, without
 * END_TEST. Works with the START_TEST/END_TEST of every Check version. */
#define COMPAT_TEST(name, behaviour, ref)                                                    \
    static void name##_pinned(int _i);                                                       \
    START_TEST(name)                                                                         \
    {                                                                                        \
        compat_pin(__FILE__, #name, (behaviour), (ref));                                     \
        name##_pinned(_i);                                                                   \
    }                                                                                        \
    END_TEST                                                                                 \
    static void name##_pinned(int _i CK_ATTRIBUTE_UNUSED)

/* ---- skips ----------------------------------------------------------------------- */

/* Records that the running test could not check its behaviour here (too
 * few devices, say) and lets it pass; the summary counts it as skipped.
 * Check itself has no skip: the record goes to $COMPAT_SKIP_FILE. */
static inline void compat_skip(const char *fmt, ...) CK_ATTRIBUTE_FORMAT(printf, 1, 2);
static inline void compat_skip(const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    printf("SKIP %s:%s: %s\n", compat_pin_file, compat_pin_test, reason);
    fflush(stdout);
    const char *path = getenv("COMPAT_SKIP_FILE");
    if (!path || !*path)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0)
        return;
    char line[800];
    int n = snprintf(line, sizeof line, "%s\t%s\t%s\n", compat_pin_file, compat_pin_test, reason);
    if (n > 0)
        (void)!write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    close(fd);
}

#define COMPAT_SKIP(...)                                                                     \
    do {                                                                                     \
        compat_skip(__VA_ARGS__);                                                            \
        return;                                                                              \
    } while (0)

/* ---- ACL results ------------------------------------------------------------------- */

/* Asserts that an ACL call succeeded, showing the library's message if not. */
#define ACL_OK(expr)                                                                         \
    do {                                                                                     \
        aclError compat_ret_ = (expr);                                                       \
        if (compat_ret_ != ACL_SUCCESS) {                                                    \
            const char *compat_msg_ = aclGetRecentErrMsg();                                  \
            ck_abort_msg("%s returned %d: %s", #expr, (int)compat_ret_,                      \
                         compat_msg_ ? compat_msg_ : "(no message)");                        \
        }                                                                                    \
    } while (0)

/* Asserts an exact error code and that a message was left for the user
 * (aclGetRecentErrMsg: "returns the error description of failed calls"). */
#define ACL_FAILS_WITH(expr, code)                                                           \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        aclError compat_ret_ = (expr);                                                       \
        ck_assert_msg(compat_ret_ == (aclError)(code), "%s returned %d, expected %s (%d)",    \
                      #expr, (int)compat_ret_, #code, (int)(code));                          \
        ck_assert_msg(aclGetRecentErrMsg() != NULL, "%s left no error message", #expr);     \
    } while (0)

/* Asserts a failure with a message, where ACL documents no exact code. */
#define ACL_FAILS(expr)                                                                      \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        aclError compat_ret_ = (expr);                                                       \
        ck_assert_msg(compat_ret_ != ACL_SUCCESS, "%s succeeded, expected an error", #expr);  \
        ck_assert_msg(aclGetRecentErrMsg() != NULL, "%s left no error message", #expr);     \
    } while (0)

/* ---- fixtures and small helpers ------------------------------------------------------ */

static inline void compat_init(void)
{
    ACL_OK(aclInit(NULL));
}

static inline void compat_finalize(void)
{
    ACL_OK(aclFinalize());
}

/* Fixture: device 0 set for the test, reset afterwards. */
static inline void compat_set_device(void)
{
    ACL_OK(aclrtSetDevice(0));
}

static inline void compat_reset_device(void)
{
    ACL_OK(aclrtResetDevice(0));
}

/* Fixture: aclInit and device 0, undone afterwards. */
static inline void compat_set_up(void)
{
    compat_init();
    compat_set_device();
}

static inline void compat_tear_down(void)
{
    compat_reset_device();
    compat_finalize();
}

static inline uint32_t compat_device_count(void)
{
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    return count;
}

/* Runs body(arg) on a new thread and waits for it. */
static inline void compat_run_thread(void *(*body)(void *), void *arg)
{
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, body, arg), 0);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
}

static inline aclrtStream compat_new_stream(void)
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ck_assert_ptr_nonnull(stream);
    return stream;
}

static inline void *compat_device_buffer(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static inline uint8_t *compat_host_buffer(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMallocHost(&p, size));
    return p;
}

/* One assertion per buffer: every ck_assert records a checkpoint, too slow
 * per byte. */
/* aclrtStreamQuery's answer, which must be a success. */
static inline aclrtStreamStatus compat_stream_status(aclrtStream s)
{
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    return st;
}

static inline void compat_assert_filled(const void *buf, size_t size, uint8_t value)
{
    const uint8_t *p = buf;
    size_t i = 0;
    while (i < size && p[i] == value)
        i++;
    ck_assert_msg(i == size, "byte %zu of %zu is 0x%02x, expected 0x%02x", i, size,
                  i < size ? p[i] : 0, value);
}

/* ---- gates -------------------------------------------------------------------------- */

/* A gate holds a stream deterministically: every task queued behind it waits
 * until the test opens it. Built on aclrtLaunchHostFunc (a host function
 * runs in stream order and holds the stream until it returns). Keep one
 * gate closed at a time (or open them in the order the streams reach them):
 * an implementation may run the host functions of all streams on one
 * thread, so a gate that is reached first and opened last holds every
 * other gate back. */
typedef struct compat_gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool open;
    bool reached; /* the stream has reached the gate */
} compat_gate;

static inline void compat_gate_body(void *arg)
{
    compat_gate *g = arg;
    pthread_mutex_lock(&g->lock);
    g->reached = true;
    pthread_cond_broadcast(&g->cond);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static inline void compat_gate_close(compat_gate *g, aclrtStream stream)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    g->open = false;
    g->reached = false;
    ACL_OK(aclrtLaunchHostFunc(stream, compat_gate_body, g));
}

static inline void compat_gate_wait_reached(compat_gate *g)
{
    pthread_mutex_lock(&g->lock);
    while (!g->reached)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static inline void compat_gate_open(compat_gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* ---- running ---------------------------------------------------------------------------- */

/* Runs one suite, each test forked unless CK_FORK=no, and turns the result
 * into an exit code. Check writes TAP to $CK_TAP_LOG_FILE_NAME and its XML
 * to $CK_XML_LOG_FILE_NAME when they are set; CK_EXCLUDE_TAGS /
 * CK_INCLUDE_TAGS pick groups ("unknown", "hostile", "concurrent"). */
static inline int compat_run(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_FORK_GETENV);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Each area file ends in COMPAT_MAIN(area), which defines main() unless the
 * file is compiled into acl-cuda's own bad-argument coverage check
 * (COMPAT_NO_MAIN, see bad_args.h). */
#ifdef COMPAT_NO_MAIN
#define COMPAT_MAIN(area)
#else
#define COMPAT_MAIN(area)                                                                    \
    int main(void)                                                                           \
    {                                                                                        \
        return compat_run(compat_suite_##area());                                            \
    }
#endif

#endif
