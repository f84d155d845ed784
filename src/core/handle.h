/* Handles: the values ACL hands out for its objects (aclrtStream,
 * aclrtEvent, aclrtContext, aclDataBuffer *, ...), and the one lifecycle
 * every such object follows.
 *
 * A handle is not an address: it encodes a slot of a process-wide table,
 * the slot's generation and the object's kind. A NULL, foreign, stale or
 * wrong-kind handle is therefore always rejected without touching memory it
 * names, even when a new object has been made since at the old object's
 * address.
 *
 * Lifecycle of an object:
 *   1. the creator allocates it (an `object` first) and publishes it:
 *      handle_publish gives it a handle, which holds the object's first
 *      reference;
 *   2. every call that uses it looks it up with handle_get, which takes a
 *      reference (or fails), and drops that reference with object_put when
 *      done;
 *   3. a destroy withdraws the handle with handle_take (or object_take):
 *      exactly one of several racing destroys succeeds, the others find the
 *      handle gone; from then on lookups fail;
 *   4. the object's free function runs when the last reference is dropped,
 *      by whichever thread drops it, so calls already inside finish on valid
 *      memory.
 * Objects may hold references to each other (a stream holds its context)
 * through object_get. */
#ifndef ACLCUDA_CORE_HANDLE_H
#define ACLCUDA_CORE_HANDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"

typedef enum handle_kind {
    HANDLE_NONE = 0,
    HANDLE_CONTEXT,
    HANDLE_STREAM,
    HANDLE_EVENT,
    HANDLE_BUFFER,
    HANDLE_KIND_COUNT
} handle_kind;

typedef struct object object;
typedef void (*object_free_fn)(object *o);

/* The first member of every object behind a handle. */
struct object {
    uint32_t slot;
    handle_kind kind;
    object_free_fn free; /* runs once, when the last reference is dropped */
};

/* Gives o (kind, free set by this call) a handle holding one reference.
 * ACL_ERROR_RT_MEMORY_ALLOCATION when the table cannot grow. */
aclError handle_publish(object *o, handle_kind kind, object_free_fn free_fn);
/* The public value of a published object's handle. */
void *handle_of(const object *o);

/* The live object behind h, with a reference for the caller; NULL when h
 * is not a live handle of this kind. */
object *handle_get(const void *h, handle_kind kind);
/* The kind of a live handle, HANDLE_NONE if h is none (for messages). */
handle_kind handle_kind_of(const void *h);

/* Another reference to an object the caller holds a reference to. */
void object_get(object *o);
/* Drops a reference; the last one frees the object. */
void object_put(object *o);

/* Withdraws o's handle, o being referenced by the caller. True for exactly
 * one caller, who tears the object down and then drops its reference; the
 * object is freed once no other call holds one. */
bool object_take(object *o);
/* handle_get + object_take: the object with a reference for the caller,
 * or NULL when h is not live (or another destroy took it first). */
object *handle_take(const void *h, handle_kind kind);
/* Whether o's handle is still live (not yet taken). */
bool object_live(const object *o);

/* How many handles are live (for tests of leaks and limits). */
uint32_t handle_live_count(void);

#endif
