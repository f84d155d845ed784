/* Managed memory: aclrtMemAllocManaged, advice and its attributes, and
 * prefetches (one and in batches). */
#include <stdint.h>

#include "compat.h"
#include "bad_args.h"

#define MIB ((size_t)1 << 20)
#define PAGE2M (2 * MIB)

static void *managed(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMemAllocManaged(&p, size, ACL_RT_MEM_ATTACH_GLOBAL));
    ck_assert_ptr_nonnull(p);
    return p;
}

static aclrtMemManagedLocation device0(void)
{
    aclrtMemManagedLocation l = {ACL_MEM_LOCATIONTYPE_DEVICE, 0};
    return l;
}

static aclrtMemManagedLocation host(void)
{
    aclrtMemManagedLocation l = {ACL_MEM_LOCATIONTYPE_HOST, 0};
    return l;
}

static int32_t attr(aclrtMemManagedRangeAttribute a, const void *p, size_t size)
{
    int32_t v = 12345;
    ACL_OK(aclrtMemManagedGetAttr(a, p, size, &v, sizeof v));
    return v;
}

COMPAT_TEST(test_alloc_managed,
            "aclrtMemAllocManaged with ACL_RT_MEM_ATTACH_GLOBAL gives memory the host and the "
            "device both reach, rounded up to 2 MiB, that aclrtFree frees",
            "API ref aclrtMemAllocManaged")
{
    unsigned char *p = managed(100);
    for (int i = 0; i < 100; i++)
        p[i] = (unsigned char)(i + 1);
    void *dev = compat_device_buffer(100);
    ACL_OK(aclrtMemcpy(dev, 100, p, 100, ACL_MEMCPY_DEFAULT));
    unsigned char back[100];
    ACL_OK(aclrtMemcpy(back, 100, dev, 100, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(back[i], (unsigned char)(i + 1));
    /* The whole first 2 MiB page belongs to the allocation. */
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, PAGE2M), 0);
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(test_alloc_managed_flag,
            "aclrtMemAllocManaged takes only the flag ACL_RT_MEM_ATTACH_GLOBAL",
            "API ref aclrtMemAllocManaged (flag)")
{
    void *p = NULL;
    ACL_FAILS_WITH(aclrtMemAllocManaged(&p, PAGE2M, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemAllocManaged(&p, PAGE2M, 2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS(aclrtMemAllocManaged(&p, 0, ACL_RT_MEM_ATTACH_GLOBAL));
}

COMPAT_TEST(test_read_mostly,
            "ACL_MEM_ADVISE_SET/UNSET_READ_MOSTLY set and clear the read-mostly attribute, which "
            "is 1 only when every page of the range has it",
            "API ref aclrtMemManagedAdvise; aclrtMemManagedRangeAttribute READ_MOSTLY")
{
    char *p = managed(4 * PAGE2M);
    ACL_OK(aclrtMemManagedAdvise(p, 2 * PAGE2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * PAGE2M), 1);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4 * PAGE2M), 0);
    ACL_OK(aclrtMemManagedAdvise(p, 2 * PAGE2M, ACL_MEM_ADVISE_UNSET_READ_MOSTLY, host()));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * PAGE2M), 0);
    ACL_OK(aclrtFree(p));
}

COMPAT_TEST(test_preferred_location,
            "the preferred location reads back as the device id (-1 for the host, -2 when pages "
            "differ), its type (INVALID when they differ) and its id",
            "API ref aclrtMemManagedRangeAttribute PREFERRED_LOCATION(_TYPE/_ID)")
{
    char *p = managed(2 * PAGE2M);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 2 * PAGE2M), -2);
    ACL_OK(aclrtMemManagedAdvise(p, 2 * PAGE2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                 device0()));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 2 * PAGE2M), 0);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 2 * PAGE2M),
                     ACL_MEM_LOCATIONTYPE_DEVICE);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, 2 * PAGE2M), 0);
    ACL_OK(aclrtMemManagedAdvise(p + PAGE2M, PAGE2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                 host()));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p + PAGE2M, PAGE2M), -1);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p + PAGE2M, PAGE2M),
                     ACL_MEM_LOCATIONTYPE_HOST);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 2 * PAGE2M), -2);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 2 * PAGE2M),
                     ACL_MEM_LOCATIONTYPE_INVALID);
    ACL_OK(aclrtMemManagedAdvise(p, 2 * PAGE2M, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION, host()));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 2 * PAGE2M), -2);
    ACL_OK(aclrtFree(p));
}

