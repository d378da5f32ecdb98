/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_CONVERT_OPTIONS_H__
#define __GST_CUDA_CACHE_CONVERT_OPTIONS_H__

#include <gst/gst.h>
#include <gst/cudacache/cudacache.h>

/* The caps of what the elements that convert take and make */
#define CONVERT_CUDA_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, " \
  "BGR }"
/* GRAY8 in system memory only: GStreamer 1.22's CUDA allocator has no
 * layout for it */
#define CONVERT_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR, " \
  "GRAY8 }"
#define CONVERT_IN_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR, " \
  "GRAY8, P010_10LE, P016_LE, YUY2, UYVY }"
#define CONVERT_TYPES "{ float32, float16, uint8 }"
#define CONVERT_LAYOUTS "{ NCHW, NHWC }"

#define VIDEO_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      formats) "; " \
  GST_VIDEO_CAPS_MAKE (formats)

#define CONVERT_CUDA_IN_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, " \
  "RGB, BGR, P010_10LE, P016_LE, YUY2, UYVY }"

#define SINK_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      CONVERT_CUDA_IN_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (CONVERT_IN_FORMATS)

/* the fields a tensor's caps may name; dimensions, a string, is checked by
 * the converter */
#define TENSOR_FIELDS ", format = (string) static, num_tensors = (int) 1, " \
  "types = (string) " CONVERT_TYPES ", layout = (string) " CONVERT_LAYOUTS
#define TENSOR_CAPS(features) \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME features TENSOR_FIELDS

G_BEGIN_DECLS

/* The conversion's options, as properties of every element that converts
 * (method, letterbox, letterbox-position, fill-value, fill-rgb,
 * channel-order, scale, mean, std): one definition of their specs, checks
 * and the converter's config they make. Fields under the element's object
 * lock. */
typedef struct
{
  GstCudaCacheResizeMethod method;
  gboolean letterbox;
  GstCudaCacheLetterboxPosition position;
  guint fill[3];                /* red, green, blue */
  GstCudaCacheChannelOrder channel_order;
  gdouble scale;
  gdouble mean[3];
  gdouble std[3];
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
