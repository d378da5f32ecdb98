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

/**
 * GstCudaCacheDLPackFlags:
 * @GST_CUDA_CACHE_DLPACK_FLAG_NONE: the host waits for work still queued on
 *     the stream of the buffer's CUDA memory before the tensor is made: any
 *     consumer's stream may read it at once
 * @GST_CUDA_CACHE_DLPACK_FLAG_NO_WAIT: the host waits for nothing; the
 *     consumer makes its stream wait for that work on the GPU with
 *     gst_cuda_cache_dlpack_stream_wait() before it reads, as DLPack's
 *     `__dlpack__ (stream=...)` does
 *
 * How gst_cuda_cache_dlpack_export() treats work still queued on the
 * memory's stream (GStreamer 1.24 and later: memory flagged
 * %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC). Before 1.24 nothing is ever queued
 * (the project's elements finish writing a buffer before they push it),
 * and the flags change nothing.
 *
 * Since: 0.1
 */
typedef enum /*< underscore_name=gst_cuda_cache_dlpack_flags >*/
{
  GST_CUDA_CACHE_DLPACK_FLAG_NONE = 0,
  GST_CUDA_CACHE_DLPACK_FLAG_NO_WAIT = (1 << 0),
} GstCudaCacheDLPackFlags;

#include <gst/cudacache/cudacache-enumtypes.h>

GST_CUDA_CACHE_API
gpointer gst_cuda_cache_dlpack_export (GstBuffer * buffer,
    const GstCaps * caps, gint plane, GstCudaCacheDLPackFlags flags,
    GError ** error);

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
