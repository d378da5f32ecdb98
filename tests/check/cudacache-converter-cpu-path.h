/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The converter's CPU path held to the definition (cudacache-definition.h,
 * gstcudacachekernels-private.h): LINEAR at every pixel against
 * GstVideoResampler's taps, the definition the GPU suite holds the
 * kernels to against the CPU path, the presets' 4:2:0 output, the webcam
 * and gray formats, 16-bit input, and 4:2:0 input's chroma rows whatever
 * its planes' layout. Included by libs/converter.c, whose converter_new ()
 * it uses. */

#ifndef __CUDACACHE_CONVERTER_CPU_PATH_H__
#define __CUDACACHE_CONVERTER_CPU_PATH_H__

#include <math.h>
#include <string.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-check.h"
#include "cudacache-config.h"
#include "cudacache-picture.h"
#include "cudacache-definition.h"

/* The definition's LINEAR taps for output index @j, in doubles, as
 * GstVideoResampler computes them. */
static void
reference_taps (gint in_size, gint out_size, gint j, gint * first,
    gint * n_taps, gdouble * weights)
{
  gdouble scale = in_size / (gdouble) out_size;
  gdouble fx = scale > 1.0 ? 1.0 / scale : 1.0;
  gint n = CLAMP ((gint) ceil (2.0 / fx), 1, 128);
  gdouble x, sum = 0;
  gint l;

  fx = 2.0 / n;
  n = MIN (n, in_size);
  x = (0.5 + j) / out_size * in_size - (n > 1 ? 0.5 : 0.0);
  x = CLAMP (x, 0, in_size - 1);
  *first = (gint) floor (x) - (n - 1) / 2;
  *n_taps = n;
  for (l = 0; l < n; l++) {
    gdouble a = fabs (x - (*first + l)) * fx;

    weights[l] = a < 1.0 ? 1.0 - a : 0.0;
    sum += weights[l];
  }
  for (l = 0; l < n; l++)
    weights[l] /= sum;
}

/* Source pixel (x, y) of the test picture, channel c: gradients and a
 * checkerboard, so that both smooth areas and sharp edges are compared. */
static guint8
picture_at (gint x, gint y, gint c, gint w, gint h)
{
  switch (c) {
    case 0:
      return 255 * x / MAX (w - 1, 1);
    case 1:
      return 255 * y / MAX (h - 1, 1);
    default:
      return ((x / 3 + y / 2) & 1) ? 230 : 20;
  }
}

/* Every pixel of the CPU path's output against the definition, for RGB,
 * worked out here on its own: GstVideoResampler's LINEAR taps on both
 * axes, in double (lines of three bytes in and out are scaled in place;
 * other lines take a two-tap path when upscaling, which
 * compare_with_definition () covers), and one rounding. */
