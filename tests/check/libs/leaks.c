/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The cache's idle blocks under the leaks tracer: run with
 * GST_TRACERS=leaks (tests/check/meson.build sets it). Apps with a leak gate
 * in CI must not see blocks the cache keeps for reuse as leaks. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cudacache-check.h"
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>

static GstTracer *
find_leaks_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstTracer *leaks = NULL;

  for (l = tracers; l; l = l->next) {
    if (g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstLeaksTracer") == 0)
      leaks = gst_object_ref (l->data);
  }
  g_list_free_full (tracers, gst_object_unref);

  return leaks;
}

/* Live objects of @type the leaks tracer would report at exit. The signal
 * hands over a reference it never took (1.22's tracer expects to be asked
 * at exit only): give each object one back before the list goes. */
static guint
count_reported (GstTracer * leaks, GType type)
{
  GstStructure *info = NULL;
  const GValue *list;
  guint i, n = 0;

  g_signal_emit_by_name (leaks, "get-live-objects", &info);
  fail_unless (info != NULL);
  list = gst_structure_get_value (info, "live-objects-list");
  for (i = 0; i < gst_value_list_get_size (list); i++) {
    const GstStructure *s =
        gst_value_get_structure (gst_value_list_get_value (list, i));
    const GValue *obj = gst_structure_get_value (s, "object");

    if (!obj)
      continue;
    if (g_type_is_a (G_VALUE_TYPE (obj), type))
      n++;
    if (G_VALUE_HOLDS_OBJECT (obj))
      g_object_ref (g_value_get_object (obj));
    else
      gst_mini_object_ref (g_value_get_boxed (obj));
  }
  gst_structure_free (info);

  return n;
}

GST_START_TEST (test_idle_blocks_not_reported)
{
  GstTracer *leaks = find_leaks_tracer ();
  GstCaps *caps;
  GstCudaCacheStats stats;
  GstStructure *config;
  GstBufferPool *pool;
  GstCudaCache *cache;
  GstBuffer *bufs[2];
  GstVideoInfo info;
  guint before;

  if (!leaks) {
    GST_INFO ("GST_TRACERS has no leaks tracer: run through meson test");
    return;
  }
  before = count_reported (leaks, GST_TYPE_MEMORY);
  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,height=48,"
      "framerate=30/1");

  /* the process-wide cache, as elements use it: it outlives the test */
  pool = gst_cuda_cache_system_pool_new (NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 2, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[0],
          NULL), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[1],
          NULL), GST_FLOW_OK);

  /* blocks in use are reported, as any buffer's memory */
  fail_unless_equals_int (count_reported (leaks, GST_TYPE_MEMORY), before + 2);

  gst_buffer_unref (bufs[0]);
  gst_buffer_unref (bufs[1]);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  cache = gst_cuda_cache_get_system ();
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless (stats.idle_blocks >= 2);
  gst_object_unref (cache);

  /* idle, they are the cache's: not reported */
  fail_unless_equals_int (count_reported (leaks, GST_TYPE_MEMORY), before);

  gst_caps_unref (caps);
  gst_object_unref (leaks);
}

GST_END_TEST;

static Suite *
leaks_suite (void)
{
  Suite *s = suite_create ("cudacache");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_idle_blocks_not_reported);

  return s;
}

GST_CHECK_MAIN (leaks);
