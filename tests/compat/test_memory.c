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

/* ---- memory, complete: fills, batches, copies through device-side addresses,
 * cache maintenance, memory use ------------------------------------------------ */


static void mc_fill_bytes(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed * 7 + (i >> 8));
}

static void mc_check_words(const uint32_t *w, size_t n, uint32_t value)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] != value)
            ck_abort_msg("word %zu of %zu is 0x%08x, expected 0x%08x", i, n, w[i], value);
}

/* ---- 32-bit fills ------------------------------------------------------------------ */

COMPAT_TEST(test_memset_d32_device_and_host,
            "aclrtMemsetD32 sets N 32-bit values of device or page-locked memory; N 0 does nothing",
            "API ref aclrtMemsetD32; [impl] N==0 returns first")
{
    const size_t n = 1000;
    uint32_t *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n * 4 + 8));
    ACL_OK(aclrtMemset(dev, n * 4, 0, n * 4));
    ACL_OK(aclrtMemsetD32(dev, n * 4, 0xDEADBEEFu, n - 1));
    memset(pinned, 0, n * 4 + 8);
    ACL_OK(aclrtMemcpy(pinned, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    mc_check_words(pinned, n - 1, 0xDEADBEEFu);
    ck_assert_uint_eq(pinned[n - 1], 0); /* exactly N words */

    /* Page-locked host memory is filled as well. */
    ACL_OK(aclrtMemsetD32(pinned + 1, n * 4, 0x01020304u, n));
    mc_check_words(pinned + 1, n, 0x01020304u);
    ck_assert_uint_eq(pinned[0], 0xDEADBEEFu);

    /* N == 0 is a no-op, even with nothing else valid. */
    ACL_OK(aclrtMemsetD32(NULL, 0, 1, 0));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}

COMPAT_TEST(test_memset_d32_errors,
            "aclrtMemsetD32 refuses NULL, misaligned pointers, memSize < 4N and memory not from aclrtMalloc/aclrtMallocHost with ACL_ERROR_INVALID_PARAM",
            "API ref aclrtMemsetD32 (memSize >= N*4; memory from aclrtMalloc or aclrtMallocHost); [impl] alignment check")
{
    uint32_t *dev;
    uint32_t local[8];
    ACL_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtMemsetD32(NULL, 64, 1, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetD32((char *)dev + 2, 60, 1, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetD32(dev, 7, 1, 2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetD32(dev, SIZE_MAX, 1, SIZE_MAX / 2), ACL_ERROR_INVALID_PARAM);
    /* Past the allocation (96 bytes reserved for 64). */
    ACL_FAILS_WITH(aclrtMemsetD32(dev, 4096, 1, 1024), ACL_ERROR_INVALID_PARAM);
    /* Memory ACL did not allocate. */
    ACL_FAILS_WITH(aclrtMemsetD32(local, sizeof local, 1, 8), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemsetD32Async(local, sizeof local, 1, 8, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
    ACL_FAILS_WITH(aclrtMemsetD32(dev, 64, 1, 1), ACL_ERROR_INVALID_PARAM);
}

/* Device fills run in stream order; host fills happen at the call. */
COMPAT_TEST(test_memset_d32_async_order,
            "aclrtMemsetD32Async queues device fills in stream order; host memory is set at once, not on the stream",
            "API ref aclrtMemsetD32Async constraints")
{
    const size_t n = 256;
    aclrtStream s = compat_new_stream();
    uint32_t *dev, *pinned, *out;
    ACL_OK(aclrtMalloc((void **)&dev, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n * 4));
    ACL_OK(aclrtMallocHost((void **)&out, n * 4));
    memset(pinned, 0, n * 4);
    memset(out, 0, n * 4);
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtMemsetD32Async(dev, n * 4, 7u, n, s));
    ACL_OK(aclrtMemcpyAsync(out, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtMemsetD32Async(pinned, n * 4, 9u, n, s));
    mc_check_words(pinned, n, 9u); /* at once, although the stream is held */
    ck_assert_uint_eq(out[0], 0);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    mc_check_words(out, n, 7u);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- batches ------------------------------------------------------------------------ */

static aclrtMemcpyBatchAttr mc_attr_of(aclrtMemLocationType dst, aclrtMemLocationType src)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = dst;
    a.dstLoc.id = 0;
    a.srcLoc.type = src;
    a.srcLoc.id = 0;
    return a;
}

/* 1000 small blocks scattered over one allocation each way, with the
 * attributes split over three ranges. */
static void mc_batch_round_trip(bool pinned_host, bool v2)
{
    enum { BLOCKS = 1000, BLOCK = 100, STRIDE = 128 };
    unsigned char *host, *back, *dev;
    if (pinned_host) {
        ACL_OK(aclrtMallocHost((void **)&host, BLOCKS * STRIDE));
        ACL_OK(aclrtMallocHost((void **)&back, BLOCKS * STRIDE));
    } else {
        host = malloc(BLOCKS * STRIDE);
        back = malloc(BLOCKS * STRIDE);
    }
    ACL_OK(aclrtMalloc((void **)&dev, BLOCKS * STRIDE, ACL_MEM_MALLOC_HUGE_FIRST));
    mc_fill_bytes(host, BLOCKS * STRIDE, 3);
    memset(back, 0, BLOCKS * STRIDE);
    static void *dsts[BLOCKS], *srcs[BLOCKS];
    static size_t sizes[BLOCKS], maxs[BLOCKS];
    for (size_t i = 0; i < BLOCKS; i++) {
        /* Reverse the order of the blocks on the device. */
        dsts[i] = dev + (BLOCKS - 1 - i) * STRIDE;
        srcs[i] = host + i * STRIDE;
        sizes[i] = BLOCK;
        maxs[i] = STRIDE;
    }
    aclrtMemcpyBatchAttr attrs[3];
    for (int k = 0; k < 3; k++)
        attrs[k] = mc_attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST);
    size_t indexes[3] = {0, 10, 500}, fail = 12345;
    aclrtStream s = compat_new_stream();
    if (v2)
        ACL_OK(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, BLOCKS, attrs, indexes, 3, s));
    else
        ACL_OK(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, BLOCKS, attrs, indexes, 3, &fail, s));
    if (!v2)
        ck_assert_uint_eq(fail, SIZE_MAX);
    /* And back, device to host, with the synchronous batch. */
    for (size_t i = 0; i < BLOCKS; i++) {
        void *t = dsts[i];
        dsts[i] = back + i * STRIDE;
        srcs[i] = t;
    }
    aclrtMemcpyBatchAttr d2h = mc_attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
    ACL_OK(aclrtSynchronizeStream(s));
    if (v2)
        ACL_OK(aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, BLOCKS, &d2h, indexes, 1));
    else
        ACL_OK(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, BLOCKS, &d2h, indexes, 1, &fail));
    for (size_t i = 0; i < BLOCKS; i++) {
        if (memcmp(back + i * STRIDE, host + i * STRIDE, BLOCK) != 0)
            ck_abort_msg("block %zu came back different", i);
        for (size_t j = BLOCK; j < STRIDE; j++)
            ck_assert_uint_eq(back[i * STRIDE + j], 0);
    }
    ACL_OK(aclrtFree(dev));
    if (pinned_host) {
        ACL_OK(aclrtFreeHost(host));
        ACL_OK(aclrtFreeHost(back));
    } else {
        free(host);
        free(back);
    }
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_batch_pinned,
            "aclrtMemcpyBatchAsync copies many blocks host to device with attributes over index ranges; aclrtMemcpyBatch copies back; failIndex is SIZE_MAX on success",
            "API ref aclrtMemcpyBatch, aclrtMemcpyBatchAsync (attrs/attrsIndexes)")
{
    mc_batch_round_trip(true, false);
}

