/* The functions of hccl_comm.h that make, describe and destroy
 * communicators, group collectives and report errors. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "acl/acl.h"
#include "hccl/api.h"
#include "hccl/cluster.h"
#include "hccl/env.h"
#include "hccl/hccl.h"
#include "hccl/rank_table.h"
#include "hccl/root_info.h"
#include "hccl/select.h"

#define CLUSTER_COMM_NAME "hccl_world_group"
#define MAX_STATE_CALLBACKS 32

/* What a communicator takes from an HcclCommConfig. */
typedef struct comm_settings {
    char name[COMM_NAME_MAX_LENGTH]; /* "" = the default */
    double exec_timeout_s;
} comm_settings;

/* HcclCommConfigInit's header, at the start of every config. */
typedef struct config_header {
    size_t size;
    uint32_t magic;
    uint32_t version;
    uint64_t reserved;
} config_header;

_Static_assert(sizeof(config_header) == HCCL_COMM_CONFIG_INFO_BYTES, "CANN's 24-byte header");

/* A config from an older header is shorter: a setting past its size is not set. */
#define CONFIG_HAS(config, size, field)                                                            \
    (offsetof(HcclCommConfig, field) + sizeof((config)->field) <= (size))

static HcclResult read_config(const char *api, const HcclCommConfig *config, comm_settings *s)
{
    s->name[0] = '\0';
    s->exec_timeout_s = hccl_env()->exec_timeout_s;
    if (!config)
        return HCCL_SUCCESS;
    config_header header;
    memcpy(&header, config, sizeof header);
    if (header.magic != HCCL_COMM_CONFIG_MAGIC_WORD)
        return hccl_raise(api, HCCL_E_PARA,
                          "config was not prepared by HcclCommConfigInit (magic word 0x%08x)",
                          header.magic);
    if (header.size < sizeof header)
        return hccl_raise(api, HCCL_E_PARA, "config says it is %zu bytes, less than its header",
                          header.size);
    size_t size = header.size < sizeof *config ? header.size : sizeof *config;
    if (CONFIG_HAS(config, size, hcclDeterministic) &&
        config->hcclDeterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET &&
        config->hcclDeterministic > 2)
        return hccl_raise(api, HCCL_E_PARA, "config->hcclDeterministic is %u; 0, 1 or 2 is read",
                          config->hcclDeterministic);
    if (CONFIG_HAS(config, size, hcclOpExpansionMode)) {
        switch (config->hcclOpExpansionMode) {
        case 0: /* the default */
        case 1: /* host: collectives are issued by the host into the stream */
            break;
        case 2:
            return hccl_raise(api, HCCL_E_NOT_SUPPORT,
                              "config->hcclOpExpansionMode 2 (AI CPU) expands collectives on "
                              "Ascend's AI CPU, which a GPU has not; leave it 0");
        case 3:
            return hccl_raise(api, HCCL_E_NOT_SUPPORT,
                              "config->hcclOpExpansionMode 3 (AIV) expands collectives on "
                              "Ascend's vector cores; NCCL's kernels run on the GPU itself: "
                              "leave it 0");
        default:
            return hccl_raise(api, HCCL_E_PARA,
                              "config->hcclOpExpansionMode is %u; 0 to 3 are defined",
                              config->hcclOpExpansionMode);
        }
    }
    if (CONFIG_HAS(config, size, hcclCommName) && config->hcclCommName[0]) {
        size_t len = strnlen(config->hcclCommName, sizeof config->hcclCommName);
        if (len == sizeof config->hcclCommName)
            return hccl_raise(api, HCCL_E_PARA,
                              "config->hcclCommName is not terminated within %d bytes",
                              COMM_NAME_MAX_LENGTH);
        memcpy(s->name, config->hcclCommName, len + 1);
    }
    if (CONFIG_HAS(config, size, hcclExecTimeOut) &&
        config->hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
        if (config->hcclExecTimeOut < 0)
            return hccl_raise(api, HCCL_E_PARA,
                              "config->hcclExecTimeOut is %d; seconds (0 = no limit) are read",
                              config->hcclExecTimeOut);
        s->exec_timeout_s = hccl_exec_timeout_s(config->hcclExecTimeOut);
    }
    return HCCL_SUCCESS;
}

