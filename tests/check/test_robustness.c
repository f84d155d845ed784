/* Cross-cutting robustness of acl-cuda: the bad-argument rows (which live
 * with their areas in the compatibility suite, tests/compat/test_<area>.c)
 * cover every implemented function of the API table (src/api/api.def) that
 * takes a handle or a pointer, each row in the file of its function's area,
 * and the suite calls every implemented function; bad calls leave queued work
 * alone; contexts and streams destroyed with work queued; exhausted
 * resources are survived; thousands of handles; and a child process forked
 * after the library started either works or fails with error codes, runs
 * none of the work its parent queued, and cannot change its parent's memory
 * or take its parent's notify records. */
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acltest.h"
#include "acl/acl_cuda.h"
/* ---- profiling, logging, dumps (issue 29) ---- */
#include "acl/acl_dump.h"
#include "acl/acl_prof.h"
#include "base/acl_log.h"
#include "mstx/ms_tools_ext.h"

/* Only the rows: the area files' own test cases are theirs. */
#define COMPAT_BAD_ARGS_NO_CASES
#include "bad_args.h"

enum { BUF_SIZE = 4096 };

static bool on_host_backend(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

static aclrtEvent new_event(uint32_t flags)
{
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&e, flags));
    return e;
}

static void host_func_noop(void *arg)
{
    (void)arg;
}

/* Every area's bad-argument rows (tests/compat/bad_args_areas.h), linked in
 * from the compatibility suite's area files (compiled with COMPAT_NO_MAIN). */
#define COMPAT_AREA(area) &compat_rows_##area,
static const compat_area_rows *const areas[] = {
#include "bad_args_areas.h"
};
#undef COMPAT_AREA
enum { AREA_COUNT = sizeof areas / sizeof areas[0] };

static const compat_area_rows *row_area(const char *name)
{
    for (size_t a = 0; a < AREA_COUNT; a++)
        for (size_t i = 0; i < areas[a]->count; i++)
            if (strcmp(name, areas[a]->rows[i].name) == 0)
                return areas[a];
    return NULL;
}

static size_t row_count(void)
{
    size_t n = 0;
    for (size_t a = 0; a < AREA_COUNT; a++)
        n += areas[a]->count;
    return n;
}

/* ---- the API table: which functions need a row ----------------------------------------- */

/* One row of the API table (src/api/api.def; its head comment describes the
 * columns):
 *   ACL_API(name, header, area, status, args, ret, params, fail)
 * A function needs a bad-argument row when its status is IMPLEMENTED or
 * ACCEPTED (it checks its arguments and succeeds, with no effect here) and
 * its args column is not ARGS_NONE. */
typedef struct api_row {
    const char *name;
    const char *area;
    const char *status;
    const char *args;
} api_row;

#define ACL_API(name, header, area, status, args, ret, params, fail) {#name, #area, #status, #args},
static const api_row api_rows[] = {
#include "api/api.def"
};
#undef ACL_API
enum { API_ROW_COUNT = sizeof api_rows / sizeof api_rows[0] };

/* Defined in its area and succeeding with good arguments: a caller's
 * bad arguments are checked, and the suite calls it. */
static bool implemented(const api_row *api)
{
    return strcmp(api->status, "IMPLEMENTED") == 0 || strcmp(api->status, "ACCEPTED") == 0;
}

static bool needs_row(const api_row *api)
{
    return implemented(api) && strcmp(api->args, "ARGS_NONE") != 0;
}

static const api_row *api_row_named(const char *name)
{
    for (size_t i = 0; i < API_ROW_COUNT; i++)
        if (strcmp(name, api_rows[i].name) == 0)
            return &api_rows[i];
    return NULL;
}

/* The API table's areas for which the compatibility suite has no program of
 * its own: their rows live in the area file named here. Every other area's
 * rows live in tests/compat/test_<area>.c (cuda: ext/test_cuda.c). */
static const struct {
    const char *api_area, *compat_area;
} area_folds[] = {
    {"diag", "errors"},   /* exception information: test_errors.c */
    {"value", "notify"},  /* stream memory operations: test_notify.c */
    {"group", "device"},  /* core groups: test_device.c */
};

static const char *compat_area_of(const api_row *api)
{
    for (size_t i = 0; i < sizeof area_folds / sizeof area_folds[0]; i++)
        if (strcmp(api->area, area_folds[i].api_area) == 0)
            return area_folds[i].compat_area;
    return api->area;
}

/* The table is what the spec says: known statuses and argument kinds. */
START_TEST(api_table_rows_are_well_formed)
{
    size_t implemented_count = 0;
    for (size_t i = 0; i < API_ROW_COUNT; i++) {
        const api_row *api = &api_rows[i];
        ck_assert_msg(implemented(api) || strcmp(api->status, "UNSUPPORTED") == 0 ||
                          strcmp(api->status, "REFUSED") == 0,
                      "%s: status %s", api->name, api->status);
        ck_assert_msg(strcmp(api->args, "ARGS_NONE") == 0 || strcmp(api->args, "ARGS_PTR") == 0 ||
                          strcmp(api->args, "ARGS_HANDLE") == 0 ||
                          strcmp(api->args, "ARGS_HANDLE_PTR") == 0,
                      "%s: args %s", api->name, api->args);
        ck_assert_msg(api->area[0] != '\0', "%s: no area", api->name);
        for (size_t j = i + 1; j < API_ROW_COUNT; j++)
            ck_assert_msg(strcmp(api->name, api_rows[j].name) != 0, "%s listed twice", api->name);
        implemented_count += implemented(api);
    }
    ck_assert_uint_gt(implemented_count, row_count());
}
END_TEST

/* Every implemented function with a handle or pointer parameter has a row
 * in the compat file of its API table area, and every row names an
 * implemented function that needs one. */
