/* Notifies, counting notifies and stream memory operations (aclrtValueWrite,
 * aclrtValueWait): the orderings they give between streams, with real data
 * and gates instead of sleeps; timeouts; sharing a notify with another
 * process (tests/check/notify_peer, started with posix_spawn). */
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acltest.h"
#include "acl/acl_cuda.h"

extern char **environ;

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

/* 8-byte words of device memory, zeroed. */
static uint64_t *device_words(size_t n)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, n * sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(p, n * sizeof(uint64_t), 0, n * sizeof(uint64_t)));
    return p;
}

/* A word of device memory as the host reads it now. */
static uint64_t read_word(const uint64_t *word)
{
    uint64_t v = 0;
    ACL_OK(aclrtMemcpy(&v, sizeof v, word, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

static void write_word(uint64_t *word, uint64_t v)
{
    ACL_OK(aclrtMemcpy(word, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
}

static aclrtStreamStatus status_of(aclrtStream s)
{
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    return st;
}

/* ---- notifies ------------------------------------------------------------------------ */

/* A record on one stream releases a wait on another: the waiting stream's
 * later work sees what the recording stream wrote before its record. */
START_TEST(record_releases_wait_with_data)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    uint64_t *w = device_words(2);
    acltest_gate gate;
    acltest_gate_close(&gate, a);
    ACL_OK(aclrtValueWrite(&w[0], 42, 0, a));
    ACL_OK(aclrtRecordNotify(n, a));
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtMemcpyAsync(&w[1], 8, &w[0], 8, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    acltest_gate_wait_reached(&gate);
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(&w[1]), 42);
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* Unlike an event, a notify is a state: a wait queued before any record
 * waits for the record to come. */
START_TEST(wait_before_record_waits)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    uint64_t *w = device_words(1);
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtValueWrite(w, 7, 0, b));
    /* Work on another stream finishes while b still waits. */
    ACL_OK(aclrtValueWrite(w, 1, 0, a));
    ACL_OK(aclrtSynchronizeStream(a));
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    ck_assert_uint_eq(read_word(w), 1);
    ACL_OK(aclrtRecordNotify(n, a));
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(w), 7);
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* Each wait takes the record back: a second wait needs a second record. */
START_TEST(wait_resets_the_notify)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    uint64_t *w = device_words(1);
    aclrtEvent first;
    ACL_OK(aclrtCreateEvent(&first));
    ACL_OK(aclrtRecordNotify(n, a));
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtValueWrite(w, 1, 0, b));
    ACL_OK(aclrtRecordEvent(first, b));
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtValueWrite(w, 2, 0, b));
    ACL_OK(aclrtSynchronizeEvent(first));
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    ck_assert_uint_eq(read_word(w), 1);
    ACL_OK(aclrtRecordNotify(n, a));
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(w), 2);
    ACL_OK(aclrtDestroyEvent(first));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* An expired wait lets its stream go on; the stream's synchronize reports
 * the timeout once. */
START_TEST(wait_timeout_is_reported_by_synchronize)
{
    aclrtStream b = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    uint64_t *w = device_words(1);
    ACL_OK(aclrtWaitAndResetNotify(n, b, 1));
    ACL_OK(aclrtValueWrite(w, 5, 0, b));
    ACL_FAILS_WITH(aclrtSynchronizeStream(b), ACL_ERROR_RT_TASK_TIMEOUT);
    ck_assert_uint_eq(read_word(w), 5);
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* A record that a batch reset clears is gone: the next wait times out. */
START_TEST(batch_reset_clears_records)
{
    aclrtStream a = acltest_new_stream();
    aclrtNotify n[2];
    ACL_OK(aclrtCreateNotify(&n[0], 0));
    ACL_OK(aclrtCreateNotify(&n[1], 0));
    ACL_OK(aclrtRecordNotify(n[0], a));
    ACL_OK(aclrtRecordNotify(n[1], a));
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtNotifyBatchReset(n, 2));
    ACL_OK(aclrtWaitAndResetNotify(n[1], a, 1));
    ACL_FAILS_WITH(aclrtSynchronizeStream(a), ACL_ERROR_RT_TASK_TIMEOUT);
    /* A handle in the list that is no notify resets nothing. */
    ACL_OK(aclrtRecordNotify(n[0], a));
    ACL_OK(aclrtSynchronizeStream(a));
    aclrtNotify mixed[2] = {n[0], a};
    ACL_FAILS_WITH(aclrtNotifyBatchReset(mixed, 2), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtWaitAndResetNotify(n[0], a, 0));
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyNotify(n[0]));
    ACL_OK(aclrtDestroyNotify(n[1]));
    ACL_OK(aclrtDestroyStream(a));
}
END_TEST

