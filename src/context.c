/* Contexts: ACL's per-thread "current context", each context with its own
 * default stream. A thread starts with none. The binding remembers the
 * context's serial as well as its address, so a thread whose context was
 * destroyed elsewhere (a device reset) finds it gone instead of using
 * whatever was allocated at that address since. */
#include <stdlib.h>

#include "internal.h"

static _Thread_local acl_context *thread_context;
static _Thread_local uint64_t thread_context_serial;
static atomic_uint_fast64_t next_serial = 1;

void context_set_current(acl_context *ctx)
{
    thread_context = ctx;
    thread_context_serial = ctx ? ctx->serial : 0;
    if (ctx)
        backend()->make_current(ctx->phys);
}

static acl_context *bound_context(void)
{
    acl_context *ctx = thread_context;
    if (ctx && handle_lookup(ctx, MAGIC_CONTEXT) && ctx->serial == thread_context_serial)
        return ctx;
    thread_context = NULL;
    return NULL;
}

acl_context *context_current(void)
{
    acl_context *ctx = bound_context();
    if (ctx)
        return ctx;
    /* aclInit's defaultDevice stands in for a SetDevice the thread never made. */
    int32_t device = config_default_device();
    if (device >= 0 && aclrtSetDevice(device) == ACL_SUCCESS)
        return bound_context();
    return NULL;
}

aclError context_require(const char *func, acl_context **out)
{
    *out = context_current();
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(func, ACL_ERROR_RT_CONTEXT_NULL,
                     "this thread has no current context: call aclrtSetDevice or "
                     "aclrtSetCurrentContext in it first");
}

aclError context_create(const char *func, int32_t device, int32_t phys, bool is_default,
                        acl_context **out)
{
    acl_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return acl_raise(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    ctx->magic = MAGIC_CONTEXT;
    ctx->serial = atomic_fetch_add(&next_serial, 1);
    ctx->device = device;
    ctx->phys = phys;
    ctx->is_default = is_default;
    aclError err = stream_new(func, ctx, 0, 0, &ctx->default_stream);
    if (err) {
        free(ctx);
        return err;
    }
    if ((err = handle_register(ctx))) {
        stream_free_context(ctx);
        free(ctx);
        return acl_raise(func, err, "out of host memory for the handle table");
    }
    device_link_context(ctx);
    *out = ctx;
    return ACL_SUCCESS;
}

void context_destroy(acl_context *ctx)
{
    handle_unregister(ctx);
    device_unlink_context(ctx);
    stream_free_context(ctx);
    if (thread_context == ctx)
        context_set_current(NULL);
    ctx->magic = 0;
    free(ctx);
}

static acl_context *lookup_context(aclrtContext handle)
{
    return handle_lookup(handle, MAGIC_CONTEXT);
}

ACL_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    int32_t phys;
    if (device_to_phys(deviceId, &phys) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d visible)",
                         (int)deviceId, (int)device_visible_count());
    acl_context *ctx;
    aclError err = context_create(__func__, deviceId, phys, false, &ctx);
    if (err)
        return err;
    context_set_current(ctx);
    *context = ctx;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx = lookup_context(context);
    if (!ctx)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live context", context);
    if (ctx->is_default)
        return ACL_RAISE(ACL_ERROR_RT_CONTEXT_NULL,
                         "the default context of device %d is released by aclrtResetDevice, not destroyed",
                         (int)ctx->device);
    context_destroy(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx = lookup_context(context);
    if (!ctx)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live context", context);
    context_set_current(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    *context = ctx;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    if (!stream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    *stream = ctx->default_stream;
    return ACL_SUCCESS;
}

enum { SYS_PARAM_COUNT = sizeof ((acl_context *)0)->sys_params / sizeof(int64_t) };

ACL_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    pthread_mutex_lock(&registry_lock);
    ctx->sys_params[opt] = value;
    ctx->sys_params_set |= 1u << opt;
    pthread_mutex_unlock(&registry_lock);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    pthread_mutex_lock(&registry_lock);
    bool set = ctx->sys_params_set & (1u << opt);
    *value = ctx->sys_params[opt];
    pthread_mutex_unlock(&registry_lock);
    return set ? ACL_SUCCESS
               : ACL_RAISE(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "option %d was never set in this context", (int)opt);
}
