/* Devices beyond setting and querying them: PCI addresses and id spaces,
 * limits, atomic capabilities, topology, state and task-abort callbacks,
 * the overflow family (refused together), core groups; and diagnostics:
 * error reports, exception callbacks, architecture and software-stack
 * queries, profiling marks, process snapshots. */
#include <ctype.h>
#include <stdint.h>
#include <unistd.h>

#include "acltest.h"
#include "acl/acl_cuda.h"

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

/* Two host devices where the host backend runs, so that pairs exist. */
static void set_up_two(void)
{
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "2", 1);
    set_up();
}

static bool on_host_backend(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

static uint32_t device_count(void)
{
    uint32_t n;
    ACL_OK(aclrtGetDeviceCount(&n));
    return n;
}

/* ---- PCI addresses, ids ------------------------------------------------------------------- */

START_TEST(pci_bus_ids_round_trip)
{
    uint32_t n = device_count();
    for (uint32_t d = 0; d < n; d++) {
        char id[32];
        ACL_OK(aclrtDeviceGetPCIBusId((int32_t)d, id, 13));
        ck_assert_uint_eq(strlen(id), 12);
        ck_assert_msg(id[4] == ':' && id[7] == ':' && id[10] == '.', "\"%s\"", id);
        int32_t back = -1;
        ACL_OK(aclrtDeviceGetByPCIBusId(id, &back));
        ck_assert_int_eq(back, (int32_t)d);
        /* Upper case, and without the domain when it is 0. */
        char upper[32];
        for (size_t i = 0; i <= strlen(id); i++)
            upper[i] = (char)toupper((unsigned char)id[i]);
        ACL_OK(aclrtDeviceGetByPCIBusId(upper, &back));
        ck_assert_int_eq(back, (int32_t)d);
        if (strncmp(id, "0000:", 5) == 0) {
            ACL_OK(aclrtDeviceGetByPCIBusId(id + 5, &back));
            ck_assert_int_eq(back, (int32_t)d);
        }
    }
    int32_t dev;
    ACL_FAILS_WITH(aclrtDeviceGetByPCIBusId("ffff:ff:1f.7", &dev), ACL_ERROR_RT_INVALID_DEVICEID);
    char id[32];
    ACL_FAILS_WITH(aclrtDeviceGetPCIBusId((int32_t)n, id, sizeof id),
                   ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

START_TEST(user_and_physical_ids)
{
    uint32_t n = device_count();
    for (uint32_t d = 0; d < n; d++) {
        int32_t phy, user;
        ACL_OK(aclrtGetPhyDevIdByUserDevId((int32_t)d, &phy));
        ACL_OK(aclrtGetUserDevIdByPhyDevId(phy, &user));
        ck_assert_int_eq(user, (int32_t)d);
    }
    int32_t out;
    ACL_FAILS_WITH(aclrtGetPhyDevIdByUserDevId((int32_t)n, &out), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtGetUserDevIdByPhyDevId(-1, &out), ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

/* ---- limits ------------------------------------------------------------------------------ */

START_TEST(device_limits)
{
    size_t v;
    ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, &v));
    ck_assert_uint_gt(v, 0);
    ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 2048));
    ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, &v));
    ck_assert_uint_eq(v, 2048);
    ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 1000)); /* to 128 bytes */
    ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, &v));
    ck_assert_uint_eq(v, 1024);
    ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, 4u << 20));
    ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, &v));
    ck_assert_uint_eq(v, 4u << 20);
    /* A device set later gets them too. */
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtSetDevice(0));
    ACL_FAILS_WITH(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, 100),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 65536),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE, &v),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtDeviceSetLimit((aclrtDeviceLimit)9, 1), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* ---- atomics, topology ----------------------------------------------------------------------- */

