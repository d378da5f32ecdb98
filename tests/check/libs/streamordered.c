/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Stream-ordered blocks on a real device (GStreamer 1.24+): made from a
 * CUDA memory pool, laid out as gst-cuda lays out its own, kept apart from
 * malloc blocks, the pool bounded by the cache's limit and emptied by a
 * clear; against 1.22 the method is refused with why, by the library and
 * by the elements. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gmodule.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cudacache/gstcudacache-compat-private.h>
#include "../cudacache-check-gpu.h"

#define CAPS_1080 "video/x-raw(memory:CUDAMemory),format=NV12,width=1920,height=1080"
#define CAPS_720 "video/x-raw(memory:CUDAMemory),format=NV12,width=1280,height=720"

/* Configures @pool for @caps_str from @cache; @stream_ordered: the config's
 * "cuda-stream-ordered-alloc" (-1: unset) */
static gboolean
configure (GstBufferPool * pool, const gchar * caps_str, GstCudaCache * cache,
    gint stream_ordered)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gboolean ret;

  fail_unless (caps != NULL);
  gst_buffer_pool_config_set_params (config, caps, 0, 1, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_cuda_cache (config, cache);
  if (stream_ordered >= 0)
    gst_structure_set (config, "cuda-stream-ordered-alloc", G_TYPE_BOOLEAN,
        stream_ordered, NULL);
  ret = gst_buffer_pool_set_config (pool, config);
  gst_caps_unref (caps);
  return ret;
}

static GstBuffer *
acquire (GstBufferPool * pool)
{
  GstBuffer *buf = NULL;

  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)));
  return buf;
}

/* The choice of pool is checked whatever the build: a handle with the
 * handle choice only */
GST_START_TEST (test_memory_pool_choice_checked)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 30, 0);
  GError *error = NULL;
  guintptr handle = 1;

  fail_if (gst_cuda_cache_set_memory_pool (cache,
          GST_CUDA_CACHE_MEMORY_POOL_HANDLE, 0, &error));
  fail_unless (error != NULL && strstr (error->message, "handle"));
  g_clear_error (&error);
  fail_if (gst_cuda_cache_set_memory_pool (cache,
          GST_CUDA_CACHE_MEMORY_POOL_OWN, 0x1234, &error));
  g_clear_error (&error);
  fail_if (gst_cuda_cache_set_memory_pool (cache, 7, 0, &error));
  g_clear_error (&error);
  fail_unless_equals_int (gst_cuda_cache_get_memory_pool (cache, &handle),
      GST_CUDA_CACHE_MEMORY_POOL_OWN);
  fail_unless_equals_int (handle, 0);
  fail_unless (gst_cuda_cache_set_memory_pool (cache,
          GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT, 0, &error));
  fail_unless_equals_int (gst_cuda_cache_get_memory_pool (cache, NULL),
      GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Blocks made before the first pool of their layout needs them are its
 * hits; they stay while their context has a user in the cache (here
 * holder, configured from it) */
GST_START_TEST (test_warm_makes_hits)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32, 0);
  GstBufferPool *holder = gst_cuda_cache_pool_new (context);
  GstCaps *caps = gst_caps_from_string (CAPS_720);
  GstCudaCacheStats stats;
  GError *error = NULL;
  GstBuffer *bufs[3];
  guint i;

  /* configured from @cache, the holder is a user of the context there */
  fail_unless (configure (holder, CAPS_1080, cache, -1));
  fail_unless (gst_cuda_cache_warm (cache, context, caps, 3, &error), "%s",
      error ? error->message : "");
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.misses, 4);
  fail_unless_equals_int (stats.idle_blocks, 4);

  fail_unless (configure (holder, CAPS_720, cache, -1));
  fail_unless (gst_buffer_pool_set_active (holder, TRUE));
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (holder, &bufs[i],
            NULL), GST_FLOW_OK);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.misses, 4);
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    gst_buffer_unref (bufs[i]);
  fail_unless (gst_buffer_pool_set_active (holder, FALSE));
  gst_caps_unref (caps);
  gst_object_unref (holder);
  gst_object_unref (cache);
}

