/* Tensor data transfer (acl_tdt.h): data items, datasets and channels
 * between threads: order, capacity, timeouts, stop and destroy. */
#include <stdatomic.h>
#include <stdint.h>

#include "acl/acl_tdt.h"
#include "compat.h"
#include "bad_args.h"

static acltdtDataset *one_item_set(int64_t value, acltdtDataItem **item_out, int64_t *storage)
{
    *storage = value;
    int64_t dims[1] = {1};
    acltdtDataItem *item =
        acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_INT64, storage, sizeof *storage);
    ck_assert_ptr_nonnull(item);
    acltdtDataset *set = acltdtCreateDataset();
    ck_assert_ptr_nonnull(set);
    ACL_OK(acltdtAddDataItem(set, item));
    *item_out = item;
    return set;
}

static void free_set(acltdtDataset *set, acltdtDataItem *item)
{
    ACL_OK(acltdtDestroyDataset(set));
    if (item != NULL)
        ACL_OK(acltdtDestroyDataItem(item));
}

static int64_t received_value(acltdtDataset *set)
{
    ck_assert_uint_eq(acltdtGetDatasetSize(set), 1);
    acltdtDataItem *item = acltdtGetDataItem(set, 0);
    ck_assert_ptr_nonnull(item);
    ck_assert_uint_eq(acltdtGetDataSizeFromItem(item), sizeof(int64_t));
    int64_t v;
    memcpy(&v, acltdtGetDataAddrFromItem(item), sizeof v);
    return v;
}

static void send_value(acltdtChannelHandle *ch, int64_t value, int32_t timeout, aclError want)
{
    acltdtDataItem *item;
    int64_t storage;
    acltdtDataset *set = one_item_set(value, &item, &storage);
    ck_assert_int_eq(acltdtSendTensor(ch, set, timeout), want);
    free_set(set, item);
}

COMPAT_TEST(test_tdt_round_trip_every_type,
            "a dataset sent keeps its items' tensor types, data types, dims and bytes, for every "
            "aclDataType; markers carry no tensor",
            "API ref acltdtCreateDataItem, acltdtSendTensor, acltdtReceiveTensor, "
            "acltdtGetDimsFromItem")
{
    static const aclDataType types[] = {
        ACL_FLOAT,       ACL_FLOAT16,       ACL_INT8,        ACL_INT32,       ACL_UINT8,
        ACL_INT16,       ACL_UINT16,        ACL_UINT32,      ACL_INT64,       ACL_UINT64,
        ACL_DOUBLE,      ACL_BOOL,          ACL_STRING,      ACL_COMPLEX64,   ACL_COMPLEX128,
        ACL_BF16,        ACL_INT4,          ACL_UINT1,       ACL_COMPLEX32,   ACL_HIFLOAT8,
        ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E8M0, ACL_FLOAT6_E3M2, ACL_FLOAT6_E2M3,
        ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2,   ACL_DT_UNDEFINED};
    enum { N = sizeof types / sizeof types[0] };
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "compat-types", 4);
    ck_assert_ptr_nonnull(ch);
    unsigned char bytes[N][24];
    acltdtDataItem *items[N + 1];
    acltdtDataset *set = acltdtCreateDataset();
    for (size_t i = 0; i < N; i++) {
        for (size_t b = 0; b < sizeof bytes[i]; b++)
            bytes[i][b] = (unsigned char)(i * 31 + b);
        int64_t dims[3] = {2, (int64_t)i + 1, 3};
        items[i] = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 3, types[i], bytes[i],
                                        sizeof bytes[i] - (i % 3));
        ck_assert_ptr_nonnull(items[i]);
        ACL_OK(acltdtAddDataItem(set, items[i]));
    }
    items[N] = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_FLOAT, NULL, 0);
    ck_assert_ptr_nonnull(items[N]);
    ACL_OK(acltdtAddDataItem(set, items[N]));
    ACL_OK(acltdtSendTensor(ch, set, -1));
    memset(bytes, 0, sizeof bytes); /* the send copied them */
    acltdtDataset *got = acltdtCreateDataset();
    ACL_OK(acltdtReceiveTensor(ch, got, 0));
    ck_assert_uint_eq(acltdtGetDatasetSize(got), N + 1);
    for (size_t i = 0; i < N; i++) {
        acltdtDataItem *it = acltdtGetDataItem(got, i);
        ck_assert_int_eq(acltdtGetTensorTypeFromItem(it), ACL_TENSOR_DATA_TENSOR);
        ck_assert_int_eq(acltdtGetDataTypeFromItem(it), types[i]);
        ck_assert_uint_eq(acltdtGetDimNumFromItem(it), 3);
        int64_t dims[4] = {0};
        ACL_OK(acltdtGetDimsFromItem(it, dims, 4));
        ck_assert_int_eq(dims[1], (int64_t)i + 1);
        ck_assert_uint_eq(acltdtGetDataSizeFromItem(it), 24 - (i % 3));
        const unsigned char *data = acltdtGetDataAddrFromItem(it);
        for (size_t b = 0; b < 24 - (i % 3); b++)
            ck_assert_uint_eq(data[b], (unsigned char)(i * 31 + b));
        size_t slice_num = 9, slice_id = 9;
        ACL_OK(acltdtGetSliceInfoFromItem(it, &slice_num, &slice_id));
        ck_assert_uint_eq(slice_num, 0);
        ck_assert_uint_eq(slice_id, 0);
    }
    acltdtDataItem *end = acltdtGetDataItem(got, N);
    ck_assert_int_eq(acltdtGetTensorTypeFromItem(end), ACL_TENSOR_DATA_END_OF_SEQUENCE);
    ck_assert_uint_eq(acltdtGetDataSizeFromItem(end), 0);
    ck_assert_str_eq(acltdtGetDatasetName(got), "");
    ACL_OK(acltdtDestroyDataset(got));
    for (size_t i = 0; i <= N; i++)
        ACL_OK(acltdtDestroyDataItem(items[i]));
    ACL_OK(acltdtDestroyDataset(set));
    ACL_OK(acltdtDestroyChannel(ch));
}

