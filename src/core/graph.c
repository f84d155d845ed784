/* Model run instances: capture, build, execution (graph.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/event.h"
#include "core/graph.h"
#include "core/graph_flow.h"
#include "core/graph_internal.h"
#include "core/lifecycle.h"
#include "core/sink.h"
#include "util/fork.h"
#include "util/log.h"

/* Models bound to streams. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static acl_model *built_models;
static atomic_uint next_model_id;

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
    c->ended[c->nstreams] = false;
    c->streams[c->nstreams++] = s;
    atomic_store_explicit(&s->sink_ready, false, memory_order_relaxed);
    atomic_store_explicit(&s->sink, &c->sink, memory_order_seq_cst);
    return ACL_SUCCESS;
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
    atomic_store_explicit(&s->sink, NULL, memory_order_seq_cst);
    if (s != c->origin)
        return s;
    c->origin_kept = true; /* messages name it until c goes */
    return NULL;
}

/* Takes back the last capture_add_stream of s, under c's gate and lock. */
static void capture_remove_last(capture *c, acl_stream *s)
{
    c->nstreams--;
    atomic_store_explicit(&s->sink, NULL, memory_order_seq_cst);
    atomic_store_explicit(&s->sink_ready, true, memory_order_release);
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
        atomic_store_explicit(&streams[i]->sink, NULL, memory_order_seq_cst);
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
 * cannot record. Raises. */
static aclError capture_admit(const char *api, capture *cap, acl_stream *s, const task *t)
{
    if (t->flags & TASK_PAGEABLE) {
        capture_invalidate(cap, "%s through pageable host memory was queued on it",
                           stream_task_name(t->kind));
        return acl_raise(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                         "stream %d is being captured: %s through pageable host memory cannot be "
                         "recorded (use page-locked memory from aclrtMallocHost); the capture is "
                         "invalidated",
                         (int)s->id, stream_task_name(t->kind));
    }
    if (t->kind == TASK_POOL_ALLOC || t->kind == TASK_POOL_FREE)
        return acl_raise(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                         "stream %d is being captured: stream-ordered allocations and frees cannot "
                         "be recorded into a model",
                         (int)s->id);
    return ACL_SUCCESS;
}

/* A wait t on s, cap's stream, for an ACL event whose latest record cap
 * did not make: a dependency on work outside cap cannot be replayed, and
 * invalidates it. Raises. */
static aclError capture_refuse_wait(const char *api, capture *cap, acl_stream *s, const task *t)
{
    if (t->acl.event.recorder == 0) {
        capture_invalidate(cap, "it waited for event %s, recorded outside the capture", "");
        return acl_raise(api, ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                         "stream %d is being captured and event %u was recorded outside the "
                         "capture: a model cannot wait for work outside it (the capture is "
                         "invalidated)",
                         (int)s->id, t->acl.event.event->id);
    }
    capture_invalidate(cap, "it waited for an event of another capture%s", "");
    return acl_raise(api, ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                     "event %u was recorded in another capture than stream %d's: captures "
                     "cannot depend on each other (stream %d's capture is invalidated)",
                     t->acl.event.event->id, (int)s->id, (int)s->id);
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

/* Records t in cap, or refuses it. With cap's gate held. Raises. */
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
    if (t->kind == TASK_WAIT && t->acl.event.event && t->acl.event.recorder != cap->sink.id)
        return capture_refuse_wait(api, cap, s, t);
    if ((t->kind == TASK_RECORD_EXTERNAL || t->kind == TASK_WAIT_EXTERNAL) &&
        (err = capture_keep_external(api, s, t->acl.event.event)))
        return err;
    if (cap->flow && (t->kind == TASK_RECORD || t->kind == TASK_WAIT)) {
        /* Between the streams of a build with stream control flow: an
         * item of the stream, put together when the build ends. */
        err = flow_event(api, cap, s, t, tasks_record(cap, s, t));
        if (!err && t->kind == TASK_RECORD && t->acl.event.recorded_in)
            *t->acl.event.recorded_in = cap->sink.id;
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
    if (t->kind == TASK_RECORD && t->acl.event.recorded_in)
        *t->acl.event.recorded_in = cap->sink.id;
    return ACL_SUCCESS;
}

/* s joins c, which is capturing already, through wait (a wait for work c
 * recorded; NULL: none, s being bound to c, a build with stream control
 * flow): marked capturing, then, once every submitter that read it
 * uncaptured has queued (capture_start), the wait recorded first of its
 * work in c, under the gate. A build with stream control flow captures s
 * on its own (head: it starts with each run). */
static aclError capture_join(const char *api, capture *c, acl_stream *s, const task *wait,
                             bool head)
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
                        t->acl.event.event->id, (int)s->id);
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

/* `to` waits for `from`'s work so far, through a backend event of our own
 * (used to fork a bound stream off a build and join it back); joining:
 * the capture `to` joins so (capture_join), or NULL. */
static aclError link_streams(const char *api, acl_stream *from, acl_stream *to, capture *joining)
{
    const backend_event_ops *ev = backend()->event;
    backend_event *e = calloc(1, ev->size);
    if (!e)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    aclError err = ev->create(e, from->ctx->phys, false);
    if (err) {
        free(e);
        return acl_raise(api, err, "creating an event failed: %s", acl_error_text(err));
    }
    err = stream_submit(api, from, &(task){.kind = TASK_RECORD, .u.event = e});
    task wait = {.kind = TASK_WAIT, .u.event = e};
    if (!err)
        err = joining ? capture_join(api, joining, to, &wait, true) : stream_submit(api, to, &wait);
    ev->destroy(e);
    free(e);
    return err;
}

/* ---- models ---------------------------------------------------------------------------- */

static void model_free(object *o)
{
    acl_model *m = (acl_model *)o;
    if (m->graph)
        backend()->graph->destroy(m->graph); /* deferred while it runs */
    for (size_t i = 0; i < m->nbound; i++)
        stream_release(m->bound[i]);
    free(m->bound);
    free(m->members);
    free(m->groups);
    free(m->callbacks);
    /* After the graph: it runs them (a graph still running finishes with
     * what it cloned of them). */
    for (size_t i = 0; i < m->npieces; i++)
        backend()->graph->destroy(m->pieces[i]);
    free(m->pieces);
    tasks_free(m->tasks, m->ntasks);
    cond_model_free(m);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* A published model, borrowed by the caller. Bare codes. */
aclError model_new(int32_t phys, int32_t device, model_state state, acl_model **out)
{
    acl_model *m = calloc(1, sizeof *m);
    if (!m)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    m->id = atomic_fetch_add(&next_model_id, 1);
    m->phys = phys;
    m->device = device;
    m->state = state;
    pthread_mutex_init(&m->lock, NULL);
    aclError err = handle_publish(&m->obj, HANDLE_MODEL, model_free);
    if (err) {
        model_free(&m->obj);
        return err;
    }
    borrow_begin();
    *out = m;
    return ACL_SUCCESS;
}

void model_add_member(acl_model *m, acl_stream *s)
{
    aclrtStream h = handle_of(&s->obj);
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nmembers; i++) {
        if (m->members[i] == h) {
            pthread_mutex_unlock(&m->lock);
            return;
        }
    }
    if (m->nmembers == m->member_cap) {
        size_t cap = m->member_cap ? 2 * m->member_cap : 4;
        aclrtStream *grown = realloc(m->members, cap * sizeof *grown);
        if (grown) {
            m->members = grown;
            m->member_cap = cap;
        }
    }
    if (m->nmembers < m->member_cap)
        m->members[m->nmembers++] = h;
    pthread_mutex_unlock(&m->lock);
}

aclError model_get(const char *api, aclmdlRI handle, acl_model **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    *out = (acl_model *)handle_get(handle, HANDLE_MODEL);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live model run instance%s", handle,
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

void model_put(acl_model *m)
{
    object_put(&m->obj);
}

uint32_t model_id(const acl_model *m)
{
    return m->id;
}

/* Ends a capture or build whose model will not be kept: the backend stops
 * recording and forgets what it recorded. The caller holds a reference. */
static void capture_abandon(capture *c);

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

static void capture_abandon(capture *c)
{
    pthread_mutex_lock(&c->lock);
    bool finished = c->finished;
    pthread_mutex_unlock(&c->lock);
    if (finished)
        return;
    if (c->model)
        abandon_branches(c->model);
    aclError err;
    if (!capture_close(c, true, NULL, NULL, &err))
        return;
    capture_unref(c); /* the registry's */
    acl_model *m = c->model;
    if (!m)
        return;
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
}

/* Makes the model of a finished capture ready, or breaks it. */
static void model_settle(acl_model *m, capture *c, backend_graph *g)
{
    bool listed = false;
    pthread_mutex_lock(&m->lock);
    if (m->cap == c) {
        m->cap = NULL;
        m->graph = g;
        m->state = g ? MODEL_READY : MODEL_BROKEN;
        if (g)
            tasks_settle(m, c);
        listed = g != NULL;
        g = NULL;
        capture_unref(c);
    }
    pthread_mutex_unlock(&m->lock);
    if (g)
        backend()->graph->destroy(g);
    if (listed)
        tasks_list(m);
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
        /* The model goes: nothing it could replay was kept. */
        (void)object_take(&m->obj);
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

/* ---- task groups and their update --------------------------------------------------- */

/* On a backend's thread, past the work that needed the model: a thread
 * that must not free (CUDA's). */
static void model_release_late(void *arg)
{
    object_release_late(&((acl_model *)arg)->obj);
}

/* The group's kernels will take updates in stream order
 * (backend_stream_ops.graph_set_node), where the backend can make them so;
 * with c's gate held, as this changes the graph being captured. */
static void group_mark_updatable(capture *c, acl_stream *s, const acl_task_group *g)
{
    aclError (*mark)(backend_stream *, uint64_t) = backend()->graph->mark_updatable;
    if (!mark)
        return;
    pthread_mutex_lock(&c->gate);
    for (size_t i = 0; i < g->count && !c->finished; i++)
        if (g->kinds[i] == TASK_LAUNCH)
            (void)mark(stream_backend(s), g->nodes[i]);
    pthread_mutex_unlock(&c->gate);
}

static void group_free(object *o)
{
    acl_task_group *g = (acl_task_group *)o;
    object_release(&g->model->obj);
    free(g->nodes);
    free(g->kinds);
    free(g);
}

aclError capture_group_begin(const char *api, acl_stream *s)
{
    capture *c = capture_of_stream(s);
    if (!c || c->update)
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %d is not being captured",
                         (int)s->id);
    pthread_mutex_lock(&c->gate);
    bool flow = c->flow != NULL;
    pthread_mutex_unlock(&c->gate);
    if (flow)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "model %u has stream control flow: its tasks from then on run as parts "
                         "of its graph put together when its build ends, and a task group could "
                         "not be updated",
                         (unsigned)c->model->id);
    pthread_mutex_lock(&c->lock);
    aclError err = ACL_SUCCESS;
    if (c->group_stream)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "a task group is already open on stream %d of this capture",
                        (int)c->group_stream->id);
    else {
        c->group_stream = s;
        c->group_first = c->ntasks;
        c->nnodes = 0;
        atomic_store(&c->tracking, true);
    }
    pthread_mutex_unlock(&c->lock);
    return err;
}

