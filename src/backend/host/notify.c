/* The host backend's notifies: a word each (word.c), which record tasks
 * change and wait tasks watch on the stream workers (watch.c). */
#include "backend/host/host.h"

static aclError host_notify_create(backend_notify *n, int32_t dev)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    n->w = host_word_new();
    return n->w ? ACL_SUCCESS : ACL_ERROR_RT_NO_NOTIFY_RESOURCE;
}

/* Queued tasks keep their own references to the word. */
static void host_notify_destroy(backend_notify *n)
{
    host_word_release(n->w);
}

static aclError host_notify_reset(backend_notify *n)
{
    atomic_store_explicit(atomic_load(&n->w->word), 0, memory_order_release);
    host_watch_changed();
    return ACL_SUCCESS;
}

static aclError host_word_enqueue(backend_stream *bs, const word_op *op)
{
    host_word_retain(op->w);
    aclError err = host_enqueue_word_op(bs->impl, op);
    if (err != ACL_SUCCESS)
        host_word_release(op->w);
    return err;
}

static aclError host_notify_record(backend_stream *bs, backend_notify *n)
{
    return host_word_enqueue(bs, &(word_op){.w = n->w});
}

static aclError host_notify_wait(backend_stream *bs, backend_notify *n, uint32_t timeout_s)
{
    return host_word_enqueue(bs, &(word_op){.w = n->w, .wait = true, .timeout_s = timeout_s});
}

static aclError host_notify_count(backend_stream *bs, backend_notify *n, uint32_t mode,
                                  uint32_t value)
{
    return host_word_enqueue(bs,
                             &(word_op){.w = n->w, .counting = true, .mode = mode, .value = value});
}

static aclError host_notify_count_wait(backend_stream *bs, backend_notify *n, uint32_t cmp,
                                       uint32_t value, uint32_t timeout_s, bool clear)
{
    return host_word_enqueue(bs, &(word_op){.w = n->w,
                                            .wait = true,
                                            .counting = true,
                                            .clear = clear,
                                            .mode = cmp,
                                            .value = value,
                                            .timeout_s = timeout_s});
}

/* From now on the word lives in `at->word`, memory shared with other
 * processes; tasks already queued follow it, as they read w->word when they
 * run, and the memory goes back with the word's last reference, which
 * those tasks hold too. */
static aclError host_notify_share(backend_notify *n, const backend_shared_word *at, void *blob)
{
    (void)blob; /* the shared word is the whole description */
    atomic_store(at->word, atomic_load(atomic_load(&n->w->word)));
    host_word_share(n->w, at);
    return ACL_SUCCESS;
}

static aclError host_notify_open(backend_notify *n, int32_t dev, const backend_shared_word *at,
                                 const void *blob, bool peer_access)
{
    (void)blob;
    (void)peer_access; /* every host device reaches all memory */
    aclError err = host_notify_create(n, dev);
    if (err == ACL_SUCCESS)
        host_word_share(n->w, at);
    return err;
}

const backend_notify_ops host_notify_ops = {
    .size = sizeof(backend_notify),
    .create = host_notify_create,
    .destroy = host_notify_destroy,
    .reset = host_notify_reset,
    .record = host_notify_record,
    .wait = host_notify_wait,
    .count = host_notify_count,
    .count_wait = host_notify_count_wait,
    .share = host_notify_share,
    .open = host_notify_open,
};
