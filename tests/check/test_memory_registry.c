/* acl-cuda's allocation registry: every copy, fill and free is checked
 * against the allocation at its address (its extent, device or page-locked
 * host memory, still live), stricter than ACL, which documents these cases
 * as undefined or leaves the check to the hardware. Also acl-cuda's own
 * choices where its behaviour goes past or differs from the API reference
 * (marked so). ACL's documented memory behaviour is pinned by the
 * compatibility suite (tests/compat/test_memory.c). */
#include <stdint.h>

#include "acltest.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* A byte pattern that differs per offset and per seed. */
static uint64_t pattern_word(size_t word, unsigned seed)
{
    uint64_t x = (uint64_t)word * 0x9E3779B97F4A7C15u + seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9u;
    return x ^ (x >> 29);
}

static void fill_pattern(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t w = 0; w * 8 < n; w++) {
        uint64_t x = pattern_word(w, seed);
        size_t left = n - w * 8;
        memcpy(buf + w * 8, &x, left < 8 ? left : 8);
    }
}

static void check_bytes(const unsigned char *buf, size_t n, unsigned char value)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != value)
            ck_abort_msg("byte %zu of %zu is 0x%02x, expected 0x%02x", i, n, buf[i], value);
}

/* The rounded size is usable (the compatibility suite checks that); one
 * byte more is not: aclrtMalloc reserves ALIGN_UP(size, 32) + 32,
 * aclrtMallocAlign32 ALIGN_UP(size, 32). */
