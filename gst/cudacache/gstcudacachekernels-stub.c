/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The CUDA kernels' entry points (gstcudacachekernels-private.h) in a
 * library built without them (no nvcc): there are never kernels to load,
 * so every plan, signal and stand-in frame is refused where it would be
 * made, and the converter converts system memory only. Built instead of
 * gstcudacachekernels.c and gstcudacachestandin.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachekernels-private.h"
#include "gstcudacacheplan-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

gboolean
gst_cuda_cache_kernels_built (void)
{
  return FALSE;
}

GstCudaCacheKernels *
gst_cuda_cache_kernels_new (GstCudaContext * context)
{
  gst_cuda_cache_kernels_init_debug ();
  GST_INFO ("the library was built without its CUDA kernels (no nvcc)");

  return NULL;
}

GstCudaContext *
gst_cuda_cache_kernels_get_context (GstCudaCacheKernels * kernels)
{
  return NULL;
}

void
gst_cuda_cache_kernels_free (GstCudaCacheKernels * kernels)
{
  g_return_if_fail (kernels == NULL);
}

GstCudaCacheKernelPlan *
gst_cuda_cache_kernel_plan_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  g_return_val_if_reached (NULL);
}

gboolean
gst_cuda_cache_kernel_plan_launch (GstCudaCacheKernelPlan * plan,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done, GstCudaCacheDeviceGraph ** graph)
{
  g_return_val_if_reached (FALSE);
}

void
gst_cuda_cache_kernel_plan_free (GstCudaCacheKernelPlan * plan)
{
  g_return_if_fail (plan == NULL);
}

GstCudaCacheKernelBatch *
gst_cuda_cache_kernel_batch_new (GstCudaCacheKernels * kernels)
{
  g_return_val_if_reached (NULL);
}

gboolean
gst_cuda_cache_kernel_batch_launch (GstCudaCacheKernelBatch * batch,
    const GstCudaCacheKernelBatchSlot * slots, guint n, CUstream stream,
    GstCudaCacheKernelDone * done, guint * n_launches)
{
  g_return_val_if_reached (FALSE);
}

void
gst_cuda_cache_kernel_batch_free (GstCudaCacheKernelBatch * batch)
{
  g_return_if_fail (batch == NULL);
}

GstCudaCacheKernelDone *
gst_cuda_cache_kernel_done_new (GstCudaCacheKernels * kernels)
{
  g_return_val_if_reached (NULL);
}

gboolean
gst_cuda_cache_kernels_wait (GstCudaCacheKernels * kernels, CUstream stream,
    GstCudaCacheKernelDone * done)
{
  g_return_val_if_reached (FALSE);
}

gboolean
gst_cuda_cache_kernels_wait_for (GstCudaCacheKernels * kernels,
    CUstream stream, GstCudaCacheKernelDone * done, guint32 seq)
{
  g_return_val_if_reached (FALSE);
}

guint32
gst_cuda_cache_kernel_done_get_seq (GstCudaCacheKernelDone * done)
{
  g_return_val_if_reached (0);
}

void
gst_cuda_cache_kernel_done_free (GstCudaCacheKernelDone * done)
{
  g_return_if_fail (done == NULL);
}

GstCudaCacheStandIn *
gst_cuda_cache_stand_in_new (GstCudaCacheKernels * kernels)
{
  g_return_val_if_reached (NULL);
}

gboolean
gst_cuda_cache_stand_in_reserve (GstCudaCacheStandIn * stand_in,
    const GstVideoInfo * in)
{
  g_return_val_if_reached (FALSE);
}

gboolean
gst_cuda_cache_stand_in_launch (GstCudaCacheStandIn * stand_in,
    const GstVideoInfo * in, const gfloat yuv_to_rgb[12], guint chroma_site,
    CUstream stream, guintptr data[3], gint stride[3])
{
  g_return_val_if_reached (FALSE);
}

void
gst_cuda_cache_stand_in_free (GstCudaCacheStandIn * stand_in)
{
  g_return_if_fail (stand_in == NULL);
}

GstCudaCachePreset *
gst_cuda_cache_preset_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  g_return_val_if_reached (NULL);
}

gboolean
gst_cuda_cache_preset_launch (GstCudaCachePreset * preset,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done, GstCudaCacheDeviceGraph ** graph)
{
  g_return_val_if_reached (FALSE);
}

void
gst_cuda_cache_preset_free (GstCudaCachePreset * preset)
{
  g_return_if_fail (preset == NULL);
}

gboolean
gst_cuda_cache_kernels_upload (GstCudaCacheKernels * kernels, CUdeviceptr dst,
    gconstpointer src, gsize bytes)
{
  g_return_val_if_reached (FALSE);
}
