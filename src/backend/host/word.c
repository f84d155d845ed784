/* The host backend's notify words: a 32-bit word in process memory (or,
 * once shared, in memory shared with other processes), what a record task
 * does to it and what a wait task tests. A plain notify's word is a flag: a
 * record sets it to 1, a wait waits for 1 and takes it back to 0 in one
 * compare-and-swap, so that of two waiters only one consumes a record. A
 * counting notify's word is its count.
 *
 * A forked child takes its shared words back into its own memory, with the
 * value they had at the fork: a child is not one of the processes the
 * notify was shared with, and its waits must not take records meant for
 * them. */
#include <stdlib.h>

#include "backend/host/host.h"
#include "util/fork.h"

static host_word *shared_words; /* every word in shared memory, under shared_lock */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void shared_add(host_word *w)
{
    pthread_mutex_lock(&shared_lock);
    w->shared = true;
    w->shared_prev = NULL;
    w->shared_next = shared_words;
    if (shared_words)
        shared_words->shared_prev = w;
    shared_words = w;
    pthread_mutex_unlock(&shared_lock);
}

static void shared_remove(host_word *w)
{
    pthread_mutex_lock(&shared_lock);
    if (w->shared_prev)
        w->shared_prev->shared_next = w->shared_next;
    else
        shared_words = w->shared_next;
    if (w->shared_next)
        w->shared_next->shared_prev = w->shared_prev;
    pthread_mutex_unlock(&shared_lock);
}

/* A shared word's own copy is unused: it takes the value for the child. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&shared_lock);
    for (host_word *w = shared_words; w; w = w->shared_next)
        atomic_store_explicit(
            &w->own,
            atomic_load_explicit(atomic_load_explicit(&w->word, memory_order_relaxed),
                                 memory_order_acquire),
            memory_order_relaxed);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&shared_lock);
}

static void fork_child(void)
{
    for (host_word *w = shared_words; w; w = w->shared_next) {
        atomic_store_explicit(&w->word, &w->own, memory_order_relaxed);
        w->shared = false;
    }
    shared_words = NULL;
    pthread_mutex_unlock(&shared_lock);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, fork_prepare, fork_parent, fork_child);
}

host_word *host_word_new(void)
{
    host_word *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    atomic_init(&w->refs, 1);
    atomic_init(&w->own, 0);
    atomic_init(&w->word, &w->own);
    w->shared = false;
    w->memory = (backend_shared_word){0};
    return w;
}

void host_word_retain(host_word *w)
{
    atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
}

void host_word_share(host_word *w, const backend_shared_word *at)
{
    w->memory = *at;
    atomic_store(&w->word, at->word);
    shared_add(w);
}

void host_word_release(host_word *w)
{
    if (!w || atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (w->shared)
        shared_remove(w);
    if (w->memory.release)
        w->memory.release(w->memory.owner);
    free(w);
}

void host_word_apply(const word_op *op)
{
    _Atomic uint32_t *word = atomic_load_explicit(&op->w->word, memory_order_acquire);
    if (!op->counting) {
        atomic_store_explicit(word, 1, memory_order_release);
        return;
    }
    switch (op->mode) {
    case ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE:
        atomic_fetch_add_explicit(word, op->value, memory_order_acq_rel);
        break;
    case ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE:
        atomic_fetch_or_explicit(word, op->value, memory_order_acq_rel);
        break;
    case ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE:
        atomic_fetch_and_explicit(word, op->value, memory_order_acq_rel);
        break;
    default: /* ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE */
        atomic_store_explicit(word, op->value, memory_order_release);
        break;
    }
}

static bool count_matches(uint32_t now, uint32_t cmp, uint32_t value)
{
    switch (cmp) {
    case ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE:
        return now < value;
    case ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE:
        return now == value;
    case ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE:
        return now > value;
    case ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE:
        return now >= value;
    default: /* ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE */
        return (now & value) == value;
    }
}

bool host_word_ready(void *arg)
{
    const word_op *op = arg;
    _Atomic uint32_t *word = atomic_load_explicit(&op->w->word, memory_order_acquire);
    if (!op->counting) {
        uint32_t set = 1;
        return atomic_compare_exchange_strong_explicit(word, &set, 0, memory_order_acq_rel,
                                                       memory_order_acquire);
    }
    uint32_t now = atomic_load_explicit(word, memory_order_acquire);
    if (!count_matches(now, op->mode, op->value))
        return false;
    /* Cleared only if nothing changed it since it was tested. */
    if (op->clear)
        (void)atomic_compare_exchange_strong_explicit(word, &now, 0, memory_order_acq_rel,
                                                      memory_order_relaxed);
    return true;
}
