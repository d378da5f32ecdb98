# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""PyTorch reads CUDA tensors from a pipeline through DLPack: same device
pointer, the values the CPU path gives, and the buffer back in the cache only
once the torch tensor is freed; a torch CUDA frame goes the other way,
through appsrc.

Through PyGObject and the GstCudaCache-1.0 typelib, with the gstcudacache
module (python/gstcudacache.py); on the GPU machine, whose Python has
PyTorch but no GStreamer, scripts/gpu-bundle-python.sh carries PyGObject
there (docs/gpu.md). Prints "Checks: N, Failures: F, Errors: E"; exits 77
without PyGObject, a CUDA device or PyTorch.
"""

import ctypes
import gc
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gpu_torch import Pipeline, require, run, used  # noqa: E402

Gst, GstCudaCache, torch = require()
import gstcudacache  # noqa: E402

W, H = 64, 48


def pull_tensor(pl, name, plane=gstcudacache.WHOLE):
    """A Tensor of the next sample of appsink @name, and its buffer's
    pool."""
    sample = pl.pull(name)
    assert sample is not None, f"{name} got no sample"
    pool = sample.get_buffer().pool
    return gstcudacache.Tensor.from_sample(sample, plane), pool


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
        cuda, pool = pull_tensor(pl, "gpu")
        cpu, _ = pull_tensor(pl, "cpu")
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

    assert isinstance(pool, GstCudaCache.CudaCachePool), \
        f"the CUDA tensors come from {pool!r}, no GstCudaCachePool"
    cache = pool.get_cache()
    del pool
    pl.stop()
    blocks, size = used(cache)
    assert blocks >= 1 and size >= held_size, (blocks, size)
    del on_gpu
    gc.collect()
    torch.cuda.synchronize()
    blocks, size = used(cache)
    assert blocks == 0 and size == 0, (blocks, size)
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
    sample = pl.pull("gpu")
    cpu_sample = pl.pull("cpu")
    for plane in (0, 1):
        gpu = gstcudacache.Tensor.from_sample(sample, plane)
        cpu = gstcudacache.Tensor.from_sample(cpu_sample, plane)
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
    del sample, cpu_sample, gpu, cpu
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
    cai, pool = pull_tensor(pl, "gpu")
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

    cuda, _ = pull_tensor(pl, "gpu")
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
    cache = pool.get_cache()
    del pool
    pl.stop()
    blocks, size = used(cache)
    assert blocks == 0 and size == 0, (blocks, size)
    print(f"__cuda_array_interface__ read in place by CuPy (sum "
          f"{cai_sum:.3f}), "
          f"the next frame through a DLPack 1.0 capsule (sum "
          f"{dlpack_sum:.3f})")


def _through_the_element(buf, caps, context=None):
    """@buf (caps @caps) through appsrc and cudacacheconvert into a uint8
    NHWC CUDA tensor, back as torch; the pipeline shares @context (a
    GstCuda.Context) if given"""
    pl = Pipeline(
        f"appsrc name=src format=time ! cudacacheconvert ! "
        f"other/tensors(memory:CUDAMemory),format=static,num_tensors=1,"
        f"types=uint8,dimensions=3:{W}:{H}:1,layout=NHWC ! "
        f"appsink name=gpu sync=false", context)
    src = pl.pipeline.get_by_name("src")
    src.set_property("caps", caps)
    assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
    src.emit("end-of-stream")
    del src, buf
    back, _ = pull_tensor(pl, "gpu")
    out = torch.from_dlpack(back)
    del back
    return out, pl


def test_torch_frames_into_a_pipeline():
    """A torch CUDA frame into appsrc (gstcudacache.to_buffer(): one device
    copy into the cache), through cudacacheconvert, back to torch: every
    value equal; a tensor it cannot describe refused with why."""
    g = torch.Generator(device="cuda").manual_seed(29)
    frame = torch.randint(0, 256, (H, W, 3), dtype=torch.uint8,
                          device="cuda", generator=g)
    buf, caps = gstcudacache.to_buffer(frame)
    assert buf is not None and caps is not None
    out, pl = _through_the_element(buf, caps)
    del buf
    assert out.is_cuda and tuple(out.shape) == (1, H, W, 3), out.shape
    assert out.data_ptr() != frame.data_ptr()
    assert torch.equal(out[0], frame), "the frame came back changed"
    del out
    pl.stop()

    try:
        gstcudacache.to_buffer(
            torch.zeros((1, 5, 4, 4), dtype=torch.float32, device="cuda"))
        raise AssertionError("a tensor of 5 channels was taken")
    except ValueError as e:
        error = str(e)
    assert "1 or 3 channels" in error, error
    print(f"a {H}x{W} torch CUDA frame through appsrc and cudacacheconvert "
          f"came back equal; refused: {error}")


def test_primary_context_pipeline():
    """docs/python.md's recipe: a torch frame imported with the device's
    primary context (PyTorch's), through a pipeline sharing that context:
    equal. From GStreamer 1.24 the frame is wrapped without a copy (the C
    suite's libs/cudapool checks the pointer); here, on 1.22, copied."""
    primary = GstCudaCache.CudaCache.device_get_primary_context(0)
    assert primary is not None
    g = torch.Generator(device="cuda").manual_seed(37)
    frame = torch.randint(0, 256, (H, W, 3), dtype=torch.uint8,
                          device="cuda", generator=g)
    buf, caps = gstcudacache.to_buffer(frame, context=primary)
    out, pl = _through_the_element(buf, caps, primary)
    del buf
    assert torch.equal(out[0], frame), "the frame came back changed"
    del out
    pl.stop()
    print(f"a {H}x{W} torch frame imported with the primary context, "
          f"through a pipeline sharing it, came back equal")


class _InterfaceOnly:
    """An object with __cuda_array_interface__ and nothing else, as Numba's
    and PyCUDA's arrays are: it keeps @array alive"""

    def __init__(self, array):
        self._array = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def test_cuda_array_interface_into_a_pipeline():
    """An object with only __cuda_array_interface__ (a CuPy frame behind
    it) into appsrc, through cudacacheconvert, back to torch: equal."""
    try:
        import cupy
    except ImportError:
        print("no CuPy: nothing to read through the interface")
        return
    g = torch.Generator().manual_seed(31)
    frame = cupy.asarray(torch.randint(0, 256, (H, W, 3), dtype=torch.uint8,
                                       generator=g).numpy())
    cupy.cuda.runtime.deviceSynchronize()
    buf, caps = gstcudacache.to_buffer(_InterfaceOnly(frame))
    assert caps.get_structure(0).get_string("format") == "RGB", \
        caps.to_string()
    out, pl = _through_the_element(buf, caps)
    del buf
    assert torch.equal(out[0].cpu(),
                       torch.from_numpy(cupy.asnumpy(frame))), \
        "the frame came back changed"
    del out
    pl.stop()
    print(f"a {H}x{W} CuPy frame behind __cuda_array_interface__ alone "
          f"through appsrc and cudacacheconvert came back equal")


if __name__ == "__main__":
    run([test_torch_reads_cuda_tensors, test_cupy_reads_cuda_frames,
         test_cuda_array_interface_and_versioned_dlpack,
         test_torch_frames_into_a_pipeline, test_primary_context_pipeline,
         test_cuda_array_interface_into_a_pipeline], __file__)
