/* Memory: every allocation made through ACL (device memory and page-locked
 * host memory) is recorded in a registry keyed by address range. The
 * registry is what tells a device pointer from a host one on every backend
 * (on the host backend both are plain process memory): it decides the
 * direction of ACL_MEMCPY_DEFAULT copies, catches kinds that contradict
 * where the pointers live and copies running past the end of an
 * allocation, and keeps foreign or stale pointers away from the backend's
 * free functions.
 *
 * Error codes for bad pointers: NULL and every pointer the registry rejects
 * (foreign, interior, already freed, or the wrong kind of memory for the
 * function) is a parameter error, ACL_ERROR_INVALID_PARAM; such a pointer
 * never reaches the backend. Failures of the backend itself are passed on
 * with the backend's code. */
#ifndef ACLCUDA_CORE_MEMORY_H
#define ACLCUDA_CORE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

#define ALIGN_UP(n, a) (((n) + ((a)-1)) / (a) * (a))

/* Where memory lives, which decides copy directions: device memory,
 * page-locked host memory, or managed memory that both sides reach. */
typedef enum mem_kind { MEM_UNKNOWN = 0, MEM_DEVICE, MEM_HOST_PINNED, MEM_MANAGED } mem_kind;

/* Which ACL function made a block, which decides the one function that
 * may release it (memory_origin_release names it). */
typedef enum mem_origin {
    ORIGIN_NONE = 0,
    ORIGIN_MALLOC,         /* aclrtMalloc and friends: aclrtFree */
    ORIGIN_TASK_SCHEDULER, /* aclrtMallocForTaskScheduler: aclrtFree */
    ORIGIN_MANAGED,        /* aclrtMemAllocManaged: aclrtFree */
    ORIGIN_DVPP,           /* acldvppMalloc: acldvppFree */
    ORIGIN_MALLOC_HOST,    /* aclrtMallocHost: aclrtFreeHost */
    ORIGIN_MAPPED,         /* aclrtMapMem, aclrtMemMapNoAccess: aclrtUnmapMem */
    ORIGIN_IPC,            /* aclrtIpcMemImportByKey: aclrtIpcMemClose */
    ORIGIN_POOL,           /* aclrtMemPoolMallocAsync: aclrtMemPoolFreeAsync */
    ORIGIN_REGISTERED,     /* aclrtHostRegister(V2): aclrtHostUnregister */
    ORIGIN_MBUF,           /* aclrtAllocBuf's data: aclrtFreeBuf */
    ORIGIN_BORROWED,       /* a loaded binary's globals and image: aclrtBinaryUnLoad */
    ORIGIN_COUNT
} mem_origin;

#define ORIGIN_BIT(o) (1u << (o))

typedef struct mem_block {
    uintptr_t base;
    size_t size;     /* bytes allocated for the caller, padding included */
    size_t capacity; /* bytes the block holds: more than size when it was reused */
    mem_kind kind;
    mem_origin origin;
    int32_t phys;    /* backend device; -1 for host memory */
    int32_t device;  /* user-visible device id; 0 for host memory */
    uint32_t policy; /* aclrtMemMallocPolicy of device memory */
    void *owner;     /* the object behind the block (a mapping, a pool, an import) */
    /* Blocks with the same non-NULL span that touch each other form one
     * range for extent checks (mappings side by side in one reservation). */
    const void *span;
    uint32_t flags; /* MEM_FLAG_* */
    /* Not ACL's: memory of another allocator of the process that the
     * backend knows (cuda: any CUDA allocation, torch's and CuPy's
     * included), found when the registry has no block for a pointer. It
     * takes part in copies and fills like ACL's own memory, and is never
     * freed through ACL. */
    bool foreign;
    bool foreign_whole; /* its range is one allocation, mapped throughout */
} mem_block;

/* A mapping made with aclrtMemMapNoAccess that no aclrtMemSetAccess opened
 * yet: recorded, but no copy or fill may touch it. */
#define MEM_FLAG_NO_ACCESS 0x1u
/* A mapping its device may only read, or host memory registered read-only. */
#define MEM_FLAG_READ_ONLY 0x2u

/* Copies the block containing ptr into *out; false when ptr lies in no
 * ACL allocation (pageable host memory, or nothing at all). */
bool registry_find(const void *ptr, mem_block *out);
/* What the backend knows of a pointer in no ACL allocation (a foreign
 * block); anything else yields a MEM_UNKNOWN block. */
void memory_locate_other(const void *ptr, mem_block *b);
/* registry_find, then memory_locate_other. Inline: every copy and fill
 * locates its pointers. */
static inline void memory_locate(const void *ptr, mem_block *b)
{
    if (!registry_find(ptr, b))
        memory_locate_other(ptr, b);
}
/* Where a pointer lives, for error messages. */
const char *memory_where(const mem_block *b);
/* The `extent` bytes from ptr must stay inside ptr's allocation b (as
 * located; for a foreign block, the range the backend reports, whose part
 * at the extent's last byte must be mapped too); memory nobody allocated
 * cannot be checked and passes.
 * role names the argument ("dst"). Raises. Inline for the common case,
 * ACL's own memory with the extent inside its block. */
aclError memory_check_extent_slow(const char *api, const char *role, const void *ptr, size_t extent,
                                  const mem_block *b);
