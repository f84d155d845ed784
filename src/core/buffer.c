#include <stdlib.h>

#include "core/buffer.h"

static void buffer_free(object *o)
{
    free(o);
}

acl_buffer *buffer_create(void *data, size_t size)
{
    acl_buffer *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    atomic_init(&b->data, data);
    atomic_init(&b->size, size);
    if (handle_publish(&b->obj, HANDLE_BUFFER, buffer_free)) {
        free(b);
        return NULL;
    }
    return b;
}

acl_buffer *buffer_get(const void *handle)
{
    return (acl_buffer *)handle_get(handle, HANDLE_BUFFER);
}

bool buffer_destroy(const void *handle)
{
    object *o = handle_take(handle, HANDLE_BUFFER);
    if (o)
        object_release(o);
    return o != NULL;
}
