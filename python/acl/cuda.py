"""acl.cuda: acl-cuda's interop with the CUDA ecosystem (torch, CuPy, DLPack).

Not part of pyACL: acl-cuda's own module, on top of acl/acl_cuda.h. Unlike
acl and acl.rt it is Pythonic: functions return values and raise
acl.cuda.Error (with the ACL code in .ret and the library's message) when
the library refuses. Import it explicitly (``import acl.cuda``); ``import
acl`` alone stays exactly pyACL.

Handles, both ways (ACL handles are the ints acl.rt uses; 0 as a stream is
the current context's default stream):

    native_stream(stream) / native_event(event)   the cudaStream_t / cudaEvent_t, as ints
    torch_stream(stream) / cupy_stream(stream)     a torch.cuda.ExternalStream / cupy.cuda.ExternalStream
    stream_from_torch(s) / event_from_torch(e)     ACL handles for torch's CUDA stream / event
    stream_from_cupy(s) / event_from_cupy(e)       ... for CuPy's
    stream_from_native(ptr) / event_from_native(ptr)

A handle made from a foreign stream or event does not own it: destroy it
with acl.rt.destroy_stream / destroy_event when done (the CUDA object stays
alive; it must outlive the handle).

Memory, both ways:

    empty(shape, dtype)                  new ACL device memory as a DeviceBuffer (freed with it)
    as_array(ptr, shape, dtype, ...)     existing memory (ACL's or not) as a DeviceBuffer
    data_ptr(obj) -> (ptr, nbytes)       a tensor's / array's memory, for acl.rt.memcpy* and memset*

A DeviceBuffer has __cuda_array_interface__ (version 3, with its stream)
and __dlpack__ / __dlpack_device__ (DLPack 1.x: the versioned capsule when
the consumer asks for it, the unversioned one otherwise), so
torch.from_dlpack, torch.as_tensor, cupy.asarray and numpy.from_dlpack take
it without a copy. A DLPack tensor made from a buffer keeps the buffer, and
so its memory, alive until the tensor is gone, close() included (it frees
once the last view is gone). On the host backend the same
calls give CPU tensors (kDLCPU): numpy.from_dlpack works there.

On the cuda backend acl.rt's copies and fills take device memory of any CUDA
allocator of the process, torch's and CuPy's included (acl/acl_cuda.h).
"""

import ctypes as _ctypes
import operator as _operator
import threading as _threading
from ctypes import byref as _byref
from ctypes import c_int32 as _c_int32
from ctypes import c_int64 as _c_int64
from ctypes import c_uint8 as _c_uint8
from ctypes import c_uint16 as _c_uint16
from ctypes import c_uint32 as _c_uint32
from ctypes import c_uint64 as _c_uint64
from ctypes import c_void_p as _c_void_p

from . import _lib

_c = _lib.api

__all__ = [
    "Error", "DeviceBuffer", "backend", "native_stream", "native_event", "native_device",
    "stream_device", "stream_from_native", "event_from_native", "torch_stream", "cupy_stream",
    "stream_from_torch", "event_from_torch", "stream_from_cupy", "event_from_cupy", "empty",
    "as_array", "data_ptr",
]

_ACL_EVENT_SYNC = 0x1
_ACL_MEM_MALLOC_HUGE_FIRST = 0
_ACL_MEM_LOCATION_TYPE_HOST = 0
_ACL_MEM_LOCATION_TYPE_DEVICE = 1
_ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2

# DLPack's device types.
_KDL_CPU = 1
_KDL_CUDA = 2
_KDL_CUDA_HOST = 3

# CUDA's legacy stream, as DLPack and the CUDA Array Interface pass it.
_CUDA_STREAM_LEGACY = 1


class Error(RuntimeError):
    """A call acl-cuda refused: .ret is the ACL error code, the text its message."""

    def __init__(self, message, ret):
        super().__init__(message)
        self.ret = ret