START_TEST(ids_and_flags)
{
    aclrtNotify a, b;
    ACL_OK(aclrtCreateNotify(&a, ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtCreateNotify(&b, ACL_NOTIFY_DEVICE_USE_ONLY));
    uint32_t ia, ib;
    ACL_OK(aclrtGetNotifyId(a, &ia));
    ACL_OK(aclrtGetNotifyId(b, &ib));
    ck_assert_uint_ne(ia, ib);
    aclrtNotify c;
    ACL_FAILS_WITH(aclrtCreateNotify(&c, 2), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyNotify(a));
    ACL_FAILS_WITH(aclrtDestroyNotify(a), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetNotifyId(a, &ia), ACL_ERROR_INVALID_PARAM);
    /* A notify is not a counting notify, and the other way round. */
    aclrtCntNotify cn;
    ACL_OK(aclrtCntNotifyCreate(&cn, 0));
    ACL_FAILS_WITH(aclrtDestroyNotify(cn), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCntNotifyDestroy(b), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtCntNotifyDestroy(cn));
    ACL_OK(aclrtDestroyNotify(b));
}
END_TEST

START_TEST(inter_server_sharing_is_refused)
{
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    aclrtServerPid pids[1];
    memset(pids, 0, sizeof pids);
    ACL_FAILS_WITH(aclrtNotifySetImportPidInterServer(n, pids, 1),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtDestroyNotify(n));
}
END_TEST

/* ---- sharing ------------------------------------------------------------------------------ */

/* Imported in the same process, the key names the same notify. */
START_TEST(export_and_import_in_process)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtNotify n, m;
    ACL_OK(aclrtCreateNotify(&n, 0));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    ck_assert_uint_gt(strlen(key), 0);
    ck_assert_uint_lt(strlen(key), 65);
    /* Exporting twice is refused. */
    char again[65];
    ACL_FAILS_WITH(aclrtNotifyGetExportKey(n, again, sizeof again, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtNotifyImportByKey(&m, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    uint64_t *w = device_words(1);
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtValueWrite(w, 9, 0, b));
    ACL_OK(aclrtRecordNotify(m, a));
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(w), 9);
    /* Once the exporter destroyed it, the key imports nothing more. */
    ACL_OK(aclrtDestroyNotify(n));
    aclrtNotify late;
    ACL_FAILS_WITH(aclrtNotifyImportByKey(&late, key, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyNotify(m));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* Starts tests/check/notify_peer with args; its stdin is a pipe whose
 * write end is returned in *go. */
static pid_t spawn_peer(char *const *args, int *go)
{
    const char *builddir = getenv("ACLCUDA_TEST_BUILDDIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/check/notify_peer", builddir ? builddir : ".");
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    char *argv[8] = {path};
    for (int i = 0; args[i] && i < 6; i++)
        argv[i + 1] = args[i];
    pid_t pid;
    int rc = posix_spawn(&pid, path, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[0]);
    ck_assert_msg(rc == 0, "cannot start %s: %s", path, strerror(rc));
    *go = fds[1];
    return pid;
}

static int peer_exit_code(pid_t pid)
{
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "notify_peer did not exit normally (status 0x%x)", status);
    return WEXITSTATUS(status);
}

/* Another process, once allowed, imports the key and records; the wait of
 * this process ends. */
START_TEST(record_from_another_process)
{
    aclrtStream b = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    uint64_t *w = device_words(1);
    ACL_OK(aclrtWaitAndResetNotify(n, b, 60));
    ACL_OK(aclrtValueWrite(w, 3, 0, b));
    int go;
    char *args[] = {"record", key, NULL};
    pid_t peer = spawn_peer(args, &go);
    int32_t pid = (int32_t)peer;
    ACL_OK(aclrtNotifySetImportPid(n, &pid, 1));
    ck_assert_int_eq(write(go, "go\n", 3), 3);
    close(go);
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(w), 3);
    ck_assert_int_eq(peer_exit_code(peer), 0);
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* A process not on the allow-list is refused; with validation off, any
 * process may import. */
START_TEST(allow_list_is_enforced)
{
    aclrtNotify n, open_one;
    ACL_OK(aclrtCreateNotify(&n, 0));
    ACL_OK(aclrtCreateNotify(&open_one, 0));
    char key[65], open_key[65];
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    ACL_OK(aclrtNotifyGetExportKey(open_one, open_key, sizeof open_key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    int go;
    char *args[] = {"refused", key, "import", open_key, NULL};
    pid_t peer = spawn_peer(args, &go);
    ck_assert_int_eq(write(go, "go\n", 3), 3);
    close(go);
    ck_assert_int_eq(peer_exit_code(peer), 0);
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtDestroyNotify(open_one));
}
END_TEST

/* ---- counting notifies ---------------------------------------------------------------------- */

static void count(aclrtCntNotify n, aclrtStream s, aclrtCntNotifyRecordMode mode, uint32_t value)
{
    aclrtCntNotifyRecordInfo info = {mode, value};
    ACL_OK(aclrtCntNotifyRecord(n, s, &info));
}

static void count_wait(aclrtCntNotify n, aclrtStream s, aclrtCntNotifyWaitMode mode,
                       uint32_t value, uint32_t timeout_s, bool clear)
{
    aclrtCntNotifyWaitInfo info = {.mode = mode, .value = value, .timeout = timeout_s,
                                   .isClear = clear};
    ACL_OK(aclrtCntNotifyWaitWithTimeout(n, s, &info));
}

/* Whether a wait for (mode, value) is satisfied now: it is queued with a
 * one-second timeout, which only an unsatisfied wait reaches. */
static bool satisfied(aclrtCntNotify n, aclrtStream s, aclrtCntNotifyWaitMode mode,
                      uint32_t value)
{
    count_wait(n, s, mode, value, 1, false);
    aclError err = aclrtSynchronizeStream(s);
    ck_assert_msg(err == ACL_SUCCESS || err == ACL_ERROR_RT_TASK_TIMEOUT, "synchronize: %d",
                  (int)err);
    (void)aclGetRecentErrMsg();
    return err == ACL_SUCCESS;
}

START_TEST(counting_records_and_comparisons)
{
    aclrtStream s = acltest_new_stream();
    aclrtCntNotify n;
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    count(n, s, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 2);
    count(n, s, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 3); /* 5 */
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 5));
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 5));
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 4));
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 6));
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 4));
    ck_assert(!satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 5));
    count(n, s, ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 8); /* 13 */
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 13));
    count(n, s, ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 6); /* 4 */
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 4));
    count(n, s, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 100);
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 100));
    /* A wait that clears leaves 0; a reset too. */
    count_wait(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 100, 0, true);
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 0));
    count(n, s, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 9);
    ACL_OK(aclrtCntNotifyReset(n, s));
    ck_assert(satisfied(n, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 0));
    uint32_t id;
    ACL_OK(aclrtCntNotifyGetId(n, &id));
    ACL_OK(aclrtCntNotifyDestroy(n));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* A count reached on one stream releases the waits of another. */
