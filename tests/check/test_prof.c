/* The profile acl-cuda writes (docs/profiling.md) on the host backend: the
 * Chrome trace parses and holds a track per stream and per host thread,
 * every ACL call the program made, its tasks in stream order, the flow
 * from a record to the wait it released, marks and ranges, each task tied
 * to the call that queued it; the CSV summaries add up to the trace. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acltest.h"
#include "acl/acl_cuda.h"
#include "acl/acl_prof.h"
#include "proftest.h"

static bool has_event(json_t *events, const char *ph, const char *cat, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *p = json_string_value(json_object_get(e, "ph"));
        const char *c = json_string_value(json_object_get(e, "cat"));
        const char *n = json_string_value(json_object_get(e, "name"));
        if (p && !strcmp(p, ph) && (!cat || (c && !strcmp(c, cat))) && n && !strcmp(n, name))
            return true;
    }
    return false;
}

/* The thread_name metadata of a stream track. */
static bool has_track(json_t *events, const char *track)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        json_t *args = json_object_get(e, "args");
        const char *label = json_string_value(json_object_get(args, "name"));
        if (n && !strcmp(n, "thread_name") && label && !strcmp(label, track))
            return true;
    }
    return false;
}

/* Sums a CSV column over rows (header skipped); returns the row count. */
static int csv_sum(const char *dir, const char *file, int column, double *sum)
{
    char path[256], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s missing", path);
    int rows = 0;
    *sum = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char *field = strtok(line, ",");
        for (int c = 0; c < column && field; c++)
            field = strtok(NULL, ",");
        ck_assert_ptr_nonnull(field);
        *sum += atof(field);
        rows++;
    }
    fclose(f);
    return rows;
}

