/* Registered host memory (aclrtHostRegister, aclrtHostRegisterV2): ranges
 * of the process's own memory made reachable by the device (mapped) and/or
 * page-locked (pinned). A registration of ordinary memory is recorded in
 * the allocation registry as page-locked host memory (ORIGIN_REGISTERED),
 * so copies treat it as such; a mapped registration of aclrtMallocHost
 * memory, already page-locked and reachable, only records the mapping. A
 * read-only registration (ACL_HOST_REG_READONLY) may cover read-only pages
 * and is never written by a copy or fill; any other needs pages the
 * process may read and write, as CUDA does.
 *
 * Codes: a range overlapping a registration (or, for pinning, memory that
 * is page-locked already) is ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED; an
 * unregister of anything but a registration's start is
 * ACL_ERROR_HOST_MEMORY_NOT_REGISTERED; device, managed or mapped memory,
 * a range straddling an allocation, a page that is not mapped, not
 * accessible or (unless read-only) not writable, and a pointer not 4 KiB
 * aligned are ACL_ERROR_RT_PARAM_INVALID. */
#ifndef ACLCUDA_CORE_HOSTMEM_H
#define ACLCUDA_CORE_HOSTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

enum { HOSTMEM_ALIGN = 4096 };

/* flags: ACL_HOST_REG_MAPPED, ACL_HOST_REG_PINNED, ACL_HOST_REG_READONLY
 * (the caller refused the rest); dev_ptr, when given, receives the device address of a
 * mapped registration. phys: the caller's backend device. Raises. */
aclError hostmem_register(const char *api, int32_t phys, void *ptr, uint64_t size, uint32_t flags,
                          void **dev_ptr);
aclError hostmem_unregister(const char *api, int32_t phys, void *ptr);
/* The device address of p, inside a mapped registration or page-locked
 * memory of ours. Raises. */
aclError hostmem_device_pointer(const char *api, int32_t phys, void *p, void **dev_ptr);
#endif
