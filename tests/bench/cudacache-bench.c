/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The benchmark against GStreamer's stock pools (see docs/performance.md).
 *
 *   cudacache-bench [--smoke] [--out DIR]
 *
 * Every scenario measures ours and the stock pool in the same process,
 * alternating, after a warm-up, and writes DIR/results.csv
 * (scenario,variant,param,metric,value,unit) and DIR/machine.txt;
 * tests/bench/report.py turns them into a table and plots. On a machine
 * without a CUDA device, or with --smoke, each scenario runs briefly on
 * system memory: that checks the program, not the numbers. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cudacache/cudacache.h>

typedef struct
{
  FILE *csv;
  gboolean cuda;                /* FALSE: system memory (smoke) */
  gboolean smoke;
  GstCudaContext *context;
} Bench;

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
emit (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, const gchar * metric, gdouble value,
    const gchar * unit)
{
  fprintf (b->csv, "%s,%s,%s,%s,%.6g,%s\n", scenario, variant, param, metric,
      value, unit);
  fflush (b->csv);
  g_print ("%-13s %-17s %-12s %-18s %12.4g %s\n", scenario, variant, param,
      metric, value, unit);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Median, 99th percentile and maximum of @n samples (sorted in place). */
static void
emit_distribution (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, gdouble * samples, guint n)
{
  if (n == 0)
    return;
  qsort (samples, n, sizeof (gdouble), (gint (*)(const void *,
              const void *)) compare_doubles);
  emit (b, scenario, variant, param, "median_us", samples[n / 2], "us");
  emit (b, scenario, variant, param, "p99_us",
      samples[MIN (n - 1, (guint) ceil (n * 0.99) - 1)], "us");
  emit (b, scenario, variant, param, "max_us", samples[n - 1], "us");
  emit (b, scenario, variant, param, "iterations", n, "count");
}

static GstCaps *
frame_caps (Bench * b, gint width, gint height)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "NV12", "width", G_TYPE_INT, width,
      "height", G_TYPE_INT, height, "framerate", GST_TYPE_FRACTION, 30, 1,
      NULL);

  if (b->cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

static gboolean
configure (GstBufferPool * pool, GstCaps * caps, guint min_buffers)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  gst_video_info_from_caps (&info, caps);
  gst_buffer_pool_config_set_params (config, caps, info.size, min_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  return gst_buffer_pool_set_config (pool, config);
}

static GstBufferPool *
new_our_pool (Bench * b)
{
  return b->cuda ? gst_cuda_cache_pool_new (b->context) :
      gst_cuda_cache_system_pool_new (NULL);
}

static GstBufferPool *
new_stock_pool (Bench * b)
{
  return b->cuda ? gst_cuda_buffer_pool_new (b->context) :
      gst_video_buffer_pool_new ();
}

/* 1. acquire + release at steady caps */
static void
bench_hit_path (Bench * b)
{
  const gchar *names[3];
  GstBufferPool *pools[3];
  gdouble *samples[3];
  guint n_variants, rounds = b->smoke ? 5 : 50, per_round =
      b->smoke ? 200 : 2000, v, r, i;
  GstCaps *cuda_caps = frame_caps (b, 1920, 1080);
  GstCaps *sys_caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, "NV12", "width", G_TYPE_INT, 1920, "height", G_TYPE_INT,
      1080, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);

  if (b->cuda) {
    names[0] = "cudacachepool";
    pools[0] = gst_cuda_cache_pool_new (b->context);
    names[1] = "cudabufferpool";
    pools[1] = gst_cuda_buffer_pool_new (b->context);
    names[2] = "videobufferpool";
    pools[2] = gst_video_buffer_pool_new ();
    n_variants = 3;
  } else {
    names[0] = "systempool";
    pools[0] = gst_cuda_cache_system_pool_new (NULL);
    names[1] = "videobufferpool";
    pools[1] = gst_video_buffer_pool_new ();
    n_variants = 2;
  }

  for (v = 0; v < n_variants; v++) {
    gboolean system = g_str_equal (names[v], "videobufferpool") ||
        g_str_equal (names[v], "systempool");

    if (!configure (pools[v], system ? sys_caps : cuda_caps, 4) ||
        !gst_buffer_pool_set_active (pools[v], TRUE))
      g_error ("could not start %s", names[v]);
    samples[v] = g_new (gdouble, rounds * per_round);
    /* warm-up */
    for (i = 0; i < per_round * 5; i++) {
      GstBuffer *buf = NULL;

      gst_buffer_pool_acquire_buffer (pools[v], &buf, NULL);
      gst_buffer_unref (buf);
    }
  }

  /* the variants take turns, so that drift touches all alike */
  for (r = 0; r < rounds; r++) {
    for (v = 0; v < n_variants; v++) {
      for (i = 0; i < per_round; i++) {
        GstBuffer *buf = NULL;
        gint64 t0 = now_ns ();

        if (gst_buffer_pool_acquire_buffer (pools[v], &buf, NULL) !=
            GST_FLOW_OK)
          g_error ("%s: acquire failed", names[v]);
        gst_buffer_unref (buf);
        samples[v][r * per_round + i] = (now_ns () - t0) / 1000.0;
      }
    }
  }

  for (v = 0; v < n_variants; v++) {
    emit_distribution (b, "hit_path", names[v], "1080p NV12", samples[v],
        rounds * per_round);
    gst_buffer_pool_set_active (pools[v], FALSE);
    gst_object_unref (pools[v]);
    g_free (samples[v]);
  }
  gst_caps_unref (cuda_caps);
  gst_caps_unref (sys_caps);
}