aclError capture_group_end(const char *api, acl_stream *s, aclrtTaskGrp *out)
{
    capture *c = capture_of_stream(s);
    if (!c || c->update)
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %d is not being captured",
                         (int)s->id);
    acl_task_group *g = calloc(1, sizeof *g);
    if (!g)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    pthread_mutex_lock(&c->lock);
    aclError err = ACL_SUCCESS;
    if (c->group_stream != s)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "no task group is open on stream %d (aclmdlRICaptureTaskGrpBegin)",
                        (int)s->id);
    else if (!object_hold(&c->model->obj))
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "the model is being destroyed");
    if (!err) {
        g->model = c->model;
        g->nodes = c->nodes;
        g->kinds = c->kinds;
        g->count = c->nnodes;
        c->nodes = NULL;
        c->kinds = NULL;
        c->nnodes = c->node_cap = 0;
        c->group_stream = NULL;
        atomic_store(&c->tracking, false);
    }
    pthread_mutex_unlock(&c->lock);
    if (err) {
        free(g);
        return err;
    }
    if ((err = handle_publish(&g->obj, HANDLE_TASK_GROUP, group_free))) {
        group_free(&g->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    tasks_group(c, s, handle_of(&g->obj));
    group_mark_updatable(c, s, g);
    acl_model *m = g->model;
    pthread_mutex_lock(&m->lock);
    if (m->ngroups == m->group_cap) {
        size_t cap = m->group_cap ? 2 * m->group_cap : 4;
        acl_task_group **grown = realloc(m->groups, cap * sizeof *grown);
        if (grown) {
            m->groups = grown;
            m->group_cap = cap;
        }
    }
    bool kept = m->ngroups < m->group_cap;
    if (kept)
        m->groups[m->ngroups++] = g;
    pthread_mutex_unlock(&m->lock);
    if (!kept) {
        (void)object_take(&g->obj);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    *out = handle_of(&g->obj);
    return ACL_SUCCESS;
}

aclError capture_update_begin(const char *api, acl_stream *s, aclrtTaskGrp group)
{
    aclError err = graph_require(api);
    if (err)
        return err;
    if (capture_of_stream(s))
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURED,
                         "stream %d is being captured: a task update records on a stream that is "
                         "not",
                         (int)s->id);
    if (!group)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "handle is NULL");
    acl_task_group *g = (acl_task_group *)handle_get(group, HANDLE_TASK_GROUP);
    if (!g)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live task group", group);
    capture *c = NULL;
    if (!object_hold(&g->obj))
        err = ACL_ERROR_INVALID_PARAM;
    else if ((err = capture_new(s, NULL, ACL_MODEL_RI_CAPTURE_MODE_RELAXED, &c)))
        object_release(&g->obj);
    object_put(&g->obj);
    if (err)
        return acl_raise(api, err, "starting the task update failed: %s", acl_error_text(err));
    c->update = g;
    atomic_store(&c->tracking, true);
    err = capture_start(c, s);
    if (err) {
        capture_unref(c);
        return acl_raise(api, err, "starting the task update on stream %d failed: %s", (int)s->id,
                         acl_error_text(err));
    }
    capture_register(c);
    return ACL_SUCCESS;
}

