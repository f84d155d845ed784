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