static HcclResult current_device(const char *api, int32_t *device)
{
    aclError err = aclrtGetDevice(device);
    if (err != ACL_SUCCESS)
        return hccl_raise(api, HCCL_E_RUNTIME,
                          "no ACL device is current on this thread (aclrtGetDevice returned %d): "
                          "call aclrtSetDevice first; a communicator's rank runs on the device "
                          "current when it is made",
                          (int)err);
    return HCCL_SUCCESS;
}

/* As CANN, one live communicator of a name per device, checked (as CANN
 * does) before the engine is asked to join anything. */
static HcclResult check_name_free(const char *api, const char *name, int32_t device)
{
    if (!hccl_comm_named_on(name, device))
        return HCCL_SUCCESS;
    return hccl_raise(api, HCCL_E_PARA,
                      "a communicator on device %d is named %s already: each needs a name of its "
                      "own (config->hcclCommName; for a sub-communicator, another subCommId)",
                      (int)device, name);
}

static HcclResult make_comm(const char *api, const hccl_engine *engine, uint32_t nranks,
                            uint32_t rank, int32_t device, const unsigned char *root_bytes,
                            const comm_settings *settings, const char *name, HcclComm *comm)
{
    hccl_join join = {
        .nranks = nranks,
        .rank = rank,
        .device = device,
        .root_bytes = root_bytes,
        .connect_timeout_s = hccl_env()->connect_timeout_s,
        .exec_timeout_s = settings->exec_timeout_s,
    };
    hccl_engine_comm *engine_comm;
    hccl_clear_error();
    HcclResult err = engine->comm_init(&join, &engine_comm);
    if (err)
        return hccl_raise_engine(api, err);
    hccl_comm *made = hccl_comm_register(engine, engine_comm, rank, nranks, device,
                                         settings->exec_timeout_s, name, false);
    if (!made) {
        engine->comm_destroy(engine_comm);
        return hccl_raise(api, HCCL_E_MEMORY, "out of memory for a communicator");
    }
    *comm = hccl_comm_handle(made);
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    HCCL_REQUIRE_PTR(rootInfo);
    const hccl_engine *engine = hccl_engine_select(__func__);
    if (!engine)
        return HCCL_E_NOT_SUPPORT;
    return hccl_root_info_make(__func__, engine, rootInfo);
}

static HcclResult init_root_info(const char *api, uint32_t nRanks, const HcclRootInfo *rootInfo,
                                 uint32_t rank, const HcclCommConfig *config, HcclComm *comm)
{
    if (nRanks == 0)
        return hccl_raise(api, HCCL_E_PARA, "nRanks is 0");
    if (rank >= nRanks)
        return hccl_raise(api, HCCL_E_PARA, "rank %u is not below nRanks %u", rank, nRanks);
    comm_settings settings;
    HcclResult err = read_config(api, config, &settings);
    if (err)
        return err;
    const hccl_engine *engine = hccl_engine_select(api);
    if (!engine)
        return HCCL_E_NOT_SUPPORT;
    uint64_t id;
    const unsigned char *root_bytes;
    err = hccl_root_info_read(api, engine, rootInfo, &id, &root_bytes);
    int32_t device;
    if (!err)
        err = current_device(api, &device);
    if (err)
        return err;
    char name[COMM_NAME_MAX_LENGTH];
    if (settings.name[0])
        memcpy(name, settings.name, sizeof name);
    else
        snprintf(name, sizeof name, "hccl_root_%016llx", (unsigned long long)id);
    if ((err = check_name_free(api, name, device)))
        return err;
    return make_comm(api, engine, nRanks, rank, device, root_bytes, &settings, name, comm);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                            uint32_t rank, HcclComm *comm)
{
    HCCL_REQUIRE_PTR(rootInfo);
    HCCL_REQUIRE_PTR(comm);
    return init_root_info(__func__, nRanks, rootInfo, rank, NULL, comm);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                                  uint32_t rank, const HcclCommConfig *config,
                                                  HcclComm *comm)
{
    HCCL_REQUIRE_PTR(rootInfo);
    HCCL_REQUIRE_PTR(config);
    HCCL_REQUIRE_PTR(comm);
    return init_root_info(__func__, nRanks, rootInfo, rank, config, comm);
}

