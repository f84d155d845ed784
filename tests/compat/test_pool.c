/* Stream-ordered memory pools (acl_rt_memory_soma.h): creation, stream-
 * ordered allocation and free, attributes and trimming. */
#include <stdint.h>

#include "compat.h"
#include "bad_args.h"
#include "acl/acl_rt_memory_soma.h"

#define MIB ((size_t)1 << 20)

static aclrtMemPoolProps props(size_t max_size)
{
    aclrtMemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    p.maxSize = max_size;
    return p;
}

static aclrtMemPool new_pool(size_t max_size)
{
    aclrtMemPoolProps p = props(max_size);
    aclrtMemPool pool = NULL;
    ACL_OK(aclrtMemPoolCreate(&pool, &p));
    ck_assert_ptr_nonnull(pool);
    return pool;
}

static uint64_t attr64(aclrtMemPool pool, aclrtMemPoolAttr a)
{
    uint64_t v = UINT64_MAX;
    ACL_OK(aclrtMemPoolGetAttr(pool, a, &v));
    return v;
}

COMPAT_TEST(test_pool_round_trip,
            "memory from aclrtMemPoolMallocAsync is usable by work queued after it on the stream "
            "and goes back to the pool with aclrtMemPoolFreeAsync, without synchronizing first",
            "API ref aclrtMemPoolMallocAsync, aclrtMemPoolFreeAsync; SOMA usage notes")
{
    aclrtMemPool pool = new_pool(64 * MIB);
    aclrtStream s = compat_new_stream();
    void *p = NULL;
    ACL_OK(aclrtMemPoolMallocAsync(&p, 4096, pool, s));
    ck_assert_ptr_nonnull(p);
    unsigned char *host = compat_host_buffer(4096);
    ACL_OK(aclrtMemsetAsync(p, 4096, 0x6B, 4096, s));
    ACL_OK(aclrtMemcpyAsync(host, 4096, p, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtMemPoolFreeAsync(p, s));
    ACL_OK(aclrtSynchronizeStream(s));
    compat_assert_filled(host, 4096, 0x6B);
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFreeHost(host));
}

COMPAT_TEST(test_pool_used_memory,
            "USED_MEM_CURRENT counts what is allocated from the pool and USED_MEM_HIGH its peak, "
            "which only 0 may reset; the CURRENT attributes are read-only",
            "API ref aclrtMemPoolAttr, aclrtMemPoolSetAttr")
{
    aclrtMemPool pool = new_pool(64 * MIB);
    aclrtStream s = compat_new_stream();
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT), 0);
    void *a = NULL, *b = NULL;
    ACL_OK(aclrtMemPoolMallocAsync(&a, 1000, pool, s));
    ACL_OK(aclrtMemPoolMallocAsync(&b, 3 * MIB, pool, s));
    ck_assert_ptr_ne(a, b);
    uint64_t used = attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT);
    ck_assert_uint_ge(used, 3 * MIB + 1000);
    ck_assert_uint_ge(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), used);
    ACL_OK(aclrtMemPoolFreeAsync(a, s));
    ACL_OK(aclrtMemPoolFreeAsync(b, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT), 0);
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH), used);
    uint64_t zero = 0, one = 1;
    ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &zero));
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH), 0);
    ACL_FAILS(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &one));
    ACL_FAILS(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, &one));
    ACL_FAILS(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &zero));
    ACL_FAILS(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT, &zero));
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_pool_settings,
            "the release threshold defaults to 0 and reads back as set, as do the reuse switches "
            "(uint32_t, 0 or 1); attributes outside aclrtMemPoolAttr are refused",
            "API ref aclrtMemPoolAttr, aclrtMemPoolSetAttr, aclrtMemPoolGetAttr")
{
    aclrtMemPool pool = new_pool(64 * MIB);
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD), 0);
    uint64_t threshold = 8 * MIB;
    ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &threshold));
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD), 8 * MIB);
    for (int a = ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES;
         a <= ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES; a++) {
        uint32_t on = 1, got = 7;
        ACL_OK(aclrtMemPoolSetAttr(pool, (aclrtMemPoolAttr)a, &on));
        ACL_OK(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)a, &got));
        ck_assert_uint_eq(got, 1);
        uint32_t off = 0;
        ACL_OK(aclrtMemPoolSetAttr(pool, (aclrtMemPoolAttr)a, &off));
        ACL_OK(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)a, &got));
        ck_assert_uint_eq(got, 0);
    }
    uint64_t v;
    ACL_FAILS(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)0, &v));
    ACL_FAILS(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)9, &v));
    ACL_FAILS(aclrtMemPoolSetAttr(pool, (aclrtMemPoolAttr)9, &v));
    ACL_OK(aclrtMemPoolDestroy(pool));
}

