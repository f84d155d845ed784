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
 *      handle_publish gives it a handle;
 *   2. every call that uses it looks it up with handle_get, which borrows it
 *      until the call's matching object_put: a lookup costs no atomic
 *      read-modify-write and no fence, only plain stores to the thread's
 *      own reader record (see "borrowing", and handle.c on membarrier);
 *   3. a destroy withdraws the handle (handle_take, object_take): exactly
 *      one of several racing destroys succeeds, the others find the handle
 *      gone, and from then on lookups fail;
 *   4. the object's free function runs once the handle is withdrawn, no
 *      counted reference is left, and every call that may have borrowed it
 *      has ended; calls already inside finish on valid memory.
 *
 * Borrowing. A thread is inside a "read section" from its first borrow to
 * the matching last object_put (borrows nest). Withdrawn objects wait on a
 * list until every thread that was inside a section when they were
 * withdrawn has left it (epoch-based reclamation). A section must be
 * short: a call that may block (a synchronize, a wait) takes a counted
 * reference (object_hold) to what it uses and suspends its section while
 * it waits (borrow_suspend, borrow_resume), so that one thread blocked for
 * minutes never holds up the freeing of everything else.
 *
 * Counted references (object_hold, object_release) are for holders that
 * block or outlive the call: a stream holds its context, a teardown holds
 * what it tears down. */
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
    HANDLE_NOTIFY,
    HANDLE_CNT_NOTIFY,
    HANDLE_STREAM_CONFIG,
    HANDLE_GROUP_INFO,
    HANDLE_BINARY,          /* aclrtBinary: bytes of a binary, not loaded */
    HANDLE_MODULE,          /* aclrtBinHandle: a loaded binary */
    HANDLE_FUNCTION,        /* aclrtFuncHandle */
    HANDLE_ARGS,            /* aclrtArgsHandle */
    HANDLE_MODEL,           /* aclmdlRI */
    HANDLE_TASK_GROUP,      /* aclrtTaskGrp */
    HANDLE_PHYS_MEM,        /* aclrtDrvMemHandle */
    HANDLE_MEM_POOL,        /* aclrtMemPool */
    HANDLE_MBUF,            /* aclrtMbuf */
    HANDLE_ALLOCATOR_DESC,  /* aclrtAllocatorDesc */
    HANDLE_MODEL_TASK,      /* aclmdlRITask */
    HANDLE_COND,            /* aclmdlRICondHandle */
    HANDLE_TDT_ITEM,        /* acltdtDataItem * */
    HANDLE_TDT_DATASET,     /* acltdtDataset * */
    HANDLE_TDT_CHANNEL,     /* acltdtChannelHandle * */
    HANDLE_TDT_QUEUE_ATTR,  /* acltdtQueueAttr * */
    HANDLE_TDT_ROUTE,       /* acltdtQueueRoute * */
    HANDLE_TDT_ROUTE_LIST,  /* acltdtQueueRouteList * */
    HANDLE_TDT_ROUTE_QUERY, /* acltdtQueueRouteQueryInfo * */
    HANDLE_LABEL,           /* aclrtLabel */
    HANDLE_LABEL_LIST,      /* aclrtLabelList */
    HANDLE_KIND_COUNT
} handle_kind;

typedef struct object object;
typedef void (*object_free_fn)(object *o);

/* The first member of every object behind a handle. */
struct object {
    uint32_t slot;
    handle_kind kind;
    object_free_fn free;  /* runs once, when nothing can reach the object */
    object *retired_next; /* handle.c's, while it waits to be freed */
    uint64_t retired_epoch;
};

/* Gives o (kind, free set by this call) a handle holding one reference.
 * ACL_ERROR_RT_MEMORY_ALLOCATION when the table cannot grow. */
aclError handle_publish(object *o, handle_kind kind, object_free_fn free_fn);
/* The public value of a published object's handle. */
void *handle_of(const object *o);

/* The live object behind h, borrowed until object_put; NULL (and nothing
 * borrowed) when h is not a live handle of this kind. */
object *handle_get(const void *h, handle_kind kind);
/* Ends a borrow (o is what was borrowed; kept for readability). */
void object_put(object *o);
/* Two lookups at once, for calls on two objects (an event and a stream):
 * true with both borrowed (object_put_pair, or object_put for each), false
 * with nothing borrowed when either is not a live handle of its kind (the
 * caller looks them up one at a time to say which). */
bool handle_get_pair(const void *ha, handle_kind ka, const void *hb, handle_kind kb, object **a,
                     object **b);
void object_put_pair(object *a, object *b);
/* Starts a borrow without a lookup, for a creator that hands out a new
 * object before ending its call. */
void borrow_begin(void);
/* Ends a borrow begun by borrow_begin, for a caller that borrowed no object. */
void borrow_end(void);
/* Leaves the thread's read section for a blocking wait (every borrowed
 * object the caller still uses must be held), and enters it again. */
unsigned borrow_suspend(void);
void borrow_resume(unsigned saved);
/* Waits until every read section that other threads had open when it was
 * called has ended (sections are short: this is brief). After withdrawing
 * an object, the caller knows that no call still uses it unless it holds
 * a counted reference: work such calls queued is queued by then. */
void handle_wait_readers(void);
/* The kind of a live handle, HANDLE_NONE if h is none (for messages). */
handle_kind handle_kind_of(const void *h);

/* A counted reference to an object the caller has borrowed or holds.
 * Fails once the object is withdrawn and no counted reference is left: it
 * is then being destroyed, and the caller treats it as gone. */
bool object_hold(object *o) __attribute__((warn_unused_result));
/* Drops it; the last one of a withdrawn object lets it be freed. */
void object_release(object *o);
/* object_release on a thread that must not free (one of CUDA's, where the
 * backend may not be called): the object, if this was its last reference,
 * is left for a reader thread to free. */
void object_release_late(object *o);

/* Frees o, which was never published (its other fields are the caller's),
 * with free_fn once every read section open now has ended: for memory that
 * readers reach through a pointer loaded inside a section (a stream's
 * capture), which may still be in use by a reader that loaded it before it
 * was unlinked. */
void object_retire(object *o, object_free_fn free_fn);

/* Withdraws o's handle, o being borrowed or held by the caller. True for
 * exactly one caller, who then tears the object down. */
bool object_take(object *o);
/* object_take and object_hold in one step, for a teardown that blocks:
 * true for exactly one caller, who then holds o (object_release when done).
 * False when another destroy took it first (or o has as many counted
 * references as it can). */
bool object_take_hold(object *o) __attribute__((warn_unused_result));
/* handle_get + object_take: the withdrawn object, still borrowed by the
 * caller (object_put when done), or NULL when h is not live (or another
 * destroy took it first). A teardown that blocks holds it first. */
object *handle_take(const void *h, handle_kind kind);
/* Whether o's handle is still live (not yet taken). */
bool object_live(const object *o);

#endif
