/* SHA-256 (FIPS 180-4), for the rank-table rendezvous's token: only a
 * reader of the rank table's bytes can join. */
#ifndef ACLCUDA_HCCL_SHA256_H
#define ACLCUDA_HCCL_SHA256_H

#include <stddef.h>

#define HCCL_SHA256_BYTES 32

void hccl_sha256(const void *data, size_t len, unsigned char digest[HCCL_SHA256_BYTES]);

#endif
