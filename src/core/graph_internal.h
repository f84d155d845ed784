/* Shared by graph_capture.c (captures: the recorder, begin, end),
 * graph_group.c (task groups and their update), graph_build.c (built
 * models), graph_model.c (models: execution, destroy), graph_task.c (the
 * tasks of a model: listing, parameters, updates), graph_cond.c
 * (conditional tasks and the models of their branches) and graph_flow*.c
 * (builds with stream control flow): the objects and the helpers they use
 * on each other's. Locks as graph.h says. */
#ifndef ACLCUDA_CORE_GRAPH_INTERNAL_H
#define ACLCUDA_CORE_GRAPH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/graph.h"
#include "core/handle.h"
#include "core/sink.h"
#include "core/stream.h"

enum {
    MODEL_NAME_MAX = 512, /* ACL: longer names are cut */
    MAX_NODE_KINDS = 4096,
};

typedef enum model_state {
    MODEL_CAPTURING, /* being filled by a capture */
    MODEL_BUILDING,  /* aclmdlRIBuildBegin .. BuildEnd */
    MODEL_READY,     /* has a graph */
    MODEL_BROKEN,    /* its capture or build was abandoned */
    MODEL_BODY,      /* a branch of a conditional task, not being captured */
} model_state;

typedef struct destroy_callback {
    aclrtCallback fn;
    void *user_data;
} destroy_callback;

typedef struct capture capture;
typedef struct acl_model_task acl_model_task;
typedef struct acl_cond acl_cond;
typedef struct model_flow model_flow;

/* A kernel's launch as captured, and as aclmdlRITaskSetParams stages it. */
typedef struct task_kernel {
    aclrtFuncHandle fn;
    void *bf; /* its backend function (backend_function *) */
    uint32_t grid[3], block[3];
    uint32_t shared;
    bool cooperative;
    /* Launched with placeholders: args points at their data as staged for
     * this launch, which a change of the task would not stage again. */
    bool placeholders;
    void *args; /* a copy, owned */
    size_t args_size;
    aclrtLaunchKernelAttr *attrs; /* the launch's attributes, a copy, owned */
    size_t nattrs;
    aclrtLaunchKernelCfg cfg; /* points at attrs (aclmdlRITaskGetParams) */
} task_kernel;

/* One task of a model, in the order the model recorded them. */
typedef struct model_task {
    aclrtStream stream; /* the handle of the stream it was queued on */
    uint32_t seq;       /* its place in the model (aclmdlRITaskGetSeqId) */
    uint32_t stream_id; /* its place among the stream's tasks, from 1 */
    task_kind kind;
    aclmdlRITaskType type;
    /* A control task of a build with stream control flow: the function
     * that made it (kind means nothing then). */
    const char *control;
    bool has_node;
    bool in_piece; /* recorded into a piece (graph_flow.h): no node of its own */
    uint64_t node; /* the backend's node */
    aclrtTaskGrp group;
    union {
        task_kernel kernel;
        struct {
            aclrtEvent event;
            uint32_t event_flag;
        } event;
        struct {
            void *addr;
            uint64_t value;
            uint32_t flag;
        } value;
        struct {
            aclrtRandomNumTaskInfo info;
        } random;
    } p;
    void *op_info; /* aclrtCacheLastTaskOpInfo's bytes, owned */
    size_t op_info_size;
    char *extend; /* aclrtCacheLastTaskExtendInfo's text, owned */
    size_t extend_size;
    /* What aclmdlRIUpdate applies. */
    bool staged;          /* new parameters: kernel in `next`, values in p */
    bool disable_pending; /* aclmdlRITaskDisable */
    bool disabled;
    task_kernel next;
    acl_model_task *handle; /* published on first use */
} model_task;

struct acl_model {
    object obj;
    uint32_t id;
    int32_t phys, device;
    pthread_mutex_t lock; /* everything below */
    model_state state;
    capture *cap; /* while capturing or building: a reference */
    backend_graph *graph;
    char name[MODEL_NAME_MAX + 1];
    /* Built models: the streams bound to it, held; the first is where
     * aclmdlRIExecute runs it. */
    acl_stream **bound;
    size_t nbound, bound_cap;
    /* Every stream that took part, for aclmdlRIGetStreams. */
    aclrtStream *members;
    size_t nmembers, member_cap;
    acl_task_group **groups;
    size_t ngroups, group_cap;
    destroy_callback *callbacks;
    size_t ncallbacks, callback_cap;
    acl_model *next_built; /* in built_models, under registry_lock */
    /* Its tasks (graph_task.c), once its capture or build ended. */
    model_task *tasks;
    size_t ntasks;
    bool updating;          /* changes staged for aclmdlRIUpdate */
    acl_model *next_listed; /* in listed_models, under registry_lock */
    /* Conditional tasks (graph_cond.c): the conditions made for it, held;
     * the models of its conditional tasks' branches, held; for a branch,
     * the model whose conditional task it belongs to (not held: that one
     * holds it) and the top of that chain. */
    acl_cond **conds;
    size_t nconds, cond_cap;
    acl_model **bodies;
    size_t nbodies, body_cap;
    acl_model *parent;
    acl_model *top;
    bool body_captured;
    atomic_bool defaults; /* a condition of it or of a branch starts from its default */
    /* A build with stream control flow: the pieces its graph runs, kept
     * until the graph is gone (graph_flow_emit.c). */
    backend_graph **pieces;
    size_t npieces;
};

