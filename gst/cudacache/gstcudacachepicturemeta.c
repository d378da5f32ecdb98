/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacachepicturemeta
 * @title: GstCudaCachePictureMeta
 * @short_description: where a converted buffer's picture came from, and
 *   the map back to the source frame
 *
 * `cudacacheconvert` puts a #GstCudaCachePictureMeta on every buffer it
 * makes: the picture's rectangle in the output (inside the letterbox bars,
 * if any), the region of the source frame it shows, and the scale between
 * them. gst_cuda_cache_picture_meta_box_to_source () maps a detection box
 * found in a tensor back to the frame the tensor was made from.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachepicturemeta.h"

#include <string.h>

#include <math.h>

GType
gst_cuda_cache_picture_meta_api_get_type (void)
{
  static GType type = 0;
  /* GstVideoRegionOfInterestMeta's: it describes the picture's geometry */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCudaCachePictureMetaAPI", tags);
    g_once_init_leave (&type, t);
  }

  return type;
}

static gboolean
gst_cuda_cache_picture_meta_init (GstMeta * meta, gpointer params,
    GstBuffer * buffer)
{
  GstCudaCachePictureMeta *pmeta = (GstCudaCachePictureMeta *) meta;

  memset (&pmeta->picture, 0, sizeof (pmeta->picture));
  memset (&pmeta->source, 0, sizeof (pmeta->source));
  pmeta->source_width = pmeta->source_height = 0;
  pmeta->scale_x = pmeta->scale_y = 1.0;

  return TRUE;
}

/* A whole copy keeps the meta; a region of the buffer is another picture.
 * A frame scaled as a whole (videoscale) keeps its source: the picture's
 * rectangle and scale follow the new size. */
static gboolean
gst_cuda_cache_picture_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCudaCachePictureMeta *pmeta = (GstCudaCachePictureMeta *) meta;
  GstCudaCachePictureMeta *copy;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *c = data;

    if (c->region)
      return TRUE;
    copy = gst_buffer_add_cuda_cache_picture_meta (dest, &pmeta->picture,
        &pmeta->source, pmeta->source_width, pmeta->source_height);
    if (!copy)
      return FALSE;
    copy->scale_x = pmeta->scale_x;
    copy->scale_y = pmeta->scale_y;
    return TRUE;
  }

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *t = data;
    gdouble sx, sy;
    GstVideoRectangle r;

    if (GST_VIDEO_INFO_WIDTH (t->in_info) <= 0 ||
        GST_VIDEO_INFO_HEIGHT (t->in_info) <= 0)
      return TRUE;
    sx = (gdouble) GST_VIDEO_INFO_WIDTH (t->out_info) /
        GST_VIDEO_INFO_WIDTH (t->in_info);
    sy = (gdouble) GST_VIDEO_INFO_HEIGHT (t->out_info) /
        GST_VIDEO_INFO_HEIGHT (t->in_info);
    r.x = (gint) rint (pmeta->picture.x * sx);
    r.y = (gint) rint (pmeta->picture.y * sy);
    r.w = (gint) rint ((pmeta->picture.x + pmeta->picture.w) * sx) - r.x;
    r.h = (gint) rint ((pmeta->picture.y + pmeta->picture.h) * sy) - r.y;
    copy = gst_buffer_add_cuda_cache_picture_meta (dest, &r, &pmeta->source,
        pmeta->source_width, pmeta->source_height);
    if (!copy)
      return FALSE;
    copy->scale_x = pmeta->scale_x * sx;
    copy->scale_y = pmeta->scale_y * sy;
    return TRUE;
  }

  return FALSE;
}

const GstMetaInfo *
gst_cuda_cache_picture_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi =
        gst_meta_register (GST_CUDA_CACHE_PICTURE_META_API_TYPE,
        "GstCudaCachePictureMeta", sizeof (GstCudaCachePictureMeta),
        gst_cuda_cache_picture_meta_init, NULL,
        gst_cuda_cache_picture_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }

  return info;
}

/**
 * gst_buffer_add_cuda_cache_picture_meta:
 * @buffer: a writable buffer
 * @picture: where the picture lies in @buffer
 * @source: the region of the source frame it was made from
 * @source_width: the source frame's width
 * @source_height: the source frame's height
 *
 * Adds the meta, its scale the ratio of @picture's size to @source's.
 *
 * Returns: (transfer none) (nullable): the new meta on @buffer, or %NULL
 *   where a rectangle is empty or @source lies outside the source frame
 *
 * Since: 0.1
 */
GstCudaCachePictureMeta *
gst_buffer_add_cuda_cache_picture_meta (GstBuffer * buffer,
    const GstVideoRectangle * picture, const GstVideoRectangle * source,
    gint source_width, gint source_height)
{
  GstCudaCachePictureMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (picture != NULL && source != NULL, NULL);
  g_return_val_if_fail (picture->w > 0 && picture->h > 0, NULL);
  g_return_val_if_fail (source->w > 0 && source->h > 0, NULL);
  g_return_val_if_fail (source->x >= 0 && source->y >= 0 &&
      (gint64) source->x + source->w <= source_width &&
      (gint64) source->y + source->h <= source_height, NULL);

  meta = (GstCudaCachePictureMeta *) gst_buffer_add_meta (buffer,
      GST_CUDA_CACHE_PICTURE_META_INFO, NULL);
  if (!meta)
    return NULL;
  meta->picture = *picture;
  meta->source = *source;
  meta->source_width = source_width;
  meta->source_height = source_height;
  meta->scale_x = (gdouble) picture->w / source->w;
  meta->scale_y = (gdouble) picture->h / source->h;

  return meta;
}

