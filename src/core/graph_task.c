/* The tasks of a model (graph.h): recorded as a capture or a build goes,
 * then listed by stream, read, changed and disabled (changes reach the
 * graph with aclmdlRIUpdate), and updated from device memory by
 * aclrtTaskUpdateAsync.
 *
 * Each task keeps its parameters as queued (a kernel's arguments are a
 * host copy) and the backend's node it became, when it became one: event
 * records and waits between captured streams are edges of the graph, not
 * nodes.
 *
 * Locks: a capture's lock or a model's lock for their tasks; list_lock,
 * for the models aclmdlRIGetTasksByStream looks through, is taken with
 * neither held. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_cuda.h"
#include "core/builtin.h"
#include "core/context.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/event.h"
#include "core/graph_internal.h"
#include "core/kernel.h"
#include "core/memory.h"
#include "core/value.h"
#include "util/fork.h"
#include "util/probe.h"

enum {
    OP_INFO_MAX = 64 * 1024,    /* ACL: (0, 64K] bytes */
    EXTEND_INFO_MAX = 4 * 1024, /* ACL: longer text is cut */
};

struct acl_model_task {
    object obj;
    acl_model *model; /* a counted reference */
    size_t index;
};

/* The calling thread's last task queued on a capturing stream. */
static _Thread_local struct {
    uint64_t capture_id;
    size_t index;
} last;

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static acl_model *listed; /* through next_listed */

static void kernel_free(task_kernel *k)
{
    free(k->args);
    free(k->attrs);
    k->args = NULL;
    k->attrs = NULL;
}

void tasks_free(model_task *tasks, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (tasks[i].type == ACL_MODEL_RI_TASK_KERNEL)
            kernel_free(&tasks[i].p.kernel);
        free(tasks[i].op_info);
        free(tasks[i].extend);
    }
    free(tasks);
}

/* A copy of cfg's attributes into k. False when out of memory. */
static bool kernel_copy_attrs(task_kernel *k, const aclrtLaunchKernelCfg *cfg)
{
    k->attrs = NULL;
    k->nattrs = 0;
    if (!cfg || !cfg->numAttrs || !cfg->attrs)
        return true;
    k->attrs = malloc(cfg->numAttrs * sizeof *k->attrs);
    if (!k->attrs)
        return false;
    memcpy(k->attrs, cfg->attrs, cfg->numAttrs * sizeof *k->attrs);
    k->nattrs = cfg->numAttrs;
    return true;
}

/* The parameters of t, as far as the task itself tells them. */
static void task_describe(model_task *mt, const task *t)
{
    mt->kind = t->kind;
    mt->type = ACL_MODEL_RI_TASK_DEFAULT;
    switch (t->kind) {
    case TASK_LAUNCH: {
        const launch_params *p = t->u.launch.params;
        if (!t->u.launch.fn)
            break; /* not a launch of ACL's */
        task_kernel *k = &mt->p.kernel;
        memset(k, 0, sizeof *k);
        k->fn = t->u.launch.fn;
        memcpy(k->grid, p->grid, sizeof k->grid);
        memcpy(k->block, p->block, sizeof k->block);
        k->shared = p->shared_bytes;
        k->cooperative = p->cooperative;
        k->placeholders = t->u.launch.placeholders;
        k->args_size = p->args_size;
        if ((p->args_size && !(k->args = malloc(p->args_size))) ||
            !kernel_copy_attrs(k, t->u.launch.cfg)) {
            kernel_free(k);
            break; /* out of memory: listed as a task of no kind */
        }
        if (p->args_size)
            memcpy(k->args, p->args, p->args_size);
        mt->type = ACL_MODEL_RI_TASK_KERNEL;
        break;
    }
    case TASK_RECORD:
    case TASK_WAIT:
    case TASK_RECORD_EXTERNAL:
    case TASK_WAIT_EXTERNAL:
        if (!t->u.event.acl)
            break; /* the library's own (a build joining its streams) */
        mt->type = t->kind == TASK_RECORD || t->kind == TASK_RECORD_EXTERNAL
                       ? ACL_MODEL_RI_TASK_EVENT_RECORD
                       : ACL_MODEL_RI_TASK_EVENT_WAIT;
        mt->p.event.event = handle_of(&t->u.event.acl->obj);
        mt->p.event.event_flag = t->u.event.acl->flags;
        break;
    case TASK_VALUE_WRITE:
    case TASK_VALUE_WAIT:
        mt->type = t->kind == TASK_VALUE_WRITE ? ACL_MODEL_RI_TASK_VALUE_WRITE
                                               : ACL_MODEL_RI_TASK_VALUE_WAIT;
        mt->p.value.addr = t->u.value.addr;
        mt->p.value.value = t->u.value.value;
        mt->p.value.flag = t->u.value.cmp;
        break;
    case TASK_RANDOM:
        if (t->u.random.info)
            mt->p.random.info = *t->u.random.info;
        break;
    default:
        break;
    }
}

void tasks_keep_binary(capture *c, const task *t)
{
    if (t->kind != TASK_LAUNCH || !t->u.launch.fn)
        return;
    acl_model *m = c->model ? c->model : c->update ? c->update->model : NULL;
    if (m)
        module_keep_for_model(handle_of(&m->obj), t->u.launch.fn);
}

