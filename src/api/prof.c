/* Profiling (acl/acl_prof.h) and the mstx markers (mstx/ms_tools_ext.h):
 * argument rules and codes; core/prof.c collects and writes. */
#include <stdio.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "api/api.h"
#include "core/current.h"
#include "core/device.h"
#include "core/prof.h"
#include "core/stream.h"
#include "mstx/ms_tools_ext.h"

enum { PROF_PATH_MAX = 4096, PROF_CONFIG_VALUE_MAX = 256, STAMP_MESSAGE_MAX = 256 };

/* Every ACL_PROF_* bit of the header. */
#define PROF_KNOWN_TYPES                                                                           \
    (ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU |            \
     ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE | ACL_PROF_MSPROFTX |        \
     ACL_PROF_RUNTIME_API | ACL_PROF_GE_API_L0 | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_MEMORY |    \
     ACL_PROF_GE_API_L1 | ACL_PROF_TASK_TIME_L2 | ACL_PROF_OP_ATTR | ACL_PROF_TASK_TIME_L3 |       \
     ACL_PROF_API_STATS | ACL_PROF_AICORE_SHAPE)

struct aclprofConfig {
    uint64_t types;
    aclprofAicoreMetrics metrics;
    uint32_t device_count;
    uint32_t devices[];
};

struct aclprofStepInfo {
    uint64_t steps;
};

typedef struct prof_stamp {
    char message[STAMP_MESSAGE_MAX + 1];
} prof_stamp;

struct mstxDomainRegistration_st {
    char name[STAMP_MESSAGE_MAX + 1];
};

/* A new object of kind, zeroed; NULL, raised, when out of memory. */
static void *object_new(const char *api, prof_object_kind kind, size_t size)
{
    void *obj = prof_object_new(kind, size);
    if (!obj)
        acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    return obj;
}

/* Raises what is wrong with obj, one of creator's objects that is NULL or
 * not live (destroyed, or never made by creator). */
static aclError object_refused(const char *api, const void *obj, const char *name,
                               const char *creator)
{
    if (!obj)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", name);
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is not a live %s result", name, obj,
                     creator);
}

/* A message of 1 to STAMP_MESSAGE_MAX bytes. */
static aclError message_check(const char *api, const char *msg, size_t msgLen)
{
    if (!msg)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "msg is NULL");
    if (msgLen == 0 || msgLen > STAMP_MESSAGE_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "msgLen %zu: 1 to %d bytes", msgLen,
                         STAMP_MESSAGE_MAX);
    return ACL_SUCCESS;
}

/* The first msgLen bytes of msg, up to its NUL, as a string in text (of
 * STAMP_MESSAGE_MAX + 1 bytes). */
static void message_copy(char *text, const char *msg, size_t msgLen)
{
    size_t n = strnlen(msg, msgLen);
    memcpy(text, msg, n);
    text[n] = '\0';
}

/* The id of stream (NULL: the current context's default stream). */
static aclError stream_id(const char *api, aclrtStream stream, int32_t *id)
{
    acl_stream *s;
    aclError err = current_stream_get(api, stream, &s);
    if (err)
        return err;
    *id = s->id;
    stream_put(s);
    return ACL_SUCCESS;
}

static aclError prof_raise(const char *api, aclError err)
{
    switch (err) {
    case ACL_SUCCESS:
        return ACL_SUCCESS;
    case ACL_ERROR_PROF_API_CONFLICT:
        return acl_raise(api, err,
                         "profiling was started for the whole run by ACLCUDA_PROF_OUTPUT "
                         "(acl-cuda-prof); the profiling API cannot be mixed with it");
    case ACL_ERROR_PROF_ALREADY_RUN:
        return acl_raise(api, err, "profiling is already %s",
                         strcmp(api, "aclprofInit") == 0 ? "initialised (aclprofFinalize first)"
                                                         : "started (aclprofStop first)");
    case ACL_ERROR_PROF_NOT_RUN:
        return acl_raise(api, err, "profiling was not %s",
                         strcmp(api, "aclprofStop") == 0 ? "started (aclprofStart)"
                                                         : "initialised (aclprofInit)");
    case ACL_ERROR_INVALID_PROFILING_CONFIG:
        return acl_raise(api, err, "the configuration's data types differ from aclprofStart's");
    case ACL_ERROR_PROFILING_FAILURE:
        return acl_raise(api, err, "the profile could not be written to %s (errors in the log)",
                         prof_output_dir());
    default:
        return acl_raise(api, err, "failed");
    }
}

