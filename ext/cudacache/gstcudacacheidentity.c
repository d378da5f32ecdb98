/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:element-cudacacheidentity
 * @title: cudacacheidentity
 *
 * Passes frames and tensors through untouched and offers upstream a buffer
 * pool over the shared cache: a #GstCudaCachePool for CUDA memory (which
 * `cudaupload`, NVDEC decoders and `cudacacheconvert` take), a
 * #GstCudaCacheSystemPool for system memory. Upstream's allocations then
 * survive caps changes: caps seen before are served from the cache.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudaupload ! \
 *     cudacacheidentity stats-interval=1000 ! cudadownload ! fakesink -m
 * ]|
 * Without a GPU the same element works on system memory:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     cudacacheidentity stats-interval=1000 ! fakesink -m
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudacacheidentity.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_identity_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_identity_debug

/* the formats the pools lay out: GRAY8 in system memory only */
#define IDENTITY_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      GST_CUDA_CACHE_POOL_FORMATS) "; " \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME "(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), " \
      "format = (string) static, num_tensors = (int) 1; " \
  GST_VIDEO_CAPS_MAKE (GST_CUDA_CACHE_SYSTEM_POOL_FORMATS) "; " \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME ", format = (string) static, " \
      "num_tensors = (int) 1"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (IDENTITY_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (IDENTITY_CAPS));

struct _GstCudaCacheIdentity
{
  GstCudaCacheBaseTransform parent;
};

#define gst_cuda_cache_identity_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheIdentity, gst_cuda_cache_identity,
    GST_TYPE_CUDA_CACHE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudacacheidentity, "cudacacheidentity",
    GST_RANK_NONE, GST_TYPE_CUDA_CACHE_IDENTITY);

static void
gst_cuda_cache_identity_class_init (GstCudaCacheIdentityClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA cache identity", "Filter/Video/Hardware",
      "Passes frames through and offers upstream a buffer pool over the "
      "shared CUDA (or system-memory) cache, so caps changes reuse memory",
      "the gst-cuda-cache authors");

  trans_class->passthrough_on_same_caps = TRUE;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_identity_debug, "cudacacheidentity",
      0, "CUDA cache: identity element");
}

static void
gst_cuda_cache_identity_init (GstCudaCacheIdentity * self)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
