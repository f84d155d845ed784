/* libFuzzer target: the argument checks of aclrtMemcpy, aclrtMemcpyAsync,
 * aclrtMemcpy2d(Async) and aclrtMemset(Async), on the host backend.
 *
 * Each input is a short program of calls over a few real buffers: two of
 * device memory, one of page-locked host memory and one of pageable host
 * memory, plus NULL. Pointers are a buffer and an offset inside it; sizes,
 * pitches, kinds, fill values and streams (the default one, a live one, a
 * destroyed one, garbage) come from the input. Every call must return
 * without a crash; a failure must leave a message; a call that reaches past
 * the end of an ACL allocation must fail; a call that succeeds must have
 * moved exactly the bytes a model of the buffers says.
 *
 * Pageable memory is outside the library's knowledge (any host address is a
 * legal copy target), so calls that would run past the pageable buffer are
 * not made: that would test this program, not the library. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { REGIONS = 4, NULL_REGION = REGIONS, MAX_CALLS = 8, GARBAGE_BYTES = 64 };

typedef struct region {
    unsigned char *base;
    size_t size;
    bool registered; /* an ACL allocation, whose end the library knows */
    unsigned char *model;
} region;

static region regions[REGIONS];
static unsigned char pageable[4096];
static aclrtStream live_stream, destroyed_stream;
static unsigned char garbage_stream[GARBAGE_BYTES];

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_memcpy_args: %s\n", what);
    abort();
}

