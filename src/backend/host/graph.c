/* The host backend's captures and graphs.
 *
 * A capture is a list of nodes, each a task that stream_enqueue handed over
 * instead of queueing it, with the nodes it depends on: the previous node
 * of its stream and the nodes its stream's waits named. Nodes are appended
 * after everything they depend on, so the list in order is a valid order
 * to run them in: a replay runs them one after the other on the stream it
 * was queued on (concurrency between the captured streams is not kept;
 * their ordering is).
 *
 * A graph is a plan (the nodes to run) that replays share: a replay holds
 * the plan it started with, so a graph destroyed or updated meanwhile
 * finishes running as it was. What captures were asked to keep (ACL
 * callbacks' templates) goes with the last plan. A node given new work
 * (set_node) or disabled makes a new plan, as an update does.
 *
 * Conditional nodes are jobs that read their word when they run and run
 * the plans of their bodies, which are graphs of their own (refcounted:
 * the job and the body's model share them) filled by captures into them.
 * An abort bumps the graph's generation: replays begun before it stop at
 * their next node.
 *
 * A node changed in stream order (graph_set_node, aclmdlRICaptureTaskUpdate)
 * reaches replays already queued too: the new node is chained after the
 * one it replaces, and replays follow a node's chain to its end when they
 * reach it; the graph's next plan holds the new node itself, so that
 * chains only last as long as the replays that began before.
 *
 * Locks: a stream's lock, then its capture's lock; the capture's lock
 * alone elsewhere. */
#include <stdlib.h>
#include <string.h>

#include "backend/host/host.h"

typedef struct keep_item {
    void *ptr;
    void (*release)(void *);
} keep_item;

/* Kept objects, shared by a capture and the plans made from it. */
typedef struct keeps {
    atomic_int refs;
    keep_item *items;
    size_t count, cap;
} keeps;

typedef struct gnode {
    atomic_int refs;
    task *t;
    _Atomic(struct gnode *) next; /* what replaced it in stream order (a reference) */
    keeps *kept;                  /* what its task needs, when it came in that way */
} gnode;

typedef struct gplan {
    atomic_int refs;
    keeps **kept; /* the capture's, then each update's */
    size_t nkept;
    unsigned char *off; /* disabled nodes (1), or NULL when none is */
    size_t count;
    gnode *nodes[];
} gplan;

struct backend_graph {
    atomic_int refs; /* the owner's, and those of replays and conditional nodes */
    atomic_uint abort_gen;
    pthread_mutex_t lock;
    gplan *plan;
};

/* A replay of nodes [begin, end) of the plan it began with, stopped by an
 * abort of its graph. A launch is one replay, or several when external
 * records and waits split it. */
typedef struct replay {
    backend_graph *g; /* a reference */
    gplan *plan;      /* a reference */
    unsigned gen;
    size_t begin, end;
} replay;

/* A conditional node's job. */
typedef struct cond_node {
    cond_kind kind;
    uint32_t size;
    const _Atomic uint64_t *word;
    backend_graph *bodies[]; /* references */
} cond_node;

typedef struct cnode {
    task *t;
    int64_t *deps;
    size_t ndeps;
} cnode;

struct host_capture {
    atomic_int refs;
    pthread_mutex_t lock;
    bool ended;
    host_stream *origin;
    cnode *nodes;
    size_t count, cap;
    host_stream **streams; /* joined streams, each a reference */
    size_t nstreams, stream_cap;
    keeps *kept;
};

static void keeps_release(keeps *k)
{
    if (!k || atomic_fetch_sub(&k->refs, 1) != 1)
        return;
    for (size_t i = 0; i < k->count; i++)
        k->items[i].release(k->items[i].ptr);
    free(k->items);
    free(k);
}

static void gnode_release(gnode *n)
{
    /* A loop, not a recursion, along the chain of what replaced it. */
    while (n && atomic_fetch_sub(&n->refs, 1) == 1) {
        gnode *next = atomic_load_explicit(&n->next, memory_order_acquire);
        keeps_release(n->kept);
        task_free(n->t);
        free(n);
        n = next;
    }
}

/* What a replay reaching n runs: the end of its chain. */
static const task *gnode_task(gnode *n)
{
    for (gnode *next; (next = atomic_load_explicit(&n->next, memory_order_acquire));)
        n = next;
    return n->t;
}

