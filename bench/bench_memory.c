/* Memory (issue #15): batch copies, pool allocation, and copies between
 * virtually mapped memory, each against its reference. The method is
 * bench_c's (harness.h): interleaved rounds, medians.
 *
 *  - A batch of 1,000 copies of 4 KiB from page-locked host memory to the
 *    device: aclrtMemcpyBatchAsync against cudaMemcpyBatchAsync (CUDA 12.8
 *    and newer), and against 1,000 single aclrtMemcpyAsync calls. Target:
 *    >= 0.95x the raw rate, and faster than the singles.
 *  - A stream-ordered round trip, aclrtMemPoolMallocAsync +
 *    aclrtMemPoolFreeAsync of 2 MiB (a pool block), against cudaMallocAsync
 *    + cudaFreeAsync. Target: within 1.10x. Also against
 *    cudaMallocFromPoolAsync on a pool made as acl-cuda makes its pools
 *    (CUDA's reuse switches off, as CANN's; a maximum size), the CUDA calls
 *    the cuda backend makes: what of the gap is CUDA's own.
 *  - Device-to-device copy bandwidth between two buffers that are each two
 *    physical allocations mapped into a reserved range, against two
 *    aclrtMalloc buffers. Target: >= 0.97x.
 *
 *   bench_memory [--json PATH] [--rounds N]
 *
 * The results go to PATH under the key "memory". */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "acl/acl_rt_memory_soma.h"
#include "harness.h"

enum { BATCH = 1000, BLOCK = 4096, BATCHES_PER_CALL = 1, ROUND_TRIPS = 200 };

static struct {
    aclrtStream stream;
    void *host, *dev;
    void *dsts[BATCH], *srcs[BATCH];
    size_t sizes[BATCH], maxes[BATCH];
    aclrtMemcpyBatchAttr attr;
    size_t attr_index;
    aclrtMemPool pool;
    size_t pool_bytes;
    void *copy_dst, *copy_src;
    size_t copy_bytes;
#ifdef ACLCUDA_HAVE_CUDA
    cudaStream_t raw;
    cudaMemPool_t raw_pool;
#endif
} fx;

static void acl_sync(void)
{
    ACL_OK(aclrtSynchronizeStream(fx.stream));
}

static void acl_batch(int calls)
{
    for (int c = 0; c < calls; c++) {
        size_t fail_index = SIZE_MAX;
        ACL_OK(aclrtMemcpyBatchAsync(fx.dsts, fx.maxes, fx.srcs, fx.sizes, BATCH, &fx.attr,
                                     &fx.attr_index, 1, &fail_index, fx.stream));
    }
    acl_sync();
}

static void acl_singles(int calls)
{
    for (int c = 0; c < calls; c++)
        for (int i = 0; i < BATCH; i++)
            ACL_OK(aclrtMemcpyAsync(fx.dsts[i], BLOCK, fx.srcs[i], BLOCK,
                                    ACL_MEMCPY_HOST_TO_DEVICE, fx.stream));
    acl_sync();
}

static void acl_pool_round_trips(int calls)
{
    for (int c = 0; c < calls; c++) {
        void *p = NULL;
        ACL_OK(aclrtMemPoolMallocAsync(&p, fx.pool_bytes, fx.pool, fx.stream));
        ACL_OK(aclrtMemPoolFreeAsync(p, fx.stream));
    }
}

static void acl_copies(int calls)
{
    for (int c = 0; c < calls; c++)
        ACL_OK(aclrtMemcpyAsync(fx.copy_dst, fx.copy_bytes, fx.copy_src, fx.copy_bytes,
                                ACL_MEMCPY_DEVICE_TO_DEVICE, fx.stream));
    acl_sync();
}

#ifdef ACLCUDA_HAVE_CUDA
static void raw_sync(void)
{
    CUDA_OK(cudaStreamSynchronize(fx.raw));
}

#if CUDART_VERSION >= 12080
static void raw_batch(int calls)
{
    struct cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.srcLocHint.type = cudaMemLocationTypeHost;
    attr.dstLocHint.type = cudaMemLocationTypeDevice;
    size_t attr_index = 0;
    for (int c = 0; c < calls; c++) {
#if CUDART_VERSION >= 13000
        CUDA_OK(cudaMemcpyBatchAsync(fx.dsts, (const void *const *)fx.srcs, fx.sizes, BATCH, &attr,
                                     &attr_index, 1, fx.raw));
#else
        size_t fail_index;
        CUDA_OK(cudaMemcpyBatchAsync(fx.dsts, (const void **)fx.srcs, fx.sizes, BATCH, &attr,
                                     &attr_index, 1, &fail_index, fx.raw));
#endif
    }
    raw_sync();
}
#endif

static void raw_round_trips(int calls)
{
    for (int c = 0; c < calls; c++) {
        void *p = NULL;
        CUDA_OK(cudaMallocAsync(&p, fx.pool_bytes, fx.raw));
        CUDA_OK(cudaFreeAsync(p, fx.raw));
    }
}

