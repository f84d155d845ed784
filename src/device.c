/* Devices: visibility and re-indexing (ASCEND_RT_VISIBLE_DEVICES), the
 * process-wide SetDevice reference count that keeps a device's default
 * context alive, device-wide synchronisation, and the device queries. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

enum { MAX_DEVICES = 64 };

pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct device_state {
    int32_t set_count;     /* aclrtSetDevice calls not yet reset, all threads */
    acl_context *primary;  /* the default context while set_count > 0 */
    acl_context *contexts; /* every context on the device */
} device_state;

static device_state devices[MAX_DEVICES];

static int32_t visible_phys[MAX_DEVICES];
static int32_t visible_count;
static pthread_once_t visible_once = PTHREAD_ONCE_INIT;

/* ASCEND_RT_VISIBLE_DEVICES: ascending physical ids separated by commas,
 * renumbered from 0; parsing stops at the first token that is not one. */
static void visible_init(void)
{
    int32_t present = backend_usable() ? backend()->device_count() : 0;
    if (present > MAX_DEVICES)
        present = MAX_DEVICES;
    const char *spec = getenv("ASCEND_RT_VISIBLE_DEVICES");
    if (!spec) {
        for (int32_t i = 0; i < present; i++)
            visible_phys[i] = i;
        visible_count = present;
        return;
    }
    int32_t last = -1;
    while (*spec && visible_count < present) {
        char *end;
        long id = strtol(spec, &end, 10);
        if (end == spec || (*end != ',' && *end != '\0') || id <= last || id >= present)
            break;
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

aclError device_to_phys(int32_t device, int32_t *phys)
{
    int32_t count = device_visible_count();
    if (device < 0 || device >= count)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    *phys = visible_phys[device];
    return ACL_SUCCESS;
}

static aclError resolve_device(const char *func, int32_t device, int32_t *phys)
{
    if (device_to_phys(device, phys) == ACL_SUCCESS)
        return ACL_SUCCESS;
    if (!backend_usable())
        return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID,
                         "device %d: the %s backend has no usable device", (int)device,
                         backend()->name);
    return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID,
                     "device %d does not exist (%d visible device%s)", (int)device,
                     (int)device_visible_count(), device_visible_count() == 1 ? "" : "s");
}

acl_context *device_contexts(int32_t phys)
{
    return devices[phys].contexts;
}

void device_link_context(acl_context *ctx)
{
    pthread_mutex_lock(&registry_lock);
    ctx->next_on_device = devices[ctx->phys].contexts;
    devices[ctx->phys].contexts = ctx;
    pthread_mutex_unlock(&registry_lock);
}

