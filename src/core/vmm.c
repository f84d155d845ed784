/* Virtual memory: reservations, physical handles and mappings (see
 * vmm.h). One mutex (vmm_lock) guards all three; it is taken before the
 * allocation registry's and the deferred releases' (deferred.h): an unmap
 * while streams have work queued leaves the registry at once and reaches
 * the backend once that work completed, holding its physical memory until
 * then; a reservation released meanwhile is released after it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/deferred.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/share.h"
#include "core/vmm.h"
#include "core/vmm_internal.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/rangetree.h"

#define GIB ((size_t)1 << 30)
#define HUGE_PAGE ((size_t)2 << 20)
/* How long a reservation at a given address waits for the release of an
 * earlier one there, behind queued work, before the address counts as in
 * use (CANN fails a reservation at an occupied address). */
enum { RESERVE_WAIT_MS = 2000 };

pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reservations ---------------------------------------------------------- */

typedef struct reservation {
    range_node node;     /* its addresses, in reservations */
    int32_t mapped_phys; /* device of its physical memory, -2 while nothing was mapped */
    int imported;        /* -1 while nothing was mapped, else whether imported memory was */
    size_t mappings;
} reservation;

static range_tree reservations; /* under vmm_lock */

/* The reservation containing ptr, or NULL. Under vmm_lock. */
static reservation *reservation_at(const void *ptr)
{
    range_node *n = range_tree_find(&reservations, (uintptr_t)ptr);
    return n ? range_entry(n, reservation, node) : NULL;
}

bool vmm_reserved(const void *ptr)
{
    pthread_mutex_lock(&vmm_lock);
    bool found = reservation_at(ptr) != NULL;
    pthread_mutex_unlock(&vmm_lock);
    return found;
}

/* ---- physical handles ---------------------------------------------------------- */

static void phys_free(object *o)
{
    phys_mem *pm = (phys_mem *)o;
    vmm_share_forget(pm);
    backend()->vmm->destroy(pm->bp);
    free(pm);
}

/* The live handle, borrowed (phys_put); under vmm_lock. Raises. */
static aclError phys_get(const char *api, aclrtDrvMemHandle handle, phys_mem **out)
{
    if (handle == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "handle is NULL");
    phys_mem *pm = (phys_mem *)handle_get(handle, HANDLE_PHYS_MEM);
    if (pm == NULL || pm->user_refs == 0) {
        /* Freed but still mapped, the handle lives on as a physical one. */
        bool other_kind = pm == NULL && handle_kind_of(handle) != HANDLE_NONE;
        if (pm)
            object_put(&pm->obj);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not a live physical memory handle (never made by "
                         "aclrtMallocPhysical or an import, or already freed)%s",
                         handle, other_kind ? " (it is another kind of handle)" : "");
    }
    *out = pm;
    return ACL_SUCCESS;
}

static void phys_put(phys_mem *pm)
{
    object_put(&pm->obj);
}

/* Withdraws the handle once neither the user nor a mapping holds it.
 * Under vmm_lock, pm borrowed. */
static void phys_maybe_withdraw(phys_mem *pm)
{
    if (pm->user_refs == 0 && pm->mappings == 0 && object_take(&pm->obj))
        ACL_LOG(LOG_DEBUG, "physical memory %p: freed", handle_of(&pm->obj));
}

/* ACL's memory attributes: the page type each asks for, and whether it is
 * host-only (DDR). Others are refused, as in CANN. */
static bool attr_page(uint32_t attr, uint32_t *page, bool *host_only)
{
    *host_only = false;
    switch (attr) {
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_P2P_HUGE:
        *host_only = true;
        *page = HUGE_PAGE_TYPE;
        return true;
    case ACL_DDR_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_NORMAL:
        *host_only = true;
        *page = NORMAL_PAGE_TYPE;
        return true;
    case ACL_HBM_MEM_HUGE:
    case ACL_MEM_HUGE:
    case ACL_MEM_P2P_HUGE:
        *page = HUGE_PAGE_TYPE;
        return true;
    case ACL_HBM_MEM_NORMAL:
    case ACL_MEM_NORMAL:
    case ACL_MEM_P2P_NORMAL:
        *page = NORMAL_PAGE_TYPE;
        return true;
    case ACL_HBM_MEM_HUGE1G:
    case ACL_MEM_HUGE1G:
    case ACL_MEM_P2P_HUGE1G:
        *page = HUGE1G_PAGE_TYPE;
        return true;
    default:
        return false;
    }
}

