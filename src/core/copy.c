#include <stdlib.h>
#include <string.h>

#include "core/callback.h"
#include "core/copy.h"
#include "core/deferred.h"
#include "core/errors.h"
#include "core/sink.h"
#include "core/memory.h"
#include "core/vmm.h"
#include "core/staging.h"
#include "core/undefined.h"
#include "util/hostfill.h"
#include "util/log.h"

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

/* Everything a checked copy needs: where both sides live, the direction
 * the backend is told, and the kind that stands (ACL_MEMCPY_DEFAULT in
 * place of one that contradicted the pointers). */
typedef struct copy_plan {
    mem_block dst, src;
    copy_dir dir;
    int kind;
} copy_plan;

/* Memory ACL does not know is pageable host memory, except a reserved
 * range where nothing is mapped: no copy may touch that. */
static aclError check_unmapped(const char *api, const char *role, const void *ptr,
                               const mem_block *b)
{
    if (b->kind != MEM_UNKNOWN || !vmm_reserved(ptr))
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "%s %p lies in a range reserved with aclrtReserveMemAddress where nothing "
                     "is mapped",
                     role, ptr);
}

#define CONTRADICTION "%s contradicts the pointers: dst %p is %s, src %p is %s"

/* Resolves the direction of a copy from the registry. An explicit kind
 * that contradicts it is an undefined use (core/undefined.h): by default
 * the copy goes as the pointers say, as with ACL_MEMCPY_DEFAULT; but a side
 * the kind calls device memory that no allocator knows (a stale device
 * pointer looks like that) says nothing to go by, and is refused. The
 * caller has already rejected kinds the function does not take. */
static aclError plan_copy(const char *api, const void *site, void *dst, const void *src, int kind,
                          copy_plan *p)
{
    p->kind = kind;
    memory_locate(dst, &p->dst);
    memory_locate(src, &p->src);
    aclError ret = check_unmapped(api, "dst", dst, &p->dst);
    if (ret == ACL_SUCCESS)
        ret = check_unmapped(api, "src", src, &p->src);
    if (ret == ACL_SUCCESS)
        ret = memory_check_access(api, "dst", dst, &p->dst, true);
    if (ret == ACL_SUCCESS)
        ret = memory_check_access(api, "src", src, &p->src, false);
    if (ret != ACL_SUCCESS)
        return ret;
    bool want_dst_dev = false, want_src_dev = false, explicit = true;
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
        break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        want_dst_dev = true;
        break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
        want_src_dev = true;
        break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        want_dst_dev = want_src_dev = true;
        break;
    default: /* ACL_MEMCPY_DEFAULT */
        explicit = false;
        break;
    }
    /* Managed memory is reachable from both sides: it takes the side the
     * kind names, and counts as device memory for ACL_MEMCPY_DEFAULT. */
    bool dst_dev =
        p->dst.kind == MEM_MANAGED ? (explicit ? want_dst_dev : true) : p->dst.kind == MEM_DEVICE;
    bool src_dev =
        p->src.kind == MEM_MANAGED ? (explicit ? want_src_dev : true) : p->src.kind == MEM_DEVICE;
    if (explicit && (dst_dev != want_dst_dev || src_dev != want_src_dev)) {
        if ((want_dst_dev && p->dst.kind == MEM_UNKNOWN) ||
            (want_src_dev && p->src.kind == MEM_UNKNOWN))
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, CONTRADICTION, kind_name(kind), dst,
                             memory_where(&p->dst), src, memory_where(&p->src));
        ret = undefined_use_check(api, site, UNDEFINED_COPY_KIND, ACL_ERROR_INVALID_PARAM,
                                  CONTRADICTION, kind_name(kind), dst, memory_where(&p->dst), src,
                                  memory_where(&p->src));
        if (ret != ACL_SUCCESS)
            return ret;
        dst_dev = p->dst.kind == MEM_DEVICE || p->dst.kind == MEM_MANAGED;
        src_dev = p->src.kind == MEM_DEVICE || p->src.kind == MEM_MANAGED;
        p->kind = ACL_MEMCPY_DEFAULT;
    }
    p->dir = dst_dev ? (src_dev ? COPY_DEVICE_TO_DEVICE : COPY_HOST_TO_DEVICE)
                     : (src_dev ? COPY_DEVICE_TO_HOST : COPY_HOST_TO_HOST);
    return ACL_SUCCESS;
}

