/* The host backend's memory pools. A pool keeps the blocks it got from the
 * device's memory (memory.c's arena) and hands them out again. A free is a
 * host function on the stream: the block is pending until the work queued
 * before the free is done, then idle. An allocation takes an idle block of
 * its size (on any stream: nothing uses it any more), else a block of its
 * size pending on its own stream (the stream's order runs the work before
 * the free ahead of anything that uses the new allocation), else new
 * memory while the pool has room. Blocks are not split: each keeps the
 * size its allocation had. Reuse across streams thus never has to wait, so
 * the reuse switches change nothing here. Idle memory above the release
 * threshold goes back to the device when a stream is synchronized, as in
 * CANN. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "acl/acl_rt_memory_soma.h"
#include "backend/host/host.h"

typedef struct pool_block {
    void *ptr;
    size_t size;
    struct pool_block *next;
    backend_pool *pool;  /* pending: the pool it returns to */
    host_stream *stream; /* pending: the stream whose free it waits for */
    bool taken;          /* pending, and handed out again already */
} pool_block;

struct backend_pool {
    struct backend_pool *prev, *next; /* in the list of live pools */
    int32_t dev;
    size_t max_size;
    atomic_int refs; /* the creator's, and one per free still queued */
    pthread_mutex_t lock;
    pool_block *idle;
    pool_block *pending; /* freed, the free not run yet */
    size_t reserved, reserved_high, idle_bytes;
    uint64_t threshold;
};

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static backend_pool *pools;

