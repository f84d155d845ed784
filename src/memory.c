/* Memory: allocation, copies and fills with ACL's rules.
 *
 * Every allocation made through ACL (device memory and page-locked host
 * memory) is recorded in a registry keyed by address range. The registry is
 * what tells a device pointer from a host one on every backend (on the host
 * backend both are plain process memory), so it decides the direction of
 * ACL_MEMCPY_DEFAULT copies, catches kinds that contradict where the pointers
 * live, catches copies running past the end of an allocation, and keeps
 * foreign or stale pointers away from the backend's free functions.
 *
 * Error codes for bad pointers: NULL and every pointer the registry rejects
 * (foreign, interior, already freed, or the wrong kind of memory for the
 * function) is a parameter error, ACL_ERROR_INVALID_PARAM, raised by this
 * layer; such a pointer never reaches the backend. Failures reported by the
 * backend itself are passed on with the backend's code. */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ALIGN_UP(n, a) (((n) + ((a) - 1)) / (a) * (a))

/* ---- the registry ------------------------------------------------------------ */

typedef struct mem_block {
    uintptr_t base;
    size_t size;       /* bytes allocated for the caller, padding included */
    size_t capacity;   /* bytes the block holds: more than size when it was reused */
    mem_kind kind;
    int32_t phys;      /* backend device; -1 for host memory */
    int32_t device;    /* user-visible device id; 0 for host memory */
    uint32_t policy;   /* aclrtMemMallocPolicy of device memory */
} mem_block;

/* A balanced search tree (glibc's tsearch is a red-black tree) of
 * non-overlapping blocks. Two blocks compare equal when their ranges
 * overlap, so looking up a one-byte block finds the allocation containing
 * that byte in O(log n). tfind does not modify the tree, so lookups share a
 * read lock. */
static void *alloc_tree;
static pthread_rwlock_t alloc_tree_lock = PTHREAD_RWLOCK_INITIALIZER;

/* Every copy and fill looks up one or two pointers, usually the same ones
 * as the thread's previous call; the read lock alone costs two atomic
 * read-modify-writes. So each thread keeps its last hits, valid while the
 * tree's generation, bumped under the write lock by every change, is the
 * one they were found at. A hit is then as good as a lookup made just
 * before any change still in progress. */
static atomic_uint_fast64_t alloc_tree_generation = 1;

enum { LOOKUP_CACHE_SIZE = 2 };

typedef struct lookup_cache {
    uint_fast64_t generation; /* 0: empty */
    unsigned count, next;
    mem_block blocks[LOOKUP_CACHE_SIZE];
} lookup_cache;

static _Thread_local lookup_cache tls_lookups;

/* Called with the write lock held, after the change. */
static void tree_changed(void)
{
    atomic_fetch_add_explicit(&alloc_tree_generation, 1, memory_order_release);
}

static int block_compare(const void *a, const void *b)
{
    const mem_block *x = a, *y = b;
    /* Inclusive last bytes: no overflow at the top of the address space. */
    uintptr_t x_last = x->base + (x->size - 1), y_last = y->base + (y->size - 1);
    if (x_last < y->base)
        return -1;
    if (y_last < x->base)
        return 1;
    return 0;
}

/* Records a fresh allocation. Fails only when the bookkeeping itself cannot
 * be allocated, or when the backend handed out a range we still hold. */
