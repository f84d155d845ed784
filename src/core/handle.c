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
 * table_lock and read without it. Free slots wait on a lock-free stack, so
 * that making and destroying an object takes no lock here.
 *
 * Reclamation (see handle.h, "borrowing"). Each thread that borrows has a
 * reader record holding the global epoch it entered its read section at,
 * 0 outside. An object whose handle is withdrawn and whose counted
 * references are gone is retired, and freed once no reader is still
 * inside a section entered before its retirement: any such reader may
 * have looked it up; a reader that entered later found the handle
 * withdrawn.
 *
 * Entering a section is on the path of every call, so it is a plain store
 * of the epoch: the store-to-load ordering a reclaimer needs (a reader's
 * entry visible before it reads a slot) is paid for by the reclaimer, with
 * membarrier(2), which runs a full barrier on every thread of the process
 * (asymmetric fences, as liburcu's memb flavour). Where the kernel lacks
 * it, entry is a fenced exchange instead.
 *
 * Two cases keep the reclaimer off membarrier:
 * - No other thread is a reader (the caller's record is the only one in
 *   use): nothing but the caller can hold the object, which is freed when
 *   the caller's section ends, or at once outside one. A thread becomes a
 *   reader with a fenced registration, so one registering after that check
 *   finds the handle already withdrawn.
 * - Otherwise the object is stamped with the epoch of its retirement and
 *   joins a shared list, reclaimed in batches (one membarrier and one scan
 *   of the records per RECLAIM_BATCH objects), and whenever a section ends
 *   with no other reader left. */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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
    _Atomic uint32_t next_free; /* while free: the next on the free stack */
} __attribute__((aligned(64))) slot;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t slots_made; /* under table_lock */
/* The free stack's top slot in the low half (NO_SLOT: empty), a count of
 * its changes in the high half: a pop that read a next that is stale since
 * cannot succeed (ABA). */
static _Atomic uint64_t free_top = NO_SLOT;

/* What every lookup and every read section's end read, in one cache line
 * with the chunk directory's first entries: a lookup then misses at most
 * this line, its slot and its reader record where a driver call between two
 * lookups evicted everything.
 *   global_epoch: the reclamation epoch (see below);
 *   retired_waiting: objects on the shared retired list;
 *   asymmetric_fences: readers enter with a plain store and reclaimers fence
 *     them (readers_fence); set before any thread can borrow, never changed. */
static struct {
    _Atomic uint64_t global_epoch;
    atomic_size_t retired_waiting;
    bool asymmetric_fences;
    _Atomic(slot *) chunks[MAX_CHUNKS];
} __attribute__((aligned(64))) hot = {.global_epoch = 1};

static inline uint64_t word_identity(uint32_t generation, handle_kind kind)
{
    return (uint64_t)generation << 8 | (uint64_t)kind;
}

static inline slot *slot_at(uint32_t index)
{
    slot *chunk = atomic_load_explicit(&hot.chunks[index >> CHUNK_SHIFT], memory_order_acquire);
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

static inline uint64_t free_top_next(uint64_t top, uint32_t index)
{
    return ((top >> 32) + 1) << 32 | index;
}

/* A recycled slot index, NO_SLOT when none is free. A slot's memory stays
 * valid once made, so reading the next of a slot another thread popped
 * meanwhile is harmless: the change count makes that pop fail. */
static uint32_t free_pop(void)
{
    uint64_t top = atomic_load_explicit(&free_top, memory_order_acquire);
    for (;;) {
        uint32_t index = (uint32_t)top;
        if (index == NO_SLOT)
            return NO_SLOT;
        uint32_t next = atomic_load_explicit(&slot_at(index)->next_free, memory_order_relaxed);
        if (atomic_compare_exchange_weak_explicit(&free_top, &top, free_top_next(top, next),
                                                  memory_order_acquire, memory_order_acquire))
            return index;
    }
}

static void free_push(uint32_t index)
{
    slot *s = slot_at(index);
    uint64_t top = atomic_load_explicit(&free_top, memory_order_relaxed);
    do
        atomic_store_explicit(&s->next_free, (uint32_t)top, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&free_top, &top, free_top_next(top, index),
                                                  memory_order_release, memory_order_relaxed));
}

