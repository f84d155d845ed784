/* Built-in tasks on the host backend: reductions and random numbers, on
 * the CPU, split into blocks run by the block pool. The random numbers are
 * those of the cuda backend's kernels: element i comes from the
 * Philox4x32-10 block at counter offset + i under the 64-bit seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/host/host.h"

enum { ELEMENTS_PER_BLOCK = 1 << 16 };

/* ---- 16-bit floats ------------------------------------------------------------------- */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = h >> 10 & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) {
                man <<= 1;
                exp--;
            }
            bits = sign | exp << 23 | (man & 0x3ff) << 13;
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000 | man << 13;
    } else {
        bits = sign | (exp - 15 + 127) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Round to nearest even, as the GPU's conversions do. */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = x >> 16 & 0x8000;
    int32_t exp = (int32_t)(x >> 23 & 0xff) - 127 + 15;
    uint32_t man = x & 0x7fffff;
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)(sign | 0x7e00); /* NaN */
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00); /* overflow: infinity */
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = (uint32_t)exp << 10 | man >> 13, rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
        half++; /* may carry into the exponent, to infinity: correct */
    return (uint16_t)(sign | half);
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)(x >> 16 | 0x40);
    x += 0x7fff + (x >> 16 & 1);
    return (uint16_t)(x >> 16);
}

/* ---- reductions -------------------------------------------------------------------- */

typedef struct reduce_job {
    void *dst;
    const void *src;
    size_t elements;
    reduce_op op;
    reduce_type type;
} reduce_job;

#define REDUCE_LOOP(T, COMBINE)                                                                    \
    do {                                                                                           \
        T *d = (T *)j->dst + first;                                                                \
        const T *s = (const T *)j->src + first;                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            T a = d[i], b = s[i];                                                                  \
            d[i] = COMBINE;                                                                        \
        }                                                                                          \
    } while (0)

#define REDUCE_INT(T)                                                                              \
    do {                                                                                           \
        if (j->op == REDUCE_SUM)                                                                   \
            REDUCE_LOOP(T, (T)(a + b));                                                            \
        else if (j->op == REDUCE_MAX)                                                              \
            REDUCE_LOOP(T, a > b ? a : b);                                                         \
        else                                                                                       \
            REDUCE_LOOP(T, a < b ? a : b);                                                         \
    } while (0)

/* 16-bit floats combine in float and round once, as the kernels do. */
#define REDUCE_F16(TO_F, FROM_F)                                                                   \
    do {                                                                                           \
        if (j->op == REDUCE_SUM)                                                                   \
            REDUCE_LOOP(uint16_t, FROM_F(TO_F(a) + TO_F(b)));                                      \
        else if (j->op == REDUCE_MAX)                                                              \
            REDUCE_LOOP(uint16_t, FROM_F(fmaxf(TO_F(a), TO_F(b))));                                \
        else                                                                                       \
            REDUCE_LOOP(uint16_t, FROM_F(fminf(TO_F(a), TO_F(b))));                                \
    } while (0)

static void reduce_block(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    const reduce_job *j = args;
    size_t first = (size_t)block * ELEMENTS_PER_BLOCK;
    size_t n = j->elements - first < ELEMENTS_PER_BLOCK ? j->elements - first : ELEMENTS_PER_BLOCK;
    switch (j->type) {
    case REDUCE_INT8:
        REDUCE_INT(int8_t);
        break;
    case REDUCE_INT16:
        REDUCE_INT(int16_t);
        break;
    case REDUCE_INT32:
        /* Signed sums wrap as the GPU's do, without C's undefined overflow. */
        if (j->op == REDUCE_SUM)
            REDUCE_LOOP(int32_t, (int32_t)((uint32_t)a + (uint32_t)b));
        else
            REDUCE_INT(int32_t);
        break;
    case REDUCE_UINT32:
        REDUCE_INT(uint32_t);
        break;
    case REDUCE_FP16:
        REDUCE_F16(half_to_float, float_to_half);
        break;
    case REDUCE_BF16:
        REDUCE_F16(bf16_to_float, float_to_bf16);
        break;
    case REDUCE_FP32:
        if (j->op == REDUCE_SUM)
            REDUCE_LOOP(float, a + b);
        else if (j->op == REDUCE_MAX)
            REDUCE_LOOP(float, fmaxf(a, b));
        else
            REDUCE_LOOP(float, fminf(a, b));
        break;
    }
}

