/* Devices: counting and selecting them, the process-wide SetDevice reference
 * count, ASCEND_RT_VISIBLE_DEVICES, device-wide synchronisation, the device
 * queries, and the bad-argument rows of the device functions. */
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctype.h>

#include "bad_args.h"

/* The platform queries came with ACL 1.17. */
#if ACL_MINOR_VERSION >= 17
#include "acl/acl_platform.h"
#define COMPAT_PLATFORM 1
#endif

static void init(void)
{
    ACL_OK(aclInit(NULL));
}

static void finalize(void)
{
    ACL_OK(aclFinalize());
}

static uint32_t device_count(void)
{
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    return count;
}

COMPAT_TEST(count_at_least_one,
            "aclrtGetDeviceCount reports at least one device and refuses a NULL count with ACL_ERROR_INVALID_PARAM",
            "acl_rt.h aclrtGetDeviceCount; API ref aclrtGetDeviceCount")
{
    ck_assert_uint_ge(device_count(), 1);
    ACL_FAILS_WITH(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
}

COMPAT_TEST(set_device_rejects_bad_ids,
            "aclrtSetDevice with -1 or an id past the count returns ACL_ERROR_RT_INVALID_DEVICEID (107001)",
            "acl_rt.h aclrtSetDevice/aclrtResetDevice; API ref Device Management; [impl] invalid id -> 107001")
{
    ACL_FAILS_WITH(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtSetDevice((int32_t)device_count()), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
}

static void *get_device_in_thread(void *arg)
{
    int32_t device = -7;
    *(aclError *)arg = aclrtGetDevice(&device);
    return NULL;
}

COMPAT_TEST(get_device_without_device_fails,
            "aclrtGetDevice without a device or context returns ACL_ERROR_RT_CONTEXT_NULL (107002); another thread's SetDevice gives a new thread no device",
            "acl_rt.h aclrtGetDevice; API ref: SetDevice binds the calling thread; [impl] 107002")
{
    ACL_FAILS_WITH(aclrtGetDevice(&(int32_t){0}), ACL_ERROR_RT_CONTEXT_NULL);
    ck_assert_int_eq(ACL_ERROR_RT_CONTEXT_NULL, 107002);
    /* Another thread's SetDevice does not give this new thread a device. */
    ACL_OK(aclrtSetDevice(0));
    aclError in_thread = ACL_SUCCESS;
    compat_run_thread(get_device_in_thread, &in_thread);
    ck_assert_int_eq(in_thread, ACL_ERROR_RT_CONTEXT_NULL);
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(set_then_get_device,
            "aclrtGetDevice reports the device the thread set last",
            "acl_rt.h aclrtGetDevice; API ref aclrtSetDevice")
{
    uint32_t count = device_count();
    for (int32_t dev = (int32_t)count - 1; dev >= 0; dev--) {
        ACL_OK(aclrtSetDevice(dev));
        int32_t got = -1;
        ACL_OK(aclrtGetDevice(&got));
        ck_assert_int_eq(got, dev);
    }
    ACL_FAILS_WITH(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
    for (int32_t dev = 0; dev < (int32_t)count; dev++)
        ACL_OK(aclrtResetDevice(dev));
}

COMPAT_TEST(reset_counts_down_in_one_thread,
            "each aclrtSetDevice takes a reference, each aclrtResetDevice drops one; one reset too many returns ACL_ERROR_RT_CONTEXT_RELEASE_ERROR (507007)",
            "acl_rt.h aclrtSetDevice/aclrtResetDevice; API ref Device Management: reference counting; [impl] 507007")
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ACL_FAILS_WITH(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
}

/* Thread B holds the second reference and uses a stream of the default
 * context after thread A has dropped the first one. */
typedef struct shared_device {
    pthread_barrier_t set;
    pthread_barrier_t a_reset;
    aclError set_device, create_stream, malloc_host, malloc_dev, memset, copy, sync, destroy;
    bool data_ok;
} shared_device;

static void *second_user(void *arg)
{
    shared_device *t = arg;
    aclrtStream stream = NULL;
    t->set_device = aclrtSetDevice(0);
    t->create_stream = aclrtCreateStream(&stream);
    pthread_barrier_wait(&t->set);
    pthread_barrier_wait(&t->a_reset);
    if (t->set_device != ACL_SUCCESS || t->create_stream != ACL_SUCCESS)
        return NULL;
    enum { SIZE = 4096 };
    void *dev = NULL;
    uint8_t *host = NULL;
    t->malloc_dev = aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST);
    t->malloc_host = aclrtMallocHost((void **)&host, SIZE);
    if (t->malloc_dev != ACL_SUCCESS || t->malloc_host != ACL_SUCCESS)
        return NULL;
    t->memset = aclrtMemsetAsync(dev, SIZE, 0x5a, SIZE, stream);
    t->copy = aclrtMemcpyAsync(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream);
    t->sync = aclrtSynchronizeStream(stream);
    t->data_ok = true;
    for (size_t i = 0; i < SIZE; i++)
        t->data_ok = t->data_ok && host[i] == 0x5a;
    t->destroy = aclrtDestroyStream(stream);
    aclrtFree(dev);
    aclrtFreeHost(host);
    return NULL;
}

COMPAT_TEST(reset_keeps_device_while_other_thread_holds_it,
            "the device reference count is process-wide: after one thread resets, another thread's reference keeps the default context and its streams usable",
            "acl_rt.h aclrtSetDevice/aclrtResetDevice; API ref Device Management: reference counting, shared default context")
{
    shared_device t = {.data_ok = false};
    pthread_barrier_init(&t.set, NULL, 2);
    pthread_barrier_init(&t.a_reset, NULL, 2);
    ACL_OK(aclrtSetDevice(0));
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, second_user, &t), 0);
    pthread_barrier_wait(&t.set);
    aclError first_reset = aclrtResetDevice(0);
    pthread_barrier_wait(&t.a_reset);
    pthread_join(thread, NULL);
    ACL_OK(first_reset);
    ck_assert_int_eq(t.set_device, ACL_SUCCESS);
    ck_assert_int_eq(t.create_stream, ACL_SUCCESS);
    ck_assert_int_eq(t.malloc_dev, ACL_SUCCESS);
    ck_assert_int_eq(t.malloc_host, ACL_SUCCESS);
    ck_assert_int_eq(t.memset, ACL_SUCCESS);
    ck_assert_int_eq(t.copy, ACL_SUCCESS);
    ck_assert_int_eq(t.sync, ACL_SUCCESS);
    ck_assert_msg(t.data_ok, "work on the default context's stream did not land");
    ck_assert_int_eq(t.destroy, ACL_SUCCESS);
    /* The second reset releases the device; a third has nothing to release. */
    ACL_OK(aclrtResetDevice(0));
    ACL_FAILS_WITH(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
}

COMPAT_TEST(reset_unset_device_fails,
            "resetting a device that was never set returns ACL_ERROR_RT_CONTEXT_RELEASE_ERROR (507007)",
            "acl_rt.h aclrtSetDevice/aclrtResetDevice; API ref Device Management; [impl] 507007")
{
    ACL_FAILS_WITH(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    ck_assert_int_eq(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007);
}

COMPAT_TEST(reset_force_releases_at_once,
            "aclrtResetDeviceForce releases the device whatever its count; it can be set again afterwards",
            "acl_rt.h aclrtResetDeviceForce; API ref aclrtResetDeviceForce")
{
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDeviceForce(0));
    ACL_FAILS_WITH(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    /* The device can be set again afterwards. */
    ACL_OK(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(second_reset_force_fails,
            "plain resets first, one force reset last; a second force reset fails",
            "API ref aclrtResetDeviceForce: a second force reset errors")
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDeviceForce(0));
    ACL_FAILS(aclrtResetDeviceForce(0));
}

/* Runs fn in a child process and returns its exit status: the child may
 * set ACL's environment before its first ACL call. */
static int in_child(int (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(fn());
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "the child died (status 0x%x)", status);
    return WEXITSTATUS(status);
}

static int count_devices(void)
{
    uint32_t count = 0;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS)
        return 255;
    aclFinalize();
    return count > 254 ? 254 : (int)count;
}

/* The device count without ASCEND_RT_VISIBLE_DEVICES, counted in another
 * child (the runtime reads the variable once, at its first use). */
static int devices_before;

/* Makes the last device the only visible one; exits 0 if it became device
 * 0, else the number of the first check that failed. */
static int only_last_device_visible(void)
{
    int before = devices_before;
    char list[16];
    snprintf(list, sizeof list, "%d", before - 1);
    setenv("ASCEND_RT_VISIBLE_DEVICES", list, 1);
    uint32_t count = 0;
    int32_t device = -1, logic = -1;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS)
        return 1;
    if (count != 1)
        return 2;
    if (aclrtSetDevice(1) != ACL_ERROR_RT_INVALID_DEVICEID)
        return 3;
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtGetDevice(&device) != ACL_SUCCESS || device != 0)
        return 4;
    /* User id 0 is the listed logical id. */
    aclError ret = aclrtGetLogicDevIdByUserDevId(0, &logic);
    if (ret == ACL_SUCCESS && logic != before - 1)
        return 5;
    if (aclrtResetDevice(0) != ACL_SUCCESS)
        return 6;
    aclFinalize();
    return 0;
}

