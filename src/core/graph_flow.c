/* Builds with stream control flow: their recording (graph_flow.h). */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/errors.h"
#include "core/graph_flow.h"

size_t flow_stream_index(const model_flow *f, aclrtStream handle)
{
    size_t i = 0;
    while (i < f->nstreams && f->streams[i].handle != handle)
        i++;
    return i;
}

static flow_stream *flow_stream_of(model_flow *f, acl_stream *s)
{
    size_t i = flow_stream_index(f, handle_of(&s->obj));
    return i < f->nstreams ? &f->streams[i] : NULL;
}

static void item_free(flow_item *it)
{
    if (it->kind == ITEM_PIECE && it->u.piece) /* NULL: the model took it */
        backend()->graph->destroy(it->u.piece);
    else if (it->kind == ITEM_JUMP)
        free(it->u.jump.labels);
}

static void stream_items_free(flow_stream *fs)
{
    for (size_t i = 0; i < fs->nitems; i++)
        item_free(&fs->items[i]);
    free(fs->items);
    fs->items = NULL;
    fs->nitems = fs->item_cap = 0;
}

/* Appends it to fs's list; on failure what it owns stays the caller's. */
static aclError item_append(flow_stream *fs, const flow_item *it)
{
    if (fs->nitems == fs->item_cap) {
        size_t cap = fs->item_cap ? 2 * fs->item_cap : 8;
        flow_item *grown = realloc(fs->items, cap * sizeof *grown);
        if (!grown)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        fs->items = grown;
        fs->item_cap = cap;
    }
    fs->items[fs->nitems++] = *it;
    return ACL_SUCCESS;
}

static aclError flow_stream_add(model_flow *f, acl_stream *s, bool head, flow_stream **out)
{
    if (f->nstreams == f->stream_cap) {
        size_t cap = f->stream_cap ? 2 * f->stream_cap : 4;
        flow_stream *grown = realloc(f->streams, cap * sizeof *grown);
        if (!grown)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        f->streams = grown;
        f->stream_cap = cap;
    }
    flow_stream *fs = &f->streams[f->nstreams++];
    *fs = (flow_stream){.s = s, .handle = handle_of(&s->obj), .id = s->id, .head = head};
    *out = fs;
    return ACL_SUCCESS;
}

/* Ends fs's piece (an item when it holds work) and, unless last, begins
 * its next one. On failure the caller invalidates the capture: work on
 * the stream would otherwise reach a stream no longer captured. */
static aclError piece_cut(flow_stream *fs, bool last)
{
    if (!fs->open)
        return ACL_SUCCESS;
    const backend_graph_ops *ops = backend()->graph;
    backend_graph *piece = NULL;
    fs->open = false;
    aclError err = ops->capture_end_piece(stream_backend(fs->s), false, &piece, NULL);
    size_t nodes = 0;
    if (!err && piece)
        err = ops->nodes(piece, &nodes, NULL, 0);
    if (!err && nodes)
        err = item_append(fs, &(flow_item){.kind = ITEM_PIECE, .u.piece = piece});
    if (piece && (err || !nodes))
        ops->destroy(piece);
    if (!err && !last && !(err = ops->capture_begin(stream_backend(fs->s))))
        fs->open = true;
    return err;
}

/* A failure in c's recording: c cannot be kept. Raises. */
static aclError flow_failed(const char *api, capture *c, acl_stream *s, const char *what,
                            aclError err)
{
    capture_invalidate(c, "%s failed", what);
    return acl_raise(api, err, "%s on stream %d failed (the build of model %u is invalidated): %s",
                     what, (int)s->id, (unsigned)c->model->id, acl_error_text(err));
}

/* ---- the start ------------------------------------------------------------------------ */

/* Every other stream of c joins its first one, whose capture then ends as
 * the prefix. Bare codes. */
static aclError prefix_end(capture *c, acl_stream **streams, const bool *started, size_t n,
                           model_flow *f)
{
    const backend_event_ops *ev = backend()->event;
    backend_event *e = calloc(1, ev->size);
    if (!e)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    aclError err = ev->create(e, c->origin->ctx->phys, false);
    if (err) {
        free(e);
        return err;
    }
    /* Straight to the backend: joins of our own, not tasks of the model. */
    for (size_t i = 0; i < n && !err; i++) {
        if (streams[i] == c->origin || !started[i])
            continue;
        if (!(err =
                  stream_dispatch(streams[i], &(task){.kind = TASK_RECORD, .u.event.backend = e})))
            err = stream_dispatch(c->origin, &(task){.kind = TASK_WAIT, .u.event.backend = e});
    }
    ev->destroy(e);
    free(e);
    if (!err)
        err = backend()->graph->capture_end_piece(stream_backend(c->origin), false, &f->prefix,
                                                  &f->prefix_end);
    return err;
}

