"""Report threads and Python callbacks: they run on the subscribed thread
while the main thread waits in a blocking call (which must have released
the GIL), and the objects handed over live until the callback has run; and
acl.util.start_thread / stop_thread."""
import gc
import textwrap
import threading
import weakref

import pytest

import acl

from compat_fixtures import REPORT_TIMEOUT_MS, SYNC_TIMEOUT_MS, ReportThread

ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1


@pytest.mark.pins('callbacks run on the subscribed report thread, in Python, while the main thread waits in synchronize_stream_with_timeout (which releases the GIL); user_data is passed as is',
                  'pyACL API ref acl.rt.subscribe_report / launch_callback / process_report (callback flow); pyACL GIL handling')
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


@pytest.mark.pins('synchronize_stream releases the GIL: a BLOCK Python callback runs while the main thread waits in it',
                  'pyACL GIL handling: released around synchronize_stream and process_report')
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


@pytest.mark.pins('work queued after an ACL_CALLBACK_BLOCK callback sees what the callback did',
                  'pyACL API ref acl.rt.subscribe_report / launch_callback / process_report (callback flow): block_type 1')
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


@pytest.mark.pins('a callback may call malloc_host, memcpy and free_host (as the async ResNet-50 sample does)',
                  'pyACL sample resnet50_async_imagenet_classification acl_net.py')
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


@pytest.mark.pins('an ACL_CALLBACK_NO_BLOCK callback runs',
                  'pyACL API ref acl.rt.subscribe_report / launch_callback / process_report (callback flow): block_type 0')
def test_no_block_callback_runs(stream, reporter):
    ran = threading.Event()
    assert acl.rt.launch_callback(lambda event: event.set(), ran, ACL_CALLBACK_NO_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert ran.wait(SYNC_TIMEOUT_MS / 1000)


@pytest.mark.pins('stream 0 (the default stream) can be subscribed and take callbacks',
                  'pyACL API ref: pass 0 for the default stream; subscribe_report(tid, 0)')
def test_default_stream_can_be_subscribed(context):
    report_thread = ReportThread(context, 0)
    hits = []
    try:
        assert acl.rt.launch_callback(hits.append, "default", ACL_CALLBACK_BLOCK, 0) == 0
        assert acl.rt.synchronize_stream(0) == 0
    finally:
        report_thread.close()
    assert hits == ["default"]


@pytest.mark.pins('the callback and its user data are kept alive until the callback has run, then released',
                  'pyACL API ref acl.rt.subscribe_report / launch_callback / process_report (callback flow)')
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


@pytest.mark.pins("launch_callback with a non-callable raises TypeError 'parameter must be callable'",
                  'pyACL conventions: non-callable to launch_callback -> TypeError')
@pytest.mark.parametrize("bad", [None, 3, "print", [print]])
def test_launch_callback_needs_a_callable(stream, bad):
    with pytest.raises(TypeError, match="callable"):
        acl.rt.launch_callback(bad, None, ACL_CALLBACK_BLOCK, stream)


@pytest.mark.pins("launch_callback's block type must be an int and its stream an int (not None); four arguments",
                  'pyACL acl.rt.launch_callback(fn, user_data, block_type, stream): PyArg_ParseTuple')
def test_launch_callback_argument_types(stream):
    with pytest.raises(TypeError):
        acl.rt.launch_callback(print, None, "1", stream)
    with pytest.raises(TypeError):
        acl.rt.launch_callback(print, None, 1, None)
    with pytest.raises(TypeError):
        acl.rt.launch_callback(print, None, 1)


# ---- acl.util.start_thread / stop_thread ---------------------------------------------------

@pytest.mark.pins('acl.util.start_thread runs fn(args) on a new thread and returns (tid, ret); that tid can be subscribed; stop_thread joins it',
                  'pyACL API ref acl.util.start_thread / stop_thread; ResNet-50 async sample')
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


@pytest.mark.pins("start_thread's tid is the thread's pthread id (threading.get_ident() inside it)",
                  'pyACL util/thread.cpp: tid = pthread id')
def test_start_thread_id_is_the_threads_own_ident():
    idents = []
    tid, ret = acl.util.start_thread(lambda out: out.append(threading.get_ident()), idents)
    assert ret == 0
    assert acl.util.stop_thread(tid) == 0
    assert idents == [tid]


@pytest.mark.pins('a thread started by start_thread has no context: get_context returns (0, non-zero)',
                  'pyACL / ACL: a new thread has no current context')
def test_new_thread_has_no_context(context):
    results = []
    tid, _ = acl.util.start_thread(lambda out: out.append(acl.rt.get_context()), results)
    assert acl.util.stop_thread(tid) == 0
    assert results[0][0] == 0 and results[0][1] != 0


@pytest.mark.pins("stop_thread waits for the thread's function to return (a join)",
                  'pyACL API ref acl.util.stop_thread')
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


@pytest.mark.pins("start_thread needs a callable (TypeError 'callable') and two arguments; stop_thread an int",
                  'pyACL conventions: non-callable to start_thread -> TypeError')
def test_start_thread_argument_checks():
    with pytest.raises(TypeError, match="callable"):
        acl.util.start_thread(42, None)
    with pytest.raises(TypeError):
        acl.util.start_thread(print)
    with pytest.raises(TypeError):
        acl.util.stop_thread("1")
