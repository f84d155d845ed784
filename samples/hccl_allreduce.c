/* An all-reduce over every device of this machine, as CANN's HCCL samples
 * do it: one thread per device, each after aclrtSetDevice; rank 0's root
 * info (HcclGetRootInfo, called once) shared by the threads;
 * HcclCommInitRootInfo in each thread; HcclAllReduce (FP32, sum) on a
 * stream, then aclrtSynchronizeStream. Rank r's input is 0, 1, 2, ...
 * (one element per device), so every rank's output is 0, N, 2N, ...
 * It prints
 *   Found N NPU device(s) available
 *   rankId: 0, output: [ 0 N 2N ... ]
 *   ...
 * in rank order (CANN's sample sleeps in each thread to order them), checks
 * every element and exits non-zero on any error.
 *
 * The device count is argv[1], else aclrtGetDeviceCount (on the host
 * backend, ACLCUDA_HOST_DEVICE_COUNT devices). Nothing here is acl-cuda
 * specific: it is the ACL and HCCL code an Ascend program has. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define MAX_DEVICES 64

typedef struct rank_thread {
    pthread_t thread;
    const HcclRootInfo *root;
    uint32_t device, count;
    float *output; /* count elements, filled by the thread */
    bool ok;
} rank_thread;

#define ACL_CHECK(call)                                                                            \
    do {                                                                                           \
        aclError acl_ret_ = (call);                                                                \
        if (acl_ret_ != ACL_SUCCESS) {                                                             \
            fprintf(stderr, "%s failed, ret=%d: %s\n", #call, (int)acl_ret_,                       \
                    aclGetRecentErrMsg());                                                         \
            return false;                                                                          \
        }                                                                                          \
    } while (0)
#define HCCL_CHECK(call)                                                                           \
    do {                                                                                           \
        HcclResult hccl_ret_ = (call);                                                             \
        if (hccl_ret_ != HCCL_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed, ret=%d (%s)\n", #call, (int)hccl_ret_,                     \
                    HcclGetErrorString(hccl_ret_));                                                \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

static bool all_reduce_on_device(rank_thread *t)
{
    size_t size = t->count * sizeof(float);
    void *send = NULL, *recv = NULL, *host = NULL;
    ACL_CHECK(aclrtSetDevice((int32_t)t->device));
    ACL_CHECK(aclrtMalloc(&send, size, ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_CHECK(aclrtMalloc(&recv, size, ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_CHECK(aclrtMallocHost(&host, size));
    for (uint32_t i = 0; i < t->count; i++)
        ((float *)host)[i] = (float)i;
    ACL_CHECK(aclrtMemcpy(send, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));

    HcclComm comm;
    HCCL_CHECK(HcclCommInitRootInfo(t->count, t->root, t->device, &comm));
    aclrtStream stream;
    ACL_CHECK(aclrtCreateStream(&stream));
    HCCL_CHECK(
        HcclAllReduce(send, recv, t->count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    ACL_CHECK(aclrtSynchronizeStream(stream));
    ACL_CHECK(aclrtMemcpy(t->output, size, recv, size, ACL_MEMCPY_DEVICE_TO_HOST));

    HCCL_CHECK(HcclCommDestroy(comm));
    ACL_CHECK(aclrtDestroyStream(stream));
    ACL_CHECK(aclrtFreeHost(host));
    ACL_CHECK(aclrtFree(send));
    ACL_CHECK(aclrtFree(recv));
    ACL_CHECK(aclrtResetDevice((int32_t)t->device));
    return true;
}

static void *rank_main(void *arg)
{
    rank_thread *t = arg;
    t->ok = all_reduce_on_device(t);
    return NULL;
}

static bool run(int argc, char **argv)
{
    uint32_t available = 0;
    ACL_CHECK(aclrtGetDeviceCount(&available));
    uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : available;
    if (count == 0 || count > available || count > MAX_DEVICES) {
        fprintf(stderr, "asked for %u devices; %u are available (at most %d used)\n", count,
                available, MAX_DEVICES);
        return false;
    }
    printf("Found %u NPU device(s) available\n", count);

    /* Rank 0's root info, made once on its device and read by every rank. */
    static HcclRootInfo root;
    ACL_CHECK(aclrtSetDevice(0));
    HCCL_CHECK(HcclGetRootInfo(&root));

    static rank_thread threads[MAX_DEVICES];
    static float outputs[MAX_DEVICES][MAX_DEVICES];
    for (uint32_t d = 0; d < count; d++) {
        threads[d] =
            (rank_thread){.root = &root, .device = d, .count = count, .output = outputs[d]};
        if (pthread_create(&threads[d].thread, NULL, rank_main, &threads[d]) != 0) {
            fprintf(stderr, "cannot start the thread of device %u\n", d);
            exit(1); /* the threads started would wait for this one */
        }
    }
    bool ok = true;
    for (uint32_t d = 0; d < count; d++) {
        pthread_join(threads[d].thread, NULL);
        ok = ok && threads[d].ok;
    }
    for (uint32_t d = 0; d < count && ok; d++) {
        printf("rankId: %u, output: [", d);
        for (uint32_t i = 0; i < count; i++)
            printf(" %g", outputs[d][i]);
        printf(" ]\n");
        for (uint32_t i = 0; i < count; i++)
            if (outputs[d][i] != (float)(i * count)) {
                fprintf(stderr, "rank %u: element %u is %g, not %u\n", d, i, outputs[d][i],
                        i * count);
                ok = false;
            }
    }
    ACL_CHECK(aclrtResetDevice(0));
    return ok;
}

int main(int argc, char **argv)
{
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "aclInit failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    bool ok = run(argc, argv);
    (void)aclFinalize();
    return ok ? 0 : 1;
}
