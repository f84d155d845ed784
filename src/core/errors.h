/* ACL error codes with their messages, as the user sees them through
 * aclGetRecentErrMsg and aclrtGetLastError.
 *
 * Who raises. A public function (src/api) raises every error it returns,
 * with its own name: acl_raise(__func__, code, ...). Core functions return
 * bare codes, except those whose failure only they can describe; these
 * take the name of the public function being served as their first
 * argument (`const char *api`) and raise themselves, and their header says
 * so. The backend never raises. A public function never calls another
 * public function: both call the core. */
#ifndef ACLCUDA_CORE_ERRORS_H
#define ACLCUDA_CORE_ERRORS_H

#include <stdbool.h>

#include "acl/acl.h"

/* Records code as the thread's last error and appends a message for
 * aclGetRecentErrMsg, prefixed with api (the public function). Returns
 * code. */
aclError acl_raise(const char *api, aclError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define ACL_RAISE(code, ...) acl_raise(__func__, (code), __VA_ARGS__)

/* Raises ACL_ERROR_RT_FEATURE_NOT_SUPPORT for a declared function that
 * acl-cuda does not provide. */
aclError acl_unsupported(const char *api);

/* The ACL name of a code ("ACL_ERROR_RT_PARAM_INVALID"), or NULL. */
const char *acl_error_name(aclError code);
/* Its one-line description, or "unknown error". */
const char *acl_error_text(aclError code);

/* process-level (err_msg_mode "1") or thread-level messages. */
void errors_set_process_mode(bool process_mode);
/* Takes every message pending for the calling thread (and the process),
 * newest first; the text stays valid until the thread's next call. NULL
 * when there is none. */
const char *errors_take_messages(void);
/* The thread's last error code; clear resets it to ACL_SUCCESS. */
aclError errors_last(bool clear);

#endif
