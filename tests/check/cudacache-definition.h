/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* What cudacacheconvert's output should be, for the suites that check it:
 * the outputs and geometries they convert, how two outputs are compared,
 * and the definition the kernels follow (compare_with_definition ()), in
 * double. The GPU suite holds the kernels to it; libs/converter, in CI,
 * checks it against the CPU path where GstVideoConverter is near it. */

#ifndef __CUDACACHE_DEFINITION_H__
#define __CUDACACHE_DEFINITION_H__

#include <math.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-config.h"

/* One output of the element: a video format, or a tensor (format NULL). */
typedef struct
{
  const gchar *format;
  const gchar *dtype;
  const gchar *layout;
  const gchar *order;
  gboolean normalise;           /* scale 1/255 and ImageNet's mean and std */
  gboolean gray;                /* a tensor of 1 channel */
} Output;

/* The channels of tensor @o */
static inline gint
output_channels (const Output * o)
{
  return o->gray ? 1 : 3;
}

/* Whether @o is gray: GRAY8, or a tensor of 1 channel */
static inline gboolean
output_is_gray (const Output * o)
{
  return o->gray || (o->format && g_str_equal (o->format, "GRAY8"));
}

static const gdouble G_GNUC_UNUSED imagenet_std[3] = { 0.229, 0.224, 0.225 };
static const gdouble G_GNUC_UNUSED imagenet_mean[3] = { 0.485, 0.456, 0.406 };

/* One geometry: every input format is converted to @outputs of it. */
typedef struct
{
  gint in_w, in_h, out_w, out_h;
  gboolean letterbox;
  gboolean all_outputs;         /* else two of them per input, in turn */
  gboolean yuv_only;            /* NV12 and I420 input only */
  const gchar *colorimetry;     /* of the input, or NULL for the default */
  const gchar *chroma_site;     /* of the input, or NULL for the default */
} Geometry;

static inline gchar *
output_caps (const Output * o, gint w, gint h, gboolean cuda)
{
  const gchar *feature = cuda ? "(memory:CUDAMemory)" : "";

  if (o->format)
    return g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d",
        feature, o->format, w, h);
  if (g_str_equal (o->layout, "NHWC"))
    return g_strdup_printf ("other/tensors%s,format=static,num_tensors=1,"
        "types=%s,dimensions=%d:%d:%d:1,layout=NHWC", feature, o->dtype,
        output_channels (o), w, h);
  return g_strdup_printf ("other/tensors%s,format=static,num_tensors=1,"
      "types=%s,dimensions=%d:%d:%d:1,layout=NCHW", feature, o->dtype, w, h,
      output_channels (o));
}

/* @geo's input caps for a frame of @info: its colorimetry where @geo names
 * one */
static inline gchar *
input_caps (const GstVideoInfo * info, const Geometry * geo, gboolean cuda)
{
  return g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d,"
      "framerate=30/1%s%s%s%s", cuda ? "(memory:CUDAMemory)" : "",
      GST_VIDEO_INFO_NAME (info), geo->in_w, geo->in_h,
      geo->colorimetry ? ",colorimetry=" : "",
      geo->colorimetry ? geo->colorimetry : "",
      geo->chroma_site ? ",chroma-site=" : "",
      geo->chroma_site ? geo->chroma_site : "");
}