COMPAT_TEST(test_tdt_device_memory_item,
            "an item's data may be device memory: the receiver gets its bytes",
            "API ref acltdtAddDataItem (host or device memory in a dataset)")
{
    unsigned char host[512];
    for (int i = 0; i < 512; i++)
        host[i] = (unsigned char)(i * 7);
    void *dev = compat_device_buffer(512);
    ACL_OK(aclrtMemcpy(dev, 512, host, 512, ACL_MEMCPY_HOST_TO_DEVICE));
    int64_t dims[1] = {512};
    acltdtDataItem *item =
        acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_UINT8, dev, 512);
    acltdtDataset *set = acltdtCreateDataset();
    ACL_OK(acltdtAddDataItem(set, item));
    acltdtChannelHandle *ch = acltdtCreateChannel(0, "compat-device");
    ck_assert_ptr_nonnull(ch);
    ACL_OK(acltdtSendTensor(ch, set, 0));
    acltdtDataset *got = acltdtCreateDataset();
    ACL_OK(acltdtReceiveTensor(ch, got, 0));
    ck_assert_int_eq(memcmp(acltdtGetDataAddrFromItem(acltdtGetDataItem(got, 0)), host, 512), 0);
    ACL_OK(acltdtDestroyDataset(got));
    free_set(set, item);
    ACL_OK(acltdtDestroyChannel(ch));
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(
    test_tdt_capacity_and_timeouts,
    "a full channel refuses a send with timeout 0 (ACL_ERROR_RT_QUEUE_FULL) and after a "
    "timeout > 0; an empty one a receive (ACL_ERROR_RT_QUEUE_EMPTY); acltdtQueryChannelSize "
    "counts the datasets held; acltdtCleanChannel drops them",
    "API ref acltdtSendTensor, acltdtReceiveTensor (timeout -1, 0, > 0), "
    "acltdtCreateChannelWithCapacity, acltdtQueryChannelSize, acltdtCleanChannel")
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "compat-capacity", 3);
    ck_assert_ptr_nonnull(ch);
    size_t size = 9;
    ACL_OK(acltdtQueryChannelSize(ch, &size));
    ck_assert_uint_eq(size, 0);
    acltdtDataset *got = acltdtCreateDataset();
    ck_assert_int_eq(acltdtReceiveTensor(ch, got, 0), ACL_ERROR_RT_QUEUE_EMPTY);
    ck_assert_int_eq(acltdtReceiveTensor(ch, got, 20), ACL_ERROR_RT_QUEUE_EMPTY);
    for (int i = 0; i < 3; i++)
        send_value(ch, i, 0, ACL_SUCCESS);
    ACL_OK(acltdtQueryChannelSize(ch, &size));
    ck_assert_uint_eq(size, 3);
    send_value(ch, 3, 0, ACL_ERROR_RT_QUEUE_FULL);
    send_value(ch, 3, 20, ACL_ERROR_RT_QUEUE_FULL);
    for (int i = 0; i < 2; i++) {
        ACL_OK(acltdtReceiveTensor(ch, got, -1));
        ck_assert_int_eq(received_value(got), i);
    }
    ACL_OK(acltdtCleanChannel(ch));
    ACL_OK(acltdtQueryChannelSize(ch, &size));
    ck_assert_uint_eq(size, 0);
    ACL_OK(acltdtDestroyDataset(got));
    ACL_OK(acltdtDestroyChannel(ch));
}

