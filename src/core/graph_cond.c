/* Conditional tasks (graph.h): conditions, the conditional task on a
 * capturing stream, and the models of its branches, which captures fill
 * (aclmdlRICaptureToModelRIBegin .. aclmdlRICaptureEnd) while the model
 * that holds the task is still being captured.
 *
 * A condition is a 64-bit word of device memory (aclmdlRICondHandleGetCondPtr)
 * that the backend's conditional node reads. Words come from pages of
 * device memory kept for the process (registered as device memory that
 * aclrtFree refuses) and go back to their page's free list once both the
 * condition's handle and every run of the graph that reads the word are
 * gone; giving one back calls nothing (the graph's side runs on threads
 * where the backend may not be called).
 *
 * Locks: a model's lock, then its branches' (parent first); words_lock
 * alone, last. */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/errors.h"
#include "core/graph_internal.h"
#include "core/memory.h"
#include "util/fork.h"

enum {
    WORDS_PER_PAGE = 512,
    PAGE_BYTES = WORDS_PER_PAGE * sizeof(uint64_t),
    WORD_DEVICES = 64,
    MAX_BRANCHES = 1024, /* branches of one SWITCH task */
};

/* A word, shared by its condition and the graph that reads it. */
typedef struct word_box {
    atomic_int refs;
    int32_t phys;
    uint64_t *word;
} word_box;

struct acl_cond {
    object obj;
    acl_model *model; /* the model it was made for (which withdraws it first) */
    word_box *box;
    uint64_t backend; /* the backend's condition */
    uint32_t default_value;
    bool assign_default;
};

static pthread_mutex_t words_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t **free_words[WORD_DEVICES];
static size_t nfree[WORD_DEVICES], free_cap[WORD_DEVICES];

/* A free word of phys, from a new page when none is left. Raises. */
static aclError word_take(const char *api, int32_t phys, int32_t device, uint64_t **out)
{
    if (phys < 0 || phys >= WORD_DEVICES)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "conditions are kept on the first %d devices", (int)WORD_DEVICES);
    pthread_mutex_lock(&words_lock);
    while (nfree[phys] == 0) {
        /* A new page, made with the lock dropped (the allocation registry
         * comes first in the lock order). */
        pthread_mutex_unlock(&words_lock);
        void *page = NULL;
        aclError err = backend()->memory->malloc_device(phys, &page, PAGE_BYTES);
        if (!err && (err = memory_register_borrowed(page, PAGE_BYTES, phys, device)))
            (void)backend()->memory->free_device(phys, page);
        if (err)
            return acl_raise(api, err, "allocating device memory for conditions failed: %s",
                             acl_error_text(err));
        pthread_mutex_lock(&words_lock);
        size_t cap = free_cap[phys] + WORDS_PER_PAGE;
        uint64_t **grown = realloc(free_words[phys], cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&words_lock);
            return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        }
        free_words[phys] = grown;
        free_cap[phys] = cap;
        for (size_t i = WORDS_PER_PAGE; i-- > 0;)
            free_words[phys][nfree[phys]++] = (uint64_t *)page + i;
    }
    *out = free_words[phys][--nfree[phys]];
    pthread_mutex_unlock(&words_lock);
    return ACL_SUCCESS;
}

/* Drops one holder of the box; the last one gives the word back. Calls
 * nothing of the backend: graphs' user objects end here. */
