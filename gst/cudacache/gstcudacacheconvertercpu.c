/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's CPU back end: system memory, converted by (LINEAR resampler and chroma resampler,
 * no dithering) from the input to the output, or to an RGB frame of the
 * output's size that the tensor is packed from. It is the reference the
 * kernels are held to, quirks included: GstVideoScaler upscales lines of
 * four bytes per pixel (RGBA, and its own unpacked AYUV/ARGB lines)
 * horizontally with a fixed-point two-tap path at corner-aligned positions,
 * and aligns the picture to the chroma grid of a 4:2:0 output; the kernels
 * do the same.
 *
 * 4:2:0 input whose rows change in number takes two GstVideoConverters:
 * one upsamples the chroma to AYUV at the input's size, the other scales
 * and converts that. In one step, GStreamer 1.22's converter gets such a
 * conversion wrong: with a few input rows per output row on a small
 * picture (15x11 or 30x22 to a third) it reads the wrong upsampled rows
 * for the first output rows (30 to 87 levels off), and with several
 * threads it differs from itself on one thread, shrinking (321x241 to
 * 199x147: up to 45 levels) and growing (7x5 to 1283x721: 15 levels with
 * 2 threads or 8). In two steps it does neither, and gives the one-step
 * result wherever that one is right (1080p to 640x360, and 7x5 to 1283x721
 * on one thread, to the level). The upsampling runs on one thread: split
 * over threads, 1.22 upsamples the rows at the slices' edges wrongly
 * (1080p: up to 22 levels). It is kept off GstVideoConverter's fast paths,
 * whose I420 to AYUV repeats each chroma sample where NV12's is
 * interpolated (3x3: 10 levels apart). Where the rows keep their number,
 * one step is right and stays: the AYUV frame's extra rounding would cost
 * a level there.
 *
 * A tensor is packed from the RGB frame by a loop here, the definition's
 * normalisation and storage (gstcudacachekernels-private.h, point 5).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstcudacacheconvertercpu-private.h"
#include "gstcudacacheconvertparams-private.h"

struct _GstCudaCacheConverterCpu
{
  /* what it converts, as it was made for */
  GstCudaCacheConverterInfo info;
  GstCudaCacheConvertParams params;

  GstVideoConverter *upsample;  /* 4:2:0 input rescaled: to AYUV, else NULL */
  GstVideoInfo upsample_in;     /* the input it upsamples */
  GstVideoInfo ayuv;
  GstBuffer *ayuv_buf;
  GstVideoConverter *conv;
  GstVideoInfo rgb;             /* tensor output: the frame packed from */
  GstBuffer *rgb_buf;
};

static GstStructure *
cpu_options (const GstCudaCacheConvertParams * p)
{
  guint fill = p->fill[0];

  return gst_structure_new ("options",
      GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
      GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
      GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
      GST_VIDEO_DITHER_NONE,
      GST_VIDEO_CONVERTER_OPT_DEST_X, G_TYPE_INT, p->dest_x,
      GST_VIDEO_CONVERTER_OPT_DEST_Y, G_TYPE_INT, p->dest_y,
      GST_VIDEO_CONVERTER_OPT_DEST_WIDTH, G_TYPE_INT, p->dest_width,
      GST_VIDEO_CONVERTER_OPT_DEST_HEIGHT, G_TYPE_INT, p->dest_height,
      GST_VIDEO_CONVERTER_OPT_FILL_BORDER, G_TYPE_BOOLEAN, TRUE,
      GST_VIDEO_CONVERTER_OPT_BORDER_ARGB, G_TYPE_UINT,
      (0xffu << 24) | (fill << 16) | (fill << 8) | fill,
      GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT,
      MIN (g_get_num_processors (), 8), NULL);
}

/* 4:2:0 input whose rows change in number: upsampled first (see above) */
static gboolean
cpu_needs_upsample (const GstVideoInfo * in,
    const GstCudaCacheConvertParams * p)
{
  GstVideoFormat f = GST_VIDEO_INFO_FORMAT (in);

  return (f == GST_VIDEO_FORMAT_NV12 || f == GST_VIDEO_FORMAT_I420 ||
      gst_cuda_cache_convert_params_input_depth (in) > 0)
      && p->dest_height != GST_VIDEO_INFO_HEIGHT (in);
}

/* The AYUV frame the first of the two steps upsamples @in to: its size,
 * colorimetry, aspect and rate. FALSE where GStreamer cannot lay out a
 * frame that large. */
