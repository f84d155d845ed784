/* Streams: creation, the NULL default stream and its independence from other
 * streams, synchronisation with and without timeouts, queries, destruction
 * rules, and the bad-argument rows of the stream functions. */
#include "bad_args.h"

enum { BUF_SIZE = 64 * 1024 };

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    compat_set_device();
}

static void tear_down(void)
{
    compat_reset_device();
    ACL_OK(aclFinalize());
}

static aclrtStream default_stream(void)
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCtxGetCurrentDefaultStream(&stream));
    ck_assert_ptr_nonnull(stream);
    return stream;
}

static aclrtStreamStatus stream_status(aclrtStream stream)
{
    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    ACL_OK(aclrtStreamQuery(stream, &status));
    return status;
}

static void *device_buffer(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static uint8_t *host_buffer(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMallocHost(&p, size));
    return p;
}

/* Queues "fill dev with value, copy it back to host" on stream. */
static void queue_fill_and_read(aclrtStream stream, void *dev, uint8_t *host, size_t size,
                                uint8_t value)
{
    ACL_OK(aclrtMemsetAsync(dev, size, value, size, stream));
    ACL_OK(aclrtMemcpyAsync(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
}

/* One assertion per buffer: every ck_assert records a checkpoint, too slow
 * per byte. */
static void assert_filled(const uint8_t *host, size_t size, uint8_t value)
{
    size_t i = 0;
    while (i < size && host[i] == value)
        i++;
    ck_assert_msg(i == size, "byte %zu is 0x%02x, expected 0x%02x", i, i < size ? host[i] : 0,
                  value);
}

COMPAT_TEST(create_and_destroy,
            "aclrtCreateStream gives distinct streams that synchronise and destroy; NULL arguments "
            "are ACL_ERROR_INVALID_PARAM",
            "acl_rt.h aclrtCreateStream, aclrtDestroyStream; API ref: DestroyStream(NULL) -> "
            "ACL_ERROR_INVALID_PARAM")
{
    aclrtStream a = compat_new_stream();
    aclrtStream b = compat_new_stream();
    ck_assert_ptr_ne(a, b);
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_FAILS_WITH(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
}

static void *create_stream_in_thread(void *arg)
{
    aclrtStream stream = NULL;
    *(aclError *)arg = aclrtCreateStream(&stream);
    return NULL;
}

COMPAT_TEST(create_needs_a_context,
            "aclrtCreateStream in a thread without a context returns ACL_ERROR_RT_CONTEXT_NULL",
            "API ref aclrtCreateStream (current context); [impl] 107002")
{
    aclError ret = ACL_SUCCESS;
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, create_stream_in_thread, &ret), 0);
    pthread_join(thread, NULL);
    ck_assert_int_eq(ret, ACL_ERROR_RT_CONTEXT_NULL);
}

COMPAT_TEST(create_with_config,
            "aclrtCreateStreamWithConfig with ACL_STREAM_* flags gives a working stream; flag bits "
            "outside the set give a plain stream",
            "acl_rt.h aclrtCreateStreamWithConfig; API ref: other flag values give a plain stream")
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&stream, 0, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
    ck_assert_ptr_nonnull(stream);
    void *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    queue_fill_and_read(stream, dev, host, BUF_SIZE, 0x11);
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0x11);
    ACL_OK(aclrtDestroyStream(stream));

    /* Bits outside the ACL_STREAM_* set give a plain stream. */
    ACL_OK(aclrtCreateStreamWithConfig(&stream, 0, 0x80000000u));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_FAILS_WITH(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}

