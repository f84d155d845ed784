/* The error text and last-error queries (acl_rt.h). */
#include "api/api.h"

ACL_EXPORT const char *aclGetRecentErrMsg(void)
{
    PROF_API();
    return errors_take_messages();
}

ACL_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    PROF_API();
    if (level != ACL_RT_THREAD_LEVEL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "level %d is not ACL_RT_THREAD_LEVEL",
                         (int)level);
    return errors_last(false);
}

ACL_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    PROF_API();
    if (level != ACL_RT_THREAD_LEVEL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "level %d is not ACL_RT_THREAD_LEVEL",
                         (int)level);
    return errors_last(true);
}
