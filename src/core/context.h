/* Contexts: each belongs to one device and owns its streams, the default
 * stream among them. Made and destroyed by device.c, which keeps each
 * device's list of contexts. */
#ifndef ACLCUDA_CORE_CONTEXT_H
#define ACLCUDA_CORE_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/handle.h"
#include "core/stream.h"
#include "util/list.h"

enum { SYS_PARAM_COUNT = 4 };

struct acl_context {
    object obj;
    int32_t device;  /* user-visible id */
    int32_t phys;    /* backend device index */
    bool is_default; /* the device's primary context, made by SetDevice */
    /* The device's stream priorities, read once: every stream creation
     * maps ACL's 0..7 onto them. Numerically greatest <= least. */
    int32_t greatest_priority, least_priority;
    /* The default stream: its handle, which is how the NULL stream is
     * resolved (a lookup that fails once the context is torn down), and
     * its address, for identity only (never dereferenced through here). */
    aclrtStream default_handle;
    const acl_stream *default_stream;
    list_node device_link; /* in the device's list, under device.c's lock */
    pthread_mutex_t lock;  /* streams, closing, the parameters */
    list_node streams;     /* every stream, the default one included */
    bool closing;          /* torn down: no stream may join */
    list_node retired;     /* retired_work of streams destroyed without waiting */
    int64_t sys_params[SYS_PARAM_COUNT];
    uint32_t sys_params_set; /* bit per aclSysParamOpt */
};

/* Ends a borrow (handle.h). */
static inline void context_put(acl_context *ctx)
{
    object_put(&ctx->obj);
}

static inline bool context_hold(acl_context *ctx)
{
    return object_hold(&ctx->obj);
}

static inline void context_release(acl_context *ctx)
{
    object_release(&ctx->obj);
}

/* A published context with its default stream. Raises. */
aclError context_create(const char *api, int32_t device, int32_t phys, bool is_default,
                        acl_context **out);
/* The live context behind a handle, borrowed. NULL when it is none (the
 * caller raises). */
acl_context *context_get_handle(aclrtContext handle);
/* Tears down a context whose handle the caller took: every stream, the
 * default one included, is taken, its work waited for, and released. It
 * always returns: the waits of streams destroyed without waiting are
 * cancelled first (their owner gave them up: nothing may release them);
 * with force (aclrtResetDeviceForce, aclFinalize) those of every stream
 * too, and without, those of every stream once its work has not finished
 * within a grace period (aclrtResetDevice, aclrtDestroyContext). */
void context_teardown(acl_context *ctx, bool force);

/* Work a stream still had when it was destroyed without waiting
 * (aclrtDestroyStreamForce): a backend event recorded after it, and the
 * stream, held so that a teardown can cancel its waits. The context's
 * teardown waits for it, as AscendCL releases a device only once its tasks
 * are done, and so does the device's synchronization. */
typedef struct retired_work {
    list_node link;
    acl_stream *stream;                /* held */
    _Alignas(16) unsigned char mark[]; /* the backend's event */
} retired_work;

/* Keeps w (malloc'ed, its mark recorded, its stream held) until it is
 * waited for; frees the ones already complete. */
void context_keep_retired(acl_context *ctx, retired_work *w);
/* Waits for the retired work of ctx (timeout_ms -1: no limit) and frees
 * it; what an expired wait left stays kept. A concurrent caller does not
 * wait for work this one is waiting for. */
aclError context_wait_retired(acl_context *ctx, int32_t timeout_ms);

/* Called by stream.c. link fails once the context is closing. */
bool context_link_stream(acl_context *ctx, acl_stream *s);
void context_unlink_stream(acl_context *ctx, acl_stream *s);

/* Every stream of ctx that is still live, and with retired_too those
 * destroyed without waiting whose work is still kept (a stream may be
 * listed twice), each held for the caller (stream_release); *count of
 * them. NULL with *count 0 when there are none or memory ran out (then
 * ACL_ERROR_RT_MEMORY_ALLOCATION in *err). */
acl_stream **context_streams(acl_context *ctx, bool retired_too, size_t *count, aclError *err);

/* Per-context aclSysParamOpt values: set always works; get fails with
 * ACL_ERROR_RT_SYSPARAMOPT_NOT_SET for an option never set here. */
void context_set_param(acl_context *ctx, int opt, int64_t value);
bool context_get_param(acl_context *ctx, int opt, int64_t *value);

#endif