static void raw_pool_round_trips(int calls)
{
    for (int c = 0; c < calls; c++) {
        void *p = NULL;
        CUDA_OK(cudaMallocFromPoolAsync(&p, fx.pool_bytes, fx.raw_pool, fx.raw));
        CUDA_OK(cudaFreeAsync(p, fx.raw));
    }
}

/* A CUDA pool as the cuda backend makes one for aclrtMemPoolCreate
 * (backend/cuda/mempool.c). */
static cudaMemPool_t raw_pool_like_acl(size_t max_size, unsigned long long keep)
{
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
#if CUDART_VERSION >= 12020
    props.maxSize = max_size;
#else
    (void)max_size;
#endif
    cudaMemPool_t pool;
    CUDA_OK(cudaMemPoolCreate(&pool, &props));
    int off = 0;
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &off));
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &off));
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return pool;
}
#endif

/* Two granules of physical memory mapped side by side: size bytes. */
static void *vmm_buffer(size_t size, aclrtDrvMemHandle handles[2])
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    void *va = NULL;
    ACL_OK(aclrtReserveMemAddress(&va, size, 0, NULL, 0));
    for (int i = 0; i < 2; i++) {
        ACL_OK(aclrtMallocPhysical(&handles[i], size / 2, &prop, 0));
        ACL_OK(aclrtMapMem((char *)va + i * (size / 2), size / 2, 0, handles[i], 0));
    }
    return va;
}

static void vmm_free(void *va, size_t size, aclrtDrvMemHandle handles[2])
{
    for (int i = 0; i < 2; i++) {
        ACL_OK(aclrtUnmapMem((char *)va + i * (size / 2)));
        ACL_OK(aclrtFreePhysical(handles[i]));
    }
    ACL_OK(aclrtReleaseMemAddress(va));
}

static json_t *pair_json(const comparison *c, const char *a, const char *b)
{
    json_t *o = json_pack("{s:o}", a, stats_json(&c->acl));
    if (c->has_cuda)
        json_object_set_new(o, b, stats_json(&c->cuda));
    return o;
}

int main(int argc, char **argv)
{
    bench_name = "bench_memory";
    const char *json_path = NULL;
    int rounds = 15;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else
            fail("usage: bench_memory [--json PATH] [--rounds N]");
    }
    if (rounds < 1 || rounds > MAX_ROUNDS)
        fail("--rounds must be 1..%d", MAX_ROUNDS);
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&fx.stream));
    bool raw = strcmp(aclcudaGetBackendName(), "cuda") == 0;
#ifdef ACLCUDA_HAVE_CUDA
    if (raw) {
        CUDA_OK(cudaSetDevice(0));
        CUDA_OK(cudaStreamCreateWithFlags(&fx.raw, cudaStreamNonBlocking));
    }
#else
    raw = false;
#endif
    json_t *result = json_object();

    /* ---- batch copies ---- */
    ACL_OK(aclrtMallocHost(&fx.host, (size_t)BATCH * BLOCK));
    ACL_OK(aclrtMalloc(&fx.dev, (size_t)BATCH * BLOCK, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(fx.host, 0x5A, (size_t)BATCH * BLOCK);
    for (int i = 0; i < BATCH; i++) {
        fx.dsts[i] = (char *)fx.dev + (size_t)i * BLOCK;
        fx.srcs[i] = (char *)fx.host + (size_t)i * BLOCK;
        fx.sizes[i] = fx.maxes[i] = BLOCK;
    }
    fx.attr.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    fx.attr.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    const side batch = {acl_batch, NULL}, singles = {acl_singles, NULL};
    const side *raw_batch_side = NULL;
#if defined(ACLCUDA_HAVE_CUDA) && CUDART_VERSION >= 12080
    const side raw_batch_s = {raw_batch, NULL};
    if (raw)
        raw_batch_side = &raw_batch_s;
#endif
    printf("Memory benchmarks on the %s backend (median over %d interleaved rounds)\n",
           aclcudaGetBackendName(), rounds);
    comparison vs_raw = compare(&batch, raw_batch_side, BATCHES_PER_CALL, rounds);
    printf("%-40s %10.0f ns", "batch of 1000 x 4 KiB H2D", vs_raw.acl.median);
    if (vs_raw.has_cuda)
        printf("   cudaMemcpyBatchAsync %10.0f ns   rate ratio %5.3f", vs_raw.cuda.median,
               vs_raw.cuda.median / vs_raw.acl.median);
    putchar('\n');
    comparison vs_singles = compare(&batch, &singles, BATCHES_PER_CALL, rounds);
    printf("%-40s %10.0f ns   1000 aclrtMemcpyAsync %10.0f ns   speed-up %5.2f\n",
           "batch vs single copies", vs_singles.acl.median, vs_singles.cuda.median,
           vs_singles.cuda.median / vs_singles.acl.median);
    json_object_set_new(result, "batch_1000x4k_vs_cuda",
                        pair_json(&vs_raw, "acl", "cuda"));
    json_object_set_new(result, "batch_1000x4k_vs_singles",
                        pair_json(&vs_singles, "acl_batch", "acl_singles"));
    ACL_OK(aclrtFree(fx.dev));
    ACL_OK(aclrtFreeHost(fx.host));

    /* ---- pool round trips ---- */
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    props.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.maxSize = (size_t)256 << 20;
    ACL_OK(aclrtMemPoolCreate(&fx.pool, &props));
    uint64_t keep = props.maxSize;
    ACL_OK(aclrtMemPoolSetAttr(fx.pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &keep));
    fx.pool_bytes = (size_t)2 << 20;
    const side pool_side = {acl_pool_round_trips, acl_sync};
    const side *raw_pool_side = NULL;
#ifdef ACLCUDA_HAVE_CUDA
    const side raw_pool_s = {raw_round_trips, raw_sync};
    if (raw) {
        cudaMemPool_t def;
        CUDA_OK(cudaDeviceGetDefaultMemPool(&def, 0));
        unsigned long long threshold = keep;
        CUDA_OK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &threshold));
        raw_pool_side = &raw_pool_s;
    }
