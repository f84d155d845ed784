/* Tensor data transfer (issue #30): a channel's round trip against a plain
 * pipe carrying the same bytes. An echo thread receives each message and
 * sends it back: on a pair of channels (acltdtSendTensor /
 * acltdtReceiveTensor of one item of N bytes), and on a pair of pipes
 * (write/read of the same N bytes). A round trip moves 2N bytes; the
 * throughput column is 2N over the round trip's median. Sizes 1 KiB to
 * 64 MiB, each size timed in interleaved rounds of a batch of round trips
 * (the channel first in odd rounds, the pipe first in even ones), medians
 * and 10th/90th percentiles as bench_c reports them (harness.h).
 *
 *   bench_tdt [--json PATH] [--rounds N]
 *
 * The default run is short (5 rounds, batches of at most 64 MiB moved).
 * The results go to PATH under the key "tdt". */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_tdt.h"
#include "harness.h"

enum { SIZES = 9 };
static const size_t sizes[SIZES] = {1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10,
                                    1 << 20, 4 << 20, 16 << 20, 64 << 20};

static struct {
    acltdtChannelHandle *to_echo, *from_echo;
    int to_pipe[2], from_pipe[2];
    unsigned char *bytes, *back;
    size_t size;
    volatile int stop;
} fx;

static void write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t done = write(fd, p, n);
        if (done <= 0)
            fail("pipe write failed");
        p += done;
        n -= (size_t)done;
    }
}

static void read_all(int fd, unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t done = read(fd, p, n);
        if (done <= 0)
            fail("pipe read failed");
        p += done;
        n -= (size_t)done;
    }
}

/* The channel's echo: receives a dataset and sends it back as it came. */
static void *channel_echo(void *arg)
{
    (void)arg;
    ACL_OK(aclrtSetDevice(0));
    for (;;) {
        acltdtDataset *set = acltdtCreateDataset();
        aclError ret = acltdtReceiveTensor(fx.to_echo, set, -1);
        if (ret != ACL_SUCCESS) {
            acltdtDestroyDataset(set);
            break; /* stopped */
        }
        ACL_OK(acltdtSendTensor(fx.from_echo, set, -1));
        ACL_OK(acltdtDestroyDataset(set));
    }
    return NULL;
}

/* The pipe's echo: the first 8 bytes say how many follow (0: stop). */
static void *pipe_echo(void *arg)
{
    (void)arg;
    unsigned char *buf = malloc(sizes[SIZES - 1]);
    for (;;) {
        uint64_t n;
        read_all(fx.to_pipe[0], (unsigned char *)&n, sizeof n);
        if (n == 0)
            break;
        read_all(fx.to_pipe[0], buf, n);
        write_all(fx.from_pipe[1], buf, n);
    }
    free(buf);
    return NULL;
}

static void channel_round_trips(int calls)
{
    int64_t dims[1] = {(int64_t)fx.size};
    for (int c = 0; c < calls; c++) {
        acltdtDataItem *item =
            acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_UINT8, fx.bytes, fx.size);
        acltdtDataset *out = acltdtCreateDataset(), *in = acltdtCreateDataset();
        ACL_OK(acltdtAddDataItem(out, item));
        ACL_OK(acltdtSendTensor(fx.to_echo, out, -1));
        ACL_OK(acltdtReceiveTensor(fx.from_echo, in, -1));
        if (acltdtGetDataSizeFromItem(acltdtGetDataItem(in, 0)) != fx.size)
            fail("the channel's echo came back with another size");
        ACL_OK(acltdtDestroyDataset(in));
        ACL_OK(acltdtDestroyDataset(out));
        ACL_OK(acltdtDestroyDataItem(item));
    }
}

static void pipe_round_trips(int calls)
{
    uint64_t n = fx.size;
    for (int c = 0; c < calls; c++) {
        write_all(fx.to_pipe[1], (const unsigned char *)&n, sizeof n);
        write_all(fx.to_pipe[1], fx.bytes, fx.size);
        read_all(fx.from_pipe[0], fx.back, fx.size);
    }
}

static void nothing(void)
{
}

static json_t *row_json(const comparison *c, size_t size)
{
    json_t *o = json_object();
    json_object_set_new(o, "bytes", json_integer((json_int_t)size));
    json_object_set_new(o, "channel", stats_json(&c->acl));
    json_object_set_new(o, "pipe", stats_json(&c->cuda));
    return o;
}

int main(int argc, char **argv)
{
    bench_name = "bench_tdt";
    const char *json_path = NULL;
    int rounds = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else
            fail("usage: bench_tdt [--json PATH] [--rounds N]");
    }
    if (rounds < 1 || rounds > MAX_ROUNDS)
        fail("--rounds must be 1..%d", MAX_ROUNDS);
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    fx.to_echo = acltdtCreateChannelWithCapacity(0, "bench-to-echo", 2);
    fx.from_echo = acltdtCreateChannelWithCapacity(0, "bench-from-echo", 2);
    if (fx.to_echo == NULL || fx.from_echo == NULL || pipe(fx.to_pipe) != 0 ||
        pipe(fx.from_pipe) != 0)
        fail("cannot make the channels or pipes");
    fx.bytes = malloc(sizes[SIZES - 1]);
    fx.back = malloc(sizes[SIZES - 1]);
    memset(fx.bytes, 0x5A, sizes[SIZES - 1]);
    pthread_t channel_thread, pipe_thread;
    pthread_create(&channel_thread, NULL, channel_echo, NULL);
    pthread_create(&pipe_thread, NULL, pipe_echo, NULL);

    json_t *result = json_array();
    printf("%-8s %14s %14s %12s %12s\n", "bytes", "channel us", "pipe us", "channel GB/s",
           "pipe GB/s");
    const side channel = {channel_round_trips, nothing}, pipes = {pipe_round_trips, nothing};
    for (int s = 0; s < SIZES; s++) {
        fx.size = sizes[s];
        /* A batch moves about 64 MiB (at least one round trip). */
        int calls = (int)(((size_t)64 << 20) / fx.size);
        if (calls > 200)
            calls = 200;
        if (calls < 1)
            calls = 1;
        comparison c = compare(&channel, &pipes, calls, rounds);
        printf("%-8zu %14.1f %14.1f %12.2f %12.2f\n", fx.size, c.acl.median / 1e3,
               c.cuda.median / 1e3, 2.0 * (double)fx.size / c.acl.median,
               2.0 * (double)fx.size / c.cuda.median);
        json_array_append_new(result, row_json(&c, fx.size));
    }

    uint64_t zero = 0;
    write_all(fx.to_pipe[1], (const unsigned char *)&zero, sizeof zero);
    ACL_OK(acltdtStopChannel(fx.to_echo));
    pthread_join(channel_thread, NULL);
    pthread_join(pipe_thread, NULL);
    ACL_OK(acltdtDestroyChannel(fx.to_echo));
    ACL_OK(acltdtDestroyChannel(fx.from_echo));
    free(fx.bytes);
    free(fx.back);
    if (json_path)
        bench_json_merge(json_path, "tdt", result);
    else
        json_decref(result);
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return 0;
}
