/* Memory: the registry of every allocation made through ACL, and the
 * allocations themselves.
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
#include <pthread.h>
#include <search.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/callback.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/lifecycle.h"
#include "core/memory.h"
#include "util/fork.h"
#include "util/log.h"

/* ---- the registry ------------------------------------------------------------ */

/* A balanced search tree (glibc's tsearch is a red-black tree) of
 * non-overlapping blocks. Two blocks compare equal when their ranges
 * overlap, so looking up a one-byte block finds the allocation containing
 * that byte in O(log n). One mutex guards it: a read-write lock cannot be
 * handed to a forked child (it remembers its writer's thread id), and
 * lookups rarely reach the tree (below). */
static void *alloc_tree;
static pthread_mutex_t alloc_tree_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every copy and fill looks up one or two pointers, usually the same ones
 * as the thread's previous call; the lock alone costs two atomic
 * read-modify-writes. So each thread keeps its last hits, valid while the
 * tree's generation, bumped under the lock by every change, is the
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
    *b = (mem_block){.base = (uintptr_t)ptr,
                     .size = size,
                     .capacity = capacity,
                     .kind = kind,
                     .phys = phys,
                     .device = device,
                     .policy = policy};
    pthread_mutex_lock(&alloc_tree_lock);
    void *node = tsearch(b, &alloc_tree, block_compare);
    bool inserted = node != NULL && *(mem_block **)node == b;
    if (inserted)
        tree_changed();
    pthread_mutex_unlock(&alloc_tree_lock);
    if (!inserted) {
        free(b);
        return node == NULL ? ACL_ERROR_BAD_ALLOC : ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return ACL_SUCCESS;
}

/* Copies the block containing ptr into *out; false when ptr lies in no
 * ACL allocation (pageable host memory, or nothing at all). */
bool registry_find(const void *ptr, mem_block *out)
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
    pthread_mutex_lock(&alloc_tree_lock);
    void *node = tfind(&key, &alloc_tree, block_compare);
    if (node != NULL) {
        *out = **(mem_block **)node;
        found = true;
    }
    pthread_mutex_unlock(&alloc_tree_lock);
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
    pthread_mutex_lock(&alloc_tree_lock);
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
    pthread_mutex_unlock(&alloc_tree_lock);
    free(taken);
    return taken != NULL;
}

/* Where a pointer lives, for error messages. */
const char *memory_where(const mem_block *b)
{
    switch (b->kind) {
    case MEM_DEVICE:
        return b->foreign ? "device memory of another allocator" : "device memory";
    case MEM_HOST_PINNED:
        return b->foreign ? "page-locked host memory of another allocator"
                          : "page-locked host memory from aclrtMallocHost";
    case MEM_UNKNOWN:
        break;
    }
    return "host memory not allocated by ACL";
}

/* ---- memory of other allocators ------------------------------------------------ */

/* What the backend knows of a pointer the registry does not hold: memory of
 * another allocator of the process (on CUDA: torch's, CuPy's, cudaMalloc's,
 * pools, VMM mappings). Only asked after the registry missed, so ACL's own
 * memory never pays for it; not cached, as such memory comes and goes
 * behind our back. */
static bool foreign_find(const void *ptr, mem_block *b)
{
    void (*info)(const void *, foreign_memory *) = backend()->memory->pointer_info;
    foreign_memory m;
    if (info == NULL || ptr == NULL)
        return false;
    info(ptr, &m);
    if (m.kind == FOREIGN_NONE)
        return false;
    bool device = m.kind == FOREIGN_DEVICE;
    int32_t user = device ? device_from_phys(m.dev) : 0;
    *b = (mem_block){.base = m.base,
                     .size = m.size,
                     .capacity = m.size,
                     .kind = device ? MEM_DEVICE : MEM_HOST_PINNED,
                     .phys = device ? m.dev : -1,
                     .device = user,
                     .foreign = true,
                     .foreign_whole = m.whole};
    return true;
}

/* A foreign range may be a reservation only partly mapped (VMM, memory
 * pools): the last byte of an extent that stays inside it must be mapped
 * memory of the same range too. (A hole in between cannot be seen without
 * walking the range; allocators map their ranges from the start.) */
static bool foreign_end_mapped(const mem_block *b, const void *ptr, size_t extent)
{
    if (b->kind != MEM_DEVICE || b->foreign_whole || extent == 0)
        return true;
    mem_block last;
    return foreign_find((const char *)ptr + (extent - 1), &last) && last.kind == b->kind &&
           last.base == b->base && last.phys == b->phys;
}

