#include <string.h>

#include "core/callback.h"
#include "core/copy.h"
#include "core/errors.h"
#include "core/graph.h"
#include "core/memory.h"
#include "core/staging.h"

static const char *kind_name(int kind)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
        return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE:
        return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST:
        return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT:
        return "ACL_MEMCPY_DEFAULT";
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        return "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE";
    default:
        return "an unknown kind";
    }
}

/* Everything a checked copy needs: where both sides live and the direction
 * the backend is told. */
typedef struct copy_plan {
    mem_block dst, src;
    copy_dir dir;
} copy_plan;

/* Resolves the direction of a copy from the registry and checks that an
 * explicit kind agrees with it. The caller has already rejected kinds the
 * function does not take. */
static aclError plan_copy(const char *api, void *dst, const void *src, int kind, copy_plan *p)
{
    memory_locate(dst, &p->dst);
    memory_locate(src, &p->src);
    bool dst_dev = p->dst.kind == MEM_DEVICE, src_dev = p->src.kind == MEM_DEVICE;
    copy_dir actual = dst_dev ? (src_dev ? COPY_DEVICE_TO_DEVICE : COPY_HOST_TO_DEVICE)
                              : (src_dev ? COPY_DEVICE_TO_HOST : COPY_HOST_TO_HOST);
    copy_dir wanted;
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
        wanted = COPY_HOST_TO_HOST;
        break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        wanted = COPY_HOST_TO_DEVICE;
        break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
        wanted = COPY_DEVICE_TO_HOST;
        break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        wanted = COPY_DEVICE_TO_DEVICE;
        break;
    default: /* ACL_MEMCPY_DEFAULT */
        wanted = actual;
        break;
    }
    if (wanted != actual)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s contradicts the pointers: dst %p is %s, src %p is %s", kind_name(kind),
                         dst, memory_where(&p->dst), src, memory_where(&p->src));
    p->dir = actual;
    return ACL_SUCCESS;
}

/* The backend device a synchronous copy runs on: the device side's, else
 * the current context's. */
static int32_t copy_device(const copy_plan *p, const acl_context *ctx)
{
    if (p->dst.kind == MEM_DEVICE)
        return p->dst.phys;
    if (p->src.kind == MEM_DEVICE)
        return p->src.phys;
    return ctx->phys;
}

/* A queued copy touching pageable host memory (which the backend may read or
 * write only later) is completed before the call returns, as CUDA does. */
static bool copy_must_finish(const copy_plan *p)
{
    return (p->dst.kind == MEM_UNKNOWN || p->src.kind == MEM_UNKNOWN) &&
           p->dir != COPY_DEVICE_TO_DEVICE;
}

/* Whether a copy goes through a bounce buffer instead: always for
 * ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE (its source may be reused at once, and
 * nothing is waited for), and for pageable memory inside a callback, which
 * may not wait for a stream: the callback may be holding it (a BLOCK
 * callback queueing a copy on its own stream) or one it waits for. */
static bool copy_staged_instead(const copy_plan *p, int kind)
{
    return kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE || (copy_must_finish(p) && callback_running());
}

/* Queues `height` rows of `width` bytes through a bounce buffer. To the
 * device, the caller's rows are packed into the buffer now, so its memory
 * may be reused at once; the buffer is copied in stream order and given
 * back after. From the device, the rows land in the buffer in stream order
 * and a host function unpacks them into the caller's memory. */
