/*
 * acl-cuda extensions: what AscendCL has no name for.
 *
 * Not part of AscendCL and not included by acl.h; include it explicitly to
 * mix ACL calls with native CUDA code (or torch, CuPy, cuBLAS...) on the
 * same streams, events and memory.
 *
 * Device pointers and ACL memory (cuda backend):
 *  - ACL's device memory (aclrtMalloc*) is plain CUDA device memory: CUDA
 *    kernels, cudaMemcpy*, torch and CuPy may use it. ACL frees it
 *    (aclrtFree); a foreign allocator never may.
 *  - aclrtMemcpy(Async), aclrtMemcpy2d(Async) and aclrtMemset(Async) also
 *    take device memory of any other CUDA allocator of the process
 *    (cudaMalloc, cudaMallocAsync pools, VMM mappings, managed memory,
 *    torch's and CuPy's allocators), and page-locked host memory from
 *    cudaHostAlloc or cudaHostRegister. The allocation's extent comes from
 *    the driver and is checked as ACL's own (ACL_ERROR_INVALID_PARAM past
 *    its end), copy kinds must agree with where such memory lives, and
 *    queued copies from or to foreign page-locked memory do not wait, as
 *    with aclrtMallocHost memory.
 *  - Foreign memory is never freed through ACL: aclrtFree and aclrtFreeHost
 *    refuse it with ACL_ERROR_INVALID_PARAM. Freeing it while ACL work
 *    still uses it is the caller's bug, as in CUDA (torch's caching
 *    allocator keeps freed blocks mapped, so such a pointer still reads as
 *    valid memory).
 *  - Pointers that are neither (ordinary host memory) are pageable host
 *    memory, as before.
 * On the host backend, only ACL's own memory is device memory.
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

/* aclcudaGetNativeStream and the CUDA ordinal of the stream's device
 * (aclcudaGetNativeDevice of aclcudaStreamGetDevice) in one call: what
 * torch.cuda.ExternalStream and cupy.cuda.ExternalStream take. On the host
 * backend *native is NULL and *nativeDevice the device's index. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeStreamDevice(aclrtStream stream, void **native,
                                                          int32_t *nativeDevice);

/* Stores in *native the cudaEvent_t behind event; NULL on the host backend.
 * ACL's status queries, waits and synchronizations follow the records made
 * through ACL; a record made directly through CUDA is not seen by them. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeEvent(aclrtEvent event, void **native);

/* Wraps an existing cudaStream_t as a stream of the current context, in
 * *stream. NULL, cudaStreamLegacy and cudaStreamPerThread are accepted and
 * stand for that stream of the context's device. The ACL handle does not
 * own the CUDA stream: aclrtDestroyStream (which waits for the stream's
 * work, as for any stream) and the teardown of the context release the
 * handle and leave the CUDA stream alone; the CUDA stream must outlive the
 * handle. Its work may come from anywhere, so ACL always asks CUDA whether
 * it is idle. A stream of another device than the context's is refused
 * with ACL_ERROR_INVALID_PARAM (drivers older than CUDA 12.8 cannot tell,
 * and it is then taken to be on the context's device). The stream is
 * otherwise a stream like any other; aclcudaGetNativeStream gives native
 * back. The host backend has no native streams:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclcudaStreamFromNative(void *native, aclrtStream *stream);

/* Wraps an existing cudaEvent_t, in *event, taken to belong to the current
 * context's device (CUDA cannot tell an event's device). The handle does
 * not own the CUDA event: aclrtDestroyEvent leaves it alone; it must
 * outlive the handle. Unlike events made by ACL, its state is the CUDA
 * event's own, records made through CUDA included: aclrtStreamWaitEvent,
 * queries and synchronizations follow its latest record, whoever made it,
 * and one never recorded is complete (CUDA's rule). It can be recorded
 * (aclrtRecordEvent), reset (which makes ACL treat it as never recorded
 * until its next ACL record) and timed when CUDA made it with timing. NULL
 * is ACL_ERROR_INVALID_PARAM; the host backend has no native events:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclcudaEventFromNative(void *native, aclrtEvent *event);

/* The native device behind ACL's device id deviceId (ASCEND_RT_VISIBLE_DEVICES
 * renumbers ACL's ids): the CUDA device ordinal, as torch.device("cuda", n)
 * or cudaSetDevice take it; on the host backend, the simulated device's
 * index. An id that is not a visible device: ACL_ERROR_RT_INVALID_DEVICEID. */
ACL_FUNC_VISIBILITY aclError aclcudaGetNativeDevice(int32_t deviceId, int32_t *nativeDevice);

/* ACL's device id of the device a stream (NULL: the current context's
 * default stream) belongs to. */
ACL_FUNC_VISIBILITY aclError aclcudaStreamGetDevice(aclrtStream stream, int32_t *deviceId);

/* On a stream being captured (aclmdlRICaptureBegin, or joined to a
 * capture), keeps ptr alive with what the capture makes: release(ptr) runs
 * once, after the model and every replay of it are gone, or when the
 * capture is discarded. For libraries that queue work (say a host function
 * with an argument) into a capture: the model may replay it after the
 * library's own object went. release runs on a thread of the runtime (a
 * CUDA driver thread on the cuda backend) and must not call ACL or CUDA.
 * ACL_ERROR_RT_STREAM_NOT_CAPTURED when the stream is not being captured
 * (ptr stays the caller's). */
ACL_FUNC_VISIBILITY aclError aclcudaCaptureKeep(aclrtStream stream, void *ptr,
                                                void (*release)(void *ptr));

/* As aclrtLaunchHostFunc, in the same stream order, except that fn may run
 * on a thread that waits for the stream without a limit
 * (aclrtSynchronizeStream) instead of on the stream's own: such a wait
 * that finds fn next with nothing running runs it itself, rather than wake
 * the stream's thread and wait to be woken. For libraries whose host
 * functions are the stream's work itself (HCCL's collectives on the host
 * backend); fn must not synchronize its stream, nor count on the thread it
 * runs on (its current context, its thread-local state). With a thread
 * subscribed to the stream (aclrtSubscribeHostFunc) fn runs there, as
 * aclrtLaunchHostFunc's functions do; on the cuda backend, CUDA runs it as
 * it runs aclrtLaunchHostFunc's. */
ACL_FUNC_VISIBILITY aclError aclcudaLaunchHostFuncAnyThread(aclrtStream stream, aclrtHostFunc fn,
                                                            void *args);

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
/* A PyCapsule destructor (its argument is the PyObject *) for DLPack
 * capsules whose pointer is a DLManagedTensor ("dltensor") or a
 * DLManagedTensorVersioned ("dltensor_versioned"): unless a consumer took
 * the tensor (and renamed the capsule), it calls the tensor's deleter,
 * with any pending Python exception set aside meanwhile, so that a
 * deleter written in Python runs even where a consumer refused the tensor
 * and raised. What the acl package gives the capsules it makes; usable by
 * any producer running in a Python process. */
ACL_FUNC_VISIBILITY void aclcudaDLPackCapsuleDestructor(void *capsule);
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
