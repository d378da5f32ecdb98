/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The properties every element of the plugin has (gstcudacacheelementprops.h):
 * one definition of each, so that gst-inspect-1.0 says the same of them on
 * every element. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacacheelementprops.h"

/* the name nvcodec's elements use */
GParamSpec *
gst_cuda_cache_param_spec_device_id (void)
{
  return g_param_spec_int ("cuda-device-id", "CUDA device ID",
      "CUDA device to use when the pipeline has no CUDA context yet "
      "(-1: the pipeline's, or device 0); with -1 the element follows "
      "the device of the CUDA memory that arrives, as nvcodec's do", -1,
      G_MAXINT, -1,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
}

GParamSpec *
gst_cuda_cache_param_spec_cache_limit (void)
{
  return g_param_spec_uint64 ("cache-limit", "Cache limit",
      "Limit, in bytes, of the cache this element's memory comes from "
      "(the device's cache for CUDA memory, the process's system-memory "
      "cache otherwise): idle blocks above it are freed least recently "
      "used first, 0 disables caching. The cache is shared, and the "
      "last write wins, whoever made it. Set before negotiation, it is "
      "applied once the element knows its cache, unless that cache's "
      "limit was set later; no other cache is touched. Reads give the "
      "negotiated cache's limit; before negotiation the value written, "
      "or 0 if none was. Default: the cache's own limit, which depends "
      "on the machine and so reads and shows as 0 (0 written disables "
      "caching): half the device's memory for CUDA memory, half the "
      "machine's RAM for system memory, or " GST_CUDA_CACHE_LIMIT_ENV
      " (bytes, K/M/G/T suffix, or a percentage of that memory)",
      0, G_MAXUINT64, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING | GST_PARAM_DOC_SHOW_DEFAULT);
}

GParamSpec *
gst_cuda_cache_param_spec_alloc_method (void)
{
  return g_param_spec_enum ("alloc-method", "Allocation method",
      "How the cache this element's CUDA memory comes from makes its "
      "images and tensors: malloc (cuMemAllocPitch, freed with a cuMemFree "
      "that waits for the device) or stream-ordered (from a CUDA memory "
      "pool, memory-pool; a miss takes memory the pool holds in "
      "microseconds, frees wait for nothing). Stream-ordered needs "
      "GStreamer 1.24 or later: against 1.22 the element fails to start, "
      "saying why. Cache-wide: applied to the device's cache at "
      "negotiation, if written, the last write winning; reads give that "
      "cache's method once negotiated. A pool whose config asks for "
      "memory of one kind (legacy CUDA IPC) still gets it",
      GST_TYPE_CUDA_CACHE_ALLOC_METHOD, GST_CUDA_CACHE_ALLOC_METHOD_MALLOC,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
}

GParamSpec *
gst_cuda_cache_param_spec_memory_pool (void)
{
  return g_param_spec_enum ("memory-pool", "Memory pool",
      "With alloc-method=stream-ordered, the CUDA memory pool blocks come "
      "from: own (the cache's, keeping at most cache-limit of freed "
      "memory) or device-current (the device's current pool, the one "
      "PyTorch's cudaMallocAsync backend and CuPy's MemoryAsyncPool use: "
      "the pipeline and the model share its memory and the cache's "
      "limit). Cache-wide, applied as alloc-method is; a pool handle is "
      "given through the library (gst_cuda_cache_set_memory_pool ()): "
      "handle set here fails the element's start",
      GST_TYPE_CUDA_CACHE_MEMORY_POOL, GST_CUDA_CACHE_MEMORY_POOL_OWN,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
}

GParamSpec *
gst_cuda_cache_param_spec_stats_interval (void)
{
  return g_param_spec_uint ("stats-interval", "Stats interval",
      "Milliseconds between '" GST_CUDA_CACHE_STATS_MESSAGE_NAME
      "' element messages "
      "while buffers flow, and one more at end of stream; 0: none. "
      "Fields: current-size, used-bytes, idle-bytes, cache-limit, "
      "used-blocks, idle-blocks, hits, misses, evictions, peak-size, "
      "peak-used-bytes, alloc-retries, alloc-failures, alloc-time, "
      "alloc-time-max, free-time, free-time-max (ns), pool-reserved, "
      "pool-used (the CUDA memory pools of stream-ordered blocks), "
      "cache (its name), memory (CUDAMemory or SystemMemory)", 0,
      G_MAXUINT, 0,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}

GParamSpec *
gst_cuda_cache_param_spec_tensor_meta (void)
{
  return g_param_spec_boolean ("tensor-meta", "Tensor meta",
      "Put GStreamer's GstTensorMeta (its analytics library, GStreamer 1.26 "
      "and later; nothing where the library was built without it) on each "
      "tensor, describing it for elements that read GStreamer's API alone: "
      "id " GST_CUDA_CACHE_TENSOR_ID_NCHW " or " GST_CUDA_CACHE_TENSOR_ID_NHWC
      ", data type, dimensions outermost first, its data the buffer's own "
      "memory. That memory is then shared, so GStreamer copies it before a "
      "writable map: turn this off where an element writes into the "
      "tensors in place", TRUE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING | GST_PARAM_DOC_SHOW_DEFAULT);
}

/* Posts @cache's statistics from @element: a GST_CUDA_CACHE_STATS_MESSAGE_NAME
 * element message, with the cache's name and the kind of memory */
void
gst_cuda_cache_post_stats (GstElement * element, GstCudaCache * cache,
    gboolean cuda_memory)
{
  GstCudaCacheStats stats;
  GstStructure *s;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  s = gst_cuda_cache_stats_to_structure (&stats,
      GST_CUDA_CACHE_STATS_MESSAGE_NAME);
  gst_structure_set (s, "cache", G_TYPE_STRING, GST_OBJECT_NAME (cache),
      "memory", G_TYPE_STRING, cuda_memory ? "CUDAMemory" : "SystemMemory",
      NULL);
  GST_LOG_OBJECT (element, "posting %" GST_PTR_FORMAT, s);
  gst_element_post_message (element,
      gst_message_new_element (GST_OBJECT (element), s));
}
