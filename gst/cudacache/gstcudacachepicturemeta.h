/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_PICTURE_META_H__
#define __GST_CUDA_CACHE_PICTURE_META_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstCudaCachePictureGeometry:
 * @picture: where the picture lies in the converted buffer, in its pixels
 *   (the whole frame or tensor, or the letterboxed rectangle inside the
 *   bars)
 * @source: the region of the source frame the picture was made from, in
 *   the source frame's pixels (the whole frame, or its crop)
 * @source_width: the source frame's width
 * @source_height: the source frame's height
 * @scale_x: the buffer's pixels per source pixel across
 *   (`picture.w / source.w`)
 * @scale_y: the buffer's pixels per source pixel down
 *   (`picture.h / source.h`)
 *
 * How a converted picture (a frame or a tensor, or one slot of a batch)
 * relates to the frame it was made from, so that a position found in it
 * (a detection box, a keypoint) maps back to the source frame: source
 * `x = source.x + (x - picture.x) / scale_x`, and likewise down. Positions
 * are continuous, in pixels from the frame's top left corner (a pixel's
 * centre is at `i + 0.5`), as box coordinates are.
 * gst_cuda_cache_converter_get_geometry() gives a conversion's;
 * #GstCudaCachePictureMeta and #GstCudaCacheBatchSlot carry it. A plain
 * struct, as #GstVideoRectangle is: bindings read it in place, in the meta
 * that holds it.
 *
 * Since: 0.1
 */
typedef struct
{
  GstVideoRectangle picture;
  GstVideoRectangle source;
  gint source_width;
  gint source_height;
  gdouble scale_x;
  gdouble scale_y;
} GstCudaCachePictureGeometry;

GST_CUDA_CACHE_API
void gst_cuda_cache_picture_geometry_to_source (const
    GstCudaCachePictureGeometry * geometry, gdouble x, gdouble y,
    gdouble * source_x, gdouble * source_y);

GST_CUDA_CACHE_API
void gst_cuda_cache_picture_geometry_from_source (const
    GstCudaCachePictureGeometry * geometry, gdouble source_x,
    gdouble source_y, gdouble * x, gdouble * y);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_picture_geometry_box_to_source (const
    GstCudaCachePictureGeometry * geometry, gdouble x0, gdouble y0,
    gdouble x1, gdouble y1, gdouble * source_x0, gdouble * source_y0,
    gdouble * source_x1, gdouble * source_y1);

/**
 * GstCudaCachePictureMeta:
 * @meta: the parent #GstMeta
 * @geometry: how the buffer's picture relates to the frame it was made
 *   from
 *
 * The geometry of a buffer `cudacacheconvert` made: where its picture lies
 * and the region of the source frame it shows.
 *
 * Since: 0.1
 */
typedef struct
{
  GstMeta meta;

  GstCudaCachePictureGeometry geometry;
} GstCudaCachePictureMeta;

GST_CUDA_CACHE_API
GType gst_cuda_cache_picture_meta_api_get_type (void);
#define GST_CUDA_CACHE_PICTURE_META_API_TYPE (gst_cuda_cache_picture_meta_api_get_type ())

GST_CUDA_CACHE_API
const GstMetaInfo *gst_cuda_cache_picture_meta_get_info (void);
#define GST_CUDA_CACHE_PICTURE_META_INFO (gst_cuda_cache_picture_meta_get_info ())

GST_CUDA_CACHE_API
GstCudaCachePictureMeta *gst_buffer_add_cuda_cache_picture_meta (GstBuffer *
    buffer, const GstCudaCachePictureGeometry * geometry);

GST_CUDA_CACHE_API
GstCudaCachePictureMeta *gst_buffer_get_cuda_cache_picture_meta (GstBuffer *
    buffer);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_PICTURE_META_H__ */