/* One switch: configure for @caps, activate, one buffer, deactivate. */
static void
switch_pool (GstBufferPool * pool, GstCaps * caps)
{
  GstBuffer *buf = NULL;

  if (!configure (pool, caps, 4) || !gst_buffer_pool_set_active (pool, TRUE))
    g_error ("could not configure %" GST_PTR_FORMAT, caps);
  if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
    g_error ("acquire failed");
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
}

/* Where a switch of ours spends its time, phase by phase. */
static void
bench_switch_phases (Bench * b, GstBufferPool * pool, GstCaps ** caps,
    guint n, const gchar * param)
{
  static const gchar *phases[] = {
    "config_us", "activate_us", "acquire_release_us", "deactivate_us",
  };
  guint switches = b->smoke ? 20 : 400, i, p;
  gdouble *t[4];

  for (p = 0; p < 4; p++)
    t[p] = g_new (gdouble, switches);

  for (i = 0; i < switches; i++) {
    GstBuffer *buf = NULL;
    gint64 t0 = now_ns (), t1, t2, t3, t4;

    if (!configure (pool, caps[i % n], 4))
      g_error ("could not configure");
    t1 = now_ns ();
    gst_buffer_pool_set_active (pool, TRUE);
    t2 = now_ns ();
    gst_buffer_pool_acquire_buffer (pool, &buf, NULL);
    gst_buffer_unref (buf);
    t3 = now_ns ();
    gst_buffer_pool_set_active (pool, FALSE);
    t4 = now_ns ();
    t[0][i] = (t1 - t0) / 1000.0;
    t[1][i] = (t2 - t1) / 1000.0;
    t[2][i] = (t3 - t2) / 1000.0;
    t[3][i] = (t4 - t3) / 1000.0;
  }

  for (p = 0; p < 4; p++) {
    qsort (t[p], switches, sizeof (gdouble), (gint (*)(const void *,
                const void *)) compare_doubles);
    emit (b, "switch_phases", "ours", param, phases[p], t[p][switches / 2],
        "us");
    g_free (t[p]);
  }
}

#define RENEGOTIATION_BLOCK 20

/* 2. a pool reconfigured among N caps: ours, and a fresh stock pool per
 * caps as nvcodec's elements do */
