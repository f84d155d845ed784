/* Callbacks in acl-cuda's hands where ACL leaves the behaviour open: what
 * happens to callbacks in flight when their stream is unsubscribed or
 * destroyed, memory freed inside callbacks being reused by later ones (on
 * CUDA it cannot go back while a BLOCK callback holds the device), and a
 * double free from inside a callback. ACL's documented callback behaviour
 * is pinned by the compatibility suite (tests/compat/test_callback.c). */
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "acltest.h"
#include "reporter.h"

static void set_up_small_device(void)
{
    ck_assert_int_eq(setenv("ACLCUDA_HOST_DEVICE_MEMORY", "64M", 1), 0);
    set_up();
}

/* Memory freed inside callbacks is kept for later allocations (it cannot
 * go back to CUDA while a BLOCK callback holds the device); callbacks that
 * allocate buffers of varying sizes must still find room. On the host
 * backend the device has 64 MiB here (see set_up_small_device). */
enum { VARYING_CALLBACKS = 200 };
static atomic_int varying_ok;

static void allocate_varying(void *user_data)
{
    size_t bytes = ((size_t)1 << 20) + (size_t)(intptr_t)user_data * 4096;
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return;
    if (aclrtMemset(p, bytes, 0x5A, bytes) == ACL_SUCCESS && aclrtFree(p) == ACL_SUCCESS)
        atomic_fetch_add(&varying_ok, 1);
}

