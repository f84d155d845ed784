/* Memory: allocation, copies, fills and ACL's argument rules, the memory
 * queries, and the bad-argument rows of the memory functions. acl-cuda's
 * stricter checks against its allocation registry (extents, kinds that
 * contradict where memory lives) are acl-cuda's own tests
 * (tests/check/test_memory_registry.c). */
#include <stdint.h>

#include "bad_args.h"

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

COMPAT_TEST(test_round_trip_small,
            "aclrtMemcpy moves data host -> device -> device -> host intact for small sizes",
            "acl_rt.h aclrtMalloc, aclrtMemcpy; API ref aclrtMemcpy")
{
    const size_t sizes[] = {1, 7, 4 * KIB + 3, MIB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        round_trip(sizes[i], (unsigned)i + 1);
}
COMPAT_TEST(test_round_trip_large,
            "aclrtMemcpy moves 64 MiB and 256 MiB intact",
            "acl_rt.h aclrtMemcpy; API ref aclrtMemcpy")
{
    round_trip(64 * MIB, 11);
    round_trip(256 * MIB, 12);
}
/* Allocations start 64-byte aligned. */
COMPAT_TEST(test_malloc_alignment,
            "aclrtMalloc, aclrtMallocAlign32, aclrtMallocCached and aclrtMallocHost return 64-byte aligned addresses",
            "API ref aclrtMalloc, aclrtMallocHost: start address 64-byte aligned")
{
    void *p;
    ACL_OK(aclrtMalloc(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocAlign32(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE_ONLY));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocHost(&p, 100));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    ACL_OK(aclrtFreeHost(p));
}
/* Allocations reserve ACL's rounded size, and the slack may be written:
 * ALIGN_UP(size, 32) + 32 for aclrtMalloc and aclrtMallocCached,
 * ALIGN_UP(size, 32) for aclrtMallocAlign32. (On 950-series parts aclrtMalloc
 * only rounds to 32: see expected-differences.txt.) */
COMPAT_TEST(test_malloc_padding,
            "aclrtMalloc reserves ALIGN_UP(size, 32) + 32 bytes, aclrtMallocAlign32 ALIGN_UP(size, 32); the rounded size may be filled",
            "API ref aclrtMalloc (size rounding, A2/A3/310P/910), aclrtMallocAlign32")
{
    void *p;
    ACL_OK(aclrtMalloc(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(p, 64, 0xAB, 64));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocAlign32(&p, 7, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(p, 32, 0xAB, 32));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_OK(aclrtMemset(p, 160, 1, 160));
    ACL_OK(aclrtFree(p));
}
COMPAT_TEST(test_unaligned_offsets,
            "synchronous copies at unaligned offsets move exactly the bytes asked for",
            "API ref aclrtMemcpy")
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
COMPAT_TEST(test_every_kind,
            "aclrtMemcpy takes kinds 0-5: host-to-host, the explicit directions, HOST_TO_BUF_TO_DEVICE as host-to-device, and DEFAULT inferring every direction from the pointers",
            "acl_rt.h aclrtMemcpyKind; API ref aclrtMemcpy")
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

COMPAT_TEST(test_async_created_stream,
            "aclrtMemcpyAsync queues copies in order on a created stream (explicit kinds and DEFAULT)",
            "acl_rt.h aclrtMemcpyAsync; API ref")
{
    aclrtStream stream;
    ACL_OK(aclrtCreateStream(&stream));
    async_round_trip(stream, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_DEVICE,
                     ACL_MEMCPY_DEVICE_TO_HOST);
    async_round_trip(stream, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT);
    ACL_OK(aclrtDestroyStream(stream));
}
COMPAT_TEST(test_async_default_stream,
            "aclrtMemcpyAsync queues copies in order on the default stream (NULL)",
            "API ref aclrtMemcpyAsync: NULL = default stream")
{
    async_round_trip(NULL, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_DEVICE,
                     ACL_MEMCPY_DEVICE_TO_HOST);
    async_round_trip(NULL, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, ACL_MEMCPY_DEFAULT,
                     ACL_MEMCPY_DEFAULT);
}
COMPAT_TEST(test_async_pinned_is_queued,
            "a copy from page-locked memory is queued: it runs in stream order after work ahead of it",
            "API ref aclrtMemcpyAsync: asynchronous for page-locked host memory")
{
    const size_t n = 64 * KIB;
    aclrtStream stream;
    compat_gate gate;
    unsigned char *in, *out, *dev;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtMallocHost((void **)&in, n));
    ACL_OK(aclrtMallocHost((void **)&out, n));
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(in, n, 21);
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtMemcpyAsync(dev, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    ACL_OK(aclrtMemsetAsync(dev, n, 0x11, 16, stream));
    ACL_OK(aclrtMemcpyAsync(out, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    check_bytes(out, 16, 0x11);
    ck_assert_int_eq(memcmp(out + 16, in + 16, n - 16), 0);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(in));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(stream));
}
COMPAT_TEST(test_async_pageable_is_synchronous,
            "aclrtMemcpyAsync and aclrtMemcpy2dAsync with pageable host memory complete before returning",
            "API ref aclrtMemcpyAsync (newest): pageable host memory behaves synchronously")
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

COMPAT_TEST(test_2d_copies,
            "aclrtMemcpy2d and aclrtMemcpy2dAsync copy width bytes of each row between pitches, touching nothing between rows (H2D/D2H, and DEFAULT synchronously)",
            "acl_rt.h aclrtMemcpy2d, aclrtMemcpy2dAsync; API ref; [impl] sync DEFAULT")
{
    aclrtStream stream;
    two_d_round_trip(NULL, false, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST);
    two_d_round_trip(NULL, false, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEFAULT);
    ACL_OK(aclrtCreateStream(&stream));
    two_d_round_trip(stream, true, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST);
    two_d_round_trip(NULL, true, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST);
    ACL_OK(aclrtDestroyStream(stream));
}
COMPAT_TEST(test_2d_device_to_device,
            "2D copies device-to-device, synchronous and queued",
            "API ref aclrtMemcpy2dAsync (D2D on A2/A3/950); [impl] sync D2D")
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

    ACL_OK(aclrtFree(dev_a));
    ACL_OK(aclrtFree(dev_b));
}
COMPAT_TEST(test_2d_errors,
            "2D copies: NULL pointers, width above a pitch, width above 5000000 or height above 5242880 (async), and kinds other than H2D/D2H/D2D/DEFAULT are ACL_ERROR_INVALID_PARAM; width or height 0 copies nothing",
            "API ref aclrtMemcpy2d, aclrtMemcpy2dAsync: limits and kinds; [impl] hicann/runtime")
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
    ACL_OK(aclrtFree(dev));
}
COMPAT_TEST(test_memset,
            "aclrtMemset/aclrtMemsetAsync fill bytes (value truncated to 8 bits) in device and ACL host memory; count 0 does nothing; NULL is ACL_ERROR_INVALID_PARAM; count above maxCount is ACL_ERROR_RT_PARAM_INVALID",
            "API ref aclrtMemset, aclrtMemsetAsync; [impl] byte fill, 107000")
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

    /* Host memory is filled when ACL allocated it. */
    ACL_OK(aclrtMemset(pinned, n, 0x34, n));
    check_bytes(pinned, n, 0x34);

    ACL_OK(aclrtMemset(dev, n, 1, 0));
    ACL_OK(aclrtMemsetAsync(dev, n, 1, 0, NULL));
    ACL_FAILS_WITH(aclrtMemset(NULL, n, 1, n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetAsync(NULL, n, 1, n, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(dev, 10, 1, 11), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemsetAsync(dev, 10, 1, 11, NULL), ACL_ERROR_RT_PARAM_INVALID);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    free(out);
}
COMPAT_TEST(test_memcpy_errors,
            "aclrtMemcpy: NULL pointers and kinds 6, 7 and unknown values are ACL_ERROR_INVALID_PARAM; count above destMax is ACL_ERROR_RT_PARAM_INVALID; count 0 and dst == src copy nothing",
            "API ref aclrtMemcpy; [impl] hicann/runtime (6/7 refused, 107000)")
{
    unsigned char host[256], *dev, *dev2, *pinned;
    memset(host, 0, sizeof host);
    ACL_OK(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dev2, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 256));
    const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE;

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

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFree(dev2));
    ACL_OK(aclrtFreeHost(pinned));
}
COMPAT_TEST(test_memcpy_async_errors,
            "aclrtMemcpyAsync follows aclrtMemcpy's argument rules; host-to-host (explicit or inferred by DEFAULT) is ACL_ERROR_RT_FEATURE_NOT_SUPPORT; the deprecated aclrtMemcpyAsyncWithCondition follows the same rules",
            "API ref aclrtMemcpyAsync: H2H -> 207000; acl_rt.h aclrtMemcpyAsyncWithCondition")
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
    ACL_OK(aclrtMemcpyAsync(dev, 256, host, 0, h2d, stream));
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 0, host, 1, h2d, stream), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsync(dev, 100, host, 101, h2d, stream), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsync(other, 256, host, 256, ACL_MEMCPY_HOST_TO_HOST, stream),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMemcpyAsync(pinned, 256, host, 256, ACL_MEMCPY_DEFAULT, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

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
COMPAT_TEST(test_free_errors,
            "the free functions refuse memory ACL did not allocate for them (stack, heap, interior, the other kind, already freed) with ACL_ERROR_INVALID_PARAM and change nothing",
            "acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)")
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

    /* Freed by aclrtFreeHostWithDevSync: gone as well. */
    ACL_OK(aclrtMallocHost((void **)&pinned, 64));
    ACL_OK(aclrtFreeHostWithDevSync(pinned));
    ACL_FAILS_WITH(aclrtFreeHostWithDevSync(pinned), ACL_ERROR_INVALID_PARAM);
}
COMPAT_TEST(test_free_with_dev_sync,
            "aclrtFreeWithDevSync and aclrtFreeHostWithDevSync synchronise the device before freeing: queued copies have completed",
            "acl_rt.h aclrtFreeWithDevSync, aclrtFreeHostWithDevSync; API ref")
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
    ACL_OK(aclrtDestroyStream(stream));
}
COMPAT_TEST(test_malloc_errors,
            "aclrtMalloc and friends refuse a NULL output and size 0 with ACL_ERROR_INVALID_PARAM, take every aclrtMemMallocPolicy value, and aclrtMallocWithCfg / aclrtMallocHostWithCfg take a NULL or a module-id/device-id configuration",
            "API ref aclrtMalloc (size > 0, policies), aclrtMallocWithCfg (cfg may be NULL); [impl] 100000")
{
    void *p = NULL;
    ACL_FAILS_WITH(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocCached(NULL, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
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
}
COMPAT_TEST(test_flush_invalidate,
            "aclrtMemFlush and aclrtMemInvalidate accept device memory and refuse NULL and size 0 with ACL_ERROR_INVALID_PARAM",
            "acl_rt.h aclrtMemFlush, aclrtMemInvalidate; [impl] ACL-layer checks")
{
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemFlush(dev, 128));
    ACL_OK(aclrtMemInvalidate(dev, 128));
    ACL_FAILS_WITH(aclrtMemFlush(NULL, 128), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemFlush(dev, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemInvalidate(NULL, 128), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemInvalidate(dev, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
}
COMPAT_TEST(test_mem_info,
            "aclrtGetMemInfo answers every aclrtMemAttr (0-17) with free <= total (0/0 where the hardware lacks the memory) and refuses NULL outputs",
            "API ref aclrtGetMemInfo")
{
    size_t free_bytes, total_bytes;
    for (int attr = ACL_DDR_MEM; attr <= ACL_MEM_P2P_HUGE1G; attr++) {
        free_bytes = total_bytes = 0;
        ACL_OK(aclrtGetMemInfo((aclrtMemAttr)attr, &free_bytes, &total_bytes));
        ck_assert_msg(free_bytes <= total_bytes, "attr %d: free %zu > total %zu", attr,
                      free_bytes, total_bytes);
    }
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total_bytes), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, NULL), ACL_ERROR_INVALID_PARAM);
}
COMPAT_TEST(test_pointer_attributes,
            "aclrtPointerGetAttributes reports device memory (with its device id, interior pointers included), ACL host memory, and anything else or freed memory as unregistered; NULL arguments are ACL_ERROR_INVALID_PARAM",
            "acl_rt.h aclrtPointerGetAttributes, aclrtMemLocationType")
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
    ACL_OK(aclrtPointerGetAttributes(dev + 999, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ACL_OK(aclrtPointerGetAttributes(big + MIB, &a));
    ck_assert_int_eq(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
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
/* Page sizes follow the policy: HUGE_FIRST gives 2 MiB pages above 1 MiB,
 * normal (4 KiB) pages below and for NORMAL_ONLY. Sizes are the hardware's:
 * see expected-differences.txt. */
COMPAT_TEST(test_pointer_page_sizes,
            "aclrtPointerGetAttributes reports 4 KiB pages for small and NORMAL_ONLY blocks and 2 MiB pages for HUGE_FIRST blocks above 1 MiB",
            "API ref aclrtMalloc (HUGE_FIRST: 2 MB pages when size > 1 MB); aclrtPtrAttributes.pageSize")
{
    aclrtPtrAttributes a;
    unsigned char *dev, *big, *big_normal;
    ACL_OK(aclrtMalloc((void **)&dev, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&big, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&big_normal, 4 * MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    ACL_OK(aclrtPointerGetAttributes(dev, &a));
    ck_assert_uint_eq(a.pageSize, 4096);
    ACL_OK(aclrtPointerGetAttributes(big + MIB, &a));
    ck_assert_uint_eq(a.pageSize, 2 * MIB);
    ACL_OK(aclrtPointerGetAttributes(big_normal, &a));
    ck_assert_uint_eq(a.pageSize, 4096);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFree(big));
    ACL_OK(aclrtFree(big_normal));
}
/* ---- tests that set up devices themselves ---------------------------------- */

COMPAT_TEST(test_no_context,
            "memory calls in a thread without a context return ACL_ERROR_RT_CONTEXT_NULL",
            "API ref (a thread needs aclrtSetDevice or a context before memory APIs); [impl] 107002")
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
/* Running out of device memory is an error the library survives: a
 * request no device can meet fails, a small one afterwards works. */
COMPAT_TEST(test_out_of_memory,
            "an allocation beyond the device's memory returns ACL_ERROR_RT_MEMORY_ALLOCATION (207001) and later allocations work",
            "acl_rt.h ACL_ERROR_RT_MEMORY_ALLOCATION (out of memory only); [impl] OOM -> 207001")
{
    void *p = NULL;
    ACL_OK(aclrtSetDevice(0));
    ACL_FAILS_WITH(aclrtMalloc(&p, (size_t)1 << 50, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
    ACL_FAILS_WITH(aclrtMalloc(&p, SIZE_MAX - 8, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
    ACL_OK(aclrtMalloc(&p, 4 * KIB, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(p, 4 * KIB, 0, 4 * KIB));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtResetDevice(0));
}
/* Allocations remember their device; copies between devices work (through
 * peer access where the devices have it). Needs two devices. */
COMPAT_TEST(test_two_devices,
            "allocations are made on the current device (aclrtPointerGetAttributes reports its id); data moves between two devices",
            "API ref aclrtMalloc (current device); aclrtDeviceCanAccessPeer, aclrtDeviceEnablePeerAccess, aclrtMemcpy cross-device")
{
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    if (count < 2)
        COMPAT_SKIP("one device: nothing to copy between");
    const size_t n = 4096;
    unsigned char *in = host_buffer(n), *out = host_buffer(n), *dev0, *dev1;
    aclrtPtrAttributes a;
    fill_pattern(in, n, 71);
    ACL_OK(aclrtSetDevice(1));
    aclrtContext ctx1 = NULL;
    ACL_OK(aclrtGetCurrentContext(&ctx1));
    ACL_OK(aclrtMalloc((void **)&dev1, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev1, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtMalloc((void **)&dev0, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtPointerGetAttributes(dev1 + 10, &a));
    ck_assert_uint_eq(a.location.id, 1);
    ACL_OK(aclrtPointerGetAttributes(dev0, &a));
    ck_assert_uint_eq(a.location.id, 0);
    /* Cross-device copies need peer access from the current device. */
    int32_t can = 0;
    ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    if (can) {
        ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
        ACL_OK(aclrtMemcpy(dev0, n, dev1, n, ACL_MEMCPY_DEFAULT));
    } else {
        ACL_OK(aclrtMemcpy(out, n, dev1, n, ACL_MEMCPY_DEVICE_TO_HOST));
        ACL_OK(aclrtMemcpy(dev0, n, out, n, ACL_MEMCPY_HOST_TO_DEVICE));
        memset(out, 0, n);
    }
    ACL_OK(aclrtMemcpy(out, n, dev0, n, ACL_MEMCPY_DEFAULT));
    check_pattern(out, n, 71);
    if (can)
        ACL_OK(aclrtDeviceDisablePeerAccess(1));
    ACL_OK(aclrtFree(dev0));
    ACL_OK(aclrtSetCurrentContext(ctx1));
    ACL_OK(aclrtFreeWithDevSync(dev1));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDevice(1));
    free(in);
    free(out);
}
/* ---- known-unknowns ------------------------------------------------------------------ */

/* The API reference does not say what an aclrtMemAttr outside the enum or a
 * malformed aclrtMallocConfig gives. Recorded choice: refused, with
 * ACL_ERROR_INVALID_PARAM, or ACL_ERROR_RT_INVALID_DEVICEID for a device id
 * that does not exist. */
COMPAT_TEST(test_out_of_range_memory_arguments,
            "aclrtGetMemInfo refuses attributes outside aclrtMemAttr; aclrtMallocWithCfg and aclrtMallocHostWithCfg refuse an unknown device id (ACL_ERROR_RT_INVALID_DEVICEID), or an unknown attribute (ACL_ERROR_INVALID_PARAM)",
            "API ref aclrtGetMemInfo, aclrtMallocWithCfg: silent (known-unknown)")
{
    size_t free_bytes, total_bytes;
    void *p = NULL;
    ACL_FAILS_WITH(aclrtGetMemInfo((aclrtMemAttr)18, &free_bytes, &total_bytes),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemInfo((aclrtMemAttr)-1, &free_bytes, &total_bytes),
                   ACL_ERROR_INVALID_PARAM);
    aclrtMallocAttribute attrs[2] = {
        {.attr = ACL_RT_MEM_ATTR_MODULE_ID, .value.moduleId = 3},
        {.attr = ACL_RT_MEM_ATTR_DEVICE_ID, .value.deviceId = 0},
    };
    aclrtMallocConfig cfg = {.attrs = attrs, .numAttrs = 2};
    attrs[1].value.deviceId = 4096;
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                   ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_ERROR_RT_INVALID_DEVICEID);
    attrs[1].attr = (aclrtMallocAttrType)77;
    ACL_FAILS_WITH(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                   ACL_ERROR_INVALID_PARAM);
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclrtFree)
{
    FOR_EACH_BAD_POINTER(true, p, aclrtFree(p));
}

ROW(aclrtFreeWithDevSync)
{
    FOR_EACH_BAD_POINTER(true, p, aclrtFreeWithDevSync(p));
}

ROW(aclrtFreeHost)
{
    FOR_EACH_BAD_POINTER(false, p, aclrtFreeHost(p));
}

ROW(aclrtFreeHostWithDevSync)
{
    FOR_EACH_BAD_POINTER(false, p, aclrtFreeHostWithDevSync(p));
}

ROW(aclrtGetMemInfo)
{
    size_t value;
    REJECTS(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &value), ACL_ERROR_INVALID_PARAM, "a NULL free");
    REJECTS(aclrtGetMemInfo(ACL_HBM_MEM, &value, NULL), ACL_ERROR_INVALID_PARAM, "a NULL total");
}

ROW(aclrtMalloc)
{
    REJECTS(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
}

ROW(aclrtMallocAlign32)
{
    REJECTS(aclrtMallocAlign32(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
}

ROW(aclrtMallocCached)
{
    REJECTS(aclrtMallocCached(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
}

ROW(aclrtMallocWithCfg)
{
    void *p = NULL;
    aclrtMallocConfig no_attrs = {.attrs = NULL, .numAttrs = 3};
    REJECTS(aclrtMallocWithCfg(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
    REJECTS_HOSTILE(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &no_attrs),
                    ACL_ERROR_INVALID_PARAM, "a config whose attrs is NULL");
}

ROW(aclrtMallocHost)
{
    REJECTS(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL hostPtr");
}

ROW(aclrtMallocHostWithCfg)
{
    void *p = NULL;
    aclrtMallocConfig no_attrs = {.attrs = NULL, .numAttrs = 3};
    REJECTS(aclrtMallocHostWithCfg(NULL, 64, NULL), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS_HOSTILE(aclrtMallocHostWithCfg(&p, 64, &no_attrs), ACL_ERROR_INVALID_PARAM,
                    "a config whose attrs is NULL");
}

ROW(aclrtMemFlush)
{
    REJECTS(aclrtMemFlush(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

ROW(aclrtMemInvalidate)
{
    REJECTS(aclrtMemInvalidate(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

/* Copies that name device memory where there is none: pageable host memory
 * is legal where host memory is, but never as the device side. */
ROW(aclrtMemcpy)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[COMPAT_BAD_BUF];
    void *freed = NULL;
    ACL_OK(aclrtMalloc(&freed, COMPAT_BAD_BUF, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(freed));
    REJECTS_HOSTILE(aclrtMemcpy(freed, COMPAT_BAD_BUF, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                    ACL_ERROR_INVALID_PARAM, "freed device memory as dst");
    REJECTS_HOSTILE(aclrtMemcpy(b.pinned, COMPAT_BAD_BUF, freed, 64, ACL_MEMCPY_DEVICE_TO_HOST),
                    ACL_ERROR_INVALID_PARAM, "freed device memory as src");
    REJECTS(aclrtMemcpy(NULL, COMPAT_BAD_BUF, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpy(b.device, COMPAT_BAD_BUF, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS_HOSTILE(aclrtMemcpy(local, COMPAT_BAD_BUF, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                    ACL_ERROR_INVALID_PARAM, "a local variable as device dst");
    REJECTS_HOSTILE(aclrtMemcpy(b.pinned, COMPAT_BAD_BUF, local, 64, ACL_MEMCPY_DEVICE_TO_HOST),
                    ACL_ERROR_INVALID_PARAM, "a local variable as device src");
    compat_buffers_free(&b);
}

ROW(aclrtMemcpyAsync)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[COMPAT_BAD_BUF];
    REJECTS(aclrtMemcpyAsync(NULL, COMPAT_BAD_BUF, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpyAsync(b.device, COMPAT_BAD_BUF, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS_HOSTILE(
        aclrtMemcpyAsync(b.pinned, COMPAT_BAD_BUF, local, 64, ACL_MEMCPY_DEVICE_TO_HOST, NULL),
        ACL_ERROR_INVALID_PARAM, "a local variable as device src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyAsync(b.device, COMPAT_BAD_BUF, b.pinned, 64,
                                  ACL_MEMCPY_HOST_TO_DEVICE, h));
    compat_buffers_free(&b);
}

ROW(aclrtMemcpyAsyncWithCondition)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtMemcpyAsyncWithCondition(NULL, COMPAT_BAD_BUF, b.pinned, 64,
                                          ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyAsyncWithCondition(b.device, COMPAT_BAD_BUF, b.pinned, 64,
                                               ACL_MEMCPY_HOST_TO_DEVICE, h));
    compat_buffers_free(&b);
}

ROW(aclrtMemcpy2d)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[COMPAT_BAD_BUF];
    REJECTS(aclrtMemcpy2d(NULL, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpy2d(b.device, 64, NULL, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS_HOSTILE(aclrtMemcpy2d(local, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE),
                    ACL_ERROR_INVALID_PARAM, "a local variable as device dst");
    compat_buffers_free(&b);
}

ROW(aclrtMemcpy2dAsync)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtMemcpy2dAsync(NULL, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpy2dAsync(b.device, 64, NULL, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpy2dAsync(b.device, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE,
                                    h));
    compat_buffers_free(&b);
}

ROW(aclrtMemset)
{
    REJECTS(aclrtMemset(NULL, 64, 0, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

ROW(aclrtMemsetAsync)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtMemsetAsync(NULL, 64, 0, 64, NULL), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemsetAsync(b.device, COMPAT_BAD_BUF, 0, 64, h));
    compat_buffers_free(&b);
}

ROW(aclrtPointerGetAttributes)
{
    aclrtPtrAttributes attributes;
    int local = 0;
    REJECTS(aclrtPointerGetAttributes(NULL, &attributes), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtPointerGetAttributes(&local, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL attributes");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtFree),
    COMPAT_ROW(aclrtFreeHost),
    COMPAT_ROW(aclrtFreeHostWithDevSync),
    COMPAT_ROW(aclrtFreeWithDevSync),
    COMPAT_ROW(aclrtGetMemInfo),
    COMPAT_ROW(aclrtMalloc),
    COMPAT_ROW(aclrtMallocAlign32),
    COMPAT_ROW(aclrtMallocCached),
    COMPAT_ROW(aclrtMallocHost),
    COMPAT_ROW(aclrtMallocHostWithCfg),
    COMPAT_ROW(aclrtMallocWithCfg),
    COMPAT_ROW(aclrtMemFlush),
    COMPAT_ROW(aclrtMemInvalidate),
    COMPAT_ROW(aclrtMemcpy),
    COMPAT_ROW(aclrtMemcpy2d),
    COMPAT_ROW(aclrtMemcpy2dAsync),
    COMPAT_ROW(aclrtMemcpyAsync),
    COMPAT_ROW(aclrtMemcpyAsyncWithCondition),
    COMPAT_ROW(aclrtMemset),
    COMPAT_ROW(aclrtMemsetAsync),
    COMPAT_ROW(aclrtPointerGetAttributes),
};
COMPAT_BAD_ARGS(memory, rows);

Suite *compat_suite_memory(void);
Suite *compat_suite_memory(void)
{
    Suite *s = suite_create("memory");

    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_round_trip_small);
    tcase_add_test(tc, test_round_trip_large);
    tcase_add_test(tc, test_malloc_alignment);
    tcase_add_test(tc, test_malloc_padding);
    tcase_add_test(tc, test_unaligned_offsets);
    tcase_add_test(tc, test_every_kind);
    tcase_add_test(tc, test_async_created_stream);
    tcase_add_test(tc, test_async_default_stream);
    tcase_add_test(tc, test_async_pinned_is_queued);
    tcase_add_test(tc, test_async_pageable_is_synchronous);
    tcase_add_test(tc, test_2d_copies);
    tcase_add_test(tc, test_2d_device_to_device);
    tcase_add_test(tc, test_2d_errors);
    tcase_add_test(tc, test_memset);
    tcase_add_test(tc, test_memcpy_errors);
    tcase_add_test(tc, test_memcpy_async_errors);
    tcase_add_test(tc, test_free_with_dev_sync);
    tcase_add_test(tc, test_malloc_errors);
    tcase_add_test(tc, test_flush_invalidate);
    tcase_add_test(tc, test_mem_info);
    tcase_add_test(tc, test_pointer_attributes);
    tcase_add_test(tc, test_pointer_page_sizes);
    suite_add_tcase(s, tc);

    TCase *bare = tcase_create("without device");
    tcase_add_checked_fixture(bare, compat_init, compat_finalize);
    tcase_set_timeout(bare, 30);
    tcase_add_test(bare, test_no_context);
    tcase_add_test(bare, test_out_of_memory);
    tcase_add_test(bare, test_two_devices);
    suite_add_tcase(s, bare);

    TCase *unknown = tcase_create("unknown");
    tcase_set_tags(unknown, "unknown");
    tcase_add_checked_fixture(unknown, compat_set_up, compat_tear_down);
    tcase_add_test(unknown, test_out_of_range_memory_arguments);
    suite_add_tcase(s, unknown);

    TCase *hostile = compat_add_bad_args(s, &compat_rows_memory);
    tcase_add_test(hostile, test_free_errors);
    return s;
}

COMPAT_MAIN(memory)
