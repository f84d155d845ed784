"""acl.rt's binary and kernel wrappers and acl.mdl's capture calls on real
kernels: the test kernels of tests/kernels (a shared object on the host
backend, a fatbin on the cuda backend; `make check` builds them), loaded,
launched with each argument style, captured into a model and replayed.
pyACL's argument rules for the list-of-dicts arguments are checked too."""
import ctypes
import os
import struct

import numpy as np
import pytest

import acl
import acl.cuda

N = 1024
BLOCKS = 8
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1
ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1
ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0
ACL_MODEL_RI_CAPTURE_STATUS_NONE, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 0, 1


def _kernel_path():
    builddir = os.environ.get("ACLCUDA_TEST_BUILDDIR", ".")
    suffix = "so" if acl.cuda.backend() == "host" else "fatbin"
    return os.path.join(builddir, "tests", "kernels", "test_kernels." + suffix)


@pytest.fixture
def binary(context):
    path = _kernel_path()
    if not os.path.exists(path):
        pytest.skip("%s is not built (make check builds it)" % path)
    handle, ret = acl.rt.binary_load_from_file(path, [])
    assert ret == 0 and handle != 0, acl.get_recent_err_msg()
    yield handle
    acl.rt.synchronize_device()
    assert acl.rt.binary_unload(handle) == 0


def _function(binary, name):
    func, ret = acl.rt.binary_get_function(binary, name)
    assert ret == 0 and func != 0, acl.get_recent_err_msg()
    return func


class Device:
    """Device buffers freed after the test."""

    def __init__(self):
        self.buffers = []

    def upload(self, array):
        ptr, ret = acl.rt.malloc(array.nbytes, 0)
        assert ret == 0
        self.buffers.append(ptr)
        data = array.tobytes()
        assert acl.rt.memcpy(ptr, array.nbytes, acl.util.bytes_to_ptr(data), array.nbytes,
                             ACL_MEMCPY_HOST_TO_DEVICE) == 0
        return ptr

    @staticmethod
    def download(ptr, like):
        out = bytes(like.nbytes)
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), like.nbytes, ptr, like.nbytes,
                             ACL_MEMCPY_DEVICE_TO_HOST) == 0
        return np.frombuffer(out, like.dtype)


@pytest.fixture
def device(context):
    buffers = Device()
    yield buffers
    acl.rt.synchronize_device()
    for ptr in buffers.buffers:
        acl.rt.free(ptr)


def _vectors(device):
    x = np.arange(N, dtype=np.float32)
    y = np.full(N, 0.5, dtype=np.float32)
    return x, y, device.upload(x), device.upload(y), device.upload(np.zeros(N, np.float32))


def test_launch_kernel_with_a_packed_buffer(binary, device, stream):
    x, y, dx, dy, dz = _vectors(device)
    args = struct.pack("QQQI", dx, dy, dz, N)  # the kernel's parameters, packed as C lays them out
    func = _function(binary, "vector_add")
    assert acl.rt.launch_kernel(func, BLOCKS, acl.util.bytes_to_ptr(args), len(args), stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert np.array_equal(device.download(dz, x), x + y)


def test_launch_kernel_with_an_argument_list_and_config(binary, device, stream):
    x, y, dx, dy, dz = _vectors(device)
    func = _function(binary, "vector_add")
    args, ret = acl.rt.kernel_args_init(func)
    assert ret == 0 and args != 0
    values = [struct.pack("Q", dx), struct.pack("Q", dy), struct.pack("Q", dz), struct.pack("I", N)]
    params = []
    for value in values:
        param, ret = acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(value), len(value))
        assert ret == 0 and param != 0
        params.append(param)
    assert acl.rt.kernel_args_finalize(args) == 0
    assert acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0) == 0
    # Attributes as pyACL passes them: a schedule mode of 0 (normal) changes nothing.
    cfg = [{"id": ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, "value": 0}]
    assert acl.rt.launch_kernel_with_config(func, BLOCKS, stream, cfg, args, 0) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert np.array_equal(device.download(dz, x), x + y)
    # A parameter updated in place: z = x + x. ACL: finalize again after an update.
    new_y = struct.pack("Q", dx)
    assert acl.rt.kernel_args_para_update(args, params[1], acl.util.bytes_to_ptr(new_y), len(new_y)) == 0
    assert acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.kernel_args_finalize(args) == 0
    assert acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert np.array_equal(device.download(dz, x), x + x)