aclError capture_update_end(const char *api, acl_stream *s)
{
    capture *c = capture_get(s);
    if (!c || !c->update || c->origin != s) {
        if (c)
            capture_unref(c);
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                         "no task update was begun on stream %d (aclmdlRICaptureTaskUpdateBegin)",
                         (int)s->id);
    }
    backend_graph *bg = NULL;
    bool invalidated;
    aclError err;
    if (!capture_close(c, false, &bg, &invalidated, &err)) {
        capture_unref(c);
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                         "the task update on stream %d ended meanwhile", (int)s->id);
    }
    capture_unref(c); /* the registry's */
    acl_task_group *g = c->update;
    acl_model *m = g->model;
    if (!err && invalidated)
        err = acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "the task update on stream %d was invalidated (%s)", (int)s->id, c->why);
    else if (err)
        err = acl_raise(api, err, "ending the task update on stream %d failed: %s", (int)s->id,
                        acl_error_text(err));
    else if (c->nnodes != g->count)
        err =
            acl_raise(api, ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                      "the task group holds %zu tasks; the update queued %zu", g->count, c->nnodes);
    for (size_t i = 0; !err && i < g->count; i++)
        if (c->kinds[i] != g->kinds[i])
            err = acl_raise(api, ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                            "task %zu of the group is %s; the update queued %s", i,
                            stream_task_name(g->kinds[i]), stream_task_name(c->kinds[i]));
    /* In s's order (CANN's flow: a run already queued waits inside the
     * model for an event that s records after the update, and runs the
     * updated tasks): the kernels go to the graph as a task of s, which
     * holds the model until it has run. What the backend cannot change so
     * changes now, for the runs launched from now on. */
    pthread_mutex_lock(&m->lock);
    backend_graph *target = m->state == MODEL_READY ? m->graph : NULL;
    if (!err && !target)
        err = acl_raise(api, ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                        "model %u is not ready (its capture has not ended)", (unsigned)m->id);
    bool ordered = !err && c->ntasks == c->nnodes && object_hold(&m->obj);
    bool queued = false;
    for (size_t i = 0; !err && i < g->count; i++) {
        aclError now = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        if (ordered && g->kinds[i] == TASK_LAUNCH)
            now = tasks_set_node_ordered(api, s, m, g->nodes[i], &c->tasks[i]);
        queued |= now == ACL_SUCCESS;
        if (now == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
            now = backend()->graph->update_node(target, g->nodes[i], bg, c->nodes[i]);
        if (now)
            err = acl_raise(api, now, "updating task %zu (%s) of model %u failed: %s", i,
                            stream_task_name(g->kinds[i]), (unsigned)m->id, acl_error_text(now));
    }
    pthread_mutex_unlock(&m->lock);
    if (queued &&
        stream_submit(NULL, s,
                      &(task){.kind = TASK_HOST_FUNC,
                              .u.host_func = {.fn = model_release_late, .arg = m}}) == ACL_SUCCESS)
        ordered = false; /* the model goes back once s is past the update */
    else if (queued)
        (void)stream_synchronize(s, -1);
    if (ordered)
        object_release(&m->obj);
    if (bg)
        backend()->graph->destroy(bg);
    capture_unref(c);
    return err;
}