/* A slot index never used, under table_lock; NO_SLOT when out of memory or
 * slots. Fresh slots start at generation 1. */
static uint32_t slot_make(void)
{
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
            atomic_init(&chunk[i].next_free, NO_SLOT);
        }
        atomic_store_explicit(&hot.chunks[index >> CHUNK_SHIFT], chunk, memory_order_release);
    }
    slots_made++;
    return index;
}

aclError handle_publish(object *o, handle_kind kind, object_free_fn free_fn)
{
    uint32_t index = free_pop();
    if (index == NO_SLOT) {
        pthread_mutex_lock(&table_lock);
        index = slot_make();
        pthread_mutex_unlock(&table_lock);
        if (index == NO_SLOT)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    o->slot = index;
    o->kind = kind;
    o->free = free_fn;
    slot *s = slot_at(index);
    s->obj = o;
    uint32_t generation = (uint32_t)(atomic_load_explicit(&s->word, memory_order_relaxed) >> 32);
    /* Release: a lookup that sees the word sees obj and the object. */
    atomic_store_explicit(&s->word, word_identity(generation, kind) << 24 | WORD_LIVE,
                          memory_order_release);
    return ACL_SUCCESS;
}

void *handle_of(const object *o)
{
    const slot *s = slot_at(o->slot);
    uint32_t generation = (uint32_t)(atomic_load_explicit(&s->word, memory_order_relaxed) >> 32);
    return (void *)(uintptr_t)((uint64_t)generation << 32 | (uint64_t)o->slot << 8 |
                               (uint64_t)o->kind);
}

/* ---- read sections and reclamation --------------------------------------------- */

/* A line of its own: its thread writes it at every section's start and
 * end, which must not take a line from under another thread. */
typedef struct reader {
    _Atomic uint64_t epoch; /* the epoch its section began at; 0 outside */
    atomic_bool used;       /* by a live thread */
    struct reader *next;    /* every record ever made; never unlinked */
} __attribute__((aligned(64))) reader;

static _Atomic(reader *) readers;
static atomic_uint readers_used; /* records in use by live threads */
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t reader_key;
static pthread_once_t reader_key_once = PTHREAD_ONCE_INIT;

enum { RECLAIM_BATCH = 32 }; /* objects on the shared list per membarrier */

static pthread_mutex_t reclaim_lock = PTHREAD_MUTEX_INITIALIZER; /* one reclaimer at a time */
static _Atomic(object *) retired_head; /* pushed lock-free, taken whole by the reclaimer */

/* Readers without a record (their thread could not get one: out of
 * memory) are only counted; while any is inside, nothing is freed. */
static atomic_uint unrecorded_readers;

/* The calling thread's side, in one thread-local so that a section's start
 * or end finds it with one address computation. */
typedef struct thread_reader {
    reader *me;      /* its record, NULL until its first borrow */
    unsigned depth;  /* nested borrows */
    bool unrecorded; /* the current section is counted, not recorded */
    object *retired; /* retired in the current section, settled at its end */
} thread_reader;

static _Thread_local thread_reader tr;

/* &tr, held in a register by its users: the empty asm makes the address
 * opaque, or the compiler would recompute it (a TLS descriptor call) at
 * every use. */
static inline thread_reader *self(void)
{
    thread_reader *t = &tr;
    __asm__("" : "+r"(t));
    return t;
}

static void reader_exit(void *record)
{
    reader *r = record;
    atomic_store_explicit(&r->epoch, 0, memory_order_release);
    atomic_store_explicit(&r->used, false, memory_order_release);
    atomic_fetch_sub_explicit(&readers_used, 1, memory_order_seq_cst);
}

static void make_reader_key(void)
{
    pthread_key_create(&reader_key, reader_exit);
}

/* The calling thread's record, made or recycled on its first borrow;
 * NULL when out of memory. */
static reader *reader_register(void)
{
    pthread_once(&reader_key_once, make_reader_key);
    pthread_mutex_lock(&readers_lock);
    reader *r = atomic_load_explicit(&readers, memory_order_relaxed);
    while (r && atomic_load_explicit(&r->used, memory_order_relaxed))
        r = r->next;
    if (!r) {
        r = aligned_alloc(_Alignof(reader), sizeof *r);
        if (r)
            memset(r, 0, sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&readers_lock);
            return NULL; /* the thread reads without a record this time */
        }
        r->next = atomic_load_explicit(&readers, memory_order_relaxed);
        atomic_store_explicit(&readers, r, memory_order_release);
    }
    atomic_store_explicit(&r->used, true, memory_order_relaxed);
    /* A destroy that found no other reader withdrew its handle before it
     * counted the readers; this add and the lookups' loads are sequentially
     * consistent, so this thread's lookups find the handle gone. */
    atomic_fetch_add_explicit(&readers_used, 1, memory_order_seq_cst);
    pthread_mutex_unlock(&readers_lock);
    pthread_setspecific(reader_key, r);
    tr.me = r;
    return r;
}