static void
bench_renegotiation (Bench * b)
{
  static const guint ns[] = { 2, 4, 16 };
  guint switches = b->smoke ? 20 : 400, k;

  for (k = 0; k < G_N_ELEMENTS (ns); k++) {
    guint n = ns[k], i;
    GstCaps **caps = g_new (GstCaps *, n);
    GstBufferPool *ours = new_our_pool (b);
    gdouble *t_ours = g_new (gdouble, switches);
    gdouble *t_stock = g_new (gdouble, switches);
    gchar *param = g_strdup_printf ("N=%u", n);

    for (i = 0; i < n; i++)
      caps[i] = frame_caps (b, 1920 - 32 * i, 1080 - 16 * i);

    /* warm-up: the first visit to each caps allocates */
    for (i = 0; i < 2 * n; i++)
      switch_pool (ours, caps[i % n]);

    /* the two take turns in blocks of RENEGOTIATION_BLOCK switches: drift
     * touches both alike, and neither runs straight after the other's
     * driver calls on every switch */
    for (i = 0; i < switches; i += RENEGOTIATION_BLOCK) {
      guint j, end = MIN (switches, i + RENEGOTIATION_BLOCK);

      for (j = i; j < end; j++) {
        gint64 t0 = now_ns ();

        switch_pool (ours, caps[j % n]);
        t_ours[j] = (now_ns () - t0) / 1000.0;
      }
      for (j = i; j < end; j++) {
        gint64 t0 = now_ns ();
        GstBufferPool *stock = new_stock_pool (b);

        switch_pool (stock, caps[j % n]);
        gst_object_unref (stock);
        t_stock[j] = (now_ns () - t0) / 1000.0;
      }
    }

    emit_distribution (b, "renegotiation", "ours", param, t_ours, switches);
    emit_distribution (b, "renegotiation", "stock", param, t_stock, switches);
    if (n == 4)
      bench_switch_phases (b, ours, caps, n, param);

    for (i = 0; i < n; i++)
      gst_caps_unref (caps[i]);
    g_free (caps);
    gst_object_unref (ours);
    g_free (t_ours);
    g_free (t_stock);
    g_free (param);
  }
}

/* Counts the distinct memories that reach a pad: each one was allocated
 * once (a memory is only counted again after it was freed). */
typedef struct
{
  GMutex lock;
  GHashTable *live;
  guint64 allocs;
} MemoryCount;

static void
memory_freed (gpointer data, GstMiniObject * obj)
{
  MemoryCount *mc = data;

  g_mutex_lock (&mc->lock);
  g_hash_table_remove (mc->live, obj);
  g_mutex_unlock (&mc->lock);
}

static GstPadProbeReturn
count_memories (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  MemoryCount *mc = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    g_mutex_lock (&mc->lock);
    if (!g_hash_table_contains (mc->live, mem)) {
      g_hash_table_add (mc->live, mem);
      mc->allocs++;
      gst_mini_object_weak_ref (GST_MINI_OBJECT (mem), memory_freed, mc);
    }
    g_mutex_unlock (&mc->lock);
  }

  return GST_PAD_PROBE_OK;
}

typedef struct
{
  Bench *bench;
  GstCudaCache *cache;
  volatile gint stop;
  guint64 baseline_used;
  guint64 peak_used;
  guint64 max_idle;
  guint64 limit;
} Sampler;

