/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacacheidentity on system memory: passthrough, the pool it proposes,
 * cache properties shared by elements, stats messages, renegotiation. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>
#include "../cudacache-check.h"
#include "../cudacache-held.h"
#include "../cudacache-pipeline-race.h"
#include "../cudacache-pipeline.h"

#define CAPS_64x48 "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"

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

/* A downstream pad that answers the ALLOCATION query with the pool in
 * its element data, configured for the query's caps with the fields and
 * options the test put in "downstream-config" */
static gboolean
downstream_pool_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstBufferPool *pool = g_object_get_data (G_OBJECT (pad), "downstream-pool");
  GstPadQueryFunction chain = g_object_get_data (G_OBJECT (pad),
      "harness-query");

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    gst_query_add_allocation_pool (query, pool, 4096, 2, 0);
    return TRUE;
  }
  return chain (pad, parent, query);
}

/* Proposes, through cudacacheidentity in passthrough, for caps the
 * harness's sink answers with @pool; returns the query's first pool */
static GstBufferPool *
propose_through (GstBufferPool * pool)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstBufferPool *first = NULL;
  GstQuery *query;
  GstCaps *caps = gst_caps_from_string (CAPS_64x48);

  g_object_set_data (G_OBJECT (h->sinkpad), "harness-query",
      GST_PAD_QUERYFUNC (h->sinkpad));
  g_object_set_data (G_OBJECT (h->sinkpad), "downstream-pool", pool);
  gst_pad_set_query_function (h->sinkpad, downstream_pool_query);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));

  query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) >= 1);
  gst_query_parse_nth_allocation_pool (query, 0, &first, NULL, NULL, NULL);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);

  return first;
}

/* Downstream's pool, configured with @field (a config field, or NULL)
 * and @option (a buffer pool option, or NULL) */
static GstBufferPool *
downstream_pool_new (const gchar * field, const gchar * option)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstCaps *caps = gst_caps_from_string (CAPS_64x48);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, 4096, 2, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (option)
    gst_buffer_pool_config_add_option (config, option);
  if (field)
    gst_structure_set (config, field, G_TYPE_BOOLEAN, TRUE, NULL);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  gst_caps_unref (caps);

  return pool;
}

/* In passthrough, a pool downstream offers asking for what the cache's
 * pools do not serve (1.26's stream-ordered allocation, another option)
 * goes upstream first, as downstream offered it; a plain one is preceded
 * by the cache's pool. */
