/* Built models with stream control flow (aclmdlRIBuildBegin .. End): streams
 * that others start (bound with ACL_MODEL_STREAM_FLAG_DEFAULT, started by
 * aclrtActiveStream), switches to another stream on a comparison of two
 * device values (aclrtSwitchStream), and labels that jumps go to
 * (aclrtSetLabel, aclrtSwitchLabelByIndex). A CUDA graph has no jumps: the
 * model's graph is put together from the streams' work when its build
 * ends, with conditional nodes where the streams branch or loop.
 *
 * What a run does (CANN's model, as far as a graph can hold it):
 *   - a head stream (ACL_MODEL_STREAM_FLAG_HEAD, or a stream that joined
 *     the build by waiting for an event recorded in it) starts with the
 *     run; a stream bound with ACL_MODEL_STREAM_FLAG_DEFAULT starts where
 *     aclrtActiveStream starts it, after its starter's work so far, and
 *     runs alongside: not started, it does not run; started from several
 *     places of one branch of the run, it runs once, after all of them;
 *   - aclrtSwitchStream: when *left compares true with *right, the stream
 *     switched to runs (from its start) and the rest of the switching
 *     stream does not; else that rest runs (an IF node);
 *   - aclrtSwitchLabelByIndex: the stream goes on at the label that the
 *     uint32_t index in device memory selects (past the end: the last),
 *     skipping what lies between. Jumps forward are SWITCH nodes whose
 *     branches run from their label to where the branches meet; a jump
 *     back to a label repeats what lies between as a loop (a WHILE node),
 *     whose exit is that jump or one jump out of the loop at its top level.
 * What a graph cannot hold is refused when the build ends, naming the
 * label and the task: jumps between streams, into the middle of a loop or
 * out of a branch, several jumps back to one label, a switch to another
 * stream inside a loop of labels, streams that start each other.
 *
 * Recording (graph_flow.c). A build goes on with stream control flow from
 * the first call that needs it: what it recorded so far becomes the
 * prefix, the graph that the model's graph grows from (its nodes keep
 * their places: their tasks stay updatable). From then on each stream of
 * the build captures on its own, into pieces: a piece ends at each control
 * task, and at each event record or wait between the build's streams,
 * which become items of the stream's list. Work recorded into pieces is
 * not updatable (aclmdlRITaskSetParams, aclrtTaskUpdateAsync): no node of
 * the graph stands for it alone. All of it happens under the capture's
 * gate.
 *
 * Putting it together (graph_flow_plan.c, graph_flow_emit.c), once the
 * build's capture is over: the lists become a tree of scopes (a scope is
 * what runs together: the run, or a branch or round of a conditional
 * node; its threads are the streams that run in it), then nodes of the
 * prefix's graph, with a selection node (backend.h's flow_select) writing
 * the word each conditional node reads. */
#ifndef ACLCUDA_CORE_GRAPH_FLOW_H
#define ACLCUDA_CORE_GRAPH_FLOW_H

#include "core/graph_internal.h"

typedef enum flow_item_kind {
    ITEM_PIECE,    /* work captured between two control tasks */
    ITEM_LABEL,    /* aclrtSetLabel */
    ITEM_JUMP,     /* aclrtSwitchLabelByIndex */
    ITEM_ACTIVATE, /* aclrtActiveStream */
    ITEM_SWITCH,   /* aclrtSwitchStream */
    ITEM_RECORD,   /* an event record that a stream of the build waits for */
    ITEM_WAIT,     /* such a wait */
} flow_item_kind;

typedef struct flow_item {
    flow_item_kind kind;
    uint32_t task; /* its task's place among its stream's, from 1 (0: a piece) */
    union {
        backend_graph *piece; /* owned */
        aclrtLabel label;
        struct {
            const void *index; /* a uint32_t in device memory */
            uint32_t count;
            aclrtLabel *labels; /* count of them, owned */
        } jump;
        aclrtStream stream; /* ACTIVATE: the stream started */
        struct {
            flow_select test; /* FLOW_SELECT_COMPARE */
            aclrtStream stream;
        } sw;
        uint32_t record; /* RECORD, WAIT: the record's number */
    } u;
} flow_item;

typedef struct flow_stream {
    acl_stream *s; /* held by the capture while it takes work */
    aclrtStream handle;
    int32_t id;
    bool head;
    bool open; /* its backend capture goes on: its work goes into its next piece */
    flow_item *items;
    size_t nitems, item_cap;
} flow_stream;

/* An event's latest record in the build (ITEM_RECORD's number). */
typedef struct flow_record {
    backend_event *event;
    uint32_t record;
} flow_record;

