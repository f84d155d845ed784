/* aclInit and aclFinalize: the reference count, the JSON configuration and
 * the init/finalize callbacks of other modules. All raise. */
#ifndef ACLCUDA_CORE_INIT_H
#define ACLCUDA_CORE_INIT_H

#include <stdint.h>

#include "acl/acl.h"

/* The defaultDevice from aclInit's config, or -1. */
int32_t init_default_device(void);

aclError init_acquire(const char *api, const char *config_path);
aclError init_finalize(const char *api);
aclError init_finalize_reference(const char *api, uint64_t *ref_count);
aclError init_callback_register(const char *api, aclRegisterCallbackType type, aclInitCallbackFunc fn,
                                void *user_data);
aclError init_callback_unregister(const char *api, aclRegisterCallbackType type, aclInitCallbackFunc fn);
aclError finalize_callback_register(const char *api, aclRegisterCallbackType type,
                                    aclFinalizeCallbackFunc fn, void *user_data);
aclError finalize_callback_unregister(const char *api, aclRegisterCallbackType type,
                                      aclFinalizeCallbackFunc fn);

#endif
