/* Managed memory (see managed.h). One mutex guards the list of managed
 * allocations and their page state; it is taken before the allocation
 * registry's and never held across a call into the backend. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/lifecycle.h"
#include "core/managed.h"
#include "core/memory.h"
#include "util/fork.h"

enum { NO_ID = -2, HOST_ID = -1, MAX_IDS = 64 };

typedef struct page_state {
    bool read_mostly;
    bool by_host;
    aclrtMemManagedLocation preferred;     /* type INVALID: none */
    aclrtMemManagedLocation last_prefetch; /* type INVALID: never prefetched */
    uint64_t by_device;                    /* accessed by: user device ids */
    uint64_t by_numa;                      /* accessed by: host NUMA nodes */
} page_state;

typedef struct managed_range {
    uintptr_t base;
    size_t size;
    size_t pages;
    page_state *state;
    struct managed_range *next;
} managed_range;

static pthread_mutex_t managed_lock = PTHREAD_MUTEX_INITIALIZER;
static managed_range *ranges;

aclError managed_alloc(const char *api, void **ptr, uint64_t size, int32_t phys, int32_t device)
{
    if (size > SIZE_MAX - MANAGED_PAGE)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %llu cannot be allocated",
                         (unsigned long long)size);
    size_t rounded = ALIGN_UP((size_t)size, MANAGED_PAGE);
    managed_range *r = calloc(1, sizeof *r);
    page_state *state = calloc(rounded / MANAGED_PAGE, sizeof *state);
    if (r == NULL || state == NULL) {
        free(r);
        free(state);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    }
    void *p;
    aclError ret = memory_alloc_managed(api, &p, rounded, phys, device);
    if (ret != ACL_SUCCESS) {
        free(r);
        free(state);
        return ret;
    }
    *r = (managed_range){
        .base = (uintptr_t)p, .size = rounded, .pages = rounded / MANAGED_PAGE, .state = state};
    pthread_mutex_lock(&managed_lock);
    r->next = ranges;
    ranges = r;
    pthread_mutex_unlock(&managed_lock);
    *ptr = p;
    return ACL_SUCCESS;
}

/* Forgets the state of the allocation at ptr (aclrtFree freed it). */
static void managed_forget(const void *ptr)
{
    pthread_mutex_lock(&managed_lock);
    managed_range **at = &ranges;
    while (*at != NULL && (*at)->base != (uintptr_t)ptr)
        at = &(*at)->next;
    managed_range *r = *at;
    if (r != NULL)
        *at = r->next;
    pthread_mutex_unlock(&managed_lock);
    if (r != NULL) {
        free(r->state);
        free(r);
    }
}

/* The pages [*first, *last] of the allocation holding [ptr, ptr + size);
 * NULL when no managed allocation holds all of it. Under managed_lock. */
static managed_range *pages_of(const void *ptr, size_t size, size_t *first, size_t *last)
{
    uintptr_t p = (uintptr_t)ptr;
    for (managed_range *r = ranges; r != NULL; r = r->next) {
        if (p < r->base || p >= r->base + r->size)
            continue;
        if (size > r->base + r->size - p)
            return NULL;
        *first = (p - r->base) / MANAGED_PAGE;
        *last = (p + size - 1 - r->base) / MANAGED_PAGE;
        return r;
    }
    return NULL;
}

static aclError range_error(const char *api, const char *role, const void *ptr, size_t size)
{
    mem_block b;
    if (!registry_find(ptr, &b))
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "%s %p is not managed memory from aclrtMemAllocManaged", role, ptr);
    if (b.kind != MEM_MANAGED)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "%s %p is %s, not managed memory from aclrtMemAllocManaged", role, ptr,
                         memory_where(&b));
    return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                     "[%p, +%zu) runs past the end of the %zu-byte managed allocation at %p", ptr,
                     size, b.size, (void *)b.base);
}

aclError managed_check_range(const char *api, const char *role, const void *ptr, size_t size)
{
    if (size % MANAGED_PAGE != 0)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "size %zu of %s is not a multiple of 2 MiB", size, role);
    size_t first, last;
    pthread_mutex_lock(&managed_lock);
    bool inside = pages_of(ptr, size, &first, &last) != NULL;
    pthread_mutex_unlock(&managed_lock);
    return inside ? ACL_SUCCESS : range_error(api, role, ptr, size);
}

static bool numa_node_exists(int32_t node)
{
    if (node < 0 || node >= MAX_IDS)
        return false;
    char path[64];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d", (int)node);
    if (access(path, F_OK) == 0)
        return true;
    /* Without sysfs's NUMA view, the machine is one node. */
    return node == 0 && access("/sys/devices/system/node", F_OK) != 0;
}

static int32_t current_numa_node(void)
{
    unsigned cpu = 0, node = 0;
    if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0 || node >= MAX_IDS)
        return 0;
    return (int32_t)node;
}