typedef struct pc_args {
    acltdtChannelHandle *ch;
    int count;
    aclError ret;
} pc_args;

static void *producer(void *arg)
{
    pc_args *a = arg;
    for (int i = 0; i < a->count && a->ret == ACL_SUCCESS; i++) {
        int64_t storage = i;
        int64_t dims[1] = {1};
        acltdtDataItem *item =
            acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_INT64, &storage, 8);
        acltdtDataset *set = acltdtCreateDataset();
        (void)acltdtAddDataItem(set, item);
        a->ret = acltdtSendTensor(a->ch, set, -1);
        (void)acltdtDestroyDataset(set);
        (void)acltdtDestroyDataItem(item);
    }
    return NULL;
}

COMPAT_TEST(test_tdt_producer_consumer,
            "datasets sent by one thread arrive at another in order through a small channel "
            "(senders block while it is full)",
            "API ref acltdtSendTensor, acltdtReceiveTensor (timeout -1)")
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "compat-pc", 2);
    pc_args a = {ch, 2000, ACL_SUCCESS};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, producer, &a), 0);
    acltdtDataset *got = acltdtCreateDataset();
    for (int i = 0; i < a.count; i++) {
        ACL_OK(acltdtReceiveTensor(ch, got, -1));
        ck_assert_int_eq(received_value(got), i);
    }
    pthread_join(t, NULL);
    ACL_OK(a.ret);
    ACL_OK(acltdtDestroyDataset(got));
    ACL_OK(acltdtDestroyChannel(ch));
}

/* A thread blocked in a receive or a send on the handle in `ch`: it retries
 * on a handle the main thread destroyed before the thread got in (the main
 * thread then publishes a new one). */
typedef struct blocked_args {
    _Atomic(acltdtChannelHandle *) ch;
    bool send;
    aclError ret;
} blocked_args;

static void *blocked_thread(void *arg)
{
    blocked_args *a = arg;
    acltdtDataset *set = acltdtCreateDataset();
    int64_t storage = 99, dims[1] = {1};
    acltdtDataItem *item =
        acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_INT64, &storage, 8);
    if (a->send)
        (void)acltdtAddDataItem(set, item);
    do {
        acltdtChannelHandle *h = atomic_load(&a->ch);
        a->ret = a->send ? acltdtSendTensor(h, set, -1) : acltdtReceiveTensor(h, set, -1);
    } while (a->ret == ACL_ERROR_INVALID_PARAM);
    (void)acltdtDestroyDataset(set);
    (void)acltdtDestroyDataItem(item);
    return NULL;
}

/* Destroys until a destroy is refused because the thread is blocked in the
 * handle; a destroy that got in first is followed by a fresh handle. */
static void wait_for_blocked(blocked_args *a, const char *name, size_t capacity, int prefill)
{
    for (;;) {
        aclError ret = acltdtDestroyChannel(atomic_load(&a->ch));
        if (ret == ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED)
            return;
        ACL_OK(ret);
        acltdtChannelHandle *h = acltdtCreateChannelWithCapacity(0, name, capacity);
        ck_assert_ptr_nonnull(h);
        for (int i = 0; i < prefill; i++)
            send_value(h, 10 + i, 0, ACL_SUCCESS);
        atomic_store(&a->ch, h);
        usleep(1000);
    }
}

