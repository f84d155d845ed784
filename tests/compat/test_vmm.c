/* Virtual memory: reserved address ranges, physical memory behind
 * aclrtDrvMemHandle handles, mappings and their access, the link choices,
 * and the shareable handles' arguments (their sharing across processes is
 * in test_ipc.c). Also aclrtCheckMemType and aclrtMallocForTaskScheduler. */
#include <stdint.h>

#include "compat.h"
#include "bad_args.h"

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

COMPAT_TEST(test_granularity,
            "aclrtMemGetAllocationGranularity answers the minimum and recommended granularity per "
            "memory attribute; DDR attributes are host-only",
            "API ref aclrtMemGetAllocationGranularity; [impl] memAttrHandlers")
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
    ACL_FAILS(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g));
    ACL_FAILS_WITH(aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
        ACL_ERROR_INVALID_PARAM);
    /* DDR attributes are host memory only; some attributes are no physical
     * memory at all; locations must be host or device. */
    prop = device_prop(ACL_DDR_MEM_HUGE);
    ACL_FAILS_WITH(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
        ACL_ERROR_INVALID_PARAM);
    prop.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop = device_prop(ACL_HBM_MEM);
    ACL_FAILS_WITH(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
        ACL_ERROR_INVALID_PARAM);
    prop = device_prop(ACL_MEM_NORMAL);
    prop.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
    ACL_FAILS_WITH(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
        ACL_ERROR_INVALID_PARAM);
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 999;
    ACL_FAILS_WITH(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
        ACL_ERROR_RT_INVALID_DEVICEID);
}

/* Two physical blocks mapped side by side form one range: copies, fills
 * and queued copies cross from one to the other. */
COMPAT_TEST(
    test_map_two_blocks,
    "physical memory mapped side by side into a reserved range is one contiguous device range for "
    "copies and fills",
    "API ref aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem (the seven-step flow)")
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
    aclrtStream s = compat_new_stream();
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

    ACL_OK(aclrtUnmapMem(va + g));
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(a));
    ACL_OK(aclrtFreePhysical(b));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    free(in);
    free(out);
}