/* Looks ptr up: ACL's registry first, then the backend. Anything else
 * yields a MEM_UNKNOWN block. */
void memory_locate(const void *ptr, mem_block *b)
{
    if (!registry_find(ptr, b) && !foreign_find(ptr, b))
        *b = (mem_block){.base = (uintptr_t)ptr, .kind = MEM_UNKNOWN, .phys = -1};
}

/* The `extent` bytes from ptr must stay inside ptr's allocation. Memory
 * nobody allocated cannot be checked and passes. */
aclError memory_check_extent(const char *api, const char *role, const void *ptr, size_t extent,
                             const mem_block *b)
{
    if (b->kind == MEM_UNKNOWN)
        return ACL_SUCCESS;
    size_t offset = (uintptr_t)ptr - b->base;
    if (extent > b->size - offset)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p: %zu bytes from offset %zu run past the end of its %zu-byte "
                         "allocation (%s)",
                         role, ptr, extent, offset, b->size, memory_where(b));
    if (b->foreign && !foreign_end_mapped(b, ptr, extent))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p: %zu bytes run past the mapped part of the %zu-byte range at %p "
                         "(%s)",
                         role, ptr, extent, b->size, (void *)b->base, memory_where(b));
    return ACL_SUCCESS;
}

/* Fills and cache maintenance touch memory from ACL's own allocators only
 * (on Ascend anything else is undefined): anything else, a freed pointer
 * included, is refused rather than written to. */
aclError memory_locate_live(const char *api, const void *ptr, size_t extent, mem_block *b)
{
    memory_locate(ptr, b);
    if (b->kind == MEM_UNKNOWN)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not live memory from aclrtMalloc or aclrtMallocHost (never "
                         "allocated by ACL, or already freed)%s",
                         ptr,
                         backend()->memory->pointer_info
                             ? ", nor device memory of another allocator of the process"
                             : "");
    return memory_check_extent(api, "devPtr", ptr, extent, b);
}

/* ---- device memory ------------------------------------------------------------ */

bool memory_policy_is_huge(uint32_t policy)
{
    switch (policy & 0x7u) {
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
        return false;
    default:
        return true;
    }
}

/* ---- frees made inside callbacks (see callback_running in callback.h) -------- */

/* The backend's allocation and free of device phys's memory, or of
 * page-locked host memory for phys -1. */
static aclError backend_alloc(int32_t phys, void **ptr, size_t size)
{
    return phys >= 0 ? backend()->memory->malloc_device(phys, ptr, size)
                     : backend()->memory->malloc_host(ptr, size);
}

static aclError backend_free(int32_t phys, void *ptr)
{
    return phys >= 0 ? backend()->memory->free_device(phys, ptr)
                     : backend()->memory->free_host(ptr);
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
            ACL_LOG(LOG_ERROR, "freeing %p (freed in a callback) failed: %s", p->ptr,
                    acl_error_text(ret));
        free(p);
        count++;
    }
    return count;
}

static void device_released(void *subject)
{
    int32_t phys = (int32_t)(intptr_t)subject;
    release_parked(phys, false);
    release_parked(-1, false);
}

static void all_released(void *subject)
{
    (void)subject;
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
aclError memory_alloc_device(const char *api, void **dev_ptr, size_t size, size_t padded,
                             uint32_t policy, int32_t phys, int32_t device)
{
    void *ptr;
    size_t capacity;
    aclError ret = obtain(phys, padded, &ptr, &capacity);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot allocate %zu bytes (%zu requested) on device %d: %s",
                         padded, size, device, acl_error_text(ret));
    ret = registry_add(ptr, padded, capacity, MEM_DEVICE, phys, device, policy);
    if (ret != ACL_SUCCESS) {
        if (!park_free(ptr, capacity, phys))
            backend_free(phys, ptr);
        return acl_raise(api, ret, "cannot record a %zu-byte allocation on device %d", padded,
                         device);
    }
    ACL_LOG(LOG_DEBUG, "%p: %zu bytes on device %d (policy 0x%x)", ptr, padded, device,
            (unsigned)policy);
    *dev_ptr = ptr;
    return ACL_SUCCESS;
}

/* ---- fork ---------------------------------------------------------------------- */

