#include <stdatomic.h>

#include "core/context.h"
#include "core/reslimit.h"

enum { MAX_DEVICES = 64 };

static _Atomic uint32_t device_limits[MAX_DEVICES][RES_LIMIT_TYPES];
static _Thread_local aclrtStream thread_stream;

aclError reslimit_hardware(int32_t phys, uint32_t *value)
{
    device_props props;
    aclError err = backend()->device->props(phys, &props);
    if (err)
        return err;
    *value = props.multiprocessors > 0 ? (uint32_t)props.multiprocessors : 1;
    return ACL_SUCCESS;
}

void reslimit_device_set(int32_t phys, int type, uint32_t value)
{
    if (phys >= 0 && phys < MAX_DEVICES)
        atomic_store(&device_limits[phys][type], value);
}

aclError reslimit_device_get(int32_t phys, int type, uint32_t *value)
{
    uint32_t set = phys >= 0 && phys < MAX_DEVICES ? atomic_load(&device_limits[phys][type]) : 0;
    if (set) {
        *value = set;
        return ACL_SUCCESS;
    }
    return reslimit_hardware(phys, value);
}

aclError reslimit_stream_get(acl_stream *s, int type, uint32_t *value)
{
    uint32_t set = atomic_load(&s->res_limit[type]);
    if (set) {
        *value = set;
        return ACL_SUCCESS;
    }
    return reslimit_device_get(s->ctx->phys, type, value);
}

void reslimit_thread_use(aclrtStream stream)
{
    thread_stream = stream;
}

aclrtStream reslimit_thread_stream(void)
{
    return thread_stream;
}
