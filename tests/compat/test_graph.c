/* Model run instances (acl_rt.h aclmdlRI*, developer guide "single-stream
 * capture" and "cross-stream capture"): work queued on a capturing stream is
 * kept in a model and runs when the model executes, as often as it
 * executes; streams join a capture through events and must be joined back;
 * capture modes govern the unsafe functions; models built from persistent
 * streams, with streams that others start or switch to and labels that
 * jumps go to; names; and the bad-argument rows of every aclmdlRI function
 * and of the labels.
 * Kernel launches in models are tested by acl-cuda's own suite
 * (tests/check/test_graph.c), which has kernels to launch. */
#include "bad_args.h"

enum { SIZE = 4096, REPLAYS = 4 };

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    compat_set_device();
}

static void tear_down(void)
{
    compat_reset_device();
    ACL_OK(aclFinalize());
}

static void *device_buffer(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static uint8_t *pinned_buffer(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMallocHost(&p, size));
    return p;
}

COMPAT_TEST(captured_work_runs_when_the_model_does,
            "between aclmdlRICaptureBegin and aclmdlRICaptureEnd the stream's tasks do not run; "
            "each aclmdlRIExecuteAsync runs them all again",
            "API ref aclmdlRICaptureBegin, aclmdlRIExecuteAsync; dev guide single-stream capture")
{
    aclrtStream s = compat_new_stream();
    void *a = device_buffer(SIZE), *b = device_buffer(SIZE);
    uint8_t *in = pinned_buffer(SIZE), *out = pinned_buffer(SIZE);
    memset(in, 0x11, SIZE);
    memset(out, 0, SIZE);
    ACL_OK(aclrtMemset(b, SIZE, 0, SIZE));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemcpyAsync(a, SIZE, in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, s));
    ACL_OK(aclrtMemsetAsync(a, SIZE / 2, 0x22, SIZE / 2, s));
    ACL_OK(aclrtMemcpyAsync(b, SIZE, a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtMemcpyAsync(out, SIZE, b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ck_assert_ptr_nonnull(model);
    compat_assert_filled(out, SIZE, 0); /* nothing ran */
    for (int r = 0; r < REPLAYS; r++) {
        memset(out, 0, SIZE);
        in[SIZE - 1] = (uint8_t)(0x30 + r); /* read by the replay, not at capture time */
        ACL_OK(aclmdlRIExecuteAsync(model, s));
        ACL_OK(aclrtSynchronizeStream(s));
        compat_assert_filled(out, SIZE / 2, 0x22);
        compat_assert_filled(out + SIZE / 2, SIZE / 2 - 1, 0x11);
        ck_assert_uint_eq(out[SIZE - 1], 0x30 + r);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtFreeHost(in));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- external records and waits ---------------------------------------------------------
 * An event of aclrtCreateEventExWithFlag(ACL_EVENT_SYNC) crosses a model's
 * boundary: a model being captured waits for it (ACL_EVENT_WAIT_EXTERNAL)
 * or records it (ACL_EVENT_RECORD_EXTERNAL), and each run of the model does
 * so again (CANN's sample model_ri/4, "three synchronization scenarios"). */

static aclrtEvent external_event(void)
{
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    return e;
}

static void assert_device_filled(const void *dev, uint8_t value)
{
    uint8_t host[SIZE];
    ACL_OK(aclrtMemcpy(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(host, SIZE, value);
}

COMPAT_TEST(external_wait_orders_a_model_after_a_stream,
            "a model that waited for an event with ACL_EVENT_WAIT_EXTERNAL during its capture "
            "waits, at each run, for the event's record made on another stream before the run",
            "API ref aclrtStreamWaitEventWithFlag; sample model_ri/4 scenario 1")
{
    aclrtStream graph = compat_new_stream(), other = compat_new_stream();
    aclrtEvent e = external_event();
    void *src = device_buffer(SIZE), *dst = device_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(graph, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtStreamWaitEventWithFlag(graph, e, 0, ACL_EVENT_WAIT_EXTERNAL));
    ACL_OK(aclrtMemcpyAsync(dst, SIZE, src, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, graph));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(graph, &model));
    for (int r = 0; r < REPLAYS; r++) {
        uint8_t value = (uint8_t)(0x20 + r);
        ACL_OK(aclrtMemset(dst, SIZE, 0, SIZE));
        compat_gate gate;
        compat_gate_close(&gate, other);
        ACL_OK(aclrtMemsetAsync(src, SIZE, value, SIZE, other));
        ACL_OK(aclrtRecordEvent(e, other));
        ACL_OK(aclmdlRIExecuteAsync(model, graph));
        compat_gate_wait_reached(&gate);
        ck_assert_int_eq(compat_stream_status(graph), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(graph));
        assert_device_filled(dst, value);
        ACL_OK(aclrtSynchronizeStream(other));
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtDestroyStream(graph));
    ACL_OK(aclrtDestroyStream(other));
}

COMPAT_TEST(external_record_orders_a_stream_after_a_model,
            "a model that recorded an event with ACL_EVENT_RECORD_EXTERNAL during its capture "
            "records it at each run: a stream that waits for the event after the run was queued "
            "waits for the work the model did before the record",
            "API ref aclrtRecordEventWithFlag; sample model_ri/4 scenario 2")
{
    aclrtStream graph = compat_new_stream(), other = compat_new_stream();
    aclrtEvent e = external_event();
    void *src = device_buffer(SIZE), *dst = device_buffer(SIZE);
    uint8_t *out = pinned_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(graph, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtMemcpyAsync(dst, SIZE, src, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, graph));
    ACL_OK(aclrtRecordEventWithFlag(e, graph, ACL_EVENT_RECORD_EXTERNAL));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(graph, &model));
    for (int r = 0; r < REPLAYS; r++) {
        uint8_t value = (uint8_t)(0x40 + r);
        ACL_OK(aclrtMemset(src, SIZE, value, SIZE));
        memset(out, 0, SIZE);
        compat_gate gate;
        compat_gate_close(&gate, graph);
        ACL_OK(aclmdlRIExecuteAsync(model, graph));
        ACL_OK(aclrtStreamWaitEvent(other, e));
        ACL_OK(aclrtMemcpyAsync(out, SIZE, dst, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, other));
        compat_gate_wait_reached(&gate);
        ck_assert_int_eq(compat_stream_status(other), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(other));
        compat_assert_filled(out, SIZE, value);
        ACL_OK(aclrtSynchronizeStream(graph));
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFreeHost(out));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtDestroyStream(graph));
    ACL_OK(aclrtDestroyStream(other));
}

COMPAT_TEST(external_record_and_wait_between_models,
            "one model's external record and another model's external wait on the same event "
            "order the second model's work after the first's at each pair of runs",
            "API ref aclrtRecordEventWithFlag, aclrtStreamWaitEventWithFlag; sample model_ri/4 "
            "scenario 3")
{
    aclrtStream first = compat_new_stream(), second = compat_new_stream();
    aclrtEvent e = external_event();
    void *src = device_buffer(SIZE), *mid = device_buffer(SIZE), *dst = device_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(first, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtMemcpyAsync(mid, SIZE, src, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, first));
    ACL_OK(aclrtRecordEventWithFlag(e, first, ACL_EVENT_RECORD_EXTERNAL));
    aclmdlRI producer = NULL, consumer = NULL;
    ACL_OK(aclmdlRICaptureEnd(first, &producer));
    ACL_OK(aclmdlRICaptureBegin(second, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtStreamWaitEventWithFlag(second, e, 0, ACL_EVENT_WAIT_EXTERNAL));
    ACL_OK(aclrtMemcpyAsync(dst, SIZE, mid, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, second));
    ACL_OK(aclmdlRICaptureEnd(second, &consumer));
    for (int r = 0; r < REPLAYS; r++) {
        uint8_t value = (uint8_t)(0x60 + r);
        ACL_OK(aclrtMemset(src, SIZE, value, SIZE));
        compat_gate gate;
        compat_gate_close(&gate, first);
        ACL_OK(aclmdlRIExecuteAsync(producer, first));
        ACL_OK(aclmdlRIExecuteAsync(consumer, second));
        compat_gate_wait_reached(&gate);
        ck_assert_int_eq(compat_stream_status(second), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(second));
        assert_device_filled(dst, value);
        ACL_OK(aclrtSynchronizeStream(first));
    }
    ACL_OK(aclmdlRIDestroy(producer));
    ACL_OK(aclmdlRIDestroy(consumer));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(mid));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtDestroyStream(first));
    ACL_OK(aclrtDestroyStream(second));
}

COMPAT_TEST(external_events_outlive_their_handle_in_a_model,
            "a model keeps the events of its external records and waits: destroyed after the "
            "capture, they still serve every run",
            "API ref aclrtDestroyEvent, aclrtRecordEventWithFlag")
{
    aclrtStream graph = compat_new_stream();
    aclrtEvent recorded = external_event(), waited = external_event();
    void *a = device_buffer(SIZE), *b = device_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(graph, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtStreamWaitEventWithFlag(graph, waited, 0, ACL_EVENT_WAIT_EXTERNAL));
    ACL_OK(aclrtMemsetAsync(a, SIZE, 0x7e, SIZE, graph));
    ACL_OK(aclrtRecordEventWithFlag(recorded, graph, ACL_EVENT_RECORD_EXTERNAL));
    ACL_OK(aclrtMemcpyAsync(b, SIZE, a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, graph));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(graph, &model));
    ACL_OK(aclrtDestroyEvent(recorded));
    ACL_OK(aclrtDestroyEvent(waited));
    for (int r = 0; r < REPLAYS; r++)
        ACL_OK(aclmdlRIExecuteAsync(model, graph));
    ACL_OK(aclrtSynchronizeStream(graph));
    assert_device_filled(b, 0x7e);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtDestroyStream(graph));
}

