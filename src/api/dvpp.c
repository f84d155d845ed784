/* DVPP memory (acl/ops/acl_dvpp.h): device memory for media data. Like
 * aclrtMalloc's, its size is rounded up to a multiple of 32 plus 32 bytes,
 * and its start is aligned far beyond the 128 bytes DVPP asks for (256 on
 * both backends). It is recorded as DVPP memory (aclrtCheckMemType reports
 * ACL_RT_MEM_TYPE_DVPP), which only acldvppFree releases. Huge pages are
 * what DVPP memory is made of on Ascend; acldvppMalloc asks for them
 * first, as aclrtMalloc's default policy does. */
#include "api/api.h"
#include "acl/ops/acl_dvpp.h"

ACL_EXPORT aclError acldvppMalloc(void **devPtr, size_t size)
{
    PROF_API();
    return api_malloc_with_cfg(__func__, devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST, NULL,
                               ORIGIN_DVPP);
}

ACL_EXPORT aclError acldvppMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                         aclrtMallocConfig *cfg)
{
    PROF_API();
    return api_malloc_with_cfg(__func__, devPtr, size, policy, cfg, ORIGIN_DVPP);
}

ACL_EXPORT aclError acldvppFree(void *devPtr)
{
    PROF_API();
    return memory_free(__func__, devPtr, ORIGIN_BIT(ORIGIN_DVPP));
}
