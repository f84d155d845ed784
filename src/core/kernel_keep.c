/* Binaries kept loaded for the work that runs their code (kernel.h,
 * "keeping binaries"): the streams and loaded modules of each device, the
 * fences queued to release modules, the modules models hold, and those
 * pinned until their device goes.
 *
 * Locks: each list has its own, a leaf: nothing is taken under it
 * (object_hold and object_release_late take no lock), so any thread may
 * come here holding whatever it holds: a stream's teardown, the reclaimer
 * freeing a module, the backend's thread running a fence. Leaves rank last
 * for fork (before the error messages, which are never raised under them).
 *
 * Not deferred.c's marks, which wait for the same work: those are reaped
 * at API entries and run backend releases in order, and marking takes the
 * device and context locks. A fence only drops references, so it runs on
 * the stream's own thread as soon as the work is done (an unloaded
 * binary's code goes then, not at some later call), and this module is
 * entered under any lock, hence its own list of streams. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "core/lifecycle.h"
#include "util/fork.h"
#include "util/list.h"
#include "util/log.h"

/* Modules of one device whose references go together: a fence queued on
 * a stream (released when it runs), a pin (released when the device goes),
 * or what one model keeps. */
typedef struct bundle {
    list_node link;
    uint64_t id;       /* fences: what the host function carries */
    const void *model; /* model keeps: the model's handle */
    int32_t phys;
    size_t count;
    acl_module *modules[];
} bundle;

/* Every stream, by its keep_link: a list, so that a stream goes in
 * constant time however many there are (an array searched at each
 * destroy made aclrtCreateStream+aclrtDestroyStream 27 times slower with
 * 10,000 streams alive). Streams are not held: each leaves at its
 * teardown. */
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static list_node known = LIST_INIT(known);
static size_t nknown;

static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static list_node loaded = LIST_INIT(loaded);

/* Fences queued, pins, model keeps: each its own list, one lock. */
static pthread_mutex_t bundles_lock = PTHREAD_MUTEX_INITIALIZER;
static list_node fences = LIST_INIT(fences);
static list_node pinned = LIST_INIT(pinned);
static list_node model_keeps = LIST_INIT(model_keeps);
static uint64_t next_fence_id = 1;

static bundle *bundle_new(int32_t phys, acl_module *const *modules, size_t count)
{
    bundle *b = calloc(1, sizeof *b + count * sizeof *modules);
    if (b) {
        list_init(&b->link);
        b->phys = phys;
        b->count = count;
        memcpy(b->modules, modules, count * sizeof *modules);
    }
    return b;
}

/* ---- the registries --------------------------------------------------------------------- */

void module_registry_add(acl_module *m)
{
    pthread_mutex_lock(&modules_lock);
    list_add(&loaded, &m->loaded_link);
    pthread_mutex_unlock(&modules_lock);
}

void module_registry_remove(acl_module *m)
{
    pthread_mutex_lock(&modules_lock);
    list_remove(&m->loaded_link);
    pthread_mutex_unlock(&modules_lock);
}

/* Counted references to every loaded module of phys, in a new array
 * (NULL with *count 0 when there is none or no memory: *lost says which). */
static acl_module **hold_loaded(int32_t phys, size_t *count, bool *lost)
{
    *count = 0;
    *lost = false;
    size_t cap = 0;
    acl_module **held = NULL;
    pthread_mutex_lock(&modules_lock);
    list_for_each(pos, &loaded)
    {
        acl_module *m = list_entry(pos, acl_module, loaded_link);
        if (m->phys != phys)
            continue;
        if (*count == cap) {
            size_t grown_cap = cap ? 2 * cap : 8;
            acl_module **grown = realloc(held, grown_cap * sizeof *grown);
            if (!grown) {
                *lost = true;
                break;
            }
            held = grown;
            cap = grown_cap;
        }
        /* One whose last reference is gone is being freed: nothing can
         * run its code (the fences and pins hold the others). */
        if (object_hold(&m->obj))
            held[(*count)++] = m;
    }
    pthread_mutex_unlock(&modules_lock);
    return held;
}

static void stream_made(void *subject)
{
    acl_stream *s = subject;
    pthread_mutex_lock(&known_lock);
    /* A context teardown may have taken it since it was linked there. */
    if (s->keep_link.next != NULL) {
        list_add(&known, &s->keep_link);
        nknown++;
    }
    pthread_mutex_unlock(&known_lock);
}

static void release_all(acl_module *const *modules, size_t count)
{
    for (size_t i = 0; i < count; i++)
        object_release(&modules[i]->obj);
}

/* ---- fences ----------------------------------------------------------------------------- */

/* New references to the count modules (the caller holds them), in a new
 * bundle of phys; NULL when out of memory. */