def _fail(what, ret):
    message = _c.aclGetRecentErrMsg()
    text = message.decode("utf-8", "replace") if message else "%s failed with %d" % (what, ret)
    raise Error(text, ret)


def _require(*names):
    missing = [name for name in names if not _lib.has(name)]
    if missing:
        raise Error("this libascendcl.so lacks %s" % ", ".join(missing), 207000)


def _check_library():
    _require("aclcudaGetBackendName", "aclcudaGetNativeStream", "aclcudaGetNativeEvent",
             "aclcudaStreamFromNative", "aclcudaEventFromNative", "aclcudaGetNativeDevice",
             "aclcudaStreamGetDevice", "aclcudaGetNativeStreamDevice",
             "aclcudaDLPackCapsuleDestructor")


_check_library()


def _import(name):
    try:
        return __import__(name)
    except ImportError as exc:
        raise ImportError("acl.cuda: this function needs %s" % name) from exc


# ---- handles ----------------------------------------------------------------------
# The out values below go to their POINTER parameters as themselves: ctypes
# takes an instance of the pointed-to type there about 0.2 us faster than a
# byref of it (host backend, timeit), which torch_stream pays three times.

def backend():
    """"cuda" or "host": the backend libascendcl.so runs on in this process."""
    return _c.aclcudaGetBackendName().decode()


def native_stream(stream=0):
    """The cudaStream_t behind an ACL stream (0: the default stream), as an int; 0 on the host backend."""
    out = _c_void_p()
    ret = _c.aclcudaGetNativeStream(stream, out)
    if ret:
        _fail("aclcudaGetNativeStream", ret)
    return out.value or 0


def native_event(event):
    """The cudaEvent_t behind an ACL event, as an int; 0 on the host backend."""
    out = _c_void_p()
    ret = _c.aclcudaGetNativeEvent(event, out)
    if ret:
        _fail("aclcudaGetNativeEvent", ret)
    return out.value or 0


def native_device(device_id=None):
    """The CUDA device ordinal of ACL device device_id (None: the current one),
    as torch.device("cuda", n) takes it; the device index on the host backend."""
    if device_id is None:
        current = _c_int32()
        ret = _c.aclrtGetDevice(current)
        if ret:
            _fail("aclrtGetDevice", ret)
        device_id = current.value
    device_id = _operator.index(device_id)
    if not -2**31 <= device_id < 2**31:  # ctypes would cut it to 32 bits
        raise ValueError("device_id %d is not a device id (int32)" % device_id)
    out = _c_int32()
    ret = _c.aclcudaGetNativeDevice(device_id, out)
    if ret:
        _fail("aclcudaGetNativeDevice", ret)
    return out.value


def stream_device(stream=0):
    """The ACL device id an ACL stream belongs to (0: the default stream)."""
    out = _c_int32()
    ret = _c.aclcudaStreamGetDevice(stream, out)
    if ret:
        _fail("aclcudaStreamGetDevice", ret)
    return out.value


def stream_from_native(native):
    """A new ACL stream handle for a cudaStream_t (an int; 0 is CUDA's legacy
    stream) of the current context's device. It does not own the CUDA stream:
    acl.rt.destroy_stream releases the handle only."""
    out = _c_void_p()
    ret = _c.aclcudaStreamFromNative(native or None, out)
    if ret:
        _fail("aclcudaStreamFromNative", ret)
    return out.value


def event_from_native(native):
    """A new ACL event handle for a cudaEvent_t (an int) of the current
    context's device. It does not own the CUDA event, and its state is the
    CUDA event's own: ACL waits follow records made by CUDA code too."""
    out = _c_void_p()
    ret = _c.aclcudaEventFromNative(native or None, out)
    if ret:
        _fail("aclcudaEventFromNative", ret)
    return out.value


# ExternalStream objects by (native stream, device): making one costs torch
# several microseconds. One for a CUDA handle value stays right after the
# stream is gone: a new stream at the same value is the same to CUDA.
_EXTERNAL_CACHE_MOST = 256
_torch_streams = {}
_cupy_streams = {}


