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

#include <stdatomic.h>

/* A record's line: CANN cuts records at 1024 bytes; the prefix comes on top. */
enum { MSG_LINE_MAX = 1024 + 256 };

/* The names of CANN's modules the log knows by name (base/log_types.h);
 * others, an application's included, are written as numbers. */
static const char *module_name(int module)
{
    switch (module) {
    case 0:
        return "SLOG";
    case 3:
        return "HCCL";
    case 6:
        return "DVPP";
    case 7:
        return "RUNTIME";
    case 31:
        return "PROFILING";
    case 33:
        return "APP";
    case 45:
        return "GE";
    case 48:
        return "ASCENDCL";
    default:
        return NULL;
    }
}
static int log_threshold = LOG_NULL; /* of the stream */
static int level_configured = -1;    /* ASCEND_*_LOG_LEVEL's, -1 when unset */
static FILE *log_stream;
/* Callbacks that receive every record (acllogRegisterCallback). */
enum { LOG_SINK_MAX = 16 };
typedef struct log_sink {
    log_sink_fn fn;
    void *user;
    uint32_t type;
    uintptr_t handle;
} log_sink;
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static log_sink sinks[LOG_SINK_MAX];
static atomic_int sink_count;
static uintptr_t next_sink_handle = 1;
static _Thread_local bool in_sink;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static int parse_level(const char *s)
{
    if (!s || s[0] < '0' || s[0] > '4' || s[1] != '\0')
        return -1;
    return s[0] - '0';
}

/* The level "MOD=n:MOD=n" gives module name, or -1. */
static int named_level(const char *spec, const char *name)
{
    int level = -1;
    size_t want = strlen(name);
    while (spec && *spec) {
        const char *end = strchr(spec, ':');
        size_t len = end ? (size_t)(end - spec) : strlen(spec);
        const char *eq = memchr(spec, '=', len);
        if (eq && len - (size_t)(eq - spec) == 2 && (size_t)(eq - spec) == want &&
            !strncmp(spec, name, want)) {
            char digit[2] = {eq[1], '\0'};
            if (parse_level(digit) >= 0)
                level = parse_level(digit);
        }
        spec = end ? end + 1 : NULL;
    }
    return level;
}

/* The level given to ASCENDCL or RUNTIME, or -1. */
static int module_level(const char *spec)
{
    int ascendcl = named_level(spec, "ASCENDCL");
    return ascendcl >= 0 ? ascendcl : named_level(spec, "RUNTIME");
}

static void log_configure(void)
{
    const char *to_stdout = getenv("ASCEND_LOG_PRINT_TO_STDOUT");
    if (!to_stdout)
        to_stdout = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    int global = parse_level(getenv("ASCEND_GLOBAL_LOG_LEVEL"));
    int module = module_level(getenv("ASCEND_MODULE_LOG_LEVEL"));
    int level = module >= 0 ? module : global;
    level_configured = level;

    if (to_stdout && !strcmp(to_stdout, "1")) {
        log_stream = stdout;
        log_threshold = level >= 0 ? level : LOG_ERROR;
    } else if (level >= 0) {
        log_stream = stderr;
        log_threshold = level;
    }
}

/* The level callbacks get records from: the configured one, else ERROR
 * (CANN's default). */
static int sink_threshold(void)
{
    return level_configured >= 0 ? level_configured : LOG_ERROR;
}

bool acl_log_enabled(int level)
{
    pthread_once(&log_once, log_configure);
    if (level < 0 || level >= LOG_NULL)
        return false;
    return level >= log_threshold || (atomic_load_explicit(&sink_count, memory_order_relaxed) > 0 &&
                                      level >= sink_threshold());
}

bool acl_log_module_enabled(int module, int level)
{
    pthread_once(&log_once, log_configure);
    if (level < 0 || level >= LOG_NULL)
        return false;
    const char *name = module_name(module);
    int threshold = name ? named_level(getenv("ASCEND_MODULE_LOG_LEVEL"), name) : -1;
    if (threshold < 0)
        threshold = level_configured;
    if (threshold < 0)
        threshold = log_stream || atomic_load(&sink_count) > 0 ? LOG_ERROR : LOG_NULL;
    return level >= threshold;
}

