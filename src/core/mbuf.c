/* Shared buffers (see mbuf.h). One mutex guards every buffer's fields and
 * the chains; it is taken before the allocation registry's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/handle.h"
#include "core/mbuf.h"
#include "core/memory.h"
#include "util/fork.h"

#define MBUF_SIZE_MAX ((size_t)4 << 30)

typedef struct mbuf_area {
    void *ptr;
    size_t size;
    atomic_uint refs; /* buffers on it */
} mbuf_area;

typedef struct mbuf {
    object obj;
    mbuf_area *area;
    size_t data_len;
    unsigned char user[MBUF_USER_DATA];
    struct mbuf *next;  /* the next buffer of its chain */
    struct mbuf *head;  /* its chain's head, NULL when it is a head (or alone) */
    uint32_t chain_len; /* a head's: buffers in its chain, itself included */
} mbuf;

static pthread_mutex_t mbuf_lock = PTHREAD_MUTEX_INITIALIZER;

static void area_put(mbuf_area *a)
{
    if (atomic_fetch_sub(&a->refs, 1) != 1)
        return;
    (void)memory_free("aclrtFreeBuf", a->ptr, ORIGIN_BIT(ORIGIN_MBUF));
    free(a);
}

static void mbuf_free_object(object *o)
{
    mbuf *m = (mbuf *)o;
    area_put(m->area);
    free(m);
}

/* The live buffer behind h, borrowed (object_put). Raises. */
static aclError mbuf_get(const char *api, const char *role, aclrtMbuf h, mbuf **out)
{
    mbuf *m = (mbuf *)handle_get(h, HANDLE_MBUF);
    if (m == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p is not a live buffer (never made by aclrtAllocBuf or "
                         "aclrtCopyBufRef, or freed)%s",
                         role, h, handle_kind_of(h) ? " (it is another kind of handle)" : "");
    *out = m;
    return ACL_SUCCESS;
}

static aclError publish(const char *api, mbuf *m, aclrtMbuf *out)
{
    m->chain_len = 1;
    aclError ret = handle_publish(&m->obj, HANDLE_MBUF, mbuf_free_object);
    if (ret != ACL_SUCCESS) {
        area_put(m->area);
        free(m);
        return acl_raise(api, ret, "no handle for a new buffer");
    }
    *out = handle_of(&m->obj);
    return ACL_SUCCESS;
}

aclError mbuf_alloc(const char *api, aclrtMbuf *out, size_t size)
{
    if (size > MBUF_SIZE_MAX)
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID, "size %zu exceeds 4 GiB", size);
    mbuf *m = calloc(1, sizeof *m);
    mbuf_area *a = calloc(1, sizeof *a);
    if (m == NULL || a == NULL) {
        free(m);
        free(a);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    }
    aclError ret = memory_alloc_host(api, &a->ptr, size, ORIGIN_MBUF);
    if (ret != ACL_SUCCESS) {
        free(m);
        free(a);
        return ret;
    }
    a->size = size;
    atomic_init(&a->refs, 1);
    m->area = a;
    return publish(api, m, out);
}

aclError mbuf_free(const char *api, aclrtMbuf h)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "buf", h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&mbuf_lock);
    if (m->head != NULL) {
        pthread_mutex_unlock(&mbuf_lock);
        object_put(&m->obj);
        return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                         "buf %p is in the chain of %p; freeing the chain's head frees it", h,
                         handle_of(&m->head->obj));
    }
    if (!object_take(&m->obj)) {
        pthread_mutex_unlock(&mbuf_lock);
        object_put(&m->obj);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "buf %p was freed by another thread", h);
    }
    /* The rest of the chain goes with its head. */
    mbuf *rest = m->next;
    m->next = NULL;
    for (mbuf *b = rest; b != NULL; b = b->next) {
        b->head = NULL;
        (void)object_take(&b->obj);
    }
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    return ACL_SUCCESS;
}

