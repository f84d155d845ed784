/* libhccl's errors: every public function that fails records a message
 * naming itself (HCCL_RAISE), kept per thread for hccl_last_error and written
 * to the log; engines describe their own failures with hccl_set_error
 * (engine.h) and the API layer prefixes the function's name. */
#ifndef ACLCUDA_HCCL_ERRORS_H
#define ACLCUDA_HCCL_ERRORS_H

#include "hccl/hccl_types.h"

/* Only the functions of CANN's headers leave the library. */
#define HCCL_EXPORT __attribute__((visibility("default")))

/* Records "api: message" and returns code. */
HcclResult hccl_raise(const char *api, HcclResult code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define HCCL_RAISE(code, ...) hccl_raise(__func__, (code), __VA_ARGS__)

/* An engine call failed with code: records "api: " + the engine's message
 * (set since the last hccl_clear_error), or the code's name if it gave none. */
HcclResult hccl_raise_engine(const char *api, HcclResult code);

/* The message of the most recent failure on this thread ("" if none). */
const char *hccl_last_error(void);
void hccl_clear_error(void);

/* A mistake the program goes on past (a bad environment value): one line on
 * stderr, whatever the log level, since it changes what the program does. */
void hccl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* CANN's name of code ("HCCL_E_PARA"), or NULL for a value that is none. */
const char *hccl_result_name(HcclResult code);

#endif
