/* acl-cuda's stubs: every declared function it does not provide fails with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT and a message naming the function
 * (docs/api-coverage.md). */
#include "acltest.h"

static void init_plain(void)
{
    ACL_OK(aclInit(NULL));
}

static void finalize(void)
{
    ACL_OK(aclFinalize());
}

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
    Suite *s = suite_create("unsupported");
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
