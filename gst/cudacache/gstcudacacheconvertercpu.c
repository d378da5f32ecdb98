/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's CPU back end: system memory, converted as the definition
 * says (gstcudacachekernels-private.h), with the kernels' own taps and
 * arithmetic for the LINEAR method (gstcudacachelinear.c) and the
 * presets' for the others (gstcudacacheresample.c).
 *
 * LINEAR reads what the kernels read: NV12, I420 and packed RGB as they
 * are, 16-bit 4:2:0 narrowed to an NV12 frame, 4:2:2 packed and GRAY8
 * converted to an RGBx frame by a loop here first, as the kernels do (7.).
 * Packed RGB, NV12 and I420 output are written by it; a tensor and GRAY8
 * are packed here from its 8-bit RGB rows, on its threads (5. and 6.).
 * GstVideoConverter is not used: its fixed-point passes depart from the
 * definition at sharp chroma edges.
 *
 * The presets resample the source's 8-bit RGB (its own pixels, or the
 * RGBx stand-in of other input, each row made where the resampler's
 * threads read it) straight into packed RGB output, each row stored in
 * the output's byte order (alpha or padding 255), or into an RGB frame of
 * the output's size from which a tensor, GRAY8, NV12 or I420 is packed
 * here.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudacacheconvertercpu-private.h"
#include "gstcudacacheconvertparams-private.h"
#include "gstcudacachelinear-private.h"
#include "gstcudacacheplan-private.h"
#include "gstcudacacheresample-private.h"

struct _GstCudaCacheConverterCpu
{
  /* what it converts, as it was made for */
  GstCudaCacheConverterInfo info;
  GstCudaCacheConvertParams params;

  /* the source rectangle (params.src_x, src_y, in_width, in_height) as a
   * frame of its own; each frame is read through a view of that rectangle
   * (cpu_source_view ()) */
  GstVideoInfo source;
  /* LINEAR of 16-bit 4:2:0 input: the NV12 frame it narrows to
   * (gstcudacachekernels-private.h, 7.), else size 0 */
  GstVideoInfo stand_in;
  GstBuffer *stand_in_buf;
  /* LINEAR */
  GstCudaCacheLinear *linear;
  gboolean row_source;          /* its input rows the stand-in's, made per row */
  /* a method other than LINEAR: the picture resampled from 8-bit RGB of
   * the source's size (the input's own pixels, or its stand-in's rows,
   * made as they are read) into packed RGB output in its own byte order
   * (direct), else into the RGB frame, packed from at the same size */
  GstCudaCacheResampler *resampler;
  gboolean direct;
  GstVideoInfo rgb;
  GstBuffer *rgb_buf;
};

/* Input converted through a stand-in RGBx frame, as the kernels convert
 * it: the definition's, which GstVideoConverter departs from (it scales
 * 4:2:2 before its 8-bit matrix, and takes GRAY8 as Y without its
 * range) */
static gboolean
cpu_has_stand_in (const GstVideoInfo * in)
{
  GstVideoFormat f = GST_VIDEO_INFO_FORMAT (in);

  return f == GST_VIDEO_FORMAT_YUY2 || f == GST_VIDEO_FORMAT_UYVY ||
      f == GST_VIDEO_FORMAT_GRAY8;
}

/* gst_cuda_cache_narrow_16 ()'s narrowing of a 16-bit sample whose top
 * @depth bits are set */
static guint
cpu_narrow (guint v, gint depth)
{
  v |= v >> depth;
  return (v * 255u + 32767u) / 65535u;
}

/* Whether the output is packed from an RGB frame here: tensors, and
 * GRAY8, whose gray is the luma of that RGB (GstVideoConverter takes
 * YUV's luma as it is, its range unconverted) */
static gboolean
cpu_via_rgb (const GstCudaCacheConverterInfo * info)
{
  return info->tensor_out ||
      GST_VIDEO_INFO_FORMAT (&info->out_info) == GST_VIDEO_FORMAT_GRAY8;
}

/* Whether @info is packed 8-bit RGB of 3 or 4 bytes a pixel (the 4th
 * alpha or padding), which the resampler stores in place */
static gboolean
cpu_is_packed_rgb (const GstVideoInfo * info)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);

  return GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) &&
      !GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) &&
      GST_VIDEO_FORMAT_INFO_N_PLANES (finfo) == 1 &&
      GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 8 && (ps == 3 || ps == 4);
}

