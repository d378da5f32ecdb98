/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The benchmark against GStreamer's stock elements (see docs/performance.md,
 * which fixes the method).
 *
 *   cudacache-bench [--smoke] [--out DIR] [--reps N] [--only NAMES]
 *                   [--stream FILE --segment-frames N]
 *
 * Every figure is a pipeline or an operation a user runs, ours against stock
 * in the same process: pipelines in alternating repetitions (ours, stock,
 * ours, stock, ...), switches timed one at a time, ours and stock taking
 * turns. Rows go to DIR/results.csv
 * (scenario,variant,param,rep,metric,value,unit) and the machine, versions
 * and command to DIR/machine.txt; tests/bench/report.py takes medians, min
 * and max and writes the report. Kernel time (Nsight Compute) is measured by
 * scripts/gpu-bench.sh around gst-launch-1.0, not here.
 *
 * With --smoke, or where there is no CUDA device, every scenario runs
 * briefly on system memory against the system-memory stock elements: that
 * checks the program and the report, never the numbers. */

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
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cudacache/gstcudacache-compat-private.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cudacache/cudacache.h>

typedef struct
{
  FILE *csv;
  gboolean cuda;                /* FALSE: system memory (smoke) */
  gboolean smoke;
  guint reps;
  GstCudaContext *context;
  gboolean have_stock;          /* the stock converter is registered */
  gchar **only;
  gchar *stream;                /* H.264 byte stream for "decode" */
  guint segment_frames;
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
    const gchar * param, const gchar * rep, const gchar * metric,
    gdouble value, const gchar * unit)
{
  fprintf (b->csv, "%s,%s,%s,%s,%s,%.6g,%s\n", scenario, variant, param, rep,
      metric, value, unit);
  fflush (b->csv);
  g_print ("%-13s %-14s %-18s %-4s %-20s %12.5g %s\n", scenario, variant,
      param, rep, metric, value, unit);
}

static void
emit_rep (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, guint rep, const gchar * metric, gdouble value,
    const gchar * unit)
{
  gchar r[16];

  g_snprintf (r, sizeof (r), "%u", rep);
  emit (b, scenario, variant, param, r, metric, value, unit);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
percentile (gdouble * sorted, guint n, gdouble p)
{
  guint i = (guint) ceil (n * p);

  return sorted[MIN (n - 1, i > 0 ? i - 1 : 0)];
}

/* Median, 99th percentile, min and max of @n per-switch samples (sorted in
 * place): rep "all", since every sample is one alternated switch. */
static void
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

static gboolean
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

static void
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

typedef struct
{
  gint width, height;
} Size;

/* The sizes a switching source cycles through (NV12, 16:9), and the size a
 * steady source sends. */
static const Size full_sizes[] = {
  {1920, 1080}, {1280, 720}, {1600, 900}, {960, 540},
};

static const Size smoke_sizes[] = {
  {320, 180}, {256, 144}, {288, 162}, {192, 108},
};

#define N_SIZES 4

static const Size *
bench_sizes (Bench * b)
{
  return b->cuda ? full_sizes : smoke_sizes;
}

static GstCaps *
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
static GstSample *
make_frame (Bench * b, const Size * size)
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

typedef struct
{
  GstSample *frames[N_SIZES];
} FrameSet;

static void
frame_set_init (Bench * b, FrameSet * set)
{
  guint i;

  for (i = 0; i < N_SIZES; i++)
    set->frames[i] = make_frame (b, &bench_sizes (b)[i]);
}

static void
frame_set_clear (FrameSet * set)
{
  guint i;

  for (i = 0; i < N_SIZES; i++)
    gst_sample_unref (set->frames[i]);
}

/* ------------------------------------------------------------------------
 * Pipelines
 * ------------------------------------------------------------------------ */

typedef enum
{
  VARIANT_OURS,
  VARIANT_STOCK,
} Variant;

static const gchar *variant_names[] = { "ours", "stock" };

/* The conversion both sides run: 640x640 RGBA, picture letterboxed (stock's
 * default add-borders=true; ours letterbox=true). */
static gchar *
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

/* What the sink saw: the arrival time of every buffer. */
typedef struct
{
  GMutex lock;
  GCond cond;
  GArray *times;                /* gint64 ns */
  /* the allocation count is read at these buffers (0: never), or at every
   * buffer: it takes a process-wide lock, kept off the busy scenario */
  guint mark;
  guint last;
  gboolean allocs_every_buffer;
  guint64 allocs_at_mark;
  guint64 allocs_at_last;
} SinkLog;

static GstPadProbeReturn
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

static void
sink_log_init (SinkLog * log)
{
  g_mutex_init (&log->lock);
  g_cond_init (&log->cond);
  log->times = g_array_new (FALSE, FALSE, sizeof (gint64));
  log->mark = log->last = 0;
  log->allocs_every_buffer = FALSE;
  log->allocs_at_mark = log->allocs_at_last = 0;
}

static void
sink_log_clear (SinkLog * log)
{
  g_array_unref (log->times);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->cond);
}

static guint
sink_log_count (SinkLog * log)
{
  guint n;

  g_mutex_lock (&log->lock);
  n = log->times->len;
  g_mutex_unlock (&log->lock);
  return n;
}

/* Waits until the sink has seen @n buffers; FALSE after 30 s. */
static gboolean
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

typedef struct
{
  GstElement *pipeline;
  GstElement *src;
  SinkLog log;
} Run;

/* The pipeline @desc describes, sharing the bench's CUDA context. */
static GstElement *
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
static void
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