/* Checks a property as CANN does and resolves its location. */
static aclError prop_read(const char *api, const aclrtPhysicalMemProp *prop, phys_info *info)
{
    switch (prop->location.type) {
    case ACL_MEM_LOCATION_TYPE_HOST:
    case ACL_MEM_LOCATION_TYPE_HOST_NUMA:
        info->host = true;
        break;
    case ACL_MEM_LOCATION_TYPE_DEVICE:
        info->host = false;
        break;
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "prop->location.type %d is not a location physical memory can have "
                         "(host, device or host NUMA)",
                         (int)prop->location.type);
    }
    bool host_only;
    if (!attr_page((uint32_t)prop->memAttr, &info->page, &host_only))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "prop->memAttr %d is not an attribute physical memory can have",
                         (int)prop->memAttr);
    if (host_only && !info->host)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "prop->memAttr %d (DDR) is for host memory only, and the location is "
                         "device %u",
                         (int)prop->memAttr, (unsigned)prop->location.id);
    info->attr = (uint32_t)prop->memAttr;
    info->device = info->host ? 0 : (int32_t)prop->location.id;
    info->phys = -1;
    if (!info->host) {
        if (prop->location.id > INT32_MAX ||
            device_to_phys((int32_t)prop->location.id, &info->phys) != ACL_SUCCESS)
            return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID,
                             "prop->location.id %u is not a device (%d visible)",
                             (unsigned)prop->location.id, device_visible_count());
    }
    return ACL_SUCCESS;
}

static aclError granularity_of(const char *api, const phys_info *info, bool recommended, size_t *g)
{
    aclError ret = backend()->vmm->granularity(info->host, info->phys, info->page, recommended, g);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot read the allocation granularity: %s",
                         acl_error_text(ret));
    return ACL_SUCCESS;
}

aclError vmm_granularity(const char *api, const aclrtPhysicalMemProp *prop,
                         aclrtMemGranularityOptions option, size_t *granularity)
{
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM &&
        option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "option %d is not ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED",
                         (int)option);
    phys_info info;
    aclError ret = prop_read(api, prop, &info);
    if (ret != ACL_SUCCESS)
        return ret;
    return granularity_of(api, &info, option == ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                          granularity);
}

/* The caller's device for the driver: the current context's, else 0. */
static int32_t caller_phys(void)
{
    int32_t phys = 0;
    if (device_to_phys(0, &phys) != ACL_SUCCESS)
        phys = 0;
    return phys;
}

aclError vmm_reserve(const char *api, void **va, size_t size, size_t alignment, void *expect,
                     bool no_uc)
{
    if (alignment != 0)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "alignment %zu is reserved and must be 0",
                         alignment);
    if (no_uc) {
        if (size % GIB != 0)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "size %zu is not a multiple of 1 GiB",
                             size);
        if (expect == NULL)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "expectPtr is NULL: this reservation is made at a given address only");
    }
    /* Reservations hold memory of every page size: round up to 2 MiB, and
     * align 1 GiB pages' ranges to 1 GiB. */
    size_t align = size >= GIB ? GIB : HUGE_PAGE;
    if (size > SIZE_MAX - align)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu cannot be reserved", size);
    size_t rounded = ALIGN_UP(size, HUGE_PAGE);
    if (expect != NULL && (uintptr_t)expect % (size >= GIB ? GIB : HUGE_PAGE) != 0)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "expectPtr %p is not aligned to %s",
                         expect, size >= GIB ? "1 GiB" : "2 MiB");
    deferred_reap();
    /* An address released while work was queued is reserved again once
     * that work completed. Until then it is in use, as in a callback, or
     * after a while: the work may wait for what this thread does next. */
    if (expect != NULL)
        (void)deferred_wait(expect, rounded, RESERVE_WAIT_MS);
    reservation *r = malloc(sizeof *r);
    if (r == NULL)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    void *p;
    aclError ret = backend()->vmm->reserve(caller_phys(), &p, rounded, align, expect);
    if (ret != ACL_SUCCESS) {
        free(r);
        if (expect != NULL)
            return acl_raise(api, ret, "cannot reserve %zu bytes at %p (in use, or refused): %s",
                             size, expect, acl_error_text(ret));
        return acl_raise(api, ret, "cannot reserve %zu bytes of addresses: %s", size,
                         acl_error_text(ret));
    }
    *r = (reservation){
        .node = {.base = (uintptr_t)p, .size = rounded}, .mapped_phys = -2, .imported = -1};
    pthread_mutex_lock(&vmm_lock);
    bool inserted = range_tree_insert(&reservations, &r->node) == NULL;
    pthread_mutex_unlock(&vmm_lock);
    if (!inserted) {
        (void)backend()->vmm->release(p, rounded);
        free(r);
        return acl_raise(api, ACL_ERROR_RT_INTERNAL_ERROR,
                         "the %zu bytes reserved at %p overlap a range recorded as reserved",
                         rounded, p);
    }
    ACL_LOG(LOG_DEBUG, "%p: %zu bytes of addresses reserved", p, rounded);
    *va = p;
    return ACL_SUCCESS;
}

/* A reservation's release deferred behind an unmap in it (deferred.h). */
static void release_run(void *arg)
{
    reservation *r = arg;
    aclError ret = backend()->vmm->release((void *)r->node.base, r->node.size);
    if (ret != ACL_SUCCESS)
        ACL_LOG(LOG_ERROR, "releasing the range at %p (deferred) failed: %s", (void *)r->node.base,
                acl_error_text(ret));
}

