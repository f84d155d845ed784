/* Captures (graph.h): a capture as the sink of the streams it records
 * (the recorder and ACL's rules for captures), its begin and end
 * (aclmdlRICaptureBegin .. End), and its abandon. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/errors.h"
#include "core/event.h"
#include "core/graph.h"
#include "core/graph_flow.h"
#include "core/graph_internal.h"
#include "core/lifecycle.h"
#include "core/sink.h"

/* The calling thread's capture mode (aclmdlRICaptureThreadExchangeMode). */
static _Thread_local aclmdlRICaptureMode thread_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

const char *capture_mode_name(aclmdlRICaptureMode mode)
{
    switch (mode) {
    case ACL_MODEL_RI_CAPTURE_MODE_GLOBAL:
        return "global";
    case ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL:
        return "thread-local";
    case ACL_MODEL_RI_CAPTURE_MODE_RELAXED:
        return "relaxed";
    }
    return "unknown";
}

bool capture_mode_valid(aclmdlRICaptureMode mode)
{
    return mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
           mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL ||
           mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

aclError graph_require(const char *api)
{
    if (backend()->graph)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "the %s backend cannot capture streams (no graph operations)",
                     backend()->name);
}

/* ---- captures ---------------------------------------------------------------------- */

/* A capture as its streams' sink (below). */
static const sink_ops recorder_ops;

static void capture_free(sink *k)
{
    capture *c = capture_of_sink(k);
    if (c->update)
        object_release(&c->update->obj);
    if (c->model)
        object_release(&c->model->obj);
    free(c->streams);
    free(c->ended);
    free(c->nodes);
    free(c->kinds);
    tasks_free(c->tasks, c->ntasks);
    if (c->flow)
        flow_free(c->flow);
    if (c->origin_kept)
        stream_release(c->origin);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->gate);
    free(c);
}

void capture_unref(capture *c)
{
    sink_unref(&c->sink);
}

capture *capture_get(acl_stream *s)
{
    return capture_of_sink(sink_of(s));
}

capture *capture_find(uint64_t id)
{
    return capture_of_sink(sink_find(id));
}

void capture_invalidate(capture *c, const char *fmt, const char *what)
{
    pthread_mutex_lock(&c->lock);
    if (!atomic_load(&c->invalidated)) {
        snprintf(c->why, sizeof c->why, fmt, what);
        atomic_store(&c->invalidated, true);
    }
    pthread_mutex_unlock(&c->lock);
}

/* Adds s to c (held), with c->lock held. */
aclError capture_add_stream(capture *c, acl_stream *s)
{
    if (c->nstreams == c->stream_cap) {
        size_t cap = c->stream_cap ? 2 * c->stream_cap : 4;
        acl_stream **streams = realloc(c->streams, cap * sizeof *streams);
        if (!streams)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        c->streams = streams;
        bool *ended = realloc(c->ended, cap * sizeof *ended);
        if (!ended)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        c->ended = ended;
        c->stream_cap = cap;
    }
    if (!stream_hold(s))
        return ACL_ERROR_INVALID_PARAM;
    /* The stream is claimed in one step: of two captures that both found
     * it free (two begins racing), one gets it. A stream without a sink
     * is never ready (sink_ready false), so no submitter takes the sink
     * for ready before its capture has begun. Sequentially consistent,
     * as a lookup's load (handle.c, reader_register). */
    sink *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&s->sink, &none, &c->sink, memory_order_seq_cst,
                                                 memory_order_seq_cst)) {
        stream_release(s);
        return ACL_ERROR_RT_STREAM_CAPTURED;
    }
    c->ended[c->nstreams] = false;
    c->streams[c->nstreams++] = s;
    return ACL_SUCCESS;
}

/* s leaves its sink: not ready first, then no sink (a submitter waiting
 * for the sink to be ready sees it go). */
static void unclaim(acl_stream *s)
{
    atomic_store_explicit(&s->sink_ready, false, memory_order_release);
    atomic_store_explicit(&s->sink, NULL, memory_order_seq_cst);
}