static void reduce_run(void *payload)
{
    reduce_job *j = payload;
    size_t blocks = (j->elements + ELEMENTS_PER_BLOCK - 1) / ELEMENTS_PER_BLOCK;
    host_run_blocks(reduce_block, (uint32_t)blocks, j, 0);
}

static const host_job_ops reduce_ops = {"reduce", reduce_run, free};

aclError host_reduce(backend_stream *bs, void *dst, const void *src, size_t elements, reduce_op op,
                     reduce_type type)
{
    if ((elements + ELEMENTS_PER_BLOCK - 1) / ELEMENTS_PER_BLOCK > UINT32_MAX)
        return ACL_ERROR_RT_PARAM_INVALID;
    reduce_job *j = malloc(sizeof *j);
    if (!j)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    *j = (reduce_job){dst, src, elements, op, type};
    return stream_enqueue_job(bs->impl, &reduce_ops, j);
}

/* ---- random numbers ------------------------------------------------------------------ */

/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC 2011): ten rounds of two 32x32->64 multiplications, the key
 * bumped by the Weyl constants between rounds. */
static void philox4x32_10(uint32_t ctr[4], uint32_t k0, uint32_t k1)
{
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0];
        uint64_t p1 = (uint64_t)0xCD9E8D57u * ctr[2];
        uint32_t out0 = (uint32_t)(p1 >> 32) ^ ctr[1] ^ k0;
        uint32_t out1 = (uint32_t)p1;
        uint32_t out2 = (uint32_t)(p0 >> 32) ^ ctr[3] ^ k1;
        uint32_t out3 = (uint32_t)p0;
        ctr[0] = out0;
        ctr[1] = out1;
        ctr[2] = out2;
        ctr[3] = out3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

typedef struct random_job {
    random_params p;
    /* Read when the task runs: */
    uint64_t seed, count, offset;
    float fa, fb;       /* float distributions' parameters */
    uint64_t ia, range; /* integer uniform: min, max - min */
    size_t elem;
} random_job;

static uint64_t scalar_bits(const random_scalar *s)
{
    uint64_t v = 0;
    if (s->is_addr) {
        const void *addr;
        memcpy(&addr, s->bytes, sizeof addr);
        memcpy(&v, addr, s->size); /* "device" memory is ours to read */
    } else {
        memcpy(&v, s->bytes, s->size);
    }
    return v;
}