aclError vmm_release(const char *api, void *va)
{
    deferred_reap();
    deferral *after = deferred_begin(false);
    pthread_mutex_lock(&vmm_lock);
    reservation *r = reservation_at(va);
    aclError ret = ACL_SUCCESS;
    bool deferred = false;
    if (r == NULL)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "%p is not a range from aclrtReserveMemAddress (never reserved, or "
                        "already released)",
                        va);
    else if (r->node.base != (uintptr_t)va)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "%p lies %zu bytes inside the range reserved at %p; release that address",
                        va, (size_t)((uintptr_t)va - r->node.base), (void *)r->node.base);
    else if (r->mappings != 0)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "%zu mapping(s) remain in the range at %p: unmap them (aclrtUnmapMem) "
                        "first",
                        r->mappings, va);
    else if (deferred_overlaps(va, r->node.size)) {
        /* An unmap in it waits for queued work: the release follows it. */
        if (after == NULL) {
            ret = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        } else {
            range_tree_remove(&reservations, &r->node);
            deferred_add(after, release_run, free, r, va, r->node.size);
            after = NULL;
            deferred = true;
        }
    }
    if (ret == ACL_SUCCESS && !deferred) {
        ret = backend()->vmm->release(va, r->node.size);
        if (ret != ACL_SUCCESS)
            ret = acl_raise(api, ret, "releasing the range at %p failed: %s", va,
                            acl_error_text(ret));
        else
            range_tree_remove(&reservations, &r->node);
    }
    if (after != NULL)
        deferred_cancel(after);
    pthread_mutex_unlock(&vmm_lock);
    if (ret == ACL_SUCCESS && !deferred)
        free(r);
    return ret;
}

aclError vmm_phys_publish(const char *api, backend_phys *bp, const phys_info *info, bool imported,
                          aclrtDrvMemHandle *out)
{
    phys_mem *pm = calloc(1, sizeof *pm);
    if (pm == NULL) {
        backend()->vmm->destroy(bp);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    pm->bp = bp;
    pm->info = *info;
    pm->imported = imported;
    pm->user_refs = 1;
    aclError ret = handle_publish(&pm->obj, HANDLE_PHYS_MEM, phys_free);
    if (ret != ACL_SUCCESS) {
        phys_free(&pm->obj);
        return acl_raise(api, ret, "out of host memory for the handle table");
    }
    *out = handle_of(&pm->obj);
    return ACL_SUCCESS;
}

aclError vmm_phys_create(const char *api, aclrtDrvMemHandle *out, size_t size,
                         const aclrtPhysicalMemProp *prop)
{
    deferred_reap(); /* memory freed while work was queued comes back first */
    phys_info info;
    aclError ret = prop_read(api, prop, &info);
    if (ret != ACL_SUCCESS)
        return ret;
    size_t g;
    ret = granularity_of(api, &info, false, &g);
    if (ret != ACL_SUCCESS)
        return ret;
    if (size > SIZE_MAX - g)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu cannot be allocated", size);
    info.size = ALIGN_UP(size, g);
    backend_phys *bp;
    ret = backend()->vmm->create(&bp, info.size, info.host, info.phys, info.page);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot allocate %zu bytes of physical memory on %s %d: %s",
                         info.size, info.host ? "the host" : "device", info.device,
                         acl_error_text(ret));
    return vmm_phys_publish(api, bp, &info, false, out);
}