static void fork_prepare(void)
{
    pthread_mutex_lock(&alloc_tree_lock);
    pthread_mutex_lock(&parked_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&parked_lock);
    pthread_mutex_unlock(&alloc_tree_lock);
}

__attribute__((constructor)) static void memory_init(void)
{
    fork_register(FORK_RANK_MEMORY, fork_prepare, fork_done, fork_done);
    lifecycle_observe(LIFECYCLE_DEVICE_RELEASED, device_released);
    lifecycle_observe(LIFECYCLE_FINALIZED, all_released);
}

/* Frees a live allocation of the given kind at exactly ptr; every other
 * pointer is refused before the backend sees it. */
aclError memory_free(const char *api, void *ptr, mem_kind kind)
{
    bool device = kind == MEM_DEVICE;
    if (ptr == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", device ? "devPtr" : "hostPtr");
    mem_block b;
    if (device && registry_find(ptr, &b) && b.policy == MEM_POLICY_BORROWED &&
        b.base == (uintptr_t)ptr)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p belongs to a loaded binary (a global variable or its image): it goes "
                         "with aclrtBinaryUnLoad",
                         ptr);
    if (!registry_take(ptr, kind, &b)) {
        if (b.kind != MEM_UNKNOWN && b.kind != kind && b.base == (uintptr_t)ptr)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is %s; free it with %s", ptr,
                             device ? "page-locked host memory" : "device memory",
                             device ? "aclrtFreeHost" : "aclrtFree");
        if (b.kind != MEM_UNKNOWN)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "%p lies %zu bytes inside a %zu-byte allocation (%s) at %p; only "
                             "the address returned by the allocation can be freed",
                             ptr, (size_t)((uintptr_t)ptr - b.base), b.size, memory_where(&b),
                             (void *)b.base);
        if (foreign_find(ptr, &b))
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "%p is %s (at %p, %zu bytes), which ACL copies and fills but "
                             "never frees: free it through the allocator that made it",
                             ptr, memory_where(&b), (void *)b.base, b.size);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not live %s (never allocated by ACL or already freed)", ptr,
                         device ? "device memory from aclrtMalloc"
                                : "page-locked memory from aclrtMallocHost");
    }
    int32_t phys = device ? b.phys : -1;
    if (park_free(ptr, b.capacity, phys))
        return ACL_SUCCESS;
    (void)release_parked(-1, true);
    aclError ret = backend_free(phys, ptr);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "the backend failed to free %p (%s): %s", ptr, memory_where(&b),
                         acl_error_text(ret));
    ACL_LOG(LOG_DEBUG, "%p: freed (%zu bytes, %s)", ptr, b.size, memory_where(&b));
    return ACL_SUCCESS;
}

aclError memory_register_borrowed(void *ptr, size_t size, int32_t phys, int32_t device)
{
    if (!ptr || size == 0)
        return ACL_SUCCESS;
    mem_block b;
    if (registry_find(ptr, &b))
        return b.policy == MEM_POLICY_BORROWED && b.base == (uintptr_t)ptr
                   ? ACL_SUCCESS
                   : ACL_ERROR_RT_INTERNAL_ERROR;
    return registry_add(ptr, size, size, MEM_DEVICE, phys, device, MEM_POLICY_BORROWED);
}

void memory_unregister_borrowed(void *ptr)
{
    mem_block b;
    if (ptr && registry_find(ptr, &b) && b.policy == MEM_POLICY_BORROWED)
        (void)registry_take(ptr, MEM_DEVICE, &b);
}

/* Allocates and registers page-locked memory; arguments already checked. */
aclError memory_alloc_host(const char *api, void **host_ptr, uint64_t size)
{
    void *ptr;
    size_t capacity;
    aclError ret = obtain(-1, (size_t)size, &ptr, &capacity);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot allocate %llu bytes of page-locked host memory: %s",
                         (unsigned long long)size, acl_error_text(ret));
    ret = registry_add(ptr, (size_t)size, capacity, MEM_HOST_PINNED, -1, 0, 0);
    if (ret != ACL_SUCCESS) {
        if (!park_free(ptr, capacity, -1))
            backend_free(-1, ptr);
        return acl_raise(api, ret, "cannot record a %llu-byte host allocation",
                         (unsigned long long)size);
    }
    ACL_LOG(LOG_DEBUG, "%p: %llu bytes of page-locked host memory", ptr, (unsigned long long)size);
    *host_ptr = ptr;
    return ACL_SUCCESS;
}
