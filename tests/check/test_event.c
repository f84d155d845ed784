/* Events: creation flags and what each flag allows, record / query /
 * synchronise, cross-stream waits moving real data, elapsed time, the four
 * documented synchronisation flows and scale. */
#include "acltest.h"

enum { BUF_SIZE = 16 * 1024 };

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
static aclrtEvent new_event(void)
{
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    ck_assert_ptr_nonnull(event);
    return event;
}

static aclrtEvent new_event_with_flag(uint32_t flag)
{
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&event, flag));
    ck_assert_ptr_nonnull(event);
    return event;
}

static aclrtEvent new_event_ex(uint32_t flag)
{
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEventExWithFlag(&event, flag));
    ck_assert_ptr_nonnull(event);
    return event;
}

static aclrtEventRecordedStatus recorded_status(aclrtEvent event)
{
    aclrtEventRecordedStatus status = (aclrtEventRecordedStatus)-1;
    ACL_OK(aclrtQueryEventStatus(event, &status));
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
    ACL_OK(aclrtDestroyEvent(new_event()));
    const uint32_t flags[] = {ACL_EVENT_TIME_LINE, ACL_EVENT_SYNC,
                              ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        ACL_OK(aclrtDestroyEvent(new_event_with_flag(flags[i])));
        ACL_OK(aclrtDestroyEvent(new_event_ex(flags[i])));
    }
    ACL_FAILS_WITH(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(destroy_pending_does_not_block)
{
    aclrtStream stream = acltest_new_stream();
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    aclrtEvent plain = new_event();
    aclrtEvent ex = new_event_ex(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(plain, stream));
    ACL_OK(aclrtRecordEvent(ex, stream));
    ck_assert_int_eq(recorded_status(plain), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    /* Would hang here if destroy waited for the gate. */
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyEvent(ex));
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(bad_event_handles)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent dead = new_event();
    ACL_OK(aclrtDestroyEvent(dead));
    aclrtEventRecordedStatus status;
    ACL_FAILS(aclrtDestroyEvent(dead));
    ACL_FAILS(aclrtRecordEvent(dead, stream));
    ACL_FAILS(aclrtQueryEventStatus(dead, &status));
    ACL_FAILS(aclrtSynchronizeEvent(dead));
    ACL_FAILS(aclrtStreamWaitEvent(stream, dead));
    int not_an_event = 0x41434C45;
    ACL_FAILS(aclrtRecordEvent(&not_an_event, stream));
    ACL_FAILS(aclrtSynchronizeEvent(&not_an_event));
    ACL_FAILS(aclrtDestroyEvent(stream));
    ACL_FAILS_WITH(aclrtRecordEvent(NULL, stream), ACL_ERROR_INVALID_PARAM);
    aclrtEvent live = new_event();
    ACL_FAILS_WITH(aclrtQueryEventStatus(live, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyEvent(live));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(without_sync_flag_no_wait_or_reset)
{
    aclrtStream s1 = acltest_new_stream();
    aclrtStream s2 = acltest_new_stream();
    aclrtEvent timing_only = new_event_with_flag(ACL_EVENT_TIME_LINE);
    ACL_OK(aclrtRecordEvent(timing_only, s1));
    ACL_FAILS(aclrtStreamWaitEvent(s2, timing_only));
    ACL_FAILS(aclrtResetEvent(timing_only, s2));
    aclrtEvent timing_only_ex = new_event_ex(ACL_EVENT_TIME_LINE);
    ACL_OK(aclrtRecordEvent(timing_only_ex, s1));
    ACL_FAILS(aclrtStreamWaitEvent(s2, timing_only_ex));

    /* With the flag both are fine. */
    aclrtEvent sync = new_event_with_flag(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(sync, s1));
    ACL_OK(aclrtStreamWaitEvent(s2, sync));
    ACL_OK(aclrtResetEvent(sync, s2));
    ACL_OK(aclrtSynchronizeStream(s2));
    ACL_OK(aclrtSynchronizeStream(s1));

    ACL_OK(aclrtDestroyEvent(timing_only));
    ACL_OK(aclrtDestroyEvent(timing_only_ex));
    ACL_OK(aclrtDestroyEvent(sync));
    ACL_OK(aclrtDestroyStream(s1));
    ACL_OK(aclrtDestroyStream(s2));
}
END_TEST

START_TEST(without_time_line_no_elapsed)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent start = new_event_with_flag(ACL_EVENT_SYNC);
    aclrtEvent end = new_event_with_flag(ACL_EVENT_SYNC);
    aclrtEvent timed = new_event_with_flag(ACL_EVENT_TIME_LINE);
    ACL_OK(aclrtRecordEvent(start, stream));
    ACL_OK(aclrtRecordEvent(timed, stream));
    ACL_OK(aclrtRecordEvent(end, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    float ms = -1.0f;
    ACL_FAILS(aclrtEventElapsedTime(&ms, start, end));
    ACL_FAILS(aclrtEventElapsedTime(&ms, timed, end));
    ACL_FAILS(aclrtEventElapsedTime(&ms, start, timed));
    ACL_OK(aclrtDestroyEvent(start));
    ACL_OK(aclrtDestroyEvent(end));
    ACL_OK(aclrtDestroyEvent(timed));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* aclrtQueryEvent is deprecated in the newest headers but still part of the API. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static aclrtEventStatus legacy_status(aclrtEvent event)
{
    aclrtEventStatus status = ACL_EVENT_STATUS_RESERVED;
    ACL_OK(aclrtQueryEvent(event, &status));
    return status;
}
#pragma GCC diagnostic pop

/* Reusable (Ex) events are documented as unusable with ResetEvent,
 * QueryEvent and QueryEventWaitStatus. */
START_TEST(ex_event_restrictions)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent event = new_event_ex(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(event, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    aclrtEventStatus status;
    aclrtEventWaitStatus wait_status;
    ACL_FAILS(aclrtResetEvent(event, stream));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ACL_FAILS(aclrtQueryEvent(event, &status));
#pragma GCC diagnostic pop
    ACL_FAILS(aclrtQueryEventWaitStatus(event, &wait_status));
    /* What it does support still works. */
    ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(query_variants_use_opposite_numbers)
{
    ck_assert_int_eq(ACL_EVENT_STATUS_COMPLETE, 0);
    ck_assert_int_eq(ACL_EVENT_STATUS_NOT_READY, 1);
    ck_assert_int_eq(ACL_EVENT_RECORDED_STATUS_COMPLETE, 1);
    ck_assert_int_eq(ACL_EVENT_RECORDED_STATUS_NOT_READY, 0);

    aclrtStream stream = acltest_new_stream();
    aclrtEvent event = new_event();
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    ck_assert_int_eq(legacy_status(event), 1);
    ck_assert_int_eq(recorded_status(event), 0);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeEvent(event));
    ck_assert_int_eq(legacy_status(event), 0);
    ck_assert_int_eq(recorded_status(event), 1);
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* CANN: events of aclrtCreateEvent and aclrtCreateEventWithFlag are not
 * ready before their first record; aclrtCreateEventExWithFlag's are
 * complete. Synchronizing any of them returns at once. */
START_TEST(never_recorded_is_not_ready_but_ex)
{
    aclrtEvent events[] = {new_event(), new_event_with_flag(ACL_EVENT_SYNC),
                           new_event_ex(ACL_EVENT_SYNC)};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        ck_assert_int_eq(recorded_status(events[i]), i == 2 ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                                            : ACL_EVENT_RECORDED_STATUS_NOT_READY);
        if (i < 2)
            ck_assert_int_eq(legacy_status(events[i]), ACL_EVENT_STATUS_NOT_READY);
        ACL_OK(aclrtSynchronizeEvent(events[i]));
        ACL_OK(aclrtSynchronizeEventWithTimeout(events[i], 50));
        ACL_OK(aclrtDestroyEvent(events[i]));
    }
}
END_TEST

START_TEST(record_follows_gate)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent events[] = {new_event(), new_event_with_flag(ACL_EVENT_SYNC),
                           new_event_ex(ACL_EVENT_SYNC)};
    enum { N = sizeof events / sizeof events[0] };
    for (int round = 0; round < 10; round++) {
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
        for (int i = 0; i < N; i++)
            ACL_OK(aclrtRecordEvent(events[i], stream));
        acltest_gate_wait_reached(&gate);
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(recorded_status(events[i]), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        acltest_gate_open(&gate);
        for (int i = 0; i < N; i++) {
            ACL_OK(aclrtSynchronizeEvent(events[i]));
            ck_assert_int_eq(recorded_status(events[i]), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        }
    }
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtDestroyEvent(events[i]));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(rerecord_captures_new_work)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent events[] = {new_event(), new_event_ex(ACL_EVENT_SYNC)};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        aclrtEvent event = events[i];
        ACL_OK(aclrtRecordEvent(event, stream));
        ACL_OK(aclrtSynchronizeEvent(event));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
        ACL_OK(aclrtRecordEvent(event, stream));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        ACL_FAILS_WITH(aclrtSynchronizeEventWithTimeout(event, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeEvent(event));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        ACL_OK(aclrtDestroyEvent(event));
    }
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

START_TEST(synchronize_with_timeout)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent event = new_event();
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    ACL_FAILS_WITH(aclrtSynchronizeEventWithTimeout(event, 50), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    ck_assert_int_eq(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047);
    ACL_FAILS_WITH(aclrtSynchronizeEventWithTimeout(event, -2), ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeEventWithTimeout(event, -1));
    ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeEventWithTimeout(event, 50));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* s1 writes the buffer behind a gate, s2 waits for s1's event and reads it
 * back: without a working wait s2 reads the previous round's value. */
static void wait_moves_data(aclrtEvent (*make_event)(void))
{
    aclrtStream s1 = acltest_new_stream();
    aclrtStream s2 = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *src = host_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    ACL_OK(aclrtMemset(dev, BUF_SIZE, 0, BUF_SIZE));
    aclrtEvent event = make_event();
    for (int round = 0; round < 50; round++) {
        uint8_t value = (uint8_t)(round + 1);
        acltest_gate gate;
        acltest_gate_close(&gate, s1);
        if (round % 2 == 0) {
            ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, s1));
        } else {
            memset(src, value, BUF_SIZE);
            ACL_OK(aclrtMemcpyAsync(dev, BUF_SIZE, src, BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, s1));
        }
        ACL_OK(aclrtRecordEvent(event, s1));
        ACL_OK(aclrtStreamWaitEvent(s2, event));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s2));
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(s2));
        assert_filled(dst, BUF_SIZE, value);
        /* s1 may not be idle yet: the next round's source must not change
         * under a pending copy. */
        ACL_OK(aclrtSynchronizeStream(s1));
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(s1));
    ACL_OK(aclrtDestroyStream(s2));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(src));
    ACL_OK(aclrtFreeHost(dst));
}

static aclrtEvent make_plain(void)
{
    return new_event();
}

static aclrtEvent make_sync(void)
{
    return new_event_with_flag(ACL_EVENT_SYNC);
}

static aclrtEvent make_ex_sync(void)
{
    return new_event_ex(ACL_EVENT_SYNC);
}

START_TEST(wait_moves_data_plain_event)
{
    wait_moves_data(make_plain);
}
END_TEST

START_TEST(wait_moves_data_sync_event)
{
    wait_moves_data(make_sync);
}
END_TEST

START_TEST(wait_moves_data_ex_event)
{
    wait_moves_data(make_ex_sync);
}
END_TEST

/* The wait also works with the default stream on either side. */
START_TEST(wait_with_default_stream)
{
    aclrtStream stream = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event();
    for (int round = 0; round < 20; round++) {
        uint8_t value = (uint8_t)(0x40 + round);
        bool writer_is_default = round % 2 == 0;
        aclrtStream writer = writer_is_default ? NULL : stream;
        aclrtStream reader = writer_is_default ? stream : NULL;
        acltest_gate gate;
        acltest_gate_close(&gate, writer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(event, writer));
        ACL_OK(aclrtStreamWaitEvent(reader, event));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, reader));
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(reader));
        assert_filled(dst, BUF_SIZE, value);
        ACL_OK(aclrtSynchronizeStream(writer));
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}
END_TEST

