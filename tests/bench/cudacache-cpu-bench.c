/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The CPU path's time against GstVideoConverter's (what videoconvertscale
 * runs) for the same conversion, on this machine: system memory, the
 * input noise (every pixel a sharp edge), both on as many threads
 * (GstVideoConverter: MIN (cores, 8), as the converter takes), LINEAR
 * scaling and chroma, no dithering. Per case it converts a first frame,
 * then --frames more, --runs times, and prints the median run's wall time
 * and CPU time (user + system, all threads) per frame, and the ratio of
 * the converter's CPU time to GstVideoConverter's. A tensor's time is set
 * against GstVideoConverter's to RGB of the same size.
 *
 *   cudacache-cpu-bench [--frames N] [--runs N] [--method M] [--case K]
 *
 * prints a Markdown table. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>

typedef struct
{
  const gchar *name;
  const gchar *in;
  const gchar *out;
  /* GstVideoConverter's output, where @out is a tensor */
  const gchar *stock_out;
} Case;

#define TENSOR "other/tensors,format=static,num_tensors=1,"

static const Case cases[] = {
  {"1080p NV12 to 640x640 RGB", "video/x-raw,format=NV12,width=1920,"
        "height=1080", "video/x-raw,format=RGB,width=640,height=640", NULL},
  {"1080p NV12 to 640x640 float32 NCHW", "video/x-raw,format=NV12,"
        "width=1920,height=1080", TENSOR "types=float32,layout=NCHW,"
        "dimensions=640:640:3:1",
      "video/x-raw,format=RGB,width=640,height=640"},
  {"1080p RGBx to 640x640 RGB", "video/x-raw,format=RGBx,width=1920,"
        "height=1080", "video/x-raw,format=RGB,width=640,height=640", NULL},
  {"1080p NV12 to 1080p RGBA", "video/x-raw,format=NV12,width=1920,"
        "height=1080", "video/x-raw,format=RGBA,width=1920,height=1080", NULL},
  {"720p NV12 to 1080p RGBA", "video/x-raw,format=NV12,width=1280,"
        "height=720", "video/x-raw,format=RGBA,width=1920,height=1080", NULL},
  {"1080p NV12 to 640x360 NV12", "video/x-raw,format=NV12,width=1920,"
        "height=1080", "video/x-raw,format=NV12,width=640,height=360", NULL},
  {"1080p YUY2 to 640x640 RGB", "video/x-raw,format=YUY2,width=1920,"
        "height=1080", "video/x-raw,format=RGB,width=640,height=640", NULL},
};

