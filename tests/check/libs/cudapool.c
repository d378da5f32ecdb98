/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCachePool on a real device: caps reuse, layouts, tensors, limits,
 * out of memory, frees off the releasing thread, nvcodec interop. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gmodule.h>
#include <gst/video/video.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cudacache/gstcudacache-compat-private.h>
#include "../cudacache-check-gpu.h"
#include "../cudacache-pipeline.h"
#include "../cudacache-pool-race.h"
#include "../cudacache-dlpack.h"

static GstCudaCacheStats
stats_of (GstCudaCache * cache)
{
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  return stats;
}

static gboolean
configure (GstBufferPool * pool, const gchar * caps_str, guint min_buffers,
    GstCudaCache * cache)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gboolean ret;

  fail_unless (caps != NULL);
  gst_buffer_pool_config_set_params (config, caps, 0, min_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (cache)
    gst_buffer_pool_config_set_cuda_cache (config, cache);
  ret = gst_buffer_pool_set_config (pool, config);
  gst_caps_unref (caps);

  return ret;
}

/* Configures, activates, acquires @n buffers, releases, deactivates. */
static void
cycle (GstBufferPool * pool, const gchar * caps_str, guint n,
    GstCudaCache * cache)
{
  GstBuffer *bufs[16];
  guint i;

  fail_unless (n <= G_N_ELEMENTS (bufs));
  fail_unless (configure (pool, caps_str, n, cache), "refused %s", caps_str);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (bufs[i], 0)));
  }
  for (i = 0; i < n; i++)
    gst_buffer_unref (bufs[i]);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
}

#define CAPS_1080 "video/x-raw(memory:CUDAMemory),format=NV12,width=1920,height=1080"
#define CAPS_720 "video/x-raw(memory:CUDAMemory),format=NV12,width=1280,height=720"

GST_START_TEST (test_renegotiation_to_seen_caps_hits)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCudaCacheStats stats;
  guint64 misses;

  fail_unless (GST_IS_CUDA_BUFFER_POOL (pool));

  cycle (pool, CAPS_1080, 4, cache);
  cycle (pool, CAPS_720, 4, cache);
  misses = stats_of (cache).misses;
  fail_unless_equals_uint64 (misses, 8);

  /* back and forth among seen caps: not one device allocation */
  cycle (pool, CAPS_1080, 4, cache);
  cycle (pool, CAPS_720, 4, cache);
  cycle (pool, CAPS_1080, 4, cache);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.misses, misses);
  fail_unless (stats.hits >= 12);
  fail_unless_equals_int (stats.idle_blocks, 8);

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_device_cache_shared)
{
  GstCudaCache *a = gst_cuda_cache_device_get_cache (context);
  GstCudaContext *other = gst_cuda_cache_device_open_context (0);
  GstCudaCache *b = gst_cuda_cache_device_get_cache (other);
  GstBufferPool *pool1 = gst_cuda_cache_pool_new (context);
  GstBufferPool *pool2 = gst_cuda_cache_pool_new (context);
  GstCudaCache *of_pool;
  guint64 total = 0, misses;

  /* one cache per device, whatever the context */
  fail_unless (a == b);
  of_pool = gst_cuda_cache_pool_get_cache (GST_CUDA_CACHE_POOL (pool1));
  fail_unless (of_pool == a);
  gst_object_unref (of_pool);

  /* the default limit is half the device's memory */
  fail_unless (gst_cuda_cache_device_get_memory_info (context, NULL, &total));
  fail_unless (total > 0);
  if (!g_getenv (GST_CUDA_CACHE_LIMIT_ENV))
    fail_unless_equals_uint64 (gst_cuda_cache_get_limit (a), total / 2);

  /* a second pool finds the first one's blocks */
  cycle (pool1, CAPS_720, 2, NULL);
  misses = stats_of (a).misses;
  cycle (pool2, CAPS_720, 2, NULL);
  fail_unless_equals_uint64 (stats_of (a).misses, misses);

  gst_object_unref (pool2);
  gst_object_unref (pool1);
  gst_object_unref (other);
  gst_object_unref (b);
  gst_object_unref (a);
}

GST_END_TEST;

/* Same caps through GstCudaBufferPool and ours: the same planes. */
GST_START_TEST (test_image_layout_matches_stock_pool)
{
  static const gchar *formats[] = {
    "NV12", "I420", "P010_10LE", "Y444", "Y42B", "RGBA", "BGRx", "RGB",
    "BGR10A2_LE", "YUY2", "GBRA", "I420_10LE",
  };
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32, 0);
  guint i, p;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *caps_str = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
        "format=%s,width=638,height=362", formats[i]);
    GstBufferPool *ours = gst_cuda_cache_pool_new (context);
    GstBufferPool *stock = gst_cuda_buffer_pool_new (context);
    GstBuffer *a, *b;
    GstVideoMeta *ma, *mb;
    GstCudaMemory *ca, *cb;

    fail_unless (configure (ours, caps_str, 1, cache), "%s", caps_str);
    fail_unless (configure (stock, caps_str, 1, NULL), "%s", caps_str);
    fail_unless (gst_buffer_pool_set_active (ours, TRUE));
    fail_unless (gst_buffer_pool_set_active (stock, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (ours, &a, NULL),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (stock, &b, NULL),
        GST_FLOW_OK);

    ma = gst_buffer_get_video_meta (a);
    mb = gst_buffer_get_video_meta (b);
    fail_unless (ma != NULL && mb != NULL);
    fail_unless_equals_int (ma->n_planes, mb->n_planes);
    for (p = 0; p < mb->n_planes; p++) {
      fail_unless_equals_uint64 (ma->offset[p], mb->offset[p]);
      fail_unless_equals_int (ma->stride[p], mb->stride[p]);
    }
    fail_unless_equals_uint64 (gst_buffer_get_size (a),
        gst_buffer_get_size (b));
    ca = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (a, 0));
    cb = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (b, 0));
    fail_unless_equals_uint64 (GST_VIDEO_INFO_SIZE (&ca->info),
        GST_VIDEO_INFO_SIZE (&cb->info));

    gst_buffer_unref (a);
    gst_buffer_unref (b);
    fail_unless (gst_buffer_pool_set_active (ours, FALSE));
    fail_unless (gst_buffer_pool_set_active (stock, FALSE));
    gst_object_unref (ours);
    gst_object_unref (stock);
    g_free (caps_str);
  }

  gst_object_unref (cache);
}

GST_END_TEST;

/* Written linearly through the device pointer, read back on the CPU: the
 * tensor is packed, row pitch equal to the row's bytes. */
