/* acl-cuda's own extensions (acl/acl_cuda.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

#include "acl/acl_cuda.h"
#include "api/api.h"
#include "core/callback.h"
#include "core/current.h"
#include "core/device.h"
#include "core/event.h"
#include "core/sink.h"
#include "core/kernel.h"

ACL_EXPORT const char *aclcudaGetBackendName(void)
{
    PROF_API();
    return backend()->name;
}

/* The CUDA stream behind stream and, where native_device is set, the CUDA
 * ordinal of its device. */
static aclError native_stream_of(const char *api, aclrtStream stream, void **native,
                                 int32_t *native_device)
{
    acl_stream *s;
    aclError err = current_stream_get(api, stream, &s);
    if (err)
        return err;
    *native = stream_native(s);
    if (native_device)
        *native_device = s->ctx->phys;
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclcudaGetNativeStream(aclrtStream stream, void **native)
{
    PROF_API();
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    return native_stream_of(__func__, stream, native, NULL);
}

ACL_EXPORT aclError aclcudaGetNativeStreamDevice(aclrtStream stream, void **native,
                                                 int32_t *nativeDevice)
{
    PROF_API();
    if (!native || !nativeDevice)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", native ? "nativeDevice" : "native");
    return native_stream_of(__func__, stream, native, nativeDevice);
}

ACL_EXPORT aclError aclcudaGetNativeEvent(aclrtEvent event, void **native)
{
    PROF_API();
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

/* ---- native handles into ACL (interop) -------------------------------------------- */

ACL_EXPORT aclError aclcudaStreamFromNative(void *native, aclrtStream *stream)
{
    PROF_API();
    if (!stream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (!backend()->stream->adopt)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend has no native streams to wrap", backend()->name);
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    acl_stream *s;
    int32_t native_dev;
    err = stream_adopt(ctx, native, &s, &native_dev);
    int32_t device = ctx->device, phys = ctx->phys;
    context_put(ctx);
    switch (err) {
    case ACL_SUCCESS:
        *stream = handle_of(&s->obj);
        stream_put(s);
        return ACL_SUCCESS;
    case ACL_ERROR_RT_STREAM_CONTEXT:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "native stream %p belongs to %s device %d, the current context to device "
                         "%d (%s device %d)",
                         native, backend()->name, (int)native_dev, (int)device, backend()->name,
                         (int)phys);
    case ACL_ERROR_RT_PARAM_INVALID:
    case ACL_ERROR_RT_INVALID_HANDLE:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live native stream: %s", native,
                         acl_error_text(err));
    case ACL_ERROR_RT_NO_STREAM_RESOURCE:
        return ACL_RAISE(err, "as many streams as acl-cuda allows are live already");
    case ACL_ERROR_RT_CONTEXT_NULL:
        return ACL_RAISE(err, "the current context is being destroyed");
    default:
        return ACL_RAISE(err, "wrapping native stream %p on device %d failed: %s", native,
                         (int)device, acl_error_text(err));
    }
}

ACL_EXPORT aclError aclcudaEventFromNative(void *native, aclrtEvent *event)
{
    PROF_API();
    if (!event)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "event is NULL");
    if (!backend()->event->adopt)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend has no native events to wrap", backend()->name);
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    acl_event *e;
    err = event_adopt(__func__, ctx, native, &e);
    context_put(ctx);
    if (!err)
        *event = handle_of(&e->obj);
    return err;
}

ACL_EXPORT aclError aclcudaGetNativeDevice(int32_t deviceId, int32_t *nativeDevice)
{
    PROF_API();
    if (!nativeDevice)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "nativeDevice is NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (!err)
        *nativeDevice = phys;
    return err;
}