COMPAT_TEST(test_pool_trim,
            "aclrtMemPoolTrimTo releases idle memory so that the pool keeps minBytesToKeep at most, "
            "leaving memory in use alone",
            "API ref aclrtMemPoolTrimTo")
{
    aclrtMemPool pool = new_pool(64 * MIB);
    uint64_t keep_all = 64 * MIB;
    ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &keep_all));
    aclrtStream s = compat_new_stream();
    void *a = NULL, *b = NULL;
    ACL_OK(aclrtMemPoolMallocAsync(&a, 4 * MIB, pool, s));
    ACL_OK(aclrtMemPoolMallocAsync(&b, 4 * MIB, pool, s));
    ACL_OK(aclrtMemPoolFreeAsync(a, s));
    ACL_OK(aclrtSynchronizeStream(s));
    uint64_t in_use = attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT);
    uint64_t before = attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT);
    ck_assert_uint_ge(before, in_use + 4 * MIB);
    /* What is in use stays (how much idle memory shares its physical
     * chunks and cannot go is the implementation's). */
    ACL_OK(aclrtMemPoolTrimTo(pool, in_use));
    ck_assert_uint_le(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), before);
    ck_assert_uint_ge(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), in_use);
    ACL_OK(aclrtMemsetAsync(b, 4 * MIB, 0x11, 4 * MIB, s));
    ACL_OK(aclrtMemPoolFreeAsync(b, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemPoolTrimTo(pool, 0));
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), 0);
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_pool_reuse,
            "memory freed to the pool is handed out again: freeing and allocating the same size "
            "on one stream, over and over, stays within the pool's size",
            "SOMA usage notes (memory reuse)")
{
    aclrtMemPool pool = new_pool(8 * MIB);
    aclrtStream s = compat_new_stream();
    for (int i = 0; i < 50; i++) {
        void *p = NULL;
        ACL_OK(aclrtMemPoolMallocAsync(&p, 6 * MIB, pool, s));
        ACL_OK(aclrtMemsetAsync(p, 6 * MIB, (unsigned char)i, 64, s));
        ACL_OK(aclrtMemPoolFreeAsync(p, s));
        if (i % 10 == 9)
            ACL_OK(aclrtSynchronizeStream(s));
    }
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_pool_limits,
            "an allocation beyond the pool's maxSize fails and the pool keeps working; "
            "allocation props other than pinned device memory are refused",
            "API ref aclrtMemPoolProps")
{
    aclrtMemPool pool = new_pool(8 * MIB);
    aclrtStream s = compat_new_stream();
    void *p = NULL;
    ACL_FAILS(aclrtMemPoolMallocAsync(&p, 16 * MIB, pool, s));
    ACL_OK(aclrtMemPoolMallocAsync(&p, 2 * MIB, pool, s));
    ACL_OK(aclrtMemPoolFreeAsync(p, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));

    aclrtMemPool other;
    aclrtMemPoolProps bad = props(8 * MIB);
    bad.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    ACL_FAILS_WITH(aclrtMemPoolCreate(&other, &bad), ACL_ERROR_INVALID_PARAM);
    bad = props(8 * MIB);
    bad.allocType = (aclrtMemAllocationType)1;
    ACL_FAILS_WITH(aclrtMemPoolCreate(&other, &bad), ACL_ERROR_INVALID_PARAM);
    bad = props(8 * MIB);
    bad.reserved[3] = 1;
    ACL_FAILS_WITH(aclrtMemPoolCreate(&other, &bad), ACL_ERROR_INVALID_PARAM);
}