static void plan_release(void *arg)
{
    gplan *p = arg;
    if (atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    for (size_t i = 0; i < p->count; i++)
        gnode_release(p->nodes[i]);
    for (size_t i = 0; i < p->nkept; i++)
        keeps_release(p->kept[i]);
    free(p->kept);
    free(p->off);
    free(p);
}

static void graph_release(backend_graph *g)
{
    if (atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    if (g->plan)
        plan_release(g->plan); /* replays still running hold their own reference */
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* The replays this worker runs, innermost first (its conditional bodies
 * run inside the innermost; a model's node runs another model inside
 * its own), each with the abort generation its run began with. */
typedef struct replay_frame {
    const replay *r;
    unsigned gen;
    const struct replay_frame *outer;
} replay_frame;

static _Thread_local const replay_frame *running_frame;

/* A replay stops between nodes, and a loop between rounds, once the
 * abort generation of its graph, or of a graph running it, moved on
 * (aclmdlRIAbort) or a teardown cancelled its stream's waits: a model
 * that loops for ever ends there. */
static bool replay_stopped(void)
{
    for (const replay_frame *f = running_frame; f; f = f->outer)
        if (atomic_load_explicit(&f->r->g->abort_gen, memory_order_acquire) != f->gen)
            return true;
    return host_task_cancelled();
}

/* Nodes [begin, end) of p in order, but the disabled ones. */
static void plan_run(const gplan *p, size_t begin, size_t end)
{
    for (size_t i = begin; i < end && !replay_stopped(); i++)
        if (!p->off || !p->off[i]) {
            task *t = (task *)gnode_task(p->nodes[i]);
            host_node_begin(t);
            task_run(t);
        }
}

static void replay_run(void *arg)
{
    const replay *r = arg;
    /* A launch's run began when it was queued (an abort since skips it);
     * a model's node, which every run of that model replays, begins its
     * run when reached. */
    replay_frame frame = {
        .r = r,
        .gen =
            running_frame ? atomic_load_explicit(&r->g->abort_gen, memory_order_acquire) : r->gen,
        .outer = running_frame,
    };
    running_frame = &frame;
    plan_run(r->plan, r->begin, r->end);
    running_frame = frame.outer;
}

static void replay_release(void *arg)
{
    replay *r = arg;
    plan_release(r->plan);
    graph_release(r->g);
    free(r);
}

static const host_job_ops replay_job = {"model", replay_run, replay_release};

/* ---- captures ------------------------------------------------------------------------ */

void capture_retain(host_capture *c)
{
    atomic_fetch_add(&c->refs, 1);
}

static void capture_free_nodes(host_capture *c)
{
    for (size_t i = 0; i < c->count; i++) {
        if (c->nodes[i].t)
            task_free(c->nodes[i].t);
        free(c->nodes[i].deps);
    }
    free(c->nodes);
    c->nodes = NULL;
    c->count = c->cap = 0;
}

void capture_release(host_capture *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    capture_free_nodes(c);
    for (size_t i = 0; i < c->nstreams; i++)
        stream_release_ref(c->streams[i]);
    free(c->streams);
    keeps_release(c->kept);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* With s's lock held (stream_enqueue). */
static aclError capture_record_task(host_capture *c, host_stream *s, task *t)
{
    size_t npending;
    int64_t tail;
    int64_t *pending = stream_pending(s, &npending, &tail);
    int64_t *deps = malloc((npending + 1) * sizeof *deps);
    if (!deps)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    size_t ndeps = 0;
    if (tail >= 0)
        deps[ndeps++] = tail;
    for (size_t i = 0; i < npending; i++)
        deps[ndeps++] = pending[i];
    pthread_mutex_lock(&c->lock);
    aclError err = ACL_SUCCESS;
    if (c->ended) {
        err = ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    } else if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        cnode *grown = realloc(c->nodes, cap * sizeof *grown);
        if (!grown)
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        else {
            c->nodes = grown;
            c->cap = cap;
        }
    }
    int64_t node = (int64_t)c->count;
    if (!err)
        c->nodes[c->count++] = (cnode){t, deps, ndeps};
    pthread_mutex_unlock(&c->lock);
    if (err) {
        free(deps);
        return err;
    }
    stream_set_tail(s, node);
    return ACL_SUCCESS;
}

static const host_capture_hooks capture_hooks = {
    .record_task = capture_record_task,
    .retain = capture_retain,
    .release = capture_release,
};

__attribute__((constructor)) static void register_capture_hooks(void)
{
    host_capture_hooks_set(&capture_hooks);
}

mark *capture_mark(host_stream *s)
{
    int64_t tail;
    host_capture *c = stream_capture_of(s, &tail); /* our reference goes to the mark */
    if (!c)
        return NULL;
    mark *m = mark_new(NULL);
    if (!m) {
        capture_release(c);
        return NULL;
    }
    m->capture = c;
    m->node = tail;
    return m;
}

aclError capture_wait_mark(host_stream *s, const mark *m)
{
    host_capture *c = m->capture;
    stream_lock(s);
    aclError err = ACL_SUCCESS;
    host_capture *mine = stream_capture_of_locked(s);
    if (mine == c) {
        if (m->node >= 0)
            stream_add_pending(s, m->node);
    } else if (!mine) {
        /* s joins the capture: its next node follows the recorded one. */
        pthread_mutex_lock(&c->lock);
        if (c->ended)
            err = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
        else if (c->nstreams == c->stream_cap) {
            size_t cap = c->stream_cap ? 2 * c->stream_cap : 4;
            host_stream **grown = realloc(c->streams, cap * sizeof *grown);
            if (!grown)
                err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
            else {
                c->streams = grown;
                c->stream_cap = cap;
            }
        }
        if (!err) {
            stream_retain_ref(s);
            c->streams[c->nstreams++] = s;
        }
        pthread_mutex_unlock(&c->lock);
        if (!err)
            stream_set_capture(s, c, m->node);
    } else {
        err = ACL_ERROR_RT_CAPTURE_DEPENDENCY; /* the core refuses this first */
    }
    stream_unlock(s);
    return err;
}

static aclError host_capture_begin(backend_stream *bs)
{
    host_stream *s = bs->impl;
    host_capture *c = calloc(1, sizeof *c);
    keeps *k = calloc(1, sizeof *k);
    if (!c || !k) {
        free(c);
        free(k);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    atomic_init(&c->refs, 1);
    atomic_init(&k->refs, 1);
    pthread_mutex_init(&c->lock, NULL);
    c->origin = s;
    c->kept = k;
    stream_lock(s);
    aclError err = ACL_SUCCESS;
    if (stream_capture_of_locked(s))
        err = ACL_ERROR_RT_STREAM_CAPTURED;
    else
        stream_set_capture(s, c, -1);
    stream_unlock(s);
    capture_release(c); /* the stream holds it now */
    return err;
}

/* Marks every node reachable from `from` backwards. */
static void mark_ancestors(const host_capture *c, int64_t from, unsigned char *seen)
{
    if (from < 0)
        return;
    int64_t *stack = malloc(c->count * sizeof *stack);
    size_t top = 0;
    if (!stack) {
        memset(seen, 1, c->count); /* cannot check: trust the program */
        return;
    }
    stack[top++] = from;
    seen[from] = 1;
    while (top) {
        const cnode *n = &c->nodes[stack[--top]];
        for (size_t i = 0; i < n->ndeps; i++) {
            int64_t d = n->deps[i];
            if (!seen[d]) {
                seen[d] = 1;
                stack[top++] = d;
            }
        }
    }
    free(stack);
}

static aclError host_capture_end(backend_stream *bs, bool discard, backend_graph **out)
{
    host_stream *s = bs->impl;
    *out = NULL;
    int64_t origin_tail;
    host_capture *c = stream_capture_of(s, &origin_tail);
    if (!c || c->origin != s) {
        if (c)
            capture_release(c);
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    }
    /* The origin's end: its last node and what its last waits named. */
    stream_lock(s);
    size_t nends;
    int64_t last;
    const int64_t *pending = stream_pending(s, &nends, &last);
    int64_t *ends = malloc((nends + 1) * sizeof *ends);
    if (ends) {
        if (nends)
            memcpy(ends, pending, nends * sizeof *ends);
        ends[nends++] = origin_tail;
    }
    stream_unlock(s);
    pthread_mutex_lock(&c->lock);
    c->ended = true;
    size_t nstreams = c->nstreams;
    pthread_mutex_unlock(&c->lock);
    /* Every stream in it is captured no more. */
    int64_t *tails = calloc(nstreams + 1, sizeof *tails);
    for (size_t i = 0; i < nstreams; i++) {
        stream_lock(c->streams[i]);
        int64_t tail = -1;
        if (stream_capture_of_locked(c->streams[i]) == c) {
            size_t n;
            (void)stream_pending(c->streams[i], &n, &tail);
            stream_set_capture(c->streams[i], NULL, -1);
        }
        if (tails)
            tails[i] = tail;
        stream_unlock(c->streams[i]);
    }
    stream_lock(s);
    stream_set_capture(s, NULL, -1);
    stream_unlock(s);

    aclError err = ACL_SUCCESS;
    gplan *p = NULL;
    if (!discard) {
        /* Each joined stream must have been waited for by the origin. */
        unsigned char *seen = calloc(c->count ? c->count : 1, 1);
        if (!seen || !tails || !ends)
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        if (!err) {
            for (size_t i = 0; i < nends; i++)
                if (ends[i] >= 0 && !seen[ends[i]])
                    mark_ancestors(c, ends[i], seen);
            for (size_t i = 0; i < nstreams; i++)
                if (tails[i] >= 0 && !seen[tails[i]])
                    err = ACL_ERROR_RT_STREAM_UNJOINED;
        }
        free(seen);
        if (!err && !(p = malloc(sizeof *p + c->count * sizeof p->nodes[0])))
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        if (!err && !(p->kept = malloc(sizeof *p->kept))) {
            free(p);
            p = NULL;
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        }
        if (!err) {
            atomic_init(&p->refs, 1);
            p->count = 0;
            p->off = NULL;
            p->kept[0] = c->kept;
            p->nkept = 1;
            atomic_fetch_add(&c->kept->refs, 1);
            for (size_t i = 0; i < c->count && !err; i++) {
                gnode *n = malloc(sizeof *n);
                if (!n) {
                    err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
                    break;
                }
                atomic_init(&n->refs, 1);
                atomic_init(&n->next, NULL);
                n->kept = NULL;
                n->t = c->nodes[i].t;
                c->nodes[i].t = NULL;
                p->nodes[p->count++] = n;
            }
        }
    }
    free(tails);
    free(ends);
    backend_graph *g = NULL;
    if (!err && p && !(g = malloc(sizeof *g)))
        err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (err || discard) {
        if (p)
            plan_release(p);
        free(g);
        capture_release(c);
        return err;
    }
    atomic_init(&g->refs, 1);
    atomic_init(&g->abort_gen, 0);
    pthread_mutex_init(&g->lock, NULL);
    g->plan = p;
    capture_release(c);
    *out = g;
    return ACL_SUCCESS;
}

static aclError host_capture_last_node(backend_stream *bs, uint64_t *node)
{
    int64_t tail;
    host_capture *c = stream_capture_of(bs->impl, &tail);
    if (!c)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    capture_release(c);
    if (tail < 0)
        return ACL_ERROR_RT_PARAM_INVALID;
    *node = (uint64_t)tail;
    return ACL_SUCCESS;
}

static aclError host_capture_keep(backend_stream *bs, void *ptr, void (*release)(void *))
{
    host_capture *c = stream_capture_of(bs->impl, NULL);
    if (!c)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    pthread_mutex_lock(&c->lock);
    keeps *k = c->kept;
    aclError err = ACL_SUCCESS;
    if (k->count == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 8;
        keep_item *grown = realloc(k->items, cap * sizeof *grown);
        if (!grown)
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        else {
            k->items = grown;
            k->cap = cap;
        }
    }
    if (!err)
        k->items[k->count++] = (keep_item){ptr, release};
    pthread_mutex_unlock(&c->lock);
    capture_release(c);
    return err;
}

/* ---- graphs -------------------------------------------------------------------------- */

static gplan *graph_plan(backend_graph *g)
{
    pthread_mutex_lock(&g->lock);
    gplan *p = g->plan;
    atomic_fetch_add(&p->refs, 1);
    pthread_mutex_unlock(&g->lock);
    return p;
}

/* Whether node i of p is an enabled external record or wait. */
static bool external_node(const gplan *p, size_t i)
{
    task_kind kind = task_kind_of(p->nodes[i]->t);
    return (kind == TASK_EXT_RECORD || kind == TASK_EXT_WAIT) && !(p->off && p->off[i]);
}

/* What one launch queues: replays of the stretches between external
 * nodes, each with the mark its completion gives (those an external record
 * right after it sets), and waits for the marks of externally waited
 * events as they are at the launch. */
typedef struct launch_list {
    task **tasks;
    mark **marks;
    size_t count;
} launch_list;

static void launch_list_discard(launch_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        task_free(l->tasks[i]); /* a replay's payload, a wait's mark */
        mark_release(l->marks[i]);
    }
}

/* Adds a replay of [begin, end); with_mark: a mark of its completion. */
static aclError launch_add_replay(launch_list *l, backend_graph *g, gplan *p, unsigned gen,
                                  size_t begin, size_t end, bool with_mark, host_stream *s)
{
    replay *r = malloc(sizeof *r);
    mark *m = with_mark ? mark_new(s) : NULL;
    task *t = r ? task_new_job(&replay_job, r) : NULL;
    if (!t || (with_mark && !m)) {
        if (t)
            task_discard(t);
        free(r);
        mark_release(m);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    atomic_fetch_add(&g->refs, 1);
    atomic_fetch_add(&p->refs, 1);
    *r = (replay){g, p, gen, begin, end};
    l->tasks[l->count] = t;
    l->marks[l->count++] = m;
    return ACL_SUCCESS;
}

/* Queues a launch of p whose external nodes act as the launch is made,
 * as CUDA's event nodes do: a record gives its event the mark of the
 * stretch before it, a wait waits for the event's mark of now. All of it
 * goes on s at once. */
static aclError launch_split(host_stream *s, backend_graph *g, gplan *p, unsigned gen)
{
    launch_list l = {malloc((2 * p->count + 1) * sizeof(task *)),
                     malloc((2 * p->count + 1) * sizeof(mark *)), 0};
    aclError err = l.tasks && l.marks ? ACL_SUCCESS : ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    size_t begin = 0;
    for (size_t i = 0; err == ACL_SUCCESS && i <= p->count; i++) {
        if (i < p->count && !external_node(p, i))
            continue;
        bool record = i < p->count && task_kind_of(p->nodes[i]->t) == TASK_EXT_RECORD;
        if (i > begin || record)
            err = launch_add_replay(&l, g, p, gen, begin, i, record, s);
        begin = i + 1;
        if (err || i == p->count || record)
            continue;
        mark *m = host_event_mark(task_event(p->nodes[i]->t));
        /* Nothing to wait for: never recorded, recorded by a capture (its
         * record belongs to a model), complete, or recorded on s itself. */
        if (!m || m->capture || !m->stream || m->stream == s || mark_wait(m, 0)) {
            mark_release(m);
            continue;
        }
        task *t = task_new_wait(m);
        if (!t) {
            mark_release(m);
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
            continue;
        }
        l.tasks[l.count] = t;
        l.marks[l.count++] = NULL;
    }
    if (err == ACL_SUCCESS)
        err = stream_enqueue_all(s, l.tasks, l.marks, l.count);
    if (err == ACL_SUCCESS) {
        /* Each record's event now stands for its place in this launch. */
        size_t at = 0;
        for (size_t i = 0; i < p->count; i++) {
            if (!external_node(p, i))
                continue;
            if (task_kind_of(p->nodes[i]->t) == TASK_EXT_RECORD) {
                while (!l.marks[at])
                    at++; /* the replay before this record carries its mark */
                host_event_set_mark(task_event(p->nodes[i]->t), l.marks[at++]);
            }
        }
        for (size_t i = 0; i < l.count; i++)
            mark_release(l.marks[i]);
    } else {
        launch_list_discard(&l);
    }
    free(l.tasks);
    free(l.marks);
    return err;
}

aclError host_graph_launch(backend_stream *bs, backend_graph *g)
{
    host_stream *s = bs->impl;
    gplan *p = graph_plan(g);
    unsigned gen = atomic_load_explicit(&g->abort_gen, memory_order_acquire);
    bool split = false;
    for (size_t i = 0; i < p->count && !split; i++)
        split = external_node(p, i);
    host_capture *c = split ? stream_capture_of(s, NULL) : NULL;
    if (c) {
        /* Launched into a capture: one node, whose external nodes act when
         * it runs (task_run). */
        capture_release(c);
        split = false;
    }
    if (split) {
        aclError err = launch_split(s, g, p, gen);
        plan_release(p);
        return err;
    }
    replay *r = malloc(sizeof *r);
    if (!r) {
        plan_release(p);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    atomic_fetch_add(&g->refs, 1);
    *r = (replay){g, p, gen, 0, p->count};
    return stream_enqueue_job(s, &replay_job, r);
}

static void host_graph_destroy(backend_graph *g)
{
    graph_release(g);
}

static aclError host_graph_abort(backend_graph *g)
{
    atomic_fetch_add_explicit(&g->abort_gen, 1, memory_order_acq_rel);
    return ACL_SUCCESS;
}

static const char *task_name(const task *t)
{
    switch (task_kind_of(t)) {
    case TASK_COPY:
        return "copy";
    case TASK_COPY_2D:
        return "copy 2D";
    case TASK_SET:
        return "fill";
    case TASK_HOST_FN:
        return "host function";
    case TASK_WAIT:
        return "event wait";
    case TASK_TIMESTAMP:
        return "event record";
    case TASK_VALUE_WRITE:
        return "value write";
    case TASK_VALUE_WAIT:
        return "value wait";
    case TASK_WORD:
        return "notify record";
    case TASK_WORD_WAIT:
        return "notify wait";
    case TASK_JOB:
        return task_job(t)->name;
    case TASK_SET32:
        return "32-bit fill";
    case TASK_BATCH:
        return "batch of copies";
    case TASK_INDIRECT:
        return "copy through device-resident addresses";
    case TASK_IPC_SIGNAL:
        return "IPC event record";
    case TASK_IPC_WAIT:
        return "IPC event wait";
    case TASK_EXT_RECORD:
        return "external event record";
    case TASK_EXT_WAIT:
        return "external event wait";
    }
    return "task";
}

static aclError host_graph_nodes(backend_graph *g, size_t *count, const char **kinds, size_t max)
{
    gplan *p = graph_plan(g);
    *count = p->count;
    for (size_t i = 0; i < p->count && i < max; i++)
        kinds[i] = task_name(p->nodes[i]->t);
    plan_release(p);
    return ACL_SUCCESS;
}

/* A copy of old whose node target is `with` (NULL: the same), with the
 * kept objects of old and of extra (NULL: none), and whose node target is
 * disabled when `disable` (else as in old). Replays that started before
 * keep the old plan. */
static gplan *host_plan_copy(const gplan *old, size_t target, gnode *with, const gplan *extra,
                             bool disable)
{
    gplan *p = malloc(sizeof *p + old->count * sizeof p->nodes[0]);
    size_t nextra = extra ? extra->nkept : 0;
    keeps **kept = p ? malloc((old->nkept + nextra + 1) * sizeof *kept) : NULL;
    unsigned char *off = NULL;
    if (kept && (old->off || disable)) {
        off = calloc(old->count ? old->count : 1, 1);
        if (off && old->off)
            memcpy(off, old->off, old->count);
    }
    if (!p || !kept || ((old->off || disable) && !off)) {
        free(p);
        free(kept);
        free(off);
        return NULL;
    }
    atomic_init(&p->refs, 1);
    p->count = old->count;
    for (size_t i = 0; i < old->count; i++) {
        p->nodes[i] = i == target && with ? with : old->nodes[i];
        atomic_fetch_add(&p->nodes[i]->refs, 1);
    }
    p->kept = kept;
    p->nkept = 0;
    for (size_t i = 0; i < old->nkept; i++)
        p->kept[p->nkept++] = old->kept[i];
    for (size_t i = 0; i < nextra; i++)
        p->kept[p->nkept++] = extra->kept[i];
    for (size_t i = 0; i < p->nkept; i++)
        atomic_fetch_add(&p->kept[i]->refs, 1);
    if (off && disable && target < old->count)
        off[target] = 1;
    p->off = off;
    return p;
}

/* Node target of g becomes update's node source. */
static aclError host_graph_update_node(backend_graph *g, uint64_t target, backend_graph *update,
                                       uint64_t source)
{
    gplan *from = graph_plan(update);
    pthread_mutex_lock(&g->lock);
    gplan *old = g->plan;
    aclError err = ACL_SUCCESS;
    if (target >= old->count || source >= from->count)
        err = ACL_ERROR_RT_PARAM_INVALID;
    else {
        const task *a = old->nodes[target]->t, *b = from->nodes[source]->t;
        if (task_kind_of(a) != task_kind_of(b) || task_job(a) != task_job(b))
            err = ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    }
    gplan *p = NULL;
    if (!err && !(p = host_plan_copy(old, target, from->nodes[source], from, false)))
        err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (p)
        g->plan = p;
    pthread_mutex_unlock(&g->lock);
    if (p)
        plan_release(old);
    plan_release(from);
    return err;
}

static aclError host_graph_enable_node(backend_graph *g, uint64_t node, bool enable)
{
    pthread_mutex_lock(&g->lock);
    gplan *old = g->plan;
    aclError err = node < old->count ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
    gplan *p = NULL;
    if (!err && enable && old->off && old->off[node]) {
        if ((p = host_plan_copy(old, node, NULL, NULL, false)))
            p->off[node] = 0;
    } else if (!err && !enable && !(old->off && old->off[node])) {
        p = host_plan_copy(old, node, NULL, NULL, true);
    } else if (!err) {
        pthread_mutex_unlock(&g->lock);
        return ACL_SUCCESS; /* already so */
    }
    if (!err && !p)
        err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (p)
        g->plan = p;
    pthread_mutex_unlock(&g->lock);
    if (p)
        plan_release(old);
    return err;
}

/* The work w, recorded as the one node of a graph of its own: captured on
 * a stream of ours that exists for the call. */
static aclError record_work(int32_t dev, const node_work *w, backend_graph **out)
{
    *out = NULL;
    backend_stream *bs = calloc(1, host_stream_ops.size);
    if (!bs)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    aclError err = host_stream_ops.create(bs, dev, 0);
    if (err) {
        free(bs);
        return err;
    }
    if (!(err = host_capture_begin(bs))) {
        switch (w->kind) {
        case NODE_WORK_KERNEL:
            err = host_launch(bs, w->u.launch);
            break;
        case NODE_WORK_RANDOM:
            err = host_random(bs, w->u.random);
            break;
        case NODE_WORK_VALUE_WRITE:
            err = host_stream_ops.value_write(bs, w->u.value.addr, w->u.value.value);
            break;
        case NODE_WORK_VALUE_WAIT:
            err = host_stream_ops.value_wait(bs, w->u.value.addr, w->u.value.value, w->u.value.cmp);
            break;
        }
        aclError end = host_capture_end(bs, err != ACL_SUCCESS, out);
        if (!err)
            err = end;
    }
    host_stream_ops.destroy(bs, true);
    free(bs);
    if (!err && (!*out || (*out)->plan->count != 1))
        err = ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    if (err && *out) {
        graph_release(*out);
        *out = NULL;
    }
    return err;
}

static aclError host_graph_set_node(backend_graph *g, uint64_t node, int32_t dev,
                                    const node_work *w)
{
    backend_graph *work;
    aclError err = record_work(dev, w, &work);
    if (err)
        return err;
    err = host_graph_update_node(g, node, work, 0);
    graph_release(work);
    return err;
}

/* ---- nodes changed in stream order ------------------------------------------------- */

typedef struct node_change {
    backend_graph *g; /* a reference */
    size_t node;
    gnode *with; /* a reference */
} node_change;

/* On the stream, in its order: `with` goes at the end of the node's chain
 * in the graph's plan (replays queued already find it there) and into the
 * graph's next plan. */
static void node_change_run(void *arg)
{
    node_change *c = arg;
    backend_graph *g = c->g;
    pthread_mutex_lock(&g->lock);
    gplan *old = g->plan;
    gplan *p = NULL;
    if (c->node < old->count) {
        gnode *last = old->nodes[c->node];
        for (gnode *next; (next = atomic_load_explicit(&last->next, memory_order_acquire));)
            last = next;
        atomic_fetch_add(&c->with->refs, 1);
        atomic_store_explicit(&last->next, c->with, memory_order_release);
        /* Out of memory, the chain alone carries the change. */
        if ((p = host_plan_copy(old, c->node, c->with, NULL, false)))
            g->plan = p;
    }
    pthread_mutex_unlock(&g->lock);
    if (p)
        plan_release(old);
}

static void node_change_release(void *arg)
{
    node_change *c = arg;
    gnode_release(c->with);
    graph_release(c->g);
    free(c);
}

static const host_job_ops node_change_job = {"task update", node_change_run, node_change_release};

aclError host_graph_set_node_ordered(backend_stream *bs, backend_graph *g, uint64_t node,
                                     int32_t dev, const node_work *w)
{
    backend_graph *work;
    aclError err = record_work(dev, w, &work);
    if (err)
        return err;
    gnode *with = work->plan->nodes[0];
    gplan *cur = graph_plan(g);
    if (node >= cur->count)
        err = ACL_ERROR_RT_PARAM_INVALID;
    else if (task_kind_of(cur->nodes[node]->t) != task_kind_of(with->t) ||
             task_job(cur->nodes[node]->t) != task_job(with->t))
        err = ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    plan_release(cur);
    node_change *c = err ? NULL : malloc(sizeof *c);
    if (!err && !c)
        err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (!err) {
        /* What the work's capture kept goes with the node. */
        if (work->plan->nkept && !with->kept) {
            with->kept = work->plan->kept[0];
            atomic_fetch_add(&with->kept->refs, 1);
        }
        atomic_fetch_add(&with->refs, 1);
        atomic_fetch_add(&g->refs, 1);
        *c = (node_change){g, (size_t)node, with};
    }
    graph_release(work);
    if (err)
        return err;
    return stream_enqueue_job(bs->impl, &node_change_job, c);
}

/* ---- conditional nodes ------------------------------------------------------------ */

static backend_graph *body_new(void)
{
    backend_graph *g = calloc(1, sizeof *g);
    gplan *p = calloc(1, sizeof *p);
    if (!g || !p) {
        free(g);
        free(p);
        return NULL;
    }
    atomic_init(&p->refs, 1);
    atomic_init(&g->refs, 1);
    atomic_init(&g->abort_gen, 0);
    pthread_mutex_init(&g->lock, NULL);
    g->plan = p;
    return g;
}

static void run_body(backend_graph *body)
{
    gplan *p = graph_plan(body);
    plan_run(p, 0, p->count);
    plan_release(p);
}

static void cond_run(void *arg)
{
    cond_node *c = arg;
    uint64_t v = atomic_load_explicit(c->word, memory_order_acquire);
    switch (c->kind) {
    case COND_IF:
        if (v)
            run_body(c->bodies[0]);
        else if (c->size == 2)
            run_body(c->bodies[1]);
        break;
    case COND_WHILE:
        while (atomic_load_explicit(c->word, memory_order_acquire) && !replay_stopped())
            run_body(c->bodies[0]);
        break;
    case COND_SWITCH:
        if (v < c->size)
            run_body(c->bodies[v]);
        break;
    }
}

static void cond_release(void *arg)
{
    cond_node *c = arg;
    for (uint32_t i = 0; i < c->size; i++)
        graph_release(c->bodies[i]);
    free(c);
}

static const host_job_ops cond_job = {"conditional", cond_run, cond_release};

/* Nothing to make: a conditional node reads its word itself. */
static aclError host_cond_create(backend_stream *bs, uint32_t default_value, bool assign_default,
                                 uint64_t *out)
{
    (void)bs;
    (void)default_value;
    (void)assign_default;
    *out = 0;
    return ACL_SUCCESS;
}

/* A conditional node over `size` new bodies, handed out in bodies (each
 * with a reference of the caller's). */
static aclError cond_new(const void *word, cond_kind kind, uint32_t size, backend_graph **bodies,
                         cond_node **out)
{
    if (size == 0)
        return ACL_ERROR_RT_PARAM_INVALID;
    cond_node *c = calloc(1, sizeof *c + size * sizeof c->bodies[0]);
    if (!c)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    c->kind = kind;
    c->word = (const _Atomic uint64_t *)word;
    for (uint32_t i = 0; i < size; i++) {
        if (!(c->bodies[i] = body_new())) {
            cond_release(c);
            return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        }
        c->size = i + 1;
    }
    for (uint32_t i = 0; i < size; i++) {
        atomic_fetch_add(&c->bodies[i]->refs, 1);
        bodies[i] = c->bodies[i];
    }
    *out = c;
    return ACL_SUCCESS;
}

static aclError host_add_cond(backend_stream *bs, uint64_t cond, const void *word, cond_kind kind,
                              uint32_t size, backend_graph **bodies)
{
    (void)cond;
    cond_node *c;
    aclError made = cond_new(word, kind, size, bodies, &c);
    if (made)
        return made;
    aclError err = stream_enqueue_job(bs->impl, &cond_job, c); /* recorded: s is capturing */
    if (err)
        for (uint32_t i = 0; i < size; i++)
            graph_release(bodies[i]);
    return err;
}

static aclError host_capture_begin_into(backend_stream *bs, backend_graph *body)
{
    (void)body; /* the plan goes there at the end */
    return host_capture_begin(bs);
}

static aclError host_capture_end_into(backend_stream *bs, backend_graph *body, bool discard)
{
    backend_graph *g = NULL;
    aclError err = host_capture_end(bs, discard, &g);
    if (err || !g)
        return err;
    pthread_mutex_lock(&body->lock);
    gplan *old = body->plan;
    body->plan = g->plan;
    g->plan = old;
    pthread_mutex_unlock(&body->lock);
    graph_release(g);
    return ACL_SUCCESS;
}

/* ---- models with stream control flow ------------------------------------------------
 * Their graphs are put together after the captures of their pieces, node
 * by node: a node is appended to its graph's plan, in the order the core
 * adds them, which follows their dependencies; a plan runs in order, so
 * the dependencies need no keeping here (nodes are their places). Nobody
 * runs a graph while it is put together: a node replaces the plan. */

/* g's plan with n (a reference, taken; NULL: none) and k (a reference,
 * taken; NULL: none) appended. Out of memory, nothing is taken. */
static aclError plan_append(backend_graph *g, gnode *n, keeps *k, uint64_t *node)
{
    gplan *old = g->plan;
    size_t count = old->count + (n ? 1 : 0);
    gplan *p = malloc(sizeof *p + count * sizeof p->nodes[0]);
    keeps **kept = p ? malloc((old->nkept + 1) * sizeof *kept) : NULL;
    unsigned char *off = kept && old->off ? calloc(count, 1) : NULL;
    if (!p || !kept || (old->off && !off)) {
        free(p);
        free(kept);
        free(off);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    atomic_init(&p->refs, 1);
    p->count = count;
    for (size_t i = 0; i < old->count; i++) {
        p->nodes[i] = old->nodes[i];
        atomic_fetch_add(&p->nodes[i]->refs, 1);
    }
    if (n)
        p->nodes[old->count] = n;
    if (off)
        memcpy(off, old->off, old->count);
    p->off = off;
    p->kept = kept;
    p->nkept = 0;
    for (size_t i = 0; i < old->nkept; i++) {
        p->kept[p->nkept++] = old->kept[i];
        atomic_fetch_add(&old->kept[i]->refs, 1);
    }
    if (k)
        p->kept[p->nkept++] = k;
    if (node)
        *node = old->count;
    g->plan = p;
    plan_release(old);
    return ACL_SUCCESS;
}

/* Appends a job node; on failure the payload is released. */
static aclError append_job(backend_graph *g, const host_job_ops *ops, void *payload, uint64_t *node)
{
    task *t = task_new_job(ops, payload);
    gnode *n = t ? malloc(sizeof *n) : NULL;
    if (!n) {
        if (t)
            task_discard(t);
        ops->release(payload);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    atomic_init(&n->refs, 1);
    atomic_init(&n->next, NULL);
    n->kept = NULL;
    n->t = t;
    aclError err = plan_append(g, n, NULL, node);
    if (err)
        gnode_release(n);
    return err;
}

/* Nothing to join: a capture's plan runs in order, so its last node
 * follows all its work. */
static aclError host_capture_end_piece(backend_stream *bs, bool discard, backend_graph **out,
                                       uint64_t *end)
{
    aclError err = host_capture_end(bs, discard, out);
    if (!err && *out && end)
        *end = (*out)->plan->count;
    return err;
}

static void child_run(void *arg)
{
    run_body(arg);
}

static void child_release(void *arg)
{
    graph_release(arg);
}

static const host_job_ops child_job = {"stream work", child_run, child_release};

static aclError host_add_child(backend_graph *g, const uint64_t *deps, size_t ndeps,
                               backend_graph *piece, uint64_t *node)
{
    (void)deps;
    (void)ndeps;
    atomic_fetch_add(&piece->refs, 1);
    return append_job(g, &child_job, piece, node);
}

typedef struct select_node {
    _Atomic uint64_t *word;
    flow_select sel;
} select_node;

/* Operands are read with memcpy: device memory of the host backend is the
 * process's, and ACL does not promise their alignment. */
static int64_t select_operand(const void *p, bool wide)
{
    if (wide) {
        int64_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t select_value(const flow_select *s)
{
    switch (s->kind) {
    case FLOW_SELECT_CONSTANT:
        return s->value;
    case FLOW_SELECT_INDEX:
    case FLOW_SELECT_MASK: {
        uint32_t i;
        memcpy(&i, s->index, sizeof i);
        if (i > s->count - 1)
            i = s->count - 1;
        return s->kind == FLOW_SELECT_INDEX ? i : (s->value >> i) & 1;
    }
    case FLOW_SELECT_COMPARE: {
        int64_t l = select_operand(s->left, s->wide), r = select_operand(s->right, s->wide);
        switch (s->cmp) {
        case ACL_RT_EQUAL:
            return l == r;
        case ACL_RT_NOT_EQUAL:
            return l != r;
        case ACL_RT_GREATER:
            return l > r;
        case ACL_RT_GREATER_OR_EQUAL:
            return l >= r;
        case ACL_RT_LESS:
            return l < r;
        case ACL_RT_LESS_OR_EQUAL:
            return l <= r;
        }
        return 0;
    }
    }
    return 0;
}

static void select_run(void *arg)
{
    select_node *n = arg;
    atomic_store_explicit(n->word, select_value(&n->sel), memory_order_release);
}

static const host_job_ops select_job = {"condition", select_run, free};

static aclError host_add_select(backend_graph *g, const uint64_t *deps, size_t ndeps,
                                uint64_t *word, const flow_select *sel, uint64_t *node)
{
    (void)deps;
    (void)ndeps;
    select_node *n = malloc(sizeof *n);
    if (!n)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    n->word = (_Atomic uint64_t *)word;
    n->sel = *sel;
    return append_job(g, &select_job, n, node);
}

static aclError host_add_cond_node(backend_graph *g, const uint64_t *deps, size_t ndeps,
                                   const uint64_t *word, cond_kind kind, uint32_t size,
                                   backend_graph **bodies, uint64_t *node)
{
    (void)deps;
    (void)ndeps;
    cond_node *c;
    aclError made = cond_new(word, kind, size, bodies, &c);
    if (made)
        return made;
    aclError err = append_job(g, &cond_job, c, node);
    if (err)
        for (uint32_t i = 0; i < size; i++)
            graph_release(bodies[i]);
    return err;
}

/* A loop's job reads its word before each round itself. */
static aclError host_loop_end(backend_graph *body, const uint64_t *deps, size_t ndeps)
{
    (void)body;
    (void)deps;
    (void)ndeps;
    return ACL_SUCCESS;
}

static aclError host_graph_keep(backend_graph *g, void *ptr, void (*release)(void *))
{
    keeps *k = calloc(1, sizeof *k);
    keep_item *item = k ? malloc(sizeof *item) : NULL;
    if (!item) {
        free(k);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    *item = (keep_item){ptr, release};
    atomic_init(&k->refs, 1);
    k->items = item;
    k->count = k->cap = 1;
    aclError err = plan_append(g, NULL, k, NULL);
    if (err) {
        free(item);
        free(k);
    }
    return err;
}

/* A plan runs as it is. */
static aclError host_graph_finish(backend_graph *g)
{
    (void)g;
    return ACL_SUCCESS;
}

const backend_graph_ops host_graph_ops = {
    .capture_begin = host_capture_begin,
    .capture_end = host_capture_end,
    .capture_last_node = host_capture_last_node,
    .capture_keep = host_capture_keep,
    .destroy = host_graph_destroy,
    .launch_captured = true,
    .nodes = host_graph_nodes,
    .update_node = host_graph_update_node,
    .enable_node = host_graph_enable_node,
    .set_node = host_graph_set_node,
    .cond_create = host_cond_create,
    .add_cond = host_add_cond,
    .capture_begin_into = host_capture_begin_into,
    .capture_end_into = host_capture_end_into,
    .abort = host_graph_abort,
    .capture_end_piece = host_capture_end_piece,
    .add_child = host_add_child,
    .add_select = host_add_select,
    .add_cond_node = host_add_cond_node,
    .loop_end = host_loop_end,
    .keep = host_graph_keep,
    .finish = host_graph_finish,
};