static aclError registry_add(void *ptr, size_t size, size_t capacity, mem_kind kind, int32_t phys,
                             int32_t device, uint32_t policy)
{
    mem_block *b = malloc(sizeof *b);
    if (b == NULL)
        return ACL_ERROR_BAD_ALLOC;
    *b = (mem_block){.base = (uintptr_t)ptr, .size = size, .capacity = capacity, .kind = kind,
                     .phys = phys, .device = device, .policy = policy};
    pthread_rwlock_wrlock(&alloc_tree_lock);
    void *node = tsearch(b, &alloc_tree, block_compare);
    bool inserted = node != NULL && *(mem_block **)node == b;
    if (inserted)
        tree_changed();
    pthread_rwlock_unlock(&alloc_tree_lock);
    if (!inserted) {
        free(b);
        return node == NULL ? ACL_ERROR_BAD_ALLOC : ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return ACL_SUCCESS;
}

/* Copies the block containing ptr into *out; false when ptr lies in no
 * ACL allocation (pageable host memory, or nothing at all). */
static bool registry_find(const void *ptr, mem_block *out)
{
    lookup_cache *cache = &tls_lookups;
    uint_fast64_t generation = atomic_load_explicit(&alloc_tree_generation, memory_order_acquire);
    if (cache->generation == generation) {
        for (unsigned i = 0; i < cache->count; i++) {
            const mem_block *b = &cache->blocks[i];
            if ((uintptr_t)ptr - b->base < b->size) {
                *out = *b;
                return true;
            }
        }
    } else {
        *cache = (lookup_cache){.generation = generation};
    }

    mem_block key = {.base = (uintptr_t)ptr, .size = 1};
    bool found = false;
    pthread_rwlock_rdlock(&alloc_tree_lock);
    void *node = tfind(&key, &alloc_tree, block_compare);
    if (node != NULL) {
        *out = **(mem_block **)node;
        found = true;
    }
    pthread_rwlock_unlock(&alloc_tree_lock);
    if (found) {
        /* Found at generation or later: a later change invalidates it. */
        cache->blocks[cache->next] = *out;
        cache->next = (cache->next + 1) % LOOKUP_CACHE_SIZE;
        if (cache->count < LOOKUP_CACHE_SIZE)
            cache->count++;
    }
    return found;
}

/* Unregisters the allocation starting exactly at ptr if it is of kind
 * `kind`, copying it to *out. On failure nothing changes and *out says what
 * ptr is instead (kind MEM_UNKNOWN when it is in no allocation). Lookup and
 * removal happen under one lock so two concurrent frees cannot both win. */
static bool registry_take(const void *ptr, mem_kind kind, mem_block *out)
{
    mem_block key = {.base = (uintptr_t)ptr, .size = 1};
    mem_block *taken = NULL;
    pthread_rwlock_wrlock(&alloc_tree_lock);
    void *node = tfind(&key, &alloc_tree, block_compare);
    if (node == NULL) {
        *out = (mem_block){.base = (uintptr_t)ptr, .kind = MEM_UNKNOWN, .phys = -1};
    } else {
        *out = **(mem_block **)node;
        if (out->base == (uintptr_t)ptr && out->kind == kind) {
            taken = *(mem_block **)node;
            tdelete(taken, &alloc_tree, block_compare);
            tree_changed();
        }
    }
    pthread_rwlock_unlock(&alloc_tree_lock);
    free(taken);
    return taken != NULL;
}

mem_kind memory_kind_of(const void *ptr, int32_t *phys)
{
    mem_block b;
    if (!registry_find(ptr, &b)) {
        if (phys != NULL)
            *phys = -1;
        return MEM_UNKNOWN;
    }
    if (phys != NULL)
        *phys = b.phys;
    return b.kind;
}

/* Where a pointer lives, for error messages. */
static const char *where(const mem_block *b)
{
    switch (b->kind) {
    case MEM_DEVICE:
        return "device memory";
    case MEM_HOST_PINNED:
        return "page-locked host memory from aclrtMallocHost";
    case MEM_UNKNOWN:
        break;
    }
    return "host memory not allocated by ACL";
}

/* Looks ptr up; an unregistered pointer yields a MEM_UNKNOWN block. */
static void locate(const void *ptr, mem_block *b)
{
    if (!registry_find(ptr, b))
        *b = (mem_block){.base = (uintptr_t)ptr, .kind = MEM_UNKNOWN, .phys = -1};
}

/* The `extent` bytes from ptr must stay inside ptr's allocation. Memory we
 * did not allocate cannot be checked and passes. */
static aclError check_extent(const char *func, const char *role, const void *ptr, size_t extent,
                             const mem_block *b)
{
    if (b->kind == MEM_UNKNOWN)
        return ACL_SUCCESS;
    size_t offset = (uintptr_t)ptr - b->base;
    if (extent > b->size - offset)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "%s %p: %zu bytes from offset %zu run past the end of its %zu-byte "
                         "allocation (%s)",
                         role, ptr, extent, offset, b->size, where(b));
    return ACL_SUCCESS;
}

/* Fills and cache maintenance touch memory from ACL's own allocators only
 * (on Ascend anything else is undefined): anything else, a freed pointer
 * included, is refused rather than written to. */
static aclError locate_live(const char *func, const void *ptr, size_t extent, mem_block *b)
{
    locate(ptr, b);
    if (b->kind == MEM_UNKNOWN)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "%p is not live memory from aclrtMalloc or aclrtMallocHost (never "
                         "allocated by ACL, or already freed)",
                         ptr);
    return check_extent(func, "devPtr", ptr, extent, b);
}

/* ---- device memory ------------------------------------------------------------ */

/* The documented policy set: one of the eight page policies, optionally with
 * one band-width bit and the read-only bit. */
static bool policy_valid(uint32_t policy)
{
    const uint32_t page_mask = 0x7u;
    const uint32_t band_bits = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH;
    if ((policy & ~(page_mask | band_bits | ACL_MEM_ACCESS_USER_SPACE_READONLY)) != 0)
        return false;
    return (policy & band_bits) != band_bits;
}

static bool policy_is_huge(uint32_t policy)
{
    switch (policy & 0x7u) {
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
        return false;
    default:
        return true;
    }
}

