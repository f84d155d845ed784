/* Captures and graphs on the cuda backend: CUDA stream capture (always in
 * relaxed mode: ACL's capture modes are enforced by the core, so CUDA
 * never refuses our own calls made meanwhile), instantiated once the
 * capture ends; a replay is cudaGraphLaunch. The captured graph is kept
 * next to its executable one for task updates (cudaGraphExec*SetParams)
 * and inspection. Objects a replay needs (ACL callbacks' templates,
 * placeholder data staged by the core) are tied to the graph with CUDA
 * user objects, so they live until the graph and its last launch are
 * gone.
 *
 * Conditional tasks are CUDA conditional nodes: ACL's condition is a
 * 64-bit word of device memory that kernels (or copies) write, CUDA's a
 * value that device code sets with cudaGraphSetConditional, so a
 * one-thread kernel of ours (builtin_kernels.cu) carries the word over
 * right before each conditional node and at the end of each WHILE body.
 * The bodies are the node's child graphs, filled with
 * cudaStreamBeginCaptureToGraph. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "backend/cuda/graph_update_kernels.h"
#include "util/log.h"

struct backend_graph {
    cudaGraph_t graph;
    cudaGraphExec_t exec; /* NULL for a body, and for a piece until it is finished */
    int dev;
    /* CUDA leaves an executable graph's thread safety to its user: its
     * launches and the changes to its nodes (model updates, which another
     * thread may make while one replays the model) take turns. */
    pthread_mutex_t exec_lock;
    /* A body of a conditional node: its graph belongs to the node. */
    bool body;
    cond_kind kind;
    uint64_t cond;
    const void *word;
    /* Task-group kernels that take updates in stream order (graph_ordered.c). */
    graph_appliers *appliers;
    /* The waits a launch runs (graph_waits.c), which a teardown releases. */
    graph_waits waits;
};

static aclError capture_error(cudaError_t err)
{
    switch (err) {
    case cudaErrorStreamCaptureUnjoined:
        (void)cudaGetLastError();
        return ACL_ERROR_RT_STREAM_UNJOINED;
    case cudaErrorStreamCaptureInvalidated:
        (void)cudaGetLastError();
        return ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
    case cudaErrorStreamCaptureUnmatched:
    case cudaErrorStreamCaptureWrongThread:
        (void)cudaGetLastError();
        return ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED;
    case cudaErrorIllegalState:
        (void)cudaGetLastError();
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    default:
        return check(err);
    }
}

/* The graph of the capture just begun on s, which notes its waits from
 * now on; NULL when not known. */
static cudaGraph_t capture_begun(cudaStream_t s)
{
    cudaGraph_t graph = cuda_capture_graph(s);
    if (graph)
        cuda_graph_waits_begin(graph);
    return graph;
}

/* The waits the capture into graph noted (empty when graph is NULL). */
static graph_waits capture_waits(cudaGraph_t graph)
{
    graph_waits taken = {0};
    if (graph)
        cuda_graph_waits_take(graph, &taken);
    return taken;
}

static aclError cuda_capture_begin(backend_stream *s)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    cuda_capture_possible();
    rc = capture_error(cudaStreamBeginCapture(s->s, cudaStreamCaptureModeRelaxed));
    if (!rc)
        s->capture_graph = capture_begun(s->s);
    return rc;
}

static aclError cuda_capture_end(backend_stream *s, bool discard, backend_graph **out)
{
    *out = NULL;
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    graph_waits waits = capture_waits(s->capture_graph);
    s->capture_graph = NULL;
    cudaGraph_t graph = NULL;
    rc = capture_error(cudaStreamEndCapture(s->s, &graph));
    graph_appliers *appliers = graph ? cuda_updatable_settle(graph, !rc && !discard, s->dev) : NULL;
    backend_graph *g = NULL;
    if (!rc && !discard && !(g = calloc(1, sizeof *g)))
        rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (!rc && !discard) {
        g->graph = graph;
        g->dev = s->dev;
        g->appliers = appliers;
        g->waits = waits;
        rc = check(cudaGraphInstantiate(&g->exec, graph, 0));
    }
    if (rc || discard) {
        cuda_appliers_free(appliers);
        cuda_graph_waits_free(&waits);
        free(g);
        if (graph)
            (void)check(cudaGraphDestroy(graph));
        return rc;
    }
    pthread_mutex_init(&g->exec_lock, NULL);
    *out = g;
    return ACL_SUCCESS;
}

