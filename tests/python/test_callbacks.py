"""Report threads and Python callbacks: they run on the subscribed thread
while the main thread waits in a blocking call (which must have released
the GIL), exceptions in them are reported without killing the thread, and
the objects handed over live until the callback has run."""
import gc
import textwrap
import threading
import weakref

import pytest

import acl

ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1
REPORT_TIMEOUT_MS = 20
SYNC_TIMEOUT_MS = 30000


class ReportThread:
    """A threading.Thread looping on process_report, subscribed to a stream."""

    def __init__(self, context, stream):
        self.stream = stream
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, args=(context,), daemon=True)
        self.thread.start()
        assert acl.rt.subscribe_report(self.thread.ident, stream) == 0

    def _loop(self, context):
        acl.rt.set_context(context)
        while not self.stop.is_set():
            acl.rt.process_report(REPORT_TIMEOUT_MS)

    def close(self):
        assert acl.rt.unsubscribe_report(self.thread.ident, self.stream) == 0
        self.stop.set()
        self.thread.join(SYNC_TIMEOUT_MS / 1000)
        assert not self.thread.is_alive()


@pytest.fixture
def reporter(context, stream):
    report_thread = ReportThread(context, stream)
    yield report_thread
    acl.rt.synchronize_stream_with_timeout(stream, SYNC_TIMEOUT_MS)
    report_thread.close()


