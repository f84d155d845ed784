/* Registered host memory (acl_rt.h): ranges of the process's own memory
 * made reachable by the device or page-locked. The rules are in
 * core/hostmem.h; this file checks arguments in CANN's order (the
 * library's checks answer ACL_ERROR_INVALID_PARAM, the runtime's
 * ACL_ERROR_RT_PARAM_INVALID). */
#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/hostmem.h"

/* The caller's backend device: registrations need a current context. */
static aclError current_phys(const char *func, int32_t *phys)
{
    acl_context *ctx;
    aclError ret = current_context_get(func, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    *phys = ctx->phys;
    context_put(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
                                      void **devPtr)
{
    PROF_API();
    if (ptr == NULL || devPtr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", ptr == NULL ? "ptr" : "devPtr");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    /* IOMEMORY is reserved: no device here maps I/O space of a third-party
     * PCIe device. READONLY maps memory the device only reads. */
    if (type != ACL_HOST_REGISTER_MAPPED && type != ACL_HOST_REGISTER_READONLY)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "type %d is not supported; ACL_HOST_REGISTER_MAPPED and _READONLY are",
                         (int)type);
    aclError ret = BACKEND_REQUIRE(__func__, host_register);
    int32_t phys;
    if (ret == ACL_SUCCESS)
        ret = current_phys(__func__, &phys);
    if (ret != ACL_SUCCESS)
        return ret;
    uint32_t flags = ACL_HOST_REG_MAPPED;
    if (type == ACL_HOST_REGISTER_READONLY)
        flags |= ACL_HOST_REG_READONLY;
    return hostmem_register(__func__, phys, ptr, size, flags, devPtr);
}

ACL_EXPORT aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (size == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is 0");
    const uint32_t known =
        ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;
    if (flag == 0 || (flag & ~known) != 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID,
                         "flag 0x%x is not an OR of ACL_HOST_REG_MAPPED (0x2), "
                         "ACL_HOST_REG_IOMEMORY (0x4), ACL_HOST_REG_READONLY (0x8) and "
                         "ACL_HOST_REG_PINNED (0x10000000)",
                         (unsigned)flag);
    if (flag & ACL_HOST_REG_IOMEMORY)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "ACL_HOST_REG_IOMEMORY is reserved and not supported");
    aclError ret = BACKEND_REQUIRE(__func__, host_register);
    int32_t phys;
    if (ret == ACL_SUCCESS)
        ret = current_phys(__func__, &phys);
    if (ret != ACL_SUCCESS)
        return ret;
    return hostmem_register(__func__, phys, ptr, size, flag, NULL);
}

ACL_EXPORT aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    PROF_API();
    if (pHost == NULL || pDevice == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         pHost == NULL ? "pHost" : "pDevice");
    if (flag != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag %u is reserved and must be 0",
                         (unsigned)flag);
    aclError ret = BACKEND_REQUIRE(__func__, host_register);
    int32_t phys;
    if (ret == ACL_SUCCESS)
        ret = current_phys(__func__, &phys);
    if (ret != ACL_SUCCESS)
        return ret;
    return hostmem_device_pointer(__func__, phys, pHost, pDevice);
}

ACL_EXPORT aclError aclrtHostUnregister(void *ptr)
{
    PROF_API();
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, host_register);
    int32_t phys;
    if (ret == ACL_SUCCESS)
        ret = current_phys(__func__, &phys);
    if (ret != ACL_SUCCESS)
        return ret;
    return hostmem_unregister(__func__, phys, ptr);
}

/* The engines of a GPU that reach mapped host memory: its compute units
 * (AI Core and AI Vector's counterparts, where the device can map host
 * memory at all) and its copy engines (the DMA engines' counterparts). It
 * has no task scheduler, AI CPU, RDMA, DVPP, UDMA or CCU engine. */
ACL_EXPORT aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                                aclrtHostMemMapCapability *capabilities)
{
    PROF_API();
    if (capabilities == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "capabilities is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, host_register);
    if (ret != ACL_SUCCESS)
        return ret;
    if (deviceId > INT32_MAX)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "deviceId %u is out of range",
                         (unsigned)deviceId);
    int32_t phys;
    ret = device_resolve(__func__, (int32_t)deviceId, &phys);
    if (ret != ACL_SUCCESS)
        return ret;
    if ((uint32_t)hacType > ACL_RT_HAC_TYPE_CCU)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "hacType %d is not in [0, %d]", (int)hacType,
                         ACL_RT_HAC_TYPE_CCU);
    bool reach = false;
    switch (hacType) {
    case ACL_RT_HAC_TYPE_AIC:
    case ACL_RT_HAC_TYPE_AIV:
        ret = backend()->host_register->can_map(phys, &reach);
        if (ret != ACL_SUCCESS)
            return ACL_RAISE(ret, "cannot ask device %u: %s", (unsigned)deviceId,
                             acl_error_text(ret));
        break;
    case ACL_RT_HAC_TYPE_PCIEDMA:
    case ACL_RT_HAC_TYPE_SDMA:
        reach = true;
        break;
    default:
        reach = false;
        break;
    }
    *capabilities = reach ? ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
    return ACL_SUCCESS;
}
