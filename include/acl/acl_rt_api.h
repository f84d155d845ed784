/*
 * acl-cuda: AscendCL's C++ conveniences over the runtime API.
 *
 * Overloads that reach the C functions of acl_rt.h under the older names
 * (a timeout, a priority or a flag as an extra argument), and templates that
 * take typed pointers where the C functions take void pointers. All are
 * inline and forward to one C function each: the library exports nothing
 * for them. A call whose arguments already have the C types picks the C
 * function itself, as overload resolution prefers a non-template.
 */
#ifndef ACLCUDA_ACL_RT_API_H
#define ACLCUDA_ACL_RT_API_H

#include "acl_rt.h"

#ifdef __cplusplus

/* ---- older names with an extra argument ----------------------------------- */

static inline aclError aclrtSynchronizeDevice(int32_t timeout)
{
    return ::aclrtSynchronizeDeviceWithTimeout(timeout);
}

static inline aclError aclrtSynchronizeStream(aclrtStream stream, int32_t timeout)
{
    return ::aclrtSynchronizeStreamWithTimeout(stream, timeout);
}

static inline aclError aclrtSynchronizeEvent(aclrtEvent event, int32_t timeout)
{
    return ::aclrtSynchronizeEventWithTimeout(event, timeout);
}

static inline aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    return ::aclrtStreamWaitEventWithTimeout(stream, event, timeout);
}

static inline aclError aclrtCreateStream(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    return ::aclrtCreateStreamWithConfig(stream, priority, flag);
}

static inline aclError aclrtSetOpExecuteTimeOut(uint64_t timeout, uint64_t *actualTimeout)
{
    return ::aclrtSetOpExecuteTimeOutV2(timeout, actualTimeout);
}

/* The flags of aclrtCreateEventExWithFlag. */
static inline aclError aclrtCreateEvent(aclrtEvent *event, uint32_t flag)
{
    return ::aclrtCreateEventExWithFlag(event, flag);
}

/* ---- allocation with typed pointers --------------------------------------- */

template <typename Elem>
static inline aclError aclrtMalloc(Elem **devPtr, size_t size, aclrtMallocConfig *cfg = nullptr)
{
    return ::aclrtMallocWithCfg(reinterpret_cast<void **>(devPtr), size, ACL_MEM_MALLOC_HUGE_FIRST,
                                cfg);
}

template <typename Elem>
static inline aclError aclrtMalloc(Elem **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                   aclrtMallocConfig *cfg = nullptr)
{
    return ::aclrtMallocWithCfg(reinterpret_cast<void **>(devPtr), size, policy, cfg);
}

template <typename Elem>
static inline aclError aclrtMallocHost(Elem **hostPtr, size_t size, aclrtMallocConfig *cfg = nullptr)
{
    return ::aclrtMallocHostWithCfg(reinterpret_cast<void **>(hostPtr), static_cast<uint64_t>(size),
                                    cfg);
}

template <typename Elem>
static inline aclError aclrtMemAllocManaged(Elem **ptr, size_t size,
                                            uint32_t flags = ACL_RT_MEM_ATTACH_GLOBAL)
{
    return ::aclrtMemAllocManaged(reinterpret_cast<void **>(ptr), static_cast<uint64_t>(size),
                                  flags);
}

/* ---- copies with typed pointers ------------------------------------------- */

template <typename To, typename From>
static inline aclError aclrtMemcpy(To *dst, size_t destMax, const From *src, size_t count,
                                   aclrtMemcpyKind kind)
{
    return ::aclrtMemcpy(static_cast<void *>(dst), destMax, static_cast<const void *>(src), count,
                         kind);
}

template <typename To, typename From>
static inline aclError aclrtMemcpyAsync(To *dst, size_t destMax, const From *src, size_t count,
                                        aclrtMemcpyKind kind, aclrtStream stream)
{
    return ::aclrtMemcpyAsync(static_cast<void *>(dst), destMax, static_cast<const void *>(src),
                              count, kind, stream);
}

template <typename To, typename From>
static inline aclError aclrtMemcpy2d(To *dst, size_t dpitch, const From *src, size_t spitch,
                                     size_t width, size_t height, aclrtMemcpyKind kind)
{
    return ::aclrtMemcpy2d(static_cast<void *>(dst), dpitch, static_cast<const void *>(src), spitch,
                           width, height, kind);
}

