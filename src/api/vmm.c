/* Virtual memory (acl_rt.h): reserved ranges, physical memory, mappings,
 * access, and the link choices. The rules are in core/vmm.h; this file
 * checks arguments in CANN's order. */
#include "api/api.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/vmm.h"

ACL_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                     aclrtMemGranularityOptions option,
                                                     size_t *granularity)
{
    if (prop == NULL || granularity == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         prop == NULL ? "prop" : "granularity");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_granularity(__func__, prop, option, granularity);
}

static aclError reserve(const char *func, void **vir_ptr, size_t size, size_t alignment,
                        void *expect_ptr, uint64_t flags, bool no_uc)
{
    if (vir_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    /* 1 is kept for compatibility with early releases, as in CANN. */
    if (flags != 0 && flags != 1)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "flags %llu must be 0",
                         (unsigned long long)flags);
    aclError ret = BACKEND_REQUIRE(func, vmm);
    return ret != ACL_SUCCESS ? ret
                              : vmm_reserve(func, vir_ptr, size, alignment, expect_ptr, no_uc);
}

ACL_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
                                           void *expectPtr, uint64_t flags)
{
    return reserve(__func__, virPtr, size, alignment, expectPtr, flags, false);
}

/* On a GPU every access goes through the L2 cache, so a range that must
 * not hold uncached memory is just a range; the address rules still apply. */
ACL_EXPORT aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
                                                     void *expectPtr, uint64_t flags)
{
    return reserve(__func__, virPtr, size, alignment, expectPtr, flags, true);
}

ACL_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
    if (virPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_release(__func__, virPtr);
}

ACL_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                        const aclrtPhysicalMemProp *prop, uint64_t flags)
{
    if (handle == NULL || prop == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "prop");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags %llu is reserved and must be 0",
                         (unsigned long long)flags);
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "prop->handleType %d must be ACL_MEM_HANDLE_TYPE_NONE",
                         (int)prop->handleType);
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "prop->allocationType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED",
                         (int)prop->allocationType);
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_phys_create(__func__, handle, size, prop);
}

ACL_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_phys_free(__func__, handle);
}

static aclError map(const char *func, void *vir_ptr, size_t size, size_t offset,
                    aclrtDrvMemHandle handle, uint64_t flags, bool accessible)
{
    if (vir_ptr == NULL || handle == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         vir_ptr == NULL ? "virPtr" : "handle");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "flags %llu is reserved and must be 0",
                         (unsigned long long)flags);
    aclError ret = BACKEND_REQUIRE(func, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_map(func, vir_ptr, size, offset, handle, accessible);
}

ACL_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                uint64_t flags)
{
    return map(__func__, virPtr, size, offset, handle, flags, true);
}

ACL_EXPORT aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset,
                                        aclrtDrvMemHandle handle, uint64_t flags)
{
    return map(__func__, virPtr, size, offset, handle, flags, false);
}

ACL_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
    if (virPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_unmap(__func__, virPtr);
}

ACL_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc,
                                      size_t count)
{
    if (virPtr == NULL || desc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", virPtr == NULL ? "virPtr" : "desc");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_set_access(__func__, virPtr, size, desc, count);
}

ACL_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    if (virPtr == NULL || location == NULL || flag == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         virPtr == NULL     ? "virPtr"
                         : location == NULL ? "location"
                                            : "flag");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_get_access(__func__, virPtr, location, flag);
}

ACL_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    if (virPtr == NULL || handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         virPtr == NULL ? "virPtr" : "handle");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_retain(__func__, virPtr, handle);
}

ACL_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                              aclrtPhysicalMemProp *prop)
{
    if (handle == NULL || prop == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "prop");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_properties(__func__, handle, prop);
}

/* The allocation (or mapping) holding ptr: any memory ACL recorded. */
ACL_EXPORT aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (pbase == NULL && psize == NULL)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "pbase and psize are both NULL");
    mem_block b;
    if (!registry_find(ptr, &b))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "%p lies in no memory ACL allocated, mapped, imported or registered", ptr);
    if (pbase)
        *pbase = (void *)b.base;
    if (psize)
        *psize = b.size;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)
{
    if (devPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags %llu is reserved and must be 0",
                         (unsigned long long)flags);
    int32_t phys;
    if (device_to_phys(dstDevId, &phys) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d visible)",
                         dstDevId, device_visible_count());
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_p2p_map(__func__, devPtr, size, phys, dstDevId);
}

/* Links between dies (SIO, HCCS) are Ascend's: a GPU picks its own path
 * (NVLink or PCIe). The link index is checked and the alias is made. */
ACL_EXPORT aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc,
                                            uint32_t linkIdx)
{
    if (virPtrDst == NULL || virPtrSrc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         virPtrDst == NULL ? "virPtrDst" : "virPtrSrc");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (linkIdx > ACL_RT_MEM_LINK_IDX_1)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "linkIdx %u must be 0 (SIO) or 1 (HCCS)",
                         (unsigned)linkIdx);
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_map_alias(__func__, virPtrDst, size, virPtrSrc);
}

/* The advice is kept with the handle; a GPU picks its own path. */
ACL_EXPORT aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink)
{
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_set_link(__func__, handle, adviceLink);
}
