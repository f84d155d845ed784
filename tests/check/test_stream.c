/* Streams: creation, the NULL default stream and its independence from other
 * streams, synchronisation with and without timeouts, queries, destruction
 * rules and scale. */
#include "acltest.h"

enum { BUF_SIZE = 64 * 1024 };

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

/* Asserts that a call failed, with any code, and left a message. */
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

START_TEST(create_and_destroy)
{
    aclrtStream a = acltest_new_stream();
    aclrtStream b = acltest_new_stream();
    ck_assert_ptr_ne(a, b);
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_FAILS_WITH(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

static void *create_stream_in_thread(void *arg)
{
    aclrtStream stream = NULL;
    *(aclError *)arg = aclrtCreateStream(&stream);
    return NULL;
}

START_TEST(create_needs_a_context)
{
    aclError ret = ACL_SUCCESS;
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, create_stream_in_thread, &ret), 0);
    pthread_join(thread, NULL);
    ck_assert_int_eq(ret, ACL_ERROR_RT_CONTEXT_NULL);
}
END_TEST

START_TEST(create_with_config)
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

    /* Priorities run from 0 (highest) to 7. */
    ACL_OK(aclrtCreateStreamWithConfig(&stream, 7, 0));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_FAILS(aclrtCreateStreamWithConfig(&stream, 8, 0));
    ACL_FAILS(aclrtCreateStreamWithConfig(&stream, UINT32_MAX, 0));
    /* Bits outside the ACL_STREAM_* set give a plain stream. */
    ACL_OK(aclrtCreateStreamWithConfig(&stream, 0, 0x80000000u));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_FAILS_WITH(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

START_TEST(null_is_default_stream)
{
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_COMPLETE);
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    ACL_OK(aclrtRecordEvent(event, NULL));
    ACL_OK(aclrtSynchronizeEvent(event));

    /* Held through its real handle, seen through NULL ... */
    aclrtStream dflt = default_stream();
    acltest_gate gate;
    acltest_gate_close(&gate, dflt);
    ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtRecordEvent(event, NULL));
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    ACL_OK(aclrtQueryEventStatus(event, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(NULL, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_int_eq(stream_status(dflt), ACL_STREAM_STATUS_COMPLETE);

    /* ... and the other way round. */
    acltest_gate_close(&gate, NULL);
    ck_assert_int_eq(stream_status(dflt), ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(dflt));
    ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtQueryEventStatus(event, &recorded));
    ck_assert_int_eq(recorded, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ACL_OK(aclrtDestroyEvent(event));
}
END_TEST

START_TEST(default_stream_does_not_block_others)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    for (int round = 0; round < 10; round++) {
        acltest_gate gate;
        acltest_gate_close(&gate, NULL);
        queue_fill_and_read(stream, dev, host, BUF_SIZE, (uint8_t)(round + 1));
        /* Would never return if the created stream waited for the default one. */
        ACL_OK(aclrtSynchronizeStream(stream));
        assert_filled(host, BUF_SIZE, (uint8_t)(round + 1));
        ck_assert_int_eq(stream_status(NULL), ACL_STREAM_STATUS_NOT_READY);
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(NULL));
    }
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

START_TEST(other_streams_do_not_block_default)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    for (int round = 0; round < 10; round++) {
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
        queue_fill_and_read(NULL, dev, host, BUF_SIZE, (uint8_t)(0x80 + round));
        ACL_OK(aclrtSynchronizeStream(NULL));
        assert_filled(host, BUF_SIZE, (uint8_t)(0x80 + round));
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(stream));
    }
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