def _remember(cache, key, make):
    if len(cache) >= _EXTERNAL_CACHE_MOST:
        cache.clear()
    value = cache[key] = make(*key)
    return value


def _native_for_library(stream, library):
    # One call for the stream and its device: three ctypes calls cost
    # torch_stream about 1.2 us more on an H100's host.
    native, device = _c_void_p(), _c_int32()
    ret = _c.aclcudaGetNativeStreamDevice(stream, native, device)
    if ret:
        _fail("aclcudaGetNativeStreamDevice", ret)
    if not native.value:
        raise Error("the %s backend has no CUDA streams to hand to %s" % (backend(), library), 207000)
    return native.value, device.value


def _torch_external_stream(native, device):
    torch = _import("torch")
    return torch.cuda.ExternalStream(native, device=torch.device("cuda", device))


def _cupy_external_stream(native, device):
    return _import("cupy").cuda.ExternalStream(native, device_id=device)


# A hit costs a lookup only: no import, no closure (about 0.25 us of a
# call on the host).
def torch_stream(stream=0):
    """A torch.cuda.ExternalStream for an ACL stream (0: the default stream):
    ``with torch.cuda.stream(acl.cuda.torch_stream(s)):`` runs torch's work on it."""
    key = _native_for_library(stream, "torch")
    value = _torch_streams.get(key)
    return value if value is not None else _remember(_torch_streams, key, _torch_external_stream)


def cupy_stream(stream=0):
    """A cupy.cuda.ExternalStream for an ACL stream (0: the default stream)."""
    key = _native_for_library(stream, "CuPy")
    value = _cupy_streams.get(key)
    return value if value is not None else _remember(_cupy_streams, key, _cupy_external_stream)


def stream_from_torch(stream):
    """A new ACL stream handle for a torch.cuda.Stream (or ExternalStream);
    acl.rt.destroy_stream releases the handle, not torch's stream."""
    return stream_from_native(stream.cuda_stream)


def event_from_torch(event):
    """A new ACL event handle for a torch.cuda.Event. torch makes the CUDA
    event at its first record: record it before asking."""
    native = event.cuda_event
    if not native:
        raise ValueError("acl.cuda.event_from_torch: this torch.cuda.Event has no CUDA event yet "
                         "(torch makes it at the first record): record it first")
    return event_from_native(native)


def stream_from_cupy(stream):
    """A new ACL stream handle for a cupy.cuda.Stream (or ExternalStream)."""
    return stream_from_native(stream.ptr)


def event_from_cupy(event):
    """A new ACL event handle for a cupy.cuda.Event."""
    return event_from_native(event.ptr)


# ---- data types ----------------------------------------------------------------------

# name: (CUDA Array Interface typestr, DLPack type code, bits)
_DTYPES = {
    "bool": ("|b1", 6, 8),
    "int8": ("|i1", 0, 8), "uint8": ("|u1", 1, 8),
    "int16": ("<i2", 0, 16), "uint16": ("<u2", 1, 16),
    "int32": ("<i4", 0, 32), "uint32": ("<u4", 1, 32),
    "int64": ("<i8", 0, 64), "uint64": ("<u8", 1, 64),
    "float16": ("<f2", 2, 16), "float32": ("<f4", 2, 32), "float64": ("<f8", 2, 64),
    "bfloat16": (None, 4, 16),
    "complex64": ("<c8", 5, 64), "complex128": ("<c16", 5, 128),
}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
            "int": "int32", "long": "int64", "cfloat": "complex64", "cdouble": "complex128"}


def _dtype_name(dtype):
    """A dtype's name from a str ("float32", "torch.float32"), a NumPy/CuPy
    dtype or type, or a torch dtype."""
    text = dtype if isinstance(dtype, str) else str(dtype)
    if text.startswith("torch."):
        name = text[len("torch."):]
    elif isinstance(dtype, str):
        name = text
    else:
        try:
            import numpy
            name = numpy.dtype(dtype).name
        except Exception:  # not a NumPy dtype either: its own name
            name = getattr(dtype, "name", text)
    name = _ALIASES.get(name, name)
    if name not in _DTYPES:
        raise TypeError("acl.cuda: unsupported dtype %r (one of %s)" % (dtype, ", ".join(sorted(_DTYPES))))
    return name


