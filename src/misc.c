/* Version queries, data buffers, data type sizes and half floats, the
 * operator timeouts, and acl-cuda's own extensions (acl/acl_cuda.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

void deadline_after_ms(struct timespec *ts, int64_t timeout_ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (timeout_ms % 1000) * 1000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

/* ---- versions ------------------------------------------------------------- */

ACL_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (!majorVersion || !minorVersion || !patchVersion)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL output pointer");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

/* acl-cuda stands in for the runtime (and so for "CANN" as a whole); the
 * versions it reports are its own package version. */
static bool is_our_package(const char *name)
{
    return !strcmp(name, "runtime") || !strcmp(name, "cann") || !strcmp(name, "CANN");
}

static int version_part(int index)
{
    int parts[3] = {0, 0, 0};
    sscanf(PACKAGE_VERSION, "%d.%d.%d", &parts[0], &parts[1], &parts[2]);
    return parts[index];
}

ACL_EXPORT aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    if (!pkgName || !versionStr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL argument");
    if (!is_our_package(pkgName))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "package \"%s\" is not installed (acl-cuda provides \"runtime\")",
                         pkgName);
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", PACKAGE_VERSION);
    return ACL_SUCCESS;
}

/* Weights chosen so that later versions compare greater. */
ACL_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    if (!pkgName || !versionNum)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL argument");
    if (!is_our_package(pkgName))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "package \"%s\" is not installed (acl-cuda provides \"runtime\")",
                         pkgName);
    *versionNum = version_part(0) * 1000000 + version_part(1) * 10000 + version_part(2) * 100;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    if (!version)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "version is NULL");
    if (name != ACL_PKG_NAME_CANN && name != ACL_PKG_NAME_RUNTIME)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "package %d is not installed (acl-cuda provides the runtime)",
                         (int)name);
    memset(version, 0, sizeof *version);
    snprintf(version->version, sizeof version->version, "%s", PACKAGE_VERSION);
    snprintf(version->majorVersion, sizeof version->majorVersion, "%d", version_part(0));
    snprintf(version->minorVersion, sizeof version->minorVersion, "%d", version_part(1));
    snprintf(version->releaseVersion, sizeof version->releaseVersion, "%d", version_part(2));
    snprintf(version->patchVersion, sizeof version->patchVersion, "0");
    return ACL_SUCCESS;
}

/* ---- data types ---------------------------------------------------------------- */

ACL_EXPORT size_t aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2: /* sub-byte formats are stored one per byte */
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
    case ACL_INT4:
    case ACL_UINT1: return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0; /* ACL_STRING, ACL_DT_UNDEFINED and unknown types have no fixed size */
    }
}

/* IEEE 754 binary16 <-> binary32, round to nearest even. */
ACL_EXPORT float aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = (uint32_t)(value & 0x8000u) << 16;
    uint32_t exp = (value >> 10) & 0x1Fu;
    uint32_t man = value & 0x3FFu;
    float magnitude;
    if (exp == 0)
        magnitude = ldexpf((float)man, -24);
    else if (exp == 31)
        magnitude = man ? NAN : INFINITY;
    else
        magnitude = ldexpf((float)(man | 0x400u), (int)exp - 25);
    return sign ? -magnitude : magnitude;
}

ACL_EXPORT aclFloat16 aclFloatToFloat16(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t exp = (bits >> 23) & 0xFFu;
    uint32_t man = bits & 0x7FFFFFu;
    if (exp == 0xFF)
        return sign | 0x7C00u | (man ? 0x200u : 0);
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31)
        return sign | 0x7C00u;
    if (e <= 0) {
        if (e < -10)
            return sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = man >> shift;
        uint32_t rest = man & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u)))
            half++;
        return sign | (uint16_t)half;
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rest = man & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent, up to infinity: correct */
    return sign | (uint16_t)half;
}

/* ---- data buffers -------------------------------------------------------------- */

struct aclDataBuffer {
    uint32_t magic;
    void *data;
    size_t size;
};