static gdouble
cpu_seconds (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 +
      u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static int
compare_doubles (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static GstBuffer *
noise_buffer (gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GRand *rand = g_rand_new_with_seed (1);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = g_rand_int (rand) & 0xff;
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  return buf;
}

/* One run of @frames conversions by @convert: its wall and CPU time per
 * frame, in ms */
typedef gboolean (*ConvertFunc) (gpointer data);

static void
time_runs (ConvertFunc convert, gpointer data, gint frames, gint runs,
    gdouble * wall_ms, gdouble * cpu_ms)
{
  gdouble *wall = g_new (gdouble, runs), *cpu = g_new (gdouble, runs);
  gint r, f;

  if (!convert (data))
    g_error ("the first conversion failed");
  for (r = 0; r < runs; r++) {
    gint64 t0 = g_get_monotonic_time ();
    gdouble c0 = cpu_seconds ();

    for (f = 0; f < frames; f++)
      convert (data);
    wall[r] = (g_get_monotonic_time () - t0) / 1e3 / frames;
    cpu[r] = (cpu_seconds () - c0) * 1e3 / frames;
  }
  qsort (wall, runs, sizeof (gdouble), compare_doubles);
  qsort (cpu, runs, sizeof (gdouble), compare_doubles);
  *wall_ms = wall[runs / 2];
  *cpu_ms = cpu[runs / 2];
  g_free (wall);
  g_free (cpu);
}

typedef struct
{
  GstCudaCacheConverter *conv;
  GstBuffer *in, *out;
} Ours;

static gboolean
ours_convert (gpointer data)
{
  Ours *o = data;
  GError *error = NULL;

  if (!gst_cuda_cache_converter_convert_buffer (o->conv, o->in, o->out, NULL,
          &error)) {
    g_printerr ("%s\n", error->message);
    g_clear_error (&error);
    return FALSE;
  }
  return TRUE;
}

typedef struct
{
  GstVideoConverter *conv;
  GstVideoFrame in, out;
} Stock;

static gboolean
stock_convert (gpointer data)
{
  Stock *s = data;

  gst_video_converter_frame (s->conv, &s->in, &s->out);
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint frames = 30, runs = 5, only = -1;
  gchar *method = NULL;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "frames a run", "N"},
    {"runs", 0, 0, G_OPTION_ARG_INT, &runs, "runs a case", "N"},
    {"method", 0, 0, G_OPTION_ARG_STRING, &method,
        "the converter's method (linear)", "M"},
    {"case", 0, 0, G_OPTION_ARG_INT, &only, "only case K (0..)", "K"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- the CPU path against "
      "GstVideoConverter");
  GError *error = NULL;
  guint threads, i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (frames < 1 || runs < 1) {
    g_printerr ("--frames and --runs take 1 or more\n");
    return 2;
  }
  threads = MIN (g_get_num_processors (), 8);

  g_print ("| conversion | ours: wall ms | ours: CPU ms | GstVideoConverter: "
      "wall ms | GstVideoConverter: CPU ms | CPU time ratio |\n");
  g_print ("|---|---|---|---|---|---|\n");
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    GstCaps *in_caps = gst_caps_from_string (c->in);
    GstCaps *out_caps = gst_caps_from_string (c->out);
    GstCaps *stock_caps = gst_caps_from_string (c->stock_out ? c->stock_out :
        c->out);
    GstStructure *config = NULL;
    GstVideoInfo in_info, stock_info;
    GstCudaCacheTensorInfo tensor;
    Ours ours;
    Stock stock;
    GstBuffer *stock_in, *stock_out;
    gdouble ow, oc, sw, sc;

    if (only >= 0 && (guint) only != i)
      continue;
    if (method) {
      gchar *str = g_strdup_printf ("c, GstCudaCacheConverter.method=%s",
          method);

      config = gst_structure_from_string (str, NULL);
      g_free (str);
      if (!config) {
        g_printerr ("--method %s: not a method\n", method);
        return 2;
      }
    }
    ours.conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL, config,
        &error);
    if (!ours.conv) {
      g_printerr ("%s: %s\n", c->name, error->message);
      return 1;
    }
    gst_video_info_from_caps (&in_info, in_caps);
    gst_video_info_from_caps (&stock_info, stock_caps);
    ours.in = noise_buffer (in_info.size);
    ours.out = gst_buffer_new_allocate (NULL,
        gst_cuda_cache_tensor_info_from_caps (&tensor, out_caps) ?
        tensor.size : stock_info.size, NULL);
    time_runs (ours_convert, &ours, frames, runs, &ow, &oc);

    stock.conv = gst_video_converter_new (&in_info, &stock_info,
        gst_structure_new ("options",
            GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD,
            GST_TYPE_VIDEO_RESAMPLER_METHOD,
            GST_VIDEO_RESAMPLER_METHOD_LINEAR,
            GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
            GST_TYPE_VIDEO_RESAMPLER_METHOD,
            GST_VIDEO_RESAMPLER_METHOD_LINEAR,
            GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
            GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
            GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, threads, NULL));
    stock_in = gst_buffer_ref (ours.in);
    stock_out = gst_buffer_new_allocate (NULL, stock_info.size, NULL);
    gst_video_frame_map (&stock.in, &in_info, stock_in, GST_MAP_READ);
    gst_video_frame_map (&stock.out, &stock_info, stock_out, GST_MAP_WRITE);
    time_runs (stock_convert, &stock, frames, runs, &sw, &sc);
    gst_video_frame_unmap (&stock.out);
    gst_video_frame_unmap (&stock.in);
    gst_video_converter_free (stock.conv);

    g_print ("| %s%s | %.2f | %.2f | %.2f | %.2f | %.2fx |\n", c->name,
        c->stock_out ? " (GstVideoConverter: to RGB)" : "", ow, oc, sw, sc,
        oc / sc);

    gst_buffer_unref (stock_out);
    gst_buffer_unref (stock_in);
    gst_buffer_unref (ours.out);
    gst_buffer_unref (ours.in);
    gst_object_unref (ours.conv);
    gst_caps_unref (stock_caps);
    gst_caps_unref (out_caps);
    gst_caps_unref (in_caps);
  }
  g_free (method);
  return 0;
}