GST_START_TEST (test_passthrough_keeps_downstream_requirements)
{
  const gchar *fields[] = { "cuda-stream-ordered-alloc", NULL };
  const gchar *options[] = { NULL, "GstBufferPoolOptionDownstreamOnly" };
  GstBufferPool *theirs, *first;
  GstStructure *config;
  gboolean ordered = FALSE;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fields); i++) {
    theirs = downstream_pool_new (fields[i], options[i]);
    first = propose_through (theirs);
    fail_unless (first == theirs, "%s %s: %" GST_PTR_FORMAT " proposed "
        "first", fields[i], options[i], first);
    /* unchanged */
    config = gst_buffer_pool_get_config (first);
    fail_unless (!fields[i] || (gst_structure_get_boolean (config, fields[i],
                &ordered) && ordered));
    fail_unless (!options[i] || gst_buffer_pool_config_has_option (config,
            options[i]));
    gst_structure_free (config);
    gst_object_unref (first);
    gst_object_unref (theirs);
  }

  theirs = downstream_pool_new (NULL, NULL);
  first = propose_through (theirs);
  fail_unless (GST_IS_CUDA_CACHE_SYSTEM_POOL (first));
  gst_object_unref (first);
  gst_object_unref (theirs);
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
    guint64 current, used, idle, misses, limit, peak, peak_used, failures;
    guint64 alloc_time, alloc_max;

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
      fail_unless (gst_structure_get_uint64 (s, "peak-size", &peak));
      fail_unless (gst_structure_get_uint64 (s, "peak-used-bytes", &peak_used));
      fail_unless (gst_structure_get_uint64 (s, "alloc-failures", &failures));
      fail_unless (gst_structure_has_field (s, "alloc-retries"));
      /* misses allocated, in some time; the longest no more than all */
      fail_unless (gst_structure_get_uint64 (s, "alloc-time", &alloc_time));
      fail_unless (gst_structure_get_uint64 (s, "alloc-time-max", &alloc_max));
      fail_unless (alloc_time > 0 && alloc_max > 0 && alloc_max <= alloc_time);
      fail_unless (gst_structure_has_field (s, "free-time"));
      fail_unless (gst_structure_has_field (s, "free-time-max"));
      fail_unless_equals_uint64 (current, used + idle);
      fail_unless (peak >= current && peak_used >= used && peak_used > 0);
      fail_unless_equals_uint64 (failures, 0);
      fail_unless (misses > 0);
      fail_unless_equals_string (gst_structure_get_string (s, "memory"),
          "SystemMemory");
    }
    gst_message_unref (msg);
  }
  fail_unless (eos);
  /* one per 1 ms of the 3 ms apart frames, and one at end of stream */
  fail_unless (n_stats >= 5, "only %u stats messages", n_stats);
  {
    GstElement *c = gst_bin_get_by_name (GST_BIN (pipeline), "c");
    GstCudaCache *cache = NULL;
    GstCudaCacheStats stats;
    guint64 current = 0;

    /* the element's cache property and current-size read the same cache */
    g_object_get (c, "cache", &cache, "current-size", &current, NULL);
    fail_unless (cache != NULL);
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
    fail_unless (stats.peak_size >= current && stats.peak_used_bytes > 0);
    gst_object_unref (cache);
    gst_object_unref (c);
  }

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

/* After NULL a pipeline ending in appsink keeps at most one block in use,
 * the sample appsink keeps (GStreamer 1.22's does; 1.26's drops it); the
 * idle buffers of the pool upstream stopped with that buffer still out are
 * back in the cache, idle, not held by the pool until the pipeline is
 * freed. */
GST_START_TEST (test_null_keeps_only_appsinks_sample)
{
  GstElement *pipeline, *sink;
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  GstCudaCacheStats stats;
  guint i;

  pipeline = gst_parse_launch ("videotestsrc ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudacacheidentity ! "
      "queue ! appsink name=sink", NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 5; i++) {
    GstSample *sample = NULL;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    fail_unless (sample != NULL);
    gst_sample_unref (sample);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless (stats.used_blocks <= 1, "%u blocks in use after NULL",
      stats.used_blocks);
  fail_unless (stats.idle_blocks > 0);

  gst_object_unref (sink);
  gst_object_unref (pipeline);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_int (stats.used_blocks, 0);

  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_object_unref (cache);
}

GST_END_TEST;

/* The pool an ALLOCATION query returns for @caps_str. */
static GstBufferPool *
propose_for_caps (GstHarness * h, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) >= 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  gst_query_unref (query);
  gst_caps_unref (caps);

  return pool;
}

#define CAPS_32x16 "video/x-raw,format=NV12,width=32,height=16,framerate=30/1"

/* A caps change reconfigures the pool offered before instead of making a
 * new one, so the pool's remembered layouts serve a switch back. */