GST_END_TEST;

/* warm-caps: the layouts listed are in the device's cache once the element
 * negotiated, hits of the next pool of its context: made after the
 * negotiation, so that nothing but the element keeps the context's blocks
 * (as before a decoder's first pool) */
GST_START_TEST (test_element_warm_caps)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc ! cudaupload ! "
      "cudacacheconvert warm-caps=\"video/x-raw,format=NV12,width=1234,"
      "height=566; video/x-raw,format=RGBA,width=402,height=302\" "
      "warm-buffers=2 ! video/x-raw(memory:CUDAMemory),format=RGBA,"
      "width=64,height=48 ! fakesink", NULL);
  GstCudaContext *primary = gst_cuda_cache_device_get_primary_context (0);
  GstCudaCache *cache = gst_cuda_cache_device_get_cache (primary);
  GstBufferPool *pool;
  const gchar *warmed[] = {
    "video/x-raw(memory:CUDAMemory),format=NV12,width=1234,height=566",
    "video/x-raw(memory:CUDAMemory),format=RGBA,width=402,height=302",
  };
  GstCudaCacheStats before, after;
  guint i;

  fail_unless (pipeline != NULL);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  pool = gst_cuda_cache_pool_new (primary);
  for (i = 0; i < G_N_ELEMENTS (warmed); i++) {
    GstBuffer *a, *b;

    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
    fail_unless (configure (pool, warmed[i], cache, -1));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, NULL),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, NULL),
        GST_FLOW_OK);
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after);
    fail_unless_equals_uint64 (after.misses, before.misses);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pool);
  gst_object_unref (cache);
  gst_object_unref (primary);
  gst_object_unref (pipeline);
}

GST_END_TEST;

#if !GST_CUDA_CACHE_HAVE_STREAM

/* GStreamer 1.22: refused, with the version it needs, nothing changed */
GST_START_TEST (test_refused_before_1_24)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GError *error = NULL;
  GstElement *pipeline;
  GstMessage *msg;
  GstBuffer *buf;

  fail_if (gst_cuda_cache_set_alloc_method (cache,
          GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED, &error));
  fail_unless (error != NULL);
  fail_unless (strstr (error->message, "1.24") != NULL, "%s", error->message);
  g_clear_error (&error);
  fail_unless_equals_int (gst_cuda_cache_get_alloc_method (cache),
      GST_CUDA_CACHE_ALLOC_METHOD_MALLOC);

  /* a config asking for it is refused too, read back as malloc */
  fail_if (configure (pool, CAPS_1080, cache, TRUE));
  fail_unless (configure (pool, CAPS_1080, cache, -1));
  buf = acquire (pool);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  /* the element fails to start, saying why */
  pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! cudaupload ! "
      "cudacacheconvert alloc-method=stream-ordered ! fakesink", NULL);
  fail_unless (pipeline != NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    fail_unless (strstr (error->message, "stream-ordered") != NULL, "%s",
        error->message);
    fail_unless (debug && strstr (debug, "1.24") != NULL, "%s", debug);
    g_free (debug);
    g_clear_error (&error);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  gst_object_unref (cache);
}

GST_END_TEST;

#else

static GstCudaCacheStats
stats_of (GstCudaCache * cache)
{
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  return stats;
}

/* The driver's pool functions, for what the tests check behind the
 * library's back */
static struct
{
  CUresult (CUDAAPI * MemPoolCreate) (CUmemoryPool *, const CUmemPoolProps *);
  CUresult (CUDAAPI * MemPoolDestroy) (CUmemoryPool);
  CUresult (CUDAAPI * MemPoolGetAttribute) (CUmemoryPool, CUmemPool_attribute,
      void *);
  CUresult (CUDAAPI * DeviceGetMemPool) (CUmemoryPool *, CUdevice);
} drv;

