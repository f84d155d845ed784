/* Tensor data transfer: items, datasets, records (see tdt_data.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/copy.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/tdt_data.h"

#define RECORD_MAGIC 0x54445452u /* "TDTR" */

typedef struct tdt_item {
    object obj;
    acltdtTensorType tensor_type;
    aclDataType data_type;
    size_t dim_num, size, slice_num, slice_id;
    void *data;
    int64_t dims[];
} tdt_item;

typedef struct tdt_dataset {
    object obj;
    pthread_mutex_t lock; /* the item list */
    void **items;         /* item handles */
    size_t count, cap;
    tdt_record *received; /* what the received items refer into; the items are ours then */
    char name[1];         /* CANN names datasets only on the device side: always "" */
} tdt_dataset;

/* One item's fixed part in a record. */
typedef struct record_item {
    int32_t tensor_type, data_type;
    uint32_t dim_num, spare;
    uint64_t slice_num, slice_id, size;
} record_item;

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void item_free(object *o)
{
    free(o);
}

aclError tdt_item_create(acltdtTensorType type, const int64_t *dims, size_t dim_num,
                         aclDataType data_type, void *data, size_t size, acltdtDataItem **out)
{
    tdt_item *it = calloc(1, sizeof *it + dim_num * sizeof(int64_t));
    if (it == NULL)
        return ACL_ERROR_BAD_ALLOC;
    it->tensor_type = type;
    it->data_type = data_type;
    it->dim_num = dim_num;
    it->data = data;
    it->size = size;
    if (dim_num > 0)
        memcpy(it->dims, dims, dim_num * sizeof(int64_t));
    aclError ret = handle_publish(&it->obj, HANDLE_TDT_ITEM, item_free);
    if (ret != ACL_SUCCESS) {
        free(it);
        return ret;
    }
    *out = handle_of(&it->obj);
    return ACL_SUCCESS;
}

aclError tdt_item_destroy(acltdtDataItem *h)
{
    object *o = handle_take(h, HANDLE_TDT_ITEM);
    if (o == NULL)
        return ACL_ERROR_INVALID_PARAM;
    object_put(o);
    return ACL_SUCCESS;
}

bool tdt_item_info_get(const acltdtDataItem *h, tdt_item_info *out)
{
    tdt_item *it = (tdt_item *)handle_get(h, HANDLE_TDT_ITEM);
    if (it == NULL)
        return false;
    *out = (tdt_item_info){.tensor_type = it->tensor_type,
                           .data_type = it->data_type,
                           .data = it->data,
                           .size = it->size,
                           .dim_num = it->dim_num,
                           .slice_num = it->slice_num,
                           .slice_id = it->slice_id};
    object_put(&it->obj);
    return true;
}

aclError tdt_item_dims(const char *api, const acltdtDataItem *h, int64_t *dims, size_t dim_num)
{
    tdt_item *it = (tdt_item *)handle_get(h, HANDLE_TDT_ITEM);
    if (it == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "dataItem %p is not a live data item",
                         (const void *)h);
    aclError ret = ACL_SUCCESS;
    if (dim_num < it->dim_num)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "dimNum %zu is less than the item's %zu dimensions", dim_num, it->dim_num);
    else if (it->dim_num > 0)
        memcpy(dims, it->dims, it->dim_num * sizeof(int64_t));
    object_put(&it->obj);
    return ret;
}

/* ---- datasets ---------------------------------------------------------------------- */

/* Destroys the received items and record (under the dataset's lock). */
static void drop_received(tdt_dataset *d)
{
    if (d->received == NULL)
        return;
    for (size_t i = 0; i < d->count; i++)
        (void)tdt_item_destroy(d->items[i]);
    d->count = 0;
    free(d->received);
    d->received = NULL;
}

static void dataset_free(object *o)
{
    tdt_dataset *d = (tdt_dataset *)o;
    pthread_mutex_destroy(&d->lock);
    free(d->items);
    free(d);
}

aclError tdt_dataset_create(acltdtDataset **out)
{
    tdt_dataset *d = calloc(1, sizeof *d);
    if (d == NULL)
        return ACL_ERROR_BAD_ALLOC;
    pthread_mutex_init(&d->lock, NULL);
    aclError ret = handle_publish(&d->obj, HANDLE_TDT_DATASET, dataset_free);
    if (ret != ACL_SUCCESS) {
        dataset_free(&d->obj);
        return ret;
    }
    *out = handle_of(&d->obj);
    return ACL_SUCCESS;
}

aclError tdt_dataset_destroy(acltdtDataset *h)
{
    tdt_dataset *d = (tdt_dataset *)handle_take(h, HANDLE_TDT_DATASET);
    if (d == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&d->lock);
    drop_received(d);
    pthread_mutex_unlock(&d->lock);
    object_put(&d->obj);
    return ACL_SUCCESS;
}

static tdt_dataset *dataset_get(const char *api, const acltdtDataset *h)
{
    tdt_dataset *d = (tdt_dataset *)handle_get(h, HANDLE_TDT_DATASET);
    if (d == NULL)
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM, "dataset %p is not a live dataset",
                        (const void *)h);
    return d;
}