static void must(aclError ret, const char *what)
{
    if (ret != ACL_SUCCESS)
        fail(what);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("ACLCUDA_BACKEND", "host", 1);
    setenv("ACLCUDA_HOST_DEVICE_MEMORY", "64M", 1);
    must(aclrtSetDevice(0), "aclrtSetDevice");
    must(aclrtCreateStream(&live_stream), "aclrtCreateStream");
    must(aclrtCreateStream(&destroyed_stream), "aclrtCreateStream");
    must(aclrtDestroyStream(destroyed_stream), "aclrtDestroyStream");
    memset(garbage_stream, 0xA5, sizeof garbage_stream);

    /* Align32 allocations register exactly the size asked for (a multiple
     * of 32), so the model knows where each one ends. */
    void *p;
    must(aclrtMallocAlign32(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMallocAlign32");
    regions[0] = (region){p, 4096, true, NULL};
    must(aclrtMallocAlign32(&p, 1024, ACL_MEM_MALLOC_NORMAL_ONLY), "aclrtMallocAlign32");
    regions[1] = (region){p, 1024, true, NULL};
    must(aclrtMallocHost(&p, 4096), "aclrtMallocHost");
    regions[2] = (region){p, 4096, true, NULL};
    regions[3] = (region){pageable, sizeof pageable, false, NULL};
    for (size_t i = 0; i < REGIONS; i++) {
        regions[i].model = malloc(regions[i].size);
        if (!regions[i].model)
            fail("out of memory");
    }
    return 0;
}

/* ---- decoding ------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t next_byte(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

/* Mostly small sizes, sometimes edge values that overflow arithmetic. */
static size_t next_size(reader *r)
{
    static const size_t edges[] = {
        0, 1, 31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097, 5000001, 5242881,
        (size_t)1 << 32, SIZE_MAX / 2 + 1, SIZE_MAX,
    };
    uint8_t selector = next_byte(r);
    if (selector & 0x80)
        return edges[selector % (sizeof edges / sizeof edges[0])];
    return ((size_t)(selector & 0x1F) << 8) | next_byte(r);
}

typedef struct place {
    int region; /* NULL_REGION for NULL */
    size_t offset;
    void *ptr;
} place;

static place next_place(reader *r)
{
    place p = {.region = next_byte(r) % (REGIONS + 1)};
    size_t offset = ((size_t)next_byte(r) << 8) | next_byte(r);
    if (p.region == NULL_REGION)
        return p;
    p.offset = offset % regions[p.region].size;
    p.ptr = regions[p.region].base + p.offset;
    return p;
}

static aclrtStream next_stream(reader *r)
{
    switch (next_byte(r) % 4) {
    case 0: return NULL;
    case 1: return live_stream;
    case 2: return destroyed_stream;
    default: return garbage_stream;
    }
}

/* ---- the model ------------------------------------------------------------------------ */

static size_t room(const place *p)
{
    return regions[p->region].size - p->offset;
}

/* Bytes a 2D region spans, or SIZE_MAX when that overflows. */
static size_t span_2d(size_t pitch, size_t width, size_t height)
{
    size_t rows, span;
    if (height == 0 || __builtin_mul_overflow(pitch, height - 1, &rows) ||
        __builtin_add_overflow(rows, width, &span))
        return SIZE_MAX;
    return span;
}

/* Whether the call may be made: it must not run past pageable memory. */
static bool pageable_safe(const place *p, size_t extent)
{
    return p->region == NULL_REGION || regions[p->region].registered || extent <= room(p);
}

/* True when the call reaches past the end of an ACL allocation. */
static bool overruns(const place *p, size_t extent)
{
    return p->region != NULL_REGION && regions[p->region].registered && extent > room(p);
}

static unsigned char *model_of(const place *p)
{
    return regions[p->region].model + p->offset;
}

static void sync_model(void)
{
    for (size_t i = 0; i < REGIONS; i++)
        memcpy(regions[i].model, regions[i].base, regions[i].size);
}

static void check_model(const char *call)
{
    for (size_t i = 0; i < REGIONS; i++) {
        if (memcmp(regions[i].model, regions[i].base, regions[i].size) != 0) {
            fprintf(stderr, "fuzz_memcpy_args: %s succeeded but region %zu holds other bytes "
                            "than expected\n",
                    call, i);
            abort();
        }
    }
}

/* ---- one call ---------------------------------------------------------------------------- */

typedef enum call_kind { MEMCPY, MEMCPY_ASYNC, MEMCPY_2D, MEMCPY_2D_ASYNC, MEMSET, MEMSET_ASYNC } call_kind;

static const char *const call_names[] = {"aclrtMemcpy", "aclrtMemcpyAsync", "aclrtMemcpy2d",
                                         "aclrtMemcpy2dAsync", "aclrtMemset", "aclrtMemsetAsync"};

static void one_call(reader *r)
{
    call_kind call = (call_kind)(next_byte(r) % 6);
    place dst = next_place(r), src = next_place(r);
    size_t a = next_size(r), b = next_size(r), c = next_size(r), d = next_size(r);
    aclrtMemcpyKind kind = (aclrtMemcpyKind)(int8_t)next_byte(r);
    int32_t value = (int32_t)((uint32_t)next_byte(r) << 24 | (uint32_t)next_byte(r));
    aclrtStream stream = next_stream(r);

    /* Extents each side would be touched over if the call went ahead. */
    size_t dst_extent, src_extent;
    bool empty;
    switch (call) {
    case MEMCPY:
    case MEMCPY_ASYNC: /* a = destMax, b = count */
        dst_extent = src_extent = b;
        empty = b == 0;
        break;
    case MEMCPY_2D:
    case MEMCPY_2D_ASYNC: /* a = dpitch, b = spitch, c = width, d = height */
        dst_extent = span_2d(a, c, d);
        src_extent = span_2d(b, c, d);
        empty = c == 0 || d == 0;
        break;
    default: /* a = maxCount, b = count */
        dst_extent = b;
        src_extent = 0;
        src.region = NULL_REGION;
        empty = b == 0;
        break;
    }
    if (!empty && (!pageable_safe(&dst, dst_extent) || !pageable_safe(&src, src_extent)))
        return;

    (void)aclGetRecentErrMsg();
    aclError ret = ACL_ERROR_INVALID_PARAM;
    switch (call) {
    case MEMCPY: ret = aclrtMemcpy(dst.ptr, a, src.ptr, b, kind); break;
    case MEMCPY_ASYNC: ret = aclrtMemcpyAsync(dst.ptr, a, src.ptr, b, kind, stream); break;
    case MEMCPY_2D: ret = aclrtMemcpy2d(dst.ptr, a, src.ptr, b, c, d, kind); break;
    case MEMCPY_2D_ASYNC: ret = aclrtMemcpy2dAsync(dst.ptr, a, src.ptr, b, c, d, kind, stream); break;
    case MEMSET: ret = aclrtMemset(dst.ptr, a, value, b); break;
    case MEMSET_ASYNC: ret = aclrtMemsetAsync(dst.ptr, a, value, b, stream); break;
    }
    if (ret != ACL_SUCCESS && aclGetRecentErrMsg() == NULL)
        fail("a call failed without a message");
    must(aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
    (void)aclGetRecentErrMsg();

    /* Whatever overruns an allocation must fail, a copy onto itself too
     * (which otherwise moves nothing). */
    bool self_copy = call <= MEMCPY_ASYNC && dst.ptr == src.ptr;
    if (ret == ACL_SUCCESS && !empty &&
        (overruns(&dst, dst_extent) || overruns(&src, src_extent))) {
        fprintf(stderr, "fuzz_memcpy_args: %s reached past the end of an allocation and "
                        "succeeded\n",
                call_names[call]);
        abort();
    }
    if (ret != ACL_SUCCESS || empty || self_copy) {
        check_model(call_names[call]);
        return;
    }
    switch (call) {
    case MEMCPY:
    case MEMCPY_ASYNC:
        memmove(model_of(&dst), model_of(&src), b);
        break;
    case MEMCPY_2D:
    case MEMCPY_2D_ASYNC:
        for (size_t row = 0; row < d; row++)
            memmove(model_of(&dst) + row * a, model_of(&src) + row * b, c);
        break;
    default:
        memset(model_of(&dst), (unsigned char)value, b);
        break;
    }
    check_model(call_names[call]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    sync_model();
    for (int calls = 0; calls < MAX_CALLS && r.n > 0; calls++)
        one_call(&r);
    return 0;
}
