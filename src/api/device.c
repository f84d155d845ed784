/* Devices (acl_rt.h): setting and resetting them, synchronisation, the
 * queries, id translation, peer access, process-level parameters and the
 * operator timeouts. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_platform.h"
#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/reslimit.h"
#include "core/statecb.h"

static void apply_limits(int32_t phys);

/* Device-state callbacks (aclrtRegDeviceStateCallback) run before and after
 * each set and reset, with the user's device id. */
ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    PROF_API();
    statecb_device(deviceId, ACL_RT_DEVICE_STATE_SET_PRE);
    acl_context *primary;
    aclError err = device_retain(__func__, deviceId, &primary);
    if (err)
        return err;
    apply_limits(primary->phys);
    current_bind(primary);
    context_release(primary);
    statecb_device(deviceId, ACL_RT_DEVICE_STATE_SET_POST);
    return ACL_SUCCESS;
}

static aclError reset(const char *api, int32_t deviceId, bool force)
{
    statecb_device(deviceId, ACL_RT_DEVICE_STATE_RESET_PRE);
    aclError err = device_release(api, deviceId, force);
    if (!err)
        statecb_device(deviceId, ACL_RT_DEVICE_STATE_RESET_POST);
    return err;
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    PROF_API();
    return reset(__func__, deviceId, false);
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    PROF_API();
    return reset(__func__, deviceId, true);
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    PROF_API();
    if (!deviceId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceId is NULL");
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    *deviceId = ctx->device;
    context_put(ctx);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    PROF_API();
    if (!count)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "count is NULL");
    *count = (uint32_t)device_visible_count();
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    PROF_API();
    if (!runMode)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "runMode is NULL");
    *runMode = ACL_HOST; /* the program always runs on the host CPU */
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetTsDevice(aclrtTsId tsId)
{
    PROF_API();
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR && tsId != ACL_TS_ID_RESERVED)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown task scheduler id %d", (int)tsId);
    return ACL_SUCCESS; /* one scheduler: nothing to select */
}

static aclError synchronize_current_device(const char *api, int32_t timeout_ms)
{
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    int32_t phys = ctx->phys, device = ctx->device;
    context_put(ctx);
    err = device_synchronize(phys, timeout_ms);
    if (err == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        return acl_raise(api, err, "device %d still busy after %d ms", (int)device,
                         (int)timeout_ms);
    if (err == ACL_ERROR_RT_STREAM_CAPTURED)
        return acl_raise(api, err,
                         "a stream of device %d is being captured: ACL forbids synchronising "
                         "the device meanwhile",
                         (int)device);
    if (err)
        return acl_raise(api, err, "synchronising device %d failed", (int)device);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSynchronizeDevice(void)
{
    PROF_API();
    return synchronize_current_device(__func__, -1);
}

ACL_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    PROF_API();
    if (timeout < -1)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms: must be -1 or >= 0",
                         (int)timeout);
    return synchronize_current_device(__func__, timeout);
}

/* ---- queries -------------------------------------------------------------- */

/* Names device 0, as ACL does on machines with several devices. */
static char soc_name[sizeof((device_props *)0)->name];
static aclError soc_name_error;
static pthread_once_t soc_name_once = PTHREAD_ONCE_INIT;

static void soc_name_read(void)
{
    device_props props;
    int32_t phys;
    soc_name_error = device_to_phys(0, &phys);
    if (!soc_name_error)
        soc_name_error = backend()->device->props(phys, &props);
    if (!soc_name_error)
        memcpy(soc_name, props.name, sizeof soc_name - 1);
}

ACL_EXPORT const char *aclrtGetSocName(void)
{
    PROF_API();
    pthread_once(&soc_name_once, soc_name_read);
    if (soc_name_error) {
        ACL_RAISE(soc_name_error, "device 0 cannot be read (%d visible devices)",
                  (int)device_visible_count());
        return NULL;
    }
    return soc_name;
}

/* ---- platform queries (acl_platform.h) ----------------------------------------------- */

/* text into value, NUL included, when it fits in max_len bytes. */
static aclError platform_text(const char *api, const char *text, char *value, uint32_t max_len)
{
    size_t need = strlen(text) + 1;
    if (need > max_len)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the value \"%s\" needs %zu bytes with its NUL; maxLen is %u", text, need,
                         max_len);
    memcpy(value, text, need);
    return ACL_SUCCESS;
}