static aclError cuda_capture_last_node(backend_stream *s, uint64_t *node)
{
    enum cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t count = 0;
    aclError rc = check(cudaStreamGetCaptureInfo(s->s, &status, NULL, NULL, &deps, NULL, &count));
    if (rc)
        return rc;
    if (status != cudaStreamCaptureStatusActive)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    if (count == 0 || !deps)
        return ACL_ERROR_RT_PARAM_INVALID;
    *node = (uint64_t)(uintptr_t)deps[count - 1];
    return ACL_SUCCESS;
}

aclError cuda_capture_keep(cudaStream_t s, void *ptr, void (*release)(void *))
{
    enum cudaStreamCaptureStatus status;
    cudaGraph_t graph = NULL;
    aclError rc = check(cudaStreamGetCaptureInfo(s, &status, NULL, &graph, NULL, NULL, NULL));
    if (rc)
        return rc;
    if (status != cudaStreamCaptureStatusActive || !graph)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    cudaUserObject_t object;
    if ((rc =
             check(cudaUserObjectCreate(&object, ptr, release, 1, cudaUserObjectNoDestructorSync))))
        return rc;
    /* The graph takes our reference: release runs once it and every
     * executable graph made from it, with their launches, are gone. On
     * failure the object is left alone (releasing it would run release,
     * and ptr stays the caller's). */
    return check(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove));
}

static aclError cuda_keep(backend_stream *s, void *ptr, void (*release)(void *))
{
    return cuda_capture_keep(s->s, ptr, release);
}

/* An executable graph still running is freed by CUDA once it finished. */
static void cuda_graph_destroy(backend_graph *g)
{
    if (!g->body) {
        if (g->exec) {
            (void)check(cudaGraphExecDestroy(g->exec));
            pthread_mutex_destroy(&g->exec_lock);
        }
        cuda_appliers_free(g->appliers);
        cuda_graph_waits_free(&g->waits);
        if (!g->exec) { /* a model put together but not finished */
            graph_waits unfinished;
            cuda_graph_waits_take(g->graph, &unfinished);
            cuda_graph_waits_free(&unfinished);
        }
        (void)check(cudaGraphDestroy(g->graph));
    }
    free(g);
}

aclError cuda_graph_launch(backend_stream *s, backend_graph *g)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    pthread_mutex_lock(&g->exec_lock);
    if (g->appliers)
        rc = cuda_appliers_prepare(g->appliers, g->exec, s);
    if (!rc)
        rc = check(cudaGraphLaunch(g->exec, s->s));
    if (!rc && g->waits.count && !cuda_graph_waits_captured(s->s, &g->waits))
        for (size_t i = 0; i < g->waits.count; i++)
            if (!g->waits.at[i].disabled)
                cuda_wait_log_add(s, &g->waits.at[i].w);
    pthread_mutex_unlock(&g->exec_lock);
    return rc;
}

static const char *node_kind(enum cudaGraphNodeType type)
{
    switch (type) {
    case cudaGraphNodeTypeKernel:
        return "kernel";
    case cudaGraphNodeTypeMemcpy:
        return "copy";
    case cudaGraphNodeTypeMemset:
        return "fill";
    case cudaGraphNodeTypeHost:
        return "host function";
    case cudaGraphNodeTypeGraph:
        return "model";
    case cudaGraphNodeTypeEmpty:
        return "empty";
    case cudaGraphNodeTypeWaitEvent:
        return "event wait";
    case cudaGraphNodeTypeEventRecord:
        return "event record";
    case cudaGraphNodeTypeConditional:
        return "conditional";
    default:
        return "other";
    }
}

static aclError cuda_graph_nodes(backend_graph *g, size_t *count, const char **kinds, size_t max)
{
    size_t n = 0;
    aclError rc = check(cudaGraphGetNodes(g->graph, NULL, &n));
    if (rc)
        return rc;
    *count = n;
    if (n == 0 || max == 0)
        return ACL_SUCCESS;
    cudaGraphNode_t *nodes = malloc(n * sizeof *nodes);
    if (!nodes)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (!(rc = check(cudaGraphGetNodes(g->graph, nodes, &n)))) {
        for (size_t i = 0; i < n && i < max; i++) {
            enum cudaGraphNodeType type;
            kinds[i] = cudaGraphNodeGetType(nodes[i], &type) == cudaSuccess ? node_kind(type) : "?";
        }
    }
    (void)cudaGetLastError();
    free(nodes);
    return rc;
}

static aclError update_failed(cudaError_t err)
{
    if (err == cudaSuccess)
        return ACL_SUCCESS;
    (void)cudaGetLastError();
    return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
}

/* Whether n is a batch of stream memory operations (a captured value
 * write or wait), a kind the runtime's node types do not name. */
