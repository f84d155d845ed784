/* HcclRootInfo's 4108 bytes: libhccl's header (a magic, a version, the
 * engine that made it, an identifier, a checksum) then the engine's
 * HCCL_ENGINE_ROOT_BYTES. Everything a rank needs to join is inside. */
#ifndef ACLCUDA_HCCL_ROOT_INFO_H
#define ACLCUDA_HCCL_ROOT_INFO_H

#include <stdint.h>

#include "hccl/engine.h"

#define HCCL_ROOT_HEADER_BYTES (HCCL_ROOT_INFO_BYTES - HCCL_ENGINE_ROOT_BYTES)

/* Asks engine for its bytes and wraps them; raises for api. */
HcclResult hccl_root_info_make(const char *api, const hccl_engine *engine, HcclRootInfo *info);

/* Checks info (HCCL_E_PARA, raised for api, for bytes HcclGetRootInfo did not
 * make, or another engine's) and finds the identifier and engine bytes. */
HcclResult hccl_root_info_read(const char *api, const hccl_engine *engine, const HcclRootInfo *info,
                               uint64_t *id, const unsigned char **engine_bytes);

#endif