/* AscendCL reads the platform description of the SoC (device 0's); here
 * device 0's properties give what a GPU has a counterpart of, with the
 * meanings aclrtGetDeviceInfo gives them. The rest is absent from the
 * description, which AscendCL answers with ACL_ERROR_INVALID_PARAM. */
ACL_EXPORT aclError aclplatformGetDeviceInfo(aclplatformDevInfo infoType, char *value,
                                             uint32_t maxLen)
{
    PROF_API();
    if ((uint32_t)infoType > ACL_PLATFORM_MEMORY_TYPE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclplatformDevInfo %d", (int)infoType);
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if (maxLen == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "maxLen is 0");
    device_props p;
    int32_t phys;
    aclError err = device_to_phys(0, &phys);
    if (!err)
        err = backend()->device->props(phys, &p);
    if (err)
        return ACL_RAISE(ACL_ERROR_INTERNAL_ERROR,
                         "device 0 cannot be read (%d visible devices): %s",
                         (int)device_visible_count(), acl_error_text(err));
    long long number;
    switch (infoType) {
    case ACL_PLATFORM_AICORE_CNT:
    case ACL_PLATFORM_CUBE_CORE_CNT:
    case ACL_PLATFORM_VECTOR_CORE_CNT:
        number = p.multiprocessors;
        break;
    case ACL_PLATFORM_AICORE_UB_SIZE:
        number = p.shared_mem_per_block;
        break;
    case ACL_PLATFORM_L2_SIZE:
        number = p.l2_cache_size;
        break;
    case ACL_PLATFORM_MEMORY_SIZE:
        number = (long long)p.total_mem;
        break;
    case ACL_PLATFORM_SOC_VERSION:
        return platform_text(__func__, p.name, value, maxLen);
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "aclplatformDevInfo %d (one of Ascend's core clocks, L0, L1 or BT "
                         "buffers, versions, architecture or memory type) has no counterpart "
                         "on %s",
                         (int)infoType, p.name);
    }
    char text[32];
    snprintf(text, sizeof text, "%lld", number);
    return platform_text(__func__, text, value, maxLen);
}

/* The instructions are those of Ascend's cores, which run nowhere here:
 * every name is unknown, as AscendCL answers for a name its platform does
 * not list. */
ACL_EXPORT aclError aclplatformGetInstructionInfo(aclplatformCoreType type, const char *instruction,
                                                  char *value, uint32_t maxLen)
{
    PROF_API();
    if (type != ACL_PLATFORM_CORE_TYPE_AI_CORE && type != ACL_PLATFORM_CORE_TYPE_VECTOR_CORE)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclplatformCoreType %d", (int)type);
    if (!instruction || !value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         instruction ? "value" : "instruction");
    if (maxLen == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "maxLen is 0");
    return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                     "instruction \"%.64s\" is not one of %s's: its devices run no Ascend "
                     "instructions",
                     instruction, backend()->name);
}

ACL_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if (deviceId > INT32_MAX)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", deviceId);
    device_props p;
    int32_t phys;
    aclError err = device_props_get(__func__, (int32_t)deviceId, &p, &phys);
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
    case ACL_DEV_ATTR_VECTOR_CORE_NUM:
        *value = p.multiprocessors;
        break;
    case ACL_DEV_ATTR_WARP_SIZE:
        *value = p.warp_size;
        break;
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
        *value = p.max_threads_per_mp;
        break;
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
        *value = p.shared_mem_per_block;
        break;
    case ACL_DEV_ATTR_MAX_GRID_DIM_X:
        *value = p.max_grid[0];
        break;
    case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
        *value = p.max_grid[1];
        break;
    case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
        *value = p.max_grid[2];
        break;
    case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
        *value = p.max_grid[0];
        break;
    case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
        *value = p.max_threads_per_block;
        break;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
        *value = p.max_block[0];
        break;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
        *value = p.max_block[1];
        break;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
        *value = p.max_block[2];
        break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        *value = (int64_t)p.total_mem;
        break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE:
        *value = p.l2_cache_size;
        break;
    case ACL_DEV_ATTR_SMP_ID:
    case ACL_DEV_ATTR_PHY_CHIP_ID:
        *value = phys;
        break;
    case ACL_DEV_ATTR_IS_VIRTUAL:
        *value = 0;
        break;
    default:
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "device attribute %d has no meaning on %s", (int)attr, backend()->name);
    }
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo,
                                           int64_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if (deviceId > INT32_MAX)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", deviceId);
    device_props p;
    aclError err = device_props_get(__func__, (int32_t)deviceId, &p, NULL);
    if (err)
        return err;
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
        *value = p.multiprocessors;
        return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE:
        *value = p.l2_cache_size;
        return ACL_SUCCESS;
    default:
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclDeviceInfo %d", (int)deviceInfo);
    }
}

