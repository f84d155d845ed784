/* Custom allocators (see allocator.h). One mutex guards the descriptors'
 * fields and the per-stream registrations. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/allocator.h"
#include "core/errors.h"
#include "core/handle.h"
#include "core/lifecycle.h"
#include "util/fork.h"

typedef struct allocator_desc {
    object obj;
    allocator_fns fns;
} allocator_desc;

typedef struct registration {
    const acl_stream *stream;
    allocator_fns fns;
    struct registration *next;
} registration;

static pthread_mutex_t allocator_lock = PTHREAD_MUTEX_INITIALIZER;
static registration *registrations;
/* How many registrations there are, also readable without the lock: every
 * stream's destruction asks, and most programs register none. */
static atomic_size_t registration_count;

static void desc_free(object *o)
{
    free(o);
}

aclrtAllocatorDesc allocator_desc_create(const char *api)
{
    allocator_desc *d = calloc(1, sizeof *d);
    if (d == NULL) {
        (void)acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
        return NULL;
    }
    aclError ret = handle_publish(&d->obj, HANDLE_ALLOCATOR_DESC, desc_free);
    if (ret != ACL_SUCCESS) {
        free(d);
        (void)acl_raise(api, ret, "no handle for a new allocator descriptor");
        return NULL;
    }
    return handle_of(&d->obj);
}

static aclError desc_get(const char *api, aclrtAllocatorDesc h, allocator_desc **out)
{
    allocator_desc *d = (allocator_desc *)handle_get(h, HANDLE_ALLOCATOR_DESC);
    if (d == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "allocatorDesc %p is not a live allocator descriptor (never made by "
                         "aclrtAllocatorCreateDesc, or destroyed)%s",
                         h, handle_kind_of(h) ? " (it is another kind of handle)" : "");
    *out = d;
    return ACL_SUCCESS;
}

aclError allocator_desc_destroy(const char *api, aclrtAllocatorDesc h)
{
    allocator_desc *d = (allocator_desc *)handle_take(h, HANDLE_ALLOCATOR_DESC);
    if (d == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "allocatorDesc %p is not a live allocator descriptor", h);
    object_put(&d->obj);
    return ACL_SUCCESS;
}

aclError allocator_desc_set(const char *api, aclrtAllocatorDesc h, int which, void *value)
{
    allocator_desc *d = NULL;
    aclError ret = desc_get(api, h, &d);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&allocator_lock);
    switch (which) {
    case ALLOC_FIELD_OBJ:
        d->fns.obj = value;
        break;
    case ALLOC_FIELD_ALLOC:
        d->fns.alloc = (aclrtAllocatorAllocFunc)value;
        break;
    case ALLOC_FIELD_FREE:
        d->fns.free = (aclrtAllocatorFreeFunc)value;
        break;
    case ALLOC_FIELD_ADVISE:
        d->fns.alloc_advise = (aclrtAllocatorAllocAdviseFunc)value;
        break;
    default:
        d->fns.get_addr = (aclrtAllocatorGetAddrFromBlockFunc)value;
        break;
    }
    pthread_mutex_unlock(&allocator_lock);
    object_put(&d->obj);
    return ACL_SUCCESS;
}

aclError allocator_register(const char *api, acl_stream *s, aclrtAllocatorDesc h)
{
    allocator_desc *d = NULL;
    aclError ret = desc_get(api, h, &d);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&allocator_lock);
    allocator_fns fns = d->fns;
    pthread_mutex_unlock(&allocator_lock);
    object_put(&d->obj);
    const char *missing = fns.obj == NULL        ? "allocatorDesc->obj"
                          : fns.alloc == NULL    ? "allocatorDesc->allocFunc"
                          : fns.free == NULL     ? "allocatorDesc->freeFunc"
                          : fns.get_addr == NULL ? "allocatorDesc->getAddrFromBlockFunc"
                                                 : NULL;
    if (missing != NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL (set it on the descriptor)",
                         missing);
    fns.desc = h;
    registration *r = malloc(sizeof *r);
    if (r == NULL)
        return acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    pthread_mutex_lock(&allocator_lock);
    registration **at = &registrations;
    while (*at != NULL && (*at)->stream != s)
        at = &(*at)->next;
    if (*at != NULL) {
        (*at)->fns = fns; /* the last registration wins */
        free(r);
    } else {
        *r = (registration){s, fns, NULL};
        *at = r;
        atomic_fetch_add_explicit(&registration_count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&allocator_lock);
    return ACL_SUCCESS;
}

void allocator_unregister(acl_stream *s)
{
    if (atomic_load_explicit(&registration_count, memory_order_relaxed) == 0)
        return;
    pthread_mutex_lock(&allocator_lock);
    registration **at = &registrations;
    while (*at != NULL && (*at)->stream != s)
        at = &(*at)->next;
    registration *r = *at;
    if (r != NULL) {
        *at = r->next;
        atomic_fetch_sub_explicit(&registration_count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&allocator_lock);
    free(r);
}

void allocator_unregister_handle(aclrtStream stream)
{
    acl_stream *s = (acl_stream *)handle_get(stream, HANDLE_STREAM);
    if (s == NULL)
        return;
    allocator_unregister(s);
    stream_put(s);
}

bool allocator_of(const acl_stream *s, allocator_fns *out)
{
    if (atomic_load_explicit(&registration_count, memory_order_relaxed) == 0)
        return false;
    pthread_mutex_lock(&allocator_lock);
    registration *r = registrations;
    while (r != NULL && r->stream != s)
        r = r->next;
    if (r != NULL)
        *out = r->fns;
    pthread_mutex_unlock(&allocator_lock);
    return r != NULL;
}

static void stream_gone(void *subject)
{
    allocator_unregister(subject);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&allocator_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&allocator_lock);
}

__attribute__((constructor)) static void allocator_init(void)
{
    lifecycle_observe(LIFECYCLE_STREAM_GONE, stream_gone);
    fork_register(FORK_RANK_VMM, fork_prepare, fork_done, fork_done);
}