static gpointer
sample_memory (gpointer data)
{
  Sampler *s = data;

  while (!g_atomic_int_get (&s->stop)) {
    GstCudaCacheStats stats;

    if (s->bench->cuda) {
      guint64 free_bytes = 0, total = 0;

      if (gst_cuda_cache_device_get_memory_info (s->bench->context,
              &free_bytes, &total))
        s->peak_used = MAX (s->peak_used, total - free_bytes);
    }
    if (s->cache) {
      gst_cuda_cache_get_stats (s->cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
      s->max_idle = MAX (s->max_idle, stats.idle_bytes);
      s->limit = stats.limit_bytes;
    }
    g_usleep (1000);
  }

  return NULL;
}

typedef struct
{
  gdouble fps;
  guint64 distinct_memories;
  guint64 cache_misses;
  guint64 peak_used;
  guint64 max_idle;
  guint64 limit;
} ChurnResult;

static const gint churn_sizes[][2] = {
  {1920, 1080}, {1280, 720}, {1600, 900}, {960, 540},
};

/* @frames pre-made frames through @middle, switching resolution every @k.
 * With @sample_memory_use, the peak device memory in use above
 * @baseline_used and the cache's largest idle size are sampled. */
static ChurnResult
run_churn (Bench * b, const gchar * middle, guint frames, guint k,
    GstSample ** samples, gboolean sample_memory_use, guint64 baseline_used)
{
  ChurnResult res = { 0, };
  MemoryCount mc;
  Sampler sampler = { b, NULL, 0, 0, 0, 0, 0 };
  GThread *thread = NULL;
  GstElement *pipeline, *src, *sink;
  GstCudaCache *cache;
  GstCudaCacheStats before, after;
  GstMessage *msg;
  GstPad *pad;
  gchar *desc;
  gint64 t0;
  guint i;

  desc = g_strdup_printf ("appsrc name=src format=time max-bytes=%u block=true "
      "! %s %s ! fakesink name=sink sync=false", 64 << 20,
      b->cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) !" : "", middle);
  pipeline = gst_parse_launch (desc, NULL);
  if (!pipeline)
    g_error ("could not build %s", desc);
  g_free (desc);

  if (b->cuda) {
    GstContext *ctx = gst_context_new_cuda_context (b->context);

    gst_element_set_context (pipeline, ctx);
    gst_context_unref (ctx);
  }

  g_mutex_init (&mc.lock);
  mc.live = g_hash_table_new (NULL, NULL);
  mc.allocs = 0;
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_memories, &mc, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  cache = b->cuda ? gst_cuda_cache_device_get_cache (b->context) :
      gst_cuda_cache_get_system ();
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
  if (sample_memory_use) {
    sampler.cache = cache;
    sampler.baseline_used = baseline_used;
    thread = g_thread_new ("bench-sampler", sample_memory, &sampler);
  }

  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  t0 = now_ns ();
  for (i = 0; i < frames; i++) {
    GstSample *sample = samples[(i / k) % G_N_ELEMENTS (churn_sizes)];
    GstBuffer *buf = gst_buffer_copy (gst_sample_get_buffer (sample));
    GstSample *timed;

    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    timed = gst_sample_new (buf, gst_sample_get_caps (sample), NULL, NULL);
    gst_buffer_unref (buf);
    if (gst_app_src_push_sample (GST_APP_SRC (src), timed) != GST_FLOW_OK)
      g_error ("push failed at frame %u", i);
    gst_sample_unref (timed);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      300 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    g_error ("churn pipeline through %s failed", middle);
  res.fps = frames / ((now_ns () - t0) / 1e9);
  gst_message_unref (msg);

  if (thread) {
    g_atomic_int_set (&sampler.stop, 1);
    g_thread_join (thread);
    res.peak_used = sampler.peak_used > sampler.baseline_used ?
        sampler.peak_used - sampler.baseline_used : 0;
    res.max_idle = sampler.max_idle;
    res.limit = sampler.limit;
  }
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after);
  res.cache_misses = after.misses - before.misses;

  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_mutex_lock (&mc.lock);
  res.distinct_memories = mc.allocs;
  g_mutex_unlock (&mc.lock);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  gst_object_unref (cache);

  /* memories still alive keep a weak ref to @mc */
  g_mutex_lock (&mc.lock);
  {
    GHashTableIter iter;
    gpointer mem;

    g_hash_table_iter_init (&iter, mc.live);
    while (g_hash_table_iter_next (&iter, &mem, NULL))
      gst_mini_object_weak_unref (mem, memory_freed, &mc);
  }
  g_mutex_unlock (&mc.lock);
  g_hash_table_unref (mc.live);
  g_mutex_clear (&mc.lock);

  return res;
}

/* Empties the cache the churn pipelines use and returns the device memory
 * in use afterwards. */
static guint64
clear_device_cache (Bench * b)
{
  GstCudaCache *cache = b->cuda ? gst_cuda_cache_device_get_cache (b->context)
      : gst_cuda_cache_get_system ();
  guint64 free_bytes = 0, total = 0;

  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_cuda_cache_drain (cache);
  gst_object_unref (cache);
  if (b->cuda)
    gst_cuda_cache_device_get_memory_info (b->context, &free_bytes, &total);

  return total - free_bytes;
}

/* 3 and 5. a stream switching resolution every K frames: ours against the
 * stock path doing the same work; fps, allocations, peak memory */
static void
bench_churn (Bench * b)
{
  static const guint ks[] = { 1, 10, 100 };
  guint frames = b->smoke ? 40 : 1200, i, j;
  GstSample *samples[G_N_ELEMENTS (churn_sizes)];
  /* cudaupload (CUDA) or videoconvert (system) allocates each output
   * frame: from the cache's pool behind cudacacheidentity, or from its own
   * stock pool, re-created at each caps change */
  const gchar *ours = b->cuda ? "cudacacheidentity" :
      "videoconvert ! video/x-raw,format=RGBA ! cudacacheidentity";
  const gchar *stock = b->cuda ? "identity" :
      "videoconvert ! video/x-raw,format=RGBA ! identity";

  for (i = 0; i < G_N_ELEMENTS (churn_sizes); i++) {
    GstVideoInfo info;
    GstCaps *caps = gst_caps_new_simple ("video/x-raw",
        "format", G_TYPE_STRING, "NV12",
        "width", G_TYPE_INT, churn_sizes[i][0],
        "height", G_TYPE_INT, churn_sizes[i][1],
        "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
    GstBuffer *buf;

    gst_video_info_from_caps (&info, caps);
    buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_memset (buf, 0, 0x80, info.size);
    samples[i] = gst_sample_new (buf, caps, NULL, NULL);
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
  }

  for (j = 0; j < G_N_ELEMENTS (ks); j++) {
    guint k = ks[j];
    gchar *param = g_strdup_printf ("K=%u", k);
    ChurnResult r_ours, r_stock;

    guint64 baseline;

    /* both start from an empty cache; ours then keeps what its warm-up
     * (one visit to each resolution) left, as a running pipeline would */
    baseline = clear_device_cache (b);
    run_churn (b, ours, 4 * k, k, samples, FALSE, 0);
    r_ours = run_churn (b, ours, frames, k, samples, TRUE, baseline);
    baseline = clear_device_cache (b);
    run_churn (b, stock, 4 * k, k, samples, FALSE, 0);
    r_stock = run_churn (b, stock, frames, k, samples, TRUE, baseline);

    emit (b, "churn", "ours", param, "fps", r_ours.fps, "fps");
    emit (b, "churn", "stock", param, "fps", r_stock.fps, "fps");
    emit (b, "churn", "ours", param, "allocs_per_1000",
        r_ours.cache_misses * 1000.0 / frames, "count");
    emit (b, "churn", "stock", param, "allocs_per_1000",
        r_stock.distinct_memories * 1000.0 / frames, "count");
    emit (b, "churn", "ours", param, "frames", frames, "count");
    emit (b, "churn", "stock", param, "frames", frames, "count");

    if (b->cuda) {
      emit (b, "memory", "ours", param, "peak_device_mib",
          r_ours.peak_used / 1048576.0, "MiB");
      emit (b, "memory", "stock", param, "peak_device_mib",
          r_stock.peak_used / 1048576.0, "MiB");
    }
    emit (b, "memory", "ours", param, "max_idle_mib",
        r_ours.max_idle / 1048576.0, "MiB");
    emit (b, "memory", "ours", param, "limit_mib", r_ours.limit / 1048576.0,
        "MiB");
    if (r_ours.max_idle > r_ours.limit)
      g_printerr ("the cache's idle bytes exceeded its limit\n");
    g_free (param);
  }

  for (i = 0; i < G_N_ELEMENTS (churn_sizes); i++)
    gst_sample_unref (samples[i]);
}

static GstMemory *
alloc_block (gpointer user_data)
{
  Bench *b = user_data;
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 2048, 1024);
  if (b->cuda) {
    GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
    GstMemory *mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (allocator),
        b->context, &info);

    gst_object_unref (allocator);
    return mem;
  }
  return gst_allocator_alloc (NULL, info.size, NULL);
}

