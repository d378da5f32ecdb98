/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The resampling presets (method=nearest, bilinear, area, antialias) on
 * CUDA memory against the CPU path: every input family, output and kind
 * of geometry, on gradients and on noise, and crops read in place.
 * Included by elements/cudaconvert-gpu.c after cudaconvert-gpu-crops.h
 * (copy_cropped ()), with the suite's helpers (upload (), convert (),
 * method_arg, SLACK_F16). */

#ifndef __CUDACONVERT_GPU_PRESETS_H__
#define __CUDACONVERT_GPU_PRESETS_H__

#include <gst/video/video.h>
#include "cudacache-check-gpu.h"
#include "cudacache-picture.h"
#include "cudacache-definition.h"
#include "cudaconvert-gpu-crops.h"

/* the resampling presets, as the method property names them */
static const gchar *const preset_methods[] = { "nearest", "bilinear", "area",
  "antialias"
};

/* The resampling presets on CUDA memory: the kernels repeat the CPU
 * path's arithmetic (OpenCV's and Pillow's, which
 * tests/python/test_resample.py holds the CPU path to), so every value of
 * every output equals the CPU path's: packed RGB and tensors exactly (the
 * float tensors to their last bit but the float16 rounding), 4:2:0 output
 * and gray within a level (both pack the definition's 4:2:0 and luma from
 * the same RGB picture, the kernels' float sums fused where the CPU
 * path's are not, a rounding apart at most). Every output kind of the
 * presets' kernels, letterboxed and not. Every
 * input family (4:2:0 through its stand-in read per pixel, 4:2:2 and
 * 16-bit through their stand-in frames), each kind of each method
 * (copies, integer factors, growing, shrinking, extreme factors, the
 * letterbox), on gradients and on noise (every pixel a sharp edge), and
 * 4:2:0 chroma of each siting.
 * CUDACACHE_TEST_GEOMETRIES=N takes the first N geometries only. */
GST_START_TEST (test_presets_match_cpu_path)
{
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_P010_10LE
  };
  /* every output kind of the presets' kernels: packed 4 and 3 bytes,
   * both 4:2:0 layouts, 3-channel tensors of each type and layout, gray */
  static const Output outs[] = {
    {"RGBA",}, {"BGR",}, {"I420",}, {"NV12",},
    {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "uint8", "NHWC", "bgr", FALSE},
    {NULL, "float16", "NHWC", "rgb", FALSE},
    {NULL, "float32", "NCHW", "rgb", TRUE, TRUE},
  };
  static const Geometry geos[] = {
    {321, 241, 199, 147, FALSE},        /* odd sizes, shrinking */
    {1920, 1080, 640, 640, TRUE},       /* the inference case: 3x, whole */
    {640, 480, 320, 240, FALSE},        /* halving: OpenCV's 2x2 average */
    {97, 55, 160, 162, TRUE},   /* growing, bars above and below */
    {55, 97, 163, 121, TRUE},   /* bars left and right */
    {320, 240, 320, 240, FALSE},        /* the same size: a copy */
    {1280, 720, 224, 224, FALSE},       /* unequal factors, many taps */
    {330, 250, 110, 50, FALSE}, /* integer factors 3 and 5 */
    {7, 5, 1283, 721, FALSE},   /* extreme upscale */
    {1283, 721, 7, 5, FALSE},   /* extreme downscale */
    {2001, 1999, 33, 1, FALSE}, /* one row */
    {1, 1, 5, 3, FALSE},
    /* 4:2:0 chroma sited otherwise: cosited across (MPEG-2), and across
     * and down, whose rows are repeated, not interpolated */
    {321, 241, 199, 147, FALSE, FALSE, TRUE, NULL, "mpeg2"},
    {97, 55, 160, 162, TRUE, FALSE, TRUE, NULL, "cosited"},
    {320, 240, 320, 240, FALSE, FALSE, TRUE, NULL, "cosited"},  /* a copy */
  };
  const gchar *env = g_getenv ("CUDACACHE_TEST_GEOMETRIES");
  guint n_geos = env ? MIN ((guint) g_ascii_strtoull (env, NULL, 10),
      G_N_ELEMENTS (geos)) : G_N_ELEMENTS (geos);
  guint m, g, i, j, noise, failures = 0, n = 0;
  gdouble worst_exact = 0, worst_yuv = 0;
  GRand *rand = g_rand_new_with_seed (27);

  for (m = 0; m < G_N_ELEMENTS (preset_methods); m++) {
    method_arg = preset_methods[m];
    for (g = 0; g < n_geos; g++) {
      const Geometry *geo = &geos[g];

      for (i = 0; i < G_N_ELEMENTS (ins); i++) {
        if (geo->yuv_only && ins[i] != GST_VIDEO_FORMAT_NV12 &&
            ins[i] != GST_VIDEO_FORMAT_I420)
          continue;
        for (noise = 0; noise < 2; noise++) {
          GstVideoInfo info;
          GstBuffer *sys = cudacache_make_picture (ins[i], geo->in_w,
              geo->in_h, &info);
          GstBuffer *dev;
          gchar *sys_caps = input_caps (&info, geo, FALSE);
          gchar *dev_caps = input_caps (&info, geo, TRUE);

          if (noise)
            cudacache_fill_noise (sys, rand);
          dev = upload (sys, &info);
          for (j = 0; j < G_N_ELEMENTS (outs); j++) {
            const Output *o = &outs[j];
            gboolean yuv = o->format && (g_str_equal (o->format, "I420") ||
                g_str_equal (o->format, "NV12"));
            /* gray: the luma of the same 8-bit RGB, its float sum fused
             * on the GPU, a rounding apart at most, as 4:2:0's; that level
             * measured back through a float32 tensor's normalisation
             * reads a hair over 1 (1.000 in 231 antialias
             * conversions to gray float32 on an H100) */
            gdouble tolerance = (yuv || o->gray ? 1.001 : 0.0) +
                (o->dtype && o->dtype[5] == '1' ? SLACK_F16 : 1e-6);
            GstBuffer *a = convert (sys, sys_caps, o, geo, FALSE);
            GstBuffer *b = convert (dev, dev_caps, o, geo, TRUE);
            Difference d = compare_outputs (a, b, o, geo->out_w, geo->out_h,
                TRUE);

            if (d.levels > tolerance) {
              g_print ("FAIL method=%s %dx%d %s%s -> %dx%d %s%s%s%s%s: "
                  "%.3f levels from the CPU path at %s (tolerance %.3f)\n",
                  preset_methods[m], geo->in_w, geo->in_h, GST_VIDEO_INFO_NAME
                  (&info), noise ? " noise" : "", geo->out_w, geo->out_h,
                  o->format ? o->format : o->dtype, o->gray ? " gray" : "",
                  o->layout ? " " : "",
                  o->layout ? o->layout : "",
                  geo->letterbox ? " letterbox" : "", d.levels, d.where,
                  tolerance);
              failures++;
            }
            if (yuv || o->gray)
              worst_yuv = MAX (worst_yuv, d.levels);
            else
              worst_exact = MAX (worst_exact, d.levels);
            n++;
            gst_buffer_unref (a);
            gst_buffer_unref (b);
          }
          gst_buffer_unref (dev);
          gst_buffer_unref (sys);
          g_free (sys_caps);
          g_free (dev_caps);
        }
      }
    }
  }
  method_arg = NULL;
  g_rand_free (rand);
  g_print ("resampling presets on CUDA memory: %u conversions against the "
      "CPU path, packed RGB and tensors worst %.4f levels, 4:2:0 and gray "
      "worst %.3f, %u over tolerance\n", n, worst_exact, worst_yuv, failures);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