START_TEST(many_streams_wait_one_event)
{
    enum { READERS = 5 };
    aclrtStream writer = acltest_new_stream();
    aclrtStream readers[READERS];
    uint8_t *dst[READERS];
    for (int r = 0; r < READERS; r++) {
        readers[r] = acltest_new_stream();
        dst[r] = host_buffer(BUF_SIZE);
    }
    uint8_t *dev = device_buffer(BUF_SIZE);
    aclrtEvent event = new_event();
    for (int round = 0; round < 10; round++) {
        uint8_t value = (uint8_t)(0x60 + round);
        acltest_gate gate;
        acltest_gate_close(&gate, writer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(event, writer));
        for (int r = 0; r < READERS; r++) {
            ACL_OK(aclrtStreamWaitEvent(readers[r], event));
            ACL_OK(aclrtMemcpyAsync(dst[r], BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST,
                                    readers[r]));
        }
        acltest_gate_open(&gate);
        for (int r = 0; r < READERS; r++) {
            ACL_OK(aclrtSynchronizeStream(readers[r]));
            assert_filled(dst[r], BUF_SIZE, value);
        }
        ACL_OK(aclrtSynchronizeStream(writer));
    }
    ACL_OK(aclrtDestroyEvent(event));
    for (int r = 0; r < READERS; r++) {
        ACL_OK(aclrtDestroyStream(readers[r]));
        ACL_OK(aclrtFreeHost(dst[r]));
    }
    ACL_OK(aclrtDestroyStream(writer));
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* A wait refers to the record it was issued after. The event is recorded
 * again on a stream that can only finish after the waiter has finished, so a
 * wait that followed the newer record would never release. One gate only:
 * the CUDA backend may run the host functions of all streams on one thread. */
static void wait_binds_to_earlier_record(aclrtEvent (*make_event)(void))
{
    aclrtStream writer = acltest_new_stream();
    aclrtStream reader = acltest_new_stream();
    aclrtStream later = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = make_event();
    aclrtEvent reader_done = new_event();
    for (int round = 0; round < 10; round++) {
        uint8_t value = (uint8_t)(0xa0 + round);
        acltest_gate gate;
        acltest_gate_close(&gate, writer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(event, writer));
        ACL_OK(aclrtStreamWaitEvent(reader, event));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, reader));
        ACL_OK(aclrtRecordEvent(reader_done, reader));
        ACL_OK(aclrtStreamWaitEvent(later, reader_done));
        ACL_OK(aclrtRecordEvent(event, later));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        acltest_gate_open(&gate);
        /* Hangs if the wait follows the second record. */
        ACL_OK(aclrtSynchronizeStream(reader));
        assert_filled(dst, BUF_SIZE, value);
        ACL_OK(aclrtSynchronizeStream(later));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        ACL_OK(aclrtSynchronizeStream(writer));
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyEvent(reader_done));
    ACL_OK(aclrtDestroyStream(writer));
    ACL_OK(aclrtDestroyStream(reader));
    ACL_OK(aclrtDestroyStream(later));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}