START_TEST(test_fill_past_the_padding_is_refused)
{
    void *p;
    ACL_OK(aclrtMalloc(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtMemset(p, 65, 0xAB, 65), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocAlign32(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtMemset(p, 33, 0xAB, 33), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(p));
}
END_TEST

/* A fill is checked against the allocation at its address now, not one
 * freed earlier at the same address (lookups are cached per thread).
 * Blocks this large are mapped afresh by the allocator, usually where the
 * last one was. Odd rounds look another block up first, so that the old
 * block lands in each of the cache's slots in turn. */
START_TEST(test_fill_checks_the_allocation_now_at_an_address)
{
    const size_t size = 64 * MIB;
    void *other;
    ACL_OK(aclrtMalloc(&other, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int round = 0; round < 4; round++) {
        void *p;
        if (round % 2)
            ACL_OK(aclrtMemset(other, 64, 0, 64));
        ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtMemset(p, size + 32, 0xAB, size + 32));
        ACL_OK(aclrtFree(p));
        ACL_OK(aclrtMallocAlign32(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtMemset(p, size, 0xAB, size));
        ACL_FAILS_WITH(aclrtMemset(p, size + 1, 0xAB, size + 1), ACL_ERROR_INVALID_PARAM);
        ACL_OK(aclrtFree(p));
    }
    ACL_OK(aclrtFree(other));
}
END_TEST

/* Host (pitch 48) -> device (pitch 64) -> host (pitch 72) with
 * ACL_MEMCPY_DEFAULT on a stream: acl-cuda infers the direction for
 * aclrtMemcpy2dAsync too (the API reference allows H2D and D2H only). */
START_TEST(test_2d_async_default_kind)
{
    const size_t width = 40, height = 10, spitch = 48, dpitch = 64, opitch = 72;
    unsigned char *in, *out, *dev;
    ACL_OK(aclrtMallocHost((void **)&in, spitch * height));
    ACL_OK(aclrtMallocHost((void **)&out, opitch * height));
    ACL_OK(aclrtMalloc((void **)&dev, dpitch * height, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(in, spitch * height, 41);
    memset(out, 0xEE, opitch * height);
    ACL_OK(aclrtMemset(dev, dpitch * height, 0x77, dpitch * height));
    ACL_OK(aclrtMemcpy2dAsync(dev, dpitch, in, spitch, width, height, ACL_MEMCPY_DEFAULT, NULL));
    ACL_OK(aclrtMemcpy2dAsync(out, opitch, dev, dpitch, dpitch, height, ACL_MEMCPY_DEFAULT, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    for (size_t row = 0; row < height; row++) {
        const unsigned char *o = out + row * opitch, *i = in + row * spitch;
        ck_assert_int_eq(memcmp(o, i, width), 0);
        check_bytes(o + width, dpitch - width, 0x77);
        check_bytes(o + dpitch, opitch - dpitch, 0xEE);
    }
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(in));
    ACL_OK(aclrtFreeHost(out));
}
END_TEST

/* 2D host-to-host: synchronous only. acl-cuda refuses the queued kind with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT, as aclrtMemcpyAsync does for
 * host-to-host; the API reference gives ACL_ERROR_INVALID_PARAM for the
 * kinds aclrtMemcpy2dAsync does not take (a known difference). */
START_TEST(test_2d_host_to_host)
{
    unsigned char in[8 * 16], out[8 * 16];
    fill_pattern(in, sizeof in, 51);
    memset(out, 0xEE, sizeof out);
    ACL_OK(aclrtMemcpy2d(out, 16, in, 16, 10, 8, ACL_MEMCPY_HOST_TO_HOST));
    for (size_t row = 0; row < 8; row++) {
        ck_assert_int_eq(memcmp(out + row * 16, in + row * 16, 10), 0);
        check_bytes(out + row * 16 + 10, 6, 0xEE);
    }
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(out, 16, in, 16, 10, 8, ACL_MEMCPY_HOST_TO_HOST, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(out, 16, in, 16, 10, 8, ACL_MEMCPY_DEFAULT, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}
END_TEST

START_TEST(test_2d_checks_locations_and_extents)
{
    unsigned char host[4096], *dev;
    memset(host, 0, sizeof host);
    ACL_OK(aclrtMalloc((void **)&dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE;
    /* Kind against location. */
    ACL_FAILS_WITH(aclrtMemcpy2d(host, 64, dev, 64, 8, 8, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2d(dev, 64, host, 64, 8, 8, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_INVALID_PARAM);
    /* The allocation reserves 1024 + 32 bytes: 16 rows of pitch 64 span
     * 15 * 64 + 64 = 1024 and fit; 17 rows do not, nor does a last row
     * ending past the end. */
    ACL_OK(aclrtMemcpy2d(dev, 64, host, 64, 64, 16, h2d));
    ACL_FAILS_WITH(aclrtMemcpy2d(dev, 64, host, 64, 64, 17, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2d(host, 64, dev + 100, 64, 64, 16, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(dev, 64, host, 64, 64, 17, h2d, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* Fills outside ACL's allocations: ACL leaves them undefined; acl-cuda
 * fills pageable host memory (tests/check/test_fidelity.c, "undefined
 * uses"), and refuses freed memory and fills past the end. */
START_TEST(test_memset_checks_the_allocation)
{
    const size_t n = 4096 + 9;
    unsigned char *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    void *freed;
    ACL_OK(aclrtMalloc(&freed, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(freed));
    ACL_FAILS_WITH(aclrtMemset(freed, n, 0, n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(dev + n, SIZE_MAX, 1, 4096), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(pinned + 1, n, 1, n, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

/* Copies whose kind calls memory no allocator knows device memory (a stale
 * device pointer looks like that), and copies past the end of an
 * allocation. The API reference calls the synchronous kind advisory ("the
 * system checks the addresses"); a kind that contradicts memory an
 * allocator knows is done as the pointers say, or refused in strict mode
 * (tests/check/test_fidelity.c, "undefined uses"); these are refused in
 * every mode, with a message that names the kind and the memory. */
START_TEST(test_memcpy_checks_locations_and_extents)
{
    unsigned char host[256], other[256], *dev, *dev2, *pinned;
    memset(host, 0, sizeof host);
    ACL_OK(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev2, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 256));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE, d2h = ACL_MEMCPY_DEVICE_TO_HOST;

    ACL_FAILS_WITH(aclrtMemcpy(other, 256, host, 256, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(host, 256, other, 256, d2h), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 256, host, 256, ACL_MEMCPY_DEVICE_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(host, 256, dev, 256, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);

    /* The message names the kind and where each pointer lives. */
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclrtMemcpy(host, 256, other, 256, d2h), ACL_ERROR_INVALID_PARAM);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_ptr_nonnull(strstr(msg, "ACL_MEMCPY_DEVICE_TO_HOST"));
    ck_assert_ptr_nonnull(strstr(msg, "not allocated by ACL"));

    /* Copies running past the end of an allocation (256 + 32 reserved). */
    ACL_OK(aclrtMemcpy(dev + 32, 256, host, 256, h2d));
    ACL_FAILS_WITH(aclrtMemcpy(dev + 33, 256, host, 256, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(host, 256, dev + 33, 256, d2h), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev2, 256, pinned + 1, 256, h2d), ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFree(dev2));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

START_TEST(test_memcpy_async_checks_locations_and_extents)
{
    unsigned char host[256], other[256], *dev, *pinned;
    memset(host, 0, sizeof host);
    aclrtStream stream;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 256));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE;

    /* Not a stream: refused (stream.c picks the code), never dereferenced. */
    (void)aclGetRecentErrMsg();
    ck_assert_int_ne(aclrtMemcpyAsync(dev, 256, pinned, 256, h2d, (aclrtStream)other),
                     ACL_SUCCESS);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
    ACL_FAILS_WITH(aclrtMemcpyAsync(other, 256, host, 256, h2d, stream), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(host, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev + 64, 256, pinned, 256, h2d, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* A policy outside aclrtMemMallocPolicy is refused. The API reference says
 * CANN treats one as "huge pages from 2 MB, else normal pages" (a known
 * difference). */
START_TEST(test_malloc_refuses_unknown_policies)
{
    void *p = NULL;
    const unsigned bad_policies[] = {8, 0x200, 0x1100, 0x1107, 0x200000, 0x7FFFFFFF};
    for (size_t i = 0; i < sizeof bad_policies / sizeof bad_policies[0]; i++)
        ACL_FAILS_WITH(aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)bad_policies[i]),
                       ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(test_flush_checks_the_allocation)
{
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Only live ACL memory, and only inside its allocation. */
    char foreign[64];
    ACL_FAILS_WITH(aclrtMemFlush(foreign, sizeof foreign), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemInvalidate(foreign, sizeof foreign), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemFlush((char *)dev + 64, 4096), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
    ACL_FAILS_WITH(aclrtMemFlush(dev, 128), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* Copying a buffer onto itself moves nothing, but its size is still
 * checked against the allocation. */
START_TEST(test_self_copy_checks_extent)
{
    void *dev;
    aclrtStream stream;
    ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMemcpy(dev, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(aclrtMemcpyAsync(dev, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
    ACL_FAILS_WITH(aclrtMemcpy(dev, 1 << 20, dev, 1 << 20, ACL_MEMCPY_DEVICE_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 1 << 20, dev, 1 << 20, ACL_MEMCPY_DEFAULT, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* acl-cuda answers every aclrtMemAttr with the device's memory (ACL answers
 * an attribute the hardware lacks with 0/0). */
START_TEST(test_mem_info_every_attribute_has_memory)
{
    for (int attr = ACL_DDR_MEM; attr <= ACL_MEM_P2P_HUGE1G; attr++) {
        size_t free_bytes = 0, total_bytes = 0;
        ACL_OK(aclrtGetMemInfo((aclrtMemAttr)attr, &free_bytes, &total_bytes));
        ck_assert_msg(total_bytes > 0, "attr %d: total is 0", attr);
    }
}
END_TEST

/* Many live allocations: every interior pointer is found, frees in a
 * scrambled order leave the others intact. */
START_TEST(test_many_allocations)
{
    enum { COUNT = 2000 };
    static unsigned char *blocks[COUNT];
    aclrtPtrAttributes a;
    for (size_t i = 0; i < COUNT; i++)
        ACL_OK(aclrtMalloc((void **)&blocks[i], 1 + i % 300, ACL_MEM_MALLOC_HUGE_FIRST));
    for (size_t i = 0; i < COUNT; i++) {
        ACL_OK(aclrtPointerGetAttributes(blocks[i] + i % 300, &a));
        ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    }
    for (size_t k = 0; k < COUNT; k++) {
        size_t i = (k * 7919) % COUNT; /* 7919 is prime: a permutation */
        ACL_OK(aclrtFree(blocks[i]));
        ACL_FAILS_WITH(aclrtFree(blocks[i]), ACL_ERROR_INVALID_PARAM);
    }
}
END_TEST

/* Threads allocating, copying and freeing at once. */
static void *alloc_worker(void *arg)
{
    aclrtContext ctx = arg;
    if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS)
        return (void *)"aclrtSetCurrentContext failed";
    for (unsigned i = 0; i < 200; i++) {
        unsigned char in[64], out[64];
        void *dev;
        fill_pattern(in, sizeof in, i);
        if (aclrtMalloc(&dev, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
            aclrtMemcpy(dev, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
            aclrtMemcpy(out, sizeof out, dev, sizeof in, ACL_MEMCPY_DEVICE_TO_HOST) !=
                ACL_SUCCESS ||
            aclrtFree(dev) != ACL_SUCCESS)
            return (void *)"an ACL call failed";
        if (memcmp(in, out, sizeof in) != 0)
            return (void *)"data corrupted";
    }
    return NULL;
}

START_TEST(test_concurrent_allocations)
{
    enum { THREADS = 4 };
    pthread_t threads[THREADS];
    aclrtContext ctx;
    ACL_OK(aclrtGetCurrentContext(&ctx));
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, alloc_worker, ctx), 0);
    for (int i = 0; i < THREADS; i++) {
        void *failure;
        pthread_join(threads[i], &failure);
        ck_assert_msg(failure == NULL, "thread %d: %s", i, (const char *)failure);
    }
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory registry");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_fill_past_the_padding_is_refused);
    tcase_add_test(tc, test_fill_checks_the_allocation_now_at_an_address);
    tcase_add_test(tc, test_2d_async_default_kind);
    tcase_add_test(tc, test_2d_host_to_host);
    tcase_add_test(tc, test_2d_checks_locations_and_extents);
    tcase_add_test(tc, test_memset_checks_the_allocation);
    tcase_add_test(tc, test_memcpy_checks_locations_and_extents);
    tcase_add_test(tc, test_memcpy_async_checks_locations_and_extents);
    tcase_add_test(tc, test_malloc_refuses_unknown_policies);
    tcase_add_test(tc, test_flush_checks_the_allocation);
    tcase_add_test(tc, test_self_copy_checks_extent);
    tcase_add_test(tc, test_mem_info_every_attribute_has_memory);
    tcase_add_test(tc, test_many_allocations);
    tcase_add_test(tc, test_concurrent_allocations);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return acltest_run(memory_suite());
}
