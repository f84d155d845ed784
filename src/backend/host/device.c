/* The host backend's devices: plain CPU memory and threads, as many as
 * ACLCUDA_HOST_DEVICE_COUNT says (default 1), each with
 * ACLCUDA_HOST_DEVICE_MEMORY bytes of "device" memory (default 8 GiB). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/host/host.h"

#define DEFAULT_DEVICE_MEMORY ((size_t)8 << 30)

static host_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

_Atomic size_t host_device_used[HOST_MAX_DEVICES];

static int32_t parse_device_count(const char *text)
{
    if (!text || !*text)
        return 1;
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || *end || n < 1)
        return 1;
    return n > HOST_MAX_DEVICES ? HOST_MAX_DEVICES : (int32_t)n;
}

/* Bytes, optionally with a binary suffix K, M, G or T; anything unparsable
 * or zero leaves the default. */
static size_t parse_memory_size(const char *text)
{
    if (!text || !*text || *text == '-')
        return DEFAULT_DEVICE_MEMORY;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno || end == text || n == 0)
        return DEFAULT_DEVICE_MEMORY;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: return DEFAULT_DEVICE_MEMORY;
    }
    if (shift && end[1] != '\0')
        return DEFAULT_DEVICE_MEMORY;
    if (n > (SIZE_MAX >> shift))
        return DEFAULT_DEVICE_MEMORY;
    return (size_t)n << shift;
}

static void config_load(void)
{
    config.device_count = parse_device_count(getenv("ACLCUDA_HOST_DEVICE_COUNT"));
    config.capacity = parse_memory_size(getenv("ACLCUDA_HOST_DEVICE_MEMORY"));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    config.cpus = cpus > 0 ? cpus : 1;
    long page = sysconf(_SC_PAGESIZE);
    config.page_size = page > 0 ? (size_t)page : 4096;
}

const host_config *host_config_get(void)
{
    pthread_once(&config_once, config_load);
    return &config;
}

bool host_device_valid(int32_t dev)
{
    host_config_get();
    return dev >= 0 && dev < config.device_count;
}
/* ---- process level ------------------------------------------------------------ */

static aclError host_probe(void)
{
    host_config_get();
    return ACL_SUCCESS;
}

static int32_t host_device_count(void)
{
    host_config_get();
    return config.device_count;
}

static aclError host_device_props(int32_t dev, device_props *props)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!props)
        return ACL_ERROR_RT_PARAM_INVALID;
    memset(props, 0, sizeof *props);
    strcpy(props->name, "acl-cuda host backend (CPU)");
    /* A fixed UUID per index: "acl-host" in RFC 9562 version 8 ("custom")
     * layout, the index in the last two bytes. */
    static const uint8_t uuid_base[16] = {0x61, 0x63, 0x6c, 0x2d, 0x68, 0x6f, 0x83, 0x74,
                                          0x80, 0, 0, 0, 0, 0, 0, 0};
    memcpy(props->uuid, uuid_base, sizeof props->uuid);
    props->uuid[14] = (uint8_t)(dev >> 8);
    props->uuid[15] = (uint8_t)dev;
    props->total_mem = config.capacity;
    props->multiprocessors = config.cpus;
    props->warp_size = 1;
    props->max_threads_per_block = 1024;
    props->max_threads_per_mp = 1024;
    props->shared_mem_per_block = 48 * 1024;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    props->l2_cache_size = l2 > 0 ? l2 : 1024 * 1024;
    props->max_grid[0] = INT32_MAX;
    props->max_grid[1] = 65535;
    props->max_grid[2] = 65535;
    props->max_block[0] = 1024;
    props->max_block[1] = 1024;
    props->max_block[2] = 64;
    props->pci_domain = 0;
    props->pci_bus = 0;
    props->pci_device = dev;
    /* One priority level: every stream runs on its own thread anyway. */
    props->least_priority = 0;
    props->greatest_priority = 0;
    return ACL_SUCCESS;
}

static aclError host_mem_info(int32_t dev, size_t *free_bytes, size_t *total_bytes)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!free_bytes || !total_bytes)
        return ACL_ERROR_RT_PARAM_INVALID;
    size_t used = atomic_load(&host_device_used[dev]);
    *free_bytes = config.capacity - used;
    *total_bytes = config.capacity;
    return ACL_SUCCESS;
}

static aclError host_can_access_peer(int32_t dev, int32_t peer, int32_t *can)
{
    if (!host_device_valid(dev) || !host_device_valid(peer))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!can)
        return ACL_ERROR_RT_PARAM_INVALID;
    /* All host devices share one address space; a device is not its own peer. */
    *can = dev != peer;
    return ACL_SUCCESS;
}

/* No code outside the library addresses host devices: nothing to switch. */
static aclError host_make_current(int32_t dev)
{
    return host_device_valid(dev) ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}

static aclError host_set_peer(int32_t dev, int32_t peer)
{
    if (!host_device_valid(dev) || !host_device_valid(peer))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    return ACL_SUCCESS;
}

const backend_device_ops host_device_ops = {
    .probe = host_probe,
    .count = host_device_count,
    .props = host_device_props,
    .mem_info = host_mem_info,
    .can_access_peer = host_can_access_peer,
    .enable_peer = host_set_peer,
    .disable_peer = host_set_peer,
    .make_current = host_make_current,
};
