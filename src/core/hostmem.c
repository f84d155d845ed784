/* Registered host memory (see hostmem.h). One mutex guards the list of
 * registrations; it is taken before the allocation registry's. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "backend/backend.h"
#include "core/errors.h"
#include "core/hostmem.h"
#include "core/lifecycle.h"
#include "core/memory.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/pages.h"

typedef struct registration {
    uintptr_t base;
    size_t size;
    uint32_t flags;
    bool on_pinned; /* inside aclrtMallocHost memory: nothing was registered with the backend */
    struct registration *next;
} registration;

static pthread_mutex_t hostmem_lock = PTHREAD_MUTEX_INITIALIZER;
static registration *registrations;

static registration *overlapping(uintptr_t base, size_t size)
{
    for (registration *r = registrations; r != NULL; r = r->next)
        if (base < r->base + r->size && r->base < base + size)
            return r;
    return NULL;
}

static registration *containing(uintptr_t p)
{
    for (registration *r = registrations; r != NULL; r = r->next)
        if (p >= r->base && p < r->base + r->size)
            return r;
    return NULL;
}

/* Decides what kind of memory [ptr, ptr + size) is: *on_pinned when it
 * lies inside one aclrtMallocHost block; refuses every other ACL memory. */
static aclError classify(const char *api, void *ptr, size_t size, uint32_t flags, bool *on_pinned)
{
    mem_block b;
    *on_pinned = false;
    if (!memory_overlaps(ptr, size, &b))
        return ACL_SUCCESS;
    if (b.origin == ORIGIN_MALLOC_HOST && (uintptr_t)ptr >= b.base &&
        (uintptr_t)ptr + size <= b.base + b.size) {
        if (flags & ACL_HOST_REG_PINNED)
            return acl_raise(api, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                             "%p is page-locked memory from aclrtMallocHost already; "
                             "ACL_HOST_REG_PINNED takes ordinary (pageable) memory",
                             ptr);
        *on_pinned = true;
        return ACL_SUCCESS;
    }
    if (b.origin == ORIGIN_REGISTERED)
        return acl_raise(api, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                         "[%p, +%zu) overlaps the registered range at %p", ptr, size,
                         (void *)b.base);
    return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                     "[%p, +%zu) overlaps %s at %p (%zu bytes); only host memory can be "
                     "registered, and a range must lie inside one allocation",
                     ptr, size, memory_where(&b), (void *)b.base, b.size);
}

/* What CUDA refuses to register, refused before any backend sees it (on
 * the host backend the first copy or fill would fault on it): a page that
 * is not mapped, one without access, and a read-only one unless the
 * registration is read-only. Where the process's maps cannot be read, the
 * backend's own checks decide. */
static aclError check_pages(const char *api, const void *ptr, size_t size, uint32_t flags)
{
    int prot = 0, need = (flags & ACL_HOST_REG_READONLY) ? PROT_READ : PROT_READ | PROT_WRITE;
    switch (pages_protection(ptr, size, &prot)) {
    case PAGES_UNKNOWN:
        return ACL_SUCCESS;
    case PAGES_UNMAPPED:
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "[%p, +%zu) is not all mapped memory: part of it is no memory at all", ptr,
                         size);
    case PAGES_MAPPED:
        break;
    }
    if (!(prot & PROT_READ))
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "[%p, +%zu) has pages the process may not access (PROT_NONE): only "
                         "readable memory can be registered",
                         ptr, size);
    if ((prot & need) != need)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "[%p, +%zu) has read-only pages: register them read-only "
                         "(ACL_HOST_REG_READONLY, ACL_HOST_REGISTER_READONLY)",
                         ptr, size);
    return ACL_SUCCESS;
}