#endif
    comparison pool = compare(&pool_side, raw_pool_side, ROUND_TRIPS, rounds);
    printf("%-40s %10.0f ns", "pool malloc+free (2 MiB)", pool.acl.median);
    if (pool.has_cuda)
        printf("   cudaMallocAsync+FreeAsync %10.0f ns   ratio %5.3f", pool.cuda.median,
               pool.acl.median / pool.cuda.median);
    putchar('\n');
    json_object_set_new(result, "pool_round_trip_2m", pair_json(&pool, "acl", "cuda"));
#ifdef ACLCUDA_HAVE_CUDA
    if (raw) {
        fx.raw_pool = raw_pool_like_acl(props.maxSize, keep);
        const side raw_like_s = {raw_pool_round_trips, raw_sync};
        comparison like = compare(&pool_side, &raw_like_s, ROUND_TRIPS, rounds);
        printf("%-40s %10.0f ns   cudaMallocFromPoolAsync   %10.0f ns   ratio %5.3f\n",
               "  same, raw on a pool made like acl's", like.acl.median, like.cuda.median,
               like.acl.median / like.cuda.median);
        json_object_set_new(result, "pool_round_trip_2m_like", pair_json(&like, "acl", "cuda"));
        CUDA_OK(cudaStreamSynchronize(fx.raw));
        CUDA_OK(cudaMemPoolDestroy(fx.raw_pool));
    }
#endif
    ACL_OK(aclrtSynchronizeStream(fx.stream));
    ACL_OK(aclrtMemPoolDestroy(fx.pool));

    /* ---- mapped memory bandwidth ---- */
    aclrtPhysicalMemProp gprop;
    memset(&gprop, 0, sizeof gprop);
    gprop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    gprop.memAttr = ACL_HBM_MEM_HUGE;
    gprop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t granularity = 0;
    ACL_OK(aclrtMemGetAllocationGranularity(&gprop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
                                            &granularity));
    size_t bytes = raw ? (size_t)256 << 20 : (size_t)32 << 20;
    bytes = (bytes + 2 * granularity - 1) / (2 * granularity) * (2 * granularity);
    aclrtDrvMemHandle hd[2], hs[2];
    void *vdst = vmm_buffer(bytes, hd), *vsrc = vmm_buffer(bytes, hs);
    void *mdst = NULL, *msrc = NULL;
    ACL_OK(aclrtMalloc(&mdst, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&msrc, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    fx.copy_bytes = bytes;
    int copies = 4;
    double vmm_ns, malloc_ns;
    {
        fx.copy_dst = vdst;
        fx.copy_src = vsrc;
        const side s = {acl_copies, NULL};
        comparison c = compare(&s, NULL, copies, rounds);
        vmm_ns = c.acl.median;
        json_object_set_new(result, "copy_vmm", pair_json(&c, "acl", "none"));
    }
    {
        fx.copy_dst = mdst;
        fx.copy_src = msrc;
        const side s = {acl_copies, NULL};
        comparison c = compare(&s, NULL, copies, rounds);
        malloc_ns = c.acl.median;
        json_object_set_new(result, "copy_malloc", pair_json(&c, "acl", "none"));
    }
    printf("%-40s %10.1f GB/s   aclrtMalloc memory %10.1f GB/s   ratio %5.3f\n",
           "D2D copy, mapped memory", (double)bytes / vmm_ns, (double)bytes / malloc_ns,
           malloc_ns / vmm_ns);
    json_object_set_new(result, "copy_bytes", json_integer((json_int_t)bytes));
    vmm_free(vdst, bytes, hd);
    vmm_free(vsrc, bytes, hs);
    ACL_OK(aclrtFree(mdst));
    ACL_OK(aclrtFree(msrc));

    if (json_path)
        bench_json_merge(json_path, "memory", result);
    else
        json_decref(result);
    ACL_OK(aclrtDestroyStream(fx.stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return 0;
}
