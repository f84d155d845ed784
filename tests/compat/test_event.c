/* Events: creation flags and what each flag allows, record / query /
 * synchronise, cross-stream waits moving real data, elapsed time, the four
 * documented synchronisation flows, and the bad-argument rows of the event
 * functions. */
#include "bad_args.h"

enum { BUF_SIZE = 16 * 1024 };

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

COMPAT_TEST(create_and_destroy,
            "events are made by aclrtCreateEvent and, with TIME_LINE/SYNC flags, by aclrtCreateEventWithFlag and aclrtCreateEventExWithFlag; NULL outputs and NULL destroy are ACL_ERROR_INVALID_PARAM",
            "acl_rt.h aclrtCreateEvent*, aclrtDestroyEvent; API ref Event Management")
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

COMPAT_TEST(destroy_pending_does_not_block,
            "aclrtDestroyEvent on a pending event returns at once; resources go when it completes",
            "API ref aclrtDestroyEvent: non-blocking")
{
    aclrtStream stream = compat_new_stream();
    compat_gate gate;
    compat_gate_close(&gate, stream);
    aclrtEvent plain = new_event();
    aclrtEvent ex = new_event_ex(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(plain, stream));
    ACL_OK(aclrtRecordEvent(ex, stream));
    ck_assert_int_eq(recorded_status(plain), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    /* Would hang here if destroy waited for the gate. */
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyEvent(ex));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyStream(stream));
}

