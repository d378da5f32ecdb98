/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * What the converter's layers share beneath them
 * (gstcudacacheconvertbase.c): the parsed options and caps, and mapping a
 * conversion's frames and batches with errors that say why. The front end
 * (gstcudacacheconverter-private.h) and the back ends build on it; it
 * calls none of them.
 */

#ifndef __GST_CUDA_CACHE_CONVERT_BASE_PRIVATE_H__
#define __GST_CUDA_CACHE_CONVERT_BASE_PRIVATE_H__

#include <gst/video/video.h>
#include "gstcudacacheconverter.h"
#include "gstcudacachetensor.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_cache_converter_debug);

/* What a config says, parsed. */
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
  /* the source rectangle (GST_CUDA_CACHE_CONVERTER_OPT_SRC_*): width and
   * height 0 reach the frame's edge; all 0: the whole frame, or a buffer's
   * GstVideoCropMeta */
  gint src_x;
  gint src_y;
  gint src_width;
  gint src_height;
} GstCudaCacheConverterOptions;

/* What a pair of caps says, parsed and validated. */
typedef struct
{
  GstVideoInfo in_info;
  gboolean tensor_out;
  GstVideoInfo out_info;        /* video output */
  GstCudaCacheTensorInfo tensor;        /* tensor output */
} GstCudaCacheConverterInfo;

/* Makes *@error slot @slot's (GST_CUDA_CACHE_BATCH_SLOT_ERROR, code
 * @slot, the message prefixed "slot N: "); nothing where there is none */
G_GNUC_INTERNAL
void gst_cuda_cache_converter_slot_error (GError ** error, guint slot);

/* g_set_error () with GStreamer's printf, which knows GST_PTR_FORMAT
 * (GLib's would print the pointer) */
G_GNUC_INTERNAL
void gst_cuda_cache_converter_set_error (GError ** error, GQuark domain,
    gint code, const gchar * format, ...) G_GNUC_PRINTF (4, 5);

/* gst_video_frame_map (), saying which buffer (@side: "input", "output")
 * did not map and why it may not have */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_frame_map (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags,
    const gchar * side, GError ** error);

/* Maps @outbuf with @flags (writing) for a batch of @n slots of @slot_size
 * bytes: FALSE, with @error set, where it cannot be mapped or is
 * smaller. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_batch_map (GstBuffer * outbuf,
    GstMapFlags flags, guint n, gsize slot_size, GstMapInfo * map,
    GError ** error);

/* Whether @size bytes, a mapped output buffer's, hold @info's tensor. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_tensor_fits (const
    GstCudaCacheConverterInfo * info, gsize size, GError ** error);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERT_BASE_PRIVATE_H__ */
