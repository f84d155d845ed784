/* Host memory a caller hands over (argument buffers, parameter values),
 * read without trusting the pointer: an unmapped or unreadable address is
 * an answer, not a fault. The kernel does the reading (process_vm_readv on
 * our own process), so a bad address comes back as EFAULT; where that
 * system call is refused (a seccomp filter), write(2) into a pipe does the
 * same. Memory known readable (the caller's stack above this frame) is not
 * asked about. */
#ifndef ACLCUDA_UTIL_PROBE_H
#define ACLCUDA_UTIL_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether [p, p + n) lies in the calling thread's stack above the caller's
 * frame: live stack, which is readable and writable. */
bool probe_on_stack(const void *p, size_t n);
/* Copies n bytes from src to dst; false (nothing or part copied) when
 * either range is not accessible memory of this process. */
bool probe_copy(void *dst, const void *src, size_t n);
/* Copies n bytes from src, memory known readable (the caller's own), to
 * dst, memory a caller handed over; false (nothing or part copied) when
 * dst is not writable memory of this process. */
bool probe_write(void *dst, const void *src, size_t n);
/* Whether [p, p + n) is readable and writable now: its bytes are read and
 * written back as they were (the caller owns the memory: nothing else may
 * write it meanwhile). */
bool probe_writable(void *p, size_t n);

#endif
