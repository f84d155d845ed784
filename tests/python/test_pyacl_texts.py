"""pyACL's exceptions, type and text exactly, for arguments it cannot take:
CANN's own pyACL tests compare them.

pyACL (the C extension, sources in hicann/runtime, python/pyACL/) parses
arguments with PyArg_ParseTuple and, in most functions, replaces whatever
that raised by TypeError("acl.<module>.<name> args parse failed"); the
texts vary from function to function, and a few functions keep CPython's
own exception. acl._parse reproduces both (see its docstring); the texts
are recorded here per function, with the pyACL file they come from."""
import ctypes
import inspect
import sys
import warnings

import numpy as np
import pytest

import acl
from acl import _parse

PYACL_DEFAULT = "{name} args parse failed"
CPYTHON = "cpython"

# Functions whose text is not PYACL_DEFAULT, and where pyACL has it.
TEXTS = {
    # rt/rt_device.cpp: a "!", and one function with another function's name in its text
    "acl.rt.get_devices_topo": "acl.rt.reset_device_res_limit args parse failed",
    # rt/rt_context.cpp
    "acl.rt.get_overflow_status": "{name} args parse failed!",
    "acl.rt.reset_overflow_status": "{name} args parse failed!",
    "acl.rt.set_sys_param_opt": "{name} args parse faild",
    "acl.rt.get_sys_param_opt": "{name} args parse faild",
    # rt/rt_stream.cpp
    "acl.rt.set_stream_failure_mode": "{name} args parse failed!",
    "acl.rt.stream_query": "{name} args parse failed!",
    "acl.rt.set_stream_attribute": "{name} args parse failed!",
    "acl.rt.get_stream_attribute": "{name} args parse failed!",
    "acl.rt.get_stream_res_limit": "{name} parse failed",
    "acl.rt.set_stream_res_limit": "{name} parse failed",
    "acl.rt.reset_stream_res_limit": "{name} parse failed",
    "acl.rt.use_stream_res_in_current_thread": "{name} parse failed",
    "acl.rt.unuse_stream_res_in_current_thread": "{name} parse failed",
    "acl.rt.get_res_in_current_thread": "{name} parse failed",
    # rt/rt_synchronize.cpp (get_event_id passes its text to PyArg_ParseTuple
    # instead of CHECK_NULL, so CPython's exception stays)
    "acl.rt.synchronize_event_with_timeout": "{name} args parse failed!",
    "acl.rt.get_event_id": CPYTHON,
    "acl.rt.set_op_wait_timeout": "{name} args parse failed!",
    "acl.rt.peek_at_last_error": "{name} args parse failed!",
    "acl.rt.get_last_error": "{name} args parse failed!",
    "acl.rt.synchronize_device_with_timeout": "{name} args parse failed!",
    "acl.rt.set_op_execute_time_out": "acl.rt.set_op_execute_timeout args parse failed!",
    "acl.rt.set_op_execute_timeout_v2": "{name} args parse failed!",
    # rt/rt_memory.cpp
    "acl.rt.malloc_with_cfg": "{name} args parse failed!",
    "acl.rt.malloc_for_task_scheduler": "{name} args parse failed!",
    # rt/rt_binary.cpp
    "acl.rt.binary_load_from_file": "{name} args parse failed!",
    "acl.rt.binary_load_from_data": "{name} args parse failed!",
    "acl.rt.get_function_addr": "{name} args parse failed!",
    "acl.rt.get_function_name": "{name} args parse failed!",
    "acl.rt.register_cpu_func": "{name} args parse failed!",
    "acl.rt.get_mem_uce_info": "{name} args parse failed!",
    "acl.rt.mem_uce_repair": "{name} args parse failed!",
    "acl.rt.cmo_async": "{name} args parse failed!",
    "acl.rt.host_get_device_pointer": "{name} parse failed",
    # media/media_dvpp.cpp (DVPP memory only)
    "acl.media.dvpp_malloc": "{name} args parse failed!",
    "acl.media.dvpp_malloc_with_cfg": "{name} args parse failed!",
    "acl.media.dvpp_free": "{name} args parse failed!",
    # util/thread.cpp: start_thread keeps PyArg_ParseTuple's exception
    "acl.util.start_thread": CPYTHON,
}