START_TEST(atomic_capabilities)
{
    aclrtAtomicOperation ops[] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,
                                  ACL_RT_ATOMIC_OPERATION_CAS, ACL_RT_ATOMIC_OPERATION_DMA_ADD,
                                  ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH};
    uint32_t caps[4] = {0xdead, 0xdead, 0xdead, 0xdead};
    aclError err = aclrtDeviceGetHostAtomicCapabilities(caps, ops, 4, 0);
    if (err == ACL_ERROR_RT_FEATURE_NOT_SUPPORT && !on_host_backend())
        return; /* a CUDA driver older than 13 cannot tell */
    ACL_OK(err);
    ck_assert_msg(caps[0] & ACL_RT_ATOMIC_CAPABILITY_SCALAR32, "integer add: 0x%x", caps[0]);
    ck_assert_uint_eq(caps[2], 0); /* Ascend's DMA and SIMD operations: none */
    ck_assert_uint_eq(caps[3], 0);
    if (device_count() >= 2) {
        ACL_OK(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 4, 0, 1));
        ck_assert_uint_eq(caps[2], 0);
    }
    ACL_FAILS_WITH(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 4, 0, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 0, 0), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(devices_topology)
{
    uint64_t topo;
    ACL_FAILS_WITH(aclrtGetDevicesTopo(0, 0, &topo), ACL_ERROR_INVALID_PARAM);
    uint32_t n = device_count();
    ACL_FAILS_WITH(aclrtGetDevicesTopo(0, n, &topo), ACL_ERROR_RT_INVALID_DEVICEID);
    if (n < 2)
        return;
    ACL_OK(aclrtGetDevicesTopo(0, 1, &topo));
    const uint64_t known = ACL_RT_DEVS_TOPOLOGY_HCCS | ACL_RT_DEVS_TOPOLOGY_PIX |
                           ACL_RT_DEVS_TOPOLOGY_PHB | ACL_RT_DEVS_TOPOLOGY_SYS;
    ck_assert_msg(topo && (topo & ~known) == 0 && (topo & (topo - 1)) == 0,
                  "topology 0x%llx is not one link", (unsigned long long)topo);
    uint64_t back;
    ACL_OK(aclrtGetDevicesTopo(1, 0, &back));
    ck_assert_uint_eq(back, topo);
}
END_TEST

/* ---- callbacks -------------------------------------------------------------------------- */

enum { MAX_SEEN = 16 };

typedef struct seen_devices {
    int count;
    int32_t devices[MAX_SEEN];
    int states[MAX_SEEN];
} seen_devices;

static void remember_device(int32_t device, aclrtDeviceState state, void *args)
{
    seen_devices *seen = args;
    if (seen->count < MAX_SEEN) {
        seen->devices[seen->count] = device;
        seen->states[seen->count] = state;
    }
    seen->count++;
}

START_TEST(device_state_callbacks)
{
    seen_devices seen = {0};
    ACL_OK(aclrtRegDeviceStateCallback("dev", remember_device, &seen));
    ACL_FAILS_WITH(aclrtRegDeviceStateCallback("dev", remember_device, &seen),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ck_assert_int_eq(seen.count, 4);
    const int expected[] = {ACL_RT_DEVICE_STATE_SET_PRE, ACL_RT_DEVICE_STATE_SET_POST,
                            ACL_RT_DEVICE_STATE_RESET_PRE, ACL_RT_DEVICE_STATE_RESET_POST};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(seen.states[i], expected[i]);
        ck_assert_int_eq(seen.devices[i], 0);
    }
    ACL_OK(aclrtRegDeviceStateCallback("dev", NULL, NULL));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ck_assert_int_eq(seen.count, 4);
}
END_TEST

typedef struct abort_seen {
    int pre, post;
    uint32_t timeout;
    int32_t refuse; /* what PRE returns */
} abort_seen;

static int32_t on_abort(int32_t device, aclrtDeviceTaskAbortStage stage, uint32_t timeout,
                        void *args)
{
    abort_seen *seen = args;
    (void)device;
    seen->timeout = timeout;
    if (stage == ACL_RT_DEVICE_TASK_ABORT_PRE) {
        seen->pre++;
        return seen->refuse;
    }
    seen->post++;
    return 0;
}

/* Every stream of the device is aborted between the callbacks: one stuck
 * on a wait nothing will release is idle afterwards. */
