/* CANN's rank tables (HcclCommInitClusterInfo): JSON whose every value is a
 * string. Version "1.0" lists servers flat (server_list) or in groups
 * (server_group_list[].server_list); "1.2" adds each device's
 * super_device_id and the super_pod_list. Rank ids are global, device ids
 * local to their server. */
#ifndef ACLCUDA_HCCL_RANK_TABLE_H
#define ACLCUDA_HCCL_RANK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hccl/hccl_types.h"
#include "hccl/sha256.h"

#define HCCL_RANK_TABLE_MAX_BYTES (64u << 20)
#define HCCL_RANK_TABLE_TEXT 64 /* identifiers and addresses, with their NUL */

typedef struct hccl_rank_entry {
    int32_t device;          /* device_id */
    int64_t super_device_id; /* -1 when the table has none */
    char server_id[HCCL_RANK_TABLE_TEXT];
    char server_address[HCCL_RANK_TABLE_TEXT]; /* container_ip, server_ip or server_id */
    const char *address_field;                 /* which of the three it is */
    char address_path[96];                     /* where it is in the file */
    char device_ip[HCCL_RANK_TABLE_TEXT];      /* "" when absent */
    char super_pod_id[HCCL_RANK_TABLE_TEXT];   /* "" when absent */
} hccl_rank_entry;

typedef struct hccl_rank_table {
    char version[8];
    uint32_t nranks;
    uint32_t nservers;
    hccl_rank_entry *ranks;                  /* [nranks], by rank id */
    unsigned char digest[HCCL_SHA256_BYTES]; /* of the file's bytes */
} hccl_rank_table;

/* Reads and parses the file at path: HCCL_E_OPEN_FILE_FAILURE when it cannot
 * be read, HCCL_E_PARA (naming the field) when it is not a rank table; raised
 * for api. */
HcclResult hccl_rank_table_load(const char *api, const char *path, hccl_rank_table *table);
HcclResult hccl_rank_table_parse(const char *api, const char *text, size_t len,
                                 hccl_rank_table *table);
void hccl_rank_table_free(hccl_rank_table *table);

#endif
