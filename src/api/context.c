/* Contexts (acl_rt.h): ACL's per-thread current context, each context
 * with its own default stream. */
#include "api/api.h"
#include "core/current.h"
#include "core/device.h"

ACL_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    PROF_API();
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx;
    aclError err = device_context_create(__func__, deviceId, &ctx);
    if (err)
        return err;
    current_bind(ctx);
    *context = handle_of(&ctx->obj);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    PROF_API();
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx = context_get_handle(context);
    if (!ctx)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live context", context);
    if (ctx->is_default) {
        int32_t device = ctx->device;
        context_put(ctx);
        return ACL_RAISE(
            ACL_ERROR_RT_CONTEXT_NULL,
            "the default context of device %d is released by aclrtResetDevice, not destroyed",
            (int)device);
    }
    bool held = context_hold(ctx); /* the teardown waits: no borrow then */
    context_put(ctx);
    if (!held || !object_take(&ctx->obj)) {
        if (held)
            context_release(ctx);
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is being destroyed by another thread",
                         context);
    }
    device_context_destroy(ctx);
    context_release(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    PROF_API();
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx = context_get_handle(context);
    if (!ctx)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live context", context);
    current_bind(ctx);
    context_put(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    PROF_API();
    if (!context)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "context is NULL");
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    *context = handle_of(&ctx->obj);
    context_put(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    PROF_API();
    if (!stream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    *stream = ctx->default_handle;
    context_put(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    PROF_API();
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    context_set_param(ctx, (int)opt, value);
    context_put(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    bool set = context_get_param(ctx, (int)opt, value);
    context_put(ctx);
    return set ? ACL_SUCCESS
               : ACL_RAISE(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
                           "option %d was never set in this context", (int)opt);
}

ACL_EXPORT aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    PROF_API();
    if (!active)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "active is NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    if (flags)
        *flags = 0; /* reserved */
    *active = device_primary_active(phys);
    return ACL_SUCCESS;
}

/* Refused as the rest of the overflow family (api/device.c): a GPU keeps no
 * floating-point overflow status, so there is no address to give. */
ACL_EXPORT aclError aclrtCtxGetFloatOverflowAddr(void **overflowAddr)
{
    PROF_API();
    (void)overflowAddr;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "a GPU keeps no floating-point overflow status: overflow gives inf or NaN "
                     "in the results (INFNAN mode)");
}
