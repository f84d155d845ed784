"""Structs filled from dicts (acl.rt.malloc_with_cfg and its siblings,
acl.rt.set_stream_attribute): pyACL's checks, exceptions and texts
(rt/rt_memory.cpp, rt/rt_stream.cpp, utils_methods.cpp), and no value
read out of bounds or cut to its C field's width on the way."""
import pytest

import acl
from acl._rt import memory

ACL_RT_MEM_ATTR_MODULE_ID = 1
ACL_RT_MEM_ATTR_DEVICE_ID = 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_RT_INVALID_DEVICEID = 107001
ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000
ACL_STREAM_ATTR_FAILURE_MODE = 1
ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2
ACL_STREAM_ATTR_USER_CUSTOM_TAG = 3

NOT_UNSIGNED = "PyLong_AsUnsignedLong failed"
COUNT_MISMATCH = "The numAttrs inputed does not match the expected numAttrs"


def _device_attr(device_id):
    return {"attr": ACL_RT_MEM_ATTR_DEVICE_ID, "value": {"deviceId": device_id}}


_LENGTH = object()


def _cfg(*attrs, count=_LENGTH):
    return {"numAttrs": len(attrs) if count is _LENGTH else count, "attrs": list(attrs)}


MALLOCS = [
    ("malloc_with_cfg", lambda cfg: acl.rt.malloc_with_cfg(64, 0, cfg), acl.rt.free),
    ("malloc_for_task_scheduler", lambda cfg: acl.rt.malloc_for_task_scheduler(64, 0, cfg), acl.rt.free),
    ("malloc_host_with_cfg", lambda cfg: acl.rt.malloc_host_with_cfg(64, cfg), acl.rt.free_host),
]


def _raises(exc_type, text, call):
    with pytest.raises(exc_type) as raised:
        call()
    assert type(raised.value) is exc_type and raised.value.args == (text,)


# ---- malloc_with_cfg, malloc_for_task_scheduler, malloc_host_with_cfg ------------------------

@pytest.mark.parametrize("name, malloc, free", MALLOCS, ids=[m[0] for m in MALLOCS])
def test_malloc_cfg_shapes_pyacl_refuses(context, name, malloc, free):
    _raises(TypeError, "pyCfg is not dict!", lambda: malloc([]))
    _raises(TypeError, "pyCfg is not dict!", lambda: malloc(None))
    _raises(TypeError, "the aclrtMallocAttrValue argument is not dict", lambda: malloc({"numAttrs": 0}))
    for attrs in (None, (), {}, 5):
        _raises(TypeError, "cfg.attrs malloc failed!", lambda: malloc({"numAttrs": 0, "attrs": attrs}))
    _raises(TypeError, "the aclrtMallocWithCfg argument is not dict", lambda: malloc(_cfg(5)))
    _raises(TypeError, "the aclrtMallocAttrValue argument is not dict",
            lambda: malloc(_cfg({"attr": 1, "value": [1]})))
    _raises(KeyError, "No valid key found in aclrtMallocAttrValue", lambda: malloc(_cfg({"attr": 1, "value": {}})))


@pytest.mark.parametrize("count", [-1, -(1 << 63), 1 << 64, -(1 << 64) + 1])
def test_malloc_cfg_num_attrs_outside_size_t_is_a_value_error(context, count):
    for _, malloc, _ in MALLOCS:
        _raises(ValueError, NOT_UNSIGNED, lambda: malloc(_cfg(_device_attr(0), count=count)))


@pytest.mark.parametrize("count", [0, 2, 1 + (1 << 32), 1 + (1 << 63), "1", None, 1.0])
def test_malloc_cfg_num_attrs_must_be_the_number_of_attrs(context, count):
    # A numAttrs that is not an int counts as 0, as in pyACL. One that
    # matches the list in its low 32 bits passes pyACL's check (an int
    # cast) and has the library read past the list: refused here.
    for _, malloc, _ in MALLOCS:
        _raises(KeyError, COUNT_MISMATCH, lambda: malloc(_cfg(_device_attr(0), count=count)))
    _raises(KeyError, COUNT_MISMATCH, lambda: acl.rt.malloc_with_cfg(64, 0, {"attrs": [_device_attr(0)]}))


@pytest.mark.parametrize("device_id", [1 << 32, (1 << 64) - 1, 1 << 64, -1, "0", None, 0.0])
def test_malloc_cfg_device_id_outside_uint32_is_a_value_error(context, device_id):
    # 2**32 used to become device 0 on its way into the uint32_t field.
    for _, malloc, _ in MALLOCS:
        _raises(ValueError, NOT_UNSIGNED, lambda: malloc(_cfg(_device_attr(device_id))))