ACL_EXPORT aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    PROF_API();
    if (!profilerResultPath)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "profilerResultPath is NULL");
    size_t n = strnlen(profilerResultPath, length);
    if (n == 0 || length > PROF_PATH_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "length %zu: a path of 1 to %d bytes is needed",
                         length, PROF_PATH_MAX);
    aclError err = prof_init(profilerResultPath, n);
    if (err == ACL_ERROR_INVALID_PARAM)
        return ACL_RAISE(err, "\"%.*s\" is not a directory that can be made and written", (int)n,
                         profilerResultPath);
    return prof_raise(__func__, err);
}

ACL_EXPORT aclError aclprofFinalize(void)
{
    PROF_API();
    return prof_raise(__func__, prof_finalize());
}

ACL_EXPORT aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                              aclprofAicoreMetrics aicoreMetrics,
                                              const aclprofAicoreEvents *aicoreEvents,
                                              uint64_t dataTypeConfig)
{
    PROF_API();
    if (deviceNums > 0 && !deviceIdList) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "deviceIdList is NULL for %u devices", deviceNums);
        return NULL;
    }
    if (aicoreEvents) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "aicoreEvents must be NULL");
        return NULL;
    }
    if (dataTypeConfig & ~PROF_KNOWN_TYPES) {
        ACL_RAISE(ACL_ERROR_INVALID_PROFILING_CONFIG, "dataTypeConfig 0x%llx has unknown bits",
                  (unsigned long long)dataTypeConfig);
        return NULL;
    }
    if ((uint32_t)aicoreMetrics > ACL_AICORE_MEMORY_ACCESS && aicoreMetrics != ACL_AICORE_NONE) {
        ACL_RAISE(ACL_ERROR_INVALID_PROFILING_CONFIG,
                  "aicoreMetrics %d is not an aclprofAicoreMetrics", (int)aicoreMetrics);
        return NULL;
    }
    int32_t count = device_visible_count();
    for (uint32_t i = 0; i < deviceNums; i++) {
        if (deviceIdList[i] >= (uint32_t)count) {
            ACL_RAISE(ACL_ERROR_INVALID_PROFILING_CONFIG, "device %u does not exist (%d devices)",
                      deviceIdList[i], (int)count);
            return NULL;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (deviceIdList[j] == deviceIdList[i]) {
                ACL_RAISE(ACL_ERROR_INVALID_PROFILING_CONFIG, "device %u is listed twice",
                          deviceIdList[i]);
                return NULL;
            }
        }
    }
    aclprofConfig *c =
        object_new(__func__, PROF_CONFIG, sizeof *c + (size_t)deviceNums * sizeof c->devices[0]);
    if (!c)
        return NULL;
    c->types = dataTypeConfig;
    c->metrics = aicoreMetrics;
    c->device_count = deviceNums;
    if (deviceNums)
        memcpy(c->devices, deviceIdList, deviceNums * sizeof c->devices[0]);
    return c;
}

ACL_EXPORT aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    PROF_API();
    if (!profilerConfig || !prof_object_free(PROF_CONFIG, profilerConfig))
        return object_refused(__func__, profilerConfig, "profilerConfig", "aclprofCreateConfig");
    return ACL_SUCCESS;
}

