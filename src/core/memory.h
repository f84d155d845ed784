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

typedef enum mem_kind { MEM_UNKNOWN = 0, MEM_DEVICE, MEM_HOST_PINNED } mem_kind;

typedef struct mem_block {
    uintptr_t base;
    size_t size;     /* bytes allocated for the caller, padding included */
    size_t capacity; /* bytes the block holds: more than size when it was reused */
    mem_kind kind;
    int32_t phys;    /* backend device; -1 for host memory */
    int32_t device;  /* user-visible device id; 0 for host memory */
    uint32_t policy; /* aclrtMemMallocPolicy of device memory */
    /* Not ACL's: memory of another allocator of the process that the
     * backend knows (cuda: any CUDA allocation, torch's and CuPy's
     * included), found when the registry has no block for a pointer. It
     * takes part in copies and fills like ACL's own memory, and is never
     * freed through ACL. */
    bool foreign;
    bool foreign_whole; /* its range is one allocation, mapped throughout */
} mem_block;

/* Copies the block containing ptr into *out; false when ptr lies in no
 * ACL allocation (pageable host memory, or nothing at all). */
bool registry_find(const void *ptr, mem_block *out);
/* registry_find, then, for a pointer in no ACL allocation, what the
 * backend knows of it (a foreign block); anything else yields a MEM_UNKNOWN
 * block. */
void memory_locate(const void *ptr, mem_block *b);
/* Where a pointer lives, for error messages. */
const char *memory_where(const mem_block *b);
/* The `extent` bytes from ptr must stay inside ptr's allocation b (as
 * located; for a foreign block, the range the backend reports, whose part
 * at the extent's last byte must be mapped too); memory nobody allocated
 * cannot be checked and passes.
 * role names the argument ("dst"). Raises. */
aclError memory_check_extent(const char *api, const char *role, const void *ptr, size_t extent,
                             const mem_block *b);
/* For fills and cache maintenance, which touch ACL's own memory only:
 * anything else, a freed pointer included, is refused. Raises. */
aclError memory_locate_live(const char *api, const void *ptr, size_t extent, mem_block *b);
/* Whether a device allocation policy asks for huge pages. */
bool memory_policy_is_huge(uint32_t policy);

/* Allocates `size` bytes of device memory on phys, reserving `padded`
 * (ACL's rounded size, which callers may rely on) and registering them.
 * Raises. */
aclError memory_alloc_device(const char *api, void **dev_ptr, size_t size, size_t padded,
                             uint32_t policy, int32_t phys, int32_t device);
/* Allocates and registers page-locked host memory. Raises. */
aclError memory_alloc_host(const char *api, void **host_ptr, uint64_t size);
/* Frees a live allocation of the given kind at exactly ptr; every other
 * pointer is refused before the backend sees it. Raises. */
aclError memory_free(const char *api, void *ptr, mem_kind kind);

/* Device memory that ACL did not allocate but hands out (a loaded binary's
 * global variables and device image): registered so that copies see device
 * memory, with this policy, which aclrtFree refuses. Registering a block
 * again is not an error. Bare codes. */
#define MEM_POLICY_BORROWED UINT32_MAX
aclError memory_register_borrowed(void *ptr, size_t size, int32_t phys, int32_t device);
void memory_unregister_borrowed(void *ptr);

#endif