COMPAT_TEST(bad_event_handles,
            "destroyed events, garbage and streams passed as events are refused with an error "
            "and a message",
            "acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)")
{
    aclrtStream stream = compat_new_stream();
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

COMPAT_TEST(without_sync_flag_no_wait_or_reset,
            "an event made with a flag set lacking ACL_EVENT_SYNC cannot be waited for or reset; with it both work",
            "API ref aclrtCreateEventWithFlag / ExWithFlag: without ACL_EVENT_SYNC no aclrtStreamWaitEvent or aclrtResetEvent")
{
    aclrtStream s1 = compat_new_stream();
    aclrtStream s2 = compat_new_stream();
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

COMPAT_TEST(without_time_line_no_elapsed,
            "aclrtEventElapsedTime refuses events made without ACL_EVENT_TIME_LINE",
            "API ref aclrtCreateEventWithFlag: timing needs ACL_EVENT_TIME_LINE; aclrtEventElapsedTime")
{
    aclrtStream stream = compat_new_stream();
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
COMPAT_TEST(ex_event_restrictions,
            "events of aclrtCreateEventExWithFlag cannot be used with aclrtResetEvent, aclrtQueryEvent or aclrtQueryEventWaitStatus; aclrtQueryEventStatus works",
            "API ref aclrtCreateEventExWithFlag: restrictions")
{
    aclrtStream stream = compat_new_stream();
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

COMPAT_TEST(query_variants_use_opposite_numbers,
            "aclrtQueryEvent reports COMPLETE as 0 and NOT_READY as 1, aclrtQueryEventStatus the opposite (COMPLETE = 1)",
            "acl_rt.h aclrtEventStatus vs aclrtEventRecordedStatus; API ref aclrtQueryEvent, aclrtQueryEventStatus")
{
    ck_assert_int_eq(ACL_EVENT_STATUS_COMPLETE, 0);
    ck_assert_int_eq(ACL_EVENT_STATUS_NOT_READY, 1);
    ck_assert_int_eq(ACL_EVENT_RECORDED_STATUS_COMPLETE, 1);
    ck_assert_int_eq(ACL_EVENT_RECORDED_STATUS_NOT_READY, 0);

    aclrtStream stream = compat_new_stream();
    aclrtEvent event = new_event();
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    ck_assert_int_eq(legacy_status(event), 1);
    ck_assert_int_eq(recorded_status(event), 0);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeEvent(event));
    ck_assert_int_eq(legacy_status(event), 0);
    ck_assert_int_eq(recorded_status(event), 1);
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}

COMPAT_TEST(never_recorded_is_not_ready_but_ex,
            "before its first record an event of aclrtCreateEvent or aclrtCreateEventWithFlag is "
            "NOT_READY (both status queries), one of aclrtCreateEventExWithFlag COMPLETE; "
            "synchronizing any of them returns at once",
            "API ref aclrtCreateEventExWithFlag (Ex: COMPLETE before the first record); CANN runtime "
            "(plain and WithFlag events: not ready); [impl] aclrtSynchronizeEvent of an unrecorded event")
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

COMPAT_TEST(record_follows_gate,
            "a recorded event is NOT_READY until the work queued before the record has run, COMPLETE after",
            "API ref aclrtRecordEvent: captures the work already queued; aclrtQueryEventStatus")
{
    aclrtStream stream = compat_new_stream();
    aclrtEvent events[] = {new_event(), new_event_with_flag(ACL_EVENT_SYNC),
                           new_event_ex(ACL_EVENT_SYNC)};
    enum { N = sizeof events / sizeof events[0] };
    for (int round = 0; round < 10; round++) {
        compat_gate gate;
        compat_gate_close(&gate, stream);
        for (int i = 0; i < N; i++)
            ACL_OK(aclrtRecordEvent(events[i], stream));
        compat_gate_wait_reached(&gate);
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(recorded_status(events[i]), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        compat_gate_open(&gate);
        for (int i = 0; i < N; i++) {
            ACL_OK(aclrtSynchronizeEvent(events[i]));
            ck_assert_int_eq(recorded_status(events[i]), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        }
    }
    for (int i = 0; i < N; i++)
        ACL_OK(aclrtDestroyEvent(events[i]));
    ACL_OK(aclrtDestroyStream(stream));
}

COMPAT_TEST(rerecord_captures_new_work,
            "recording an event again captures the stream's current work",
            "API ref aclrtRecordEvent; aclrtCreateEventExWithFlag: re-record overwrites")
{
    aclrtStream stream = compat_new_stream();
    aclrtEvent events[] = {new_event(), new_event_ex(ACL_EVENT_SYNC)};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        aclrtEvent event = events[i];
        ACL_OK(aclrtRecordEvent(event, stream));
        ACL_OK(aclrtSynchronizeEvent(event));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        compat_gate gate;
        compat_gate_close(&gate, stream);
        ACL_OK(aclrtRecordEvent(event, stream));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeEvent(event));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        ACL_OK(aclrtDestroyEvent(event));
    }
    ACL_OK(aclrtDestroyStream(stream));
}

COMPAT_TEST(synchronize_with_timeout,
            "aclrtSynchronizeEventWithTimeout: expiry returns ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047), -1 waits forever, below -1 is ACL_ERROR_RT_PARAM_INVALID",
            "acl_rt.h aclrtSynchronizeEventWithTimeout (ms); API ref; [impl] 107000")
{
    aclrtStream stream = compat_new_stream();
    aclrtEvent event = new_event();
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    ACL_FAILS_WITH(aclrtSynchronizeEventWithTimeout(event, 50), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    ck_assert_int_eq(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047);
    ACL_FAILS_WITH(aclrtSynchronizeEventWithTimeout(event, -2), ACL_ERROR_RT_PARAM_INVALID);
    ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeEventWithTimeout(event, -1));
    ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeEventWithTimeout(event, 50));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}

/* s1 writes the buffer behind a gate, s2 waits for s1's event and reads it
 * back: without a working wait s2 reads the previous round's value. */
static void wait_moves_data(aclrtEvent (*make_event)(void))
{
    aclrtStream s1 = compat_new_stream();
    aclrtStream s2 = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *src = host_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    ACL_OK(aclrtMemset(dev, BUF_SIZE, 0, BUF_SIZE));
    aclrtEvent event = make_event();
    for (int round = 0; round < 50; round++) {
        uint8_t value = (uint8_t)(round + 1);
        compat_gate gate;
        compat_gate_close(&gate, s1);
        if (round % 2 == 0) {
            ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, s1));
        } else {
            memset(src, value, BUF_SIZE);
            ACL_OK(aclrtMemcpyAsync(dev, BUF_SIZE, src, BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, s1));
        }
        ACL_OK(aclrtRecordEvent(event, s1));
        ACL_OK(aclrtStreamWaitEvent(s2, event));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s2));
        compat_gate_open(&gate);
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

COMPAT_TEST(wait_moves_data_plain_event,
            "aclrtStreamWaitEvent makes a stream wait for another stream's recorded work (aclrtCreateEvent event)",
            "API ref aclrtStreamWaitEvent; aclrtCreateEvent: usable for sync")
{
    wait_moves_data(make_plain);
}

COMPAT_TEST(wait_moves_data_sync_event,
            "aclrtStreamWaitEvent with an ACL_EVENT_SYNC event orders two streams",
            "API ref aclrtStreamWaitEvent; aclrtCreateEventWithFlag(ACL_EVENT_SYNC)")
{
    wait_moves_data(make_sync);
}

COMPAT_TEST(wait_moves_data_ex_event,
            "aclrtStreamWaitEvent with an Ex ACL_EVENT_SYNC event orders two streams",
            "API ref aclrtStreamWaitEvent; aclrtCreateEventExWithFlag")
{
    wait_moves_data(make_ex_sync);
}

