"""pyACL's calling conventions: tuple shapes with ret last, integer handles,
0 for the default stream, positional arguments only, TypeError for
arguments of the wrong type, and no crash for any integer value."""
import importlib
import inspect
import sys

import pytest

import acl
from acl import _parse

U64 = (1 << 64) - 1
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_RT_INVALID_DEVICEID = 107001


# ---- module shape ---------------------------------------------------------------

def test_submodules_are_attributes_after_import_acl():
    assert isinstance(acl.rt, type(sys))
    assert isinstance(acl.util, type(sys))
    assert "bytes_to_ptr" in dir(acl.util) and "ptr_to_bytes" in dir(acl.util)


def test_import_acl_rt_statement_works():
    rt = importlib.import_module("acl.rt")
    assert rt is acl.rt
    import acl.util as util_module
    assert util_module is acl.util


def test_no_constants_and_no_module_clutter():
    for module in (acl, acl.rt, acl.util):
        public = [n for n in dir(module) if not n.startswith("_")]
        for name in public:
            value = getattr(module, name)
            assert callable(value) or name in ("rt", "util"), "%s.%s is not a function" % (module.__name__, name)


# ---- results ------------------------------------------------------------------

def test_value_and_ret_tuples_put_ret_last(context):
    count, ret = acl.rt.get_device_count()
    assert (type(count), ret) == (int, 0) and count >= 1
    device, ret = acl.rt.get_device()
    assert (device, ret) == (0, 0)
    current, ret = acl.rt.get_context()
    assert (current, ret) == (context, 0)
    free, total, ret = acl.rt.get_mem_info(1)
    assert ret == 0 and 0 <= free <= total
    major, minor, patch, ret = acl.get_version()
    assert ret == 0 and all(isinstance(v, int) for v in (major, minor, patch))


def test_handles_are_positive_ints(context):
    stream, ret = acl.rt.create_stream()
    assert ret == 0 and type(stream) is int and stream > 0
    event, ret = acl.rt.create_event()
    assert ret == 0 and type(event) is int and event > 0
    assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_failed_creation_gives_handle_zero():
    context, ret = acl.rt.create_context(1 << 20)
    assert context == 0 and ret != 0


def test_bare_ret_is_an_int(context):
    ret = acl.rt.synchronize_device()
    assert type(ret) is int and ret == 0


def test_default_stream_is_zero(context, device_memory, host_memory):
    dev, size = device_memory
    host, _ = host_memory
    event, ret = acl.rt.create_event()
    assert ret == 0
    assert acl.rt.memset_async(host, size, 0x2B, size, 0) == 0
    assert acl.rt.memcpy_async(dev, size, host, size, 1, 0) == 0
    assert acl.rt.record_event(event, 0) == 0
    assert acl.rt.stream_wait_event(0, event) == 0
    assert acl.rt.synchronize_stream(0) == 0
    status, ret = acl.rt.stream_query(0)
    assert (status, ret) == (0, 0)
    out = bytes(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), size, dev, size, 2) == 0
    assert out == b"\x2b" * size
    assert acl.rt.destroy_event(event) == 0


# ---- argument checking ----------------------------------------------------------

@pytest.mark.parametrize("bad", ["0", None, 1.0, b"\x00", [0], object()])
def test_handle_argument_of_wrong_type_raises_type_error(context, bad):
    with pytest.raises(TypeError, match="args parse failed"):
        acl.rt.synchronize_stream(bad)
    with pytest.raises(TypeError):
        acl.rt.destroy_context(bad)
    with pytest.raises(TypeError):
        acl.rt.memcpy(0, 0, bad, 0, 1)


@pytest.mark.parametrize("bad", ["0", None, 0.0, b"0"])
def test_int_argument_of_wrong_type_raises_type_error(bad):
    with pytest.raises(TypeError):
        acl.rt.set_device(bad)
    with pytest.raises(TypeError):
        acl.rt.process_report(bad)
    with pytest.raises(TypeError):
        acl.rt.create_event_with_flag(bad)


def test_wrong_type_never_reaches_the_library():
    with pytest.raises(TypeError):
        acl.rt.malloc("64", 0)
    assert acl.get_recent_err_msg() is None