static bool is_memop(cudaGraphNode_t n)
{
    CUgraphNodeType type;
    return driver_ready() && drv.cuGraphNodeGetType &&
           drv.cuGraphNodeGetType((CUgraphNode)n, &type) == CUDA_SUCCESS &&
           type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
}

/* Node `to` of g's executable graph takes the parameters of node `from`
 * (of a live graph), of the same kind. */
static aclError update_from(backend_graph *g, cudaGraphNode_t to, cudaGraphNode_t from)
{
    if (is_memop(from) || is_memop(to)) {
        /* Value writes and waits: their addresses, values and comparisons
         * may change. */
        if (!is_memop(from) || !is_memop(to) || !drv.cuGraphBatchMemOpNodeGetParams ||
            !drv.cuGraphExecBatchMemOpNodeSetParams)
            return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
        CUDA_BATCH_MEM_OP_NODE_PARAMS p;
        CUresult r = drv.cuGraphBatchMemOpNodeGetParams((CUgraphNode)from, &p);
        if (r == CUDA_SUCCESS)
            r = drv.cuGraphExecBatchMemOpNodeSetParams((CUgraphExec)g->exec, (CUgraphNode)to, &p);
        return r == CUDA_SUCCESS ? ACL_SUCCESS : ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    }
    enum cudaGraphNodeType to_type, from_type;
    aclError rc = check(cudaGraphNodeGetType(to, &to_type));
    if (!rc)
        rc = check(cudaGraphNodeGetType(from, &from_type));
    if (rc)
        return rc;
    if (to_type != from_type)
        return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    switch (from_type) {
    case cudaGraphNodeTypeKernel: {
        /* Through the driver: our launches name driver functions (modules,
         * libraries), which the runtime's kernel node calls refuse. */
        if (!driver_ready() || !drv.cuGraphKernelNodeGetParams ||
            !drv.cuGraphExecKernelNodeSetParams)
            return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
        CUDA_KERNEL_NODE_PARAMS p;
        CUresult r = drv.cuGraphKernelNodeGetParams((CUgraphNode)from, &p);
        if (r == CUDA_SUCCESS)
            r = drv.cuGraphExecKernelNodeSetParams((CUgraphExec)g->exec, (CUgraphNode)to, &p);
        return r == CUDA_SUCCESS ? ACL_SUCCESS : ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    }
    case cudaGraphNodeTypeMemcpy: {
        struct cudaMemcpy3DParms p;
        cudaError_t err = cudaGraphMemcpyNodeGetParams(from, &p);
        if (err == cudaSuccess)
            err = cudaGraphExecMemcpyNodeSetParams(g->exec, to, &p);
        return update_failed(err);
    }
    case cudaGraphNodeTypeMemset: {
        struct cudaMemsetParams p;
        cudaError_t err = cudaGraphMemsetNodeGetParams(from, &p);
        if (err == cudaSuccess)
            err = cudaGraphExecMemsetNodeSetParams(g->exec, to, &p);
        return update_failed(err);
    }
    case cudaGraphNodeTypeHost: {
        struct cudaHostNodeParams p;
        cudaError_t err = cudaGraphHostNodeGetParams(from, &p);
        if (err == cudaSuccess)
            err = cudaGraphExecHostNodeSetParams(g->exec, to, &p);
        return update_failed(err);
    }
    default:
        return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    }
}

static aclError cuda_graph_update_node(backend_graph *g, uint64_t target, backend_graph *update,
                                       uint64_t source)
{
    /* The source node belongs to update, alive during the call. */
    pthread_mutex_lock(&g->exec_lock);
    aclError rc =
        update_from(g, (cudaGraphNode_t)(uintptr_t)target, (cudaGraphNode_t)(uintptr_t)source);
    if (!rc)
        cuda_graph_waits_set_node(&g->waits, (cudaGraphNode_t)(uintptr_t)target, &update->waits,
                                  (cudaGraphNode_t)(uintptr_t)source);
    cuda_appliers_host_changed(g->appliers, (cudaGraphNode_t)(uintptr_t)target);
    pthread_mutex_unlock(&g->exec_lock);
    return rc;
}

/* 256 bytes of device memory per device, zero, made on first use and kept
 * for the process: disabled value writes write to its first word, disabled
 * waits read the word at SINK_UNWRITTEN, which nothing writes (a wait for
 * "at least 0" compares cyclically, so it must not see what writes left). */
enum { SINK_DEVICES = 64, SINK_UNWRITTEN = 128 };
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static void *sinks[SINK_DEVICES];

