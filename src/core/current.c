/* The binding keeps the context's handle and its default stream's handle,
 * not addresses: a thread whose context was destroyed elsewhere (a device
 * reset) finds the lookups failing instead of using whatever was allocated
 * at that address since. */
#include "core/current.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/init.h"

static _Thread_local aclrtContext bound_context;
static _Thread_local aclrtStream bound_default_stream;

void current_bind(acl_context *ctx)
{
    bound_context = ctx ? handle_of(&ctx->obj) : NULL;
    bound_default_stream = ctx ? ctx->default_handle : NULL;
    if (ctx)
        (void)backend()->device->make_current(ctx->phys);
}

acl_context *current_context(void)
{
    acl_context *ctx = bound_context ? context_get_handle(bound_context) : NULL;
    if (ctx)
        return ctx;
    bound_context = bound_default_stream = NULL;
    int32_t device = init_default_device();
    if (device < 0 || device_retain("aclInit's defaultDevice", device, &ctx) != ACL_SUCCESS)
        return NULL;
    current_bind(ctx);
    acl_context *borrowed = context_get_handle(bound_context);
    context_release(ctx);
    return borrowed;
}

aclError current_context_get(const char *api, acl_context **out)
{
    *out = current_context();
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_CONTEXT_NULL,
                     "this thread has no current context: call aclrtSetDevice or "
                     "aclrtSetCurrentContext in it first");
}

aclError current_default_stream_get(const char *api, acl_stream **out)
{
    /* The default stream's own handle first: no context lookup needed. */
    if (bound_default_stream) {
        *out = (acl_stream *)handle_get(bound_default_stream, HANDLE_STREAM);
        if (*out)
            return ACL_SUCCESS;
    }
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    *out = (acl_stream *)handle_get(ctx->default_handle, HANDLE_STREAM);
    context_put(ctx);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_CONTEXT_NULL, "the current context is being destroyed");
}
