/* aclGetRecentErrMsg (thread and process level), aclrtGetLastError /
 * aclrtPeekAtLastError, and the error every declared but unimplemented
 * function gives. */
#include <errno.h>
#include <unistd.h>

#include "acltest.h"

/* A call that fails in the ACL layer and one that fails in the runtime
 * layer, each with a fixed code. */
#define FAIL_PARAM() aclrtGetDeviceCount(NULL)
#define FAIL_RUNTIME() aclrtSetDevice(-1)

static void init_plain(void)
{
    ACL_OK(aclInit(NULL));
}

static void finalize(void)
{
    ACL_OK(aclFinalize());
}

static void init_process_level(void)
{
    char path[] = "/tmp/acltest-errors-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
    static const char json[] = "{\"err_msg_mode\": \"1\"}";
    ck_assert_int_eq(write(fd, json, sizeof json - 1), (ssize_t)(sizeof json - 1));
    close(fd);
    aclError ret = aclInit(path);
    unlink(path);
    ACL_OK(ret);
}

static void run_thread(void *(*body)(void *), void *arg)
{
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, body, arg), 0);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
}

START_TEST(nothing_pending_is_null)
{
    ck_assert_ptr_null(aclGetRecentErrMsg());
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_ptr_null(aclGetRecentErrMsg());
}
END_TEST

START_TEST(message_cleared_when_read)
{
    ck_assert_int_eq(FAIL_PARAM(), ACL_ERROR_INVALID_PARAM);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_int_gt(strlen(msg), 0);
    ck_assert_ptr_null(aclGetRecentErrMsg());
}
END_TEST

START_TEST(success_does_not_clear_message)
{
    ck_assert_int_eq(FAIL_PARAM(), ACL_ERROR_INVALID_PARAM);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}
END_TEST

/* Reads the pending message and returns a copy (NULL if none). */
static char *take_message(void)
{
    const char *msg = aclGetRecentErrMsg();
    return msg ? strdup(msg) : NULL;
}

START_TEST(several_failures_concatenated)
{
    ck_assert_int_eq(FAIL_PARAM(), ACL_ERROR_INVALID_PARAM);
    char *param_text = take_message();
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    char *runtime_text = take_message();
    ck_assert_ptr_nonnull(param_text);
    ck_assert_ptr_nonnull(runtime_text);
    ck_assert_str_ne(param_text, runtime_text);

    ck_assert_int_eq(FAIL_PARAM(), ACL_ERROR_INVALID_PARAM);
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    const char *both = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(both);
    ck_assert_msg(strstr(both, param_text) != NULL, "\"%s\" lacks \"%s\"", both, param_text);
    ck_assert_msg(strstr(both, runtime_text) != NULL, "\"%s\" lacks \"%s\"", both, runtime_text);
    ck_assert_ptr_null(aclGetRecentErrMsg());
    free(param_text);
    free(runtime_text);
}
END_TEST

/* Thread B fails, A looks while B's message is still pending, then B reads. */
typedef struct two_threads {
    pthread_barrier_t failed;
    pthread_barrier_t looked;
    aclError code;
    bool b_saw_message;
} two_threads;

static void *fail_then_read(void *arg)
{
    two_threads *t = arg;
    t->code = FAIL_PARAM();
    pthread_barrier_wait(&t->failed);
    pthread_barrier_wait(&t->looked);
    t->b_saw_message = aclGetRecentErrMsg() != NULL;
    return NULL;
}

START_TEST(thread_level_by_default)
{
    two_threads t = {.b_saw_message = false};
    pthread_barrier_init(&t.failed, NULL, 2);
    pthread_barrier_init(&t.looked, NULL, 2);
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, fail_then_read, &t), 0);
    pthread_barrier_wait(&t.failed);
    const char *seen_in_a = aclGetRecentErrMsg();
    pthread_barrier_wait(&t.looked);
    pthread_join(thread, NULL);
    ck_assert_int_eq(t.code, ACL_ERROR_INVALID_PARAM);
    ck_assert_msg(seen_in_a == NULL, "thread A saw thread B's message: %s", seen_in_a);
    ck_assert_msg(t.b_saw_message, "thread B's own message was not pending");
}
END_TEST

