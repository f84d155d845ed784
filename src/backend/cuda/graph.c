/* Captures and graphs on the cuda backend: CUDA stream capture (always in
 * relaxed mode: ACL's capture modes are enforced by the core, so CUDA
 * never refuses our own calls made meanwhile), instantiated once the
 * capture ends; a replay is cudaGraphLaunch. The captured graph is kept
 * next to its executable one for task updates (cudaGraphExec*SetParams)
 * and inspection. Objects a replay needs (ACL callbacks' templates,
 * placeholder data) are tied to the graph with CUDA user objects, so they
 * live until the graph and its last launch are gone. */
#include <stdlib.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"

struct backend_graph {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
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

static aclError cuda_capture_begin(backend_stream *s)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    return capture_error(cudaStreamBeginCapture(s->s, cudaStreamCaptureModeRelaxed));
}

static aclError cuda_capture_end(backend_stream *s, bool discard, backend_graph **out)
{
    *out = NULL;
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    cudaGraph_t graph = NULL;
    rc = capture_error(cudaStreamEndCapture(s->s, &graph));
    if (rc || discard) {
        if (graph)
            (void)check(cudaGraphDestroy(graph));
        return rc;
    }
    backend_graph *g = calloc(1, sizeof *g);
    if (!g) {
        (void)check(cudaGraphDestroy(graph));
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    g->graph = graph;
    if ((rc = check(cudaGraphInstantiate(&g->exec, graph, 0)))) {
        (void)check(cudaGraphDestroy(graph));
        free(g);
        return rc;
    }
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
    (void)check(cudaGraphExecDestroy(g->exec));
    (void)check(cudaGraphDestroy(g->graph));
    free(g);
}

aclError cuda_graph_launch(backend_stream *s, backend_graph *g)
{
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    return check(cudaGraphLaunch(g->exec, s->s));
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

static aclError cuda_graph_update_node(backend_graph *g, uint64_t target, backend_graph *update,
                                       uint64_t source)
{
    (void)update; /* the source node belongs to it; it is alive during the call */
    cudaGraphNode_t to = (cudaGraphNode_t)(uintptr_t)target;
    cudaGraphNode_t from = (cudaGraphNode_t)(uintptr_t)source;
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

static aclError cuda_graph_enable_node(backend_graph *g, uint64_t node, bool enable)
{
    return check(cudaGraphNodeSetEnabled(g->exec, (cudaGraphNode_t)(uintptr_t)node, enable));
}

const backend_graph_ops cuda_graph_ops = {
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .capture_last_node = cuda_capture_last_node,
    .capture_keep = cuda_keep,
    .destroy = cuda_graph_destroy,
    .nodes = cuda_graph_nodes,
    .update_node = cuda_graph_update_node,
    .enable_node = cuda_graph_enable_node,
};
