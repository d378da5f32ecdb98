/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Pipelines the suites share: run to the end, and a stream whose
 * resolution switches every few frames. */

#ifndef __CUDACACHE_PIPELINE_H__
#define __CUDACACHE_PIPELINE_H__

#include <gst/check/gstcheck.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudacache/cudacache.h>

/* Plays @pipeline to EOS (failing on an error) and stops it. With
 * @context, every element shares it. */
static inline void
cudacache_run_pipeline (GstElement * pipeline, GstCudaContext * context)
{
  GstMessage *msg;

  if (context) {
    GstContext *ctx = gst_context_new_cuda_context (context);

    gst_element_set_context (pipeline, ctx);
    gst_context_unref (ctx);
  }

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "pipeline timed out");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    /* stopped first: a test that fails with streaming threads alive may
     * never exit */
    gst_element_set_state (pipeline, GST_STATE_NULL);
    fail ("pipeline error from %s: %s (%s)", GST_OBJECT_NAME (msg->src),
        err->message, GST_STR_NULL (debug));
  }
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

/* Counts the frames that pass a pad, and those whose memory @cache owns. */
typedef struct
{
  GstCudaCache *cache;
  guint frames;
  guint from_cache;
} CudaCacheFrameCount;

static GstPadProbeReturn
cudacache_count_frames_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  CudaCacheFrameCount *count = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  count->frames++;
  if (gst_cuda_cache_owns_memory (count->cache, gst_buffer_peek_memory (buf,
              0)))
    count->from_cache++;

  return GST_PAD_PROBE_OK;
}

/* Counts the frames leaving @element_name of @pipeline into @count. */
static inline void
cudacache_count_frames (GstElement * pipeline, const gchar * element_name,
    CudaCacheFrameCount * count)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline),
      element_name);
  GstPad *pad;

  fail_unless (element != NULL, "no element %s", element_name);
  pad = gst_element_get_static_pad (element, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      cudacache_count_frames_probe, count, NULL);
  gst_object_unref (pad);
  gst_object_unref (element);
}

typedef struct
{
  GstElement *capsfilter;
  guint every;
  guint frames;
} CudaCacheSwitcher;

static const gint cudacache_switch_sizes[][2] = {
  {1920, 1080}, {1280, 720}, {960, 540}, {640, 360}
};

static inline void
cudacache_switch_set_size (GstElement * capsfilter, guint i)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "NV12",
      "width", G_TYPE_INT, cudacache_switch_sizes[i][0],
      "height", G_TYPE_INT, cudacache_switch_sizes[i][1], NULL);

  g_object_set (capsfilter, "caps", caps, NULL);
  gst_caps_unref (caps);
}

static GstPadProbeReturn
cudacache_switch_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  CudaCacheSwitcher *sw = user_data;

  sw->frames++;
  if (sw->frames % sw->every == 0)
    cudacache_switch_set_size (sw->capsfilter, (sw->frames / sw->every) %
        G_N_ELEMENTS (cudacache_switch_sizes));

  return GST_PAD_PROBE_OK;
}

/* @cycles rounds of four resolutions, five frames each, through @middle
 * (a pipeline fragment); in CUDA memory with @context, in system memory
 * without. @stats: the cache's figures afterwards. */
/* Makes @sw switch the resolution of @pipeline's capsfilter "res" as the
 * buffers of its element "src" go by, starting at the first size. */
static inline void
cudacache_switch_attach (CudaCacheSwitcher * sw, GstElement * pipeline)
{
  GstElement *src;
  GstPad *pad;

  sw->capsfilter = gst_bin_get_by_name (GST_BIN (pipeline), "res");
  cudacache_switch_set_size (sw->capsfilter, 0);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, cudacache_switch_probe,
      sw, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
}

static inline void
run_switching_pipeline (const gchar * middle, guint cycles,
    GstCudaContext * context, GstCudaCacheStats * stats)
{
  CudaCacheSwitcher sw = { NULL, 5, 0 };
  GstCudaCache *cache;
  GstElement *pipeline;
  gchar *desc;

  desc = g_strdup_printf ("videotestsrc name=src num-buffers=%u ! "
      "capsfilter name=res ! %s %s ! %s fakesink", cycles * 4 * sw.every,
      context ? "cudaupload ! video/x-raw(memory:CUDAMemory) !" : "",
      middle, context ? "cudadownload !" : "");
  pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "could not build %s", desc);
  g_free (desc);
  cudacache_switch_attach (&sw, pipeline);

  cudacache_run_pipeline (pipeline, context);
  fail_unless_equals_int (sw.frames, cycles * 4 * sw.every);

  cache = context ? gst_cuda_cache_device_get_cache (context) :
      gst_cuda_cache_get_system ();
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, stats);
  gst_object_unref (cache);
  gst_object_unref (sw.capsfilter);
  gst_object_unref (pipeline);
}

#endif /* __CUDACACHE_PIPELINE_H__ */