START_TEST(callbacks_allocate_varying_sizes)
{
    subscribe(stream);
    for (int i = 0; i < VARYING_CALLBACKS; i++)
        ACL_OK(aclrtLaunchCallback(allocate_varying, (void *)(intptr_t)((i * 7919) % 256),
                                   ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_int_eq(atomic_load(&varying_ok), VARYING_CALLBACKS);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

static void *freed_in_callback;
static aclError first_free, second_free;

static void free_twice(void *unused)
{
    (void)unused;
    first_free = aclrtFree(freed_in_callback);
    second_free = aclrtFree(freed_in_callback);
}

/* Memory freed inside a callback is gone for ACL at once, although CUDA
 * cannot take it back while the callback holds the device. */
START_TEST(free_inside_callback_is_immediate)
{
    subscribe(stream);
    ACL_OK(aclrtMalloc(&freed_in_callback, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtLaunchCallback(free_twice, NULL, ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_int_eq(first_free, ACL_SUCCESS);
    ck_assert_int_eq(second_free, ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

static unsigned char *remap_va;
static size_t remap_size;
static aclrtDrvMemHandle remap_handle;
static aclError remap_result;

static void map_in_callback(void *unused)
{
    (void)unused;
    remap_result = aclrtMapMem(remap_va, remap_size, 0, remap_handle, 0);
}

/* Mapping where an unmap still waits for queued work waits for that work,
 * which a callback cannot do (its own stream waits for it): refused there,
 * not a hang; outside the callback, once the work completed, it maps. */
START_TEST(map_inside_callback_over_deferred_unmap)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    ACL_OK(
        aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &remap_size));
    aclrtDrvMemHandle first;
    ACL_OK(aclrtReserveMemAddress((void **)&remap_va, remap_size, 0, NULL, 0));
    ACL_OK(aclrtMallocPhysical(&first, remap_size, &prop, 0));
    ACL_OK(aclrtMallocPhysical(&remap_handle, remap_size, &prop, 0));
    ACL_OK(aclrtMapMem(remap_va, remap_size, 0, first, 0));
    /* The stream is held by a notify wait, on the device: a host function
     * would hold CUDA's one host-function thread too, and the callback
     * would only run once the hold ended. */
    aclrtStream held;
    ACL_OK(aclrtCreateStream(&held));
    aclrtNotify open;
    ACL_OK(aclrtCreateNotify(&open, 0));
    ACL_OK(aclrtWaitAndResetNotify(open, held, 0));
    ACL_OK(aclrtMemsetAsync(remap_va, remap_size, 0x11, remap_size, held));
    ACL_OK(aclrtUnmapMem(remap_va));
    subscribe(stream);
    ACL_OK(aclrtLaunchCallback(map_in_callback, NULL, ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_int_eq(remap_result, ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtRecordNotify(open, stream));
    ACL_OK(aclrtSynchronizeStream(held));
    ACL_OK(aclrtDestroyNotify(open));
    ACL_OK(aclrtMapMem(remap_va, remap_size, 0, remap_handle, 0));
    ACL_OK(aclrtUnmapMem(remap_va));
    ACL_OK(aclrtFreePhysical(first));
    ACL_OK(aclrtFreePhysical(remap_handle));
    ACL_OK(aclrtReleaseMemAddress(remap_va));
    ACL_OK(aclrtDestroyStream(held));
    ACL_OK(aclrtUnSubscribeReport(reporter_id(), stream));
}
END_TEST

/* ---- subscriptions ending with callbacks in flight ----------------------------------------- */

/* Drains what the calling thread still has queued; its last stream is gone. */
static void drain_own_queue(void)
{
    aclError ret;
    while ((ret = aclrtProcessReport(100)) == ACL_SUCCESS)
        ;
    ck_assert_int_eq(ret, ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

START_TEST(unsubscribe_keeps_posted_callbacks)
{
    ACL_OK(aclrtSubscribeReport(self_id(), stream));
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtLaunchCallback(record, VALUE(i), ACL_CALLBACK_NO_BLOCK, stream));
    ACL_OK(aclrtSynchronizeStream(stream)); /* all three are posted, none ran */
    ck_assert_uint_eq(call_count(), 0);
    ACL_OK(aclrtUnSubscribeReport(self_id(), stream));
    ACL_FAILS_WITH(aclrtLaunchCallback(record, VALUE(9), ACL_CALLBACK_NO_BLOCK, stream),
                   ACL_ERROR_RT_STREAM_NO_CB_REG);
    ACL_OK(aclrtProcessReport(100));
    ck_assert_uint_eq(call_count(), 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(calls.values[i], i);
        ck_assert(pthread_equal(calls.threads[i], pthread_self()));
    }
    ACL_FAILS_WITH(aclrtProcessReport(100), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}
END_TEST

/* Callbacks the stream reaches only after the unsubscribe run on the
 * stream's own thread instead, BLOCK ones included, without hanging. */
START_TEST(unsubscribe_before_stream_reaches_callbacks)
{
    ACL_OK(aclrtSubscribeReport(self_id(), stream));
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_NO_BLOCK, stream));
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_BLOCK, stream));
    ACL_OK(aclrtUnSubscribeReport(self_id(), stream));
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    ck_assert_uint_eq(call_count(), 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(calls.values[i], i + 1);
        ck_assert(!pthread_equal(calls.threads[i], pthread_self()));
    }
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}
END_TEST

/* The subscribed thread does not process while the stream is destroyed:
 * the destroy does not hang, and every callback still runs exactly once
 * (posted ones in the thread's next aclrtProcessReport). */
START_TEST(destroy_stream_with_callbacks_queued)
{
    aclrtStream doomed;
    ACL_OK(aclrtCreateStream(&doomed));
    ACL_OK(aclrtSubscribeReport(self_id(), doomed));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_NO_BLOCK, doomed));
    ACL_OK(aclrtSynchronizeStream(doomed)); /* the first one is posted */
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_BLOCK, doomed));
    ACL_OK(aclrtLaunchCallback(record, VALUE(3), ACL_CALLBACK_NO_BLOCK, doomed));
    ACL_OK(aclrtDestroyStream(doomed));
    drain_own_queue();
    ck_assert_uint_eq(call_count(), 3);
    bool seen[4] = {false};
    for (size_t i = 0; i < 3; i++) {
        int v = calls.values[i];
        ck_assert(v >= 1 && v <= 3 && !seen[v]);
        seen[v] = true;
    }
}
END_TEST

/* A BLOCK callback posted before an unsubscribe still holds its stream; a
 * destroy then releases it although the stream has no subscriber left, and
 * the callback runs in the old thread's next aclrtProcessReport. */
START_TEST(destroy_after_unsubscribe_with_block_callback_posted)
{
    aclrtStream doomed;
    ACL_OK(aclrtCreateStream(&doomed));
    ACL_OK(aclrtSubscribeReport(self_id(), doomed));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, doomed));
    /* Held by the posted callback (nobody processes it yet). */
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(doomed, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclrtUnSubscribeReport(self_id(), doomed));
    ACL_OK(aclrtDestroyStream(doomed));
    drain_own_queue();
    ck_assert_uint_eq(call_count(), 1);
    ck_assert_int_eq(calls.values[0], 1);
}
END_TEST

/* An abort settles its stream's work: BLOCK callbacks that its report
 * thread has not run (it does not process meanwhile) no longer hold the
 * stream, one posted before the abort and one the stream reaches after it;
 * both still run, in the thread's next aclrtProcessReport. */
