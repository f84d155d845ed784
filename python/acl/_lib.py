"""Loads libascendcl.so and declares the C prototypes the package calls.

Every ctypes prototype of the package lives here, written once from the
public headers (include/acl/acl_base_rt.h, acl_rt.h, acl_rt_allocator.h).
The library is opened with ctypes.CDLL, so a foreign call releases the
GIL while it runs: blocking calls (stream or event synchronisation,
aclrtProcessReport) never stall other Python threads, and a report thread
can run a Python callback while the main thread waits for the stream it
belongs to. The status queries alone (KEEPS_GIL) hold it: they never wait
for anything, and releasing and retaking the GIL is a tenth of such a call.

Where the library is looked for, first hit wins:
  1. $ACLCUDA_LIBRARY, an explicit path (an error if it cannot be loaded);
  2. the locations configure recorded in _build_config.py: the build tree
     (<builddir>/.libs) when this package is imported from that tree, else
     the installed libdir, then the other one;
  3. the dynamic loader's search path (ctypes.util.find_library, then the
     plain names libascendcl.so and libascendcl.so.1).
"""

import ctypes
import ctypes.util
import operator
import os
import types
from ctypes import (CFUNCTYPE, POINTER, Structure, Union, c_char, c_char_p, c_float, c_int, c_int32,
                    c_int64, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

LIBRARY_ENV = "ACLCUDA_LIBRARY"
_SONAMES = ("libascendcl.so", "libascendcl.so.1")

# ---- types from the headers -------------------------------------------------

aclError = c_int
aclrtCallback = CFUNCTYPE(None, c_void_p)
aclrtExceptionInfoCallback = CFUNCTYPE(None, c_void_p)
# acl_rt_allocator.h: an allocator's functions (allocator, block and address are void *)
aclrtAllocatorAllocFunc = CFUNCTYPE(c_void_p, c_void_p, c_size_t)
aclrtAllocatorFreeFunc = CFUNCTYPE(None, c_void_p, c_void_p)
aclrtAllocatorAllocAdviseFunc = CFUNCTYPE(c_void_p, c_void_p, c_size_t, c_void_p)
aclrtAllocatorGetAddrFromBlockFunc = CFUNCTYPE(c_void_p, c_void_p)


class aclrtUtilizationInfo(Structure):
    _fields_ = [("cubeUtilization", c_int32), ("vectorUtilization", c_int32),
                ("aicpuUtilization", c_int32), ("memoryUtilization", c_int32),
                ("utilizationExtend", c_void_p)]


class aclrtMemLocation(Structure):
    _fields_ = [("id", c_uint32), ("type", c_int)]


class aclrtPhysicalMemProp(Structure):
    _fields_ = [("handleType", c_int), ("allocationType", c_int), ("memAttr", c_int),
                ("location", aclrtMemLocation), ("reserve", c_uint64)]


UCE_INFO_RESERVED_SIZE = 14


class aclrtMemUceInfo(Structure):
    _fields_ = [("addr", c_void_p), ("len", c_size_t), ("reserved", c_size_t * UCE_INFO_RESERVED_SIZE)]


class aclrtPtrAttributes(Structure):
    _fields_ = [("location", aclrtMemLocation), ("pageSize", c_uint32), ("rsv", c_uint32 * 4)]


class aclrtUuid(Structure):
    _fields_ = [("bytes", c_char * 16)]


class aclmdlRICondTaskParams(Structure):
    _fields_ = [("handle", c_void_p), ("type", c_int), ("size", c_uint32),
                ("modelRIArray", c_void_p)]


class aclrtStreamAttrValue(Union):
    _fields_ = [("failureMode", c_uint64), ("overflowSwitch", c_uint32), ("userCustomTag", c_uint32),
                ("cacheOpInfoSwitch", c_uint32), ("streamPriority", c_uint32), ("reserve", c_uint32 * 4)]


class aclrtMallocAttrValue(Union):
    _fields_ = [("moduleId", c_uint16), ("deviceId", c_uint32), ("vaFlag", c_uint32), ("rsv", c_uint8 * 8)]


class aclrtMallocAttribute(Structure):
    _fields_ = [("attr", c_int), ("value", aclrtMallocAttrValue)]


class aclrtMallocConfig(Structure):
    _fields_ = [("attrs", POINTER(aclrtMallocAttribute)), ("numAttrs", c_size_t)]


class aclrtBinaryLoadOptionValue(Union):
    _fields_ = [("isLazyLoad", c_uint32), ("magic", c_uint32), ("cpuKernelMode", c_int32), ("rsv", c_uint32 * 4)]


class aclrtBinaryLoadOption(Structure):
    _fields_ = [("type", c_int), ("value", aclrtBinaryLoadOptionValue)]


class aclrtBinaryLoadOptions(Structure):
    _fields_ = [("options", POINTER(aclrtBinaryLoadOption)), ("numOpt", c_size_t)]


class aclrtLaunchKernelAttrValue(Union):
    # Every member of the C union; pyACL fills blockDimOffset, which shares
    # its first bytes with the others.
    _fields_ = [("schemMode", c_uint8), ("dynUBufSize", c_uint32), ("engineType", c_int),
                ("blockDimOffset", c_uint32), ("timeout", c_uint16), ("rsv", c_uint32 * 4)]


class aclrtLaunchKernelAttr(Structure):
    _fields_ = [("id", c_int), ("value", aclrtLaunchKernelAttrValue)]


class aclrtLaunchKernelCfg(Structure):
    _fields_ = [("attrs", POINTER(aclrtLaunchKernelAttr)), ("numAttrs", c_size_t)]


ACL_PKG_VERSION_MAX_SIZE = 128
ACL_PKG_VERSION_PARTS_MAX_SIZE = 64


class aclCANNPackageVersion(Structure):
    _fields_ = [("version", c_char * ACL_PKG_VERSION_MAX_SIZE),
                ("majorVersion", c_char * ACL_PKG_VERSION_PARTS_MAX_SIZE),
                ("minorVersion", c_char * ACL_PKG_VERSION_PARTS_MAX_SIZE),
                ("releaseVersion", c_char * ACL_PKG_VERSION_PARTS_MAX_SIZE),
                ("patchVersion", c_char * ACL_PKG_VERSION_PARTS_MAX_SIZE),
                ("reserved", c_char * ACL_PKG_VERSION_MAX_SIZE)]


# ---- prototypes: (name, restype, argtypes) ---------------------------------

_vp = c_void_p
_P = POINTER


class _FastInt:
    """An int (or int32_t) parameter that ctypes converts without making a
    c_int: from_param hands a Python int back as it is, and ctypes passes a
    Python int as a C int (masked). Callers must check the range first, as
    acl._parse does per format; about 0.14 us less per argument than c_int."""
    from_param = operator.index


# The hot calls (acl.rt.memcpy_async, memset_async, launch_callback) declare
# size_t parameters as c_void_p, which ctypes converts from an int about
# 0.1 us faster than c_size_t; size_t and void * have the same size and are
# passed alike on every platform acl-cuda builds for. Their int parameters
# are _FastInt.
_size = c_void_p
_int = _FastInt

_PROTOTYPES = (
    # initialisation, versions, errors, logging
    ("aclInit", aclError, (c_char_p,)),
    ("aclFinalize", aclError, ()),
    ("aclFinalizeReference", aclError, (_P(c_uint64),)),
    ("aclrtGetVersion", aclError, (_P(c_int32), _P(c_int32), _P(c_int32))),
    ("aclsysGetCANNVersion", aclError, (c_int, _P(aclCANNPackageVersion))),
    ("aclsysGetVersionStr", aclError, (c_char_p, c_char_p)),
    ("aclGetRecentErrMsg", c_char_p, ()),
    ("aclrtGetSocName", c_char_p, ()),
    ("aclGetCannAttributeList", aclError, (_P(_P(c_int)), _P(c_size_t))),
    ("aclGetCannAttribute", aclError, (c_int, _P(c_int32))),
    ("aclGetDeviceCapability", aclError, (c_uint32, c_int, _P(c_int64))),
    # variadic: only the fixed parameters are declared
    ("aclAppLog", None, (c_int, c_char_p, c_char_p, c_uint32, c_char_p)),
    ("aclrtPeekAtLastError", aclError, (c_int,)),
    ("aclrtGetLastError", aclError, (c_int,)),
    # data types and buffers
    ("aclDataTypeSize", c_size_t, (c_int,)),
    ("aclFloat16ToFloat", c_float, (c_uint16,)),
    ("aclFloatToFloat16", c_uint16, (c_float,)),
    ("aclCreateDataBuffer", _vp, (_vp, c_size_t)),
    ("aclDestroyDataBuffer", aclError, (_vp,)),
    ("aclUpdateDataBuffer", aclError, (_vp, _vp, c_size_t)),
    ("aclGetDataBufferAddr", _vp, (_vp,)),
    ("aclGetDataBufferSize", c_uint32, (_vp,)),
    ("aclGetDataBufferSizeV2", c_size_t, (_vp,)),
    # devices
    ("aclrtSetDevice", aclError, (c_int32,)),
    ("aclrtResetDevice", aclError, (c_int32,)),
    ("aclrtResetDeviceForce", aclError, (c_int32,)),
    ("aclrtGetDevice", aclError, (_P(c_int32),)),
    ("aclrtGetRunMode", aclError, (_P(c_int),)),
    ("aclrtSynchronizeDevice", aclError, ()),
    ("aclrtSynchronizeDeviceWithTimeout", aclError, (c_int32,)),
    ("aclrtSetTsDevice", aclError, (c_int,)),
    ("aclrtGetDeviceCount", aclError, (_P(c_uint32),)),
    ("aclrtGetDeviceUtilizationRate", aclError, (c_int32, _P(aclrtUtilizationInfo))),
    ("aclrtQueryDeviceStatus", aclError, (c_int32, _P(c_int))),
    ("aclrtSetDeviceSatMode", aclError, (c_int,)),
    ("aclrtGetDeviceSatMode", aclError, (_P(c_int),)),
    ("aclrtGetOverflowStatus", aclError, (_vp, c_size_t, _vp)),
    ("aclrtResetOverflowStatus", aclError, (_vp,)),
    ("aclrtGetDeviceInfo", aclError, (c_uint32, c_int, _P(c_int64))),
    ("aclrtDeviceGetStreamPriorityRange", aclError, (_P(c_int32), _P(c_int32))),
    ("aclrtGetDeviceCapability", aclError, (c_int32, c_int, _P(c_int32))),
    ("aclrtDeviceGetUuid", aclError, (c_int32, _P(aclrtUuid))),
    ("aclrtGetDevicesTopo", aclError, (c_uint32, c_uint32, _P(c_uint64))),
    ("aclrtDeviceGetBareTgid", aclError, (_P(c_int32),)),
    ("aclrtGetLogicDevIdByUserDevId", aclError, (c_int32, _P(c_int32))),
    ("aclrtGetUserDevIdByLogicDevId", aclError, (c_int32, _P(c_int32))),
    ("aclrtGetLogicDevIdByPhyDevId", aclError, (c_int32, _P(c_int32))),
    ("aclrtGetPhyDevIdByLogicDevId", aclError, (c_int32, _P(c_int32))),
    ("aclrtSetSysParamOpt", aclError, (c_int, c_int64)),
    ("aclrtGetSysParamOpt", aclError, (c_int, _P(c_int64))),
    ("aclrtGetDeviceResLimit", aclError, (c_int32, c_int, _P(c_uint32))),
    ("aclrtSetDeviceResLimit", aclError, (c_int32, c_int, c_uint32)),
    ("aclrtResetDeviceResLimit", aclError, (c_int32,)),
    ("aclrtDeviceTaskAbort", aclError, (c_int32, c_uint32)),
    # core groups
    ("aclrtSetGroup", aclError, (c_int32,)),
    ("aclrtGetGroupCount", aclError, (_P(c_uint32),)),
    ("aclrtCreateGroupInfo", _vp, ()),
    ("aclrtDestroyGroupInfo", aclError, (_vp,)),
    ("aclrtGetAllGroupInfo", aclError, (_vp,)),
    ("aclrtGetGroupInfoDetail", aclError, (_vp, c_int32, c_int, _vp, c_size_t, _P(c_size_t))),
    # peer access
    ("aclrtDeviceCanAccessPeer", aclError, (_P(c_int32), c_int32, c_int32)),
    ("aclrtDeviceEnablePeerAccess", aclError, (c_int32, c_uint32)),
    ("aclrtDeviceDisablePeerAccess", aclError, (c_int32,)),
    ("aclrtDevicePeerAccessStatus", aclError, (c_int32, c_int32, _P(c_int32))),
    # contexts
    ("aclrtCreateContext", aclError, (_P(_vp), c_int32)),
    ("aclrtDestroyContext", aclError, (_vp,)),
    ("aclrtSetCurrentContext", aclError, (_vp,)),
    ("aclrtGetCurrentContext", aclError, (_P(_vp),)),
    ("aclrtCtxSetSysParamOpt", aclError, (c_int, c_int64)),
    ("aclrtCtxGetSysParamOpt", aclError, (c_int, _P(c_int64))),
    ("aclrtCtxGetCurrentDefaultStream", aclError, (_P(_vp),)),
    ("aclrtGetPrimaryCtxState", aclError, (c_int32, _P(c_uint32), _P(c_int32))),
    # streams
    ("aclrtCreateStream", aclError, (_P(_vp),)),
    ("aclrtCreateStreamWithConfig", aclError, (_P(_vp), c_uint32, c_uint32)),
    ("aclrtDestroyStream", aclError, (_vp,)),
    ("aclrtDestroyStreamForce", aclError, (_vp,)),
    ("aclrtSynchronizeStream", aclError, (_vp,)),
    ("aclrtSynchronizeStreamWithTimeout", aclError, (_vp, c_int32)),
    ("aclrtStreamQuery", aclError, (_vp, _P(c_int))),
    ("aclrtStreamWaitEvent", aclError, (_vp, _vp)),
    ("aclrtSetStreamFailureMode", aclError, (_vp, c_uint64)),
    ("aclrtSetStreamOverflowSwitch", aclError, (_vp, c_uint32)),
    ("aclrtGetStreamOverflowSwitch", aclError, (_vp, _P(c_uint32))),
    ("aclrtStreamAbort", aclError, (_vp,)),
    ("aclrtStreamGetId", aclError, (_vp, _P(c_int32))),
    ("aclrtGetStreamAvailableNum", aclError, (_P(c_uint32),)),
    ("aclrtSetStreamAttribute", aclError, (_vp, c_int, _P(aclrtStreamAttrValue))),
    ("aclrtGetStreamAttribute", aclError, (_vp, c_int, _P(aclrtStreamAttrValue))),
    ("aclrtGetThreadLastTaskId", aclError, (_P(c_uint32),)),
    ("aclrtGetStreamResLimit", aclError, (_vp, c_int, _P(c_uint32))),
    ("aclrtSetStreamResLimit", aclError, (_vp, c_int, c_uint32)),
    ("aclrtResetStreamResLimit", aclError, (_vp,)),
    ("aclrtUseStreamResInCurrentThread", aclError, (_vp,)),
    ("aclrtUnuseStreamResInCurrentThread", aclError, (_vp,)),
    ("aclrtGetResInCurrentThread", aclError, (c_int, _P(c_uint32))),
    # events
    ("aclrtCreateEvent", aclError, (_P(_vp),)),
    ("aclrtCreateEventWithFlag", aclError, (_P(_vp), c_uint32)),
    ("aclrtCreateEventExWithFlag", aclError, (_P(_vp), c_uint32)),
    ("aclrtDestroyEvent", aclError, (_vp,)),
    ("aclrtRecordEvent", aclError, (_vp, _vp)),
    ("aclrtResetEvent", aclError, (_vp, _vp)),
    ("aclrtQueryEvent", aclError, (_vp, _P(c_int))),
    ("aclrtQueryEventStatus", aclError, (_vp, _P(c_int))),
    ("aclrtQueryEventWaitStatus", aclError, (_vp, _P(c_int))),
    ("aclrtSynchronizeEvent", aclError, (_vp,)),
    ("aclrtSynchronizeEventWithTimeout", aclError, (_vp, c_int32)),
    ("aclrtEventElapsedTime", aclError, (_P(c_float), _vp, _vp)),
    ("aclrtEventGetTimestamp", aclError, (_vp, _P(c_uint64))),
    ("aclrtGetEventId", aclError, (_vp, _P(c_uint32))),
    ("aclrtGetEventAvailNum", aclError, (_P(c_uint32),)),
    ("aclrtSetOpWaitTimeout", aclError, (c_uint32,)),
    # memory
    ("aclrtMalloc", aclError, (_P(_vp), c_size_t, c_int)),
    ("aclrtMallocAlign32", aclError, (_P(_vp), c_size_t, c_int)),
    ("aclrtMallocCached", aclError, (_P(_vp), c_size_t, c_int)),
    ("aclrtMallocWithCfg", aclError, (_P(_vp), c_size_t, c_int, _P(aclrtMallocConfig))),
    ("aclrtMallocForTaskScheduler", aclError, (_P(_vp), c_size_t, c_int, _P(aclrtMallocConfig))),
    ("aclrtFree", aclError, (_vp,)),
    ("aclrtMallocHost", aclError, (_P(_vp), c_size_t)),
    ("aclrtMallocHostWithCfg", aclError, (_P(_vp), c_uint64, _P(aclrtMallocConfig))),
    ("aclrtFreeHost", aclError, (_vp,)),
    ("aclrtGetMemInfo", aclError, (c_int, _P(c_size_t), _P(c_size_t))),
    ("aclrtMemFlush", aclError, (_vp, c_size_t)),
    ("aclrtMemInvalidate", aclError, (_vp, c_size_t)),
    ("aclrtHostRegister", aclError, (_vp, c_uint64, c_int, _P(_vp))),
    ("aclrtHostUnregister", aclError, (_vp,)),
    ("aclrtHostRegisterV2", aclError, (_vp, c_uint64, c_uint32)),
    ("aclrtHostGetDevicePointer", aclError, (_vp, _P(_vp), c_uint32)),
    ("aclrtPointerGetAttributes", aclError, (_vp, _P(aclrtPtrAttributes))),
    ("aclrtMemGetAddressRange", aclError, (_vp, _P(_vp), _P(c_size_t))),
    ("aclrtGetMemUceInfo", aclError, (c_int32, _P(aclrtMemUceInfo), c_size_t, _P(c_size_t))),
    ("aclrtMemUceRepair", aclError, (c_int32, _P(aclrtMemUceInfo), c_size_t)),
    ("aclrtCmoAsync", aclError, (_vp, c_size_t, c_int, _vp)),
    # custom allocators (acl_rt_allocator.h)
    ("aclrtAllocatorCreateDesc", _vp, ()),
    ("aclrtAllocatorDestroyDesc", aclError, (_vp,)),
    ("aclrtAllocatorSetObjToDesc", aclError, (_vp, _vp)),
    ("aclrtAllocatorSetAllocFuncToDesc", aclError, (_vp, aclrtAllocatorAllocFunc)),
    ("aclrtAllocatorSetFreeFuncToDesc", aclError, (_vp, aclrtAllocatorFreeFunc)),
    ("aclrtAllocatorSetAllocAdviseFuncToDesc", aclError, (_vp, aclrtAllocatorAllocAdviseFunc)),
    ("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", aclError, (_vp, aclrtAllocatorGetAddrFromBlockFunc)),
    ("aclrtAllocatorRegister", aclError, (_vp, _vp)),
    ("aclrtAllocatorUnregister", aclError, (_vp,)),
    # virtual memory and shareable handles
    ("aclrtReserveMemAddress", aclError, (_P(_vp), c_size_t, c_size_t, _vp, c_uint64)),
    ("aclrtReleaseMemAddress", aclError, (_vp,)),
    ("aclrtMallocPhysical", aclError, (_P(_vp), c_size_t, _P(aclrtPhysicalMemProp), c_uint64)),
    ("aclrtFreePhysical", aclError, (_vp,)),
    ("aclrtMapMem", aclError, (_vp, c_size_t, c_size_t, _vp, c_uint64)),
    ("aclrtUnmapMem", aclError, (_vp,)),
    ("aclrtMemGetAllocationGranularity", aclError, (_P(aclrtPhysicalMemProp), c_int, _P(c_size_t))),
    ("aclrtMemExportToShareableHandle", aclError, (_vp, c_int, c_uint64, _P(c_uint64))),
    ("aclrtMemSetPidToShareableHandle", aclError, (c_uint64, _P(c_int32), c_size_t)),
    ("aclrtMemImportFromShareableHandle", aclError, (c_uint64, c_int32, _P(_vp))),
    # IPC
    ("aclrtIpcMemGetExportKey", aclError, (_vp, c_size_t, c_char_p, c_size_t, c_uint64)),
    ("aclrtIpcMemSetImportPid", aclError, (c_char_p, _P(c_int32), c_size_t)),
    ("aclrtIpcMemImportByKey", aclError, (_P(_vp), c_char_p, c_uint64)),
    ("aclrtIpcMemClose", aclError, (c_char_p,)),
    # DVPP memory (acl.media)
    ("acldvppMalloc", aclError, (_P(_vp), c_size_t)),
    ("acldvppMallocWithCfg", aclError, (_P(_vp), c_size_t, c_int, _P(aclrtMallocConfig))),
    ("acldvppFree", aclError, (_vp,)),
    # copies and fills
    ("aclrtMemcpy", aclError, (_vp, c_size_t, _vp, c_size_t, c_int)),
    ("aclrtMemcpyAsync", aclError, (_vp, _size, _vp, _size, _int, _vp)),
    ("aclrtMemcpyAsyncWithCondition", aclError, (_vp, c_size_t, _vp, c_size_t, c_int, _vp)),
    ("aclrtMemcpy2d", aclError, (_vp, c_size_t, _vp, c_size_t, c_size_t, c_size_t, c_int)),
    ("aclrtMemcpy2dAsync", aclError, (_vp, c_size_t, _vp, c_size_t, c_size_t, c_size_t, c_int, _vp)),
    ("aclrtMemset", aclError, (_vp, c_size_t, c_int32, c_size_t)),
    ("aclrtMemsetAsync", aclError, (_vp, _size, _int, _size, _vp)),
    ("aclrtGetMemcpyDescSize", aclError, (c_int, _P(c_size_t))),
    ("aclrtSetMemcpyDesc", aclError, (_vp, c_int, _vp, _vp, c_size_t, _vp)),
    ("aclrtMemcpyAsyncWithDesc", aclError, (_vp, c_int, _vp)),
    ("aclrtReduceAsync", aclError, (_vp, _vp, c_uint64, c_int, c_int, _vp, _vp)),
    # stream memory operations
    ("aclrtValueWrite", aclError, (_vp, c_uint64, c_uint32, _vp)),
    ("aclrtValueWait", aclError, (_vp, c_uint64, c_uint32, _vp)),
    # notifies
    ("aclrtCreateNotify", aclError, (_P(_vp), c_uint64)),
    ("aclrtDestroyNotify", aclError, (_vp,)),
    ("aclrtRecordNotify", aclError, (_vp, _vp)),
    ("aclrtWaitAndResetNotify", aclError, (_vp, _vp, c_uint32)),
    ("aclrtGetNotifyId", aclError, (_vp, _P(c_uint32))),
    ("aclrtNotifyBatchReset", aclError, (_P(_vp), c_size_t)),
    ("aclrtNotifyGetExportKey", aclError, (_vp, c_char_p, c_size_t, c_uint64)),
    ("aclrtNotifySetImportPid", aclError, (_vp, _P(c_int32), c_size_t)),
    ("aclrtNotifyImportByKey", aclError, (_P(_vp), c_char_p, c_uint64)),
    # callbacks and exception reports
    ("aclrtSubscribeReport", aclError, (c_uint64, _vp)),
    ("aclrtUnSubscribeReport", aclError, (c_uint64, _vp)),
    ("aclrtProcessReport", aclError, (c_int32,)),
    ("aclrtLaunchCallback", aclError, (aclrtCallback, _vp, _int, _vp)),
    ("aclrtSetExceptionInfoCallback", aclError, (aclrtExceptionInfoCallback,)),
    ("aclrtGetTaskIdFromExceptionInfo", c_uint32, (_vp,)),
    ("aclrtGetStreamIdFromExceptionInfo", c_uint32, (_vp,)),
    ("aclrtGetThreadIdFromExceptionInfo", c_uint32, (_vp,)),
    ("aclrtGetDeviceIdFromExceptionInfo", c_uint32, (_vp,)),
    ("aclrtGetErrorCodeFromExceptionInfo", c_uint32, (_vp,)),
    # kernel execution time limits
    ("aclrtSetOpExecuteTimeOut", aclError, (c_uint32,)),
    ("aclrtSetOpExecuteTimeOutV2", aclError, (c_uint64, _P(c_uint64))),
    ("aclrtGetOpExecuteTimeout", aclError, (_P(c_uint32),)),
    ("aclrtGetOpTimeOutInterval", aclError, (_P(c_uint64),)),
    # binaries, functions and kernel launches
    ("aclrtCreateBinary", _vp, (_vp, c_size_t)),
    ("aclrtDestroyBinary", aclError, (_vp,)),
    ("aclrtBinaryLoad", aclError, (_vp, _P(_vp))),
    ("aclrtBinaryLoadFromFile", aclError, (c_char_p, _P(aclrtBinaryLoadOptions), _P(_vp))),
    ("aclrtBinaryLoadFromData", aclError, (_vp, c_size_t, _P(aclrtBinaryLoadOptions), _P(_vp))),
    ("aclrtBinaryUnLoad", aclError, (_vp,)),
    ("aclrtBinaryGetFunction", aclError, (_vp, c_char_p, _P(_vp))),
    ("aclrtRegisterCpuFunc", aclError, (_vp, c_char_p, c_char_p, _P(_vp))),
    ("aclrtGetFunctionAddr", aclError, (_vp, _P(_vp), _P(_vp))),
    ("aclrtGetFunctionName", aclError, (_vp, c_uint32, c_char_p)),
    ("aclrtLaunchKernel", aclError, (_vp, c_uint32, _vp, c_size_t, _vp)),
    ("aclrtKernelArgsInit", aclError, (_vp, _P(_vp))),
    ("aclrtKernelArgsInitByUserMem", aclError, (_vp, _vp, _vp, c_size_t)),
    ("aclrtKernelArgsGetMemSize", aclError, (_vp, c_size_t, _P(c_size_t))),
    ("aclrtKernelArgsGetHandleMemSize", aclError, (_vp, _P(c_size_t))),
    ("aclrtKernelArgsAppend", aclError, (_vp, _vp, c_size_t, _P(_vp))),
    ("aclrtKernelArgsAppendPlaceHolder", aclError, (_vp, _P(_vp))),
    ("aclrtKernelArgsGetPlaceHolderBuffer", aclError, (_vp, _vp, c_size_t, _P(_vp))),
    ("aclrtKernelArgsParaUpdate", aclError, (_vp, _vp, _vp, c_size_t)),
    ("aclrtKernelArgsFinalize", aclError, (_vp,)),
    ("aclrtLaunchKernelWithConfig", aclError, (_vp, c_uint32, _vp, _P(aclrtLaunchKernelCfg), _vp, _vp)),
    # stream capture into models and model building (acl.mdl, acl-cuda's own)
    ("aclmdlRICaptureBegin", aclError, (_vp, c_int)),
    ("aclmdlRICaptureGetInfo", aclError, (_vp, _P(c_int), _P(_vp))),
    ("aclmdlRICaptureEnd", aclError, (_vp, _P(_vp))),
    ("aclmdlRICaptureThreadExchangeMode", aclError, (_P(c_int),)),
    ("aclmdlRICaptureTaskGrpBegin", aclError, (_vp,)),
    ("aclmdlRICaptureTaskGrpEnd", aclError, (_vp, _P(_vp))),
    ("aclmdlRICaptureTaskUpdateBegin", aclError, (_vp, _vp)),
    ("aclmdlRICaptureTaskUpdateEnd", aclError, (_vp,)),
    ("aclmdlRIBuildBegin", aclError, (_P(_vp), c_uint32)),
    ("aclmdlRIBindStream", aclError, (_vp, _vp, c_uint32)),
    ("aclmdlRIEndTask", aclError, (_vp, _vp)),
    ("aclmdlRIBuildEnd", aclError, (_vp, _vp)),
    ("aclmdlRIUnbindStream", aclError, (_vp, _vp)),
    ("aclmdlRIExecuteAsync", aclError, (_vp, _vp)),
    ("aclmdlRIExecute", aclError, (_vp, c_int32)),
    ("aclmdlRIDestroy", aclError, (_vp,)),
    ("aclmdlRISetName", aclError, (_vp, c_char_p)),
    ("aclmdlRIGetName", aclError, (_vp, c_uint32, c_char_p)),
    ("aclmdlRIGetId", aclError, (_vp, _P(c_uint32))),
    ("aclmdlRIDebugPrint", aclError, (_vp,)),
    ("aclmdlRIDebugJsonPrint", aclError, (_vp, c_char_p, c_uint32)),
    ("aclmdlRIGetStreams", aclError, (_vp, _P(_vp), _P(c_uint32))),
    ("aclmdlRICaptureToModelRIBegin", aclError, (_vp, _vp, c_int)),
    ("aclmdlRIAbort", aclError, (_vp,)),
    ("aclmdlRIUpdate", aclError, (_vp,)),
    ("aclmdlRIGetTasksByStream", aclError, (_vp, _P(_vp), _P(c_uint32))),
    ("aclmdlRITaskGetType", aclError, (_vp, _P(c_int))),
    ("aclmdlRITaskGetSeqId", aclError, (_vp, _P(c_uint32))),
    ("aclmdlRITaskDisable", aclError, (_vp,)),
    ("aclmdlRICondHandleCreate", aclError, (_vp, c_uint32, c_int, _P(_vp))),
    ("aclmdlRICondHandleGetCondPtr", aclError, (_vp, _P(_vp))),
    ("aclmdlRIAddCondTask", aclError, (aclmdlRICondTaskParams, _vp, c_uint32)),
    # ---- profiling (acl/acl_prof.h): acl.prof ----
    ("aclprofInit", aclError, (c_char_p, _size)),
    ("aclprofFinalize", aclError, ()),
    ("aclprofCreateConfig", _vp, (_P(c_uint32), c_uint32, c_int, _vp, c_uint64)),
    ("aclprofDestroyConfig", aclError, (_vp,)),
    ("aclprofStart", aclError, (_vp,)),
    ("aclprofStop", aclError, (_vp,)),
    ("aclprofSetConfig", aclError, (c_int, c_char_p, _size)),
    ("aclprofCreateStepInfo", _vp, ()),
    ("aclprofDestroyStepInfo", None, (_vp,)),
    ("aclprofGetStepTimestamp", aclError, (_vp, c_int, _vp)),
    ("aclprofCreateStamp", _vp, ()),
    ("aclprofDestroyStamp", None, (_vp,)),
    ("aclprofSetStampTraceMessage", aclError, (_vp, c_char_p, c_uint32)),
    ("aclprofMark", aclError, (_vp,)),
    ("aclprofMarkEx", aclError, (c_char_p, _size, _vp)),
    ("aclprofPush", aclError, (_vp,)),
    ("aclprofPop", aclError, ()),
    ("aclprofRangeStart", aclError, (_vp, _P(c_uint32))),
    ("aclprofRangeStop", aclError, (c_uint32,)),
    # ---- end of profiling ----
    # ---- acl/acl_tdt.h and acl/acl_tdt_queue.h (acl.tdt) ----
    ("acltdtCreateChannel", _vp, (c_uint32, c_char_p)),
    ("acltdtCreateChannelWithCapacity", _vp, (c_uint32, c_char_p, c_size_t)),
    ("acltdtDestroyChannel", aclError, (_vp,)),
    ("acltdtStopChannel", aclError, (_vp,)),
    ("acltdtCleanChannel", aclError, (_vp,)),
    ("acltdtSendTensor", aclError, (_vp, _vp, c_int32)),
    ("acltdtReceiveTensor", aclError, (_vp, _vp, c_int32)),
    ("acltdtQueryChannelSize", aclError, (_vp, _P(c_size_t))),
    ("acltdtCreateDataItem", _vp, (c_int, _P(c_int64), c_size_t, c_int, _vp, c_size_t)),
    ("acltdtDestroyDataItem", aclError, (_vp,)),
    ("acltdtCreateDataset", _vp, ()),
    ("acltdtDestroyDataset", aclError, (_vp,)),
    ("acltdtAddDataItem", aclError, (_vp, _vp)),
    ("acltdtGetDataItem", _vp, (_vp, c_size_t)),
    ("acltdtGetDatasetSize", c_size_t, (_vp,)),
    ("acltdtGetDatasetName", c_char_p, (_vp,)),
    ("acltdtGetTensorTypeFromItem", c_int, (_vp,)),
    ("acltdtGetDataTypeFromItem", c_int, (_vp,)),
    ("acltdtGetDataAddrFromItem", _vp, (_vp,)),
    ("acltdtGetDataSizeFromItem", c_size_t, (_vp,)),
    ("acltdtGetDimNumFromItem", c_size_t, (_vp,)),
    ("acltdtGetDimsFromItem", aclError, (_vp, _P(c_int64), c_size_t)),
    ("acltdtCreateQueue", aclError, (_vp, _P(c_uint32))),
    ("acltdtDestroyQueue", aclError, (c_uint32,)),
    ("acltdtEnqueue", aclError, (c_uint32, _vp, c_int32)),
    ("acltdtDequeue", aclError, (c_uint32, _P(_vp), c_int32)),
    ("acltdtEnqueueData", aclError, (c_uint32, _vp, c_size_t, _vp, c_size_t, c_int32, c_uint32)),
    ("acltdtDequeueData", aclError,
     (c_uint32, _vp, c_size_t, _P(c_size_t), _vp, c_size_t, c_int32)),
    ("acltdtGrantQueue", aclError, (c_uint32, c_int32, c_uint32, c_int32)),
    ("acltdtAttachQueue", aclError, (c_uint32, c_int32, _P(c_uint32))),
    ("acltdtBindQueueRoutes", aclError, (_vp,)),
    ("acltdtUnbindQueueRoutes", aclError, (_vp,)),
    ("acltdtQueryQueueRoutes", aclError, (_vp, _vp)),
    ("acltdtCreateQueueAttr", _vp, ()),
    ("acltdtDestroyQueueAttr", aclError, (_vp,)),
    ("acltdtSetQueueAttr", aclError, (_vp, c_int, c_size_t, _vp)),
    ("acltdtAllocBuf", aclError, (c_size_t, c_uint32, _P(_vp))),
    ("acltdtFreeBuf", aclError, (_vp,)),
    ("acltdtGetBufData", aclError, (_vp, _P(_vp), _P(c_size_t))),
    ("acltdtSetBufDataLen", aclError, (_vp, c_size_t)),
    ("acltdtGetBufDataLen", aclError, (_vp, _P(c_size_t))),
    ("acltdtCreateQueueRoute", _vp, (c_uint32, c_uint32)),
    ("acltdtDestroyQueueRoute", aclError, (_vp,)),
    ("acltdtCreateQueueRouteList", _vp, ()),
    ("acltdtDestroyQueueRouteList", aclError, (_vp,)),
    ("acltdtAddQueueRoute", aclError, (_vp, _vp)),
    ("acltdtGetQueueRouteNum", c_size_t, (_vp,)),
    # acl-cuda's own (acl/acl_cuda.h): the backend and native handles (acl.cuda)
    ("aclcudaGetBackendName", c_char_p, ()),
    ("aclcudaGetNativeStream", aclError, (_vp, _P(_vp))),
    ("aclcudaGetNativeStreamDevice", aclError, (_vp, _P(_vp), _P(c_int32))),
    ("aclcudaGetNativeEvent", aclError, (_vp, _P(_vp))),
    ("aclcudaStreamFromNative", aclError, (_vp, _P(_vp))),
    ("aclcudaEventFromNative", aclError, (_vp, _P(_vp))),
    ("aclcudaGetNativeDevice", aclError, (c_int32, _P(c_int32))),
    ("aclcudaStreamGetDevice", aclError, (_vp, _P(c_int32))),
    ("aclcudaCaptureKeep", aclError, (_vp, _vp, _vp)),
    ("aclcudaDLPackCapsuleDestructor", None, (_vp,)),
    # ... waits in slices
    ("aclcudaSynchronizeStreamSlice", aclError, (_vp, _int)),
    ("aclcudaSynchronizeEventSlice", aclError, (_vp, _int)),
    ("aclcudaSynchronizeDeviceSlice", aclError, (_int,)),
)


# ---- finding the library ------------------------------------------------------

def _expand(path, config):
    """Expands the ${prefix}/${exec_prefix} references autoconf leaves in libdir."""
    values = {"prefix": config.PREFIX, "exec_prefix": config.EXEC_PREFIX}
    for _ in range(8):
        expanded = path
        for name, value in values.items():
            expanded = expanded.replace("${%s}" % name, value).replace("$(%s)" % name, value)
        if expanded == path:
            break
        path = expanded
    return path


def _configured_paths():
    """Library paths recorded by configure, best first; none for a pip install of a fresh clone."""
    try:
        from . import _build_config as config
    except ImportError:
        return []
    installed = os.path.join(_expand(config.LIBDIR, config), "libascendcl.so")
    built = os.path.join(config.BUILDDIR, ".libs", "libascendcl.so")
    here = os.path.realpath(os.path.dirname(__file__))
    builddir = os.path.realpath(config.BUILDDIR)
    in_build_tree = os.path.commonpath([here, builddir]) == builddir
    return [built, installed] if in_build_tree else [installed, built]


def _system_names():
    names = []
    found = ctypes.util.find_library("ascendcl")
    if found:
        names.append(found)
    names.extend(n for n in _SONAMES if n not in names)
    return names


def _load():
    explicit = os.environ.get(LIBRARY_ENV)
    if explicit:
        try:
            return ctypes.CDLL(explicit)
        except OSError as exc:
            raise ImportError("acl: cannot load %s=%s: %s" % (LIBRARY_ENV, explicit, exc)) from exc
    failures = []
    for path in _configured_paths():
        if not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as exc:
            failures.append("%s: %s" % (path, exc))
    for name in _system_names():
        try:
            return ctypes.CDLL(name)
        except OSError as exc:
            failures.append("%s: %s" % (name, exc))
    raise ImportError("acl: libascendcl.so not found; set %s to its path or put it on the loader's "
                      "search path (tried: %s)" % (LIBRARY_ENV, "; ".join(failures)))


# Calls made with the GIL held (ctypes.PyDLL's convention): those that
# read a state and return, taking no lock that a thread running Python
# code holds (callbacks run with none of the library's locks held; a
# CUDA event or stream query waits for nothing). Releasing and retaking
# the GIL around them cost 36 ns of a 300 ns bare aclrtQueryEventStatus
# (host backend, Python 3.11); torch's Event.query keeps it too. Anything
# that enqueues may wait for queue space, behind a host function that
# needs the GIL, so it releases it.
KEEPS_GIL = frozenset(("aclrtQueryEvent", "aclrtQueryEventStatus", "aclrtQueryEventWaitStatus",
                       "aclrtStreamQuery"))


def _bind(cdll):
    """The declared functions the library exports, as attributes of one namespace."""
    functions = types.SimpleNamespace()
    holding = ctypes.PyDLL(cdll._name, handle=cdll._handle)
    for name, restype, argtypes in _PROTOTYPES:
        try:
            function = getattr(holding if name in KEEPS_GIL else cdll, name)
        except AttributeError:
            continue
        function.restype = restype
        function.argtypes = argtypes
        setattr(functions, name, function)
    return functions


library = _load()
path = library._name
api = _bind(library)


# ---- from the interpreter: Python's C API -------------------------------------

def _bytes_from_memory():
    """PyBytes_FromStringAndSize(const char *, Py_ssize_t) as a ctypes
    function holding the GIL (as every pythonapi function does), or None
    where the interpreter has no C API to call. ctypes.string_at cannot do
    it: it takes its size as a C int. A function object of our own, not
    the attribute of ctypes.pythonapi others may set up otherwise."""
    try:
        function = ctypes.pythonapi["PyBytes_FromStringAndSize"]
    except (AttributeError, OSError):
        return None
    function.restype = ctypes.py_object
    function.argtypes = (c_void_p, ctypes.c_ssize_t)
    return function


bytes_from_memory = _bytes_from_memory()


def has(*names):
    """Whether the loaded library exports every C function named."""
    return all(hasattr(api, name) for name in names)