static void
check_cpu_against_definition (gint in_w, gint in_h, gint out_w, gint out_h,
    gboolean letterbox, guint fill, gdouble max_mean)
{
  gchar *in = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d",
      in_w, in_h);
  gchar *out = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d",
      out_w, out_h);
  GstStructure *config = gst_structure_new ("c",
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, G_TYPE_BOOLEAN, letterbox,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, G_TYPE_UINT, fill, NULL);
  GstCudaCacheConverter *conv = converter_new (in, out, config);
  GstVideoInfo in_info, out_info;
  GstVideoFrame in_frame, out_frame;
  GstBuffer *inbuf, *outbuf;
  GstVideoRectangle rect;
  gdouble *wx, *wy, worst = 0, total = 0;
  guint64 n_inside = 0;
  gint x, y, c, l, m;
  GError *error = NULL;

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_RGB, in_w, in_h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGB, out_w, out_h);
  inbuf = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  outbuf = gst_buffer_new_allocate (NULL, out_info.size, NULL);
  fail_unless (gst_video_frame_map (&in_frame, &in_info, inbuf, GST_MAP_WRITE));
  for (y = 0; y < in_h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&in_frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, 0);

    for (x = 0; x < in_w; x++) {
      for (c = 0; c < 3; c++)
        row[3 * x + c] = picture_at (x, y, c, in_w, in_h);
    }
  }
  gst_video_frame_unmap (&in_frame);

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          NULL, &error), "%s", error ? error->message : "");
  test_picture_rect (conv, &rect);

  wx = g_new0 (gdouble, 128);
  wy = g_new0 (gdouble, 128);
  fail_unless (gst_video_frame_map (&out_frame, &out_info, outbuf,
          GST_MAP_READ));
  for (y = 0; y < out_h; y++) {
    const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&out_frame,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, 0);
    gint fy = 0, ny = 0;

    if (y >= rect.y && y < rect.y + rect.h)
      reference_taps (in_h, rect.h, y - rect.y, &fy, &ny, wy);

    for (x = 0; x < out_w; x++) {
      gboolean inside = y >= rect.y && y < rect.y + rect.h &&
          x >= rect.x && x < rect.x + rect.w;
      gint fx = 0, nx = 0;

      if (inside)
        reference_taps (in_w, rect.w, x - rect.x, &fx, &nx, wx);
      for (c = 0; c < 3; c++) {
        gdouble want = fill, diff;

        if (inside) {
          want = 0;
          for (l = 0; l < ny; l++) {
            gint sy = CLAMP (fy + l, 0, in_h - 1);

            for (m = 0; m < nx; m++) {
              gint sx = CLAMP (fx + m, 0, in_w - 1);

              want += wy[l] * wx[m] * picture_at (sx, sy, c, in_w, in_h);
            }
          }
        }
        diff = fabs (row[3 * x + c] - want);
        worst = MAX (worst, diff);
        /* borders are exact; the picture within its one rounding */
        if (inside) {
          total += diff;
          n_inside++;
        }
        fail_unless (diff <= (inside ? 0.52 : 0.0),
            "%dx%d -> %dx%d%s: pixel (%d, %d) channel %d is %d, the "
            "definition says %.2f", in_w, in_h, out_w, out_h,
            letterbox ? " letterboxed" : "", x, y, c, row[3 * x + c], want);
      }
    }
  }
  GST_INFO ("%dx%d -> %dx%d%s: worst %.3f levels, mean %.3f", in_w, in_h,
      out_w, out_h, letterbox ? " letterboxed" : "", worst,
      total / MAX (n_inside, 1));
  /* rounding to 8 bits: a quarter of a level on average, where values
   * fall evenly between levels */
  fail_unless (total / MAX (n_inside, 1) <= max_mean, "mean difference %.3f",
      total / MAX (n_inside, 1));
  gst_video_frame_unmap (&out_frame);

  g_free (wx);
  g_free (wy);
  gst_buffer_unref (inbuf);
  gst_buffer_unref (outbuf);
  gst_object_unref (conv);
  g_free (in);
  g_free (out);
}

GST_START_TEST (test_cpu_path_every_pixel)
{
  /* same size, odd sizes both ways, extreme factors both ways */
  check_cpu_against_definition (33, 17, 33, 17, FALSE, 0, 0.3);
  check_cpu_against_definition (64, 48, 31, 23, FALSE, 0, 0.3);
  check_cpu_against_definition (31, 23, 64, 48, FALSE, 0, 0.3);
  check_cpu_against_definition (7, 5, 129, 97, FALSE, 0, 0.3);
  check_cpu_against_definition (385, 217, 3, 3, FALSE, 0, 0.3);
  check_cpu_against_definition (1, 1, 9, 7, FALSE, 0, 0.3);
  check_cpu_against_definition (200, 3, 17, 1, FALSE, 0, 0.3);
  /* letterbox: bars above and below, bars left and right */
  check_cpu_against_definition (192, 108, 64, 64, TRUE, 114, 0.3);
  check_cpu_against_definition (45, 101, 66, 33, TRUE, 7, 0.3);
}

GST_END_TEST;