@pytest.mark.parametrize("value", [{"moduleId": 1 << 16}, {"moduleId": -1}, {"vaFlag": 1 << 32},
                                   {"rsv": [1, 256]}, {"rsv": [-1]}, {"rsv": ["1"]}])
def test_malloc_cfg_values_wider_than_their_field_are_value_errors(context, value):
    _raises(ValueError, NOT_UNSIGNED, lambda: acl.rt.malloc_with_cfg(64, 0, _cfg({"attr": 1, "value": value})))


@pytest.mark.parametrize("attr", [1 << 31, -(1 << 31) - 1, 1 << 64])
def test_malloc_cfg_attr_outside_the_c_enum_is_a_value_error(context, attr):
    _raises(ValueError, "PyLong_AsLong failed",
            lambda: acl.rt.malloc_with_cfg(64, 0, _cfg({"attr": attr, "value": {"moduleId": 1}})))


def test_malloc_cfg_device_id_reaches_the_library_whole(context):
    # Out of range for a device, but intact: the library says so.
    assert acl.rt.malloc_with_cfg(64, 0, _cfg(_device_attr(1 << 31))) == (0, ACL_ERROR_RT_INVALID_DEVICEID)
    assert acl.rt.malloc_with_cfg(64, 0, _cfg(_device_attr(1000))) == (0, ACL_ERROR_RT_INVALID_DEVICEID)


@pytest.mark.parametrize("name, malloc, free", MALLOCS, ids=[m[0] for m in MALLOCS])
def test_malloc_cfg_valid_configs(context, name, malloc, free):
    for cfg in ({}, {"numAttrs": 0, "attrs": []}, {"attrs": []},
                _cfg(_device_attr(0)), _cfg(_device_attr(0), {"attr": ACL_RT_MEM_ATTR_MODULE_ID,
                                                              "value": {"moduleId": 0xFFFF}})):
        ptr, ret = malloc(cfg)
        if name == "malloc_host_with_cfg" and cfg.get("attrs"):
            continue  # the host allocation takes no device attributes; its ret is the library's
        if ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT:  # a stub of the library
            assert ptr == 0
            continue
        assert ret == 0 and ptr != 0, (cfg, acl.get_recent_err_msg())
        assert free(ptr) == 0


def test_malloc_cfg_packs_what_pyacl_packs():
    config, array = memory._malloc_config(_cfg(
        {"attr": 2, "value": {"deviceId": (1 << 32) - 1}},
        {"attr": 1, "value": {"moduleId": 7, "deviceId": 9}},   # moduleId first, as in pyACL
        {"attr": 0, "value": {"rsv": list(range(1, 12))}},      # the first 8 bytes
        {"value": {"vaFlag": 3}},                               # attr left 0
        {"attr": 3, "attr_typo": 1}))                           # value left zeroed
    assert config.numAttrs == 5 and config.attrs[0].attr == 2
    assert config.attrs[0].value.deviceId == (1 << 32) - 1
    assert (config.attrs[1].attr, config.attrs[1].value.moduleId) == (1, 7)
    assert list(config.attrs[2].value.rsv) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert (config.attrs[3].attr, config.attrs[3].value.vaFlag) == (0, 3)
    assert (config.attrs[4].attr, list(config.attrs[4].value.rsv)) == (3, [0] * 8)
    assert memory._malloc_config({}) == (None, None)


# ---- set_stream_attribute -------------------------------------------------------------------

def test_stream_attribute_value_must_be_a_dict(stream):
    _raises(TypeError, "the aclrtStreamAttrValue argument is not dict",
            lambda: acl.rt.set_stream_attribute(stream, ACL_STREAM_ATTR_USER_CUSTOM_TAG, [7]))


@pytest.mark.parametrize("attr, key, value", [
    (ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, "overflowSwitch", 1 << 32),
    (ACL_STREAM_ATTR_USER_CUSTOM_TAG, "userCustomTag", 1 << 32),
    (ACL_STREAM_ATTR_USER_CUSTOM_TAG, "userCustomTag", -1),
    (ACL_STREAM_ATTR_FAILURE_MODE, "failureMode", 1 << 64),
    (ACL_STREAM_ATTR_FAILURE_MODE, "failureMode", -1),
    (99, "reserved", [0, 1 << 32]),
])
def test_stream_attribute_values_wider_than_their_field_are_value_errors(stream, attr, key, value):
    _raises(ValueError, NOT_UNSIGNED, lambda: acl.rt.set_stream_attribute(stream, attr, {key: value}))