static void
load_driver (void)
{
  GModule *module = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);

  fail_unless (module != NULL);
  fail_unless (g_module_symbol (module, "cuMemPoolCreate",
          (gpointer *) & drv.MemPoolCreate));
  fail_unless (g_module_symbol (module, "cuMemPoolDestroy",
          (gpointer *) & drv.MemPoolDestroy));
  fail_unless (g_module_symbol (module, "cuMemPoolGetAttribute",
          (gpointer *) & drv.MemPoolGetAttribute));
  fail_unless (g_module_symbol (module, "cuDeviceGetMemPool",
          (gpointer *) & drv.DeviceGetMemPool));
}

static guint64
pool_used (CUmemoryPool pool)
{
  cuuint64_t value = 0;

  fail_unless_equals_int (drv.MemPoolGetAttribute (pool,
          CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &value), CUDA_SUCCESS);
  return value;
}

/* A block of the library's stream-ordered allocation, not gst-cuda's */
static gboolean
is_stream_ordered (GstBuffer * buf)
{
  return gst_cuda_memory_get_user_data (GST_CUDA_MEMORY_CAST
      (gst_buffer_peek_memory (buf, 0))) != NULL;
}

static GstCudaCache *
stream_ordered_cache (guint64 limit)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 34,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GError *error = NULL;

  gst_cuda_cache_set_limit (cache, limit);
  fail_unless (gst_cuda_cache_set_alloc_method (cache,
          GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED, &error), "%s",
      error ? error->message : "");
  return cache;
}

/* Writes (@write) or checks a pattern in every pixel of every plane */
static void
pattern (GstVideoFrame * frame, gboolean write)
{
  guint p, x, y;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);

    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (frame, p); y++) {
      for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (frame, 0); x++) {
        guint8 value = (guint8) (x * 3 + y * 7 + p);

        if (write)
          data[y * stride + x] = value;
        else
          fail_unless_equals_int (data[y * stride + x], value);
      }
    }
  }
}

/* Pixels written on the CPU come back through the device, in a copy the
 * cache makes stream-ordered too; the pool's figures count the blocks */
GST_START_TEST (test_stream_ordered_blocks)
{
  GstCudaCache *cache = stream_ordered_cache (1ULL << 30);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstVideoFrame frame;
  GstVideoInfo info;
  GstCudaCacheStats stats;
  GstBuffer *buf, *copy;
  GstCaps *caps;

  fail_unless (configure (pool, CAPS_1080, cache, -1));
  buf = acquire (pool);
  fail_unless (is_stream_ordered (buf));
  caps = gst_caps_from_string (CAPS_1080);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);

  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  pattern (&frame, TRUE);
  gst_video_frame_unmap (&frame);

  copy = gst_buffer_copy_deep (buf);
  fail_unless (is_stream_ordered (copy));
  fail_unless (gst_video_frame_map (&frame, &info, copy, GST_MAP_READ));
  pattern (&frame, FALSE);
  gst_video_frame_unmap (&frame);

  stats = stats_of (cache);
  fail_unless (stats.pool_used >= 2 * gst_buffer_get_size (buf),
      "pool-used %" G_GUINT64_FORMAT, stats.pool_used);
  fail_unless (stats.pool_reserved >= stats.pool_used);

  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* An odd-sized tensor's bytes, exactly, written and read on the CPU */
GST_START_TEST (test_stream_ordered_tensor)
{
  GstCudaCache *cache = stream_ordered_cache (1ULL << 30);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  const gsize n = 3 * 37 * 53;
  guint8 *host = g_malloc (n), *back = g_malloc0 (n);
  GstBuffer *buf, *copy;
  gsize i;

  fail_unless (configure (pool, "other/tensors(memory:CUDAMemory),"
          "format=static,num_tensors=1,types=uint8,layout=NHWC,"
          "dimensions=3:53:37:1", cache, -1));
  buf = acquire (pool);
  fail_unless (is_stream_ordered (buf));
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), n);
  for (i = 0; i < n; i++)
    host[i] = (guint8) (i * 13 + 1);
  fail_unless_equals_uint64 (gst_buffer_fill (buf, 0, host, n), n);
  copy = gst_buffer_copy_deep (buf);
  fail_unless_equals_uint64 (gst_buffer_get_size (copy), n);
  fail_unless_equals_uint64 (gst_buffer_extract (copy, 0, back, n), n);
  fail_unless (memcmp (host, back, n) == 0);

  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_object_unref (cache);
  g_free (host);
  g_free (back);
}

