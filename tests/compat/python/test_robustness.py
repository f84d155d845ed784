"""Robustness of the Python layer: every function of acl, acl.rt and acl.util
(and acl.mdl's ri_* model run instance functions) called with arguments of the wrong type and with None (pyACL raises), and,
as hostile input (marker "hostile"), with negative and huge integers and
with freed or wrong-kind handles. Each must raise (TypeError, ValueError or
OverflowError; RuntimeError where pyACL reports a failed call so) or return an error code; the interpreter must never die. The sweeps run in a child interpreter so that a crash fails the
test instead of ending pytest. test_conventions.py covers the parser's
rules in detail; this file makes sure no function escapes them."""
import json

import pytest

import acl

SWEEP_PRELUDE = r'''
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
import acl

ACCEPTED = (TypeError, ValueError, OverflowError)
# Functions that report a failed call by raising, as pyACL has them, with
# what they raise then.
RAISES_ON_FAILURE = {"acl.rt.get_group_info_detail": RuntimeError}

def functions():
    mdl = getattr(acl, "mdl", None)
    for module in (acl, acl.rt, acl.util) + ((mdl,) if mdl else ()):
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if name.startswith("_") or not callable(fn) or isinstance(fn, type(sys)):
                continue
            if module is mdl and not name.startswith("ri_"):
                continue  # pyACL's offline-model functions are not this suite's
            yield "%s.%s" % (module.__name__, name), fn

def arity(fn):
    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        pass
    # A C builtin without a signature: PyArg_ParseTuple names the count.
    import re
    try:
        fn(*[None] * 40)
    except TypeError as exc:
        found = re.search(r"(?:exactly|at most) (\d+) argument", str(exc))
        if found:
            return int(found.group(1))
    except Exception:
        pass
    return 0

def well_formed(result):
    if type(result) is int:
        return True
    return type(result) is tuple and len(result) > 0 and type(result[-1]) is int

def outcome(name, fn, args):
    try:
        result = fn(*args)
    except ACCEPTED:
        return None
    except RAISES_ON_FAILURE.get(name, ()):
        return None
    except Exception as exc:
        return "raised %s: %s" % (type(exc).__name__, exc)
    if not well_formed(result) and not isinstance(result, (bytes, str, float, type(None))):
        return "returned %r" % (result,)
    return None

def sweep(values, skipped=()):
    """Calls every function with one argument set to each of values, the
    others 0, and prints the number of calls and the problems as JSON."""
    problems, calls = [], 0
    for name, fn in functions():
        if name.rsplit(".", 1)[1] in skipped:
            continue
        for position in range(arity(fn)):
            for value in values:
                args = [0] * arity(fn)
                args[position] = value
                calls += 1
                problem = outcome(name, fn, args)
                if problem:
                    problems.append("%s argument %d = %r: %s" % (name, position + 1, value, problem))
    acl.get_recent_err_msg()
    print(json.dumps({"calls": calls, "problems": problems}))
'''

WRONG_TYPES = SWEEP_PRELUDE + r'''
sweep([None, "x", "", 1.5, float("nan"), b"\x00", [], (), {}, object(), 1j])
'''

# Functions left out of the integer sweep: a subscription to a thread id
# that does not exist is legal, but it holds back later work on the default
# stream by design (see test_callbacks.py for their own argument checks).
INTEGER_SWEEP_SKIPPED = ("subscribe_report", "unsubscribe_report", "launch_callback", "process_report")

# Only one argument is extreme at a time and the others are 0, so every
# pointer with a size is NULL or has size 0: nothing raw is dereferenced.
EXTREME_INTEGERS = SWEEP_PRELUDE + r'''
assert acl.rt.set_device(0) == 0
sweep([-1, -(1 << 31), (1 << 31) - 1, 1 << 32, 1 << 63, (1 << 64) - 1, (1 << 64) + 7,
       1 << 200, -(1 << 200)], skipped=%r)
''' % (INTEGER_SWEEP_SKIPPED,)


def _sweep(run_python, code):
    completed = run_python(code, timeout=300)
    assert completed.returncode == 0, "the interpreter died (status %d):\n%s" % (
        completed.returncode, completed.stderr[-4000:])
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    return report["calls"], report["problems"]


@pytest.mark.pins('every function of acl, acl.rt and acl.util, given an argument of the wrong type (None included), raises TypeError/ValueError/OverflowError; the interpreter lives',
                  'pyACL conventions: argument parse failure raises (PyArg_ParseTuple, CHECK_NULL)')
def test_wrong_types_and_none_never_crash(run_python):
    calls, problems = _sweep(run_python, WRONG_TYPES)
    assert calls > 1000
    assert not problems, "\n".join(problems[:40])