static aclError idle_word(CUdeviceptr near, void **out)
{
    struct cudaPointerAttributes attr;
    aclError rc = check(cudaPointerGetAttributes(&attr, (const void *)(uintptr_t)near));
    if (rc)
        return rc;
    int dev = attr.device;
    if (dev < 0 || dev >= SINK_DEVICES)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    pthread_mutex_lock(&sink_lock);
    if (!sinks[dev] && !(rc = use_device(dev)) && !(rc = check(cudaMalloc(&sinks[dev], 256))) &&
        (rc = check(cudaMemset(sinks[dev], 0, 256)))) {
        (void)cudaFree(sinks[dev]);
        sinks[dev] = NULL;
    }
    *out = sinks[dev];
    pthread_mutex_unlock(&sink_lock);
    return *out ? ACL_SUCCESS : (rc ? rc : ACL_ERROR_RT_MEMORY_ALLOCATION);
}

/* CUDA disables kernels, copies and fills. A value write or wait is
 * turned into one that does nothing (a write to a word of ours, a wait
 * for "at least 0"): stream memory operations cannot be disabled. */
static aclError enable_node(backend_graph *g, uint64_t node, bool enable)
{
    cudaGraphNode_t n = (cudaGraphNode_t)(uintptr_t)node;
    if (!is_memop(n))
        return check(cudaGraphNodeSetEnabled(g->exec, n, enable));
    aclError rc;
    if (!drv.cuGraphBatchMemOpNodeGetParams || !drv.cuGraphExecBatchMemOpNodeSetParams)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    CUDA_BATCH_MEM_OP_NODE_PARAMS p;
    CUresult r = drv.cuGraphBatchMemOpNodeGetParams((CUgraphNode)n, &p);
    if (r != CUDA_SUCCESS)
        return from_cu(r);
    if (enable) /* the node's own parameters again */
        return from_cu(
            drv.cuGraphExecBatchMemOpNodeSetParams((CUgraphExec)g->exec, (CUgraphNode)n, &p));
    enum { MOST = 8 };
    if (p.count > MOST)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    CUstreamBatchMemOpParams ops[MOST];
    memcpy(ops, p.paramArray, p.count * sizeof ops[0]);
    void *sink = NULL;
    for (unsigned i = 0; i < p.count; i++) {
        if (!sink &&
            (ops[i].operation == CU_STREAM_MEM_OP_WRITE_VALUE_32 ||
             ops[i].operation == CU_STREAM_MEM_OP_WRITE_VALUE_64 ||
             ops[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 ||
             ops[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_64) &&
            (rc = idle_word(ops[i].writeValue.address, &sink)))
            return rc;
        switch (ops[i].operation) {
        case CU_STREAM_MEM_OP_WRITE_VALUE_32:
        case CU_STREAM_MEM_OP_WRITE_VALUE_64:
            ops[i].writeValue.address = (CUdeviceptr)(uintptr_t)sink;
            break;
        case CU_STREAM_MEM_OP_WAIT_VALUE_32:
        case CU_STREAM_MEM_OP_WAIT_VALUE_64:
            ops[i].waitValue.address = (CUdeviceptr)(uintptr_t)sink + SINK_UNWRITTEN;
            ops[i].waitValue.value64 = 0;
            ops[i].waitValue.flags = (ops[i].waitValue.flags & ~0x3u) | CU_STREAM_WAIT_VALUE_GEQ;
            break;
        default:
            break;
        }
    }
    p.paramArray = ops;
    return from_cu(
        drv.cuGraphExecBatchMemOpNodeSetParams((CUgraphExec)g->exec, (CUgraphNode)n, &p));
}

/* ---- new work for a node ---------------------------------------------------------- */

/* A kernel node takes a launch as it is: function, shape and arguments. */
static aclError set_kernel(backend_graph *g, cudaGraphNode_t node, const launch_params *p)
{
    if (!driver_ready() || !drv.cuGraphExecKernelNodeSetParams)
        return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    aclError rc = cuda_function_allow_shared(p->fn, p->shared_bytes);
    if (rc)
        return rc;
    size_t size = p->args_size;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)p->args, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &size, CU_LAUNCH_PARAM_END};
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = cuda_function_handle(p->fn);
    k.gridDimX = p->grid[0];
    k.gridDimY = p->grid[1];
    k.gridDimZ = p->grid[2];
    k.blockDimX = p->block[0];
    k.blockDimY = p->block[1];
    k.blockDimZ = p->block[2];
    k.sharedMemBytes = p->shared_bytes;
    k.extra = size ? extra : NULL;
    CUresult r = drv.cuGraphExecKernelNodeSetParams((CUgraphExec)g->exec, (CUgraphNode)node, &k);
    return r == CUDA_SUCCESS ? ACL_SUCCESS : ACL_ERROR_RT_MODEL_UPDATE_FAILED;
}