GST_START_TEST (test_pool_kept_across_caps)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstBufferPool *first, *second, *third;
  GstStructure *config;
  GstCaps *caps;
  gint width = 0;

  gst_harness_set_src_caps_str (h, CAPS_64x48);
  first = propose_for_caps (h, CAPS_64x48);
  gst_harness_set_src_caps_str (h, CAPS_32x16);
  second = propose_for_caps (h, CAPS_32x16);
  fail_unless (second == first, "a new pool %s for new caps instead of %s",
      second ? GST_OBJECT_NAME (second) : "(none)",
      first ? GST_OBJECT_NAME (first) : "(none)");

  /* configured for the caps asked for, not left as it was */
  config = gst_buffer_pool_get_config (second);
  fail_unless (gst_buffer_pool_config_get_params (config, &caps, NULL, NULL,
          NULL));
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "width", &width));
  fail_unless_equals_int (width, 32);
  gst_structure_free (config);

  gst_harness_set_src_caps_str (h, CAPS_64x48);
  third = propose_for_caps (h, CAPS_64x48);
  fail_unless (third == first);

  gst_object_unref (first);
  gst_object_unref (second);
  gst_object_unref (third);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An upstream element that lets a pool go still active on a caps change
 * (nvcodec's decoders do, on a new resolution): the pool's buffers come
 * back to the cache, and a switch back to the first caps allocates
 * nothing */
GST_START_TEST (test_pool_let_go_active_is_reused)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  const gchar *const caps[] = { CAPS_64x48, CAPS_32x16, CAPS_64x48 };
  GstCudaCache *cache = NULL;
  GstCudaCacheStats stats;
  guint64 misses[G_N_ELEMENTS (caps)];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (caps); i++) {
    GstBufferPool *pool;
    GstBuffer *buf[2];

    gst_harness_set_src_caps_str (h, caps[i]);
    pool = propose_for_caps (h, caps[i]);
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf[0],
            NULL), GST_FLOW_OK);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf[1],
            NULL), GST_FLOW_OK);
    gst_buffer_unref (buf[0]);
    gst_buffer_unref (buf[1]);
    /* let go, active, as such an element does */
    gst_object_unref (pool);

    if (!cache)
      g_object_get (h->element, "cache", &cache, NULL);
    fail_unless (cache != NULL);
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
    misses[i] = stats.misses;
  }
  /* the first caps' two buffers were idle in the cache again */
  fail_unless_equals_uint64 (misses[2], misses[1]);
  gst_object_unref (cache);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An upstream element that lets a pool go active while a buffer of it is
 * still downstream (a sink's last sample): once it activated the pool
 * proposed next, the first pool is deactivated, and its idle buffers are
 * back in the cache, though the buffer out still holds the pool. */
GST_START_TEST (test_pool_let_go_with_buffer_out)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  GstBufferPool *let_go, *taken, *next;
  GstBuffer *held, *idle;
  GstCudaCacheStats before, after;

  gst_harness_set_src_caps_str (h, CAPS_64x48);
  let_go = propose_for_caps (h, CAPS_64x48);
  fail_unless (gst_buffer_pool_set_active (let_go, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (let_go, &held,
          NULL), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (let_go, &idle,
          NULL), GST_FLOW_OK);
  gst_buffer_unref (idle);
  gst_object_unref (let_go);

  gst_harness_set_src_caps_str (h, CAPS_32x16);
  taken = propose_for_caps (h, CAPS_32x16);
  fail_unless (taken != let_go);
  fail_unless (gst_buffer_pool_set_active (taken, TRUE));

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
  gst_harness_set_src_caps_str (h, CAPS_64x48);
  next = propose_for_caps (h, CAPS_64x48);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after);
  fail_unless_equals_int (after.idle_blocks, before.idle_blocks + 1);
  fail_unless_equals_int (after.used_blocks, before.used_blocks - 1);

  gst_buffer_unref (held);
  fail_unless (gst_buffer_pool_set_active (taken, FALSE));
  gst_object_unref (taken);
  gst_object_unref (next);
  gst_harness_teardown (h);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_object_unref (cache);
}

GST_END_TEST;

typedef struct
{
  GHashTable *pools;            /* GstBufferPool -> itself, a ref each */
  guint frames;
} PoolsSeen;

static GstPadProbeReturn
collect_pools_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  PoolsSeen *seen = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  seen->frames++;
  if (buf->pool && !g_hash_table_contains (seen->pools, buf->pool))
    g_hash_table_add (seen->pools, gst_object_ref (buf->pool));

  return GST_PAD_PROBE_OK;
}

/* Runs 40 frames whose caps switch every 5 through @middle (a pipeline
 * fragment) and counts the pools of the buffers entering element "watch".
 * Returns: how many distinct pools */
