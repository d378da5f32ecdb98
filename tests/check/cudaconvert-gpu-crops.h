/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Crops by GstVideoCropMeta on CUDA memory, read in place: the kernels'
 * conversion of a cropped frame against their conversion of the region
 * uploaded as a frame of its own (odd and even regions of each input
 * family), and the CPU suites' crop matrix (cudacache-crops.h) through
 * cudacacheconvert and cudacachebatch. Included by
 * elements/cudaconvert-gpu.c, whose helpers (upload (), convert (),
 * SLACK) it uses. */

#ifndef __CUDACONVERT_GPU_CROPS_H__
#define __CUDACONVERT_GPU_CROPS_H__

#include <gst/video/video.h>
#include "cudacache-check-gpu.h"
#include "cudacache-picture.h"
#include "cudacache-definition.h"
#include "cudacache-crops.h"

/* A copy of @buf (its memory shared) with a GstVideoCropMeta of @r */
static GstBuffer *
copy_cropped (GstBuffer * buf, const GstVideoRectangle * r)
{
  GstBuffer *copy = gst_buffer_copy (buf);
  GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (copy);

  meta->x = r->x;
  meta->y = r->y;
  meta->width = r->w;
  meta->height = r->h;
  return copy;
}

/* A crop by GstVideoCropMeta on CUDA memory reads the region in place:
 * the kernels' output equals (within a level: the region's rows may be
 * aligned otherwise, and take the other kernel) their conversion of the
 * region uploaded as a frame of its own, for odd and even regions of every
 * input family, 4:2:2 and 16-bit ones through their stand-ins. */
GST_START_TEST (test_crop_meta_reads_the_region)
{
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_P010_10LE
  };
  static const GstVideoRectangle crops[] = {
    {1, 3, 333, 177}, {64, 32, 512, 256}, {639, 0, 1, 480},
  };
  static const Geometry geo = { 0, 0, 199, 147, TRUE, FALSE };
  guint i, c, j, failures = 0, n = 0;
  gdouble worst = 0;

  for (i = 0; i < G_N_ELEMENTS (ins); i++) {
    GstVideoInfo info;
    GstBuffer *sys = cudacache_make_picture (ins[i], 640, 480, &info);
    GstBuffer *dev = upload (sys, &info);
    gchar *caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
        "format=%s,width=640,height=480", GST_VIDEO_INFO_NAME (&info));

    for (c = 0; c < G_N_ELEMENTS (crops); c++) {
      const GstVideoRectangle *r = &crops[c];
      gboolean sub_x = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, 1) > 0;
      gboolean sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) > 0;
      GstVideoRectangle want = { sub_x ? r->x & ~1 : r->x,
        sub_y ? r->y & ~1 : r->y, 0, 0
      };
      GstVideoInfo region_info;
      GstBuffer *region, *dev_region, *cropped;
      gchar *region_caps;

      want.w = (sub_x ? MIN ((r->x + r->w + 1) & ~1, 640) : r->x + r->w) -
          want.x;
      want.h = (sub_y ? MIN ((r->y + r->h + 1) & ~1, 480) : r->y + r->h) -
          want.y;
      region = cudacache_copy_region (sys, &info, &want, &region_info);
      dev_region = upload (region, &region_info);
      region_caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
          "format=%s,width=%d,height=%d", GST_VIDEO_INFO_NAME (&info),
          want.w, want.h);
      cropped = copy_cropped (dev, r);

      for (j = 0; j < G_N_ELEMENTS (outputs); j++) {
        GstBuffer *a = convert (cropped, caps, &outputs[j], &geo, TRUE);
        GstBuffer *b = convert (dev_region, region_caps, &outputs[j], &geo,
            TRUE);
        Difference d = compare_outputs (b, a, &outputs[j], geo.out_w,
            geo.out_h, TRUE);
        gdouble tolerance = 1.0 + (outputs[j].dtype &&
            outputs[j].dtype[5] == '1' ? SLACK_F16 : SLACK);

        if (d.levels > tolerance) {
          g_print ("FAIL crop %d,%d %dx%d of 640x480 %s -> %s%s%s: %.3f "
              "levels from the region's own conversion at %s\n", r->x, r->y,
              r->w, r->h, GST_VIDEO_INFO_NAME (&info),
              outputs[j].format ? outputs[j].format : outputs[j].dtype,
              outputs[j].layout ? " " : "",
              outputs[j].layout ? outputs[j].layout : "", d.levels, d.where);
          failures++;
        }
        worst = MAX (worst, d.levels);
        n++;
        gst_buffer_unref (a);
        gst_buffer_unref (b);
      }
      gst_buffer_unref (cropped);
      gst_buffer_unref (dev_region);
      gst_buffer_unref (region);
      g_free (region_caps);
    }
    gst_buffer_unref (dev);
    gst_buffer_unref (sys);
    g_free (caps);
  }
  g_print ("crop meta: %u conversions, worst %.3f levels from the region's "
      "own, %u over a level\n", n, worst, failures);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

/* The crop matrix of the CPU suites (cudacache-crops.h) on CUDA memory:
 * GRAY8 input and output left out (GStreamer 1.22's CUDA allocator lays
 * out neither); within a level of the region's own conversion, as
 * test_crop_meta_reads_the_region allows */
static void
crop_matrix_on_cuda_memory (const gchar * factory)
{
  crop_context = context;
  crop_matrix_run (factory, "(memory:CUDAMemory)", upload, 1.0 + SLACK);
  crop_context = NULL;
}

GST_START_TEST (test_crop_matrix_on_cuda_memory)
{
  crop_matrix_on_cuda_memory ("cudacacheconvert");
}

GST_END_TEST;

/* The same through cudacachebatch's slots */
GST_START_TEST (test_batch_crop_matrix_on_cuda_memory)
{
  crop_matrix_on_cuda_memory ("cudacachebatch");
}

GST_END_TEST;

#endif /* __CUDACONVERT_GPU_CROPS_H__ */
