#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Several pipelines in threads of one process, under caps churn.

    appsrc|videotestsrc ! capsfilter ! [cudacacheconvert ! capsfilter !]
        cudacacheidentity ! appsink

NPIPE pipelines (8 by default) run side by side on system memory, each in
its own thread: input caps change (format and size) through appsrc or the
capsfilter, output caps (video formats, sizes and, for ours, tensors) through
the second capsfilter; samples are held a while, pipelines go to READY,
PAUSED or NULL and back now and then, and another thread sets the elements'
cache-limit at random (0 included). --stock runs videoconvertscale and
identity in place of ours, with the same seeds, as the control: every rule
below is one that stock passes.

Rules, each failure counted by kind; exit 1 on any:

- layout: a sample's buffer is laid out for its own caps: its GstVideoMeta,
  where it has one, has the caps' format, width and height, and the buffer
  holds the caps' size; a tensor's GstCudaCacheTensorMeta (ours) equals the
  caps' shape and type.
- colour: every pixel is one the pipeline could produce: per channel, within
  the [min, max] of the pipeline's own two colours and its fill colour (where
  it letterboxes), widened by TOL for rounding and by GAIN of the bound for
  the overshoot of GstVideoConverter's linear resampler (used by our CPU
  path; stock keeps its default 2-tap bilinear), in the output's own colour
  space: R, G, B for RGB formats and tensors, Y, U, V (with the caps' matrix
  and range) for YUV. Which of its own colours a frame shows is not
  checked: on system memory GStreamer 1.22's GstVideoConverter, used by
  stock videoconvertscale and by our converter alike, returns the first
  frame's picture for later ones in some tiny-frame cases (RGB 1x1 to RGBA
  1x1 keeps the first colour).
  A convex mix is allowed because scalers blend the picture's edge with the
  fill, and a 4:2:0 chroma sample straddles that edge; checked per channel,
  since luma and chroma of one pixel come from different mixes. Each
  pipeline's two colours lie close together and the palette is chosen, per
  seed, so that no pipeline's colours lie within TOL of another's bounds in
  any colour space the caps may name: a frame from another pipeline (a
  "foreign" colour) or uninitialised memory ("garbage") is flagged.
- cache (ours): the system cache's idle bytes never exceed its limit, its
  size is used plus idle bytes, and nothing is in use once the pipelines
  have gone to NULL and been dropped.
- no GStreamer critical (run with G_DEBUG=fatal-criticals), no stall (no
  sample for 10 s while PLAYING: a pipeline that does not recover; 3 s was
  crossed by stock's pipelines on a 2-core machine busy with a build), and no bus error but not-negotiated (caps
  changed under a running source are refused now and then; the pipeline
  starts again with new caps).

Stock's converters get no 10- or 16-bit input (its identity pipelines do):
GStreamer 1.22's GstVideoConverter scales P010_10LE and P016_LE wrongly,
black or dark pixels among the picture's, e.g. a solid colour through
"video/x-raw,format=P010_10LE,width=32,height=18 ! videoconvertscale
add-borders=false ! video/x-raw,format=RGBx,width=16,height=64" (8-bit
formats, and 16-bit ones at their own size, come out right). Ours gets them.

    threads_stress.py [--stock] [--pipelines N] [--seconds S] [--seed N ...]