/* The wait also works with the default stream on either side. */
COMPAT_TEST(wait_with_default_stream,
            "event waits work with the default stream (NULL) on either side",
            "API ref aclrtRecordEvent / aclrtStreamWaitEvent: NULL = default stream")
{
    aclrtStream stream = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event();
    for (int round = 0; round < 20; round++) {
        uint8_t value = (uint8_t)(0x40 + round);
        bool writer_is_default = round % 2 == 0;
        aclrtStream writer = writer_is_default ? NULL : stream;
        aclrtStream reader = writer_is_default ? stream : NULL;
        compat_gate gate;
        compat_gate_close(&gate, writer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(event, writer));
        ACL_OK(aclrtStreamWaitEvent(reader, event));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, reader));
        compat_gate_open(&gate);
        ACL_OK(aclrtSynchronizeStream(reader));
        assert_filled(dst, BUF_SIZE, value);
        ACL_OK(aclrtSynchronizeStream(writer));
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}

COMPAT_TEST(many_streams_wait_one_event,
            "several streams may wait for one event",
            "API ref aclrtStreamWaitEvent: multiple streams may wait on one event")
{
    enum { READERS = 5 };
    aclrtStream writer = compat_new_stream();
    aclrtStream readers[READERS];
    uint8_t *dst[READERS];
    for (int r = 0; r < READERS; r++) {
        readers[r] = compat_new_stream();
        dst[r] = host_buffer(BUF_SIZE);
    }
    uint8_t *dev = device_buffer(BUF_SIZE);
    aclrtEvent event = new_event();
    for (int round = 0; round < 10; round++) {
        uint8_t value = (uint8_t)(0x60 + round);
        compat_gate gate;
        compat_gate_close(&gate, writer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(event, writer));
        for (int r = 0; r < READERS; r++) {
            ACL_OK(aclrtStreamWaitEvent(readers[r], event));
            ACL_OK(aclrtMemcpyAsync(dst[r], BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST,
                                    readers[r]));
        }
        compat_gate_open(&gate);
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

/* A wait refers to the record it was issued after. The event is recorded
 * again on a stream that can only finish after the waiter has finished, so a
 * wait that followed the newer record would never release. One gate only:
 * an implementation may run the host functions of all streams on one thread. */
static void wait_binds_to_earlier_record(aclrtEvent (*make_event)(void))
{
    aclrtStream writer = compat_new_stream();
    aclrtStream reader = compat_new_stream();
    aclrtStream later = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = make_event();
    aclrtEvent reader_done = new_event();
    for (int round = 0; round < 10; round++) {
        uint8_t value = (uint8_t)(0xa0 + round);
        compat_gate gate;
        compat_gate_close(&gate, writer);
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(event, writer));
        ACL_OK(aclrtStreamWaitEvent(reader, event));
        ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, reader));
        ACL_OK(aclrtRecordEvent(reader_done, reader));
        ACL_OK(aclrtStreamWaitEvent(later, reader_done));
        ACL_OK(aclrtRecordEvent(event, later));
        ck_assert_int_eq(recorded_status(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        compat_gate_open(&gate);
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

COMPAT_TEST(wait_binds_to_earlier_record_plain,
            "a wait refers to the record it was issued after, not to a later record of the same event",
            "API ref aclrtRecordEvent / aclrtStreamWaitEvent (waits use the captured work)")
{
    wait_binds_to_earlier_record(make_plain);
}

COMPAT_TEST(wait_binds_to_earlier_record_ex,
            "with an Ex event, a wait refers to the record it was issued after",
            "API ref aclrtCreateEventExWithFlag: waits use the latest record at the time of the wait")
{
    wait_binds_to_earlier_record(make_ex_sync);
}

COMPAT_TEST(elapsed_time,
            "aclrtEventElapsedTime gives ms >= 0 between two completed records (plain and TIME_LINE events) and fails before they complete",
            "API ref aclrtEventElapsedTime: both events recorded and complete")
{
    aclrtStream stream = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *host = host_buffer(BUF_SIZE);
    aclrtEvent pairs[][2] = {
        {new_event(), new_event()},
        {new_event_with_flag(ACL_EVENT_TIME_LINE), new_event_with_flag(ACL_EVENT_TIME_LINE)},
        {new_event_ex(ACL_EVENT_TIME_LINE), new_event_ex(ACL_EVENT_TIME_LINE)},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        aclrtEvent start = pairs[i][0], end = pairs[i][1];
        compat_gate gate;
        ACL_OK(aclrtRecordEvent(start, stream));
        compat_gate_close(&gate, stream);
        ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        ACL_OK(aclrtRecordEvent(end, stream));
        float ms = -1.0f;
        /* Not complete yet. */
        ACL_FAILS(aclrtEventElapsedTime(&ms, start, end));
        compat_gate_open(&gate);
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

COMPAT_TEST(elapsed_time_errors,
            "aclrtEventElapsedTime: an unrecorded event is ACL_ERROR_RT_INTERNAL_ERROR (507000), NULL arguments ACL_ERROR_RT_PARAM_INVALID (107000)",
            "acl_rt.h aclrtEventElapsedTime; [impl] hicann/runtime")
{
    aclrtStream stream = compat_new_stream();
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

/* The documented flows. Each round queues a copy behind a gate that a helper
 * thread opens once the stream reached it, while the main thread is on its
 * way into the synchronising call: the data is only right if that call
 * waited. */
static void *open_gate_when_reached(void *arg)
{
    compat_gate *gate = arg;
    compat_gate_wait_reached(gate);
    compat_gate_open(gate);
    return NULL;
}

static pthread_t start_opener(compat_gate *gate)
{
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, open_gate_when_reached, gate), 0);
    return thread;
}

enum { FLOW_ROUNDS = 20 };

COMPAT_TEST(flow_event_synchronize,
            "documented flow: record, aclrtSynchronizeEvent, then the data is there",
            "API ref / dev guide: event synchronisation flow")
{
    aclrtStream stream = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *src = host_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event();
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        uint8_t value = (uint8_t)(round + 3);
        memset(src, value, BUF_SIZE);
        compat_gate gate;
        compat_gate_close(&gate, stream);
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

COMPAT_TEST(flow_stream_synchronize,
            "documented flow: copy async, aclrtSynchronizeStream, then the data is there",
            "dev guide: intra-stream synchronisation flow")
{
    aclrtStream stream = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        uint8_t value = (uint8_t)(round + 0x31);
        compat_gate gate;
        compat_gate_close(&gate, stream);
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

/* The documented inter-stream flow with event, FLOW_ROUNDS times: record
 * on a producer held back by a gate, wait and reset on the consumer, copy
 * there; the copy must see the producer's fill. Destroys event. */
static void record_wait_reset_rounds(aclrtEvent event)
{
    aclrtStream producer = compat_new_stream();
    aclrtStream consumer = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        uint8_t value = (uint8_t)(round + 0x51);
        compat_gate gate;
        compat_gate_close(&gate, producer);
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

COMPAT_TEST(flow_stream_wait_event,
            "documented flow: record on s1, wait and reset on s2, copy on s2",
            "dev guide: inter-stream synchronisation flow (create, record, wait, reset)")
{
    record_wait_reset_rounds(new_event_with_flag(ACL_EVENT_SYNC));
}

/* One gate on the default stream holds the other streams too, through an
 * event they wait for. */
COMPAT_TEST(flow_device_synchronize,
            "documented flow: aclrtSynchronizeDevice waits for every stream",
            "dev guide: device synchronisation flow")
{
    enum { STREAMS = 4 };
    aclrtStream streams[STREAMS];
    uint8_t *dev = device_buffer(STREAMS * BUF_SIZE);
    uint8_t *dst = host_buffer(STREAMS * BUF_SIZE);
    for (int i = 0; i < STREAMS; i++)
        streams[i] = i == 0 ? NULL : compat_new_stream();
    aclrtEvent held = new_event();
    for (int round = 0; round < FLOW_ROUNDS; round++) {
        compat_gate gate;
        compat_gate_close(&gate, NULL);
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

COMPAT_TEST(wait_status,
            "aclrtQueryEventWaitStatus is NOT_READY while a wait on the event is pending and COMPLETE once it finished",
            "acl_rt.h aclrtQueryEventWaitStatus; API ref")
{
    aclrtStream s1 = compat_new_stream();
    aclrtStream s2 = compat_new_stream();
    aclrtEvent event = new_event_with_flag(ACL_EVENT_SYNC);
    compat_gate gate;
    compat_gate_close(&gate, s1);
    ACL_OK(aclrtRecordEvent(event, s1));
    ACL_OK(aclrtStreamWaitEvent(s2, event));
    aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_RESERVED;
    ACL_OK(aclrtQueryEventWaitStatus(event, &status));
    ck_assert_int_eq(status, ACL_EVENT_WAIT_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s2));
    ACL_OK(aclrtQueryEventWaitStatus(event, &status));
    ck_assert_int_eq(status, ACL_EVENT_WAIT_STATUS_COMPLETE);
    ACL_FAILS_WITH(aclrtQueryEventWaitStatus(event, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(s1));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(s1));
    ACL_OK(aclrtDestroyStream(s2));
}

COMPAT_TEST(op_wait_timeout,
            "aclrtSetOpWaitTimeout bounds the waits aclrtStreamWaitEvent queues afterwards: a "
            "record not complete in time fails the stream's next synchronize with "
            "ACL_ERROR_RT_TASK_TIMEOUT and the stream goes on; 0 means no bound again",
            "acl_rt.h aclrtSetOpWaitTimeout; API ref aclrtSetOpWaitTimeout, aclrtStreamWaitEvent "
            "(a wait past the limit is reported by aclrtSynchronizeStream)")
{
    aclrtStream producer = compat_new_stream();
    aclrtStream consumer = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event_with_flag(ACL_EVENT_SYNC);
    compat_gate gate;
    compat_gate_close(&gate, producer);
    ACL_OK(aclrtRecordEvent(event, producer));
    ACL_OK(aclrtSetOpWaitTimeout(1));
    ACL_OK(aclrtStreamWaitEvent(consumer, event));
    ACL_OK(aclrtSetOpWaitTimeout(0));
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0x3C, BUF_SIZE, consumer));
    ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    ACL_FAILS_WITH(aclrtSynchronizeStream(consumer), ACL_ERROR_RT_TASK_TIMEOUT);
    compat_assert_filled(dst, BUF_SIZE, 0x3C);
    /* Without a limit, a wait behind the closed gate is still waiting. */
    ACL_OK(aclrtStreamWaitEvent(consumer, event));
    ck_assert_int_eq(compat_stream_status(consumer), ACL_STREAM_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(consumer));
    ACL_OK(aclrtSynchronizeStream(producer));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(producer));
    ACL_OK(aclrtDestroyStream(consumer));
}

/* ---- known-unknowns ------------------------------------------------------------------ */

/* The API reference leaves aclrtResetEvent on an event of aclrtCreateEvent
 * undefined; CANN's runtime accepts it (such an event carries the sync
 * bit) and CANN's own multi-stream example does exactly this. Recorded
 * choice: accepted, and the flow works as with a sync event. */
COMPAT_TEST(reset_of_a_default_event,
            "aclrtResetEvent takes an event of aclrtCreateEvent: the documented flow of record on "
            "s1, wait and reset on s2, copy on s2 works with it",
            "API ref aclrtCreateEvent (not for aclrtResetEvent: undefined) vs CANN runtime example "
            "stream/2_multi_stream (creates with aclrtCreateEvent, resets): known-unknown")
{
    aclrtEvent event;
    ACL_OK(aclrtCreateEvent(&event));
    record_wait_reset_rounds(event);
}

/* One header comment gives aclrtStreamWaitEventWithTimeout's timeout in
 * milliseconds; the API reference says seconds (0 = never time out).
 * Recorded choice: seconds. The waited-for work takes about 300 ms, far
 * past a timeout of 1 read as milliseconds and well inside 1 second: the
 * wait must not time out, so the consumer's stream synchronises without an
 * error and sees the data. */
static void *open_after_300_ms(void *arg)
{
    compat_gate_wait_reached(arg);
    usleep(300 * 1000);
    compat_gate_open(arg);
    return NULL;
}

COMPAT_TEST(wait_with_timeout_unit_is_seconds,
            "aclrtStreamWaitEventWithTimeout's timeout counts seconds: a 1 s timeout does not "
            "expire on 300 ms of waiting",
            "API ref aclrtStreamWaitEventWithTimeout (seconds) vs acl_rt.h comment "
            "(milliseconds): known-unknown")
{
    aclrtStream producer = compat_new_stream();
    aclrtStream consumer = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event_with_flag(ACL_EVENT_SYNC);
    compat_gate gate;
    compat_gate_close(&gate, producer);
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0x6B, BUF_SIZE, producer));
    ACL_OK(aclrtRecordEvent(event, producer));
    ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, event, 1));
    ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, open_after_300_ms, &gate), 0);
    ACL_OK(aclrtSynchronizeStream(consumer));
    compat_assert_filled(dst, BUF_SIZE, 0x6B);
    pthread_join(thread, NULL);
    ACL_OK(aclrtSynchronizeStream(producer));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(producer));
    ACL_OK(aclrtDestroyStream(consumer));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
}

