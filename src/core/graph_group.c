/* Task groups of a capture (aclmdlRICaptureTaskGrpBegin .. End) and their
 * update by a capture of new work (aclmdlRICaptureTaskUpdateBegin .. End),
 * graph.h. */
#include <stdlib.h>

#include "core/errors.h"
#include "core/graph.h"
#include "core/graph_internal.h"

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
