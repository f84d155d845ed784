// The test kernels on CUDA: the same names, parameters and results as
// test_kernels.c (the host backend's). Grid-stride loops, so any grid and
// block shape gives the same result.
#include <stdint.h>

extern "C" {

__global__ void vector_add(const float *x, const float *y, float *z, uint32_t n)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        z[i] = x[i] + y[i];
}

__global__ void empty() {}

// out[0] = the last block's index, out[1] = the number of blocks.
__global__ void last_block(uint32_t *out)
{
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        out[0] = blockIdx.x;
        out[1] = gridDim.x;
    }
}

__global__ void scale(float *data, const float *factor, uint32_t n)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        data[i] *= *factor;
}

__global__ void add_scalar(int32_t *data, int32_t value, uint32_t n)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        data[i] += value;
}

// counter[0] += 1, once per launch.
__global__ void increment(int32_t *counter)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        counter[0] += 1;
}

__device__ int32_t test_global[4] = {11, 22, 33, 44};

__global__ void read_global(int32_t *out)
{
    if (blockIdx.x == 0 && threadIdx.x < 4)
        out[threadIdx.x] = test_global[threadIdx.x];
}

// *p = 1 (given an address nothing maps, the fault of the exception tests).
__global__ void store_one(int32_t *p)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *(volatile int32_t *)p = 1;
}

// Waits until *flag (mapped host memory the test writes) is not 0, then
// *out = 1: a kernel that runs for as long as the test wants.
__global__ void store_after_flag(const int32_t *flag, int32_t *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        while (*(const volatile int32_t *)flag == 0)
            ;
        *(volatile int32_t *)out = 1;
    }
}

// out[0] = a + b (on the host backend, a kernel that does not describe its
// parameters).
__global__ void add_pair(int32_t *out, int32_t a, int32_t b)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = a + b;
}

} // extern "C"