static inline gfloat
half_to_float (guint16 h)
{
  guint32 sign = (guint32) (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  union
  {
    guint32 u;
    gfloat f;
  } v;

  if (exp == 0)
    return (sign ? -1.0f : 1.0f) * ldexpf ((gfloat) mant, -24);
  if (exp == 31)
    v.u = sign | 0x7f800000 | (mant << 13);
  else
    v.u = sign | ((exp + 112) << 23) | (mant << 13);
  return v.f;
}

/* Where two outputs differ most, in 8-bit levels, and their values
 * there (the reference's: the CPU path's or the definition's; the
 * kernels') */
typedef struct
{
  gdouble levels;
  gchar where[96];
  /* compare_with_definition (): the definition rounds to 8-bit RGB on the
   * way (each input pixel before it scales: 4:2:2 and GRAY8 input, 4:2:0
   * input whose picture grows; each output pixel before its gray), where
   * a double and a float can round a value at a half either way: a level
   * more in that value, a level more at most in the output */
  gboolean rounds_first;
} Difference;

static inline void
note_difference (Difference * d, gdouble levels, const gchar * plane, gint x,
    gint y, gint c, gdouble reference, gdouble gpu)
{
  d->levels = levels;
  g_snprintf (d->where, sizeof (d->where), "%s x=%d y=%d c=%d (reference "
      "%g, kernels %g)", plane, x, y, c, reference, gpu);
}

/* Every value of two outputs of @o, @w x @h, compared (@cpu the
 * reference's, @gpu the kernels'; @scaled: alpha is then left out) */
static inline Difference
compare_outputs (GstBuffer * cpu, GstBuffer * gpu, const Output * o, gint w,
    gint h, gboolean scaled)
{
  gchar *caps_str = output_caps (o, w, h, FALSE);
  GstCaps *caps = gst_caps_from_string (caps_str);
  Difference d = { 0, };

  if (!o->format) {
    gboolean nchw = g_str_equal (o->layout, "NCHW");
    gboolean bgr = g_str_equal (o->order, "bgr") && !o->gray;
    gint c = output_channels (o);
    GstMapInfo a, b;
    gsize n = (gsize) w * h * c, i;

    fail_unless (gst_buffer_map (cpu, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (gpu, &b, GST_MAP_READ));
    for (i = 0; i < n; i++) {
      gint k = nchw ? i / ((gsize) w * h) : i % c;
      gsize pixel = nchw ? i % ((gsize) w * h) : i / c;
      /* one level of the channel this value holds */
      gdouble level = o->normalise ?
          1.0 / 255.0 / imagenet_std[bgr ? 2 - k : k] : 1.0;
      gdouble va, vb, diff;

      switch (o->dtype[5]) {
        case '1':              /* float16 */
          va = half_to_float (((guint16 *) a.data)[i]);
          vb = half_to_float (((guint16 *) b.data)[i]);
          break;
        case '3':              /* float32 */
          va = ((gfloat *) a.data)[i];
          vb = ((gfloat *) b.data)[i];
          break;
        default:               /* uint8 */
          va = a.data[i];
          vb = b.data[i];
          break;
      }
      diff = isnan (va - vb) ? G_MAXDOUBLE : fabs (va - vb) / level;
      if (diff > d.levels || !d.where[0])
        note_difference (&d, diff, "tensor", pixel % w, pixel / w, k, va, vb);
    }
    gst_buffer_unmap (gpu, &b);
    gst_buffer_unmap (cpu, &a);
  } else {
    GstVideoInfo info;
    GstVideoFrame a, b;
    guint p, x, y;
    /* RGBx/BGRx padding carries nothing; the kernels write alpha 255
     * (the pictures here are opaque), GstVideoConverter scales alpha with
     * fixed-point taps (247 after 128 of them): alpha is checked only
     * unscaled */
    gboolean padded = g_str_has_suffix (o->format, "x") ||
        (g_str_has_suffix (o->format, "A") && scaled);

    fail_unless (gst_video_info_from_caps (&info, caps));
    fail_unless (gst_video_frame_map (&a, &info, cpu, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, &info, gpu, GST_MAP_READ));
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      guint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&a, p);
      guint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&a, p);
      guint bytes = GST_VIDEO_FRAME_COMP_WIDTH (&a, p) * pstride;
      const gchar *names[] = { "plane 0", "plane 1", "plane 2" };

      for (y = 0; y < rows; y++) {
        const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, p) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, p);
        const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, p) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, p);

        for (x = 0; x < bytes; x++) {
          gdouble diff = fabs ((gdouble) ra[x] - rb[x]);

          if (padded && x % 4 == 3)
            continue;
          if (diff > d.levels || !d.where[0])
            note_difference (&d, diff, names[p], x / pstride, y, x % pstride,
                ra[x], rb[x]);
        }
      }
    }
    gst_video_frame_unmap (&b);
    gst_video_frame_unmap (&a);
  }
  gst_caps_unref (caps);
  g_free (caps_str);

  return d;
}