/* The place of s's next task among c's tasks of s (from 1). */
static uint32_t stream_position(const capture *c, aclrtStream s)
{
    uint32_t n = 1;
    for (size_t i = c->ntasks; i-- > 0;)
        if (c->tasks[i].stream == s)
            return c->tasks[i].stream_id + 1;
    return n;
}

/* Appends mt to c's tasks; its place among its stream's, 0 when it could
 * not be kept. */
static uint32_t tasks_append(capture *c, model_task mt)
{
    pthread_mutex_lock(&c->lock);
    bool kept = false;
    if (c->ntasks == c->task_cap) {
        size_t cap = c->task_cap ? 2 * c->task_cap : 32;
        model_task *grown = realloc(c->tasks, cap * sizeof *grown);
        if (grown) {
            c->tasks = grown;
            c->task_cap = cap;
        }
    }
    if (c->ntasks < c->task_cap) {
        mt.seq = (uint32_t)c->ntasks;
        mt.stream_id = stream_position(c, mt.stream);
        c->tasks[c->ntasks] = mt;
        last.capture_id = c->sink.id;
        last.index = c->ntasks++;
        kept = true;
    }
    pthread_mutex_unlock(&c->lock);
    if (kept)
        stream_note_thread_task(mt.stream_id);
    else if (mt.type == ACL_MODEL_RI_TASK_KERNEL)
        kernel_free(&mt.p.kernel); /* out of memory: the task goes unlisted */
    return kept ? mt.stream_id : 0;
}

uint32_t tasks_record(capture *c, acl_stream *s, const task *t)
{
    model_task mt;
    memset(&mt, 0, sizeof mt);
    mt.stream = handle_of(&s->obj);
    task_describe(&mt, t);
    /* Records and waits between captured streams become edges, no node;
     * in a build with stream control flow, work goes into pieces. */
    mt.in_piece = c->flow != NULL;
    if (t->kind != TASK_RECORD && t->kind != TASK_WAIT && !mt.in_piece)
        mt.has_node =
            backend()->graph->capture_last_node(stream_backend(s), &mt.node) == ACL_SUCCESS;
    return tasks_append(c, mt);
}

uint32_t tasks_record_control(capture *c, acl_stream *s, const char *what)
{
    model_task mt;
    memset(&mt, 0, sizeof mt);
    mt.stream = handle_of(&s->obj);
    mt.type = ACL_MODEL_RI_TASK_DEFAULT;
    mt.control = what;
    mt.in_piece = true;
    return tasks_append(c, mt);
}

/* What t is, for messages. */
static const char *task_what(const model_task *t)
{
    return t->control ? t->control : stream_task_name(t->kind);
}

/* Refuses a change of t that its graph cannot take: t went into a piece
 * of a model with stream control flow. Raises. */
static aclError check_node_of_its_own(const char *api, const model_task *t, uint32_t model_id)
{
    if (!t->in_piece)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "task %u of model %u (%s) was recorded after the model took stream control "
                     "flow (aclrtActiveStream, aclrtSwitchStream, labels): it runs inside a part "
                     "of the model's graph that no node of its own stands for, so it cannot "
                     "change",
                     (unsigned)t->seq, (unsigned)model_id, task_what(t));
}

void tasks_group(capture *c, acl_stream *s, aclrtTaskGrp group)
{
    aclrtStream h = handle_of(&s->obj);
    pthread_mutex_lock(&c->lock);
    for (size_t i = c->group_first; i < c->ntasks; i++)
        if (c->tasks[i].stream == h)
            c->tasks[i].group = group;
    pthread_mutex_unlock(&c->lock);
}

void tasks_settle(acl_model *m, capture *c)
{
    pthread_mutex_lock(&c->lock);
    tasks_free(m->tasks, m->ntasks);
    m->tasks = c->tasks;
    m->ntasks = c->ntasks;
    c->tasks = NULL;
    c->ntasks = c->task_cap = 0;
    pthread_mutex_unlock(&c->lock);
}

void tasks_list(acl_model *m)
{
    if (m->parent)
        return; /* a branch's tasks are not listed (ACL: not for sub-models) */
    pthread_mutex_lock(&list_lock);
    m->next_listed = listed;
    listed = m;
    pthread_mutex_unlock(&list_lock);
}

static void task_handle_free(object *o)
{
    acl_model_task *t = (acl_model_task *)o;
    object_release(&t->model->obj);
    free(t);
}

void tasks_model_destroyed(acl_model *m)
{
    module_release_for_model(handle_of(&m->obj));
    pthread_mutex_lock(&list_lock);
    for (acl_model **p = &listed; *p; p = &(*p)->next_listed)
        if (*p == m) {
            *p = m->next_listed;
            break;
        }
    pthread_mutex_unlock(&list_lock);
    pthread_mutex_lock(&m->lock);
    size_t n = m->ntasks;
    acl_model_task **handles = n ? calloc(n, sizeof *handles) : NULL;
    for (size_t i = 0; i < n; i++) {
        if (handles)
            handles[i] = m->tasks[i].handle;
        m->tasks[i].handle = NULL;
    }
    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; handles && i < n; i++)
        if (handles[i])
            (void)object_take(&handles[i]->obj);
    free(handles);
}

