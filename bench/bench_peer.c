/* Two devices (issue #20): copy bandwidth from device 0 to device 1 with
 * peer access, aclrtMemcpyAsync against cudaMemcpyPeerAsync, and an event
 * recorded on device 0 and waited for on device 1, against raw CUDA. The
 * method is bench_c's (harness.h). With fewer than two devices it says so
 * and exits 0.
 *
 *   bench_peer [--json PATH] [--rounds N] [--max-bytes N]
 *
 * The results go to PATH under the key "peer". */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "harness.h"

static struct {
    void *src, *dst; /* on device 0 and device 1 */
    size_t bytes;
    int copies; /* per batch */
    aclrtStream acl_stream[2];
    aclrtEvent acl_event;
#ifdef ACLCUDA_HAVE_CUDA
    cudaStream_t raw_stream[2];
    cudaEvent_t raw_event;
#endif
} fx;

static void acl_copies(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtMemcpyAsync(fx.dst, fx.bytes, fx.src, fx.bytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                                fx.acl_stream[0]));
    ACL_OK(aclrtSynchronizeStream(fx.acl_stream[0]));
}

static void acl_record_wait(int calls)
{
    for (int i = 0; i < calls; i++) {
        ACL_OK(aclrtRecordEvent(fx.acl_event, fx.acl_stream[0]));
        ACL_OK(aclrtStreamWaitEvent(fx.acl_stream[1], fx.acl_event));
    }
}

static void acl_settle(void)
{
    ACL_OK(aclrtSynchronizeStream(fx.acl_stream[0]));
    ACL_OK(aclrtSynchronizeStream(fx.acl_stream[1]));
}

#ifdef ACLCUDA_HAVE_CUDA
static void raw_copies(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaMemcpyPeerAsync(fx.dst, 1, fx.src, 0, fx.bytes, fx.raw_stream[0]));
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream[0]));
}

static void raw_record_wait(int calls)
{
    for (int i = 0; i < calls; i++) {
        CUDA_OK(cudaEventRecord(fx.raw_event, fx.raw_stream[0]));
        CUDA_OK(cudaStreamWaitEvent(fx.raw_stream[1], fx.raw_event, 0));
    }
}

static void raw_settle(void)
{
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream[0]));
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream[1]));
}
#endif

static void setup(bool raw)
{
    ACL_OK(aclrtSetDevice(1));
    ACL_OK(aclrtCreateStream(&fx.acl_stream[1]));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&fx.acl_stream[0]));
    ACL_OK(aclrtCreateEventWithFlag(&fx.acl_event, ACL_EVENT_SYNC));
    int32_t can = 0;
    ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    if (can)
        ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
#ifdef ACLCUDA_HAVE_CUDA
    if (raw) {
        CUDA_OK(cudaSetDevice(1));
        CUDA_OK(cudaStreamCreateWithFlags(&fx.raw_stream[1], cudaStreamNonBlocking));
        CUDA_OK(cudaSetDevice(0));
        CUDA_OK(cudaStreamCreateWithFlags(&fx.raw_stream[0], cudaStreamNonBlocking));
        CUDA_OK(cudaEventCreateWithFlags(&fx.raw_event, cudaEventDisableTiming));
    }
#else
    (void)raw;
#endif
}

static void print_row(const char *label, const comparison *c, double bytes)
{
    if (bytes > 0) {
        double acl = bytes / c->acl.median, raw = c->has_cuda ? bytes / c->cuda.median : 0;
        printf("%-28s %10.1f GB/s", label, acl);
        if (c->has_cuda)
            printf("   raw %10.1f GB/s   ratio %5.3f", raw, acl / raw);
    } else {
        printf("%-28s %10.0f ns", label, c->acl.median);
        if (c->has_cuda)
            printf("   raw %10.0f ns     diff %+6.0f", c->cuda.median, c->acl.median - c->cuda.median);
    }
    putchar('\n');
}

int main(int argc, char **argv)
{
    bench_name = "bench_peer";
    const char *json_path = NULL;
    int rounds = 15;
    size_t max_bytes = (size_t)1 << 30;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc)
            max_bytes = (size_t)strtoull(argv[++i], NULL, 10);
        else
            fail("usage: bench_peer [--json PATH] [--rounds N] [--max-bytes N]");
    }
    if (rounds < 1 || rounds > MAX_ROUNDS)
        fail("--rounds must be 1..%d", MAX_ROUNDS);
    ACL_OK(aclInit(NULL));
    uint32_t devices = 0;
    ACL_OK(aclrtGetDeviceCount(&devices));
    if (devices < 2) {
        printf("bench_peer: %u device(s): the two-device benchmark needs two\n", devices);
        return 0;
    }
    bool raw = strcmp(aclcudaGetBackendName(), "cuda") == 0;
#ifndef ACLCUDA_HAVE_CUDA
    raw = false;
#endif
    if (!raw && max_bytes > ((size_t)64 << 20))
        max_bytes = (size_t)64 << 20; /* host backend: copies are memcpy */
    setup(raw);
    const side acl_copy = {acl_copies, NULL}, acl_pair = {acl_record_wait, acl_settle};
#ifdef ACLCUDA_HAVE_CUDA
    const side raw_copy = {raw_copies, NULL}, raw_pair = {raw_record_wait, raw_settle};
#endif
    json_t *copies = json_array();
    printf("Device 0 -> device 1, peer access on (median over %d interleaved rounds)\n", rounds);
    for (size_t bytes = (size_t)1 << 20; bytes <= max_bytes; bytes *= 4) {
        ACL_OK(aclrtSetDevice(1));
        ACL_OK(aclrtMalloc(&fx.dst, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtSetDevice(0));
        ACL_OK(aclrtMalloc(&fx.src, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        fx.bytes = bytes;
        fx.copies = bytes >= ((size_t)256 << 20) ? 2 : 8;
#ifdef ACLCUDA_HAVE_CUDA
        comparison c = compare(&acl_copy, raw ? &raw_copy : NULL, fx.copies, rounds);
#else
        comparison c = compare(&acl_copy, NULL, fx.copies, rounds);
#endif
        char label[64];
        snprintf(label, sizeof label, "copy %zu MiB", bytes >> 20);
        print_row(label, &c, (double)bytes);
        json_t *row = json_pack("{s:I, s:o}", "bytes", (json_int_t)bytes, "acl", stats_json(&c.acl));
        if (c.has_cuda)
            json_object_set_new(row, "cuda", stats_json(&c.cuda));
        json_array_append_new(copies, row);
        ACL_OK(aclrtFree(fx.src));
        ACL_OK(aclrtFree(fx.dst));
    }
#ifdef ACLCUDA_HAVE_CUDA
    comparison pair = compare(&acl_pair, raw ? &raw_pair : NULL, 64, rounds);
#else
    comparison pair = compare(&acl_pair, NULL, 64, rounds);
#endif
    print_row("record on 0 + wait on 1", &pair, 0);
    if (json_path) {
        json_t *wait = json_pack("{s:o}", "acl", stats_json(&pair.acl));
        if (pair.has_cuda)
            json_object_set_new(wait, "cuda", stats_json(&pair.cuda));
        bench_json_merge(json_path,
                         "peer", json_pack("{s:o, s:o}", "copy_0_to_1", copies, "record_wait", wait));
    } else {
        json_decref(copies);
    }
    return 0;
}