def test_keyword_arguments_are_rejected():
    with pytest.raises(TypeError, match="keyword"):
        acl.rt.set_device(device_id=0)
    with pytest.raises(TypeError, match="keyword"):
        acl.rt.get_device_count(x=1)
    with pytest.raises(TypeError, match="keyword"):
        acl.util.bytes_to_ptr(data=b"x")
    with pytest.raises(TypeError, match="keyword"):
        acl.init(config_path="x.json")


def test_wrong_number_of_arguments_raises_type_error():
    # pyACL's text, with PyArg_ParseTuple's as the cause.
    with pytest.raises(TypeError, match=r"^acl.rt.set_device args parse failed$") as raised:
        acl.rt.set_device()
    assert str(raised.value.__cause__) == "function takes exactly 1 argument (0 given)"
    with pytest.raises(TypeError, match=r"^acl.rt.memcpy args parse failed$") as raised:
        acl.rt.memcpy(0, 0, 0, 0)
    assert str(raised.value.__cause__) == "function takes exactly 5 arguments (4 given)"
    with pytest.raises(TypeError, match=r"^acl.init args parse failed$") as raised:
        acl.init("a", "b")
    assert str(raised.value.__cause__) == "function takes at most 1 argument (2 given)"


def test_functions_without_arguments_ignore_what_they_are_given(context):
    # pyACL's do not parse their arguments at all.
    assert acl.rt.get_device(0) == (0, 0)
    assert acl.rt.get_device("any", None, 1.5) == (0, 0)
    assert acl.rt.synchronize_device(1, 2) == 0
    assert acl.get_recent_err_msg(5) is None


def test_bool_is_an_int():
    # bool is an int subclass, so every integer format takes it as 0 or 1.
    assert acl.rt.set_device(False) == 0
    assert acl.rt.reset_device(False) == 0
    assert acl.rt.destroy_stream(True) != 0


def test_int_subclass_and_index_objects():
    class Index:
        def __index__(self):
            return 0

    class MyInt(int):
        pass

    assert acl.rt.set_device(Index()) == 0
    assert acl.rt.reset_device(MyInt(0)) == 0
    assert acl.rt.destroy_stream(MyInt(5)) != 0
    with pytest.raises(TypeError):  # "k" takes ints only, not __index__ objects
        acl.rt.destroy_stream(Index())


@pytest.mark.parametrize("value", [-1, -(1 << 63), 1 << 63, U64, (1 << 64) + 8, (1 << 200) + 5, -(1 << 200) - 3])
def test_huge_and_negative_handles_do_not_crash(context, value):
    assert acl.rt.destroy_stream(value) != 0
    assert acl.rt.synchronize_stream(value) != 0
    assert acl.rt.destroy_event(value) != 0
    assert acl.rt.record_event(value, 0) != 0
    assert acl.rt.set_context(value) != 0
    assert acl.rt.free(value) != 0
    assert acl.rt.free_host(value) != 0
    assert acl.rt.query_event_status(value)[1] != 0
    assert acl.get_recent_err_msg()


@pytest.mark.parametrize("value", [1 << 64, -(1 << 200)])
def test_handles_that_mask_to_zero_mean_null(context, value):
    assert acl.rt.synchronize_stream(value) == 0  # the default stream
    assert acl.rt.destroy_stream(value) != 0      # NULL cannot be destroyed
    assert acl.rt.free(value) != 0


def test_unsigned_long_arguments_are_masked_to_64_bits(context):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    # As PyArg_ParseTuple's "k" does, stream + 2**64 is the same handle.
    assert acl.rt.synchronize_stream(stream + (1 << 64)) == 0
    assert acl.rt.destroy_stream(stream + (3 << 64)) == 0


@pytest.mark.parametrize("value", [1 << 31, -(1 << 31) - 1, 1 << 64])
def test_int32_arguments_out_of_range_are_parse_failures(value):
    # PyArg_ParseTuple's OverflowError, which pyACL replaces by its TypeError.
    with pytest.raises(TypeError, match="^acl.rt.set_device args parse failed$") as raised:
        acl.rt.set_device(value)
    assert type(raised.value.__cause__) is OverflowError
    with pytest.raises(TypeError, match="^acl.rt.process_report args parse failed$"):
        acl.rt.process_report(value)