/* The picture's size in @geo's output: letterboxed, one side is smaller
 * than the output's (the converter's own rectangle may differ by a pixel
 * of rounding and 4:2:0 alignment). */
static inline void
picture_size (const Geometry * geo, gint * dw, gint * dh)
{
  *dw = geo->out_w;
  *dh = geo->out_h;
  if (!geo->letterbox)
    return;
  if ((gint64) geo->in_w * geo->out_h > (gint64) geo->in_h * geo->out_w)
    *dh = MAX (1, (gint) ((gint64) geo->out_w * geo->in_h / geo->in_w));
  else
    *dw = MAX (1, (gint) ((gint64) geo->out_h * geo->in_w / geo->in_h));
}

/* How far @o from @info may be off the definition where @d was found,
 * in levels: the output's one rounding to 8 bits, float16's, the float
 * sums' (a trace for RGB input; 4:2:0 input's taps across are 16-bit
 * fixed point, and the matrix after the taps doubles chroma's error), and
 * a level more where the definition rounds a pixel first. */
static inline gdouble
definition_tolerance (const Difference * d, const GstVideoInfo * info,
    const Output * o)
{
  return 0.5 + (o->dtype && o->dtype[5] == '1' ? 0.15 :
      GST_VIDEO_INFO_IS_RGB (info) ? 0.02 : 0.1) +
      (d->rounds_first ? 1.0 : 0.0);
}

/* Input the kernels read through a stand-in frame (4:2:2 packed, GRAY8):
 * the definition converts it to 8-bit RGB first, every pixel (chroma
 * upsampled across as chroma_upsampled () does, @geo's colorimetry's
 * matrix, rounded half up and clamped; GRAY8's chroma 128), and then
 * scales that RGBx frame as RGB-family input. */
static inline gboolean
definition_has_stand_in (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_YUY2 || format == GST_VIDEO_FORMAT_UYVY ||
      format == GST_VIDEO_FORMAT_GRAY8;
}

/* 4:2:0 input's U (@k 1) or V (@k 2) upsampled to luma pixel (@x, @y)
 * linearly, as the kernels' chroma_h () and read_pixel () do: chroma half
 * a luma pixel right of and below its block's first luma sample unless
 * cosited, vertically cosited chroma repeated. */
static inline gdouble
chroma_upsampled (const GstVideoFrame * f, gint k, gint x, gint y,
    gboolean h_cosited, gboolean v_cosited)
{
  gint cw = (GST_VIDEO_FRAME_WIDTH (f) + 1) / 2;
  gint ch = (GST_VIDEO_FRAME_HEIGHT (f) + 1) / 2;
  gint c0 = h_cosited ? x / 2 : (x - 1 < 0 ? -1 : (x - 1) / 2);
  gint r0 = v_cosited ? y / 2 : (y - 1 < 0 ? -1 : (y - 1) / 2);
  gdouble fx = h_cosited ? ((x & 1) ? 0.5 : 0.0) : ((x & 1) ? 0.25 : 0.75);
  gdouble fy = v_cosited ? 0.0 : ((y & 1) ? 0.25 : 0.75);
  gdouble rows[2];
  gint i;

  for (i = 0; i < 2; i++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, k) +
        CLAMP (r0 + i, 0, ch - 1) * GST_VIDEO_FRAME_COMP_STRIDE (f, k);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, k);
    gdouble a = row[CLAMP (c0, 0, cw - 1) * ps];
    gdouble b = row[CLAMP (c0 + 1, 0, cw - 1) * ps];

    rows[i] = a + fx * (b - a);
  }
  return rows[0] + fy * (rows[1] - rows[0]);
}

/* One axis of the definition: for output index @j of @n, the first input
 * index and @n_taps weights (at most 128) */
typedef struct
{
  GstVideoResampler resampler;
  gboolean two_tap;
  gint inc;
  gint in_size;
} DefinitionAxis;

