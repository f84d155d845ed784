/* ASCEND_RT_VISIBLE_DEVICES on the host backend's emulated devices
 * (ACLCUDA_HOST_DEVICE_COUNT), remapping a list with gaps. The portable
 * check of the same variable is in the compatibility suite
 * (tests/compat/test_device.c, visible_devices_select). */
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "acltest.h"

static uint32_t device_count(void)
{
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    return count;
}

/* The backend the library picks, asked in a child so that this process makes
 * its first ACL call only after setting the environment. */
static bool backend_is_host(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(strcmp(aclcudaGetBackendName(), "host") == 0 ? 0 : 1);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status) == 0;
}

START_TEST(visible_devices_remap)
{
    if (!backend_is_host()) {
        ACL_OK(aclInit(NULL));
        ck_assert_uint_ge(device_count(), 1);
        ACL_OK(aclFinalize());
        return;
    }
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "4", 1);
    setenv("ASCEND_RT_VISIBLE_DEVICES", "1,3", 1);
    ACL_OK(aclInit(NULL));
    ck_assert_uint_eq(device_count(), 2);
    ACL_FAILS_WITH(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtSetDevice(1));
    int32_t got = -1;
    ACL_OK(aclrtGetDevice(&got));
    ck_assert_int_eq(got, 1);
    ACL_OK(aclrtResetDevice(1));

    /* User id n is the n-th listed logical id. */
    int32_t logic = -1;
    aclError ret = aclrtGetLogicDevIdByUserDevId(1, &logic);
    if (ret != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        ACL_OK(ret);
        ck_assert_int_eq(logic, 3);
        ACL_OK(aclrtGetLogicDevIdByUserDevId(0, &logic));
        ck_assert_int_eq(logic, 1);
    }
    int32_t user = -1;
    ret = aclrtGetUserDevIdByLogicDevId(3, &user);
    if (ret != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        ACL_OK(ret);
        ck_assert_int_eq(user, 1);
        ACL_OK(aclrtGetUserDevIdByLogicDevId(1, &user));
        ck_assert_int_eq(user, 0);
    }
    (void)aclGetRecentErrMsg();
    ACL_OK(aclFinalize());
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device (host backend)");
    /* No fixture: the environment must be set before the first ACL call. */
    TCase *visible = tcase_create("visible_devices");
    tcase_add_test(visible, visible_devices_remap);
    suite_add_tcase(s, visible);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
