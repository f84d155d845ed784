/* Notifies, counting notifies and stream memory operations (aclrtValueWrite,
 * aclrtValueWait): the orderings they give between streams, with real data
 * and gates instead of sleeps; timeouts; a notify shared with another
 * process (this program again, started with --peer). Rows of the areas
 * notify and value (the stream memory operations). */
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bad_args.h"

extern char **environ;


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
COMPAT_TEST(record_releases_wait_with_data,
            "a notify recorded on one stream releases aclrtWaitAndResetNotify on another, whose later work sees what the first stream wrote before the record",
            "acl_rt.h aclrtRecordNotify, aclrtWaitAndResetNotify; API ref 8 (multi-stream wait)")
{
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    uint64_t *w = device_words(2);
    compat_gate gate;
    compat_gate_close(&gate, a);
    ACL_OK(aclrtValueWrite(&w[0], 42, 0, a));
    ACL_OK(aclrtRecordNotify(n, a));
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtMemcpyAsync(&w[1], 8, &w[0], 8, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    compat_gate_wait_reached(&gate);
    ck_assert_int_eq(status_of(b), ACL_STREAM_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(&w[1]), 42);
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}

/* Unlike an event, a notify is a state: a wait queued before any record
 * waits for the record to come. */
COMPAT_TEST(wait_before_record_waits,
            "a wait queued before the notify is recorded waits for the record",
            "API ref aclrtWaitAndResetNotify: blocks the stream until the notify completes")
{
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
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

/* Each wait takes the record back: a second wait needs a second record. */
COMPAT_TEST(wait_resets_the_notify,
            "aclrtWaitAndResetNotify resets the notify: a second wait needs a second record",
            "API ref aclrtWaitAndResetNotify: waits, then resets")
{
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
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

/* An expired wait lets its stream go on; the stream's synchronize reports
 * the timeout once. */
COMPAT_TEST(wait_timeout_is_reported_by_synchronize,
            "a notify wait whose timeout (seconds) expires lets the stream go on; the stream's next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT, once",
            "API ref aclrtWaitAndResetNotify timeout; the code is not documented (known-unknown)")
{
    aclrtStream b = compat_new_stream();
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

/* A record that a batch reset clears is gone: the next wait times out. */
COMPAT_TEST(batch_reset_clears_records,
            "aclrtNotifyBatchReset clears recorded notifies (a later wait times out); a list naming something else resets nothing",
            "API ref aclrtNotifyBatchReset; timeout code as above (known-unknown)")
{
    aclrtStream a = compat_new_stream();
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

COMPAT_TEST(ids_and_flags,
            "notifies have distinct ids; flags other than ACL_NOTIFY_DEFAULT and ACL_NOTIFY_DEVICE_USE_ONLY are refused",
            "API ref aclrtCreateNotify flag, aclrtGetNotifyId")
{
    aclrtNotify a, b;
    ACL_OK(aclrtCreateNotify(&a, ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtCreateNotify(&b, ACL_NOTIFY_DEVICE_USE_ONLY));
    uint32_t ia, ib;
    ACL_OK(aclrtGetNotifyId(a, &ia));
    ACL_OK(aclrtGetNotifyId(b, &ib));
    ck_assert_uint_ne(ia, ib);
    aclrtNotify c;
    ACL_FAILS(aclrtCreateNotify(&c, 2));
    ACL_OK(aclrtDestroyNotify(a));
    ACL_OK(aclrtDestroyNotify(b));
}

/* ---- sharing ------------------------------------------------------------------------------ */

/* ---- the other process of the sharing tests ------------------------------------------------
 * `test_notify --peer ACTION KEY [ACTION KEY]...` waits for a line on stdin
 * (the parent allows its pid meanwhile), then for each pair:
 *   record KEY   imports the notify and records it (must work)
 *   import KEY   imports the notify (must work)
 *   refused KEY  imports the notify (must fail)
 * and exits 0 when everything went as expected, else 1. */
static int peer_fail(const char *what, aclError err)
{
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr, "test_notify --peer: %s: %d %s\n", what, (int)err, msg ? msg : "");
    return 1;
}

static int peer_main(int argc, char **argv) CK_ATTRIBUTE_UNUSED;
static int peer_main(int argc, char **argv)
{
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return peer_fail("no go from the parent", 0);
    aclError err = aclInit(NULL);
    if (err || (err = aclrtSetDevice(0)))
        return peer_fail("init", err);
    for (int i = 0; i + 1 < argc; i += 2) {
        aclrtNotify n;
        err = aclrtNotifyImportByKey(&n, argv[i + 1], 0);
        if (strcmp(argv[i], "refused") == 0) {
            if (err == ACL_SUCCESS)
                return peer_fail("a key that does not allow this process imported", err);
            continue;
        }
        if (err)
            return peer_fail("import", err);
        if (strcmp(argv[i], "record") == 0 &&
            ((err = aclrtRecordNotify(n, NULL)) || (err = aclrtSynchronizeStream(NULL))))
            return peer_fail("record", err);
        if ((err = aclrtDestroyNotify(n)))
            return peer_fail("destroy", err);
    }
    if ((err = aclrtResetDevice(0)) || (err = aclFinalize()))
        return peer_fail("finalize", err);
    return 0;
}

/* Starts this program with --peer and args; its stdin is a pipe whose
 * write end is returned in *go. */
static pid_t spawn_peer(char *const *args, int *go)
{
    char path[1024];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    ck_assert_int_gt(n, 0);
    path[n] = '\0';
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    char *argv[10] = {path, "--peer"};
    for (int i = 0; args[i] && i < 7; i++)
        argv[i + 2] = args[i];
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
    ck_assert_msg(WIFEXITED(status), "the peer did not exit normally (status 0x%x)", status);
    return WEXITSTATUS(status);
}

/* Another process, once allowed, imports the key and records; the wait of
 * this process ends. */
COMPAT_TEST(record_from_another_process,
            "a process allowed with aclrtNotifySetImportPid imports the exported key and records; the exporter's wait ends",
            "API ref aclrtNotifyGetExportKey (the two-process flow), aclrtNotifySetImportPid, aclrtNotifyImportByKey")
{
    aclrtStream b = compat_new_stream();
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

/* A process not on the allow-list is refused; with validation off, any
 * process may import. */
COMPAT_TEST(allow_list_is_enforced,
            "with pid validation (ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT) a process not allowed cannot import; with ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION any can",
            "API ref aclrtNotifyGetExportKey flags")
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

COMPAT_TEST(counting_records_and_comparisons,
            "counting notify records set, add, or and and the value; waits compare less, equal, bigger, bigger-or-equal and bitmask-equal; isClear and aclrtCntNotifyReset leave 0",
            "API ref 9 (CntNotify), aclrtCntNotifyRecordMode, aclrtCntNotifyWaitMode; unsatisfied waits are told by their timeout (known-unknown code)")
{
    aclrtStream s = compat_new_stream();
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

/* A count reached on one stream releases the waits of another. */
COMPAT_TEST(counting_across_streams,
            "a count reached on one stream releases a counting wait on another",
            "API ref aclrtCntNotifyRecord, aclrtCntNotifyWaitWithTimeout")
{
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
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

COMPAT_TEST(counting_argument_rules,
            "aclrtCntNotifyCreate takes flag 0 only; unknown record and wait modes and isClear other than 0 or 1 are refused",
            "API ref aclrtCntNotifyCreate flag (reserved, 0), aclrtCntNotifyWaitInfo")
{
    aclrtCntNotify n;
    ACL_FAILS(aclrtCntNotifyCreate(&n, 1));
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    aclrtCntNotifyRecordInfo bad_record = {(aclrtCntNotifyRecordMode)3, 1};
    ACL_FAILS_WITH(aclrtCntNotifyRecord(n, NULL, &bad_record), ACL_ERROR_INVALID_PARAM);
    aclrtCntNotifyWaitInfo bad_wait = {.mode = (aclrtCntNotifyWaitMode)5};
    ACL_FAILS_WITH(aclrtCntNotifyWaitWithTimeout(n, NULL, &bad_wait), ACL_ERROR_INVALID_PARAM);
    aclrtCntNotifyWaitInfo bad_clear = {.mode = ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, .isClear = 2};
    ACL_FAILS_WITH(aclrtCntNotifyWaitWithTimeout(n, NULL, &bad_clear), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtCntNotifyDestroy(n));
}

/* ---- stream memory operations ---------------------------------------------------------------- */

COMPAT_TEST(value_write_lands_in_order,
            "aclrtValueWrite writes its 64-bit value in stream order (flag 0 only)",
            "API ref aclrtValueWrite")
{
    aclrtStream s = compat_new_stream();
    uint64_t *w = device_words(2);
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtValueWrite(&w[0], 0x0123456789abcdefULL, 0, s));
    ACL_OK(aclrtValueWrite(&w[1], UINT64_MAX, 0, s));
    compat_gate_wait_reached(&gate);
    ck_assert_uint_eq(read_word(&w[0]), 0); /* held behind the gate */
    compat_gate_open(&gate);
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

COMPAT_TEST(value_wait_comparisons,
            "aclrtValueWait holds its stream until the word compares true: GEQ ((int64_t)(*addr - value) >= 0), EQ, AND, NOR",
            "API ref aclrtValueWait flag")
{
    const wait_case *c = &wait_cases[_i];
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
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

/* A store from the host (a synchronous copy) releases a wait too. */
COMPAT_TEST(value_wait_released_from_host,
            "a value wait is released by a host store to the word (a synchronous copy); an unknown comparison is refused",
            "API ref aclrtValueWait")
{
    aclrtStream b = compat_new_stream();
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

/* ---- abort -------------------------------------------------------------------------------- */

/* A stream stuck on a wait that nothing will release is aborted: it owes
 * nothing any more, answers as idle, and runs what is queued next. */
COMPAT_TEST(abort_frees_a_stuck_stream,
            "aclrtStreamAbort drops what a stream has queued (here a wait nothing will release): the stream answers complete and takes new work",
            "API ref aclrtStreamAbort")
{
    aclrtStream b = compat_new_stream();
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

/* ---- teardown with waits pending ------------------------------------------------------------ */

static void set_flag(void *arg)
{
    *(volatile int *)arg = 1;
}

/* After a teardown, device 0 is set again (the fixture resets it) and
 * memory round-trips through it. */
static void device_usable_again(void)
{
    ACL_OK(aclrtSetDevice(0));
    enum { SIZE = 4096 };
    uint8_t *out = compat_host_buffer(SIZE), *back = compat_host_buffer(SIZE);
    for (size_t i = 0; i < SIZE; i++)
        out[i] = (uint8_t)(i * 7 + 1);
    memset(back, 0, SIZE);
    void *dev = compat_device_buffer(SIZE);
    ACL_OK(aclrtMemcpy(dev, SIZE, out, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(back, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_mem_eq(back, out, SIZE);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtFreeHost(back));
}

COMPAT_TEST(reset_force_releases_a_value_wait,
            "aclrtResetDeviceForce returns while a stream waits (aclrtValueWait) for a value nothing will write; the device can be set and used again",
            "API ref aclrtResetDeviceForce (resets the device whatever its tasks and reference count)")
{
    aclrtStream s = compat_new_stream();
    uint64_t *w = device_words(1);
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    ck_assert_int_eq(status_of(s), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtResetDeviceForce(0));
    device_usable_again();
}

COMPAT_TEST(finalize_releases_a_notify_wait,
            "aclFinalize returns while a stream waits (aclrtWaitAndResetNotify) for a notify nothing will record; ACL can be initialised and the device used again",
            "API ref aclFinalize (releases the process's ACL resources)")
{
    aclrtStream s = compat_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
    ck_assert_int_eq(status_of(s), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclFinalize());
    ACL_OK(aclInit(NULL));
    device_usable_again();
}

COMPAT_TEST(reset_releases_a_wait_of_a_force_destroyed_stream,
            "aclrtResetDevice returns when a stream destroyed by aclrtDestroyStreamForce left a wait nothing will release; the work queued before the wait has run",
            "API ref aclrtDestroyStreamForce (destroys without waiting for its tasks), aclrtResetDevice")
{
    aclrtStream s = compat_new_stream();
    uint64_t *w = device_words(1);
    volatile int ran = 0;
    ACL_OK(aclrtLaunchHostFunc(s, set_flag, (void *)&ran));
    ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    ACL_OK(aclrtDestroyStreamForce(s));
    ACL_OK(aclrtResetDevice(0));
    ck_assert_int_eq(ran, 1);
    device_usable_again();
}

/* Plain teardowns: CANN's runtime waits a bounded time for the streams it
 * releases, then recycles what is left; nothing the application can still
 * do releases a wait of a stream being torn down. */

static void pause_then_set_flag(void *arg)
{
    usleep(50 * 1000);
    set_flag(arg);
}

static void copy_flag(void *arg)
{
    volatile int *const *pair = arg;
    *pair[1] = *pair[0];
}

COMPAT_TEST(reset_gives_up_a_value_wait_nothing_satisfies,
            "aclrtResetDevice returns while a stream waits (aclrtValueWait) for a value nothing will write, and the work after that wait has run; a wait that another stream's work releases meanwhile is kept: the work after it sees that work done",
            "API ref aclrtResetDevice (waits for the tasks of the streams it releases); CANN's runtime recycles what a bounded wait leaves")
{
    aclrtStream stuck = compat_new_stream(), waiter = compat_new_stream(),
                writer = compat_new_stream();
    uint64_t *w = device_words(2);
    volatile int after_stuck = 0, written = 0, seen = 0;
    volatile int *pair[2] = {&written, &seen};
    ACL_OK(aclrtValueWait(&w[0], 1, ACL_STREAM_WAIT_VALUE_EQ, stuck));
    ACL_OK(aclrtLaunchHostFunc(stuck, set_flag, (void *)&after_stuck));
    ACL_OK(aclrtValueWait(&w[1], 1, ACL_STREAM_WAIT_VALUE_EQ, waiter));
    ACL_OK(aclrtLaunchHostFunc(waiter, copy_flag, pair));
    ACL_OK(aclrtLaunchHostFunc(writer, pause_then_set_flag, (void *)&written));
    ACL_OK(aclrtValueWrite(&w[1], 1, 0, writer));
    ACL_OK(aclrtResetDevice(0));
    ck_assert_int_eq(after_stuck, 1);
    ck_assert_int_eq(seen, 1);
    device_usable_again();
}

COMPAT_TEST(destroy_context_gives_up_a_notify_wait,
            "aclrtDestroyContext returns while a stream of the context waits (aclrtWaitAndResetNotify) for a notify nothing will record, and the work after that wait has run",
            "API ref aclrtDestroyContext (releases the context's streams)")
{
    aclrtContext ctx;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream s = compat_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    volatile int ran = 0;
    ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
    ACL_OK(aclrtLaunchHostFunc(s, set_flag, (void *)&ran));
    ck_assert_int_eq(status_of(s), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtDestroyContext(ctx));
    ck_assert_int_eq(ran, 1);
    ACL_OK(aclrtDestroyNotify(n));
    device_usable_again();
}

COMPAT_TEST(reset_gives_up_a_wait_for_an_event_never_recorded,
            "aclrtResetDevice returns while a stream waits (aclrtStreamWaitEvent) for an ACL_EVENT_EXTERNAL event nobody records, and the work after that wait has run",
            "API ref aclrtResetDevice, aclrtCreateEventWithFlag (ACL_EVENT_EXTERNAL: a wait waits for the record)")
{
    aclrtStream s = compat_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL));
    volatile int ran = 0;
    ACL_OK(aclrtStreamWaitEvent(s, e));
    ACL_OK(aclrtLaunchHostFunc(s, set_flag, (void *)&ran));
    ck_assert_int_eq(status_of(s), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtResetDevice(0));
    ck_assert_int_eq(ran, 1);
    ACL_OK(aclrtDestroyEvent(e));
    device_usable_again();
}

/* ---- rows: notifies, counting notifies, stream memory operations ---------------------------- */

/* Words a value write or wait must refuse: NULL (documented), and memory
 * ACL did not allocate, a misaligned or freed word (hostile). */
static void check_bad_words(aclError (*op)(void *, uint64_t, uint32_t, aclrtStream),
                            compat_level level)
{
    REJECTS(op(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM, "NULL");
    unsigned char *dev = compat_device_buffer(64);
    if (level == COMPAT_HOSTILE) {
        unsigned char *freed = compat_device_buffer(64);
        ACL_OK(aclrtFree(freed));
        uint64_t local[4];
        uint64_t *heap = malloc(64);
        ck_assert_ptr_nonnull(heap);
        void *bad[] = {heap, local, (void *)(uintptr_t)16, (void *)(UINTPTR_MAX - 15), dev + 4,
                       freed};
        const char *what[] = {"malloc'd memory", "a local variable", "address 16",
                              "the top of the address space", "a misaligned device address",
                              "freed device memory"};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            REJECTS(op(bad[i], 1, 0, NULL), ACL_ERROR_INVALID_PARAM, what[i]);
        free(heap);
    }
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, op(dev, 1, 0, h));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtFree(dev));
}

ROW(aclrtValueWrite)
{
    check_bad_words(aclrtValueWrite, level);
}

ROW(aclrtValueWait)
{
    check_bad_words(aclrtValueWait, level);
}

ROW(aclrtCreateNotify)
{
    REJECTS(aclrtCreateNotify(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL notify");
}

ROW(aclrtDestroyNotify)
{
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyNotify(h));
}

ROW(aclrtRecordNotify)
{
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(h, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(n, h));
    ACL_OK(aclrtDestroyNotify(n));
}

ROW(aclrtWaitAndResetNotify)
{
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify(h, NULL, 0));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify(n, h, 0));
    ACL_OK(aclrtDestroyNotify(n));
}

ROW(aclrtGetNotifyId)
{
    uint32_t id;
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(h, &id));
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    REJECTS(aclrtGetNotifyId(n, NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
    ACL_OK(aclrtDestroyNotify(n));
}

ROW(aclrtNotifyBatchReset)
{
    REJECTS(aclrtNotifyBatchReset(NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL array");
    aclrtNotify list[2];
    ACL_OK(aclrtCreateNotify(&list[0], 0));
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM,
                 (list[1] = h, aclrtNotifyBatchReset(list, 2)));
    ACL_OK(aclrtDestroyNotify(list[0]));
}

ROW(aclrtNotifyGetExportKey)
{
    char key[65];
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM,
                 aclrtNotifyGetExportKey(h, key, sizeof key, 0));
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    REJECTS(aclrtNotifyGetExportKey(n, NULL, sizeof key, 0), ACL_ERROR_INVALID_PARAM, "a NULL key");
    REJECTS_HOSTILE(aclrtNotifyGetExportKey(n, key, 8, 0), ACL_ERROR_INVALID_PARAM,
                    "an 8-byte key buffer");
    ACL_OK(aclrtDestroyNotify(n));
}

ROW(aclrtNotifyImportByKey)
{
    aclrtNotify n;
    REJECTS(aclrtNotifyImportByKey(NULL, "aclnotify-1-1", 0), ACL_ERROR_INVALID_PARAM,
            "a NULL notify");
    REJECTS(aclrtNotifyImportByKey(&n, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL key");
    if (level != COMPAT_HOSTILE)
        return;
    char junk[COMPAT_GARBAGE];
    compat_fill_random(junk, sizeof junk, 0x5eed0006);
    junk[sizeof junk - 1] = '\0';
    const char *keys[] = {"", "aclnotify-", "aclnotify-1-1/../../x", "../../etc/passwd",
                          "aclnotify-999999999-4000000000", junk};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        REJECTS(aclrtNotifyImportByKey(&n, keys[i], 0), ACL_ERROR_INVALID_PARAM, "a bad key");
}

ROW(aclrtNotifySetImportPid)
{
    int32_t pid = (int32_t)getpid();
    FOR_EACH_BAD(KIND_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(h, &pid, 1));
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    REJECTS(aclrtNotifySetImportPid(n, NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL pid list");
    REJECTS_HOSTILE(aclrtNotifySetImportPid(n, &pid, 1), ACL_ERROR_INVALID_PARAM,
                    "a notify not exported");
    ACL_OK(aclrtDestroyNotify(n));
}

ROW(aclrtCntNotifyCreate)
{
    REJECTS(aclrtCntNotifyCreate(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL notify");
}

ROW(aclrtCntNotifyDestroy)
{
    FOR_EACH_BAD(KIND_CNT_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyDestroy(h));
}

ROW(aclrtCntNotifyRecord)
{
    aclrtCntNotifyRecordInfo info = {ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1};
    FOR_EACH_BAD(KIND_CNT_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyRecord(h, NULL, &info));
    aclrtCntNotify n;
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyRecord(n, h, &info));
    REJECTS(aclrtCntNotifyRecord(n, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtCntNotifyDestroy(n));
}

ROW(aclrtCntNotifyWaitWithTimeout)
{
    aclrtCntNotifyWaitInfo info = {.mode = ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE};
    FOR_EACH_BAD(KIND_CNT_NOTIFY, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCntNotifyWaitWithTimeout(h, NULL, &info));
    aclrtCntNotify n;
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyWaitWithTimeout(n, h, &info));
    REJECTS(aclrtCntNotifyWaitWithTimeout(n, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtCntNotifyDestroy(n));
}

ROW(aclrtCntNotifyReset)
{
    FOR_EACH_BAD(KIND_CNT_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyReset(h, NULL));
    aclrtCntNotify n;
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyReset(n, h));
    ACL_OK(aclrtCntNotifyDestroy(n));
}

ROW(aclrtCntNotifyGetId)
{
    uint32_t id;
    FOR_EACH_BAD(KIND_CNT_NOTIFY, h, ACL_ERROR_INVALID_PARAM, aclrtCntNotifyGetId(h, &id));
    aclrtCntNotify n;
    ACL_OK(aclrtCntNotifyCreate(&n, 0));
    REJECTS(aclrtCntNotifyGetId(n, NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
    ACL_OK(aclrtCntNotifyDestroy(n));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtValueWrite),
    COMPAT_ROW(aclrtValueWait),
    COMPAT_ROW(aclrtCreateNotify),
    COMPAT_ROW(aclrtDestroyNotify),
    COMPAT_ROW(aclrtRecordNotify),
    COMPAT_ROW(aclrtWaitAndResetNotify),
    COMPAT_ROW(aclrtGetNotifyId),
    COMPAT_ROW(aclrtNotifyBatchReset),
    COMPAT_ROW(aclrtNotifyGetExportKey),
    COMPAT_ROW(aclrtNotifyImportByKey),
    COMPAT_ROW(aclrtNotifySetImportPid),
    COMPAT_ROW(aclrtCntNotifyCreate),
    COMPAT_ROW(aclrtCntNotifyDestroy),
    COMPAT_ROW(aclrtCntNotifyRecord),
    COMPAT_ROW(aclrtCntNotifyWaitWithTimeout),
    COMPAT_ROW(aclrtCntNotifyReset),
    COMPAT_ROW(aclrtCntNotifyGetId),
};
COMPAT_BAD_ARGS(notify, rows);

Suite *compat_suite_notify(void);
Suite *compat_suite_notify(void)
{
    Suite *s = suite_create("notify");

    TCase *notify = tcase_create("notify");
    tcase_add_checked_fixture(notify, compat_set_up, compat_tear_down);
    tcase_add_test(notify, record_releases_wait_with_data);
    tcase_add_test(notify, wait_before_record_waits);
    tcase_add_test(notify, wait_resets_the_notify);
    tcase_add_test(notify, ids_and_flags);
    tcase_add_test(notify, abort_frees_a_stuck_stream);
    suite_add_tcase(s, notify);

    TCase *shared = tcase_create("shared");
    tcase_add_checked_fixture(shared, compat_set_up, compat_tear_down);
    tcase_set_timeout(shared, 120);
    tcase_add_test(shared, record_from_another_process);
    tcase_add_test(shared, allow_list_is_enforced);
    suite_add_tcase(s, shared);

    TCase *counting = tcase_create("counting");
    tcase_add_checked_fixture(counting, compat_set_up, compat_tear_down);
    tcase_add_test(counting, counting_across_streams);
    tcase_add_test(counting, counting_argument_rules);
    suite_add_tcase(s, counting);

    TCase *value = tcase_create("value");
    tcase_add_checked_fixture(value, compat_set_up, compat_tear_down);
    tcase_add_test(value, value_write_lands_in_order);
    tcase_add_loop_test(value, value_wait_comparisons, 0,
                        (int)(sizeof wait_cases / sizeof wait_cases[0]));
    tcase_add_test(value, value_wait_released_from_host);
    suite_add_tcase(s, value);

    /* The hang guard: a teardown that waits for the waits never returns. */
    TCase *teardown = tcase_create("teardown");
    tcase_add_checked_fixture(teardown, compat_set_up, compat_tear_down);
    tcase_set_timeout(teardown, 20);
    tcase_add_test(teardown, reset_force_releases_a_value_wait);
    tcase_add_test(teardown, finalize_releases_a_notify_wait);
    tcase_add_test(teardown, reset_releases_a_wait_of_a_force_destroyed_stream);
    tcase_add_test(teardown, reset_gives_up_a_value_wait_nothing_satisfies);
    tcase_add_test(teardown, destroy_context_gives_up_a_notify_wait);
    tcase_add_test(teardown, reset_gives_up_a_wait_for_an_event_never_recorded);
    suite_add_tcase(s, teardown);

    /* What a wait that times out returns is not documented: recorded choice. */
    TCase *unknown = tcase_create("unknown");
    tcase_set_tags(unknown, "unknown");
    tcase_add_checked_fixture(unknown, compat_set_up, compat_tear_down);
    tcase_set_timeout(unknown, 60);
    tcase_add_test(unknown, wait_timeout_is_reported_by_synchronize);
    tcase_add_test(unknown, batch_reset_clears_records);
    tcase_add_test(unknown, counting_records_and_comparisons);
    suite_add_tcase(s, unknown);

    compat_add_bad_args(s, &compat_rows_notify);
    return s;
}

#ifndef COMPAT_NO_MAIN
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--peer") == 0)
        return peer_main(argc - 2, argv + 2);
    return compat_run(compat_suite_notify());
}
#endif