GST_START_TEST (test_tensor_is_packed)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32, 0);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  const guint c = 3, h = 37, w = 53;    /* rows of odd byte counts */
  const gsize n = c * h * w;
  GstCudaCacheTensorMeta *meta;
  GstMapInfo map;
  GstBuffer *buf;
  gfloat *host;
  CUDA_MEMCPY2D copy = { 0, };
  gsize i;

  fail_unless (configure (pool, "other/tensors(memory:CUDAMemory),"
          "format=static,num_tensors=1,types=float32,layout=NCHW,"
          "dimensions=53:37:3:1", 1, cache));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);

  meta = gst_buffer_get_cuda_cache_tensor_meta (buf);
  fail_unless (meta != NULL);
  fail_unless (gst_buffer_get_video_meta (buf) == NULL);
  fail_unless_equals_uint64 (meta->info.strides[3], 4);
  fail_unless_equals_uint64 (meta->info.strides[2], w * 4);
  fail_unless_equals_uint64 (meta->info.strides[1], h * w * 4);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), n * 4);

  host = g_new (gfloat, n);
  for (i = 0; i < n; i++)
    host[i] = (gfloat) i *0.5f;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (context));
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = host;
  copy.srcPitch = n * 4;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = (CUdeviceptr) map.data;
  copy.dstPitch = n * 4;
  copy.WidthInBytes = n * 4;
  copy.Height = 1;
  fail_unless_equals_int (CuMemcpy2D (&copy), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  gst_buffer_unmap (buf, &map);

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n * 4);
  for (i = 0; i < n; i++)
    fail_unless (((gfloat *) map.data)[i] == host[i], "element %"
        G_GSIZE_FORMAT ": %f, wrote %f", i, ((gfloat *) map.data)[i], host[i]);
  gst_buffer_unmap (buf, &map);

  g_free (host);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Idle device memory above the limit is really given back to the device. */
GST_START_TEST (test_limit_trims_device_memory)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 34,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  const gchar *big = "video/x-raw(memory:CUDAMemory),format=RGBA,"
      "width=4096,height=4096";
  guint64 free_before, free_cached, free_trimmed;
  GstCudaCacheStats stats;

  fail_unless (gst_cuda_cache_device_get_memory_info (context, &free_before,
          NULL));
  cycle (pool, big, 8, cache);
  stats = stats_of (cache);
  fail_unless_equals_int (stats.idle_blocks, 8);
  fail_unless (stats.idle_bytes >= 8ULL * 4096 * 4096 * 4);
  fail_unless (gst_cuda_cache_device_get_memory_info (context, &free_cached,
          NULL));
  fail_unless (free_before - free_cached >= 8ULL * 4096 * 4096 * 4,
      "the cache holds 512 MiB, yet the device lost only %" G_GUINT64_FORMAT
      " bytes", free_before - free_cached);

  /* room for two blocks: six go, least recently used first */
  gst_cuda_cache_set_limit (cache, stats.idle_bytes / 4);
  gst_cuda_cache_drain (cache);
  stats = stats_of (cache);
  fail_unless_equals_int (stats.idle_blocks, 2);
  fail_unless_equals_uint64 (stats.evictions, 6);
  fail_unless (stats.current_size <= stats.cache_limit);
  fail_unless (gst_cuda_cache_device_get_memory_info (context, &free_trimmed,
          NULL));
  fail_unless (free_trimmed - free_cached >= 6ULL * 4096 * 4096 * 4,
      "trimmed 384 MiB, yet the device got back only %" G_GUINT64_FORMAT
      " bytes", free_trimmed - free_cached);

  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_uint64 (stats_of (cache).current_size, 0);

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* More than the device has: idle blocks are freed, the retry fails, the
 * pool says so, and nothing is lost. */
GST_START_TEST (test_out_of_memory)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 40,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstBufferPool *big = gst_cuda_cache_pool_new (context);
  const gchar *gib = "video/x-raw(memory:CUDAMemory),format=RGBA,"
      "width=16384,height=16384";
  guint64 total = 0, free_after = 0;
  GstCudaCacheStats stats;

  cycle (pool, CAPS_720, 3, cache);
  fail_unless_equals_int (stats_of (cache).idle_blocks, 3);

  /* more 1 GiB frames than the whole device holds */
  fail_unless (gst_cuda_cache_device_get_memory_info (context, NULL, &total));
  fail_unless (configure (big, gib, (guint) (total >> 30) + 8, cache));
  fail_if (gst_buffer_pool_set_active (big, TRUE),
      "%" G_GUINT64_FORMAT " GiB of frames fit in a device of %"
      G_GUINT64_FORMAT " bytes", (total >> 30) + 8, total);

  /* the cache gave up its idle blocks before failing, and the pool gave
   * back what it had preallocated */
  stats = stats_of (cache);
  fail_unless (stats.evictions >= 3);
  fail_unless_equals_uint64 (stats.used_bytes, 0);

  /* nothing is lost: the device gets everything back */
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_uint64 (stats_of (cache).current_size, 0);
  fail_unless (gst_cuda_cache_device_get_memory_info (context, &free_after,
          NULL));
  fail_unless (free_after > total / 2, "only %" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT " bytes free after the failure", free_after, total);
  cycle (pool, CAPS_720, 2, cache);

  gst_object_unref (big);
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

typedef struct
{
  GMutex lock;
  GThread *thread;
} FreeRecord;

static void
record_free (gpointer data, GstMiniObject * obj)
{
  FreeRecord *rec = data;

  g_mutex_lock (&rec->lock);
  rec->thread = g_thread_self ();
  g_mutex_unlock (&rec->lock);
}

GST_START_TEST (test_frees_off_releasing_thread)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 34,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  FreeRecord rec = { 0, };
  GstBuffer *buf;
  GstMemory *mem;

  fail_unless (configure (pool, CAPS_1080, 1, cache));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  mem = gst_buffer_peek_memory (buf, 0);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (mem), record_free, &rec);

  /* nothing may stay idle: the block is dropped when the pool lets go */
  gst_cuda_cache_set_limit (cache, 0);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_cuda_cache_drain (cache);

  g_mutex_lock (&rec.lock);
  fail_unless (rec.thread != NULL, "the block was not freed");
  fail_unless (rec.thread != g_thread_self (),
      "the driver's free ran on the thread that released the buffer");
  g_mutex_unlock (&rec.lock);
  fail_unless_equals_uint64 (stats_of (cache).current_size, 0);

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* cudaupload takes a GstCudaCachePool proposed downstream, and the frames
 * that reach the sink are the cache's. */
typedef struct
{
  CudaCacheFrameCount count;
  gboolean proposed;
} Interop;