COMPAT_TEST(
    test_tdt_stop_wakes_blocked,
    "acltdtStopChannel wakes a receiver blocked on an empty channel and a sender blocked on "
    "a full one; a destroy while they are blocked fails and loses nothing",
    "API ref acltdtStopChannel (wakes blocked threads), acltdtDestroyChannel")
{
    blocked_args r = {.send = false};
    atomic_store(&r.ch, acltdtCreateChannelWithCapacity(0, "compat-stop-r", 2));
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, blocked_thread, &r), 0);
    wait_for_blocked(&r, "compat-stop-r", 2, 0);
    ACL_OK(acltdtStopChannel(atomic_load(&r.ch)));
    pthread_join(t, NULL);
    ck_assert_int_eq(r.ret, ACL_ERROR_FAILURE);
    ACL_OK(acltdtDestroyChannel(atomic_load(&r.ch)));

    blocked_args w = {.send = true};
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "compat-stop-s", 2);
    send_value(ch, 10, 0, ACL_SUCCESS);
    send_value(ch, 11, 0, ACL_SUCCESS);
    atomic_store(&w.ch, ch);
    ck_assert_int_eq(pthread_create(&t, NULL, blocked_thread, &w), 0);
    wait_for_blocked(&w, "compat-stop-s", 2, 2);
    ch = atomic_load(&w.ch);
    size_t size = 0;
    ACL_OK(acltdtQueryChannelSize(ch, &size));
    ck_assert_uint_eq(size, 2);
    ACL_OK(acltdtStopChannel(ch));
    pthread_join(t, NULL);
    ck_assert_int_eq(w.ret, ACL_ERROR_FAILURE);
    /* What was queued before the stop is still received. */
    acltdtDataset *got = acltdtCreateDataset();
    ACL_OK(acltdtReceiveTensor(ch, got, 0));
    ck_assert_int_eq(received_value(got), 10);
    ACL_OK(acltdtReceiveTensor(ch, got, 0));
    ck_assert_int_eq(received_value(got), 11);
    ck_assert_int_eq(acltdtReceiveTensor(ch, got, 0), ACL_ERROR_FAILURE);
    send_value(ch, 12, 0, ACL_ERROR_FAILURE);
    ACL_OK(acltdtDestroyDataset(got));
    ACL_OK(acltdtDestroyChannel(ch));
}

COMPAT_TEST(test_tdt_same_name_same_channel,
            "two handles of one (device, name) reach one channel; destroying one keeps what the "
            "channel holds for the other",
            "API ref acltdtCreateChannel (a channel is named by device and name)")
{
    acltdtChannelHandle *a = acltdtCreateChannel(0, "compat-shared");
    acltdtChannelHandle *b = acltdtCreateChannel(0, "compat-shared");
    acltdtChannelHandle *other = acltdtCreateChannel(0, "compat-other");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    send_value(a, 42, 0, ACL_SUCCESS);
    ACL_OK(acltdtDestroyChannel(a));
    acltdtDataset *got = acltdtCreateDataset();
    ck_assert_int_eq(acltdtReceiveTensor(other, got, 0), ACL_ERROR_RT_QUEUE_EMPTY);
    ACL_OK(acltdtReceiveTensor(b, got, 0));
    ck_assert_int_eq(received_value(got), 42);
    ACL_OK(acltdtDestroyDataset(got));
    ACL_OK(acltdtDestroyChannel(b));
    ACL_OK(acltdtDestroyChannel(other));
}

COMPAT_TEST(test_tdt_dataset_rules,
            "items cannot be added to a dataset that received; a dataset holding added items "
            "cannot receive; an index past the end gives NULL",
            "[impl] acltdtAddDataItem (freeSelf), TensorDatasetDeserializes")
{
    acltdtChannelHandle *ch = acltdtCreateChannel(0, "compat-rules");
    send_value(ch, 1, 0, ACL_SUCCESS);
    acltdtDataItem *item;
    int64_t storage;
    acltdtDataset *mine = one_item_set(5, &item, &storage);
    ck_assert_int_eq(acltdtReceiveTensor(ch, mine, 0), ACL_ERROR_INVALID_PARAM);
    acltdtDataset *got = acltdtCreateDataset();
    ACL_OK(acltdtReceiveTensor(ch, got, 0));
    ck_assert_int_eq(acltdtAddDataItem(got, item), ACL_ERROR_FEATURE_UNSUPPORTED);
    ck_assert_ptr_null(acltdtGetDataItem(got, 1));
    int64_t dims[1];
    ck_assert_int_eq(acltdtGetDimsFromItem(acltdtGetDataItem(got, 0), dims, 0),
                     ACL_ERROR_INVALID_PARAM);
    ACL_OK(acltdtDestroyDataset(got));
    free_set(mine, item);
    ACL_OK(acltdtDestroyChannel(ch));
}