/* The backend device a synchronous copy runs on: the device side's, else
 * the current context's. */
static int32_t copy_device(const copy_plan *p, const acl_context *ctx)
{
    if (p->dst.kind == MEM_DEVICE || p->dst.kind == MEM_MANAGED)
        return p->dst.phys;
    if (p->src.kind == MEM_DEVICE || p->src.kind == MEM_MANAGED)
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
static bool copy_staged_instead(const copy_plan *p)
{
    return p->kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE ||
           (copy_must_finish(p) && callback_running());
}

/* A queued copy that stands for pageable host memory (it waits for it, or
 * copies it now into a bounce buffer): TASK_PAGEABLE, which the stream's
 * sink is asked about first (sink_admit: a capture refuses it). */
static uint32_t copy_flags(const copy_plan *p)
{
    return copy_must_finish(p) || p->kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE ? TASK_PAGEABLE : 0;
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
                 .flags = TASK_PAGEABLE,
                 .u.copy = {.dst = copy_dst, .src = copy_src, .n = width, .dir = dir}};
    if (height > 1)
        copy = (task){.kind = TASK_COPY_2D,
                      .flags = TASK_PAGEABLE,
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

aclError copy_sync(const char *api, const void *site, acl_context *ctx, void *dst, const void *src,
                   size_t count, aclrtMemcpyKind kind)
{
    copy_plan p;
    aclError ret = plan_copy(api, site, dst, src, (int)kind, &p);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "dst", dst, count, &p.dst);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "src", src, count, &p.src);
    if (ret == ACL_SUCCESS)
        ret = sink_check_unsafe(api, "a synchronous copy");
    if (ret != ACL_SUCCESS || dst == src)
        return ret;
    ret = backend()->memory->memcpy_sync(copy_device(&p, ctx), dst, src, count, p.dir,
                                         p.src.kind == MEM_HOST_PINNED);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "copying %zu bytes from %p to %p (%s) failed: %s", count, src,
                         dst, kind_name((int)kind), acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError copy_async(const char *api, const void *site, acl_stream *s, void *dst, const void *src,
                    size_t count, aclrtMemcpyKind kind)
{
    if (kind == ACL_MEMCPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "host-to-host copies cannot be queued on a stream; use aclrtMemcpy");
    copy_plan p;
    aclError ret = plan_copy(api, site, dst, src, (int)kind, &p);
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
    if (ret == ACL_SUCCESS && copy_flags(&p))
        ret = sink_admit(api, s,
                         &(task){.kind = TASK_COPY,
                                 .flags = TASK_PAGEABLE,
                                 .u.copy = {.dst = dst, .src = src, .n = count, .dir = p.dir}});
    if (ret != ACL_SUCCESS || dst == src)
        return ret;
    if (copy_staged_instead(&p))
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
static aclError copy2d_plan(const char *api, const void *site, void *dst, size_t dpitch,
                            const void *src, size_t spitch, size_t width, size_t height,
                            aclrtMemcpyKind kind, copy_plan *p)
{
    size_t dst_extent, src_extent;
    if (!region_extent(dpitch, width, height, &dst_extent) ||
        !region_extent(spitch, width, height, &src_extent))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "a %zu x %zu copy with pitches %zu/%zu spans more than the address "
                         "space",
                         width, height, dpitch, spitch);
    aclError ret = plan_copy(api, site, dst, src, (int)kind, p);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "dst", dst, dst_extent, &p->dst);
    if (ret == ACL_SUCCESS)
        ret = memory_check_extent(api, "src", src, src_extent, &p->src);
    return ret;
}

