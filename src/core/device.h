/* Devices: visibility and re-indexing (ASCEND_RT_VISIBLE_DEVICES), the
 * process-wide SetDevice count that keeps a device's primary (default)
 * context alive, every device's list of contexts, and device-wide
 * synchronisation. Ids: "user" ids are what ACL calls take (after
 * ASCEND_RT_VISIBLE_DEVICES); "phys" ids are the backend's. */
#ifndef ACLCUDA_CORE_DEVICE_H
#define ACLCUDA_CORE_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "core/context.h"

int32_t device_visible_count(void);
/* ACL_ERROR_RT_INVALID_DEVICEID when the user id is not visible. */
aclError device_to_phys(int32_t device, int32_t *phys);
/* The user id of a backend device, or -1 when it is not visible. */
int32_t device_from_phys(int32_t phys);
/* How many devices the backend has, visible or not. */
int32_t device_present_count(void);
/* device_to_phys that raises, saying why the id is not valid. */
aclError device_resolve(const char *api, int32_t device, int32_t *phys);
/* The backend's properties of a user device. Raises. */
aclError device_props_get(const char *api, int32_t device, device_props *props, int32_t *phys);

/* aclrtSetDevice: counts one more use of the device and returns its
 * primary context, made on first use, held for the caller
 * (context_release). Raises. */
aclError device_retain(const char *api, int32_t device, acl_context **primary);
/* aclrtResetDevice(Force): counts one use less (force: none left); at
 * none the primary context is torn down after its streams' work. Raises. */
aclError device_release(const char *api, int32_t device, bool force);
/* aclFinalize: every primary context goes. */
void device_release_all(void);
bool device_primary_active(int32_t phys);

/* An explicit context on a device (aclrtCreateContext). Raises. */
aclError device_context_create(const char *api, int32_t device, acl_context **out);
/* Tears down an explicit context whose handle the caller took. */
void device_context_destroy(acl_context *ctx);

/* Peer access from phys to peer (one way), as enabled through ACL. enable
 * is idempotent; both return the backend's bare code. */
aclError device_peer_enable(int32_t phys, int32_t peer);
aclError device_peer_disable(int32_t phys, int32_t peer);
bool device_peer_enabled(int32_t phys, int32_t peer);

/* Waits for the work queued on every stream of the device (all contexts)
 * before the call. Bare codes: ACL_ERROR_RT_STREAM_SYNC_TIMEOUT on expiry. */
aclError device_synchronize(int32_t phys, int32_t timeout_ms);
/* Every stream of every context of the device, with retired_too those
 * destroyed without waiting whose work is kept too (context_streams), each
 * held (stream_release), in a block the caller frees (NULL when there are
 * none); *err: memory ran out, the streams listed being those found
 * before. */
acl_stream **device_streams(int32_t phys, bool retired_too, size_t *count, aclError *err);
/* aclrtDeviceTaskAbort: stream_abort on every stream of the device (all
 * contexts). The first failure, after trying all. */
aclError device_abort(int32_t phys);

/* Process-wide aclSysParamOpt values (per-context ones are in context.h).
 * get says whether the option was ever set; unset options read as 0. */
void device_set_param(int opt, int64_t value);
bool device_get_param(int opt, int64_t *value);

#endif