/* ---- frees made inside callbacks (see callback_running in internal.h) -------- */

/* The backend's allocation and free of device phys's memory, or of
 * page-locked host memory for phys -1. */
static aclError backend_alloc(int32_t phys, void **ptr, size_t size)
{
    return phys >= 0 ? backend()->malloc_device(phys, ptr, size) : backend()->malloc_host(ptr, size);
}

static aclError backend_free(int32_t phys, void *ptr)
{
    return phys >= 0 ? backend()->free_device(phys, ptr) : backend()->free_host(ptr);
}


/* On CUDA, cudaFree and cudaFreeHost wait for the whole device, and while
 * they wait the driver holds a lock that cudaMalloc and cudaHostAlloc need.
 * A callback runs while a BLOCK host function holds its stream, so a free
 * made there (or on any thread while a callback allocates) can never finish.
 * Memory freed inside a callback is therefore parked instead: it leaves the
 * registry at once (for ACL it is freed), a later allocation of that kind
 * of memory that fits in it reuses it without calling the backend (pyACL's
 * samples allocate and free the same buffer in every callback; see obtain),
 * and the backend really frees it at the next free on a thread outside
 * callbacks, when an allocation fails outside callbacks, or when its device
 * is reset or ACL is finalized. A reused block is handed out without waiting
 * for the device: aclrtFree promises no synchronisation, so work still using
 * memory that a callback freed is the caller's bug, as on Ascend. */
typedef struct parked_block {
    void *ptr;
    size_t size;
    int32_t phys; /* -1: page-locked host memory */
    struct parked_block *next;
} parked_block;

static parked_block *parked_head;
static pthread_mutex_t parked_lock = PTHREAD_MUTEX_INITIALIZER;

/* True when the free was parked; false when it must happen now. */
static bool park_free(void *ptr, size_t size, int32_t phys)
{
    if (!callback_running())
        return false;
    parked_block *p = malloc(sizeof *p);
    if (!p)
        return false;
    pthread_mutex_lock(&parked_lock);
    *p = (parked_block){ptr, size, phys, parked_head};
    parked_head = p;
    pthread_mutex_unlock(&parked_lock);
    return true;
}

/* Takes the smallest parked block of the given memory that holds `size`
 * bytes and no more than `most`; NULL when there is none. */
static void *unpark(size_t size, size_t most, int32_t phys, size_t *capacity)
{
    parked_block **best = NULL;
    pthread_mutex_lock(&parked_lock);
    for (parked_block **link = &parked_head; *link; link = &(*link)->next) {
        parked_block *p = *link;
        if (p->phys == phys && p->size >= size && p->size <= most &&
            (best == NULL || p->size < (*best)->size))
            best = link;
    }
    void *ptr = NULL;
    if (best) {
        parked_block *p = *best;
        *best = p->next;
        ptr = p->ptr;
        *capacity = p->size;
        free(p);
    }
    pthread_mutex_unlock(&parked_lock);
    return ptr;
}

/* Hands parked blocks to the backend: those of device `phys` (-1: host
 * memory), or all of them when every_kind. Never inside a callback.
 * Returns how many went back. */
static size_t release_parked(int32_t phys, bool every_kind)
{
    if (callback_running())
        return 0;
    size_t count = 0;
    parked_block *mine = NULL;
    pthread_mutex_lock(&parked_lock);
    for (parked_block **link = &parked_head; *link;) {
        parked_block *p = *link;
        if (every_kind || p->phys == phys) {
            *link = p->next;
            p->next = mine;
            mine = p;
        } else {
            link = &p->next;
        }
    }
    pthread_mutex_unlock(&parked_lock);
    while (mine) {
        parked_block *p = mine;
        mine = p->next;
        aclError ret = backend_free(p->phys, p->ptr);
        if (ret != ACL_SUCCESS)
            ACL_LOG(LOG_ERROR, "freeing %p (freed in a callback) failed: %s", p->ptr, acl_error_text(ret));
        free(p);
        count++;
    }
    return count;
}

void memory_device_released(int32_t phys)
{
    release_parked(phys, false);
    release_parked(-1, false);
}

void memory_all_released(void)
{
    (void)release_parked(-1, true);
}

/* Gets a block of `size` bytes of device phys's memory (-1: page-locked
 * host memory): a parked block that fits without wasting more than half of
 * it, else a new one from the backend. When the backend is out of memory,
 * parked memory goes back and the allocation is retried; inside a callback,
 * where nothing can go back, any parked block large enough is taken. */