aclError flow_start(const char *api, capture *c)
{
    if (c->flow)
        return ACL_SUCCESS;
    if (!backend()->graph->capture_end_piece)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend cannot build models with stream control flow",
                         backend()->name);
    if (atomic_load(&c->invalidated))
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                         "the build of model %u was invalidated (%s)", (unsigned)c->model->id,
                         c->why);
    pthread_mutex_lock(&c->lock);
    int32_t group = c->group_stream ? c->group_stream->id : -1;
    size_t n = c->nstreams;
    acl_stream **streams = malloc((n ? n : 1) * sizeof *streams);
    bool *started = malloc((n ? n : 1) * sizeof *started);
    bool *ended = malloc((n ? n : 1) * sizeof *ended);
    for (size_t i = 0; streams && started && ended && i < n; i++) {
        streams[i] = c->streams[i];
        ended[i] = c->ended[i];
        started[i] = atomic_load_explicit(&c->streams[i]->sink_ready, memory_order_acquire);
    }
    size_t first_task = c->ntasks;
    pthread_mutex_unlock(&c->lock);
    model_flow *f = calloc(1, sizeof *f);
    aclError err = ACL_SUCCESS;
    if (group >= 0)
        err = acl_raise(api, ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                        "a task group is open on stream %d (aclmdlRICaptureTaskGrpBegin): model "
                        "%u cannot take stream control flow before it ends",
                        (int)group, (unsigned)c->model->id);
    else if (!f || !streams || !started || !ended)
        err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    else if ((err = prefix_end(c, streams, started, n, f)))
        err = flow_failed(api, c, c->origin, "ending what model was recorded so far", err);
    if (err) {
        if (f)
            flow_free(f);
    } else {
        /* The capture's end goes through f from now on, a failure below
         * included: it ends the streams' captures that did begin. */
        f->first_task = first_task;
        c->flow = f;
    }
    /* Every stream captures on its own. */
    for (size_t i = 0; !err && i < n; i++) {
        flow_stream *fs;
        if (!started[i])
            continue; /* joining now: capture_join adds it */
        if ((err = flow_stream_add(f, streams[i], true, &fs)))
            err = flow_failed(api, c, streams[i], "adding a stream", err);
        else if (!ended[i] && (err = backend()->graph->capture_begin(stream_backend(fs->s))))
            err = flow_failed(api, c, streams[i], "beginning a capture", err);
        else
            fs->open = !ended[i];
    }
    free(streams);
    free(started);
    free(ended);
    return err;
}

/* ---- what streams record ------------------------------------------------------------ */

static flow_record *record_of(model_flow *f, backend_event *e)
{
    for (size_t i = 0; i < f->nrecords; i++)
        if (f->records[i].event == e)
            return &f->records[i];
    return NULL;
}

aclError flow_event(const char *api, capture *c, acl_stream *s, const task *t, uint32_t number)
{
    model_flow *f = c->flow;
    flow_stream *fs = flow_stream_of(f, s);
    if (!fs)
        return flow_failed(api, c, s, stream_task_name(t->kind), ACL_ERROR_RT_INTERNAL_ERROR);
    flow_record *r = record_of(f, t->u.event.backend);
    flow_item it = {.kind = t->kind == TASK_RECORD ? ITEM_RECORD : ITEM_WAIT, .task = number};
    if (it.kind == ITEM_WAIT) {
        if (!r)
            return ACL_SUCCESS; /* its record is in the prefix, which runs first */
        it.u.record = r->record;
    } else {
        if (!r) {
            if (f->nrecords == f->record_cap) {
                size_t cap = f->record_cap ? 2 * f->record_cap : 8;
                flow_record *grown = realloc(f->records, cap * sizeof *grown);
                if (!grown)
                    return flow_failed(api, c, s, stream_task_name(t->kind),
                                       ACL_ERROR_RT_MEMORY_ALLOCATION);
                f->records = grown;
                f->record_cap = cap;
            }
            r = &f->records[f->nrecords++];
            r->event = t->u.event.backend;
        }
        r->record = f->next_record++;
        it.u.record = r->record;
    }
    aclError err = piece_cut(fs, false);
    if (!err)
        err = item_append(fs, &it);
    return err ? flow_failed(api, c, s, stream_task_name(t->kind), err) : ACL_SUCCESS;
}

aclError flow_join(capture *c, acl_stream *s, bool head)
{
    flow_stream *fs;
    aclError err = flow_stream_add(c->flow, s, head, &fs);
    if (!err && !(err = backend()->graph->capture_begin(stream_backend(s))))
        fs->open = true;
    if (err)
        capture_invalidate(c, "a stream could not join it%s", "");
    return err;
}

