/* Custom allocators (acl_rt_allocator.h): descriptors (HANDLE_ALLOCATOR_DESC)
 * holding an allocator object and its four functions, and the allocator
 * registered per stream. Registering copies the descriptor's contents, as
 * CANN does: changing or destroying the descriptor afterwards does not
 * change what the stream has (aclrtAllocatorGetByStream still returns the
 * descriptor's handle). A stream's registration goes with the stream.
 *
 * CANN calls a stream's allocator for the workspace of single operators
 * (aclopExecuteV2) and of dynamic-shape models (aclmdlExecuteAsync);
 * acl-cuda runs neither, so its own calls never need one. allocator_of is
 * how a component that allocates memory for work on a stream (operator or
 * model execution, when it comes) takes the stream's allocator, exactly
 * as aclrtAllocatorGetByStream hands it to the application. */
#ifndef ACLCUDA_CORE_ALLOCATOR_H
#define ACLCUDA_CORE_ALLOCATOR_H

#include <stdbool.h>

#include "acl/acl.h"
#include "core/stream.h"

typedef struct allocator_fns {
    aclrtAllocatorDesc desc; /* the handle registered */
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc alloc_advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
} allocator_fns;

/* A new descriptor's handle, NULL when out of memory (raises). */
aclrtAllocatorDesc allocator_desc_create(const char *api);
aclError allocator_desc_destroy(const char *api, aclrtAllocatorDesc desc);
/* Sets one field (which: 0 object, 1 alloc, 2 free, 3 alloc-advise, 4
 * get-address) of a live descriptor. Raises. */
enum { ALLOC_FIELD_OBJ, ALLOC_FIELD_ALLOC, ALLOC_FIELD_FREE, ALLOC_FIELD_ADVISE, ALLOC_FIELD_ADDR };
aclError allocator_desc_set(const char *api, aclrtAllocatorDesc desc, int which, void *value);

/* s borrowed. Raise. */
aclError allocator_register(const char *api, acl_stream *s, aclrtAllocatorDesc desc);
void allocator_unregister(acl_stream *s);
/* The same for a stream handle, which need not be live (nothing then). */
void allocator_unregister_handle(aclrtStream stream);
/* The allocator registered for s; false when none. */
bool allocator_of(const acl_stream *s, allocator_fns *out);

#endif
