/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* What the benchmark's scenarios measure with (see cudacache-bench.c): the
 * rows of results.csv, the count of device allocations, device-resident
 * frames, and pipelines fed by appsrc whose sink logs every arrival. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudacache-bench.h"

gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
emit (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, const gchar * rep, const gchar * metric,
    gdouble value, const gchar * unit)
{
  fprintf (b->csv, "%s,%s,%s,%s,%s,%.6g,%s\n", scenario, variant, param, rep,
      metric, value, unit);
  fflush (b->csv);
  g_print ("%-13s %-14s %-18s %-4s %-20s %12.5g %s\n", scenario, variant,
      param, rep, metric, value, unit);
}

void
emit_rep (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, guint rep, const gchar * metric, gdouble value,
    const gchar * unit)
{
  gchar r[16];

  g_snprintf (r, sizeof (r), "%u", rep);
  emit (b, scenario, variant, param, r, metric, value, unit);
}

gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

gdouble
percentile (gdouble * sorted, guint n, gdouble p)
{
  guint i = (guint) ceil (n * p);

  return sorted[MIN (n - 1, i > 0 ? i - 1 : 0)];
}

/* Median, 99th percentile, min and max of @n per-switch samples (sorted in
 * place): rep "all", since every sample is one alternated switch. */
void
emit_distribution (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, gdouble * samples, guint n)
{
  if (n == 0)
    return;
  qsort (samples, n, sizeof (gdouble), compare_doubles);
  emit (b, scenario, variant, param, "all", "median_us",
      percentile (samples, n, 0.5), "us");
  emit (b, scenario, variant, param, "all", "p99_us",
      percentile (samples, n, 0.99), "us");
  emit (b, scenario, variant, param, "all", "min_us", samples[0], "us");
  emit (b, scenario, variant, param, "all", "max_us", samples[n - 1], "us");
  emit (b, scenario, variant, param, "all", "samples", n, "count");
}

gboolean
wanted (Bench * b, const gchar * scenario)
{
  return !b->only || g_strv_contains ((const gchar * const *) b->only,
      scenario);
}

/* ------------------------------------------------------------------------
 * Device allocations: every GstCudaMemory is made by
 * gst_cuda_allocator_alloc(), one cuMemAllocPitch each, whoever asks (the
 * stock pools, nvcodec's elements, our cache). A tracer hook sees every
 * memory created in the process; a memory's allocator is only set after the
 * hook runs, so memories are classified later: when they are destroyed, or
 * when the count is read, whichever comes first. On system memory (smoke)
 * every memory counts.
 * ------------------------------------------------------------------------ */

#define BENCH_TYPE_ALLOC_TRACER (bench_alloc_tracer_get_type ())
G_DECLARE_FINAL_TYPE (BenchAllocTracer, bench_alloc_tracer, BENCH,
    ALLOC_TRACER, GstTracer);

struct _BenchAllocTracer
{
  GstTracer parent;
};

G_DEFINE_TYPE (BenchAllocTracer, bench_alloc_tracer, GST_TYPE_TRACER);

static GMutex alloc_lock;
static GHashTable *alloc_pending;       /* memories not yet classified */
static guint64 alloc_count;     /* under alloc_lock */
static gboolean alloc_cuda_only;

static void
bench_alloc_tracer_class_init (BenchAllocTracerClass * klass)
{
}

static void
bench_alloc_tracer_init (BenchAllocTracer * self)
{
}

/* must be called with alloc_lock */
static void
alloc_classify_locked (GstMemory * mem)
{
  if (!alloc_cuda_only || gst_is_cuda_memory (mem))
    alloc_count++;
}

static void
alloc_object_created (GObject * tracer, GstClockTime ts, GstMiniObject * obj)
{
  if (obj->type != GST_TYPE_MEMORY)
    return;
  g_mutex_lock (&alloc_lock);
  g_hash_table_add (alloc_pending, obj);
  g_mutex_unlock (&alloc_lock);
}

static void
alloc_object_destroyed (GObject * tracer, GstClockTime ts, GstMiniObject * obj)
{
  if (obj->type != GST_TYPE_MEMORY)
    return;
  g_mutex_lock (&alloc_lock);
  if (g_hash_table_remove (alloc_pending, obj))
    alloc_classify_locked ((GstMemory *) obj);
  g_mutex_unlock (&alloc_lock);
}