COMPAT_TEST(priority_and_flags_read_back,
            "aclrtStreamGetPriority and aclrtStreamGetFlags give what the stream was created with; "
            "the default stream (NULL) has 0 and 0",
            "acl_rt.h aclrtStreamGetPriority, aclrtStreamGetFlags (ACL 1.17)")
{
    aclrtStream s;
    ACL_OK(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_LAUNCH));
    uint32_t priority = 99, flags = 99;
    ACL_OK(aclrtStreamGetPriority(s, &priority));
    ACL_OK(aclrtStreamGetFlags(s, &flags));
    ck_assert_uint_eq(priority, 3);
    ck_assert_uint_eq(flags, ACL_STREAM_FAST_LAUNCH);
    ACL_OK(aclrtStreamGetPriority(NULL, &priority));
    ACL_OK(aclrtStreamGetFlags(NULL, &flags));
    ck_assert_uint_eq(priority, 0);
    ck_assert_uint_eq(flags, 0);
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(
    null_is_default_stream,
    "NULL and aclrtCtxGetCurrentDefaultStream's handle are the same stream for every stream call",
    "API ref Stream Management: NULL = default stream of the current context")
{
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_COMPLETE);
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    ACL_OK(aclrtRecordEvent(event, NULL));
    ACL_OK(aclrtSynchronizeEvent(event));

    /* Held through its real handle, seen through NULL ... */
    aclrtStream dflt = default_stream();
    compat_gate gate;
    compat_gate_close(&gate, dflt);
    ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtRecordEvent(event, NULL));
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    ACL_OK(aclrtQueryEventStatus(event, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(NULL, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_int_eq(stream_status(dflt), ACL_STREAM_STATUS_COMPLETE);

    /* ... and the other way round. */
    compat_gate_close(&gate, NULL);
    ck_assert_int_eq(stream_status(dflt), ACL_STREAM_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(dflt));
    ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtQueryEventStatus(event, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ACL_OK(aclrtDestroyEvent(event));
}

COMPAT_TEST(default_stream_does_not_block_others,
            "work on a created stream does not wait for the default stream",
            "API ref (dev guide, default stream): ACL streams are non-blocking, the default stream "
            "does not synchronise with others")
{
    aclrtStream stream = compat_new_stream();
    void *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    for (int round = 0; round < 10; round++) {
        compat_gate gate;
        compat_gate_close(&gate, NULL);
        queue_fill_and_read(stream, dev, host, BUF_SIZE, (uint8_t)(round + 1));
        /* Would never return if the created stream waited for the default one. */
        ACL_OK(aclrtSynchronizeStream(stream));
        assert_filled(host, BUF_SIZE, (uint8_t)(round + 1));
        ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(NULL));
    }
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}

COMPAT_TEST(other_streams_do_not_block_default,
            "work on the default stream does not wait for created streams",
            "API ref (dev guide, default stream): non-blocking streams")
{
    aclrtStream stream = compat_new_stream();
    void *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    for (int round = 0; round < 10; round++) {
        compat_gate gate;
        compat_gate_close(&gate, stream);
        queue_fill_and_read(NULL, dev, host, BUF_SIZE, (uint8_t)(0x80 + round));
        ACL_OK(aclrtSynchronizeStream(NULL));
        assert_filled(host, BUF_SIZE, (uint8_t)(0x80 + round));
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(stream));
    }
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}

COMPAT_TEST(synchronize_with_timeout,
            "aclrtSynchronizeStreamWithTimeout: -1 waits forever, expiry returns "
            "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046), below -1 is ACL_ERROR_RT_PARAM_INVALID",
            "acl_rt.h aclrtSynchronizeStreamWithTimeout (ms); API ref; [impl] 107000")
{
    aclrtStream stream = compat_new_stream();
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, -1));
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, 50));

    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, -2), ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, -1));
    ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtDestroyStream(stream));
}

COMPAT_TEST(query_follows_gate,
            "aclrtStreamQuery reports ACL_STREAM_STATUS_NOT_READY while work is pending and "
            "COMPLETE after; both return ACL_SUCCESS",
            "acl_rt.h aclrtStreamQuery; [impl] 507004 is not returned")
{
    aclrtStream stream = compat_new_stream();
    ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_COMPLETE);
    for (int round = 0; round < 20; round++) {
        compat_gate gate;
        compat_gate_close(&gate, stream);
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_wait_reached(&gate);
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(stream));
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_COMPLETE);
    }
    ACL_FAILS_WITH(aclrtStreamQuery(stream, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(stream));
}

/* Opens a gate once the main thread is about to destroy the stream. */
typedef struct late_opener {
    compat_gate *gate;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool destroying;
} late_opener;

static void *open_when_destroying(void *arg)
{
    late_opener *o = arg;
    compat_gate_wait_reached(o->gate);
    pthread_mutex_lock(&o->lock);
    while (!o->destroying)
        pthread_cond_wait(&o->cond, &o->lock);
    pthread_mutex_unlock(&o->lock);
    compat_gate_open(o->gate);
    return NULL;
}