/* Makes every reader's entry store visible to the caller, and orders it
 * before the reads of that reader's section: after it, a reader whose
 * record shows it outside reads any slot after the caller's earlier
 * withdrawals. False when it could not. */
static bool readers_fence(void)
{
    /* Without membarrier nothing is needed: readers entered with a
     * sequentially consistent exchange, and the scan's loads are too. A
     * membarrier that fails (it worked when registered) leaves the records
     * unreliable: nothing is freed then, rather than something in use. */
    return !hot.asymmetric_fences ||
           syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* Whether no thread but the caller can be inside a read section: its own
 * record, if any, is the only one in use. The caller has withdrawn what it
 * asks about with a sequentially consistent read-modify-write. */
static inline bool sole_reader(const thread_reader *t)
{
    unsigned used = atomic_load_explicit(&readers_used, memory_order_seq_cst);
    return used <= (t->me != NULL ? 1u : 0u) &&
           atomic_load_explicit(&unrecorded_readers, memory_order_seq_cst) == 0;
}

static void reclaim_try(void);
static void settle_retired(thread_reader *t);

/* A first borrow without a reader record yet: made now, or, out of
 * memory, the section is counted instead. */
static void section_enter_unrecorded(thread_reader *t)
{
    reader *r = reader_register();
    t->unrecorded = !r;
    if (r)
        atomic_store_explicit(&r->epoch,
                              atomic_load_explicit(&hot.global_epoch, memory_order_acquire),
                              memory_order_seq_cst);
    else
        atomic_fetch_add_explicit(&unrecorded_readers, 1, memory_order_seq_cst);
}

/* n borrows begin. The outermost one stores the epoch the section began
 * at; the reclaimer's readers_fence orders that store before the slot
 * reads that follow (without membarrier, the exchange does). The epoch is
 * read with acquire: a reader that sees the epoch a retire moved on also
 * sees that the retired object was withdrawn (free on x86). */
static inline void section_enter(thread_reader *t, unsigned n)
{
    unsigned depth = t->depth;
    t->depth = depth + n;
    if (depth)
        return;
    if (__builtin_expect(t->me != NULL, 1)) {
        uint64_t epoch = atomic_load_explicit(&hot.global_epoch, memory_order_acquire);
        if (__builtin_expect(hot.asymmetric_fences, 1)) {
            atomic_store_explicit(&t->me->epoch, epoch, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst); /* the compiler keeps the order */
        } else {
            (void)atomic_exchange_explicit(&t->me->epoch, epoch, memory_order_seq_cst);
        }
    } else {
        section_enter_unrecorded(t);
    }
}

/* n borrows end; with the outermost, the section. */
static inline void section_exit(thread_reader *t, unsigned n)
{
    if ((t->depth -= n) == 0) {
        if (t->unrecorded)
            atomic_fetch_sub_explicit(&unrecorded_readers, 1, memory_order_release);
        else
            atomic_store_explicit(&t->me->epoch, 0, memory_order_release);
        if (t->retired)
            settle_retired(t);
        size_t waiting = atomic_load_explicit(&hot.retired_waiting, memory_order_relaxed);
        if (waiting && (waiting >= RECLAIM_BATCH || sole_reader(t)))
            reclaim_try();
    }
}

void borrow_begin(void)
{
    section_enter(&tr, 1);
}

void borrow_end(void)
{
    section_exit(self(), 1);
}

unsigned borrow_suspend(void)
{
    unsigned saved = tr.depth;
    if (saved)
        section_exit(&tr, saved);
    return saved;
}

void borrow_resume(unsigned saved)
{
    if (saved)
        section_enter(&tr, saved);
}

/* Frees the object and recycles its slot with the next generation (0 is
 * skipped: no handle has it). */
static void free_object(object *o)
{
    if (o->kind == HANDLE_NONE) {
        o->free(o); /* never published: no slot to recycle */
        return;
    }
    slot *s = slot_at(o->slot);
    uint32_t index = o->slot;
    uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
    o->free(o);
    uint32_t generation = (uint32_t)(w >> 32) + 1;
    if (generation == 0)
        generation = 1;
    s->obj = NULL;
    atomic_store_explicit(&s->word, (uint64_t)generation << 32, memory_order_release);
    free_push(index);
}

/* The oldest epoch any reader is inside, UINT64_MAX when none is; after
 * readers_fence. */
static uint64_t oldest_reader(void)
{
    if (atomic_load_explicit(&unrecorded_readers, memory_order_seq_cst))
        return 0;
    uint64_t oldest = UINT64_MAX;
    for (reader *r = atomic_load_explicit(&readers, memory_order_acquire); r; r = r->next) {
        uint64_t e = atomic_load_explicit(&r->epoch, memory_order_seq_cst);
        if (e && e < oldest)
            oldest = e;
    }
    return oldest;
}

/* Frees what no reader can reach any more. Free functions may retire more
 * objects (a stream releases its context), so they run outside the lock. */
static void reclaim_try(void)
{
    for (;;) {
        if (pthread_mutex_trylock(&reclaim_lock))
            return; /* another thread is at it */
        object *list = atomic_exchange_explicit(&retired_head, NULL, memory_order_acquire);
        uint64_t oldest = UINT64_MAX;
        if (!sole_reader(&tr))
            oldest = readers_fence() ? oldest_reader() : 0;
        object *ready = NULL, *waiting = NULL, *waiting_tail = NULL;
        size_t freed = 0;
        while (list) {
            object *o = list;
            list = o->retired_next;
            if (o->retired_epoch < oldest) {
                o->retired_next = ready;
                ready = o;
                freed++;
            } else {
                o->retired_next = waiting;
                waiting = o;
                if (!waiting_tail)
                    waiting_tail = o;
            }
        }
        if (waiting) {
            object *head = atomic_load_explicit(&retired_head, memory_order_relaxed);
            do
                waiting_tail->retired_next = head;
            while (!atomic_compare_exchange_weak_explicit(
                &retired_head, &head, waiting, memory_order_release, memory_order_relaxed));
        }
        atomic_fetch_sub_explicit(&hot.retired_waiting, freed, memory_order_relaxed);
        pthread_mutex_unlock(&reclaim_lock);
        if (!ready)
            return;
        while (ready) {
            object *o = ready;
            ready = o->retired_next;
            free_object(o);
        }
    }
}

/* Onto the shared list, for whichever reclaimer comes next, stamped with
 * the epoch of its retirement: readers that entered later cannot reach it. */
static void retired_push(object *o)
{
    o->retired_epoch = atomic_fetch_add_explicit(&hot.global_epoch, 1, memory_order_seq_cst);
    object *head = atomic_load_explicit(&retired_head, memory_order_relaxed);
    do
        o->retired_next = head;
    while (!atomic_compare_exchange_weak_explicit(&retired_head, &head, o, memory_order_release,
                                                  memory_order_relaxed));
    atomic_fetch_add_explicit(&hot.retired_waiting, 1, memory_order_relaxed);
}

/* What t retired in the section it has just left: freed now when no other
 * thread is a reader, else onto the shared list. Free functions may retire
 * more (a stream releases its context): outside a section, those go the
 * way of retire. */
static void settle_retired(thread_reader *t)
{
    object *list = t->retired;
    t->retired = NULL;
    bool sole = sole_reader(t);
    while (list) {
        object *o = list;
        list = o->retired_next;
        if (sole)
            free_object(o);
        else
            retired_push(o);
    }
}

/* The handle is withdrawn and no counted reference is left. A thread in a
 * read section cannot free it yet (it may be the one still using it): it
 * waits for the section's end. Outside a section it is freed at once when
 * no other thread is a reader, else it joins the shared list. */
static void retire(object *o)
{
    thread_reader *t = self();
    if (t->depth) {
        o->retired_next = t->retired;
        t->retired = o;
        return;
    }
    if (sole_reader(t)) {
        free_object(o);
        return;
    }
    retired_push(o);
    if (atomic_load_explicit(&hot.retired_waiting, memory_order_relaxed) >= RECLAIM_BATCH)
        reclaim_try();
}

void handle_wait_readers(void)
{
    thread_reader *t = self();
    /* Sections begun from now on record a later epoch than this one. */
    uint64_t epoch = atomic_fetch_add_explicit(&hot.global_epoch, 1, memory_order_seq_cst);
    unsigned own_unrecorded = t->depth && t->unrecorded ? 1u : 0u;
    for (unsigned round = 0;; round++) {
        if (sole_reader(t))
            return;
        if (readers_fence()) {
            bool open =
                atomic_load_explicit(&unrecorded_readers, memory_order_seq_cst) > own_unrecorded;
            for (reader *r = atomic_load_explicit(&readers, memory_order_acquire); r && !open;
                 r = r->next) {
                uint64_t e = atomic_load_explicit(&r->epoch, memory_order_seq_cst);
                open = r != t->me && e && e <= epoch;
            }
            if (!open)
                return;
        }
        /* Sections are short: a few yields, then short sleeps. */
        if (round < 64)
            sched_yield();
        else
            usleep(50);
    }
}

/* ---- lookups and references ----------------------------------------------------- */

/* Whether a slot's word says live with this identity. */
static inline bool word_is(uint64_t w, uint64_t identity)
{
    return w >> 24 == identity && (w & WORD_LIVE);
}

object *handle_get(const void *h, handle_kind kind)
{
    uint64_t identity;
    slot *s = decode(h, kind, &identity);
    if (!s)
        return NULL;
    thread_reader *t = self();
    section_enter(t, 1);
    /* Sequentially consistent (a plain load, as acquire, on x86 and Arm):
     * see reader_register. */
    if (__builtin_expect(word_is(atomic_load_explicit(&s->word, memory_order_seq_cst), identity),
                         1))
        return s->obj;
    section_exit(t, 1);
    return NULL;
}

bool handle_get_pair(const void *ha, handle_kind ka, const void *hb, handle_kind kb, object **a,
                     object **b)
{
    uint64_t ida, idb;
    slot *sa = decode(ha, ka, &ida), *sb = decode(hb, kb, &idb);
    if (!sa || !sb)
        return false;
    thread_reader *t = self();
    section_enter(t, 2);
    if (__builtin_expect(word_is(atomic_load_explicit(&sa->word, memory_order_seq_cst), ida) &&
                             word_is(atomic_load_explicit(&sb->word, memory_order_seq_cst), idb),
                         1)) {
        *a = sa->obj;
        *b = sb->obj;
        return true;
    }
    section_exit(t, 2);
    return false;
}

void object_put(object *o)
{
    (void)o;
    section_exit(self(), 1);
}

void object_put_pair(object *a, object *b)
{
    (void)a;
    (void)b;
    section_exit(self(), 2);
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

/* Only while the object is not retired: a withdrawn object whose last
 * counted reference is gone may already be on its way to being freed. */
bool object_hold(object *o)
{
    slot *s = slot_at(o->slot);
    uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
    do {
        if ((w & WORD_COUNT_MASK) == 0 || (w & WORD_REFS_MASK) == WORD_REFS_MASK)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&s->word, &w, w + WORD_REF,
                                                    memory_order_acquire, memory_order_relaxed));
    return true;
}

void object_release(object *o)
{
    slot *s = slot_at(o->slot);
    /* Sequentially consistent, as every step that may retire (retire's
     * sole_reader). */
    uint64_t w = atomic_fetch_sub_explicit(&s->word, WORD_REF, memory_order_seq_cst) - WORD_REF;
    if ((w & WORD_COUNT_MASK) == 0)
        retire(o);
}

void object_release_late(object *o)
{
    slot *s = slot_at(o->slot);
    uint64_t w = atomic_fetch_sub_explicit(&s->word, WORD_REF, memory_order_seq_cst) - WORD_REF;
    if ((w & WORD_COUNT_MASK) == 0)
        retired_push(o);
}

void object_retire(object *o, object_free_fn free_fn)
{
    o->slot = NO_SLOT;
    o->kind = HANDLE_NONE;
    o->free = free_fn;
    retire(o);
}

bool object_take(object *o)
{
    slot *s = slot_at(o->slot);
    uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
    do {
        if (!(w & WORD_LIVE))
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&s->word, &w, w & ~WORD_LIVE,
                                                    memory_order_seq_cst, memory_order_relaxed));
    if (((w & ~WORD_LIVE) & WORD_COUNT_MASK) == 0)
        retire(o);
    return true;
}