START_TEST(table_covers_implemented_functions)
{
    for (size_t i = 0; i < API_ROW_COUNT; i++) {
        const api_row *api = &api_rows[i];
        const compat_area_rows *area = row_area(api->name);
        const char *wanted = compat_area_of(api);
        if (needs_row(api)) {
            ck_assert_msg(area != NULL,
                          "%s is implemented and takes a handle or pointer (%s in "
                          "src/api/api.def) but has no bad-argument row: add ROW(%s) to "
                          "tests/compat/%stest_%s.c",
                          api->name, api->args, api->name,
                          strcmp(wanted, "cuda") == 0 ? "ext/" : "", wanted);
            ck_assert_msg(strcmp(area->area, wanted) == 0,
                          "%s: its row is in area %s, but src/api/api.def puts it in area %s "
                          "(rows in tests/compat/%stest_%s.c)",
                          api->name, area->area, api->area,
                          strcmp(wanted, "cuda") == 0 ? "ext/" : "", wanted);
        } else {
            ck_assert_msg(area == NULL,
                          "%s has a row in area %s but src/api/api.def says %s", api->name,
                          area ? area->area : "",
                          implemented(api) ? "it takes no handle or pointer (ARGS_NONE)"
                                           : "it is not implemented");
        }
    }
    for (size_t a = 0; a < AREA_COUNT; a++)
        for (size_t r = 0; r < areas[a]->count; r++) {
            const char *name = areas[a]->rows[r].name;
            const api_row *api = api_row_named(name);
            ck_assert_msg(api != NULL, "row %s (area %s) names no function of src/api/api.def",
                          name, areas[a]->area);
            ck_assert_msg(implemented(api),
                          "row %s (area %s) names a function that is not implemented", name,
                          areas[a]->area);
        }
}
END_TEST

/* Appends the contents of every file of dir ending in suffix to text. */
static void read_sources(const char *dir, const char *suffix, char **text, size_t *len)
{
    char command[1200];
    snprintf(command, sizeof command, "ls '%s' 2>/dev/null", dir);
    FILE *ls = popen(command, "r");
    ck_assert_ptr_nonnull(ls);
    char name[256];
    while (fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = '\0';
        size_t n = strlen(name), k = strlen(suffix);
        if (n < k || strcmp(name + n - k, suffix) != 0)
            continue;
        char path[1500];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "r");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            *text = realloc(*text, *len + got + 1);
            ck_assert_ptr_nonnull(*text);
            memcpy(*text + *len, chunk, got);
            *len += got;
            (*text)[*len] = '\0';
        }
        fclose(f);
    }
    pclose(ls);
}

/* The name appears in text as a whole identifier. */
static bool mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        char before = p == text ? ' ' : p[-1], after = p[n];
        bool ident_before = before == '_' || (before >= '0' && before <= '9') ||
                            (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z');
        bool ident_after = after == '_' || (after >= '0' && after <= '9') ||
                           (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z');
        if (!ident_before && !ident_after)
            return true;
    }
    return false;
}

/* The compatibility suite calls every implemented function at least once
 * (its C files by name; its pyACL cases name the C function they call). */
START_TEST(compat_suite_calls_every_implemented_function)
{
    const char *srcdir = getenv("ACLCUDA_TEST_SRCDIR");
    ck_assert_msg(srcdir != NULL, "ACLCUDA_TEST_SRCDIR is not set (make check sets it)");
    char dir[1024];
    char *text = NULL;
    size_t len = 0;
    snprintf(dir, sizeof dir, "%s/tests/compat", srcdir);
    read_sources(dir, ".c", &text, &len);
    snprintf(dir, sizeof dir, "%s/tests/compat/ext", srcdir);
    read_sources(dir, ".c", &text, &len);
    snprintf(dir, sizeof dir, "%s/tests/compat/python", srcdir);
    read_sources(dir, ".py", &text, &len);
    ck_assert_msg(text != NULL && len > 0, "no compat sources under %s/tests/compat", srcdir);
    for (size_t i = 0; i < API_ROW_COUNT; i++)
        ck_assert_msg(!implemented(&api_rows[i]) || mentions(text, api_rows[i].name),
                      "%s is implemented (src/api/api.def) but no test of tests/compat calls it",
                      api_rows[i].name);
    free(text);
}
END_TEST

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

static void assert_filled(const unsigned char *buf, size_t n, unsigned char value)
{
    size_t i = 0;
    while (i < n && buf[i] == value)
        i++;
    ck_assert_msg(i == n, "byte %zu is 0x%02x, expected 0x%02x", i, i < n ? buf[i] : 0, value);
}

/* Work queued behind a closed gate survives a barrage of bad calls, many of
 * them naming its stream or its memory, and then runs with the right data. */