/* The definition the GPU suite holds the kernels to (cudacache-definition.h)
 * against the CPU path, on conversions where GstVideoConverter is near
 * it: so that a definition gone grossly wrong (a channel, a sign, the
 * letterbox, the matrix) shows in CI, where the GPU suite cannot run; a
 * quarter-pixel error of chroma siting hides in the 4:2:0 bound, and only
 * the GPU suite's 0.6 levels catch it. Measured with GStreamer 1.22
 * (2026-11-25): RGB-family input within 1.6 levels (GstVideoConverter's
 * 8-bit passes), 4:2:0 input within 7.1 (its 8-bit YUV to RGB as well). */
static GstBuffer *
cpu_path_convert (GstBuffer * in, const GstVideoInfo * info, const Output * o,
    const Geometry * g)
{
  static const gdouble none[3] = { 0.0, 0.0, 0.0 }, ones[3] = { 1, 1, 1 };
  gchar *in_str = input_caps (info, g, FALSE);
  gchar *out_str = output_caps (o, g->out_w, g->out_h, FALSE);
  GstStructure *config = test_config_new (g->letterbox,
      114, o->order && g_str_equal (o->order, "bgr") ?
      GST_CUDA_CACHE_CHANNEL_ORDER_BGR : GST_CUDA_CACHE_CHANNEL_ORDER_RGB,
      o->normalise ? 1.0 / 255.0 : 1.0, o->normalise ? imagenet_mean : none,
      o->normalise ? imagenet_std : ones);
  GstCudaCacheConverter *conv = converter_new (in_str, out_str, config);
  GError *error = NULL;
  GstBuffer *out;
  gsize size;

  if (o->format) {
    g_autoptr (GstCaps) out_caps = gst_caps_from_string (out_str);
    GstVideoInfo out_info;

    fail_unless (gst_video_info_from_caps (&out_info, out_caps));
    size = GST_VIDEO_INFO_SIZE (&out_info);
  } else {
    size = (gsize) g->out_w * g->out_h * output_channels (o) *
        (o->dtype[0] == 'u' ? 1 : o->dtype[5] == '1' ? 2 : 4);
  }
  out = gst_buffer_new_allocate (NULL, size, NULL);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
          &error), "%s", error ? error->message : "");
  gst_object_unref (conv);
  g_free (out_str);
  g_free (in_str);

  return out;
}

/* What the CPU path's checks against the definition found */
typedef struct
{
  guint checked;
  gdouble worst[2];             /* raw, on the gradients and on noise */
  gdouble worst_end;            /* where the definition rounds only at the end */
} DefinitionChecks;

/* Every input of @ins to every output of @outs that @take takes (NULL:
 * all) at every geometry of @geos, on the gradients and on noise drawn
 * from @seed, converted by the CPU path and held to the definition within
 * definition_tolerance (), every value. */
static DefinitionChecks
check_cpu_path_is_the_definition (const GstVideoFormat * ins, guint n_ins,
    const Output * outs, guint n_outs, const Geometry * geos, guint n_geos,
    guint32 seed, gboolean (*take) (GstVideoFormat in, const Output * o))
{
  DefinitionChecks c = { 0, };
  GRand *rand = g_rand_new_with_seed (seed);
  guint g, i, j, noise;

  for (noise = 0; noise < 2; noise++) {
    for (g = 0; g < n_geos; g++) {
      for (i = 0; i < n_ins; i++) {
        GstVideoInfo info;
        GstBuffer *sys;

        sys = cudacache_make_picture (ins[i], geos[g].in_w, geos[g].in_h,
            &info);
        if (noise)
          cudacache_fill_noise (sys, rand);
        for (j = 0; j < n_outs; j++) {
          GstBuffer *out;
          Difference d;

          if (take && !take (ins[i], &outs[j]))
            continue;
          out = cpu_path_convert (sys, &info, &outs[j], &geos[g]);
          d = compare_with_definition (sys, &info, out, &outs[j], &geos[g]);
          fail_unless (d.levels <= definition_tolerance (&d, &info,
                  &outs[j]), "%s %dx%d %s -> %dx%d %s%s: the CPU path is "
              "%.3f levels off the definition at %s", noise ? "noise" :
              "gradients", geos[g].in_w, geos[g].in_h,
              GST_VIDEO_INFO_NAME (&info), geos[g].out_w, geos[g].out_h,
              outs[j].format ? outs[j].format : outs[j].dtype,
              outs[j].gray ? " gray" : "", d.levels, d.where);
          c.worst[noise] = MAX (c.worst[noise], d.levels);
          if (!d.rounds_first)
            c.worst_end = MAX (c.worst_end, d.levels);
          c.checked++;
          gst_buffer_unref (out);
        }
        gst_buffer_unref (sys);
      }
    }
  }
  g_rand_free (rand);

  return c;
}

