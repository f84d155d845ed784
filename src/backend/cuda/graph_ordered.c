/* Task updates in stream order on the cuda backend
 * (backend_stream_ops.graph_set_node).
 *
 * CUDA changes an executable graph's nodes for later launches only
 * (cudaGraphExec*SetParams), but ACL's task updates are stream-ordered: a
 * model run queued before the update and reaching the task after it runs
 * the updated task. CUDA 12.4's device-updatable kernel nodes take new
 * arguments and grids from device code (cudaGraphKernelNodeSetParam,
 * ...SetGridDim), but a launch reads its nodes when it starts: an update
 * made while a launch waits inside the graph reaches the next launch only
 * (H100, CUDA 13.0). So each kernel of a task group is made device-updatable
 * when its capture ends, before the graph is instantiated (not in branches
 * of conditional tasks or in pieces of models with stream control flow),
 * and gets a kernel of ours right before it in the graph, its applier. An
 * update is another kernel of ours, queued on the updating stream, which
 * posts the new arguments and grid to the node's mailbox (device memory);
 * every launch whose applier runs after that gives them to the node, and
 * CUDA keeps them for the launches after (graph_update_kernels.cu).
 *
 * A mailbox names its owner by an epoch, given anew when a host-side change
 * of the node (for later launches) makes what was posted stale, and when a
 * mailbox is reused by another graph. The function, block shape and shared
 * memory cannot change on the device; such an update, a node that has no
 * applier, and other kinds of nodes are changed for later launches instead
 * (graph.c, set_node). A failure on the device leaves
 * ACL_ERROR_RT_MODEL_UPDATE_FAILED in the fault word of the stream that
 * launched the graph, for its next synchronize.
 *
 * ACLCUDA_DEVICE_TASK_UPDATES=0 turns it off (an applier costs each run a
 * one-thread kernel per task-group kernel): every update then reaches later
 * launches only (docs/backends.md). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "backend/cuda/graph_update_kernels.h"
#include "util/log.h"

/* A kernel of a task group and its applier, in one graph. */
typedef struct applier {
    cudaGraphNode_t node;  /* the task's kernel node */
    cudaGraphNode_t apply; /* ours, right before it */
    unsigned long long dev_node;
    graph_node_mailbox *box;
    unsigned long long epoch;
} applier;

struct graph_appliers {
    int dev;
    /* Our kernels in dev's context, loaded when the graph was made: loading
     * one later may wait for the device, where a run waits for the update
     * (CUDA's lazy loading). */
    CUfunction post, apply;
    /* The fault word the appliers' parameters name (host address), and
     * whether their parameters or the uploaded graph are to be renewed
     * before the next launch. */
    uint32_t *fault;
    bool stale;
    size_t count;
    applier items[];
};

#if CUDART_VERSION >= 12040
static pthread_once_t device_updates_once = PTHREAD_ONCE_INIT;
static bool device_updates;

static void device_updates_read(void)
{
    const char *v = getenv("ACLCUDA_DEVICE_TASK_UPDATES");
    device_updates = !v || strcmp(v, "0") != 0;
}

static bool device_updates_enabled(void)
{
    pthread_once(&device_updates_once, device_updates_read);
    return device_updates;
}
#endif

/* ---- kernel nodes to make device-updatable ----------------------------------------------
 * Kept from mark_updatable until the capture of their graph ends: the
 * attribute is set on the finished graph, before it is instantiated, not on
 * one CUDA is still capturing. */
typedef struct updatable {
    struct updatable *next;
    cudaGraph_t graph;
    cudaGraphNode_t node;
} updatable;

static pthread_mutex_t updatable_lock = PTHREAD_MUTEX_INITIALIZER;
static updatable *updatables;

aclError cuda_mark_updatable(backend_stream *s, uint64_t node)
{
#if CUDART_VERSION >= 12040
    if (!device_updates_enabled())
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    enum cudaStreamCaptureStatus status;
    cudaGraph_t graph = NULL;
    aclError rc = check(cudaStreamGetCaptureInfo(s->s, &status, NULL, &graph, NULL, NULL, NULL));
    if (rc)
        return rc;
    if (status != cudaStreamCaptureStatusActive || !graph)
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    updatable *u = malloc(sizeof *u);
    if (!u)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    u->graph = graph;
    u->node = (cudaGraphNode_t)(uintptr_t)node;
    pthread_mutex_lock(&updatable_lock);
    u->next = updatables;
    updatables = u;
    pthread_mutex_unlock(&updatable_lock);
    return ACL_SUCCESS;
#else
    (void)s;
    (void)node;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
#endif
}