GST_END_TEST;

/* A config asking for malloc memory (legacy CUDA IPC's) gets it from a
 * stream-ordered cache, and the two kinds never share a block */
GST_START_TEST (test_config_chooses_the_method)
{
  GstCudaCache *cache = stream_ordered_cache (1ULL << 30);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCudaCacheStats before;
  GstBuffer *buf;

  fail_unless (configure (pool, CAPS_1080, cache, -1));
  buf = acquire (pool);
  fail_unless (is_stream_ordered (buf));
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  /* an idle stream-ordered block of these caps is there: not taken */
  before = stats_of (cache);
  fail_unless (configure (pool, CAPS_1080, cache, FALSE));
  buf = acquire (pool);
  fail_if (is_stream_ordered (buf));
  fail_unless_equals_uint64 (stats_of (cache).misses, before.misses + 1);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  /* a malloc cache still gives stream-ordered blocks to a config asking */
  fail_unless (gst_cuda_cache_set_alloc_method (cache,
          GST_CUDA_CACHE_ALLOC_METHOD_MALLOC, NULL));
  fail_unless (configure (pool, CAPS_1080, cache, TRUE));
  buf = acquire (pool);
  fail_unless (is_stream_ordered (buf));
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Releases @n blocks of @caps_str made by @cache through @pool (a user of
 * its context's blocks: they go when the context's last pool does) */
static void
cycle (GstBufferPool * pool, GstCudaCache * cache, const gchar * caps_str,
    guint n)
{
  GstBuffer *bufs[8];
  guint i;

  fail_unless (n <= G_N_ELEMENTS (bufs));
  fail_unless (configure (pool, caps_str, cache, -1));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
  for (i = 0; i < n; i++)
    gst_buffer_unref (bufs[i]);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
}

#define CAPS_64M "video/x-raw(memory:CUDAMemory),format=RGBA,width=4096,height=4096"
#define CAPS_64M_B "video/x-raw(memory:CUDAMemory),format=BGRA,width=4096,height=4096"

/* The pool holds no more than the cache's limit once the cache let blocks
 * go, and nothing after a clear */
GST_START_TEST (test_limit_and_clear_bound_the_pool)
{
  const guint64 limit = 200ULL << 20;
  GstCudaCache *cache = stream_ordered_cache (limit);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCudaCacheStats stats;

  /* 3 x 64 MiB kept, then 3 more of another key push them out */
  cycle (pool, cache, CAPS_64M, 3);
  cycle (pool, cache, CAPS_64M_B, 3);
  gst_cuda_cache_drain (cache);
  stats = stats_of (cache);
  fail_unless (stats.evictions >= 3);
  fail_unless (stats.current_size <= limit);
  fail_unless (stats.pool_reserved <= MAX (limit, stats.pool_used),
      "the pool holds %" G_GUINT64_FORMAT " bytes over a limit of %"
      G_GUINT64_FORMAT " (used %" G_GUINT64_FORMAT ")", stats.pool_reserved,
      limit, stats.pool_used);
  fail_unless (stats.pool_reserved >= stats.current_size);

  fail_unless (gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL) > 0);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.current_size, 0);
  fail_unless_equals_uint64 (stats.pool_used, 0);
  fail_unless_equals_uint64 (stats.pool_reserved, 0);
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* The device's current pool (PyTorch's, CuPy's) and one given by handle
 * hold the blocks */