COMPAT_TEST(destroy_waits_for_queued_work,
            "aclrtDestroyStream waits for the stream's pending tasks before destroying it",
            "API ref aclrtDestroyStream (newest: waits for unfinished tasks)")
{
    enum { CHUNKS = 16, CHUNK = 4096 };
    void *dev = device_buffer(CHUNKS * CHUNK);
    uint8_t *src = host_buffer(CHUNKS * CHUNK);
    uint8_t *dst = host_buffer(CHUNKS * CHUNK);
    for (int round = 0; round < 10; round++) {
        uint8_t value = (uint8_t)(0x20 + round);
        memset(src, value, CHUNKS * CHUNK);
        memset(dst, 0, CHUNKS * CHUNK);
        aclrtStream stream = compat_new_stream();
        compat_gate gate;
        compat_gate_close(&gate, stream);
        for (int c = 0; c < CHUNKS; c++) {
            size_t off = (size_t)c * CHUNK;
            ACL_OK(aclrtMemcpyAsync((uint8_t *)dev + off, CHUNK, src + off, CHUNK,
                                    ACL_MEMCPY_HOST_TO_DEVICE, stream));
            ACL_OK(aclrtMemcpyAsync(dst + off, CHUNK, (uint8_t *)dev + off, CHUNK,
                                    ACL_MEMCPY_DEVICE_TO_HOST, stream));
        }
        late_opener opener = {.gate = &gate, .destroying = false};
        pthread_mutex_init(&opener.lock, NULL);
        pthread_cond_init(&opener.cond, NULL);
        pthread_t thread;
        ck_assert_int_eq(pthread_create(&thread, NULL, open_when_destroying, &opener), 0);
        pthread_mutex_lock(&opener.lock);
        opener.destroying = true;
        pthread_cond_signal(&opener.cond);
        pthread_mutex_unlock(&opener.lock);
        ACL_OK(aclrtDestroyStream(stream));
        /* No synchronisation besides the destroy itself. */
        assert_filled(dst, CHUNKS * CHUNK, value);
        pthread_join(thread, NULL);
    }
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(src));
    ACL_OK(aclrtFreeHost(dst));
}

COMPAT_TEST(destroy_default_stream_fails,
            "the default stream cannot be destroyed with aclrtDestroyStream and stays usable",
            "API ref aclrtDestroyStream: the default stream cannot be destroyed")
{
    aclrtStream dflt = default_stream();
    ACL_FAILS(aclrtDestroyStream(dflt));
    ACL_OK(aclrtSynchronizeStream(dflt));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_ptr_eq(default_stream(), dflt);
}

COMPAT_TEST(bad_stream_handles,
            "destroyed streams, garbage, events and contexts passed as streams are refused with "
            "an error and a message",
            "acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)")
{
    aclrtStream dead = compat_new_stream();
    ACL_OK(aclrtDestroyStream(dead));
    aclrtStreamStatus status;
    ACL_FAILS(aclrtDestroyStream(dead));
    ACL_FAILS(aclrtSynchronizeStream(dead));
    ACL_FAILS(aclrtStreamQuery(dead, &status));
    ACL_FAILS(aclrtSynchronizeStreamWithTimeout(dead, 10));

    int not_a_stream = 0x41434C53;
    ACL_FAILS(aclrtDestroyStream(&not_a_stream));
    ACL_FAILS(aclrtSynchronizeStream(&not_a_stream));
    ACL_FAILS(aclrtStreamQuery(&not_a_stream, &status));

    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    ACL_FAILS(aclrtDestroyStream(event));
    ACL_FAILS(aclrtSynchronizeStream(event));
    ACL_OK(aclrtDestroyEvent(event));

    aclrtContext ctx = NULL;
    ACL_OK(aclrtGetCurrentContext(&ctx));
    ACL_FAILS(aclrtDestroyStream(ctx));
    ACL_FAILS(aclrtSynchronizeStream(ctx));
}

COMPAT_TEST(destroy_from_other_context_fails,
            "aclrtDestroyStream refuses a stream of another context",
            "API ref aclrtDestroyStream: the stream must belong to the current context")
{
    aclrtContext dflt = NULL;
    ACL_OK(aclrtGetCurrentContext(&dflt));
    aclrtStream stream = compat_new_stream();
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ACL_FAILS(aclrtDestroyStream(stream));
    ACL_OK(aclrtSetCurrentContext(dflt));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtDestroyContext(ctx));
}

COMPAT_TEST(stream_ids_distinct,
            "aclrtStreamGetId gives each stream its own id; NULL gives the default stream's id",
            "acl_rt.h aclrtStreamGetId: NULL -> default stream id")
{
    enum { N = 8 };
    aclrtStream streams[N];
    int32_t ids[N + 1];
    for (int i = 0; i < N; i++) {
        streams[i] = compat_new_stream();
        ACL_OK(aclrtStreamGetId(streams[i], &ids[i]));
    }
    ACL_OK(aclrtStreamGetId(NULL, &ids[N]));
    int32_t dflt_id = -1;
    ACL_OK(aclrtStreamGetId(default_stream(), &dflt_id));
    ck_assert_int_eq(ids[N], dflt_id);
    for (int i = 0; i <= N; i++)
        for (int j = i + 1; j <= N; j++)
            ck_assert_int_ne(ids[i], ids[j]);
    ACL_FAILS_WITH(aclrtStreamGetId(streams[0], NULL), ACL_ERROR_INVALID_PARAM);
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
}

