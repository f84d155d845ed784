/* acl-cuda's extensions (acl/acl_cuda.h), not part of AscendCL: the
 * optional "ext" group of the compatibility suite, built only when asked
 * for (./configure --enable-extensions, and always in acl-cuda's own make
 * check). Pinned against acl/acl_cuda.h's comments and docs/backends.md. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "bad_args.h"

COMPAT_TEST(backend_name,
            "aclcudaGetBackendName names the backend in use, \"cuda\" or \"host\", the same on "
            "every call",
            "acl/acl_cuda.h aclcudaGetBackendName; docs/backends.md")
{
    const char *name = aclcudaGetBackendName();
    ck_assert_ptr_nonnull(name);
    ck_assert_msg(strcmp(name, "cuda") == 0 || strcmp(name, "host") == 0, "backend \"%s\"", name);
    ck_assert_str_eq(aclcudaGetBackendName(), name);
}

COMPAT_TEST(native_handles,
            "aclcudaGetNativeStream/Event give the CUDA stream/event behind an ACL handle "
            "(NULL stream = the default stream's); on the host backend they give NULL",
            "acl/acl_cuda.h aclcudaGetNativeStream, aclcudaGetNativeEvent")
{
    bool cuda = strcmp(aclcudaGetBackendName(), "cuda") == 0;
    aclrtStream stream = compat_new_stream();
    aclrtStream dflt = NULL;
    ACL_OK(aclrtCtxGetCurrentDefaultStream(&dflt));
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    void *native_stream = (void *)1, *native_default = (void *)1, *native_null = (void *)1;
    void *native_event = (void *)1;
    ACL_OK(aclcudaGetNativeStream(stream, &native_stream));
    ACL_OK(aclcudaGetNativeStream(dflt, &native_default));
    ACL_OK(aclcudaGetNativeStream(NULL, &native_null));
    ACL_OK(aclcudaGetNativeEvent(event, &native_event));
    ck_assert_ptr_eq(native_null, native_default);
    if (cuda) {
        ck_assert_ptr_nonnull(native_stream);
        ck_assert_ptr_nonnull(native_default);
        ck_assert_ptr_ne(native_stream, native_default);
        ck_assert_ptr_nonnull(native_event);
    } else {
        ck_assert_ptr_null(native_stream);
        ck_assert_ptr_null(native_default);
        ck_assert_ptr_null(native_event);
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}

static bool on_cuda(void)
{
    return strcmp(aclcudaGetBackendName(), "cuda") == 0;
}

COMPAT_TEST(native_device,
            "aclcudaGetNativeDevice gives the native device of an ACL device id, "
            "aclcudaStreamGetDevice the ACL device of a stream (NULL: the default stream's)",
            "acl/acl_cuda.h aclcudaGetNativeDevice, aclcudaStreamGetDevice")
{
    int32_t current = -1, native = -1, of_stream = -1, of_default = -1;
    ACL_OK(aclrtGetDevice(&current));
    ACL_OK(aclcudaGetNativeDevice(current, &native));
    ck_assert_int_ge(native, 0);
    aclrtStream stream = compat_new_stream();
    ACL_OK(aclcudaStreamGetDevice(stream, &of_stream));
    ACL_OK(aclcudaStreamGetDevice(NULL, &of_default));
    ck_assert_int_eq(of_stream, current);
    ck_assert_int_eq(of_default, current);
    ACL_FAILS_WITH(aclcudaGetNativeDevice(4096, &native), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclcudaGetNativeDevice(-1, &native), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_OK(aclrtDestroyStream(stream));
}

COMPAT_TEST(native_stream_device,
            "aclcudaGetNativeStreamDevice gives what aclcudaGetNativeStream and "
            "aclcudaGetNativeDevice of the stream's device give, in one call",
            "acl/acl_cuda.h aclcudaGetNativeStreamDevice")
{
    aclrtStream stream = compat_new_stream();
    aclrtStream streams[] = {stream, NULL};
    for (size_t i = 0; i < 2; i++) {
        void *native = (void *)1, *alone = (void *)2;
        int32_t device = -1, acl_device = -1, expected = -2;
        ACL_OK(aclcudaGetNativeStreamDevice(streams[i], &native, &device));
        ACL_OK(aclcudaGetNativeStream(streams[i], &alone));
        ACL_OK(aclcudaStreamGetDevice(streams[i], &acl_device));
        ACL_OK(aclcudaGetNativeDevice(acl_device, &expected));
        ck_assert_ptr_eq(native, alone);
        ck_assert_int_eq(device, expected);
        if (on_cuda())
            ck_assert_ptr_nonnull(native);
    }
    ACL_OK(aclrtDestroyStream(stream));
}

static atomic_int kept_released;

static void count_release(void *ptr)
{
    atomic_fetch_add((atomic_int *)ptr, 1);
}

static void host_noop(void *arg)
{
    (void)arg;
}

COMPAT_TEST(capture_keep,
            "aclcudaCaptureKeep keeps a pointer with a capture's model: release runs once, after "
            "the model and its replays are gone (or at once when the capture is discarded), and "
            "is refused on a stream not being captured",
            "acl/acl_cuda.h aclcudaCaptureKeep")
{
    aclrtStream s = compat_new_stream();
    atomic_store(&kept_released, 0);
    ACL_FAILS_WITH(aclcudaCaptureKeep(s, &kept_released, count_release),
                   ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtLaunchHostFunc(s, host_noop, NULL));
    ACL_OK(aclcudaCaptureKeep(s, &kept_released, count_release));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(atomic_load(&kept_released), 0);
    ACL_OK(aclmdlRIDestroy(model));
    /* The release may come from a runtime thread once the graph is gone. */
    for (int i = 0; i < 2000 && atomic_load(&kept_released) == 0; i++)
        usleep(1000);
    ck_assert_int_eq(atomic_load(&kept_released), 1);
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- host functions for any thread ---------------------------------------------- */

