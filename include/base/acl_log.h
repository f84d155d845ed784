/*
 * acl-cuda: logging for applications and callbacks that see every record
 * (CANN's base/acl_log.h). Names, values and prototypes are CANN's; the
 * text is acl-cuda's own.
 *
 * Records go through acl-cuda's log, configured as CANN's is
 * (ASCEND_GLOBAL_LOG_LEVEL, ASCEND_MODULE_LOG_LEVEL,
 * ASCEND_LOG_PRINT_TO_STDOUT; docs/porting.md). A registered callback
 * receives every record written, the library's own included.
 */
#ifndef ACL_LOG_H_
#define ACL_LOG_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "log_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uintptr_t acllogCallbackHandle;

/* Which records a callback receives. */
typedef enum {
    OUTPUT_TYPE_DEBUG = 0,
    OUTPUT_TYPE_RUN = 1,
    OUTPUT_TYPE_BOTH = 2,
    OUTPUT_TYPE_MAX
} acllogOutputLogType;

/* Called with each record's text (length bytes, no terminator counted);
 * its result is ignored. */
typedef int32_t (*acllogRecordCallback)(void *userData, uint32_t outputLogType,
                                        const char *logContent, size_t length);

/* 0 on success, -1 on failure (a NULL callback or handle, a bad type, or
 * 16 callbacks registered already). */
LOG_FUNC_VISIBILITY int32_t acllogRegisterCallback(acllogRecordCallback callbackFunc,
                                                   void *userData, uint32_t outputLogType,
                                                   acllogCallbackHandle *callbackHandle);
/* 0 on success, -1 for a handle not registered. */
LOG_FUNC_VISIBILITY int32_t acllogUnregisterCallback(acllogCallbackHandle callback);

/* 1 when a record of logLevel for moduleId would be written, else 0. */
LOG_FUNC_VISIBILITY int32_t acllogCheckDebugLevel(int32_t moduleId, int32_t logLevel)
    __attribute((weak));

/* A record of an application's module (0xff00 to 0xffff) at level. */
LOG_FUNC_VISIBILITY void acllogRecord(int32_t moduleId, int32_t level, const char *fmt, ...)
    __attribute((weak)) __attribute__((format(printf, 3, 4)));
LOG_FUNC_VISIBILITY void acllogVaList(int32_t moduleId, int32_t level, const char *fmt,
                                      va_list list) __attribute((weak));

#ifdef __cplusplus
}
#endif

#endif /* ACL_LOG_H_ */