/* Other work is captured on a stream of our own into a graph of one node,
 * whose parameters the node then takes. */
static aclError set_node(backend_graph *g, uint64_t node, int32_t dev, const node_work *w)
{
    cudaGraphNode_t target = (cudaGraphNode_t)(uintptr_t)node;
    aclError rc = use_device(dev);
    if (rc)
        return rc;
    if (w->kind == NODE_WORK_KERNEL) {
        if (!(rc = set_kernel(g, target, w->u.launch)))
            cuda_graph_waits_set_node(&g->waits, target, NULL, NULL);
        return rc;
    }
    backend_stream scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.dev = dev;
    if ((rc = check(cudaStreamCreateWithFlags(&scratch.s, cudaStreamNonBlocking))))
        return rc;
    cudaGraph_t graph = NULL;
    graph_waits waits = {0};
    cuda_capture_possible();
    if (!(rc = capture_error(cudaStreamBeginCapture(scratch.s, cudaStreamCaptureModeRelaxed)))) {
        cudaGraph_t capturing = capture_begun(scratch.s);
        switch (w->kind) {
        case NODE_WORK_RANDOM:
            rc = cuda_random(&scratch, w->u.random);
            break;
        case NODE_WORK_VALUE_WRITE:
            rc = cuda_value_write(&scratch, w->u.value.addr, w->u.value.value);
            break;
        case NODE_WORK_VALUE_WAIT:
            rc = cuda_value_wait(&scratch, w->u.value.addr, w->u.value.value, w->u.value.cmp);
            break;
        default:
            rc = ACL_ERROR_RT_PARAM_INVALID;
            break;
        }
        waits = capture_waits(capturing);
        aclError end = capture_error(cudaStreamEndCapture(scratch.s, &graph));
        if (!rc)
            rc = end;
    }
    if (!rc) {
        cudaGraphNode_t source[2];
        size_t count = 2;
        rc = check(cudaGraphGetNodes(graph, source, &count));
        if (!rc)
            rc = count == 1 ? update_from(g, target, source[0]) : ACL_ERROR_RT_MODEL_UPDATE_FAILED;
        if (!rc)
            cuda_graph_waits_set_node(&g->waits, target, &waits, source[0]);
    }
    cuda_graph_waits_free(&waits);
    if (graph)
        (void)check(cudaGraphDestroy(graph));
    (void)check(cudaStreamDestroy(scratch.s));
    return rc;
}

static aclError cuda_graph_enable_node(backend_graph *g, uint64_t node, bool enable)
{
    pthread_mutex_lock(&g->exec_lock);
    aclError rc = enable_node(g, node, enable);
    if (!rc)
        cuda_graph_waits_enable(&g->waits, (cudaGraphNode_t)(uintptr_t)node, enable);
    cuda_appliers_host_changed(g->appliers, (cudaGraphNode_t)(uintptr_t)node);
    pthread_mutex_unlock(&g->exec_lock);
    return rc;
}

static aclError cuda_graph_set_node(backend_graph *g, uint64_t node, int32_t dev,
                                    const node_work *w)
{
    pthread_mutex_lock(&g->exec_lock);
    aclError rc = set_node(g, node, dev, w);
    cuda_appliers_host_changed(g->appliers, (cudaGraphNode_t)(uintptr_t)node);
    pthread_mutex_unlock(&g->exec_lock);
    return rc;
}

aclError cuda_graph_set_node_ordered(backend_stream *s, backend_graph *g, uint64_t node,
                                     int32_t dev, const node_work *w)
{
    (void)dev;
    if (!g->appliers)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    pthread_mutex_lock(&g->exec_lock);
    aclError rc = cuda_appliers_post(g->appliers, s, node, w);
    pthread_mutex_unlock(&g->exec_lock);
    return rc;
}

/* ---- conditional nodes ------------------------------------------------------------ */

/* CUDA takes a conditional handle for one node only, while an ACL
 * condition may steer several tasks: each node gets a handle of its own
 * (add_cond), set from the condition's word right before the node, so the
 * condition itself needs nothing of CUDA. Its default value reaches the
 * word in the core. */
static aclError cuda_cond_create(backend_stream *s, uint32_t default_value, bool assign_default,
                                 uint64_t *out)
{
    (void)default_value;
    (void)assign_default;
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    enum cudaStreamCaptureStatus status;
    if ((rc = check(cudaStreamGetCaptureInfo(s->s, &status, NULL, NULL, NULL, NULL, NULL))))
        return rc;
    if (status != cudaStreamCaptureStatusActive)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    *out = 0;
    return ACL_SUCCESS;
}

