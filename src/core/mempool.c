/* Stream-ordered memory pools (see mempool.h). A pool's counts are
 * atomics: an allocation and a free each change them with one
 * read-modify-write. */
#include <stdatomic.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/mempool.h"
#include "core/sink.h"

/* In mem_pool.used: a destroy found nothing in use, and no allocation
 * may follow. Pools are smaller than the device, far below this bit. */
#define POOL_CLOSED (UINT64_C(1) << 63)

typedef struct mem_pool {
    object obj;
    backend_pool *bp;
    int32_t phys, device;
    size_t max_size;
    /* Bytes handed out (whole blocks), and POOL_CLOSED. One word for both
     * is what keeps a pool alive while it has blocks: an allocation adds
     * to it only while it is open, a destroy closes it only while it is 0,
     * and a free's last use of the pool is its subtraction. */
    _Atomic uint64_t used;
    _Atomic uint64_t used_high;
    _Atomic uint32_t reuse[3]; /* the three reuse switches, 0 or 1 */
    _Atomic uint64_t release_threshold;
} mem_pool;

static void pool_free_object(object *o)
{
    mem_pool *p = (mem_pool *)o;
    backend()->pool->destroy(p->bp);
    free(p);
}

static uint64_t pool_used(mem_pool *p)
{
    return atomic_load_explicit(&p->used, memory_order_relaxed) & ~POOL_CLOSED;
}

/* The high-water mark back to what is in use. A compare-and-swap, not a
 * store: an allocation that raised the mark after the use was read makes
 * it fail and read again, so the mark never stays below the use. */
static void pool_reset_high(mem_pool *p)
{
    uint64_t high = atomic_load_explicit(&p->used_high, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&p->used_high, &high, pool_used(p),
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

/* Gives back n bytes of blocks; the pool may be freed from then on. */
static void pool_give_back(mem_pool *p, size_t n)
{
    atomic_fetch_sub_explicit(&p->used, n, memory_order_release);
}

/* The live pool behind h, borrowed (object_put). Raises. */
static aclError pool_get(const char *api, aclrtMemPool h, mem_pool **out)
{
    mem_pool *p = (mem_pool *)handle_get(h, HANDLE_MEM_POOL);
    if (p == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not a live memory pool (never made by aclrtMemPoolCreate, or "
                         "destroyed)%s",
                         h, handle_kind_of(h) ? " (it is another kind of handle)" : "");
    *out = p;
    return ACL_SUCCESS;
}

aclError mempool_create(const char *api, aclrtMemPool *out, const aclrtMemPoolProps *props)
{
    if (props->location.id > INT32_MAX)
        return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID, "location.id %u is not a device",
                         (unsigned)props->location.id);
    device_props dp;
    int32_t phys;
    aclError ret = device_props_get(api, (int32_t)props->location.id, &dp, &phys);
    if (ret != ACL_SUCCESS)
        return ret;
    size_t max = props->maxSize;
    if (max == 0)
        max = dp.total_mem / MEMPOOL_BLOCK * MEMPOOL_BLOCK;
    else if (max > SIZE_MAX - MEMPOOL_BLOCK || ALIGN_UP(max, MEMPOOL_BLOCK) > dp.total_mem)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "maxSize %zu, rounded up to 2 MiB, exceeds device %u's %zu bytes",
                         props->maxSize, (unsigned)props->location.id, dp.total_mem);
    else
        max = ALIGN_UP(max, MEMPOOL_BLOCK);
    mem_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    p->phys = phys;
    p->device = (int32_t)props->location.id;
    p->max_size = max;
    ret = backend()->pool->create(&p->bp, phys, max);
    if (ret != ACL_SUCCESS) {
        free(p);
        return acl_raise(api, ret, "cannot create a %zu-byte pool on device %u: %s", max,
                         (unsigned)props->location.id, acl_error_text(ret));
    }
    ret = handle_publish(&p->obj, HANDLE_MEM_POOL, pool_free_object);
    if (ret != ACL_SUCCESS) {
        backend()->pool->destroy(p->bp);
        free(p);
        return acl_raise(api, ret, "no handle for a new pool");
    }
    *out = handle_of(&p->obj);
    return ACL_SUCCESS;
}

aclError mempool_destroy(const char *api, aclrtMemPool h)
{
    mem_pool *p = NULL;
    aclError ret = pool_get(api, h, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    /* Acquire: what the frees of its blocks did with the pool is done. */
    uint64_t used = 0;
    if (!atomic_compare_exchange_strong_explicit(&p->used, &used, POOL_CLOSED, memory_order_acquire,
                                                 memory_order_relaxed)) {
        object_put(&p->obj);
        if (used & POOL_CLOSED)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p was destroyed by another thread", h);
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "the pool still has %llu bytes allocated; free them with "
                         "aclrtMemPoolFreeAsync first",
                         (unsigned long long)used);
    }
    if (!object_take(&p->obj)) {
        object_put(&p->obj);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p was destroyed by another thread", h);
    }
    object_put(&p->obj);
    return ACL_SUCCESS;
}

static bool read_only(aclrtMemPoolAttr attr)
{
    return attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT ||
           attr == ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT;
}

static bool known_attr(aclrtMemPoolAttr attr)
{
    return attr >= ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
           attr <= ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH;
}

static bool reuse_attr(aclrtMemPoolAttr attr)
{
    return attr <= ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES;
}

aclError mempool_set_attr(const char *api, aclrtMemPool h, aclrtMemPoolAttr attr, void *value)
{
    mem_pool *p = NULL;
    aclError ret = pool_get(api, h, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (value == NULL) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "value is NULL");
        goto out;
    }
    if (!known_attr(attr) || read_only(attr)) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        known_attr(attr) ? "attribute %d is read-only"
                                         : "attribute %d is not an aclrtMemPoolAttr (1..8)",
                        (int)attr);
        goto out;
    }
    uint64_t v = reuse_attr(attr) ? (*(const uint32_t *)value != 0) : *(const uint64_t *)value;
    if (attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD && v > p->max_size) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "release threshold %llu exceeds the pool's %zu bytes",
                        (unsigned long long)v, p->max_size);
        goto out;
    }
    if ((attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH ||
         attr == ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) &&
        v != 0) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "attribute %d takes only 0 (which resets the high-water mark), not %llu",
                        (int)attr, (unsigned long long)v);
        goto out;
    }
    if (attr == ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH)
        pool_reset_high(p);
    else if (reuse_attr(attr))
        atomic_store_explicit(&p->reuse[attr - 1], (uint32_t)v, memory_order_relaxed);
    else if (attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD)
        atomic_store_explicit(&p->release_threshold, v, memory_order_relaxed);
    if (attr != ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) {
        ret = backend()->pool->set_attr(p->bp, (int32_t)attr, v);
        if (ret != ACL_SUCCESS)
            ret = acl_raise(api, ret, "the backend refused attribute %d: %s", (int)attr,
                            acl_error_text(ret));
    }