static gboolean
cpu_ayuv_info (GstVideoInfo * ayuv, const GstVideoInfo * in)
{
  if (!gst_video_info_set_format (ayuv, GST_VIDEO_FORMAT_AYUV,
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in)))
    return FALSE;
  ayuv->colorimetry = in->colorimetry;
  GST_VIDEO_INFO_PAR_N (ayuv) = GST_VIDEO_INFO_PAR_N (in);
  GST_VIDEO_INFO_PAR_D (ayuv) = GST_VIDEO_INFO_PAR_D (in);
  GST_VIDEO_INFO_FPS_N (ayuv) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (ayuv) = GST_VIDEO_INFO_FPS_D (in);
  return TRUE;
}

/* The first of the two steps: cpu->upsample_in to cpu->ayuv, the chroma
 * upsampled as in one step (LINEAR, no dithering), on one thread. A
 * quantization other than 1 keeps GstVideoConverter off its fast paths
 * (I420 to AYUV repeats chroma samples); without dithering nothing is
 * quantized. */
static gboolean
cpu_make_upsample (GstCudaCacheConverterCpu * cpu, GError ** error)
{
  cpu->ayuv_buf = gst_buffer_new_allocate (NULL,
      GST_VIDEO_INFO_SIZE (&cpu->ayuv), NULL);
  if (!cpu->ayuv_buf) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "cannot allocate the %" G_GSIZE_FORMAT " bytes of the AYUV frame "
        "the input's chroma is upsampled to", GST_VIDEO_INFO_SIZE (&cpu->ayuv));
    return FALSE;
  }
  cpu->upsample = gst_video_converter_new (&cpu->upsample_in, &cpu->ayuv,
      gst_structure_new ("options",
          GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
          GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_DITHER_QUANTIZATION,
          G_TYPE_UINT, 2, GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, 1,
          NULL));
  if (!cpu->upsample) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "GstVideoConverter cannot convert %s to AYUV",
        GST_VIDEO_INFO_NAME (&cpu->upsample_in));
    return FALSE;
  }
  return TRUE;
}

/* GstVideoConverter finds a frame's row at stride * row in a gint (1.22's
 * FRAME_GET_PLANE_LINE): a plane of 2 GiB or more overflows it and the
 * converter reads and writes outside the frame. Such frames are refused
 * before anything is made. */
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
          G_GUINT64_FORMAT " bytes, beyond the 2 GiB GstVideoConverter "
          "addresses (convert CUDA memory instead)", what,
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), p, bytes);
      return FALSE;
    }
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
  GstVideoInfo out = info->out_info;
  gboolean upsample = cpu_needs_upsample (in, p);
  gboolean keep_upsample, keep_rgb;
  GstCudaCacheConverterCpu *cpu;

  cpu = g_new0 (GstCudaCacheConverterCpu, 1);
  cpu->info = *info;
  cpu->params = *params;
  if (info->tensor_out) {
    if (!gst_video_info_set_format (&cpu->rgb, GST_VIDEO_FORMAT_RGB,
            p->out_width, p->out_height)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot pack a tensor of %dx%d: GStreamer cannot lay "
          "out the %dx%d RGB frame it is packed from (4 GiB or more)",
          p->out_width, p->out_height, p->out_width, p->out_height);
      goto failed;
    }
    out = cpu->rgb;
  }
  /* GstVideoConverter converts pictures, not frame rates */
  GST_VIDEO_INFO_FPS_N (&out) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (&out) = GST_VIDEO_INFO_FPS_D (in);
  if (upsample) {
    cpu->upsample_in = *in;
    if (!cpu_ayuv_info (&cpu->ayuv, in)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot convert %dx%d %s: GStreamer cannot lay out the "
          "AYUV frame of that size its chroma is upsampled to (4 GiB or more)",
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in),
          GST_VIDEO_INFO_NAME (in));
      goto failed;
    }
  }
  if (!cpu_frame_fits (in, "an input frame", error) ||
      !cpu_frame_fits (&out, info->tensor_out ?
          "the RGB frame a tensor is packed from" : "an output frame", error)
      || (upsample && !cpu_frame_fits (&cpu->ayuv,
              "the AYUV frame the input's chroma is upsampled to", error)))
    goto failed;
  keep_upsample = upsample && old && old->upsample &&
      gst_video_info_is_equal (&old->upsample_in, in);
  keep_rgb = info->tensor_out && old && old->rgb_buf &&
      gst_buffer_get_size (old->rgb_buf) == GST_VIDEO_INFO_SIZE (&cpu->rgb);

  cpu->conv = gst_video_converter_new (upsample ? &cpu->ayuv :
      (GstVideoInfo *) in, &out, cpu_options (p));
  if (!cpu->conv) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "GstVideoConverter cannot convert %s to %s",
        GST_VIDEO_INFO_NAME (upsample ? &cpu->ayuv : in),
        info->tensor_out ? "a tensor" : GST_VIDEO_INFO_NAME (&out));
    goto failed;
  }
  if (info->tensor_out && !keep_rgb) {
    cpu->rgb_buf = gst_buffer_new_allocate (NULL,
        GST_VIDEO_INFO_SIZE (&cpu->rgb), NULL);
    if (!cpu->rgb_buf) {
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT, "cannot allocate the %"
          G_GSIZE_FORMAT " bytes of the RGB frame the tensor is packed from",
          GST_VIDEO_INFO_SIZE (&cpu->rgb));
      goto failed;
    }
  }
  if (upsample && !keep_upsample && !cpu_make_upsample (cpu, error))
    goto failed;

  /* nothing fails from here on */
  if (keep_rgb)
    cpu->rgb_buf = g_steal_pointer (&old->rgb_buf);
  if (keep_upsample) {
    cpu->upsample = g_steal_pointer (&old->upsample);
    cpu->ayuv_buf = g_steal_pointer (&old->ayuv_buf);
  }

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

