/* Raw Gloo for bench_hccl's host-backend column: the collectives libhccl's
 * Gloo engine runs, called directly, over the same TCP transport, the
 * ranks meeting through Gloo's in-process HashStore. C++ inside
 * (bench_hccl_gloo.cc); every failure comes back as false or NULL with a
 * message in why. */
#ifndef ACLCUDA_BENCH_HCCL_GLOO_H
#define ACLCUDA_BENCH_HCCL_GLOO_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct raw_gloo_store raw_gloo_store; /* where the ranks of one run meet */
typedef struct raw_gloo raw_gloo;             /* one rank's connected context */

raw_gloo_store *raw_gloo_store_new(char *why, size_t why_len);
void raw_gloo_store_free(raw_gloo_store *store);

/* Connects rank of nranks to the others over TCP on address; every rank
 * calls it at the same time, from its own thread. timeout_s bounds the
 * connection and every collective after it. */
raw_gloo *raw_gloo_join(raw_gloo_store *store, const char *address, int rank, int nranks,
                        double timeout_s, char *why, size_t why_len);
void raw_gloo_free(raw_gloo *g);

/* gloo::allreduce of count floats with gloo::sum, out of place. */
bool raw_gloo_allreduce_f32(raw_gloo *g, const float *in, float *out, size_t count, char *why,
                            size_t why_len);

/* gloo::allgather of bytes per rank: out holds nranks * bytes. */
bool raw_gloo_allgather(raw_gloo *g, const void *in, void *out, size_t bytes, char *why,
                        size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
