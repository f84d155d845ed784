/* The built-in kernels' fatbin (builtin_kernels.cu, compiled by nvcc),
 * embedded in the library. BUILTIN_FATBIN is its path, set by the build. */
    .section .rodata
    .balign 64
    .globl aclcuda_builtin_fatbin
    .hidden aclcuda_builtin_fatbin
    .type aclcuda_builtin_fatbin, @object
aclcuda_builtin_fatbin:
    .incbin BUILTIN_FATBIN
    .globl aclcuda_builtin_fatbin_end
    .hidden aclcuda_builtin_fatbin_end
aclcuda_builtin_fatbin_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
