"""Failures come back as error codes (and text for get_recent_err_msg), never
as Python exceptions, once the arguments have the right types."""
import threading

import pytest

import acl

ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_INVALID_DEVICEID = 107001
ACL_ERROR_RT_CONTEXT_NULL = 107002
ACL_ERROR_RT_THREAD_SUBSCRIBE = 107012
ACL_ERROR_RT_STREAM_NO_CB_REG = 107015
ACL_RT_THREAD_LEVEL = 0


def in_new_thread(function):
    result = []
    thread = threading.Thread(target=lambda: result.append(function()))
    thread.start()
    thread.join()
    return result[0]


@pytest.mark.pins('an invalid device id is ACL_ERROR_RT_INVALID_DEVICEID (107001); create_context returns (0, 107001)',
                  'pyACL acl.rt.set_device, create_context; [impl] 107001')
def test_invalid_device_id():
    assert acl.rt.set_device(1 << 20) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.create_context(-5) == (0, ACL_ERROR_RT_INVALID_DEVICEID)


@pytest.mark.pins('a thread without a context gets ACL_ERROR_RT_CONTEXT_NULL (107002) from get_context, get_device and create_stream',
                  'ACL: a new thread has no context; [impl] 107002')
def test_thread_without_context():
    assert in_new_thread(acl.rt.get_context) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_new_thread(acl.rt.get_device)[1] == ACL_ERROR_RT_CONTEXT_NULL
    assert in_new_thread(acl.rt.create_stream) == (0, ACL_ERROR_RT_CONTEXT_NULL)


@pytest.mark.pins('get_recent_err_msg returns the text of a failure once, then None',
                  'pyACL API ref acl.get_recent_err_msg (str or None)')
def test_error_text_is_returned_once():
    assert acl.rt.set_device(1 << 20) != 0
    message = acl.get_recent_err_msg()
    assert isinstance(message, str) and message
    assert acl.get_recent_err_msg() is None


@pytest.mark.pins("peek_at_last_error keeps the thread's last error, get_last_error returns and clears it",
                  'pyACL acl.rt.peek_at_last_error / get_last_error')
