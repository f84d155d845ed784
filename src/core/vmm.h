/* Virtual memory (aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem
 * and friends): reserved address ranges, physical memory behind
 * aclrtDrvMemHandle handles, and the mappings between them.
 *
 * A mapping is recorded in the allocation registry (origin ORIGIN_MAPPED,
 * span = its reservation) so that copies, fills and extent checks treat it
 * as device (or host) memory; unmapping removes it. A physical handle lives
 * while the user holds it (aclrtMallocPhysical, aclrtMemRetainAllocationHandle,
 * each undone by one aclrtFreePhysical) or a mapping uses it.
 *
 * Codes: a pointer or handle ACL does not know is ACL_ERROR_INVALID_PARAM
 * (as everywhere in the library); a relation the runtime checks (a size
 * that is not the handle's, a mapping over another, a release with
 * mappings left, a misaligned address) is ACL_ERROR_RT_PARAM_INVALID. All
 * functions raise. */
#ifndef ACLCUDA_CORE_VMM_H
#define ACLCUDA_CORE_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

aclError vmm_granularity(const char *api, const aclrtPhysicalMemProp *prop,
                         aclrtMemGranularityOptions option, size_t *granularity);
/* size: rounded up to the reservation granularity; no_uc:
 * aclrtReserveMemAddressNoUCMemory's rules (1 GiB multiples at expect). */
aclError vmm_reserve(const char *api, void **va, size_t size, size_t alignment, void *expect,
                     bool no_uc);
aclError vmm_release(const char *api, void *va);
aclError vmm_phys_create(const char *api, aclrtDrvMemHandle *out, size_t size,
                         const aclrtPhysicalMemProp *prop);
aclError vmm_phys_free(const char *api, aclrtDrvMemHandle handle);
/* accessible: aclrtMapMem (the memory's device may use it at once), else
 * aclrtMemMapNoAccess. */
aclError vmm_map(const char *api, void *va, size_t size, size_t offset, aclrtDrvMemHandle handle,
                 bool accessible);
aclError vmm_unmap(const char *api, void *va);
aclError vmm_set_access(const char *api, void *va, size_t size, const aclrtMemAccessDesc *desc,
                        size_t count);
aclError vmm_get_access(const char *api, void *va, const aclrtMemLocation *location,
                        uint64_t *flags);
aclError vmm_retain(const char *api, void *va, aclrtDrvMemHandle *out);
aclError vmm_properties(const char *api, aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop);
aclError vmm_set_link(const char *api, aclrtDrvMemHandle handle, aclrtMemLinkType link);
/* Maps dst (a reservation's start) to the physical memory behind the
 * mappings from src on, one mapping per physical handle. */
aclError vmm_map_alias(const char *api, void *dst, size_t size, void *src);
/* Gives device dst_phys access to [ptr, ptr + size) of ACL device memory
 * (aclrtMemP2PMap). */
aclError vmm_p2p_map(const char *api, void *ptr, size_t size, int32_t dst_phys, int32_t dst_device);
/* Whether ptr lies in a reserved range (aclrtCheckMemType). */
bool vmm_reserved(const void *ptr);

/* Sharing with other processes (share.h names). check_pids: only the
 * processes vmm_allow lists may import. The device of an import is the one
 * its mappings give access to. */
struct share_name;
aclError vmm_export(const char *api, aclrtDrvMemHandle handle, bool check_pids,
                    struct share_name *name);
aclError vmm_allow(const char *api, const struct share_name *name, const int32_t *pids,
                   size_t count);
aclError vmm_import(const char *api, const struct share_name *name, int32_t device,
                    aclrtDrvMemHandle *out);

/* Sharing (vmm.c's helpers use these): the physical handle's backend memory
 * and its description, borrowed under the module's lock by the callback. */
typedef struct phys_info {
    size_t size;
    bool host;
    int32_t phys, device;
    uint32_t attr, page;
} phys_info;

#endif
