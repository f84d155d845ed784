/* Sinks and the registry of open ones (sink.h). */
#include <pthread.h>
#include <stdio.h>

#include "core/errors.h"
#include "core/sink.h"
#include "util/fork.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sink *open_sinks;
atomic_int sink_open_count;
static atomic_uint_fast64_t next_sink_id = 1;

void sink_init(sink *k, const sink_ops *ops)
{
    k->ops = ops;
    atomic_init(&k->refs, 1);
    k->id = atomic_fetch_add_explicit(&next_sink_id, 1, memory_order_relaxed);
    k->next = NULL;
}

bool sink_ref(sink *k)
{
    int refs = atomic_load(&k->refs);
    while (refs > 0 && !atomic_compare_exchange_weak(&k->refs, &refs, refs + 1))
        ;
    return refs > 0;
}

static void sink_free(object *o)
{
    sink *k = (sink *)o;
    k->ops->free(k);
}

void sink_unref(sink *k)
{
    if (atomic_fetch_sub(&k->refs, 1) == 1)
        object_retire(&k->reclaim, sink_free);
}

void sink_register(sink *k)
{
    pthread_mutex_lock(&registry_lock);
    k->next = open_sinks;
    open_sinks = k;
    atomic_fetch_add(&sink_open_count, 1);
    pthread_mutex_unlock(&registry_lock);
}

void sink_withdraw(sink *k)
{
    pthread_mutex_lock(&registry_lock);
    for (sink **p = &open_sinks; *p; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            atomic_fetch_sub(&sink_open_count, 1);
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

sink *sink_find(uint64_t id)
{
    sink *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (sink *k = open_sinks; k; k = k->next) {
        if (k->id == id) {
            found = k;
            atomic_fetch_add(&found->refs, 1); /* the registry holds one */
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

bool sink_open(uint64_t id)
{
    sink *k = sink_find(id);
    if (k)
        sink_unref(k);
    return k != NULL;
}

sink *sink_of(acl_stream *s)
{
    borrow_begin(); /* k stays readable meanwhile, even if its close just dropped it */
    sink *k = atomic_load_explicit(&s->sink, memory_order_seq_cst);
    if (k && !sink_ref(k))
        k = NULL;
    borrow_end();
    return k;
}

aclError sink_admit(const char *api, acl_stream *s, const task *t)
{
    if (t->flags & TASK_PAGEABLE) {
        char what[96];
        snprintf(what, sizeof what, "%s through pageable host memory", stream_task_name(t->kind));
        aclError err = sink_check_unsafe(api, what);
        if (err)
            return err;
    }
    if (__builtin_expect(stream_sink(s) == NULL, 1))
        return ACL_SUCCESS;
    borrow_begin();
    sink *k = atomic_load_explicit(&s->sink, memory_order_seq_cst);
    aclError err = k ? k->ops->admit(k, api, s, t) : ACL_SUCCESS;
    borrow_end();
    return err;
}

aclError sink_keep(acl_stream *s, void *ptr, void (*release)(void *))
{
    sink *k = sink_of(s);
    if (!k)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    aclError err = k->ops->keep(k, s, ptr, release);
    sink_unref(k);
    return err;
}

aclError sink_event_wait(const char *api, acl_stream *s, const task *t, uint64_t id)
{
    sink *k = sink_find(id);
    if (!k)
        return ACL_SUCCESS;
    aclError err = k->ops->wait(k, api, s, t);
    sink_unref(k);
    return err;
}

aclError sink_check_unsafe_open(const char *api, const char *what)
{
    char why[256] = "";
    bool forbidden = false;
    pthread_mutex_lock(&registry_lock);
    for (sink *k = open_sinks; k; k = k->next)
        forbidden |= k->ops->forbids(k, what, why, sizeof why);
    pthread_mutex_unlock(&registry_lock);
    if (!forbidden)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "%s is not allowed %s", what, why);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&registry_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&registry_lock);
}

__attribute__((constructor)) static void sink_registry_init(void)
{
    fork_register(FORK_RANK_KERNELS + 1, fork_prepare, fork_done, fork_done);
}
