/* Profiling (acl/acl_prof.h) and the mstx markers (mstx/ms_tools_ext.h):
 * the documented call order and codes, stamps, marks and ranges. What the
 * profile holds is acl-cuda's own and is tested in tests/check/test_prof.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "bad_args.h"
#include "acl/acl_prof.h"
#include "mstx/ms_tools_ext.h"

static void temp_dir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/compat-prof-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

COMPAT_TEST(prof_call_order,
            "aclprofStart, aclprofStop and aclprofFinalize need aclprofInit; aclprofInit and "
            "aclprofStart twice fail; aclprofStop needs the configuration aclprofStart had",
            "API ref aclprofInit, aclprofStart, aclprofStop, aclprofFinalize")
{
    char dir[64];
    temp_dir(dir, sizeof dir);
    uint32_t devices[] = {0};
    aclprofConfig *config =
        aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
    ck_assert_ptr_nonnull(config);
    aclprofConfig *other = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API);
    ck_assert_ptr_nonnull(other);
    ACL_FAILS(aclprofStart(config));
    ACL_FAILS(aclprofFinalize());
    ACL_OK(aclprofInit(dir, strlen(dir)));
    ACL_FAILS(aclprofInit(dir, strlen(dir)));
    ACL_FAILS(aclprofStop(config));
    ACL_OK(aclprofStart(config));
    ACL_FAILS(aclprofStart(config));
    ACL_FAILS(aclprofStop(other));
    ACL_OK(aclprofStop(config));
    ACL_OK(aclprofFinalize());
    ACL_OK(aclprofDestroyConfig(config));
    ACL_OK(aclprofDestroyConfig(other));
}

COMPAT_TEST(prof_stamps_and_marks,
            "stamps carry a message to marks, pushes and ranges; aclprofPop without a push "
            "and aclprofRangeStop of an id not open fail",
            "API ref aclprofCreateStamp, aclprofPush, aclprofRangeStart, aclprofMarkEx")
{
    void *stamp = aclprofCreateStamp();
    ck_assert_ptr_nonnull(stamp);
    ACL_OK(aclprofSetStampTraceMessage(stamp, "phase", 5));
    ACL_OK(aclprofMark(stamp));
    ACL_OK(aclprofPush(stamp));
    ACL_OK(aclprofPop());
    ACL_FAILS(aclprofPop());
    uint32_t id = 0;
    ACL_OK(aclprofRangeStart(stamp, &id));
    ACL_OK(aclprofRangeStop(id));
    ACL_FAILS(aclprofRangeStop(id));
    ACL_OK(aclprofMarkEx("mark", 4, NULL));
    ck_assert_uint_eq(aclprofStr2Id("op"), aclprofStr2Id("op"));
    ck_assert_uint_ne(aclprofStr2Id("op"), aclprofStr2Id("po"));
    aclprofStepInfo *step = aclprofCreateStepInfo();
    ck_assert_ptr_nonnull(step);
    ACL_OK(aclprofGetStepTimestamp(step, ACL_STEP_START, NULL));
    ACL_OK(aclprofGetStepTimestamp(step, ACL_STEP_END, NULL));
    aclprofDestroyStepInfo(step);
    aclprofTensorInfo info = {0};
    aclprofEventAttributes attr = {ACL_PROF_EVENT_ATTR_VERSION, sizeof attr,
                                   ACL_PROF_MESSAGE_TYPE_TENSOR_INFO, {&info}};
    ACL_OK(aclprofRangePushEx(&attr));
    ACL_OK(aclprofRangePop());
    ACL_OK(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5));
    aclprofDestroyStamp(stamp);
}

COMPAT_TEST(mstx_marks_and_ranges,
            "mstx marks and ranges, alone and in a domain; a range id is never 0",
            "msprof mstxMarkA, mstxRangeStartA, mstxDomainCreateA")
{
    aclrtStream stream = compat_new_stream();
    mstxMarkA("mark", stream);
    mstxRangeId id = mstxRangeStartA("range", stream);
    ck_assert_uint_ne(id, 0);
    mstxRangeEnd(id);
    mstxDomainHandle_t domain = mstxDomainCreateA("domain");
    ck_assert_ptr_nonnull(domain);
    mstxDomainMarkA(domain, "mark", NULL);
    id = mstxDomainRangeStartA(domain, "range", NULL);
    ck_assert_uint_ne(id, 0);
    mstxDomainRangeEnd(domain, id);
    mstxDomainDestroy(domain);
    ACL_OK(aclrtDestroyStream(stream));
}

/* ---- bad arguments ------------------------------------------------------------ */

