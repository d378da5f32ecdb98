/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* Input the conversion kernels do not read themselves, made into a frame
 * they do (gstcudacachekernels-private.h, 7.): 16-bit 4:2:0 (P010_10LE,
 * P016_LE) narrowed to 8-bit NV12 and 4:2:2 packed (YUY2, UYVY) converted
 * to RGBx by the passes of kernels/narrow.cu, into a block of the device's
 * cache that grows with the frames. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachekernels-private.h"
#include "gstcudacacheplan-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

struct _GstCudaCacheStandIn
{
  GstCudaCacheKernels *kernels;
  GstMemory *block;             /* of the device's cache, or NULL */
  CUdeviceptr data;             /* its rows, at pitch */
  gsize pitch;
  gsize rows;
};

/* The stand-in's rows of @in: RGBx's, or NV12's. */
static void
stand_in_size (const GstVideoInfo * in, gsize * row_bytes, gsize * rows)
{
  gsize w = GST_VIDEO_INFO_WIDTH (in), h = GST_VIDEO_INFO_HEIGHT (in);

  switch (GST_VIDEO_INFO_FORMAT (in)) {
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      *row_bytes = 4 * w;
      *rows = h;
      break;
    default:
      *row_bytes = 2 * ((w + 1) / 2);
      *rows = h + (h + 1) / 2;
      break;
  }
}

GstCudaCacheStandIn *
gst_cuda_cache_stand_in_new (GstCudaCacheKernels * kernels)
{
  GstCudaCacheStandIn *s;

  g_return_val_if_fail (kernels != NULL, NULL);

  gst_cuda_cache_kernels_init_debug ();

  s = g_new0 (GstCudaCacheStandIn, 1);
  s->kernels = kernels;

  return s;
}

gboolean
gst_cuda_cache_stand_in_reserve (GstCudaCacheStandIn * s,
    const GstVideoInfo * in)
{
  gsize row_bytes, rows, pitch = 0;
  CUdeviceptr data = 0;
  GstMemory *block;

  g_return_val_if_fail (s != NULL, FALSE);
  g_return_val_if_fail (in != NULL, FALSE);

  stand_in_size (in, &row_bytes, &rows);
  if (s->block && row_bytes <= s->pitch && rows <= s->rows)
    return TRUE;

  /* the old frame's last conversion was waited for: it goes back to the
   * cache, which frees it off this thread if it does not keep it */
  g_clear_pointer (&s->block, gst_memory_unref);
  s->data = 0;
  s->pitch = s->rows = 0;

  block = gst_cuda_cache_kernels_acquire (s->kernels, row_bytes, rows, &data,
      &pitch);
  if (!block) {
    GST_WARNING ("no device memory for %" G_GSIZE_FORMAT " rows of %"
        G_GSIZE_FORMAT " bytes", rows, row_bytes);
    return FALSE;
  }
  GST_DEBUG ("%dx%d %s frames: %" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT
      " bytes", GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in),
      GST_VIDEO_INFO_NAME (in), rows, pitch);
  s->block = block;
  s->data = data;
  s->pitch = pitch;
  s->rows = rows;

  return TRUE;
}

/* Launches @kernel with @args on a grid of blocks of @threads threads,
 * each doing @per_thread of a row's @columns, and a block row per row of
 * @rows (at most 65535: the kernels loop past it). The kernels' context
 * is pushed. */
static gboolean
stand_in_run (GstCudaCacheStandIn * s, gint kernel, gint columns,
    gint per_thread, gint rows, gint threads, CUstream stream, void **args)
{
  gint per_block = threads * per_thread;

  return gst_cuda_result (CuLaunchKernel (gst_cuda_cache_kernels_get_function
          (s->kernels, kernel), (columns + per_block - 1) / per_block,
          MIN (rows, 65535), 1, threads, 1, 1, 0, stream, args, NULL));
}

gboolean
gst_cuda_cache_stand_in_launch (GstCudaCacheStandIn * s,
    const GstVideoInfo * in, const gfloat yuv_to_rgb[12],
    guint chroma_site, CUstream stream, guintptr data[3], gint stride[3])
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (in);
  gint width = GST_VIDEO_INFO_WIDTH (in), height = GST_VIDEO_INFO_HEIGHT (in);
  CUdeviceptr dst = 0, dst_uv = 0;
  gint pitch;
  gboolean ok;

  g_return_val_if_fail (s != NULL, FALSE);
  g_return_val_if_fail (format == GST_VIDEO_FORMAT_YUY2 ||
      format == GST_VIDEO_FORMAT_UYVY || GST_VIDEO_INFO_COMP_DEPTH (in, 0) > 8,
      FALSE);

  if (!gst_cuda_cache_stand_in_reserve (s, in))
    return FALSE;
  if (s->pitch > G_MAXINT) {
    GST_ERROR ("a pitch of %" G_GSIZE_FORMAT " bytes", s->pitch);
    return FALSE;
  }
  pitch = (gint) s->pitch;
  dst = s->data;

  if (!gst_cuda_context_push (gst_cuda_cache_kernels_get_context (s->kernels))) {
    GST_ERROR ("could not push the CUDA context");
    return FALSE;
  }
  switch (format) {
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:{
      gint order = format == GST_VIDEO_FORMAT_YUY2 ? CONVERT_ORDER_YUY2 :
          CONVERT_ORDER_UYVY;
      gint cosited = gst_cuda_cache_plan_chroma_site (chroma_site) &
          CONVERT_CHROMA_H_COSITED;
      ConvertMatrix m;
      void *args[] = { &data[0], &stride[0], &dst, &pitch, &width, &height,
        &order, &cosited, &m
      };

      memcpy (m.m, yuv_to_rgb, sizeof (m.m));
      ok = stand_in_run (s, GST_CUDA_CACHE_KERNEL_ID
          (gst_cuda_cache_unpack_422), width, 1, height,
          CONVERT_UNPACK_THREADS, stream, args);
      break;
    }
    default:{
      gint depth = GST_VIDEO_INFO_COMP_DEPTH (in, 0);
      void *args[] = { &data[0], &stride[0], &data[1], &stride[1], &dst,
        &pitch, &dst_uv, &pitch, &width, &height, &depth
      };

      dst_uv = s->data + (CUdeviceptr) height *s->pitch;
      /* a thread narrows CONVERT_NARROW_SAMPLES samples; block rows loop
       * over the frame's luma rows, then its chroma rows */
      ok = stand_in_run (s, GST_CUDA_CACHE_KERNEL_ID
          (gst_cuda_cache_narrow_16), 2 * ((width + 1) / 2),
          CONVERT_NARROW_SAMPLES, height + (height + 1) / 2,
          CONVERT_NARROW_THREADS, stream, args);
      break;
    }
  }
  gst_cuda_context_pop (NULL);
  if (!ok)
    return FALSE;

  switch (format) {
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      data[0] = (guintptr) dst;
      data[1] = data[2] = 0;
      stride[0] = pitch;
      stride[1] = stride[2] = 0;
      break;
    default:
      data[0] = (guintptr) dst;
      data[1] = (guintptr) dst_uv;
      data[2] = 0;
      stride[0] = stride[1] = pitch;
      stride[2] = 0;
      break;
  }

  return TRUE;
}

void
gst_cuda_cache_stand_in_free (GstCudaCacheStandIn * s)
{
  if (!s)
    return;

  /* no conversion reads it any more: back to the cache */
  g_clear_pointer (&s->block, gst_memory_unref);
  g_free (s);
}
