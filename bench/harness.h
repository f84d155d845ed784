/* What the benchmark programs share: failure handling, batch timing and
 * the statistics of interleaved acl-cuda / raw CUDA rounds (bench_c.c's
 * head comment describes the method). */
#ifndef ACLCUDA_BENCH_HARNESS_H
#define ACLCUDA_BENCH_HARNESS_H

#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"

#ifdef ACLCUDA_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* The program's name in failure messages (set by main). */
extern const char *bench_name;

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A benchmark measures successful calls only: any failure ends the run. */
#define ACL_OK(call)                                                                         \
    do {                                                                                     \
        aclError acl_ok_err_ = (call);                                                       \
        if (__builtin_expect(acl_ok_err_ != ACL_SUCCESS, 0))                                 \
            fail("%s:%d: %s returned %d: %s", __FILE__, __LINE__, #call, (int)acl_ok_err_,   \
                 aclGetRecentErrMsg());                                                      \
    } while (0)

#ifdef ACLCUDA_HAVE_CUDA
#define CUDA_OK(call)                                                                        \
    do {                                                                                     \
        cudaError_t cuda_ok_err_ = (call);                                                   \
        if (__builtin_expect(cuda_ok_err_ != cudaSuccess, 0))                                \
            fail("%s:%d: %s returned %d: %s", __FILE__, __LINE__, #call, (int)cuda_ok_err_,  \
                 cudaGetErrorString(cuda_ok_err_));                                          \
    } while (0)
#endif

int64_t now_ns(void);

typedef struct stats {
    double median, p10, p90; /* ns per call */
} stats;

/* Sorts values and summarizes them. */
stats summarize(double *values, int n);

/* One side of a comparison: run(calls) makes `calls` calls and is timed;
 * settle() then drains what they queued, untimed. */
typedef struct side {
    void (*run)(int calls);
    void (*settle)(void);
} side;

enum { WARMUP_BATCHES = 3, MAX_ROUNDS = 1001 };

typedef struct comparison {
    stats acl, cuda;
    /* acl's time minus raw CUDA's in the same round: a drift of the machine
     * between rounds moves both sides of a round alike and cancels here,
     * where the difference of the two medians keeps it. */
    stats diff;
    bool has_cuda;
} comparison;

/* Interleaved A/B rounds of acl (and raw CUDA when given): each round times
 * one batch of each, the order swapping every round, after warm-up. */
comparison compare(const side *acl, const side *cuda, int calls, int rounds);

/* Merges value (a new reference, taken) into the JSON object in path
 * under key, making the file if need be: each benchmark program adds its
 * own section to the run's results. */
struct json_t;
void bench_json_merge(const char *path, const char *key, struct json_t *value);

/* The stats as a JSON object {median_ns, p10_ns, p90_ns}. */
struct json_t *stats_json(const stats *s);

#endif
