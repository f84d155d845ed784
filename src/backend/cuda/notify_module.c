/* The module of notify_kernels.cu (notify_ptx.h), loaded through the
 * driver's JIT into each device's primary context once, on first use or at
 * the device's preload: its kernels are the notifies' counting and timed
 * waits (notify.c) and the release of the waits a teardown gives up
 * (memops.c), which both files call apart. */
#include <pthread.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "backend/cuda/notify_ptx.h"

enum { MAX_DEVICES = 64 };

typedef struct notify_module {
    pthread_mutex_t lock;
    atomic_bool ready;
    aclError error; /* of the one attempt to load it */
    bool tried;
    cuda_notify_kernels kernels;
} notify_module;

static notify_module device_modules[MAX_DEVICES];

__attribute__((constructor)) static void notify_modules_init(void)
{
    for (int i = 0; i < MAX_DEVICES; i++)
        pthread_mutex_init(&device_modules[i].lock, NULL);
}

aclError cuda_notify_kernels_get(int dev, const cuda_notify_kernels **out)
{
    notify_module *m = &device_modules[dev];
    if (!atomic_load_explicit(&m->ready, memory_order_acquire)) {
        pthread_mutex_lock(&m->lock);
        if (!m->tried) {
            m->tried = true;
            cuda_notify_kernels *k = &m->kernels;
            CUmodule mod;
            aclError rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
            if (driver_ready() && drv.cuModuleLoadData && drv.cuModuleGetFunction &&
                drv.cuLaunchKernel && (rc = use_device_checked(dev)) == ACL_SUCCESS &&
                (rc = check(cudaFree(NULL))) == ACL_SUCCESS && /* the primary context */
                (rc = from_cu(drv.cuModuleLoadData(&mod, notify_ptx))) == ACL_SUCCESS &&
                (rc = from_cu(drv.cuModuleGetFunction(&k->count, mod, "aclcuda_notify_count"))) ==
                    ACL_SUCCESS &&
                (rc = from_cu(drv.cuModuleGetFunction(&k->wait, mod, "aclcuda_notify_wait"))) ==
                    ACL_SUCCESS)
                rc = from_cu(drv.cuModuleGetFunction(&k->release, mod, "aclcuda_wait_release"));
            m->error = rc;
            if (rc == ACL_SUCCESS)
                atomic_store_explicit(&m->ready, true, memory_order_release);
        }
        aclError rc = m->error;
        pthread_mutex_unlock(&m->lock);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    *out = &m->kernels;
    return ACL_SUCCESS;
}

void cuda_notify_preload(int dev)
{
    const cuda_notify_kernels *k;
    if (dev >= 0 && dev < MAX_DEVICES)
        (void)cuda_notify_kernels_get(dev, &k);
}