aclError vmm_phys_free(const char *api, aclrtDrvMemHandle handle)
{
    deferred_reap();
    pthread_mutex_lock(&vmm_lock);
    phys_mem *pm;
    aclError ret = phys_get(api, handle, &pm);
    if (ret == ACL_SUCCESS) {
        pm->user_refs--;
        phys_maybe_withdraw(pm);
        phys_put(pm);
    }
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

/* ---- mappings ---------------------------------------------------------------- */

enum { ACCESS_DEVICES = 64 };

typedef struct mapping {
    uintptr_t va;
    size_t size;
    phys_mem *pm;
    reservation *r;
    uint8_t device_access[ACCESS_DEVICES]; /* aclrtMemAccessFlags per backend device */
    uint8_t host_access;
} mapping;

/* The registry's flags for a mapping: what its own location may do. */
static uint32_t registry_flags(const mapping *m)
{
    uint8_t own = m->pm->info.host ? m->host_access : m->device_access[m->pm->info.phys];
    if (own == ACL_RT_MEM_ACCESS_FLAGS_NONE)
        return MEM_FLAG_NO_ACCESS;
    if (own == ACL_RT_MEM_ACCESS_FLAGS_READ)
        return MEM_FLAG_READ_ONLY;
    return 0;
}

/* The mapping starting exactly at va, or NULL. Under vmm_lock. */
static mapping *mapping_at(const void *va, mem_block *b)
{
    if (!registry_find(va, b)) {
        *b = (mem_block){.kind = MEM_UNKNOWN};
        return NULL;
    }
    if (b->origin != ORIGIN_MAPPED || b->base != (uintptr_t)va)
        return NULL;
    return b->owner;
}

/* The caller's device (the current context's) for host memory's access. */
static int32_t access_phys_for(const phys_mem *pm)
{
    return pm->info.host ? caller_phys() : pm->info.phys;
}

/* Maps pm at va under vmm_lock; the checks of the reservation are done. */
static aclError map_locked(const char *api, reservation *r, uintptr_t va, size_t size, phys_mem *pm,
                           bool accessible)
{
    mapping *m = calloc(1, sizeof *m);
    if (m == NULL)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    int32_t access_phys = access_phys_for(pm);
    aclError ret = backend()->vmm->map((void *)va, size, pm->bp, accessible, access_phys);
    if (ret != ACL_SUCCESS) {
        free(m);
        return acl_raise(api, ret, "mapping %zu bytes at %p failed: %s", size, (void *)va,
                         acl_error_text(ret));
    }
    *m = (mapping){.va = va, .size = size, .pm = pm, .r = r};
    if (accessible) {
        if (access_phys >= 0 && access_phys < ACCESS_DEVICES)
            m->device_access[access_phys] = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
        if (pm->info.host)
            m->host_access = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    }
    ret = memory_register(&(mem_block){.base = va,
                                       .size = size,
                                       .capacity = size,
                                       .kind = pm->info.host ? MEM_HOST_PINNED : MEM_DEVICE,
                                       .origin = ORIGIN_MAPPED,
                                       .phys = pm->info.host ? -1 : pm->info.phys,
                                       .device = pm->info.device,
                                       .owner = m,
                                       .span = r,
                                       .flags = registry_flags(m)});
    if (ret != ACL_SUCCESS) {
        (void)backend()->vmm->unmap((void *)va, size);
        free(m);
        return acl_raise(api, ret, "cannot record the mapping at %p", (void *)va);
    }
    pm->mappings++;
    r->mappings++;
    if (r->mapped_phys == -2) {
        r->mapped_phys = pm->info.host ? -1 : pm->info.phys;
        r->imported = pm->imported;
    }
    return ACL_SUCCESS;
}

/* Where [va, va + size) may be mapped: inside one reservation, aligned to
 * the memory's granularity, over nothing mapped, and with memory of the
 * same device and provenance as the reservation's other mappings. */
static aclError map_target(const char *api, uintptr_t va, size_t size, const phys_mem *pm,
                           reservation **out)
{
    reservation *r = reservation_at((void *)va);
    if (r == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not in a range reserved with aclrtReserveMemAddress", (void *)va);
    if (size > r->node.base + r->node.size - va)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "%zu bytes from %p run past the end of the range reserved at %p (%zu "
                         "bytes)",
                         size, (void *)va, (void *)r->node.base, r->node.size);
    size_t g;
    aclError ret = granularity_of(api, &pm->info, false, &g);
    if (ret != ACL_SUCCESS)
        return ret;
    if ((va - r->node.base) % g != 0)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "%p is not a multiple of the granularity (%zu bytes) into its range",
                         (void *)va, g);
    mem_block hit;
    if (memory_overlaps((void *)va, size, &hit))
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "[%p, +%zu) overlaps %s at %p (%zu bytes): unmap it first", (void *)va,
                         size, memory_where(&hit), (void *)hit.base, hit.size);
    int32_t dev = pm->info.host ? -1 : pm->info.phys;
    if (r->mapped_phys != -2 && r->mapped_phys != dev)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "the range at %p already maps memory of another device: one reserved "
                         "range maps one device's memory",
                         (void *)r->node.base);
    if (r->imported != -1 && r->imported != (int)pm->imported)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "the range at %p already maps %s memory: one reserved range maps either "
                         "allocated or imported memory",
                         (void *)r->node.base, r->imported ? "imported" : "allocated");
    *out = r;
    return ACL_SUCCESS;
}

/* A map at an address whose unmap waits for queued work, in a callback
 * that cannot wait for it. */
static aclError still_unmapping(const char *api, const void *va)
{
    return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                     "the memory unmapped at %p waits for the work queued before its unmap, which "
                     "a callback cannot wait for: map there outside the callback",
                     va);
}

aclError vmm_map(const char *api, void *va, size_t size, size_t offset, aclrtDrvMemHandle handle,
                 bool accessible)
{
    if (offset != 0)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "offset %zu is reserved and must be 0",
                         offset);
    deferred_reap();
    for (;;) {
        pthread_mutex_lock(&vmm_lock);
        phys_mem *pm;
        aclError ret = phys_get(api, handle, &pm);
        bool unmapping = false;
        if (ret == ACL_SUCCESS) {
            reservation *r = NULL;
            if (size != pm->info.size)
                ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                                "size %zu is not the size of the physical memory (%zu bytes)", size,
                                pm->info.size);
            if (ret == ACL_SUCCESS)
                ret = map_target(api, (uintptr_t)va, size, pm, &r);
            /* An unmap there still waits for queued work: after it. */
            unmapping = ret == ACL_SUCCESS && deferred_overlaps(va, size);
            if (ret == ACL_SUCCESS && !unmapping)
                ret = map_locked(api, r, (uintptr_t)va, size, pm, accessible);
            phys_put(pm);
        }
        pthread_mutex_unlock(&vmm_lock);
        if (!unmapping)
            return ret;
        if (!deferred_wait(va, size, -1))
            return still_unmapping(api, va);
    }
}

/* Takes m out of the registry and its reservation's and memory's counts;
 * pm's handle goes if the user freed it. Under vmm_lock. */
