/* The rank-table path's rendezvous: rank 0 of the table makes the engine's
 * root bytes and serves them (rendezvous.h) on its server's address at
 * HCCL_IF_BASE_PORT; every other rank fetches them. The token is the first
 * bytes of the SHA-256 of the table file, so only readers of the file join. */
#ifndef ACLCUDA_HCCL_CLUSTER_H
#define ACLCUDA_HCCL_CLUSTER_H

#include "hccl/engine.h"
#include "hccl/env.h"
#include "hccl/rank_table.h"

/* Fills root_bytes (HCCL_ENGINE_ROOT_BYTES) for rank; raises for api. */
HcclResult hccl_cluster_rendezvous(const char *api, const hccl_engine *engine,
                                   const hccl_rank_table *table, uint32_t rank,
                                   const hccl_env_values *env, unsigned char *root_bytes);

#endif
