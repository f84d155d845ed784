"""pyACL's calling conventions: tuple shapes with ret last, integer handles,
0 for the default stream, positional arguments only, TypeError for
arguments of the wrong type (PyArg_ParseTuple's rules for the formats pyACL
declares), and, as hostile input, no crash for any integer value."""
import importlib
import sys

import pytest

import acl

U64 = (1 << 64) - 1
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_RT_INVALID_DEVICEID = 107001


# ---- module shape ---------------------------------------------------------------

@pytest.mark.pins("import acl gives acl.rt and acl.util as attributes; 'bytes_to_ptr' in dir(acl.util) works for feature tests",
                  "pyACL module layout (PyImport_AddModule acl.rt/acl.util); samples' dir(acl.util) checks")
def test_submodules_are_attributes_after_import_acl():
    assert isinstance(acl.rt, type(sys))
    assert isinstance(acl.util, type(sys))
    assert "bytes_to_ptr" in dir(acl.util) and "ptr_to_bytes" in dir(acl.util)


@pytest.mark.pins('import acl.rt and import acl.util give the same modules as the attributes',
                  'pyACL module layout (sys.modules entries acl.rt, acl.util)')
def test_import_acl_rt_statement_works():
    rt = importlib.import_module("acl.rt")
    assert rt is acl.rt
    import acl.util as util_module
    assert util_module is acl.util


# pyACL's submodules (py_init_acl.cpp); a package may have fewer.
SUBMODULES = ("rt", "mdl", "media", "op", "blas", "util", "prof", "himpi", "fv", "tdt")


@pytest.mark.pins('acl, acl.rt, acl.util and acl.mdl hold functions only: no constants (samples define their own)',
                  "pyACL module layout; Ascend samples' constant.py files")
def test_no_constants_and_no_module_clutter():
    modules = [acl] + [getattr(acl, name) for name in ("rt", "util", "mdl", "media") if hasattr(acl, name)]
    for module in modules:
        public = [n for n in dir(module) if not n.startswith("_")]
        for name in public:
            value = getattr(module, name)
            assert callable(value) or (module is acl and name in SUBMODULES), \
                "%s.%s is not a function" % (module.__name__, name)


# ---- results ------------------------------------------------------------------

@pytest.mark.pins('functions returning a value return (value..., ret) with ret last and 0 on success',
                  'pyACL conventions: ret is always the last element')
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


@pytest.mark.pins('handles are plain positive Python ints',
                  "pyACL conventions: every handle is an int built with 'k'")
def test_handles_are_positive_ints(context):
    stream, ret = acl.rt.create_stream()
    assert ret == 0 and type(stream) is int and stream > 0
    event, ret = acl.rt.create_event()
    assert ret == 0 and type(event) is int and event > 0
    assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_stream(stream) == 0


@pytest.mark.pins('a failed creation returns handle 0 with a non-zero ret',
                  'pyACL conventions: null -> 0')
def test_failed_creation_gives_handle_zero():
    context, ret = acl.rt.create_context(1 << 20)
    assert context == 0 and ret != 0


@pytest.mark.pins('functions without a value return ret alone, an int',
                  'pyACL conventions: ret = acl.rt.synchronize_device()')
def test_bare_ret_is_an_int(context):
    ret = acl.rt.synchronize_device()
    assert type(ret) is int and ret == 0


@pytest.mark.pins('0 is the default stream for every stream argument',
                  'pyACL API ref: pass 0 for the default stream')
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
@pytest.mark.pins("a handle argument that is not an int raises TypeError ('args parse failed'), None included",
                  "pyACL conventions: PyArg_ParseTuple 'k'; CHECK_NULL -> TypeError")
def test_handle_argument_of_wrong_type_raises_type_error(context, bad):
    with pytest.raises(TypeError, match="args parse failed"):
        acl.rt.synchronize_stream(bad)
    with pytest.raises(TypeError):
        acl.rt.destroy_context(bad)
    with pytest.raises(TypeError):
        acl.rt.memcpy(0, 0, bad, 0, 1)


@pytest.mark.parametrize("bad", ["0", None, 0.0, b"0"])
@pytest.mark.pins('an int argument of another type raises TypeError',
                  "pyACL conventions: PyArg_ParseTuple 'i'/'I'")
def test_int_argument_of_wrong_type_raises_type_error(bad):
    with pytest.raises(TypeError):
        acl.rt.set_device(bad)
    with pytest.raises(TypeError):
        acl.rt.process_report(bad)
    with pytest.raises(TypeError):
        acl.rt.create_event_with_flag(bad)


@pytest.mark.pins('a TypeError is raised before the library is called: no error text is left',
                  'pyACL conventions: argument parse failure raises')
def test_wrong_type_never_reaches_the_library():
    with pytest.raises(TypeError):
        acl.rt.malloc("64", 0)
    assert acl.get_recent_err_msg() is None


@pytest.mark.pins('keyword arguments raise TypeError (positional only)',
                  'pyACL conventions: METH_VARARGS')
def test_keyword_arguments_are_rejected():
    with pytest.raises(TypeError, match="keyword"):
        acl.rt.set_device(device_id=0)
    with pytest.raises(TypeError, match="keyword"):
        acl.rt.get_device_count(x=1)
    with pytest.raises(TypeError, match="keyword"):
        acl.util.bytes_to_ptr(data=b"x")
    with pytest.raises(TypeError, match="keyword"):
        acl.init(config_path="x.json")


@pytest.mark.pins("a wrong number of arguments raises TypeError('<module>.<name> args parse failed')",
                  "pyACL conventions: a PyArg_ParseTuple failure is replaced by TypeError "
                  "'<name> args parse failed' [impl: pyACL sources, hicann/runtime python/pyACL]")