out:
    object_put(&p->obj);
    return ret;
}

aclError mempool_get_attr(const char *api, aclrtMemPool h, aclrtMemPoolAttr attr, void *value)
{
    mem_pool *p = NULL;
    aclError ret = pool_get(api, h, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (value == NULL) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "value is NULL");
    } else if (!known_attr(attr)) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "attribute %d is not an aclrtMemPoolAttr (1..8)", (int)attr);
    } else if (attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT ||
               attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH) {
        uint64_t v = 0;
        ret = backend()->pool->get_attr(p->bp, (int32_t)attr, &v);
        if (ret == ACL_SUCCESS)
            *(uint64_t *)value = v;
        else
            ret = acl_raise(api, ret, "the backend cannot answer attribute %d: %s", (int)attr,
                            acl_error_text(ret));
    } else {
        if (reuse_attr(attr))
            *(uint32_t *)value = atomic_load_explicit(&p->reuse[attr - 1], memory_order_relaxed);
        else if (attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD)
            *(uint64_t *)value = atomic_load_explicit(&p->release_threshold, memory_order_relaxed);
        else if (attr == ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT)
            *(uint64_t *)value = pool_used(p);
        else
            *(uint64_t *)value = atomic_load_explicit(&p->used_high, memory_order_relaxed);
    }
    object_put(&p->obj);
    return ret;
}

aclError mempool_trim(const char *api, aclrtMemPool h, size_t keep)
{
    mem_pool *p = NULL;
    aclError ret = pool_get(api, h, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    uint64_t used = pool_used(p);
    uint64_t reserved = 0;
    ret = backend()->pool->get_attr(p->bp, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT, &reserved);
    if (ret != ACL_SUCCESS) {
        ret =
            acl_raise(api, ret, "cannot read the pool's reserved memory: %s", acl_error_text(ret));
    } else if (keep > p->max_size) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "minBytesToKeep %zu exceeds the pool's %zu bytes", keep, p->max_size);
    } else if (keep < reserved && keep < used) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "minBytesToKeep %zu is less than the %llu bytes in use", keep,
                        (unsigned long long)used);
    } else if (keep < reserved) {
        ret = backend()->pool->trim(p->bp, keep);
        if (ret != ACL_SUCCESS)
            ret = acl_raise(api, ret, "the backend cannot trim the pool: %s", acl_error_text(ret));
    }
    object_put(&p->obj);
    return ret;
}

/* Pool memory is handed out and taken back when the call is made (the
 * stream orders only its use): a sink may refuse it before anything is
 * done (a capture does). Raises. */
static aclError refuse_captured(const char *api, acl_stream *s, task_kind kind)
{
    if (__builtin_expect(stream_sink(s) == NULL, 1))
        return ACL_SUCCESS;
    return sink_admit(api, s, &(task){.kind = kind});
}