/* The presets' RGB frame is held under 2 GiB a plane, the limit of
 * GstVideoConverter (1.22's FRAME_GET_PLANE_LINE finds a row at stride *
 * row in a gint), which converted packed RGB output from it before the
 * resampler stored that output itself. Larger frames are refused before
 * anything is made. */
static gboolean
cpu_frame_fits (const GstVideoInfo * info, const gchar * what, GError ** error)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint64 bytes = (guint64) ABS (GST_VIDEO_INFO_PLANE_STRIDE (info, p)) *
        GST_VIDEO_INFO_HEIGHT (info);

    if (bytes > G_MAXINT) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot convert %s of %dx%d %s: its plane %u spans %"
          G_GUINT64_FORMAT " bytes, 2 GiB or more (convert CUDA memory "
          "instead)", what,
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), p, bytes);
      return FALSE;
    }
  }
  return TRUE;
}

/* One frame's stand-in, as the threads that make its rows share it */
typedef struct
{
  const GstCudaCacheConvertParams *p;
  const GstVideoFrame *src;
} StandIn;

/* Rows @y0..@y1 of a stand-in, row @y0 to @out, rows @out_stride bytes
 * apart */
static void
stand_in_rows_to (const StandIn * si, gint y0, gint y1, guint8 * out,
    gsize out_stride, gfloat * f)
{
  const GstVideoFrame *src = si->src;
  const GstVideoFormatInfo *finfo = src->info.finfo;
  gint depth = GST_VIDEO_FRAME_COMP_DEPTH (src, 0);
  gboolean wide = depth > 8;
  gboolean gray = GST_VIDEO_FRAME_N_COMPONENTS (src) == 1;
  gboolean sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1) > 0;
  gboolean h_cosited = (si->p->in_chroma_site &
      GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  gboolean v_cosited = (si->p->in_chroma_site &
      GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
  gint w = GST_VIDEO_FRAME_WIDTH (src), h = GST_VIDEO_FRAME_HEIGHT (src);
  gint cw = (w + 1) / 2, ch = (h + 1) / 2, x, y, k;
  const guint8 *base[3] = { NULL, NULL, NULL };
  gint ps[3] = { 0, 0, 0 };
  gfloat *yv = f, *c[2] = { f + w, f + 2 * w };
  /* 16-bit input: a chroma row's samples narrowed, and the one below, in
   * the room of cw floats; the upsampling's scratch in the next cw */
  guint8 *a = (guint8 *) (f + 3 * w), *b = a + cw;
  gint32 *down = (gint32 *) (f + 3 * w + cw);

  for (k = 0; k < (gray ? 1 : 3); k++) {
    ps[k] = GST_VIDEO_FRAME_COMP_PSTRIDE (src, k);
    base[k] = GST_VIDEO_FRAME_COMP_DATA (src, k);
  }
  /* V of an interleaved chroma pair follows U by a sample: GStreamer
   * 1.22 gives P010's and P016's V an offset of 1 byte */
  if (!gray && GST_VIDEO_FORMAT_INFO_PLANE (finfo, 1) ==
      GST_VIDEO_FORMAT_INFO_PLANE (finfo, 2))
    base[2] = base[1] + ps[1] / 2;
  if (gray) {
    for (x = 0; x < w; x++)
      c[0][x] = c[1][x] = 128.0f;
  }
#define SAMPLE(k, row, i) (wide ? \
    cpu_narrow (((const guint16 *) (row))[(i) * ps[k] / 2], depth) : \
    ((const guint8 *) (row))[(i) * ps[k]])
#define ROW(k, r) (base[k] + (gsize) (r) * GST_VIDEO_FRAME_COMP_STRIDE (src, k))

  for (y = y0; y < y1; y++) {
    /* chroma not subsampled down: the pixel's own row, no blend */
    gint cy = !sub_y ? y : gst_cuda_cache_chroma_index (y, v_cosited);
    /* the blend down in quarters: 0, 1 or 3 */
    gint fy = !sub_y ? 0 :
        (gint) (4.0f * gst_cuda_cache_chroma_frac (y, v_cosited, FALSE));
    gint rows = sub_y ? ch : h;
    gint ra = CLAMP (cy, 0, rows - 1);
    gint rb = sub_y ? CLAMP (cy + 1, 0, rows - 1) : ra;
    const guint8 *luma = ROW (0, y);

    if (wide) {
      for (x = 0; x < w; x++)
        yv[x] = SAMPLE (0, luma, x);
    } else {
      gst_cuda_cache_u8_to_float (luma, ps[0], w, 1.0f, 0.0f, yv);
    }
    for (k = 1; !gray && k < 3; k++) {
      const guint8 *top = ROW (k, ra), *bottom = ROW (k, rb);

      if (wide) {
        for (x = 0; x < cw; x++) {
          a[x] = SAMPLE (k, top, x);
          b[x] = SAMPLE (k, bottom, x);
        }
        gst_cuda_cache_chroma_up_u8 (a, b, 1, fy, cw, h_cosited, w, down,
            c[k - 1]);
      } else {
        gst_cuda_cache_chroma_up_u8 (top, bottom, ps[k], fy, cw, h_cosited,
            w, down, c[k - 1]);
      }
    }
    gst_cuda_cache_yuv_to_rgbx (si->p->yuv_to_rgb, yv, c[0], c[1], w,
        out + (gsize) (y - y0) * out_stride);
  }
#undef SAMPLE
#undef ROW
}

