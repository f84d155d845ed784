/* The plain objects of acl_tdt_queue.h: queue attributes (a name and a
 * depth), routes (a source queue, a destination queue and a status), lists
 * of routes and route queries. Each lives behind a handle (handle.h).
 * Get/set of a field copies exactly the field's size: a len that differs
 * is ACL_ERROR_INVALID_PARAM. All functions raise. */
#ifndef ACLCUDA_CORE_TDT_OBJECTS_H
#define ACLCUDA_CORE_TDT_OBJECTS_H

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

#endif