aclError copy2d_sync(const char *api, const void *site, acl_context *ctx, void *dst, size_t dpitch,
                     const void *src, size_t spitch, size_t width, size_t height,
                     aclrtMemcpyKind kind)
{
    copy_plan p;
    aclError ret = copy2d_plan(api, site, dst, dpitch, src, spitch, width, height, kind, &p);
    if (ret == ACL_SUCCESS)
        ret = sink_check_unsafe(api, "a synchronous 2D copy");
    if (ret != ACL_SUCCESS)
        return ret;
    ret = backend()->memory->memcpy2d_sync(copy_device(&p, ctx), dst, dpitch, src, spitch, width,
                                           height, p.dir, p.src.kind == MEM_HOST_PINNED);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "2D copy of %zu x %zu bytes from %p to %p (%s) failed: %s",
                         width, height, src, dst, kind_name((int)kind), acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError copy2d_async(const char *api, const void *site, acl_stream *s, void *dst, size_t dpitch,
                      const void *src, size_t spitch, size_t width, size_t height,
                      aclrtMemcpyKind kind)
{
    if (kind == ACL_MEMCPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "host-to-host copies cannot be queued on a stream; use aclrtMemcpy2d");
    copy_plan p;
    aclError ret = copy2d_plan(api, site, dst, dpitch, src, spitch, width, height, kind, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (p.dir == COPY_HOST_TO_HOST)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "dst %p and src %p are both host memory: host-to-host copies cannot be "
                         "queued on a stream; use aclrtMemcpy2d",
                         dst, src);
    task copy = {.kind = TASK_COPY_2D,
                 .flags = TASK_PAGEABLE,
                 .u.copy_2d = {.dst = dst,
                               .dpitch = dpitch,
                               .src = src,
                               .spitch = spitch,
                               .width = width,
                               .height = height,
                               .dir = p.dir}};
    if (copy_flags(&p) && (ret = sink_admit(api, s, &copy)) != ACL_SUCCESS)
        return ret;
    if (copy_staged_instead(&p))
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

/* Where a fill goes: memory an allocator knows, checked for access and
 * extent; or host memory none knows (b->kind MEM_UNKNOWN), an undefined use
 * (core/undefined.h): refused here in strict mode, else filled by
 * fill_unknown_host. Where the backend keeps device memory is no host
 * memory: a pointer there is freed device memory, refused. */
static aclError fill_plan(const char *api, const void *site, void *ptr, size_t count, mem_block *b)
{
    memory_locate(ptr, b);
    aclError ret;
    /* Virtual memory whose release waits for queued work is still mapped
     * (the cuda backend may see it as another allocator's), but no longer
     * the caller's. */
    if ((b->kind == MEM_UNKNOWN || b->foreign) && deferred_overlaps(ptr, count ? count : 1))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, MEMORY_UNKNOWN, ptr, memory_unknown_more());
    if (b->kind != MEM_UNKNOWN) {
        ret = memory_check_access(api, "devPtr", ptr, b, true);
        return ret != ACL_SUCCESS ? ret : memory_check_extent(api, "devPtr", ptr, count, b);
    }
    ret = check_unmapped(api, "devPtr", ptr, b);
    if (ret != ACL_SUCCESS)
        return ret;
    if (backend()->memory->device_address && backend()->memory->device_address(ptr))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, MEMORY_UNKNOWN, ptr, memory_unknown_more());
    if (undefined_strict())
        return undefined_use_check(api, site, UNDEFINED_FILL_HOST, ACL_ERROR_INVALID_PARAM,
                                   MEMORY_UNKNOWN, ptr, memory_unknown_more());
    return ACL_SUCCESS;
}

/* Host memory no allocator knows may be no memory at all (a stale device
 * pointer): it is set without risking a fault, and refused if not all
 * writable; the warning is for a fill that was done. */
