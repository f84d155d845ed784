/* Compute through ACL (issue #16), by bench_c's method (harness.h):
 *
 *   launch         aclrtLaunchKernel of an empty kernel (1 block), against
 *                  cuLaunchKernel of the same kernel from the same fatbin;
 *   model          aclmdlRIExecuteAsync of a model captured from 100 such
 *                  launches, against cudaGraphLaunch of the same 100
 *                  launches captured with cudaStreamBeginCapture;
 *   reissue        the same 100 launches issued one by one, both sides;
 *                  these three time what the calls cost the caller (the queue
 *                  drains untimed between batches), and model and reissue
 *                  once more to completion (a stream synchronize included);
 *   reduce         aclrtReduceAsync, an fp32 sum of 1 GiB into 1 GiB,
 *                  against a 1 GiB device-to-device aclrtMemcpyAsync (both
 *                  ACL: how far the built-in reduce is from a plain copy).
 *
 *   bench_compute [--json PATH] [--rounds N] [--kernels FILE] [--bytes N]
 *
 * The kernels are the tests' (tests/kernels/test_kernels.fatbin on cuda,
 * .so on host), under $ACLCUDA_BENCH_BUILDDIR or the current directory;
 * `make bench` builds them. The raw CUDA column exists on the cuda backend
 * only; the driver's functions come through cudaGetDriverEntryPointByVersion
 * (no libcuda link). On the host backend the reduce runs on 64 MiB. Results
 * go to PATH under the key "compute"; launch, model and reissue are ns per
 * call (a call of model and reissue is 100 kernels), reduce and copy GB/s. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "harness.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda.h>
#endif

enum { MODEL_KERNELS = 100 };

static struct {
    aclrtStream stream;
    aclrtBinHandle bin;
    aclrtFuncHandle empty;
    aclmdlRI model;
    void *dst, *src;
    size_t bytes;
#ifdef ACLCUDA_HAVE_CUDA
    cudaStream_t raw_stream;
    CUfunction raw_empty;
    cudaGraphExec_t raw_graph;
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void **, void **);
#endif
} fx;

/* ---- acl-cuda ---------------------------------------------------------------------- */

static void acl_launches(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtLaunchKernel(fx.empty, 1, NULL, 0, fx.stream));
}

static void acl_models(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclmdlRIExecuteAsync(fx.model, fx.stream));
}

static void acl_reissue(int calls)
{
    for (int i = 0; i < calls; i++)
        acl_launches(MODEL_KERNELS);
}

static void acl_settle(void)
{
    ACL_OK(aclrtSynchronizeStream(fx.stream));
}

static void acl_models_done(int calls)
{
    acl_models(calls);
    acl_settle();
}

static void acl_reissue_done(int calls)
{
    acl_reissue(calls);
    acl_settle();
}

static void acl_reduces(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtReduceAsync(fx.dst, fx.src, fx.bytes, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                                ACL_FLOAT, fx.stream, NULL));
    acl_settle();
}

static void acl_copies(int calls)
{
    for (int i = 0; i < calls; i++)
        ACL_OK(aclrtMemcpyAsync(fx.dst, fx.bytes, fx.src, fx.bytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                                fx.stream));
    acl_settle();
}

/* ---- raw CUDA ------------------------------------------------------------------------ */

#ifdef ACLCUDA_HAVE_CUDA
static void raw_launch_one(void)
{
    CUresult r = fx.launch(fx.raw_empty, 1, 1, 1, ACLCUDA_DEFAULT_BLOCK_THREADS, 1, 1, 0,
                           (CUstream)fx.raw_stream, NULL, NULL);
    if (r != CUDA_SUCCESS)
        fail("cuLaunchKernel returned %d", (int)r);
}

static void raw_launches(int calls)
{
    for (int i = 0; i < calls; i++)
        raw_launch_one();
}

static void raw_models(int calls)
{
    for (int i = 0; i < calls; i++)
        CUDA_OK(cudaGraphLaunch(fx.raw_graph, fx.raw_stream));
}

static void raw_reissue(int calls)
{
    for (int i = 0; i < calls; i++)
        raw_launches(MODEL_KERNELS);
}

static void raw_settle(void)
{
    CUDA_OK(cudaStreamSynchronize(fx.raw_stream));
}

