/*
 * acl-cuda: tensor data transfer channels (AscendCL's acl_tdt.h).
 *
 * A channel, named by a device id and a string, carries datasets: ordered
 * lists of data items, each a tensor (its data type, dimensions and bytes)
 * or a marker (end of sequence, abnormal data, a slice of a tensor, the
 * last slice). A sender blocks while the channel is full, a receiver while
 * it is empty, each for at most the timeout it gives (milliseconds; -1
 * waits for ever, 0 not at all). On acl-cuda a channel lives in the process
 * that creates it and connects the threads of that process (docs/porting.md,
 * "Data channels and queues").
 */
#ifndef ACLCUDA_ACL_TDT_H
#define ACLCUDA_ACL_TDT_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a data item carries. */
enum acltdtTensorType {
    ACL_TENSOR_DATA_UNDEFINED = -1,
    ACL_TENSOR_DATA_TENSOR,
    ACL_TENSOR_DATA_END_OF_SEQUENCE,
    ACL_TENSOR_DATA_ABNORMAL,
    ACL_TENSOR_DATA_SLICE_TENSOR,
    ACL_TENSOR_DATA_END_TENSOR
};
/* C++ names the enum without the tag; C needs the typedef. */
typedef enum acltdtTensorType acltdtTensorType;

typedef struct acltdtDataItem acltdtDataItem;
typedef struct acltdtDataset acltdtDataset;
typedef struct acltdtChannelHandle acltdtChannelHandle;

/* A data item's fields; the getters answer ACL_TENSOR_DATA_UNDEFINED,
 * ACL_DT_UNDEFINED, NULL or 0 for a NULL item. */
ACL_FUNC_VISIBILITY acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem);
/* How many slices the tensor was cut into, and which one this item is. */
ACL_FUNC_VISIBILITY aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum,
                                                        size_t *sliceId);
/* Copies the item's dimensions into dims, which holds dimNum of them. */
ACL_FUNC_VISIBILITY aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims,
                                                   size_t dimNum);

/* An item that refers to size bytes at data (not copied: they must stay
 * valid until the item is sent); NULL on failure. */
ACL_FUNC_VISIBILITY acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims,
                                                         size_t dimNum, aclDataType dataType, void *data,
                                                         size_t size);
ACL_FUNC_VISIBILITY aclError acltdtDestroyDataItem(acltdtDataItem *dataItem);

/* A dataset: the items to send, or, after a receive, the items received
 * (which the dataset then owns). */
ACL_FUNC_VISIBILITY acltdtDataset *acltdtCreateDataset(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyDataset(acltdtDataset *dataset);
ACL_FUNC_VISIBILITY acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index);
ACL_FUNC_VISIBILITY aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDatasetSize(const acltdtDataset *dataset);
ACL_FUNC_VISIBILITY const char *acltdtGetDatasetName(const acltdtDataset *dataset);

/* Wakes the threads blocked in the channel; later sends fail. */
ACL_FUNC_VISIBILITY aclError acltdtStopChannel(acltdtChannelHandle *handle);
/* A channel of deviceId named name; NULL on failure. */
ACL_FUNC_VISIBILITY acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name);
/* The same, holding at most capacity datasets. */
ACL_FUNC_VISIBILITY acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId,
                                                                         const char *name,
                                                                         size_t capacity);
ACL_FUNC_VISIBILITY aclError acltdtDestroyChannel(acltdtChannelHandle *handle);
/* Drops every dataset the channel holds. */
ACL_FUNC_VISIBILITY aclError acltdtCleanChannel(acltdtChannelHandle *handle);
/* Sends a dataset, waiting at most timeout ms while the channel is full. */
ACL_FUNC_VISIBILITY aclError acltdtSendTensor(const acltdtChannelHandle *handle,
                                              const acltdtDataset *dataset, int32_t timeout);
/* Receives a dataset, waiting at most timeout ms while the channel is empty. */
ACL_FUNC_VISIBILITY aclError acltdtReceiveTensor(const acltdtChannelHandle *handle,
                                                 acltdtDataset *dataset, int32_t timeout);
/* How many datasets the channel holds. */
ACL_FUNC_VISIBILITY aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
