/* Issue 17's costs per call, against raw CUDA (the method is bench_c's,
 * harness.h):
 *
 *  - the cross-stream signal: aclrtRecordNotify on one stream and
 *    aclrtWaitAndResetNotify on another, against the cheapest raw CUDA way
 *    to signal one stream from another: an event (cudaEventRecord +
 *    cudaStreamWaitEvent), or stream memory operations
 *    (cuStreamWriteValue32, then one cuStreamBatchMemOp waiting for the
 *    word and clearing it, which is also what a notify does). A notify is
 *    binary (two records before a wait count once), so every side plays
 *    ping-pong: stream 0 signals stream 1 through A, stream 1 answers
 *    through B, and the next signal on A follows the wait for B. Times are
 *    per signal (one record and one wait);
 *  - aclrtValueWrite against cuStreamWriteValue64, and aclrtValueWait (on a
 *    word that already holds) against cuStreamWaitValue64.
 *
 *   bench_runtime [--json PATH] [--rounds N]
 *
 * The results go to PATH under the key "runtime". On the host backend only
 * the acl-cuda column is measured. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "harness.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda.h>
#include <cudaTypedefs.h>
#endif

enum { CALLS = 256 };

static struct {
    aclrtStream acl_stream[2];
    aclrtNotify notify[2];
    uint64_t *word; /* acl-cuda's, holding 1 */
#ifdef ACLCUDA_HAVE_CUDA
    cudaStream_t raw_stream[2];
    cudaEvent_t raw_event[2];
    uint32_t *raw_flag; /* two words of device memory for the raw signals */
    uint64_t *raw_word; /* holding 1 */
    PFN_cuStreamWriteValue32_v11070 write32;
    PFN_cuStreamWriteValue64_v11070 write64;
    PFN_cuStreamWaitValue64_v11070 wait64;
    PFN_cuStreamBatchMemOp_v11070 batch;
#endif
} fx;

/* ---- acl-cuda ------------------------------------------------------------------------ */

static void acl_notify_pair(int calls)
{
    for (int i = 0; i < calls; i += 2) {
        ACL_OK(aclrtRecordNotify(fx.notify[0], fx.acl_stream[0]));
        ACL_OK(aclrtWaitAndResetNotify(fx.notify[0], fx.acl_stream[1], 0));
        ACL_OK(aclrtRecordNotify(fx.notify[1], fx.acl_stream[1]));
        ACL_OK(aclrtWaitAndResetNotify(fx.notify[1], fx.acl_stream[0], 0));
    }
}

static void acl_value_write(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtValueWrite(fx.word, 1, 0, fx.acl_stream[0]));
}

static void acl_value_wait(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtValueWait(fx.word, 1, ACL_STREAM_WAIT_VALUE_GEQ, fx.acl_stream[0]));
}

static void acl_settle(void)
{
    ACL_OK(aclrtSynchronizeStream(fx.acl_stream[0]));
    ACL_OK(aclrtSynchronizeStream(fx.acl_stream[1]));
}

/* ---- raw CUDA --------------------------------------------------------------------------- */

#ifdef ACLCUDA_HAVE_CUDA
static void raw_event_pair(int calls)
{
    for (int i = 0; i < calls; i += 2) {
        CUDA_OK(cudaEventRecord(fx.raw_event[0], fx.raw_stream[0]));
        CUDA_OK(cudaStreamWaitEvent(fx.raw_stream[1], fx.raw_event[0], 0));
        CUDA_OK(cudaEventRecord(fx.raw_event[1], fx.raw_stream[1]));
        CUDA_OK(cudaStreamWaitEvent(fx.raw_stream[0], fx.raw_event[1], 0));
    }
}

