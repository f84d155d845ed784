/* Futexes on words other processes may share (MAP_SHARED pages): waits and
 * wakes that do not assume the word is private to this process. */
#ifndef ACLCUDA_UTIL_FUTEX_H
#define ACLCUDA_UTIL_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word is seen, at most timeout (NULL: no limit); returns
 * early on a wake, a signal or a changed word. */
static inline void futex_wait(_Atomic uint32_t *word, uint32_t seen, const struct timespec *timeout)
{
    (void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, timeout, NULL, 0);
}

/* Wakes every waiter on word. */
static inline void futex_wake_all(_Atomic uint32_t *word)
{
    (void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

#endif