/* The graph being captured on s, and the nodes its next node follows. */
static aclError capture_point(backend_stream *s, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                              size_t *ndeps)
{
    enum cudaStreamCaptureStatus status;
    aclError rc = check(cudaStreamGetCaptureInfo(s->s, &status, NULL, graph, deps, NULL, ndeps));
    if (!rc && status != cudaStreamCaptureStatusActive)
        rc = ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    return rc;
}

/* A conditional node's bodies are allocated before the node, so that
 * handing them out cannot fail once it exists. NULL: out of memory. */
static backend_graph **cond_bodies_alloc(uint32_t size)
{
    backend_graph **made = calloc(size, sizeof *made);
    for (uint32_t i = 0; made && i < size; i++)
        if (!(made[i] = calloc(1, sizeof *made[i]))) {
            for (uint32_t j = 0; j < i; j++)
                free(made[j]);
            free(made);
            made = NULL;
        }
    return made;
}

static void cond_bodies_free(backend_graph **made, uint32_t size)
{
    for (uint32_t i = 0; i < size; i++)
        free(made[i]);
    free(made);
}

static struct cudaGraphNodeParams cond_params(cudaGraphConditionalHandle handle, cond_kind kind,
                                              uint32_t size)
{
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = kind == COND_IF      ? cudaGraphCondTypeIf
                         : kind == COND_WHILE ? cudaGraphCondTypeWhile
                                              : cudaGraphCondTypeSwitch;
    p.conditional.size = size;
    return p;
}

/* Hands out the bodies of the node added with p to parent (CUDA's graphs
 * of its branches), the condition read from word. */
static void cond_bodies_hand_out(backend_graph **made, const struct cudaGraphNodeParams *p,
                                 cudaGraph_t parent, int dev, cond_kind kind, const void *word,
                                 backend_graph **bodies)
{
    for (uint32_t i = 0; i < p->conditional.size; i++) {
        cuda_graph_waits_body(p->conditional.phGraph_out[i], parent);
        *made[i] = (backend_graph){.graph = p->conditional.phGraph_out[i],
                                   .dev = dev,
                                   .body = true,
                                   .kind = kind,
                                   .cond = (uint64_t)p->conditional.handle,
                                   .word = word};
        bodies[i] = made[i];
    }
    free(made);
}

static aclError cuda_add_cond(backend_stream *s, uint64_t cond, const void *word, cond_kind kind,
                              uint32_t size, backend_graph **bodies)
{
    (void)cond; /* 0: see cuda_cond_create */
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    backend_graph **made = cond_bodies_alloc(size);
    if (!made)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    cudaGraph_t graph = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    cudaGraphConditionalHandle handle = 0;
    rc = capture_point(s, &graph, &deps, &ndeps);
    if (!rc)
        rc = check(cudaGraphConditionalHandleCreate(&handle, graph, 0, 0));
    /* The condition, set from the word right before the node. */
    if (!rc)
        rc = cuda_set_condition(s, (uint64_t)handle, word, kind);
    if (!rc)
        rc = capture_point(s, &graph, &deps, &ndeps);
    struct cudaGraphNodeParams p = cond_params(handle, kind, size);
    cudaGraphNode_t node = NULL;
    if (!rc)
        rc = check(cudaGraphAddNode(&node, graph, deps, NULL, ndeps, &p));
    if (!rc)
        rc = check(cudaStreamUpdateCaptureDependencies(s->s, &node, NULL, 1,
                                                       cudaStreamSetCaptureDependencies));
    if (rc) {
        cond_bodies_free(made, size);
        return rc;
    }
    cond_bodies_hand_out(made, &p, graph, s->dev, kind, word, bodies);
    return ACL_SUCCESS;
}

static aclError cuda_capture_begin_into(backend_stream *s, backend_graph *body)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    cuda_capture_possible();
    return capture_error(cudaStreamBeginCaptureToGraph(s->s, body->graph, NULL, NULL, 0,
                                                       cudaStreamCaptureModeRelaxed));
}

static aclError cuda_capture_end_into(backend_stream *s, backend_graph *body, bool discard)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    /* A loop reads its word again after each run of its body. */
    aclError set = discard || body->kind != COND_WHILE
                       ? ACL_SUCCESS
                       : cuda_set_condition(s, body->cond, body->word, COND_WHILE);
    cudaGraph_t graph = NULL;
    rc = capture_error(cudaStreamEndCapture(s->s, &graph));
    if (graph) /* branches' kernels update for later launches */
        (void)cuda_updatable_settle(graph, false, s->dev);
    return rc ? rc : set;
}

