/* Diagnostics (acl_rt.h): the device-exception callback and the queries of
 * an exception's details. */
#include <stdatomic.h>

#include "api/api.h"

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
