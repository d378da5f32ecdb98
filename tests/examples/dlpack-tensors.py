#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""A pipeline makes tensors; each goes to NumPy (system memory) or PyTorch
(CUDA memory, --cuda) through DLPack, without a copy. Along the way it reads
the statistics of the cache the tensors come from and, halfway, lowers its
limit.

    dlpack-tensors.py [--frames N] [--cuda]

Needs python3-gi, python3-gst-1.0 and NumPy (or PyTorch with --cuda), the
GstCudaCache-1.0 typelib and the gstcudacache module (docs/python.md).
"""

import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstCudaCache", "1.0")
from gi.repository import Gst, GstCudaCache  # noqa: E402

import gstcudacache  # noqa: E402

WIDTH, HEIGHT = 320, 240


def print_stats(cache, when):
    s = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
    print(f"{when}: {cache.get_name()} limit={s.cache_limit} "
          f"current={s.current_size} used={s.used_blocks} blocks "
          f"idle={s.idle_blocks} blocks hits={s.hits} misses={s.misses} "
          f"evictions={s.evictions}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--cuda", action="store_true",
                        help="CUDA tensors, read by PyTorch on the GPU")
    args = parser.parse_args()

    Gst.init(None)
    if args.cuda and not Gst.ElementFactory.find("cudaupload"):
        sys.exit("--cuda needs nvcodec's cudaupload, which registers only "
                 "with a CUDA driver and device")
    if args.cuda:
        try:
            import torch
        except ImportError:
            sys.exit("--cuda reads the tensors with PyTorch, which is not "
                     "installed (pip install torch)")
        to_array = torch.from_dlpack
        upload, memory = "cudaupload ! ", "(memory:CUDAMemory)"
    else:
        import numpy
        to_array = numpy.from_dlpack
        upload, memory = "", ""

    # RGB in 0..1, normalised with ImageNet's mean and std
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={args.frames} pattern=ball ! "
        f"video/x-raw,width={WIDTH},height={HEIGHT} ! {upload}"
        f"cudacacheconvert scale=0.00392156862745098 "
        f"mean=\"<0.485, 0.456, 0.406>\" std=\"<0.229, 0.224, 0.225>\" ! "
        f"other/tensors{memory},types=float32,"
        f"dimensions={WIDTH}:{HEIGHT}:3:1 ! "
        f"appsink name=sink sync=false max-buffers=2")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)

    cache = None
    frames = 0
    bus = pipeline.get_bus()
    while True:
        # a failing pipeline never gives appsink its end of stream
        sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
        if sample is None:
            if sink.get_property("eos"):
                break
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            if msg:
                pipeline.set_state(Gst.State.NULL)
                sys.exit(f"the pipeline failed: {msg.parse_error()[0].message}")
            continue
        buffer = sample.get_buffer()
        if cache is None:
            # the tensors' pool leads to their cache: the device's for CUDA
            # memory, the process's system-memory cache otherwise
            cache = buffer.pool.get_cache()
            print_stats(cache, "first frame")

        array = to_array(gstcudacache.Tensor.from_sample(sample))
        del sample, buffer
        print(f"frame {frames}: {tuple(array.shape)} {array.dtype} "
              f"mean {float(array.mean()):.4f}")
        # the buffer goes back to the pool, its memory to the cache, here
        del array

        frames += 1
        if frames == args.frames // 2:
            print_stats(cache, "halfway")
            # never fails the pipeline: blocks above it are freed when they
            # come back instead of kept
            s = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
            cache.set_limit(s.current_size // 2)
            print_stats(cache, "limit lowered to half the current size")

    pipeline.set_state(Gst.State.NULL)
    del pipeline, sink
    if cache is not None:
        print_stats(cache, "end")
    print(f"{frames} frames")
    return 0 if frames == args.frames else 1


if __name__ == "__main__":
    sys.exit(main())
