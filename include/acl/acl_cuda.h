/*
 * acl-cuda extensions: what AscendCL has no name for.
 *
 * Not part of AscendCL and not included by acl.h; include it explicitly to
 * mix ACL calls with native CUDA code on the same streams and events.
 */
#ifndef ACLCUDA_ACL_CUDA_H
#define ACLCUDA_ACL_CUDA_H

#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend this process runs on: "cuda" or "host". It is chosen on first
 * use (ACLCUDA_BACKEND=cuda|host|auto) and fixed for the process lifetime. */
ACL_FUNC_VISIBILITY const char *aclcudaGetBackendName(void);

/* Stores in *native the cudaStream_t behind stream (NULL stream = the current
 * context's default stream). On the host backend *native is set to NULL. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeStream(aclrtStream stream, void **native);

/* Stores in *native the cudaEvent_t behind event; NULL on the host backend.
 * ACL's status queries, waits and synchronizations follow the records made
 * through ACL; a record made directly through CUDA is not seen by them. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeEvent(aclrtEvent event, void **native);

/* Waits at most sliceMs milliseconds (>= 0) for the work of a stream (NULL:
 * the current context's default stream), an event, or the current device,
 * like the aclrtSynchronize*WithTimeout functions, except that an expiry is
 * not an error: it returns ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (the event:
 * ACL_ERROR_RT_EVENT_SYNC_TIMEOUT) and records no message. For callers that
 * must stay responsive while they wait for long work: the Python package
 * waits in slices, so that Ctrl-C interrupts acl.rt.synchronize_*. */
ACL_FUNC_VISIBILITY aclError aclcudaSynchronizeStreamSlice(aclrtStream stream, int32_t sliceMs);
ACL_FUNC_VISIBILITY aclError aclcudaSynchronizeEventSlice(aclrtEvent event, int32_t sliceMs);
ACL_FUNC_VISIBILITY aclError aclcudaSynchronizeDeviceSlice(int32_t sliceMs);
/* ---- kernels -------------------------------------------------------------------
 * ACL launches a kernel on numBlocks cores; acl-cuda launches it on a CUDA grid of
 * numBlocks blocks (x only). The threads of each block and the bytes of dynamic
 * shared memory are what ACL has no name for. They come, most specific first:
 *   1. from the launch: the SIMT launches' blockDim and dynUbufSize; else a
 *      launch attribute ACLCUDA_LAUNCH_KERNEL_ATTR_BLOCK_DIM (value.rsv[0..2] =
 *      x, y, z) and ACL's ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE (bytes);
 *   2. from the function: aclcudaFunctionSetBlockDim;
 *   3. the default: ACLCUDA_DEFAULT_BLOCK_THREADS threads (x), or the kernel's
 *      own maximum when that is smaller, and no dynamic shared memory. */
#define ACLCUDA_DEFAULT_BLOCK_THREADS 256U
#define ACLCUDA_LAUNCH_KERNEL_ATTR_BLOCK_DIM ((aclrtLaunchKernelAttrId)0x41430001)

/* Sets the block shape and dynamic shared memory of later launches of
 * funcHandle that do not give their own; 0, 0, 0, 0 restores the default. */
ACL_FUNC_VISIBILITY aclError aclcudaFunctionSetBlockDim(aclrtFuncHandle funcHandle, uint32_t blockDimX,
                                                        uint32_t blockDimY, uint32_t blockDimZ,
                                                        size_t dynamicSharedBytes);
/* The block shape and dynamic shared memory a launch of funcHandle without
 * its own gets (the default when none was set). */
ACL_FUNC_VISIBILITY aclError aclcudaFunctionGetBlockDim(aclrtFuncHandle funcHandle, uint32_t *blockDimX,
                                                        uint32_t *blockDimY, uint32_t *blockDimZ,
                                                        size_t *dynamicSharedBytes);

/* Host backend kernels. On the host backend (no GPU) a binary is an ELF shared
 * object and a kernel is a C function of this type exported under the kernel's
 * name. A launch of numBlocks blocks calls it once per block, blockIdx 0 ..
 * blockNum - 1 (SIMT launches: gridDim.x * gridDim.y * gridDim.z blocks, x
 * fastest; blockDim and shared memory have no meaning there), on worker
 * threads, after all earlier work of the stream and before all later work.
 * args is the packed argument buffer: the parameters laid out as the members
 * of a C struct of them would be (each at a multiple of its own alignment, at
 * most 8), placeholders already pointing at their data. */
typedef void (*aclcudaHostKernel)(uint32_t blockIdx, uint32_t blockNum, void *args,
                                  size_t argsSize);

/* Optional, for aclrtLaunchKernelWithArgsArray, aclrtKernelArgsAppend and
 * aclrtFunctionGetParamCount/Info on the host backend: the sizes of a host
 * kernel's parameters, exported as `const uint32_t <kernel>_aclcuda_params[]`
 * = {count, size of the first, size of the second, ...}. In C:
 *     ACLCUDA_HOST_KERNEL_PARAMS(vector_add, 8, 8, 8, 4);  */
#define ACLCUDA_HOST_KERNEL_PARAMS_SUFFIX "_aclcuda_params"
#define ACLCUDA_HOST_KERNEL_PARAMS(kernel, ...)                                                 \
    const uint32_t kernel##_aclcuda_params[] = {                                               \
        (uint32_t)(sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)), __VA_ARGS__}

#ifdef __cplusplus
}
#endif

#endif /* ACLCUDA_ACL_CUDA_H */