/* The marked nodes of graph, taken off the list; *count of them. */
static updatable *updatable_take(cudaGraph_t graph, size_t *count)
{
    updatable *mine = NULL;
    *count = 0;
    pthread_mutex_lock(&updatable_lock);
    for (updatable **p = &updatables; *p;) {
        updatable *u = *p;
        if (u->graph == graph) {
            *p = u->next;
            u->next = mine;
            mine = u;
            ++*count;
        } else {
            p = &u->next;
        }
    }
    pthread_mutex_unlock(&updatable_lock);
    return mine;
}

#if defined(ACLCUDA_HAVE_BUILTIN_KERNELS) && CUDART_VERSION >= 12040
/* ---- our kernels ------------------------------------------------------------------------ */
extern const unsigned char aclcuda_graph_update_fatbin[];

static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;
static CUkernel post_kernel, apply_kernel;
static CUresult kernels_result = CUDA_ERROR_NOT_INITIALIZED;

static void kernels_load(void)
{
    CUlibrary library;
    if (!driver_ready() || !drv.cuLibraryLoadData || !drv.cuLibraryGetKernel ||
        !drv.cuKernelGetFunction || !drv.cuGraphAddKernelNode) {
        kernels_result = CUDA_ERROR_NOT_SUPPORTED;
        return;
    }
    kernels_result =
        drv.cuLibraryLoadData(&library, aclcuda_graph_update_fatbin, NULL, NULL, 0, NULL, NULL, 0);
    if (kernels_result == CUDA_SUCCESS)
        kernels_result = drv.cuLibraryGetKernel(&post_kernel, library, "aclcuda_graph_node_post");
    if (kernels_result == CUDA_SUCCESS)
        kernels_result = drv.cuLibraryGetKernel(&apply_kernel, library, "aclcuda_graph_node_apply");
}

static bool kernels_ready(void)
{
    pthread_once(&kernels_once, kernels_load);
    return kernels_result == CUDA_SUCCESS;
}

/* ---- mailboxes: device memory of each device, taken from slabs that are
 * kept for the process (freeing would wait for the device) ---------------------------- */
enum { MAILBOX_DEVICES = 64, MAILBOXES_PER_SLAB = 32 };

static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;
static graph_node_mailbox **mailbox_free[MAILBOX_DEVICES];
static size_t mailbox_free_count[MAILBOX_DEVICES], mailbox_free_cap[MAILBOX_DEVICES];
static _Atomic unsigned long long next_epoch = 1;

