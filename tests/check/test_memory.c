/* Memory: allocation, copies, fills and ACL's argument rules, through the
 * public API only, so the suite runs unchanged on every backend. */
#include <stdint.h>

#include "acltest.h"
#include "acl/acl_cuda.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* A byte pattern that differs per offset and per seed, made a word at a
 * time so that hundreds of MiB are quick to fill and check. */
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

static void check_pattern(const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t w = 0; w * 8 < n; w++) {
        uint64_t x = pattern_word(w, seed);
        size_t left = n - w * 8, len = left < 8 ? left : 8;
        if (memcmp(buf + w * 8, &x, len) != 0) {
            const unsigned char *want = (const unsigned char *)&x;
            for (size_t i = 0; i < len; i++)
                if (buf[w * 8 + i] != want[i])
                    ck_abort_msg("byte %zu of %zu is 0x%02x, expected 0x%02x", w * 8 + i, n,
                                 buf[w * 8 + i], want[i]);
        }
    }
}

static void check_bytes(const unsigned char *buf, size_t n, unsigned char value)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != value)
            ck_abort_msg("byte %zu of %zu is 0x%02x, expected 0x%02x", i, n, buf[i], value);
}

static unsigned char *host_buffer(size_t n)
{
    unsigned char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* Host -> device -> device -> host through the synchronous API. */
static void round_trip(size_t n, unsigned seed)
{
    unsigned char *in = host_buffer(n), *out = host_buffer(n);
    void *dev_a, *dev_b;
    fill_pattern(in, n, seed);
    memset(out, 0, n);
    ACL_OK(aclrtMalloc(&dev_a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dev_b, n, ACL_MEM_MALLOC_NORMAL_ONLY));
    ACL_OK(aclrtMemcpy(dev_a, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dev_b, n, dev_a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(aclrtMemcpy(out, n, dev_b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    check_pattern(out, n, seed);
    ACL_OK(aclrtFree(dev_a));
    ACL_OK(aclrtFree(dev_b));
    free(in);
    free(out);
}

START_TEST(test_round_trip_small)
{
    const size_t sizes[] = {1, 7, 4 * KIB + 3, MIB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        round_trip(sizes[i], (unsigned)i + 1);
}
END_TEST

START_TEST(test_round_trip_large)
{
    round_trip(64 * MIB, 11);
    round_trip(256 * MIB, 12);
}
END_TEST

/* Allocations start 64-byte aligned and reserve ACL's rounded size:
 * ALIGN_UP(size, 32) + 32 for aclrtMalloc, ALIGN_UP(size, 32) for
 * aclrtMallocAlign32. The slack is usable; one byte more is not. */
START_TEST(test_malloc_alignment_and_padding)
{
    void *p;
    ACL_OK(aclrtMalloc(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtMemset(p, 64, 0xAB, 64));
    ACL_FAILS_WITH(aclrtMemset(p, 65, 0xAB, 65), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(p));

    ACL_OK(aclrtMallocAlign32(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtMemset(p, 32, 0xAB, 32));
    ACL_FAILS_WITH(aclrtMemset(p, 33, 0xAB, 33), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(p));

    ACL_OK(aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE_ONLY));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtMemset(p, 160, 1, 160));
    ACL_OK(aclrtFree(p));

    ACL_OK(aclrtMallocHost(&p, 100));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtFreeHost(p));
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

START_TEST(test_unaligned_offsets)
{
    const size_t n = 1000;
    unsigned char *in = host_buffer(n + 16), *out = host_buffer(n + 16);
    unsigned char *dev_a, *dev_b;
    fill_pattern(in, n + 16, 3);
    memset(out, 0xEE, n + 16);
    ACL_OK(aclrtMalloc((void **)&dev_a, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev_b, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev_a + 3, 4093, in + 5, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dev_b + 1001, 3095, dev_a + 3, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(aclrtMemcpy(out + 1, n, dev_b + 1001, n, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(out + 1, in + 5, n), 0);
    ck_assert_uint_eq(out[0], 0xEE);
    check_bytes(out + 1 + n, 15, 0xEE);
    ACL_OK(aclrtFree(dev_a));
    ACL_OK(aclrtFree(dev_b));
    free(in);
    free(out);
}
END_TEST

/* Every kind 0..5, and ACL_MEMCPY_DEFAULT inferring all four directions. */
START_TEST(test_every_kind)
{
    const size_t n = 4096 + 17;
    unsigned char *in = host_buffer(n), *out = host_buffer(n);
    unsigned char *pinned, *dev_a, *dev_b;
    fill_pattern(in, n, 5);
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    ACL_OK(aclrtMalloc((void **)&dev_a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev_b, n, ACL_MEM_MALLOC_HUGE_FIRST));

    /* HOST_TO_HOST: pageable to pinned and back. */
    ACL_OK(aclrtMemcpy(pinned, n, in, n, ACL_MEMCPY_HOST_TO_HOST));
    memset(out, 0, n);
    ACL_OK(aclrtMemcpy(out, n, pinned, n, ACL_MEMCPY_HOST_TO_HOST));
    check_pattern(out, n, 5);

    /* Explicit directions; pinned memory is host memory. */
    ACL_OK(aclrtMemcpy(dev_a, n, pinned, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dev_b, n, dev_a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(out, 0, n);
    ACL_OK(aclrtMemcpy(out, n, dev_b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    check_pattern(out, n, 5);

    /* HOST_TO_BUF_TO_DEVICE is a host-to-device copy. */
    fill_pattern(in, n, 6);
    ACL_OK(aclrtMemcpy(dev_a, n, in, n, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
    memset(out, 0, n);
    ACL_OK(aclrtMemcpy(out, n, dev_a, n, ACL_MEMCPY_DEVICE_TO_HOST));
    check_pattern(out, n, 6);

    /* DEFAULT: every direction inferred from where the pointers live. */
    fill_pattern(in, n, 7);
    ACL_OK(aclrtMemcpy(pinned, n, in, n, ACL_MEMCPY_DEFAULT));
    ACL_OK(aclrtMemcpy(dev_a, n, pinned, n, ACL_MEMCPY_DEFAULT));
    ACL_OK(aclrtMemcpy(dev_b, n, dev_a, n, ACL_MEMCPY_DEFAULT));
    memset(out, 0, n);
    ACL_OK(aclrtMemcpy(out, n, dev_b, n, ACL_MEMCPY_DEFAULT));
    check_pattern(out, n, 7);

    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtFree(dev_a));
    ACL_OK(aclrtFree(dev_b));
    free(in);
    free(out);
}
END_TEST

/* Pinned H2D, D2D, D2H queued on `stream`; the result is read only after
 * the stream is synchronised. */
static void async_round_trip(aclrtStream stream, aclrtMemcpyKind h2d, aclrtMemcpyKind d2d,
                             aclrtMemcpyKind d2h)
{
    const size_t n = 256 * KIB + 5;
    unsigned char *in, *out, *dev_a, *dev_b;
    ACL_OK(aclrtMallocHost((void **)&in, n));
    ACL_OK(aclrtMallocHost((void **)&out, n));
    ACL_OK(aclrtMalloc((void **)&dev_a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev_b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(in, n, 9);
    memset(out, 0, n);
    ACL_OK(aclrtMemcpyAsync(dev_a, n, in, n, h2d, stream));
    ACL_OK(aclrtMemcpyAsync(dev_b, n, dev_a, n, d2d, stream));
    ACL_OK(aclrtMemcpyAsync(out, n, dev_b, n, d2h, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    check_pattern(out, n, 9);
    ACL_OK(aclrtFree(dev_a));
    ACL_OK(aclrtFree(dev_b));
    ACL_OK(aclrtFreeHost(in));
    ACL_OK(aclrtFreeHost(out));
}

START_TEST(test_async_created_stream)
{
    aclrtStream stream;
    ACL_OK(aclrtCreateStream(&stream));
    async_round_trip(stream, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_DEVICE,
                     ACL_MEMCPY_DEVICE_TO_HOST);
    async_round_trip(stream, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT);
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(test_async_default_stream)
{
    async_round_trip(NULL, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_DEVICE,
                     ACL_MEMCPY_DEVICE_TO_HOST);
    async_round_trip(NULL, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, ACL_MEMCPY_DEFAULT,
                     ACL_MEMCPY_DEFAULT);
}
END_TEST

/* A copy from pinned memory is truly queued: it does not wait for work
 * ahead of it on the stream. */
START_TEST(test_async_pinned_is_queued)
{
    const size_t n = 64 * KIB;
    aclrtStream stream;
    acltest_gate gate;
    unsigned char *in, *out, *dev;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMallocHost((void **)&in, n));
    ACL_OK(aclrtMallocHost((void **)&out, n));
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(in, n, 21);
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtMemcpyAsync(dev, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    ACL_OK(aclrtMemsetAsync(dev, n, 0x11, 16, stream));
    ACL_OK(aclrtMemcpyAsync(out, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    check_bytes(out, 16, 0x11);
    ck_assert_int_eq(memcmp(out + 16, in + 16, n - 16), 0);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(in));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* With pageable host memory the queued calls complete before returning: the
 * source may be overwritten and the destination read at once. */
START_TEST(test_async_pageable_is_synchronous)
{
    const size_t n = 128 * KIB + 1;
    aclrtStream stream;
    unsigned char *in = host_buffer(n), *out = host_buffer(n), *dev;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(in, n, 31);
    ACL_OK(aclrtMemcpyAsync(dev, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    memset(in, 0, n);
    memset(out, 0, n);
    ACL_OK(aclrtMemcpyAsync(out, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    check_pattern(out, n, 31);

    memset(out, 0, n);
    ACL_OK(aclrtMemcpy2dAsync(out, 100, dev, 100, 100, 10, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    fill_pattern(in, n, 31);
    ck_assert_int_eq(memcmp(out, in, 1000), 0);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(stream));
    free(in);
    free(out);
}
END_TEST

/* Host (pitch 48) -> device (pitch 64) -> host (pitch 72). Reading back
 * whole device rows shows that the device bytes between the rows kept
 * their fill; the host bytes beyond each row are never touched. */
static void two_d_round_trip(aclrtStream stream, bool queued, aclrtMemcpyKind h2d,
                             aclrtMemcpyKind d2h)
{
    const size_t width = 40, height = 10, spitch = 48, dpitch = 64, opitch = 72;
    unsigned char *in, *out, *dev;
    ACL_OK(aclrtMallocHost((void **)&in, spitch * height));
    ACL_OK(aclrtMallocHost((void **)&out, opitch * height));
    ACL_OK(aclrtMalloc((void **)&dev, dpitch * height, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(in, spitch * height, 41);
    memset(out, 0xEE, opitch * height);
    ACL_OK(aclrtMemset(dev, dpitch * height, 0x77, dpitch * height));
    if (queued) {
        ACL_OK(aclrtMemcpy2dAsync(dev, dpitch, in, spitch, width, height, h2d, stream));
        ACL_OK(aclrtMemcpy2dAsync(out, opitch, dev, dpitch, dpitch, height, d2h, stream));
        ACL_OK(aclrtSynchronizeStream(stream));
    } else {
        ACL_OK(aclrtMemcpy2d(dev, dpitch, in, spitch, width, height, h2d));
        ACL_OK(aclrtMemcpy2d(out, opitch, dev, dpitch, dpitch, height, d2h));
    }
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

START_TEST(test_2d_copies)
{
    aclrtStream stream;
    two_d_round_trip(NULL, false, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST);
    two_d_round_trip(NULL, false, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT);
    ACL_OK(aclrtCreateStream(&stream));
    two_d_round_trip(stream, true, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST);
    two_d_round_trip(NULL, true, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT);
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* 2D device-to-device and host-to-host (synchronous only). */
START_TEST(test_2d_d2d_and_h2h)
{
    unsigned char *dev_a, *dev_b;
    unsigned char in[8 * 16], out[8 * 16];
    fill_pattern(in, sizeof in, 51);
    memset(out, 0xEE, sizeof out);
    ACL_OK(aclrtMalloc((void **)&dev_a, 8 * 16, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev_b, 8 * 32, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev_a, 8 * 16, in, 8 * 16, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy2d(dev_b, 32, dev_a, 16, 16, 8, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(aclrtMemcpy2dAsync(dev_a, 16, dev_b, 32, 16, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtMemcpy(out, sizeof out, dev_a, 8 * 16, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(out, in, sizeof out), 0);

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
    ACL_OK(aclrtFree(dev_a));
    ACL_OK(aclrtFree(dev_b));
}
END_TEST

START_TEST(test_2d_errors)
{
    unsigned char host[4096], *dev;
    memset(host, 0, sizeof host);
    ACL_OK(aclrtMalloc((void **)&dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE;

    ACL_FAILS_WITH(aclrtMemcpy2d(NULL, 64, host, 64, 8, 8, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2d(dev, 64, NULL, 64, 8, 8, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(NULL, 64, host, 64, 8, 8, h2d, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtMemcpy2d(dev, 64, host, 64, 0, 8, h2d));
    ACL_OK(aclrtMemcpy2d(dev, 64, host, 64, 8, 0, h2d));
    ACL_OK(aclrtMemcpy2dAsync(dev, 64, host, 64, 0, 8, h2d, NULL));
    ACL_FAILS_WITH(aclrtMemcpy2d(dev, 16, host, 64, 17, 8, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2d(dev, 64, host, 16, 17, 8, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(dev, 16, host, 64, 17, 8, h2d, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(dev, 5000001, host, 5000001, 5000001, 1, h2d, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy2dAsync(dev, 1, host, 1, 1, 5242881, h2d, NULL),
                   ACL_ERROR_INVALID_PARAM);
    const int bad_kinds[] = {ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
                             ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 99, -1};
    for (size_t i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; i++) {
        ACL_FAILS_WITH(aclrtMemcpy2d(dev, 64, host, 64, 8, 8, (aclrtMemcpyKind)bad_kinds[i]),
                       ACL_ERROR_INVALID_PARAM);
        ACL_FAILS_WITH(
            aclrtMemcpy2dAsync(dev, 64, host, 64, 8, 8, (aclrtMemcpyKind)bad_kinds[i], NULL),
            ACL_ERROR_INVALID_PARAM);
    }
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

START_TEST(test_memset)
{
    const size_t n = 4096 + 9;
    unsigned char *dev, *pinned, *out = host_buffer(n);
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));

    ACL_OK(aclrtMemset(dev, n, 0x5A, n));
    ACL_OK(aclrtMemset(dev + 100, n - 100, 0x1FF, 50)); /* truncated to 0xFF */
    ACL_OK(aclrtMemcpy(out, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
    check_bytes(out, 100, 0x5A);
    check_bytes(out + 100, 50, 0xFF);
    check_bytes(out + 150, n - 150, 0x5A);

    ACL_OK(aclrtMemsetAsync(dev + 1, n - 1, -1, 3, NULL));
    ACL_OK(aclrtMemsetAsync(pinned, n, 0x12, n, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtMemcpy(out, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(out[0], 0x5A);
    check_bytes(out + 1, 3, 0xFF);
    check_bytes(pinned, n, 0x12);

    /* Host memory is filled when ACL allocated it; other memory (which ACL
     * leaves undefined, and which may be a freed device pointer) is refused. */
    ACL_OK(aclrtMemset(pinned, n, 0x34, n));
    check_bytes(pinned, n, 0x34);
    memset(out, 0x77, n);
    ACL_FAILS_WITH(aclrtMemset(out, n, 0x256, n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(out, n, 0x256, n, NULL), ACL_ERROR_INVALID_PARAM);
    check_bytes(out, n, 0x77);
    void *freed;
    ACL_OK(aclrtMalloc(&freed, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(freed));
    ACL_FAILS_WITH(aclrtMemset(freed, n, 0, n), ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtMemset(dev, n, 1, 0));
    ACL_OK(aclrtMemsetAsync(dev, n, 1, 0, NULL));
    ACL_FAILS_WITH(aclrtMemset(NULL, n, 1, n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(NULL, n, 1, n, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(dev, 10, 1, 11), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemsetAsync(dev, 10, 1, 11, NULL), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemset(dev + n, SIZE_MAX, 1, 4096), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(pinned + 1, n, 1, n, NULL), ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    free(out);
}
END_TEST

START_TEST(test_memcpy_errors)
{
    unsigned char host[256], other[256], *dev, *dev2, *pinned;
    memset(host, 0, sizeof host);
    ACL_OK(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev2, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 256));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE, d2h = ACL_MEMCPY_DEVICE_TO_HOST;

    ACL_FAILS_WITH(aclrtMemcpy(NULL, 256, host, 256, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 256, NULL, 256, h2d), ACL_ERROR_INVALID_PARAM);
    const int bad_kinds[] = {ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
                             8, 99, -1};
    for (size_t i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; i++)
        ACL_FAILS_WITH(aclrtMemcpy(dev, 256, host, 256, (aclrtMemcpyKind)bad_kinds[i]),
                       ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtMemcpy(dev, 256, host, 0, h2d));
    ACL_OK(aclrtMemcpy(dev, 0, host, 0, h2d));
    ACL_FAILS_WITH(aclrtMemcpy(dev, 0, host, 1, h2d), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 255, host, 256, h2d), ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtMemcpy(dev, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));

    /* Kinds that contradict where the pointers live. */
    ACL_FAILS_WITH(aclrtMemcpy(other, 256, host, 256, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(pinned, 256, host, 256, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 256, dev2, 256, h2d), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(host, 256, other, 256, d2h), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 256, dev2, 256, d2h), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 256, host, 256, ACL_MEMCPY_DEVICE_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(dev, 256, host, 256, ACL_MEMCPY_HOST_TO_HOST),
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

START_TEST(test_memcpy_async_errors)
{
    unsigned char host[256], other[256], *dev, *pinned;
    memset(host, 0, sizeof host);
    aclrtStream stream;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 256));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE;

    ACL_FAILS_WITH(aclrtMemcpyAsync(NULL, 256, host, 256, h2d, stream), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 256, NULL, 256, h2d, stream), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 256, host, 256, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 256, host, 256, (aclrtMemcpyKind)42, NULL),
                   ACL_ERROR_INVALID_PARAM);
    /* Not a stream: refused (stream.c picks the code), never dereferenced. */
    (void)aclGetRecentErrMsg();
    ck_assert_int_ne(aclrtMemcpyAsync(dev, 256, pinned, 256, h2d, (aclrtStream)other),
                     ACL_SUCCESS);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
    ACL_OK(aclrtMemcpyAsync(dev, 256, host, 0, h2d, stream));
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 0, host, 1, h2d, stream), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 100, host, 101, h2d, stream), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsync(other, 256, host, 256, ACL_MEMCPY_HOST_TO_HOST, stream),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMemcpyAsync(pinned, 256, host, 256, ACL_MEMCPY_DEFAULT, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMemcpyAsync(other, 256, host, 256, h2d, stream), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(host, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev + 64, 256, pinned, 256, h2d, stream),
                   ACL_ERROR_INVALID_PARAM);

    /* The deprecated alias follows the same rules. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithCondition(dev, 100, host, 101, h2d, stream),
                   ACL_ERROR_RT_PARAM_INVALID);
    fill_pattern(pinned, 256, 61);
    ACL_OK(aclrtMemcpyAsyncWithCondition(dev, 256, pinned, 256, h2d, stream));
#pragma GCC diagnostic pop
    ACL_OK(aclrtMemcpyAsync(host, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    check_pattern(host, 256, 61);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(test_free_errors)
{
    unsigned char on_stack[64];
    unsigned char *heap = host_buffer(64), *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 64));

    ACL_FAILS_WITH(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFree(on_stack), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFree(heap), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFree(dev + 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFree(pinned), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeWithDevSync(dev + 8), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeWithDevSync(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(on_stack), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(heap), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(pinned + 4), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(dev), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHostWithDevSync(dev), ACL_ERROR_INVALID_PARAM);

    /* Failed frees changed nothing: both allocations are still usable. */
    ACL_OK(aclrtMemset(dev, 64, 1, 64));
    ACL_OK(aclrtMemset(pinned, 64, 1, 64));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_FAILS_WITH(aclrtFree(dev), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreeHost(pinned), ACL_ERROR_INVALID_PARAM);
    free(heap);
}
END_TEST

START_TEST(test_free_with_dev_sync)
{
    const size_t n = 1 * MIB;
    aclrtStream stream;
    unsigned char *dev, *pinned;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    ACL_OK(aclrtMemsetAsync(dev, n, 7, n, stream));
    ACL_OK(aclrtMemcpyAsync(pinned, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtFreeWithDevSync(dev));
    /* The device is synchronised, so the copy into pinned is complete. */
    check_bytes(pinned, n, 7);
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemsetAsync(pinned, n, 9, n, stream));
    ACL_OK(aclrtMemcpyAsync(dev, n, pinned, n, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    ACL_OK(aclrtFreeHostWithDevSync(pinned));
    ACL_OK(aclrtFree(dev));
    ACL_FAILS_WITH(aclrtFreeHostWithDevSync(pinned), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(test_malloc_errors)
{
    void *p = NULL;
    ACL_FAILS_WITH(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocCached(NULL, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                   ACL_ERROR_INVALID_PARAM);
    const unsigned bad_policies[] = {8, 0x200, 0x1100, 0x1107, 0x200000, 0x7FFFFFFF};
    for (size_t i = 0; i < sizeof bad_policies / sizeof bad_policies[0]; i++)
        ACL_FAILS_WITH(aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)bad_policies[i]),
                       ACL_ERROR_INVALID_PARAM);
    const unsigned good_policies[] = {0, 1, 2, 3, 4, 5, 6, 7, 0x100, 0x1002, 0x100003, 0x101007};
    for (size_t i = 0; i < sizeof good_policies / sizeof good_policies[0]; i++) {
        ACL_OK(aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)good_policies[i]));
        ACL_OK(aclrtFree(p));
    }
    ACL_FAILS_WITH(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocHostWithCfg(&p, 0, NULL), ACL_ERROR_INVALID_PARAM);

    /* Configurations. */
    aclrtMallocAttribute attrs[2] = {
        {.attr = ACL_RT_MEM_ATTR_MODULE_ID, .value.moduleId = 3},
        {.attr = ACL_RT_MEM_ATTR_DEVICE_ID, .value.deviceId = 0},
    };
    aclrtMallocConfig cfg = {.attrs = attrs, .numAttrs = 2};
    ACL_OK(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    aclrtPtrAttributes pa;
    ACL_OK(aclrtPointerGetAttributes(p, &pa));
    ck_assert_int_eq(pa.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_uint_eq(pa.location.id, 0);
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocHostWithCfg(&p, 100, &cfg));
    ACL_OK(aclrtFreeHost(p));
    ACL_OK(aclrtMallocHostWithCfg(&p, 100, NULL));
    ACL_OK(aclrtFreeHost(p));

    attrs[1].value.deviceId = 4096;
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                   ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_ERROR_RT_INVALID_DEVICEID);
    attrs[1].attr = (aclrtMallocAttrType)77;
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                   ACL_ERROR_INVALID_PARAM);
    cfg.attrs = NULL;
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(test_flush_invalidate)
{
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemFlush(dev, 128));
    ACL_OK(aclrtMemInvalidate(dev, 128));
    ACL_FAILS_WITH(aclrtMemFlush(NULL, 128), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemFlush(dev, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemInvalidate(NULL, 128), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemInvalidate(dev, 0), ACL_ERROR_INVALID_PARAM);
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

START_TEST(test_mem_info)
{
    size_t free_bytes, total_bytes;
    for (int attr = ACL_DDR_MEM; attr <= ACL_MEM_P2P_HUGE1G; attr++) {
        free_bytes = total_bytes = 0;
        ACL_OK(aclrtGetMemInfo((aclrtMemAttr)attr, &free_bytes, &total_bytes));
        ck_assert_msg(total_bytes > 0, "attr %d: total is 0", attr);
        ck_assert_msg(free_bytes <= total_bytes, "attr %d: free %zu > total %zu", attr,
                      free_bytes, total_bytes);
    }
    ACL_FAILS_WITH(aclrtGetMemInfo((aclrtMemAttr)18, &free_bytes, &total_bytes),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemInfo((aclrtMemAttr)-1, &free_bytes, &total_bytes),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total_bytes), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(test_pointer_attributes)
{
    aclrtPtrAttributes a;
    unsigned char on_stack[16], *dev, *big, *big_normal, *pinned;
    unsigned char *heap = host_buffer(16);
    ACL_OK(aclrtMalloc((void **)&dev, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&big, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&big_normal, 4 * MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    ACL_OK(aclrtMallocHost((void **)&pinned, 100));

    ACL_OK(aclrtPointerGetAttributes(dev, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_uint_eq(a.location.id, 0);
    ck_assert_uint_eq(a.pageSize, 4096);
    ACL_OK(aclrtPointerGetAttributes(dev + 999, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ACL_OK(aclrtPointerGetAttributes(big + MIB, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_uint_eq(a.pageSize, 2 * MIB);
    ACL_OK(aclrtPointerGetAttributes(big_normal, &a));
    ck_assert_uint_eq(a.pageSize, 4096);
    ACL_OK(aclrtPointerGetAttributes(pinned + 50, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    ACL_OK(aclrtPointerGetAttributes(heap, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    ACL_OK(aclrtPointerGetAttributes(on_stack, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);

    ACL_FAILS_WITH(aclrtPointerGetAttributes(NULL, &a), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtPointerGetAttributes(dev, NULL), ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtPointerGetAttributes(dev, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    ACL_OK(aclrtFree(big));
    ACL_OK(aclrtFree(big_normal));
    ACL_OK(aclrtFreeHost(pinned));
    free(heap);
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

/* ---- tests that set up devices themselves ---------------------------------- */

START_TEST(test_no_context)
{
    void *p;
    size_t free_bytes, total_bytes;
    unsigned char host[16];
    ACL_FAILS_WITH(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes),
                   ACL_ERROR_RT_CONTEXT_NULL);
    ACL_FAILS_WITH(aclrtMemcpy(host, 16, host + 8, 8, ACL_MEMCPY_HOST_TO_HOST),
                   ACL_ERROR_RT_CONTEXT_NULL);
    ACL_FAILS_WITH(aclrtMemset(host, 16, 0, 16), ACL_ERROR_RT_CONTEXT_NULL);
}
END_TEST

/* Running out of device memory is an error the library survives. On the
 * host backend "device" memory is capped by ACLCUDA_HOST_DEVICE_MEMORY,
 * read when the backend starts, so it is set before the first ACL call;
 * elsewhere an absurd request fails the same way. */
START_TEST(test_out_of_memory)
{
    ck_assert_int_eq(setenv("ACLCUDA_HOST_DEVICE_MEMORY", "1M", 1), 0);
    bool host = strcmp(aclcudaGetBackendName(), "host") == 0;
    size_t too_big = host ? 2 * MIB : (size_t)1 << 50;
    void *held = NULL, *p = NULL;
    ACL_OK(aclrtSetDevice(0));
    if (host)
        ACL_OK(aclrtMalloc(&held, 512 * KIB, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtMalloc(&p, too_big, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
    if (host) {
        ACL_FAILS_WITH(aclrtMalloc(&p, 512 * KIB, ACL_MEM_MALLOC_HUGE_FIRST),
                       ACL_ERROR_RT_MEMORY_ALLOCATION);
        ACL_OK(aclrtFree(held));
    }
    ACL_FAILS_WITH(aclrtMalloc(&p, SIZE_MAX - 8, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
    ACL_OK(aclrtMalloc(&p, 4 * KIB, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(p, 4 * KIB, 0, 4 * KIB));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

/* Allocations remember their device; copies between devices work. */
START_TEST(test_two_devices)
{
    ck_assert_int_eq(setenv("ACLCUDA_HOST_DEVICE_COUNT", "2", 1), 0);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    if (count < 2)
        return; /* one GPU: nothing to test */
    const size_t n = 4096;
    unsigned char *in = host_buffer(n), *out = host_buffer(n), *dev0, *dev1;
    aclrtPtrAttributes a;
    fill_pattern(in, n, 71);
    ACL_OK(aclrtSetDevice(1));
    ACL_OK(aclrtMalloc((void **)&dev1, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev1, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtMalloc((void **)&dev0, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtPointerGetAttributes(dev1 + 10, &a));
    ck_assert_uint_eq(a.location.id, 1);
    ACL_OK(aclrtPointerGetAttributes(dev0, &a));
    ck_assert_uint_eq(a.location.id, 0);
    ACL_OK(aclrtMemcpy(dev0, n, dev1, n, ACL_MEMCPY_DEFAULT));
    ACL_OK(aclrtMemcpy(out, n, dev0, n, ACL_MEMCPY_DEFAULT));
    check_pattern(out, n, 71);
    /* Freed from device 0's context: the registry knows it is device 1's. */
    ACL_OK(aclrtFreeWithDevSync(dev1));
    ACL_OK(aclrtFree(dev0));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDevice(1));
    free(in);
    free(out);
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");

    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_round_trip_small);
    tcase_add_test(tc, test_round_trip_large);
    tcase_add_test(tc, test_malloc_alignment_and_padding);
    tcase_add_test(tc, test_fill_checks_the_allocation_now_at_an_address);
    tcase_add_test(tc, test_unaligned_offsets);
    tcase_add_test(tc, test_every_kind);
    tcase_add_test(tc, test_async_created_stream);
    tcase_add_test(tc, test_async_default_stream);
    tcase_add_test(tc, test_async_pinned_is_queued);
    tcase_add_test(tc, test_async_pageable_is_synchronous);
    tcase_add_test(tc, test_2d_copies);
    tcase_add_test(tc, test_2d_d2d_and_h2h);
    tcase_add_test(tc, test_2d_errors);
    tcase_add_test(tc, test_memset);
    tcase_add_test(tc, test_memcpy_errors);
    tcase_add_test(tc, test_memcpy_async_errors);
    tcase_add_test(tc, test_free_errors);
    tcase_add_test(tc, test_free_with_dev_sync);
    tcase_add_test(tc, test_malloc_errors);
    tcase_add_test(tc, test_flush_invalidate);
    tcase_add_test(tc, test_self_copy_checks_extent);
    tcase_add_test(tc, test_mem_info);
    tcase_add_test(tc, test_pointer_attributes);
    tcase_add_test(tc, test_many_allocations);
    tcase_add_test(tc, test_concurrent_allocations);
    suite_add_tcase(s, tc);

    TCase *bare = tcase_create("without fixture");
    tcase_set_timeout(bare, 30);
    tcase_add_test(bare, test_no_context);
    tcase_add_test(bare, test_out_of_memory);
    tcase_add_test(bare, test_two_devices);
    suite_add_tcase(s, bare);
    return s;
}

int main(void)
{
    return acltest_run(memory_suite());
}
