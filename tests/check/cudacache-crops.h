/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Crops by GstVideoCropMeta, as videocrop and the decoders give them (the
 * caps the crop's size, a GstVideoMeta the whole frame's), through
 * cudacacheconvert and cudacachebatch: every input format, each edge cut
 * alone, 1x1 at each corner, odd offsets and sizes, the whole frame but a
 * pixel, into images, GRAY8 and tensors, letterboxed and not, each output
 * against the conversion of the region copied into a frame of its own.
 * Shared by the CPU suites (system memory) and the GPU one (CUDA memory,
 * through its upload ()). */

#ifndef __CUDACACHE_CROPS_H__
#define __CUDACACHE_CROPS_H__

#include <math.h>
#include <string.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-check.h"
#include "cudacache-picture.h"

#define CROP_FRAME_W 29
#define CROP_FRAME_H 23
#define CROP_OUT_W 17
#define CROP_OUT_H 13

/* @sys, a frame of @info in system memory, in the memory under test; a
 * buffer with a GstVideoMeta of the whole frame */
typedef GstBuffer *(*CropUpload) (GstBuffer * sys, const GstVideoInfo * info);

static const GstVideoFormat crop_formats[] = {
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
  GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_GRAY8,
  GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_P010_10LE,
  GST_VIDEO_FORMAT_P016_LE,
};

/* each edge alone, 1x1 at each corner, odd offsets and sizes, the whole
 * frame but one pixel each way, and a crop of the left part only */
static const GstVideoRectangle crop_rects[] = {
  {1, 0, CROP_FRAME_W - 1, CROP_FRAME_H},
  {0, 0, CROP_FRAME_W - 1, CROP_FRAME_H},
  {0, 1, CROP_FRAME_W, CROP_FRAME_H - 1},
  {0, 0, CROP_FRAME_W, CROP_FRAME_H - 1},
  {0, 0, 1, 1},
  {CROP_FRAME_W - 1, 0, 1, 1},
  {0, CROP_FRAME_H - 1, 1, 1},
  {CROP_FRAME_W - 1, CROP_FRAME_H - 1, 1, 1},
  {3, 5, 11, 7},
  {5, 2, 13, 17},
  {1, 1, CROP_FRAME_W - 2, CROP_FRAME_H - 2},
  {0, 0, 13, CROP_FRAME_H},
};

typedef struct
{
  const gchar *caps;            /* output caps, without the memory feature */
  gboolean image;               /* a video frame, else a tensor */
  gboolean batch;               /* cudacachebatch makes it too */
  gboolean cuda;                /* CUDA memory can hold it (GStreamer 1.22's
                                 * CUDA allocator has no GRAY8) */
} CropOutput;

static const CropOutput crop_outputs[] = {
  {"video/x-raw%s,format=RGBA,width=17,height=13,framerate=30/1", TRUE,
      FALSE, TRUE},
  {"video/x-raw%s,format=GRAY8,width=17,height=13,framerate=30/1", TRUE,
      FALSE, FALSE},
  {"other/tensors%s,format=static,num_tensors=1,types=float32,layout=NCHW,"
        "dimensions=17:13:3:1", FALSE, TRUE, TRUE},
  {"other/tensors%s,format=static,num_tensors=1,types=uint8,layout=NHWC,"
        "dimensions=1:17:13:1", FALSE, TRUE, TRUE},
};

/* the CUDA context the elements are given (the GPU suite's), or NULL */
static GstCudaContext *crop_context;

static const gchar *const crop_methods[] = { "linear", "nearest", "bilinear",
  "area", "antialias"
};

/* The largest difference between two outputs of @o, in levels (tensor
 * values as they are, image bytes); the visible bytes only */