acl_stream *capture_remove_stream(capture *c, acl_stream *s)
{
    pthread_mutex_lock(&c->lock);
    size_t i = 0;
    while (i < c->nstreams && c->streams[i] != s)
        i++;
    bool found = i < c->nstreams;
    if (found) {
        memmove(&c->streams[i], &c->streams[i + 1], (c->nstreams - i - 1) * sizeof *c->streams);
        memmove(&c->ended[i], &c->ended[i + 1], (c->nstreams - i - 1) * sizeof *c->ended);
        c->nstreams--;
    }
    pthread_mutex_unlock(&c->lock);
    if (!found)
        return NULL;
    unclaim(s);
    if (s != c->origin)
        return s;
    c->origin_kept = true; /* messages name it until c goes */
    return NULL;
}

/* Takes back the last capture_add_stream of s, under c's gate and lock. */
static void capture_remove_last(capture *c, acl_stream *s)
{
    c->nstreams--;
    unclaim(s);
}

/* Work an inline submitter (stream_submit) queued after reading that s is
 * not captured must reach the backend before its capture of s begins, or
 * the backend would take it into the graph while ACL counts it as queued
 * (on CUDA, stream capture takes whatever reaches the stream). Such a
 * submitter is inside a read section begun before s was marked capturing;
 * this waits for every one, outside the caller's own (s is held by c).
 * Submitters that found the capture wait for its streams' sink_ready. */
static void capture_wait_inline_submitters(void)
{
    unsigned borrowed = borrow_suspend();
    handle_wait_readers();
    borrow_resume(borrowed);
}

aclError capture_start(capture *c, acl_stream *s)
{
    pthread_mutex_lock(&c->lock);
    aclError err = capture_add_stream(c, s);
    pthread_mutex_unlock(&c->lock);
    if (err)
        return err;
    capture_wait_inline_submitters();
    const backend_graph_ops *ops = backend()->graph;
    err = c->into ? ops->capture_begin_into(stream_backend(s), c->into)
                  : ops->capture_begin(stream_backend(s));
    if (err) {
        pthread_mutex_lock(&c->gate);
        pthread_mutex_lock(&c->lock);
        capture_remove_last(c, s);
        pthread_mutex_unlock(&c->lock);
        pthread_mutex_unlock(&c->gate);
        stream_release(s);
        return err;
    }
    atomic_store_explicit(&s->sink_ready, true, memory_order_release);
    return ACL_SUCCESS;
}

/* A new capture of origin, registered, holding origin (not yet marked
 * capturing: the caller starts the backend's capture first). */
aclError capture_new(acl_stream *origin, acl_model *m, aclmdlRICaptureMode mode, capture **out)
{
    capture *c = calloc(1, sizeof *c);
    if (!c)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    /* Before its streams are marked capturing: submitters read it. */
    sink_init(&c->sink, &recorder_ops);
    c->origin = origin;
    c->mode = mode;
    c->thread = pthread_self();
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->gate, NULL);
    if (m && !object_hold(&m->obj)) {
        pthread_mutex_destroy(&c->lock);
        pthread_mutex_destroy(&c->gate);
        free(c);
        return ACL_ERROR_INVALID_PARAM;
    }
    c->model = m;
    *out = c;
    return ACL_SUCCESS;
}

void capture_register(capture *c)
{
    sink_register(&c->sink);
}

/* Ends c's bookkeeping once the backend's capture is over, with c's gate
 * held: its streams are no longer capturing, and it leaves the registry.
 * The streams, still held, go to the caller (*count of them), who releases
 * them once the gate is open: a last reference frees with no lock held. */
static acl_stream **capture_finish(capture *c, size_t *count)
{
    pthread_mutex_lock(&c->lock);
    c->finished = true;
    pthread_mutex_unlock(&c->lock);
    sink_withdraw(&c->sink);
    pthread_mutex_lock(&c->lock);
    acl_stream **streams = c->streams;
    size_t nstreams = c->nstreams;
    c->streams = NULL;
    c->nstreams = c->stream_cap = 0;
    pthread_mutex_unlock(&c->lock);
    /* Sequentially consistent, as a withdrawal (handle.c): see
     * stream_submit_diverted. */
    for (size_t i = 0; i < nstreams; i++)
        unclaim(streams[i]);
    *count = nstreams;
    return streams;
}