/* The source of input rows where a stand-in is read (LINEAR's of 4:2:2
 * packed and GRAY8 input; the presets' of all but 8-bit RGB): each row of
 * the stand-in made where the scaling reads it, no frame of it. Every
 * pixel's chroma upsampled as sited, as the kernels fold it (across:
 * linear between the two samples around it; down, where chroma is
 * subsampled: cosited rows taken as they are, others 3:1 between the two
 * rows around it; GRAY8's chroma 128), 16-bit samples narrowed to 8 bits
 * first as gst_cuda_cache_narrow_16 () does, then @p's yuv_to_rgb, each
 * channel rounded half up and clamped: as kernels/narrow.cu's
 * gst_cuda_cache_unpack_422 () and the I420 reading of GRAY8 do. */
static void
stand_in_source (gpointer data, gint row, guint8 * rgbx, gfloat * scratch)
{
  stand_in_rows_to (data, row, row + 1, rgbx, 0, scratch);
}

/* The CPU back end of a method other than LINEAR (cpu->params.method) for
 * the source @in: the resampler, and but for packed RGB video output the
 * RGB frame of the output's size it resamples into. */
static gboolean
cpu_new_resampled (GstCudaCacheConverterCpu * cpu, const GstVideoInfo * in,
    GError ** error)
{
  const GstCudaCacheConvertParams *p = &cpu->params;
  const GstCudaCacheConverterInfo *info = &cpu->info;

  cpu->resampler = gst_cuda_cache_resampler_new (p->method, p->in_width,
      p->in_height, p->dest_width, p->dest_height);
  /* packed RGB video stored by the resampler in the output's order; a
   * tensor, GRAY8, NV12 and I420 packed here from the RGB frame */
  cpu->direct = !info->tensor_out && cpu_is_packed_rgb (&info->out_info);
  if (cpu->direct)
    return TRUE;

  if (!gst_video_info_set_format (&cpu->rgb, GST_VIDEO_FORMAT_RGB,
          p->out_width, p->out_height) ||
      !cpu_frame_fits (&cpu->rgb, "the RGB frame the picture is resampled "
          "into", error)) {
    if (error && !*error)
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot lay out the %dx%d RGB frame the picture is "
          "resampled into (4 GiB or more)", p->out_width, p->out_height);
    return FALSE;
  }
  GST_VIDEO_INFO_FPS_N (&cpu->rgb) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (&cpu->rgb) = GST_VIDEO_INFO_FPS_D (in);
  cpu->rgb_buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE
      (&cpu->rgb), NULL);
  if (!cpu->rgb_buf) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "cannot allocate the frames the CPU path resamples through");
    return FALSE;
  }
  return TRUE;
}

