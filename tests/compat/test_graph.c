/* Model run instances (acl_rt.h aclmdlRI*, developer guide "single-stream
 * capture" and "cross-stream capture"): work queued on a capturing stream is
 * kept in a model and runs when the model executes, as often as it
 * executes; streams join a capture through events and must be joined back;
 * capture modes govern the unsafe functions; models built from persistent
 * streams; names; and the bad-argument rows of every aclmdlRI function.
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

static const compat_row rows[] = {
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
    COMPAT_ROW(aclmdlRISetName),
    COMPAT_ROW(aclmdlRIUnbindStream),
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
    tcase_add_test(capture, cross_stream_capture);
    tcase_add_test(capture, exchange_mode_swaps);
    tcase_add_test(capture, unsafe_copy_in_global_mode);
    suite_add_tcase(s, capture);

    TCase *models = tcase_create("models");
    tcase_add_checked_fixture(models, set_up, tear_down);
    tcase_add_test(models, built_model);
    tcase_add_test(models, names_and_ids);
    tcase_add_test(models, debug_prints);
    suite_add_tcase(s, models);

    compat_add_bad_args(s, &compat_rows_graph);
    return s;
}

COMPAT_MAIN(graph)
