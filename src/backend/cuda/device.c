/* The cuda backend's devices: probing, properties, peer access, and the
 * device operations that make one current (current.c) or ready (each
 * preload's file). */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "util/pci.h"

static aclError cuda_make_current(int32_t dev)
{
    return use_device_checked(dev);
}

static void cuda_prepare(int32_t dev)
{
    cuda_kernels_preload(dev);
    cuda_notify_preload(dev);
    cuda_builtin_preload(dev);
}

/* ---- process level --------------------------------------------------------- */

/* Properties are asked for often and never change: each device's are
 * queried once, under props_lock, and published through `ready`. */
typedef struct props_slot {
    atomic_bool ready;
    device_props props;
} props_slot;

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static aclError probe_result = ACL_ERROR_RT_NO_DEVICE;
static int device_total;
static props_slot *props_cache;
static pthread_mutex_t props_lock = PTHREAD_MUTEX_INITIALIZER;

static void probe_run(void)
{
    int count = 0;
    /* Without a driver the static runtime fails here instead of crashing. */
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count <= 0) {
        (void)cudaGetLastError();
        probe_result = ACL_ERROR_RT_NO_DEVICE;
        return;
    }
    props_cache = calloc((size_t)count, sizeof *props_cache);
    if (props_cache == NULL) {
        probe_result = ACL_ERROR_RT_MEMORY_ALLOCATION;
        return;
    }
    device_total = count;
    probe_result = ACL_SUCCESS;
}

static aclError cuda_probe(void)
{
    pthread_once(&probe_once, probe_run);
    return probe_result;
}

static int32_t cuda_device_count(void)
{
    pthread_once(&probe_once, probe_run);
    return device_total;
}

/* The priority range is a property of a context, so it is read with dev
 * current (which initialises dev's primary context), and the thread's
 * previous device is restored afterwards. */
static aclError query_priority_range(int dev, int *least, int *greatest)
{
    int prev;
    cudaError_t err = cudaGetDevice(&prev);
    if (err != cudaSuccess)
        return check(err);
    if (prev != dev) {
        err = cudaSetDevice(dev);
        if (err != cudaSuccess)
            return check(err);
    }
    err = cudaDeviceGetStreamPriorityRange(least, greatest);
    if (prev != dev) {
        cudaError_t back = cudaSetDevice(prev);
        cuda_tls_device = back == cudaSuccess ? prev : -1;
        if (err == cudaSuccess)
            err = back;
    }
    return check(err);
}

static aclError query_props(int dev, device_props *p)
{
    struct cudaDeviceProp cp;
    cudaError_t err = cudaGetDeviceProperties(&cp, dev);
    if (err != cudaSuccess)
        return check(err);
    int least, greatest;
    aclError rc = query_priority_range(dev, &least, &greatest);
    if (rc != ACL_SUCCESS)
        return rc;

    memset(p, 0, sizeof *p);
    memcpy(p->name, cp.name, sizeof p->name - 1);
    p->name[sizeof p->name - 1] = '\0';
    memcpy(p->uuid, cp.uuid.bytes, sizeof p->uuid);
    p->total_mem = cp.totalGlobalMem;
    p->multiprocessors = cp.multiProcessorCount;
    p->warp_size = cp.warpSize;
    p->max_threads_per_block = cp.maxThreadsPerBlock;
    p->max_threads_per_mp = cp.maxThreadsPerMultiProcessor;
    p->shared_mem_per_block = (int64_t)cp.sharedMemPerBlock;
    p->l2_cache_size = cp.l2CacheSize;
    for (int i = 0; i < 3; i++) {
        p->max_grid[i] = cp.maxGridSize[i];
        p->max_block[i] = cp.maxThreadsDim[i];
    }
    p->pci_bus = cp.pciBusID;
    p->pci_device = cp.pciDeviceID;
    p->pci_domain = cp.pciDomainID;
    p->least_priority = least;
    p->greatest_priority = greatest;
    p->cc_major = cp.major;
    p->cc_minor = cp.minor;
    p->copy_engines = cp.asyncEngineCount;
    return ACL_SUCCESS;
}

static aclError cuda_device_props(int32_t dev, device_props *props)
{
    if (dev < 0 || dev >= cuda_device_count())
        return ACL_ERROR_RT_INVALID_DEVICEID;
    props_slot *slot = &props_cache[dev];
    if (!atomic_load_explicit(&slot->ready, memory_order_acquire)) {
        aclError rc = ACL_SUCCESS;
        pthread_mutex_lock(&props_lock);
        if (!atomic_load_explicit(&slot->ready, memory_order_relaxed)) {
            rc = query_props(dev, &slot->props);
            if (rc == ACL_SUCCESS)
                atomic_store_explicit(&slot->ready, true, memory_order_release);
        }
        pthread_mutex_unlock(&props_lock);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    *props = slot->props;
    return ACL_SUCCESS;
}

static aclError cuda_mem_info(int32_t dev, size_t *free_bytes, size_t *total_bytes)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaMemGetInfo(free_bytes, total_bytes));
}

static aclError cuda_can_access_peer(int32_t dev, int32_t peer, int32_t *can)
{
    int value = 0;
    aclError rc = check(cudaDeviceCanAccessPeer(&value, dev, peer));
    if (rc == ACL_SUCCESS)
        *can = value ? 1 : 0;
    return rc;
}

/* Enabling twice is not an error here: the second call changes nothing. */
static aclError cuda_enable_peer(int32_t dev, int32_t peer)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    cudaError_t err = cudaDeviceEnablePeerAccess(peer, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
        return ACL_SUCCESS;
    }
    return check(err);
}

