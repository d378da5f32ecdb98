/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef __GST_CUDA_CACHE_BASE_TRANSFORM_H__
#define __GST_CUDA_CACHE_BASE_TRANSFORM_H__

#include <gst/base/gstbasetransform.h>
#include <gst/cudacache/cudacache.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_BASE_TRANSFORM (gst_cuda_cache_base_transform_get_type ())
#define GST_CUDA_CACHE_BASE_TRANSFORM(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CUDA_CACHE_BASE_TRANSFORM, GstCudaCacheBaseTransform))
#define GST_IS_CUDA_CACHE_BASE_TRANSFORM(obj) (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CUDA_CACHE_BASE_TRANSFORM))

typedef struct _GstCudaCacheBaseTransform GstCudaCacheBaseTransform;
typedef struct _GstCudaCacheBaseTransformClass GstCudaCacheBaseTransformClass;
typedef struct _GstCudaCacheBaseTransformPrivate GstCudaCacheBaseTransformPrivate;

/* The caps both elements take: video frames and tensors, in CUDA memory or
 * system memory. */
#define GST_CUDA_CACHE_VIDEO_FORMATS \
  "{ I420, YV12, NV12, NV21, P010_10LE, P016_LE, I420_10LE, Y444, " \
  "Y444_16LE, Y42B, I422_10LE, I422_12LE, RGBA, BGRA, RGBx, BGRx, ARGB, " \
  "ABGR, RGB, BGR, RGBP, BGRP, GBR, GBRA, BGR10A2_LE, RGB10A2_LE, YUY2, " \
  "UYVY }"

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

  /* < protected > */
  GstCudaContext *context;      /* NULL where there is no device */
  gboolean cuda_memory;         /* negotiated output is CUDA memory */

  /* < private >, under the object lock */
  gint device_id;
  GstCudaCache *cache;          /* the cache of the negotiated memory */
  guint64 limit_bytes;          /* the last cache-limit set on the element */
  gint64 limit_asked_at;        /* when, in monotonic time; 0: never */
  GstCudaCache *limit_cache;    /* the cache that write was offered to */
  guint stats_interval_ms;
  GstClockTime last_stats;

  GstCudaCacheBaseTransformPrivate *priv;
};

struct _GstCudaCacheBaseTransformClass
{
  GstBaseTransformClass parent_class;
};

GType gst_cuda_cache_base_transform_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCudaCacheBaseTransform, gst_object_unref)

gboolean gst_cuda_cache_caps_are_cuda (const GstCaps * caps);

GstCudaCache *gst_cuda_cache_base_transform_get_cache (GstCudaCacheBaseTransform * self);

CUstream gst_cuda_cache_base_transform_get_stream (GstCudaCacheBaseTransform * self);

GstBufferPool *gst_cuda_cache_base_transform_query_pool (GstCudaCacheBaseTransform * self,
    GstQuery * query, guint * size, guint * min_buffers, guint * max_buffers,
    gboolean * from_downstream, gchar ** reason);

gboolean gst_cuda_cache_base_transform_propose_pool (GstCudaCacheBaseTransform * self,
    GstQuery * query);

void gst_cuda_cache_base_transform_post_stats (GstCudaCacheBaseTransform * self);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_BASE_TRANSFORM_H__ */
