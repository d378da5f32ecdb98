/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* cudacacheidentity on system memory: passthrough, the pool it proposes,
 * cache properties shared by elements, stats messages, renegotiation. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>
#include "../cudacache-check.h"
#include "../cudacache-pipeline.h"

GST_START_TEST (test_passthrough)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstBuffer *in, *out;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  in = gst_harness_create_buffer (h, 64 * 48 * 3 / 2);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  /* tensors pass too */
  gst_harness_set_src_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=8:8:3:1");
  in = gst_harness_create_buffer (h, 8 * 8 * 3 * 4);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_proposes_cache_pool)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,"
      "height=48,framerate=30/1");
  GstQuery *query;
  GstBufferPool *pool = NULL;
  guint size = 0;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) >= 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
  fail_unless (GST_IS_CUDA_CACHE_SYSTEM_POOL (pool), "proposed %"
      GST_PTR_FORMAT, pool);
  fail_unless (size >= 64 * 48 * 3 / 2);
  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));

  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Two elements, one cache: a limit set on one is the other's. */
GST_START_TEST (test_cache_properties_shared)
{
  GstElement *a = gst_element_factory_make ("cudacacheidentity", NULL);
  GstElement *b = gst_element_factory_make ("cudacacheconvert", NULL);
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 limit = 0, current = 1, hits, misses, evictions, used, idle;

  g_object_set (a, "cache-limit", (guint64) 123456789, NULL);
  g_object_get (b, "cache-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 123456789);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 123456789);

  g_object_get (b, "current-size", &current, "hits", &hits, "misses",
      &misses, "evictions", &evictions, "used-bytes", &used, "idle-bytes",
      &idle, NULL);
  fail_unless_equals_uint64 (current, used + idle);

  gst_object_unref (cache);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_stats_messages)
{
  GstElement *pipeline;
  GstMessage *msg;
  guint n_stats = 0;
  gboolean eos = FALSE;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=6 ! "
      "video/x-raw,width=64,height=48 ! identity sleep-time=3000 ! "
      "cudacacheidentity name=c stats-interval=1 ! fakesink", NULL);
  fail_unless (pipeline != NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  while (!eos && (msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
              10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
              GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint64 current, used, idle, misses, limit;

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      eos = TRUE;
    } else if (gst_structure_has_name (s, "cudacache-stats")) {
      n_stats++;
      fail_unless_equals_string (GST_OBJECT_NAME (msg->src), "c");
      fail_unless (gst_structure_get_uint64 (s, "current-size", &current));
      fail_unless (gst_structure_get_uint64 (s, "used-bytes", &used));
      fail_unless (gst_structure_get_uint64 (s, "idle-bytes", &idle));
      fail_unless (gst_structure_get_uint64 (s, "misses", &misses));
      fail_unless (gst_structure_get_uint64 (s, "cache-limit", &limit));
      fail_unless (gst_structure_has_field (s, "hits"));
      fail_unless (gst_structure_has_field (s, "evictions"));
      fail_unless_equals_uint64 (current, used + idle);
      fail_unless (misses > 0);
      fail_unless_equals_string (gst_structure_get_string (s, "memory"),
          "SystemMemory");
    }
    gst_message_unref (msg);
  }
  fail_unless (eos);
  /* one per 1 ms of the 3 ms apart frames, and one at end of stream */
  fail_unless (n_stats >= 5, "only %u stats messages", n_stats);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Resolutions switching every few frames: the cache serves revisits. */
GST_START_TEST (test_renegotiation_reuses_memory)
{
  GstCudaCacheStats first_pass, again;

  run_switching_pipeline ("cudacacheidentity", 1, NULL, &first_pass);
  fail_unless (first_pass.misses > 0);
  run_switching_pipeline ("cudacacheidentity", 3, NULL, &again);
  fail_unless_equals_uint64 (again.misses, first_pass.misses);
  fail_unless (again.hits > first_pass.hits);
}

GST_END_TEST;

/* Stopping with buffers still held downstream loses and leaks nothing. */
GST_START_TEST (test_shutdown_with_frames_in_flight)
{
  GstElement *pipeline, *sink;
  GstSample *held[3];
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  GstCudaCacheStats stats;
  guint i;

  pipeline = gst_parse_launch ("videotestsrc is-live=true ! "
      "video/x-raw,width=64,height=48 ! cudacacheidentity ! "
      "appsink name=sink max-buffers=8", NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < G_N_ELEMENTS (held); i++) {
    g_signal_emit_by_name (sink, "pull-sample", &held[i]);
    fail_unless (held[i] != NULL);
  }

  /* the pipeline goes away while the application holds frames */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless (stats.used_blocks >= G_N_ELEMENTS (held));
  for (i = 0; i < G_N_ELEMENTS (held); i++) {
    GstMapInfo map;

    /* still readable after their pool and element are gone */
    fail_unless (gst_buffer_map (gst_sample_get_buffer (held[i]), &map,
            GST_MAP_READ));
    gst_buffer_unmap (gst_sample_get_buffer (held[i]), &map);
    gst_sample_unref (held[i]);
  }
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_int (stats.used_blocks, 0);
  fail_unless_equals_uint64 (stats.current_size, stats.idle_bytes);

  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_bad_properties_refused)
{
  GstElement *e = gst_element_factory_make ("cudacacheidentity", NULL);
  gint device_id = 0;

  ASSERT_WARNING (g_object_set (e, "device-id", -7, NULL));
  g_object_get (e, "device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, -1);

  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
cudacacheidentity_suite (void)
{
  Suite *s = suite_create ("cudacacheidentity");
  TCase *tc = tcase_create ("general");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_proposes_cache_pool);
  tcase_add_test (tc, test_cache_properties_shared);
  tcase_add_test (tc, test_stats_messages);
  tcase_add_test (tc, test_renegotiation_reuses_memory);
  tcase_add_test (tc, test_shutdown_with_frames_in_flight);
  tcase_add_test (tc, test_bad_properties_refused);

  return s;
}

GST_CHECK_MAIN (cudacacheidentity);