static void pool_unref(backend_pool *p)
{
    if (atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    pthread_mutex_lock(&pools_lock);
    if (p->prev != NULL)
        p->prev->next = p->next;
    else
        pools = p->next;
    if (p->next != NULL)
        p->next->prev = p->prev;
    pthread_mutex_unlock(&pools_lock);
    for (pool_block *b = p->idle, *next; b != NULL; b = next) {
        next = b->next;
        (void)host_memory_ops.free_device(p->dev, b->ptr);
        free(b);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static aclError host_pool_create(backend_pool **out, int32_t dev, size_t max_size)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    backend_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    p->dev = dev;
    p->max_size = max_size;
    atomic_init(&p->refs, 1);
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_lock(&pools_lock);
    p->next = pools;
    if (pools != NULL)
        pools->prev = p;
    pools = p;
    pthread_mutex_unlock(&pools_lock);
    *out = p;
    return ACL_SUCCESS;
}

static void host_pool_destroy(backend_pool *p)
{
    pool_unref(p);
}

/* Releases idle blocks, largest first, until at most keep bytes are
 * reserved (or nothing idle is left). Under p->lock. */
static void release_idle(backend_pool *p, size_t keep)
{
    while (p->reserved > keep && p->idle != NULL) {
        pool_block **largest = &p->idle;
        for (pool_block **at = &p->idle; *at != NULL; at = &(*at)->next)
            if ((*at)->size > (*largest)->size)
                largest = at;
        pool_block *b = *largest;
        *largest = b->next;
        p->reserved -= b->size;
        p->idle_bytes -= b->size;
        (void)host_memory_ops.free_device(p->dev, b->ptr);
        free(b);
    }
}

static aclError host_pool_trim(backend_pool *p, size_t keep)
{
    pthread_mutex_lock(&p->lock);
    release_idle(p, keep);
    pthread_mutex_unlock(&p->lock);
    return ACL_SUCCESS;
}

static aclError host_pool_set_attr(backend_pool *p, int32_t attr, uint64_t value)
{
    pthread_mutex_lock(&p->lock);
    if (attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD)
        p->threshold = value;
    else if (attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH)
        p->reserved_high = p->reserved;
    pthread_mutex_unlock(&p->lock);
    return ACL_SUCCESS;
}

static aclError host_pool_get_attr(backend_pool *p, int32_t attr, uint64_t *value)
{
    pthread_mutex_lock(&p->lock);
    aclError ret = ACL_SUCCESS;
    if (attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT)
        *value = p->reserved;
    else if (attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH)
        *value = p->reserved_high;
    else
        ret = ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_unlock(&p->lock);
    return ret;
}

aclError host_pool_alloc_async(backend_stream *bs, backend_pool *p, size_t n, void **ptr)
{
    pthread_mutex_lock(&p->lock);
    for (pool_block **at = &p->idle; *at != NULL; at = &(*at)->next) {
        if ((*at)->size != n)
            continue;
        pool_block *b = *at;
        *at = b->next;
        p->idle_bytes -= b->size;
        pthread_mutex_unlock(&p->lock);
        *ptr = b->ptr;
        free(b);
        return ACL_SUCCESS;
    }
    for (pool_block **at = &p->pending; *at != NULL; at = &(*at)->next) {
        pool_block *b = *at;
        if (b->size != n || b->stream != bs->impl)
            continue;
        /* Its free, when it runs, only drops the record, and frees it:
         * read before the lock goes. */
        *at = b->next;
        b->taken = true;
        *ptr = b->ptr;
        pthread_mutex_unlock(&p->lock);
        return ACL_SUCCESS;
    }
    /* New memory, making room by releasing idle blocks. */
    release_idle(p, n <= p->max_size ? p->max_size - n : 0);
    if (n > p->max_size || p->reserved > p->max_size - n) {
        pthread_mutex_unlock(&p->lock);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    void *mem = NULL;
    aclError ret = host_memory_ops.malloc_device(p->dev, &mem, n);
    if (ret == ACL_SUCCESS) {
        p->reserved += n;
        if (p->reserved > p->reserved_high)
            p->reserved_high = p->reserved;
        *ptr = mem;
    }
    pthread_mutex_unlock(&p->lock);
    return ret;
}

/* On the stream's worker, once the work before the free is done: the
 * block becomes idle, unless its stream took it again meanwhile. */
static void return_block(void *arg)
{
    pool_block *b = arg;
    backend_pool *p = b->pool;
    pthread_mutex_lock(&p->lock);
    if (b->taken) {
        pthread_mutex_unlock(&p->lock);
        free(b);
    } else {
        pool_block **at = &p->pending;
        while (*at != b)
            at = &(*at)->next;
        *at = b->next;
        b->next = p->idle;
        b->stream = NULL;
        p->idle = b;
        p->idle_bytes += b->size;
        pthread_mutex_unlock(&p->lock);
    }
    pool_unref(p);
}

typedef struct device_free {
    void *ptr;
    int32_t dev;
} device_free;

static void free_device_block(void *arg)
{
    device_free *f = arg;
    (void)host_memory_ops.free_device(f->dev, f->ptr);
    free(f);
}

aclError host_pool_free_async(backend_stream *bs, backend_pool *p, void *ptr, size_t n, int32_t dev)
{
    if (p == NULL) {
        device_free *f = malloc(sizeof *f);
        if (f == NULL)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        *f = (device_free){ptr, dev};
        aclError ret = host_stream_ops.host_func(bs, free_device_block, f);
        if (ret != ACL_SUCCESS)
            free(f);
        return ret;
    }
    pool_block *b = calloc(1, sizeof *b);
    if (b == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *b = (pool_block){.ptr = ptr, .size = n, .pool = p, .stream = bs->impl};
    atomic_fetch_add(&p->refs, 1);
    pthread_mutex_lock(&p->lock);
    b->next = p->pending;
    p->pending = b;
    pthread_mutex_unlock(&p->lock);
    aclError ret = host_stream_ops.host_func(bs, return_block, b);
    if (ret != ACL_SUCCESS) {
        /* Not queued: idle at once would be wrong (earlier work may still
         * use it), so the caller keeps the allocation. */
        pthread_mutex_lock(&p->lock);
        pool_block **at = &p->pending;
        while (*at != b)
            at = &(*at)->next;
        *at = b->next;
        pthread_mutex_unlock(&p->lock);
        free(b);
        pool_unref(p);
    }
    return ret;
}

void host_pools_settle(void)
{
    pthread_mutex_lock(&pools_lock);
    for (backend_pool *p = pools; p != NULL; p = p->next) {
        pthread_mutex_lock(&p->lock);
        if (p->idle_bytes > p->threshold)
            release_idle(p, p->reserved - p->idle_bytes + (size_t)p->threshold);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&pools_lock);
}

const backend_pool_ops host_pool_ops = {
    .create = host_pool_create,
    .destroy = host_pool_destroy,
    .trim = host_pool_trim,
    .set_attr = host_pool_set_attr,
    .get_attr = host_pool_get_attr,
};