aclError mbuf_data(const char *api, aclrtMbuf h, void **data, size_t *size)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "buf", h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    *data = m->area->ptr;
    *size = m->area->size;
    object_put(&m->obj);
    return ACL_SUCCESS;
}

aclError mbuf_data_len(const char *api, aclrtMbuf h, size_t *get, const size_t *set)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "buf", h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&mbuf_lock);
    if (set != NULL && *set > m->area->size)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "len %zu exceeds the buffer's data area of %zu bytes", *set, m->area->size);
    else if (set != NULL)
        m->data_len = *set;
    else
        *get = m->data_len;
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    return ret;
}

aclError mbuf_user_data(const char *api, aclrtMbuf h, void *to, const void *from, size_t size,
                        size_t offset)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "buf", h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&mbuf_lock);
    if (to != NULL)
        memcpy(to, m->user + offset, size);
    else
        memcpy(m->user + offset, from, size);
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    return ACL_SUCCESS;
}

aclError mbuf_copy_ref(const char *api, aclrtMbuf h, aclrtMbuf *out)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "buf", h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    mbuf *copy = calloc(1, sizeof *copy);
    if (copy == NULL) {
        object_put(&m->obj);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    }
    pthread_mutex_lock(&mbuf_lock);
    copy->area = m->area;
    atomic_fetch_add(&m->area->refs, 1);
    copy->data_len = m->data_len;
    memcpy(copy->user, m->user, sizeof copy->user);
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    return publish(api, copy, out);
}

aclError mbuf_chain_append(const char *api, aclrtMbuf head_h, aclrtMbuf buf_h)
{
    mbuf *head = NULL, *m = NULL;
    aclError ret = mbuf_get(api, "headBuf", head_h, &head);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = mbuf_get(api, "buf", buf_h, &m);
    if (ret != ACL_SUCCESS) {
        object_put(&head->obj);
        return ret;
    }
    pthread_mutex_lock(&mbuf_lock);
    if (head->head != NULL)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "headBuf %p is inside the chain of %p, not a chain's head", head_h,
                        handle_of(&head->head->obj));
    else if (m == head || m->head != NULL)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        m == head ? "buf is headBuf itself" : "buf %p belongs to a chain already",
                        buf_h);
    else if (head->chain_len + m->chain_len > MBUF_CHAIN_MAX)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "the chain would hold %u buffers; at most %d may be chained",
                        (unsigned)(head->chain_len + m->chain_len), MBUF_CHAIN_MAX);
    if (ret == ACL_SUCCESS) {
        mbuf *tail = head;
        while (tail->next != NULL)
            tail = tail->next;
        tail->next = m;
        for (mbuf *b = m; b != NULL; b = b->next)
            b->head = head;
        head->chain_len += m->chain_len;
        m->chain_len = 1;
    }
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    object_put(&head->obj);
    return ret;
}

aclError mbuf_chain_count(const char *api, aclrtMbuf head_h, uint32_t *num)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "headBuf", head_h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&mbuf_lock);
    uint32_t n = 0;
    for (mbuf *b = m; b != NULL; b = b->next)
        n++;
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    *num = n;
    return ACL_SUCCESS;
}

aclError mbuf_chain_get(const char *api, aclrtMbuf head_h, uint32_t index, aclrtMbuf *out)
{
    mbuf *m = NULL;
    aclError ret = mbuf_get(api, "headBuf", head_h, &m);
    if (ret != ACL_SUCCESS)
        return ret;
    pthread_mutex_lock(&mbuf_lock);
    mbuf *b = m;
    uint32_t n = 0;
    for (; b != NULL && n < index; b = b->next)
        n++;
    if (b == NULL)
        ret = acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                        "index %u is beyond the chain's %u buffers", (unsigned)index, (unsigned)n);
    else
        *out = handle_of(&b->obj);
    pthread_mutex_unlock(&mbuf_lock);
    object_put(&m->obj);
    return ret;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&mbuf_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&mbuf_lock);
}

__attribute__((constructor)) static void mbuf_init(void)
{
    fork_register(FORK_RANK_VMM, fork_prepare, fork_done, fork_done);
}