static aclError obtain(int32_t phys, size_t size, void **ptr, size_t *capacity)
{
    size_t roomy = size <= SIZE_MAX / 2 ? 2 * size : SIZE_MAX;
    if ((*ptr = unpark(size, roomy, phys, capacity)) != NULL)
        return ACL_SUCCESS;
    *capacity = size;
    aclError ret = backend_alloc(phys, ptr, size);
    if (ret == ACL_SUCCESS)
        return ret;
    if (release_parked(phys, false) > 0)
        return backend_alloc(phys, ptr, size);
    if ((*ptr = unpark(size, SIZE_MAX, phys, capacity)) != NULL)
        return ACL_SUCCESS;
    return ret;
}

/* Allocates `size` bytes of device memory on `phys`, reserving `padded`
 * (ACL's rounded size, which callers may rely on) and registering them. */
static aclError device_alloc(const char *func, void **dev_ptr, size_t size, size_t padded,
                             uint32_t policy, int32_t phys, int32_t device)
{
    void *ptr;
    size_t capacity;
    aclError ret = obtain(phys, padded, &ptr, &capacity);
    if (ret != ACL_SUCCESS)
        return acl_raise(func, ret, "cannot allocate %zu bytes (%zu requested) on device %d: %s",
                         padded, size, device, acl_error_text(ret));
    ret = registry_add(ptr, padded, capacity, MEM_DEVICE, phys, device, policy);
    if (ret != ACL_SUCCESS) {
        if (!park_free(ptr, capacity, phys))
            backend_free(phys, ptr);
        return acl_raise(func, ret, "cannot record a %zu-byte allocation on device %d", padded,
                         device);
    }
    ACL_LOG(LOG_DEBUG, "%p: %zu bytes on device %d (policy 0x%x)", ptr, padded, device,
            (unsigned)policy);
    *dev_ptr = ptr;
    return ACL_SUCCESS;
}

/* Checks what every device allocation takes and computes the size to
 * reserve: ALIGN_UP(size, 32), plus 32 bytes of slack unless align32_only. */
static aclError device_alloc_args(const char *func, void **dev_ptr, size_t size, uint32_t policy,
                                  bool align32_only, size_t *padded)
{
    if (dev_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    if (!policy_valid(policy))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "policy 0x%x is not an aclrtMemMallocPolicy: one of 0..7, optionally "
                         "with one of the band-width bits 0x100/0x1000 and the read-only bit "
                         "0x100000",
                         (unsigned)policy);
    size_t extra = align32_only ? 0 : 32;
    if (size > SIZE_MAX - 31 - extra)
        return acl_raise(func, ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "size %zu cannot be allocated", size);
    *padded = ALIGN_UP(size, 32) + extra;
    return ACL_SUCCESS;
}

static aclError malloc_current(const char *func, void **dev_ptr, size_t size,
                               aclrtMemMallocPolicy policy, bool align32_only)
{
    size_t padded;
    aclError ret = device_alloc_args(func, dev_ptr, size, (uint32_t)policy, align32_only, &padded);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_context *ctx;
    ret = context_require(func, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    return device_alloc(func, dev_ptr, size, padded, (uint32_t)policy, ctx->phys, ctx->device);
}

ACL_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_current(__func__, devPtr, size, policy, false);
}

ACL_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_current(__func__, devPtr, size, policy, true);
}

/* Cached and uncached device memory are the same thing on both backends. */
ACL_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_current(__func__, devPtr, size, policy, false);
}

/* Reads an aclrtMallocConfig. A device id attribute picks the device
 * (instead of the current context's); module ids and VA flags only matter
 * to Ascend's memory accounting and are accepted. */
static aclError malloc_config_read(const char *func, const aclrtMallocConfig *cfg,
                                   bool *has_device, int32_t *device)
{
    *has_device = false;
    if (cfg == NULL)
        return ACL_SUCCESS;
    if (cfg->numAttrs > 0 && cfg->attrs == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "cfg has %zu attributes but attrs is NULL",
                         cfg->numAttrs);
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        switch (a->attr) {
        case ACL_RT_MEM_ATTR_MODULE_ID:
        case ACL_RT_MEM_ATTR_VA_FLAG:
            break;
        case ACL_RT_MEM_ATTR_DEVICE_ID:
            if (a->value.deviceId > INT32_MAX)
                return acl_raise(func, ACL_ERROR_RT_INVALID_DEVICEID,
                                 "cfg attribute %zu: device id %u is out of range", i,
                                 (unsigned)a->value.deviceId);
            *has_device = true;
            *device = (int32_t)a->value.deviceId;
            break;
        default:
            return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                             "cfg attribute %zu has unknown type %d", i, (int)a->attr);
        }
    }
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                       aclrtMallocConfig *cfg)
{
    size_t padded;
    aclError ret = device_alloc_args(__func__, devPtr, size, (uint32_t)policy, false, &padded);
    if (ret != ACL_SUCCESS)
        return ret;
    bool has_device;
    int32_t device = 0, phys;
    ret = malloc_config_read(__func__, cfg, &has_device, &device);
    if (ret != ACL_SUCCESS)
        return ret;
    if (has_device) {
        ret = device_to_phys(device, &phys);
        if (ret != ACL_SUCCESS)
            return ACL_RAISE(ret, "device %d does not exist (%d visible)", device,
                             device_visible_count());
    } else {
        acl_context *ctx;
        ret = context_require(__func__, &ctx);
        if (ret != ACL_SUCCESS)
            return ret;
        phys = ctx->phys;
        device = ctx->device;
    }
    return device_alloc(__func__, devPtr, size, padded, (uint32_t)policy, phys, device);
}

