/* Shared by vmm.c and vmm_share.c: the physical handle object and the lock
 * that guards handles, reservations and mappings. */
#ifndef ACLCUDA_CORE_VMM_INTERNAL_H
#define ACLCUDA_CORE_VMM_INTERNAL_H

#include <pthread.h>

#include "backend/backend.h"
#include "core/handle.h"
#include "core/vmm.h"

typedef struct phys_mem {
    object obj;
    backend_phys *bp;
    phys_info info;
    bool imported;
    uint32_t link;   /* aclrtMemMapSetLink's advice, kept */
    int user_refs;   /* aclrtFreePhysical calls to go (0: freed by the user) */
    size_t mappings; /* live mappings of it */
    void *share;     /* its export (vmm_share.c), NULL when not exported */
} phys_mem;

extern pthread_mutex_t vmm_lock;

/* Publishes bp as a handle the user holds once. Raises. */
aclError vmm_phys_publish(const char *api, backend_phys *bp, const phys_info *info, bool imported,
                          aclrtDrvMemHandle *out);
/* Ends pm's export when it goes (vmm_share.c). */
void vmm_share_forget(phys_mem *pm);

#endif
