/* Virtual memory (acl_rt.h): reserved ranges, physical memory, mappings,
 * access, and the link choices. The rules are in core/vmm.h; this file
 * checks arguments in CANN's order. */
#include <string.h>

#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/share.h"
#include "core/memory.h"
#include "core/vmm.h"

ACL_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                     aclrtMemGranularityOptions option,
                                                     size_t *granularity)
{
    PROF_API();
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
    PROF_API();
    return reserve(__func__, virPtr, size, alignment, expectPtr, flags, false);
}

/* On a GPU every access goes through the L2 cache, so a range that must
 * not hold uncached memory is just a range; the address rules still apply. */
ACL_EXPORT aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
                                                     void *expectPtr, uint64_t flags)
{
    PROF_API();
    return reserve(__func__, virPtr, size, alignment, expectPtr, flags, true);
}

ACL_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
    PROF_API();
    if (virPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_release(__func__, virPtr);
}

ACL_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                        const aclrtPhysicalMemProp *prop, uint64_t flags)
{
    PROF_API();
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
    PROF_API();
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
    PROF_API();
    return map(__func__, virPtr, size, offset, handle, flags, true);
}

ACL_EXPORT aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset,
                                        aclrtDrvMemHandle handle, uint64_t flags)
{
    PROF_API();
    return map(__func__, virPtr, size, offset, handle, flags, false);
}

ACL_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
    PROF_API();
    if (virPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_unmap(__func__, virPtr);
}

ACL_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc,
                                      size_t count)
{
    PROF_API();
    if (virPtr == NULL || desc == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", virPtr == NULL ? "virPtr" : "desc");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_set_access(__func__, virPtr, size, desc, count);
}

ACL_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    PROF_API();
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
    PROF_API();
    if (virPtr == NULL || handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         virPtr == NULL ? "virPtr" : "handle");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_retain(__func__, virPtr, handle);
}

ACL_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                              aclrtPhysicalMemProp *prop)
{
    PROF_API();
    if (handle == NULL || prop == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "prop");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_properties(__func__, handle, prop);
}

/* The allocation (or mapping) holding ptr: any memory ACL recorded. */
ACL_EXPORT aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_set_link(__func__, handle, adviceLink);
}

/* ---- shareable handles ----------------------------------------------------------------- */

/* A 64-bit shareable handle: the exporting process and its broker's
 * entry, whose id is SHARE_SHORT_ID_BITS random bits (share.h); an
 * aclrtMemFabricHandle holds the whole name (with its nonce) behind a
 * tag. */
#define SHORT_ID_MASK ((UINT64_C(1) << SHARE_SHORT_ID_BITS) - 1)

static uint64_t handle_u64(const share_name *name)
{
    return (uint64_t)(uint32_t)name->pid << SHARE_SHORT_ID_BITS | (name->id & SHORT_ID_MASK);
}

static share_name name_of_u64(uint64_t h)
{
    return (share_name){.pid = (int32_t)(h >> SHARE_SHORT_ID_BITS), .id = h & SHORT_ID_MASK};
}

static const char fabric_tag[8] = {'a', 'c', 'l', 'f', 'a', 'b', 'r', 1};

static void name_to_fabric(const share_name *name, aclrtMemFabricHandle *f)
{
    memset(f, 0, sizeof *f);
    memcpy(f->data, fabric_tag, sizeof fabric_tag);
    memcpy(f->data + sizeof fabric_tag, name, sizeof *name);
}

static bool fabric_to_name(const aclrtMemFabricHandle *f, share_name *name)
{
    if (memcmp(f->data, fabric_tag, sizeof fabric_tag) != 0)
        return false;
    memcpy(name, f->data + sizeof fabric_tag, sizeof *name);
    return true;
}

static aclError share_type_valid(const char *func, aclrtMemSharedHandleType type)
{
    if (type != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && type != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID,
                         "shareType %d is not ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT or _FABRIC",
                         (int)type);
    return ACL_SUCCESS;
}

