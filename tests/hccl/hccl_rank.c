/* One rank of a communicator in a process of its own, through the public
 * API only (tests/hccl/processes.sh and two-machines.sh start several):
 *
 *   hccl_rank --nranks N --rank R --root-info FILE [--device D] [--die WHEN]
 *   hccl_rank --nranks N --rank R --rank-table FILE [--die WHEN]
 *   hccl_rank --free-port      a TCP port the kernel just gave out, for HCCL_IF_BASE_PORT
 *   hccl_rank --info           "BACKEND DEVICES ENGINE": the backend, its device count, and
 *                              whether HcclGetRootInfo works (no: built without the engine)
 *
 * N, R, D and the table also come from CANN's launcher variables RANK_SIZE,
 * RANK_ID, DEVICE_ID and RANK_TABLE_FILE. With root info, rank 0 calls HcclGetRootInfo
 * and writes the bytes to FILE (a temporary file renamed over it, so a
 * reader never sees half of them); the other ranks wait for FILE within
 * the connect timeout. The rank runs on its rank-table device_id, else on
 * device D, else on device R.
 *
 * It runs an all-reduce (sum) of FP32 and of INT32, an all-gather and a
 * ring of sends and receives (rank r sends to r + 1), checks every value,
 * and prints one line: "PASS rank R/N ..." (exit 0) or "FAIL rank R/N:
 * the call, its code and the first wrong value" (exit 1).
 *
 * --die before-init | after-barrier: the rank exits (status 3) at once, or
 * once its communicator is made and a first barrier has passed (so every
 * rank has joined), without a word to the others, so that a test can see
 * the others fail instead of waiting forever. */
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "hccl/hccl.h"

#define COUNT 1027 /* not a multiple of anything an engine chunks by */
#define EXIT_DIED 3
#define ROOT_INFO_POLL_NS 10000000L

enum die_point { DIE_NEVER, DIE_BEFORE_INIT, DIE_AFTER_BARRIER };

typedef struct options {
    uint32_t nranks, rank, device;
    bool device_given;
    const char *root_info_path, *rank_table_path;
    enum die_point die;
} options;

typedef struct rank_state {
    const options *opt;
    int32_t device;
    HcclComm comm;
    aclrtStream stream;
    char what[64]; /* "root info" or "rank table" */
} rank_state;

static rank_state state;

static void finish(bool passed, const char *fmt, ...)
{
    char detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printf("%s rank %u/%u (device %d, %s): %s\n", passed ? "PASS" : "FAIL", state.opt->rank,
           state.opt->nranks, (int)state.device, state.what, detail);
    fflush(stdout);
    if (state.comm)
        (void)HcclCommDestroy(state.comm);
    if (state.stream)
        (void)aclrtDestroyStream(state.stream);
    (void)aclrtResetDevice(state.device);
    (void)aclFinalize();
    exit(passed ? 0 : 1);
}

