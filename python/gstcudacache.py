# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""DLPack tensors from GStreamer buffers, for PyTorch, CuPy and NumPy.

    import numpy
    import gstcudacache

    sample = appsink.emit("pull-sample")
    array = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample))

A Tensor is one export of a buffer through gst_cuda_cache_dlpack_export():
a tensor buffer (other/tensors) as its 4-D tensor, a video/x-raw frame as
height x width x channels, whole or one plane at a time. It holds a
reference on the buffer until the consumer (the array) is freed, so the
buffer goes back to its pool, and its memory to the cache, only then.
Nothing is copied: CUDA memory stays on its device (torch.from_dlpack,
cupy.from_dlpack), system memory is read in place (numpy.from_dlpack).

Consumers that ask for DLPack 1.x (max_version, as PyTorch 2.6 and later
and NumPy 2 do) get the versioned struct, flagged read-only; older ones
the unversioned one. The C library exports DLPack 0.6's DLManagedTensor
(Debian's dlpack.h); the versioned struct is laid out here, from the
DLPack 1.0 ABI, around that export, so no newer header is needed to
build. CUDA tensors also offer __cuda_array_interface__ (version 3) for
CuPy, Numba, PyCUDA and cuda-python.

Streams: on GStreamer 1.22 a tensor's data is ready on every stream when
it is made (the project's elements finish writing a buffer before they
push it): the consumer's `stream` needs no wait, and the CUDA Array
Interface's `stream` is None. From 1.24, memory may carry work still
queued on its stream: __dlpack__(stream=...) makes the consumer's stream
wait for it on the GPU (an event recorded on the buffer's stream, no host
synchronise), and __cuda_array_interface__ names the buffer's stream for
the consumer to synchronise on.

Tensor(buffer, caps) calls the library through PyGObject
(gi.repository.GstCudaCache). Tensor.from_pointer() adopts a
DLManagedTensor * from elsewhere (a C function, a ctypes binding), so the
module itself needs nothing but ctypes.
"""

import ctypes
import operator

__all__ = ["Tensor", "to_buffer", "WHOLE", "KDL_CPU", "KDL_CUDA",
           "FLAG_READ_ONLY"]

WHOLE = -1
KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13

_CAPSULE_NAME = b"dltensor"
_VERSIONED_CAPSULE_NAME = b"dltensor_versioned"
# DLManagedTensorVersioned.flags: the data must not be written (it is
# mapped for reading)
FLAG_READ_ONLY = 1 << 0


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("device", DLDevice),
                ("ndim", ctypes.c_int),
                ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _Deleter)]

class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


_DeleterVersioned = ctypes.CFUNCTYPE(None,
                                     ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion),
                                     ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", _DeleterVersioned),
                                     ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]

_DTYPE_NAMES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32",
                (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32",
                (2, 16): "float16", (2, 32): "float32", (2, 64): "float64"}

# Raw pointers only: the destructor runs while the capsule is being freed,
# when touching its reference count would free it a second time. Function
# objects of our own (pythonapi["..."]), not ctypes.pythonapi's shared
# ones, whose argument types an application may set otherwise.
_PyCapsule_New = ctypes.pythonapi["PyCapsule_New"]
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_IsValid = ctypes.pythonapi["PyCapsule_IsValid"]
_PyCapsule_IsValid.restype = ctypes.c_int
_PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_PyCapsule_GetPointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_PyCapsule_SetName = ctypes.pythonapi["PyCapsule_SetName"]
_PyCapsule_SetName.restype = ctypes.c_int
_PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetPointerObj = ctypes.pythonapi["PyCapsule_GetPointer"]
_PyCapsule_GetPointerObj.restype = ctypes.c_void_p
_PyCapsule_GetPointerObj.argtypes = [ctypes.py_object, ctypes.c_char_p]
_USED_CAPSULE_NAME = b"used_dltensor"


def _release(address):
    managed = DLManagedTensor.from_address(address)
    if managed.deleter:
        managed.deleter(ctypes.cast(address, ctypes.POINTER(DLManagedTensor)))


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    # A consumer renames the capsule it took ("used_dltensor") and runs the
    # deleter itself; one nobody took still owns its tensor.
    if _PyCapsule_IsValid(capsule, _CAPSULE_NAME):
        _release(_PyCapsule_GetPointer(capsule, _CAPSULE_NAME))


# The versioned structs handed out, by address: each keeps the export it
# wraps (whose shape and strides its DLTensor points to) until its deleter
# runs, on whichever thread the consumer frees it.
_versioned = {}


@_DeleterVersioned
def _versioned_deleter(managed):
    entry = _versioned.pop(ctypes.cast(managed, ctypes.c_void_p).value, None)
    if entry is not None:
        _release(entry[1])


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _versioned_capsule_destructor(capsule):
    if _PyCapsule_IsValid(capsule, _VERSIONED_CAPSULE_NAME):
        address = _PyCapsule_GetPointer(capsule, _VERSIONED_CAPSULE_NAME)
        DLManagedTensorVersioned.from_address(address).deleter(
            ctypes.cast(address, ctypes.POINTER(DLManagedTensorVersioned)))


def _wrap_versioned(address):
    """A DLManagedTensorVersioned (1.0, read-only) around the export at
    @address, which its deleter releases."""
    inner = DLManagedTensor.from_address(address)
    versioned = DLManagedTensorVersioned()
    versioned.version = DLPackVersion(1, 0)
    versioned.deleter = _versioned_deleter
    versioned.flags = FLAG_READ_ONLY
    versioned.dl_tensor = inner.dl_tensor
    at = ctypes.addressof(versioned)
    _versioned[at] = (versioned, address)
    return at


# kept alive with the interpreter, not the module: capsules can outlive it
ctypes._gst_cuda_cache_capsule_destructor = _capsule_destructor
ctypes._gst_cuda_cache_versioned = (_versioned_deleter,
                                    _versioned_capsule_destructor,
                                    _versioned)


def _gi():
    import gi
    gi.require_version("GstCudaCache", "1.0")
    from gi.repository import GLib, GstCudaCache
    return GLib, GstCudaCache


def _gi_export(buffer, caps, plane):
    """The export, without waiting for work still queued on the memory's
    stream (1.24+), and that stream (0: none)"""
    GLib, gcc = _gi()
    lib = gcc.CudaCache
    try:
        address = lib.dlpack_export(
            buffer, caps, plane, gcc.CudaCacheDLPackFlags.NO_WAIT) or None
    except GLib.Error as e:
        # the library's reason, as the exception's message
        raise ValueError(e.message) from None
    return address, lib.dlpack_get_stream(buffer) if address else 0


def _gi_stream_wait(buffer, stream):
    GLib, gcc = _gi()
    try:
        gcc.CudaCache.dlpack_stream_wait(buffer, stream)
    except GLib.Error as e:
        raise BufferError(e.message) from None


def _check_arguments(buffer, caps, plane):
    # the library's guards are for C callers; Python's get the reason
    if buffer is None:
        raise ValueError("no buffer to export")
    if isinstance(plane, bool) or not isinstance(plane, int) or plane < WHOLE:
        raise ValueError(f"plane must be WHOLE ({WHOLE}) or a plane's index "
                         f"(0 or more), not {plane!r}")
    if caps is not None:
        if caps.is_empty() or caps.is_any():
            raise ValueError(f"caps {caps.to_string()} describe no frame or "
                             "tensor: pass the sample's (fixed) caps")
        if not caps.is_fixed():
            raise ValueError(f"caps {caps.to_string()} are not fixed: pass "
                             "the sample's caps")


class Tensor:
    """One DLPack export of a buffer: pass it to torch.from_dlpack(),
    cupy.from_dlpack() or numpy.from_dlpack(), once.

    It holds a Python reference to the buffer only until a DLPack consumer
    takes the export, whose own reference passes to the consumer: once the
    array is freed, so is the buffer. Make another Tensor for another
    consumer. Treat the memory as read-only: it is mapped for reading.
    """

    def __init__(self, buffer, caps=None, plane=WHOLE):
        """Exports a Gst.Buffer: a tensor buffer (its GstCudaCacheTensorMeta,
        or other/tensors caps), or a video/x-raw frame with its caps; plane
        is WHOLE for a tensor or single-plane frame, or a plane's index.
        Raises ValueError if the buffer's layout cannot be described."""
        self._ptr = None
        _check_arguments(buffer, caps, plane)
        address, self._stream = _gi_export(buffer, caps, plane)
        # for the consumer's stream to wait on, until it takes the export
        self._buffer = buffer if self._stream else None
        self._adopt(address)

    @classmethod
    def from_sample(cls, sample, plane=WHOLE):
        """Exports the buffer of a Gst.Sample (from appsink) with its caps."""
        return cls(sample.get_buffer(), sample.get_caps(), plane)

    @classmethod
    def from_pointer(cls, address):
        """Adopts a DLManagedTensor * (an int), which its deleter releases."""
        self = cls.__new__(cls)
        self._ptr = None
        # its exporter made it ready on every stream
        self._stream, self._buffer = 0, None
        self._adopt(address)
        return self

    def _adopt(self, address):
        if not address:
            raise ValueError("the buffer's layout cannot be exported as a "
                             "DLPack tensor (see the cudacachedlpack debug "
                             "category)")
        self._ptr = address
        t = DLManagedTensor.from_address(address).dl_tensor
        # kept so the properties outlive the export a consumer took
        self.device = (t.device.device_type, t.device.device_id)
        self.data_ptr = t.data + t.byte_offset
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.strides = tuple(t.strides[i] for i in range(t.ndim))
        self.dtype = _DTYPE_NAMES.get((t.dtype.code, t.dtype.bits),
                                      f"code{t.dtype.code}:{t.dtype.bits}")
        self._itemsize = t.dtype.bits // 8

    @property
    def __cuda_array_interface__(self):
        """The CUDA Array Interface, version 3, of a CUDA tensor (an
        AttributeError for system memory, and once a DLPack consumer took
        the export): read-only data, strides in bytes, and `stream` the
        stream on which work writing it is still queued (GStreamer 1.24 and
        later), on which the consumer synchronises as the protocol says,
        or None where the data is ready on every stream. The consumer
        keeps this Tensor, and with it the buffer, alive."""
        if self.device[0] != KDL_CUDA:
            raise AttributeError("the tensor is in system memory: use "
                                 "__dlpack__ (numpy.from_dlpack)")
        if self._ptr is None:
            raise AttributeError("this tensor was handed over through "
                                 "DLPack: make another Tensor")
        # its consumers read through this Tensor's export from now on
        self._shared = True
        kind = self.dtype.rstrip("0123456789")
        typestr = "%s%s%d" % ("|" if self._itemsize == 1 else "<",
                              {"int": "i", "uint": "u", "float": "f"}[kind],
                              self._itemsize)
        return {"version": 3, "shape": self.shape, "typestr": typestr,
                "data": (self.data_ptr, True),
                "strides": tuple(s * self._itemsize for s in self.strides),
                "stream": self._stream or None}

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """The export as a DLPack capsule, once: versioned (1.0, read-only)
        where max_version is (1, 0) or more, else DLPack 0.x's. `stream`
        is the consumer's, as the protocol says: None or 1 the legacy
        default stream, 2 the per-thread default stream, -1 no wait, else
        a stream of the consumer's own; it waits on the GPU (an event, no
        host synchronise) for work still queued on the buffer's stream
        (see the module's doc). None for system memory."""
        if stream is not None and self.device[0] == KDL_CPU:
            raise BufferError("stream must be None for a tensor in system "
                              f"memory, not {stream!r}")
        if copy:
            raise BufferError("a buffer's tensor is exported without a copy")
        if dl_device is not None and tuple(dl_device) != self.device:
            raise BufferError(f"the tensor lives on device {self.device}")
        if self._ptr is None:
            raise BufferError("this tensor was already handed over: make "
                              "another Tensor for another consumer")
        if getattr(self, "_shared", False):
            raise BufferError("this tensor is read through its "
                              "__cuda_array_interface__, which needs its "
                              "export: make another Tensor for DLPack")
        if self._stream and stream != -1:
            _gi_stream_wait(self._buffer, 1 if stream is None else stream)
        address, self._ptr = self._ptr, None
        self._buffer = None
        if max_version is not None and tuple(max_version)[0] >= 1:
            return _PyCapsule_New(_wrap_versioned(address),
                                  _VERSIONED_CAPSULE_NAME,
                                  ctypes.cast(_versioned_capsule_destructor,
                                              ctypes.c_void_p))
        return _PyCapsule_New(address, _CAPSULE_NAME,
                              ctypes.cast(_capsule_destructor,
                                          ctypes.c_void_p))

    def close(self):
        """Releases the export if no consumer took it."""
        address, self._ptr = self._ptr, None
        self._buffer = None
        if address:
            _release(address)

    def __del__(self):
        self.close()

    def __repr__(self):
        return (f"<gstcudacache.Tensor {self.dtype}{list(self.shape)} "
                f"device={self.device} data=0x{self.data_ptr:x}>")


# The DLManagedTensors made for __cuda_array_interface__-only objects, by
# address: each keeps its object, shape and strides until the library calls
# its deleter, on whichever thread frees the buffer.
_cai_exports = {}

_CAI_TYPES = {"u1": (1, 8), "f2": (2, 16), "f4": (2, 32)}


@_Deleter
def _cai_deleter(managed):
    _cai_exports.pop(ctypes.cast(managed, ctypes.c_void_p).value, None)


def _cai_ints(values, field, low, high):
    """@values (a sequence of integers, each in [@low, @high)) as a tuple,
    else ValueError naming the interface's @field"""
    try:
        if isinstance(values, (str, bytes)):
            raise TypeError
        ints = tuple(operator.index(v) for v in values)
    except TypeError:
        raise ValueError(f"__cuda_array_interface__ {field} {values!r} is "
                         "not a tuple of integers") from None
    for v in ints:
        if not low <= v < high:
            raise ValueError(f"__cuda_array_interface__ {field} {values!r}: "
                             f"{v} is out of range ({low} to {high - 1})")
    return ints


def _cai_synchronize(stream):
    """Waits on the host for the producer's @stream, as the CUDA Array
    Interface asks of a consumer that reads on another stream."""
    cuda = _cuda_driver()
    cuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
    cuda.cuStreamSynchronize.restype = ctypes.c_int
    err = cuda.cuStreamSynchronize(ctypes.c_void_p(stream))
    if err:
        raise ValueError(f"the object's stream {stream:#x} could not be "
                         f"waited for (CUDA error {err})")


def _from_cuda_array_interface(obj):
    """A DLManagedTensor * (an int) describing @obj's
    __cuda_array_interface__ (version 3 or earlier), which keeps @obj alive
    until its deleter runs; the producer's stream, if it names one, waited
    for. Raises ValueError for what it cannot describe."""
    cai = obj.__cuda_array_interface__
    if not isinstance(cai, dict):
        raise ValueError("__cuda_array_interface__ is a "
                         f"{type(cai).__name__}, not a dict")
    missing = [key for key in ("shape", "typestr", "data") if key not in cai]
    if missing:
        raise ValueError("__cuda_array_interface__ has no "
                         f"{', '.join(missing)}")
    # ctypes would wrap what does not fit in 64 bits without a word
    shape = _cai_ints(cai["shape"], "shape", 0, 2 ** 63)
    typestr = cai["typestr"]
    data = cai["data"]
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise ValueError(f"__cuda_array_interface__ data {data!r} is not "
                         "(pointer, read-only)")
    data = _cai_ints(data[:1], "data", 0, 2 ** 64)[0]
    if cai.get("mask") is not None:
        raise ValueError("__cuda_array_interface__ with a mask: masked "
                         "arrays are not taken")
    if not isinstance(typestr, str) or len(typestr) < 2 or \
            typestr[0] not in "<|" or typestr[1:] not in _CAI_TYPES:
        raise ValueError(f"__cuda_array_interface__ typestr {typestr!r}: "
                         "uint8 (|u1), float16 (<f2) or float32 (<f4), "
                         "little-endian, are taken")
    code, bits = _CAI_TYPES[typestr[1:]]
    itemsize = bits // 8
    strides = cai.get("strides")
    if strides is not None:
        strides = _cai_ints(strides, "strides", -2 ** 63, 2 ** 63)
        if len(strides) != len(shape):
            raise ValueError(f"__cuda_array_interface__ strides {strides} "
                             f"are not one a dimension of shape {shape}")
        if any(s % itemsize for s in strides):
            raise ValueError(f"__cuda_array_interface__ strides {strides} "
                             f"are not whole {itemsize}-byte elements")
        strides = tuple(s // itemsize for s in strides)
    stream = cai.get("stream")
    if stream is not None:
        stream = _cai_ints((stream,), "stream", 0, 2 ** 64)[0]
    if stream not in (None, 1, 2):
        _cai_synchronize(stream)
    if not data and all(shape):
        raise ValueError("__cuda_array_interface__ data is a null pointer")

    n = len(shape)
    managed = DLManagedTensor()
    shape_array = (ctypes.c_int64 * max(n, 1))(*shape)
    strides_array = (ctypes.c_int64 * max(n, 1))(*strides) \
        if strides is not None else None
    t = managed.dl_tensor
    t.data = data
    t.device = DLDevice(KDL_CUDA, _cai_device(data))
    t.ndim = n
    t.dtype = DLDataType(code, bits, 1)
    t.shape = ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    if strides_array is not None:
        t.strides = ctypes.cast(strides_array, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    managed.deleter = _cai_deleter
    address = ctypes.addressof(managed)
    _cai_exports[address] = (managed, shape_array, strides_array, obj)
    return address


def _cuda_driver():
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        raise ValueError("__cuda_array_interface__ data, but no CUDA driver "
                         "on this machine") from None


def _cai_device(pointer):
    """The CUDA device ordinal of device memory at @pointer"""
    cuda = _cuda_driver()
    f = cuda.cuPointerGetAttribute
    f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64]
    f.restype = ctypes.c_int
    ordinal = ctypes.c_int(0)
    # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
    err = f(ctypes.byref(ordinal), 9, pointer)
    if err:
        raise ValueError(f"{pointer:#x} is not CUDA memory this process "
                         f"can read (CUDA error {err})")
    return ordinal.value


def to_buffer(obj, context=None):
    """A Gst.Buffer and its Gst.Caps of @obj, for appsrc: any object with
    __dlpack__ (a torch tensor, a CuPy or NumPy array) or, failing that,
    __cuda_array_interface__ (a Numba array, PyCUDA's, cuda-python's),
    through gst_cuda_cache_dlpack_import(). A uint8 (height, width, channels)
    array becomes a video/x-raw frame (GRAY8, RGB, RGBA), a packed 4-D
    uint8, float16 or float32 array an other/tensors tensor. System memory
    is wrapped without a copy (the buffer keeps the array alive). CUDA
    memory is taken on @context (a GstCuda.Context, or None for the
    default context of the device, which the project's elements share:
    pipelines without a context of their own take it): wrapped without a
    copy where it belongs to @context and GStreamer is 1.24 or later, else
    copied once on the device into the device's cache. PyTorch's and
    CuPy's memory belongs to the device's primary context, which is the
    default one (GstCudaCache.CudaCache.device_get_primary_context());
    a pipeline given another context (pipeline.set_context(...)) needs
    the buffer on that one. Raises ValueError with the library's reason
    for what it cannot describe."""
    import gi
    gi.require_version("GstCudaCache", "1.0")
    from gi.repository import GLib, GstCudaCache
    if not hasattr(obj, "__dlpack__"):
        if not hasattr(obj, "__cuda_array_interface__"):
            raise ValueError(f"{type(obj).__name__} has neither __dlpack__ "
                             "nor __cuda_array_interface__: pass a torch "
                             "tensor, a CuPy, Numba or NumPy array")
        address = _from_cuda_array_interface(obj)
        try:
            return GstCudaCache.CudaCache.dlpack_import(address, context)
        except GLib.Error as e:
            raise ValueError(e.message) from None
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") \
        else (KDL_CPU, 0)
    try:
        device_type = operator.index(device[0])
    except (TypeError, IndexError, KeyError):
        raise ValueError(f"__dlpack_device__ gave {device!r}, not "
                         "(device type, device id)") from None
    # CUDA: the producer orders its work before the legacy default stream
    # (1), which the library's copy runs on and waits for
    try:
        capsule = obj.__dlpack__(
            stream=1 if device_type == KDL_CUDA else None)
    except BufferError as e:
        # the producer's reason (NumPy: a data type, byte order or
        # strides DLPack cannot describe, a read-only array)
        raise ValueError(f"the object cannot be exported through DLPack: "
                         f"{e}") from e
    address = _PyCapsule_GetPointerObj(capsule, _CAPSULE_NAME)
    if not address:
        raise ValueError("the object's __dlpack__ gave no DLPack 0.x tensor")
    # taken: the library calls its deleter, now or when the buffer is freed
    _PyCapsule_SetName(capsule, _USED_CAPSULE_NAME)
    try:
        return GstCudaCache.CudaCache.dlpack_import(address, context)
    except GLib.Error as e:
        raise ValueError(e.message) from None