static aclError fill_unknown_host(const char *api, const void *site, void *ptr, int32_t value,
                                  size_t count)
{
    if (!host_fill_checked(ptr, (uint8_t)value, count))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         MEMORY_UNKNOWN ", nor %zu bytes of writable host memory", ptr,
                         memory_unknown_more(), count);
    return undefined_use_check(api, site, UNDEFINED_FILL_HOST, ACL_ERROR_INVALID_PARAM,
                               MEMORY_UNKNOWN, ptr, memory_unknown_more());
}

aclError fill_sync(const char *api, const void *site, acl_context *ctx, void *ptr, int32_t value,
                   size_t count)
{
    mem_block b;
    aclError ret = fill_plan(api, site, ptr, count, &b);
    if (ret == ACL_SUCCESS)
        ret = sink_check_unsafe(api, "a synchronous fill");
    if (ret != ACL_SUCCESS)
        return ret;
    if (b.kind == MEM_UNKNOWN)
        return fill_unknown_host(api, site, ptr, value, count);
    bool on_device = b.kind == MEM_DEVICE || b.kind == MEM_MANAGED;
    ret = backend()->memory->memset_sync(on_device ? b.phys : ctx->phys, ptr, (uint8_t)value, count,
                                         on_device);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "setting %zu bytes at %p (%s) failed: %s", count, ptr,
                         memory_where(&b), acl_error_text(ret));
    return ACL_SUCCESS;
}

/* Host memory no allocator knows is set as pageable memory is copied:
 * after the stream's earlier work, before the call returns (at once
 * inside a callback, which may not wait for a stream). */
aclError fill_async(const char *api, const void *site, acl_stream *s, void *ptr, int32_t value,
                    size_t count)
{
    mem_block b;
    aclError ret = fill_plan(api, site, ptr, count, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    if (b.kind == MEM_UNKNOWN) {
        /* Done by the host after s's work so far, which a capture cannot
         * record. */
        ret = sink_admit(api, s,
                         &(task){.kind = TASK_FILL,
                                 .flags = TASK_PAGEABLE,
                                 .u.fill = {.ptr = ptr, .n = count, .value = (uint8_t)value}});
        if (ret == ACL_SUCCESS && (s->flags & STREAM_DEVICE_FED_FLAGS))
            ret = acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "stream %d was created with flags 0x%x (persistent, CPU-scheduled or "
                            "device-only): only the device feeds it, so a fill of host memory "
                            "from the host is refused",
                            (int)s->id, s->flags);
        if (ret == ACL_SUCCESS && !callback_running())
            ret = finish_stream(api, s, "work before a fill of pageable host memory");
        return ret != ACL_SUCCESS ? ret : fill_unknown_host(api, site, ptr, value, count);
    }
    return stream_submit(
        api, s,
        &(task){.kind = TASK_FILL,
                .u.fill = {.ptr = ptr,
                           .n = count,
                           .value = (uint8_t)value,
                           .on_device = b.kind == MEM_DEVICE || b.kind == MEM_MANAGED}});
}

/* ---- 32-bit fills ------------------------------------------------------------------ */

/* Only ACL's device and page-locked host memory take 32-bit fills, as in
 * CANN (managed memory and foreign pointers are refused). */
static aclError fill32_plan(const char *api, void *ptr, size_t count, mem_block *b)
{
    size_t bytes = count * sizeof(uint32_t);
    aclError ret = memory_locate_live(api, ptr, bytes, b);
    if (ret != ACL_SUCCESS)
        return ret;
    if (b->kind != MEM_DEVICE && b->kind != MEM_HOST_PINNED)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is %s; only memory from aclrtMalloc or aclrtMallocHost can be set "
                         "with 32-bit values",
                         ptr, memory_where(b));
    return ACL_SUCCESS;
}

