/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Conversions of several threads at once on one context, each waiting for
 * its own frame only: a frame read back the moment its conversion returns
 * equals the same conversion waited for on a stream of the test's.
 * Included by elements/cudaconvert-gpu.c, whose helpers (copy_rows (),
 * upload ()) it uses. */

#ifndef __CUDACONVERT_GPU_THREADS_H__
#define __CUDACONVERT_GPU_THREADS_H__

#include <string.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cudacache/cudacache.h>
#include <gst/cudacache/gstcudacache-compat-private.h>
#include "cudacache-check-gpu.h"
#include "cudacache-picture.h"

/* Several threads convert at once on the one context, each with its own
 * converter and output size, and read each frame back the moment the
 * conversion returns, by a copy that waits for no other stream: a converter
 * that returned before its frame was written shows the pattern the output
 * was filled with before. The reference is the same conversion on a
 * caller's stream, waited for by the test. */
#define WAIT_THREADS 8
#define WAIT_FRAMES 24

typedef struct
{
  GstCudaCacheConverter *converter;
  GstBuffer *in;
  GstBuffer *out;
  CUdeviceptr out_data;
  gint out_stride;
  gint out_width;
  gint out_height;
  guint8 *reference;
  guint8 *pattern;
  guint8 *got;
  guint mismatches;
  gchar *error;
} WaitWorker;

/* Rows @first to @first + @rows - 1 of @w's output, to or from @host. */
static gboolean
copy_rgba (WaitWorker * w, guint8 * host, gint first, gint rows,
    gboolean to_device)
{
  gsize host_stride = (gsize) w->out_width * 4;

  return copy_rows (host + first * host_stride, host_stride,
      w->out_data + (gsize) first * w->out_stride, w->out_stride, host_stride,
      rows, to_device);
}

static gboolean
fill_output (WaitWorker * w, guint8 * host)
{
  return copy_rgba (w, host, 0, w->out_height, TRUE);
}

/* The last row first: the grid writes it last. */
static gboolean
read_output (WaitWorker * w, guint8 * host)
{
  return copy_rgba (w, host, w->out_height - 1, 1, FALSE) &&
      copy_rgba (w, host, 0, w->out_height - 1, FALSE);
}

static gpointer
wait_worker (gpointer data)
{
  WaitWorker *w = data;
  GError *error = NULL;
  guint i;

  for (i = 0; i < WAIT_FRAMES; i++) {
    if (!fill_output (w, w->pattern)) {
      w->error = g_strdup ("could not fill the output");
      return NULL;
    }
    if (!gst_cuda_cache_converter_convert_buffer (w->converter, w->in,
            w->out, NULL, &error)) {
      w->error = g_strdup (error->message);
      g_clear_error (&error);
      return NULL;
    }
    if (!read_output (w, w->got)) {
      w->error = g_strdup ("could not read the output back");
      return NULL;
    }
    if (memcmp (w->got, w->reference, w->out_width * 4 * w->out_height) != 0)
      w->mismatches++;
  }

  return NULL;
}

GST_START_TEST (test_threads_wait_for_their_own_frames)
{
  GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  WaitWorker workers[WAIT_THREADS];
  GThread *threads[WAIT_THREADS];
  GstVideoInfo in_info;
  GstBuffer *sys = cudacache_make_picture (GST_VIDEO_FORMAT_NV12, 1920, 1080,
      &in_info);
  GstBuffer *in = upload (sys, &in_info);
  GstCaps *in_caps = gst_video_info_to_caps (&in_info);
  guint t;

  fail_unless (allocator != NULL);
  gst_caps_set_features_simple (in_caps,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  for (t = 0; t < WAIT_THREADS; t++) {
    WaitWorker *w = &workers[t];
    GstVideoInfo out_info;
    GstCaps *out_caps;
    GstMemory *mem;
    GstMapInfo map;
    CUstream stream;
    GError *error = NULL;
    gsize size;

    memset (w, 0, sizeof (*w));
    /* a grid of its own per thread: sizes that differ, all of them odd,
     * and large enough that a conversion outlasts the start of the copy
     * that reads it back */
    w->out_width = 3841 - 64 * t;
    w->out_height = 2161 - 32 * t;
    size = (gsize) w->out_width * 4 * w->out_height;
    gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGBA,
        w->out_width, w->out_height);
    out_caps = gst_video_info_to_caps (&out_info);
    gst_caps_set_features_simple (out_caps,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    w->converter = gst_cuda_cache_converter_new (in_caps, out_caps, context,
        NULL, &error);
    fail_unless (w->converter != NULL, "%s", error ? error->message : "");
    gst_caps_unref (out_caps);

    mem = gst_cuda_cache_compat_alloc (GST_CUDA_ALLOCATOR (allocator),
        context, NULL, &out_info);
    fail_unless (mem != NULL);
    w->out = gst_buffer_new ();
    gst_buffer_append_memory (w->out, mem);
    gst_buffer_add_video_meta_full (w->out, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_RGBA, w->out_width, w->out_height, 1,
        GST_CUDA_MEMORY_CAST (mem)->info.offset,
        GST_CUDA_MEMORY_CAST (mem)->info.stride);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
    w->out_data = (CUdeviceptr) map.data;
    gst_memory_unmap (mem, &map);
    w->out_stride = GST_CUDA_MEMORY_CAST (mem)->info.stride[0];
    w->in = gst_buffer_ref (in);
    w->reference = g_malloc (size);
    w->got = g_malloc (size);
    w->pattern = g_malloc (size);
    memset (w->pattern, 0x5a, size);

    /* the reference: the same conversion on a stream the test waits for */
    fail_unless (gst_cuda_context_push (context));
    fail_unless_equals_int (CuStreamCreate (&stream, CU_STREAM_NON_BLOCKING),
        CUDA_SUCCESS);
    gst_cuda_context_pop (NULL);
    fail_unless (fill_output (w, w->pattern));
    fail_unless (gst_cuda_cache_converter_convert_buffer (w->converter, in,
            w->out, stream, &error), "%s", error ? error->message : "");
    fail_unless (gst_cuda_context_push (context));
    fail_unless_equals_int (CuStreamSynchronize (stream), CUDA_SUCCESS);
    fail_unless_equals_int (CuStreamDestroy (stream), CUDA_SUCCESS);
    gst_cuda_context_pop (NULL);
    fail_unless (read_output (w, w->reference));
    fail_unless (memcmp (w->reference, w->pattern, size) != 0);
  }

  for (t = 0; t < WAIT_THREADS; t++)
    threads[t] = g_thread_new ("convert", wait_worker, &workers[t]);
  for (t = 0; t < WAIT_THREADS; t++)
    g_thread_join (threads[t]);

  for (t = 0; t < WAIT_THREADS; t++) {
    WaitWorker *w = &workers[t];

    fail_unless (w->error == NULL, "thread %u: %s", t, w->error);
    fail_unless_equals_int (w->mismatches, 0);
    gst_object_unref (w->converter);
    gst_buffer_unref (w->in);
    gst_buffer_unref (w->out);
    g_free (w->reference);
    g_free (w->got);
    g_free (w->pattern);
  }
  gst_caps_unref (in_caps);
  gst_buffer_unref (in);
  gst_buffer_unref (sys);
  gst_object_unref (allocator);
}

GST_END_TEST;

#endif /* __CUDACONVERT_GPU_THREADS_H__ */
