# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""What the PyTorch GPU tests share: the checks that make them skip, a
pipeline pulled from by appsink name, the cache's figures, and the runner
that prints gst-check's summary line.

They run through PyGObject and the GstCudaCache-1.0 typelib, with the
python3 on PATH when the test runs: on the project's GPU machine a
virtualenv with PyTorch, given PyGObject, the typelibs and libgirepository
by scripts/gpu-bundle-python.sh (docs/gpu.md). GStreamer's own Python
overrides (python3-gst-1.0) are not needed: nothing here uses
Gst.ValueArray, Gst.Fraction or Gst.Buffer.map().
"""

import gc
import os
import sys
import threading
import time
import traceback

# the checkout's module where PYTHONPATH names none (meson names the
# checkout's, scripts/gpu-use-installed.py the installed package's)
sys.path.append(os.path.join(os.path.dirname(__file__), "..", "..", "python"))


def skip(reason):
    print(f"skipped: {reason}")
    sys.exit(77)


def require(elements=()):
    """Gst, GstCudaCache and torch, once PyGObject, a CUDA device, PyTorch
    on CUDA and every element of @elements are there; else exits 77 with
    the reason."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        gi.require_version("GstApp", "1.0")
        gi.require_version("GstCudaCache", "1.0")
        gi.require_version("GstVideo", "1.0")
        from gi.repository import Gst, GstCudaCache
    except (ImportError, ValueError) as e:
        skip(f"no PyGObject or typelib: {e} (on the GPU machine: "
             "scripts/gpu-bundle-python.sh, docs/gpu.md)")
    Gst.init(None)
    if GstCudaCache.CudaCache.device_get_count() == 0:
        skip("no CUDA device or driver on this machine")
    try:
        import torch
    except ImportError:
        skip("no PyTorch")
    if not torch.cuda.is_available():
        skip("no CUDA device for PyTorch")
    for name in ("cudaupload",) + tuple(elements):
        if Gst.ElementFactory.find(name) is None:
            skip(f"no element {name}")
    # which files ran: the build's or the installed packages'
    import gstcudacache
    from gi import _gi
    plugin = Gst.Registry.get().find_plugin("cudacache")
    print("using", gstcudacache.__file__, "and",
          _gi.Repository.get_default().get_typelib_path("GstCudaCache"),
          "and", plugin.get_filename() if plugin else "no plugin")
    return Gst, GstCudaCache, torch


def find_element(*names):
    """The first of @names that is registered, or None."""
    from gi.repository import Gst
    return next((n for n in names if Gst.ElementFactory.find(n)), None)


def used(cache):
    """The cache's used blocks and bytes, all threads."""
    from gi.repository import GstCudaCache
    stats = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
    return stats.used_blocks, stats.used_bytes


class Pipeline:
    """A parsed pipeline, playing, whose appsinks are pulled from by name;
    a pipeline error fails the pull with the error's message rather than a
    wait for samples that never come."""

    def __init__(self, description, context=None):
        """@context: a GstCuda.Context its CUDA elements share, given to
        the pipeline before it starts (elements keep the context they
        found when they started)"""
        from gi.repository import Gst
        self.pipeline = Gst.parse_launch(description)
        if context is not None:
            import gi
            gi.require_version("GstCuda", "1.0")
            from gi.repository import GstCuda
            self.pipeline.set_context(
                GstCuda.context_new_cuda_context(context))
        self.pipeline.set_state(Gst.State.PLAYING)

    def pull(self, name):
        """The next sample of appsink @name, None at the end of stream."""
        from gi.repository import Gst
        sink = self.pipeline.get_by_name(name)
        bus = self.pipeline.get_bus()
        while True:
            sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
            if sample is not None:
                return sample
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            if msg is not None:
                err, debug = msg.parse_error()
                raise AssertionError(f"{msg.src.get_name()}: {err.message} "
                                     f"({debug})")
            if sink.get_property("eos"):
                return None

    def wait_eos(self, timeout_s=60):
        """Waits for the end of stream; fails on an error or a timeout."""
        from gi.repository import Gst
        msg = self.pipeline.get_bus().timed_pop_filtered(
            timeout_s * Gst.SECOND,
            Gst.MessageType.EOS | Gst.MessageType.ERROR)
        assert msg is not None, f"no end of stream in {timeout_s} s"
        if msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            raise AssertionError(f"{msg.src.get_name()}: {err.message} "
                                 f"({debug})")

    def stop(self):
        from gi.repository import Gst
        self.pipeline.set_state(Gst.State.NULL)
        self.pipeline = None
        gc.collect()


def run(tests, path):
    """Runs @tests, prints a line per failure in gst-check's form and the
    summary line; exits 1 if any failed."""
    failures = 0
    for test in tests:
        try:
            test()
            print(f"PASS {test.__name__}")
        except Exception as e:
            failures += 1
            tb = traceback.extract_tb(e.__traceback__)
            print(f"{os.path.basename(path)}:{tb[-1].lineno}:F:gpu:"
                  f"{test.__name__}:0: {e!r}")
            traceback.print_exc()
    print(f"Checks: {len(tests)}, Failures: {failures}, Errors: 0")
    sys.exit(1 if failures else 0)


class Busy:
    """A thread that keeps a PyTorch stream of its own running kernels of
    @ms milliseconds each, one always queued behind the running one."""

    def __init__(self, torch, ms):
        self.torch = torch
        self.stream = torch.cuda.Stream()
        self.cycles = self.calibrate(ms)
        self.running = False
        self.thread = None

    def calibrate(self, ms):
        torch = self.torch
        cycles = 10_000_000
        with torch.cuda.stream(self.stream):
            torch.cuda._sleep(cycles)   # warm
            self.stream.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.cuda._sleep(cycles)
            end.record()
            end.synchronize()
        per_ms = cycles / start.elapsed_time(end)
        return int(per_ms * ms)

    def loop(self):
        torch = self.torch
        with torch.cuda.stream(self.stream):
            previous = None
            while self.running:
                torch.cuda._sleep(self.cycles)
                event = torch.cuda.Event()
                event.record()
                if previous is not None:
                    previous.synchronize()
                previous = event
            self.stream.synchronize()

    def __enter__(self):
        self.running = True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()
