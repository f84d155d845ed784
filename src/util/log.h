/* Logging, configured the way CANN's is (see log.c). Silent by default. */
#ifndef ACLCUDA_UTIL_LOG_H
#define ACLCUDA_UTIL_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARNING = 2, LOG_ERROR = 3, LOG_NULL = 4 };

bool acl_log_enabled(int level);
void acl_log(int level, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void acl_vlog(int level, const char *func, const char *fmt, va_list ap);

/* Records of a module by id (CANN's module ids, or an application's
 * 0xff00..0xffff): ASCEND_MODULE_LOG_LEVEL names CANN's modules. */
bool acl_log_module_enabled(int module, int level);
void acl_vlog_module(int module, int level, const char *fmt, va_list ap);

/* Callbacks given every record written, as its line (length bytes, not
 * terminated in the count): LOG_SINK_DEBUG ones every record, LOG_SINK_RUN
 * ones every record but DEBUG, LOG_SINK_BOTH as DEBUG. While one is
 * registered, records of ERROR (or the configured level) and above are
 * made even with no output configured. add: 0 when 16 are registered. */
enum { LOG_SINK_DEBUG = 0, LOG_SINK_RUN = 1, LOG_SINK_BOTH = 2 };
typedef int32_t (*log_sink_fn)(void *user, uint32_t type, const char *line, size_t length);
uintptr_t log_sink_add(log_sink_fn fn, void *user, uint32_t type);
bool log_sink_remove(uintptr_t handle);

#define ACL_LOG(level, ...)                                                                        \
    do {                                                                                           \
        if (acl_log_enabled(level))                                                                \
            acl_log((level), __func__, __VA_ARGS__);                                               \
    } while (0)

#endif
