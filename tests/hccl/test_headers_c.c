/* libhccl's public headers in C11: they compile, their constants are
 * usable in constant expressions, and including them in two translation
 * units defines nothing twice (CANN's file-scope const objects would). */
#include <stddef.h>

#include "hccl/hccl.h"

int hccl_headers_c_failures(void);

_Static_assert(HCCL_ROOT_INFO_BYTES == 4108, "root info size");
_Static_assert(sizeof(HcclRootInfo) == HCCL_ROOT_INFO_BYTES, "root info layout");
_Static_assert(offsetof(HcclCommConfig, hcclBufferSize) == HCCL_COMM_CONFIG_INFO_BYTES,
               "config header");

static HcclResult (*volatile all_reduce)(void *, void *, uint64_t, HcclDataType, HcclReduceOp,
                                         HcclComm, aclrtStream) = HcclAllReduce;

int hccl_headers_c_failures(void)
{
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    HcclConfigValue value = {1};
    int failed = 0;
    if (config.hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET || value.value != 1)
        failed++;
    if (all_reduce == NULL || HCCL_E_IN_STATUS != 1041 || HCCL_CMD_BARRIER != 103)
        failed++;
    return failed;
}
