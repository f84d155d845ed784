/* Kernels (acl_rt.h): for now the operator execution timeouts. */
#include <stdatomic.h>

#include "api/api.h"

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
