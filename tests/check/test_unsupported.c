/* acl-cuda's stubs and refusals: every declared function it does not
 * provide fails with ACL_ERROR_RT_FEATURE_NOT_SUPPORT and a message naming
 * the function, and every function it refuses (REFUSED in src/api/api.def,
 * with its reason in docs/api-coverage.md) fails with the same code and a
 * message saying why. The functions are found in the API table, so the
 * tests follow it as functions get implemented. Functions it accepts with
 * no effect (ACCEPTED) succeed and their getters give back what was set. */
#include "acltest.h"
#include "acl/acl_cuda.h"
#include "acl/acl_platform.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "acl/ops/acl_dvpp.h"
/* ---- profiling, logging, dumps (issue 29) ---- */
#include "acl/acl_dump.h"
#include "acl/acl_prof.h"
#include "base/acl_log.h"
#include "mstx/ms_tools_ext.h"

static void init_plain(void)
{
    ACL_OK(aclInit(NULL));
}

static void finalize(void)
{
    ACL_OK(aclFinalize());
}

/* Asserts that fn returned ACL_ERROR_RT_FEATURE_NOT_SUPPORT with a message
 * containing `text`. */
#define ASSERT_REFUSED(name, text, call)                                                           \
    do {                                                                                           \
        (void)aclGetRecentErrMsg();                                                                \
        aclError ret_ = (call);                                                                    \
        ck_assert_msg(ret_ == ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s returned %d", name, ret_);     \
        const char *msg_ = aclGetRecentErrMsg();                                                   \
        ck_assert_msg(msg_ != NULL, "%s left no message", name);                                   \
        ck_assert_msg(strstr(msg_, text) != NULL, "message \"%s\" does not contain \"%s\"", msg_,  \
                      text);                                                                       \
    } while (0)

/* Every row of the table, with the function's address. */
#define ACL_API(name, header, area, status, args, ret, params, fail)                               \
    {#name, #status, #ret, #params, (void (*)(void))name},
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static const struct table_row {
    const char *name, *status, *ret, *params;
    void (*fn)(void);
} table[] = {
#include "api/api.def"
};
#pragma GCC diagnostic pop
#undef ACL_API

/* A row of `status` that can be called without arguments, returning an
 * aclError (or, with pointer, a pointer). */
static bool callable(const struct table_row *r, const char *status, bool pointer)
{
    if (strcmp(r->status, status) != 0 || strcmp(r->params, "(void)") != 0)
        return false;
    return pointer ? strchr(r->ret, '*') != NULL : strcmp(r->ret, "aclError") == 0;
}

START_TEST(unsupported_functions_say_so)
{
    ACL_OK(aclrtSetDevice(0));
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (callable(&table[i], "UNSUPPORTED", false))
            ASSERT_REFUSED(table[i].name, table[i].name, ((aclError(*)(void))table[i].fn)());
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

START_TEST(unsupported_pointer_function_says_so)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!callable(&table[i], "UNSUPPORTED", true))
            continue;
        (void)aclGetRecentErrMsg();
        ck_assert_ptr_null(((void *(*)(void))table[i].fn)());
        const char *msg = aclGetRecentErrMsg();
        ck_assert_ptr_nonnull(msg);
        ck_assert_msg(strstr(msg, table[i].name) != NULL, "message \"%s\" does not name %s", msg,
                      table[i].name);
        ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
}
END_TEST

/* Refusals name the function and say why; a few of them, called with
 * plausible arguments. */
START_TEST(refused_functions_say_why)
{
    ACL_OK(aclrtSetDevice(0));
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (callable(&table[i], "REFUSED", false))
            ASSERT_REFUSED(table[i].name, table[i].name, ((aclError(*)(void))table[i].fn)());
    ASSERT_REFUSED("aclrtStreamStop", "cannot stop a running kernel", aclrtStreamStop(NULL));
    ASSERT_REFUSED("aclrtResetOverflowStatus", "no floating-point overflow status",
                   aclrtResetOverflowStatus(NULL));
    ASSERT_REFUSED("aclmdlSetDump", "no CANN operators", aclmdlSetDump("/dev/null"));
    aclrtFuncHandle f = NULL;
    ASSERT_REFUSED("aclrtRegisterCpuFunc", "AI CPU", aclrtRegisterCpuFunc(NULL, "f", "k", &f));
    void *addr = NULL;
    ASSERT_REFUSED("aclrtGetHardwareSyncAddr", "cube and vector", aclrtGetHardwareSyncAddr(&addr));
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

/* Accepted settings change nothing on the device, but a program reads back
 * what it set, as on CANN; a few of them (the others with their areas). */
START_TEST(accepted_functions_keep_what_they_are_given)
{
    ACL_OK(aclrtSetDevice(0));
    for (int ts = ACL_TS_ID_AICORE; ts <= ACL_TS_ID_RESERVED; ts++)
        ACL_OK(aclrtSetTsDevice((aclrtTsId)ts));
    ck_assert_int_eq(aclrtSetTsDevice((aclrtTsId)(ACL_TS_ID_RESERVED + 1)),
                     ACL_ERROR_INVALID_PARAM);

    int64_t value = -1;
    ACL_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
    ck_assert_int_eq(value, 1);
    ACL_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
    ACL_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value));
    ck_assert_int_eq(value, 1);
    ACL_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 0));

    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE));
    aclrtStreamAttrValue attr = {.failureMode = ACL_CONTINUE_ON_FAILURE};
    ACL_OK(aclrtGetStreamAttribute(stream, ACL_STREAM_ATTR_FAILURE_MODE, &attr));
    ck_assert_uint_eq(attr.failureMode, ACL_STOP_ON_FAILURE);
    ACL_OK(aclrtDestroyStream(stream));

    uint64_t actual = 0;
    ACL_OK(aclrtSetOpExecuteTimeOutV2(2500, &actual));
    ck_assert_uint_eq(actual, 3000); /* rounded up to the 1 ms interval */
    uint32_t timeout_ms = 0;
    ACL_OK(aclrtGetOpExecuteTimeout(&timeout_ms));
    ck_assert_uint_eq(timeout_ms, 3);
    ACL_OK(aclrtSetOpExecuteTimeOut(0)); /* the longest, the default */
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("unsupported");
    TCase *unsupported = tcase_create("unsupported");
    tcase_add_checked_fixture(unsupported, init_plain, finalize);
    tcase_add_test(unsupported, unsupported_functions_say_so);
    tcase_add_test(unsupported, unsupported_pointer_function_says_so);
    tcase_add_test(unsupported, refused_functions_say_why);
    tcase_add_test(unsupported, accepted_functions_keep_what_they_are_given);
    suite_add_tcase(s, unsupported);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
