/* Waiting with a deadline for a CUDA stream or event (cuda.h), for the
 * synchronize operations of stream.c and event.c. */
#include "backend/cuda/cuda.h"
#include "util/clock.h"
#include "util/spin.h"

enum {
    POLL_SPIN_NS = 50 * 1000,  /* queries back to back this long first */
    POLL_FIRST_NS = 20 * 1000, /* first sleep between queries */
    POLL_MAX_NS = 1000 * 1000, /* back-off ceiling */
};

/* CUDA has no timed wait, so poll until the deadline: back-to-back for the
 * first POLL_SPIN_NS (short work finishes about as soon as with the
 * untimed wait), then with a growing sleep. cudaErrorNotReady only means
 * "not yet" (the runtime does not record it as the thread's last error).
 * timeout_ms 0 is a single query. */
aclError cuda_wait_until_done(cuda_query_fn query, void *handle, int32_t timeout_ms,
                              aclError timeout_code)
{
    int64_t start = monotonic_ns();
    int64_t deadline = start + (int64_t)timeout_ms * 1000000;
    int64_t delay = POLL_FIRST_NS;
    for (unsigned i = 0;; i++) {
        cudaError_t err = query(handle);
        if (err == cudaSuccess)
            return ACL_SUCCESS;
        if (err != cudaErrorNotReady)
            return check(err);
        int64_t now = monotonic_ns(), left = deadline - now;
        if (left <= 0)
            return timeout_code;
        if (now - start < POLL_SPIN_NS) {
            spin_step(i);
            continue;
        }
        sleep_ns(delay < left ? delay : left);
        delay = delay * 2 < POLL_MAX_NS ? delay * 2 : POLL_MAX_NS;
    }
}
