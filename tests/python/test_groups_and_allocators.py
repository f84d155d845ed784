"""acl.rt.cmo_async, the core group functions and the custom allocator
functions (pyACL's rt/rt_memory.cpp, rt_group.cpp, rt_allocator.cpp):
their result shapes, pyACL's texts, and the allocator's Python functions
reached through the C function pointers a stream's registration holds.

acl-cuda's own calls never allocate through a stream's allocator (CANN uses
it for operator and dynamic-shape model workspaces, which acl-cuda does not
run; see src/core/allocator.h): a component that allocates for a stream
takes it with aclrtAllocatorGetByStream and calls its functions. These
tests play that component, through ctypes."""
import ctypes
import gc
import weakref

import pytest

import acl
from acl import _lib
from acl._rt import callback, memory

ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_GROUP_NOT_CREATE = 100041
CMO_TYPES = (0, 1, 2, 3)  # prefetch, write-back, invalidate, flush
U64 = (1 << 64) - 1


def _parse_error(name, call, bang=""):
    with pytest.raises(TypeError) as raised:
        call()
    assert str(raised.value) == "acl.rt.%s args parse failed%s" % (name, bang)


# ---- cache maintenance -----------------------------------------------------------

def test_cmo_async_returns_ret_alone(stream, device_memory):
    ptr, size = device_memory
    for cmo_type in CMO_TYPES:
        ret = acl.rt.cmo_async(ptr, size, cmo_type, stream)
        assert type(ret) is int and ret == 0, cmo_type
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.cmo_async(ptr, size, 1, 0) == 0  # the default stream
    assert acl.rt.cmo_async(0, size, 0, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.cmo_async(ptr, 0, 0, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.cmo_async(ptr, size, 7, stream) != 0


def test_cmo_async_parse_failures_end_with_a_bang(context):
    _parse_error("cmo_async", lambda: acl.rt.cmo_async(0, 0, "0", 0), "!")
    _parse_error("cmo_async", lambda: acl.rt.cmo_async(0, 0, 1 << 31, 0), "!")
    _parse_error("cmo_async", lambda: acl.rt.cmo_async(0, 0, 0), "!")


# ---- core groups -------------------------------------------------------------------

def test_get_group_count_takes_one_ignored_argument_or_none(context):
    assert acl.rt.get_group_count(0) == (1, 0)  # pyACL's form
    assert acl.rt.get_group_count(12345) == (1, 0)
    assert acl.rt.get_group_count(-1) == (1, 0)  # "I" masks, as PyArg_ParseTuple does
    assert acl.rt.get_group_count() == (1, 0)
    _parse_error("get_group_count", lambda: acl.rt.get_group_count("0"))
    _parse_error("get_group_count", lambda: acl.rt.get_group_count(0, 0))


def test_set_group_takes_the_one_group(context):
    assert acl.rt.set_group(0) == 0
    assert acl.rt.set_group(1) == ACL_ERROR_GROUP_NOT_CREATE
    assert acl.rt.set_group((1 << 32) + 1) == ACL_ERROR_GROUP_NOT_CREATE  # masked to 1
    _parse_error("set_group", lambda: acl.rt.set_group(None))
    _parse_error("set_group", lambda: acl.rt.set_group(1.0))


def test_group_info_handle_alone_then_ret(context):
    info = acl.rt.create_group_info()
    assert type(info) is int and info != 0  # no ret
    assert acl.rt.get_all_group_info(info) == 0
    assert acl.rt.destroy_group_info(info) == 0
    assert acl.rt.destroy_group_info(info) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_all_group_info(0) == ACL_ERROR_INVALID_PARAM
    _parse_error("destroy_group_info", lambda: acl.rt.destroy_group_info("x"))
    _parse_error("get_all_group_info", lambda: acl.rt.get_all_group_info(None))


ACL_GROUP_AICORE_INT, ACL_GROUP_AIV_INT, ACL_GROUP_AIC_INT = 0, 1, 2
ACL_GROUP_SDMANUM_INT, ACL_GROUP_ASQNUM_INT, ACL_GROUP_GROUPID_INT = 3, 4, 5


def test_group_info_detail_lists_the_attribute_values(context):
    info = acl.rt.create_group_info()
    assert acl.rt.get_all_group_info(info) == 0
    values = {}
    for attr in range(6):
        result = acl.rt.get_group_info_detail(info, 0, attr)
        assert type(result) is tuple and len(result) == 2 and result[1] == 0
        # one int32 per attribute: a list of that one value (pyACL's would
        # have one item per byte the library returned, 4)
        assert type(result[0]) is list and len(result[0]) == 1 and type(result[0][0]) is int
        values[attr] = result[0][0]
    assert values[ACL_GROUP_AICORE_INT] > 0  # the device's multiprocessors (host backend: its own count)
    assert values[ACL_GROUP_AIV_INT] == values[ACL_GROUP_AIC_INT] == values[ACL_GROUP_AICORE_INT]
    assert values[ACL_GROUP_SDMANUM_INT] >= 0
    assert values[ACL_GROUP_ASQNUM_INT] == 0 and values[ACL_GROUP_GROUPID_INT] == 0
    assert acl.rt.destroy_group_info(info) == 0


def test_group_info_detail_raises_when_the_call_fails(context):
    info = acl.rt.create_group_info()
    for args in [(info, 0, 0),  # before get_all_group_info
                 (0, 0, 0), (info, 1, 0), (info, -1, 0), (info, 0, 6)]:
        if args == (0, 0, 0):
            assert acl.rt.get_all_group_info(info) == 0
        with pytest.raises(RuntimeError) as raised:
            acl.rt.get_group_info_detail(*args)
        assert type(raised.value) is RuntimeError and str(raised.value) == "aclrtGetGroupInfoDetail failed"
    _parse_error("get_group_info_detail", lambda: acl.rt.get_group_info_detail(info, 0, 1 << 31))
    _parse_error("get_group_info_detail", lambda: acl.rt.get_group_info_detail(info, "0", 0))
    assert acl.rt.destroy_group_info(info) == 0


# ---- custom allocators: descriptors -----------------------------------------------------

@pytest.fixture
def desc(context):
    handle = acl.rt.allocator_create_desc()
    assert type(handle) is int and handle != 0  # no ret
    yield handle
    acl.rt.allocator_destroy_desc(handle)


def test_descriptor_handle_alone_then_ret(context):
    handle = acl.rt.allocator_create_desc()
    assert type(handle) is int and handle != 0
    assert acl.rt.allocator_destroy_desc(handle) == 0
    assert acl.rt.allocator_destroy_desc(handle) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.allocator_destroy_desc(0) == ACL_ERROR_INVALID_PARAM


SETTERS = ["allocator_set_alloc_func_to_desc", "allocator_set_free_func_to_desc",
           "allocator_set_alloc_advise_func_to_desc", "allocator_set_get_addr_from_block_func_to_desc"]


@pytest.mark.parametrize("name", SETTERS)
def test_function_setters_keep_the_function_only_when_the_call_succeeded(desc, name):
    setter = getattr(acl.rt, name)
    assert setter(desc, lambda *args: None) == 0
    assert len(memory._descriptor_functions[desc]) == 1
    assert setter(0, lambda *args: None) == ACL_ERROR_INVALID_PARAM
    assert setter(desc + 8, lambda *args: None) == ACL_ERROR_INVALID_PARAM
    assert 0 not in memory._descriptor_functions and desc + 8 not in memory._descriptor_functions
    # pyACL stores any object ("O"); one that cannot be called gives NULL when called
    assert setter(desc, "not callable") == 0
    _parse_error(name, lambda: setter("x", print))
    _parse_error(name, lambda: setter(desc))


def test_set_obj_to_desc_takes_a_non_null_int(desc):
    assert acl.rt.allocator_set_obj_to_desc(desc, 0x1234) == 0
    assert acl.rt.allocator_set_obj_to_desc(desc, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.allocator_set_obj_to_desc(0, 0x1234) == ACL_ERROR_INVALID_PARAM
    _parse_error("allocator_set_obj_to_desc", lambda: acl.rt.allocator_set_obj_to_desc(desc, object()))


def test_destroying_a_descriptor_releases_its_functions(context):
    handle = acl.rt.allocator_create_desc()

    def alloc(allocator, size):
        return None

    watch = weakref.ref(alloc)
    assert acl.rt.allocator_set_alloc_func_to_desc(handle, alloc) == 0
    del alloc
    gc.collect()
    assert watch() is not None  # the descriptor holds it
    assert acl.rt.allocator_destroy_desc(handle) == 0
    gc.collect()
    assert watch() is None
    assert handle not in memory._descriptor_functions


# ---- custom allocators: registered on a stream, called as a component would ----------------

class DeviceAllocator:
    """A Python allocator of device memory: each block is a small record
    (an int id) whose memory comes from acl.rt.malloc."""

    def __init__(self, obj):
        self.obj = obj
        self.calls = []
        self.blocks = {}
        self.next_block = 0x1000

    def alloc(self, allocator, size):
        self.calls.append(("alloc", allocator, size))
        ptr, ret = acl.rt.malloc(size, 0)
        assert ret == 0
        self.next_block += 0x10
        self.blocks[self.next_block] = ptr
        return self.next_block

    def free(self, allocator, block):
        self.calls.append(("free", allocator, block))
        assert acl.rt.free(self.blocks.pop(block)) == 0

    def alloc_advise(self, allocator, size, addr):
        self.calls.append(("alloc_advise", allocator, size, addr))
        return self.alloc(allocator, size)

    def get_addr(self, block):
        self.calls.append(("get_addr", block))
        return self.blocks[block]

    def describe(self, handle):
        assert acl.rt.allocator_set_obj_to_desc(handle, self.obj) == 0
        assert acl.rt.allocator_set_alloc_func_to_desc(handle, self.alloc) == 0
        assert acl.rt.allocator_set_free_func_to_desc(handle, self.free) == 0
        assert acl.rt.allocator_set_alloc_advise_func_to_desc(handle, self.alloc_advise) == 0
        assert acl.rt.allocator_set_get_addr_from_block_func_to_desc(handle, self.get_addr) == 0


class Registered:
    """What aclrtAllocatorGetByStream hands a component: the descriptor, the
    allocator object and the four C function pointers."""

    def __init__(self, stream):
        get = _lib.library["aclrtAllocatorGetByStream"]  # a function object of the test's own
        get.restype = ctypes.c_int
        P = ctypes.POINTER
        get.argtypes = (ctypes.c_void_p, P(ctypes.c_void_p), P(ctypes.c_void_p), P(_lib.aclrtAllocatorAllocFunc),
                        P(_lib.aclrtAllocatorFreeFunc), P(_lib.aclrtAllocatorAllocAdviseFunc),
                        P(_lib.aclrtAllocatorGetAddrFromBlockFunc))
        desc, obj = ctypes.c_void_p(), ctypes.c_void_p()
        self.alloc = _lib.aclrtAllocatorAllocFunc()
        self.free = _lib.aclrtAllocatorFreeFunc()
        self.alloc_advise = _lib.aclrtAllocatorAllocAdviseFunc()
        self.get_addr = _lib.aclrtAllocatorGetAddrFromBlockFunc()
        self.ret = get(stream, ctypes.byref(desc), ctypes.byref(obj), ctypes.byref(self.alloc),
                       ctypes.byref(self.free), ctypes.byref(self.alloc_advise), ctypes.byref(self.get_addr))
        self.desc, self.obj = desc.value or 0, obj.value or 0


def test_registration_needs_a_stream_and_every_function_but_alloc_advise(stream, desc):
    allocator = DeviceAllocator(0x5150)
    assert acl.rt.allocator_register(stream, desc) == ACL_ERROR_INVALID_PARAM  # nothing set
    assert acl.rt.allocator_set_obj_to_desc(desc, allocator.obj) == 0
    assert acl.rt.allocator_set_alloc_func_to_desc(desc, allocator.alloc) == 0
    assert acl.rt.allocator_set_free_func_to_desc(desc, allocator.free) == 0
    assert acl.rt.allocator_register(stream, desc) == ACL_ERROR_INVALID_PARAM  # no get_addr
    assert acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, allocator.get_addr) == 0
    assert acl.rt.allocator_register(0, desc) == ACL_ERROR_INVALID_PARAM  # the default stream
    assert acl.rt.allocator_register(stream, desc) == 0
    assert acl.rt.allocator_unregister(stream) == 0
    assert acl.rt.allocator_unregister(stream) == 0  # none left: fine, as in CANN
    assert acl.rt.allocator_unregister(0) == ACL_ERROR_INVALID_PARAM
    _parse_error("allocator_register", lambda: acl.rt.allocator_register(stream, None))
    _parse_error("allocator_unregister", lambda: acl.rt.allocator_unregister(1.0))


def test_the_stream_allocator_calls_the_python_functions(stream, desc):
    allocator = DeviceAllocator(0xA11C)
    allocator.describe(desc)
    assert acl.rt.allocator_register(stream, desc) == 0
    got = Registered(stream)
    assert got.ret == 0
    assert (got.desc, got.obj) == (desc, 0xA11C)  # obj itself, not the address of a copy

    block = got.alloc(got.obj, 4096)
    assert block == allocator.next_block  # what alloc returned
    addr = got.get_addr(block)
    assert addr == allocator.blocks[block] != 0
    # The address is the allocator's memory: fill it on the stream and read it back.
    assert acl.rt.memset_async(addr, 4096, 0x5A, 4096, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    out = bytes(16)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), 16, addr, 16, 2) == 0
    assert out == b"\x5a" * 16

    near = got.alloc_advise(got.obj, 512, addr)
    assert near == allocator.next_block and near != block
    got.free(got.obj, near)
    got.free(got.obj, block)
    assert allocator.blocks == {}
    assert allocator.calls == [
        ("alloc", 0xA11C, 4096), ("get_addr", block),
        ("alloc_advise", 0xA11C, 512, addr), ("alloc", 0xA11C, 512),
        ("free", 0xA11C, near), ("free", 0xA11C, block)]
    assert acl.rt.allocator_unregister(stream) == 0
    assert Registered(stream).ret == ACL_ERROR_INVALID_PARAM


def test_sizes_are_passed_whole_and_results_are_masked_handles(stream, desc):
    seen = []
    results = iter([-1, 1 << 64 | 0x20, True, "0x10", 1.5, None, 0])

    def alloc(allocator, size):
        seen.append(size)
        return next(results)

    DeviceAllocator(7).describe(desc)
    assert acl.rt.allocator_set_alloc_func_to_desc(desc, alloc) == 0
    assert acl.rt.allocator_register(stream, desc) == 0
    got = Registered(stream)
    assert got.alloc(7, 1 << 40) == U64  # -1 masked to 64 bits (pyACL would cut size to 32 bits)
    assert got.alloc(7, 1) == 0x20
    assert got.alloc(7, 1) == 1  # bool is an int
    for _ in range(4):  # str, float, None, 0: NULL
        assert got.alloc(7, 1) is None
    assert seen[0] == 1 << 40
    assert acl.rt.allocator_unregister(stream) == 0


def test_an_exception_in_a_function_gives_null_and_is_printed(stream, desc, capsys):
    def alloc(allocator, size):
        raise RuntimeError("no memory for %d" % size)

    def get_addr(block):
        raise SystemExit(2)

    DeviceAllocator(7).describe(desc)
    assert acl.rt.allocator_set_alloc_func_to_desc(desc, alloc) == 0
    assert acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, get_addr) == 0
    assert acl.rt.allocator_set_free_func_to_desc(desc, "not callable") == 0
    assert acl.rt.allocator_register(stream, desc) == 0
    got = Registered(stream)
    assert got.alloc(7, 64) is None
    err = capsys.readouterr().err
    assert "acl: exception in the allocator's alloc function" in err
    assert "NULL returned to the runtime" in err and "RuntimeError: no memory for 64" in err
    fn, exc = callback._callback_errors[-1]
    assert fn is alloc and isinstance(exc, RuntimeError)
    assert got.get_addr(0x10) is None
    assert "SystemExit: 2" in capsys.readouterr().err
    got.free(7, 0x10)  # returns nothing; the TypeError is printed
    err = capsys.readouterr().err
    assert "acl: exception in the allocator's free function 'not callable' (ignored)" in err
    assert "TypeError" in err
    assert [type(exc) for _, exc in list(callback._callback_errors)[-3:]] == [RuntimeError, SystemExit, TypeError]
    assert acl.rt.allocator_unregister(stream) == 0


