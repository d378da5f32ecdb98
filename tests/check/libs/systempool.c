/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheSystemPool: a system-memory video pool over the cache. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cudacache-check.h"
#include "../cudacache-pool-race.h"
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>

#include <sys/resource.h>
#include <unistd.h>
#include <string.h>

static gboolean
configure (GstBufferPool * pool, const gchar * caps_str, guint min_buffers)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;
  gboolean ret;

  fail_unless (caps != NULL);
  gst_buffer_pool_config_set_params (config, caps,
      gst_video_info_from_caps (&info, caps) ? info.size : 0, min_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  ret = gst_buffer_pool_set_config (pool, config);
  gst_caps_unref (caps);

  return ret;
}

/* Configures, activates, acquires @n buffers, releases them, deactivates. */
static void
cycle (GstBufferPool * pool, const gchar * caps_str, guint n)
{
  GstBuffer *bufs[8];
  guint i;

  fail_unless (configure (pool, caps_str, n));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
  for (i = 0; i < n; i++)
    gst_buffer_unref (bufs[i]);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
}

static GstCudaCacheStats
stats_of (GstCudaCache * cache)
{
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  return stats;
}

GST_START_TEST (test_reconfigure_to_seen_caps_hits)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  const gchar *small = "video/x-raw,format=I420,width=320,height=240";
  const gchar *large = "video/x-raw,format=I420,width=640,height=480";
  GstCudaCacheStats stats;

  fail_unless (GST_IS_VIDEO_BUFFER_POOL (pool));

  cycle (pool, small, 3);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.misses, 3);
  fail_unless_equals_int (stats.idle_blocks, 3);
  /* the cache counts what the allocator reserved: the frame plus at most
   * its alignment */
  fail_unless (stats.idle_bytes >= 3 * 320 * 240 * 3 / 2);
  fail_unless (stats.idle_bytes < 3 * (320 * 240 * 3 / 2 + 64));

  cycle (pool, large, 3);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.misses, 6);
  fail_unless_equals_uint64 (stats.hits, 0);

  /* back to caps seen before: no allocation */
  cycle (pool, small, 3);
  cycle (pool, large, 2);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.misses, 6);
  fail_unless_equals_uint64 (stats.hits, 5);
  fail_unless_equals_int (stats.idle_blocks, 6);

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Blocks made before the first pool needs them are its hits; caps the
 * pool refuses are an error that names them */
GST_START_TEST (test_warm_makes_hits)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  const gchar *caps_str = "video/x-raw,format=NV12,width=322,height=242";
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstBufferPool *pool;
  GstCudaCacheStats stats;
  GError *error = NULL;

  fail_unless (gst_cuda_cache_warm (cache, NULL, caps, 3, &error));
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.misses, 3);
  fail_unless_equals_int (stats.idle_blocks, 3);

  pool = gst_cuda_cache_system_pool_new (cache);
  cycle (pool, caps_str, 3);
  stats = stats_of (cache);
  fail_unless_equals_uint64 (stats.misses, 3);
  fail_unless_equals_uint64 (stats.hits, 3);
  gst_object_unref (pool);
  gst_caps_unref (caps);

  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=-4,height=2");
  fail_if (gst_cuda_cache_warm (cache, NULL, caps, 2, &error));
  fail_unless (error != NULL && strstr (error->message, "width=") != NULL,
      "%s", error ? error->message : "no error");
  g_clear_error (&error);
  gst_caps_unref (caps);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_framerate_change_shares_blocks)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);

  cycle (pool, "video/x-raw,format=NV12,width=64,height=64,framerate=30/1", 2);
  cycle (pool, "video/x-raw,format=NV12,width=64,height=64,framerate=60/1", 2);
  fail_unless_equals_uint64 (stats_of (cache).hits, 2);
  /* a different format of the same size is another layout */
  cycle (pool, "video/x-raw,format=RGBA,width=64,height=32", 2);
  fail_unless_equals_uint64 (stats_of (cache).hits, 2);
  fail_unless_equals_uint64 (stats_of (cache).misses, 4);
  /* even where the planes are alike byte for byte */
  cycle (pool, "video/x-raw,format=BGRA,width=64,height=32", 2);
  fail_unless_equals_uint64 (stats_of (cache).hits, 2);
  fail_unless_equals_uint64 (stats_of (cache).misses, 6);

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_video_meta_and_layout)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  GstVideoInfo info;
  GstVideoMeta *meta;
  GstVideoFrame frame;
  GstBuffer *buf;
  GstCaps *caps;
  guint i;

  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=100,height=50");
  gst_video_info_from_caps (&info, caps);
  gst_caps_unref (caps);

  fail_unless (configure (pool,
          "video/x-raw,format=NV12,width=100,height=50", 1));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_get_size (buf), info.size);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->format, GST_VIDEO_FORMAT_NV12);
  for (i = 0; i < 2; i++) {
    fail_unless_equals_int (meta->offset[i], info.offset[i]);
    fail_unless_equals_int (meta->stride[i], info.stride[i]);
  }
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0), 0x42, 100);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_video_alignment)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  GstCaps *caps =
      gst_caps_from_string ("video/x-raw,format=I420,width=100,height=50");
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoAlignment align;
  GstVideoMeta *meta;
  GstBuffer *buf;

  gst_video_alignment_reset (&align);
  align.padding_right = 28;
  align.padding_bottom = 14;
  /* I420 100x50: chroma rows are padded to 52 bytes */
  gst_buffer_pool_config_set_params (config, caps, 7600, 1, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  gst_buffer_pool_config_set_video_alignment (config, &align);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  fail_unless (meta->stride[0] >= 128);
  fail_unless (gst_buffer_get_size (buf) >= (gsize) 128 * 64 * 3 / 2);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_caps_unref (caps);
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_tensor_caps)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  GstCudaCacheTensorMeta *meta;
  GstBuffer *buf;

  fail_unless (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"32:16:3:1\",types=float32,layout=NCHW", 1));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_get_size (buf), 32 * 16 * 3 * 4);
  meta = gst_buffer_get_cuda_cache_tensor_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_channels (&meta->info),
      3);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_height (&meta->info),
      16);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_width (&meta->info),
      32);
  fail_unless (gst_buffer_get_video_meta (buf) == NULL);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  /* a tensor and an image of the same byte size never share a block */
  cycle (pool, "video/x-raw,format=RGBA,width=32,height=48", 1);
  fail_unless_equals_uint64 (stats_of (cache).hits, 0);

  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_invalid_config_refused)
{
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (NULL);
  GstStructure *config;

  fail_if (configure (pool, "audio/x-raw,format=S16LE,rate=48000,channels=2,"
          "layout=interleaved", 1));
  fail_if (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"0:16:3:1\",types=float32", 1));
  fail_if (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"4:16:3:1\",types=complex128", 1));

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, NULL, 100, 1, 0);
  fail_if (gst_buffer_pool_set_config (pool, config));

  gst_object_unref (pool);
}

