/* Uses of ACL that its reference leaves undefined, but that code written
 * for Ascend relies on (CANN's own samples among it): a copy kind that
 * contradicts where the pointers live, a fill of host memory no ACL
 * allocator made, a reset of an event made by aclrtCreateEvent. One policy
 * decides them all:
 *
 * - by default acl-cuda does what the pointers say and logs a warning
 *   (util/log.h) once per call site: per return address of the public
 *   function, per function and use (a caller from Python is one site, the
 *   interpreter's foreign-function call);
 * - in strict mode (ACLCUDA_STRICT=1 in the environment, or
 *   "acl_cuda": {"strict": 1} in aclInit's configuration) it refuses them
 *   with the error and message it gives when refusing, a porting check. */
#ifndef ACLCUDA_CORE_UNDEFINED_H
#define ACLCUDA_CORE_UNDEFINED_H

#include <stdbool.h>

#include "acl/acl.h"

typedef enum undefined_use {
    UNDEFINED_COPY_KIND,   /* a copy kind that contradicts the pointers */
    UNDEFINED_FILL_HOST,   /* a fill of host memory no ACL allocator made */
    UNDEFINED_EVENT_RESET, /* aclrtResetEvent of an aclrtCreateEvent event */
} undefined_use;

/* Where the user called the public function from, passed down to
 * undefined_use: its return address. Use it in the public function itself. */
#define CALL_SITE() __builtin_return_address(0)

/* Whether undefined uses are refused. */
bool undefined_strict(void);
/* The strict key of aclInit's configuration, until aclFinalize clears it. */
void undefined_set_strict_config(bool strict);

/* The policy: in strict mode raises code with the message (api names the
 * public function) and returns it; otherwise logs the message as a warning
 * once per (site, api, use) and returns ACL_SUCCESS, and the caller does
 * what the pointers say. */
aclError undefined_use_check(const char *api, const void *site, undefined_use use, aclError code,
                             const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
