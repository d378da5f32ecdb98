/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_DLPACK_H__
#define __GST_CUDA_CACHE_DLPACK_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_CACHE_DLPACK_WHOLE:
 *
 * The @plane of gst_cuda_cache_dlpack_export() that exports a whole tensor,
 * or a whole single-plane video frame.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_DLPACK_WHOLE (-1)

GST_CUDA_CACHE_API
gpointer gst_cuda_cache_dlpack_export (GstBuffer * buffer,
    const GstCaps * caps, gint plane);

GST_CUDA_CACHE_API
gpointer gst_cuda_cache_dlpack_export_full (GstBuffer * buffer,
    const GstCaps * caps, gint plane, GError ** error);

GST_CUDA_CACHE_API
gpointer gst_cuda_cache_dlpack_export_async (GstBuffer * buffer,
    const GstCaps * caps, gint plane, GError ** error);

GST_CUDA_CACHE_API
guint64 gst_cuda_cache_dlpack_get_stream (GstBuffer * buffer);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_dlpack_stream_wait (GstBuffer * buffer,
    guint64 stream, GError ** error);

GST_CUDA_CACHE_API
void gst_cuda_cache_dlpack_release (gpointer managed_tensor);

GST_CUDA_CACHE_API
GstBuffer *gst_cuda_cache_dlpack_import (gpointer managed_tensor,
    GstCudaContext * context, GstCaps ** caps, GError ** error);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_DLPACK_H__ */
