/* The staging pool (staging.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/callback.h"
#include "core/lifecycle.h"
#include "core/staging.h"
#include "util/fork.h"

enum {
    CLASS_MIN_SHIFT = 8,  /* 256 bytes */
    CLASS_MAX_SHIFT = 16, /* 64 KiB */
    CLASSES = CLASS_MAX_SHIFT - CLASS_MIN_SHIFT + 1,
    CLASS_KEEP = 64, /* free buffers kept per class */
    /* Free larger buffers beyond this many bytes go back to the backend. */
    LARGE_KEEP_BYTES = 64 << 20,
};

/* Free buffers go back to the backend only when a thread that may call it
 * asks for a buffer. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static staging *small[CLASSES]; /* free buffers of each class */
static size_t small_count[CLASSES];
static staging *large;     /* free larger ones, most recently returned first */
static size_t large_bytes; /* their sizes together */

static void release_all(staging *list)
{
    while (list) {
        staging *b = list;
        list = b->next;
        backend()->memory->free_host(b->data);
        free(b);
    }
}

/* Takes free buffers beyond the keep limits out of the pool. */
static staging *excess_locked(void)
{
    staging *excess = NULL;
    for (int c = 0; c < CLASSES; c++) {
        while (small_count[c] > CLASS_KEEP) {
            staging *b = small[c];
            small[c] = b->next;
            small_count[c]--;
            b->next = excess;
            excess = b;
        }
    }
    while (large_bytes > LARGE_KEEP_BYTES && large) {
        staging **last = &large;
        while ((*last)->next)
            last = &(*last)->next;
        staging *b = *last;
        *last = NULL;
        large_bytes -= b->size;
        b->next = excess;
        excess = b;
    }
    return excess;
}

/* The class of a buffer of size bytes, -1 when larger than the largest. */
static int class_of(size_t size)
{
    for (int c = 0; c < CLASSES; c++)
        if (size <= (size_t)1 << (CLASS_MIN_SHIFT + c))
            return c;
    return -1;
}

staging *staging_get(size_t size)
{
    /* Inside a callback a backend free may wait for the device, which
     * waits for the callback (see callback.h): trim elsewhere. */
    bool may_free = !callback_running();
    int cls = class_of(size);
    staging *found = NULL, *excess = NULL;
    pthread_mutex_lock(&pool_lock);
    if (cls >= 0 && small[cls]) {
        found = small[cls];
        small[cls] = found->next;
        small_count[cls]--;
    }
    for (staging **link = &large; cls < 0 && *link; link = &(*link)->next) {
        if ((*link)->size >= size) {
            found = *link;
            *link = found->next;
            large_bytes -= found->size;
            break;
        }
    }
    if (may_free)
        excess = excess_locked();
    pthread_mutex_unlock(&pool_lock);
    release_all(excess);
    if (found)
        return found;

    staging *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->size = cls >= 0 ? (size_t)1 << (CLASS_MIN_SHIFT + cls) : size;
    b->cls = cls;
    if (backend()->memory->malloc_host(&b->data, b->size) != ACL_SUCCESS) {
        free(b);
        return NULL;
    }
    return b;
}

void staging_done(void *staging_buffer)
{
    staging *b = staging_buffer;
    for (size_t row = 0; row < b->height; row++)
        memcpy((char *)b->dst + row * b->dpitch, (const char *)b->data + row * b->width, b->width);
    b->height = 0;
    pthread_mutex_lock(&pool_lock);
    if (b->cls >= 0) {
        b->next = small[b->cls];
        small[b->cls] = b;
        small_count[b->cls]++;
    } else {
        b->next = large;
        large = b;
        large_bytes += b->size;
    }
    pthread_mutex_unlock(&pool_lock);
}

static void finalized(void *subject)
{
    (void)subject;
    staging *all = NULL;
    pthread_mutex_lock(&pool_lock);
    for (int c = 0; c < CLASSES; c++) {
        while (small[c]) {
            staging *b = small[c];
            small[c] = b->next;
            b->next = all;
            all = b;
        }
        small_count[c] = 0;
    }
    while (large) {
        staging *b = large;
        large = b->next;
        b->next = all;
        all = b;
    }
    large_bytes = 0;
    pthread_mutex_unlock(&pool_lock);
    release_all(all);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&pool_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&pool_lock);
}

__attribute__((constructor)) static void staging_init(void)
{
    lifecycle_observe(LIFECYCLE_FINALIZED, finalized);
    fork_register(FORK_RANK_MEMORY, fork_prepare, fork_done, fork_done);
}
