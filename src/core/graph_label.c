/* Labels and label lists (aclrtCreateLabel, aclrtCreateLabelList): places
 * in a built model's streams that aclrtSwitchLabelByIndex jumps to
 * (graph_flow.c records both, graph_flow_plan.c turns them into branches
 * and loops). A label belongs to the context it was made in and is set
 * once, on one stream of that context; a list names labels of one
 * context. Destroying either leaves what models recorded of them as it
 * is: they are known there by their handles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/graph_flow.h"

enum {
    LABELS_MAX = 65535, /* ACL: per process */
    LABEL_LIST_MAX = 65535,
};

typedef struct acl_label {
    object obj;
    aclrtContext ctx;
    atomic_bool set;
} acl_label;

typedef struct acl_label_list {
    object obj;
    aclrtContext ctx;
    size_t count;
    aclrtLabel labels[];
} acl_label_list;

static atomic_int live_labels;

static void label_free(object *o)
{
    atomic_fetch_sub(&live_labels, 1);
    free(o);
}

aclError label_create(const char *api, aclrtLabel *out)
{
    if (atomic_fetch_add(&live_labels, 1) >= LABELS_MAX) {
        atomic_fetch_sub(&live_labels, 1);
        return acl_raise(api, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                         "%d labels exist: ACL allows no more in a process (aclrtDestroyLabel "
                         "frees one)",
                         (int)LABELS_MAX);
    }
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err) {
        atomic_fetch_sub(&live_labels, 1);
        return err;
    }
    acl_label *l = calloc(1, sizeof *l);
    if (!l) {
        context_put(ctx);
        atomic_fetch_sub(&live_labels, 1);
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    l->ctx = handle_of(&ctx->obj);
    context_put(ctx);
    if ((err = handle_publish(&l->obj, HANDLE_LABEL, label_free))) {
        label_free(&l->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    *out = handle_of(&l->obj);
    return ACL_SUCCESS;
}

static aclError label_get(const char *api, aclrtLabel h, const char *what, acl_label **out)
{
    if (!h)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", what);
    *out = (acl_label *)handle_get(h, HANDLE_LABEL);
    if (*out)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is not a live label%s", what, h,
                     handle_kind_of(h) ? " (it is another kind of handle)" : "");
}

aclError label_destroy(const char *api, aclrtLabel label)
{
    if (!label)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "label is NULL");
    object *o = handle_take(label, HANDLE_LABEL);
    if (!o)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "label %p is not a live label%s", label,
                         handle_kind_of(label) ? " (it is another kind of handle)" : "");
    object_put(o);
    return ACL_SUCCESS;
}

aclError label_set(const char *api, aclrtLabel label, acl_stream *s)
{
    acl_label *l;
    aclError err = label_get(api, label, "label", &l);
    if (err)
        return err;
    bool unset = false;
    if (l->ctx != handle_of(&s->ctx->obj))
        err = acl_raise(api, ACL_ERROR_RT_LABEL_CONTEXT,
                        "label %p belongs to another context than stream %d", label, (int)s->id);
    else if (!atomic_compare_exchange_strong(&l->set, &unset, true))
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "label %p was set already: a label is set once (create another)", label);
    object_put(&l->obj);
    return err;
}

void label_unset(aclrtLabel label)
{
    acl_label *l = (acl_label *)handle_get(label, HANDLE_LABEL);
    if (!l)
        return;
    atomic_store(&l->set, false);
    object_put(&l->obj);
}

static void label_list_free(object *o)
{
    free(o);
}

aclError label_list_create(const char *api, const aclrtLabel *labels, size_t n, aclrtLabelList *out)
{
    if (n == 0 || n > LABEL_LIST_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "num %zu: a list holds 1 to %d labels", n,
                         (int)LABEL_LIST_MAX);
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    aclrtContext here = handle_of(&ctx->obj);
    context_put(ctx);
    for (size_t i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "labels[%zu]", i);
        acl_label *l;
        if ((err = label_get(api, labels[i], what, &l)))
            return err;
        bool other = l->ctx != here;
        object_put(&l->obj);
        if (other)
            return acl_raise(api, ACL_ERROR_RT_LABEL_CONTEXT,
                             "%s belongs to another context than the current one", what);
    }
    acl_label_list *list = malloc(sizeof *list + n * sizeof list->labels[0]);
    if (!list)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    memset(&list->obj, 0, sizeof list->obj);
    list->ctx = here;
    list->count = n;
    memcpy(list->labels, labels, n * sizeof list->labels[0]);
    if ((err = handle_publish(&list->obj, HANDLE_LABEL_LIST, label_list_free))) {
        label_list_free(&list->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    *out = handle_of(&list->obj);
    return ACL_SUCCESS;
}

aclError label_list_destroy(const char *api, aclrtLabelList list)
{
    if (!list)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "labelList is NULL");
    object *o = handle_take(list, HANDLE_LABEL_LIST);
    if (!o)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "labelList %p is not a live label list%s",
                         list, handle_kind_of(list) ? " (it is another kind of handle)" : "");
    object_put(o);
    return ACL_SUCCESS;
}

aclError label_list_take(const char *api, aclrtLabelList list, uint32_t count, acl_stream *s,
                         aclrtLabel **out)
{
    if (!list)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "labelList is NULL");
    acl_label_list *l = (acl_label_list *)handle_get(list, HANDLE_LABEL_LIST);
    if (!l)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "labelList %p is not a live label list%s",
                         list, handle_kind_of(list) ? " (it is another kind of handle)" : "");
    aclError err = ACL_SUCCESS;
    if (count == 0 || count > l->count)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "maxValue %u: the list holds %zu labels, and a switch takes 1 to all of "
                        "them",
                        count, l->count);
    else if (l->ctx != handle_of(&s->ctx->obj))
        err = acl_raise(api, ACL_ERROR_RT_LABEL_CONTEXT,
                        "labelList %p belongs to another context than stream %d", list, (int)s->id);
    else if (!(*out = malloc(count * sizeof **out)))
        err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    else
        memcpy(*out, l->labels, count * sizeof **out);
    object_put(&l->obj);
    return err;
}