bool capture_close(capture *c, bool discard, backend_graph **g, bool *invalidated, aclError *err)
{
    if (g)
        *g = NULL;
    *err = ACL_SUCCESS;
    pthread_mutex_lock(&c->gate);
    pthread_mutex_lock(&c->lock);
    bool finished = c->finished;
    pthread_mutex_unlock(&c->lock);
    if (finished) {
        pthread_mutex_unlock(&c->gate);
        return false;
    }
    bool invalid = atomic_load(&c->invalidated);
    discard = discard || invalid;
    /* One at a time: streams may join meanwhile, and c's lock is not held
     * while a model's is taken (model_settle nests them the other way). */
    for (size_t i = 0; !discard && c->model; i++) {
        pthread_mutex_lock(&c->lock);
        acl_stream *s = i < c->nstreams ? c->streams[i] : NULL;
        pthread_mutex_unlock(&c->lock);
        if (!s)
            break;
        model_add_member(c->model, s);
    }
    const backend_graph_ops *ops = backend()->graph;
    if (c->flow) {
        flow_seal(c, discard); /* the graph is put together after (flow_assemble) */
        invalid = atomic_load(&c->invalidated);
    } else if (c->into)
        *err = ops->capture_end_into(stream_backend(c->origin), c->into, discard);
    else {
        backend_graph *kept = NULL;
        *err = ops->capture_end(stream_backend(c->origin), discard, &kept);
        if (g)
            *g = kept;
        else if (kept)
            ops->destroy(kept);
    }
    size_t nstreams;
    acl_stream **streams = capture_finish(c, &nstreams);
    pthread_mutex_unlock(&c->gate);
    for (size_t i = 0; i < nstreams; i++)
        stream_release(streams[i]);
    free(streams);
    if (invalidated)
        *invalidated = invalid;
    return true;
}

/* Notes the node work on s became, for an open task group or an update. */
static void capture_note_node(capture *c, acl_stream *s, task_kind kind)
{
    if (!atomic_load_explicit(&c->tracking, memory_order_acquire))
        return;
    pthread_mutex_lock(&c->lock);
    if ((c->update || c->group_stream == s) && c->nnodes < MAX_NODE_KINDS) {
        uint64_t node;
        if (c->nnodes == c->node_cap) {
            size_t cap = c->node_cap ? 2 * c->node_cap : 16;
            uint64_t *nodes = realloc(c->nodes, cap * sizeof *nodes);
            task_kind *kinds = nodes ? realloc(c->kinds, cap * sizeof *kinds) : NULL;
            if (nodes)
                c->nodes = nodes;
            if (kinds) {
                c->kinds = kinds;
                c->node_cap = cap;
            }
        }
        if (c->nnodes < c->node_cap &&
            backend()->graph->capture_last_node(stream_backend(s), &node) == ACL_SUCCESS) {
            c->nodes[c->nnodes] = node;
            c->kinds[c->nnodes] = kind;
            c->nnodes++;
        }
    }
    pthread_mutex_unlock(&c->lock);
}

bool capture_stream_ended(capture *c, acl_stream *s)
{
    bool ended = false;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->nstreams; i++)
        if (c->streams[i] == s)
            ended = c->ended[i];
    pthread_mutex_unlock(&c->lock);
    return ended;
}

/* What a capture refuses outright, of t on s (cap's stream): work that
 * stands for pageable host memory, which a replay could not read (ACL
 * wants page-locked memory from aclrtMallocHost in a model), invalidating
 * cap; allocations and frees from a pool, made when the call is (the
 * stream orders only their use), which a model replayed again and again
 * cannot record. Raises unless api is NULL. */
static aclError capture_admit(const char *api, capture *cap, acl_stream *s, const task *t)
{
    if (t->flags & TASK_PAGEABLE) {
        capture_invalidate(cap, "%s through pageable host memory was queued on it",
                           stream_task_name(t->kind));
        if (!api)
            return ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT;
        return acl_raise(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                         "stream %d is being captured: %s through pageable host memory cannot be "
                         "recorded (use page-locked memory from aclrtMallocHost); the capture is "
                         "invalidated",
                         (int)s->id, stream_task_name(t->kind));
    }
    if (t->kind != TASK_POOL_ALLOC && t->kind != TASK_POOL_FREE)
        return ACL_SUCCESS;
    if (!api)
        return ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT;
    return acl_raise(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                     "stream %d is being captured: stream-ordered allocations and frees cannot "
                     "be recorded into a model",
                     (int)s->id);
}

