/* Two devices: peer access, copies and waits across devices, switching,
 * re-indexing, and one device reset or synchronized while the other works
 * (issue #20). The host backend runs it with ACLCUDA_HOST_DEVICE_COUNT=2;
 * on CUDA it needs two GPUs. With fewer devices the program reports
 * "skipped" (exit 77) without running a case. */
#include <sys/wait.h>
#include <unistd.h>

#include "acltest.h"

enum { BYTES = 1 << 20 };

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed);
}

static void *device_buffer(int32_t device)
{
    ACL_OK(aclrtSetDevice(device));
    void *p;
    ACL_OK(aclrtMalloc(&p, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
}

static void tear_down(void)
{
    (void)aclrtResetDeviceForce(1);
    (void)aclrtResetDeviceForce(0);
    (void)aclFinalize();
}

/* ---- peer access ---------------------------------------------------------------- */

START_TEST(peer_access_switches_and_reports)
{
    int32_t can = -1, status = -1;
    ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    ck_assert_msg(can == 0 || can == 1, "canAccessPeer %d", can);
    if (!can)
        return; /* a machine without peer access between the two */

    ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &status));
    ck_assert_int_eq(status, 0);
    ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
    ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &status));
    ck_assert_int_eq(status, 1);
    ACL_OK(aclrtDevicePeerAccessStatus(1, 0, &status)); /* one way only */
    ck_assert_int_eq(status, 0);
    ACL_OK(aclrtDeviceEnablePeerAccess(1, 0)); /* already enabled: no error */
    ACL_OK(aclrtDeviceDisablePeerAccess(1));
    ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &status));
    ck_assert_int_eq(status, 0);
    ACL_FAILS_WITH(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID); /* not enabled */
}
END_TEST

