# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""A pipeline and PyTorch (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync)
on one CUDA memory pool, the device's current one: once the pipeline
stops and its blocks are freed, PyTorch's allocations of the same size take
the memory the pipeline gave back, and the pool's reserved bytes do not
grow. With the cache's own pool (the default), the same allocations grow
the device's pool by what they take: the control that shows the sharing.
Against GStreamer 1.22 the elements refuse stream-ordered blocks with why,
and that refusal is what is checked there."""

import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
# before PyTorch is imported: its allocator is chosen once
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
from gpu_torch import Pipeline, require, run  # noqa: E402

Gst, GstCudaCache, torch = require(("cudacacheconvert",))

WIDTH, HEIGHT, FRAMES = 1920, 1080, 30
# what the pool may grow by without the sharing being lost: its own
# rounding of one allocation (the driver reserves memory in chunks)
SLACK = 32 << 20
CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5
CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7

cuda = ctypes.CDLL("libcuda.so.1")
torch.cuda.init()
torch.empty(1, device="cuda")   # PyTorch's context and its pool's settings


def device_pool():
    """The device's current memory pool (CUmemoryPool), as PyTorch's
    cudaMallocAsync backend uses it"""
    device = ctypes.c_int()
    pool = ctypes.c_void_p()
    assert cuda.cuDeviceGet(ctypes.byref(device),
                            torch.cuda.current_device()) == 0
    assert cuda.cuDeviceGetMemPool(ctypes.byref(pool), device) == 0
    return pool


def pool_attribute(attr):
    value = ctypes.c_uint64()
    assert cuda.cuMemPoolGetAttribute(device_pool(), attr,
                                      ctypes.byref(value)) == 0
    return value.value


def reserved():
    return pool_attribute(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)


def used():
    return pool_attribute(CU_MEMPOOL_ATTR_USED_MEM_CURRENT)


def trim():
    """The device's pool emptied of what nobody uses, as at a start"""
    torch.cuda.synchronize()
    assert cuda.cuMemPoolTrimTo(device_pool(), ctypes.c_size_t(0)) == 0


# RGBA in, BGRA out: every block of the pipeline's cache is one size
DESCRIPTION = (
    f"videotestsrc num-buffers={FRAMES} ! "
    f"video/x-raw,format=RGBA,width={WIDTH},height={HEIGHT} ! cudaupload ! "
    "cudacacheconvert name=c alloc-method=stream-ordered memory-pool={} ! "
    f"video/x-raw(memory:CUDAMemory),format=BGRA,width={WIDTH},"
    f"height={HEIGHT} ! appsink name=sink sync=false max-buffers=4")


def run_pipeline(memory_pool):
    """Runs the pipeline to its end on @memory_pool's blocks, stops it and
    waits until the cache freed every block; returns (the cache, the bytes
    of the device's pool the pipeline used at its end, the size of a
    block)"""
    before = used()
    p = Pipeline(DESCRIPTION.format(memory_pool))
    cache = None
    block = 0
    try:
        while True:
            sample = p.pull("sink")
            if sample is None:
                break
            block = sample.get_buffer().peek_memory(0).maxsize
            # the element's cache is known once it negotiated
            cache = cache or p.pipeline.get_by_name("c").get_property("cache")
        assert block >= WIDTH * HEIGHT * 4, block
        assert cache.get_alloc_method() == \
            GstCudaCache.CudaCacheAllocMethod.STREAM_ORDERED
        given = used() - before
    finally:
        p.stop()
    # the blocks are freed once the pipeline's context has no user left
    deadline = time.monotonic() + 10
    while True:
        cache.drain()
        stats = cache.get_stats(GstCudaCache.CudaCacheScope.GLOBAL)
        if stats.used_bytes + stats.idle_bytes == 0:
            break
        assert time.monotonic() < deadline, \
            f"the cache still holds {stats.used_bytes + stats.idle_bytes} B"
        time.sleep(0.05)
    torch.cuda.synchronize()
    return cache, given, block


def torch_takes(nbytes, block):
    """How many bytes the device's pool grows by while PyTorch holds
    tensors of @block bytes, @nbytes in all"""
    start = reserved()
    tensors = [torch.empty(block, dtype=torch.uint8, device="cuda")
               for _ in range(-(-nbytes // block))]
    torch.cuda.synchronize()
    grown = reserved() - start
    del tensors
    torch.cuda.synchronize()
    return grown


def restore(cache):
    """The device's cache back to its default method for what follows"""
    cache.set_alloc_method(GstCudaCache.CudaCacheAllocMethod.MALLOC)
    cache.set_memory_pool(GstCudaCache.CudaCacheMemoryPool.OWN, 0)
    cache.clear(GstCudaCache.CudaCacheScope.GLOBAL)


def test_pytorch_takes_what_the_pipeline_gave_back():
    assert torch.cuda.get_allocator_backend() == "cudaMallocAsync"

    # the control: the cache's own pool; PyTorch's pool grows
    trim()
    cache, given, block = run_pipeline("own")
    assert given == 0, f"the device's pool served {given} B of own blocks"
    own_bytes = cache.get_stats(
        GstCudaCache.CudaCacheScope.GLOBAL).pool_reserved
    grown_own = torch_takes(own_bytes, block)
    print(f"own pool: the pipeline's pool held {own_bytes} B; PyTorch "
          f"grew the device's pool by {grown_own} B for it")
    assert grown_own >= own_bytes - SLACK, (grown_own, own_bytes)
    restore(cache)

    # shared: the pipeline's blocks come from the device's pool and go
    # back to it; PyTorch takes them without the pool growing
    trim()
    cache, given, block = run_pipeline("device-current")
    kept = reserved()
    grown = torch_takes(given, block)
    print(f"device-current: the pipeline used {given} B of the device's "
          f"pool ({given // block} blocks of {block} B), {kept} B reserved "
          f"after it stopped; PyTorch took as much and grew the pool by "
          f"{grown} B")
    assert given >= 2 * block, given
    assert kept >= given, "the pipeline's blocks left the pool"
    assert grown <= SLACK, grown
    restore(cache)
    trim()


def test_refused_before_1_24():
    """Against GStreamer 1.22 the element's start fails, saying why"""
    if Gst.version() >= (1, 24, 0, 0):
        print("GStreamer 1.24+: stream-ordered blocks are made, not refused")
        return
    p = Pipeline(DESCRIPTION.format("device-current"))
    try:
        p.pull("sink")
        raise AssertionError("alloc-method=stream-ordered was accepted")
    except AssertionError as e:
        assert "1.24" in str(e), str(e)
    finally:
        p.stop()


tests = [test_refused_before_1_24]
if Gst.version() >= (1, 24, 0, 0):
    tests.insert(0, test_pytorch_takes_what_the_pipeline_gave_back)
run(tests, __file__)