/* A wait t on s, cap's stream, for an ACL event whose latest record cap
 * did not make: a dependency on work outside cap cannot be replayed, and
 * invalidates it. Raises unless api is NULL. */
static aclError capture_refuse_wait(const char *api, capture *cap, acl_stream *s, const task *t)
{
    if (t->u.event.recorder == 0) {
        capture_invalidate(cap, "it waited for event %s, recorded outside the capture", "");
        if (!api)
            return ACL_ERROR_RT_CAPTURE_DEPENDENCY;
        return acl_raise(api, ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                         "stream %d is being captured and event %u was recorded outside the "
                         "capture: a model cannot wait for work outside it (the capture is "
                         "invalidated)",
                         (int)s->id, t->u.event.acl->id);
    }
    capture_invalidate(cap, "it waited for an event of another capture%s", "");
    if (!api)
        return ACL_ERROR_RT_CAPTURE_DEPENDENCY;
    return acl_raise(api, ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                     "event %u was recorded in another capture than stream %d's: captures "
                     "cannot depend on each other (stream %d's capture is invalidated)",
                     t->u.event.acl->id, (int)s->id, (int)s->id);
}

/* The graph is gone, possibly on a thread that must not free (CUDA's). */
static void external_release(void *arg)
{
    object_release_late(&((acl_event *)arg)->obj);
}

/* An external record or wait of e on s: the graph holds e until it is
 * gone. Raises. */
static aclError capture_keep_external(const char *api, acl_stream *s, acl_event *e)
{
    if (!object_hold(&e->obj))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "event %u is being destroyed", e->id);
    aclError err = backend()->graph->capture_keep(stream_backend(s), e, external_release);
    if (err) {
        object_release(&e->obj);
        return acl_raise(api, err, "the capture of stream %d could not keep event %u: %s",
                         (int)s->id, e->id, acl_error_text(err));
    }
    return ACL_SUCCESS;
}

/* Records t in cap, or refuses it. With cap's gate held. Raises unless
 * api is NULL. */
static aclError capture_record(const char *api, capture *cap, acl_stream *s, const task *t)
{
    if (atomic_load_explicit(&cap->invalidated, memory_order_acquire)) {
        if (!api)
            return ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
        pthread_mutex_lock(&cap->lock);
        char why[sizeof cap->why];
        memcpy(why, cap->why, sizeof why);
        pthread_mutex_unlock(&cap->lock);
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                         "stream %d belongs to a capture that was invalidated (%s): %s is "
                         "refused; end the capture",
                         (int)s->id, why, stream_task_name(t->kind));
    }
    if (cap->building && capture_stream_ended(cap, s)) {
        if (!api)
            return ACL_ERROR_RT_STREAM_MODEL;
        return acl_raise(api, ACL_ERROR_RT_STREAM_MODEL,
                         "aclmdlRIEndTask closed stream %d's tasks in model %u: %s is refused",
                         (int)s->id, (unsigned)cap->model->id, stream_task_name(t->kind));
    }
    aclError err = capture_admit(api, cap, s, t);
    if (err)
        return err;
    if (t->kind == TASK_WAIT && t->u.event.acl && t->u.event.recorder != cap->sink.id)
        return capture_refuse_wait(api, cap, s, t);
    if ((t->kind == TASK_RECORD_EXTERNAL || t->kind == TASK_WAIT_EXTERNAL) &&
        (err = capture_keep_external(api, s, t->u.event.acl)))
        return err;
    if (cap->flow && (t->kind == TASK_RECORD || t->kind == TASK_WAIT)) {
        /* Between the streams of a build with stream control flow: an
         * item of the stream, put together when the build ends. */
        err = flow_event(api, cap, s, t, tasks_record(cap, s, t));
        if (!err && t->kind == TASK_RECORD && t->u.event.recorded_in)
            *t->u.event.recorded_in = cap->sink.id;
        return err;
    }
    err = stream_dispatch(s, t);
    if (err) {
        /* As CUDA does: a capture that could not record some work would
         * replay without it. */
        capture_invalidate(cap, "recording %s failed", stream_task_name(t->kind));
        return stream_submit_failed(api, s, t, err);
    }
    capture_note_node(cap, s, t->kind);
    tasks_keep_binary(cap, t);
    tasks_record(cap, s, t); /* a task update's too: its kernels' parameters */
    if (t->kind == TASK_RECORD && t->u.event.recorded_in)
        *t->u.event.recorded_in = cap->sink.id;
    return ACL_SUCCESS;
}

