/* A small key-value store over TCP where the ranks of a communicator meet:
 * rank 0's process serves it, every rank connects with the 16-byte token
 * that came with the address (a connection without it is dropped), sets
 * keys and waits for other ranks' keys. It carries rendezvous data only
 * (root bytes, Gloo's peer addresses), never collective data. Used by the
 * rank-table path (every engine) and by the Gloo engine's store. */
#ifndef ACLCUDA_HCCL_RENDEZVOUS_H
#define ACLCUDA_HCCL_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

#include "hccl/hccl_types.h"

/* The Gloo engine (C++) includes it too. */
#ifdef __cplusplus
extern "C" {
#endif

#define HCCL_RV_TOKEN_BYTES 16

typedef struct hccl_rv_server hccl_rv_server;
typedef struct hccl_rv hccl_rv;

/* Serves on host (an IPv4/IPv6 literal; NULL = every interface) and port
 * (0 = any free one; *bound_port gets the one chosen). The server runs on a
 * thread of its own until hccl_rv_server_stop. */
HcclResult hccl_rv_serve(const char *host, uint16_t port, const unsigned char *token,
                         hccl_rv_server **server, uint16_t *bound_port);
void hccl_rv_server_stop(hccl_rv_server *server);

/* Connects, retrying until timeout_s (HCCL_E_TIMEOUT after it). */
HcclResult hccl_rv_connect(const char *host, uint16_t port, const unsigned char *token,
                           double timeout_s, hccl_rv **rv);
HcclResult hccl_rv_set(hccl_rv *rv, const char *key, const void *data, size_t len);
/* Waits until key is set (HCCL_E_TIMEOUT after timeout_s); *data is
 * malloc'ed, the caller frees it. */
HcclResult hccl_rv_get(hccl_rv *rv, const char *key, void **data, size_t *len, double timeout_s);
void hccl_rv_close(hccl_rv *rv);

/* This machine's address other machines reach it by: HCCL_IF_IP, else the
 * first address of HCCL_SOCKET_IFNAME, else of the first interface that is
 * up and not loopback, else 127.0.0.1. */
HcclResult hccl_rv_local_address(char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
