/* Callbacks registered by name, told of state changes:
 * aclrtRegStreamStateCallback (a stream made or about to go),
 * aclrtRegDeviceStateCallback (aclrtSetDevice / aclrtResetDevice, before
 * and after) and aclrtSetDeviceTaskAbortCallback (aclrtDeviceTaskAbort,
 * before and after). A NULL callback removes the name; a name registered
 * twice is refused (ACL_ERROR_RT_PARAM_INVALID), as in CANN. Callbacks run
 * in name order, on the thread that made the change, with no lock of the
 * library held. */
#ifndef ACLCUDA_CORE_STATECB_H
#define ACLCUDA_CORE_STATECB_H

#include <stdint.h>

#include "acl/acl.h"

typedef enum statecb_kind { STATECB_STREAM, STATECB_DEVICE, STATECB_TASK_ABORT } statecb_kind;

/* fn is the callback of the kind's type. Raises. */
aclError statecb_register(const char *api, statecb_kind kind, const char *name, void (*fn)(void),
                          void *args);
void statecb_device(int32_t device, aclrtDeviceState state);
/* The first nonzero value a callback returned, else 0. */
int32_t statecb_task_abort(int32_t device, aclrtDeviceTaskAbortStage stage, uint32_t timeout);

#endif