/* ---- bad arguments ---------------------------------------------------------------- */

static acltdtDataItem *dead_item(void)
{
    acltdtDataItem *it =
        acltdtCreateDataItem(ACL_TENSOR_DATA_END_TENSOR, NULL, 0, ACL_FLOAT, NULL, 0);
    ACL_OK(acltdtDestroyDataItem(it));
    return it;
}

static acltdtDataset *dead_set(void)
{
    acltdtDataset *s = acltdtCreateDataset();
    ACL_OK(acltdtDestroyDataset(s));
    return s;
}

static acltdtChannelHandle *dead_channel(void)
{
    acltdtChannelHandle *c = acltdtCreateChannel(0, "compat-dead");
    ACL_OK(acltdtDestroyChannel(c));
    return c;
}

/* A getter of an item's field: failed for a NULL or a destroyed item. */
#define ITEM_GETTER_ROW(getter, failed)                                                            \
    ROW(getter)                                                                                    \
    {                                                                                              \
        REJECTS_VALUE(getter(NULL), failed, "a NULL item");                                        \
        REJECTS_VALUE_HOSTILE(getter(dead_item()), failed, "a destroyed item");                    \
    }

ITEM_GETTER_ROW(acltdtGetTensorTypeFromItem, ACL_TENSOR_DATA_UNDEFINED)
ITEM_GETTER_ROW(acltdtGetDataTypeFromItem, ACL_DT_UNDEFINED)
ITEM_GETTER_ROW(acltdtGetDataAddrFromItem, NULL)
ITEM_GETTER_ROW(acltdtGetDataSizeFromItem, 0)
ITEM_GETTER_ROW(acltdtGetDimNumFromItem, 0)

ROW(acltdtGetSliceInfoFromItem)
{
    size_t n, id;
    acltdtDataItem *it =
        acltdtCreateDataItem(ACL_TENSOR_DATA_END_TENSOR, NULL, 0, ACL_FLOAT, NULL, 0);
    REJECTS(acltdtGetSliceInfoFromItem(NULL, &n, &id), ACL_ERROR_INVALID_PARAM, "a NULL item");
    REJECTS(acltdtGetSliceInfoFromItem(it, NULL, &id), ACL_ERROR_INVALID_PARAM, "a NULL sliceNum");
    REJECTS(acltdtGetSliceInfoFromItem(it, &n, NULL), ACL_ERROR_INVALID_PARAM, "a NULL sliceId");
    REJECTS_HOSTILE(acltdtGetSliceInfoFromItem(dead_item(), &n, &id), ACL_ERROR_INVALID_PARAM,
                    "a destroyed item");
    ACL_OK(acltdtDestroyDataItem(it));
}

ROW(acltdtGetDimsFromItem)
{
    int64_t dims[2];
    acltdtDataItem *it =
        acltdtCreateDataItem(ACL_TENSOR_DATA_END_TENSOR, NULL, 0, ACL_FLOAT, NULL, 0);
    REJECTS(acltdtGetDimsFromItem(NULL, dims, 2), ACL_ERROR_INVALID_PARAM, "a NULL item");
    REJECTS(acltdtGetDimsFromItem(it, NULL, 2), ACL_ERROR_INVALID_PARAM, "NULL dims, dimNum 2");
    REJECTS_HOSTILE(acltdtGetDimsFromItem(dead_item(), dims, 2), ACL_ERROR_INVALID_PARAM,
                    "a destroyed item");
    ACL_OK(acltdtDestroyDataItem(it));
}

ROW(acltdtCreateDataItem)
{
    int64_t dims[1] = {1};
    REJECTS_VALUE(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 1, ACL_FLOAT, NULL, 0), NULL,
                  "NULL dims with dimNum 1");
    REJECTS_VALUE(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 0, ACL_FLOAT, NULL, 0), NULL,
                  "dims with dimNum 0");
    REJECTS_VALUE(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 129, ACL_FLOAT, NULL, 0), NULL,
                  "129 dims");
    REJECTS_VALUE(
        acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, dims, 1, ACL_FLOAT, NULL, 0), NULL,
        "dims for a marker");
}