static void raw_models_done(int calls)
{
    raw_models(calls);
    raw_settle();
}

static void raw_reissue_done(int calls)
{
    raw_reissue(calls);
    raw_settle();
}

static void *driver_function(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found;
    CUDA_OK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found));
    if (!fn || found != cudaDriverEntryPointSuccess)
        fail("the driver has no %s", name);
    return fn;
}

/* The empty kernel from the same fatbin through the driver, and a graph of
 * MODEL_KERNELS launches of it. */
static void raw_setup(const char *kernels)
{
    CUresult (*load)(CUlibrary *, const char *, CUjit_option *, void **, unsigned,
                     CUlibraryOption *, void **, unsigned) =
        driver_function("cuLibraryLoadFromFile");
    CUresult (*get_kernel)(CUkernel *, CUlibrary, const char *) =
        driver_function("cuLibraryGetKernel");
    CUresult (*get_function)(CUfunction *, CUkernel) = driver_function("cuKernelGetFunction");
    fx.launch = driver_function("cuLaunchKernel");
    CUDA_OK(cudaSetDevice(0));
    CUDA_OK(cudaFree(NULL)); /* the primary context, current */
    CUDA_OK(cudaStreamCreateWithFlags(&fx.raw_stream, cudaStreamNonBlocking));
    CUlibrary lib;
    CUkernel kernel;
    if (load(&lib, kernels, NULL, NULL, 0, NULL, NULL, 0) != CUDA_SUCCESS ||
        get_kernel(&kernel, lib, "empty") != CUDA_SUCCESS ||
        get_function(&fx.raw_empty, kernel) != CUDA_SUCCESS)
        fail("loading \"empty\" from %s through the driver failed", kernels);
    cudaGraph_t graph;
    CUDA_OK(cudaStreamBeginCapture(fx.raw_stream, cudaStreamCaptureModeGlobal));
    raw_launches(MODEL_KERNELS);
    CUDA_OK(cudaStreamEndCapture(fx.raw_stream, &graph));
    CUDA_OK(cudaGraphInstantiate(&fx.raw_graph, graph, 0));
    CUDA_OK(cudaGraphDestroy(graph));
}
#endif

/* ---- the run ------------------------------------------------------------------------- */

static const char *default_kernels(bool host)
{
    static char path[4096];
    const char *dir = getenv("ACLCUDA_BENCH_BUILDDIR");
    snprintf(path, sizeof path, "%s/tests/kernels/test_kernels.%s", dir && *dir ? dir : ".",
             host ? "so" : "fatbin");
    return path;
}

static void print_latency(const char *label, const comparison *c)
{
    printf("%-34s %10.0f ns", label, c->acl.median);
    if (c->has_cuda)
        printf("   raw %10.0f ns   ratio %6.3f", c->cuda.median, c->acl.median / c->cuda.median);
    putchar('\n');
}

static json_t *comparison_json(const comparison *c)
{
    json_t *o = json_pack("{s:o}", "acl", stats_json(&c->acl));
    if (c->has_cuda)
        json_object_set_new(o, "cuda", stats_json(&c->cuda));
    return o;
}

int main(int argc, char **argv)
{
    bench_name = "bench_compute";
    const char *json_path = NULL, *kernels = NULL;
    int rounds = 15;
    size_t bytes = (size_t)1 << 30;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
            kernels = argv[++i];
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes = (size_t)strtoull(argv[++i], NULL, 10);
        else
            fail("usage: bench_compute [--json PATH] [--rounds N] [--kernels FILE] [--bytes N]");
    }
    if (rounds < 1 || rounds > MAX_ROUNDS)
        fail("--rounds must be 1..%d", MAX_ROUNDS);
    ACL_OK(aclInit(NULL));
    bool host = strcmp(aclcudaGetBackendName(), "host") == 0;
    bool raw = !host;
#ifndef ACLCUDA_HAVE_CUDA
    raw = false;
