/* The kernels of task updates in stream order (graph_ordered.c): one posts
 * a node's new launch to its mailbox, in the updating stream's order; the
 * other, the node's applier, runs right before the node in each launch of
 * its graph and gives it what was posted, with CUDA's device-side node
 * updates. Those come from the device runtime library (cudadevrt), so this
 * file is compiled with relocatable device code and linked on its own into
 * a fatbin of SASS (graph_update_blob.S embeds it). */
#include <cuda_runtime.h>

#include "graph_update_kernels.h"

/* Launched with one block; its threads copy 16 bytes at a time. */
extern "C" __global__ void aclcuda_graph_node_post(graph_node_post p)
{
    graph_node_mailbox *box = p.box;
    const uint4 *from = (const uint4 *)p.args;
    uint4 *to = (uint4 *)box->args;
    for (uint32_t i = threadIdx.x; i < (p.args_size + 15) / 16; i += blockDim.x)
        to[i] = from[i];
    if (threadIdx.x == 0) {
        box->grid[0] = p.grid[0];
        box->grid[1] = p.grid[1];
        box->grid[2] = p.grid[2];
        box->args_size = p.args_size;
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        *(volatile unsigned long long *)&box->epoch = p.epoch;
}

extern "C" __global__ void aclcuda_graph_node_apply(graph_node_apply a)
{
#if CUDART_VERSION >= 12040
    const graph_node_mailbox *box = a.box;
    if (*(const volatile unsigned long long *)&box->epoch != a.epoch)
        return;
    __threadfence();
    cudaGraphDeviceNode_t node = (cudaGraphDeviceNode_t)a.node;
    if (cudaGraphKernelNodeSetParam(node, 0, box->args, box->args_size) == cudaSuccess &&
        cudaGraphKernelNodeSetGridDim(node, dim3(box->grid[0], box->grid[1], box->grid[2])) ==
            cudaSuccess)
        return;
    if (a.fault)
        atomicCAS(a.fault, 0u, a.code);
#endif
}
