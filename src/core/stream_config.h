/* Stream configurations (aclrtStreamConfigHandle): what aclrtCreateStreamV2
 * makes a stream with, collected by aclrtSetStreamConfigOpt. A handle kind
 * of its own: the pointer ACL hands out is a handle value, never the
 * struct the header shows. */
#ifndef ACLCUDA_CORE_STREAM_CONFIG_H
#define ACLCUDA_CORE_STREAM_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/handle.h"

typedef struct stream_config {
    object obj;
    void *work_ptr; /* accepted and kept: CUDA streams need no workspace */
    size_t work_size;
    uint32_t flags;
    uint32_t priority; /* 0..7 */
} stream_config;

/* A published configuration (priority 0, no flags), or NULL when out of
 * memory. */
stream_config *stream_config_create(void);
/* The live configuration behind a handle, borrowed (object_put), or NULL. */
stream_config *stream_config_get(const void *handle);
/* False when the handle is not a live configuration. */
bool stream_config_destroy(const void *handle);

#endif
