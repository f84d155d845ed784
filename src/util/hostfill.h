/* Filling host memory nothing vouches for (a pointer no allocator knows)
 * without faulting on it: the kernel writes it (process_vm_writev on our
 * own process), refusing unmapped or read-only pages instead of raising
 * SIGSEGV; where that call is filtered, /proc/self/maps must show the
 * whole range writable first. */
#ifndef ACLCUDA_UTIL_HOSTFILL_H
#define ACLCUDA_UTIL_HOSTFILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sets n bytes at ptr to value; false when some of them are not writable
 * memory (those before the first bad page may have been set). */
bool host_fill_checked(void *ptr, uint8_t value, size_t n);

#endif