aclError managed_location_resolve(const char *api, const char *role,
                                  aclrtMemManagedLocation location, bool invalid_ok,
                                  aclrtMemManagedLocation *user, managed_location *backend_loc)
{
    *user = location;
    *backend_loc = (managed_location){(int32_t)location.type, location.id};
    switch (location.type) {
    case ACL_MEM_LOCATIONTYPE_INVALID:
        if (!invalid_ok)
            return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                             "%s.type ACL_MEM_LOCATIONTYPE_INVALID names no location", role);
        user->id = 0;
        return ACL_SUCCESS;
    case ACL_MEM_LOCATIONTYPE_DEVICE: {
        int32_t phys;
        if (location.id < 0 || location.id >= MAX_IDS ||
            device_to_phys(location.id, &phys) != ACL_SUCCESS)
            return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "%s.id %d is not a device (0..%d)",
                             role, location.id, device_visible_count() - 1);
        backend_loc->id = phys;
        return ACL_SUCCESS;
    }
    case ACL_MEM_LOCATIONTYPE_HOST:
        user->id = 0;
        backend_loc->id = 0;
        return ACL_SUCCESS;
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT:
        user->type = ACL_MEM_LOCATIONTYPE_HOST_NUMA;
        user->id = current_numa_node();
        *backend_loc = (managed_location){ACL_MEM_LOCATIONTYPE_HOST_NUMA, user->id};
        return ACL_SUCCESS;
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA:
        if (!numa_node_exists(location.id))
            return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                             "%s.id %d is not a NUMA node of this host", role, location.id);
        return ACL_SUCCESS;
    }
    return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                     "%s.type %d is not an aclrtMemManagedLocationType", role, (int)location.type);
}

static void advise_page(page_state *p, aclrtMemManagedAdviseType advise,
                        aclrtMemManagedLocation loc)
{
    switch (advise) {
    case ACL_MEM_ADVISE_SET_READ_MOSTLY:
        p->read_mostly = true;
        break;
    case ACL_MEM_ADVISE_UNSET_READ_MOSTLY:
        p->read_mostly = false;
        break;
    case ACL_MEM_ADVISE_SET_PREFERRED_LOCATION:
        p->preferred = loc;
        break;
    case ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
        p->preferred = (aclrtMemManagedLocation){ACL_MEM_LOCATIONTYPE_INVALID, 0};
        break;
    case ACL_MEM_ADVISE_SET_ACCESSED_BY:
    case ACL_MEM_ADVISE_UNSET_ACCESSED_BY: {
        bool set = advise == ACL_MEM_ADVISE_SET_ACCESSED_BY;
        if (loc.type == ACL_MEM_LOCATIONTYPE_HOST) {
            p->by_host = set;
        } else {
            uint64_t *mask = loc.type == ACL_MEM_LOCATIONTYPE_DEVICE ? &p->by_device : &p->by_numa;
            uint64_t bit = (uint64_t)1 << loc.id;
            *mask = set ? (*mask | bit) : (*mask & ~bit);
        }
        break;
    }
    }
}

aclError managed_advise(const char *api, const void *ptr, uint64_t size,
                        aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location)
{
    if ((uint32_t)advise > ACL_MEM_ADVISE_UNSET_ACCESSED_BY)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "advise %d is not an aclrtMemManagedAdviseType (0..%d)", (int)advise,
                         ACL_MEM_ADVISE_UNSET_ACCESSED_BY);
    /* Read-mostly advice ignores the location (UNSET keeps the copy at
     * it, the host when it is INVALID); the others need one. */
    bool located = advise == ACL_MEM_ADVISE_SET_PREFERRED_LOCATION ||
                   advise == ACL_MEM_ADVISE_SET_ACCESSED_BY ||
                   advise == ACL_MEM_ADVISE_UNSET_ACCESSED_BY;
    aclrtMemManagedLocation user = location;
    managed_location loc = {(int32_t)location.type, location.id};
    if (located || location.type == ACL_MEM_LOCATIONTYPE_DEVICE) {
        aclError ret = managed_location_resolve(api, "location", location, !located, &user, &loc);
        if (ret != ACL_SUCCESS)
            return ret;
    }
    if (advise == ACL_MEM_ADVISE_SET_READ_MOSTLY ||
        advise == ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION)
        loc = (managed_location){ACL_MEM_LOCATIONTYPE_HOST, 0};
    if (advise == ACL_MEM_ADVISE_UNSET_READ_MOSTLY && location.type != ACL_MEM_LOCATIONTYPE_DEVICE)
        loc = (managed_location){ACL_MEM_LOCATIONTYPE_HOST, 0};
    aclError ret = managed_check_range(api, "ptr", ptr, (size_t)size);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = backend()->managed->advise(ptr, (size_t)size, (int32_t)advise, loc);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "the backend refused the advice: %s", acl_error_text(ret));
    size_t first, last;
    pthread_mutex_lock(&managed_lock);
    managed_range *r = pages_of(ptr, (size_t)size, &first, &last);
    if (r != NULL)
        for (size_t i = first; i <= last; i++)
            advise_page(&r->state[i], advise, user);
    pthread_mutex_unlock(&managed_lock);
    return ACL_SUCCESS;
}