static aclError copy_staged(const char *api, acl_stream *s, void *dst, size_t dpitch,
                            const void *src, size_t spitch, size_t width, size_t height,
                            copy_dir dir)
{
    size_t bytes;
    if (__builtin_mul_overflow(width, height, &bytes))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "a %zu x %zu copy is too large", width,
                         height);
    staging *b = staging_get(bytes);
    if (!b)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "no page-locked bounce buffer of %zu bytes for a copy on stream %d", bytes,
                         (int)s->id);
    bool to_device = dir == COPY_HOST_TO_DEVICE;
    if (to_device)
        for (size_t row = 0; row < height; row++)
            memcpy((char *)b->data + row * width, (const char *)src + row * spitch, width);
    void *copy_dst = to_device ? dst : b->data;
    const void *copy_src = to_device ? b->data : src;
    size_t copy_dpitch = to_device ? dpitch : width, copy_spitch = to_device ? width : spitch;
    task copy = {.kind = TASK_COPY,
                 .u.copy = {.dst = copy_dst, .src = copy_src, .n = width, .dir = dir}};
    if (height > 1)
        copy = (task){.kind = TASK_COPY_2D,
                      .u.copy_2d = {.dst = copy_dst,
                                    .dpitch = copy_dpitch,
                                    .src = copy_src,
                                    .spitch = copy_spitch,
                                    .width = width,
                                    .height = height,
                                    .dir = dir}};
    if (!to_device) {
        b->dst = dst;
        b->dpitch = dpitch;
        b->width = width;
        b->height = height;
    }
    aclError ret = stream_submit(api, s, &copy);
    if (ret != ACL_SUCCESS) {
        b->height = 0;
        staging_done(b); /* never queued: back at once */
        return ret;
    }
    /* Should this fail, the queued copy may still use the buffer, which
     * then stays out of the pool. */
    return stream_submit(api, s, &(task){.kind = TASK_HOST_FUNC, .u.host_func = {staging_done, b}});
}

static aclError finish_stream(const char *api, acl_stream *s, const char *what)
{
    aclError ret = stream_synchronize(s, -1);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "waiting for the %s on stream %d failed: %s", what, s->id,
                         acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError copy_sync(const char *api, acl_context *ctx, void *dst, const void *src, size_t count,
                   aclrtMemcpyKind kind)
{
    copy_plan p;
    aclError ret = plan_copy(api, dst, src, (int)kind, &p);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "dst", dst, count, &p.dst);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "src", src, count, &p.src);
    if (ret == ACL_SUCCESS)
        ret = capture_check_unsafe(api, "a synchronous copy");
    if (ret != ACL_SUCCESS || dst == src)
        return ret;
    ret = backend()->memory->memcpy_sync(copy_device(&p, ctx), dst, src, count, p.dir,
                                         p.src.kind == MEM_HOST_PINNED);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "copying %zu bytes from %p to %p (%s) failed: %s", count, src,
                         dst, kind_name((int)kind), acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError copy_async(const char *api, acl_stream *s, void *dst, const void *src, size_t count,
                    aclrtMemcpyKind kind)
{
    if (kind == ACL_MEMCPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "host-to-host copies cannot be queued on a stream; use aclrtMemcpy");
    copy_plan p;
    aclError ret = plan_copy(api, dst, src, (int)kind, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (p.dir == COPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "dst %p and src %p are both host memory: host-to-host copies cannot be "
                         "queued on a stream; use aclrtMemcpy",
                         dst, src);
    ret = memory_check_extent(api, "dst", dst, count, &p.dst);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "src", src, count, &p.src);
    if (ret == ACL_SUCCESS && (copy_must_finish(&p) || kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE))
        ret = capture_check_pageable(api, s, "an asynchronous copy through pageable host memory");
    if (ret != ACL_SUCCESS || dst == src)
        return ret;
    if (copy_staged_instead(&p, (int)kind))
        return copy_staged(api, s, dst, count, src, count, count, 1, p.dir);
    ret = stream_submit(
        api, s,
        &(task){.kind = TASK_COPY, .u.copy = {.dst = dst, .src = src, .n = count, .dir = p.dir}});
    if (ret != ACL_SUCCESS)
        return ret;
    if (copy_must_finish(&p))
        return finish_stream(api, s, "copy through pageable host memory");
    return ACL_SUCCESS;
}

/* Bytes a 2D region spans: (height - 1) full pitches and one last row. */
static bool region_extent(size_t pitch, size_t width, size_t height, size_t *extent)
{
    size_t rows;
    return !__builtin_mul_overflow(pitch, height - 1, &rows) &&
           !__builtin_add_overflow(rows, width, extent);
}

