/* Memory freed while work is queued. A free on CUDA waits for the
 * device's queued work (cudaFree, cudaFreeHost), so a fill or copy queued
 * before it never lands in memory handed out after it. Here frees return
 * at once and the allocators reuse addresses at once, so memory freed
 * while some stream has work is held back instead: it goes back to its
 * allocator once that work has run, found by the next allocation or free.
 * Holding never waits, so a free cannot deadlock on a stream that waits
 * for something only its caller will do later, nor inside a callback or a
 * host function. What is held waits for every stream, as cudaFree does:
 * any of them may use the memory (peer copies, pinned host memory).
 *
 * Blocks are held in the order they were freed and released in that
 * order: one whose work has not run yet keeps the later ones too, which
 * only delays them. The lock guards the list alone; the marks are looked
 * at and released outside it, so it nests with no stream lock. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "backend/host/host.h"
#include "util/fork.h"
#include "util/log.h"

typedef struct held {
    struct held *next;
    void (*release)(void *ptr);
    void *ptr;
    mark **marks; /* the end of each busy stream's work at the free */
    size_t count;
} held;

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static held *held_head, *held_last; /* NULL when empty */
static atomic_size_t held_count;    /* read without the lock: 0 is the common case */

static bool work_done(const held *h)
{
    for (size_t i = 0; i < h->count; i++)
        if (!mark_wait(h->marks[i], 0))
            return false;
    return true;
}

void host_release_held(void)
{
    if (atomic_load_explicit(&held_count, memory_order_acquire) == 0)
        return;
    pthread_mutex_lock(&held_lock);
    held *done = held_head, *last = held_last;
    held_head = held_last = NULL;
    pthread_mutex_unlock(&held_lock);
    /* Another thread may be at it: it took the list, this one nothing. */
    held **done_end = &done;
    while (*done_end && work_done(*done_end))
        done_end = &(*done_end)->next;
    held *waiting = *done_end;
    *done_end = NULL;
    if (waiting) {
        pthread_mutex_lock(&held_lock);
        last->next = held_head; /* freed meanwhile: after the older ones */
        if (held_last == NULL)
            held_last = last;
        held_head = waiting;
        pthread_mutex_unlock(&held_lock);
    }
    while (done) {
        held *h = done;
        done = h->next;
        h->release(h->ptr);
        host_marks_free(h->marks, h->count);
        free(h);
        atomic_fetch_sub_explicit(&held_count, 1, memory_order_relaxed);
    }
}

void host_release_after_work(void (*release)(void *ptr), void *ptr)
{
    host_release_held();
    if (!host_work_in_flight()) {
        release(ptr);
        return;
    }
    held *h = malloc(sizeof *h);
    if (h == NULL || !host_mark_busy_streams(&h->marks, &h->count)) {
        free(h);
        ACL_LOG(LOG_ERROR,
                "out of memory marking the work queued before the free of %p: the memory "
                "stays allocated, as that work may still use it",
                ptr);
        return;
    }
    if (h->count == 0) { /* the work ran meanwhile */
        free(h->marks);
        free(h);
        release(ptr);
        return;
    }
    h->next = NULL;
    h->release = release;
    h->ptr = ptr;
    atomic_fetch_add_explicit(&held_count, 1, memory_order_relaxed);
    pthread_mutex_lock(&held_lock);
    if (held_last)
        held_last->next = h;
    else
        held_head = h;
    held_last = h;
    pthread_mutex_unlock(&held_lock);
}

/* ---- fork ---------------------------------------------------------------------- */

static void held_fork_prepare(void)
{
    pthread_mutex_lock(&held_lock);
}

/* A child runs none of its parent's work: its streams are idle, and what
 * the parent held is released at the child's next allocation or free. */
static void held_fork_done(void)
{
    pthread_mutex_unlock(&held_lock);
}

__attribute__((constructor)) static void register_held_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, held_fork_prepare, held_fork_done, held_fork_done);
}
