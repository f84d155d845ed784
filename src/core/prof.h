/* Profiling (acl/acl_prof.h, mstx/ms_tools_ext.h): a timeline of the
 * application's ACL calls, of the tasks of its streams and of its marks and
 * ranges, written where aclprofInit said when profiling stops
 * (docs/profiling.md says what and how).
 *
 * What it costs when off: one load of prof_collecting and one branch,
 * predicted not taken, at the entry and the exit of each public function
 * (PROF_API), and in stream_submit's test for work that leaves the inline
 * path (core/stream.h). Everything else lives in prof.c. */
#ifndef ACLCUDA_CORE_PROF_H
#define ACLCUDA_CORE_PROF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"

typedef struct acl_stream acl_stream;
typedef struct task task;

/* ACL_PROF_* bits being collected; 0 when profiling is off. */
extern _Atomic uint64_t prof_collecting;

static inline bool prof_on(void)
{
    return __builtin_expect(atomic_load_explicit(&prof_collecting, memory_order_relaxed) != 0, 0);
}

/* One public function's call: its name, when it began (0: not timed, and
 * the other fields unset), its id (the order of entry, from 1), the id of
 * the call it is made inside of on this thread (0: none), and whether the
 * backend's device activity was told of it (backend_diag_ops.activity_push). */
typedef struct prof_call {
    const char *name;
    int64_t begin_ns;
    uint64_t id, outer;
    bool tagged, outer_tagged;
} prof_call;

/* Sets every field (the slow path: profiling is on). */
void prof_call_enter(prof_call *call, const char *name);
void prof_call_end(const prof_call *call);

/* In place, so that a call made while profiling is off writes one field
 * (begin_ns, the one its exit reads) and loads one flag. */
static inline void prof_call_begin(prof_call *call, const char *name)
{
    call->begin_ns = 0;
    if (prof_on())
        prof_call_enter(call, name);
}

static inline void prof_call_finish(prof_call *call)
{
    if (__builtin_expect(call->begin_ns != 0, 0))
        prof_call_end(call);
}

/* First statement of a public function: times the call while profiling.
 * The exit tests the call's own begin_ns, never the global flag again:
 * a call that began unprofiled costs nothing more at its end. */
#define PROF_API()                                                                                 \
    prof_call prof_call_ __attribute__((cleanup(prof_call_finish)));                               \
    prof_call_begin(&prof_call_, __func__)

/* stream_submit while profiling: queues t on s (counted, raised as
 * stream_submit does), timed by the backend's device activity (CUPTI on
 * cuda) where it runs and the work is of a kind it times, else between two
 * timestamps taken on the stream itself. */
aclError prof_submit(const char *api, acl_stream *s, const task *t);

/* ---- the API's operations (bare codes; api/prof.c raises) ---------------------------------------- */

aclError prof_init(const char *path, size_t length);
aclError prof_finalize(void);
/* config: the aclprofConfig's data-type bits and devices. */
aclError prof_start(uint64_t types);
aclError prof_stop(uint64_t types);
/* Where the data goes ("" before aclprofInit). */
const char *prof_output_dir(void);
/* Whether profiling was started by ACLCUDA_PROF_OUTPUT (acl-cuda-prof). */
bool prof_started_by_environment(void);
/* aclInit's first call: ACLCUDA_PROF_OUTPUT=DIR starts profiling everything
 * until aclFinalize writes it to DIR (ACLCUDA_PROF_TASK_TIME=off: no task
 * times). */
void prof_environment_start(void);

/* Marks and ranges: recorded while ACL_PROF_MSPROFTX (or any bit, for the
 * environment's profiling) is collected, and given to the backend's
 * profiler marks (NVTX on cuda) always. stream_id -1: none. domain may
 * be NULL. */
void prof_mark(const char *domain, const char *text, int32_t stream_id);
void prof_push(const char *text);
/* False when the thread has no open push. */
bool prof_pop(void);
/* A range any thread may end: its id (never 0). */
uint64_t prof_range_start(const char *domain, const char *text);
/* False for an id not open. */
bool prof_range_end(uint64_t id);

/* The profiling API's objects (configs, stamps, step infos, mstx
 * domains): plain host data known by address. A pointer not made here, or
 * destroyed, is refused without being read. new gives zeroed memory, NULL
 * when out of memory; free is false for a pointer not live. */
typedef enum prof_object_kind { PROF_CONFIG, PROF_STAMP, PROF_STEP, PROF_DOMAIN } prof_object_kind;
void *prof_object_new(prof_object_kind kind, size_t size);
bool prof_object_live(prof_object_kind kind, const void *p);
bool prof_object_free(prof_object_kind kind, const void *p);

#endif