/* Resolves where both regions live and checks that each stays inside its
 * allocation. */
static aclError copy2d_plan(const char *api, void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                            copy_plan *p)
{
    size_t dst_extent, src_extent;
    if (!region_extent(dpitch, width, height, &dst_extent) ||
        !region_extent(spitch, width, height, &src_extent))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "a %zu x %zu copy with pitches %zu/%zu spans more than the address "
                         "space",
                         width, height, dpitch, spitch);
    aclError ret = plan_copy(api, dst, src, (int)kind, p);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "dst", dst, dst_extent, &p->dst);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "src", src, src_extent, &p->src);
    return ret;
}

aclError copy2d_sync(const char *api, acl_context *ctx, void *dst, size_t dpitch, const void *src,
                     size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind)
{
    copy_plan p;
    aclError ret = copy2d_plan(api, dst, dpitch, src, spitch, width, height, kind, &p);
    if (ret == ACL_SUCCESS)
        ret = capture_check_unsafe(api, "a synchronous 2D copy");
    if (ret != ACL_SUCCESS)
        return ret;
    ret = backend()->memory->memcpy2d_sync(copy_device(&p, ctx), dst, dpitch, src, spitch, width,
                                           height, p.dir, p.src.kind == MEM_HOST_PINNED);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "2D copy of %zu x %zu bytes from %p to %p (%s) failed: %s",
                         width, height, src, dst, kind_name((int)kind), acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError copy2d_async(const char *api, acl_stream *s, void *dst, size_t dpitch, const void *src,
                      size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind)
{
    if (kind == ACL_MEMCPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "host-to-host copies cannot be queued on a stream; use aclrtMemcpy2d");
    copy_plan p;
    aclError ret = copy2d_plan(api, dst, dpitch, src, spitch, width, height, kind, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (p.dir == COPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "dst %p and src %p are both host memory: host-to-host copies cannot be "
                         "queued on a stream; use aclrtMemcpy2d",
                         dst, src);
    if (copy_must_finish(&p) || kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        ret =
            capture_check_pageable(api, s, "an asynchronous 2D copy through pageable host memory");
        if (ret != ACL_SUCCESS)
            return ret;
    }
    if (copy_staged_instead(&p, (int)kind))
        return copy_staged(api, s, dst, dpitch, src, spitch, width, height, p.dir);
    ret = stream_submit(api, s,
                        &(task){.kind = TASK_COPY_2D,
                                .u.copy_2d = {.dst = dst,
                                              .dpitch = dpitch,
                                              .src = src,
                                              .spitch = spitch,
                                              .width = width,
                                              .height = height,
                                              .dir = p.dir}});
    if (ret != ACL_SUCCESS)
        return ret;
    if (copy_must_finish(&p))
        return finish_stream(api, s, "2D copy through pageable host memory");
    return ACL_SUCCESS;
}

aclError fill_sync(const char *api, acl_context *ctx, void *ptr, int32_t value, size_t count)
{
    mem_block b;
    aclError ret = memory_locate_live(api, ptr, count, &b);
    if (ret == ACL_SUCCESS)
        ret = capture_check_unsafe(api, "a synchronous fill");
    if (ret != ACL_SUCCESS)
        return ret;
    bool on_device = b.kind == MEM_DEVICE;
    ret = backend()->memory->memset_sync(on_device ? b.phys : ctx->phys, ptr, (uint8_t)value, count,
                                         on_device);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "setting %zu bytes at %p (%s) failed: %s", count, ptr,
                         memory_where(&b), acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError fill_async(const char *api, acl_stream *s, void *ptr, int32_t value, size_t count)
{
    mem_block b;
    aclError ret = memory_locate_live(api, ptr, count, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = stream_submit(api, s,
                        &(task){.kind = TASK_FILL,
                                .u.fill = {.ptr = ptr,
                                           .n = count,
                                           .value = (uint8_t)value,
                                           .on_device = b.kind == MEM_DEVICE}});
    return ret;
}