static HcclResult init_cluster(const char *api, const char *clusterInfo, uint32_t rank,
                               const HcclCommConfig *config, HcclComm *comm)
{
    comm_settings settings;
    HcclResult err = read_config(api, config, &settings);
    if (err)
        return err;
    const hccl_engine *engine = hccl_engine_select(api);
    if (!engine)
        return HCCL_E_NOT_SUPPORT;
    hccl_rank_table table;
    err = hccl_rank_table_load(api, clusterInfo, &table);
    if (err)
        return err;
    int32_t device = -1;
    if (rank >= table.nranks)
        err = hccl_raise(api, HCCL_E_PARA, "rank %u is not in rank table %s (%u ranks)", rank,
                         clusterInfo, table.nranks);
    if (!err)
        err = current_device(api, &device);
    if (!err && device != table.ranks[rank].device)
        err = hccl_raise(api, HCCL_E_PARA,
                         "rank table %s gives rank %u device %d of server %s, but the ACL "
                         "device current on this thread is %d: call aclrtSetDevice(%d) first",
                         clusterInfo, rank, table.ranks[rank].device, table.ranks[rank].server_id,
                         device, table.ranks[rank].device);
    const char *name = settings.name[0] ? settings.name : CLUSTER_COMM_NAME;
    if (!err)
        err = check_name_free(api, name, device);
    unsigned char root_bytes[HCCL_ENGINE_ROOT_BYTES];
    if (!err)
        err = hccl_cluster_rendezvous(api, engine, &table, rank, hccl_env(), root_bytes);
    if (!err)
        err = make_comm(api, engine, table.nranks, rank, device, root_bytes, &settings, name, comm);
    hccl_rank_table_free(&table);
    return err;
}

HCCL_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
                                               HcclComm *comm)
{
    HCCL_REQUIRE_PTR(clusterInfo);
    HCCL_REQUIRE_PTR(comm);
    return init_cluster(__func__, clusterInfo, rank, NULL, comm);
}

HCCL_EXPORT HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                                     HcclCommConfig *config, HcclComm *comm)
{
    HCCL_REQUIRE_PTR(clusterInfo);
    HCCL_REQUIRE_PTR(config);
    HCCL_REQUIRE_PTR(comm);
    return init_cluster(__func__, clusterInfo, rank, config, comm);
}

