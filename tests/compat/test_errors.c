/* aclGetRecentErrMsg (thread and process level), aclrtGetLastError /
 * aclrtPeekAtLastError, the exception-information getters, and the
 * bad-argument rows of the error and log functions. */
#include <errno.h>
#include <unistd.h>

#include "bad_args.h"

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

COMPAT_TEST(nothing_pending_is_null,
            "aclGetRecentErrMsg returns NULL when no failure is pending; a successful call leaves none",
            "acl_rt.h aclGetRecentErrMsg; API ref aclGetRecentErrMsg")
{
    ck_assert_ptr_null(aclGetRecentErrMsg());
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_ptr_null(aclGetRecentErrMsg());
}

COMPAT_TEST(message_cleared_when_read,
            "aclGetRecentErrMsg returns the pending text of a failed call and clears it: a second call returns NULL",
            "acl_rt.h aclGetRecentErrMsg; API ref aclGetRecentErrMsg")
{
    ck_assert_int_eq(FAIL_PARAM(), ACL_ERROR_INVALID_PARAM);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_int_gt(strlen(msg), 0);
    ck_assert_ptr_null(aclGetRecentErrMsg());
}

COMPAT_TEST(success_does_not_clear_message,
            "a successful call does not clear the pending error text",
            "acl_rt.h aclGetRecentErrMsg; API ref aclGetRecentErrMsg")
{
    ck_assert_int_eq(FAIL_PARAM(), ACL_ERROR_INVALID_PARAM);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

/* Reads the pending message and returns a copy (NULL if none). */
static char *take_message(void)
{
    const char *msg = aclGetRecentErrMsg();
    return msg ? strdup(msg) : NULL;
}

COMPAT_TEST(several_failures_concatenated,
            "several pending failures are all returned by one aclGetRecentErrMsg, then cleared",
            "acl_rt.h aclGetRecentErrMsg; API ref aclGetRecentErrMsg (messages concatenated, newest first)")
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

COMPAT_TEST(thread_level_by_default,
            "error text is per thread by default (err_msg_mode \"0\"): another thread's failure is not seen here",
            "acl_rt.h aclGetRecentErrMsg; API ref aclGetRecentErrMsg; aclInit err_msg_mode")
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

static void *fail_only(void *arg)
{
    *(aclError *)arg = FAIL_PARAM();
    return NULL;
}

COMPAT_TEST(process_level_mode,
            "with err_msg_mode \"1\" a failure in one thread is read from another",
            "acl_rt.h aclGetRecentErrMsg; API ref aclGetRecentErrMsg; aclInit err_msg_mode")
{
    aclError code = ACL_SUCCESS;
    run_thread(fail_only, &code);
    ck_assert_int_eq(code, ACL_ERROR_INVALID_PARAM);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
    ck_assert_ptr_null(aclGetRecentErrMsg());
}

COMPAT_TEST(get_last_error_returns_then_clears,
            "aclrtGetLastError(ACL_RT_THREAD_LEVEL) returns the thread's last runtime error, then ACL_SUCCESS until a new one",
            "acl_rt.h aclrtGetLastError; API ref aclrtGetLastError")
{
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

COMPAT_TEST(get_last_error_keeps_latest_code,
            "aclrtGetLastError returns the latest of several errors",
            "acl_rt.h aclrtGetLastError")
{
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

COMPAT_TEST(peek_does_not_clear,
            "aclrtPeekAtLastError returns the last error without clearing it",
            "acl_rt.h aclrtPeekAtLastError; API ref aclrtPeekAtLastError")
{
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    ck_assert_int_eq(FAIL_RUNTIME(), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

static void *fail_runtime_only(void *arg)
{
    *(aclError *)arg = FAIL_RUNTIME();
    return NULL;
}

COMPAT_TEST(last_error_is_per_thread,
            "the last error is per thread: another thread's failure does not show here",
            "acl_rt.h aclrtGetLastError: thread level")
{
    aclError code = ACL_SUCCESS;
    run_thread(fail_runtime_only, &code);
    ck_assert_int_eq(code, ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

/* ---- exception information -------------------------------------------------------- */

/* Known-unknown: the getters' documented failure value is UINT32_MAX, but
 * the docs do not say what a NULL aclrtExceptionInfo gives. Recorded
 * choice: 0xFFFFFFFF from every getter, and NULL as the callback removes
 * it. */
COMPAT_TEST(exception_info_getters_without_info,
            "the aclrtGet*FromExceptionInfo getters return 0xFFFFFFFF for a NULL info; "
            "aclrtSetExceptionInfoCallback(NULL) succeeds",
            "acl_rt.h aclrtGetTaskIdFromExceptionInfo etc.; docs silent on NULL (known-unknown)")
{
    ACL_OK(aclrtSetExceptionInfoCallback(NULL));
    ck_assert_uint_eq(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetStreamIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetThreadIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetDeviceIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    ck_assert_uint_eq(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xFFFFFFFFu);
}

/* ---- bad arguments ------------------------------------------------------------------ */

/* The exception-info getters: the library hands out no exception info
 * outside a callback, so every pointer is foreign and must not be read. */
static void check_exception_getter(uint32_t (*getter)(const aclrtExceptionInfo *),
                                   compat_level level)
{
    unsigned char local[COMPAT_GARBAGE];
    compat_fill_random(local, sizeof local, 0x5eed0005);
    REJECTS_VALUE(getter(NULL), UINT32_MAX, "NULL");
    REJECTS_VALUE_HOSTILE(getter((const aclrtExceptionInfo *)local), UINT32_MAX,
                          "a local variable");
    REJECTS_VALUE_HOSTILE(getter((const aclrtExceptionInfo *)(uintptr_t)16), UINT32_MAX,
                          "address 16");
}

ROW(aclrtGetDeviceIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetDeviceIdFromExceptionInfo, level);
}

ROW(aclrtGetErrorCodeFromExceptionInfo)
{
    check_exception_getter(aclrtGetErrorCodeFromExceptionInfo, level);
}

ROW(aclrtGetStreamIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetStreamIdFromExceptionInfo, level);
}

ROW(aclrtGetTaskIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetTaskIdFromExceptionInfo, level);
}

ROW(aclrtGetThreadIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetThreadIdFromExceptionInfo, level);
}

ROW(aclrtSetExceptionInfoCallback)
{
    /* NULL removes the callback; it is a valid argument. */
    ACL_OK(aclrtSetExceptionInfoCallback(NULL));
}

/* ---- issue 17: errors ---------------------------------------------------------------- */

COMPAT_TEST(error_verbose_and_repair,
            "without a device fault, aclrtGetErrorVerbose reports ACL_RT_NO_ERROR and nothing to repair, and aclrtRepairError of it succeeds",
            "API ref aclrtGetErrorVerbose, aclrtRepairError")
{
    aclrtErrorInfo info;
    memset(&info, 0xff, sizeof info);
    ACL_OK(aclrtGetErrorVerbose(0, &info));
    ck_assert_int_eq(info.errorType, ACL_RT_NO_ERROR);
    ck_assert_uint_eq(info.tryRepair, 0);
    ACL_OK(aclrtRepairError(0, &info)); /* nothing to repair */
    ACL_FAILS(aclrtGetErrorVerbose(1 << 20, &info));
}

static void registered_exception_callback(aclrtExceptionInfo *info)
{
    (void)info;
}

COMPAT_TEST(exception_callbacks,
            "aclrtExceptionInfoCallbackRegister takes a callback (again: kept once) and aclrtExceptionInfoCallbackUnregister drops it (one not registered: no-op)",
            "API ref aclrtExceptionInfoCallbackRegister, Unregister")
{
    ACL_OK(aclrtExceptionInfoCallbackRegister(registered_exception_callback));
    ACL_OK(aclrtExceptionInfoCallbackRegister(registered_exception_callback)); /* kept once */
    ACL_OK(aclrtExceptionInfoCallbackUnregister(registered_exception_callback));
    ACL_OK(aclrtExceptionInfoCallbackUnregister(registered_exception_callback));
}

COMPAT_TEST(prof_trace_marks,
            "aclrtProfTrace takes 1 to 18 bytes of user data on a stream (NULL: the default one)",
            "API ref aclrtProfTrace length")
{
    unsigned char data[18] = "acl-cuda marks";
    ACL_OK(aclrtProfTrace(data, 18, NULL));
    ACL_OK(aclrtProfTrace(data, 1, NULL));
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtProfTrace(data, 5, s));
    ACL_FAILS(aclrtProfTrace(data, 0, s));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(snapshot_of_another_process_is_refused,
            "the snapshot functions act on the calling process only: another pid is refused",
            "API ref aclrtSnapShotProcessLock pid (only this process)")
{
    ACL_FAILS(aclrtSnapShotProcessLock((int)getpid() + 1, NULL));
    ACL_FAILS(aclrtSnapShotProcessUnlock((int)getpid() + 1, NULL));
}

/* ---- rows: exception callbacks, device errors, task abort, snapshots, marks ---------------- */

static void exception_noop(aclrtExceptionInfo *info)
{
    (void)info;
}

static uint32_t snapshot_noop(int32_t device, void *args)
{
    (void)device;
    (void)args;
    return 0;
}

ROW(aclrtExceptionInfoCallbackRegister)
{
    REJECTS(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_INVALID_PARAM, "a NULL callback");
}

ROW(aclrtExceptionInfoCallbackUnregister)
{
    REJECTS(aclrtExceptionInfoCallbackUnregister(NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL callback");
    ACL_OK(aclrtExceptionInfoCallbackUnregister(exception_noop)); /* never registered: no-op */
}

ROW(aclrtGetArgsFromExceptionInfo)
{
    unsigned char local[COMPAT_GARBAGE];
    compat_fill_random(local, sizeof local, 0x5eed0007);
    void *args;
    uint32_t len;
    REJECTS(aclrtGetArgsFromExceptionInfo(NULL, &args, &len), ACL_ERROR_INVALID_PARAM, "NULL");
    REJECTS_HOSTILE(aclrtGetArgsFromExceptionInfo((const aclrtExceptionInfo *)local, &args, &len),
                    ACL_ERROR_INVALID_PARAM, "a local variable");
}

ROW(aclrtGetFuncHandleFromExceptionInfo)
{
    unsigned char local[COMPAT_GARBAGE];
    compat_fill_random(local, sizeof local, 0x5eed0008);
    aclrtFuncHandle f;
    REJECTS(aclrtGetFuncHandleFromExceptionInfo(NULL, &f), ACL_ERROR_INVALID_PARAM, "NULL");
    REJECTS_HOSTILE(aclrtGetFuncHandleFromExceptionInfo((const aclrtExceptionInfo *)local, &f),
                    ACL_ERROR_INVALID_PARAM, "a local variable");
}

ROW(aclrtGetErrorVerbose)
{
    REJECTS(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
}

ROW(aclrtRepairError)
{
    REJECTS(aclrtRepairError(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
}

ROW(aclrtSetDeviceTaskAbortCallback)
{
    REJECTS(aclrtSetDeviceTaskAbortCallback(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL name");
}

ROW(aclrtSnapShotProcessLock)
{
    unsigned char local[8];
    REJECTS(aclrtSnapShotProcessLock((int)getpid(), local), ANY_ERROR, "reserve not NULL");
}

ROW(aclrtSnapShotProcessUnlock)
{
    unsigned char local[8];
    REJECTS(aclrtSnapShotProcessUnlock((int)getpid(), local), ANY_ERROR, "reserve not NULL");
}

ROW(aclrtSnapShotProcessBackup)
{
    aclrtSnapShotBackupArgs args;
    memset(&args, 0, sizeof args);
    REJECTS(aclrtSnapShotProcessBackup((int)getpid(), &args), ANY_ERROR, "args not NULL");
}

ROW(aclrtSnapShotProcessRestore)
{
    aclrtSnapShotRestoreArgs args;
    memset(&args, 0, sizeof args);
    REJECTS(aclrtSnapShotProcessRestore((int)getpid(), &args), ANY_ERROR, "args not NULL");
}

ROW(aclrtSnapShotCallbackRegister)
{
    REJECTS(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, NULL, NULL), ANY_ERROR,
            "a NULL callback");
    REJECTS_HOSTILE(aclrtSnapShotCallbackRegister((aclrtSnapShotStage)99, snapshot_noop, NULL),
                    ACL_ERROR_INVALID_PARAM, "an unknown stage");
}

ROW(aclrtSnapShotCallbackUnregister)
{
    REJECTS(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, NULL), ANY_ERROR,
            "a NULL callback");
    REJECTS_HOSTILE(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, snapshot_noop),
                    ACL_ERROR_INVALID_PARAM, "a callback never registered");
}

ROW(aclrtProfTrace)
{
    unsigned char data[18] = {1, 2, 3};
    REJECTS(aclrtProfTrace(NULL, 4, NULL), ACL_ERROR_INVALID_PARAM, "NULL data");
    REJECTS(aclrtProfTrace(data, 19, NULL), ANY_ERROR, "19 bytes (18 at most)");
    REJECTS_HOSTILE(aclrtProfTrace((void *)(uintptr_t)16, 4, NULL), ACL_ERROR_INVALID_PARAM,
                    "address 16");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtProfTrace(data, 4, h));
}

/* ---- uncorrectable memory errors -------------------------------------------------- */

COMPAT_TEST(test_uce,
            "aclrtGetMemUceInfo reports the uncorrectable errors there are (none on a healthy device); aclrtMemUceRepair refuses addresses never reported",
            "API ref aclrtGetMemUceInfo, aclrtMemUceRepair")
{
    aclrtMemUceInfo info[4];
    memset(info, 0, sizeof info);
    size_t n = 9;
    ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
    ck_assert_uint_eq(n, 0);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(0, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(0, info, 4, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(0, info, 0, &n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(999, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
    /* Nothing was reported, so nothing can be repaired. */
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    info[0].addr = dev;
    info[0].len = 4096;
    ACL_FAILS_WITH(aclrtMemUceRepair(0, info, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemUceRepair(0, NULL, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemUceRepair(999, info, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtFree(dev));
}

ROW(aclrtGetMemUceInfo)
{
    aclrtMemUceInfo info[2];
    size_t n;
    REJECTS(aclrtGetMemUceInfo(0, NULL, 2, &n), ACL_ERROR_INVALID_PARAM, "a NULL array");
    REJECTS(aclrtGetMemUceInfo(0, info, 2, NULL), ACL_ERROR_INVALID_PARAM, "a NULL retSize");
}

ROW(aclrtMemUceRepair)
{
    REJECTS(aclrtMemUceRepair(0, NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL array");
}

ROW(aclrtCacheLastTaskOpInfo)
{
    static const char info[] = "shape";
    REJECTS(aclrtCacheLastTaskOpInfo(NULL, 8), ACL_ERROR_INVALID_PARAM, "a NULL infoPtr");
    REJECTS(aclrtCacheLastTaskOpInfo(info, 0), ACL_ERROR_INVALID_PARAM, "infoSize 0");
    REJECTS(aclrtCacheLastTaskOpInfo(info, 64 * 1024 + 1), ACL_ERROR_INVALID_PARAM,
            "infoSize above 64 KiB");
    /* No task of this thread was captured. */
    REJECTS(aclrtCacheLastTaskOpInfo(info, sizeof info), ANY_ERROR, "no captured task");
}

ROW(aclrtCacheLastTaskExtendInfo)
{
    REJECTS(aclrtCacheLastTaskExtendInfo(NULL, 8), ACL_ERROR_INVALID_PARAM,
            "a NULL extendInfoPtr");
    REJECTS(aclrtCacheLastTaskExtendInfo("{}", 0), ACL_ERROR_INVALID_PARAM, "infoSize 0");
    REJECTS(aclrtCacheLastTaskExtendInfo("{}", 2), ANY_ERROR, "no captured task");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtCacheLastTaskOpInfo),
    COMPAT_ROW(aclrtCacheLastTaskExtendInfo),
    COMPAT_ROW(aclrtGetDeviceIdFromExceptionInfo),
    COMPAT_ROW(aclrtGetErrorCodeFromExceptionInfo),
    COMPAT_ROW(aclrtGetStreamIdFromExceptionInfo),
    COMPAT_ROW(aclrtGetTaskIdFromExceptionInfo),
    COMPAT_ROW(aclrtGetThreadIdFromExceptionInfo),
    COMPAT_ROW(aclrtSetExceptionInfoCallback),
    COMPAT_ROW(aclrtExceptionInfoCallbackRegister),
    COMPAT_ROW(aclrtExceptionInfoCallbackUnregister),
    COMPAT_ROW(aclrtGetArgsFromExceptionInfo),
    COMPAT_ROW(aclrtGetFuncHandleFromExceptionInfo),
    COMPAT_ROW(aclrtGetErrorVerbose),
    COMPAT_ROW(aclrtRepairError),
    COMPAT_ROW(aclrtSetDeviceTaskAbortCallback),
    COMPAT_ROW(aclrtSnapShotProcessLock),
    COMPAT_ROW(aclrtSnapShotProcessUnlock),
    COMPAT_ROW(aclrtSnapShotProcessBackup),
    COMPAT_ROW(aclrtSnapShotProcessRestore),
    COMPAT_ROW(aclrtSnapShotCallbackRegister),
    COMPAT_ROW(aclrtSnapShotCallbackUnregister),
    COMPAT_ROW(aclrtProfTrace),
    COMPAT_ROW(aclrtGetMemUceInfo),
    COMPAT_ROW(aclrtMemUceRepair),
};
COMPAT_BAD_ARGS(errors, rows);

Suite *compat_suite_errors(void);
Suite *compat_suite_errors(void)
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

    TCase *unknown = tcase_create("unknown");
    tcase_set_tags(unknown, "unknown");
    tcase_add_checked_fixture(unknown, compat_set_up, compat_tear_down);
    tcase_add_test(unknown, exception_info_getters_without_info);
    suite_add_tcase(s, unknown);

    TCase *more = tcase_create("control");
    tcase_add_checked_fixture(more, compat_set_up, compat_tear_down);
    tcase_set_timeout(more, 60);
    tcase_add_test(more, error_verbose_and_repair);
    tcase_add_test(more, exception_callbacks);
    tcase_add_test(more, prof_trace_marks);
    tcase_add_test(more, snapshot_of_another_process_is_refused);
    suite_add_tcase(s, more);

    TCase *uce = tcase_create("uncorrectable errors");
    tcase_add_checked_fixture(uce, compat_set_up, compat_tear_down);
    tcase_add_test(uce, test_uce);
    suite_add_tcase(s, uce);

    compat_add_bad_args(s, &compat_rows_errors);
    return s;
}

COMPAT_MAIN(errors)