aclError capture_join(const char *api, capture *c, acl_stream *s, const task *wait, bool head)
{
    pthread_mutex_lock(&c->lock);
    aclError err = c->finished ? ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED : capture_add_stream(c, s);
    pthread_mutex_unlock(&c->lock);
    if (err)
        return acl_raise(api, err, "stream %d could not join the capture of stream %d: %s",
                         (int)s->id, (int)c->origin->id, acl_error_text(err));
    capture_wait_inline_submitters();
    pthread_mutex_lock(&c->gate);
    if (c->finished)
        err = acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "the capture of stream %d ended while stream %d joined it",
                        (int)c->origin->id, (int)s->id);
    else if (c->flow && (err = flow_join(c, s, head)))
        err = acl_raise(api, err, "stream %d could not join the build of model %u: %s", (int)s->id,
                        (unsigned)c->model->id, acl_error_text(err));
    else if (wait)
        err = capture_record(api, c, s, wait);
    atomic_store_explicit(&s->sink_ready, true, memory_order_release);
    pthread_mutex_unlock(&c->gate);
    return err;
}

/* ---- the recorder: a capture as its streams' sink ------------------------------------ */

static bool recorder_submit(sink *k, const char *api, acl_stream *s, const task *t, aclError *err)
{
    capture *cap = capture_of_sink(k);
    pthread_mutex_lock(&cap->gate);
    bool open = !cap->finished;
    if (open)
        *err = capture_record(api, cap, s, t);
    pthread_mutex_unlock(&cap->gate);
    return open;
}

static aclError recorder_admit(sink *k, const char *api, acl_stream *s, const task *t)
{
    return capture_admit(api, capture_of_sink(k), s, t);
}

static aclError recorder_wait(sink *k, const char *api, acl_stream *s, const task *t)
{
    capture *theirs = capture_of_sink(k);
    capture *mine = capture_get(s);
    aclError err;
    if (mine == theirs)
        err = stream_submit(api, s, t);
    else if (mine)
        err = capture_refuse_wait(api, mine, s, t);
    else if (theirs->update || atomic_load(&theirs->invalidated))
        err = acl_raise(api, ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                        "event %u belongs to a task update or an invalidated capture: stream %d "
                        "cannot join it",
                        t->u.event.acl->id, (int)s->id);
    else
        /* s joins the capture that recorded the event (ACL's cross-stream
         * capture): from now on its work is recorded there. */
        err = capture_join(api, theirs, s, t, true);
    if (mine)
        capture_unref(mine);
    return err;
}

static aclError recorder_keep(sink *k, acl_stream *s, void *ptr, void (*release)(void *))
{
    (void)k;
    return backend()->graph->capture_keep(stream_backend(s), ptr, release);
}

/* CUDA's rules, which ACL's documentation states: a thread may not call
 * unsafe functions while it runs a capture of its own that is not
 * relaxed, nor, unless its own mode is thread-local, while any other
 * thread runs a global one. */
