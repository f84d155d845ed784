/* Events, with ACL's three creation flavours and their flag rules:
 *  - aclrtCreateEvent: sync and timing capable; not for aclrtResetEvent;
 *  - aclrtCreateEventWithFlag: what the flags say (SYNC for waits and resets,
 *    TIME_LINE for timing);
 *  - aclrtCreateEventExWithFlag: like WithFlag, but without reset, QueryEvent
 *    or QueryEventWaitStatus.
 * A record captures the work queued so far; recording again re-captures and
 * later waits use the latest record. Until its first record an event
 * reports not ready, except an ExWithFlag one, which reports complete, as
 * in CANN. A reset returns the event to "never recorded": later waits on it
 * do not wait and queries report it not ready, until it is recorded again.
 * An event of ACL_EVENT_EXTERNAL alone is a flag instead (acl_event.flag). */
#ifndef ACLCUDA_CORE_EVENT_H
#define ACLCUDA_CORE_EVENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/context.h"
#include "core/handle.h"
#include "core/stream.h"

typedef enum event_flavour { EVENT_PLAIN, EVENT_WITH_FLAG, EVENT_EX } event_flavour;

typedef struct acl_event {
    object obj;
    uint32_t id;
    int32_t phys;
    void *share; /* its name for other processes (ipc.c), or NULL */
    /* What records, waits and queries read, then the head of the backend's
     * event, in one cache line (events are allocated aligned to it).
     * flag: for ACL_EVENT_EXTERNAL (task updates), a flag, not a record of
     * work; a record sets it, a wait waits until it is set (also for records
     * queued after the wait), a reset clears it, all in stream order. */
    _Alignas(64) backend_notify *flag;
    const backend_event_ops *ops; /* backend()->event */
    _Atomic uint64_t recorder;    /* the sink (a capture) its latest record was made in, or 0 */
    event_flavour flavour;
    uint32_t flags;
    atomic_bool recorded;                 /* since creation or the last reset */
    _Alignas(16) unsigned char backend[]; /* the backend's event, in place */
} acl_event;

static inline backend_event *event_backend(acl_event *e)
{
    return (backend_event *)e->backend;
}

/* Ends a borrow (handle.h). */
static inline void event_put(acl_event *e)
{
    object_put(&e->obj);
}

/* A published event on ctx's device. Raises. */
aclError event_create(const char *api, acl_context *ctx, event_flavour flavour, uint32_t flags,
                      acl_event **out);
/* A published event standing for a native event of the backend that the
 * application owns (backend_event_ops.adopt), taken to be on ctx's device:
 * never recycled, its native event never destroyed. It counts as recorded
 * from the start, so that queries, synchronizations and waits follow the
 * native event's own state, records made outside ACL included (a native
 * event never recorded is complete). Raises; ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 * when the backend cannot adopt. */
aclError event_adopt(const char *api, acl_context *ctx, void *native, acl_event **out);
/* An event on what another process's IPC event exported (the backend's
 * description and descriptor). Raises. */
aclError event_open_ipc(const char *api, acl_context *ctx, const void *blob, size_t len, int fd,
                        acl_event **out);
/* The failure of event_get, raised. */
aclError event_get_failed(const char *api, aclrtEvent handle);
/* The live event behind a handle, borrowed (event_put). Raises. */
static inline aclError event_get(const char *api, aclrtEvent handle, acl_event **out)
{
    *out = (acl_event *)handle_get(handle, HANDLE_EVENT); /* NULL for the NULL handle */
    return __builtin_expect(*out != NULL, 1) ? ACL_SUCCESS : event_get_failed(api, handle);
}
/* Destroys the event behind a handle: exactly one of racing destroys wins.
 * Raises. */
aclError event_destroy(const char *api, aclrtEvent handle);

/* record and wait go through stream_submit and raise; on a stream with a
 * sink (or for an event recorded by one) the sink decides (sink.h). */
aclError event_record(const char *api, acl_event *e, acl_stream *s);
aclError event_wait(const char *api, acl_stream *s, acl_event *e);
/* event_wait bounded to timeout_s seconds (0: not bounded): on expiry s
 * goes on, and its next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT
 * (event_timed.c). Inside a capture the wait is not bounded. Raises. */
aclError event_wait_timed(const char *api, acl_stream *s, acl_event *e, uint32_t timeout_s);
/* The bound of waits that name none (aclrtSetOpWaitTimeout), seconds, 0:
 * not bounded. */
void event_set_op_wait_timeout(uint32_t timeout_s);
uint32_t event_op_wait_timeout(void);
/* An external record (record true) or wait of a model being captured on s
 * (ACL_EVENT_RECORD_EXTERNAL, ACL_EVENT_WAIT_EXTERNAL): a node that records
 * e, or waits for its latest record, each time the model runs. The model
 * holds e as long as it lives. Raises. */
aclError event_external(const char *api, acl_stream *s, acl_event *e, bool record);
void event_reset(acl_event *e);
/* Clears an ACL_EVENT_EXTERNAL event's flag in s's order. Raises. */
aclError event_reset_flag(const char *api, acl_event *e, acl_stream *s);
/* Not ready when never recorded or reset (EX events: complete);
 * synchronize of such an event returns at once. synchronize returns
 * ACL_ERROR_INVALID_PARAM when another thread destroyed the event before
 * the wait could begin. All three return ACL_ERROR_RT_EVENT_CAPTURED for an
 * event recorded by a capture still going on. */
aclError event_query(acl_event *e, bool *complete);
aclError event_synchronize(acl_event *e, int32_t timeout_ms);
aclError event_elapsed(acl_event *start, acl_event *end, float *ms);
/* Microseconds (CLOCK_MONOTONIC) at which the latest record completed;
 * bare codes (ACL_ERROR_RT_EVENT_NOT_COMPLETE while pending). */
aclError event_timestamp(acl_event *e, uint64_t *us);
/* The backend's native event; from then on it is never recycled. */
void *event_native(acl_event *e);

/* How many more events may be made. */
uint32_t event_available(void);

#endif
