/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The resampling presets' pass on the device (gstcudacachekernels-private.h):
 * gstcudacacheresample.c's tables uploaded once per set of params into a
 * block of the device's cache, the RGBx frame of the picture's size
 * another, and kernels/resample.cu launched into it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachekernels-private.h"
#include "gstcudacacheplan-private.h"
#include "gstcudacacheresample-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

struct _GstCudaCachePreset
{
  GstCudaCacheKernels *kernels;
  PresetParams params;          /* its table's and frame's pointers set */
  GstMemory *table_block;
  GstMemory *frame_block;
};

GstCudaCachePreset *
gst_cuda_cache_preset_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  GstCudaCachePreset *preset;
  GstCudaCacheResampler *r;
  PresetParams *p;
  GArray *table;
  CUdeviceptr data;
  gsize pitch;
  gint format;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (params->method != GST_CUDA_CACHE_RESIZE_METHOD_LINEAR,
      NULL);

  gst_cuda_cache_kernels_init_debug ();

  format = gst_cuda_cache_plan_format (params->in_format);
  if (format < 0 || format >= CONVERT_FORMAT_TENSOR) {
    GST_ERROR ("the presets' pass does not read %s",
        gst_video_format_to_string (params->in_format));
    return NULL;
  }
  r = gst_cuda_cache_resampler_new (params->method, params->in_width,
      params->in_height, params->dest_width, params->dest_height);
  if (!r)
    return NULL;

  preset = g_new0 (GstCudaCachePreset, 1);
  preset->kernels = kernels;
  p = &preset->params;
  p->in_format = format;
  if (!gst_cuda_cache_plan_is_yuv (format))
    gst_cuda_cache_plan_packed_layout (format, &p->in_r, &p->in_g, &p->in_b,
        &p->in_pixel_bytes);
  p->chroma_site = gst_cuda_cache_plan_chroma_site (params->in_chroma_site);
  memcpy (p->yuv_to_rgb, params->yuv_to_rgb, sizeof (p->yuv_to_rgb));

  table = g_array_new (FALSE, FALSE, sizeof (gint32));
  gst_cuda_cache_resampler_kernel_table (r, p, table);
  gst_cuda_cache_resampler_free (r);

  /* a kind without arrays still gets a block: the pointer is never 0 */
  preset->table_block = gst_cuda_cache_kernels_acquire (kernels,
      MAX (table->len, 1) * sizeof (gint32), 1, &data, &pitch);
  if (preset->table_block) {
    p->tab = data;
    if (table->len > 0 && !gst_cuda_cache_kernels_upload (kernels, data,
            table->data, table->len * sizeof (gint32)))
      g_clear_pointer (&preset->table_block, gst_memory_unref);
  }
  GST_DEBUG ("%s: %dx%d to %dx%d, kind %d, a table of %u values",
      gst_video_format_to_string (params->in_format), p->in_width,
      p->in_height, p->out_width, p->out_height, p->kind, table->len);
  g_array_unref (table);

  if (preset->table_block)
    preset->frame_block = gst_cuda_cache_kernels_acquire (kernels,
        (gsize) p->out_width * 4, p->out_height, &data, &pitch);
  if (!preset->frame_block || pitch > G_MAXINT) {
    GST_WARNING ("no device memory for the presets' %dx%d RGBx frame or "
        "their table", p->out_width, p->out_height);
    gst_cuda_cache_preset_free (preset);
    return NULL;
  }
  p->out_data = data;
  p->out_stride = (gint) pitch;

  return preset;
}

gboolean
gst_cuda_cache_preset_launch (GstCudaCachePreset * preset, CUstream stream,
    guintptr data[3], gint stride[3])
{
  PresetParams p;
  void *args[] = { &p };
  gint i;
  gboolean ok;

  g_return_val_if_fail (preset != NULL, FALSE);

  p = preset->params;
  for (i = 0; i < 3; i++) {
    p.in_data[i] = data[i];
    p.in_stride[i] = stride[i];
  }

  if (!gst_cuda_context_push (gst_cuda_cache_kernels_get_context
          (preset->kernels))) {
    GST_ERROR ("could not push the CUDA context");
    return FALSE;
  }
  ok = gst_cuda_result (CuLaunchKernel (gst_cuda_cache_kernels_get_function
          (preset->kernels, GST_CUDA_CACHE_KERNEL_ID
              (gst_cuda_cache_resample_preset)),
          (p.out_width + PRESET_BLOCK_W - 1) / PRESET_BLOCK_W,
          MIN ((p.out_height + PRESET_BLOCK_H - 1) / PRESET_BLOCK_H, 65535), 1,
          PRESET_BLOCK_W, PRESET_BLOCK_H, 1, 0, stream, args, NULL));
  gst_cuda_context_pop (NULL);
  if (!ok)
    return FALSE;

  data[0] = (guintptr) p.out_data;
  data[1] = data[2] = 0;
  stride[0] = p.out_stride;
  stride[1] = stride[2] = 0;

  return TRUE;
}

void
gst_cuda_cache_preset_free (GstCudaCachePreset * preset)
{
  if (!preset)
    return;

  /* no conversion reads them any more: back to the cache */
  g_clear_pointer (&preset->table_block, gst_memory_unref);
  g_clear_pointer (&preset->frame_block, gst_memory_unref);
  g_free (preset);
}