static void mapping_forget(mapping *m)
{
    mem_block gone;
    (void)memory_unregister((void *)m->va, ORIGIN_MAPPED, &gone);
    m->r->mappings--;
    if (m->r->mappings == 0) {
        m->r->mapped_phys = -2;
        m->r->imported = -1;
    }
    phys_mem *pm = m->pm;
    pm->mappings--;
    /* pm's handle is live while mapped: borrow it to withdraw it. */
    if (handle_get(handle_of(&pm->obj), HANDLE_PHYS_MEM) == &pm->obj) {
        phys_maybe_withdraw(pm);
        phys_put(pm);
    }
}

/* An unmap deferred behind queued work (deferred.h): the mapping, holding
 * its physical memory, until the backend unmapped it. */
static void unmap_run(void *arg)
{
    mapping *m = arg;
    aclError ret = backend()->vmm->unmap((void *)m->va, m->size);
    if (ret != ACL_SUCCESS)
        ACL_LOG(LOG_ERROR, "unmapping %p (deferred) failed: %s", (void *)m->va,
                acl_error_text(ret));
}

static void unmap_done(void *arg)
{
    mapping *m = arg;
    object_release(&m->pm->obj);
    free(m);
}

aclError vmm_unmap(const char *api, void *va)
{
    deferred_reap();
    /* Work queued until now may touch the mapping: marked before the lock. */
    deferral *d = deferred_begin(true);
    if (d == NULL)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "out of host memory to mark the work queued on the streams");
    pthread_mutex_lock(&vmm_lock);
    mem_block b;
    mapping *m = mapping_at(va, &b);
    aclError ret = ACL_SUCCESS;
    if (m == NULL) {
        if (b.kind != MEM_UNKNOWN && b.origin == ORIGIN_MAPPED)
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "%p lies %zu bytes inside the mapping at %p; unmap that address", va,
                            (size_t)((uintptr_t)va - b.base), (void *)b.base);
        else if (b.kind != MEM_UNKNOWN)
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "%p is %s, not a mapping; release it "
                            "with %s",
                            va, memory_where(&b), memory_origin_release(b.origin));
        else
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "%p is not mapped (never mapped with aclrtMapMem, or already "
                            "unmapped)",
                            va);
    } else if (!deferred_idle(d) && object_hold(&m->pm->obj)) {
        /* Gone for the caller now; for the backend after the work. */
        mapping_forget(m);
        deferred_add(d, unmap_run, unmap_done, m, va, m->size);
        d = NULL;
    } else {
        ret = backend()->vmm->unmap(va, m->size);
        if (ret != ACL_SUCCESS) {
            ret = acl_raise(api, ret, "unmapping %p failed: %s", va, acl_error_text(ret));
        } else {
            mapping_forget(m);
            free(m);
        }
    }
    if (d != NULL)
        deferred_cancel(d);
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

/* The mappings that cover [va, va + size) exactly, from va on, side by
 * side in one reservation. Returns how many (0: they do not). */
static size_t mappings_covering(uintptr_t va, size_t size, mapping **out, size_t most)
{
    size_t n = 0, covered = 0;
    while (covered < size && n < most) {
        mem_block b;
        mapping *m = mapping_at((void *)(va + covered), &b);
        if (m == NULL || (n > 0 && m->r != out[0]->r))
            return 0;
        out[n++] = m;
        covered += m->size;
    }
    return covered == size ? n : 0;
}

enum { MOST_MAPPINGS = 256, MOST_ACCESS = 72 };

aclError vmm_set_access(const char *api, void *va, size_t size, const aclrtMemAccessDesc *desc,
                        size_t count)
{
    if (count == 0 || count > MOST_ACCESS)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "count %zu is not in 1..%d", count,
                         MOST_ACCESS);
    vmm_access access[MOST_ACCESS];
    for (size_t i = 0; i < count; i++) {
        const aclrtMemAccessDesc *d = &desc[i];
        if (d->flags != ACL_RT_MEM_ACCESS_FLAGS_NONE && d->flags != ACL_RT_MEM_ACCESS_FLAGS_READ &&
            d->flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "desc[%zu].flags 0x%x is not an aclrtMemAccessFlags value", i,
                             (unsigned)d->flags);
        access[i] = (vmm_access){.flags = (uint32_t)d->flags};
        if (d->location.type == ACL_MEM_LOCATION_TYPE_HOST ||
            d->location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
            access[i].host = true;
        } else if (d->location.type == ACL_MEM_LOCATION_TYPE_DEVICE) {
            if (d->location.id > INT32_MAX ||
                device_to_phys((int32_t)d->location.id, &access[i].dev) != ACL_SUCCESS ||
                access[i].dev >= ACCESS_DEVICES)
                return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID,
                                 "desc[%zu].location.id %u is not a device (%d visible)", i,
                                 (unsigned)d->location.id, device_visible_count());
        } else {
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "desc[%zu].location.type %d is neither host nor device", i,
                             (int)d->location.type);
        }
    }
    pthread_mutex_lock(&vmm_lock);
    mapping *maps[MOST_MAPPINGS];
    size_t n = mappings_covering((uintptr_t)va, size, maps, MOST_MAPPINGS);
    aclError ret = ACL_SUCCESS;
    if (n == 0)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "[%p, +%zu) is not a mapped range (the address and size of aclrtMapMem "
                        "or aclrtMemMapNoAccess)",
                        va, size);
    for (size_t k = 0; k < n && ret == ACL_SUCCESS; k++) {
        mapping *m = maps[k];
        for (size_t i = 0; i < count; i++)
            access[i].owner = m->pm->info.host
                                  ? access[i].host
                                  : !access[i].host && access[i].dev == m->pm->info.phys;
        ret = backend()->vmm->set_access((void *)m->va, m->size, access, count);
        if (ret != ACL_SUCCESS) {
            ret = acl_raise(api, ret, "setting the access of the mapping at %p failed: %s",
                            (void *)m->va, acl_error_text(ret));
            break;
        }
        for (size_t i = 0; i < count; i++) {
            if (access[i].host)
                m->host_access = (uint8_t)access[i].flags;
            else
                m->device_access[access[i].dev] = (uint8_t)access[i].flags;
        }
        (void)memory_set_flags((void *)m->va, ORIGIN_MAPPED, registry_flags(m));
    }
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

