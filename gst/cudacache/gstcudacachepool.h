/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_POOL_H__
#define __GST_CUDA_CACHE_POOL_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/cudacache/gstcudacache.h>
#include <gst/cuda/gstcudabufferpool.h>

G_BEGIN_DECLS

/* the formats of the list below, without its braces, to build others on */
#define _GST_CUDA_CACHE_POOL_FORMAT_LIST \
  "I420, YV12, NV12, NV21, P010_10LE, P016_LE, I420_10LE, Y444, " \
  "Y444_16LE, Y42B, I422_10LE, I422_12LE, RGBA, BGRA, RGBx, BGRx, ARGB, " \
  "ABGR, RGB, BGR, RGBP, BGRP, GBR, GBRA, BGR10A2_LE, RGB10A2_LE, YUY2, " \
  "UYVY"

/**
 * GST_CUDA_CACHE_POOL_FORMATS:
 *
 * The video formats a #GstCudaCachePool lays out (those GStreamer 1.22's
 * CUDA allocator lays out), as a caps field's list; a config of another
 * format is refused.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_POOL_FORMATS "{ " _GST_CUDA_CACHE_POOL_FORMAT_LIST " }"

/**
 * GST_CUDA_CACHE_SYSTEM_POOL_FORMATS:
 *
 * The video formats the elements take in system memory: those of
 * %GST_CUDA_CACHE_POOL_FORMATS and GRAY8 (a #GstCudaCacheSystemPool lays
 * out any format).
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_SYSTEM_POOL_FORMATS \
  "{ " _GST_CUDA_CACHE_POOL_FORMAT_LIST ", GRAY8 }"

/**
 * GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM:
 *
 * A boolean field of a #GstCudaCachePool's config (GStreamer 1.24+): %TRUE
 * says that the config's #GstCudaStream (gst_buffer_pool_config_set_cuda_stream())
 * is the stream of the element that writes the pool's buffers, and the pool
 * then allocates its blocks on that stream, kept for it alone (the stream
 * is part of their key). Without it, the config's stream is the one an
 * upstream element (nvh264dec, cudaupload) puts in the config of a pool
 * proposed to it and writes on: the memory the pool hands out carries it,
 * a #GstCudaMemory over a block that every other writer shares, so that
 * readers wait for that stream (gst_cuda_memory_sync()). An element of an
 * application that writes into a pool it configures, and wants blocks of
 * its own stream, sets it with gst_structure_set(), as the project's
 * elements do.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM "GstCudaCachePool.writer-stream"

#define GST_TYPE_CUDA_CACHE_POOL            (gst_cuda_cache_pool_get_type ())
#define GST_CUDA_CACHE_POOL(obj)            (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CUDA_CACHE_POOL, GstCudaCachePool))
#define GST_CUDA_CACHE_POOL_CLASS(klass)    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CUDA_CACHE_POOL, GstCudaCachePoolClass))
#define GST_IS_CUDA_CACHE_POOL(obj)         (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_CUDA_CACHE_POOL))
#define GST_IS_CUDA_CACHE_POOL_CLASS(klass) (G_TYPE_CHECK_CLASS_TYPE ((klass), GST_TYPE_CUDA_CACHE_POOL))

typedef struct _GstCudaCachePool GstCudaCachePool;
typedef struct _GstCudaCachePoolClass GstCudaCachePoolClass;
typedef struct _GstCudaCachePoolPrivate GstCudaCachePoolPrivate;

/**
 * GstCudaCachePool:
 *
 * A #GstCudaBufferPool whose memory comes from its device's #GstCudaCache.
 *
 * Since: 0.1
 */
struct _GstCudaCachePool
{
  GstCudaBufferPool parent;

  /*< private >*/
  GstCudaCachePoolPrivate *priv;
  gpointer _gst_reserved[GST_PADDING];
};

struct _GstCudaCachePoolClass
{
  GstCudaBufferPoolClass parent_class;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

GST_CUDA_CACHE_API
GType gst_cuda_cache_pool_get_type (void);

GST_CUDA_CACHE_API
GstBufferPool *gst_cuda_cache_pool_new (GstCudaContext * context);

GST_CUDA_CACHE_API
GstCudaCache *gst_cuda_cache_pool_get_cache (GstCudaCachePool * pool);

GST_CUDA_CACHE_API
void gst_buffer_pool_config_set_cuda_cache (GstStructure * config,
    GstCudaCache * cache);

GST_CUDA_CACHE_API
gboolean gst_buffer_pool_config_get_cuda_cache (GstStructure * config,
    GstCudaCache ** cache);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_warm (GstCudaCache * cache, GstCudaContext * context,
    GstCaps * caps, guint n_buffers, GError ** error);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_POOL_H__ */