aclError tdt_dataset_add(const char *api, acltdtDataset *set, acltdtDataItem *item)
{
    tdt_dataset *d = dataset_get(api, set);
    if (d == NULL)
        return ACL_ERROR_INVALID_PARAM;
    tdt_item *it = (tdt_item *)handle_get(item, HANDLE_TDT_ITEM);
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&d->lock);
    if (it == NULL) {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "dataItem %p is not a live data item",
                        (void *)item);
    } else if (d->received != NULL) {
        ret = acl_raise(api, ACL_ERROR_FEATURE_UNSUPPORTED,
                        "the dataset holds received items: items cannot be added to it");
    } else if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        void **grown = realloc(d->items, cap * sizeof *grown);
        if (grown == NULL) {
            ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
        } else {
            d->items = grown;
            d->cap = cap;
        }
    }
    if (ret == ACL_SUCCESS)
        d->items[d->count++] = item;
    pthread_mutex_unlock(&d->lock);
    if (it != NULL)
        object_put(&it->obj);
    object_put(&d->obj);
    return ret;
}

acltdtDataItem *tdt_dataset_item(const char *api, const acltdtDataset *set, size_t index)
{
    tdt_dataset *d = dataset_get(api, set);
    if (d == NULL)
        return NULL;
    pthread_mutex_lock(&d->lock);
    size_t count = d->count;
    acltdtDataItem *item = index < count ? d->items[index] : NULL;
    pthread_mutex_unlock(&d->lock);
    object_put(&d->obj);
    if (item == NULL)
        (void)acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "index %zu is not below the dataset's %zu items", index, count);
    return item;
}

bool tdt_dataset_size(const acltdtDataset *h, size_t *out)
{
    tdt_dataset *d = (tdt_dataset *)handle_get(h, HANDLE_TDT_DATASET);
    if (d == NULL)
        return false;
    pthread_mutex_lock(&d->lock);
    *out = d->count;
    pthread_mutex_unlock(&d->lock);
    object_put(&d->obj);
    return true;
}

const char *tdt_dataset_name(const acltdtDataset *h)
{
    tdt_dataset *d = (tdt_dataset *)handle_get(h, HANDLE_TDT_DATASET);
    if (d == NULL)
        return NULL;
    const char *name = d->name; /* constant for the dataset's life */
    object_put(&d->obj);
    return name;
}

bool tdt_dataset_live(const acltdtDataset *h)
{
    object *o = handle_get(h, HANDLE_TDT_DATASET);
    if (o != NULL)
        object_put(o);
    return o != NULL;
}

aclError tdt_copy(const char *api, const void *site, void *dst, const void *src, size_t size)
{
    if (size == 0)
        return ACL_SUCCESS;
    mem_block from, to;
    memory_locate(src, &from);
    memory_locate(dst, &to);
    if (from.kind != MEM_DEVICE && to.kind != MEM_DEVICE) {
        memcpy(dst, src, size);
        return ACL_SUCCESS;
    }
    acl_context *ctx;
    aclError ret = current_context_get(api, &ctx);
    if (ret != ACL_SUCCESS)
        return ret;
    aclrtMemcpyKind kind = from.kind != MEM_DEVICE ? ACL_MEMCPY_HOST_TO_DEVICE
                           : to.kind != MEM_DEVICE ? ACL_MEMCPY_DEVICE_TO_HOST
                                                   : ACL_MEMCPY_DEVICE_TO_DEVICE;
    ret = copy_sync(api, site, ctx, dst, src, size, kind);
    context_put(ctx);
    return ret;
}

static aclError copy_out(const char *api, const void *site, void *dst, const void *src, size_t size)
{
    return tdt_copy(api, site, dst, src, size);
}

aclError tdt_dataset_pack(const char *api, const void *site, const acltdtDataset *set,
                          tdt_record **out)
{
    tdt_dataset *d = dataset_get(api, set);
    if (d == NULL)
        return ACL_ERROR_INVALID_PARAM;
    aclError ret = ACL_SUCCESS;
    tdt_record *rec = NULL;
    pthread_mutex_lock(&d->lock);
    size_t count = d->count;
    tdt_item **items = calloc(count ? count : 1, sizeof *items);
    size_t len = 8, got = 0;
    if (items == NULL)
        ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    for (; ret == ACL_SUCCESS && got < count; got++) {
        items[got] = (tdt_item *)handle_get(d->items[got], HANDLE_TDT_ITEM);
        if (items[got] == NULL) {
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "item %zu of the dataset (%p) was destroyed", got, d->items[got]);
            break;
        }
        const tdt_item *it = items[got];
        if (it->size > 0 && it->data == NULL)
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "item %zu has %zu bytes at NULL", got,
                            it->size);
        len += sizeof(record_item) + it->dim_num * sizeof(int64_t) + pad8(it->size);
    }
    pthread_mutex_unlock(&d->lock);
    if (ret == ACL_SUCCESS && (rec = malloc(sizeof *rec + len)) == NULL)
        ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory for a record of %zu bytes", len);
    if (ret == ACL_SUCCESS) {
        rec->len = len;
        unsigned char *p = rec->bytes;
        uint32_t head[2] = {RECORD_MAGIC, (uint32_t)count};
        memcpy(p, head, sizeof head);
        p += sizeof head;
        for (size_t i = 0; i < count && ret == ACL_SUCCESS; i++) {
            const tdt_item *it = items[i];
            record_item ri = {.tensor_type = it->tensor_type,
                              .data_type = it->data_type,
                              .dim_num = (uint32_t)it->dim_num,
                              .slice_num = it->slice_num,
                              .slice_id = it->slice_id,
                              .size = it->size};
            memcpy(p, &ri, sizeof ri);
            p += sizeof ri;
            memcpy(p, it->dims, it->dim_num * sizeof(int64_t));
            p += it->dim_num * sizeof(int64_t);
            ret = copy_out(api, site, p, it->data, it->size);
            p += pad8(it->size);
        }
    }
    for (size_t i = 0; i < got && items != NULL; i++)
        if (items[i] != NULL)
            object_put(&items[i]->obj);
    free(items);
    object_put(&d->obj);
    if (ret != ACL_SUCCESS) {
        free(rec);
        return ret;
    }
    *out = rec;
    return ACL_SUCCESS;
}