static void
run_push (Run * run, GstSample * sample)
{
  if (gst_app_src_push_sample (GST_APP_SRC (run->src), sample) != GST_FLOW_OK)
    g_error ("push failed");
}

static void
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

static void
run_clear (Run * run)
{
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  gst_object_unref (run->src);
  gst_object_unref (run->pipeline);
  sink_log_clear (&run->log);
}

static guint64
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

/* ------------------------------------------------------------------------
 * 1. Conversion pipelines, caps switching every K frames
 * ------------------------------------------------------------------------ */

static void
convert_once (Bench * b, FrameSet * set, Variant v, guint k, guint warm,
    guint frames, guint rep, const gchar * param)
{
  gchar *middle = convert_launch (b, v);
  Run run;
  guint i, total = warm + frames;
  guint64 misses = our_cache_misses (b);
  gint64 t_first, t_last;

  run_init (b, &run, middle);
  run.log.mark = warm;
  run.log.last = total;
  for (i = 0; i < total; i++)
    run_push (&run, set->frames[k ? (i / k) % N_SIZES : 0]);
  run_finish (&run);

  g_assert (run.log.times->len == total);
  t_first = g_array_index (run.log.times, gint64, warm - 1);
  t_last = g_array_index (run.log.times, gint64, total - 1);
  emit_rep (b, "convert", variant_names[v], param, rep, "fps",
      frames / ((t_last - t_first) / 1e9), "fps");
  emit_rep (b, "convert", variant_names[v], param, rep, "allocs_per_1000",
      (run.log.allocs_at_last - run.log.allocs_at_mark) * 1000.0 / frames,
      "count");
  if (v == VARIANT_OURS)
    emit_rep (b, "convert", variant_names[v], param, rep,
        "cache_misses_per_1000",
        (our_cache_misses (b) - misses) * 1000.0 / frames, "count");

  run_clear (&run);
  g_free (middle);
}

static void
bench_convert (Bench * b)
{
  /* K = 0: never */
  static const guint ks[] = { 1, 10, 100, 0 };
  /* stock recompiles its kernels at every caps change (about 0.1 s on the
   * GPU machine): sized so that all of it fits the run's time budget */
  static const guint full_frames[] = { 32, 120, 1000, 2000 };
  FrameSet set;
  guint j, rep;

  frame_set_init (b, &set);
  for (j = 0; j < G_N_ELEMENTS (ks); j++) {
    guint k = ks[j];
    guint frames = b->smoke ? 40 : full_frames[j];
    /* one visit to each size first, as a running pipeline has made */
    guint warm = k ? N_SIZES * k : 20;
    gchar *param = k ? g_strdup_printf ("K=%u", k) : g_strdup ("K=never");

    for (rep = 1; rep <= b->reps; rep++) {
      convert_once (b, &set, VARIANT_OURS, k, warm, frames, rep, param);
      if (b->have_stock)
        convert_once (b, &set, VARIANT_STOCK, k, warm, frames, rep, param);
    }
    g_free (param);
  }
  frame_set_clear (&set);
}

/* ------------------------------------------------------------------------
 * 2. Decode with resolution changes
 * ------------------------------------------------------------------------ */

typedef struct
{
  GArray *hashes;               /* guint64 per decoded frame */
} DecodeCheck;

/* FNV-1a over the visible pixels of every plane. */
static GstPadProbeReturn
hash_decoded (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  DecodeCheck *check = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vinfo;
  GstVideoFrame frame;
  guint64 h = 0xcbf29ce484222325ULL;
  guint p, y, x;

  gst_video_info_from_caps (&vinfo, caps);
  gst_caps_unref (caps);
  if (!gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_READ))
    g_error ("could not map a decoded frame");
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p);
    guint bytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, p);

    for (y = 0; y < rows; y++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
          p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);

      for (x = 0; x < bytes; x++)
        h = (h ^ row[x]) * 0x100000001b3ULL;
    }
  }
  h ^= ((guint64) vinfo.width << 32) | vinfo.height;
  gst_video_frame_unmap (&frame);
  g_array_append_val (check->hashes, h);

  return GST_PAD_PROBE_OK;
}

static gchar *
decode_launch (Bench * b, Variant v)
{
  if (v == VARIANT_OURS)
    return g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "nvh264dec name=dec ! cudacacheconvert letterbox=true "
        "scale=0.00392156862745098 ! other/tensors(memory:CUDAMemory),"
        "format=static,num_tensors=1,types=float32,dimensions=640:640:3:1 ! "
        "cudacacheidentity ! fakesink name=sink sync=false", b->stream);
  return g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "nvh264dec name=dec ! cudaconvertscale add-borders=true ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640,"
      "pixel-aspect-ratio=1/1 ! identity ! fakesink name=sink sync=false",
      b->stream);
}

/* One decode of the whole stream; with @check, hashes every decoded frame
 * (a download each: not timed). */