void device_unlink_context(acl_context *ctx)
{
    pthread_mutex_lock(&registry_lock);
    for (acl_context **p = &devices[ctx->phys].contexts; *p; p = &(*p)->next_on_device) {
        if (*p == ctx) {
            *p = ctx->next_on_device;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    int32_t phys;
    aclError err = resolve_device(__func__, deviceId, &phys);
    if (err)
        return err;

    device_state *ds = &devices[phys];
    pthread_mutex_lock(&registry_lock);
    acl_context *primary = ds->primary;
    if (primary)
        ds->set_count++;
    pthread_mutex_unlock(&registry_lock);

    if (!primary) {
        /* Made outside the lock: creating the default stream may take time. */
        acl_context *made;
        err = context_create(__func__, deviceId, phys, true, &made);
        if (err)
            return err;
        pthread_mutex_lock(&registry_lock);
        if (!ds->primary)
            ds->primary = made;
        primary = ds->primary;
        ds->set_count++;
        pthread_mutex_unlock(&registry_lock);
        if (primary != made)
            context_destroy(made); /* another thread set the device first */
    }
    context_set_current(primary);
    return ACL_SUCCESS;
}

static aclError release_device(const char *func, int32_t deviceId, bool force)
{
    int32_t phys;
    aclError err = resolve_device(func, deviceId, &phys);
    if (err)
        return err;

    device_state *ds = &devices[phys];
    pthread_mutex_lock(&registry_lock);
    if (ds->set_count == 0) {
        pthread_mutex_unlock(&registry_lock);
        return acl_raise(func, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                         "device %d is not set (no aclrtSetDevice left to reset)", (int)deviceId);
    }
    ds->set_count = force ? 0 : ds->set_count - 1;
    acl_context *primary = NULL;
    if (ds->set_count == 0) {
        primary = ds->primary;
        ds->primary = NULL;
    }
    pthread_mutex_unlock(&registry_lock);

    if (primary) {
        context_destroy(primary); /* waits for its streams' work first */
        memory_device_released(phys);
    }
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    return release_device(__func__, deviceId, false);
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return release_device(__func__, deviceId, true);
}

void device_release_all(void)
{
    for (int32_t phys = 0; phys < MAX_DEVICES; phys++) {
        pthread_mutex_lock(&registry_lock);
        acl_context *primary = devices[phys].primary;
        devices[phys].primary = NULL;
        devices[phys].set_count = 0;
        pthread_mutex_unlock(&registry_lock);
        if (primary)
            context_destroy(primary);
    }
    memory_all_released();
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    if (!deviceId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceId is NULL");
    acl_context *ctx;
    aclError err = context_require(__func__, &ctx);
    if (err)
        return err;
    *deviceId = ctx->device;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (!count)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "count is NULL");
    *count = (uint32_t)device_visible_count();
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    if (!runMode)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "runMode is NULL");
    *runMode = ACL_HOST; /* the program always runs on the host CPU */
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetTsDevice(aclrtTsId tsId)
{
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR && tsId != ACL_TS_ID_RESERVED)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown task scheduler id %d", (int)tsId);
    return ACL_SUCCESS; /* one scheduler: nothing to select */
}

/* Device synchronisation marks the current end of every stream on the
 * device with a fresh event while holding the registry, then waits for the
 * marks without it, so streams may come and go (and callbacks may run ACL
 * calls) while we wait. */
aclError device_synchronize(int32_t phys, int32_t timeout_ms)
{
    const backend_ops *be = backend();
    size_t cap = 16, n = 0;
    backend_event **marks = malloc(cap * sizeof *marks);
    if (!marks)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;

    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&registry_lock);
    for (acl_context *c = devices[phys].contexts; c && !err; c = c->next_on_device) {
        for (acl_stream *s = c->streams; s && !err; s = s->next) {
            /* A marker on an idle stream would only make it look busy to
             * the next synchronize (the cuda backend skips idle ones). */
            bool idle;
            if (be->stream_query(s->bs, &idle) == ACL_SUCCESS && idle)
                continue;
            if (n == cap) {
                backend_event **grown = realloc(marks, 2 * cap * sizeof *marks);
                if (!grown) {
                    err = ACL_ERROR_RT_MEMORY_ALLOCATION;
                    break;
                }
                marks = grown;
                cap *= 2;
            }
            err = be->event_create(phys, false, &marks[n]);
            if (err)
                break;
            n++;
            err = be->event_record(marks[n - 1], s->bs);
        }
    }
    pthread_mutex_unlock(&registry_lock);

    struct timespec deadline;
    if (timeout_ms >= 0)
        deadline_after_ms(&deadline, timeout_ms);
    for (size_t i = 0; i < n; i++) {
        if (!err) {
            int32_t left = -1;
            if (timeout_ms >= 0) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                int64_t ms = (deadline.tv_sec - now.tv_sec) * 1000 +
                             (deadline.tv_nsec - now.tv_nsec) / 1000000;
                left = ms > 0 ? (int32_t)ms : 0;
            }
            err = be->event_synchronize(marks[i], left);
            if (err == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
                err = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
        }
        be->event_destroy(marks[i]);
    }
    free(marks);
    return err;
}