_INT64_MAX = (1 << 63) - 1


def _shape(shape):
    try:
        shape = (_operator.index(shape),)  # one dimension, of any integer type
    except TypeError:
        shape = tuple(_operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("acl.cuda: negative dimension in shape %r" % (shape,))
    if any(n > _INT64_MAX for n in shape):  # DLPack's shapes are int64
        raise ValueError("acl.cuda: dimension past 2**63 - 1 in shape %r" % (shape,))
    return shape


def _count(shape):
    count = 1
    for n in shape:
        count *= n
    return count


def _contiguous_strides(shape):
    """Row-major strides, in elements."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


# ---- memory ----------------------------------------------------------------------------

def _where(ptr):
    """(ACL location type, ACL device id) of a pointer, per aclrtPointerGetAttributes."""
    attributes = _lib.aclrtPtrAttributes()
    ret = _c.aclrtPointerGetAttributes(ptr, _byref(attributes))
    if ret:
        _fail("aclrtPointerGetAttributes", ret)
    return attributes.location.type, attributes.location.id


def _allocation_range(ptr):
    """(base, size) of the ACL allocation holding ptr, or None where ACL
    knows no allocation there (NumPy's memory, another CUDA allocator's)."""
    base, size = _c_void_p(), _ctypes.c_size_t()
    if not _lib.has("aclrtMemGetAddressRange") or \
            _c.aclrtMemGetAddressRange(ptr, _byref(base), _byref(size)) != 0:
        _c.aclGetRecentErrMsg()  # the refusal's message: not the caller's business
        return None
    return base.value or 0, size.value


def _check_extent(ptr, nbytes, owner, registered):
    """Refuses (ValueError) a view of nbytes at ptr that runs out of the
    buffer it is made from (owner, when a DeviceBuffer) or of the ACL
    allocation holding it (asked for registered memory only: ACL knows no
    allocation in the rest)."""
    if isinstance(owner, DeviceBuffer):
        if owner.closed:
            raise ValueError("acl.cuda: the owner %r is closed" % (owner,))
        if ptr < owner.ptr or ptr + nbytes > owner.ptr + owner.nbytes:
            raise ValueError("acl.cuda: %d bytes at 0x%x run out of the owner's %d bytes at 0x%x"
                             % (nbytes, ptr, owner.nbytes, owner.ptr))
    if not nbytes or not registered:
        return
    allocation = _allocation_range(ptr)
    if allocation is not None and ptr + nbytes > allocation[0] + allocation[1]:
        raise ValueError("acl.cuda: %d bytes at 0x%x run past the end of the %d-byte allocation "
                         "at 0x%x" % (nbytes, ptr, allocation[1], allocation[0]))


# Taken around the count of a buffer's views and the decision to free it:
# DLPack deleters may run on any thread.
_views_lock = _threading.Lock()


class DeviceBuffer:
    """Memory as a C-contiguous array for other libraries, without copying.

    ptr, nbytes, shape, dtype (a name), itemsize; stream: the ACL stream
    whose queued work produces the data (None: ready now), used to order
    consumers after it (DLPack's stream argument, the CUDA Array Interface's
    "stream"); device: the ACL device id of device memory, else None.
    Made by acl.cuda.empty (owning new ACL memory) and acl.cuda.as_array
    (existing memory, not owned; the view must lie inside the ACL allocation
    holding it, and inside its owner when that is a DeviceBuffer).

    Owned memory is freed once the buffer is closed (or gone) and no view of
    it remains: a DLPack tensor made from the buffer, or a consumer of its
    CUDA Array Interface (which holds the buffer itself, as torch and CuPy
    do). close() frees at once when there is none, and gives up the buffer
    in any case: a closed buffer (ptr 0) makes no more views."""

    __slots__ = ("ptr", "nbytes", "shape", "dtype", "itemsize", "stream", "device", "_dl_device",
                 "_memory", "_views", "_interfaced", "_closed", "_owner", "__weakref__")

    def __init__(self, ptr, shape, dtype, *, stream=None, owner=None, device=None):
        self._memory = 0  # the owned ACL memory, set by empty()
        self._views = 0  # DLPack tensors made from the buffer and not yet released
        self._interfaced = False  # whether the CUDA Array Interface was handed out
        self._closed = False
        self.shape = _shape(shape)
        self.dtype = _dtype_name(dtype)
        self.itemsize = _DTYPES[self.dtype][2] // 8
        self.nbytes = _count(self.shape) * self.itemsize
        self.ptr = _operator.index(ptr or 0)
        if not 0 <= self.ptr < 1 << 64:
            raise ValueError("acl.cuda: 0x%x is not an address" % self.ptr if self.ptr >= 0
                             else "acl.cuda: negative address %d" % self.ptr)
        self.stream = stream
        self._owner = owner
        self.device = None
        self._dl_device = (_KDL_CPU, 0)
        if not self.ptr:
            if self.nbytes:
                raise ValueError("acl.cuda: a NULL pointer for %d bytes" % self.nbytes)
            return
        location, location_id = _where(self.ptr)
        _check_extent(self.ptr, self.nbytes, owner,
                      location != _ACL_MEM_LOCATION_TYPE_UNREGISTERED)
        on_cuda = backend() == "cuda"
        if location == _ACL_MEM_LOCATION_TYPE_DEVICE:
            self.device = location_id if device is None else device
            if on_cuda:
                self._dl_device = (_KDL_CUDA, native_device(self.device))
        elif location == _ACL_MEM_LOCATION_TYPE_HOST and on_cuda:
            self._dl_device = (_KDL_CUDA_HOST, 0)

    @property
    def _owned(self):
        return bool(self._memory)

    @property
    def closed(self):
        """Whether close() was called."""
        return self._closed

    def __repr__(self):
        return "acl.cuda.DeviceBuffer(ptr=0x%x, shape=%r, dtype=%r, device=%r%s%s)" % (
            self.ptr, self.shape, self.dtype, self.device, ", owned" if self._memory else "",
            ", closed" if self._closed else "")

    def _free(self):
        """Frees the owned memory (once); the ACL code, 0 when nothing was owned."""
        memory, self._memory = self._memory, 0
        if not memory or _c is None:
            return 0
        return _c.aclrtFree(memory)

    def close(self):
        """Gives the buffer up: owned memory is freed now, or, while views of
        it remain (DLPack tensors, consumers of the CUDA Array Interface),
        when the last of them is gone. Closing twice does nothing."""
        with _views_lock:
            if self._closed:
                return
            self._closed = True
            self.ptr = 0
            free_now = self._views == 0 and not self._interfaced
        if free_now:
            ret = self._free()
            if ret:
                _fail("aclrtFree", ret)

    def _view_released(self):
        """A DLPack tensor made from the buffer (or from a buffer inside it) is gone."""
        with _views_lock:
            self._views -= 1
            free_now = self._closed and self._views == 0 and not self._interfaced
        if free_now:
            self._free()

    def __del__(self):
        try:
            if self._memory:
                self._free()
        except Exception:  # interpreter shutdown: nothing left to free with
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the CUDA Array Interface (version 3) ----

    @property
    def __cuda_array_interface__(self):
        if self._closed:
            raise AttributeError("__cuda_array_interface__: the buffer is closed")
        if self._dl_device[0] != _KDL_CUDA:
            raise AttributeError("__cuda_array_interface__: not device memory of the cuda backend")
        typestr = _DTYPES[self.dtype][0]
        if typestr is None:
            raise AttributeError("__cuda_array_interface__ has no type for %s (use DLPack)" % self.dtype)
        stream = None
        if self.stream is not None:
            stream = native_stream(self.stream) or _CUDA_STREAM_LEGACY
        with _views_lock:  # its consumer holds the buffer: the memory goes with it
            for held in _chain(self):
                held._interfaced = True
        return {"shape": self.shape, "typestr": typestr, "data": (self.ptr, False),
                "strides": None, "version": 3, "stream": stream}

    # ---- DLPack ----

    def __dlpack_device__(self):
        return self._dl_device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self._closed:  # checked again, with the views counted, by _export
            raise BufferError("acl.cuda: the buffer is closed")
        if dl_device is not None and tuple(dl_device) != tuple(self._dl_device):
            raise BufferError("acl.cuda: the buffer is on DLPack device %r, not %r (no copies)"
                              % (self._dl_device, tuple(dl_device)))
        if copy:
            raise BufferError("acl.cuda: DeviceBuffer is exported without copying (copy=True)")
        if self._dl_device[0] in (_KDL_CUDA, _KDL_CUDA_HOST):
            if stream == 0:
                raise ValueError("acl.cuda: stream 0 is ambiguous in DLPack (1: legacy, 2: per-thread)")
            if stream != -1 and self.stream is not None:
                _order_before(self.stream, _CUDA_STREAM_LEGACY if stream is None else stream)
        elif stream != -1 and self.stream is not None:
            # The consumer is the host: it reads once the producer is done.
            ret = _c.aclrtSynchronizeStream(self.stream)
            if ret:
                _fail("aclrtSynchronizeStream", ret)
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        return _export(self, versioned)


def empty(shape, dtype="float32", *, stream=None):
    """New device memory of the current context (aclrtMalloc) as a DeviceBuffer
    that owns it; its contents are undefined."""
    shape = _shape(shape)
    name = _dtype_name(dtype)
    nbytes = _count(shape) * (_DTYPES[name][2] // 8)
    ptr = _c_void_p()
    ret = _c.aclrtMalloc(_byref(ptr), max(nbytes, 1), _ACL_MEM_MALLOC_HUGE_FIRST)
    if ret:
        _fail("aclrtMalloc", ret)
    try:
        buffer = DeviceBuffer(ptr.value, shape, name, stream=stream)
    except BaseException:
        _c.aclrtFree(ptr.value)
        raise
    buffer._memory = ptr.value
    return buffer


def as_array(ptr, shape, dtype, device=None, *, stream=None, owner=None):
    """Existing memory at ptr (ACL's own, or of any CUDA allocator on the cuda
    backend) as a DeviceBuffer that does not own it. owner: an object kept
    alive as long as the buffer (and its DLPack tensors); stream: the ACL
    stream producing the data (None: ready); device: the ACL device id, by
    default where the memory lives. A shape and dtype whose bytes run past
    the ACL allocation holding ptr, or out of owner when it is a
    DeviceBuffer, raise ValueError (memory ACL does not know cannot be
    checked)."""
    return DeviceBuffer(ptr, shape, dtype, stream=stream, owner=owner, device=device)


def _typestr_itemsize(typestr):
    """Bytes per element of an array interface's typestr ("<f4", "|b1",
    "<U5": five UCS-4 characters, "<M8[s]": a unit after the size)."""
    digits = ""
    for ch in typestr[2:]:
        if not ch.isdigit():
            break
        digits += ch
    if not digits:
        raise ValueError("acl.cuda.data_ptr: unknown typestr %r" % (typestr,))
    return int(digits) * (4 if typestr[1:2] == "U" else 1)


def data_ptr(obj):
    """(ptr, nbytes) of a C-contiguous tensor or array: a torch tensor, a CuPy
    or NumPy array, a DeviceBuffer, or anything with __cuda_array_interface__
    or __array_interface__. Pass them to acl.rt.memcpy / memcpy_async /
    memset; keep obj alive while ACL work uses the memory."""
    if isinstance(obj, DeviceBuffer):
        if obj.closed:
            raise ValueError("acl.cuda.data_ptr: the buffer is closed")
        return obj.ptr, obj.nbytes
    if hasattr(obj, "data_ptr") and hasattr(obj, "element_size") and hasattr(obj, "is_contiguous"):
        if not obj.is_contiguous():
            raise ValueError("acl.cuda.data_ptr: the tensor is not contiguous (call .contiguous())")
        return obj.data_ptr(), obj.numel() * obj.element_size()
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is None:
        interface = getattr(obj, "__array_interface__", None)
    if interface is None:
        raise TypeError("acl.cuda.data_ptr: %s exposes no memory (no tensor, array or array interface)"
                        % type(obj).__name__)
    shape = tuple(interface["shape"])
    itemsize = _typestr_itemsize(interface["typestr"])
    strides = interface.get("strides")
    if strides is not None and tuple(strides) != tuple(s * itemsize for s in _contiguous_strides(shape)) \
            and _count(shape) > 1:
        raise ValueError("acl.cuda.data_ptr: the array is not C-contiguous")
    return int(interface["data"][0] or 0), _count(shape) * itemsize


# ---- ordering a consumer's stream after the producer's ---------------------------------

def _order_before(stream, consumer):
    """Makes later work on the consumer's CUDA stream (a cudaStream_t, 1 or 2
    for CUDA's legacy and per-thread streams) wait for the work queued so far
    on ACL stream `stream`: an ACL event recorded on it, waited for by the
    consumer's stream wrapped as an ACL handle. Where the consumer's stream
    cannot be wrapped (another device, no current context in this thread),
    the producer's stream is synchronized instead."""
    if native_stream(stream) == consumer:
        return
    event = _c_void_p()
    ret = _c.aclrtCreateEventWithFlag(_byref(event), _ACL_EVENT_SYNC)
    if ret:
        _fail("aclrtCreateEventWithFlag", ret)
    try:
        ret = _c.aclrtRecordEvent(event, stream)
        if ret:
            _fail("aclrtRecordEvent", ret)
        wrapped = _c_void_p()
        if _c.aclcudaStreamFromNative(consumer, _byref(wrapped)) == 0:
            try:
                ret = _c.aclrtStreamWaitEvent(wrapped, event)
                if ret:
                    _fail("aclrtStreamWaitEvent", ret)
            finally:
                _c.aclrtDestroyStreamForce(wrapped)  # the handle only; CUDA's stream stays
        else:
            _c.aclGetRecentErrMsg()  # the refusal's message: not the caller's business
            ret = _c.aclrtSynchronizeStream(stream)
            if ret:
                _fail("aclrtSynchronizeStream", ret)
    finally:
        _c.aclrtDestroyEvent(event)  # a queued wait keeps what it needs