static inline void
definition_axis_init (DefinitionAxis * a, gint in_size, gint out_size,
    gboolean may_two_tap)
{
  fail_unless (gst_video_resampler_init (&a->resampler,
          GST_VIDEO_RESAMPLER_METHOD_LINEAR, 0, out_size, 0, 0.0, in_size,
          out_size, NULL));
  a->in_size = in_size;
  a->two_tap = may_two_tap && a->resampler.max_taps == 2 && in_size != out_size;
  /* 16.16 fixed point in 64 bits: past 32768 pixels it leaves an int */
  a->inc = out_size == 1 ? 0 :
      (gint) ((((gint64) in_size - 1) << 16) / (out_size - 1) - 1);
}

static inline gint
definition_taps (const DefinitionAxis * a, gint j, gdouble * w)
{
  const GstVideoResampler *r = &a->resampler;
  guint l;

  if (a->two_tap) {
    gint64 pos = (gint64) j * a->inc;
    gdouble frac = ((pos >> 8) & 0xff) / 256.0;

    w[0] = 1.0 - frac;
    w[1] = frac;
    return (gint) (pos >> 16);
  }
  for (l = 0; l < r->max_taps; l++)
    w[l] = r->taps[r->phase[j] * r->max_taps + l];
  return r->offset[j];
}

static inline gint
definition_n_taps (const DefinitionAxis * a)
{
  return a->two_tap ? 2 : (gint) a->resampler.max_taps;
}

/* @info's colorimetry as a matrix from Y, U and V (@to_rgb) or to them
 * (@from_rgb), R', G' and B' on the 0..255 scale: Kr, Kb and the range as
 * GStreamer gives them */
static inline void
definition_matrix (const GstVideoInfo * info, gdouble to_rgb[3][4],
    gdouble from_rgb[3][4])
{
  gdouble kr, kb, kg;
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gint k;

  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, &kr, &kb)) {
    kr = 0.299;
    kb = 0.114;
  }
  kg = 1.0 - kr - kb;
  gst_video_color_range_offsets (info->colorimetry.range, info->finfo,
      offset, scale);
  for (k = 0; to_rgb && k < 3; k++) {
    gdouble cu = k == 1 ? -kb * 2.0 * (1.0 - kb) / kg : k == 2 ?
        2.0 * (1.0 - kb) : 0.0;
    gdouble cv = k == 0 ? 2.0 * (1.0 - kr) : k == 1 ?
        -kr * 2.0 * (1.0 - kr) / kg : 0.0;

    /* gray: no chroma, no chroma range */
    to_rgb[k][0] = 255.0 / scale[0];
    to_rgb[k][1] = scale[1] ? 255.0 * cu / scale[1] : 0.0;
    to_rgb[k][2] = scale[1] ? 255.0 * cv / scale[1] : 0.0;
    to_rgb[k][3] = -to_rgb[k][0] * offset[0] -
        (to_rgb[k][1] + to_rgb[k][2]) * 128.0;
  }
  if (from_rgb) {
    gdouble y[3] = { kr, kg, kb };

    /* Y = offset + scale * Y'; U = 128 + scale * (B' - Y') / (2 (1 - Kb)),
     * V likewise with R' and Kr */
    for (k = 0; k < 3; k++) {
      from_rgb[0][k] = scale[0] * y[k] / 255.0;
      from_rgb[1][k] = scale[1] * ((k == 2) - y[k]) / (2.0 * (1.0 - kb)) /
          255.0;
      from_rgb[2][k] = scale[1] * ((k == 0) - y[k]) / (2.0 * (1.0 - kr)) /
          255.0;
    }
    from_rgb[0][3] = offset[0];
    from_rgb[1][3] = from_rgb[2][3] = 128.0;
  }
}

/* Y (@k 0), U or V of R'G'B' @c by @m */
static inline gdouble
definition_yuv (const gdouble m[3][4], const gdouble * c, gint k)
{
  return CLAMP (m[k][0] * c[0] + m[k][1] * c[1] + m[k][2] * c[2] + m[k][3],
      0.0, 255.0);
}