ACL_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority,
                                                      int32_t *greatestPriority)
{
    PROF_API();
    if (!leastPriority || !greatestPriority)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL output pointer");
    /* ACL's scale: 0 is the highest priority, 7 the lowest. */
    *leastPriority = 7;
    *greatestPriority = 0;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
                                                  aclrtUtilizationInfo *utilizationInfo)
{
    PROF_API();
    if (!utilizationInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "utilizationInfo is NULL");
    if (utilizationInfo->utilizationExtend)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "utilizationExtend must be NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
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
    PROF_API();
    if (!deviceStatus)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceStatus is NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

/* Current Ascend hardware (and a recorded CANN run) starts in INFNAN mode:
 * overflows give inf and NaN, as on a GPU. */
static _Atomic int sat_mode = ACL_RT_OVERFLOW_MODE_INFNAN;

ACL_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    PROF_API();
    if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "overflow mode %d is not SATURATION or INFNAN",
                         (int)mode);
    if (mode == ACL_RT_OVERFLOW_MODE_SATURATION)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "a GPU's floating-point arithmetic does not saturate: overflow gives inf "
                         "or NaN (ACL_RT_OVERFLOW_MODE_INFNAN, the mode in use)");
    atomic_store(&sat_mode, (int)mode);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    PROF_API();
    if (!mode)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "mode is NULL");
    *mode = (aclrtFloatOverflowMode)atomic_load(&sat_mode);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                             int32_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown feature %d", (int)devFeatureType);
    /* Updating a kernel task of an instantiated model (aclmdlRITaskSetParams,
     * aclrtTaskUpdateAsync) is there wherever the backend can change a
     * node of its graphs; memory queue events do not exist here. */
    bool updatable = backend()->graph && backend()->graph->set_node;
    *value = devFeatureType == ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV && updatable
                 ? ACL_DEV_FEATURE_SUPPORT
                 : ACL_DEV_FEATURE_NOT_SUPPORT;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    PROF_API();
    if (!uuid)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "uuid is NULL");
    device_props p;
    aclError err = device_props_get(__func__, deviceId, &p, NULL);
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
    return device_resolve(func, user, logic);
}

static aclError logic_to_user(const char *func, int32_t logic, int32_t *user)
{
    if (!user)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "output pointer is NULL");
    int32_t device = device_from_phys(logic);
    if (device < 0)
        return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d is not visible",
                         (int)logic);
    *user = device;
    return ACL_SUCCESS;
}

static aclError check_logic(const char *func, int32_t logic, int32_t *out)
{
    if (!out)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "output pointer is NULL");
    if (logic < 0 || logic >= device_present_count())
        return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist",
                         (int)logic);
    *out = logic;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid,
                                                  int32_t *const logicDevId)
{
    PROF_API();
    return user_to_logic(__func__, userDevid, logicDevId);
}

ACL_EXPORT aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId,
                                                  int32_t *const userDevid)
{
    PROF_API();
    return logic_to_user(__func__, logicDevId, userDevid);
}

ACL_EXPORT aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    PROF_API();
    return check_logic(__func__, phyDevId, logicDevId);
}

ACL_EXPORT aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    PROF_API();
    return check_logic(__func__, logicDevId, phyDevId);
}

/* ---- peer access ---------------------------------------------------------------- */