/* ---- listing and looking up ------------------------------------------------------- */

/* The newest listed model s took part in, held (object_release), or NULL. */
static acl_model *model_of_stream(acl_stream *s)
{
    aclrtStream h = handle_of(&s->obj);
    acl_model *found = NULL;
    pthread_mutex_lock(&list_lock);
    size_t n = 0;
    for (acl_model *m = listed; m; m = m->next_listed)
        n++;
    acl_model **held = n ? calloc(n, sizeof *held) : NULL;
    size_t nheld = 0;
    for (acl_model *m = listed; m && held; m = m->next_listed)
        if (object_hold(&m->obj))
            held[nheld++] = m;
    pthread_mutex_unlock(&list_lock);
    for (size_t i = 0; i < nheld; i++) {
        acl_model *m = held[i];
        bool member = false;
        pthread_mutex_lock(&m->lock);
        for (size_t j = 0; j < m->nmembers && !member; j++)
            member = m->members[j] == h;
        pthread_mutex_unlock(&m->lock);
        if (member && (!found || m->id > found->id)) {
            if (found)
                object_release(&found->obj);
            found = m;
        } else {
            object_release(&m->obj);
        }
    }
    free(held);
    return found;
}

aclError model_tasks_by_stream(const char *api, acl_stream *s, aclmdlRITask *tasks, uint32_t *count)
{
    if (!count)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "numTasks is NULL");
    acl_model *m = model_of_stream(s);
    if (!m)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "stream %d took part in no live captured or built model", (int)s->id);
    aclrtStream h = handle_of(&s->obj);
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&m->lock);
    uint32_t n = 0;
    for (size_t i = 0; i < m->ntasks; i++)
        n += m->tasks[i].stream == h;
    if (tasks && *count < n)
        err = acl_raise(api, ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY,
                        "stream %d has %u tasks in model %u; the array holds %u", (int)s->id,
                        (unsigned)n, (unsigned)m->id, (unsigned)*count);
    for (size_t i = 0, k = 0; tasks && !err && i < m->ntasks; i++) {
        model_task *t = &m->tasks[i];
        if (t->stream != h)
            continue;
        if (!t->handle) {
            acl_model_task *o = calloc(1, sizeof *o);
            if (!o || !object_hold(&m->obj)) {
                free(o);
                err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
                break;
            }
            o->model = m;
            o->index = i;
            if (handle_publish(&o->obj, HANDLE_MODEL_TASK, task_handle_free)) {
                task_handle_free(&o->obj);
                err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                                "out of host memory for the handle table");
                break;
            }
            t->handle = o;
        }
        tasks[k++] = handle_of(&t->handle->obj);
    }
    if (!err)
        *count = n;
    pthread_mutex_unlock(&m->lock);
    object_release(&m->obj);
    return err;
}

/* The task behind a handle, borrowed: its model locked (task_put). */
static aclError task_get(const char *api, aclmdlRITask handle, acl_model_task **out, model_task **t)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "task is NULL");
    acl_model_task *o = (acl_model_task *)handle_get(handle, HANDLE_MODEL_TASK);
    if (!o)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live task of a model%s", handle,
                         handle_kind_of(handle) ? " (it is another kind of handle)" : "");
    pthread_mutex_lock(&o->model->lock);
    *out = o;
    *t = &o->model->tasks[o->index];
    return ACL_SUCCESS;
}

static void task_put(acl_model_task *o)
{
    pthread_mutex_unlock(&o->model->lock);
    object_put(&o->obj);
}

aclError model_task_type(const char *api, aclmdlRITask handle, aclmdlRITaskType *type)
{
    if (!type)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "type is NULL");
    acl_model_task *o;
    model_task *t;
    aclError err = task_get(api, handle, &o, &t);
    if (err)
        return err;
    *type = t->type;
    task_put(o);
    return ACL_SUCCESS;
}

aclError model_task_seq(const char *api, aclmdlRITask handle, uint32_t *id)
{
    if (!id)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "id is NULL");
    acl_model_task *o;
    model_task *t;
    aclError err = task_get(api, handle, &o, &t);
    if (err)
        return err;
    *id = t->seq;
    task_put(o);
    return ACL_SUCCESS;
}

