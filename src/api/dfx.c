/* Logging for applications (base/acl_log.h) on acl-cuda's log (util/log.c),
 * and dumps (acl/acl_dump.h) on core/dump.c: exception information and
 * its paths work; operator dumps are refused (no CANN operators run here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl_dump.h"
#include "api/api.h"
#include "base/acl_log.h"
#include "core/context.h"
#include "core/copy.h"
#include "core/current.h"
#include "core/dump.h"
#include "core/undefined.h"

/* ---- acl_log.h: no error channel but the result (0 / -1) ---------------------------------------- */

ACL_EXPORT int32_t acllogRegisterCallback(acllogRecordCallback callbackFunc, void *userData,
                                          uint32_t outputLogType,
                                          acllogCallbackHandle *callbackHandle)
{
    PROF_API();
    if (!callbackFunc || !callbackHandle || outputLogType >= OUTPUT_TYPE_MAX)
        return -1;
    uintptr_t handle = log_sink_add((log_sink_fn)callbackFunc, userData, outputLogType);
    if (!handle)
        return -1;
    *callbackHandle = handle;
    return 0;
}

ACL_EXPORT int32_t acllogUnregisterCallback(acllogCallbackHandle callback)
{
    PROF_API();
    return log_sink_remove(callback) ? 0 : -1;
}

ACL_EXPORT int32_t acllogCheckDebugLevel(int32_t moduleId, int32_t logLevel)
{
    PROF_API();
    return acl_log_module_enabled(moduleId, logLevel) ? 1 : 0;
}

ACL_EXPORT void acllogVaList(int32_t moduleId, int32_t level, const char *fmt, va_list list)
{
    PROF_API();
    if (!fmt)
        return;
    acl_vlog_module(moduleId, level, fmt, list);
}

ACL_EXPORT void acllogRecord(int32_t moduleId, int32_t level, const char *fmt, ...)
{
    PROF_API();
    if (!fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    acl_vlog_module(moduleId, level, fmt, ap);
    va_end(ap);
}

/* ---- acl_dump.h --------------------------------------------------------------------------------- */

#define OPERATOR_DUMP_REFUSED                                                                      \
    "CANN's dumps record the tensors of its operators; acl-cuda runs no CANN operators (a "        \
    "kernel launched through it is the application's own code, with no tensor descriptions), "     \
    "so CUDA's tools (compute-sanitizer, Nsight Compute) take their place"

ACL_EXPORT aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *,
                                                                        int32_t),
                                       int32_t flag)
{
    PROF_API();
    if (!messageCallback)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "messageCallback is NULL");
    dump_set_callback(messageCallback, flag);
    return ACL_SUCCESS;
}

ACL_EXPORT void acldumpUnregCallback(void)
{
    PROF_API();
    dump_set_callback(NULL, 0);
}

ACL_EXPORT aclError aclopStartDumpArgs(uint32_t dumpType, const char *path)
{
    PROF_API();
    (void)dumpType;
    (void)path;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, OPERATOR_DUMP_REFUSED);
}

ACL_EXPORT aclError aclopStopDumpArgs(uint32_t dumpType)
{
    PROF_API();
    (void)dumpType;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, OPERATOR_DUMP_REFUSED);
}

ACL_EXPORT const char *acldumpGetPath(acldumpType dumpType)
{
    PROF_API();
    switch (dumpType) {
    case AIC_ERR_BRIEF_DUMP:
    case AIC_ERR_NORM_DUMP:
    case AIC_ERR_DETAIL_DUMP:
        return dump_exception_level() == dumpType ? dump_exception_root() : NULL;
    case DATA_DUMP:
    case OVERFLOW_DUMP:
        return NULL; /* operator dumps are never on */
    }
    ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dumpType %d is not an acldumpType", (int)dumpType);
    return NULL;
}

/* The current device's exception directory, raised. */
static aclError exception_dir(const char *api, char *out, size_t max)
{
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    int32_t device = ctx->device;
    context_put(ctx);
    err = dump_exception_dir(device, out, max);
    switch (err) {
    case ACL_SUCCESS:
        return ACL_SUCCESS;
    case ACL_ERROR_DUMP_NOT_RUN:
        return acl_raise(api, err,
                         "exception dumps are off (ASCEND_DUMP_SCENE=lite_exception or "
                         "NPU_COLLECT_PATH turns them on)");
    case ACL_ERROR_INVALID_PARAM:
        return acl_raise(api, err, "the path does not fit in %zu bytes", max);
    default:
        return acl_raise(api, err, "the exception dump directory cannot be made");
    }
}

ACL_EXPORT aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen)
{
    PROF_API();
    if (!path)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "path is NULL");
    if (maxLen == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "maxLen is 0");
    return exception_dir(__func__, path, maxLen);
}