COMPAT_TEST(failure_mode,
            "aclrtSetStreamFailureMode takes ACL_CONTINUE_ON_FAILURE and ACL_STOP_ON_FAILURE and "
            "refuses other values",
            "acl_rt.h aclrtSetStreamFailureMode; API ref")
{
    aclrtStream a = compat_new_stream();
    aclrtStream b = compat_new_stream();
    aclrtStream c = compat_new_stream();
    ACL_OK(aclrtSetStreamFailureMode(a, ACL_CONTINUE_ON_FAILURE));
    ACL_OK(aclrtSetStreamFailureMode(b, ACL_STOP_ON_FAILURE));
    ACL_FAILS(aclrtSetStreamFailureMode(c, 2));
    ACL_FAILS(aclrtSetStreamFailureMode(c, UINT64_MAX));
    /* Streams still work normally. */
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_OK(aclrtDestroyStream(c));
}

/* ---- known-unknowns ------------------------------------------------------------------ */

/* The newest acl_rt.h comment gives aclrtCreateStreamWithConfig's priority
 * a range of 0 (highest) to 7; the newest API reference calls the
 * parameter reserved (pass 0). Recorded choice: 0-7 accepted, 8 and above
 * refused. */
COMPAT_TEST(create_with_config_priority_range,
            "aclrtCreateStreamWithConfig accepts priorities 0 to 7 and refuses 8 and above",
            "acl_rt.h aclrtCreateStreamWithConfig comment (0-7) vs API ref (reserved): "
            "known-unknown")
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&stream, 0, 0));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtCreateStreamWithConfig(&stream, 7, 0));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_FAILS(aclrtCreateStreamWithConfig(&stream, 8, 0));
    ACL_FAILS(aclrtCreateStreamWithConfig(&stream, UINT32_MAX, 0));
}

/* The header says a timeout of 0 checks once; the API reference documents
 * only -1 (forever) and > 0. Recorded choice: 0 returns at once, success if
 * the stream or event is done, the timeout code if not. */
COMPAT_TEST(timeout_zero_checks_once,
            "aclrtSynchronizeStreamWithTimeout and aclrtSynchronizeEventWithTimeout with 0 "
            "succeed when done and return their timeout codes at once when not",
            "acl_rt.h comments (0 = check) vs API ref (-1, >0 only): known-unknown")
{
    aclrtStream stream = compat_new_stream();
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    ACL_OK(aclrtRecordEvent(event, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, 0));
    ACL_OK(aclrtSynchronizeEventWithTimeout(event, 0));
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_FAILS_WITH(aclrtSynchronizeEventWithTimeout(event, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclrtCreateStream)
{
    REJECTS(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclrtCreateStreamWithConfig)
{
    REJECTS(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclrtDestroyStream)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(h));
    REJECTS(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM, "NULL");
}

ROW(aclrtDestroyStreamForce)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(h));
    REJECTS(aclrtDestroyStreamForce(NULL), ACL_ERROR_INVALID_PARAM, "NULL");
}

ROW(aclrtGetStreamAttribute)
{
    aclrtStreamAttrValue value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtGetStreamAttribute(h, ACL_STREAM_ATTR_FAILURE_MODE, &value));
    REJECTS(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtSetStreamAttribute)
{
    aclrtStreamAttrValue value = {.failureMode = ACL_STOP_ON_FAILURE};
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSetStreamAttribute(h, ACL_STREAM_ATTR_FAILURE_MODE, &value));
    REJECTS(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtGetStreamAvailableNum)
{
    REJECTS(aclrtGetStreamAvailableNum(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtGetStreamOverflowSwitch)
{
    uint32_t flag;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(h, &flag));
    REJECTS(aclrtGetStreamOverflowSwitch(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL flag");
}

ROW(aclrtSetStreamOverflowSwitch)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(h, 1));
}

ROW(aclrtSetStreamFailureMode)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSetStreamFailureMode(h, ACL_STOP_ON_FAILURE));
}

ROW(aclrtStreamGetId)
{
    int32_t id;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(h, &id));
    REJECTS(aclrtStreamGetId(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
}

ROW(aclrtStreamGetPriority)
{
    uint32_t value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(h, &value));
    REJECTS(aclrtStreamGetPriority(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL priority");
}

ROW(aclrtStreamGetFlags)
{
    uint32_t value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(h, &value));
    REJECTS(aclrtStreamGetFlags(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL flags");
}

ROW(aclrtStreamQuery)
{
    aclrtStreamStatus status;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(h, &status));
    REJECTS(aclrtStreamQuery(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
}

ROW(aclrtSynchronizeStream)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(h));
}

ROW(aclrtSynchronizeStreamWithTimeout)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStreamWithTimeout(h, 10));
}

/* ---- issue 17: stream ---------------------------------------------------------------- */