static void word_release(void *arg)
{
    word_box *b = arg;
    if (atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    pthread_mutex_lock(&words_lock);
    /* The list has room: it held the word before (pages only grow it). */
    if (nfree[b->phys] < free_cap[b->phys])
        free_words[b->phys][nfree[b->phys]++] = b->word;
    pthread_mutex_unlock(&words_lock);
    free(b);
}

aclError cond_word_for(const char *api, acl_model *m, backend_graph *g, uint64_t **word)
{
    word_box *box = calloc(1, sizeof *box);
    if (!box)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    atomic_init(&box->refs, 1);
    box->phys = m->phys;
    aclError err = word_take(api, m->phys, m->device, &box->word);
    if (err) {
        free(box);
        return err;
    }
    if ((err = backend()->graph->keep(g, box, word_release))) {
        word_release(box);
        return acl_raise(api, err, "tying a condition to the graph of model %u failed: %s",
                         (unsigned)m->id, acl_error_text(err));
    }
    *word = box->word;
    return ACL_SUCCESS;
}

static void cond_free(object *o)
{
    acl_cond *c = (acl_cond *)o;
    word_release(c->box);
    free(c);
}

/* ---- conditions --------------------------------------------------------------------- */

/* The capture filling m, with a reference, or NULL. */
static capture *capture_of(acl_model *m)
{
    pthread_mutex_lock(&m->lock);
    capture *c = m->state == MODEL_CAPTURING ? m->cap : NULL;
    if (c)
        capture_addref(c);
    pthread_mutex_unlock(&m->lock);
    return c;
}

/* Appends to m's conditions or branches, with m->lock held. */
static aclError add_cond_to(acl_model *m, acl_cond *c)
{
    if (m->nconds == m->cond_cap) {
        size_t cap = m->cond_cap ? 2 * m->cond_cap : 4;
        acl_cond **grown = realloc(m->conds, cap * sizeof *grown);
        if (!grown)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        m->conds = grown;
        m->cond_cap = cap;
    }
    m->conds[m->nconds++] = c;
    return ACL_SUCCESS;
}

static aclError add_body_to(acl_model *m, acl_model *b)
{
    if (m->nbodies == m->body_cap) {
        size_t cap = m->body_cap ? 2 * m->body_cap : 4;
        acl_model **grown = realloc(m->bodies, cap * sizeof *grown);
        if (!grown)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        m->bodies = grown;
        m->body_cap = cap;
    }
    m->bodies[m->nbodies++] = b;
    return ACL_SUCCESS;
}

aclError cond_create(const char *api, acl_model *m, uint32_t default_value,
                     aclmdlRICondHandleFlag flag, aclmdlRICondHandle *out)
{
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (flag != 0 && flag != ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "flag %d is neither 0 nor ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT",
                         (int)flag);
    aclError err = graph_require(api);
    if (err)
        return err;
    if (!backend()->graph->cond_create || !backend()->graph->add_cond)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the %s backend has no conditional tasks", backend()->name);
    capture *c = capture_of(m);
    if (!c || c->building) {
        if (c)
            capture_unref(c);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u is not being captured (aclmdlRICaptureBegin; conditional tasks "
                         "belong to captured models)",
                         (unsigned)m->id);
    }
    acl_cond *cond = calloc(1, sizeof *cond);
    word_box *box = calloc(1, sizeof *box);
    if (!cond || !box) {
        free(cond);
        free(box);
        capture_unref(c);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    bool assign = flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT;
    atomic_init(&box->refs, 2); /* the condition's and the graph's */
    box->phys = m->phys;
    err = backend()->graph->cond_create(stream_backend(c->origin), default_value, assign,
                                        &cond->backend);
    if (err)
        err = acl_raise(api, err, "creating a condition of model %u failed: %s", (unsigned)m->id,
                        acl_error_text(err));
    if (!err)
        err = word_take(api, m->phys, m->device, &box->word);
    if (!err) {
        /* It starts with its default value either way. */
        uint64_t v = default_value;
        aclError copied = backend()->memory->memcpy_sync(m->phys, box->word, &v, sizeof v,
                                                         COPY_HOST_TO_DEVICE, false);
        if (copied)
            err = acl_raise(api, copied, "initialising the condition failed: %s",
                            acl_error_text(copied));
    }
    /* The graph holds the word until it and its runs are gone. */
    acl_model *top = m->top ? m->top : m;
    capture *tc = top == m ? c : capture_of(top);
    if (!err &&
        (!tc || backend()->graph->capture_keep(stream_backend(tc->origin), box, word_release)))
        err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                        "tying the condition to model %u failed", (unsigned)top->id);
    if (tc && tc != c)
        capture_unref(tc);
    capture_unref(c);
    if (err) {
        if (box->word) {
            atomic_store(&box->refs, 1);
            word_release(box);
        } else {
            free(box);
        }
        free(cond);
        return err;
    }
    cond->model = m;
    cond->box = box;
    cond->default_value = default_value;
    cond->assign_default = assign;
    if ((err = handle_publish(&cond->obj, HANDLE_COND, cond_free))) {
        cond_free(&cond->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    pthread_mutex_lock(&m->lock);
    err = add_cond_to(m, cond);
    pthread_mutex_unlock(&m->lock);
    if (err) {
        (void)object_take(&cond->obj);
        return acl_raise(api, err, "out of host memory");
    }
    if (assign)
        atomic_store(&top->defaults, true);
    *out = handle_of(&cond->obj);
    return ACL_SUCCESS;
}

static aclError cond_get(const char *api, aclmdlRICondHandle handle, acl_cond **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "handle is NULL");
    *out = (acl_cond *)handle_get(handle, HANDLE_COND);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live condition%s", handle,
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

aclError cond_pointer(const char *api, aclmdlRICondHandle handle, uint64_t **ptr)
{
    if (!ptr)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    acl_cond *c;
    aclError err = cond_get(api, handle, &c);
    if (err)
        return err;
    *ptr = c->box->word;
    object_put(&c->obj);
    return ACL_SUCCESS;
}

/* ---- conditional tasks ------------------------------------------------------------- */

static aclError check_shape(const char *api, const aclmdlRICondTaskParams *p, cond_kind *kind)
{
    switch (p->type) {
    case ACL_MODEL_RI_COND_TYPE_IF:
        *kind = COND_IF;
        if (p->size == 1 || p->size == 2)
            return ACL_SUCCESS;
        break;
    case ACL_MODEL_RI_COND_TYPE_WHILE:
        *kind = COND_WHILE;
        if (p->size == 1)
            return ACL_SUCCESS;
        break;
    case ACL_MODEL_RI_COND_TYPE_SWITCH:
        *kind = COND_SWITCH;
        if (p->size >= 1 && p->size <= MAX_BRANCHES)
            return ACL_SUCCESS;
        break;
    default:
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown conditional task type %d",
                         (int)p->type);
    }
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "size %u: an IF task has 1 or 2 branches, a WHILE task 1, a SWITCH task 1 "
                     "to %d",
                     p->size, (int)MAX_BRANCHES);
}

aclError cond_add_task(const char *api, const aclmdlRICondTaskParams *params, acl_stream *s,
                       uint32_t flags)
{
    if (flags != 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "flags 0x%x: must be 0", flags);
    if (!params->modelRIArray)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "params.modelRIArray is NULL");
    cond_kind kind = COND_IF;
    aclError err = check_shape(api, params, &kind);
    if (err)
        return err;
    acl_cond *cond;
    if ((err = cond_get(api, params->handle, &cond)))
        return err;
    capture *c = capture_of_stream(s);
    acl_model *m = cond->model;
    if (!c || c->update)
        err = acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %d is not being captured",
                        (int)s->id);
    else if (c->model != m)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "the condition was made for model %u; stream %d is captured into model %u",
                        (unsigned)m->id, (int)s->id, c->model ? (unsigned)c->model->id : 0u);
    else if (atomic_load(&c->invalidated))
        err = acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "the capture of stream %d was invalidated", (int)s->id);
    if (err) {
        object_put(&cond->obj);
        return err;
    }
    backend_graph **bodies = calloc(params->size, sizeof *bodies);
    acl_model **branches = calloc(params->size, sizeof *branches);
    if (!bodies || !branches) {
        free(bodies);
        free(branches);
        object_put(&cond->obj);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    err = backend()->graph->add_cond(stream_backend(s), cond->backend, cond->box->word, kind,
                                     params->size, bodies);
    if (err) {
        capture_invalidate(c, "adding a conditional task failed%s", "");
        free(bodies);
        free(branches);
        object_put(&cond->obj);
        return acl_raise(api, err,
                         "adding the conditional task to the capture of stream %d failed "
                         "(the capture is invalidated): %s",
                         (int)s->id, acl_error_text(err));
    }
    /* Each branch is a model of its own, held by m. */
    acl_model *top = m->top ? m->top : m;
    for (uint32_t i = 0; i < params->size; i++) {
        acl_model *b = NULL;
        if (err || (err = model_new(m->phys, m->device, MODEL_BODY, &b))) {
            backend()->graph->destroy(bodies[i]);
            continue;
        }
        b->graph = bodies[i];
        b->parent = m;
        b->top = top;
        bool held = object_hold(&b->obj);
        pthread_mutex_lock(&m->lock);
        err = held ? add_body_to(m, b) : ACL_ERROR_INVALID_PARAM;
        pthread_mutex_unlock(&m->lock);
        if (err) {
            if (held)
                object_release(&b->obj);
            (void)object_take(&b->obj);
        }
        branches[i] = b;
        model_put(b);
    }
    if (err) {
        /* The node is in the graph with branches no model stands for. */
        capture_invalidate(c, "the branches of a conditional task could not be made%s", "");
        free(bodies);
        free(branches);
        object_put(&cond->obj);
        return acl_raise(api, err,
                         "out of host memory for the branches (the capture of stream %d is "
                         "invalidated)",
                         (int)s->id);
    }
    for (uint32_t i = 0; i < params->size; i++)
        params->modelRIArray[i] = handle_of(&branches[i]->obj);
    free(bodies);
    free(branches);
    object_put(&cond->obj);
    return ACL_SUCCESS;
}