def test_place_holder_buffer_is_copied_with_the_launch(binary, device, stream):
    data = np.ones(N, np.float32)
    ddata = device.upload(data)
    func = _function(binary, "scale")
    handle_size, ret = acl.rt.kernel_args_get_handle_mem_size(func)
    assert ret == 0 and handle_size > 0
    mem_size, ret = acl.rt.kernel_args_get_mem_size(func, 64)
    assert ret == 0 and mem_size >= 64
    args, ret = acl.rt.kernel_args_init(func)
    assert ret == 0
    pointer = struct.pack("Q", ddata)
    assert acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(pointer), 8)[1] == 0
    holder, ret = acl.rt.kernel_args_append_place_holder(args)
    assert ret == 0
    count = struct.pack("I", N)
    assert acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(count), 4)[1] == 0
    buffer, ret = acl.rt.kernel_args_get_place_holder_buffer(args, holder, 4)
    assert ret == 0 and buffer != 0
    ctypes.c_float.from_address(buffer).value = 3.0
    assert acl.rt.kernel_args_finalize(args) == 0
    assert acl.rt.launch_kernel_with_config(func, BLOCKS, stream, [], args, 0) == 0
    ctypes.c_float.from_address(buffer).value = 100.0  # the launch took its own copy
    assert acl.rt.synchronize_stream(stream) == 0
    assert np.array_equal(device.download(ddata, data), data * 3)


def test_binary_from_bytes_and_function_queries(context):
    path = _kernel_path()
    if not os.path.exists(path):
        pytest.skip("%s is not built" % path)
    with open(path, "rb") as image:
        data = image.read()
    ptr = acl.util.bytes_to_ptr(data)
    binary = acl.rt.create_binary(ptr, len(data))
    assert binary != 0
    handle, ret = acl.rt.binary_load(binary)
    assert ret == 0 and handle != 0
    func = _function(handle, "vector_add")
    name, ret = acl.rt.get_function_name(func, 64)
    assert (name, ret) == ("vector_add", 0)
    # Too short for the name and its terminator: refused, nothing written.
    assert acl.rt.get_function_name(func, 10) == ("", ACL_ERROR_INVALID_PARAM)
    aic, aiv, ret = acl.rt.get_function_addr(func)
    assert ret == 0 and aic != 0 and aiv == 0
    assert acl.rt.binary_unload(handle) == 0
    assert acl.rt.destroy_binary(binary) == 0
    # From data, with the lazy-load option as pyACL passes it.
    handle, ret = acl.rt.binary_load_from_data(ptr, len(data),
                                               [{"type": ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, "value": 1}])
    assert ret == 0 and handle != 0
    assert acl.rt.binary_get_function(handle, "no_such_kernel")[1] != 0
    assert acl.rt.binary_unload(handle) == 0


