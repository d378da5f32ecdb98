# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""PyTorch and H.264 on the GPU, both ways, as an application would do it:

- frames PyTorch makes on the GPU (moving gradients) go through
  gstcudacache.to_buffer() and appsrc into cudacacheconvert (RGBA to NV12)
  and an H.264 encoder into a file; a second pipeline decodes the file with
  nvh264dec and cudacacheconvert back to RGBA, cudadownload and appsink:
  every decoded frame within the codec's tolerance of its original;
- a decoded stream (nvh264dec) goes through cudacacheconvert into float32
  tensors that a small convolutional network reads in place, frame after
  frame, through DLPack (torch.from_dlpack); the tensors' blocks go back to
  the device's cache one by one as the tensors are freed.

The encoder is nvh264enc where the device has NVENC; devices without one
(the H100 and H200 have NVDEC only) encode with x264enc on system memory
instead, after cudadownload. Prints "Checks: N, Failures: F, Errors: E";
exits 77 without PyGObject, a CUDA device, PyTorch, nvh264dec or an H.264
encoder.
"""

import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from gpu_torch import Pipeline, find_element, require, run, used  # noqa: E402

Gst, GstCudaCache, torch = require(["cudadownload", "h264parse",
                                    "nvh264dec"])
import gstcudacache  # noqa: E402
from gi.repository import GstVideo  # noqa: E402

ENCODER = find_element("nvh264enc", "x264enc")
if ENCODER is None:
    print("skipped: no H.264 encoder (nvh264enc needs NVENC; x264enc is in "
          "gstreamer1.0-plugins-ugly)")
    sys.exit(77)

W, H = 320, 240
FRAMES = 30
FPS = 30
# a smooth picture survives H.264 at its default rate far above this
MIN_PSNR_DB = 30.0


def encoder_after_cuda_nv12():
    """The encoder's part of a pipeline, after NV12 frames in CUDA memory."""
    if ENCODER == "nvh264enc":
        return "nvh264enc"
    return ("cudadownload ! x264enc speed-preset=ultrafast tune=zerolatency "
            f"key-int-max={FPS}")


def gradient_frame(t):
    """RGBA frame @t of FRAMES, uint8 on the GPU: three sine gradients
    moving across the picture, kept within 15% and 85% of full scale
    (nothing clipped on the way through limited-range YUV)."""
    phase = 2 * math.pi * t / FRAMES
    ys = torch.linspace(0, 1, H, device="cuda").view(H, 1).expand(H, W)
    xs = torch.linspace(0, 1, W, device="cuda").view(1, W).expand(H, W)
    rgb = torch.stack([torch.sin(2 * math.pi * xs + phase),
                       torch.sin(2 * math.pi * ys - phase),
                       torch.cos(math.pi * (xs + ys) + 2 * phase)], dim=-1)
    frame = torch.full((H, W, 4), 255, dtype=torch.uint8, device="cuda")
    frame[..., :3] = ((0.5 + 0.35 * rgb) * 255).round().to(torch.uint8)
    return frame


def with_frame_rate(caps, fps):
    """@caps with a frame rate, which the encoder wants: to_buffer()'s say
    0/1, since an array knows none."""
    info = GstVideo.VideoInfo.new_from_caps(caps)
    info.fps_n, info.fps_d = fps, 1
    info.flags &= ~GstVideo.VideoFlags.VARIABLE_FPS
    rated = info.to_caps()
    rated.set_features(0, caps.get_features(0).copy())
    return rated