GST_START_TEST (test_cpu_path_is_the_definition)
{
  static const Output outs[] = {
    {"RGBA",}, {"BGR",}, {"NV12",}, {"I420",},
    {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "float16", "NCHW", "bgr", TRUE},
    {NULL, "uint8", "NHWC", "rgb", FALSE},
  };
  static const Geometry geos[] = {
    /* the same size, even and odd: sharp chroma edges are not smoothed */
    {64, 48, 64, 48, FALSE},
    {33, 17, 33, 17, FALSE},
    {64, 48, 31, 23, FALSE},
    /* grown: GstVideoScaler's 2-tap path; 4:2:0 converted first */
    {31, 23, 64, 48, FALSE},
    {7, 5, 129, 97, FALSE},
    /* widened only, narrowed only */
    {40, 30, 81, 30, FALSE},
    {81, 31, 40, 31, FALSE},
    /* many taps */
    {385, 217, 3, 3, FALSE},
    {192, 108, 64, 64, TRUE},
    {45, 101, 66, 33, TRUE},
    {321, 241, 199, 147, FALSE, FALSE, FALSE, "bt709"},
    {640, 480, 300, 200, FALSE, FALSE, FALSE, "1:3:5:1"},
  };
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420
  };
  DefinitionChecks c = check_cpu_path_is_the_definition (ins,
      G_N_ELEMENTS (ins), outs, G_N_ELEMENTS (outs), geos,
      G_N_ELEMENTS (geos), 27, NULL);

  GST_INFO ("%u conversions, the CPU path at most %.3f levels off the "
      "definition where it rounds only at the end, %.3f and %.3f on the "
      "gradients and noise", c.checked, c.worst_end, c.worst[0], c.worst[1]);
  fail_unless_equals_int (c.checked, 2 * G_N_ELEMENTS (geos) *
      G_N_ELEMENTS (ins) * G_N_ELEMENTS (outs));
}

GST_END_TEST;


/* A resampling preset's NV12 and I420 output is the definition's 4:2:0
 * (4. in gstcudacachekernels-private.h, as the kernels store it) of the
 * RGB picture the preset makes: Y of each pixel, U and V of each 2x2
 * block's mean, a block that straddles the letterbox's edge taking its
 * picture pixels only; within rounding (the CPU path's floats against
 * doubles), on noise too, where every pixel is a sharp edge. */
static GstBuffer *
preset_convert (GstBuffer * in, const gchar * in_caps, const gchar * format,
    const Geometry * g, GstCudaCacheResizeMethod method, GstVideoInfo * out,
    GstVideoRectangle * rect)
{
  static const gdouble none[3] = { 0.0, 0.0, 0.0 }, ones[3] = { 1, 1, 1 };
  GstStructure *config = test_config_new (g->letterbox,
      114, GST_CUDA_CACHE_CHANNEL_ORDER_RGB, 1.0, none, ones);
  gchar *out_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d", format, g->out_w, g->out_h);
  g_autoptr (GstCaps) caps = gst_caps_from_string (out_caps);
  GstCudaCacheConverter *conv;
  GError *error = NULL;
  GstBuffer *buf;

  gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
      GST_TYPE_CUDA_CACHE_RESIZE_METHOD, method, NULL);
  conv = converter_new (in_caps, out_caps, config);
  fail_unless (gst_video_info_from_caps (out, caps));
  test_picture_rect (conv, rect);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (out), NULL);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, buf, NULL,
          &error), "%s", error ? error->message : "");
  gst_object_unref (conv);
  g_free (out_caps);

  return buf;
}

