/* The kernel that gives a device-updatable node of a launched graph new
 * arguments and a new grid (graph.c, task updates in stream order): CUDA's
 * device-side node updates, which a launch of the graph that reaches the
 * node afterwards runs with. They come from the device runtime library
 * (cudadevrt), so this file is compiled with relocatable device code and
 * linked on its own into a fatbin of SASS (graph_update_blob.S embeds it). */
#include <cuda_runtime.h>

#include "graph_update_kernels.h"

extern "C" __global__ void aclcuda_graph_node_update(graph_node_update u)
{
#if CUDART_VERSION >= 12040
    cudaGraphDeviceNode_t node = (cudaGraphDeviceNode_t)u.node;
    if (cudaGraphKernelNodeSetParam(node, 0, u.args, u.args_size) == cudaSuccess &&
        cudaGraphKernelNodeSetGridDim(node, dim3(u.grid[0], u.grid[1], u.grid[2])) == cudaSuccess)
        return;
#endif
    atomicCAS(u.fault, 0u, u.code);
}
