// libhccl's public headers in C++ beside the C translation unit of this
// program (test_headers_c.c): CANN's C++ examples build unchanged, the
// declarations have C linkage (the link resolves unmangled names) and the
// constants are compile-time values.
#include "hccl/hccl.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_types.h"

#include <cstdio>

extern "C" int hccl_headers_c_failures(void);

static_assert(HCCL_COMM_CONFIG_MAGIC_WORD == 0xf0f0f0f0U, "magic word");
static_assert(COMM_NAME_MAX_LENGTH == 128, "name length");
static_assert(sizeof(HcclSendRecvItem) == 32, "send/recv item layout");

static HcclResult (*volatile init_root)(uint32_t, const HcclRootInfo *, uint32_t,
                                        HcclComm *) = HcclCommInitRootInfo;
static const char *(*volatile error_string)(HcclResult) = HcclGetErrorString;

int main()
{
    int failed = 0;
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    HcclConfigValue value;
    value.value = 2;
    if (config.hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET || value.value != 2)
        failed++;
    if (init_root == nullptr || error_string(HCCL_E_PARA) == nullptr)
        failed++;
    HcclOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_HOST;
    if (mode != 2)
        failed++;
    failed += hccl_headers_c_failures();
    std::printf("%d passed, %d failed\n", failed == 0 ? 1 : 0, failed == 0 ? 0 : 1);
    return failed == 0 ? 0 : 1;
}
