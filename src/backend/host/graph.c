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
 * callbacks' templates) goes with the last plan.
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
} gnode;

typedef struct gplan {
    atomic_int refs;
    keeps **kept; /* the capture's, then each update's */
    size_t nkept;
    size_t count;
    gnode *nodes[];
} gplan;

struct backend_graph {
    pthread_mutex_t lock;
    gplan *plan;
};

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
    if (atomic_fetch_sub(&n->refs, 1) != 1)
        return;
    task_free(n->t);
    free(n);
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
    free(p);
}

static void plan_run(void *arg)
{
    gplan *p = arg;
    for (size_t i = 0; i < p->count; i++)
        task_run(p->nodes[i]->t);
}

static const host_job_ops replay_job = {"model", plan_run, plan_release};

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
aclError capture_record_task(host_capture *c, host_stream *s, task *t)
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
        err = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
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

aclError host_graph_launch(backend_stream *bs, backend_graph *g)
{
    return stream_enqueue_job(bs->impl, &replay_job, graph_plan(g));
}

static void host_graph_destroy(backend_graph *g)
{
    plan_release(g->plan); /* replays still running hold their own reference */
    pthread_mutex_destroy(&g->lock);
    free(g);
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

/* A new plan in which node target is update's node source; replays that
 * started before keep the old plan. */
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
    gplan *p = err ? NULL : malloc(sizeof *p + old->count * sizeof p->nodes[0]);
    if (!err && !p)
        err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (!err) {
        atomic_init(&p->refs, 1);
        p->count = old->count;
        for (size_t i = 0; i < old->count; i++) {
            p->nodes[i] = i == target ? from->nodes[source] : old->nodes[i];
            atomic_fetch_add(&p->nodes[i]->refs, 1);
        }
        /* The old plan's kept objects, and the update's. */
        p->kept = malloc((old->nkept + from->nkept) * sizeof *p->kept);
        p->nkept = 0;
        if (!p->kept) {
            for (size_t i = 0; i < p->count; i++)
                gnode_release(p->nodes[i]);
            free(p);
            p = NULL;
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        } else {
            for (size_t i = 0; i < old->nkept; i++)
                p->kept[p->nkept++] = old->kept[i];
            for (size_t i = 0; i < from->nkept; i++)
                p->kept[p->nkept++] = from->kept[i];
            for (size_t i = 0; i < p->nkept; i++)
                atomic_fetch_add(&p->kept[i]->refs, 1);
        }
    }
    if (p) {
        g->plan = p;
    }
    pthread_mutex_unlock(&g->lock);
    if (p)
        plan_release(old);
    plan_release(from);
    return err;
}

const backend_graph_ops host_graph_ops = {
    .capture_begin = host_capture_begin,
    .capture_end = host_capture_end,
    .capture_last_node = host_capture_last_node,
    .capture_keep = host_capture_keep,
    .destroy = host_graph_destroy,
    .nodes = host_graph_nodes,
    .update_node = host_graph_update_node,
    .enable_node = NULL,
};