COMPAT_TEST(external_needs_an_ex_sync_event,
            "during a capture, an external record or wait of an event that is not of "
            "aclrtCreateEventExWithFlag(ACL_EVENT_SYNC) is refused with ACL_ERROR_INVALID_PARAM",
            "API ref aclrtRecordEventWithFlag, aclrtStreamWaitEventWithFlag")
{
    aclrtStream graph = compat_new_stream();
    aclrtEvent plain = NULL, with_flag = NULL;
    ACL_OK(aclrtCreateEvent(&plain));
    ACL_OK(aclrtCreateEventWithFlag(&with_flag, ACL_EVENT_SYNC));
    ACL_OK(aclmdlRICaptureBegin(graph, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_FAILS_WITH(aclrtRecordEventWithFlag(plain, graph, ACL_EVENT_RECORD_EXTERNAL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtStreamWaitEventWithFlag(graph, with_flag, 0, ACL_EVENT_WAIT_EXTERNAL),
                   ACL_ERROR_INVALID_PARAM);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(graph, &model));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyEvent(with_flag));
    ACL_OK(aclrtDestroyStream(graph));
}

COMPAT_TEST(capture_status,
            "aclmdlRICaptureGetInfo reports NONE outside a capture and ACTIVE with the model "
            "during one",
            "API ref aclmdlRICaptureGetInfo, aclmdlRICaptureStatus")
{
    aclrtStream s = compat_new_stream();
    aclmdlRICaptureStatus status = (aclmdlRICaptureStatus)-1;
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    ck_assert_ptr_nonnull(model);
    aclmdlRI ended = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &ended));
    ck_assert_ptr_eq(ended, model);
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    ACL_OK(aclmdlRIDestroy(ended));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(capture_end_with_a_task_group_open,
            "aclmdlRICaptureEnd with a task group begun and not ended fails with "
            "ACL_ERROR_STREAM_TASK_GROUP_STATUS and gives no model; the capture is over: the "
            "stream runs work again and can be captured again",
            "API ref aclmdlRICaptureTaskGrpBegin/End (used in pairs); CANN runtime "
            "StreamEndCapture (a task group not closed fails the model's validity check, and the "
            "capture is cleared)")
{
    aclrtStream s = compat_new_stream();
    void *dev = device_buffer(SIZE);
    uint8_t *host = pinned_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 1, SIZE, s));
    ACL_OK(aclmdlRICaptureTaskGrpBegin(s));
    aclmdlRI model = NULL;
    ACL_FAILS_WITH(aclmdlRICaptureEnd(s, &model), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    ck_assert_ptr_null(model);
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 2, SIZE, s));
    ACL_OK(aclrtMemcpyAsync(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    ACL_OK(aclrtSynchronizeStream(s));
    compat_assert_filled(host, SIZE, 2);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(cross_stream_capture,
            "a stream that waits for an event recorded on a capturing stream joins its capture; "
            "joined back through another event, its work is part of the model",
            "dev guide cross-stream capture; API ref aclmdlRICaptureBegin")
{
    aclrtStream origin = compat_new_stream(), side = compat_new_stream();
    aclrtEvent fork = NULL, join = NULL;
    ACL_OK(aclrtCreateEvent(&fork));
    ACL_OK(aclrtCreateEvent(&join));
    void *a = device_buffer(SIZE), *b = device_buffer(SIZE);
    ACL_OK(aclrtMemset(a, SIZE, 0, SIZE));
    ACL_OK(aclrtMemset(b, SIZE, 0, SIZE));
    ACL_OK(aclmdlRICaptureBegin(origin, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(a, SIZE, 0x44, SIZE, origin));
    ACL_OK(aclrtRecordEvent(fork, origin));
    ACL_OK(aclrtStreamWaitEvent(side, fork));
    ACL_OK(aclrtMemcpyAsync(b, SIZE, a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, side));
    ACL_OK(aclrtRecordEvent(join, side));
    ACL_OK(aclrtStreamWaitEvent(origin, join));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(origin, &model));
    uint8_t *h = pinned_buffer(SIZE);
    ACL_OK(aclrtMemcpy(h, SIZE, b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(h, SIZE, 0);
    ACL_OK(aclmdlRIExecuteAsync(model, origin));
    ACL_OK(aclrtSynchronizeStream(origin));
    ACL_OK(aclrtMemcpy(h, SIZE, b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(h, SIZE, 0x44);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFreeHost(h));
    ACL_OK(aclrtFree(a));
    ACL_OK(aclrtFree(b));
    ACL_OK(aclrtDestroyEvent(fork));
    ACL_OK(aclrtDestroyEvent(join));
    ACL_OK(aclrtDestroyStream(origin));
    ACL_OK(aclrtDestroyStream(side));
}

COMPAT_TEST(exchange_mode_swaps,
            "aclmdlRICaptureThreadExchangeMode sets the thread's mode to *mode and returns the "
            "previous one in *mode",
            "API ref aclmdlRICaptureThreadExchangeMode")
{
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    aclmdlRICaptureMode before = mode;
    mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    ck_assert_int_eq(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    mode = before;
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    ck_assert_int_eq(mode, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
}

COMPAT_TEST(unsafe_copy_in_global_mode,
            "in GLOBAL capture mode a synchronous aclrtMemcpy fails and the capture fails with "
            "it; switched to RELAXED, the thread may copy",
            "dev guide single-stream capture, limits 3; API ref "
            "aclmdlRICaptureThreadExchangeMode")
{
    aclrtStream s = compat_new_stream();
    void *dev = device_buffer(SIZE);
    uint8_t *host = pinned_buffer(SIZE);
    memset(host, 7, SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    ACL_OK(aclrtMemcpy(dev, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));

    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_FAILS(aclrtMemcpy(dev, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
    model = NULL;
    ACL_FAILS(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(built_model,
            "a model built on persistent streams (BuildBegin, BindStream, tasks, EndTask, "
            "BuildEnd) runs its tasks with aclmdlRIExecute and aclmdlRIExecuteAsync",
            "API ref aclmdlRIBuildBegin, aclmdlRIBindStream, aclmdlRIEndTask, aclmdlRIBuildEnd, "
            "aclmdlRIExecute")
{
    aclrtStream bound = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&bound, 0, ACL_STREAM_PERSISTENT));
    void *dev = device_buffer(SIZE);
    uint8_t *out = pinned_buffer(SIZE);
    ACL_OK(aclrtMemset(dev, SIZE, 0, SIZE));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, bound, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 0x5a, SIZE, bound));
    ACL_OK(aclmdlRIEndTask(model, bound));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    ACL_OK(aclmdlRIExecute(model, -1));
    ACL_OK(aclrtMemcpy(out, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(out, SIZE, 0x5a);
    ACL_OK(aclrtMemset(dev, SIZE, 0, SIZE));
    aclrtStream s = compat_new_stream();
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(out, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(out, SIZE, 0x5a);
    ACL_OK(aclmdlRIUnbindStream(model, bound));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(bound));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(out));
}

/* ---- stream control flow of built models ------------------------------------------- */

static aclrtStream persistent_stream(void)
{
    aclrtStream s = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    return s;
}

static void set_i32(void *dev, int32_t v)
{
    ACL_OK(aclrtMemcpy(dev, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* The bytes of a run's marks: 16 bytes, one per stream. */
static void read_marks(const void *dev, uint8_t out[16])
{
    ACL_OK(aclrtMemcpy(out, 16, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST));
}

COMPAT_TEST(streams_switched_to_and_started,
            "streams bound with ACL_MODEL_STREAM_FLAG_DEFAULT run when a task starts them: "
            "aclrtSwitchStream runs trueStream's tasks when the condition on the device values "
            "holds and the rest of its stream then does not, else the rest goes on; "
            "aclrtActiveStream starts a stream alongside its own",
            "API ref aclmdlRIBindStream, aclrtSwitchStream, aclrtActiveStream; sample "
            "2_model_switch")
{
    /* The sample's shape: the head switches on num to s3 (1) or s4 (2);
     * s4 starts s2; s2 and s3 start last. */
    aclrtStream head = persistent_stream(), s2 = persistent_stream(), s3 = persistent_stream(),
                s4 = persistent_stream(), last = persistent_stream();
    uint8_t *marks = device_buffer(16);
    int32_t *values = device_buffer(16); /* num, 1, 2 */
    set_i32(values + 1, 1);
    set_i32(values + 2, 2);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, head, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, s2, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclmdlRIBindStream(model, s3, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclmdlRIBindStream(model, s4, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclmdlRIBindStream(model, last, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclrtMemsetAsync(marks + 1, 1, 1, 1, head));
    ACL_OK(
        aclrtSwitchStream(values, ACL_RT_EQUAL, values + 1, ACL_RT_SWITCH_INT32, s3, NULL, head));
    ACL_OK(
        aclrtSwitchStream(values, ACL_RT_EQUAL, values + 2, ACL_RT_SWITCH_INT32, s4, NULL, head));
    ACL_OK(aclrtMemsetAsync(marks + 5, 1, 5, 1, head)); /* neither switch taken */
    ACL_OK(aclrtMemsetAsync(marks + 2, 1, 2, 1, s2));
    ACL_OK(aclrtActiveStream(last, s2));
    ACL_OK(aclrtMemsetAsync(marks + 3, 1, 3, 1, s3));
    ACL_OK(aclrtActiveStream(last, s3));
    ACL_OK(aclrtActiveStream(s2, s4));
    ACL_OK(aclrtMemsetAsync(marks + 4, 1, 4, 1, last));
    ACL_OK(aclmdlRIEndTask(model, last));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    static const uint8_t want[3][6] = {{0, 1, 0, 3, 4, 0}, {0, 1, 2, 0, 4, 0}, {0, 1, 0, 0, 0, 5}};
    aclrtStream exec = compat_new_stream();
    for (int32_t num = 1; num <= 3; num++) {
        ACL_OK(aclrtMemset(marks, 16, 0, 16));
        set_i32(values, num);
        ACL_OK(aclmdlRIExecuteAsync(model, exec));
        ACL_OK(aclrtSynchronizeStream(exec));
        uint8_t got[16];
        read_marks(marks, got);
        for (int i = 1; i < 6; i++)
            ck_assert_msg(got[i] == want[num - 1][i], "num %d: mark %d is %u, expected %u",
                          (int)num, i, got[i], want[num - 1][i]);
    }
    aclrtStream streams[] = {head, s2, s3, s4, last};
    for (size_t i = 0; i < 5; i++) {
        ACL_OK(aclmdlRIUnbindStream(model, streams[i]));
        ACL_OK(aclrtDestroyStream(streams[i]));
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(exec));
    ACL_OK(aclrtFree(marks));
    ACL_OK(aclrtFree(values));
}

COMPAT_TEST(label_switch_by_index,
            "aclrtSwitchLabelByIndex goes on at the label of the list that the uint32 index in "
            "device memory selects (past the list's last label: the last one), skipping what "
            "lies between; a jump back to a label runs what follows it again",
            "API ref aclrtCreateLabel, aclrtCreateLabelList, aclrtSetLabel, "
            "aclrtSwitchLabelByIndex; sample 0_simple_label")
{
    aclrtStream s = persistent_stream(), exec = compat_new_stream();
    uint8_t *marks = device_buffer(16);
    uint32_t *index = device_buffer(64); /* [0] the switch's; [1], [2], [3] the loop's */
    aclrtLabel l[4];
    for (int i = 0; i < 4; i++)
        ACL_OK(aclrtCreateLabel(&l[i]));
    aclrtLabelList branches = NULL, ways = NULL;
    ACL_OK(aclrtCreateLabelList(l, 2, &branches));
    aclrtLabel loop_ways[2] = {l[3], l[2]}; /* 0: out, 1: back to l2 */
    ACL_OK(aclrtCreateLabelList(loop_ways, 2, &ways));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, s, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtSwitchLabelByIndex(index, 2, branches, s));
    ACL_OK(aclrtMemsetAsync(marks + 9, 1, 9, 1, s)); /* never runs */
    ACL_OK(aclrtSetLabel(l[0], s));
    ACL_OK(aclrtMemsetAsync(marks, 1, 1, 1, s));
    ACL_OK(aclrtSetLabel(l[1], s));
    ACL_OK(aclrtMemsetAsync(marks + 1, 1, 2, 1, s));
    /* Two rounds: the index the jump reads is the one the round before
     * left (1, then 0). */
    ACL_OK(aclrtMemcpyAsync(index + 2, 4, index + 3, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtSetLabel(l[2], s));
    ACL_OK(aclrtMemcpyAsync(marks + 3, 1, marks + 2, 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtMemsetAsync(marks + 2, 1, 7, 1, s));
    ACL_OK(aclrtMemcpyAsync(index + 1, 4, index + 2, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ACL_OK(aclrtMemsetAsync(index + 2, 4, 0, 4, s));
    ACL_OK(aclrtSwitchLabelByIndex(index + 1, 2, ways, s));
    ACL_OK(aclrtSetLabel(l[3], s));
    ACL_OK(aclmdlRIEndTask(model, s));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    static const struct {
        uint32_t index;
        uint8_t first, second;
    } runs[] = {{0, 1, 2}, {1, 0, 2}, {5, 0, 2}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        ACL_OK(aclrtMemset(marks, 16, 0, 16));
        ACL_OK(aclrtMemcpy(index, 4, &runs[r].index, 4, ACL_MEMCPY_HOST_TO_DEVICE));
        set_i32(index + 3, 1);
        ACL_OK(aclmdlRIExecuteAsync(model, exec));
        ACL_OK(aclrtSynchronizeStream(exec));
        uint8_t got[16];
        read_marks(marks, got);
        ck_assert_msg(got[0] == runs[r].first && got[1] == runs[r].second && got[9] == 0,
                      "index %u ran %u %u (%u)", runs[r].index, got[0], got[1], got[9]);
        /* The loop's second round copied what its first one set. */
        ck_assert_uint_eq(got[3], 7);
    }
    ACL_OK(aclmdlRIUnbindStream(model, s));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(branches));
    ACL_OK(aclrtDestroyLabelList(ways));
    for (int i = 0; i < 4; i++)
        ACL_OK(aclrtDestroyLabel(l[i]));
    ACL_OK(aclrtFree(marks));
    ACL_OK(aclrtFree(index));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(unbind_while_building,
            "a stream bound to a model being built can be unbound before aclmdlRIBuildEnd; the "
            "model is built and runs with the streams still bound",
            "API ref aclmdlRIUnbindStream, aclmdlRIBuildEnd")
{
    aclrtStream kept = persistent_stream(), gone = persistent_stream(), exec = compat_new_stream();
    uint8_t *marks = device_buffer(16);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, kept, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, gone, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtMemsetAsync(marks, 1, 1, 1, kept));
    ACL_OK(aclmdlRIUnbindStream(model, gone));
    ACL_OK(aclmdlRIEndTask(model, kept));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    ACL_OK(aclrtMemset(marks, 16, 0, 16));
    ACL_OK(aclmdlRIExecuteAsync(model, exec));
    ACL_OK(aclrtSynchronizeStream(exec));
    uint8_t got[16];
    read_marks(marks, got);
    ck_assert_uint_eq(got[0], 1);
    ACL_OK(aclmdlRIUnbindStream(model, kept));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(marks));
    ACL_OK(aclrtDestroyStream(kept));
    ACL_OK(aclrtDestroyStream(gone));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(names_and_ids,
            "aclmdlRIGetName gives \"\" until aclmdlRISetName, then the last name set; "
            "aclmdlRIGetId tells models apart",
            "API ref aclmdlRISetName, aclmdlRIGetName, aclmdlRIGetId")
{
    aclmdlRI a = NULL, b = NULL;
    ACL_OK(aclmdlRIBuildBegin(&a, 0));
    ACL_OK(aclmdlRIBuildBegin(&b, 0));
    char name[32] = "x";
    ACL_OK(aclmdlRIGetName(a, sizeof name, name));
    ck_assert_str_eq(name, "");
    ACL_OK(aclmdlRISetName(a, "one"));
    ACL_OK(aclmdlRISetName(a, "two"));
    ACL_OK(aclmdlRIGetName(a, sizeof name, name));
    ck_assert_str_eq(name, "two");
    uint32_t ida = 0, idb = 0;
    ACL_OK(aclmdlRIGetId(a, &ida));
    ACL_OK(aclmdlRIGetId(b, &idb));
    ck_assert_uint_ne(ida, idb);
    ACL_OK(aclmdlRIDestroy(a));
    ACL_OK(aclmdlRIDestroy(b));
}

COMPAT_TEST(debug_prints,
            "aclmdlRIDebugPrint prints a captured model and aclmdlRIDebugJsonPrint writes it to "
            "a file",
            "API ref aclmdlRIDebugPrint, aclmdlRIDebugJsonPrint")
{
    aclrtStream s = compat_new_stream();
    void *dev = device_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 1, SIZE, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDebugPrint(model));
    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/acl-compat-model-%d.json", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    ACL_OK(aclmdlRIDebugJsonPrint(model, path, ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int c = fgetc(f);
    fclose(f);
    unlink(path);
    ck_assert_int_ne(c, EOF);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- the tasks of a model ------------------------------------------------------------- */

/* The tasks of s in the model it was captured into, in a new array. */
static aclmdlRITask *tasks_of(aclrtStream s, uint32_t *n)
{
    *n = 12345; /* any value: the first call only counts */
    ACL_OK(aclmdlRIGetTasksByStream(s, NULL, n));
    aclmdlRITask *tasks = calloc(*n ? *n : 1, sizeof *tasks);
    ck_assert_ptr_nonnull(tasks);
    ACL_OK(aclmdlRIGetTasksByStream(s, tasks, n));
    return tasks;
}

/* The first task of the type, or NULL. */
static aclmdlRITask task_of_type(aclmdlRITask *tasks, uint32_t n, aclmdlRITaskType type)
{
    for (uint32_t i = 0; i < n; i++) {
        aclmdlRITaskType t = (aclmdlRITaskType)-1;
        ACL_OK(aclmdlRITaskGetType(tasks[i], &t));
        if (t == type)
            return tasks[i];
    }
    return NULL;
}

static uint64_t read_word(const void *dev)
{
    uint64_t v = 0;
    ACL_OK(aclrtMemcpy(&v, sizeof v, dev, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

static void write_word(void *dev, uint64_t v)
{
    ACL_OK(aclrtMemcpy(dev, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
}

COMPAT_TEST(tasks_by_stream,
            "aclmdlRIGetTasksByStream counts a stream's tasks with tasks NULL, then fills the "
            "array; each task has a type (an aclrtValueWrite is VALUE_WRITE, an "
            "aclrtRecordEvent EVENT_RECORD), a sequence id and parameters",
            "API ref aclmdlRIGetStreams, aclmdlRIGetTasksByStream, aclmdlRITaskGetType, "
            "aclmdlRITaskGetSeqId, aclmdlRITaskGetParams; aclmdlRITaskParams")
{
    aclrtStream s = compat_new_stream();
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEvent(&e));
    uint64_t *word = device_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWrite(word, 0x1234, 0, s));
    ACL_OK(aclrtRecordEvent(e, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    aclrtStream streams[4];
    uint32_t nstreams = 4;
    ACL_OK(aclmdlRIGetStreams(model, streams, &nstreams));
    ck_assert_uint_ge(nstreams, 1);
    uint32_t n;
    aclmdlRITask *tasks = tasks_of(streams[0], &n);
    ck_assert_uint_ge(n, 2);
    if (n > 1) {
        uint32_t small = 1;
        ACL_FAILS(aclmdlRIGetTasksByStream(streams[0], tasks, &small));
    }
    aclmdlRITask write = task_of_type(tasks, n, ACL_MODEL_RI_TASK_VALUE_WRITE);
    aclmdlRITask record = task_of_type(tasks, n, ACL_MODEL_RI_TASK_EVENT_RECORD);
    ck_assert_ptr_nonnull(write);
    ck_assert_ptr_nonnull(record);
    uint32_t id_write = 0, id_record = 0;
    ACL_OK(aclmdlRITaskGetSeqId(write, &id_write));
    ACL_OK(aclmdlRITaskGetSeqId(record, &id_record));
    ck_assert_uint_ne(id_write, id_record);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(write, &p));
    ck_assert_int_eq(p.type, ACL_MODEL_RI_TASK_VALUE_WRITE);
    ck_assert_ptr_eq(p.valueWriteTaskParams.devAddr, word);
    ck_assert_uint_eq(p.valueWriteTaskParams.value, 0x1234);
    ACL_OK(aclmdlRITaskGetParams(record, &p));
    ck_assert_int_eq(p.type, ACL_MODEL_RI_TASK_EVENT_RECORD);
    ck_assert_ptr_eq(p.eventRecordTaskParams.event, e);
    free(tasks);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(word));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(task_set_params_then_update,
            "aclmdlRITaskSetParams gives a value-write task a new address and value; after "
            "aclmdlRIUpdate the model's runs write them",
            "API ref aclmdlRITaskSetParams, aclmdlRIUpdate; aclmdlRIValueWriteTaskParams")
{
    aclrtStream s = compat_new_stream();
    uint64_t *words = device_buffer(SIZE);
    ACL_OK(aclrtMemset(words, SIZE, 0, SIZE));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWrite(&words[0], 7, 0, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(read_word(&words[0]), 7);
    uint32_t n;
    aclmdlRITask *tasks = tasks_of(s, &n);
    aclmdlRITask write = task_of_type(tasks, n, ACL_MODEL_RI_TASK_VALUE_WRITE);
    ck_assert_ptr_nonnull(write);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(write, &p));
    p.taskGrp = NULL;
    p.valueWriteTaskParams.devAddr = &words[1];
    p.valueWriteTaskParams.value = 9;
    ACL_OK(aclmdlRITaskSetParams(write, &p));
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(read_word(&words[1]), 9);
    ACL_OK(aclmdlRITaskGetParams(write, &p));
    ck_assert_ptr_eq(p.valueWriteTaskParams.devAddr, &words[1]);
    free(tasks);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(words));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(task_disable_then_update,
            "a task disabled with aclmdlRITaskDisable no longer runs once aclmdlRIUpdate updated "
            "the model; the others still do",
            "API ref aclmdlRITaskDisable, aclmdlRIUpdate")
{
    aclrtStream s = compat_new_stream();
    uint64_t *words = device_buffer(SIZE);
    ACL_OK(aclrtMemset(words, SIZE, 0, SIZE));
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWrite(&words[0], 1, 0, s));
    ACL_OK(aclrtValueWrite(&words[1], 2, 0, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    uint32_t n;
    aclmdlRITask *tasks = tasks_of(s, &n);
    aclmdlRITask first = NULL;
    for (uint32_t i = 0; i < n && !first; i++) {
        aclmdlRITaskParams p;
        aclmdlRITaskType t;
        ACL_OK(aclmdlRITaskGetType(tasks[i], &t));
        if (t == ACL_MODEL_RI_TASK_VALUE_WRITE) {
            ACL_OK(aclmdlRITaskGetParams(tasks[i], &p));
            if (p.valueWriteTaskParams.devAddr == &words[0])
                first = tasks[i];
        }
    }
    ck_assert_ptr_nonnull(first);
    ACL_OK(aclmdlRITaskDisable(first));
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(read_word(&words[0]), 0);
    ck_assert_uint_eq(read_word(&words[1]), 2);
    free(tasks);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(words));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(cached_op_info,
            "with the stream's operator-information cache on (ACL_STREAM_ATTR_CACHE_OP_INFO), "
            "aclrtCacheLastTaskOpInfo attaches bytes to the thread's last captured task, which "
            "aclmdlRITaskGetParams gives back as opInfoPtr and opInfoSize",
            "API ref aclrtCacheLastTaskOpInfo (call flow), aclmdlRITaskGetParams; "
            "aclmdlRITaskParams.opInfoPtr")
{
    aclrtStream s = compat_new_stream();
    uint64_t *word = device_buffer(SIZE);
    static const char info[] = "shape [4, 2] float";
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclrtStreamAttrValue on = {.cacheOpInfoSwitch = 1};
    ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &on));
    ACL_OK(aclrtValueWrite(word, 5, 0, s));
    ACL_OK(aclrtCacheLastTaskOpInfo(info, sizeof info));
    aclrtStreamAttrValue off = {.cacheOpInfoSwitch = 0};
    ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &off));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    uint32_t n;
    aclmdlRITask *tasks = tasks_of(s, &n);
    aclmdlRITask write = task_of_type(tasks, n, ACL_MODEL_RI_TASK_VALUE_WRITE);
    ck_assert_ptr_nonnull(write);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(write, &p));
    ck_assert_uint_eq(p.opInfoSize, sizeof info);
    ck_assert_ptr_nonnull(p.opInfoPtr);
    ck_assert_int_eq(memcmp(p.opInfoPtr, info, sizeof info), 0);
    free(tasks);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(word));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(cached_extend_info,
            "aclrtCacheLastTaskExtendInfo attaches text to the thread's last captured task; "
            "aclmdlRIDebugJsonPrint writes it to its file",
            "API ref aclrtCacheLastTaskExtendInfo, aclmdlRIDebugJsonPrint")
{
    aclrtStream s = compat_new_stream();
    void *dev = device_buffer(SIZE);
    static const char extend[] = "[20250917,42]";
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtMemsetAsync(dev, SIZE, 3, SIZE, s));
    ACL_OK(aclrtCacheLastTaskExtendInfo(extend, strlen(extend)));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/acl-compat-extend-%d.json", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    ACL_OK(aclmdlRIDebugJsonPrint(model, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 16];
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    unlink(path);
    ck_assert_ptr_nonnull(strstr(text, extend));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(update_without_changes,
            "aclmdlRIUpdate of a captured model nothing changed in succeeds, and the model runs "
            "as before",
            "API ref aclmdlRIUpdate")
{
    aclrtStream s = compat_new_stream();
    uint64_t *word = device_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtValueWrite(word, 11, 0, s));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIUpdate(model));
    ACL_OK(aclmdlRIExecuteAsync(model, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_uint_eq(read_word(word), 11);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(word));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- conditional tasks ------------------------------------------------------------------ */

/* A capture on s with a conditional task of `type` whose branches each
 * fill `out` with 0x10 + their index, captured on `side`; the condition's
 * word in *cond. */
static aclmdlRI capture_branches(aclrtStream s, aclrtStream side, aclmdlRICondTaskType type,
                                 uint32_t size, uint32_t def, aclmdlRICondHandleFlag flag,
                                 void *out, uint64_t **cond, void *zero)
{
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    aclmdlRICaptureStatus status;
    aclmdlRI parent = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &parent));
    ck_assert_int_eq(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    aclmdlRICondHandle handle = NULL;
    ACL_OK(aclmdlRICondHandleCreate(parent, def, flag, &handle));
    ACL_OK(aclmdlRICondHandleGetCondPtr(handle, cond));
    ck_assert_ptr_nonnull(*cond);
    aclmdlRI branches[3] = {NULL, NULL, NULL};
    aclmdlRICondTaskParams params = {
        .handle = handle, .type = type, .size = size, .modelRIArray = branches};
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    for (uint32_t i = 0; i < size; i++) {
        ck_assert_ptr_nonnull(branches[i]);
        ACL_OK(aclmdlRICaptureToModelRIBegin(side, branches[i],
                                             ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
        ACL_OK(aclrtMemsetAsync(out, SIZE, 0x10 + i, SIZE, side));
        if (type == ACL_MODEL_RI_COND_TYPE_WHILE) /* one iteration: the body clears the word */
            ACL_OK(aclrtMemcpyAsync(*cond, sizeof(uint64_t), zero, sizeof(uint64_t),
                                    ACL_MEMCPY_DEVICE_TO_DEVICE, side));
        aclmdlRI ended = NULL;
        ACL_OK(aclmdlRICaptureEnd(side, &ended));
        ck_assert_ptr_eq(ended, branches[i]);
    }
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ck_assert_ptr_eq(model, parent);
    return model;
}

/* Runs model with the word set to v (unless v is -1) and reports what
 * the branches left in out (0 when none ran). */
static uint8_t run_with(aclmdlRI model, aclrtStream exec, uint64_t *cond, int64_t v, void *out,
                        uint8_t *host)
{
    ACL_OK(aclrtMemset(out, SIZE, 0, SIZE));
    if (v >= 0)
        write_word(cond, (uint64_t)v);
    ACL_OK(aclmdlRIExecuteAsync(model, exec));
    ACL_OK(aclrtSynchronizeStream(exec));
    ACL_OK(aclrtMemcpy(host, SIZE, out, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(host, SIZE, host[0]);
    return host[0];
}

COMPAT_TEST(cond_if_else,
            "an IF conditional task with two branches runs the first when the condition word "
            "is not 0 and the second when it is; the word is device memory the application "
            "writes (flag 0: it keeps what was written)",
            "API ref aclmdlRICondHandleCreate, aclmdlRICondHandleGetCondPtr, aclmdlRIAddCondTask, "
            "aclmdlRICaptureToModelRIBegin; sample model_ri/3_cond_model")
{
    aclrtStream s = compat_new_stream(), side = compat_new_stream(), exec = compat_new_stream();
    void *out = device_buffer(SIZE);
    uint8_t *host = pinned_buffer(SIZE);
    uint64_t *cond = NULL;
    aclmdlRI model =
        capture_branches(s, side, ACL_MODEL_RI_COND_TYPE_IF, 2, 0, 0, out, &cond, NULL);
    ck_assert_uint_eq(run_with(model, exec, cond, 1, out, host), 0x10);
    ck_assert_uint_eq(run_with(model, exec, cond, 0, out, host), 0x11);
    ck_assert_uint_eq(run_with(model, exec, cond, 5, out, host), 0x10);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(cond_assign_default,
            "with ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT the condition starts every run from "
            "defaultLaunchValue, whatever was written before",
            "API ref aclmdlRICondHandleCreate (flag)")
{
    aclrtStream s = compat_new_stream(), side = compat_new_stream(), exec = compat_new_stream();
    void *out = device_buffer(SIZE);
    uint8_t *host = pinned_buffer(SIZE);
    uint64_t *cond = NULL;
    aclmdlRI model = capture_branches(s, side, ACL_MODEL_RI_COND_TYPE_IF, 1, 1,
                                      ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, out, &cond, NULL);
    ck_assert_uint_eq(run_with(model, exec, cond, 0, out, host), 0x10);
    ck_assert_uint_eq(run_with(model, exec, cond, 0, out, host), 0x10);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(cond_while,
            "a WHILE conditional task runs its branch as long as the word is not 0, reading it "
            "again after each run: a branch that clears it runs once; a word of 0 runs it never",
            "API ref aclmdlRIAddCondTask; sample model_ri/3_cond_model (WHILE)")
{
    aclrtStream s = compat_new_stream(), side = compat_new_stream(), exec = compat_new_stream();
    void *out = device_buffer(SIZE);
    uint64_t *zero = device_buffer(SIZE);
    ACL_OK(aclrtMemset(zero, SIZE, 0, SIZE));
    uint8_t *host = pinned_buffer(SIZE);
    uint64_t *cond = NULL;
    aclmdlRI model =
        capture_branches(s, side, ACL_MODEL_RI_COND_TYPE_WHILE, 1, 0, 0, out, &cond, zero);
    ck_assert_uint_eq(run_with(model, exec, cond, 1, out, host), 0x10);
    ck_assert_uint_eq(read_word(cond), 0);
    ck_assert_uint_eq(run_with(model, exec, cond, 0, out, host), 0);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFree(zero));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(cond_switch,
            "a SWITCH conditional task runs the branch the word numbers, none past the last",
            "API ref aclmdlRIAddCondTask; aclmdlRICondTaskParams (size); sample "
            "model_ri/3_cond_model (SWITCH)")
{
    aclrtStream s = compat_new_stream(), side = compat_new_stream(), exec = compat_new_stream();
    void *out = device_buffer(SIZE);
    uint8_t *host = pinned_buffer(SIZE);
    uint64_t *cond = NULL;
    aclmdlRI model =
        capture_branches(s, side, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, 0, 0, out, &cond, NULL);
    for (int v = 0; v < 3; v++)
        ck_assert_uint_eq(run_with(model, exec, cond, v, out, host), 0x10 + v);
    ck_assert_uint_eq(run_with(model, exec, cond, 7, out, host), 0);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtDestroyStream(exec));
}

/* Adds a conditional task of `type` on s (being captured) steered by
 * handle, whose branches, captured on side, each fill `out` with base + their
 * index; a WHILE branch also clears the word at `cond` (one iteration). */
static void add_filling_task(aclrtStream s, aclrtStream side, aclmdlRICondHandle handle,
                             aclmdlRICondTaskType type, uint32_t size, void *out, uint8_t base,
                             uint64_t *cond, void *zero)
{
    aclmdlRI branches[3] = {NULL, NULL, NULL};
    aclmdlRICondTaskParams params = {
        .handle = handle, .type = type, .size = size, .modelRIArray = branches};
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    for (uint32_t i = 0; i < size; i++) {
        ACL_OK(aclmdlRICaptureToModelRIBegin(side, branches[i],
                                             ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
        ACL_OK(aclrtMemsetAsync(out, SIZE, base + i, SIZE, side));
        if (type == ACL_MODEL_RI_COND_TYPE_WHILE)
            ACL_OK(aclrtMemcpyAsync(cond, sizeof(uint64_t), zero, sizeof(uint64_t),
                                    ACL_MEMCPY_DEVICE_TO_DEVICE, side));
        aclmdlRI ended = NULL;
        ACL_OK(aclmdlRICaptureEnd(side, &ended));
    }
}

/* What each of outs[0..n) holds (each filled with one byte, or 0). */
static void read_outs(void *const *outs, uint8_t *got, int n, uint8_t *host)
{
    for (int i = 0; i < n; i++) {
        ACL_OK(aclrtMemcpy(host, SIZE, outs[i], SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
        compat_assert_filled(host, SIZE, host[0]);
        got[i] = host[0];
    }
}

COMPAT_TEST(cond_tasks_of_every_type_in_one_model,
            "one model holds an IF, a WHILE and a SWITCH task, each steered by a condition of "
            "its own, as CANN's conditional sample builds them",
            "API ref aclmdlRIAddCondTask; sample model_ri/3_cond_model")
{
    aclrtStream s = compat_new_stream(), side = compat_new_stream(), exec = compat_new_stream();
    void *outs[3] = {device_buffer(SIZE), device_buffer(SIZE), device_buffer(SIZE)};
    uint64_t *zero = device_buffer(SIZE);
    ACL_OK(aclrtMemset(zero, SIZE, 0, SIZE));
    uint8_t *host = pinned_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    aclmdlRICaptureStatus status;
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    static const aclmdlRICondTaskType types[3] = {
        ACL_MODEL_RI_COND_TYPE_IF, ACL_MODEL_RI_COND_TYPE_WHILE, ACL_MODEL_RI_COND_TYPE_SWITCH};
    static const uint32_t sizes[3] = {2, 1, 3};
    uint64_t *conds[3];
    for (int k = 0; k < 3; k++) {
        aclmdlRICondHandle handle = NULL;
        ACL_OK(aclmdlRICondHandleCreate(model, 0, 0, &handle));
        ACL_OK(aclmdlRICondHandleGetCondPtr(handle, &conds[k]));
        add_filling_task(s, side, handle, types[k], sizes[k], outs[k], (uint8_t)(0x10 * (k + 1)),
                         conds[k], zero);
    }
    aclmdlRI ended = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &ended));
    ck_assert_ptr_eq(ended, model);
    for (uint64_t v = 0; v < 3; v++) {
        for (int k = 0; k < 3; k++) {
            ACL_OK(aclrtMemset(outs[k], SIZE, 0, SIZE));
            write_word(conds[k], v);
        }
        ACL_OK(aclmdlRIExecuteAsync(model, exec));
        ACL_OK(aclrtSynchronizeStream(exec));
        uint8_t got[3];
        read_outs(outs, got, 3, host);
        ck_assert_uint_eq(got[0], v ? 0x10 : 0x11);
        ck_assert_uint_eq(got[1], v ? 0x20 : 0);
        ck_assert_uint_eq(got[2], 0x30 + v);
    }
    ACL_OK(aclmdlRIDestroy(model));
    for (int k = 0; k < 3; k++)
        ACL_OK(aclrtFree(outs[k]));
    ACL_OK(aclrtFree(zero));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(cond_handle_steers_several_tasks,
            "one condition may steer several conditional tasks of a model: an IF and a SWITCH "
            "task on the same handle both read its word",
            "API ref aclmdlRICondHandleCreate, aclmdlRIAddCondTask")
{
    aclrtStream s = compat_new_stream(), side = compat_new_stream(), exec = compat_new_stream();
    void *outs[2] = {device_buffer(SIZE), device_buffer(SIZE)};
    uint8_t *host = pinned_buffer(SIZE);
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    aclmdlRICaptureStatus status;
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
    aclmdlRICondHandle handle = NULL;
    ACL_OK(aclmdlRICondHandleCreate(model, 0, 0, &handle));
    uint64_t *cond = NULL;
    ACL_OK(aclmdlRICondHandleGetCondPtr(handle, &cond));
    add_filling_task(s, side, handle, ACL_MODEL_RI_COND_TYPE_IF, 1, outs[0], 0x21, cond, NULL);
    add_filling_task(s, side, handle, ACL_MODEL_RI_COND_TYPE_SWITCH, 2, outs[1], 0x30, cond, NULL);
    aclmdlRI ended = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &ended));
    for (uint64_t v = 0; v < 2; v++) {
        ACL_OK(aclrtMemset(outs[0], SIZE, 0, SIZE));
        ACL_OK(aclrtMemset(outs[1], SIZE, 0, SIZE));
        write_word(cond, v);
        ACL_OK(aclmdlRIExecuteAsync(model, exec));
        ACL_OK(aclrtSynchronizeStream(exec));
        uint8_t got[2];
        read_outs(outs, got, 2, host);
        ck_assert_uint_eq(got[0], v ? 0x21 : 0);
        ck_assert_uint_eq(got[1], 0x30 + v);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(outs[0]));
    ACL_OK(aclrtFree(outs[1]));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(side));
    ACL_OK(aclrtDestroyStream(exec));
}

COMPAT_TEST(cond_task_needs_a_capture,
            "aclmdlRIAddCondTask on a stream that is not being captured fails; a branch model "
            "cannot be destroyed on its own (it goes with its model)",
            "API ref aclmdlRIAddCondTask (the stream must be capturing), "
            "aclmdlRICaptureToModelRIBegin (no aclmdlRIDestroy)")
{
    aclrtStream s = compat_new_stream(), other = compat_new_stream();
    ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status;
    aclmdlRI parent = NULL;
    ACL_OK(aclmdlRICaptureGetInfo(s, &status, &parent));
    aclmdlRICondHandle handle = NULL;
    ACL_OK(aclmdlRICondHandleCreate(parent, 0, 0, &handle));
    aclmdlRI branch = NULL;
    aclmdlRICondTaskParams params = {
        .handle = handle, .type = ACL_MODEL_RI_COND_TYPE_IF, .size = 1, .modelRIArray = &branch};
    ACL_FAILS(aclmdlRIAddCondTask(params, other, 0));
    params.size = 3; /* an IF task has one or two branches */
    ACL_FAILS(aclmdlRIAddCondTask(params, s, 0));
    params.size = 1;
    ACL_OK(aclmdlRIAddCondTask(params, s, 0));
    ACL_FAILS(aclmdlRIDestroy(branch));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(s, &model));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(other));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclmdlRICaptureBegin)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclmdlRICaptureBegin(h, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
}

ROW(aclmdlRICaptureGetInfo)
{
    aclmdlRICaptureStatus status;
    aclmdlRI model;
    aclrtStream s = compat_new_stream();
    REJECTS(aclmdlRICaptureGetInfo(s, NULL, &model), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyStream(s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclmdlRICaptureGetInfo(h, &status, &model));
}

ROW(aclmdlRICaptureEnd)
{
    aclmdlRI model;
    aclrtStream s = compat_new_stream();
    REJECTS(aclmdlRICaptureEnd(s, NULL), ACL_ERROR_INVALID_PARAM, "a NULL modelRI");
    ACL_OK(aclrtDestroyStream(s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(h, &model));
}

ROW(aclmdlRICaptureThreadExchangeMode)
{
    REJECTS(aclmdlRICaptureThreadExchangeMode(NULL), ACL_ERROR_INVALID_PARAM, "a NULL mode");
}

ROW(aclmdlRICaptureTaskGrpBegin)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpBegin(h));
}

ROW(aclmdlRICaptureTaskGrpEnd)
{
    aclrtTaskGrp group;
    aclrtStream s = compat_new_stream();
    REJECTS(aclmdlRICaptureTaskGrpEnd(s, NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    ACL_OK(aclrtDestroyStream(s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(h, &group));
}

ROW(aclmdlRICaptureTaskUpdateBegin)
{
    aclrtStream s = compat_new_stream();
    /* No value of another kind is a task group. */
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(s, h));
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclmdlRICaptureTaskUpdateEnd)
{
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclmdlRICaptureTaskUpdateEnd(h));
}

ROW(aclmdlRIBuildBegin)
{
    REJECTS(aclmdlRIBuildBegin(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL modelRI");
}

/* Functions of a model and a stream: bad models, then bad streams (NULL is
 * refused: the default stream cannot be bound). */
#define MODEL_STREAM_ROW(name, call)                                                               \
    ROW(name)                                                                                      \
    {                                                                                              \
        aclrtStream bound = NULL;                                                                  \
        ACL_OK(aclrtCreateStreamWithConfig(&bound, 0, ACL_STREAM_PERSISTENT));                     \
        aclmdlRI built = NULL;                                                                     \
        ACL_OK(aclmdlRIBuildBegin(&built, 0));                                                     \
        {                                                                                          \
            aclrtStream stream = bound;                                                            \
            FOR_EACH_BAD(KIND_MODEL, model, ACL_ERROR_INVALID_PARAM, call);                        \
            (void)stream;                                                                          \
        }                                                                                          \
        {                                                                                          \
            aclmdlRI model = built;                                                                \
            aclrtStream stream = NULL;                                                             \
            REJECTS(call, ACL_ERROR_INVALID_PARAM, "the NULL stream");                             \
        }                                                                                          \
        ACL_OK(aclmdlRIDestroy(built));                                                            \
        ACL_OK(aclrtDestroyStream(bound));                                                         \
    }

MODEL_STREAM_ROW(aclmdlRIBindStream, aclmdlRIBindStream(model, stream, ACL_MODEL_STREAM_FLAG_HEAD))
MODEL_STREAM_ROW(aclmdlRIEndTask, aclmdlRIEndTask(model, stream))
MODEL_STREAM_ROW(aclmdlRIUnbindStream, aclmdlRIUnbindStream(model, stream))

ROW(aclmdlRIExecuteAsync)
{
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(h, NULL));
}

/* Functions of a model alone: bad models, then a NULL argument. */
#define MODEL_ROW(name, call_bad, call_null)                                                       \
    ROW(name)                                                                                      \
    {                                                                                              \
        char text_[32];                                                                            \
        uint32_t u32_ = 0;                                                                         \
        (void)text_;                                                                               \
        (void)u32_;                                                                                \
        FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, call_bad);                            \
        aclmdlRI h = NULL;                                                                         \
        ACL_OK(aclmdlRIBuildBegin(&h, 0));                                                         \
        REJECTS(call_null, ACL_ERROR_INVALID_PARAM, "a NULL argument");                            \
        ACL_OK(aclmdlRIDestroy(h));                                                                \
    }

static void on_destroy(void *arg)
{
    (void)arg;
}

MODEL_ROW(aclmdlRIBuildEnd, aclmdlRIBuildEnd(h, NULL), aclmdlRIBuildEnd(h, NULL))
MODEL_ROW(aclmdlRIExecute, aclmdlRIExecute(h, -1), aclmdlRIExecute(h, -1))
MODEL_ROW(aclmdlRIDestroyRegisterCallback, aclmdlRIDestroyRegisterCallback(h, on_destroy, NULL),
          aclmdlRIDestroyRegisterCallback(h, NULL, NULL))
MODEL_ROW(aclmdlRIDestroyUnregisterCallback, aclmdlRIDestroyUnregisterCallback(h, on_destroy),
          aclmdlRIDestroyUnregisterCallback(h, NULL))
MODEL_ROW(aclmdlRISetName, aclmdlRISetName(h, "x"), aclmdlRISetName(h, NULL))
MODEL_ROW(aclmdlRIGetName, aclmdlRIGetName(h, sizeof text_, text_),
          aclmdlRIGetName(h, sizeof text_, NULL))
MODEL_ROW(aclmdlRIGetId, aclmdlRIGetId(h, &u32_), aclmdlRIGetId(h, NULL))
MODEL_ROW(aclmdlRIDebugJsonPrint, aclmdlRIDebugJsonPrint(h, "/tmp/x.json", 0),
          aclmdlRIDebugJsonPrint(h, NULL, 0))
MODEL_ROW(aclmdlRIGetStreams, aclmdlRIGetStreams(h, NULL, &u32_), aclmdlRIGetStreams(h, NULL, NULL))

ROW(aclmdlRIDestroy)
{
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(h));
}

ROW(aclmdlRIDebugPrint)
{
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, aclmdlRIDebugPrint(h));
}

ROW(aclmdlRICaptureToModelRIBegin)
{
    aclrtStream s = compat_new_stream();
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM,
                 aclmdlRICaptureToModelRIBegin(s, h, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtDestroyStream(s));
    aclmdlRI built = NULL;
    ACL_OK(aclmdlRIBuildBegin(&built, 0));
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclmdlRICaptureToModelRIBegin(h, built, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclmdlRIDestroy(built));
}

ROW(aclmdlRIAbort)
{
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, aclmdlRIAbort(h));
}

ROW(aclmdlRIUpdate)
{
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM, aclmdlRIUpdate(h));
}

ROW(aclmdlRIGetTasksByStream)
{
    uint32_t n = 0;
    aclmdlRITask tasks[4];
    REJECTS(aclmdlRIGetTasksByStream(NULL, tasks, &n), ACL_ERROR_INVALID_PARAM, "the NULL stream");
    aclrtStream s = compat_new_stream();
    REJECTS(aclmdlRIGetTasksByStream(s, tasks, NULL), ACL_ERROR_INVALID_PARAM, "a NULL numTasks");
    ACL_OK(aclrtDestroyStream(s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclmdlRIGetTasksByStream(h, tasks, &n));
}

/* The functions of one task: bad tasks; NULL outputs. */
ROW(aclmdlRITaskGetType)
{
    aclmdlRITaskType type;
    FOR_EACH_BAD(KIND_TASK, h, ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetType(h, &type));
}

ROW(aclmdlRITaskGetSeqId)
{
    uint32_t id;
    FOR_EACH_BAD(KIND_TASK, h, ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetSeqId(h, &id));
}

ROW(aclmdlRITaskGetParams)
{
    aclmdlRITaskParams p;
    FOR_EACH_BAD(KIND_TASK, h, ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetParams(h, &p));
}

ROW(aclmdlRITaskSetParams)
{
    aclmdlRITaskParams p;
    memset(&p, 0, sizeof p);
    FOR_EACH_BAD(KIND_TASK, h, ACL_ERROR_INVALID_PARAM, aclmdlRITaskSetParams(h, &p));
}

ROW(aclmdlRIKernelTaskGetAttribute)
{
    aclrtLaunchKernelAttrValue v;
    FOR_EACH_BAD(KIND_TASK, h, ACL_ERROR_INVALID_PARAM,
                 aclmdlRIKernelTaskGetAttribute(h, ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &v));
}

ROW(aclmdlRITaskDisable)
{
    FOR_EACH_BAD(KIND_TASK, h, ACL_ERROR_INVALID_PARAM, aclmdlRITaskDisable(h));
}

ROW(aclmdlRICondHandleCreate)
{
    aclmdlRICondHandle handle;
    FOR_EACH_BAD(KIND_MODEL, h, ACL_ERROR_INVALID_PARAM,
                 aclmdlRICondHandleCreate(h, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &handle));
    /* A model that is not being captured, and a NULL handle. */
    aclmdlRI built = NULL;
    ACL_OK(aclmdlRIBuildBegin(&built, 0));
    REJECTS(aclmdlRICondHandleCreate(built, 0, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(aclmdlRICondHandleCreate(built, 0, 0, &handle), ANY_ERROR,
            "a model that is not being captured");
    ACL_OK(aclmdlRIDestroy(built));
}

ROW(aclmdlRICondHandleGetCondPtr)
{
    uint64_t *ptr;
    FOR_EACH_BAD(KIND_COND, h, ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(h, &ptr));
}

ROW(aclmdlRIAddCondTask)
{
    aclmdlRI branch[2];
    aclrtStream s = compat_new_stream();
    {
        aclmdlRICondTaskParams p = {
            .handle = NULL, .type = ACL_MODEL_RI_COND_TYPE_IF, .size = 1, .modelRIArray = branch};
        FOR_EACH_BAD(KIND_COND, h, ANY_ERROR, (p.handle = h, aclmdlRIAddCondTask(p, s, 0)));
        p.modelRIArray = NULL;
        REJECTS(aclmdlRIAddCondTask(p, s, 0), ANY_ERROR, "a NULL modelRIArray");
    }
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclrtCreateLabel)
{
    REJECTS(aclrtCreateLabel(NULL), ACL_ERROR_INVALID_PARAM, "a NULL label");
}

ROW(aclrtDestroyLabel)
{
    FOR_EACH_BAD(KIND_LABEL, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyLabel(h));
}

ROW(aclrtSetLabel)
{
    aclrtStream s = compat_new_stream();
    FOR_EACH_BAD(KIND_LABEL, h, ACL_ERROR_INVALID_PARAM, aclrtSetLabel(h, s));
    aclrtLabel l = NULL;
    ACL_OK(aclrtCreateLabel(&l));
    REJECTS(aclrtSetLabel(l, NULL), ACL_ERROR_INVALID_PARAM, "the NULL stream");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSetLabel(l, h));
    ACL_OK(aclrtDestroyLabel(l));
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclrtCreateLabelList)
{
    aclrtLabelList list = NULL;
    aclrtLabel l = NULL;
    ACL_OK(aclrtCreateLabel(&l));
    REJECTS(aclrtCreateLabelList(NULL, 1, &list), ACL_ERROR_INVALID_PARAM, "NULL labels");
    REJECTS(aclrtCreateLabelList(&l, 1, NULL), ACL_ERROR_INVALID_PARAM, "a NULL labelList");
    REJECTS(aclrtCreateLabelList(&l, 0, &list), ACL_ERROR_INVALID_PARAM, "num 0");
    FOR_EACH_BAD(KIND_LABEL, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCreateLabelList((aclrtLabel[]){l, h}, 2, &list));
    ACL_OK(aclrtDestroyLabel(l));
}

ROW(aclrtDestroyLabelList)
{
    FOR_EACH_BAD(KIND_LABEL_LIST, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyLabelList(h));
}

ROW(aclrtSwitchLabelByIndex)
{
    aclrtStream s = compat_new_stream();
    void *index = device_buffer(64);
    aclrtLabel l = NULL;
    aclrtLabelList list = NULL;
    ACL_OK(aclrtCreateLabel(&l));
    ACL_OK(aclrtCreateLabelList(&l, 1, &list));
    REJECTS(aclrtSwitchLabelByIndex(NULL, 1, list, s), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtSwitchLabelByIndex(index, 1, list, NULL), ACL_ERROR_INVALID_PARAM,
            "the NULL stream");
    FOR_EACH_BAD(KIND_LABEL_LIST, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSwitchLabelByIndex(index, 1, h, s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSwitchLabelByIndex(index, 1, list, h));
    ACL_OK(aclrtDestroyLabelList(list));
    ACL_OK(aclrtDestroyLabel(l));
    ACL_OK(aclrtFree(index));
    ACL_OK(aclrtDestroyStream(s));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclmdlRIAbort),
    COMPAT_ROW(aclmdlRIAddCondTask),
    COMPAT_ROW(aclmdlRIBindStream),
    COMPAT_ROW(aclmdlRIBuildBegin),
    COMPAT_ROW(aclmdlRIBuildEnd),
    COMPAT_ROW(aclmdlRICaptureBegin),
    COMPAT_ROW(aclmdlRICaptureEnd),
    COMPAT_ROW(aclmdlRICaptureGetInfo),
    COMPAT_ROW(aclmdlRICaptureTaskGrpBegin),
    COMPAT_ROW(aclmdlRICaptureTaskGrpEnd),
    COMPAT_ROW(aclmdlRICaptureTaskUpdateBegin),
    COMPAT_ROW(aclmdlRICaptureTaskUpdateEnd),
    COMPAT_ROW(aclmdlRICaptureThreadExchangeMode),
    COMPAT_ROW(aclmdlRICaptureToModelRIBegin),
    COMPAT_ROW(aclmdlRICondHandleCreate),
    COMPAT_ROW(aclmdlRICondHandleGetCondPtr),
    COMPAT_ROW(aclmdlRIDebugJsonPrint),
    COMPAT_ROW(aclmdlRIDebugPrint),
    COMPAT_ROW(aclmdlRIDestroy),
    COMPAT_ROW(aclmdlRIDestroyRegisterCallback),
    COMPAT_ROW(aclmdlRIDestroyUnregisterCallback),
    COMPAT_ROW(aclmdlRIEndTask),
    COMPAT_ROW(aclmdlRIExecute),
    COMPAT_ROW(aclmdlRIExecuteAsync),
    COMPAT_ROW(aclmdlRIGetId),
    COMPAT_ROW(aclmdlRIGetName),
    COMPAT_ROW(aclmdlRIGetStreams),
    COMPAT_ROW(aclmdlRIGetTasksByStream),
    COMPAT_ROW(aclmdlRIKernelTaskGetAttribute),
    COMPAT_ROW(aclmdlRISetName),
    COMPAT_ROW(aclmdlRITaskDisable),
    COMPAT_ROW(aclmdlRITaskGetParams),
    COMPAT_ROW(aclmdlRITaskGetSeqId),
    COMPAT_ROW(aclmdlRITaskGetType),
    COMPAT_ROW(aclmdlRITaskSetParams),
    COMPAT_ROW(aclmdlRIUnbindStream),
    COMPAT_ROW(aclmdlRIUpdate),
    COMPAT_ROW(aclrtCreateLabel),
    COMPAT_ROW(aclrtCreateLabelList),
    COMPAT_ROW(aclrtDestroyLabel),
    COMPAT_ROW(aclrtDestroyLabelList),
    COMPAT_ROW(aclrtSetLabel),
    COMPAT_ROW(aclrtSwitchLabelByIndex),
};
COMPAT_BAD_ARGS(graph, rows);

Suite *compat_suite_graph(void);
Suite *compat_suite_graph(void)
{
    Suite *s = suite_create("graph");
    TCase *capture = tcase_create("capture");
    tcase_add_checked_fixture(capture, set_up, tear_down);
    tcase_add_test(capture, captured_work_runs_when_the_model_does);
    tcase_add_test(capture, capture_status);
    tcase_add_test(capture, capture_end_with_a_task_group_open);
    tcase_add_test(capture, cross_stream_capture);
    tcase_add_test(capture, exchange_mode_swaps);
    tcase_add_test(capture, unsafe_copy_in_global_mode);
    suite_add_tcase(s, capture);

    TCase *external = tcase_create("external");
    tcase_add_checked_fixture(external, set_up, tear_down);
    tcase_add_test(external, external_wait_orders_a_model_after_a_stream);
    tcase_add_test(external, external_record_orders_a_stream_after_a_model);
    tcase_add_test(external, external_record_and_wait_between_models);
    tcase_add_test(external, external_events_outlive_their_handle_in_a_model);
    tcase_add_test(external, external_needs_an_ex_sync_event);
    suite_add_tcase(s, external);

    TCase *models = tcase_create("models");
    tcase_add_checked_fixture(models, set_up, tear_down);
    tcase_add_test(models, built_model);
    tcase_add_test(models, streams_switched_to_and_started);
    tcase_add_test(models, label_switch_by_index);
    tcase_add_test(models, unbind_while_building);
    tcase_add_test(models, names_and_ids);
    tcase_add_test(models, debug_prints);
    suite_add_tcase(s, models);

    TCase *tasks = tcase_create("tasks");
    tcase_add_checked_fixture(tasks, set_up, tear_down);
    tcase_add_test(tasks, tasks_by_stream);
    tcase_add_test(tasks, task_set_params_then_update);
    tcase_add_test(tasks, task_disable_then_update);
    tcase_add_test(tasks, cached_op_info);
    tcase_add_test(tasks, cached_extend_info);
    tcase_add_test(tasks, update_without_changes);
    suite_add_tcase(s, tasks);

    TCase *conds = tcase_create("conditional tasks");
    tcase_add_checked_fixture(conds, set_up, tear_down);
    tcase_add_test(conds, cond_if_else);
    tcase_add_test(conds, cond_assign_default);
    tcase_add_test(conds, cond_while);
    tcase_add_test(conds, cond_switch);
    tcase_add_test(conds, cond_tasks_of_every_type_in_one_model);
    tcase_add_test(conds, cond_handle_steers_several_tasks);
    tcase_add_test(conds, cond_task_needs_a_capture);
    suite_add_tcase(s, conds);

    compat_add_bad_args(s, &compat_rows_graph);
    return s;
}

COMPAT_MAIN(graph)