COMPAT_TEST(create_v2_takes_the_configuration,
            "aclrtCreateStreamV2 makes a stream with the priority and flag set by "
            "aclrtSetStreamConfigOpt; the configuration can be destroyed while the stream lives",
            "API ref aclrtCreateStreamV2, aclrtSetStreamConfigOpt (the 4-step flow)")
{
    aclrtStreamConfigHandle *c = aclrtCreateStreamConfigHandle();
    ck_assert_ptr_nonnull(c);
    uint32_t priority = 3, flag = ACL_STREAM_FAST_LAUNCH;
    uint64_t work_size = 4096;
    void *work = &work_size;
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority));
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_WORK_SIZE, &work_size, sizeof work_size));
    ACL_OK(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_WORK_ADDR_PTR, &work, sizeof work));
    aclrtStream s;
    ACL_OK(aclrtCreateStreamV2(&s, c));
    uint32_t got_priority, got_flags;
    ACL_OK(aclrtStreamGetPriority(s, &got_priority));
    ACL_OK(aclrtStreamGetFlags(s, &got_flags));
    ck_assert_uint_eq(got_priority, 3);
    ck_assert_uint_eq(got_flags, ACL_STREAM_FAST_LAUNCH);
    ACL_OK(aclrtSynchronizeStream(s));
    /* The configuration outlives the stream and the other way round. */
    ACL_OK(aclrtDestroyStreamConfigHandle(c));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(configuration_rules,
            "a priority outside 0..7 and an unknown attribute are refused; an unset configuration "
            "makes a plain stream (priority 0, no flags)",
            "API ref aclrtSetStreamConfigOpt, aclrtStreamConfigAttr")
{
    aclrtStreamConfigHandle *c = aclrtCreateStreamConfigHandle();
    ck_assert_ptr_nonnull(c);
    uint32_t eight = 8;
    ACL_FAILS(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_PRIORITY, &eight, sizeof eight));
    ACL_FAILS(aclrtSetStreamConfigOpt(c, (aclrtStreamConfigAttr)9, &eight, sizeof eight));
    /* A fresh configuration makes a plain stream. */
    aclrtStream s;
    ACL_OK(aclrtCreateStreamV2(&s, c));
    uint32_t priority, flags;
    ACL_OK(aclrtStreamGetPriority(s, &priority));
    ACL_OK(aclrtStreamGetFlags(s, &flags));
    ck_assert_uint_eq(priority, 0);
    ck_assert_uint_eq(flags, 0);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStreamConfigHandle(c));
}
/* Abort settles the stream's bookkeeping: it answers idle at once and
 * synchronises without waiting, and new work runs normally. */
