/* Recycled CUDA streams and events. Creating and destroying them costs
 * microseconds in the driver, and programs make them per iteration, so
 * destroyed ones that are as good as new are kept here per device and
 * flavour and handed out again (stream.c and event.c say when one is). */
#include <stdlib.h>

#include "backend/cuda/cuda.h"

enum { POOL_DEVICES = 64 };

typedef struct pooled {
    void *handle;
    int flavour;
} pooled;

struct handle_pool {
    pthread_mutex_t lock;
    pooled *items;
    size_t count, cap;
};

#define POOL_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0}
#define POOL_INIT4 POOL_INIT, POOL_INIT, POOL_INIT, POOL_INIT
#define POOL_INIT16 POOL_INIT4, POOL_INIT4, POOL_INIT4, POOL_INIT4
#define POOL_INIT64 POOL_INIT16, POOL_INIT16, POOL_INIT16, POOL_INIT16

static handle_pool stream_pools[POOL_DEVICES] = {POOL_INIT64};
static handle_pool event_pools[POOL_DEVICES * 2] = {POOL_INIT64, POOL_INIT64};

handle_pool *cuda_stream_pool(int dev)
{
    return dev >= 0 && dev < POOL_DEVICES ? &stream_pools[dev] : NULL;
}

handle_pool *cuda_event_pool(int dev, bool timing)
{
    return dev >= 0 && dev < POOL_DEVICES ? &event_pools[dev * 2 + timing] : NULL;
}

void *pool_take(handle_pool *p, int flavour)
{
    if (p == NULL)
        return NULL;
    void *handle = NULL;
    pthread_mutex_lock(&p->lock);
    for (size_t i = p->count; i-- > 0;) {
        if (p->items[i].flavour == flavour) {
            handle = p->items[i].handle;
            p->items[i] = p->items[--p->count];
            break;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return handle;
}

bool pool_put(handle_pool *p, void *handle, int flavour, size_t most)
{
    if (p == NULL)
        return false;
    bool kept = false;
    pthread_mutex_lock(&p->lock);
    if (p->count < most) {
        if (p->count == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 16;
            pooled *grown = realloc(p->items, cap * sizeof *grown);
            if (grown) {
                p->items = grown;
                p->cap = cap;
            }
        }
        if (p->count < p->cap) {
            p->items[p->count++] = (pooled){handle, flavour};
            kept = true;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return kept;
}