HCCL_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    if (ndev == 0)
        return HCCL_RAISE(HCCL_E_PARA, "ndev is 0");
    HCCL_REQUIRE_PTR(devices);
    HCCL_REQUIRE_PTR(comms);
    uint32_t count = 0;
    aclError acl_err = aclrtGetDeviceCount(&count);
    if (acl_err != ACL_SUCCESS)
        return HCCL_RAISE(HCCL_E_RUNTIME, "aclrtGetDeviceCount returned %d", (int)acl_err);
    for (uint32_t i = 0; i < ndev; i++) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= count)
            return HCCL_RAISE(HCCL_E_PARA, "devices[%u] is %d; this process sees devices 0 to %u",
                              i, devices[i], count - 1);
        for (uint32_t j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return HCCL_RAISE(HCCL_E_PARA,
                                  "devices[%u] and devices[%u] are both device %d: one rank per "
                                  "device",
                                  j, i, devices[i]);
    }
    const hccl_engine *engine = hccl_engine_select(__func__);
    if (!engine)
        return HCCL_E_NOT_SUPPORT;
    hccl_engine_comm **engine_comms = calloc(ndev, sizeof *engine_comms);
    hccl_comm **made = calloc(ndev, sizeof *made);
    if (!engine_comms || !made) {
        free(engine_comms);
        free(made);
        return HCCL_RAISE(HCCL_E_MEMORY, "out of memory for %u communicators", ndev);
    }
    hccl_clear_error();
    HcclResult err = engine->comm_init_all(ndev, devices, engine_comms);
    if (err) {
        err = hccl_raise_engine(__func__, err);
    } else {
        uint64_t id;
        if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
            id = (uint64_t)(uintptr_t)engine_comms;
        char name[COMM_NAME_MAX_LENGTH];
        snprintf(name, sizeof name, "hccl_all_%016llx", (unsigned long long)id);
        double exec_timeout_s = hccl_env()->exec_timeout_s;
        for (uint32_t i = 0; i < ndev && !err; i++) {
            made[i] = hccl_comm_register(engine, engine_comms[i], i, ndev, devices[i],
                                         exec_timeout_s, name, false);
            if (!made[i])
                err = HCCL_RAISE(HCCL_E_MEMORY, "out of memory for %u communicators", ndev);
        }
        for (uint32_t i = 0; i < ndev; i++) {
            if (!err) {
                comms[i] = hccl_comm_handle(made[i]);
                continue;
            }
            HcclComm handle = made[i] ? hccl_comm_handle(made[i]) : NULL;
            hccl_comm *taken;
            if (handle && hccl_comm_withdraw(__func__, handle, &taken) == HCCL_SUCCESS)
                hccl_comm_free(taken);
            engine->comm_destroy(engine_comms[i]);
        }
    }
    free(engine_comms);
    free(made);
    return err;
}

/* ---- state callbacks ------------------------------------------------------ */

typedef struct state_callback {
    char name[COMM_NAME_MAX_LENGTH];
    HcclCommStateCallback callback;
    void *args;
} state_callback;

static pthread_mutex_t callbacks_lock = PTHREAD_MUTEX_INITIALIZER;
static state_callback callbacks[MAX_STATE_CALLBACKS];
static unsigned callback_count;

HCCL_EXPORT HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb,
                                                    void *args)
{
    HCCL_REQUIRE_PTR(regName);
    HCCL_REQUIRE_PTR(cb);
    if (regName[0] == '\0' || strnlen(regName, COMM_NAME_MAX_LENGTH) == COMM_NAME_MAX_LENGTH)
        return HCCL_RAISE(HCCL_E_PARA, "regName must have 1 to %d characters",
                          COMM_NAME_MAX_LENGTH - 1);
    HcclResult err = HCCL_SUCCESS;
    pthread_mutex_lock(&callbacks_lock);
    unsigned slot = 0;
    while (slot < callback_count && strcmp(callbacks[slot].name, regName) != 0)
        slot++;
    if (slot == MAX_STATE_CALLBACKS) {
        err = HCCL_RAISE(HCCL_E_PARA, "%d services have registered callbacks already",
                         MAX_STATE_CALLBACKS);
    } else {
        /* A service registering again replaces its callback. */
        snprintf(callbacks[slot].name, sizeof callbacks[slot].name, "%s", regName);
        callbacks[slot].callback = cb;
        callbacks[slot].args = args;
        if (slot == callback_count)
            callback_count++;
    }
    pthread_mutex_unlock(&callbacks_lock);
    return err;
}

/* Runs every registered callback, outside the lock; the first failure wins. */
static HcclResult run_state_callbacks(const char *api, HcclComm comm, HcclCommStatePhase phase)
{
    state_callback copy[MAX_STATE_CALLBACKS];
    pthread_mutex_lock(&callbacks_lock);
    unsigned count = callback_count;
    memcpy(copy, callbacks, count * sizeof *copy);
    pthread_mutex_unlock(&callbacks_lock);
    HcclResult first = HCCL_SUCCESS;
    for (unsigned i = 0; i < count; i++) {
        HcclResult got = copy[i].callback(comm, phase, copy[i].args);
        if (got != HCCL_SUCCESS && first == HCCL_SUCCESS)
            first = hccl_raise(api, got, "the state callback of \"%s\" returned %s", copy[i].name,
                               HcclGetErrorString(got));
    }
    return first;
}