GST_START_TEST (test_presets_yuv420_output_is_the_definition)
{
  static const Geometry geos[] = {
    {97, 55, 160, 162, TRUE},   /* bars above and below, odd rows */
    {55, 97, 163, 121, TRUE},   /* bars left and right, odd columns */
    {321, 241, 199, 147, FALSE},
  };
  static const gchar *formats[] = { "NV12", "I420" };
  GRand *rand = g_rand_new_with_seed (27);
  GstCudaCacheResizeMethod method;
  guint g, f, noise, checked = 0;
  gdouble worst = 0;

  for (method = GST_CUDA_CACHE_RESIZE_METHOD_NEAREST;
      method <= GST_CUDA_CACHE_RESIZE_METHOD_ANTIALIAS; method++) {
    for (g = 0; g < G_N_ELEMENTS (geos); g++) {
      for (noise = 0; noise < 2; noise++) {
        GstVideoInfo info, rgb_info;
        GstBuffer *in = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA,
            geos[g].in_w, geos[g].in_h, &info);
        gchar *in_caps = input_caps (&info, &geos[g], FALSE);
        GstVideoRectangle rect;
        GstVideoFrame rgb;
        GstBuffer *rgb_buf;

        if (noise)
          cudacache_fill_noise (in, rand);
        for (f = 0; f < G_N_ELEMENTS (formats); f++) {
          GstVideoInfo out_info;
          GstVideoFrame out;
          GstBuffer *out_buf = preset_convert (in, in_caps, formats[f],
              &geos[g], method, &out_info, &rect);
          /* the picture alone, at the size the 4:2:0 output's picture
           * has (on its chroma grid), by the same preset */
          Geometry pg = { geos[g].in_w, geos[g].in_h, rect.w, rect.h, FALSE };
          GstVideoRectangle whole;
          gdouble from_rgb[3][4];
          gint x, y, k, dx, dy;

          rgb_buf = preset_convert (in, in_caps, "RGB", &pg, method,
              &rgb_info, &whole);
          fail_unless (gst_video_frame_map (&rgb, &rgb_info, rgb_buf,
                  GST_MAP_READ));
          definition_matrix (&out_info, NULL, from_rgb);
          fail_unless (gst_video_frame_map (&out, &out_info, out_buf,
                  GST_MAP_READ));
          for (y = 0; y < geos[g].out_h; y++) {
            for (x = 0; x < geos[g].out_w; x++) {
              for (k = 0; k < 3; k++) {
                gdouble c[3] = { 0, }, pic[3] = { 0, }, want, diff;
                gint n = 0, n_pic = 0, l;

                if (k > 0 && ((x & 1) || (y & 1)))
                  continue;
                for (dy = 0; dy < (k ? 2 : 1) && y + dy < geos[g].out_h; dy++) {
                  for (dx = 0; dx < (k ? 2 : 1) && x + dx < geos[g].out_w; dx++) {
                    gint px = x + dx - rect.x, py = y + dy - rect.y;
                    gboolean inside = px >= 0 && px < rect.w && py >= 0 &&
                        py < rect.h;
                    const guint8 *p = inside ? (const guint8 *)
                        GST_VIDEO_FRAME_PLANE_DATA (&rgb, 0) +
                        py * GST_VIDEO_FRAME_PLANE_STRIDE (&rgb, 0) + 3 * px :
                        NULL;

                    for (l = 0; l < 3; l++) {
                      c[l] += inside ? p[l] : 114;
                      pic[l] += inside ? p[l] : 0;
                    }
                    n++;
                    n_pic += inside;
                  }
                }
                for (l = 0; l < 3; l++)
                  c[l] = n_pic > 0 && n_pic < n ? pic[l] / n_pic : c[l] / n;
                want = definition_yuv (from_rgb, c, k);
                diff = fabs (want - ((const guint8 *)
                        GST_VIDEO_FRAME_COMP_DATA (&out, k))[(k ? y / 2 : y) *
                        GST_VIDEO_FRAME_COMP_STRIDE (&out, k) +
                        (k ? x / 2 : x) * GST_VIDEO_FRAME_COMP_PSTRIDE (&out,
                            k)]);
                fail_unless (diff <= 0.5 + 1e-3, "method %d %dx%d%s -> "
                    "%dx%d %s: %.3f levels off the definition at x=%d y=%d "
                    "c=%d", method, geos[g].in_w, geos[g].in_h,
                    noise ? " noise" : "", geos[g].out_w, geos[g].out_h,
                    formats[f], diff, x, y, k);
                worst = MAX (worst, diff);
                checked++;
              }
            }
          }
          gst_video_frame_unmap (&out);
          gst_buffer_unref (out_buf);
          gst_video_frame_unmap (&rgb);
          gst_buffer_unref (rgb_buf);
        }
        gst_buffer_unref (in);
        g_free (in_caps);
      }
    }
  }
  g_rand_free (rand);
  GST_INFO ("%u values, worst %.3f levels", checked, worst);
  fail_unless (checked > 100000);
}