aclError model_task_get_params(const char *api, aclmdlRITask handle, aclmdlRITaskParams *params)
{
    if (!params)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "params is NULL");
    acl_model_task *o;
    model_task *t;
    aclError err = task_get(api, handle, &o, &t);
    if (err)
        return err;
    memset(params, 0, sizeof *params);
    params->type = t->type;
    params->taskGrp = t->group;
    params->opInfoPtr = t->op_info;
    params->opInfoSize = t->op_info_size;
    switch (t->type) {
    case ACL_MODEL_RI_TASK_KERNEL:
        /* The arguments are the launch's, copied to host memory when it
         * was captured (isHostArgs 1; CANN answers 0: its copy is device
         * memory). */
        params->kernelTaskParams.funcHandle = t->p.kernel.fn;
        params->kernelTaskParams.cfg = NULL;
        params->kernelTaskParams.args = t->p.kernel.args;
        params->kernelTaskParams.isHostArgs = 1;
        params->kernelTaskParams.argsSize = t->p.kernel.args_size;
        params->kernelTaskParams.numBlocks = t->p.kernel.grid[0];
        break;
    case ACL_MODEL_RI_TASK_EVENT_RECORD:
        params->eventRecordTaskParams.event = t->p.event.event;
        params->eventRecordTaskParams.eventFlag = t->p.event.event_flag;
        params->eventRecordTaskParams.recordFlag = ACL_EVENT_RECORD_DEFAULT;
        break;
    case ACL_MODEL_RI_TASK_EVENT_WAIT:
        params->eventWaitTaskParams.event = t->p.event.event;
        params->eventWaitTaskParams.eventFlag = t->p.event.event_flag;
        params->eventWaitTaskParams.waitFlag = ACL_EVENT_WAIT_DEFAULT;
        break;
    case ACL_MODEL_RI_TASK_VALUE_WRITE:
        params->valueWriteTaskParams.devAddr = t->p.value.addr;
        params->valueWriteTaskParams.value = t->p.value.value;
        break;
    case ACL_MODEL_RI_TASK_VALUE_WAIT:
        params->valueWaitTaskParams.devAddr = t->p.value.addr;
        params->valueWaitTaskParams.value = t->p.value.value;
        params->valueWaitTaskParams.flag = t->p.value.flag;
        break;
    default:
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "task %u of model %u is of type ACL_MODEL_RI_TASK_DEFAULT (%s), whose "
                        "parameters ACL does not give",
                        (unsigned)t->seq, (unsigned)o->model->id, task_what(t));
        break;
    }
    task_put(o);
    return err;
}

/* ---- changes ---------------------------------------------------------------------------- */

/* A model whose tasks may change: captured or built, and ready. */
static aclError check_changeable(const char *api, const acl_model *m)
{
    if (m->state == MODEL_READY)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                     "model %u is not ready (its capture or build has not ended)", (unsigned)m->id);
}

/* A kernel's new launch from ACL's task parameters, into k. Raises. */
static aclError kernel_from_params(const char *api, const acl_model *m, const task_kernel *old,
                                   const aclmdlRIKernelTaskParams *kp, task_kernel *k)
{
    memset(k, 0, sizeof *k);
    if (kp->isHostArgs > 1)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "isHostArgs %u is neither 0 nor 1",
                         kp->isHostArgs);
    if (!kp->args || kp->argsSize == 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "kernelTaskParams: args %p with argsSize %zu (both are needed)", kp->args,
                         kp->argsSize);
    if (kp->argsSize > KERNEL_PARAMS_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "argsSize %zu: CUDA takes at most %d bytes of kernel parameters",
                         kp->argsSize, (int)KERNEL_PARAMS_MAX);
    if (kp->numBlocks == 0 || kp->numBlocks > KERNEL_GRID_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "numBlocks %u: a CUDA grid holds 1 to 2^31-1 blocks", kp->numBlocks);
    acl_function *f;
    aclError err = function_get(api, kp->funcHandle, &f);
    if (err)
        return err;
    if (f->phys != m->phys) {
        function_put(f);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "kernel \"%s\" was loaded on another device than model %u's", f->name,
                         (unsigned)m->id);
    }
    bool cooperative;
    err = kernel_launch_shape(api, f, kp->cfg, k->block, &k->shared, &cooperative);
    size_t size = kp->argsSize;
    if (!err && f->params_known) {
        if (size < f->param_bytes)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "kernel \"%s\" takes %zu bytes of parameters; argsSize is %zu", f->name,
                            f->param_bytes, size);
        size = f->param_bytes;
    }
    if (!err && cooperative != old->cooperative)
        err = acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "the task was captured with %s scheduling, which a CUDA graph fixes "
                        "(ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE cannot change)",
                        old->cooperative ? "batch" : "normal");
    function_put(f);
    if (err)
        return err;
    k->fn = kp->funcHandle;
    k->cooperative = cooperative;
    k->grid[0] = kp->numBlocks;
    k->grid[1] = k->grid[2] = 1;
    k->args_size = size;
    if (!(k->args = malloc(size)) || !kernel_copy_attrs(k, kp->cfg)) {
        kernel_free(k);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    /* Device memory (isHostArgs 0, ACL's rule) is read now; host memory
     * is taken for it as well, as in aclrtLaunchKernel. */
    mem_block b;
    memory_locate(kp->args, &b);
    if (kp->isHostArgs == 0 && b.kind == MEM_DEVICE) {
        if (!(err = memory_check_extent(api, "args", kp->args, size, &b)))
            err = backend()->memory->memcpy_sync(b.phys, k->args, kp->args, size,
                                                 COPY_DEVICE_TO_HOST, false);
        if (err) {
            kernel_free(k);
            return err == ACL_ERROR_INVALID_PARAM
                       ? err
                       : acl_raise(api, err, "reading %zu bytes of arguments at %p failed: %s",
                                   size, kp->args, acl_error_text(err));
        }
    } else if ((b.kind == MEM_UNKNOWN && backend()->memory->device_address &&
                backend()->memory->device_address(kp->args)) ||
               !probe_copy(k->args, kp->args, size)) {
        /* Read so that a bad pointer is an error, not a fault. */
        kernel_free(k);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "args %p: %zu bytes there are not readable host memory (unmapped, "
                         "freed, or device memory)",
                         kp->args, size);
    }
    return ACL_SUCCESS;
}