aclError fill32_sync(const char *api, acl_context *ctx, void *ptr, uint32_t value, size_t count)
{
    mem_block b;
    aclError ret = fill32_plan(api, ptr, count, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    bool on_device = b.kind == MEM_DEVICE;
    ret = backend()->memory->memset32_sync(on_device ? b.phys : ctx->phys, ptr, value, count,
                                           on_device);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "setting %zu 32-bit values at %p (%s) failed: %s", count, ptr,
                         memory_where(&b), acl_error_text(ret));
    return ACL_SUCCESS;
}

/* Host memory is set at once, not in stream order (as CANN documents). */
aclError fill32_async(const char *api, acl_stream *s, void *ptr, uint32_t value, size_t count)
{
    mem_block b;
    aclError ret = fill32_plan(api, ptr, count, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    if (b.kind != MEM_DEVICE)
        return fill32_sync(api, s->ctx, ptr, value, count);
    return stream_submit(
        api, s,
        &(task){.kind = TASK_FILL32,
                .u.fill32 = {.ptr = ptr, .count = count, .value = value, .on_device = true}});
}

/* ---- batches of copies ---------------------------------------------------------------- */

/* Where ACL's batch attributes say a side lives: host (HOST and HOST_NUMA),
 * device, or managed. */
static int batch_location(const mem_block *b)
{
    switch (b->kind) {
    case MEM_DEVICE:
        return ACL_MEM_LOCATION_TYPE_DEVICE;
    case MEM_MANAGED:
        return ACL_MEM_LOCATION_TYPE_MANAGED;
    default:
        return ACL_MEM_LOCATION_TYPE_HOST;
    }
}

static const char *location_name(int type)
{
    switch (type) {
    case ACL_MEM_LOCATION_TYPE_HOST:
        return "host";
    case ACL_MEM_LOCATION_TYPE_DEVICE:
        return "device";
    case ACL_MEM_LOCATION_TYPE_UNREGISTERED:
        return "unregistered";
    case ACL_MEM_LOCATION_TYPE_MANAGED:
        return "managed";
    case ACL_MEM_LOCATION_TYPE_HOST_NUMA:
        return "host NUMA";
    default:
        return "unknown";
    }
}

/* One side of copy i against what its attribute says. */
static aclError batch_check_side(const char *api, size_t i, const char *role, const void *ptr,
                                 const mem_block *b, const aclrtMemLocation *want)
{
    int actual = batch_location(b);
    int wanted = want->type == ACL_MEM_LOCATION_TYPE_HOST_NUMA ? ACL_MEM_LOCATION_TYPE_HOST
                                                               : (int)want->type;
    if (actual != wanted ||
        (actual == ACL_MEM_LOCATION_TYPE_DEVICE && (uint32_t)b->device != want->id))
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "copy %zu: its attribute puts %s %p in %s memory (id %u), but it is %s", i,
                         role, ptr, location_name((int)want->type), (unsigned)want->id,
                         memory_where(b));
    return ACL_SUCCESS;
}

