#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/lifecycle.h"
#include "core/statecb.h"
#include "core/stream.h"
#include "util/fork.h"

enum { NAME_MAX_LEN = 255, KINDS = STATECB_TASK_ABORT + 1 };

typedef struct entry {
    char *name;
    void (*fn)(void);
    void *args;
} entry;

typedef struct registry {
    entry *list; /* sorted by name */
    size_t count, cap;
} registry;

static pthread_mutex_t statecb_lock = PTHREAD_MUTEX_INITIALIZER;
static registry registries[KINDS];
/* Each registry's count, also readable without the lock: every stream's
 * creation and destruction asks, and most programs register nothing. */
static atomic_size_t registered[KINDS];

aclError statecb_register(const char *api, statecb_kind kind, const char *name, void (*fn)(void),
                          void *args)
{
    if (!name || !*name)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "regName is NULL or empty");
    if (strnlen(name, NAME_MAX_LEN + 1) > NAME_MAX_LEN)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "regName is longer than %d bytes",
                         NAME_MAX_LEN);
    registry *r = &registries[kind];
    pthread_mutex_lock(&statecb_lock);
    size_t at = 0;
    while (at < r->count && strcmp(r->list[at].name, name) < 0)
        at++;
    bool present = at < r->count && strcmp(r->list[at].name, name) == 0;
    aclError err = ACL_SUCCESS;
    if (!fn) {
        if (present) {
            free(r->list[at].name);
            memmove(&r->list[at], &r->list[at + 1], (r->count - at - 1) * sizeof *r->list);
            r->count--;
        }
    } else if (present) {
        err = ACL_ERROR_RT_PARAM_INVALID;
    } else {
        char *copy = strdup(name);
        if (copy && r->count == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 8;
            entry *grown = realloc(r->list, cap * sizeof *grown);
            if (grown) {
                r->list = grown;
                r->cap = cap;
            }
        }
        if (!copy || r->count == r->cap) {
            free(copy);
            err = ACL_ERROR_RT_MEMORY_ALLOCATION;
        } else {
            memmove(&r->list[at + 1], &r->list[at], (r->count - at) * sizeof *r->list);
            r->list[at] = (entry){.name = copy, .fn = fn, .args = args};
            r->count++;
        }
    }
    atomic_store_explicit(&registered[kind], r->count, memory_order_release);
    pthread_mutex_unlock(&statecb_lock);
    if (err == ACL_ERROR_RT_PARAM_INVALID)
        return acl_raise(api, err,
                         "a callback is registered as \"%s\" already; unregister it first (NULL "
                         "callback)",
                         name);
    if (err)
        return acl_raise(api, err, "out of host memory");
    return ACL_SUCCESS;
}

/* A copy of a registry's entries, for calling without the lock (names are
 * not needed). NULL when there are none. */
static entry *snapshot(statecb_kind kind, size_t *count)
{
    registry *r = &registries[kind];
    *count = 0;
    if (atomic_load_explicit(&registered[kind], memory_order_acquire) == 0)
        return NULL;
    pthread_mutex_lock(&statecb_lock);
    entry *copy = r->count ? malloc(r->count * sizeof *copy) : NULL;
    *count = copy ? r->count : 0;
    for (size_t i = 0; i < *count; i++)
        copy[i] = (entry){.fn = r->list[i].fn, .args = r->list[i].args};
    pthread_mutex_unlock(&statecb_lock);
    return copy;
}

void statecb_device(int32_t device, aclrtDeviceState state)
{
    size_t count;
    entry *e = snapshot(STATECB_DEVICE, &count);
    for (size_t i = 0; i < count; i++)
        ((aclrtDeviceStateCallback)e[i].fn)(device, state, e[i].args);
    free(e);
}

int32_t statecb_task_abort(int32_t device, aclrtDeviceTaskAbortStage stage, uint32_t timeout)
{
    size_t count;
    entry *e = snapshot(STATECB_TASK_ABORT, &count);
    int32_t first = 0;
    for (size_t i = 0; i < count; i++) {
        int32_t ret = ((aclrtDeviceTaskAbortCallback)e[i].fn)(device, stage, timeout, e[i].args);
        if (ret && !first)
            first = ret;
    }
    free(e);
    return first;
}

static void stream_state(acl_stream *s, aclrtStreamState state)
{
    if (atomic_load_explicit(&registered[STATECB_STREAM], memory_order_acquire) == 0)
        return; /* the common case, on every stream's creation and destruction */
    size_t count;
    entry *e = snapshot(STATECB_STREAM, &count);
    aclrtStream handle = handle_of(&s->obj);
    for (size_t i = 0; i < count; i++)
        ((aclrtStreamStateCallback)e[i].fn)(handle, state, e[i].args);
    free(e);
}

/* The handle is still live after creation; before destruction it is
 * withdrawn already, and identifies the stream the callback was told of. */
static void stream_made(void *subject)
{
    stream_state(subject, ACL_RT_STREAM_STATE_CREATE_POST);
}

static void stream_going(void *subject)
{
    stream_state(subject, ACL_RT_STREAM_STATE_DESTROY_PRE);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&statecb_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&statecb_lock);
}

__attribute__((constructor)) static void statecb_init(void)
{
    lifecycle_observe(LIFECYCLE_STREAM_MADE, stream_made);
    lifecycle_observe(LIFECYCLE_STREAM_GONE, stream_going);
    fork_register(FORK_RANK_CALLBACKS, fork_prepare, fork_done, fork_done);
}
