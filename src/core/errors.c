/* Error codes, messages for aclGetRecentErrMsg, and the last-error code.
 *
 * Messages pile up until read, newest first, one per line. They live in the
 * failing thread by default, or in one process-wide buffer when aclInit's
 * config says err_msg_mode "1". aclGetRecentErrMsg hands out a copy owned by
 * the reading thread, valid until that thread's next call, as ACL documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "core/errors.h"
#include "util/fork.h"
#include "util/log.h"

typedef struct error_entry {
    aclError code;
    const char *name;
    const char *text;
} error_entry;

static const error_entry error_table[] = {
#define ACL_CODE(name, value, text) {(value), #name, (text)},
#include "error_table.def"
#undef ACL_CODE
};

static const error_entry *find_entry(aclError code)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == code)
            return &error_table[i];
    return NULL;
}

const char *acl_error_name(aclError code)
{
    const error_entry *e = find_entry(code);
    return e ? e->name : NULL;
}

const char *acl_error_text(aclError code)
{
    const error_entry *e = find_entry(code);
    return e ? e->text : "unknown error";
}

/* Pending text is capped so that a program that never reads it does not
 * grow without bound; the oldest lines go first. */
enum { PENDING_CAP = 16 * 1024 };

typedef struct msg_buffer {
    char *text; /* NUL-terminated, newest line first */
    size_t len;
} msg_buffer;

static _Thread_local msg_buffer thread_pending;
static _Thread_local char *thread_handed_out;
static _Thread_local aclError thread_last_error;

/* Frees a thread's unread messages when it exits. */
static pthread_key_t thread_exit_key;
static pthread_once_t thread_exit_once = PTHREAD_ONCE_INIT;

static void free_thread_messages(void *unused)
{
    (void)unused;
    free(thread_pending.text);
    thread_pending = (msg_buffer){0};
    free(thread_handed_out);
    thread_handed_out = NULL;
}

static void make_thread_exit_key(void)
{
    pthread_key_create(&thread_exit_key, free_thread_messages);
}

static void watch_thread_exit(void)
{
    pthread_once(&thread_exit_once, make_thread_exit_key);
    if (!pthread_getspecific(thread_exit_key))
        pthread_setspecific(thread_exit_key, &thread_pending);
}

static msg_buffer process_pending;
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool process_mode;

static void fork_prepare(void)
{
    pthread_mutex_lock(&process_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&process_lock);
}

__attribute__((constructor)) static void errors_fork_register(void)
{
    fork_register(FORK_RANK_ERRORS, fork_prepare, fork_done, fork_done);
}

void errors_set_process_mode(bool on)
{
    atomic_store(&process_mode, on);
}

static void buffer_prepend(msg_buffer *b, const char *line, size_t line_len)
{
    size_t keep = b->len;
    if (line_len + 1 + keep > PENDING_CAP) {
        keep = line_len + 1 >= PENDING_CAP ? 0 : PENDING_CAP - line_len - 1;
        while (keep > 0 && b->text[keep] != '\n')
            keep--; /* cut at a line boundary */
    }
    size_t sep = keep > 0 ? 1 : 0;
    char *text = malloc(line_len + sep + keep + 1);
    if (!text)
        return; /* a message is not worth failing the call over */
    watch_thread_exit();
    memcpy(text, line, line_len);
    if (sep)
        text[line_len] = '\n';
    if (keep)
        memcpy(text + line_len + sep, b->text, keep);
    text[line_len + sep + keep] = '\0';
    free(b->text);
    b->text = text;
    b->len = line_len + sep + keep;
}

aclError acl_raise(const char *api, aclError code, const char *fmt, ...)
{
    char detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);

    const char *name = acl_error_name(code);
    char line[1024];
    int n = snprintf(line, sizeof line, "%s failed with %s (%d): %s", api,
                     name ? name : "error", (int)code, detail);
    size_t len = n < 0 ? 0 : ((size_t)n < sizeof line ? (size_t)n : sizeof line - 1);

    thread_last_error = code;
    if (atomic_load(&process_mode)) {
        pthread_mutex_lock(&process_lock);
        buffer_prepend(&process_pending, line, len);
        pthread_mutex_unlock(&process_lock);
    } else {
        buffer_prepend(&thread_pending, line, len);
    }
    if (acl_log_enabled(LOG_ERROR))
        acl_log(LOG_ERROR, api, "%s", line);
    return code;
}

aclError acl_unsupported(const char *api)
{
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "%s is not implemented by acl-cuda (see docs/api-coverage.md)", api);
}

const char *errors_take_messages(void)
{
    msg_buffer taken = {0};
    if (atomic_load(&process_mode)) {
        pthread_mutex_lock(&process_lock);
        taken = process_pending;
        process_pending = (msg_buffer){0};
        pthread_mutex_unlock(&process_lock);
    }
    if (thread_pending.text) {
        /* Messages written before the mode changed still belong to us. */
        if (taken.text) {
            buffer_prepend(&thread_pending, taken.text, taken.len);
            free(taken.text);
        }
        taken = thread_pending;
        thread_pending = (msg_buffer){0};
    }
    free(thread_handed_out);
    thread_handed_out = taken.text;
    return thread_handed_out;
}

aclError errors_last(bool clear)
{
    aclError code = thread_last_error;
    if (clear)
        thread_last_error = ACL_SUCCESS;
    return code;
}
