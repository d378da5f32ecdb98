/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_DEVICE_H__
#define __GST_CUDA_CACHE_DEVICE_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/cudacache/gstcudacache.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

GST_CUDA_CACHE_API
guint gst_cuda_cache_device_get_count (void);

GST_CUDA_CACHE_API
GstCudaContext *gst_cuda_cache_device_open_context (guint device_id);

GST_CUDA_CACHE_API
GstCudaCache *gst_cuda_cache_device_get_cache (GstCudaContext * context);

GST_CUDA_CACHE_API
void gst_cuda_cache_device_add_context_user (GstCudaContext * context);

GST_CUDA_CACHE_API
void gst_cuda_cache_device_remove_context_user (GstCudaContext * context);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_device_get_memory_info (GstCudaContext * context,
    guint64 * free_bytes, guint64 * total_bytes);

GST_CUDA_CACHE_API
GstCudaContext *gst_cuda_cache_device_get_default_context (guint device_id);

GST_CUDA_CACHE_API
GstCudaContext *gst_cuda_cache_device_get_primary_context (guint device_id);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_DEVICE_H__ */