static void
decode_once (Bench * b, Variant v, guint rep, DecodeCheck * check)
{
  gchar *desc = decode_launch (b, v);
  GstElement *pipeline, *sink, *dec;
  GstContext *ctx;
  GstMessage *msg;
  GstPad *pad;
  SinkLog log;
  GError *err = NULL;
  guint warm = N_SIZES * b->segment_frames, n;

  pipeline = gst_parse_launch (desc, &err);
  if (!pipeline || err)
    g_error ("could not build %s: %s", desc, err ? err->message : "no error");
  ctx = gst_context_new_cuda_context (b->context);
  gst_element_set_context (pipeline, ctx);
  gst_context_unref (ctx);

  sink_log_init (&log);
  log.mark = warm;
  /* frames lost at resolution changes: the last one is not known */
  log.allocs_every_buffer = TRUE;
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_log_probe, &log,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  if (check) {
    dec = gst_bin_get_by_name (GST_BIN (pipeline), "dec");
    pad = gst_element_get_static_pad (dec, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, hash_decoded, check,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (dec);
  }

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    g_error ("%s: %s", desc, err ? err->message : "timeout");
  }
  gst_message_unref (msg);

  n = log.times->len;
  if (!check && n > warm) {
    gint64 t0 = g_array_index (log.times, gint64, warm - 1);
    gint64 t1 = g_array_index (log.times, gint64, n - 1);

    emit_rep (b, "decode", variant_names[v], "4 sizes", rep, "fps",
        (n - warm) / ((t1 - t0) / 1e9), "fps");
    emit_rep (b, "decode", variant_names[v], "4 sizes", rep,
        "allocs_per_1000", (log.allocs_at_last - log.allocs_at_mark) *
        1000.0 / (n - warm), "count");
    emit_rep (b, "decode", variant_names[v], "4 sizes", rep, "frames", n,
        "count");
  } else if (!check) {
    g_error ("decode: %u frames, fewer than the %u of the warm-up", n, warm);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  sink_log_clear (&log);
  g_free (desc);
}

static void
bench_decode (Bench * b)
{
  DecodeCheck checks[2];
  GstElementFactory *dec = gst_element_factory_find ("nvh264dec");
  guint rep, v, i, differ = 0, n;

  if (!b->cuda || !dec || !b->stream || !b->have_stock) {
    g_print ("decode: skipped (needs a CUDA device, nvh264dec, the stock "
        "converter and --stream)\n");
    emit (b, "decode", "-", "-", "-", "skipped", 1, "flag");
    gst_clear_object (&dec);
    return;
  }
  gst_object_unref (dec);

  /* the decoded frames, before conversion, must be the same pictures */
  for (v = 0; v < 2; v++) {
    checks[v].hashes = g_array_new (FALSE, FALSE, sizeof (guint64));
    decode_once (b, v, 0, &checks[v]);
  }
  n = MIN (checks[0].hashes->len, checks[1].hashes->len);
  for (i = 0; i < n; i++)
    differ += g_array_index (checks[0].hashes, guint64, i) !=
        g_array_index (checks[1].hashes, guint64, i);
  differ += MAX (checks[0].hashes->len, checks[1].hashes->len) - n;
  emit (b, "decode", "check", "4 sizes", "-", "frames_compared",
      MAX (checks[0].hashes->len, checks[1].hashes->len), "count");
  emit (b, "decode", "check", "4 sizes", "-", "frames_differing", differ,
      "count");
  for (v = 0; v < 2; v++)
    g_array_unref (checks[v].hashes);

  for (rep = 1; rep <= b->reps; rep++) {
    decode_once (b, VARIANT_OURS, rep, NULL);
    decode_once (b, VARIANT_STOCK, rep, NULL);
  }
}

/* ------------------------------------------------------------------------
 * 3. A busy GPU: several pipelines in one process on one context
 * ------------------------------------------------------------------------ */

typedef struct
{
  Run run;
  FrameSet *set;
  guint k;                      /* 0: steady */
  volatile gint stop;
  GThread *thread;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *f = data;
  guint i;

  for (i = 0; !g_atomic_int_get (&f->stop); i++)
    run_push (&f->run, f->set->frames[f->k ? (i / f->k) % N_SIZES : 0]);

  return NULL;
}

#define BUSY_SWITCH_EVERY 5

static void
busy_once (Bench * b, FrameSet * set, Variant v, guint n, gboolean mixed,
    guint rep)
{
  Feeder *feeders = g_new0 (Feeder, n);
  gchar *middle = convert_launch (b, v);
  gchar *param = g_strdup_printf ("%s N=%u", mixed ? "mixed" : "steady", n);
  gdouble warm_s = b->smoke ? 0.02 : 0.2, window_s = b->smoke ? 0.1 : 0.5;
  GArray *intervals = g_array_new (FALSE, FALSE, sizeof (gdouble));
  guint64 frames_all = 0, frames_steady = 0;
  guint i, steady = 0;
  gint64 t0, t1;

  for (i = 0; i < n; i++) {
    run_init (b, &feeders[i].run, middle);
    feeders[i].set = set;
    feeders[i].k = mixed && i == 0 ? BUSY_SWITCH_EVERY : 0;
  }
  for (i = 0; i < n; i++)
    feeders[i].thread = g_thread_new ("bench-feeder", feed, &feeders[i]);
  /* every pipeline running, the switching one past its first visit to
   * every size, then a short settling time */
  for (i = 0; i < n; i++)
    if (!sink_log_wait (&feeders[i].run.log,
            feeders[i].k ? feeders[i].k * N_SIZES : 1))
      g_error ("a pipeline did not start");

  g_usleep (warm_s * G_USEC_PER_SEC);
  t0 = now_ns ();
  g_usleep (window_s * G_USEC_PER_SEC);
  t1 = now_ns ();

  for (i = 0; i < n; i++)
    g_atomic_int_set (&feeders[i].stop, 1);
  for (i = 0; i < n; i++) {
    GArray *times;
    guint j, in_window = 0;

    g_thread_join (feeders[i].thread);
    run_finish (&feeders[i].run);
    times = feeders[i].run.log.times;
    for (j = 0; j < times->len; j++) {
      gint64 t = g_array_index (times, gint64, j);

      if (t < t0 || t > t1)
        continue;
      in_window++;
      if (!feeders[i].k && j > 0 && g_array_index (times, gint64, j - 1) >= t0) {
        gdouble us = (t - g_array_index (times, gint64, j - 1)) / 1000.0;

        g_array_append_val (intervals, us);
      }
    }
    frames_all += in_window;
    if (!feeders[i].k) {
      frames_steady += in_window;
      steady++;
    } else {
      emit_rep (b, "busy", variant_names[v], param, rep, "switching_fps",
          in_window / ((t1 - t0) / 1e9), "fps");
    }
    run_clear (&feeders[i].run);
  }

  emit_rep (b, "busy", variant_names[v], param, rep, "aggregate_fps",
      frames_all / ((t1 - t0) / 1e9), "fps");
  if (steady > 0 && intervals->len > 0) {
    gdouble *s = (gdouble *) intervals->data;

    qsort (s, intervals->len, sizeof (gdouble), compare_doubles);
    emit_rep (b, "busy", variant_names[v], param, rep, "steady_fps_each",
        frames_steady / ((t1 - t0) / 1e9) / steady, "fps");
    emit_rep (b, "busy", variant_names[v], param, rep, "steady_p99_interval_us",
        percentile (s, intervals->len, 0.99), "us");
    emit_rep (b, "busy", variant_names[v], param, rep, "steady_max_interval_us",
        s[intervals->len - 1], "us");
  }

  g_array_unref (intervals);
  g_free (param);
  g_free (middle);
  g_free (feeders);
}

static void
bench_busy (Bench * b)
{
  static const struct
  {
    guint n;
    gboolean mixed;
  } configs[] = { {1, FALSE}, {4, FALSE}, {8, FALSE}, {4, TRUE}, {8, TRUE} };
  FrameSet set;
  guint c, rep;

  frame_set_init (b, &set);
  for (c = 0; c < G_N_ELEMENTS (configs); c++) {
    guint n = configs[c].n;

    for (rep = 1; rep <= b->reps; rep++) {
      busy_once (b, &set, VARIANT_OURS, n, configs[c].mixed, rep);
      if (b->have_stock)
        busy_once (b, &set, VARIANT_STOCK, n, configs[c].mixed, rep);
    }
  }
  frame_set_clear (&set);
}

/* ------------------------------------------------------------------------
 * 5. Renegotiation through the elements: a caps change at the source to the
 * first buffer of the new caps at the sink, ours and stock taking turns at
 * every switch (and which goes first alternating too)
 * ------------------------------------------------------------------------ */

/* Pushes @sample and waits for it at the sink: microseconds. */
static gdouble
time_one_buffer (Run * run, GstSample * sample)
{
  guint before = sink_log_count (&run->log);
  gint64 t0 = now_ns (), t1;

  run_push (run, sample);
  if (!sink_log_wait (&run->log, before + 1))
    g_error ("a buffer did not reach the sink");
  g_mutex_lock (&run->log.lock);
  t1 = g_array_index (run->log.times, gint64, before);
  g_mutex_unlock (&run->log.lock);

  return (t1 - t0) / 1000.0;
}

static void
bench_renegotiation (Bench * b)
{
  guint switches = b->smoke ? 8 : 40, i, n_variants = b->have_stock ? 2 : 1;
  gdouble *t_switch[2], *t_same[2];
  FrameSet set;
  Run runs[2];
  guint v;

  frame_set_init (b, &set);
  for (v = 0; v < n_variants; v++) {
    gchar *middle = convert_launch (b, v);

    run_init (b, &runs[v], middle);
    g_free (middle);
    t_switch[v] = g_new (gdouble, switches);
    t_same[v] = g_new (gdouble, switches);
    /* warm-up: two visits to every size */
    for (i = 0; i < 2 * N_SIZES; i++)
      time_one_buffer (&runs[v], set.frames[i % N_SIZES]);
  }

  for (i = 0; i < switches; i++) {
    GstSample *next = set.frames[(i + 1) % N_SIZES];
    guint turn;

    for (turn = 0; turn < n_variants; turn++) {
      v = (i + turn) % n_variants;
      t_switch[v][i] = time_one_buffer (&runs[v], next);
      /* the same caps again: what a buffer costs without a switch */
      t_same[v][i] = time_one_buffer (&runs[v], next);
    }
  }

  for (v = 0; v < n_variants; v++) {
    emit_distribution (b, "renegotiation", variant_names[v], "caps change",
        t_switch[v], switches);
    emit_distribution (b, "renegotiation", variant_names[v], "same caps",
        t_same[v], switches);
    run_finish (&runs[v]);
    run_clear (&runs[v]);
    g_free (t_switch[v]);
    g_free (t_same[v]);
  }
  frame_set_clear (&set);
}

/* ------------------------------------------------------------------------
 * 6. Micro-benchmarks: the pools alone
 * ------------------------------------------------------------------------ */

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

/* acquire + release at steady caps, the pools taking turns at every
 * iteration */
static void
bench_hit_path (Bench * b)
{
  const gchar *names[3] = { "ours", "stock", "system_floor" };
  GstBufferPool *pools[3];
  gdouble *samples[3];
  guint iterations = b->smoke ? 2000 : 100000, v, i, n = b->cuda ? 3 : 2;
  GstCaps *caps = nv12_caps (b, &bench_sizes (b)[0]);
  GstCaps *sys_caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, "NV12", "width", G_TYPE_INT, bench_sizes (b)[0].width,
      "height", G_TYPE_INT, bench_sizes (b)[0].height, NULL);

  pools[0] = new_our_pool (b);
  pools[1] = new_stock_pool (b);
  pools[2] = gst_video_buffer_pool_new ();
  for (v = 0; v < n; v++) {
    if (!configure (pools[v], v == 2 ? sys_caps : caps, 4) ||
        !gst_buffer_pool_set_active (pools[v], TRUE))
      g_error ("could not start the %s pool", names[v]);
    samples[v] = g_new (gdouble, iterations);
  }

  for (i = 0; i < iterations + 1000; i++) {
    for (v = 0; v < n; v++) {
      GstBuffer *buf = NULL;
      gint64 t0 = now_ns ();

      if (gst_buffer_pool_acquire_buffer (pools[v], &buf, NULL) != GST_FLOW_OK)
        g_error ("%s: acquire failed", names[v]);
      gst_buffer_unref (buf);
      /* the first 1000 are the warm-up */
      if (i >= 1000)
        samples[v][i - 1000] = (now_ns () - t0) / 1000.0;
    }
  }

  for (v = 0; v < n; v++) {
    emit_distribution (b, "micro_hit_path", names[v], "acquire+release",
        samples[v], iterations);
    g_free (samples[v]);
  }
  for (v = 0; v < 3; v++) {
    gst_buffer_pool_set_active (pools[v], FALSE);
    gst_object_unref (pools[v]);
  }
  gst_caps_unref (caps);
  gst_caps_unref (sys_caps);
}