/* Two visible devices, not the same one; raises otherwise. */
static aclError resolve_pair(const char *api, int32_t device, int32_t peer_device, int32_t *phys,
                             int32_t *peer)
{
    aclError err = device_resolve(api, device, phys);
    if (!err)
        err = device_resolve(api, peer_device, peer);
    if (!err && *phys == *peer)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "a device is not its own peer (%d)",
                        (int)device);
    return err;
}

ACL_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
                                             int32_t peerDeviceId)
{
    PROF_API();
    if (!canAccessPeer)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "canAccessPeer is NULL");
    int32_t phys, peer;
    aclError err = resolve_pair(__func__, deviceId, peerDeviceId, &phys, &peer);
    if (!err && (err = backend()->device->can_access_peer(phys, peer, canAccessPeer)))
        ACL_RAISE(err, "peer query %d -> %d failed", (int)deviceId, (int)peerDeviceId);
    return err;
}

/* The current device and a peer of it. */
static aclError current_and_peer(const char *api, int32_t peer_device, int32_t *phys, int32_t *peer,
                                 int32_t *device)
{
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    *device = ctx->device;
    context_put(ctx);
    return resolve_pair(api, *device, peer_device, phys, peer);
}

/* One way, from the current device to the peer; enabling twice is no
 * error. CANN checks the reserved flags first, with its "unsupported
 * feature" code. */
ACL_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    PROF_API();
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_FEATURE_UNSUPPORTED, "flags are reserved and must be 0, got %u",
                         flags);
    int32_t phys, peer, device;
    aclError err = current_and_peer(__func__, peerDeviceId, &phys, &peer, &device);
    if (!err && (err = device_peer_enable(phys, peer)))
        ACL_RAISE(err, "enabling peer access %d -> %d failed", (int)device, (int)peerDeviceId);
    return err;
}

ACL_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    PROF_API();
    int32_t phys, peer, device;
    aclError err = current_and_peer(__func__, peerDeviceId, &phys, &peer, &device);
    if (err)
        return err;
    if (!device_peer_enabled(phys, peer))
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "peer access %d -> %d is not enabled",
                         (int)device, (int)peerDeviceId);
    if ((err = device_peer_disable(phys, peer)))
        ACL_RAISE(err, "disabling peer access %d -> %d failed", (int)device, (int)peerDeviceId);
    return err;
}

/* Whether access from deviceId to peerDeviceId is enabled (1) or not (0). */
ACL_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId,
                                                int32_t *status)
{
    PROF_API();
    if (!status)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "status is NULL");
    int32_t phys, peer;
    aclError err = resolve_pair(__func__, deviceId, peerDeviceId, &phys, &peer);
    if (!err)
        *status = device_peer_enabled(phys, peer);
    return err;
}

/* ---- process-level parameters ------------------------------------------------------- */

ACL_EXPORT aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    PROF_API();
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    device_set_param((int)opt, value);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    if ((int)opt < 0 || (int)opt >= SYS_PARAM_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclSysParamOpt %d", (int)opt);
    /* Unlike the per-context options, an option never set here reads as
     * its default, 0, as CANN documents. */
    (void)device_get_param((int)opt, value);
    return ACL_SUCCESS;
}

/* ---- PCI addresses and id translation ---------------------------------------------------- */

ACL_EXPORT aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)
{
    PROF_API();
    if (!pciBusId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pciBusId is NULL");
    if (len < 13)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "len %d: the buffer needs 13 bytes (dddd:bb:dd.f and a NUL)", (int)len);
    device_props p;
    aclError err = device_props_get(__func__, deviceId, &p, NULL);
    if (err)
        return err;
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", (unsigned)p.pci_domain & 0xffffu,
             (unsigned)p.pci_bus & 0xffu, (unsigned)p.pci_device & 0x1fu);
    return ACL_SUCCESS;
}

/* "domain:bus:device.function", or "bus:device.function" (domain 0), in
 * hexadecimal. */
static bool parse_pci(const char *text, unsigned *domain, unsigned *bus, unsigned *dev)
{
    unsigned fn;
    int used = 0;
    if (sscanf(text, "%x:%x:%x.%x%n", domain, bus, dev, &fn, &used) == 4 && text[used] == '\0')
        return true;
    used = 0;
    *domain = 0;
    return sscanf(text, "%x:%x.%x%n", bus, dev, &fn, &used) == 3 && text[used] == '\0';
}

