/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The test picture the suites convert: the GPU suite compares the kernels
 * with the CPU path on it, libs/converter the CPU path with itself. */

#ifndef __CUDACACHE_PICTURE_H__
#define __CUDACACHE_PICTURE_H__

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

/* The picture every case starts from, at any size: gradients, so that two
 * correct bilinear scalers differ only by rounding, steep at small sizes
 * so that a pixel taken from the wrong row or column shows. */
static inline void
cudacache_fill_picture (GstVideoFrame * frame)
{
  gint w = GST_VIDEO_FRAME_WIDTH (frame), h = GST_VIDEO_FRAME_HEIGHT (frame);
  gint x, y;

  for (y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);

    for (x = 0; x < w; x++) {
      row[4 * x] = 20 + 200 * x / MAX (w - 1, 1);
      row[4 * x + 1] = 30 + 180 * y / MAX (h - 1, 1);
      row[4 * x + 2] = 40 + 100 * (x + y) / (w + h);
      row[4 * x + 3] = 255;
    }
  }
}

/* The picture in @format, @width x @height (GstVideoConverter's default
 * options from RGBA), and in @info its layout. */
static inline GstBuffer *
cudacache_make_picture (GstVideoFormat format, gint width, gint height,
    GstVideoInfo * info)
{
  GstVideoInfo rgba_info;
  GstVideoFrame src, dst;
  GstVideoConverter *conv;
  GstBuffer *rgba, *buf;

  gst_video_info_set_format (&rgba_info, GST_VIDEO_FORMAT_RGBA, width, height);
  rgba = gst_buffer_new_allocate (NULL, rgba_info.size, NULL);
  fail_unless (gst_video_frame_map (&src, &rgba_info, rgba, GST_MAP_WRITE));
  cudacache_fill_picture (&src);

  gst_video_info_set_format (info, format, width, height);
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_video_frame_map (&dst, info, buf, GST_MAP_WRITE));
  conv = gst_video_converter_new (&rgba_info, info, NULL);
  gst_video_converter_frame (conv, &src, &dst);
  gst_video_converter_free (conv);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  gst_buffer_unref (rgba);

  return buf;
}

/* @nv12 (an NV12 frame of @nv12_info) widened to 16-bit 4:2:0 @format
 * (P010_10LE or P016_LE): each sample v as round (v * (2^depth -
 * 1) / 255) at the top of 16 bits, which the converter narrows back to v
 * exactly; in @info its layout. */
static inline GstBuffer *
cudacache_widen_picture (GstBuffer * nv12, const GstVideoInfo * nv12_info,
    GstVideoFormat format, GstVideoInfo * info)
{
  gint w = GST_VIDEO_INFO_WIDTH (nv12_info), h = GST_VIDEO_INFO_HEIGHT
      (nv12_info);
  GstVideoFrame src, dst;
  GstBuffer *buf;
  guint32 top;
  gint p, x, y, depth;

  gst_video_info_set_format (info, format, w, h);
  depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  top = (1u << depth) - 1;
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_video_frame_map (&src, nv12_info, nv12, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, info, buf, GST_MAP_WRITE));
  for (p = 0; p < 2; p++) {
    gint rows = p ? (h + 1) / 2 : h, n = p ? 2 * ((w + 1) / 2) : w;

    for (y = 0; y < rows; y++) {
      const guint8 *s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&src,
          p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&src, p);
      guint8 *d = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&dst, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&dst, p);

      for (x = 0; x < n; x++)
        GST_WRITE_UINT16_LE (d + 2 * x, ((s[x] * top * 2 + 255) / 510) <<
            (16 - depth));
    }
  }
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);

  return buf;
}

/* The region @r of @frame as a frame of its own, plane by plane. */
static inline GstBuffer *
cudacache_copy_region (GstBuffer * frame, const GstVideoInfo * info,
    const GstVideoRectangle * r, GstVideoInfo * region_info)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  GstVideoFrame src, dst;
  GstBuffer *out;
  guint c;
  gint row;

  gst_video_info_set_format (region_info, GST_VIDEO_INFO_FORMAT (info), r->w,
      r->h);
  out = gst_buffer_new_allocate (NULL, region_info->size, NULL);
  fail_unless (gst_video_frame_map (&src, info, frame, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, region_info, out, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    guint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    gint x0 = GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c, r->x) * ps;
    gint y0 = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c, r->y);

    gint bytes = 0;
    guint k;

    if (c > 0 && GST_VIDEO_FORMAT_INFO_PLANE (finfo, c - 1) == plane)
      continue;
    /* a row's bytes: the widest of the plane's components (an odd-width
     * YUY2 row ends with a whole Y U Y V group) */
    for (k = c; k < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); k++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, k) == plane)
        bytes = MAX (bytes, GST_VIDEO_FRAME_COMP_WIDTH (&dst, k) *
            GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, k));
    for (row = 0; row < GST_VIDEO_FRAME_COMP_HEIGHT (&dst, c); row++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&dst, plane) +
          row * GST_VIDEO_FRAME_PLANE_STRIDE (&dst, plane),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&src, plane) +
          (y0 + row) * GST_VIDEO_FRAME_PLANE_STRIDE (&src, plane) + x0,
          bytes);
  }
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);

  return out;
}

/* Every byte of @buf drawn from @rand: every pixel a sharp edge, chroma
 * out of gamut too. */
static inline void
cudacache_fill_noise (GstBuffer * buf, GRand * rand)
{
  GstMapInfo map;
  gsize b;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (b = 0; b < map.size; b++)
    map.data[b] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
}

#endif /* __CUDACACHE_PICTURE_H__ */