def test_stream_attribute_reserved_holds_four_words(stream):
    _raises(ValueError, "The length of reserved should be no greater than 4",
            lambda: acl.rt.set_stream_attribute(stream, 99, {"reserved": [0] * 5}))


def test_stream_attribute_missing_or_non_int_value_is_zero(stream):
    tag = ACL_STREAM_ATTR_USER_CUSTOM_TAG
    assert acl.rt.set_stream_attribute(stream, tag, {"userCustomTag": 7}) == 0
    assert acl.rt.get_stream_attribute(stream, tag) == ({"userCustomTag": 7}, 0)
    for value in ({}, {"userCustomTag": "7"}, {"userCustomTag": 7.0}, {"other": 7}):
        assert acl.rt.set_stream_attribute(stream, tag, {"userCustomTag": 7}) == 0
        assert acl.rt.set_stream_attribute(stream, tag, value) == 0
        assert acl.rt.get_stream_attribute(stream, tag) == ({"userCustomTag": 0}, 0), value
    assert acl.rt.set_stream_attribute(stream, tag, {"userCustomTag": (1 << 32) - 1}) == 0
    assert acl.rt.get_stream_attribute(stream, tag) == ({"userCustomTag": (1 << 32) - 1}, 0)


# ---- virtual memory, IPC, UCE and DVPP memory ------------------------------------

PHYSICAL_PROP = {"handleType": 0, "allocationType": 0, "memAttr": 4,
                 "location": {"id": 0, "type": 1}, "reserve": 0}


def test_physical_memory_prop_must_be_dicts(context):
    _raises(TypeError, "the aclrtPhysicalMemProp argument is not dict",
            lambda: acl.rt.malloc_physical(2 << 20, [], 0))
    _raises(TypeError, "the aclrtMemLocation argument is not dict",
            lambda: acl.rt.mem_get_allocation_granularity({"location": 0}, 0))
    _raises(ValueError, "PyLong_AsLong failed",
            lambda: acl.rt.malloc_physical(2 << 20, dict(PHYSICAL_PROP, memAttr=1 << 40), 0))


def test_physical_memory_prop_without_location_leaves_it_zeroed(context):
    # pyACL checks location only when the key is there; missing, the
    # location stays {"id": 0, "type": 0} and the library's ret comes back.
    without = {k: v for k, v in PHYSICAL_PROP.items() if k != "location"}
    zeroed = dict(without, location={"id": 0, "type": 0})
    assert acl.rt.mem_get_allocation_granularity(without, 0) == acl.rt.mem_get_allocation_granularity(zeroed, 0)
    granularity, ret = acl.rt.mem_get_allocation_granularity(without, 0)
    assert ret == 0
    for prop in (without, zeroed, {}):
        handle, ret = acl.rt.malloc_physical(granularity, prop, 0)
        assert ret == (0 if prop else ACL_ERROR_INVALID_PARAM)
        if ret == 0:
            assert acl.rt.free_physical(handle) == 0
    assert acl.rt.mem_get_allocation_granularity({}, 0) == (0, ACL_ERROR_INVALID_PARAM)
    for location in (None, 0, [], "x"):
        _raises(TypeError, "the aclrtMemLocation argument is not dict",
                lambda: acl.rt.malloc_physical(granularity, dict(without, location=location), 0))
    # pyACL's order: the enum fields are read before the location
    _raises(ValueError, "PyLong_AsLong failed",
            lambda: acl.rt.mem_get_allocation_granularity(dict(without, memAttr=1 << 40, location=0), 0))


def test_physical_memory_round_trip(context):
    granularity, ret = acl.rt.mem_get_allocation_granularity(PHYSICAL_PROP, 0)
    assert ret == 0 and granularity > 0
    handle, ret = acl.rt.malloc_physical(granularity, PHYSICAL_PROP, 0)
    assert ret == 0 and handle
    va, ret = acl.rt.reserve_mem_address(granularity, 0, 0, 0)
    assert ret == 0 and va
    assert acl.rt.map_mem(va, granularity, 0, handle, 0) == 0
    assert acl.rt.memset(va, granularity, 7, granularity) == 0
    assert acl.rt.unmap_mem(va) == 0
    assert acl.rt.release_mem_address(va) == 0
    assert acl.rt.free_physical(handle) == 0


def test_pid_lists_must_be_lists_of_ints(context):
    _raises(ValueError, "argument 2 only support the format of list",
            lambda: acl.rt.mem_set_pid_to_shareable_handle(1, (1,)))
    _raises(ValueError, "get values from PyList failed",
            lambda: acl.rt.ipc_mem_set_import_pid("key", ["1"]))


