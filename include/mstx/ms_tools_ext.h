/*
 * acl-cuda: the MindStudio Tools Extension markers (CANN's
 * mstx/ms_tools_ext.h). Names and prototypes are CANN's (its public
 * msprof documentation); the text is acl-cuda's own.
 *
 * Marks and ranges an application puts on the profiler's timeline, alone
 * or in a named domain. acl-cuda records them in its own profile while
 * profiling runs (aclprofStart, acl-cuda-prof) and, on the cuda backend,
 * as NVTX marks and ranges that Nsight Systems shows.
 */
#ifndef MS_TOOLS_EXT_H_
#define MS_TOOLS_EXT_H_

#include <stdint.h>

#if defined(_WIN32) || defined(_WIN64) || defined(_MSC_VER)
#define MSTX_API __declspec(dllexport)
#else
#define MSTX_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* As acl/acl_base_rt.h declares it (the same typedef may appear twice). */
typedef void *aclrtStream;

/* A range's id; 0 is no range (a failed start). */
typedef uint64_t mstxRangeId;

struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st mstxDomainRegistration;
typedef mstxDomainRegistration *mstxDomainHandle_t;

/* An instant mark with message, for stream (NULL: the calling thread only). */
MSTX_API void mstxMarkA(const char *message, aclrtStream stream);
/* Opens a range; 0 on failure. */
MSTX_API mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
MSTX_API void mstxRangeEnd(mstxRangeId id);

/* Domains group marks and ranges under a name; NULL on failure. */
MSTX_API mstxDomainHandle_t mstxDomainCreateA(const char *name);
MSTX_API void mstxDomainDestroy(mstxDomainHandle_t domain);
MSTX_API void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
                              aclrtStream stream);
MSTX_API mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
                                           aclrtStream stream);
MSTX_API void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);

#ifdef __cplusplus
}
#endif

#endif /* MS_TOOLS_EXT_H_ */