static aclError config_check(const char *api, const aclprofConfig *c)
{
    if (!c || !prof_object_live(PROF_CONFIG, c))
        return object_refused(api, c, "profilerConfig", "aclprofCreateConfig");
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofStart(const aclprofConfig *profilerConfig)
{
    PROF_API();
    aclError err = config_check(__func__, profilerConfig);
    if (err)
        return err;
    if (profilerConfig->types == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PROFILING_CONFIG,
                         "the configuration selects no data (dataTypeConfig 0)");
    return prof_raise(__func__, prof_start(profilerConfig->types));
}

ACL_EXPORT aclError aclprofStop(const aclprofConfig *profilerConfig)
{
    PROF_API();
    aclError err = config_check(__func__, profilerConfig);
    if (err)
        return err;
    return prof_raise(__func__, prof_stop(profilerConfig->types));
}

ACL_EXPORT aclError aclprofSetConfig(aclprofConfigType configType, const char *config,
                                     size_t configLength)
{
    PROF_API();
    if (!config)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "config is NULL");
    if (configLength == 0 || configLength > PROF_CONFIG_VALUE_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "configLength %zu: 1 to %d bytes", configLength,
                         PROF_CONFIG_VALUE_MAX);
    if (configType <= ACL_PROF_ARGS_MIN || configType >= ACL_PROF_ARGS_MAX || configType == 2)
        return ACL_RAISE(ACL_ERROR_INVALID_PROFILING_CONFIG,
                         "configType %d is not an aclprofConfigType", (int)configType);
    /* The settings tune Ascend's collectors (system sampling, storage
     * limits, operator filters); the host timeline has none of them. */
    ACL_LOG(LOG_INFO, "aclprofSetConfig %d accepted, nothing to apply", (int)configType);
    return ACL_SUCCESS;
}

/* ---- subscriptions: refused ------------------------------------------------------------------ */

#define SUBSCRIBE_REFUSED                                                                          \
    "subscriptions deliver the operator records of offline models (aclmdlLoad*), which run on "    \
    "Ascend's AI cores and which acl-cuda cannot load; the timeline of aclprofStart covers "       \
    "acl-cuda's streams and tasks"

/* The readers of a subscription's operator records: refused whatever record
 * they are given. */
static aclError op_info_refused(const char *api, const void *opInfo, size_t opInfoLen,
                                uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
}

ACL_EXPORT aclError aclprofModelSubscribe(uint32_t modelId,
                                          const aclprofSubscribeConfig *profSubscribeConfig)
{
    PROF_API();
    (void)modelId;
    (void)profSubscribeConfig;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
}

ACL_EXPORT aclError aclprofModelUnSubscribe(uint32_t modelId)
{
    PROF_API();
    (void)modelId;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
}

ACL_EXPORT aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
                                                                aclprofAicoreMetrics aicoreMetrics,
                                                                void *fd)
{
    PROF_API();
    (void)timeInfoSwitch;
    (void)aicoreMetrics;
    (void)fd;
    ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
    return NULL;
}

ACL_EXPORT aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
    PROF_API();
    (void)profSubscribeConfig;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
}

ACL_EXPORT aclError aclprofGetOpDescSize(size_t *opDescSize)
{
    PROF_API();
    (void)opDescSize;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
}

ACL_EXPORT aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
    PROF_API();
    (void)opInfo;
    (void)opInfoLen;
    (void)opNumber;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, SUBSCRIBE_REFUSED);
}

ACL_EXPORT aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index,
                                        size_t *opTypeLen)
{
    PROF_API();
    (void)opTypeLen;
    return op_info_refused(__func__, opInfo, opInfoLen, index);
}

ACL_EXPORT aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index,
                                     char *opType, size_t opTypeLen)
{
    PROF_API();
    (void)opType;
    (void)opTypeLen;
    return op_info_refused(__func__, opInfo, opInfoLen, index);
}

ACL_EXPORT aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index,
                                        size_t *opNameLen)
{
    PROF_API();
    (void)opNameLen;
    return op_info_refused(__func__, opInfo, opInfoLen, index);
}

ACL_EXPORT aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index,
                                     char *opName, size_t opNameLen)
{
    PROF_API();
    (void)opName;
    (void)opNameLen;
    return op_info_refused(__func__, opInfo, opInfoLen, index);
}

ACL_EXPORT uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    PROF_API();
    op_info_refused(__func__, opInfo, opInfoLen, index);
    return 0;
}

ACL_EXPORT uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    PROF_API();
    op_info_refused(__func__, opInfo, opInfoLen, index);
    return 0;
}

