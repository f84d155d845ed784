/* Virtual memory: reserved ranges, physical memory, mappings and access,
 * through the public API only (every backend). */
#include <stdint.h>

#include "acltest.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

static aclrtPhysicalMemProp device_prop(aclrtMemAttr attr)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = attr;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    return prop;
}

static size_t granularity(aclrtMemAttr attr)
{
    aclrtPhysicalMemProp prop = device_prop(attr);
    size_t g = 0;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    return g;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 13 + seed + (i >> 12));
}

START_TEST(test_granularity)
{
    size_t normal = granularity(ACL_MEM_NORMAL), huge = granularity(ACL_MEM_HUGE);
    ck_assert_uint_gt(normal, 0);
    ck_assert_uint_eq(normal & (normal - 1), 0);
    ck_assert_uint_ge(huge, 2 * MIB);
    ck_assert_uint_eq(huge % normal, 0);
    ck_assert_uint_eq(granularity(ACL_MEM_HUGE1G), GIB);
    ck_assert_uint_eq(granularity(ACL_HBM_MEM_HUGE), huge);

    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE);
    size_t rec = 0, g;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &rec));
    ck_assert_uint_ge(rec, huge);
    ACL_FAILS_WITH(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g),
        ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
                   ACL_ERROR_INVALID_PARAM);
    /* DDR attributes are host memory only; some attributes are no physical
     * memory at all; locations must be host or device. */
    prop = device_prop(ACL_DDR_MEM_HUGE);
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
    prop.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop = device_prop(ACL_HBM_MEM);
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
    prop = device_prop(ACL_MEM_NORMAL);
    prop.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 999;
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

/* Two physical blocks mapped side by side form one range: copies, fills
 * and queued copies cross from one to the other. */
