/* The CUDA driver API, reached without linking libcuda: the library must
 * load where no driver is installed (and then fall back to the host
 * backend), so driver functions are looked up at run time through cudart's
 * cudaGetDriverEntryPointByVersion, once, on first use.
 *
 * To use a driver function, add a line to DRIVER_FUNCTIONS:
 *     X(name, version)
 * where version is the CUDA version (1000 * major + 10 * minor) whose
 * signature the code uses (cudaTypedefs.h names each signature
 * PFN_<name>_v<version>). Then call it as drv.name(...), after checking
 * driver_ready() (or driver_require()). */
#ifndef ACLCUDA_BACKEND_CUDA_DRIVER_H
#define ACLCUDA_BACKEND_CUDA_DRIVER_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "acl/acl.h"

#define DRIVER_FUNCTIONS(X)                                                                        \
    X(cuGetErrorName, 6000)                                                                        \
    X(cuCtxGetCurrent, 4000)                                                                       \
    X(cuDeviceGet, 2000)                                                                           \
    X(cuDeviceGetAttribute, 2000)                                                                  \
    X(cuStreamWriteValue32, 11070)                                                                 \
    X(cuStreamWriteValue64, 11070)                                                                 \
    X(cuStreamWaitValue64, 11070)                                                                  \
    X(cuStreamBatchMemOp, 11070)                                                                   \
    X(cuModuleLoadData, 2000)                                                                      \
    X(cuModuleGetFunction, 2000)                                                                   \
    X(cuLaunchKernel, 4000)                                                                        \
    X(cuCheckpointProcessLock, 12080)                                                              \
    X(cuCheckpointProcessCheckpoint, 12080)                                                        \
    X(cuCheckpointProcessRestore, 12080)                                                           \
    X(cuCheckpointProcessUnlock, 12080)                                                            \
    X(cuPointerGetAttributes, 7000)                                                                \
    X(cuLibraryLoadData, 12000)                                                                    \
    X(cuLibraryUnload, 12000)                                                                      \
    X(cuLibraryGetKernel, 12000)                                                                   \
    X(cuLibraryGetGlobal, 12000)                                                                   \
    X(cuKernelGetFunction, 12000)                                                                  \
    X(cuFuncGetAttribute, 2020)                                                                    \
    X(cuFuncSetAttribute, 9000)                                                                    \
    X(cuFuncGetParamInfo, 12040)                                                                   \
    X(cuFuncLoad, 12040)                                                                           \
    X(cuLaunchKernelEx, 11060)                                                                     \
    X(cuMemsetD32Async, 3020)                                                                      \
    X(cuMemAddressReserve, 10020)                                                                  \
    X(cuMemAddressFree, 10020)                                                                     \
    X(cuMemCreate, 10020)                                                                          \
    X(cuMemRelease, 10020)                                                                         \
    X(cuMemMap, 10020)                                                                             \
    X(cuMemUnmap, 10020)                                                                           \
    X(cuMemSetAccess, 10020)                                                                       \
    X(cuMemGetAllocationGranularity, 10020)                                                        \
    X(cuMemExportToShareableHandle, 10020)                                                         \
    X(cuMemImportFromShareableHandle, 10020)                                                       \
    X(cuGraphKernelNodeGetParams, 12000)                                                           \
    X(cuGraphAddKernelNode, 12000)                                                                 \
    X(cuGraphExecKernelNodeSetParams, 12000)                                                       \
    X(cuGraphNodeGetType, 10000)                                                                   \
    X(cuGraphBatchMemOpNodeGetParams, 11070)                                                       \
    X(cuGraphExecBatchMemOpNodeSetParams, 11070)

typedef struct driver_table {
#define DRIVER_MEMBER(name, version) PFN_##name##_v##version name;
    DRIVER_FUNCTIONS(DRIVER_MEMBER)
#undef DRIVER_MEMBER
} driver_table;

/* Filled by driver_ready(); a function the driver lacks stays NULL. */
extern driver_table drv;

/* Looks the functions up (once). False when the driver cannot be reached. */
bool driver_ready(void);
/* The ACL code of a driver result; clears nothing (the driver API keeps no
 * per-thread last error). */
aclError from_cu(CUresult result);

#endif
