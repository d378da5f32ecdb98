/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The definition's parameters: what a pair of caps and the converter's
 * options mean for every pixel, worked out once per caps change into the
 * GstCudaCacheConvertParams that both back ends take (the CPU path builds
 * its tables and frames from them, the kernels their launch plan). The
 * colour matrices, the picture's rectangle in the output (letterbox), the
 * input's chroma siting and the tensor's normalisation are decided here
 * and nowhere else; the definition they follow is written out in
 * gstcudacachekernels-private.h, and the tests hold both back ends to an
 * independent double-precision copy of it (tests/check/cudacache-definition.h).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudacacheconvertparams-private.h"

gint
gst_cuda_cache_convert_params_input_depth (const GstVideoInfo * info)
{
  /* NV12's planes, each sample's bits at the top of 16: the 16-bit
   * formats GStreamer 1.22's CUDA memory lays out */
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
      return GST_VIDEO_INFO_COMP_DEPTH (info, 0);
    default:
      return 0;
  }
}

/* Colour */

/* A YUV info's colorimetry: luma weights, and the 8-bit offset of Y and
 * the ranges of Y and of U, V. */
static void
color_coefficients (const GstVideoInfo * info, gdouble * kr, gdouble * kb,
    gdouble * oy, gdouble * sy, gdouble * suv)
{
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];

  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, kr, kb)) {
    *kr = 0.299;
    *kb = 0.114;
  }
  gst_video_color_range_offsets (info->colorimetry.range, info->finfo, offset,
      scale);
  *oy = offset[0];
  *sy = scale[0];
  *suv = scale[1];
}

/* The kernels' yuv_to_rgb for a YUV input: 8-bit Y'CbCr to R'G'B' on the
 * 0..255 scale. */
static void
yuv_to_rgb_matrix (const GstVideoInfo * info, gfloat m[12])
{
  gdouble kr, kb, kg, oy, sy, suv;
  gdouble to_rgb[3][3];
  guint c;

  color_coefficients (info, &kr, &kb, &oy, &sy, &suv);
  kg = 1.0 - kr - kb;

  /* R'G'B' (0..1) from Y' (0..1) and Pb, Pr (-0.5..0.5) */
  to_rgb[0][0] = 1.0;
  to_rgb[0][1] = 0.0;
  to_rgb[0][2] = 2.0 * (1.0 - kr);
  to_rgb[2][0] = 1.0;
  to_rgb[2][1] = 2.0 * (1.0 - kb);
  to_rgb[2][2] = 0.0;
  to_rgb[1][0] = 1.0;
  to_rgb[1][1] = -kb * to_rgb[2][1] / kg;
  to_rgb[1][2] = -kr * to_rgb[0][2] / kg;

  for (c = 0; c < 3; c++) {
    gdouble my = 255.0 * to_rgb[c][0] / sy;
    /* gray has no chroma (and no chroma range): its weights are 0 */
    gdouble mu = suv > 0 ? 255.0 * to_rgb[c][1] / suv : 0.0;
    gdouble mv = suv > 0 ? 255.0 * to_rgb[c][2] / suv : 0.0;

    m[4 * c] = my;
    m[4 * c + 1] = mu;
    m[4 * c + 2] = mv;
    m[4 * c + 3] = -my * oy - (mu + mv) * 128.0;
  }
}

/* The kernels' rgb_to_yuv for a YUV output:
 * Y = oy + sy * Y'; U = 128 + suv * Pb; V = 128 + suv * Pr. */
static void
rgb_to_yuv_matrix (const GstVideoInfo * info, gfloat m[12])
{
  gdouble kr, kb, kg, oy, sy, suv;

  color_coefficients (info, &kr, &kb, &oy, &sy, &suv);
  kg = 1.0 - kr - kb;

  m[0] = sy * kr / 255.0;
  m[1] = sy * kg / 255.0;
  m[2] = sy * kb / 255.0;
  m[3] = oy;
  m[4] = suv * -kr / (2.0 * (1.0 - kb)) / 255.0;
  m[5] = suv * -kg / (2.0 * (1.0 - kb)) / 255.0;
  m[6] = suv * 0.5 / 255.0;
  m[7] = 128.0;
  m[8] = suv * 0.5 / 255.0;
  m[9] = suv * -kg / (2.0 * (1.0 - kr)) / 255.0;
  m[10] = suv * -kb / (2.0 * (1.0 - kr)) / 255.0;
  m[11] = 128.0;
}

/* Geometry */

/* The picture's rectangle in an output of p->out_width x p->out_height:
 * all of it, or with letterboxing the largest of the input's display
 * aspect ratio, centred or at the top left. Centred, with square pixels
 * on both sides, that is Ultralytics' LetterBox (center, scaleup, not
 * auto): r = min (out_w / in_w, out_h / in_h) in double, the picture's
 * size round (in * r) with Python's rounding (half to even, as rint () in
 * the default rounding mode), at least 1, and its offset
 * round ((out - size) / 2 - 0.1), which is (out - size) / 2 in integers.
 * Pixels of other aspect ratios (@in_par, @out_par) count the input's
 * width in output pixels first, as videoscale keeps the display aspect
 * ratio. */
