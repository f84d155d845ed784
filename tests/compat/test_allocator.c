/* Custom allocators (acl_rt_allocator.h): descriptors, registration per
 * stream, and the allocator handed back by aclrtAllocatorGetByStream. */
#include <stdint.h>

#include "compat.h"
#include "bad_args.h"

/* A test allocator: device memory from aclrtMalloc, counting its calls. */
typedef struct test_allocator {
    int allocs, frees, advises, addrs;
} test_allocator;

typedef struct test_block {
    void *dev;
} test_block;

static void *alloc_fn(aclrtAllocator allocator, size_t size)
{
    test_allocator *a = allocator;
    test_block *b = calloc(1, sizeof *b);
    if (b == NULL || aclrtMalloc(&b->dev, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        free(b);
        return NULL;
    }
    a->allocs++;
    return b;
}

static void free_fn(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    test_allocator *a = allocator;
    test_block *b = block;
    (void)aclrtFree(b->dev);
    free(b);
    a->frees++;
}

static void *advise_fn(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    (void)addr;
    ((test_allocator *)allocator)->advises++;
    return alloc_fn(allocator, size);
}

static void *addr_fn(aclrtAllocatorBlock block)
{
    return ((test_block *)block)->dev;
}

static aclrtAllocatorDesc full_desc(test_allocator *a)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    ck_assert_ptr_nonnull(d);
    ACL_OK(aclrtAllocatorSetObjToDesc(d, a));
    ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_fn));
    ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_fn));
    ACL_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_fn));
    ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_fn));
    return d;
}

COMPAT_TEST(test_register_and_get,
            "aclrtAllocatorGetByStream returns the descriptor registered for the stream with its "
            "allocator object and functions, which reach the application's allocator",
            "API ref aclrtAllocatorRegister, aclrtAllocatorGetByStream")
{
    test_allocator mine = {0};
    aclrtAllocatorDesc d = full_desc(&mine);
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtAllocatorRegister(s, d));
    aclrtAllocatorDesc got_desc = NULL;
    aclrtAllocator got_obj = NULL;
    aclrtAllocatorAllocFunc got_alloc = NULL;
    aclrtAllocatorFreeFunc got_free = NULL;
    aclrtAllocatorAllocAdviseFunc got_advise = NULL;
    aclrtAllocatorGetAddrFromBlockFunc got_addr = NULL;
    ACL_OK(aclrtAllocatorGetByStream(s, &got_desc, &got_obj, &got_alloc, &got_free, &got_advise,
                                     &got_addr));
    ck_assert_ptr_eq(got_desc, d);
    ck_assert_ptr_eq(got_obj, &mine);
    ck_assert(got_alloc == alloc_fn && got_free == free_fn && got_advise == advise_fn &&
              got_addr == addr_fn);
    /* A component working for the stream uses what it gets. */
    void *block = got_alloc(got_obj, 4096);
    ck_assert_ptr_nonnull(block);
    void *dev = got_addr(block);
    ACL_OK(aclrtMemsetAsync(dev, 4096, 0x2A, 4096, s));
    ACL_OK(aclrtSynchronizeStream(s));
    got_free(got_obj, block);
    ck_assert_int_eq(mine.allocs, 1);
    ck_assert_int_eq(mine.frees, 1);
    /* Outputs other than the descriptor are optional. */
    ACL_OK(aclrtAllocatorGetByStream(s, &got_desc, NULL, NULL, NULL, NULL, NULL));
    ACL_OK(aclrtAllocatorUnregister(s));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_last_registration_wins,
            "registering again on the same stream replaces the earlier allocator",
            "API ref aclrtAllocatorRegister (constraints)")
{
    test_allocator first = {0}, second = {0};
    aclrtAllocatorDesc d1 = full_desc(&first), d2 = full_desc(&second);
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtAllocatorRegister(s, d1));
    ACL_OK(aclrtAllocatorRegister(s, d2));
    aclrtAllocatorDesc got = NULL;
    aclrtAllocator obj = NULL;
    ACL_OK(aclrtAllocatorGetByStream(s, &got, &obj, NULL, NULL, NULL, NULL));
    ck_assert_ptr_eq(got, d2);
    ck_assert_ptr_eq(obj, &second);
    ACL_OK(aclrtAllocatorUnregister(s));
    ACL_OK(aclrtAllocatorDestroyDesc(d1));
    ACL_OK(aclrtAllocatorDestroyDesc(d2));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_register_copies,
            "registration keeps a copy of the descriptor's allocator: changing or destroying the "
            "descriptor afterwards leaves the stream's allocator as it was",
            "[impl] aclrtAllocatorRegisterImpl (a saved copy)")
{
    test_allocator mine = {0}, other = {0};
    aclrtAllocatorDesc d = full_desc(&mine);
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtAllocatorRegister(s, d));
    ACL_OK(aclrtAllocatorSetObjToDesc(d, &other));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
    aclrtAllocatorDesc got = NULL;
    aclrtAllocator obj = NULL;
    ACL_OK(aclrtAllocatorGetByStream(s, &got, &obj, NULL, NULL, NULL, NULL));
    ck_assert_ptr_eq(obj, &mine);
    ACL_OK(aclrtAllocatorUnregister(s));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_unregister,
            "after aclrtAllocatorUnregister the stream has no allocator; unregistering again, or a "
            "stream that never had one, succeeds",
            "API ref aclrtAllocatorUnregister")
{
    test_allocator mine = {0};
    aclrtAllocatorDesc d = full_desc(&mine);
    aclrtStream s = compat_new_stream(), other = compat_new_stream();
    ACL_OK(aclrtAllocatorRegister(s, d));
    ACL_OK(aclrtAllocatorUnregister(s));
    aclrtAllocatorDesc got;
    ACL_FAILS_WITH(aclrtAllocatorGetByStream(s, &got, NULL, NULL, NULL, NULL, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtAllocatorUnregister(s));
    ACL_OK(aclrtAllocatorUnregister(other));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(other));
}

