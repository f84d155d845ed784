/* Kernels (acl_rt.h): for now the operator execution timeouts and the
 * architecture check. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "core/device.h"

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

/* ---- architecture compatibility -----------------------------------------------------------
 * Whether code built for socVersion runs on this machine's device 0 (the
 * device aclrtGetSocName names): its exact name (what aclrtGetSocName
 * returns), or on CUDA an architecture: "sm_XY" machine code runs on a
 * device of major X and minor Y or more, "compute_XY" PTX on any device of
 * X.Y or more (the driver compiles it). */
ACL_EXPORT aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    if (!socVersion)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "socVersion is NULL");
    if (!canCompatible)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "canCompatible is NULL");
    device_props p;
    aclError err = device_props_get(__func__, 0, &p, NULL);
    if (err)
        return err;
    bool compatible = strncmp(socVersion, p.name, sizeof p.name) == 0;
    unsigned arch;
    int used = 0;
    int device_arch = p.cc_major * 10 + p.cc_minor;
    if (!compatible && p.cc_major > 0 && sscanf(socVersion, "sm_%u%n", &arch, &used) == 1 &&
        socVersion[used] == '\0')
        compatible = (int)arch / 10 == p.cc_major && (int)arch % 10 <= p.cc_minor;
    else if (!compatible && p.cc_major > 0 &&
             sscanf(socVersion, "compute_%u%n", &arch, &used) == 1 && socVersion[used] == '\0')
        compatible = (int)arch <= device_arch;
    *canCompatible = compatible ? 1 : 0;
    return ACL_SUCCESS;
}