static aclError check_wait_flag(const char *api, uint32_t flag)
{
    if (flag == ACL_STREAM_WAIT_VALUE_GEQ || flag == ACL_STREAM_WAIT_VALUE_EQ ||
        flag == ACL_STREAM_WAIT_VALUE_AND || flag == ACL_STREAM_WAIT_VALUE_NOR)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown wait flag 0x%x", flag);
}

static aclError set_op_info(const char *api, model_task *t, const void *info, size_t size)
{
    void *copy = NULL;
    if (info && size) {
        if (size > OP_INFO_MAX)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "opInfoSize %zu: at most %d bytes of operator information", size,
                             (int)OP_INFO_MAX);
        if (!(copy = malloc(size)))
            return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        memcpy(copy, info, size);
    }
    free(t->op_info);
    t->op_info = copy;
    t->op_info_size = copy ? size : 0;
    return ACL_SUCCESS;
}

aclError model_task_set_params(const char *api, aclmdlRITask handle,
                               const aclmdlRITaskParams *params)
{
    if (!params)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "params is NULL");
    acl_model_task *o;
    model_task *t;
    aclError err = task_get(api, handle, &o, &t);
    if (err)
        return err;
    acl_model *m = o->model;
    if ((err = check_changeable(api, m)) || (err = check_node_of_its_own(api, t, m->id)))
        goto out;
    if (params->type != t->type) {
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "params->type %d: task %u of model %u is of type %d (aclmdlRITaskGetType)",
                        (int)params->type, (unsigned)t->seq, (unsigned)m->id, (int)t->type);
        goto out;
    }
    if (params->taskGrp) {
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "params->taskGrp must be NULL (a task's group cannot change)");
        goto out;
    }
    switch (t->type) {
    case ACL_MODEL_RI_TASK_KERNEL: {
        task_kernel k;
        if ((err = kernel_from_params(api, m, &t->p.kernel, &params->kernelTaskParams, &k)))
            goto out;
        if ((err = set_op_info(api, t, params->opInfoPtr, params->opInfoSize))) {
            kernel_free(&k);
            goto out;
        }
        kernel_free(&t->p.kernel);
        t->p.kernel = k;
        break;
    }
    case ACL_MODEL_RI_TASK_VALUE_WRITE:
    case ACL_MODEL_RI_TASK_VALUE_WAIT: {
        bool wait = t->type == ACL_MODEL_RI_TASK_VALUE_WAIT;
        void *addr =
            wait ? params->valueWaitTaskParams.devAddr : params->valueWriteTaskParams.devAddr;
        if ((err = value_word_check(api, addr, !wait)))
            goto out;
        if (wait && (err = check_wait_flag(api, params->valueWaitTaskParams.flag)))
            goto out;
        if ((err = set_op_info(api, t, params->opInfoPtr, params->opInfoSize)))
            goto out;
        t->p.value.addr = addr;
        t->p.value.value =
            wait ? params->valueWaitTaskParams.value : params->valueWriteTaskParams.value;
        if (wait)
            t->p.value.flag = params->valueWaitTaskParams.flag;
        break;
    }
    default:
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "task %u of model %u is of type %d: only kernel (1), value write (5) and "
                        "value wait (6) tasks take new parameters",
                        (unsigned)t->seq, (unsigned)m->id, (int)t->type);
        goto out;
    }
    t->staged = true;
    m->updating = true;
out:
    task_put(o);
    return err;
}

aclError model_task_kernel_attr(const char *api, aclmdlRITask handle, aclrtLaunchKernelAttrId id,
                                aclrtLaunchKernelAttrValue *value)
{
    if (!value)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "attrValue is NULL");
    acl_model_task *o;
    model_task *t;
    aclError err = task_get(api, handle, &o, &t);
    if (err)
        return err;
    if (t->type != ACL_MODEL_RI_TASK_KERNEL) {
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "task %u is of type %d, not a kernel (aclmdlRITaskGetType)",
                        (unsigned)t->seq, (int)t->type);
        task_put(o);
        return err;
    }
    const task_kernel *k = &t->p.kernel;
    /* What the launch gave, where it gave it. */
    const aclrtLaunchKernelAttr *given = NULL;
    for (size_t i = 0; i < k->nattrs; i++)
        if (k->attrs[i].id == id)
            given = &k->attrs[i];
    memset(value, 0, sizeof *value);
    switch ((int)id) {
    case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
        value->schemMode = k->cooperative ? 1 : 0;
        break;
    case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
        value->dynUBufSize = k->shared;
        break;
    case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
    case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING:
    case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
    case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
        /* Accepted at the launch without a CUDA counterpart (a CUDA
         * kernel has no time limit: 0, never); given back as given. */
        if (given)
            *value = given->value;
        break;
    case (int)ACLCUDA_LAUNCH_KERNEL_ATTR_BLOCK_DIM:
        for (int d = 0; d < 3; d++)
            value->rsv[d] = k->block[d];
        break;
    case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE:
    case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET:
    case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH:
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "attribute %d cannot be queried (ACL: engine type, block offset and "
                        "task prefetch are not)",
                        (int)id);
        break;
    default:
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown attribute id %d", (int)id);
        break;
    }
    task_put(o);
    return err;
}