aclError copy_batch(const char *api, acl_stream *s, acl_context *ctx, const copy_batch_args *a,
                    size_t *fail_index)
{
    enum { STACK_COPIES = 64 };
    batch_copy stack[STACK_COPIES];
    batch_copy *copies = stack;
    if (a->count > STACK_COPIES && !(copies = malloc(a->count * sizeof *copies)))
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "out of host memory for a batch of %zu copies", a->count);
    size_t attr = 0, n = 0;
    bool pageable = false, have_dir = false;
    copy_dir dir = COPY_HOST_TO_DEVICE;
    int32_t dev = ctx->phys;
    aclError ret = ACL_SUCCESS;
    for (size_t i = 0; i < a->count && ret == ACL_SUCCESS; i++) {
        if (attr + 1 < a->num_attrs && i >= a->attrs_indexes[attr + 1])
            attr++;
        const aclrtMemcpyBatchAttr *at = &a->attrs[attr];
        void *dst = a->dsts[i];
        const void *src = a->srcs[i];
        size_t size = a->sizes[i];
        if (size == 0 && a->stream_ordered) {
            ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "copy %zu has size 0", i);
        } else if (dst == NULL || src == NULL) {
            ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "copy %zu: %s is NULL", i,
                            dst == NULL ? "dst" : "src");
        }
        mem_block db, sb;
        if (ret == ACL_SUCCESS) {
            memory_locate(dst, &db);
            memory_locate(src, &sb);
            ret = batch_check_side(api, i, "dst", dst, &db, &at->dstLoc);
        }
        if (ret == ACL_SUCCESS)
            ret = batch_check_side(api, i, "src", src, &sb, &at->srcLoc);
        if (ret == ACL_SUCCESS && batch_location(&db) == batch_location(&sb))
            ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                            "copy %zu goes from %s to %s memory: a batch copies host to device "
                            "or device to host only",
                            i, location_name(batch_location(&sb)),
                            location_name(batch_location(&db)));
        copy_dir d = batch_location(&db) == ACL_MEM_LOCATION_TYPE_HOST ? COPY_DEVICE_TO_HOST
                                                                       : COPY_HOST_TO_DEVICE;
        if (ret == ACL_SUCCESS && have_dir && d != dir)
            ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                            "copy %zu goes the other way than copy 0: a batch copies in one "
                            "direction only (host to device, or device to host)",
                            i);
        if (ret == ACL_SUCCESS)
            ret = check_unmapped(api, "dst", dst, &db);
        if (ret == ACL_SUCCESS)
            ret = check_unmapped(api, "src", src, &sb);
        if (ret == ACL_SUCCESS)
            ret = memory_check_access(api, "dst", dst, &db, true);
        if (ret == ACL_SUCCESS)
            ret = memory_check_access(api, "src", src, &sb, false);
        if (ret == ACL_SUCCESS)
            ret = memory_check_extent(api, "dst", dst, size, &db);
        if (ret == ACL_SUCCESS)
            ret = memory_check_extent(api, "src", src, size, &sb);
        if (ret != ACL_SUCCESS) {
            if (fail_index)
                *fail_index = i;
            break;
        }
        dir = d;
        have_dir = true;
        if (db.kind == MEM_UNKNOWN || sb.kind == MEM_UNKNOWN)
            pageable = true;
        dev = d == COPY_HOST_TO_DEVICE ? db.phys : sb.phys;
        if (size != 0)
            copies[n++] = (batch_copy){dst, src, size};
    }
    if (ret == ACL_SUCCESS && n > 0) {
        if (s != NULL) {
            ret =
                stream_submit(api, s,
                              &(task){.kind = TASK_COPY_BATCH,
                                      .u.copy_batch = {.copies = copies, .count = n, .dir = dir}});
            /* Pageable host memory may be touched only while the call runs. */
            if (ret == ACL_SUCCESS && pageable)
                ret = finish_stream(api, s, "batch of copies through pageable memory");
        } else {
            for (size_t i = 0; i < n && ret == ACL_SUCCESS; i++) {
                ret = backend()->memory->memcpy_sync(dev, copies[i].dst, copies[i].src, copies[i].n,
                                                     dir, false);
                if (ret != ACL_SUCCESS) {
                    acl_raise(api, ret,
                              "copy %zu of the batch (%zu bytes from %p to %p) failed: %s", i,
                              copies[i].n, copies[i].src, copies[i].dst, acl_error_text(ret));
                }
            }
        }
    }
    if (copies != stack)
        free(copies);
    return ret;
}

/* ---- copies through device-side addresses ------------------------------------------------ */

/* The descriptor aclrtSetMemcpyDesc writes: 64 bytes, as in CANN, of which
 * acl-cuda uses three words. */
typedef struct memcpy_desc {
    uint64_t src, dst, count;
    uint64_t magic;
    uint64_t reserved[4];
} memcpy_desc;
_Static_assert(sizeof(memcpy_desc) == COPY_DESC_SIZE, "the descriptor is COPY_DESC_SIZE bytes");