/* The name a V2 shareable handle of type `type` holds. */
static aclError name_of(const char *func, const void *shareable, aclrtMemSharedHandleType type,
                        share_name *name)
{
    if (type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
        *name = name_of_u64(*(const uint64_t *)shareable);
        return ACL_SUCCESS;
    }
    if (!fabric_to_name(shareable, name))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "the fabric handle was not made by aclrtMemExportToShareableHandleV2");
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
                                                    aclrtMemHandleType handleType, uint64_t flags,
                                                    uint64_t *shareableHandle)
{
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handleType %d must be ACL_MEM_HANDLE_TYPE_NONE",
                         (int)handleType);
    if (shareableHandle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "shareableHandle is NULL");
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]",
                         (unsigned long long)flags);
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    share_name name;
    if (ret == ACL_SUCCESS)
        ret = vmm_export(__func__, handle, flags != ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                         &name);
    if (ret == ACL_SUCCESS)
        *shareableHandle = handle_u64(&name);
    return ret;
}

ACL_EXPORT aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                      aclrtMemSharedHandleType shareType,
                                                      void *shareableHandle)
{
    PROF_API();
    if (handle == NULL || shareableHandle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         handle == NULL ? "handle" : "shareableHandle");
    aclError ret = share_type_valid(__func__, shareType);
    if (ret != ACL_SUCCESS)
        return ret;
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]",
                         (unsigned long long)flags);
    ret = BACKEND_REQUIRE(__func__, vmm);
    share_name name;
    if (ret == ACL_SUCCESS)
        ret = vmm_export(__func__, handle, flags != ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                         &name);
    if (ret != ACL_SUCCESS)
        return ret;
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
        *(uint64_t *)shareableHandle = handle_u64(&name);
    else
        name_to_fabric(&name, shareableHandle);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid,
                                                    size_t pidNum)
{
    PROF_API();
    if (pid == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pid is NULL");
    if (pidNum == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    share_name name = name_of_u64(shareableHandle);
    return ret != ACL_SUCCESS ? ret : vmm_allow(__func__, &name, pid, pidNum);
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
                                                      aclrtMemSharedHandleType shareType,
                                                      int32_t *pid, size_t pidNum)
{
    PROF_API();
    if (shareableHandle == NULL || pid == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         shareableHandle == NULL ? "shareableHandle" : "pid");
    if (pidNum == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
    aclError ret = share_type_valid(__func__, shareType);
    share_name name;
    if (ret == ACL_SUCCESS)
        ret = name_of(__func__, shareableHandle, shareType, &name);
    if (ret == ACL_SUCCESS)
        ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_allow(__func__, &name, pid, pidNum);
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                      aclrtDrvMemHandle *handle)
{
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, vmm);
    share_name name = name_of_u64(shareableHandle);
    return ret != ACL_SUCCESS ? ret : vmm_import(__func__, &name, deviceId, handle);
}

/* The memory is imported for the current device, as CANN does. */
ACL_EXPORT aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
                                                        aclrtMemSharedHandleType shareType,
                                                        uint64_t flags, aclrtDrvMemHandle *handle)
{
    PROF_API();
    if (shareableHandle == NULL || handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         shareableHandle == NULL ? "shareableHandle" : "handle");
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags %llu is reserved and must be 0",
                         (unsigned long long)flags);
    acl_context *ctx;
    aclError ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    int32_t device = ctx->device;
    context_put(ctx);
    ret = share_type_valid(__func__, shareType);
    share_name name;
    if (ret == ACL_SUCCESS)
        ret = name_of(__func__, shareableHandle, shareType, &name);
    if (ret == ACL_SUCCESS)
        ret = BACKEND_REQUIRE(__func__, vmm);
    return ret != ACL_SUCCESS ? ret : vmm_import(__func__, &name, device, handle);
}
