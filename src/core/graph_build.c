/* Built models (aclmdlRIBuildBegin .. End, graph.h): streams bound to a
 * model being built record into one capture, joined to its first stream;
 * with stream control flow, each on its own (graph_flow.h). */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/graph.h"
#include "core/graph_flow.h"
#include "core/graph_internal.h"
#include "util/fork.h"

/* Models bound to streams. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static acl_model *built_models;

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
    err = stream_submit(api, from, &(task){.kind = TASK_RECORD, .u.event.backend = e});
    task wait = {.kind = TASK_WAIT, .u.event.backend = e};
    if (!err)
        err = joining ? capture_join(api, joining, to, &wait, true) : stream_submit(api, to, &wait);
    ev->destroy(e);
    free(e);
    return err;
}

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
        capture *first = m->cap;
        if (first)
            capture_addref(first);
        else
            m->cap = c; /* the registry and the model share the first reference */
        atomic_fetch_add(&c->sink.refs, first ? 1 : 2); /* (the model's, and) ours */
        pthread_mutex_unlock(&m->lock);
        if (first) {
            /* Another thread bound the model's first stream meanwhile: this
             * stream joins that build instead. */
            capture_abandon(c);
            err = build_join(api, first, s, head);
            capture_unref(first);
        } else if (!head) {
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

void build_forget(acl_model *m)
{
    pthread_mutex_lock(&registry_lock);
    for (acl_model **p = &built_models; *p; p = &(*p)->next_built) {
        if (*p == m) {
            *p = m->next_built;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&registry_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&registry_lock);
}

__attribute__((constructor)) static void graph_build_init(void)
{
    fork_register(FORK_RANK_KERNELS + 1, fork_prepare, fork_done, fork_done);
}