COMPAT_TEST(visible_devices_select,
            "ASCEND_RT_VISIBLE_DEVICES lists the logical devices the process sees, renumbered "
            "from 0: with the last device listed alone the count is 1 and user id 0 maps to it",
            "ASCEND_RT_VISIBLE_DEVICES (env var reference); aclrtGetLogicDevIdByUserDevId")
{
    int count = in_child(count_devices);
    ck_assert_int_ge(count, 1);
    if (count < 2)
        COMPAT_SKIP("one device: nothing to select among");
    devices_before = count;
    int failed = in_child(only_last_device_visible);
    ck_assert_msg(failed == 0, "check %d failed in the child (see only_last_device_visible)",
                  failed);
}

COMPAT_TEST(synchronize_device,
            "aclrtSynchronizeDeviceWithTimeout waits for every stream of the device, the default stream included; expiry returns ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046), -1 waits forever, below -1 is ACL_ERROR_RT_PARAM_INVALID",
            "acl_rt.h aclrtSynchronizeDevice, aclrtSynchronizeDeviceWithTimeout; API ref")
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));

    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(-2), ACL_ERROR_RT_PARAM_INVALID);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    ACL_OK(aclrtStreamQuery(stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_COMPLETE);

    /* A held default stream is part of the device too. */
    compat_gate_close(&gate, NULL);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
}

