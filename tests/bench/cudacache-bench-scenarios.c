/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The benchmark's scenarios but the batches (see cudacache-bench.c and
 * docs/performance.md): conversion pipelines switching caps, decode with
 * resolution changes, a busy GPU, renegotiation through the elements, and
 * the pools alone. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudacache-bench.h"

static const gchar *variant_names[] = { "ours", "stock" };

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

void
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

void
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
    feeders[i].thread = g_thread_new ("bench-feeder", feeder_run, &feeders[i]);
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

void
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

void
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

GstBufferPool *
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

void
bench_micro (Bench * b)
{
  bench_hit_path (b);
  bench_pool_switch (b);
}