GstCudaCacheConverterCpu *
gst_cuda_cache_converter_cpu_new (const GstCudaCacheConverterInfo * info,
    const GstCudaCacheConvertParams * params, GstCudaCacheConverterCpu * old,
    GError ** error)
{
  const GstCudaCacheConvertParams *p = params;
  const GstVideoInfo *in = &info->in_info;
  GstCudaCacheConvertParams plan;
  GstVideoFormat stand_in = GST_VIDEO_FORMAT_UNKNOWN;
  GstCudaCacheConverterCpu *cpu;

  cpu = g_new0 (GstCudaCacheConverterCpu, 1);
  cpu->info = *info;
  cpu->params = *params;
  /* the rectangle's size, as GStreamer lays it out (the view of each
   * frame takes the frame's strides) */
  gst_video_info_set_interlaced_format (&cpu->source,
      GST_VIDEO_INFO_FORMAT (in), GST_VIDEO_INFO_INTERLACE_MODE (in),
      p->in_width, p->in_height);
  cpu->source.colorimetry = in->colorimetry;
  cpu->source.chroma_site = in->chroma_site;
  GST_VIDEO_INFO_PAR_N (&cpu->source) = GST_VIDEO_INFO_PAR_N (in);
  GST_VIDEO_INFO_PAR_D (&cpu->source) = GST_VIDEO_INFO_PAR_D (in);
  GST_VIDEO_INFO_FPS_N (&cpu->source) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (&cpu->source) = GST_VIDEO_INFO_FPS_D (in);
  in = &cpu->source;
  if (p->method != GST_CUDA_CACHE_RESIZE_METHOD_LINEAR) {
    if (!cpu_new_resampled (cpu, in, error))
      goto failed;
    return cpu;
  }

  /* the frame LINEAR reads: the input, or its stand-in; tensors and GRAY8
   * from its RGB rows */
  plan = *p;
  /* 4:2:2 packed and GRAY8: the RGBx stand-in's rows, made where they are
   * read (stand_in_source ()) */
  cpu->row_source = cpu_has_stand_in (in);
  if (cpu->row_source)
    plan.in_format = GST_VIDEO_FORMAT_RGBx;
  else if (gst_cuda_cache_convert_params_input_depth (in) > 0)
    stand_in = GST_VIDEO_FORMAT_NV12;
  if (cpu_via_rgb (info))
    plan.out_format = GST_VIDEO_FORMAT_UNKNOWN;
  if (stand_in != GST_VIDEO_FORMAT_UNKNOWN) {
    if (!gst_video_info_set_format (&cpu->stand_in, stand_in,
            GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in))) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot convert %dx%d %s: GStreamer cannot lay out "
          "the %s frame of that size it is converted as (4 GiB or more)",
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in),
          GST_VIDEO_INFO_NAME (in), gst_video_format_to_string (stand_in));
      goto failed;
    }
    if (old && old->stand_in_buf && gst_video_info_is_equal (&old->stand_in,
            &cpu->stand_in)) {
      cpu->stand_in_buf = g_steal_pointer (&old->stand_in_buf);
    } else {
      cpu->stand_in_buf = gst_buffer_new_allocate (NULL,
          GST_VIDEO_INFO_SIZE (&cpu->stand_in), NULL);
    }
    if (!cpu->stand_in_buf) {
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT, "cannot allocate the %"
          G_GSIZE_FORMAT " bytes of the %s frame the input is converted as",
          GST_VIDEO_INFO_SIZE (&cpu->stand_in),
          gst_video_format_to_string (stand_in));
      goto failed;
    }
  }
  cpu->linear = gst_cuda_cache_linear_new (&plan, error);
  if (!cpu->linear)
    goto failed;

  return cpu;

  /* ERRORS */
failed:
  gst_cuda_cache_converter_cpu_free (cpu);
  return NULL;
}

/* IEEE half from float, round to nearest even. */
static guint16
float_to_half (gfloat f)
{
  union
  {
    gfloat f;
    guint32 u;
  } v = {.f = f };
  guint32 sign = (v.u >> 16) & 0x8000;
  gint32 exp = ((v.u >> 23) & 0xff) - 127 + 15;
  guint32 mant = v.u & 0x7fffff;

  if (((v.u >> 23) & 0xff) == 0xff)     /* inf, nan */
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31)
    return sign | 0x7c00;
  if (exp <= 0) {
    guint32 shift;
    guint32 half, rest;

    if (exp < -10)
      return sign;
    mant |= 0x800000;
    shift = 14 - exp;
    half = mant >> shift;
    rest = mant & ((1u << shift) - 1);
    if (rest > (1u << (shift - 1)) ||
        (rest == (1u << (shift - 1)) && (half & 1)))
      half++;
    return sign | half;
  } else {
    guint32 half = sign | (exp << 10) | (mant >> 13);
    guint32 rest = mant & 0x1fff;

    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
      half++;                   /* may carry into the exponent: correct */
    return half;
  }
}

/* The gray of an 8-bit RGB pixel (gstcudacachekernels-private.h, 6.),
 * rounded half up and clamped */