#define CU_OK(call)                                                                                \
    do {                                                                                           \
        CUresult cu_ok_err_ = (call);                                                              \
        if (__builtin_expect(cu_ok_err_ != CUDA_SUCCESS, 0))                                       \
            fail("%s:%d: %s returned %d", __FILE__, __LINE__, #call, (int)cu_ok_err_);             \
    } while (0)

static void raw_memop_pair(int calls)
{
    CUstreamBatchMemOpParams ops[2][2];
    memset(ops, 0, sizeof ops);
    for (int f = 0; f < 2; f++) {
        ops[f][0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
        ops[f][0].waitValue.address = (CUdeviceptr)(uintptr_t)&fx.raw_flag[f];
        ops[f][0].waitValue.value = 1;
        ops[f][0].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
        ops[f][1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        ops[f][1].writeValue.address = (CUdeviceptr)(uintptr_t)&fx.raw_flag[f];
        ops[f][1].writeValue.value = 0;
    }
    CUstream s0 = (CUstream)fx.raw_stream[0], s1 = (CUstream)fx.raw_stream[1];
    for (int i = 0; i < calls; i += 2) {
        CU_OK(fx.write32(s0, (CUdeviceptr)(uintptr_t)&fx.raw_flag[0], 1, 0));
        CU_OK(fx.batch(s1, 2, ops[0], 0));
        CU_OK(fx.write32(s1, (CUdeviceptr)(uintptr_t)&fx.raw_flag[1], 1, 0));
        CU_OK(fx.batch(s0, 2, ops[1], 0));
    }
}

static void raw_value_write(int calls)
{
    for (int i = 0; i < calls; i++)
        CU_OK(fx.write64((CUstream)fx.raw_stream[0], (CUdeviceptr)(uintptr_t)fx.raw_word, 1, 0));
}

static void raw_value_wait(int calls)
{
    for (int i = 0; i < calls; i++)
        CU_OK(fx.wait64((CUstream)fx.raw_stream[0], (CUdeviceptr)(uintptr_t)fx.raw_word, 1,
                        CU_STREAM_WAIT_VALUE_GEQ));
}

static void raw_settle(void)
{
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream[0]));
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream[1]));
}

