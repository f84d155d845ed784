/* acl-cuda's own answers where ACL leaves the choice open or the hardware
 * differs: refusals (the overflow family, stream stop, inter-server
 * sharing), the one group, the limits and atomics a GPU has, SM
 * architecture strings, event timestamps on CLOCK_MONOTONIC, the host
 * backend's abort and snapshots, a notify imported by its own exporter.
 * ACL's documented behaviour of the same functions is in tests/compat. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
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

static uint64_t read_word(const uint64_t *word)
{
    uint64_t v = 0;
    ACL_OK(aclrtMemcpy(&v, sizeof v, word, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

START_TEST(inter_server_sharing_is_refused)
{
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    aclrtServerPid pids[1];
    memset(pids, 0, sizeof pids);
    ACL_FAILS_WITH(aclrtNotifySetImportPidInterServer(n, pids, 1),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtDestroyNotify(n));
}
END_TEST

/* Imported in the same process, the key names the same notify. */
START_TEST(export_and_import_in_process)
{
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    aclrtNotify n, m;
    ACL_OK(aclrtCreateNotify(&n, 0));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    ck_assert_uint_gt(strlen(key), 0);
    ck_assert_uint_lt(strlen(key), 65);
    /* Exporting twice is refused. */
    char again[65];
    ACL_FAILS_WITH(aclrtNotifyGetExportKey(n, again, sizeof again, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtNotifyImportByKey(&m, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    uint64_t *w = NULL;
    ACL_OK(aclrtMalloc((void **)&w, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(w, 8, 0, 8));
    ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
    ACL_OK(aclrtValueWrite(w, 9, 0, b));
    ACL_OK(aclrtRecordNotify(m, a));
    ACL_OK(aclrtSynchronizeStream(b));
    ck_assert_uint_eq(read_word(w), 9);
    /* Once the exporter destroyed it, the key imports nothing more. */
    ACL_OK(aclrtDestroyNotify(n));
    aclrtNotify late;
    ACL_FAILS_WITH(aclrtNotifyImportByKey(&late, key, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyNotify(m));
    ACL_OK(aclrtFree(w));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

/* On the host backend, what had not started when the stream was aborted is
 * cancelled, but host functions, which own what they were given, still
 * run; a synchronize under way ends with ACL_ERROR_RT_STREAM_ABORT. (On
 * CUDA, queued work still runs on the stream the abort retired.) */
typedef struct counter {
    pthread_mutex_t lock;
    int calls;
} counter;

static void count_call(void *arg)
{
    counter *c = arg;
    pthread_mutex_lock(&c->lock);
    c->calls++;
    pthread_mutex_unlock(&c->lock);
}

typedef struct sync_arg {
    aclrtStream stream;
    aclError result;
} sync_arg;

static void *synchronize_thread(void *arg)
{
    sync_arg *a = arg;
    ACL_OK(aclrtSetDevice(0));
    a->result = aclrtSynchronizeStream(a->stream);
    ACL_OK(aclrtResetDevice(0));
    return NULL;
}

START_TEST(host_abort_cancels_all_but_host_functions)
{
    if (!on_host_backend())
        return;
    aclrtStream s = acltest_new_stream();
    unsigned char *dev = NULL;
    ACL_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, 64, 1, 64));
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtMemsetAsync(dev, 64, 9, 64, s));
    counter c = {PTHREAD_MUTEX_INITIALIZER, 0};
    ACL_OK(aclrtLaunchHostFunc(s, count_call, &c));
    acltest_gate_wait_reached(&gate);
    sync_arg waiter = {s, ACL_SUCCESS};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, synchronize_thread, &waiter), 0);
    ACL_OK(aclrtStreamAbort(s));
    acltest_gate_open(&gate);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    /* Work queued after the abort runs after what the abort kept. */
    ACL_OK(aclrtMemsetAsync(dev + 32, 32, 7, 32, s));
    ACL_OK(aclrtSynchronizeStream(s));
    unsigned char host[64];
    ACL_OK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], 1); /* the fill was cancelled */
    ck_assert_uint_eq(host[32], 7);
    ck_assert_int_eq(c.calls, 1);  /* the host function ran */
    ck_assert_msg(waiter.result == ACL_SUCCESS || waiter.result == ACL_ERROR_RT_STREAM_ABORT,
                  "synchronize during the abort returned %d", (int)waiter.result);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* Value writes and notifies captured into a model run at every replay (on
 * the host backend: CUDA's capture of stream memory operations is for the
 * GPU run to show); a capturing stream has nothing queued to abort. */