ACL_EXPORT uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    PROF_API();
    op_info_refused(__func__, opInfo, opInfoLen, index);
    return 0;
}

ACL_EXPORT size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    PROF_API();
    op_info_refused(__func__, opInfo, opInfoLen, index);
    return 0;
}

ACL_EXPORT aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen,
                                                   uint32_t index)
{
    PROF_API();
    op_info_refused(__func__, opInfo, opInfoLen, index);
    return ACL_SUBSCRIBE_NONE;
}

ACL_EXPORT const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
                                              aclprofSubscribeOpAttri attri)
{
    PROF_API();
    (void)attri;
    op_info_refused(__func__, opInfo, opInfoLen, index);
    return NULL;
}

/* ---- steps ----------------------------------------------------------------------------------- */

ACL_EXPORT aclprofStepInfo *aclprofCreateStepInfo(void)
{
    PROF_API();
    return object_new(__func__, PROF_STEP, sizeof(aclprofStepInfo));
}

ACL_EXPORT void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
    PROF_API();
    if (!stepinfo || !prof_object_free(PROF_STEP, stepinfo))
        object_refused(__func__, stepinfo, "stepinfo", "aclprofCreateStepInfo");
}

ACL_EXPORT aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
                                            aclrtStream stream)
{
    PROF_API();
    if (!stepInfo || !prof_object_live(PROF_STEP, stepInfo))
        return object_refused(__func__, stepInfo, "stepInfo", "aclprofCreateStepInfo");
    if (tag != ACL_STEP_START && tag != ACL_STEP_END)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "tag %d is not an aclprofStepTag", (int)tag);
    int32_t id;
    aclError err = stream_id(__func__, stream, &id);
    if (err)
        return err;
    if (tag == ACL_STEP_START)
        stepInfo->steps++;
    char text[64];
    snprintf(text, sizeof text, "step %llu %s", (unsigned long long)stepInfo->steps,
             tag == ACL_STEP_START ? "start" : "end");
    prof_mark(NULL, text, id);
    return ACL_SUCCESS;
}

/* ---- stamps, marks and ranges ---------------------------------------------------------------- */

ACL_EXPORT void *aclprofCreateStamp(void)
{
    PROF_API();
    return object_new(__func__, PROF_STAMP, sizeof(prof_stamp));
}

ACL_EXPORT void aclprofDestroyStamp(void *stamp)
{
    PROF_API();
    if (!stamp || !prof_object_free(PROF_STAMP, stamp))
        object_refused(__func__, stamp, "stamp", "aclprofCreateStamp");
}

static aclError stamp_check(const char *api, const void *stamp)
{
    if (!stamp || !prof_object_live(PROF_STAMP, stamp))
        return object_refused(api, stamp, "stamp", "aclprofCreateStamp");
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
    PROF_API();
    aclError err = stamp_check(__func__, stamp);
    if (err)
        return err;
    err = message_check(__func__, msg, msgLen);
    if (err)
        return err;
    message_copy(((prof_stamp *)stamp)->message, msg, msgLen);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofMark(void *stamp)
{
    PROF_API();
    aclError err = stamp_check(__func__, stamp);
    if (err)
        return err;
    prof_mark(NULL, ((prof_stamp *)stamp)->message, -1);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
    PROF_API();
    aclError err = message_check(__func__, msg, msgLen);
    int32_t id;
    if (!err)
        err = stream_id(__func__, stream, &id);
    if (err)
        return err;
    char text[STAMP_MESSAGE_MAX + 1];
    message_copy(text, msg, msgLen);
    prof_mark(NULL, text, id);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofPush(void *stamp)
{
    PROF_API();
    aclError err = stamp_check(__func__, stamp);
    if (err)
        return err;
    prof_push(((prof_stamp *)stamp)->message);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofPop(void)
{
    PROF_API();
    if (!prof_pop())
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "the calling thread has no open aclprofPush");
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
    PROF_API();
    aclError err = stamp_check(__func__, stamp);
    if (err)
        return err;
    if (!rangeId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "rangeId is NULL");
    uint64_t id = prof_range_start(NULL, ((prof_stamp *)stamp)->message);
    if (!id || id > UINT32_MAX)
        return ACL_RAISE(ACL_ERROR_BAD_ALLOC, "no range could be opened");
    *rangeId = (uint32_t)id;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofRangeStop(uint32_t rangeId)
{
    PROF_API();
    if (!prof_range_end(rangeId))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "range %u is not open", rangeId);
    return ACL_SUCCESS;
}

/* FNV-1a: the same text always gives the same id. */
ACL_EXPORT uint64_t aclprofStr2Id(const char *message)
{
    PROF_API();
    if (!message) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "message is NULL");
        return 0;
    }
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)message; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