static guint
count_pools_across_switches (const gchar * middle)
{
  CudaCacheSwitcher sw = { NULL, 5, 0 };
  PoolsSeen seen = { g_hash_table_new_full (NULL, NULL, gst_object_unref,
        NULL), 0
  };
  GstElement *pipeline, *watch;
  GstPad *pad;
  gchar *desc;
  guint n_pools;

  desc = g_strdup_printf ("videotestsrc name=src num-buffers=40 ! "
      "capsfilter name=res ! %s", middle);
  pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "could not build %s", desc);
  g_free (desc);
  cudacache_switch_attach (&sw, pipeline);
  watch = gst_bin_get_by_name (GST_BIN (pipeline), "watch");
  pad = gst_element_get_static_pad (watch, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, collect_pools_probe,
      &seen, NULL);
  gst_object_unref (pad);

  cudacache_run_pipeline (pipeline, NULL);
  fail_unless_equals_int (seen.frames, 40);
  n_pools = g_hash_table_size (seen.pools);

  g_hash_table_unref (seen.pools);
  gst_object_unref (watch);
  gst_object_unref (sw.capsfilter);
  gst_object_unref (pipeline);

  return n_pools;
}

/* Through real elements: videotestsrc takes the proposed pool, the caps
 * switch seven times, and the pools stay the element's two (one can still
 * have a frame in fakesink while the other is reconfigured). */
GST_START_TEST (test_pool_survives_renegotiation)
{
  guint n_pools = count_pools_across_switches ("cudacacheidentity name=watch "
      "! fakesink");

  fail_unless (n_pools >= 1 && n_pools <= 2, "%u pools for 8 negotiations",
      n_pools);
}

GST_END_TEST;

/* The same for the pools an element takes for its own output. */
GST_START_TEST (test_output_pool_survives_renegotiation)
{
  guint n_pools = count_pools_across_switches ("cudacacheconvert ! "
      "video/x-raw,format=RGBA ! identity name=watch ! fakesink");

  fail_unless (n_pools >= 1 && n_pools <= 2, "%u pools for 8 negotiations",
      n_pools);
}

GST_END_TEST;

#define MiB (G_GUINT64_CONSTANT (1) << 20)

/* Puts the system cache back as the other cases expect it. */
static void
restore_system_limit (guint64 limit)
{
  GstCudaCache *cache = gst_cuda_cache_get_system ();

  gst_cuda_cache_set_limit_if_newer (cache, limit, g_get_monotonic_time ());
  gst_object_unref (cache);
}