ACL_EXPORT aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)
{
    PROF_API();
    if (!pciBusId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pciBusId is NULL");
    if (!deviceId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceId is NULL");
    unsigned domain, bus, dev;
    if (strnlen(pciBusId, 64) == 64 || !parse_pci(pciBusId, &domain, &bus, &dev))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "\"%.64s\" is not a PCI address (domain:bus:device.function)", pciBusId);
    int32_t count = device_visible_count();
    for (int32_t d = 0; d < count; d++) {
        device_props p;
        int32_t phys;
        if (device_to_phys(d, &phys) || backend()->device->props(phys, &p))
            continue;
        if ((unsigned)p.pci_domain == domain && (unsigned)p.pci_bus == bus &&
            (unsigned)p.pci_device == dev) {
            *deviceId = d;
            return ACL_SUCCESS;
        }
    }
    return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "no visible device is at %s", pciBusId);
}

ACL_EXPORT aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
    PROF_API();
    return user_to_logic(__func__, userDevId, phyDevId);
}

ACL_EXPORT aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
    PROF_API();
    return logic_to_user(__func__, phyDevId, userDevId);
}

/* ---- limits (aclrtDeviceSetLimit) ------------------------------------------------------------
 * Process-wide, as in ACL: kept here and applied to every device set so
 * far and to each device when it is set (aclrtSetDevice). CUDA has the
 * SIMT ones (the per-thread stack, the printf buffer); Ascend's SIMD and
 * divergence stacks have no counterpart. */

enum { LIMIT_COUNT = ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE + 1 };
static _Atomic size_t limit_values[LIMIT_COUNT];

static aclError device_limit_of(const char *api, aclrtDeviceLimit limit, device_limit *out)
{
    switch (limit) {
    case ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE:
        *out = DEVICE_LIMIT_STACK_SIZE;
        return ACL_SUCCESS;
    case ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE:
        *out = DEVICE_LIMIT_PRINTF_FIFO;
        return ACL_SUCCESS;
    case ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE:
    case ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE:
    case ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE:
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "limit %d sizes an Ascend core's SIMD or divergence stack, which a GPU "
                         "does not have",
                         (int)limit);
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown aclrtDeviceLimit %d", (int)limit);
    }
}

/* Applies the limits set so far to a device (on aclrtSetDevice). */
static void apply_limits(int32_t phys)
{
    const backend_device_ops *ops = backend()->device;
    if (!ops->set_limit)
        return;
    size_t stack = atomic_load(&limit_values[ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE]);
    size_t fifo = atomic_load(&limit_values[ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE]);
    if (stack && ops->set_limit(phys, DEVICE_LIMIT_STACK_SIZE, stack))
        ACL_LOG(LOG_WARNING, "device %d: the SIMT stack size of %zu bytes could not be applied",
                (int)phys, stack);
    if (fifo && ops->set_limit(phys, DEVICE_LIMIT_PRINTF_FIFO, fifo))
        ACL_LOG(LOG_WARNING, "device %d: the printf buffer of %zu bytes could not be applied",
                (int)phys, fifo);
}

ACL_EXPORT aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)
{
    PROF_API();
    device_limit which;
    aclError err = device_limit_of(__func__, limit, &which);
    if (err)
        return err;
    if (which == DEVICE_LIMIT_STACK_SIZE) {
        if (value == 0)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "a stack size of 0 bytes");
        value = (value + 127) / 128 * 128;
    } else {
        value = (value + 7) / 8 * 8;
        if (value < (1u << 20) || value > (64u << 20))
            return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                             "printf buffer of %zu bytes: 1 MiB to 64 MiB are allowed", value);
    }
    const backend_device_ops *ops = backend()->device;
    if (!ops->set_limit)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the %s backend has no device limits",
                         backend()->name);
    atomic_store(&limit_values[limit], value);
    int32_t count = device_visible_count();
    for (int32_t d = 0; d < count; d++) {
        int32_t phys;
        if (device_to_phys(d, &phys) == ACL_SUCCESS && device_primary_active(phys) &&
            (err = ops->set_limit(phys, which, value)))
            return ACL_RAISE(err, "applying the limit to device %d failed", (int)d);
    }
    return ACL_SUCCESS;
}