START_TEST(profile_of_two_streams)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test-prof-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    aclrtStream a = acltest_new_stream(), b = acltest_new_stream();
    int32_t id_a = -1, id_b = -1;
    ACL_OK(aclrtStreamGetId(a, &id_a));
    ACL_OK(aclrtStreamGetId(b, &id_b));
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    static char host[4096];

    ACL_OK(aclprofInit(dir, strlen(dir)));
    uint32_t devices[] = {0};
    aclprofConfig *config =
        aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, NULL,
                            ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
    ck_assert_ptr_nonnull(config);
    ACL_OK(aclprofStart(config));
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtMemcpyAsync(dev, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, a));
    ACL_OK(aclrtRecordEvent(event, a));
    ACL_OK(aclrtStreamWaitEvent(b, event));
    ACL_OK(aclrtMemsetAsync(dev, 4096, 1, 4096, b));
    ACL_OK(aclprofMarkEx("after memset", 12, b));
    void *stamp = aclprofCreateStamp();
    ACL_OK(aclprofSetStampTraceMessage(stamp, "sync both", 9));
    ACL_OK(aclprofPush(stamp));
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclprofPop());
    ACL_OK(aclprofStop(config));
    ACL_OK(aclprofDestroyConfig(config));
    ACL_OK(aclprofFinalize());
    aclprofDestroyStamp(stamp);

    json_t *events = events_of(dir);
    static const char *const calls[] = {
        "aclrtMemcpyAsync", "aclrtRecordEvent", "aclrtStreamWaitEvent",   "aclrtMemsetAsync",
        "aclprofMarkEx",    "aclprofPush",      "aclrtSynchronizeStream", "aclprofPop"};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        ck_assert_msg(has_event(events, "X", "acl_api", calls[i]), "no call of %s", calls[i]);
    static const char *const tasks[] = {"MemcpyAsync", "EventRecord", "StreamWaitEvent",
                                        "MemsetAsync"};
    for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++)
        ck_assert_msg(has_event(events, "X", "task", tasks[i]), "no task %s", tasks[i]);
    ck_assert(has_event(events, "i", "mark", "after memset"));
    ck_assert(has_event(events, "X", "range", "sync both"));
    ck_assert(has_event(events, "s", "flow", "release"));
    ck_assert(has_event(events, "f", "flow", "release"));
    char track[32];
    snprintf(track, sizeof track, "Stream %d", (int)id_a);
    ck_assert(has_track(events, track));
    snprintf(track, sizeof track, "Stream %d", (int)id_b);
    ck_assert(has_track(events, track));

    /* Tasks of one stream: in submission order, each starting after the
     * previous one ended; their durations add up to the CSV's. */
    double last_end_a = -1, task_total = 0;
    long last_seq_a = -1;
    int task_count = 0, memcpy_on_a = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (!cat || strcmp(cat, "task"))
            continue;
        double ts = json_number_value(json_object_get(e, "ts"));
        double dur = json_number_value(json_object_get(e, "dur"));
        ck_assert(dur >= 0);
        task_count++;
        task_total += dur;
        if (json_integer_value(json_object_get(e, "tid")) != id_a)
            continue;
        long seq = (long)json_integer_value(json_object_get(json_object_get(e, "args"), "seq"));
        ck_assert_int_gt(seq, last_seq_a);
        ck_assert_msg(ts + 0.0015 >= last_end_a, "a task of stream %d starts before the last ended",
                      (int)id_a);
        last_seq_a = seq;
        last_end_a = ts + dur;
        memcpy_on_a +=
            !strcmp(json_string_value(json_object_get(e, "name")), "MemcpyAsync") ? 1 : 0;
    }
    ck_assert_int_eq(memcpy_on_a, 3);

    /* Every task names the ACL call that queued it (args.call is that
     * call's args.call), and a call's id is its own. */
    json_array_foreach(events, i, e)
    {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (!cat || strcmp(cat, "task"))
            continue;
        json_t *args = json_object_get(e, "args");
        long long call = (long long)json_integer_value(json_object_get(args, "call"));
        ck_assert_int_gt(call, 0);
        /* Stamps on host; on cuda with CUPTI the device's times. */
        const char *timing = json_string_value(json_object_get(args, "timing"));
        ck_assert_ptr_nonnull(timing);
        if (!strcmp(aclcudaGetBackendName(), "host"))
            ck_assert_str_eq(timing, "stream");
        int callers = 0;
        size_t k;
        json_t *c;
        json_array_foreach(events, k, c)
        {
            const char *ccat = json_string_value(json_object_get(c, "cat"));
            if (!ccat || strcmp(ccat, "acl_api") ||
                json_integer_value(json_object_get(json_object_get(c, "args"), "call")) != call)
                continue;
            callers++;
            ck_assert_str_eq(json_string_value(json_object_get(c, "name")),
                             json_string_value(json_object_get(args, "api")));
        }
        ck_assert_int_eq(callers, 1);
    }
    json_decref(events);

    double count = 0, total = 0;
    csv_sum(dir, "task_summary.csv", 1, &count);
    csv_sum(dir, "task_summary.csv", 2, &total);
    ck_assert_int_eq((int)count, task_count);
    ck_assert_msg(total > task_total - 0.01 * task_count && total < task_total + 0.01 * task_count,
                  "task_summary.csv total %.3f us, the trace %.3f us", total, task_total);
    double stream_tasks = 0;
    ck_assert_int_eq(csv_sum(dir, "stream_summary.csv", 2, &stream_tasks), 2);
    ck_assert_int_eq((int)stream_tasks, task_count);
    double api_count = 0;
    csv_sum(dir, "api_summary.csv", 1, &api_count);
    ck_assert_int_ge((int)api_count, 12);
    char svg[256];
    snprintf(svg, sizeof svg, "grep -q '</svg>' %s/timeline.svg", dir);
    ck_assert_int_eq(system(svg), 0);

    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
}
END_TEST

START_TEST(profile_from_environment)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test-prof-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("ACLCUDA_PROF_OUTPUT", dir, 1);
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    /* The profiling API cannot be mixed with the environment's profiling. */
    ck_assert_int_eq(aclprofInit(dir, strlen(dir)), ACL_ERROR_PROF_API_CONFLICT);
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, 64, 0, 64));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    unsetenv("ACLCUDA_PROF_OUTPUT");
    json_t *events = events_of(dir);
    ck_assert(has_event(events, "X", "acl_api", "aclrtMalloc"));
    ck_assert(has_event(events, "X", "acl_api", "aclrtMemset"));
    ck_assert(has_event(events, "X", "acl_api", "aclrtResetDevice"));
    json_decref(events);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("prof");
    TCase *tc = tcase_create("timeline");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, profile_of_two_streams);
    tcase_add_test(tc, profile_from_environment);
    suite_add_tcase(s, tc);
    return acltest_run(s);
}
