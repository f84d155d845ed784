/* Tensor data transfer channels (see tdt_channel.h). The registry lock is
 * taken before a channel's. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/handle.h"
#include "core/tdt_channel.h"
#include "util/clock.h"

typedef struct channel {
    uint32_t device;
    char name[TDT_NAME_MAX];
    size_t capacity;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a record came or went, or the channel stopped */
    tdt_record **ring;
    size_t head, count;
    bool stopped;
    unsigned handles; /* open handles (under the registry lock) */
    struct channel *next;
} channel;

typedef struct channel_handle {
    object obj;
    channel *chan;
    unsigned users; /* threads inside a send or receive (under chan->lock) */
    bool closing;   /* a destroy won: no new users */
} channel_handle;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static channel *channels;

static void channel_free(channel *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->ring[(c->head + i) % c->capacity]);
    pthread_cond_destroy(&c->changed);
    pthread_mutex_destroy(&c->lock);
    free(c->ring);
    free(c);
}

static channel *channel_new(uint32_t device, const char *name, size_t capacity)
{
    channel *c = calloc(1, sizeof *c);
    if (c == NULL || (c->ring = calloc(capacity, sizeof *c->ring)) == NULL) {
        free(c);
        return NULL;
    }
    c->device = device;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->capacity = capacity;
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c->changed, &attr);
    pthread_condattr_destroy(&attr);
    return c;
}

static void handle_free(object *o)
{
    free(o);
}

aclError tdt_channel_open(const char *api, uint32_t device, const char *name, size_t capacity,
                          acltdtChannelHandle **out)
{
    channel_handle *h = calloc(1, sizeof *h);
    if (h == NULL)
        return acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&registry_lock);
    channel *c = channels;
    while (c && (c->device != device || strcmp(c->name, name) != 0))
        c = c->next;
    if (c != NULL && c->capacity != capacity) {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "channel \"%s\" of device %u is open with capacity %zu, not %zu", name,
                        device, c->capacity, capacity);
    } else if (c == NULL) {
        c = channel_new(device, name, capacity);
        if (c == NULL) {
            ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
        } else {
            c->next = channels;
            channels = c;
        }
    }
    if (ret == ACL_SUCCESS) {
        h->chan = c;
        ret = handle_publish(&h->obj, HANDLE_TDT_CHANNEL, handle_free);
        if (ret != ACL_SUCCESS)
            (void)acl_raise(api, ret, "the handle table is full");
        else
            c->handles++;
    }
    pthread_mutex_unlock(&registry_lock);
    if (ret != ACL_SUCCESS) {
        free(h);
        return ret;
    }
    *out = handle_of(&h->obj);
    return ACL_SUCCESS;
}

static channel_handle *handle_lookup(const char *api, const acltdtChannelHandle *h)
{
    channel_handle *ch = (channel_handle *)handle_get(h, HANDLE_TDT_CHANNEL);
    if (ch == NULL)
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "handle %p is not a live channel (never created, or destroyed)",
                        (const void *)h);
    return ch;
}

aclError tdt_channel_close(const char *api, acltdtChannelHandle *h)
{
    channel_handle *ch = handle_lookup(api, h);
    if (ch == NULL)
        return ACL_ERROR_INVALID_PARAM;
    channel *c = ch->chan;
    pthread_mutex_lock(&c->lock);
    unsigned users = ch->users;
    bool closing = ch->closing;
    if (users == 0)
        ch->closing = true;
    pthread_mutex_unlock(&c->lock);
    if (closing || (users == 0 && !object_take(&ch->obj))) {
        object_put(&ch->obj);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the channel is being destroyed already");
    }
    if (users > 0) {
        object_put(&ch->obj);
        return acl_raise(api, ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED,
                         "%u threads are blocked in channel \"%s\": stop it first "
                         "(acltdtStopChannel)",
                         users, c->name);
    }
    object_put(&ch->obj);
    /* Calls that looked the handle up before the destroy see `closing`
     * and leave: once they have, nothing reaches the channel through it. */
    handle_wait_readers();
    pthread_mutex_lock(&registry_lock);
    bool last = --c->handles == 0;
    if (last)
        for (channel **link = &channels; *link; link = &(*link)->next)
            if (*link == c) {
                *link = c->next;
                break;
            }
    pthread_mutex_unlock(&registry_lock);
    if (last)
        channel_free(c);
    return ACL_SUCCESS;
}

/* Looks h up and counts the caller as a user of it (tdt_channel_leave). */
static channel_handle *enter(const char *api, const acltdtChannelHandle *h)
{
    channel_handle *ch = handle_lookup(api, h);
    if (ch == NULL)
        return NULL;
    pthread_mutex_lock(&ch->chan->lock);
    bool closing = ch->closing;
    if (!closing)
        ch->users++;
    pthread_mutex_unlock(&ch->chan->lock);
    if (closing) {
        object_put(&ch->obj);
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM, "the channel is being destroyed");
        return NULL;
    }
    return ch;
}