aclError model_task_disable(const char *api, aclmdlRITask handle)
{
    acl_model_task *o;
    model_task *t;
    aclError err = task_get(api, handle, &o, &t);
    if (err)
        return err;
    acl_model *m = o->model;
    if ((err = check_changeable(api, m)) || (err = check_node_of_its_own(api, t, m->id)))
        ;
    else if (t->type == ACL_MODEL_RI_TASK_DEFAULT)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "task %u of model %u is of type ACL_MODEL_RI_TASK_DEFAULT, which cannot "
                        "be disabled",
                        (unsigned)t->seq, (unsigned)m->id);
    else if (!t->has_node)
        err = acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "task %u of model %u (%s) is an edge of the %s backend's graph between "
                        "two captured streams, not a node: only nodes can be disabled",
                        (unsigned)t->seq, (unsigned)m->id, task_what(t), backend()->name);
    else if (!backend()->graph->enable_node)
        err = acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "the %s backend cannot disable a task of a model", backend()->name);
    if (!err) {
        t->disable_pending = true;
        /* As CANN does: the task's operator and extended information go. */
        free(t->op_info);
        free(t->extend);
        t->op_info = NULL;
        t->extend = NULL;
        t->op_info_size = t->extend_size = 0;
        m->updating = true;
    }
    task_put(o);
    return err;
}

/* The backend's node of t takes t's parameters. With m->lock held. */
static aclError apply_params(const char *api, acl_model *m, model_task *t)
{
    node_work w = {.kind = NODE_WORK_KERNEL};
    launch_params lp;
    acl_function *f = NULL;
    switch (t->type) {
    case ACL_MODEL_RI_TASK_KERNEL: {
        aclError err = function_get(api, t->p.kernel.fn, &f);
        if (err)
            return err;
        const task_kernel *k = &t->p.kernel;
        if (k->placeholders) {
            function_put(f);
            return acl_raise(api, ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                             "task %u of model %u was launched with placeholders, whose device "
                             "copies its recorded arguments do not hold: give it new parameters "
                             "with aclmdlRITaskSetParams",
                             (unsigned)t->seq, (unsigned)m->id);
        }
        lp = (launch_params){
            .fn = f->bf,
            .grid = {k->grid[0], k->grid[1], k->grid[2]},
            .block = {k->block[0], k->block[1], k->block[2]},
            .shared_bytes = k->shared,
            .cooperative = k->cooperative,
            .args = k->args,
            .args_size = k->args_size,
        };
        w.u.launch = &lp;
        break;
    }
    case ACL_MODEL_RI_TASK_VALUE_WRITE:
    case ACL_MODEL_RI_TASK_VALUE_WAIT:
        w.kind =
            t->type == ACL_MODEL_RI_TASK_VALUE_WRITE ? NODE_WORK_VALUE_WRITE : NODE_WORK_VALUE_WAIT;
        w.u.value.addr = t->p.value.addr;
        w.u.value.value = t->p.value.value;
        w.u.value.cmp = t->p.value.flag;
        break;
    default:
        return acl_raise(api, ACL_ERROR_RT_MODEL_UPDATE_FAILED, "task %u cannot change",
                         (unsigned)t->seq);
    }
    aclError err = !t->has_node ? ACL_ERROR_RT_MODEL_UPDATE_FAILED
                   : backend()->graph->set_node
                       ? backend()->graph->set_node(m->graph, t->node, m->phys, &w)
                       : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    if (f && !err)
        module_keep_for_model(handle_of(&m->obj), t->p.kernel.fn);
    if (f)
        function_put(f);
    if (err)
        return acl_raise(api, err, "task %u (%s) of model %u could not take its new parameters: %s",
                         (unsigned)t->seq, task_what(t), (unsigned)m->id, acl_error_text(err));
    return ACL_SUCCESS;
}