struct acl_task_group {
    object obj;
    acl_model *model; /* a counted reference */
    uint64_t *nodes;
    task_kind *kinds;
    size_t count;
};

/* A capture is the sink (sink.h) of the streams it records: counted
 * there (the registry's reference while it is open, and lookups'), freed
 * late, registered under the sink's id while open. */
struct capture {
    sink sink;
    /* Held while work is recorded into it (recorder_submit) and while it
     * ends (capture_close), before its lock: work that races with the end
     * is recorded before it or queued after it. */
    pthread_mutex_t gate;
    acl_model *model;   /* the model it fills (held); NULL for a task update */
    acl_stream *origin; /* where it began: streams[0] */
    aclmdlRICaptureMode mode;
    pthread_t thread;
    bool building;           /* aclmdlRIBuildBegin: streams bound one by one */
    bool origin_kept;        /* origin left the streams; c holds it until freed */
    acl_task_group *update;  /* aclmdlRICaptureTaskUpdateBegin: held */
    backend_graph *into;     /* aclmdlRICaptureToModelRIBegin: the branch it fills */
    atomic_bool invalidated; /* work after it is refused; the end discards */
    atomic_bool tracking;    /* nodes are noted (a task group is open, or an update) */
    pthread_mutex_t lock;    /* what follows */
    bool finished;           /* also under the gate: set by capture_close */
    char why[192];           /* why it was invalidated */
    acl_stream **streams;    /* every stream in it, held; origin first */
    bool *ended;             /* aclmdlRIEndTask seen, per stream */
    size_t nstreams, stream_cap;
    acl_stream *group_stream; /* whose task group is open */
    size_t group_first;       /* the group's first task */
    uint64_t *nodes;
    task_kind *kinds;
    size_t nnodes, node_cap;
    model_task *tasks; /* what it recorded, for the model (graph_task.c) */
    size_t ntasks, task_cap;
    /* A build that goes on with stream control flow (graph_flow.h), under
     * the gate. */
    model_flow *flow;
};

/* Every sink is a capture's. */
static inline capture *capture_of_sink(sink *k)
{
    return k ? (capture *)((char *)k - offsetof(capture, sink)) : NULL;
}

/* The capture s's work goes to, NULL when none: for a test (capture_get
 * holds it). */
static inline capture *capture_of_stream(acl_stream *s)
{
    return capture_of_sink(stream_sink(s));
}

/* A reference more, for a holder of one. */
static inline void capture_addref(capture *c)
{
    atomic_fetch_add(&c->sink.refs, 1);
}

/* ---- graph_capture.c ---- */

aclError graph_require(const char *api);
void capture_unref(capture *c);
/* A reference to the capture s is in, or NULL when none. */
capture *capture_get(acl_stream *s);
/* The active capture with this id, with a reference, or NULL. */
capture *capture_find(uint64_t id);
void capture_invalidate(capture *c, const char *fmt, const char *what);
/* A new capture of origin (held), not registered yet; m held when given. */
aclError capture_new(acl_stream *origin, acl_model *m, aclmdlRICaptureMode mode, capture **out);
void capture_register(capture *c);
/* Ends c: the backend's capture begun on c->origin (into c->into when
 * set), then c's bookkeeping (its streams capture no more, it leaves the
 * registry), with c's gate held so that nothing is recorded meanwhile.
 * discard: nothing is kept, as when c was invalidated (*invalidated tells,
 * read under the gate); unless discarded, c's streams become c->model's
 * members first. *g: the graph (NULL for a capture into a branch). False
 * when another caller ended c first (nothing done); true for the one
 * caller that ends it, which then drops the registry's reference; *err:
 * the backend's code. */
bool capture_close(capture *c, bool discard, backend_graph **g, bool *invalidated, aclError *err);
/* Adds s to c, with c->lock held; ACL_ERROR_RT_STREAM_CAPTURED when
 * another capture holds s. */
aclError capture_add_stream(capture *c, acl_stream *s);
/* Takes s out of c's streams, under c's gate: its work is no longer
 * recorded. Returns the reference c held, for the caller to release once
 * it holds no lock, or NULL when c keeps it (c's origin). */
acl_stream *capture_remove_stream(capture *c, acl_stream *s);
/* Whether aclmdlRIEndTask closed s's tasks in c (a build). */
bool capture_stream_ended(capture *c, acl_stream *s);
/* Adds s to c (the first stream of a new capture), then begins the
 * backend's capture of it (into c->into when set) once the work queued
 * without seeing the capture has reached the backend. Bare codes. */
