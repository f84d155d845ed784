/* The plain objects of acl_tdt_queue.h: queue attributes (a name and a
 * depth), routes (a source queue, a destination queue and a status), lists
 * of routes and route queries. Each lives behind a handle (handle.h).
 * Get/set of a field copies exactly the field's size: a len that differs
 * is ACL_ERROR_INVALID_PARAM. All functions raise. */
#ifndef ACLCUDA_CORE_TDT_OBJECTS_H
#define ACLCUDA_CORE_TDT_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_tdt_queue.h"

enum { TDT_QUEUE_NAME_MAX = 128, TDT_QUEUE_DEPTH_DEFAULT = 8, TDT_QUEUE_DEPTH_MIN = 2 };

aclError tdt_attr_create(const char *api, acltdtQueueAttr **out);
aclError tdt_attr_destroy(const char *api, const acltdtQueueAttr *h);
aclError tdt_attr_set(const char *api, acltdtQueueAttr *h, acltdtQueueAttrType type, size_t len,
                      const void *param);
aclError tdt_attr_get(const char *api, const acltdtQueueAttr *h, acltdtQueueAttrType type,
                      size_t len, size_t *ret_size, void *param);

aclError tdt_route_create(const char *api, uint32_t src, uint32_t dst, acltdtQueueRoute **out);
aclError tdt_route_destroy(const char *api, const acltdtQueueRoute *h);
aclError tdt_route_param(const char *api, const acltdtQueueRoute *h, acltdtQueueRouteParamType type,
                         size_t len, size_t *ret_size, void *param);

aclError tdt_route_list_create(const char *api, acltdtQueueRouteList **out);
aclError tdt_route_list_destroy(const char *api, const acltdtQueueRouteList *h);
aclError tdt_route_list_add(const char *api, acltdtQueueRouteList *h, const acltdtQueueRoute *r);
aclError tdt_route_list_get(const char *api, const acltdtQueueRouteList *h, size_t index,
                            acltdtQueueRoute *r);
aclError tdt_route_list_count(const char *api, const acltdtQueueRouteList *h, size_t *out);

aclError tdt_query_create(const char *api, acltdtQueueRouteQueryInfo **out);
aclError tdt_query_destroy(const char *api, const acltdtQueueRouteQueryInfo *h);
aclError tdt_query_set(const char *api, acltdtQueueRouteQueryInfo *h,
                       acltdtQueueRouteQueryInfoParamType type, size_t len, const void *value);

/* ---- for the queues (core/tdt_queue.c) ---- */

/* A route's fields, as lists hold them. */
typedef struct tdt_route_fields {
    uint32_t src, dst;
    int32_t status;
} tdt_route_fields;

/* The name (name_out: TDT_QUEUE_NAME_MAX bytes) and depth of an attribute. */
aclError tdt_attr_read(const char *api, const acltdtQueueAttr *h, char *name_out, uint32_t *depth);
/* A copy of a list's routes (*out malloc'd, the caller frees; NULL when
 * there are none). */
aclError tdt_route_list_read(const char *api, const acltdtQueueRouteList *h, tdt_route_fields **out,
                             size_t *count);
/* Sets the status of the index-th route (a list that changed meanwhile is
 * left alone). */
void tdt_route_list_set_status(const acltdtQueueRouteList *h, size_t index, int32_t status);
/* Replaces a list's routes by count routes at routes. */
aclError tdt_route_list_replace(const char *api, acltdtQueueRouteList *h,
                                const tdt_route_fields *routes, size_t count);
/* A query's fields; has_* tell which were set. */
typedef struct tdt_query_fields {
    int32_t mode;
    uint32_t src, dst;
    bool has_mode, has_src, has_dst;
} tdt_query_fields;
aclError tdt_query_read(const char *api, const acltdtQueueRouteQueryInfo *h, tdt_query_fields *out);

#endif
