/* Builds with stream control flow: the plan's nodes, added to the prefix's
 * graph (graph_flow.h).
 *
 * A scope's threads are put into its graph step by step, each step once
 * what it depends on is in: a thread follows its own last node, a stream
 * started by others starts after all of them, a wait follows the record
 * it waits for (when a thread of the scope makes it; a record inside a
 * conditional step counts as made by that step, and the step itself
 * follows records of its scope that its bodies wait for). Steps that
 * cannot go in because they wait for each other are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/graph_flow.h"

/* The nodes a new node follows. */
typedef struct deps {
    uint64_t *v;
    size_t n, cap;
} deps;

static aclError deps_add(deps *d, uint64_t node)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i] == node)
            return ACL_SUCCESS;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 4;
        uint64_t *grown = realloc(d->v, cap * sizeof *grown);
        if (!grown)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        d->v = grown;
        d->cap = cap;
    }
    d->v[d->n++] = node;
    return ACL_SUCCESS;
}

static aclError deps_merge(deps *d, const deps *from)
{
    aclError err = ACL_SUCCESS;
    for (size_t i = 0; i < from->n && !err; i++)
        err = deps_add(d, from->v[i]);
    return err;
}

/* Only node from now on. */
static aclError deps_only(deps *d, uint64_t node)
{
    d->n = 0;
    return deps_add(d, node);
}

static bool set_has(const uint64_t *set, uint32_t id)
{
    return set[id / 64] >> (id % 64) & 1;
}

typedef struct emitter {
    const char *api;
    acl_model *m;
    const model_flow *f;
    const flow_plan *plan;
    uint64_t **words;
} emitter;

typedef struct thread_state {
    deps tail;
    size_t pos;
    uint32_t started; /* starters in so far */
} thread_state;

/* A scope's records: how many of its steps make each, how many are in, and
 * the nodes they stand for. */
typedef struct scope_records {
    uint32_t *makers, *in;
    deps *at;
    size_t count;
} scope_records;

static void records_free(scope_records *r)
{
    for (size_t i = 0; r->at && i < r->count; i++)
        free(r->at[i].v);
    free(r->at);
    free(r->makers);
    free(r->in);
}

static aclError records_of(const flow_plan *plan, const flow_scope *sc, size_t count,
                           scope_records *r)
{
    r->count = count;
    r->makers = calloc(count ? count : 1, sizeof *r->makers);
    r->in = calloc(count ? count : 1, sizeof *r->in);
    r->at = calloc(count ? count : 1, sizeof *r->at);
    if (!r->makers || !r->in || !r->at)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    for (size_t i = 0; i < sc->nthreads; i++)
        for (size_t j = 0; j < sc->threads[i].nsteps; j++) {
            const flow_step *st = &sc->threads[i].steps[j];
            if (st->kind == STEP_RECORD)
                r->makers[st->u.record]++;
            else if (st->kind == STEP_COND)
                for (uint32_t id = 0; id < count && plan->set_words; id++)
                    if (set_has(st->u.cond.made, id))
                        r->makers[id]++;
        }
    return ACL_SUCCESS;
}

/* Whether the records `id` of the scope are all in (or none is its own). */
static bool record_ready(const scope_records *r, uint32_t id)
{
    return r->makers[id] == r->in[id];
}

static bool step_ready(const scope_records *r, const flow_step *st)
{
    if (st->kind == STEP_WAIT)
        return record_ready(r, st->u.record);
    if (st->kind != STEP_COND)
        return true;
    for (uint32_t id = 0; id < r->count; id++)
        if (set_has(st->u.cond.waited, id) && !record_ready(r, id))
            return false;
    return true;
}

static aclError emit_scope(emitter *e, const flow_scope *sc, backend_graph *g, const deps *start,
                           deps *root_tail);

