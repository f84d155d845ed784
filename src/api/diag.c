/* Diagnostics (acl_rt.h): the device-exception callback and the queries of
 * an exception's details. */
#include <stdatomic.h>

#include "api/api.h"
#include "core/device.h"

/* Stored for the API's sake only: acl-cuda never raises device exceptions
 * (a failing CUDA task surfaces as an error code from the next synchronising
 * call instead), so this callback is never called. */
static _Atomic(aclrtExceptionInfoCallback) exception_callback;

ACL_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    atomic_store(&exception_callback, callback);
    return ACL_SUCCESS;
}

/* We never hand out an aclrtExceptionInfo, so no pointer given to the
 * getters can be one of ours; we do not read through it. */
static uint32_t exception_info_unavailable(const char *func, const aclrtExceptionInfo *info)
{
    if (!info)
        acl_raise(func, ACL_ERROR_INVALID_PARAM, "info is NULL");
    else
        acl_raise(func, ACL_ERROR_INVALID_PARAM,
                  "info %p was not made by this library, which reports no device exceptions",
                  (const void *)info);
    return UINT32_MAX;
}

ACL_EXPORT uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

ACL_EXPORT uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return exception_info_unavailable(__func__, info);
}

/* Uncorrectable memory errors. Neither backend learns of any: a GPU with an
 * uncorrectable ECC error reports it as a fatal error of the context (the
 * next synchronising call fails), not as an address to repair, and the host
 * backend's memory is the process's own. So no error is ever listed and
 * there is nothing to repair. */
static aclError uce_device(const char *func, int32_t device_id)
{
    int32_t phys;
    if (device_to_phys(device_id, &phys) != ACL_SUCCESS)
        return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID,
                         "device %d does not exist (%d visible)", device_id,
                         device_visible_count());
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                       size_t arraySize, size_t *retSize)
{
    if (memUceInfoArray == NULL || retSize == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         memUceInfoArray == NULL ? "memUceInfoArray" : "retSize");
    if (arraySize == 0 || arraySize > MAX_MEM_UCE_INFO_ARRAY_SIZE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "arraySize %zu is not in 1..%d", arraySize,
                         MAX_MEM_UCE_INFO_ARRAY_SIZE);
    aclError ret = uce_device(__func__, deviceId);
    if (ret != ACL_SUCCESS)
        return ret;
    *retSize = 0;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                      size_t arraySize)
{
    if (memUceInfoArray == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memUceInfoArray is NULL");
    if (arraySize == 0 || arraySize > MAX_MEM_UCE_INFO_ARRAY_SIZE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "arraySize %zu is not in 1..%d", arraySize,
                         MAX_MEM_UCE_INFO_ARRAY_SIZE);
    aclError ret = uce_device(__func__, deviceId);
    if (ret != ACL_SUCCESS)
        return ret;
    for (size_t i = 0; i < arraySize; i++)
        if (memUceInfoArray[i].addr == NULL || memUceInfoArray[i].len == 0)
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "entry %zu has no address or length", i);
    return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                     "no uncorrectable memory error was reported on device %d (%p is not one): "
                     "there is nothing to repair",
                     deviceId, memUceInfoArray[0].addr);
}
