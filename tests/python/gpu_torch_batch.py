# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""The batch example (tests/examples/batch-torch.py) as a user relies on
it: four streams of different sizes, one turning to portrait mid-stream,
batched by cudacachebatch into one float32 tensor that PyTorch reads in
place, the network's findings mapped back to each stream's frames.

- every batch has its four slots present, each slot the same pad and
  stream throughout, its timestamps rising;
- the changing stream's slots say its new size from some batch after the
  change on, and never the old one again;
- each slot's picture geometry is the letterbox of its source (aspect
  kept, fitted, centred), and the tensor agrees: the fill around it, the
  picture's own values on its edges;
- the network's outputs are finite for every slot;
- the torch tensor is the batch buffer's memory (same data pointer,
  on the GPU, or in system memory with --cpu);
- the best cell's box maps back into its source frame, around the point
  the slot's geometry gives for the cell's centre;
- while a batch's tensor is held its blocks are in use; once the pipeline
  has stopped and the last tensor is freed, none of the cache's is.

    gpu_torch_batch.py          # CUDA memory: exits 77 without PyGObject,
                                # a device, PyTorch on CUDA or cudaupload
    gpu_torch_batch.py --cpu    # system memory: exits 77 without
                                # PyGObject or PyTorch

Prints "Checks: N, Failures: F, Errors: E".
"""

import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gpu_torch import require, run, skip, used  # noqa: E402

CPU = "--cpu" in sys.argv[1:]

if CPU:
    try:
        import gi
        gi.require_version("Gst", "1.0")
        gi.require_version("GstCudaCache", "1.0")
        from gi.repository import Gst, GstCudaCache
    except (ImportError, ValueError) as e:
        skip(f"no PyGObject or typelib: {e}")
    Gst.init(None)
    try:
        import torch
    except ImportError:
        skip("no PyTorch (the example's network is PyTorch's)")
else:
    Gst, GstCudaCache, torch = require()

_path = os.path.join(os.path.dirname(__file__), "..", "examples",
                     "batch-torch.py")
_spec = importlib.util.spec_from_file_location("batch_torch", _path)
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

FRAMES = 16
CHANGE_AT = 4


def check_geometry(slot, x):
    """@slot's picture is the letterbox of its source, and @x (its slot of
    the tensor, 3 x SIZE x SIZE) agrees: fill outside, picture on its
    edges."""
    size = example.SIZE
    px, py, pw, ph = slot.picture
    sw, sh = slot.source_width, slot.source_height
    assert 0 <= px and 0 <= py and px + pw <= size and py + ph <= size, \
        slot.picture
    # fitted: the side that limits it fills the slot, the other keeps the
    # source's aspect within a pixel's rounding, centred
    assert pw == size or ph == size, slot.picture
    assert abs(pw - sw * ph / sh) <= 1 and abs(ph - sh * pw / sw) <= 1, \
        (slot.picture, sw, sh)
    assert abs(px - (size - pw) / 2) <= 1 and abs(py - (size - ph) / 2) <= 1, \
        slot.picture

    fill = example.FILL * example.SCALE
    outside = torch.ones(size, size, dtype=torch.bool, device=x.device)
    outside[py:py + ph, px:px + pw] = False
    bars = x[:, outside]
    assert bars.numel() == 3 * (size * size - pw * ph)
    if bars.numel():
        worst = (bars - fill).abs().max().item()
        assert worst < 1e-6, (slot.pad_name, slot.picture, worst)
    # the picture's outermost rows and columns are the picture's
    for edge in (x[:, py, px:px + pw], x[:, py + ph - 1, px:px + pw],
                 x[:, py:py + ph, px], x[:, py:py + ph, px + pw - 1]):
        assert (edge - fill).abs().max().item() > 1e-3, \
            (slot.pad_name, slot.picture, "an edge of the picture is fill")


def check_mapping(slot):
    """The best cell's box comes back inside the source frame, around the
    point of the frame the slot's geometry gives for the cell's centre."""
    sw, sh = slot.source_width, slot.source_height
    assert slot.source_box is not None, \
        (slot.pad_name, slot.box, "a box around a cell on the picture "
         "mapped to nothing")
    x0, y0, x1, y1 = slot.source_box
    assert 0 <= x0 < x1 <= sw and 0 <= y0 < y1 <= sh, \
        (slot.pad_name, slot.source_box, sw, sh)
    px, py, pw, ph = slot.picture
    cx, cy = slot.cell
    fx, fy = (cx - px) * sw / pw, (cy - py) * sh / ph
    eps = 1e-6
    assert x0 - eps <= fx <= x1 + eps and y0 - eps <= fy <= y1 + eps, \
        (slot.pad_name, slot.cell, (fx, fy), slot.source_box)


def test_streams_batched_to_torch_and_mapped_back():
    n_sources = len(example.SOURCES)
    sizes = [(w, h) for _, _, w, h, _ in example.SOURCES]
    changed = example.CHANGED_SIZE
    pads, streams = None, None
    last_pts = [-1] * n_sources
    changing_sizes = []
    cache = None
    held_blocks = 0
    count = 0
    for batch in example.batches(FRAMES, CHANGE_AT, cpu=CPU):
        x = batch.input
        assert tuple(x.shape) == (n_sources, 3, example.SIZE,
                                  example.SIZE), x.shape
        assert x.dtype == torch.float32, x.dtype
        assert x.is_cuda != CPU, x.device
        # no copy: torch reads the batch buffer's own memory
        assert x.data_ptr() == batch.pointer, (hex(x.data_ptr()),
                                               hex(batch.pointer))
        cache = batch.cache
        held_blocks = max(held_blocks, used(cache)[0])

        slots = batch.slots
        assert len(slots) == n_sources, len(slots)
        assert all(s.present for s in slots), \
            f"batch {batch.number}: {[s.present for s in slots]}"
        if pads is None:
            pads = [s.pad_name for s in slots]
            streams = [s.stream_id for s in slots]
            assert pads == [f"sink_{i}" for i in range(n_sources)], pads
            assert all(streams) and len(set(streams)) == n_sources, streams
        assert [s.pad_name for s in slots] == pads
        assert [s.stream_id for s in slots] == streams
        for i, s in enumerate(slots):
            assert s.pts > last_pts[i], (s.pad_name, s.pts, last_pts[i])
            last_pts[i] = s.pts
            size = (s.source_width, s.source_height)
            if i == example.CHANGING:
                changing_sizes.append(size)
            else:
                assert size == sizes[i], (s.pad_name, size, sizes[i])
            assert s.finite, (batch.number, s.pad_name,
                              "the network's output is not finite")
            check_geometry(s, x[i])
            check_mapping(s)
        count += 1
        del x, batch

    assert count == FRAMES, f"{count} batches of {FRAMES} frames a stream"
    # old size up to (and including) the batch pulled at the change, the
    # new one from some batch after it to the end
    old = sizes[example.CHANGING]
    switch = changing_sizes.index(changed) if changed in changing_sizes \
        else None
    assert switch is not None, f"never saw {changed}: {changing_sizes}"
    assert CHANGE_AT < switch, (CHANGE_AT, changing_sizes)
    assert changing_sizes[:switch] == [old] * switch, changing_sizes
    assert changing_sizes[switch:] == [changed] * (FRAMES - switch), \
        changing_sizes

    assert held_blocks >= 1, "a held batch tensor held no block"
    # the generator has stopped the pipeline and freed the last tensor
    blocks, size_used = used(cache)
    assert blocks == 0 and size_used == 0, (blocks, size_used)
    print(f"{count} batches of {n_sources} streams "
          f"({'system' if CPU else 'CUDA'} memory), "
          f"{example.SOURCES[example.CHANGING][0]} "
          f"{old[0]}x{old[1]} to {changed[0]}x{changed[1]} from batch "
          f"{switch} (caps changed after batch {CHANGE_AT}); nothing of "
          f"{cache.get_name()} in use at the end")


if __name__ == "__main__":
    run([test_streams_batched_to_torch_and_mapped_back], __file__)
