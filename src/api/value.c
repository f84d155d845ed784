/* Stream memory operations (acl_rt.h): aclrtValueWrite, aclrtValueWait. */
#include "api/api.h"
#include "core/current.h"
#include "core/value.h"

ACL_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
                                    aclrtStream stream)
{
    PROF_API();
    if (!devAddr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
    if (flag != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag %u is reserved and must be 0", flag);
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = value_write(__func__, s, devAddr, value);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    PROF_API();
    if (!devAddr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
    if (flag != ACL_STREAM_WAIT_VALUE_GEQ && flag != ACL_STREAM_WAIT_VALUE_EQ &&
        flag != ACL_STREAM_WAIT_VALUE_AND && flag != ACL_STREAM_WAIT_VALUE_NOR)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "flag %u is not ACL_STREAM_WAIT_VALUE_GEQ, EQ, AND or NOR (0..3)", flag);
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = value_wait(__func__, s, devAddr, value, flag);
    stream_put(s);
    return err;
}