static GstPadProbeReturn
answer_allocation (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Interop *io = user_data;
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo vinfo;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;

  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (&vinfo, caps));
  pool = gst_cuda_cache_pool_new (context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, vinfo.size, 2, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  gst_query_add_allocation_pool (query, pool, vinfo.size, 2, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_object_unref (pool);
  io->proposed = TRUE;

  return GST_PAD_PROBE_HANDLED;
}

GST_START_TEST (test_cudaupload_takes_proposed_pool)
{
  Interop io = { 0, };
  GstElement *pipeline, *tap;
  GstPad *pad;
  GError *err = NULL;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=30 ! "
      "video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! identity name=tap ! cudadownload ! fakesink",
      &err);
  fail_unless (pipeline != NULL, "cudaupload/cudadownload missing: %s",
      err ? err->message : "");
  io.count.cache = gst_cuda_cache_device_get_cache (context);

  tap = gst_bin_get_by_name (GST_BIN (pipeline), "tap");
  pad = gst_element_get_static_pad (tap, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      answer_allocation, &io, NULL);
  gst_object_unref (pad);
  gst_object_unref (tap);
  cudacache_count_frames (pipeline, "tap", &io.count);

  cudacache_run_pipeline (pipeline, context);

  fail_unless (io.proposed, "cudaupload never asked for a pool");
  fail_unless_equals_int (io.count.frames, 30);
  fail_unless_equals_int (io.count.from_cache, 30);

  gst_object_unref (io.count.cache);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Four resolutions, switched every 5 frames, through cudacacheidentity:
 * device memory is allocated only on the first visit to each. */
GST_START_TEST (test_switching_resolutions_allocate_once)
{
  GstCudaCacheStats before, first_pass, again;

  {
    GstCudaCache *cache = gst_cuda_cache_device_get_cache (context);

    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
    gst_object_unref (cache);
  }

  /* the application shares its context across pipelines: as a user of
   * it, it keeps the context's blocks from one pipeline to the next */
  gst_cuda_cache_device_add_context_user (context);

  /* the first visit to each resolution allocates */
  run_switching_pipeline ("cudacacheidentity", 1, context, &first_pass);
  fail_unless (first_pass.misses > before.misses);
  GST_INFO ("first pass: %" G_GUINT64_FORMAT " allocations",
      first_pass.misses - before.misses);

  /* three more rounds, a new pipeline on the same context: none */
  run_switching_pipeline ("cudacacheidentity", 3, context, &again);
  fail_unless_equals_uint64 (again.misses, first_pass.misses);
  fail_unless (again.hits > first_pass.hits);

  gst_cuda_cache_device_remove_context_user (context);
}

GST_END_TEST;

static void
set_flag (gpointer data, GObject * obj)
{
  *(gboolean *) data = TRUE;
}

/* Idle blocks hold their context: when the context's last user (its pools,
 * or whoever called add_context_user) is gone, they are freed, and a
 * finished pipeline's context with them. */
GST_START_TEST (test_context_freed_with_last_user)
{
  GstCudaContext *own = gst_cuda_cache_device_open_context (0);
  GstCudaCache *cache = gst_cuda_cache_device_get_cache (own);
  gboolean finalized = FALSE;
  GstBufferPool *pool;
  guint idle, misses;

  g_object_weak_ref (G_OBJECT (own), set_flag, &finalized);
  idle = stats_of (cache).idle_blocks;

  pool = gst_cuda_cache_pool_new (own);
  cycle (pool, CAPS_720, 2, NULL);
  fail_unless_equals_int (stats_of (cache).idle_blocks, idle + 2);

  /* a user besides the pools keeps the blocks from one pool to the next */
  gst_cuda_cache_device_add_context_user (own);
  gst_object_unref (pool);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (stats_of (cache).idle_blocks, idle + 2);
  misses = stats_of (cache).misses;
  pool = gst_cuda_cache_pool_new (own);
  cycle (pool, CAPS_720, 2, NULL);
  fail_unless_equals_uint64 (stats_of (cache).misses, misses);

  /* no user left: the blocks go, and the context is not kept alive */
  gst_object_unref (pool);
  gst_cuda_cache_device_remove_context_user (own);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (stats_of (cache).idle_blocks, idle);
  gst_object_unref (own);
  fail_unless (finalized, "the cache kept a finished context alive");

  gst_object_unref (cache);
}

GST_END_TEST;

/* A config the pool refuses leaves it as it was. */
GST_START_TEST (test_refused_config_leaves_pool_unchanged)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstVideoMeta *meta;
  GstBuffer *buf;

  fail_unless (configure (pool, "video/x-raw(memory:CUDAMemory),format=RGBA,"
          "width=32,height=16", 1, cache));
  /* a format the CUDA allocator cannot lay out */
  fail_if (configure (pool, "video/x-raw(memory:CUDAMemory),format=GRAY8,"
          "width=64,height=48", 1, cache));

  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->format, GST_VIDEO_FORMAT_RGBA);
  fail_unless_equals_int (meta->width, 32);
  fail_unless_equals_int (meta->height, 16);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* GstCudaBufferPool's config fields and options: what the pool cannot do
 * (an option it lacks, a stream-ordered allocation against 1.22) is
 * refused, the config left as it would take it, which then sets; what it
 * does, accepted. */
GST_START_TEST (test_config_fields_read_or_refused)
{
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=32,height=16");
  GstStructure *config;
  gboolean stream_ordered = TRUE;

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 0, 1, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  gst_structure_set (config, "cuda-stream-ordered-alloc", G_TYPE_BOOLEAN,
      TRUE, NULL);
  fail_if (gst_buffer_pool_set_config (pool, config));

  /* read back: as the pool would take it, stream-ordered where this build
   * makes it (libs/streamordered) */
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_structure_get_boolean (config, "cuda-stream-ordered-alloc",
          &stream_ordered));
  fail_unless_equals_int (stream_ordered, GST_CUDA_CACHE_HAVE_STREAM);
  fail_unless (gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META));
  fail_if (gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT));
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_caps_unref (caps);
  gst_object_unref (pool);
}

GST_END_TEST;

/* Configures @pool for @caps_str on @stream (NULL: none), activates it
 * and acquires one buffer */
static GstBuffer *
acquire_caps_on_stream (GstBufferPool * pool, GstCudaCache * cache,
    GstCudaCacheStream * stream, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstBuffer *buf;

  gst_buffer_pool_config_set_params (config, caps, 0, 1, 0);
  gst_buffer_pool_config_set_cuda_cache (config, cache);
  gst_cuda_cache_compat_config_set_stream (config, stream);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);

  return buf;
}

/* acquire_caps_on_stream () for CAPS_720 */
static GstBuffer *
acquire_on_stream (GstBufferPool * pool, GstCudaCache * cache,
    GstCudaCacheStream * stream)
{
  return acquire_caps_on_stream (pool, cache, stream, CAPS_720);
}

/* Acquires one buffer of a pool configured for CAPS_720 on @stream and
 * returns the stream its memory carries. */
static GstCudaCacheStream *
stream_of_pool_buffer (GstBufferPool * pool, GstCudaCache * cache,
    GstCudaCacheStream * stream)
{
  GstCudaCacheStream *mem_stream;
  GstBuffer *buf = acquire_on_stream (pool, cache, stream);

  mem_stream = gst_cuda_cache_compat_memory_get_stream
      (gst_buffer_peek_memory (buf, 0));
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  return mem_stream;
}

/* A memory keeps the stream it was allocated on (1.24+): the pool
 * allocates on its config's stream, and a block of one stream is never
 * handed to a user of another. Where memory carries no stream (1.22)
 * every block carries none. */
GST_START_TEST (test_blocks_keep_their_stream)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCudaCacheStream *a = gst_cuda_cache_compat_memory_stream_new (context);
  GstCudaCacheStream *b = gst_cuda_cache_compat_memory_stream_new (context);
  guint64 misses;

  fail_unless ((a != NULL) == (b != NULL));
  fail_unless (stream_of_pool_buffer (pool, cache, a) == a);
  misses = stats_of (cache).misses;

  /* another stream: a block of its own */
  fail_unless (stream_of_pool_buffer (pool, cache, b) == b);
  if (a)
    fail_unless_equals_uint64 (stats_of (cache).misses, misses + 1);
  misses = stats_of (cache).misses;

  /* back to the first: its block again */
  fail_unless (stream_of_pool_buffer (pool, cache, a) == a);
  fail_unless_equals_uint64 (stats_of (cache).misses, misses);

  gst_object_unref (pool);
  gst_cuda_cache_compat_stream_clear (&a);
  gst_cuda_cache_compat_stream_clear (&b);
  gst_object_unref (cache);
}

GST_END_TEST;

