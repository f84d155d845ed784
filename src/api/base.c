/* The base helpers (acl_base_rt.h and acl_rt.h): versions, data type
 * sizes and half floats, data buffers, and the application log. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/buffer.h"
#include "core/device.h"

/* ---- versions ------------------------------------------------------------- */

ACL_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                    int32_t *patchVersion)
{
    PROF_API();
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
    PROF_API();
    if (!pkgName || !versionStr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL argument");
    if (!is_our_package(pkgName))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "package \"%s\" is not installed (acl-cuda provides \"runtime\")",
                         pkgName);
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", PACKAGE_VERSION);
    return ACL_SUCCESS;
}

/* CANN's weights (its runtime, and its example: 9.1.0 gives 90100000):
 * major x 10^7 + minor x 10^5 + patch x 10^3. */
ACL_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    PROF_API();
    if (!pkgName || !versionNum)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "NULL argument");
    if (!is_our_package(pkgName))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "package \"%s\" is not installed (acl-cuda provides \"runtime\")",
                         pkgName);
    *versionNum = version_part(0) * 10000000 + version_part(1) * 100000 + version_part(2) * 1000;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    PROF_API();
    if (!version)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "version is NULL");
    if (name != ACL_PKG_NAME_CANN && name != ACL_PKG_NAME_RUNTIME)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "package %d is not installed (acl-cuda provides the runtime)", (int)name);
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
    PROF_API();
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
    case ACL_UINT1:
        return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
        return 8;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 0; /* ACL_STRING, ACL_DT_UNDEFINED and unknown types have no fixed size */
    }
}

/* IEEE 754 binary16 <-> binary32, round to nearest even. */
ACL_EXPORT float aclFloat16ToFloat(aclFloat16 value)
{
    PROF_API();
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
    PROF_API();
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

ACL_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    PROF_API();
    acl_buffer *b = buffer_create(data, size);
    if (!b) {
        ACL_RAISE(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    return handle_of(&b->obj);
}

static acl_buffer *lookup_buffer(const char *api, const aclDataBuffer *handle)
{
    acl_buffer *b = buffer_get(handle);
    if (!b)
        acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live data buffer",
                  (const void *)handle);
    return b;
}

ACL_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    PROF_API();
    if (!buffer_destroy(dataBuffer))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live data buffer",
                         (const void *)dataBuffer);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    PROF_API();
    acl_buffer *b = lookup_buffer(__func__, dataBuffer);
    if (!b)
        return ACL_ERROR_INVALID_PARAM;
    atomic_store(&b->data, data);
    atomic_store(&b->size, size);
    object_put(&b->obj);
    return ACL_SUCCESS;
}

ACL_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    PROF_API();
    acl_buffer *b = lookup_buffer(__func__, dataBuffer);
    if (!b)
        return NULL;
    void *data = atomic_load(&b->data);
    object_put(&b->obj);
    return data;
}

static size_t buffer_size(const char *api, const aclDataBuffer *dataBuffer)
{
    acl_buffer *b = lookup_buffer(api, dataBuffer);
    if (!b)
        return 0;
    size_t size = atomic_load(&b->size);
    object_put(&b->obj);
    return size;
}

ACL_EXPORT uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    PROF_API();
    return (uint32_t)buffer_size(__func__, dataBuffer);
}

ACL_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    PROF_API();
    return buffer_size(__func__, dataBuffer);
}

/* ---- application log ------------------------------------------------------------ */

ACL_EXPORT void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                          const char *fmt, ...)
{
    PROF_API();
    int level = (int)logLevel;
    if (!fmt || level < LOG_DEBUG || level > LOG_ERROR || !acl_log_enabled(level))
        return;
    char where[512];
    snprintf(where, sizeof where, "%s (%s:%u)", func ? func : "?", file ? file : "?", line);
    va_list ap;
    va_start(ap, fmt);
    acl_vlog(level, where, fmt, ap);
    va_end(ap);
}

/* ---- what the software stack provides (aclCannAttr) ---------------------------------------
 * INF_NAN: floating-point overflow gives inf and NaN, on every backend
 * (IEEE arithmetic; see aclrtSetDeviceSatMode). BF16: the devices compute
 * in bfloat16: CUDA devices of compute capability 8.0 on, every visible
 * one; the host backend runs no device arithmetic. JIT_COMPILE: CANN's
 * just-in-time compilation of operators, which acl-cuda does not have. */

static bool cann_attribute(aclCannAttr attr)
{
    switch (attr) {
    case ACL_CANN_ATTR_INF_NAN:
        return true;
    case ACL_CANN_ATTR_BF16: {
        int32_t count = device_visible_count();
        for (int32_t d = 0; d < count; d++) {
            device_props p;
            int32_t phys;
            if (device_to_phys(d, &phys) || backend()->device->props(phys, &p) || p.cc_major < 8)
                return false;
        }
        return count > 0;
    }
    default:
        return false;
    }
}

static const aclCannAttr all_cann_attributes[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16,
                                                  ACL_CANN_ATTR_JIT_COMPILE};
enum { CANN_ATTRIBUTE_COUNT = sizeof all_cann_attributes / sizeof all_cann_attributes[0] };

static aclCannAttr supported_attributes[CANN_ATTRIBUTE_COUNT];
static size_t supported_count;
static pthread_once_t supported_once = PTHREAD_ONCE_INIT;

static void supported_fill(void)
{
    for (size_t i = 0; i < CANN_ATTRIBUTE_COUNT; i++)
        if (cann_attribute(all_cann_attributes[i]))
            supported_attributes[supported_count++] = all_cann_attributes[i];
}

/* The list lives until the process ends, as ACL documents. */
ACL_EXPORT aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    PROF_API();
    if (!cannAttrList)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "cannAttrList is NULL");
    if (!num)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "num is NULL");
    pthread_once(&supported_once, supported_fill);
    *cannAttrList = supported_attributes;
    *num = supported_count;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    PROF_API();
    if (!value)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "value is NULL");
    bool known = false;
    for (size_t i = 0; i < CANN_ATTRIBUTE_COUNT; i++)
        known |= all_cann_attributes[i] == cannAttr;
    if (!known)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclCannAttr %d", (int)cannAttr);
    *value = cann_attribute(cannAttr) ? 1 : 0;
    return ACL_SUCCESS;
}