START_TEST(wait_binds_to_earlier_record_plain)
{
    wait_binds_to_earlier_record(make_plain);
}
END_TEST

START_TEST(wait_binds_to_earlier_record_ex)
{
    wait_binds_to_earlier_record(make_ex_sync);
}
END_TEST

START_TEST(elapsed_time)
{
    aclrtStream stream = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    aclrtEvent pairs[][2] = {
        {new_event(), new_event()},
        {new_event_with_flag(ACL_EVENT_TIME_LINE), new_event_with_flag(ACL_EVENT_TIME_LINE)},
        {new_event_ex(ACL_EVENT_TIME_LINE), new_event_ex(ACL_EVENT_TIME_LINE)},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        aclrtEvent start = pairs[i][0], end = pairs[i][1];
        acltest_gate gate;
        ACL_OK(aclrtRecordEvent(start, stream));
        acltest_gate_close(&gate, stream);
        ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        ACL_OK(aclrtRecordEvent(end, stream));
        float ms = -1.0f;
        /* Not complete yet. */
        ACL_FAILS(aclrtEventElapsedTime(&ms, start, end));
        acltest_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(stream));
        ACL_OK(aclrtEventElapsedTime(&ms, start, end));
        ck_assert_float_ge(ms, 0.0f);
        ACL_OK(aclrtDestroyEvent(start));
        ACL_OK(aclrtDestroyEvent(end));
    }
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