/* SynchronizeDevice waits for a stream of an explicit context of the device
 * as well. */
COMPAT_TEST(synchronize_device_covers_other_contexts,
            "aclrtSynchronizeDevice also waits for streams of the device's explicit contexts",
            "API ref aclrtSynchronizeDevice: blocks until the device is idle")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext dflt = NULL;
    ACL_OK(aclrtGetCurrentContext(&dflt));
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtSetCurrentContext(dflt));
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtSetCurrentContext(ctx));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtDestroyContext(ctx));
    ACL_OK(aclrtResetDevice(0));
}

static void mark_done(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

/* A stream held by a gate gets a host function behind the gate, and is
 * destroyed with aclrtDestroyStreamForce, which returns without waiting
 * (the function has not run yet). */
static aclrtStream forced_with_pending_work(compat_gate *gate, atomic_int *ran)
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    compat_gate_close(gate, stream);
    ACL_OK(aclrtLaunchHostFunc(stream, mark_done, ran));
    compat_gate_wait_reached(gate);
    ACL_OK(aclrtDestroyStreamForce(stream));
    ck_assert_int_eq(atomic_load(ran), 0);
    return stream;
}

static void *open_later(void *gate)
{
    usleep(100 * 1000);
    compat_gate_open(gate);
    return NULL;
}

COMPAT_TEST(synchronize_device_covers_force_destroyed_streams,
            "work queued on a stream before aclrtDestroyStreamForce still runs, and "
            "aclrtSynchronizeDevice waits for it",
            "API ref aclrtDestroyStreamForce (destroys without waiting for its tasks), "
            "aclrtSynchronizeDevice (blocks until the device's tasks are done)")
{
    ACL_OK(aclrtSetDevice(0));
    compat_gate gate;
    atomic_int ran = 0;
    forced_with_pending_work(&gate, &ran);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_later, &gate), 0);
    ACL_OK(aclrtSynchronizeDevice());
    ck_assert_int_eq(atomic_load(&ran), 1);
    pthread_join(opener, NULL);
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(reset_waits_for_force_destroyed_streams,
            "work queued on a stream before aclrtDestroyStreamForce has run when "
            "aclrtResetDevice returns",
            "API ref aclrtDestroyStreamForce (destroys without waiting for its tasks), "
            "aclrtResetDevice (waits for the tasks of the default context before releasing); "
            "CANN runtime examples memory/1_h2d_sync_memory_copy, 6_d2d_async_memory_copy")
{
    ACL_OK(aclrtSetDevice(0));
    compat_gate gate;
    atomic_int ran = 0;
    forced_with_pending_work(&gate, &ran);
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_later, &gate), 0);
    ACL_OK(aclrtResetDevice(0));
    ck_assert_int_eq(atomic_load(&ran), 1);
    pthread_join(opener, NULL);
}

static void *synchronize_in_thread(void *arg)
{
    *(aclError *)arg = aclrtSynchronizeDevice();
    return NULL;
}

COMPAT_TEST(synchronize_device_needs_a_context,
            "aclrtSynchronizeDevice in a thread without a context returns ACL_ERROR_RT_CONTEXT_NULL",
            "API ref aclrtSynchronizeDevice (device of the current context); [impl] 107002")
{
    aclError ret = ACL_SUCCESS;
    compat_run_thread(synchronize_in_thread, &ret);
    ck_assert_int_eq(ret, ACL_ERROR_RT_CONTEXT_NULL);
}

