/* Core groups (acl_rt.h): one group, id 0, holding the whole device (see
 * core/group.h). */
#include "api/api.h"
#include "core/current.h"
#include "core/group.h"

ACL_EXPORT aclError aclrtSetGroup(int32_t groupId)
{
    PROF_API();
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    context_put(ctx);
    if (groupId != 0)
        return ACL_RAISE(ACL_ERROR_GROUP_NOT_CREATE,
                         "group %d does not exist: the device has one group, 0, of all its cores",
                         (int)groupId);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetGroupCount(uint32_t *count)
{
    PROF_API();
    if (!count)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "count is NULL");
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (err)
        return err;
    context_put(ctx);
    *count = GROUP_COUNT;
    return ACL_SUCCESS;
}

ACL_EXPORT aclrtGroupInfo *aclrtCreateGroupInfo(void)
{
    PROF_API();
    group_info *g = group_info_create();
    if (!g) {
        ACL_RAISE(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return NULL;
    }
    return handle_of(&g->obj);
}

ACL_EXPORT aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
    PROF_API();
    if (!groupInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "groupInfo is NULL");
    if (!group_info_destroy(groupInfo))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live aclrtCreateGroupInfo handle",
                         (void *)groupInfo);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
    PROF_API();
    if (!groupInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "groupInfo is NULL");
    group_info *g = group_info_get(groupInfo);
    if (!g)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live aclrtCreateGroupInfo handle",
                         (void *)groupInfo);
    acl_context *ctx;
    aclError err = current_context_get(__func__, &ctx);
    if (!err) {
        if ((err = group_info_fill(g, ctx->phys)))
            ACL_RAISE(err, "reading device %d failed", (int)ctx->device);
        context_put(ctx);
    }
    object_put(&g->obj);
    return err;
}

/* Every attribute is an int32_t. */
ACL_EXPORT aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
                                            aclrtGroupAttr attr, void *attrValue, size_t valueLen,
                                            size_t *paramRetSize)
{
    PROF_API();
    if (!groupInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "groupInfo is NULL");
    if (!attrValue)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attrValue is NULL");
    if (!paramRetSize)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "paramRetSize is NULL");
    if ((int)attr < 0 || (int)attr >= GROUP_ATTR_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown aclrtGroupAttr %d", (int)attr);
    if (groupIndex < 0 || groupIndex >= GROUP_COUNT)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "group index %d: the device has %d group",
                         (int)groupIndex, GROUP_COUNT);
    if (valueLen < sizeof(int32_t))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "valueLen %zu: the attribute takes %zu bytes",
                         valueLen, sizeof(int32_t));
    group_info *g = group_info_get(groupInfo);
    if (!g)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%p is not a live aclrtCreateGroupInfo handle",
                         (const void *)groupInfo);
    aclError err = ACL_SUCCESS;
    if (!g->filled)
        err = ACL_RAISE(ACL_ERROR_GROUP_NOT_SET,
                        "the group info is empty: call aclrtGetAllGroupInfo first");
    else {
        *(int32_t *)attrValue = g->values[groupIndex][attr];
        *paramRetSize = sizeof(int32_t);
    }
    object_put(&g->obj);
    return err;
}