/* Frees a live allocation of the given kind at exactly ptr; every other
 * pointer is refused before the backend sees it. */
static aclError release(const char *func, void *ptr, mem_kind kind)
{
    bool device = kind == MEM_DEVICE;
    if (ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL", device ? "devPtr" : "hostPtr");
    mem_block b;
    if (!registry_take(ptr, kind, &b)) {
        if (b.kind != MEM_UNKNOWN && b.kind != kind && b.base == (uintptr_t)ptr)
            return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%p is %s; free it with %s", ptr,
                             device ? "page-locked host memory" : "device memory",
                             device ? "aclrtFreeHost" : "aclrtFree");
        if (b.kind != MEM_UNKNOWN)
            return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                             "%p lies %zu bytes inside a %zu-byte allocation (%s) at %p; only "
                             "the address returned by the allocation can be freed",
                             ptr, (size_t)((uintptr_t)ptr - b.base), b.size, where(&b), (void *)b.base);
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "%p is not live %s (never allocated by ACL or already freed)", ptr,
                         device ? "device memory from aclrtMalloc" : "page-locked memory from aclrtMallocHost");
    }
    int32_t phys = device ? b.phys : -1;
    if (park_free(ptr, b.capacity, phys))
        return ACL_SUCCESS;
    (void)release_parked(-1, true);
    aclError ret = backend_free(phys, ptr);
    if (ret != ACL_SUCCESS)
        return acl_raise(func, ret, "the backend failed to free %p (%s): %s", ptr, where(&b),
                         acl_error_text(ret));
    ACL_LOG(LOG_DEBUG, "%p: freed (%zu bytes, %s)", ptr, b.size, where(&b));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtFree(void *devPtr)
{
    return release(__func__, devPtr, MEM_DEVICE);
}

ACL_EXPORT aclError aclrtFreeWithDevSync(void *devPtr)
{
    mem_block b;
    /* Only live device allocations are synchronised for; release
     * reports every other pointer. */
    if (devPtr != NULL && registry_find(devPtr, &b) && b.kind == MEM_DEVICE &&
        b.base == (uintptr_t)devPtr) {
        aclError ret = device_synchronize(b.phys, -1);
        if (ret != ACL_SUCCESS)
            return ACL_RAISE(ret, "synchronising device %d before freeing %p failed; the memory "
                                  "was not freed",
                             b.device, devPtr);
    }
    return release(__func__, devPtr, MEM_DEVICE);
}

/* Device and host memory are coherent on both backends: cache maintenance
 * has nothing to do beyond checking its arguments. */
static aclError cache_maintenance(const char *func, const void *dev_ptr, size_t size)
{
    if (dev_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    mem_block b;
    return locate_live(func, dev_ptr, size, &b);
}

ACL_EXPORT aclError aclrtMemFlush(void *devPtr, size_t size)
{
    return cache_maintenance(__func__, devPtr, size);
}

ACL_EXPORT aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
    return cache_maintenance(__func__, devPtr, size);
}

/* Every memory attribute is answered with the whole memory of the current
 * device as the backend reports it: neither backend has separate DDR/HBM
 * pools, and huge/normal/1G pages and P2P memory are carved from the same
 * memory, so each of those splits reports the same free and total bytes. */
ACL_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *freeBytes, size_t *totalBytes)
{
    if (freeBytes == NULL || totalBytes == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         freeBytes == NULL ? "free" : "total");
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attr %d is not an aclrtMemAttr (0..%d)",
                         (int)attr, (int)ACL_MEM_P2P_HUGE1G);
    acl_context *ctx;
    aclError ret = context_require(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    size_t free_bytes = 0, total_bytes = 0;
    ret = backend()->mem_info(ctx->phys, &free_bytes, &total_bytes);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "cannot read the memory of device %d: %s", ctx->device,
                         acl_error_text(ret));
    *freeBytes = free_bytes;
    *totalBytes = total_bytes;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    if (ptr == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (attributes == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attributes is NULL");
    const uint32_t small_page = 4096, huge_page = 2u << 20;
    mem_block b;
    locate(ptr, &b);
    memset(attributes, 0, sizeof *attributes);
    attributes->pageSize = small_page;
    switch (b.kind) {
    case MEM_DEVICE:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)b.device;
        if (policy_is_huge(b.policy) && b.size >= huge_page)
            attributes->pageSize = huge_page;
        break;
    case MEM_HOST_PINNED:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        break;
    case MEM_UNKNOWN:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        break;
    }
    return ACL_SUCCESS;
}

