/* Registered host memory: aclrtHostRegister(V2), aclrtHostGetDevicePointer,
 * aclrtHostUnregister and aclrtHostMemMapCapabilities. */
#include <stdint.h>
#include <sys/mman.h>

#include "compat.h"
#include "bad_args.h"

enum { PAGE = 4096 };

/* Ordinary (pageable) memory, 4 KiB aligned as registration needs. */
static void *pageable(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    return p;
}

COMPAT_TEST(test_register_mapped,
            "aclrtHostRegister maps 4 KiB-aligned ordinary memory for the device and answers its "
            "device address, which aclrtHostGetDevicePointer answers again; aclrtHostUnregister "
            "ends it",
            "API ref aclrtHostRegister, aclrtHostGetDevicePointer, aclrtHostUnregister")
{
    size_t size = 16 * PAGE;
    unsigned char *host = pageable(size);
    void *dev = NULL, *again = NULL;
    ACL_OK(aclrtHostRegister(host, size, ACL_HOST_REGISTER_MAPPED, &dev));
    ck_assert_ptr_nonnull(dev);
    ACL_OK(aclrtHostGetDevicePointer(host, &again, 0));
    ck_assert_ptr_eq(again, dev);
    ACL_OK(aclrtHostUnregister(host));
    ACL_FAILS_WITH(aclrtHostUnregister(host), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    ACL_FAILS(aclrtHostGetDevicePointer(host, &again, 0));
    munmap(host, size);
}

COMPAT_TEST(test_registered_memory_copies,
            "registered host memory stays host memory for copies: its host address is the source "
            "and destination of copies to and from the device",
            "API ref aclrtHostRegister (host-side processing uses the host address)")
{
    size_t size = 8 * PAGE;
    unsigned char *host = pageable(size);
    for (size_t i = 0; i < size; i++)
        host[i] = (unsigned char)(i * 7 + 3);
    ACL_OK(aclrtHostRegisterV2(host, size, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
    void *dev = compat_device_buffer(size);
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtMemcpyAsync(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, s));
    ACL_OK(aclrtSynchronizeStream(s));
    memset(host, 0, size);
    ACL_OK(aclrtMemcpyAsync(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtSynchronizeStream(s));
    for (size_t i = 0; i < size; i++)
        ck_assert_uint_eq(host[i], (unsigned char)(i * 7 + 3));
    ACL_OK(aclrtHostUnregister(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(dev));
    munmap(host, size);
}

COMPAT_TEST(test_register_v2_flags,
            "aclrtHostRegisterV2 takes ACL_HOST_REG_MAPPED and ACL_HOST_REG_PINNED alone or "
            "together; only a mapped registration has a device address; IOMEMORY is reserved; "
            "READONLY registers where the part supports it (A2, A3) and is refused elsewhere; "
            "a flag outside the four is refused",
            "API ref aclrtHostRegisterV2 (flag), aclrtHostGetDevicePointer, "
            "aclrtHostRegisterType")
{
    size_t size = 4 * PAGE;
    unsigned char *host = pageable(size);
    void *dev;
    ACL_OK(aclrtHostRegisterV2(host, size, ACL_HOST_REG_PINNED));
    ACL_FAILS(aclrtHostGetDevicePointer(host, &dev, 0));
    ACL_OK(aclrtHostUnregister(host));
    ACL_OK(aclrtHostRegisterV2(host, size, ACL_HOST_REG_MAPPED));
    ACL_OK(aclrtHostGetDevicePointer(host, &dev, 0));
    ck_assert_ptr_nonnull(dev);
    ACL_OK(aclrtHostUnregister(host));
    ACL_FAILS(aclrtHostRegisterV2(host, size, ACL_HOST_REG_IOMEMORY));
    if (aclrtHostRegisterV2(host, size, ACL_HOST_REG_READONLY) == ACL_SUCCESS)
        ACL_OK(aclrtHostUnregister(host));
    ACL_FAILS(aclrtHostRegisterV2(host, size, 0));
    ACL_FAILS(aclrtHostRegisterV2(host, size, 0x1));
    ACL_FAILS_WITH(aclrtHostUnregister(host), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    munmap(host, size);
}

COMPAT_TEST(test_register_twice,
            "registering a range again, or a range overlapping a registered one, answers "
            "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED (507910); the first registration stays",
            "rt_error_codes.h ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED; [impl] HostRegisterV2")
{
    size_t size = 8 * PAGE;
    unsigned char *host = pageable(size);
    void *dev;
    ACL_OK(aclrtHostRegisterV2(host, size, ACL_HOST_REG_MAPPED));
    ACL_FAILS_WITH(aclrtHostRegisterV2(host, size, ACL_HOST_REG_MAPPED),
                   ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    ACL_FAILS_WITH(aclrtHostRegisterV2(host + 4 * PAGE, 4 * PAGE, ACL_HOST_REG_PINNED),
                   ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    ACL_OK(aclrtHostGetDevicePointer(host, &dev, 0));
    ACL_OK(aclrtHostUnregister(host));
    munmap(host, size);
}

COMPAT_TEST(test_register_page_locked,
            "memory from aclrtMallocHost can be registered as mapped, but ACL_HOST_REG_PINNED "
            "takes ordinary memory only and refuses page-locked memory",
            "API ref aclrtHostRegister (ptr), aclrtHostRegisterV2 (ACL_HOST_REG_PINNED)")
{
    void *host = NULL, *dev = NULL;
    ACL_OK(aclrtMallocHost(&host, 4 * PAGE));
    if ((uintptr_t)host % PAGE != 0) {
        ACL_OK(aclrtFreeHost(host));
        COMPAT_SKIP("aclrtMallocHost memory is not 4 KiB aligned here");
    }
    ACL_FAILS(aclrtHostRegisterV2(host, 4 * PAGE, ACL_HOST_REG_PINNED));
    ACL_OK(aclrtHostRegister(host, 4 * PAGE, ACL_HOST_REGISTER_MAPPED, &dev));
    ck_assert_ptr_nonnull(dev);
    ACL_OK(aclrtHostUnregister(host));
    ACL_OK(aclrtFreeHost(host));
}

COMPAT_TEST(test_register_reserved_types,
            "aclrtHostRegister's ACL_HOST_REGISTER_IOMEMORY is reserved and not supported; "
            "ACL_HOST_REGISTER_READONLY registers where the part supports it (A2, A3)",
            "API ref aclrtHostRegisterType")
{
    size_t size = 2 * PAGE;
    unsigned char *host = pageable(size);
    void *dev;
    ACL_FAILS(aclrtHostRegister(host, size, ACL_HOST_REGISTER_IOMEMORY, &dev));
    ACL_FAILS_WITH(aclrtHostUnregister(host), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    if (aclrtHostRegister(host, size, ACL_HOST_REGISTER_READONLY, &dev) == ACL_SUCCESS)
        ACL_OK(aclrtHostUnregister(host));
    munmap(host, size);
}

COMPAT_TEST(test_map_capabilities,
            "aclrtHostMemMapCapabilities answers SUPPORTED or NOT_SUPPORTED for every engine type "
            "and refuses a type outside aclrtHacType and a device that does not exist",
            "API ref aclrtHostMemMapCapabilities, aclrtHacType")
{
    for (int t = ACL_RT_HAC_TYPE_STARS; t <= ACL_RT_HAC_TYPE_CCU; t++) {
        aclrtHostMemMapCapability cap = (aclrtHostMemMapCapability)7;
        ACL_OK(aclrtHostMemMapCapabilities(0, (aclrtHacType)t, &cap));
        ck_assert(cap == ACL_RT_HOST_MEM_MAP_SUPPORTED || cap == ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED);
    }
    aclrtHostMemMapCapability cap;
    ACL_FAILS(aclrtHostMemMapCapabilities(0, (aclrtHacType)(ACL_RT_HAC_TYPE_CCU + 1), &cap));
    ACL_FAILS(aclrtHostMemMapCapabilities(compat_device_count() + 7, ACL_RT_HAC_TYPE_AIC, &cap));
}

/* ---- bad arguments ------------------------------------------------------------ */

ROW(aclrtHostRegister)
{
    static _Alignas(PAGE) unsigned char page[PAGE];
    void *dev;
    REJECTS(aclrtHostRegister(NULL, PAGE, ACL_HOST_REGISTER_MAPPED, &dev), ACL_ERROR_INVALID_PARAM,
            "a NULL ptr");
    REJECTS(aclrtHostRegister(page, PAGE, ACL_HOST_REGISTER_MAPPED, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
    REJECTS(aclrtHostRegister(page, 0, ACL_HOST_REGISTER_MAPPED, &dev), ACL_ERROR_INVALID_PARAM,
            "size 0");
    REJECTS_HOSTILE(aclrtHostRegister(page + 1, 16, ACL_HOST_REGISTER_MAPPED, &dev), ANY_ERROR,
                    "a pointer not 4 KiB aligned");
}

ROW(aclrtHostRegisterV2)
{
    static _Alignas(PAGE) unsigned char page[PAGE];
    REJECTS(aclrtHostRegisterV2(NULL, PAGE, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM,
            "a NULL ptr");
    REJECTS(aclrtHostRegisterV2(page, 0, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM, "size 0");
    REJECTS_HOSTILE(aclrtHostRegisterV2(page + 1, 16, ACL_HOST_REG_MAPPED), ANY_ERROR,
                    "a pointer not 4 KiB aligned");
}

ROW(aclrtHostGetDevicePointer)
{
    static _Alignas(PAGE) unsigned char page[PAGE];
    void *dev;
    REJECTS(aclrtHostGetDevicePointer(NULL, &dev, 0), ACL_ERROR_INVALID_PARAM, "a NULL pHost");
    REJECTS(aclrtHostGetDevicePointer(page, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL pDevice");
    REJECTS(aclrtHostGetDevicePointer(page, &dev, 1), ACL_ERROR_INVALID_PARAM,
            "a reserved flag that is not 0");
    REJECTS_HOSTILE(aclrtHostGetDevicePointer(page, &dev, 0), ANY_ERROR,
                    "memory that was never registered");
}

ROW(aclrtHostUnregister)
{
    static _Alignas(PAGE) unsigned char page[PAGE];
    REJECTS(aclrtHostUnregister(NULL), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS_HOSTILE(aclrtHostUnregister(page), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
                    "memory that was never registered");
}

ROW(aclrtHostMemMapCapabilities)
{
    REJECTS(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL capabilities");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtHostRegister),           COMPAT_ROW(aclrtHostRegisterV2),
    COMPAT_ROW(aclrtHostGetDevicePointer),   COMPAT_ROW(aclrtHostUnregister),
    COMPAT_ROW(aclrtHostMemMapCapabilities),
};
COMPAT_BAD_ARGS(host_mem, rows);

Suite *compat_suite_host_mem(void);
Suite *compat_suite_host_mem(void)
{
    Suite *s = suite_create("host_mem");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_register_mapped);
    tcase_add_test(tc, test_registered_memory_copies);
    tcase_add_test(tc, test_register_v2_flags);
    tcase_add_test(tc, test_register_twice);
    tcase_add_test(tc, test_register_page_locked);
    tcase_add_test(tc, test_register_reserved_types);
    tcase_add_test(tc, test_map_capabilities);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_host_mem);
    return s;
}

COMPAT_MAIN(host_mem)