ROW(acltdtDestroyDataItem)
{
    REJECTS(acltdtDestroyDataItem(NULL), ACL_ERROR_INVALID_PARAM, "a NULL item");
    REJECTS_HOSTILE(acltdtDestroyDataItem(dead_item()), ACL_ERROR_INVALID_PARAM,
                    "a destroyed item");
}

ROW(acltdtDestroyDataset)
{
    REJECTS(acltdtDestroyDataset(NULL), ACL_ERROR_INVALID_PARAM, "a NULL dataset");
    REJECTS_HOSTILE(acltdtDestroyDataset(dead_set()), ACL_ERROR_INVALID_PARAM,
                    "a destroyed dataset");
}

ROW(acltdtGetDataItem)
{
    REJECTS_VALUE(acltdtGetDataItem(NULL, 0), NULL, "a NULL dataset");
    REJECTS_VALUE_HOSTILE(acltdtGetDataItem(dead_set(), 0), NULL, "a destroyed dataset");
}

ROW(acltdtAddDataItem)
{
    acltdtDataset *s = acltdtCreateDataset();
    acltdtDataItem *it =
        acltdtCreateDataItem(ACL_TENSOR_DATA_END_TENSOR, NULL, 0, ACL_FLOAT, NULL, 0);
    REJECTS(acltdtAddDataItem(NULL, it), ACL_ERROR_INVALID_PARAM, "a NULL dataset");
    REJECTS(acltdtAddDataItem(s, NULL), ACL_ERROR_INVALID_PARAM, "a NULL item");
    REJECTS_HOSTILE(acltdtAddDataItem(s, dead_item()), ACL_ERROR_INVALID_PARAM, "a destroyed item");
    REJECTS_HOSTILE(acltdtAddDataItem(dead_set(), it), ACL_ERROR_INVALID_PARAM,
                    "a destroyed dataset");
    ACL_OK(acltdtDestroyDataset(s));
    ACL_OK(acltdtDestroyDataItem(it));
}

ROW(acltdtGetDatasetSize)
{
    REJECTS_VALUE(acltdtGetDatasetSize(NULL), 0, "a NULL dataset");
    REJECTS_VALUE_HOSTILE(acltdtGetDatasetSize(dead_set()), 0, "a destroyed dataset");
}

ROW(acltdtGetDatasetName)
{
    REJECTS_VALUE(acltdtGetDatasetName(NULL), NULL, "a NULL dataset");
    REJECTS_VALUE_HOSTILE(acltdtGetDatasetName(dead_set()), NULL, "a destroyed dataset");
}