@pytest.mark.hostile
@pytest.mark.pins('every function given extreme integers returns an error code or raises; the interpreter lives',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_negative_and_huge_integers_never_crash(run_python):
    calls, problems = _sweep(run_python, EXTREME_INTEGERS)
    assert calls > 1000
    assert not problems, "\n".join(problems[:40])


# ---- freed and wrong-kind handles -------------------------------------------------------

STALE_HANDLES = r'''
import acl
rt = acl.rt
assert rt.set_device(0) == 0
failures = []

def expect_error(what, result):
    ret = result if type(result) is int else result[-1]
    if ret == 0:
        failures.append("%s succeeded" % what)
    elif not acl.get_recent_err_msg():
        failures.append("%s left no error message" % what)

# Live handles first: a handle made after a destroy could take over the
# destroyed one's address, and the stale handle would then be live again.
live_stream, ret = rt.create_stream(); assert ret == 0
live_event, ret = rt.create_event_with_flag(1); assert ret == 0
live_buffer = acl.create_data_buffer(0, 0); assert live_buffer
pageable = bytes(256)
pageable_ptr = acl.util.bytes_to_ptr(pageable)

stream, ret = rt.create_stream(); assert ret == 0
event, ret = rt.create_event(); assert ret == 0
buffer = acl.create_data_buffer(0, 0); assert buffer
device, ret = rt.malloc(256, 0); assert ret == 0
host, ret = rt.malloc_host(256); assert ret == 0
assert rt.destroy_stream(stream) == 0
assert rt.destroy_event(event) == 0
assert acl.destroy_data_buffer(buffer) == 0
assert rt.free(device) == 0
assert rt.free_host(host) == 0
context, ret = rt.create_context(0); assert ret == 0  # becomes current
assert rt.destroy_context(context) == 0
assert rt.set_device(0) == 0

calls = {
    "stream": [
        lambda h: rt.destroy_stream(h), lambda h: rt.destroy_stream_force(h),
        lambda h: rt.synchronize_stream(h), lambda h: rt.synchronize_stream_with_timeout(h, 10),
        lambda h: rt.stream_query(h), lambda h: rt.stream_get_id(h),
        lambda h: rt.stream_wait_event(h, live_event), lambda h: rt.record_event(live_event, h),
        lambda h: rt.set_stream_failure_mode(h, 1), lambda h: rt.get_stream_overflow_switch(h),
        lambda h: rt.memset_async(pageable_ptr, 256, 0, 16, h),
        lambda h: rt.memcpy_async(pageable_ptr, 256, pageable_ptr, 16, 1, h),
    ],
    "event": [
        lambda h: rt.destroy_event(h), lambda h: rt.record_event(h, 0), lambda h: rt.reset_event(h, 0),
        lambda h: rt.query_event_status(h), lambda h: rt.synchronize_event(h),
        lambda h: rt.synchronize_event_with_timeout(h, 10), lambda h: rt.stream_wait_event(0, h),
        lambda h: rt.get_event_id(h), lambda h: rt.event_elapsed_time(h, h),
    ],
    "context": [lambda h: rt.destroy_context(h), lambda h: rt.set_context(h)],
    "buffer": [
        lambda h: acl.destroy_data_buffer(h), lambda h: acl.update_data_buffer(h, 0, 8),
    ],
    "device memory": [lambda p: rt.free(p)],
    "host memory": [lambda p: rt.free_host(p)],
}
stale = {"stream": stream, "event": event, "context": context, "buffer": buffer,
         "device memory": device, "host memory": host}
live = {"stream": live_stream, "event": live_event, "buffer": live_buffer}
for kind, functions in calls.items():
    for number, call in enumerate(functions):
        expect_error("%s call %d with a freed %s" % (kind, number, kind), call(stale[kind]))
        for other, handle in live.items():
            if other != kind:
                expect_error("%s call %d with a live %s" % (kind, number, other), call(handle))
        expect_error("%s call %d with pageable memory" % (kind, number), call(pageable_ptr))

if acl.get_data_buffer_addr(buffer) != 0 or not acl.get_recent_err_msg():
    failures.append("get_data_buffer_addr of a freed buffer")
if acl.get_data_buffer_size_v2(buffer) != 0 or not acl.get_recent_err_msg():
    failures.append("get_data_buffer_size_v2 of a freed buffer")
assert rt.destroy_stream(live_stream) == 0
assert rt.destroy_event(live_event) == 0
assert acl.destroy_data_buffer(live_buffer) == 0
assert rt.reset_device(0) == 0
assert rt.reset_device(0) == 0
print("FAILURES", failures)
assert not failures, failures
'''


@pytest.mark.hostile
@pytest.mark.pins('freed and wrong-kind handles are refused with an error code and a message',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_freed_and_wrong_kind_handles_are_errors(run_python):
    completed = run_python(STALE_HANDLES)
    assert completed.returncode == 0, "status %d:\n%s\n%s" % (
        completed.returncode, completed.stdout[-3000:], completed.stderr[-3000:])


@pytest.mark.pins('ptr_to_bytes raises TypeError for a non-int pointer or size; bytes_to_ptr TypeError or ValueError for a non-bytes',
                  "pyACL util/bytes_convert.cpp: 'kk' parse; non-bytes -> ValueError")
@pytest.mark.parametrize("bad", [None, "0", 1.5, object()])
def test_util_pointer_functions_reject_bad_types(bad):
    for call in (lambda: acl.util.ptr_to_bytes(bad, 4), lambda: acl.util.ptr_to_bytes(0, bad)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises((TypeError, ValueError)):
        acl.util.bytes_to_ptr(bad)


@pytest.mark.hostile
@pytest.mark.pins('after a burst of garbage handles in this process, normal work still runs',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
def test_library_survives_the_sweeps_in_process(context):
    """After a burst of bad calls in this process, normal work still runs."""
    for value in (-1, 1 << 64, 1 << 63, 12345):
        assert acl.rt.destroy_stream(value) != 0
        assert acl.rt.free(value) != 0
        assert acl.rt.destroy_event(value) != 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    data = bytes(range(256)) * 16
    out = bytes(len(data))
    dev, ret = acl.rt.malloc(len(data), 0)
    assert ret == 0
    assert acl.rt.memcpy(dev, len(data), acl.util.bytes_to_ptr(data), len(data), 1) == 0
    assert acl.rt.memcpy_async(acl.util.bytes_to_ptr(out), len(out), dev, len(data), 2, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert out == data
    assert acl.rt.free(dev) == 0
    assert acl.rt.destroy_stream(stream) == 0
    acl.get_recent_err_msg()
