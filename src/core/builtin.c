/* Built-in tasks (builtin.h). */
#include <string.h>

#include "core/builtin.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/memory.h"

static aclError reduce_type_of(aclDataType type, reduce_type *out, size_t *size)
{
    switch (type) {
    case ACL_INT8:
        *out = REDUCE_INT8, *size = 1;
        return ACL_SUCCESS;
    case ACL_INT16:
        *out = REDUCE_INT16, *size = 2;
        return ACL_SUCCESS;
    case ACL_INT32:
        *out = REDUCE_INT32, *size = 4;
        return ACL_SUCCESS;
    case ACL_UINT32:
        *out = REDUCE_UINT32, *size = 4;
        return ACL_SUCCESS;
    case ACL_FLOAT16:
        *out = REDUCE_FP16, *size = 2;
        return ACL_SUCCESS;
    case ACL_BF16:
        *out = REDUCE_BF16, *size = 2;
        return ACL_SUCCESS;
    case ACL_FLOAT:
        *out = REDUCE_FP32, *size = 4;
        return ACL_SUCCESS;
    default:
        return ACL_ERROR_INVALID_PARAM;
    }
}

/* ptr must be device memory of the stream's device, extent bytes long. */
static aclError check_device_memory(const char *api, acl_stream *s, const char *role,
                                    const void *ptr, size_t extent)
{
    if (!ptr)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", role);
    mem_block b;
    memory_locate(ptr, &b);
    if (b.kind != MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is %s, not device memory", role, ptr,
                         memory_where(&b));
    if (b.phys != s->ctx->phys)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p is memory of device %d, stream %d is on device %d", role, ptr,
                         (int)b.device, (int)s->id, (int)s->ctx->device);
    return memory_check_extent(api, role, ptr, extent, &b);
}

aclError builtin_reduce(const char *api, acl_stream *s, void *dst, const void *src, uint64_t count,
                        aclrtReduceKind kind, aclDataType type)
{
    reduce_op op;
    switch (kind) {
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM:
        op = REDUCE_SUM;
        break;
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX:
        op = REDUCE_MAX;
        break;
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN:
        op = REDUCE_MIN;
        break;
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL:
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is a hardware operation of Ascend's "
                         "SDMA engines that CANN does not define; SUM, MAX and MIN are provided");
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown reduce kind %d", (int)kind);
    }
    reduce_type rt;
    size_t elem;
    if (reduce_type_of(type, &rt, &elem))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "data type %d cannot be reduced: int8, int16, int32, uint32, fp16, bf16 "
                         "and fp32 can",
                         (int)type);
    if (count % elem)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "count %llu bytes is not a whole number of %zu-byte elements",
                         (unsigned long long)count, elem);
    if (count > SIZE_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "count %llu bytes",
                         (unsigned long long)count);
    aclError err = check_device_memory(api, s, "dst", dst, (size_t)count);
    if (!err)
        err = check_device_memory(api, s, "src", src, (size_t)count);
    if (err || count == 0)
        return err;
    return stream_submit(
        api, s,
        &(task){
            .kind = TASK_REDUCE,
            .u.reduce = {
                .dst = dst, .src = src, .elements = (size_t)(count / elem), .op = op, .type = rt}});
}

/* ---- random numbers -------------------------------------------------------------------- */

static aclError random_type_of(aclDataType type, random_type *out, size_t *size)
{
    switch (type) {
    case ACL_INT32:
        *out = RANDOM_INT32, *size = 4;
        return ACL_SUCCESS;
    case ACL_INT64:
        *out = RANDOM_INT64, *size = 8;
        return ACL_SUCCESS;
    case ACL_UINT32:
        *out = RANDOM_UINT32, *size = 4;
        return ACL_SUCCESS;
    case ACL_UINT64:
        *out = RANDOM_UINT64, *size = 8;
        return ACL_SUCCESS;
    case ACL_FLOAT16:
        *out = RANDOM_FP16, *size = 2;
        return ACL_SUCCESS;
    case ACL_BF16:
        *out = RANDOM_BF16, *size = 2;
        return ACL_SUCCESS;
    case ACL_FLOAT:
        *out = RANDOM_FP32, *size = 4;
        return ACL_SUCCESS;
    default:
        return ACL_ERROR_INVALID_PARAM;
    }
}

/* One aclrtRandomParaInfo: a value of at most 8 bytes (and, where given,
 * exactly `want` bytes), or the address of one in device memory of the
 * stream's device. */