static void
picture_rect (GstCudaCacheConvertParams * p,
    const GstCudaCacheConverterOptions * options, gint in_par_n,
    gint in_par_d, gint out_par_n, gint out_par_d, gboolean yuv_420_out)
{
  gdouble r, in_w;

  p->dest_x = 0;
  p->dest_y = 0;
  p->dest_width = p->out_width;
  p->dest_height = p->out_height;
  if (!options->letterbox)
    return;

  /* the input's width in output pixels: exactly in_width for equal
   * aspect ratios */
  in_w = p->in_width;
  if ((gint64) in_par_n * out_par_d != (gint64) in_par_d * out_par_n)
    in_w = p->in_width * ((gdouble) in_par_n * out_par_d) /
        ((gdouble) in_par_d * out_par_n);
  r = MIN ((gdouble) p->out_width / in_w,
      (gdouble) p->out_height / p->in_height);
  p->dest_width = CLAMP ((gint) rint (in_w * r), 1, p->out_width);
  p->dest_height = CLAMP ((gint) rint (p->in_height * r), 1, p->out_height);
  if (options->position == GST_CUDA_CACHE_LETTERBOX_POSITION_CENTER) {
    p->dest_x = (p->out_width - p->dest_width) / 2;
    p->dest_y = (p->out_height - p->dest_height) / 2;
  }
  /* GstVideoConverter aligns the picture to the chroma grid of a 4:2:0
   * output; so do the kernels, and the rectangle apps are given */
  if (yuv_420_out) {
    p->dest_x &= ~1;
    p->dest_y &= ~1;
  }
}

/* Whether the @w x @h rectangle at @x, @y lies inside @fw x @fh; says
 * which does not otherwise. */
static gboolean
rect_inside (gint64 x, gint64 y, gint64 w, gint64 h, gint fw, gint fh,
    const gchar * what, const gchar * frame, GError ** error)
{
  if (x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= fw && y + h <= fh)
    return TRUE;
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "%s, %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " at %" G_GINT64_FORMAT
      ",%" G_GINT64_FORMAT ", does not lie inside the %dx%d %s", what, w, h,
      x, y, fw, fh, frame);
  return FALSE;
}

gboolean
gst_cuda_cache_convert_params_source (const GstVideoInfo * in,
    const GstCudaCacheConverterOptions * options,
    const GstCudaCacheInputCrop * crop, GstVideoRectangle * source,
    GError ** error)
{
  gint fw = crop ? crop->width : GST_VIDEO_INFO_WIDTH (in);
  gint fh = crop ? crop->height : GST_VIDEO_INFO_HEIGHT (in);
  gint xs = (1 << GST_VIDEO_FORMAT_INFO_W_SUB (in->finfo, 1)) - 1;
  gint ys = (1 << GST_VIDEO_FORMAT_INFO_H_SUB (in->finfo, 1)) - 1;
  GstVideoRectangle vis = { 0, 0, fw, fh };
  const gchar *frame = crop ? "frame the buffer's crop meta shows" :
      "input frame";
  gint64 x = 0, y = 0, w, h;

  if (crop) {
    vis = crop->visible;
    if (!rect_inside (vis.x, vis.y, vis.w, vis.h, fw, fh,
            "the buffer's GstVideoCropMeta", "frame its memory holds (its "
            "GstVideoMeta's size, or the caps')", error))
      return FALSE;
  }
  w = vis.w;
  h = vis.h;
  if (options->src_x || options->src_y || options->src_width ||
      options->src_height) {
    x = options->src_x;
    y = options->src_y;
    /* a start past the frame leaves no size to speak of */
    if (x >= vis.w || y >= vis.h) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "the config's source rectangle (src-x, src-y, src-width, "
          "src-height) starts at %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
          ", outside the %dx%d %s (src-x from 0 to %d, src-y from 0 to %d)",
          x, y, vis.w, vis.h, frame, vis.w - 1, vis.h - 1);
      return FALSE;
    }
    w = options->src_width ? options->src_width : vis.w - x;
    h = options->src_height ? options->src_height : vis.h - y;
    if (!rect_inside (x, y, w, h, vis.w, vis.h, "the config's source "
            "rectangle (src-x, src-y, src-width, src-height)", frame, error))
      return FALSE;
  }
  /* in the buffer's frame */
  x += vis.x;
  y += vis.y;

  /* subsampled chroma: the region's edges on its grid, the far ones up to
   * the frame's edge at most (an odd frame's last chroma sample covers
   * it) */
  source->x = (gint) (x & ~xs);
  source->y = (gint) (y & ~ys);
  source->w = (gint) (MIN ((x + w + xs) & ~xs, fw) - source->x);
  source->h = (gint) (MIN ((y + h + ys) & ~ys, fh) - source->y);

  return TRUE;
}