/* The presets read a crop (GstVideoCropMeta) in place on CUDA memory as
 * the CPU path reads it: every value of packed RGB and tensor output
 * equal, odd and subsampled regions of each input family. */
GST_START_TEST (test_presets_read_crops)
{
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_P010_10LE
  };
  static const GstVideoRectangle crops[] = {
    {1, 3, 333, 177}, {64, 32, 512, 256},
  };
  static const Output outs[] = {
    {"RGBA",}, {NULL, "float32", "NCHW", "rgb", TRUE},
  };
  static const Geometry geo = { 0, 0, 199, 147, TRUE };
  GRand *rand = g_rand_new_with_seed (28);
  guint m, i, c, j, failures = 0, n = 0;

  for (i = 0; i < G_N_ELEMENTS (ins); i++) {
    GstVideoInfo info;
    GstBuffer *sys = cudacache_make_picture (ins[i], 640, 480, &info);
    GstBuffer *dev;
    gchar *sys_caps = g_strdup_printf ("video/x-raw,format=%s,width=640,"
        "height=480", GST_VIDEO_INFO_NAME (&info));
    gchar *dev_caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
        "format=%s,width=640,height=480", GST_VIDEO_INFO_NAME (&info));

    cudacache_fill_noise (sys, rand);
    dev = upload (sys, &info);
    for (c = 0; c < G_N_ELEMENTS (crops); c++) {
      GstBuffer *sys_crop = copy_cropped (sys, &crops[c]);
      GstBuffer *dev_crop = copy_cropped (dev, &crops[c]);

      for (m = 0; m < G_N_ELEMENTS (preset_methods); m++) {
        method_arg = preset_methods[m];
        for (j = 0; j < G_N_ELEMENTS (outs); j++) {
          GstBuffer *a = convert (sys_crop, sys_caps, &outs[j], &geo, FALSE);
          GstBuffer *b = convert (dev_crop, dev_caps, &outs[j], &geo, TRUE);
          Difference d = compare_outputs (a, b, &outs[j], geo.out_w,
              geo.out_h, TRUE);

          if (d.levels > 1e-6) {
            g_print ("FAIL method=%s crop %d,%d %dx%d of 640x480 %s -> %s: "
                "%.3f levels from the CPU path at %s\n", preset_methods[m],
                crops[c].x, crops[c].y, crops[c].w, crops[c].h,
                GST_VIDEO_INFO_NAME (&info), outs[j].format ? outs[j].format :
                outs[j].dtype, d.levels, d.where);
            failures++;
          }
          n++;
          gst_buffer_unref (a);
          gst_buffer_unref (b);
        }
      }
      method_arg = NULL;
      gst_buffer_unref (sys_crop);
      gst_buffer_unref (dev_crop);
    }
    gst_buffer_unref (dev);
    gst_buffer_unref (sys);
    g_free (sys_caps);
    g_free (dev_caps);
  }
  g_rand_free (rand);
  g_print ("presets on crops: %u conversions equal to the CPU path's, %u "
      "not\n", n, failures);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

#endif /* __CUDACONVERT_GPU_PRESETS_H__ */