static guint8
gray_of (const GstCudaCacheConvertParams * p, const guint8 * rgb)
{
  const gfloat *m = p->rgb_to_yuv;

  return gst_cuda_cache_to_u8 (m[0] * rgb[0] + m[1] * rgb[1] + m[2] * rgb[2]
      + m[3]);
}

/* Rows @y0..@y1 of GRAY8 (@out: row @y0's, rows @out_stride apart) from
 * 8-bit RGB rows (@rgb: row @y0's, @stride apart) */
static void
pack_gray (const GstCudaCacheConvertParams * p, const guint8 * rgb,
    gsize stride, gint y0, gint y1, guint8 * out, gsize out_stride)
{
  gint x, y;

  for (y = y0; y < y1; y++) {
    const guint8 *row = rgb + (gsize) (y - y0) * stride;
    guint8 *d = out + (gsize) (y - y0) * out_stride;

    for (x = 0; x < p->out_width; x++)
      d[x] = gray_of (p, row + 3 * x);
  }
}

/* NV12 or I420 from an RGB frame, as the definition stores 4:2:0 (4. in
 * gstcudacachekernels-private.h) and the kernels do: Y of each pixel, U
 * and V of each 2x2 block's mean RGB, a block that straddles the
 * picture's edge taking its picture pixels only. GstVideoConverter's
 * chroma filter reaches a row and a column further, across the
 * letterbox's edge too. */
static void
pack_yuv420 (const GstCudaCacheConvertParams * p, const GstVideoFrame * rgb,
    GstVideoFrame * out)
{
  gboolean nv12 = GST_VIDEO_FRAME_FORMAT (out) == GST_VIDEO_FORMAT_NV12;
  gint w = p->out_width, h = p->out_height, bx, by, dx, dy, k;

  for (by = 0; by < (h + 1) / 2; by++) {
    guint8 *u_row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (out, 1) +
        (gsize) by * GST_VIDEO_FRAME_COMP_STRIDE (out, 1);
    guint8 *v_row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (out, 2) +
        (gsize) by * GST_VIDEO_FRAME_COMP_STRIDE (out, 2);

    for (bx = 0; bx < (w + 1) / 2; bx++) {
      gfloat c[4][3];
      gboolean inside[4];
      guint8 yv[4];
      gint n = 0, i = 0;

      for (dy = 0; dy < 2 && 2 * by + dy < h; dy++) {
        gint y = 2 * by + dy;
        const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (rgb,
            0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);

        for (dx = 0; dx < 2 && 2 * bx + dx < w; dx++, n++) {
          gint x = 2 * bx + dx;

          for (k = 0; k < 3; k++)
            c[n][k] = row[3 * x + k];
          inside[n] = x >= p->dest_x && x < p->dest_x + p->dest_width &&
              y >= p->dest_y && y < p->dest_y + p->dest_height;
        }
      }
      gst_cuda_cache_yuv420_block (p->rgb_to_yuv, c, inside, n, yv,
          &u_row[bx * (nv12 ? 2 : 1)], &v_row[bx * (nv12 ? 2 : 1)]);
      for (dy = 0; dy < 2 && 2 * by + dy < h; dy++) {
        guint8 *y_row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, 0) +
            (gsize) (2 * by + dy) * GST_VIDEO_FRAME_PLANE_STRIDE (out, 0);

        for (dx = 0; dx < 2 && 2 * bx + dx < w; dx++)
          y_row[2 * bx + dx] = yv[i++];
      }
    }
  }
}

/* Rows @y0..@y1 of the tensor at @dst from 8-bit RGB rows (@rgb: row
 * @y0's, @stride bytes apart): its channels, or its gray. Each value is
 * q * mul + add, a float multiply then a float add, of the 8-bit value q;
 * stored as the tensor's type: uint8 rounded half to even and clamped,
 * float16 rounded to nearest even. */
