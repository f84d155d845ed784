/* The plain objects of acl_tdt_queue.h (see tdt_objects.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/handle.h"
#include "core/tdt_objects.h"

typedef struct attr {
    object obj;
    pthread_mutex_t lock;
    char name[TDT_QUEUE_NAME_MAX];
    uint32_t depth;
} attr;

typedef struct route {
    object obj;
    pthread_mutex_t lock;
    uint32_t src, dst;
    int32_t status;
} route;

typedef struct route_list {
    object obj;
    pthread_mutex_t lock;
    tdt_route_fields *routes;
    size_t count, cap;
} route_list;

typedef struct query {
    object obj;
    pthread_mutex_t lock;
    int32_t mode;
    uint32_t src, dst;
    bool has_mode, has_src, has_dst;
} query;

/* make() finds each object's lock right behind its head. */
_Static_assert(offsetof(attr, lock) == sizeof(object), "attr: the lock follows the object");
_Static_assert(offsetof(route, lock) == sizeof(object), "route: the lock follows the object");
_Static_assert(offsetof(route_list, lock) == sizeof(object), "list: the lock follows the object");
_Static_assert(offsetof(query, lock) == sizeof(object), "query: the lock follows the object");

static const char *const kind_names[] = {
    [HANDLE_TDT_QUEUE_ATTR] = "queue attribute",
    [HANDLE_TDT_ROUTE] = "queue route",
    [HANDLE_TDT_ROUTE_LIST] = "queue route list",
    [HANDLE_TDT_ROUTE_QUERY] = "queue route query",
};

static void plain_free(object *o)
{
    if (o->kind == HANDLE_TDT_ROUTE_LIST)
        free(((route_list *)o)->routes);
    free(o);
}

/* Allocates size bytes whose head is an object followed by a mutex, and
 * publishes it. */
static aclError make(const char *api, size_t size, handle_kind kind, void **out, object **obj)
{
    object *o = calloc(1, size);
    if (o == NULL)
        return acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    pthread_mutex_init((pthread_mutex_t *)((char *)o + sizeof(object)), NULL);
    aclError ret = handle_publish(o, kind, plain_free);
    if (ret != ACL_SUCCESS) {
        free(o);
        return acl_raise(api, ret, "the handle table is full");
    }
    *out = handle_of(o);
    if (obj)
        *obj = o;
    return ACL_SUCCESS;
}

static object *lookup(const char *api, const void *h, handle_kind kind, const char *role)
{
    object *o = handle_get(h, kind);
    if (o == NULL)
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is not a live %s", role, h,
                        kind_names[kind]);
    return o;
}

static aclError destroy(const char *api, const void *h, handle_kind kind, const char *role)
{
    object *o = handle_take(h, kind);
    if (o == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is not a live %s", role, h,
                         kind_names[kind]);
    object_put(o);
    return ACL_SUCCESS;
}

/* Copies a field of `size` bytes out to param (len bytes of room). */
static aclError copy_field_out(const char *api, const void *field, size_t size, void *param,
                               size_t len, size_t *ret_size)
{
    if (len < size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "len %zu is less than the field's %zu bytes",
                         len, size);
    memcpy(param, field, size);
    *ret_size = size;
    return ACL_SUCCESS;
}

static aclError check_len_in(const char *api, size_t len, size_t size)
{
    if (len != size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "len %zu is not the field's %zu bytes", len,
                         size);
    return ACL_SUCCESS;
}

/* Copies a field of `size` bytes in from value (len bytes, which must be
 * size) and marks it set in *has (NULL: a field always set). */
static aclError copy_field_in(const char *api, void *field, size_t size, const void *value,
                              size_t len, bool *has)
{
    aclError ret = check_len_in(api, len, size);
    if (ret != ACL_SUCCESS)
        return ret;
    memcpy(field, value, size);
    if (has)
        *has = true;
    return ACL_SUCCESS;
}

