/* Spinning before sleeping: a futex wake-up costs microseconds on a VM, a
 * hand-off between two running threads a few hundred nanoseconds. */
#ifndef ACLCUDA_UTIL_SPIN_H
#define ACLCUDA_UTIL_SPIN_H

#include <sched.h>
#include <stdatomic.h>

#include "util/clock.h"

/* The i-th step of a spin-wait: a CPU pause, and every 64th step a yield,
 * so that a spinner on a machine with fewer cores than busy threads does
 * not starve the thread it waits for. */
static inline void spin_step(unsigned i)
{
    if (i % 64 == 63) {
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Spins until *word no longer holds value or the clock passes end_ns. */
static inline void spin_while_equal(const atomic_uint *word, unsigned value, int64_t end_ns)
{
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != value)
            return;
        if (i % 16 == 15 && monotonic_ns() >= end_ns)
            return;
        spin_step(i);
    }
}

#endif
