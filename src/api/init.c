/* aclInit, aclFinalize and the module callbacks (acl_rt.h). The runtime
 * functions (aclrt*) do not require aclInit, as in CANN's newest runtime;
 * aclInit only applies its configuration. */
#include "api/api.h"
#include "core/init.h"

ACL_EXPORT aclError aclInit(const char *configPath)
{
    PROF_API();
    return init_acquire(__func__, configPath);
}

ACL_EXPORT aclError aclFinalize(void)
{
    PROF_API();
    return init_finalize(__func__);
}

ACL_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
    PROF_API();
    return init_finalize_reference(__func__, refCount);
}

ACL_EXPORT aclError aclInitCallbackRegister(aclRegisterCallbackType type,
                                            aclInitCallbackFunc cbFunc, void *userData)
{
    PROF_API();
    if (!cbFunc)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "cbFunc is NULL");
    return init_callback_register(__func__, type, cbFunc, userData);
}

ACL_EXPORT aclError aclInitCallbackUnRegister(aclRegisterCallbackType type,
                                              aclInitCallbackFunc cbFunc)
{
    PROF_API();
    return init_callback_unregister(__func__, type, cbFunc);
}

ACL_EXPORT aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type,
                                                aclFinalizeCallbackFunc cbFunc, void *userData)
{
    PROF_API();
    if (!cbFunc)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "cbFunc is NULL");
    return finalize_callback_register(__func__, type, cbFunc, userData);
}

ACL_EXPORT aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                                  aclFinalizeCallbackFunc cbFunc)
{
    PROF_API();
    return finalize_callback_unregister(__func__, type, cbFunc);
}