START_TEST(device_task_abort)
{
    abort_seen seen = {0};
    ACL_OK(aclrtSetDeviceTaskAbortCallback("abort", on_abort, &seen));
    aclrtStream s = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY);

    seen.refuse = 5;
    ACL_FAILS_WITH(aclrtDeviceTaskAbort(0, 1000), ACL_ERROR_RT_DEVICE_TASK_ABORT);
    ck_assert_int_eq(seen.pre, 1);
    ck_assert_int_eq(seen.post, 0);
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY); /* nothing was aborted */

    seen.refuse = 0;
    ACL_OK(aclrtDeviceTaskAbort(0, 1000));
    ck_assert_int_eq(seen.pre, 2);
    ck_assert_int_eq(seen.post, 1);
    ck_assert_uint_eq(seen.timeout, 1000);
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeStream(s));

    ACL_FAILS_WITH(aclrtDeviceTaskAbort(0, 36u * 60 * 1000 + 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDeviceTaskAbort(1 << 20, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtSetDeviceTaskAbortCallback("abort", NULL, NULL));
    ACL_OK(aclrtRecordNotify(n, NULL)); /* releases what CUDA keeps running */
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- the overflow family, refused together ----------------------------------------------------- */

START_TEST(overflow_family_is_consistently_refused)
{
    aclrtStream s = acltest_new_stream();
    ACL_FAILS_WITH(aclrtSetStreamOverflowSwitch(s, 1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtSetStreamOverflowSwitch(s, 0));
    uint32_t flag = 7;
    ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
    ck_assert_uint_eq(flag, 0);
    aclrtStreamAttrValue on = {.overflowSwitch = 1};
    ACL_FAILS_WITH(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &on),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    void *out = NULL;
    ACL_OK(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_FAILS_WITH(aclrtGetOverflowStatus(out, 64, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtResetOverflowStatus(s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtGetFloatOverflowStatus(out, 64, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtResetFloatOverflowStatus(s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtNpuGetFloatOverFlowStatus(out, 64, 0, s),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtNpuClearFloatOverFlowStatus(0, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    void *addr;
    ACL_FAILS_WITH(aclrtCtxGetFloatOverflowAddr(&addr), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
    aclrtFloatOverflowMode mode;
    ACL_OK(aclrtGetDeviceSatMode(&mode));
    ck_assert_int_eq(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
    int32_t infnan = 0;
    ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &infnan));
    ck_assert_int_eq(infnan, 1);
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- groups --------------------------------------------------------------------------------- */

START_TEST(one_group_holds_the_device)
{
    uint32_t count;
    ACL_OK(aclrtGetGroupCount(&count));
    ck_assert_uint_eq(count, 1);
    aclrtGroupInfo *info = aclrtCreateGroupInfo();
    ck_assert_ptr_nonnull(info);
    int32_t value;
    size_t size;
    ACL_FAILS_WITH(aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_AICORE_INT, &value, sizeof value,
                                           &size),
                   ACL_ERROR_GROUP_NOT_SET);
    ACL_OK(aclrtGetAllGroupInfo(info));
    int64_t cores;
    ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores));
    ACL_OK(aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_AICORE_INT, &value, sizeof value, &size));
    ck_assert_uint_eq(size, sizeof(int32_t));
    ck_assert_int_eq(value, cores);
    ACL_OK(aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_GROUPID_INT, &value, sizeof value, &size));
    ck_assert_int_eq(value, 0);
    ACL_OK(aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_SDMANUM_INT, &value, sizeof value, &size));
    ck_assert_int_ge(value, 0);
    ACL_FAILS_WITH(aclrtGetGroupInfoDetail(info, 1, ACL_GROUP_AICORE_INT, &value, sizeof value,
                                           &size),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetGroupInfoDetail(info, 0, (aclrtGroupAttr)6, &value, sizeof value, &size),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSetGroup(0));
    ACL_FAILS_WITH(aclrtSetGroup(1), ACL_ERROR_GROUP_NOT_CREATE);
    ACL_OK(aclrtDestroyGroupInfo(info));
    ACL_FAILS_WITH(aclrtDestroyGroupInfo(info), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* ---- diagnostics ------------------------------------------------------------------------------ */

START_TEST(error_verbose_and_repair)
{
    aclrtErrorInfo info;
    memset(&info, 0xff, sizeof info);
    ACL_OK(aclrtGetErrorVerbose(0, &info));
    ck_assert_int_eq(info.errorType, ACL_RT_NO_ERROR);
    ck_assert_uint_eq(info.tryRepair, 0);
    ACL_OK(aclrtRepairError(0, &info)); /* nothing to repair */
    info.errorType = ACL_RT_ERROR_MEMORY;
    ACL_FAILS_WITH(aclrtRepairError(0, &info), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetErrorVerbose(1 << 20, &info), ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

static void exception_callback(aclrtExceptionInfo *info)
{
    (void)info;
}

START_TEST(exception_callbacks)
{
    ACL_OK(aclrtExceptionInfoCallbackRegister(exception_callback));
    ACL_OK(aclrtExceptionInfoCallbackRegister(exception_callback)); /* kept once */
    ACL_OK(aclrtExceptionInfoCallbackUnregister(exception_callback));
    ACL_OK(aclrtExceptionInfoCallbackUnregister(exception_callback));
    /* No exception info outside a callback is one of ours. */
    unsigned char local[64] = {0};
    (void)aclGetRecentErrMsg();
    ck_assert_uint_eq(aclrtGetDeviceIdFromExceptionInfo((const aclrtExceptionInfo *)local),
                      UINT32_MAX);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}
END_TEST

START_TEST(architecture_compatibility)
{
    int32_t ok = -1;
    const char *soc = aclrtGetSocName();
    ck_assert_ptr_nonnull(soc);
    ACL_OK(aclrtCheckArchCompatibility(soc, &ok));
    ck_assert_int_eq(ok, 1);
    ACL_OK(aclrtCheckArchCompatibility("Ascend910B1", &ok));
    ck_assert_int_eq(ok, 0);
    ACL_OK(aclrtCheckArchCompatibility("sm_10", &ok));
    ck_assert_int_eq(ok, 0); /* no device is of compute capability 1.0 */
    if (!on_host_backend()) {
        /* PTX for 5.0 runs on every device CUDA 13 supports. */
        ACL_OK(aclrtCheckArchCompatibility("compute_50", &ok));
        ck_assert_int_eq(ok, 1);
    }
}
END_TEST

START_TEST(cann_attributes_agree)
{
    const aclCannAttr *list;
    size_t num;
    ACL_OK(aclGetCannAttributeList(&list, &num));
    bool listed[3] = {false, false, false};
    for (size_t i = 0; i < num; i++) {
        ck_assert_int_ge(list[i], 0);
        ck_assert_int_le(list[i], 2);
        listed[list[i]] = true;
    }
    for (int a = 0; a <= 2; a++) {
        int32_t v = -1;
        ACL_OK(aclGetCannAttribute((aclCannAttr)a, &v));
        ck_assert_int_eq(v, listed[a] ? 1 : 0);
    }
    ck_assert(listed[ACL_CANN_ATTR_INF_NAN]);
    ck_assert(!listed[ACL_CANN_ATTR_JIT_COMPILE]);
    int32_t v;
    ACL_FAILS_WITH(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(prof_trace_marks)
{
    unsigned char data[18] = "acl-cuda marks";
    ACL_OK(aclrtProfTrace(data, 18, NULL));
    ACL_OK(aclrtProfTrace(data, 1, NULL));
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtProfTrace(data, 5, s));
    ACL_FAILS_WITH(aclrtProfTrace(data, 0, s), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* ---- snapshots (the host backend: the CUDA checkpoint of a process by
 * itself is for the GPU run, see docs/backends.md) ------------------------------------------------- */

typedef struct snapshot_seen {
    int stages[8];
    int count;
} snapshot_seen;

static snapshot_seen snaps;

static uint32_t note_stage_lock(int32_t d, void *a)
{
    (void)d;
    snaps.stages[snaps.count++ % 8] = (int)(intptr_t)a;
    return 0;
}

static uint32_t failing_stage(int32_t d, void *a)
{
    (void)d;
    (void)a;
    return 1;
}

START_TEST(snapshot_sequence)
{
    if (!on_host_backend())
        return;
    int pid = (int)getpid();
    for (int st = ACL_RT_SNAPSHOT_LOCK_PRE; st <= ACL_RT_SNAPSHOT_UNLOCK_POST; st++)
        ACL_OK(aclrtSnapShotCallbackRegister((aclrtSnapShotStage)st, note_stage_lock,
                                             (void *)(intptr_t)st));
    ACL_FAILS_WITH(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, note_stage_lock, NULL),
                   ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED);
    ACL_FAILS_WITH(aclrtSnapShotProcessBackup(pid, NULL), ACL_ERROR_SNAPSHOT_BACKUP_FAILED);
    ACL_FAILS_WITH(aclrtSnapShotProcessLock(pid + 1, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSnapShotProcessLock(pid, NULL));
    ACL_FAILS_WITH(aclrtSnapShotProcessLock(pid, NULL), ACL_ERROR_SNAPSHOT_LOCK_FAILED);
    ACL_FAILS_WITH(aclrtSnapShotProcessRestore(pid, NULL), ACL_ERROR_SNAPSHOT_RESTORE_FAILED);
    ACL_OK(aclrtSnapShotProcessBackup(pid, NULL));
    ACL_OK(aclrtSnapShotProcessRestore(pid, NULL));
    ACL_OK(aclrtSnapShotProcessUnlock(pid, NULL));
    ACL_FAILS_WITH(aclrtSnapShotProcessUnlock(pid, NULL), ACL_ERROR_SNAPSHOT_UNLOCK_FAILED);
    const int expected[] = {ACL_RT_SNAPSHOT_LOCK_PRE,    ACL_RT_SNAPSHOT_BACKUP_PRE,
                            ACL_RT_SNAPSHOT_BACKUP_POST, ACL_RT_SNAPSHOT_RESTORE_PRE,
                            ACL_RT_SNAPSHOT_RESTORE_POST, ACL_RT_SNAPSHOT_UNLOCK_POST};
    ck_assert_int_eq(snaps.count, 6); /* one device set: one call per stage */
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(snaps.stages[i], expected[i]);
    for (int st = ACL_RT_SNAPSHOT_LOCK_PRE; st <= ACL_RT_SNAPSHOT_UNLOCK_POST; st++)
        ACL_OK(aclrtSnapShotCallbackUnregister((aclrtSnapShotStage)st, note_stage_lock));
    /* A callback that fails stops the step, the state unchanged. */
    ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, failing_stage, NULL));
    ACL_FAILS_WITH(aclrtSnapShotProcessLock(pid, NULL), ACL_ERROR_SNAPSHOT_CALLBACK_FAILED);
    ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, failing_stage));
    ACL_OK(aclrtSnapShotProcessLock(pid, NULL));
    ACL_OK(aclrtSnapShotProcessUnlock(pid, NULL));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("device_control");

    TCase *devices = tcase_create("devices");
    tcase_add_checked_fixture(devices, set_up_two, tear_down);
    tcase_add_test(devices, pci_bus_ids_round_trip);
    tcase_add_test(devices, user_and_physical_ids);
    tcase_add_test(devices, device_limits);
    tcase_add_test(devices, atomic_capabilities);
    tcase_add_test(devices, devices_topology);
    suite_add_tcase(s, devices);

    TCase *callbacks = tcase_create("callbacks");
    tcase_add_checked_fixture(callbacks, set_up, tear_down);
    tcase_add_test(callbacks, device_state_callbacks);
    tcase_add_test(callbacks, device_task_abort);
    suite_add_tcase(s, callbacks);

    TCase *refused = tcase_create("overflow_and_groups");
    tcase_add_checked_fixture(refused, set_up, tear_down);
    tcase_add_test(refused, overflow_family_is_consistently_refused);
    tcase_add_test(refused, one_group_holds_the_device);
    suite_add_tcase(s, refused);

    TCase *diag = tcase_create("diag");
    tcase_add_checked_fixture(diag, set_up, tear_down);
    tcase_add_test(diag, error_verbose_and_repair);
    tcase_add_test(diag, exception_callbacks);
    tcase_add_test(diag, architecture_compatibility);
    tcase_add_test(diag, cann_attributes_agree);
    tcase_add_test(diag, prof_trace_marks);
    tcase_add_test(diag, snapshot_sequence);
    suite_add_tcase(s, diag);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