/* What was set (even if no device was set since), else device 0's value. */
ACL_EXPORT aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    device_limit which;
    aclError err = device_limit_of(__func__, limit, &which);
    if (err)
        return err;
    size_t set = atomic_load(&limit_values[limit]);
    if (set) {
        *value = set;
        return ACL_SUCCESS;
    }
    const backend_device_ops *ops = backend()->device;
    if (!ops->get_limit)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the %s backend has no device limits",
                         backend()->name);
    int32_t phys;
    err = device_resolve(__func__, 0, &phys);
    if (err)
        return err;
    err = ops->get_limit(phys, which, value);
    return err ? ACL_RAISE(err, "reading the limit of device 0 failed") : ACL_SUCCESS;
}

/* ---- atomic operations ------------------------------------------------------------------- */

static aclError check_atomic_ops(const char *api, uint32_t *caps, const aclrtAtomicOperation *ops,
                                 uint32_t count)
{
    if (!caps)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "capabilities is NULL");
    if (!ops)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "operations is NULL");
    if (count == 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "count is 0");
    for (uint32_t i = 0; i < count; i++) {
        int op = (int)ops[i];
        bool known =
            (op >= 0 && op < ATOMIC_OPERATION_COUNT) ||
            (op >= ACL_RT_ATOMIC_OPERATION_DMA_ADD && op <= ACL_RT_ATOMIC_OPERATION_DMA_MAX) ||
            (op >= ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD &&
             op <= ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH);
        if (!known)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "operations[%u] = %d is not an aclrtAtomicOperation", i, op);
    }
    return ACL_SUCCESS;
}

/* Ascend's DMA and SIMD operations have no GPU counterpart: no capability. */
static aclError atomic_caps(const char *api, uint32_t *caps, const aclrtAtomicOperation *ops,
                            uint32_t count, int32_t device, int32_t peer_device, bool to_peer)
{
    aclError err = check_atomic_ops(api, caps, ops, count);
    int32_t phys, peer = -1;
    if (!err)
        err = device_resolve(api, device, &phys);
    if (!err && to_peer)
        err = device_resolve(api, peer_device, &peer);
    if (err)
        return err;
    if (to_peer && peer == phys)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "a device is not its own peer (%d)",
                         (int)device);
    const backend_device_ops *bops = backend()->device;
    if (!bops->atomic_caps)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend cannot report atomic capabilities", backend()->name);
    _Static_assert(sizeof(aclrtAtomicOperation) == sizeof(int), "enum size");
    err = bops->atomic_caps(phys, peer, (const int *)ops, caps, count);
    return err ? acl_raise(api, err, "querying atomic capabilities of device %d failed",
                           (int)device)
               : ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities,
                                                         const aclrtAtomicOperation *operations,
                                                         const uint32_t count, int32_t deviceId)
{
    PROF_API();
    return atomic_caps(__func__, capabilities, operations, count, deviceId, -1, false);
}

ACL_EXPORT aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities,
                                                        const aclrtAtomicOperation *operations,
                                                        const uint32_t count, int32_t srcDeviceId,
                                                        int32_t dstDeviceId)
{
    PROF_API();
    return atomic_caps(__func__, capabilities, operations, count, srcDeviceId, dstDeviceId, true);
}

/* ---- topology ------------------------------------------------------------------------------
 * NVLink is reported as HCCS (Huawei's device-to-device link, its
 * counterpart); PCIe paths as ACL names them. */
ACL_EXPORT aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    int32_t a, b;
    aclError err = device_resolve(__func__, (int32_t)deviceId, &a);
    if (!err)
        err = device_resolve(__func__, (int32_t)otherDeviceId, &b);
    if (err)
        return err;
    if (a == b)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "device %u and itself are not linked", deviceId);
    const backend_device_ops *ops = backend()->device;
    if (!ops->link)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend does not know its topology", backend()->name);
    device_link link;
    err = ops->link(a, b, &link);
    if (err)
        return ACL_RAISE(err, "reading the link between devices %u and %u failed", deviceId,
                         otherDeviceId);
    switch (link) {
    case DEVICE_LINK_NVLINK:
        *value = ACL_RT_DEVS_TOPOLOGY_HCCS;
        break;
    case DEVICE_LINK_PCIE_SWITCH:
        *value = ACL_RT_DEVS_TOPOLOGY_PIX;
        break;
    case DEVICE_LINK_HOST_BRIDGE:
        *value = ACL_RT_DEVS_TOPOLOGY_PHB;
        break;
    default:
        *value = ACL_RT_DEVS_TOPOLOGY_SYS;
        break;
    }
    return ACL_SUCCESS;
}