START_TEST(elapsed_time_errors)
{
    aclrtStream stream = acltest_new_stream();
    aclrtEvent recorded = new_event();
    aclrtEvent unrecorded = new_event();
    aclrtEvent also_unrecorded = new_event();
    ACL_OK(aclrtRecordEvent(recorded, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    float ms = 0.0f;
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, unrecorded, also_unrecorded),
                   ACL_ERROR_RT_INTERNAL_ERROR);
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, recorded, unrecorded), ACL_ERROR_RT_INTERNAL_ERROR);
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, unrecorded, recorded), ACL_ERROR_RT_INTERNAL_ERROR);
    ACL_FAILS_WITH(aclrtEventElapsedTime(NULL, recorded, recorded), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, NULL, recorded), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtEventElapsedTime(&ms, recorded, NULL), ACL_ERROR_RT_PARAM_INVALID);
    ACL_OK(aclrtDestroyEvent(recorded));
    ACL_OK(aclrtDestroyEvent(unrecorded));
    ACL_OK(aclrtDestroyEvent(also_unrecorded));
    ACL_OK(aclrtDestroyStream(stream));
}
END_TEST

/* The documented flows. Each round queues a copy behind a gate that a helper
 * thread opens once the stream reached it, while the main thread is on its
 * way into the synchronising call: the data is only right if that call
 * waited. */