HCCL_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    hccl_comm_put(c);
    run_state_callbacks(__func__, comm, HCCL_COMM_STATE_PHASE_DESTROY_PRE);
    err = hccl_comm_withdraw(__func__, comm, &c);
    if (err)
        return err;
    hccl_clear_error();
    err = c->engine->comm_destroy(c->engine_comm);
    if (err)
        err = hccl_raise_engine(__func__, err);
    hccl_comm_free(c);
    HcclResult post = run_state_callbacks(__func__, comm, HCCL_COMM_STATE_PHASE_DESTROY_POST);
    return err ? err : post;
}

/* ---- describing communicators -------------------------------------------- */

/* HcclGetRankSize (rank false) and HcclGetRankId: comm is checked before
 * out, named out_name, as CANN checks them. */
static HcclResult comm_number(const char *api, HcclComm comm, bool rank, uint32_t *out,
                              const char *out_name)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(api, comm, &c);
    if (err)
        return err;
    uint32_t value = rank ? c->rank : c->nranks;
    hccl_comm_put(c);
    if (!out)
        return hccl_raise(api, HCCL_E_PTR, "%s is NULL", out_name);
    *out = value;
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    return comm_number(__func__, comm, false, rankSize, "rankSize");
}

HCCL_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    return comm_number(__func__, comm, true, rank, "rank");
}

HCCL_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    if (commName)
        memcpy(commName, c->name, strlen(c->name) + 1);
    hccl_comm_put(c);
    HCCL_REQUIRE_PTR(commName);
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm)
{
    HCCL_REQUIRE_PTR(commName);
    HCCL_REQUIRE_PTR(comm);
    int32_t device;
    if (aclrtGetDevice(&device) != ACL_SUCCESS)
        device = -1;
    if (hccl_comm_find(commName, device, comm) != HCCL_SUCCESS)
        return HCCL_RAISE(HCCL_E_NOT_FOUND, "no communicator of this process is named \"%.*s\"",
                          COMM_NAME_MAX_LENGTH, commName);
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status)
{
    HCCL_REQUIRE_PTR(commId);
    HCCL_REQUIRE_PTR(status);
    HcclComm found;
    if (hccl_comm_find(commId, -1, &found) != HCCL_SUCCESS)
        return HCCL_RAISE(HCCL_E_NOT_FOUND, "no communicator of this process is named \"%.*s\"",
                          COMM_NAME_MAX_LENGTH, commId);
    /* Communicators are never suspended (HcclCommSuspend is refused). */
    *status = HCCL_COMM_STATUS_READY;
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    if (!asyncError) {
        hccl_comm_put(c);
        return HCCL_RAISE(HCCL_E_PTR, "asyncError is NULL");
    }
    hccl_clear_error();
    err = c->engine->async_error(c->engine_comm, asyncError);
    hccl_comm_put(c);
    return err ? hccl_raise_engine(__func__, err) : HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen,
                                         void *info)
{
    hccl_comm *c;
    HcclResult err = hccl_comm_get(__func__, comm, &c);
    if (err)
        return err;
    hccl_comm_put(c);
    HCCL_REQUIRE_PTR(info);
    if (cfgType != HCCL_CONFIG_TYPE_OP_EXPANSION_MODE)
        return HCCL_RAISE(HCCL_E_PARA, "cfgType %d is not HCCL_CONFIG_TYPE_OP_EXPANSION_MODE",
                          (int)cfgType);
    if (infoLen < sizeof(HcclConfigTypeOpExpansionMode))
        return HCCL_RAISE(HCCL_E_PARA, "infoLen %u is less than %zu", infoLen,
                          sizeof(HcclConfigTypeOpExpansionMode));
    /* The host issues every collective into its stream. */
    HcclConfigTypeOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_HOST;
    memcpy(info, &mode, sizeof mode);
    return HCCL_SUCCESS;
}