GST_START_TEST (test_device_current_and_given_pools)
{
  GstCudaCache *cache = stream_ordered_cache (1ULL << 30);
  CUmemoryPool current = NULL, given = NULL;
  CUmemPoolProps props = { 0, };
  guint64 used_before;
  GstBufferPool *pool;
  GstBuffer *buf;
  gint device_id = 0;
  CUdevice device;

  load_driver ();
  g_object_get (context, "cuda-device-id", &device_id, NULL);
  fail_unless (gst_cuda_context_push (context));
  fail_unless_equals_int (CuDeviceGet (&device, device_id), CUDA_SUCCESS);
  fail_unless_equals_int (drv.DeviceGetMemPool (&current, device),
      CUDA_SUCCESS);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  fail_unless_equals_int (drv.MemPoolCreate (&given, &props), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);

  fail_unless (gst_cuda_cache_set_memory_pool (cache,
          GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT, 0, NULL));
  used_before = pool_used (current);
  pool = gst_cuda_cache_pool_new (context);
  fail_unless (configure (pool, CAPS_1080, cache, -1));
  buf = acquire (pool);
  fail_unless (is_stream_ordered (buf));
  fail_unless (pool_used (current) >= used_before + gst_buffer_get_size (buf));
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (pool_used (current), used_before);

  fail_unless (gst_cuda_cache_set_memory_pool (cache,
          GST_CUDA_CACHE_MEMORY_POOL_HANDLE, (guintptr) given, NULL));
  pool = gst_cuda_cache_pool_new (context);
  fail_unless (configure (pool, CAPS_1080, cache, -1));
  buf = acquire (pool);
  fail_unless (pool_used (given) >= gst_buffer_get_size (buf));
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (pool_used (given), 0);
  gst_object_unref (cache);

  fail_unless (gst_cuda_context_push (context));
  fail_unless_equals_int (drv.MemPoolDestroy (given), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
}

GST_END_TEST;

/* A reserve is held from the own pool's start and stays through a clear */
GST_START_TEST (test_reserve_held_from_start)
{
  const guint64 reserve = 64ULL << 20;
  GstCudaCache *cache = stream_ordered_cache (1ULL << 30);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCudaCacheStats stats;
  GstBuffer *buf;
  guint64 value = 0;

  gst_cuda_cache_set_reserve (cache, reserve);
  g_object_get (cache, "reserve", &value, NULL);
  fail_unless_equals_uint64 (value, reserve);
  fail_unless (configure (pool, CAPS_1080, cache, -1));
  buf = acquire (pool);
  stats = stats_of (cache);
  fail_unless (stats.pool_reserved >= reserve, "%" G_GUINT64_FORMAT,
      stats.pool_reserved);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.pool_used, 0);
  fail_unless (stats.pool_reserved >= reserve, "%" G_GUINT64_FORMAT,
      stats.pool_reserved);
  fail_unless (stats.pool_reserved <= 2 * reserve, "%" G_GUINT64_FORMAT,
      stats.pool_reserved);

  gst_cuda_cache_set_reserve (cache, 0);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats_of (cache).pool_reserved, 0);
  gst_object_unref (cache);
}

GST_END_TEST;

#if GST_CHECK_VERSION (1, 26, 0)
/* Every format the pool lays out, odd sizes included, as gst-cuda lays out
 * its own stream-ordered images (a GstCudaPoolAllocator asked for them) */