COMPAT_TEST(mem_info,
            "aclrtGetMemInfo answers ACL_DDR_MEM and ACL_HBM_MEM with 0 < total and free <= total (pyACL's memcpy sample needs both)",
            "acl_rt.h aclrtGetMemInfo; API ref aclrtGetMemInfo")
{
    ACL_OK(aclrtSetDevice(0));
    const aclrtMemAttr attrs[] = {ACL_DDR_MEM, ACL_HBM_MEM};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        size_t free_bytes = 0, total_bytes = 0;
        ACL_OK(aclrtGetMemInfo(attrs[i], &free_bytes, &total_bytes));
        ck_assert_uint_gt(total_bytes, 0);
        ck_assert_uint_le(free_bytes, total_bytes);
    }
    size_t scratch = 0;
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &scratch), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetMemInfo(ACL_HBM_MEM, &scratch, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(soc_name,
            "aclrtGetSocName returns a non-empty name",
            "acl_base_rt.h aclrtGetSocName")
{
    const char *name = aclrtGetSocName();
    ck_assert_ptr_nonnull(name);
    ck_assert_int_gt(strlen(name), 0);
}

#ifdef COMPAT_PLATFORM
COMPAT_TEST(platform_device_info,
            "aclplatformGetDeviceInfo writes the core count as a positive decimal number and the "
            "SoC version as aclrtGetSocName's name; a buffer one byte short of the value and its "
            "NUL, an unknown type, a NULL value and a maxLen of 0 are ACL_ERROR_INVALID_PARAM",
            "acl_platform.h aclplatformGetDeviceInfo; API ref (other APIs) aclplatformGetDeviceInfo")
{
    char value[256] = "";
    ACL_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_AICORE_CNT, value, sizeof value));
    char *end = NULL;
    long long cores = strtoll(value, &end, 10);
    ck_assert_msg(end != value && *end == '\0' && cores > 0, "core count \"%s\"", value);
    ACL_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_SOC_VERSION, value, sizeof value));
    const char *soc = aclrtGetSocName();
    ck_assert_ptr_nonnull(soc);
    ck_assert_str_eq(value, soc);
    uint32_t exact = (uint32_t)strlen(soc) + 1;
    char fitted[256];
    ACL_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_SOC_VERSION, fitted, exact));
    ck_assert_str_eq(fitted, soc);
    ACL_FAILS_WITH(aclplatformGetDeviceInfo(ACL_PLATFORM_SOC_VERSION, fitted, exact - 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclplatformGetDeviceInfo((aclplatformDevInfo)(ACL_PLATFORM_MEMORY_TYPE + 1),
                                            value, sizeof value),
                   ACL_ERROR_INVALID_PARAM);
}
#endif

COMPAT_TEST(run_mode_is_host,
            "aclrtGetRunMode reports ACL_HOST for an application on the host CPU",
            "acl_rt.h aclrtGetRunMode; API ref aclrtGetRunMode")
{
    aclrtRunMode mode = ACL_DEVICE;
    ACL_OK(aclrtGetRunMode(&mode));
    ck_assert_int_eq(mode, ACL_HOST);
    ACL_FAILS_WITH(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
}

COMPAT_TEST(device_info,
            "aclrtGetDeviceInfo answers core count and memory size with positive values, refuses an unknown attribute, a bad device id (ACL_ERROR_RT_INVALID_DEVICEID) and a NULL value",
            "acl_rt.h aclrtGetDeviceInfo, aclrtDevAttr")
{
    int64_t value = 0;
    ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &value));
    ck_assert_int_gt(value, 0);
    value = 0;
    ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &value));
    ck_assert_int_gt(value, 0);
    ACL_FAILS(aclrtGetDeviceInfo(0, (aclrtDevAttr)9999, &value));
    ACL_FAILS_WITH(aclrtGetDeviceInfo(device_count(), ACL_DEV_ATTR_AICORE_CORE_NUM, &value),
                   ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, NULL),
                   ACL_ERROR_INVALID_PARAM);
}

