/* Models (graph.h): their objects, execution, destroy and what they tell
 * of themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/graph.h"
#include "core/graph_internal.h"

static atomic_uint next_model_id;

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

/* Makes the model of a finished capture ready, or breaks it. */
void model_settle(acl_model *m, capture *c, backend_graph *g)
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

/* A run queued on a stream being captured (or bound to a model being
 * built) becomes part of that model, where the backend can put it there. */
static aclError run_placeable(const char *api, const acl_model *m, acl_stream *s)
{
    if (backend()->graph->launch_captured || stream_sink(s) == NULL)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "model %u cannot run on stream %d while the stream is captured or bound to a "
                     "model being built: the %s backend cannot put a model's run into another "
                     "model (CUDA cannot capture a graph's launch)",
                     (unsigned)m->id, (int)s->id, backend()->name);
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
    if ((err = run_placeable(api, m, s)) || (err = cond_assign_defaults(api, m, s)))
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
    err = run_placeable(api, m, s);
    if (!err)
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
    build_forget(m);
    model_gone(m);
    model_put(m); /* a graph still running is freed once it finished */
    return ACL_SUCCESS;
}

void model_gone(acl_model *m)
{
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
