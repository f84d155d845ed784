/* Device code of the cuda backend's notifies (see notify.c), compiled to PTX
 * by scripts/gen-notify-ptx.sh into notify_ptx.h, which the library loads
 * with the driver's JIT: the library itself is built by a C compiler. */

/* aclrtCntNotifyRecordMode */
#define RECORD_SET 0u
#define RECORD_ADD 1u
#define RECORD_OR 2u
#define RECORD_AND 4u
/* aclrtCntNotifyWaitMode */
#define WAIT_LESS 0u
#define WAIT_EQUAL 1u
#define WAIT_BIGGER 2u
#define WAIT_BIGGER_OR_EQUAL 3u
#define WAIT_EQUAL_WITH_BITMASK 4u

static __device__ __forceinline__ unsigned long long now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ bool matches(unsigned now, unsigned cmp, unsigned value)
{
    switch (cmp) {
    case WAIT_LESS:
        return now < value;
    case WAIT_EQUAL:
        return now == value;
    case WAIT_BIGGER:
        return now > value;
    case WAIT_BIGGER_OR_EQUAL:
        return now >= value;
    default:
        return (now & value) == value;
    }
}

/* A counting notify's record: one thread changes the count. */
extern "C" __global__ void aclcuda_notify_count(unsigned *word, unsigned mode, unsigned value)
{
    __threadfence_system();
    switch (mode) {
    case RECORD_ADD:
        atomicAdd(word, value);
        break;
    case RECORD_OR:
        atomicOr(word, value);
        break;
    case RECORD_AND:
        atomicAnd(word, value);
        break;
    default:
        atomicExch(word, value);
        break;
    }
    __threadfence_system();
}

/* A wait on a notify's word, run by one thread: a plain notify's flag is
 * taken from 1 to 0 (counting: 0), a counting notify's value compared, and
 * cleared if asked. After timeout_ns (0: never) the wait ends anyway and
 * leaves `code` in *fault, unless a failure is already there. */
extern "C" __global__ void aclcuda_notify_wait(unsigned *word, unsigned counting, unsigned cmp,
                                               unsigned value, unsigned clear,
                                               unsigned long long timeout_ns, unsigned *fault,
                                               unsigned code)
{
    unsigned long long start = now_ns();
    unsigned sleep = 32;
    for (;;) {
        if (!counting) {
            if (atomicCAS(word, 1u, 0u) == 1u)
                break;
        } else {
            unsigned now = *(volatile unsigned *)word;
            if (matches(now, cmp, value)) {
                if (clear)
                    atomicCAS(word, now, 0u);
                break;
            }
        }
        if (timeout_ns && now_ns() - start >= timeout_ns) {
            atomicCAS(fault, 0u, code);
            __threadfence_system();
            break;
        }
        __nanosleep(sleep);
        if (sleep < 4096)
            sleep *= 2;
    }
    __threadfence_system();
}

/* aclrtValueWait's comparisons (CUstreamWaitValue_flags) */
#define VALUE_GEQ 0u
#define VALUE_EQ 1u
#define VALUE_AND 2u
#define VALUE_NOR 3u
/* What a released wait waits on (memops.c's wait_kind) */
#define RELEASE_VALUE64 0u
#define RELEASE_FLAG32 1u
#define RELEASE_COUNT32 2u
#define RELEASE_STOP32 3u

static __device__ __forceinline__ bool value_true(unsigned long long now, unsigned cmp,
                                                  unsigned long long value)
{
    switch (cmp) {
    case VALUE_GEQ:
        return (long long)(now - value) >= 0;
    case VALUE_EQ:
        return now == value;
    case VALUE_AND:
        return (now & value) != 0;
    default:
        return ~(now | value) != 0;
    }
}

/* The word that makes a value wait's comparison true, from what it holds
 * now; false when none can. */
static __device__ __forceinline__ bool value_target(unsigned long long now, unsigned cmp,
                                                    unsigned long long value,
                                                    unsigned long long *to)
{
    switch (cmp) {
    case VALUE_GEQ:
    case VALUE_EQ:
        *to = value;
        return true;
    case VALUE_AND:
        *to = now | value;
        return value != 0;
    default:
        *to = now & value;
        return ~value != 0;
    }
}

static __device__ __forceinline__ bool word_true(unsigned kind, unsigned now, unsigned cmp,
                                                 unsigned value)
{
    if (kind == RELEASE_FLAG32 || kind == RELEASE_STOP32)
        return now == 1u;
    return matches(now, cmp, value);
}

static __device__ __forceinline__ bool word_target(unsigned kind, unsigned now, unsigned cmp,
                                                   unsigned value, unsigned *to)
{
    if (kind == RELEASE_FLAG32 || kind == RELEASE_STOP32) {
        *to = 1u;
        return true;
    }
    switch (cmp) {
    case WAIT_LESS:
        *to = value - 1u;
        return value != 0u;
    case WAIT_EQUAL:
    case WAIT_BIGGER_OR_EQUAL:
        *to = value;
        return true;
    case WAIT_BIGGER:
        *to = value + 1u;
        return value != 0xffffffffu;
    default:
        *to = now | value;
        return true;
    }
}

/* Releases a wait that a teardown gave up (memops.c): makes the word it
 * waits on satisfy it, unless it already does or nothing can. */
extern "C" __global__ void aclcuda_wait_release(void *addr, unsigned long long value,
                                                unsigned kind, unsigned cmp)
{
    if (kind == RELEASE_VALUE64) {
        unsigned long long *word = (unsigned long long *)addr;
        unsigned long long now = *(volatile unsigned long long *)word, to;
        while (!value_true(now, cmp, value) && value_target(now, cmp, value, &to)) {
            unsigned long long seen = atomicCAS(word, now, to);
            if (seen == now)
                break;
            now = seen;
        }
    } else {
        unsigned *word = (unsigned *)addr;
        unsigned now = *(volatile unsigned *)word, to;
        while (!word_true(kind, now, cmp, (unsigned)value) &&
               word_target(kind, now, cmp, (unsigned)value, &to)) {
            unsigned seen = atomicCAS(word, now, to);
            if (seen == now)
                break;
            now = seen;
        }
    }
    __threadfence_system();
}