enum { ANY_ROUNDS = 300, ANY_PER_ROUND = 3 };

/* Host functions note their index as they run, and whether another of the
 * stream's ran beside them. */
static struct {
    int index[ANY_ROUNDS * ANY_PER_ROUND];
    int ran[ANY_ROUNDS * ANY_PER_ROUND];
    atomic_int count, running, beside;
} any_log;

static void note_turn(void *arg)
{
    if (atomic_fetch_add(&any_log.running, 1) != 0)
        atomic_fetch_add(&any_log.beside, 1);
    any_log.ran[atomic_fetch_add(&any_log.count, 1)] = *(int *)arg;
    atomic_fetch_sub(&any_log.running, 1);
}

COMPAT_TEST(launch_host_func_any_thread,
            "aclcudaLaunchHostFuncAnyThread runs fn once, in stream order with the stream's "
            "other work and never beside it, whether the stream's thread or a thread "
            "synchronizing the stream runs it",
            "acl/acl_cuda.h aclcudaLaunchHostFuncAnyThread")
{
    aclrtStream s = compat_new_stream();
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEvent(&e));
    memset(&any_log, 0, sizeof any_log);
    for (int round = 0, i = 0; round < ANY_ROUNDS; round++) {
        for (int k = 0; k < ANY_PER_ROUND; k++, i++) {
            any_log.index[i] = i;
            /* The first of a round an ordinary host function, the others for any thread. */
            if (k == 0)
                ACL_OK(aclrtLaunchHostFunc(s, note_turn, &any_log.index[i]));
            else
                ACL_OK(aclcudaLaunchHostFuncAnyThread(s, note_turn, &any_log.index[i]));
        }
        if (round % 3 == 0) {
            ACL_OK(aclrtSynchronizeStream(s));
            ck_assert_int_eq(atomic_load(&any_log.count), i);
        } else if (round % 3 == 1) {
            ACL_OK(aclrtRecordEvent(e, s));
            ACL_OK(aclrtSynchronizeEvent(e));
            ck_assert_int_eq(atomic_load(&any_log.count), i);
        }
    }
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(atomic_load(&any_log.count), ANY_ROUNDS * ANY_PER_ROUND);
    for (int i = 0; i < ANY_ROUNDS * ANY_PER_ROUND; i++)
        ck_assert_msg(any_log.ran[i] == i, "function %d ran in turn %d", any_log.ran[i], i);
    ck_assert_int_eq(atomic_load(&any_log.beside), 0);
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtDestroyStream(s));
}

typedef struct any_subscriber {
    aclrtContext ctx;
    atomic_bool subscribed; /* a thread serves no stream before its subscription */
    aclError processed;
    pthread_t ran_on;
} any_subscriber;

