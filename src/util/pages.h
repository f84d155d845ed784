/* What the kernel has mapped at a range of this process's addresses, read
 * from /proc/self/maps: whether every page is mapped, and the protection
 * all of them share. */
#ifndef ACLCUDA_UTIL_PAGES_H
#define ACLCUDA_UTIL_PAGES_H

#include <stddef.h>

typedef enum pages_state {
    PAGES_MAPPED,   /* every page of the range is mapped; *prot says how */
    PAGES_UNMAPPED, /* some page of it is not */
    PAGES_UNKNOWN,  /* /proc/self/maps could not be read */
} pages_state;

/* *prot: the PROT_READ, PROT_WRITE and PROT_EXEC bits every page of
 * [ptr, ptr + size) has (size > 0). */
pages_state pages_protection(const void *ptr, size_t size, int *prot);

#endif