static bool recorder_forbids(sink *k, const char *what, char *why, size_t size)
{
    capture *c = capture_of_sink(k);
    aclmdlRICaptureMode mine = thread_mode;
    if (mine == ACL_MODEL_RI_CAPTURE_MODE_RELAXED || c->mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return false;
    if (!pthread_equal(c->thread, pthread_self()) &&
        !(mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL && c->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL))
        return false;
    capture_invalidate(c, "%s was called while it was captured", what);
    snprintf(why, size,
             "while stream %d is captured in %s mode, which invalidates that capture "
             "(aclmdlRICaptureThreadExchangeMode can make this thread relaxed)",
             (int)c->origin->id, capture_mode_name(c->mode));
    return true;
}

static const sink_ops recorder_ops = {
    .submit = recorder_submit,
    .admit = recorder_admit,
    .wait = recorder_wait,
    .keep = recorder_keep,
    .forbids = recorder_forbids,
    .free = capture_free,
};

/* ---- begin, end, abandon ------------------------------------------------------------ */

/* The captures into m's branches stop first: their graphs belong to m's. */
static void abandon_branches(acl_model *m)
{
    for (;;) {
        capture *bc = NULL;
        pthread_mutex_lock(&m->lock);
        for (size_t i = 0; i < m->nbodies && !bc; i++) {
            acl_model *b = m->bodies[i];
            pthread_mutex_lock(&b->lock);
            if (b->state == MODEL_CAPTURING && b->cap) {
                bc = b->cap;
                capture_addref(bc);
            }
            pthread_mutex_unlock(&b->lock);
        }
        pthread_mutex_unlock(&m->lock);
        if (!bc)
            return;
        capture_abandon(bc);
        capture_unref(bc);
    }
}

bool capture_abandon(capture *c)
{
    pthread_mutex_lock(&c->lock);
    bool finished = c->finished;
    pthread_mutex_unlock(&c->lock);
    if (finished)
        return false;
    if (c->model)
        abandon_branches(c->model);
    aclError err;
    if (!capture_close(c, true, NULL, NULL, &err))
        return false;
    capture_unref(c); /* the registry's */
    acl_model *m = c->model;
    if (!m)
        return true;
    pthread_mutex_lock(&m->lock);
    bool had = m->cap == c;
    if (had) {
        m->cap = NULL;
        m->state = c->into ? MODEL_BODY : MODEL_BROKEN;
    }
    pthread_mutex_unlock(&m->lock);
    if (had)
        capture_unref(c); /* the model's */
    if (c->into)
        cond_branch_abandoned(m);
    return true;
}

aclError capture_begin(const char *api, acl_stream *s, aclmdlRICaptureMode mode)
{
    aclError err = graph_require(api);
    if (err)
        return err;
    if (mode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL &&
        mode != ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL && mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown capture mode %d", (int)mode);
    if (s == s->ctx->default_stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the default stream cannot be captured (ACL forbids using it during a "
                         "capture); create a stream");
    if (capture_of_stream(s))
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURED, "stream %d is already being captured",
                         (int)s->id);
    acl_model *m;
    if ((err = model_new(s->ctx->phys, s->ctx->device, MODEL_CAPTURING, &m)))
        return acl_raise(api, err, "out of host memory");
    capture *c = NULL;
    err = capture_new(s, m, mode, &c);
    if (!err)
        err = capture_start(c, s);
    if (err) {
        if (c)
            capture_unref(c);
        (void)object_take(&m->obj);
        model_put(m);
        return acl_raise(api, err, "starting the capture of stream %d failed: %s", (int)s->id,
                         acl_error_text(err));
    }
    capture_addref(c); /* the model's */
    pthread_mutex_lock(&m->lock);
    m->cap = c;
    pthread_mutex_unlock(&m->lock);
    model_add_member(m, s);
    capture_register(c);
    model_put(m);
    return ACL_SUCCESS;
}

/* capture_end of c, held by the caller. */
static aclError capture_end_held(const char *api, acl_stream *s, capture *c, aclmdlRI *out)
{
    if (c->origin != s || c->building || c->update)
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                         "stream %d %s; the capture began on stream %d", (int)s->id,
                         c->building ? "is bound to a model being built (aclmdlRIBuildEnd ends "
                                       "it)"
                         : c->update ? "is recording a task update (aclmdlRICaptureTaskUpdateEnd "
                                       "ends it)"
                                     : "joined a capture",
                         (int)c->origin->id);
    if (c->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self()))
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                         "the capture of stream %d began in %s mode on another thread: it must "
                         "end there",
                         (int)s->id, capture_mode_name(c->mode));
    if (c->into)
        return cond_capture_end(api, s, c, out);
    if (cond_branch_capturing(c->model))
        return acl_raise(api, ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING,
                         "a branch of a conditional task of model %u is still being captured "
                         "(aclmdlRICaptureToModelRIBegin): end that capture first",
                         (unsigned)c->model->id);
    /* A task group left open (aclmdlRICaptureTaskGrpBegin without End)
     * fails the end as in CANN's runtime, which checks it with the model's
     * validity and then ends the capture and destroys the model: the
     * streams are no longer captured and nothing is kept. */
    pthread_mutex_lock(&c->lock);
    int32_t group_stream = c->group_stream ? c->group_stream->id : -1;
    pthread_mutex_unlock(&c->lock);
    backend_graph *g = NULL;
    bool invalidated;
    aclError err;
    if (!capture_close(c, group_stream >= 0, &g, &invalidated, &err))
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                         "the capture of stream %d ended meanwhile", (int)s->id);
    capture_unref(c); /* the registry's */
    if (!invalidated && !err && group_stream >= 0)
        err = ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    acl_model *m = c->model;
    char why[sizeof c->why];
    pthread_mutex_lock(&c->lock);
    memcpy(why, c->why, sizeof why);
    pthread_mutex_unlock(&c->lock);
    if (invalidated || err) {
        model_settle(m, c, NULL);
        if (g)
            backend()->graph->destroy(g);
        /* The model goes, with its branches, conditions and task groups:
         * nothing it could replay was kept. */
        if (object_take(&m->obj))
            model_gone(m);
        if (out)
            *out = NULL;
        if (invalidated)
            return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                             "the capture of stream %d was invalidated (%s); nothing was kept",
                             (int)s->id, why);
        if (err == ACL_ERROR_STREAM_TASK_GROUP_STATUS)
            return acl_raise(api, err,
                             "a task group begun on stream %d (aclmdlRICaptureTaskGrpBegin) was "
                             "not ended (aclmdlRICaptureTaskGrpEnd): the capture of stream %d is "
                             "over and nothing was kept",
                             (int)group_stream, (int)s->id);
        if (err == ACL_ERROR_RT_STREAM_UNJOINED)
            return acl_raise(api, err,
                             "a stream that joined the capture of stream %d was not waited for "
                             "by it before the end (record an event on it and wait for that "
                             "event on stream %d); nothing was kept",
                             (int)s->id, (int)s->id);
        return acl_raise(api, err, "ending the capture of stream %d failed: %s", (int)s->id,
                         acl_error_text(err));
    }
    model_settle(m, c, g);
    *out = handle_of(&m->obj);
    return ACL_SUCCESS;
}