/* A fresh copy of count routes (NULL for none) in *out. */
static aclError copy_routes(const char *api, const tdt_route_fields *routes, size_t count,
                            tdt_route_fields **out)
{
    *out = NULL;
    if (count == 0)
        return ACL_SUCCESS;
    *out = malloc(count * sizeof **out);
    if (*out == NULL)
        return acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    memcpy(*out, routes, count * sizeof **out);
    return ACL_SUCCESS;
}

/* ---- attributes ------------------------------------------------------------------ */

aclError tdt_attr_create(const char *api, acltdtQueueAttr **out)
{
    object *o;
    aclError ret = make(api, sizeof(attr), HANDLE_TDT_QUEUE_ATTR, (void **)out, &o);
    if (ret == ACL_SUCCESS)
        ((attr *)o)->depth = TDT_QUEUE_DEPTH_DEFAULT;
    return ret;
}

aclError tdt_attr_destroy(const char *api, const acltdtQueueAttr *h)
{
    return destroy(api, h, HANDLE_TDT_QUEUE_ATTR, "attr");
}

aclError tdt_attr_set(const char *api, acltdtQueueAttr *h, acltdtQueueAttrType type, size_t len,
                      const void *param)
{
    attr *a = (attr *)lookup(api, h, HANDLE_TDT_QUEUE_ATTR, "attr");
    if (a == NULL)
        return ACL_ERROR_INVALID_PARAM;
    aclError ret;
    pthread_mutex_lock(&a->lock);
    if (type == ACL_TDT_QUEUE_NAME_PTR) {
        const char *name = NULL;
        ret = check_len_in(api, len, sizeof name);
        if (ret == ACL_SUCCESS)
            memcpy(&name, param, sizeof name);
        if (ret == ACL_SUCCESS && name == NULL)
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "the name pointer is NULL");
        if (ret == ACL_SUCCESS && strnlen(name, TDT_QUEUE_NAME_MAX) >= TDT_QUEUE_NAME_MAX)
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "the name is %d bytes or longer",
                            TDT_QUEUE_NAME_MAX);
        if (ret == ACL_SUCCESS)
            strcpy(a->name, name);
    } else if (type == ACL_TDT_QUEUE_DEPTH_UINT32) {
        ret = copy_field_in(api, &a->depth, sizeof a->depth, param, len, NULL);
    } else {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "type %d is not an acltdtQueueAttrType",
                        (int)type);
    }
    pthread_mutex_unlock(&a->lock);
    object_put(&a->obj);
    return ret;
}

aclError tdt_attr_get(const char *api, const acltdtQueueAttr *h, acltdtQueueAttrType type,
                      size_t len, size_t *ret_size, void *param)
{
    attr *a = (attr *)lookup(api, h, HANDLE_TDT_QUEUE_ATTR, "attr");
    if (a == NULL)
        return ACL_ERROR_INVALID_PARAM;
    aclError ret;
    pthread_mutex_lock(&a->lock);
    if (type == ACL_TDT_QUEUE_NAME_PTR) {
        /* The attribute's own string, as CANN gives it: valid while the attribute lives. */
        const char *name = a->name;
        ret = copy_field_out(api, &name, sizeof name, param, len, ret_size);
    } else if (type == ACL_TDT_QUEUE_DEPTH_UINT32) {
        ret = copy_field_out(api, &a->depth, sizeof a->depth, param, len, ret_size);
    } else {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "type %d is not an acltdtQueueAttrType",
                        (int)type);
    }
    pthread_mutex_unlock(&a->lock);
    object_put(&a->obj);
    return ret;
}

/* ---- routes ---------------------------------------------------------------------- */

aclError tdt_route_create(const char *api, uint32_t src, uint32_t dst, acltdtQueueRoute **out)
{
    object *o;
    aclError ret = make(api, sizeof(route), HANDLE_TDT_ROUTE, (void **)out, &o);
    if (ret == ACL_SUCCESS) {
        ((route *)o)->src = src;
        ((route *)o)->dst = dst;
    }
    return ret;
}

aclError tdt_route_destroy(const char *api, const acltdtQueueRoute *h)
{
    return destroy(api, h, HANDLE_TDT_ROUTE, "route");
}

