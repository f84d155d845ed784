/*
 * acl-cuda: stream-ordered memory pools (AscendCL's acl_rt_memory_soma.h).
 *
 * A pool hands out device memory in stream order: an allocation or a free
 * takes effect when the stream reaches it, and freed memory is reused by
 * later allocations.
 */
#ifndef ACLCUDA_ACL_RT_MEMORY_SOMA_H
#define ACLCUDA_ACL_RT_MEMORY_SOMA_H

#include <stddef.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *aclrtMemPool;

/* Attributes of aclrtMemPoolSetAttr / aclrtMemPoolGetAttr: three reuse
 * policies, the memory a pool may hold on to, and its reserved and used
 * memory (current and highest). */
typedef enum aclrtMemPoolAttr {
    ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 0x1,
    ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC = 0x2,
    ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 0x3,
    ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD = 0x4,
    ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT = 0x5,
    ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH = 0x6,
    ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT = 0x7,
    ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH = 0x8
} aclrtMemPoolAttr;

/* What a pool allocates, where, and its size (maxSize bytes). */
typedef struct {
    aclrtMemAllocationType allocType;
    aclrtMemHandleType handleType;
    aclrtMemLocation location;
    size_t maxSize;
    unsigned char reserved[32];
} aclrtMemPoolProps;

ACL_FUNC_VISIBILITY aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolDestroy(const aclrtMemPool memPool);

/* value points to the attribute's value (its type depends on attr). */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value);

/* Allocation and free in stream order. */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool,
                                                     aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream);

/* Releases free memory until the pool keeps at most minBytesToKeep. */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep);

#ifdef __cplusplus
}
#endif

#endif /* ACLCUDA_ACL_RT_MEMORY_SOMA_H */