GST_END_TEST;

/* The webcam formats to every output; the others to gray */
static gboolean
webcam_case (GstVideoFormat in, const Output * o)
{
  return definition_has_stand_in (in) || output_is_gray (o);
}

/* What webcams give (YUY2, UYVY, GRAY8) and gray output (GRAY8, a
 * 1-channel tensor): the CPU path against the definition
 * (definition_stand_in (), and gray the luma of the RGB), every pixel, on
 * the gradients and on noise (every pixel a sharp edge, chroma and luma,
 * out of gamut too), at odd sizes, shrunk, grown, letterboxed both ways,
 * within definition_tolerance () (worst seen logged). */
GST_START_TEST (test_webcam_and_gray_formats_cpu_path)
{
  static const Output outs[] = {
    {"RGBA",}, {"BGR",}, {"GRAY8",}, {"I420",},
    {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "float32", "NCHW", "rgb", TRUE, TRUE},
    {NULL, "uint8", "NHWC", "rgb", FALSE, TRUE},
    {NULL, "float16", "NHWC", "bgr", FALSE, TRUE},
  };
  static const Geometry geos[] = {
    {64, 48, 64, 48, FALSE},
    {63, 47, 63, 47, FALSE},
    {64, 48, 31, 23, FALSE},
    {31, 23, 64, 48, FALSE},
    {192, 108, 64, 64, TRUE},
    {45, 101, 66, 33, TRUE},
  };
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_NV12
  };
  DefinitionChecks c = check_cpu_path_is_the_definition (ins,
      G_N_ELEMENTS (ins), outs, G_N_ELEMENTS (outs), geos,
      G_N_ELEMENTS (geos), 30, webcam_case);

  GST_INFO ("webcam and gray formats: %u conversions, the CPU path at most "
      "%.3f levels off the definition (gradients), %.3f (noise)", c.checked,
      c.worst[0], c.worst[1]);
  fail_unless (c.checked >= 150, "only %u conversions checked", c.checked);
}

GST_END_TEST;

/* 4:2:0 input's chroma rows against the definition: upsampled linearly
 * (chroma centred between its luma rows), then the LINEAR taps. A picture
 * of flat luma and V and of U that changes every chroma row, to RGB: blue
 * carries U, (U - 128) * 2.017 above its BT.601 level of flat luma. On
 * small pictures shrunk about 3x, GStreamer 1.22's GstVideoConverter alone
 * takes the wrong rows for the first output rows (20 to 80 levels of blue
 * off); the CPU path upsamples first and is within 4 levels (measured
 * 3.2: U rounded to 8 bits after upsampling and after scaling, times 2,
 * and the 8-bit matrix's own rounding). */