/* Two elements on one cache: a limit set on one is the other's. */
GST_START_TEST (test_cache_properties_shared)
{
  GstHarness *ha = gst_harness_new ("cudacacheidentity");
  GstHarness *hb = gst_harness_new ("cudacacheconvert");
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 before = gst_cuda_cache_get_limit (cache);
  guint64 limit = 0, current = 1;
  GstCudaCache *element_cache = NULL;
  GstCudaCacheStats stats;

  gst_harness_set_src_caps_str (ha, CAPS_64x48);
  gst_harness_set_src_caps_str (hb,
      "video/x-raw,format=RGBA,width=4,height=2,framerate=30/1");
  gst_buffer_unref (gst_harness_push_and_pull (hb,
          gst_harness_create_buffer (hb, 4 * 2 * 4)));

  g_object_set (ha->element, "cache-limit", (guint64) 123456789, NULL);
  g_object_get (hb->element, "cache-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 123456789);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 123456789);

  g_object_get (hb->element, "current-size", &current, "cache",
      &element_cache, NULL);
  fail_unless (element_cache == cache);
  gst_cuda_cache_get_stats (element_cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (current, stats.used_bytes + stats.idle_bytes);
  gst_object_unref (element_cache);

  gst_harness_teardown (ha);
  gst_harness_teardown (hb);
  restore_system_limit (before);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Set B=1000, then A=256 MiB, then B renegotiates: the cache keeps the
 * last write, A's. */
GST_START_TEST (test_cache_limit_last_write_wins)
{
  GstHarness *ha = gst_harness_new ("cudacacheidentity");
  GstHarness *hb = gst_harness_new ("cudacacheidentity");
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 before = gst_cuda_cache_get_limit (cache), limit = 0;

  gst_harness_set_src_caps_str (ha, CAPS_64x48);
  gst_harness_set_src_caps_str (hb, CAPS_64x48);
  g_object_set (hb->element, "cache-limit", (guint64) 1000, NULL);
  g_object_set (ha->element, "cache-limit", 256 * MiB, NULL);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 256 * MiB);

  gst_harness_set_src_caps_str (hb, CAPS_32x16);
  gst_harness_push (hb, gst_harness_create_buffer (hb, 32 * 16 * 3 / 2));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 256 * MiB);
  g_object_get (hb->element, "cache-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 256 * MiB);

  /* a limit set before negotiation waits for it, and loses to a later one */
  gst_harness_teardown (ha);
  ha = gst_harness_new_empty ();
  gst_harness_add_parse (ha, "cudacacheidentity cache-limit=5000");
  g_object_set (hb->element, "cache-limit", 7000 * MiB, NULL);
  gst_harness_set_src_caps_str (ha, CAPS_64x48);
  gst_harness_push (ha, gst_harness_create_buffer (ha, 64 * 48 * 3 / 2));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 7000 * MiB);

  gst_harness_teardown (ha);
  gst_harness_teardown (hb);
  restore_system_limit (before);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Set before negotiation, cache-limit touches no cache: the element may
 * use CUDA memory; it applies at negotiation to the cache it then uses. */
GST_START_TEST (test_cache_limit_pending_until_negotiated)
{
  GstElement *e = gst_element_factory_make ("cudacacheidentity", NULL);
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 before = gst_cuda_cache_get_limit (cache), limit = 0;
  GstHarness *h;

  g_object_set (e, "cache-limit", before + 4096, NULL);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), before);
  g_object_get (e, "cache-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, before + 4096);

  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_src_caps_str (h, CAPS_64x48);
  gst_harness_push (h, gst_harness_create_buffer (h, 64 * 48 * 3 / 2));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), before + 4096);

  gst_harness_teardown (h);
  gst_object_unref (e);
  restore_system_limit (before);
  gst_object_unref (cache);
}

GST_END_TEST;

/* The system-memory side lists the formats the CUDA side does, not any
 * video/x-raw: what gst-inspect shows is what is taken. */