static gdouble
crop_output_difference (GstBuffer * a, GstBuffer * b, const CropOutput * o,
    GstCaps * caps)
{
  gdouble worst = 0;

  if (o->image) {
    GstVideoInfo info;
    GstVideoFrame fa, fb;
    gint row, x, bytes;

    fail_unless (gst_video_info_from_caps (&info, caps));
    fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ));
    bytes = GST_VIDEO_FRAME_COMP_WIDTH (&fa, 0) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, 0);
    for (row = 0; row < GST_VIDEO_FRAME_HEIGHT (&fa); row++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, 0) +
          row * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, 0);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0) +
          row * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, 0);

      for (x = 0; x < bytes; x++)
        worst = MAX (worst, ABS ((gint) ra[x] - (gint) rb[x]));
    }
    gst_video_frame_unmap (&fa);
    gst_video_frame_unmap (&fb);
  } else {
    GstCudaCacheTensorInfo t;
    GstMapInfo ma, mb;
    gsize i;

    fail_unless (gst_cuda_cache_tensor_info_from_caps (&t, caps));
    fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
    fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
    fail_unless (ma.size >= t.size && mb.size >= t.size);
    if (t.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F32) {
      for (i = 0; i < t.size / 4; i++)
        worst = MAX (worst, fabs (((const gfloat *) ma.data)[i] -
                ((const gfloat *) mb.data)[i]));
    } else {
      for (i = 0; i < t.size; i++)
        worst = MAX (worst, ABS ((gint) ma.data[i] - (gint) mb.data[i]));
    }
    gst_buffer_unmap (a, &ma);
    gst_buffer_unmap (b, &mb);
  }

  return worst;
}

/* A harness of @factory (cudacacheconvert, or cudacachebatch through its
 * first sink pad) with @props */
static GstHarness *
crop_harness (const gchar * factory, const gchar * out_caps,
    gboolean letterbox, const gchar * method)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstHarness *h;

  fail_unless (e != NULL);
  if (crop_context) {
    GstContext *ctx = gst_context_new_cuda_context (crop_context);

    gst_element_set_context (e, ctx);
    gst_context_unref (ctx);
  }
  g_object_set (e, "letterbox", letterbox, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "method", method);
  h = gst_harness_new_with_element (e, g_str_equal (factory,
          "cudacachebatch") ? "sink_0" : "sink", "src");
  gst_object_unref (e);
  gst_harness_set_sink_caps_str (h, out_caps);
  return h;
}

/* @in, of caps @in_caps, through a new harness of @factory */
static GstBuffer *
crop_convert (const gchar * factory, GstBuffer * in, const gchar * in_caps,
    const gchar * out_caps, gboolean letterbox, const gchar * method)
{
  GstHarness *h = crop_harness (factory, out_caps, letterbox, method);
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, in_caps);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "%s gave nothing for %s", factory, in_caps);
  gst_harness_teardown (h);
  return out;
}

/* The matrix through @factory, in system memory (@upload NULL) or the
 * memory @upload makes (@features its caps feature); fails the case where
 * an output is more than @tolerance levels from the region's own
 * conversion. Returns the number of conversions compared. */