/* ---- built models -------------------------------------------------------------------- */

aclError model_build_begin(const char *api, aclmdlRI *out)
{
    aclError err = graph_require(api);
    if (err)
        return err;
    acl_context *ctx;
    if ((err = current_context_get(api, &ctx)))
        return err;
    acl_model *m;
    err = model_new(ctx->phys, ctx->device, MODEL_BUILDING, &m);
    context_put(ctx);
    if (err)
        return acl_raise(api, err, "out of host memory");
    *out = handle_of(&m->obj);
    model_put(m);
    return ACL_SUCCESS;
}

/* Whether s is bound to some model. */
static acl_model *bound_model_of(acl_stream *s)
{
    acl_model *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (acl_model *m = built_models; m && !found; m = m->next_built) {
        pthread_mutex_lock(&m->lock);
        for (size_t i = 0; i < m->nbound; i++)
            if (m->bound[i] == s)
                found = m;
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

bool model_bound_id(acl_stream *s, uint32_t *id)
{
    bool found = false;
    pthread_mutex_lock(&registry_lock);
    for (acl_model *m = built_models; m && !found; m = m->next_built) {
        pthread_mutex_lock(&m->lock);
        for (size_t i = 0; i < m->nbound && !found; i++)
            if (m->bound[i] == s) {
                *id = m->id;
                found = true;
            }
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* A stream bound to c's build after the first: it joins the capture, or,
 * in a build with stream control flow, captures on its own. Raises. */
static aclError build_join(const char *api, capture *c, acl_stream *s, bool head)
{
    pthread_mutex_lock(&c->gate);
    aclError err = ACL_SUCCESS;
    if (c->flow && flow_dropped(c, s))
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "stream %d was unbound from model %u while it was built: it cannot come "
                        "back into that build",
                        (int)s->id, (unsigned)c->model->id);
    else if (!head && !c->finished)
        err = flow_start(api, c); /* it starts where another stream starts it */
    bool flow = c->flow != NULL;
    pthread_mutex_unlock(&c->gate);
    if (err)
        return err;
    if (flow)
        return capture_join(api, c, s, NULL, head);
    /* Later streams join the build, depending on nothing recorded. */
    return link_streams(api, c->origin, s, c);
}

aclError model_bind(const char *api, acl_model *m, acl_stream *s, uint32_t flag)
{
    if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown stream flag 0x%x", flag);
    bool head = flag == ACL_MODEL_STREAM_FLAG_HEAD;
    if (!(s->flags & ACL_STREAM_PERSISTENT))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "stream %d was not created with ACL_STREAM_PERSISTENT "
                         "(aclrtCreateStreamWithConfig), which a model's streams need",
                         (int)s->id);
    if (s->ctx->phys != m->phys)
        return acl_raise(api, ACL_ERROR_RT_MODEL_CONTEXT,
                         "stream %d is on another device than model %u", (int)s->id,
                         (unsigned)m->id);
    if (capture_of_stream(s))
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURED, "stream %d is being captured",
                         (int)s->id);
    acl_model *other = bound_model_of(s);
    if (other)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "stream %d is already bound to model %u",
                         (int)s->id, (unsigned)other->id);
    pthread_mutex_lock(&m->lock);
    model_state state = m->state;
    capture *c = m->cap;
    if (c)
        capture_addref(c);
    pthread_mutex_unlock(&m->lock);
    if (state != MODEL_BUILDING) {
        if (c)
            capture_unref(c);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u is not being built (aclmdlRIBuildBegin)", (unsigned)m->id);
    }
    aclError err = ACL_SUCCESS;
    if (!c) {
        /* The first stream: the build records from here. */
        if ((err = capture_new(s, m, ACL_MODEL_RI_CAPTURE_MODE_RELAXED, &c)))
            return acl_raise(api, err, "out of host memory");
        c->building = true;
        err = capture_start(c, s);
        if (err) {
            capture_unref(c);
            return acl_raise(api, err, "binding stream %d failed: %s", (int)s->id,
                             acl_error_text(err));
        }
        capture_register(c);
        pthread_mutex_lock(&m->lock);
        m->cap = c; /* the registry and the model share the first reference */
        atomic_fetch_add(&c->sink.refs, 2); /* the model's, and ours */
        pthread_mutex_unlock(&m->lock);
        if (!head) {
            /* It starts where another stream starts it: no run starts here. */
            pthread_mutex_lock(&c->gate);
            if (!(err = flow_start(api, c)))
                flow_mark_default(c, s);
            pthread_mutex_unlock(&c->gate);
            if (err)
                capture_abandon(c);
        }
        capture_unref(c);
    } else {
        err = build_join(api, c, s, head);
        capture_unref(c);
    }
    if (err)
        return err;
    if (!stream_hold(s))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "stream %d is being destroyed", (int)s->id);
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&m->lock);
    if (m->nbound == m->bound_cap) {
        size_t cap = m->bound_cap ? 2 * m->bound_cap : 4;
        acl_stream **grown = realloc(m->bound, cap * sizeof *grown);
        if (grown) {
            m->bound = grown;
            m->bound_cap = cap;
        }
    }
    bool kept = m->nbound < m->bound_cap;
    if (kept) {
        if (m->nbound == 0) {
            m->next_built = built_models;
            built_models = m;
        }
        m->bound[m->nbound++] = s;
    }
    pthread_mutex_unlock(&m->lock);
    pthread_mutex_unlock(&registry_lock);
    if (!kept) {
        stream_release(s);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    model_add_member(m, s);
    return ACL_SUCCESS;
}

