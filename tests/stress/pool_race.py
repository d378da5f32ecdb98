#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Caps churn against the pool an element proposes upstream.

    videotestsrc ! capsfilter ! [cudaupload !] ELEMENT ! appsink

The capsfilter's caps change about every third frame among five formats and
six sizes; samples are pulled and dropped on the application thread, so
buffers come back to their pools while upstream renegotiates. Every sample's
buffer must be laid out for its own caps (its GstVideoMeta and size), and a
GStreamer critical is fatal (run with G_DEBUG=fatal-criticals).

    pool_race.py ELEMENT [--seconds S] [--seed N ...] [--cuda]

Prints one line per seed and exits 1 on any mismatch, 77 (skipped) where
--cuda finds no cudaupload or no device (the GPU suite runs the
same race in C: tests/check/cudacache-pipeline-race.h).
"""

import argparse
import os
import random
import sys
import time

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    gi.require_version("GstApp", "1.0")
    from gi.repository import Gst, GstApp, GstVideo  # noqa: F401
except (ImportError, ValueError) as e:
    # the GPU machine has no PyGObject: cudacachecontext-gpu runs the same
    # race in C there
    print(f"SKIP: {e} (install python3-gi and python3-gst-1.0)")
    sys.exit(77)

FORMATS = ["NV12", "I420", "RGBA", "BGRx", "RGB"]
SIZES = [(1, 1), (2, 3), (7, 5), (33, 17), (64, 48), (320, 240)]


def layout_problem(sample):
    """Why the sample's buffer is not laid out for its caps, or None."""
    caps, buf = sample.get_caps(), sample.get_buffer()
    info = GstVideo.VideoInfo.new_from_caps(caps)
    meta = GstVideo.buffer_get_video_meta(buf)
    if meta is not None and (meta.format != info.finfo.format or
                             meta.width != info.width or
                             meta.height != info.height):
        return (f"meta {meta.format.value_nick} {meta.width}x{meta.height} "
                f"for caps {info.finfo.name} {info.width}x{info.height}")
    if meta is None and buf.get_size() < info.size:
        return f"{buf.get_size()} bytes for caps of {info.size}"
    return None


def run(element, seconds, seed, cuda):
    rng = random.Random(seed)
    feature = "(memory:CUDAMemory)" if cuda else ""
    upload = "cudaupload ! capsfilter name=cudacf ! " if cuda else ""
    pipe = Gst.parse_launch(
        f"videotestsrc ! capsfilter name=cf ! {upload}{element} ! "
        "appsink name=sink sync=false max-buffers=2")
    cf, sink = pipe.get_by_name("cf"), pipe.get_by_name("sink")
    cudacf = pipe.get_by_name("cudacf")

    def new_caps():
        w, h = rng.choice(SIZES)
        fmt = rng.choice(FORMATS)
        cf.set_property("caps", Gst.Caps.from_string(
            f"video/x-raw,format={fmt},width={w},height={h}"))
        if cudacf:
            cudacf.set_property("caps", Gst.Caps.from_string(
                f"video/x-raw{feature},format={fmt},width={w},height={h}"))

    new_caps()
    pipe.set_state(Gst.State.PLAYING)
    samples = restarts = 0
    problems = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sample = sink.try_pull_sample(Gst.SECOND)
        if sample is not None:
            samples += 1
            why = layout_problem(sample)
            if why and len(problems) < 5:
                problems.append(why)
            elif why:
                problems.append(None)
            del sample
        if rng.random() < 0.3:
            new_caps()
        msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if msg:
            # caps changed under a running source are refused as
            # not-negotiated now and then: start again
            restarts += 1
            pipe.set_state(Gst.State.NULL)
            new_caps()
            pipe.set_state(Gst.State.PLAYING)
    pipe.set_state(Gst.State.NULL)
    print(f"{element} seed {seed}: samples {samples} restarts {restarts} "
          f"layout mismatches {len(problems)}", flush=True)
    for why in problems:
        if why:
            print(f"  {why}", flush=True)
    return samples > 0 and not problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("element")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--cuda", action="store_true")
    args = parser.parse_args()
    Gst.init(None)
    if args.cuda:
        if Gst.ElementFactory.find("cudaupload") is None:
            print("SKIP: no cudaupload (no CUDA device or driver)")
            return 77
    ok = True
    for seed in args.seed or [1, 2]:
        ok = run(args.element, args.seconds, seed, args.cuda) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
