/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The benchmark against GStreamer's stock elements (see docs/performance.md,
 * which fixes the method).
 *
 *   cudacache-bench [--smoke] [--out DIR] [--reps N] [--only NAMES]
 *                   [--stream FILE --segment-frames N]
 *                   [--pipelines LIST] [--host-case NAME]
 *                   [--host-variants LIST] [--window S]
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
 * checks the program and the report, never the numbers.
 *
 * The host scenario (host time per frame) is a measurement of its own, not
 * part of the run the method fixes: it runs where --only names it (and in
 * the smoke run). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudacache-bench.h"

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
  gchar *pipelines = NULL, *host_case = NULL, *host_variants = NULL;
  gint reps = 5, segment_frames = 15;
  gdouble window = 1.0;
  GOptionEntry entries[] = {
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
        "Run each scenario briefly on system memory", NULL},
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Folder for results.csv and machine.txt (default: results)", "DIR"},
    {"reps", 'r', 0, G_OPTION_ARG_INT, &reps,
        "Alternating repetitions of each pipeline (default: 5)", "N"},
    {"only", 0, 0, G_OPTION_ARG_STRING, &only,
          "Comma-separated scenarios: convert,decode,busy,batch,renegotiation,"
          "micro,host (host: only where named here)",
        "NAMES"},
    {"stream", 0, 0, G_OPTION_ARG_FILENAME, &stream,
        "H.264 byte stream for the decode scenario", "FILE"},
    {"segment-frames", 0, 0, G_OPTION_ARG_INT, &segment_frames,
        "Frames per resolution segment of --stream (default: 15)", "N"},
    {"pipelines", 0, 0, G_OPTION_ARG_STRING, &pipelines,
          "host: comma-separated counts of pipelines in the process, each "
          "fed by its own thread (default: 1,4,8)",
        "LIST"},
    {"host-case", 0, 0, G_OPTION_ARG_STRING, &host_case,
          "host: one conversion only, 1080p (1920x1080 NV12 to 640x640 "
          "RGBA, letterboxed) or tiny (64x64 NV12 to 32x32 RGBA) "
          "(default: both)",
        "NAME"},
    {"host-variants", 0, 0, G_OPTION_ARG_STRING, &host_variants,
          "host: comma-separated sides, of ours,stock,floor (default: all; "
          "ours alone to profile it)",
        "LIST"},
    {"window", 0, 0, G_OPTION_ARG_DOUBLE, &window,
          "host: seconds of the measured window, after the warm-up "
          "(default: 1; 0.1 with --smoke)",
        "S"},
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
    gboolean named_only;        /* left out of a run without --only */
    gboolean untraced;          /* counts no allocations: wants no tracer */
  } scenarios[] = {
    {"micro", bench_micro, FALSE, FALSE},
    {"convert", bench_convert, FALSE, FALSE},
    {"renegotiation", bench_renegotiation, FALSE, FALSE},
    {"busy", bench_busy, FALSE, FALSE},
    {"batch", bench_batch, FALSE, FALSE},
    {"decode", bench_decode, FALSE, FALSE},
    {"host", bench_host, TRUE, TRUE},
  };
  gboolean runs[G_N_ELEMENTS (scenarios)], traced = FALSE;
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
  b.host_case = host_case;
  b.host_variants = host_variants ? g_strsplit (host_variants, ",", -1) : NULL;
  b.host_window_s = smoke ? 0.1 : window;
  if (host_case && !g_str_equal (host_case, "1080p") &&
      !g_str_equal (host_case, "tiny")) {
    g_printerr ("--host-case takes 1080p or tiny\n");
    return 2;
  }
  if (window <= 0) {
    g_printerr ("--window takes a positive number of seconds\n");
    return 2;
  }
  if (pipelines) {
    gchar **counts = g_strsplit (pipelines, ",", -1);
    guint64 n;
    guint count;

    b.host_pipelines = g_array_new (FALSE, FALSE, sizeof (guint));
    for (i = 0; counts[i]; i++) {
      if (!g_ascii_string_to_unsigned (counts[i], 10, 1, 64, &n, NULL)) {
        g_printerr ("--pipelines takes counts from 1 to 64: %s\n", counts[i]);
        return 2;
      }
      count = n;
      g_array_append_val (b.host_pipelines, count);
    }
    g_strfreev (counts);
  }
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
  for (i = 0; i < G_N_ELEMENTS (scenarios); i++) {
    runs[i] = wanted (&b, scenarios[i].name) &&
        (!scenarios[i].named_only || b.only || b.smoke);
    traced |= runs[i] && !scenarios[i].untraced;
  }
  /* the allocation counter is a tracer: once one is registered, every
   * hook point of GStreamer (each push, each pool acquire) looks its hooks
   * up, which a run of the host scenario alone would count as the
   * pipeline's own time */
  if (traced)
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

    if (!runs[i])
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
  g_free (pipelines);
  g_free (host_case);
  g_free (host_variants);
  g_strfreev (b.host_variants);
  if (b.host_pipelines)
    g_array_unref (b.host_pipelines);
  g_strfreev (b.only);
  g_strfreev (args);
  gst_clear_object (&b.context);

  return 0;
}
