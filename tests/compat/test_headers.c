/* The public headers: the error codes, enum values, flag macros and
 * structure layouts that programs (and pyACL's callers, who write the
 * numbers themselves) depend on have AscendCL's documented values. Nothing
 * here calls the library: these are facts of the headers the suite was
 * compiled against, checked at run time. Values of the R tier (ACL 1.15,
 * hicann/runtime d8beaaf) and older for every header the suite accepts;
 * the additions of CANN's newest runtime headers (ACL 1.17) where the
 * headers are that new, skipped on 1.15/1.16 headers. */
#include "compat.h"

COMPAT_TEST(key_error_codes,
            "the key error codes have ACL's numbers (100000 ACL layer, 107xxx/207xxx/507xxx runtime, 145xxx+ GE)",
            "acl_base_rt.h, error_codes/rt_error_codes.h, ge_error_codes.h; API ref aclError")
{
    ck_assert_int_eq(ACL_SUCCESS, 0);
    ck_assert_int_eq(ACL_ERROR_NONE, 0);
    ck_assert_int_eq(ACL_RT_SUCCESS, 0);
    ck_assert_int_eq(ACL_ERROR_INVALID_PARAM, 100000);
    ck_assert_int_eq(ACL_ERROR_REPEAT_INITIALIZE, 100002);
    ck_assert_int_eq(ACL_ERROR_REPEAT_FINALIZE, 100037);
    ck_assert_int_eq(ACL_ERROR_BAD_ALLOC, 200000);
    ck_assert_int_eq(ACL_ERROR_INTERNAL_ERROR, 500000);
    ck_assert_int_eq(ACL_ERROR_RT_PARAM_INVALID, 107000);
    ck_assert_int_eq(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
    ck_assert_int_eq(ACL_ERROR_RT_CONTEXT_NULL, 107002);
    ck_assert_int_eq(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, 107006);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_SUBSCRIBE, 107011);
    ck_assert_int_eq(ACL_ERROR_RT_THREAD_SUBSCRIBE, 107012);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_NO_CB_REG, 107015);
    ck_assert_int_eq(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021);
    ck_assert_int_eq(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000);
    ck_assert_int_eq(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001);
    ck_assert_int_eq(ACL_ERROR_RT_NO_STREAM_RESOURCE, 207008);
    ck_assert_int_eq(ACL_ERROR_RT_INTERNAL_ERROR, 507000);
    ck_assert_int_eq(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007);
    ck_assert_int_eq(ACL_ERROR_RT_REPORT_TIMEOUT, 507012);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046);
    ck_assert_int_eq(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047);
    ck_assert_int_eq(ACL_ERROR_RT_DRV_INTERNAL_ERROR, 507899);
    ck_assert_int_eq(ACL_ERROR_RT_CCU_EXCEPTION, 507916);
    ck_assert_uint_eq(ACL_ERROR_GE_PARAM_INVALID, 145000);
    ck_assert_uint_eq(ACL_ERROR_GE_REDEPLOYING, 545602);
}

COMPAT_TEST(version_macros,
            "ACL_MAJOR_VERSION is 1 and ACL_MINOR_VERSION at least 15 (the suite's minimum header tier)",
            "acl_rt.h ACL_MAJOR/MINOR/PATCH_VERSION")
{
    ck_assert_int_eq(ACL_MAJOR_VERSION, 1);
    ck_assert_int_ge(ACL_MINOR_VERSION, 15);
    ck_assert_int_ge(ACL_PATCH_VERSION, 0);
}