static bundle *bundle_hold(int32_t phys, acl_module *const *modules, size_t count)
{
    bundle *b = bundle_new(phys, modules, count);
    if (!b)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (object_hold(&modules[i]->obj)) /* cannot fail: the caller holds it */
            b->modules[n++] = modules[i];
    b->count = n;
    return b;
}

/* Keeps the modules (the caller holds them) until phys goes; out of
 * memory, for good. */
static void keep_until_device_goes(int32_t phys, acl_module *const *modules, size_t count)
{
    bundle *b = bundle_hold(phys, modules, count);
    if (!b) {
        for (size_t i = 0; i < count; i++)
            if (object_hold(&modules[i]->obj))
                ACL_LOG(LOG_WARNING, "out of memory: a binary of device %d stays loaded",
                        (int)phys);
        return;
    }
    pthread_mutex_lock(&bundles_lock);
    list_add(&pinned, &b->link);
    pthread_mutex_unlock(&bundles_lock);
}

/* The host function of a fence, on whatever thread the backend runs it:
 * it calls no backend (object_release_late). A fence already reached or
 * handed back finds nothing (as one would that a capture begun meanwhile
 * took into a model, to run at each replay). */
static void fence_reached(void *arg)
{
    uint64_t id = (uint64_t)(uintptr_t)arg;
    bundle *b = NULL;
    pthread_mutex_lock(&bundles_lock);
    list_for_each(pos, &fences)
    {
        bundle *f = list_entry(pos, bundle, link);
        if (f->id == id) {
            b = f;
            break;
        }
    }
    if (b)
        list_remove(&b->link);
    pthread_mutex_unlock(&bundles_lock);
    if (!b)
        return;
    for (size_t i = 0; i < b->count; i++)
        object_release_late(&b->modules[i]->obj);
    free(b);
}

/* Keeps the modules (the caller holds them) until s has completed the
 * work queued on it so far: not at all when it has, through a fence (a
 * host function queued after that work) where one can be queued, else
 * until the device goes. */
static void keep_until_stream_done(acl_stream *s, acl_module *const *modules, size_t count)
{
    if (!count || stream_known_idle(s))
        return;
    bool captured = stream_sink(s) != NULL;
    bool complete = false;
    if (!captured && stream_query(s, &complete) == ACL_SUCCESS && complete)
        return;
    if (captured || (s->flags & STREAM_DEVICE_FED_FLAGS)) {
        keep_until_device_goes(s->phys, modules, count); /* no host work can be queued there */
        return;
    }
    bundle *b = bundle_hold(s->phys, modules, count);
    if (!b) {
        keep_until_device_goes(s->phys, modules, count);
        return;
    }
    pthread_mutex_lock(&bundles_lock);
    b->id = next_fence_id++;
    list_add(&fences, &b->link);
    pthread_mutex_unlock(&bundles_lock);
    /* Not a task of the caller's (aclrtGetThreadLastTaskId). */
    uint32_t last_task = stream_last_task_of_thread;
    aclError err = stream_submit(
        NULL, s,
        &(task){.kind = TASK_HOST_FUNC,
                .u.host_func = {.fn = fence_reached, .arg = (void *)(uintptr_t)b->id}});
    stream_last_task_of_thread = last_task;
    if (err) {
        pthread_mutex_lock(&bundles_lock);
        list_remove(&b->link);
        list_add(&pinned, &b->link);
        pthread_mutex_unlock(&bundles_lock);
    }
}

/* A stream leaves, its work perhaps still queued (destroyed without
 * waiting): every module of its device stays until that work is done, as
 * an unload later would not find the stream. */
static void stream_gone(void *subject)
{
    acl_stream *s = subject;
    pthread_mutex_lock(&known_lock);
    if (s->keep_link.next != NULL && s->keep_link.next != &s->keep_link) {
        list_remove(&s->keep_link);
        nknown--;
    }
    s->keep_link = (list_node){NULL, NULL};
    pthread_mutex_unlock(&known_lock);
    if (stream_known_idle(s))
        return;
    size_t count;
    bool lost;
    acl_module **held = hold_loaded(s->phys, &count, &lost);
    if (lost)
        ACL_LOG(LOG_WARNING,
                "out of memory: binaries of device %d may be unloaded under stream %d's work",
                (int)s->phys, (int)s->id);
    keep_until_stream_done(s, held, count);
    release_all(held, count);
    free(held);
}

/* Keeps the modules (the caller holds them) until every stream of phys
 * has completed the work queued so far. */