template <typename To, typename From>
static inline aclError aclrtMemcpy2dAsync(To *dst, size_t dpitch, const From *src, size_t spitch,
                                          size_t width, size_t height, aclrtMemcpyKind kind,
                                          aclrtStream stream)
{
    return ::aclrtMemcpy2dAsync(static_cast<void *>(dst), dpitch, static_cast<const void *>(src),
                                spitch, width, height, kind, stream);
}

/* Batches: one attribute for every copy, or the attribute list of the V2
 * functions. failIndex is accepted and left alone where the call forwarded
 * to has none. */
template <typename To, typename From>
static inline aclError aclrtMemcpyBatch(To **dsts, size_t *destMaxs, From **srcs, size_t *sizes,
                                        size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                        size_t *attrsIndexes, size_t numAttrs,
                                        size_t *failIndex = nullptr)
{
    (void)failIndex;
    return ::aclrtMemcpyBatchV2(reinterpret_cast<void **>(dsts), destMaxs,
                                reinterpret_cast<void **>(srcs), sizes, numBatches, attrs,
                                attrsIndexes, numAttrs);
}

template <typename To, typename From>
static inline aclError aclrtMemcpyBatch(To **dsts, size_t *destMaxs, From **srcs, size_t *sizes,
                                        size_t numBatches, aclrtMemcpyBatchAttr attr,
                                        size_t *failIndex = nullptr)
{
    (void)failIndex;
    size_t first = 0;
    return ::aclrtMemcpyBatchV2(reinterpret_cast<void **>(dsts), destMaxs,
                                reinterpret_cast<void **>(srcs), sizes, numBatches, &attr, &first, 1);
}

template <typename To, typename From>
static inline aclError aclrtMemcpyBatchAsync(To **dsts, size_t *destMaxs, From **srcs,
                                             size_t *sizes, size_t numBatches,
                                             aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                             size_t numAttrs, aclrtStream stream)
{
    return ::aclrtMemcpyBatchAsyncV2(reinterpret_cast<void **>(dsts), destMaxs,
                                     reinterpret_cast<void **>(srcs), sizes, numBatches, attrs,
                                     attrsIndexes, numAttrs, stream);
}

template <typename To, typename From>
static inline aclError aclrtMemcpyBatchAsync(To **dsts, size_t *destMaxs, From **srcs,
                                             size_t *sizes, size_t numBatches,
                                             aclrtMemcpyBatchAttr attr, aclrtStream stream)
{
    size_t first = 0;
    return ::aclrtMemcpyBatchAsyncV2(reinterpret_cast<void **>(dsts), destMaxs,
                                     reinterpret_cast<void **>(srcs), sizes, numBatches, &attr, &first,
                                     1, stream);
}

template <typename To, typename From>
static inline aclError aclrtMemcpyBatchAsync(To **dsts, size_t *destMaxs, From **srcs,
                                             size_t *sizes, size_t numBatches,
                                             aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                             size_t numAttrs, size_t *failIndex, aclrtStream stream)
{
    return ::aclrtMemcpyBatchAsync(reinterpret_cast<void **>(dsts), destMaxs,
                                   reinterpret_cast<void **>(srcs), sizes, numBatches, attrs,
                                   attrsIndexes, numAttrs, failIndex, stream);
}

template <typename To, typename From>
static inline aclError aclrtMemcpyBatchAsync(To **dsts, size_t *destMaxs, From **srcs,
                                             size_t *sizes, size_t numBatches,
                                             aclrtMemcpyBatchAttr attr, size_t *failIndex,
                                             aclrtStream stream)
{
    size_t first = 0;
    return ::aclrtMemcpyBatchAsync(reinterpret_cast<void **>(dsts), destMaxs,
                                   reinterpret_cast<void **>(srcs), sizes, numBatches, &attr, &first,
                                   1, failIndex, stream);
}

/* ---- pointers, host registration, managed memory -------------------------- */

template <typename Elem>
static inline aclError aclrtPointerGetAttributes(const Elem *ptr, aclrtPtrAttributes *attributes)
{
    return ::aclrtPointerGetAttributes(static_cast<const void *>(ptr), attributes);
}

