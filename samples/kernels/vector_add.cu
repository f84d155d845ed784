// The samples' kernel on the cuda backend: z = x + y over n floats. Built
// to PTX (nvcc -ptx), which the driver compiles for the GPU when the
// binary is loaded. What a port rewrites: an Ascend C kernel becomes a
// CUDA kernel like this one, with the same parameters in the same order,
// and the host code that loads and launches it stays as it was.
#include <stdint.h>

extern "C" __global__ void vector_add(const float *x, const float *y, float *z, uint32_t n)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        z[i] = x[i] + y[i];
}
