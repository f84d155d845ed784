#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/exception.h"
#include "core/errors.h"
#include "core/lifecycle.h"
#include "util/clock.h"
#include "util/fork.h"
#include "util/log.h"

enum { MAX_DEVICES = 64 };

typedef struct device_state {
    int32_t set_count;    /* aclrtSetDevice calls not yet reset, all threads */
    acl_context *primary; /* the default context while set_count > 0 */
    list_node contexts;   /* every context on the device */
} device_state;

/* Guards the device states. Taken before any context's lock. */
static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static device_state devices[MAX_DEVICES];

static int32_t visible_phys[MAX_DEVICES];
static int32_t visible_count;
/* Why ASCEND_RT_VISIBLE_DEVICES left fewer devices than it names, for
 * messages; empty when it did not. */
static char visible_problem[192];
static int32_t present_count;
static pthread_once_t visible_once = PTHREAD_ONCE_INIT;

static _Atomic int64_t process_params[SYS_PARAM_COUNT];
static atomic_uint process_params_set; /* bit per option */

/* ---- fork: the device table and every context's lock ---------------------- */

static void fork_prepare(void)
{
    pthread_mutex_lock(&devices_lock);
    for (int32_t phys = 0; phys < MAX_DEVICES; phys++)
        list_for_each(pos, &devices[phys].contexts)
            pthread_mutex_lock(&list_entry(pos, acl_context, device_link)->lock);
}

static void fork_done(void)
{
    for (int32_t phys = 0; phys < MAX_DEVICES; phys++)
        list_for_each(pos, &devices[phys].contexts)
            pthread_mutex_unlock(&list_entry(pos, acl_context, device_link)->lock);
    pthread_mutex_unlock(&devices_lock);
}

__attribute__((constructor)) static void device_init(void)
{
    for (int32_t phys = 0; phys < MAX_DEVICES; phys++)
        list_init(&devices[phys].contexts);
    fork_register(FORK_RANK_DEVICES, fork_prepare, fork_done, fork_done);
}

/* ---- visibility ------------------------------------------------------------- */

/* ASCEND_RT_VISIBLE_DEVICES: ascending physical ids separated by commas,
 * renumbered from 0; parsing stops at the first token that is not one. */
static void visible_init(void)
{
    int32_t present = backend_usable() ? backend()->device->count() : 0;
    if (present > MAX_DEVICES)
        present = MAX_DEVICES;
    present_count = present;
    const char *spec = getenv("ASCEND_RT_VISIBLE_DEVICES");
    if (!spec) {
        for (int32_t i = 0; i < present; i++)
            visible_phys[i] = i;
        visible_count = present;
        return;
    }
    const char *whole = spec;
    int32_t last = -1;
    while (*spec) {
        char *end;
        long id = strtol(spec, &end, 10);
        const char *why = NULL;
        if (end == spec || (*end != ',' && *end != '\0'))
            why = "is not a decimal device id";
        else if (id < 0)
            why = "is negative";
        else if (id >= present)
            why =
                present == 1 ? "is beyond the one device present" : "is beyond the devices present";
        else if (id <= last)
            why = "does not ascend (ids are listed in ascending order)";
        if (why) {
            int len = (int)strcspn(spec, ",");
            snprintf(visible_problem, sizeof visible_problem,
                     "ASCEND_RT_VISIBLE_DEVICES=%s: \"%.*s\" %s, so it and the ids after it are "
                     "ignored",
                     whole, len, spec, why);
            break;
        }
        visible_phys[visible_count++] = (int32_t)id;
        last = (int32_t)id;
        spec = *end ? end + 1 : end;
    }
    ACL_LOG(LOG_INFO, "ASCEND_RT_VISIBLE_DEVICES leaves %d of %d devices", (int)visible_count,
            (int)present);
}

int32_t device_visible_count(void)
{
    pthread_once(&visible_once, visible_init);
    return visible_count;
}

int32_t device_present_count(void)
{
    pthread_once(&visible_once, visible_init);
    return present_count;
}

