"""acl-cuda's package where pyACL leaves the behaviour open: an exception in
a Python callback is reported on stderr and kept in
acl._rt.callback._callback_errors while the report thread goes on;
start_thread with None calls the function without arguments; stop_thread's
errno results and its RuntimeError (pyACL's record) when the function
raised; set_exception_info_callback() without an argument; and nothing kept
in acl._rt.callback._pending_callbacks after the callbacks ran."""
import threading

import pytest

import acl

from compat_fixtures import SYNC_TIMEOUT_MS

ACL_CALLBACK_BLOCK = 1


def test_exception_in_callback_is_reported_and_the_thread_survives(stream, reporter, capsys):
    ran = []

    def failing(data):
        raise ValueError("callback failure %s" % data)

    errors_before = len(acl._rt.callback._callback_errors)
    assert acl.rt.launch_callback(failing, "one", ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.launch_callback(ran.append, "two", ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert ran == ["two"]
    assert reporter.thread.is_alive()
    err = capsys.readouterr().err
    assert "acl: exception in acl.rt.launch_callback callback" in err
    assert "ValueError: callback failure one" in err
    assert "Traceback" in err
    fn, exc = acl._rt.callback._callback_errors[-1]
    assert len(acl._rt.callback._callback_errors) == errors_before + 1
    assert fn is failing and isinstance(exc, ValueError)


def test_system_exit_in_callback_does_not_escape(stream, reporter, capsys):
    def leave(_):
        raise SystemExit(3)

    assert acl.rt.launch_callback(leave, None, ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert reporter.thread.is_alive()
    assert "SystemExit" in capsys.readouterr().err


def test_start_thread_with_none_calls_without_arguments():
    calls = []
    tid, ret = acl.util.start_thread(lambda: calls.append("no args"), None)
    assert ret == 0 and acl.util.stop_thread(tid) == 0
    assert calls == ["no args"]


def test_stop_thread_raises_when_the_function_raised(capsys):
    def body(_):
        raise KeyError("inside the thread")

    tid, ret = acl.util.start_thread(body, [])
    assert ret == 0
    with pytest.raises(RuntimeError) as raised:
        acl.util.stop_thread(tid)
    assert str(raised.value) == "exception=KeyError,msg=thread call failed;"  # pyACL's record
    err = capsys.readouterr().err
    assert "KeyError" in err and "inside the thread" in err  # the traceback went to stderr


def test_stop_thread_unknown_or_self():
    assert acl.util.stop_thread(12345) == 3            # ESRCH
    assert acl.util.stop_thread(threading.get_ident()) == 35  # EDEADLK
    tid, _ = acl.util.start_thread(lambda: None, None)
    assert acl.util.stop_thread(tid) == 0
    assert acl.util.stop_thread(tid) == 3              # already joined


def test_set_exception_info_callback():
    assert acl.rt.set_exception_info_callback(lambda info: None) == 0
    assert acl.rt.set_exception_info_callback(None) == 0
    assert acl.rt.set_exception_info_callback(print) == 0
    assert acl.rt.set_exception_info_callback() == 0
    with pytest.raises(TypeError, match="^acl.rt.set_exception_info_callback args parse failed$"):
        acl.rt.set_exception_info_callback(5)


def test_pending_callbacks_are_released(stream, reporter):
    hits = []
    for i in range(3):
        assert acl.rt.launch_callback(hits.append, i, ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert hits == [0, 1, 2]
    assert acl._rt.callback._pending_callbacks == {}


def test_failed_launch_keeps_nothing(context, stream):
    before = len(acl._rt.callback._pending_callbacks)
    assert acl.rt.launch_callback(print, None, 1, stream) == 107015  # ACL_ERROR_RT_STREAM_NO_CB_REG
    assert len(acl._rt.callback._pending_callbacks) == before


def test_status_queries_answer_while_a_python_callback_holds_the_stream(stream, reporter):
    # The status queries keep the GIL (acl._lib.KEEPS_GIL), so they must
    # never wait for a thread that runs Python code: here a callback that
    # returns only once the main thread has seen its stream busy.
    event, ret = acl.rt.create_event()
    assert ret == 0
    seen_busy = threading.Event()
    assert acl.rt.launch_callback(lambda _: seen_busy.wait(30), None, ACL_CALLBACK_BLOCK,
                                  stream) == 0
    assert acl.rt.record_event(event, stream) == 0
    for _ in range(1000):
        assert acl.rt.query_event_status(event) == (0, 0)
        assert acl.rt.query_event(event) == (1, 0)
        assert acl.rt.query_event_wait_status(event) == (1, 0)
        assert acl.rt.stream_query(stream) == (1, 0)
    seen_busy.set()
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.query_event_status(event) == (1, 0)
    assert acl.rt.stream_query(stream) == (0, 0)
    assert acl.rt.destroy_event(event) == 0