/* One switch: configure for @caps, activate with 4 buffers, one buffer,
 * deactivate. */
static void
switch_pool (GstBufferPool * pool, GstCaps * caps)
{
  GstBuffer *buf = NULL;

  if (!configure (pool, caps, 4) || !gst_buffer_pool_set_active (pool, TRUE)) {
    gchar *s = gst_caps_to_string (caps);

    g_error ("could not configure %s", s);
  }
  if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
    g_error ("acquire failed");
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
}

/* A pool configured for the next of 4 caps, taking turns at every switch:
 * ours kept across switches, ours made anew per switch, a stock pool made
 * anew per switch (what nvcodec's elements do). */
static void
bench_pool_switch (Bench * b)
{
  const gchar *names[3] = { "ours_kept", "ours_new", "stock_new" };
  guint switches = b->smoke ? 20 : 400, i, v;
  GstCaps *caps[N_SIZES];
  GstBufferPool *kept = new_our_pool (b);
  gdouble *samples[3];

  for (i = 0; i < N_SIZES; i++)
    caps[i] = nv12_caps (b, &bench_sizes (b)[i]);
  for (v = 0; v < 3; v++)
    samples[v] = g_new (gdouble, switches);
  /* warm-up: the first visit to each caps allocates */
  for (i = 0; i < 2 * N_SIZES; i++)
    switch_pool (kept, caps[i % N_SIZES]);

  for (i = 0; i < switches; i++) {
    GstCaps *next = caps[i % N_SIZES];
    guint turn;

    for (turn = 0; turn < 3; turn++) {
      GstBufferPool *pool;
      gint64 t0;

      v = (i + turn) % 3;
      t0 = now_ns ();
      pool = v == 0 ? gst_object_ref (kept) : v == 1 ? new_our_pool (b) :
          new_stock_pool (b);
      switch_pool (pool, next);
      gst_object_unref (pool);
      samples[v][i] = (now_ns () - t0) / 1000.0;
    }
  }

  for (v = 0; v < 3; v++) {
    emit_distribution (b, "micro_pool_switch", names[v], "4 caps", samples[v],
        switches);
    g_free (samples[v]);
  }
  for (i = 0; i < N_SIZES; i++)
    gst_caps_unref (caps[i]);
  gst_object_unref (kept);
}

