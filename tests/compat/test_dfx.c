/* Logging for applications (base/acl_log.h) and dumps (acl/acl_dump.h):
 * callbacks receive records, debug-level checks, exception dump paths,
 * operator dumps refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "bad_args.h"
#include "acl/acl_dump.h"
#include "base/acl_log.h"

typedef struct seen {
    int count;
    char last[2048];
} seen;

static int32_t log_collect(void *user, uint32_t type, const char *text, size_t length)
{
    seen *s = user;
    (void)type;
    s->count++;
    snprintf(s->last, sizeof s->last, "%.*s", (int)length, text);
    return 0;
}

COMPAT_TEST(log_callback_receives_records,
            "a callback registered with acllogRegisterCallback receives acllogRecord's record "
            "(ERROR passes the default level); after acllogUnregisterCallback it does not",
            "API ref acllogRegisterCallback, acllogRecord")
{
    seen s = {0};
    acllogCallbackHandle handle = 0;
    ck_assert_int_eq(acllogRegisterCallback(log_collect, &s, OUTPUT_TYPE_BOTH, &handle), 0);
    acllogRecord(0xff00, DLOG_ERROR, "user record %d", 42);
    ck_assert_int_ge(s.count, 1);
    ck_assert_ptr_nonnull(strstr(s.last, "user record 42"));
    ck_assert_int_eq(acllogCheckDebugLevel(0xff00, DLOG_ERROR), 1);
    ck_assert_int_eq(acllogCheckDebugLevel(0xff00, DLOG_NULL), 0);
    ck_assert_int_eq(acllogUnregisterCallback(handle), 0);
    ck_assert_int_eq(acllogUnregisterCallback(handle), -1);
    int before = s.count;
    acllogRecord(0xff00, DLOG_ERROR, "not seen");
    ck_assert_int_eq(s.count, before);
}

static void vrecord(int32_t module, int32_t level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    acllogVaList(module, level, fmt, ap);
    va_end(ap);
}

COMPAT_TEST(log_callback_limit,
            "at most 16 callbacks are registered; acllogVaList records like acllogRecord",
            "API ref acllogRegisterCallback, acllogVaList")
{
    seen s = {0};
    acllogCallbackHandle handles[17];
    int ok = 0;
    for (int i = 0; i < 17; i++)
        if (acllogRegisterCallback(log_collect, &s, OUTPUT_TYPE_DEBUG, &handles[i]) == 0)
            ok++;
    ck_assert_int_eq(ok, 16);
    vrecord(0xff01, DLOG_ERROR, "va %s", "list");
    ck_assert_int_eq(s.count, 16);
    ck_assert_ptr_nonnull(strstr(s.last, "va list"));
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(acllogUnregisterCallback(handles[i]), 0);
}

COMPAT_TEST(dump_exception_paths,
            "with ASCEND_DUMP_SCENE=lite_exception and ASCEND_DUMP_PATH, acldumpGetPath gives "
            "the path for the brief exception dump and NULL for data dumps; "
            "acldumpGetExceptionInfoPath is <path>/extra-info/data-dump/<device>/, and "
            "acldumpSaveExceptionInfo writes <fileName>.custom.<ms> there",
            "API ref acldumpGetPath, acldumpGetExceptionInfoPath, acldumpSaveExceptionInfo")
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/compat-dump-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_null(acldumpGetPath(AIC_ERR_BRIEF_DUMP));
    char path[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    ACL_FAILS(acldumpGetExceptionInfoPath(path, sizeof path));
    setenv("ASCEND_DUMP_SCENE", "lite_exception", 1);
    setenv("ASCEND_DUMP_PATH", dir, 1);
    ck_assert_str_eq(acldumpGetPath(AIC_ERR_BRIEF_DUMP), dir);
    ck_assert_ptr_null(acldumpGetPath(DATA_DUMP));
    ck_assert_ptr_null(acldumpGetPath(OVERFLOW_DUMP));
    ACL_OK(acldumpGetExceptionInfoPath(path, sizeof path));
    char want[128];
    snprintf(want, sizeof want, "%s/extra-info/data-dump/0/", dir);
    ck_assert_str_eq(path, want);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ACL_FAILS(acldumpGetExceptionInfoPath(path, 8));

    void *dev = compat_device_buffer(16);
    ACL_OK(aclrtMemset(dev, 16, 0x7A, 16));
    acldumpTensorInfo t;
    memset(&t, 0, sizeof t);
    t.type = ACL_DUMP_TENSOR_INPUT;
    t.tensorSize = 16;
    t.tensorAddr = dev;
    t.addrType = ACL_DUMP_ADDR_RAW;
    t.placement = ACL_DUMP_PLACEMENT_DEVICE;
    t.shapeNum = 1;
    t.shape[0] = 16;
    ACL_OK(acldumpSaveExceptionInfo("mine", "tag", &t, 1));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s/extra-info/data-dump/0/ | grep -q '^mine.custom.'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ACL_FAILS(acldumpSaveExceptionInfo("../up", NULL, NULL, 0));
    ACL_OK(aclrtFree(dev));
    unsetenv("ASCEND_DUMP_SCENE");
    unsetenv("ASCEND_DUMP_PATH");
}

static int chunks_seen;
static int32_t dump_collect(const acldumpChunk *chunk, int32_t len)
{
    (void)len;
    ck_assert_uint_eq(chunk->isLastChunk, 1);
    ck_assert_ptr_nonnull(strstr(chunk->fileName, "viacb.custom."));
    chunks_seen++;
    return 0;
}

COMPAT_TEST(dump_callback_replaces_files,
            "with acldumpRegCallback, saved exception information reaches the callback",
            "API ref acldumpRegCallback, acldumpUnregCallback")
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/compat-dump-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("ASCEND_DUMP_SCENE", "aic_err_norm_dump", 1);
    setenv("ASCEND_DUMP_PATH", dir, 1);
    ck_assert_str_eq(acldumpGetPath(AIC_ERR_NORM_DUMP), dir);
    ck_assert_ptr_null(acldumpGetPath(AIC_ERR_BRIEF_DUMP));
    ACL_OK(acldumpRegCallback(dump_collect, 0));
    ACL_OK(acldumpSaveExceptionInfo("viacb", "tag", NULL, 0));
    acldumpUnregCallback();
    ck_assert_int_eq(chunks_seen, 1);
    unsetenv("ASCEND_DUMP_SCENE");
    unsetenv("ASCEND_DUMP_PATH");
}

COMPAT_TEST(operator_dumps_refused, "aclopStartDumpArgs is refused: no CANN operators run here",
            "API ref aclopStartDumpArgs")
{
    ck_assert_int_eq(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, "/tmp"),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ck_assert_int_eq(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

/* ---- bad arguments ------------------------------------------------------------ */