COMPAT_TEST(test_register_needs_functions,
            "a descriptor without its object, alloc, free or get-address function cannot be "
            "registered (the alloc-advise function is optional), nor can the NULL stream",
            "API ref aclrtAllocatorRegister; [impl] aclrtAllocatorRegisterImpl")
{
    test_allocator mine = {0};
    aclrtStream s = compat_new_stream();
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    ck_assert_ptr_nonnull(d);
    ACL_FAILS_WITH(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtAllocatorSetObjToDesc(d, &mine));
    ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_fn));
    ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_fn));
    ACL_FAILS_WITH(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_fn));
    ACL_OK(aclrtAllocatorRegister(s, d));
    ACL_FAILS_WITH(aclrtAllocatorRegister(NULL, d), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtAllocatorUnregister(s));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- bad arguments ------------------------------------------------------------ */

#define BAD_DESCS(call) FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, call)

ROW(aclrtAllocatorDestroyDesc)
{
    REJECTS(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM, "a NULL allocatorDesc");
    BAD_DESCS(aclrtAllocatorDestroyDesc(h));
}

ROW(aclrtAllocatorSetObjToDesc)
{
    static test_allocator mine;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    REJECTS(aclrtAllocatorSetObjToDesc(NULL, &mine), ACL_ERROR_INVALID_PARAM,
            "a NULL allocatorDesc");
    REJECTS(aclrtAllocatorSetObjToDesc(d, NULL), ACL_ERROR_INVALID_PARAM, "a NULL allocator");
    BAD_DESCS(aclrtAllocatorSetObjToDesc(h, &mine));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
}

