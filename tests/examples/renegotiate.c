/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* A stream whose resolution keeps changing, through the cache's elements.
 *
 * videotestsrc switches among a few resolutions every few frames; on a
 * machine with a CUDA device the frames are uploaded (cudaupload) and pass
 * through the cache's elements in CUDA memory, otherwise in system memory.
 * At the end it prints what the cache did: after the first visit to each
 * resolution every buffer should come from the cache.
 *
 *   renegotiate [--frames N] [--every K] [--system] [--convert]
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <gst/gst.h>
#include <gst/cudacache/cudacache.h>

static const struct
{
  gint width, height;
} sizes[] = {
  {1920, 1080}, {1280, 720}, {960, 540}, {640, 360},
};

typedef struct
{
  GstElement *capsfilter;
  guint every;
  guint64 frames;
  guint switches;
} Switcher;

static void
set_size (GstElement * capsfilter, guint index)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "NV12",
      "width", G_TYPE_INT, sizes[index].width,
      "height", G_TYPE_INT, sizes[index].height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);

  g_object_set (capsfilter, "caps", caps, NULL);
  gst_caps_unref (caps);
}

/* Every @every frames, asks the source for the next resolution. */
static GstPadProbeReturn
switch_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Switcher *sw = user_data;

  sw->frames++;
  if (sw->frames % sw->every == 0) {
    sw->switches++;
    set_size (sw->capsfilter, sw->switches % G_N_ELEMENTS (sizes));
  }

  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gint frames = 200, every = 10;
  gboolean system = FALSE, convert = FALSE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames to send", "N"},
    {"every", 'k', 0, G_OPTION_ARG_INT, &every,
        "Change resolution every K frames", "K"},
    {"system", 's', 0, G_OPTION_ARG_NONE, &system,
        "Stay in system memory even with a CUDA device", NULL},
    {"convert", 'c', 0, G_OPTION_ARG_NONE, &convert,
        "Also scale each frame to 640x640 RGBA with cudacacheconvert", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *pipeline, *src, *identity;
  GstCudaCacheStats stats = { 0 };
  GstCudaCache *cache = NULL;
  GstMessage *msg;
  GstPad *pad;
  Switcher sw = { NULL, 0, 0, 0 };
  gboolean cuda;
  gchar *desc, *conv;
  gint ret = 0;

  ctx = g_option_context_new ("- a resolution-switching stream through "
      "the CUDA cache");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (frames <= 0 || every <= 0) {
    g_printerr ("--frames and --every must be positive\n");
    return 2;
  }

  cuda = !system && gst_cuda_cache_device_get_count () > 0 &&
      gst_registry_check_feature_version (gst_registry_get (), "cudaupload",
      1, 22, 0);

  conv = convert ? g_strdup_printf ("cudacacheconvert ! "
      "video/x-raw%s,format=RGBA,width=640,height=640 ! ",
      cuda ? "(memory:CUDAMemory)" : "") : g_strdup ("");
  desc = g_strdup_printf ("videotestsrc name=src num-buffers=%d "
      "pattern=ball ! capsfilter name=res ! %s%scudacacheidentity name=cache "
      "! %sfakesink name=sink", frames,
      cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "", conv,
      cuda ? "cudadownload ! " : "");
  g_free (conv);

  g_print ("memory: %s\npipeline: %s\n", cuda ? "CUDA" : "system", desc);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("could not build the pipeline: %s\n", err->message);
    g_clear_error (&err);
    return 1;
  }

  sw.capsfilter = gst_bin_get_by_name (GST_BIN (pipeline), "res");
  sw.every = every;
  set_size (sw.capsfilter, 0);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, switch_probe, &sw, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
        err->message, GST_STR_NULL (debug));
    g_clear_error (&err);
    g_free (debug);
    ret = 1;
  }
  gst_message_unref (msg);

  /* the element's cache: the device's for CUDA memory, the system's
   * otherwise; its figures all at once */
  identity = gst_bin_get_by_name (GST_BIN (pipeline), "cache");
  g_object_get (identity, "cache", &cache, NULL);
  if (cache) {
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
    gst_object_unref (cache);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  g_print ("frames: %" G_GUINT64_FORMAT ", resolution changes: %u, "
      "distinct resolutions: %u\n", sw.frames, sw.switches,
      (guint) MIN (sw.switches + 1, G_N_ELEMENTS (sizes)));
  g_print ("cache: hits=%" G_GUINT64_FORMAT " misses=%" G_GUINT64_FORMAT
      " (allocations) evictions=%" G_GUINT64_FORMAT " current-size=%"
      G_GUINT64_FORMAT " idle-bytes=%" G_GUINT64_FORMAT " cache-limit=%"
      G_GUINT64_FORMAT "\n", stats.hits, stats.misses, stats.evictions,
      stats.current_size, stats.idle_bytes, stats.cache_limit);

  gst_object_unref (identity);
  gst_object_unref (sw.capsfilter);
  gst_object_unref (pipeline);

  return ret;
}