def test_callback_runs_on_the_report_thread_while_main_thread_waits(stream, reporter):
    ran = []

    def callback(data):
        # Real Python work: impossible unless the waiting main thread let go of the GIL.
        ran.append((threading.get_ident(), sum(range(10000)), data))

    payload = ["user", "data"]
    for _ in range(3):
        assert acl.rt.launch_callback(callback, payload, ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream_with_timeout(stream, SYNC_TIMEOUT_MS) == 0
    assert ran == [(reporter.thread.ident, 49995000, payload)] * 3
    assert ran[0][2] is payload


def test_plain_synchronize_stream_does_not_deadlock(run_python):
    # Same as above with the untimed call, in a child the test can kill if it hangs.
    code = textwrap.dedent("""
        import threading, acl
        acl.init(); acl.rt.set_device(0)
        ctx, _ = acl.rt.create_context(0)
        stream, _ = acl.rt.create_stream()
        done = threading.Event()
        def loop():
            acl.rt.set_context(ctx)
            while not done.is_set():
                acl.rt.process_report(20)
        t = threading.Thread(target=loop); t.start()
        assert acl.rt.subscribe_report(t.ident, stream) == 0
        hits = []
        for i in range(5):
            assert acl.rt.launch_callback(hits.append, i, 1, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert acl.rt.synchronize_device() == 0
        assert hits == [0, 1, 2, 3, 4], hits
        acl.rt.unsubscribe_report(t.ident, stream); done.set(); t.join()
        print("ok")
    """)
    completed = run_python(code, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "ok"


def test_block_callback_holds_later_work(context, stream, reporter, device_memory, host_memory):
    dev, size = device_memory
    host, _ = host_memory
    assert acl.rt.memset(host, size, 1, size) == 0

    def rewrite(value):
        assert acl.rt.memset(host, size, value, size) == 0

    assert acl.rt.memcpy_async(dev, size, host, size, 1, stream) == 0
    assert acl.rt.launch_callback(rewrite, 7, ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.memcpy_async(dev, size, host, size, 1, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    out = bytes(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), size, dev, size, 2) == 0
    assert out == b"\x07" * size


def test_callbacks_may_call_acl(context, stream, reporter, device_memory):
    dev, size = device_memory
    assert acl.rt.memset(dev, size, 0x44, size) == 0
    copies = []

    def fetch(user_data):
        host, ret = acl.rt.malloc_host(size)
        assert ret == 0
        assert acl.rt.memcpy(host, size, user_data[0], size, 2) == 0
        copies.append(acl.util.ptr_to_bytes(host, size))
        assert acl.rt.free_host(host) == 0

    assert acl.rt.launch_callback(fetch, [dev], ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert copies == [b"\x44" * size]


def test_no_block_callback_runs(stream, reporter):
    ran = threading.Event()
    assert acl.rt.launch_callback(lambda event: event.set(), ran, ACL_CALLBACK_NO_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert ran.wait(SYNC_TIMEOUT_MS / 1000)


def test_default_stream_can_be_subscribed(context):
    report_thread = ReportThread(context, 0)
    hits = []
    try:
        assert acl.rt.launch_callback(hits.append, "default", ACL_CALLBACK_BLOCK, 0) == 0
        assert acl.rt.synchronize_stream(0) == 0
    finally:
        report_thread.close()
    assert hits == ["default"]


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


def test_callback_and_user_data_live_until_the_callback_ran(stream, reporter):
    gate = threading.Event()
    assert acl.rt.launch_callback(lambda e: e.wait(SYNC_TIMEOUT_MS / 1000), gate, ACL_CALLBACK_BLOCK, stream) == 0

    class Payload:
        pass

    seen = []
    payload = Payload()
    payload_ref = weakref.ref(payload)

    def callback(data):
        seen.append(type(data).__name__)

    callback_ref = weakref.ref(callback)
    assert acl.rt.launch_callback(callback, payload, ACL_CALLBACK_BLOCK, stream) == 0
    del payload, callback
    gc.collect()
    assert payload_ref() is not None and callback_ref() is not None
    gate.set()
    assert acl.rt.synchronize_stream(stream) == 0
    assert seen == ["Payload"]
    gc.collect()
    assert payload_ref() is None and callback_ref() is None
    assert acl._rt.callback._pending_callbacks == {}


@pytest.mark.parametrize("bad", [None, 3, "print", [print]])
def test_launch_callback_needs_a_callable(stream, bad):
    with pytest.raises(TypeError, match="callable"):
        acl.rt.launch_callback(bad, None, ACL_CALLBACK_BLOCK, stream)


def test_launch_callback_argument_types(stream):
    with pytest.raises(TypeError):
        acl.rt.launch_callback(print, None, "1", stream)
    with pytest.raises(TypeError):
        acl.rt.launch_callback(print, None, 1, None)
    with pytest.raises(TypeError):
        acl.rt.launch_callback(print, None, 1)


# ---- acl.util.start_thread / stop_thread ---------------------------------------------------

def test_start_thread_report_loop(context, stream):
    """The pattern of the asynchronous ResNet-50 sample."""
    state = {"exit": False, "ran_on": []}

    def loop(args_list):
        ctx, timeout_ms = args_list
        assert acl.rt.set_context(ctx) == 0
        while not state["exit"]:
            acl.rt.process_report(timeout_ms)

    tid, ret = acl.util.start_thread(loop, [context, REPORT_TIMEOUT_MS])
    assert ret == 0 and type(tid) is int and tid > 0
    assert acl.rt.subscribe_report(tid, stream) == 0
    assert acl.rt.launch_callback(lambda d: state["ran_on"].append(threading.get_ident()), None,
                                  ACL_CALLBACK_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.unsubscribe_report(tid, stream) == 0
    state["exit"] = True
    assert acl.util.stop_thread(tid) == 0
    assert state["ran_on"] == [tid]


def test_start_thread_id_is_the_threads_own_ident():
    idents = []
    tid, ret = acl.util.start_thread(lambda out: out.append(threading.get_ident()), idents)
    assert ret == 0
    assert acl.util.stop_thread(tid) == 0
    assert idents == [tid]


def test_start_thread_with_none_calls_without_arguments():
    calls = []
    tid, ret = acl.util.start_thread(lambda: calls.append("no args"), None)
    assert ret == 0 and acl.util.stop_thread(tid) == 0
    assert calls == ["no args"]


def test_new_thread_has_no_context(context):
    results = []
    tid, _ = acl.util.start_thread(lambda out: out.append(acl.rt.get_context()), results)
    assert acl.util.stop_thread(tid) == 0
    assert results[0][0] == 0 and results[0][1] != 0


def test_stop_thread_waits_for_the_function():
    release = threading.Event()
    finished = []

    def body(_):
        release.wait(SYNC_TIMEOUT_MS / 1000)
        finished.append(True)

    tid, _ = acl.util.start_thread(body, [])
    release.set()
    assert acl.util.stop_thread(tid) == 0
    assert finished == [True]


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


def test_start_thread_argument_checks():
    with pytest.raises(TypeError, match="callable"):
        acl.util.start_thread(42, None)
    with pytest.raises(TypeError):
        acl.util.start_thread(print)
    with pytest.raises(TypeError):
        acl.util.stop_thread("1")


# ---- exception information callback -------------------------------------------------------

def test_set_exception_info_callback():
    assert acl.rt.set_exception_info_callback(lambda info: None) == 0
    assert acl.rt.set_exception_info_callback(None) == 0
    assert acl.rt.set_exception_info_callback(print) == 0
    assert acl.rt.set_exception_info_callback() == 0
    with pytest.raises(TypeError, match="^acl.rt.set_exception_info_callback args parse failed$"):
        acl.rt.set_exception_info_callback(5)