def test_int32_range_edges_reach_the_library():
    assert acl.rt.set_device((1 << 31) - 1) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(-(1 << 31)) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(-1) == ACL_ERROR_RT_INVALID_DEVICEID


def test_unsigned_int_arguments_are_masked():
    # "I": -1 becomes 0xFFFFFFFF (an invalid flag set), not an exception.
    event, ret = acl.rt.create_event_with_flag(-1)
    assert (event == 0) == (ret != 0)
    if ret == 0:
        acl.rt.destroy_event(event)


def test_string_arguments():
    with pytest.raises(TypeError):
        acl.init(None)
    with pytest.raises(TypeError):
        acl.init(b"config.json")
    with pytest.raises(TypeError, match="^acl.init args parse failed$") as raised:
        acl.init("con\0fig.json")
    assert type(raised.value.__cause__) is ValueError and "null" in str(raised.value.__cause__)


def test_functions_are_positional_only_in_their_signature():
    parameters = inspect.signature(acl.rt.memcpy).parameters
    assert list(parameters) == ["dst", "dest_max", "src", "count", "kind"]
    assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in parameters.values())


# ---- the parser itself --------------------------------------------------------------

def test_parser_format_letters():
    @_parse.parsed("t.f", "kKiIHlfsO", _parse.CPYTHON_ERRORS)
    def body(*args):
        return args

    k, big_k, i, big_i, h, long_, f, s, o = body(-1, -2, -3, -4, -5, -6, 7, "x", None)
    assert (k, big_k) == ((1 << 64) - 1, (1 << 64) - 2)
    assert (i, big_i, h, long_) == (-3, (1 << 32) - 4, (1 << 16) - 5, -6)
    assert (f, s, o) == (7.0, b"x", None)
    with pytest.raises(OverflowError):
        body(0, 0, 0, 0, 0, 1 << 63, 0.0, "", 0)
    with pytest.raises(TypeError):
        body(0, 0, 0, 0, 0, 0, "1.5", "", 0)


def test_parser_optional_arguments():
    @_parse.parsed("t.g", "i|sO", _parse.CPYTHON_ERRORS)
    def body(a, b=b"default", c="c"):
        return a, b, c

    assert body(1) == (1, b"default", "c")
    assert body(1, "x") == (1, b"x", "c")
    with pytest.raises(TypeError, match="at least 1 argument"):
        body()
    with pytest.raises(TypeError, match="at most 3 arguments"):
        body(1, "x", 2, 3)


def test_functions_missing_from_the_library_are_absent():
    namespace = {}

    @_parse.api("acl.test", "", available=False)
    def missing():
        return 0

    namespace["missing"] = missing
    namespace["kept"] = len
    _parse.drop_unavailable(namespace)
    assert namespace == {"kept": len}


def test_every_foreign_call_releases_the_gil():
    # ctypes.CDLL (not PyDLL) functions drop the GIL while they run.
    import ctypes
    assert isinstance(acl._lib.library, ctypes.CDLL)
    assert not isinstance(acl._lib.library, ctypes.PyDLL)
    assert acl._lib.api.aclrtSynchronizeStream._flags_ & ctypes._FUNCFLAG_PYTHONAPI == 0


def test_import_does_not_need_numpy(run_python):
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import acl\n"
            "b = b'abcd'\n"
            "assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(b), 4) == b\n"
            "try:\n"
            "    acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(b), (4,), 2)\n"
            "except ImportError as exc:\n"
            "    print('needs numpy:', exc)\n")
    completed = run_python(code)
    assert completed.returncode == 0, completed.stderr
    assert "needs numpy" in completed.stdout


def test_subprocess_helper_sees_the_same_library(run_python):
    completed = run_python("import acl; print(acl._lib.path)")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == acl._lib.path


def test_python_version_floor_syntax():
    # The package must stay importable by Python 3.8: compile it with that grammar.
    import ast
    import os
    package = os.path.dirname(acl.__file__)
    sources = [os.path.join(folder, name) for folder, _, names in os.walk(package)
               for name in names if name.endswith(".py")]
    assert any(os.sep + "_rt" + os.sep in path for path in sources)
    for path in sources:
        with open(path) as source:
            ast.parse(source.read(), path, feature_version=(3, 8))

