# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""The resampling presets against the libraries they are named after.

method=nearest, bilinear and area against OpenCV's cv2.resize
(INTER_NEAREST, INTER_LINEAR, INTER_AREA), method=antialias against
Pillow's Image.resize (BILINEAR), through the converter's CPU path, on
8-bit RGB, RGBA and BGR frames: a seeded matrix of sizes, odd ones,
both directions, extreme factors, on pictures with sharp edges (colour
bars, a checkerboard, one-pixel lines) and noise: every value identical
(the issue's bar is a level and 99% identical).

Also: crops and the letterbox go through the same arithmetic (the
picture's rectangle resampled as cv2.resize resamples to that size), and
4:2:0 input is resampled from the 8-bit RGB it converts to.

Prints gst-check's "Checks: N, Failures: F, Errors: E"; exits 77
(skipped) where PyGObject, NumPy, OpenCV or Pillow are missing.
"""

import random
import sys
import traceback
import unittest

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCudaCache", "1.0")
    from gi.repository import Gst, GstCudaCache
    import numpy as np
    import cv2
    from PIL import Image
except (ImportError, ValueError) as e:
    print(f"skipped: {e} (install python3-gi, python3-numpy, "
          "python3-opencv, python3-pil)")
    sys.exit(77)

Gst.init(None)

METHODS = {
    "nearest": ("cv2", cv2.INTER_NEAREST),
    "bilinear": ("cv2", cv2.INTER_LINEAR),
    "area": ("cv2", cv2.INTER_AREA),
    "antialias": ("pil", Image.BILINEAR),
}
Method = GstCudaCache.CudaCacheResizeMethod


def pictures(w, h, rng):
    """Colour bars, a checkerboard, one-pixel lines, noise: (h, w, 3)."""
    bars = np.zeros((h, w, 3), np.uint8)
    colours = np.array([[255, 255, 255], [255, 255, 0], [0, 255, 255],
                        [0, 255, 0], [255, 0, 255], [255, 0, 0],
                        [0, 0, 255], [0, 0, 0]], np.uint8)
    bars[:] = colours[(np.arange(w) * 8 // max(w, 1)) % 8][None, :, :]
    yy, xx = np.mgrid[0:h, 0:w]
    checker = (((xx // 3) + (yy // 3)) % 2 * 255).astype(np.uint8)
    checker = np.repeat(checker[:, :, None], 3, axis=2)
    lines = np.full((h, w, 3), 40, np.uint8)
    lines[::5, :, 0] = 250
    lines[:, ::7, 1] = 250
    lines[yy == xx] = [10, 220, 90]
    noise = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    return {"bars": bars, "checker": checker, "lines": lines, "noise": noise}


def reference(img, method, w, h):
    lib, flag = METHODS[method]
    if lib == "cv2":
        return cv2.resize(img, (w, h), interpolation=flag)
    return np.asarray(Image.fromarray(img).resize((w, h), flag))


def converter(method, in_caps, out_caps, config=None):
    if config is None:
        config = Gst.Structure.new_empty("GstCudaCacheConverter.config")
    # the method's nick, as gst-launch and Python users write it
    config.set_value("GstCudaCacheConverter.method", method)
    return GstCudaCache.CudaCacheConverter.new(
        Gst.Caps.from_string(in_caps), Gst.Caps.from_string(out_caps),
        None, config)


def convert(conv, data, out_size):
    inbuf = Gst.Buffer.new_wrapped(bytes(data))
    outbuf = Gst.Buffer.new_allocate(None, out_size, None)
    conv.convert_buffer(inbuf, outbuf, None)
    ok, info = outbuf.map(Gst.MapFlags.READ)
    assert ok
    try:
        return np.frombuffer(info.data, np.uint8).copy()
    finally:
        outbuf.unmap(info)


def ours_rgb(img, method, w, h, fmt="RGB"):
    """@img (RGB, (h, w, 3)) through the converter as @fmt, to RGB."""
    ih, iw, _ = img.shape
    if fmt == "RGB":
        data, stride = img, iw * 3
    elif fmt == "BGR":
        data, stride = img[:, :, ::-1], iw * 3
    else:
        data = np.concatenate([img, np.full((ih, iw, 1), 255, np.uint8)], 2)
        stride = iw * 4
    pad = (-stride) % 4
    rows = np.zeros((ih, stride + pad), np.uint8)
    rows[:, :stride] = np.ascontiguousarray(data).reshape(ih, stride)
    conv = converter(method, f"video/x-raw,format={fmt},width={iw},"
                     f"height={ih}", f"video/x-raw,format=RGB,width={w},"
                     f"height={h}")
    out_stride = (w * 3 + 3) & ~3
    out = convert(conv, rows, out_stride * h)
    return out.reshape(h, out_stride)[:, :w * 3].reshape(h, w, 3)


class Tally:
    def __init__(self):
        self.values = 0
        self.identical = 0
        self.worst = 0
        self.cases = 0

    def add(self, ours, ref, what):
        d = np.abs(ours.astype(int) - ref.astype(int))
        self.values += d.size
        self.identical += int((d == 0).sum())
        self.worst = max(self.worst, int(d.max()))
        self.cases += 1
        share = (d == 0).mean()
        # the bar is a level and 99%; what docs/elements.md states,
        # and what this asserts, is every value
        assert d.max() == 0, (
            f"{what}: worst {d.max()} levels, {share:.4f} identical")


def size_pairs(seed):
    rng = random.Random(seed)
    pairs = [(640, 480, 320, 240), (640, 480, 213, 160), (1920, 1080, 640, 360),
             (7, 5, 1283, 721), (1283, 721, 7, 5), (3, 3, 1001, 999),
             (2001, 1999, 33, 1), (1, 1, 5, 3), (33, 17, 100, 90),
             (64, 48, 32, 24), (64, 48, 16, 12), (97, 55, 160, 162),
             (55, 97, 163, 121), (300, 200, 300, 100), (200, 300, 50, 300)]
    for _ in range(24):
        iw, ih = rng.randint(1, 700), rng.randint(1, 700)
        pairs.append((iw, ih, rng.randint(1, 700), rng.randint(1, 700)))
    return pairs


class Presets(unittest.TestCase):
    def test_every_method_equals_its_library(self):
        rng = np.random.default_rng(27)
        for method in METHODS:
            tally = Tally()
            for (iw, ih, ow, oh) in size_pairs(27):
                for name, img in pictures(iw, ih, rng).items():
                    tally.add(ours_rgb(img, method, ow, oh),
                              reference(img, method, ow, oh),
                              f"{method} {name} {iw}x{ih} -> {ow}x{oh}")
            print(f"{method}: {tally.cases} conversions, "
                  f"{tally.identical / tally.values:.6f} of "
                  f"{tally.values} values identical to "
                  f"{METHODS[method][0]}, worst {tally.worst} levels")

    def test_16_bit_is_its_8_bit_frame(self):
        # P016 and P010 widened from an NV12 frame (bits repeated, as
        # GStreamer widens) resample as that frame: 16-bit 4:2:0 is
        # narrowed to 8 bits first, by the kernels' arithmetic
        rng = np.random.default_rng(11)
        w, h = 68, 38
        nv12 = rng.integers(0, 256, w * h * 3 // 2, dtype=np.uint8)
        v = nv12.astype(np.uint16)
        wide = {"P016_LE": v * 257,
                "P010_10LE": ((v << 2) | (v >> 6)) << 6}
        out = "video/x-raw,format=RGB,width=31,height=21"
        for fmt, samples in wide.items():
            data = np.frombuffer(samples.astype("<u2").tobytes(), np.uint8)
            for method in METHODS:
                a = convert(converter(method, f"video/x-raw,format=NV12,"
                                      f"width={w},height={h}", out), nv12,
                            96 * 21)
                b = convert(converter(method, f"video/x-raw,format={fmt},"
                                      f"width={w},height={h}", out), data,
                            96 * 21)
                np.testing.assert_array_equal(a, b, f"{fmt} {method}")

    def test_pixel_layouts(self):
        # RGBA and BGR in give what RGB in gives
        rng = np.random.default_rng(3)
        img = pictures(97, 55, rng)["noise"]
        for method in METHODS:
            want = reference(img, method, 41, 77)
            for fmt in ("RGBA", "BGR"):
                got = ours_rgb(img, method, 41, 77, fmt)
                np.testing.assert_array_equal(got, want, f"{method} {fmt}")

    def test_packed_outputs_are_the_rgb_output(self):
        # 3- and 4-byte outputs of every order hold the RGB output's bytes
        # (a 4-byte pixel's other byte 255), at every width up to 40 (the
        # stores' tails) and one wide frame
        rng = np.random.default_rng(5)
        img = pictures(61, 23, rng)["noise"]
        orders = {"RGBA": "RGBA", "BGRA": "BGRA", "RGBx": "RGBX",
                  "BGRx": "BGRX", "BGR": "BGR"}
        for method in METHODS:
            for w in list(range(1, 41)) + [1283]:
                h = 3
                want = ours_rgb(img, method, w, h)
                for fmt, order in orders.items():
                    ps = len(order)
                    stride = (w * ps + 3) & ~3
                    conv = converter(method, "video/x-raw,format=RGB,"
                                     "width=61,height=23", f"video/x-raw,"
                                     f"format={fmt},width={w},height={h}")
                    rows = np.zeros((23, 184), np.uint8)
                    rows[:, :183] = img.reshape(23, 183)
                    out = convert(conv, rows, stride * h)
                    got = out.reshape(h, stride)[:, :w * ps].reshape(h, w, ps)
                    for k, c in enumerate(order):
                        if c in "AX":
                            assert (got[:, :, k] == 255).all(), (
                                f"{method} {fmt} width {w}: byte {k}")
                        else:
                            np.testing.assert_array_equal(
                                got[:, :, k], want[:, :, "RGB".index(c)],
                                f"{method} {fmt} width {w}: {c}")

    def test_letterbox_and_crop(self):
        # the picture's rectangle is cv2.resize to that rectangle's size;
        # a crop is the region resized
        rng = np.random.default_rng(5)
        img = pictures(128, 72, rng)["noise"]
        config = Gst.Structure.new_from_string(
            "GstCudaCacheConverter.config, "
            "GstCudaCacheConverter.letterbox=true, "
            "GstCudaCacheConverter.fill-value=114")
        config.set_value("GstCudaCacheConverter.src-x", 10)
        config.set_value("GstCudaCacheConverter.src-y", 7)
        config.set_value("GstCudaCacheConverter.src-width", 101)
        config.set_value("GstCudaCacheConverter.src-height", 51)
        for method in METHODS:
            conv = converter(method, "video/x-raw,format=RGB,width=128,"
                             "height=72", "video/x-raw,format=RGB,width=64,"
                             "height=64", config.copy())
            ok, geometry = conv.get_geometry(None)
            r = geometry.picture
            out = convert(conv, img, 64 * 64 * 3).reshape(64, 64, 3)
            want = reference(np.ascontiguousarray(img[7:58, 10:111]),
                             method, r.w, r.h)
            np.testing.assert_array_equal(
                out[r.y:r.y + r.h, r.x:r.x + r.w], want, method)
            bars = np.ones((64, 64), bool)
            bars[r.y:r.y + r.h, r.x:r.x + r.w] = False
            self.assertTrue((out[bars] == 114).all(), method)

    def test_nv12_is_its_rgb_resampled(self):
        # 4:2:0 input: the 8-bit RGB the converter makes of it at the same
        # size (method=nearest at the same size copies), then resampled
        rng = np.random.default_rng(9)
        w, h = 68, 38
        nv12 = rng.integers(0, 256, w * h * 3 // 2, dtype=np.uint8)
        in_caps = f"video/x-raw,format=NV12,width={w},height={h}"
        rgb = convert(converter("nearest", in_caps, f"video/x-raw,format=RGB,"
                                f"width={w},height={h}"), nv12, w * h * 3)
        rgb = rgb.reshape(h, w, 3)
        for method in METHODS:
            conv = converter(method, in_caps,
                             "video/x-raw,format=RGB,width=31,height=21")
            out = convert(conv, nv12, 96 * 21).reshape(21, 96)[:, :93]
            np.testing.assert_array_equal(
                out.reshape(21, 31, 3), reference(rgb, method, 31, 21),
                method)


if __name__ == "__main__":
    result = unittest.TextTestRunner(verbosity=2).run(
        unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
    print(f"Checks: {result.testsRun}, Failures: {len(result.failures)}, "
          f"Errors: {len(result.errors)}")
    sys.exit(0 if result.wasSuccessful() else 1)
