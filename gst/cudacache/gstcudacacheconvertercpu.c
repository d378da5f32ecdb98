/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's CPU back end: system memory, converted by (LINEAR resampler and chroma resampler,
 * no dithering) from the input to the output, or to an RGB frame (GRAY8
 * for a 1-channel tensor) of the output's size that the tensor is packed
 * from. It is the reference the
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
 * A tensor is packed from that frame by a loop here, the definition's
 * normalisation and storage (gstcudacachekernels-private.h, points 5 and
 * 6). 4:2:2 packed and GRAY8 input are converted to an RGBx frame by a
 * loop here first, as the kernels do (7.): GstVideoConverter scales 4:2:2
 * before its 8-bit matrix (up to 90 levels off the definition on noise)
 * and copies GRAY8 to and from YUV's luma without its range (13 levels).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstcudacacheconvertercpu-private.h"
#include "gstcudacacheconvertparams-private.h"
#include "gstcudacacheresample-private.h"

struct _GstCudaCacheConverterCpu
{
  /* what it converts, as it was made for */
  GstCudaCacheConverterInfo info;
  GstCudaCacheConvertParams params;

  GstVideoConverter *upsample;  /* 4:2:0 input rescaled: to AYUV, else NULL */
  /* a crop (params.src_x, src_y, in_width, in_height short of the
   * frame): the source rectangle's own layout, every step made for it, and
   * each frame seen through a view of that rectangle (cpu_source_view ()) */
  gboolean cropped;
  GstVideoInfo source;
  GstVideoInfo upsample_in;     /* the input it upsamples */
  GstVideoInfo ayuv;
  GstBuffer *ayuv_buf;
  /* 4:2:2 packed and GRAY8 input: the RGBx frame it is converted as
   * (gstcudacachekernels-private.h, 7.), else size 0 */
  GstVideoInfo stand_in;
  GstBuffer *stand_in_buf;
  GstVideoConverter *conv;
  GstVideoInfo rgb;             /* tensor output: the frame packed from */
  GstBuffer *rgb_buf;
  /* a method other than LINEAR: the picture resampled from 8-bit RGB of
   * the source's size (the input's own pixels, or its stand-in) into the
   * RGB frame above, then packed or converted (conv) at the same size */
  GstCudaCacheResampler *resampler;
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

static guint8
cpu_to_u8 (gfloat v)
{
  return (guint8) CLAMP (floorf (v + 0.5f), 0.0f, 255.0f);
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

static GstStructure *
cpu_options (const GstCudaCacheConvertParams * p)
{
  /* the fill, red, green and blue */
  guint argb = (0xffu << 24) | ((guint) p->fill[0] << 16) |
      ((guint) p->fill[1] << 8) | (guint) p->fill[2];

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
      GST_VIDEO_CONVERTER_OPT_BORDER_ARGB, G_TYPE_UINT, argb,
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

/* The stand-in of @src in @rgbx, for 4:2:2 packed, GRAY8 and 4:2:0 (8 and
 * 16-bit) input: every pixel's chroma upsampled as sited, as the kernels
 * fold it (across: linear between the two samples around it; down, where
 * chroma is subsampled: cosited rows taken as they are, others 3:1
 * between the two rows around it; GRAY8's chroma 128), 16-bit samples
 * narrowed to 8 bits first as gst_cuda_cache_narrow_16 () does, then @p's
 * yuv_to_rgb, each channel rounded half up and clamped: as
 * kernels/narrow.cu's gst_cuda_cache_unpack_422 () and the I420 reading
 * of GRAY8 do. */
static void
cpu_make_stand_in (const GstCudaCacheConvertParams * p,
    const GstVideoFrame * src, GstVideoFrame * rgbx)
{
  const GstVideoFormatInfo *finfo = src->info.finfo;
  const gfloat *m = p->yuv_to_rgb;
  gint depth = GST_VIDEO_FRAME_COMP_DEPTH (src, 0);
  gboolean wide = depth > 8;
  gboolean gray = GST_VIDEO_FRAME_N_COMPONENTS (src) == 1;
  gboolean sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1) > 0;
  gboolean h_cosited = (p->in_chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED)
      != 0;
  gboolean v_cosited = (p->in_chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED)
      != 0;
  gint w = GST_VIDEO_FRAME_WIDTH (src), h = GST_VIDEO_FRAME_HEIGHT (src);
  gint cw = (w + 1) / 2, ch = (h + 1) / 2, x, y, k;
  const guint8 *base[3] = { NULL, NULL, NULL };
  gint ps[3] = { 0, 0, 0 };

  for (k = 0; k < (gray ? 1 : 3); k++) {
    ps[k] = GST_VIDEO_FRAME_COMP_PSTRIDE (src, k);
    base[k] = GST_VIDEO_FRAME_COMP_DATA (src, k);
  }
  /* V of an interleaved chroma pair follows U by a sample: GStreamer
   * 1.22 gives P010's and P016's V an offset of 1 byte */
  if (!gray && GST_VIDEO_FORMAT_INFO_PLANE (finfo, 1) ==
      GST_VIDEO_FORMAT_INFO_PLANE (finfo, 2))
    base[2] = base[1] + ps[1] / 2;

#define SAMPLE(k, row, i) (wide ? \
    cpu_narrow (((const guint16 *) (row))[(i) * ps[k] / 2], depth) : \
    ((const guint8 *) (row))[(i) * ps[k]])
#define ROW(k, r) (base[k] + (gsize) (r) * GST_VIDEO_FRAME_COMP_STRIDE (src, k))

  for (y = 0; y < h; y++) {
    gint cy0 = !sub_y ? y : v_cosited ? y / 2 : (y >= 1 ? (y - 1) / 2 : -1);
    gfloat fy = !sub_y || v_cosited ? 0.0f : ((y & 1) ? 0.25f : 0.75f);
    gint rows = sub_y ? ch : h;
    gint ra = CLAMP (cy0, 0, rows - 1), rb = CLAMP (cy0 + 1, 0, rows - 1);
    const guint8 *luma = ROW (0, y);
    guint8 *out = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (rgbx, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (rgbx, 0);

    /* chroma not subsampled down: the pixel's own row, no blend */
    if (!sub_y)
      rb = ra;
    for (x = 0; x < w; x++) {
      gint cx0 = h_cosited ? x / 2 : (x >= 1 ? (x - 1) / 2 : -1);
      gfloat fx = h_cosited ? ((x & 1) ? 0.5f : 0.0f) :
          ((x & 1) ? 0.25f : 0.75f);
      gint ca = CLAMP (cx0, 0, cw - 1), cb = CLAMP (cx0 + 1, 0, cw - 1);
      gfloat yv = SAMPLE (0, luma, x), c[2] = { 128.0f, 128.0f };

      for (k = 1; !gray && k < 3; k++) {
        gfloat top = SAMPLE (k, ROW (k, ra), ca), top_b = SAMPLE (k, ROW (k,
                ra), cb);
        gfloat bot = SAMPLE (k, ROW (k, rb), ca), bot_b = SAMPLE (k, ROW (k,
                rb), cb);
        gfloat t = top + fx * (top_b - top), b = bot + fx * (bot_b - bot);

        c[k - 1] = t + fy * (b - t);
      }
      out[4 * x] = cpu_to_u8 (m[0] * yv + m[1] * c[0] + m[2] * c[1] + m[3]);
      out[4 * x + 1] = cpu_to_u8 (m[4] * yv + m[5] * c[0] + m[6] * c[1] + m[7]);
      out[4 * x + 2] = cpu_to_u8 (m[8] * yv + m[9] * c[0] + m[10] * c[1] +
          m[11]);
      out[4 * x + 3] = 255;
    }
  }
#undef SAMPLE
#undef ROW
}

/* The CPU back end of a method other than LINEAR (cpu->params.method) for
 * the source @in: the RGB frame of the output's size, the stand-in where
 * the input is not 8-bit RGB, the resampler, and the conversion of the RGB
 * frame to video output. */
static gboolean
cpu_new_resampled (GstCudaCacheConverterCpu * cpu, const GstVideoInfo * in,
    GError ** error)
{
  const GstCudaCacheConvertParams *p = &cpu->params;
  const GstCudaCacheConverterInfo *info = &cpu->info;
  GstVideoFormat out_format = GST_VIDEO_INFO_FORMAT (&info->out_info);
  /* packed RGB video through GstVideoConverter (a copy, or the bytes
   * reordered); GRAY8, NV12 and I420 packed here */
  gboolean video_out = !info->tensor_out &&
      out_format != GST_VIDEO_FORMAT_GRAY8 &&
      out_format != GST_VIDEO_FORMAT_NV12 &&
      out_format != GST_VIDEO_FORMAT_I420;

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
  if (!GST_VIDEO_INFO_IS_RGB (in)) {
    if (!gst_video_info_set_format (&cpu->stand_in, GST_VIDEO_FORMAT_RGBx,
            GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in)) ||
        !cpu_frame_fits (&cpu->stand_in, "the RGBx frame the input is "
            "resampled from", error)) {
      if (error && !*error)
        g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
            "the CPU path cannot lay out the RGBx frame of %dx%d %s it "
            "resamples from (4 GiB or more)", GST_VIDEO_INFO_WIDTH (in),
            GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_NAME (in));
      return FALSE;
    }
    cpu->stand_in_buf = gst_buffer_new_allocate (NULL,
        GST_VIDEO_INFO_SIZE (&cpu->stand_in), NULL);
  }
  if (!cpu->rgb_buf || (!GST_VIDEO_INFO_IS_RGB (in) && !cpu->stand_in_buf)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "cannot allocate the frames the CPU path resamples through");
    return FALSE;
  }
  cpu->resampler = gst_cuda_cache_resampler_new (p->method, p->in_width,
      p->in_height, p->dest_width, p->dest_height);
  if (video_out) {
    GstVideoInfo out = info->out_info;

    GST_VIDEO_INFO_FPS_N (&out) = GST_VIDEO_INFO_FPS_N (in);
    GST_VIDEO_INFO_FPS_D (&out) = GST_VIDEO_INFO_FPS_D (in);
    cpu->conv = gst_video_converter_new (&cpu->rgb, &out,
        gst_structure_new ("options", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
            GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
            GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
            GST_TYPE_VIDEO_RESAMPLER_METHOD,
            GST_VIDEO_RESAMPLER_METHOD_LINEAR, GST_VIDEO_CONVERTER_OPT_THREADS,
            G_TYPE_UINT, MIN (g_get_num_processors (), 8), NULL));
    if (!cpu->conv) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "GstVideoConverter cannot convert RGB to %s",
          GST_VIDEO_INFO_NAME (&info->out_info));
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
  gboolean upsample;
  gboolean keep_upsample, keep_rgb;
  GstCudaCacheConverterCpu *cpu;

  cpu = g_new0 (GstCudaCacheConverterCpu, 1);
  cpu->info = *info;
  cpu->params = *params;
  cpu->cropped = p->src_x != 0 || p->src_y != 0 ||
      p->in_width != GST_VIDEO_INFO_WIDTH (in) ||
      p->in_height != GST_VIDEO_INFO_HEIGHT (in);
  if (cpu->cropped) {
    /* a frame of the rectangle's size, as GStreamer lays it out (the view
     * takes the input's strides) */
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
  }
  if (p->method != GST_CUDA_CACHE_RESIZE_METHOD_LINEAR) {
    if (!cpu_new_resampled (cpu, in, error))
      goto failed;
    return cpu;
  }
  upsample = cpu_needs_upsample (in, p);
  if (cpu_via_rgb (info)) {
    if (!gst_video_info_set_format (&cpu->rgb, GST_VIDEO_FORMAT_RGB,
            p->out_width, p->out_height)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot make %s of %dx%d: GStreamer cannot lay out "
          "the %dx%d RGB frame it is packed from (4 GiB or more)",
          info->tensor_out ? "a tensor" : "GRAY8", p->out_width,
          p->out_height, p->out_width, p->out_height);
      goto failed;
    }
    out = cpu->rgb;
  }
  /* GstVideoConverter converts pictures, not frame rates */
  GST_VIDEO_INFO_FPS_N (&out) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (&out) = GST_VIDEO_INFO_FPS_D (in);
  if (cpu_has_stand_in (in)) {
    if (!gst_video_info_set_format (&cpu->stand_in, GST_VIDEO_FORMAT_RGBx,
            GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in))) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot convert %dx%d %s: GStreamer cannot lay out "
          "the RGBx frame of that size it is converted as (4 GiB or more)",
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in),
          GST_VIDEO_INFO_NAME (in));
      goto failed;
    }
    GST_VIDEO_INFO_PAR_N (&cpu->stand_in) = GST_VIDEO_INFO_PAR_N (in);
    GST_VIDEO_INFO_PAR_D (&cpu->stand_in) = GST_VIDEO_INFO_PAR_D (in);
    GST_VIDEO_INFO_FPS_N (&cpu->stand_in) = GST_VIDEO_INFO_FPS_N (in);
    GST_VIDEO_INFO_FPS_D (&cpu->stand_in) = GST_VIDEO_INFO_FPS_D (in);
    if (!cpu_frame_fits (&cpu->stand_in, "the RGBx frame the input is "
            "converted as", error))
      goto failed;
    cpu->stand_in_buf = gst_buffer_new_allocate (NULL,
        GST_VIDEO_INFO_SIZE (&cpu->stand_in), NULL);
    if (!cpu->stand_in_buf) {
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT, "cannot allocate the %"
          G_GSIZE_FORMAT " bytes of the RGBx frame the input is converted as",
          GST_VIDEO_INFO_SIZE (&cpu->stand_in));
      goto failed;
    }
    in = &cpu->stand_in;
  }
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
      !cpu_frame_fits (&out, cpu_via_rgb (info) ?
          "the RGB frame a tensor is packed from" : "an output frame", error)
      || (upsample && !cpu_frame_fits (&cpu->ayuv,
              "the AYUV frame the input's chroma is upsampled to", error)))
    goto failed;
  keep_upsample = upsample && old && old->upsample &&
      gst_video_info_is_equal (&old->upsample_in, in);
  keep_rgb = cpu_via_rgb (info) && old && old->rgb_buf &&
      gst_buffer_get_size (old->rgb_buf) == GST_VIDEO_INFO_SIZE (&cpu->rgb);

  cpu->conv = gst_video_converter_new (upsample ? &cpu->ayuv :
      (GstVideoInfo *) in, &out, cpu_options (p));
  if (!cpu->conv) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "GstVideoConverter cannot convert %s to %s",
        GST_VIDEO_INFO_NAME (upsample ? &cpu->ayuv : in),
        cpu_via_rgb (info) ? "RGB" : GST_VIDEO_INFO_NAME (&out));
    goto failed;
  }
  if (cpu_via_rgb (info) && !keep_rgb) {
    cpu->rgb_buf = gst_buffer_new_allocate (NULL,
        GST_VIDEO_INFO_SIZE (&cpu->rgb), NULL);
    if (!cpu->rgb_buf) {
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT, "cannot allocate the %"
          G_GSIZE_FORMAT " bytes of the frame the tensor is packed from",
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

/* The gray of an 8-bit RGB pixel (gstcudacachekernels-private.h, 6.),
 * rounded half up and clamped */
static guint8
gray_of (const GstCudaCacheConvertParams * p, const guint8 * rgb)
{
  const gfloat *m = p->rgb_to_yuv;
  gfloat g = m[0] * rgb[0] + m[1] * rgb[1] + m[2] * rgb[2] + m[3];

  return (guint8) CLAMP (floorf (g + 0.5f), 0.0f, 255.0f);
}

/* GRAY8 from an RGB frame */
static void
pack_gray (const GstCudaCacheConvertParams * p, const GstVideoFrame * rgb,
    GstVideoFrame * gray)
{
  gint x, y;

  for (y = 0; y < p->out_height; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (rgb, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);
    guint8 *out = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (gray, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (gray, 0);

    for (x = 0; x < p->out_width; x++)
      out[x] = gray_of (p, row + 3 * x);
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
  const gfloat *m = p->rgb_to_yuv;
  gboolean nv12 = GST_VIDEO_FRAME_FORMAT (out) == GST_VIDEO_FORMAT_NV12;
  gint w = p->out_width, h = p->out_height, bx, by, dx, dy, k;

  for (by = 0; by < (h + 1) / 2; by++) {
    guint8 *u_row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (out, 1) +
        (gsize) by * GST_VIDEO_FRAME_COMP_STRIDE (out, 1);
    guint8 *v_row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (out, 2) +
        (gsize) by * GST_VIDEO_FRAME_COMP_STRIDE (out, 2);

    for (bx = 0; bx < (w + 1) / 2; bx++) {
      gfloat mean[3] = { 0, }, picture[3] = { 0, };
      gint n = 0, n_picture = 0;

      for (dy = 0; dy < 2 && 2 * by + dy < h; dy++) {
        gint y = 2 * by + dy;
        const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (rgb,
            0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);
        guint8 *y_row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, 0) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (out, 0);

        for (dx = 0; dx < 2 && 2 * bx + dx < w; dx++) {
          gint x = 2 * bx + dx;
          const guint8 *c = row + 3 * x;
          gboolean inside = x >= p->dest_x && x < p->dest_x + p->dest_width &&
              y >= p->dest_y && y < p->dest_y + p->dest_height;

          y_row[x] = gray_of (p, c);
          for (k = 0; k < 3; k++) {
            mean[k] += c[k];
            if (inside)
              picture[k] += c[k];
          }
          n++;
          n_picture += inside;
        }
      }
      if (n_picture > 0 && n_picture < n) {
        memcpy (mean, picture, sizeof (mean));
        n = n_picture;
      }
      for (k = 0; k < 3; k++)
        mean[k] /= n;
      u_row[bx * (nv12 ? 2 : 1)] = cpu_to_u8 (m[4] * mean[0] + m[5] * mean[1]
          + m[6] * mean[2] + m[7]);
      v_row[bx * (nv12 ? 2 : 1)] = cpu_to_u8 (m[8] * mean[0] + m[9] * mean[1]
          + m[10] * mean[2] + m[11]);
    }
  }
}

/* The tensor from an RGB frame: its channels, or its gray. */
static void
pack_tensor (const GstCudaCacheConvertParams * p, const GstVideoFrame * rgb,
    guint8 * dst)
{
  gint w = p->out_width, h = p->out_height, x, y, k;
  gint c = p->channels;
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (rgb, 0);

  for (y = 0; y < h; y++) {
    const guint8 *row = src + (gsize) y * stride;

    for (x = 0; x < w; x++) {
      for (k = 0; k < c; k++) {
        guint8 q = c == 1 ? gray_of (p, row + 3 * x) :
            row[3 * x + (p->bgr ? 2 - k : k)];
        gfloat v = q * p->mul[k] + p->add[k];
        gsize i = p->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW ?
            ((gsize) k * h + y) * w + x : ((gsize) y * w + x) * c + k;

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

/* @frame seen as its source rectangle: the rectangle's size and the
 * frame's strides, each plane from the rectangle's top left (its edges on
 * the chroma grid). No copy; only @frame is unmapped. */
static void
cpu_source_view (const GstCudaCacheConverterCpu * cpu,
    const GstVideoFrame * frame, GstVideoFrame * view)
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  guint i;

  *view = *frame;
  if (!cpu->cropped)
    return;
  view->info = cpu->source;
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++)
    view->info.stride[i] = frame->info.stride[i];
  gst_cuda_cache_convert_params_source_offsets (&cpu->params,
      GST_VIDEO_FRAME_FORMAT (frame), frame->info.stride, offset);
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (frame); i++)
    view->data[i] = (guint8 *) frame->data[i] + offset[i];
}

/* The fill everywhere in @rgb but the picture's rectangle. */
static void
cpu_fill_bars (const GstCudaCacheConvertParams * p, GstVideoFrame * rgb)
{
  gint x, y;

  for (y = 0; y < p->out_height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (rgb, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);
    gboolean bar = y < p->dest_y || y >= p->dest_y + p->dest_height;

    for (x = 0; x < p->out_width; x++) {
      if (!bar && x == p->dest_x) {
        x += p->dest_width - 1;
        continue;
      }
      row[3 * x] = (guint8) p->fill[0];
      row[3 * x + 1] = (guint8) p->fill[1];
      row[3 * x + 2] = (guint8) p->fill[2];
    }
  }
}

/* A method other than LINEAR: the source's 8-bit RGB (in place, or its
 * stand-in) resampled into the RGB frame's picture, the bars filled, then
 * packed or converted */
static gboolean
cpu_convert_resampled (GstCudaCacheConverterCpu * cpu, GstBuffer * inbuf,
    GstBuffer * outbuf, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cpu->info;
  const GstCudaCacheConvertParams *p = &cpu->params;
  GstVideoFrame in_frame, view, rgb, stand_in, out_frame;
  const GstVideoFrame *src;
  gint rgb_at[3] = { 0, 1, 2 }, c;
  guint threads = MIN (g_get_num_processors (), 8);
  GstMapInfo map;
  gboolean ok = TRUE;

  if (!gst_cuda_cache_converter_frame_map (&in_frame, &info->in_info, inbuf,
          GST_MAP_READ, "input", error))
    return FALSE;
  cpu_source_view (cpu, &in_frame, &view);
  if (!gst_video_frame_map (&rgb, &cpu->rgb, cpu->rgb_buf, GST_MAP_READWRITE)) {
    gst_video_frame_unmap (&in_frame);
    goto map_failed;
  }
  src = &view;
  if (cpu->stand_in_buf) {
    if (!gst_video_frame_map (&stand_in, &cpu->stand_in, cpu->stand_in_buf,
            GST_MAP_READWRITE)) {
      gst_video_frame_unmap (&rgb);
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    cpu_make_stand_in (p, &view, &stand_in);
    src = &stand_in;
  } else {
    for (c = 0; c < 3; c++)
      rgb_at[c] = GST_VIDEO_FORMAT_INFO_POFFSET (view.info.finfo, c);
  }

  cpu_fill_bars (p, &rgb);
  gst_cuda_cache_resampler_run (cpu->resampler,
      (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (src, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (src, 0),
      GST_VIDEO_FRAME_COMP_PSTRIDE (src, 0), rgb_at,
      (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&rgb, 0) +
      (gsize) p->dest_y * GST_VIDEO_FRAME_PLANE_STRIDE (&rgb, 0) +
      (gsize) p->dest_x * 3, GST_VIDEO_FRAME_PLANE_STRIDE (&rgb, 0), threads);
  if (cpu->stand_in_buf)
    gst_video_frame_unmap (&stand_in);
  gst_video_frame_unmap (&in_frame);

  if (info->tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
      gst_video_frame_unmap (&rgb);
      goto map_failed;
    }
    ok = gst_cuda_cache_converter_tensor_fits (info, map.size, error);
    if (ok)
      pack_tensor (p, &rgb, map.data);
    gst_buffer_unmap (outbuf, &map);
  } else if (gst_cuda_cache_converter_frame_map (&out_frame, &info->out_info,
          outbuf, GST_MAP_WRITE, "output", error)) {
    if (cpu->conv)
      gst_video_converter_frame (cpu->conv, &rgb, &out_frame);
    else if (GST_VIDEO_FRAME_FORMAT (&out_frame) == GST_VIDEO_FORMAT_GRAY8)
      pack_gray (p, &rgb, &out_frame);
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

gboolean
gst_cuda_cache_converter_cpu_convert (GstCudaCacheConverterCpu * cpu,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cpu->info;
  const GstVideoInfo *out_info;
  GstVideoFrame in_frame, out_frame, view;
  GstBuffer *target;
  GstMapInfo map;

  if (cpu->resampler)
    return cpu_convert_resampled (cpu, inbuf, outbuf, error);

  target = cpu_via_rgb (info) ? cpu->rgb_buf : outbuf;
  out_info = cpu_via_rgb (info) ? &cpu->rgb : &info->out_info;

  if (!gst_cuda_cache_converter_frame_map (&in_frame, &info->in_info, inbuf,
          GST_MAP_READ, "input", error))
    return FALSE;
  cpu_source_view (cpu, &in_frame, &view);
  /* the RGB frame a tensor or GRAY8 is packed from is the back end's own
   * buffer: only ever mapped */
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
    gst_video_converter_frame (cpu->upsample, &view, &ayuv_frame);
    gst_video_converter_frame (cpu->conv, &ayuv_frame, &out_frame);
    gst_video_frame_unmap (&ayuv_frame);
  } else if (cpu->stand_in_buf) {
    GstVideoFrame rgbx_frame;

    if (!gst_video_frame_map (&rgbx_frame, &cpu->stand_in, cpu->stand_in_buf,
            GST_MAP_READWRITE)) {
      gst_video_frame_unmap (&out_frame);
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    cpu_make_stand_in (&cpu->params, &view, &rgbx_frame);
    gst_video_converter_frame (cpu->conv, &rgbx_frame, &out_frame);
    gst_video_frame_unmap (&rgbx_frame);
  } else {
    gst_video_converter_frame (cpu->conv, &view, &out_frame);
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
  } else if (cpu_via_rgb (info)) {
    GstVideoFrame gray_frame;

    if (!gst_cuda_cache_converter_frame_map (&gray_frame, &info->out_info,
            outbuf, GST_MAP_WRITE, "output", error)) {
      gst_video_frame_unmap (&out_frame);
      return FALSE;
    }
    pack_gray (&cpu->params, &out_frame, &gray_frame);
    gst_video_frame_unmap (&gray_frame);
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
  gst_clear_buffer (&cpu->stand_in_buf);
  gst_clear_buffer (&cpu->rgb_buf);
  g_clear_pointer (&cpu->resampler, gst_cuda_cache_resampler_free);
  g_free (cpu);
}