#define MEMCPY_DESC_MAGIC UINT64_C(0x61636c6d63707964) /* "aclmcpyd" */

/* Live device memory of at least `bytes` from ptr. */
static aclError device_memory_at(const char *api, const char *role, const void *ptr, size_t bytes,
                                 mem_block *b)
{
    memory_locate(ptr, b);
    if (b->kind != MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "%s %p is %s, not device memory", role,
                         ptr, memory_where(b));
    aclError ret = memory_check_access(api, role, ptr, b, false);
    return ret != ACL_SUCCESS ? ret : memory_check_extent(api, role, ptr, bytes, b);
}

/* Whether n bytes at addr are device memory a copy may touch (write: may
 * write too) as the copy runs, on a stream's worker: a reason is logged,
 * nothing raised. */
static bool device_range_ok(const char *role, uint64_t addr, uint64_t n, bool write)
{
    const void *ptr = (const void *)(uintptr_t)addr;
    mem_block b;
    memory_locate(ptr, &b);
    const char *why = NULL;
    if (b.kind != MEM_DEVICE && b.kind != MEM_MANAGED)
        why = "is not device memory";
    else if (b.flags & MEM_FLAG_NO_ACCESS)
        why = "lies in a mapping its device has no access to";
    else if (write && (b.flags & MEM_FLAG_READ_ONLY))
        why = "lies in a mapping its device may only read";
    else if (!memory_extent_fits(ptr, (size_t)n, &b))
        why = "runs past the end of its allocation";
    if (why == NULL)
        return true;
    ACL_LOG(LOG_ERROR,
            "a copy through device-side addresses was not done: its %s %p (%llu bytes, %s) %s",
            role, ptr, (unsigned long long)n, memory_where(&b), why);
    return false;
}

static bool indirect_range_ok(uint64_t dst, uint64_t src, uint64_t n)
{
    return device_range_ok("destination", dst, n, true) && device_range_ok("source", src, n, false);
}

aclError copy_desc_set(const char *api, acl_context *ctx, void *desc, void *src, void *dst,
                       size_t count)
{
    mem_block db, sb, tb;
    aclError ret = device_memory_at(api, "desc", desc, COPY_DESC_SIZE, &tb);
    if (ret == ACL_SUCCESS)
        ret = device_memory_at(api, "dstAddr", dst, count, &db);
    if (ret == ACL_SUCCESS)
        ret = device_memory_at(api, "srcAddr", src, count, &sb);
    if (ret != ACL_SUCCESS)
        return ret;
    if (db.device != sb.device)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "dstAddr is on device %d and srcAddr on device %d: the descriptor copies "
                         "within one device",
                         db.device, sb.device);
    memcpy_desc d = {
        .src = (uintptr_t)src, .dst = (uintptr_t)dst, .count = count, .magic = MEMCPY_DESC_MAGIC};
    (void)ctx;
    ret = backend()->memory->memcpy_sync(tb.phys, desc, &d, sizeof d, COPY_HOST_TO_DEVICE, false);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "writing the descriptor at %p failed: %s", desc,
                         acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError copy_desc_async(const char *api, acl_stream *s, void *desc)
{
    mem_block tb;
    aclError ret = device_memory_at(api, "desc", desc, COPY_DESC_SIZE, &tb);
    if (ret != ACL_SUCCESS)
        return ret;
    const memcpy_desc *d = desc;
    return stream_submit(api, s,
                         &(task){.kind = TASK_COPY_INDIRECT,
                                 .u.copy_indirect = {.dst_slot = &d->dst,
                                                     .src_slot = &d->src,
                                                     .count_slot = &d->count,
                                                     .dest_max = UINT64_MAX,
                                                     .check = indirect_range_ok}});
}