/* Makes the stand-in of definition_has_stand_in () input @sys */
static inline GstBuffer *
definition_stand_in (GstBuffer * sys, const GstVideoInfo * info,
    const Geometry * geo, GstVideoInfo * rgbx_info)
{
  gchar *in_str = input_caps (info, geo, FALSE);
  GstCaps *in_caps = gst_caps_from_string (in_str);
  GstVideoInfo caps_info;
  GstVideoFrame in, out;
  GstBuffer *rgbx;
  gdouble to_rgb[3][4];
  gboolean gray = GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_GRAY8;
  gboolean cosited;
  gint w = geo->in_w, h = geo->in_h, cw = (w + 1) / 2, x, y, k;

  fail_unless (gst_video_info_from_caps (&caps_info, in_caps));
  definition_matrix (&caps_info, to_rgb, NULL);
  cosited = (GST_VIDEO_INFO_CHROMA_SITE (&caps_info) &
      GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  gst_video_info_set_format (rgbx_info, GST_VIDEO_FORMAT_RGBx, w, h);
  rgbx = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (rgbx_info),
      NULL);
  fail_unless (gst_video_frame_map (&in, info, sys, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out, rgbx_info, rgbx, GST_MAP_WRITE));
  for (y = 0; y < h; y++) {
    const guint8 *comp[3];
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&out, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&out, 0);

    for (k = 0; k < (gray ? 1 : 3); k++)
      comp[k] = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&in, k) +
          y * GST_VIDEO_FRAME_COMP_STRIDE (&in, k);
    for (x = 0; x < w; x++) {
      gint c0 = cosited ? x / 2 : (x - 1 < 0 ? -1 : (x - 1) / 2);
      gdouble f = cosited ? ((x & 1) ? 0.5 : 0.0) : ((x & 1) ? 0.25 : 0.75);
      gdouble yuv[3];

      yuv[0] = comp[0][x * GST_VIDEO_FRAME_COMP_PSTRIDE (&in, 0)];
      for (k = 1; k < 3; k++) {
        gint ps = gray ? 0 : GST_VIDEO_FRAME_COMP_PSTRIDE (&in, k);
        gdouble a = gray ? 128.0 : comp[k][CLAMP (c0, 0, cw - 1) * ps];
        gdouble b = gray ? 128.0 : comp[k][CLAMP (c0 + 1, 0, cw - 1) * ps];

        yuv[k] = a + f * (b - a);
      }
      for (k = 0; k < 3; k++)
        row[4 * x + k] = (guint8) CLAMP (floor (to_rgb[k][0] * yuv[0] +
                to_rgb[k][1] * yuv[1] + to_rgb[k][2] * yuv[2] +
                to_rgb[k][3] + 0.5), 0.0, 255.0);
      row[4 * x + 3] = 255;
    }
  }
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  gst_caps_unref (in_caps);
  g_free (in_str);

  return rgbx;
}

/* The definition the kernels and the CPU path follow (docs/elements.md),
 * in double, for every input and output:
 * - GstVideoResampler's LINEAR taps on both axes, with its edge handling,
 *   except where GstVideoScaler grows 8-bit lines across by its 2-tap
 *   fixed-point path (positions in 1/65536 of a pixel, weights in 1/256:
 *   lines of 4 bytes, 4:2:0 input's, and lines of 3 bytes unless the
 *   output is that same format), which the kernels reproduce; one
 *   rounding, to 8 bits, at the end; the letterbox's border 114.
 * - 4:2:0 input: Y and U and V, the chroma upsampled linearly as sited,
 *   each filtered with the taps, then the input colorimetry's matrix; where
 *   the picture's area grows and the output is not 4:2:0, every input pixel
 *   converted so and rounded to 8-bit RGB first, then filtered (as
 *   GstVideoConverter orders it).
 * - 4:2:2 packed and GRAY8 input: RGB-family input once converted
 *   (definition_stand_in ()).
 * - NV12 and I420 output: the output colorimetry's matrix makes Y of each
 *   pixel and U and V of each 2x2 block's mean (its picture pixels only,
 *   where it straddles the picture's edge), of the RGB unclamped.
 * - Gray output (GRAY8, 1-channel tensors): the luma of the RGB rounded to
 *   8 bits, GRAY8's colorimetry's weights.
 *
 * Every value of @gpu (the output of @o for @geo from @sys, of the
 * kernels or of the CPU path) against it, in 8-bit levels: R, G and B, or
 * Y, U and V for NV12 and I420 output. */