ACL_EXPORT aclError aclcudaStreamGetDevice(aclrtStream stream, int32_t *deviceId)
{
    PROF_API();
    if (!deviceId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceId is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *deviceId = s->ctx->device;
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclcudaCaptureKeep(aclrtStream stream, void *ptr, void (*release)(void *ptr))
{
    PROF_API();
    if (!release)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "release is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = sink_keep(s, ptr, release);
    if (err == ACL_ERROR_RT_STREAM_NOT_CAPTURED)
        err = ACL_RAISE(err, "stream %d is not being captured", (int)s->id);
    else if (err)
        err = ACL_RAISE(err, "keeping %p with the capture of stream %d failed: %s", ptr, (int)s->id,
                        acl_error_text(err));
    stream_put(s);
    return err;
}

/* As aclrtLaunchHostFunc (api/callback.c), the task marked for any thread. */
ACL_EXPORT aclError aclcudaLaunchHostFuncAnyThread(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    PROF_API();
    acl_stream *s;
    aclError ret = current_stream_get(__func__, stream, &s);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!fn)
        ret = ACL_RAISE(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    else
        ret = callback_launch_host_func(__func__, s, fn, args, true);
    stream_put(s);
    return ret;
}

/* ---- waits in slices -------------------------------------------------------------- */

ACL_EXPORT aclError aclcudaSynchronizeStreamSlice(aclrtStream stream, int32_t sliceMs)
{
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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
    PROF_API();
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

/* ---- DLPack capsules -----------------------------------------------------------------
 * A capsule's destructor may run while an exception is pending: a consumer
 * that refuses a tensor (numpy with bfloat16, say) raises, then drops the
 * capsule. Python code run from there would find that exception, so the
 * destructor is C: it sets the exception aside while the tensor's deleter,
 * which may be Python (the acl package's), runs, then puts it back. The
 * Python functions it needs are looked up in the process, where every
 * capsule comes from; nothing here links against Python. */

/* The leading members of DLPack's managed tensors (dlpack.h, ABI 0.x and
 * 1.x), as far as the deleter. */
typedef struct dl_tensor {
    void *data;
    int32_t device_type, device_id;
    int32_t ndim;
    uint8_t code, bits;
    uint16_t lanes;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed {
    dl_tensor tensor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed *self);
} dl_managed;

typedef struct dl_managed_versioned {
    uint32_t major, minor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed_versioned *self);
} dl_managed_versioned;

/* CPython's stable ABI, by the types of its arguments. */
typedef struct python_api {
    int (*capsule_is_valid)(void *capsule, const char *name);
    void *(*capsule_pointer)(void *capsule, const char *name);
    void (*err_fetch)(void **type, void **value, void **traceback);
    void (*err_restore)(void *type, void *value, void *traceback);
} python_api;

static python_api python;
static pthread_once_t python_once = PTHREAD_ONCE_INIT;

static void python_find(void)
{
    python_api found;
    *(void **)&found.capsule_is_valid = dlsym(RTLD_DEFAULT, "PyCapsule_IsValid");
    *(void **)&found.capsule_pointer = dlsym(RTLD_DEFAULT, "PyCapsule_GetPointer");
    *(void **)&found.err_fetch = dlsym(RTLD_DEFAULT, "PyErr_Fetch");
    *(void **)&found.err_restore = dlsym(RTLD_DEFAULT, "PyErr_Restore");
    if (found.capsule_is_valid && found.capsule_pointer && found.err_fetch && found.err_restore)
        python = found;
}

ACL_EXPORT void aclcudaDLPackCapsuleDestructor(void *capsule)
{
    PROF_API();
    pthread_once(&python_once, python_find);
    if (!python.capsule_is_valid || !capsule)
        return;
    /* A consumer renames what it takes ("used_dltensor"): a capsule still
     * under its own name was never consumed, and its tensor is ours to
     * release. */
    dl_managed *legacy = NULL;
    dl_managed_versioned *versioned = NULL;
    if (python.capsule_is_valid(capsule, "dltensor_versioned"))
        versioned = python.capsule_pointer(capsule, "dltensor_versioned");
    else if (python.capsule_is_valid(capsule, "dltensor"))
        legacy = python.capsule_pointer(capsule, "dltensor");
    if (!(versioned && versioned->deleter) && !(legacy && legacy->deleter))
        return;
    void *type, *value, *traceback;
    python.err_fetch(&type, &value, &traceback);
    if (versioned)
        versioned->deleter(versioned);
    else
        legacy->deleter(legacy);
    python.err_restore(type, value, traceback);
}
