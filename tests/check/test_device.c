/* Devices: counting and selecting them, the process-wide SetDevice reference
 * count, ASCEND_RT_VISIBLE_DEVICES, device-wide synchronisation and the
 * device queries. */
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "acltest.h"

static void init(void)
{
    ACL_OK(aclInit(NULL));
}

static void finalize(void)
{
    ACL_OK(aclFinalize());
}

/* Asserts that a call failed, with any code, and left a message. */
static uint32_t device_count(void)
{
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    return count;
}

START_TEST(count_at_least_one)
{
    ck_assert_uint_ge(device_count(), 1);
    ACL_FAILS_WITH(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(set_device_rejects_bad_ids)
{
    ACL_FAILS_WITH(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtSetDevice((int32_t)device_count()), ACL_ERROR_RT_INVALID_DEVICEID);
    ck_assert_int_eq(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
}
END_TEST

static void *get_device_in_thread(void *arg)
{
    int32_t device = -7;
    *(aclError *)arg = aclrtGetDevice(&device);
    return NULL;
}

START_TEST(get_device_without_device_fails)
{
    ACL_FAILS_WITH(aclrtGetDevice(&(int32_t){0}), ACL_ERROR_RT_CONTEXT_NULL);
    ck_assert_int_eq(ACL_ERROR_RT_CONTEXT_NULL, 107002);
    /* Another thread's SetDevice does not give this new thread a device. */
    ACL_OK(aclrtSetDevice(0));
    aclError in_thread = ACL_SUCCESS;
    acltest_run_thread(get_device_in_thread, &in_thread);
    ck_assert_int_eq(in_thread, ACL_ERROR_RT_CONTEXT_NULL);
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

START_TEST(set_then_get_device)
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
END_TEST

START_TEST(reset_counts_down_in_one_thread)
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ACL_FAILS_WITH(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
}
END_TEST

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

START_TEST(reset_keeps_device_while_other_thread_holds_it)
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
END_TEST

START_TEST(reset_unset_device_fails)
{
    ACL_FAILS_WITH(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    ck_assert_int_eq(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007);
}
END_TEST

START_TEST(reset_force_releases_at_once)
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
END_TEST

START_TEST(second_reset_force_fails)
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDeviceForce(0));
    ACL_FAILS(aclrtResetDeviceForce(0));
}
END_TEST

/* The backend the library picks, asked in a child so that this process makes
 * its first ACL call only after setting the environment. */
static bool backend_is_host(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(strcmp(aclcudaGetBackendName(), "host") == 0 ? 0 : 1);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status) == 0;
}

START_TEST(visible_devices_remap)
{
    if (!backend_is_host()) {
        ACL_OK(aclInit(NULL));
        ck_assert_uint_ge(device_count(), 1);
        ACL_OK(aclFinalize());
        return;
    }
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "4", 1);
    setenv("ASCEND_RT_VISIBLE_DEVICES", "1,3", 1);
    ACL_OK(aclInit(NULL));
    ck_assert_uint_eq(device_count(), 2);
    ACL_FAILS_WITH(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtSetDevice(1));
    int32_t got = -1;
    ACL_OK(aclrtGetDevice(&got));
    ck_assert_int_eq(got, 1);
    ACL_OK(aclrtResetDevice(1));

    /* User id n is the n-th listed logical id. */
    int32_t logic = -1;
    aclError ret = aclrtGetLogicDevIdByUserDevId(1, &logic);
    if (ret != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        ACL_OK(ret);
        ck_assert_int_eq(logic, 3);
        ACL_OK(aclrtGetLogicDevIdByUserDevId(0, &logic));
        ck_assert_int_eq(logic, 1);
    }
    int32_t user = -1;
    ret = aclrtGetUserDevIdByLogicDevId(3, &user);
    if (ret != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        ACL_OK(ret);
        ck_assert_int_eq(user, 1);
        ACL_OK(aclrtGetUserDevIdByLogicDevId(1, &user));
        ck_assert_int_eq(user, 0);
    }
    (void)aclGetRecentErrMsg();
    ACL_OK(aclFinalize());
}
END_TEST

START_TEST(synchronize_device)
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));

    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ck_assert_int_eq(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(-2), ACL_ERROR_RT_PARAM_INVALID);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    ACL_OK(aclrtStreamQuery(stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_COMPLETE);

    /* A held default stream is part of the device too. */
    acltest_gate_close(&gate, NULL);
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

/* SynchronizeDevice waits for a stream of an explicit context of the device
 * as well. */
START_TEST(synchronize_device_covers_other_contexts)
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext dflt = NULL;
    ACL_OK(aclrtGetCurrentContext(&dflt));
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtSetCurrentContext(dflt));
    ACL_FAILS_WITH(aclrtSynchronizeDeviceWithTimeout(50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtSetCurrentContext(ctx));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtDestroyContext(ctx));
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

static void *synchronize_in_thread(void *arg)
{
    *(aclError *)arg = aclrtSynchronizeDevice();
    return NULL;
}

START_TEST(synchronize_device_needs_a_context)
{
    aclError ret = ACL_SUCCESS;
    acltest_run_thread(synchronize_in_thread, &ret);
    ck_assert_int_eq(ret, ACL_ERROR_RT_CONTEXT_NULL);
}
END_TEST

START_TEST(mem_info)
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
END_TEST

START_TEST(soc_name)
{
    const char *name = aclrtGetSocName();
    ck_assert_ptr_nonnull(name);
    ck_assert_int_gt(strlen(name), 0);
}
END_TEST

START_TEST(run_mode_is_host)
{
    aclrtRunMode mode = ACL_DEVICE;
    ACL_OK(aclrtGetRunMode(&mode));
    ck_assert_int_eq(mode, ACL_HOST);
    ACL_FAILS_WITH(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(device_info)
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
END_TEST

START_TEST(stream_priority_range)
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
END_TEST

static Suite *suite(void)
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
    tcase_add_test(visible, visible_devices_remap);
    suite_add_tcase(s, visible);

    TCase *sync = tcase_create("synchronize");
    tcase_add_checked_fixture(sync, init, finalize);
    tcase_add_test(sync, synchronize_device);
    tcase_add_test(sync, synchronize_device_covers_other_contexts);
    tcase_add_test(sync, synchronize_device_needs_a_context);
    suite_add_tcase(s, sync);

    TCase *query = tcase_create("query");
    tcase_add_checked_fixture(query, init, finalize);
    tcase_add_test(query, mem_info);
    tcase_add_test(query, soc_name);
    tcase_add_test(query, run_mode_is_host);
    tcase_add_test(query, device_info);
    tcase_add_test(query, stream_priority_range);
    suite_add_tcase(s, query);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