# Functions that do not parse their arguments at all (py_init_acl.cpp and
# the rt_*.cpp files): any positional arguments are taken and ignored.
IGNORE_ARGUMENTS = {
    "acl.finalize", "acl.finalize_reference", "acl.get_version", "acl.get_soc_name",
    "acl.get_recent_err_msg", "acl.get_cann_attribute_list",
    "acl.rt.get_device", "acl.rt.get_device_sat_mode", "acl.rt.get_run_mode", "acl.rt.get_device_count",
    "acl.rt.device_get_stream_priority_range", "acl.rt.device_get_bare_tgid", "acl.rt.synchronize_device",
    "acl.rt.get_context", "acl.rt.ctx_get_current_default_stream", "acl.rt.create_stream",
    "acl.rt.get_stream_available_num", "acl.rt.get_thread_last_task_id", "acl.rt.create_event",
    "acl.rt.get_event_avail_num", "acl.rt.get_op_timeout_interval", "acl.rt.get_op_execute_timeout",
    # rt/rt_group.cpp, rt/rt_allocator.cpp: the handle alone, no ret
    "acl.rt.create_group_info", "acl.rt.allocator_create_desc",
}
# Not called in this process: they would end the session's initialisation.
NOT_CALLED = {"acl.finalize", "acl.finalize_reference"}


def _functions():
    # acl.mdl's ri_* functions are acl-cuda's (pyACL has none): pyACL's default text.
    for module in (acl, acl.mdl, acl.rt, acl.util, acl.media):
        for name in sorted(dir(module)):
            function = getattr(module, name)
            if not name.startswith("_") and inspect.isfunction(function):
                yield "%s.%s" % (module.__name__, name), function


FUNCTIONS = list(_functions())


def _arity(function):
    return len(inspect.signature(function).parameters)


def _plural(n):
    return "argument" if n == 1 else "arguments"


