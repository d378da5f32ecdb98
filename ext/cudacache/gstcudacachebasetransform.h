/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_BASE_TRANSFORM_H__
#define __GST_CUDA_CACHE_BASE_TRANSFORM_H__

#include <gst/base/gstbasetransform.h>
#include <gst/cudacache/cudacache.h>

#include "gstcudacacheelementstate.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_BASE_TRANSFORM (gst_cuda_cache_base_transform_get_type ())
#define GST_CUDA_CACHE_BASE_TRANSFORM(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CUDA_CACHE_BASE_TRANSFORM, GstCudaCacheBaseTransform))
#define GST_IS_CUDA_CACHE_BASE_TRANSFORM(obj) (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CUDA_CACHE_BASE_TRANSFORM))
#define GST_CUDA_CACHE_BASE_TRANSFORM_CLASS(klass) (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CUDA_CACHE_BASE_TRANSFORM, GstCudaCacheBaseTransformClass))
#define GST_CUDA_CACHE_BASE_TRANSFORM_GET_CLASS(obj) (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CUDA_CACHE_BASE_TRANSFORM, GstCudaCacheBaseTransformClass))

typedef struct _GstCudaCacheBaseTransform GstCudaCacheBaseTransform;
typedef struct _GstCudaCacheBaseTransformClass GstCudaCacheBaseTransformClass;
typedef struct _GstCudaCacheBaseTransformPrivate GstCudaCacheBaseTransformPrivate;

/* The caps both elements take: video frames and tensors, in CUDA memory
 * (GST_CUDA_CACHE_POOL_FORMATS) or system memory (GRAY8 too). */

#define GST_CUDA_CACHE_TENSOR_CAPS \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME ", format = (string) static, " \
  "num_tensors = (int) 1, types = (string) { uint8, float16, float32 }"

/**
 * GstCudaCacheBaseTransform:
 *
 * What cudacacheidentity and cudacacheconvert share: the CUDA context (the
 * pipeline's, the application's, or one shared per device), the pools they
 * keep across renegotiations, the cache their memory comes from (the
 * device's for CUDA memory, the system cache otherwise), its properties and
 * the stats message.
 */
struct _GstCudaCacheBaseTransform
{
  GstBaseTransform parent;

  /* < private >: the context (NULL where there is no device; subclasses
   * get it in set_info), the device, the cache of the negotiated memory,
   * its limit and the stats, as every element keeps them, under the
   * object lock (gstcudacacheelementstate.h) */
  GstCudaCacheElementState state;

  GstCudaCacheBaseTransformPrivate *priv;
};

/**
 * GstCudaCacheBaseTransformClass:
 * @parent_class: the parent class
 * @set_info: called by the base class's set_caps once it has chosen the
 *     output's memory and cache, for the subclass to set up its conversion
 *     for @incaps to @outcaps; @context is the CUDA context of the output
 *     memory (%NULL for system memory). Not called in passthrough. Return
 *     %FALSE to refuse the caps (after posting an error).
 *
 * The base class implements propose_allocation (downstream's answer, then
 * a pool over the cache for upstream) and decide_allocation (downstream's
 * pool if it is one of the cache's for this memory, else one of the
 * element's kept pools), set_caps (the cache of the negotiated memory and
 * the element's cache-limit), the CUDA context and the element's stream:
 * subclasses override none of them.
 */
struct _GstCudaCacheBaseTransformClass
{
  GstBaseTransformClass parent_class;

  gboolean (*set_info) (GstCudaCacheBaseTransform * self, GstCaps * incaps,
      GstCaps * outcaps, GstCudaContext * context);
};

GType gst_cuda_cache_base_transform_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCudaCacheBaseTransform, gst_object_unref)

CUstream gst_cuda_cache_base_transform_get_stream (GstCudaCacheBaseTransform * self);

gboolean gst_cuda_cache_base_transform_refuse_caps (GstCudaCacheBaseTransform * self,
    GstCaps * caps);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_BASE_TRANSFORM_H__ */