/* ---- page-locked host memory -------------------------------------------------- */

static aclError host_alloc_args(const char *func, void **host_ptr, uint64_t size)
{
    if (host_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "hostPtr is NULL");
    if (size == 0)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "size is 0");
    if (size > SIZE_MAX)
        return acl_raise(func, ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "size %llu cannot be allocated", (unsigned long long)size);
    return ACL_SUCCESS;
}

/* Allocates and registers page-locked memory; arguments already checked. */
static aclError host_alloc(const char *func, void **host_ptr, uint64_t size)
{
    void *ptr;
    size_t capacity;
    aclError ret = obtain(-1, (size_t)size, &ptr, &capacity);
    if (ret != ACL_SUCCESS)
        return acl_raise(func, ret, "cannot allocate %llu bytes of page-locked host memory: %s",
                         (unsigned long long)size, acl_error_text(ret));
    ret = registry_add(ptr, (size_t)size, capacity, MEM_HOST_PINNED, -1, 0, 0);
    if (ret != ACL_SUCCESS) {
        if (!park_free(ptr, capacity, -1))
            backend_free(-1, ptr);
        return acl_raise(func, ret, "cannot record a %llu-byte host allocation",
                         (unsigned long long)size);
    }
    ACL_LOG(LOG_DEBUG, "%p: %llu bytes of page-locked host memory", ptr,
            (unsigned long long)size);
    *host_ptr = ptr;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    aclError ret = host_alloc_args(__func__, hostPtr, size);
    if (ret != ACL_SUCCESS)
        return ret;
    return host_alloc(__func__, hostPtr, size);
}

ACL_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    aclError ret = host_alloc_args(__func__, ptr, size);
    if (ret != ACL_SUCCESS)
        return ret;
    bool has_device;
    int32_t device;
    ret = malloc_config_read(__func__, cfg, &has_device, &device);
    if (ret != ACL_SUCCESS)
        return ret;
    /* Host memory belongs to no device; a device id is checked, not used. */
    int32_t phys;
    if (has_device && device_to_phys(device, &phys) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d visible)",
                         device, device_visible_count());
    return host_alloc(__func__, ptr, size);
}

ACL_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
    return release(__func__, hostPtr, MEM_HOST_PINNED);
}

/* Page-locked memory can be in use by any device, so every visible device
 * is synchronised before it goes. */
ACL_EXPORT aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
    mem_block b;
    if (hostPtr != NULL && registry_find(hostPtr, &b) && b.kind == MEM_HOST_PINNED &&
        b.base == (uintptr_t)hostPtr) {
        int32_t count = device_visible_count();
        for (int32_t device = 0; device < count; device++) {
            int32_t phys;
            if (device_to_phys(device, &phys) != ACL_SUCCESS)
                continue;
            aclError ret = device_synchronize(phys, -1);
            if (ret != ACL_SUCCESS)
                return ACL_RAISE(ret, "synchronising device %d before freeing %p failed; the "
                                      "memory was not freed",
                                 device, hostPtr);
        }
    }
    return release(__func__, hostPtr, MEM_HOST_PINNED);
}

/* ---- copies ------------------------------------------------------------------- */

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
static aclError plan_copy(const char *func, void *dst, const void *src, int kind, copy_plan *p)
{
    locate(dst, &p->dst);
    locate(src, &p->src);
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
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "%s contradicts the pointers: dst %p is %s, src %p is %s",
                         kind_name(kind), dst, where(&p->dst), src, where(&p->src));
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
 * write only later), or staged through ACL's buffer so that the source may
 * be reused at once, is completed before the call returns. */
static bool copy_must_finish(const copy_plan *p, int kind)
{
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return true;
    return (p->dst.kind == MEM_UNKNOWN || p->src.kind == MEM_UNKNOWN) &&
           p->dir != COPY_DEVICE_TO_DEVICE;
}

static aclError finish_stream(const char *func, acl_stream *s, const char *what)
{
    aclError ret = backend()->stream_synchronize(s->bs, -1);
    if (ret != ACL_SUCCESS)
        return acl_raise(func, ret, "waiting for the %s on stream %d failed: %s", what, s->id,
                         acl_error_text(ret));
    return ACL_SUCCESS;
}

/* Shared checks of aclrtMemcpy and aclrtMemcpyAsync, in ACL's order. Returns
 * ACL_SUCCESS with *nothing_to_do set for the documented no-ops. */
