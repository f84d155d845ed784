/* Which backend a process gets (ACLCUDA_BACKEND, README's table). Each test
 * runs in its own forked process, so each chooses afresh. */
#include "config.h"

#include "acl/acl_cuda.h"
#include "acltest.h"

START_TEST(host_when_asked)
{
    setenv("ACLCUDA_BACKEND", "host", 1);
    ck_assert_str_eq(aclcudaGetBackendName(), "host");
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_uint_ge(count, 1);
}
END_TEST

/* An explicit "cuda" is never quietly replaced by host: a build with the
 * cuda backend names it even where no GPU answers (it then has no
 * devices), and a build without it has no devices. */
START_TEST(cuda_when_asked)
{
    setenv("ACLCUDA_BACKEND", "cuda", 1);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
#ifdef ACLCUDA_HAVE_CUDA
    ck_assert_str_eq(aclcudaGetBackendName(), "cuda");
#else
    ck_assert_uint_eq(count, 0);
#endif
    if (count == 0)
        ACL_FAILS_WITH(aclrtSetDevice(0), ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

START_TEST(unknown_choice_means_auto)
{
    setenv("ACLCUDA_BACKEND", "quantum", 1);
    const char *name = aclcudaGetBackendName();
    ck_assert(strcmp(name, "host") == 0 || strcmp(name, "cuda") == 0);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_uint_ge(count, 1); /* auto always ends with a usable backend */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("backend");
    TCase *choice = tcase_create("choice");
    tcase_add_test(choice, host_when_asked);
    tcase_add_test(choice, cuda_when_asked);
    tcase_add_test(choice, unknown_choice_means_auto);
    suite_add_tcase(s, choice);
    return acltest_run(s);
}
