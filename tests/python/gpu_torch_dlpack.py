# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""PyTorch reads CUDA tensors from a pipeline through DLPack: same device
pointer, the values the CPU path gives, and the buffer back in the cache only
once the torch tensor is freed.

For machines with a GPU and PyTorch but no PyGObject (the GPU machine, see
docs/gpu.md): GStreamer and the library are driven through ctypes, and the
export goes through gstcudacache.Tensor.from_pointer(). Needs
libgstcudacache-1.0 and GStreamer on LD_LIBRARY_PATH and the plugin on
GST_PLUGIN_PATH_1_0. Prints "Checks: N, Failures: F, Errors: E"; exits 77
without a CUDA device.
"""

import ctypes
import gc
import os
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import gstcudacache  # noqa: E402

try:
    import torch
except ImportError:
    print("skipped: no PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skipped: no CUDA device for PyTorch")
    sys.exit(77)

W, H = 64, 48

gst = ctypes.CDLL("libgstreamer-1.0.so.0")
gstapp = ctypes.CDLL("libgstapp-1.0.so.0")
lib = ctypes.CDLL("libgstcudacache-1.0.so.0")
p = ctypes.c_void_p

for f, res, args in [
        (gst.gst_init, None, [p, p]),
        (gst.gst_parse_launch, p, [ctypes.c_char_p, ctypes.POINTER(p)]),
        (gst.gst_element_set_state, ctypes.c_int, [p, ctypes.c_int]),
        (gst.gst_bin_get_by_name, p, [p, ctypes.c_char_p]),
        (gst.gst_object_unref, None, [p]),
        (gst.gst_sample_get_buffer, p, [p]),
        (gst.gst_sample_get_caps, p, [p]),
        (gst.gst_mini_object_unref, None, [p]),
        (gst.gst_structure_get_uint64, ctypes.c_int,
         [p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)]),
        (gst.gst_structure_get_uint, ctypes.c_int,
         [p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint)]),
        (gst.gst_structure_free, None, [p]),
        (gstapp.gst_app_sink_pull_sample, p, [p]),
        (gstapp.gst_app_src_set_caps, None, [p, p]),
        (gstapp.gst_app_src_push_buffer, ctypes.c_int, [p, p]),
        (gstapp.gst_app_src_end_of_stream, ctypes.c_int, [p]),
        (lib.gst_cuda_cache_dlpack_import, p, [p, p, ctypes.POINTER(p),
                                               ctypes.POINTER(p)]),
        (lib.gst_cuda_cache_dlpack_export, p, [p, p, ctypes.c_int]),
        (lib.gst_cuda_cache_pool_get_cache, p, [p]),
        (lib.gst_cuda_cache_system_pool_get_cache, p, [p]),
        (lib.gst_cuda_cache_get_stats, None, [p, ctypes.c_int, p]),
        (lib.gst_cuda_cache_stats_to_structure, p, [p, ctypes.c_char_p])]:
    f.restype, f.argtypes = res, args

GST_STATE_NULL, GST_STATE_PLAYING = 1, 4
# GstBuffer: a GstMiniObject (64 bytes on 64-bit) then the pool
BUFFER_POOL_OFFSET = 64

gst.gst_init(None, None)


def cache_figures(cache):
    """used-blocks and used-bytes, through a GstStructure: robust to fields
    the stats struct may gain."""
    stats = ctypes.create_string_buffer(1024)
    lib.gst_cuda_cache_get_stats(cache, 0, stats)
    s = lib.gst_cuda_cache_stats_to_structure(stats, b"stats")
    blocks, size = ctypes.c_uint(), ctypes.c_uint64()
    gst.gst_structure_get_uint(s, b"used-blocks", ctypes.byref(blocks))
    gst.gst_structure_get_uint64(s, b"used-bytes", ctypes.byref(size))
    gst.gst_structure_free(s)
    return blocks.value, size.value


class Pipeline:
    def __init__(self, description):
        err = p()
        self.pipeline = gst.gst_parse_launch(description.encode(),
                                             ctypes.byref(err))
        assert self.pipeline, f"could not parse {description}"
        gst.gst_element_set_state(self.pipeline, GST_STATE_PLAYING)

    def pull(self, name):
        """A Tensor of the next sample of appsink @name, and its buffer's
        pool."""
        sink = gst.gst_bin_get_by_name(self.pipeline, name.encode())
        sample = gstapp.gst_app_sink_pull_sample(sink)
        gst.gst_object_unref(sink)
        assert sample, f"{name} got no sample"
        buffer = gst.gst_sample_get_buffer(sample)
        pool = p.from_address(buffer + BUFFER_POOL_OFFSET).value
        address = lib.gst_cuda_cache_dlpack_export(
            buffer, gst.gst_sample_get_caps(sample), gstcudacache.WHOLE)
        gst.gst_mini_object_unref(sample)
        return gstcudacache.Tensor.from_pointer(address), pool

    def stop(self):
        gst.gst_element_set_state(self.pipeline, GST_STATE_NULL)
        gst.gst_object_unref(self.pipeline)
        self.pipeline = None


def tensors(memory):
    caps = f"other/tensors{memory},types=float32,dimensions={W}:{H}:3:1"
    return (f"cudacacheconvert scale=0.00392156862745098 "
            f"mean=\"<0.485, 0.456, 0.406>\" std=\"<0.229, 0.224, 0.225>\" ! "
            f"{caps} ! appsink sync=false max-buffers=2")


def test_torch_reads_cuda_tensors():
    pl = Pipeline(
        f"videotestsrc num-buffers=4 pattern=ball ! "
        f"video/x-raw,format=RGBA,width={W},height={H} ! tee name=t "
        f"t. ! queue ! {tensors('')} name=cpu "
        f"t. ! queue ! cudaupload ! {tensors('(memory:CUDAMemory)')} name=gpu")
    worst = 0.0
    for frame in range(4):
        cuda, pool = pl.pull("gpu")
        cpu, _ = pl.pull("cpu")
        assert cuda.device[0] == gstcudacache.KDL_CUDA, cuda.device
        assert cpu.device[0] == gstcudacache.KDL_CPU, cpu.device
        pointer = cuda.data_ptr
        on_gpu = torch.from_dlpack(cuda)
        on_cpu = torch.from_dlpack(cpu)
        assert on_gpu.is_cuda and on_gpu.device.index == cuda.device[1]
        assert on_gpu.data_ptr() == pointer, (hex(on_gpu.data_ptr()),
                                              hex(pointer))
        assert tuple(on_gpu.shape) == (1, 3, H, W), on_gpu.shape
        diff = (on_gpu.cpu() - on_cpu).abs().max().item()
        worst = max(worst, diff)
        # same-size RGB input: the kernels match the CPU path to float
        # rounding (docs/elements.md)
        assert diff < 1e-3, f"frame {frame}: {diff}"
        held_size = on_gpu.numel() * 4
        del on_cpu

    cache = lib.gst_cuda_cache_pool_get_cache(pool)
    assert cache, "the CUDA tensors come from no GstCudaCachePool"
    pl.stop()
    gc.collect()
    blocks, size = cache_figures(cache)
    assert blocks >= 1 and size >= held_size, (blocks, size)
    del on_gpu
    gc.collect()
    torch.cuda.synchronize()
    blocks, size = cache_figures(cache)
    assert blocks == 0 and size == 0, (blocks, size)
    gst.gst_object_unref(cache)
    print(f"4 frames, worst difference from the CPU path {worst:g}, "
          f"device pointer {pointer:#x}")


def test_cupy_reads_cuda_frames():
    try:
        import cupy
    except ImportError:
        print("no CuPy: frames checked with PyTorch only")
        cupy = None
    pl = Pipeline(
        f"videotestsrc num-buffers=1 ! "
        f"video/x-raw,format=NV12,width={W},height={H} ! tee name=t "
        f"t. ! queue ! appsink name=cpu sync=false "
        f"t. ! queue ! cudaupload ! video/x-raw(memory:CUDAMemory) ! "
        f"appsink name=gpu sync=false")
    planes = []
    sink = gst.gst_bin_get_by_name(pl.pipeline, b"gpu")
    sample = gstapp.gst_app_sink_pull_sample(sink)
    gst.gst_object_unref(sink)
    sink = gst.gst_bin_get_by_name(pl.pipeline, b"cpu")
    cpu_sample = gstapp.gst_app_sink_pull_sample(sink)
    gst.gst_object_unref(sink)
    for plane in (0, 1):
        gpu = gstcudacache.Tensor.from_pointer(
            lib.gst_cuda_cache_dlpack_export(
                gst.gst_sample_get_buffer(sample),
                gst.gst_sample_get_caps(sample), plane))
        cpu = gstcudacache.Tensor.from_pointer(
            lib.gst_cuda_cache_dlpack_export(
                gst.gst_sample_get_buffer(cpu_sample),
                gst.gst_sample_get_caps(cpu_sample), plane))
        assert gpu.device[0] == gstcudacache.KDL_CUDA, gpu.device
        expected = torch.from_dlpack(cpu)
        if cupy is not None:
            got = torch.as_tensor(cupy.asnumpy(cupy.from_dlpack(gpu)))
        else:
            got = torch.from_dlpack(gpu).cpu()
        assert tuple(got.shape) == ((H, W, 1) if plane == 0 else
                                    (H // 2, W // 2, 2)), got.shape
        assert torch.equal(got, expected), f"plane {plane} differs"
        planes.append(tuple(got.shape))
        del expected, got
    gst.gst_mini_object_unref(sample)
    gst.gst_mini_object_unref(cpu_sample)
    pl.stop()
    print(f"NV12 planes {planes} equal to system memory's")


def test_cuda_array_interface_and_versioned_dlpack():
    """A CUDA tensor through __cuda_array_interface__ (CuPy reads it in
    place and a kernel of its sums it; PyTorch refuses read-only
    interfaces), the next through DLPack 1.x (a versioned, read-only
    capsule that PyTorch takes); both buffers back in the cache once the
    arrays are freed."""
    pl = Pipeline(
        f"videotestsrc num-buffers=2 pattern=ball ! "
        f"video/x-raw,format=RGBA,width={W},height={H} ! cudaupload ! "
        f"{tensors('(memory:CUDAMemory)')} name=gpu")
    cai, pool = pl.pull("gpu")
    iface = cai.__cuda_array_interface__
    assert iface["version"] == 3 and iface["typestr"] == "<f4", iface
    assert iface["data"] == (cai.data_ptr, True), iface["data"]
    assert iface["shape"] == (1, 3, H, W), iface["shape"]
    assert iface["strides"] == (3 * H * W * 4, H * W * 4, W * 4, 4), \
        iface["strides"]
    assert iface["stream"] is None
    # PyTorch takes no read-only interface (DLPack is its way in)
    try:
        torch.as_tensor(cai, device="cuda")
        raise AssertionError("PyTorch took a read-only interface")
    except TypeError as e:
        assert "read only" in str(e), e
    try:
        cai.__dlpack__()
        raise AssertionError("DLPack took the export the interface reads")
    except BufferError:
        pass
    try:
        import cupy
    except ImportError:
        cupy = None
        print("no CuPy: the interface checked by its fields only")
    cai_sum = 0.0
    if cupy is not None:
        array = cupy.asarray(cai)
        assert array.data.ptr == cai.data_ptr, (hex(array.data.ptr),
                                                hex(cai.data_ptr))
        # normalised by ImageNet's mean and std: every value in
        # [(0 - 0.485) / 0.229, (1 - 0.406) / 0.225], and not all alike
        cai_sum = float(array.sum(dtype=cupy.float64))
        lo, hi = float(array.min()), float(array.max())
        assert -2.12 <= lo < hi <= 2.65, (lo, hi)
        del array

    cuda, _ = pl.pull("gpu")
    pointer = cuda.data_ptr
    capsule = cuda.__dlpack__(max_version=(1, 0))
    name = ctypes.pythonapi["PyCapsule_GetName"]
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert name(capsule) == b"dltensor_versioned", name(capsule)
    get = ctypes.pythonapi["PyCapsule_GetPointer"]
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                  ctypes.c_char_p]
    managed = gstcudacache.DLManagedTensorVersioned.from_address(
        get(capsule, b"dltensor_versioned"))
    assert (managed.version.major, managed.version.minor) == (1, 0)
    assert managed.flags & gstcudacache.FLAG_READ_ONLY
    del managed
    through_dlpack = torch.from_dlpack(capsule)
    assert through_dlpack.data_ptr() == pointer, (
        hex(through_dlpack.data_ptr()), hex(pointer))
    dlpack_sum = through_dlpack.double().sum().item()
    lo, hi = through_dlpack.min().item(), through_dlpack.max().item()
    assert -2.12 <= lo < hi <= 2.65, (lo, hi)

    del through_dlpack, capsule, cai, cuda
    gc.collect()
    torch.cuda.synchronize()
    cache = lib.gst_cuda_cache_pool_get_cache(pool)
    pl.stop()
    gc.collect()
    blocks, size = cache_figures(cache)
    assert blocks == 0 and size == 0, (blocks, size)
    gst.gst_object_unref(cache)
    print(f"__cuda_array_interface__ read in place by CuPy (sum "
          f"{cai_sum:.3f}), "
          f"the next frame through a DLPack 1.0 capsule (sum "
          f"{dlpack_sum:.3f})")

class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int),
                ("message", ctypes.c_char_p)]


def test_torch_frames_into_a_pipeline():
    """A torch CUDA frame into appsrc (gst_cuda_cache_dlpack_import: one
    device copy into the cache), through cudacacheconvert, back to torch:
    every value equal; a tensor it cannot describe refused with why."""
    g = torch.Generator(device="cuda").manual_seed(29)
    frame = torch.randint(0, 256, (H, W, 3), dtype=torch.uint8,
                          device="cuda", generator=g)
    get = ctypes.pythonapi["PyCapsule_GetPointer"]
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                  ctypes.c_char_p]
    set_name = ctypes.pythonapi["PyCapsule_SetName"]
    set_name.restype = ctypes.c_int
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    used = b"used_dltensor"

    def import_tensor(t):
        capsule = t.__dlpack__(stream=1)
        address = get(capsule, b"dltensor")
        set_name(capsule, used)
        caps, err = p(), ctypes.POINTER(GError)()
        buf = lib.gst_cuda_cache_dlpack_import(
            address, None, ctypes.byref(caps),
            ctypes.cast(ctypes.byref(err), ctypes.POINTER(p)))
        return buf, caps, err.contents.message.decode() if err else None

    buf, caps, error = import_tensor(frame)
    assert buf and caps, error
    pl = Pipeline(
        f"appsrc name=src format=time ! cudacacheconvert ! "
        f"other/tensors(memory:CUDAMemory),format=static,num_tensors=1,"
        f"types=uint8,dimensions=3:{W}:{H}:1,layout=NHWC ! "
        f"appsink name=gpu sync=false")
    src = gst.gst_bin_get_by_name(pl.pipeline, b"src")
    gstapp.gst_app_src_set_caps(src, caps)
    gst.gst_mini_object_unref(caps)
    assert gstapp.gst_app_src_push_buffer(src, buf) == 0
    gstapp.gst_app_src_end_of_stream(src)
    gst.gst_object_unref(src)
    back, _ = pl.pull("gpu")
    out = torch.from_dlpack(back)
    assert out.is_cuda and tuple(out.shape) == (1, H, W, 3), out.shape
    assert out.data_ptr() != frame.data_ptr()
    assert torch.equal(out[0], frame), "the frame came back changed"
    del out, back
    pl.stop()

    buf, caps, error = import_tensor(
        torch.zeros((1, 5, 4, 4), dtype=torch.float32, device="cuda"))
    assert not buf and "1 or 3 channels" in error, error
    print(f"a {H}x{W} torch CUDA frame through appsrc and cudacacheconvert "
          f"came back equal; refused: {error}")


if __name__ == "__main__":
    tests = [test_torch_reads_cuda_tensors, test_cupy_reads_cuda_frames,
             test_cuda_array_interface_and_versioned_dlpack,
             test_torch_frames_into_a_pipeline]
    failures = 0
    for test in tests:
        try:
            test()
            print(f"PASS {test.__name__}")
        except Exception as e:
            failures += 1
            tb = traceback.extract_tb(e.__traceback__)
            print(f"{os.path.basename(__file__)}:{tb[-1].lineno}:F:gpu:"
                  f"{test.__name__}:0: {e!r}")
            traceback.print_exc()
    print(f"Checks: {len(tests)}, Failures: {failures}, Errors: 0")
    sys.exit(1 if failures else 0)