# ---- DLPack capsules -----------------------------------------------------------------------

class _DLDevice(_ctypes.Structure):
    _fields_ = [("device_type", _c_int32), ("device_id", _c_int32)]


class _DLDataType(_ctypes.Structure):
    _fields_ = [("code", _c_uint8), ("bits", _c_uint8), ("lanes", _c_uint16)]


class _DLTensor(_ctypes.Structure):
    _fields_ = [("data", _c_void_p), ("device", _DLDevice), ("ndim", _c_int32), ("dtype", _DLDataType),
                ("shape", _ctypes.POINTER(_c_int64)), ("strides", _ctypes.POINTER(_c_int64)),
                ("byte_offset", _c_uint64)]


class _DLManagedTensor(_ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", _c_void_p), ("deleter", _c_void_p)]


class _DLPackVersion(_ctypes.Structure):
    _fields_ = [("major", _c_uint32), ("minor", _c_uint32)]


class _DLManagedTensorVersioned(_ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", _c_void_p), ("deleter", _c_void_p),
                ("flags", _c_uint64), ("dl_tensor", _DLTensor)]


_DLPACK_VERSION = (1, 0)
_NAME_VERSIONED = b"dltensor_versioned"
_NAME_UNVERSIONED = b"dltensor"

# What each exported managed tensor keeps alive, by its address: the ctypes
# structures the consumer reads and the buffer (and so its memory). The
# entry goes when the consumer calls the deleter, or when a capsule nobody
# consumed is destroyed.
_exported = {}


def _chain(buffer):
    """The buffer and the DeviceBuffers it lies in (as_array's owner), which
    its views keep alive with it."""
    chain = []
    while isinstance(buffer, DeviceBuffer):
        chain.append(buffer)
        buffer = buffer._owner
    return chain


# Bound as defaults: a tensor may be released while the interpreter shuts
# down, after this module's globals are gone.
def _release(address, _exported=_exported):
    entry = _exported.pop(address, None)
    if entry is not None:
        for held in entry[3]:
            held._view_released()


_DELETER_TYPE = _ctypes.CFUNCTYPE(None, _c_void_p)
_deleter = _DELETER_TYPE(_release)
_DELETER_ADDRESS = _ctypes.cast(_deleter, _c_void_p).value

# Python's PyCapsule_New, as a function object of our own (the shared
# ctypes.pythonapi attribute may be configured otherwise by others).
_capsule_new = _ctypes.PYFUNCTYPE(_ctypes.py_object, _c_void_p, _ctypes.c_char_p, _c_void_p)(
    ("PyCapsule_New", _ctypes.pythonapi))

# The capsules' destructor is the library's, in C: a consumer that refuses a
# tensor raises, then drops the capsule, and a destructor written in Python
# would run with that exception pending (and lose it, and the tensor). The C
# one sets the exception aside while it calls the tensor's deleter above.
_DESTRUCTOR_ADDRESS = _ctypes.cast(_c.aclcudaDLPackCapsuleDestructor, _c_void_p).value

# The deleter lives as long as the process: a consumer may release a
# tensor, or a capsule nobody consumed may go, during the interpreter's
# shutdown, after this module's globals were cleared.
_ctypes.pythonapi.Py_IncRef(_ctypes.py_object(_deleter))


def _export(buffer, versioned):
    # The buffer is checked, its address read and the view counted in one
    # step: a close() on another thread either comes first (refused here)
    # or finds the view and leaves the memory to it.
    chain = _chain(buffer)
    with _views_lock:
        if any(held._closed for held in chain):
            raise BufferError("acl.cuda: the buffer (or the one it lies in) is closed")
        ptr = buffer.ptr
        for held in chain:
            held._views += 1
    try:
        return _export_counted(buffer, ptr, chain, versioned)
    except BaseException:
        for held in chain:
            held._view_released()
        raise


def _export_counted(buffer, ptr, chain, versioned):
    """The capsule of a view already counted on chain."""
    ndim = len(buffer.shape)
    shape = (_c_int64 * max(ndim, 1))(*buffer.shape)
    strides = (_c_int64 * max(ndim, 1))(*_contiguous_strides(buffer.shape))
    managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
    tensor = managed.dl_tensor
    tensor.data = ptr or None
    tensor.device = _DLDevice(*buffer._dl_device)
    tensor.ndim = ndim
    _, code, bits = _DTYPES[buffer.dtype]
    tensor.dtype = _DLDataType(code, bits, 1)
    tensor.shape = _ctypes.cast(shape, _ctypes.POINTER(_c_int64))
    tensor.strides = _ctypes.cast(strides, _ctypes.POINTER(_c_int64))
    tensor.byte_offset = 0
    managed.deleter = _DELETER_ADDRESS
    if versioned:
        managed.version = _DLPackVersion(*_DLPACK_VERSION)
        managed.flags = 0
    address = _ctypes.addressof(managed)
    _exported[address] = (managed, shape, strides, chain)
    try:
        return _capsule_new(address, _NAME_VERSIONED if versioned else _NAME_UNVERSIONED,
                            _DESTRUCTOR_ADDRESS)
    except BaseException:
        del _exported[address]  # the caller releases the views
        raise


def _exported_count():
    """How many exported DLPack tensors are still alive (for tests)."""
    return len(_exported)