static aclError synchronize_current_device(const char *func, int32_t timeout_ms)
{
    acl_context *ctx;
    aclError err = context_require(func, &ctx);
    if (err)
        return err;
    err = device_synchronize(ctx->phys, timeout_ms);
    if (err == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        return acl_raise(func, err, "device %d still busy after %d ms", (int)ctx->device,
                         (int)timeout_ms);
    if (err)
        return acl_raise(func, err, "synchronising device %d failed", (int)ctx->device);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSynchronizeDevice(void)
{
    return synchronize_current_device(__func__, -1);
}

ACL_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0", (int)timeout);
    return synchronize_current_device(__func__, timeout);
}

/* ---- queries -------------------------------------------------------------- */

static aclError device_props_of(const char *func, int32_t device, device_props *props, int32_t *phys_out)
{
    int32_t phys;
    aclError err = resolve_device(func, device, &phys);
    if (err)
        return err;
    err = backend()->device_props(phys, props);
    if (err)
        return acl_raise(func, err, "reading the properties of device %d failed", (int)device);
    if (phys_out)
        *phys_out = phys;
    return ACL_SUCCESS;
}

/* Names device 0, as ACL does on machines with several devices. */
ACL_EXPORT const char *aclrtGetSocName(void)
{
    static char name[sizeof ((device_props *)0)->name];
    static atomic_bool known;
    if (!atomic_load(&known)) {
        device_props props;
        if (device_props_of(__func__, 0, &props, NULL) != ACL_SUCCESS)
            return NULL;
        pthread_mutex_lock(&registry_lock);
        if (!atomic_load(&known)) {
            memcpy(name, props.name, sizeof name);
            name[sizeof name - 1] = '\0';
            atomic_store(&known, true);
        }
        pthread_mutex_unlock(&registry_lock);
    }
    return name;
}

ACL_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if (deviceId > INT32_MAX)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", deviceId);
    device_props p;
    int32_t phys;
    aclError err = device_props_of(__func__, (int32_t)deviceId, &p, &phys);
    if (err)
        return err;
    switch (attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        *value = cpus > 0 ? cpus : 1;
        break;
    }
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = p.multiprocessors; break;
    case ACL_DEV_ATTR_WARP_SIZE: *value = p.warp_size; break;
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE: *value = p.max_threads_per_mp; break;
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE: *value = p.shared_mem_per_block; break;
    case ACL_DEV_ATTR_MAX_GRID_DIM_X: *value = p.max_grid[0]; break;
    case ACL_DEV_ATTR_MAX_GRID_DIM_Y: *value = p.max_grid[1]; break;
    case ACL_DEV_ATTR_MAX_GRID_DIM_Z: *value = p.max_grid[2]; break;
    case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID: *value = p.max_grid[0]; break;
    case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK: *value = p.max_threads_per_block; break;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_X: *value = p.max_block[0]; break;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y: *value = p.max_block[1]; break;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z: *value = p.max_block[2]; break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: *value = (int64_t)p.total_mem; break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = p.l2_cache_size; break;
    case ACL_DEV_ATTR_SMP_ID:
    case ACL_DEV_ATTR_PHY_CHIP_ID: *value = phys; break;
    case ACL_DEV_ATTR_IS_VIRTUAL: *value = 0; break;
    default:
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "device attribute %d has no meaning on %s", (int)attr, backend()->name);
    }
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if (deviceId > INT32_MAX)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", deviceId);
    device_props p;
    aclError err = device_props_of(__func__, (int32_t)deviceId, &p, NULL);
    if (err)
        return err;
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = p.multiprocessors; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: *value = p.l2_cache_size; return ACL_SUCCESS;
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclDeviceInfo %d", (int)deviceInfo);
    }
}

ACL_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    if (!leastPriority || !greatestPriority)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL output pointer");
    /* ACL's scale: 0 is the highest priority, 7 the lowest. */
    *leastPriority = 7;
    *greatestPriority = 0;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    if (!utilizationInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "utilizationInfo is NULL");
    if (utilizationInfo->utilizationExtend)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "utilizationExtend must be NULL");
    int32_t phys;
    aclError err = resolve_device(__func__, deviceId, &phys);
    if (err)
        return err;
    /* -1 is ACL's "not supported" for each figure. */
    utilizationInfo->cubeUtilization = -1;
    utilizationInfo->vectorUtilization = -1;
    utilizationInfo->aicpuUtilization = -1;
    utilizationInfo->memoryUtilization = -1;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    if (!deviceStatus)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceStatus is NULL");
    int32_t phys;
    aclError err = resolve_device(__func__, deviceId, &phys);
    if (err)
        return err;
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

static _Atomic int sat_mode = ACL_RT_OVERFLOW_MODE_SATURATION;

ACL_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "overflow mode %d is not SATURATION or INFNAN", (int)mode);
    atomic_store(&sat_mode, (int)mode);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    if (!mode)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "mode is NULL");
    *mode = (aclrtFloatOverflowMode)atomic_load(&sat_mode);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    int32_t phys;
    aclError err = resolve_device(__func__, deviceId, &phys);
    if (err)
        return err;
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown feature %d", (int)devFeatureType);
    *value = ACL_DEV_FEATURE_NOT_SUPPORT; /* both are Ascend task-scheduler features */
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    if (!uuid)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "uuid is NULL");
    device_props p;
    aclError err = device_props_of(__func__, deviceId, &p, NULL);
    if (err)
        return err;
    memcpy(uuid->bytes, p.uuid, sizeof uuid->bytes);
    return ACL_SUCCESS;
}

