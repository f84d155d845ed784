"""acl.tdt channels, datasets and data items (acl_tdt.h).

Handles are ints (0 for NULL); a function whose C counterpart returns a
pointer or a count returns it bare, the others ``ret`` or a tuple with
``ret`` last, as acl.rt does."""

import ctypes as _ctypes

from .._module import exported as _exported
from .common import api as _api
from .common import c as _c


@_api("Is", "acltdtCreateChannel")
def create_channel(device_id, name, /):
    """handle = acl.tdt.create_channel(device_id, name): 0 on failure."""
    return _c.acltdtCreateChannel(device_id, name) or 0


@_api("IsK", "acltdtCreateChannelWithCapacity")
def create_channel_with_capacity(device_id, name, capacity, /):
    """handle = acl.tdt.create_channel_with_capacity(device_id, name, capacity)"""
    return _c.acltdtCreateChannelWithCapacity(device_id, name, capacity) or 0


@_api("K", "acltdtDestroyChannel")
def destroy_channel(handle, /):
    """ret = acl.tdt.destroy_channel(handle)"""
    return _c.acltdtDestroyChannel(handle)


@_api("K", "acltdtStopChannel")
def stop_channel(handle, /):
    """ret = acl.tdt.stop_channel(handle)"""
    return _c.acltdtStopChannel(handle)


@_api("K", "acltdtCleanChannel")
def clean_channel(handle, /):
    """ret = acl.tdt.clean_channel(handle)"""
    return _c.acltdtCleanChannel(handle)


@_api("KKi", "acltdtSendTensor")
def send_tensor(handle, dataset, timeout, /):
    """ret = acl.tdt.send_tensor(handle, dataset, timeout): timeout -1, 0 or ms."""
    return _c.acltdtSendTensor(handle, dataset, timeout)


@_api("KKi", "acltdtReceiveTensor")
def receive_tensor(handle, dataset, timeout, /):
    """ret = acl.tdt.receive_tensor(handle, dataset, timeout)"""
    return _c.acltdtReceiveTensor(handle, dataset, timeout)


@_api("K", "acltdtQueryChannelSize")
def query_channel_size(handle, /):
    """size, ret = acl.tdt.query_channel_size(handle)"""
    size = _ctypes.c_size_t()
    ret = _c.acltdtQueryChannelSize(handle, _ctypes.byref(size))
    return size.value, ret


@_api("iOiKK", "acltdtCreateDataItem")
def create_data_item(tdt_type, dims, data_type, data, size, /):
    """item = acl.tdt.create_data_item(tdt_type, dims, data_type, data_ptr, size):
    dims a list of ints; 0 on failure."""
    if not isinstance(dims, list):
        raise ValueError("argument only support the format of list")
    array = (_ctypes.c_int64 * max(len(dims), 1))(*dims)
    return _c.acltdtCreateDataItem(tdt_type, array, len(dims), data_type, data, size) or 0


@_api("K", "acltdtDestroyDataItem")
def destroy_data_item(item, /):
    """ret = acl.tdt.destroy_data_item(item)"""
    return _c.acltdtDestroyDataItem(item)


@_api(None, "acltdtCreateDataset")
def create_dataset():
    """dataset = acl.tdt.create_dataset(): 0 on failure."""
    return _c.acltdtCreateDataset() or 0


@_api("K", "acltdtDestroyDataset")
def destroy_dataset(dataset, /):
    """ret = acl.tdt.destroy_dataset(dataset)"""
    return _c.acltdtDestroyDataset(dataset)


@_api("KK", "acltdtAddDataItem")
def add_data_item(dataset, item, /):
    """ret = acl.tdt.add_data_item(dataset, item)"""
    return _c.acltdtAddDataItem(dataset, item)


@_api("KK", "acltdtGetDataItem")
def get_data_item(dataset, index, /):
    """item = acl.tdt.get_data_item(dataset, index): 0 when there is none."""
    return _c.acltdtGetDataItem(dataset, index) or 0


@_api("K", "acltdtGetDatasetSize")
def get_dataset_size(dataset, /):
    """size = acl.tdt.get_dataset_size(dataset)"""
    return _c.acltdtGetDatasetSize(dataset)


@_api("K", "acltdtGetDatasetName")
def get_dataset_name(dataset, /):
    """name = acl.tdt.get_dataset_name(dataset): a str, None when there is none."""
    raw = _c.acltdtGetDatasetName(dataset)
    return None if raw is None else raw.decode("utf-8", "replace")


@_api("K", "acltdtGetTensorTypeFromItem")
def get_tensor_type_from_item(item, /):
    """tdt_type = acl.tdt.get_tensor_type_from_item(item)"""
    return _c.acltdtGetTensorTypeFromItem(item)


@_api("K", "acltdtGetDataTypeFromItem")
def get_data_type_from_item(item, /):
    """data_type = acl.tdt.get_data_type_from_item(item)"""
    return _c.acltdtGetDataTypeFromItem(item)


@_api("K", "acltdtGetDataAddrFromItem")
def get_data_addr_from_item(item, /):
    """ptr = acl.tdt.get_data_addr_from_item(item)"""
    return _c.acltdtGetDataAddrFromItem(item) or 0


@_api("K", "acltdtGetDataSizeFromItem")
def get_data_size_from_item(item, /):
    """size = acl.tdt.get_data_size_from_item(item)"""
    return _c.acltdtGetDataSizeFromItem(item)


@_api("K", "acltdtGetDimNumFromItem")
def get_dim_num_from_item(item, /):
    """dim_num = acl.tdt.get_dim_num_from_item(item)"""
    return _c.acltdtGetDimNumFromItem(item)


@_api("K", "acltdtGetDimsFromItem", "acltdtGetDimNumFromItem")
def get_dims_from_item(item, /):
    """dims, ret = acl.tdt.get_dims_from_item(item): dims a list of ints."""
    num = _c.acltdtGetDimNumFromItem(item)
    array = (_ctypes.c_int64 * max(num, 1))()
    ret = _c.acltdtGetDimsFromItem(item, array, num)
    return (list(array[:num]) if ret == 0 else []), ret


__all__ = _exported(globals())