static void leave(channel_handle *ch)
{
    pthread_mutex_lock(&ch->chan->lock);
    ch->users--;
    pthread_mutex_unlock(&ch->chan->lock);
    object_put(&ch->obj);
}

aclError tdt_channel_stop(const char *api, acltdtChannelHandle *h)
{
    channel_handle *ch = enter(api, h);
    if (ch == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&ch->chan->lock);
    ch->chan->stopped = true;
    pthread_cond_broadcast(&ch->chan->changed);
    pthread_mutex_unlock(&ch->chan->lock);
    leave(ch);
    return ACL_SUCCESS;
}

aclError tdt_channel_clean(const char *api, acltdtChannelHandle *h)
{
    channel_handle *ch = enter(api, h);
    if (ch == NULL)
        return ACL_ERROR_INVALID_PARAM;
    channel *c = ch->chan;
    pthread_mutex_lock(&c->lock);
    for (; c->count > 0; c->count--) {
        free(c->ring[c->head]);
        c->head = (c->head + 1) % c->capacity;
    }
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    leave(ch);
    return ACL_SUCCESS;
}

/* Waits on c (its lock held) until ready() or the timeout; false on expiry.
 * The caller's read section is suspended meanwhile: the handle stays live
 * because a destroy refuses while it has users. */
static bool wait_until(channel *c, bool (*ready)(const channel *), int32_t timeout)
{
    if (ready(c))
        return true;
    if (timeout == 0)
        return false;
    struct timespec deadline;
    if (timeout > 0)
        deadline_after_ms(&deadline, timeout);
    unsigned saved = borrow_suspend();
    bool ok = true;
    while (!ready(c)) {
        if (timeout < 0) {
            pthread_cond_wait(&c->changed, &c->lock);
        } else if (pthread_cond_timedwait(&c->changed, &c->lock, &deadline) == ETIMEDOUT) {
            ok = ready(c);
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    borrow_resume(saved);
    pthread_mutex_lock(&c->lock);
    return ok || ready(c);
}

static bool can_send(const channel *c)
{
    return c->stopped || c->count < c->capacity;
}

static bool can_receive(const channel *c)
{
    return c->stopped || c->count > 0;
}

aclError tdt_channel_send(const char *api, const acltdtChannelHandle *h, tdt_record *rec,
                          int32_t timeout)
{
    channel_handle *ch = enter(api, h);
    if (ch == NULL)
        return ACL_ERROR_INVALID_PARAM;
    channel *c = ch->chan;
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&c->lock);
    bool ready = wait_until(c, can_send, timeout);
    if (c->stopped) {
        ret = acl_raise(api, ACL_ERROR_FAILURE, "channel \"%s\" is stopped", c->name);
    } else if (!ready || c->count == c->capacity) {
        ret = acl_raise(api, ACL_ERROR_RT_QUEUE_FULL,
                        "channel \"%s\" is full (%zu datasets) after %d ms", c->name, c->capacity,
                        (int)timeout);
    } else {
        c->ring[(c->head + c->count) % c->capacity] = rec;
        c->count++;
        pthread_cond_broadcast(&c->changed);
    }
    pthread_mutex_unlock(&c->lock);
    leave(ch);
    return ret;
}

aclError tdt_channel_receive(const char *api, const acltdtChannelHandle *h, tdt_record **rec,
                             int32_t timeout)
{
    channel_handle *ch = enter(api, h);
    if (ch == NULL)
        return ACL_ERROR_INVALID_PARAM;
    channel *c = ch->chan;
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&c->lock);
    (void)wait_until(c, can_receive, timeout);
    if (c->count > 0) {
        *rec = c->ring[c->head];
        c->head = (c->head + 1) % c->capacity;
        c->count--;
        pthread_cond_broadcast(&c->changed);
    } else if (c->stopped) {
        ret = acl_raise(api, ACL_ERROR_FAILURE, "channel \"%s\" is stopped and empty", c->name);
    } else {
        ret = acl_raise(api, ACL_ERROR_RT_QUEUE_EMPTY, "channel \"%s\" is empty after %d ms",
                        c->name, (int)timeout);
    }
    pthread_mutex_unlock(&c->lock);
    leave(ch);
    return ret;
}

aclError tdt_channel_size(const char *api, const acltdtChannelHandle *h, size_t *size)
{
    channel_handle *ch = enter(api, h);
    if (ch == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&ch->chan->lock);
    *size = ch->chan->count;
    pthread_mutex_unlock(&ch->chan->lock);
    leave(ch);
    return ACL_SUCCESS;
}
