/* Shared internals of the ACL semantics layer. */
#ifndef ACLCUDA_INTERNAL_H
#define ACLCUDA_INTERNAL_H

#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "backend.h"

#define ACL_EXPORT __attribute__((visibility("default")))

/* One step of a spin-wait, the i-th: a CPU pause, and every 64th step a
 * yield, so that a spinner on a machine with fewer cores than busy threads
 * does not starve the thread it waits for. */
static inline void acl_spin_step(unsigned i)
{
    if (i % 64 == 63) {
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* ---- errors (errors.c) ------------------------------------------------ */

/* Records code as the thread's last error and appends a message for
 * aclGetRecentErrMsg, prefixed with the failing function. Returns code. */
aclError acl_raise(const char *func, aclError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define ACL_RAISE(code, ...) acl_raise(__func__, (code), __VA_ARGS__)

/* The ACL name of a code ("ACL_ERROR_RT_PARAM_INVALID"), or NULL. */
const char *acl_error_name(aclError code);
/* Its one-line description, or "unknown error". */
const char *acl_error_text(aclError code);
/* process-level (err_msg_mode "1") or thread-level messages. */
void acl_errors_set_process_mode(bool process_mode);
/* Marks a function that this library declares but does not implement. */
aclError acl_unsupported(const char *func);

/* ---- logging (log.c) ---------------------------------------------------- */

enum { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARNING = 2, LOG_ERROR = 3, LOG_NULL = 4 };
bool acl_log_enabled(int level);
void acl_log(int level, const char *func, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define ACL_LOG(level, ...)                                                                  \
    do {                                                                                     \
        if (acl_log_enabled(level))                                                          \
            acl_log((level), __func__, __VA_ARGS__);                                         \
    } while (0)

/* ---- handles (handle.c) ---------------------------------------------------
 * Every handle given to the user is one of our structs starting with a magic
 * word, and is registered in a process-wide set while alive. The set keeps
 * each handle's magic beside it, so a lookup never touches the handle's
 * memory: NULL, foreign and destroyed handles are told apart from live ones
 * without undefined behaviour. Lookups take no lock. */

enum {
    MAGIC_CONTEXT = 0x41434C43u, /* "ACLC" */
    MAGIC_STREAM = 0x41434C53u,  /* "ACLS" */
    MAGIC_EVENT = 0x41434C45u,   /* "ACLE" */
    MAGIC_BUFFER = 0x41434C42u,  /* "ACLB" */
};

/* Reads the magic of h, which must be set. ACL_ERROR_RT_MEMORY_ALLOCATION if
 * the set cannot grow: h is then not registered. */
aclError handle_register(void *h);
void handle_unregister(void *h);
/* h if it is a live handle whose first word is magic, else NULL. */
void *handle_lookup(const void *h, uint32_t magic);
/* Which kind a live handle is (its magic), 0 if it is not one. */
uint32_t handle_kind(const void *h);

/* False when ACLCUDA_BACKEND=cuda was asked for but cannot work: the process
 * then has no devices. */
bool backend_usable(void);

/* ---- devices and contexts (device.c, context.c) --------------------------- */

typedef struct acl_stream acl_stream;

typedef struct acl_context {
    uint32_t magic;
    uint64_t serial;     /* tells a reused address from the context a thread bound */
    int32_t device;      /* user-visible id */
    int32_t phys;        /* backend device index */
    bool is_default;     /* the device's primary context, made by SetDevice */
    acl_stream *default_stream;
    acl_stream *streams; /* every stream of the context, default included */
    struct acl_context *next_on_device;
    int64_t sys_params[4];
    uint32_t sys_params_set; /* bit per aclSysParamOpt */
} acl_context;

/* Guards device states, context lists and stream lists (not hot paths). */
extern pthread_mutex_t registry_lock;

/* Translates a user device id (after ASCEND_RT_VISIBLE_DEVICES) to the
 * backend's index. Returns ACL_ERROR_RT_INVALID_DEVICEID if out of range. */
aclError device_to_phys(int32_t device, int32_t *phys);
int32_t device_visible_count(void);
/* The calling thread's current context, or NULL. When the thread has none
 * and aclInit configured defaultDevice, that device is set implicitly. */
acl_context *context_current(void);
/* context_current() or a raised ACL_ERROR_RT_CONTEXT_NULL. */
aclError context_require(const char *func, acl_context **out);
void context_set_current(acl_context *ctx);
/* Makes a context with its default stream and links it to its device. */
aclError context_create(const char *func, int32_t device, int32_t phys, bool is_default,
                        acl_context **out);
/* Waits for and frees its streams, unlinks and frees it. */
void context_destroy(acl_context *ctx);
void device_link_context(acl_context *ctx);
void device_unlink_context(acl_context *ctx);
/* Waits for the work of every stream on the device (all contexts). */
aclError device_synchronize(int32_t phys, int32_t timeout_ms);
/* Head of the device's context list; registry_lock must be held. */
acl_context *device_contexts(int32_t phys);
/* Called by aclFinalize: releases every device still set. */
void device_release_all(void);

/* ---- streams (stream.c) ------------------------------------------------------ */

typedef struct report_thread report_thread;

struct acl_stream {
    uint32_t magic;
    acl_context *ctx;
    backend_stream *bs;
    int32_t id;
    uint32_t flags;
    uint32_t priority;
    uint64_t failure_mode;
    uint32_t overflow_switch;
    uint32_t user_custom_tag;
    uint32_t cache_op_info;
    _Atomic(report_thread *) subscriber; /* callback.c */
    acl_stream *next, *prev;              /* device stream list */
};

/* NULL -> the current context's default stream. Raises on failure. */
aclError stream_resolve(const char *func, aclrtStream handle, acl_stream **out);
/* Creates a stream in ctx (used for default streams too); priority is ACL's
 * 0 (highest) .. 7. Raises on failure. */
aclError stream_new(const char *func, acl_context *ctx, uint32_t priority, uint32_t flags,
                    acl_stream **out);
/* Frees every stream of ctx, the default one included, after their work. */
void stream_free_context(acl_context *ctx);

/* The backend's event behind a live event handle, or NULL (event.c). */
void *event_native(aclrtEvent handle);

/* ---- memory registry (memory.c) ------------------------------------------------
 * Every allocation made through ACL, so that copies know where pointers live
 * and frees of foreign pointers are errors. */

typedef enum mem_kind { MEM_UNKNOWN = 0, MEM_DEVICE, MEM_HOST_PINNED } mem_kind;
mem_kind memory_kind_of(const void *ptr, int32_t *phys);
/* Device phys was reset, or every device (at aclFinalize): memory freed
 * inside callbacks goes back now. */
void memory_device_released(int32_t phys);
void memory_all_released(void);

/* ---- callbacks (callback.c) ---------------------------------------------------- */

/* True on a report thread while it runs a callback. memory.c hands the
 * frees made there to a thread of its own: on CUDA a free waits for the
 * device to go idle, which a BLOCK callback's stream cannot do before the
 * callback (and any BLOCK callback queued behind it) has run. */
bool callback_running(void);

/* Drops the stream's subscription; queued callbacks are run or reported. */
void callback_stream_gone(acl_stream *s);

/* ---- init (init.c) ----------------------------------------------------------------- */

/* The defaultDevice from aclInit's config, or -1. */
int32_t config_default_device(void);

/* ---- small helpers ------------------------------------------------------------------ */

/* Absolute CLOCK_MONOTONIC deadline timeout_ms from now; for timed waits. */
void deadline_after_ms(struct timespec *ts, int64_t timeout_ms);

#endif