static aclError emit_cond(emitter *e, const flow_step *st, backend_graph *g, thread_state *t,
                          scope_records *r)
{
    const backend_graph_ops *ops = backend()->graph;
    deps d = {0};
    aclError err = deps_merge(&d, &t->tail);
    for (uint32_t id = 0; id < r->count && !err; id++)
        if (set_has(st->u.cond.waited, id))
            err = deps_merge(&d, &r->at[id]);
    uint32_t size = st->u.cond.size;
    backend_graph **bodies = err ? NULL : calloc(size, sizeof *bodies);
    uint64_t node = 0;
    if (!err && !bodies)
        err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (!err)
        err = ops->add_cond_node(g, d.v, d.n, e->words[st->word], st->u.cond.kind, size, bodies,
                                 &node);
    free(d.v);
    if (err) {
        free(bodies);
        return acl_raise(e->api, err, "adding a conditional task to model %u failed: %s",
                         (unsigned)e->m->id, acl_error_text(err));
    }
    for (uint32_t b = 0; b < size && !err; b++) {
        deps none = {0}, tail = {0};
        err = emit_scope(e, st->u.cond.bodies[b], bodies[b], &none, &tail);
        if (!err && st->u.cond.kind == COND_WHILE &&
            (err = ops->loop_end(bodies[b], tail.v, tail.n)))
            err = acl_raise(e->api, err, "ending a loop of model %u failed: %s", (unsigned)e->m->id,
                            acl_error_text(err));
        free(tail.v);
    }
    for (uint32_t b = 0; b < size; b++)
        ops->destroy(bodies[b]); /* the node keeps them */
    free(bodies);
    if (err)
        return err;
    err = deps_only(&t->tail, node);
    for (uint32_t id = 0; id < r->count && !err; id++)
        if (set_has(st->u.cond.made, id) && !(err = deps_add(&r->at[id], node)))
            r->in[id]++;
    return err ? acl_raise(e->api, err, "out of host memory") : ACL_SUCCESS;
}

static aclError emit_step(emitter *e, const flow_scope *sc, thread_state *ts, size_t ti,
                          backend_graph *g, scope_records *r)
{
    const backend_graph_ops *ops = backend()->graph;
    thread_state *t = &ts[ti];
    const flow_step *st = &sc->threads[ti].steps[t->pos];
    uint64_t node = 0;
    aclError err = ACL_SUCCESS;
    switch (st->kind) {
    case STEP_PIECE:
        if ((err = ops->add_child(g, t->tail.v, t->tail.n, st->u.piece, &node)))
            return acl_raise(e->api, err, "adding the work of stream %d to model %u failed: %s",
                             (int)e->f->streams[sc->threads[ti].stream].id, (unsigned)e->m->id,
                             acl_error_text(err));
        err = deps_only(&t->tail, node);
        break;
    case STEP_ACTIVATE:
        if (!(err = deps_merge(&ts[st->u.thread].tail, &t->tail)))
            ts[st->u.thread].started++;
        break;
    case STEP_RECORD:
        if (!(err = deps_merge(&r->at[st->u.record], &t->tail)))
            r->in[st->u.record]++;
        break;
    case STEP_WAIT:
        err = deps_merge(&t->tail, &r->at[st->u.record]);
        break;
    case STEP_SELECT:
        if ((err = ops->add_select(g, t->tail.v, t->tail.n, e->words[st->word], &st->u.select,
                                   &node)))
            return acl_raise(e->api, err, "adding a condition to model %u failed: %s",
                             (unsigned)e->m->id, acl_error_text(err));
        err = deps_only(&t->tail, node);
        break;
    case STEP_COND:
        return emit_cond(e, st, g, t, r);
    }
    return err ? acl_raise(e->api, err, "out of host memory") : ACL_SUCCESS;
}

/* Raises that sc's threads that have not ended wait for each other. */
static aclError stuck(const emitter *e, const flow_scope *sc, const thread_state *ts)
{
    char where[2][96] = {"", ""};
    for (size_t i = 0, found = 0; i < sc->nthreads && found < 2; i++) {
        const flow_thread *th = &sc->threads[i];
        if (ts[i].pos == th->nsteps)
            continue;
        int32_t id = e->f->streams[th->stream].id;
        if (!th->root && ts[i].started < th->starters)
            snprintf(where[found++], sizeof where[0],
                     "stream %d (not started: a task that "
                     "starts it waits)",
                     (int)id);
        else
            snprintf(where[found++], sizeof where[0], "stream %d (at its task %u)", (int)id,
                     th->steps[ts[i].pos].task);
    }
    if (!where[1][0])
        return acl_raise(e->api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "model %u cannot be put together as a graph: %s waits for its own "
                         "later work, through an event wait or aclrtActiveStream",
                         (unsigned)e->m->id, where[0]);
    return acl_raise(e->api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "model %u cannot be put together as a graph: %s and %s wait for each "
                     "other, through event waits or aclrtActiveStream",
                     (unsigned)e->m->id, where[0], where[1]);
}

/* The threads of sc into g, roots after start; *root_tail: where its
 * first thread ended (a loop's round re-reads its word after it). */
