/* acl-cuda's own extensions (acl/acl_cuda.h). */
#include "acl/acl_cuda.h"
#include "api/api.h"
#include "core/current.h"
#include "core/event.h"

ACL_EXPORT const char *aclcudaGetBackendName(void)
{
    return backend()->name;
}

ACL_EXPORT aclError aclcudaGetNativeStream(aclrtStream stream, void **native)
{
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    *native = stream_native(s);
    stream_put(s);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclcudaGetNativeEvent(aclrtEvent event, void **native)
{
    if (!native)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "native is NULL");
    acl_event *e;
    aclError err = event_get(__func__, event, &e);
    if (err)
        return err;
    *native = event_native(e);
    event_put(e);
    return ACL_SUCCESS;
}