static void
bench_micro (Bench * b)
{
  bench_hit_path (b);
  bench_pool_switch (b);
}

/* ------------------------------------------------------------------------
 * 7. Batches: 8 sources into one float32 NCHW tensor of 8 slots, by
 * cudacachebatch, or by 8 cudacacheconvert pipelines whose tensors the
 * application stacks into a batch of its own
 * ------------------------------------------------------------------------ */

#define BATCH_SOURCES 8
#define BATCH_OPTIONS "letterbox=true fill-value=114 scale=0.00392156862745098"

typedef enum
{
  BATCH_BATCHED,
  BATCH_SEPARATE,
} BatchVariant;

static const gchar *batch_variant_names[] = { "batched", "separate" };

/* The tensor of @n slots of 640x640 (64x64 on system memory), 3 float32
 * planes each. */
static gchar *
batch_tensor_caps (Bench * b, guint n)
{
  gint side = b->cuda ? 640 : 64;

  return g_strdup_printf ("other/tensors%s,format=static,num_tensors=1,"
      "types=float32,dimensions=%d:%d:3:%u",
      b->cuda ? "(memory:CUDAMemory)" : "", side, side, n);
}

typedef struct
{
  GstElement *src;
  GstSample *sample;
  guint count;
  GThread *thread;
} BatchFeeder;

/* Pushes the frame @count times, then the end of the stream. */
static gpointer
batch_feed (gpointer data)
{
  BatchFeeder *f = data;
  guint i;

  for (i = 0; i < f->count; i++)
    if (gst_app_src_push_sample (GST_APP_SRC (f->src), f->sample) !=
        GST_FLOW_OK)
      g_error ("push failed");
  gst_app_src_end_of_stream (GST_APP_SRC (f->src));

  return NULL;
}