aclError managed_prefetch(const char *api, acl_stream *s, const void *ptr, size_t size,
                          aclrtMemManagedLocation user, managed_location loc)
{
    aclError ret = stream_submit(
        api, s, &(task){.kind = TASK_PREFETCH, .u.prefetch = {.ptr = ptr, .n = size, .loc = loc}});
    if (ret != ACL_SUCCESS)
        return ret;
    size_t first, last;
    pthread_mutex_lock(&managed_lock);
    managed_range *r = pages_of(ptr, size, &first, &last);
    if (r != NULL)
        for (size_t i = first; i <= last; i++)
            r->state[i].last_prefetch = user;
    pthread_mutex_unlock(&managed_lock);
    return ACL_SUCCESS;
}

/* ---- attributes ------------------------------------------------------------------ */

static bool same_location(aclrtMemManagedLocation a, aclrtMemManagedLocation b)
{
    return a.type == b.type && (a.type == ACL_MEM_LOCATIONTYPE_HOST || a.id == b.id);
}

/* The location every page of the range has (type INVALID: they differ or
 * have none). */
static aclrtMemManagedLocation common_location(const managed_range *r, size_t first, size_t last,
                                               bool preferred)
{
    aclrtMemManagedLocation l =
        preferred ? r->state[first].preferred : r->state[first].last_prefetch;
    for (size_t i = first + 1; i <= last; i++)
        if (!same_location(l, preferred ? r->state[i].preferred : r->state[i].last_prefetch))
            return (aclrtMemManagedLocation){ACL_MEM_LOCATIONTYPE_INVALID, 0};
    return l;
}

static int32_t location_value(aclrtMemManagedLocation l)
{
    switch (l.type) {
    case ACL_MEM_LOCATIONTYPE_HOST:
        return HOST_ID;
    case ACL_MEM_LOCATIONTYPE_DEVICE:
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA:
        return l.id;
    default:
        return NO_ID;
    }
}

static void accessed_by(const managed_range *r, size_t first, size_t last, int32_t *out, size_t n)
{
    uint64_t devices = UINT64_MAX, nodes = UINT64_MAX;
    bool host = true;
    for (size_t i = first; i <= last; i++) {
        devices &= r->state[i].by_device;
        nodes &= r->state[i].by_numa;
        host = host && r->state[i].by_host;
    }
    size_t k = 0;
    for (int32_t id = 0; id < MAX_IDS && k < n; id++)
        if (devices & ((uint64_t)1 << id))
            out[k++] = id;
    if (host && k < n)
        out[k++] = HOST_ID;
    for (int32_t id = 0; id < MAX_IDS && k < n; id++)
        if (nodes & ((uint64_t)1 << id))
            out[k++] = id;
    while (k < n)
        out[k++] = NO_ID;
}

aclError managed_get_attr(const char *api, aclrtMemManagedRangeAttribute attribute, const void *ptr,
                          size_t size, void *data, size_t data_size)
{
    if (attribute < ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY ||
        attribute > ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "attribute %d is not an aclrtMemManagedRangeAttribute (1..8)",
                         (int)attribute);
    if (attribute == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY
            ? data_size == 0 || data_size % sizeof(int32_t) != 0
            : data_size != sizeof(int32_t))
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         attribute == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY
                             ? "dataSize %zu of attribute %d is not a non-zero multiple of 4"
                             : "dataSize %zu of attribute %d must be 4",
                         data_size, (int)attribute);
    size_t first, last;
    pthread_mutex_lock(&managed_lock);
    managed_range *r = pages_of(ptr, size, &first, &last);
    if (r == NULL) {
        pthread_mutex_unlock(&managed_lock);
        return range_error(api, "ptr", ptr, size);
    }
    int32_t value = 0;
    aclrtMemManagedLocation l;
    switch (attribute) {
    case ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
        value = 1;
        for (size_t i = first; i <= last; i++)
            if (!r->state[i].read_mostly)
                value = 0;
        break;
    case ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
        accessed_by(r, first, last, data, data_size / sizeof(int32_t));
        pthread_mutex_unlock(&managed_lock);
        return ACL_SUCCESS;
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
        l = common_location(r, first, last,
                            attribute == ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION);
        value = location_value(l);
        break;
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
        l = common_location(r, first, last,
                            attribute == ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE);
        value = (int32_t)l.type;
        break;
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
        l = common_location(r, first, last,
                            attribute == ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID);
        value = l.type == ACL_MEM_LOCATIONTYPE_HOST ? NO_ID : location_value(l);
        break;
    }
    pthread_mutex_unlock(&managed_lock);
    *(int32_t *)data = value;
    return ACL_SUCCESS;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&managed_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&managed_lock);
}

/* Told by memory.c's free, which never names this file. */
static void managed_freed(void *subject)
{
    const mem_block *b = subject;
    if (b->origin == ORIGIN_MANAGED)
        managed_forget((const void *)b->base);
}

__attribute__((constructor)) static void managed_init(void)
{
    fork_register(FORK_RANK_VMM, fork_prepare, fork_done, fork_done);
    lifecycle_observe(LIFECYCLE_MEMORY_FREED, managed_freed);
}