/* The driver calls the next test makes beyond gst-cuda's loader */
typedef struct
{
  CUresult (CUDAAPI * LaunchHostFunc) (CUstream stream, void (CUDA_CB * fn)
      (void *), void *data);
  CUresult (CUDAAPI * MemsetD8Async) (CUdeviceptr dst, unsigned char v,
      size_t n, CUstream stream);
  CUresult (CUDAAPI * MemcpyDtoDAsync) (CUdeviceptr dst, CUdeviceptr src,
      size_t n, CUstream stream);
  CUresult (CUDAAPI * MemcpyDtoH) (void *dst, CUdeviceptr src, size_t n);
  CUresult (CUDAAPI * StreamCreate) (CUstream * stream, unsigned int flags);
  CUresult (CUDAAPI * StreamDestroy) (CUstream stream);
  CUresult (CUDAAPI * StreamSynchronize) (CUstream stream);
} TestDriver;

static void
test_driver_load (TestDriver * d)
{
  GModule *m = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);

  fail_unless (m != NULL);
  g_module_make_resident (m);
  fail_unless (g_module_symbol (m, "cuLaunchHostFunc",
          (gpointer *) & d->LaunchHostFunc) &&
      g_module_symbol (m, "cuMemsetD8Async", (gpointer *) & d->MemsetD8Async)
      && g_module_symbol (m, "cuMemcpyDtoDAsync_v2",
          (gpointer *) & d->MemcpyDtoDAsync) &&
      g_module_symbol (m, "cuMemcpyDtoH_v2", (gpointer *) & d->MemcpyDtoH) &&
      g_module_symbol (m, "cuStreamCreate", (gpointer *) & d->StreamCreate) &&
      g_module_symbol (m, "cuStreamDestroy_v2",
          (gpointer *) & d->StreamDestroy) &&
      g_module_symbol (m, "cuStreamSynchronize",
          (gpointer *) & d->StreamSynchronize));
}

/* A stream held at a point until the test opens the gate */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean open;
} Gate;

static void CUDA_CB
gate_wait (void *data)
{
  Gate *g = data;

  g_mutex_lock (&g->lock);
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
}

static void
gate_open (Gate * g)
{
  g_mutex_lock (&g->lock);
  g->open = TRUE;
  g_cond_broadcast (&g->cond);
  g_mutex_unlock (&g->lock);
}

static gpointer
gate_open_later (gpointer data)
{
  g_usleep (5 * G_USEC_PER_SEC);
  gate_open (data);
  return NULL;
}

static gpointer
gate_open_in_a_second (gpointer data)
{
  g_usleep (G_USEC_PER_SEC);
  gate_open (data);
  return NULL;
}

#define CONVERTED_CAPS \
  "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=360"

/* Sets every byte of @buf's memory to @value on @stream and waits for
 * it */
static void
fill_on_stream (TestDriver * d, GstBuffer * buf, guint8 value, CUstream stream)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d->MemsetD8Async ((CUdeviceptr) map.data, value,
          gst_memory_get_sizes (mem, NULL, NULL), stream) == CUDA_SUCCESS);
  fail_unless (d->StreamSynchronize (stream) == CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &map);
}

/* A frame of 0x50 from @in_pool (@inbuf, on @producer's stream, waited
 * for), converted by @conv into a buffer of @ref_pool (@ref): the bytes
 * every later conversion of such a frame must make */
static GBytes *
converted_reference (TestDriver * d, GstCudaCacheConverter * conv,
    GstCudaCache * cache, GstBufferPool * in_pool, GstBufferPool * ref_pool,
    CUstream producer, GstBuffer ** inbuf, GstBuffer ** ref)
{
  GError *error = NULL;
  GstMapInfo map;
  GBytes *want;

  *inbuf = acquire_caps_on_stream (in_pool, cache, NULL, CAPS_720);
  fill_on_stream (d, *inbuf, 0x50, producer);
  *ref = acquire_caps_on_stream (ref_pool, cache, NULL, CONVERTED_CAPS);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, *inbuf, *ref,
          NULL, &error), "%s", error ? error->message : "");
  fail_unless (gst_buffer_map (*ref, &map, GST_MAP_READ));
  want = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (*ref, &map);
  return want;
}

/* The bytes of @buf that differ from @want */
static gsize
bytes_differing (GstBuffer * buf, GBytes * want)
{
  gsize i, size, wrong = 0;
  const guint8 *w = g_bytes_get_data (want, &size);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, size);
  for (i = 0; i < size; i++)
    wrong += map.data[i] != w[i];
  gst_buffer_unmap (buf, &map);
  return wrong;
}

/* Converts @inbuf into @outbuf on @stream, held up by the test until a
 * second after the call starts; then overwrites @inbuf on @producer, as
 * its producer may once it has it back; returns how long the call took
 * and the bytes of @outbuf that differ from @want */
static gsize
convert_held_up (TestDriver * d, GstCudaCacheConverter * conv,
    GstBuffer * inbuf, GstBuffer * outbuf, GstCudaCacheStream * stream,
    CUstream producer, GBytes * want, gint64 * took_us)
{
  CUstream handle = gst_cuda_cache_compat_stream_handle (stream);
  Gate gate = { 0, };
  GError *error = NULL;
  GThread *opener;
  gint64 t0;
  gsize wrong;

  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d->LaunchHostFunc (handle, gate_wait, &gate) == CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  opener = g_thread_new ("gate", gate_open_in_a_second, &gate);
  t0 = g_get_monotonic_time ();
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          handle, &error), "%s", error ? error->message : "");
  *took_us = g_get_monotonic_time () - t0;
  fill_on_stream (d, inbuf, 0xff, producer);
  g_thread_join (opener);

  wrong = bytes_differing (outbuf, want);
  g_cond_clear (&gate.cond);
  g_mutex_clear (&gate.lock);
  return wrong;
}

/* A writer from outside the project (1.24's nvh264dec, cudaupload) puts
 * its own stream in the config of the pool proposed to it, copies each
 * frame into the memory on that stream and flags it
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC without waiting; a reader waits on
 * the memory's stream. So the memory the pool hands out carries the
 * writer's stream, while its block stays shared: another writer's stream
 * takes the same block. With the writer's stream held up by the test for
 * a second before it writes the frame, a conversion of that frame waits
 * it out and converts what it wrote. Where memory carries no stream
 * (1.22) writers wait for their own. */
GST_START_TEST (test_foreign_writer_stream_is_waited_for)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32, 0);
  GstCudaCacheStream *writer = gst_cuda_cache_compat_memory_stream_new
      (context);
  GstCudaCacheStream *other = gst_cuda_cache_compat_memory_stream_new (context);
  GstBufferPool *in_pool = gst_cuda_cache_pool_new (context);
  GstBufferPool *ref_pool = gst_cuda_cache_pool_new (context);
  GstBufferPool *out_pool = gst_cuda_cache_pool_new (context);
  GstCaps *in_caps = gst_caps_from_string (CAPS_720);
  GstCaps *out_caps = gst_caps_from_string (CONVERTED_CAPS);
  GstCudaCacheConverter *conv = NULL;
#if GST_CUDA_CACHE_HAVE_STREAM
  GstBuffer *inbuf, *ref, *outbuf;
  GError *error = NULL;
  GstMapInfo map;
  Gate gate = { 0, };
  GThread *opener;
  TestDriver d;
  guint64 misses;
  gsize wrong;
  GBytes *want;