START_TEST(abort_releases_block_callbacks)
{
    aclrtStream aborted;
    ACL_OK(aclrtCreateStream(&aborted));
    ACL_OK(aclrtSubscribeReport(self_id(), aborted));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, aborted));
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(aborted, 50),
                   ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_BLOCK, aborted));
    ACL_OK(aclrtStreamAbort(aborted));
    ACL_OK(aclrtSynchronizeStream(aborted));
    /* The second is posted when the work it was queued behind reaches it:
     * on cuda that work goes on in the CUDA stream the abort left. */
    for (int i = 0; i < 100 && call_count() < 2; i++)
        (void)aclrtProcessReport(100);
    ACL_OK(aclrtDestroyStream(aborted));
    drain_own_queue();
    ck_assert_uint_eq(call_count(), 2);
    ck_assert_int_eq(calls.values[0], 1);
    ck_assert_int_eq(calls.values[1], 2);
}
END_TEST

/* An abort releases only the calls launched before it: BLOCK callbacks
 * launched after one, directly or replayed by a model captured on the
 * stream, still hold the stream until their report thread runs them. */
START_TEST(block_callbacks_after_an_abort_still_hold)
{
    aclrtStream aborted;
    ACL_OK(aclrtCreateStream(&aborted));
    ACL_OK(aclrtSubscribeReport(self_id(), aborted));
    ACL_OK(aclrtStreamAbort(aborted));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_BLOCK, aborted));
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(aborted, 50),
                   ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclrtProcessReport(10000));
    ACL_OK(aclrtSynchronizeStream(aborted));
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(aborted, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtLaunchCallback(record, VALUE(2), ACL_CALLBACK_BLOCK, aborted));
    ACL_OK(aclmdlRICaptureEnd(aborted, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, aborted));
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(aborted, 50),
                   ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_OK(aclrtProcessReport(10000));
    ACL_OK(aclrtSynchronizeStream(aborted));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(aborted));
    drain_own_queue();
    ck_assert_uint_eq(call_count(), 2);
}
END_TEST

static aclrtStream destroyed_from_callback;
static aclError destroy_result;
static size_t calls_after_destroy;

static void destroy_own_stream(void *unused)
{
    (void)unused;
    destroy_result = aclrtDestroyStream(destroyed_from_callback);
    calls_after_destroy = call_count();
}

/* A BLOCK callback that destroys its own stream does not deadlock: the
 * destroy releases the stream from it, and the later callback, reached with
 * no subscriber left, runs on the stream's own thread. */
START_TEST(block_callback_destroys_its_stream)
{
    ACL_OK(aclrtCreateStream(&destroyed_from_callback));
    ACL_OK(aclrtSubscribeReport(self_id(), destroyed_from_callback));
    ACL_OK(
        aclrtLaunchCallback(destroy_own_stream, NULL, ACL_CALLBACK_BLOCK, destroyed_from_callback));
    ACL_OK(aclrtLaunchCallback(record, VALUE(1), ACL_CALLBACK_NO_BLOCK, destroyed_from_callback));
    ACL_OK(aclrtProcessReport(-1));
    ck_assert_int_eq(destroy_result, ACL_SUCCESS);
    ck_assert_uint_eq(calls_after_destroy, 1);
    ck_assert(!pthread_equal(calls.threads[0], pthread_self()));
    ACL_FAILS_WITH(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("callback (acl-cuda)");

    /* Each callback allocates and fills device memory while it holds its
     * stream; compute-sanitizer, which serialises device work, skips the
     * tag (see scripts/device-check.sh). */
    TCase *small = tcase_create("small device");
    tcase_set_tags(small, "concurrent");
    tcase_add_checked_fixture(small, set_up_small_device, tear_down);
    tcase_add_test(small, callbacks_allocate_varying_sizes);
    suite_add_tcase(s, small);

    TCase *freeing = tcase_create("freeing");
    tcase_add_checked_fixture(freeing, set_up, tear_down);
    tcase_add_test(freeing, free_inside_callback_is_immediate);
    tcase_add_test(freeing, map_inside_callback_over_deferred_unmap);
    suite_add_tcase(s, freeing);

    TCase *ending = tcase_create("ending");
    tcase_add_checked_fixture(ending, set_up, tear_down);
    tcase_add_test(ending, unsubscribe_keeps_posted_callbacks);
    tcase_add_test(ending, unsubscribe_before_stream_reaches_callbacks);
    tcase_add_test(ending, destroy_stream_with_callbacks_queued);
    tcase_add_test(ending, destroy_after_unsubscribe_with_block_callback_posted);
    tcase_add_test(ending, block_callback_destroys_its_stream);
    tcase_add_test(ending, abort_releases_block_callbacks);
    tcase_add_test(ending, block_callbacks_after_an_abort_still_hold);
    suite_add_tcase(s, ending);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