/* Keeps the device busy on another stream for a while. */
typedef struct
{
  CUstream stream;
  CUdeviceptr a, b;
  gsize bytes;
} Busy;

static void
busy_start (Bench * bench, Busy * busy, guint copies)
{
  CUDA_MEMCPY2D copy = { 0, };
  guint i;

  gst_cuda_context_push (bench->context);
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = busy->a;
  copy.srcPitch = 1 << 20;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = busy->b;
  copy.dstPitch = 1 << 20;
  copy.WidthInBytes = 1 << 20;
  copy.Height = busy->bytes >> 20;
  for (i = 0; i < copies; i++)
    CuMemcpy2DAsync (&copy, busy->stream);
  gst_cuda_context_pop (NULL);
}

/* 4. the longest time a streaming thread is blocked when the cache drops a
 * block while another stream is busy: reaper thread vs inline free */
static void
bench_eviction (Bench * b)
{
  GstCudaCache *caches[2];
  const gchar *names[2] = { "cache_async_free", "inline_free" };
  guint trials = b->smoke ? 3 : 20, t, v;
  gdouble *samples[2];
  Busy busy = { 0, };

  caches[0] = gst_cuda_cache_new (1ULL << 34, GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  caches[1] = gst_cuda_cache_new (1ULL << 34, GST_CUDA_CACHE_FLAG_NONE);
  for (v = 0; v < 2; v++) {
    /* nothing may stay idle: every release drops its block */
    gst_cuda_cache_set_limit (caches[v], 0);
    samples[v] = g_new (gdouble, trials);
  }

  if (b->cuda) {
    busy.bytes = 1ULL << 30;
    gst_cuda_context_push (b->context);
    if (CuMemAlloc (&busy.a, busy.bytes) != CUDA_SUCCESS ||
        CuMemAlloc (&busy.b, busy.bytes) != CUDA_SUCCESS ||
        CuStreamCreate (&busy.stream, 0) != CUDA_SUCCESS)
      g_error ("could not set up the busy stream");
    gst_cuda_context_pop (NULL);
  }

  for (t = 0; t < trials; t++) {
    for (v = 0; v < 2; v++) {
      GstMemory *mem = gst_cuda_cache_acquire (caches[v], "block",
          alloc_block, b);
      gint64 t0;

      if (!mem)
        g_error ("could not allocate a block");
      if (b->cuda)
        busy_start (b, &busy, 20);
      t0 = now_ns ();
      gst_memory_unref (mem);
      samples[v][t] = (now_ns () - t0) / 1000.0;
      if (b->cuda) {
        gst_cuda_context_push (b->context);
        CuStreamSynchronize (busy.stream);
        gst_cuda_context_pop (NULL);
      }
      gst_cuda_cache_drain (caches[v]);
    }
  }

  for (v = 0; v < 2; v++) {
    emit_distribution (b, "eviction", names[v], "-", samples[v], trials);
    g_free (samples[v]);
    gst_object_unref (caches[v]);
  }

  if (b->cuda) {
    gst_cuda_context_push (b->context);
    CuStreamDestroy (busy.stream);
    CuMemFree (busy.a);
    CuMemFree (busy.b);
    gst_cuda_context_pop (NULL);
  }
}

static void
write_machine (Bench * b, const gchar * dir)
{
  gchar *path = g_build_filename (dir, "machine.txt", NULL);
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *date = g_date_time_format (now, "%Y-%m-%d");
  gchar *gst = gst_version_string ();
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "- date: %s\n- GStreamer: %s\n", date, gst);
  if (b->cuda) {
    gchar name[256] = "";
    gint driver = 0;
    CUdevice device;
    guint64 total = 0;

    gst_cuda_context_push (b->context);
    CuDeviceGet (&device, 0);
    CuDeviceGetName (name, sizeof (name), device);
    CuDriverGetVersion (&driver);
    gst_cuda_context_pop (NULL);
    gst_cuda_cache_device_get_memory_info (b->context, NULL, &total);
    g_string_append_printf (s, "- GPU: %s, %.1f GiB\n- CUDA driver API: "
        "%d.%d\n", name, total / 1073741824.0, driver / 1000,
        (driver % 1000) / 10);
  } else {
    g_string_append (s, "- memory: system (smoke run: no timing claims)\n");
  }
  g_file_set_contents (path, s->str, -1, NULL);

  g_string_free (s, TRUE);
  g_free (gst);
  g_free (date);
  g_date_time_unref (now);
  g_free (path);
}