COMPAT_TEST(test_accessed_by,
            "ACCESSED_BY lists the locations with accessed-by advice, the host as -1, and fills "
            "the rest of the array with -2; dataSize is a non-zero multiple of 4",
            "API ref aclrtMemManagedRangeAttribute ACCESSED_BY")
{
    char *p = managed(PAGE2M);
    ACL_OK(aclrtMemManagedAdvise(p, PAGE2M, ACL_MEM_ADVISE_SET_ACCESSED_BY, device0()));
    int32_t ids[3] = {7, 7, 7};
    ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, PAGE2M, ids,
                                  sizeof ids));
    ck_assert_int_eq(ids[0], 0);
    ck_assert_int_eq(ids[1], -2);
    ck_assert_int_eq(ids[2], -2);
    ACL_OK(aclrtMemManagedAdvise(p, PAGE2M, ACL_MEM_ADVISE_UNSET_ACCESSED_BY, device0()));
    ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, PAGE2M, ids,
                                  sizeof ids));
    ck_assert_int_eq(ids[0], -2);
    ACL_FAILS(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, PAGE2M, ids, 6));
    ACL_FAILS(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, PAGE2M, ids, 8));
    ACL_OK(aclrtFree(p));
}

COMPAT_TEST(test_get_attrs,
            "aclrtMemManagedGetAttrs answers several attributes at once, each into its own "
            "buffer of its own size",
            "API ref aclrtMemManagedGetAttrs")
{
    char *p = managed(PAGE2M);
    ACL_OK(aclrtMemManagedAdvise(p, PAGE2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()));
    ACL_OK(aclrtMemManagedAdvise(p, PAGE2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, device0()));
    aclrtMemManagedRangeAttribute attrs[2] = {ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                              ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE};
    int32_t rm = 9, type = 9;
    void *data[2] = {&rm, &type};
    size_t sizes[2] = {sizeof rm, sizeof type};
    ACL_OK(aclrtMemManagedGetAttrs(attrs, 2, p, PAGE2M, data, sizes));
    ck_assert_int_eq(rm, 1);
    ck_assert_int_eq(type, ACL_MEM_LOCATIONTYPE_DEVICE);
    attrs[1] = (aclrtMemManagedRangeAttribute)9;
    ACL_FAILS(aclrtMemManagedGetAttrs(attrs, 2, p, PAGE2M, data, sizes));
    ACL_OK(aclrtFree(p));
}

COMPAT_TEST(test_prefetch,
            "aclrtMemManagedPrefetchAsync queues a prefetch on a stream; the data stays intact and "
            "the last prefetch location reads back",
            "API ref aclrtMemManagedPrefetchAsync; aclrtMemManagedRangeAttribute "
            "LAST_PREFETCH_LOCATION")
{
    unsigned char *p = managed(2 * PAGE2M);
    for (size_t i = 0; i < 2 * PAGE2M; i += 4096)
        p[i] = (unsigned char)(i >> 12);
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtMemManagedPrefetchAsync(p, 2 * PAGE2M, device0(), 0, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 2 * PAGE2M), 0);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, 2 * PAGE2M),
                     ACL_MEM_LOCATIONTYPE_DEVICE);
    ACL_OK(aclrtMemManagedPrefetchAsync(p, PAGE2M, host(), 0, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, PAGE2M), -1);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 2 * PAGE2M), -2);
    for (size_t i = 0; i < 2 * PAGE2M; i += 4096)
        ck_assert_uint_eq(p[i], (unsigned char)(i >> 12));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(p));
}