aclError hostmem_register(const char *api, int32_t phys, void *ptr, uint64_t size, uint32_t flags,
                          void **dev_ptr)
{
    const backend_host_register_ops *ops = backend()->host_register;
    if ((uintptr_t)ptr % HOSTMEM_ALIGN != 0)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "ptr %p is not aligned to a 4 KiB page",
                         ptr);
    if (size > SIZE_MAX - HOSTMEM_ALIGN || (uintptr_t)ptr > UINTPTR_MAX - size)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "size %llu runs past the address space",
                         (unsigned long long)size);
    registration *r = malloc(sizeof *r);
    if (r == NULL)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    *r = (registration){.base = (uintptr_t)ptr, .size = (size_t)size, .flags = flags};

    pthread_mutex_lock(&hostmem_lock);
    aclError ret;
    registration *old = overlapping(r->base, r->size);
    if (old != NULL) {
        ret = acl_raise(api, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                        "[%p, +%llu) overlaps the range registered at %p (%zu bytes)", ptr,
                        (unsigned long long)size, (void *)old->base, old->size);
        goto fail;
    }
    ret = classify(api, ptr, r->size, flags, &r->on_pinned);
    if (ret != ACL_SUCCESS)
        goto fail;
    if (!r->on_pinned)
        ret = check_pages(api, ptr, r->size, flags);
    if (ret != ACL_SUCCESS)
        goto fail;
    if (!r->on_pinned) {
        bool read_only = (flags & ACL_HOST_REG_READONLY) != 0;
        ret = ops->register_range(phys, ptr, r->size, flags);
        if (ret != ACL_SUCCESS) {
            ret = acl_raise(api, ret, "cannot register [%p, +%llu): %s", ptr,
                            (unsigned long long)size, acl_error_text(ret));
            goto fail;
        }
        ret = memory_register(&(mem_block){.base = r->base,
                                           .size = r->size,
                                           .capacity = r->size,
                                           .kind = MEM_HOST_PINNED,
                                           .origin = ORIGIN_REGISTERED,
                                           .phys = -1,
                                           .owner = r,
                                           .flags = read_only ? MEM_FLAG_READ_ONLY : 0});
        if (ret != ACL_SUCCESS) {
            (void)ops->unregister_range(phys, ptr);
            ret = acl_raise(api, ret, "cannot record the registration of [%p, +%llu)", ptr,
                            (unsigned long long)size);
            goto fail;
        }
    }
    if (dev_ptr != NULL) {
        ret = ops->device_pointer(phys, ptr, dev_ptr);
        if (ret != ACL_SUCCESS) {
            if (!r->on_pinned) {
                mem_block gone;
                (void)memory_unregister(ptr, ORIGIN_REGISTERED, &gone);
                (void)ops->unregister_range(phys, ptr);
            }
            ret = acl_raise(api, ret, "no device address for %p: %s", ptr, acl_error_text(ret));
            goto fail;
        }
    }
    r->next = registrations;
    registrations = r;
    pthread_mutex_unlock(&hostmem_lock);
    ACL_LOG(LOG_DEBUG, "%p: %llu bytes registered (flags 0x%x%s)", ptr, (unsigned long long)size,
            (unsigned)flags, r->on_pinned ? ", page-locked already" : "");
    return ACL_SUCCESS;

fail:
    pthread_mutex_unlock(&hostmem_lock);
    free(r);
    return ret;
}

aclError hostmem_unregister(const char *api, int32_t phys, void *ptr)
{
    pthread_mutex_lock(&hostmem_lock);
    registration **at = &registrations;
    while (*at != NULL && (*at)->base != (uintptr_t)ptr)
        at = &(*at)->next;
    registration *r = *at;
    if (r == NULL) {
        registration *in = containing((uintptr_t)ptr);
        pthread_mutex_unlock(&hostmem_lock);
        if (in != NULL)
            return acl_raise(api, ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
                             "%p lies inside the range registered at %p; unregister that "
                             "address",
                             ptr, (void *)in->base);
        return acl_raise(api, ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
                         "%p was not registered with aclrtHostRegister(V2)", ptr);
    }
    if (!r->on_pinned) {
        aclError ret = backend()->host_register->unregister_range(phys, ptr);
        if (ret != ACL_SUCCESS) {
            pthread_mutex_unlock(&hostmem_lock);
            return acl_raise(api, ret, "cannot unregister %p: %s", ptr, acl_error_text(ret));
        }
        mem_block gone;
        (void)memory_unregister(ptr, ORIGIN_REGISTERED, &gone);
    }
    *at = r->next;
    pthread_mutex_unlock(&hostmem_lock);
    free(r);
    return ACL_SUCCESS;
}

aclError hostmem_device_pointer(const char *api, int32_t phys, void *p, void **dev_ptr)
{
    pthread_mutex_lock(&hostmem_lock);
    registration *r = containing((uintptr_t)p);
    bool mapped = r != NULL && (r->flags & ACL_HOST_REG_MAPPED) != 0;
    pthread_mutex_unlock(&hostmem_lock);
    if (!mapped)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         r != NULL ? "%p is registered without ACL_HOST_REG_MAPPED"
                                   : "%p lies in no range registered for device access",
                         p);
    aclError ret = backend()->host_register->device_pointer(phys, p, dev_ptr);
    if (ret != ACL_SUCCESS)
        return acl_raise(api, ret, "no device address for %p: %s", p, acl_error_text(ret));
    return ACL_SUCCESS;
}

/* Forgets registrations inside [ptr, ptr + size), page-locked memory of
 * ours that is being freed. */
static void hostmem_forget(const void *ptr, size_t size)
{
    pthread_mutex_lock(&hostmem_lock);
    for (registration **at = &registrations; *at != NULL;) {
        registration *r = *at;
        if (r->on_pinned && r->base >= (uintptr_t)ptr && r->base < (uintptr_t)ptr + size) {
            *at = r->next;
            free(r);
        } else {
            at = &r->next;
        }
    }
    pthread_mutex_unlock(&hostmem_lock);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&hostmem_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&hostmem_lock);
}

/* Told by memory.c's free, which never names this file. */
static void hostmem_freed(void *subject)
{
    const mem_block *b = subject;
    if (b->origin == ORIGIN_MALLOC_HOST)
        hostmem_forget((const void *)b->base, b->size);
}

__attribute__((constructor)) static void hostmem_init(void)
{
    fork_register(FORK_RANK_VMM, fork_prepare, fork_done, fork_done);
    lifecycle_observe(LIFECYCLE_MEMORY_FREED, hostmem_freed);
}