static void
batch_feeders_start (BatchFeeder * feeders, GstElement ** srcs,
    GstSample * sample, guint count)
{
  guint i;

  for (i = 0; i < BATCH_SOURCES; i++) {
    feeders[i].src = srcs[i];
    feeders[i].sample = sample;
    feeders[i].count = count;
    feeders[i].thread = g_thread_new ("bench-feeder", batch_feed, &feeders[i]);
  }
}

static GstSample *
batch_pull (GstElement * sink)
{
  GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));

  if (!sample)
    g_error ("an appsink ended before its last tensor");
  return sample;
}

/* One pipeline: 8 appsrc into cudacachebatch batch-size=8, the batches
 * pulled from its appsink. Returns the last batch; @times gets the time
 * each batch was pulled, @frames the slots present in batches
 * warm..total-1. */
static GstBuffer *
batch_batched (Bench * b, GstSample * frame, guint total, guint warm,
    gint64 * times, guint * frames)
{
  gchar *caps = batch_tensor_caps (b, BATCH_SOURCES);
  GString *desc = g_string_new (NULL);
  GstElement *pipeline, *sink, *srcs[BATCH_SOURCES];
  BatchFeeder feeders[BATCH_SOURCES];
  GstBuffer *last = NULL;
  guint i, s;

  g_string_append_printf (desc, "cudacachebatch name=b batch-size=%u "
      BATCH_OPTIONS " ! %s ! appsink name=sink sync=false max-buffers=2",
      BATCH_SOURCES, caps);
  for (i = 0; i < BATCH_SOURCES; i++)
    g_string_append_printf (desc, " appsrc name=src%u format=time "
        "block=true max-buffers=2 ! b.sink_%u", i, i);
  pipeline = pipeline_new (b, desc->str);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  for (i = 0; i < BATCH_SOURCES; i++) {
    gchar name[16];

    g_snprintf (name, sizeof (name), "src%u", i);
    srcs[i] = gst_bin_get_by_name (GST_BIN (pipeline), name);
  }
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_error ("could not start %s", desc->str);
  batch_feeders_start (feeders, srcs, frame, total);

  *frames = 0;
  for (i = 0; i < total; i++) {
    GstSample *sample = batch_pull (sink);
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstCudaCacheBatchMeta *meta = gst_buffer_get_cuda_cache_batch_meta (buf);

    times[i] = now_ns ();
    if (!meta || meta->n_slots != BATCH_SOURCES)
      g_error ("a batch without its meta of %u slots", BATCH_SOURCES);
    for (s = 0; i >= warm && s < meta->n_slots; s++)
      *frames += meta->slots[s].present;
    if (i == total - 1)
      last = gst_buffer_ref (buf);
    gst_sample_unref (sample);
  }

  for (i = 0; i < BATCH_SOURCES; i++) {
    g_thread_join (feeders[i].thread);
    gst_object_unref (srcs[i]);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_string_free (desc, TRUE);
  g_free (caps);
  return last;
}

/* The batch buffers of the separate variant: the application's pool, in
 * the memory the tensors are in. */
static GstBufferPool *
batch_pool_new (Bench * b, gsize * slot_size)
{
  gchar *desc = batch_tensor_caps (b, BATCH_SOURCES);
  GstCaps *caps = gst_caps_from_string (desc);
  GstBufferPool *pool = new_our_pool (b);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCudaCacheTensorInfo info;

  if (!gst_cuda_cache_tensor_info_from_caps (&info, caps))
    g_error ("not a tensor: %s", desc);
  *slot_size = info.strides[0];
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE))
    g_error ("could not start a pool of %s", desc);
  gst_caps_unref (caps);
  g_free (desc);
  return pool;
}

/* Copies @n tensors into the slots of @batch, one after the other: on the
 * device, a copy each on @stream and one wait for all of them; in system
 * memory, memcpy. */
static void
batch_stack (Bench * b, CUstream stream, GstSample ** tensors, guint n,
    GstBuffer * batch, gsize slot_size)
{
  GstMapFlags cuda = b->cuda ? GST_MAP_CUDA : 0;
  GstMapInfo out, in[BATCH_SOURCES];
  guint s;

  if (!gst_buffer_map (batch, &out, GST_MAP_WRITE | cuda))
    g_error ("could not map a batch");
  if (b->cuda && !gst_cuda_context_push (b->context))
    g_error ("could not push the CUDA context");
  for (s = 0; s < n; s++) {
    GstBuffer *buf = gst_sample_get_buffer (tensors[s]);

    /* 1.24 and later: a tensor may still be written on its own stream */
    gst_cuda_cache_compat_memory_sync (gst_buffer_peek_memory (buf, 0));
    if (!gst_buffer_map (buf, &in[s], GST_MAP_READ | cuda) ||
        in[s].size < slot_size)
      g_error ("could not map tensor %u of %" G_GSIZE_FORMAT " bytes", s,
          slot_size);
    if (b->cuda) {
      CUDA_MEMCPY2D copy = { 0, };

      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = (CUdeviceptr) in[s].data;
      copy.srcPitch = slot_size;
      copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.dstDevice = (CUdeviceptr) out.data + s * slot_size;
      copy.dstPitch = slot_size;
      copy.WidthInBytes = slot_size;
      copy.Height = 1;
      if (!gst_cuda_result (CuMemcpy2DAsync (&copy, stream)))
        g_error ("could not copy tensor %u into the batch", s);
    } else {
      memcpy (out.data + s * slot_size, in[s].data, slot_size);
    }
  }
  if (b->cuda) {
    if (!gst_cuda_result (CuStreamSynchronize (stream)))
      g_error ("could not wait for the batch's copies");
    gst_cuda_context_pop (NULL);
  }
  for (s = 0; s < n; s++)
    gst_buffer_unmap (gst_sample_get_buffer (tensors[s]), &in[s]);
  gst_buffer_unmap (batch, &out);
}