COMPAT_TEST(abort_leaves_a_usable_stream,
            "after aclrtStreamAbort the stream owes nothing (complete, synchronize returns at "
            "once) and new work on it runs, the default stream included",
            "API ref aclrtStreamAbort")
{
    aclrtStream s = compat_new_stream();
    void *aborted = NULL, *dev = NULL;
    ACL_OK(aclrtMalloc(&aborted, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtStreamAbort(s)); /* nothing queued: nothing to do */
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtMemsetAsync(aborted, 4096, i, 4096, s));
    ACL_OK(aclrtStreamAbort(s));
    ck_assert_int_eq(compat_stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeStream(s));
    /* Into other memory: whether aborted work that had not started yet is
     * dropped or still lands (a GPU cannot take back queued work) is the
     * implementation's, and no order with later work is promised. */
    unsigned char host[16];
    ACL_OK(aclrtMemsetAsync(dev, 4096, 0x5a, 4096, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], 0x5a);
    ck_assert_uint_eq(host[15], 0x5a);
    /* The default stream too. */
    ACL_OK(aclrtStreamAbort(NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtSynchronizeDevice());
    ACL_OK(aclrtFree(aborted));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(persistent_task_clean,
            "aclrtPersistentTaskClean cleans an ACL_STREAM_PERSISTENT stream and refuses another",
            "API ref aclrtPersistentTaskClean")
{
    aclrtStream p, plain = compat_new_stream();
    ACL_OK(aclrtCreateStreamWithConfig(&p, 0, ACL_STREAM_PERSISTENT));
    ACL_OK(aclrtPersistentTaskClean(p));
    ACL_FAILS(aclrtPersistentTaskClean(plain));
    ACL_OK(aclrtDestroyStream(p));
    ACL_OK(aclrtDestroyStream(plain));
}
enum { MAX_SEEN = 16 };

typedef struct seen_states {
    int count;
    aclrtStream streams[MAX_SEEN];
    aclrtStreamState states[MAX_SEEN];
} seen_states;

static void remember_state(aclrtStream stm, aclrtStreamState state, void *args)
{
    seen_states *seen = args;
    if (seen->count < MAX_SEEN) {
        seen->streams[seen->count] = stm;
        seen->states[seen->count] = state;
    }
    seen->count++;
}

COMPAT_TEST(stream_state_callbacks,
            "stream-state callbacks see CREATE_POST after a stream (a new context's default stream "
            "too) is made and DESTROY_PRE before it goes; a name registers once; NULL unregisters",
            "API ref aclrtRegStreamStateCallback")
{
    seen_states seen = {0};
    ACL_OK(aclrtRegStreamStateCallback("test", remember_state, &seen));
    ACL_FAILS(aclrtRegStreamStateCallback("test", remember_state, &seen));
    aclrtStream s = compat_new_stream();
    ck_assert_int_eq(seen.count, 1);
    ck_assert_ptr_eq(seen.streams[0], s);
    ck_assert_int_eq(seen.states[0], ACL_RT_STREAM_STATE_CREATE_POST);
    ACL_OK(aclrtDestroyStream(s));
    ck_assert_int_eq(seen.count, 2);
    ck_assert_ptr_eq(seen.streams[1], s);
    ck_assert_int_eq(seen.states[1], ACL_RT_STREAM_STATE_DESTROY_PRE);
    /* A new context's default stream is a stream too. */
    aclrtContext current, ctx;
    ACL_OK(aclrtGetCurrentContext(&current));
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream default_stream;
    ACL_OK(aclrtCtxGetCurrentDefaultStream(&default_stream));
    ck_assert_int_eq(seen.count, 3);
    ck_assert_ptr_eq(seen.streams[2], default_stream);
    ACL_OK(aclrtDestroyContext(ctx));
    ck_assert_int_eq(seen.count, 4);
    ck_assert_int_eq(seen.states[3], ACL_RT_STREAM_STATE_DESTROY_PRE);
    ACL_OK(aclrtSetCurrentContext(current));
    /* Unregistered: no more calls. Unregistering again is harmless. */
    ACL_OK(aclrtRegStreamStateCallback("test", NULL, NULL));
    ACL_OK(aclrtRegStreamStateCallback("test", NULL, NULL));
    s = compat_new_stream();
    ACL_OK(aclrtDestroyStream(s));
    ck_assert_int_eq(seen.count, 4);
}

COMPAT_TEST(
    thread_last_task_id,
    "aclrtGetThreadLastTaskId gives the thread's last task on a stream it created: consecutive "
    "tasks on one stream have consecutive ids; default-stream tasks do not count",
    "API ref aclrtGetThreadLastTaskId [impl: per-stream task ids]")
{
    aclrtStream s = compat_new_stream(), t = compat_new_stream();
    void *dev = NULL;
    /* A region per stream: the streams run concurrently. */
    ACL_OK(aclrtMalloc(&dev, 3 * 64, ACL_MEM_MALLOC_HUGE_FIRST));
    char *region = dev;
    uint32_t id;
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtMemsetAsync(region, 64, i, 64, s));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    uint32_t third = id;
    ACL_OK(aclrtMemsetAsync(region, 64, 0, 64, s));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, third + 1);
    ACL_OK(aclrtMemsetAsync(region + 64, 64, 0, 64, t));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, 1); /* the first task of t */
    /* Tasks on the default stream leave it alone. */
    ACL_OK(aclrtMemsetAsync(region + 128, 64, 0, 64, NULL));
    ACL_OK(aclrtGetThreadLastTaskId(&id));
    ck_assert_uint_eq(id, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtSynchronizeStream(t));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(t));
}

COMPAT_TEST(
    resource_limit_levels,
    "resource limits: a stream's own limit, used by the thread (aclrtUseStreamResInCurrentThread), "
    "before the process's for the device, before the hardware's; resets fall back in that order",
    "API ref aclrtSetStreamResLimit, aclrtGetResInCurrentThread, aclrtSetDeviceResLimit "
    "(priorities)")
{
    uint32_t hw, v;
    ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &hw));
    ck_assert_uint_ge(hw, 1);
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);

    ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1); /* the process level, for a stream without its own */
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
    ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1); /* the thread does not use the stream yet */
    ACL_OK(aclrtUseStreamResInCurrentThread(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);

    ACL_OK(aclrtUseStreamResInCurrentThread(s));
    ACL_OK(aclrtResetStreamResLimit(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);
    ACL_OK(aclrtResetDeviceResLimit(0));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, hw);
    /* A stream in use that goes away leaves the device's limit. */
    ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    ck_assert_uint_eq(v, 1);
}
/* ---- rows: configurations, abort, callbacks, task ids, resource limits ---------------- */

static void stream_state_noop(aclrtStream stream, aclrtStreamState state, void *args)
{
    (void)stream;
    (void)state;
    (void)args;
}

ROW(aclrtDestroyStreamConfigHandle)
{
    FOR_EACH_BAD(KIND_STREAM_CONFIG, h, ACL_ERROR_INVALID_PARAM,
                 aclrtDestroyStreamConfigHandle((aclrtStreamConfigHandle *)h));
}

