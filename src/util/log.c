/* Logging, configured the way CANN's is: ASCEND_GLOBAL_LOG_LEVEL (0 debug ..
 * 3 error, 4 off), ASCEND_MODULE_LOG_LEVEL (ASCENDCL=n or RUNTIME=n wins over
 * the global level) and ASCEND_LOG_PRINT_TO_STDOUT=1 (or the older
 * ASCEND_SLOG_PRINT_TO_STDOUT). CANN writes log files by default; we write
 * none, so without any of these variables the library is silent, and with a
 * level but no stdout request it prints to stderr. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
static int log_threshold = LOG_NULL;
static FILE *log_stream;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static int parse_level(const char *s)
{
    if (!s || s[0] < '0' || s[0] > '4' || s[1] != '\0')
        return -1;
    return s[0] - '0';
}

/* The level given to ASCENDCL or RUNTIME in "MOD=n:MOD=n", or -1. */
static int module_level(const char *spec)
{
    int level = -1;
    while (spec && *spec) {
        const char *end = strchr(spec, ':');
        size_t len = end ? (size_t)(end - spec) : strlen(spec);
        const char *eq = memchr(spec, '=', len);
        if (eq && len - (size_t)(eq - spec) == 2) {
            size_t name_len = (size_t)(eq - spec);
            bool ours = (name_len == 8 && !strncmp(spec, "ASCENDCL", 8)) ||
                        (name_len == 7 && !strncmp(spec, "RUNTIME", 7));
            char digit[2] = {eq[1], '\0'};
            if (ours && parse_level(digit) >= 0)
                level = parse_level(digit);
        }
        spec = end ? end + 1 : NULL;
    }
    return level;
}

static void log_configure(void)
{
    const char *to_stdout = getenv("ASCEND_LOG_PRINT_TO_STDOUT");
    if (!to_stdout)
        to_stdout = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    int global = parse_level(getenv("ASCEND_GLOBAL_LOG_LEVEL"));
    int module = module_level(getenv("ASCEND_MODULE_LOG_LEVEL"));
    int level = module >= 0 ? module : global;

    if (to_stdout && !strcmp(to_stdout, "1")) {
        log_stream = stdout;
        log_threshold = level >= 0 ? level : LOG_ERROR;
    } else if (level >= 0) {
        log_stream = stderr;
        log_threshold = level;
    }
}

bool acl_log_enabled(int level)
{
    pthread_once(&log_once, log_configure);
    return level >= log_threshold && level < LOG_NULL;
}

void acl_vlog(int level, const char *func, const char *fmt, va_list ap)
{
    static const char *const names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    localtime_r(&now.tv_sec, &tm);

    char body[1024];
    vsnprintf(body, sizeof body, fmt, ap);
    /* One fprintf per line keeps lines whole when threads log together. */
    fprintf(log_stream, "[%s] ASCENDCL(%d,%ld) %04d-%02d-%02d-%02d:%02d:%02d.%03ld acl-cuda %s: %s\n",
            names[level], (int)getpid(), (long)syscall(SYS_gettid), tm.tm_year + 1900,
            tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
            now.tv_nsec / 1000000, func, body);
    fflush(log_stream);
}

void acl_log(int level, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    acl_vlog(level, func, fmt, ap);
    va_end(ap);
}