/* 8 pipelines, appsrc ! cudacacheconvert ! appsink, pulled in turn by one
 * loop that stacks their tensors into a batch from its own pool. Returns
 * the last batch, as batch_batched () does. */
static GstBuffer *
batch_separate (Bench * b, GstSample * frame, guint total, guint warm,
    gint64 * times, guint * frames)
{
  gchar *caps = batch_tensor_caps (b, 1);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=2 ! cudacacheconvert " BATCH_OPTIONS " ! %s ! "
      "appsink name=sink sync=false max-buffers=2", caps);
  GstElement *pipelines[BATCH_SOURCES], *srcs[BATCH_SOURCES];
  GstElement *sinks[BATCH_SOURCES];
  GstSample *tensors[BATCH_SOURCES];
  BatchFeeder feeders[BATCH_SOURCES];
  GstCudaCacheStream *stream = NULL;
  GstBufferPool *pool;
  GstBuffer *batch = NULL;
  gsize slot_size;
  guint i, s;

  pool = batch_pool_new (b, &slot_size);
  if (b->cuda && !(stream = gst_cuda_cache_compat_stream_new (b->context)))
    g_error ("could not make a CUDA stream");
  for (s = 0; s < BATCH_SOURCES; s++) {
    pipelines[s] = pipeline_new (b, desc);
    srcs[s] = gst_bin_get_by_name (GST_BIN (pipelines[s]), "src");
    sinks[s] = gst_bin_get_by_name (GST_BIN (pipelines[s]), "sink");
    if (gst_element_set_state (pipelines[s], GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE)
      g_error ("could not start %s", desc);
  }
  batch_feeders_start (feeders, srcs, frame, total);

  *frames = 0;
  for (i = 0; i < total; i++) {
    gst_clear_buffer (&batch);
    if (gst_buffer_pool_acquire_buffer (pool, &batch, NULL) != GST_FLOW_OK)
      g_error ("no batch buffer");
    for (s = 0; s < BATCH_SOURCES; s++)
      tensors[s] = batch_pull (sinks[s]);
    batch_stack (b, gst_cuda_cache_compat_stream_handle (stream), tensors,
        BATCH_SOURCES, batch, slot_size);
    for (s = 0; s < BATCH_SOURCES; s++)
      gst_sample_unref (tensors[s]);
    times[i] = now_ns ();
    if (i >= warm)
      *frames += BATCH_SOURCES;
  }

  for (s = 0; s < BATCH_SOURCES; s++) {
    g_thread_join (feeders[s].thread);
    gst_element_set_state (pipelines[s], GST_STATE_NULL);
    gst_object_unref (srcs[s]);
    gst_object_unref (sinks[s]);
    gst_object_unref (pipelines[s]);
  }
  gst_cuda_cache_compat_stream_clear (&stream);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_free (desc);
  g_free (caps);
  return batch;
}

/* The bytes of a batch, downloaded from the device with a copy of its
 * rows, as the GPU suites download tensors. */
static guint8 *
batch_bytes (Bench * b, GstBuffer * batch, gsize * size)
{
  GstMapInfo map;
  guint8 *bytes;

  if (!gst_buffer_map (batch, &map, GST_MAP_READ | (b->cuda ? GST_MAP_CUDA :
              0)))
    g_error ("could not map a batch");
  *size = map.size;
  bytes = g_malloc (map.size);
  if (b->cuda) {
    CUDA_MEMCPY2D copy = { 0, };
    gboolean ok;

    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = (CUdeviceptr) map.data;
    copy.srcPitch = map.size;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = bytes;
    copy.dstPitch = map.size;
    copy.WidthInBytes = map.size;
    copy.Height = 1;
    if (!gst_cuda_context_push (b->context))
      g_error ("could not push the CUDA context");
    ok = gst_cuda_result (CuMemcpy2D (&copy));
    gst_cuda_context_pop (NULL);
    if (!ok)
      g_error ("could not download a batch");
  } else {
    memcpy (bytes, map.data, map.size);
  }
  gst_buffer_unmap (batch, &map);
  return bytes;
}

/* Whether two batches hold the same bytes. */
static gboolean
batch_equal (Bench * b, GstBuffer * x, GstBuffer * y)
{
  gsize nx, ny;
  guint8 *bx = batch_bytes (b, x, &nx), *by = batch_bytes (b, y, &ny);
  gboolean equal = nx == ny && memcmp (bx, by, nx) == 0;

  g_free (bx);
  g_free (by);
  return equal;
}