ROW(aclprofInit)
{
    REJECTS(aclprofInit(NULL, 4), ACL_ERROR_INVALID_PARAM, "a NULL path");
    REJECTS(aclprofInit("/tmp", 0), ACL_ERROR_INVALID_PARAM, "a zero length");
    REJECTS(aclprofInit("/tmp", 5000), ACL_ERROR_INVALID_PARAM, "a length over 4096");
    REJECTS(aclprofInit("/proc/none/x", 12), ACL_ERROR_INVALID_PARAM, "a path that cannot be made");
}

ROW(aclprofCreateConfig)
{
    uint32_t devices[] = {0, 0};
    REJECTS_VALUE(aclprofCreateConfig(NULL, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API), NULL,
                  "a NULL device list");
    REJECTS_VALUE(aclprofCreateConfig(devices, 2, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API), NULL,
                  "a device listed twice");
    uint32_t missing[] = {4096};
    REJECTS_VALUE(aclprofCreateConfig(missing, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API), NULL,
                  "a device that does not exist");
    REJECTS_VALUE(aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, NULL, 1ULL << 60), NULL,
                  "unknown data types");
    REJECTS_VALUE(aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, (const aclprofAicoreEvents *)devices,
                                      ACL_PROF_ACL_API),
                  NULL, "aicoreEvents not NULL");
}

ROW(aclprofDestroyConfig)
{
    REJECTS(aclprofDestroyConfig(NULL), ACL_ERROR_INVALID_PARAM, "a NULL config");
    unsigned char local[64] = {0};
    REJECTS_HOSTILE(aclprofDestroyConfig((const aclprofConfig *)local), ACL_ERROR_INVALID_PARAM,
                    "a local variable");
}

ROW(aclprofStart)
{
    REJECTS(aclprofStart(NULL), ACL_ERROR_INVALID_PARAM, "a NULL config");
    unsigned char local[64] = {0};
    REJECTS_HOSTILE(aclprofStart((const aclprofConfig *)local), ACL_ERROR_INVALID_PARAM,
                    "a local variable");
}

ROW(aclprofStop)
{
    REJECTS(aclprofStop(NULL), ACL_ERROR_INVALID_PARAM, "a NULL config");
}

ROW(aclprofSetConfig)
{
    REJECTS(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, NULL, 4), ACL_ERROR_INVALID_PARAM,
            "a NULL config");
    REJECTS(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "x", 0), ACL_ERROR_INVALID_PARAM,
            "a zero length");
    REJECTS(aclprofSetConfig(ACL_PROF_ARGS_MAX, "x", 1), ACL_ERROR_INVALID_PROFILING_CONFIG,
            "a type out of range");
}