void
gst_cuda_cache_convert_params_source_offsets (const GstCudaCacheConvertParams
    * p, GstVideoFormat format, const gint * stride,
    gsize offset[GST_VIDEO_MAX_PLANES])
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);
  guint c;

  memset (offset, 0, GST_VIDEO_MAX_PLANES * sizeof (gsize));
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    guint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);

    /* a plane's first component gives its pixels' stride */
    if (c > 0 && GST_VIDEO_FORMAT_INFO_PLANE (finfo, c - 1) == plane)
      continue;
    offset[plane] = (gsize) GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c,
        p->src_y) * stride[plane] + (gsize)
        GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c, p->src_x) *
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
  }
}

void
gst_cuda_cache_convert_params_fill (GstCudaCacheConvertParams * p,
    const GstCudaCacheConverterInfo * info,
    const GstCudaCacheConverterOptions * options,
    const GstVideoRectangle * source)
{
  const GstVideoInfo *in = &info->in_info;
  gint depth = gst_cuda_cache_convert_params_input_depth (in);
  gboolean yuv_out = !info->tensor_out &&
      GST_VIDEO_INFO_IS_YUV (&info->out_info);
  guint i;

  memset (p, 0, sizeof (*p));

  if (info->tensor_out) {
    p->out_width = gst_cuda_cache_tensor_info_get_width (&info->tensor);
    p->out_height = gst_cuda_cache_tensor_info_get_height (&info->tensor);
    p->out_format = GST_VIDEO_FORMAT_UNKNOWN;
  } else {
    p->out_width = GST_VIDEO_INFO_WIDTH (&info->out_info);
    p->out_height = GST_VIDEO_INFO_HEIGHT (&info->out_info);
    p->out_format = GST_VIDEO_INFO_FORMAT (&info->out_info);
  }

  /* the frame the kernels read (gstcudacachekernels-private.h, 7.):
   * 16-bit 4:2:0 as NV12, 4:2:2 packed as RGBx, GRAY8 as I420 */
  switch (GST_VIDEO_INFO_FORMAT (in)) {
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      p->in_format = GST_VIDEO_FORMAT_RGBx;
      break;
    case GST_VIDEO_FORMAT_GRAY8:
      p->in_format = GST_VIDEO_FORMAT_I420;
      break;
    default:
      p->in_format = depth ? GST_VIDEO_FORMAT_NV12 : GST_VIDEO_INFO_FORMAT (in);
      break;
  }
  p->method = options->method;
  p->in_width = source->w;
  p->in_height = source->h;
  p->src_x = source->x;
  p->src_y = source->y;
  p->in_chroma_site = GST_VIDEO_INFO_CHROMA_SITE (in);

  /* every YUV output the converter makes is 4:2:0; a tensor's pixels are
   * square */
  picture_rect (p, options, GST_VIDEO_INFO_PAR_N (in),
      GST_VIDEO_INFO_PAR_D (in),
      info->tensor_out ? 1 : GST_VIDEO_INFO_PAR_N (&info->out_info),
      info->tensor_out ? 1 : GST_VIDEO_INFO_PAR_D (&info->out_info), yuv_out);
  for (i = 0; i < 3; i++)
    p->fill[i] = options->fill[i];

  /* the kernels read each matrix only for YUV (or gray) on its side */
  if (depth) {
    /* the range's offsets and scales of 8-bit samples */
    GstVideoInfo narrowed = *in;

    narrowed.finfo = gst_video_format_get_info (GST_VIDEO_FORMAT_NV12);
    yuv_to_rgb_matrix (&narrowed, p->yuv_to_rgb);
  } else if (GST_VIDEO_INFO_IS_YUV (in) || GST_VIDEO_INFO_IS_GRAY (in)) {
    yuv_to_rgb_matrix (in, p->yuv_to_rgb);
  }
  if (yuv_out || (!info->tensor_out && GST_VIDEO_INFO_IS_GRAY
          (&info->out_info)))
    rgb_to_yuv_matrix (&info->out_info, p->rgb_to_yuv);
  p->channels = info->tensor_out ?
      gst_cuda_cache_tensor_info_get_channels (&info->tensor) : 0;
  if (p->channels == 1) {
    /* a gray tensor: GRAY8's luma, as the CPU path packs it from */
    GstVideoInfo gray;

    gst_video_info_set_format (&gray, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    rgb_to_yuv_matrix (&gray, p->rgb_to_yuv);
  }

  /* tensor values: v * scale / std - mean / std */
  if (info->tensor_out) {
    p->dtype = info->tensor.dtype;
    p->layout = info->tensor.layout;
  }
  p->bgr = options->channel_order == GST_CUDA_CACHE_CHANNEL_ORDER_BGR;
  for (i = 0; i < 3; i++) {
    p->mul[i] = options->scale / options->std[i];
    p->add[i] = -options->mean[i] / options->std[i];
  }
}
