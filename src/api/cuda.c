/* acl-cuda's own extensions (acl/acl_cuda.h). */
#include "acl/acl_cuda.h"
#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/event.h"

ACL_EXPORT const char *aclcudaGetBackendName(void)
{
    return backend()->name;
}

ACL_EXPORT aclError aclcudaGetNativeStream(aclrtStream stream, void **native)
{
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *native = stream_native(s);
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclcudaGetNativeEvent(aclrtEvent event, void **native)
{
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    acl_event *e;
    aclError err = event_get(__func__, event, &e);
    if (err)
        return err;
    *native = event_native(e);
    event_put(e);
    return ACL_SUCCESS;
}

/* ---- waits in slices -------------------------------------------------------------- */

ACL_EXPORT aclError aclcudaSynchronizeStreamSlice(aclrtStream stream, int32_t sliceMs)
{
    if (sliceMs < 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "sliceMs %d must be >= 0", (int)sliceMs);
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = stream_synchronize(s, sliceMs);
    if (err && err != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        ACL_RAISE(err, "waiting for stream %d failed", (int)s->id);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclcudaSynchronizeEventSlice(aclrtEvent event, int32_t sliceMs)
{
    if (sliceMs < 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "sliceMs %d must be >= 0", (int)sliceMs);
    acl_event *e;
    aclError err = event_get(__func__, event, &e);
    if (err)
        return err;
    err = event_synchronize(e, sliceMs);
    if (err && err != ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        ACL_RAISE(err, "waiting for event %u failed", e->id);
    event_put(e);
    return err;
}

ACL_EXPORT aclError aclcudaSynchronizeDeviceSlice(int32_t sliceMs)
{
    if (sliceMs < 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "sliceMs %d must be >= 0", (int)sliceMs);
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    int32_t phys = ctx->phys, device = ctx->device;
    context_put(ctx);
    err = device_synchronize(phys, sliceMs);
    if (err && err != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        ACL_RAISE(err, "waiting for device %d failed", (int)device);
    return err;
}