aclError device_to_phys(int32_t device, int32_t *phys)
{
    int32_t count = device_visible_count();
    if (device < 0 || device >= count)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    *phys = visible_phys[device];
    return ACL_SUCCESS;
}

int32_t device_from_phys(int32_t phys)
{
    int32_t count = device_visible_count();
    for (int32_t i = 0; i < count; i++)
        if (visible_phys[i] == phys)
            return i;
    return -1;
}

aclError device_resolve(const char *api, int32_t device, int32_t *phys)
{
    if (device_to_phys(device, phys) == ACL_SUCCESS)
        return ACL_SUCCESS;
    if (!backend_usable())
        return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID,
                         "device %d: the %s backend has no usable device", (int)device,
                         backend()->name);
    return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID,
                     "device %d does not exist (%d visible device%s%s%s)", (int)device,
                     (int)device_visible_count(), device_visible_count() == 1 ? "" : "s",
                     visible_problem[0] ? "; " : "", visible_problem);
}

aclError device_props_get(const char *api, int32_t device, device_props *props, int32_t *phys_out)
{
    int32_t phys;
    aclError err = device_resolve(api, device, &phys);
    if (err)
        return err;
    err = backend()->device->props(phys, props);
    if (err)
        return acl_raise(api, err, "reading the properties of device %d failed", (int)device);
    if (phys_out)
        *phys_out = phys;
    return ACL_SUCCESS;
}

/* ---- the primary context ------------------------------------------------------- */

aclError device_retain(const char *api, int32_t device, acl_context **primary)
{
    int32_t phys;
    aclError err = device_resolve(api, device, &phys);
    if (err)
        return err;
    device_state *ds = &devices[phys];
    pthread_mutex_lock(&devices_lock);
    acl_context *ctx = ds->primary;
    if (ctx && context_hold(ctx)) /* a listed primary is live */
        ds->set_count++;
    else
        ctx = NULL;
    pthread_mutex_unlock(&devices_lock);
    if (ctx) {
        *primary = ctx;
        return ACL_SUCCESS;
    }

    /* Made outside the lock: creating the default stream may take time. */
    acl_context *made;
    err = context_create(api, device, phys, true, &made);
    if (err)
        return err;
    if (backend()->device->prepare)
        backend()->device->prepare(phys);
    pthread_mutex_lock(&devices_lock);
    if (!ds->primary) {
        ds->primary = made;
        list_add(&ds->contexts, &made->device_link);
    }
    ctx = ds->primary;
    bool held = context_hold(ctx);
    if (held)
        ds->set_count++;
    pthread_mutex_unlock(&devices_lock);
    if (ctx != made) { /* another thread set the device first */
        if (context_hold(made)) {
            object_take(&made->obj);
            context_teardown(made, false);
            context_release(made);
        }
    }
    if (!held)
        return acl_raise(api, ACL_ERROR_RT_CONTEXT_NULL, "device %d is being reset", (int)device);
    *primary = ctx;
    return ACL_SUCCESS;
}

/* Tears down a context that left its device's list (force: context.h). */
static void release_context(acl_context *ctx, bool force)
{
    if (!context_hold(ctx))
        return;
    if (object_take(&ctx->obj))
        context_teardown(ctx, force);
    context_release(ctx);
}

aclError device_release(const char *api, int32_t device, bool force)
{
    int32_t phys;
    aclError err = device_resolve(api, device, &phys);
    if (err)
        return err;
    device_state *ds = &devices[phys];
    pthread_mutex_lock(&devices_lock);
    if (ds->set_count == 0) {
        pthread_mutex_unlock(&devices_lock);
        return acl_raise(api, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                         "device %d is not set (no aclrtSetDevice left to reset)", (int)device);
    }
    ds->set_count = force ? 0 : ds->set_count - 1;
    acl_context *primary = NULL;
    if (ds->set_count == 0) {
        primary = ds->primary;
        ds->primary = NULL;
        list_remove(&primary->device_link);
    }
    pthread_mutex_unlock(&devices_lock);
    if (primary) {
        release_context(primary, force); /* waits for its streams' work first */
        lifecycle_notify(LIFECYCLE_DEVICE_RELEASED, (void *)(intptr_t)phys);
    }
    return ACL_SUCCESS;
}