uintptr_t log_sink_add(log_sink_fn fn, void *user, uint32_t type)
{
    uintptr_t handle = 0;
    pthread_mutex_lock(&sink_lock);
    int n = atomic_load(&sink_count);
    if (n < LOG_SINK_MAX) {
        handle = next_sink_handle++;
        sinks[n] = (log_sink){fn, user, type, handle};
        atomic_store(&sink_count, n + 1);
    }
    pthread_mutex_unlock(&sink_lock);
    return handle;
}

bool log_sink_remove(uintptr_t handle)
{
    bool found = false;
    pthread_mutex_lock(&sink_lock);
    int n = atomic_load(&sink_count);
    for (int i = 0; i < n; i++) {
        if (sinks[i].handle == handle) {
            sinks[i] = sinks[n - 1];
            atomic_store(&sink_count, n - 1);
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&sink_lock);
    return found;
}

/* Hands a record to the callbacks: those for debug records get every one,
 * those for run records every one but DEBUG (CANN's run log has none). */
static void sinks_emit(int level, const char *line, size_t length)
{
    if (atomic_load_explicit(&sink_count, memory_order_relaxed) == 0 || in_sink ||
        level < sink_threshold())
        return;
    log_sink copy[LOG_SINK_MAX];
    pthread_mutex_lock(&sink_lock);
    int n = atomic_load(&sink_count);
    memcpy(copy, sinks, (size_t)n * sizeof copy[0]);
    pthread_mutex_unlock(&sink_lock);
    in_sink = true;
    for (int i = 0; i < n; i++) {
        uint32_t type = copy[i].type == LOG_SINK_RUN ? LOG_SINK_RUN : LOG_SINK_DEBUG;
        if (type == LOG_SINK_RUN && level == LOG_DEBUG)
            continue;
        (void)copy[i].fn(copy[i].user, type, line, length);
    }
    in_sink = false;
}

/* Writes one record: to the stream when its level passes, and to the
 * callbacks. */
static void emit(int level, const char *module, const char *func, const char *body)
{
    static const char *const names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    localtime_r(&now.tv_sec, &tm);
    char line[MSG_LINE_MAX];
    int n =
        snprintf(line, sizeof line, "[%s] %s(%d,%ld) %04d-%02d-%02d-%02d:%02d:%02d.%03ld %s%s%s\n",
                 names[level], module, (int)getpid(), (long)syscall(SYS_gettid), tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, now.tv_nsec / 1000000,
                 func ? func : "", func ? ": " : "", body);
    size_t length = n < 0 ? 0 : (size_t)n >= sizeof line ? sizeof line - 1 : (size_t)n;
    /* One fputs per line keeps lines whole when threads log together. */
    if (log_stream && level >= log_threshold) {
        fputs(line, log_stream);
        fflush(log_stream);
    }
    sinks_emit(level, line, length);
}

void acl_vlog(int level, const char *func, const char *fmt, va_list ap)
{
    if (level < 0 || level >= LOG_NULL)
        return;
    char body[1024];
    vsnprintf(body, sizeof body, fmt, ap);
    char where[256];
    snprintf(where, sizeof where, "acl-cuda %s", func);
    emit(level, "ASCENDCL", where, body);
}

void acl_vlog_module(int module, int level, const char *fmt, va_list ap)
{
    if (!acl_log_module_enabled(module, level))
        return;
    char body[1024];
    vsnprintf(body, sizeof body, fmt, ap);
    const char *name = module_name(module);
    char number[16];
    if (!name) {
        snprintf(number, sizeof number, "%d", module);
        name = number;
    }
    emit(level, name, NULL, body);
}

void acl_log(int level, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    acl_vlog(level, func, fmt, ap);
    va_end(ap);
}
