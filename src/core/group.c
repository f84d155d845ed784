#include <stdlib.h>

#include "backend/backend.h"
#include "core/group.h"

static void group_info_free(object *o)
{
    free(o);
}

group_info *group_info_create(void)
{
    group_info *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    if (handle_publish(&g->obj, HANDLE_GROUP_INFO, group_info_free) != ACL_SUCCESS) {
        free(g);
        return NULL;
    }
    return g;
}

group_info *group_info_get(const void *handle)
{
    return (group_info *)handle_get(handle, HANDLE_GROUP_INFO);
}

bool group_info_destroy(const void *handle)
{
    object *o = handle_take(handle, HANDLE_GROUP_INFO);
    if (!o)
        return false;
    object_put(o);
    return true;
}

/* Every multiprocessor is an AI core of the group, and a vector and a cube
 * core alike (a GPU's multiprocessors do both); its copy engines are the
 * DMA engines; no Ascend submission queue exists (0). */
aclError group_info_fill(group_info *g, int32_t phys)
{
    device_props p;
    aclError err = backend()->device->props(phys, &p);
    if (err)
        return err;
    int32_t cores = (int32_t)p.multiprocessors;
    int32_t *v = g->values[0];
    v[ACL_GROUP_AICORE_INT] = cores;
    v[ACL_GROUP_AIV_INT] = cores;
    v[ACL_GROUP_AIC_INT] = cores;
    v[ACL_GROUP_SDMANUM_INT] = p.copy_engines;
    v[ACL_GROUP_ASQNUM_INT] = 0;
    v[ACL_GROUP_GROUPID_INT] = 0;
    g->filled = true;
    return ACL_SUCCESS;
}
