/* Stream-ordered memory pools (acl_rt_memory_soma.h): aclrtMemPool handles
 * whose allocations and frees take effect in stream order. Every
 * allocation is a whole number of 2 MiB blocks, as CANN's pools hand them
 * out, and is recorded in the allocation registry as device memory
 * (ORIGIN_POOL) from the call that makes it until the call that frees it.
 * aclrtMemPoolFreeAsync also takes aclrtMalloc memory, which it frees in
 * stream order, as CANN does.
 *
 * Codes: a handle that is not a live pool, or a pointer that is neither
 * pool memory nor aclrtMalloc memory, ACL_ERROR_INVALID_PARAM; an
 * allocation beyond the pool's size ACL_ERROR_RT_MEMORY_ALLOCATION;
 * attributes outside aclrtMemPoolAttr or values they do not take, a pool
 * size beyond the device's memory, a destroy while allocations are live,
 * and a trim below the memory in use or above the pool's size
 * ACL_ERROR_RT_PARAM_INVALID; allocations and frees on a stream being
 * captured ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT (the capture goes on). */
#ifndef ACLCUDA_CORE_MEMPOOL_H
#define ACLCUDA_CORE_MEMPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_rt_memory_soma.h"
#include "core/stream.h"

#define MEMPOOL_BLOCK ((size_t)2 << 20)

/* props checked by the caller (allocation type, location type, reserved
 * bytes). Raises. */
aclError mempool_create(const char *api, aclrtMemPool *out, const aclrtMemPoolProps *props);
aclError mempool_destroy(const char *api, aclrtMemPool pool);
aclError mempool_set_attr(const char *api, aclrtMemPool pool, aclrtMemPoolAttr attr, void *value);
aclError mempool_get_attr(const char *api, aclrtMemPool pool, aclrtMemPoolAttr attr, void *value);
aclError mempool_trim(const char *api, aclrtMemPool pool, size_t keep);
/* size > 0; s borrowed. Raises. */
aclError mempool_malloc_async(const char *api, void **ptr, size_t size, aclrtMemPool pool,
                              acl_stream *s);
aclError mempool_free_async(const char *api, void *ptr, acl_stream *s);

#endif
