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
#include "util/rangetree.h"

/* ---- the registry ------------------------------------------------------------ */

/* A red-black tree of non-overlapping blocks (util/rangetree.h): the
 * allocation containing a byte is found in O(log n). Each entry is one
 * allocation, its tree node inside, and the tree compares in line: an
 * allocation and its free, which every stream-ordered pool allocation
 * makes, cost no callbacks and at most one malloc and free (glibc's tsearch
 * allocates a node of its own and calls a comparison for every step). One
 * mutex guards it: a read-write lock cannot be handed to a forked child
 * (it remembers its writer's thread id), and lookups rarely reach the
 * tree (below). */
typedef struct registry_entry {
    range_node node; /* the block's base and size */
    mem_block block;
    struct registry_entry *next_spare; /* while in spare_entries */
} registry_entry;

static range_tree alloc_tree;
static pthread_mutex_t alloc_tree_lock = PTHREAD_MUTEX_INITIALIZER;

/* Entries of blocks gone, kept for the next blocks under the tree's lock:
 * a stream-ordered pool allocation and its free then cost no malloc and
 * free of an entry (about 25 ns of the pair in an ablation on an H100's
 * host). The count changes under the lock only; read without it, it tells
 * an addition that finds none spare to allocate before taking the lock. */
enum { SPARE_ENTRIES_MOST = 64 };
static registry_entry *spare_entries;
static atomic_uint spare_count;

static mem_block *block_of(range_node *n)
{
    return &range_entry(n, registry_entry, node)->block;
}

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

/* Called with the lock held, after the change. Only holders of the lock
 * write the generation, so a load and a store do: no read-modify-write. */
static void tree_changed(void)
{
    uint_fast64_t next = atomic_load_explicit(&alloc_tree_generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&alloc_tree_generation, next, memory_order_release);
}

/* Bytes recorded per device (slot HOST_SLOT for host memory) and origin,
 * now and at their peak, for aclrtGetMemUsageInfo. Guarded by the tree's
 * lock. */
enum { USAGE_DEVICES = 64, HOST_SLOT = USAGE_DEVICES };
static uint64_t usage_now[USAGE_DEVICES + 1][ORIGIN_COUNT];
static uint64_t usage_peak[USAGE_DEVICES + 1][ORIGIN_COUNT];

static int usage_slot(const mem_block *b)
{
    return b->phys >= 0 && b->phys < USAGE_DEVICES ? b->phys : HOST_SLOT;
}

/* Records a block. Fails only when the bookkeeping itself cannot be
 * allocated, or when the range is empty or overlaps one we still hold. */