static aclError cuda_disable_peer(int32_t dev, int32_t peer)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaDeviceDisablePeerAccess(peer));
}

static enum cudaLimit cuda_limit(device_limit limit)
{
    return limit == DEVICE_LIMIT_STACK_SIZE ? cudaLimitStackSize : cudaLimitPrintfFifoSize;
}

static aclError cuda_set_limit(int32_t dev, device_limit limit, size_t value)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaDeviceSetLimit(cuda_limit(limit), value));
}

static aclError cuda_get_limit(int32_t dev, device_limit limit, size_t *value)
{
    aclError rc = use_device_checked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return check(cudaDeviceGetLimit(value, cuda_limit(limit)));
}

/* CUDA numbers the operations as ACL does (0..12) but lays out the
 * capability bits differently: ACL has 8- and 16-bit scalars where CUDA has
 * none. */
static uint32_t acl_capability(unsigned cuda)
{
    static const struct {
        unsigned cuda;
        uint32_t acl;
    } bits[] = {
        {cudaAtomicCapabilitySigned, ACL_RT_ATOMIC_CAPABILITY_SIGNED},
        {cudaAtomicCapabilityUnsigned, ACL_RT_ATOMIC_CAPABILITY_UNSIGNED},
        {cudaAtomicCapabilityReduction, ACL_RT_ATOMIC_CAPABILITY_REDUCTION},
        {cudaAtomicCapabilityScalar32, ACL_RT_ATOMIC_CAPABILITY_SCALAR32},
        {cudaAtomicCapabilityScalar64, ACL_RT_ATOMIC_CAPABILITY_SCALAR64},
        {cudaAtomicCapabilityScalar128, ACL_RT_ATOMIC_CAPABILITY_SCALAR128},
        {cudaAtomicCapabilityVector32x4, ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4},
    };
    uint32_t acl = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (cuda & bits[i].cuda)
            acl |= bits[i].acl;
    return acl;
}

static aclError cuda_atomic_caps(int32_t dev, int32_t peer, const int *ops, uint32_t *caps,
                                 uint32_t count)
{
    enum cudaAtomicOperation *cuda_ops = malloc((count ? count : 1) * sizeof *cuda_ops);
    unsigned *cuda_caps = malloc((count ? count : 1) * sizeof *cuda_caps);
    aclError rc = cuda_ops && cuda_caps ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
    /* Operations CUDA does not know (ACL's DMA and SIMD ones) are asked as
     * an addition and answered with no capability. */
    for (uint32_t i = 0; rc == ACL_SUCCESS && i < count; i++)
        cuda_ops[i] = ops[i] >= 0 && ops[i] < ATOMIC_OPERATION_COUNT
                          ? (enum cudaAtomicOperation)ops[i]
                          : cudaAtomicOperationIntegerAdd;
    if (rc == ACL_SUCCESS)
        rc = check(peer < 0
                       ? cudaDeviceGetHostAtomicCapabilities(cuda_caps, cuda_ops, count, dev)
                       : cudaDeviceGetP2PAtomicCapabilities(cuda_caps, cuda_ops, count, dev, peer));
    for (uint32_t i = 0; rc == ACL_SUCCESS && i < count; i++)
        caps[i] = ops[i] >= 0 && ops[i] < ATOMIC_OPERATION_COUNT ? acl_capability(cuda_caps[i]) : 0;
    free(cuda_ops);
    free(cuda_caps);
    return rc;
}

/* NVLink is told by native peer atomics, which PCIe peer access lacks; a
 * PCIe path by where the two devices meet in the PCIe tree. */
static aclError cuda_link(int32_t dev, int32_t peer, device_link *link)
{
    int access = 0, atomics = 0;
    aclError rc =
        check(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, dev, peer));
    if (rc == ACL_SUCCESS)
        rc = check(
            cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, dev, peer));
    if (rc != ACL_SUCCESS)
        return rc;
    if (access && atomics) {
        *link = DEVICE_LINK_NVLINK;
        return ACL_SUCCESS;
    }
    char a[32], b[32];
    rc = check(cudaDeviceGetPCIBusId(a, sizeof a, dev));
    if (rc == ACL_SUCCESS)
        rc = check(cudaDeviceGetPCIBusId(b, sizeof b, peer));
    if (rc != ACL_SUCCESS)
        return rc;
    for (char *c = a; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c); /* sysfs is lower case */
    for (char *c = b; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    switch (pci_meeting_point(a, b)) {
    case PCI_MEET_SWITCH:
        *link = DEVICE_LINK_PCIE_SWITCH;
        break;
    case PCI_MEET_SYSTEM:
        *link = DEVICE_LINK_SYSTEM;
        break;
    default: /* unknown: the host bridge is the one link every pair has */
        *link = DEVICE_LINK_HOST_BRIDGE;
        break;
    }
    return ACL_SUCCESS;
}

const backend_device_ops cuda_device_ops = {
    .probe = cuda_probe,
    .count = cuda_device_count,
    .props = cuda_device_props,
    .mem_info = cuda_mem_info,
    .can_access_peer = cuda_can_access_peer,
    .enable_peer = cuda_enable_peer,
    .disable_peer = cuda_disable_peer,
    .make_current = cuda_make_current,
    .set_limit = cuda_set_limit,
    .get_limit = cuda_get_limit,
    .atomic_caps = cuda_atomic_caps,
    .link = cuda_link,
    .prepare = cuda_prepare,
};