"""

import argparse
import collections
import gc
import itertools
import os
import random
import sys
import threading
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstCudaCache", "1.0")
from gi.repository import (Gst, GstApp, GstCudaCache,  # noqa: E402,F401
                           GstVideo)

import numpy as np  # noqa: E402

# slack around a channel's range: TOL for rounding, GAIN of the value for
# GstVideoConverter's linear resampler, whose taps sum to more than one
# when it shrinks (a solid colour comes out up to 3% brighter from RGB,
# 7% from 4:2:0 through our converter's CPU path)
TOL = 10
GAIN = 0.08
# a pipeline with no sample this long while PLAYING has stalled
STALL_SECONDS = 10
DEEP_IN = ["P010_10LE", "P016_LE"]
YUV_IN = ["NV12", "I420"] + DEEP_IN
INS = YUV_IN + ["RGBA", "BGRA", "RGBx", "BGRx", "RGB", "BGR"]
VOUT = ["RGBA", "BGRx", "NV12", "I420", "RGB", "BGR", "BGRA", "RGBx"]
TOUT = [(t, lay) for t in ("uint8", "float16", "float32")
        for lay in ("NCHW", "NHWC")]
SIZES = [(1, 1), (2, 3), (7, 5), (33, 17), (64, 48), (320, 240), (17, 63),
         (640, 360), (3, 101)]
LIMITS = [0, 4096, 1 << 20, 16 << 20, 256 << 20]
# (Kr, Kb) of bt601, bt709 and bt2020, each limited and full range: the
# spaces a YUV output's caps may name
MATRICES = [(0.299, 0.114), (0.2126, 0.0722), (0.2627, 0.0593)]
SPACES = [None] + [(kr, kb, full) for kr, kb in MATRICES
                   for full in (False, True)]
# RGB byte order of each packed RGB format: bytes per pixel, R, G, B
RGB_FORMATS = {"RGBA": (4, 0, 1, 2), "RGBx": (4, 0, 1, 2),
               "BGRA": (4, 2, 1, 0), "BGRx": (4, 2, 1, 0),
               "RGB": (3, 0, 1, 2), "BGR": (3, 2, 1, 0)}
TENSOR_DTYPES = {"uint8": np.uint8, "float16": np.float16,
                 "float32": np.float32}


def to_space(rgb, space):
    """@rgb (0..255) in @space: RGB for None, else Y, U, V (0..255)."""
    if space is None:
        return tuple(float(c) for c in rgb)
    kr, kb, full = space
    r, g, b = (c / 255 for c in rgb)
    y = kr * r + (1 - kr - kb) * g + kb * b
    u = (b - y) / (2 * (1 - kb))
    v = (r - y) / (2 * (1 - kr))
    if full:
        return (y * 255, u * 255 + 128, v * 255 + 128)
    return (16 + 219 * y, 128 + 224 * u, 128 + 224 * v)


def box(colours, space):
    """Per channel bounds of what a mix of @colours in @space may give:
    their min and max, with the slack (TOL, GAIN) around them."""
    pts = np.array([to_space(c, space) for c in colours])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return lo * (1 - GAIN) - TOL, hi * (1 + GAIN) + TOL


def inside(colour, bx, space, margin):
    lo, hi = bx
    c = np.array(to_space(colour, space))
    return bool(np.all((c >= lo - margin) & (c <= hi + margin)))


def choose_palette(rng, fills):
    """Two close colours per pipeline, none within TOL of another
    pipeline's bounds (own colours and fill) in any space."""
    grid = [c for c in itertools.product(range(20, 236, 43), repeat=3)]
    for _ in range(200):
        rng.shuffle(grid)
        chosen = []
        for fill in fills:
            for base in grid:
                pair = (base, tuple(min(255, c + 8) for c in base))
                mine = list(pair) + ([fill] if fill is not None else [])
                ok = True
                for other, ofill in zip(chosen, fills):
                    theirs = list(other) + ([ofill] if ofill is not None
                                            else [])
                    for space in SPACES:
                        if (any(inside(c, box(theirs, space), space, TOL)
                                for c in pair) or
                                any(inside(c, box(mine, space), space,
                                           TOL) for c in other)):
                            ok = False
                            break
                    if not ok:
                        break
                if ok:
                    chosen.append(pair)
                    break
            else:
                break
        if len(chosen) == len(fills):
            return chosen
    raise RuntimeError(f"no palette separates fills {fills}")