COMPAT_TEST(test_pool_malloc_edges, "aclrtMemPoolMallocAsync allocates nothing for size 0",
            "[impl] aclrtMemPoolMallocAsyncImpl")
{
    aclrtMemPool pool = new_pool(8 * MIB);
    aclrtStream s = compat_new_stream();
    void *p = NULL;
    ACL_OK(aclrtMemPoolMallocAsync(&p, 0, pool, s));
    ck_assert_uint_eq(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT), 0);
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_pool_free_async_of_malloc,
            "aclrtMemPoolFreeAsync also takes aclrtMalloc memory, freeing it in stream order",
            "[impl] ApiImplSoma::MemPoolFreeAsync (not pool memory: freed by a host function)")
{
    aclrtStream s = compat_new_stream();
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    unsigned char *host = compat_host_buffer(4096);
    ACL_OK(aclrtMemsetAsync(dev, 4096, 0x3D, 4096, s));
    ACL_OK(aclrtMemcpyAsync(host, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtMemPoolFreeAsync(dev, s));
    ACL_OK(aclrtSynchronizeStream(s));
    compat_assert_filled(host, 4096, 0x3D);
    ACL_FAILS(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFreeHost(host));
}

COMPAT_TEST(test_pool_destroy_busy,
            "a pool with memory still allocated from it cannot be destroyed",
            "[impl] SomaApi::StreamMemPoolDestroy (CanDelete)")
{
    aclrtMemPool pool = new_pool(8 * MIB);
    aclrtStream s = compat_new_stream();
    void *p = NULL;
    ACL_OK(aclrtMemPoolMallocAsync(&p, 4096, pool, s));
    ACL_FAILS(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtMemPoolFreeAsync(p, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_FAILS(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- bad arguments ------------------------------------------------------------ */

ROW(aclrtMemPoolCreate)
{
    aclrtMemPoolProps p = props(8 * MIB);
    aclrtMemPool pool;
    REJECTS(aclrtMemPoolCreate(NULL, &p), ACL_ERROR_INVALID_PARAM, "a NULL memPool");
    REJECTS(aclrtMemPoolCreate(&pool, NULL), ACL_ERROR_INVALID_PARAM, "a NULL poolProps");
}

ROW(aclrtMemPoolDestroy)
{
    REJECTS(aclrtMemPoolDestroy(NULL), ACL_ERROR_INVALID_PARAM, "a NULL memPool");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclrtMemPoolDestroy(h));
}

ROW(aclrtMemPoolSetAttr)
{
    uint64_t v = 0;
    REJECTS(aclrtMemPoolSetAttr(NULL, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v),
            ACL_ERROR_INVALID_PARAM, "a NULL memPool");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemPoolSetAttr(h, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
}

ROW(aclrtMemPoolGetAttr)
{
    uint64_t v = 0;
    REJECTS(aclrtMemPoolGetAttr(NULL, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v),
            ACL_ERROR_INVALID_PARAM, "a NULL memPool");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemPoolGetAttr(h, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
}

ROW(aclrtMemPoolMallocAsync)
{
    aclrtMemPool pool = new_pool(8 * MIB);
    aclrtStream s = compat_new_stream();
    void *p;
    REJECTS(aclrtMemPoolMallocAsync(NULL, 64, pool, s), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMemPoolMallocAsync(&p, 64, NULL, s), ACL_ERROR_INVALID_PARAM, "a NULL memPool");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclrtMemPoolMallocAsync(&p, 64, pool, h));
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclrtMemPoolMallocAsync(&p, 64, h, s));
    ACL_OK(aclrtMemPoolDestroy(pool));
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclrtMemPoolFreeAsync)
{
    REJECTS(aclrtMemPoolFreeAsync(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    unsigned char local[64];
    REJECTS_HOSTILE(aclrtMemPoolFreeAsync(local, NULL), ANY_ERROR, "a local variable");
}

ROW(aclrtMemPoolTrimTo)
{
    REJECTS(aclrtMemPoolTrimTo(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL memPool");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclrtMemPoolTrimTo(h, 0));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtMemPoolCreate),     COMPAT_ROW(aclrtMemPoolDestroy),
    COMPAT_ROW(aclrtMemPoolSetAttr),    COMPAT_ROW(aclrtMemPoolGetAttr),
    COMPAT_ROW(aclrtMemPoolMallocAsync), COMPAT_ROW(aclrtMemPoolFreeAsync),
    COMPAT_ROW(aclrtMemPoolTrimTo),
};
COMPAT_BAD_ARGS(pool, rows);

Suite *compat_suite_pool(void);
Suite *compat_suite_pool(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pool_round_trip);
    tcase_add_test(tc, test_pool_used_memory);
    tcase_add_test(tc, test_pool_settings);
    tcase_add_test(tc, test_pool_trim);
    tcase_add_test(tc, test_pool_reuse);
    tcase_add_test(tc, test_pool_limits);
    tcase_add_test(tc, test_pool_malloc_edges);
    tcase_add_test(tc, test_pool_free_async_of_malloc);
    tcase_add_test(tc, test_pool_destroy_busy);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_pool);
    return s;
}

COMPAT_MAIN(pool)