aclError vmm_get_access(const char *api, void *va, const aclrtMemLocation *location,
                        uint64_t *flags)
{
    bool host;
    int32_t phys = -1;
    if (location->type == ACL_MEM_LOCATION_TYPE_HOST) {
        host = true;
    } else if (location->type == ACL_MEM_LOCATION_TYPE_DEVICE) {
        host = false;
        if (location->id > INT32_MAX ||
            device_to_phys((int32_t)location->id, &phys) != ACL_SUCCESS || phys >= ACCESS_DEVICES)
            return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID,
                             "location->id %u is not a device (%d visible)", (unsigned)location->id,
                             device_visible_count());
    } else {
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "location->type %d: only host and device locations are supported",
                         (int)location->type);
    }
    pthread_mutex_lock(&vmm_lock);
    mem_block b;
    mapping *m = mapping_at(va, &b);
    aclError ret = ACL_SUCCESS;
    if (m == NULL)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "%p is not the address of a mapping (aclrtMapMem's virPtr)", va);
    else
        *flags = host ? m->host_access : m->device_access[phys];
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

aclError vmm_retain(const char *api, void *va, aclrtDrvMemHandle *out)
{
    pthread_mutex_lock(&vmm_lock);
    mem_block b;
    mapping *m = mapping_at(va, &b);
    aclError ret = ACL_SUCCESS;
    if (m == NULL) {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "%p is not the address of a mapping (aclrtMapMem's virPtr)", va);
    } else {
        m->pm->user_refs++;
        *out = handle_of(&m->pm->obj);
    }
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

aclError vmm_properties(const char *api, aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop)
{
    pthread_mutex_lock(&vmm_lock);
    phys_mem *pm;
    aclError ret = phys_get(api, handle, &pm);
    if (ret == ACL_SUCCESS) {
        memset(prop, 0, sizeof *prop);
        prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
        prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
        prop->memAttr = (aclrtMemAttr)pm->info.attr;
        prop->location.type =
            pm->info.host ? ACL_MEM_LOCATION_TYPE_HOST : ACL_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = pm->info.host ? 0 : (uint32_t)pm->info.device;
        phys_put(pm);
    }
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

aclError vmm_set_link(const char *api, aclrtDrvMemHandle handle, aclrtMemLinkType link)
{
    if ((int)link < ACL_RT_MEM_ACCESS_LINK_SIO || (int)link > ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "adviceLink %d is not an aclrtMemLinkType", (int)link);
    pthread_mutex_lock(&vmm_lock);
    phys_mem *pm;
    aclError ret = phys_get(api, handle, &pm);
    if (ret == ACL_SUCCESS) {
        pm->link = (uint32_t)link;
        phys_put(pm);
    }
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

aclError vmm_map_alias(const char *api, void *dst, size_t size, void *src)
{
    /* An unmap there waiting for queued work goes first. */
    if (!deferred_wait(dst, size, -1))
        return still_unmapping(api, dst);
    pthread_mutex_lock(&vmm_lock);
    mapping *maps[MOST_MAPPINGS];
    size_t n = mappings_covering((uintptr_t)src, size, maps, MOST_MAPPINGS);
    reservation *r = reservation_at(dst);
    aclError ret = ACL_SUCCESS;
    if (n == 0)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "[%p, +%zu) is not a mapped range starting at a mapping's address", src,
                        size);
    else if (r == NULL || r->node.base != (uintptr_t)dst)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "%p is not the start of a range from aclrtReserveMemAddress", dst);
    size_t done = 0;
    for (size_t k = 0; k < n && ret == ACL_SUCCESS; k++) {
        reservation *target;
        uintptr_t va = (uintptr_t)dst + (maps[k]->va - (uintptr_t)src);
        ret = map_target(api, va, maps[k]->size, maps[k]->pm, &target);
        if (ret == ACL_SUCCESS)
            ret = map_locked(api, target, va, maps[k]->size, maps[k]->pm, true);
        if (ret == ACL_SUCCESS)
            done++;
    }
    pthread_mutex_unlock(&vmm_lock);
    /* Undo a partial alias: the caller sees all of it or nothing. */
    for (size_t k = 0; ret != ACL_SUCCESS && k < done; k++)
        (void)vmm_unmap(api, (char *)dst + (maps[k]->va - (uintptr_t)src));
    return ret;
}