ROW(aclprofGetStepTimestamp)
{
    REJECTS(aclprofGetStepTimestamp(NULL, ACL_STEP_START, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL step info");
    aclprofStepInfo *step = aclprofCreateStepInfo();
    REJECTS(aclprofGetStepTimestamp(step, (aclprofStepTag)7, NULL), ACL_ERROR_INVALID_PARAM,
            "a tag out of range");
    aclprofDestroyStepInfo(step);
    REJECTS_HOSTILE(aclprofGetStepTimestamp(step, ACL_STEP_START, NULL), ACL_ERROR_INVALID_PARAM,
                    "a destroyed step info");
}

ROW(aclprofDestroyStepInfo)
{
    (void)aclGetRecentErrMsg();
    aclprofDestroyStepInfo(NULL);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

ROW(aclprofDestroyStamp)
{
    (void)aclGetRecentErrMsg();
    aclprofDestroyStamp(NULL);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
    unsigned char local[8];
    if (level == COMPAT_HOSTILE) {
        aclprofDestroyStamp(local);
        ck_assert_ptr_nonnull(aclGetRecentErrMsg());
    }
}

ROW(aclprofPush)
{
    REJECTS(aclprofPush(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stamp");
}

ROW(aclprofRangeStart)
{
    uint32_t id;
    REJECTS(aclprofRangeStart(NULL, &id), ACL_ERROR_INVALID_PARAM, "a NULL stamp");
    void *stamp = aclprofCreateStamp();
    REJECTS(aclprofRangeStart(stamp, NULL), ACL_ERROR_INVALID_PARAM, "a NULL rangeId");
    aclprofDestroyStamp(stamp);
}

ROW(aclprofSetStampTraceMessage)
{
    REJECTS(aclprofSetStampTraceMessage(NULL, "m", 1), ACL_ERROR_INVALID_PARAM, "a NULL stamp");
    void *stamp = aclprofCreateStamp();
    REJECTS(aclprofSetStampTraceMessage(stamp, NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL msg");
    REJECTS(aclprofSetStampTraceMessage(stamp, "m", 0), ACL_ERROR_INVALID_PARAM, "a zero length");
    aclprofDestroyStamp(stamp);
}

ROW(aclprofMark)
{
    REJECTS(aclprofMark(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stamp");
}

ROW(aclprofMarkEx)
{
    REJECTS(aclprofMarkEx(NULL, 1, NULL), ACL_ERROR_INVALID_PARAM, "a NULL msg");
    REJECTS(aclprofMarkEx("m", 0, NULL), ACL_ERROR_INVALID_PARAM, "a zero length");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclprofMarkEx("m", 1, h));
}

ROW(aclprofStr2Id)
{
    REJECTS_VALUE(aclprofStr2Id(NULL), 0, "a NULL message");
}

ROW(aclprofRangePushEx)
{
    REJECTS(aclprofRangePushEx(NULL), ACL_ERROR_INVALID_PARAM, "a NULL attr");
    aclprofEventAttributes attr = {ACL_PROF_EVENT_ATTR_VERSION, sizeof attr,
                                   ACL_PROF_MESSAGE_TYPE_TENSOR_INFO, {NULL}};
    REJECTS(aclprofRangePushEx(&attr), ACL_ERROR_INVALID_PARAM, "a NULL tensor info");
}

ROW(mstxMarkA)
{
    (void)aclGetRecentErrMsg();
    mstxMarkA(NULL, NULL);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

ROW(mstxRangeStartA)
{
    REJECTS_VALUE(mstxRangeStartA(NULL, NULL), 0, "a NULL message");
}

ROW(mstxDomainCreateA)
{
    REJECTS_VALUE(mstxDomainCreateA(NULL), NULL, "a NULL name");
}

ROW(mstxDomainDestroy)
{
    (void)aclGetRecentErrMsg();
    mstxDomainDestroy(NULL);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

ROW(mstxDomainMarkA)
{
    (void)aclGetRecentErrMsg();
    mstxDomainMarkA(NULL, "m", NULL);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

ROW(mstxDomainRangeStartA)
{
    REJECTS_VALUE(mstxDomainRangeStartA(NULL, "m", NULL), 0, "a NULL domain");
}

ROW(mstxDomainRangeEnd)
{
    (void)aclGetRecentErrMsg();
    mstxDomainRangeEnd(NULL, 1);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

static const compat_row rows[] = {
    COMPAT_ROW(aclprofInit),
    COMPAT_ROW(aclprofCreateConfig),
    COMPAT_ROW(aclprofDestroyConfig),
    COMPAT_ROW(aclprofStart),
    COMPAT_ROW(aclprofStop),
    COMPAT_ROW(aclprofSetConfig),
    COMPAT_ROW(aclprofGetStepTimestamp),
    COMPAT_ROW(aclprofDestroyStepInfo),
    COMPAT_ROW(aclprofDestroyStamp),
    COMPAT_ROW(aclprofPush),
    COMPAT_ROW(aclprofRangeStart),
    COMPAT_ROW(aclprofSetStampTraceMessage),
    COMPAT_ROW(aclprofMark),
    COMPAT_ROW(aclprofMarkEx),
    COMPAT_ROW(aclprofStr2Id),
    COMPAT_ROW(aclprofRangePushEx),
    COMPAT_ROW(mstxMarkA),
    COMPAT_ROW(mstxRangeStartA),
    COMPAT_ROW(mstxDomainCreateA),
    COMPAT_ROW(mstxDomainDestroy),
    COMPAT_ROW(mstxDomainMarkA),
    COMPAT_ROW(mstxDomainRangeStartA),
    COMPAT_ROW(mstxDomainRangeEnd),
};
COMPAT_BAD_ARGS(prof, rows);

Suite *compat_suite_prof(void);
Suite *compat_suite_prof(void)
{
    Suite *s = suite_create("prof");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, prof_call_order);
    tcase_add_test(tc, prof_stamps_and_marks);
    tcase_add_test(tc, mstx_marks_and_ranges);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_prof);
    return s;
}

COMPAT_MAIN(prof)
