/* Staging buffers: the one pool of page-locked host memory that queued
 * work reads or writes in place of the caller's memory: the bounce buffers
 * of copies through pageable memory (copy.c says when) and the placeholder
 * data of kernel launches (launch.c), which a kernel reads through the same
 * address (CUDA's unified addressing maps page-locked memory into every
 * device's space). Small buffers come in size classes, larger ones by size.
 * A buffer goes back from a host function running in stream order, or when
 * the model that recorded its work goes (sink_keep), so giving one back
 * never calls the backend. */
#ifndef ACLCUDA_CORE_STAGING_H
#define ACLCUDA_CORE_STAGING_H

#include <stddef.h>

typedef struct staging {
    void *data;
    size_t size;          /* bytes at data: at least what was asked for */
    int cls;              /* its size class, -1 when larger than the largest */
    struct staging *next; /* in the pool while free */
    /* What the host function does after a copy into the buffer: unpack
     * `height` rows of `width` bytes to dst, dpitch apart (height 0:
     * nothing, the buffer only goes back). */
    void *dst;
    size_t dpitch, width, height;
} staging;

/* A free buffer of at least size bytes, NULL when out of memory. */
staging *staging_get(size_t size);
/* A host function (for stream_submit, or a release for sink_keep):
 * unpacks, then gives the buffer back. */
void staging_done(void *staging_buffer);

#endif
