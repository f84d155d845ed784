/*
 * acl-cuda: the memory functions of AscendCL's media-processing (DVPP)
 * header, acl/ops/acl_dvpp.h.
 *
 * Programs that keep images in DVPP memory and process them with their own
 * kernels build and run unchanged. The rest of DVPP (channels, picture and
 * stream descriptions, resizing and cropping, JPEG, PNG and video codecs) is
 * out of scope for acl-cuda and not declared. AscendCL's header stops the
 * build unless ENABLE_DVPP_INTERFACE is defined; this one needs no macro.
 */
#ifndef ACLCUDA_ACL_DVPP_H
#define ACLCUDA_ACL_DVPP_H

#include <stddef.h>
#include <stdint.h>

#include "../acl.h"
#include "../acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory for media data, freed with acldvppFree; the size is rounded
 * up as for aclrtMalloc. The WithCfg variant takes a page policy and optional
 * attributes, as aclrtMallocWithCfg does. */
ACL_FUNC_VISIBILITY aclError acldvppMalloc(void **devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError acldvppFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError acldvppMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                  aclrtMallocConfig *cfg);

#ifdef __cplusplus
}
#endif

#endif /* ACLCUDA_ACL_DVPP_H */
