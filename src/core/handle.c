/* The handle table. A handle's value is
 *     generation << 32 | slot << 8 | kind
 * and each slot keeps one 64-bit word:
 *     generation (32) | kind (8) | references (23) | live (1)
 * so that a lookup validates the generation, the kind and liveness and
 * takes its reference with a single compare-and-swap, and a destroy
 * withdraws the handle with another. A slot is recycled, with the next
 * generation, only after its object was freed.
 *
 * Slots live in chunks that are never freed or moved, so a lookup of any
 * value reads only valid memory; the chunk directory is filled under
 * table_lock and read without it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/handle.h"
#include "util/fork.h"

enum {
    CHUNK_SHIFT = 10,
    CHUNK_SLOTS = 1 << CHUNK_SHIFT,
    MAX_CHUNKS = 1 << 14, /* 16 Mi slots: the 24 bits of a handle's slot field */
    NO_SLOT = UINT32_MAX,
};

#define WORD_LIVE UINT64_C(1)
#define WORD_REF UINT64_C(2)
#define WORD_REFS_MASK UINT64_C(0xfffffe)
#define WORD_COUNT_MASK UINT64_C(0xffffff) /* references and the live bit */

typedef struct slot {
    _Atomic uint64_t word;
    object *obj;
    uint32_t next_free; /* under table_lock, while free */
} __attribute__((aligned(64))) slot;

static _Atomic(slot *) chunks[MAX_CHUNKS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t slots_made;          /* under table_lock */
static uint32_t free_head = NO_SLOT; /* under table_lock */
static atomic_uint live_count;

static void fork_prepare(void)
{
    pthread_mutex_lock(&table_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&table_lock);
}

__attribute__((constructor)) static void handle_fork_register(void)
{
    fork_register(FORK_RANK_HANDLES, fork_prepare, fork_done, fork_done);
}

static inline uint64_t word_identity(uint32_t generation, handle_kind kind)
{
    return (uint64_t)generation << 8 | (uint64_t)kind;
}

static inline slot *slot_at(uint32_t index)
{
    slot *chunk = atomic_load_explicit(&chunks[index >> CHUNK_SHIFT], memory_order_acquire);
    return chunk ? &chunk[index & (CHUNK_SLOTS - 1)] : NULL;
}

/* The slot a value names if it is shaped like a handle of kind, else NULL;
 * *identity is what the slot's word must carry above its counts. */
static inline slot *decode(const void *h, handle_kind kind, uint64_t *identity)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t generation = (uint32_t)(v >> 32);
    uint32_t index = (uint32_t)(v >> 8) & 0xffffff;
    if ((v & 0xff) != (uint64_t)kind || generation == 0 || index >> CHUNK_SHIFT >= MAX_CHUNKS)
        return NULL;
    *identity = word_identity(generation, kind);
    return slot_at(index);
}

/* A free slot index, under table_lock; NO_SLOT when out of memory or
 * slots. Fresh slots start at generation 1. */
static uint32_t slot_alloc(void)
{
    if (free_head != NO_SLOT) {
        uint32_t index = free_head;
        free_head = slot_at(index)->next_free;
        return index;
    }
    uint32_t index = slots_made;
    if (index >> CHUNK_SHIFT >= MAX_CHUNKS)
        return NO_SLOT;
    if ((index & (CHUNK_SLOTS - 1)) == 0) {
        slot *chunk = aligned_alloc(64, CHUNK_SLOTS * sizeof(slot));
        if (!chunk)
            return NO_SLOT;
        for (uint32_t i = 0; i < CHUNK_SLOTS; i++) {
            atomic_init(&chunk[i].word, (uint64_t)1 << 32);
            chunk[i].obj = NULL;
        }
        atomic_store_explicit(&chunks[index >> CHUNK_SHIFT], chunk, memory_order_release);
    }
    slots_made++;
    return index;
}