aclError tasks_set_node_ordered(const char *api, acl_stream *s, acl_model *m, uint64_t node,
                                const model_task *t)
{
    if (t->type != ACL_MODEL_RI_TASK_KERNEL || t->p.kernel.placeholders)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    acl_function *f;
    aclError err = function_get(api, t->p.kernel.fn, &f);
    if (err)
        return err;
    const task_kernel *k = &t->p.kernel;
    launch_params lp = {
        .fn = f->bf,
        .grid = {k->grid[0], k->grid[1], k->grid[2]},
        .block = {k->block[0], k->block[1], k->block[2]},
        .shared_bytes = k->shared,
        .cooperative = k->cooperative,
        .args = k->args,
        .args_size = k->args_size,
    };
    node_work w = {.kind = NODE_WORK_KERNEL, .u.launch = &lp};
    err = stream_submit(
        NULL, s,
        &(task){.kind = TASK_GRAPH_SET_NODE,
                .u.graph_set = {.graph = m->graph, .node = node, .dev = m->phys, .work = &w}});
    function_put(f);
    if (err && err != ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        err = stream_submit_failed(api, s, &(task){.kind = TASK_GRAPH_SET_NODE}, err);
    return err;
}

aclError model_update(const char *api, acl_model *m)
{
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&m->lock);
    if (!m->updating) {
        /* Nothing changed (CANN: a ready model updates at once). */
        if (m->state != MODEL_READY)
            err = check_changeable(api, m);
        pthread_mutex_unlock(&m->lock);
        return err;
    }
    for (size_t i = 0; i < m->ntasks && !err; i++) {
        model_task *t = &m->tasks[i];
        if (t->staged && !t->disabled && !(err = apply_params(api, m, t)))
            t->staged = false;
        if (!err && t->disable_pending) {
            err = backend()->graph->enable_node(m->graph, t->node, false);
            if (err)
                err =
                    acl_raise(api, err, "disabling task %u (%s) of model %u failed: %s",
                              (unsigned)t->seq, task_what(t), (unsigned)m->id, acl_error_text(err));
            else
                t->disable_pending = false, t->disabled = true;
        }
    }
    if (!err)
        m->updating = false;
    pthread_mutex_unlock(&m->lock);
    return err;
}

/* ---- cached information -------------------------------------------------------------- */

/* The calling thread's last task on a capturing stream, in its capture
 * (locked; capture_unref and unlock when done). Raises. */
static aclError last_task(const char *api, capture **c, model_task **t)
{
    capture *found = last.capture_id ? capture_find(last.capture_id) : NULL;
    if (!found)
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                         "the calling thread has queued no task on a stream being captured "
                         "(aclmdlRICaptureBegin) or bound to a model being built");
    pthread_mutex_lock(&found->lock);
    if (last.index >= found->ntasks) {
        pthread_mutex_unlock(&found->lock);
        capture_unref(found);
        return acl_raise(api, ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                         "the calling thread's last task is no longer held by its capture");
    }
    *c = found;
    *t = &found->tasks[last.index];
    return ACL_SUCCESS;
}

aclError capture_cache_op_info(const char *api, const void *info, size_t size)
{
    if (!info)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "infoPtr is NULL");
    if (size == 0 || size > OP_INFO_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "infoSize %zu: 1 to %d bytes", size,
                         (int)OP_INFO_MAX);
    capture *c;
    model_task *t;
    aclError err = last_task(api, &c, &t);
    if (err)
        return err;
    /* The stream's switch (aclrtSetStreamAttribute) says whether to keep
     * it; CANN answers an internal error when it is off. */
    acl_stream *s = (acl_stream *)handle_get(t->stream, HANDLE_STREAM);
    bool on = s && s->cache_op_info;
    if (s)
        stream_put(s);
    if (!on)
        err = acl_raise(api, ACL_ERROR_RT_INTERNAL_ERROR,
                        "the operator information cache of stream %p is off: turn it on with "
                        "aclrtSetStreamAttribute(ACL_STREAM_ATTR_CACHE_OP_INFO) first",
                        t->stream);
    else
        err = set_op_info(api, t, info, size);
    pthread_mutex_unlock(&c->lock);
    capture_unref(c);
    return err;
}

aclError capture_cache_extend_info(const char *api, const char *info, size_t size)
{
    if (!info)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "extendInfoPtr is NULL");
    if (size == 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "infoSize is 0");
    if (size > EXTEND_INFO_MAX)
        size = EXTEND_INFO_MAX; /* ACL keeps the first 4 KiB */
    char *copy = malloc(size + 1);
    if (!copy)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    memcpy(copy, info, size);
    copy[size] = '\0';
    capture *c;
    model_task *t;
    aclError err = last_task(api, &c, &t);
    if (err) {
        free(copy);
        return err;
    }
    free(t->extend);
    t->extend = copy;
    t->extend_size = strlen(copy);
    pthread_mutex_unlock(&c->lock);
    capture_unref(c);
    return ACL_SUCCESS;
}

/* ---- aclrtTaskUpdateAsync --------------------------------------------------------------- */

