#include <stdlib.h>

#include "core/stream_config.h"

static void config_free(object *o)
{
    free(o);
}

stream_config *stream_config_create(void)
{
    stream_config *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (handle_publish(&c->obj, HANDLE_STREAM_CONFIG, config_free) != ACL_SUCCESS) {
        free(c);
        return NULL;
    }
    return c;
}

stream_config *stream_config_get(const void *handle)
{
    return (stream_config *)handle_get(handle, HANDLE_STREAM_CONFIG);
}

bool stream_config_destroy(const void *handle)
{
    object *o = handle_take(handle, HANDLE_STREAM_CONFIG);
    if (!o)
        return false;
    object_put(o);
    return true;
}
