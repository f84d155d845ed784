/* Copies and fills beyond the basic ones: 32-bit fills, batches of copies,
 * copies through device-side addresses (descriptors and offsets), cache
 * maintenance, memory use and uncorrectable-error reports. Public API
 * only, so the suite runs on every backend. */
#include <stdint.h>

#include "acltest.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

static void fill_bytes(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed * 7 + (i >> 8));
}

static void check_words(const uint32_t *w, size_t n, uint32_t value)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] != value)
            ck_abort_msg("word %zu of %zu is 0x%08x, expected 0x%08x", i, n, w[i], value);
}

/* ---- 32-bit fills ------------------------------------------------------------------ */

START_TEST(test_memset_d32_device_and_host)
{
    const size_t n = 1000;
    uint32_t *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n * 4 + 8));
    ACL_OK(aclrtMemset(dev, n * 4, 0, n * 4));
    ACL_OK(aclrtMemsetD32(dev, n * 4, 0xDEADBEEFu, n - 1));
    memset(pinned, 0, n * 4 + 8);
    ACL_OK(aclrtMemcpy(pinned, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    check_words(pinned, n - 1, 0xDEADBEEFu);
    ck_assert_uint_eq(pinned[n - 1], 0); /* exactly N words */

    /* Page-locked host memory is filled as well. */
    ACL_OK(aclrtMemsetD32(pinned + 1, n * 4, 0x01020304u, n));
    check_words(pinned + 1, n, 0x01020304u);
    ck_assert_uint_eq(pinned[0], 0xDEADBEEFu);

    /* N == 0 is a no-op, even with nothing else valid. */
    ACL_OK(aclrtMemsetD32(NULL, 0, 1, 0));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

START_TEST(test_memset_d32_errors)
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
END_TEST

/* Device fills run in stream order; host fills happen at the call. */
START_TEST(test_memset_d32_async_order)
{
    const size_t n = 256;
    aclrtStream s = acltest_new_stream();
    uint32_t *dev, *pinned, *out;
    ACL_OK(aclrtMalloc((void **)&dev, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n * 4));
    ACL_OK(aclrtMallocHost((void **)&out, n * 4));
    memset(pinned, 0, n * 4);
    memset(out, 0, n * 4);
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemsetD32Async(dev, n * 4, 7u, n, s));
    ACL_OK(aclrtMemcpyAsync(out, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtMemsetD32Async(pinned, n * 4, 9u, n, s));
    check_words(pinned, n, 9u); /* at once, although the stream is held */
    ck_assert_uint_eq(out[0], 0);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    check_words(out, n, 7u);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- batches ------------------------------------------------------------------------ */

static aclrtMemcpyBatchAttr attr_of(aclrtMemLocationType dst, aclrtMemLocationType src)
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
static void batch_round_trip(bool pinned_host, bool v2)
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
    fill_bytes(host, BLOCKS * STRIDE, 3);
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
        attrs[k] = attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST);
    size_t indexes[3] = {0, 10, 500}, fail = 12345;
    aclrtStream s = acltest_new_stream();
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
    aclrtMemcpyBatchAttr d2h = attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
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

START_TEST(test_batch_pinned)
{
    batch_round_trip(true, false);
}
END_TEST

START_TEST(test_batch_pageable_v2)
{
    batch_round_trip(false, true);
}
END_TEST

/* With page-locked memory the batch is queued in stream order; with
 * pageable memory it is complete when the call returns. */
START_TEST(test_batch_async_ordering)
{
    const size_t n = 4096;
    aclrtStream s = acltest_new_stream();
    unsigned char *dev, *pinned, *pageable = malloc(n);
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    ACL_OK(aclrtMemset(dev, n, 0x11, n));
    memset(pinned, 0, n);
    void *dst[1] = {pinned}, *src[1] = {dev};
    size_t size[1] = {n}, max[1] = {n}, idx[1] = {0}, fail;
    aclrtMemcpyBatchAttr a = attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyBatchAsync(dst, max, src, size, 1, &a, idx, 1, &fail, s));
    ck_assert_uint_eq(pinned[0], 0); /* queued behind the gate */
    acltest_gate_open(&gate);
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
END_TEST

START_TEST(test_batch_errors)
{
    const size_t n = 256;
    unsigned char *dev, *pinned;
    ACL_OK(aclrtMalloc((void **)&dev, 4 * n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, 4 * n));
    void *dsts[4] = {dev, dev + n, dev + 2 * n, dev + 3 * n};
    void *srcs[4] = {pinned, pinned + n, pinned + 2 * n, pinned + 3 * n};
    size_t sizes[4] = {n, n, n, n}, maxs[4] = {n, n, n, n}, zero[4] = {0, 0, 0, 0};
    size_t idx[2] = {0, 2}, fail = 0;
    aclrtMemcpyBatchAttr h2d = attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST);
    aclrtMemcpyBatchAttr d2h = attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
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
    aclrtMemcpyBatchAttr dd = attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_DEVICE);
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
END_TEST

/* ---- copies through device-side addresses ----------------------------------------------- */

/* The descriptor is read when the copy runs: rewriting it while the copy
 * waits behind a gate changes what is copied. */
START_TEST(test_memcpy_desc)
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
    fill_bytes(host, n, 1);
    ACL_OK(aclrtMemcpy(a, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(b, n, 0, n));
    ACL_OK(aclrtMemset(c, n, 0, n));
    ACL_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, n, NULL));

    aclrtStream s = acltest_new_stream();
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    /* Point the queued copy elsewhere before it runs. */
    ACL_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a + 1, c, n - 1, NULL));
    acltest_gate_open(&gate);
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
END_TEST