START_TEST(test_map_two_blocks)
{
    size_t g = granularity(ACL_MEM_HUGE);
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE);
    unsigned char *va;
    aclrtDrvMemHandle a, b;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * g, 0, NULL, 0));
    ck_assert_ptr_nonnull(va);
    ACL_OK(aclrtMallocPhysical(&a, g, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&b, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, a, 0));
    ACL_OK(aclrtMapMem(va + g, g, 0, b, 0));

    const size_t n = g + g / 2, at = g / 2; /* crosses the seam */
    unsigned char *in = malloc(n), *out = malloc(n);
    fill(in, n, 7);
    ACL_OK(aclrtMemcpy(va + at / 2, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(out, 0, n);
    ACL_OK(aclrtMemcpy(out, n, va + at / 2, n, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(out, in, n), 0);
    /* ACL_MEMCPY_DEFAULT sees device memory. */
    memset(out, 0, n);
    ACL_OK(aclrtMemcpy(out, n, va + at / 2, n, ACL_MEMCPY_DEFAULT));
    ck_assert_int_eq(memcmp(out, in, n), 0);
    /* A fill and a queued copy into ordinary device memory. */
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 2 * g, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtMemsetAsync(va + g - 10, 20, 0x5C, 20, s));
    ACL_OK(aclrtMemcpyAsync(dev, 2 * g, va, 2 * g, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(out, 40, (char *)dev + g - 20, 40, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 10; i < 30; i++)
        ck_assert_uint_eq(out[i], 0x5C);

    /* Pointer queries. */
    aclrtPtrAttributes attrs;
    ACL_OK(aclrtPointerGetAttributes(va + g + 5, &attrs));
    ck_assert_int_eq(attrs.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_uint_eq(attrs.location.id, 0);
    void *base = NULL;
    size_t size = 0;
    ACL_OK(aclrtMemGetAddressRange(va + g + 5, &base, &size));
    ck_assert_ptr_eq(base, va + g);
    ck_assert_uint_eq(size, g);
    ACL_OK(aclrtMemGetAddressRange(va + 1, NULL, &size));
    ck_assert_uint_eq(size, g);
    ACL_OK(aclrtMemGetAddressRange((char *)dev + 3, &base, NULL));
    ck_assert_ptr_eq(base, dev);
    /* Past the mapped part of the range: refused. */
    ACL_FAILS_WITH(aclrtMemcpy(out, n, va + g + g / 2, g, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpy(va + 2 * g, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(va + 3 * g, 64, 0, 64), ACL_ERROR_INVALID_PARAM);
    /* aclrtFree does not release mappings, and says what does. */
    ACL_FAILS_WITH(aclrtFree(va), ACL_ERROR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "", ""));

    ACL_OK(aclrtUnmapMem(va + g));
    /* Unmapped: no longer device memory. */
    ACL_FAILS_WITH(aclrtMemcpy(va + g, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemGetAddressRange(va + g, &base, &size), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(a));
    ACL_OK(aclrtFreePhysical(b));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    free(in);
    free(out);
}
END_TEST

START_TEST(test_map_errors)
{
    size_t g = granularity(ACL_MEM_HUGE);
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE);
    unsigned char *va, local[64];
    aclrtDrvMemHandle a, big;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&a, g, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&big, 2 * g, &prop, 0));

    /* Size and offset rules. */
    ACL_FAILS_WITH(aclrtMapMem(va, g / 2, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va, 2 * g, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va, g, g, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va, g, 0, a, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va, 0, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(NULL, g, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va, g, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    /* Where: inside a reservation, aligned, not past its end, not over a mapping. */
    ACL_FAILS_WITH(aclrtMapMem(local, g, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va + 4096, g, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va + 3 * g, 2 * g, 0, big, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtMapMem(va + g, g, 0, a, 0));
    ACL_FAILS_WITH(aclrtMapMem(va + g, g, 0, a, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMapMem(va, 2 * g, 0, big, 0), ACL_ERROR_RT_PARAM_INVALID);
    /* A handle not made by ACL, or of another kind. */
    aclrtStream s = acltest_new_stream();
    ACL_FAILS_WITH(aclrtMapMem(va + 2 * g, g, 0, (aclrtDrvMemHandle)s, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va + 2 * g, g, 0, (aclrtDrvMemHandle)local, 0),
                   ACL_ERROR_INVALID_PARAM);

    /* Unmap and release rules. */
    ACL_FAILS_WITH(aclrtUnmapMem(va), ACL_ERROR_INVALID_PARAM);         /* nothing mapped there */
    ACL_FAILS_WITH(aclrtUnmapMem(va + g + 64), ACL_ERROR_INVALID_PARAM); /* inside a mapping */
    ACL_FAILS_WITH(aclrtUnmapMem(local), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtUnmapMem(NULL), ACL_ERROR_INVALID_PARAM);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtUnmapMem(dev), ACL_ERROR_INVALID_PARAM); /* aclrtMalloc memory */
    ACL_FAILS_WITH(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID); /* still mapped */
    ACL_FAILS_WITH(aclrtReleaseMemAddress(va + g), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReleaseMemAddress(dev), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReleaseMemAddress(NULL), ACL_ERROR_INVALID_PARAM);

    /* Freeing the handle keeps the mapped memory until it is unmapped. */
    unsigned char in[64], out[64];
    memset(in, 0x3E, sizeof in);
    ACL_OK(aclrtFreePhysical(a));
    ACL_OK(aclrtMemcpy(va + g, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(out, 64, va + g, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(in, out, 64), 0);
    ACL_FAILS_WITH(aclrtFreePhysical(a), ACL_ERROR_INVALID_PARAM); /* freed once already */
    ACL_OK(aclrtUnmapMem(va + g));
    ACL_FAILS_WITH(aclrtUnmapMem(va + g), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va, g, 0, a, 0), ACL_ERROR_INVALID_PARAM); /* a is gone */
    ACL_OK(aclrtFreePhysical(big));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_FAILS_WITH(aclrtReleaseMemAddress(va), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtFreePhysical(NULL), ACL_ERROR_INVALID_PARAM);

    /* Reservation and allocation arguments. */
    void *p;
    ACL_FAILS_WITH(aclrtReserveMemAddress(NULL, g, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReserveMemAddress(&p, 0, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReserveMemAddress(&p, g, 0, NULL, 2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReserveMemAddress(&p, g, 64, NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
    aclrtDrvMemHandle h;
    ACL_FAILS_WITH(aclrtMallocPhysical(NULL, g, &prop, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocPhysical(&h, 0, &prop, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocPhysical(&h, g, &prop, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocPhysical(&h, g, NULL, 0), ACL_ERROR_INVALID_PARAM);
    aclrtPhysicalMemProp bad = prop;
    bad.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    ACL_FAILS_WITH(aclrtMallocPhysical(&h, g, &bad, 0), ACL_ERROR_INVALID_PARAM);
    bad = prop;
    bad.memAttr = ACL_DDR_MEM_NORMAL;
    ACL_FAILS_WITH(aclrtMallocPhysical(&h, g, &bad, 0), ACL_ERROR_INVALID_PARAM);
    /* Out of memory: an error, and the library keeps working. */
    ACL_FAILS_WITH(aclrtMallocPhysical(&h, (size_t)1 << 50, &prop, 0),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* aclrtMemMapNoAccess: nothing may touch the range until aclrtMemSetAccess
 * opens it; read-only access refuses writes; aclrtMemGetAccess reports it. */
START_TEST(test_access)
{
    size_t g = granularity(ACL_MEM_NORMAL);
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_NORMAL);
    unsigned char *va, in[256], out[256];
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMemMapNoAccess(va, g, 0, h, 0));
    aclrtMemLocation dev0 = {.id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE};
    aclrtMemLocation host = {.id = 0, .type = ACL_MEM_LOCATION_TYPE_HOST};
    uint64_t flags = 99;
    ACL_OK(aclrtMemGetAccess(va, &dev0, &flags));
    ck_assert_uint_eq(flags, ACL_RT_MEM_ACCESS_FLAGS_NONE);
    memset(in, 0x77, sizeof in);
    ACL_FAILS_WITH(aclrtMemcpy(va, 256, in, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemset(va, 256, 0, 256), ACL_ERROR_INVALID_PARAM);

    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    desc.location = dev0;
    ACL_OK(aclrtMemSetAccess(va, g, &desc, 1));
    ACL_OK(aclrtMemGetAccess(va, &dev0, &flags));
    ck_assert_uint_eq(flags, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    ACL_OK(aclrtMemGetAccess(va, &host, &flags));
    ck_assert_uint_eq(flags, ACL_RT_MEM_ACCESS_FLAGS_NONE);
    ACL_OK(aclrtMemcpy(va, 256, in, 256, ACL_MEMCPY_HOST_TO_DEVICE));

    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
    ACL_OK(aclrtMemSetAccess(va, g, &desc, 1));
    ACL_FAILS_WITH(aclrtMemcpy(va, 256, in, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtMemcpy(out, 256, va, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(in, out, 256), 0);

    /* Errors. */
    ACL_FAILS_WITH(aclrtMemSetAccess(va, g / 2, &desc, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetAccess(va, g, &desc, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetAccess(va, g, NULL, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetAccess(NULL, g, &desc, 1), ACL_ERROR_INVALID_PARAM);
    desc.flags = (aclrtMemAccessFlags)2;
    ACL_FAILS_WITH(aclrtMemSetAccess(va, g, &desc, 1), ACL_ERROR_INVALID_PARAM);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
    desc.location.id = 999;
    ACL_FAILS_WITH(aclrtMemSetAccess(va, g, &desc, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    aclrtMemLocation managed = {.id = 0, .type = ACL_MEM_LOCATION_TYPE_MANAGED};
    ACL_FAILS_WITH(aclrtMemGetAccess(va, &managed, &flags), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemGetAccess(va + 64, &dev0, &flags), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemGetAccess(va, NULL, &flags), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemGetAccess(va, &dev0, NULL), ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
}
END_TEST

/* aclrtMemRetainAllocationHandle returns the handle behind a mapping; each
 * retain is undone by one aclrtFreePhysical. */
START_TEST(test_retain_and_properties)
{
    size_t g = granularity(ACL_MEM_HUGE);
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE), got;
    void *va;
    aclrtDrvMemHandle h, again = NULL;
    ACL_OK(aclrtReserveMemAddress(&va, g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, h, 0));
    ACL_OK(aclrtMemRetainAllocationHandle(va, &again));
    ck_assert_ptr_eq(again, h);
    memset(&got, 0xFF, sizeof got);
    ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &got));
    ck_assert_int_eq(got.handleType, ACL_MEM_HANDLE_TYPE_NONE);
    ck_assert_int_eq(got.allocationType, ACL_MEM_ALLOCATION_TYPE_PINNED);
    ck_assert_int_eq(got.memAttr, ACL_MEM_HUGE);
    ck_assert_int_eq(got.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_uint_eq(got.location.id, 0);
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtFreePhysical(again));
    /* Still mapped: it can be retained again. */
    ACL_OK(aclrtMemRetainAllocationHandle(va, &again));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(again, &got));
    ACL_OK(aclrtFreePhysical(again));
    ACL_FAILS_WITH(aclrtMemGetAllocationPropertiesFromHandle(again, &got), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemRetainAllocationHandle(va, &again), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemRetainAllocationHandle(NULL, &again), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemRetainAllocationHandle(va, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtReleaseMemAddress(va));
}
END_TEST

/* Host memory: mapped, the host reaches it directly. */
START_TEST(test_host_physical)
{
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_NORMAL);
    prop.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    size_t g;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    unsigned char *va, out[128];
    void *dev;
    aclrtDrvMemHandle h;
    ACL_OK(aclrtReserveMemAddress((void **)&va, g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    ACL_OK(aclrtMapMem(va, g, 0, h, 0));
    memset(va, 0x21, 128);
    ACL_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(dev, 128, va, 128, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(out, 128, dev, 128, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 128; i++)
        ck_assert_uint_eq(out[i], 0x21);
    aclrtPtrAttributes attrs;
    ACL_OK(aclrtPointerGetAttributes(va, &attrs));
    ck_assert_int_eq(attrs.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    aclrtPhysicalMemProp got;
    ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &got));
    ck_assert_int_eq(got.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* aclrtMemMapSelectedLink maps a second range to the same memory. */
START_TEST(test_selected_link_alias)
{
    size_t g = granularity(ACL_MEM_HUGE);
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE);
    unsigned char *a, *b, in[64], out[64];
    aclrtDrvMemHandle h1, h2;
    ACL_OK(aclrtReserveMemAddress((void **)&a, 2 * g, 0, NULL, 0));
    ACL_OK(aclrtReserveMemAddress((void **)&b, 2 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&h1, g, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&h2, g, &prop, 0));
    ACL_OK(aclrtMapMem(a, g, 0, h1, 0));
    ACL_OK(aclrtMapMem(a + g, g, 0, h2, 0));
    ACL_OK(aclrtMemMapSelectedLink(b, 2 * g, a, ACL_RT_MEM_LINK_IDX_1));
    memset(in, 0x4D, sizeof in);
    ACL_OK(aclrtMemcpy(a + g + 100, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(out, 64, b + g + 100, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_int_eq(memcmp(in, out, 64), 0);
    ACL_FAILS_WITH(aclrtMemMapSelectedLink(b, 2 * g, a, 2), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemMapSelectedLink(b, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemMapSelectedLink(b + g, g, a, 0), ACL_ERROR_INVALID_PARAM);
    /* One unmap per physical block, on both ranges. */
    ACL_OK(aclrtUnmapMem(b));
    ACL_OK(aclrtUnmapMem(b + g));
    ACL_OK(aclrtUnmapMem(a));
    ACL_OK(aclrtUnmapMem(a + g));
    /* Link advice is kept; values are checked. */
    ACL_OK(aclrtMemMapSetLink(h1, ACL_RT_MEM_ACCESS_LINK_HCCS));
    ACL_FAILS_WITH(aclrtMemMapSetLink(h1, (aclrtMemLinkType)7), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtMemMapSetLink(NULL, ACL_RT_MEM_ACCESS_LINK_SIO), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFreePhysical(h1));
    ACL_OK(aclrtFreePhysical(h2));
    ACL_OK(aclrtReleaseMemAddress(a));
    ACL_OK(aclrtReleaseMemAddress(b));
}
END_TEST

/* Reservations at a chosen address. */
START_TEST(test_reserve_at_address)
{
    void *first, *at, *again;
    ACL_OK(aclrtReserveMemAddress(&first, GIB, 0, NULL, 0));
    ACL_OK(aclrtReleaseMemAddress(first));
    ACL_OK(aclrtReserveMemAddress(&at, GIB, 0, first, 0));
    ck_assert_ptr_eq(at, first);
    /* Taken now. */
    ACL_FAILS(aclrtReserveMemAddress(&again, GIB, 0, first, 0));
    ACL_OK(aclrtReleaseMemAddress(at));
    /* The no-UC variant: 1 GiB multiples at a given address. */
    ACL_OK(aclrtReserveMemAddressNoUCMemory(&at, GIB, 0, first, 0));
    ck_assert_ptr_eq(at, first);
    ACL_OK(aclrtReleaseMemAddress(at));
    ACL_FAILS_WITH(aclrtReserveMemAddressNoUCMemory(&at, GIB / 2, 0, first, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReserveMemAddressNoUCMemory(&at, GIB, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReserveMemAddressNoUCMemory(NULL, GIB, 0, first, 0),
                   ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(test_p2p_map_and_mem_types)
{
    void *dev, *pinned, *va;
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&pinned, 4096));
    ACL_OK(aclrtMemP2PMap(dev, 4096, 0, 0)); /* its own device */
    ACL_FAILS_WITH(aclrtMemP2PMap(dev, 4096, 999, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtMemP2PMap(pinned, 4096, 0, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemP2PMap(dev, 8192, 0, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemP2PMap(dev, 4096, 0, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemP2PMap(NULL, 4096, 0, 0), ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtReserveMemAddress(&va, 4096, 0, NULL, 0));
    void *addrs[3] = {dev, va, pinned};
    uint32_t result = 9;
    ACL_OK(aclrtCheckMemType(addrs, 1, ACL_RT_MEM_TYPE_DEV, &result, 0));
    ck_assert_uint_eq(result, 1);
    ACL_OK(aclrtCheckMemType(addrs + 1, 1, ACL_RT_MEM_TYPE_RSVD, &result, 0));
    ck_assert_uint_eq(result, 1);
    ACL_OK(aclrtCheckMemType(addrs, 2, ACL_RT_MEM_TYPE_DEV, &result, 0));
    ck_assert_uint_eq(result, 0);
    ACL_OK(aclrtCheckMemType(addrs, 2, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD, &result, 0));
    ck_assert_uint_eq(result, 1);
    ACL_OK(aclrtCheckMemType(addrs, 3, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD, &result, 0));
    ck_assert_uint_eq(result, 0);
    ACL_FAILS_WITH(aclrtCheckMemType(addrs, 1, 0x1, &result, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCheckMemType(addrs, 1, ACL_RT_MEM_TYPE_DEV, &result, 1),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCheckMemType(addrs, 0, ACL_RT_MEM_TYPE_DEV, &result, 0),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtCheckMemType(NULL, 1, ACL_RT_MEM_TYPE_DEV, &result, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCheckMemType(addrs, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

START_TEST(test_malloc_for_task_scheduler)
{
    void *p = NULL;
    ACL_OK(aclrtMallocForTaskScheduler(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    ACL_OK(aclrtMemset(p, 100, 1, 100));
    ACL_OK(aclrtFree(p));
    /* A policy outside the enum picks the pages by size instead of failing. */
    ACL_OK(aclrtMallocForTaskScheduler(&p, 3 * MIB, (aclrtMemMallocPolicy)0x77, NULL));
    aclrtPtrAttributes attrs;
    ACL_OK(aclrtPointerGetAttributes(p, &attrs));
    ck_assert_int_eq(attrs.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    ACL_OK(aclrtFree(p));
    ACL_FAILS_WITH(aclrtMallocForTaskScheduler(NULL, 100, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMallocForTaskScheduler(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                   ACL_ERROR_INVALID_PARAM);
}
END_TEST

static Suite *vmm_suite(void)
{
    Suite *s = suite_create("vmm");
    TCase *tc = tcase_create("vmm");
    tcase_add_checked_fixture(tc, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_granularity);
    tcase_add_test(tc, test_map_two_blocks);
    tcase_add_test(tc, test_map_errors);
    tcase_add_test(tc, test_access);
    tcase_add_test(tc, test_retain_and_properties);
    tcase_add_test(tc, test_host_physical);
    tcase_add_test(tc, test_selected_link_alias);
    tcase_add_test(tc, test_reserve_at_address);
    tcase_add_test(tc, test_p2p_map_and_mem_types);
    tcase_add_test(tc, test_malloc_for_task_scheduler);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return acltest_run(vmm_suite());
}
