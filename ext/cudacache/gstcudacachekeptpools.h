/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_KEPT_POOLS_H__
#define __GST_CUDA_CACHE_KEPT_POOLS_H__

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include "gstcudacachecompat.h"

G_BEGIN_DECLS

/* The pools an element keeps across renegotiations: per side (proposed
 * upstream, or taken for its output) and memory kind, most recently used
 * first. A caps change reconfigures one nobody holds active, so that its
 * remembered layouts make a switch back cheap. Thread-safe. */
typedef struct _GstCudaCacheKeptPools GstCudaCacheKeptPools;

typedef enum
{
  GST_CUDA_CACHE_POOL_PROPOSED,   /* offered upstream */
  GST_CUDA_CACHE_POOL_OUTPUT,     /* the element's output */
} GstCudaCachePoolSide;

gboolean gst_cuda_cache_caps_are_cuda (const GstCaps * caps);

GstCudaCacheKeptPools *gst_cuda_cache_kept_pools_new (GstObject * owner);

void gst_cuda_cache_kept_pools_free (GstCudaCacheKeptPools * kept);

void gst_cuda_cache_kept_pools_clear (GstCudaCacheKeptPools * kept);

GstBufferPool *gst_cuda_cache_kept_pools_get (GstCudaCacheKeptPools * kept,
    GstCudaCachePoolSide side, GstCaps * caps, GstCudaContext * context,
    GstCudaCacheElementStream * stream, gint stream_ordered,
    guint min_buffers, guint max_buffers, guint * size, gchar ** reason);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_KEPT_POOLS_H__ */
