/* The public headers: the error codes, enum values, flag macros and
 * structure layouts that programs (and pyACL's callers, who write the
 * numbers themselves) depend on have AscendCL's documented values. Nothing
 * here calls the library: these are facts of the headers the suite was
 * compiled against, checked at run time. Values of the R tier (ACL 1.15,
 * hicann/runtime d8beaaf) and older; see the header reference table in
 * docs/compat-suite.md. */
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
    suite_add_tcase(s, tc);
    return s;
}

COMPAT_MAIN(headers)
