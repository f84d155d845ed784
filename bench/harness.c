/* The benchmarks' shared harness (harness.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include <jansson.h>

#include "harness.h"

const char *bench_name = "bench";

/* ---- failures ------------------------------------------------------------ */

void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", bench_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- timing and statistics -------------------------------------------------- */

int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the closest ranks of sorted values. */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

stats summarize(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return (stats){quantile(values, n, 0.5), quantile(values, n, 0.1), quantile(values, n, 0.9)};
}

static double time_batch(const side *s, int calls)
{
    int64_t start = now_ns();
    s->run(calls);
    int64_t end = now_ns();
    if (s->settle)
        s->settle();
    return (double)(end - start) / calls;
}

/* Interleaved A/B rounds of acl (and raw CUDA when given). */
comparison compare(const side *acl, const side *cuda, int calls, int rounds)
{
    static double acl_ns[MAX_ROUNDS], cuda_ns[MAX_ROUNDS], diff_ns[MAX_ROUNDS];
    for (int w = 0; w < WARMUP_BATCHES; w++) {
        time_batch(acl, calls);
        if (cuda)
            time_batch(cuda, calls);
    }
    for (int r = 0; r < rounds; r++) {
        if (cuda && r % 2) {
            cuda_ns[r] = time_batch(cuda, calls);
            acl_ns[r] = time_batch(acl, calls);
        } else {
            acl_ns[r] = time_batch(acl, calls);
            if (cuda)
                cuda_ns[r] = time_batch(cuda, calls);
        }
    }
    comparison c = {.acl = summarize(acl_ns, rounds), .has_cuda = cuda != NULL};
    if (cuda) {
        for (int r = 0; r < rounds; r++)
            diff_ns[r] = acl_ns[r] - cuda_ns[r];
        c.cuda = summarize(cuda_ns, rounds);
        c.diff = summarize(diff_ns, rounds);
    }
    return c;
}


/* ---- results -------------------------------------------------------------------- */

void bench_json_merge(const char *path, const char *key, json_t *value)
{
    json_error_t error;
    json_t *document = json_load_file(path, 0, &error);
    if (!json_is_object(document)) {
        json_decref(document);
        document = json_object();
    }
    if (!document || json_object_set_new(document, key, value) != 0 ||
        json_dump_file(document, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
        fail("cannot write the results to %s", path);
    json_decref(document);
}

json_t *stats_json(const stats *s)
{
    return json_pack("{s:f, s:f, s:f}", "median_ns", s->median, "p10_ns", s->p10, "p90_ns",
                     s->p90);
}
