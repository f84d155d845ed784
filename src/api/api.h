/* What every file of the API layer includes. A public function checks its
 * arguments, resolves handles, makes one call into the core and raises
 * every error it returns with its own name (core/errors.h says who raises
 * what). It never calls another public function. */
#ifndef ACLCUDA_API_H
#define ACLCUDA_API_H

#include "config.h"

#include "acl/acl.h"
#include "core/errors.h"
#include "core/memory.h"
#include "core/prof.h"
#include "util/log.h"

#define ACL_EXPORT __attribute__((visibility("default")))

/* Whether the backend in use provides an optional group of operations (a
 * NULL group means it cannot); raises ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
 * naming the backend, when it does not. */
#define BACKEND_REQUIRE(api, group)                                                                \
    (backend()->group                                                                              \
         ? ACL_SUCCESS                                                                             \
         : acl_raise((api), ACL_ERROR_RT_FEATURE_NOT_SUPPORT,                                      \
                     "the %s backend cannot do this (no %s operations)", backend()->name, #group))

/* Device memory as aclrtMallocWithCfg allocates it (cfg may be NULL),
 * recorded with the given origin (memory.c; DVPP memory uses it too).
 * Raises. */
aclError api_malloc_with_cfg(const char *func, void **devPtr, size_t size,
                             aclrtMemMallocPolicy policy, const aclrtMallocConfig *cfg,
                             mem_origin origin);

#endif