/* Counts n more bytes in use while the pool is open and has room for
 * them; otherwise false, with what *in_use was (POOL_CLOSED included). */
static bool pool_take_bytes(mem_pool *p, size_t n, uint64_t *in_use)
{
    uint64_t used = atomic_load_explicit(&p->used, memory_order_relaxed);
    do {
        if ((used & POOL_CLOSED) || n > p->max_size - used) {
            *in_use = used;
            return false;
        }
    } while (!atomic_compare_exchange_weak_explicit(&p->used, &used, used + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    uint64_t now = used + n, high = atomic_load_explicit(&p->used_high, memory_order_relaxed);
    while (now > high && !atomic_compare_exchange_weak_explicit(
                             &p->used_high, &high, now, memory_order_relaxed, memory_order_relaxed))
        ;
    return true;
}

aclError mempool_malloc_async(const char *api, void **ptr, size_t size, aclrtMemPool h,
                              acl_stream *s)
{
    aclError refused = refuse_captured(api, s, TASK_POOL_ALLOC);
    if (refused != ACL_SUCCESS)
        return refused;
    mem_pool *p = NULL;
    aclError ret = pool_get(api, h, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (s->ctx->phys != p->phys) {
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "the stream is on device %d, the pool on device %d", s->ctx->device,
                        p->device);
        goto out;
    }
    if (size > SIZE_MAX - MEMPOOL_BLOCK) {
        ret = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu cannot be allocated", size);
        goto out;
    }
    size_t n = ALIGN_UP(size, MEMPOOL_BLOCK);
    uint64_t in_use;
    if (!pool_take_bytes(p, n, &in_use)) {
        if (in_use & POOL_CLOSED)
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "the pool was destroyed meanwhile");
        else
            ret = acl_raise(
                api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                "%zu bytes (%zu requested) do not fit in the pool: %zu bytes, %llu in use", n, size,
                p->max_size, (unsigned long long)in_use);
        goto out;
    }
    /* From here the block's bytes keep the pool alive (mem_pool.used). */
    void *addr = NULL;
    ret = stream_submit(
        api, s,
        &(task){.kind = TASK_POOL_ALLOC, .u.pool_alloc = {.pool = p->bp, .n = n, .out = &addr}});
    if (ret == ACL_SUCCESS) {
        ret = memory_register(&(mem_block){.base = (uintptr_t)addr,
                                           .size = n,
                                           .capacity = n,
                                           .kind = MEM_DEVICE,
                                           .origin = ORIGIN_POOL,
                                           .phys = p->phys,
                                           .device = p->device,
                                           .owner = p});
        if (ret != ACL_SUCCESS) {
            (void)stream_submit(
                NULL, s, &(task){.kind = TASK_POOL_FREE, .u.pool_free = {p->bp, addr, n, p->phys}});
            ret = acl_raise(api, ret, "cannot record a %zu-byte pool allocation", n);
        }
    }
    if (ret != ACL_SUCCESS)
        pool_give_back(p, n);
    else
        *ptr = addr;
out:
    object_put(&p->obj);
    return ret;
}

aclError mempool_free_async(const char *api, void *ptr, acl_stream *s)
{
    aclError refused = refuse_captured(api, s, TASK_POOL_FREE);
    if (refused != ACL_SUCCESS)
        return refused;
    mem_block b;
    if (memory_unregister(ptr, ORIGIN_POOL, &b)) {
        mem_pool *p = b.owner;
        aclError ret = stream_submit(
            api, s, &(task){.kind = TASK_POOL_FREE, .u.pool_free = {p->bp, ptr, b.size, p->phys}});
        if (ret != ACL_SUCCESS) {
            (void)memory_register(&b);
            return ret;
        }
        pool_give_back(p, b.size);
        return ACL_SUCCESS;
    }
    /* aclrtMalloc memory: freed when the stream gets there. */
    if (memory_unregister(ptr, ORIGIN_MALLOC, &b)) {
        aclError ret = stream_submit(
            api, s,
            &(task){.kind = TASK_POOL_FREE, .u.pool_free = {NULL, ptr, b.capacity, b.phys}});
        if (ret != ACL_SUCCESS)
            (void)memory_register(&b);
        return ret;
    }
    if (b.kind != MEM_UNKNOWN)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         b.base == (uintptr_t)ptr
                             ? "%p is %s, not memory from aclrtMemPoolMallocAsync or aclrtMalloc; "
                               "release it with %s"
                             : "%p lies inside an allocation (%s); free the address the "
                               "allocation returned (%s)",
                         ptr, memory_where(&b), memory_origin_release(b.origin));
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "%p is not live memory from aclrtMemPoolMallocAsync (never allocated, or "
                     "already freed)",
                     ptr);
}