static void
check_cpu_chroma_rows (gint in_w, gint in_h, gint out_w, gint out_h)
{
  gchar *in = g_strdup_printf ("video/x-raw,format=NV12,width=%d,height=%d",
      in_w, in_h);
  gchar *out = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d",
      out_w, out_h);
  GstCudaCacheConverter *conv = converter_new (in, out, NULL);
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (in);
  gint ch = (in_h + 1) / 2, x, y, i, l;
  GstVideoInfo in_info, out_info;
  GstVideoFrame frame;
  GstBuffer *inbuf, *outbuf;
  gdouble w[128];
  GError *error = NULL;

  fail_unless (gst_video_info_from_caps (&in_info, in_caps));
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGB, out_w, out_h);
  inbuf = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  outbuf = gst_buffer_new_allocate (NULL, out_info.size, NULL);
  fail_unless (gst_video_frame_map (&frame, &in_info, inbuf, GST_MAP_WRITE));
  for (y = 0; y < in_h; y++)
    memset ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), 128, in_w);
  for (y = 0; y < ch; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 1) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1);

    for (x = 0; x < (in_w + 1) / 2; x++) {
      row[2 * x] = 108 + 10 * (y % 6);
      row[2 * x + 1] = 128;
    }
  }
  gst_video_frame_unmap (&frame);

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          NULL, &error), "%s", error ? error->message : "");

  fail_unless (gst_video_frame_map (&frame, &out_info, outbuf, GST_MAP_READ));
  for (y = 0; y < out_h; y++) {
    const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    gint first, n;
    gdouble u = 0, blue;

    reference_taps (in_h, out_h, y, &first, &n, w);
    for (l = 0; l < n; l++) {
      /* luma row i between chroma rows (i - 1) / 2 and the next */
      gint r = CLAMP (first + l, 0, in_h - 1), c = (r - 1) >> 1;
      gdouble f = (r & 1) ? 0.25 : 0.75;
      gdouble a = 108 + 10 * (CLAMP (c, 0, ch - 1) % 6);
      gdouble b = 108 + 10 * (CLAMP (c + 1, 0, ch - 1) % 6);

      u += w[l] * (a + f * (b - a));
    }
    blue = (128 - 16) * 255.0 / 219.0 + (u - 128) * 2 * (1 - 0.114) *
        255.0 / 224.0;
    for (i = 0; i < out_w; i++) {
      fail_unless (fabs (row[3 * i + 2] - blue) <= 4.0,
          "%dx%d -> %dx%d: pixel (%d, %d) has blue %d, the definition %.2f "
          "(U %.2f)", in_w, in_h, out_w, out_h, i, y, row[3 * i + 2], blue, u);
    }
  }
  gst_video_frame_unmap (&frame);

  gst_buffer_unref (inbuf);
  gst_buffer_unref (outbuf);
  gst_object_unref (conv);
  g_free (in);
  g_free (out);
}

/* 16-bit 4:2:0 input (P010_10LE, P016_LE) on the CPU path:
 * taken at every geometry and output, and within the 8 levels that
 * GstVideoConverter's 8-bit YUV to RGB is off the exact values of the same
 * picture in NV12 (it works 16-bit input in 16 bits: 6 levels apart seen,
 * 33x17 to RGBA). The CUDA path narrows it to that NV12 frame exactly, as
 * the GPU suite checks. */