bool model_binds(acl_model *m, acl_stream *s)
{
    bool found = false;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nbound; i++)
        found |= m->bound[i] == s;
    pthread_mutex_unlock(&m->lock);
    return found;
}

aclError model_end_task(const char *api, acl_model *m, acl_stream *s)
{
    if (!model_binds(m, s))
        return acl_raise(api, ACL_ERROR_RT_STREAM_MODEL, "stream %d is not bound to model %u",
                         (int)s->id, (unsigned)m->id);
    capture *c = capture_get(s);
    if (!c || c->model != m || !c->building) {
        if (c)
            capture_unref(c);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "model %u is not being built",
                         (unsigned)m->id);
    }
    aclError err = ACL_SUCCESS;
    if (!capture_stream_ended(c, s)) {
        pthread_mutex_lock(&c->gate);
        bool flow = c->flow != NULL;
        if (flow)
            err = flow_end_stream(api, c, s);
        pthread_mutex_unlock(&c->gate);
        /* A later stream joins the first one back, so that the graph ends
         * after all of its work. */
        if (!flow && s != c->origin)
            err = link_streams(api, s, c->origin, NULL);
        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; !err && i < c->nstreams; i++)
            if (c->streams[i] == s)
                c->ended[i] = true;
        pthread_mutex_unlock(&c->lock);
    }
    capture_unref(c);
    return err;
}

aclError model_build_end(const char *api, acl_model *m)
{
    pthread_mutex_lock(&m->lock);
    capture *c = m->state == MODEL_BUILDING ? m->cap : NULL;
    if (c)
        capture_addref(c);
    model_state state = m->state;
    pthread_mutex_unlock(&m->lock);
    if (state != MODEL_BUILDING)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "model %u is not being built",
                         (unsigned)m->id);
    if (!c)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u has no stream bound (aclmdlRIBindStream)", (unsigned)m->id);
    /* Streams whose end was not marked are closed now, joined to the first. */
    aclError err = ACL_SUCCESS;
    for (size_t i = 1; !err; i++) {
        pthread_mutex_lock(&c->lock);
        acl_stream *s = i < c->nstreams && !c->ended[i] ? c->streams[i] : NULL;
        bool more = i < c->nstreams;
        pthread_mutex_unlock(&c->lock);
        if (!more)
            break;
        if (s)
            err = model_end_task(api, m, s);
    }
    bool invalidated = false;
    backend_graph *g = NULL;
    aclError ended;
    if (capture_close(c, err != ACL_SUCCESS, &g, &invalidated, &ended))
        capture_unref(c); /* the registry's */
    else if (!err)
        ended = ACL_ERROR_RT_STREAM_NOT_CAPTURED; /* abandoned meanwhile (aclmdlRIDestroy) */
    if (!err)
        err = ended;
    if (invalidated && !err)
        err = acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "building model %u failed (%s)", (unsigned)m->id, c->why);
    else if (err == ACL_ERROR_RT_STREAM_UNJOINED)
        err = acl_raise(api, err, "a stream of model %u was not joined back", (unsigned)m->id);
    else if (err)
        err = acl_raise(api, err, "building model %u failed: %s", (unsigned)m->id,
                        acl_error_text(err));
    else if (c->flow)
        err = flow_assemble(api, m, c, &g); /* its streams branch or start each other */
    model_settle(m, c, err ? NULL : g);
    if (err && g)
        backend()->graph->destroy(g);
    capture_unref(c);
    return err;
}