/* The base addresses are read from device memory when the copy runs. */
START_TEST(test_memcpy_with_offset)
{
    const size_t n = 2048;
    unsigned char *a, *b, *c, *host = malloc(n), *out = malloc(n);
    uint64_t *slots;
    ACL_OK(aclrtMalloc((void **)&slots, 2 * sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&c, n, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_bytes(host, n, 9);
    ACL_OK(aclrtMemcpy(a, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(b, n, 0, n));
    ACL_OK(aclrtMemset(c, n, 0, n));
    uint64_t bases[2] = {(uintptr_t)b, (uintptr_t)a};
    ACL_OK(aclrtMemcpy(slots, sizeof bases, bases, sizeof bases, ACL_MEMCPY_HOST_TO_DEVICE));

    aclrtStream s = acltest_new_stream();
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemcpyAsyncWithOffset((void **)&slots[0], n - 100, 100, (const void **)&slots[1],
                                      500, 7, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    /* Redirect the destination base to c before the copy runs. */
    uint64_t cb = (uintptr_t)c;
    ACL_OK(aclrtMemcpy(&slots[0], 8, &cb, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    acltest_gate_open(&gate);
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
END_TEST

/* ---- cache maintenance ---------------------------------------------------------------- */

START_TEST(test_cmo)
{
    const size_t n = 64 * KIB;
    unsigned char *dev, *pinned;
    unsigned char local[16];
    ACL_OK(aclrtMalloc((void **)&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost((void **)&pinned, n));
    aclrtStream s = acltest_new_stream();
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
END_TEST

/* ---- memory use and uncorrectable errors ----------------------------------------------- */

START_TEST(test_mem_usage_info)
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
END_TEST

START_TEST(test_uce)
{
    aclrtMemUceInfo info[4];
    memset(info, 0, sizeof info);
    size_t n = 9;
    ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
    ck_assert_uint_eq(n, 0);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(0, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(0, info, 4, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(0, info, 0, &n), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemUceInfo(999, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
    /* Nothing was reported, so nothing can be repaired. */
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    info[0].addr = dev;
    info[0].len = 4096;
    ACL_FAILS_WITH(aclrtMemUceRepair(0, info, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemUceRepair(0, NULL, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemUceRepair(999, info, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtFree(dev));
}
END_TEST

static Suite *copies_suite(void)
{
    Suite *s = suite_create("copies");
    TCase *tc = tcase_create("copies");
    tcase_add_checked_fixture(tc, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_memset_d32_device_and_host);
    tcase_add_test(tc, test_memset_d32_errors);
    tcase_add_test(tc, test_memset_d32_async_order);
    tcase_add_test(tc, test_batch_pinned);
    tcase_add_test(tc, test_batch_pageable_v2);
    tcase_add_test(tc, test_batch_async_ordering);
    tcase_add_test(tc, test_batch_errors);
    tcase_add_test(tc, test_memcpy_desc);
    tcase_add_test(tc, test_memcpy_with_offset);
    tcase_add_test(tc, test_cmo);
    tcase_add_test(tc, test_mem_usage_info);
    tcase_add_test(tc, test_uce);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return acltest_run(copies_suite());
}