/* ---- models with stream control flow ------------------------------------------------
 * Their graphs are put together after the captures of their pieces, with
 * the dependencies the core names: a piece becomes a child graph node (a
 * clone of it; the core keeps the piece until the model's graph goes, so
 * whatever the piece's user objects hold outlives every run), a selection
 * and a conditional node's condition are kernels of ours captured at
 * their place (cudaStreamBeginCaptureToGraph with those dependencies). */

/* The capture's last nodes, before it ends (an array of *count the caller
 * frees; NULL when none or unknown). */
static cudaGraphNode_t *capture_last_nodes(backend_stream *s, size_t *count)
{
    cudaGraph_t graph = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t n = 0;
    cudaGraphNode_t *copy = NULL;
    if (capture_point(s, &graph, &deps, &n) == ACL_SUCCESS && n && deps &&
        (copy = malloc(n * sizeof *copy)))
        memcpy(copy, deps, n * sizeof *copy);
    *count = copy ? n : 0;
    return copy;
}

static aclError cuda_capture_end_piece(backend_stream *s, bool discard, backend_graph **out,
                                       uint64_t *end)
{
    *out = NULL;
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    size_t nlast = 0;
    cudaGraphNode_t *last = end ? capture_last_nodes(s, &nlast) : NULL;
    graph_waits waits = capture_waits(s->capture_graph);
    s->capture_graph = NULL;
    cudaGraph_t graph = NULL;
    rc = capture_error(cudaStreamEndCapture(s->s, &graph));
    if (graph) /* a piece is cloned into its model's graph: updates for later launches */
        (void)cuda_updatable_settle(graph, false, s->dev);
    backend_graph *g = NULL;
    if (!rc && !discard && !(g = calloc(1, sizeof *g)))
        rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
    cudaGraphNode_t joined = NULL;
    if (!rc && !discard && end)
        rc = check(cudaGraphAddEmptyNode(&joined, graph, last, nlast));
    free(last);
    if (rc || discard) {
        cuda_graph_waits_free(&waits);
        free(g);
        if (graph)
            (void)check(cudaGraphDestroy(graph));
        return rc;
    }
    g->graph = graph;
    g->dev = s->dev;
    g->waits = waits;
    if (end)
        *end = (uint64_t)(uintptr_t)joined;
    *out = g;
    return ACL_SUCCESS;
}

/* deps as CUDA's nodes: an array the caller frees (NULL when none). */
static aclError graph_nodes_of(const uint64_t *deps, size_t n, cudaGraphNode_t **out)
{
    *out = NULL;
    if (!n)
        return ACL_SUCCESS;
    if (!(*out = malloc(n * sizeof **out)))
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    for (size_t i = 0; i < n; i++)
        (*out)[i] = (cudaGraphNode_t)(uintptr_t)deps[i];
    return ACL_SUCCESS;
}

static aclError cuda_add_child(backend_graph *g, const uint64_t *deps, size_t ndeps,
                               backend_graph *piece, uint64_t *node)
{
    cudaGraphNode_t *d;
    aclError rc = graph_nodes_of(deps, ndeps, &d);
    if (rc)
        return rc;
    cudaGraphNode_t n = NULL;
    rc = check(cudaGraphAddChildGraphNode(&n, g->graph, d, ndeps, piece->graph));
    free(d);
    if (!rc) {
        cuda_graph_waits_add(g->graph, &piece->waits);
        *node = (uint64_t)(uintptr_t)n;
    }
    return rc;
}

/* What one of our kernels queued on a capturing stream does at a place of
 * g (after deps); *node: the node it became. */
typedef aclError (*queue_fn)(backend_stream *s, const void *arg);

static aclError capture_at(backend_graph *g, const uint64_t *deps, size_t ndeps, queue_fn queue,
                           const void *arg, uint64_t *node)
{
    aclError rc = use_device(g->dev);
    if (rc)
        return rc;
    cudaGraphNode_t *d;
    if ((rc = graph_nodes_of(deps, ndeps, &d)))
        return rc;
    backend_stream scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.dev = g->dev;
    if ((rc = check(cudaStreamCreateWithFlags(&scratch.s, cudaStreamNonBlocking)))) {
        free(d);
        return rc;
    }
    cuda_capture_possible();
    rc = capture_error(cudaStreamBeginCaptureToGraph(scratch.s, g->graph, d, NULL, ndeps,
                                                     cudaStreamCaptureModeRelaxed));
    free(d);
    if (!rc) {
        rc = queue(&scratch, arg);
        if (!rc && node)
            rc = cuda_capture_last_node(&scratch, node);
        cudaGraph_t same = NULL; /* g's own graph: nothing to destroy */
        aclError end = capture_error(cudaStreamEndCapture(scratch.s, &same));
        if (!rc)
            rc = end;
    }
    (void)check(cudaStreamDestroy(scratch.s));
    return rc;
}