def test_each_descriptor_keeps_its_own_functions(context, desc):
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    other = acl.rt.allocator_create_desc()
    first, second = DeviceAllocator(1), DeviceAllocator(2)
    first.describe(desc)
    second.describe(other)
    second.next_block = 0x9000
    assert acl.rt.allocator_register(streams[0], desc) == 0
    assert acl.rt.allocator_register(streams[1], other) == 0
    one, two = Registered(streams[0]), Registered(streams[1])
    a, b = one.alloc(one.obj, 64), two.alloc(two.obj, 64)
    assert (a, b) == (0x1010, 0x9010)
    assert first.calls == [("alloc", 1, 64)] and second.calls == [("alloc", 2, 64)]
    one.free(one.obj, a)
    two.free(two.obj, b)
    for stream in streams:
        assert acl.rt.allocator_unregister(stream) == 0
        assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.allocator_destroy_desc(other) == 0


def test_a_registration_outlives_its_descriptor(stream, context):
    handle = acl.rt.allocator_create_desc()
    allocator = DeviceAllocator(3)
    allocator.describe(handle)
    assert acl.rt.allocator_register(stream, handle) == 0
    # Registering copied the functions: the stream keeps them when the
    # descriptor goes, and the descriptor's later changes do not reach it.
    assert acl.rt.allocator_set_alloc_func_to_desc(handle, lambda allocator, size: 0xBAD) == 0
    assert acl.rt.allocator_destroy_desc(handle) == 0
    watch = weakref.ref(allocator)
    got = Registered(stream)
    del allocator
    gc.collect()
    block = got.alloc(got.obj, 64)
    assert block == 0x1010 and watch() is not None
    got.free(got.obj, block)
    assert acl.rt.allocator_unregister(stream) == 0
    gc.collect()
    assert watch() is None  # unregistering let the functions go
    assert stream not in memory._stream_functions