COMPAT_TEST(test_batch_pageable_v2,
            "aclrtMemcpyBatchAsyncV2 and aclrtMemcpyBatchV2 copy pageable host memory too",
            "API ref aclrtMemcpyBatchV2, aclrtMemcpyBatchAsyncV2")
{
    mc_batch_round_trip(false, true);
}

/* With page-locked memory the batch is queued in stream order; with
 * pageable memory it is complete when the call returns. */
COMPAT_TEST(test_batch_async_ordering,
            "aclrtMemcpyBatchAsync is queued for page-locked memory and complete on return for pageable memory",
            "API ref aclrtMemcpyBatchAsync: pageable host memory returns after the copies")
{
    const size_t n = 4096;
    aclrtStream s = compat_new_stream();
    unsigned char *dev, *pinned, *pageable = malloc(n);
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    ACL_OK(aclrtMemset(dev, n, 0x11, n));
    memset(pinned, 0, n);
    void *dst[1] = {pinned}, *src[1] = {dev};
    size_t size[1] = {n}, max[1] = {n}, idx[1] = {0}, fail;
    aclrtMemcpyBatchAttr a = mc_attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyBatchAsync(dst, max, src, size, 1, &a, idx, 1, &fail, s));
    ck_assert_uint_eq(pinned[0], 0); /* queued behind the gate */
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(pinned[n - 1], 0x11);

    memset(pageable, 0, n);
    dst[0] = pageable;
    ACL_OK(aclrtMemcpyBatchAsync(dst, max, src, size, 1, &a, idx, 1, &fail, s));
    ck_assert_uint_eq(pageable[0], 0x11);
    ck_assert_uint_eq(pageable[n - 1], 0x11);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    free(pageable);
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(test_batch_errors,
            "batch copies refuse bad arrays, sizes over destMaxs, reserved bytes, bad attribute ranges, attributes contradicting the memory, device-to-device and mixed directions, and more than 4096 synchronous copies, naming the copy in failIndex",
            "API ref aclrtMemcpyBatch constraints; [impl] ValidateMemcpyBatchParams, MemcpyBatch checks (DEVMM_MEMCPY_BATCH_MAX_COUNT)")
{
    const size_t n = 256;
    unsigned char *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, 4 * n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 4 * n));
    void *dsts[4] = {dev, dev + n, dev + 2 * n, dev + 3 * n};
    void *srcs[4] = {pinned, pinned + n, pinned + 2 * n, pinned + 3 * n};
    size_t sizes[4] = {n, n, n, n}, maxs[4] = {n, n, n, n}, zero[4] = {0, 0, 0, 0};
    size_t idx[2] = {0, 2}, fail = 0;
    aclrtMemcpyBatchAttr h2d = mc_attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST);
    aclrtMemcpyBatchAttr d2h = mc_attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
    aclrtMemcpyBatchAttr attrs[2] = {h2d, h2d};

    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs, idx, 1, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, NULL, 4, attrs, idx, 1, &fail),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 0, attrs, idx, 1, &fail),
                   ACL_ERROR_INVALID_PARAM);
    /* Every size 0: nothing to do, nothing else looked at. */
    fail = 0;
    ACL_OK(aclrtMemcpyBatch(NULL, NULL, NULL, zero, 4, NULL, NULL, 0, &fail));
    ck_assert_uint_eq(fail, SIZE_MAX);
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, NULL, sizes, 4, attrs, idx, 1, &fail),
                   ACL_ERROR_INVALID_PARAM);
    size_t small[4] = {n, n - 1, n, n};
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, small, srcs, sizes, 4, attrs, idx, 1, &fail),
                   ACL_ERROR_INVALID_PARAM);
    aclrtMemcpyBatchAttr dirty = h2d;
    dirty.rsv[3] = 1;
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, &dirty, idx, 1, &fail),
                   ACL_ERROR_INVALID_PARAM);
    /* The runtime's checks of the attribute ranges. */
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs, idx, 0, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, attrs, idx, 2, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    size_t bad_first[2] = {1, 2}, not_rising[2] = {0, 0}, too_far[2] = {0, 4};
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs, bad_first, 2, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs, not_rising, 2, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs, too_far, 2, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_uint_eq(fail, SIZE_MAX);

    /* An attribute that contradicts the memory names the copy at fault. */
    attrs[1] = d2h;
    fail = 0;
    ACL_FAILS_WITH(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs, idx, 2, &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_uint_eq(fail, 2);
    /* Device to device is no batch direction. */
    void *d2d_src[4] = {dev + 3 * n, pinned, pinned, pinned};
    aclrtMemcpyBatchAttr dd = mc_attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_DEVICE);
    fail = 7;
    ACL_FAILS_WITH(aclrtMemcpyBatchAsync(dsts, maxs, d2d_src, sizes, 1, &dd, idx, 1, &fail, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_uint_eq(fail, 0);
    /* Both directions in one batch. */
    void *mixed_dst[2] = {dev, pinned + n}, *mixed_src[2] = {pinned, dev + n};
    aclrtMemcpyBatchAttr mixed[2] = {h2d, d2h};
    size_t mixed_idx[2] = {0, 1};
    ACL_FAILS_WITH(
        aclrtMemcpyBatchAsync(mixed_dst, maxs, mixed_src, sizes, 2, mixed, mixed_idx, 2, &fail, NULL),
        ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_uint_eq(fail, 1);
    /* A copy running past its allocation. */
    void *past_dst[1] = {dev + 3 * n + 64};
    size_t big[1] = {n};
    ACL_FAILS_WITH(aclrtMemcpyBatchAsync(past_dst, maxs, srcs, big, 1, &h2d, idx, 1, &fail, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ck_assert_uint_eq(fail, 0);
    /* Queued batches refuse a size of 0 among others. */
    size_t one_zero[2] = {n, 0};
    ACL_FAILS_WITH(aclrtMemcpyBatchAsync(dsts, maxs, srcs, one_zero, 2, &h2d, idx, 1, &fail, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_uint_eq(fail, 1);
    /* A synchronous batch takes at most 4096 copies. */
    enum { MANY = 4097 };
    void **many_dst = calloc(MANY, sizeof(void *)), **many_src = calloc(MANY, sizeof(void *));
    size_t *many_size = calloc(MANY, sizeof(size_t)), *many_max = calloc(MANY, sizeof(size_t));
    for (size_t i = 0; i < MANY; i++) {
        many_dst[i] = dev;
        many_src[i] = pinned;
        many_size[i] = many_max[i] = 1;
    }
    ACL_FAILS_WITH(aclrtMemcpyBatch(many_dst, many_max, many_src, many_size, MANY, &h2d, idx, 1,
                                    &fail),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtMemcpyBatchAsync(many_dst, many_max, many_src, many_size, MANY, &h2d, idx, 1, &fail,
                                 NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    free(many_dst);
    free(many_src);
    free(many_size);
    free(many_max);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}

/* ---- copies through device-side addresses ----------------------------------------------- */

/* The descriptor is read when the copy runs: rewriting it while the copy
 * waits behind a gate changes what is copied. */
COMPAT_TEST(test_memcpy_desc,
            "a memory-copy descriptor is read when the copy runs; only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE is supported; the descriptor is 64 bytes of 64-byte aligned device memory",
            "API ref aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc, aclrtMemcpyAsyncWithDesc; [impl] rtsSetMemcpyDesc checks")
{
    const size_t n = 3000;
    size_t desc_size = 0;
    ACL_OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &desc_size));
    ck_assert_uint_eq(desc_size, 64);
    unsigned char *desc, *a, *b, *c, *host = malloc(n), *out = malloc(n);
    ACL_OK(aclrtMalloc((void **)&desc, desc_size, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&c, n, ACL_MEM_MALLOC_HUGE_FIRST));
    mc_fill_bytes(host, n, 1);
    ACL_OK(aclrtMemcpy(a, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(b, n, 0, n));
    ACL_OK(aclrtMemset(c, n, 0, n));
    ACL_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n, NULL));

    aclrtStream s = compat_new_stream();
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    /* Point the queued copy elsewhere before it runs. */
    ACL_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a + 1, c, n - 1, NULL));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(out, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i], 0);
    ACL_OK(aclrtMemcpy(out, n, c, n, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(out, host + 1, n - 1), 0);
    ck_assert_uint_eq(out[n - 1], 0);

    /* Errors. */
    void *local = host;
    ACL_FAILS_WITH(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemcpyDescSize(ACL_MEMCPY_DEVICE_TO_DEVICE, &desc_size),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtGetMemcpyDescSize((aclrtMemcpyKind)99, &desc_size),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, 0, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n, local),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, a, b, n, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(desc + 32, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(local, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, local, b, n, NULL),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n + 64, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_DEFAULT, s),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithDesc(local, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtFree(desc));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtFree(c));
    ACL_OK(aclrtDestroyStream(s));
    free(host);
    free(out);
}

/* The runtime's checks of the offsets and lengths, before anything is
 * queued: offsets up to 2^48 - 1, the destination offset inside destMax and
 * the copy inside what remains of it, at most 4 GiB. */
COMPAT_TEST(test_memcpy_with_offset_limits,
            "aclrtMemcpyAsyncWithOffset refuses offsets of 2^48 or more, a destination offset at or past destMax, a count beyond destMax minus the offset and counts over 4 GiB",
            "[impl] rtMemcpyD2DAddrAsync: ApiErrorDecorator::MemcpyAsync (MAX_MEMCPY_SIZE_OF_D2D) and MemcpyAsyncCheckAddrCfg")
{
    const size_t n = 256;
    uint64_t *slots;
    unsigned char *a, *b;
    ACL_OK(aclrtMalloc((void **)&slots, 2 * sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    uint64_t bases[2] = {(uintptr_t)b, (uintptr_t)a};
    ACL_OK(aclrtMemcpy(slots, sizeof bases, bases, sizeof bases, ACL_MEMCPY_HOST_TO_DEVICE));
    void **dst = (void **)&slots[0];
    const void **src = (const void **)&slots[1];
    const aclrtMemcpyKind inner = ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
    const size_t big_offset = (size_t)1 << 48;
    aclrtStream s = compat_new_stream();

    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(dst, n, 0, src, 8, big_offset, inner, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(dst, SIZE_MAX, big_offset, src, 8, 0, inner, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(dst, n, n, src, 8, 0, inner, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(dst, n, n - 4, src, 8, 0, inner, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(dst, SIZE_MAX, 0, src, ((size_t)4 << 30) + 1, 0,
                                              inner, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* The largest offsets and lengths that pass are copied. */
    ACL_OK(aclrtMemset(b, n, 0, n));
    ACL_OK(aclrtMemset(a, n, 0x5A, n));
    ACL_OK(aclrtMemcpyAsyncWithOffset(dst, n, n - 8, src, 8, n - 8, inner, s));
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char out[256];
    ACL_OK(aclrtMemcpy(out, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(out[n - 9], 0);
    ck_assert_uint_eq(out[n - 8], 0x5A);
    ck_assert_uint_eq(out[n - 1], 0x5A);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(slots));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
}

/* The base addresses are read from device memory when the copy runs. */
COMPAT_TEST(test_memcpy_with_offset,
            "aclrtMemcpyAsyncWithOffset reads the base addresses from device memory when the copy runs and adds the offsets",
            "API ref aclrtMemcpyAsyncWithOffset (second-level pointers); [impl] rtMemcpyAsyncWithOffset")
{
    const size_t n = 2048;
    unsigned char *a, *b, *c, *host = malloc(n), *out = malloc(n);
    uint64_t *slots;
    ACL_OK(aclrtMalloc((void **)&slots, 2 * sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&c, n, ACL_MEM_MALLOC_HUGE_FIRST));
    mc_fill_bytes(host, n, 9);
    ACL_OK(aclrtMemcpy(a, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(b, n, 0, n));
    ACL_OK(aclrtMemset(c, n, 0, n));
    uint64_t bases[2] = {(uintptr_t)b, (uintptr_t)a};
    ACL_OK(aclrtMemcpy(slots, sizeof bases, bases, sizeof bases, ACL_MEMCPY_HOST_TO_DEVICE));

    aclrtStream s = compat_new_stream();
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyAsyncWithOffset((void **)&slots[0], n - 100, 100, (const void **)&slots[1],
                                      500, 7, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    /* Redirect the destination base to c before the copy runs. */
    uint64_t cb = (uintptr_t)c;
    ACL_OK(aclrtMemcpy(&slots[0], 8, &cb, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(out, n, c, n, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(out + 100, host + 7, 500), 0);
    ck_assert_uint_eq(out[99], 0);
    ck_assert_uint_eq(out[600], 0);
    ACL_OK(aclrtMemcpy(out, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i], 0);

    /* count 0 is a no-op; errors. */
    ACL_OK(aclrtMemcpyAsyncWithOffset(NULL, 0, 0, NULL, 0, 0, ACL_MEMCPY_DEFAULT, s));
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset((void **)&slots[0], n, 0, (const void **)&slots[1],
                                              8, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset((void **)&slots[0], 4, 0, (const void **)&slots[1],
                                              8, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(NULL, n, 0, (const void **)&slots[1], 8, 0,
                                              ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    void *host_slot = host;
    ACL_FAILS_WITH(aclrtMemcpyAsyncWithOffset(&host_slot, n, 0, (const void **)&slots[1], 8, 0,
                                              ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtFree(slots));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtFree(c));
    ACL_OK(aclrtDestroyStream(s));
    free(host);
    free(out);
}

/* ---- cache maintenance ---------------------------------------------------------------- */

COMPAT_TEST(test_cmo,
            "cache maintenance tasks take device memory of the stream's device and leave its data alone; barriers and descriptors follow their documented rules",
            "API ref aclrtCmoAsync, aclrtCmoAsyncWithBarrier, aclrtCmoWaitBarrier, aclrtCmoGetDescSize, aclrtCmoSetDesc, aclrtCmoAsyncWithDesc; acl_rt.h aclrtDeviceL2CacheFlush")
{
    const size_t n = 64 * KIB;
    unsigned char *dev, *pinned;
    unsigned char local[16];
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtMemset(dev, n, 0x42, n));
    for (int type = ACL_RT_CMO_TYPE_PREFETCH; type <= ACL_RT_CMO_TYPE_FLUSH; type++)
        ACL_OK(aclrtCmoAsync(dev + 64, n - 64, (aclrtCmoType)type, s));
    ACL_OK(aclrtSynchronizeStream(s));
    /* Cache maintenance leaves the data alone. */
    ACL_OK(aclrtMemcpy(pinned, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(pinned[i], 0x42);

    ACL_FAILS_WITH(aclrtCmoAsync(NULL, n, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoAsync(dev, 0, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoAsync(dev, n, (aclrtCmoType)4, s), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCmoAsync(dev, n + 4096, ACL_RT_CMO_TYPE_PREFETCH, s),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoAsync(pinned, n, ACL_RT_CMO_TYPE_PREFETCH, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCmoAsync(local, sizeof local, ACL_RT_CMO_TYPE_FLUSH, s),
                   ACL_ERROR_INVALID_PARAM);

    /* Barriers: an invalidation takes an id > 0, the rest 0. */
    ACL_OK(aclrtCmoAsyncWithBarrier(dev, n, ACL_RT_CMO_TYPE_INVALID, 3, s));
    ACL_OK(aclrtCmoAsyncWithBarrier(dev, n, ACL_RT_CMO_TYPE_PREFETCH, 0, s));
    ACL_FAILS_WITH(aclrtCmoAsyncWithBarrier(dev, n, ACL_RT_CMO_TYPE_INVALID, 0, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCmoAsyncWithBarrier(dev, n, ACL_RT_CMO_TYPE_FLUSH, 1, s),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCmoAsyncWithBarrier(NULL, n, ACL_RT_CMO_TYPE_INVALID, 1, s),
                   ACL_ERROR_INVALID_PARAM);
    aclrtBarrierTaskInfo info;
    memset(&info, 0, sizeof info);
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_INVALID;
    info.cmoInfo[0].barrierId = 3;
    ACL_OK(aclrtCmoWaitBarrier(&info, s, 0));
    ACL_FAILS_WITH(aclrtCmoWaitBarrier(&info, s, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoWaitBarrier(NULL, s, 0), ACL_ERROR_INVALID_PARAM);
    info.barrierNum = ACL_RT_CMO_MAX_BARRIER_NUM + 1;
    ACL_FAILS_WITH(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_RT_PARAM_INVALID);
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_FLUSH;
    ACL_FAILS_WITH(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_RT_PARAM_INVALID);

    /* Descriptors. */
    size_t size = 0;
    unsigned char *desc;
    ACL_OK(aclrtCmoGetDescSize(&size));
    ck_assert_uint_eq(size, 64);
    ACL_FAILS_WITH(aclrtCmoGetDescSize(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtMalloc((void **)&desc, size, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtCmoSetDesc(desc, dev, n));
    ACL_OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, NULL));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_FAILS_WITH(aclrtCmoSetDesc(NULL, dev, n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoSetDesc(desc, dev, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoSetDesc(pinned, dev, n), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_FLUSH, s, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, desc),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_PREFETCH, s, NULL),
                   ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtDeviceL2CacheFlush(NULL));
    ACL_FAILS_WITH(aclrtDeviceL2CacheFlush(desc), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(desc));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- memory use and uncorrectable errors ----------------------------------------------- */

COMPAT_TEST(test_mem_usage_info,
            "aclrtGetMemUsageInfo lists components by current use, largest first, with peaks, at most inputNum",
            "API ref aclrtGetMemUsageInfo")
{
    void *small, *big;
    ACL_OK(aclrtMalloc(&small, 3 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&big, 5 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtMemUsageInfo info[8];
    size_t count = 99;
    ACL_OK(aclrtGetMemUsageInfo(0, info, 8, &count));
    ck_assert_uint_ge(count, 1);
    bool found = false;
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            ck_assert_uint_le(info[i].curMemSize, info[i - 1].curMemSize);
        ck_assert_uint_ge(info[i].memPeakSize, info[i].curMemSize);
        if (strcmp(info[i].name, "aclrtMalloc") == 0) {
            found = true;
            ck_assert_uint_ge(info[i].curMemSize, 8 * MIB);
        }
    }
    ck_assert(found);
    uint64_t before = 0;
    for (size_t i = 0; i < count; i++)
        if (strcmp(info[i].name, "aclrtMalloc") == 0)
            before = info[i].curMemSize;
    ACL_OK(aclrtFree(big));
    ACL_OK(aclrtGetMemUsageInfo(0, info, 8, &count));
    for (size_t i = 0; i < count; i++)
        if (strcmp(info[i].name, "aclrtMalloc") == 0) {
            ck_assert_uint_le(info[i].curMemSize + 5 * MIB, before);
            ck_assert_uint_ge(info[i].memPeakSize, before);
        }
    ACL_OK(aclrtGetMemUsageInfo(0, info, 0, &count));
    ck_assert_uint_eq(count, 0);
    ACL_FAILS_WITH(aclrtGetMemUsageInfo(0, NULL, 8, &count), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUsageInfo(0, info, 8, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUsageInfo(999, info, 8, &count), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtFree(small));
}


static aclrtMemcpyBatchAttr h2d_attr(void)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    a.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    return a;
}

/* The pointer arrays of a batch, one by one NULL or bad, then bad streams. */
#define BATCH_ROW(call_with)                                                                 \
    do {                                                                                     \
        compat_buffers b = compat_buffers_make();                                                          \
        unsigned char local[64];                                                             \
        void *dsts[1] = {b.device}, *srcs[1] = {b.pinned}, *bad_dst[1] = {local};            \
        size_t sizes[1] = {64}, maxs[1] = {64}, idx[1] = {0}, fail = 0;                      \
        aclrtMemcpyBatchAttr attr = h2d_attr();                                              \
        (void)fail;                                                                          \
        call_with(NULL, maxs, srcs, sizes, &attr, idx, ACL_ERROR_INVALID_PARAM, "NULL dsts"); \
        call_with(dsts, NULL, srcs, sizes, &attr, idx, ACL_ERROR_INVALID_PARAM,              \
                  "NULL destMaxs");                                                          \
        call_with(dsts, maxs, NULL, sizes, &attr, idx, ACL_ERROR_INVALID_PARAM, "NULL srcs"); \
        call_with(dsts, maxs, srcs, NULL, &attr, idx, ACL_ERROR_INVALID_PARAM, "NULL sizes"); \
        call_with(dsts, maxs, srcs, sizes, NULL, idx, ACL_ERROR_INVALID_PARAM, "NULL attrs"); \
        call_with(dsts, maxs, srcs, sizes, &attr, NULL, ACL_ERROR_INVALID_PARAM,             \
                  "NULL attrsIndexes");                                                      \
        call_with(bad_dst, maxs, srcs, sizes, &attr, idx, ANY_ERROR,                         \
                  "a local variable as device dst");                                         \
        compat_buffers_free(&b);                                                                    \
    } while (0)

#define CALL_BATCH(d, m, s, z, a, i, code, what)                                             \
    REJECTS_HOSTILE(aclrtMemcpyBatch(d, m, s, z, 1, a, i, 1, &fail), code, what)
#define CALL_BATCH_V2(d, m, s, z, a, i, code, what)                                          \
    REJECTS(aclrtMemcpyBatchV2(d, m, s, z, 1, a, i, 1), code, what)
#define CALL_BATCH_ASYNC(d, m, s, z, a, i, code, what)                                       \
    REJECTS(aclrtMemcpyBatchAsync(d, m, s, z, 1, a, i, 1, &fail, NULL), code, what)
#define CALL_BATCH_ASYNC_V2(d, m, s, z, a, i, code, what)                                    \
    REJECTS(aclrtMemcpyBatchAsyncV2(d, m, s, z, 1, a, i, 1, NULL), code, what)

ROW(aclrtMemcpyBatch)
{
    BATCH_ROW(CALL_BATCH);
    compat_buffers b = compat_buffers_make();
    void *dsts[1] = {b.device}, *srcs[1] = {b.pinned};
    size_t sizes[1] = {64}, idx[1] = {0};
    aclrtMemcpyBatchAttr attr = h2d_attr();
    REJECTS(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL failIndex");
    compat_buffers_free(&b);
}

ROW(aclrtMemcpyBatchV2)
{
    BATCH_ROW(CALL_BATCH_V2);
}

ROW(aclrtMemcpyBatchAsync)
{
    BATCH_ROW(CALL_BATCH_ASYNC);
    compat_buffers b = compat_buffers_make();
    void *dsts[1] = {b.device}, *srcs[1] = {b.pinned};
    size_t sizes[1] = {64}, idx[1] = {0}, fail;
    aclrtMemcpyBatchAttr attr = h2d_attr();
    REJECTS(aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL failIndex");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, &fail, h));
    compat_buffers_free(&b);
}

ROW(aclrtMemcpyBatchAsyncV2)
{
    BATCH_ROW(CALL_BATCH_ASYNC_V2);
    compat_buffers b = compat_buffers_make();
    void *dsts[1] = {b.device}, *srcs[1] = {b.pinned};
    size_t sizes[1] = {64}, idx[1] = {0};
    aclrtMemcpyBatchAttr attr = h2d_attr();
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyBatchAsyncV2(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, h));
    compat_buffers_free(&b);
}

ROW(aclrtMemsetD32)
{
    unsigned char local[64];
    REJECTS(aclrtMemsetD32(NULL, 64, 0, 4), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS_HOSTILE(aclrtMemsetD32(local, 64, 0, 4), ACL_ERROR_INVALID_PARAM, "a local variable");
}

ROW(aclrtMemsetD32Async)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtMemsetD32Async(NULL, 64, 0, 4, NULL), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemsetD32Async(b.device, COMPAT_BAD_BUF, 0, 4, h));
    compat_buffers_free(&b);
}

ROW(aclrtGetMemcpyDescSize)
{
    REJECTS(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL descSize");
}

ROW(aclrtSetMemcpyDesc)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[64];
    REJECTS(aclrtSetMemcpyDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, b.device, b.device, 8,
                               NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL desc");
    REJECTS(aclrtSetMemcpyDesc(b.device, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL, b.device, 8,
                               NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL srcAddr");
    REJECTS_HOSTILE(aclrtSetMemcpyDesc(local, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, b.device, b.device, 8,
                               NULL),
            ANY_ERROR, "a local variable as desc");
    compat_buffers_free(&b);
}

ROW(aclrtMemcpyAsyncWithDesc)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtMemcpyAsyncWithDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL desc");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemcpyAsyncWithDesc(b.device, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, h));
    compat_buffers_free(&b);
}

ROW(aclrtMemcpyAsyncWithOffset)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[64];
    void *slot = local;
    REJECTS(aclrtMemcpyAsyncWithOffset(NULL, 64, 0, (const void **)b.device, 8, 0,
                                       ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ANY_ERROR, "a NULL dst");
    REJECTS_HOSTILE(aclrtMemcpyAsyncWithOffset(&slot, 64, 0, (const void **)b.device, 8, 0,
                                       ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ANY_ERROR, "a host slot");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyAsyncWithOffset((void **)b.device, 64, 0, (const void **)b.device, 8,
                                            0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, h));
    compat_buffers_free(&b);
}

ROW(aclrtCmoAsync)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtCmoAsync(NULL, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL src");
    REJECTS_HOSTILE(aclrtCmoAsync(b.pinned, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL), ANY_ERROR,
            "host memory");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCmoAsync(b.device, 64, ACL_RT_CMO_TYPE_PREFETCH, h));
    compat_buffers_free(&b);
}

ROW(aclrtCmoAsyncWithBarrier)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtCmoAsyncWithBarrier(NULL, 64, ACL_RT_CMO_TYPE_INVALID, 1, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCmoAsyncWithBarrier(b.device, 64, ACL_RT_CMO_TYPE_INVALID, 1, h));
    compat_buffers_free(&b);
}

ROW(aclrtCmoWaitBarrier)
{
    aclrtBarrierTaskInfo info;
    memset(&info, 0, sizeof info);
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_INVALID;
    info.cmoInfo[0].barrierId = 1;
    REJECTS(aclrtCmoWaitBarrier(NULL, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL taskInfo");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&info, h, 0));
}

ROW(aclrtCmoGetDescSize)
{
    REJECTS(aclrtCmoGetDescSize(NULL), ACL_ERROR_INVALID_PARAM, "a NULL size");
}

ROW(aclrtCmoSetDesc)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[64];
    REJECTS(aclrtCmoSetDesc(NULL, b.device, 8), ACL_ERROR_INVALID_PARAM, "a NULL cmoDesc");
    REJECTS(aclrtCmoSetDesc(b.device, NULL, 8), ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS_HOSTILE(aclrtCmoSetDesc(local, b.device, 8), ANY_ERROR, "a local variable as cmoDesc");
    compat_buffers_free(&b);
}

ROW(aclrtCmoAsyncWithDesc)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_PREFETCH, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL cmoDesc");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCmoAsyncWithDesc(b.device, ACL_RT_CMO_TYPE_PREFETCH, h, NULL));
    compat_buffers_free(&b);
}

ROW(aclrtDeviceL2CacheFlush)
{
    int local;
    REJECTS_HOSTILE(aclrtDeviceL2CacheFlush(&local), ACL_ERROR_INVALID_PARAM, "a non-NULL rsv");
}

ROW(aclrtGetMemUsageInfo)
{
    aclrtMemUsageInfo info[2];
    size_t n;
    REJECTS(aclrtGetMemUsageInfo(0, NULL, 2, &n), ACL_ERROR_INVALID_PARAM, "a NULL memUsageInfo");
    REJECTS(aclrtGetMemUsageInfo(0, info, 2, NULL), ACL_ERROR_INVALID_PARAM, "a NULL outputNum");
}


ROW(aclrtCheckMemType)
{
    uint32_t result;
    void *addrs[1] = {NULL};
    REJECTS(aclrtCheckMemType(NULL, 1, ACL_RT_MEM_TYPE_DEV, &result, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL addrList");
    REJECTS(aclrtCheckMemType(addrs, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL checkResult");
}

ROW(aclrtMallocForTaskScheduler)
{
    REJECTS(aclrtMallocForTaskScheduler(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
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
    COMPAT_ROW(aclrtMemcpyBatch),
    COMPAT_ROW(aclrtMemcpyBatchV2),
    COMPAT_ROW(aclrtMemcpyBatchAsync),
    COMPAT_ROW(aclrtMemcpyBatchAsyncV2),
    COMPAT_ROW(aclrtMemsetD32),
    COMPAT_ROW(aclrtMemsetD32Async),
    COMPAT_ROW(aclrtGetMemcpyDescSize),
    COMPAT_ROW(aclrtSetMemcpyDesc),
    COMPAT_ROW(aclrtMemcpyAsyncWithDesc),
    COMPAT_ROW(aclrtMemcpyAsyncWithOffset),
    COMPAT_ROW(aclrtCmoAsync),
    COMPAT_ROW(aclrtCmoAsyncWithBarrier),
    COMPAT_ROW(aclrtCmoWaitBarrier),
    COMPAT_ROW(aclrtCmoGetDescSize),
    COMPAT_ROW(aclrtCmoSetDesc),
    COMPAT_ROW(aclrtCmoAsyncWithDesc),
    COMPAT_ROW(aclrtDeviceL2CacheFlush),
    COMPAT_ROW(aclrtGetMemUsageInfo),
    COMPAT_ROW(aclrtCheckMemType),
    COMPAT_ROW(aclrtMallocForTaskScheduler),
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

    TCase *more = tcase_create("fills, batches, descriptors, cache maintenance");
    tcase_add_checked_fixture(more, compat_set_up, compat_tear_down);
    tcase_set_timeout(more, 60);
    tcase_add_test(more, test_memset_d32_device_and_host);
    tcase_add_test(more, test_memset_d32_errors);
    tcase_add_test(more, test_memset_d32_async_order);
    tcase_add_test(more, test_batch_pinned);
    tcase_add_test(more, test_batch_pageable_v2);
    tcase_add_test(more, test_batch_async_ordering);
    tcase_add_test(more, test_batch_errors);
    tcase_add_test(more, test_memcpy_desc);
    tcase_add_test(more, test_memcpy_with_offset);
    tcase_add_test(more, test_memcpy_with_offset_limits);
    tcase_add_test(more, test_cmo);
    tcase_add_test(more, test_mem_usage_info);
    suite_add_tcase(s, more);

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
