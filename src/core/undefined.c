#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/undefined.h"
#include "util/log.h"

static atomic_bool config_strict;
static bool env_strict;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void read_env(void)
{
    const char *value = getenv("ACLCUDA_STRICT");
    env_strict = value != NULL && strcmp(value, "1") == 0;
}

bool undefined_strict(void)
{
    pthread_once(&env_once, read_env);
    return env_strict || atomic_load_explicit(&config_strict, memory_order_relaxed);
}

void undefined_set_strict_config(bool strict)
{
    atomic_store(&config_strict, strict);
}

/* Call sites already warned about, by a hash of (site, api, use): an open
 * table filled without locks. A collision only costs a warning; once the
 * table is full, new sites go unreported (said once). */
enum { SEEN_SLOTS = 1024 };
static _Atomic uint64_t seen[SEEN_SLOTS];
static atomic_bool seen_full;

static uint64_t site_key(const void *site, const char *api, undefined_use use)
{
    uint64_t k = (uint64_t)(uintptr_t)site * UINT64_C(0x9E3779B97F4A7C15);
    k ^= (uint64_t)(uintptr_t)api * UINT64_C(0xC2B2AE3D27D4EB4F);
    k ^= (uint64_t)use + 1;
    k ^= k >> 29;
    return k | 1; /* 0 marks a free slot */
}

/* Whether this is the first time the key is seen. */
static bool first_sighting(uint64_t key)
{
    for (unsigned probe = 0; probe < SEEN_SLOTS; probe++) {
        _Atomic uint64_t *slot = &seen[(key + probe) % SEEN_SLOTS];
        uint64_t held = atomic_load_explicit(slot, memory_order_relaxed);
        if (held == key)
            return false;
        if (held == 0) {
            if (atomic_compare_exchange_strong(slot, &held, key))
                return true;
            if (held == key)
                return false;
        }
    }
    if (!atomic_exchange(&seen_full, true))
        acl_log(LOG_WARNING, "undefined_use_check",
                "more than %d call sites used ACL in ways its reference leaves undefined; "
                "further ones are not reported",
                SEEN_SLOTS);
    return false;
}

aclError undefined_use_check(const char *api, const void *site, undefined_use use, aclError code,
                             const char *fmt, ...)
{
    bool strict = undefined_strict();
    if (!strict && (!acl_log_enabled(LOG_WARNING) || !first_sighting(site_key(site, api, use))))
        return ACL_SUCCESS;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (strict)
        return acl_raise(api, code, "%s", message);
    static const char *const done[] = {
        [UNDEFINED_COPY_KIND] = "copied as the pointers say",
        [UNDEFINED_FILL_HOST] = "filled as host memory",
        [UNDEFINED_EVENT_RESET] = "reset, as CANN's runtime does",
    };
    acl_log(LOG_WARNING, api,
            "%s; %s (the API reference leaves this undefined; ACLCUDA_STRICT=1 refuses it), "
            "called from %p",
            message, done[use], site);
    return ACL_SUCCESS;
}