GST_START_TEST (test_system_memory_formats_listed)
{
  GstElement *e = gst_element_factory_make ("cudacacheidentity", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *templ = gst_pad_get_pad_template_caps (sink);
  const GValue *cuda_formats = NULL, *system_formats = NULL;
  GstCaps *v210;
  guint i;

  for (i = 0; i < gst_caps_get_size (templ); i++) {
    GstStructure *s = gst_caps_get_structure (templ, i);

    if (!gst_structure_has_name (s, "video/x-raw"))
      continue;
    if (gst_caps_features_contains (gst_caps_get_features (templ, i),
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      cuda_formats = gst_structure_get_value (s, "format");
    else
      system_formats = gst_structure_get_value (s, "format");
  }
  fail_unless (cuda_formats != NULL && system_formats != NULL);
  /* system memory's are CUDA memory's and GRAY8, which GStreamer 1.22's
   * CUDA allocator does not lay out */
  fail_unless (gst_value_is_subset (cuda_formats, system_formats));
  fail_unless_equals_int (gst_value_list_get_size (system_formats),
      gst_value_list_get_size (cuda_formats) + 1);
  fail_unless_equals_string (g_value_get_string (gst_value_list_get_value
          (system_formats, gst_value_list_get_size (system_formats) - 1)),
      "GRAY8");

  /* a format neither side lists */
  v210 = gst_caps_from_string ("video/x-raw,format=v210,width=64,height=48,"
      "framerate=30/1");
  fail_if (gst_pad_query_accept_caps (sink, v210));
  gst_caps_unref (v210);

  gst_caps_unref (templ);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

/* gst-inspect-1.0 (1.22) shows the value a new element reads as the
 * property's default, and hotdoc the param spec's default
 * (GST_PARAM_DOC_SHOW_DEFAULT): both are 0, not this machine's half of its
 * memory, and the blurb says what the default is. */
GST_START_TEST (test_cache_limit_default_not_machine_specific)
{
  GstElement *e = gst_element_factory_make ("cudacacheidentity", NULL);
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "cache-limit");
  const gchar *blurb = g_param_spec_get_blurb (pspec);
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 limit = 1;

  fail_unless (gst_cuda_cache_get_limit (cache) > 0);
  g_object_get (e, "cache-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 0);
  fail_unless (pspec->flags & GST_PARAM_DOC_SHOW_DEFAULT);
  fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (pspec)->default_value, 0);
  fail_unless (strstr (blurb, "depends on the machine and so reads and "
          "shows as 0") && strstr (blurb, "half the machine's RAM for system "
          "memory") && strstr (blurb, "GST_CUDA_CACHE_LIMIT"), "%s", blurb);

  gst_object_unref (cache);
  gst_object_unref (e);
}

GST_END_TEST;

/* The `cache` property: none before negotiation, then the one the
 * element's memory comes from, for clearing and scoped statistics. */
GST_START_TEST (test_cache_property)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstCudaCache *system = gst_cuda_cache_get_system ();
  GstCudaCache *cache = NULL;
  GstCudaCacheStats stats;

  g_object_get (h->element, "cache", &cache, NULL);
  fail_unless (cache == NULL);

  gst_harness_set_src_caps_str (h, CAPS_64x48);
  gst_harness_push (h, gst_harness_create_buffer (h, 64 * 48 * 3 / 2));
  g_object_get (h->element, "cache", &cache, NULL);
  fail_unless (cache == system);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_THREAD, &stats);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_THREAD);

  gst_object_unref (cache);
  gst_object_unref (system);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_bad_properties_refused)
{
  GstElement *e = gst_element_factory_make ("cudacacheidentity", NULL);
  gint device_id = 0;

  ASSERT_PROPERTY_REFUSED (g_object_set (e, "cuda-device-id", -7, NULL));
  g_object_get (e, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, -1);

  gst_object_unref (e);
}

GST_END_TEST;

/* A tensor buffer shorter than its caps passes, but not silently: one
 * warning on the bus per caps */
GST_START_TEST (test_short_tensor_buffer_reported)
{
  GstHarness *h = gst_harness_new ("cudacacheidentity");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstBuffer *out;

  gst_element_set_bus (h->element, bus);
  /* float32 4x2x3: 96 bytes */
  gst_harness_set_src_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=4:2:3:1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 96)), GST_FLOW_OK);
  fail_if (gst_bus_have_pending (bus), "a buffer of the right size reported");

  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h,
          gst_harness_create_buffer (h, 64)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_buffer_unref (out);
  out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (out), 64);
  gst_buffer_unref (out);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "a short tensor buffer passed silently");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "64 bytes for tensor caps of 96") !=
      NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) != NULL,
      "reported more than once for the same caps");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* cuda-device-id, as nvcodec's elements call it, and no other name */
GST_START_TEST (test_device_id_property)
{
  GstElement *e = gst_element_factory_make ("cudacacheidentity", NULL);
  gint device_id = 0;

  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "device-id") == NULL);
  g_object_get (e, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, -1);
  g_object_set (e, "cuda-device-id", 1, NULL);
  g_object_get (e, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, 1);

  gst_object_unref (e);
}

GST_END_TEST;

/* cudacache-pipeline-race.h: buffers of earlier caps never come out of
 * the pools this element proposes or takes (tests/stress runs it longer) */
GST_START_TEST (test_caps_churn_keeps_layouts)
{
  cudacache_check_pipeline_race ("cudacacheidentity", FALSE, 3, 1);
}

GST_END_TEST;