/* The wait is stream-ordered (an asynchronous call, like aclrtStreamWaitEvent):
 * a record not complete in time does not fail the call but the stream's next
 * synchronize, as a wait past aclrtSetOpWaitTimeout's limit does. The code is
 * not documented; the recorded choice is the one of a notify wait that
 * expires. */
COMPAT_TEST(wait_with_timeout_expires,
            "aclrtStreamWaitEventWithTimeout on an event whose record does not complete within "
            "the timeout (seconds): the stream goes on, and its next synchronize returns "
            "ACL_ERROR_RT_TASK_TIMEOUT, once",
            "API ref aclrtStreamWaitEventWithTimeout (asynchronous, timeout in seconds), "
            "aclrtSetOpWaitTimeout (a wait past its limit is reported by aclrtSynchronizeStream); "
            "the code is not documented (known-unknown)")
{
    aclrtStream producer = compat_new_stream();
    aclrtStream consumer = compat_new_stream();
    uint8_t *dev = device_buffer(BUF_SIZE);
    uint8_t *dst = host_buffer(BUF_SIZE);
    aclrtEvent event = new_event_with_flag(ACL_EVENT_SYNC);
    compat_gate gate;
    compat_gate_close(&gate, producer);
    ACL_OK(aclrtRecordEvent(event, producer));
    ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, event, 1));
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0x5A, BUF_SIZE, consumer));
    ACL_OK(aclrtMemcpyAsync(dst, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    ACL_FAILS_WITH(aclrtSynchronizeStream(consumer), ACL_ERROR_RT_TASK_TIMEOUT);
    compat_assert_filled(dst, BUF_SIZE, 0x5A);
    ACL_OK(aclrtSynchronizeStream(consumer));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(producer));
    /* Complete, the event is waited for without a timeout. */
    ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, event, 1));
    ACL_OK(aclrtSynchronizeStream(consumer));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(dst));
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(producer));
    ACL_OK(aclrtDestroyStream(consumer));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclrtCreateEvent)
{
    REJECTS(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM, "a NULL event");
}

