/* Copies and fills with ACL's rules: where each pointer lives (the
 * registry), which direction the backend is told, extents, and which
 * queued copies must finish before the call returns. Arguments were
 * checked by the API layer. All functions raise. */
#ifndef ACLCUDA_CORE_COPY_H
#define ACLCUDA_CORE_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/context.h"
#include "core/stream.h"

/* A synchronous copy runs on the device side's device, else ctx's. site:
 * the user's call site (CALL_SITE() in the public function), for the
 * warning of an undefined use (core/undefined.h): a kind that contradicts
 * the pointers, a fill of host memory no ACL allocator made. */
aclError copy_sync(const char *api, const void *site, acl_context *ctx, void *dst, const void *src,
                   size_t count, aclrtMemcpyKind kind);
aclError copy_async(const char *api, const void *site, acl_stream *s, void *dst, const void *src,
                    size_t count, aclrtMemcpyKind kind);
aclError copy2d_sync(const char *api, const void *site, acl_context *ctx, void *dst, size_t dpitch,
                     const void *src, size_t spitch, size_t width, size_t height,
                     aclrtMemcpyKind kind);
aclError copy2d_async(const char *api, const void *site, acl_stream *s, void *dst, size_t dpitch,
                      const void *src, size_t spitch, size_t width, size_t height,
                      aclrtMemcpyKind kind);
aclError fill_sync(const char *api, const void *site, acl_context *ctx, void *ptr, int32_t value,
                   size_t count);
aclError fill_async(const char *api, const void *site, acl_stream *s, void *ptr, int32_t value,
                    size_t count);

/* 32-bit fills of ACL's device or page-locked memory; the queued form sets
 * host memory at once, as CANN documents. */
aclError fill32_sync(const char *api, acl_context *ctx, void *ptr, uint32_t value, size_t count);
aclError fill32_async(const char *api, acl_stream *s, void *ptr, uint32_t value, size_t count);

/* A batch of copies (aclrtMemcpyBatch*), its arrays checked for NULL and
 * its attribute indexes for shape by the caller. */
typedef struct copy_batch_args {
    void **dsts;
    void **srcs;
    const size_t *sizes;
    size_t count;
    const aclrtMemcpyBatchAttr *attrs;
    const size_t *attrs_indexes;
    size_t num_attrs;
    bool stream_ordered; /* a size of 0 is then refused */
} copy_batch_args;
/* Checks every copy against its attribute (the same side as the
 * registry, host to device or device to host, one direction for the
 * whole batch), setting *fail_index (when given) to the first copy at
 * fault. Queued on s, or, with s NULL, copied at once. A queued batch
 * touching pageable host memory completes before the call returns. */
aclError copy_batch(const char *api, acl_stream *s, acl_context *ctx, const copy_batch_args *a,
                    size_t *fail_index);

/* Copies whose addresses are read from device memory when they run. */
enum { COPY_DESC_SIZE = 64, CMO_DESC_SIZE = 64 };
aclError copy_desc_set(const char *api, acl_context *ctx, void *desc, void *src, void *dst,
                       size_t count);
aclError copy_desc_async(const char *api, acl_stream *s, void *desc);
aclError copy_offset_async(const char *api, acl_stream *s, void **dst, size_t dest_max,
                           size_t dst_offset, const void **src, size_t count, size_t src_offset);

/* Cache maintenance of device memory of s's device: a prefetch is queued
 * (managed memory moves to the device, device memory is prefetched into
 * the device's cache where the backend can); write-back and invalidation
 * have nothing to do, device memory being coherent for every agent that
 * reaches it. */
aclError cmo_async(const char *api, acl_stream *s, void *src, size_t size, aclrtCmoType type);
aclError cmo_desc_set(const char *api, void *desc, void *src, size_t size);
aclError cmo_desc_async(const char *api, acl_stream *s, void *desc);

#endif