#endif

  if (!writer) {
    g_print ("foreign writers: memory carries no stream here (GStreamer "
        "1.22): writers wait for their own\n");
    goto done;
  }
#if GST_CUDA_CACHE_HAVE_STREAM
  test_driver_load (&d);
  conv = gst_cuda_cache_converter_new (in_caps, out_caps, context, NULL,
      &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");

  /* what a frame of 0x50 converts to */
  want = converted_reference (&d, conv, cache, in_pool, ref_pool,
      gst_cuda_cache_compat_stream_handle (other), &inbuf, &ref);
  gst_buffer_unref (inbuf);
  fail_unless (gst_buffer_pool_set_active (in_pool, FALSE));

  /* the pool configured as the writer configures it: its stream, not
   * marked as the project's; the same block as before, over its stream */
  {
    GstStructure *config = gst_buffer_pool_get_config (in_pool);

    gst_buffer_pool_config_set_params (config, in_caps, 0, 1, 0);
    gst_buffer_pool_config_set_cuda_cache (config, cache);
    gst_buffer_pool_config_set_cuda_stream (config, writer);
    fail_unless (gst_buffer_pool_set_config (in_pool, config));
  }
  misses = stats_of (cache).misses;
  fail_unless (gst_buffer_pool_set_active (in_pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (in_pool, &inbuf,
          NULL), GST_FLOW_OK);
  fail_unless_equals_uint64 (stats_of (cache).misses, misses);
  fail_unless (gst_cuda_cache_compat_memory_get_stream
      (gst_buffer_peek_memory (inbuf, 0)) == writer);
  fail_unless (gst_cuda_cache_owns_memory (cache,
          gst_buffer_peek_memory (inbuf, 0)));

  /* the writer: held up, then 0x00 over the 0x50, then 0x50 again, as
   * nvh264dec copies a frame, flagged and not waited for */
  fill_on_stream (&d, inbuf, 0x00, gst_cuda_cache_compat_stream_handle
      (writer));
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  fail_unless (gst_memory_map (gst_buffer_peek_memory (inbuf, 0), &map,
          GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d.LaunchHostFunc (gst_cuda_cache_compat_stream_handle (writer),
          gate_wait, &gate) == CUDA_SUCCESS);
  fail_unless (d.MemsetD8Async ((CUdeviceptr) map.data, 0x50,
          gst_memory_get_sizes (gst_buffer_peek_memory (inbuf, 0), NULL,
              NULL), gst_cuda_cache_compat_stream_handle (writer))
      == CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (gst_buffer_peek_memory (inbuf, 0), &map);
  GST_MINI_OBJECT_FLAG_SET (gst_buffer_peek_memory (inbuf, 0),
      GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  opener = g_thread_new ("gate", gate_open_in_a_second, &gate);

  /* the reader, on a stream of its own */
  outbuf = acquire_caps_on_stream (out_pool, cache, NULL, CONVERTED_CAPS);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          gst_cuda_cache_compat_stream_handle (other), &error), "%s",
      error ? error->message : "");
  g_thread_join (opener);
  wrong = bytes_differing (outbuf, want);
  fail_unless (wrong == 0, "%" G_GSIZE_FORMAT " bytes of the output read "
      "the frame before its writer's stream wrote it", wrong);
  g_print ("foreign writers: memory of the writer's stream, its block "
      "shared; the conversion waited for the held-up writer and read its "
      "frame\n");

  g_cond_clear (&gate.cond);
  g_mutex_clear (&gate.lock);
  g_bytes_unref (want);
  gst_buffer_unref (outbuf);
  gst_buffer_unref (ref);
  gst_buffer_unref (inbuf);
  fail_unless (gst_buffer_pool_set_active (out_pool, FALSE));
  fail_unless (gst_buffer_pool_set_active (ref_pool, FALSE));
  fail_unless (gst_buffer_pool_set_active (in_pool, FALSE));
#endif

done:
  gst_clear_object (&conv);
  gst_caps_unref (in_caps);
  gst_caps_unref (out_caps);
  gst_object_unref (out_pool);
  gst_object_unref (ref_pool);
  gst_object_unref (in_pool);
  gst_cuda_cache_compat_stream_clear (&writer);
  gst_cuda_cache_compat_stream_clear (&other);
  gst_object_unref (cache);
}

GST_END_TEST;

/* A conversion whose input was not allocated on its stream is written
 * before the call returns (1.24+): the input then goes back to its
 * producer (cudaupload, a decoder), which may write the next frame into it
 * on a stream that nothing orders after the conversion. With the
 * conversion's stream held up by the test for a second, the call waits it
 * out, and the input overwritten right after the call on a non-blocking
 * stream of another (which waits for nothing) does not reach the output.
 * Input and output both of the conversion's stream: the call returns at
 * once, the conversion queued behind the gate, and the input overwritten
 * on its own stream, as its producer writes it, is ordered after the
 * conversion. Where memory carries no stream (1.22) every conversion is
 * written when the call returns. */
GST_START_TEST (test_conversion_done_before_its_input_goes)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32, 0);
  GstCudaCacheStream *stream = gst_cuda_cache_compat_memory_stream_new
      (context);
  GstBufferPool *in_pool = gst_cuda_cache_pool_new (context);
  GstBufferPool *ref_pool = gst_cuda_cache_pool_new (context);
  GstBufferPool *out_pool = gst_cuda_cache_pool_new (context);
  GstBufferPool *same_pool = gst_cuda_cache_pool_new (context);
  GstCaps *in_caps = gst_caps_from_string (CAPS_720);
  GstCaps *out_caps = gst_caps_from_string (CONVERTED_CAPS);
  GstCudaCacheConverter *conv;
  GstBuffer *inbuf, *ref, *outbuf, *same_in;
  GError *error = NULL;
  GBytes *want;
  TestDriver d;
  CUstream other;
  gint64 took_us;
  gsize wrong;

  if (!stream) {
    g_print ("input lifetime: memory carries no stream here (GStreamer "
        "1.22): every conversion is written when the call returns\n");
    goto done;
  }

  test_driver_load (&d);
  conv = gst_cuda_cache_converter_new (in_caps, out_caps, context, NULL,
      &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d.StreamCreate (&other, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  /* what the input converts to, waited for */
  want = converted_reference (&d, conv, cache, in_pool, ref_pool, other,
      &inbuf, &ref);

  /* input of no stream, output of the conversion's */
  outbuf = acquire_caps_on_stream (out_pool, cache, stream, CONVERTED_CAPS);
  wrong = convert_held_up (&d, conv, inbuf, outbuf, stream, other, want,
      &took_us);
  fail_unless (took_us >= G_USEC_PER_SEC / 2, "the call returned after %"
      G_GINT64_FORMAT " us, its conversion still queued, its input let go",
      took_us);
  fail_unless (wrong == 0, "%" G_GSIZE_FORMAT " bytes of the output read "
      "the input written after the call", wrong);
  g_print ("input lifetime: input of another stream, the call waited %"
      G_GINT64_FORMAT " us for its held-up conversion; the output is the "
      "input's before it was overwritten on a non-blocking stream\n", took_us);

  /* input and output of the conversion's stream */
  same_in = acquire_caps_on_stream (same_pool, cache, stream, CAPS_720);
  fill_on_stream (&d, same_in, 0x50, other);
  wrong = convert_held_up (&d, conv, same_in, outbuf, stream,
      gst_cuda_cache_compat_stream_handle (stream), want, &took_us);
  fail_unless (took_us < G_USEC_PER_SEC / 2, "the call waited %"
      G_GINT64_FORMAT " us for a conversion of its own stream", took_us);
  fail_unless (wrong == 0, "%" G_GSIZE_FORMAT " bytes of the output read "
      "the input written after it on its own stream", wrong);
  g_print ("input lifetime: input and output of the conversion's stream, "
      "the call returned in %" G_GINT64_FORMAT " us, the conversion queued; "
      "the input overwritten on its stream after it did not reach it\n",
      took_us);

  g_bytes_unref (want);
  gst_buffer_unref (same_in);
  gst_buffer_unref (outbuf);
  gst_buffer_unref (ref);
  gst_buffer_unref (inbuf);
  gst_object_unref (conv);
  fail_unless (gst_cuda_context_push (context));
  d.StreamDestroy (other);
  gst_cuda_context_pop (NULL);
  fail_unless (gst_buffer_pool_set_active (same_pool, FALSE));
  fail_unless (gst_buffer_pool_set_active (out_pool, FALSE));
  fail_unless (gst_buffer_pool_set_active (ref_pool, FALSE));
  fail_unless (gst_buffer_pool_set_active (in_pool, FALSE));

done:
  gst_caps_unref (in_caps);
  gst_caps_unref (out_caps);
  gst_object_unref (same_pool);
  gst_object_unref (out_pool);
  gst_object_unref (ref_pool);
  gst_object_unref (in_pool);
  gst_cuda_cache_compat_stream_clear (&stream);
  gst_object_unref (cache);
}

GST_END_TEST;

/* A DLPack consumer's stream waits on the GPU for work still queued on a
 * buffer's stream (1.24+): with the writer's stream held up by the test,
 * gst_cuda_cache_dlpack_stream_wait () returns at once (a host synchronise
 * would wait until the gate opens, 5 s later), and a copy the consumer
 * queues right away still reads what the held-up write wrote. Where memory
 * carries no stream (1.22) nothing is ever queued: the wait is nothing. */
GST_START_TEST (test_consumer_stream_waits_on_the_gpu)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 32, 0);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstCudaCacheStream *stream = gst_cuda_cache_compat_memory_stream_new
      (context);
  GstBuffer *buf = acquire_on_stream (pool, cache, stream);
  Gate gate = { 0, };
  TestDriver d;
  GstMemory *mem;
  GstMapInfo map;
  CUdeviceptr src, dst;
  CUstream producer, consumer;
  GThread *opener;
  GError *error = NULL;
  guint8 *host;
  gsize size, i, wrong = 0;
  gint64 t0, waited_us;

  if (!stream) {
    fail_unless_equals_uint64 (gst_cuda_cache_dlpack_get_stream (buf), 0);
    fail_unless (gst_cuda_cache_dlpack_stream_wait (buf, 1, &error));
    g_print ("consumer streams: memory carries no stream here (GStreamer "
        "1.22): nothing is queued, nothing to wait for\n");
    goto done;
  }

  test_driver_load (&d);
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  mem = gst_buffer_peek_memory (buf, 0);
  size = gst_memory_get_sizes (mem, NULL, NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
  src = (CUdeviceptr) map.data;
  gst_memory_unmap (mem, &map);
  producer = gst_cuda_cache_compat_stream_handle (stream);

  /* the memory 0, then the writer held up before it writes 0xab */
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d.MemsetD8Async (src, 0, size, producer) == CUDA_SUCCESS);
  fail_unless (d.StreamSynchronize (producer) == CUDA_SUCCESS);
  fail_unless (d.LaunchHostFunc (producer, gate_wait, &gate) == CUDA_SUCCESS);
  fail_unless (d.MemsetD8Async (src, 0xab, size, producer) == CUDA_SUCCESS);
  fail_unless (d.StreamCreate (&consumer, CU_STREAM_NON_BLOCKING) ==
      CUDA_SUCCESS);
  fail_unless (gst_cuda_result (CuMemAlloc (&dst, size)));
  gst_cuda_context_pop (NULL);
  gst_cuda_cache_compat_memory_set_need_sync (mem, TRUE);
  fail_unless_equals_uint64 (gst_cuda_cache_dlpack_get_stream (buf),
      (guint64) (guintptr) producer);

  opener = g_thread_new ("gate", gate_open_later, &gate);
  t0 = g_get_monotonic_time ();
  fail_unless (gst_cuda_cache_dlpack_stream_wait (buf,
          (guint64) (guintptr) consumer, &error), "%s",
      error ? error->message : "");
  waited_us = g_get_monotonic_time () - t0;
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d.MemcpyDtoDAsync (dst, src, size, consumer) == CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  /* the host wait above would have taken until the gate opened */
  fail_unless (waited_us < G_USEC_PER_SEC, "the wait took %" G_GINT64_FORMAT
      " us: a host synchronise", waited_us);
  gate_open (&gate);
  g_thread_join (opener);

  host = g_malloc (size);
  fail_unless (gst_cuda_context_push (context));
  fail_unless (d.StreamSynchronize (consumer) == CUDA_SUCCESS);
  fail_unless (d.MemcpyDtoH (host, dst, size) == CUDA_SUCCESS);
  fail_unless (d.StreamSynchronize (producer) == CUDA_SUCCESS);
  gst_cuda_result (CuMemFree (dst));
  d.StreamDestroy (consumer);
  gst_cuda_context_pop (NULL);
  for (i = 0; i < size; i++)
    wrong += host[i] != 0xab;
  g_free (host);
  fail_unless (wrong == 0, "the consumer read %" G_GSIZE_FORMAT " bytes "
      "before the write", wrong);
  g_print ("consumer streams: the wait queued in %" G_GINT64_FORMAT " us "
      "with the writer held up; the consumer's copy read every byte the "
      "held-up write wrote\n", waited_us);
  gst_cuda_cache_compat_memory_set_need_sync (mem, FALSE);
  g_cond_clear (&gate.cond);
  g_mutex_clear (&gate.lock);

done:
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_cuda_cache_compat_stream_clear (&stream);
  gst_object_unref (cache);
}