static aclError emit_scope(emitter *e, const flow_scope *sc, backend_graph *g, const deps *start,
                           deps *root_tail)
{
    size_t n = sc->nthreads;
    thread_state *ts = calloc(n ? n : 1, sizeof *ts);
    scope_records r = {0};
    aclError err =
        ts ? records_of(e->plan, sc, e->f->next_record, &r) : ACL_ERROR_RT_MEMORY_ALLOCATION;
    for (size_t i = 0; i < n && !err; i++)
        if (sc->threads[i].root)
            err = deps_merge(&ts[i].tail, start);
    if (err)
        err = acl_raise(e->api, err, "out of host memory");
    for (bool done = false; !err && !done;) {
        bool progress = false;
        done = true;
        for (size_t i = 0; i < n && !err; i++) {
            const flow_thread *th = &sc->threads[i];
            if (!th->root && ts[i].started < th->starters) {
                done = false;
                continue;
            }
            while (!err && ts[i].pos < th->nsteps && step_ready(&r, &th->steps[ts[i].pos])) {
                err = emit_step(e, sc, ts, i, g, &r);
                ts[i].pos++;
                progress = true;
            }
            done &= ts[i].pos == th->nsteps;
        }
        if (!err && !done && !progress)
            err = stuck(e, sc, ts);
    }
    if (!err && root_tail && n)
        err = deps_merge(root_tail, &ts[0].tail)
                  ? acl_raise(e->api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory")
                  : ACL_SUCCESS;
    for (size_t i = 0; ts && i < n; i++)
        free(ts[i].tail.v);
    free(ts);
    records_free(&r);
    return err;
}

/* Takes the prefix's tasks of streams unbound while the model was built
 * out of its graph, which is runnable now. Raises. */
static aclError drop_unbound(const char *api, acl_model *m, capture *c, backend_graph *g)
{
    const model_flow *f = c->flow;
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < f->first_task && i < c->ntasks && !err; i++) {
        const model_task *t = &c->tasks[i];
        bool dropped = false;
        for (size_t d = 0; d < f->ndropped && !dropped; d++)
            dropped = f->dropped[d] == t->stream;
        if (!dropped || !t->has_node)
            continue;
        if ((err = backend()->graph->enable_node(g, t->node, false)))
            err = acl_raise(api, err,
                            "taking task %u (%s) of a stream unbound from model %u while it was "
                            "built out of its graph failed: %s",
                            (unsigned)t->seq, stream_task_name(t->kind), (unsigned)m->id,
                            acl_error_text(err));
    }
    pthread_mutex_unlock(&c->lock);
    return err;
}

/* The pieces go to m, for as long as its graph. Raises. */
static aclError keep_pieces(const char *api, acl_model *m, model_flow *f)
{
    size_t n = 0;
    for (size_t k = 0; k < f->nstreams; k++)
        for (size_t i = 0; i < f->streams[k].nitems; i++)
            n += f->streams[k].items[i].kind == ITEM_PIECE;
    backend_graph **pieces = calloc(n ? n : 1, sizeof *pieces);
    if (!pieces)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    n = 0;
    for (size_t k = 0; k < f->nstreams; k++)
        for (size_t i = 0; i < f->streams[k].nitems; i++) {
            flow_item *it = &f->streams[k].items[i];
            if (it->kind == ITEM_PIECE) {
                pieces[n++] = it->u.piece;
                it->u.piece = NULL;
            }
        }
    pthread_mutex_lock(&m->lock);
    m->pieces = pieces;
    m->npieces = n;
    pthread_mutex_unlock(&m->lock);
    return ACL_SUCCESS;
}

aclError flow_assemble(const char *api, acl_model *m, capture *c, backend_graph **out)
{
    model_flow *f = c->flow;
    flow_plan plan;
    aclError err = flow_plan_make(api, f, m->id, &plan);
    if (err)
        return err;
    backend_graph *g = f->prefix;
    emitter e = {.api = api, .m = m, .f = f, .plan = &plan};
    if (!(e.words = calloc(plan.nwords ? plan.nwords : 1, sizeof *e.words)))
        err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    for (uint32_t w = 0; w < plan.nwords && !err; w++)
        err = cond_word_for(api, m, g, &e.words[w]);
    deps start = {0};
    if (!err && (err = deps_add(&start, f->prefix_end)))
        err = acl_raise(api, err, "out of host memory");
    if (!err)
        err = emit_scope(&e, plan.top, g, &start, NULL);
    free(start.v);
    free(e.words);
    flow_plan_free(&plan);
    if (!err && (err = backend()->graph->finish(g)))
        err = acl_raise(api, err, "making the graph of model %u runnable failed: %s",
                        (unsigned)m->id, acl_error_text(err));
    if (!err)
        err = drop_unbound(api, m, c, g);
    if (!err)
        err = keep_pieces(api, m, f);
    if (err)
        return err; /* the prefix goes with the capture */
    f->prefix = NULL;
    *out = g;
    return ACL_SUCCESS;
}