START_TEST(peer_access_bad_arguments)
{
    int32_t value;
    ACL_FAILS_WITH(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM); /* itself */
    ACL_FAILS_WITH(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDeviceEnablePeerAccess(4096, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtDeviceEnablePeerAccess(-1, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED); /* reserved */
    ACL_FAILS_WITH(aclrtDeviceCanAccessPeer(&value, 1, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDevicePeerAccessStatus(0, 0, &value), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDevicePeerAccessStatus(0, 4096, &value), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtDevicePeerAccessStatus(0, 1, NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* ---- copies between devices ----------------------------------------------------- */

static void copy_between(bool peer)
{
    int32_t can = 0;
    ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    if (peer && !can)
        return;
    void *d0 = device_buffer(0), *d1 = device_buffer(1);
    ACL_OK(aclrtSetDevice(0));
    if (peer)
        ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
    unsigned char *src = malloc(BYTES), *back = malloc(BYTES);
    ck_assert(src && back);

    fill(src, BYTES, 1);
    ACL_OK(aclrtMemcpy(d0, BYTES, src, BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(d1, BYTES, d0, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ACL_OK(aclrtMemcpy(back, BYTES, d1, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(memcmp(src, back, BYTES) == 0, "sync copy 0 -> 1 (peer %d)", peer);

    fill(src, BYTES, 2);
    ACL_OK(aclrtMemcpy(d1, BYTES, src, BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtStream s = acltest_new_stream(); /* on device 0 */
    ACL_OK(aclrtMemcpyAsync(d0, BYTES, d1, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(back, BYTES, d0, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(memcmp(src, back, BYTES) == 0, "async copy 1 -> 0 (peer %d)", peer);

    ACL_OK(aclrtDestroyStream(s));
    if (peer)
        ACL_OK(aclrtDeviceDisablePeerAccess(1));
    ACL_OK(aclrtFree(d0));
    ACL_OK(aclrtFree(d1));
    free(src);
    free(back);
}

START_TEST(copies_without_peer_access)
{
    copy_between(false);
}
END_TEST

START_TEST(copies_with_peer_access)
{
    copy_between(true);
}
END_TEST

/* ---- an event of device 0 waited for on device 1 -------------------------------- */

START_TEST(wait_on_another_devices_event)
{
    unsigned char *host, *back = malloc(BYTES);
    ACL_OK(aclrtMallocHost((void **)&host, BYTES)); /* a queued pageable copy would wait */
    ck_assert(back);
    void *d0 = device_buffer(0), *d1 = device_buffer(1);

    ACL_OK(aclrtSetDevice(0));
    aclrtStream s0 = acltest_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEvent(&e));
    acltest_gate gate;
    acltest_gate_close(&gate, s0); /* the long task: held until opened */
    fill(host, BYTES, 3);
    ACL_OK(aclrtMemcpyAsync(d0, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s0));
    ACL_OK(aclrtRecordEvent(e, s0));

    ACL_OK(aclrtSetDevice(1));
    aclrtStream s1 = acltest_new_stream();
    ACL_OK(aclrtStreamWaitEvent(s1, e));
    ACL_OK(aclrtMemcpyAsync(d1, BYTES, d0, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));

    acltest_gate_wait_reached(&gate);
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(s1, &st));
    ck_assert_msg(st == ACL_STREAM_STATUS_NOT_READY, "device 1 ran ahead of device 0's event");
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s1));
    ACL_OK(aclrtMemcpy(back, BYTES, d1, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(memcmp(host, back, BYTES) == 0, "device 1 copied before device 0's data landed");

    ACL_OK(aclrtDestroyStream(s1));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtDestroyStream(s0));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(d0));
    ACL_OK(aclrtFree(d1));
    ACL_OK(aclrtFreeHost(host));
    free(back);
}
END_TEST

/* ---- one thread, two devices, several contexts ---------------------------------- */

START_TEST(one_thread_switches_devices_and_contexts)
{
    int32_t device = -1;
    aclrtContext primary0, primary1, extra1;
    ACL_OK(aclrtGetCurrentContext(&primary0));
    ACL_OK(aclrtSetDevice(1));
    ACL_OK(aclrtGetCurrentContext(&primary1));
    ck_assert_ptr_ne(primary0, primary1);
    ACL_OK(aclrtGetDevice(&device));
    ck_assert_int_eq(device, 1);
    ACL_OK(aclrtCreateContext(&extra1, 1));
    ACL_OK(aclrtGetDevice(&device));
    ck_assert_int_eq(device, 1);
    ACL_OK(aclrtSetCurrentContext(primary0));
    ACL_OK(aclrtGetDevice(&device));
    ck_assert_int_eq(device, 0);
    aclrtStream s0 = acltest_new_stream();
    ACL_OK(aclrtSetCurrentContext(extra1));
    ACL_FAILS_WITH(aclrtDestroyStream(s0), ACL_ERROR_RT_STREAM_CONTEXT); /* not its context */
    ACL_OK(aclrtSetCurrentContext(primary0));
    ACL_OK(aclrtDestroyStream(s0));
    ACL_OK(aclrtDestroyContext(extra1));
}
END_TEST

/* ---- one device reset or synchronized while the other works --------------------- */

START_TEST(reset_one_device_while_the_other_works)
{
    ACL_OK(aclrtSetDevice(1));
    aclrtStream s1 = acltest_new_stream();
    acltest_gate gate;
    acltest_gate_close(&gate, s1);
    void *d1;
    ACL_OK(aclrtMalloc(&d1, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemsetAsync(d1, BYTES, 0x5A, BYTES, s1));
    acltest_gate_wait_reached(&gate);

    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSynchronizeDevice()); /* device 0 is idle: device 1's gate does not hold it */
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDevice(0)); /* the fixture's SetDevice too */

    aclrtStreamStatus st;
    ACL_OK(aclrtSetDevice(1));
    ACL_OK(aclrtStreamQuery(s1, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s1));
    unsigned char *back = malloc(BYTES), *want = malloc(BYTES);
    ck_assert(back && want);
    memset(want, 0x5A, BYTES);
    ACL_OK(aclrtMemcpy(back, BYTES, d1, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert(memcmp(back, want, BYTES) == 0);
    ACL_OK(aclrtDestroyStream(s1));
    ACL_OK(aclrtFree(d1));
    ACL_OK(aclrtSetDevice(0)); /* for the fixture */
    free(back);
    free(want);
}
END_TEST

START_TEST(memory_info_per_device)
{
    size_t free0, total0, free1, total1, free1_after, total1_after;
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total0));
    ACL_OK(aclrtSetDevice(1));
    ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total1));
    void *big;
    ACL_OK(aclrtMalloc(&big, 256 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1_after, &total1_after));
    ck_assert_uint_eq(total1, total1_after);
    ck_assert_msg(free1_after + (200 << 20) < free1, "256 MiB on device 1: free %zu -> %zu", free1,
                  free1_after);
    ACL_OK(aclrtSetDevice(0));
    size_t free0_after, total0_after;
    ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0_after, &total0_after));
    ck_assert_uint_eq(total0, total0_after);
    ck_assert_msg(free0_after + (200 << 20) > free0, "device 0 lost memory to device 1's allocation");
    ACL_OK(aclrtFree(big));
}
END_TEST

/* ---- ASCEND_RT_VISIBLE_DEVICES re-indexing ---------------------------------------- */

/* CANN takes ascending ids only and stops at the first one that is not:
 * "1,0" leaves device 1 alone, seen as device 0. */
START_TEST(visible_devices_reindex)
{
    setenv("ASCEND_RT_VISIBLE_DEVICES", "1,0", 1);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ck_assert_uint_eq(count, 1);
    int32_t logic = -1, user = -1;
    ACL_OK(aclrtGetLogicDevIdByUserDevId(0, &logic));
    ck_assert_int_eq(logic, 1);
    ACL_OK(aclrtGetUserDevIdByLogicDevId(1, &user));
    ck_assert_int_eq(user, 0);
    ACL_FAILS_WITH(aclrtGetUserDevIdByLogicDevId(0, &user), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtSetDevice(0));
    void *p;
    ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(p));
    ACL_OK(aclrtResetDevice(0));
    ACL_FAILS_WITH(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
}
END_TEST

/* How many devices the backend shows, asked in a child process so that
 * this one initialises no backend before Check forks the cases. */
static int device_count(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        uint32_t count = 0;
        _exit(aclrtGetDeviceCount(&count) == ACL_SUCCESS && count < 200 ? (int)count : 0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 0;
    return WEXITSTATUS(status);
}

int main(void)
{
    if (device_count() < 2) {
        printf("skipped: fewer than two devices (host backend: ACLCUDA_HOST_DEVICE_COUNT=2)\n");
        return 77;
    }
    Suite *s = suite_create("two devices");
    TCase *peer = tcase_create("peer access");
    tcase_add_checked_fixture(peer, set_up, tear_down);
    tcase_add_test(peer, peer_access_switches_and_reports);
    tcase_add_test(peer, peer_access_bad_arguments);
    tcase_add_test(peer, copies_without_peer_access);
    tcase_add_test(peer, copies_with_peer_access);
    suite_add_tcase(s, peer);

    TCase *order = tcase_create("across devices");
    tcase_add_checked_fixture(order, set_up, tear_down);
    tcase_add_test(order, wait_on_another_devices_event);
    tcase_add_test(order, one_thread_switches_devices_and_contexts);
    tcase_add_test(order, reset_one_device_while_the_other_works);
    tcase_add_test(order, memory_info_per_device);
    suite_add_tcase(s, order);

    TCase *visible = tcase_create("visible devices");
    tcase_add_test(visible, visible_devices_reindex);
    suite_add_tcase(s, visible);
    return acltest_run(s);
}