#endif
    if (!kernels)
        kernels = default_kernels(host);
    if (access(kernels, R_OK) != 0) {
        printf("bench_compute: %s is not built (make bench builds it): skipped\n", kernels);
        return 0;
    }
    if (host && bytes > ((size_t)64 << 20))
        bytes = (size_t)64 << 20; /* the host backend reduces on the CPU */
    bytes &= ~(size_t)3;          /* whole floats */
    if (bytes == 0)
        fail("--bytes must be at least 4");

    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&fx.stream));
    ACL_OK(aclrtBinaryLoadFromFile(kernels, NULL, &fx.bin));
    ACL_OK(aclrtBinaryGetFunction(fx.bin, "empty", &fx.empty));
    ACL_OK(aclmdlRICaptureBegin(fx.stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    acl_launches(MODEL_KERNELS);
    ACL_OK(aclmdlRICaptureEnd(fx.stream, &fx.model));
#ifdef ACLCUDA_HAVE_CUDA
    if (raw)
        raw_setup(kernels);
    const side raw_launch = {raw_launches, raw_settle}, raw_model = {raw_models, raw_settle},
               raw_again = {raw_reissue, raw_settle}, raw_model_done = {raw_models_done, NULL},
               raw_again_done = {raw_reissue_done, NULL};
#define RAW(s) (raw ? &(s) : NULL)
#else
#define RAW(s) NULL
#endif
    const side acl_launch = {acl_launches, acl_settle}, acl_model = {acl_models, acl_settle},
               acl_again = {acl_reissue, acl_settle}, acl_model_done = {acl_models_done, NULL},
               acl_again_done = {acl_reissue_done, NULL};

    printf("Kernels from %s (median over %d interleaved rounds)\n", kernels, rounds);
    comparison launch = compare(&acl_launch, RAW(raw_launch), 1000, rounds);
    print_latency("launch, empty kernel", &launch);
    comparison model = compare(&acl_model, RAW(raw_model), 20, rounds);
    print_latency("model of 100 launches", &model);
    comparison again = compare(&acl_again, RAW(raw_again), 20, rounds);
    print_latency("100 launches re-issued", &again);
    comparison model_done = compare(&acl_model_done, RAW(raw_model_done), 20, rounds);
    print_latency("model of 100, to completion", &model_done);
    comparison again_done = compare(&acl_again_done, RAW(raw_again_done), 20, rounds);
    print_latency("100 re-issued, to completion", &again_done);
    printf("%-34s %10.3f   (model / re-issued, to completion)\n", "model vs re-issued",
           model_done.acl.median / again_done.acl.median);

    fx.bytes = bytes;
    ACL_OK(aclrtMalloc(&fx.dst, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&fx.src, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(fx.dst, bytes, 0, bytes));
    ACL_OK(aclrtMemset(fx.src, bytes, 0, bytes));
    const side reduce_side = {acl_reduces, NULL}, copy_side = {acl_copies, NULL};
    /* The two ACL calls as the two sides of one interleaved comparison. */
    comparison reduce = compare(&reduce_side, &copy_side, 2, rounds);
    double reduce_gbs = (double)bytes / reduce.acl.median,
           copy_gbs = (double)bytes / reduce.cuda.median;
    printf("%-34s %10.1f GB/s\n", "reduce fp32 sum (count/time)", reduce_gbs);
    printf("%-34s %10.1f GB/s   reduce/copy time %5.3f\n", "D2D copy", copy_gbs,
           reduce.acl.median / reduce.cuda.median);

    if (json_path) {
        json_t *section = json_pack(
            "{s:o, s:o, s:o, s:o, s:o, s:{s:I, s:o, s:o, s:f, s:f}}", "launch",
            comparison_json(&launch), "model_100", comparison_json(&model), "reissue_100",
            comparison_json(&again), "model_100_to_completion", comparison_json(&model_done),
            "reissue_100_to_completion", comparison_json(&again_done), "reduce", "bytes",
            (json_int_t)bytes, "reduce_sum_fp32", stats_json(&reduce.acl), "copy_d2d",
            stats_json(&reduce.cuda), "reduce_gb_per_s", reduce_gbs, "copy_gb_per_s", copy_gbs);
        bench_json_merge(json_path, "compute", section);
    }
    ACL_OK(aclrtFree(fx.src));
    ACL_OK(aclrtFree(fx.dst));
    ACL_OK(aclmdlRIDestroy(fx.model));
    ACL_OK(aclrtBinaryUnLoad(fx.bin));
    ACL_OK(aclrtDestroyStream(fx.stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return 0;
}