void
alloc_counter_start (gboolean cuda_only)
{
  GstTracer *tracer = g_object_new (BENCH_TYPE_ALLOC_TRACER, NULL);

  alloc_cuda_only = cuda_only;
  alloc_pending = g_hash_table_new (NULL, NULL);
  gst_tracing_register_hook (tracer, "mini-object-created",
      G_CALLBACK (alloc_object_created));
  gst_tracing_register_hook (tracer, "mini-object-destroyed",
      G_CALLBACK (alloc_object_destroyed));
  /* the hooks keep a reference */
  gst_object_unref (tracer);
}

static guint64
alloc_counter_read (void)
{
  GHashTableIter iter;
  gpointer mem;
  guint64 count;

  g_mutex_lock (&alloc_lock);
  g_hash_table_iter_init (&iter, alloc_pending);
  while (g_hash_table_iter_next (&iter, &mem, NULL)) {
    /* still being initialised on another thread: next time */
    if (!((GstMemory *) mem)->allocator)
      continue;
    alloc_classify_locked (mem);
    g_hash_table_iter_remove (&iter);
  }
  count = alloc_count;
  g_mutex_unlock (&alloc_lock);

  return count;
}

/* ------------------------------------------------------------------------
 * Device-resident frames: uploaded once, pushed again and again, so that no
 * pageable upload sits in the measured path.
 * ------------------------------------------------------------------------ */

/* The sizes a switching source cycles through (NV12, 16:9), and the size a
 * steady source sends. */
static const Size full_sizes[] = {
  {1920, 1080}, {1280, 720}, {1600, 900}, {960, 540},
};

static const Size smoke_sizes[] = {
  {320, 180}, {256, 144}, {288, 162}, {192, 108},
};

const Size *
bench_sizes (Bench * b)
{
  return b->cuda ? full_sizes : smoke_sizes;
}

GstCaps *
nv12_caps (Bench * b, const Size * size)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "NV12", "width", G_TYPE_INT, size->width,
      "height", G_TYPE_INT, size->height, "framerate", GST_TYPE_FRACTION, 30,
      1, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);

  if (b->cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

/* A frame with a picture in it (gradients), on the device or in system
 * memory, with its caps. */
GstSample *
frame_new (Bench * b, const Size * size)
{
  GstCaps *caps = nv12_caps (b, size);
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;
  guint x, y;

  gst_video_info_from_caps (&info, caps);
  if (b->cuda) {
    GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
    GstMemory *mem = gst_cuda_cache_compat_alloc (GST_CUDA_ALLOCATOR
        (allocator), b->context, NULL, &info);
    GstVideoInfo *mem_info;

    if (!mem)
      g_error ("could not allocate a %dx%d frame", size->width, size->height);
    gst_object_unref (allocator);
    mem_info = &GST_CUDA_MEMORY_CAST (mem)->info;
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, mem);
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_NV12, size->width, size->height, 2, mem_info->offset,
        mem_info->stride);
    info = *mem_info;
  } else {
    buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_add_video_meta (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_NV12, size->width, size->height);
  }

  if (!gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE))
    g_error ("could not map a frame to fill it");
  for (y = 0; y < (guint) size->height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    for (x = 0; x < (guint) size->width; x++)
      row[x] = 16 + (x * 7 + y * 3) % 220;
  }
  for (y = 0; y < (guint) size->height / 2; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 1) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1);

    for (x = 0; x < (guint) size->width; x += 2) {
      row[x] = 64 + (x / 2) % 128;
      row[x + 1] = 64 + y % 128;
    }
  }
  gst_video_frame_unmap (&frame);

  {
    GstSample *sample = gst_sample_new (buf, caps, NULL, NULL);

    gst_buffer_unref (buf);
    gst_caps_unref (caps);
    return sample;
  }
}

void
frame_set_init (Bench * b, FrameSet * set)
{
  guint i;

  for (i = 0; i < N_SIZES; i++)
    set->frames[i] = frame_new (b, &bench_sizes (b)[i]);
}

void
frame_set_clear (FrameSet * set)
{
  guint i;

  for (i = 0; i < N_SIZES; i++)
    gst_sample_unref (set->frames[i]);
}

/* ------------------------------------------------------------------------
 * Pipelines
 * ------------------------------------------------------------------------ */

/* The conversion both sides run: 640x640 RGBA, picture letterboxed (stock's
 * default add-borders=true; ours letterbox=true). */
gchar *
convert_launch (Bench * b, Variant v)
{
  const gchar *mem = b->cuda ? "(memory:CUDAMemory)" : "";
  gint side = b->cuda ? 640 : 64;

  if (v == VARIANT_OURS)
    return g_strdup_printf ("cudacacheconvert letterbox=true ! "
        "video/x-raw%s,format=RGBA,width=%d,height=%d,pixel-aspect-ratio=1/1 "
        "! cudacacheidentity", mem, side, side);
  return g_strdup_printf ("%s add-borders=true ! "
      "video/x-raw%s,format=RGBA,width=%d,height=%d,pixel-aspect-ratio=1/1 "
      "! identity", b->cuda ? "cudaconvertscale" : "videoconvertscale", mem,
      side, side);
}


