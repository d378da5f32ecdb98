/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The benchmark's host scenario (see cudacache-bench.c and
 * docs/performance.md, "Host time per frame"): the CPU time a steady
 * conversion pipeline costs the process per frame, 1, 4 and 8 of them in
 * one process, each fed by its own thread. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/resource.h>

#include "cudacache-bench.h"

/* ------------------------------------------------------------------------
 * 8. Host time per frame: appsrc ! <convert> ! <caps> ! fakesink at steady
 * caps; process CPU time (every thread) and wall time over a window, per
 * frame delivered
 * ------------------------------------------------------------------------ */

typedef struct
{
  const gchar *name;
  Size in, out;
} HostCase;

/* 1080p: what a detector's pipeline converts; tiny: where the pixels cost
 * nothing and the per-frame overhead is all there is */
static const HostCase host_cases[] = {
  {"1080p", {1920, 1080}, {640, 640}},
  {"tiny", {64, 64}, {32, 32}},
};

typedef enum
{
  HOST_OURS,
  HOST_STOCK,
  /* appsrc ! identity ! fakesink: the harness's own cost (the feeder, the
   * queue of appsrc, the sink and its log) */
  HOST_FLOOR,
} HostVariant;

static const gchar *host_variant_names[] = { "ours", "stock", "floor" };

#define HOST_WARM_FRAMES 20

static gchar *
host_launch (Bench * b, HostVariant v, const HostCase * c)
{
  const gchar *convert = v == HOST_OURS ? "cudacacheconvert letterbox=true" :
      b->cuda ? "cudaconvertscale add-borders=true" :
      "videoconvertscale add-borders=true";

  if (v == HOST_FLOOR)
    return g_strdup ("identity");
  return g_strdup_printf ("%s ! video/x-raw%s,format=RGBA,width=%d,height=%d,"
      "pixel-aspect-ratio=1/1", convert, b->cuda ? "(memory:CUDAMemory)" : "",
      c->out.width, c->out.height);
}

/* CPU time of every thread of the process, ns */
static gint64
process_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Context switches of every thread of the process: the waits between
 * threads a frame costs */
static gint64
process_switches (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return u.ru_nvcsw + u.ru_nivcsw;
}

static void
host_once (Bench * b, const HostCase * c, GstSample * sample, HostVariant v,
    guint n, guint rep)
{
  Feeder *feeders = g_new0 (Feeder, n);
  FrameSet set = { {sample,} };
  gchar *middle = host_launch (b, v, c);
  gchar *param = g_strdup_printf ("%s N=%u", c->name, n);
  gdouble warm_s = b->smoke ? 0.02 : 0.2;
  guint64 frames = 0;
  gint64 t0, t1, cpu0, cpu1, sw0, sw1;
  guint i, j;

  for (i = 0; i < n; i++) {
    run_init (b, &feeders[i].run, middle);
    feeders[i].set = &set;
  }
  for (i = 0; i < n; i++)
    feeders[i].thread = g_thread_new ("bench-feeder", feeder_run, &feeders[i]);
  for (i = 0; i < n; i++)
    if (!sink_log_wait (&feeders[i].run.log, HOST_WARM_FRAMES))
      g_error ("a pipeline did not start");

  g_usleep (warm_s * G_USEC_PER_SEC);
  t0 = now_ns ();
  cpu0 = process_cpu_ns ();
  sw0 = process_switches ();
  g_usleep (b->host_window_s * G_USEC_PER_SEC);
  t1 = now_ns ();
  cpu1 = process_cpu_ns ();
  sw1 = process_switches ();

  for (i = 0; i < n; i++)
    g_atomic_int_set (&feeders[i].stop, 1);
  for (i = 0; i < n; i++) {
    GArray *times = feeders[i].run.log.times;

    g_thread_join (feeders[i].thread);
    run_finish (&feeders[i].run);
    for (j = 0; j < times->len; j++) {
      gint64 t = g_array_index (times, gint64, j);

      frames += t >= t0 && t <= t1;
    }
    run_clear (&feeders[i].run);
  }
  if (frames == 0)
    g_error ("host: no frame in the window (%s, %s)", host_variant_names[v],
        param);

  emit_rep (b, "host", host_variant_names[v], param, rep, "cpu_us_per_frame",
      (cpu1 - cpu0) / 1e3 / frames, "us");
  emit_rep (b, "host", host_variant_names[v], param, rep, "wall_us_per_frame",
      (t1 - t0) / 1e3 / frames, "us");
  emit_rep (b, "host", host_variant_names[v], param, rep, "aggregate_fps",
      frames / ((t1 - t0) / 1e9), "fps");
  emit_rep (b, "host", host_variant_names[v], param, rep,
      "switches_per_frame", (gdouble) (sw1 - sw0) / frames, "count");

  g_free (param);
  g_free (middle);
  g_free (feeders);
}

void
bench_host (Bench * b)
{
  static const guint default_pipelines[] = { 1, 4, 8 };
  const guint *pipelines = default_pipelines;
  guint n_pipelines = G_N_ELEMENTS (default_pipelines), c, p, rep, v;

  if (b->host_pipelines) {
    pipelines = (const guint *) b->host_pipelines->data;
    n_pipelines = b->host_pipelines->len;
  }
  for (c = 0; c < G_N_ELEMENTS (host_cases); c++) {
    const HostCase *hc = &host_cases[c];
    GstSample *sample;

    if (b->host_case && !g_str_equal (b->host_case, hc->name))
      continue;
    sample = frame_new (b, &hc->in);
    for (p = 0; p < n_pipelines; p++) {
      for (rep = 1; rep <= b->reps; rep++) {
        for (v = HOST_OURS; v <= HOST_FLOOR; v++) {
          if ((v == HOST_STOCK && !b->have_stock) || (b->host_variants &&
                  !g_strv_contains ((const gchar * const *) b->host_variants,
                      host_variant_names[v])))
            continue;
          host_once (b, hc, sample, v, pipelines[p], rep);
        }
      }
    }
    gst_sample_unref (sample);
  }
}
