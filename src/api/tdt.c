/* Tensor data transfer (acl_tdt.h): data items, datasets and channels. The
 * rules are in core/tdt_data.h and core/tdt_channel.h; this file checks
 * arguments in CANN's order. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_tdt.h"
#include "api/api.h"
#include "core/prof.h"
#include "core/device.h"
#include "core/undefined.h"
#include "core/tdt_channel.h"
#include "core/tdt_data.h"

static const char *item_missing(const acltdtDataItem *item)
{
    return item == NULL ? "dataItem is NULL" : "dataItem is not a live data item";
}

ACL_EXPORT acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem)
{
    PROF_API();
    tdt_item_info info;
    if (!tdt_item_info_get(dataItem, &info)) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", item_missing(dataItem));
        return ACL_TENSOR_DATA_UNDEFINED;
    }
    return info.tensor_type;
}

ACL_EXPORT aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem)
{
    PROF_API();
    tdt_item_info info;
    if (!tdt_item_info_get(dataItem, &info)) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", item_missing(dataItem));
        return ACL_DT_UNDEFINED;
    }
    return info.data_type;
}

ACL_EXPORT void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem)
{
    PROF_API();
    tdt_item_info info;
    if (!tdt_item_info_get(dataItem, &info)) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", item_missing(dataItem));
        return NULL;
    }
    return info.data;
}

ACL_EXPORT size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem)
{
    PROF_API();
    tdt_item_info info;
    if (!tdt_item_info_get(dataItem, &info)) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", item_missing(dataItem));
        return 0;
    }
    return info.size;
}

ACL_EXPORT size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem)
{
    PROF_API();
    tdt_item_info info;
    if (!tdt_item_info_get(dataItem, &info)) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", item_missing(dataItem));
        return 0;
    }
    return info.dim_num;
}

ACL_EXPORT aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum,
                                               size_t *sliceId)
{
    PROF_API();
    if (dataItem == NULL || sliceNum == NULL || sliceId == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         dataItem == NULL   ? "dataItem"
                         : sliceNum == NULL ? "sliceNum"
                                            : "sliceId");
    tdt_item_info info;
    if (!tdt_item_info_get(dataItem, &info))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s", item_missing(dataItem));
    *sliceNum = info.slice_num;
    *sliceId = info.slice_id;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims,
                                          size_t dimNum)
{
    PROF_API();
    if (dataItem == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataItem is NULL");
    if ((dims == NULL) != (dimNum == 0))
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "dims %s NULL with dimNum %zu: a NULL dims goes with dimNum 0 only",
                         dims == NULL ? "is" : "is not", dimNum);
    return tdt_item_dims(__func__, dataItem, dims, dimNum);
}

ACL_EXPORT acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims,
                                                size_t dimNum, aclDataType dataType, void *data,
                                                size_t size)
{
    PROF_API();
    if ((dims == NULL) != (dimNum == 0)) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                        "dims %s NULL with dimNum %zu: a NULL dims goes with dimNum 0 only",
                        dims == NULL ? "is" : "is not", dimNum);
        return NULL;
    }
    if (dimNum > TDT_DIM_MAX) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dimNum %zu exceeds %d", dimNum, TDT_DIM_MAX);
        return NULL;
    }
    if (tdtType < ACL_TENSOR_DATA_TENSOR || tdtType > ACL_TENSOR_DATA_END_TENSOR) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "tdtType %d is not an acltdtTensorType",
                        (int)tdtType);
        return NULL;
    }
    acltdtDataItem *item = NULL;
    aclError ret;
    /* A marker carries no tensor, as CANN makes it. */
    if (tdtType != ACL_TENSOR_DATA_TENSOR) {
        if (dims != NULL) {
            (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dims must be NULL for tdtType %d",
                            (int)tdtType);
            return NULL;
        }
        ret = tdt_item_create(tdtType, NULL, 0, ACL_DT_UNDEFINED, NULL, 0, &item);
    } else {
        if (data == NULL && size != 0) {
            (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "data is NULL with size %zu", size);
            return NULL;
        }
        ret = tdt_item_create(tdtType, dims, dimNum, dataType, data, size, &item);
    }
    if (ret != ACL_SUCCESS)
        (void)ACL_RAISE(ret, "cannot make a data item");
    return item;
}

ACL_EXPORT aclError acltdtDestroyDataItem(acltdtDataItem *dataItem)
{
    PROF_API();
    if (dataItem == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataItem is NULL");
    if (tdt_item_destroy(dataItem) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataItem %p is not a live data item",
                         (void *)dataItem);
    return ACL_SUCCESS;
}

ACL_EXPORT acltdtDataset *acltdtCreateDataset(void)
{
    PROF_API();
    acltdtDataset *set = NULL;
    aclError ret = tdt_dataset_create(&set);
    if (ret != ACL_SUCCESS)
        (void)ACL_RAISE(ret, "cannot make a dataset");
    return set;
}

ACL_EXPORT aclError acltdtDestroyDataset(acltdtDataset *dataset)
{
    PROF_API();
    if (dataset == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataset is NULL");
    if (tdt_dataset_destroy(dataset) != ACL_SUCCESS)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataset %p is not a live dataset",
                         (void *)dataset);
    return ACL_SUCCESS;
}

ACL_EXPORT acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index)
{
    PROF_API();
    if (dataset == NULL) {
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataset is NULL");
        return NULL;
    }
    return tdt_dataset_item(__func__, dataset, index);
}