ROW(acllogRegisterCallback)
{
    acllogCallbackHandle h;
    ck_assert_int_eq(acllogRegisterCallback(NULL, NULL, OUTPUT_TYPE_BOTH, &h), -1);
    ck_assert_int_eq(acllogRegisterCallback(log_collect, NULL, OUTPUT_TYPE_BOTH, NULL), -1);
    ck_assert_int_eq(acllogRegisterCallback(log_collect, NULL, OUTPUT_TYPE_MAX, &h), -1);
}

ROW(acllogRecord)
{
    acllogRecord(0xff00, DLOG_ERROR, NULL);
    acllogRecord(0xff00, 99, "level out of range");
}

ROW(acllogVaList)
{
    vrecord(0xff00, DLOG_ERROR, NULL);
    vrecord(0xff00, -1, "level out of range");
}

ROW(acldumpRegCallback)
{
    REJECTS(acldumpRegCallback(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL callback");
}

ROW(acldumpSaveExceptionInfo)
{
    REJECTS(acldumpSaveExceptionInfo(NULL, NULL, NULL, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL fileName");
    REJECTS(acldumpSaveExceptionInfo("/abs", NULL, NULL, 0), ACL_ERROR_INVALID_PARAM,
            "an absolute fileName");
    REJECTS(acldumpSaveExceptionInfo("f", NULL, NULL, 2), ACL_ERROR_INVALID_PARAM,
            "NULL tensors");
}

ROW(acldumpGetExceptionInfoPath)
{
    REJECTS(acldumpGetExceptionInfoPath(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL path");
    char path[8];
    REJECTS(acldumpGetExceptionInfoPath(path, 0), ACL_ERROR_INVALID_PARAM, "a zero maxLen");
}

static const compat_row rows[] = {
    COMPAT_ROW(acllogRegisterCallback), COMPAT_ROW(acllogRecord),
    COMPAT_ROW(acllogVaList),           COMPAT_ROW(acldumpRegCallback),
    COMPAT_ROW(acldumpSaveExceptionInfo), COMPAT_ROW(acldumpGetExceptionInfoPath),
};
COMPAT_BAD_ARGS(dfx, rows);

Suite *compat_suite_dfx(void);
Suite *compat_suite_dfx(void)
{
    Suite *s = suite_create("dfx");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, log_callback_receives_records);
    tcase_add_test(tc, log_callback_limit);
    tcase_add_test(tc, dump_exception_paths);
    tcase_add_test(tc, dump_callback_replaces_files);
    tcase_add_test(tc, operator_dumps_refused);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_dfx);
    return s;
}

COMPAT_MAIN(dfx)