#define ACL_OK(expr)                                                                               \
    do {                                                                                           \
        aclError acl_ret_ = (expr);                                                                \
        if (acl_ret_ != ACL_SUCCESS)                                                               \
            finish(false, "%s returned %d: %s", #expr, (int)acl_ret_, aclGetRecentErrMsg());       \
    } while (0)
#define HCCL_OK(expr)                                                                              \
    do {                                                                                           \
        HcclResult hccl_ret_ = (expr);                                                             \
        if (hccl_ret_ != HCCL_SUCCESS)                                                             \
            finish(false, "%s returned %d (%s)", #expr, (int)hccl_ret_,                            \
                   HcclGetErrorString(hccl_ret_));                                                 \
    } while (0)

static double connect_timeout_s(void)
{
    const char *names[] = {"ACLCUDA_HCCL_CONNECT_TIMEOUT", "HCCL_CONNECT_TIMEOUT"};
    for (size_t i = 0; i < 2; i++) {
        const char *text = getenv(names[i]);
        if (text && atoi(text) > 0)
            return atoi(text);
    }
    return 120;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- root info through a file ------------------------------------------------------------ */

static void write_root_info(const char *path, const HcclRootInfo *root)
{
    char temp[4096];
    snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(temp, "wb");
    bool written = f && fwrite(root, sizeof *root, 1, f) == 1;
    if (f && fclose(f) != 0)
        written = false;
    if (!written || rename(temp, path) != 0) {
        int saved = errno;
        unlink(temp);
        finish(false, "cannot write the root info to %s: %s", path, strerror(saved));
    }
}

static void read_root_info(const char *path, HcclRootInfo *root)
{
    double deadline = now_s() + connect_timeout_s();
    for (;;) {
        FILE *f = fopen(path, "rb");
        if (f) {
            bool complete = fread(root, sizeof *root, 1, f) == 1;
            fclose(f);
            if (complete)
                return;
            finish(false, "%s holds less than the %zu bytes of root info", path, sizeof *root);
        }
        if (errno != ENOENT)
            finish(false, "cannot open %s: %s", path, strerror(errno));
        if (now_s() > deadline)
            finish(false, "rank 0 wrote no root info to %s within %.0f s (the connect timeout)",
                   path, connect_timeout_s());
        nanosleep(&(struct timespec){0, ROOT_INFO_POLL_NS}, NULL);
    }
}

/* ---- the rank's device in a rank table ---------------------------------------------------- */

static int32_t device_in_servers(json_t *servers, uint32_t rank)
{
    size_t i, j;
    json_t *server, *device;
    json_array_foreach(servers, i, server)
    {
        json_array_foreach(json_object_get(server, "device"), j, device)
        {
            const char *rank_id = json_string_value(json_object_get(device, "rank_id"));
            const char *device_id = json_string_value(json_object_get(device, "device_id"));
            if (rank_id && device_id && strtoul(rank_id, NULL, 10) == rank)
                return (int32_t)strtol(device_id, NULL, 10);
        }
    }
    return -1;
}

/* The device_id of rank's entry, flat (server_list) or grouped
 * (server_group_list[].server_list); -1 when the table has none. */
static int32_t rank_table_device(const char *path, uint32_t rank)
{
    json_error_t error;
    json_t *table = json_load_file(path, 0, &error);
    if (!table)
        return -1;
    int32_t device = device_in_servers(json_object_get(table, "server_list"), rank);
    size_t i;
    json_t *group;
    json_array_foreach(json_object_get(table, "server_group_list"), i, group)
    {
        if (device < 0)
            device = device_in_servers(json_object_get(group, "server_list"), rank);
    }
    json_decref(table);
    return device;
}

/* ---- the collectives ----------------------------------------------------------------------- */

static void *device_copy_of(const void *host, size_t size)
{
    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    if (host)
        ACL_OK(aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));
    return dev;
}

static void to_host(void *host, const void *dev, size_t size)
{
    ACL_OK(aclrtMemcpy(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* A collective that failed on its stream (a peer gone) is the
 * communicator's async error: the stream itself goes on. */
static void wait_stream(const char *after)
{
    aclError err = aclrtSynchronizeStream(state.stream);
    if (err != ACL_SUCCESS)
        finish(false, "aclrtSynchronizeStream after %s returned %d: %s", after, (int)err,
               aclGetRecentErrMsg());
    HcclResult async = HCCL_SUCCESS;
    HCCL_OK(HcclGetCommAsyncError(state.comm, &async));
    if (async != HCCL_SUCCESS)
        finish(false, "%s failed: HcclGetCommAsyncError gives %d (%s)", after, (int)async,
               HcclGetErrorString(async));
}

static void run_collectives(void)
{
    const uint32_t n = state.opt->nranks, r = state.opt->rank;
    static float fin[COUNT], fout[COUNT];
    static int32_t iin[COUNT], iout[COUNT], gathered[COUNT * 64];
    const size_t fbytes = sizeof fin, ibytes = sizeof iin;

    /* rank r holds r + i / 4 (exact in FP32) and (r + 1) * (i + 1). */
    for (uint32_t i = 0; i < COUNT; i++) {
        fin[i] = (float)r + (float)i / 4;
        iin[i] = (int32_t)((r + 1) * (i + 1));
    }
    void *fsend = device_copy_of(fin, fbytes), *frecv = device_copy_of(NULL, fbytes);
    void *isend = device_copy_of(iin, ibytes), *irecv = device_copy_of(NULL, ibytes);
    void *grecv = device_copy_of(NULL, ibytes * n);
    HCCL_OK(HcclAllReduce(fsend, frecv, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, state.comm,
                          state.stream));
    HCCL_OK(HcclAllReduce(isend, irecv, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, state.comm,
                          state.stream));
    HCCL_OK(HcclAllGather(isend, grecv, COUNT, HCCL_DATA_TYPE_INT32, state.comm, state.stream));
    wait_stream("the all-reduces and the all-gather");
    to_host(fout, frecv, fbytes);
    to_host(iout, irecv, ibytes);
    to_host(gathered, grecv, ibytes * n);
    const float rank_sum = (float)n * (float)(n - 1) / 2;
    for (uint32_t i = 0; i < COUNT; i++) {
        float want = rank_sum + (float)n * ((float)i / 4);
        if (fout[i] != want)
            finish(false, "all-reduce FP32: element %u is %g, not %g", i, fout[i], want);
        int32_t iwant = (int32_t)((i + 1) * n * (n + 1) / 2);
        if (iout[i] != iwant)
            finish(false, "all-reduce INT32: element %u is %d, not %d", i, iout[i], iwant);
        for (uint32_t from = 0; from < n; from++) {
            int32_t gwant = (int32_t)((from + 1) * (i + 1));
            if (gathered[from * COUNT + i] != gwant)
                finish(false, "all-gather: element %u of rank %u is %d, not %d", i, from,
                       gathered[from * COUNT + i], gwant);
        }
    }

    /* The ring: rank r sends its INT32 input to r + 1 and receives r - 1's. */
    if (n > 1) {
        HCCL_OK(HcclGroupStart());
        HCCL_OK(
            HcclSend(isend, COUNT, HCCL_DATA_TYPE_INT32, (r + 1) % n, state.comm, state.stream));
        HCCL_OK(HcclRecv(irecv, COUNT, HCCL_DATA_TYPE_INT32, (r + n - 1) % n, state.comm,
                         state.stream));
        HCCL_OK(HcclGroupEnd());
        wait_stream("the send/recv ring");
        to_host(iout, irecv, ibytes);
        uint32_t from = (r + n - 1) % n;
        for (uint32_t i = 0; i < COUNT; i++)
            if (iout[i] != (int32_t)((from + 1) * (i + 1)))
                finish(false, "ring: element %u from rank %u is %d, not %d", i, from, iout[i],
                       (int32_t)((from + 1) * (i + 1)));
    }
    /* Nobody leaves while a peer may still be reading from it. */
    HCCL_OK(HcclBarrier(state.comm, state.stream));
    wait_stream("the barrier");
    ACL_OK(aclrtFree(fsend));
    ACL_OK(aclrtFree(frecv));
    ACL_OK(aclrtFree(isend));
    ACL_OK(aclrtFree(irecv));
    ACL_OK(aclrtFree(grecv));
}

/* ---- the small queries ---------------------------------------------------------------------- */

static int print_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        perror("hccl_rank --free-port");
        return 1;
    }
    printf("%u\n", (unsigned)ntohs(sa.sin_port));
    close(fd);
    return 0;
}

static int print_info(void)
{
    uint32_t count = 0;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS)
        count = 0;
    HcclRootInfo root;
    bool engine =
        count > 0 && aclrtSetDevice(0) == ACL_SUCCESS && HcclGetRootInfo(&root) == HCCL_SUCCESS;
    printf("%s %u %s\n", aclcudaGetBackendName(), count, engine ? "yes" : "no");
    (void)aclFinalize();
    return 0;
}

static int usage(const char *why)
{
    fprintf(stderr,
            "hccl_rank: %s\nusage: hccl_rank --nranks N --rank R (--root-info FILE [--device D] | "
            "--rank-table FILE) [--die before-init|after-barrier]\n       hccl_rank --free-port | "
            "--info\n",
            why);
    return 2;
}

static bool parse_u32(const char *text, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long value = text ? strtoul(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || value > UINT32_MAX)
        return false;
    *out = (uint32_t)value;
    return true;
}

int main(int argc, char **argv)
{
    static options opt = {.nranks = 0};
    const char *nranks_text = getenv("RANK_SIZE"), *rank_text = getenv("RANK_ID");
    const char *device_text = getenv("DEVICE_ID");
    opt.rank_table_path = getenv("RANK_TABLE_FILE");
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--free-port"))
            return print_free_port();
        if (!strcmp(arg, "--info"))
            return print_info();
        if (!value)
            return usage("an option lacks its value");
        if (!strcmp(arg, "--nranks"))
            nranks_text = value;
        else if (!strcmp(arg, "--rank"))
            rank_text = value;
        else if (!strcmp(arg, "--device"))
            device_text = value;
        else if (!strcmp(arg, "--root-info"))
            opt.root_info_path = value;
        else if (!strcmp(arg, "--rank-table"))
            opt.rank_table_path = value;
        else if (!strcmp(arg, "--die") && !strcmp(value, "before-init"))
            opt.die = DIE_BEFORE_INIT;
        else if (!strcmp(arg, "--die") && !strcmp(value, "after-barrier"))
            opt.die = DIE_AFTER_BARRIER;
        else
            return usage("unknown option");
        i++;
    }
    if (!parse_u32(nranks_text, &opt.nranks) || !parse_u32(rank_text, &opt.rank) ||
        opt.rank >= opt.nranks || opt.nranks > 64)
        return usage("the rank must be below the rank count, at most 64");
    opt.device_given = device_text != NULL;
    if (opt.device_given && (!parse_u32(device_text, &opt.device) || opt.device > INT32_MAX))
        return usage("the device is a number");
    if (!opt.root_info_path == !opt.rank_table_path)
        return usage("give a root-info file or a rank table");

    state.opt = &opt;
    state.device = (int32_t)(opt.device_given ? opt.device : opt.rank);
    snprintf(state.what, sizeof state.what, "%s", opt.root_info_path ? "root info" : "rank table");
    if (opt.rank_table_path &&
        (state.device = rank_table_device(opt.rank_table_path, opt.rank)) < 0)
        finish(false, "%s lists no device_id for rank %u", opt.rank_table_path, opt.rank);
    if (opt.die == DIE_BEFORE_INIT) {
        printf("DIED rank %u/%u before joining, as asked\n", opt.rank, opt.nranks);
        return EXIT_DIED;
    }
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(state.device));
    ACL_OK(aclrtCreateStream(&state.stream));
    if (opt.root_info_path) {
        HcclRootInfo root;
        if (opt.rank == 0) {
            HCCL_OK(HcclGetRootInfo(&root));
            write_root_info(opt.root_info_path, &root);
        } else {
            read_root_info(opt.root_info_path, &root);
        }
        HCCL_OK(HcclCommInitRootInfo(opt.nranks, &root, opt.rank, &state.comm));
    } else {
        HCCL_OK(HcclCommInitClusterInfo(opt.rank_table_path, opt.rank, &state.comm));
    }
    /* Every rank has joined once this passes. */
    HCCL_OK(HcclBarrier(state.comm, state.stream));
    wait_stream("the first barrier");
    if (opt.die == DIE_AFTER_BARRIER) {
        printf("DIED rank %u/%u after a barrier, as asked\n", opt.rank, opt.nranks);
        fflush(stdout);
        _exit(EXIT_DIED);
    }
    uint32_t size = 0, id = UINT32_MAX;
    HCCL_OK(HcclGetRankSize(state.comm, &size));
    HCCL_OK(HcclGetRankId(state.comm, &id));
    if (size != opt.nranks || id != opt.rank)
        finish(false, "the communicator says rank %u of %u", id, size);
    run_collectives();
    finish(true, "all-reduce FP32 and INT32, all-gather%s: %d elements each, every value right",
           opt.nranks > 1 ? ", send/recv ring" : "", COUNT);
}