aclError tdt_route_param(const char *api, const acltdtQueueRoute *h, acltdtQueueRouteParamType type,
                         size_t len, size_t *ret_size, void *param)
{
    route *r = (route *)lookup(api, h, HANDLE_TDT_ROUTE, "route");
    if (r == NULL)
        return ACL_ERROR_INVALID_PARAM;
    aclError ret;
    pthread_mutex_lock(&r->lock);
    if (type == ACL_TDT_QUEUE_ROUTE_SRC_UINT32)
        ret = copy_field_out(api, &r->src, sizeof r->src, param, len, ret_size);
    else if (type == ACL_TDT_QUEUE_ROUTE_DST_UINT32)
        ret = copy_field_out(api, &r->dst, sizeof r->dst, param, len, ret_size);
    else if (type == ACL_TDT_QUEUE_ROUTE_STATUS_INT32)
        ret = copy_field_out(api, &r->status, sizeof r->status, param, len, ret_size);
    else
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "type %d is not an acltdtQueueRouteParamType",
                        (int)type);
    pthread_mutex_unlock(&r->lock);
    object_put(&r->obj);
    return ret;
}

/* ---- route lists ----------------------------------------------------------------- */

aclError tdt_route_list_create(const char *api, acltdtQueueRouteList **out)
{
    return make(api, sizeof(route_list), HANDLE_TDT_ROUTE_LIST, (void **)out, NULL);
}

aclError tdt_route_list_destroy(const char *api, const acltdtQueueRouteList *h)
{
    return destroy(api, h, HANDLE_TDT_ROUTE_LIST, "routeList");
}

/* Borrows both, or neither. */
static aclError lookup_list_and_route(const char *api, const acltdtQueueRouteList *h,
                                      const acltdtQueueRoute *rh, route_list **l, route **r)
{
    *l = (route_list *)lookup(api, h, HANDLE_TDT_ROUTE_LIST, "routeList");
    if (*l == NULL)
        return ACL_ERROR_INVALID_PARAM;
    *r = (route *)lookup(api, rh, HANDLE_TDT_ROUTE, "route");
    if (*r == NULL) {
        object_put(&(*l)->obj);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

aclError tdt_route_list_add(const char *api, acltdtQueueRouteList *h, const acltdtQueueRoute *rh)
{
    route_list *l;
    route *r;
    if (lookup_list_and_route(api, h, rh, &l, &r) != ACL_SUCCESS)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&r->lock);
    tdt_route_fields f = {r->src, r->dst, r->status};
    pthread_mutex_unlock(&r->lock);
    object_put(&r->obj);
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&l->lock);
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        tdt_route_fields *grown = realloc(l->routes, cap * sizeof *grown);
        if (grown == NULL) {
            ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
        } else {
            l->routes = grown;
            l->cap = cap;
        }
    }
    if (ret == ACL_SUCCESS)
        l->routes[l->count++] = f;
    pthread_mutex_unlock(&l->lock);
    object_put(&l->obj);
    return ret;
}

aclError tdt_route_list_get(const char *api, const acltdtQueueRouteList *h, size_t index,
                            acltdtQueueRoute *rh)
{
    route_list *l;
    route *r;
    if (lookup_list_and_route(api, h, rh, &l, &r) != ACL_SUCCESS)
        return ACL_ERROR_INVALID_PARAM;
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&l->lock);
    if (index >= l->count) {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "index %zu is not below the list's %zu routes", index, l->count);
    } else {
        tdt_route_fields f = l->routes[index];
        pthread_mutex_lock(&r->lock);
        r->src = f.src;
        r->dst = f.dst;
        r->status = f.status;
        pthread_mutex_unlock(&r->lock);
    }
    pthread_mutex_unlock(&l->lock);
    object_put(&r->obj);
    object_put(&l->obj);
    return ret;
}

aclError tdt_route_list_count(const char *api, const acltdtQueueRouteList *h, size_t *out)
{
    route_list *l = (route_list *)lookup(api, h, HANDLE_TDT_ROUTE_LIST, "routeList");
    if (l == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&l->lock);
    *out = l->count;
    pthread_mutex_unlock(&l->lock);
    object_put(&l->obj);
    return ACL_SUCCESS;
}

/* ---- route queries --------------------------------------------------------------- */

