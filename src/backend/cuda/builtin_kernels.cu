// The cuda backend's built-in kernels: aclrtReduceAsync (dst = dst op src
// element-wise) and aclrtRandomNumAsync (on cuRAND's Philox4x32-10). nvcc
// compiles them to a fatbin that the library embeds and loads through the
// driver on first use (builtin.c). The host backend computes the same
// things (src/backend/host/builtin.c): keep them in step.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <curand_kernel.h>
#include <stdint.h>

#include "builtin_kernels.h"

namespace {

// ---- reductions ---------------------------------------------------------------------------

struct Sum {
    template <typename T> __device__ static T apply(T a, T b) { return a + b; }
};
struct Max {
    template <typename T> __device__ static T apply(T a, T b) { return a > b ? a : b; }
};
struct Min {
    template <typename T> __device__ static T apply(T a, T b) { return a < b ? a : b; }
};

// Integers wrap; 16-bit floats combine in float and round once.
template <typename Op, typename T> struct Combine {
    __device__ static T apply(T a, T b) { return Op::apply(a, b); }
};
template <> struct Combine<Sum, int8_t> {
    __device__ static int8_t apply(int8_t a, int8_t b) { return (int8_t)(uint8_t)((uint8_t)a + (uint8_t)b); }
};
template <> struct Combine<Sum, int16_t> {
    __device__ static int16_t apply(int16_t a, int16_t b) { return (int16_t)(uint16_t)((uint16_t)a + (uint16_t)b); }
};
template <> struct Combine<Sum, int32_t> {
    __device__ static int32_t apply(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
};
template <> struct Combine<Max, float> {
    __device__ static float apply(float a, float b) { return fmaxf(a, b); }
};
template <> struct Combine<Min, float> {
    __device__ static float apply(float a, float b) { return fminf(a, b); }
};
template <typename Op> struct Combine<Op, __half> {
    __device__ static __half apply(__half a, __half b)
    {
        return __float2half_rn(Combine<Op, float>::apply(__half2float(a), __half2float(b)));
    }
};
template <typename Op> struct Combine<Op, __nv_bfloat16> {
    __device__ static __nv_bfloat16 apply(__nv_bfloat16 a, __nv_bfloat16 b)
    {
        return __float2bfloat16_rn(
            Combine<Op, float>::apply(__bfloat162float(a), __bfloat162float(b)));
    }
};

// 16-byte vectors where both pointers allow, the rest one by one.
template <typename Op, typename T>
__device__ void reduce(T *dst, const T *src, unsigned long long n)
{
    constexpr unsigned per = 16 / sizeof(T);
    unsigned long long index = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    bool aligned = ((uintptr_t)dst % 16 == 0) && ((uintptr_t)src % 16 == 0);
    unsigned long long vectors = aligned ? n / per : 0;
    uint4 *dv = reinterpret_cast<uint4 *>(dst);
    const uint4 *sv = reinterpret_cast<const uint4 *>(src);
    for (unsigned long long i = index; i < vectors; i += stride) {
        uint4 a = dv[i];
        uint4 b = __ldg(&sv[i]);
        T *ta = reinterpret_cast<T *>(&a);
        const T *tb = reinterpret_cast<const T *>(&b);
#pragma unroll
        for (unsigned k = 0; k < per; k++)
            ta[k] = Combine<Op, T>::apply(ta[k], tb[k]);
        dv[i] = a;
    }
    for (unsigned long long i = vectors * per + index; i < n; i += stride)
        dst[i] = Combine<Op, T>::apply(dst[i], src[i]);
}

// ---- random numbers -----------------------------------------------------------------------

enum { DROPOUT = 0, UNIFORM = 1, NORMAL = 2, TRUNCATED = 3 };
enum { T_INT32 = 0, T_INT64 = 1, T_UINT32 = 2, T_UINT64 = 3, T_FP16 = 4, T_BF16 = 5, T_FP32 = 6 };

__device__ unsigned long long scalar_bits(const builtin_scalar &s)
{
    const uint8_t *p = s.bytes;
    if (s.is_addr) {
        unsigned long long addr = 0;
        for (int i = 0; i < 8; i++)
            addr |= (unsigned long long)s.bytes[i] << (8 * i);
        p = reinterpret_cast<const uint8_t *>(addr);
    }
    unsigned long long v = 0;
    for (int i = 0; i < s.size && i < 8; i++)
        v |= (unsigned long long)p[i] << (8 * i);
    return v;
}

__device__ float scalar_float(const builtin_scalar &s, uint32_t type)
{
    unsigned long long v = scalar_bits(s);
    if (type == T_FP16) {
        __half_raw raw;
        raw.x = (unsigned short)v;
        return __half2float(__half(raw));
    }
    if (type == T_BF16) {
        __nv_bfloat16_raw raw;
        raw.x = (unsigned short)v;
        return __bfloat162float(__nv_bfloat16(raw));
    }
    return __uint_as_float((unsigned)v);
}

__device__ void store_float(void *out, unsigned long long i, float f, uint32_t type)
{
    if (type == T_FP16)
        static_cast<__half *>(out)[i] = __float2half_rn(f);
    else if (type == T_BF16)
        static_cast<__nv_bfloat16 *>(out)[i] = __float2bfloat16_rn(f);
    else
        static_cast<float *>(out)[i] = f;
}

__device__ float unit_float(unsigned w)
{
    return ((float)w + 0.5f) * 2.3283064365386963e-10f;
}

__device__ void box_muller(unsigned a, unsigned b, float *z0, float *z1)
{
    float u = unit_float(a), v = unit_float(b) * 6.2831853071795864f;
    float r = sqrtf(-2.0f * logf(u));
    *z0 = r * sinf(v);
    *z1 = r * cosf(v);
}

// Element i: the Philox4x32-10 block at counter offset + i under the seed.
__device__ uint4 element_words(unsigned long long seed, unsigned long long offset,
                               unsigned long long i)
{
    unsigned long long c = offset + i;
    uint4 ctr = make_uint4((unsigned)c, (unsigned)(c >> 32), 0u, 0u);
    uint2 key = make_uint2((unsigned)seed, (unsigned)(seed >> 32));
    return curand_Philox4x32_10(ctr, key);
}

} // namespace

#define REDUCE_KERNEL(op, Op, tname, T)                                                            \
    extern "C" __global__ void aclcuda_reduce_##op##_##tname(void *dst, const void *src,          \
                                                             unsigned long long n)                 \
    {                                                                                              \
        reduce<Op, T>(static_cast<T *>(dst), static_cast<const T *>(src), n);                      \
    }