aclError vmm_p2p_map(const char *api, void *ptr, size_t size, int32_t dst_phys, int32_t dst_device)
{
    mem_block b;
    aclError ret = memory_locate_live(api, ptr, size, &b);
    if (ret != ACL_SUCCESS)
        return ret;
    if (b.kind != MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is %s, not device memory", ptr,
                         memory_where(&b));
    if (b.phys == dst_phys)
        return ACL_SUCCESS; /* its own device reaches it already */
    if (!device_peer_enabled(dst_phys, b.phys))
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "device %d cannot reach device %d's memory: enable peer access "
                         "(aclrtDeviceEnablePeerAccess) first",
                         dst_device, b.device);
    if (b.origin != ORIGIN_MAPPED)
        return ACL_SUCCESS; /* peer access maps the device's whole allocations */
    /* Virtual memory is reachable by the devices its access names. */
    vmm_access a = {.dev = dst_phys, .flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE};
    pthread_mutex_lock(&vmm_lock);
    mapping *m = mapping_at((void *)b.base, &b);
    if (m != NULL && dst_phys < ACCESS_DEVICES) {
        ret = backend()->vmm->set_access((void *)m->va, m->size, &a, 1);
        if (ret == ACL_SUCCESS)
            m->device_access[dst_phys] = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
        else
            ret = acl_raise(api, ret, "giving device %d access to %p failed: %s", dst_device,
                            (void *)m->va, acl_error_text(ret));
    }
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

/* ---- fork ------------------------------------------------------------------------ */

static void fork_prepare(void)
{
    pthread_mutex_lock(&vmm_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&vmm_lock);
}

__attribute__((constructor)) static void vmm_init(void)
{
    fork_register(FORK_RANK_VMM, fork_prepare, fork_done, fork_done);
}

/* ---- sharing physical memory with other processes --------------------------------- */

/* What the exporter publishes with the memory's descriptor. */
typedef struct phys_blob {
    uint64_t size;
    uint32_t host, attr, page;
    uint32_t spare; /* 0: the blob goes to the importer whole, with no padding */
} phys_blob;
_Static_assert(sizeof(phys_blob) == 24, "a physical memory blob has no padding");

/* Each physical handle is exported once and each export imported once
 * per process (one-to-one, as CANN requires). Under vmm_lock. */
typedef struct share_record {
    share_name name;
    bool imported; /* an import of another process's export, else our export */
} share_record;

/* The exports imported by this process, to refuse a second import. An
 * import takes its entry before it asks the exporter (pm NULL while it is
 * under way), so that of two racing imports one is refused. A leaf lock:
 * the handles' free function takes it, which may run inside any handle
 * lookup. */
typedef struct imported {
    share_name name;
    const phys_mem *pm;
} imported;

static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;
static imported *imports;
static size_t import_count, import_cap;

static bool import_named(const imported *i, const share_name *name)
{
    return i->name.pid == name->pid && i->name.id == name->id;
}

/* Takes the entry of an import about to begin: ACL_ERROR_RT_PARAM_INVALID
 * when name is imported (or being imported) already. */
static aclError import_begin(const share_name *name)
{
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&imports_lock);
    for (size_t i = 0; i < import_count && ret == ACL_SUCCESS; i++)
        if (import_named(&imports[i], name))
            ret = ACL_ERROR_RT_PARAM_INVALID;
    if (ret == ACL_SUCCESS && import_count == import_cap) {
        size_t cap = import_cap ? 2 * import_cap : 16;
        imported *grown = realloc(imports, cap * sizeof *grown);
        if (grown) {
            imports = grown;
            import_cap = cap;
        } else {
            ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    if (ret == ACL_SUCCESS)
        imports[import_count++] = (imported){*name, NULL};
    pthread_mutex_unlock(&imports_lock);
    return ret;
}

/* Ends the import begun under name: pm is the imported memory, or NULL
 * when the import failed (its entry goes). */
static void import_end(const share_name *name, const phys_mem *pm)
{
    pthread_mutex_lock(&imports_lock);
    for (size_t i = 0; i < import_count; i++)
        if (imports[i].pm == NULL && import_named(&imports[i], name)) {
            if (pm)
                imports[i].pm = pm;
            else
                imports[i] = imports[--import_count];
            break;
        }
    pthread_mutex_unlock(&imports_lock);
}

void vmm_share_forget(phys_mem *pm)
{
    share_record *r = pm->share;
    if (r == NULL)
        return;
    if (r->imported) {
        pthread_mutex_lock(&imports_lock);
        for (size_t i = 0; i < import_count; i++)
            if (imports[i].pm == pm) {
                imports[i] = imports[--import_count];
                break;
            }
        pthread_mutex_unlock(&imports_lock);
    } else {
        share_withdraw(&r->name);
    }
    free(r);
    pm->share = NULL;
}

aclError vmm_export(const char *api, aclrtDrvMemHandle handle, bool check_pids, share_name *name)
{
    pthread_mutex_lock(&vmm_lock);
    phys_mem *pm;
    aclError ret = phys_get(api, handle, &pm);
    if (ret != ACL_SUCCESS) {
        pthread_mutex_unlock(&vmm_lock);
        return ret;
    }
    share_record *r = pm->share;
    if (pm->imported)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "the handle was imported: only memory from aclrtMallocPhysical is "
                        "exported");
    else if (r != NULL)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "the handle was exported already: a handle has one shareable handle");
    int fd = -1;
    if (ret == ACL_SUCCESS) {
        ret = backend()->vmm->export_fd(pm->bp, &fd);
        if (ret != ACL_SUCCESS)
            ret = acl_raise(api, ret, "the physical memory cannot be shared: %s",
                            acl_error_text(ret));
    }
    if (ret == ACL_SUCCESS && (r = calloc(1, sizeof *r)) == NULL)
        ret = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    if (ret == ACL_SUCCESS) {
        phys_blob blob = {.size = pm->info.size,
                          .host = pm->info.host,
                          .attr = pm->info.attr,
                          .page = pm->info.page};
        ret = share_publish(SHARE_PHYSICAL, fd, &blob, sizeof blob, check_pids, true, &r->name);
        if (ret != ACL_SUCCESS) {
            free(r);
            ret = acl_raise(api, ret, "the physical memory cannot be shared: %s",
                            acl_error_text(ret));
        } else {
            fd = -1; /* the entry's now */
            pm->share = r;
            *name = r->name;
        }
    }
    if (fd >= 0)
        close(fd);
    phys_put(pm);
    pthread_mutex_unlock(&vmm_lock);
    return ret;
}