static bool relative_without_parent(const char *name)
{
    if (!*name || name[0] == '/')
        return false;
    for (const char *p = name; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += len;
        while (*p == '/')
            p++;
    }
    return true;
}

enum { DUMP_TENSORS_MAX = 1024, DUMP_TEXT_MAX = 64 * 1024 };

ACL_EXPORT aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                                             const acldumpTensorInfo *tensors, size_t tensorCount)
{
    PROF_API();
    if (!fileName)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "fileName is NULL");
    if (!relative_without_parent(fileName))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "fileName \"%s\" must be a relative path without \"..\"", fileName);
    if (tensorCount > 0 && !tensors)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "tensors is NULL for %zu tensors", tensorCount);
    if (tensorCount > DUMP_TENSORS_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "tensorCount %zu: at most %d", tensorCount,
                         DUMP_TENSORS_MAX);
    for (size_t i = 0; i < tensorCount; i++) {
        const acldumpTensorInfo *t = &tensors[i];
        if (t->addrType != ACL_DUMP_ADDR_RAW || t->placement != ACL_DUMP_PLACEMENT_DEVICE)
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                             "tensor %zu: only ACL_DUMP_ADDR_RAW device tensors can be saved", i);
        if (t->tensorSize && !t->tensorAddr)
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "tensor %zu: tensorAddr is NULL", i);
        if (t->shapeNum > ACL_DUMP_MAX_SHAPE_NUM || t->originShapeNum > ACL_DUMP_MAX_SHAPE_NUM)
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "tensor %zu: more than %d dimensions", i,
                             ACL_DUMP_MAX_SHAPE_NUM);
    }
    char dir[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    aclError err = exception_dir(__func__, dir, sizeof dir);
    if (err)
        return err;
    acl_context *ctx;
    err = current_context_get(__func__, &ctx);
    if (err)
        return err;

    /* A text header, then each tensor's bytes in order. */
    char *text = malloc(DUMP_TEXT_MAX);
    size_t count = 1 + tensorCount;
    const void **parts = calloc(count, sizeof *parts);
    size_t *lens = calloc(count, sizeof *lens);
    if (!text || !parts || !lens) {
        free(text);
        free(parts);
        free(lens);
        context_put(ctx);
        return ACL_RAISE(ACL_ERROR_BAD_ALLOC, "out of memory");
    }
    size_t at = (size_t)snprintf(text, DUMP_TEXT_MAX, "user_tag: %s\ntensors: %zu\n",
                                 userTag ? userTag : "", tensorCount);
    for (size_t i = 0; i < tensorCount && !err; i++) {
        const acldumpTensorInfo *t = &tensors[i];
        if (at < DUMP_TEXT_MAX)
            at += (size_t)snprintf(text + at, DUMP_TEXT_MAX - at,
                                   "tensor %zu: type %d format %d data_type %d bytes %zu shape", i,
                                   (int)t->type, (int)t->format, (int)t->dataType, t->tensorSize);
        for (uint32_t d = 0; d < t->shapeNum && at < DUMP_TEXT_MAX; d++)
            at += (size_t)snprintf(text + at, DUMP_TEXT_MAX - at, " %llu",
                                   (unsigned long long)t->shape[d]);
        if (at < DUMP_TEXT_MAX)
            at += (size_t)snprintf(text + at, DUMP_TEXT_MAX - at, "\n");
        void *host = t->tensorSize ? malloc(t->tensorSize) : NULL;
        if (t->tensorSize && !host)
            err = ACL_RAISE(ACL_ERROR_BAD_ALLOC, "out of memory for tensor %zu", i);
        else if (t->tensorSize)
            err = copy_sync(__func__, CALL_SITE(), ctx, host, t->tensorAddr, t->tensorSize,
                            ACL_MEMCPY_DEVICE_TO_HOST);
        parts[1 + i] = host;
        lens[1 + i] = t->tensorSize;
    }
    context_put(ctx);
    parts[0] = text;
    lens[0] = at < DUMP_TEXT_MAX ? at : DUMP_TEXT_MAX - 1;
    if (!err) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        char path[2 * ACL_DUMP_MAX_FILE_PATH_LENGTH];
        snprintf(path, sizeof path, "%s%s.custom.%lld", dir, fileName,
                 (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
        if (dump_write(path, parts, lens, count) != ACL_SUCCESS)
            err = ACL_RAISE(ACL_ERROR_FAILURE, "%s cannot be written", path);
    }
    for (size_t i = 0; i < count; i++)
        free((void *)parts[i]);
    free(parts);
    free(lens);
    return err;
}
