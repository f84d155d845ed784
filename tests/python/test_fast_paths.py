"""The hot calls' wrappers (acl._parse.foreign and the generated fast paths
of acl._parse.parsed) behave exactly as their slow paths: plain ints take an
inline test, everything else the full PyArg_ParseTuple check, and both must
give the same results, errors and frames."""
import ctypes
import inspect
import sys
import threading

import pytest

import acl
from acl import _lib
from acl import _parse

ACL_EVENT_SYNC = 0x1
ACL_CALLBACK_BLOCK = 1
ACL_MEMCPY_HOST_TO_DEVICE = 1


class MyInt(int):
    """An int subclass: accepted as "k", but only through the slow path."""


@pytest.fixture
def recorded(stream):
    """An event recorded on stream and complete."""
    event, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC)
    assert ret == 0
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    yield event
    acl.rt.destroy_event(event)


def test_slow_path_arguments_give_the_fast_path_results(stream, recorded, device_memory, host_memory):
    dev, _ = device_memory
    host, _ = host_memory
    rt = acl.rt
    for convert in (int, MyInt, lambda v: v + (1 << 64), lambda v: v - (1 << 64)):
        assert rt.record_event(convert(recorded), convert(stream)) == 0
        assert rt.stream_wait_event(convert(stream), convert(recorded)) == 0
        assert rt.synchronize_stream(convert(stream)) == 0
        assert rt.query_event_status(convert(recorded)) == (1, 0)
        assert rt.query_event(convert(recorded)) == (0, 0)
        assert rt.memcpy_async(convert(dev), convert(4), convert(host), convert(4),
                               ACL_MEMCPY_HOST_TO_DEVICE, convert(stream)) == 0
        assert rt.memset_async(convert(dev), convert(4), 0, convert(4), convert(stream)) == 0
    assert rt.synchronize_stream(stream) == 0


def test_out_of_range_handle_on_the_fast_path_is_masked(context):
    # 2**64 + 0 does not fit a pointer; masked, it is NULL: the default stream.
    assert acl.rt.synchronize_stream(1 << 64) == 0
    assert acl.rt.record_event(1 << 64, 0) != 0
    assert acl.rt.query_event_status((1 << 64) + 1)[1] != 0


@pytest.mark.parametrize("kind", [1 << 31, -(1 << 31) - 1])
def test_int32_arguments_of_hot_calls_are_range_checked(context, kind):
    for name, call in [("memcpy_async", lambda: acl.rt.memcpy_async(0, 0, 0, 0, kind, 0)),
                       ("memset_async", lambda: acl.rt.memset_async(0, 0, kind, 0, 0)),
                       ("launch_callback", lambda: acl.rt.launch_callback(print, None, kind, 0))]:
        with pytest.raises(TypeError, match="^acl.rt.%s args parse failed$" % name) as raised:
            call()
        assert type(raised.value.__cause__) is OverflowError


@pytest.mark.parametrize("name, count", [("record_event", 2), ("stream_wait_event", 2),
                                         ("synchronize_stream", 1), ("query_event_status", 1),
                                         ("query_event", 1), ("memcpy_async", 6),
                                         ("memset_async", 5), ("launch_callback", 4)])
def test_hot_calls_check_number_kind_and_type_of_arguments(name, count):
    function = getattr(acl.rt, name)
    plural = "argument" if count == 1 else "arguments"
    message = "^acl.rt.%s args parse failed$" % name
    for given in (count - 1, count + 1):
        with pytest.raises(TypeError, match=message) as raised:
            function(*[0] * given)
        assert str(raised.value.__cause__) == "function takes exactly %d %s (%d given)" % (count, plural, given)
    with pytest.raises(TypeError, match="keyword"):
        function(*[0] * (count - 1), x=0)
    for bad in (None, 1.0, "0", b"0"):
        with pytest.raises(TypeError, match=message):
            function(*[bad] * count)
    parameters = inspect.signature(function).parameters
    assert len(parameters) == count
    assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in parameters.values())
    assert function.__doc__.startswith(("ret = acl.rt.%s(" % name, "status, ret = acl.rt.%s(" % name))


def test_values_out_of_concurrent_calls_do_not_mix(context, stream, recorded):
    # Threads query a complete and a pending event at once, through the same
    # function; each call must get its own status although the GIL is
    # released while the C function writes it.
    other, ret = acl.rt.create_stream()
    assert ret == 0
    release = threading.Event()
    stop = threading.Event()

    def report_loop():
        acl.rt.set_context(context)
        while not stop.is_set():
            acl.rt.process_report(20)

    reporter = threading.Thread(target=report_loop, daemon=True)
    reporter.start()
    assert acl.rt.subscribe_report(reporter.ident, other) == 0
    # A blocking callback holds the stream, so an event recorded after it stays pending.
    assert acl.rt.launch_callback(lambda _: release.wait(30), None, ACL_CALLBACK_BLOCK, other) == 0
    pending, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC)
    assert ret == 0
    assert acl.rt.record_event(pending, other) == 0
    assert acl.rt.query_event_status(pending) == (0, 0)

    failures = []
    start = threading.Barrier(4)

    def hammer(event, expected):
        start.wait()
        for _ in range(5000):
            result = acl.rt.query_event_status(event)
            if result != expected:
                failures.append(result)
                return

    threads = [threading.Thread(target=hammer, args=(event, expected))
               for event, expected in [(recorded, (1, 0)), (pending, (0, 0))] * 2]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns between almost any two bytecodes
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
        release.set()
        assert acl.rt.synchronize_stream(other) == 0
        assert acl.rt.unsubscribe_report(reporter.ident, other) == 0
        stop.set()
        reporter.join()
        acl.rt.destroy_event(pending)
        acl.rt.destroy_stream(other)
    assert failures == []