template <typename Elem>
static inline aclError aclrtHostRegister(Elem *ptr, uint64_t size, aclrtHostRegisterType type,
                                         Elem **devPtr)
{
    return ::aclrtHostRegister(static_cast<void *>(ptr), size, type,
                               reinterpret_cast<void **>(devPtr));
}

/* The flags of aclrtHostRegisterV2. */
template <typename Elem>
static inline aclError aclrtHostRegister(Elem *ptr, uint64_t size, uint32_t flag)
{
    return ::aclrtHostRegisterV2(static_cast<void *>(ptr), size, flag);
}

template <typename Elem>
static inline aclError aclrtHostGetDevicePointer(Elem *pHost, Elem **pDevice, uint32_t flag)
{
    return ::aclrtHostGetDevicePointer(static_cast<void *>(pHost),
                                       reinterpret_cast<void **>(pDevice), flag);
}

template <typename Elem>
static inline aclError aclrtHostUnregister(Elem *ptr)
{
    return ::aclrtHostUnregister(static_cast<void *>(ptr));
}

template <typename Elem>
static inline aclError aclrtMemManagedPrefetchAsync(const Elem *ptr, size_t size,
                                                    aclrtMemManagedLocation location,
                                                    uint32_t flags, aclrtStream stream)
{
    return ::aclrtMemManagedPrefetchAsync(static_cast<const void *>(ptr), size, location, flags,
                                          stream);
}

template <typename Elem>
static inline aclError aclrtMemManagedPrefetchBatchAsync(
    const Elem **ptrs, size_t *sizes, size_t count, aclrtMemManagedLocation *prefetchLocs,
    size_t *prefetchLocIdxs, size_t numPrefetchLocs, uint64_t flags, aclrtStream stream)
{
    return ::aclrtMemManagedPrefetchBatchAsync(reinterpret_cast<const void **>(ptrs), sizes, count,
                                               prefetchLocs, prefetchLocIdxs, numPrefetchLocs,
                                               flags, stream);
}

/* One location for every range. */
template <typename Elem>
static inline aclError aclrtMemManagedPrefetchBatchAsync(const Elem **ptrs, size_t *sizes,
                                                         size_t count,
                                                         aclrtMemManagedLocation prefetchLoc,
                                                         uint64_t flags, aclrtStream stream)
{
    size_t first = 0;
    return ::aclrtMemManagedPrefetchBatchAsync(reinterpret_cast<const void **>(ptrs), sizes, count,
                                               &prefetchLoc, &first, 1, flags, stream);
}

/* ---- symbols by reference ------------------------------------------------- */

template <typename Symbol>
static inline aclError aclrtGetSymbolAddress(const Symbol &symbol, void **devPtr)
{
    return ::aclrtGetSymbolAddress(static_cast<const void *>(&symbol), devPtr);
}

template <typename Symbol>
static inline aclError aclrtGetSymbolSize(const Symbol &symbol, size_t *size)
{
    return ::aclrtGetSymbolSize(static_cast<const void *>(&symbol), size);
}

template <typename Symbol>
static inline aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const Symbol &symbol,
                                             size_t count, size_t offset, aclrtMemcpyKind kind)
{
    return ::aclrtMemcpyFromSymbol(dst, dstMax, static_cast<const void *>(&symbol), count, offset,
                                   kind);
}

template <typename Symbol>
static inline aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax, const Symbol &symbol,
                                                  size_t count, size_t offset,
                                                  aclrtMemcpyKind kind, aclrtStream stream)
{
    return ::aclrtMemcpyFromSymbolAsync(dst, dstMax, static_cast<const void *>(&symbol), count,
                                        offset, kind, stream);
}

template <typename Symbol>
static inline aclError aclrtMemcpyToSymbol(const Symbol &symbol, const void *src, size_t count,
                                           size_t offset, aclrtMemcpyKind kind)
{
    return ::aclrtMemcpyToSymbol(static_cast<const void *>(&symbol), src, count, offset, kind);
}

template <typename Symbol>
static inline aclError aclrtMemcpyToSymbolAsync(const Symbol &symbol, const void *src,
                                                size_t count, size_t offset, aclrtMemcpyKind kind,
                                                aclrtStream stream)
{
    return ::aclrtMemcpyToSymbolAsync(static_cast<const void *>(&symbol), src, count, offset, kind,
                                      stream);
}

#endif /* __cplusplus */

#endif /* ACLCUDA_ACL_RT_API_H */