static void
bench_batch (Bench * b)
{
  /* sized for about 0.1 s a run of the separate variant on the GPU
   * machine */
  guint frames = b->smoke ? 40 : 2000, warm = 20, total = frames + warm;
  gint64 *times = g_new (gint64, total);
  GstBuffer *last[2] = { NULL, NULL };
  gchar *param = g_strdup_printf ("%u sources", BATCH_SOURCES);
  FrameSet set;
  guint rep, v;

  frame_set_init (b, &set);
  for (rep = 1; rep <= b->reps; rep++) {
    for (v = 0; v < 2; v++) {
      GstBuffer *batch;
      guint converted;
      gdouble s;

      batch = v == BATCH_BATCHED ?
          batch_batched (b, set.frames[0], total, warm, times, &converted) :
          batch_separate (b, set.frames[0], total, warm, times, &converted);
      s = (times[total - 1] - times[warm - 1]) / 1e9;
      emit_rep (b, "batch", batch_variant_names[v], param, rep, "fps",
          converted / s, "fps");
      emit_rep (b, "batch", batch_variant_names[v], param, rep, "frames",
          converted, "count");
      emit_rep (b, "batch", batch_variant_names[v], param, rep, "batches",
          frames, "count");
      if (rep == 1)
        last[v] = batch;
      else
        gst_buffer_unref (batch);
    }
  }
  /* both variants make the same batch of the same frames */
  emit (b, "batch", "check", param, "-", "batches_equal",
      batch_equal (b, last[0], last[1]), "flag");

  gst_buffer_unref (last[0]);
  gst_buffer_unref (last[1]);
  frame_set_clear (&set);
  g_free (param);
  g_free (times);
}

/* ------------------------------------------------------------------------ */

static void
write_machine (Bench * b, const gchar * dir, gint argc, gchar ** argv)
{
  gchar *path = g_build_filename (dir, "machine.txt", NULL);
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *date = g_date_time_format (now, "%Y-%m-%d %H:%M UTC");
  gchar *gst = gst_version_string ();
  GString *s = g_string_new (NULL);
  gint i;

  g_string_append_printf (s, "- date: %s\n- GStreamer: %s\n", date, gst);
  g_string_append (s, "- bench command:");
  for (i = 0; i < argc; i++)
    g_string_append_printf (s, " %s", argv[i]);
  g_string_append_printf (s, "\n- repetitions: %u\n", b->reps);
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
        "%d.%d\n- stock converter: %s\n", name, total / 1073741824.0,
        driver / 1000, (driver % 1000) / 10,
        b->have_stock ? "cudaconvertscale" : "not registered");
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
  gchar *out = NULL, *only = NULL, *stream = NULL;
  gint reps = 5, segment_frames = 15;
  GOptionEntry entries[] = {
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
        "Run each scenario briefly on system memory", NULL},
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Folder for results.csv and machine.txt (default: results)", "DIR"},
    {"reps", 'r', 0, G_OPTION_ARG_INT, &reps,
        "Alternating repetitions of each pipeline (default: 5)", "N"},
    {"only", 0, 0, G_OPTION_ARG_STRING, &only,
          "Comma-separated scenarios: convert,decode,busy,batch,renegotiation,"
          "micro",
        "NAMES"},
    {"stream", 0, 0, G_OPTION_ARG_FILENAME, &stream,
        "H.264 byte stream for the decode scenario", "FILE"},
    {"segment-frames", 0, 0, G_OPTION_ARG_INT, &segment_frames,
        "Frames per resolution segment of --stream (default: 15)", "N"},
    {NULL}
  };
  gchar **args = g_strdupv (argv);
  gint n_args = argc;
  GOptionContext *ctx;
  GError *err = NULL;
  static const struct
  {
    const gchar *name;
    void (*func) (Bench * b);
  } scenarios[] = {
    {"micro", bench_micro},
    {"convert", bench_convert},
    {"renegotiation", bench_renegotiation},
    {"busy", bench_busy},
    {"batch", bench_batch},
    {"decode", bench_decode},
  };
  Bench b = { NULL, };
  gchar *csv;
  guint i;

  ctx = g_option_context_new ("- gst-cuda-cache against stock GStreamer");
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
  b.reps = smoke ? 2 : MAX (reps, 1);
  b.cuda = !smoke && gst_cuda_cache_device_get_count () > 0;
  b.only = only ? g_strsplit (only, ",", -1) : NULL;
  b.stream = stream;
  b.segment_frames = MAX (segment_frames, 1);
  if (b.cuda) {
    GstElementFactory *f = gst_element_factory_find ("cudaconvertscale");

    gst_cuda_memory_init_once ();
    b.context = gst_cuda_cache_device_open_context (0);
    b.have_stock = f != NULL;
    gst_clear_object (&f);
    if (!b.have_stock)
      g_print ("cudaconvertscale is not registered: ours only (see "
          "docs/performance.md for NVRTC 11.8)\n");
  } else {
    GstElementFactory *f = gst_element_factory_find ("videoconvertscale");

    b.have_stock = f != NULL;
    gst_clear_object (&f);
    if (!smoke)
      g_print ("no CUDA device: running on system memory\n");
  }
  alloc_counter_start (b.cuda);

  g_mkdir_with_parents (out, 0755);
  csv = g_build_filename (out, "results.csv", NULL);
  b.csv = fopen (csv, "w");
  if (!b.csv) {
    g_printerr ("cannot write %s\n", csv);
    return 1;
  }
  fprintf (b.csv, "scenario,variant,param,rep,metric,value,unit\n");
  write_machine (&b, out, n_args, args);

  for (i = 0; i < G_N_ELEMENTS (scenarios); i++) {
    gint64 t0 = now_ns ();

    if (!wanted (&b, scenarios[i].name))
      continue;
    scenarios[i].func (&b);
    g_print ("%s: %.1f s\n", scenarios[i].name, (now_ns () - t0) / 1e9);
  }

  fclose (b.csv);
  g_print ("wrote %s\n", csv);
  g_free (csv);
  g_free (out);
  g_free (only);
  g_free (stream);
  g_strfreev (b.only);
  g_strfreev (args);
  gst_clear_object (&b.context);

  return 0;
}