GstPadProbeReturn
sink_log_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SinkLog *log = user_data;
  gint64 t = now_ns ();
  guint n;

  g_mutex_lock (&log->lock);
  g_array_append_val (log->times, t);
  n = log->times->len;
  if (log->allocs_every_buffer || n == log->mark || n == log->last) {
    guint64 allocs = alloc_counter_read ();

    if (n == log->mark)
      log->allocs_at_mark = allocs;
    log->allocs_at_last = allocs;
  }
  g_cond_broadcast (&log->cond);
  g_mutex_unlock (&log->lock);

  return GST_PAD_PROBE_OK;
}

void
sink_log_init (SinkLog * log)
{
  g_mutex_init (&log->lock);
  g_cond_init (&log->cond);
  log->times = g_array_new (FALSE, FALSE, sizeof (gint64));
  log->mark = log->last = 0;
  log->allocs_every_buffer = FALSE;
  log->allocs_at_mark = log->allocs_at_last = 0;
}

void
sink_log_clear (SinkLog * log)
{
  g_array_unref (log->times);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->cond);
}

guint
sink_log_count (SinkLog * log)
{
  guint n;

  g_mutex_lock (&log->lock);
  n = log->times->len;
  g_mutex_unlock (&log->lock);
  return n;
}

/* Waits until the sink has seen @n buffers; FALSE after 30 s. */
gboolean
sink_log_wait (SinkLog * log, guint n)
{
  gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  gboolean ok = TRUE;

  g_mutex_lock (&log->lock);
  while (ok && log->times->len < n)
    ok = g_cond_wait_until (&log->cond, &log->lock, end);
  g_mutex_unlock (&log->lock);
  return ok;
}

/* The pipeline @desc describes, sharing the bench's CUDA context. */
GstElement *
pipeline_new (Bench * b, const gchar * desc)
{
  GstElement *pipeline;
  GError *err = NULL;

  /* a missing element is an error with a pipeline still made: appsrc
   * then blocks for ever on its full queue */
  pipeline = gst_parse_launch (desc, &err);
  if (!pipeline || err)
    g_error ("could not build %s: %s (is GST_PLUGIN_PATH_1_0 the build's "
        "ext/cudacache?)", desc, err ? err->message : "no error");
  if (b->cuda) {
    GstContext *ctx = gst_context_new_cuda_context (b->context);

    gst_element_set_context (pipeline, ctx);
    gst_context_unref (ctx);
  }
  return pipeline;
}

/* appsrc ! @middle ! fakesink, sharing the bench's CUDA context. */
void
run_init (Bench * b, Run * run, const gchar * middle)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=2 ! %s ! fakesink name=sink sync=false", middle);
  GstElement *sink;
  GstPad *pad;

  run->pipeline = pipeline_new (b, desc);
  g_free (desc);
  run->src = gst_bin_get_by_name (GST_BIN (run->pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (run->pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  sink_log_init (&run->log);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_log_probe,
      &run->log, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  if (gst_element_set_state (run->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_error ("could not start a pipeline through %s", middle);
}

void
run_push (Run * run, GstSample * sample)
{
  if (gst_app_src_push_sample (GST_APP_SRC (run->src), sample) != GST_FLOW_OK)
    g_error ("push failed");
}

void
run_finish (Run * run)
{
  GstMessage *msg;

  gst_app_src_end_of_stream (GST_APP_SRC (run->src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (run->pipeline),
      120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    g_error ("pipeline failed: %s", err ? err->message : "timeout");
  }
  gst_message_unref (msg);
}

void
run_clear (Run * run)
{
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  gst_object_unref (run->src);
  gst_object_unref (run->pipeline);
  sink_log_clear (&run->log);
}

/* A feeder's thread: pushes its frames until told to stop. */
gpointer
feeder_run (gpointer data)
{
  Feeder *f = data;
  guint i;

  for (i = 0; !g_atomic_int_get (&f->stop); i++)
    run_push (&f->run, f->set->frames[f->k ? (i / f->k) % N_SIZES : 0]);

  return NULL;
}

guint64
our_cache_misses (Bench * b)
{
  GstCudaCache *cache = b->cuda ?
      gst_cuda_cache_device_get_cache (b->context) :
      gst_cuda_cache_get_system ();
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  gst_object_unref (cache);
  return stats.misses;
}
