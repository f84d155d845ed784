/* Words that stream tasks wait on: value waits (aclrtValueWait) and notify
 * waits. A worker that changes such a word (a value write, a notify record)
 * bumps one process-wide generation and wakes every watcher; each watcher
 * then tests its own word. A word may also change behind the library's
 * back (the application stores to it, or another process does to a shared
 * notify), so watchers never sleep longer than WATCH_POLL_MAX_NS at a time,
 * starting with short sleeps after a brief spin.
 *
 * Lock: watch_lock, of the backend's rank; no other lock is taken under
 * it, and ready() runs without it. */
#include <errno.h>

#include "backend/host/host.h"
#include "util/clock.h"
#include "util/fork.h"
#include "util/spin.h"

enum {
    WATCH_SPIN_NS = 20 * 1000,       /* spin this long before sleeping */
    WATCH_POLL_FIRST_NS = 50 * 1000, /* first sleep between polls */
};

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond;
static atomic_uint watch_generation;
static atomic_int watchers; /* sleeping on watch_cond: wake-ups are skipped when none */

static void watch_cond_init(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&watch_cond, &attr);
    pthread_condattr_destroy(&attr);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&watch_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&watch_lock);
}

static void fork_child(void)
{
    atomic_store(&watchers, 0); /* they were threads of the parent */
    watch_cond_init();
    pthread_mutex_unlock(&watch_lock);
}

__attribute__((constructor)) static void watch_init(void)
{
    watch_cond_init();
    fork_register(FORK_RANK_BACKEND, fork_prepare, fork_parent, fork_child);
}

void host_watch_changed(void)
{
    /* Sequentially consistent, as the watcher's increment of watchers and
     * its second read of the generation: one of the two sees the other. */
    atomic_fetch_add(&watch_generation, 1);
    if (atomic_load(&watchers) == 0)
        return;
    pthread_mutex_lock(&watch_lock);
    pthread_cond_broadcast(&watch_cond);
    pthread_mutex_unlock(&watch_lock);
}

/* Sequentially consistent loads: see take(). */
bool watch_stopped(const watch_stop *stop)
{
    return stop && (atomic_load(stop->abort_gen) != stop->gen ||
                    atomic_load(stop->cancelled_to) >= stop->seq);
}

void watch_stopper_settle(const atomic_bool *testing)
{
    for (unsigned i = 0; atomic_load(testing); i++)
        spin_step(i);
}

typedef enum take_result { TAKE_NONE, TAKE_READY, TAKE_STOPPED } take_result;

/* Stopped is tested first: a cancelled wait must not take a notify's record
 * from another waiter. The flag makes the test and the take one step for
 * the stopper: it moves the stop, then reads the flag (both sequentially
 * consistent), so either this test sees the stop or the stopper sees the
 * flag and waits until ready() is over. Either way a record made after the
 * stopper returns is left for the next waiter. */
static take_result take(bool (*ready)(void *ctx), void *ctx, const watch_stop *stop)
{
    if (!stop)
        return ready(ctx) ? TAKE_READY : TAKE_NONE;
    if (stop->testing)
        atomic_store(stop->testing, true);
    take_result r = watch_stopped(stop) ? TAKE_STOPPED : ready(ctx) ? TAKE_READY : TAKE_NONE;
    if (stop->testing)
        atomic_store_explicit(stop->testing, false, memory_order_release);
    return r;
}

watch_result host_watch(bool (*ready)(void *ctx), void *ctx, int64_t deadline_ns,
                        const watch_stop *stop)
{
    int64_t spin_end = monotonic_ns() + WATCH_SPIN_NS;
    for (unsigned i = 0;; i++) {
        take_result r = take(ready, ctx, stop);
        if (r != TAKE_NONE)
            return r == TAKE_READY ? WATCH_READY : WATCH_ABORTED;
        if (i % 16 == 15 && monotonic_ns() >= spin_end)
            break;
        spin_step(i);
    }
    int64_t delay = WATCH_POLL_FIRST_NS;
    for (;;) {
        unsigned seen = atomic_load_explicit(&watch_generation, memory_order_acquire);
        take_result r = take(ready, ctx, stop);
        if (r != TAKE_NONE)
            return r == TAKE_READY ? WATCH_READY : WATCH_ABORTED;
        int64_t now = monotonic_ns();
        if (deadline_ns >= 0 && now >= deadline_ns)
            return WATCH_TIMEOUT;
        int64_t until = now + delay;
        if (deadline_ns >= 0 && until > deadline_ns)
            until = deadline_ns;
        struct timespec ts = {.tv_sec = until / 1000000000, .tv_nsec = until % 1000000000};
        pthread_mutex_lock(&watch_lock);
        atomic_fetch_add(&watchers, 1);
        /* A change announced since `seen` was read is not slept through. */
        if (atomic_load(&watch_generation) == seen)
            (void)pthread_cond_timedwait(&watch_cond, &watch_lock, &ts);
        atomic_fetch_sub_explicit(&watchers, 1, memory_order_acq_rel);
        pthread_mutex_unlock(&watch_lock);
        delay = delay * 2 < WATCH_POLL_MAX_NS ? delay * 2 : WATCH_POLL_MAX_NS;
    }
}
