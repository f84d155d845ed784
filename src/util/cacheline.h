/* Zeroed objects that start on a cache line, from plain malloc. glibc's
 * aligned_alloc carves every block out of a larger chunk and gives the
 * rest back, which costs several times a malloc (about 460 instructions a
 * call, callgrind) and grows with a fragmented heap; streams and events,
 * made and destroyed at the rate of API calls, come from here instead:
 * malloc's fast path and at most one line of padding. */
#ifndef ACLCUDA_UTIL_CACHELINE_H
#define ACLCUDA_UTIL_CACHELINE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CACHELINE_BYTES 64

/* size zeroed bytes at a multiple of CACHELINE_BYTES, or NULL; released
 * with cacheline_free only. */
static inline void *cacheline_zalloc(size_t size)
{
    /* Room for the line's padding and, just below the block, the
     * address malloc gave (what free takes back). */
    if (size > SIZE_MAX - CACHELINE_BYTES - sizeof(void *))
        return NULL;
    void *raw = malloc(size + CACHELINE_BYTES + sizeof(void *));
    if (raw == NULL)
        return NULL;
    uintptr_t at =
        ((uintptr_t)raw + sizeof(void *) + CACHELINE_BYTES - 1) & ~(uintptr_t)(CACHELINE_BYTES - 1);
    void *block = (void *)at;
    memcpy((char *)block - sizeof(void *), &raw, sizeof raw);
    return memset(block, 0, size);
}

static inline void cacheline_free(void *block)
{
    if (block == NULL)
        return;
    void *raw;
    memcpy(&raw, (char *)block - sizeof(void *), sizeof raw);
    free(raw);
}

#endif