/**
 * gst_buffer_get_cuda_cache_picture_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the picture meta of @buffer, if any
 *
 * Since: 0.1
 */
GstCudaCachePictureMeta *
gst_buffer_get_cuda_cache_picture_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaCachePictureMeta *) gst_buffer_get_meta (buffer,
      GST_CUDA_CACHE_PICTURE_META_API_TYPE);
}

/**
 * gst_cuda_cache_picture_meta_to_source:
 * @meta: a #GstCudaCachePictureMeta
 * @x: a position across the buffer, in its pixels
 * @y: a position down the buffer
 * @source_x: (out): the same position in the source frame
 * @source_y: (out): the same position in the source frame
 *
 * Maps a position in the converted buffer to the source frame. Positions
 * in the letterbox bars map outside @meta's source region; see
 * gst_cuda_cache_picture_meta_box_to_source () for boxes, clipped.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_picture_meta_to_source (const GstCudaCachePictureMeta * meta,
    gdouble x, gdouble y, gdouble * source_x, gdouble * source_y)
{
  g_return_if_fail (meta != NULL && source_x != NULL && source_y != NULL);

  *source_x = meta->source.x + (x - meta->picture.x) / meta->scale_x;
  *source_y = meta->source.y + (y - meta->picture.y) / meta->scale_y;
}

/**
 * gst_cuda_cache_picture_meta_from_source:
 * @meta: a #GstCudaCachePictureMeta
 * @source_x: a position across the source frame, in its pixels
 * @source_y: a position down the source frame
 * @x: (out): the same position in the converted buffer
 * @y: (out): the same position in the converted buffer
 *
 * Maps a position in the source frame to the converted buffer: the
 * inverse of gst_cuda_cache_picture_meta_to_source ().
 *
 * Since: 0.1
 */
void
gst_cuda_cache_picture_meta_from_source (const GstCudaCachePictureMeta *
    meta, gdouble source_x, gdouble source_y, gdouble * x, gdouble * y)
{
  g_return_if_fail (meta != NULL && x != NULL && y != NULL);

  *x = meta->picture.x + (source_x - meta->source.x) * meta->scale_x;
  *y = meta->picture.y + (source_y - meta->source.y) * meta->scale_y;
}

/**
 * gst_cuda_cache_picture_meta_box_to_source:
 * @meta: a #GstCudaCachePictureMeta
 * @x0: the box's left edge in the converted buffer
 * @y0: its top edge
 * @x1: its right edge
 * @y1: its bottom edge
 * @source_x0: (out): the box's left edge in the source frame
 * @source_y0: (out): its top edge
 * @source_x1: (out): its right edge
 * @source_y1: (out): its bottom edge
 *
 * Maps a box found in the converted buffer (a detection's, in the
 * buffer's pixels) to the source frame, clipped to the region the picture
 * shows: the part of a box over the letterbox bars is not in the frame.
 * This is what Ultralytics' `scale_boxes` does with the letterbox's gain
 * and padding, per axis.
 *
 * Returns: %TRUE where some of the box lies on the picture; %FALSE where
 *   it lies on the bars alone, or an edge is NaN (the outputs are then an
 *   empty box; for a NaN edge, the point at the source region's top left)
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_picture_meta_box_to_source (const GstCudaCachePictureMeta *
    meta, gdouble x0, gdouble y0, gdouble x1, gdouble y1, gdouble * source_x0,
    gdouble * source_y0, gdouble * source_x1, gdouble * source_y1)
{
  gdouble left, top, right, bottom;

  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (source_x0 && source_y0 && source_x1 && source_y1,
      FALSE);

  /* a NaN edge is no box: the empty one at the region's top left */
  if (isnan (x0) || isnan (y0) || isnan (x1) || isnan (y1)) {
    *source_x0 = *source_x1 = meta->source.x;
    *source_y0 = *source_y1 = meta->source.y;
    return FALSE;
  }
  gst_cuda_cache_picture_meta_to_source (meta, MIN (x0, x1), MIN (y0, y1),
      &left, &top);
  gst_cuda_cache_picture_meta_to_source (meta, MAX (x0, x1), MAX (y0, y1),
      &right, &bottom);
  *source_x0 = CLAMP (left, meta->source.x, meta->source.x + meta->source.w);
  *source_y0 = CLAMP (top, meta->source.y, meta->source.y + meta->source.h);
  *source_x1 = CLAMP (right, meta->source.x, meta->source.x + meta->source.w);
  *source_y1 = CLAMP (bottom, meta->source.y, meta->source.y + meta->source.h);

  return *source_x1 > *source_x0 && *source_y1 > *source_y0;
}
