# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Fuzzes gstcudacache.to_buffer() with a seeded random driver.

Each case, made from one integer (its seed), is one of:

- a NumPy array of any dtype (every numeric one, bool, float16, complex,
  big-endian, object, strings), rank 0 to 6, dimensions of 0, 1 and odd
  sizes, as a view: steps, negative strides, transposes, broadcasts (zero
  strides), as_strided with overlapping strides, read-only;
- an object whose __dlpack__ gives a DLManagedTensor of any fields (rank,
  shape, strides, byte offset, dtype, device, null data, sizes past 2^31
  and 2^63), backed by as much memory as it claims where that is small,
  or something that is not a DLPack capsule at all;
- an object with only a __cuda_array_interface__ of odd fields.

to_buffer() must return (buffer, caps), the buffer mapping to the
array's bytes in the layout the caps describe (and
gstcudacache.Tensor(buffer, caps) giving them back to numpy.from_dlpack),
or raise ValueError (TypeError where Python's own conversions say so)
with a message; a DLPack tensor's deleter runs once. A crash, a GLib
CRITICAL (G_DEBUG=fatal-criticals) or a call longer than --per-call
seconds (faulthandler ends the process) fails the run.

The cases of corpus.txt (one seed a line) run first, then --iterations
cases from --seed. Exits 77 (skipped) without PyGObject or NumPy. With
--atheris (where the atheris package is installed) Atheris drives the
case seeds instead.
"""

import argparse
import ctypes
import faulthandler
import gc
import os
import random
import sys
import time
import traceback

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    gi.require_version("GstCudaCache", "1.0")
    from gi.repository import Gst, GstVideo  # noqa: F401 (video meta API)
    import numpy
    from numpy.lib.stride_tricks import as_strided
except (ImportError, ValueError) as e:
    print(f"skipped: {e} (install python3-gi, python3-gst-1.0, python3-numpy)")
    sys.exit(77)

if not hasattr(numpy, "from_dlpack"):
    print(f"skipped: NumPy {numpy.__version__} has no from_dlpack")
    sys.exit(77)

import gstcudacache  # noqa: E402

Gst.init(None)

HERE = os.path.dirname(os.path.abspath(__file__))

# biggest backing memory a fake tensor gets; bigger claims point at a
# small block and must be refused or left unread
BACKING_LIMIT = 1 << 22


class Failure(Exception):
    pass


class ProducerError(Exception):
    """What a fake producer raises itself: to_buffer passes it on."""


# ---------------------------------------------------------------- arrays

DTYPES = ["u1", "u1", "u1", "u1", "f2", "f2", "f4", "f4", "f4",
          "i1", "i2", "i4", "i8", "u2", "u4", "u8", "f8", "g", "c8", "c16",
          "?", ">f4", ">f2", ">u2", ">i4", ">c8", "O", "U3", "S2", "V4",
          "M8[s]", "m8[ms]"]
DIMS = [0, 1, 1, 1, 2, 3, 3, 3, 4, 4, 5, 7, 9, 16, 31]


def random_shape(r):
    rank = r.choice([0, 1, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 6])
    shape = [r.choice(DIMS) for _ in range(rank)]
    # bias towards what is taken: frames and 4-D tensors of 1 or 3 channels
    if rank == 3 and r.random() < 0.6:
        shape[2] = r.choice([1, 3, 4])
    if rank == 4 and r.random() < 0.6:
        shape[r.choice([1, 3])] = r.choice([1, 3])
    # arrays of at most 2^16 elements: each case takes milliseconds
    while numpy.prod(shape) > 1 << 16:
        shape[shape.index(max(shape))] = r.choice([1, 2, 3])
    return shape


def filled(r, shape, dtype):
    n = int(numpy.prod(shape)) if shape else 1
    raw = numpy.frombuffer(bytearray(r.randbytes(n * dtype.itemsize)),
                           dtype=numpy.uint8)
    if dtype.kind in "OUSMmV":
        return numpy.zeros(shape, dtype)
    # no NaNs: the comparisons below are of values
    a = raw.view(dtype).reshape(shape) if n else numpy.zeros(shape, dtype)
    if dtype.kind in "fc":
        a = numpy.nan_to_num(a, posinf=1, neginf=-1)
        a = a.astype(dtype)
    if dtype.kind == "b":
        a = raw.view(numpy.uint8).reshape(shape).astype(bool) if n \
            else numpy.zeros(shape, dtype)
    return a


def random_view(r, a):
    """@a, or a view of it of odd strides"""
    for _ in range(r.choice([0, 0, 0, 1, 1, 2, 3])):
        what = r.choice(["step", "flip", "transpose", "broadcast",
                         "overlap", "slice", "readonly", "size1"])
        if a.ndim == 0 and what not in ("readonly", "broadcast"):
            continue
        # pointers at odd offsets are no objects
        if a.dtype.hasobject and what in ("overlap", "size1"):
            continue
        if what == "step":
            axis = r.randrange(a.ndim)
            idx = [slice(None)] * a.ndim
            idx[axis] = slice(r.choice([0, 1]), None, r.choice([2, 3]))
            a = a[tuple(idx)]
        elif what == "flip":
            a = numpy.flip(a, axis=r.randrange(a.ndim))
        elif what == "transpose":
            axes = list(range(a.ndim))
            r.shuffle(axes)
            a = a.transpose(axes)
        elif what == "broadcast":
            shape = list(a.shape)
            shape.insert(0, r.choice([1, 2, 3]))
            a = numpy.broadcast_to(a, shape)
        elif what == "overlap":
            # rows overlapping the previous one, within the base's bytes
            if a.size == 0 or a.ndim == 0:
                continue
            base = numpy.ascontiguousarray(a)
            strides = list(base.strides)
            axis = r.randrange(a.ndim)
            strides[axis] = r.choice([0, base.itemsize,
                                      max(base.itemsize,
                                          strides[axis] // 2)])
            extent = sum((n - 1) * s for n, s in zip(base.shape, strides))
            if extent + base.itemsize > base.nbytes:
                continue
            a = as_strided(base, base.shape, strides)
        elif what == "slice":
            # a frame's rows at a wider stride: the left part of each row
            axis = r.randrange(a.ndim)
            if a.shape[axis] > 1:
                idx = [slice(None)] * a.ndim
                idx[axis] = slice(0, r.randrange(1, a.shape[axis]))
                a = a[tuple(idx)]
        elif what == "readonly":
            a = a.view()
            a.setflags(write=False)
        elif what == "size1":
            # a dimension of 1 with an odd stride: any stride describes it
            if a.size == 0:
                continue
            axis = r.randrange(a.ndim)
            idx = [slice(None)] * a.ndim
            idx[axis] = slice(0, 1)
            a = a[tuple(idx)]
            strides = list(a.strides)
            strides[axis] = r.choice([-a.itemsize, 0, 7 * a.itemsize,
                                      a.itemsize * 1000003])
            a = as_strided(a, a.shape, strides)
    return a


def random_array(r):
    # mostly what is taken, so that the layouts taken are checked
    dtype = numpy.dtype(r.choice(["u1", "f2", "f4"] if r.random() < 0.6
                                 else DTYPES))
    shape = random_shape(r)
    a = random_view(r, filled(r, shape, dtype))
    return a


# ------------------------------------------------------- fake DLPack

_deleted = {}


_serial = [0]


@gstcudacache._Deleter
def _fake_deleter(managed):
    # by the tensor's serial number: a freed tensor's address is reused
    serial = managed.contents.manager_ctx
    _deleted[serial] = _deleted.get(serial, 0) + 1


def same_bytes(x, y):
    """@x and @y hold the same bytes (NaNs of the same bits too)"""
    return x.shape == y.shape and \
        numpy.ascontiguousarray(x).tobytes() == \
        numpy.ascontiguousarray(y).tobytes()


ODD_DIMS = [0, 1, 2, 3, 4, 5, -1, -3, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 3,
            2 ** 62, 2 ** 63 - 1, -2 ** 63, 65536, 46341]


class FakeDLPack:
    """An object whose __dlpack__ gives a DLManagedTensor of random
    fields, or something else."""

    def __init__(self, r):
        self.r = r
        self.kind = r.choice(["tensor"] * 12 + ["none", "int", "bytes",
                                                "versioned", "raises"])
        self.device = (gstcudacache.KDL_CPU, 0)
        self.device_call = r.choice(["none"] * 6 + ["absent", "odd", "cuda",
                                                    "host"])
        self.managed = None
        self.capsule = None
        self.expect = None          # the array the buffer must hold
        self.huge = False
        if self.kind == "tensor":
            self._make_tensor()

    def _make_tensor(self):
        r = self.r
        ndim = r.choice([0, 1, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, -1, -7])
        n = max(ndim, 0)
        code, bits = r.choice([(1, 8)] * 6 + [(2, 16), (2, 32)] * 3 +
                              [(0, 8), (2, 64), (5, 64), (6, 8), (4, 16),
                               (1, 0), (1, 7), (99, 8), (3, 8)])
        lanes = r.choice([1] * 9 + [0, 2, 65535])
        itemsize = max(bits // 8, 1)
        shape = []
        for i in range(n):
            shape.append(r.choice(DIMS[1:]) if r.random() < 0.8
                         else r.choice(ODD_DIMS))
        if n == 3 and r.random() < 0.6:
            shape[2] = r.choice([1, 3, 4])
        if n == 4 and r.random() < 0.6:
            shape[r.choice([1, 3])] = r.choice([1, 3])
        packed = []
        s = 1
        for d in reversed(shape):
            packed.insert(0, s)
            s *= d
        strides_kind = r.choice(["packed", "packed", "null", "padded",
                                 "odd"])
        strides = None
        if strides_kind == "packed":
            strides = list(packed)
        elif strides_kind == "padded":
            strides = list(packed)
            if n:
                strides[0] = packed[0] + r.choice([1, 3, 8, 2 ** 31,
                                                   2 ** 40])
        elif strides_kind == "odd":
            strides = [r.choice([0, 1, -1, 3, -2 ** 63, 2 ** 63 - 1,
                                 2 ** 31, p, -p])
                       for p in packed]
        byte_offset = r.choice([0] * 6 + [1, 3, 4096, 2 ** 40])
        null_data = r.random() < 0.05
        self.device = r.choice([(1, 0)] * 8 + [(3, 0), (2, 0), (2, -1),
                                               (13, 0), (99, 5), (1, 7)])

        # the bytes it claims, where they are few enough to back
        eff = strides if strides is not None else packed
        fits = all(0 < d < 2 ** 31 for d in shape)
        extent = 0
        if fits and n:
            lo = sum((d - 1) * st for d, st in zip(shape, eff) if st < 0)
            hi = sum((d - 1) * st for d, st in zip(shape, eff) if st > 0)
            if lo == 0:
                extent = (hi + 1) * itemsize
        backed = fits and 0 < extent <= BACKING_LIMIT and \
            byte_offset <= BACKING_LIMIT
        size = (extent + byte_offset) if backed else 64
        self.backing = numpy.frombuffer(bytearray(r.randbytes(size)),
                                        dtype=numpy.uint8)
        self.huge = not backed
        if backed and code in (1, 2) and bits in (8, 16, 32) and lanes == 1:
            dt = {(1, 8): "u1", (2, 16): "f2", (2, 32): "f4"}[(code, bits)]
            try:
                self.expect = as_strided(
                    self.backing[byte_offset:].view(dt), shape,
                    [st * itemsize for st in eff])
            except OverflowError:
                # a stride past NumPy's of a dimension of 1: not read
                self.huge = True

        self.shape_array = (ctypes.c_int64 * max(n, 1))(
            *[ctypes.c_int64(d).value for d in shape])
        self.strides_array = None if strides is None else \
            (ctypes.c_int64 * max(n, 1))(
                *[ctypes.c_int64(st).value for st in strides])
        m = gstcudacache.DLManagedTensor()
        t = m.dl_tensor
        t.data = None if null_data else self.backing.ctypes.data
        t.device = gstcudacache.DLDevice(*self.device)
        t.ndim = ndim
        t.dtype = gstcudacache.DLDataType(code, bits, lanes)
        t.shape = ctypes.cast(self.shape_array,
                              ctypes.POINTER(ctypes.c_int64))
        if self.strides_array is not None:
            t.strides = ctypes.cast(self.strides_array,
                                    ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = byte_offset
        m.deleter = _fake_deleter
        _serial[0] += 1
        m.manager_ctx = self.serial = _serial[0]
        self.managed = m
        self.address = ctypes.addressof(m)
        self.null_data = null_data

    def __dlpack_device__(self):
        if self.device_call == "odd":
            return self.r.choice([None, (1,), "ab", (1, 2, 3), 5])
        if self.device_call == "cuda":
            return (gstcudacache.KDL_CUDA, 0)
        if self.device_call == "host":
            return (gstcudacache.KDL_CUDA_HOST, 0)
        return self.device

    def __dlpack__(self, stream=None):
        if self.kind == "none":
            return None
        if self.kind == "int":
            return 1234
        if self.kind == "bytes":
            return b"dltensor"
        if self.kind == "raises":
            raise ProducerError("the producer refuses")
        if self.kind == "versioned":
            m = gstcudacache.DLManagedTensorVersioned()
            self.managed = m
            self.capsule = gstcudacache._PyCapsule_New(
                ctypes.addressof(m), b"dltensor_versioned", None)
            return self.capsule
        self.capsule = gstcudacache._PyCapsule_New(self.address, b"dltensor",
                                                   None)
        return self.capsule

    def taken(self):
        return self.capsule is not None and self.kind == "tensor" and \
            gstcudacache._PyCapsule_IsValid(
                ctypes.c_void_p(id(self.capsule)), b"used_dltensor")


def strip_device_call(obj):
    """The fake, without __dlpack_device__ where the case says so"""
    if obj.device_call != "absent":
        return obj

    class NoDevice:
        def __dlpack__(self, stream=None):
            return obj.__dlpack__(stream)

    return NoDevice()


class FakeCAI:
    """An object with only a __cuda_array_interface__ of random fields"""

    def __init__(self, r):
        self.r = r
        self.absent = r.random() < 0.05
        if r.random() < 0.1:
            self.cai = r.choice([None, 5, "x", [], ()])
            return
        cai = {"version": r.choice([3, 3, 2, 0, "3", None]),
               "shape": r.choice([(4, 5, 3), (1, 3, 4, 4), (2, 2, 1),
                                  (), (0, 4, 3), (2 ** 64 + 4, 5, 3),
                                  (-4, 5, 3), (2 ** 31, 1, 1),
                                  ("4", 5, 3), (None,), 7, "abc",
                                  (4.5, 2, 3)]),
               "typestr": r.choice(["|u1", "<f4", "<f2", ">f4", "", "<",
                                    "|", "<f8", 5, None, "<u1x", b"|u1"]),
               "data": r.choice([(0x1000, True), (0, False), (0x1000,),
                                 None, 0x1000, (-1, True), (2 ** 64, True),
                                 ("x", True)]),
               "strides": r.choice([None, None, (15, 3, 1), (60, 12, 4),
                                    (3, 1), (-15, 3, 1), (2 ** 70, 3, 1),
                                    5, "ab", (1.5, 1, 1), (16, 4, 2, 1),
                                    (7, 3, 1)]),
               "stream": r.choice([None, None, 1, 2, 0, 5, -1, "s", 2 ** 64]),
               }
        if r.random() < 0.1:
            cai["mask"] = r.choice([None, object()])
        for key in list(cai):
            if r.random() < 0.05:
                del cai[key]
        self.cai = cai

    @property
    def __cuda_array_interface__(self):
        if self.absent:
            raise AttributeError("no interface after all")
        return self.cai


# ------------------------------------------------------------ checking

def caps_info(caps):
    s = caps.get_structure(0)
    return s.get_name(), s


def mapped(buf):
    ok, info = buf.map(Gst.MapFlags.READ)
    if not ok:
        raise Failure("the buffer does not map")
    try:
        data = numpy.frombuffer(info.data, dtype=numpy.uint8)
        return data.ctypes.data, data.copy()
    finally:
        buf.unmap(info)


def expected_layout(a):
    """(caps name, its fields) to_buffer must give for @a"""
    if a.ndim == 3 and a.dtype == numpy.uint8:
        return "video/x-raw", {"format": {1: "GRAY8", 3: "RGB",
                                          4: "RGBA"}[a.shape[2]],
                               "width": a.shape[1], "height": a.shape[0]}
    types = {numpy.dtype("u1"): "uint8", numpy.dtype("f2"): "float16",
             numpy.dtype("f4"): "float32"}[a.dtype]
    n, c = a.shape[0], a.shape[1]
    if c in (1, 3):
        dims = f"{a.shape[3]}:{a.shape[2]}:{c}:{n}"
        layout = "NCHW"
    else:
        dims = f"{a.shape[3]}:{a.shape[2]}:{a.shape[1]}:{n}"
        layout = "NHWC"
    return "other/tensors", {"types": types, "dimensions": dims,
                             "layout": layout}


def check_buffer(buf, caps, a, read, address=None):
    """@buf and @caps hold @a (a NumPy view of the producer's memory)"""
    name, s = caps_info(caps)
    want_name, fields = expected_layout(a)
    if name != want_name:
        raise Failure(f"caps {caps.to_string()} for a {a.dtype}{a.shape}")
    for key, value in fields.items():
        got = s.get_value(key)
        if got != value:
            raise Failure(f"caps {caps.to_string()}: {key} is {got!r}, "
                          f"not {value!r}")
    itemsize = a.dtype.itemsize
    if name == "video/x-raw":
        h, w, c = a.shape
        meta = GstVideo.buffer_get_video_meta(buf)
        if meta is None:
            raise Failure("a frame without a video meta")
        stride = meta.stride[0]
        want_stride = a.strides[0] if h > 1 and read else stride
        if stride != want_stride or stride < w * c:
            raise Failure(f"video meta stride {stride}, the array's "
                          f"{a.strides[0]}")
        if buf.get_size() != stride * (h - 1) + w * c:
            raise Failure(f"a frame of {buf.get_size()} bytes, rows "
                          f"{stride} apart")
    else:
        if buf.get_size() != a.size * itemsize:
            raise Failure(f"a tensor of {buf.get_size()} bytes for "
                          f"{a.size} elements")
    if not read:
        return
    at, data = mapped(buf)
    if address is not None and at != address:
        raise Failure(f"copied: the buffer is at {at:#x}, the array at "
                      f"{address:#x}")
    if name == "video/x-raw":
        for row in range(a.shape[0]):
            got = data[row * stride:row * stride + w * c]
            if not same_bytes(got, a[row].reshape(-1)):
                raise Failure(f"row {row} differs")
    elif not same_bytes(data.view(a.dtype).reshape(a.shape), a):
        raise Failure("the tensor's bytes differ from the array")

    # back through the export, as a consumer reads it
    back = numpy.from_dlpack(gstcudacache.Tensor(buf, caps))
    if back.size != a.size or not same_bytes(back.reshape(a.shape), a):
        raise Failure(f"Tensor(buffer, caps) gives {back.dtype}{back.shape}"
                      f", not the array {a.dtype}{a.shape}")
    del back
    if name == "other/tensors":
        back = numpy.from_dlpack(gstcudacache.Tensor(buf))
        if not same_bytes(back, a):
            raise Failure("Tensor(buffer) (its tensor meta) differs")


def expect_refusal(e, allowed):
    if not isinstance(e, allowed):
        raise Failure(f"{type(e).__name__}: {e}") from e
    if not str(e):
        raise Failure(f"{type(e).__name__} without a message") from e


def run_case(seed):
    """One case; returns what it was, raises Failure saying what it was"""
    what = [""]
    try:
        return _run_case(seed, what)
    except Failure as e:
        raise Failure(f"{e}\n  case: {what[0]}") from e


def _run_case(seed, described):
    r = random.Random(seed)
    kind = r.choice(["array"] * 6 + ["dlpack"] * 3 + ["cai"])
    if kind == "array":
        a = random_array(r)
        what = (f"array {a.dtype.str}{a.shape} strides {a.strides} "
                f"writeable={a.flags.writeable}")
        described[0] = what
        try:
            buf, caps = gstcudacache.to_buffer(a)
        except Exception as e:
            expect_refusal(e, ValueError)
            return what, f"refused: {e}"
        check_buffer(buf, caps, a, read=True,
                     address=a.__array_interface__["data"][0])
        return what, "taken"

    if kind == "dlpack":
        fake = FakeDLPack(r)
        obj = strip_device_call(fake)
        what = f"dlpack {fake.kind} device {fake.device}/{fake.device_call}"
        if fake.managed is not None and fake.kind == "tensor":
            t = fake.managed.dl_tensor
            strides = fake.strides_array
            what += (f" ndim {t.ndim} dtype {t.dtype.code}:{t.dtype.bits}:"
                     f"{t.dtype.lanes} shape {list(fake.shape_array)} "
                     f"strides {strides and list(strides)} "
                     f"offset {t.byte_offset} null={fake.null_data}")
        described[0] = what
        outcome = "taken"
        try:
            buf, caps = gstcudacache.to_buffer(obj)
        except ProducerError:
            outcome = "the producer's error"
            buf = None
        except Exception as e:
            expect_refusal(e, (ValueError, TypeError))
            outcome = f"refused: {e}"
            buf = None
        if buf is not None:
            if fake.expect is None:
                if not fake.huge:
                    raise Failure("taken, but not a frame or tensor")
                # claimed more than is backed: described, never read
                t = fake.managed.dl_tensor
                dt = {(1, 8): "u1", (2, 16): "f2", (2, 32): "f4"}[
                    (t.dtype.code, t.dtype.bits)]
                check_buffer(buf, caps, as_strided(
                    numpy.zeros(1, dt), fake.shape_array[:t.ndim],
                    [0] * t.ndim), read=False)
            else:
                check_buffer(buf, caps, fake.expect, read=True)
            del buf, caps
            gc.collect()
        if fake.kind == "tensor":
            count = _deleted.pop(fake.serial, 0)
            if fake.taken() and count != 1:
                raise Failure(f"deleter called {count} times")
            if not fake.taken() and count:
                raise Failure("deleter called on a tensor not taken")
        return what, outcome

    fake = FakeCAI(r)
    what = f"cai {fake.cai!r}"
    described[0] = what
    try:
        gstcudacache.to_buffer(fake)
    except Exception as e:
        expect_refusal(e, (ValueError, TypeError))
        return what, f"refused: {e}"
    raise Failure("a __cuda_array_interface__ taken without CUDA")


def corpus_seeds(path):
    seeds = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    seeds.append(int(line, 0))
    return seeds


def one(seed, per_call, verbose):
    faulthandler.dump_traceback_later(per_call, exit=True)
    try:
        what, outcome = run_case(seed)
    except Exception as e:
        # a Failure, or an exception no case should raise (the library's,
        # or a check's over what the library took): either way the seed
        # is printed and the run goes on
        faulthandler.cancel_dump_traceback_later()
        print(f"FAIL seed {seed}: {type(e).__name__}: {e}")
        traceback.print_exc()
        print(f"  reproduce: {sys.argv[0]} --replay {seed} -v")
        return False
    faulthandler.cancel_dump_traceback_later()
    if verbose:
        print(f"seed {seed}: {what}: {outcome}")
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=54)
    p.add_argument("--iterations", type=int, default=3000)
    p.add_argument("--time", type=float, default=0,
                   help="stop after this many seconds (0: no bound)")
    p.add_argument("--per-call", type=float, default=20,
                   help="seconds one case may take before the run fails")
    p.add_argument("--corpus", default=os.path.join(HERE, "corpus.txt"))
    p.add_argument("--replay", type=int, action="append", default=[],
                   help="run only this case seed (repeatable)")
    p.add_argument("--atheris", action="store_true",
                   help="let Atheris choose the case seeds")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()

    if args.atheris:
        import atheris

        def test_one(data):
            if not one(int.from_bytes(data[:8] or b"\0", "little"),
                       args.per_call, args.verbose):
                raise RuntimeError("failure")
        atheris.Setup(sys.argv[:1], test_one)
        atheris.Fuzz()
        return 0

    seeds = args.replay or corpus_seeds(args.corpus)
    failures = 0
    for seed in seeds:
        failures += not one(seed, args.per_call, args.verbose)
    ran = len(seeds)
    start = time.monotonic()
    if not args.replay:
        master = random.Random(args.seed)
        for i in range(args.iterations):
            if args.time and time.monotonic() - start > args.time:
                break
            failures += not one(master.getrandbits(63), args.per_call,
                                args.verbose)
            ran += 1
            if i % 500 == 499:
                gc.collect()
    print(f"fuzz_to_buffer: {ran} cases ({len(seeds)} from the corpus), "
          f"seed {args.seed}, {time.monotonic() - start:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
