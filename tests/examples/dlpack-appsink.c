/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Tensors from a pipeline to a DLPack consumer, without a copy.
 *
 * cudacacheconvert makes float32 NCHW tensors; appsink hands each to
 * gst_cuda_cache_dlpack_export(), and the "consumer" here (what PyTorch,
 * CuPy or NumPy do on import) reads the DLTensor's shape, strides and dtype
 * and, on system memory, its values, then runs the deleter: only then does
 * the buffer go back to its pool and its memory to the cache.
 *
 *   dlpack-appsink [--frames N] [--cuda]
 *
 * With --cuda the frames are uploaded (cudaupload) and the tensors are CUDA
 * memory: the consumer gets a kDLCUDA device pointer.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <dlpack/dlpack.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/cudacache/cudacache.h>

#define WIDTH 64
#define HEIGHT 48

/* What a DLPack consumer does with the tensor: read it, then release it. */
static gboolean
consume (DLManagedTensor * managed, guint frame)
{
  const DLTensor *t = &managed->dl_tensor;
  gboolean ok = t->ndim == 4 && t->dtype.code == kDLFloat &&
      t->dtype.bits == 32 && t->dtype.lanes == 1;

  g_print ("frame %u: %s:%d float%u[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
      ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] strides [%"
      G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
      G_GINT64_FORMAT "] at %p", frame,
      t->device.device_type == kDLCUDA ? "cuda" : "cpu", t->device.device_id,
      t->dtype.bits, t->shape[0], t->shape[1], t->shape[2], t->shape[3],
      t->strides[0], t->strides[1], t->strides[2], t->strides[3], t->data);

  if (ok && t->device.device_type == kDLCPU) {
    const gfloat *data = (const gfloat *) ((const guint8 *) t->data +
        t->byte_offset);
    gdouble sum = 0;
    gint64 c, y, x;

    for (c = 0; c < t->shape[1]; c++)
      for (y = 0; y < t->shape[2]; y++)
        for (x = 0; x < t->shape[3]; x++)
          sum += data[c * t->strides[1] + y * t->strides[2] +
              x * t->strides[3]];
    g_print (", mean %.3f", sum / (t->shape[1] * t->shape[2] * t->shape[3]));
  }
  g_print ("\n");

  managed->deleter (managed);
  return ok;
}

/* The next sample, or NULL at the end of the stream or on an error,
 * which is printed and clears *@ok: a pipeline that fails never gives
 * appsink its end of stream. */
static GstSample *
next_sample (GstAppSink * sink, GstBus * bus, gboolean * ok)
{
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (sink, 100 * GST_MSECOND);
    GstMessage *msg;

    if (sample)
      return sample;
    if (gst_app_sink_is_eos (sink))
      return NULL;
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("the pipeline failed: %s\n", err->message);
      g_clear_error (&err);
      gst_message_unref (msg);
      *ok = FALSE;
      return NULL;
    }
  }
}

int
main (int argc, char **argv)
{
  guint frames = 10, n = 0;
  gboolean cuda = FALSE, ok = TRUE;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames to convert", "N"},
    {"cuda", 0, 0, G_OPTION_ARG_NONE, &cuda,
        "Upload frames and make CUDA tensors", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *pipeline, *sink;
  GstBus *bus;
  GstSample *sample;
  GstCudaCache *cache = NULL;
  GstCudaCacheStats stats;
  gchar *desc;

  ctx = g_option_context_new ("- tensors from a pipeline through DLPack");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  if (cuda) {
    GstElementFactory *upload = gst_element_factory_find ("cudaupload");

    if (!upload) {
      g_printerr ("--cuda needs nvcodec's cudaupload, which registers only "
          "with a CUDA driver and device\n");
      return 1;
    }
    gst_object_unref (upload);
  }
  desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,width=%d,height=%d ! %s cudacacheconvert ! "
      "other/tensors%s,types=float32,dimensions=%d:%d:3:1 ! "
      "appsink name=sink sync=false max-buffers=2", frames, WIDTH, HEIGHT,
      cuda ? "cudaupload !" : "", cuda ? "(memory:CUDAMemory)" : "", WIDTH,
      HEIGHT);
  /* a missing element (cudaupload without a GPU) is a "recoverable" parse
   * error: a pipeline comes back, which would never produce a sample */
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (err) {
    g_printerr ("could not make the pipeline: %s\n", err->message);
    gst_clear_object (&pipeline);
    return 1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  while ((sample = next_sample (GST_APP_SINK (sink), bus, &ok))) {
    GstBuffer *buffer = gst_sample_get_buffer (sample);
    DLManagedTensor *managed;

    if (!cache && buffer->pool) {
      /* the tensors' pool leads to their cache */
      if (GST_IS_CUDA_CACHE_SYSTEM_POOL (buffer->pool))
        cache = gst_cuda_cache_system_pool_get_cache
            (GST_CUDA_CACHE_SYSTEM_POOL (buffer->pool));
      else if (GST_IS_CUDA_CACHE_POOL (buffer->pool))
        cache = gst_cuda_cache_pool_get_cache
            (GST_CUDA_CACHE_POOL (buffer->pool));
    }

    managed = gst_cuda_cache_dlpack_export (buffer, gst_sample_get_caps
        (sample), GST_CUDA_CACHE_DLPACK_WHOLE, GST_CUDA_CACHE_DLPACK_FLAG_NONE,
        &err);
    /* the tensor holds its own reference on the buffer */
    gst_sample_unref (sample);
    if (!managed) {
      g_printerr ("frame %u could not be exported: %s\n", n, err->message);
      g_clear_error (&err);
      ok = FALSE;
      break;
    }
    ok &= consume (managed, n++);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  if (cache) {
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
    g_print ("%s: %u blocks used, %u idle, %" G_GUINT64_FORMAT " hits, %"
        G_GUINT64_FORMAT " misses\n", GST_OBJECT_NAME (cache),
        stats.used_blocks, stats.idle_blocks, stats.hits, stats.misses);
    /* every tensor was released: none of the cache's blocks is in use */
    ok &= stats.used_blocks == 0;
    gst_object_unref (cache);
  }

  g_print ("%u frames\n", n);
  return ok && n == frames ? 0 : 1;
}
