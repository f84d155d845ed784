#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/dump.h"
#include "core/exception.h"
#include "util/fork.h"
#include "util/log.h"

enum { MAX_DEVICES = 64 };

static pthread_mutex_t exception_lock = PTHREAD_MUTEX_INITIALIZER;
static aclrtExceptionInfoCallback set_callback; /* aclrtSetExceptionInfoCallback's */
static aclrtExceptionInfoCallback *registered;  /* aclrtExceptionInfoCallbackRegister's */
static size_t registered_count, registered_cap;
/* aclrtBinarySetExceptionCallback's: one per loaded binary. */
typedef struct binary_callback {
    const void *binary;
    int32_t phys;
    aclrtOpExceptionCallback fn;
    void *user_data;
} binary_callback;
static binary_callback *binaries;
static size_t binary_count, binary_cap;
static _Atomic aclError device_faults[MAX_DEVICES];

/* The info this thread's callbacks are being given, for the getters. */
static _Thread_local const struct rtExceptionInfo *reporting;

bool exception_is_device_fault(aclError code)
{
    switch (code) {
    case ACL_ERROR_RT_AICORE_EXCEPTION:
    case ACL_ERROR_RT_AICORE_TIMEOUT:
    case ACL_ERROR_RT_AICORE_TRAP_EXCEPTION:
    case ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR:
    case ACL_ERROR_RT_LINK_ERROR:
        return true;
    default:
        return false;
    }
}

aclError exception_device_fault(int32_t phys)
{
    return phys >= 0 && phys < MAX_DEVICES ? atomic_load(&device_faults[phys]) : ACL_SUCCESS;
}

void exception_report(int32_t phys, int32_t device, int32_t stream_id, uint32_t task_id,
                      aclError code)
{
    if (phys < 0 || phys >= MAX_DEVICES)
        return;
    aclError none = ACL_SUCCESS;
    if (!atomic_compare_exchange_strong(&device_faults[phys], &none, code))
        return; /* reported already */
    ACL_LOG(LOG_ERROR, "device %d failed a task on stream %d (task %u): error %d", (int)device,
            (int)stream_id, task_id, (int)code);
    dump_device_fault(device, stream_id, task_id, code);
    struct rtExceptionInfo info = {
        .task_id = task_id,
        .stream_id = (uint32_t)stream_id,
        .thread_id = (uint32_t)syscall(SYS_gettid),
        .device_id = (uint32_t)device,
        .error_code = (uint32_t)code,
    };
    pthread_mutex_lock(&exception_lock);
    size_t count = registered_count;
    aclrtExceptionInfoCallback *copy = count ? malloc(count * sizeof *copy) : NULL;
    if (copy)
        for (size_t i = 0; i < count; i++)
            copy[i] = registered[i];
    else
        count = 0;
    aclrtExceptionInfoCallback one = set_callback;
    /* The binaries loaded on the device: CUDA reports a fault for the
     * context, so the kernel of any of them may have caused it. */
    size_t nbin = 0;
    binary_callback *bins = binary_count ? malloc(binary_count * sizeof *bins) : NULL;
    for (size_t i = 0; bins && i < binary_count; i++)
        if (binaries[i].phys == phys)
            bins[nbin++] = binaries[i];
    pthread_mutex_unlock(&exception_lock);
    const struct rtExceptionInfo *outer = reporting;
    reporting = &info;
    if (one)
        one((aclrtExceptionInfo *)&info);
    for (size_t i = 0; i < count; i++)
        copy[i]((aclrtExceptionInfo *)&info);
    for (size_t i = 0; i < nbin; i++)
        bins[i].fn((aclrtExceptionInfo *)&info, bins[i].user_data);
    reporting = outer;
    free(copy);
    free(bins);
}

aclError exception_binary_callback(const void *binary, int32_t phys, aclrtOpExceptionCallback fn,
                                   void *user_data)
{
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&exception_lock);
    size_t i = 0;
    while (i < binary_count && binaries[i].binary != binary)
        i++;
    if (!fn) {
        if (i < binary_count)
            binaries[i] = binaries[--binary_count];
    } else {
        if (i == binary_count && binary_count == binary_cap) {
            size_t cap = binary_cap ? 2 * binary_cap : 8;
            binary_callback *grown = realloc(binaries, cap * sizeof *grown);
            if (grown) {
                binaries = grown;
                binary_cap = cap;
            }
        }
        if (i < binary_cap) {
            binaries[i] = (binary_callback){binary, phys, fn, user_data};
            if (i == binary_count)
                binary_count++;
        } else {
            err = ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    pthread_mutex_unlock(&exception_lock);
    return err;
}

void exception_set_callback(aclrtExceptionInfoCallback fn)
{
    pthread_mutex_lock(&exception_lock);
    set_callback = fn;
    pthread_mutex_unlock(&exception_lock);
}

/* Registering a callback again keeps one entry, as CANN does. */
aclError exception_register(aclrtExceptionInfoCallback fn)
{
    aclError err = ACL_SUCCESS;
    pthread_mutex_lock(&exception_lock);
    bool present = false;
    for (size_t i = 0; i < registered_count && !present; i++)
        present = registered[i] == fn;
    if (!present) {
        if (registered_count == registered_cap) {
            size_t cap = registered_cap ? 2 * registered_cap : 8;
            aclrtExceptionInfoCallback *grown = realloc(registered, cap * sizeof *grown);
            if (grown) {
                registered = grown;
                registered_cap = cap;
            }
        }
        if (registered_count < registered_cap)
            registered[registered_count++] = fn;
        else
            err = ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    pthread_mutex_unlock(&exception_lock);
    return err;
}

void exception_unregister(aclrtExceptionInfoCallback fn)
{
    pthread_mutex_lock(&exception_lock);
    for (size_t i = 0; i < registered_count; i++) {
        if (registered[i] == fn) {
            registered[i] = registered[--registered_count];
            break;
        }
    }
    pthread_mutex_unlock(&exception_lock);
}

const struct rtExceptionInfo *exception_info_check(const aclrtExceptionInfo *info)
{
    return info && (const struct rtExceptionInfo *)info == reporting ? reporting : NULL;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&exception_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&exception_lock);
}

__attribute__((constructor)) static void exception_init(void)
{
    fork_register(FORK_RANK_CALLBACKS, fork_prepare, fork_done, fork_done);
}