void device_release_all(void)
{
    for (int32_t phys = 0; phys < MAX_DEVICES; phys++) {
        pthread_mutex_lock(&devices_lock);
        acl_context *primary = devices[phys].primary;
        devices[phys].primary = NULL;
        devices[phys].set_count = 0;
        if (primary)
            list_remove(&primary->device_link);
        pthread_mutex_unlock(&devices_lock);
        if (primary)
            release_context(primary, true); /* aclFinalize gives up what still waits */
    }
    lifecycle_notify(LIFECYCLE_FINALIZED, NULL);
}

bool device_primary_active(int32_t phys)
{
    pthread_mutex_lock(&devices_lock);
    bool active = devices[phys].set_count > 0;
    pthread_mutex_unlock(&devices_lock);
    return active;
}

/* ---- explicit contexts ---------------------------------------------------------- */

aclError device_context_create(const char *api, int32_t device, acl_context **out)
{
    int32_t phys;
    aclError err = device_resolve(api, device, &phys);
    if (err)
        return err;
    err = context_create(api, device, phys, false, out);
    if (err)
        return err;
    pthread_mutex_lock(&devices_lock);
    list_add(&devices[phys].contexts, &(*out)->device_link);
    pthread_mutex_unlock(&devices_lock);
    return ACL_SUCCESS;
}

void device_context_destroy(acl_context *ctx)
{
    pthread_mutex_lock(&devices_lock);
    list_remove(&ctx->device_link);
    pthread_mutex_unlock(&devices_lock);
    context_teardown(ctx, false);
}

/* ---- synchronisation -------------------------------------------------------------- */

/* Marks the current end of every busy stream on the device with a fresh
 * backend event, then waits for the marks with no lock held, so streams
 * may come and go (and callbacks may run ACL calls) while we wait, and work
 * queued after the call is not waited for. */
acl_stream **device_streams(int32_t phys, bool retired_too, size_t *count_out, aclError *err_out)
{
    size_t count = 0, cap = 0;
    acl_stream **streams = NULL;
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&devices_lock);
    list_for_each(pos, &devices[phys].contexts)
    {
        size_t n;
        acl_stream **more =
            context_streams(list_entry(pos, acl_context, device_link), retired_too, &n, &err);
        if (err)
            break;
        if (count + n > cap) {
            size_t grown_cap = (count + n) * 2;
            acl_stream **grown = realloc(streams, grown_cap * sizeof *grown);
            if (!grown) {
                for (size_t i = 0; i < n; i++)
                    stream_release(more[i]);
                free(more);
                err = ACL_ERROR_RT_MEMORY_ALLOCATION;
                break;
            }
            streams = grown;
            cap = grown_cap;
        }
        memcpy(streams + count, more, n * sizeof *more);
        count += n;
        free(more);
    }
    pthread_mutex_unlock(&devices_lock);
    *count_out = count;
    *err_out = err;
    return streams;
}

aclError device_abort(int32_t phys)
{
    size_t count;
    aclError err;
    acl_stream **streams = device_streams(phys, false, &count, &err);
    for (size_t i = 0; i < count; i++) {
        aclError one = stream_abort(streams[i]);
        if (one && !err)
            err = one;
        stream_release(streams[i]);
    }
    free(streams);
    return err;
}

/* The work of streams destroyed without waiting, in every context of the
 * device (context.h). */