aclError vmm_allow(const char *api, const share_name *name, const int32_t *pids, size_t count)
{
    if (!share_is_ours(name, SHARE_PHYSICAL))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the shareable handle was not exported by this process (or its memory "
                         "was freed)");
    return share_allow(api, name, pids, count);
}

/* The steps of vmm_import once its entry is taken; *pm is the memory
 * imported (a reference), or NULL. */
static aclError import_physical(const char *api, const share_name *name, int32_t device,
                                int32_t phys, aclrtDrvMemHandle *out, phys_mem **pm)
{
    *pm = NULL;
    phys_blob blob;
    size_t len = sizeof blob;
    int fd;
    aclError ret = share_fetch(name, SHARE_PHYSICAL, &fd, &blob, &len);
    if (ret == ACL_ERROR_RT_NO_PERMISSION)
        return acl_raise(api, ret,
                         "process %d is not allowed to import the shareable handle: the exporter "
                         "lists importers with aclrtMemSetPidToShareableHandle",
                         (int)getpid());
    if (ret == ACL_ERROR_INVALID_PARAM)
        return acl_raise(api, ret,
                         "the shareable handle names no physical memory (freed, or its process "
                         "ended)");
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "cannot reach process %d: %s", (int)name->pid,
                         acl_error_text(ret));
    if (len != sizeof blob || fd < 0) {
        if (fd >= 0)
            close(fd);
        return acl_raise(api, ACL_ERROR_RT_IPC_ERROR,
                         "process %d described the shareable handle badly", (int)name->pid);
    }
    phys_info info = {.size = blob.size,
                      .host = blob.host != 0,
                      .phys = blob.host ? -1 : phys,
                      .device = blob.host ? 0 : device,
                      .attr = blob.attr,
                      .page = blob.page};
    backend_phys *bp;
    ret = backend()->vmm->import_fd(fd, info.size, info.host, phys, info.page, &bp);
    close(fd);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "importing the physical memory failed: %s", acl_error_text(ret));
    share_record *r = calloc(1, sizeof *r);
    if (r == NULL) {
        backend()->vmm->destroy(bp);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    r->name = *name;
    r->imported = true;
    ret = vmm_phys_publish(api, bp, &info, true, out);
    if (ret != ACL_SUCCESS) {
        free(r);
        return ret;
    }
    *pm = (phys_mem *)handle_get(*out, HANDLE_PHYS_MEM);
    if (*pm == NULL) {
        free(r); /* freed meanwhile by another thread */
        return ACL_SUCCESS;
    }
    pthread_mutex_lock(&vmm_lock);
    (*pm)->share = r;
    pthread_mutex_unlock(&vmm_lock);
    return ACL_SUCCESS;
}

aclError vmm_import(const char *api, const share_name *name, int32_t device, aclrtDrvMemHandle *out)
{
    int32_t phys;
    if (device_to_phys(device, &phys) != ACL_SUCCESS)
        return acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID,
                         "device %d does not exist (%d visible)", device, device_visible_count());
    if (name->pid == (int32_t)getpid())
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the shareable handle was exported by this process: it is imported by "
                         "another process");
    aclError ret = import_begin(name);
    if (ret == ACL_ERROR_RT_PARAM_INVALID)
        return acl_raise(api, ret,
                         "the shareable handle was imported already: a process imports it once");
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "out of host memory");
    phys_mem *pm;
    ret = import_physical(api, name, device, phys, out, &pm);
    import_end(name, pm);
    if (pm)
        phys_put(pm);
    return ret;
}
