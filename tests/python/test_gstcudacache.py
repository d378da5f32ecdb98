# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""The library from Python: the typelib through PyGObject, the cache's limit,
statistics and clearing, the tensor meta, and DLPack export to NumPy on
system memory (no GPU needed).

Prints gst-check's "Checks: N, Failures: F, Errors: E" so that
scripts/summarize-tests.py counts each case; exits 77 (skipped) where
PyGObject, GStreamer's Python overrides or NumPy are missing.
"""

import ctypes
import gc
import os
import sys
import traceback
import unittest
import weakref

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCudaCache", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstCudaCache, GstVideo
    import numpy
    from numpy.lib.stride_tricks import as_strided
except (ImportError, ValueError) as e:
    print(f"skipped: {e} (install python3-gi, python3-gst-1.0, python3-numpy)")
    sys.exit(77)

if not hasattr(numpy, "from_dlpack"):
    print(f"skipped: NumPy {numpy.__version__} has no from_dlpack")
    sys.exit(77)

import gstcudacache

Gst.init(None)

W, H = 16, 10
GLOBAL = GstCudaCache.CudaCacheScope.GLOBAL
THREAD = GstCudaCache.CudaCacheScope.THREAD


def stats(cache, scope=GLOBAL):
    return cache.get_stats(scope)


def mapped_address(buffer):
    """The address of the buffer's memory and its bytes, as NumPy sees them."""
    ok, info = buffer.map(Gst.MapFlags.READ)
    assert ok
    try:
        data = numpy.frombuffer(info.data, dtype=numpy.uint8)
        return data.ctypes.data, data.copy()
    finally:
        buffer.unmap(info)


class Pipeline:
    """A parsed pipeline with named appsinks, pulled from by name."""

    def __init__(self, description):
        self.pipeline = Gst.parse_launch(description)
        self.pipeline.set_state(Gst.State.PLAYING)

    def pull(self, name):
        sink = self.pipeline.get_by_name(name)
        sample = sink.emit("pull-sample")
        assert sample is not None, f"{name} got no sample"
        return sample

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)
        self.pipeline = None
        gc.collect()


def tensor_caps(types="float32", layout="NCHW", dims=None):
    if dims is None:
        dims = f"{W}:{H}:3:1" if layout == "NCHW" else f"3:{W}:{H}:1"
    return (f"other/tensors,format=static,num_tensors=1,types={types},"
            f"dimensions={dims},layout={layout}")


SINK = "appsink sync=false enable-last-sample=false max-buffers=4"


