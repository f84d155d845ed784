/* The one clock of every timeout, deadline and spin limit: CLOCK_MONOTONIC. */
#ifndef ACLCUDA_UTIL_CLOCK_H
#define ACLCUDA_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* The absolute CLOCK_MONOTONIC time timeout_ms from now, for timed waits
 * on condition variables made with pthread_condattr_setclock. */
static inline void deadline_after_ms(struct timespec *ts, int64_t timeout_ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (timeout_ms % 1000) * 1000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

/* Whole milliseconds left until deadline_ns (monotonic_ns's clock), at
 * least 0. */
static inline int32_t ms_left(int64_t deadline_ns)
{
    int64_t left = (deadline_ns - monotonic_ns()) / 1000000;
    if (left < 0)
        return 0;
    return left > INT32_MAX ? INT32_MAX : (int32_t)left;
}

/* Sleeps about ns nanoseconds; an interrupted sleep just ends early. */
static inline void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    (void)nanosleep(&ts, NULL);
}

#endif