static inline Difference
compare_with_definition (GstBuffer * sys, const GstVideoInfo * info,
    GstBuffer * gpu, const Output * o, const Geometry * geo)
{
  GstVideoFormat in_format = GST_VIDEO_INFO_FORMAT (info);
  gchar *in_str, *out_str;
  GstCaps *in_caps, *out_caps;
  GstCudaCacheConverter *conv;
  GstVideoRectangle rect;
  DefinitionAxis ax, ay;
  GstVideoFrame in_frame, out_frame;
  GstVideoInfo out_info;
  GstMapInfo map;
  Difference d = { 0, };
  gdouble wx[128], wy[128], to_rgb[3][4] = { {0,}, }, from_rgb[3][4];
  gdouble *want_rgb;
  gboolean same_rgb, yuv = !GST_VIDEO_INFO_IS_RGB (info), yuv420_out;
  gboolean convert_first;
  gboolean h_cosited = FALSE, v_cosited = FALSE;
  gboolean gray_out = output_is_gray (o);
  gint x, y, k, l, m;

  if (definition_has_stand_in (in_format)) {
    GstVideoInfo rgbx_info;
    Geometry rgbx_geo = *geo;
    GstBuffer *rgbx = definition_stand_in (sys, info, geo, &rgbx_info);

    rgbx_geo.colorimetry = NULL;
    d = compare_with_definition (rgbx, &rgbx_info, gpu, o, &rgbx_geo);
    d.rounds_first = TRUE;
    gst_buffer_unref (rgbx);
    return d;
  }

  in_str = input_caps (info, geo, FALSE);
  out_str = output_caps (o, geo->out_w, geo->out_h, FALSE);
  in_caps = gst_caps_from_string (in_str);
  out_caps = gst_caps_from_string (out_str);

  /* the picture's rectangle, as the converter works it out */
  conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
      gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX,
          G_TYPE_BOOLEAN, geo->letterbox, NULL), NULL);
  fail_unless (conv != NULL);
  fail_unless (test_picture_rect (conv, &rect));
  gst_object_unref (conv);

  /* GstVideoConverter scales RGB and BGR in place when the output (a
   * tensor's: RGB) is that same format: no 2-tap path there */
  same_rgb = (in_format == GST_VIDEO_FORMAT_RGB ||
      in_format == GST_VIDEO_FORMAT_BGR) &&
      in_format == (o->format ? gst_video_format_from_string (o->format) :
      GST_VIDEO_FORMAT_RGB);
  definition_axis_init (&ax, geo->in_w, rect.w, !same_rgb);
  definition_axis_init (&ay, geo->in_h, rect.h, FALSE);

  /* 4:2:0 input: its caps' colorimetry and chroma siting, and R'G'B' on
   * the 0..255 scale from Y, U and V */
  if (yuv) {
    GstVideoInfo caps_info;

    fail_unless (gst_video_info_from_caps (&caps_info, in_caps));
    h_cosited = (GST_VIDEO_INFO_CHROMA_SITE (&caps_info) &
        GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
    v_cosited = (GST_VIDEO_INFO_CHROMA_SITE (&caps_info) &
        GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
    definition_matrix (&caps_info, to_rgb, NULL);
  }

  fail_unless (gst_video_frame_map (&in_frame, info, sys, GST_MAP_READ));
  if (o->format) {
    /* the output's caps' colorimetry: the default for its size */
    fail_unless (gst_video_info_from_caps (&out_info, out_caps));
    fail_unless (gst_video_frame_map (&out_frame, &out_info, gpu,
            GST_MAP_READ));
  } else {
    fail_unless (gst_buffer_map (gpu, &map, GST_MAP_READ));
  }
  yuv420_out = o->format && GST_VIDEO_INFO_IS_YUV (&out_info);
  convert_first = yuv && !yuv420_out &&
      (gint64) rect.w * rect.h > (gint64) geo->in_w * geo->in_h;
  /* gray is made from the RGB rounded to 8 bits */
  d.rounds_first = convert_first || gray_out;
  if (yuv420_out)
    definition_matrix (&out_info, NULL, from_rgb);
  if (gray_out) {
    /* GRAY8's luma; a tensor's is GRAY8's default colorimetry's */
    GstVideoInfo gray_info;

    gst_video_info_set_format (&gray_info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    definition_matrix (o->format ? &out_info : &gray_info, NULL, from_rgb);
  }
  want_rgb = g_new (gdouble, (gsize) geo->out_w * geo->out_h * 3);

  for (y = 0; y < geo->out_h; y++) {
    gboolean row_in = y >= rect.y && y < rect.y + rect.h;
    gint fy = row_in ? definition_taps (&ay, y - rect.y, wy) : 0;

    for (x = 0; x < geo->out_w; x++) {
      gboolean inside = row_in && x >= rect.x && x < rect.x + rect.w;
      gint fx = inside ? definition_taps (&ax, x - rect.x, wx) : 0;

      gdouble yuv_sum[3] = { 0, };

      /* 4:2:0: Y, U and V filtered first, R, G and B made from them */
      for (l = 0; inside && yuv && l < definition_n_taps (&ay); l++) {
        gint sy = CLAMP (fy + l, 0, geo->in_h - 1);
        const guint8 *row = (const guint8 *)
            GST_VIDEO_FRAME_COMP_DATA (&in_frame, 0) +
            sy * GST_VIDEO_FRAME_COMP_STRIDE (&in_frame, 0);

        for (m = 0; m < definition_n_taps (&ax); m++) {
          gint sx = CLAMP (fx + m, 0, geo->in_w - 1);
          gdouble w = wy[l] * wx[m];
          gdouble u = chroma_upsampled (&in_frame, 1, sx, sy, h_cosited,
              v_cosited);
          gdouble v = chroma_upsampled (&in_frame, 2, sx, sy, h_cosited,
              v_cosited);

          if (convert_first) {
            /* the pixel's 8-bit RGB, weighted */
            for (k = 0; k < 3; k++)
              yuv_sum[k] += w * CLAMP (floor (to_rgb[k][0] * row[sx] +
                      to_rgb[k][1] * u + to_rgb[k][2] * v + to_rgb[k][3] +
                      0.5), 0.0, 255.0);
            continue;
          }
          yuv_sum[0] += w * row[sx];
          yuv_sum[1] += w * u;
          yuv_sum[2] += w * v;
        }
      }

      for (k = 0; k < 3; k++) {
        gdouble want = 114.0;

        if (inside && yuv && convert_first) {
          want = yuv_sum[k];
        } else if (inside && yuv) {
          /* clamped where it is stored as RGB; NV12 and I420 take it
           * unclamped (the same size, Y comes back as it was) */
          want = to_rgb[k][0] * yuv_sum[0] + to_rgb[k][1] * yuv_sum[1] +
              to_rgb[k][2] * yuv_sum[2] + to_rgb[k][3];
          if (!yuv420_out)
            want = CLAMP (want, 0.0, 255.0);
        } else if (inside) {
          want = 0.0;
          for (l = 0; l < definition_n_taps (&ay); l++) {
            gint sy = CLAMP (fy + l, 0, geo->in_h - 1);
            const guint8 *row = (const guint8 *)
                GST_VIDEO_FRAME_COMP_DATA (&in_frame, k) +
                sy * GST_VIDEO_FRAME_COMP_STRIDE (&in_frame, k);

            for (m = 0; m < definition_n_taps (&ax); m++) {
              gint sx = CLAMP (fx + m, 0, geo->in_w - 1);

              want += wy[l] * wx[m] *
                  row[sx * GST_VIDEO_FRAME_COMP_PSTRIDE (&in_frame, k)];
            }
          }
        }
        want_rgb[((gsize) y * geo->out_w + x) * 3 + k] = want;
      }
    }
  }

  for (y = 0; y < geo->out_h; y++) {
    for (x = 0; x < geo->out_w; x++) {
      for (k = 0; k < (gray_out ? 1 : 3); k++) {
        const gdouble *c = want_rgb + ((gsize) y * geo->out_w + x) * 3;
        gdouble want = c[k], got, diff;

        if (gray_out) {
          /* the luma of the 8-bit RGB */
          gdouble rgb8[3];

          for (m = 0; m < 3; m++)
            rgb8[m] = CLAMP (floor (c[m] + 0.5), 0.0, 255.0);
          want = definition_yuv (from_rgb, rgb8, 0);
          if (o->format) {
            got = ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&out_frame,
                    0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, 0) + x];
          } else {
            gsize i = (gsize) y * geo->out_w + x;

            got = o->dtype[5] == '1' ?
                half_to_float (((const guint16 *) map.data)[i]) :
                o->dtype[5] == '3' ? ((const gfloat *) map.data)[i] :
                map.data[i];
            if (o->normalise)
              got = (got * imagenet_std[0] + imagenet_mean[0]) * 255.0;
          }
        } else if (yuv420_out) {
          /* Y of every pixel; U and V of a 2x2 block at its first pixel */
          gdouble mean[3] = { 0, }, picture[3] = { 0, };
          gint n = 0, n_picture = 0, bx, by, ch;

          if (k == 0) {
            want = definition_yuv (from_rgb, c, 0);
          } else if ((x & 1) || (y & 1)) {
            continue;
          } else {
            for (by = y; by < MIN (y + 2, geo->out_h); by++) {
              for (bx = x; bx < MIN (x + 2, geo->out_w); bx++) {
                const gdouble *b = want_rgb +
                    ((gsize) by * geo->out_w + bx) * 3;
                gboolean in_pic = bx >= rect.x && bx < rect.x + rect.w &&
                    by >= rect.y && by < rect.y + rect.h;

                for (ch = 0; ch < 3; ch++) {
                  mean[ch] += b[ch];
                  picture[ch] += in_pic ? b[ch] : 0.0;
                }
                n++;
                n_picture += in_pic;
              }
            }
            for (ch = 0; ch < 3; ch++)
              mean[ch] = n_picture > 0 && n_picture < n ?
                  picture[ch] / n_picture : mean[ch] / n;
            want = definition_yuv (from_rgb, mean, k);
          }
          got = ((const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&out_frame, k))
              [(k ? y / 2 : y) * GST_VIDEO_FRAME_COMP_STRIDE (&out_frame, k) +
              (k ? x / 2 : x) * GST_VIDEO_FRAME_COMP_PSTRIDE (&out_frame, k)];
        } else if (o->format) {
          got = ((const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&out_frame, k))
              [y * GST_VIDEO_FRAME_COMP_STRIDE (&out_frame, k) +
              x * GST_VIDEO_FRAME_COMP_PSTRIDE (&out_frame, k)];
        } else {
          gboolean bgr = g_str_equal (o->order, "bgr");
          gint oc = bgr ? 2 - k : k;
          gsize i = g_str_equal (o->layout, "NCHW") ?
              ((gsize) oc * geo->out_h + y) * geo->out_w + x :
              ((gsize) y * geo->out_w + x) * 3 + oc;

          switch (o->dtype[5]) {
            case '1':
              got = half_to_float (((const guint16 *) map.data)[i]);
              break;
            case '3':
              got = ((const gfloat *) map.data)[i];
              break;
            default:
              got = map.data[i];
              break;
          }
          /* back to the 8-bit value it was made from: mean and std are
           * given in the tensor's channel order */
          if (o->normalise)
            got = (got * imagenet_std[oc] + imagenet_mean[oc]) * 255.0;
        }
        diff = fabs (got - want);
        if (diff > d.levels || !d.where[0])
          note_difference (&d, diff, gray_out ? "gray" : yuv420_out ?
              (k == 0 ? "Y" : k == 1 ? "U" : "V") : "definition", x, y, k,
              want, got);
      }
    }
  }

  g_free (want_rgb);
  if (o->format)
    gst_video_frame_unmap (&out_frame);
  else
    gst_buffer_unmap (gpu, &map);
  gst_video_frame_unmap (&in_frame);
  gst_video_resampler_clear (&ax.resampler);
  gst_video_resampler_clear (&ay.resampler);
  gst_caps_unref (out_caps);
  gst_caps_unref (in_caps);
  g_free (out_str);
  g_free (in_str);

  return d;
}

#endif /* __CUDACACHE_DEFINITION_H__ */
