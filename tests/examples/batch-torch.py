#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Four streams of different sizes in one batch tensor for a PyTorch
network; what it finds in each slot mapped back to that stream's frame.

    batch-torch.py [--frames N] [--change-at K] [--cpu]

Four videotestsrc streams (1920x1080 NV12, 1280x720 I420, 640x480 RGBA,
854x480 NV12) go through cudaupload into request pads of one
cudacachebatch, which letterboxes each frame into its slot of a float32
NCHW batch of 4x3x320x320, values in 0..1. Each batch goes to PyTorch
through DLPack without a copy, where a small convolutional network with
random weights gives every slot a heat map and a box per cell. The batch's
GstCudaCacheBatchMeta says, per slot, which pad and stream the frame came
from, its timestamp and where its picture lies in the slot: the best cell
on the picture (not on the bars) gives a box, which the slot maps back to
its source frame. After K batches the fourth stream turns to portrait
(480x854), as a rotated phone would: its slots follow from its first
frame at the new size (those already on their way keep the old one).

--cpu does it all in system memory (no cudaupload; PyTorch on the CPU),
so it runs without a GPU.

Needs python3-gi, PyTorch, the GstCudaCache-1.0 typelib and the
gstcudacache module (docs/python.md).
"""

import argparse
import collections
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstCudaCache", "1.0")
from gi.repository import Gst, GstCudaCache  # noqa: E402

import gstcudacache  # noqa: E402

SIZE = 320
FILL = 114
SCALE = 1 / 255
# the network's output grid: one cell per STRIDE x STRIDE pixels of a slot
STRIDE = 4

# name, format, width, height, videotestsrc pattern
SOURCES = [
    ("cam0", "NV12", 1920, 1080, "ball"),
    ("cam1", "I420", 1280, 720, "smpte"),
    ("cam2", "RGBA", 640, 480, "snow"),
    ("cam3", "NV12", 854, 480, "pinwheel"),
]
# the stream that changes size, and its size after the change
CHANGING = 3
CHANGED_SIZE = (480, 854)

# What one slot of one batch gave: where it came from (the batch meta),
# where its picture lies in the slot (x, y, width, height), the network's
# best cell on the picture (its score and centre), and that cell's box in
# the slot and in the source frame (None where it lies on the bars alone)
SlotResult = collections.namedtuple("SlotResult", [
    "index", "present", "pad_name", "stream_id", "pts", "source_width",
    "source_height", "picture", "finite", "score", "cell", "box",
    "source_box"])


class Batch:
    """One batch: its input as a torch tensor (which holds the batch's
    buffer until it is freed), the DLPack export's data pointer, the
    cache the buffer came from, and a SlotResult per slot."""

    def __init__(self, number, input, pointer, cache, slots):
        self.number, self.input, self.pointer = number, input, pointer
        self.cache, self.slots = cache, slots


def load_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def make_model(torch):
    """A stand-in for a one-stage detector: two strided convolutions, then
    per cell an objectness logit and four distances (left, top, right,
    bottom, in slot pixels) from the cell's centre to a box's edges."""
    nn = torch.nn

    class Detector(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(
                nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
            self.head = nn.Conv2d(32, 5, 1)

        def forward(self, x):
            out = self.head(self.backbone(x))
            heat = out[:, 0]
            boxes = nn.functional.softplus(out[:, 1:]) * (4 * STRIDE)
            return heat, boxes

    torch.manual_seed(0)
    return Detector().eval()


def pipeline_description(frames, cpu):
    memory = "" if cpu else "(memory:CUDAMemory)"
    upload = "" if cpu else "cudaupload ! "
    desc = [
        f"cudacachebatch name=batch letterbox=true fill-value={FILL} "
        f"scale={SCALE!r} ! other/tensors{memory},format=static,"
        f"num_tensors=1,types=float32,layout=NCHW,"
        f"dimensions={SIZE}:{SIZE}:3:{len(SOURCES)} ! "
        "appsink name=sink sync=false max-buffers=2"]
    for i, (name, fmt, w, h, pattern) in enumerate(SOURCES):
        desc.append(
            f"videotestsrc name={name} num-buffers={frames} "
            f"pattern={pattern} ! capsfilter name={name}-caps "
            f"caps=video/x-raw,format={fmt},width={w},height={h},"
            f"framerate=30/1 ! {upload}batch.sink_{i}")
    return " ".join(desc)


def slot_results(torch, meta, heat, boxes):
    """A SlotResult per slot of @meta: the best cell of @heat whose centre
    lies on the slot's picture, its box from @boxes mapped back to the
    source frame. Reads the network's outputs once, for the whole batch."""
    n, rows, cols = heat.shape
    row_centre = (torch.arange(rows, device=heat.device) + 0.5) * STRIDE
    col_centre = (torch.arange(cols, device=heat.device) + 0.5) * STRIDE
    finite = torch.isfinite(heat).flatten(1).all(1) & \
        torch.isfinite(boxes).flatten(1).all(1)
    masked = []
    for i in range(n):
        p = meta.get_slot(i).geometry.picture
        rows_on = (row_centre >= p.y) & (row_centre < p.y + p.h)
        cols_on = (col_centre >= p.x) & (col_centre < p.x + p.w)
        on = rows_on.view(rows, 1) & cols_on.view(1, cols)
        masked.append(heat[i].masked_fill(~on, float("-inf")))
    best = torch.stack(masked).flatten(1).argmax(1)
    score = torch.sigmoid(heat.flatten(1).gather(1, best.view(n, 1)))
    ltrb = boxes.flatten(2).gather(2, best.view(n, 1, 1).expand(n, 4, 1))
    # one transfer for the batch: the host waits for the network here
    best, score, ltrb, finite = (best.tolist(), score.view(n).tolist(),
                                 ltrb.view(n, 4).tolist(), finite.tolist())

    results = []
    for i in range(n):
        slot = meta.get_slot(i)
        p = slot.geometry.picture
        picture = (p.x, p.y, p.w, p.h)
        if not slot.present:
            results.append(SlotResult(i, False, None, None, None, 0, 0,
                                      picture, finite[i], None, None, None,
                                      None))
            continue
        cx = (best[i] % cols + 0.5) * STRIDE
        cy = (best[i] // cols + 0.5) * STRIDE
        l, t, r, b = ltrb[i]
        box = (cx - l, cy - t, cx + r, cy + b)
        ok, *source_box = slot.geometry.box_to_source(*box)
        results.append(SlotResult(
            i, True, slot.pad_name, slot.stream_id, slot.pts,
            slot.geometry.source_width, slot.geometry.source_height, picture,
            finite[i],
            score[i], (cx, cy), box, tuple(source_box) if ok else None))
    return results


def batches(frames=16, change_at=6, cpu=False):
    """Runs the pipeline and yields a Batch per batch tensor, until the
    end of the streams; after @change_at batches the changing stream's
    caps change. Raises RuntimeError with the reason where the pipeline
    fails."""
    torch = load_torch()
    model = make_model(torch)
    pipeline = Gst.parse_launch(pipeline_description(frames, cpu))
    if not cpu:
        model = model.cuda()
        # the pipeline works in PyTorch's context (the device's primary
        # one), as the network does
        gi.require_version("GstCuda", "1.0")
        from gi.repository import GstCuda
        primary = GstCudaCache.CudaCache.device_get_primary_context(0)
        pipeline.set_context(GstCuda.context_new_cuda_context(primary))
    sink = pipeline.get_by_name("sink")
    changing = pipeline.get_by_name(SOURCES[CHANGING][0] + "-caps")
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    number = 0
    try:
        while True:
            sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
            if sample is None:
                msg = bus.pop_filtered(Gst.MessageType.ERROR)
                if msg is not None:
                    err, debug = msg.parse_error()
                    raise RuntimeError(f"{msg.src.get_name()}: "
                                       f"{err.message} ({debug})")
                if sink.get_property("eos"):
                    return
                continue
            if number == change_at:
                _, fmt, _, _, _ = SOURCES[CHANGING]
                w, h = CHANGED_SIZE
                # the source negotiates again at its next frame
                changing.set_property("caps", Gst.Caps.from_string(
                    f"video/x-raw,format={fmt},width={w},height={h},"
                    "framerate=30/1"))

            buffer = sample.get_buffer()
            cache = buffer.pool.get_cache()
            meta = GstCudaCache.buffer_get_cuda_cache_batch_meta(buffer)
            tensor = gstcudacache.Tensor.from_sample(sample)
            pointer = tensor.data_ptr
            # the batch's own memory: torch reads the buffer in place, and
            # holds it until the tensor is freed
            x = torch.from_dlpack(tensor)
            with torch.no_grad():
                heat, boxes = model(x)
            slots = slot_results(torch, meta, heat, boxes)
            del sample, buffer, meta, tensor, heat, boxes
            yield Batch(number, x, pointer, cache, slots)
            del x
            number += 1
    finally:
        pipeline.set_state(Gst.State.NULL)


def format_time(t):
    if t is None or t == Gst.CLOCK_TIME_NONE:
        return "none"
    return f"{t // Gst.SECOND}.{t % Gst.SECOND // Gst.MSECOND:03d}s"


def describe(batch, slot):
    if not slot.present:
        return f"batch {batch.number} slot {slot.index}: absent"
    x0, y0, x1, y1 = slot.box
    line = (f"batch {batch.number} slot {slot.index}: {slot.pad_name} "
            f"stream {slot.stream_id[-8:]} pts {format_time(slot.pts)} "
            f"{slot.source_width}x{slot.source_height} "
            f"score {slot.score:.3f} box ({x0:.0f},{y0:.0f})-"
            f"({x1:.0f},{y1:.0f}) in the slot")
    if slot.source_box is None:
        return line + ", on the bars"
    sx0, sy0, sx1, sy1 = slot.source_box
    return line + (f" -> ({sx0:.0f},{sy0:.0f})-({sx1:.0f},{sy1:.0f}) "
                   "in the frame")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=16,
                        help="frames of each stream")
    parser.add_argument("--change-at", type=int, default=6,
                        help="the batch after which the fourth stream "
                        "turns to portrait")
    parser.add_argument("--cpu", action="store_true",
                        help="system memory and PyTorch on the CPU")
    args = parser.parse_args()

    Gst.init(None)
    torch = load_torch()
    if torch is None:
        sys.exit("the network is PyTorch's, which is not installed "
                 "(pip install torch)")
    if not args.cpu:
        if not Gst.ElementFactory.find("cudaupload"):
            sys.exit("CUDA batches need nvcodec's cudaupload, which "
                     "registers only with a CUDA driver and device "
                     "(--cpu runs without)")
        if not torch.cuda.is_available():
            sys.exit("PyTorch sees no CUDA device (--cpu runs without)")

    n = 0
    cache = None
    try:
        for batch in batches(args.frames, args.change_at, args.cpu):
            cache = batch.cache
            for slot in batch.slots:
                print(describe(batch, slot))
            n += 1
        # the last batch's tensor, and with it its buffer, goes back here
        batch = None
    except RuntimeError as e:
        sys.exit(f"the pipeline failed: {e}")
    if cache is not None:
        s = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
        print(f"{cache.get_name()}: {s.used_blocks} blocks in use, "
              f"{s.idle_blocks} idle, {s.hits} hits, {s.misses} misses")
    print(f"{n} batches of {len(SOURCES)} streams")
    return 0 if n == args.frames else 1


if __name__ == "__main__":
    sys.exit(main())
