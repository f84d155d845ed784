/* Sinks: where a stream's work goes instead of its backend queue. A stream
 * capture (graph.h) installs its recorder as the sink of every stream it
 * takes in (acl_stream.sink); stream_submit hands such a stream's work to
 * the sink, which records it or refuses it. Nothing below the capture
 * names it: streams, events, copies and the other submitters reach it only
 * through a stream's sink, the registry of open sinks and the operations
 * the sink brings (sink_ops).
 *
 * An open sink is registered under an id: an event recorded into it names
 * it by that id (a wait for the event goes to the sink that recorded it,
 * wherever it is queued; the event is busy while the sink is open), and
 * what ACL calls capture-unsafe asks every open sink whether it forbids
 * it.
 *
 * A sink is counted (sink_ref, sink_unref) and freed late, through the
 * handles' reclamation: a submitter reads a stream's sink in a read section
 * and may still use it after its owner closed it and dropped the last
 * reference.
 *
 * Locks: the registry's lock is taken after a sink's own gate (held while
 * it records or closes) and before its inner lock (docs/hacking.md). */
#ifndef ACLCUDA_CORE_SINK_H
#define ACLCUDA_CORE_SINK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "core/handle.h"
#include "core/stream.h"

typedef struct sink_ops {
    /* Takes t, submitted on s, whose sink k is (read from s in a read
     * section begun before): records it or refuses it (*err, raised unless
     * api is NULL) and returns true, or returns false when k closed before
     * it could take t (s's sink is then another or none). */
    bool (*submit)(sink *k, const char *api, acl_stream *s, const task *t, aclError *err);
    /* Whether k, s's sink, would take t, which the caller does apart from
     * s after its work so far (a fill of pageable host memory by the
     * host), or before submitting it. Raises. */
    aclError (*admit)(sink *k, const char *api, acl_stream *s, const task *t);
    /* A wait t on s for an event whose latest record k made: recorded by
     * s's sink, or s joins k with it, or refused. Raises. */
    aclError (*wait)(sink *k, const char *api, acl_stream *s, const task *t);
    /* Ties ptr to what k makes of s's work: release(ptr) runs once that
     * and every run of it are gone. Bare codes. */
    aclError (*keep)(sink *k, acl_stream *s, void *ptr, void (*release)(void *));
    /* Whether k forbids the calling thread a capture-unsafe call (what);
     * if so, k takes no more work and why (size bytes) says why, to follow
     * "<what> is not allowed". With the registry's lock held. */
    bool (*forbids)(sink *k, const char *what, char *why, size_t size);
    /* The last reference is gone and no reader can still see k. */
    void (*free)(sink *k);
} sink_ops;

struct sink {
    object reclaim; /* first: what the reclamation frees */
    const sink_ops *ops;
    atomic_int refs;
    uint64_t id; /* never 0 */
    sink *next;  /* in the registry, under its lock */
};

/* Open sinks: what sink_check_unsafe reads first. */
extern atomic_int sink_open_count;

/* A new sink of ops with one reference (the caller's) and its id. */
void sink_init(sink *k, const sink_ops *ops);
/* A reference unless the last one is gone (k is then being freed). */
bool sink_ref(sink *k);
void sink_unref(sink *k);
/* k takes work from now on: registered under its id. */
void sink_register(sink *k);
/* k is closed: it leaves the registry (no-op when it is not in it). */
void sink_withdraw(sink *k);
/* The open sink with this id, with a reference (sink_unref), or NULL. */
sink *sink_find(uint64_t id);
/* Whether the sink with this id is still open. */
bool sink_open(uint64_t id);

/* s's sink, with a reference (sink_unref), or NULL when none. */
sink *sink_of(acl_stream *s);

/* Whether s takes t (sink_ops.admit), which the caller does apart from s
 * or is about to submit: t marked TASK_PAGEABLE is capture-unsafe besides
 * (sink_check_unsafe). Raises. */
aclError sink_admit(const char *api, acl_stream *s, const task *t);
/* Ties ptr to what s's sink makes of its work (sink_ops.keep): bare codes,
 * ACL_ERROR_RT_STREAM_NOT_CAPTURED when s has no sink. */
aclError sink_keep(acl_stream *s, void *ptr, void (*release)(void *));
/* A wait t on s for an event whose latest record the sink with this id
 * made (event.c): that sink decides (sink_ops.wait); once it is closed the
 * record belongs to what it made, and there is nothing to wait for. */
aclError sink_event_wait(const char *api, acl_stream *s, const task *t, uint64_t id);

/* sink_check_unsafe while a sink is open. */
aclError sink_check_unsafe_open(const char *api, const char *what);
/* ACL's capture-unsafe functions call this first (what: the operation):
 * refused with ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, raised, when an open
 * sink forbids it to the calling thread, which closes that sink to work.
 * One atomic load while no sink is open. */
static inline aclError sink_check_unsafe(const char *api, const char *what)
{
    if (__builtin_expect(atomic_load_explicit(&sink_open_count, memory_order_acquire) == 0, 1))
        return ACL_SUCCESS;
    return sink_check_unsafe_open(api, what);
}

#endif