/* With mailbox_lock held; dev is current. */
static bool mailbox_slab_new(int dev)
{
    size_t need = mailbox_free_count[dev] + MAILBOXES_PER_SLAB;
    if (need > mailbox_free_cap[dev]) {
        graph_node_mailbox **grown = realloc(mailbox_free[dev], need * sizeof *grown);
        if (!grown)
            return false;
        mailbox_free[dev] = grown;
        mailbox_free_cap[dev] = need;
    }
    graph_node_mailbox *slab;
    if (cudaMalloc((void **)&slab, MAILBOXES_PER_SLAB * sizeof *slab) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    for (size_t i = 0; i < MAILBOXES_PER_SLAB; i++)
        mailbox_free[dev][mailbox_free_count[dev]++] = &slab[i];
    return true;
}

/* A mailbox of device dev (current), or NULL. What it holds is another
 * epoch's: nothing to apply. */
static graph_node_mailbox *mailbox_get(int dev)
{
    if (dev < 0 || dev >= MAILBOX_DEVICES)
        return NULL;
    graph_node_mailbox *box = NULL;
    pthread_mutex_lock(&mailbox_lock);
    if (mailbox_free_count[dev] > 0 || mailbox_slab_new(dev))
        box = mailbox_free[dev][--mailbox_free_count[dev]];
    pthread_mutex_unlock(&mailbox_lock);
    return box;
}

/* The list has room for every mailbox of the device's slabs. */
static void mailbox_put(int dev, graph_node_mailbox *box)
{
    pthread_mutex_lock(&mailbox_lock);
    mailbox_free[dev][mailbox_free_count[dev]++] = box;
    pthread_mutex_unlock(&mailbox_lock);
}

static unsigned long long epoch_new(void)
{
    return atomic_fetch_add_explicit(&next_epoch, 1, memory_order_relaxed);
}

/* ---- appliers ----------------------------------------------------------------------------- */

enum { APPLIER_DEPS_MAX = 64 };

/* n's dependencies, when there are at most APPLIER_DEPS_MAX of the plain
 * kind (CUDA refuses to list others without their edge data). */
static bool dependencies(cudaGraphNode_t n, cudaGraphNode_t *deps, size_t *count)
{
    size_t total = 0;
#if CUDART_VERSION >= 13000
    if (cudaGraphNodeGetDependencies(n, NULL, NULL, &total) != cudaSuccess ||
        total > APPLIER_DEPS_MAX ||
        (total && cudaGraphNodeGetDependencies(n, deps, NULL, &total) != cudaSuccess)) {
#else
    if (cudaGraphNodeGetDependencies(n, NULL, &total) != cudaSuccess || total > APPLIER_DEPS_MAX ||
        (total && cudaGraphNodeGetDependencies(n, deps, &total) != cudaSuccess)) {
#endif
        (void)cudaGetLastError();
        return false;
    }
    *count = total;
    return true;
}

static CUDA_KERNEL_NODE_PARAMS apply_params(const graph_node_apply *arg, void **params,
                                            CUfunction f)
{
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = f;
    k.gridDimX = k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = k.blockDimY = k.blockDimZ = 1;
    params[0] = (void *)arg;
    k.kernelParams = params;
    return k;
}

/* Node a->node of graph gets its applier: a kernel node with the node's
 * dependencies, and an edge from it to the node (whose own edges stay:
 * they order nothing more than the applier's do). */
static bool applier_add(cudaGraph_t graph, applier *a, CUfunction f)
{
    cudaGraphNode_t deps[APPLIER_DEPS_MAX];
    size_t ndeps = 0;
    if (!dependencies(a->node, deps, &ndeps))
        return false;
    graph_node_apply arg = {.box = a->box, .node = a->dev_node, .epoch = a->epoch};
    void *params[1];
    CUDA_KERNEL_NODE_PARAMS k = apply_params(&arg, params, f);
    CUgraphNode apply;
    if (drv.cuGraphAddKernelNode(&apply, (CUgraph)graph, (const CUgraphNode *)deps, ndeps, &k) !=
        CUDA_SUCCESS)
        return false;
    cudaGraphNode_t from = (cudaGraphNode_t)apply;
#if CUDART_VERSION >= 13000
    cudaError_t err = cudaGraphAddDependencies(graph, &from, &a->node, NULL, 1);
#else
    cudaError_t err = cudaGraphAddDependencies(graph, &from, &a->node, 1);
#endif
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaGraphDestroyNode(from);
        return false;
    }
    a->apply = from;
    return true;
}

/* Kernel k in the current context, its code loaded now. */
static bool function_loaded(CUkernel k, CUfunction *f)
{
    if (drv.cuKernelGetFunction(f, k) != CUDA_SUCCESS)
        return false;
    return !drv.cuFuncLoad || drv.cuFuncLoad(*f) == CUDA_SUCCESS;
}

/* Makes node device-updatable and gives it an applier; false leaves it to
 * take its updates for later launches. */
static bool applier_make(cudaGraph_t graph, cudaGraphNode_t node, int dev, applier *a, CUfunction f)
{
    cudaKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.deviceUpdatableKernelNode.deviceUpdatable = 1;
    if (cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeDeviceUpdatableKernelNode, &v) !=
            cudaSuccess ||
        cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeDeviceUpdatableKernelNode, &v) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    *a = (applier){.node = node,
                   .dev_node = (unsigned long long)(uintptr_t)v.deviceUpdatableKernelNode.devNode,
                   .box = mailbox_get(dev),
                   .epoch = epoch_new()};
    if (a->box && applier_add(graph, a, f))
        return true;
    if (a->box)
        mailbox_put(dev, a->box);
    return false;
}

graph_appliers *cuda_updatable_settle(cudaGraph_t graph, bool apply, int dev)
{
    size_t count;
    updatable *mine = updatable_take(graph, &count);
    graph_appliers *made = NULL;
    CUfunction post = NULL, f = NULL;
    if (apply && count && kernels_ready() && function_loaded(post_kernel, &post) &&
        function_loaded(apply_kernel, &f) &&
        (made = calloc(1, sizeof *made + count * sizeof made->items[0]))) {
        made->dev = dev;
        made->post = post;
        made->apply = f;
    }
    while (mine) {
        updatable *u = mine;
        mine = u->next;
        if (made && !applier_make(graph, u->node, dev, &made->items[made->count], f))
            ACL_LOG(LOG_INFO, "kernel node %p takes its updates for later launches",
                    (void *)u->node);
        else if (made)
            made->count++;
        free(u);
    }
    /* Kept without appliers too: nodes made device-updatable need an upload
     * after host-side changes. Uploaded, and the fault word set, before the
     * first launch. */
    if (made)
        made->stale = true;
    return made;
}

void cuda_appliers_free(graph_appliers *ap)
{
    if (!ap)
        return;
    for (size_t i = 0; i < ap->count; i++)
        mailbox_put(ap->dev, ap->items[i].box);
    free(ap);
}

static applier *applier_of(graph_appliers *ap, cudaGraphNode_t node)
{
    for (size_t i = 0; ap && i < ap->count; i++)
        if (ap->items[i].node == node)
            return &ap->items[i];
    return NULL;
}