GST_END_TEST;

/* @size bytes of @host in new device memory of @ctx */
static CUdeviceptr
device_copy_of (GstCudaContext * ctx, const guint8 * host, gsize size)
{
  CUDA_MEMCPY2D copy = { 0, };
  CUdeviceptr ptr = 0;

  fail_unless (gst_cuda_context_push (ctx));
  fail_unless (gst_cuda_result (CuMemAlloc (&ptr, size)));
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = host;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = ptr;
  copy.srcPitch = copy.dstPitch = copy.WidthInBytes = size;
  copy.Height = 1;
  fail_unless (gst_cuda_result (CuMemcpy2D (&copy)));
  gst_cuda_context_pop (NULL);
  return ptr;
}

static GstBuffer *
import_device_tensor (CUdeviceptr ptr, guint8 code, guint8 bits, gint ndim,
    const int64_t * shape, const int64_t * strides, gint * deleted,
    GstCudaContext * ctx, GstCaps ** caps)
{
  DLManagedTensor *managed = test_tensor_new ((gpointer) ptr, code, bits,
      ndim, shape, strides, deleted);
  GError *error = NULL;
  GstBuffer *buf;

  managed->dl_tensor.device.device_type = kDLCUDA;
  managed->dl_tensor.device.device_id = 0;
  buf = gst_cuda_cache_dlpack_import (managed, ctx, caps, &error);
  fail_unless (buf != NULL, "%s", error ? error->message : "");
  return buf;
}

