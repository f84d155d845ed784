/* Copies and fills with ACL's rules: where each pointer lives (the
 * registry), which direction the backend is told, extents, and which
 * queued copies must finish before the call returns. Arguments were
 * checked by the API layer. All functions raise. */
#ifndef ACLCUDA_CORE_COPY_H
#define ACLCUDA_CORE_COPY_H

#include "core/context.h"
#include "core/stream.h"

/* A synchronous copy runs on the device side's device, else ctx's. */
aclError copy_sync(const char *api, acl_context *ctx, void *dst, const void *src, size_t count,
                   aclrtMemcpyKind kind);
aclError copy_async(const char *api, acl_stream *s, void *dst, const void *src, size_t count,
                    aclrtMemcpyKind kind);
aclError copy2d_sync(const char *api, acl_context *ctx, void *dst, size_t dpitch, const void *src,
                     size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind);
aclError copy2d_async(const char *api, acl_stream *s, void *dst, size_t dpitch, const void *src,
                      size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind);
aclError fill_sync(const char *api, acl_context *ctx, void *ptr, int32_t value, size_t count);
aclError fill_async(const char *api, acl_stream *s, void *ptr, int32_t value, size_t count);

#endif
