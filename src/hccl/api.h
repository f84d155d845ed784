/* What the API files (api.c, api_comm.c, api_refused.c) share: every public
 * function checks its arguments in CANN's order, raises what it refuses
 * (HCCL_E_PTR for a NULL pointer, HCCL_E_PARA for a bad value) and hands
 * the engine one op. */
#ifndef ACLCUDA_HCCL_API_H
#define ACLCUDA_HCCL_API_H

#include "hccl/comm.h"
#include "hccl/engine.h"
#include "hccl/errors.h"

/* Returns HCCL_E_PTR, raised in api's name, when p is NULL. */
#define HCCL_REQUIRE_PTR_IN(api, p)                                                                \
    do {                                                                                           \
        if (!(p))                                                                                  \
            return hccl_raise((api), HCCL_E_PTR, "%s is NULL", #p);                                \
    } while (0)
#define HCCL_REQUIRE_PTR(p) HCCL_REQUIRE_PTR_IN(__func__, p)

/* Queues op (from hccl_op_new, NULL when that failed) on stream and
 * gives comm back; the engine owns op from here, as engine.h says. */
HcclResult hccl_submit(const char *api, hccl_comm *comm, hccl_op *op, aclrtStream stream);

/* Refused: no meaning on acl-cuda. scripts/api-coverage.py lists reason. */
#define HCCL_REFUSE(reason) HCCL_RAISE(HCCL_E_NOT_SUPPORT, "%s", "refused: " reason)
/* Not implemented yet, for reason. */
#define HCCL_NOT_YET(reason) HCCL_RAISE(HCCL_E_NOT_SUPPORT, "%s", "not supported yet: " reason)

#endif