aclError capture_start(capture *c, acl_stream *s);
/* s joins c, which is capturing already, through wait (a wait for work c
 * recorded; NULL: none, s being bound to c, a build with stream control
 * flow): marked capturing, then, once every submitter that read it
 * uncaptured has queued (capture_start), the wait recorded first of its
 * work in c, under the gate. A build with stream control flow captures s
 * on its own (head: it starts with each run). Raises. */
aclError capture_join(const char *api, capture *c, acl_stream *s, const task *wait, bool head);
/* Ends a capture or build whose model will not be kept: the backend stops
 * recording and forgets what it recorded (the captures into its model's
 * branches first). The caller holds a reference. Whether this call ended
 * it (false: it had ended already). */
bool capture_abandon(capture *c);
const char *capture_mode_name(aclmdlRICaptureMode mode);
bool capture_mode_valid(aclmdlRICaptureMode mode);

/* ---- graph_model.c ---- */

/* A published model, borrowed by the caller. Bare codes. */
aclError model_new(int32_t phys, int32_t device, model_state state, acl_model **out);
void model_add_member(acl_model *m, acl_stream *s);
/* Makes the model of c, a finished capture, ready with g, or breaks it (g
 * NULL). */
void model_settle(acl_model *m, capture *c, backend_graph *g);
/* m, just withdrawn (object_take), goes: its task groups, task handles,
 * branches and conditions with it, then its destroy callbacks run. */
void model_gone(acl_model *m);

/* ---- graph_build.c ---- */

/* Whether m binds s (aclmdlRIBindStream). */
bool model_binds(acl_model *m, acl_stream *s);
/* The id of the model s is bound to, if any. */
bool model_bound_id(acl_stream *s, uint32_t *id);
/* m, destroyed, leaves the models bound to streams. */
void build_forget(acl_model *m);

/* ---- graph_task.c ---- */

/* t, just recorded by c: the model c fills (or updates) keeps the binary
 * of the kernel it launches (kernel.h). */
void tasks_keep_binary(capture *c, const task *t);
/* Records task t, just recorded on s, in c (the recorder's submit);
 * its place among s's tasks (from 1), 0 when it could not be kept. */
uint32_t tasks_record(capture *c, acl_stream *s, const task *t);
/* Records a control task of a build with stream control flow (what: the
 * function) on s; its place among s's tasks, 0 when it could not be kept. */
uint32_t tasks_record_control(capture *c, acl_stream *s, const char *what);
/* The tasks of c go to m (c's capture ended well), with m->lock held. */
void tasks_settle(acl_model *m, capture *c);
/* The tasks recorded since the open group began become the group's. */
void tasks_group(capture *c, acl_stream *s, aclrtTaskGrp group);
/* m (settled, with tasks) joins the models aclmdlRIGetTasksByStream
 * looks through; called with no lock held. */
void tasks_list(acl_model *m);
/* Node `node` of m's graph takes the kernel of task t (recorded by a task
 * update) in s's order (backend_stream_ops.graph_set_node). Raises, but
 * for ACL_ERROR_RT_FEATURE_NOT_SUPPORT: t is no kernel that can run again,
 * or the backend cannot change the node so. With m->lock held; m is held
 * until s has run the change. */
aclError tasks_set_node_ordered(const char *api, acl_stream *s, acl_model *m, uint64_t node,
                                const model_task *t);
/* Frees a capture's or a model's tasks. */
void tasks_free(model_task *tasks, size_t count);
/* The model goes: its tasks' handles are withdrawn, it leaves the list. */
void tasks_model_destroyed(acl_model *m);

/* ---- graph_cond.c ---- */

/* Frees what m's conditions and branches hold (model_free). */
void cond_model_free(acl_model *m);
/* m is destroyed: its branches and conditions are withdrawn. */
void cond_model_destroyed(acl_model *m);
/* Whether a branch of m is still being captured (its end must wait). */
bool cond_branch_capturing(acl_model *m);
/* aclmdlRICaptureEnd of a capture into a branch (c, on s). Raises. */
aclError cond_capture_end(const char *api, acl_stream *s, capture *c, aclmdlRI *out);
/* The capture of branch m was abandoned: its parent's capture cannot be
 * kept either. */
void cond_branch_abandoned(acl_model *m);
/* Before a run of m on s: the conditions that start from their default
 * value get it (ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT). Raises. */
aclError cond_assign_defaults(const char *api, acl_model *m, acl_stream *s);
/* A 64-bit word of device memory of m's device that the graph g (a model's,
 * not a body) keeps until it and its runs are gone (graph_flow_emit.c's
 * conditional nodes). Raises. */
aclError cond_word_for(const char *api, acl_model *m, backend_graph *g, uint64_t **word);

#endif