ACL_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *b = malloc(sizeof *b);
    if (!b) {
        ACL_RAISE(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    *b = (aclDataBuffer){MAGIC_BUFFER, data, size};
    if (handle_register(b)) {
        free(b);
        ACL_RAISE(ACL_ERROR_BAD_ALLOC, "out of host memory for the handle table");
        return NULL;
    }
    return b;
}

static aclDataBuffer *lookup_buffer(const char *func, const aclDataBuffer *handle)
{
    aclDataBuffer *b = handle_lookup(handle, MAGIC_BUFFER);
    if (!b)
        acl_raise(func, ACL_ERROR_INVALID_PARAM, "%p is not a live data buffer", (const void *)handle);
    return b;
}

ACL_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    aclDataBuffer *b = lookup_buffer(__func__, dataBuffer);
    if (!b)
        return ACL_ERROR_INVALID_PARAM;
    handle_unregister(b);
    b->magic = 0;
    free(b);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    aclDataBuffer *b = lookup_buffer(__func__, dataBuffer);
    if (!b)
        return ACL_ERROR_INVALID_PARAM;
    b->data = data;
    b->size = size;
    return ACL_SUCCESS;
}

ACL_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    aclDataBuffer *b = lookup_buffer(__func__, dataBuffer);
    return b ? b->data : NULL;
}

ACL_EXPORT uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    aclDataBuffer *b = lookup_buffer(__func__, dataBuffer);
    return b ? (uint32_t)b->size : 0;
}

ACL_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    aclDataBuffer *b = lookup_buffer(__func__, dataBuffer);
    return b ? b->size : 0;
}

/* ---- operator execution timeouts --------------------------------------------------
 * Ascend aborts operators that run too long. No operator runs on acl-cuda's
 * streams, so the setting is kept and reported back, nothing more. The
 * timeout is counted in intervals of OP_TIMEOUT_INTERVAL_US, 1 to 254. */

enum { OP_TIMEOUT_INTERVAL_US = 1000, OP_TIMEOUT_MAX_INTERVALS = 254 };
static _Atomic uint64_t op_timeout_us;

static uint64_t clamp_op_timeout(uint64_t us)
{
    const uint64_t max = (uint64_t)OP_TIMEOUT_INTERVAL_US * OP_TIMEOUT_MAX_INTERVALS;
    if (us == 0 || us > max)
        return max; /* 0 asks for the longest timeout */
    return (us + OP_TIMEOUT_INTERVAL_US - 1) / OP_TIMEOUT_INTERVAL_US * OP_TIMEOUT_INTERVAL_US;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    atomic_store(&op_timeout_us, clamp_op_timeout((uint64_t)timeout * 1000000));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    atomic_store(&op_timeout_us, clamp_op_timeout((uint64_t)timeout * 1000));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    if (!actualTimeout)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "actualTimeout is NULL");
    uint64_t us = clamp_op_timeout(timeout);
    atomic_store(&op_timeout_us, us);
    *actualTimeout = us;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    if (!timeoutMs)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timeoutMs is NULL");
    uint64_t us = atomic_load(&op_timeout_us);
    *timeoutMs = (uint32_t)((us ? us : clamp_op_timeout(0)) / 1000);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    if (!interval)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "interval is NULL");
    *interval = OP_TIMEOUT_INTERVAL_US;
    return ACL_SUCCESS;
}

/* ---- acl-cuda extensions -------------------------------------------------------------- */

ACL_EXPORT const char *aclcudaGetBackendName(void)
{
    return backend()->name;
}

ACL_EXPORT aclError aclcudaGetNativeStream(aclrtStream stream, void **native)
{
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    acl_stream *s;
    aclError err = stream_resolve(__func__, stream, &s);
    if (err)
        return err;
    *native = backend()->stream_native(s->bs);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclcudaGetNativeEvent(aclrtEvent event, void **native)
{
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    if (!handle_lookup(event, MAGIC_EVENT))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live event", event);
    *native = event_native(event);
    return ACL_SUCCESS;
}