@pytest.mark.parametrize("name, function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_too_many_arguments_raise_pyacls_text(context, name, function):
    if name in IGNORE_ARGUMENTS:
        assert _arity(function) == 0
        if name not in NOT_CALLED:
            result = function(0, "ignored", None)  # no exception
            if name in ("acl.rt.create_stream", "acl.rt.create_event"):
                assert result[1] == 0
                (acl.rt.destroy_stream if "stream" in name else acl.rt.destroy_event)(result[0])
            destroy = {"acl.rt.create_group_info": acl.rt.destroy_group_info,
                       "acl.rt.allocator_create_desc": acl.rt.allocator_destroy_desc}.get(name)
            if destroy:
                assert type(result) is int and result != 0
                assert destroy(result) == 0
        return
    count = _arity(function)
    text = TEXTS.get(name, PYACL_DEFAULT).format(name=name)
    with pytest.raises(TypeError) as raised:
        function(*[0] * (count + 1))
    optional = sum(1 for p in inspect.signature(function).parameters.values() if p.default is not p.empty)
    cpython = "function takes %s %d %s (%d given)" % ("at most" if optional else "exactly", count,
                                                      _plural(count), count + 1)
    if text == CPYTHON:
        assert str(raised.value) == cpython
        assert raised.value.__cause__ is None
    else:
        assert str(raised.value) == text
        assert str(raised.value.__cause__) == cpython


def test_finalize_ignores_its_arguments(run_python):
    completed = run_python("import acl\n"
                           "assert acl.init() == 0\n"
                           "assert acl.finalize_reference(1)[-1] == 0\n"
                           "assert acl.init() == 0\n"
                           "assert acl.finalize(1, 'x') == 0\n")
    assert completed.returncode == 0, completed.stderr


@pytest.mark.parametrize("call, text", [
    (lambda: acl.rt.set_device("0"), "acl.rt.set_device args parse failed"),
    (lambda: acl.rt.set_device(1 << 31), "acl.rt.set_device args parse failed"),
    (lambda: acl.rt.set_device(), "acl.rt.set_device args parse failed"),
    (lambda: acl.rt.memcpy(0, 0, None, 0, 1), "acl.rt.memcpy args parse failed"),
    (lambda: acl.rt.malloc(1.5, 0), "acl.rt.malloc args parse failed"),
    (lambda: acl.rt.synchronize_stream(None), "acl.rt.synchronize_stream args parse failed"),
    (lambda: acl.rt.record_event(1.0, 0), "acl.rt.record_event args parse failed"),
    (lambda: acl.rt.launch_callback(print, None, "1", 0), "acl.rt.launch_callback args parse failed"),
    (lambda: acl.rt.stream_query("x"), "acl.rt.stream_query args parse failed!"),
    (lambda: acl.rt.get_sys_param_opt(None), "acl.rt.get_sys_param_opt args parse faild"),
    (lambda: acl.rt.get_devices_topo(0), "acl.rt.reset_device_res_limit args parse failed"),
    (lambda: acl.init(None), "acl.init args parse failed"),
    (lambda: acl.init("a\0b"), "acl.init args parse failed"),
    (lambda: acl.app_log("1", "x"), "acl.app_log args parse failed"),
    (lambda: acl.util.stop_thread("1"), "acl.util.stop_thread args parse failed"),
    (lambda: acl.util.ptr_to_bytes(0), "acl.util.ptr_to_bytes args parse failed"),
    (lambda: acl.util.bytes_to_ptr(), "acl.util.bytes_to_ptr args parse failed"),
    (lambda: acl.rt.set_exception_info_callback(5), "acl.rt.set_exception_info_callback args parse failed"),
    # util/thread.cpp and rt/rt_synchronize.cpp: PyCallable_Check after parsing
    (lambda: acl.util.start_thread("", ""), "parameter must be callable"),
    (lambda: acl.rt.launch_callback(5, None, 0, 0), "parameter must be callable"),
    # CPython's own texts, kept by pyACL in these two
    (lambda: acl.util.start_thread(), "function takes exactly 2 arguments (0 given)"),
    (lambda: acl.util.start_thread(print), "function takes exactly 2 arguments (1 given)"),
    (lambda: acl.rt.get_event_id(), "function takes exactly 1 argument (0 given)"),
    (lambda: acl.rt.get_event_id("x"), "argument 1 must be int, not str"),
    (lambda: acl.rt.get_event_id(None), "argument 1 must be int, not None"),
])
def test_type_errors_have_pyacls_text(context, call, text):
    with pytest.raises(TypeError) as raised:
        call()
    assert type(raised.value) is TypeError and str(raised.value) == text


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("call, text", [
    # util/numpy_convert.cpp, util/bytes_convert.cpp
    (lambda: acl.util.numpy_to_ptr([1, 2]), "needs an ndarray as argument"),
    (lambda: acl.util.numpy_contiguous_to_ptr(b"ab"), "needs an ndarray as argument"),
    (lambda: acl.util.bytes_to_ptr(bytearray(2)), "needs an byte as argument"),
    (lambda: acl.util.bytes_to_ptr("text"), "needs an byte as argument"),
])
def test_value_errors_have_pyacls_text(call, text):
    with pytest.raises(ValueError) as raised:
        call()
    assert type(raised.value) is ValueError and str(raised.value) == text


def test_deprecation_warnings_have_pyacls_text():
    array = np.zeros((2, 2), np.float32)
    expected = [
        (lambda: acl.util.numpy_to_ptr(array),
         ["acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead."]),
        (lambda: acl.util.numpy_to_ptr(array.T),
         ["acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
          "The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead."]),
        (lambda: acl.util.numpy_contiguous_to_ptr(array),
         ["acl.util.numpy_contiguous_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead."]),
        (lambda: acl.util.ptr_to_numpy(array.ctypes.data, (2, 2), 11),
         ["acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead."]),
    ]
    for call, texts in expected:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [str(w.message) for w in caught] == texts
        assert all(w.category is Warning and w.filename == __file__ for w in caught)


def test_stop_thread_reports_what_the_thread_raised(capsys):
    class Failure(Exception):
        pass

    def body(_):
        raise Failure("in the thread")

    tid, ret = acl.util.start_thread(body, [])
    assert ret == 0
    with pytest.raises(RuntimeError) as raised:
        acl.util.stop_thread(tid)
    # util/thread.cpp: "exception=<type>,msg=thread call failed;" per exception
    assert str(raised.value) == "exception=Failure,msg=thread call failed;"
    assert "in the thread" in capsys.readouterr().err


# ---- the parser against CPython's PyArg_ParseTuple -------------------------------------------

class Index:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class MyInt(int):
    pass


class Real:
    def __float__(self):
        return 2.5


VALUES = [0, 1, -1, True, 7, MyInt(9), Index(3), Index(-(1 << 40)), (1 << 31) - 1, 1 << 31, -(1 << 31),
          -(1 << 31) - 1, 1 << 32, (1 << 63) - 1, 1 << 63, -(1 << 63), -(1 << 63) - 1, 1 << 64, (1 << 64) + 5,
          -(1 << 200), 1.5, 1.0, float("inf"), np.int64(5), np.float64(2.0), Real(), "x", "", "a\0b", "\udc80",
          b"x", None, [1], object()]

C_TYPES = {"k": ctypes.c_ulong, "K": ctypes.c_ulonglong, "i": ctypes.c_int, "I": ctypes.c_uint,
           "H": ctypes.c_ushort, "l": ctypes.c_long, "f": ctypes.c_float, "s": ctypes.c_char_p,
           "O": ctypes.py_object}


def _pyarg_parse_tuple(fmt, args):
    """CPython's own PyArg_ParseTuple: the converted values, or what it raised."""
    slots = [C_TYPES[letter]() for letter in fmt.replace("|", "")]
    parse = ctypes.pythonapi["PyArg_ParseTuple"]  # a function object of our own
    parse.restype = ctypes.c_int
    try:
        parse(ctypes.py_object(tuple(args)), fmt.encode(), *[ctypes.byref(slot) for slot in slots])
    except Exception as exc:  # pythonapi functions raise what they set
        return exc
    return [slot.value for slot in slots[:len(args)]]


def _ours(fmt, args):
    letters, _, check = _parse._checker("t.f", fmt, _parse.CPYTHON_ERRORS)
    try:
        return check(tuple(args))
    except Exception as exc:
        return exc


def _same(fmt, args):
    theirs, ours = _pyarg_parse_tuple(fmt, args), _ours(fmt, args)
    where = "%r %r: CPython %r, ours %r" % (fmt, args, theirs, ours)
    if isinstance(theirs, Exception):
        assert type(ours) is type(theirs), where
        if sys.version_info >= (3, 10):  # older versions word some messages otherwise
            assert str(ours) == str(theirs), where
        return
    assert not isinstance(ours, Exception), where
    for letter, mine, cpython in zip(fmt.replace("|", ""), ours, theirs):
        if letter == "f":
            mine = ctypes.c_float(mine).value
        if letter == "O":
            assert mine is cpython, where
        elif mine != mine:  # NaN
            assert cpython != cpython, where
        else:
            assert mine == cpython, where


@pytest.mark.skipif(not hasattr(ctypes, "pythonapi"), reason="needs CPython's C API")
@pytest.mark.parametrize("letter", sorted(C_TYPES))
def test_each_format_letter_converts_and_fails_as_cpython_does(letter):
    for value in VALUES:
        _same(letter, [value])
        _same("O" + letter, [None, value])  # the argument number in the message


@pytest.mark.skipif(not hasattr(ctypes, "pythonapi"), reason="needs CPython's C API")
@pytest.mark.parametrize("fmt", ["", "k", "kk", "kkkki", "OO", "|s", "|O", "i|sO", "kiO"])
def test_wrong_numbers_of_arguments_fail_as_cpython_does(fmt):
    for count in range(7):
        _same(fmt, [0] * count)