def test_wrong_number_of_arguments_raises_type_error():
    with pytest.raises(TypeError, match=r"^acl\.rt\.set_device args parse failed$"):
        acl.rt.set_device()
    with pytest.raises(TypeError, match=r"^acl\.rt\.memcpy args parse failed$"):
        acl.rt.memcpy(0, 0, 0, 0)
    with pytest.raises(TypeError, match=r"^acl\.init args parse failed$"):
        acl.init("a", "b")


@pytest.mark.pins("functions without parameters take any positional arguments and ignore them",
                  "pyACL conventions: such functions never call PyArg_ParseTuple "
                  "[impl: pyACL sources, hicann/runtime python/pyACL]")
def test_functions_without_arguments_ignore_what_they_are_given(context):
    assert acl.rt.get_device(0) == (0, 0)
    assert acl.rt.get_device("any", None, 1.5) == (0, 0)
    assert acl.rt.synchronize_device(1, 2) == 0
    assert acl.get_recent_err_msg(5) is None


@pytest.mark.pins('bool arguments count as 0 and 1',
                  "PyArg_ParseTuple 'i'/'k' take int subclasses")
def test_bool_is_an_int(context):
    # bool is an int subclass, so every integer format takes it as 0 or 1.
    assert acl.rt.set_device(False) == 0
    assert acl.rt.reset_device(False) == 0
    assert acl.rt.synchronize_stream(False) == 0  # "k": the default stream


@pytest.mark.pins("int subclasses are taken everywhere, __index__ objects by 'i' but not by 'k' (handles)",
                  "PyArg_ParseTuple 'i' vs 'k'")
def test_int_subclass_and_index_objects(context):
    class Index:
        def __index__(self):
            return 0

    class MyInt(int):
        pass

    assert acl.rt.set_device(Index()) == 0
    assert acl.rt.reset_device(MyInt(0)) == 0
    assert acl.rt.synchronize_stream(MyInt(0)) == 0
    with pytest.raises(TypeError):  # "k" takes ints only, not __index__ objects
        acl.rt.destroy_stream(Index())


@pytest.mark.parametrize("value", [1, 5, -1, -(1 << 63), 1 << 63, U64, (1 << 64) + 8, (1 << 200) + 5,
                                   -(1 << 200) - 3])
@pytest.mark.hostile
@pytest.mark.pins('garbage handle values return error codes with a message, never a crash',
                  'acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)')
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
@pytest.mark.pins('handle values that mask to 0 mean NULL: the default stream where a stream is asked for',
                  "PyArg_ParseTuple 'k' masks to unsigned long; pyACL: 0 = default stream")
def test_handles_that_mask_to_zero_mean_null(context, value):
    assert acl.rt.synchronize_stream(value) == 0  # the default stream
    assert acl.rt.destroy_stream(value) != 0      # NULL cannot be destroyed
    assert acl.rt.free(value) != 0


@pytest.mark.pins('handle arguments are masked to 64 bits: handle + 2**64 is the same handle',
                  "PyArg_ParseTuple 'k' (no overflow check, value masked)")
def test_unsigned_long_arguments_are_masked_to_64_bits(context):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    # As PyArg_ParseTuple's "k" does, stream + 2**64 is the same handle.
    assert acl.rt.synchronize_stream(stream + (1 << 64)) == 0
    assert acl.rt.destroy_stream(stream + (3 << 64)) == 0


@pytest.mark.parametrize("value", [1 << 31, -(1 << 31) - 1, 1 << 64])
@pytest.mark.pins("int32 arguments out of range raise TypeError('<name> args parse failed'), "
                  "not PyArg_ParseTuple's OverflowError",
                  "PyArg_ParseTuple 'i' (overflow-checked); pyACL replaces its exception "
                  "[impl: pyACL sources, hicann/runtime python/pyACL]")
def test_int32_arguments_out_of_range_are_parse_failures(value):
    with pytest.raises(TypeError, match=r"^acl\.rt\.set_device args parse failed$"):
        acl.rt.set_device(value)
    with pytest.raises(TypeError, match=r"^acl\.rt\.process_report args parse failed$"):
        acl.rt.process_report(value)


@pytest.mark.pins('int32 range edges reach the library: an invalid device id is ACL_ERROR_RT_INVALID_DEVICEID',
                  "PyArg_ParseTuple 'i'; acl.rt.set_device -> 107001")
def test_int32_range_edges_reach_the_library():
    assert acl.rt.set_device((1 << 31) - 1) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(-(1 << 31)) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(-1) == ACL_ERROR_RT_INVALID_DEVICEID


@pytest.mark.pins('unsigned int arguments are masked, not range-checked: -1 becomes 0xFFFFFFFF',
                  "PyArg_ParseTuple 'I'")
def test_unsigned_int_arguments_are_masked():
    # "I": -1 becomes 0xFFFFFFFF (an invalid flag set), not an exception.
    event, ret = acl.rt.create_event_with_flag(-1)
    assert (event == 0) == (ret != 0)
    if ret == 0:
        acl.rt.destroy_event(event)


@pytest.mark.pins("string arguments take str only: None, bytes and an embedded NUL raise TypeError",
                  "PyArg_ParseTuple 's' (acl.init '|s': None not allowed); pyACL replaces its "
                  "ValueError for a NUL [impl: pyACL sources, hicann/runtime python/pyACL]")
def test_string_arguments():
    with pytest.raises(TypeError):
        acl.init(None)
    with pytest.raises(TypeError):
        acl.init(b"config.json")
    with pytest.raises(TypeError, match=r"^acl\.init args parse failed$"):
        acl.init("con\0fig.json")
