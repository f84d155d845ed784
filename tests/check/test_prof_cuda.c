/* The profile on the cuda backend with CUPTI (docs/profiling.md, "Device
 * activity"): a kernel launch, a copy, a fill and an event record on one
 * stream, a wait for that event and a model replay on another. Each task is
 * on its ACL stream's track, in submission order, timed by the device
 * (args.timing "device", nonzero durations for the kernel, the copy, the
 * fill and the replay), and carries the id of the ACL call that queued it
 * (args.call, the call's own args.call); the kernel carries its name, and
 * the runtime calls made inside the launch are cuda_api events of the same
 * call. Skips on the host backend and where CUPTI cannot be opened. */
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "kerneltest.h"
#include "proftest.h"

enum { N = 1 << 20 };

static bool cupti_present(void)
{
    static const char *const names[] = {"libcupti.so.13", "libcupti.so",
                                        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                                        "/usr/local/cuda/lib64/libcupti.so.13"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            dlclose(h);
            return true;
        }
    }
    return false;
}

static const char *str(json_t *e, const char *key)
{
    const char *v = json_string_value(json_object_get(e, key));
    return v ? v : "";
}

static long long arg(json_t *e, const char *key)
{
    return (long long)json_integer_value(json_object_get(json_object_get(e, "args"), key));
}

/* The id of the only call of an ACL function in the trace. */
static long long call_of(json_t *events, const char *function)
{
    long long id = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (strcmp(str(e, "cat"), "acl_api") || strcmp(str(e, "name"), function))
            continue;
        ck_assert_msg(id == 0, "%s called twice while profiling", function);
        id = arg(e, "call");
    }
    ck_assert_msg(id > 0, "no call of %s with an id", function);
    return id;
}

/* The one task of this name on the stream's track. */
static json_t *task_of(json_t *events, const char *name, int32_t stream)
{
    json_t *found = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (strcmp(str(e, "cat"), "task") || strcmp(str(e, "name"), name) ||
            json_integer_value(json_object_get(e, "tid")) != stream)
            continue;
        ck_assert_msg(found == NULL, "two %s tasks on stream %d", name, (int)stream);
        found = e;
    }
    ck_assert_msg(found != NULL, "no %s task on stream %d's track", name, (int)stream);
    return found;
}

typedef struct expected {
    const char *task, *call;
    bool lasts; /* a nonzero duration is asserted */
} expected;

/* Tasks of one stream: each of its call, device-timed, in order. */
static void check_stream(json_t *events, int32_t stream, const expected *tasks, size_t n)
{
    double last_ts = -1;
    long long last_seq = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *t = task_of(events, tasks[i].task, stream);
        const char *timing = str(json_object_get(t, "args"), "timing");
        ck_assert_msg(!strcmp(timing, "device") ||
                          (!strcmp(tasks[i].task, "EventRecord") && !strcmp(timing, "inferred")),
                      "%s on stream %d timed by '%s', not by the device", tasks[i].task,
                      (int)stream, timing);
        ck_assert_msg(arg(t, "call") == call_of(events, tasks[i].call),
                      "%s is not correlated to its %s", tasks[i].task, tasks[i].call);
        double ts = json_number_value(json_object_get(t, "ts"));
        double dur = json_number_value(json_object_get(t, "dur"));
        ck_assert_msg(dur >= 0, "%s lasts %.3f us", tasks[i].task, dur);
        if (tasks[i].lasts)
            ck_assert_msg(dur > 0, "%s on stream %d lasts 0 us", tasks[i].task, (int)stream);
        ck_assert_msg(ts >= last_ts, "%s on stream %d starts before the task queued before it",
                      tasks[i].task, (int)stream);
        ck_assert_int_gt(arg(t, "seq"), last_seq);
        last_ts = ts;
        last_seq = arg(t, "seq");
    }
}

