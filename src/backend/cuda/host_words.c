/* Words of mapped host memory for the device to read and write and the
 * host to see at once: the streams' fault words (memops.c) and the
 * models' stop words (graph_waits.c). Pages are never freed (cudaFreeHost
 * would wait for the device); words are handed out one at a time, each
 * with a serial number of its own, so that a stale note of a word (a
 * stream's log may outlive the model whose stop word it names) can tell
 * that the word has gone to another user since. */
#include <pthread.h>
#include <stdlib.h>

#include "backend/cuda/cuda.h"

enum { HOST_PAGE_WORDS = 1024 };

typedef struct words_page {
    uint32_t *base;
    uint64_t serial[HOST_PAGE_WORDS]; /* of the word's current user; 0: free */
} words_page;

static pthread_mutex_t words_lock = PTHREAD_MUTEX_INITIALIZER;
static words_page **pages;
static size_t page_count, page_cap;
static uint32_t **free_words; /* a stack of free words */
static size_t free_count, free_cap;
static uint64_t last_serial;

static bool words_page_new(void)
{
    if (page_count == page_cap) {
        size_t cap = page_cap ? 2 * page_cap : 4;
        words_page **grown = realloc(pages, cap * sizeof *grown);
        if (!grown)
            return false;
        pages = grown;
        page_cap = cap;
    }
    if (free_count + HOST_PAGE_WORDS > free_cap) {
        size_t cap = free_cap * 2 + HOST_PAGE_WORDS;
        uint32_t **grown = realloc(free_words, cap * sizeof *grown);
        if (!grown)
            return false;
        free_words = grown;
        free_cap = cap;
    }
    words_page *p = calloc(1, sizeof *p);
    if (!p)
        return false;
    if (cudaHostAlloc((void **)&p->base, HOST_PAGE_WORDS * sizeof *p->base,
                      cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        free(p);
        return false;
    }
    pages[page_count++] = p;
    for (size_t i = 0; i < HOST_PAGE_WORDS; i++) {
        p->base[i] = 0;
        free_words[free_count++] = &p->base[i];
    }
    return true;
}

/* The serial slot of w, with words_lock held; NULL: not one of ours. */
static uint64_t *serial_of(const uint32_t *w)
{
    for (size_t i = 0; i < page_count; i++)
        if (w >= pages[i]->base && w < pages[i]->base + HOST_PAGE_WORDS)
            return &pages[i]->serial[w - pages[i]->base];
    return NULL;
}

uint32_t *cuda_host_word_get(uint64_t *serial)
{
    uint32_t *w = NULL;
    pthread_mutex_lock(&words_lock);
    if (free_count > 0 || words_page_new()) {
        w = free_words[--free_count];
        uint64_t *slot = serial_of(w);
        *slot = ++last_serial;
        if (serial)
            *serial = *slot;
    }
    pthread_mutex_unlock(&words_lock);
    return w;
}

void cuda_host_word_put(uint32_t *w)
{
    __atomic_store_n(w, 0u, __ATOMIC_RELEASE);
    pthread_mutex_lock(&words_lock);
    *serial_of(w) = 0;
    free_words[free_count++] = w; /* its page made room for it */
    pthread_mutex_unlock(&words_lock);
}

bool cuda_host_word_holds(const uint32_t *w, uint64_t serial)
{
    pthread_mutex_lock(&words_lock);
    const uint64_t *slot = serial_of(w);
    bool holds = slot && *slot == serial;
    pthread_mutex_unlock(&words_lock);
    return holds;
}