COMPAT_TEST(event_and_stream_enums,
            "event, stream and callback status enums have ACL's values (aclrtEventStatus and aclrtEventRecordedStatus in opposite order)",
            "acl_rt.h aclrtEventStatus, aclrtEventRecordedStatus, aclrtEventWaitStatus, aclrtStreamStatus, aclrtCallbackBlockType")
{
    ck_assert_int_eq(ACL_EVENT_STATUS_COMPLETE, 0);
    ck_assert_int_eq(ACL_EVENT_STATUS_NOT_READY, 1);
    ck_assert_int_eq(ACL_EVENT_STATUS_RESERVED, 2);
    ck_assert_int_eq(ACL_EVENT_RECORDED_STATUS_NOT_READY, 0);
    ck_assert_int_eq(ACL_EVENT_RECORDED_STATUS_COMPLETE, 1);
    ck_assert_int_eq(ACL_EVENT_WAIT_STATUS_COMPLETE, 0);
    ck_assert_int_eq(ACL_EVENT_WAIT_STATUS_NOT_READY, 1);
    ck_assert_int_eq(ACL_EVENT_WAIT_STATUS_RESERVED, 0xFFFF);
    ck_assert_int_eq(ACL_STREAM_STATUS_COMPLETE, 0);
    ck_assert_int_eq(ACL_STREAM_STATUS_NOT_READY, 1);
    ck_assert_int_eq(ACL_STREAM_STATUS_RESERVED, 0xFFFF);
    ck_assert_int_eq(ACL_CALLBACK_NO_BLOCK, 0);
    ck_assert_int_eq(ACL_CALLBACK_BLOCK, 1);
    ck_assert_int_eq(ACL_STREAM_ATTR_FAILURE_MODE, 1);
    ck_assert_int_eq(ACL_STREAM_ATTR_PRIORITY, 5);
    ck_assert_int_eq(ACL_RT_STREAM_WORK_ADDR_PTR, 0);
    ck_assert_int_eq(ACL_RT_STREAM_PRIORITY, 3);
    ck_assert_int_eq(ACL_RT_STREAM_STATE_CREATE_POST, 1);
    ck_assert_int_eq(ACL_RT_STREAM_STATE_DESTROY_PRE, 2);
    ck_assert_int_eq(ACL_RT_EQUAL, 0);
    ck_assert_int_eq(ACL_RT_LESS_OR_EQUAL, 5);
    ck_assert_int_eq(ACL_RT_SWITCH_INT64, 1);
}

COMPAT_TEST(flag_macros,
            "event, stream and memory flag macros have ACL's values",
            "acl_rt.h ACL_EVENT_*, ACL_STREAM_*, ACL_*_ON_FAILURE, ACL_DEV_FEATURE_*")
{
    ck_assert_uint_eq(ACL_EVENT_SYNC, 0x1u);
    ck_assert_uint_eq(ACL_EVENT_CAPTURE_STREAM_PROGRESS, 0x2u);
    ck_assert_uint_eq(ACL_EVENT_TIME_LINE, 0x8u);
    ck_assert_uint_eq(ACL_EVENT_DEVICE_USE_ONLY, 0x10u);
    ck_assert_uint_eq(ACL_EVENT_EXTERNAL, 0x20u);
    ck_assert_uint_eq(ACL_EVENT_IPC, 0x40u);
    ck_assert_uint_eq(ACL_STREAM_FAST_LAUNCH, 0x1u);
    ck_assert_uint_eq(ACL_STREAM_FAST_SYNC, 0x2u);
    ck_assert_uint_eq(ACL_STREAM_PERSISTENT, 0x4u);
    ck_assert_uint_eq(ACL_STREAM_HUGE, 0x8u);
    ck_assert_uint_eq(ACL_STREAM_CPU_SCHEDULE, 0x10u);
    ck_assert_uint_eq(ACL_STREAM_DEVICE_USE_ONLY, 0x20u);
    ck_assert_uint_eq(ACL_CONTINUE_ON_FAILURE, 0u);
    ck_assert_uint_eq(ACL_STOP_ON_FAILURE, 1u);
    ck_assert_int_eq(ACL_DEV_FEATURE_SUPPORT, 1);
    ck_assert_int_eq(ACL_DEV_FEATURE_NOT_SUPPORT, 0);
    ck_assert_uint_eq(ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION, 1u);
    ck_assert_uint_eq(ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS, 2u);
    ck_assert_uint_eq(ACL_IPC_EVENT_HANDLE_SIZE, 64u);
    ck_assert_uint_eq(ACL_RT_MEM_TYPE_DVPP, 0x8u);
    ck_assert_uint_eq(ACL_RT_DEVS_TOPOLOGY_HCCS_SW, 0x40u);
    ck_assert_uint_eq(ACL_RT_BINARY_MAGIC_ELF_AICORE, 0x43554245u);
    ck_assert_int_eq(ACL_PKG_VERSION_MAX_SIZE, 128);
    ck_assert_int_eq(ACL_PKG_VERSION_PARTS_MAX_SIZE, 64);
}

