# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""A pipeline beside a model in one process: while a PyTorch stream runs
50 ms kernels, caps changes (a preset's reconfigure too) and regions that
move and resize cost the pipeline no wait for those kernels, and the
elements left to themselves work in PyTorch's context. (The figures of this
scenario are the benchmark's: tests/bench/beside-model.py.)"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from gpu_torch import Busy, require, run  # noqa: E402

Gst, GstCudaCache, torch = require(("cudacacheconvert",))

SIZES = [(1920, 1080), (1280, 720), (960, 540), (640, 480), (1600, 900),
         (800, 600)]
KERNEL_MS = 50.0
# a wait for one of the model's kernels costs 25 ms on average; the
# pipeline's own work is well under a millisecond
ALLOWED_MS = 5.0

torch.cuda.init()
busy = Busy(torch, KERNEL_MS)


def frames(pipeline, n, sizes=SIZES):
    """Median milliseconds from push to pull of @n NV12 frames, the size
    of frame i sizes[i % len (sizes)]."""
    src = pipeline.get_by_name("src")
    sink = pipeline.get_by_name("sink")
    times = []
    caps = None
    for i in range(n):
        w, h = sizes[i % len(sizes)]
        want = (f"video/x-raw,format=NV12,width={w},height={h},"
                "framerate=30/1")
        if want != caps:
            src.set_property("caps", Gst.Caps.from_string(want))
            caps = want
        buf = Gst.Buffer.new_wrapped(bytes([60]) * (w * h * 3 // 2))
        buf.pts = i * Gst.SECOND // 30
        start = time.monotonic()
        assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
        sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        assert sample is not None, "no answer to frame %d" % i
        times.append((time.monotonic() - start) * 1000)
    return statistics.median(times)


def idle_and_busy(description, n, sizes=SIZES):
    """The median frame's milliseconds idle, then busy, each in a pipeline
    of its own after a frame of each size as warm-up."""
    result = []
    for state in ("idle", "busy"):
        pipeline = Gst.parse_launch(description)
        pipeline.set_state(Gst.State.PLAYING)
        try:
            frames(pipeline, len(sizes), sizes)
            if state == "busy":
                with busy:
                    result.append(frames(pipeline, n, sizes))
            else:
                result.append(frames(pipeline, n, sizes))
        finally:
            pipeline.set_state(Gst.State.NULL)
    return result


CONVERT = ("appsrc name=src format=time ! cudaupload name=up ! "
           "cudacacheconvert name=el {} ! "
           "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640 "
           "! appsink name=sink sync=false")


def check(name, idle_ms, busy_ms):
    print(f"{name}: {idle_ms:.3f} ms idle, {busy_ms:.3f} ms busy a frame "
          f"(the model's kernels {KERNEL_MS:g} ms)")
    assert busy_ms - idle_ms < ALLOWED_MS, \
        f"{name}: a frame waited {busy_ms - idle_ms:.1f} ms for the model"


def test_caps_change_every_frame_no_wait():
    idle_ms, busy_ms = idle_and_busy(CONVERT.format(""), 12)
    check("caps change every frame", idle_ms, busy_ms)


def test_preset_caps_change_no_wait():
    idle_ms, busy_ms = idle_and_busy(CONVERT.format("method=bilinear"), 12)
    check("caps change every frame, method=bilinear", idle_ms, busy_ms)


def test_moving_regions_no_wait():
    # cudacachebatch mode=rois: 8 regions a frame, each moved and resized
    # from frame to frame, a new source rectangle for the converters
    import gstcudacache
    from gi.repository import GstVideo
    primary = GstCudaCache.CudaCache.device_get_primary_context(0)
    base, caps = gstcudacache.to_buffer(
        torch.full((720, 1280, 4), 90, dtype=torch.uint8, device="cuda"),
        context=primary)
    desc = ("appsrc name=src format=time ! "
            "cudacachebatch mode=rois batch-size=8 ! "
            "other/tensors(memory:CUDAMemory),format=static,num_tensors=1,"
            "types=float32,dimensions=(string)112:112:3:8,layout=NCHW ! "
            "appsink name=sink sync=false")

    def run_frames(pipeline, n, first):
        src = pipeline.get_by_name("src")
        sink = pipeline.get_by_name("sink")
        src.set_property("caps", caps)
        times = []
        for i in range(first, first + n):
            # a buffer of the frame's memory and metas, writable from Python
            buf = Gst.Buffer.new()
            buf.copy_into(base, Gst.BufferCopyFlags.MEMORY |
                          Gst.BufferCopyFlags.META, 0, base.get_size())
            for r in range(8):
                w = 48 + (i * 7 + r * 13) % 200
                h = 48 + (i * 11 + r * 5) % 150
                GstVideo.buffer_add_video_region_of_interest_meta(
                    buf, "face", (i * 17 + r * 211) % (1280 - w),
                    (i * 23 + r * 113) % (720 - h), w, h)
            buf.pts = i * Gst.SECOND // 30
            start = time.monotonic()
            assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
            assert sink.emit("try-pull-sample", 10 * Gst.SECOND) is not None
            times.append((time.monotonic() - start) * 1000)
        return statistics.median(times)

    result = []
    for state in ("idle", "busy"):
        pipeline = Gst.parse_launch(desc)
        pipeline.set_state(Gst.State.PLAYING)
        try:
            run_frames(pipeline, 4, 0)
            if state == "busy":
                with busy:
                    result.append(run_frames(pipeline, 12, 100))
            else:
                result.append(run_frames(pipeline, 12, 100))
        finally:
            pipeline.set_state(Gst.State.NULL)
    check("8 moving regions a frame", *result)


def test_default_context_is_torch_s():
    # PyTorch works in the device's primary context; the elements left to
    # themselves take it, and the cudaupload beside them too
    pipeline = Gst.parse_launch(CONVERT.format(""))
    pipeline.set_state(Gst.State.PLAYING)
    try:
        frames(pipeline, 2)
        upload = pipeline.get_by_name("up")
        ctx = upload.get_context("gst.cuda.context")
        assert ctx is not None, "cudaupload has no CUDA context"
        found = ctx.get_structure().get_value("gst.cuda.context")
        primary = GstCudaCache.CudaCache.device_get_primary_context(0)
        assert found == primary, \
            f"the pipeline's context {found} is not the primary {primary}"
    finally:
        pipeline.set_state(Gst.State.NULL)


run([test_default_context_is_torch_s, test_caps_change_every_frame_no_wait,
     test_preset_caps_change_no_wait, test_moving_regions_no_wait], __file__)