static void *open_gate_when_reached(void *arg)
{
    acltest_gate *gate = arg;
    acltest_gate_wait_reached(gate);
    acltest_gate_open(gate);
    return NULL;
}

static pthread_t start_opener(acltest_gate *gate)
{
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, open_gate_when_reached, gate), 0);
    return thread;
}

enum { FLOW_ROUNDS = 20 };

START_TEST(flow_event_synchronize)
{
    aclrtStream stream = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *src = host_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event();
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        uint8_t value = (uint8_t)(round + 3);
        memset(src, value, BUF_SIZE);
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
        ACL_OK(aclrtMemcpyAsync(dev, BUF_SIZE, src, BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        ACL_OK(aclrtRecordEvent(event, stream));
        pthread_t thread = start_opener(&gate);
        ACL_OK(aclrtSynchronizeEvent(event));
        assert_filled(dst, BUF_SIZE, value);
        pthread_join(thread, NULL);
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(src));
    ACL_OK(aclrtFreeHost(dst));
}
END_TEST

START_TEST(flow_stream_synchronize)
{
    aclrtStream stream = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        uint8_t value = (uint8_t)(round + 0x31);
        acltest_gate gate;
        acltest_gate_close(&gate, stream);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, stream));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        pthread_t thread = start_opener(&gate);
        ACL_OK(aclrtSynchronizeStream(stream));
        assert_filled(dst, BUF_SIZE, value);
        pthread_join(thread, NULL);
    }
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}
END_TEST

START_TEST(flow_stream_wait_event)
{
    aclrtStream producer = acltest_new_stream();
    aclrtStream consumer = acltest_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event_with_flag(ACL_EVENT_SYNC);
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        uint8_t value = (uint8_t)(round + 0x51);
        acltest_gate gate;
        acltest_gate_close(&gate, producer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, producer));
        ACL_OK(aclrtRecordEvent(event, producer));
        ACL_OK(aclrtStreamWaitEvent(consumer, event));
        ACL_OK(aclrtResetEvent(event, consumer));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
        pthread_t thread = start_opener(&gate);
        ACL_OK(aclrtSynchronizeStream(consumer));
        assert_filled(dst, BUF_SIZE, value);
        pthread_join(thread, NULL);
        ACL_OK(aclrtSynchronizeStream(producer));
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(producer));
    ACL_OK(aclrtDestroyStream(consumer));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}
