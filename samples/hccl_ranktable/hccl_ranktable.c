/* One rank of an all-reduce whose communicator comes from a rank table, as
 * CANN's rank-table samples run: a launcher (run.sh, beside this file)
 * writes the table and starts one process per device with
 *   RANK_TABLE_FILE  the table's path
 *   RANK_ID          this process's rank_id in it
 *   DEVICE_ID        its device_id
 *   RANK_SIZE        the number of ranks
 * Each process sets its device, joins with HcclCommInitClusterInfo (rank 0
 * serves the rendezvous at its server's address, HCCL_IF_BASE_PORT),
 * all-reduces (FP32, sum) 0, 1, 2, ... (RANK_SIZE elements) on a stream and
 * prints "rankId: R, output: [ 0 N 2N ... ]", then checks every element.
 *
 * `hccl_ranktable --device-count` prints aclrtGetDeviceCount (the launcher's
 * default number of ranks). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "hccl/hccl.h"

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

static bool env_number(const char *name, uint32_t *out)
{
    const char *text = getenv(name);
    char *end;
    unsigned long value = text ? strtoul(text, &end, 10) : 0;
    if (!text || !*text || *end || value > 65535) {
        fprintf(stderr, "%s is %s: the launcher sets it to a number\n", name,
                text ? text : "not set");
        return false;
    }
    *out = (uint32_t)value;
    return true;
}

static bool all_reduce(const char *table, uint32_t rank, uint32_t device, uint32_t nranks)
{
    size_t size = nranks * sizeof(float);
    void *send = NULL, *recv = NULL, *host = NULL;
    ACL_CHECK(aclrtSetDevice((int32_t)device));
    ACL_CHECK(aclrtMalloc(&send, size, ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_CHECK(aclrtMalloc(&recv, size, ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_CHECK(aclrtMallocHost(&host, size));
    float *values = host;
    for (uint32_t i = 0; i < nranks; i++)
        values[i] = (float)i;
    ACL_CHECK(aclrtMemcpy(send, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));

    HcclComm comm;
    HCCL_CHECK(HcclCommInitClusterInfo(table, rank, &comm));
    uint32_t comm_size = 0;
    HCCL_CHECK(HcclGetRankSize(comm, &comm_size));
    if (comm_size != nranks) {
        fprintf(stderr, "the table has %u ranks, RANK_SIZE says %u\n", comm_size, nranks);
        return false;
    }
    aclrtStream stream;
    ACL_CHECK(aclrtCreateStream(&stream));
    HCCL_CHECK(
        HcclAllReduce(send, recv, nranks, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    ACL_CHECK(aclrtSynchronizeStream(stream));
    ACL_CHECK(aclrtMemcpy(host, size, recv, size, ACL_MEMCPY_DEVICE_TO_HOST));

    printf("rankId: %u, output: [", rank);
    for (uint32_t i = 0; i < nranks; i++)
        printf(" %g", values[i]);
    printf(" ]\n");
    bool ok = true;
    for (uint32_t i = 0; i < nranks; i++)
        if (values[i] != (float)(i * nranks)) {
            fprintf(stderr, "rank %u: element %u is %g, not %u\n", rank, i, values[i], i * nranks);
            ok = false;
        }
    HCCL_CHECK(HcclCommDestroy(comm));
    ACL_CHECK(aclrtDestroyStream(stream));
    ACL_CHECK(aclrtFreeHost(host));
    ACL_CHECK(aclrtFree(send));
    ACL_CHECK(aclrtFree(recv));
    ACL_CHECK(aclrtResetDevice((int32_t)device));
    return ok;
}

int main(int argc, char **argv)
{
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "aclInit failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    bool ok;
    if (argc > 1 && !strcmp(argv[1], "--device-count")) {
        uint32_t count = 0;
        ok = aclrtGetDeviceCount(&count) == ACL_SUCCESS;
        printf("%u\n", count);
    } else {
        const char *table = getenv("RANK_TABLE_FILE");
        uint32_t rank, device, nranks;
        ok = env_number("RANK_ID", &rank) && env_number("DEVICE_ID", &device) &&
             env_number("RANK_SIZE", &nranks);
        if (ok && !table) {
            fprintf(stderr, "RANK_TABLE_FILE is not set: the launcher sets it\n");
            ok = false;
        }
        ok = ok && all_reduce(table, rank, device, nranks);
    }
    (void)aclFinalize();
    return ok ? 0 : 1;
}
