/* The argument of the kernel that changes a node of a launched graph
 * (graph_update_kernels.cu), shared by the C side that launches it
 * (graph.c). Plain C types only: nvcc and the C compiler lay it out alike,
 * and it is passed by value, within CUDA's 4 KiB of kernel parameters. */
#ifndef ACLCUDA_BACKEND_CUDA_GRAPH_UPDATE_KERNELS_H
#define ACLCUDA_BACKEND_CUDA_GRAPH_UPDATE_KERNELS_H

#include <stdint.h>

enum { GRAPH_UPDATE_ARGS_MAX = 3840 };

typedef struct graph_node_update {
    /* The kernel's packed arguments. First and 16-byte aligned: the device
     * runtime copies them in wide loads, and at an odd offset the update
     * kernel faulted with a misaligned address (H100, CUDA 13.0). */
    unsigned char args[GRAPH_UPDATE_ARGS_MAX] __attribute__((aligned(16)));
    unsigned long long node; /* the node's cudaGraphDeviceNode_t */
    uint32_t *fault;         /* the stream's fault word */
    uint32_t code;           /* what a failure leaves there */
    uint32_t grid[3];
    uint32_t args_size;
} graph_node_update;

#endif