/* cache-limit and current-size are properties; the cache's other figures
 * come from the stats message or the cache property, and no element
 * property is deprecated (gst-inspect-1.0 shows none) */
GST_START_TEST (test_statistics_properties)
{
  /* every element's, then the single-frame elements' own */
  const gchar *kept[] = { "cache-limit", "stats-interval", "cuda-device-id",
    "current-size", "cache"
  };
  const gchar *gone[] = { "device-id", "used-bytes", "idle-bytes", "hits",
    "misses", "evictions", "peak-size", "peak-used-bytes", "alloc-retries",
    "alloc-failures", "alloc-time", "alloc-time-max", "free-time",
    "free-time-max"
  };
  const gchar *elements[] = { "cudacacheidentity", "cudacacheconvert",
    "cudacachebatch"
  };
  guint i, j;

  for (j = 0; j < G_N_ELEMENTS (elements); j++) {
    GstElement *e = gst_element_factory_make (elements[j], NULL);
    GObjectClass *klass = G_OBJECT_GET_CLASS (e);
    GParamSpec **pspecs;
    guint n;

    for (i = 0; i < (j < 2 ? G_N_ELEMENTS (kept) : 3); i++)
      fail_unless (g_object_class_find_property (klass, kept[i]) != NULL,
          "%s: no %s", elements[j], kept[i]);
    for (i = 0; i < G_N_ELEMENTS (gone); i++)
      fail_unless (g_object_class_find_property (klass, gone[i]) == NULL,
          "%s: %s", elements[j], gone[i]);
    pspecs = g_object_class_list_properties (klass, &n);
    for (i = 0; i < n; i++)
      fail_if (pspecs[i]->flags & G_PARAM_DEPRECATED, "%s: %s deprecated",
          elements[j], pspecs[i]->name);
    g_free (pspecs);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Buffers the application holds while the pipeline stops go back to the
 * cache as idle, one by one as it lets them go, with the pipeline kept to
 * be restarted or already freed (cudacache-held.h) */
GST_START_TEST (test_buffers_held_past_null_come_back_idle)
{
  static const gchar *desc =
      "videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=64,height=64 ! "
      "cudacacheidentity name=e ! fakesink enable-last-sample=false";
  GstCudaCache *cache = gst_cuda_cache_get_system ();

  cudacache_held_after_stop (desc, cache, FALSE);
  cudacache_held_after_stop (desc, cache, TRUE);
  gst_object_unref (cache);
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
  tcase_add_test (tc, test_passthrough_keeps_downstream_requirements);
  tcase_add_test (tc, test_cache_properties_shared);
  tcase_add_test (tc, test_stats_messages);
  tcase_add_test (tc, test_renegotiation_reuses_memory);
  tcase_add_test (tc, test_shutdown_with_frames_in_flight);
  tcase_add_test (tc, test_null_keeps_only_appsinks_sample);
  tcase_add_test (tc, test_bad_properties_refused);
  tcase_add_test (tc, test_pool_kept_across_caps);
  tcase_add_test (tc, test_pool_let_go_active_is_reused);
  tcase_add_test (tc, test_pool_let_go_with_buffer_out);
  tcase_add_test (tc, test_pool_survives_renegotiation);
  tcase_add_test (tc, test_output_pool_survives_renegotiation);
  tcase_add_test (tc, test_cache_limit_last_write_wins);
  tcase_add_test (tc, test_cache_limit_pending_until_negotiated);
  tcase_add_test (tc, test_cache_property);
  tcase_add_test (tc, test_cache_limit_default_not_machine_specific);
  tcase_add_test (tc, test_system_memory_formats_listed);
  tcase_add_test (tc, test_device_id_property);
  tcase_add_test (tc, test_short_tensor_buffer_reported);
  tcase_add_test (tc, test_statistics_properties);
  tcase_add_test (tc, test_caps_churn_keeps_layouts);
  tcase_add_test (tc, test_buffers_held_past_null_come_back_idle);

  return s;
}

GST_CHECK_MAIN (cudacacheidentity);