GST_START_TEST (test_layout_matches_gst_cuda_stream_ordered)
{
  static const gchar *formats[] = {
    "I420", "YV12", "NV12", "NV21", "P010_10LE", "P016_LE", "I420_10LE",
    "Y444", "Y444_16LE", "Y42B", "I422_10LE", "I422_12LE", "RGBA", "BGRA",
    "RGBx", "BGRx", "ARGB", "ABGR", "RGB", "BGR", "RGBP", "BGRP", "GBR",
    "GBRA", "BGR10A2_LE", "RGB10A2_LE", "YUY2", "UYVY",
  };
  static const gint sizes[][2] = { {638, 362}, {1, 1}, {3, 5}, {1920, 1081},
  {34, 2}
  };
  GstCudaCache *cache = stream_ordered_cache (1ULL << 32);
  GstCudaStream *stream = gst_cuda_stream_new (context);
  gboolean supported = FALSE;
  guint f, s, p;

  g_object_get (context, "stream-ordered-alloc", &supported, NULL);
  fail_unless (supported, "the device has no memory pools");
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gchar *caps_str = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
          "format=%s,width=%d,height=%d", formats[f], sizes[s][0],
          sizes[s][1]);
      GstCaps *caps = gst_caps_from_string (caps_str);
      GstBufferPool *pool = gst_cuda_cache_pool_new (context);
      GstCudaPoolAllocator *stock;
      GstStructure *config;
      GstMemory *theirs = NULL;
      GstCudaMemory *a, *b;
      GstVideoInfo info;
      GstBuffer *buf;

      fail_unless (gst_video_info_from_caps (&info, caps));
      config =
          gst_structure_new ("config", GST_CUDA_ALLOCATOR_OPT_STREAM_ORDERED,
          G_TYPE_BOOLEAN, TRUE, NULL);
      stock = gst_cuda_pool_allocator_new_full (context, stream, &info, config);
      fail_unless (gst_cuda_allocator_set_active (GST_CUDA_ALLOCATOR (stock),
              TRUE));
      fail_unless_equals_int (gst_cuda_pool_allocator_acquire_memory (stock,
              &theirs), GST_FLOW_OK);

      fail_unless (configure (pool, caps_str, cache, -1), "%s", caps_str);
      buf = acquire (pool);
      fail_unless (is_stream_ordered (buf));
      a = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf, 0));
      b = GST_CUDA_MEMORY_CAST (theirs);
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
        fail_unless_equals_int (a->info.stride[p], b->info.stride[p]);
        fail_unless_equals_uint64 (a->info.offset[p], b->info.offset[p]);
      }
      /* gst-cuda gives an odd-height NV21 one chroma row too few (its
       * height is not rounded up as NV12's is): ours has the row */
      if (g_str_equal (formats[f], "NV21") && sizes[s][1] % 2)
        fail_unless (a->info.size > b->info.size, "%s", caps_str);
      else
        fail_unless_equals_uint64 (a->info.size, b->info.size);

      gst_buffer_unref (buf);
      fail_unless (gst_buffer_pool_set_active (pool, FALSE));
      gst_object_unref (pool);
      gst_memory_unref (theirs);
      fail_unless (gst_cuda_allocator_set_active (GST_CUDA_ALLOCATOR (stock),
              FALSE));
      gst_object_unref (stock);
      gst_caps_unref (caps);
      g_free (caps_str);
    }
  }
  gst_cuda_stream_unref (stream);
  gst_object_unref (cache);
}

GST_END_TEST;
#endif

/* The element's alloc-method reaches the device's cache */
GST_START_TEST (test_element_alloc_method)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=5 ! "
      "cudaupload ! cudacacheconvert name=c alloc-method=stream-ordered ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=160,height=96 ! "
      "fakesink", NULL);
  GstCudaCache *cache = NULL;
  GstElement *convert;
  GstMessage *msg;

  fail_unless (pipeline != NULL);
  convert = gst_bin_get_by_name (GST_BIN (pipeline), "c");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      20 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_object_get (convert, "cache", &cache, NULL);
  fail_unless (cache != NULL);
  fail_unless_equals_int (gst_cuda_cache_get_alloc_method (cache),
      GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED);
  fail_unless (stats_of (cache).pool_reserved > 0);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* the device's cache is shared: back to the default for what follows */
  fail_unless (gst_cuda_cache_set_alloc_method (cache,
          GST_CUDA_CACHE_ALLOC_METHOD_MALLOC, NULL));
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats_of (cache).pool_reserved, 0);
  gst_object_unref (cache);
  gst_object_unref (convert);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A consumer that cannot take stream-ordered memory asks for malloc
 * blocks in its pool config and gets them from a stream-ordered cache:
 * cudaipcsink ipc-mode=legacy (legacy CUDA IPC exports only cuMemAlloc
 * memory; a stream-ordered block would fail its export), while mmap mode,
 * which asks nothing of the method and copies what is not its own,
 * gets the cache's stream-ordered blocks. Both run to EOS. */
typedef struct
{
  GstElement *sink;
  guint buffers, stream_ordered, same_context;
} IpcProbe;