/* The device pointer of @buf's only memory, which is CUDA memory of @ctx */
static CUdeviceptr
buffer_device_pointer (GstBuffer * buf, GstCudaContext * ctx)
{
  GstMemory *mem;
  GstMapInfo map;
  CUdeviceptr ptr;

  fail_unless_equals_int (gst_buffer_n_memory (buf), 1);
  mem = gst_buffer_peek_memory (buf, 0);
  fail_unless (gst_is_cuda_memory (mem));
  fail_unless (GST_CUDA_MEMORY_CAST (mem)->context == ctx);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
  ptr = (CUdeviceptr) map.data;
  gst_memory_unmap (mem, &map);
  return ptr;
}

/* The pixels of @buf (laid out by @info or its video meta) whose red,
 * green or blue differ from @host's, whose rows are @host_stride bytes
 * apart and pixels @host_pstride */
static gint
count_wrong_pixels (GstBuffer * buf, const GstVideoInfo * info,
    const guint8 * host, gsize host_stride, guint host_pstride)
{
  guint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  GstVideoFrame frame;
  gint x, y, c, wrong = 0;

  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    for (x = 0; x < GST_VIDEO_INFO_WIDTH (info); x++)
      for (c = 0; c < 3; c++)
        wrong +=
            row[x * pstride + c] !=
            host[y * host_stride + x * host_pstride + c];
  }
  gst_video_frame_unmap (&frame);
  return wrong;
}

static guint64
cache_current_size (GstCudaContext * ctx)
{
  GstCudaCache *cache = gst_cuda_cache_device_get_cache (ctx);
  guint64 size = 0;

  g_object_get (cache, "current-size", &size, NULL);
  gst_object_unref (cache);
  return size;
}

/* Device memory of the primary context, where PyTorch and CuPy allocate,
 * imported with that context: from 1.24 wrapped without a copy (the
 * tensor's own pointer, its deleter at the buffer's last unref, nothing
 * counted in the cache), on 1.22 copied into the cache. Either way
 * cudacacheconvert, sharing the context through GstContext, reads every
 * pixel of it. Given another context, the import copies. */
GST_START_TEST (test_import_wraps_memory_of_its_context)
{
  /* RGBA rows 320 bytes apart, 256 of them pixels; a float NCHW tensor */
  static const int64_t shape[] = { 48, 64, 4 };
  static const int64_t strides[] = { 320, 4, 1 };
  static const int64_t tshape[] = { 1, 3, 8, 10 };
  GstCudaContext *primary = gst_cuda_cache_device_get_primary_context (0);
  const gsize size = 48 * 320, tsize = 3 * 8 * 10 * sizeof (gfloat);
  guint8 *host = g_malloc (size);
  gfloat values[3 * 8 * 10];
  CUdeviceptr ptr, tptr;
  GstBuffer *buf, *tbuf, *out;
  GstCaps *caps = NULL, *tcaps = NULL;
  GstVideoInfo out_info;
  GstElement *bin;
  GstContext *shared;
  GstHarness *h;
  GstMapInfo map;
  guint64 before;
  gint deleted = 0, x;
  gboolean wraps = GST_CUDA_CACHE_HAVE_STREAM;

  fail_unless (primary != NULL);
  fail_unless (primary != context);
  for (x = 0; x < (gint) size; x++)
    host[x] = (x * 7 + x / 320) & 0xff;
  for (x = 0; x < (gint) G_N_ELEMENTS (values); x++)
    values[x] = x * 0.25f - 3.0f;
  ptr = device_copy_of (primary, host, size);
  tptr = device_copy_of (primary, (const guint8 *) values, tsize);
  before = cache_current_size (primary);

  buf = import_device_tensor (ptr, kDLUInt, 8, 3, shape, strides, &deleted,
      primary, &caps);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  if (wraps) {
    fail_unless_equals_int (gst_buffer_get_video_meta (buf)->stride[0], 320);
    fail_unless (buffer_device_pointer (buf, primary) == ptr,
        "the import copied memory it can wrap");
    fail_unless_equals_int (deleted, 0);
    fail_unless_equals_uint64 (cache_current_size (primary), before);
  } else {
    fail_unless (buffer_device_pointer (buf, primary) != ptr);
    fail_unless_equals_int (deleted, 1);
  }

  /* the pipeline's elements read it in the shared context */
  /* given before the harness starts it: elements keep the context they
   * found when they started */
  bin = gst_parse_bin_from_description ("cudacacheconvert ! capsfilter "
      "caps=\"video/x-raw(memory:CUDAMemory),format=RGB\"", TRUE, NULL);
  fail_unless (bin != NULL);
  shared = gst_context_new_cuda_context (primary);
  gst_element_set_context (bin, shared);
  gst_context_unref (shared);
  h = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (buf));
  fail_unless (out != NULL);
  fail_unless (gst_video_info_from_caps (&out_info,
          gst_pad_get_current_caps (h->sinkpad)));
  gst_caps_unref (gst_pad_get_current_caps (h->sinkpad));
  fail_unless_equals_int (count_wrong_pixels (out, &out_info, host, 320, 4), 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_buffer_unref (buf);
  fail_unless_equals_int (deleted, 1);

  /* an odd view whose last row ends where its allocation does: rows at
   * the view's stride would run past it, so it is copied, not wrapped */
  {
    static const int64_t odd_shape[] = { 23, 37, 3 };
    static const int64_t odd_strides[] = { 320, 3, 1 };
    const gsize extent = 22 * 320 + 37 * 3;
    CUdeviceptr odd = device_copy_of (primary, host, extent);
    GstCaps *odd_caps = NULL;
    GstVideoInfo odd_info;
    gint odd_deleted = 0;

    buf = import_device_tensor (odd, kDLUInt, 8, 3, odd_shape, odd_strides,
        &odd_deleted, primary, &odd_caps);
    fail_unless (buffer_device_pointer (buf, primary) != odd);
    fail_unless_equals_int (odd_deleted, 1);
    fail_unless (gst_video_info_from_caps (&odd_info, odd_caps));
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&odd_info), 37);
    fail_unless_equals_int (count_wrong_pixels (buf, &odd_info, host, 320,
            3), 0);
    gst_buffer_unref (buf);
    gst_caps_unref (odd_caps);

    /* an odd RGBA view inside a larger allocation: wrapped */
    {
      static const int64_t view_shape[] = { 23, 37, 4 };

      buf = import_device_tensor (ptr, kDLUInt, 8, 3, view_shape, strides,
          &odd_deleted, primary, &odd_caps);
      fail_unless ((buffer_device_pointer (buf, primary) == ptr) == wraps);
      fail_unless (gst_video_info_from_caps (&odd_info, odd_caps));
      fail_unless_equals_int (count_wrong_pixels (buf, &odd_info, host, 320,
              4), 0);
      gst_buffer_unref (buf);
      gst_caps_unref (odd_caps);
      fail_unless_equals_int (odd_deleted, 2);
    }
    fail_unless (gst_cuda_context_push (primary));
    gst_cuda_result (CuMemFree (odd));
    gst_cuda_context_pop (NULL);
  }

  /* a tensor: wrapped as one row of its bytes */
  tbuf = import_device_tensor (tptr, kDLFloat, 32, 4, tshape, NULL,
      &deleted, primary, &tcaps);
  fail_unless (gst_buffer_get_cuda_cache_tensor_meta (tbuf) != NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (tbuf), tsize);
  fail_unless ((buffer_device_pointer (tbuf, primary) == tptr) == wraps);
  fail_unless (gst_buffer_map (tbuf, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, values, tsize) == 0);
  gst_buffer_unmap (tbuf, &map);
  gst_buffer_unref (tbuf);
  gst_caps_unref (tcaps);
  fail_unless_equals_int (deleted, 2);

  /* memory of another context than the import's: copied, on every
   * version, into the import context's cache */
  gst_caps_unref (caps);
  buf = import_device_tensor (ptr, kDLUInt, 8, 3, shape, strides, &deleted,
      context, &caps);
  fail_unless (buffer_device_pointer (buf, context) != ptr);
  fail_unless_equals_int (deleted, 3);
  fail_unless (gst_video_info_from_caps (&out_info, caps));
  fail_unless_equals_int (count_wrong_pixels (buf, &out_info, host, 320, 4), 0);
  gst_buffer_unref (buf);
  g_print ("import: device memory of the primary context %s; of another "
      "context, copied\n", wraps ? "wrapped without a copy" :
      "copied (GStreamer 1.22 cannot wrap)");

  fail_unless (gst_cuda_context_push (primary));
  gst_cuda_result (CuMemFree (ptr));
  gst_cuda_result (CuMemFree (tptr));
  gst_cuda_context_pop (NULL);
  gst_caps_unref (caps);
  g_free (host);
  gst_object_unref (primary);
}

