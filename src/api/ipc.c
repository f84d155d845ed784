/* IPC (acl_rt.h): device memory shared through keys, events shared
 * between processes, and the process id importers are listed by. The
 * rules are in core/ipc.h; this file checks arguments in CANN's order (the
 * library's checks answer ACL_ERROR_INVALID_PARAM, the runtime's
 * ACL_ERROR_RT_PARAM_INVALID). */
#include <unistd.h>

#include "api/api.h"
#include "core/current.h"
#include "core/ipc.h"

ACL_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    PROF_API();
    if (pid == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "pid is NULL");
    /* The id other processes see for this one (SO_PEERCRED, as the sharing
     * broker checks it): its pid in this pid namespace. */
    *pid = (int32_t)getpid();
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
                                            uint64_t flags)
{
    PROF_API();
    if (devPtr == NULL || key == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", devPtr == NULL ? "devPtr" : "key");
    if (size == 0 || len == 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "%s is 0", size == 0 ? "size" : "len");
    if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]",
                         (unsigned long long)flags);
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    if (ret != ACL_SUCCESS)
        return ret;
    return ipc_mem_export(__func__, devPtr, size, key, len,
                          flags != ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
}

ACL_EXPORT aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    PROF_API();
    if (key == NULL || pid == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", key == NULL ? "key" : "pid");
    if (num == 0 || num > INT32_MAX)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "num %zu is not in (0, %d]", num, INT32_MAX);
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    return ret != ACL_SUCCESS ? ret : ipc_mem_allow(__func__, key, pid, num);
}

/* One machine: every server's processes are processes of this machine,
 * so each list is added as it is. */
ACL_EXPORT aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids,
                                                    size_t num)
{
    PROF_API();
    if (key == NULL || serverPids == NULL)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "%s is NULL",
                         key == NULL ? "key" : "serverPids");
    if (num == 0)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "num is 0");
    for (size_t i = 0; i < num; i++)
        if (serverPids[i].pid == NULL || serverPids[i].num == 0)
            return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "serverPids[%zu] lists no process", i);
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    for (size_t i = 0; i < num && ret == ACL_SUCCESS; i++)
        ret = ipc_mem_allow(__func__, key, serverPids[i].pid, serverPids[i].num);
    return ret;
}

ACL_EXPORT aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    PROF_API();
    if (devPtr == NULL || key == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", devPtr == NULL ? "devPtr" : "key");
    if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]",
                         (unsigned long long)flags);
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = ipc_mem_import(__func__, ctx, devPtr, key);
    context_put(ctx);
    return ret;
}

/* The link between dies is Ascend's; the attribute is checked and kept. */
ACL_EXPORT aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)
{
    PROF_API();
    if (key == NULL)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "key is NULL");
    if (type != ACL_RT_IPC_MEM_ATTR_ACCESS_LINK)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "type %d is not an aclrtIpcMemAttrType",
                         (int)type);
    if (attr > ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH)
        return ACL_RAISE(ACL_ERROR_RT_PARAM_INVALID, "attr %llu is not an access link (0..%d)",
                         (unsigned long long)attr,
                         ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH);
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    return ret != ACL_SUCCESS ? ret : ipc_mem_set_attr(__func__, key, attr);
}

ACL_EXPORT aclError aclrtIpcMemClose(const char *key)
{
    PROF_API();
    if (key == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "key is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    return ret != ACL_SUCCESS ? ret : ipc_mem_close(__func__, key);
}

ACL_EXPORT aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_event *e;
    ret = event_get(__func__, event, &e);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = ipc_event_export(__func__, e, handle);
    event_put(e);
    return ret;
}

ACL_EXPORT aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    PROF_API();
    if (event == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "event is NULL");
    aclError ret = BACKEND_REQUIRE(__func__, ipc);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_context *ctx;
    ret = current_context_get(__func__, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    acl_event *e;
    ret = ipc_event_open(__func__, ctx, &handle, &e);
    context_put(ctx);
    if (ret == ACL_SUCCESS)
        *event = handle_of(&e->obj);
    return ret;
}