ACL_EXPORT aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem)
{
    PROF_API();
    if (dataset == NULL || dataItem == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         dataset == NULL ? "dataset" : "dataItem");
    return tdt_dataset_add(__func__, dataset, dataItem);
}

ACL_EXPORT size_t acltdtGetDatasetSize(const acltdtDataset *dataset)
{
    PROF_API();
    size_t n = 0;
    if (!tdt_dataset_size(dataset, &n))
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataset %s",
                        dataset == NULL ? "is NULL" : "is not a live dataset");
    return n;
}

ACL_EXPORT const char *acltdtGetDatasetName(const acltdtDataset *dataset)
{
    PROF_API();
    const char *name = tdt_dataset_name(dataset);
    if (name == NULL)
        (void)ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dataset %s",
                        dataset == NULL ? "is NULL" : "is not a live dataset");
    return name;
}

/* ---- channels ------------------------------------------------------------------------ */

ACL_EXPORT aclError acltdtStopChannel(acltdtChannelHandle *handle)
{
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    return tdt_channel_stop(__func__, handle);
}

static acltdtChannelHandle *open_channel(const char *api, uint32_t deviceId, const char *name,
                                         size_t capacity)
{
    if (name == NULL) {
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM, "name is NULL");
        return NULL;
    }
    if (strnlen(name, TDT_NAME_MAX) >= TDT_NAME_MAX) {
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM, "name is %d bytes or longer (at most %d)",
                        TDT_NAME_MAX, TDT_NAME_MAX - 1);
        return NULL;
    }
    if (deviceId >= (uint32_t)device_visible_count()) {
        (void)acl_raise(api, ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist (%d visible)",
                        deviceId, (int)device_visible_count());
        return NULL;
    }
    if (capacity < TDT_CAPACITY_MIN || capacity > TDT_CAPACITY_MAX) {
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM, "capacity %zu is outside [%d, %d]", capacity,
                        TDT_CAPACITY_MIN, TDT_CAPACITY_MAX);
        return NULL;
    }
    acltdtChannelHandle *h = NULL;
    (void)tdt_channel_open(api, deviceId, name, capacity, &h);
    return h;
}

ACL_EXPORT acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name)
{
    PROF_API();
    return open_channel(__func__, deviceId, name, TDT_CAPACITY_DEFAULT);
}

ACL_EXPORT acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name,
                                                                size_t capacity)
{
    PROF_API();
    return open_channel(__func__, deviceId, name, capacity);
}

ACL_EXPORT aclError acltdtDestroyChannel(acltdtChannelHandle *handle)
{
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    return tdt_channel_close(__func__, handle);
}

ACL_EXPORT aclError acltdtCleanChannel(acltdtChannelHandle *handle)
{
    PROF_API();
    if (handle == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    return tdt_channel_clean(__func__, handle);
}

static aclError check_timeout(const char *api, int32_t timeout)
{
    if (timeout < -1)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "timeout %d: -1 waits for ever, 0 not at all, more is milliseconds",
                         (int)timeout);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError acltdtSendTensor(const acltdtChannelHandle *handle,
                                     const acltdtDataset *dataset, int32_t timeout)
{
    PROF_API();
    if (handle == NULL || dataset == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         handle == NULL ? "handle" : "dataset");
    aclError ret = check_timeout(__func__, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    tdt_record *rec;
    ret = tdt_dataset_pack(__func__, CALL_SITE(), dataset, &rec);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = tdt_channel_send(__func__, handle, rec, timeout);
    if (ret != ACL_SUCCESS)
        free(rec);
    return ret;
}

ACL_EXPORT aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset,
                                        int32_t timeout)
{
    PROF_API();
    if (handle == NULL || dataset == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         handle == NULL ? "handle" : "dataset");
    aclError ret = check_timeout(__func__, timeout);
    if (ret == ACL_SUCCESS)
        ret = tdt_dataset_can_receive(__func__, dataset);
    if (ret != ACL_SUCCESS)
        return ret;
    tdt_record *rec;
    ret = tdt_channel_receive(__func__, handle, &rec, timeout);
    if (ret != ACL_SUCCESS)
        return ret;
    return tdt_dataset_unpack(__func__, dataset, rec);
}

ACL_EXPORT aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size)
{
    PROF_API();
    if (handle == NULL || size == NULL)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "size");
    return tdt_channel_size(__func__, handle, size);
}