/* ---- process-wide settings ------------------------------------------------ */

static atomic_int deterministic;

HCCL_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    if (config != HCCL_DETERMINISTIC)
        return HCCL_RAISE(HCCL_E_PARA, "config %d is not HCCL_DETERMINISTIC", (int)config);
    if (configValue.value < 0 || configValue.value > 2)
        return HCCL_RAISE(HCCL_E_PARA, "HCCL_DETERMINISTIC takes 0, 1 or 2, not %d",
                          configValue.value);
    atomic_store(&deterministic, configValue.value);
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    if (config != HCCL_DETERMINISTIC)
        return HCCL_RAISE(HCCL_E_PARA, "config %d is not HCCL_DETERMINISTIC", (int)config);
    HCCL_REQUIRE_PTR(configValue);
    configValue->value = atomic_load(&deterministic);
    return HCCL_SUCCESS;
}

HCCL_EXPORT uint32_t HcclGetCommConfigCapability(void)
{
    return HCCL_COMM_CONFIG_RESERVED;
}

/* ---- groups ----------------------------------------------------------------- */

static _Thread_local unsigned group_depth;

HCCL_EXPORT HcclResult HcclGroupStart(void)
{
    const hccl_engine *engine = hccl_engine_select(__func__);
    if (!engine)
        return HCCL_E_NOT_SUPPORT;
    hccl_clear_error();
    HcclResult err = engine->group_start();
    if (err)
        return hccl_raise_engine(__func__, err);
    group_depth++;
    return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGroupEnd(void)
{
    if (group_depth == 0)
        return HCCL_RAISE(HCCL_E_PARA, "no HcclGroupStart on this thread is waiting for its end");
    const hccl_engine *engine = hccl_engine_select(__func__);
    if (!engine)
        return HCCL_E_NOT_SUPPORT;
    group_depth--;
    hccl_clear_error();
    HcclResult err = engine->group_end();
    return err ? hccl_raise_engine(__func__, err) : HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    HCCL_REQUIRE_PTR(isGroupEnabled);
    *isGroupEnabled = group_depth > 0;
    return HCCL_SUCCESS;
}

/* ---- sub-communicators ---------------------------------------------------- */

/* CANN's subCommId for a rank that joins no sub-communicator (with rankIds NULL). */
#define NO_SUB_COMM_ID 0xFFFFFFFFULL

/* rankIds names rankNum distinct ranks of parent, this rank at subCommRankId. */
static HcclResult check_sub_ranks(const hccl_comm *parent, uint32_t rankNum,
                                  const uint32_t *rankIds, uint32_t subCommRankId)
{
    if (rankNum > parent->nranks)
        return HCCL_RAISE(HCCL_E_PARA, "rankNum %u is more than the %u ranks of comm", rankNum,
                          parent->nranks);
    for (uint32_t i = 0; i < rankNum; i++) {
        if (rankIds[i] >= parent->nranks)
            return HCCL_RAISE(HCCL_E_PARA, "rankIds[%u] is %u, not a rank of comm (%u ranks)", i,
                              rankIds[i], parent->nranks);
        for (uint32_t j = 0; j < i; j++)
            if (rankIds[j] == rankIds[i])
                return HCCL_RAISE(HCCL_E_PARA, "rankIds[%u] and rankIds[%u] are both rank %u", j, i,
                                  rankIds[i]);
    }
    if (rankIds[subCommRankId] != parent->rank)
        return HCCL_RAISE(HCCL_E_PARA,
                          "rankIds[subCommRankId = %u] is %u, but this rank is rank %u of comm: "
                          "subCommRankId is this rank's index in rankIds",
                          subCommRankId, rankIds[subCommRankId], parent->rank);
    return HCCL_SUCCESS;
}

/* Made by its ranks alone (the engine hands what they need over the parent);
 * the parent's other ranks take no part, and pass rankIds NULL and subCommId
 * 0xFFFFFFFF if they call at all. */
HCCL_EXPORT HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                               uint64_t subCommId, uint32_t subCommRankId,
                                               HcclCommConfig *config, HcclComm *subComm)
{
    HCCL_REQUIRE_PTR(subComm);
    if (!rankIds && subCommId == NO_SUB_COMM_ID)
        return HCCL_SUCCESS; /* this rank joins none */
    if (!rankIds || subCommId == NO_SUB_COMM_ID)
        return HCCL_RAISE(HCCL_E_PARA,
                          "rankIds is %s and subCommId is %llu: a rank of the sub-communicator "
                          "gives both, a rank outside gives rankIds NULL and subCommId 0xFFFFFFFF",
                          rankIds ? "set" : "NULL", (unsigned long long)subCommId);
    if (rankNum == 0)
        return HCCL_RAISE(HCCL_E_PARA, "rankNum is 0");
    if (subCommRankId >= rankNum)
        return HCCL_RAISE(HCCL_E_PARA, "subCommRankId %u is not below rankNum %u", subCommRankId,
                          rankNum);
    HCCL_REQUIRE_PTR(config);
    HCCL_REQUIRE_PTR(comm);
    if (group_depth > 0)
        return HCCL_RAISE(HCCL_E_PARA, "called between HcclGroupStart and HcclGroupEnd");
    comm_settings settings;
    HcclResult err = read_config(__func__, config, &settings);
    if (err)
        return err;
    hccl_comm *parent;
    if ((err = hccl_comm_get(__func__, *comm, &parent)))
        return err;
    if (parent->sub) {
        hccl_comm_put(parent);
        /* CANN documents splitting only a global communicator; its newer
         * engine refuses one split too deep with this code. */
        return HCCL_RAISE(HCCL_E_NOT_SUPPORT,
                          "comm is itself a sub-communicator: split the communicator it was "
                          "made from instead");
    }
    char name[COMM_NAME_MAX_LENGTH];
    err = check_sub_ranks(parent, rankNum, rankIds, subCommRankId);
    if (!err && settings.name[0]) {
        memcpy(name, settings.name, sizeof name);
    } else if (!err && snprintf(name, sizeof name, "%s_sub_%llu", parent->name,
                                (unsigned long long)subCommId) >= (int)sizeof name) {
        err = HCCL_RAISE(HCCL_E_PARA,
                         "the name %s_sub_%llu is longer than %d characters: give one in "
                         "config->hcclCommName",
                         parent->name, (unsigned long long)subCommId, COMM_NAME_MAX_LENGTH - 1);
    }
    if (!err)
        err = check_name_free(__func__, name, parent->device);
    hccl_split split = {
        .nranks = rankNum,
        .ranks = rankIds,
        .rank = subCommRankId,
        .id = subCommId,
        .connect_timeout_s = hccl_env()->connect_timeout_s,
        .exec_timeout_s = settings.exec_timeout_s,
    };
    hccl_engine_comm *engine_comm = NULL;
    if (!err) {
        hccl_clear_error();
        if ((err = parent->engine->comm_split(parent->engine_comm, &split, &engine_comm)))
            err = hccl_raise_engine(__func__, err);
    }
    hccl_comm *made = NULL;
    if (!err && !(made = hccl_comm_register(parent->engine, engine_comm, subCommRankId, rankNum,
                                            parent->device, settings.exec_timeout_s, name, true))) {
        parent->engine->comm_destroy(engine_comm);
        err = HCCL_RAISE(HCCL_E_MEMORY, "out of memory for a communicator");
    }
    hccl_comm_put(parent);
    if (!err)
        *subComm = hccl_comm_handle(made);
    return err;
}