aclError handle_publish(object *o, handle_kind kind, object_free_fn free_fn)
{
    pthread_mutex_lock(&table_lock);
    uint32_t index = slot_alloc();
    pthread_mutex_unlock(&table_lock);
    if (index == NO_SLOT)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    o->slot = index;
    o->kind = kind;
    o->free = free_fn;
    slot *s = slot_at(index);
    s->obj = o;
    uint32_t generation = (uint32_t)(atomic_load_explicit(&s->word, memory_order_relaxed) >> 32);
    atomic_fetch_add_explicit(&live_count, 1, memory_order_relaxed);
    /* Release: a lookup that sees the word sees obj and the object. */
    atomic_store_explicit(&s->word, word_identity(generation, kind) << 24 | WORD_LIVE,
                          memory_order_release);
    return ACL_SUCCESS;
}

void *handle_of(const object *o)
{
    const slot *s = slot_at(o->slot);
    uint32_t generation = (uint32_t)(atomic_load_explicit(&s->word, memory_order_relaxed) >> 32);
    return (void *)(uintptr_t)((uint64_t)generation << 32 | (uint64_t)o->slot << 8 | (uint64_t)o->kind);
}

object *handle_get(const void *h, handle_kind kind)
{
    uint64_t identity;
    slot *s = decode(h, kind, &identity);
    if (!s)
        return NULL;
    uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
    do {
        if (w >> 24 != identity || !(w & WORD_LIVE) || (w & WORD_REFS_MASK) == WORD_REFS_MASK)
            return NULL;
    } while (!atomic_compare_exchange_weak_explicit(&s->word, &w, w + WORD_REF, memory_order_acquire,
                                                    memory_order_relaxed));
    return s->obj;
}

handle_kind handle_kind_of(const void *h)
{
    for (int kind = HANDLE_NONE + 1; kind < HANDLE_KIND_COUNT; kind++) {
        uint64_t identity;
        slot *s = decode(h, (handle_kind)kind, &identity);
        if (s) {
            uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
            return w >> 24 == identity && (w & WORD_LIVE) ? (handle_kind)kind : HANDLE_NONE;
        }
    }
    return HANDLE_NONE;
}

void object_get(object *o)
{
    atomic_fetch_add_explicit(&slot_at(o->slot)->word, WORD_REF, memory_order_relaxed);
}

/* The last reference of a taken object is gone: free it, then recycle its
 * slot with the next generation (0 is skipped: no handle has it). */
static void finalize(slot *s, uint64_t w)
{
    object *o = s->obj;
    uint32_t index = o->slot;
    o->free(o);
    uint32_t generation = (uint32_t)(w >> 32) + 1;
    if (generation == 0)
        generation = 1;
    s->obj = NULL;
    atomic_store_explicit(&s->word, (uint64_t)generation << 32, memory_order_release);
    atomic_fetch_sub_explicit(&live_count, 1, memory_order_relaxed);
    pthread_mutex_lock(&table_lock);
    s->next_free = free_head;
    free_head = index;
    pthread_mutex_unlock(&table_lock);
}

void object_put(object *o)
{
    slot *s = slot_at(o->slot);
    uint64_t w = atomic_fetch_sub_explicit(&s->word, WORD_REF, memory_order_acq_rel) - WORD_REF;
    if ((w & WORD_COUNT_MASK) == 0)
        finalize(s, w);
}

bool object_take(object *o)
{
    slot *s = slot_at(o->slot);
    uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
    do {
        if (!(w & WORD_LIVE))
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&s->word, &w, w & ~WORD_LIVE, memory_order_acq_rel,
                                                    memory_order_relaxed));
    return true;
}

object *handle_take(const void *h, handle_kind kind)
{
    object *o = handle_get(h, kind);
    if (o && !object_take(o)) {
        object_put(o);
        return NULL;
    }
    return o;
}

bool object_live(const object *o)
{
    return atomic_load_explicit(&slot_at(o->slot)->word, memory_order_acquire) & WORD_LIVE;
}

uint32_t handle_live_count(void)
{
    return atomic_load_explicit(&live_count, memory_order_relaxed);
}