COMPAT_TEST(stream_priority_range,
            "aclrtDeviceGetStreamPriorityRange gives greatest <= least, both >= 0 (smaller is higher)",
            "acl_rt.h aclrtDeviceGetStreamPriorityRange")
{
    ACL_OK(aclrtSetDevice(0));
    int32_t least = -100, greatest = -100;
    ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
    /* Smaller numbers are higher priorities. */
    ck_assert_int_le(greatest, least);
    ck_assert_int_ge(greatest, 0);
    ACL_FAILS_WITH(aclrtDeviceGetStreamPriorityRange(NULL, &greatest), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDeviceGetStreamPriorityRange(&least, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtResetDevice(0));
}

/* The limits on kernel execution time. The effective limit is a multiple
 * of the device's interval (API ref aclrtGetOpTimeOutInterval), so only
 * its presence is pinned here, not the exact value read back. */
COMPAT_TEST(op_execute_timeouts,
            "aclrtSetOpExecuteTimeOut (s), aclrtSetOpExecuteTimeOutWithMs (ms) and "
            "aclrtSetOpExecuteTimeOutV2 (us, reporting the effective value) succeed; "
            "aclrtGetOpExecuteTimeout reports a limit and aclrtGetOpTimeOutInterval a granularity",
            "acl_rt.h aclrtSetOpExecuteTimeOut*, aclrtGetOpExecuteTimeout, "
            "aclrtGetOpTimeOutInterval; API ref")
{
    uint64_t interval = 0, actual = 0;
    uint32_t limit_ms = 0;
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtGetOpTimeOutInterval(&interval));
    ck_assert_uint_gt(interval, 0);
    ACL_OK(aclrtSetOpExecuteTimeOut(5));
    ACL_OK(aclrtSetOpExecuteTimeOutWithMs(2000));
    ACL_OK(aclrtGetOpExecuteTimeout(&limit_ms));
    ck_assert_uint_gt(limit_ms, 0);
    ACL_OK(aclrtSetOpExecuteTimeOutV2(3000000, &actual));
    ck_assert_uint_gt(actual, 0);
    ACL_OK(aclrtResetDevice(0));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclGetDeviceCapability)
{
    REJECTS(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtDeviceCanAccessPeer)
{
    REJECTS(aclrtDeviceCanAccessPeer(NULL, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtDevicePeerAccessStatus)
{
    REJECTS(aclrtDevicePeerAccessStatus(0, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
}

ROW(aclrtDeviceGetStreamPriorityRange)
{
    int32_t value;
    REJECTS(aclrtDeviceGetStreamPriorityRange(NULL, &value), ACL_ERROR_INVALID_PARAM,
            "a NULL leastPriority");
    REJECTS(aclrtDeviceGetStreamPriorityRange(&value, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL greatestPriority");
}

ROW(aclrtDeviceGetUuid)
{
    REJECTS(aclrtDeviceGetUuid(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL uuid");
}

ROW(aclrtGetDevice)
{
    REJECTS(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM, "a NULL deviceId");
}

ROW(aclrtGetDeviceCapability)
{
    REJECTS(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtGetDeviceCount)
{
    REJECTS(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtGetDeviceInfo)
{
    REJECTS(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICPU_CORE_NUM, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtGetDeviceSatMode)
{
    REJECTS(aclrtGetDeviceSatMode(NULL), ACL_ERROR_INVALID_PARAM, "a NULL mode");
}

ROW(aclrtGetDeviceUtilizationRate)
{
    REJECTS(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
}

ROW(aclrtGetLogicDevIdByPhyDevId)
{
    REJECTS(aclrtGetLogicDevIdByPhyDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetLogicDevIdByUserDevId)
{
    REJECTS(aclrtGetLogicDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetPhyDevIdByLogicDevId)
{
    REJECTS(aclrtGetPhyDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetUserDevIdByLogicDevId)
{
    REJECTS(aclrtGetUserDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetRunMode)
{
    REJECTS(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM, "a NULL mode");
}

ROW(aclrtQueryDeviceStatus)
{
    REJECTS(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
}

ROW(aclrtGetSysParamOpt)
{
    REJECTS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

/* ---- issue 17: device ---------------------------------------------------------------- */

COMPAT_TEST(pci_bus_ids_round_trip,
            "aclrtDeviceGetPCIBusId gives domain:bus:device.function (12 characters); aclrtDeviceGetByPCIBusId finds the device by it (any case; without the domain when it is 0); unknown addresses and devices fail",
            "API ref aclrtDeviceGetPCIBusId, aclrtDeviceGetByPCIBusId")
{
    uint32_t n = compat_device_count();
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
    ACL_FAILS(aclrtDeviceGetByPCIBusId("ffff:ff:1f.7", &dev));
    char id[32];
    ACL_FAILS(aclrtDeviceGetPCIBusId((int32_t)n, id, sizeof id));
}

COMPAT_TEST(user_and_physical_ids,
            "a user device id maps to a physical id and back",
            "API ref aclrtGetPhyDevIdByUserDevId, aclrtGetUserDevIdByPhyDevId")
{
    uint32_t n = compat_device_count();
    for (uint32_t d = 0; d < n; d++) {
        int32_t phy, user;
        ACL_OK(aclrtGetPhyDevIdByUserDevId((int32_t)d, &phy));
        ACL_OK(aclrtGetUserDevIdByPhyDevId(phy, &user));
        ck_assert_int_eq(user, (int32_t)d);
    }
    int32_t out;
    ACL_FAILS(aclrtGetPhyDevIdByUserDevId((int32_t)n, &out));
    ACL_FAILS(aclrtGetUserDevIdByPhyDevId(-1, &out));
}

COMPAT_TEST(devices_topology,
            "aclrtGetDevicesTopo names one link between two devices (HCCS, PIX, PHB, SYS), the same both ways; a device that does not exist fails",
            "API ref aclrtGetDevicesTopo")
{
    uint64_t topo;
    uint32_t n = compat_device_count();
    ACL_FAILS(aclrtGetDevicesTopo(0, n, &topo));
    if (n < 2)
        COMPAT_SKIP("one device: no pair to link");
    ACL_OK(aclrtGetDevicesTopo(0, 1, &topo));
    const uint64_t known = ACL_RT_DEVS_TOPOLOGY_HCCS | ACL_RT_DEVS_TOPOLOGY_PIX |
                           ACL_RT_DEVS_TOPOLOGY_PHB | ACL_RT_DEVS_TOPOLOGY_SYS;
    ck_assert_msg(topo && (topo & ~known) == 0 && (topo & (topo - 1)) == 0,
                  "topology 0x%llx is not one link", (unsigned long long)topo);
    uint64_t back;
    ACL_OK(aclrtGetDevicesTopo(1, 0, &back));
    ck_assert_uint_eq(back, topo);
}
enum { MAX_DEVICE_SEEN = 16 };

typedef struct seen_devices {
    int count;
    int32_t devices[MAX_DEVICE_SEEN];
    int states[MAX_DEVICE_SEEN];
} seen_devices;

static void remember_device(int32_t device, aclrtDeviceState state, void *args)
{
    seen_devices *seen = args;
    if (seen->count < MAX_DEVICE_SEEN) {
        seen->devices[seen->count] = device;
        seen->states[seen->count] = state;
    }
    seen->count++;
}

COMPAT_TEST(device_state_callbacks,
            "device-state callbacks see SET_PRE, SET_POST around aclrtSetDevice and RESET_PRE, RESET_POST around aclrtResetDevice, with the device id; a name registers once; NULL unregisters",
            "API ref aclrtRegDeviceStateCallback")
{
    seen_devices seen = {0};
    ACL_OK(aclrtRegDeviceStateCallback("dev", remember_device, &seen));
    ACL_FAILS(aclrtRegDeviceStateCallback("dev", remember_device, &seen));
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
/* Every stream of the device is aborted between the callbacks: one stuck
 * on a wait nothing will release is idle afterwards. */
COMPAT_TEST(device_task_abort,
            "aclrtDeviceTaskAbort drops the tasks of every stream of the device (a stream stuck on a wait answers complete), between the task-abort callbacks' PRE and POST, which get the timeout; a failing PRE stops it; timeouts over 36 minutes fail",
            "API ref aclrtDeviceTaskAbort, aclrtSetDeviceTaskAbortCallback [impl: a failing callback stops the abort]")
{
    abort_seen seen = {0};
    ACL_OK(aclrtSetDeviceTaskAbortCallback("abort", on_abort, &seen));
    aclrtStream s = compat_new_stream();
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY);

    seen.refuse = 5;
    ACL_FAILS(aclrtDeviceTaskAbort(0, 1000));
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

    ACL_FAILS(aclrtDeviceTaskAbort(0, 36u * 60 * 1000 + 1));
    ACL_FAILS(aclrtDeviceTaskAbort(1 << 20, 0));
    ACL_OK(aclrtSetDeviceTaskAbortCallback("abort", NULL, NULL));
    ACL_OK(aclrtRecordNotify(n, NULL)); /* releases what CUDA keeps running */
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(device_limits_read_back,
            "aclrtDeviceGetLimit returns what aclrtDeviceSetLimit set (values already aligned as documented); a limit type the hardware lacks answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT to both",
            "API ref aclrtDeviceSetLimit, aclrtDeviceGetLimit, aclrtDeviceLimit")
{
    const struct {
        aclrtDeviceLimit limit;
        size_t value;
    } cases[] = {
        {ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 2048},
        {ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE, 1024},
        {ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 65536},
        {ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 65536},
        {ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, 4u << 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = 0;
        aclError set = aclrtDeviceSetLimit(cases[i].limit, cases[i].value);
        aclError get = aclrtDeviceGetLimit(cases[i].limit, &got);
        (void)aclGetRecentErrMsg();
        if (set == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
            ck_assert_int_eq(get, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            continue;
        }
        ck_assert_int_eq(set, ACL_SUCCESS);
        ck_assert_int_eq(get, ACL_SUCCESS);
        ck_assert_uint_eq(got, cases[i].value);
    }
}

COMPAT_TEST(groups_read_back,
            "aclrtGetGroupCount counts the groups; aclrtGetAllGroupInfo fills a group info whose details are read one attribute at a time (4-byte ints); a group id read there is accepted by aclrtSetGroup",
            "API ref 16 (group management, the call sequence)")
{
    uint32_t count;
    ACL_OK(aclrtGetGroupCount(&count));
    ck_assert_uint_ge(count, 1);
    aclrtGroupInfo *info = aclrtCreateGroupInfo();
    ck_assert_ptr_nonnull(info);
    ACL_OK(aclrtGetAllGroupInfo(info));
    int32_t id = -1, cores = -1;
    size_t size = 0;
    ACL_OK(aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_GROUPID_INT, &id, sizeof id, &size));
    ck_assert_uint_eq(size, sizeof(int32_t));
    ACL_OK(aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_AICORE_INT, &cores, sizeof cores, &size));
    ck_assert_int_gt(cores, 0);
    ACL_OK(aclrtSetGroup(id));
    ACL_FAILS(aclrtGetGroupInfoDetail(info, (int32_t)count, ACL_GROUP_AICORE_INT, &cores,
                                      sizeof cores, &size));
    ACL_OK(aclrtDestroyGroupInfo(info));
}

/* ---- rows: ids, PCI addresses, limits, atomics, topology, groups ------------------------ */

static void device_state_noop(int32_t device, aclrtDeviceState state, void *args)
{
    (void)device;
    (void)state;
    (void)args;
}

ROW(aclrtGetDevicesTopo)
{
    REJECTS(aclrtGetDevicesTopo(0, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtRegDeviceStateCallback)
{
    REJECTS(aclrtRegDeviceStateCallback(NULL, device_state_noop, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL name");
}

ROW(aclrtGetUserDevIdByPhyDevId)
{
    REJECTS(aclrtGetUserDevIdByPhyDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetPhyDevIdByUserDevId)
{
    REJECTS(aclrtGetPhyDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtDeviceGetPCIBusId)
{
    char id[16];
    REJECTS(aclrtDeviceGetPCIBusId(0, NULL, sizeof id), ACL_ERROR_INVALID_PARAM, "a NULL buffer");
    REJECTS(aclrtDeviceGetPCIBusId(0, id, 12), ANY_ERROR, "a 12-byte buffer (13 needed)");
}

ROW(aclrtDeviceGetByPCIBusId)
{
    int32_t device;
    REJECTS(aclrtDeviceGetByPCIBusId(NULL, &device), ACL_ERROR_INVALID_PARAM, "a NULL address");
    REJECTS(aclrtDeviceGetByPCIBusId("0000:00:00.0", NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL device");
    REJECTS_HOSTILE(aclrtDeviceGetByPCIBusId("not a bus id", &device), ACL_ERROR_INVALID_PARAM,
                    "text that is no address");
}

ROW(aclrtDeviceGetHostAtomicCapabilities)
{
    uint32_t caps[1];
    aclrtAtomicOperation ops[1] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD};
    REJECTS(aclrtDeviceGetHostAtomicCapabilities(NULL, ops, 1, 0), ACL_ERROR_INVALID_PARAM,
            "NULL capabilities");
    REJECTS(aclrtDeviceGetHostAtomicCapabilities(caps, NULL, 1, 0), ACL_ERROR_INVALID_PARAM,
            "NULL operations");
    aclrtAtomicOperation bad[1] = {(aclrtAtomicOperation)17};
    REJECTS_HOSTILE(aclrtDeviceGetHostAtomicCapabilities(caps, bad, 1, 0), ACL_ERROR_INVALID_PARAM,
                    "an unknown operation");
}

ROW(aclrtDeviceGetP2PAtomicCapabilities)
{
    uint32_t caps[1];
    aclrtAtomicOperation ops[1] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD};
    REJECTS(aclrtDeviceGetP2PAtomicCapabilities(NULL, ops, 1, 0, 1), ACL_ERROR_INVALID_PARAM,
            "NULL capabilities");
    REJECTS(aclrtDeviceGetP2PAtomicCapabilities(caps, NULL, 1, 0, 1), ACL_ERROR_INVALID_PARAM,
            "NULL operations");
}

ROW(aclrtGetDeviceResLimit)
{
    REJECTS(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtDeviceGetLimit)
{
    REJECTS(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtGetGroupCount)
{
    REJECTS(aclrtGetGroupCount(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtDestroyGroupInfo)
{
    FOR_EACH_BAD(KIND_GROUP_INFO, h, ACL_ERROR_INVALID_PARAM,
                 aclrtDestroyGroupInfo((aclrtGroupInfo *)h));
}

ROW(aclrtGetAllGroupInfo)
{
    FOR_EACH_BAD(KIND_GROUP_INFO, h, ACL_ERROR_INVALID_PARAM,
                 aclrtGetAllGroupInfo((aclrtGroupInfo *)h));
}

ROW(aclrtGetGroupInfoDetail)
{
    int32_t value;
    size_t size;
    FOR_EACH_BAD(KIND_GROUP_INFO, h, ACL_ERROR_INVALID_PARAM,
                 aclrtGetGroupInfoDetail((aclrtGroupInfo *)h, 0, ACL_GROUP_AICORE_INT, &value,
                                         sizeof value, &size));
    aclrtGroupInfo *g = aclrtCreateGroupInfo();
    ck_assert_ptr_nonnull(g);
    ACL_OK(aclrtGetAllGroupInfo(g));
    REJECTS(aclrtGetGroupInfoDetail(g, 0, ACL_GROUP_AICORE_INT, NULL, sizeof value, &size),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
    REJECTS(aclrtGetGroupInfoDetail(g, 0, ACL_GROUP_AICORE_INT, &value, sizeof value, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL size");
    ACL_OK(aclrtDestroyGroupInfo(g));
}

#ifdef COMPAT_PLATFORM
ROW(aclplatformGetDeviceInfo)
{
    char value[64];
    REJECTS(aclplatformGetDeviceInfo(ACL_PLATFORM_AICORE_CNT, NULL, 64), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
    REJECTS(aclplatformGetDeviceInfo(ACL_PLATFORM_AICORE_CNT, value, 0), ACL_ERROR_INVALID_PARAM,
            "a maxLen of 0");
    REJECTS(aclplatformGetDeviceInfo((aclplatformDevInfo)-1, value, sizeof value),
            ACL_ERROR_INVALID_PARAM, "type -1");
}

ROW(aclplatformGetInstructionInfo)
{
    char value[64];
    REJECTS(aclplatformGetInstructionInfo((aclplatformCoreType)2, "x", value, sizeof value),
            ACL_ERROR_INVALID_PARAM, "an unknown core type");
    REJECTS(aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE, NULL, value, 64),
            ACL_ERROR_INVALID_PARAM, "a NULL instruction");
    REJECTS(aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE, "x", NULL, 64),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
    REJECTS(aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_VECTOR_CORE, "x", value, 0),
            ACL_ERROR_INVALID_PARAM, "a maxLen of 0");
    REJECTS(aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE,
                                          "no_such_instruction_anywhere", value, sizeof value),
            ACL_ERROR_INVALID_PARAM, "an instruction the platform does not list");
}
#endif

static const compat_row rows[] = {
    COMPAT_ROW(aclGetDeviceCapability),
    COMPAT_ROW(aclrtDeviceCanAccessPeer),
    COMPAT_ROW(aclrtDeviceGetStreamPriorityRange),
    COMPAT_ROW(aclrtDeviceGetUuid),
    COMPAT_ROW(aclrtDevicePeerAccessStatus),
    COMPAT_ROW(aclrtGetDevice),
    COMPAT_ROW(aclrtGetDeviceCapability),
    COMPAT_ROW(aclrtGetDeviceCount),
    COMPAT_ROW(aclrtGetDeviceInfo),
    COMPAT_ROW(aclrtGetDeviceSatMode),
    COMPAT_ROW(aclrtGetDeviceUtilizationRate),
    COMPAT_ROW(aclrtGetLogicDevIdByPhyDevId),
    COMPAT_ROW(aclrtGetLogicDevIdByUserDevId),
    COMPAT_ROW(aclrtGetPhyDevIdByLogicDevId),
    COMPAT_ROW(aclrtGetRunMode),
    COMPAT_ROW(aclrtGetSysParamOpt),
    COMPAT_ROW(aclrtGetUserDevIdByLogicDevId),
    COMPAT_ROW(aclrtQueryDeviceStatus),
    COMPAT_ROW(aclrtGetDevicesTopo),
    COMPAT_ROW(aclrtRegDeviceStateCallback),
    COMPAT_ROW(aclrtGetUserDevIdByPhyDevId),
    COMPAT_ROW(aclrtGetPhyDevIdByUserDevId),
    COMPAT_ROW(aclrtDeviceGetPCIBusId),
    COMPAT_ROW(aclrtDeviceGetByPCIBusId),
    COMPAT_ROW(aclrtDeviceGetHostAtomicCapabilities),
    COMPAT_ROW(aclrtDeviceGetP2PAtomicCapabilities),
    COMPAT_ROW(aclrtGetDeviceResLimit),
    COMPAT_ROW(aclrtDeviceGetLimit),
    COMPAT_ROW(aclrtGetGroupCount),
    COMPAT_ROW(aclrtDestroyGroupInfo),
    COMPAT_ROW(aclrtGetAllGroupInfo),
    COMPAT_ROW(aclrtGetGroupInfoDetail),
#ifdef COMPAT_PLATFORM
    COMPAT_ROW(aclplatformGetDeviceInfo),
    COMPAT_ROW(aclplatformGetInstructionInfo),
#endif
};
COMPAT_BAD_ARGS(device, rows);

Suite *compat_suite_device(void);
Suite *compat_suite_device(void)
{
    Suite *s = suite_create("device");

    TCase *select = tcase_create("select");
    tcase_add_checked_fixture(select, init, finalize);
    tcase_add_test(select, count_at_least_one);
    tcase_add_test(select, set_device_rejects_bad_ids);
    tcase_add_test(select, get_device_without_device_fails);
    tcase_add_test(select, set_then_get_device);
    suite_add_tcase(s, select);

    TCase *refcount = tcase_create("refcount");
    tcase_add_checked_fixture(refcount, init, finalize);
    tcase_add_test(refcount, reset_counts_down_in_one_thread);
    tcase_add_test(refcount, reset_keeps_device_while_other_thread_holds_it);
    tcase_add_test(refcount, reset_unset_device_fails);
    tcase_add_test(refcount, reset_force_releases_at_once);
    tcase_add_test(refcount, second_reset_force_fails);
    suite_add_tcase(s, refcount);

    /* No fixture: the environment must be set before the first ACL call. */
    TCase *visible = tcase_create("visible_devices");
    tcase_add_test(visible, visible_devices_select);
    suite_add_tcase(s, visible);

    TCase *sync = tcase_create("synchronize");
    tcase_add_checked_fixture(sync, init, finalize);
    tcase_add_test(sync, synchronize_device);
    tcase_add_test(sync, synchronize_device_covers_other_contexts);
    tcase_add_test(sync, synchronize_device_covers_force_destroyed_streams);
    tcase_add_test(sync, reset_waits_for_force_destroyed_streams);
    tcase_add_test(sync, synchronize_device_needs_a_context);
    suite_add_tcase(s, sync);

    TCase *query = tcase_create("query");
    tcase_add_checked_fixture(query, init, finalize);
    tcase_add_test(query, mem_info);
    tcase_add_test(query, soc_name);
#ifdef COMPAT_PLATFORM
    tcase_add_test(query, platform_device_info);
#endif
    tcase_add_test(query, run_mode_is_host);
    tcase_add_test(query, device_info);
    tcase_add_test(query, stream_priority_range);
    tcase_add_test(query, op_execute_timeouts);
    suite_add_tcase(s, query);

    TCase *more = tcase_create("control");
    tcase_add_checked_fixture(more, compat_set_up, compat_tear_down);
    tcase_set_timeout(more, 60);
    tcase_add_test(more, pci_bus_ids_round_trip);
    tcase_add_test(more, user_and_physical_ids);
    tcase_add_test(more, devices_topology);
    tcase_add_test(more, device_state_callbacks);
    tcase_add_test(more, device_task_abort);
    tcase_add_test(more, device_limits_read_back);
    tcase_add_test(more, groups_read_back);
    suite_add_tcase(s, more);

    compat_add_bad_args(s, &compat_rows_device);
    return s;
}

COMPAT_MAIN(device)