START_TEST(counting_across_streams)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtCntNotify n;
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    uint64_t *w = device_words(1);
    count_wait(n, b, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 3, 0, false);
    ACL_OK(aclrtValueWrite(w, 11, 0, b));
    count(n, a, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1);
    count(n, a, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1);
    ACL_OK(aclrtSynchronizeStream(a));
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    count(n, a, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1);
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(w), 11);
    ACL_OK(aclrtCntNotifyDestroy(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

START_TEST(counting_argument_rules)
{
    aclrtCntNotify n;
    ACL_FAILS_WITH(aclrtCntNotifyCreate(&n, 1), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    aclrtCntNotifyRecordInfo bad_record = {(aclrtCntNotifyRecordMode)3, 1};
    ACL_FAILS_WITH(aclrtCntNotifyRecord(n, NULL, &bad_record), ACL_ERROR_INVALID_PARAM);
    aclrtCntNotifyWaitInfo bad_wait = {.mode = (aclrtCntNotifyWaitMode)5};
    ACL_FAILS_WITH(aclrtCntNotifyWaitWithTimeout(n, NULL, &bad_wait), ACL_ERROR_INVALID_PARAM);
    aclrtCntNotifyWaitInfo bad_clear = {.mode = ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, .isClear = 2};
    ACL_FAILS_WITH(aclrtCntNotifyWaitWithTimeout(n, NULL, &bad_clear), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtCntNotifyDestroy(n));
}
END_TEST

/* ---- stream memory operations ---------------------------------------------------------------- */

START_TEST(value_write_lands_in_order)
{
    aclrtStream s = acltest_new_stream();
    uint64_t *w = device_words(2);
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtValueWrite(&w[0], 0x0123456789abcdefULL, 0, s));
    ACL_OK(aclrtValueWrite(&w[1], UINT64_MAX, 0, s));
    acltest_gate_wait_reached(&gate);
    ck_assert_uint_eq(read_word(&w[0]), 0); /* held behind the gate */
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(read_word(&w[0]), 0x0123456789abcdefULL);
    ck_assert_uint_eq(read_word(&w[1]), UINT64_MAX);
    ACL_FAILS_WITH(aclrtValueWrite(&w[0], 1, 1, s), ACL_ERROR_INVALID_PARAM);
    /* Page-locked host memory is ACL memory too. */
    uint64_t *host = NULL;
    ACL_OK(aclrtMallocHost((void **)&host, 64));
    host[0] = 0;
    ACL_OK(aclrtValueWrite(host, 77, 0, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(host[0], 77);
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* Each comparison ACL defines: a wait that does not hold keeps its stream
 * back until a write from elsewhere makes it hold. */
typedef struct wait_case {
    uint32_t flag;
    uint64_t initial, value, releasing;
} wait_case;

static const wait_case wait_cases[] = {
    {ACL_STREAM_WAIT_VALUE_GEQ, 4, 5, 5},
    {ACL_STREAM_WAIT_VALUE_GEQ, 1ULL << 63, 0, 1}, /* (int64_t)(*addr - value) >= 0 */
    {ACL_STREAM_WAIT_VALUE_EQ, 0, 0x100000000ULL, 0x100000000ULL},
    {ACL_STREAM_WAIT_VALUE_AND, 0x0f, 0xf0, 0x10},
    {ACL_STREAM_WAIT_VALUE_NOR, UINT64_MAX, 0xfffffffffffffff0ULL, 0x0e},
};

START_TEST(value_wait_comparisons)
{
    const wait_case *c = &wait_cases[_i];
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    uint64_t *w = device_words(2);
    write_word(&w[0], c->initial);
    ACL_OK(aclrtValueWait(&w[0], c->value, c->flag, b));
    ACL_OK(aclrtValueWrite(&w[1], 1, 0, b));
    ACL_OK(aclrtValueWrite(&w[1], 2, 0, a));
    ACL_OK(aclrtSynchronizeStream(a));
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    ck_assert_uint_eq(read_word(&w[1]), 2);
    ACL_OK(aclrtValueWrite(&w[0], c->releasing, 0, a));
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(&w[1]), 1);
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* A store from the host (a synchronous copy) releases a wait too. */
START_TEST(value_wait_released_from_host)
{
    aclrtStream b = acltest_new_stream();
    uint64_t *w = device_words(2);
    ACL_OK(aclrtValueWait(&w[0], 1, ACL_STREAM_WAIT_VALUE_EQ, b));
    ACL_OK(aclrtValueWrite(&w[1], 8, 0, b));
    ACL_FAILS_WITH(aclrtValueWait(&w[0], 1, 4, b), ACL_ERROR_INVALID_PARAM);
    write_word(&w[0], 1);
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(&w[1]), 8);
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* ---- abort -------------------------------------------------------------------------------- */

/* A stream stuck on a wait that nothing will release is aborted: it owes
 * nothing any more, answers as idle, and runs what is queued next. */
START_TEST(abort_frees_a_stuck_stream)
{
    aclrtStream b = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    uint64_t *w = device_words(2);
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtValueWrite(&w[0], 1, 0, b));
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtStreamAbort(b));
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclrtValueWrite(&w[1], 6, 0, b));
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(&w[1]), 6);
    /* Release what CUDA still holds on the stream it retired, so that the
     * device has nothing pending when the test ends. */
    ACL_OK(aclrtRecordNotify(n, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("notify");

    TCase *notify = tcase_create("notify");
    tcase_add_checked_fixture(notify, set_up, tear_down);
    tcase_add_test(notify, record_releases_wait_with_data);
    tcase_add_test(notify, wait_before_record_waits);
    tcase_add_test(notify, wait_resets_the_notify);
    tcase_add_test(notify, wait_timeout_is_reported_by_synchronize);
    tcase_add_test(notify, batch_reset_clears_records);
    tcase_add_test(notify, ids_and_flags);
    tcase_add_test(notify, inter_server_sharing_is_refused);
    suite_add_tcase(s, notify);

    TCase *shared = tcase_create("shared");
    tcase_add_checked_fixture(shared, set_up, tear_down);
    tcase_set_timeout(shared, 120);
    tcase_add_test(shared, export_and_import_in_process);
    tcase_add_test(shared, record_from_another_process);
    tcase_add_test(shared, allow_list_is_enforced);
    suite_add_tcase(s, shared);

    TCase *counting = tcase_create("counting");
    tcase_add_checked_fixture(counting, set_up, tear_down);
    tcase_set_timeout(counting, 60);
    tcase_add_test(counting, counting_records_and_comparisons);
    tcase_add_test(counting, counting_across_streams);
    tcase_add_test(counting, counting_argument_rules);
    suite_add_tcase(s, counting);

    TCase *value = tcase_create("value");
    tcase_add_checked_fixture(value, set_up, tear_down);
    tcase_add_test(value, value_write_lands_in_order);
    tcase_add_loop_test(value, value_wait_comparisons, 0,
                        (int)(sizeof wait_cases / sizeof wait_cases[0]));
    tcase_add_test(value, value_wait_released_from_host);
    tcase_add_test(value, abort_frees_a_stuck_stream);
    suite_add_tcase(s, value);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