COMPAT_TEST(test_prefetch_batch,
            "aclrtMemManagedPrefetchBatchAsync prefetches ranges [prefetchLocIdxs[k], "
            "prefetchLocIdxs[k+1]) to prefetchLocs[k], the last location taking the rest",
            "API ref aclrtMemManagedPrefetchBatchAsync")
{
    char *p = managed(3 * PAGE2M);
    const void *ptrs[3] = {p, p + PAGE2M, p + 2 * PAGE2M};
    size_t sizes[3] = {PAGE2M, PAGE2M, PAGE2M};
    aclrtMemManagedLocation locs[2] = {device0(), host()};
    size_t idxs[2] = {0, 2};
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 2 * PAGE2M), 0);
    ck_assert_int_eq(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p + 2 * PAGE2M, PAGE2M),
                     -1);
    size_t bad_first[2] = {1, 2};
    ACL_FAILS(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, bad_first, 2, 0, s));
    size_t not_rising[2] = {0, 0};
    ACL_FAILS(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, not_rising, 2, 0, s));
    ACL_FAILS_WITH(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, idxs, 2, 0, s),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(p));
}

COMPAT_TEST(test_managed_refusals,
            "advice and prefetches take managed memory only, sizes that are multiples of 2 MiB, "
            "advice and attributes within their enums and devices that exist",
            "API ref aclrtMemManagedAdvise, aclrtMemManagedPrefetchAsync, "
            "aclrtMemManagedGetAttr (ptr, size)")
{
    char *p = managed(PAGE2M);
    void *dev = compat_device_buffer(PAGE2M);
    aclrtStream s = compat_new_stream();
    int32_t v;
    ACL_FAILS(aclrtMemManagedAdvise(p, 4096, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()));
    ACL_FAILS(aclrtMemManagedAdvise(dev, PAGE2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()));
    ACL_FAILS(aclrtMemManagedAdvise(p, 2 * PAGE2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()));
    ACL_FAILS(aclrtMemManagedAdvise(p, PAGE2M, (aclrtMemManagedAdviseType)6, host()));
    aclrtMemManagedLocation nowhere = {ACL_MEM_LOCATIONTYPE_DEVICE,
                                       (int)compat_device_count() + 5};
    ACL_FAILS(aclrtMemManagedAdvise(p, PAGE2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, nowhere));
    ACL_FAILS(aclrtMemManagedPrefetchAsync(p, PAGE2M, nowhere, 0, s));
    ACL_FAILS(aclrtMemManagedPrefetchAsync(p, 4096, device0(), 0, s));
    ACL_FAILS(aclrtMemManagedPrefetchAsync(dev, PAGE2M, device0(), 0, s));
    ACL_FAILS_WITH(aclrtMemManagedPrefetchAsync(p, PAGE2M, device0(), 1, s),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)0, p, PAGE2M, &v, 4));
    ACL_FAILS(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)9, p, PAGE2M, &v, 4));
    ACL_FAILS(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, dev, PAGE2M, &v, 4));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtFree(dev));
}

/* ---- bad arguments ------------------------------------------------------------ */

ROW(aclrtMemAllocManaged)
{
    void *p;
    REJECTS(aclrtMemAllocManaged(NULL, PAGE2M, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_INVALID_PARAM,
            "a NULL ptr");
    REJECTS(aclrtMemAllocManaged(&p, PAGE2M, 0), ACL_ERROR_INVALID_PARAM, "flag 0");
}

ROW(aclrtMemManagedAdvise)
{
    static char plain[64];
    REJECTS(aclrtMemManagedAdvise(NULL, PAGE2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()),
            ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMemManagedAdvise(plain, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()),
            ACL_ERROR_INVALID_PARAM, "size 0");
    REJECTS_HOSTILE(aclrtMemManagedAdvise(plain, PAGE2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, host()),
                    ANY_ERROR, "memory that is not managed");
}

ROW(aclrtMemManagedGetAttr)
{
    static char plain[64];
    int32_t v;
    REJECTS(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, NULL, PAGE2M, &v, 4),
            ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, plain, PAGE2M, NULL, 4),
            ACL_ERROR_INVALID_PARAM, "a NULL data");
    REJECTS(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, plain, 0, &v, 4),
            ACL_ERROR_INVALID_PARAM, "size 0");
    REJECTS_HOSTILE(
        aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, plain, PAGE2M, &v, 4),
        ANY_ERROR, "memory that is not managed");
}

