/* The fatbin of the kernel that changes a node of a launched graph
 * (graph_update_kernels.cu, compiled and device-linked by nvcc), embedded
 * in the library. GRAPH_UPDATE_FATBIN is its path, set by the build. */
    .section .rodata
    .balign 64
    .globl aclcuda_graph_update_fatbin
    .hidden aclcuda_graph_update_fatbin
    .type aclcuda_graph_update_fatbin, @object
aclcuda_graph_update_fatbin:
    .incbin GRAPH_UPDATE_FATBIN
    .byte 0
    .section .note.GNU-stack,"",@progbits
