/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Converter configs and geometry, as the suites use them: shorthands over
 * the public API. */

#ifndef __CUDACACHE_CONFIG_H__
#define __CUDACACHE_CONFIG_H__

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/cudacache/cudacache.h>

static inline void
test_config_set_triple (GstStructure * config, const gchar * field,
    const gdouble values[3])
{
  GValue array = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&array, 3);
  for (i = 0; i < 3; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, values[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (config, field, &array);
}

/* A config of the options the tensor tests vary */
static inline GstStructure *
test_config_new (gboolean letterbox, guint fill,
    GstCudaCacheChannelOrder order, gdouble scale, const gdouble mean[3],
    const gdouble std[3])
{
  GstStructure *config = gst_structure_new ("GstCudaCacheConverter.config",
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, G_TYPE_BOOLEAN, letterbox,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, G_TYPE_UINT, fill,
      GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
      GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, order,
      GST_CUDA_CACHE_CONVERTER_OPT_SCALE, G_TYPE_DOUBLE, scale, NULL);

  test_config_set_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN, mean);
  test_config_set_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_STD, std);

  return config;
}

/* Where @conv puts the picture of a frame without a crop meta */
static inline gboolean
test_picture_rect (GstCudaCacheConverter * conv, GstVideoRectangle * rect)
{
  GstCudaCachePictureGeometry geometry;

  memset (rect, 0, sizeof (*rect));
  if (!gst_cuda_cache_converter_get_geometry (conv, NULL, &geometry, NULL))
    return FALSE;
  *rect = geometry.picture;
  return TRUE;
}

/* The picture meta of @conv's conversion of @inbuf, put on @outbuf */
static inline GstCudaCachePictureMeta *
test_add_picture_meta (GstCudaCacheConverter * conv, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaCachePictureGeometry geometry;

  if (!gst_cuda_cache_converter_get_geometry (conv, inbuf, &geometry, NULL))
    return NULL;
  return gst_buffer_add_cuda_cache_picture_meta (outbuf, &geometry);
}

#endif /* __CUDACACHE_CONFIG_H__ */
