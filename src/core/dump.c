/* Exception dumps: directories, files and the callback that replaces them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/dump.h"
#include "core/errors.h"
#include "util/log.h"

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t (*dump_callback)(const acldumpChunk *, int32_t);
static int32_t dump_flag;

static const char *env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

acldumpType dump_exception_level(void)
{
    const char *scene = env_set("ASCEND_DUMP_SCENE");
    if (scene) {
        if (!strcmp(scene, "lite_exception") || !strcmp(scene, "aic_err_brief_dump"))
            return AIC_ERR_BRIEF_DUMP;
        if (!strcmp(scene, "aic_err_norm_dump"))
            return AIC_ERR_NORM_DUMP;
        if (!strcmp(scene, "aic_err_detail_dump"))
            return AIC_ERR_DETAIL_DUMP;
    }
    return env_set("NPU_COLLECT_PATH") ? AIC_ERR_BRIEF_DUMP : (acldumpType)0;
}

const char *dump_exception_root(void)
{
    if (!dump_exception_level())
        return NULL;
    const char *dir = env_set("ASCEND_DUMP_PATH");
    if (!dir)
        dir = env_set("ASCEND_WORK_PATH");
    if (!dir)
        dir = env_set("NPU_COLLECT_PATH");
    return dir ? dir : ".";
}

static bool make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        bool ok = mkdir(path, 0750) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return false;
    }
    return mkdir(path, 0750) == 0 || errno == EEXIST;
}

aclError dump_exception_dir(int32_t device, char *out, size_t max)
{
    const char *root = dump_exception_root();
    if (!root)
        return ACL_ERROR_DUMP_NOT_RUN;
    int n = snprintf(out, max, "%s/extra-info/data-dump/%d/", root, (int)device);
    if (n < 0 || (size_t)n >= max)
        return ACL_ERROR_INVALID_PARAM;
    return make_dirs(out) ? ACL_SUCCESS : ACL_ERROR_FAILURE;
}

void dump_set_callback(int32_t (*fn)(const acldumpChunk *, int32_t), int32_t flag)
{
    pthread_mutex_lock(&dump_lock);
    dump_callback = fn;
    dump_flag = flag;
    pthread_mutex_unlock(&dump_lock);
}

/* The parts as one chunk to the callback. */
static aclError give_to_callback(int32_t (*fn)(const acldumpChunk *, int32_t), int32_t flag,
                                 const char *path, const void *const *parts, const size_t *lens,
                                 size_t count)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += lens[i];
    if (total > UINT32_MAX)
        return ACL_ERROR_INVALID_PARAM;
    acldumpChunk *chunk = malloc(sizeof *chunk + total);
    if (!chunk)
        return ACL_ERROR_BAD_ALLOC;
    memset(chunk, 0, sizeof *chunk);
    char absolute[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    int n;
    if (path[0] != '/' && getcwd(absolute, sizeof absolute))
        n = snprintf(chunk->fileName, sizeof chunk->fileName, "%s/%s", absolute, path);
    else
        n = snprintf(chunk->fileName, sizeof chunk->fileName, "%s", path);
    if (n < 0 || (size_t)n >= sizeof chunk->fileName) {
        free(chunk);
        return ACL_ERROR_INVALID_PARAM;
    }
    chunk->bufLen = (uint32_t)total;
    chunk->isLastChunk = 1;
    chunk->offset = 0;
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        memcpy(chunk->dataBuf + at, parts[i], lens[i]);
        at += lens[i];
    }
    int32_t ret = fn(chunk, (int32_t)(sizeof *chunk + total));
    (void)flag;
    free(chunk);
    return ret == 0 ? ACL_SUCCESS : ACL_ERROR_FAILURE;
}

aclError dump_write(const char *path, const void *const *parts, const size_t *lens, size_t count)
{
    pthread_mutex_lock(&dump_lock);
    int32_t (*fn)(const acldumpChunk *, int32_t) = dump_callback;
    int32_t flag = dump_flag;
    pthread_mutex_unlock(&dump_lock);
    if (fn)
        return give_to_callback(fn, flag, path, parts, lens, count);
    FILE *f = fopen(path, "wb");
    if (!f)
        return ACL_ERROR_FAILURE;
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++)
        ok = fwrite(parts[i], 1, lens[i], f) == lens[i];
    return fclose(f) == 0 && ok ? ACL_SUCCESS : ACL_ERROR_FAILURE;
}

void dump_device_fault(int32_t device, int32_t stream_id, uint32_t task_id, aclError code)
{
    char dir[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    if (dump_exception_dir(device, dir, sizeof dir) != ACL_SUCCESS)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    char path[ACL_DUMP_MAX_FILE_PATH_LENGTH + 64];
    snprintf(path, sizeof path, "%sexception_info.%d.%lld", dir, (int)getpid(), ms);
    char text[512];
    int n = snprintf(text, sizeof text,
                     "device: %d\nstream: %d\ntask: %u\nerror: %d %s\ntime_ms: %lld\npid: %d\n",
                     (int)device, (int)stream_id, task_id, (int)code, acl_error_name(code), ms,
                     (int)getpid());
    const void *parts[] = {text};
    size_t lens[] = {n < 0 ? 0 : (size_t)n};
    if (dump_write(path, parts, lens, 1) == ACL_SUCCESS)
        ACL_LOG(LOG_ERROR, "exception information written to %s", path);
    else
        ACL_LOG(LOG_ERROR, "cannot write exception information to %s", path);
}