typedef struct select_call {
    uint64_t *word;
    const flow_select *sel;
} select_call;

static aclError queue_select(backend_stream *s, const void *arg)
{
    const select_call *c = arg;
    return cuda_flow_select(s, c->word, c->sel);
}

static aclError cuda_add_select(backend_graph *g, const uint64_t *deps, size_t ndeps,
                                uint64_t *word, const flow_select *sel, uint64_t *node)
{
    select_call c = {word, sel};
    return capture_at(g, deps, ndeps, queue_select, &c, node);
}

typedef struct condition_call {
    uint64_t handle;
    const void *word;
    cond_kind kind;
} condition_call;

static aclError queue_condition(backend_stream *s, const void *arg)
{
    const condition_call *c = arg;
    return cuda_set_condition(s, c->handle, c->word, c->kind);
}

static aclError cuda_add_cond_node(backend_graph *g, const uint64_t *deps, size_t ndeps,
                                   const uint64_t *word, cond_kind kind, uint32_t size,
                                   backend_graph **bodies, uint64_t *node)
{
    backend_graph **made = cond_bodies_alloc(size);
    if (!made)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    /* Its condition, set from the word right before it (as add_cond's). */
    cudaGraphConditionalHandle handle = 0;
    aclError rc = check(cudaGraphConditionalHandleCreate(&handle, g->graph, 0, 0));
    uint64_t set = 0;
    if (!rc)
        rc = capture_at(g, deps, ndeps, queue_condition,
                        &(condition_call){(uint64_t)handle, word, kind}, &set);
    struct cudaGraphNodeParams p = cond_params(handle, kind, size);
    cudaGraphNode_t n = NULL, after = (cudaGraphNode_t)(uintptr_t)set;
    if (!rc)
        rc = check(cudaGraphAddNode(&n, g->graph, &after, NULL, 1, &p));
    if (rc) {
        cond_bodies_free(made, size);
        return rc;
    }
    cond_bodies_hand_out(made, &p, g->graph, g->dev, kind, word, bodies);
    *node = (uint64_t)(uintptr_t)n;
    return ACL_SUCCESS;
}

/* As a captured WHILE body's end (capture_end_into): its condition is set
 * from the word again for the next round. */
static aclError cuda_loop_end(backend_graph *body, const uint64_t *deps, size_t ndeps)
{
    return capture_at(body, deps, ndeps, queue_condition,
                      &(condition_call){body->cond, body->word, COND_WHILE}, NULL);
}

static aclError cuda_graph_keep(backend_graph *g, void *ptr, void (*release)(void *))
{
    cudaUserObject_t object;
    aclError rc =
        check(cudaUserObjectCreate(&object, ptr, release, 1, cudaUserObjectNoDestructorSync));
    if (rc)
        return rc;
    /* As cuda_capture_keep: on failure the object is left alone. */
    return check(cudaGraphRetainUserObject(g->graph, object, 1, cudaGraphUserObjectMove));
}

static aclError cuda_graph_finish(backend_graph *g)
{
    graph_waits added; /* by the nodes put in after the piece */
    cuda_graph_waits_take(g->graph, &added);
    cuda_graph_waits_append(&g->waits, &added);
    cuda_graph_waits_free(&added);
    aclError rc = use_device(g->dev);
    if (!rc)
        rc = check(cudaGraphInstantiate(&g->exec, g->graph, 0));
    if (rc) {
        g->exec = NULL;
        return rc;
    }
    pthread_mutex_init(&g->exec_lock, NULL);
    return ACL_SUCCESS;
}

const backend_graph_ops cuda_graph_ops = {
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .capture_last_node = cuda_capture_last_node,
    .capture_keep = cuda_keep,
    .destroy = cuda_graph_destroy,
    .launch_captured = false, /* cudaGraphLaunch cannot be captured */
    .nodes = cuda_graph_nodes,
    .update_node = cuda_graph_update_node,
    .enable_node = cuda_graph_enable_node,
    .set_node = cuda_graph_set_node,
    .mark_updatable = cuda_mark_updatable,
    .cond_create = cuda_cond_create,
    .add_cond = cuda_add_cond,
    .capture_begin_into = cuda_capture_begin_into,
    .capture_end_into = cuda_capture_end_into,
    .abort = NULL, /* a launched graph runs to its end */
    .capture_end_piece = cuda_capture_end_piece,
    .add_child = cuda_add_child,
    .add_select = cuda_add_select,
    .add_cond_node = cuda_add_cond_node,
    .loop_end = cuda_loop_end,
    .keep = cuda_graph_keep,
    .finish = cuda_graph_finish,
};
