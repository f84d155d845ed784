/* DVPP memory (acl/ops/acl_dvpp.h): acldvppMalloc, acldvppMallocWithCfg,
 * acldvppFree. */
#include <stdint.h>

#include "compat.h"
#include "bad_args.h"
#include "acl/ops/acl_dvpp.h"

COMPAT_TEST(test_dvpp_malloc,
            "acldvppMalloc gives device memory whose start is 128-byte aligned and whose size is "
            "rounded up to a multiple of 32 plus 32 bytes; copies reach all of it",
            "API ref acldvppMalloc")
{
    void *p = NULL;
    ACL_OK(acldvppMalloc(&p, 100));
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 128, 0);
    ACL_OK(aclrtMemset(p, 160, 0x5C, 160));
    unsigned char back[160];
    ACL_OK(aclrtMemcpy(back, 160, p, 160, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(back, 160, 0x5C);
    ACL_OK(acldvppFree(p));
}

COMPAT_TEST(test_dvpp_mem_type,
            "aclrtCheckMemType matches DVPP memory with ACL_RT_MEM_TYPE_DVPP (checkResult 1)",
            "API ref aclrtCheckMemType")
{
    void *p = NULL;
    ACL_OK(acldvppMalloc(&p, 4096));
    uint32_t check = 0;
    void *addrs[1] = {p};
    ACL_OK(aclrtCheckMemType(addrs, 1, ACL_RT_MEM_TYPE_DVPP, &check, 0));
    ck_assert_uint_eq(check, 1);
    ACL_OK(acldvppFree(p));
}

COMPAT_TEST(test_dvpp_malloc_with_cfg,
            "acldvppMallocWithCfg takes a page policy and an optional configuration (NULL for "
            "none); acldvppFree frees it once, a second free fails",
            "API ref acldvppMallocWithCfg, acldvppFree")
{
    void *p = NULL, *q = NULL;
    ACL_OK(acldvppMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    aclrtMallocAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attr.value.deviceId = 0;
    aclrtMallocConfig cfg = {&attr, 1};
    ACL_OK(acldvppMallocWithCfg(&q, 4096, ACL_MEM_MALLOC_NORMAL_ONLY, &cfg));
    ck_assert_ptr_ne(p, q);
    ACL_OK(aclrtMemcpy(q, 4096, p, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(acldvppFree(p));
    ACL_OK(acldvppFree(q));
    ACL_FAILS(acldvppFree(p));
}

/* ---- bad arguments ------------------------------------------------------------ */

ROW(acldvppMalloc)
{
    REJECTS(acldvppMalloc(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

ROW(acldvppMallocWithCfg)
{
    REJECTS(acldvppMallocWithCfg(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

ROW(acldvppFree)
{
    REJECTS(acldvppFree(NULL), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    unsigned char local[64];
    REJECTS_HOSTILE(acldvppFree(local), ANY_ERROR, "a local variable");
}

static const compat_row rows[] = {
    COMPAT_ROW(acldvppMalloc),
    COMPAT_ROW(acldvppMallocWithCfg),
    COMPAT_ROW(acldvppFree),
};
COMPAT_BAD_ARGS(dvpp, rows);

Suite *compat_suite_dvpp(void);
Suite *compat_suite_dvpp(void)
{
    Suite *s = suite_create("dvpp");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dvpp_malloc);
    tcase_add_test(tc, test_dvpp_mem_type);
    tcase_add_test(tc, test_dvpp_malloc_with_cfg);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_dvpp);
    return s;
}

COMPAT_MAIN(dvpp)