aclError tdt_query_create(const char *api, acltdtQueueRouteQueryInfo **out)
{
    return make(api, sizeof(query), HANDLE_TDT_ROUTE_QUERY, (void **)out, NULL);
}

aclError tdt_query_destroy(const char *api, const acltdtQueueRouteQueryInfo *h)
{
    return destroy(api, h, HANDLE_TDT_ROUTE_QUERY, "info");
}

aclError tdt_query_set(const char *api, acltdtQueueRouteQueryInfo *h,
                       acltdtQueueRouteQueryInfoParamType type, size_t len, const void *value)
{
    query *q = (query *)lookup(api, h, HANDLE_TDT_ROUTE_QUERY, "param");
    if (q == NULL)
        return ACL_ERROR_INVALID_PARAM;
    aclError ret;
    pthread_mutex_lock(&q->lock);
    if (type == ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM)
        ret = copy_field_in(api, &q->mode, sizeof q->mode, value, len, &q->has_mode);
    else if (type == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32)
        ret = copy_field_in(api, &q->src, sizeof q->src, value, len, &q->has_src);
    else if (type == ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32)
        ret = copy_field_in(api, &q->dst, sizeof q->dst, value, len, &q->has_dst);
    else
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "type %d is not an acltdtQueueRouteQueryInfoParamType", (int)type);
    pthread_mutex_unlock(&q->lock);
    object_put(&q->obj);
    return ret;
}

/* ---- for the queues -------------------------------------------------------------- */

aclError tdt_attr_read(const char *api, const acltdtQueueAttr *h, char *name_out, uint32_t *depth)
{
    attr *a = (attr *)lookup(api, h, HANDLE_TDT_QUEUE_ATTR, "attr");
    if (a == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&a->lock);
    memcpy(name_out, a->name, TDT_QUEUE_NAME_MAX);
    *depth = a->depth;
    pthread_mutex_unlock(&a->lock);
    object_put(&a->obj);
    return ACL_SUCCESS;
}

aclError tdt_route_list_read(const char *api, const acltdtQueueRouteList *h, tdt_route_fields **out,
                             size_t *count)
{
    route_list *l = (route_list *)lookup(api, h, HANDLE_TDT_ROUTE_LIST, "qRouteList");
    if (l == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&l->lock);
    *count = l->count;
    aclError ret = copy_routes(api, l->routes, l->count, out);
    pthread_mutex_unlock(&l->lock);
    object_put(&l->obj);
    return ret;
}

void tdt_route_list_set_status(const acltdtQueueRouteList *h, size_t index, int32_t status)
{
    route_list *l = (route_list *)handle_get(h, HANDLE_TDT_ROUTE_LIST);
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->lock);
    if (index < l->count)
        l->routes[index].status = status;
    pthread_mutex_unlock(&l->lock);
    object_put(&l->obj);
}

aclError tdt_route_list_replace(const char *api, acltdtQueueRouteList *h,
                                const tdt_route_fields *routes, size_t count)
{
    route_list *l = (route_list *)lookup(api, h, HANDLE_TDT_ROUTE_LIST, "qRouteList");
    if (l == NULL)
        return ACL_ERROR_INVALID_PARAM;
    tdt_route_fields *copy;
    aclError ret = copy_routes(api, routes, count, &copy);
    if (ret == ACL_SUCCESS) {
        pthread_mutex_lock(&l->lock);
        free(l->routes);
        l->routes = copy;
        l->count = l->cap = count;
        pthread_mutex_unlock(&l->lock);
    }
    object_put(&l->obj);
    return ret;
}

aclError tdt_query_read(const char *api, const acltdtQueueRouteQueryInfo *h, tdt_query_fields *out)
{
    query *q = (query *)lookup(api, h, HANDLE_TDT_ROUTE_QUERY, "queryInfo");
    if (q == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&q->lock);
    *out = (tdt_query_fields){q->mode, q->src, q->dst, q->has_mode, q->has_src, q->has_dst};
    pthread_mutex_unlock(&q->lock);
    object_put(&q->obj);
    return ACL_SUCCESS;
}