ROW(aclrtAllocatorSetAllocFuncToDesc)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    REJECTS(aclrtAllocatorSetAllocFuncToDesc(NULL, alloc_fn), ACL_ERROR_INVALID_PARAM,
            "a NULL allocatorDesc");
    REJECTS(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM, "a NULL func");
    BAD_DESCS(aclrtAllocatorSetAllocFuncToDesc(h, alloc_fn));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
}

ROW(aclrtAllocatorSetFreeFuncToDesc)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    REJECTS(aclrtAllocatorSetFreeFuncToDesc(NULL, free_fn), ACL_ERROR_INVALID_PARAM,
            "a NULL allocatorDesc");
    REJECTS(aclrtAllocatorSetFreeFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM, "a NULL func");
    BAD_DESCS(aclrtAllocatorSetFreeFuncToDesc(h, free_fn));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
}

ROW(aclrtAllocatorSetAllocAdviseFuncToDesc)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    REJECTS(aclrtAllocatorSetAllocAdviseFuncToDesc(NULL, advise_fn), ACL_ERROR_INVALID_PARAM,
            "a NULL allocatorDesc");
    REJECTS(aclrtAllocatorSetAllocAdviseFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL func");
    BAD_DESCS(aclrtAllocatorSetAllocAdviseFuncToDesc(h, advise_fn));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
}

ROW(aclrtAllocatorSetGetAddrFromBlockFuncToDesc)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    REJECTS(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(NULL, addr_fn), ACL_ERROR_INVALID_PARAM,
            "a NULL allocatorDesc");
    REJECTS(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL func");
    BAD_DESCS(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(h, addr_fn));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
}

ROW(aclrtAllocatorRegister)
{
    static test_allocator mine;
    aclrtAllocatorDesc d = full_desc(&mine);
    aclrtStream s = compat_new_stream();
    REJECTS(aclrtAllocatorRegister(NULL, d), ACL_ERROR_INVALID_PARAM, "a NULL stream");
    REJECTS(aclrtAllocatorRegister(s, NULL), ACL_ERROR_INVALID_PARAM, "a NULL allocatorDesc");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclrtAllocatorRegister(s, h));
    ACL_OK(aclrtAllocatorDestroyDesc(d));
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclrtAllocatorGetByStream)
{
    aclrtAllocatorDesc d;
    aclrtStream s = compat_new_stream();
    REJECTS(aclrtAllocatorGetByStream(s, NULL, NULL, NULL, NULL, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL allocatorDesc");
    REJECTS(aclrtAllocatorGetByStream(NULL, &d, NULL, NULL, NULL, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL stream");
    REJECTS(aclrtAllocatorGetByStream(s, &d, NULL, NULL, NULL, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a stream without an allocator");
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclrtAllocatorUnregister)
{
    REJECTS(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtAllocatorDestroyDesc),
    COMPAT_ROW(aclrtAllocatorSetObjToDesc),
    COMPAT_ROW(aclrtAllocatorSetAllocFuncToDesc),
    COMPAT_ROW(aclrtAllocatorSetFreeFuncToDesc),
    COMPAT_ROW(aclrtAllocatorSetAllocAdviseFuncToDesc),
    COMPAT_ROW(aclrtAllocatorSetGetAddrFromBlockFuncToDesc),
    COMPAT_ROW(aclrtAllocatorRegister),
    COMPAT_ROW(aclrtAllocatorGetByStream),
    COMPAT_ROW(aclrtAllocatorUnregister),
};
COMPAT_BAD_ARGS(allocator, rows);

Suite *compat_suite_allocator(void);
Suite *compat_suite_allocator(void)
{
    Suite *s = suite_create("allocator");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_register_and_get);
    tcase_add_test(tc, test_last_registration_wins);
    tcase_add_test(tc, test_register_copies);
    tcase_add_test(tc, test_unregister);
    tcase_add_test(tc, test_register_needs_functions);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_allocator);
    return s;
}

COMPAT_MAIN(allocator)