GST_END_TEST;

/* cudacache-pool-race.h, on device memory */
GST_START_TEST (test_reconfigure_while_last_buffer_returns)
{
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);

  cudacache_check_reconfigure_race (pool,
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=64,height=48",
      "video/x-raw(memory:CUDAMemory),format=NV12,width=30,height=18",
      RUNNING_ON_VALGRIND || RUNNING_UNDER_ASAN ? 200 : 5000);
  gst_object_unref (pool);
}

GST_END_TEST;

/* Whether @a and @b, images of @buf's NV12 layout, hold the same bytes in
 * every row of each plane (its padding left out) */
static gboolean
same_picture (GstBuffer * buf, const guint8 * a, const guint8 * b)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  guint plane, row;

  fail_unless (meta != NULL && meta->format == GST_VIDEO_FORMAT_NV12);
  for (plane = 0; plane < 2; plane++) {
    guint rows = plane == 0 ? meta->height : (meta->height + 1) / 2;

    for (row = 0; row < rows; row++) {
      gsize at = meta->offset[plane] + (gsize) row * meta->stride[plane];

      if (memcmp (a + at, b + at, meta->width) != 0) {
        GST_ERROR ("plane %u row %u differs", plane, row);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* A whole copy of a block (as a sink that keeps its last sample makes one
 * when upstream renegotiates) is another block of the cache, with the
 * same bytes, back in the cache when released: never a cuMemAlloc, and
 * never a cuMemFree, which waits for the whole device, on the streaming
 * thread. */
GST_START_TEST (test_copies_come_from_the_cache)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 30,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstBuffer *buf, *copy;
  GstCudaCacheStats before, after;
  guint8 *host, *back;
  gsize size;

  /* two blocks made and released: the copy's is there to be taken */
  cycle (pool, CAPS_720, 2, cache);
  fail_unless (configure (pool, CAPS_720, 1, cache));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  size = gst_buffer_get_size (buf);
  host = g_malloc (size);
  back = g_malloc (size);
  for (gsize i = 0; i < size; i++)
    host[i] = (guint8) (i * 7 + 3);
  fail_unless_equals_int (gst_buffer_fill (buf, 0, host, size), size);

  before = stats_of (cache);
  copy = gst_buffer_copy_deep (buf);
  after = stats_of (cache);
  fail_unless (gst_cuda_cache_owns_memory (cache,
          gst_buffer_peek_memory (copy, 0)), "the copy is not the cache's");
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (copy, 0)));
  fail_unless_equals_uint64 (after.hits, before.hits + 1);
  fail_unless_equals_uint64 (after.misses, before.misses);
  fail_unless_equals_int (gst_buffer_extract (copy, 0, back, size), size);
  /* the picture's bytes: rows are padded to the pitch, and a row's padding
   * is neither uploaded nor downloaded */
  fail_unless (same_picture (buf, host, back));

  /* released: idle in the cache again, not freed */
  gst_buffer_unref (copy);
  fail_unless_equals_uint64 (stats_of (cache).idle_blocks, after.idle_blocks +
      1);

  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  /* a tensor's copy is as many bytes as the tensor, a miss of the cache
   * (no idle block of its key) as much as a hit */
  fail_unless (configure (pool, "other/tensors(memory:CUDAMemory),"
          "format=static,num_tensors=1,types=float32,layout=NCHW,"
          "dimensions=3:33:17:1", 1, cache));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_get_size (buf), 3 * 33 * 17 * 4);
  copy = gst_buffer_copy_deep (buf);
  fail_unless_equals_int (gst_buffer_get_size (copy), 3 * 33 * 17 * 4);
  fail_unless (gst_cuda_cache_owns_memory (cache,
          gst_buffer_peek_memory (copy, 0)));
  gst_buffer_unref (copy);
  copy = gst_buffer_copy_deep (buf);
  fail_unless_equals_int (gst_buffer_get_size (copy), 3 * 33 * 17 * 4);
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_object_unref (pool);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_cuda_cache_drain (cache);
  gst_object_unref (cache);
  g_free (host);
  g_free (back);
}

GST_END_TEST;

static Suite *
cudapool_suite (void)
{
  Suite *s = suite_create ("cudapool");
  TCase *tc = tcase_create ("gpu");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cudacache_gpu_setup, cudacache_gpu_teardown);
  tcase_add_test (tc, test_renegotiation_to_seen_caps_hits);
  tcase_add_test (tc, test_device_cache_shared);
  tcase_add_test (tc, test_image_layout_matches_stock_pool);
  tcase_add_test (tc, test_tensor_is_packed);
  tcase_add_test (tc, test_limit_trims_device_memory);
  tcase_add_test (tc, test_out_of_memory);
  tcase_add_test (tc, test_frees_off_releasing_thread);
  tcase_add_test (tc, test_cudaupload_takes_proposed_pool);
  tcase_add_test (tc, test_switching_resolutions_allocate_once);
  tcase_add_test (tc, test_context_freed_with_last_user);
  tcase_add_test (tc, test_refused_config_leaves_pool_unchanged);
  tcase_add_test (tc, test_config_fields_read_or_refused);
  tcase_add_test (tc, test_blocks_keep_their_stream);
  tcase_add_test (tc, test_consumer_stream_waits_on_the_gpu);
  tcase_add_test (tc, test_conversion_done_before_its_input_goes);
  tcase_add_test (tc, test_foreign_writer_stream_is_waited_for);
  tcase_add_test (tc, test_import_wraps_memory_of_its_context);
  tcase_add_test (tc, test_reconfigure_while_last_buffer_returns);
  tcase_add_test (tc, test_copies_come_from_the_cache);

  return s;
}

CUDACACHE_CHECK_GPU_MAIN (cudapool);