static aclError copy_args(const char *func, void *dst, size_t dest_max, const void *src,
                          size_t count, aclrtMemcpyKind kind, bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (dst == NULL || src == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "kind %d is not a copy kind this function takes (0..5)", (int)kind);
    if (count == 0) {
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    if (dest_max == 0)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "destMax is 0 but count is %zu", count);
    if (count > dest_max)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds destMax %zu", count,
                         dest_max);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                aclrtMemcpyKind kind)
{
    bool nothing_to_do;
    aclError ret = copy_args(__func__, dst, destMax, src, count, kind, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = context_require(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    copy_plan p;
    ret = plan_copy(__func__, dst, src, (int)kind, &p);
    if (ret == ACL_SUCCESS)
        ret = check_extent(__func__, "dst", dst, count, &p.dst);
    if (ret == ACL_SUCCESS)
        ret = check_extent(__func__, "src", src, count, &p.src);
    if (ret != ACL_SUCCESS || dst == src)
        return ret;
    ret = backend()->memcpy_sync(copy_device(&p, ctx), dst, src, count, p.dir,
                                 p.src.kind == MEM_HOST_PINNED);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "copying %zu bytes from %p to %p (%s) failed: %s", count, src, dst,
                         kind_name((int)kind), acl_error_text(ret));
    return ACL_SUCCESS;
}

static aclError copy_async(const char *func, void *dst, size_t dest_max, const void *src,
                           size_t count, aclrtMemcpyKind kind, aclrtStream stream)
{
    bool nothing_to_do;
    aclError ret = copy_args(func, dst, dest_max, src, count, kind, &nothing_to_do);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = stream_resolve(func, stream, &s);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    if (kind == ACL_MEMCPY_HOST_TO_HOST)
        return acl_raise(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "host-to-host copies cannot be queued on a stream; use aclrtMemcpy");
    copy_plan p;
    ret = plan_copy(func, dst, src, (int)kind, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (p.dir == COPY_HOST_TO_HOST)
        return acl_raise(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "dst %p and src %p are both host memory: host-to-host copies cannot be "
                         "queued on a stream; use aclrtMemcpy",
                         dst, src);
    ret = check_extent(func, "dst", dst, count, &p.dst);
    if (ret == ACL_SUCCESS)
        ret = check_extent(func, "src", src, count, &p.src);
    if (ret != ACL_SUCCESS || dst == src)
        return ret;
    ret = backend()->memcpy_async(s->bs, dst, src, count, p.dir);
    if (ret != ACL_SUCCESS)
        return acl_raise(func, ret, "queueing a %zu-byte copy from %p to %p (%s) failed: %s",
                         count, src, dst, kind_name((int)kind), acl_error_text(ret));
    if (copy_must_finish(&p, (int)kind))
        return finish_stream(func, s, "copy through pageable or staged host memory");
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                     aclrtMemcpyKind kind, aclrtStream stream)
{
    return copy_async(__func__, dst, destMax, src, count, kind, stream);
}

/* Deprecated by CANN; the same copy. */
ACL_EXPORT aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src,
                                                  size_t count, aclrtMemcpyKind kind,
                                                  aclrtStream stream)
{
    return copy_async(__func__, dst, destMax, src, count, kind, stream);
}

/* ---- 2D copies ------------------------------------------------------------------ */

/* ACL's documented limits of a queued 2D copy. */
enum { COPY2D_ASYNC_MAX_WIDTH = 5000000, COPY2D_ASYNC_MAX_HEIGHT = 5242880 };

/* Bytes a 2D region spans: (height - 1) full pitches and one last row. */
static bool region_extent(size_t pitch, size_t width, size_t height, size_t *extent)
{
    size_t rows;
    return !__builtin_mul_overflow(pitch, height - 1, &rows) &&
           !__builtin_add_overflow(rows, width, extent);
}

/* Argument checks of a 2D copy, in ACL's order; *nothing_to_do for the
 * documented no-op. Kinds: H2D, D2H, D2D, DEFAULT and H2H; the caller
 * rejects H2H where it cannot be done. */
static aclError copy2d_args(const char *func, const void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                            bool queued, bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (dst == NULL || src == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_DEFAULT)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "kind %d is not a 2D copy kind (0..4: host/device directions or "
                         "ACL_MEMCPY_DEFAULT)",
                         (int)kind);
    if (width == 0 || height == 0) {
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    if (width > dpitch || width > spitch)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "width %zu exceeds %s %zu: rows would overlap", width,
                         width > dpitch ? "dpitch" : "spitch", width > dpitch ? dpitch : spitch);
    if (queued && (width > COPY2D_ASYNC_MAX_WIDTH || height > COPY2D_ASYNC_MAX_HEIGHT))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "a %zu x %zu copy exceeds the limits of a queued 2D copy (width <= %d, "
                         "height <= %d)",
                         width, height, COPY2D_ASYNC_MAX_WIDTH, COPY2D_ASYNC_MAX_HEIGHT);
    return ACL_SUCCESS;
}

