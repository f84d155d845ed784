/* aclInit / aclFinalize with their reference count, the JSON configuration
 * (parsed with jansson), and the init/finalize callbacks of other modules.
 *
 * The runtime functions (aclrt*) do not require aclInit, as in CANN's newest
 * runtime; aclInit only applies its configuration. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "core/device.h"
#include "core/errors.h"
#include "core/init.h"
#include "core/prof.h"
#include "core/undefined.h"
#include "util/fork.h"
#include "util/log.h"

/* ACL caps configuration nesting at 10 levels of objects and 10 of arrays.
 * CANN documents no size limit for the file; a configuration is a few
 * hundred bytes, and 10 MiB bounds what a wrong path can make us read. */
enum { MAX_JSON_DEPTH = 10, MAX_CALLBACKS = 32, MAX_CONFIG_BYTES = 10 << 20 };

typedef struct init_callback {
    aclRegisterCallbackType type;
    aclInitCallbackFunc fn;
    void *user_data;
} init_callback;

typedef struct finalize_callback {
    aclRegisterCallbackType type;
    aclFinalizeCallbackFunc fn;
    void *user_data;
} finalize_callback;

static pthread_mutex_t init_serial = PTHREAD_MUTEX_INITIALIZER; /* taken before init_lock */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static void fork_prepare(void)
{
    pthread_mutex_lock(&init_serial);
    pthread_mutex_lock(&init_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&init_lock);
    pthread_mutex_unlock(&init_serial);
}

__attribute__((constructor)) static void init_fork_register(void)
{
    fork_register(FORK_RANK_INIT, fork_prepare, fork_done, fork_done);
}
static uint64_t init_count;
static atomic_int default_device = -1;
static init_callback init_callbacks[MAX_CALLBACKS];
static size_t init_callback_count;
static finalize_callback finalize_callbacks[MAX_CALLBACKS];
static size_t finalize_callback_count;

int32_t init_default_device(void)
{
    return atomic_load(&default_device);
}

typedef struct config {
    bool process_errors;
    bool strict; /* "acl_cuda": {"strict": 1}: undefined uses refused (core/undefined.h) */
    int32_t default_device;
    char *text; /* the file as read, handed to init callbacks */
    size_t text_len;
} config;

static bool too_deep(const json_t *v, int objects, int arrays)
{
    if (json_is_object(v)) {
        if (++objects > MAX_JSON_DEPTH)
            return true;
        const char *key;
        json_t *child;
        json_object_foreach((json_t *)v, key,
                            child) if (too_deep(child, objects, arrays)) return true;
    } else if (json_is_array(v)) {
        if (++arrays > MAX_JSON_DEPTH)
            return true;
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) if (too_deep(child, objects, arrays)) return true;
    }
    return false;
}

/* "1" and 1 both mean one: ACL's examples write numbers as strings. */
static bool json_int_like(const json_t *v, long long *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return true;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        long long n = strtoll(s, &end, 10);
        if (*s && !*end && !errno) {
            *out = n;
            return true;
        }
    }
    return false;
}

static aclError read_file(const char *api, const char *path, config *cfg)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return acl_raise(api, ACL_ERROR_INVALID_FILE, "cannot open config file %s: %s", path,
                         strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return acl_raise(api, ACL_ERROR_INVALID_FILE, "config path %s is not a regular file", path);
    }
    if (st.st_size > MAX_CONFIG_BYTES) {
        fclose(f);
        return acl_raise(api, ACL_ERROR_INVALID_FILE_SIZE,
                         "config file %s has %lld bytes; a configuration has at most %d", path,
                         (long long)st.st_size, MAX_CONFIG_BYTES);
    }
    /* Reading one byte more than fstat said tells a file that grew since. */
    size_t size = (size_t)st.st_size;
    char *text = malloc(size + 2);
    size_t len = text ? fread(text, 1, size + 1, f) : 0;
    bool failed = !text || ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        return acl_raise(api, ACL_ERROR_INVALID_FILE, "cannot read config file %s", path);
    }
    if (len > size) {
        free(text);
        return acl_raise(api, ACL_ERROR_INVALID_FILE_SIZE, "config file %s grew while it was read",
                         path);
    }
    text[len] = '\0';
    cfg->text = text;
    cfg->text_len = len;
    return ACL_SUCCESS;
}