def make_frame(info, rgb):
    """A buffer of @info's layout painted @rgb (YUV as bt601, limited)."""
    name = info.finfo.name
    w, h = info.width, info.height
    buf = np.zeros(info.size, dtype=np.uint8)
    if name in YUV_IN:
        y, u, v = (int(round(c))
                   for c in to_space(rgb, (0.299, 0.114, False)))
        cw, ch = (w + 1) // 2, (h + 1) // 2
        if name in DEEP_IN:
            b16 = buf.view(np.uint16)
            for r in range(h):
                o = (info.offset[0] + r * info.stride[0]) // 2
                b16[o:o + w] = y * 257
            for r in range(ch):
                o = (info.offset[1] + r * info.stride[1]) // 2
                b16[o:o + 2 * cw:2] = u * 257
                b16[o + 1:o + 2 * cw:2] = v * 257
        else:
            for r in range(h):
                o = info.offset[0] + r * info.stride[0]
                buf[o:o + w] = y
            for r in range(ch):
                if name == "NV12":
                    o = info.offset[1] + r * info.stride[1]
                    buf[o:o + 2 * cw:2] = u
                    buf[o + 1:o + 2 * cw:2] = v
                else:
                    o = info.offset[1] + r * info.stride[1]
                    buf[o:o + cw] = u
                    o = info.offset[2] + r * info.stride[2]
                    buf[o:o + cw] = v
    else:
        bpp, ri, gi_, bi = RGB_FORMATS[name]
        px = np.full(bpp, 255, dtype=np.uint8)
        px[ri], px[gi_], px[bi] = rgb
        row = np.tile(px, w)
        for r in range(h):
            buf[r * info.stride[0]:r * info.stride[0] + w * bpp] = row
    gbuf = Gst.Buffer.new_allocate(None, info.size, None)
    gbuf.fill(0, buf.tobytes())
    return gbuf


class Run:
    """One seed's pipelines and their problems."""

    def __init__(self, stock, seed):
        self.stock = stock
        self.rng = random.Random(seed)
        self.problems = collections.Counter()
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def problem(self, kind, msg):
        with self.lock:
            self.problems[kind] += 1
            if self.problems[kind] <= 3 and not kind.startswith("info-"):
                print(f"  PROBLEM[{kind}]: {msg}", flush=True)


