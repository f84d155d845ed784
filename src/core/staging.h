/* Bounce buffers: page-locked host memory that a queued copy reads from or
 * writes to in place of the caller's pageable memory, so that the call need
 * not wait for the stream (copy.c says when). A buffer goes back from a
 * host function running in stream order, so giving one back never calls
 * the backend. */
#ifndef ACLCUDA_CORE_STAGING_H
#define ACLCUDA_CORE_STAGING_H

#include <stddef.h>

typedef struct staging {
    void *data;
    size_t size;
    struct staging *next; /* in the pool while free */
    /* What the host function does after a copy into the buffer: unpack
     * `height` rows of `width` bytes to dst, dpitch apart (height 0:
     * nothing, the buffer only goes back). */
    void *dst;
    size_t dpitch, width, height;
} staging;

/* A free buffer of at least size bytes, NULL when out of memory. */
staging *staging_get(size_t size);
/* A host function (for stream_submit): unpacks, then gives the buffer back. */
void staging_done(void *staging_buffer);

#endif