START_TEST(bad_calls_keep_queued_work)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    memset(host, 0, BUF_SIZE);
    aclrtEvent done = new_event(ACL_EVENT_SYNC);
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0x5A, BUF_SIZE, stream));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtRecordEvent(done, stream));
    acltest_gate_wait_reached(&gate);

    unsigned char local[BUF_SIZE];
    REJECTS(aclrtMemcpyAsync(dev, BUF_SIZE, host, 2 * BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ANY_ERROR, "a count beyond destMax");
    REJECTS(aclrtMemcpyAsync(dev, 2 * BUF_SIZE, host, 2 * BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE,
                             stream),
            ACL_ERROR_INVALID_PARAM, "a copy past the end of both buffers");
    REJECTS(aclrtMemcpyAsync(local, BUF_SIZE, dev, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
            ACL_ERROR_INVALID_PARAM, "a local variable as device dst");
    REJECTS(aclrtMemcpyAsync(NULL, BUF_SIZE, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpyAsync(host, BUF_SIZE, dev, 16, (aclrtMemcpyKind)77, stream),
            ACL_ERROR_INVALID_PARAM, "an unknown kind");
    REJECTS(aclrtMemsetAsync((char *)dev + 64, BUF_SIZE, 1, BUF_SIZE, stream),
            ACL_ERROR_INVALID_PARAM, "a fill past the end");
    REJECTS(aclrtMemcpy2dAsync(dev, 16, host, 16, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_ERROR_INVALID_PARAM, "a width beyond the pitch");
    REJECTS(aclrtLaunchHostFunc(stream, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL function");
    REJECTS(aclrtLaunchCallback(host_func_noop, NULL, ACL_CALLBACK_BLOCK, stream),
            ACL_ERROR_RT_STREAM_NO_CB_REG, "no report thread");
    REJECTS(aclrtStreamWaitEvent(stream, (aclrtEvent)stream), ACL_ERROR_INVALID_PARAM,
            "the stream as an event");
    REJECTS(aclrtRecordEvent((aclrtEvent)stream, stream), ACL_ERROR_INVALID_PARAM,
            "the stream as an event");
    REJECTS(aclrtSetStreamFailureMode(stream, 99), ACL_ERROR_INVALID_PARAM, "an unknown mode");
    REJECTS(aclrtFree(host), ACL_ERROR_INVALID_PARAM, "page-locked memory");
    REJECTS(aclrtFree((char *)dev + 32), ACL_ERROR_INVALID_PARAM, "an interior pointer");
    REJECTS(aclrtFreeHost(dev), ACL_ERROR_INVALID_PARAM, "device memory");
    REJECTS(aclrtFree(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclrtDestroyEvent(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclrtDestroyContext(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclrtSetCurrentContext(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclDestroyDataBuffer((aclDataBuffer *)stream), ACL_ERROR_INVALID_PARAM,
            "a stream handle");
    REJECTS(aclrtDestroyStream(dev), ACL_ERROR_INVALID_PARAM, "device memory");
    REJECTS(aclrtSynchronizeStreamWithTimeout(stream, -5), ANY_ERROR, "a timeout below -1");

    /* Every area's rows as well, hostile arguments included, where that
     * cannot wait on the gate: on CUDA freeing device memory waits for the
     * device, which the gate holds. */
    if (on_host_backend())
        for (size_t a = 0; a < AREA_COUNT; a++)
            for (size_t i = 0; i < areas[a]->count; i++)
                areas[a]->rows[i].run(COMPAT_HOSTILE);

    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    ACL_OK(aclrtStreamQuery(stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeEvent(done));
    assert_filled(host, BUF_SIZE, 0x5A);

    /* The stream still takes work. */
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0xA5, BUF_SIZE, stream));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0xA5);
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    (void)aclGetRecentErrMsg();
}
END_TEST

/* Queues "fill dev with value, copy it to host" on stream. */
static void queue_fill_and_read(aclrtStream stream, void *dev, void *host, unsigned char value)
{
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, stream));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
}

/* aclrtDestroyStreamForce does not wait for queued work. Whether that work
 * still runs is the backend's affair, but the handle is gone at once, a
 * record queued before it is not left half-done, and nothing else breaks. */
START_TEST(stream_destroyed_with_work_queued)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    memset(host, 0, BUF_SIZE);
    aclrtEvent done = new_event(ACL_EVENT_SYNC);
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    queue_fill_and_read(stream, dev, host, 0x3C);
    ACL_OK(aclrtRecordEvent(done, stream));
    acltest_gate_wait_reached(&gate);

    ACL_OK(aclrtDestroyStreamForce(stream));
    REJECTS(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM, "the destroyed stream");
    REJECTS(aclrtMemsetAsync(dev, BUF_SIZE, 0, BUF_SIZE, stream), ACL_ERROR_INVALID_PARAM,
            "the destroyed stream");
    acltest_gate_open(&gate);
    if (aclrtSynchronizeEventWithTimeout(done, 30000) == ACL_SUCCESS)
        assert_filled(host, BUF_SIZE, 0x3C);
    (void)aclGetRecentErrMsg();

    aclrtStream next = acltest_new_stream();
    queue_fill_and_read(next, dev, host, 0xC3);
    ACL_OK(aclrtSynchronizeStream(next));
    assert_filled(host, BUF_SIZE, 0xC3);
    ACL_OK(aclrtDestroyStream(next));
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

/* A stream made after another was destroyed with work still held never
 * waits for that work (the cuda backend hands out only idle streams again). */
START_TEST(new_stream_does_not_inherit_held_work)
{
    aclrtStream held = acltest_new_stream();
    /* Static: nothing can wait for the destroyed stream, so the gate body
     * may still be returning when this test has. */
    static acltest_gate gate;
    acltest_gate_close(&gate, held);
    acltest_gate_wait_reached(&gate);
    ACL_OK(aclrtDestroyStreamForce(held));

    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 4; i++) {
        aclrtStream fresh = acltest_new_stream();
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, i, BUF_SIZE, fresh));
        ACL_OK(aclrtSynchronizeStreamWithTimeout(fresh, 10000));
        ACL_OK(aclrtDestroyStream(fresh));
    }
    acltest_gate_open(&gate);
    ACL_OK(aclrtFree(dev));
}
END_TEST

typedef struct context_destroyer {
    aclrtContext context;
    aclError result;
} context_destroyer;

static void *destroy_context(void *arg)
{
    context_destroyer *d = arg;
    d->result = aclrtSetCurrentContext(d->context);
    if (d->result == ACL_SUCCESS)
        d->result = aclrtDestroyContext(d->context);
    return NULL;
}

/* A context destroyed (on another thread) while its stream holds work:
 * the destroy waits for the work, which completes with the right data. */
START_TEST(context_destroyed_with_work_queued)
{
    aclrtContext primary = NULL, context = NULL;
    ACL_OK(aclrtGetCurrentContext(&primary));
    ACL_OK(aclrtCreateContext(&context, 0));
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    memset(host, 0, BUF_SIZE);
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    queue_fill_and_read(stream, dev, host, 0x77);
    acltest_gate_wait_reached(&gate);

    context_destroyer d = {context, ACL_ERROR_INVALID_PARAM};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, destroy_context, &d), 0);
    acltest_gate_open(&gate);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_int_eq(d.result, ACL_SUCCESS);
    assert_filled(host, BUF_SIZE, 0x77);

    REJECTS(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM, "a stream of a destroyed context");
    REJECTS(aclrtSetCurrentContext(context), ACL_ERROR_INVALID_PARAM, "a destroyed context");
    ACL_OK(aclrtSetCurrentContext(primary));
    ACL_OK(aclrtMemset(dev, BUF_SIZE, 0x12, BUF_SIZE));
    ACL_OK(aclrtMemcpy(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_filled(host, BUF_SIZE, 0x12);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

/* ---- exhaustion ------------------------------------------------------------------------- */

/* Device memory runs out: allocations fail with a message, other work goes
 * on, and freeing makes room again. The host backend's "device" memory is
 * capped by ACLCUDA_HOST_DEVICE_MEMORY, read before the first ACL call;
 * elsewhere only an absurd request is sure to fail. */
START_TEST(memory_exhausted)
{
    enum { BLOCK = 64 * 1024, MAX_BLOCKS = 64 };
    ck_assert_int_eq(setenv("ACLCUDA_HOST_DEVICE_MEMORY", "1M", 1), 0);
    ACL_OK(aclrtSetDevice(0));
    void *blocks[MAX_BLOCKS];
    size_t n = 0;
    if (on_host_backend()) {
        aclError ret = ACL_SUCCESS;
        while (n < MAX_BLOCKS && ret == ACL_SUCCESS) {
            (void)aclGetRecentErrMsg();
            ret = aclrtMalloc(&blocks[n], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY);
            if (ret == ACL_SUCCESS)
                n++;
        }
        ck_assert_int_eq(ret, ACL_ERROR_RT_MEMORY_ALLOCATION);
        ck_assert_ptr_nonnull(aclGetRecentErrMsg());
        ck_assert_uint_gt(n, 1);
        void *p = NULL;
        REJECTS(aclrtMallocAlign32(&p, BLOCK, ACL_MEM_MALLOC_HUGE_FIRST),
                ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory left");
        ACL_OK(aclrtFree(blocks[--n]));
        ACL_OK(aclrtMalloc(&blocks[n++], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY));
    } else {
        ACL_OK(aclrtMalloc(&blocks[n++], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY));
    }
    void *p = NULL;
    REJECTS(aclrtMalloc(&p, (size_t)1 << 50, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION, "a petabyte");
    REJECTS(aclrtMallocHost(&p, (size_t)1 << 50), ANY_ERROR, "a petabyte of host memory");

    /* Still usable with the memory full. */
    void *host = NULL;
    ACL_OK(aclrtMallocHost(&host, BLOCK));
    aclrtStream stream = acltest_new_stream();
    ACL_OK(aclrtMemsetAsync(blocks[0], BLOCK, 0x42, BLOCK, stream));
    ACL_OK(aclrtMemcpyAsync(host, BLOCK, blocks[0], BLOCK, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BLOCK, 0x42);
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFreeHost(host));
    while (n > 0)
        ACL_OK(aclrtFree(blocks[--n]));
    size_t free_bytes = 0, total_bytes = 0;
    ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
    if (on_host_backend())
        ck_assert_uint_eq(free_bytes, total_bytes);
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

/* Thousands of live handles: all usable, all destroyed in an interleaved
 * order, and every one of them rejected afterwards. */
START_TEST(thousands_of_handles)
{
    enum { STREAMS = 1000, EVENTS = 4000, BUFFERS = 4000, BUSY = 8 };
    uint32_t events_before = 0, events_after = 0;
    ACL_OK(aclrtGetEventAvailNum(&events_before));
    aclrtStream *streams = calloc(STREAMS, sizeof *streams);
    aclrtEvent *events = calloc(EVENTS, sizeof *events);
    aclDataBuffer **data = calloc(BUFFERS, sizeof *data);
    ck_assert(streams && events && data);
    for (size_t i = 0; i < STREAMS; i++)
        streams[i] = acltest_new_stream();
    for (size_t i = 0; i < EVENTS; i++)
        events[i] = new_event(ACL_EVENT_SYNC);
    for (size_t i = 0; i < BUFFERS; i++) {
        data[i] = aclCreateDataBuffer(&data[i], i);
        ck_assert_ptr_nonnull(data[i]);
    }

    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUSY * BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUSY * BUF_SIZE));
    for (size_t i = 0; i < BUSY; i++) {
        aclrtStream s = streams[i * (STREAMS / BUSY)];
        queue_fill_and_read(s, (char *)dev + i * BUF_SIZE, (char *)host + i * BUF_SIZE,
                            (unsigned char)(i + 1));
    }
    for (size_t i = 0; i < EVENTS; i++)
        ACL_OK(aclrtRecordEvent(events[i], streams[(i % BUSY) * (STREAMS / BUSY)]));
    for (size_t i = 0; i < EVENTS; i++)
        ACL_OK(aclrtSynchronizeEvent(events[i]));
    for (size_t i = 0; i < BUSY; i++)
        assert_filled((unsigned char *)host + i * BUF_SIZE, BUF_SIZE, (unsigned char)(i + 1));

    /* Odd ones first: the survivors must still be found among the holes. */
    for (size_t pass = 0; pass < 2; pass++) {
        for (size_t i = 1 - pass; i < EVENTS; i += 2)
            ACL_OK(aclrtDestroyEvent(events[i]));
        for (size_t i = 1 - pass; i < BUFFERS; i += 2)
            ACL_OK(aclDestroyDataBuffer(data[i]));
        for (size_t i = 1 - pass; i < STREAMS; i += 2)
            ACL_OK(aclrtDestroyStream(streams[i]));
        if (pass == 0) {
            uint32_t id;
            int32_t stream_id;
            for (size_t i = 0; i < EVENTS; i += 2)
                ACL_OK(aclrtGetEventId(events[i], &id));
            for (size_t i = 0; i < BUFFERS; i += 2)
                ck_assert_uint_eq(aclGetDataBufferSizeV2(data[i]), i);
            for (size_t i = 0; i < STREAMS; i += 2)
                ACL_OK(aclrtStreamGetId(streams[i], &stream_id));
        }
    }
    for (size_t i = 0; i < EVENTS; i++)
        REJECTS(aclrtDestroyEvent(events[i]), ACL_ERROR_INVALID_PARAM, "a destroyed event");
    for (size_t i = 0; i < BUFFERS; i++)
        REJECTS(aclDestroyDataBuffer(data[i]), ACL_ERROR_INVALID_PARAM, "a destroyed buffer");
    for (size_t i = 0; i < STREAMS; i++)
        REJECTS(aclrtDestroyStream(streams[i]), ACL_ERROR_INVALID_PARAM, "a destroyed stream");
    ACL_OK(aclrtGetEventAvailNum(&events_after));
    ck_assert_uint_eq(events_after, events_before);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    free(streams);
    free(events);
    free(data);
}
END_TEST

/* Hundreds of streams at once, each with its own work. */
START_TEST(many_streams)
{
    enum { N = 300, CHUNK = 256 };
    aclrtStream *streams = calloc(N, sizeof *streams);
    ck_assert_ptr_nonnull(streams);
    uint8_t *dev = (uint8_t *)compat_device_buffer((size_t)N * CHUNK);
    uint8_t *host = compat_host_buffer((size_t)N * CHUNK);
    for (int i = 0; i < N; i++)
        streams[i] = compat_new_stream();
    for (int i = 0; i < N; i++) {
        ACL_OK(aclrtMemsetAsync(dev + (size_t)i * CHUNK, CHUNK, (uint8_t)(i * 7 + 1), CHUNK,
                                streams[i]));
        ACL_OK(aclrtMemcpyAsync(host + (size_t)i * CHUNK, CHUNK, dev + (size_t)i * CHUNK, CHUNK,
                                ACL_MEMCPY_DEVICE_TO_HOST, streams[i]));
    }
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtSynchronizeStream(streams[i]));
    for (int i = 0; i < N; i++)
        compat_assert_filled(host + (size_t)i * CHUNK, CHUNK, (uint8_t)(i * 7 + 1));
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    free(streams);
}
END_TEST

/* Thousands of events chaining hundreds of streams. */
START_TEST(many_events_over_many_streams)
{
    enum { STREAMS = 300, PER_STREAM = 10, CHUNK = 64 };
    aclrtStream *streams = calloc(STREAMS, sizeof *streams);
    aclrtEvent *events = calloc(STREAMS * PER_STREAM, sizeof *events);
    ck_assert_ptr_nonnull(streams);
    ck_assert_ptr_nonnull(events);
    uint8_t *dev = (uint8_t *)compat_device_buffer((size_t)STREAMS * CHUNK);
    for (int i = 0; i < STREAMS; i++)
        streams[i] = compat_new_stream();
    for (int i = 0; i < STREAMS * PER_STREAM; i++)
        ACL_OK(aclrtCreateEvent(&events[i]));
    /* Every wait refers to a record made earlier, so the chain cannot cycle. */
    for (int k = 0; k < PER_STREAM; k++) {
        for (int i = 0; i < STREAMS; i++) {
            aclrtEvent event = events[i * PER_STREAM + k];
            ACL_OK(aclrtMemsetAsync(dev + (size_t)i * CHUNK, CHUNK, k + 1, CHUNK, streams[i]));
            ACL_OK(aclrtRecordEvent(event, streams[i]));
            ACL_OK(aclrtStreamWaitEvent(streams[(i + 1) % STREAMS], event));
        }
    }
    for (int i = 0; i < STREAMS; i++)
        ACL_OK(aclrtSynchronizeStream(streams[i]));
    for (int i = 0; i < STREAMS * PER_STREAM; i++) {
        aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        ACL_OK(aclrtQueryEventStatus(events[i], &status));
        ck_assert_int_eq(status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    }
    uint8_t *host = malloc((size_t)STREAMS * CHUNK);
    ck_assert_ptr_nonnull(host);
    ACL_OK(aclrtMemcpy(host, (size_t)STREAMS * CHUNK, dev, (size_t)STREAMS * CHUNK,
                       ACL_MEMCPY_DEVICE_TO_HOST));
    compat_assert_filled(host, (size_t)STREAMS * CHUNK, PER_STREAM);
    for (int i = 0; i < STREAMS * PER_STREAM; i++)
        ACL_OK(aclrtDestroyEvent(events[i]));
    for (int i = 0; i < STREAMS; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
    ACL_OK(aclrtFree(dev));
    free(host);
    free(events);
    free(streams);
}
END_TEST

/* A program that never reads its error messages does not grow without
 * bound, and reading them afterwards still works. */
START_TEST(unread_error_messages_stay_bounded)
{
    enum { FAILURES = 5000 };
    (void)aclGetRecentErrMsg();
    size_t failed = 0;
    for (size_t i = 0; i < FAILURES; i++)
        failed += aclrtDestroyStream(NULL) != ACL_SUCCESS;
    ck_assert_uint_eq(failed, FAILURES);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_lt(strlen(msg), (size_t)1 << 20);
    ck_assert_ptr_null(aclGetRecentErrMsg());
}
END_TEST

/* ---- fork ---------------------------------------------------------------------------------- */

/* What the forked child reports through its exit status (other statuses
 * come from a checker such as valgrind finding errors in the child). */
enum { CHILD_WORKED = 0, CHILD_FAILED_CLEANLY = 10, CHILD_NO_MESSAGE = 11, CHILD_WRONG_DATA = 12,
       CHILD_SECONDS = 20 };

/* The worse of two child outcomes. */
static int worse(int a, int b)
{
    return a >= b ? a : b; /* the codes are in order of badness */
}

/* A step in the child: it works, or it fails with a message. */
static int child_step(aclError ret)
{
    if (ret == ACL_SUCCESS)
        return CHILD_WORKED;
    return aclGetRecentErrMsg() ? CHILD_FAILED_CLEANLY : CHILD_NO_MESSAGE;
}

/* Fill and read back through a stream; the data must be right if every
 * step claimed success. */
static int child_round_trip(aclrtStream stream, void *dev, unsigned char *host, unsigned char value)
{
    memset(host, 0, BUF_SIZE);
    int result = child_step(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, stream));
    if (result == CHILD_WORKED)
        result = child_step(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE,
                                             ACL_MEMCPY_DEVICE_TO_HOST, stream));
    if (result == CHILD_WORKED)
        result = child_step(aclrtSynchronizeStream(stream));
    if (result == CHILD_WORKED)
        for (size_t i = 0; i < BUF_SIZE; i++)
            if (host[i] != value)
                return CHILD_WRONG_DATA;
    return result;
}

/* Runs in the child; an alarm turns a hang into SIGALRM. No Check calls:
 * the child must leave through _exit with its verdict. Check's own SIGALRM
 * handler (inherited) would kill the whole process group instead. */
static int child_body(aclrtStream inherited, void *dev)
{
    signal(SIGALRM, SIG_DFL);
    alarm(CHILD_SECONDS);
    int result = child_step(aclrtSetDevice(0));
    if (result != CHILD_WORKED)
        return result;
    /* A buffer of its own: the parent's pinned memory may be mapped shared
     * (CUDA's is), and the parent is copying into it meanwhile. */
    unsigned char *host = NULL;
    result = child_step(aclrtMallocHost((void **)&host, BUF_SIZE));
    if (result != CHILD_WORKED)
        return result;
    aclrtStream fresh = NULL;
    int step = child_step(aclrtCreateStream(&fresh));
    result = worse(result, step);
    if (step == CHILD_WORKED) {
        result = worse(result, child_round_trip(fresh, dev, host, 0x33));
        result = worse(result, child_step(aclrtDestroyStream(fresh)));
    }
    result = worse(result, child_round_trip(NULL, dev, host, 0x44));
    result = worse(result, child_round_trip(inherited, dev, host, 0x55));
    result = worse(result, child_step(aclrtSynchronizeDevice()));
    result = worse(result, child_step(aclrtFreeHost(host)));
    result = worse(result, child_step(aclrtResetDevice(0)));
    return result;
}

/* The parent has a stream whose worker is busy (inside a host function,
 * holding no lock) when it forks. The child sets the device and uses a new
 * stream, the default stream and the inherited one, with host memory of its
 * own: each must work with the right data or fail with an error code and a
 * message; it must not hang or crash. The parent is unaffected. */
START_TEST(forked_child_works_or_fails_cleanly)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    queue_fill_and_read(stream, dev, host, 0x11);
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0x11);
    ACL_OK(aclrtMemset(dev, BUF_SIZE, 0, BUF_SIZE));

    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    acltest_gate_wait_reached(&gate);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(child_body(stream, dev));

    acltest_gate_open(&gate);
    queue_fill_and_read(stream, dev, host, 0x22);
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0x22);

    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        ck_abort_msg("the child %s (signal %d)",
                     WTERMSIG(status) == SIGALRM ? "hung" : "crashed", WTERMSIG(status));
    ck_assert(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    ck_assert_msg(code != CHILD_WRONG_DATA, "a copy in the child claimed success with wrong data");
    ck_assert_msg(code != CHILD_NO_MESSAGE, "a call in the child failed without a message");
    ck_assert_msg(code == CHILD_WORKED || code == CHILD_FAILED_CLEANLY,
                  "the child exited with status %d (errors found in it by a checker?)", code);
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

/* Forks a child that runs body(arg) and leaves through _exit with its
 * verdict, a hang turned into SIGALRM; the parent runs meanwhile(arg) (if
 * any), then waits for the child and returns the verdict, failing the
 * test if the child hung or crashed. */
static int in_forked_child(int (*body)(void *), void (*meanwhile)(void *), void *arg)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        alarm(CHILD_SECONDS);
        _exit(body(arg));
    }
    if (meanwhile)
        meanwhile(arg);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        ck_abort_msg("the child %s (signal %d)", WTERMSIG(status) == SIGALRM ? "hung" : "crashed",
                     WTERMSIG(status));
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* On the host backend the child uses what it inherited; on CUDA, which a
 * child of a process that used it cannot use, each call fails cleanly. */
static void assert_child_verdict(int code)
{
    ck_assert_msg(code != CHILD_WRONG_DATA, "a call in the child claimed success with wrong data");
    ck_assert_msg(code != CHILD_NO_MESSAGE, "a call in the child failed without a message");
    if (on_host_backend())
        ck_assert_msg(code == CHILD_WORKED, "the child exited with status %d", code);
    else
        ck_assert_msg(code == CHILD_WORKED || code == CHILD_FAILED_CLEANLY,
                      "the child exited with status %d", code);
}

/* A counter in memory the child shares with its parent (MAP_SHARED): what
 * the child runs of the parent's work shows there. */
static atomic_int *shared_counter(void)
{
    void *p =
        mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    atomic_int *count = p;
    atomic_init(count, 0);
    return count;
}

static void count_up(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

typedef struct inherited_work {
    aclrtStream stream;
    atomic_int *parent_count;
} inherited_work;

/* The child finds the inherited stream idle, and runs what it queues on it. */
static int child_skips_inherited_work(void *arg)
{
    inherited_work *in = arg;
    int result = child_step(aclrtSynchronizeStream(in->stream));
    if (result != CHILD_WORKED)
        return result;
    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    result = child_step(aclrtStreamQuery(in->stream, &status));
    if (result != CHILD_WORKED)
        return result;
    if (status != ACL_STREAM_STATUS_COMPLETE || atomic_load(in->parent_count) != 0)
        return CHILD_WRONG_DATA;
    atomic_int mine = 0;
    result = child_step(aclrtLaunchHostFunc(in->stream, count_up, &mine));
    if (result == CHILD_WORKED)
        result = child_step(aclrtSynchronizeStream(in->stream));
    if (result == CHILD_WORKED && atomic_load(&mine) != 1)
        return CHILD_WRONG_DATA;
    return result;
}

/* Work the parent queued before the fork (behind a gate) runs in the parent
 * only: the child's synchronize of the inherited stream does not run it. */
START_TEST(forked_child_drops_inherited_work)
{
    inherited_work in = {.stream = acltest_new_stream(), .parent_count = shared_counter()};
    acltest_gate gate;
    acltest_gate_close(&gate, in.stream);
    ACL_OK(aclrtLaunchHostFunc(in.stream, count_up, in.parent_count));
    acltest_gate_wait_reached(&gate);
    assert_child_verdict(in_forked_child(child_skips_inherited_work, NULL, &in));
    ck_assert_int_eq(atomic_load(in.parent_count), 0);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(in.stream));
    ck_assert_int_eq(atomic_load(in.parent_count), 1);
    ACL_OK(aclrtDestroyStream(in.stream));
    munmap(in.parent_count, sizeof *in.parent_count);
}
END_TEST

typedef struct mapped_twice {
    unsigned char *first, *second; /* one physical allocation at two addresses */
    size_t size;
} mapped_twice;

/* The child fills its copy through one mapping and reads it through the
 * other. */
static int child_fills_mapping(void *arg)
{
    mapped_twice *m = arg;
    unsigned char *back = malloc(m->size);
    if (!back)
        return CHILD_FAILED_CLEANLY;
    int result = child_step(aclrtMemset(m->first, m->size, 0x99, m->size));
    if (result == CHILD_WORKED)
        result =
            child_step(aclrtMemcpy(back, m->size, m->second, m->size, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; result == CHILD_WORKED && i < m->size; i++)
        if (back[i] != 0x99)
            result = CHILD_WRONG_DATA;
    free(back);
    return result;
}

/* Physical memory of aclrtMallocPhysical is the child's own copy: a fill
 * in the child does not reach the parent. */
START_TEST(forked_child_fills_its_own_physical_memory)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_MEM_NORMAL;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    aclrtDrvMemHandle phys;
    ACL_OK(aclrtMallocPhysical(&phys, g, &prop, 0));
    mapped_twice m = {.size = g};
    ACL_OK(aclrtReserveMemAddress((void **)&m.first, g, 0, NULL, 0));
    ACL_OK(aclrtReserveMemAddress((void **)&m.second, g, 0, NULL, 0));
    ACL_OK(aclrtMapMem(m.first, g, 0, phys, 0));
    ACL_OK(aclrtMapMem(m.second, g, 0, phys, 0));
    ACL_OK(aclrtMemset(m.first, g, 0x11, g));

    assert_child_verdict(in_forked_child(child_fills_mapping, NULL, &m));
    unsigned char *back = malloc(g);
    ck_assert_ptr_nonnull(back);
    ACL_OK(aclrtMemcpy(back, g, m.second, g, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_filled(back, g, 0x11);
    free(back);
    ACL_OK(aclrtUnmapMem(m.first));
    ACL_OK(aclrtUnmapMem(m.second));
    ACL_OK(aclrtFreePhysical(phys));
    ACL_OK(aclrtReleaseMemAddress(m.first));
    ACL_OK(aclrtReleaseMemAddress(m.second));
}
END_TEST

typedef struct shared_notify {
    aclrtNotify notify;
    aclrtStream waiter, recorder;
} shared_notify;

/* Neither the wait the child inherited nor one of its own takes the record
 * the parent makes meanwhile. */
static int child_leaves_parent_records(void *arg)
{
    shared_notify *n = arg;
    enum { WINDOW_MS = 1000 }; /* the parent records within it */
    int result = child_step(aclrtSynchronizeStreamWithTimeout(n->waiter, CHILD_SECONDS * 500));
    if (result != CHILD_WORKED)
        return result;
    aclrtStream mine = NULL;
    result = child_step(aclrtCreateStream(&mine));
    if (result == CHILD_WORKED)
        result = child_step(aclrtWaitAndResetNotify(n->notify, mine, 0));
    if (result != CHILD_WORKED)
        return result;
    aclError waited = aclrtSynchronizeStreamWithTimeout(mine, WINDOW_MS);
    if (waited == ACL_SUCCESS)
        return CHILD_WRONG_DATA; /* it took a record of the parent's */
    return waited == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT ? CHILD_WORKED : child_step(waited);
}

static void record_in_parent(void *arg)
{
    shared_notify *n = arg;
    ACL_OK(aclrtRecordNotify(n->notify, n->recorder));
    ACL_OK(aclrtSynchronizeStream(n->recorder));
}

/* A notify shared with other processes (exported) has a wait queued behind
 * a gate when the process forks; the parent records it while the child
 * runs, and only the parent's wait may take that record. */
START_TEST(forked_child_leaves_shared_notify_records)
{
    shared_notify n = {.waiter = acltest_new_stream(), .recorder = acltest_new_stream()};
    ACL_OK(aclrtCreateNotify(&n.notify, ACL_NOTIFY_DEFAULT));
    char key[65]; /* ACL asks for 65 bytes */
    ACL_OK(aclrtNotifyGetExportKey(n.notify, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    acltest_gate gate;
    acltest_gate_close(&gate, n.waiter);
    ACL_OK(aclrtWaitAndResetNotify(n.notify, n.waiter, 0));
    acltest_gate_wait_reached(&gate);
    assert_child_verdict(in_forked_child(child_leaves_parent_records, record_in_parent, &n));
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStreamWithTimeout(n.waiter, CHILD_SECONDS * 1000));
    ACL_OK(aclrtDestroyStream(n.waiter));
    ACL_OK(aclrtDestroyStream(n.recorder));
    ACL_OK(aclrtDestroyNotify(n.notify));
}
END_TEST

/* ---- a process that exports memory (this program, started with --exporter) ---- */

extern char **environ;

/* Fills EXPORT_SIZE bytes of device memory with 0x11, prints its IPC key,
 * and on the line "check" from stdin prints whether the memory still holds
 * 0x11. (2 MiB: on CUDA only an allocation of whole 2 MiB blocks is
 * exported.) */
enum { EXPORT_SIZE = 2 << 20 };

static int exporter_main(void)
{
    void *dev = NULL;
    char key[65];
    static unsigned char back[EXPORT_SIZE];
    if (aclInit(NULL) || aclrtSetDevice(0) ||
        aclrtMalloc(&dev, EXPORT_SIZE, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMemset(dev, EXPORT_SIZE, 0x11, EXPORT_SIZE) ||
        aclrtIpcMemGetExportKey(dev, EXPORT_SIZE, key, sizeof key,
                                ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION))
        return 1;
    printf("%s\n", key);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin) ||
        aclrtMemcpy(back, EXPORT_SIZE, dev, EXPORT_SIZE, ACL_MEMCPY_DEVICE_TO_HOST))
        return 1;
    size_t i = 0;
    while (i < EXPORT_SIZE && back[i] == 0x11)
        i++;
    printf("%s\n", i == EXPORT_SIZE ? "ok" : "changed");
    fflush(stdout);
    return 0;
}

typedef struct exporter {
    pid_t pid;
    FILE *to, *from;
} exporter;

static void exporter_start(exporter *x)
{
    char path[1024];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    ck_assert_int_gt(n, 0);
    path[n] = '\0';
    int in[2], out[2];
    ck_assert_int_eq(pipe(in), 0);
    ck_assert_int_eq(pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    char *argv[] = {path, "--exporter", NULL};
    int rc = posix_spawn(&x->pid, path, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    ck_assert_msg(rc == 0, "cannot start %s: %s", path, strerror(rc));
    x->to = fdopen(in[1], "w");
    x->from = fdopen(out[0], "r");
    ck_assert_ptr_nonnull(x->to);
    ck_assert_ptr_nonnull(x->from);
}

static void exporter_read(exporter *x, char *line, size_t size)
{
    ck_assert_msg(fgets(line, (int)size, x->from) != NULL, "the exporter did not answer");
    line[strcspn(line, "\n")] = '\0';
}

/* Memory another process exported, imported by the test: a child of the
 * test fills its copy, and the exporter's memory keeps what it held. */
START_TEST(forked_child_of_an_importer_fills_its_own_copy)
{
    exporter x;
    exporter_start(&x);
    char key[80], answer[16];
    exporter_read(&x, key, sizeof key);
    void *imported = NULL;
    ACL_OK(aclrtIpcMemImportByKey(&imported, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
    mapped_twice m = {.first = imported, .second = imported, .size = BUF_SIZE};
    assert_child_verdict(in_forked_child(child_fills_mapping, NULL, &m));
    fprintf(x.to, "check\n");
    fflush(x.to);
    exporter_read(&x, answer, sizeof answer);
    ck_assert_str_eq(answer, "ok");
    unsigned char back[BUF_SIZE];
    ACL_OK(aclrtMemcpy(back, BUF_SIZE, imported, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_filled(back, BUF_SIZE, 0x11);
    ACL_OK(aclrtIpcMemClose(key));
    fclose(x.to);
    fclose(x.from);
    int status = 0;
    ck_assert_int_eq(waitpid(x.pid, &status, 0), x.pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

typedef struct reporter {
    pthread_t thread;
    atomic_bool stop;
    aclrtStream stream;
} reporter;

static void *report_loop(void *arg)
{
    reporter *r = arg;
    while (!atomic_load(&r->stop))
        (void)aclrtProcessReport(50);
    return NULL;
}

/* A callback of the child's on a stream its parent's report thread serves
 * runs, though the child has no such thread. */
static int child_launches_callback(void *arg)
{
    reporter *r = arg;
    atomic_int ran = 0;
    int result = child_step(aclrtLaunchCallback(count_up, &ran, ACL_CALLBACK_BLOCK, r->stream));
    if (result == CHILD_WORKED)
        result = child_step(aclrtSynchronizeStream(r->stream));
    if (result == CHILD_WORKED && atomic_load(&ran) != 1)
        return CHILD_WRONG_DATA;
    return result;
}

START_TEST(forked_child_runs_callbacks_without_the_report_thread)
{
    reporter r = {.stream = acltest_new_stream()};
    atomic_init(&r.stop, false);
    ck_assert_int_eq(pthread_create(&r.thread, NULL, report_loop, &r), 0);
    ACL_OK(aclrtSubscribeReport((uint64_t)r.thread, r.stream));
    assert_child_verdict(in_forked_child(child_launches_callback, NULL, &r));
    atomic_int ran = 0;
    ACL_OK(aclrtLaunchCallback(count_up, &ran, ACL_CALLBACK_BLOCK, r.stream));
    ACL_OK(aclrtSynchronizeStream(r.stream));
    ck_assert_int_eq(atomic_load(&ran), 1);
    ACL_OK(aclrtUnSubscribeReport((uint64_t)r.thread, r.stream));
    atomic_store(&r.stop, true);
    pthread_join(r.thread, NULL);
    ACL_OK(aclrtDestroyStream(r.stream));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("robustness");

    TCase *coverage = tcase_create("coverage");
    tcase_add_test(coverage, api_table_rows_are_well_formed);
    tcase_add_test(coverage, table_covers_implemented_functions);
    tcase_add_test(coverage, compat_suite_calls_every_implemented_function);
    suite_add_tcase(s, coverage);

    TCase *queued = tcase_create("queued work");
    tcase_add_checked_fixture(queued, set_up, tear_down);
    tcase_set_timeout(queued, 60);
    tcase_add_test(queued, bad_calls_keep_queued_work);
    tcase_add_test(queued, context_destroyed_with_work_queued);
    suite_add_tcase(s, queued);

    /* The stream is destroyed while a gate holds it, which times out
     * under compute-sanitizer; the sanitizer run skips the tag. */
    TCase *forced = tcase_create("forced destroy");
    tcase_set_tags(forced, "concurrent");
    tcase_add_checked_fixture(forced, set_up, tear_down);
    tcase_set_timeout(forced, 60);
    tcase_add_test(forced, stream_destroyed_with_work_queued);
    tcase_add_test(forced, new_stream_does_not_inherit_held_work);
    suite_add_tcase(s, forced);

    TCase *exhaustion = tcase_create("exhaustion");
    tcase_set_timeout(exhaustion, 120);
    tcase_add_test(exhaustion, memory_exhausted);
    suite_add_tcase(s, exhaustion);

    TCase *scale = tcase_create("scale");
    tcase_add_checked_fixture(scale, set_up, tear_down);
    tcase_set_timeout(scale, 120);
    tcase_add_test(scale, thousands_of_handles);
    tcase_add_test(scale, many_streams);
    tcase_add_test(scale, many_events_over_many_streams);
    tcase_add_test(scale, unread_error_messages_stay_bounded);
    suite_add_tcase(s, scale);

    TCase *forked = tcase_create("fork");
    tcase_set_tags(forked, "fork"); /* sanitizers that cannot follow a fork skip it */
    tcase_add_checked_fixture(forked, set_up, tear_down);
    tcase_set_timeout(forked, 2 * CHILD_SECONDS + 10);
    tcase_add_test(forked, forked_child_works_or_fails_cleanly);
    tcase_add_test(forked, forked_child_drops_inherited_work);
    tcase_add_test(forked, forked_child_fills_its_own_physical_memory);
    tcase_add_test(forked, forked_child_leaves_shared_notify_records);
    tcase_add_test(forked, forked_child_runs_callbacks_without_the_report_thread);
    tcase_add_test(forked, forked_child_of_an_importer_fills_its_own_copy);
    suite_add_tcase(s, forked);
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--exporter") == 0)
        return exporter_main();
    return acltest_run(suite());
}
