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
 * them (its #GstCudaCachePictureGeometry).
 * gst_cuda_cache_picture_geometry_box_to_source () maps a detection box
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

/**
 * gst_cuda_cache_picture_meta_api_get_type:
 *
 * The API type of #GstCudaCachePictureMeta: an application gives it to
 * gst_buffer_get_meta() or a meta API query (gst_query_find_allocation_meta())
 * to look for the meta.
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
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

  memset (&pmeta->geometry, 0, sizeof (pmeta->geometry));
  pmeta->geometry.scale_x = pmeta->geometry.scale_y = 1.0;

  return TRUE;
}

/* Whether @g describes a picture: what gst_buffer_add_cuda_cache_picture_meta
 * asks of its caller */
static gboolean
geometry_is_valid (const GstCudaCachePictureGeometry * g)
{
  return g->picture.w > 0 && g->picture.h > 0 && g->source.w > 0 &&
      g->source.h > 0 && g->source.x >= 0 && g->source.y >= 0 &&
      (gint64) g->source.x + g->source.w <= g->source_width &&
      (gint64) g->source.y + g->source.h <= g->source_height &&
      g->scale_x > 0 && g->scale_y > 0 && isfinite (g->scale_x) &&
      isfinite (g->scale_y);
}

/* @v rounded into a gint, or FALSE where it does not fit */
static gboolean
round_to_int (gdouble v, gint * out)
{
  v = rint (v);
  if (!(v >= G_MININT && v <= G_MAXINT))
    return FALSE;
  *out = (gint) v;
  return TRUE;
}

/* A whole copy keeps the meta; a region of the buffer is another picture.
 * A frame scaled as a whole (videoscale) keeps its source: the picture's
 * rectangle and scale follow the new size. The fields are public, so a
 * meta may hold what the API would refuse: such a meta, or one whose
 * scaled picture no longer fits a gint, is not carried over. */
static gboolean
gst_cuda_cache_picture_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCudaCachePictureMeta *pmeta = (GstCudaCachePictureMeta *) meta;
  const GstCudaCachePictureGeometry *g = &pmeta->geometry;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *c = data;

    if (c->region || !geometry_is_valid (g))
      return TRUE;
    return gst_buffer_add_cuda_cache_picture_meta (dest, g) != NULL;
  }

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *t = data;
    GstCudaCachePictureGeometry scaled = *g;
    gdouble sx, sy;
    gint x1, y1;

    if (GST_VIDEO_INFO_WIDTH (t->in_info) <= 0 ||
        GST_VIDEO_INFO_HEIGHT (t->in_info) <= 0 || !geometry_is_valid (g))
      return TRUE;
    sx = (gdouble) GST_VIDEO_INFO_WIDTH (t->out_info) /
        GST_VIDEO_INFO_WIDTH (t->in_info);
    sy = (gdouble) GST_VIDEO_INFO_HEIGHT (t->out_info) /
        GST_VIDEO_INFO_HEIGHT (t->in_info);
    if (!round_to_int (g->picture.x * sx, &scaled.picture.x) ||
        !round_to_int (g->picture.y * sy, &scaled.picture.y) ||
        !round_to_int (((gdouble) g->picture.x + g->picture.w) * sx, &x1) ||
        !round_to_int (((gdouble) g->picture.y + g->picture.h) * sy, &y1))
      return TRUE;
    if ((gint64) x1 - scaled.picture.x > G_MAXINT ||
        (gint64) y1 - scaled.picture.y > G_MAXINT)
      return TRUE;
    scaled.picture.w = x1 - scaled.picture.x;
    scaled.picture.h = y1 - scaled.picture.y;
    scaled.scale_x = g->scale_x * sx;
    scaled.scale_y = g->scale_y * sy;
    if (!geometry_is_valid (&scaled))
      return TRUE;
    return gst_buffer_add_cuda_cache_picture_meta (dest, &scaled) != NULL;
  }

  return FALSE;
}

/**
 * gst_cuda_cache_picture_meta_get_info:
 *
 * The registered #GstMetaInfo of #GstCudaCachePictureMeta: an application that
 * adds the meta with gst_buffer_add_meta() or compares a meta's info uses it.
 *
 * Returns: (transfer none): the meta's #GstMetaInfo
 *
 * Since: 0.1
 */
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
 * @geometry: how @buffer's picture relates to the frame it was made from
 *   (gst_cuda_cache_converter_get_geometry())
 *
 * Adds the meta, a copy of @geometry.
 *
 * Returns: (transfer none) (nullable): the new meta on @buffer, or %NULL
 *   where a rectangle of @geometry is empty, its source region lies outside
 *   the source frame or a scale is not a finite number above 0
 *
 * Since: 0.1
 */