static void
pack_tensor (const GstCudaCacheConvertParams * p, const guint8 * rgb,
    gsize stride, gint y0, gint y1, guint8 * dst)
{
  gint w = p->out_width, h = p->out_height, x, y, k;
  gint c = p->channels;
  gboolean nchw = p->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW;
  gfloat *v = g_new (gfloat, w), *f32 = (gfloat *) dst;

  for (y = y0; y < y1; y++) {
    const guint8 *row = rgb + (gsize) (y - y0) * stride;

    for (k = 0; k < c; k++) {
      /* channel k's values of the row, then stored where they go: NCHW
       * a row of its plane, NHWC every c-th value of the row */
      gint from = p->bgr ? 2 - k : k;
      gfloat mul = p->mul[k], add = p->add[k];
      gsize at = nchw ? ((gsize) k * h + y) * w : (gsize) y * w * c + k;
      gsize step = nchw ? 1 : c;

      if (c == 1) {
        for (x = 0; x < w; x++)
          v[x] = gray_of (p, row + 3 * x) * mul + add;
      } else if (nchw && p->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F32) {
        /* straight into its plane's row */
        gst_cuda_cache_u8_to_float (row + from, 3, w, mul, add, f32 + at);
        continue;
      } else {
        gst_cuda_cache_u8_to_float (row + from, 3, w, mul, add, v);
      }
      switch (p->dtype) {
        case GST_CUDA_CACHE_TENSOR_DTYPE_U8:
          for (x = 0; x < w; x++)
            dst[at + x * step] = (guint8) CLAMP (lrintf (v[x]), 0, 255);
          break;
        case GST_CUDA_CACHE_TENSOR_DTYPE_F16:
          for (x = 0; x < w; x++)
            ((guint16 *) dst)[at + x * step] = float_to_half (v[x]);
          break;
        case GST_CUDA_CACHE_TENSOR_DTYPE_F32:
          for (x = 0; x < w; x++)
            ((gfloat *) dst)[at + x * step] = v[x];
          break;
      }
    }
  }
  g_free (v);
}

/* @frame seen as its source rectangle: the rectangle's size and the
 * frame's strides, each plane from the rectangle's top left (its edges on
 * the chroma grid). No copy; only @frame is unmapped. Decided per frame:
 * a frame with a GstVideoMeta is mapped at the meta's size, which is
 * larger than the caps' where upstream crops by meta (videocrop gives the
 * crop's size in the caps, the whole frame in the meta). */
static void
cpu_source_view (const GstCudaCacheConverterCpu * cpu,
    const GstVideoFrame * frame, GstVideoFrame * view)
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  guint i;

  *view = *frame;
  if (cpu->params.src_x == 0 && cpu->params.src_y == 0 &&
      GST_VIDEO_FRAME_WIDTH (frame) == cpu->params.in_width &&
      GST_VIDEO_FRAME_HEIGHT (frame) == cpu->params.in_height)
    return;
  view->info = cpu->source;
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++)
    view->info.stride[i] = frame->info.stride[i];
  gst_cuda_cache_convert_params_source_offsets (&cpu->params,
      GST_VIDEO_FRAME_FORMAT (frame), frame->info.stride, offset);
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (frame); i++)
    view->data[i] = (guint8 *) frame->data[i] + offset[i];
}

/* The fill everywhere in @frame (packed RGB, red, green and blue at
 * @at[0..2] of a pixel, a 4-byte pixel's other byte 255) but the
 * picture's rectangle. */
static void
cpu_fill_bars (const GstCudaCacheConvertParams * p, GstVideoFrame * frame,
    const gint at[3])
{
  gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0), x, y, c;
  guint8 fill[4] = { 255, 255, 255, 255 };

  for (c = 0; c < 3; c++)
    fill[at[c]] = (guint8) p->fill[c];
  for (y = 0; y < p->out_height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
    gboolean bar = y < p->dest_y || y >= p->dest_y + p->dest_height;

    for (x = 0; x < p->out_width; x++) {
      if (!bar && x == p->dest_x) {
        x += p->dest_width - 1;
        continue;
      }
      memcpy (row + (gsize) ps * x, fill, ps);
    }
  }
}

/* A method other than LINEAR: the source's 8-bit RGB (in place, or its
 * stand-in's rows) resampled into the output's picture where it is packed
 * 8-bit RGB, else into the RGB frame's, then packed from it; the bars
 * filled */