static void note_any_thread(void *arg)
{
    ((any_subscriber *)arg)->ran_on = pthread_self();
}

static void *process_one_host_func(void *arg)
{
    any_subscriber *p = arg;
    ACL_OK(aclrtSetCurrentContext(p->ctx));
    while (!atomic_load(&p->subscribed))
        sched_yield();
    p->processed = aclrtProcessHostFunc(30000);
    return NULL;
}

COMPAT_TEST(host_func_any_thread_goes_to_the_subscriber,
            "with a thread subscribed to the stream (aclrtSubscribeHostFunc), "
            "aclcudaLaunchHostFuncAnyThread's function runs on that thread, as "
            "aclrtLaunchHostFunc's do",
            "acl/acl_cuda.h aclcudaLaunchHostFuncAnyThread")
{
    aclrtStream s = compat_new_stream();
    any_subscriber p = {.processed = -1};
    ACL_OK(aclrtGetCurrentContext(&p.ctx));
    pthread_t subscriber;
    ck_assert_int_eq(pthread_create(&subscriber, NULL, process_one_host_func, &p), 0);
    ACL_OK(aclrtSubscribeHostFunc((uint64_t)subscriber, s));
    atomic_store(&p.subscribed, true);
    ACL_OK(aclcudaLaunchHostFuncAnyThread(s, note_any_thread, &p));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_int_eq(pthread_join(subscriber, NULL), 0);
    ACL_OK(p.processed);
    ck_assert(pthread_equal(p.ran_on, subscriber));
    ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)subscriber, s));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(wrap_native_stream,
            "aclcudaStreamFromNative wraps a CUDA stream without owning it: work queued on it "
            "behind ACL's back is waited for, destroying the handle leaves the CUDA stream "
            "working; the host backend refuses (no native streams)",
            "acl/acl_cuda.h aclcudaStreamFromNative")
{
    aclrtStream wrapped = NULL;
    if (!on_cuda()) {
        ACL_FAILS_WITH(aclcudaStreamFromNative(NULL, &wrapped), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        return;
    }
    enum { SIZE = 1 << 16 };
    aclrtStream owner = compat_new_stream();
    void *native = NULL, *back = NULL;
    ACL_OK(aclcudaGetNativeStream(owner, &native));
    ACL_OK(aclcudaStreamFromNative(native, &wrapped));
    ck_assert_ptr_nonnull(wrapped);
    ck_assert_ptr_ne(wrapped, owner);
    ACL_OK(aclcudaGetNativeStream(wrapped, &back));
    ck_assert_ptr_eq(back, native);

    uint8_t *host = compat_host_buffer(SIZE), *out = compat_host_buffer(SIZE);
    void *dev = compat_device_buffer(SIZE);
    memset(host, 0x5a, SIZE);
    /* Held through the other handle: nothing was queued through `wrapped`,
     * yet it is busy. */
    compat_gate gate;
    compat_gate_close(&gate, owner);
    compat_gate_wait_reached(&gate);
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    ACL_OK(aclrtStreamQuery(wrapped, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtMemcpyAsync(dev, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, wrapped));
    ACL_OK(aclrtMemcpyAsync(out, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, wrapped));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(wrapped));
    compat_assert_filled(out, SIZE, 0x5a);

    ACL_OK(aclrtDestroyStream(wrapped));
    ACL_FAILS_WITH(aclrtSynchronizeStream(wrapped), ACL_ERROR_INVALID_PARAM);
    /* The CUDA stream is still the owner's, and works. */
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 0x11, SIZE, owner));
    ACL_OK(aclrtMemcpyAsync(out, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, owner));
    ACL_OK(aclrtSynchronizeStream(owner));
    compat_assert_filled(out, SIZE, 0x11);

    /* CUDA's legacy stream (NULL) stands for the context device's. */
    ACL_OK(aclcudaStreamFromNative(NULL, &wrapped));
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 0x22, SIZE, wrapped));
    ACL_OK(aclrtMemcpyAsync(out, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, wrapped));
    ACL_OK(aclrtSynchronizeStream(wrapped));
    compat_assert_filled(out, SIZE, 0x22);
    ACL_OK(aclrtDestroyStream(wrapped));

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(owner));
}