static aclError random_scalar_of(const char *api, acl_stream *s, const char *role,
                                 const aclrtRandomParaInfo *in, size_t want, random_scalar *out)
{
    if (in->isAddr > 1)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s: isAddr %u is neither 0 nor 1", role,
                         in->isAddr);
    out->is_addr = in->isAddr == 1;
    memcpy(out->bytes, in->valueOrAddr, sizeof out->bytes);
    if (out->is_addr) {
        void *addr;
        memcpy(&addr, in->valueOrAddr, sizeof addr);
        out->size = (uint8_t)(want ? want : 8);
        return check_device_memory(api, s, role, addr, out->size);
    }
    if (in->size == 0 || in->size > 8 || (want && in->size != want))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s: size %u (%s)", role, in->size,
                         want ? "the size of the task's data type is needed"
                              : "1 to 8 bytes are needed");
    out->size = in->size;
    return ACL_SUCCESS;
}

aclError builtin_random_params(const char *api, acl_stream *s, const aclrtRandomNumTaskInfo *info,
                               random_params *out, bool *empty)
{
    random_params p;
    memset(&p, 0, sizeof p);
    *empty = false;
    size_t elem;
    if (random_type_of(info->dataType, &p.type, &elem))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "data type %d: random numbers are int32, int64, uint32, uint64, fp16, "
                         "bf16 or fp32",
                         (int)info->dataType);
    bool is_float = p.type == RANDOM_FP16 || p.type == RANDOM_BF16 || p.type == RANDOM_FP32;
    const aclrtRandomNumFuncParaInfo *fi = &info->randomNumFuncParaInfo;
    aclError err;
    switch (fi->funcType) {
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK:
        p.dist = RANDOM_DROPOUT_BITMASK;
        if (!is_float)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "a dropout bitmask takes its ratio as fp16, bf16 or fp32");
        err = random_scalar_of(api, s, "dropoutRation",
                               &fi->paramInfo.dropoutBitmaskInfo.dropoutRation, elem, &p.a);
        break;
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
        p.dist = RANDOM_UNIFORM;
        err = random_scalar_of(api, s, "min", &fi->paramInfo.uniformDisInfo.min, elem, &p.a);
        if (!err)
            err = random_scalar_of(api, s, "max", &fi->paramInfo.uniformDisInfo.max, elem, &p.b);
        break;
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS:
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS:
        p.dist = fi->funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS ? RANDOM_NORMAL
                                                                        : RANDOM_TRUNCATED_NORMAL;
        if (!is_float)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "normal distributions are fp16, bf16 or fp32");
        err = random_scalar_of(api, s, "mean", &fi->paramInfo.normalDisInfo.mean, elem, &p.a);
        if (!err)
            err =
                random_scalar_of(api, s, "stddev", &fi->paramInfo.normalDisInfo.stddev, elem, &p.b);
        break;
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown random function type %d",
                         (int)fi->funcType);
    }
    if (err)
        return err;
    if ((err = random_scalar_of(api, s, "randomSeed", &info->randomSeed, 0, &p.seed)) ||
        (err = random_scalar_of(api, s, "randomNum", &info->randomNum, 0, &p.count)))
        return err;
    if (!info->randomResultAddr)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "randomResultAddr is NULL");
    /* A count given as a value bounds the result now; one read from device
     * memory is trusted, as ACL does. */
    size_t extent = elem;
    if (!p.count.is_addr) {
        uint64_t n = 0;
        memcpy(&n, p.count.bytes, p.count.size); /* little-endian */
        if (p.dist == RANDOM_DROPOUT_BITMASK)
            extent = (size_t)((n + 7) / 8);
        else if (__builtin_mul_overflow((size_t)n, elem, &extent))
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "randomNum %llu", (unsigned long long)n);
        if (n == 0) {
            *empty = true;
            return ACL_SUCCESS;
        }
    }
    if ((err = check_device_memory(api, s, "randomResultAddr", info->randomResultAddr, extent)))
        return err;
    if (info->randomCounterAddr &&
        (err = check_device_memory(api, s, "randomCounterAddr", info->randomCounterAddr, 8)))
        return err;
    p.result = info->randomResultAddr;
    p.counter = info->randomCounterAddr;
    *out = p;
    return ACL_SUCCESS;
}

aclError builtin_random(const char *api, acl_stream *s, const aclrtRandomNumTaskInfo *info)
{
    random_params p;
    bool empty;
    aclError err = builtin_random_params(api, s, info, &p, &empty);
    if (err || empty)
        return err;
    return stream_submit(api, s,
                         &(task){.kind = TASK_RANDOM, .u.random = {.params = &p, .info = info}});
}