def test_ipc_key_length_below_1024(context):
    size = 2 << 20  # on CUDA only whole 2 MiB blocks are exported
    dev, ret = acl.rt.malloc(size, 0)
    assert ret == 0
    _raises(ValueError, "key len should be less than 1024",
            lambda: acl.rt.ipc_mem_get_export_key(dev, size, 1024, 0))
    key, ret = acl.rt.ipc_mem_get_export_key(dev, size, 65, 0)
    assert ret == 0 and isinstance(key, str) and key
    assert acl.rt.ipc_mem_close(key) == 0
    assert acl.rt.free(dev) == 0


def test_uce_info_and_repair_lists(context):
    assert acl.rt.get_mem_uce_info(0, 100) == ([], 0)
    _raises(TypeError, "aclrtMemUceInfo argument is not list", lambda: acl.rt.mem_uce_repair(0, {}))
    _raises(TypeError, "the aclrtMemUceInfo argument is not dict", lambda: acl.rt.mem_uce_repair(0, [[]]))


def _uce_info(item):
    slot = acl._lib.aclrtMemUceInfo()
    memory._uce_info(slot, item)
    return slot.addr or 0, slot.len, list(slot.reserved)


ZEROS = [0] * 14


@pytest.mark.parametrize("addr, expected", [
    (None, 0), (0, 0), (0x1000, 0x1000), (-1, (1 << 64) - 1), (-(1 << 63), 1 << 63), ((1 << 64) - 1, (1 << 64) - 1),
    (True, 1),
])
def test_uce_repair_addr_converts_as_pylong_asvoidptr(addr, expected):
    assert _uce_info({"addr": addr}) == (expected, 0, ZEROS)


@pytest.mark.parametrize("addr", [1 << 64, -(1 << 63) - 1, "0x10", 1.0, [1]])
def test_uce_repair_addr_out_of_void_pointer_raises(addr):
    _raises(ValueError, "PyLong_AsVoidPtr failed", lambda: _uce_info({"addr": addr}))


def test_uce_repair_len_and_reserved_as_pyacl_reads_them():
    assert _uce_info({}) == (0, 0, ZEROS)
    assert _uce_info({"len": 64, "reserved": "not a list"}) == (0, 64, ZEROS)
    assert _uce_info({"len": "64"}) == (0, 0, ZEROS)  # not an int: left 0
    _raises(ValueError, NOT_UNSIGNED, lambda: _uce_info({"len": -1}))
    assert _uce_info({"reserved": list(range(1, 15))}) == (0, 0, list(range(1, 15)))
    _raises(ValueError, "The length of reserved should be no greater than 14",
            lambda: _uce_info({"reserved": [0] * 15}))
    # filling stops at the first item that is not an int; the rest stay 0
    assert _uce_info({"reserved": [1, 2, "3", 4]}) == (0, 0, [1, 2] + [0] * 12)
    assert _uce_info({"reserved": [None, 2]}) == (0, 0, ZEROS)
    _raises(ValueError, NOT_UNSIGNED, lambda: _uce_info({"reserved": [1, -2]}))
    _raises(ValueError, NOT_UNSIGNED, lambda: _uce_info({"reserved": [1 << 64]}))


def test_uce_repair_passes_the_converted_entries(context):
    # Nothing was ever reported, so the library refuses every entry; its
    # message shows which one and the address it was given.
    assert acl.rt.mem_uce_repair(0, [{"addr": -1, "len": 8}]) == ACL_ERROR_INVALID_PARAM
    assert "0xffffffffffffffff is not one" in acl.get_recent_err_msg()
    assert acl.rt.mem_uce_repair(0, [{"addr": None, "len": 8}]) == ACL_ERROR_INVALID_PARAM
    assert "entry 0 has no address or length" in acl.get_recent_err_msg()
    _raises(ValueError, "PyLong_AsVoidPtr failed", lambda: acl.rt.mem_uce_repair(0, [{"addr": 1 << 64}]))


def test_dvpp_malloc_with_cfg_takes_malloc_cfg_dicts(context):
    ptr, ret = acl.media.dvpp_malloc_with_cfg(64, 0, _cfg(_device_attr(0)))
    assert ret == 0 and ptr
    assert acl.media.dvpp_free(ptr) == 0
    _raises(TypeError, "pyCfg is not dict!", lambda: acl.media.dvpp_malloc_with_cfg(64, 0, []))
