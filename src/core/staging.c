#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/callback.h"
#include "core/lifecycle.h"
#include "core/staging.h"
#include "util/fork.h"

/* Free buffers beyond this many bytes go back to the backend, when a thread
 * that may call it asks for a buffer. */
enum { POOL_KEEP_BYTES = 64 << 20 };

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static staging *pool;     /* free buffers, most recently returned first */
static size_t pool_bytes; /* their sizes together */

static void release_all(staging *list)
{
    while (list) {
        staging *b = list;
        list = b->next;
        backend()->memory->free_host(b->data);
        free(b);
    }
}

/* Takes free buffers beyond the keep limit out of the pool. */
static staging *excess_locked(void)
{
    staging *excess = NULL;
    while (pool_bytes > POOL_KEEP_BYTES && pool) {
        staging **last = &pool;
        while ((*last)->next)
            last = &(*last)->next;
        staging *b = *last;
        *last = NULL;
        pool_bytes -= b->size;
        b->next = excess;
        excess = b;
    }
    return excess;
}

staging *staging_get(size_t size)
{
    /* Inside a callback a backend free may wait for the device, which
     * waits for the callback (see callback.h): trim elsewhere. */
    bool may_free = !callback_running();
    staging *found = NULL, *excess = NULL;
    pthread_mutex_lock(&pool_lock);
    for (staging **link = &pool; *link; link = &(*link)->next) {
        if ((*link)->size >= size) {
            found = *link;
            *link = found->next;
            pool_bytes -= found->size;
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
    if (backend()->memory->malloc_host(&b->data, size ? size : 1) != ACL_SUCCESS) {
        free(b);
        return NULL;
    }
    b->size = size;
    return b;
}

void staging_done(void *staging_buffer)
{
    staging *b = staging_buffer;
    for (size_t row = 0; row < b->height; row++)
        memcpy((char *)b->dst + row * b->dpitch, (const char *)b->data + row * b->width, b->width);
    b->height = 0;
    pthread_mutex_lock(&pool_lock);
    b->next = pool;
    pool = b;
    pool_bytes += b->size;
    pthread_mutex_unlock(&pool_lock);
}

static void finalized(void *subject)
{
    (void)subject;
    pthread_mutex_lock(&pool_lock);
    staging *all = pool;
    pool = NULL;
    pool_bytes = 0;
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
