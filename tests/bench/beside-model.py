# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Beside a model: what a pipeline's frames cost while another stream of
the same process runs long kernels (docs/performance.md, "Beside a model").

A thread keeps a PyTorch stream busy with kernels of --busy-ms each
(torch.cuda._sleep, calibrated first) while the application pushes one
frame and pulls its answer before pushing the next (request-response).
Each scenario runs idle, then busy, in the same process:

  frame    push to pull, the application's view
  element  the frame (or its caps event, where caps changed) entering the
           element's sink pad to the frame leaving its source pad (pad
           probes): the element's own share, its set-up for new caps
           included

Scenarios: steady caps and caps changing every frame among six sizes,
through cudacacheconvert (its default method, and bilinear), in the context
the elements take by default and in a context of their own (what an
application got before the default became the device's primary context);
cudacachebatch mode=rois with 8 moving, resizing regions a frame; and
stock cudaupload alone with caps changing every frame.

Needs PyGObject, the project's typelib and plugin (. .gpu/env.sh after
scripts/gpu-bundle-python.sh), PyTorch on CUDA and nvcodec's cudaupload.
Writes results.csv and report.md into --out.

  python3 tests/bench/beside-model.py --out build/beside-model

tests/bench/cudacache-beside-model.c is the same method in C, for
GStreamer bundles without Python (1.26's): keep the two in step.
"""

import argparse
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from gpu_torch import Busy  # noqa: E402

SIZES = [(1920, 1080), (1280, 720), (960, 540), (640, 480), (1600, 900),
         (800, 600)]
OUT_CAPS = ("video/x-raw(memory:CUDAMemory),format=RGBA,width=640,"
            "height=640")


def now_ms():
    return time.monotonic_ns() / 1e6


class Timed:
    """A pipeline `appsrc name=src ! ... ! appsink name=sink`, frames pushed
    one at a time; @element's pads time each frame's passage."""

    def __init__(self, Gst, description, element, context=None):
        self.Gst = Gst
        self.pipeline = Gst.parse_launch(description)
        if context is not None:
            import gi
            gi.require_version("GstCuda", "1.0")
            from gi.repository import GstCuda
            self.pipeline.set_context(
                GstCuda.context_new_cuda_context(context))
        self.src = self.pipeline.get_by_name("src")
        self.sink = self.pipeline.get_by_name("sink")
        self.entered = None
        self.element_ms = None
        if element:
            el = self.pipeline.get_by_name(element)
            # cudacachebatch's sink pad is a request pad, sink_0
            sinkpad = el.get_static_pad("sink") or \
                el.get_static_pad("sink_0")
            sinkpad.add_probe(
                Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM,
                self.on_enter)
            el.get_static_pad("src").add_probe(
                Gst.PadProbeType.BUFFER, self.on_leave)
        self.pipeline.set_state(Gst.State.PLAYING)
        self.caps = None

    def on_enter(self, pad, info):
        # a frame's caps event, where its caps changed, or else the frame:
        # the element's set-up for new caps is its share too
        Gst = self.Gst
        event = info.get_event() \
            if info.type & Gst.PadProbeType.EVENT_DOWNSTREAM else None
        if self.entered is None and (
                event is None or event.type == Gst.EventType.CAPS):
            self.entered = now_ms()
        return self.Gst.PadProbeReturn.OK

    def on_leave(self, pad, info):
        if self.entered is not None:
            self.element_ms = now_ms() - self.entered
        return self.Gst.PadProbeReturn.OK

    def frame(self, buf, caps_str, pts):
        """Pushes @buf (with caps @caps_str) and pulls its answer: the
        frame's and the element's milliseconds."""
        Gst = self.Gst
        if caps_str != self.caps:
            self.src.set_property("caps", Gst.Caps.from_string(caps_str))
            self.caps = caps_str
        buf.pts = pts
        buf.duration = Gst.SECOND // 30
        self.element_ms = None
        self.entered = None
        start = now_ms()
        if self.src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
            raise RuntimeError("push refused")
        sample = self.sink.emit("try-pull-sample", 5 * Gst.SECOND)
        frame_ms = now_ms() - start
        if sample is None:
            msg = self.pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
            raise RuntimeError("no answer" + (
                f": {msg.parse_error()[0].message}" if msg else ""))
        return frame_ms, self.element_ms

    def stop(self):
        self.pipeline.set_state(self.Gst.State.NULL)


def nv12(Gst, w, h, value):
    data = bytes([value]) * (w * h * 3 // 2)
    return Gst.Buffer.new_wrapped(data)


def run_frames(timed, make, frames):
    """@frames request-responses after 12 of warm-up; per frame the frame's
    and the element's milliseconds."""
    out = []
    for i in range(12 + frames):
        buf, caps = make(i)
        f, e = timed.frame(buf, caps, i * (1_000_000_000 // 30))
        if i >= 12:
            out.append((f, e))
    return out


def summary(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None, None, None
    p99 = values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]
    return statistics.median(values), p99, values[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--busy-ms", type=float, default=10.0)
    args = ap.parse_args()

    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCudaCache", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstCudaCache, GstVideo
    Gst.init(None)
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                    "python"))
    import gstcudacache

    if GstCudaCache.CudaCache.device_get_count() == 0 or \
            not torch.cuda.is_available():
        sys.exit("beside-model: no CUDA device")
    torch.cuda.init()
    busy = Busy(torch, args.busy_ms)

    frames_nv12 = {s: nv12(Gst, s[0], s[1], 16 + 20 * i)
                   for i, s in enumerate(SIZES)}

    def caps_of(s):
        return (f"video/x-raw,format=NV12,width={s[0]},height={s[1]},"
                "framerate=30/1")

    def steady(i):
        s = SIZES[0]
        return frames_nv12[s].copy(), caps_of(s)

    def churn(i):
        s = SIZES[i % len(SIZES)]
        return frames_nv12[s].copy(), caps_of(s)

    convert = ("appsrc name=src format=time ! cudaupload ! "
               "cudacacheconvert name=el {props} ! " + OUT_CAPS +
               " ! appsink name=sink sync=false")
    stock = ("appsrc name=src format=time ! cudaupload name=el ! "
             "video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false")

    # mode=rois: CUDA frames made once by the library, each pushed with 8
    # regions that move and change size from frame to frame
    primary = GstCudaCache.CudaCache.device_get_primary_context(0)
    roi_base, roi_caps = gstcudacache.to_buffer(
        torch.full((1080, 1920, 4), 90, dtype=torch.uint8, device="cuda"),
        context=primary)
    rois = ("appsrc name=src format=time ! "
            "cudacachebatch name=el mode=rois batch-size=8 ! "
            "other/tensors(memory:CUDAMemory),format=static,num_tensors=1,"
            "types=float32,dimensions=(string)112:112:3:8,layout=NCHW ! "
            "appsink name=sink sync=false")

    def regions(i):
        # a buffer of the frame's memory and metas, writable from Python
        buf = Gst.Buffer.new()
        buf.copy_into(roi_base, Gst.BufferCopyFlags.MEMORY |
                      Gst.BufferCopyFlags.META, 0, roi_base.get_size())
        for r in range(8):
            w = 64 + (i * 7 + r * 13) % 200
            h = 64 + (i * 11 + r * 5) % 150
            x = (i * 17 + r * 211) % (1920 - w)
            y = (i * 23 + r * 113) % (1080 - h)
            GstVideo.buffer_add_video_region_of_interest_meta(
                buf, "face", x, y, w, h)
        return buf, roi_caps.to_string()

    own = GstCudaCache.CudaCache.device_open_context(0)
    scenarios = [
        ("steady, default context", convert.format(props=""), steady, None),
        ("steady, a context of its own", convert.format(props=""), steady,
         own),
        ("caps change every frame, default context, default method",
         convert.format(props=""), churn, None),
        ("caps change every frame, default context, method=bilinear",
         convert.format(props="method=bilinear"), churn, None),
        ("caps change every frame, a context of its own",
         convert.format(props=""), churn, own),
        ("mode=rois, 8 moving regions a frame, default context", rois,
         regions, None),
        ("stock cudaupload alone, caps change every frame", stock, churn,
         None),
    ]

    rows = []
    for name, desc, make, context in scenarios:
        results = {}
        for state in ("idle", "busy"):
            timed = Timed(Gst, desc, "el", context)
            try:
                if state == "busy":
                    with busy:
                        results[state] = run_frames(timed, make, args.frames)
                else:
                    results[state] = run_frames(timed, make, args.frames)
            finally:
                timed.stop()
        for state in ("idle", "busy"):
            f = summary(x[0] for x in results[state])
            e = summary(x[1] for x in results[state])
            rows.append({"scenario": name, "state": state,
                         "frame_median_ms": f[0], "frame_p99_ms": f[1],
                         "frame_max_ms": f[2], "element_median_ms": e[0],
                         "element_p99_ms": e[1], "element_max_ms": e[2]})
            print(name, state, f, e, flush=True)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as fp:
        w = csv.DictWriter(fp, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    def fmt(v):
        return "-" if v is None else f"{v:.3f}"

    lines = [f"Busy: a PyTorch stream running {args.busy_ms:g} ms kernels; "
             f"{args.frames} request-responses a case after 12 of warm-up; "
             f"{torch.cuda.get_device_name(0)}, {Gst.version_string()}.", "",
             "| scenario | element idle | element busy | element busy - idle "
             "| frame idle | frame busy | frame busy - idle | frame p99 busy "
             "|", "|---|---|---|---|---|---|---|---|"]
    by = {(r["scenario"], r["state"]): r for r in rows}
    for name, *_ in scenarios:
        i, b = by[(name, "idle")], by[(name, "busy")]

        def diff(key):
            if i[key] is None or b[key] is None:
                return None
            return b[key] - i[key]
        lines.append(
            f"| {name} | {fmt(i['element_median_ms'])} | "
            f"{fmt(b['element_median_ms'])} | {fmt(diff('element_median_ms'))}"
            f" | {fmt(i['frame_median_ms'])} | {fmt(b['frame_median_ms'])} | "
            f"{fmt(diff('frame_median_ms'))} | {fmt(b['frame_p99_ms'])} |")
    with open(os.path.join(args.out, "report.md"), "w") as fp:
        fp.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