ACL_EXPORT aclError aclprofRangePushEx(aclprofEventAttributes *attr)
{
    PROF_API();
    if (!attr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attr is NULL");
    if (attr->messageType != ACL_PROF_MESSAGE_TYPE_TENSOR_INFO)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "messageType %u is not an aclprofMessageType",
                         attr->messageType);
    if (!attr->message.tensorInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attr->message.tensorInfo is NULL");
    const aclprofTensorInfo *info = attr->message.tensorInfo;
    char text[96];
    snprintf(text, sizeof text, "op %llx type %llx, %u tensors", (unsigned long long)info->opNameId,
             (unsigned long long)info->opTypeId, info->tensorNum);
    prof_push(text);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofRangePop(void)
{
    PROF_API();
    if (!prof_pop())
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "the calling thread has no open range");
    return ACL_SUCCESS;
}

/* ---- mstx ------------------------------------------------------------------------------------ *
 * No error channel: a bad argument is logged and ignored; a failed range
 * start returns 0. */

static int32_t mstx_stream_id(const char *api, aclrtStream stream)
{
    if (!stream)
        return -1;
    acl_stream *s;
    if (stream_get(api, stream, &s) != ACL_SUCCESS)
        return -1;
    int32_t id = s->id;
    stream_put(s);
    return id;
}

static const char *domain_name(mstxDomainHandle_t domain)
{
    return domain && prof_object_live(PROF_DOMAIN, domain) ? domain->name : NULL;
}

ACL_EXPORT void mstxMarkA(const char *message, aclrtStream stream)
{
    PROF_API();
    if (!message) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "message is NULL");
        return;
    }
    prof_mark(NULL, message, mstx_stream_id(__func__, stream));
}

ACL_EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
    PROF_API();
    (void)stream;
    if (!message) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "message is NULL");
        return 0;
    }
    return prof_range_start(NULL, message);
}

ACL_EXPORT void mstxRangeEnd(mstxRangeId id)
{
    PROF_API();
    if (!prof_range_end(id))
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "range %llu is not open", (unsigned long long)id);
}

ACL_EXPORT mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
    PROF_API();
    if (!name) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "name is NULL");
        return NULL;
    }
    mstxDomainHandle_t domain = object_new(__func__, PROF_DOMAIN, sizeof *domain);
    if (!domain)
        return NULL;
    snprintf(domain->name, sizeof domain->name, "%s", name);
    return domain;
}

ACL_EXPORT void mstxDomainDestroy(mstxDomainHandle_t domain)
{
    PROF_API();
    if (!prof_object_free(PROF_DOMAIN, domain))
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "domain %p is not a live mstxDomainCreateA result",
                  (void *)domain);
}

ACL_EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
    PROF_API();
    const char *name = domain_name(domain);
    if (!name || !message) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", !name ? "domain is not live" : "message is NULL");
        return;
    }
    prof_mark(name, message, mstx_stream_id(__func__, stream));
}

ACL_EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
                                             aclrtStream stream)
{
    PROF_API();
    (void)stream;
    const char *name = domain_name(domain);
    if (!name || !message) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", !name ? "domain is not live" : "message is NULL");
        return 0;
    }
    return prof_range_start(name, message);
}

ACL_EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
    PROF_API();
    if (!domain_name(domain)) {
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "domain %p is not live", (void *)domain);
        return;
    }
    if (!prof_range_end(id))
        ACL_RAISE(ACL_ERROR_INVALID_PARAM, "range %llu is not open", (unsigned long long)id);
}