COMPAT_TEST(memory_enums,
            "memory copy kinds, malloc policies, memory attributes and location types have ACL's values",
            "acl_rt.h aclrtMemcpyKind, aclrtMemMallocPolicy, aclrtMemAttr, aclrtMemLocationType")
{
    ck_assert_int_eq(ACL_MEMCPY_HOST_TO_HOST, 0);
    ck_assert_int_eq(ACL_MEMCPY_HOST_TO_DEVICE, 1);
    ck_assert_int_eq(ACL_MEMCPY_DEVICE_TO_HOST, 2);
    ck_assert_int_eq(ACL_MEMCPY_DEVICE_TO_DEVICE, 3);
    ck_assert_int_eq(ACL_MEMCPY_DEFAULT, 4);
    ck_assert_int_eq(ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, 5);
    ck_assert_int_eq(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 6);
    ck_assert_int_eq(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);
    ck_assert_int_eq(ACL_MEM_MALLOC_HUGE_FIRST, 0);
    ck_assert_int_eq(ACL_MEM_MALLOC_NORMAL_ONLY, 2);
    ck_assert_int_eq(ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 5);
    ck_assert_int_eq(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
    ck_assert_int_eq(ACL_MEM_TYPE_LOW_BAND_WIDTH, 0x100);
    ck_assert_int_eq(ACL_MEM_TYPE_HIGH_BAND_WIDTH, 0x1000);
    ck_assert_int_eq(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);
    ck_assert_int_eq(ACL_DDR_MEM, 0);
    ck_assert_int_eq(ACL_HBM_MEM, 1);
    ck_assert_int_eq(ACL_HBM_MEM_P2P_NORMAL, 9);
    ck_assert_int_eq(ACL_MEM_P2P_HUGE1G, 17);
    ck_assert_int_eq(ACL_MEM_LOCATION_TYPE_HOST, 0);
    ck_assert_int_eq(ACL_MEM_LOCATION_TYPE_DEVICE, 1);
    ck_assert_int_eq(ACL_MEM_LOCATION_TYPE_UNREGISTERED, 2);
    ck_assert_int_eq(ACL_MEM_LOCATION_TYPE_MANAGED, 3);
    ck_assert_int_eq(ACL_MEM_LOCATION_TYPE_HOST_NUMA, 4);
    ck_assert_int_eq(ACL_RT_MEM_ATTR_MODULE_ID, 1);
    ck_assert_int_eq(ACL_RT_MEM_ATTR_VA_FLAG, 3);
    ck_assert_int_eq(ACL_HOST_REGISTER_MAPPED, 0);
    ck_assert_int_eq(ACL_HOST_REGISTER_IOMEMORY, 4);
    ck_assert_int_eq(ACL_HOST_REGISTER_READONLY, 8);
    ck_assert_int_eq(ACL_MEMTYPE_DEVICE, 0);
    ck_assert_int_eq(ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT, 2);
    ck_assert_int_eq(ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, 10);
    ck_assert_int_eq(ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, 13);
    ck_assert_int_eq(ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0);
}

COMPAT_TEST(device_enums,
            "device, run-mode and attribute enums have ACL's values",
            "acl_rt.h aclrtRunMode, aclrtTsId, aclrtDevAttr, aclrtDevFeatureType, aclrtDeviceStatus")
{
    ck_assert_int_eq(ACL_DEVICE, 0);
    ck_assert_int_eq(ACL_HOST, 1);
    ck_assert_int_eq(ACL_TS_ID_AICORE, 0);
    ck_assert_int_eq(ACL_TS_ID_AIVECTOR, 1);
    ck_assert_int_eq(ACL_TS_ID_RESERVED, 2);
    ck_assert_int_eq(ACL_RT_THREAD_LEVEL, 0);
    ck_assert_int_eq(ACL_RT_OVERFLOW_MODE_SATURATION, 0);
    ck_assert_int_eq(ACL_RT_OVERFLOW_MODE_INFNAN, 1);
    ck_assert_int_eq(ACL_RT_OVERFLOW_MODE_UNDEF, 2);
    ck_assert_int_eq(ACL_RT_DEVICE_STATUS_NORMAL, 0);
    ck_assert_int_eq(ACL_RT_DEVICE_STATUS_ABNORMAL, 1);
    ck_assert_int_eq(ACL_RT_DEVICE_STATUS_END, 0xFFFF);
    ck_assert_int_eq(ACL_DEV_ATTR_AICPU_CORE_NUM, 1);
    ck_assert_int_eq(ACL_DEV_ATTR_AICORE_CORE_NUM, 101);
    ck_assert_int_eq(ACL_DEV_ATTR_CUBE_CORE_NUM, 102);
    ck_assert_int_eq(ACL_DEV_ATTR_VECTOR_CORE_NUM, 201);
    ck_assert_int_eq(ACL_DEV_ATTR_WARP_SIZE, 202);
    ck_assert_int_eq(ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE, ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE);
    ck_assert_int_eq(ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, 204);
    ck_assert_int_eq(ACL_DEV_ATTR_MAX_BLOCK_DIM_Z, 212);
    ck_assert_int_eq(ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, 301);
    ck_assert_int_eq(ACL_DEV_ATTR_L2_CACHE_SIZE, 302);
    ck_assert_int_eq(ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID, ACL_DEV_ATTR_SUPER_POD_DEVICE_ID);
    ck_assert_int_eq(ACL_DEV_ATTR_IS_VIRTUAL, 501);
    ck_assert_int_eq(ACL_DEV_ATTR_NPU_ARCH, 601);
    ck_assert_int_eq(ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, 1);
    ck_assert_int_eq(ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, 21);
    ck_assert_int_eq(ACL_RT_DEV_RES_CUBE_CORE, 0);
    ck_assert_int_eq(ACL_RT_DEV_RES_VECTOR_CORE, 1);
    ck_assert_int_eq(ACL_RT_DEVICE_STATE_SET_PRE, 0);
    ck_assert_int_eq(ACL_RT_DEVICE_STATE_RESET_POST, 3);
    ck_assert_int_eq(ACL_GROUP_AICORE_INT, 0);
    ck_assert_int_eq(ACL_GROUP_GROUPID_INT, 5);
    ck_assert_int_eq(ACL_RT_NO_ERROR, 0);
    ck_assert_int_eq(ACL_RT_ERROR_OTHERS, 0xFFFF);
}

COMPAT_TEST(base_enums,
            "data types, formats, log levels and system options have ACL's values",
            "acl_base_rt.h aclDataType, aclFormat, aclLogLevel, aclSysParamOpt")
{
    ck_assert_int_eq(ACL_DT_UNDEFINED, -1);
    ck_assert_int_eq(ACL_FLOAT, 0);
    ck_assert_int_eq(ACL_FLOAT16, 1);
    ck_assert_int_eq(ACL_INT8, 2);
    ck_assert_int_eq(ACL_INT32, 3);
    ck_assert_int_eq(ACL_UINT8, 4);
    ck_assert_int_eq(ACL_INT16, 6);
    ck_assert_int_eq(ACL_INT64, 9);
    ck_assert_int_eq(ACL_DOUBLE, 11);
    ck_assert_int_eq(ACL_BOOL, 12);
    ck_assert_int_eq(ACL_STRING, 13);
    ck_assert_int_eq(ACL_COMPLEX64, 16);
    ck_assert_int_eq(ACL_BF16, 27);
    ck_assert_int_eq(ACL_INT4, 29);
    ck_assert_int_eq(ACL_COMPLEX32, 33);
    ck_assert_int_eq(ACL_FLOAT4_E1M2, 41);
    ck_assert_int_eq(ACL_FORMAT_UNDEFINED, -1);
    ck_assert_int_eq(ACL_FORMAT_NCHW, 0);
    ck_assert_int_eq(ACL_FORMAT_ND, 2);
    ck_assert_int_eq(ACL_FORMAT_FRACTAL_NZ, 29);
    ck_assert_int_eq(ACL_FRACTAL_Z_3D, 33);
    ck_assert_int_eq(ACL_FORMAT_NCL, 47);
    ck_assert_int_eq(ACL_FORMAT_FRACTAL_NZ_C0_8, 54);
    ck_assert_int_eq(ACL_DEBUG, 0);
    ck_assert_int_eq(ACL_INFO, 1);
    ck_assert_int_eq(ACL_WARNING, 2);
    ck_assert_int_eq(ACL_ERROR, 3);
    ck_assert_int_eq(ACL_OPT_DETERMINISTIC, 0);
    ck_assert_int_eq(ACL_OPT_ENABLE_KERNEL_EARLY_START, 3);
    ck_assert_int_eq(ACL_CANN_ATTR_UNDEFINED, -1);
    ck_assert_int_eq(ACL_CANN_ATTR_JIT_COMPILE, 2);
    ck_assert_int_eq(ACL_DEVICE_INFO_UNDEFINED, -1);
    ck_assert_int_eq(ACL_DEVICE_INFO_L2_SIZE, 2);
    ck_assert_int_eq(ACL_REG_TYPE_ACL_MODEL, 0);
    ck_assert_int_eq(ACL_REG_TYPE_ACL_RETR, 7);
    ck_assert_int_eq(ACL_REG_TYPE_OTHER, 0xFFFF);
    ck_assert_int_eq(ACL_PKG_NAME_CANN, 0);
    ck_assert_int_eq(ACL_PKG_NAME_RUNTIME, 1);
    ck_assert_int_eq(ACL_PKG_NAME_DRIVER, 7);
    ck_assert_int_eq(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, 2);
    ck_assert_int_eq(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED, 2);
}

/* Layouts shared with callers (and with ctypes in the Python package). */
COMPAT_TEST(struct_layouts,
            "public structures have ACL's sizes and member offsets",
            "acl_rt.h aclrtPtrAttributes, aclrtUuid, aclrtMallocConfig, aclCANNPackageVersion ...")
{
    ck_assert_uint_eq(sizeof(aclFloat16), 2);
    ck_assert_uint_eq(sizeof(aclError), sizeof(int));
    ck_assert_uint_eq(sizeof(aclrtStream), sizeof(void *));
    ck_assert_uint_eq(sizeof(aclrtUuid), 16);
    ck_assert_uint_eq(sizeof(aclrtMemLocation), 8);
    ck_assert_uint_eq(sizeof(aclrtPtrAttributes), 28);
    ck_assert_uint_eq(offsetof(aclrtPtrAttributes, pageSize), 8);
    ck_assert_uint_eq(sizeof(aclCANNPackageVersion), 512);
    ck_assert_uint_eq(offsetof(aclCANNPackageVersion, majorVersion), 128);
    ck_assert_uint_eq(offsetof(aclCANNPackageVersion, reserved), 384);
    ck_assert_uint_eq(sizeof(aclrtIpcEventHandle), 64);
    ck_assert_uint_eq(sizeof(aclrtMemcpyBatchAttr), 32);
    ck_assert_uint_eq(sizeof(aclrtStreamAttrValue), 16);
    ck_assert_uint_eq(sizeof(aclrtMallocAttrValue), 8);
    ck_assert_uint_eq(sizeof(aclrtMallocAttribute), 12);
    ck_assert_uint_eq(offsetof(aclrtMallocConfig, numAttrs), sizeof(void *));
    ck_assert_uint_eq(offsetof(aclrtUtilizationInfo, utilizationExtend), 16);
    ck_assert_uint_eq(offsetof(aclrtStreamConfigHandle, priority), sizeof(void *) + 2 * sizeof(size_t));
    ck_assert_uint_eq(offsetof(aclrtServerPid, num), 2 * sizeof(void *));
}

/* ---- the ACL 1.17 additions: a sample of every area, so a typo fails ------------ */

/* CANN's newest runtime headers (ACL 1.17) add these; on older headers the
 * tests below report themselves skipped. */
#if ACL_MINOR_VERSION >= 17
#include "acl/acl_base_mdl.h"
#include "acl/acl_op.h"
#include "acl/acl_platform.h"
#include "acl/acl_rt_api.h" /* C++ overloads: nothing in C, and it must still compile */
#include "acl/acl_rt_memory_soma.h"
#include "acl/ops/acl_dvpp.h"
#define COMPAT_HEADERS_1_17 1
#endif

COMPAT_TEST(newest_flag_macros,
            "the flag macros added in ACL 1.17 (event record/wait, host registration, model "
            "run instances, memory attach and links, form factors) have CANN's values",
            "acl_rt.h, acl_mdl.h of ACL 1.17: ACL_EVENT_RECORD_*, ACL_HOST_REG_*, ACL_MDLRI_*, "
            "ACL_RT_MEM_*, ACL_MODEL_STREAM_FLAG_*")
{
#ifdef COMPAT_HEADERS_1_17
    ck_assert_uint_eq(ACL_EVENT_RECORD_DEFAULT, 0x0);
    ck_assert_uint_eq(ACL_EVENT_RECORD_EXTERNAL, 0x1);
    ck_assert_uint_eq(ACL_EVENT_WAIT_DEFAULT, 0x0);
    ck_assert_uint_eq(ACL_EVENT_WAIT_EXTERNAL, 0x1);
    ck_assert_uint_eq(ACL_HOST_REG_MAPPED, 0x2);
    ck_assert_uint_eq(ACL_HOST_REG_IOMEMORY, 0x4);
    ck_assert_uint_eq(ACL_HOST_REG_READONLY, 0x8);
    ck_assert_uint_eq(ACL_HOST_REG_PINNED, 0x10000000);
    ck_assert_uint_eq(ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY, 0x0);
    ck_assert_uint_eq(ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE, 0x1);
    ck_assert_uint_eq(ACL_RT_MEM_ATTACH_GLOBAL, 0x1);
    ck_assert_uint_eq(ACL_RT_MEM_LINK_IDX_0, 0);
    ck_assert_uint_eq(ACL_RT_MEM_LINK_IDX_1, 1);
    ck_assert_int_eq(ACL_HOST_DEVICE_CONNECT_TYPE_PCIE, 0);
    ck_assert_int_eq(ACL_HOST_DEVICE_CONNECT_TYPE_HCCS, 1);
    ck_assert_int_eq(ACL_HOST_DEVICE_CONNECT_TYPE_UB, 2);
    ck_assert_int_eq(ACL_DEVICE_FORM_FACTOR_POD, 0);
    ck_assert_int_eq(ACL_DEVICE_FORM_FACTOR_A_K, 1);
    ck_assert_int_eq(ACL_DEVICE_FORM_FACTOR_A_X, 2);
    ck_assert_int_eq(ACL_DEVICE_FORM_FACTOR_PCIE_CARD, 3);
    ck_assert_int_eq(ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO, 0);
    ck_assert_int_eq(ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH, 3);
    ck_assert_uint_eq(ACL_MODEL_STREAM_FLAG_HEAD, 0x0);
    ck_assert_uint_eq(ACL_MODEL_STREAM_FLAG_DEFAULT, 0x7FFFFFFF);
#else
    COMPAT_SKIP("ACL %d.%d headers: the ACL 1.17 additions are not there", ACL_MAJOR_VERSION,
                ACL_MINOR_VERSION);
#endif
}

COMPAT_TEST(platform_enums,
            "acl_platform.h's enums have CANN's values",
            "acl_platform.h of ACL 1.17: aclplatformDevInfo, aclplatformCoreType, "
            "aclplatformNpuArch, aclplatformLocalMemType")
{
#ifdef COMPAT_HEADERS_1_17
    ck_assert_int_eq(ACL_PLATFORM_AICORE_CNT, 0);
    ck_assert_int_eq(ACL_PLATFORM_MEMORY_SIZE, 5);
    ck_assert_int_eq(ACL_PLATFORM_L1_SIZE, 12);
    ck_assert_int_eq(ACL_PLATFORM_SOC_VERSION, 13);
    ck_assert_int_eq(ACL_PLATFORM_MEMORY_TYPE, 16);
    ck_assert_int_eq(ACL_PLATFORM_CORE_TYPE_AI_CORE, 0);
    ck_assert_int_eq(ACL_PLATFORM_CORE_TYPE_VECTOR_CORE, 1);
    ck_assert_int_eq(DAV_1001, 1001);
    ck_assert_int_eq(DAV_2201, 2201);
    ck_assert_int_eq(DAV_5162, 5162);
    ck_assert_int_eq(DAV_RESV, 0xFFFF);
    ck_assert_int_eq(L0_A, 0);
    ck_assert_int_eq(L1, 3);
    ck_assert_int_eq(UB, 5);
    ck_assert_int_eq(HBM, 6);
#else
    COMPAT_SKIP("ACL %d.%d headers: the ACL 1.17 additions are not there", ACL_MAJOR_VERSION,
                ACL_MINOR_VERSION);
#endif
}

COMPAT_TEST(newest_device_and_memory_enums,
            "the device, atomic, memory-advice, range-attribute and memory-pool enums added in "
            "ACL 1.17 have CANN's values",
            "acl_rt.h, acl_rt_memory_soma.h of ACL 1.17: aclrtDevLimit, aclrtAtomicOperation, "
            "aclrtMemAdvise, aclrtMemRangeAttribute, aclrtMemPoolAttr ...")
{
#ifdef COMPAT_HEADERS_1_17
    ck_assert_int_eq(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 0);
    ck_assert_int_eq(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, 4);
    ck_assert_int_eq(ACL_RT_ATOMIC_OPERATION_CAS, 9);
    ck_assert_int_eq(ACL_RT_ATOMIC_OPERATION_FLOAT_MAX, 12);
    ck_assert_int_eq(ACL_RT_ATOMIC_OPERATION_DMA_ADD, 30);
    ck_assert_int_eq(ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH, 44);
    ck_assert_int_eq(ACL_RT_ATOMIC_CAPABILITY_REDUCTION, 4);
    ck_assert_int_eq(ACL_RT_ATOMIC_CAPABILITY_REDUCATION, ACL_RT_ATOMIC_CAPABILITY_REDUCTION);
    ck_assert_int_eq(ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4, 256);
    ck_assert_int_eq(ACL_MEM_ADVISE_UNSET_ACCESSED_BY, 5);
    ck_assert_int_eq(ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT, 4);
    ck_assert_int_eq(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 1);
    ck_assert_int_eq(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, 8);
    ck_assert_int_eq(ACL_RT_HAC_TYPE_DVPP, 7);
    ck_assert_int_eq(ACL_RT_HAC_TYPE_CCU, 9);
    ck_assert_int_eq(ACL_RT_HOST_MEM_MAP_SUPPORTED, 1);
    ck_assert_int_eq(ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH, 3);
    ck_assert_int_eq(HUGE1G_PAGE_TYPE, 2);
    ck_assert_int_eq(P2P_DDR_TYPE, 3);
    ck_assert_int_eq(ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, 1);
    ck_assert_int_eq(ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, 4);
    ck_assert_int_eq(ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, 8);
#else
    COMPAT_SKIP("ACL %d.%d headers: the ACL 1.17 additions are not there", ACL_MAJOR_VERSION,
                ACL_MINOR_VERSION);
#endif
}

COMPAT_TEST(newest_kernel_graph_and_misc_enums,
            "the kernel, model-run-instance, notify and snapshot enums added in ACL 1.17 have "
            "CANN's values",
            "acl_rt.h of ACL 1.17: aclrtBinaryLoadOptionType, aclrtLaunchKernelAttrId, "
            "aclmdlRITaskType, aclrtCntNotify*Mode, aclrtSnapShotStage ...")
{
#ifdef COMPAT_HEADERS_1_17
    ck_assert_int_eq(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1);
    ck_assert_int_eq(ACL_RT_BINARY_LOAD_OPT_MAGIC, 2);
    ck_assert_int_eq(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 3);
    ck_assert_int_eq(ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, 2);
    ck_assert_int_eq(ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, 8);
    ck_assert_int_eq(ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING, 9);
    ck_assert_int_eq(ACL_FUNC_ATTR_KERNEL_SCHED_MODE, 3);
    ck_assert_int_eq(ACL_KERNEL_TYPE_MIX, 3);
    ck_assert_int_eq(ACL_KERNEL_TYPE_AICPU, 100);
    ck_assert_int_eq(ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, 3);
    ck_assert_int_eq(ACL_RT_UPDATE_AIC_AIV_TASK, 2);
    ck_assert_int_eq(ACL_MODEL_RI_TASK_KERNEL, 1);
    ck_assert_int_eq(ACL_MODEL_RI_TASK_VALUE_WAIT, 6);
    ck_assert_int_eq(ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, 1);
    ck_assert_int_eq(ACL_MODEL_RI_COND_TYPE_SWITCH, 2);
    ck_assert_int_eq(ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 2);
    ck_assert_int_eq(ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 4);
    ck_assert_int_eq(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 4);
    ck_assert_int_eq(ACL_RT_SNAPSHOT_RESTORE_PRE, 3);
    ck_assert_int_eq(ACL_RT_SNAPSHOT_UNLOCK_POST, 5);
    ck_assert_int_eq(ACL_RT_PROCESS_STATE_LOCKED, 1);
#else
    COMPAT_SKIP("ACL %d.%d headers: the ACL 1.17 additions are not there", ACL_MAJOR_VERSION,
                ACL_MINOR_VERSION);
#endif
}

/* Layouts of the new structures; those with pointer-sized members are checked
 * with their 64-bit sizes. */
COMPAT_TEST(newest_struct_layouts,
            "the structures added in ACL 1.17 have CANN's sizes and member offsets "
            "(pointer-sized ones checked at their 64-bit sizes)",
            "acl_rt.h, acl_rt_memory_soma.h of ACL 1.17: aclrtLaunchKernelAttr, "
            "aclrtMemAccessDesc, aclmdlRITaskParams, aclrtMemPoolProps ...")
{
#ifdef COMPAT_HEADERS_1_17
    ck_assert_uint_eq(sizeof(aclrtLaunchKernelAttrValue), 16);
    ck_assert_uint_eq(sizeof(aclrtLaunchKernelAttr), 20);
    ck_assert_uint_eq(sizeof(aclrtBinaryLoadOption), 20);
    ck_assert_uint_eq(sizeof(aclrtTimeoutUs), 8);
    ck_assert_uint_eq(sizeof(aclrtPlaceHolderInfo), 8);
    ck_assert_uint_eq(sizeof(aclrtRandomParaInfo), 16);
    ck_assert_uint_eq(sizeof(aclrtRandomNumFuncParaInfo), 36);
    ck_assert_uint_eq(sizeof(aclrtMemFabricHandle), 128);
    ck_assert_uint_eq(sizeof(aclrtMemAccessDesc), 24);
    ck_assert_uint_eq(offsetof(aclrtMemAccessDesc, rsv), 12);
    ck_assert_uint_eq(sizeof(aclrtMemManagedLocation), 8);
    ck_assert_uint_eq(offsetof(aclrtPhysicalMemProp, location), 12);
    ck_assert_uint_eq(sizeof(aclrtCntNotifyWaitInfo), 16);
    ck_assert_uint_eq(sizeof(aclrtSnapShotBackupArgs), 64);
    ck_assert_uint_eq(sizeof(struct MemAttrMapping), 16);
    ck_assert_uint_eq(offsetof(aclrtErrorInfo, errorType), 4);
    ck_assert_uint_eq(sizeof(aclrtMemUceInfo), 2 * sizeof(size_t) + UCE_INFO_RESERVED_SIZE * sizeof(size_t));
    ck_assert_uint_eq(offsetof(aclrtMemPoolProps, maxSize), 16);
    if (sizeof(void *) == 8) {
        ck_assert_uint_eq(sizeof(aclrtMemPoolProps), 56);
        ck_assert_uint_eq(sizeof(aclmdlRITaskParams), 200);
        ck_assert_uint_eq(offsetof(aclmdlRITaskParams, kernelTaskParams), 72);
        ck_assert_uint_eq(offsetof(aclmdlRITaskParams, valueWaitTaskParams), 72);
        ck_assert_uint_eq(sizeof(aclmdlRIKernelTaskParams), 88);
        ck_assert_uint_eq(sizeof(aclmdlRICondTaskParams), 24);
        ck_assert_uint_eq(sizeof(aclrtRandomNumTaskInfo), 104);
        ck_assert_uint_eq(offsetof(aclrtRandomNumTaskInfo, randomSeed), 64);
        ck_assert_uint_eq(sizeof(aclrtTaskUpdateInfo), 48);
        ck_assert_uint_eq(sizeof(aclrtBarrierTaskInfo), 56);
        ck_assert_uint_eq(sizeof(aclrtMemUsageInfo), 112);
        ck_assert_uint_eq(sizeof(aclrtPhysicalMemProp), 32);
        ck_assert_uint_eq(sizeof(aclrtErrorInfo), 2576);
        ck_assert_uint_eq(sizeof(aclrtLaunchKernelCfg), 16);
    }
#else
    COMPAT_SKIP("ACL %d.%d headers: the ACL 1.17 additions are not there", ACL_MAJOR_VERSION,
                ACL_MINOR_VERSION);
#endif
}

/* dim3: the ACL headers' definition (acl-cuda's headers take CUDA's when a
 * CUDA header came first; its tests/check/test_headers_cxx checks that). */
COMPAT_TEST(dim3_layout,
            "dim3 is three uint32_t (x, y, z), 12 bytes",
            "acl_rt.h of ACL 1.17: dim3 (SIMT kernel launches)")
{
#ifdef COMPAT_HEADERS_1_17
    dim3 d = {4, 2, 1};
    ck_assert_uint_eq(sizeof(dim3), 12);
    ck_assert_uint_eq(offsetof(dim3, z), 8);
    ck_assert_uint_eq(sizeof d.x, 4);
    ck_assert_uint_eq(d.x * d.y * d.z, 8);
#else
    COMPAT_SKIP("ACL %d.%d headers: the ACL 1.17 additions are not there", ACL_MAJOR_VERSION,
                ACL_MINOR_VERSION);
#endif
}

Suite *compat_suite_headers(void);
Suite *compat_suite_headers(void)
{
    Suite *s = suite_create("headers");
    TCase *tc = tcase_create("values");
    tcase_add_test(tc, key_error_codes);
    tcase_add_test(tc, version_macros);
    tcase_add_test(tc, event_and_stream_enums);
    tcase_add_test(tc, flag_macros);
    tcase_add_test(tc, memory_enums);
    tcase_add_test(tc, device_enums);
    tcase_add_test(tc, base_enums);
    tcase_add_test(tc, struct_layouts);
    tcase_add_test(tc, newest_flag_macros);
    tcase_add_test(tc, platform_enums);
    tcase_add_test(tc, newest_device_and_memory_enums);
    tcase_add_test(tc, newest_kernel_graph_and_misc_enums);
    tcase_add_test(tc, newest_struct_layouts);
    tcase_add_test(tc, dim3_layout);
    suite_add_tcase(s, tc);
    return s;
}

COMPAT_MAIN(headers)