static aclError registry_add(const mem_block *in)
{
    if (in->size == 0)
        return ACL_ERROR_INVALID_PARAM;
    registry_entry *e = NULL;
    if (atomic_load_explicit(&spare_count, memory_order_relaxed) == 0 &&
        (e = malloc(sizeof *e)) == NULL)
        return ACL_ERROR_BAD_ALLOC;
    pthread_mutex_lock(&alloc_tree_lock);
    if (e == NULL && (e = spare_entries) != NULL) {
        spare_entries = e->next_spare;
        atomic_store_explicit(&spare_count,
                              atomic_load_explicit(&spare_count, memory_order_relaxed) - 1,
                              memory_order_relaxed);
    }
    /* None left: another addition took the last since the count was read. */
    if (e == NULL && (e = malloc(sizeof *e)) == NULL) {
        pthread_mutex_unlock(&alloc_tree_lock);
        return ACL_ERROR_BAD_ALLOC;
    }
    e->node.base = in->base;
    e->node.size = in->size;
    e->block = *in;
    const mem_block *b = &e->block;
    bool inserted = range_tree_insert(&alloc_tree, &e->node) == NULL;
    if (inserted) {
        int slot = usage_slot(b);
        usage_now[slot][b->origin] += b->size;
        if (usage_now[slot][b->origin] > usage_peak[slot][b->origin])
            usage_peak[slot][b->origin] = usage_now[slot][b->origin];
        tree_changed();
    }
    pthread_mutex_unlock(&alloc_tree_lock);
    if (!inserted) {
        free(e);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

/* registry_find past its thread's cache: the tree, under the lock. */
static __attribute__((noinline)) bool registry_find_locked(const void *ptr, mem_block *out,
                                                           lookup_cache *cache,
                                                           uint_fast64_t generation)
{
    if (cache->generation != generation)
        *cache = (lookup_cache){.generation = generation};
    bool found = false;
    pthread_mutex_lock(&alloc_tree_lock);
    range_node *node = range_tree_find(&alloc_tree, (uintptr_t)ptr);
    if (node != NULL) {
        *out = *block_of(node);
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

/* Copies the block containing ptr into *out; false when ptr lies in no
 * ACL allocation (pageable host memory, or nothing at all). The thread's
 * cache first; only a miss takes the lock (a separate function, so that a
 * hit costs no stack frame). */
bool registry_find(const void *ptr, mem_block *out)
{
    lookup_cache *cache = &tls_lookups;
    __asm__("" : "+r"(cache)); /* keeps the address: no second TLS descriptor call */
    uint_fast64_t generation = atomic_load_explicit(&alloc_tree_generation, memory_order_acquire);
    const mem_block *b = cache->blocks,
                    *end = b + (cache->generation == generation ? cache->count : 0);
    for (; b < end; b++) {
        if ((uintptr_t)ptr - b->base < b->size) {
            *out = *b;
            return true;
        }
    }
    return registry_find_locked(ptr, out, cache, generation);
}

/* Unregisters the block starting exactly at ptr if its origin is in the
 * `origins` mask, copying it to *out. On failure nothing changes and *out
 * says what ptr is instead (kind MEM_UNKNOWN when it is in no block).
 * Lookup and removal happen under one lock so two concurrent frees cannot
 * both win. */
static bool registry_take(const void *ptr, unsigned origins, mem_block *out)
{
    registry_entry *taken = NULL;
    pthread_mutex_lock(&alloc_tree_lock);
    range_node *node = range_tree_find(&alloc_tree, (uintptr_t)ptr);
    if (node == NULL) {
        *out = (mem_block){.base = (uintptr_t)ptr, .kind = MEM_UNKNOWN, .phys = -1};
    } else {
        *out = *block_of(node);
        if (out->base == (uintptr_t)ptr && (origins & ORIGIN_BIT(out->origin))) {
            range_tree_remove(&alloc_tree, node);
            usage_now[usage_slot(out)][out->origin] -= out->size;
            tree_changed();
            taken = range_entry(node, registry_entry, node);
        }
    }
    unsigned spares = atomic_load_explicit(&spare_count, memory_order_relaxed);
    bool spared = taken != NULL && spares < SPARE_ENTRIES_MOST;
    if (spared) {
        taken->next_spare = spare_entries;
        spare_entries = taken;
        atomic_store_explicit(&spare_count, spares + 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&alloc_tree_lock);
    if (!spared)
        free(taken);
    return taken != NULL;
}

aclError memory_register(const mem_block *b)
{
    return registry_add(b);
}

bool memory_unregister(const void *ptr, mem_origin origin, mem_block *out)
{
    return registry_take(ptr, ORIGIN_BIT(origin), out);
}

bool memory_set_flags(const void *ptr, mem_origin origin, uint32_t flags)
{
    bool done = false;
    pthread_mutex_lock(&alloc_tree_lock);
    range_node *node = range_tree_find(&alloc_tree, (uintptr_t)ptr);
    if (node != NULL) {
        mem_block *b = block_of(node);
        if (b->base == (uintptr_t)ptr && b->origin == origin) {
            b->flags = flags;
            done = true;
            tree_changed();
        }
    }
    pthread_mutex_unlock(&alloc_tree_lock);
    return done;
}

aclError memory_check_access_slow(const char *api, const char *role, const void *ptr,
                                  const mem_block *b, bool write)
{
    if (b->flags & MEM_FLAG_NO_ACCESS)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p lies in a mapping at %p that its device has no access to (mapped "
                         "with aclrtMemMapNoAccess, or access removed with aclrtMemSetAccess)",
                         role, ptr, (void *)b->base);
    if (write && (b->flags & MEM_FLAG_READ_ONLY) && b->origin == ORIGIN_REGISTERED)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p lies in host memory at %p registered read-only (with "
                         "ACL_HOST_REG_READONLY or ACL_HOST_REGISTER_READONLY)",
                         role, ptr, (void *)b->base);
    if (write && (b->flags & MEM_FLAG_READ_ONLY))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p lies in a mapping at %p that its device may only read "
                         "(aclrtMemSetAccess gave ACL_RT_MEM_ACCESS_FLAGS_READ)",
                         role, ptr, (void *)b->base);
    return ACL_SUCCESS;
}

bool memory_overlaps(const void *ptr, size_t size, mem_block *hit)
{
    if (size == 0)
        return false;
    bool found = false;
    pthread_mutex_lock(&alloc_tree_lock);
    range_node *node = range_tree_overlap(&alloc_tree, (uintptr_t)ptr, size);
    if (node != NULL) {
        *hit = *block_of(node);
        found = true;
    }
    pthread_mutex_unlock(&alloc_tree_lock);
    return found;
}

size_t memory_usage(int32_t phys, memory_usage_entry *out, size_t most)
{
    size_t n = 0;
    int slot = phys >= 0 && phys < USAGE_DEVICES ? phys : HOST_SLOT;
    pthread_mutex_lock(&alloc_tree_lock);
    for (int o = ORIGIN_NONE + 1; o < ORIGIN_COUNT && n < most; o++) {
        if (usage_peak[slot][o] == 0)
            continue;
        out[n++] = (memory_usage_entry){(mem_origin)o, usage_now[slot][o], usage_peak[slot][o]};
    }
    pthread_mutex_unlock(&alloc_tree_lock);
    return n;
}

const char *memory_origin_maker(mem_origin origin)
{
    switch (origin) {
    case ORIGIN_MALLOC:
        return "aclrtMalloc";
    case ORIGIN_TASK_SCHEDULER:
        return "aclrtMallocForTaskScheduler";
    case ORIGIN_MANAGED:
        return "aclrtMemAllocManaged";
    case ORIGIN_DVPP:
        return "acldvppMalloc";
    case ORIGIN_MALLOC_HOST:
        return "aclrtMallocHost";
    case ORIGIN_MAPPED:
        return "aclrtMapMem";
    case ORIGIN_IPC:
        return "aclrtIpcMemImportByKey";
    case ORIGIN_POOL:
        return "aclrtMemPoolMallocAsync";
    case ORIGIN_REGISTERED:
        return "aclrtHostRegister";
    case ORIGIN_MBUF:
        return "aclrtAllocBuf";
    case ORIGIN_BORROWED:
        return "aclrtBinaryLoad";
    default:
        return "nothing";
    }
}

const char *memory_origin_release(mem_origin origin)
{
    switch (origin) {
    case ORIGIN_MALLOC:
    case ORIGIN_TASK_SCHEDULER:
    case ORIGIN_MANAGED:
        return "aclrtFree";
    case ORIGIN_DVPP:
        return "acldvppFree";
    case ORIGIN_MALLOC_HOST:
        return "aclrtFreeHost";
    case ORIGIN_MAPPED:
        return "aclrtUnmapMem";
    case ORIGIN_IPC:
        return "aclrtIpcMemClose";
    case ORIGIN_POOL:
        return "aclrtMemPoolFreeAsync";
    case ORIGIN_REGISTERED:
        return "aclrtHostUnregister";
    case ORIGIN_MBUF:
        return "aclrtFreeBuf";
    case ORIGIN_BORROWED:
        return "aclrtBinaryUnLoad";
    default:
        return "nothing";
    }
}

/* Where a pointer lives, for error messages. */
const char *memory_where(const mem_block *b)
{
    if (b->foreign)
        return b->kind == MEM_DEVICE ? "device memory of another allocator"
                                     : "page-locked host memory of another allocator";
    switch (b->origin) {
    case ORIGIN_MALLOC:
        return "device memory";
    case ORIGIN_TASK_SCHEDULER:
        return "device memory from aclrtMallocForTaskScheduler";
    case ORIGIN_MANAGED:
        return "managed memory from aclrtMemAllocManaged";
    case ORIGIN_DVPP:
        return "DVPP memory from acldvppMalloc";
    case ORIGIN_MALLOC_HOST:
        return "page-locked host memory from aclrtMallocHost";
    case ORIGIN_MAPPED:
        return b->kind == MEM_DEVICE ? "virtual memory mapped with aclrtMapMem"
                                     : "host memory mapped with aclrtMapMem";
    case ORIGIN_IPC:
        return "device memory imported with aclrtIpcMemImportByKey";
    case ORIGIN_POOL:
        return "device memory from a memory pool";
    case ORIGIN_REGISTERED:
        return "host memory registered with aclrtHostRegister";
    case ORIGIN_MBUF:
        return "the data of a shared buffer from aclrtAllocBuf";
    case ORIGIN_BORROWED:
        return "device memory of a loaded binary (a global variable or its image)";
    default:
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

/* A pointer the registry does not hold: the backend's, or MEM_UNKNOWN. */
void memory_locate_other(const void *ptr, mem_block *b)
{
    if (!foreign_find(ptr, b))
        *b = (mem_block){.base = (uintptr_t)ptr, .kind = MEM_UNKNOWN, .phys = -1};
}

/* Bytes of the `extent` from ptr (offset bytes into b, past its end)
 * that b and the blocks of its span touching it cover, at most extent:
 * mappings side by side in one reservation are one range. */
static size_t span_covered(const mem_block *b, size_t offset, size_t extent)
{
    mem_block next = *b;
    size_t covered = b->size - offset;
    while (next.span != NULL && covered < extent) {
        mem_block after;
        uintptr_t end = next.base + next.size;
        if (end == 0 || !registry_find((const void *)end, &after) || after.base != end ||
            after.span != next.span)
            break;
        covered += after.size < extent - covered ? after.size : extent - covered;
        next = after;
    }
    return covered;
}

bool memory_extent_fits(const void *ptr, size_t extent, const mem_block *b)
{
    if (b->kind == MEM_UNKNOWN)
        return true;
    size_t offset = (uintptr_t)ptr - b->base;
    if (extent <= b->size - offset)
        return !b->foreign || foreign_end_mapped(b, ptr, extent);
    return span_covered(b, offset, extent) >= extent;
}

/* The `extent` bytes from ptr must stay inside ptr's allocation (or the
 * run of touching blocks of its span). Memory nobody allocated cannot be
 * checked and passes. */
aclError memory_check_extent_slow(const char *api, const char *role, const void *ptr, size_t extent,
                                  const mem_block *b)
{
    if (b->kind == MEM_UNKNOWN)
        return ACL_SUCCESS;
    size_t offset = (uintptr_t)ptr - b->base;
    if (extent <= b->size - offset) {
        if (b->foreign && !foreign_end_mapped(b, ptr, extent))
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "%s %p: %zu bytes run past the mapped part of the %zu-byte range at "
                             "%p (%s)",
                             role, ptr, extent, b->size, (void *)b->base, memory_where(b));
        return ACL_SUCCESS;
    }
    size_t covered = span_covered(b, offset, extent);
    if (covered >= extent)
        return ACL_SUCCESS;
    if (b->span != NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p: %zu bytes from offset %zu reach past the mapped part of its "
                         "reserved range (%zu bytes mapped from %p on; the rest is not mapped)",
                         role, ptr, extent, offset, covered + offset, (void *)b->base);
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "%s %p: %zu bytes from offset %zu run past the end of its %zu-byte "
                     "allocation (%s)",
                     role, ptr, extent, offset, b->size, memory_where(b));
}

/* What memory_locate_usable's message adds: what else the backend would know. */
const char *memory_unknown_more(void)
{
    return backend()->memory->pointer_info
               ? ", nor device memory of another allocator of the process"
               : "";
}

/* Fills, cache maintenance and stream memory operations touch memory from
 * ACL's own allocators only (on Ascend anything else is undefined):
 * anything else, a freed pointer included, is refused rather than touched,
 * and so is memory its device may not access the way the caller would. */
aclError memory_locate_usable(const char *api, const char *role, const void *ptr, size_t extent,
                              bool write, mem_block *b)
{
    memory_locate(ptr, b);
    if (b->kind == MEM_UNKNOWN)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s " MEMORY_UNKNOWN, role, ptr,
                         memory_unknown_more());
    aclError ret = memory_check_access(api, role, ptr, b, write);
    return ret != ACL_SUCCESS ? ret : memory_check_extent(api, role, ptr, extent, b);
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
 * Where the backend's frees wait so (free_waits_for_device), memory freed
 * inside a callback is therefore parked instead: it leaves the registry at
 * once (for ACL it is freed), a later allocation of that kind of memory that
 * fits in it reuses it without calling the backend (pyACL's samples allocate
 * and free the same buffer in every callback; see obtain), and the backend
 * really frees it at the next free on a thread outside callbacks, when an
 * allocation fails outside callbacks, or when its device is reset or ACL is
 * finalized. A reused block is handed out without waiting for the device:
 * CANN's aclrtFree frees at once, neither synchronising nor waiting for the
 * tasks that use the memory (aclrtFreeWithDevSync is the one that waits),
 * so work still using memory that a callback freed is the caller's bug, as
 * on Ascend. A backend whose frees never wait (the host backend) gets every
 * free, and holds the memory back itself until the work queued before the
 * free has run. */
typedef struct parked_block {
    void *ptr;
    size_t size;
    int32_t phys; /* -1: page-locked host memory */
    struct parked_block *next;
} parked_block;

static parked_block *parked_head;
static pthread_mutex_t parked_lock = PTHREAD_MUTEX_INITIALIZER;
/* How many blocks are parked, changed under parked_lock: every allocation
 * and free looks, and while none is parked (always on a backend whose frees
 * never wait, nearly always on cuda) they take no lock for it. A block
 * parked just after the look is found by a later one. */
static atomic_size_t parked_count;

static bool none_parked(void)
{
    return atomic_load_explicit(&parked_count, memory_order_acquire) == 0;
}

/* True when the free was parked; false when it must happen now. */
static bool park_free(void *ptr, size_t size, int32_t phys)
{
    if (!backend()->memory->free_waits_for_device || !callback_running())
        return false;
    parked_block *p = malloc(sizeof *p);
    if (!p)
        return false;
    pthread_mutex_lock(&parked_lock);
    *p = (parked_block){ptr, size, phys, parked_head};
    parked_head = p;
    atomic_fetch_add_explicit(&parked_count, 1, memory_order_release);
    pthread_mutex_unlock(&parked_lock);
    return true;
}

/* Takes the smallest parked block of the given memory that holds `size`
 * bytes and no more than `most`; NULL when there is none. */
static void *unpark(size_t size, size_t most, int32_t phys, size_t *capacity)
{
    if (none_parked())
        return NULL;
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
        atomic_fetch_sub_explicit(&parked_count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&parked_lock);
    return ptr;
}

/* Hands parked blocks to the backend: those of device `phys` (-1: host
 * memory), or all of them when every_kind. Never inside a callback.
 * Returns how many went back. */
static size_t release_parked(int32_t phys, bool every_kind)
{
    if (none_parked() || callback_running())
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
            atomic_fetch_sub_explicit(&parked_count, 1, memory_order_relaxed);
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
    /* Whole share blocks are taken exactly: an export names the whole
     * allocation (device_alloc_size). */
    size_t block = backend()->memory->share_block;
    size_t roomy = block != 0 && size >= block ? size : size <= SIZE_MAX / 2 ? 2 * size : SIZE_MAX;
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

/* What is allocated for `padded` bytes of device memory: where another
 * process maps shared memory in whole blocks (backend.h: share_block), an
 * allocation of at least a block takes whole ones, so that it shares none
 * with another allocation; as CANN backs allocations of 2 MiB and more
 * with 2 MiB huge pages. */
static size_t device_alloc_size(size_t padded)
{
    size_t block = backend()->memory->share_block;
    if (block == 0 || padded < block || padded > SIZE_MAX - block)
        return padded;
    return (padded + block - 1) / block * block;
}

/* Allocates `size` bytes of device memory on `phys`, reserving `padded`
 * (ACL's rounded size, which callers may rely on) and registering them. */
aclError memory_alloc_device(const char *api, void **dev_ptr, size_t size, size_t padded,
                             uint32_t policy, int32_t phys, int32_t device, mem_origin origin)
{
    void *ptr;
    size_t capacity;
    aclError ret = obtain(phys, device_alloc_size(padded), &ptr, &capacity);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot allocate %zu bytes (%zu requested) on device %d: %s",
                         padded, size, device, acl_error_text(ret));
    ret = registry_add(&(mem_block){.base = (uintptr_t)ptr,
                                    .size = padded,
                                    .capacity = capacity,
                                    .kind = MEM_DEVICE,
                                    .origin = origin,
                                    .phys = phys,
                                    .device = device,
                                    .policy = policy});
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

/* The pointer names origins of `origins` mask, for messages. */
static const char *wanted_memory(unsigned origins)
{
    if (origins & ORIGIN_BIT(ORIGIN_MALLOC))
        return "device memory from aclrtMalloc";
    if (origins & ORIGIN_BIT(ORIGIN_DVPP))
        return "DVPP memory from acldvppMalloc";
    return "page-locked memory from aclrtMallocHost";
}

/* Frees a live allocation of one of the origins at exactly ptr; every other
 * pointer is refused before the backend sees it. */
aclError memory_free(const char *api, void *ptr, unsigned origins)
{
    bool host = (origins & ORIGIN_BIT(ORIGIN_MALLOC_HOST)) != 0;
    if (ptr == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", host ? "hostPtr" : "devPtr");
    mem_block b;
    if (!registry_take(ptr, origins, &b)) {
        if (b.kind != MEM_UNKNOWN && b.base == (uintptr_t)ptr)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is %s; release it with %s", ptr,
                             memory_where(&b), memory_origin_release(b.origin));
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
                         wanted_memory(origins));
    }
    lifecycle_notify(LIFECYCLE_MEMORY_FREED, &b); /* hostmem.c and managed.c forget it */
    if (b.origin == ORIGIN_MANAGED) {
        aclError ret = backend()->managed->free(b.phys, ptr);
        if (ret != ACL_SUCCESS)
            return acl_raise(api, ret, "the backend failed to free %p (%s): %s", ptr,
                             memory_where(&b), acl_error_text(ret));
        return ACL_SUCCESS;
    }
    int32_t phys = b.kind == MEM_DEVICE ? b.phys : -1;
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

aclError memory_alloc_managed(const char *api, void **ptr, size_t size, int32_t phys,
                              int32_t device)
{
    void *p;
    aclError ret = backend()->managed->alloc(phys, &p, size);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot allocate %zu bytes of managed memory: %s", size,
                         acl_error_text(ret));
    ret = registry_add(&(mem_block){.base = (uintptr_t)p,
                                    .size = size,
                                    .capacity = size,
                                    .kind = MEM_MANAGED,
                                    .origin = ORIGIN_MANAGED,
                                    .phys = phys,
                                    .device = device});
    if (ret != ACL_SUCCESS) {
        (void)backend()->managed->free(phys, p);
        return acl_raise(api, ret, "cannot record a %zu-byte managed allocation", size);
    }
    *ptr = p;
    return ACL_SUCCESS;
}

aclError memory_register_borrowed(void *ptr, size_t size, int32_t phys, int32_t device)
{
    if (!ptr || size == 0)
        return ACL_SUCCESS;
    mem_block b;
    if (registry_find(ptr, &b))
        return b.origin == ORIGIN_BORROWED && b.base == (uintptr_t)ptr
                   ? ACL_SUCCESS
                   : ACL_ERROR_RT_INTERNAL_ERROR;
    return registry_add(&(mem_block){.base = (uintptr_t)ptr,
                                     .size = size,
                                     .capacity = size,
                                     .kind = MEM_DEVICE,
                                     .origin = ORIGIN_BORROWED,
                                     .phys = phys,
                                     .device = device,
                                     .policy = MEM_POLICY_BORROWED});
}

void memory_unregister_borrowed(void *ptr)
{
    mem_block b;
    if (ptr)
        (void)registry_take(ptr, ORIGIN_BIT(ORIGIN_BORROWED), &b);
}

/* Allocates and registers page-locked memory; arguments already checked. */
aclError memory_alloc_host(const char *api, void **host_ptr, uint64_t size, mem_origin origin)
{
    void *ptr;
    size_t capacity;
    aclError ret = obtain(-1, (size_t)size, &ptr, &capacity);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot allocate %llu bytes of page-locked host memory: %s",
                         (unsigned long long)size, acl_error_text(ret));
    ret = registry_add(&(mem_block){.base = (uintptr_t)ptr,
                                    .size = (size_t)size,
                                    .capacity = capacity,
                                    .kind = MEM_HOST_PINNED,
                                    .origin = origin,
                                    .phys = -1});
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