static aclError wait_retired(int32_t phys, int32_t timeout_ms)
{
    int64_t deadline = timeout_ms >= 0 ? monotonic_ns() + (int64_t)timeout_ms * 1000000 : 0;
    size_t count = 0;
    pthread_mutex_lock(&devices_lock);
    list_for_each(pos, &devices[phys].contexts) count++;
    acl_context **contexts = count ? malloc(count * sizeof *contexts) : NULL;
    size_t held = 0;
    if (contexts)
        list_for_each(pos, &devices[phys].contexts)
        {
            acl_context *ctx = list_entry(pos, acl_context, device_link);
            if (context_hold(ctx))
                contexts[held++] = ctx;
        }
    pthread_mutex_unlock(&devices_lock);
    if (count && !contexts)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    aclError err = ACL_SUCCESS;
    for (size_t i = 0; i < held; i++) {
        if (!err)
            err = context_wait_retired(contexts[i], timeout_ms >= 0 ? ms_left(deadline) : -1);
        context_release(contexts[i]);
    }
    free(contexts);
    return err;
}

aclError device_synchronize(int32_t phys, int32_t timeout_ms)
{
    const backend_event_ops *ev = backend()->event;
    size_t count, marks = 0;
    aclError err;
    acl_stream **streams = device_streams(phys, false, &count, &err);

    /* The marks, one per busy stream, in one block. */
    unsigned char *mark_mem = !err && count ? calloc(count, ev->size) : NULL;
    if (!err && count && !mark_mem)
        err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    for (size_t i = 0; i < count && !err; i++) {
        bool idle;
        /* A marker on an idle stream would only make it look busy. ACL
         * forbids synchronising a device while one of its streams is
         * being captured. */
        aclError queried = stream_query(streams[i], &idle);
        if (queried == ACL_ERROR_RT_STREAM_CAPTURED) {
            err = queried;
            break;
        }
        if (queried == ACL_SUCCESS && idle)
            continue;
        backend_event *mark = (backend_event *)(mark_mem + marks * ev->size);
        err = ev->create(mark, phys, false);
        if (err)
            break;
        marks++;
        err =
            stream_submit(NULL, streams[i], &(task){.kind = TASK_RECORD, .u.event.backend = mark});
    }
    for (size_t i = 0; i < count; i++)
        stream_release(streams[i]);
    free(streams);

    int64_t deadline = timeout_ms >= 0 ? monotonic_ns() + (int64_t)timeout_ms * 1000000 : 0;
    unsigned borrowed = borrow_suspend(); /* a wait is no place for a borrow */
    for (size_t i = 0; i < marks; i++) {
        backend_event *mark = (backend_event *)(mark_mem + i * ev->size);
        if (!err) {
            err = ev->synchronize(mark, timeout_ms >= 0 ? ms_left(deadline) : -1);
            if (err == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
                err = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
        }
        ev->destroy(mark);
    }
    borrow_resume(borrowed);
    free(mark_mem);
    if (!err)
        err = wait_retired(phys, timeout_ms >= 0 ? ms_left(deadline) : -1);
    if (exception_is_device_fault(err))
        exception_report(phys, device_from_phys(phys), -1, 0, err);
    return err;
}

/* ---- peer access ---------------------------------------------------------------------- */

/* Bit `peer` of peer_access[phys]: access phys -> peer is enabled. */
static _Atomic uint64_t peer_access[MAX_DEVICES];

aclError device_peer_enable(int32_t phys, int32_t peer)
{
    aclError err = backend()->device->enable_peer(phys, peer);
    if (!err)
        atomic_fetch_or(&peer_access[phys], UINT64_C(1) << peer);
    return err;
}

aclError device_peer_disable(int32_t phys, int32_t peer)
{
    aclError err = backend()->device->disable_peer(phys, peer);
    if (!err)
        atomic_fetch_and(&peer_access[phys], ~(UINT64_C(1) << peer));
    return err;
}

bool device_peer_enabled(int32_t phys, int32_t peer)
{
    return atomic_load(&peer_access[phys]) >> peer & 1;
}

/* ---- process-level parameters ------------------------------------------------------- */

void device_set_param(int opt, int64_t value)
{
    atomic_store(&process_params[opt], value);
    atomic_fetch_or(&process_params_set, 1u << opt);
}

bool device_get_param(int opt, int64_t *value)
{
    *value = atomic_load(&process_params[opt]);
    return atomic_load(&process_params_set) & (1u << opt);
}