static inline aclError memory_check_extent(const char *api, const char *role, const void *ptr,
                                           size_t extent, const mem_block *b)
{
    if (b->kind == MEM_UNKNOWN || (!b->foreign && extent <= b->size - ((uintptr_t)ptr - b->base)))
        return ACL_SUCCESS;
    return memory_check_extent_slow(api, role, ptr, extent, b);
}
/* memory_check_extent's test without a message: whether the extent stays
 * inside b (memory nobody allocated passes). */
bool memory_extent_fits(const void *ptr, size_t extent, const mem_block *b);
/* The message for memory no allocator knows (its arguments: the pointer,
 * then memory_unknown_more()). */
#define MEMORY_UNKNOWN                                                                             \
    "%p is not live memory from aclrtMalloc, aclrtMallocHost or another ACL allocator (never "     \
    "allocated by ACL, or already freed)%s"
/* MEMORY_UNKNOWN's second argument: what else the backend would know. */
const char *memory_unknown_more(void);
/* For fills, cache maintenance and stream memory operations, which touch
 * ACL's own memory only: anything else, a freed pointer included, is
 * refused, and so is memory its device may not access as the caller will
 * (write: write it, else read it only; memory_check_access). role names
 * the argument ("devAddr"). Raises. */
aclError memory_locate_usable(const char *api, const char *role, const void *ptr, size_t extent,
                              bool write, mem_block *b);
/* memory_locate_usable of a destination the caller writes ("devPtr"). */
static inline aclError memory_locate_live(const char *api, const void *ptr, size_t extent,
                                          mem_block *b)
{
    return memory_locate_usable(api, "devPtr", ptr, extent, true, b);
}
/* Whether a device allocation policy asks for huge pages. */
bool memory_policy_is_huge(uint32_t policy);

/* Allocates `size` bytes of device memory on phys, reserving `padded`
 * (ACL's rounded size, which callers may rely on) and registering them.
 * Raises. */
aclError memory_alloc_device(const char *api, void **dev_ptr, size_t size, size_t padded,
                             uint32_t policy, int32_t phys, int32_t device, mem_origin origin);
/* Allocates and registers `size` bytes of managed memory. Raises. */
aclError memory_alloc_managed(const char *api, void **ptr, size_t size, int32_t phys,
                              int32_t device);
/* Allocates and registers page-locked host memory made by origin
 * (ORIGIN_MALLOC_HOST, or ORIGIN_MBUF for mbuf data). Raises. */
aclError memory_alloc_host(const char *api, void **host_ptr, uint64_t size, mem_origin origin);
/* Frees a live allocation at exactly ptr made by one of the origins in
 * `origins` (ORIGIN_BIT mask of ORIGIN_MALLOC, ORIGIN_TASK_SCHEDULER,
 * ORIGIN_MANAGED, ORIGIN_DVPP, ORIGIN_MALLOC_HOST); every other pointer is
 * refused before the backend sees it, with a message naming the function
 * that releases it. Raises. */
aclError memory_free(const char *api, void *ptr, unsigned origins);

/* Records memory that another module made (a mapping, an import, a pool
 * block, a registered host range). Bare codes: ACL_ERROR_BAD_ALLOC, or
 * ACL_ERROR_INVALID_PARAM when the range is empty or overlaps a recorded
 * one. */
aclError memory_register(const mem_block *b);
/* Takes the block starting exactly at ptr if it has the given origin,
 * copying it to *out; otherwise changes nothing and *out says what ptr is
 * (kind MEM_UNKNOWN: nothing). */
bool memory_unregister(const void *ptr, mem_origin origin, mem_block *out);
/* Replaces the flags of the block starting exactly at ptr with the given
 * origin; false when there is none. */
bool memory_set_flags(const void *ptr, mem_origin origin, uint32_t flags);
/* Refuses (raising) a block no copy or fill may touch (write: one it may
 * not write either). Inline for the common case, a block without flags. */
aclError memory_check_access_slow(const char *api, const char *role, const void *ptr,
                                  const mem_block *b, bool write);
static inline aclError memory_check_access(const char *api, const char *role, const void *ptr,
                                           const mem_block *b, bool write)
{
    if (__builtin_expect(!(b->flags & (MEM_FLAG_NO_ACCESS | MEM_FLAG_READ_ONLY)), 1))
        return ACL_SUCCESS;
    return memory_check_access_slow(api, role, ptr, b, write);
}
/* Whether any recorded block overlaps [ptr, ptr + size). */
bool memory_overlaps(const void *ptr, size_t size, mem_block *hit);
/* Bytes recorded on a backend device (-1: host memory) per origin, now and
 * at their peak since the process started; fills at most `most` entries
 * and returns how many. */
typedef struct memory_usage_entry {
    mem_origin origin;
    uint64_t current, peak;
} memory_usage_entry;
size_t memory_usage(int32_t phys, memory_usage_entry *out, size_t most);
/* The function that made blocks of an origin, and the one that releases
 * them (for messages). */
const char *memory_origin_maker(mem_origin origin);
const char *memory_origin_release(mem_origin origin);

/* Device memory that ACL did not allocate but hands out (a loaded binary's
 * global variables and device image): registered so that copies see device
 * memory, with this policy, which aclrtFree refuses. Registering a block
 * again is not an error. Bare codes. */
#define MEM_POLICY_BORROWED UINT32_MAX
aclError memory_register_borrowed(void *ptr, size_t size, int32_t phys, int32_t device);
void memory_unregister_borrowed(void *ptr);

#endif