ROW(aclrtMemManagedGetAttrs)
{
    static char plain[64];
    aclrtMemManagedRangeAttribute a = ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY;
    int32_t v;
    void *data[1] = {&v};
    size_t sizes[1] = {4};
    REJECTS(aclrtMemManagedGetAttrs(&a, 1, NULL, PAGE2M, data, sizes), ACL_ERROR_INVALID_PARAM,
            "a NULL ptr");
    REJECTS(aclrtMemManagedGetAttrs(NULL, 1, plain, PAGE2M, data, sizes), ACL_ERROR_INVALID_PARAM,
            "a NULL attributes");
    REJECTS(aclrtMemManagedGetAttrs(&a, 1, plain, PAGE2M, NULL, sizes), ACL_ERROR_INVALID_PARAM,
            "a NULL data");
    REJECTS(aclrtMemManagedGetAttrs(&a, 1, plain, PAGE2M, data, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL dataSizes");
    REJECTS_HOSTILE(aclrtMemManagedGetAttrs(&a, 1, plain, PAGE2M, data, sizes), ANY_ERROR,
                    "memory that is not managed");
}

ROW(aclrtMemManagedPrefetchAsync)
{
    static char plain[64];
    REJECTS(aclrtMemManagedPrefetchAsync(NULL, PAGE2M, device0(), 0, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMemManagedPrefetchAsync(plain, 0, device0(), 0, NULL), ACL_ERROR_INVALID_PARAM,
            "size 0");
    REJECTS_HOSTILE(aclrtMemManagedPrefetchAsync(plain, PAGE2M, device0(), 0, NULL), ANY_ERROR,
                    "memory that is not managed");
    void *m = NULL;
    ACL_OK(aclrtMemAllocManaged(&m, PAGE2M, ACL_RT_MEM_ATTACH_GLOBAL));
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemManagedPrefetchAsync(m, PAGE2M, device0(), 0, h));
    ACL_OK(aclrtFree(m));
}

ROW(aclrtMemManagedPrefetchBatchAsync)
{
    static char plain[64];
    const void *ptrs[1] = {plain};
    size_t sizes[1] = {PAGE2M}, idxs[1] = {0};
    aclrtMemManagedLocation locs[1] = {device0()};
    REJECTS(aclrtMemManagedPrefetchBatchAsync(NULL, sizes, 1, locs, idxs, 1, 0, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL ptrs");
    REJECTS(aclrtMemManagedPrefetchBatchAsync(ptrs, NULL, 1, locs, idxs, 1, 0, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL sizes");
    REJECTS(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, NULL, idxs, 1, 0, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL prefetchLocs");
    REJECTS(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, NULL, 1, 0, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL prefetchLocIdxs");
    REJECTS(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 0, locs, idxs, 1, 0, NULL),
            ACL_ERROR_INVALID_PARAM, "count 0");
    REJECTS_HOSTILE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, idxs, 1, 0, NULL),
                    ANY_ERROR, "memory that is not managed");
    void *m = NULL;
    ACL_OK(aclrtMemAllocManaged(&m, PAGE2M, ACL_RT_MEM_ATTACH_GLOBAL));
    ptrs[0] = m;
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, idxs, 1, 0, h));
    ACL_OK(aclrtFree(m));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtMemAllocManaged),
    COMPAT_ROW(aclrtMemManagedAdvise),
    COMPAT_ROW(aclrtMemManagedGetAttr),
    COMPAT_ROW(aclrtMemManagedGetAttrs),
    COMPAT_ROW(aclrtMemManagedPrefetchAsync),
    COMPAT_ROW(aclrtMemManagedPrefetchBatchAsync),
};
COMPAT_BAD_ARGS(managed, rows);

Suite *compat_suite_managed(void);
Suite *compat_suite_managed(void)
{
    Suite *s = suite_create("managed");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_alloc_managed);
    tcase_add_test(tc, test_alloc_managed_flag);
    tcase_add_test(tc, test_read_mostly);
    tcase_add_test(tc, test_preferred_location);
    tcase_add_test(tc, test_accessed_by);
    tcase_add_test(tc, test_get_attrs);
    tcase_add_test(tc, test_prefetch);
    tcase_add_test(tc, test_prefetch_batch);
    tcase_add_test(tc, test_managed_refusals);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_managed);
    return s;
}

COMPAT_MAIN(managed)
