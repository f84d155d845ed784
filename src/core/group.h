/* Core groups (aclrtSetGroup and the group info functions): on a GPU, as
 * on an Ascend device where no groups were configured, one group holds the
 * whole device. A group info is a handle kind. */
#ifndef ACLCUDA_CORE_GROUP_H
#define ACLCUDA_CORE_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/handle.h"

enum { GROUP_COUNT = 1, GROUP_ATTR_COUNT = 6 };

typedef struct group_info {
    object obj;
    bool filled;                                   /* by aclrtGetAllGroupInfo */
    int32_t values[GROUP_COUNT][GROUP_ATTR_COUNT]; /* per aclrtGroupAttr */
} group_info;

/* Published, or NULL when out of memory. */
group_info *group_info_create(void);
/* Borrowed (object_put), or NULL. */
group_info *group_info_get(const void *handle);
bool group_info_destroy(const void *handle);
/* The one group of a backend device. Bare codes. */
aclError group_info_fill(group_info *g, int32_t phys);

#endif
