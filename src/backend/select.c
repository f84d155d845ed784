/* Chooses the backend once per process: ACLCUDA_BACKEND=cuda|host|auto.
 * auto takes cuda when it was built in and a GPU answers, else host. An
 * explicit "cuda" that cannot work is not quietly replaced by host: the
 * process then sees no devices, so a GPU test run cannot pass on the CPU. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "util/log.h"
static const backend_ops *chosen;
const backend_ops *_Atomic backend_in_use;
static bool chosen_usable;
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

static void choose(void)
{
    const char *want = getenv("ACLCUDA_BACKEND");
    if (!want || !*want)
        want = "auto";
    if (strcmp(want, "cuda") && strcmp(want, "host") && strcmp(want, "auto")) {
        ACL_LOG(LOG_WARNING, "ACLCUDA_BACKEND=%s is not cuda, host or auto; using auto", want);
        want = "auto";
    }

    if (!strcmp(want, "host")) {
        chosen = &backend_host_ops;
        chosen_usable = true;
        ACL_LOG(LOG_INFO, "backend host (ACLCUDA_BACKEND=host)");
        return;
    }
#ifdef ACLCUDA_HAVE_CUDA
    aclError probe = backend_cuda_ops.device->probe();
    if (probe == ACL_SUCCESS) {
        chosen = &backend_cuda_ops;
        chosen_usable = true;
        ACL_LOG(LOG_INFO, "backend cuda (ACLCUDA_BACKEND=%s)", want);
        return;
    }
    if (!strcmp(want, "cuda")) {
        chosen = &backend_cuda_ops;
        chosen_usable = false;
        ACL_LOG(LOG_ERROR, "ACLCUDA_BACKEND=cuda but no usable GPU (error %d): no devices", (int)probe);
        return;
    }
    ACL_LOG(LOG_INFO, "no usable GPU (error %d); backend host", (int)probe);
#else
    if (!strcmp(want, "cuda")) {
        chosen = &backend_host_ops;
        chosen_usable = false;
        ACL_LOG(LOG_ERROR, "ACLCUDA_BACKEND=cuda but this build has no cuda backend: no devices");
        return;
    }
    ACL_LOG(LOG_INFO, "built without CUDA; backend host");
#endif
    chosen = &backend_host_ops;
    chosen_usable = true;
}

const backend_ops *backend_choose(void)
{
    pthread_once(&choose_once, choose);
    atomic_store_explicit(&backend_in_use, chosen, memory_order_release);
    return chosen;
}

bool backend_usable(void)
{
    pthread_once(&choose_once, choose);
    return chosen_usable;
}