void cuda_appliers_host_changed(graph_appliers *ap, cudaGraphNode_t node)
{
    if (!ap)
        return;
    applier *a = applier_of(ap, node);
    if (a)
        a->epoch = epoch_new();
    ap->stale = true;
}

aclError cuda_appliers_prepare(graph_appliers *ap, cudaGraphExec_t exec, backend_stream *s)
{
    uint32_t *word = atomic_load_explicit(&s->fault, memory_order_acquire);
    if (!ap->stale && word && word == ap->fault)
        return ACL_SUCCESS;
    uint32_t *dev_word;
    aclError rc = cuda_stream_fault_word(s, &dev_word);
    if (rc)
        return rc;
    for (size_t i = 0; i < ap->count && !rc; i++) {
        applier *a = &ap->items[i];
        graph_node_apply arg = {.box = a->box,
                                .node = a->dev_node,
                                .epoch = a->epoch,
                                .fault = dev_word,
                                .code = (uint32_t)ACL_ERROR_RT_MODEL_UPDATE_FAILED};
        void *params[1];
        CUDA_KERNEL_NODE_PARAMS k = apply_params(&arg, params, ap->apply);
        rc = from_cu(
            drv.cuGraphExecKernelNodeSetParams((CUgraphExec)exec, (CUgraphNode)a->apply, &k));
    }
    /* Host-side changes of device-updatable nodes reach the device with an
     * upload (CUDA requires one before the next launch). */
    if (!rc && ap->stale)
        rc = check(cudaGraphUpload(exec, s->s));
    if (!rc) {
        ap->fault = atomic_load_explicit(&s->fault, memory_order_acquire);
        ap->stale = false;
    }
    return rc;
}

/* The device-side handle of the kernel node n can take p's launch when it
 * has the same function, block shape and shared memory. */
static bool same_shape(cudaGraphNode_t n, const launch_params *p)
{
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    if (!drv.cuGraphKernelNodeGetParams ||
        drv.cuGraphKernelNodeGetParams((CUgraphNode)n, &k) != CUDA_SUCCESS)
        return false;
    CUfunction f = cuda_function_handle(p->fn);
    bool same = (k.func == f || (CUfunction)k.kern == f) && k.blockDimX == p->block[0] &&
                k.blockDimY == p->block[1] && k.blockDimZ == p->block[2] &&
                k.sharedMemBytes == p->shared_bytes;
    if (!same)
        ACL_LOG(LOG_INFO,
                "kernel node %p takes the update for later launches: its function, "
                "block shape or shared memory changes",
                (void *)n);
    return same;
}

aclError cuda_appliers_post(graph_appliers *ap, backend_stream *s, uint64_t node,
                            const node_work *w)
{
    applier *a = applier_of(ap, (cudaGraphNode_t)(uintptr_t)node);
    if (!a || s->dev != ap->dev || w->kind != NODE_WORK_KERNEL ||
        w->u.launch->args_size > GRAPH_UPDATE_ARGS_MAX || !kernels_ready())
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    const launch_params *p = w->u.launch;
    if (!same_shape(a->node, p))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = use_device(s->dev);
    if (rc)
        return rc;
    graph_node_post *post = calloc(1, sizeof *post);
    if (!post)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    post->box = a->box;
    post->epoch = a->epoch;
    memcpy(post->grid, p->grid, sizeof post->grid);
    post->args_size = (uint32_t)p->args_size;
    if (p->args_size)
        memcpy(post->args, p->args, p->args_size);
    void *params[] = {post};
    rc = from_cu(drv.cuLaunchKernel(ap->post, 1, 1, 1, 128, 1, 1, 0, (CUstream)s->s, params, NULL));
    free(post); /* the launch copied its argument */
    return rc;
}
#else
graph_appliers *cuda_updatable_settle(cudaGraph_t graph, bool apply, int dev)
{
    (void)apply;
    (void)dev;
    size_t count;
    for (updatable *u = updatable_take(graph, &count), *next; u; u = next) {
        next = u->next;
        free(u);
    }
    return NULL;
}

void cuda_appliers_free(graph_appliers *ap)
{
    (void)ap;
}

void cuda_appliers_host_changed(graph_appliers *ap, cudaGraphNode_t node)
{
    (void)ap;
    (void)node;
}

aclError cuda_appliers_prepare(graph_appliers *ap, cudaGraphExec_t exec, backend_stream *s)
{
    (void)ap;
    (void)exec;
    (void)s;
    return ACL_SUCCESS;
}

aclError cuda_appliers_post(graph_appliers *ap, backend_stream *s, uint64_t node,
                            const node_work *w)
{
    (void)ap;
    (void)s;
    (void)node;
    (void)w;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}
#endif