aclError model_unbind(const char *api, acl_model *m, acl_stream *s)
{
    pthread_mutex_lock(&m->lock);
    bool building = m->state == MODEL_BUILDING;
    size_t i = 0;
    while (i < m->nbound && m->bound[i] != s)
        i++;
    bool found = i < m->nbound;
    if (found && !building) {
        memmove(&m->bound[i], &m->bound[i + 1], (m->nbound - i - 1) * sizeof *m->bound);
        m->nbound--;
    }
    pthread_mutex_unlock(&m->lock);
    if (!found)
        return acl_raise(api, ACL_ERROR_RT_STREAM_MODEL, "stream %d is not bound to model %u",
                         (int)s->id, (unsigned)m->id);
    if (building) {
        /* As CANN's: the stream leaves the model with what it recorded. */
        aclError err = flow_unbind(api, m, s);
        if (err)
            return err;
        aclrtStream h = handle_of(&s->obj);
        pthread_mutex_lock(&m->lock);
        for (i = 0; i < m->nbound && m->bound[i] != s; i++)
            ;
        found = i < m->nbound;
        if (found) {
            memmove(&m->bound[i], &m->bound[i + 1], (m->nbound - i - 1) * sizeof *m->bound);
            m->nbound--;
        }
        for (i = 0; i < m->nmembers && m->members[i] != h; i++)
            ;
        if (i < m->nmembers) {
            memmove(&m->members[i], &m->members[i + 1], (m->nmembers - i - 1) * sizeof *m->members);
            m->nmembers--;
        }
        pthread_mutex_unlock(&m->lock);
        if (!found)
            return acl_raise(api, ACL_ERROR_RT_STREAM_MODEL,
                             "stream %d was unbound from model %u meanwhile", (int)s->id,
                             (unsigned)m->id);
    }
    stream_release(s);
    return ACL_SUCCESS;
}

/* ---- execution --------------------------------------------------------------------- */

/* The model's graph, or a raised error. With m borrowed. */
static aclError model_ready_graph(const char *api, acl_model *m, backend_graph **g)
{
    pthread_mutex_lock(&m->lock);
    model_state state = m->state;
    *g = m->graph;
    pthread_mutex_unlock(&m->lock);
    switch (state) {
    case MODEL_READY:
        return ACL_SUCCESS;
    case MODEL_CAPTURING:
        return acl_raise(api, ACL_ERROR_RT_MODEL_CAPTURED,
                         "model %u is still being captured (aclmdlRICaptureEnd first)",
                         (unsigned)m->id);
    case MODEL_BUILDING:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u is still being built (aclmdlRIBuildEnd first)", (unsigned)m->id);
    case MODEL_BODY:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u is a branch of a conditional task: it runs as part of the "
                         "model that holds the task",
                         (unsigned)m->id);
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u was abandoned: its capture or build did not finish",
                         (unsigned)m->id);
    }
}

aclError model_execute_async(const char *api, acl_model *m, acl_stream *s)
{
    backend_graph *g;
    aclError err = model_ready_graph(api, m, &g);
    if (err)
        return err;
    if (s->ctx->phys != m->phys)
        return acl_raise(api, ACL_ERROR_RT_MODEL_CONTEXT,
                         "model %u belongs to another device than stream %d", (unsigned)m->id,
                         (int)s->id);
    if ((err = cond_assign_defaults(api, m, s)))
        return err;
    return stream_submit(api, s,
                         &(task){.kind = TASK_GRAPH, .u.graph = {.graph = g, .model_id = m->id}});
}

aclError model_execute(const char *api, acl_model *m, int32_t timeout_ms)
{
    backend_graph *g;
    aclError err = model_ready_graph(api, m, &g);
    if (err)
        return err;
    /* A built model runs on its first bound stream; a captured one, which
     * has none, on the current context's default stream. */
    acl_stream *s = NULL;
    bool own = false;
    pthread_mutex_lock(&m->lock);
    if (m->nbound && stream_hold(m->bound[0])) {
        s = m->bound[0];
        own = true;
    }
    pthread_mutex_unlock(&m->lock);
    if (!s) {
        if ((err = current_stream_get(api, NULL, &s)))
            return err;
        if (!stream_hold(s)) {
            stream_put(s);
            return acl_raise(api, ACL_ERROR_RT_CONTEXT_NULL, "the current context is going");
        }
        stream_put(s);
    }
    if (s->ctx->phys != m->phys) {
        stream_release(s);
        return acl_raise(api, ACL_ERROR_RT_MODEL_CONTEXT,
                         "model %u belongs to another device than the current context",
                         (unsigned)m->id);
    }
    err = cond_assign_defaults(api, m, s);
    if (!err)
        err = stream_submit(api, s,
                            &(task){.kind = TASK_GRAPH,
                                    .u.graph = {.graph = g, .model_id = m->id, .from_model = own}});
    if (!err) {
        unsigned borrowed = borrow_suspend(); /* a wait is no place for a borrow */
        err = backend()->stream->synchronize(stream_backend(s), timeout_ms);
        borrow_resume(borrowed);
        if (err == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
            err = acl_raise(api, err, "model %u still running after %d ms", (unsigned)m->id,
                            (int)timeout_ms);
        else if (err)
            err = acl_raise(api, err, "model %u failed: %s", (unsigned)m->id, acl_error_text(err));
    }
    stream_release(s);
    return err;
}

aclError model_destroy(const char *api, aclmdlRI handle)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    acl_model *m = (acl_model *)handle_get(handle, HANDLE_MODEL);
    if (!m)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live model run instance%s",
                         handle, handle_kind_of(handle) ? " (it is another kind of handle)" : "");
    pthread_mutex_lock(&m->lock);
    model_state state = m->state;
    bool branch = m->parent != NULL;
    pthread_mutex_unlock(&m->lock);
    if (branch) {
        model_put(m);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u is a branch of a conditional task (aclmdlRIAddCondTask): it "
                         "goes with the model that holds the task",
                         (unsigned)m->id);
    }
    if (state == MODEL_CAPTURING) {
        model_put(m);
        return acl_raise(api, ACL_ERROR_RT_MODEL_CAPTURED,
                         "model %u is being captured: end the capture (aclmdlRICaptureEnd) first",
                         (unsigned)m->id);
    }
    if (!object_take(&m->obj)) {
        model_put(m);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is being destroyed by another thread",
                         handle);
    }
    /* A build in progress is abandoned. */
    pthread_mutex_lock(&m->lock);
    capture *c = m->cap;
    if (c)
        capture_addref(c);
    pthread_mutex_unlock(&m->lock);
    if (c) {
        capture_abandon(c);
        capture_unref(c);
    }
    pthread_mutex_lock(&registry_lock);
    for (acl_model **p = &built_models; *p; p = &(*p)->next_built) {
        if (*p == m) {
            *p = m->next_built;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    pthread_mutex_lock(&m->lock);
    size_t ncallbacks = m->ncallbacks;
    destroy_callback *callbacks = m->callbacks;
    m->callbacks = NULL;
    m->ncallbacks = m->callback_cap = 0;
    acl_task_group **groups = m->groups;
    size_t ngroups = m->ngroups;
    m->groups = NULL;
    m->ngroups = m->group_cap = 0;
    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; i < ngroups; i++)
        (void)object_take(&groups[i]->obj);
    free(groups);
    tasks_model_destroyed(m);
    cond_model_destroyed(m);
    /* ACL calls them as the model goes, with none of our locks held. */
    for (size_t i = 0; i < ncallbacks; i++)
        callbacks[i].fn(callbacks[i].user_data);
    free(callbacks);
    model_put(m); /* a graph still running is freed once it finished */
    return ACL_SUCCESS;
}

