/* The set of live handles: an open-addressing hash table of (pointer, kind)
 * slots with linear probing and backward-shift deletion.
 *
 * Every ACL call looks handles up, so readers take no lock and make no atomic
 * read-modify-write: the table is guarded by a sequence counter (a seqlock).
 * Writers, serialised by a mutex, make the counter odd, change slots, and make
 * it even again; a reader probes between two reads of the counter and retries
 * if it was odd or has moved, so a torn view (a slot caught mid-shift) never
 * yields an answer, and a live handle is never missed.
 *
 * A slot holds the handle's kind (its magic word, read once at registration)
 * beside the pointer, so a lookup never dereferences a handle it has not yet
 * found live: the pointer may be freed, foreign or garbage.
 *
 * Growth builds a doubled table and publishes it; the old one may still be
 * probed by a reader that loaded it earlier, so it is kept (chained from the
 * new one, never freed). Doubling keeps all retired tables smaller than the
 * live one, and deletion works in place, so churn allocates nothing. */
#include <stdlib.h>

#include "internal.h"

typedef struct {
    _Atomic(const void *) ptr; /* NULL: empty */
    _Atomic uint32_t kind;
} slot;

typedef struct table {
    size_t count;          /* a power of two; fixed once published */
    struct table *retired; /* the table this one replaced, kept for late readers */
    slot slots[];
} table;

static _Atomic(table *) live_table;
static atomic_size_t seq; /* odd while a writer changes live_table's slots */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t live_count; /* under write_lock */

static size_t slot_of(const void *h, size_t mask)
{
    uint64_t x = (uint64_t)(uintptr_t)h;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & mask;
}

/* Slot accesses are acquire loads and release stores rather than relaxed ones
 * plus fences: the same plain moves on x86, and ThreadSanitizer, which does
 * not model atomic_thread_fence, can follow them. A release store keeps the
 * odd counter store before it; an acquire load keeps the re-check after it. */
static const void *load_ptr(const slot *s)
{
    return atomic_load_explicit(&s->ptr, memory_order_acquire);
}

static void store_slot(slot *s, const void *h, uint32_t kind)
{
    atomic_store_explicit(&s->kind, kind, memory_order_release);
    atomic_store_explicit(&s->ptr, h, memory_order_release);
}

/* Writers only (write_lock held). */
static void write_begin(void)
{
    size_t s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
}

static void write_end(void)
{
    size_t s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_release);
}

/* The kind of h if it is registered, else 0. */
static uint32_t find_kind(const void *h)
{
    for (unsigned spins = 0;; spins++) {
        size_t before = atomic_load_explicit(&seq, memory_order_acquire);
        if (before & 1) {
            acl_spin_step(spins); /* a writer is mid-change */
            continue;
        }
        const table *t = atomic_load_explicit(&live_table, memory_order_acquire);
        uint32_t kind = 0;
        if (t) {
            size_t mask = t->count - 1;
            size_t i = slot_of(h, mask);
            /* Bounded: a torn view might show no empty slot; the re-check then fails. */
            for (size_t n = 0; n < t->count; n++, i = (i + 1) & mask) {
                const void *p = load_ptr(&t->slots[i]);
                if (!p)
                    break;
                if (p == h) {
                    kind = atomic_load_explicit(&t->slots[i].kind, memory_order_acquire);
                    break;
                }
            }
        }
        if (atomic_load_explicit(&seq, memory_order_relaxed) == before)
            return kind;
    }
}

/* Index of h in t, or t->count. Writers only. */
static size_t find_slot(const table *t, const void *h)
{
    size_t mask = t->count - 1;
    for (size_t i = slot_of(h, mask);; i = (i + 1) & mask) {
        const void *p = atomic_load_explicit(&t->slots[i].ptr, memory_order_relaxed);
        if (p == h)
            return i;
        if (!p)
            return t->count;
    }
}

static void insert_slot(table *t, const void *h, uint32_t kind)
{
    size_t mask = t->count - 1;
    size_t i = slot_of(h, mask);
    while (atomic_load_explicit(&t->slots[i].ptr, memory_order_relaxed))
        i = (i + 1) & mask;
    store_slot(&t->slots[i], h, kind);
}

/* A doubled copy of old, not yet visible to readers; NULL if out of memory. */
static table *grown(table *old)
{
    size_t count = old ? old->count * 2 : 1024;
    table *t = calloc(1, sizeof *t + count * sizeof(slot));
    if (!t)
        return NULL;
    t->count = count;
    t->retired = old;
    for (size_t i = 0; old && i < old->count; i++) {
        const void *p = atomic_load_explicit(&old->slots[i].ptr, memory_order_relaxed);
        if (p)
            insert_slot(t, p, atomic_load_explicit(&old->slots[i].kind, memory_order_relaxed));
    }
    return t;
}

/* A child of fork() must not inherit a writer's half-done change (an odd
 * counter its readers would wait on forever): the fork waits for writers. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&write_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&write_lock);
}

static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
    pthread_atfork(fork_prepare, fork_done, fork_done);
}

aclError handle_register(void *h)
{
    uint32_t kind = *(const uint32_t *)h; /* the caller owns a live object */
    aclError err = ACL_SUCCESS;
    pthread_once(&fork_handlers_once, register_fork_handlers);
    pthread_mutex_lock(&write_lock);
    table *t = atomic_load_explicit(&live_table, memory_order_relaxed);
    if (t && find_slot(t, h) < t->count)
        goto out; /* already registered */
    table *next = t;
    if (!t || (live_count + 1) * 2 > t->count) {
        next = grown(t);
        if (!next) {
            err = ACL_ERROR_RT_MEMORY_ALLOCATION;
            goto out;
        }
    }
    write_begin();
    if (next != t)
        atomic_store_explicit(&live_table, next, memory_order_release);
    insert_slot(next, h, kind);
    live_count++;
    write_end();
out:
    pthread_mutex_unlock(&write_lock);
    return err;
}

void handle_unregister(void *h)
{
    pthread_mutex_lock(&write_lock);
    table *t = atomic_load_explicit(&live_table, memory_order_relaxed);
    size_t i = t ? find_slot(t, h) : 0;
    if (t && i < t->count) {
        size_t mask = t->count - 1;
        write_begin();
        /* Shift later members of the probe run back into the hole. */
        size_t hole = i;
        for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
            const void *p = atomic_load_explicit(&t->slots[j].ptr, memory_order_relaxed);
            if (!p)
                break;
            size_t home = slot_of(p, mask);
            bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                store_slot(&t->slots[hole], p, atomic_load_explicit(&t->slots[j].kind, memory_order_relaxed));
                hole = j;
            }
        }
        store_slot(&t->slots[hole], NULL, 0);
        live_count--;
        write_end();
    }
    pthread_mutex_unlock(&write_lock);
}

void *handle_lookup(const void *h, uint32_t magic)
{
    return h && magic && find_kind(h) == magic ? (void *)h : NULL;
}

uint32_t handle_kind(const void *h)
{
    return h ? find_kind(h) : 0;
}