/* ---- captures into branches ----------------------------------------------------------- */

aclError capture_begin_into(const char *api, acl_stream *s, acl_model *m, aclmdlRICaptureMode mode)
{
    aclError err = graph_require(api);
    if (err)
        return err;
    if (!capture_mode_valid(mode))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown capture mode %d", (int)mode);
    if (s == s->ctx->default_stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the default stream cannot be captured; create a stream");
    if (capture_of_stream(s))
        return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURED, "stream %d is already being captured",
                         (int)s->id);
    if (s->ctx->phys != m->phys)
        return acl_raise(api, ACL_ERROR_RT_MODEL_CONTEXT,
                         "model %u belongs to another device than stream %d", (unsigned)m->id,
                         (int)s->id);
    pthread_mutex_lock(&m->lock);
    model_state state = m->state;
    bool captured = m->body_captured;
    acl_model *parent = m->parent;
    pthread_mutex_unlock(&m->lock);
    if (!parent)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "model %u is not a branch of a conditional task (aclmdlRIAddCondTask "
                         "makes them)",
                         (unsigned)m->id);
    if (state == MODEL_CAPTURING)
        return acl_raise(api, ACL_ERROR_RT_MODEL_CAPTURED, "model %u is already being captured",
                         (unsigned)m->id);
    if (captured)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "branch model %u was captured already",
                         (unsigned)m->id);
    capture *pc = capture_of(parent);
    if (!pc)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the capture of model %u, which holds branch %u, has ended: branches are "
                         "captured before it ends",
                         (unsigned)parent->id, (unsigned)m->id);
    capture_unref(pc);
    capture *c = NULL;
    if ((err = capture_new(s, m, mode, &c)))
        return acl_raise(api, err, "out of host memory");
    c->into = m->graph;
    err = capture_start(c, s);
    if (err) {
        capture_unref(c);
        return acl_raise(api, err, "starting the capture of stream %d into model %u failed: %s",
                         (int)s->id, (unsigned)m->id, acl_error_text(err));
    }
    capture_addref(c); /* the model's */
    pthread_mutex_lock(&m->lock);
    m->cap = c;
    m->state = MODEL_CAPTURING;
    pthread_mutex_unlock(&m->lock);
    model_add_member(m, s);
    capture_register(c);
    return ACL_SUCCESS;
}

