/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The conversion set up: the parameters of a converter's caps, options and
 * input crop, and the back ends made for them, for the front end and the
 * batches alike. A frame whose crop meta differs from the last sets the
 * conversion up again here, before either converts it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacacheconverter-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_converter_debug

gboolean
gst_cuda_cache_converter_conversion_params (const GstCudaCacheConverterInfo *
    info, const GstStructure * config, const GstCudaCacheInputCrop * crop,
    GstCudaCacheConvertParams * params, GError ** error)
{
  GstCudaCacheConverterOptions options;
  GstVideoRectangle source;

  gst_cuda_cache_converter_options_init (&options);
  if (!gst_cuda_cache_converter_options_parse (&options, config, error) ||
      !gst_cuda_cache_convert_params_source (&info->in_info, &options, crop,
          &source, error))
    return FALSE;
  gst_cuda_cache_convert_params_fill (params, info, &options, &source);

  return TRUE;
}

gboolean
gst_cuda_cache_converter_configure (GstCudaCacheConverter * self,
    const GstCudaCacheConverterInfo * info, const GstStructure * config,
    GError ** error)
{
  GstCudaCacheConvertParams params;
  GstCudaCacheConverterCpu *cpu = NULL;

  if (!gst_cuda_cache_converter_conversion_params (info, config,
          self->has_crop ? &self->crop : NULL, &params, error))
    return FALSE;

  /* the CUDA back end where there is a context, the CPU's where not: each
   * is ready for the first frame and refuses what it cannot do now */
  if (self->context) {
    if (!self->cuda)
      self->cuda = gst_cuda_cache_converter_cuda_new (self->context, error);
    if (!self->cuda ||
        !gst_cuda_cache_converter_cuda_set_params (self->cuda, info, &params,
            error))
      return FALSE;
  } else {
    cpu = gst_cuda_cache_converter_cpu_new (info, &params, self->cpu, error);
    if (!cpu)
      return FALSE;
  }

  /* a converter with a context makes its CPU back end again, for these
   * caps, when system memory comes */
  g_clear_pointer (&self->cpu, gst_cuda_cache_converter_cpu_free);
  self->cpu = cpu;
  self->info = *info;
  if (config != self->config) {
    gst_structure_free (self->config);
    self->config = gst_structure_copy (config);
  }
  self->params = params;

  GST_DEBUG_OBJECT (self, "%dx%d %s -> %dx%d %s, picture at %d,%d %dx%d",
      params.in_width, params.in_height, GST_VIDEO_INFO_NAME (&info->in_info),
      params.out_width, params.out_height, info->tensor_out ? "tensor" :
      GST_VIDEO_INFO_NAME (&info->out_info), params.dest_x, params.dest_y,
      params.dest_width, params.dest_height);

  return TRUE;
}

gboolean
gst_cuda_cache_converter_input_crop (GstCudaCacheConverter * self,
    GstBuffer * inbuf, GstCudaCacheInputCrop * crop)
{
  GstVideoCropMeta *meta = inbuf ? gst_buffer_get_video_crop_meta (inbuf) :
      NULL;
  GstVideoMeta *vmeta = meta ? gst_buffer_get_video_meta (inbuf) : NULL;

  memset (crop, 0, sizeof (*crop));
  if (!meta)
    return FALSE;
  crop->width = vmeta ? (gint) vmeta->width :
      GST_VIDEO_INFO_WIDTH (&self->info.in_info);
  crop->height = vmeta ? (gint) vmeta->height :
      GST_VIDEO_INFO_HEIGHT (&self->info.in_info);
  crop->visible.x = (gint) meta->x;
  crop->visible.y = (gint) meta->y;
  crop->visible.w = (gint) meta->width;
  crop->visible.h = (gint) meta->height;

  return TRUE;
}

gboolean
gst_cuda_cache_converter_crop_is_set_up (GstCudaCacheConverter * self,
    gboolean has_crop, const GstCudaCacheInputCrop * crop)
{
  return self->has_crop == has_crop && (!has_crop ||
      memcmp (crop, &self->crop, sizeof (*crop)) == 0);
}

gboolean
gst_cuda_cache_converter_follow_crop (GstCudaCacheConverter * self,
    GstBuffer * inbuf, GError ** error)
{
  GstCudaCacheInputCrop crop, old = self->crop;
  gboolean has_crop = gst_cuda_cache_converter_input_crop (self, inbuf, &crop);
  gboolean had = self->has_crop;

  if (gst_cuda_cache_converter_crop_is_set_up (self, has_crop, &crop))
    return TRUE;

  self->has_crop = has_crop;
  self->crop = crop;
  if (!gst_cuda_cache_converter_configure (self, &self->info, self->config,
          error)) {
    self->has_crop = had;
    self->crop = old;
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "converting %dx%d at %d,%d of the buffer's frame "
      "(%s)", self->params.in_width, self->params.in_height,
      self->params.src_x, self->params.src_y, has_crop ? "its crop meta" :
      "no crop meta");

  return TRUE;
}

GstCudaCacheConverterCpu *
gst_cuda_cache_converter_get_cpu (GstCudaCacheConverter * self, GError ** error)
{
  if (!self->cpu)
    self->cpu = gst_cuda_cache_converter_cpu_new (&self->info, &self->params,
        NULL, error);

  return self->cpu;
}