/* acl-cuda's own section: {"strict": 0 or 1}. */
static aclError parse_acl_cuda(const char *api, const char *path, const json_t *section,
                               config *cfg)
{
    if (!json_is_object(section))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s: acl_cuda must be an object such as {\"strict\": 1}", path);
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)section, key, value)
    {
        long long n;
        if (!strcmp(key, "strict")) {
            if (!json_int_like(value, &n) || (n != 0 && n != 1))
                return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s: acl_cuda.strict must be 0 or 1",
                                 path);
            cfg->strict = n == 1;
        } else {
            ACL_LOG(LOG_WARNING, "%s: unknown key \"acl_cuda.%s\" ignored", path, key);
        }
    }
    return ACL_SUCCESS;
}

static aclError parse_config(const char *api, const char *path, config *cfg)
{
    aclError err = read_file(api, path, cfg);
    if (err)
        return err;

    json_error_t jerr;
    json_t *root = json_loadb(cfg->text, cfg->text_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return acl_raise(api, ACL_ERROR_PARSE_FILE, "%s:%d:%d: %s", path, jerr.line, jerr.column,
                         jerr.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return acl_raise(api, ACL_ERROR_PARSE_FILE, "%s: the configuration must be a JSON object",
                         path);
    }
    if (too_deep(root, 0, 0)) {
        json_decref(root);
        return acl_raise(api, ACL_ERROR_PARSE_FILE, "%s: nesting deeper than %d levels", path,
                         MAX_JSON_DEPTH);
    }

    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        long long n;
        if (!strcmp(key, "err_msg_mode")) {
            if (!json_int_like(value, &n) || (n != 0 && n != 1)) {
                err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                "%s: err_msg_mode must be \"0\" or \"1\"", path);
                break;
            }
            cfg->process_errors = n == 1;
        } else if (!strcmp(key, "defaultDevice")) {
            json_t *id = json_is_object(value) ? json_object_get(value, "default_device") : NULL;
            if (!id || !json_int_like(id, &n) || n < 0 || n > INT32_MAX) {
                err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                "%s: defaultDevice must be {\"default_device\": \"<id>\"}", path);
                break;
            }
            cfg->default_device = (int32_t)n;
        } else if (!strcmp(key, "max_opqueue_num")) {
            if (!json_int_like(value, &n) || n <= 0) {
                err = acl_raise(api, ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG,
                                "%s: max_opqueue_num must be a positive number", path);
                break;
            }
        } else if (!strcmp(key, "acl_cuda")) {
            err = parse_acl_cuda(api, path, value, cfg);
            if (err)
                break;
        } else if (strcmp(key, "dump") && strcmp(key, "profiler") && strcmp(key, "StackSize") &&
                   strcmp(key, "acl_graph") && strcmp(key, "simt_printf_fifo_size") &&
                   strcmp(key, "simd_printf_fifo_size_per_core")) {
            ACL_LOG(LOG_WARNING, "%s: unknown key \"%s\" ignored", path, key);
        }
        /* dump, profiler and the device stack/printf sizes concern Ascend's
         * operator toolchain: accepted, nothing to apply on this runtime. */
    }
    json_decref(root);
    return err;
}

aclError init_acquire(const char *api, const char *configPath)
{
    config cfg = {.process_errors = false, .default_device = -1};
    if (configPath) {
        aclError err = parse_config(api, configPath, &cfg);
        if (err) {
            free(cfg.text);
            return err;
        }
    }

    /* One aclInit or aclFinalize at a time, so that a first aclInit whose
     * callbacks fail can leave nothing behind. */
    pthread_mutex_lock(&init_serial);
    pthread_mutex_lock(&init_lock);
    bool first = init_count == 0;
    init_callback callbacks[MAX_CALLBACKS];
    size_t callback_count = first ? init_callback_count : 0;
    memcpy(callbacks, init_callbacks, callback_count * sizeof *callbacks);
    if (first) {
        errors_set_process_mode(cfg.process_errors);
        atomic_store(&default_device, cfg.default_device);
        undefined_set_strict_config(cfg.strict);
    }
    pthread_mutex_unlock(&init_lock);

    aclError err = ACL_SUCCESS;
    for (size_t i = 0; i < callback_count && !err; i++) {
        err = callbacks[i].fn(cfg.text ? cfg.text : "", cfg.text_len, callbacks[i].user_data);
        if (err)
            acl_raise(api, err, "the init callback of module %d failed; ACL is not initialised",
                      (int)callbacks[i].type);
    }
    free(cfg.text);
    pthread_mutex_lock(&init_lock);
    if (err) {
        errors_set_process_mode(false);
        atomic_store(&default_device, -1);
        undefined_set_strict_config(false);
    } else {
        init_count++;
    }
    uint64_t count = init_count;
    pthread_mutex_unlock(&init_lock);
    pthread_mutex_unlock(&init_serial);
    if (err)
        return err;
    if (!first)
        return acl_raise(api, ACL_ERROR_REPEAT_INITIALIZE,
                         "aclInit was already called (harmless: the reference count is now %llu)",
                         (unsigned long long)count);
    ACL_LOG(LOG_INFO, "initialised; backend %s", backend()->name);
    prof_environment_start();
    return ACL_SUCCESS;
}