static float scalar_float(const random_scalar *s, random_type type)
{
    uint64_t v = scalar_bits(s);
    switch (type) {
    case RANDOM_FP16:
        return half_to_float((uint16_t)v);
    case RANDOM_BF16:
        return bf16_to_float((uint16_t)v);
    default: {
        uint32_t bits = (uint32_t)v;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    }
}

static void store_float(void *out, size_t i, float f, random_type type)
{
    if (type == RANDOM_FP16)
        ((uint16_t *)out)[i] = float_to_half(f);
    else if (type == RANDOM_BF16)
        ((uint16_t *)out)[i] = float_to_bf16(f);
    else
        ((float *)out)[i] = f;
}

/* The uniform in (0, 1) of a 32-bit word. */
static float unit_float(uint32_t w)
{
    return ((float)w + 0.5f) * 2.3283064365386963e-10f;
}

/* Two standard normals from two words (Box-Muller). */
static void box_muller(uint32_t a, uint32_t b, float *z0, float *z1)
{
    float u = unit_float(a), v = unit_float(b) * 6.2831853071795864f;
    float r = sqrtf(-2.0f * logf(u));
    *z0 = r * sinf(v);
    *z1 = r * cosf(v);
}

static void random_element(const random_job *j, uint64_t i, uint32_t w[4])
{
    uint64_t ctr = j->offset + i;
    w[0] = (uint32_t)ctr;
    w[1] = (uint32_t)(ctr >> 32);
    w[2] = w[3] = 0;
    philox4x32_10(w, (uint32_t)j->seed, (uint32_t)(j->seed >> 32));
}

static void random_block(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    const random_job *j = args;
    const random_params *p = &j->p;
    uint64_t first = (uint64_t)block * ELEMENTS_PER_BLOCK;
    uint64_t end = j->count - first < ELEMENTS_PER_BLOCK ? j->count : first + ELEMENTS_PER_BLOCK;
    if (p->dist == RANDOM_DROPOUT_BITMASK) {
        /* One byte per 8 elements: bit b of byte k keeps element 8k + b
         * (1) unless its draw falls below the ratio. */
        uint8_t *out = p->result;
        for (uint64_t byte = first / 8; byte * 8 < end; byte++) {
            uint8_t bits = 0;
            for (unsigned b = 0; b < 8 && byte * 8 + b < j->count; b++) {
                uint32_t w[4];
                random_element(j, byte * 8 + b, w);
                if (unit_float(w[0]) >= j->fa)
                    bits |= (uint8_t)(1u << b);
            }
            out[byte] = bits;
        }
        return;
    }
    for (uint64_t i = first; i < end; i++) {
        uint32_t w[4];
        random_element(j, i, w);
        switch (p->dist) {
        case RANDOM_UNIFORM:
            switch (p->type) {
            case RANDOM_INT32:
            case RANDOM_UINT32:
                ((uint32_t *)p->result)[i] =
                    (uint32_t)(j->ia + (j->range ? w[0] % j->range : w[0]));
                break;
            case RANDOM_INT64:
            case RANDOM_UINT64: {
                uint64_t r = (uint64_t)w[1] << 32 | w[0];
                ((uint64_t *)p->result)[i] = j->ia + (j->range ? r % j->range : r);
                break;
            }
            default:
                store_float(p->result, i, j->fa + unit_float(w[0]) * (j->fb - j->fa), p->type);
                break;
            }
            break;
        case RANDOM_NORMAL: {
            float z0, z1;
            box_muller(w[0], w[1], &z0, &z1);
            store_float(p->result, i, j->fa + j->fb * z0, p->type);
            break;
        }
        case RANDOM_TRUNCATED_NORMAL: {
            /* The first of four draws within two standard deviations. */
            float z[4];
            box_muller(w[0], w[1], &z[0], &z[1]);
            box_muller(w[2], w[3], &z[2], &z[3]);
            float pick = z[3] > 2.0f ? 2.0f : z[3] < -2.0f ? -2.0f : z[3];
            for (int k = 3; k >= 0; k--)
                if (fabsf(z[k]) <= 2.0f)
                    pick = z[k];
            store_float(p->result, i, j->fa + j->fb * pick, p->type);
            break;
        }
        default:
            break;
        }
    }
}

static void random_run(void *payload)
{
    /* A copy: replays of one model on two streams may run at once. */
    random_job local = *(const random_job *)payload;
    random_job *j = &local;
    const random_params *p = &j->p;
    j->seed = scalar_bits(&p->seed);
    j->count = scalar_bits(&p->count);
    j->offset = 0;
    if (p->counter)
        memcpy(&j->offset, p->counter, sizeof j->offset);
    bool is_float = p->type == RANDOM_FP16 || p->type == RANDOM_BF16 || p->type == RANDOM_FP32;
    if (is_float) {
        j->fa = scalar_float(&p->a, p->type);
        if (p->dist != RANDOM_DROPOUT_BITMASK)
            j->fb = scalar_float(&p->b, p->type);
    } else {
        uint64_t lo = scalar_bits(&p->a), hi = scalar_bits(&p->b);
        if (j->elem == 4) { /* sign-extend int32 bounds */
            lo = p->type == RANDOM_INT32 ? (uint64_t)(int64_t)(int32_t)lo : (uint32_t)lo;
            hi = p->type == RANDOM_INT32 ? (uint64_t)(int64_t)(int32_t)hi : (uint32_t)hi;
        }
        j->ia = lo;
        j->range = hi - lo; /* 0: the whole range of the type */
        if (j->elem == 4)
            j->range &= 0xffffffffu;
    }
    uint64_t blocks = (j->count + ELEMENTS_PER_BLOCK - 1) / ELEMENTS_PER_BLOCK;
    host_run_blocks(random_block, (uint32_t)(blocks > UINT32_MAX ? UINT32_MAX : blocks), j, 0);
}

static const host_job_ops random_ops = {"random", random_run, free};

aclError host_random(backend_stream *bs, const random_params *p)
{
    random_job *j = calloc(1, sizeof *j);
    if (!j)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    j->p = *p;
    j->elem = p->type == RANDOM_INT64 || p->type == RANDOM_UINT64 ? 8
              : p->type == RANDOM_FP16 || p->type == RANDOM_BF16  ? 2
                                                                  : 4;
    return stream_enqueue_job(bs->impl, &random_ops, j);
}
