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

gboolean
gst_cuda_cache_converter_frame_map (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags,
    const gchar * side, GError ** error)
{
  if (!frame_meta_fits (info, buf, side, error))
    return FALSE;
  if (gst_video_frame_map (frame, (GstVideoInfo *) info, buf, flags))
    return TRUE;

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