aclError tdt_dataset_can_receive(const char *api, const acltdtDataset *set)
{
    tdt_dataset *d = dataset_get(api, set);
    if (d == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&d->lock);
    bool added = d->count > 0 && d->received == NULL;
    pthread_mutex_unlock(&d->lock);
    object_put(&d->obj);
    if (added)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the dataset holds items added with acltdtAddDataItem: receive into an "
                         "empty dataset");
    return ACL_SUCCESS;
}

/* Parses rec into items (handles in out, count of them in *n). */
static aclError parse(const tdt_record *rec, void ***out, size_t *n)
{
    const unsigned char *p = rec->bytes, *end = rec->bytes + rec->len;
    uint32_t head[2];
    if (rec->len < sizeof head)
        return ACL_ERROR_INVALID_PARAM;
    memcpy(head, p, sizeof head);
    p += sizeof head;
    if (head[0] != RECORD_MAGIC || head[1] > (rec->len - 8) / sizeof(record_item))
        return ACL_ERROR_INVALID_PARAM;
    void **items = calloc(head[1] ? head[1] : 1, sizeof *items);
    if (items == NULL)
        return ACL_ERROR_BAD_ALLOC;
    aclError ret = ACL_SUCCESS;
    size_t made = 0;
    for (; made < head[1]; made++) {
        record_item ri;
        if ((size_t)(end - p) < sizeof ri) {
            ret = ACL_ERROR_INVALID_PARAM;
            break;
        }
        memcpy(&ri, p, sizeof ri);
        p += sizeof ri;
        size_t dims_len = (size_t)ri.dim_num * sizeof(int64_t);
        if (ri.dim_num > TDT_DIM_MAX || (size_t)(end - p) < dims_len ||
            ri.size > (size_t)(end - p) - dims_len ||
            pad8(ri.size) > (size_t)(end - p) - dims_len) {
            ret = ACL_ERROR_INVALID_PARAM;
            break;
        }
        int64_t dims[TDT_DIM_MAX];
        memcpy(dims, p, dims_len);
        p += dims_len;
        ret = tdt_item_create((acltdtTensorType)ri.tensor_type, dims, ri.dim_num,
                              (aclDataType)ri.data_type, ri.size ? (void *)p : NULL, ri.size,
                              (acltdtDataItem **)&items[made]);
        if (ret != ACL_SUCCESS)
            break;
        tdt_item *it = (tdt_item *)handle_get(items[made], HANDLE_TDT_ITEM);
        it->slice_num = ri.slice_num;
        it->slice_id = ri.slice_id;
        object_put(&it->obj);
        p += pad8(ri.size);
    }
    if (ret != ACL_SUCCESS) {
        for (size_t i = 0; i < made; i++)
            (void)tdt_item_destroy(items[i]);
        free(items);
        return ret;
    }
    *out = items;
    *n = made;
    return ACL_SUCCESS;
}

aclError tdt_dataset_unpack(const char *api, acltdtDataset *set, tdt_record *rec)
{
    tdt_dataset *d = dataset_get(api, set);
    if (d == NULL) {
        free(rec);
        return ACL_ERROR_INVALID_PARAM;
    }
    void **items = NULL;
    size_t n = 0;
    aclError ret = parse(rec, &items, &n);
    if (ret != ACL_SUCCESS) {
        free(rec);
        object_put(&d->obj);
        return acl_raise(api, ret == ACL_ERROR_BAD_ALLOC ? ret : ACL_ERROR_FAILURE,
                         "the received data does not parse as a dataset");
    }
    pthread_mutex_lock(&d->lock);
    drop_received(d);
    free(d->items);
    d->items = items;
    d->count = d->cap = n;
    d->received = rec;
    pthread_mutex_unlock(&d->lock);
    object_put(&d->obj);
    return ACL_SUCCESS;
}