ROW(acltdtStopChannel)
{
    REJECTS(acltdtStopChannel(NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS_HOSTILE(acltdtStopChannel(dead_channel()), ACL_ERROR_INVALID_PARAM,
                    "a destroyed channel");
}

ROW(acltdtCreateChannel)
{
    REJECTS_VALUE(acltdtCreateChannel(0, NULL), NULL, "a NULL name");
    REJECTS_VALUE(acltdtCreateChannel(100000, "x"), NULL, "a device that does not exist");
}

ROW(acltdtCreateChannelWithCapacity)
{
    char long_name[200];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    REJECTS_VALUE(acltdtCreateChannelWithCapacity(0, NULL, 4), NULL, "a NULL name");
    REJECTS_VALUE(acltdtCreateChannelWithCapacity(0, long_name, 4), NULL, "a 199-byte name");
    REJECTS_VALUE(acltdtCreateChannelWithCapacity(0, "x", 0), NULL, "capacity 0");
}

ROW(acltdtDestroyChannel)
{
    REJECTS(acltdtDestroyChannel(NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS_HOSTILE(acltdtDestroyChannel(dead_channel()), ACL_ERROR_INVALID_PARAM,
                    "a destroyed channel");
}

ROW(acltdtCleanChannel)
{
    REJECTS(acltdtCleanChannel(NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS_HOSTILE(acltdtCleanChannel(dead_channel()), ACL_ERROR_INVALID_PARAM,
                    "a destroyed channel");
}

ROW(acltdtSendTensor)
{
    acltdtChannelHandle *c = acltdtCreateChannel(0, "compat-row-send");
    acltdtDataset *s = acltdtCreateDataset();
    REJECTS(acltdtSendTensor(NULL, s, 0), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(acltdtSendTensor(c, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL dataset");
    REJECTS_HOSTILE(acltdtSendTensor(c, s, -2), ACL_ERROR_INVALID_PARAM, "timeout -2");
    REJECTS_HOSTILE(acltdtSendTensor(dead_channel(), s, 0), ACL_ERROR_INVALID_PARAM,
                    "a destroyed channel");
    REJECTS_HOSTILE(acltdtSendTensor(c, dead_set(), 0), ACL_ERROR_INVALID_PARAM,
                    "a destroyed dataset");
    ACL_OK(acltdtDestroyDataset(s));
    ACL_OK(acltdtDestroyChannel(c));
}

ROW(acltdtReceiveTensor)
{
    acltdtChannelHandle *c = acltdtCreateChannel(0, "compat-row-receive");
    acltdtDataset *s = acltdtCreateDataset();
    REJECTS(acltdtReceiveTensor(NULL, s, 0), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(acltdtReceiveTensor(c, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL dataset");
    REJECTS_HOSTILE(acltdtReceiveTensor(dead_channel(), s, 0), ACL_ERROR_INVALID_PARAM,
                    "a destroyed channel");
    REJECTS_HOSTILE(acltdtReceiveTensor(c, dead_set(), 0), ACL_ERROR_INVALID_PARAM,
                    "a destroyed dataset");
    ACL_OK(acltdtDestroyDataset(s));
    ACL_OK(acltdtDestroyChannel(c));
}

ROW(acltdtQueryChannelSize)
{
    acltdtChannelHandle *c = acltdtCreateChannel(0, "compat-row-size");
    size_t n;
    REJECTS(acltdtQueryChannelSize(NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(acltdtQueryChannelSize(c, NULL), ACL_ERROR_INVALID_PARAM, "a NULL size");
    REJECTS_HOSTILE(acltdtQueryChannelSize(dead_channel(), &n), ACL_ERROR_INVALID_PARAM,
                    "a destroyed channel");
    ACL_OK(acltdtDestroyChannel(c));
}

static const compat_row rows[] = {
    COMPAT_ROW(acltdtGetTensorTypeFromItem),
    COMPAT_ROW(acltdtGetDataTypeFromItem),
    COMPAT_ROW(acltdtGetDataAddrFromItem),
    COMPAT_ROW(acltdtGetDataSizeFromItem),
    COMPAT_ROW(acltdtGetDimNumFromItem),
    COMPAT_ROW(acltdtGetSliceInfoFromItem),
    COMPAT_ROW(acltdtGetDimsFromItem),
    COMPAT_ROW(acltdtCreateDataItem),
    COMPAT_ROW(acltdtDestroyDataItem),
    COMPAT_ROW(acltdtDestroyDataset),
    COMPAT_ROW(acltdtGetDataItem),
    COMPAT_ROW(acltdtAddDataItem),
    COMPAT_ROW(acltdtGetDatasetSize),
    COMPAT_ROW(acltdtGetDatasetName),
    COMPAT_ROW(acltdtStopChannel),
    COMPAT_ROW(acltdtCreateChannel),
    COMPAT_ROW(acltdtCreateChannelWithCapacity),
    COMPAT_ROW(acltdtDestroyChannel),
    COMPAT_ROW(acltdtCleanChannel),
    COMPAT_ROW(acltdtSendTensor),
    COMPAT_ROW(acltdtReceiveTensor),
    COMPAT_ROW(acltdtQueryChannelSize),
};
COMPAT_BAD_ARGS(tdt, rows);

Suite *compat_suite_tdt(void);
Suite *compat_suite_tdt(void)
{
    Suite *s = suite_create("tdt");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tdt_round_trip_every_type);
    tcase_add_test(tc, test_tdt_device_memory_item);
    tcase_add_test(tc, test_tdt_capacity_and_timeouts);
    tcase_add_test(tc, test_tdt_producer_consumer);
    tcase_add_test(tc, test_tdt_stop_wakes_blocked);
    tcase_add_test(tc, test_tdt_same_name_same_channel);
    tcase_add_test(tc, test_tdt_dataset_rules);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_tdt);
    return s;
}

COMPAT_MAIN(tdt)