END_TEST

/* One gate on the default stream holds the other streams too, through an
 * event they wait for. */
START_TEST(flow_device_synchronize)
{
    enum { STREAMS = 4 };
    aclrtStream streams[STREAMS];
    uint8_t *dev = device_buffer(STREAMS * BUF_SIZE);
    uint8_t *dst = host_buffer(STREAMS * BUF_SIZE);
    for (int i = 0; i < STREAMS; i++)
        streams[i] = i == 0 ? NULL : acltest_new_stream();
    aclrtEvent held = new_event();
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        acltest_gate gate;
        acltest_gate_close(&gate, NULL);
        ACL_OK(aclrtRecordEvent(held, NULL));
        for (int i = 0; i < STREAMS; i++) {
            uint8_t *chunk = dev + (size_t)i * BUF_SIZE;
            if (i > 0)
                ACL_OK(aclrtStreamWaitEvent(streams[i], held));
            ACL_OK(aclrtMemsetAsync(chunk, BUF_SIZE, round * STREAMS + i, BUF_SIZE, streams[i]));
            ACL_OK(aclrtMemcpyAsync(dst + (size_t)i * BUF_SIZE, BUF_SIZE, chunk, BUF_SIZE,
                                    ACL_MEMCPY_DEVICE_TO_HOST, streams[i]));
        }
        pthread_t thread = start_opener(&gate);
        ACL_OK(aclrtSynchronizeDevice());
        for (int i = 0; i < STREAMS; i++)
            assert_filled(dst + (size_t)i * BUF_SIZE, BUF_SIZE, (uint8_t)(round * STREAMS + i));
        pthread_join(thread, NULL);
    }
    ACL_OK(aclrtDestroyEvent(held));
    for (int i = 1; i < STREAMS; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}
END_TEST

START_TEST(wait_status)
{
    aclrtStream s1 = acltest_new_stream();
    aclrtStream s2 = acltest_new_stream();
    aclrtEvent event = new_event_with_flag(ACL_EVENT_SYNC);
    acltest_gate gate;
    acltest_gate_close(&gate, s1);
    ACL_OK(aclrtRecordEvent(event, s1));
    ACL_OK(aclrtStreamWaitEvent(s2, event));
    aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_RESERVED;
    ACL_OK(aclrtQueryEventWaitStatus(event, &status));
    ck_assert_int_eq(status, ACL_EVENT_WAIT_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s2));
    ACL_OK(aclrtQueryEventWaitStatus(event, &status));
    ck_assert_int_eq(status, ACL_EVENT_WAIT_STATUS_COMPLETE);
    ACL_FAILS_WITH(aclrtQueryEventWaitStatus(event, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(s1));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(s1));
    ACL_OK(aclrtDestroyStream(s2));
}
END_TEST

START_TEST(op_wait_timeout)
{
    ACL_OK(aclrtSetOpWaitTimeout(0));
    ACL_OK(aclrtSetOpWaitTimeout(30));
    ACL_OK(aclrtSetOpWaitTimeout(0));
}
END_TEST