/* ---- state callbacks, task abort ------------------------------------------------------------- */

ACL_EXPORT aclError aclrtRegDeviceStateCallback(const char *regName,
                                                aclrtDeviceStateCallback callback, void *args)
{
    PROF_API();
    return statecb_register(__func__, STATECB_DEVICE, regName, (void (*)(void))callback, args);
}

/* ---- resource limits (core/reslimit.h) ------------------------------------------------------- */

static aclError res_args(const char *api, int32_t deviceId, aclrtDevResLimitType type,
                         int32_t *phys)
{
    if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "type %d is not ACL_RT_DEV_RES_CUBE_CORE or ACL_RT_DEV_RES_VECTOR_CORE",
                         (int)type);
    return device_resolve(api, deviceId, phys);
}

ACL_EXPORT aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                           uint32_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    int32_t phys;
    aclError err = res_args(__func__, deviceId, type, &phys);
    if (!err && (err = reslimit_device_get(phys, (int)type, value)))
        ACL_RAISE(err, "reading the cores of device %d failed", (int)deviceId);
    return err;
}

ACL_EXPORT aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                           uint32_t value)
{
    PROF_API();
    int32_t phys;
    aclError err = res_args(__func__, deviceId, type, &phys);
    if (err)
        return err;
    uint32_t hardware;
    if ((err = reslimit_hardware(phys, &hardware)))
        return ACL_RAISE(err, "reading the cores of device %d failed", (int)deviceId);
    if (value == 0 || value > hardware)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%u cores: device %d has 1 to %u", value,
                         (int)deviceId, hardware);
    reslimit_device_set(phys, (int)type, value);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    PROF_API();
    int32_t phys;
    aclError err = device_resolve(__func__, deviceId, &phys);
    if (err)
        return err;
    for (int t = 0; t < RES_LIMIT_TYPES; t++)
        reslimit_device_set(phys, t, 0);
    return ACL_SUCCESS;
}

/* ---- floating-point overflow status --------------------------------------------------------
 * Refused, all of them, and so is turning the stream switch on and the
 * saturation mode: a GPU's floating-point arithmetic is IEEE's, overflow
 * gives inf or NaN in the results (ACL's INFNAN mode, the default), and
 * there is no overflow status register to read or reset. */

static aclError no_overflow_status(const char *api)
{
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "a GPU keeps no floating-point overflow status: overflow gives inf or NaN "
                     "in the results (INFNAN mode), which is where to look for it");
}

ACL_EXPORT aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    PROF_API();
    (void)outputAddr;
    (void)outputSize;
    (void)stream;
    return no_overflow_status(__func__);
}

ACL_EXPORT aclError aclrtResetOverflowStatus(aclrtStream stream)
{
    PROF_API();
    (void)stream;
    return no_overflow_status(__func__);
}

ACL_EXPORT aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize,
                                                aclrtStream stream)
{
    PROF_API();
    (void)outputAddr;
    (void)outputSize;
    (void)stream;
    return no_overflow_status(__func__);
}

ACL_EXPORT aclError aclrtResetFloatOverflowStatus(aclrtStream stream)
{
    PROF_API();
    (void)stream;
    return no_overflow_status(__func__);
}

ACL_EXPORT aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize,
                                                   uint32_t checkMode, aclrtStream stream)
{
    PROF_API();
    (void)outputAddr;
    (void)outputSize;
    (void)checkMode;
    (void)stream;
    return no_overflow_status(__func__);
}

ACL_EXPORT aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)
{
    PROF_API();
    (void)checkMode;
    (void)stream;
    return no_overflow_status(__func__);
}