static void keep_until_work_done(int32_t phys, acl_module *const *modules, size_t count)
{
    if (!count)
        return;
    /* Calls that found a module's functions before they were withdrawn
     * have queued their work once their sections ended. */
    handle_wait_readers();
    pthread_mutex_lock(&known_lock);
    size_t n = 0;
    void **handles = nknown ? malloc(nknown * sizeof *handles) : NULL;
    bool lost = nknown && !handles;
    list_for_each(node, &known)
    {
        acl_stream *s = list_entry(node, acl_stream, keep_link);
        if (handles && s->phys == phys)
            handles[n++] = handle_of(&s->obj);
    }
    pthread_mutex_unlock(&known_lock);
    if (lost) {
        free(handles);
        keep_until_device_goes(phys, modules, count); /* a stream may be missing */
        return;
    }
    bool pinned_once = false;
    for (size_t i = 0; i < n; i++) {
        acl_stream *s = (acl_stream *)handle_get(handles[i], HANDLE_STREAM);
        if (s) {
            keep_until_stream_done(s, modules, count);
            object_put(&s->obj);
        } else if (!pinned_once) {
            /* Being torn down: its teardown fences the modules loaded
             * then, which these might no longer be. */
            keep_until_device_goes(phys, modules, count);
            pinned_once = true;
        }
    }
    free(handles);
}

void module_release_after_work(acl_module *m)
{
    keep_until_work_done(m->phys, &m, 1);
    object_release(&m->obj);
}

void module_fence_launch(acl_stream *s, acl_module *m)
{
    keep_until_stream_done(s, &m, 1);
}

/* ---- what models keep --------------------------------------------------------------------- */

void module_keep_for_model(const void *model, aclrtFuncHandle fn)
{
    acl_function *f = (acl_function *)handle_get(fn, HANDLE_FUNCTION);
    if (!f)
        return;
    acl_module *m = f->module; /* NULL: found by symbol, the application's own code */
    bool kept = m == NULL;
    pthread_mutex_lock(&bundles_lock);
    list_for_each(pos, &model_keeps)
    {
        bundle *b = list_entry(pos, bundle, link);
        if (kept || (b->model == model && b->modules[0] == m)) {
            kept = true;
            break;
        }
    }
    bundle *b = kept ? NULL : bundle_hold(m->phys, &m, 1);
    if (b) {
        b->model = model;
        list_add(&model_keeps, &b->link);
    }
    pthread_mutex_unlock(&bundles_lock);
    if (!kept && !b && object_hold(&m->obj))
        ACL_LOG(LOG_WARNING, "out of memory: a binary of device %d stays loaded", (int)m->phys);
    function_put(f);
}

void module_release_for_model(const void *model)
{
    list_node mine = LIST_INIT(mine);
    pthread_mutex_lock(&bundles_lock);
    for (list_node *pos = model_keeps.next, *next; pos != &model_keeps; pos = next) {
        next = pos->next;
        bundle *b = list_entry(pos, bundle, link);
        if (b->model == model) {
            list_remove(&b->link);
            list_add(&mine, &b->link);
        }
    }
    pthread_mutex_unlock(&bundles_lock);
    while (!list_empty(&mine)) {
        bundle *b = list_entry(mine.next, bundle, link);
        list_remove(&b->link);
        keep_until_work_done(b->phys, b->modules, b->count);
        release_all(b->modules, b->count);
        free(b);
    }
}

/* ---- devices and ACL going ---------------------------------------------------------------- */

/* Releases the fences and pins of phys (all when phys < 0), and what
 * models keep when all. Nothing of the device runs any more. */
static void release_device(int32_t phys)
{
    list_node mine = LIST_INIT(mine);
    pthread_mutex_lock(&bundles_lock);
    list_node *lists[] = {&fences, &pinned, &model_keeps};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
        if (lists[l] == &model_keeps && phys >= 0)
            continue;
        for (list_node *pos = lists[l]->next, *next; pos != lists[l]; pos = next) {
            next = pos->next;
            bundle *b = list_entry(pos, bundle, link);
            if (phys < 0 || b->phys == phys) {
                list_remove(&b->link);
                list_add(&mine, &b->link);
            }
        }
    }
    pthread_mutex_unlock(&bundles_lock);
    while (!list_empty(&mine)) {
        bundle *b = list_entry(mine.next, bundle, link);
        list_remove(&b->link);
        release_all(b->modules, b->count);
        free(b);
    }
}

static void device_released(void *subject)
{
    release_device((int32_t)(intptr_t)subject);
}

static void all_released(void *subject)
{
    (void)subject;
    release_device(-1);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&known_lock);
    pthread_mutex_lock(&modules_lock);
    pthread_mutex_lock(&bundles_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&bundles_lock);
    pthread_mutex_unlock(&modules_lock);
    pthread_mutex_unlock(&known_lock);
}

__attribute__((constructor)) static void kernel_keep_init(void)
{
    lifecycle_observe(LIFECYCLE_STREAM_MADE, stream_made);
    lifecycle_observe(LIFECYCLE_STREAM_GONE, stream_gone);
    lifecycle_observe(LIFECYCLE_DEVICE_RELEASED, device_released);
    lifecycle_observe(LIFECYCLE_FINALIZED, all_released);
    fork_register(FORK_RANK_ERRORS - 1, fork_prepare, fork_done, fork_done);
}