aclError copy_offset_async(const char *api, acl_stream *s, void **dst, size_t dest_max,
                           size_t dst_offset, const void **src, size_t count, size_t src_offset)
{
    mem_block db, sb;
    aclError ret = device_memory_at(api, "dst", dst, sizeof(uint64_t), &db);
    if (ret == ACL_SUCCESS)
        ret = device_memory_at(api, "src", src, sizeof(uint64_t), &sb);
    if (ret != ACL_SUCCESS)
        return ret;
    return stream_submit(api, s,
                         &(task){.kind = TASK_COPY_INDIRECT,
                                 .u.copy_indirect = {.dst_slot = (const uint64_t *)dst,
                                                     .src_slot = (const uint64_t *)src,
                                                     .dst_offset = dst_offset,
                                                     .src_offset = src_offset,
                                                     .count = count,
                                                     .dest_max = dest_max,
                                                     .check = indirect_range_ok}});
}

/* ---- cache maintenance ---------------------------------------------------------------- */

/* The range must be device memory of the stream's device ("this device
 * only", CANN says). */
aclError cmo_async(const char *api, acl_stream *s, void *src, size_t size, aclrtCmoType type)
{
    mem_block b;
    aclError ret = memory_locate_live(api, src, size, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    if ((b.kind != MEM_DEVICE && b.kind != MEM_MANAGED) || b.phys != s->ctx->phys)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "%p is %s; cache maintenance takes device memory of the stream's device "
                         "(%d)",
                         src, memory_where(&b), s->ctx->device);
    if (type != ACL_RT_CMO_TYPE_PREFETCH)
        return ACL_SUCCESS; /* device memory is coherent: nothing to write back or drop */
    if (b.kind == MEM_MANAGED)
        return stream_submit(api, s,
                             &(task){.kind = TASK_PREFETCH,
                                     .u.prefetch = {.ptr = src,
                                                    .n = size,
                                                    .loc = {ACL_MEM_LOCATIONTYPE_DEVICE, b.phys}}});
    /* Device memory: an L2 prefetch where the backend has one. */
    if (!backend()->stream->memcpy_indirect_async)
        return ACL_SUCCESS;
    return stream_submit(api, s,
                         &(task){.kind = TASK_COPY_INDIRECT,
                                 .u.copy_indirect = {.src_slot = NULL,
                                                     .dst_slot = NULL,
                                                     .src_offset = (uintptr_t)src,
                                                     .count = size}});
}

/* The descriptor aclrtCmoSetDesc writes. */
typedef struct cmo_desc {
    uint64_t src, size;
    uint64_t reserved[6];
} cmo_desc;
_Static_assert(sizeof(cmo_desc) == CMO_DESC_SIZE, "the descriptor is CMO_DESC_SIZE bytes");

aclError cmo_desc_set(const char *api, void *desc, void *src, size_t size)
{
    mem_block tb, sb;
    aclError ret = device_memory_at(api, "cmoDesc", desc, CMO_DESC_SIZE, &tb);
    if (ret == ACL_SUCCESS)
        ret = device_memory_at(api, "src", src, size, &sb);
    if (ret != ACL_SUCCESS)
        return ret;
    cmo_desc d = {.src = (uintptr_t)src, .size = size};
    ret = backend()->memory->memcpy_sync(tb.phys, desc, &d, sizeof d, COPY_HOST_TO_DEVICE, false);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "writing the descriptor at %p failed: %s", desc,
                         acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError cmo_desc_async(const char *api, acl_stream *s, void *desc)
{
    mem_block tb;
    aclError ret = device_memory_at(api, "cmoDesc", desc, CMO_DESC_SIZE, &tb);
    if (ret != ACL_SUCCESS || !backend()->stream->memcpy_indirect_async)
        return ret;
    const cmo_desc *d = desc;
    return stream_submit(api, s,
                         &(task){.kind = TASK_COPY_INDIRECT,
                                 .u.copy_indirect = {.src_slot = &d->src,
                                                     .count_slot = &d->size,
                                                     .dest_max = UINT64_MAX}});
}
