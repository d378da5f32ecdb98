/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* What the benchmark's files (cudacache-bench.c, the program;
 * cudacache-bench-harness.c, what every scenario measures with;
 * cudacache-bench-scenarios.c, cudacache-bench-batch.c and
 * cudacache-bench-host.c, the scenarios)
 * share: the includes, the run's settings, the frames and pipelines the
 * scenarios push through, and the functions one file calls in another. */

#ifndef __CUDACACHE_BENCH_H__
#define __CUDACACHE_BENCH_H__

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

/* The run: its options, its CUDA context and its results.csv. */
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
  /* "host": its pipeline counts, its case and variants (NULL: all) and its
   * window */
  GArray *host_pipelines;       /* guint */
  gchar *host_case;
  gchar **host_variants;
  gdouble host_window_s;
} Bench;

/* A frame's size; bench_sizes () gives N_SIZES of them. */
typedef struct
{
  gint width, height;
} Size;

#define N_SIZES 4

/* One frame of each size, made once (frame_set_init ()). */
typedef struct
{
  GstSample *frames[N_SIZES];
} FrameSet;

/* The two sides of a pipeline scenario. */
typedef enum
{
  VARIANT_OURS,
  VARIANT_STOCK,
} Variant;

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

/* appsrc ! middle ! fakesink, logged at the sink (run_init ()). */
typedef struct
{
  GstElement *pipeline;
  GstElement *src;
  SinkLog log;
} Run;

/* A pipeline fed by its own thread (feeder_run ()) until told to stop. */
typedef struct
{
  Run run;
  FrameSet *set;
  guint k;                      /* 0: steady, set->frames[0] */
  volatile gint stop;
  GThread *thread;
} Feeder;

/* cudacache-bench-harness.c: rows of results.csv */
gint64 now_ns (void);
void emit (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, const gchar * rep, const gchar * metric, gdouble value,
    const gchar * unit);
void emit_rep (Bench * b, const gchar * scenario, const gchar * variant,
    const gchar * param, guint rep, const gchar * metric, gdouble value,
    const gchar * unit);
gint compare_doubles (gconstpointer a, gconstpointer b);
gdouble percentile (gdouble * sorted, guint n, gdouble p);
void emit_distribution (Bench * b, const gchar * scenario,
    const gchar * variant, const gchar * param, gdouble * samples, guint n);
gboolean wanted (Bench * b, const gchar * scenario);

/* cudacache-bench-harness.c: the allocation counter */
void alloc_counter_start (gboolean cuda_only);

/* cudacache-bench-harness.c: device-resident frames */
const Size *bench_sizes (Bench * b);
GstCaps *nv12_caps (Bench * b, const Size * size);
GstSample *frame_new (Bench * b, const Size * size);
void frame_set_init (Bench * b, FrameSet * set);
void frame_set_clear (FrameSet * set);

/* cudacache-bench-harness.c: pipelines */
gchar *convert_launch (Bench * b, Variant v);
GstPadProbeReturn sink_log_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data);
void sink_log_init (SinkLog * log);
void sink_log_clear (SinkLog * log);
guint sink_log_count (SinkLog * log);
gboolean sink_log_wait (SinkLog * log, guint n);
GstElement *pipeline_new (Bench * b, const gchar * desc);
void run_init (Bench * b, Run * run, const gchar * middle);
void run_push (Run * run, GstSample * sample);
void run_finish (Run * run);
void run_clear (Run * run);
gpointer feeder_run (gpointer data);
guint64 our_cache_misses (Bench * b);

/* cudacache-bench-scenarios.c */
void bench_convert (Bench * b);
void bench_decode (Bench * b);
void bench_busy (Bench * b);
void bench_renegotiation (Bench * b);
void bench_micro (Bench * b);
GstBufferPool *new_our_pool (Bench * b);

/* cudacache-bench-batch.c */
void bench_batch (Bench * b);

/* cudacache-bench-host.c */
void bench_host (Bench * b);

#endif /* __CUDACACHE_BENCH_H__ */