ROW(aclrtCreateEventWithFlag)
{
    REJECTS(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM,
            "a NULL event");
}

ROW(aclrtCreateEventExWithFlag)
{
    REJECTS(aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM,
            "a NULL event");
}

ROW(aclrtDestroyEvent)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(h));
}

ROW(aclrtEventElapsedTime)
{
    float ms;
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEvent(&e));
    ACL_OK(aclrtRecordEvent(e, NULL));
    ACL_OK(aclrtSynchronizeEvent(e));
    REJECTS(aclrtEventElapsedTime(NULL, e, e), ANY_ERROR, "a NULL ms");
    FOR_EACH_BAD(KIND_EVENT, h, ANY_ERROR, aclrtEventElapsedTime(&ms, h, e));
    FOR_EACH_BAD(KIND_EVENT, h, ANY_ERROR, aclrtEventElapsedTime(&ms, e, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtGetEventAvailNum)
{
    REJECTS(aclrtGetEventAvailNum(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtGetEventId)
{
    uint32_t id;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtGetEventId(h, &id));
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    REJECTS(aclrtGetEventId(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtQueryEvent)
{
    aclrtEventStatus status;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(h, &status));
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    REJECTS(aclrtQueryEvent(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtQueryEventStatus)
{
    aclrtEventRecordedStatus status;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(h, &status));
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    REJECTS(aclrtQueryEventStatus(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtQueryEventWaitStatus)
{
    aclrtEventWaitStatus status;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(h, &status));
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    REJECTS(aclrtQueryEventWaitStatus(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtRecordEvent)
{
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(h, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(e, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtResetEvent)
{
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtResetEvent(h, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtResetEvent(e, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtStreamWaitEvent)
{
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(e, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(h, e));
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(NULL, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtStreamWaitEventWithTimeout)
{
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(e, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithTimeout(h, e, 1));
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM,
                 aclrtStreamWaitEventWithTimeout(NULL, h, 1));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtSynchronizeEvent)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(h));
}

ROW(aclrtSynchronizeEventWithTimeout)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(h, 10));
}

/* ---- issue 17: event ---------------------------------------------------------------- */

/* ---- ACL_EVENT_EXTERNAL: a flag for task updates --------------------------------------- */

static aclrtEvent flag_event(void)
{
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL));
    return e;
}

static void assert_device_byte(const unsigned char *dev, unsigned char value)
{
    unsigned char host[64];
    ACL_OK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[0], value);
    ck_assert_uint_eq(host[63], value);
}

COMPAT_TEST(external_flag_wait_waits_for_a_later_record,
            "a stream's wait on an ACL_EVENT_EXTERNAL event waits until the event is recorded, "
            "also by a record queued after the wait; aclrtResetEvent clears it in stream order; "
            "its status cannot be queried or waited for from the host",
            "API ref aclrtCreateEventWithFlag (ACL_EVENT_EXTERNAL: task update), aclrtResetEvent; "
            "sample model_ri/1_model_update")
{
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
    aclrtEvent e = flag_event();
    unsigned char *dev = NULL;
    ACL_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int round = 0; round < 3; round++) {
        unsigned char value = (unsigned char)(0x50 + round);
        ACL_OK(aclrtStreamWaitEvent(a, e));
        ACL_OK(aclrtMemsetAsync(dev, 64, value, 64, a));
        ACL_OK(aclrtResetEvent(e, a));
        ck_assert_int_eq(compat_stream_status(a), ACL_STREAM_STATUS_NOT_READY);
        ACL_OK(aclrtRecordEvent(e, b));
        ACL_OK(aclrtSynchronizeStream(a));
        assert_device_byte(dev, value);
    }
    aclrtEventRecordedStatus status;
    ACL_FAILS_WITH(aclrtQueryEventStatus(e, &status), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtSynchronizeEvent(e), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtEvent both = NULL;
    ACL_FAILS_WITH(aclrtCreateEventWithFlag(&both, ACL_EVENT_EXTERNAL | ACL_EVENT_SYNC),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(b));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}

COMPAT_TEST(external_flag_gates_each_run_of_a_model,
            "a model that waited for an ACL_EVENT_EXTERNAL event and reset it during its capture "
            "waits at each run until another stream records the event after the run was queued "
            "(CANN's task-update flow)",
            "API ref aclrtCreateEventWithFlag, aclmdlRICaptureTaskUpdateBegin; sample "
            "model_ri/1_model_update")
{
    aclrtStream graph = compat_new_stream(), update = compat_new_stream();
    aclrtEvent e = flag_event();
    unsigned char *src = NULL, *dst = NULL;
    ACL_OK(aclrtMalloc((void **)&src, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc((void **)&dst, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclmdlRICaptureBegin(graph, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtStreamWaitEvent(graph, e));
    ACL_OK(aclrtResetEvent(e, graph));
    ACL_OK(aclrtMemcpyAsync(dst, 64, src, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, graph));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRICaptureEnd(graph, &model));
    for (int run = 0; run < 3; run++) {
        unsigned char value = (unsigned char)(0x70 + run);
        ACL_OK(aclrtMemset(dst, 64, 0, 64));
        ACL_OK(aclmdlRIExecuteAsync(model, graph));
        ck_assert_int_eq(compat_stream_status(graph), ACL_STREAM_STATUS_NOT_READY);
        ACL_OK(aclrtMemsetAsync(src, 64, value, 64, update));
        ACL_OK(aclrtRecordEvent(e, update));
        ACL_OK(aclrtSynchronizeStream(graph));
        assert_device_byte(dst, value);
        ACL_OK(aclrtSynchronizeStream(update));
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtDestroyStream(graph));
    ACL_OK(aclrtDestroyStream(update));
}

COMPAT_TEST(record_and_wait_with_flags,
            "aclrtRecordEventWithFlag(DEFAULT) and aclrtStreamWaitEventWithFlag(DEFAULT) order streams as their plain forms; EXTERNAL ones outside a graph capture, and unknown flags, are refused",
            "API ref aclrtRecordEventWithFlag, aclrtStreamWaitEventWithFlag")
{
    aclrtStream a = compat_new_stream(), b = compat_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    unsigned char *dev = NULL;
    ACL_OK(aclrtMalloc((void **)&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    compat_gate gate;
    compat_gate_close(&gate, a);
    ACL_OK(aclrtMemsetAsync(dev, 64, 0x33, 64, a));
    ACL_OK(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_DEFAULT));
    ACL_OK(aclrtStreamWaitEventWithFlag(b, e, 0, ACL_EVENT_WAIT_DEFAULT));
    ACL_OK(aclrtMemcpyAsync(dev + 64, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    compat_gate_wait_reached(&gate);
    ck_assert_int_eq(compat_stream_status(b), ACL_STREAM_STATUS_NOT_READY);
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(b));
    unsigned char host[64];
    ACL_OK(aclrtMemcpy(host, 64, dev + 64, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(host[63], 0x33);

    /* External records and waits belong to graph capture. */
    ACL_FAILS(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_EXTERNAL));
    aclrtEvent ex;
    ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    ACL_FAILS(aclrtRecordEventWithFlag(ex, a, ACL_EVENT_RECORD_EXTERNAL));
    ACL_FAILS(aclrtStreamWaitEventWithFlag(b, ex, 0, ACL_EVENT_WAIT_EXTERNAL));
    ACL_FAILS(aclrtStreamWaitEventWithFlag(b, ex, 5, ACL_EVENT_WAIT_EXTERNAL));
    ACL_FAILS(aclrtRecordEventWithFlag(e, a, 2));
    ACL_FAILS(aclrtStreamWaitEventWithFlag(b, e, 0, 2));
    ACL_OK(aclrtSynchronizeStream(a));
    ACL_OK(aclrtDestroyEvent(ex));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
}
/* The time of a record in microseconds of CLOCK_MONOTONIC: between the
 * host's clock before the record and after the synchronize (with a margin
 * for the cuda backend's estimate), and in the records' order. */
COMPAT_TEST(event_timestamps,
            "aclrtEventGetTimestamp gives the time of a completed record (microseconds), in record order, the same when asked again; it fails before the record completes and for events that do not time",
            "API ref aclrtEventGetTimestamp (create, record, synchronize, get)")
{
    aclrtStream s = compat_new_stream();
    aclrtEvent first, second, plain;
    ACL_OK(aclrtCreateEvent(&first));
    ACL_OK(aclrtCreateEventWithFlag(&second, ACL_EVENT_TIME_LINE));
    ACL_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_SYNC));
    uint64_t t;
    ACL_FAILS(aclrtEventGetTimestamp(first, &t));
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtRecordEvent(first, s));
    ACL_OK(aclrtRecordEvent(second, s));
    ACL_OK(aclrtRecordEvent(plain, s));
    compat_gate_wait_reached(&gate);
    ACL_FAILS(aclrtEventGetTimestamp(first, &t));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    uint64_t t1, t2;
    ACL_OK(aclrtEventGetTimestamp(first, &t1));
    ACL_OK(aclrtEventGetTimestamp(second, &t2));
    ck_assert_uint_le(t1, t2);
    /* Asked again, the same answer. */
    ACL_OK(aclrtEventGetTimestamp(first, &t));
    ck_assert_uint_eq(t, t1);
    ACL_FAILS(aclrtEventGetTimestamp(plain, &t));
    ACL_OK(aclrtDestroyEvent(first));
    ACL_OK(aclrtDestroyEvent(second));
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyStream(s));
}
/* ---- rows: records and waits with flags, timestamps ------------------------------------- */

ROW(aclrtRecordEventWithFlag)
{
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(h, NULL, 0));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(e, h, 0));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtStreamWaitEventWithFlag)
{
    aclrtEvent e = new_event_with_flag(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(e, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(h, e, 0, 0));
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM,
                 aclrtStreamWaitEventWithFlag(NULL, h, 0, 0));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtEventGetTimestamp)
{
    uint64_t t;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(h, &t));
    aclrtEvent e = new_event_with_flag(ACL_EVENT_TIME_LINE);
    REJECTS(aclrtEventGetTimestamp(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL timestamp");
    ACL_OK(aclrtDestroyEvent(e));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtCreateEvent),
    COMPAT_ROW(aclrtCreateEventExWithFlag),
    COMPAT_ROW(aclrtCreateEventWithFlag),
    COMPAT_ROW(aclrtDestroyEvent),
    COMPAT_ROW(aclrtEventElapsedTime),
    COMPAT_ROW(aclrtGetEventAvailNum),
    COMPAT_ROW(aclrtGetEventId),
    COMPAT_ROW(aclrtQueryEvent),
    COMPAT_ROW(aclrtQueryEventStatus),
    COMPAT_ROW(aclrtQueryEventWaitStatus),
    COMPAT_ROW(aclrtRecordEvent),
    COMPAT_ROW(aclrtResetEvent),
    COMPAT_ROW(aclrtStreamWaitEvent),
    COMPAT_ROW(aclrtStreamWaitEventWithTimeout),
    COMPAT_ROW(aclrtSynchronizeEvent),
    COMPAT_ROW(aclrtSynchronizeEventWithTimeout),
    COMPAT_ROW(aclrtRecordEventWithFlag),
    COMPAT_ROW(aclrtStreamWaitEventWithFlag),
    COMPAT_ROW(aclrtEventGetTimestamp),
};
COMPAT_BAD_ARGS(event, rows);

Suite *compat_suite_event(void);
Suite *compat_suite_event(void)
{
    Suite *s = suite_create("event");

    TCase *lifecycle = tcase_create("lifecycle");
    tcase_add_checked_fixture(lifecycle, set_up, tear_down);
    tcase_add_test(lifecycle, create_and_destroy);
    tcase_add_test(lifecycle, destroy_pending_does_not_block);
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

    TCase *unknown = tcase_create("unknown");
    tcase_set_tags(unknown, "unknown");
    tcase_add_checked_fixture(unknown, set_up, tear_down);
    tcase_add_test(unknown, wait_with_timeout_unit_is_seconds);
    tcase_add_test(unknown, wait_with_timeout_expires);
    tcase_add_test(unknown, reset_of_a_default_event);
    suite_add_tcase(s, unknown);

    TCase *more = tcase_create("control");
    tcase_add_checked_fixture(more, compat_set_up, compat_tear_down);
    tcase_set_timeout(more, 60);
    tcase_add_test(more, record_and_wait_with_flags);
    tcase_add_test(more, external_flag_wait_waits_for_a_later_record);
    tcase_add_test(more, external_flag_gates_each_run_of_a_model);
    tcase_add_test(more, event_timestamps);
    suite_add_tcase(s, more);

    TCase *hostile = compat_add_bad_args(s, &compat_rows_event);
    tcase_add_test(hostile, bad_event_handles);
    return s;
}

COMPAT_MAIN(event)