static GstPadProbeReturn
ipc_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  IpcProbe *probe = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstContext *shared = gst_element_get_context (probe->sink,
      GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *sink_context = NULL;

  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)));
  probe->buffers++;
  probe->stream_ordered += is_stream_ordered (buf);
  /* the sink's own context: it exports the memory instead of copying it */
  if (shared && gst_structure_get (gst_context_get_structure (shared),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &sink_context, NULL) &&
      sink_context == GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf,
              0))->context)
    probe->same_context++;
  gst_clear_object (&sink_context);
  if (shared)
    gst_context_unref (shared);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_cudaipcsink_gets_what_it_asks)
{
  const gchar *modes[] = { "legacy", "mmap" };
  guint m;

  if (!gst_element_factory_find ("cudaipcsink")) {
    g_print ("cudaipcsink: not in this GStreamer, not checked\n");
    return;
  }
  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    gchar *address = g_strdup_printf ("%s/gst-cuda-cache-ipc-%d-%s",
        g_get_tmp_dir (), (gint) getpid (), modes[m]);
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=12 ! "
        "video/x-raw,width=322,height=182 ! cudaupload ! "
        "cudacacheconvert name=c alloc-method=stream-ordered ! "
        "video/x-raw(memory:CUDAMemory),format=RGBA,width=161,height=91 ! "
        "cudaipcsink name=s ipc-mode=%s address=%s", modes[m], address);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    IpcProbe probe = { NULL, };
    GstCudaCache *cache = NULL;
    GstElement *convert;
    GstMessage *msg;
    GstPad *pad;

    fail_unless (pipeline != NULL, "%s", desc);
    probe.sink = gst_bin_get_by_name (GST_BIN (pipeline), "s");
    convert = gst_bin_get_by_name (GST_BIN (pipeline), "c");
    pad = gst_element_get_static_pad (probe.sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, ipc_probe, &probe, NULL);
    gst_object_unref (pad);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        20 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "%s: no EOS", modes[m]);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      fail ("%s: %s (%s)", modes[m], error->message, GST_STR_NULL (debug));
    }
    gst_message_unref (msg);
    fail_unless_equals_int (probe.buffers, 12);
    fail_unless_equals_int (probe.same_context, 12);
    /* legacy asked for malloc blocks; mmap asked nothing of the method */
    fail_unless_equals_int (probe.stream_ordered, m == 0 ? 0 : 12);

    g_object_get (convert, "cache", &cache, NULL);
    fail_unless (cache != NULL);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    /* the device's cache is shared: back to the default for what follows */
    fail_unless (gst_cuda_cache_set_alloc_method (cache,
            GST_CUDA_CACHE_ALLOC_METHOD_MALLOC, NULL));
    gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
    gst_object_unref (cache);
    gst_object_unref (convert);
    gst_object_unref (probe.sink);
    gst_object_unref (pipeline);
    g_unlink (address);
    g_free (address);
    g_free (desc);
  }
}

GST_END_TEST;

#endif /* GST_CUDA_CACHE_HAVE_STREAM */

static Suite *
streamordered_suite (void)
{
  Suite *s = suite_create ("streamordered");
  TCase *tc = tcase_create ("gpu");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cudacache_gpu_setup, cudacache_gpu_teardown);
  tcase_add_test (tc, test_memory_pool_choice_checked);
  tcase_add_test (tc, test_warm_makes_hits);
  tcase_add_test (tc, test_element_warm_caps);
#if !GST_CUDA_CACHE_HAVE_STREAM
  tcase_add_test (tc, test_refused_before_1_24);
#else
  tcase_add_test (tc, test_stream_ordered_blocks);
  tcase_add_test (tc, test_stream_ordered_tensor);
  tcase_add_test (tc, test_config_chooses_the_method);
  tcase_add_test (tc, test_limit_and_clear_bound_the_pool);
  tcase_add_test (tc, test_device_current_and_given_pools);
  tcase_add_test (tc, test_reserve_held_from_start);
#if GST_CHECK_VERSION (1, 26, 0)
  tcase_add_test (tc, test_layout_matches_gst_cuda_stream_ordered);
#endif
  tcase_add_test (tc, test_element_alloc_method);
  tcase_add_test (tc, test_cudaipcsink_gets_what_it_asks);
#endif

  return s;
}

CUDACACHE_CHECK_GPU_MAIN (streamordered);