/* Resolves where both regions live and checks that each stays inside its
 * allocation. */
static aclError copy2d_plan(const char *func, void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                            copy_plan *p)
{
    size_t dst_extent, src_extent;
    if (!region_extent(dpitch, width, height, &dst_extent) ||
        !region_extent(spitch, width, height, &src_extent))
        return acl_raise(func, ACL_ERROR_INVALID_PARAM,
                         "a %zu x %zu copy with pitches %zu/%zu spans more than the address "
                         "space",
                         width, height, dpitch, spitch);
    aclError ret = plan_copy(func, dst, src, (int)kind, p);
    if (ret == ACL_SUCCESS)
        ret = check_extent(func, "dst", dst, dst_extent, &p->dst);
    if (ret == ACL_SUCCESS)
        ret = check_extent(func, "src", src, src_extent, &p->src);
    return ret;
}

ACL_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, aclrtMemcpyKind kind)
{
    bool nothing_to_do;
    aclError ret = copy2d_args(__func__, dst, dpitch, src, spitch, width, height, kind, false,
                               &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = context_require(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    copy_plan p;
    ret = copy2d_plan(__func__, dst, dpitch, src, spitch, width, height, kind, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = backend()->memcpy2d_sync(copy_device(&p, ctx), dst, dpitch, src, spitch, width, height,
                                   p.dir, p.src.kind == MEM_HOST_PINNED);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "2D copy of %zu x %zu bytes from %p to %p (%s) failed: %s", width,
                         height, src, dst, kind_name((int)kind), acl_error_text(ret));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, aclrtMemcpyKind kind,
                                       aclrtStream stream)
{
    bool nothing_to_do;
    aclError ret = copy2d_args(__func__, dst, dpitch, src, spitch, width, height, kind, true,
                               &nothing_to_do);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = stream_resolve(__func__, stream, &s);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    if (kind == ACL_MEMCPY_HOST_TO_HOST)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "host-to-host copies cannot be queued on a stream; use aclrtMemcpy2d");
    copy_plan p;
    ret = copy2d_plan(__func__, dst, dpitch, src, spitch, width, height, kind, &p);
    if (ret != ACL_SUCCESS)
        return ret;
    if (p.dir == COPY_HOST_TO_HOST)
        return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "dst %p and src %p are both host memory: host-to-host copies cannot be "
                         "queued on a stream; use aclrtMemcpy2d",
                         dst, src);
    ret = backend()->memcpy2d_async(s->bs, dst, dpitch, src, spitch, width, height, p.dir);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "queueing a 2D copy of %zu x %zu bytes from %p to %p (%s) failed: %s",
                         width, height, src, dst, kind_name((int)kind), acl_error_text(ret));
    if (copy_must_finish(&p, (int)kind))
        return finish_stream(__func__, s, "2D copy through pageable host memory");
    return ACL_SUCCESS;
}

/* ---- fills ---------------------------------------------------------------------- */

/* Argument checks of aclrtMemset(Async); *nothing_to_do for count 0. */
static aclError set_args(const char *func, const void *dev_ptr, size_t max_count, size_t count,
                         bool *nothing_to_do)
{
    *nothing_to_do = false;
    if (dev_ptr == NULL)
        return acl_raise(func, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (count == 0) {
        *nothing_to_do = true;
        return ACL_SUCCESS;
    }
    if (count > max_count)
        return acl_raise(func, ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds maxCount %zu", count,
                         max_count);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    bool nothing_to_do;
    aclError ret = set_args(__func__, devPtr, maxCount, count, &nothing_to_do);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    acl_context *ctx;
    ret = context_require(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    mem_block b;
    ret = locate_live(__func__, devPtr, count, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    bool on_device = b.kind == MEM_DEVICE;
    ret = backend()->memset_sync(on_device ? b.phys : ctx->phys, devPtr, (uint8_t)value, count,
                                 on_device);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "setting %zu bytes at %p (%s) failed: %s", count, devPtr, where(&b),
                         acl_error_text(ret));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                     aclrtStream stream)
{
    bool nothing_to_do;
    aclError ret = set_args(__func__, devPtr, maxCount, count, &nothing_to_do);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_stream *s;
    ret = stream_resolve(__func__, stream, &s);
    if (ret != ACL_SUCCESS || nothing_to_do)
        return ret;
    mem_block b;
    ret = locate_live(__func__, devPtr, count, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = backend()->memset_async(s->bs, devPtr, (uint8_t)value, count, b.kind == MEM_DEVICE);
    if (ret != ACL_SUCCESS)
        return ACL_RAISE(ret, "queueing a %zu-byte fill at %p (%s) failed: %s", count, devPtr,
                         where(&b), acl_error_text(ret));
    return ACL_SUCCESS;
}