def test_last_error_peek_and_get():
    assert acl.rt.set_device(1 << 20) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.peek_at_last_error(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.peek_at_last_error(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.get_last_error(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.get_last_error(ACL_RT_THREAD_LEVEL) == 0


@pytest.mark.hostile
@pytest.mark.pins('destroyed streams, events and contexts are refused with a non-zero ret',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_destroyed_handles_are_rejected(context):
    stream, _ = acl.rt.create_stream()
    event, _ = acl.rt.create_event()
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_stream(stream) != 0
    assert acl.rt.synchronize_stream(stream) != 0
    assert acl.rt.destroy_event(event) != 0
    assert acl.rt.query_event_status(event)[1] != 0
    ctx, _ = acl.rt.create_context(0)
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.destroy_context(ctx) != 0
    assert acl.rt.set_context(ctx) != 0


@pytest.mark.pins('0 handles are refused: set_context(0) is ACL_ERROR_INVALID_PARAM',
                  'API ref aclrtSetCurrentContext: NULL -> ACL_ERROR_INVALID_PARAM; aclrtDestroyStream, aclrtFree: NULL refused')
def test_null_handles(context):
    assert acl.rt.set_context(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_context(0) != 0
    assert acl.rt.destroy_stream(0) != 0
    assert acl.rt.destroy_event(0) != 0
    assert acl.rt.free(0) != 0
    assert acl.rt.free_host(0) != 0


@pytest.mark.hostile
@pytest.mark.pins('a handle of another kind is refused with a non-zero ret',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_handle_of_the_wrong_kind(context, stream, event):
    assert acl.rt.destroy_event(stream) != 0
    assert acl.rt.destroy_stream(event) != 0
    assert acl.rt.set_context(stream) != 0


@pytest.mark.pins('malloc of 0 bytes, malloc_host of 0 bytes and a malloc beyond the device fail with handle 0',
                  'API ref aclrtMalloc (size > 0), aclrtMallocHost; [impl] OOM 207001')
def test_allocation_errors(context):
    ptr, ret = acl.rt.malloc(0, 0)
    assert ptr == 0 and ret != 0
    assert acl.rt.malloc_host(0)[1] != 0
    ptr, ret = acl.rt.malloc(1 << 62, 0)
    assert ptr == 0 and ret != 0


@pytest.mark.pins('memcpy with count > destMax is ACL_ERROR_RT_PARAM_INVALID; unknown kind, NULL dst and memset past maxCount fail; count 0 copies nothing',
                  'API ref aclrtMemcpy, aclrtMemset; [impl] 107000')
def test_copy_errors(context, device_memory, host_memory):
    dev, size = device_memory
    host, _ = host_memory
    assert acl.rt.memcpy(dev, size, host, size + 1, 1) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memcpy(dev, size, host, size, 99) != 0
    assert acl.rt.memcpy(0, size, host, size, 1) != 0
    assert acl.rt.memset(dev, size, 0, size + 1) != 0
    assert acl.rt.memcpy(dev, size, host, 0, 1) == 0  # nothing to copy is no error


@pytest.mark.pins('synchronize_stream_with_timeout(-2) fails; process_report(0) and (-2) are ACL_ERROR_INVALID_PARAM',
                  'API ref aclrtSynchronizeStreamWithTimeout, aclrtProcessReport; [impl]')
def test_timeouts_and_bad_timeout_values(context, stream):
    assert acl.rt.synchronize_stream_with_timeout(stream, -2) != 0
    assert acl.rt.process_report(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.process_report(-2) == ACL_ERROR_INVALID_PARAM


@pytest.mark.pins('process_report in a thread subscribed to nothing is ACL_ERROR_RT_THREAD_SUBSCRIBE (107012)',
                  'API ref aclrtProcessReport')
def test_process_report_without_subscription(context):
    assert acl.rt.process_report(1) == ACL_ERROR_RT_THREAD_SUBSCRIBE


@pytest.mark.pins('launch_callback on a stream without a report thread is ACL_ERROR_RT_STREAM_NO_CB_REG (107015)',
                  'API ref aclrtLaunchCallback')
def test_launch_callback_without_subscription(context, stream):
    assert acl.rt.launch_callback(print, None, 1, stream) == ACL_ERROR_RT_STREAM_NO_CB_REG


@pytest.mark.pins('launch_callback with block type 2 is ACL_ERROR_INVALID_PARAM',
                  'API ref aclrtLaunchCallback; [impl] 100000')
def test_launch_callback_bad_block_type(context, stream):
    tid = threading.get_ident()
    assert acl.rt.subscribe_report(tid, stream) == 0
    try:
        assert acl.rt.launch_callback(print, None, 2, stream) == ACL_ERROR_INVALID_PARAM
    finally:
        assert acl.rt.unsubscribe_report(tid, stream) == 0


@pytest.mark.pins('unsubscribe without subscription fails; a stream takes one report thread',
                  'API ref aclrtSubscribeReport: one thread per stream')
def test_subscription_errors(context, stream):
    tid = threading.get_ident()
    assert acl.rt.unsubscribe_report(tid, stream) != 0
    assert acl.rt.subscribe_report(tid, stream) == 0
    assert acl.rt.subscribe_report(tid + 1, stream) != 0  # one thread per stream
    assert acl.rt.unsubscribe_report(tid, stream) == 0


@pytest.mark.pins('query_event_status gives (1, 0) for a complete event, query_event (0, 0): opposite encodings',
                  'pyACL: query_event (0 = complete) vs query_event_status (1 = complete)')
def test_event_status_encodings(context, stream):
    event, _ = acl.rt.create_event()
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_event(event) == 0
    assert acl.rt.query_event_status(event) == (1, 0)  # ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert acl.rt.query_event(event) == (0, 0)         # ACL_EVENT_STATUS_COMPLETE
    assert acl.rt.destroy_event(event) == 0


@pytest.mark.unknown
@pytest.mark.pins('the get_*_from_exception_info getters return 0xFFFFFFFF for 0',
                  'acl_rt.h aclrtGet*FromExceptionInfo; docs silent on NULL (known-unknown)')
def test_exception_info_getters_with_null(context):
    assert acl.rt.get_error_code_from_exception_info(0) == 0xFFFFFFFF
    assert acl.rt.get_task_id_from_exception_info(0) == 0xFFFFFFFF
    assert acl.rt.get_device_id_from_exception_info(0) == 0xFFFFFFFF


@pytest.mark.pins('timed waits on a held stream expire with ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046) and ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047); queries report not ready (1 / 0)',
                  'API ref aclrtSynchronizeStreamWithTimeout, aclrtSynchronizeEventWithTimeout, aclrtStreamQuery, aclrtQueryEventStatus')
def test_timeouts_report_their_codes(context, stream):
    """A blocking callback nobody processes yet holds the stream, so the timed waits expire."""
    tid = threading.get_ident()
    event, _ = acl.rt.create_event()
    assert acl.rt.subscribe_report(tid, stream) == 0
    try:
        assert acl.rt.launch_callback(lambda _: None, None, 1, stream) == 0
        assert acl.rt.record_event(event, stream) == 0
        assert acl.rt.synchronize_stream_with_timeout(stream, 20) == 507046  # ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        assert acl.rt.synchronize_event_with_timeout(event, 20) == 507047   # ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
        assert acl.rt.stream_query(stream) == (1, 0)                          # not ready
        assert acl.rt.query_event_status(event) == (0, 0)                     # not ready
        assert acl.rt.process_report(10000) == 0                              # runs the callback here
        assert acl.rt.synchronize_stream(stream) == 0
        assert acl.rt.query_event_status(event) == (1, 0)
    finally:
        assert acl.rt.unsubscribe_report(tid, stream) == 0
        acl.rt.destroy_event(event)


@pytest.mark.pins('the default stream cannot be destroyed; destroying the default context is ACL_ERROR_RT_CONTEXT_NULL',
                  'API ref aclrtDestroyStream, aclrtDestroyContext; [impl] 107002')
def test_default_context_and_stream_cannot_be_destroyed():
    assert acl.rt.set_device(0) == 0
    try:
        default_context, ret = acl.rt.get_context()
        assert ret == 0
        default_stream, ret = acl.rt.ctx_get_current_default_stream()
        assert ret == 0 and default_stream != 0
        assert acl.rt.destroy_stream(default_stream) != 0
        assert acl.rt.destroy_context(default_context) == ACL_ERROR_RT_CONTEXT_NULL
    finally:
        assert acl.rt.reset_device(0) == 0


@pytest.mark.pins('event_elapsed_time of unrecorded events fails and still returns (float, ret)',
                  'API ref aclrtEventElapsedTime')
def test_elapsed_time_needs_recorded_events(context):
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret != 0 and isinstance(ms, float)
    acl.rt.destroy_event(start)
    acl.rt.destroy_event(end)


@pytest.mark.hostile
@pytest.mark.pins('a copy queued on a garbage stream handle fails with a non-zero ret',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_copy_on_a_garbage_stream(context, device_memory, host_memory):
    dev, size = device_memory
    host, _ = host_memory
    assert acl.rt.memcpy_async(dev, size, host, size, 1, 0x1234) != 0