ROW(aclrtSetStreamConfigOpt)
{
    uint32_t priority = 1;
    FOR_EACH_BAD(KIND_STREAM_CONFIG, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSetStreamConfigOpt((aclrtStreamConfigHandle *)h, ACL_RT_STREAM_PRIORITY,
                                         &priority, sizeof priority));
    aclrtStreamConfigHandle *c = aclrtCreateStreamConfigHandle();
    ck_assert_ptr_nonnull(c);
    REJECTS(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_PRIORITY, NULL, sizeof priority),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
    REJECTS_HOSTILE(aclrtSetStreamConfigOpt(c, ACL_RT_STREAM_PRIORITY, &priority, 3),
                    ACL_ERROR_INVALID_PARAM, "a 3-byte value");
    ACL_OK(aclrtDestroyStreamConfigHandle(c));
}

ROW(aclrtCreateStreamV2)
{
    aclrtStream s;
    FOR_EACH_BAD(KIND_STREAM_CONFIG, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCreateStreamV2(&s, (aclrtStreamConfigHandle *)h));
    aclrtStreamConfigHandle *c = aclrtCreateStreamConfigHandle();
    ck_assert_ptr_nonnull(c);
    REJECTS(aclrtCreateStreamV2(NULL, c), ACL_ERROR_INVALID_PARAM, "a NULL stream");
    ACL_OK(aclrtDestroyStreamConfigHandle(c));
}

ROW(aclrtStreamAbort)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamAbort(h));
}

ROW(aclrtPersistentTaskClean)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtPersistentTaskClean(h));
}

ROW(aclrtRegStreamStateCallback)
{
    REJECTS(aclrtRegStreamStateCallback(NULL, stream_state_noop, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL name");
}

ROW(aclrtGetThreadLastTaskId)
{
    REJECTS(aclrtGetThreadLastTaskId(NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
}

ROW(aclrtGetStreamResLimit)
{
    uint32_t value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtGetStreamResLimit(h, ACL_RT_DEV_RES_CUBE_CORE, &value));
    REJECTS(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtSetStreamResLimit)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSetStreamResLimit(h, ACL_RT_DEV_RES_CUBE_CORE, 1));
}

ROW(aclrtResetStreamResLimit)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtResetStreamResLimit(h));
}

ROW(aclrtUseStreamResInCurrentThread)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtUseStreamResInCurrentThread(h));
}

ROW(aclrtUnuseStreamResInCurrentThread)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtUnuseStreamResInCurrentThread(h));
}

ROW(aclrtGetResInCurrentThread)
{
    REJECTS(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtActiveStream)
{
    aclrtStream s = compat_new_stream();
    REJECTS(aclrtActiveStream(NULL, s), ACL_ERROR_INVALID_PARAM, "a NULL activeStream");
    REJECTS(aclrtActiveStream(s, NULL), ACL_ERROR_INVALID_PARAM, "the NULL stream");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtActiveStream(h, s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtActiveStream(s, h));
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclrtSwitchStream)
{
    aclrtStream s = compat_new_stream(), t = compat_new_stream();
    int32_t *v = NULL;
    ACL_OK(aclrtMalloc((void **)&v, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    REJECTS(aclrtSwitchStream(NULL, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, t, NULL, s),
            ACL_ERROR_INVALID_PARAM, "a NULL leftValue");
    REJECTS(aclrtSwitchStream(v, ACL_RT_EQUAL, NULL, ACL_RT_SWITCH_INT32, t, NULL, s),
            ACL_ERROR_INVALID_PARAM, "a NULL rightValue");
    REJECTS(aclrtSwitchStream(v, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, NULL, NULL, s),
            ACL_ERROR_INVALID_PARAM, "a NULL trueStream");
    REJECTS(aclrtSwitchStream(v, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, t, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "the NULL stream");
    REJECTS(aclrtSwitchStream(v, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, t, s, s),
            ACL_ERROR_INVALID_PARAM, "a falseStream (reserved: NULL)");
    REJECTS(aclrtSwitchStream(v, (aclrtCondition)6, v, ACL_RT_SWITCH_INT32, t, NULL, s),
            ACL_ERROR_INVALID_PARAM, "an unknown condition");
    REJECTS(aclrtSwitchStream(v, ACL_RT_EQUAL, v, (aclrtCompareDataType)2, t, NULL, s),
            ACL_ERROR_INVALID_PARAM, "an unknown data type");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSwitchStream(v, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, h, NULL, s));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSwitchStream(v, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, t, NULL, h));
    ACL_OK(aclrtFree(v));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtDestroyStream(t));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtActiveStream),
    COMPAT_ROW(aclrtSwitchStream),
    COMPAT_ROW(aclrtCreateStream),
    COMPAT_ROW(aclrtCreateStreamWithConfig),
    COMPAT_ROW(aclrtDestroyStream),
    COMPAT_ROW(aclrtDestroyStreamForce),
    COMPAT_ROW(aclrtGetStreamAttribute),
    COMPAT_ROW(aclrtGetStreamAvailableNum),
    COMPAT_ROW(aclrtGetStreamOverflowSwitch),
    COMPAT_ROW(aclrtSetStreamAttribute),
    COMPAT_ROW(aclrtSetStreamFailureMode),
    COMPAT_ROW(aclrtSetStreamOverflowSwitch),
    COMPAT_ROW(aclrtStreamGetFlags),
    COMPAT_ROW(aclrtStreamGetId),
    COMPAT_ROW(aclrtStreamGetPriority),
    COMPAT_ROW(aclrtStreamQuery),
    COMPAT_ROW(aclrtSynchronizeStream),
    COMPAT_ROW(aclrtSynchronizeStreamWithTimeout),
    COMPAT_ROW(aclrtDestroyStreamConfigHandle),
    COMPAT_ROW(aclrtSetStreamConfigOpt),
    COMPAT_ROW(aclrtCreateStreamV2),
    COMPAT_ROW(aclrtStreamAbort),
    COMPAT_ROW(aclrtPersistentTaskClean),
    COMPAT_ROW(aclrtRegStreamStateCallback),
    COMPAT_ROW(aclrtGetThreadLastTaskId),
    COMPAT_ROW(aclrtGetStreamResLimit),
    COMPAT_ROW(aclrtSetStreamResLimit),
    COMPAT_ROW(aclrtResetStreamResLimit),
    COMPAT_ROW(aclrtUseStreamResInCurrentThread),
    COMPAT_ROW(aclrtUnuseStreamResInCurrentThread),
    COMPAT_ROW(aclrtGetResInCurrentThread),
};
COMPAT_BAD_ARGS(stream, rows);