bool object_take_hold(object *o)
{
    slot *s = slot_at(o->slot);
    uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
    do {
        if (!(w & WORD_LIVE) || (w & WORD_REFS_MASK) == WORD_REFS_MASK)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&s->word, &w, (w & ~WORD_LIVE) + WORD_REF,
                                                    memory_order_seq_cst, memory_order_relaxed));
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

/* ---- fork --------------------------------------------------------------------------
 * The child has one thread: every other reader record is free there. */

/* Whether this process may use membarrier's private expedited command
 * (Linux 4.14; a seccomp filter may refuse it). */
static bool register_fences(void)
{
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&readers_lock);
    pthread_mutex_lock(&reclaim_lock);
    pthread_mutex_lock(&table_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&table_lock);
    pthread_mutex_unlock(&reclaim_lock);
    pthread_mutex_unlock(&readers_lock);
}

static void fork_child(void)
{
    atomic_store_explicit(&unrecorded_readers, tr.depth && tr.unrecorded, memory_order_relaxed);
    atomic_store_explicit(&readers_used, tr.me != NULL, memory_order_relaxed);
    /* The child is a new address space: its registration is its own (the
     * child has one thread, so the readers' way of entering may change). */
    if (hot.asymmetric_fences)
        hot.asymmetric_fences = register_fences();
    for (reader *r = atomic_load_explicit(&readers, memory_order_relaxed); r; r = r->next) {
        if (r != tr.me) {
            atomic_store_explicit(&r->epoch, 0, memory_order_relaxed);
            atomic_store_explicit(&r->used, false, memory_order_relaxed);
        }
    }
    fork_parent();
}

__attribute__((constructor)) static void handle_fork_register(void)
{
    fork_register(FORK_RANK_HANDLES, fork_prepare, fork_parent, fork_child);
    hot.asymmetric_fences = register_fences(); /* the library is loading: no thread borrows yet */
}