int
main (int argc, char **argv)
{
  gboolean smoke = FALSE;
  gchar *out = NULL;
  GOptionEntry entries[] = {
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
        "Run each scenario briefly on system memory", NULL},
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Folder for results.csv and machine.txt (default: results)", "DIR"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  Bench b = { NULL, FALSE, FALSE, NULL };
  gchar *csv;

  ctx = g_option_context_new ("- gst-cuda-cache against the stock pools");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!out)
    out = g_strdup ("results");

  b.smoke = smoke;
  b.cuda = !smoke && gst_cuda_cache_device_get_count () > 0;
  if (b.cuda)
    b.context = gst_cuda_cache_device_context_new (0);
  if (!smoke && !b.cuda)
    g_print ("no CUDA device: running on system memory\n");

  g_mkdir_with_parents (out, 0755);
  csv = g_build_filename (out, "results.csv", NULL);
  b.csv = fopen (csv, "w");
  if (!b.csv) {
    g_printerr ("cannot write %s\n", csv);
    return 1;
  }
  fprintf (b.csv, "scenario,variant,param,metric,value,unit\n");
  write_machine (&b, out);

  bench_hit_path (&b);
  bench_renegotiation (&b);
  bench_churn (&b);
  bench_eviction (&b);

  fclose (b.csv);
  g_print ("wrote %s\n", csv);
  g_free (csv);
  g_free (out);
  gst_clear_object (&b.context);

  return 0;
}