static aclError read_device(const char *api, const char *role, const void *src, void *dst,
                            size_t size)
{
    mem_block b;
    memory_locate(src, &b);
    if (!src || b.kind != MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is not device memory", role, src);
    aclError err = memory_check_extent(api, role, src, size, &b);
    if (err)
        return err;
    if ((err = backend()->memory->memcpy_sync(b.phys, dst, src, size, COPY_DEVICE_TO_HOST, false)))
        return acl_raise(api, err, "reading %s at %p failed: %s", role, src, acl_error_text(err));
    return ACL_SUCCESS;
}

aclError model_task_update_async(const char *api, acl_stream *task_stream, uint32_t task_id,
                                 const aclrtTaskUpdateInfo *info, acl_stream *exec)
{
    if (!info)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "info is NULL");
    if (info->id != ACL_RT_UPDATE_RANDOM_TASK && info->id != ACL_RT_UPDATE_AIC_AIV_TASK)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown update kind %d", (int)info->id);
    if (stream_sink(exec))
        return acl_raise(api, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                         "execStream %d is being captured: the update reads device memory when "
                         "it is queued, which a model cannot replay",
                         (int)exec->id);
    acl_model *m = model_of_stream(task_stream);
    bool bound = false;
    if (m) {
        pthread_mutex_lock(&m->lock);
        for (size_t i = 0; i < m->nbound; i++)
            bound |= m->bound[i] == task_stream;
        pthread_mutex_unlock(&m->lock);
    }
    if (!bound) {
        if (m)
            object_release(&m->obj);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "taskStream %d is bound to no built model (aclmdlRIBindStream)",
                         (int)task_stream->id);
    }
    /* The update runs after execStream's work so far: it reads what that
     * work wrote. CUDA takes new node parameters from the host only, and
     * launches queued later see them. The wait holds what it uses. */
    if (!stream_hold(task_stream)) {
        object_release(&m->obj);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "taskStream %d is being destroyed",
                         (int)task_stream->id);
    }
    aclError err = stream_synchronize(exec, -1);
    if (err) {
        stream_release(task_stream);
        object_release(&m->obj);
        return acl_raise(api, err, "waiting for execStream %d failed: %s", (int)exec->id,
                         acl_error_text(err));
    }
    aclrtStream h = handle_of(&task_stream->obj);
    pthread_mutex_lock(&m->lock);
    model_task *t = NULL;
    for (size_t i = 0; i < m->ntasks && !t; i++)
        if (m->tasks[i].stream == h && m->tasks[i].stream_id == task_id)
            t = &m->tasks[i];
    if (!t) {
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "stream %d has no task %u in model %u (aclrtGetThreadLastTaskId)",
                        (int)task_stream->id, task_id, (unsigned)m->id);
    } else if ((err = check_node_of_its_own(api, t, m->id))) {
        ;
    } else if (info->id == ACL_RT_UPDATE_AIC_AIV_TASK) {
        const aclrtAicAivTaskUpdateAttr *a = &info->val.aicAivTaskAttr;
        uint64_t entry = 0;
        uint32_t blocks = 0;
        acl_module *mod = NULL;
        aclrtFuncHandle fn = NULL;
        if (t->type != ACL_MODEL_RI_TASK_KERNEL)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "task %u of stream %d is no kernel",
                            task_id, (int)task_stream->id);
        if (!err &&
            !(err = read_device(api, "funcEntryAddr", a->funcEntryAddr, &entry, sizeof entry)))
            err = read_device(api, "blockDimAddr", a->blockDimAddr, &blocks, sizeof blocks);
        if (!err && (blocks == 0 || blocks > KERNEL_GRID_MAX))
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "numBlocks %u read from %p", blocks,
                            a->blockDimAddr);
        if (!err && !(err = module_get(api, a->binHandle, &mod))) {
            err = module_function_by_entry(api, mod, entry, &fn);
            module_put(mod);
        }
        if (!err) {
            task_kernel old = t->p.kernel;
            t->p.kernel.fn = fn;
            t->p.kernel.grid[0] = blocks;
            if ((err = apply_params(api, m, t))) {
                t->p.kernel.fn = old.fn;
                t->p.kernel.grid[0] = old.grid[0];
            }
        }
    } else {
        const aclrtRandomTaskUpdateAttr *a = &info->val.randomTaskAttr;
        aclrtRandomNumTaskInfo next;
        if (t->kind != TASK_RANDOM || !t->has_node)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "task %u of stream %d is no random-number task", task_id,
                            (int)task_stream->id);
        else if (a->size < sizeof next)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "size %zu: an aclrtRandomNumTaskInfo takes %zu bytes", a->size,
                            sizeof next);
        if (!err)
            err = read_device(api, "srcAddr", a->srcAddr, &next, sizeof next);
        if (!err) {
            /* Only the addresses, the seed and the count change. */
            aclrtRandomNumTaskInfo info2 = t->p.random.info;
            info2.randomParaAddr = next.randomParaAddr;
            info2.randomResultAddr = next.randomResultAddr;
            info2.randomCounterAddr = next.randomCounterAddr;
            info2.randomSeed = next.randomSeed;
            info2.randomNum = next.randomNum;
            random_params p;
            bool empty;
            err = builtin_random_params(api, task_stream, &info2, &p, &empty);
            if (!err && empty)
                err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                "randomNum 0: the task cannot become empty");
            node_work w = {.kind = NODE_WORK_RANDOM, .u.random = &p};
            if (!err && (err = backend()->graph->set_node(m->graph, t->node, m->phys, &w)))
                err = acl_raise(api, err, "task %u could not take the update: %s", task_id,
                                acl_error_text(err));
            if (!err)
                t->p.random.info = info2;
        }
    }
    pthread_mutex_unlock(&m->lock);
    stream_release(task_stream);
    object_release(&m->obj);
    return err;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&list_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&list_lock);
}

__attribute__((constructor)) static void graph_task_init(void)
{
    fork_register(FORK_RANK_KERNELS + 2, fork_prepare, fork_done, fork_done);
}
