/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* 16-bit 4:2:0 input (P010_10LE, P016_LE) for the CUDA kernels: the
 * narrowing pass (kernels/narrow.cu) writes the 8-bit NV12 frame that a
 * plan of NV12 input then converts, into a block of the device's cache
 * that grows with the frames (gstcudacachekernels-private.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachekernels-private.h"
#include "gstcudacacheplan-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

struct _GstCudaCacheNarrowed
{
  GstCudaCacheKernels *kernels;
  GstMemory *block;             /* of the device's cache, or NULL */
  CUdeviceptr data;             /* luma rows, then chroma rows, at pitch */
  gsize pitch;
  gsize rows;
};

GstCudaCacheNarrowed *
gst_cuda_cache_narrowed_new (GstCudaCacheKernels * kernels)
{
  GstCudaCacheNarrowed *n;

  g_return_val_if_fail (kernels != NULL, NULL);

  gst_cuda_cache_kernels_init_debug ();

  n = g_new0 (GstCudaCacheNarrowed, 1);
  n->kernels = kernels;

  return n;
}

gboolean
gst_cuda_cache_narrowed_reserve (GstCudaCacheNarrowed * n, gint width,
    gint height)
{
  gsize row_bytes, rows, pitch = 0;
  CUdeviceptr data = 0;
  GstMemory *block;

  g_return_val_if_fail (n != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0, FALSE);

  row_bytes = 2 * (((gsize) width + 1) / 2);
  rows = (gsize) height + ((gsize) height + 1) / 2;
  if (n->block && row_bytes <= n->pitch && rows <= n->rows)
    return TRUE;

  /* the old frame's last conversion was waited for: it goes back to the
   * cache, which frees it off this thread if it does not keep it */
  g_clear_pointer (&n->block, gst_memory_unref);
  n->data = 0;
  n->pitch = n->rows = 0;

  block = gst_cuda_cache_kernels_acquire (n->kernels, row_bytes, rows, &data,
      &pitch);
  if (!block) {
    GST_WARNING ("no device memory for %" G_GSIZE_FORMAT " rows of %"
        G_GSIZE_FORMAT " bytes", rows, row_bytes);
    return FALSE;
  }
  GST_DEBUG ("%dx%d frames: %" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT
      " bytes", width, height, rows, pitch);
  n->block = block;
  n->data = data;
  n->pitch = pitch;
  n->rows = rows;

  return TRUE;
}

gboolean
gst_cuda_cache_narrowed_launch (GstCudaCacheNarrowed * n,
    const guintptr src[2], const gint src_stride[2], gint width, gint height,
    gint depth, CUstream stream, guintptr data[3], gint stride[3])
{
  GstCudaContext *context;
  CUfunction narrow;
  CUdeviceptr dst_y, dst_uv;
  gint src_y_stride = src_stride[0], src_uv_stride = src_stride[1];
  gint pitch, chroma_w = 2 * ((width + 1) / 2);
  void *args[] = { (void *) &src[0], &src_y_stride, (void *) &src[1],
    &src_uv_stride, &dst_y, &pitch, &dst_uv, &pitch, &width, &height, &depth
  };
  gboolean ok;

  g_return_val_if_fail (n != NULL, FALSE);
  g_return_val_if_fail (depth > 8 && depth <= 16, FALSE);

  if (!gst_cuda_cache_narrowed_reserve (n, width, height))
    return FALSE;
  if (n->pitch > G_MAXINT) {
    GST_ERROR ("a pitch of %" G_GSIZE_FORMAT " bytes", n->pitch);
    return FALSE;
  }
  pitch = (gint) n->pitch;
  dst_y = n->data;
  dst_uv = n->data + (CUdeviceptr) height *n->pitch;

  context = gst_cuda_cache_kernels_get_context (n->kernels);
  narrow = gst_cuda_cache_kernels_get_function (n->kernels,
      GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_narrow_16));
  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return FALSE;
  }
  /* block rows loop over the frame's rows past a grid's 65535 */
  ok = gst_cuda_result (CuLaunchKernel (narrow,
          (chroma_w + CONVERT_NARROW_THREADS * CONVERT_NARROW_SAMPLES - 1) /
          (CONVERT_NARROW_THREADS * CONVERT_NARROW_SAMPLES),
          MIN (height + (height + 1) / 2, 65535), 1, CONVERT_NARROW_THREADS, 1,
          1, 0, stream, args, NULL));
  gst_cuda_context_pop (NULL);
  if (!ok)
    return FALSE;

  data[0] = (guintptr) dst_y;
  data[1] = (guintptr) dst_uv;
  data[2] = 0;
  stride[0] = stride[1] = pitch;
  stride[2] = 0;

  return TRUE;
}

void
gst_cuda_cache_narrowed_free (GstCudaCacheNarrowed * n)
{
  if (!n)
    return;

  /* no conversion reads it any more: back to the cache */
  g_clear_pointer (&n->block, gst_memory_unref);
  g_free (n);
}