GstCudaCachePictureMeta *
gst_buffer_add_cuda_cache_picture_meta (GstBuffer * buffer,
    const GstCudaCachePictureGeometry * geometry)
{
  GstCudaCachePictureMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (geometry != NULL, NULL);
  g_return_val_if_fail (geometry_is_valid (geometry), NULL);

  meta = (GstCudaCachePictureMeta *) gst_buffer_add_meta (buffer,
      GST_CUDA_CACHE_PICTURE_META_INFO, NULL);
  if (!meta)
    return NULL;
  meta->geometry = *geometry;

  return meta;
}

/**
 * gst_buffer_get_cuda_cache_picture_meta:
 * @buffer: a buffer
 *
 * Finds the #GstCudaCachePictureMeta of a buffer `cudacacheconvert` made: an
 * application reads it to map coordinates in the converted picture (a
 * detector's boxes) back to the source frame.
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
 * gst_cuda_cache_picture_geometry_to_source:
 * @geometry: a #GstCudaCachePictureGeometry
 * @x: a position across the converted picture's buffer, in its pixels
 * @y: a position down it
 * @source_x: (out): @x in the source frame's pixels
 * @source_y: (out): @y in the source frame's pixels
 *
 * Maps a position found in a converted buffer (a point of a detection, a
 * keypoint) back to the source frame. Positions in the bars map outside
 * the source region; gst_cuda_cache_picture_geometry_box_to_source()
 * clips boxes.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_picture_geometry_to_source (const GstCudaCachePictureGeometry *
    geometry, gdouble x, gdouble y, gdouble * source_x, gdouble * source_y)
{
  g_return_if_fail (geometry != NULL && source_x != NULL && source_y != NULL);

  *source_x = geometry->source.x + (x - geometry->picture.x) /
      geometry->scale_x;
  *source_y = geometry->source.y + (y - geometry->picture.y) /
      geometry->scale_y;
}

/**
 * gst_cuda_cache_picture_geometry_from_source:
 * @geometry: a #GstCudaCachePictureGeometry
 * @source_x: a position across the source frame, in its pixels
 * @source_y: a position down the source frame
 * @x: (out): where it lies across the converted buffer
 * @y: (out): where it lies down the converted buffer
 *
 * The inverse of gst_cuda_cache_picture_geometry_to_source().
 *
 * Since: 0.1
 */
void
gst_cuda_cache_picture_geometry_from_source (const
    GstCudaCachePictureGeometry * geometry, gdouble source_x,
    gdouble source_y, gdouble * x, gdouble * y)
{
  g_return_if_fail (geometry != NULL && x != NULL && y != NULL);

  *x = geometry->picture.x + (source_x - geometry->source.x) *
      geometry->scale_x;
  *y = geometry->picture.y + (source_y - geometry->source.y) *
      geometry->scale_y;
}

/**
 * gst_cuda_cache_picture_geometry_box_to_source:
 * @geometry: a #GstCudaCachePictureGeometry
 * @x0: the box's left edge, in the converted buffer's pixels
 * @y0: its top edge
 * @x1: its right edge
 * @y1: its bottom edge
 * @source_x0: (out): the box's left edge in the source frame
 * @source_y0: (out): its top edge in the source frame
 * @source_x1: (out): its right edge in the source frame
 * @source_y1: (out): its bottom edge in the source frame
 *
 * Maps a detection box back to the source frame, clipped to the region
 * the picture shows (a box reaching into the letterbox bars stops at the
 * picture's edge). The edges may come in either order; a NaN edge is no
 * box: it gives the empty box at the region's top left.
 *
 * Returns: %TRUE where some of the box lies on the picture; %FALSE where
 *   it lies wholly in the bars or off the picture (the box is then empty)
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_picture_geometry_box_to_source (const
    GstCudaCachePictureGeometry * geometry, gdouble x0, gdouble y0,
    gdouble x1, gdouble y1, gdouble * source_x0, gdouble * source_y0,
    gdouble * source_x1, gdouble * source_y1)
{
  const GstVideoRectangle *src;
  gdouble left, top, right, bottom;

  g_return_val_if_fail (geometry != NULL, FALSE);
  g_return_val_if_fail (source_x0 && source_y0 && source_x1 && source_y1,
      FALSE);

  src = &geometry->source;
  if (isnan (x0) || isnan (y0) || isnan (x1) || isnan (y1)) {
    *source_x0 = *source_x1 = src->x;
    *source_y0 = *source_y1 = src->y;
    return FALSE;
  }
  gst_cuda_cache_picture_geometry_to_source (geometry, MIN (x0, x1),
      MIN (y0, y1), &left, &top);
  gst_cuda_cache_picture_geometry_to_source (geometry, MAX (x0, x1),
      MAX (y0, y1), &right, &bottom);
  /* in doubles: a region's fields are public, their sum may be no gint */
  *source_x0 = CLAMP (left, src->x, (gdouble) src->x + src->w);
  *source_y0 = CLAMP (top, src->y, (gdouble) src->y + src->h);
  *source_x1 = CLAMP (right, src->x, (gdouble) src->x + src->w);
  *source_y1 = CLAMP (bottom, src->y, (gdouble) src->y + src->h);

  return *source_x1 > *source_x0 && *source_y1 > *source_y0;
}