void flow_mark_default(capture *c, acl_stream *s)
{
    flow_stream *fs = flow_stream_of(c->flow, s);
    if (fs)
        fs->head = false;
}

aclError flow_end_stream(const char *api, capture *c, acl_stream *s)
{
    flow_stream *fs = flow_stream_of(c->flow, s);
    aclError err = fs ? piece_cut(fs, true) : ACL_SUCCESS;
    return err ? flow_failed(api, c, s, "ending the stream's tasks", err) : ACL_SUCCESS;
}

void flow_seal(capture *c, bool discard)
{
    model_flow *f = c->flow;
    for (size_t i = 0; i < f->nstreams; i++) {
        flow_stream *fs = &f->streams[i];
        if (!fs->open)
            continue;
        aclError err;
        if (discard) {
            backend_graph *none = NULL;
            fs->open = false;
            err = backend()->graph->capture_end_piece(stream_backend(fs->s), true, &none, NULL);
        } else {
            err = piece_cut(fs, true);
        }
        if (err && !discard)
            capture_invalidate(c, "ending the last work of a stream failed%s", "");
    }
}

bool flow_dropped(const capture *c, acl_stream *s)
{
    const model_flow *f = c->flow;
    aclrtStream h = handle_of(&s->obj);
    for (size_t i = 0; f && i < f->ndropped; i++)
        if (f->dropped[i] == h)
            return true;
    return false;
}

void flow_free(model_flow *f)
{
    for (size_t i = 0; i < f->nstreams; i++)
        stream_items_free(&f->streams[i]);
    free(f->streams);
    if (f->prefix)
        backend()->graph->destroy(f->prefix);
    free(f->records);
    free(f->dropped);
    free(f);
}

/* ---- control tasks ------------------------------------------------------------------ */

/* The build s is bound to, with a reference and its gate held, going on
 * with stream control flow. Raises. */
static aclError build_locked(const char *api, acl_stream *s, capture **out)
{
    capture *c = capture_get(s);
    if (!c || !c->building || !c->model || !model_binds(c->model, s)) {
        if (c)
            capture_unref(c);
        uint32_t id;
        if (model_bound_id(s, &id))
            return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "model %u, which stream %d is bound to, is built: its streams take "
                             "no more tasks",
                             (unsigned)id, (int)s->id);
        return acl_raise(api, ACL_ERROR_RT_STREAM_MODEL,
                         "stream %d is not bound to a model being built (aclmdlRIBuildBegin, "
                         "aclmdlRIBindStream)",
                         (int)s->id);
    }
    pthread_mutex_lock(&c->gate);
    aclError err = ACL_SUCCESS;
    if (c->finished)
        err = acl_raise(api, ACL_ERROR_RT_STREAM_MODEL, "the build of model %u ended meanwhile",
                        (unsigned)c->model->id);
    else if (atomic_load(&c->invalidated))
        err = acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "the build of model %u was invalidated (%s): end it",
                        (unsigned)c->model->id, c->why);
    else if (capture_stream_ended(c, s))
        err = acl_raise(api, ACL_ERROR_RT_STREAM_MODEL,
                        "aclmdlRIEndTask closed stream %d's tasks in model %u", (int)s->id,
                        (unsigned)c->model->id);
    else
        err = flow_start(api, c);
    if (err) {
        pthread_mutex_unlock(&c->gate);
        capture_unref(c);
        return err;
    }
    *out = c;
    return ACL_SUCCESS;
}

static void build_unlock(capture *c)
{
    pthread_mutex_unlock(&c->gate);
    capture_unref(c);
}

/* it (what it owns stays the caller's on failure), the control task `what`
 * on s, ends s's piece. With c's gate held. Raises. */
static aclError control_append(const char *api, capture *c, acl_stream *s, const char *what,
                               flow_item *it)
{
    flow_stream *fs = flow_stream_of(c->flow, s);
    aclError err = fs ? piece_cut(fs, false) : ACL_ERROR_RT_INTERNAL_ERROR;
    if (!err) {
        it->task = tasks_record_control(c, s, what);
        err = item_append(fs, it);
    }
    return err ? flow_failed(api, c, s, what, err) : ACL_SUCCESS;
}

/* The stream `target` that s's control task starts: bound to the same
 * model, with ACL_MODEL_STREAM_FLAG_DEFAULT. With c's gate held. Raises. */
static aclError check_target(const char *api, capture *c, acl_stream *target)
{
    flow_stream *fs = flow_stream_of(c->flow, target);
    if (!fs || !model_binds(c->model, target))
        return acl_raise(api, ACL_ERROR_RT_STREAM_MODEL, "stream %d is not bound to model %u",
                         (int)target->id, (unsigned)c->model->id);
    if (fs->head)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "stream %d is a head stream of model %u: it starts with every run; "
                         "streams that other streams start are bound with "
                         "ACL_MODEL_STREAM_FLAG_DEFAULT",
                         (int)target->id, (unsigned)c->model->id);
    return ACL_SUCCESS;
}