static void teardown(void)
{
    pthread_mutex_lock(&init_lock);
    finalize_callback callbacks[MAX_CALLBACKS];
    size_t count = finalize_callback_count;
    memcpy(callbacks, finalize_callbacks, count * sizeof *callbacks);
    pthread_mutex_unlock(&init_lock);
    for (size_t i = 0; i < count; i++) {
        aclError err = callbacks[i].fn(callbacks[i].user_data);
        if (err)
            ACL_LOG(LOG_WARNING, "finalize callback of module %d returned %d",
                    (int)callbacks[i].type, (int)err);
    }
    device_release_all();
    errors_set_process_mode(false);
    atomic_store(&default_device, -1);
    undefined_set_strict_config(false);
}

aclError init_finalize(const char *api)
{
    pthread_mutex_lock(&init_lock);
    uint64_t was = init_count;
    init_count = 0;
    pthread_mutex_unlock(&init_lock);
    if (was == 0)
        return acl_raise(api, ACL_ERROR_REPEAT_FINALIZE,
                         "aclInit has not been called, or aclFinalize already ran");
    teardown();
    return ACL_SUCCESS;
}

aclError init_finalize_reference(const char *api, uint64_t *refCount)
{
    pthread_mutex_lock(&init_lock);
    uint64_t was = init_count;
    if (was > 0)
        init_count--;
    pthread_mutex_unlock(&init_lock);
    if (was == 0)
        return acl_raise(api, ACL_ERROR_REPEAT_FINALIZE, "no aclInit is left to release");
    if (refCount)
        *refCount = was - 1;
    if (was == 1)
        teardown();
    return ACL_SUCCESS;
}

aclError init_callback_register(const char *api, aclRegisterCallbackType type,
                                aclInitCallbackFunc cbFunc, void *userData)
{
    pthread_mutex_lock(&init_lock);
    aclError err = ACL_SUCCESS;
    if (init_callback_count == MAX_CALLBACKS)
        err = ACL_ERROR_RT_OVER_LIMIT;
    else
        init_callbacks[init_callback_count++] = (init_callback){type, cbFunc, userData};
    pthread_mutex_unlock(&init_lock);
    return err ? acl_raise(api, err, "at most %d init callbacks", MAX_CALLBACKS) : ACL_SUCCESS;
}

aclError init_callback_unregister(const char *api, aclRegisterCallbackType type,
                                  aclInitCallbackFunc cbFunc)
{
    pthread_mutex_lock(&init_lock);
    bool found = false;
    for (size_t i = 0; i < init_callback_count; i++) {
        if (init_callbacks[i].type == type && init_callbacks[i].fn == cbFunc) {
            init_callbacks[i] = init_callbacks[--init_callback_count];
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&init_lock);
    return found ? ACL_SUCCESS
                 : acl_raise(api, ACL_ERROR_INVALID_PARAM, "callback is not registered");
}

aclError finalize_callback_register(const char *api, aclRegisterCallbackType type,
                                    aclFinalizeCallbackFunc cbFunc, void *userData)
{
    pthread_mutex_lock(&init_lock);
    aclError err = ACL_SUCCESS;
    if (finalize_callback_count == MAX_CALLBACKS)
        err = ACL_ERROR_RT_OVER_LIMIT;
    else
        finalize_callbacks[finalize_callback_count++] = (finalize_callback){type, cbFunc, userData};
    pthread_mutex_unlock(&init_lock);
    return err ? acl_raise(api, err, "at most %d finalize callbacks", MAX_CALLBACKS) : ACL_SUCCESS;
}

aclError finalize_callback_unregister(const char *api, aclRegisterCallbackType type,
                                      aclFinalizeCallbackFunc cbFunc)
{
    pthread_mutex_lock(&init_lock);
    bool found = false;
    for (size_t i = 0; i < finalize_callback_count; i++) {
        if (finalize_callbacks[i].type == type && finalize_callbacks[i].fn == cbFunc) {
            finalize_callbacks[i] = finalize_callbacks[--finalize_callback_count];
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&init_lock);
    return found ? ACL_SUCCESS
                 : acl_raise(api, ACL_ERROR_INVALID_PARAM, "callback is not registered");
}