static guint
crop_matrix_run (const gchar * factory, const gchar * features,
    CropUpload upload, gdouble tolerance)
{
  gboolean batch = g_str_equal (factory, "cudacachebatch");
  GRand *rand = g_rand_new_with_seed (38);
  guint f, c, o, lb, n = 0, failures = 0, turn = 0;
  gdouble worst = 0;

  for (f = 0; f < G_N_ELEMENTS (crop_formats); f++) {
    GstVideoInfo info;
    GstBuffer *sys;

    /* GStreamer 1.22's CUDA allocator lays out no GRAY8 */
    if (upload && crop_formats[f] == GST_VIDEO_FORMAT_GRAY8)
      continue;
    sys = cudacache_make_picture (crop_formats[f], CROP_FRAME_W,
        CROP_FRAME_H, &info);
    /* every pixel a sharp edge: a region read one pixel off shows */
    cudacache_fill_noise (sys, rand);

    for (c = 0; c < G_N_ELEMENTS (crop_rects); c++) {
      const GstVideoRectangle *r = &crop_rects[c];
      gboolean sub_x = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, 1) > 0;
      gboolean sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) > 0;
      /* the region on the chroma grid, as the converter reads it */
      GstVideoRectangle want = { sub_x ? r->x & ~1 : r->x,
        sub_y ? r->y & ~1 : r->y, 0, 0
      };
      GstVideoInfo region_info;
      GstBuffer *region, *whole, *cropped;
      GstVideoCropMeta *meta;
      gchar *crop_caps, *region_caps;

      want.w = (sub_x ? MIN ((r->x + r->w + 1) & ~1, CROP_FRAME_W) :
          r->x + r->w) - want.x;
      want.h = (sub_y ? MIN ((r->y + r->h + 1) & ~1, CROP_FRAME_H) :
          r->y + r->h) - want.y;
      region = cudacache_copy_region (sys, &info, &want, &region_info);
      if (upload) {
        GstBuffer *dev = upload (region, &region_info);

        gst_buffer_unref (region);
        region = dev;
        whole = upload (sys, &info);
      } else {
        whole = gst_buffer_copy (sys);
        gst_buffer_add_video_meta_full (whole, GST_VIDEO_FRAME_FLAG_NONE,
            GST_VIDEO_INFO_FORMAT (&info), CROP_FRAME_W, CROP_FRAME_H,
            GST_VIDEO_INFO_N_PLANES (&info), info.offset, info.stride);
      }
      /* as videocrop gives it: the crop's size in the caps */
      cropped = gst_buffer_copy (whole);
      gst_buffer_unref (whole);
      meta = gst_buffer_add_video_crop_meta (cropped);
      meta->x = r->x;
      meta->y = r->y;
      meta->width = r->w;
      meta->height = r->h;
      crop_caps = g_strdup_printf ("video/x-raw%s,format=%s,width=%d,"
          "height=%d,framerate=30/1", features, GST_VIDEO_INFO_NAME (&info),
          r->w, r->h);
      region_caps = g_strdup_printf ("video/x-raw%s,format=%s,width=%d,"
          "height=%d,framerate=30/1", features, GST_VIDEO_INFO_NAME (&info),
          want.w, want.h);

      for (o = 0; o < G_N_ELEMENTS (crop_outputs); o++) {
        const CropOutput *out = &crop_outputs[o];
        gchar *out_caps;
        GstCaps *caps;

        if ((batch && !out->batch) || (upload && !out->cuda))
          continue;
        out_caps = g_strdup_printf (out->caps, features);
        caps = gst_caps_from_string (out_caps);
        for (lb = 0; lb < 2; lb++) {
          const gchar *method = crop_methods[turn++ %
              G_N_ELEMENTS (crop_methods)];
          GstBuffer *a = crop_convert (factory, gst_buffer_ref (cropped),
              crop_caps, out_caps, lb, method);
          GstBuffer *b = crop_convert (factory, gst_buffer_ref (region),
              region_caps, out_caps, lb, method);
          gdouble d = crop_output_difference (a, b, out, caps);

          if (d > tolerance) {
            g_print ("FAIL %s: crop %d,%d %dx%d of %dx%d %s -> %s, "
                "letterbox %d, method %s: %.3f levels from the region's own "
                "conversion\n", factory, r->x, r->y, r->w, r->h, CROP_FRAME_W,
                CROP_FRAME_H, GST_VIDEO_INFO_NAME (&info), out_caps, lb,
                method, d);
            failures++;
          }
          worst = MAX (worst, d);
          n++;
          gst_buffer_unref (a);
          gst_buffer_unref (b);
        }
        gst_caps_unref (caps);
        g_free (out_caps);
      }
      g_free (crop_caps);
      g_free (region_caps);
      gst_buffer_unref (cropped);
      gst_buffer_unref (region);
    }
    gst_buffer_unref (sys);
  }
  g_rand_free (rand);
  g_print ("%s, crops in %s memory: %u conversions, worst %.3f levels from "
      "the region's own, %u over %.3f\n", factory, upload ? "CUDA" : "system",
      n, worst, failures, tolerance);
  fail_unless_equals_int (failures, 0);

  return n;
}

#endif /* __CUDACACHE_CROPS_H__ */