START_TEST(synchronize_with_timeout)
{
    aclrtStream stream = acltest_new_stream();
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, -1));
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, 0));
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, 50));

    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ACL_FAILS_WITH(aclrtSynchronizeStreamWithTimeout(stream, -2), ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStreamWithTimeout(stream, -1));
    ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(query_follows_gate)
{
    aclrtStream stream = acltest_new_stream();
    ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_COMPLETE);
    for (int round = 0; round < 20; round++) {
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
        acltest_gate_wait_reached(&gate);
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_NOT_READY);
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(stream));
        ck_assert_int_eq(stream_status(stream), ACL_STREAM_STATUS_COMPLETE);
    }
    ACL_FAILS_WITH(aclrtStreamQuery(stream, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* Opens a gate once the main thread is about to destroy the stream. */
typedef struct late_opener {
    acltest_gate *gate;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool destroying;
} late_opener;

static void *open_when_destroying(void *arg)
{
    late_opener *o = arg;
    acltest_gate_wait_reached(o->gate);
    pthread_mutex_lock(&o->lock);
    while (!o->destroying)
        pthread_cond_wait(&o->cond, &o->lock);
    pthread_mutex_unlock(&o->lock);
    acltest_gate_open(o->gate);
    return NULL;
}

START_TEST(destroy_waits_for_queued_work)
{
    enum { CHUNKS = 16, CHUNK = 4096 };
    void *dev = device_buffer(CHUNKS * CHUNK);
    uint8_t *src = host_buffer(CHUNKS * CHUNK);
    uint8_t *dst = host_buffer(CHUNKS * CHUNK);
    for (int round = 0; round < 10; round++) {
        uint8_t value = (uint8_t)(0x20 + round);
        memset(src, value, CHUNKS * CHUNK);
        memset(dst, 0, CHUNKS * CHUNK);
        aclrtStream stream = acltest_new_stream();
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
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
END_TEST

START_TEST(destroy_default_stream_fails)
{
    aclrtStream dflt = default_stream();
    ACL_FAILS(aclrtDestroyStream(dflt));
    ACL_OK(aclrtSynchronizeStream(dflt));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_ptr_eq(default_stream(), dflt);
}
END_TEST

START_TEST(bad_stream_handles)
{
    aclrtStream dead = acltest_new_stream();
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
END_TEST

START_TEST(destroy_from_other_context_fails)
{
    aclrtContext dflt = NULL;
    ACL_OK(aclrtGetCurrentContext(&dflt));
    aclrtStream stream = acltest_new_stream();
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ACL_FAILS(aclrtDestroyStream(stream));
    ACL_OK(aclrtSetCurrentContext(dflt));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtDestroyContext(ctx));
}
END_TEST

START_TEST(stream_ids_distinct)
{
    enum { N = 8 };
    aclrtStream streams[N];
    int32_t ids[N + 1];
    for (int i = 0; i < N; i++) {
        streams[i] = acltest_new_stream();
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
END_TEST

START_TEST(failure_mode)
{
    aclrtStream a = acltest_new_stream();
    aclrtStream b = acltest_new_stream();
    aclrtStream c = acltest_new_stream();
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
END_TEST

START_TEST(many_streams)
{
    enum { N = 300, CHUNK = 256 };
    aclrtStream *streams = calloc(N, sizeof *streams);
    ck_assert_ptr_nonnull(streams);
    uint8_t *dev = device_buffer((size_t)N * CHUNK);
    uint8_t *host = host_buffer((size_t)N * CHUNK);
    for (int i = 0; i < N; i++)
        streams[i] = acltest_new_stream();
    for (int i = 0; i < N; i++)
        queue_fill_and_read(streams[i], dev + (size_t)i * CHUNK, host + (size_t)i * CHUNK, CHUNK,
                            (uint8_t)(i * 7 + 1));
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtSynchronizeStream(streams[i]));
    for (int i = 0; i < N; i++)
        assert_filled(host + (size_t)i * CHUNK, CHUNK, (uint8_t)(i * 7 + 1));
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    free(streams);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("stream");

    TCase *lifecycle = tcase_create("lifecycle");
    tcase_add_checked_fixture(lifecycle, set_up, tear_down);
    tcase_add_test(lifecycle, create_and_destroy);
    tcase_add_test(lifecycle, create_needs_a_context);
    tcase_add_test(lifecycle, create_with_config);
    tcase_add_test(lifecycle, destroy_waits_for_queued_work);
    tcase_add_test(lifecycle, destroy_default_stream_fails);
    tcase_add_test(lifecycle, bad_stream_handles);
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

    TCase *scale = tcase_create("scale");
    tcase_add_checked_fixture(scale, set_up, tear_down);
    tcase_set_timeout(scale, 60);
    tcase_add_test(scale, many_streams);
    suite_add_tcase(s, scale);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
