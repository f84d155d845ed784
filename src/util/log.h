/* Logging, configured the way CANN's is (see log.c). Silent by default. */
#ifndef ACLCUDA_UTIL_LOG_H
#define ACLCUDA_UTIL_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARNING = 2, LOG_ERROR = 3, LOG_NULL = 4 };

bool acl_log_enabled(int level);
void acl_log(int level, const char *func, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void acl_vlog(int level, const char *func, const char *fmt, va_list ap);

#define ACL_LOG(level, ...)                                                                  \
    do {                                                                                     \
        if (acl_log_enabled(level))                                                          \
            acl_log((level), __func__, __VA_ARGS__);                                         \
    } while (0)

#endif