Suite *compat_suite_stream(void);
Suite *compat_suite_stream(void)
{
    Suite *s = suite_create("stream");

    TCase *lifecycle = tcase_create("lifecycle");
    tcase_add_checked_fixture(lifecycle, set_up, tear_down);
    tcase_add_test(lifecycle, create_and_destroy);
    tcase_add_test(lifecycle, create_needs_a_context);
    tcase_add_test(lifecycle, create_with_config);
    tcase_add_test(lifecycle, priority_and_flags_read_back);
    tcase_add_test(lifecycle, destroy_waits_for_queued_work);
    tcase_add_test(lifecycle, destroy_default_stream_fails);
    tcase_add_test(lifecycle, destroy_from_other_context_fails);
    tcase_add_test(lifecycle, stream_ids_distinct);
    tcase_add_test(lifecycle, failure_mode);
    suite_add_tcase(s, lifecycle);

    TCase *ordering = tcase_create("ordering");
    tcase_add_checked_fixture(ordering, set_up, tear_down);
    tcase_add_test(ordering, null_is_default_stream);
    tcase_add_test(ordering, synchronize_with_timeout);
    tcase_add_test(ordering, query_follows_gate);
    suite_add_tcase(s, ordering);

    /* One stream held by a gate while another must run on. These time out
     * under compute-sanitizer, which skips the tag. */
    TCase *independence = tcase_create("independence");
    tcase_set_tags(independence, "concurrent");
    tcase_add_checked_fixture(independence, set_up, tear_down);
    tcase_add_test(independence, default_stream_does_not_block_others);
    tcase_add_test(independence, other_streams_do_not_block_default);
    suite_add_tcase(s, independence);

    TCase *unknown = tcase_create("unknown");
    tcase_set_tags(unknown, "unknown");
    tcase_add_checked_fixture(unknown, set_up, tear_down);
    tcase_add_test(unknown, create_with_config_priority_range);
    tcase_add_test(unknown, timeout_zero_checks_once);
    suite_add_tcase(s, unknown);

    TCase *more = tcase_create("control");
    tcase_add_checked_fixture(more, compat_set_up, compat_tear_down);
    tcase_set_timeout(more, 60);
    tcase_add_test(more, create_v2_takes_the_configuration);
    tcase_add_test(more, configuration_rules);
    tcase_add_test(more, abort_leaves_a_usable_stream);
    tcase_add_test(more, persistent_task_clean);
    tcase_add_test(more, stream_state_callbacks);
    tcase_add_test(more, thread_last_task_id);
    tcase_add_test(more, resource_limit_levels);
    suite_add_tcase(s, more);

    TCase *hostile = compat_add_bad_args(s, &compat_rows_stream);
    tcase_add_test(hostile, bad_stream_handles);
    return s;
}

COMPAT_MAIN(stream)