GST_START_TEST (test_16bit_input_cpu_path)
{
  static const Output outs[] = {
    {"RGBA",}, {"I420",}, {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "uint8", "NHWC", "bgr", FALSE},
  };
  static const Geometry geos[] = {
    {33, 17, 33, 17, FALSE},
    {64, 48, 31, 23, FALSE},
    {31, 23, 64, 48, FALSE},
    {45, 101, 66, 33, TRUE},
    {640, 480, 300, 200, FALSE, FALSE, FALSE, "bt2020"},
  };
  static const GstVideoFormat wide[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P016_LE
  };
  gdouble worst = 0;
  guint g, j, k;

  for (g = 0; g < G_N_ELEMENTS (geos); g++) {
    GstVideoInfo info;
    GstBuffer *nv12 = cudacache_make_picture (GST_VIDEO_FORMAT_NV12,
        geos[g].in_w, geos[g].in_h, &info);

    for (k = 0; k < G_N_ELEMENTS (wide); k++) {
      GstVideoInfo wide_info;
      GstBuffer *in = cudacache_widen_picture (nv12, &info, wide[k],
          &wide_info);

      for (j = 0; j < G_N_ELEMENTS (outs); j++) {
        GstBuffer *a = cpu_path_convert (nv12, &info, &outs[j], &geos[g]);
        GstBuffer *b = cpu_path_convert (in, &wide_info, &outs[j], &geos[g]);
        Difference d = compare_outputs (a, b, &outs[j], geos[g].out_w,
            geos[g].out_h, TRUE);

        fail_unless (d.levels <= 8.0, "%dx%d %s -> %dx%d %s: %.3f levels "
            "from NV12 at %s", geos[g].in_w, geos[g].in_h,
            GST_VIDEO_INFO_NAME (&wide_info), geos[g].out_w, geos[g].out_h,
            outs[j].format ? outs[j].format : outs[j].dtype, d.levels, d.where);
        worst = MAX (worst, d.levels);
        gst_buffer_unref (b);
        gst_buffer_unref (a);
      }
      gst_buffer_unref (in);
    }
    gst_buffer_unref (nv12);
  }
  GST_INFO ("16-bit input: worst %.3f levels from NV12", worst);
}

GST_END_TEST;

GST_START_TEST (test_cpu_path_420_chroma_rows)
{
  check_cpu_chroma_rows (15, 11, 6, 4);
  check_cpu_chroma_rows (30, 22, 12, 8);
  check_cpu_chroma_rows (16, 9, 7, 5);
  check_cpu_chroma_rows (321, 241, 199, 147);
  check_cpu_chroma_rows (64, 48, 64, 16);
}

GST_END_TEST;

/* @in_w x @in_h NV12 and I420 of one picture to RGBA: the same output
 * from both. */
static void
check_cpu_420_same_output (gint in_w, gint in_h, gint out_w, gint out_h)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420
  };
  GstVideoInfo out_info;
  GstBuffer *first = NULL;
  GstMapInfo map;
  guint i;

  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGBA, out_w, out_h);
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo in_info;
    GstBuffer *in = cudacache_make_picture (formats[i], in_w, in_h, &in_info);
    GstBuffer *out = gst_buffer_new_allocate (NULL, out_info.size, NULL);
    g_autoptr (GstCaps) in_caps = gst_video_info_to_caps (&in_info);
    g_autoptr (GstCaps) out_caps = gst_video_info_to_caps (&out_info);
    GstCudaCacheConverter *conv = gst_cuda_cache_converter_new (in_caps,
        out_caps, NULL, NULL, NULL);
    GError *error = NULL;

    fail_unless (conv != NULL);
    fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
            &error), "%s", error ? error->message : "");

    if (first) {
      fail_unless (gst_buffer_map (first, &map, GST_MAP_READ));
      fail_unless (gst_buffer_memcmp (out, 0, map.data, map.size) == 0,
          "%dx%d to %dx%d: I420 converts otherwise than NV12", in_w, in_h,
          out_w, out_h);
      gst_buffer_unmap (first, &map);
      gst_buffer_unref (out);
    } else {
      first = out;
    }
    gst_object_unref (conv);
    gst_buffer_unref (in);
  }
  gst_buffer_unref (first);
}

/* 4:2:0 input converts alike whatever the layout of its planes, growing,
 * shrinking and both (GstVideoConverter, which the CPU path once used,
 * upsampled 3x3 I420 by a fast path 10 levels from NV12's, and differed
 * from itself with threads, 7x5 to 1283x721: 15 levels). */
GST_START_TEST (test_cpu_path_420_threads_and_layouts)
{
  check_cpu_420_same_output (7, 5, 1283, 721);
  check_cpu_420_same_output (3, 3, 1001, 999);
  check_cpu_420_same_output (97, 55, 160, 162);
  check_cpu_420_same_output (16, 9, 7, 5);
  check_cpu_420_same_output (15, 11, 6, 11);
  check_cpu_420_same_output (321, 241, 199, 147);
}

GST_END_TEST;

#endif /* __CUDACACHE_CONVERTER_CPU_PATH_H__ */
