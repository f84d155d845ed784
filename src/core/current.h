/* The calling thread's current context (ACL binds one per thread; a thread
 * starts with none), and with it the meaning of the NULL stream handle. */
#ifndef ACLCUDA_CORE_CURRENT_H
#define ACLCUDA_CORE_CURRENT_H

#include "core/context.h"

/* Binds ctx (NULL: none) to the calling thread and makes its device the
 * thread's device for code outside the library too. */
void current_bind(acl_context *ctx);
/* The thread's context, borrowed (context_put), or NULL. A thread with none
 * gets aclInit's defaultDevice, when configured, as if it had set it. */
acl_context *current_context(void);
/* current_context() or a raised ACL_ERROR_RT_CONTEXT_NULL. */
aclError current_context_get(const char *api, acl_context **out);
/* The current context's default stream, borrowed (stream_put). Raises. */
aclError current_default_stream_get(const char *api, acl_stream **out);
/* The stream behind a handle, the NULL handle meaning the current
 * context's default stream, borrowed (stream_put). Raises. Inline: every
 * queued piece of work looks its stream up. */
static inline aclError current_stream_get(const char *api, aclrtStream handle, acl_stream **out)
{
    if (handle)
        return stream_get(api, handle, out);
    return current_default_stream_get(api, out);
}

#endif
