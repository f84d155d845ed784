/* CUDA errors as ACL codes. */
#include "backend/cuda/cuda.h"

aclError from_cuda(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return ACL_SUCCESS;

    case cudaErrorInvalidValue:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidHostPointer:
    case cudaErrorPeerAccessNotEnabled:
    case cudaErrorPeerAccessAlreadyEnabled:
        return ACL_ERROR_RT_PARAM_INVALID;

    case cudaErrorMemoryAllocation:
        return ACL_ERROR_RT_MEMORY_ALLOCATION;

    case cudaErrorInvalidDevice:
        return ACL_ERROR_RT_INVALID_DEVICEID;

    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
        return ACL_ERROR_RT_NO_DEVICE;

    case cudaErrorNotSupported:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorPeerAccessUnsupported:
    case cudaErrorCompatNotSupportedOnDevice:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;

    case cudaErrorNotPermitted:
        return ACL_ERROR_RT_NO_PERMISSION;

    /* Among others, every call of a process forked from one that used CUDA
     * (docs/porting.md). */
    case cudaErrorInitializationError:
        return ACL_ERROR_RT_DEV_SETUP_ERROR;

    case cudaErrorNotReady:
        return ACL_ERROR_RT_EVENT_NOT_COMPLETE;

    case cudaErrorInvalidResourceHandle:
    case cudaErrorContextIsDestroyed:
        return ACL_ERROR_RT_INVALID_HANDLE;

    case cudaErrorHostMemoryAlreadyRegistered:
        return ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    case cudaErrorHostMemoryNotRegistered:
        return ACL_ERROR_HOST_MEMORY_NOT_REGISTERED;

    case cudaErrorTooManyPeers:
        return ACL_ERROR_RT_OVER_LIMIT;

    /* A kernel (ours never, an interop user's perhaps) faulted: the context
     * is unusable, as after an AI core exception. */
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
        return ACL_ERROR_RT_AICORE_EXCEPTION;

    case cudaErrorLaunchTimeout:
        return ACL_ERROR_RT_AICORE_TIMEOUT;

    case cudaErrorECCUncorrectable:
        return ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR;

    case cudaErrorNvlinkUncorrectable:
        return ACL_ERROR_RT_LINK_ERROR;

    default:
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
}