/* Id spaces: "user" ids are after ASCEND_RT_VISIBLE_DEVICES, "logic" and
 * "phy" ids are the backend's own numbering (the same thing here). */
static aclError user_to_logic(const char *func, int32_t user, int32_t *logic)
{
    if (!logic)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "output pointer is NULL");
    return resolve_device(func, user, logic);
}

static aclError logic_to_user(const char *func, int32_t logic, int32_t *user)
{
    if (!user)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "output pointer is NULL");
    int32_t count = device_visible_count();
    for (int32_t i = 0; i < count; i++) {
        if (visible_phys[i] == logic) {
            *user = i;
            return ACL_SUCCESS;
        }
    }
    return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d is not visible", (int)logic);
}

static aclError check_logic(const char *func, int32_t logic, int32_t *out)
{
    if (!out)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "output pointer is NULL");
    int32_t present = backend_usable() ? backend()->device_count() : 0;
    if (logic < 0 || logic >= present)
        return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", (int)logic);
    *out = logic;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    return user_to_logic(__func__, userDevid, logicDevId);
}

ACL_EXPORT aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    return logic_to_user(__func__, logicDevId, userDevid);
}

ACL_EXPORT aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    return check_logic(__func__, phyDevId, logicDevId);
}

ACL_EXPORT aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    return check_logic(__func__, logicDevId, phyDevId);
}

/* ---- peer access ---------------------------------------------------------------- */

ACL_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    if (!canAccessPeer)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "canAccessPeer is NULL");
    int32_t phys, peer;
    aclError err = resolve_device(__func__, deviceId, &phys);
    if (!err)
        err = resolve_device(__func__, peerDeviceId, &peer);
    if (err)
        return err;
    if (phys == peer)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "a device is not its own peer (%d)", (int)deviceId);
    err = backend()->can_access_peer(phys, peer, canAccessPeer);
    return err ? ACL_RAISE(err, "peer query %d -> %d failed", (int)deviceId, (int)peerDeviceId) : ACL_SUCCESS;
}

static aclError peer_switch(const char *func, int32_t peerDeviceId, uint32_t flags, bool enable)
{
    if (flags != 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "flags must be 0, got %u", flags);
    acl_context *ctx;
    int32_t peer;
    aclError err = context_require(func, &ctx);
    if (!err)
        err = resolve_device(func, peerDeviceId, &peer);
    if (err)
        return err;
    if (peer == ctx->phys)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "device %d is the current device", (int)peerDeviceId);
    err = enable ? backend()->enable_peer(ctx->phys, peer) : backend()->disable_peer(ctx->phys, peer);
    return err ? acl_raise(func, err, "peer access %d -> %d", (int)ctx->device, (int)peerDeviceId)
               : ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    return peer_switch(__func__, peerDeviceId, flags, true);
}

ACL_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    return peer_switch(__func__, peerDeviceId, 0, false);
}

ACL_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    return aclrtDeviceCanAccessPeer(status, deviceId, peerDeviceId);
}

/* ---- process-level parameters ------------------------------------------------------- */

enum { SYS_PARAM_COUNT = 4 };
static int64_t sys_params[SYS_PARAM_COUNT];
static uint32_t sys_params_set;

ACL_EXPORT aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    pthread_mutex_lock(&registry_lock);
    sys_params[opt] = value;
    sys_params_set |= 1u << opt;
    pthread_mutex_unlock(&registry_lock);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    pthread_mutex_lock(&registry_lock);
    bool set = sys_params_set & (1u << opt);
    *value = sys_params[opt];
    pthread_mutex_unlock(&registry_lock);
    return set ? ACL_SUCCESS : ACL_RAISE(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "option %d was never set", (int)opt);
}

ACL_EXPORT aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    if (!active)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "active is NULL");
    int32_t phys;
    aclError err = resolve_device(__func__, deviceId, &phys);
    if (err)
        return err;
    if (flags)
        *flags = 0; /* reserved */
    pthread_mutex_lock(&registry_lock);
    *active = devices[phys].set_count > 0;
    pthread_mutex_unlock(&registry_lock);
    return ACL_SUCCESS;
}