struct model_flow {
    flow_stream *streams;
    size_t nstreams, stream_cap;
    backend_graph *prefix; /* owned until it becomes the model's graph */
    uint64_t prefix_end;   /* its node after all its work */
    size_t first_task;     /* the capture's tasks from here on went into pieces */
    flow_record *records;
    size_t nrecords, record_cap;
    uint32_t next_record;
    /* Streams unbound while the build went on: their work in the prefix
     * is taken out of the graph (graph_flow_emit.c). */
    aclrtStream *dropped;
    size_t ndropped, dropped_cap;
};

/* ---- graph_label.c ---- */

/* Marks label set on s (once; labels and streams of one context). Raises. */
aclError label_set(const char *api, aclrtLabel label, acl_stream *s);
/* Takes back label_set (the task could not be recorded). */
void label_unset(aclrtLabel label);
/* A copy of the first count labels of list (the caller frees it), for a
 * jump on s. Raises. */
aclError label_list_take(const char *api, aclrtLabelList list, uint32_t count, acl_stream *s,
                         aclrtLabel **out);

/* ---- graph_flow.c: recording, with c's gate held ---- */

/* c (a build) goes on with stream control flow: its prefix ends. Raises. */
aclError flow_start(const char *api, capture *c);
/* An event record or wait t on s, a stream of c, which goes on with stream
 * control flow: an item of s, task `number` of it (a wait for an event
 * whose latest record was made before flow_start is nothing: the prefix
 * runs first). Raises. */
aclError flow_event(const char *api, capture *c, acl_stream *s, const task *t, uint32_t number);
/* s joins c, which goes on with stream control flow (capture_join): a
 * stream of it that captures on its own; head: it starts with each run.
 * Bare codes. */
aclError flow_join(capture *c, acl_stream *s, bool head);
/* s, bound with ACL_MODEL_STREAM_FLAG_DEFAULT, starts where another
 * stream starts it. */
void flow_mark_default(capture *c, acl_stream *s);
/* aclmdlRIEndTask on s: its last piece ends. Raises. */
aclError flow_end_stream(const char *api, capture *c, acl_stream *s);
/* The end of c: every stream's last piece ends; discard: nothing is kept. */
void flow_seal(capture *c, bool discard);
/* Whether s was unbound from c's model while it was built. */
bool flow_dropped(const capture *c, acl_stream *s);
void flow_free(model_flow *f);
/* aclmdlRIUnbindStream of s while m is built: s leaves the build with what
 * it recorded (m goes on with stream control flow). Raises. */
aclError flow_unbind(const char *api, acl_model *m, acl_stream *s);
/* The index of the stream with this handle in f, or f->nstreams. */
size_t flow_stream_index(const model_flow *f, aclrtStream handle);

/* ---- graph_flow_plan.c ---- */

typedef struct flow_scope flow_scope;

typedef enum flow_step_kind {
    STEP_PIECE,
    STEP_ACTIVATE,
    STEP_RECORD,
    STEP_WAIT,
    STEP_SELECT,
    STEP_COND,
} flow_step_kind;

typedef struct flow_step {
    flow_step_kind kind;
    uint32_t word; /* SELECT, COND: the word it writes or reads */
    uint32_t task; /* the task it comes from, for messages (0: none) */
    union {
        backend_graph *piece;
        uint32_t thread; /* ACTIVATE: the scope's thread it starts */
        uint32_t record;
        flow_select select;
        struct {
            cond_kind kind;
            uint32_t size;
            flow_scope **bodies;
            /* Records made in the bodies, and records waited for there
             * but made elsewhere (bit sets over record numbers). */
            uint64_t *made, *waited;
        } cond;
    } u;
} flow_step;

typedef struct flow_thread {
    size_t stream; /* in the flow's streams */
    flow_step *steps;
    size_t nsteps, step_cap;
    bool root;         /* it starts with its scope */
    uint32_t starters; /* else: the ACTIVATE steps of its scope that start it */
} flow_thread;

/* Threads[0] runs the scope's own range (the top scope: every head stream
 * is a root thread); the others are streams its threads start. */
struct flow_scope {
    flow_thread *threads;
    size_t nthreads, thread_cap;
    uint64_t *made, *waited; /* as a conditional step's, over the whole scope */
};

typedef struct flow_plan {
    flow_scope *top;
    uint32_t nwords;
    size_t set_words; /* uint64_t words of a bit set of records */
} flow_plan;

/* The tree of f's streams. Raises (api) what cannot be put together, in
 * model model_id. */
aclError flow_plan_make(const char *api, const model_flow *f, uint32_t model_id, flow_plan *out);
void flow_plan_free(flow_plan *p);

/* ---- graph_flow_emit.c ---- */

/* m's graph from c, whose capture ended well: the prefix with the plan's
 * nodes, runnable; the pieces go to m, which keeps them as long as its
 * graph. Raises. */
aclError flow_assemble(const char *api, acl_model *m, capture *c, backend_graph **out);

#endif
