/* Tensor data transfer: data items, datasets, and the record a dataset
 * travels as (acl_tdt.h).
 *
 * An item the user makes refers to the user's bytes; sending copies them
 * (through the copy path when they are device memory) into one record, a
 * contiguous block that a channel or a queue carries. Receiving turns a
 * record back into items that refer into it; the dataset that received
 * them owns the items and the record until it is destroyed or receives
 * again. A dataset holds its items by handle, so that an item destroyed
 * after being added makes a send fail instead of reading freed memory. */
#ifndef ACLCUDA_CORE_TDT_DATA_H
#define ACLCUDA_CORE_TDT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_tdt.h"

enum { TDT_DIM_MAX = 128 };

/* A dataset packed for transport. */
typedef struct tdt_record {
    size_t len;
    unsigned char bytes[];
} tdt_record;

/* Items and datasets. Bare codes except where noted. */
aclError tdt_item_create(acltdtTensorType type, const int64_t *dims, size_t dim_num,
                         aclDataType data_type, void *data, size_t size, acltdtDataItem **out);
aclError tdt_item_destroy(acltdtDataItem *h);
/* The fields of a live item (false when h is none). */
typedef struct tdt_item_info {
    acltdtTensorType tensor_type;
    aclDataType data_type;
    void *data;
    size_t size, dim_num, slice_num, slice_id;
} tdt_item_info;
bool tdt_item_info_get(const acltdtDataItem *h, tdt_item_info *out);
/* Copies the dims into dims (dim_num of room). Raises. */
aclError tdt_item_dims(const char *api, const acltdtDataItem *h, int64_t *dims, size_t dim_num);

aclError tdt_dataset_create(acltdtDataset **out);
aclError tdt_dataset_destroy(acltdtDataset *h);
/* Raises. */
aclError tdt_dataset_add(const char *api, acltdtDataset *set, acltdtDataItem *item);
/* The index-th item (NULL, raised, when there is none). */
acltdtDataItem *tdt_dataset_item(const char *api, const acltdtDataset *set, size_t index);
/* Items in a live dataset; false when h is none. */
bool tdt_dataset_size(const acltdtDataset *h, size_t *out);
const char *tdt_dataset_name(const acltdtDataset *h);
bool tdt_dataset_live(const acltdtDataset *h);

/* Copies size bytes from src to dst, either of them host memory or device
 * memory (of ACL's or of a CUDA allocator the backend knows): device
 * memory goes through the copy path. site: the public function's call
 * site. Raises. */
aclError tdt_copy(const char *api, const void *site, void *dst, const void *src, size_t size);

/* Packs a dataset's items into a new record (malloc'd; free). site: the
 * public function's call site, for copies out of device memory. Raises. */
aclError tdt_dataset_pack(const char *api, const void *site, const acltdtDataset *set,
                          tdt_record **out);
/* Checks that a dataset may receive (it holds no items the user added).
 * Raises. */
aclError tdt_dataset_can_receive(const char *api, const acltdtDataset *set);
/* Replaces the dataset's items with rec's; the dataset takes rec (freed
 * here on failure). A record that does not parse is refused. Raises. */
aclError tdt_dataset_unpack(const char *api, acltdtDataset *set, tdt_record *rec);

#endif