static void *driver_function(const char *name, int version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult status;
    if (cudaGetDriverEntryPointByVersion(name, &fn, (unsigned)version, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess || !fn)
        fail("the driver has no %s", name);
    return fn;
}
#endif

static void setup(bool raw)
{
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&fx.acl_stream[0]));
    ACL_OK(aclrtCreateStream(&fx.acl_stream[1]));
    ACL_OK(aclrtCreateNotify(&fx.notify[0], ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtCreateNotify(&fx.notify[1], ACL_NOTIFY_DEFAULT));
    ACL_OK(aclrtMalloc((void **)&fx.word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    uint64_t one = 1;
    ACL_OK(aclrtMemcpy(fx.word, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
#ifdef ACLCUDA_HAVE_CUDA
    if (raw) {
        CUDA_OK(cudaSetDevice(0));
        CUDA_OK(cudaStreamCreateWithFlags(&fx.raw_stream[0], cudaStreamNonBlocking));
        CUDA_OK(cudaStreamCreateWithFlags(&fx.raw_stream[1], cudaStreamNonBlocking));
        CUDA_OK(cudaEventCreateWithFlags(&fx.raw_event[0], cudaEventDisableTiming));
        CUDA_OK(cudaEventCreateWithFlags(&fx.raw_event[1], cudaEventDisableTiming));
        CUDA_OK(cudaMalloc((void **)&fx.raw_flag, 64));
        CUDA_OK(cudaMemset(fx.raw_flag, 0, 64));
        CUDA_OK(cudaMalloc((void **)&fx.raw_word, 64));
        CUDA_OK(cudaMemcpy(fx.raw_word, &one, 8, cudaMemcpyHostToDevice));
        fx.write32 =
            (PFN_cuStreamWriteValue32_v11070)driver_function("cuStreamWriteValue32", 11070);
        fx.write64 =
            (PFN_cuStreamWriteValue64_v11070)driver_function("cuStreamWriteValue64", 11070);
        fx.wait64 = (PFN_cuStreamWaitValue64_v11070)driver_function("cuStreamWaitValue64", 11070);
        fx.batch = (PFN_cuStreamBatchMemOp_v11070)driver_function("cuStreamBatchMemOp", 11070);
        CUDA_OK(cudaDeviceSynchronize());
    }
#else
    (void)raw;
#endif
}

static void print_row(const char *label, const comparison *c, const char *raw_label)
{
    printf("%-34s %8.0f ns", label, c->acl.median);
    if (c->has_cuda)
        printf("   %-22s %8.0f ns   ratio %5.3f", raw_label, c->cuda.median,
               c->acl.median / c->cuda.median);
    putchar('\n');
}

static json_t *comparison_json(const comparison *c, const char *raw_key)
{
    json_t *o = json_pack("{s:o, s:i}", "acl", stats_json(&c->acl), "calls_per_batch", CALLS);
    if (c->has_cuda) {
        json_object_set_new(o, raw_key, stats_json(&c->cuda));
        json_object_set_new(o, "ratio", json_real(c->acl.median / c->cuda.median));
    }
    return o;
}

int main(int argc, char **argv)
{
    bench_name = "bench_runtime";
    const char *json_path = NULL;
    int rounds = 15;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else
            fail("usage: bench_runtime [--json PATH] [--rounds N]");
    }
    if (rounds < 1 || rounds > MAX_ROUNDS)
        fail("--rounds must be 1..%d", MAX_ROUNDS);
    ACL_OK(aclInit(NULL));
    bool raw = strcmp(aclcudaGetBackendName(), "cuda") == 0;
#ifndef ACLCUDA_HAVE_CUDA
    raw = false;
#endif
    setup(raw);
    const side acl_pair = {acl_notify_pair, acl_settle}, acl_write = {acl_value_write, acl_settle},
               acl_wait = {acl_value_wait, acl_settle};
    printf("Issue 17 (per call or signal; median over %d interleaved rounds of %d)\n", rounds,
           CALLS);
#ifdef ACLCUDA_HAVE_CUDA
    const side raw_events = {raw_event_pair, raw_settle}, raw_memops = {raw_memop_pair, raw_settle},
               raw_write = {raw_value_write, raw_settle}, raw_wait = {raw_value_wait, raw_settle};
    comparison vs_event = compare(&acl_pair, raw ? &raw_events : NULL, CALLS, rounds);
    comparison vs_memops = compare(&acl_pair, raw ? &raw_memops : NULL, CALLS, rounds);
    comparison write = compare(&acl_write, raw ? &raw_write : NULL, CALLS, rounds);
    comparison wait = compare(&acl_wait, raw ? &raw_wait : NULL, CALLS, rounds);
#else
    comparison vs_event = compare(&acl_pair, NULL, CALLS, rounds);
    comparison vs_memops = vs_event;
    comparison write = compare(&acl_write, NULL, CALLS, rounds);
    comparison wait = compare(&acl_wait, NULL, CALLS, rounds);
#endif
    print_row("record + wait_and_reset notify", &vs_event, "event record + wait");
    if (vs_event.has_cuda) {
        print_row("record + wait_and_reset notify", &vs_memops, "write32 + batch memop");
        bool memops_cheaper = vs_memops.cuda.median < vs_event.cuda.median;
        const comparison *best = memops_cheaper ? &vs_memops : &vs_event;
        printf("  against the cheapest raw signal (%s): ratio %5.3f\n",
               memops_cheaper ? "stream memory operations" : "events",
               best->acl.median / best->cuda.median);
    }
    print_row("aclrtValueWrite", &write, "cuStreamWriteValue64");
    print_row("aclrtValueWait", &wait, "cuStreamWaitValue64");
    if (json_path) {
        json_t *notify = json_pack("{s:o}", "vs_events", comparison_json(&vs_event, "cuda_events"));
        if (vs_memops.has_cuda)
            json_object_set_new(notify, "vs_memops", comparison_json(&vs_memops, "cuda_memops"));
        bench_json_merge(json_path, "runtime",
                         json_pack("{s:o, s:o, s:o}", "notify_record_wait", notify, "value_write",
                                   comparison_json(&write, "cuda"), "value_wait",
                                   comparison_json(&wait, "cuda")));
    }
    return 0;
}