aclError capture_end(const char *api, acl_stream *s, aclmdlRI *out)
{
    capture *c = capture_get(s);
    if (!c)
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %d is not being captured",
                         (int)s->id);
    aclError err = capture_end_held(api, s, c, out);
    capture_unref(c);
    return err;
}

aclError capture_info(const char *api, acl_stream *s, aclmdlRICaptureStatus *status,
                      aclmdlRI *model)
{
    (void)api;
    capture *c = capture_of_stream(s);
    if (!c || c->update) {
        *status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
        return ACL_SUCCESS;
    }
    *status = atomic_load(&c->invalidated) ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
                                           : ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    if (model && c->model)
        *model = handle_of(&c->model->obj);
    return ACL_SUCCESS;
}

aclmdlRICaptureMode capture_exchange_mode(aclmdlRICaptureMode mode)
{
    aclmdlRICaptureMode old = thread_mode;
    thread_mode = mode;
    return old;
}

/* A stream going away in a capture: the capture it was in cannot be
 * replayed as recorded, and the one it started is over. The model a plain
 * capture made is broken for good: what it captured goes now (binaries
 * its kernels kept loaded among it), while its handle waits for
 * aclmdlRIDestroy, which a program that never asked for the handle
 * (aclmdlRICaptureGetInfo) cannot call. */
static void stream_gone(void *subject)
{
    acl_stream *s = subject;
    capture *c = capture_get(s);
    if (!c)
        return;
    capture_invalidate(c, "one of its streams was destroyed%s", "");
    bool plain = !c->building && !c->into && !c->update;
    if (c->origin == s && capture_abandon(c) && plain && c->model) {
        tasks_model_destroyed(c->model);
        cond_model_destroyed(c->model);
    }
    capture_unref(c);
}

__attribute__((constructor)) static void graph_capture_init(void)
{
    lifecycle_observe(LIFECYCLE_STREAM_GONE, stream_gone);
}