static void *fail_only(void *arg)
{
    *(aclError *)arg = FAIL_PARAM();
    return NULL;
}

START_TEST(process_level_mode)
{
    aclError code = ACL_SUCCESS;
    run_thread(fail_only, &code);
    ck_assert_int_eq(code, ACL_ERROR_INVALID_PARAM);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
    ck_assert_ptr_null(aclGetRecentErrMsg());
}
END_TEST

START_TEST(get_last_error_returns_then_clears)
{
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}
END_TEST

START_TEST(get_last_error_keeps_latest_code)
{
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}
END_TEST

START_TEST(peek_does_not_clear)
{
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}
END_TEST

static void *fail_runtime_only(void *arg)
{
    *(aclError *)arg = FAIL_RUNTIME();
    return NULL;
}

START_TEST(last_error_is_per_thread)
{
    aclError code = ACL_SUCCESS;
    run_thread(fail_runtime_only, &code);
    ck_assert_int_eq(code, ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}
END_TEST

/* Asserts that fn returned ACL_ERROR_RT_FEATURE_NOT_SUPPORT with a message
 * naming it. */
#define ASSERT_UNSUPPORTED(name, call)                                                       \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        aclError ret_ = (call);                                                              \
        ck_assert_msg(ret_ == ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s returned %d", name, ret_); \
        const char *msg_ = aclGetRecentErrMsg();                                             \
        ck_assert_msg(msg_ != NULL, "%s left no message", name);                             \
        ck_assert_msg(strstr(msg_, name) != NULL, "message \"%s\" does not name %s", msg_,   \
                      name);                                                                 \
    } while (0)

/* Declared but not provided (UNSUPPORTED in src/api/api.def). */
START_TEST(unsupported_functions_say_so)
{
    ACL_OK(aclrtSetDevice(0));
    uint64_t topology = 0;
    ASSERT_UNSUPPORTED("aclrtGetDevicesTopo", aclrtGetDevicesTopo(0, 0, &topology));
    uint32_t groups = 0;
    ASSERT_UNSUPPORTED("aclrtGetGroupCount", aclrtGetGroupCount(&groups));
    ASSERT_UNSUPPORTED("aclrtPersistentTaskClean", aclrtPersistentTaskClean(NULL));
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

START_TEST(unsupported_pointer_function_says_so)
{
    (void)aclGetRecentErrMsg();
    ck_assert_ptr_null(aclrtCreateStreamConfigHandle());
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "aclrtCreateStreamConfigHandle") != NULL,
                  "message \"%s\" does not name aclrtCreateStreamConfigHandle", msg);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("errors");

    TCase *thread_level = tcase_create("thread_level");
    tcase_add_checked_fixture(thread_level, init_plain, finalize);
    tcase_add_test(thread_level, nothing_pending_is_null);
    tcase_add_test(thread_level, message_cleared_when_read);
    tcase_add_test(thread_level, success_does_not_clear_message);
    tcase_add_test(thread_level, several_failures_concatenated);
    tcase_add_test(thread_level, thread_level_by_default);
    suite_add_tcase(s, thread_level);

    TCase *process_level = tcase_create("process_level");
    tcase_add_checked_fixture(process_level, init_process_level, finalize);
    tcase_add_test(process_level, process_level_mode);
    suite_add_tcase(s, process_level);

    TCase *last_error = tcase_create("last_error");
    tcase_add_checked_fixture(last_error, init_plain, finalize);
    tcase_add_test(last_error, get_last_error_returns_then_clears);
    tcase_add_test(last_error, get_last_error_keeps_latest_code);
    tcase_add_test(last_error, peek_does_not_clear);
    tcase_add_test(last_error, last_error_is_per_thread);
    suite_add_tcase(s, last_error);

    TCase *unsupported = tcase_create("unsupported");
    tcase_add_checked_fixture(unsupported, init_plain, finalize);
    tcase_add_test(unsupported, unsupported_functions_say_so);
    tcase_add_test(unsupported, unsupported_pointer_function_says_so);
    suite_add_tcase(s, unsupported);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