GST_END_TEST;

/* Caps bigger than the machine are refused when the pool is configured,
 * before anything is allocated: GStreamer's system allocator aborts the
 * process when malloc fails. */
GST_START_TEST (test_caps_bigger_than_machine_refused)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 20, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (NULL);

  /* 51.5 GB: more than a buffer pool's size can say */
  fail_if (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"65536:65536:3:1\",types=float32", 1));
  fail_if (configure (pool, "video/x-raw,format=RGBA,width=65536,"
          "height=65536", 1));
  gst_object_unref (pool);

  /* more than the memory the cache allocates from */
  pool = gst_cuda_cache_system_pool_new (cache);
  fail_if (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"1024:1024:1:1\",types=float32", 1));
  fail_unless (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"256:256:1:1\",types=float32", 1));
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

static GString *errors;

static void
collect_errors (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (level == GST_LEVEL_ERROR)
    g_string_append_printf (errors, "%s\n", gst_debug_message_get (message));
}

static guint64
vm_size (void)
{
  gchar *statm = NULL;
  guint64 pages = 0;

  if (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    pages = g_ascii_strtoull (statm, NULL, 10);
  g_free (statm);
  return pages * sysconf (_SC_PAGESIZE);
}

/* System memory runs out: the cache frees its idle blocks and retries,
 * then the pool fails with an error naming the bytes, the limit and the
 * cache's size, and the process lives on. */
GST_START_TEST (test_out_of_system_memory_is_an_error)
{
  GstCudaCache *cache = gst_cuda_cache_new (G_GUINT64_CONSTANT (1) << 40, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  GstCudaCacheStats stats;
  struct rlimit saved, limited;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;

  /* valgrind's own allocations live in the address space limited here,
   * and AddressSanitizer's allocator does not fail on it: the plain run
   * of this suite is the one that tests this */
  if (RUNNING_ON_VALGRIND || RUNNING_UNDER_ASAN ||
      getrlimit (RLIMIT_AS, &saved) != 0 || vm_size () == 0)
    goto done;

  /* 512 MiB per buffer, none made at activation */
  fail_unless (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"1024:1024:512:1\",types=uint8", 0));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  errors = g_string_new (NULL);
  gst_debug_add_log_function (collect_errors, NULL, NULL);
  limited = saved;
  limited.rlim_cur = vm_size () + (128 << 20);
  fail_unless (setrlimit (RLIMIT_AS, &limited) == 0);
  ret = gst_buffer_pool_acquire_buffer (pool, &buf, NULL);
  fail_unless (setrlimit (RLIMIT_AS, &saved) == 0);
  gst_debug_remove_log_function (collect_errors);

  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless (buf == NULL);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.alloc_retries, 1);
  fail_unless_equals_uint64 (stats.alloc_failures, 1);
  fail_unless (strstr (errors->str, "asked for 536870912 bytes") != NULL,
      "%s", errors->str);
  fail_unless (strstr (errors->str, "cache limit 549755813888 bytes") != NULL,
      "%s", errors->str);
  fail_unless (strstr (errors->str, "cache size 0 bytes") != NULL, "%s",
      errors->str);
  g_string_free (errors, TRUE);
  errors = NULL;

  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

done:
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

/* A config the pool refuses leaves it as it was: its buffers keep the
 * layout of the last config it accepted. */
GST_START_TEST (test_refused_config_leaves_pool_unchanged)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,"
      "height=48");
  GstStructure *config;
  GstVideoMeta *meta;
  GstBuffer *buf;

  fail_unless (configure (pool, "video/x-raw,format=RGBA,width=32,height=16",
          1));

  /* GstVideoBufferPool refuses a size too small for the caps */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 10, 1, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  fail_if (gst_buffer_pool_set_config (pool, config));
  /* so does this pool, a tensor larger than the cache's memory */
  fail_if (configure (pool, "other/tensors,format=static,num_tensors=1,"
          "dimensions=\"65536:65536:1:1\",types=float32", 1));

  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_get_size (buf), 32 * 16 * 4);
  fail_unless (gst_buffer_get_cuda_cache_tensor_meta (buf) == NULL);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->format, GST_VIDEO_FORMAT_RGBA);
  fail_unless_equals_int (meta->width, 32);
  fail_unless_equals_int (meta->height, 16);
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));

  gst_caps_unref (caps);
  gst_object_unref (pool);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_default_cache_is_shared)
{
  GstBufferPool *a = gst_cuda_cache_system_pool_new (NULL);
  GstBufferPool *b = gst_cuda_cache_system_pool_new (NULL);
  GstCudaCache *ca =
      gst_cuda_cache_system_pool_get_cache (GST_CUDA_CACHE_SYSTEM_POOL (a));
  GstCudaCache *cb =
      gst_cuda_cache_system_pool_get_cache (GST_CUDA_CACHE_SYSTEM_POOL (b));
  GstCudaCacheStats before;
  const gchar *caps = "video/x-raw,format=GRAY8,width=7,height=13";

  fail_unless (ca == cb);
  gst_cuda_cache_get_stats (ca, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
  cycle (a, caps, 2);
  /* a second pool, as a second pipeline would, finds a's blocks */
  cycle (b, caps, 2);
  fail_unless_equals_uint64 (stats_of (ca).hits, before.hits + 2);
  fail_unless_equals_uint64 (stats_of (ca).misses, before.misses + 2);

  gst_cuda_cache_clear (ca, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_object_unref (ca);
  gst_object_unref (cb);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

static void
count_finalize (gpointer data, GObject * obj)
{
  (*(gint *) data)++;
}

GST_START_TEST (test_buffer_outlives_pool_and_cache)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (cache);
  GstBuffer *buf;
  gint finalized = 0;

  g_object_weak_ref (G_OBJECT (pool), count_finalize, &finalized);
  g_object_weak_ref (G_OBJECT (cache), count_finalize, &finalized);

  fail_unless (configure (pool, "video/x-raw,format=RGBA,width=16,height=16",
          1));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_object_unref (cache);
  /* the buffer holds its pool, its memory holds the cache */
  fail_unless_equals_int (finalized, 0);

  gst_buffer_unref (buf);
  fail_unless_equals_int (finalized, 2);
}

GST_END_TEST;

/* cudacache-pool-race.h */
GST_START_TEST (test_reconfigure_while_last_buffer_returns)
{
  GstBufferPool *pool = gst_cuda_cache_system_pool_new (NULL);

  cudacache_check_reconfigure_race (pool,
      "video/x-raw,format=RGBA,width=64,height=48",
      "video/x-raw,format=NV12,width=30,height=18",
      RUNNING_ON_VALGRIND || RUNNING_UNDER_ASAN ? 200 : 5000);
  gst_object_unref (pool);
}

GST_END_TEST;

static Suite *
systempool_suite (void)
{
  Suite *s = suite_create ("cudacachesystempool");
  TCase *tc = tcase_create ("general");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reconfigure_to_seen_caps_hits);
  tcase_add_test (tc, test_warm_makes_hits);
  tcase_add_test (tc, test_framerate_change_shares_blocks);
  tcase_add_test (tc, test_video_meta_and_layout);
  tcase_add_test (tc, test_video_alignment);
  tcase_add_test (tc, test_tensor_caps);
  tcase_add_test (tc, test_invalid_config_refused);
  tcase_add_test (tc, test_caps_bigger_than_machine_refused);
  tcase_add_test (tc, test_out_of_system_memory_is_an_error);
  tcase_add_test (tc, test_refused_config_leaves_pool_unchanged);
  tcase_add_test (tc, test_default_cache_is_shared);
  tcase_add_test (tc, test_buffer_outlives_pool_and_cache);
  tcase_add_test (tc, test_reconfigure_while_last_buffer_returns);

  return s;
}

GST_CHECK_MAIN (systempool);
