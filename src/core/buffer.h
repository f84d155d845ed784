/* Data buffers (aclDataBuffer): a pointer and a size behind a handle. */
#ifndef ACLCUDA_CORE_BUFFER_H
#define ACLCUDA_CORE_BUFFER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/handle.h"

typedef struct acl_buffer {
    object obj;
    void *_Atomic data;
    _Atomic size_t size;
} acl_buffer;

/* A published buffer, or NULL (out of memory). */
acl_buffer *buffer_create(void *data, size_t size);
/* The live buffer behind a handle, borrowed (object_put); NULL if none. */
acl_buffer *buffer_get(const void *handle);
/* Exactly one of racing destroys succeeds. */
bool buffer_destroy(const void *handle);

#endif