def _out_wrapper(c_function):
    """foreign()'s wrapper of c_function, a Python stand-in for a C function
    that writes an int to its last argument."""
    def query(handle, /):
        """status, ret = t.query(handle)"""
    return _parse.foreign("t.query", "k", c_function, out=ctypes.c_int)(query)


def test_calls_in_the_c_function_at_once_each_read_their_own_value():
    # Both calls are between writing and reading their value at once, as
    # threads can be while the C function runs without the GIL.
    both_inside = threading.Barrier(2, timeout=30)

    def c_function(handle, status):
        status.value = handle
        both_inside.wait()
        return 0

    query = _out_wrapper(c_function)
    results = {}

    def call(handle):
        results[handle] = query(handle)

    for _ in range(3):  # the later rounds reuse values of the earlier ones
        results.clear()
        threads = [threading.Thread(target=call, args=(handle,)) for handle in (1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results == {1: (1, 0), 2: (2, 0)}


def test_a_call_made_before_another_reads_its_value_leaves_that_value_alone():
    # As a signal handler or a finalizer may, on the same thread, after the
    # C function returned and before the wrapper read the value.
    def c_function(handle, status):
        status.value = handle
        if handle < 3:
            assert query(handle + 1) == (handle + 1, 0)
        return 0

    query = _out_wrapper(c_function)
    for convert in (int, MyInt):
        assert query(convert(1)) == (1, 0)


def test_a_failed_call_gives_0_not_a_value_an_earlier_call_wrote(stream, recorded):
    for convert in (int, MyInt):
        assert acl.rt.query_event_status(convert(recorded)) == (1, 0)
        status, ret = acl.rt.query_event_status(convert(stream))  # not an event
        assert ret != 0
        assert status == 0


def test_body_is_two_frames_below_the_caller_on_both_paths():
    frames = []

    @_parse.parsed("t.where", "k")
    def where(value, /):
        frames.append(inspect.currentframe().f_back.f_back.f_code.co_name)
        return value

    def caller():
        return where(5), where(MyInt(6)), where(True)

    assert caller() == (5, 6, 1)
    assert frames == ["caller"] * 3


def test_app_log_names_its_caller(run_python):
    code = ("import acl\n"
            "def the_caller():\n"
            "    acl.app_log(1, 'fast-path test line')\n"
            "the_caller()\n")
    completed = run_python(code, env={"ASCEND_GLOBAL_LOG_LEVEL": "0", "ASCEND_LOG_PRINT_TO_STDOUT": "1"})
    assert completed.returncode == 0, completed.stderr
    lines = [line for line in completed.stdout.splitlines() if "fast-path test line" in line]
    assert lines and "the_caller (<string>:3)" in lines[0], completed.stdout


def test_generated_wrappers_refuse_what_they_cannot_generate():
    with pytest.raises(ValueError):
        _parse.foreign("t.f", "s", print)  # no fast path for "s"
    with pytest.raises(ValueError):
        _parse.foreign("t.f", "kO", print)
    with pytest.raises(ValueError):
        _parse.foreign("t.f", "k|k", print)

    def _body(value, /):
        return value

    with pytest.raises(ValueError):  # would shadow the body it calls
        _parse.parsed("t._body", "k")(_body)


_HOST_FUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@pytest.mark.parametrize("convert", [int, MyInt])
@pytest.mark.parametrize("wait", ["synchronize_stream", "synchronize_event"])
def test_waits_with_no_limit_go_on_over_several_slices(stream, convert, wait):
    # The work outlasts three 100 ms slices: each path of the wrapper (the
    # inline loop and the checked one) must call again, not return the
    # "still busy" code of a slice.
    gate = threading.Event()
    held = _HOST_FUNC(lambda _: gate.wait(30))
    launch = _lib.library["aclrtLaunchHostFunc"]
    launch.argtypes = (ctypes.c_void_p, _HOST_FUNC, ctypes.c_void_p)
    event, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC)
    assert ret == 0
    assert launch(stream, held, None) == 0
    assert acl.rt.record_event(event, stream) == 0
    timer = threading.Timer(0.35, gate.set)
    timer.start()
    try:
        target = stream if wait == "synchronize_stream" else event
        assert getattr(acl.rt, wait)(convert(target)) == 0
        assert gate.is_set()
        assert acl.rt.query_event_status(event) == (1, 0)
    finally:
        gate.set()
        timer.join()
        assert acl.rt.synchronize_stream(stream) == 0
        acl.rt.destroy_event(event)
