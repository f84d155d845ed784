/*
 * acl-cuda: custom allocators (AscendCL's acl_rt_allocator.h).
 *
 * A program describes an allocator of its own (an object and four functions)
 * in a descriptor and registers it for a stream; runtime components that
 * need memory for work on that stream then take it from that allocator.
 * acl_rt.h includes this header, as AscendCL's does.
 */
#ifndef ACLCUDA_ACL_RT_ALLOCATOR_H
#define ACLCUDA_ACL_RT_ALLOCATOR_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The allocator's functions: allocate a block of size bytes, free a block,
 * allocate a block at (or near) a suggested address, and the address of a
 * block's memory. */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* A descriptor: created empty (NULL on failure), then given the allocator
 * object and its functions. */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                                        aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                              aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                             aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    aclrtAllocatorDesc allocatorDesc, aclrtAllocatorGetAddrFromBlockFunc func);

/* The allocator of a stream: registered, read back with its functions,
 * unregistered. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc, aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLCUDA_ACL_RT_ALLOCATOR_H */