COMPAT_TEST(
    test_map_errors,
    "mapping rules: size of the handle, offset 0, flags 0, inside a reservation; unmap what is "
    "mapped; release what is reserved after unmapping; a freed handle stays mapped until unmapped",
    "API ref aclrtMapMem, aclrtUnmapMem, aclrtReleaseMemAddress, aclrtFreePhysical")
{
    size_t g = granularity(ACL_MEM_HUGE);
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE);
    unsigned char *va, local[64];
    aclrtDrvMemHandle a, big;
    ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * g, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&a, g, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&big, 2 * g, &prop, 0));

    /* Size and offset rules. */
    ACL_FAILS(aclrtMapMem(va, g / 2, 0, a, 0));
    ACL_FAILS(aclrtMapMem(va, 2 * g, 0, a, 0));
    ACL_FAILS(aclrtMapMem(va, g, g, a, 0));
    ACL_FAILS_WITH(aclrtMapMem(va, g, 0, a, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va, 0, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(NULL, g, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va, g, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    /* Where: inside a reservation, aligned, not past its end, not over a mapping
     * (the codes of these driver-level refusals are undocumented). */
    ACL_FAILS_WITH(aclrtMapMem(local, g, 0, a, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS(aclrtMapMem(va + 4096, g, 0, a, 0));
    ACL_FAILS(aclrtMapMem(va + 3 * g, 2 * g, 0, big, 0));
    ACL_OK(aclrtMapMem(va + g, g, 0, a, 0));
    ACL_FAILS(aclrtMapMem(va + g, g, 0, a, 0));
    ACL_FAILS(aclrtMapMem(va, 2 * g, 0, big, 0));
    /* A handle not made by ACL, or of another kind. */
    aclrtStream s = compat_new_stream();
    ACL_FAILS_WITH(aclrtMapMem(va + 2 * g, g, 0, (aclrtDrvMemHandle)s, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMapMem(va + 2 * g, g, 0, (aclrtDrvMemHandle)local, 0),
                   ACL_ERROR_INVALID_PARAM);

    /* Unmap and release rules. */
    ACL_FAILS_WITH(aclrtUnmapMem(va), ACL_ERROR_INVALID_PARAM);          /* nothing mapped there */
    ACL_FAILS_WITH(aclrtUnmapMem(va + g + 64), ACL_ERROR_INVALID_PARAM); /* inside a mapping */
    ACL_FAILS_WITH(aclrtUnmapMem(local), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtUnmapMem(NULL), ACL_ERROR_INVALID_PARAM);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtUnmapMem(dev), ACL_ERROR_INVALID_PARAM); /* aclrtMalloc memory */
    ACL_FAILS(aclrtReleaseMemAddress(va));                       /* still mapped */
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
    ACL_FAILS(aclrtReserveMemAddress(&p, g, 64, NULL, 0));
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

/* aclrtMemMapNoAccess: nothing may touch the range until aclrtMemSetAccess
 * opens it; read-only access refuses writes; aclrtMemGetAccess reports it. */
COMPAT_TEST(test_access,
            "aclrtMemMapNoAccess leaves the range inaccessible until aclrtMemSetAccess; "
            "aclrtMemGetAccess reports each location's flags",
            "API ref aclrtMemMapNoAccess, aclrtMemSetAccess, aclrtMemGetAccess")
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
    ACL_OK(aclrtMemGetAccess(va, &dev0, &flags));
    ck_assert_uint_eq(flags, ACL_RT_MEM_ACCESS_FLAGS_READ);
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

/* aclrtMemRetainAllocationHandle returns the handle behind a mapping; each
 * retain is undone by one aclrtFreePhysical. */
COMPAT_TEST(test_retain_and_properties,
            "aclrtMemRetainAllocationHandle returns the mapped handle and each retain needs one "
            "aclrtFreePhysical; the handle's properties are what was allocated",
            "API ref aclrtMemRetainAllocationHandle, aclrtMemGetAllocationPropertiesFromHandle")
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

/* Host memory: mapped, the host reaches it directly. */
COMPAT_TEST(test_host_physical,
            "physical host memory mapped into a reserved range is reachable by the host and copied "
            "as host memory",
            "API ref aclrtMallocPhysical (host or device physical memory)")
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

/* aclrtMemMapSelectedLink maps a second range to the same memory. */
COMPAT_TEST(test_selected_link_alias,
            "aclrtMemMapSelectedLink maps a reserved range to the physical memory behind mapped "
            "addresses; each mapping is unmapped once; aclrtMemMapSetLink checks its link type",
            "API ref aclrtMemMapSelectedLink; acl_rt.h aclrtMemMapSetLink")
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
    ACL_FAILS(aclrtMemMapSetLink(h1, (aclrtMemLinkType)7));
    ACL_FAILS_WITH(aclrtMemMapSetLink(NULL, ACL_RT_MEM_ACCESS_LINK_SIO), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFreePhysical(h1));
    ACL_OK(aclrtFreePhysical(h2));
    ACL_OK(aclrtReleaseMemAddress(a));
    ACL_OK(aclrtReleaseMemAddress(b));
}

/* Reservations at a chosen address. */
COMPAT_TEST(test_reserve_at_address,
            "aclrtReserveMemAddress(NoUCMemory) reserve at the requested address or fail "
            "(ACL_ERROR_RT_MEMORY_ALLOCATION where it is in use); the NoUC variant needs a 1 GiB "
            "multiple and an address",
            "API ref aclrtReserveMemAddress (expectPtr), aclrtReserveMemAddressNoUCMemory")
{
    void *first, *at, *again;
    ACL_OK(aclrtReserveMemAddress(&first, GIB, 0, NULL, 0));
    ACL_OK(aclrtReleaseMemAddress(first));
    ACL_OK(aclrtReserveMemAddress(&at, GIB, 0, first, 0));
    ck_assert_ptr_eq(at, first);
    /* Taken now. */
    ACL_FAILS_WITH(aclrtReserveMemAddress(&again, GIB, 0, first, 0),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
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

COMPAT_TEST(test_p2p_map_and_mem_types,
            "aclrtMemP2PMap checks device memory and the device; aclrtCheckMemType answers 1 when "
            "every address has one of the requested types",
            "API ref aclrtMemP2PMap, aclrtCheckMemType; [impl] rtsCheckMemType checks")
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

COMPAT_TEST(test_malloc_for_task_scheduler,
            "aclrtMallocForTaskScheduler allocates device memory freed by aclrtFree; a policy "
            "outside the enum picks pages by size",
            "API ref aclrtMallocForTaskScheduler")
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

/* ---- bad arguments ---------------------------------------------------------------- */

static aclrtPhysicalMemProp vmm_prop(void)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    return prop;
}

/* Pointers that are no mapping or reservation of ours. */
#define FOR_EACH_BAD_VA(va, call)                                                                  \
    do {                                                                                           \
        compat_buffers b_ = compat_buffers_make();                                                 \
        unsigned char local_[64];                                                                  \
        void *bad_[] = {NULL, local_, b_.device, b_.pinned, (void *)(uintptr_t)16};                \
        const char *what_[] = {"NULL", "a local variable", "device memory", "page-locked memory",  \
                               "address 16"};                                                      \
        for (size_t i_ = 0; i_ < sizeof bad_ / sizeof bad_[0]; i_++) {                             \
            void *va = bad_[i_];                                                                   \
            if (i_ == 0)                                                                           \
                REJECTS(call, ANY_ERROR, what_[i_]);                                               \
            else                                                                                   \
                REJECTS_HOSTILE(call, ANY_ERROR, what_[i_]);                                       \
        }                                                                                          \
        compat_buffers_free(&b_);                                                                  \
    } while (0)

/* Handles that are no physical memory handle. */
#define FOR_EACH_BAD_PHYS(h, call)                                                                 \
    do {                                                                                           \
        aclrtStream s_ = compat_new_stream();                                                      \
        unsigned char local_[64];                                                                  \
        aclrtPhysicalMemProp p_ = vmm_prop();                                                      \
        aclrtDrvMemHandle freed_;                                                                  \
        size_t g_;                                                                                 \
        ACL_OK(aclrtMemGetAllocationGranularity(&p_, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g_));  \
        ACL_OK(aclrtMallocPhysical(&freed_, g_, &p_, 0));                                          \
        ACL_OK(aclrtFreePhysical(freed_));                                                         \
        void *bad_[] = {NULL, local_, s_, freed_, (void *)(uintptr_t)16};                          \
        const char *what_[] = {"NULL", "a local variable", "a stream", "a freed handle",           \
                               "address 16"};                                                      \
        for (size_t i_ = 0; i_ < sizeof bad_ / sizeof bad_[0]; i_++) {                             \
            aclrtDrvMemHandle h = bad_[i_];                                                        \
            if (i_ == 0)                                                                           \
                REJECTS(call, ACL_ERROR_INVALID_PARAM, what_[i_]);                                 \
            else                                                                                   \
                REJECTS_HOSTILE(call, ACL_ERROR_INVALID_PARAM, what_[i_]);                         \
        }                                                                                          \
        ACL_OK(aclrtDestroyStream(s_));                                                            \
    } while (0)

ROW(aclrtReserveMemAddress)
{
    REJECTS(aclrtReserveMemAddress(NULL, 4096, 0, NULL, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL virPtr");
}

ROW(aclrtReserveMemAddressNoUCMemory)
{
    void *p;
    REJECTS(aclrtReserveMemAddressNoUCMemory(NULL, (size_t)1 << 30, 0, NULL, 0),
            ACL_ERROR_INVALID_PARAM, "a NULL virPtr");
    REJECTS(aclrtReserveMemAddressNoUCMemory(&p, (size_t)1 << 30, 0, NULL, 0),
            ACL_ERROR_INVALID_PARAM, "a NULL expectPtr");
}

ROW(aclrtReleaseMemAddress)
{
    FOR_EACH_BAD_VA(va, aclrtReleaseMemAddress(va));
}

ROW(aclrtMallocPhysical)
{
    aclrtPhysicalMemProp prop = vmm_prop();
    aclrtDrvMemHandle h;
    REJECTS(aclrtMallocPhysical(NULL, 4096, &prop, 0), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(aclrtMallocPhysical(&h, 4096, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL prop");
}

ROW(aclrtFreePhysical)
{
    FOR_EACH_BAD_PHYS(h, aclrtFreePhysical(h));
}

ROW(aclrtMemGetAllocationGranularity)
{
    aclrtPhysicalMemProp prop = vmm_prop();
    size_t g;
    REJECTS(aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
            ACL_ERROR_INVALID_PARAM, "a NULL prop");
    REJECTS(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL granularity");
}

ROW(aclrtMapMem)
{
    void *va;
    ACL_OK(aclrtReserveMemAddress(&va, (size_t)2 << 20, 0, NULL, 0));
    FOR_EACH_BAD_PHYS(h, aclrtMapMem(va, (size_t)2 << 20, 0, h, 0));
    aclrtPhysicalMemProp prop = vmm_prop();
    aclrtDrvMemHandle h;
    size_t g;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    FOR_EACH_BAD_VA(bad, aclrtMapMem(bad, g, 0, h, 0));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
}

ROW(aclrtMemMapNoAccess)
{
    void *va;
    ACL_OK(aclrtReserveMemAddress(&va, (size_t)2 << 20, 0, NULL, 0));
    FOR_EACH_BAD_PHYS(h, aclrtMemMapNoAccess(va, (size_t)2 << 20, 0, h, 0));
    ACL_OK(aclrtReleaseMemAddress(va));
}

ROW(aclrtUnmapMem)
{
    FOR_EACH_BAD_VA(va, aclrtUnmapMem(va));
}

ROW(aclrtMemSetAccess)
{
    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    FOR_EACH_BAD_VA(va, aclrtMemSetAccess(va, 4096, &desc, 1));
}

ROW(aclrtMemGetAccess)
{
    aclrtMemLocation loc = {.id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE};
    uint64_t flags;
    FOR_EACH_BAD_VA(va, aclrtMemGetAccess(va, &loc, &flags));
}

ROW(aclrtMemRetainAllocationHandle)
{
    aclrtDrvMemHandle h;
    FOR_EACH_BAD_VA(va, aclrtMemRetainAllocationHandle(va, &h));
}

ROW(aclrtMemGetAllocationPropertiesFromHandle)
{
    aclrtPhysicalMemProp prop;
    FOR_EACH_BAD_PHYS(h, aclrtMemGetAllocationPropertiesFromHandle(h, &prop));
}

ROW(aclrtMemGetAddressRange)
{
    void *base;
    size_t size;
    unsigned char local[16];
    REJECTS(aclrtMemGetAddressRange(NULL, &base, &size), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS_HOSTILE(aclrtMemGetAddressRange(local, &base, &size), ACL_ERROR_INVALID_PARAM,
                    "a local variable");
}

ROW(aclrtMemP2PMap)
{
    unsigned char local[16];
    REJECTS(aclrtMemP2PMap(NULL, 16, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    REJECTS_HOSTILE(aclrtMemP2PMap(local, 16, 0, 0), ACL_ERROR_INVALID_PARAM, "a local variable");
}

ROW(aclrtMemMapSelectedLink)
{
    FOR_EACH_BAD_VA(va, aclrtMemMapSelectedLink(va, 4096, va, 0));
}

ROW(aclrtMemMapSetLink)
{
    FOR_EACH_BAD_PHYS(h, aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_SIO));
}

ROW(aclrtMemExportToShareableHandle)
{
    uint64_t shareable;
    FOR_EACH_BAD_PHYS(h,
                      aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable));
}

ROW(aclrtMemExportToShareableHandleV2)
{
    uint64_t shareable;
    FOR_EACH_BAD_PHYS(
        h, aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &shareable));
}

ROW(aclrtMemImportFromShareableHandle)
{
    aclrtDrvMemHandle h;
    REJECTS(aclrtMemImportFromShareableHandle(1, 0, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL handle");
    REJECTS_HOSTILE(aclrtMemImportFromShareableHandle(UINT64_MAX, 0, &h), ANY_ERROR,
                    "a shareable handle of nobody");
}

ROW(aclrtMemImportFromShareableHandleV2)
{
    aclrtDrvMemHandle h;
    uint64_t shareable = UINT64_MAX;
    REJECTS(aclrtMemImportFromShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h),
            ACL_ERROR_INVALID_PARAM, "a NULL shareableHandle");
    REJECTS(
        aclrtMemImportFromShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, NULL),
        ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS_HOSTILE(
        aclrtMemImportFromShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h),
        ANY_ERROR, "a shareable handle of nobody");
}

ROW(aclrtMemSetPidToShareableHandle)
{
    int32_t pid = 1;
    REJECTS(aclrtMemSetPidToShareableHandle(1, NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL pid");
    REJECTS_HOSTILE(aclrtMemSetPidToShareableHandle(UINT64_MAX, &pid, 1), ACL_ERROR_INVALID_PARAM,
                    "a shareable handle of nobody");
}

ROW(aclrtMemSetPidToShareableHandleV2)
{
    int32_t pid = 1;
    uint64_t shareable = UINT64_MAX;
    REJECTS(aclrtMemSetPidToShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1),
            ACL_ERROR_INVALID_PARAM, "a NULL shareableHandle");
    REJECTS(
        aclrtMemSetPidToShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL, 1),
        ACL_ERROR_INVALID_PARAM, "a NULL pid");
    REJECTS_HOSTILE(
        aclrtMemSetPidToShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1),
        ACL_ERROR_INVALID_PARAM, "a shareable handle of nobody");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtReserveMemAddress),
    COMPAT_ROW(aclrtReserveMemAddressNoUCMemory),
    COMPAT_ROW(aclrtReleaseMemAddress),
    COMPAT_ROW(aclrtMallocPhysical),
    COMPAT_ROW(aclrtFreePhysical),
    COMPAT_ROW(aclrtMemGetAllocationGranularity),
    COMPAT_ROW(aclrtMapMem),
    COMPAT_ROW(aclrtMemMapNoAccess),
    COMPAT_ROW(aclrtUnmapMem),
    COMPAT_ROW(aclrtMemSetAccess),
    COMPAT_ROW(aclrtMemGetAccess),
    COMPAT_ROW(aclrtMemRetainAllocationHandle),
    COMPAT_ROW(aclrtMemGetAllocationPropertiesFromHandle),
    COMPAT_ROW(aclrtMemGetAddressRange),
    COMPAT_ROW(aclrtMemP2PMap),
    COMPAT_ROW(aclrtMemMapSelectedLink),
    COMPAT_ROW(aclrtMemMapSetLink),
    COMPAT_ROW(aclrtMemExportToShareableHandle),
    COMPAT_ROW(aclrtMemExportToShareableHandleV2),
    COMPAT_ROW(aclrtMemImportFromShareableHandle),
    COMPAT_ROW(aclrtMemImportFromShareableHandleV2),
    COMPAT_ROW(aclrtMemSetPidToShareableHandle),
    COMPAT_ROW(aclrtMemSetPidToShareableHandleV2),
};
COMPAT_BAD_ARGS(vmm, rows);

Suite *compat_suite_vmm(void);
Suite *compat_suite_vmm(void)
{
    Suite *s = suite_create("vmm");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
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
    compat_add_bad_args(s, &compat_rows_vmm);
    return s;
}

COMPAT_MAIN(vmm)