#define REDUCE_KERNELS(tname, T)                                                                   \
    REDUCE_KERNEL(sum, Sum, tname, T)                                                              \
    REDUCE_KERNEL(max, Max, tname, T)                                                              \
    REDUCE_KERNEL(min, Min, tname, T)

REDUCE_KERNELS(i8, int8_t)
REDUCE_KERNELS(i16, int16_t)
REDUCE_KERNELS(i32, int32_t)
REDUCE_KERNELS(u32, uint32_t)
REDUCE_KERNELS(f16, __half)
REDUCE_KERNELS(bf16, __nv_bfloat16)
REDUCE_KERNELS(f32, float)

extern "C" __global__ void aclcuda_random(builtin_random_args a)
{
    unsigned long long seed = scalar_bits(a.seed), count = scalar_bits(a.count);
    unsigned long long offset = 0;
    if (a.counter)
        offset = *static_cast<const unsigned long long *>(a.counter);
    unsigned long long index = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    bool is_float = a.type == T_FP16 || a.type == T_BF16 || a.type == T_FP32;
    float fa = 0, fb = 0;
    unsigned long long ia = 0, range = 0;
    if (is_float) {
        fa = scalar_float(a.a, a.type);
        if (a.dist != DROPOUT)
            fb = scalar_float(a.b, a.type);
    } else {
        unsigned long long lo = scalar_bits(a.a), hi = scalar_bits(a.b);
        if (a.type == T_INT32 || a.type == T_UINT32) {
            lo = a.type == T_INT32 ? (unsigned long long)(long long)(int)(unsigned)lo : (unsigned)lo;
            hi = a.type == T_INT32 ? (unsigned long long)(long long)(int)(unsigned)hi : (unsigned)hi;
            range = (hi - lo) & 0xffffffffull;
        } else {
            range = hi - lo;
        }
        ia = lo;
    }
    if (a.dist == DROPOUT) {
        // One byte per thread: bit b keeps element 8k + b (1) unless its
        // draw falls below the ratio.
        uint8_t *out = static_cast<uint8_t *>(a.result);
        for (unsigned long long byte = index; byte * 8 < count; byte += stride) {
            unsigned bits = 0;
            for (unsigned b = 0; b < 8 && byte * 8 + b < count; b++)
                if (unit_float(element_words(seed, offset, byte * 8 + b).x) >= fa)
                    bits |= 1u << b;
            out[byte] = (uint8_t)bits;
        }
        return;
    }
    for (unsigned long long i = index; i < count; i += stride) {
        uint4 w = element_words(seed, offset, i);
        if (a.dist == UNIFORM) {
            if (a.type == T_INT32 || a.type == T_UINT32) {
                static_cast<unsigned *>(a.result)[i] =
                    (unsigned)(ia + (range ? w.x % range : w.x));
            } else if (a.type == T_INT64 || a.type == T_UINT64) {
                unsigned long long r = (unsigned long long)w.y << 32 | w.x;
                static_cast<unsigned long long *>(a.result)[i] = ia + (range ? r % range : r);
            } else {
                store_float(a.result, i, fa + unit_float(w.x) * (fb - fa), a.type);
            }
        } else if (a.dist == NORMAL) {
            float z0, z1;
            box_muller(w.x, w.y, &z0, &z1);
            store_float(a.result, i, fa + fb * z0, a.type);
        } else {
            float z[4];
            box_muller(w.x, w.y, &z[0], &z[1]);
            box_muller(w.z, w.w, &z[2], &z[3]);
            float pick = z[3] > 2.0f ? 2.0f : z[3] < -2.0f ? -2.0f : z[3];
            for (int k = 3; k >= 0; k--)
                if (fabsf(z[k]) <= 2.0f)
                    pick = z[k];
            store_float(a.result, i, fa + fb * pick, a.type);
        }
    }
}

