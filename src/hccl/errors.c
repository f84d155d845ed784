/* Thread-local messages, the log and HcclGetErrorString. The log follows
 * CANN's variables as libascendcl's does (ASCEND_GLOBAL_LOG_LEVEL, 0 debug ..
 * 3 error, 4 off; ASCEND_MODULE_LOG_LEVEL's HCCL=n wins;
 * ASCEND_LOG_PRINT_TO_STDOUT=1): silent without them. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hccl/hccl_comm.h"
#include "hccl/engine.h"
#include "hccl/errors.h"

#define MESSAGE_BYTES 1024
#define LOG_ERROR_LEVEL 3

static _Thread_local char last_message[MESSAGE_BYTES];
static FILE *log_stream;
static bool log_errors;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static int parse_level(const char *s)
{
    if (!s || s[0] < '0' || s[0] > '4' || (s[1] != '\0' && s[1] != ':'))
        return -1;
    return s[0] - '0';
}

static void log_configure(void)
{
    int level = parse_level(getenv("ASCEND_GLOBAL_LOG_LEVEL"));
    const char *modules = getenv("ASCEND_MODULE_LOG_LEVEL");
    const char *mine = modules ? strstr(modules, "HCCL=") : NULL;
    if (mine && (mine == modules || mine[-1] == ':') && parse_level(mine + 5) >= 0)
        level = parse_level(mine + 5);
    const char *to_stdout = getenv("ASCEND_LOG_PRINT_TO_STDOUT");
    if (!to_stdout)
        to_stdout = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    bool stdout_wanted = to_stdout && !strcmp(to_stdout, "1");
    if (stdout_wanted && level < 0)
        level = LOG_ERROR_LEVEL;
    log_stream = stdout_wanted ? stdout : stderr;
    log_errors = level >= 0 && level <= LOG_ERROR_LEVEL;
}

static void log_error(const char *message)
{
    pthread_once(&log_once, log_configure);
    if (log_errors)
        fprintf(log_stream, "[ERROR] HCCL(%d): %s\n", (int)getpid(), message);
}

void hccl_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
}

void hccl_clear_error(void)
{
    last_message[0] = '\0';
}

const char *hccl_last_error(void)
{
    return last_message;
}

/* The message goes through a copy: fmt's arguments may be last_message. */
HcclResult hccl_raise(const char *api, HcclResult code, const char *fmt, ...)
{
    char text[MESSAGE_BYTES];
    int prefix = snprintf(text, sizeof text, "%s: ", api);
    if (prefix < 0 || (size_t)prefix >= sizeof text)
        prefix = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + prefix, sizeof text - (size_t)prefix, fmt, ap);
    va_end(ap);
    memcpy(last_message, text, sizeof last_message);
    log_error(last_message);
    return code;
}

HcclResult hccl_raise_engine(const char *api, HcclResult code)
{
    if (last_message[0] == '\0')
        return hccl_raise(api, code, "the collective engine failed with %s",
                          hccl_result_name(code) ? hccl_result_name(code) : "an unknown code");
    return hccl_raise(api, code, "%s", last_message);
}

void hccl_warn(const char *fmt, ...)
{
    char text[MESSAGE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[WARNING] HCCL(%d): %s\n", (int)getpid(), text);
}

const char *hccl_result_name(HcclResult code)
{
    switch (code) {
#define NAME(c)                                                                                    \
    case c:                                                                                        \
        return #c;
        NAME(HCCL_SUCCESS)
        NAME(HCCL_E_PARA)
        NAME(HCCL_E_PTR)
        NAME(HCCL_E_MEMORY)
        NAME(HCCL_E_INTERNAL)
        NAME(HCCL_E_NOT_SUPPORT)
        NAME(HCCL_E_NOT_FOUND)
        NAME(HCCL_E_UNAVAIL)
        NAME(HCCL_E_SYSCALL)
        NAME(HCCL_E_TIMEOUT)
        NAME(HCCL_E_OPEN_FILE_FAILURE)
        NAME(HCCL_E_TCP_CONNECT)
        NAME(HCCL_E_ROCE_CONNECT)
        NAME(HCCL_E_TCP_TRANSFER)
        NAME(HCCL_E_ROCE_TRANSFER)
        NAME(HCCL_E_RUNTIME)
        NAME(HCCL_E_DRV)
        NAME(HCCL_E_PROFILING)
        NAME(HCCL_E_CCE)
        NAME(HCCL_E_NETWORK)
        NAME(HCCL_E_AGAIN)
        NAME(HCCL_E_REMOTE)
        NAME(HCCL_E_SUSPENDING)
        NAME(HCCL_E_OPRETRY_FAIL)
        NAME(HCCL_E_OOM)
        NAME(HCCL_E_IN_STATUS)
#undef NAME
    default:
        return NULL;
    }
}

HCCL_EXPORT const char *HcclGetErrorString(HcclResult code)
{
    const char *name = hccl_result_name(code);
    return name ? name : "unknown HcclResult";
}
