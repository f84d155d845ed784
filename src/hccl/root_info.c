#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "hccl/errors.h"
#include "hccl/root_info.h"

#define ROOT_MAGIC "aclcuda-hccl-root"
#define ROOT_VERSION 1U
#define ENGINE_NAME_BYTES 16

typedef struct root_header {
    char magic[20];
    uint32_t version;
    char engine[ENGINE_NAME_BYTES];
    uint64_t id;
    uint64_t checksum; /* FNV-1a of the whole root info with this field 0 */
} root_header;

_Static_assert(sizeof(root_header) <= HCCL_ROOT_HEADER_BYTES,
               "the header fits before the engine's");

static uint64_t checksum(const HcclRootInfo *info)
{
    HcclRootInfo copy;
    memcpy(&copy, info, sizeof copy);
    memset(copy.internal + offsetof(root_header, checksum), 0, sizeof(uint64_t));
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < sizeof copy.internal; i++) {
        hash ^= (unsigned char)copy.internal[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

static uint64_t fresh_id(void)
{
    uint64_t id;
    if (getrandom(&id, sizeof id, 0) == (ssize_t)sizeof id && id != 0)
        return id;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return ((uint64_t)now.tv_sec * 1000000007ULL) ^ (uint64_t)now.tv_nsec ^
           ((uint64_t)getpid() << 32);
}

HcclResult hccl_root_info_make(const char *api, const hccl_engine *engine, HcclRootInfo *info)
{
    memset(info, 0, sizeof *info);
    hccl_clear_error();
    HcclResult err = engine->root_info((unsigned char *)info->internal + HCCL_ROOT_HEADER_BYTES);
    if (err != HCCL_SUCCESS)
        return hccl_raise_engine(api, err);
    root_header header = {.version = ROOT_VERSION, .id = fresh_id()};
    memcpy(header.magic, ROOT_MAGIC, sizeof ROOT_MAGIC);
    snprintf(header.engine, sizeof header.engine, "%s", engine->name);
    memcpy(info->internal, &header, sizeof header);
    header.checksum = checksum(info);
    memcpy(info->internal, &header, sizeof header);
    return HCCL_SUCCESS;
}

HcclResult hccl_root_info_read(const char *api, const hccl_engine *engine, const HcclRootInfo *info,
                               uint64_t *id, const unsigned char **engine_bytes)
{
    root_header header;
    memcpy(&header, info->internal, sizeof header);
    if (memcmp(header.magic, ROOT_MAGIC, sizeof ROOT_MAGIC) != 0)
        return hccl_raise(api, HCCL_E_PARA,
                          "rootInfo was not made by HcclGetRootInfo of acl-cuda's libhccl");
    if (header.version != ROOT_VERSION)
        return hccl_raise(api, HCCL_E_PARA,
                          "rootInfo has version %u; this libhccl reads version %u", header.version,
                          ROOT_VERSION);
    if (header.checksum != checksum(info))
        return hccl_raise(api, HCCL_E_PARA,
                          "rootInfo was changed after HcclGetRootInfo made it (checksum mismatch)");
    header.engine[ENGINE_NAME_BYTES - 1] = '\0';
    if (strcmp(header.engine, engine->name) != 0)
        return hccl_raise(api, HCCL_E_PARA,
                          "rootInfo was made for the %s engine; this process runs %s (the cuda "
                          "backend uses nccl, the host backend gloo: every rank must use the same "
                          "ACLCUDA_BACKEND)",
                          header.engine, engine->name);
    *id = header.id;
    *engine_bytes = (const unsigned char *)info->internal + HCCL_ROOT_HEADER_BYTES;
    return HCCL_SUCCESS;
}
