#include <pthread.h>
#include <stdbool.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

driver_table drv;
static bool driver_found;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void driver_load(void)
{
    enum cudaDriverEntryPointQueryResult status;
    bool any = false;
#define DRIVER_LOOKUP(name, version)                                                               \
    if (cudaGetDriverEntryPointByVersion(#name, (void **)&drv.name, version, cudaEnableDefault,    \
                                         &status) != cudaSuccess ||                                \
        status != cudaDriverEntryPointSuccess) {                                                   \
        (void)cudaGetLastError();                                                                  \
        drv.name = NULL;                                                                           \
    } else {                                                                                       \
        any = true;                                                                                \
    }
    DRIVER_FUNCTIONS(DRIVER_LOOKUP)
#undef DRIVER_LOOKUP
    driver_found = any;
}

bool driver_ready(void)
{
    pthread_once(&driver_once, driver_load);
    return driver_found;
}

aclError from_cu(CUresult result)
{
    switch (result) {
    case CUDA_SUCCESS:
        return ACL_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
        return ACL_ERROR_RT_PARAM_INVALID;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    case CUDA_ERROR_INVALID_DEVICE:
        return ACL_ERROR_RT_INVALID_DEVICEID;
    case CUDA_ERROR_NOT_SUPPORTED:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case CUDA_ERROR_NOT_PERMITTED:
        return ACL_ERROR_RT_NO_PERMISSION;
    case CUDA_ERROR_NOT_READY:
        return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    case CUDA_ERROR_NOT_FOUND:
        return ACL_ERROR_RT_PARAM_INVALID;
    default:
        /* The runtime's codes share the driver's numbers for these. */
        return from_cuda((cudaError_t)result);
    }
}