// ---- conditions of conditional nodes ------------------------------------------------------
//
// aclmdlRICondHandleGetCondPtr hands out a 64-bit word of device memory;
// CUDA's conditional nodes read a value set with cudaGraphSetConditional.
// This one-thread kernel, captured before each conditional node (and at
// the end of a WHILE body), carries the word over; values above 32 bits
// saturate, which keeps them non-zero and past any SWITCH branch. Once the
// model's stop word (graph_waits.c) is set, the node gets `stopped`
// instead: IF and WHILE 0, SWITCH past its branches.
extern "C" __global__ void aclcuda_set_condition(unsigned long long handle, const uint64_t *word,
                                                 const unsigned *stop, unsigned stopped)
{
    uint64_t v = *(volatile const uint64_t *)word;
    unsigned value = v > 0xffffffffull ? 0xffffffffu : (unsigned)v;
    if (stop && *(volatile const unsigned *)stop)
        value = stopped;
    cudaGraphSetConditional((cudaGraphConditionalHandle)handle, value);
}

// ---- stream control flow of built models -----------------------------------------------
//
// A model whose streams branch (aclrtSwitchStream, aclrtSwitchLabelByIndex)
// or loop (labels) decides on the device: this one-thread kernel computes
// the word a conditional node then reads (aclcuda_set_condition). The
// kinds are backend.h's flow_select_kind; the host backend computes the
// same (src/backend/host/graph.c): keep them in step.
namespace {

__device__ long long flow_operand(const void *p, unsigned wide)
{
    if (wide)
        return *(volatile const long long *)p;
    return *(volatile const int *)p;
}

__device__ unsigned long long flow_compare(long long l, long long r, unsigned cmp)
{
    switch (cmp) {
    case 0: return l == r;
    case 1: return l != r;
    case 2: return l > r;
    case 3: return l >= r;
    case 4: return l < r;
    case 5: return l <= r;
    default: return 0;
    }
}

} // namespace

extern "C" __global__ void aclcuda_flow_select(uint64_t *word, builtin_select_args a)
{
    unsigned long long v = 0;
    switch (a.kind) {
    case 0: // constant
        v = a.value;
        break;
    case 1: // index
    case 2: { // mask
        unsigned i = *(volatile const unsigned *)a.index;
        if (i > a.count - 1)
            i = a.count - 1;
        v = a.kind == 1 ? i : (a.value >> i) & 1;
        break;
    }
    case 3: // compare
        v = flow_compare(flow_operand(a.left, a.wide), flow_operand(a.right, a.wide), a.cmp);
        break;
    }
    *(volatile uint64_t *)word = v;
}