/* The tensor from an RGB frame. */
static void
pack_tensor (const GstCudaCacheConvertParams * p, const GstVideoFrame * rgb,
    guint8 * dst)
{
  gint w = p->out_width, h = p->out_height, x, y, k;
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (rgb, 0);

  for (y = 0; y < h; y++) {
    const guint8 *row = src + (gsize) y * stride;

    for (x = 0; x < w; x++) {
      for (k = 0; k < 3; k++) {
        gfloat v = row[3 * x + (p->bgr ? 2 - k : k)] * p->mul[k] + p->add[k];
        gsize i = p->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW ?
            ((gsize) k * h + y) * w + x : ((gsize) y * w + x) * 3 + k;

        switch (p->dtype) {
          case GST_CUDA_CACHE_TENSOR_DTYPE_U8:
            dst[i] = (guint8) CLAMP (lrintf (v), 0, 255);
            break;
          case GST_CUDA_CACHE_TENSOR_DTYPE_F16:
            ((guint16 *) dst)[i] = float_to_half (v);
            break;
          case GST_CUDA_CACHE_TENSOR_DTYPE_F32:
            ((gfloat *) dst)[i] = v;
            break;
        }
      }
    }
  }
}

gboolean
gst_cuda_cache_converter_cpu_convert (GstCudaCacheConverterCpu * cpu,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cpu->info;
  const GstVideoInfo *out_info;
  GstVideoFrame in_frame, out_frame;
  GstBuffer *target;
  GstMapInfo map;

  target = info->tensor_out ? cpu->rgb_buf : outbuf;
  out_info = info->tensor_out ? &cpu->rgb : &info->out_info;

  if (!gst_cuda_cache_converter_frame_map (&in_frame, &info->in_info, inbuf,
          GST_MAP_READ, "input", error))
    return FALSE;
  /* a tensor's picture is the back end's own buffer: only ever mapped */
  if (!gst_cuda_cache_converter_frame_map (&out_frame, out_info, target,
          GST_MAP_READWRITE, "output", error)) {
    gst_video_frame_unmap (&in_frame);
    return FALSE;
  }
  if (cpu->upsample) {
    GstVideoFrame ayuv_frame;

    if (!gst_video_frame_map (&ayuv_frame, &cpu->ayuv, cpu->ayuv_buf,
            GST_MAP_READWRITE)) {
      gst_video_frame_unmap (&out_frame);
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    gst_video_converter_frame (cpu->upsample, &in_frame, &ayuv_frame);
    gst_video_converter_frame (cpu->conv, &ayuv_frame, &out_frame);
    gst_video_frame_unmap (&ayuv_frame);
  } else {
    gst_video_converter_frame (cpu->conv, &in_frame, &out_frame);
  }
  gst_video_frame_unmap (&in_frame);

  if (info->tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
      gst_video_frame_unmap (&out_frame);
      goto map_failed;
    }
    if (!gst_cuda_cache_converter_tensor_fits (info, map.size, error)) {
      gst_buffer_unmap (outbuf, &map);
      gst_video_frame_unmap (&out_frame);
      return FALSE;
    }
    pack_tensor (&cpu->params, &out_frame, map.data);
    gst_buffer_unmap (outbuf, &map);
  }
  gst_video_frame_unmap (&out_frame);

  return TRUE;

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
  g_clear_pointer (&cpu->upsample, gst_video_converter_free);
  gst_clear_buffer (&cpu->ayuv_buf);
  g_clear_pointer (&cpu->conv, gst_video_converter_free);
  gst_clear_buffer (&cpu->rgb_buf);
  g_free (cpu);
}