aclError model_abort(const char *api, acl_model *m)
{
    backend_graph *g;
    pthread_mutex_lock(&m->lock);
    bool capturing = m->state == MODEL_CAPTURING || m->state == MODEL_BUILDING;
    pthread_mutex_unlock(&m->lock);
    if (capturing)
        return acl_raise(api, ACL_ERROR_RT_MODEL_CAPTURED,
                         "model %u is being captured or built: there is no run to stop",
                         (unsigned)m->id);
    aclError err = model_ready_graph(api, m, &g);
    if (err)
        return err;
    if (!backend()->graph->abort)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend cannot stop a model's runs: a launched CUDA graph "
                         "(cudaGraphLaunch) always runs to its end and cannot be withdrawn; wait "
                         "for the run (aclrtSynchronizeStream) or move the stream past it "
                         "(aclrtStreamAbort)",
                         backend()->name);
    if ((err = backend()->graph->abort(g)))
        return acl_raise(api, err, "stopping the runs of model %u failed: %s", (unsigned)m->id,
                         acl_error_text(err));
    return ACL_SUCCESS;
}

aclError model_set_name(const char *api, acl_model *m, const char *name)
{
    if (!name)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "name is NULL");
    pthread_mutex_lock(&m->lock);
    snprintf(m->name, sizeof m->name, "%s", name);
    pthread_mutex_unlock(&m->lock);
    return ACL_SUCCESS;
}

void model_get_name(acl_model *m, char *name, uint32_t max_len)
{
    pthread_mutex_lock(&m->lock);
    snprintf(name, max_len, "%s", m->name);
    pthread_mutex_unlock(&m->lock);
}

static const char *state_name(model_state state)
{
    switch (state) {
    case MODEL_CAPTURING:
        return "capturing";
    case MODEL_BUILDING:
        return "building";
    case MODEL_READY:
        return "ready";
    case MODEL_BROKEN:
        return "abandoned";
    case MODEL_BODY:
        return "branch";
    }
    return "unknown";
}

/* The graph's node kinds, counted (into a caller's array of at most max). */
static aclError model_nodes(acl_model *m, size_t *count, const char **kinds, size_t max)
{
    *count = 0;
    if (m->state != MODEL_READY || !m->graph)
        return ACL_SUCCESS;
    return backend()->graph->nodes(m->graph, count, kinds, max);
}

aclError model_debug_print(const char *api, acl_model *m)
{
    const char **kinds = calloc(MAX_NODE_KINDS, sizeof *kinds);
    if (!kinds)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    pthread_mutex_lock(&m->lock);
    size_t count;
    aclError err = model_nodes(m, &count, kinds, MAX_NODE_KINDS);
    if (!err) {
        printf("model %u \"%s\": device %d, %s, %zu task%s, streams", (unsigned)m->id, m->name,
               (int)m->device, state_name(m->state), count, count == 1 ? "" : "s");
        for (size_t i = 0; i < m->nmembers; i++)
            printf(" %p", m->members[i]);
        printf("\n");
        for (size_t i = 0; i < count && i < MAX_NODE_KINDS; i++)
            printf("  task %zu: %s\n", i, kinds[i] ? kinds[i] : "?");
        fflush(stdout);
    }
    pthread_mutex_unlock(&m->lock);
    free(kinds);
    if (err)
        return acl_raise(api, err, "reading model %u failed: %s", (unsigned)m->id,
                         acl_error_text(err));
    return ACL_SUCCESS;
}

/* n bytes of text inside a JSON string: quotes, backslashes and control
 * characters escaped (other bytes as they are: ACL asks for UTF-8). */