class Pipeline:
    def __init__(self, run, i, cols, fill, rng):
        self.run, self.i, self.cols, self.fill = run, i, cols, fill
        self.rng = rng
        self.convert = i % 4 != 3
        self.appsrc = i % 4 in (0, 1)
        self.letterbox = i % 2 == 0
        self.bgr = run.stock is False and i % 3 == 0
        # what the output may hold: own colours, and the fill where it
        # letterboxes; the order of channels is undone before the check
        self.inputs = INS
        if run.stock and self.convert:
            self.inputs = [f for f in INS if f not in DEEP_IN]
        self.allowed = list(cols) + ([fill] if fill is not None else [])
        if self.appsrc:
            src = "appsrc name=src format=time max-bytes=4000000 block=true"
        else:
            r, g, b = cols[0]
            argb = 0xff000000 | (r << 16) | (g << 8) | b
            src = f"videotestsrc pattern=solid-color foreground-color={argb}"
        lb = str(self.letterbox).lower()
        if run.stock:
            conv = (f"videoconvertscale name=conv add-borders={lb} ! "
                    "capsfilter name=outcf ! ") if self.convert else ""
            ident = "identity"
        else:
            fv = fill[0] if fill is not None else 0
            order = "bgr" if self.bgr else "rgb"
            conv = (f"cudacacheconvert name=conv letterbox={lb} "
                    f"fill-value={fv} channel-order={order} ! "
                    "capsfilter name=outcf ! ") if self.convert else ""
            ident = "cudacacheidentity"
        self.pipe = Gst.parse_launch(
            f"{src} ! capsfilter name=incf ! {conv}{ident} name=ident ! "
            "appsink name=sink sync=false max-buffers=2")
        get = self.pipe.get_by_name
        self.src, self.incf, self.outcf = get("src"), get("incf"), get("outcf")
        self.conv, self.ident = get("conv"), get("ident")
        self.sink = get("sink")
        self.frames = self.changes = self.cycles = self.restarts = 0
        self.pts = self.k = 0
        self.held = collections.deque()
        self.new_caps()

    def new_caps(self):
        rng = self.rng
        fmt = rng.choice(self.inputs)
        w, h = rng.choice(SIZES)
        c = f"video/x-raw,format={fmt},width={w},height={h},framerate=30/1"
        if self.appsrc:
            if fmt in YUV_IN:
                c += ",colorimetry=bt601"
            self.src_caps = Gst.Caps.from_string(c)
            self.src_info = GstVideo.VideoInfo.new_from_caps(self.src_caps)
        else:
            self.incf.set_property("caps", Gst.Caps.from_string(c))
        if self.outcf:
            ow, oh = rng.choice(SIZES)
            if self.run.stock or rng.random() < 0.5:
                c = (f"video/x-raw,format={rng.choice(VOUT)},"
                     f"width={ow},height={oh}")
            else:
                t, lay = rng.choice(TOUT)
                d = f"{ow}:{oh}:3:1" if lay == "NCHW" else f"3:{ow}:{oh}:1"
                c = (f"other/tensors,format=static,num_tensors=1,types={t},"
                     f"layout={lay},dimensions={d}")
            self.outcf.set_property("caps", Gst.Caps.from_string(c))
        self.changes += 1

    # -- rules ----------------------------------------------------------

    def check(self, sample):
        caps, buf = sample.get_caps(), sample.get_buffer()
        st = caps.get_structure(0)
        incaps = (self.src_caps if self.appsrc
                  else self.incf.get_property("caps"))
        desc = (f"p{self.i} frame {self.frames} {caps.to_string()} "
                f"(in {incaps.to_string()})")
        if st.get_name() == "other/tensors":
            ok, info = GstCudaCache.CudaCacheTensorInfo.from_caps(caps)
            meta = GstCudaCache.buffer_get_cuda_cache_tensor_meta(buf)
            if not ok or meta is None or not meta.info.is_equal(info):
                meta_str = meta.info.to_string() if meta else "none"
                return self.run.problem("layout", f"{desc}: meta {meta_str}")
            if buf.get_size() < info.size:
                return self.run.problem(
                    "layout", f"{desc}: {buf.get_size()} bytes")
            return self.check_tensor(buf, st, desc)
        info = GstVideo.VideoInfo.new_from_caps(caps)
        meta = GstVideo.buffer_get_video_meta(buf)
        if meta is not None and (meta.format != info.finfo.format or
                                 meta.width != info.width or
                                 meta.height != info.height):
            return self.run.problem(
                "layout", f"{desc}: meta {meta.format.value_nick} "
                f"{meta.width}x{meta.height}")
        if buf.get_size() < info.size:
            return self.run.problem(
                "layout", f"{desc}: {buf.get_size()} bytes < {info.size}")
        name = info.finfo.name
        offset, stride = list(info.offset), list(info.stride)
        if meta is not None:
            offset, stride = list(meta.offset), list(meta.stride)
        ok, mi = buf.map(Gst.MapFlags.READ)
        if not ok:
            return self.run.problem("map", desc)
        try:
            data = np.frombuffer(mi.data, dtype=np.uint8)

            # 16-bit formats hold their value in the high bits: keep 8
            depth = 2 if name in DEEP_IN else 1

            def plane(p, rows, width):
                end = offset[p] + (rows - 1) * stride[p] + width * depth
                if end > len(data):
                    return None
                px = np.lib.stride_tricks.as_strided(
                    data[offset[p] + depth - 1:], (rows, width),
                    (stride[p], depth))
                return px.astype(np.float64)
            w, h = info.width, info.height
            if name in RGB_FORMATS:
                bpp, ri, gi_, bi = RGB_FORMATS[name]
                px = plane(0, h, w * bpp)
                if px is None:
                    return self.run.problem("layout", f"{desc}: short plane")
                px = px.reshape(h, w, bpp)
                chans = [px[:, :, ri], px[:, :, gi_], px[:, :, bi]]
                return self.check_colour(chans, None, desc)
            cw, ch = (w + 1) // 2, (h + 1) // 2
            y = plane(0, h, w)
            if name != "I420":
                uv = plane(1, ch, 2 * cw)
                u, v = (None, None) if uv is None else (uv[:, 0::2],
                                                        uv[:, 1::2])
            else:
                u, v = plane(1, ch, cw), plane(2, ch, cw)
            if y is None or u is None or v is None:
                return self.run.problem("layout", f"{desc}: short plane")
            _, kr, kb = GstVideo.VideoColorMatrix.get_Kr_Kb(
                info.colorimetry.matrix)
            full = (info.colorimetry.range ==
                    getattr(GstVideo.VideoColorRange, "0_255"))
            return self.check_colour([y, u, v], (kr, kb, full), desc)
        finally:
            buf.unmap(mi)

    def check_tensor(self, buf, st, desc):
        dims = [int(d) for d in st.get_value("dimensions").split(":")]
        layout = st.get_value("layout") or "NCHW"
        dtype = TENSOR_DTYPES[st.get_value("types")]
        w, h = (dims[0], dims[1]) if layout == "NCHW" else (dims[1], dims[2])
        ok, mi = buf.map(Gst.MapFlags.READ)
        if not ok:
            return self.run.problem("map", desc)
        try:
            arr = np.frombuffer(mi.data, dtype=dtype, count=w * h * 3)
            arr = arr.astype(np.float64)
            arr = (arr.reshape(3, h, w) if layout == "NCHW"
                   else arr.reshape(h, w, 3).transpose(2, 0, 1))
            chans = list(arr[::-1] if self.bgr else arr)
            return self.check_colour(chans, None, desc)
        finally:
            buf.unmap(mi)

    def check_colour(self, chans, space, desc):
        lo, hi = box(self.allowed, space)
        for idx, plane in enumerate(chans):
            # written so that NaN fails too
            bad = ~((plane >= lo[idx]) & (plane <= hi[idx]))
            if not bad.any():
                continue
            yy, xx = np.argwhere(bad)[0]
            got = plane[yy, xx]
            names = "YUV" if space else "RGB"
            # the whole pixel, to name whose colour it is
            if space is None:
                pixel = [c[yy, xx] for c in chans]
            elif idx == 0:
                pixel = [plane[yy, xx], chans[1][yy // 2, xx // 2],
                         chans[2][yy // 2, xx // 2]]
            else:
                pixel = [chans[0][2 * yy, 2 * xx], chans[1][yy, xx],
                         chans[2][yy, xx]]
            kind = "colour-garbage"
            for other in self.run.pipelines:
                olo, ohi = box(other.allowed, space)
                if other is not self and all(
                        olo[j] <= pixel[j] <= ohi[j]
                        for j in range(3)):
                    kind = f"colour-foreign(p{other.i})"
            return self.run.problem(
                kind, f"{desc}: {names[idx]} {got:.0f} at {xx},{yy}, "
                f"allowed {lo[idx]:.0f}..{hi[idx]:.0f} "
                f"(colours {self.allowed} in {space})")

    # -- the thread -----------------------------------------------------

    def bus_check(self):
        """Counts the bus's errors; False where the pipeline must restart."""
        ok = True
        bus = self.pipe.get_bus()
        while True:
            m = bus.pop_filtered(Gst.MessageType.ERROR)
            if not m:
                return ok
            err, dbg = m.parse_error()
            ok = False
            if (err.matches(Gst.StreamError.quark(),
                            Gst.StreamError.FORMAT) or
                    "not-negotiated" in (dbg or "") or
                    "not negotiated" in err.message):
                self.run.problem("info-not-negotiated", "")
                continue
            self.run.problem("bus-error", f"p{self.i}: {m.src.get_name()}: "
                             f"{err.message} | {dbg}")

    def restart(self):
        self.pipe.set_state(Gst.State.NULL)
        self.new_caps()
        self.pipe.set_state(Gst.State.PLAYING)
        self.restarts += 1

    def work(self):
        try:
            self.loop()
        except Exception as e:
            self.run.problem("exception", f"p{self.i}: {e!r}")
            raise
        finally:
            self.held.clear()

    def loop(self):
        rng, run = self.rng, self.run
        self.pipe.set_state(Gst.State.PLAYING)
        while not run.stop.is_set():
            if self.appsrc:
                self.k += 1
                b = make_frame(self.src_info, self.cols[self.k % 2])
                b.pts = self.pts
                b.duration = Gst.SECOND // 30
                self.pts += b.duration
                caps = self.src.get_caps()
                if caps is None or not caps.is_equal(self.src_caps):
                    self.src.set_caps(self.src_caps)
                self.src.push_buffer(b)
            sample = self.sink.try_pull_sample(STALL_SECONDS * Gst.SECOND)
            if sample is None:
                if self.bus_check() and not self.sink.is_eos():
                    _, cur, pending = self.pipe.get_state(0)
                    run.problem("stall", f"p{self.i}: no sample for "
                                f"{STALL_SECONDS} s, "
                                f"{cur.value_nick}/{pending.value_nick}, "
                                f"in {self.incf.get_property('caps')}")
                self.restart()
                continue
            self.frames += 1
            self.check(sample)
            if rng.random() < 0.3:
                self.held.append(sample)
            while len(self.held) > rng.randint(0, 3):
                self.held.popleft()
            sample = None
            r = rng.random()
            if r < 0.15:
                self.new_caps()
            elif r < 0.16:
                target = rng.choice([Gst.State.READY, Gst.State.PAUSED,
                                     Gst.State.NULL])
                self.pipe.set_state(target)
                self.pipe.get_state(5 * Gst.SECOND)
                self.pipe.set_state(Gst.State.PLAYING)
                self.cycles += 1
            if not self.bus_check():
                self.restart()


def check_cache(run, where):
    st = GstCudaCache.CudaCache.get_system().get_stats(
        GstCudaCache.CudaCacheScope.GLOBAL)
    if st.idle_bytes > st.cache_limit:
        run.problem("cache-idle>limit",
                    f"{where}: idle {st.idle_bytes} > {st.cache_limit}")
    if st.current_size != st.used_bytes + st.idle_bytes:
        run.problem("cache-size", f"{where}: {st.to_structure('s')}")
    return st


def limiter(run):
    rng = random.Random(run.rng.random())
    while not run.stop.is_set():
        time.sleep(rng.uniform(0.01, 0.3))
        p = rng.choice(run.pipelines)
        el = rng.choice([e for e in (p.conv, p.ident) if e is not None])
        el.set_property("cache-limit", rng.choice(LIMITS))
        el.get_property("current-size")
        el.get_property("cache")
        check_cache(run, "running")


def run_seed(stock, npipe, seconds, seed):
    run = Run(stock, seed)
    rng = run.rng
    fills = []
    for i in range(npipe):
        if i % 4 == 3 or i % 2:
            fills.append(None)
        else:
            v = 0 if stock else rng.choice([0, 114, 255])
            fills.append((v, v, v))
    palette = choose_palette(rng, fills)
    run.pipelines = [Pipeline(run, i, palette[i], fills[i],
                              random.Random(rng.random()))
                     for i in range(npipe)]
    threads = [threading.Thread(target=p.work, daemon=True)
               for p in run.pipelines]
    if not stock:
        threads.append(threading.Thread(target=limiter, args=(run,),
                                        daemon=True))
    for t in threads:
        t.start()
    time.sleep(seconds)
    run.stop.set()
    for t in threads:
        t.join(60)
        if t.is_alive():
            run.problem("hang", "a thread did not finish within 60 s")
            print_counts(stock, seed, run)
            os._exit(1)
    for p in run.pipelines:
        p.pipe.set_state(Gst.State.NULL)
    for p in run.pipelines:
        p.bus_check()
    frames = [p.frames for p in run.pipelines]
    restarts = [p.restarts for p in run.pipelines]
    cycles = [p.cycles for p in run.pipelines]
    changes = [p.changes for p in run.pipelines]
    if not stock:
        # blocks may still be in use here: appsink keeps the buffer of the
        # last sample pulled until it is disposed, so that buffer's pool
        # stops (and frees the rest) only then; stock's GstVideoBufferPool
        # waits the same way ("outstanding buffers 1" on deactivation)
        gc.collect()
        check_cache(run, "after NULL")
    run.pipelines = None
    p = None
    gc.collect()
    if not stock:
        st = check_cache(run, "after unref")
        if st.used_bytes or st.used_blocks:
            run.problem("cache-used-after-unref",
                        f"{st.used_bytes} bytes in {st.used_blocks} blocks")
    print(f"  frames {frames} (total {sum(frames)}) caps changes "
          f"{sum(changes)} state cycles {sum(cycles)} restarts "
          f"{sum(restarts)}", flush=True)
    print_counts(stock, seed, run)
    return run


def print_counts(stock, seed, run):
    counts = {k: v for k, v in sorted(run.problems.items())}
    real = sum(v for k, v in counts.items() if not k.startswith("info-"))
    print(f"{'stock' if stock else 'ours'} seed {seed}: problems {real} "
          f"{counts}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stock", action="store_true")
    parser.add_argument("--pipelines", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--seed", type=int, action="append")
    args = parser.parse_args()
    Gst.init(None)
    total = collections.Counter()
    for seed in args.seed or [1, 2]:
        run = run_seed(args.stock, args.pipelines, args.seconds, seed)
        total.update(run.problems)
    real = {k: v for k, v in total.items() if not k.startswith("info-")}
    print(f"total: {dict(sorted(total.items()))}", flush=True)
    return 1 if real else 0


if __name__ == "__main__":
    sys.exit(main())
