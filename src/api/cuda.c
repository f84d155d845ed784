/* acl-cuda's own extensions (acl/acl_cuda.h). */
#include "acl/acl_cuda.h"
#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/event.h"
#include "core/kernel.h"

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

/* ---- the launch shape of a kernel (acl_cuda.h) ---- */

ACL_EXPORT aclError aclcudaFunctionSetBlockDim(aclrtFuncHandle funcHandle, uint32_t blockDimX,
                                               uint32_t blockDimY, uint32_t blockDimZ,
                                               size_t dynamicSharedBytes)
{
    bool reset = !blockDimX && !blockDimY && !blockDimZ;
    if (!reset && (!blockDimX || !blockDimY || !blockDimZ || blockDimX > 0x1fffff ||
                   blockDimY > 0x1fffff || blockDimZ > 0x1fffff))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "block %u x %u x %u: each dimension must be 1 or more (0 x 0 x 0 "
                         "restores the default)",
                         blockDimX, blockDimY, blockDimZ);
    if (dynamicSharedBytes > UINT32_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%zu bytes of dynamic shared memory",
                         dynamicSharedBytes);
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    function_set_block(f, blockDimX, blockDimY, blockDimZ, reset ? 0 : dynamicSharedBytes);
    function_put(f);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclcudaFunctionGetBlockDim(aclrtFuncHandle funcHandle, uint32_t *blockDimX,
                                               uint32_t *blockDimY, uint32_t *blockDimZ,
                                               size_t *dynamicSharedBytes)
{
    if (!blockDimX || !blockDimY || !blockDimZ || !dynamicSharedBytes)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "an output pointer is NULL");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    uint32_t block[3];
    function_get_block(f, block, dynamicSharedBytes);
    *blockDimX = block[0];
    *blockDimY = block[1];
    *blockDimZ = block[2];
    function_put(f);
    return ACL_SUCCESS;
}
