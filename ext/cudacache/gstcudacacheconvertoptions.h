/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_CONVERT_OPTIONS_H__
#define __GST_CUDA_CACHE_CONVERT_OPTIONS_H__

#include <gst/gst.h>
#include <gst/cudacache/cudacache.h>

/* The caps of what the elements that convert take and make: the
 * converter's formats (GST_CUDA_CACHE_CONVERTER_*_FORMATS) and tensors */
#define CONVERT_TYPES "{ float32, float16, uint8 }"
#define CONVERT_LAYOUTS "{ NCHW, NHWC }"

#define VIDEO_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      formats) "; " \
  GST_VIDEO_CAPS_MAKE (formats)

#define SINK_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      GST_CUDA_CACHE_CONVERTER_CUDA_INPUT_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (GST_CUDA_CACHE_CONVERTER_INPUT_FORMATS)

/* the fields a tensor's caps may name; dimensions, a string, is checked by
 * the converter */
#define TENSOR_FIELDS ", format = (string) static, num_tensors = (int) 1, " \
  "types = (string) " CONVERT_TYPES ", layout = (string) " CONVERT_LAYOUTS
#define TENSOR_CAPS(features) \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME features TENSOR_FIELDS

G_BEGIN_DECLS

/* The conversion's options, as properties of every element that converts
 * (method, letterbox, letterbox-position, fill-value, fill-rgb,
 * channel-order, scale, mean, std): their specs, over the converter's
 * config, which the library checks. Fields under the element's object
 * lock. */
typedef struct
{
  /* every option, canonical (gst_cuda_cache_converter_check_config ()):
   * what the properties read and write */
  GstStructure *config;
  gboolean changed;             /* since the config was last taken */
  /* a value refused before the element had a bus: posted as a warning
   * when it leaves NULL (gst_cuda_cache_convert_options_post_refusal ()) */
  gchar *refusal;
} GstCudaCacheConvertOptions;

/* the properties' ids, from the first an element gives */
enum
{
  GST_CUDA_CACHE_CONVERT_OPTION_METHOD,
  GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX,
  GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX_POSITION,
  GST_CUDA_CACHE_CONVERT_OPTION_FILL_VALUE,
  GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB,
  GST_CUDA_CACHE_CONVERT_OPTION_CHANNEL_ORDER,
  GST_CUDA_CACHE_CONVERT_OPTION_SCALE,
  GST_CUDA_CACHE_CONVERT_OPTION_MEAN,
  GST_CUDA_CACHE_CONVERT_OPTION_STD,
  GST_CUDA_CACHE_CONVERT_N_OPTIONS
};

void gst_cuda_cache_convert_options_init (GstCudaCacheConvertOptions * o);

void gst_cuda_cache_convert_options_clear (GstCudaCacheConvertOptions * o);

/* Installs the properties as ids @first_id .. @first_id +
 * GST_CUDA_CACHE_CONVERT_N_OPTIONS - 1. */
void gst_cuda_cache_convert_options_install (GObjectClass * klass,
    guint first_id);

/* set_property and get_property for option @option (the property's id
 * less @first_id); a refused value keeps the previous one and is posted
 * as a warning on @element's bus. */
void gst_cuda_cache_convert_options_set (GstCudaCacheConvertOptions * o,
    GstElement * element, guint option, const GValue * value);

void gst_cuda_cache_convert_options_get (GstCudaCacheConvertOptions * o,
    GstElement * element, guint option, GValue * value);

/* The converter's config; clears changed. */
GstStructure *gst_cuda_cache_convert_options_take_config
    (GstCudaCacheConvertOptions * o, GstElement * element);

/* Posts a refusal kept while @element had no bus; from NULL_TO_READY. */
void gst_cuda_cache_convert_options_post_refusal (GstCudaCacheConvertOptions *
    o, GstElement * element);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERT_OPTIONS_H__ */