aclError model_activate(const char *api, acl_stream *target, acl_stream *s)
{
    capture *c;
    aclError err = build_locked(api, s, &c);
    if (err)
        return err;
    if (!(err = check_target(api, c, target)))
        err = control_append(
            api, c, s, "aclrtActiveStream",
            &(flow_item){.kind = ITEM_ACTIVATE, .u.stream = handle_of(&target->obj)});
    build_unlock(c);
    return err;
}

aclError model_switch_stream(const char *api, const void *left, aclrtCondition cond,
                             const void *right, aclrtCompareDataType type, acl_stream *target,
                             acl_stream *s)
{
    capture *c;
    aclError err = build_locked(api, s, &c);
    if (err)
        return err;
    flow_item it = {.kind = ITEM_SWITCH,
                    .u.sw = {.test = {.kind = FLOW_SELECT_COMPARE,
                                      .cmp = (uint32_t)cond,
                                      .wide = type == ACL_RT_SWITCH_INT64,
                                      .left = left,
                                      .right = right},
                             .stream = handle_of(&target->obj)}};
    if (!(err = check_target(api, c, target)))
        err = control_append(api, c, s, "aclrtSwitchStream", &it);
    build_unlock(c);
    return err;
}

/* The label's own checks come first, as in CANN's runtime. */
aclError model_set_label(const char *api, aclrtLabel label, acl_stream *s)
{
    aclError err = label_set(api, label, s);
    if (err)
        return err;
    capture *c;
    if (!(err = build_locked(api, s, &c))) {
        err = control_append(api, c, s, "aclrtSetLabel",
                             &(flow_item){.kind = ITEM_LABEL, .u.label = label});
        build_unlock(c);
    }
    if (err)
        label_unset(label);
    return err;
}

aclError model_switch_label(const char *api, const void *index, uint32_t count, aclrtLabelList list,
                            acl_stream *s)
{
    aclrtLabel *labels = NULL;
    aclError err = label_list_take(api, list, count, s, &labels);
    if (err)
        return err;
    capture *c;
    if (!(err = build_locked(api, s, &c))) {
        err = control_append(
            api, c, s, "aclrtSwitchLabelByIndex",
            &(flow_item){.kind = ITEM_JUMP,
                         .u.jump = {.index = index, .count = count, .labels = labels}});
        build_unlock(c);
    }
    if (err)
        free(labels);
    return err;
}

/* ---- unbinding while the build goes on ------------------------------------------------ */

aclError flow_unbind(const char *api, acl_model *m, acl_stream *s)
{
    pthread_mutex_lock(&m->lock);
    capture *c = m->state == MODEL_BUILDING ? m->cap : NULL;
    if (c)
        capture_addref(c);
    pthread_mutex_unlock(&m->lock);
    if (!c)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "model %u is not being built",
                         (unsigned)m->id);
    acl_stream *gone = NULL;
    pthread_mutex_lock(&c->gate);
    aclError err = c->finished ? acl_raise(api, ACL_ERROR_RT_STREAM_MODEL,
                                           "the build of model %u ended meanwhile", (unsigned)m->id)
                               : flow_start(api, c);
    model_flow *f = c->flow;
    if (!err && f->ndropped == f->dropped_cap) {
        size_t cap = f->dropped_cap ? 2 * f->dropped_cap : 4;
        aclrtStream *grown = realloc(f->dropped, cap * sizeof *grown);
        if (grown) {
            f->dropped = grown;
            f->dropped_cap = cap;
        } else {
            err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        }
    }
    if (!err) {
        /* What it recorded goes: its pieces and items, and, once the graph
         * is made, its work in the prefix (graph_flow_emit.c). */
        flow_stream *fs = flow_stream_of(f, s);
        if (fs) {
            if (fs->open) {
                backend_graph *none = NULL;
                (void)backend()->graph->capture_end_piece(stream_backend(s), true, &none, NULL);
            }
            stream_items_free(fs);
            size_t i = (size_t)(fs - f->streams);
            memmove(fs, fs + 1, (f->nstreams - i - 1) * sizeof *fs);
            f->nstreams--;
        }
        f->dropped[f->ndropped++] = handle_of(&s->obj);
        gone = capture_remove_stream(c, s);
    }
    pthread_mutex_unlock(&c->gate);
    if (gone)
        stream_release(gone); /* with no lock held: it may be the last reference */
    capture_unref(c);
    return err;
}