aclError cond_capture_end(const char *api, acl_stream *s, capture *c, aclmdlRI *out)
{
    acl_model *m = c->model;
    if (cond_branch_capturing(m))
        return acl_raise(api, ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING,
                         "a branch of a conditional task of model %u is still being captured",
                         (unsigned)m->id);
    capture_addref(c);
    bool invalidated;
    aclError err;
    if (!capture_close(c, false, NULL, &invalidated, &err)) {
        capture_unref(c);
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                         "the capture of stream %d ended meanwhile", (int)s->id);
    }
    capture_unref(c); /* the registry's */
    char why[sizeof c->why];
    memcpy(why, c->why, sizeof why);
    pthread_mutex_lock(&m->lock);
    if (m->cap == c) {
        m->cap = NULL;
        m->state = MODEL_BODY;
        m->body_captured = !invalidated && !err;
        if (m->body_captured)
            tasks_settle(m, c);
        capture_unref(c); /* the model's */
    }
    pthread_mutex_unlock(&m->lock);
    capture_unref(c);
    if (invalidated || err) {
        /* The branch holds what was recorded: the model around it cannot
         * be kept. */
        cond_branch_abandoned(m);
        if (invalidated)
            return acl_raise(api, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                             "the capture of stream %d into branch model %u was invalidated (%s); "
                             "the capture of the model that holds it is invalidated too",
                             (int)s->id, (unsigned)m->id, why);
        return acl_raise(api, err,
                         "ending the capture of stream %d into branch model %u failed: %s",
                         (int)s->id, (unsigned)m->id, acl_error_text(err));
    }
    if (out)
        *out = handle_of(&m->obj);
    return ACL_SUCCESS;
}

