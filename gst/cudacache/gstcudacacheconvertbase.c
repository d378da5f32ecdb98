/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * What the converter's layers share beneath them (the front end, the
 * definition's parameters and both back ends call down to it, never up):
 * mapping a conversion's frames and batches with errors that say why, and
 * the errors' own helpers.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/gstcudamemory.h>

#include "gstcudacacheconvertbase-private.h"

GST_DEBUG_CATEGORY (gst_cuda_cache_converter_debug);

void
gst_cuda_cache_converter_set_error (GError ** error, GQuark domain, gint code,
    const gchar * format, ...)
{
  va_list args, again;
  gchar *message;

  if (!error)
    return;

  va_start (args, format);
  G_VA_COPY (again, args);
  message = gst_info_strdup_vprintf (format, args);
  /* NULL where GStreamer was built without its debugging system */
  if (!message)
    message = g_strdup_vprintf (format, again);
  va_end (again);
  va_end (args);
  g_set_error_literal (error, domain, code, message);
  g_free (message);
}

/* Whether @buf's GstVideoMeta, where it has one, describes a frame that
 * holds @info's: gst_video_frame_map () asserts it, with a critical */
static gboolean
frame_meta_fits (const GstVideoInfo * info, GstBuffer * buf,
    const gchar * side, GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  const gchar *why;

  if (!meta)
    return TRUE;
  if (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
      meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    why = "not";
  else if (meta->width < (guint) GST_VIDEO_INFO_WIDTH (info) ||
      meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info))
    why = "smaller than";
  else
    return TRUE;

  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "the %s buffer's video meta describes a %ux%u %s frame, %s the caps' "
      "%dx%d %s", side, meta->width, meta->height,
      gst_video_format_to_string (meta->format), why,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_NAME (info));
  return FALSE;
}

/* The bytes a row of plane @p holds at least: its components' widths by
 * their pixel strides, or the caps' stride where a format packs its pixels
 * otherwise (a pixel stride of 0) */
static guint64
plane_row_bytes (const GstVideoInfo * info, guint p)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  guint64 bytes = 0;
  guint c;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);

    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != p)
      continue;
    if (pstride <= 0)
      return (guint64) ABS (GST_VIDEO_INFO_PLANE_STRIDE (info, p));
    bytes = MAX (bytes, (guint64) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        pstride);
  }
  return bytes;
}

static guint
plane_rows (const GstVideoInfo * info, guint p)
{
  guint rows = 0, c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, c) == p)
      rows = MAX (rows, (guint) GST_VIDEO_INFO_COMP_HEIGHT (info, c));
  }
  return rows;
}

/* A video meta says where each plane is and its stride, not that the
 * buffer holds it (gst_video_frame_map () checks only that a plane's first
 * byte is in the buffer): every row of every plane of @frame must lie in
 * what was mapped for it, or a conversion would read or write past it */
static gboolean
frame_planes_fit (const GstVideoFrame * frame, const gchar * side,
    GError ** error)
{
  guint p;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    const GstMapInfo *map = &frame->map[frame->meta ? p : 0];
    guint64 start = (guintptr) frame->data[p], lo = (guintptr) map->data;
    guint64 hi = lo + map->size;
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    guint rows = plane_rows (&frame->info, p);
    guint64 span, row = plane_row_bytes (&frame->info, p);

    if (rows == 0 || row == 0)
      continue;
    span = (guint64) (rows - 1) * (guint64) ABS ((gint64) stride);
    if (start >= lo && start <= hi &&
        (stride >= 0 ? span + row <= hi - start :
            span <= start - lo && row <= hi - start))
      continue;

    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "the %s buffer's video meta puts plane %u (%u rows of %"
        G_GUINT64_FORMAT " bytes, stride %d) at offset %" G_GSIZE_FORMAT
        ", past the %" G_GSIZE_FORMAT " bytes of its memory", side, p, rows,
        row, stride, frame->meta ? ((GstVideoMeta *) frame->meta)->offset[p] :
        GST_VIDEO_INFO_PLANE_OFFSET (&frame->info, p), map->size);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_cache_converter_frame_map (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags,
    const gchar * side, GError ** error)
{
  if (!frame_meta_fits (info, buf, side, error))
    return FALSE;
  if (gst_video_frame_map (frame, (GstVideoInfo *) info, buf, flags)) {
    if (frame_planes_fit (frame, side, error))
      return TRUE;
    gst_video_frame_unmap (frame);
    return FALSE;
  }

  g_set_error (error, GST_RESOURCE_ERROR, (flags & GST_MAP_WRITE) ?
      GST_RESOURCE_ERROR_WRITE : GST_RESOURCE_ERROR_READ,
      "could not map the %s buffer (%" G_GSIZE_FORMAT " bytes%s) as a %dx%d "
      "%s frame of %" G_GSIZE_FORMAT " bytes: it is too small, or its video "
      "meta does not fit it", side, gst_buffer_get_size (buf),
      (flags & GST_MAP_CUDA) ? ", CUDA memory" : "",
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info));
  return FALSE;
}

gboolean
gst_cuda_cache_converter_tensor_fits (const GstCudaCacheConverterInfo * info,
    gsize size, GError ** error)
{
  if (size >= info->tensor.size)
    return TRUE;

  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "output buffer of %" G_GSIZE_FORMAT " bytes for a tensor of %"
      G_GSIZE_FORMAT, size, info->tensor.size);
  return FALSE;
}

/**
 * gst_cuda_cache_batch_slot_domain:
 *
 * The error domain #GST_CUDA_CACHE_BATCH_SLOT_ERROR: a batch conversion
 * that failed on one slot, the error's code that slot's index.
 *
 * Returns: the domain's #GQuark
 *
 * Since: 0.1
 */
GQuark
gst_cuda_cache_batch_slot_domain (void)
{
  return g_quark_from_static_string ("gst-cuda-cache-batch-slot");
}

void
gst_cuda_cache_converter_slot_error (GError ** error, guint slot)
{
  if (!error || !*error)
    return;
  g_prefix_error (error, "slot %u: ", slot);
  (*error)->domain = GST_CUDA_CACHE_BATCH_SLOT_ERROR;
  (*error)->code = (gint) slot;
}

gboolean
gst_cuda_cache_converter_batch_map (GstBuffer * outbuf, GstMapFlags flags,
    guint n, gsize slot_size, GstMapInfo * map, GError ** error)
{
  if (!gst_buffer_map (outbuf, map, flags)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not map the batch for the conversion");
    return FALSE;
  }
  if (map->size < n * slot_size) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "the batch holds %" G_GSIZE_FORMAT " bytes, less than its %u slots "
        "of %" G_GSIZE_FORMAT, map->size, n, slot_size);
    gst_buffer_unmap (outbuf, map);
    return FALSE;
  }
  return TRUE;
}