COMPAT_TEST(wrap_native_event,
            "aclcudaEventFromNative wraps a CUDA event without owning it; its state is the CUDA "
            "event's own (complete before any record, then its latest record, whoever made it), "
            "and waits on it order streams; the host backend refuses (no native events)",
            "acl/acl_cuda.h aclcudaEventFromNative")
{
    aclrtEvent wrapped = NULL;
    if (!on_cuda()) {
        ACL_FAILS_WITH(aclcudaEventFromNative((void *)1, &wrapped),
                       ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        return;
    }
    enum { SIZE = 1 << 16 };
    aclrtEvent owner = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&owner, ACL_EVENT_SYNC));
    void *native = NULL, *back = NULL;
    ACL_OK(aclcudaGetNativeEvent(owner, &native));
    ACL_OK(aclcudaEventFromNative(native, &wrapped));
    ACL_OK(aclcudaGetNativeEvent(wrapped, &back));
    ck_assert_ptr_eq(back, native);
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    ACL_OK(aclrtQueryEventStatus(wrapped, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_COMPLETE); /* CUDA: never recorded */

    aclrtStream producer = compat_new_stream(), consumer = compat_new_stream();
    uint8_t *out = compat_host_buffer(SIZE);
    void *dev = compat_device_buffer(SIZE);
    ACL_OK(aclrtMemset(dev, SIZE, 0, SIZE));
    compat_gate gate;
    compat_gate_close(&gate, producer);
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 0x7e, SIZE, producer));
    ACL_OK(aclrtRecordEvent(owner, producer)); /* through the other handle */
    ACL_OK(aclrtQueryEventStatus(wrapped, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ACL_OK(aclrtStreamWaitEvent(consumer, wrapped));
    ACL_OK(aclrtMemcpyAsync(out, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    ACL_OK(aclrtStreamQuery(consumer, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(consumer));
    compat_assert_filled(out, SIZE, 0x7e);
    ACL_OK(aclrtSynchronizeEvent(wrapped));

    ACL_OK(aclrtDestroyEvent(wrapped));
    ACL_OK(aclrtRecordEvent(owner, producer)); /* the CUDA event lives on */
    ACL_OK(aclrtSynchronizeEvent(owner));
    ACL_OK(aclrtDestroyEvent(owner));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(producer));
    ACL_OK(aclrtDestroyStream(consumer));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclcudaFunctionSetBlockDim)
{
    FOR_EACH_BAD(KIND_FUNCTION, h, ACL_ERROR_INVALID_PARAM,
                 aclcudaFunctionSetBlockDim(h, 32, 1, 1, 0));
}

ROW(aclcudaFunctionGetBlockDim)
{
    uint32_t x, y, z;
    size_t shared;
    FOR_EACH_BAD(KIND_FUNCTION, h, ACL_ERROR_INVALID_PARAM,
                 aclcudaFunctionGetBlockDim(h, &x, &y, &z, &shared));
}

ROW(aclcudaStreamFromNative)
{
    REJECTS(aclcudaStreamFromNative(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclcudaEventFromNative)
{
    aclrtEvent e;
    REJECTS(aclcudaEventFromNative(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL event");
    REJECTS(aclcudaEventFromNative(NULL, &e), ANY_ERROR, "a NULL native event");
}

ROW(aclcudaGetNativeDevice)
{
    int32_t native;
    REJECTS(aclcudaGetNativeDevice(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL nativeDevice");
    REJECTS(aclcudaGetNativeDevice(4096, &native), ACL_ERROR_RT_INVALID_DEVICEID,
            "a device that does not exist");
}

ROW(aclcudaGetNativeStreamDevice)
{
    void *native;
    int32_t device;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclcudaGetNativeStreamDevice(h, &native, &device));
    REJECTS(aclcudaGetNativeStreamDevice(NULL, NULL, &device), ACL_ERROR_INVALID_PARAM,
            "a NULL native");
    REJECTS(aclcudaGetNativeStreamDevice(NULL, &native, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL nativeDevice");
}

ROW(aclcudaStreamGetDevice)
{
    int32_t device;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclcudaStreamGetDevice(h, &device));
    REJECTS(aclcudaStreamGetDevice(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL deviceId");
}

ROW(aclcudaCaptureKeep)
{
    int kept = 0;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclcudaCaptureKeep(h, &kept, count_release));
    REJECTS(aclcudaCaptureKeep(NULL, &kept, NULL), ACL_ERROR_INVALID_PARAM, "a NULL release");
}

ROW(aclcudaLaunchHostFuncAnyThread)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclcudaLaunchHostFuncAnyThread(h, host_noop, NULL));
    REJECTS(aclcudaLaunchHostFuncAnyThread(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclcudaDLPackCapsuleDestructor)
{
    /* No error channel: outside a Python process, or given no capsule, the
     * call must simply return. */
    aclcudaDLPackCapsuleDestructor(NULL);
    if (level == COMPAT_HOSTILE) {
        char not_a_capsule[64] = {0};
        aclcudaDLPackCapsuleDestructor(not_a_capsule);
    }
}

ROW(aclcudaGetNativeEvent)
{
    void *native;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclcudaGetNativeEvent(h, &native));
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    REJECTS(aclcudaGetNativeEvent(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL native");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclcudaGetNativeStream)
{
    void *native;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclcudaGetNativeStream(h, &native));
    REJECTS(aclcudaGetNativeStream(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL native");
}

COMPAT_TEST(waits_in_slices,
            "aclcudaSynchronize{Stream,Event,Device}Slice wait at most sliceMs; an expiry returns "
            "the timeout code without a message, and a finished wait ACL_SUCCESS",
            "acl/acl_cuda.h aclcudaSynchronizeStreamSlice")
{
    aclrtStream stream = compat_new_stream();
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    compat_gate_wait_reached(&gate);
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclcudaSynchronizeStreamSlice(stream, 10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ck_assert_int_eq(aclcudaSynchronizeEventSlice(event, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    ck_assert_int_eq(aclcudaSynchronizeDeviceSlice(10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ck_assert_ptr_null(aclGetRecentErrMsg());
    compat_gate_open(&gate);
    ACL_OK(aclcudaSynchronizeStreamSlice(stream, 10000));
    ACL_OK(aclcudaSynchronizeEventSlice(event, 10000));
    ACL_OK(aclcudaSynchronizeDeviceSlice(10000));
    ACL_FAILS_WITH(aclcudaSynchronizeDeviceSlice(-1), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}

ROW(aclcudaSynchronizeStreamSlice)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclcudaSynchronizeStreamSlice(h, 1));
    REJECTS(aclcudaSynchronizeStreamSlice(NULL, -1), ACL_ERROR_INVALID_PARAM, "a negative slice");
}

ROW(aclcudaSynchronizeEventSlice)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclcudaSynchronizeEventSlice(h, 1));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclcudaEventFromNative),       COMPAT_ROW(aclcudaFunctionGetBlockDim),
    COMPAT_ROW(aclcudaFunctionSetBlockDim),   COMPAT_ROW(aclcudaGetNativeDevice),
    COMPAT_ROW(aclcudaGetNativeEvent),        COMPAT_ROW(aclcudaGetNativeStream),
    COMPAT_ROW(aclcudaStreamFromNative),      COMPAT_ROW(aclcudaStreamGetDevice),
    COMPAT_ROW(aclcudaCaptureKeep),           COMPAT_ROW(aclcudaLaunchHostFuncAnyThread),
    COMPAT_ROW(aclcudaSynchronizeEventSlice), COMPAT_ROW(aclcudaSynchronizeStreamSlice),
    COMPAT_ROW(aclcudaGetNativeStreamDevice), COMPAT_ROW(aclcudaDLPackCapsuleDestructor),
};
COMPAT_BAD_ARGS(cuda, rows);

Suite *compat_suite_cuda(void);
Suite *compat_suite_cuda(void)
{
    Suite *s = suite_create("cuda");
    TCase *handles = tcase_create("extensions");
    tcase_add_checked_fixture(handles, compat_set_up, compat_tear_down);
    tcase_add_test(handles, backend_name);
    tcase_add_test(handles, native_handles);
    tcase_add_test(handles, waits_in_slices);
    tcase_add_test(handles, native_device);
    tcase_add_test(handles, native_stream_device);
    tcase_add_test(handles, capture_keep);
    tcase_add_test(handles, launch_host_func_any_thread);
    tcase_add_test(handles, host_func_any_thread_goes_to_the_subscriber);
    tcase_add_test(handles, wrap_native_stream);
    tcase_add_test(handles, wrap_native_event);
    suite_add_tcase(s, handles);

    compat_add_bad_args(s, &compat_rows_cuda);
    return s;
}

COMPAT_MAIN(cuda)