void cond_branch_abandoned(acl_model *m)
{
    acl_model *parent = m->parent;
    if (!parent)
        return;
    capture *pc = capture_of(parent);
    if (!pc)
        return;
    capture_invalidate(pc, "the capture of one of its conditional branches failed%s", "");
    capture_unref(pc);
}

bool cond_branch_capturing(acl_model *m)
{
    bool capturing = false;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nbodies && !capturing; i++) {
        acl_model *b = m->bodies[i];
        pthread_mutex_lock(&b->lock);
        capturing = b->state == MODEL_CAPTURING;
        pthread_mutex_unlock(&b->lock);
    }
    pthread_mutex_unlock(&m->lock);
    return capturing;
}

/* ---- runs and teardown -------------------------------------------------------------- */

typedef struct assignment {
    uint64_t *word;
    uint64_t value;
} assignment;

/* The words of m and of its branches that start from their default. */
static aclError collect_defaults(acl_model *m, assignment **list, size_t *count, size_t *cap)
{
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nconds && !err; i++) {
        acl_cond *c = m->conds[i];
        if (!c->assign_default)
            continue;
        if (*count == *cap) {
            size_t grown_cap = *cap ? 2 * *cap : 8;
            assignment *grown = realloc(*list, grown_cap * sizeof *grown);
            if (!grown) {
                err = ACL_ERROR_RT_MEMORY_ALLOCATION;
                break;
            }
            *list = grown;
            *cap = grown_cap;
        }
        (*list)[(*count)++] = (assignment){c->box->word, c->default_value};
    }
    for (size_t i = 0; i < m->nbodies && !err; i++)
        err = collect_defaults(m->bodies[i], list, count, cap);
    pthread_mutex_unlock(&m->lock);
    return err;
}

aclError cond_assign_defaults(const char *api, acl_model *m, acl_stream *s)
{
    if (!atomic_load_explicit(&m->defaults, memory_order_relaxed))
        return ACL_SUCCESS;
    assignment *list = NULL;
    size_t count = 0, cap = 0;
    aclError err = collect_defaults(m, &list, &count, &cap);
    if (err)
        err = acl_raise(api, err, "out of host memory");
    /* Stream-ordered writes right before the run: each run starts from the
     * defaults, as ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT says. */
    for (size_t i = 0; i < count && !err; i++)
        err = stream_submit(api, s,
                            &(task){.kind = TASK_VALUE_WRITE,
                                    .u.value = {.addr = list[i].word, .value = list[i].value}});
    free(list);
    return err;
}

void cond_model_destroyed(acl_model *m)
{
    pthread_mutex_lock(&m->lock);
    acl_cond **conds = m->conds;
    size_t nconds = m->nconds;
    acl_model **bodies = m->bodies;
    size_t nbodies = m->nbodies;
    m->conds = NULL;
    m->bodies = NULL;
    m->nconds = m->cond_cap = m->nbodies = m->body_cap = 0;
    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; i < nconds; i++)
        (void)object_take(&conds[i]->obj);
    free(conds);
    for (size_t i = 0; i < nbodies; i++) {
        acl_model *b = bodies[i];
        tasks_model_destroyed(b);
        cond_model_destroyed(b);
        (void)object_take(&b->obj);
        object_release(&b->obj); /* m's */
    }
    free(bodies);
}

void cond_model_free(acl_model *m)
{
    free(m->conds);
    free(m->bodies);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&words_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&words_lock);
}

__attribute__((constructor)) static void graph_cond_init(void)
{
    fork_register(FORK_RANK_MEMORY + 1, fork_prepare, fork_done, fork_done);
}
