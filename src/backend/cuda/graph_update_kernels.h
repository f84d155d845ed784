/* What the kernels that change a node of a launched graph take
 * (graph_update_kernels.cu; task updates in stream order, graph_ordered.c),
 * shared with the C side that launches them and adds them to graphs. Plain
 * C types only: nvcc and the C compiler lay them out alike. They are passed
 * by value, within CUDA's 4 KiB of kernel parameters. */
#ifndef ACLCUDA_BACKEND_CUDA_GRAPH_UPDATE_KERNELS_H
#define ACLCUDA_BACKEND_CUDA_GRAPH_UPDATE_KERNELS_H

#include <stdint.h>

enum { GRAPH_UPDATE_ARGS_MAX = 3840 };

/* A node's new launch, in device memory: posted by an update in the
 * updating stream's order, taken by the node's applier in each launch. The
 * arguments come first and 16-byte aligned: the device runtime copies them
 * in wide loads (at an odd offset the copy faulted with a misaligned
 * address: H100, CUDA 13.0). */
typedef struct graph_node_mailbox {
    unsigned char args[GRAPH_UPDATE_ARGS_MAX] __attribute__((aligned(16)));
    uint32_t grid[3];
    uint32_t args_size;
    unsigned long long epoch; /* whose posting this is; written last */
} graph_node_mailbox;

/* The posting kernel's argument: a new launch for the node of box. */
typedef struct graph_node_post {
    unsigned char args[GRAPH_UPDATE_ARGS_MAX] __attribute__((aligned(16)));
    graph_node_mailbox *box;
    unsigned long long epoch;
    uint32_t grid[3];
    uint32_t args_size;
} graph_node_post;

/* The applier's argument: the node (a cudaGraphDeviceNode_t) takes what
 * box holds when it was posted for this epoch; a failure leaves code in
 * *fault (the launching stream's fault word; NULL: none yet). */
typedef struct graph_node_apply {
    const graph_node_mailbox *box;
    unsigned long long node;
    unsigned long long epoch;
    uint32_t *fault;
    uint32_t code;
} graph_node_apply;

#endif