class Introspection(unittest.TestCase):
    def test_typelib_loads(self):
        self.assertEqual(GstCudaCache.CudaCache.__gtype__.name, "GstCudaCache")
        self.assertTrue(GstCudaCache.CudaCacheSystemPool.__gtype__.is_a(
            Gst.BufferPool.__gtype__))
        self.assertTrue(GstCudaCache.CudaCachePool.__gtype__.is_a(
            Gst.BufferPool.__gtype__))
        self.assertIsNotNone(GstCudaCache.cuda_cache_tensor_meta_get_info())

    def test_device_open_context_is_a_function(self):
        # a function, not a constructor: None where there is no such device
        ctx = GstCudaCache.CudaCache.device_open_context(0)
        if GstCudaCache.CudaCache.device_get_count() == 0:
            self.assertIsNone(ctx)
        else:
            self.assertEqual(ctx.get_property("cuda-device-id"), 0)
        self.assertIsNone(GstCudaCache.CudaCache.device_open_context(4096))

    def test_system_pool_and_cache(self):
        cache = GstCudaCache.CudaCache.get_system()
        pool = GstCudaCache.CudaCacheSystemPool.new(None)
        self.assertEqual(pool.get_cache(), cache)
        own = GstCudaCache.CudaCache.new(
            1 << 30, GstCudaCache.CudaCacheFlags(0))
        pool = GstCudaCache.CudaCacheSystemPool.new(own)
        self.assertEqual(pool.get_cache(), own)

        # a pool's buffers come from its cache
        caps = Gst.Caps.from_string(f"video/x-raw,format=RGBA,width={W},"
                                    f"height={H}")
        config = pool.get_config()
        Gst.BufferPool.config_set_params(config, caps, W * H * 4, 2, 0)
        self.assertTrue(pool.set_config(config))
        self.assertTrue(pool.set_active(True))
        ret, buf = pool.acquire_buffer(None)
        self.assertEqual(ret, Gst.FlowReturn.OK)
        self.assertTrue(own.owns_memory(buf.peek_memory(0)))
        self.assertGreaterEqual(stats(own).used_blocks, 1)
        del buf
        self.assertTrue(pool.set_active(False))
        del pool
        gc.collect()
        self.assertEqual(stats(own).used_blocks, 0)
        self.assertGreaterEqual(stats(own).idle_blocks, 2)

    def test_limit_stats_clear(self):
        cache = GstCudaCache.CudaCache.new(
            1 << 30, GstCudaCache.CudaCacheFlags(0))
        self.assertEqual(cache.get_device_memory(), 1 << 30)
        self.assertEqual(cache.get_limit(), 1 << 29)
        limit = 1 << 28
        cache.set_limit(limit)
        self.assertEqual(cache.get_limit(), 1 << 28)
        self.assertEqual(stats(cache).cache_limit, 1 << 28)

        pool = GstCudaCache.CudaCacheSystemPool.new(cache)
        caps = Gst.Caps.from_string(f"video/x-raw,format=RGBA,width={W},"
                                    f"height={H}")
        config = pool.get_config()
        Gst.BufferPool.config_set_params(config, caps, W * H * 4, 3, 0)
        pool.set_config(config)
        pool.set_active(True)
        pool.set_active(False)
        del pool
        gc.collect()

        s = stats(cache)
        self.assertEqual(s.misses, 3)
        self.assertEqual(s.idle_blocks, 3)
        self.assertEqual(s.current_size, s.idle_bytes)
        # this thread made the blocks: its share is the whole
        t = stats(cache, THREAD)
        self.assertEqual(t.misses, 3)
        structure = s.to_structure("stats")
        self.assertEqual(structure.get_value("idle-blocks"), 3)
        self.assertEqual(structure.get_value("cache-limit"), 1 << 28)

        # a lower limit trims at once
        cache.set_limit(s.idle_bytes // 3)
        s = stats(cache)
        self.assertEqual(s.idle_blocks, 1)
        self.assertEqual(s.evictions, 2)

        freed = cache.clear(GLOBAL)
        self.assertGreater(freed, 0)
        s = stats(cache)
        self.assertEqual(s.idle_blocks, 0)
        self.assertEqual(s.current_size, 0)

    def test_tensor_info_and_meta(self):
        # the enums' value names are the names caps give
        dtype = GstCudaCache.CudaCacheTensorDType.FLOAT32
        self.assertEqual(dtype.value_nick, "float32")
        layout = GstCudaCache.CudaCacheTensorLayout.NHWC
        self.assertEqual(layout.value_nick.upper(), "NHWC")
        ok, info = GstCudaCache.cuda_cache_tensor_info_init(dtype, layout, 1,
                                                            3, H, W)
        self.assertTrue(ok)
        self.assertEqual(list(info.dims), [1, H, W, 3])
        self.assertEqual(info.size, H * W * 3 * 4)
        self.assertEqual(info.get_channels(), 3)
        self.assertEqual(info.to_caps().to_string(), Gst.Caps.from_string(
            tensor_caps(layout="NHWC")).to_string())

        buf = Gst.Buffer.new_allocate(None, info.size, None)
        GstCudaCache.buffer_add_cuda_cache_tensor_meta(buf, info)
        meta = GstCudaCache.buffer_get_cuda_cache_tensor_meta(buf)
        self.assertTrue(meta.info.is_equal(info))
        self.assertEqual(list(meta.info.strides), [H * W * 12, W * 12, 12, 4])


class DLPack(unittest.TestCase):
    def test_numpy_reads_tensor_in_place(self):
        # the same frame as RGB and as the element's tensor
        p = Pipeline(
            f"videotestsrc num-buffers=2 pattern=smpte ! "
            f"video/x-raw,format=RGB,width={W},height={H} ! tee name=t "
            f"t. ! queue ! {SINK} name=rgb "
            f"t. ! queue ! cudacacheconvert scale=0.5 ! {tensor_caps()} ! "
            f"{SINK} name=tensor")
        rgb = p.pull("rgb")
        sample = p.pull("tensor")
        buf = sample.get_buffer()
        address, raw = mapped_address(buf)

        array = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample))
        self.assertEqual(array.shape, (1, 3, H, W))
        self.assertEqual(array.dtype, numpy.float32)
        self.assertEqual(array.ctypes.data, address)
        # the bytes the element wrote...
        numpy.testing.assert_array_equal(array.ravel(),
                                         raw.view(numpy.float32))
        # ...which are the frame's, scaled
        frame = numpy.frombuffer(mapped_address(rgb.get_buffer())[1],
                                 dtype=numpy.uint8)
        stride = (W * 3 + 3) & ~3
        frame = frame[:stride * H].reshape(H, stride)[:, :W * 3]
        expected = frame.reshape(H, W, 3).transpose(2, 0, 1) * 0.5
        numpy.testing.assert_allclose(array[0], expected)
        del array, sample, buf
        p.stop()

    def test_nhwc_uint8_and_float16(self):
        p = Pipeline(
            f"videotestsrc num-buffers=1 ! video/x-raw,width={W},height={H} ! "
            f"cudacacheconvert ! {tensor_caps('uint8', 'NHWC')} ! {SINK} "
            f"name=u8")
        sample = p.pull("u8")
        t = gstcudacache.Tensor.from_sample(sample)
        self.assertEqual(t.dtype, "uint8")
        self.assertEqual(t.shape, (1, H, W, 3))
        self.assertEqual(t.strides, (H * W * 3, W * 3, 3, 1))
        self.assertEqual(t.__dlpack_device__(), (gstcudacache.KDL_CPU, 0))
        array = numpy.from_dlpack(t)
        self.assertEqual(array.shape, (1, H, W, 3))
        # one Tensor, one consumer
        with self.assertRaises(BufferError):
            numpy.from_dlpack(t)
        del array, sample
        p.stop()

        p = Pipeline(
            f"videotestsrc num-buffers=1 ! video/x-raw,width={W},height={H} ! "
            f"cudacacheconvert ! {tensor_caps('float16')} ! {SINK} name=f16")
        sample = p.pull("f16")
        array = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample))
        self.assertEqual(array.dtype, numpy.float16)
        self.assertEqual(array.shape, (1, 3, H, W))
        self.assertEqual(float(array.max()), 255.0)
        del array, sample
        p.stop()

    def test_buffer_returns_to_cache_after_array(self):
        cache = GstCudaCache.CudaCache.get_system()
        cache.clear(GLOBAL)
        p = Pipeline(
            f"videotestsrc num-buffers=3 ! video/x-raw,width={W},height={H} ! "
            f"cudacacheconvert ! {tensor_caps()} ! {SINK} name=tensor")
        sample = p.pull("tensor")
        size = sample.get_buffer().get_size()
        array = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample))
        del sample
        p.stop()
        gc.collect()

        # the array still holds its buffer, and the buffer its block
        held = stats(cache)
        self.assertGreaterEqual(held.used_blocks, 1)
        self.assertGreaterEqual(held.used_bytes, size)
        self.assertEqual(float(array[0, 0, 0, 0]), float(array[0, 0, 0, 0]))

        del array
        gc.collect()
        done = stats(cache)
        self.assertEqual(done.used_blocks, 0)
        self.assertEqual(done.used_bytes, 0)
        self.assertEqual(done.idle_blocks, held.idle_blocks + held.used_blocks)

    def test_unconsumed_tensor_releases_buffer(self):
        buf = Gst.Buffer.new_allocate(None, W * H * 4, None)
        caps = Gst.Caps.from_string(
            f"video/x-raw,format=RGBA,width={W},height={H}")
        # PyGObject's own references vary: count from theirs
        base = buf.mini_object.refcount
        t = gstcudacache.Tensor(buf, caps)
        self.assertEqual(buf.mini_object.refcount, base + 1)
        t.close()
        self.assertEqual(buf.mini_object.refcount, base)
        t = gstcudacache.Tensor(buf, caps)
        capsule = t.__dlpack__()
        del t
        self.assertEqual(buf.mini_object.refcount, base + 1)
        # a capsule no consumer took releases its export when freed
        del capsule
        self.assertEqual(buf.mini_object.refcount, base)

    def test_versioned_dlpack_and_cuda_array_interface(self):
        buf = Gst.Buffer.new_allocate(None, W * H * 4, None)
        caps = Gst.Caps.from_string(
            f"video/x-raw,format=RGBA,width={W},height={H}")
        name = ctypes.pythonapi["PyCapsule_GetName"]
        name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get = ctypes.pythonapi["PyCapsule_GetPointer"]
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        set_name = ctypes.pythonapi["PyCapsule_SetName"]
        set_name.restype = ctypes.c_int
        set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
        base = buf.mini_object.refcount
        address, _ = mapped_address(buf)

        # a consumer of DLPack 1.x gets the versioned struct, read-only
        t = gstcudacache.Tensor(buf, caps)
        self.assertFalse(hasattr(t, "__cuda_array_interface__"))
        capsule = t.__dlpack__(max_version=(1, 2))
        del t
        self.assertEqual(name(capsule), b"dltensor_versioned")
        managed = gstcudacache.DLManagedTensorVersioned.from_address(
            get(capsule, b"dltensor_versioned"))
        self.assertEqual((managed.version.major, managed.version.minor),
                         (1, 0))
        self.assertTrue(managed.flags & gstcudacache.FLAG_READ_ONLY)
        dl = managed.dl_tensor
        self.assertEqual(tuple(dl.shape[i] for i in range(dl.ndim)),
                         (H, W, 4))
        self.assertEqual(dl.data + dl.byte_offset, address)
        self.assertEqual(buf.mini_object.refcount, base + 1)
        # taken by a consumer, which renames it and runs the deleter (the
        # capsule keeps the name's pointer: the name outlives it)
        used = b"used_dltensor_versioned"
        self.assertEqual(set_name(capsule, used), 0)
        managed.deleter(ctypes.cast(ctypes.addressof(managed),
                                    ctypes.POINTER(
                                        gstcudacache.DLManagedTensorVersioned)))
        self.assertEqual(buf.mini_object.refcount, base)
        del managed, capsule
        self.assertEqual(buf.mini_object.refcount, base)

        # one nobody took releases its export when freed
        capsule = gstcudacache.Tensor(buf, caps).__dlpack__(max_version=(1, 0))
        self.assertEqual(buf.mini_object.refcount, base + 1)
        del capsule
        self.assertEqual(buf.mini_object.refcount, base)

        # older consumers get DLPack 0.x's; system memory takes no stream
        t = gstcudacache.Tensor(buf, caps)
        with self.assertRaises(BufferError):
            t.__dlpack__(stream=1)
        capsule = t.__dlpack__(max_version=(0, 8))
        self.assertEqual(name(capsule), b"dltensor")
        del capsule, t
        self.assertEqual(buf.mini_object.refcount, base)
        if int(numpy.__version__.split(".")[0]) >= 2:
            array = numpy.from_dlpack(gstcudacache.Tensor(buf, caps))
            self.assertFalse(array.flags.writeable)

    def test_arrays_into_a_pipeline(self):
        # a NumPy frame into appsrc, through the element, back as NumPy
        frame = numpy.random.default_rng(29).integers(
            0, 256, (H, W, 3), dtype=numpy.uint8)
        alive = weakref.ref(frame.base if frame.base is not None else frame)
        buf, caps = gstcudacache.to_buffer(frame)
        self.assertEqual(caps.get_structure(0).get_string("format"), "RGB")
        address, data = mapped_address(buf)
        self.assertEqual(address, frame.ctypes.data)
        del frame
        gc.collect()
        self.assertIsNotNone(alive())
        p = Pipeline(
            f"appsrc name=src format=time ! cudacacheconvert ! "
            f"video/x-raw,format=RGBA,width={W},height={H} ! {SINK} name=out")
        src = p.pipeline.get_by_name("src")
        src.set_property("caps", caps)
        self.assertEqual(src.emit("push-buffer", buf), Gst.FlowReturn.OK)
        src.emit("end-of-stream")
        sample = p.pull("out")
        out = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample))
        self.assertTrue(numpy.array_equal(out[:, :, :3],
                                          data.reshape(H, W, 3)))
        del out, sample, buf, src
        p.stop()
        gc.collect()
        # the buffer was the array's last holder
        self.assertIsNone(alive())

        # a packed 4-D array is a tensor, in the layout its channels say
        for shape, layout, dims in [((1, 3, 4, 5), "NCHW", "5:4:3:1"),
                                    ((2, 4, 5, 3), "NHWC", "3:5:4:2")]:
            t = numpy.arange(numpy.prod(shape), dtype=numpy.float32)
            t = t.reshape(shape)
            buf, caps = gstcudacache.to_buffer(t)
            s = caps.get_structure(0)
            self.assertEqual((s.get_name(), s.get_string("layout"),
                              s.get_string("dimensions"),
                              s.get_string("types")),
                             ("other/tensors", layout, dims, "float32"))
            back = numpy.from_dlpack(gstcudacache.Tensor(buf, caps))
            self.assertTrue(numpy.array_equal(back, t))

        # what cannot be described is refused, saying why
        for array, says in [
                (numpy.zeros((4, 4), numpy.float64), "2 dimensions"),
                (numpy.zeros((4, 4, 5), numpy.uint8), "1, 3 or 4"),
                (numpy.zeros((1, 3, 4, 4), numpy.int16), "not int16"),
                (numpy.zeros((1, 5, 4, 4), numpy.float32), "1 or 3 channels"),
                (numpy.zeros((4, 8, 3), numpy.uint8)[:, ::2],
                 "not packed in its rows"),
                (numpy.zeros((1, 3, 4, 8), numpy.uint8)[..., ::2],
                 "not packed"),
                # what a GstVideoMeta cannot describe: rows 2 GiB apart, a
                # frame of 16 GiB (views only: nothing is read)
                (as_strided(numpy.zeros(8, numpy.uint8), (2, 1, 3),
                            (2 ** 31, 3, 1)), "2147483648 bytes apart"),
                (as_strided(numpy.zeros(8, numpy.uint8), (65536, 65536, 4),
                            (262144, 4, 1)), "cannot lay out")]:
            with self.assertRaises(ValueError) as cm:
                gstcudacache.to_buffer(array)
            self.assertIn(says, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            gstcudacache.to_buffer([1, 2, 3])
        self.assertIn("neither __dlpack__ nor __cuda_array_interface__",
                      str(cm.exception))

    def test_cuda_array_interface_refusals_say_why(self):
        # an object with only __cuda_array_interface__: what it cannot
        # describe is refused, saying why, before any device is touched
        class Interface:
            def __init__(self, **fields):
                self.__cuda_array_interface__ = dict(
                    {"version": 3, "shape": (4, 5, 3), "typestr": "|u1",
                     "data": (0x1000, True), "strides": None}, **fields)

        for fields, says in [({"typestr": "<f8"}, "'<f8'"),
                             ({"typestr": ">f4"}, "little-endian"),
                             ({"typestr": "<f4", "strides": (60, 12, 2)},
                              "not whole 4-byte elements"),
                             ({"mask": object()}, "mask"),
                             ({"data": (0, True)}, "null pointer")]:
            with self.assertRaises(ValueError) as cm:
                gstcudacache.to_buffer(Interface(**fields))
            self.assertIn(says, str(cm.exception))

    def test_to_buffer_fuzz_regressions(self):
        # what tests/fuzz/python/fuzz_to_buffer.py found (its corpus.txt):
        # NumPy's own refusals, as ValueError with NumPy's reason
        readonly = numpy.zeros((4, 5, 3), numpy.uint8)
        readonly.setflags(write=False)
        for array, says in [
                (readonly, "readonly"),
                (numpy.zeros((1, 2), ">i4"), "native byte order"),
                (numpy.zeros((4, 1, 3, 7), "S2"), "dtypes"),
                (numpy.zeros((4, 4), numpy.object_), "dtypes"),
                (numpy.zeros((1, 3, 2, 2), numpy.longdouble), "IEEE"),
                (as_strided(numpy.zeros(64, numpy.uint8).view(numpy.float16),
                            (2, 3, 3, 1), (9, 6, 2, 2)), "multiple")]:
            with self.assertRaises(ValueError) as cm:
                gstcudacache.to_buffer(array)
            self.assertIn(says, str(cm.exception))

        # Array Interface fields missing or of no sense: ValueError, before
        # any CUDA driver is asked (none here)
        class Interface:
            def __init__(self, cai):
                self.__cuda_array_interface__ = cai

        good = {"version": 3, "shape": (4, 5, 3), "typestr": "|u1",
                "data": (0x1000, True), "strides": None}
        for change, says in [
                ({"typestr": ""}, "typestr ''"),
                ({"shape": None}, "no shape"),
                ({"typestr": None}, "no typestr"),
                ({"data": None}, "no data"),
                ({"shape": (2 ** 64 + 4, 5, 3)}, "out of range"),
                ({"shape": (-4, 5, 3)}, "out of range"),
                ({"shape": ("4", 5, 3)}, "not a tuple of integers"),
                ({"data": (0x1000,)}, "(pointer, read-only)"),
                ({"data": (-1, True)}, "out of range"),
                ({"strides": (3, 1)}, "one a dimension"),
                ({"stream": "s"}, "stream"),
                ({"stream": 5}, "no CUDA driver" if not os.path.exists(
                    "/dev/nvidiactl") else "stream")]:
            cai = dict(good, **change)
            cai = {k: v for k, v in cai.items() if v is not None or
                   k not in change or k == "strides"}
            with self.assertRaises(ValueError) as cm:
                gstcudacache.to_buffer(Interface(cai))
            self.assertIn(says, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            gstcudacache.to_buffer(Interface(5))
        self.assertIn("not a dict", str(cm.exception))

        # a producer's __dlpack_device__ of no sense
        class Device:
            def __dlpack_device__(self):
                return None

            def __dlpack__(self, stream=None):
                raise AssertionError("asked for its tensor")

        with self.assertRaises(ValueError) as cm:
            gstcudacache.to_buffer(Device())
        self.assertIn("__dlpack_device__ gave None", str(cm.exception))

    def test_video_frames(self):
        p = Pipeline(
            f"videotestsrc num-buffers=1 pattern=ball ! "
            f"video/x-raw,format=RGBA,width={W},height={H} ! {SINK} name=rgba")
        sample = p.pull("rgba")
        address, raw = mapped_address(sample.get_buffer())
        array = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample))
        self.assertEqual(array.shape, (H, W, 4))
        self.assertEqual(array.ctypes.data, address)
        numpy.testing.assert_array_equal(array.ravel(), raw)
        del array, sample
        p.stop()

        p = Pipeline(
            f"videotestsrc num-buffers=1 ! "
            f"video/x-raw,format=NV12,width={W},height={H} ! {SINK} name=nv12")
        sample = p.pull("nv12")
        address, raw = mapped_address(sample.get_buffer())
        luma = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample, 0))
        chroma = numpy.from_dlpack(gstcudacache.Tensor.from_sample(sample, 1))
        self.assertEqual(luma.shape, (H, W, 1))
        self.assertEqual(chroma.shape, (H // 2, W // 2, 2))
        self.assertEqual(luma.ctypes.data, address)
        numpy.testing.assert_array_equal(luma.ravel(), raw[:W * H])
        numpy.testing.assert_array_equal(chroma.ravel(),
                                         raw[W * H:W * H * 3 // 2])
        # two planes are no one HWC block; NV12 has no third plane
        with self.assertRaises(ValueError):
            gstcudacache.Tensor.from_sample(sample)
        with self.assertRaises(ValueError):
            gstcudacache.Tensor.from_sample(sample, 2)
        del luma, chroma, sample
        p.stop()

        # YUY2's luma and chroma have different pixel strides
        buf = Gst.Buffer.new_allocate(None, W * H * 2, None)
        base = buf.mini_object.refcount
        caps = Gst.Caps.from_string(
            f"video/x-raw,format=YUY2,width={W},height={H}")
        with self.assertRaises(ValueError):
            gstcudacache.Tensor(buf, caps)
        self.assertEqual(buf.mini_object.refcount, base)

    def test_picture_meta_maps_a_box_back(self):
        # a 1280x720 frame letterboxed into a 640x640 tensor: the picture
        # is 640x360 at y 140, and a box found in the tensor maps back
        p = Pipeline(
            "videotestsrc num-buffers=1 ! "
            "video/x-raw,format=RGBA,width=1280,height=720 ! "
            "cudacacheconvert letterbox=true fill-value=114 ! "
            f"{tensor_caps('uint8', 'NHWC', '3:640:640:1')} ! {SINK} name=t")
        buf = p.pull("t").get_buffer()
        meta = GstCudaCache.buffer_get_cuda_cache_picture_meta(buf)
        self.assertIsNotNone(meta)
        r = meta.geometry.picture
        self.assertEqual((r.x, r.y, r.w, r.h), (0, 140, 640, 360))
        self.assertEqual((meta.geometry.source_width,
                          meta.geometry.source_height), (1280, 720))
        self.assertAlmostEqual(meta.geometry.scale_x, 0.5)
        self.assertAlmostEqual(meta.geometry.scale_y, 0.5)
        # a detection's box in the tensor, to the frame: clipped at the bars
        ok, x0, y0, x1, y1 = meta.geometry.box_to_source(100, 100, 300, 240)
        self.assertTrue(ok)
        self.assertEqual((x0, y0, x1, y1), (200.0, 0.0, 600.0, 200.0))
        self.assertEqual(meta.geometry.from_source(200.0, 200.0),
                         (100.0, 240.0))
        ok, *_ = meta.geometry.box_to_source(10, 10, 50, 130)
        self.assertFalse(ok)
        del meta, buf
        p.stop()

    def test_batch_meta_slots(self):
        # a batch of two slots: one a letterboxed 1280x720 frame, one
        # absent; each slot maps a box back to its own frame
        # the geometry of such a conversion, as the converter gives it
        conv = GstCudaCache.CudaCacheConverter.new(
            Gst.Caps.from_string("video/x-raw,format=RGBA,width=1280,"
                                 "height=720"),
            Gst.Caps.from_string(tensor_caps("uint8", "NHWC",
                                             "3:640:640:1")),
            None, Gst.Structure.new_from_string(
                "c, GstCudaCacheConverter.letterbox=true"))
        ok, geometry = conv.get_geometry(None)
        self.assertTrue(ok)
        frame, batch = Gst.Buffer.new(), Gst.Buffer.new()
        pmeta = GstCudaCache.buffer_add_cuda_cache_picture_meta(frame,
                                                               geometry)
        self.assertEqual(pmeta.geometry.picture.y, 140)
        meta = GstCudaCache.buffer_add_cuda_cache_batch_meta(batch, 2)
        self.assertEqual(meta.n_slots, 2)
        self.assertTrue(meta.set_slot(0, "sink_0", "stream-a",
                                      40 * Gst.MSECOND, 20 * Gst.MSECOND,
                                      geometry, -1))
        self.assertFalse(meta.set_slot(2, "sink_2", None, 0, 0, geometry,
                                       -1))
        slot = GstCudaCache.buffer_get_cuda_cache_batch_meta(batch) \
            .get_slot(0)
        self.assertTrue(slot.present)
        self.assertEqual((slot.pad_name, slot.stream_id),
                         ("sink_0", "stream-a"))
        self.assertEqual((slot.pts, slot.duration),
                         (40 * Gst.MSECOND, 20 * Gst.MSECOND))
        self.assertEqual(slot.roi_id, -1)
        self.assertEqual(slot.geometry.box_to_source(100, 100, 300, 240),
                         (True, 200.0, 0.0, 600.0, 200.0))
        absent = meta.get_slot(1)
        self.assertFalse(absent.present)
        self.assertFalse(absent.geometry.box_to_source(0, 0, 640, 640)[0])
        self.assertIsNone(meta.get_slot(2))
        del slot, absent, meta, pmeta, frame, batch, geometry, conv

    def test_picture_meta_follows_videoscale(self):
        # a downstream videoscale scales the picture's rectangle and scale,
        # the source stays
        p = Pipeline(
            "videotestsrc num-buffers=1 ! "
            "video/x-raw,format=RGBA,width=1280,height=720 ! "
            "cudacacheconvert letterbox=true ! "
            "video/x-raw,width=640,height=640 ! videoscale ! "
            f"video/x-raw,width=320,height=320 ! {SINK} name=t")
        buf = p.pull("t").get_buffer()
        meta = GstCudaCache.buffer_get_cuda_cache_picture_meta(buf)
        self.assertIsNotNone(meta)
        r = meta.geometry.picture
        self.assertEqual((r.x, r.y, r.w, r.h), (0, 70, 320, 180))
        self.assertAlmostEqual(meta.geometry.scale_x, 0.25)
        self.assertEqual((meta.geometry.source.w, meta.geometry.source.h),
                         (1280, 720))
        ok, x0, y0, x1, y1 = meta.geometry.box_to_source(0, 70, 320, 250)
        self.assertEqual((x0, y0, x1, y1), (0.0, 0.0, 1280.0, 720.0))
        del meta, buf
        p.stop()

    def test_letterbox_is_ultralytics_geometry(self):
        # Ultralytics' LetterBox (center=True, scaleup=True, auto=False),
        # its own arithmetic, Python's round included, over a seeded
        # matrix of sizes both ways, odd ones and extreme factors
        import random
        rng = random.Random(27)
        sizes = [(1280, 720, 640, 640), (720, 1280, 640, 640),
                 (1, 1, 640, 640), (1920, 1080, 1, 1), (4000, 3, 7, 640),
                 # a picture size at .5: Python rounds half to even
                 (2, 3, 3, 8), (3, 2, 8, 3), (2, 5, 3, 9)]
        sizes += [(rng.randint(1, 4000), rng.randint(1, 4000),
                   rng.randint(1, 2000), rng.randint(1, 2000))
                  for _ in range(300)]
        config = Gst.Structure.new_from_string(
            "GstCudaCacheConverter.config, "
            "GstCudaCacheConverter.letterbox=true, "
            "GstCudaCacheConverter.fill-value=114")
        for in_w, in_h, out_w, out_h in sizes:
            r = min(out_h / in_h, out_w / in_w)
            new_w, new_h = int(round(in_w * r)), int(round(in_h * r))
            # no picture of 0 rows or columns (cv2.resize refuses that
            # size): the converter keeps one
            new_w, new_h = max(new_w, 1), max(new_h, 1)
            dw, dh = (out_w - new_w) / 2, (out_h - new_h) / 2
            top, left = int(round(dh - 0.1)), int(round(dw - 0.1))
            conv = GstCudaCache.CudaCacheConverter.new(
                Gst.Caps.from_string(f"video/x-raw,format=RGB,width={in_w},"
                                     f"height={in_h}"),
                Gst.Caps.from_string(tensor_caps(
                    "uint8", "NHWC", f"3:{out_w}:{out_h}:1")),
                None, config.copy())
            ok, geometry = conv.get_geometry(None)
            self.assertTrue(ok)
            rect = geometry.picture
            self.assertEqual((rect.x, rect.y, rect.w, rect.h),
                             (left, top, new_w, new_h),
                             f"{in_w}x{in_h} into {out_w}x{out_h}")

    def test_export_refusals_say_why(self):
        # the library's reason reaches the exception, not only the log
        cases = [
            ("video/x-raw,format=NV12,width=16,height=8", 192,
             gstcudacache.WHOLE, "NV12 has 2 planes: export them one at a "
             "time (plane 0 to 1)"),
            ("video/x-raw,format=I420,width=16,height=8", 192,
             gstcudacache.WHOLE, "I420 has 3 planes"),
            ("video/x-raw,format=NV12,width=16,height=8", 192, 2,
             "NV12 has no plane 2 (it has 2)"),
            ("other/tensors,format=static,num_tensors=1,types=int16,"
             "dimensions=(string)4:4:3:1", 96, gstcudacache.WHOLE,
             "types uint8, float16 or float32"),
            ("video/x-raw,format=RGBA,width=16,height=8", 100,
             gstcudacache.WHOLE, "could not be mapped as a 16x8 RGBA frame "
             "(shorter than its caps"),
            ("video/x-raw,format=YUY2,width=16,height=8", 256,
             gstcudacache.WHOLE, "plane 0 of YUY2 is no height x width x "
             "channels block"),
        ]
        for caps, size, plane, says in cases:
            buf = Gst.Buffer.new_allocate(None, size, None)
            with self.assertRaises(ValueError) as e:
                gstcudacache.Tensor(buf, Gst.Caps.from_string(caps), plane)
            self.assertIn(says, str(e.exception), caps)
        # a buffer without caps or meta: says what to give
        with self.assertRaises(ValueError) as e:
            gstcudacache.Tensor(Gst.Buffer.new_allocate(None, 16, None))
        self.assertIn("no caps were given", str(e.exception))

    def test_mean_std_take_python_ints(self):
        """mean and std from Python: a list or Gst.ValueArray of floats, or
        of ints (GObject's element spec used to refuse ints with a GLib
        warning); mixing ints and floats in one array is refused by
        GStreamer's Python overrides before the element sees it."""
        convert = Gst.ElementFactory.make("cudacacheconvert")
        for value in ([0.5, 0.25, 0.125], Gst.ValueArray([0.5, 0.25, 0.125]),
                      [1, 2, 3], Gst.ValueArray([1, 2, 3])):
            convert.set_property("mean", value)
            self.assertEqual(list(convert.get_property("mean")),
                             list(value), repr(value))
        convert.set_property("std", [2, 4, 8])
        self.assertEqual(list(convert.get_property("std")), [2.0, 4.0, 8.0])

    def test_bad_arguments_raise_value_error(self):
        # the reason comes back as a ValueError; the library raises no
        # critical (the suite runs with G_DEBUG=fatal-criticals)
        buf = Gst.Buffer.new_allocate(None, W * H * 4, None)
        base = buf.mini_object.refcount
        fixed = Gst.Caps.from_string(
            f"video/x-raw,format=RGBA,width={W},height={H}")
        for caps, reason in ((Gst.Caps.new_any(), "no frame"),
                             (Gst.Caps.new_empty(), "no frame"),
                             (Gst.Caps.from_string(
                                 "video/x-raw,format={RGBA,NV12},width=4,"
                                 "height=4"), "fixed")):
            with self.assertRaisesRegex(ValueError, reason):
                gstcudacache.Tensor(buf, caps)
        with self.assertRaises(ValueError):
            gstcudacache.Tensor(buf, Gst.Caps.from_string("video/x-raw"))
        for plane in (-2, 1.5, "0", None):
            with self.assertRaisesRegex(ValueError, "plane"):
                gstcudacache.Tensor(buf, fixed, plane)
        with self.assertRaisesRegex(ValueError, "buffer"):
            gstcudacache.Tensor(None, fixed)
        self.assertEqual(buf.mini_object.refcount, base)
        # and the good call still works on the same buffer
        array = numpy.from_dlpack(gstcudacache.Tensor(buf, fixed))
        self.assertEqual(array.shape, (H, W, 4))

    def test_frame_meta_beyond_buffer_refused(self):
        # a video meta that claims more than the buffer holds is refused,
        # not exported as an array reading past the memory
        caps = Gst.Caps.from_string("video/x-raw,format=RGBA,width=640,"
                                    "height=480")
        for size in (64, 640 * 480 * 4 - 1):
            buf = Gst.Buffer.new_allocate(None, size, None)
            GstVideo.buffer_add_video_meta(buf, GstVideo.VideoFrameFlags.NONE,
                                           GstVideo.VideoFormat.RGBA, 640, 480)
            with self.assertRaises(ValueError):
                gstcudacache.Tensor(buf, caps)
        buf = Gst.Buffer.new_allocate(None, 640 * 480 * 4, None)
        GstVideo.buffer_add_video_meta(buf, GstVideo.VideoFrameFlags.NONE,
                                       GstVideo.VideoFormat.RGBA, 640, 480)
        array = numpy.from_dlpack(gstcudacache.Tensor(buf, caps))
        self.assertEqual(array.shape, (480, 640, 4))

        # NV12 whose chroma plane is cut short
        buf = Gst.Buffer.new_allocate(None, W * H + 4, None)
        GstVideo.buffer_add_video_meta(buf, GstVideo.VideoFrameFlags.NONE,
                                       GstVideo.VideoFormat.NV12, W, H)
        caps = Gst.Caps.from_string(
            f"video/x-raw,format=NV12,width={W},height={H}")
        numpy.from_dlpack(gstcudacache.Tensor(buf, caps, 0))
        with self.assertRaises(ValueError):
            gstcudacache.Tensor(buf, caps, 1)

    def test_stale_tensor_meta_refused(self):
        # caps are authoritative: a uint8 meta exported with float32 caps
        # (an element retyped the tensor and kept the meta) is refused,
        # not exported as uint8
        ok, info = GstCudaCache.cuda_cache_tensor_info_init(
            GstCudaCache.CudaCacheTensorDType.UINT8,
            GstCudaCache.CudaCacheTensorLayout.NCHW, 1, 3, H, W)
        self.assertTrue(ok)
        buf = Gst.Buffer.new_allocate(None, W * H * 3 * 4, None)
        GstCudaCache.buffer_add_cuda_cache_tensor_meta(buf, info)
        for caps, says in (
                (tensor_caps("float32"), "float32 NCHW 1x3x10x16"),
                (tensor_caps("uint8", "NHWC"), "uint8 NHWC 1x10x16x3"),
                (f"video/x-raw,format=RGBA,width={W},height={H}",
                 "no tensor the library describes")):
            with self.assertRaises(ValueError) as e:
                gstcudacache.Tensor(buf, Gst.Caps.from_string(caps))
            self.assertIn("tensor meta (uint8 NCHW 1x3x10x16) is not what "
                          "its caps describe", str(e.exception), caps)
            self.assertIn(says, str(e.exception), caps)
        # the caps it agrees with, or none, export it
        for caps in (Gst.Caps.from_string(tensor_caps("uint8")), None):
            array = numpy.from_dlpack(gstcudacache.Tensor(buf, caps))
            self.assertEqual((array.shape, str(array.dtype)),
                             ((1, 3, H, W), "uint8"))

    def test_video_meta_smaller_than_caps_refused(self):
        # a clear ValueError, not GStreamer-Video's critical (the suite
        # runs with G_DEBUG=fatal-criticals)
        caps = Gst.Caps.from_string(
            f"video/x-raw,format=RGBA,width={W},height={H}")
        for fmt, w, h, says in (
                (GstVideo.VideoFormat.RGBA, W // 2, H, f"{W // 2}x{H} RGBA"),
                (GstVideo.VideoFormat.RGBA, W, H - 1, f"{W}x{H - 1} RGBA"),
                (GstVideo.VideoFormat.BGRA, W, H, f"{W}x{H} BGRA")):
            buf = Gst.Buffer.new_allocate(None, W * H * 4, None)
            GstVideo.buffer_add_video_meta(buf, GstVideo.VideoFrameFlags.NONE,
                                           fmt, w, h)
            with self.assertRaises(ValueError) as e:
                gstcudacache.Tensor(buf, caps)
            self.assertIn(f"video meta ({says}, 1 planes) does not hold the "
                          f"{W}x{H} RGBA frame of its caps", str(e.exception))


class ConvertBatch(unittest.TestCase):
    """The batch API from Python: each list's length goes to the library,
    which refuses an empty batch and lists of different lengths with a
    GLib.Error (no critical, no batch converted)."""

    def setUp(self):
        self.conv = GstCudaCache.CudaCacheConverter.new(
            Gst.Caps.from_string(
                f"video/x-raw,format=RGBA,width={W},height={H}"),
            Gst.Caps.from_string(tensor_caps("uint8", dims="8:4:3:1")),
            None, None)
        self.frame = Gst.Buffer.new_allocate(None, W * H * 4, None)
        self.batch = Gst.Buffer.new_allocate(None, 2 * 8 * 4 * 3, None)

    def test_empty_and_mismatched_lists_refused(self):
        from gi.repository import GLib
        conv, frame = self.conv, self.frame
        C = GstCudaCache.CudaCacheConverter
        for convs, frames, says in (
                ([], [], "a batch of no slots"),
                ([conv], [frame, frame], "converters (1) and frames (2)"),
                ([conv, conv], [frame], "converters (2) and frames (1)")):
            for call in (C.convert_batch, C.launch_batch):
                with self.assertRaises(GLib.Error) as e:
                    call(convs, frames, self.batch, None)
                self.assertIn(says, e.exception.message)

    def test_lists_of_one_length_convert(self):
        ok, launches = GstCudaCache.CudaCacheConverter.convert_batch(
            [self.conv, None], [self.frame, None], self.batch, None)
        self.assertTrue(ok)
        self.assertEqual(launches, 0)


class Result(unittest.TextTestResult):
    """Also writes each failure as gst-check does, for summarize-tests.py."""

    def _gst_check_line(self, test, err, kind):
        tb = traceback.extract_tb(err[2])
        line = tb[-1].lineno if tb else 0
        message = str(err[1]).splitlines()[0] if str(err[1]) else kind
        name = test.id().split(".")[-1]
        print(f"{os.path.basename(__file__)}:{line}:{kind}:python:{name}:0: "
              f"{message}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._gst_check_line(test, err, "F")

    def addError(self, test, err):
        super().addError(test, err)
        self._gst_check_line(test, err, "E")


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    result = unittest.TextTestRunner(resultclass=Result, verbosity=2,
                                     stream=sys.stdout).run(suite)
    print(f"Checks: {result.testsRun}, Failures: {len(result.failures)}, "
          f"Errors: {len(result.errors)}")
    sys.exit(0 if result.wasSuccessful() else 1)