static void json_text(FILE *f, const char *text, size_t n)
{
    for (size_t i = 0; i < n && text[i]; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

aclError model_debug_json(const char *api, acl_model *m, const char *path, uint32_t flags)
{
    if (!path)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "path is NULL");
    if (flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY && flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown flags 0x%x", flags);
    const char **kinds = calloc(MAX_NODE_KINDS, sizeof *kinds);
    if (!kinds)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    FILE *f = fopen(path, "w");
    if (!f) {
        free(kinds);
        return acl_raise(api, ACL_ERROR_INVALID_FILE, "cannot write %s", path);
    }
    pthread_mutex_lock(&m->lock);
    size_t count;
    aclError err = model_nodes(m, &count, kinds, MAX_NODE_KINDS);
    if (!err) {
        /* chrome://tracing reads the traceEvents array: one instant per task. */
        fprintf(f, "{\"modelId\": %u, \"name\": \"", (unsigned)m->id);
        for (const char *c = m->name; *c; c++)
            fprintf(f, (*c == '"' || *c == '\\') ? "\\%c" : ((unsigned char)*c < 0x20 ? "?" : "%c"),
                    *c);
        fprintf(f, "\", \"deviceId\": %d, \"state\": \"%s\", \"taskCount\": %zu, \"streams\": [",
                (int)m->device, state_name(m->state), count);
        for (size_t i = 0; i < m->nmembers; i++)
            fprintf(f, "%s\"%p\"", i ? ", " : "", m->members[i]);
        fprintf(f, "], \"traceEvents\": [");
        size_t events = 0;
        for (size_t i = 0; i < count && i < MAX_NODE_KINDS; i++, events++)
            fprintf(f,
                    "%s\n  {\"name\": \"%s\", \"ph\": \"i\", \"ts\": %zu, \"pid\": %u, "
                    "\"tid\": 0, \"args\": {\"taskId\": %zu}}",
                    i ? "," : "", kinds[i] ? kinds[i] : "?", i, (unsigned)m->id, i);
        /* What aclrtCacheLastTaskExtendInfo attached to tasks, on a line
         * of its own (tid 1), as text. */
        for (size_t i = 0; i < m->ntasks; i++) {
            const model_task *t = &m->tasks[i];
            if (!t->extend)
                continue;
            fprintf(f,
                    "%s\n  {\"name\": \"extendInfo\", \"ph\": \"i\", \"ts\": %u, \"pid\": %u, "
                    "\"tid\": 1, \"args\": {\"seqId\": %u, \"stream\": \"%p\", \"extendInfo\": \"",
                    events++ ? "," : "", (unsigned)t->seq, (unsigned)m->id, (unsigned)t->seq,
                    t->stream);
            json_text(f, t->extend, t->extend_size);
            fprintf(f, "\"}}");
        }
        fprintf(f, "\n]}\n");
    }
    pthread_mutex_unlock(&m->lock);
    bool written = fclose(f) == 0;
    free(kinds);
    if (err)
        return acl_raise(api, err, "reading model %u failed: %s", (unsigned)m->id,
                         acl_error_text(err));
    if (!written)
        return acl_raise(api, ACL_ERROR_INVALID_FILE, "writing %s failed", path);
    return ACL_SUCCESS;
}

aclError model_streams(const char *api, acl_model *m, aclrtStream *streams, uint32_t *count)
{
    if (!count)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "numStreams is NULL");
    pthread_mutex_lock(&m->lock);
    size_t n = m->nmembers;
    if (streams) {
        if (*count < n) {
            pthread_mutex_unlock(&m->lock);
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "model %u has %zu streams; the array holds %u", (unsigned)m->id, n,
                             *count);
        }
        if (n)
            memcpy(streams, m->members, n * sizeof *streams);
    }
    *count = (uint32_t)n;
    pthread_mutex_unlock(&m->lock);
    return ACL_SUCCESS;
}

aclError model_destroy_callback(const char *api, acl_model *m, aclrtCallback fn, void *user_data,
                                bool add)
{
    if (!fn)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "func is NULL");
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&m->lock);
    if (add) {
        if (m->ncallbacks == m->callback_cap) {
            size_t cap = m->callback_cap ? 2 * m->callback_cap : 4;
            destroy_callback *grown = realloc(m->callbacks, cap * sizeof *grown);
            if (grown) {
                m->callbacks = grown;
                m->callback_cap = cap;
            }
        }
        if (m->ncallbacks < m->callback_cap)
            m->callbacks[m->ncallbacks++] = (destroy_callback){fn, user_data};
        else
            err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    } else {
        size_t i = 0;
        while (i < m->ncallbacks && m->callbacks[i].fn != fn)
            i++;
        if (i == m->ncallbacks)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "this function is not registered with model %u", (unsigned)m->id);
        else
            m->callbacks[i] = m->callbacks[--m->ncallbacks];
    }
    pthread_mutex_unlock(&m->lock);
    return err;
}

/* ---- teardown ------------------------------------------------------------------------ */

/* A stream going away in a capture: the capture it was in cannot be
 * replayed as recorded, and the one it started is over. */
static void stream_gone(void *subject)
{
    acl_stream *s = subject;
    capture *c = capture_get(s);
    if (!c)
        return;
    capture_invalidate(c, "one of its streams was destroyed%s", "");
    if (c->origin == s)
        capture_abandon(c);
    capture_unref(c);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&registry_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&registry_lock);
}

__attribute__((constructor)) static void graph_init(void)
{
    lifecycle_observe(LIFECYCLE_STREAM_GONE, stream_gone);
    fork_register(FORK_RANK_KERNELS + 1, fork_prepare, fork_done, fork_done);
}
