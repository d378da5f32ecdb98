#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""cudacachebatch under threads: many pads, caps churn, pads coming and going.

    appsrc ! [cudaupload !] b.sink_N     (16 of them, each fed by a thread)
    cudacachebatch name=b [options] ! other/tensors,... ! appsink

Each appsrc is fed random bytes by its own thread (pts = frame number x
duration, so a pad's name and a pts name one frame), in caps that another
thread changes at random: every format the element takes (I420, NV12, RGBA,
BGRA, RGBx, BGRx, RGB, BGR, GRAY8, YUY2, UYVY, P010_10LE, P016_LE; GRAY8
left out in CUDA memory), sizes from 1x1 through odd ones (37x23, 301x199)
to 1280x720, and a few pixel aspect ratios. While PLAYING, pads are
requested for sources of a few frames and released after their last frame
was batched. Each seed draws the conversion options (method, letterbox and
its position, fill-rgb, channel-order, scale, mean, std) and the tensor
(type, layout, size, 3 or 1 channels), and runs twice: batch-size 0 (a slot
per pad; the caps after the element allow the sizes the pads make) and a
fixed batch-size with slots of no pad.

A pad probe before each pad keeps every frame (its caps, its buffer) by
pts. Rules, each failure counted by kind; exit 1 on any:

- every batch's GstCudaCacheBatchMeta has one slot per slot of its caps; a
  present slot names a pad of the element, its stream-id, and that pad's
  next frame (pts): every frame batched once, in order, none lost; an
  absent slot names none;
- a pad is present in every batch from its first frame to its last (the
  element is not live: a batch waits for every pad's frame);
- a batch's pts is its earliest slot's (the sources' segments start at 0,
  so that is its running time), or the end of the batch before where that
  is later (a pad requested while PLAYING starts at running time 0, behind
  the others): batches never go back in time nor overlap;
- every slot of every --check-every'th batch equals its frame converted
  alone by cudacacheconvert with the same options (a second pipeline,
  through cudaupload too with --cuda), byte for byte, with the same picture
  geometry (GstCudaCachePictureMeta); an absent slot is zeros;
- no bus error, no stall (no batch for 10 s), no GStreamer critical (run
  with G_DEBUG=fatal-criticals);
- after the pipelines go to NULL and are dropped: the cache (the system's,
  or the device's with --cuda) holds no block in use, and no GstBuffer is
  alive (GStreamer's leaks tracer, which the script turns on where
  GST_TRACERS is unset).

    batch_stress.py [--seconds S] [--seed N ...] [--cuda] [--fps F]
                    [--check-every K]

--seconds is per run (two runs a seed). The CI's 2-core machine runs it
with --seconds 20 at the default --fps 30 (feeders paced to 30 frames a
second; 0: as fast as the element takes them). On the GPU machine, with
the bundle's Python (docs/gpu.md: `. .gpu/env.sh` after
scripts/gpu-bundle-python.sh), a minute a run on CUDA memory, every batch
checked:

    GST_PLUGIN_PATH_1_0=build/ext/cudacache G_DEBUG=fatal-criticals \\
      GST_REGISTRY=build/batch_stress.registry \\
      python3 tests/stress/batch_stress.py --cuda --seconds 60 --fps 0 \\
        --check-every 1 --seed 1 --seed 2

--cuda exits 77 (skipped), saying why, without cudaupload or a device.
"""

import argparse
import collections
import gc
import os
import random
import sys
import threading
import time

# the leaks tracer, before GStreamer starts, where the caller chose none
os.environ.setdefault("GST_TRACERS", "leaks(filters=GstBuffer)")

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    gi.require_version("GstApp", "1.0")
    gi.require_version("GstCudaCache", "1.0")
    from gi.repository import Gst, GstApp, GstCudaCache, GstVideo  # noqa
except (ImportError, ValueError) as e:
    print(f"SKIP: {e} (install python3-gi and python3-gst-1.0)")
    sys.exit(77)

FORMATS = ["I420", "NV12", "RGBA", "BGRA", "RGBx", "BGRx", "RGB", "BGR",
           "GRAY8", "YUY2", "UYVY", "P010_10LE", "P016_LE"]
# (width, height, weight): 1280x720 costs the CPU path most, so it comes
# less often
SIZES = [(1, 1, 2), (2, 3, 2), (7, 5, 2), (37, 23, 4), (64, 48, 4),
         (3, 101, 2), (160, 90, 3), (301, 199, 2), (1280, 720, 1)]
PARS = ["1/1", "1/1", "1/1", "4/3", "16/11", "10/11"]
METHODS = ["linear", "nearest", "bilinear", "area", "antialias"]
STATIC_PADS = 16
MAX_DYNAMIC = 2
STALL_SECONDS = 10
DURATION = Gst.SECOND // 30


class Source:
    """An appsrc into one pad, fed by its own thread; its frames kept by
    pts by a probe on its source pad until a batch shows them."""

    def __init__(self, run, rng, limit=None):
        self.run, self.rng, self.limit = run, rng, limit
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.frames = collections.deque()   # (pts, caps, buffer), in order
        self.batches = []                   # batch numbers it was present in
        self.pushed = 0
        self.done = False                   # its EOS pushed
        self.next_caps = self.random_caps()
        self.caps = None
        self.appsrc = Gst.ElementFactory.make("appsrc")
        self.appsrc.set_property("format", Gst.Format.TIME)
        self.appsrc.set_property("max-buffers", 2)
        self.appsrc.set_property("block", True)
        self.elements = [self.appsrc]
        if run.cuda:
            self.elements.append(Gst.ElementFactory.make("cudaupload"))
        pad = self.appsrc.get_static_pad("src")
        pad.add_probe(Gst.PadProbeType.BUFFER, self.probe)
        self.pad = None
        self.thread = threading.Thread(target=self.feed, daemon=True)

    def random_caps(self):
        rng = self.rng
        w, h, _ = rng.choices(SIZES, weights=[s[2] for s in SIZES])[0]
        fmt = rng.choice(self.run.formats)
        # GStreamer 1.22's cudaupload copies width x pixel-stride bytes a
        # row (gst-libs/gst/cuda/gstcudautils.c): of an odd-width YUY2 or
        # UYVY frame it leaves the last pair's V in device memory unwritten,
        # so two uploads of one frame differ there. Those frames are even
        # wide with --cuda.
        if self.run.cuda and fmt in ("YUY2", "UYVY") and w % 2:
            w += 1
        return Gst.Caps.from_string(
            f"video/x-raw,format={fmt},width={w},"
            f"height={h},pixel-aspect-ratio={rng.choice(PARS)},"
            "framerate=30/1")

    def change_caps(self):
        caps = self.random_caps()
        with self.lock:
            self.next_caps = caps

    def link(self, batch, pipeline):
        for e in self.elements:
            pipeline.add(e)
        for a, b in zip(self.elements, self.elements[1:]):
            a.link(b)
        self.pad = batch.request_pad_simple("sink_%u")
        self.name = self.pad.get_name()
        src = self.elements[-1].get_static_pad("src")
        if src.link(self.pad) != Gst.PadLinkReturn.OK:
            raise RuntimeError(f"could not link {self.name}")

    def unlink(self, batch, pipeline):
        for e in self.elements:
            e.set_state(Gst.State.NULL)
        self.elements[-1].get_static_pad("src").unlink(self.pad)
        for e in self.elements:
            pipeline.remove(e)
        batch.release_request_pad(self.pad)
        self.pad = None

    def probe(self, pad, info):
        buf = info.get_buffer()
        with self.lock:
            self.frames.append((buf.pts, pad.get_current_caps(), buf))
        return Gst.PadProbeReturn.OK

    def feed(self):
        run, k = self.run, 0
        try:
            while not self.stop.is_set() and (self.limit is None or
                                              k < self.limit):
                with self.lock:
                    caps = self.next_caps
                if caps is not self.caps:
                    self.caps = caps
                    self.appsrc.set_caps(caps)
                buf = run.frame(caps, self.rng)
                buf.pts = k * DURATION
                buf.duration = DURATION
                if self.appsrc.push_buffer(buf) != Gst.FlowReturn.OK:
                    break
                k += 1
                with self.lock:
                    self.pushed = k
                if run.pace:
                    time.sleep(run.pace)
        finally:
            self.appsrc.end_of_stream()
            with self.lock:
                self.done = True

    def all_batched(self):
        with self.lock:
            return self.done and not self.frames and \
                len(self.batches) == self.pushed


class Run:
    """One pipeline of one seed and batch-size, and its problems."""

    def __init__(self, args, seed, batch_size):
        self.rng = random.Random(seed * 1000 + batch_size)
        rng = self.rng
        self.cuda, self.seed, self.batch_size = args.cuda, seed, batch_size
        self.pace = 1.0 / args.fps if args.fps else 0
        self.check_every = args.check_every
        self.formats = args.formats
        self.problems = collections.Counter()
        self.noise = rng.randbytes(4 << 20)
        self.infos = {}

        # the seed's options and tensor
        fill = ", ".join(str(rng.randrange(256)) for _ in range(3))
        self.options = (
            f"method={rng.choice(METHODS)} "
            f"letterbox={rng.choice(['true', 'false'])} "
            f"letterbox-position={rng.choice(['center', 'top-left'])} "
            f"fill-rgb=\"<{fill}>\" "
            f"channel-order={rng.choice(['rgb', 'bgr'])} "
            f"scale={rng.choice([1.0, 0.00392156862745098, 0.5])} "
            f"mean=\"<{rng.choice([0, 0.485, 12])}, 0.456, 0.406>\" "
            f"std=\"<{rng.choice([1, 0.229, 3])}, 0.224, 0.225>\"")
        types = rng.choice(["uint8", "float16", "float32"])
        self.layout = rng.choice(["NCHW", "NHWC"])
        w, h = rng.choice([(33, 21), (40, 40), (64, 48), (17, 95)])
        c = rng.choice([3, 3, 1])
        self.dims = f"{w}:{h}:{c}" if self.layout == "NCHW" else f"{c}:{w}:{h}"
        feature = "(memory:CUDAMemory)" if self.cuda else ""
        self.tensor = (f"other/tensors{feature},format=static,num_tensors=1,"
                       f"types={types},layout={self.layout},dimensions=")
        if batch_size:
            batches = f"(string){self.dims}:{batch_size}"
        else:
            batches = "(string){ " + ", ".join(
                f'"{self.dims}:{n}"' for n in
                range(STATIC_PADS, STATIC_PADS + MAX_DYNAMIC + 1)) + " }"
        self.pipe = Gst.parse_launch(
            f"cudacachebatch name=b batch-size={batch_size} {self.options} "
            f"! {self.tensor}{batches} ! appsink name=out sync=false "
            "max-buffers=2")
        self.batch = self.pipe.get_by_name("b")
        self.sink = self.pipe.get_by_name("out")
        upload = "cudaupload ! " if self.cuda else ""
        self.solo = Gst.parse_launch(
            f"appsrc name=src format=time ! {upload}cudacacheconvert "
            f"{self.options} ! {self.tensor}(string){self.dims}:1 ! "
            "appsink name=out sync=false")
        self.solo_src = self.solo.get_by_name("src")
        self.solo_sink = self.solo.get_by_name("out")
        self.sources = {}
        self.released = set()
        self.batches = self.checked = self.requested = self.frames = 0
        self.last_end = None

    def problem(self, kind, msg):
        self.problems[kind] += 1
        if self.problems[kind] <= 3:
            print(f"  PROBLEM[{kind}]: {msg}", flush=True)

    def frame(self, caps, rng):
        """A buffer of @caps' size, of random bytes."""
        key = caps.to_string()
        size = self.infos.get(key)
        if size is None:
            size = self.infos[key] = \
                GstVideo.VideoInfo.new_from_caps(caps).size
        start = rng.randrange(len(self.noise) - size)
        return Gst.Buffer.new_wrapped(self.noise[start:start + size])

    def add_source(self, limit=None):
        src = Source(self, random.Random(self.rng.random()), limit)
        src.link(self.batch, self.pipe)
        self.sources[src.name] = src
        return src

    def changer(self, stop):
        rng = random.Random(self.rng.random())
        while not stop.wait(rng.uniform(0.01, 0.2)):
            rng.choice(list(self.sources.values())).change_caps()

    # -- a batch ------------------------------------------------------

    def solo_convert(self, caps, buf):
        """@buf converted alone: the tensor's bytes and its picture meta's
        geometry."""
        if not caps.is_equal(self.solo_src.get_caps() or Gst.Caps.new_empty()):
            self.solo_src.set_caps(caps)
        self.solo_src.push_buffer(buf)
        sample = self.solo_sink.try_pull_sample(10 * Gst.SECOND)
        if sample is None:
            msg = self.solo.get_bus().pop_filtered(Gst.MessageType.ERROR)
            why = msg.parse_error()[0].message if msg else "no sample"
            self.problem("solo", f"{caps.to_string()}: {why}")
            return None, None
        return tensor_bytes(sample.get_buffer()), picture_of(
            GstCudaCache.buffer_get_cuda_cache_picture_meta(
                sample.get_buffer()))

    def check_batch(self, sample):
        n = self.batches
        self.batches += 1
        buf = sample.get_buffer()
        ok, info = GstCudaCache.CudaCacheTensorInfo.from_caps(
            sample.get_caps())
        meta = GstCudaCache.buffer_get_cuda_cache_batch_meta(buf)
        if not ok or meta is None or meta.n_slots != info.get_batch():
            return self.problem("meta", f"batch {n}: a meta of "
                                f"{meta and meta.n_slots} slots for "
                                f"{sample.get_caps().to_string()}")
        check = n % self.check_every == 0
        data = tensor_bytes(buf) if check else None
        slot_size = info.size // meta.n_slots
        if check:
            self.checked += 1
        earliest = None
        for i in range(meta.n_slots):
            slot = meta.get_slot(i)
            where = f"batch {n} slot {i} ({slot.pad_name})"
            got = data[i * slot_size:(i + 1) * slot_size] if check else None
            if not slot.present:
                if slot.pad_name is not None:
                    self.problem("absent-named", where)
                if check and any(got):
                    self.problem("absent-not-zero", where)
                continue
            src = self.sources.get(slot.pad_name)
            if src is None:
                kind = ("released-present" if slot.pad_name in
                        self.released else "unknown-pad")
                self.problem(kind, where)
                continue
            with src.lock:
                frame = src.frames.popleft() if src.frames else None
                src.batches.append(n)
            if frame is None or frame[0] != slot.pts:
                self.problem("order", f"{where}: pts {slot.pts}, the pad's "
                             f"next frame {frame and frame[0]}")
                continue
            self.frames += 1
            if slot.stream_id != src.pad.get_stream_id():
                self.problem("stream-id", f"{where}: {slot.stream_id}")
            if earliest is None or slot.pts < earliest:
                earliest = slot.pts
            if check:
                want, picture = self.solo_convert(frame[1], frame[2])
                if want is not None and want != got:
                    diff = next(k for k in range(slot_size)
                                if want[k] != got[k])
                    self.problem("slot-bytes", f"{where}: differs from "
                                 f"the frame converted alone at byte {diff} "
                                 f"of {slot_size} ({frame[1].to_string()})")
                g = slot.geometry
                mine = (rect(g.picture), rect(g.source), g.source_width,
                        g.source_height)
                if picture is not None and mine != picture:
                    self.problem("slot-geometry",
                                 f"{where}: {mine}, alone {picture}")
        want = earliest if self.last_end is None else max(earliest,
                                                           self.last_end)
        if buf.pts != want:
            self.problem("pts", f"batch {n}: pts {buf.pts}, earliest slot's "
                         f"{earliest}, the batch before's end "
                         f"{self.last_end}")
        if buf.duration == Gst.CLOCK_TIME_NONE:
            self.problem("pts", f"batch {n}: no duration")
        else:
            self.last_end = buf.pts + buf.duration

    def check_source(self, src):
        """Every frame of @src batched, in consecutive batches."""
        if src.frames:
            self.problem("lost", f"{src.name}: {len(src.frames)} frames of "
                         f"{src.pushed} never batched")
        b = src.batches
        if b and b != list(range(b[0], b[0] + len(b))):
            gap = next(j for j in range(1, len(b)) if b[j] != b[j - 1] + 1)
            self.problem("gap", f"{src.name}: absent from batch "
                         f"{b[gap - 1] + 1} between its frames")

    # -- pads while PLAYING -------------------------------------------

    def churn_pads(self):
        dynamic = [s for s in self.sources.values() if s.limit is not None]
        for src in dynamic:
            if src.all_batched():
                self.check_source(src)
                src.unlink(self.batch, self.pipe)
                del self.sources[src.name]
                self.released.add(src.name)
        if (len(dynamic) < MAX_DYNAMIC and self.rng.random() < 0.05 and
                not self.ending):
            src = self.add_source(limit=self.rng.randint(1, 40))
            for e in reversed(src.elements):
                e.sync_state_with_parent()
            src.thread.start()
            self.requested += 1

    # -- the run ------------------------------------------------------

    def bus_error(self):
        msg = self.pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if msg:
            err, dbg = msg.parse_error()
            self.problem("bus-error", f"{msg.src.get_name()}: {err.message} "
                         f"| {dbg}")
        return msg is not None

    def go(self, seconds):
        for _ in range(STATIC_PADS):
            self.add_source()
        self.ending = False
        self.solo.set_state(Gst.State.PLAYING)
        self.pipe.set_state(Gst.State.PLAYING)
        for src in list(self.sources.values()):
            src.thread.start()
        stop_changer = threading.Event()
        changer = threading.Thread(target=self.changer, args=(stop_changer,),
                                   daemon=True)
        changer.start()
        end = time.monotonic() + seconds
        eos = False
        while not eos:
            if not self.ending and time.monotonic() > end:
                # the end: every source stops, its last frame batched
                self.ending = True
                stop_changer.set()
                changer.join()
                for src in self.sources.values():
                    src.stop.set()
            sample = self.sink.try_pull_sample(STALL_SECONDS * Gst.SECOND)
            if sample is None:
                eos = self.sink.is_eos()
                if not self.bus_error() and not eos:
                    self.problem("stall", f"no batch for {STALL_SECONDS} s "
                                 f"after {self.batches}")
                if not eos:
                    break
                continue
            self.check_batch(sample)
            del sample
            self.churn_pads()
            if self.bus_error():
                break
        self.ending = True
        stop_changer.set()
        for src in self.sources.values():
            src.stop.set()

        for src in self.sources.values():
            self.check_source(src)
        self.pipe.set_state(Gst.State.NULL)
        self.solo.set_state(Gst.State.NULL)
        for src in self.sources.values():
            src.thread.join(10)
            if src.thread.is_alive():
                self.problem("hang", f"{src.name}'s feeder did not end")
        print(f"  batch-size {self.batch_size}: {self.batches} batches "
              f"of {self.frames} frames ({self.checked} checked slot by "
              f"slot), {self.requested} pads requested and "
              f"{len(self.released)} released while PLAYING; "
              f"{self.tensor}{self.dims}; {self.options}", flush=True)
        self.sources = self.pipe = self.solo = self.batch = None
        self.sink = self.solo_src = self.solo_sink = None


def tensor_bytes(buf):
    """A tensor buffer's bytes (CUDA memory's size counts its padding)."""
    size = GstCudaCache.buffer_get_cuda_cache_tensor_meta(buf).info.size
    ok, mi = buf.map(Gst.MapFlags.READ)
    try:
        return bytes(mi.data[:size])
    finally:
        buf.unmap(mi)


def rect(r):
    return (r.x, r.y, r.w, r.h)


def picture_of(meta):
    if meta is None:
        return None
    g = meta.geometry
    return (rect(g.picture), rect(g.source), g.source_width, g.source_height)


def cache_of_batches(cuda):
    """The cache the batches come from: the system's, or the device's."""
    if not cuda:
        return GstCudaCache.CudaCache.get_system()
    context = GstCudaCache.CudaCache.device_open_context(0)
    return GstCudaCache.CudaCache.device_get_cache(context)


def cache_in_use(cache):
    """Bytes and blocks in use in @cache."""
    st = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
    return st.used_bytes, st.used_blocks


def live_buffers():
    """How many GstBuffers are alive, where the leaks tracer runs; None where not."""
    for tracer in Gst.tracing_get_active_tracers():
        if type(tracer).__gtype__.name == "GstLeaksTracer":
            live = tracer.emit("get-live-objects")
            objects = live.get_value("live-objects-list")
            return len(objects)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--fps", type=float, default=30)
    parser.add_argument("--check-every", type=int, default=4)
    args = parser.parse_args()
    Gst.init(None)
    args.formats = FORMATS
    if args.cuda:
        upload = Gst.ElementFactory.find("cudaupload")
        if upload is None or GstCudaCache.CudaCache.device_get_count() == 0:
            print("SKIP: --cuda needs nvcodec's cudaupload and a CUDA device")
            return 77
        # what both cudaupload and the element's CUDA pads take: GRAY8 has
        # no CUDA layout in GStreamer 1.22
        made = Gst.Caps.new_empty()
        for t in upload.get_static_pad_templates():
            if t.direction == Gst.PadDirection.SRC:
                made = t.get_caps()
        args.formats = [f for f in FORMATS if f != "GRAY8" and
                        made.can_intersect(Gst.Caps.from_string(
                            f"video/x-raw(memory:CUDAMemory),format={f}"))]
    cache = cache_of_batches(args.cuda)
    total = collections.Counter()
    for seed in args.seed or [1, 2]:
        for batch_size in (0, STATIC_PADS + MAX_DYNAMIC + 1):
            run = Run(args, seed, batch_size)
            run.go(args.seconds)
            problems = run.problems
            run = None
            # twice at least: a collection frees what holds the next cycle
            while gc.collect():
                pass
            # what the pipelines' threads and the cache's reaper free as
            # they wind down, given a moment; anything left is outstanding
            deadline = time.monotonic() + 5
            while True:
                used, live = cache_in_use(cache), live_buffers()
                if (used == (0, 0) and not live) or \
                        time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            if used != (0, 0):
                problems["cache-in-use"] += 1
                print(f"  PROBLEM[cache-in-use]: {used[0]} bytes in "
                      f"{used[1]} blocks after NULL", flush=True)
            if live:
                problems["buffers-alive"] += 1
                print(f"  PROBLEM[buffers-alive]: {live} after NULL",
                      flush=True)
            live = None
            total.update(problems)
            print(f"seed {seed} batch-size {batch_size}: problems "
                  f"{dict(sorted(problems.items()))}", flush=True)
    if live_buffers() is None:
        print("(no leaks tracer: buffers alive after NULL not counted)")
    print(f"total: {dict(sorted(total.items()))}", flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