START_TEST(captured_value_write_and_notify_replay)
{
    if (!on_host_backend())
        return;
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    uint64_t *word = NULL;
    ACL_OK(aclrtMalloc((void **)&word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(word, 64, 0, 64));
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    ACL_OK(aclmdlRICaptureBegin(a, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWrite(word, 7, 0, a));
    ACL_OK(aclrtRecordNotify(n, a));
    ACL_FAILS_WITH(aclrtStreamAbort(a), ACL_ERROR_RT_STREAM_CAPTURED);
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureEnd(a, &model));
    ck_assert_uint_eq(read_word(word), 0); /* recorded, not run */
    for (int round = 0; round < 2; round++) {
        ACL_OK(aclrtMemset(word, 8, 0, 8));
        ACL_OK(aclmdlRIExecuteAsync(model, a));
        ACL_OK(aclrtWaitAndResetNotify(n, b, 5));
        ACL_OK(aclrtValueWait(word, 7, ACL_STREAM_WAIT_VALUE_EQ, b));
        ACL_OK(aclrtSynchronizeStream(b));
        ACL_OK(aclrtSynchronizeStream(a));
        ck_assert_uint_eq(read_word(word), 7);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtFree(word));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
END_TEST

START_TEST(stop_is_refused_with_reason)
{
    aclrtStream s = acltest_new_stream();
    ACL_FAILS_WITH(aclrtStreamStop(s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

static uint64_t monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The time of a record in microseconds of CLOCK_MONOTONIC: between the
 * host's clock before the record and after the synchronize (with a margin
 * for the cuda backend's estimate), and in the records' order. */
START_TEST(event_timestamps)
{
    enum { MARGIN_US = 50 * 1000 };
    aclrtStream s = acltest_new_stream();
    aclrtEvent first, second, plain;
    ACL_OK(aclrtCreateEvent(&first));
    ACL_OK(aclrtCreateEventWithFlag(&second, ACL_EVENT_TIME_LINE));
    ACL_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_SYNC));
    uint64_t t;
    ACL_FAILS_WITH(aclrtEventGetTimestamp(first, &t), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    uint64_t before = monotonic_us();
    ACL_OK(aclrtRecordEvent(first, s));
    ACL_OK(aclrtRecordEvent(second, s));
    ACL_OK(aclrtRecordEvent(plain, s));
    acltest_gate_wait_reached(&gate);
    ACL_FAILS_WITH(aclrtEventGetTimestamp(first, &t), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    uint64_t after = monotonic_us();
    uint64_t t1, t2;
    ACL_OK(aclrtEventGetTimestamp(first, &t1));
    ACL_OK(aclrtEventGetTimestamp(second, &t2));
    ck_assert_uint_le(t1, t2);
    ck_assert_uint_ge(t1 + MARGIN_US, before);
    ck_assert_uint_le(t2, after + MARGIN_US);
    /* Asked again, the same answer. */
    ACL_OK(aclrtEventGetTimestamp(first, &t));
    ck_assert_uint_eq(t, t1);
    ACL_FAILS_WITH(aclrtEventGetTimestamp(plain, &t), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    ACL_OK(aclrtDestroyEvent(first));
    ACL_OK(aclrtDestroyEvent(second));
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

START_TEST(resource_limit_levels)
{
    uint32_t hw, v;
    ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &hw));
    ck_assert_uint_ge(hw, 1);
    int64_t cores;
    ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores));
    ck_assert_int_eq((int64_t)hw, cores);
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);

    ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1); /* the process level, for a stream without its own */
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1); /* the thread does not use the stream yet */
    ACL_OK(aclrtUseStreamResInCurrentThread(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_OK(aclrtUseStreamResInCurrentThread(s));
    ACL_OK(aclrtResetStreamResLimit(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);
    ACL_OK(aclrtResetDeviceResLimit(0));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    /* A stream in use that goes away leaves the device's limit. */
    ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_FAILS_WITH(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, hw + 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)2, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetDeviceResLimit(1 << 20, ACL_RT_DEV_RES_CUBE_CORE, &v),
                   ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

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
    /* The host backend's device shares the host's memory, so it has host
     * atomics; a GPU's are the driver's answer: none where the GPU hangs on
     * PCIe (an H200 PCIe reports 0), some over NVLink-C2C. */
    if (on_host_backend())
        ck_assert_msg(caps[0] & ACL_RT_ATOMIC_CAPABILITY_SCALAR32, "integer add: 0x%x", caps[0]);
    ck_assert_msg(caps[0] < (ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4 << 1), "integer add: 0x%x", caps[0]);
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

static void gate_closed(void *arg)
{
    while (!atomic_load((atomic_int *)arg))
        usleep(1000);
}

static void slow_flag(void *arg)
{
    usleep(100 * 1000);
    atomic_store((atomic_int *)arg, 1);
}

/* aclrtStreamAbort keeps host functions (they own what they were given):
 * the stream still owes them, so its synchronize and its destroy wait for
 * them. Host backend only: cuda's abort leaves them on the CUDA stream it
 * retires, which no longer belongs to the ACL stream. */
START_TEST(abort_still_owes_the_host_functions_it_keeps)
{
    if (!on_host_backend())
        return;
    aclrtStream s = acltest_new_stream();
    atomic_int open = 0, ran = 0;
    ACL_OK(aclrtLaunchHostFunc(s, gate_closed, &open));
    ACL_OK(aclrtLaunchHostFunc(s, slow_flag, &ran));
    ACL_OK(aclrtStreamAbort(s));
    atomic_store(&open, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(atomic_load(&ran), 1);
    atomic_store(&ran, 0);
    atomic_store(&open, 0);
    ACL_OK(aclrtLaunchHostFunc(s, gate_closed, &open));
    ACL_OK(aclrtLaunchHostFunc(s, slow_flag, &ran));
    ACL_OK(aclrtStreamAbort(s));
    atomic_store(&open, 1);
    ACL_OK(aclrtDestroyStream(s));
    ck_assert_int_eq(atomic_load(&ran), 1);
}
END_TEST

/* A timing event whose record an abort cancelled has no time: elapsed
 * time and timestamp refuse it. Host backend only (cuda's abort cancels
 * nothing). */
START_TEST(abort_cancelled_record_has_no_time)
{
    if (!on_host_backend())
        return;
    aclrtStream s = acltest_new_stream();
    aclrtEvent a, b;
    ACL_OK(aclrtCreateEventWithFlag(&a, ACL_EVENT_TIME_LINE));
    ACL_OK(aclrtCreateEventWithFlag(&b, ACL_EVENT_TIME_LINE));
    ACL_OK(aclrtRecordEvent(a, s));
    ACL_OK(aclrtSynchronizeStream(s));
    atomic_int open = 0;
    ACL_OK(aclrtLaunchHostFunc(s, gate_closed, &open));
    ACL_OK(aclrtRecordEvent(b, s)); /* cancelled by the abort */
    ACL_OK(aclrtStreamAbort(s));
    atomic_store(&open, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    float ms = 0;
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, a, b), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    uint64_t us = 0;
    ACL_FAILS_WITH(aclrtEventGetTimestamp(b, &us), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    ACL_OK(aclrtDestroyEvent(a));
    ACL_OK(aclrtDestroyEvent(b));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

/* A notify wait that timed out is reported by the stream's next
 * synchronize, also when a query found the stream complete before it, and
 * not by a later one. */
START_TEST(query_leaves_a_timeout_to_the_next_synchronize)
{
    aclrtStream s = acltest_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtWaitAndResetNotify(n, s, 1)); /* nothing records it: 1 s */
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    for (int i = 0; i < 400 && status != ACL_STREAM_STATUS_COMPLETE; i++) {
        usleep(10 * 1000);
        ACL_OK(aclrtStreamQuery(s, &status));
    }
    ck_assert_int_eq(status, ACL_STREAM_STATUS_COMPLETE);
    ck_assert_int_eq(aclrtSynchronizeStream(s), ACL_ERROR_RT_TASK_TIMEOUT);
    ACL_OK(aclrtMemsetAsync(dev, 64, 0, 64, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtDestroyStream(s));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("runtime");

    TCase *streams = tcase_create("streams");
    tcase_add_checked_fixture(streams, set_up, tear_down);
    tcase_add_test(streams, inter_server_sharing_is_refused);
    tcase_add_test(streams, export_and_import_in_process);
    tcase_add_test(streams, host_abort_cancels_all_but_host_functions);
    tcase_add_test(streams, stop_is_refused_with_reason);
    tcase_add_test(streams, captured_value_write_and_notify_replay);
    tcase_add_test(streams, event_timestamps);
    tcase_add_test(streams, resource_limit_levels);
    tcase_add_test(streams, abort_still_owes_the_host_functions_it_keeps);
    tcase_add_test(streams, query_leaves_a_timeout_to_the_next_synchronize);
    tcase_add_test(streams, abort_cancelled_record_has_no_time);
    suite_add_tcase(s, streams);

    TCase *devices = tcase_create("devices");
    tcase_add_checked_fixture(devices, set_up, tear_down);
    tcase_add_test(devices, device_limits);
    tcase_add_test(devices, atomic_capabilities);
    tcase_add_test(devices, overflow_family_is_consistently_refused);
    tcase_add_test(devices, one_group_holds_the_device);
    tcase_add_test(devices, architecture_compatibility);
    tcase_add_test(devices, snapshot_sequence);
    suite_add_tcase(s, devices);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}