static gboolean
cpu_convert_resampled (GstCudaCacheConverterCpu * cpu, GstBuffer * inbuf,
    GstBuffer * outbuf, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cpu->info;
  const GstCudaCacheConvertParams *p = &cpu->params;
  GstVideoFrame in_frame, view, rgb, out_frame;
  /* the frame resampled into */
  GstVideoFrame *dst = cpu->direct ? &out_frame : &rgb;
  StandIn si = { &cpu->params, &view };
  /* the input's stand-in where it is not 8-bit RGB */
  GstCudaCacheLinearSource source = GST_VIDEO_INFO_IS_RGB (&cpu->source) ?
      NULL : stand_in_source;
  gint rgb_at[3] = { 0, 1, 2 }, dst_at[3], c;
  guint threads = gst_cuda_cache_cpu_threads ();
  GstMapInfo map;
  gboolean ok = TRUE;

  if (!gst_cuda_cache_converter_frame_map (&in_frame, &info->in_info, inbuf,
          GST_MAP_READ, "input", error))
    return FALSE;
  cpu_source_view (cpu, &in_frame, &view);
  if (cpu->direct) {
    if (!gst_cuda_cache_converter_frame_map (&out_frame, &info->out_info,
            outbuf, GST_MAP_WRITE, "output", error)) {
      gst_video_frame_unmap (&in_frame);
      return FALSE;
    }
  } else if (!gst_video_frame_map (&rgb, &cpu->rgb, cpu->rgb_buf,
          GST_MAP_READWRITE)) {
    gst_video_frame_unmap (&in_frame);
    goto map_failed;
  }
  for (c = 0; c < 3; c++) {
    if (!source)
      rgb_at[c] = GST_VIDEO_FORMAT_INFO_POFFSET (view.info.finfo, c);
    dst_at[c] = GST_VIDEO_FRAME_COMP_POFFSET (dst, c);
  }

  cpu_fill_bars (p, dst, dst_at);
  gst_cuda_cache_resampler_run (cpu->resampler,
      (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&view, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&view, 0),
      GST_VIDEO_FRAME_COMP_PSTRIDE (&view, 0), rgb_at, source, &si,
      (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (dst, 0) +
      (gsize) p->dest_y * GST_VIDEO_FRAME_PLANE_STRIDE (dst, 0) +
      (gsize) p->dest_x * GST_VIDEO_FRAME_COMP_PSTRIDE (dst, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (dst, 0),
      GST_VIDEO_FRAME_COMP_PSTRIDE (dst, 0), dst_at, threads);
  gst_video_frame_unmap (&in_frame);
  if (cpu->direct) {
    gst_video_frame_unmap (&out_frame);
    return TRUE;
  }

  if (info->tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
      gst_video_frame_unmap (&rgb);
      goto map_failed;
    }
    ok = gst_cuda_cache_converter_tensor_fits (info, map.size, error);
    if (ok)
      pack_tensor (p, GST_VIDEO_FRAME_PLANE_DATA (&rgb, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&rgb, 0), 0, p->out_height, map.data);
    gst_buffer_unmap (outbuf, &map);
  } else if (gst_cuda_cache_converter_frame_map (&out_frame, &info->out_info,
          outbuf, GST_MAP_WRITE, "output", error)) {
    if (GST_VIDEO_FRAME_FORMAT (&out_frame) == GST_VIDEO_FORMAT_GRAY8)
      pack_gray (p, GST_VIDEO_FRAME_PLANE_DATA (&rgb, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&rgb, 0), 0, p->out_height,
          GST_VIDEO_FRAME_PLANE_DATA (&out_frame, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, 0));
    else
      pack_yuv420 (p, &rgb, &out_frame);
    gst_video_frame_unmap (&out_frame);
  } else {
    ok = FALSE;
  }
  gst_video_frame_unmap (&rgb);

  return ok;

map_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not map a buffer for the conversion");
  return FALSE;
}

/* 16-bit 4:2:0 @src narrowed into the NV12 frame @nv12, as
 * gst_cuda_cache_narrow_16 () does */
static void
cpu_make_narrowed (const GstVideoFrame * src, GstVideoFrame * nv12)
{
  gint depth = GST_VIDEO_FRAME_COMP_DEPTH (src, 0), k, x, y;

  for (k = 0; k < 2; k++) {
    gint rows = k ? (GST_VIDEO_FRAME_HEIGHT (src) + 1) / 2 :
        GST_VIDEO_FRAME_HEIGHT (src);
    gint n = k ? 2 * ((GST_VIDEO_FRAME_WIDTH (src) + 1) / 2) :
        GST_VIDEO_FRAME_WIDTH (src);

    for (y = 0; y < rows; y++) {
      const guint16 *s = (const guint16 *) ((const guint8 *)
          GST_VIDEO_FRAME_PLANE_DATA (src, k) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (src, k));
      guint8 *d = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (nv12, k) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (nv12, k);

      for (x = 0; x < n; x++)
        d[x] = cpu_narrow (s[x], depth);
    }
  }
}

/* Where LINEAR's 8-bit RGB rows go: a tensor, or GRAY8 */
typedef struct
{
  const GstCudaCacheConvertParams *p;
  guint8 *tensor;
  GstVideoFrame *gray;
} CpuRows;

static void
cpu_pack_rows (gpointer data, const guint8 * rgb, gsize stride, gint y0,
    gint y1)
{
  const CpuRows *r = data;

  if (r->tensor) {
    pack_tensor (r->p, rgb, stride, y0, y1, r->tensor);
  } else {
    gsize out_stride = GST_VIDEO_FRAME_PLANE_STRIDE (r->gray, 0);

    pack_gray (r->p, rgb, stride, y0, y1,
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (r->gray, 0) +
        (gsize) y0 * out_stride, out_stride);
  }
}

gboolean
gst_cuda_cache_converter_cpu_convert (GstCudaCacheConverterCpu * cpu,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cpu->info;
  guint threads = gst_cuda_cache_cpu_threads ();
  GstVideoFrame in_frame, view, stand_in, out_frame;
  const GstVideoFrame *src = &view;
  const guint8 *in_data[3] = { NULL, NULL, NULL };
  guint8 *out_data[3] = { NULL, NULL, NULL };
  gint in_stride[3] = { 0, 0, 0 }, out_stride[3] = { 0, 0, 0 };
  CpuRows rows = { &cpu->params, NULL, NULL };
  StandIn si = { &cpu->params, &view };
  GstCudaCacheLinearSource source = cpu->row_source ? stand_in_source : NULL;
  GstMapInfo map;
  gboolean ok = TRUE;
  guint i;

  if (cpu->resampler)
    return cpu_convert_resampled (cpu, inbuf, outbuf, error);

  if (!gst_cuda_cache_converter_frame_map (&in_frame, &info->in_info, inbuf,
          GST_MAP_READ, "input", error))
    return FALSE;
  cpu_source_view (cpu, &in_frame, &view);
  if (cpu->stand_in_buf) {
    if (!gst_video_frame_map (&stand_in, &cpu->stand_in, cpu->stand_in_buf,
            GST_MAP_READWRITE)) {
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    cpu_make_narrowed (&view, &stand_in);
    src = &stand_in;
  }
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (src) && i < 3; i++) {
    in_data[i] = GST_VIDEO_FRAME_PLANE_DATA (src, i);
    in_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (src, i);
  }

  if (info->tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
      ok = FALSE;
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "could not map a buffer for the conversion");
    } else if (!gst_cuda_cache_converter_tensor_fits (info, map.size, error)) {
      gst_buffer_unmap (outbuf, &map);
      ok = FALSE;
    } else {
      rows.tensor = map.data;
      gst_cuda_cache_linear_run (cpu->linear, in_data, in_stride, source,
          &si, NULL, NULL, cpu_pack_rows, &rows, threads);
      gst_buffer_unmap (outbuf, &map);
    }
  } else if (gst_cuda_cache_converter_frame_map (&out_frame, &info->out_info,
          outbuf, GST_MAP_WRITE, "output", error)) {
    if (cpu_via_rgb (info))
      rows.gray = &out_frame;
    for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&out_frame) && i < 3; i++) {
      out_data[i] = GST_VIDEO_FRAME_PLANE_DATA (&out_frame, i);
      out_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, i);
    }
    gst_cuda_cache_linear_run (cpu->linear, in_data, in_stride, source, &si,
        out_data, out_stride, cpu_pack_rows, &rows, threads);
    gst_video_frame_unmap (&out_frame);
  } else {
    ok = FALSE;
  }
  if (cpu->stand_in_buf)
    gst_video_frame_unmap (&stand_in);
  gst_video_frame_unmap (&in_frame);

  return ok;

  /* ERRORS */
map_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not map a buffer for the conversion");
  return FALSE;
}

void
gst_cuda_cache_converter_cpu_free (GstCudaCacheConverterCpu * cpu)
{
  if (!cpu)
    return;
  g_clear_pointer (&cpu->linear, gst_cuda_cache_linear_free);
  gst_clear_buffer (&cpu->stand_in_buf);
  gst_clear_buffer (&cpu->rgb_buf);
  g_clear_pointer (&cpu->resampler, gst_cuda_cache_resampler_free);
  g_free (cpu);
}