START_TEST(many_events_over_many_streams)
{
    enum { STREAMS = 300, PER_STREAM = 10, CHUNK = 64 };
    aclrtStream *streams = calloc(STREAMS, sizeof *streams);
    aclrtEvent *events = calloc(STREAMS * PER_STREAM, sizeof *events);
    ck_assert_ptr_nonnull(streams);
    ck_assert_ptr_nonnull(events);
    uint8_t *dev = device_buffer((size_t)STREAMS * CHUNK);
    for (int i = 0; i < STREAMS; i++)
        streams[i] = acltest_new_stream();
    for (int i = 0; i < STREAMS * PER_STREAM; i++)
        events[i] = new_event();
    /* Every wait refers to a record made earlier, so the chain cannot cycle. */
    for (int k = 0; k < PER_STREAM; k++) {
        for (int i = 0; i < STREAMS; i++) {
            aclrtEvent event = events[i * PER_STREAM + k];
            ACL_OK(aclrtMemsetAsync(dev + (size_t)i * CHUNK, CHUNK, k + 1, CHUNK, streams[i]));
            ACL_OK(aclrtRecordEvent(event, streams[i]));
            ACL_OK(aclrtStreamWaitEvent(streams[(i + 1) % STREAMS], event));
        }
    }
    for (int i = 0; i < STREAMS; i++)
        ACL_OK(aclrtSynchronizeStream(streams[i]));
    for (int i = 0; i < STREAMS * PER_STREAM; i++)
        ck_assert_int_eq(recorded_status(events[i]), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    uint8_t *host = malloc((size_t)STREAMS * CHUNK);
    ck_assert_ptr_nonnull(host);
    ACL_OK(aclrtMemcpy(host, (size_t)STREAMS * CHUNK, dev, (size_t)STREAMS * CHUNK,
                       ACL_MEMCPY_DEVICE_TO_HOST));
    assert_filled(host, (size_t)STREAMS * CHUNK, PER_STREAM);
    for (int i = 0; i < STREAMS * PER_STREAM; i++)
        ACL_OK(aclrtDestroyEvent(events[i]));
    for (int i = 0; i < STREAMS; i++)
        ACL_OK(aclrtDestroyStream(streams[i]));
    ACL_OK(aclrtFree(dev));
    free(host);
    free(events);
    free(streams);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("event");

    TCase *lifecycle = tcase_create("lifecycle");
    tcase_add_checked_fixture(lifecycle, set_up, tear_down);
    tcase_add_test(lifecycle, create_and_destroy);
    tcase_add_test(lifecycle, destroy_pending_does_not_block);
    tcase_add_test(lifecycle, bad_event_handles);
    tcase_add_test(lifecycle, without_sync_flag_no_wait_or_reset);
    tcase_add_test(lifecycle, without_time_line_no_elapsed);
    suite_add_tcase(s, lifecycle);

    TCase *status = tcase_create("status");
    tcase_add_checked_fixture(status, set_up, tear_down);
    tcase_add_test(status, query_variants_use_opposite_numbers);
    tcase_add_test(status, ex_event_restrictions);
    tcase_add_test(status, never_recorded_is_not_ready_but_ex);
    tcase_add_test(status, record_follows_gate);
    tcase_add_test(status, rerecord_captures_new_work);
    tcase_add_test(status, synchronize_with_timeout);
    tcase_add_test(status, wait_status);
    tcase_add_test(status, op_wait_timeout);
    suite_add_tcase(s, status);

    TCase *wait = tcase_create("wait");
    tcase_add_checked_fixture(wait, set_up, tear_down);
    tcase_add_test(wait, wait_moves_data_plain_event);
    tcase_add_test(wait, wait_moves_data_sync_event);
    tcase_add_test(wait, wait_moves_data_ex_event);
    tcase_add_test(wait, wait_with_default_stream);
    tcase_add_test(wait, many_streams_wait_one_event);
    tcase_add_test(wait, wait_binds_to_earlier_record_plain);
    tcase_add_test(wait, wait_binds_to_earlier_record_ex);
    suite_add_tcase(s, wait);

    TCase *timing = tcase_create("timing");
    tcase_add_checked_fixture(timing, set_up, tear_down);
    tcase_add_test(timing, elapsed_time);
    tcase_add_test(timing, elapsed_time_errors);
    suite_add_tcase(s, timing);

    TCase *flows = tcase_create("flows");
    tcase_add_checked_fixture(flows, set_up, tear_down);
    tcase_add_test(flows, flow_event_synchronize);
    tcase_add_test(flows, flow_stream_synchronize);
    tcase_add_test(flows, flow_stream_wait_event);
    tcase_add_test(flows, flow_device_synchronize);
    suite_add_tcase(s, flows);

    TCase *scale = tcase_create("scale");
    tcase_add_checked_fixture(scale, set_up, tear_down);
    tcase_set_timeout(scale, 60);
    tcase_add_test(scale, many_events_over_many_streams);
    suite_add_tcase(s, scale);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