def test_capture_and_replay(binary, device, stream):
    x, y, dx, dy, dz = _vectors(device)
    func = _function(binary, "add_scalar")
    acc = device.upload(np.zeros(N, np.int32))
    args = struct.pack("QiI", acc, 2, N)
    assert acl.mdl.ri_capture_get_info(stream)[0] == ACL_MODEL_RI_CAPTURE_STATUS_NONE
    assert acl.mdl.ri_capture_begin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    status, model, ret = acl.mdl.ri_capture_get_info(stream)
    assert (status, ret) == (ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, 0)
    assert acl.rt.launch_kernel(func, BLOCKS, acl.util.bytes_to_ptr(args), len(args), stream) == 0
    vector_add = struct.pack("QQQI", dx, dy, dz, N)
    assert acl.rt.launch_kernel(_function(binary, "vector_add"), BLOCKS, acl.util.bytes_to_ptr(vector_add),
                                len(vector_add), stream) == 0
    model, ret = acl.mdl.ri_capture_end(stream)
    assert ret == 0 and model != 0
    # Captured, not run.
    assert np.array_equal(device.download(acc, np.zeros(N, np.int32)), np.zeros(N, np.int32))
    assert acl.mdl.ri_set_name(model, "replay") == 0
    assert acl.mdl.ri_get_name(model, 64) == ("replay", 0)
    for _ in range(5):
        assert acl.mdl.ri_execute_async(model, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert np.array_equal(device.download(acc, np.zeros(N, np.int32)), np.full(N, 10, np.int32))
    assert np.array_equal(device.download(dz, x), x + y)
    assert acl.mdl.ri_execute(model, -1) == 0
    assert device.download(acc, np.zeros(N, np.int32))[N - 1] == 12
    assert acl.mdl.ri_destroy(model) == 0


def test_built_model_on_a_persistent_stream(binary, device, context):
    func = _function(binary, "increment")
    counter = device.upload(np.zeros(2, np.int32))
    bound, ret = acl.rt.create_stream_with_config(0, 0x4)  # ACL_STREAM_PERSISTENT
    assert ret == 0
    model, ret = acl.mdl.ri_build_begin(0)
    assert ret == 0
    assert acl.mdl.ri_bind_stream(model, bound, 0) == 0
    args = struct.pack("Q", counter)
    assert acl.rt.launch_kernel(func, 1, acl.util.bytes_to_ptr(args), len(args), bound) == 0
    assert acl.mdl.ri_end_task(model, bound) == 0
    assert acl.mdl.ri_build_end(model, 0) == 0
    assert acl.mdl.ri_get_streams(model) == ([bound], 0)
    for _ in range(3):
        assert acl.mdl.ri_execute(model, -1) == 0
    assert device.download(counter, np.zeros(2, np.int32))[0] == 3
    assert acl.mdl.ri_unbind_stream(model, bound) == 0
    assert acl.mdl.ri_destroy(model) == 0
    assert acl.rt.destroy_stream(bound) == 0


def test_conditional_task_and_the_tasks_of_a_model(binary, device, context):
    """acl.mdl's conditional tasks: an IF task whose branch increments a
    counter runs when the condition word is not 0; the model's tasks are
    listed, and a disabled one runs no more after ri_update."""
    func = _function(binary, "increment")
    counter = device.upload(np.zeros(2, np.int32))
    stream, ret = acl.rt.create_stream()
    side, ret2 = acl.rt.create_stream()
    assert ret == 0 and ret2 == 0
    assert acl.mdl.ri_capture_begin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    status, model, ret = acl.mdl.ri_capture_get_info(stream)
    assert ret == 0 and status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
    cond, ret = acl.mdl.ri_cond_handle_create(model, 0, 0)
    assert ret == 0 and cond != 0
    word, ret = acl.mdl.ri_cond_handle_get_cond_ptr(cond)
    assert ret == 0 and word != 0
    branches, ret = acl.mdl.ri_add_cond_task(cond, 0, 1, stream, 0)  # IF, one branch
    assert ret == 0 and len(branches) == 1 and branches[0] != 0
    assert acl.mdl.ri_capture_to_model_ri_begin(side, branches[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    args = struct.pack("Q", counter)
    assert acl.rt.launch_kernel(func, 1, acl.util.bytes_to_ptr(args), len(args), side) == 0
    assert acl.mdl.ri_capture_end(side) == (branches[0], 0)
    assert acl.rt.launch_kernel(func, 1, acl.util.bytes_to_ptr(args), len(args), stream) == 0
    ended, ret = acl.mdl.ri_capture_end(stream)
    assert ret == 0 and ended == model
    for value, expected in ((1, 2), (0, 3), (7, 5)):
        device_word = struct.pack("Q", value)
        assert acl.rt.memcpy(word, 8, acl.util.bytes_to_ptr(device_word), 8, ACL_MEMCPY_HOST_TO_DEVICE) == 0
        assert acl.mdl.ri_execute_async(model, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert device.download(counter, np.zeros(2, np.int32))[0] == expected
    tasks, ret = acl.mdl.ri_get_tasks_by_stream(stream)
    assert ret == 0 and tasks
    kernels = [t for t in tasks if acl.mdl.ri_task_get_type(t) == (1, 0)]  # ACL_MODEL_RI_TASK_KERNEL
    assert len(kernels) == 1
    seq, ret = acl.mdl.ri_task_get_seq_id(kernels[0])
    assert ret == 0
    assert acl.mdl.ri_task_disable(kernels[0]) == 0
    assert acl.mdl.ri_update(model) == 0
    assert acl.mdl.ri_execute_async(model, stream) == 0  # the word is 7: only the branch runs
    assert acl.rt.synchronize_stream(stream) == 0
    assert device.download(counter, np.zeros(2, np.int32))[0] == 6
    assert acl.mdl.ri_destroy(model) == 0
    assert acl.rt.destroy_stream(side) == 0
    assert acl.rt.destroy_stream(stream) == 0


# ---- pyACL's rules for the list arguments (rt/rt_binary.cpp) --------------------------

@pytest.mark.parametrize("call, exception, text", [
    (lambda: acl.rt.binary_load_from_file("/x", {}), ValueError, "argument 2 only support the format of list"),
    (lambda: acl.rt.binary_load_from_file("/x", None), ValueError, "argument 2 only support the format of list"),
    (lambda: acl.rt.binary_load_from_data(0, 0, [1]), TypeError, "the bin_option argument is not dict"),
    (lambda: acl.rt.binary_load_from_file("/x", [{"type": 1 << 40}]), ValueError, "PyLong_AsLong failed"),
    (lambda: acl.rt.binary_load_from_file("/x", [{"value": -1}]), ValueError, "PyLong_AsUnsignedLong failed"),
    (lambda: acl.rt.launch_kernel_with_config(0, 1, 0, (), 0, 0), ValueError,
     "argument 2 only support the format of list"),
    (lambda: acl.rt.launch_kernel_with_config(0, 1, 0, ["x"], 0, 0), TypeError, "the cfg argument is not dict"),
    (lambda: acl.rt.launch_kernel_with_config(0, 1, 0, [{"id": 1, "value": 1 << 32}], 0, 0), ValueError,
     "PyLong_AsUnsignedLong failed"),
    (lambda: acl.rt.get_function_name(0, 1024), ValueError, "maxLen should be less than 1024"),
    (lambda: acl.mdl.ri_get_name(0, 1024), ValueError, "maxLen should be less than 1024"),
    (lambda: acl.rt.register_cpu_func(0, "", "k"), ValueError, "argument 2 or 3 must not be empty"),
    (lambda: acl.rt.register_cpu_func(0, "f", ""), ValueError, "argument 2 or 3 must not be empty"),
])
def test_list_arguments_are_checked_as_pyacl_does(context, call, exception, text):
    with pytest.raises(exception) as raised:
        call()
    assert type(raised.value) is exception and str(raised.value) == text


def test_dict_keys_pyacl_ignores(context):
    # A missing key, or a value that is not an int, leaves 0: the call goes on.
    handle, ret = acl.rt.binary_load_from_file("/nonexistent/kernel", [{"type": "lazy"}, {}])
    assert handle == 0 and ret != 0
    assert acl.rt.launch_kernel_with_config(0, 1, 0, [{"id": 1.5}], 0, 0) == ACL_ERROR_INVALID_PARAM
