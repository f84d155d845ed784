/* aclInit / aclFinalize / aclFinalizeReference, the aclInit JSON config,
 * aclrtGetVersion, and the bad-argument rows of the init functions. Every
 * test starts in a fresh process (forked), so each one sees the library
 * uninitialised. */
#include <errno.h>
#include <unistd.h>

#include "bad_args.h"

/* Writes text to a new temporary file and returns its path (free() it). */
static char *write_temp_file(const char *text)
{
    const char *dir = getenv("TMPDIR");
    char *path = NULL;
    ck_assert_int_ge(asprintf(&path, "%s/acltest-init-XXXXXX", dir && *dir ? dir : "/tmp"), 0);
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp(%s): %s", path, strerror(errno));
    size_t len = strlen(text);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* aclInit with the given JSON text as its config file. */
static aclError init_with_config(const char *json)
{
    char *path = write_temp_file(json);
    aclError ret = aclInit(path);
    unlink(path);
    free(path);
    return ret;
}

COMPAT_TEST(init_null_config,
            "aclInit(NULL) initialises with the default configuration and aclFinalize tears it down",
            "acl_rt.h aclInit, aclFinalize; API ref aclInit: configPath may be NULL")
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclFinalize());
}

COMPAT_TEST(second_init_reports_repeat,
            "a second aclInit returns ACL_ERROR_REPEAT_INITIALIZE (100002), which may be ignored: the library stays initialised",
            "API ref aclInit: repeated initialisation")
{
    ACL_OK(aclInit(NULL));
    /* Documented as ignorable: the library stays initialised. */
    ck_assert_int_eq(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    ck_assert_int_eq(ACL_ERROR_REPEAT_INITIALIZE, 100002);
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ACL_OK(aclFinalize());
}

COMPAT_TEST(double_finalize_fails,
            "a second aclFinalize returns ACL_ERROR_REPEAT_FINALIZE (100037)",
            "API ref aclFinalize; acl_base_rt.h ACL_ERROR_REPEAT_FINALIZE")
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclFinalize());
    ACL_FAILS_WITH(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

COMPAT_TEST(finalize_tears_down_all_references,
            "aclFinalize de-initialises at once however many aclInit calls preceded it",
            "API ref aclFinalize vs aclFinalizeReference")
{
    /* aclFinalize zeroes the init count at once, however many inits. */
    ACL_OK(aclInit(NULL));
    ck_assert_int_eq(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    ACL_OK(aclFinalize());
    ACL_FAILS_WITH(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

COMPAT_TEST(init_again_after_finalize,
            "init -> work -> finalize may repeat in one process",
            "API ref aclInit: init/finalize/init sequences are allowed")
{
    for (int round = 0; round < 3; round++) {
        ACL_OK(aclInit(NULL));
        ACL_OK(aclrtSetDevice(0));
        aclrtStream stream = NULL;
        ACL_OK(aclrtCreateStream(&stream));
        ACL_OK(aclrtSynchronizeStream(stream));
        ACL_OK(aclrtDestroyStream(stream));
        ACL_OK(aclrtResetDevice(0));
        ACL_OK(aclFinalize());
    }
}

COMPAT_TEST(finalize_reference_counts_down,
            "aclFinalizeReference decrements the init count, reports what is left and de-initialises at 0; one more returns ACL_ERROR_REPEAT_FINALIZE",
            "acl_rt.h aclFinalizeReference; API ref aclFinalizeReference")
{
    ACL_OK(aclInit(NULL));
    ck_assert_int_eq(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    uint64_t refs = 99;
    ACL_OK(aclFinalizeReference(&refs));
    ck_assert_uint_eq(refs, 1);
    /* Still initialised with one reference left. */
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    ACL_OK(aclFinalizeReference(&refs));
    ck_assert_uint_eq(refs, 0);
    ACL_FAILS_WITH(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
    ACL_FAILS_WITH(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    /* A full teardown allows a new init. */
    ACL_OK(aclInit(NULL));
    ACL_OK(aclFinalize());
}

COMPAT_TEST(finalize_reference_accepts_null_count,
            "aclFinalizeReference accepts a NULL refCount",
            "API ref aclFinalizeReference: refCount may be NULL")
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclFinalizeReference(NULL));
    ACL_FAILS_WITH(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

COMPAT_TEST(config_empty_object,
            "aclInit accepts a JSON file holding {} (all defaults)",
            "API ref aclInit: configuration file")
{
    ACL_OK(init_with_config("{}"));
    ACL_OK(aclFinalize());
}

/* Each documented top-level key, alone and all together. */
static const char *const documented_configs[] = {
    "{\"dump\": {\"dump_path\": \"/tmp\", \"dump_mode\": \"output\", \"dump_op_switch\": \"off\","
    " \"dump_list\": []}}",
    "{\"profiler\": {\"switch\": \"off\"}}",
    "{\"max_opqueue_num\": \"20000\"}",
    "{\"err_msg_mode\": \"0\"}",
    "{\"err_msg_mode\": \"1\"}",
    "{\"defaultDevice\": {\"default_device\": \"0\"}}",
    "{\"StackSize\": {\"aicore_stack_size\": 32768}}",
    "{\"dump\": {\"dump_op_switch\": \"off\", \"dump_list\": []},"
    " \"profiler\": {\"switch\": \"off\"},"
    " \"max_opqueue_num\": \"10000\","
    " \"err_msg_mode\": \"0\","
    " \"defaultDevice\": {\"default_device\": \"0\"},"
    " \"StackSize\": {\"aicore_stack_size\": 65536}}",
};

COMPAT_TEST(config_documented_keys,
            "aclInit accepts each documented top-level key (dump, profiler, max_opqueue_num, err_msg_mode, defaultDevice, StackSize), alone and together",
            "API ref aclInit: configuration file keys")
{
    const char *json = documented_configs[_i];
    aclError ret = init_with_config(json);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_msg(ret == ACL_SUCCESS, "aclInit(%s) returned %d: %s", json, ret,
                  msg ? msg : "(no message)");
    ACL_OK(aclFinalize());
}

COMPAT_TEST(config_missing_file,
            "aclInit with a path that does not exist returns ACL_ERROR_INVALID_FILE (100003)",
            "acl_base_rt.h ACL_ERROR_INVALID_FILE; API ref aclInit")
{
    ACL_FAILS_WITH(aclInit("/nonexistent/acltest/no-such-config.json"), ACL_ERROR_INVALID_FILE);
}

COMPAT_TEST(config_path_is_directory,
            "aclInit with a directory for its config path returns ACL_ERROR_INVALID_FILE",
            "acl_base_rt.h ACL_ERROR_INVALID_FILE; API ref aclInit")
{
    char dir[] = "/tmp/acltest-dir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    aclError ret = aclInit(dir);
    rmdir(dir);
    ck_assert_int_eq(ret, ACL_ERROR_INVALID_FILE);
    ck_assert_ptr_nonnull(aclGetRecentErrMsg());
}

COMPAT_TEST(config_malformed_json,
            "aclInit with malformed JSON returns ACL_ERROR_PARSE_FILE (100006)",
            "acl_base_rt.h ACL_ERROR_PARSE_FILE; API ref aclInit")
{
    ACL_FAILS_WITH(init_with_config("{\"err_msg_mode\": \"0\""), ACL_ERROR_PARSE_FILE);
}

COMPAT_TEST(config_bad_err_msg_mode,
            "an err_msg_mode other than \"0\" or \"1\" is refused with ACL_ERROR_INVALID_PARAM",
            "API ref aclInit: err_msg_mode; [impl] hicann/runtime")
{
    ACL_FAILS_WITH(init_with_config("{\"err_msg_mode\": \"2\"}"), ACL_ERROR_INVALID_PARAM);
}

typedef struct default_device_probe {
    aclError get_device;
    int32_t device;
    aclError create_stream;
    aclError destroy_stream;
} default_device_probe;

static void *probe_default_device(void *arg)
{
    default_device_probe *p = arg;
    p->device = -1;
    p->get_device = aclrtGetDevice(&p->device);
    aclrtStream stream = NULL;
    p->create_stream = aclrtCreateStream(&stream);
    p->destroy_stream = p->create_stream == ACL_SUCCESS ? aclrtDestroyStream(stream) : -1;
    return NULL;
}

COMPAT_TEST(config_default_device,
            "with defaultDevice configured, a thread that never set a device works on that device",
            "API ref aclInit: defaultDevice; aclrtGetDevice")
{
    ACL_OK(init_with_config("{\"defaultDevice\": {\"default_device\": \"0\"}}"));
    default_device_probe probe;
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, probe_default_device, &probe), 0);
    pthread_join(thread, NULL);
    ck_assert_int_eq(probe.get_device, ACL_SUCCESS);
    ck_assert_int_eq(probe.device, 0);
    ck_assert_int_eq(probe.create_stream, ACL_SUCCESS);
    ck_assert_int_eq(probe.destroy_stream, ACL_SUCCESS);
    ACL_OK(aclFinalize());
}

/* aclrtGetVersion is deprecated in the newest headers but still part of the API. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
COMPAT_TEST(version_matches_macros,
            "aclrtGetVersion reports the ACL_MAJOR/MINOR/PATCH_VERSION the headers carry",
            "acl_rt.h aclrtGetVersion (deprecated, still declared)")
{
    ACL_OK(aclInit(NULL));
    int32_t major = -1, minor = -1, patch = -1;
    ACL_OK(aclrtGetVersion(&major, &minor, &patch));
    ck_assert_int_eq(major, ACL_MAJOR_VERSION);
    ck_assert_int_eq(minor, ACL_MINOR_VERSION);
    ck_assert_int_eq(patch, ACL_PATCH_VERSION);
    ACL_FAILS_WITH(aclrtGetVersion(NULL, &minor, &patch), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetVersion(&major, NULL, &patch), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetVersion(&major, &minor, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclFinalize());
}
#pragma GCC diagnostic pop

/* ---- bad arguments ------------------------------------------------------------------ */

static aclError init_callback(const char *config, size_t len, void *user)
{
    (void)config;
    (void)len;
    (void)user;
    return ACL_SUCCESS;
}

static aclError finalize_callback(void *user)
{
    (void)user;
    return ACL_SUCCESS;
}

static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

ROW(aclInit)
{
    /* NULL is "no configuration"; bad paths fail before the reference count
     * moves, so the fixture's aclFinalize still balances. */
    char dir_path[512], junk_path[512];
    snprintf(dir_path, sizeof dir_path, "%s", temp_dir());
    snprintf(junk_path, sizeof junk_path, "%s/acl-robustness-XXXXXX", temp_dir());
    int fd = mkstemp(junk_path);
    ck_assert_int_ge(fd, 0);
    unsigned char junk[COMPAT_GARBAGE];
    compat_fill_random(junk, sizeof junk, 0x5eed0004);
    ck_assert_int_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    REJECTS(aclInit(""), ACL_ERROR_INVALID_FILE, "an empty path");
    REJECTS(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE, "a missing file");
    REJECTS(aclInit(dir_path), ACL_ERROR_INVALID_FILE, "a directory");
    REJECTS(aclInit(junk_path), ACL_ERROR_PARSE_FILE, "a file of random bytes");
    unlink(junk_path);
}

ROW(aclInitCallbackRegister)
{
    REJECTS(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclInitCallbackUnRegister)
{
    REJECTS(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
    REJECTS(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_callback), ACL_ERROR_INVALID_PARAM,
            "a function never registered");
}

ROW(aclFinalizeCallbackRegister)
{
    REJECTS(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclFinalizeCallbackUnRegister)
{
    REJECTS(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
    REJECTS(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, finalize_callback),
            ACL_ERROR_INVALID_PARAM, "a function never registered");
}

ROW(aclFinalizeReference)
{
    /* refCount may be NULL. One extra reference is taken so that the
     * library is not torn down under the fixture. */
    ck_assert_int_eq(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    ACL_OK(aclFinalizeReference(NULL));
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtDestroyStream(s));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclInit),
    COMPAT_ROW(aclInitCallbackRegister),
    COMPAT_ROW(aclInitCallbackUnRegister),
    COMPAT_ROW(aclFinalizeCallbackRegister),
    COMPAT_ROW(aclFinalizeCallbackUnRegister),
    COMPAT_ROW(aclFinalizeReference),
};
COMPAT_BAD_ARGS(init, rows);

Suite *compat_suite_init(void);
Suite *compat_suite_init(void)
{
    Suite *s = suite_create("init");

    TCase *lifecycle = tcase_create("lifecycle");
    tcase_add_test(lifecycle, init_null_config);
    tcase_add_test(lifecycle, second_init_reports_repeat);
    tcase_add_test(lifecycle, double_finalize_fails);
    tcase_add_test(lifecycle, finalize_tears_down_all_references);
    tcase_add_test(lifecycle, init_again_after_finalize);
    tcase_add_test(lifecycle, finalize_reference_counts_down);
    tcase_add_test(lifecycle, finalize_reference_accepts_null_count);
    suite_add_tcase(s, lifecycle);

    TCase *config = tcase_create("config");
    tcase_add_test(config, config_empty_object);
    tcase_add_loop_test(config, config_documented_keys, 0,
                        (int)(sizeof documented_configs / sizeof documented_configs[0]));
    tcase_add_test(config, config_missing_file);
    tcase_add_test(config, config_path_is_directory);
    tcase_add_test(config, config_malformed_json);
    tcase_add_test(config, config_bad_err_msg_mode);
    tcase_add_test(config, config_default_device);
    suite_add_tcase(s, config);

    TCase *version = tcase_create("version");
    tcase_add_test(version, version_matches_macros);
    suite_add_tcase(s, version);

    compat_add_bad_args(s, &compat_rows_init);
    return s;
}

COMPAT_MAIN(init)