def psnr(a, b):
    """PSNR in dB of two uint8 pictures of the same shape."""
    mse = (a.double() - b.double()).pow(2).mean().item()
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def test_torch_frames_encoded_and_decoded():
    """PyTorch's frames through appsrc and H.264 and back, each within
    MIN_PSNR_DB of its original."""
    originals = [gradient_frame(t) for t in range(FRAMES)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gradients.h264")
        # NV12 in BT.601, which is also what a decoder assumes for this
        # size where the stream would not say it
        enc = Pipeline(
            f"appsrc name=src format=time ! cudacacheconvert ! "
            f"video/x-raw(memory:CUDAMemory),format=NV12,"
            f"colorimetry=bt601 ! {encoder_after_cuda_nv12()} ! "
            f"h264parse ! video/x-h264,stream-format=byte-stream ! "
            f"filesink location={path}")
        src = enc.pipeline.get_by_name("src")
        for t, frame in enumerate(originals):
            # a CUDA tensor is copied once on the device into a buffer of
            # the device's cache
            buf, caps = gstcudacache.to_buffer(frame)
            assert "CUDAMemory" in caps.to_string(), caps.to_string()
            if t == 0:
                src.set_property("caps", with_frame_rate(caps, FPS))
            buf.pts = t * Gst.SECOND // FPS
            buf.duration = Gst.SECOND // FPS
            assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
        src.emit("end-of-stream")
        del src, buf
        enc.wait_eos()
        enc.stop()
        size = os.path.getsize(path)
        assert size > 0, "the encoder wrote nothing"

        dec = Pipeline(
            f"filesrc location={path} ! h264parse ! nvh264dec ! "
            f"video/x-raw(memory:CUDAMemory) ! cudacacheconvert ! "
            f"video/x-raw(memory:CUDAMemory),format=RGBA ! cudadownload ! "
            f"video/x-raw,format=RGBA,width={W},height={H} ! "
            f"appsink name=out sync=false")
        worst = math.inf
        decoded = 0
        while True:
            sample = dec.pull("out")
            if sample is None:
                break
            assert decoded < FRAMES, "more frames decoded than encoded"
            tensor = gstcudacache.Tensor.from_sample(sample)
            assert tensor.device[0] == gstcudacache.KDL_CPU, tensor.device
            got = torch.from_dlpack(tensor)
            assert tuple(got.shape) == (H, W, 4), got.shape
            # the alpha channel is not coded
            db = psnr(got[..., :3], originals[decoded][..., :3].cpu())
            assert db > MIN_PSNR_DB, f"frame {decoded}: {db:.1f} dB"
            worst = min(worst, db)
            decoded += 1
            del got, tensor, sample
        dec.stop()
    assert decoded == FRAMES, f"{decoded} frames decoded of {FRAMES}"
    print(f"{FRAMES} PyTorch frames {W}x{H} through {ENCODER} ({size} "
          f"bytes) and nvh264dec: worst PSNR {worst:.1f} dB "
          f"(bound {MIN_PSNR_DB} dB)")


class Net(torch.nn.Module):
    """Two convolutions and a linear layer: a stand-in for a detector's
    backbone, with random weights."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(8, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.features(x))


def test_decoded_frames_into_a_model():
    """nvh264dec, cudacacheconvert to float32 NCHW tensors in CUDA memory,
    a network reading each in place; the last few tensors held (as a model
    over a short clip would), the others freed as it goes, so that the
    pipeline reuses their blocks rather than allocating; once it is
    stopped, its blocks back in the device's cache with the last tensor
    freed."""
    size = 128
    window = 3
    torch.manual_seed(29)
    model = Net().cuda().eval()
    encode = ("nvh264enc" if ENCODER == "nvh264enc" else
              f"x264enc speed-preset=ultrafast tune=zerolatency "
              f"key-int-max={FPS}")
    pl = Pipeline(
        f"videotestsrc num-buffers={FRAMES} pattern=ball ! "
        f"video/x-raw,format=NV12,width={W},height={H},"
        f"framerate={FPS}/1 ! {encode} ! h264parse ! nvh264dec ! "
        f"video/x-raw(memory:CUDAMemory) ! "
        f"cudacacheconvert scale=0.00392156862745098 ! "
        f"other/tensors(memory:CUDAMemory),types=float32,"
        f"dimensions={size}:{size}:3:1 ! "
        f"appsink name=sink sync=false max-buffers=2")
    held, outputs = [], []
    cache = None
    while True:
        sample = pl.pull("sink")
        if sample is None:
            break
        if cache is None:
            pool = sample.get_buffer().pool
            assert isinstance(pool, GstCudaCache.CudaCachePool), pool
            cache = pool.get_cache()
            del pool
            first = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
        tensor = gstcudacache.Tensor.from_sample(sample)
        del sample
        pointer = tensor.data_ptr
        x = torch.from_dlpack(tensor)
        del tensor
        assert x.is_cuda and x.data_ptr() == pointer, (x.device,
                                                       hex(x.data_ptr()),
                                                       hex(pointer))
        assert tuple(x.shape) == (1, 3, size, size), x.shape
        with torch.no_grad():
            # reading the result on the host waits for the network, so
            # the input is no longer read once it is freed
            outputs.append(model(x).cpu())
        lo, hi = x.min().item(), x.max().item()
        assert 0.0 <= lo < hi <= 1.0, (lo, hi)
        held.append(x)
        del x
        if len(held) > window:
            # its buffer goes back to the pool, for the next frame
            del held[0]
        blocks, _ = used(cache)
        assert blocks >= len(held), (blocks, len(held))
    assert len(outputs) == FRAMES, f"{len(outputs)} frames of {FRAMES}"
    out = torch.cat(outputs)
    assert torch.isfinite(out).all()
    # the ball moves: the network does not see one frame thirty times
    assert (out - out[0]).abs().max().item() > 0, "every output equal"
    stats = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
    # the frames after the first reuse the blocks freed tensors gave back
    misses = stats.misses - first.misses
    assert misses < FRAMES // 2, (misses, stats.hits)

    pl.stop()
    # a stopped pool keeps its buffers until the last one out comes back
    while len(held) > 1:
        del held[0]
        blocks, _ = used(cache)
        assert blocks >= 1, blocks
    del held[0]
    blocks, size_used = used(cache)
    assert blocks == 0 and size_used == 0, (blocks, size_used)
    # the pipeline's pools are gone with it, and with the last of them the
    # idle blocks of its CUDA context (which they would keep alive)
    idle = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL).idle_blocks
    assert idle == 0, idle
    print(f"{FRAMES} decoded frames (from {ENCODER}) read in place by a "
          f"network as {size}x{size} float32 tensors, {window} held at a "
          f"time: {misses} misses in the device's cache after the first "
          f"frame; nothing in use and nothing idle once the last tensor "
          f"was freed")


if __name__ == "__main__":
    run([test_torch_frames_encoded_and_decoded,
         test_decoded_frames_into_a_model], __file__)