START_TEST(device_activity_of_two_streams)
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    if (kt_on_host()) {
        ACL_OK(aclrtResetDevice(0));
        ACL_OK(aclFinalize());
        COMPAT_SKIP("host backend: its tasks are timed on their streams (test_prof checks that)");
    }
    if (!cupti_present()) {
        ACL_OK(aclrtResetDevice(0));
        ACL_OK(aclFinalize());
        COMPAT_SKIP("CUPTI not found (libcupti.so.13): tasks fall back to stream stamps");
    }
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test-prof-cuda-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    int32_t id_a = -1, id_b = -1;
    ACL_OK(aclrtStreamGetId(a, &id_a));
    ACL_OK(aclrtStreamGetId(b, &id_b));
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle add = kt_function(bin, "vector_add");
    aclrtFuncHandle increment = kt_function(bin, "increment");
    float *x = kt_device(N * sizeof(float)), *y = kt_device(N * sizeof(float)),
          *z = kt_device(N * sizeof(float));
    float *pinned = kt_pinned(N * sizeof(float));
    int32_t *counter = kt_device(sizeof(int32_t));
    ACL_OK(aclrtMemset(counter, sizeof(int32_t), 0, sizeof(int32_t)));

    /* A model of two kernels, captured before profiling. */
    aclrtStream m = acltest_new_stream();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureBegin(m, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < 2; i++)
        ACL_OK(aclrtLaunchKernelWithHostArgs(increment, 1, m, NULL, &counter, sizeof counter, NULL,
                                             0));
    ACL_OK(aclmdlRICaptureEnd(m, &model));

    ACL_OK(aclprofInit(dir, strlen(dir)));
    uint32_t devices[] = {0};
    aclprofConfig *config = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, NULL,
                                                ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
    ck_assert_ptr_nonnull(config);
    ACL_OK(aclprofStart(config));
    kt_vector_add_args args = {x, y, z, N};
    ACL_OK(
        aclrtLaunchKernelWithHostArgs(add, (N + 255) / 256, a, NULL, &args, sizeof args, NULL, 0));
    ACL_OK(aclrtMemcpyAsync(x, N * sizeof(float), pinned, N * sizeof(float),
                            ACL_MEMCPY_HOST_TO_DEVICE, a));
    ACL_OK(aclrtMemsetAsync(y, N * sizeof(float), 0, N * sizeof(float), a));
    ACL_OK(aclrtRecordEvent(event, a));
    ACL_OK(aclrtStreamWaitEvent(b, event));
    ACL_OK(aclmdlRIExecuteAsync(model, b));
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclprofStop(config));
    ACL_OK(aclprofDestroyConfig(config));
    ACL_OK(aclprofFinalize());

    json_t *events = events_of(dir);
    static const expected on_a[] = {
        {"KernelLaunch", "aclrtLaunchKernelWithHostArgs", true},
        {"MemcpyAsync", "aclrtMemcpyAsync", true},
        {"MemsetAsync", "aclrtMemsetAsync", true},
        {"EventRecord", "aclrtRecordEvent", false},
    };
    static const expected on_b[] = {
        {"StreamWaitEvent", "aclrtStreamWaitEvent", false},
        {"ModelExecute", "aclmdlRIExecuteAsync", true},
    };
    check_stream(events, id_a, on_a, sizeof on_a / sizeof on_a[0]);
    check_stream(events, id_b, on_b, sizeof on_b / sizeof on_b[0]);
    /* The replay ran both kernels of the model; the launch names its kernel. */
    ck_assert_int_ge(arg(task_of(events, "ModelExecute", id_b), "records"), 2);
    ck_assert_ptr_nonnull(
        strstr(str(json_object_get(task_of(events, "KernelLaunch", id_a), "args"), "kernel"),
               "vector_add"));
    /* The native calls inside the launch are on the trace, tagged with it. */
    long long launch = call_of(events, "aclrtLaunchKernelWithHostArgs");
    int native_calls = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (!strcmp(str(e, "cat"), "cuda_api") && arg(e, "call") == launch)
            native_calls++;
    }
    ck_assert_msg(native_calls > 0, "no cuda_api event of the launch's call");
    json_decref(events);

    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtFree(y));
    ACL_OK(aclrtFree(z));
    ACL_OK(aclrtFree(counter));
    ACL_OK(aclrtFreeHost(pinned));
    ACL_OK(aclrtBinaryUnLoad(bin));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_OK(aclrtDestroyStream(m));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("prof_cuda");
    TCase *tc = tcase_create("cupti");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, device_activity_of_two_streams);
    suite_add_tcase(s, tc);
    return acltest_run(s);
}
