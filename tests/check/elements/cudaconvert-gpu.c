/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The elements on CUDA memory: every conversion path of cudacacheconvert's
 * kernels against its CPU path (the same definition, in C) and the
 * definition itself (in double),
 * renegotiation in a CUDA pipeline, and NVDEC output through
 * cudacacheidentity. Crops, the resampling presets, threads, batches and
 * tensors mapped on the CPU are cases of their own, in the headers
 * included where they run (tests/check/cudaconvert-gpu-*.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudacache/gstcudacache-compat-private.h>
#include "../cudacache-check-gpu.h"
#include "../cudacache-config.h"
#include "../cudacache-pipeline.h"
#include "../cudacache-picture.h"
#include "../cudacache-definition.h"
#include "../cudacache-batch.h"
#include "../cudacache-crops.h"
#include <string.h>
#include <gst/cudacache/cudacache.h>

#define IN_W 320
#define IN_H 240

/* Copies @rows rows of @width_bytes between host and device, in the test's
 * context. From pageable memory a copy to the device returns once its
 * source is staged, its DMA still queued on the legacy default stream,
 * which the converter's non-blocking stream does not wait for: it returns
 * here once the bytes have landed. Safe off the test's thread. */
static gboolean
copy_rows (guint8 * host, gsize host_stride, CUdeviceptr device,
    gsize device_stride, gsize width_bytes, gsize rows, gboolean to_device)
{
  CUDA_MEMCPY2D param = { 0, };
  gboolean ok;

  param.WidthInBytes = width_bytes;
  param.Height = rows;
  if (to_device) {
    param.srcMemoryType = CU_MEMORYTYPE_HOST;
    param.srcHost = host;
    param.srcPitch = host_stride;
    param.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    param.dstDevice = device;
    param.dstPitch = device_stride;
  } else {
    param.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    param.srcDevice = device;
    param.srcPitch = device_stride;
    param.dstMemoryType = CU_MEMORYTYPE_HOST;
    param.dstHost = host;
    param.dstPitch = host_stride;
  }
  if (!gst_cuda_context_push (context))
    return FALSE;
  ok = CuMemcpy2D (&param) == CUDA_SUCCESS &&
      (!to_device || CuStreamSynchronize (NULL) == CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);

  return ok;
}

/* Copies every plane of a frame between host and device, each plane's
 * visible bytes only. The tests move frames themselves: 1.22's staging
 * copies of GstCudaMemory cover the first stride[0] bytes of each pitch
 * row, which misses part of I420's V plane at odd heights (it starts half
 * a pitch into a row). */
static void
copy_planes (const GstVideoInfo * info, guint8 * host,
    const gsize host_offset[], const gint host_stride[], CUdeviceptr device,
    const gsize device_offset[], const gint device_stride[], gboolean to_device)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize bytes = GST_VIDEO_INFO_COMP_WIDTH (info, p) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, p);

    /* 4:2:2 packed: whole pairs of pixels, an odd width's last one too */
    if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_YUY2 ||
        GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_UYVY)
      bytes = 4 * ((GST_VIDEO_INFO_WIDTH (info) + 1) / 2);
    fail_unless (copy_rows (host + host_offset[p], host_stride[p],
            device + device_offset[p], device_stride[p], bytes,
            GST_VIDEO_INFO_COMP_HEIGHT (info, p), to_device));
  }
}

/* The same frame in CUDA memory of the test's context, each plane @shift
 * bytes past where the allocator lays it (room made with two more rows),
 * so that a shift of 1 leaves no row 4-byte aligned. */
static GstBuffer *
upload_shifted (GstBuffer * sys, const GstVideoInfo * info, gsize shift)
{
  GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  GstVideoInfo room = *info;
  GstMemory *mem;
  GstCudaMemory *cmem;
  GstBuffer *buf = gst_buffer_new ();
  GstMapInfo src, dst;
  gsize offset[GST_VIDEO_MAX_PLANES];
  guint p;

  if (shift)
    gst_video_info_set_format (&room, GST_VIDEO_INFO_FORMAT (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info) + 2);
  fail_unless (allocator != NULL);
  mem = gst_cuda_cache_compat_alloc (GST_CUDA_ALLOCATOR (allocator), context,
      NULL, &room);
  fail_unless (mem != NULL);
  gst_object_unref (allocator);
  cmem = GST_CUDA_MEMORY_CAST (mem);
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++)
    offset[p] = cmem->info.offset[p] + shift;

  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      offset, cmem->info.stride);
  fail_unless (gst_buffer_map (sys, &src, GST_MAP_READ));
  fail_unless (gst_memory_map (mem, &dst, GST_MAP_WRITE | GST_MAP_CUDA));
  copy_planes (info, src.data, info->offset, info->stride,
      (CUdeviceptr) dst.data, offset, cmem->info.stride, TRUE);
  gst_memory_unmap (mem, &dst);
  gst_buffer_unmap (sys, &src);

  return buf;
}

/* The same frame in CUDA memory of the test's context. */
static GstBuffer *
upload (GstBuffer * sys, const GstVideoInfo * info)
{
  return upload_shifted (sys, info, 0);
}

/* A video frame of CUDA memory back in system memory, laid out as @info. */
static GstBuffer *
download (GstBuffer * dev, const GstVideoInfo * info)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (dev);
  GstMemory *mem = gst_buffer_peek_memory (dev, 0);
  GstBuffer *sys = gst_buffer_new_allocate (NULL, info->size, NULL);
  const gsize *offset = meta ? meta->offset : info->offset;
  const gint *stride = meta ? meta->stride : info->stride;
  GstMapInfo src, dst;

  fail_unless_equals_int (gst_buffer_n_memory (dev), 1);
  fail_unless (gst_memory_map (mem, &src, GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_buffer_map (sys, &dst, GST_MAP_WRITE));
  copy_planes (info, dst.data, info->offset, info->stride,
      (CUdeviceptr) src.data, offset, stride, FALSE);
  gst_buffer_unmap (sys, &dst);
  gst_memory_unmap (mem, &src);

  return sys;
}

/* A packed tensor of CUDA memory back in system memory. */
static GstBuffer *
download_tensor (GstBuffer * dev)
{
  GstMemory *mem = gst_buffer_peek_memory (dev, 0);
  gsize size = gst_buffer_get_size (dev);
  GstBuffer *sys = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo src, dst;

  fail_unless_equals_int (gst_buffer_n_memory (dev), 1);
  fail_unless (gst_memory_map (mem, &src, GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_buffer_map (sys, &dst, GST_MAP_WRITE));
  fail_unless (copy_rows (dst.data, size, (CUdeviceptr) src.data, size, size,
          1, FALSE));
  gst_buffer_unmap (sys, &dst);
  gst_memory_unmap (mem, &src);

  return sys;
}

static const Output outputs[] = {
  {"RGBA",}, {"BGRA",}, {"RGBx",}, {"BGRx",}, {"RGB",}, {"BGR",},
  {"NV12",}, {"I420",},
  {NULL, "float32", "NCHW", "rgb", TRUE},
  {NULL, "float32", "NHWC", "bgr", FALSE},
  {NULL, "float16", "NCHW", "bgr", TRUE},
  {NULL, "float16", "NHWC", "rgb", FALSE},
  {NULL, "uint8", "NHWC", "rgb", FALSE},
  {NULL, "uint8", "NCHW", "bgr", FALSE},
};

#define N_VIDEO_OUTPUTS 8

static const Geometry geometries[] = {
  {321, 241, 199, 147, FALSE, TRUE},    /* odd sizes, unequal factors */
  {97, 55, 160, 162, TRUE, TRUE},       /* bars above and below, odd rows */
  {55, 97, 163, 121, TRUE, FALSE},      /* bars left and right, odd columns */
  {320, 240, 320, 240, FALSE, FALSE},   /* same size */
  {320, 240, 480, 360, FALSE, FALSE},   /* up, 1.5 */
  {1920, 1080, 640, 640, TRUE, FALSE},  /* the inference case */
  {1920, 1080, 640, 640, FALSE, FALSE},
  {7, 5, 1283, 721, FALSE, TRUE},       /* extreme upscale */
  /* 4:2:0 of 2x2 chroma samples */
  {3, 3, 1001, 999, FALSE, FALSE, TRUE},
  {3840, 2160, 3, 3, FALSE, FALSE},     /* extreme downscale */
  {1283, 721, 7, 5, FALSE, FALSE},
  {2001, 1999, 33, 1, TRUE, FALSE},     /* tall factors, one row */
  /* 6.4x down: more than 8 taps per row and column, still tiled */
  {1920, 1080, 300, 170, FALSE, FALSE},
  /* 40x across, 1.07x down: a tile's packed RGB rows wider than the block */
  {2560, 64, 64, 60, FALSE, FALSE},
  {1, 1, 5, 3, FALSE, FALSE},
  /* the direct kernel (4:2:0 input, at most 8 taps, 3x down): bars above
   * and below an odd number of picture rows, bars left and right */
  {1281, 723, 421, 317, TRUE, TRUE},
  {723, 1281, 317, 421, TRUE, FALSE},
  /* its narrowest inputs, 8 chroma samples: every window at both edges */
  {16, 9, 7, 5, FALSE, TRUE},
  {15, 11, 6, 11, FALSE, FALSE},
  /* small pictures shrunk about 3x, where GStreamer 1.22's
   * GstVideoConverter takes the wrong chroma rows */
  {15, 11, 6, 4, FALSE, TRUE},
  {30, 22, 12, 8, FALSE, FALSE},
};

/* The letterbox's fill per channel and position, where a test sets them
 * (test_letterbox_fill_and_position); NULL: the element's defaults */
static const gchar *fill_rgb_arg, *position_arg;
/* the resampling method, where a test sets it; NULL: linear */
static const gchar *method_arg;

static GstBuffer *
convert (GstBuffer * in, const gchar * in_caps, const Output * o,
    const Geometry * g, gboolean cuda)
{
  GstElement *e = gst_element_factory_make ("cudacacheconvert", NULL);
  gchar *out_caps = output_caps (o, g->out_w, g->out_h, cuda);
  GstHarness *h;
  GstBuffer *out;

  fail_unless (e != NULL);
  g_object_set (e, "letterbox", g->letterbox, "fill-value", 114, NULL);
  if (fill_rgb_arg)
    gst_util_set_object_arg (G_OBJECT (e), "fill-rgb", fill_rgb_arg);
  if (position_arg)
    gst_util_set_object_arg (G_OBJECT (e), "letterbox-position", position_arg);
  if (method_arg)
    gst_util_set_object_arg (G_OBJECT (e), "method", method_arg);
  if (!o->format) {
    gst_util_set_object_arg (G_OBJECT (e), "channel-order", o->order);
    if (o->normalise) {
      g_object_set (e, "scale", 1.0 / 255.0, NULL);
      gst_util_set_object_arg (G_OBJECT (e), "mean", "<0.485, 0.456, 0.406>");
      gst_util_set_object_arg (G_OBJECT (e), "std", "<0.229, 0.224, 0.225>");
    }
  }
  /* the CPU path's element too: it would make a context of its own */
  {
    GstContext *ctx = gst_context_new_cuda_context (context);

    gst_element_set_context (e, ctx);
    gst_context_unref (ctx);
  }

  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_caps_str (h, in_caps, out_caps);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output for %s", out_caps);
  if (cuda) {
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
    if (o->format) {
      GstVideoInfo info;
      GstBuffer *sys;

      gst_video_info_set_format (&info, gst_video_format_from_string
          (o->format), g->out_w, g->out_h);
      sys = download (out, &info);
      gst_buffer_unref (out);
      out = sys;
    } else {
      GstBuffer *sys = download_tensor (out);

      gst_buffer_unref (out);
      out = sys;
    }
  }

  gst_harness_teardown (h);
  gst_object_unref (e);
  g_free (out_caps);

  return out;
}

/* The kernels against the CPU path, in 8-bit levels: both follow the
 * definition with the same taps and the same operations, each output
 * value rounded once, so a value that lies at a half may round either way
 * (nvcc fuses multiply-adds where the CPU path's C does not): a level.
 * Where an 8-bit pixel is made before the taps (the stand-in of 4:2:2 and
 * GRAY8 input, 4:2:0 input converted first where its picture grows), that
 * pixel may be a level apart too, a level more in the output. Same-size
 * RGB to packed RGB is a copy: exact. */
#define TOLERANCE_CPU 1.0
/* float16 rounds each side by up to half a unit in the last place */
#define SLACK_F16 0.15
#define SLACK 0.001

static const GstVideoFormat inputs[] = {
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
  GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
};

/* The tolerance of @geo's conversion of @info's input to @o, the kernels
 * against the CPU path, in levels. */
static gdouble
tolerance_of (const Geometry * geo, const Output * o, const GstVideoInfo * info)
{
  gboolean rgb_in = GST_VIDEO_INFO_IS_RGB (info);
  gboolean yuv420_out = o->format && (g_str_equal (o->format, "NV12") ||
      g_str_equal (o->format, "I420"));
  gboolean exact = rgb_in && !geo->letterbox && geo->in_w == geo->out_w &&
      geo->in_h == geo->out_h && o->format && !yuv420_out;
  gboolean rounds_first;
  gint dw, dh;

  if (exact)
    return 0.0;
  /* a pixel of margin: picture_size () may be a pixel off the
   * converter's rectangle */
  picture_size (geo, &dw, &dh);
  rounds_first = definition_has_stand_in (GST_VIDEO_INFO_FORMAT (info)) ||
      (!rgb_in && !yuv420_out &&
      (gint64) (dw + 1) * (dh + 1) > (gint64) geo->in_w * geo->in_h);
  return TOLERANCE_CPU + (rounds_first ? 1.0 : 0.0) +
      (o->dtype && o->dtype[5] == '1' ? SLACK_F16 : SLACK);
}

/* One frame of @info (system memory @sys, the same on the device @dev)
 * converted to @o by @geo on both paths and compared, every value: the
 * kernels against the CPU path (*@d, tolerance_of ()) and, with
 * @definition, both paths against the definition (compare_with_definition
 * (), definition_tolerance ()): the kernels' distance from it in
 * *@def_off, the CPU path's in *@cpu_off. Prints a line and returns FALSE
 * where one is over its tolerance. Adds the time each path took to
 * @cpu_us and @gpu_us. */
static gboolean
check_against_cpu (GstBuffer * sys, GstBuffer * dev, const GstVideoInfo * info,
    const Output * o, const Geometry * geo, gboolean definition,
    Difference * d, gdouble * def_off, gdouble * cpu_off, gint64 * cpu_us,
    gint64 * gpu_us)
{
  gchar *sys_caps = input_caps (info, geo, FALSE);
  gchar *dev_caps = input_caps (info, geo, TRUE);
  gdouble tolerance = tolerance_of (geo, o, info);
  gint64 start = g_get_monotonic_time ();
  gboolean ok = TRUE;
  GstBuffer *a, *b;
  guint n;

  a = convert (sys, sys_caps, o, geo, FALSE);
  *cpu_us += g_get_monotonic_time () - start;
  start = g_get_monotonic_time ();
  b = convert (dev, dev_caps, o, geo, TRUE);
  *gpu_us += g_get_monotonic_time () - start;

  for (n = 0; n < (definition ? 3 : 1); n++) {
    const gchar *what[] = { "kernels vs the CPU path",
      "kernels vs the definition", "the CPU path vs the definition"
    };
    Difference c;

    if (n == 0)
      c = compare_outputs (a, b, o, geo->out_w, geo->out_h,
          geo->in_w != geo->out_w || geo->in_h != geo->out_h);
    else
      c = compare_with_definition (sys, info, n == 1 ? b : a, o, geo);
    if (n == 0)
      *d = c;
    else if (n == 1 && def_off)
      *def_off = c.levels;
    else if (n == 2 && cpu_off)
      *cpu_off = c.levels;
    if (n > 0)
      tolerance = definition_tolerance (&c, info, o);
    if (c.levels > tolerance) {
      g_print ("FAIL %s: %dx%d %s%s%s -> %dx%d %s%s%s%s%s: worst difference "
          "%.3f levels at %s (tolerance %.2f)\n", what[n], geo->in_w,
          geo->in_h, GST_VIDEO_INFO_NAME (info), geo->colorimetry ? " " : "",
          geo->colorimetry ? geo->colorimetry : "", geo->out_w, geo->out_h,
          o->format ? o->format : o->dtype, o->format ? "" : " ",
          o->format ? "" : o->layout, o->normalise ? " normalised" : "",
          geo->letterbox ? " letterbox" : "", c.levels, c.where, tolerance);
      ok = FALSE;
    }
  }

  gst_buffer_unref (a);
  gst_buffer_unref (b);
  g_free (dev_caps);
  g_free (sys_caps);

  return ok;
}

GST_START_TEST (test_kernels_match_cpu_reference)
{
  /* worst per input format and output */
  gdouble worst[G_N_ELEMENTS (inputs)][G_N_ELEMENTS (outputs)] = { {0,}, };
  guint g, i, j, failures = 0, paths = 0;
  gint64 cpu_us = 0, gpu_us = 0;

  for (g = 0; g < G_N_ELEMENTS (geometries); g++) {
    const Geometry *geo = &geometries[g];

    for (i = 0; i < G_N_ELEMENTS (inputs); i++) {
      GstVideoInfo info;
      GstBuffer *sys, *dev;

      if (geo->yuv_only && inputs[i] != GST_VIDEO_FORMAT_NV12 &&
          inputs[i] != GST_VIDEO_FORMAT_I420)
        continue;
      sys = cudacache_make_picture (inputs[i], geo->in_w, geo->in_h, &info);
      dev = upload (sys, &info);

      for (j = 0; j < G_N_ELEMENTS (outputs); j++) {
        Difference d;

        /* the other geometries: each input to one video output and one
         * tensor, in turn */
        if (!geo->all_outputs && j != (i + g) % N_VIDEO_OUTPUTS &&
            j != N_VIDEO_OUTPUTS + (i + g) % (G_N_ELEMENTS (outputs) -
                N_VIDEO_OUTPUTS))
          continue;

        if (!check_against_cpu (sys, dev, &info, &outputs[j], geo, FALSE, &d,
                NULL, NULL, &cpu_us, &gpu_us))
          failures++;
        worst[i][j] = MAX (worst[i][j], d.levels);
        paths++;
      }

      gst_buffer_unref (dev);
      gst_buffer_unref (sys);
    }
  }

  g_print ("kernels vs CPU path, every value compared, worst difference in "
      "8-bit levels per input (rows) and output (columns):\n%-5s", "");
  for (j = 0; j < G_N_ELEMENTS (outputs); j++)
    g_print (" %6.6s", outputs[j].format ? outputs[j].format :
        outputs[j].dtype[0] == 'u' ? (outputs[j].layout[1] == 'C' ?
            "u8chw" : "u8hwc") : outputs[j].dtype[5] == '1' ?
        (outputs[j].layout[1] == 'C' ? "f16chw" : "f16hwc") :
        (outputs[j].layout[1] == 'C' ? "f32chw" : "f32hwc"));
  g_print ("\n");
  for (i = 0; i < G_N_ELEMENTS (inputs); i++) {
    g_print ("%-5s", gst_video_format_to_string (inputs[i]));
    for (j = 0; j < G_N_ELEMENTS (outputs); j++)
      g_print (" %6.3f", worst[i][j]);
    g_print ("\n");
  }
  g_print ("kernels vs CPU path: %u conversions over %u geometries, %u over "
      "tolerance (%.1f s in the CPU path's element, %.1f s in the CUDA "
      "one's)\n", paths, (guint) G_N_ELEMENTS (geometries), failures,
      cpu_us / 1e6, gpu_us / 1e6);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

/* A size from @lo to @hi, each scale alike likely (log-uniform). */
static gint
random_size (GRand * rand, gint lo, gint hi)
{
  gdouble v = exp (g_rand_double_range (rand, log (lo), log (hi + 1.0)));

  return CLAMP ((gint) v, lo, hi);
}

/* Sizes, inputs and outputs drawn at random from a fixed seed (a failure
 * names its case, and the same seed runs it again; CUDACACHE_TEST_SEED
 * draws others), every value compared: the kernels with the CPU path and
 * both with the definition (compare_with_definition ()). Every other case
 * is the direct kernels' own: NV12 or I420 to packed RGB or a tensor,
 * shrunk by up to 3.5x, with windows of 6 taps or 8; 4:2:0 input comes in
 * SD, HD, UHD and full-range colorimetry too. Inputs are at least 8 pixels
 * and grow at most 16x a side. */
#define RANDOM_CASES 120

GST_START_TEST (test_random_geometries_match_cpu)
{
  /* 4:2:0 input's colorimetry: the size's default, SD, HD, UHD, and full
   * range (as JPEG decoders and some cameras give) */
  static const gchar *colorimetries[] = { NULL, "bt601", "bt709", "bt2020",
    "jpeg", "1:3:5:1"
  };
  const gchar *env = g_getenv ("CUDACACHE_TEST_SEED");
  guint32 seed = env ? (guint32) g_ascii_strtoull (env, NULL, 10) : 20261125;
  GRand *rand = g_rand_new_with_seed (seed);
  guint c, failures = 0, direct_cases = 0;
  gdouble worst = 0, worst_definition = 0, cpu_worst_definition = 0;
  gdouble def_off = 0, cpu_off = 0;
  gint64 cpu_us = 0, gpu_us = 0;

  for (c = 0; c < RANDOM_CASES; c++) {
    gboolean direct = c % 2 == 0;
    guint n_in = direct ? 2 : G_N_ELEMENTS (inputs);
    guint i = g_rand_int_range (rand, 0, n_in);
    guint j;
    Geometry geo = { 0, };
    GstVideoInfo info;
    GstBuffer *sys, *dev;
    Difference d;

    geo.letterbox = g_rand_boolean (rand);
    if (direct) {
      /* packed RGB (not NV12 or I420) or a tensor */
      j = g_rand_boolean (rand) ? (guint) g_rand_int_range (rand, 0, 6) :
          (guint) g_rand_int_range (rand, N_VIDEO_OUTPUTS,
          G_N_ELEMENTS (outputs));
      geo.out_w = random_size (rand, 4, 1024);
      geo.out_h = random_size (rand, 4, 1024);
      geo.in_w = MAX (8, (gint) (geo.out_w *
              g_rand_double_range (rand, 1.0, 3.5)));
      geo.in_h = MAX (8, (gint) (geo.out_h *
              g_rand_double_range (rand, 1.0, 3.5)));
      direct_cases++;
    } else {
      j = g_rand_int_range (rand, 0, G_N_ELEMENTS (outputs));
      geo.in_w = random_size (rand, 8, 2600);
      geo.in_h = random_size (rand, 8, 2600);
      geo.out_w = MIN (random_size (rand, 2, 1400), 16 * geo.in_w);
      geo.out_h = MIN (random_size (rand, 2, 1400), 16 * geo.in_h);
    }

    if (i < 2)
      geo.colorimetry = colorimetries[g_rand_int_range (rand, 0,
              G_N_ELEMENTS (colorimetries))];

    sys = cudacache_make_picture (inputs[i], geo.in_w, geo.in_h, &info);
    dev = upload (sys, &info);
    if (!check_against_cpu (sys, dev, &info, &outputs[j], &geo, TRUE, &d,
            &def_off, &cpu_off, &cpu_us, &gpu_us))
      failures++;
    worst = MAX (worst, d.levels);
    worst_definition = MAX (worst_definition, def_off);
    cpu_worst_definition = MAX (cpu_worst_definition, cpu_off);
    gst_buffer_unref (dev);
    gst_buffer_unref (sys);
  }

  g_print ("random geometries (seed %u): %u conversions (%u the direct "
      "kernels' kind), %u over tolerance; kernels against the CPU path "
      "worst %.3f levels; against the definition: kernels worst %.3f "
      "levels, the CPU path %.3f (%.1f s in the CPU path's element, %.1f s "
      "in the CUDA one's)\n", seed, RANDOM_CASES, direct_cases, failures,
      worst, worst_definition, cpu_worst_definition, cpu_us / 1e6,
      gpu_us / 1e6);
  g_rand_free (rand);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

/* 16-bit 4:2:0 input (P010_10LE, P016_LE) widened from an NV12
 * picture: the kernels convert the NV12 frame it narrows to, which is that
 * picture, so every output equals the NV12 picture's, to the bit, at every
 * geometry and one taller than a grid; rows of any alignment (the input
 * shifted by 2 bytes). */
GST_START_TEST (test_16bit_input_matches_nv12)
{
  static const GstVideoFormat wide[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P016_LE
  };
  /* more rows than a grid has rows of blocks (65535) */
  static const Geometry tall = { 6, 44001, 5, 9, FALSE, TRUE };
  guint g, j, n = 0;

  for (g = 0; g <= G_N_ELEMENTS (geometries); g++) {
    const Geometry *geo = g < G_N_ELEMENTS (geometries) ? &geometries[g] :
        &tall;
    GstVideoInfo info, wide_info;
    GstBuffer *nv12 = cudacache_make_picture (GST_VIDEO_FORMAT_NV12,
        geo->in_w, geo->in_h, &info);
    GstBuffer *in = cudacache_widen_picture (nv12, &info,
        wide[g % G_N_ELEMENTS (wide)], &wide_info);
    GstBuffer *dev_nv12 = upload (nv12, &info);
    GstBuffer *dev_in = upload_shifted (in, &wide_info, g % 2 ? 2 : 0);
    gchar *nv12_caps = input_caps (&info, geo, TRUE);
    gchar *in_caps = input_caps (&wide_info, geo, TRUE);

    for (j = 0; j < G_N_ELEMENTS (outputs); j++) {
      GstBuffer *a, *b;
      Difference d;

      if (!geo->all_outputs && j % 3 != g % 3)
        continue;
      a = convert (dev_nv12, nv12_caps, &outputs[j], geo, TRUE);
      b = convert (dev_in, in_caps, &outputs[j], geo, TRUE);
      d = compare_outputs (a, b, &outputs[j], geo->out_w, geo->out_h, FALSE);
      fail_unless (d.levels == 0.0, "%dx%d %s -> %dx%d %s: %.3f levels from "
          "NV12 at %s", geo->in_w, geo->in_h, GST_VIDEO_INFO_NAME (&wide_info),
          geo->out_w, geo->out_h, outputs[j].format ? outputs[j].format :
          outputs[j].dtype, d.levels, d.where);
      n++;
      gst_buffer_unref (b);
      gst_buffer_unref (a);
    }
    g_free (in_caps);
    g_free (nv12_caps);
    gst_buffer_unref (dev_in);
    gst_buffer_unref (dev_nv12);
    gst_buffer_unref (in);
    gst_buffer_unref (nv12);
  }
  g_print ("16-bit input: %u conversions equal to NV12's\n", n);
}

GST_END_TEST;

/* Largest difference between an RGBA frame and the picture it came from. */
static gdouble
error_against_picture (GstBuffer * out)
{
  GstVideoInfo info;
  GstVideoFrame frame, truth;
  GstBuffer *ref;
  gdouble worst = 0;
  gint x, y, c;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, IN_W, IN_H);
  ref = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&truth, &info, ref, GST_MAP_WRITE));
  cudacache_fill_picture (&truth);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < IN_H; y++) {
    const guint8 *a = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    const guint8 *b = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&truth, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&truth, 0);

    for (x = 0; x < IN_W; x++)
      for (c = 0; c < 3; c++)
        worst = MAX (worst, fabs ((gdouble) a[4 * x + c] - b[4 * x + c]));
  }
  gst_video_frame_unmap (&frame);
  gst_video_frame_unmap (&truth);
  gst_buffer_unref (ref);

  return worst;
}

/* The inputs webcams give (YUY2, UYVY) to every output, and every input
 * to gray (1-channel tensors; GRAY8 frames are system memory's only), at
 * every geometry above:
 * the kernels against the definition (the stand-in RGBx frame, then the
 * RGB definition; gray the luma of the 8-bit RGB) on the gradients and on
 * noise (every pixel a sharp edge, chroma out of gamut too), and on both
 * against the CPU path too, which converts 4:2:2 through the same
 * stand-in. CUDACACHE_TEST_GEOMETRIES=N takes the first N geometries
 * only (compute-sanitizer runs are many times slower). */
GST_START_TEST (test_webcam_and_gray_formats)
{
  const gchar *env = g_getenv ("CUDACACHE_TEST_GEOMETRIES");
  guint n_geos = env ? MIN ((guint) g_ascii_strtoull (env, NULL, 10),
      G_N_ELEMENTS (geometries)) : G_N_ELEMENTS (geometries);
  static const Output grays[] = {
    {NULL, "float32", "NCHW", "rgb", TRUE, TRUE},
    {NULL, "uint8", "NHWC", "rgb", FALSE, TRUE},
    {NULL, "float16", "NHWC", "bgr", FALSE, TRUE},
  };
  static const GstVideoFormat webcam[] = { GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY
  };
  GstVideoFormat ins[G_N_ELEMENTS (webcam) + G_N_ELEMENTS (inputs)];
  guint g, i, j, noise, failures = 0, definition_cases = 0, cpu_cases = 0;
  gdouble worst_definition = 0, worst_cpu = 0;
  GRand *rand = g_rand_new_with_seed (30);

  memcpy (ins, webcam, sizeof (webcam));
  memcpy (ins + G_N_ELEMENTS (webcam), inputs, sizeof (inputs));
  for (noise = 0; noise < 2; noise++) {
    for (g = 0; g < n_geos; g++) {
      const Geometry *geo = &geometries[g];

      for (i = 0; i < G_N_ELEMENTS (ins); i++) {
        gboolean stand_in = definition_has_stand_in (ins[i]);
        GstVideoInfo info;
        GstBuffer *sys, *dev;

        if (geo->yuv_only && stand_in)
          continue;
        sys = cudacache_make_picture (ins[i], geo->in_w, geo->in_h, &info);
        if (noise)
          cudacache_fill_noise (sys, rand);
        dev = upload (sys, &info);

        for (j = 0; j < G_N_ELEMENTS (outputs) + G_N_ELEMENTS (grays); j++) {
          const Output *o = j < G_N_ELEMENTS (outputs) ? &outputs[j] :
              &grays[j - G_N_ELEMENTS (outputs)];
          gchar *caps = input_caps (&info, geo, TRUE);
          gdouble tolerance;
          GstBuffer *out;
          Difference d = { 0, };

          /* the new inputs to every output, the others to gray */
          if (!stand_in && !output_is_gray (o)) {
            g_free (caps);
            continue;
          }
          out = convert (dev, caps, o, geo, TRUE);
          d = compare_with_definition (sys, &info, out, o, geo);
          tolerance = definition_tolerance (&d, &info, o);
          definition_cases++;
          worst_definition = MAX (worst_definition, d.levels);
          if (d.levels <= tolerance) {
            gchar *sys_caps = input_caps (&info, geo, FALSE);
            GstBuffer *cpu = convert (sys, sys_caps, o, geo, FALSE);

            d = compare_outputs (cpu, out, o, geo->out_w, geo->out_h,
                geo->in_w != geo->out_w || geo->in_h != geo->out_h);
            tolerance = tolerance_of (geo, o, &info);
            cpu_cases++;
            worst_cpu = MAX (worst_cpu, d.levels);
            gst_buffer_unref (cpu);
            g_free (sys_caps);
          }
          if (d.levels > tolerance) {
            g_print ("FAIL %s %dx%d %s -> %dx%d %s%s%s%s: %.3f levels at %s "
                "(tolerance %.2f)\n", noise ? "noise" : "gradients",
                geo->in_w, geo->in_h, GST_VIDEO_INFO_NAME (&info), geo->out_w,
                geo->out_h, o->format ? o->format : o->dtype,
                o->gray ? " gray" : "", o->layout ? " " : "",
                o->layout ? o->layout : "", d.levels, d.where, tolerance);
            failures++;
          }
          gst_buffer_unref (out);
          g_free (caps);
        }
        gst_buffer_unref (dev);
        gst_buffer_unref (sys);
      }
    }
  }
  g_rand_free (rand);

  g_print ("webcam and gray formats: %u conversions held to the definition "
      "(worst %.3f levels), %u to the CPU path (worst %.3f), %u over "
      "tolerance\n", definition_cases, worst_definition, cpu_cases,
      worst_cpu, failures);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

/* A fill of three colours and the top-left position: the kernels against
 * the CPU path, every output, bars on either axis, from RGB and 4:2:0
 * input. */
GST_START_TEST (test_letterbox_fill_and_position)
{
  static const Geometry geos[] = {
    {97, 55, 160, 162, TRUE, TRUE},
    {55, 97, 163, 121, TRUE, FALSE},
    {1920, 1080, 640, 640, TRUE, FALSE},
  };
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_NV12
  };
  static const gchar *positions[] = { "center", "top-left" };
  guint g, i, j, p, failures = 0, n = 0;
  gdouble worst = 0;
  gint64 cpu_us = 0, gpu_us = 0;

  fill_rgb_arg = "<114, 90, 60>";
  for (p = 0; p < G_N_ELEMENTS (positions); p++) {
    position_arg = positions[p];
    for (g = 0; g < G_N_ELEMENTS (geos); g++) {
      for (i = 0; i < G_N_ELEMENTS (ins); i++) {
        GstVideoInfo info;
        GstBuffer *sys = cudacache_make_picture (ins[i], geos[g].in_w,
            geos[g].in_h, &info);
        GstBuffer *dev = upload (sys, &info);

        for (j = 0; j < G_N_ELEMENTS (outputs); j++) {
          Difference d = { 0, };
          gdouble cpu_off = 0;

          if (!check_against_cpu (sys, dev, &info, &outputs[j], &geos[g],
                  FALSE, &d, NULL, &cpu_off, &cpu_us, &gpu_us))
            failures++;
          worst = MAX (worst, d.levels);
          n++;
        }
        gst_buffer_unref (dev);
        gst_buffer_unref (sys);
      }
    }
  }
  fill_rgb_arg = NULL;
  position_arg = NULL;
  g_print ("letterbox fill <114, 90, 60>, centred and top-left: %u "
      "conversions, worst %.3f levels from the CPU path, %u over "
      "tolerance\n", n, worst, failures);
  fail_unless_equals_int (failures, 0);
}

GST_END_TEST;

/* Crops by GstVideoCropMeta on CUDA memory, read in place: the kernels'
 * conversion of a cropped frame against their conversion of the region
 * uploaded as a frame of its own (odd and even regions of each input
 * family), and the CPU suites' crop matrix (cudacache-crops.h) through
 * cudacacheconvert and cudacachebatch. */

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

/* The resampling presets (method=nearest, bilinear, area, antialias) on
 * CUDA memory against the CPU path: every input family, output and kind
 * of geometry, on gradients and on noise, and crops read in place. */

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
 * CUDACACHE_TEST_GEOMETRIES=N takes the first N geometries only;
 * CUDACACHE_TEST_METHODS=nearest,area the methods named only (each method
 * draws the same noise either way), for runs in parallel processes. */
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
  gchar **methods = g_strsplit (g_getenv ("CUDACACHE_TEST_METHODS") ?
      g_getenv ("CUDACACHE_TEST_METHODS") : "", ",", -1);
  guint m, g, i, j, noise, failures = 0, n = 0, n_methods = 0;
  gdouble worst_exact = 0, worst_yuv = 0;
  GRand *rand = g_rand_new ();

  for (m = 0; m < G_N_ELEMENTS (preset_methods); m++) {
    if (methods[0] && !g_strv_contains ((const gchar * const *) methods,
            preset_methods[m]))
      continue;
    n_methods++;
    method_arg = preset_methods[m];
    g_rand_set_seed (rand, 27 + m);
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
  g_print ("resampling presets on CUDA memory: %u methods, %u conversions "
      "against the CPU path, packed RGB and tensors worst %.4f levels, 4:2:0 "
      "and gray worst %.3f, %u over tolerance\n", n_methods, n, worst_exact,
      worst_yuv, failures);
  fail_unless (n_methods > 0, "CUDACACHE_TEST_METHODS=%s names no preset",
      g_getenv ("CUDACACHE_TEST_METHODS"));
  g_strfreev (methods);
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

/* Back from NV12 to RGBA at the same size, against the original picture:
 * the kernels are at least as close as GstVideoConverter (what
 * videoconvert does), whose 8-bit passes the CPU path no longer takes. */
GST_START_TEST (test_yuv_closer_to_the_picture)
{
  static const Output to_rgba = { "RGBA", };
  static const Geometry same_size = { IN_W, IN_H, IN_W, IN_H, FALSE, TRUE };
  GstVideoInfo info, rgba_info;
  GstBuffer *sys =
      cudacache_make_picture (GST_VIDEO_FORMAT_NV12, IN_W, IN_H, &info);
  GstBuffer *dev = upload (sys, &info);
  GstBuffer *stock;
  GstBuffer *gpu = convert (dev, "video/x-raw(memory:CUDAMemory),"
      "format=NV12,width=320,height=240,framerate=30/1", &to_rgba, &same_size,
      TRUE);
  GstVideoConverter *vc;
  GstVideoFrame in_frame, out_frame;
  gdouble stock_error, gpu_error;

  gst_video_info_set_format (&rgba_info, GST_VIDEO_FORMAT_RGBA, IN_W, IN_H);
  stock = gst_buffer_new_allocate (NULL, rgba_info.size, NULL);
  vc = gst_video_converter_new (&info, &rgba_info, NULL);
  fail_unless (gst_video_frame_map (&in_frame, &info, sys, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, &rgba_info, stock,
          GST_MAP_WRITE));
  gst_video_converter_frame (vc, &in_frame, &out_frame);
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  gst_video_converter_free (vc);
  stock_error = error_against_picture (stock);
  gpu_error = error_against_picture (gpu);

  g_print ("NV12 round trip, worst difference from the picture: "
      "GstVideoConverter %.0f levels, kernels %.0f levels\n", stock_error,
      gpu_error);
  fail_unless (gpu_error <= stock_error);

  gst_buffer_unref (gpu);
  gst_buffer_unref (stock);
  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
}

GST_END_TEST;

GST_START_TEST (test_cuda_pipeline_renegotiation)
{
  GstCudaCacheStats first_pass, again;
  const gchar *middle = "cudacacheconvert ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA ! cudacacheidentity";

  /* the application shares its context across pipelines: as a user of
   * it, it keeps the context's blocks from one pipeline to the next */
  gst_cuda_cache_device_add_context_user (context);
  run_switching_pipeline (middle, 1, context, &first_pass);
  fail_unless (first_pass.misses > 0);
  run_switching_pipeline (middle, 3, context, &again);
  fail_unless_equals_uint64 (again.misses, first_pass.misses);
  fail_unless (again.hits > first_pass.hits);
  gst_cuda_cache_device_remove_context_user (context);
}

GST_END_TEST;

/* A preset through caps that switch: its table is a block of the
 * cache like the frames, so a second run of the same
 * switches misses the cache no more than the first did. */
GST_START_TEST (test_presets_pipeline_renegotiation)
{
  GstCudaCacheStats first_pass, again;
  const gchar *middle = "cudacacheconvert method=antialias letterbox=true ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=160,height=120 ! "
      "cudacacheidentity";

  gst_cuda_cache_device_add_context_user (context);
  run_switching_pipeline (middle, 1, context, &first_pass);
  fail_unless (first_pass.misses > 0);
  run_switching_pipeline (middle, 3, context, &again);
  fail_unless_equals_uint64 (again.misses, first_pass.misses);
  fail_unless (again.hits > first_pass.hits);
  gst_cuda_cache_device_remove_context_user (context);
}

GST_END_TEST;

GST_START_TEST (test_tensor_pipeline)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=20 ! "
      "video/x-raw,width=1280,height=720 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudacacheconvert letterbox=true "
      "fill-value=114 scale=0.00392156862745098 ! "
      "other/tensors(memory:CUDAMemory),types=float32,"
      "dimensions=640:640:3:1 ! cudacacheidentity ! fakesink", NULL);

  fail_unless (pipeline != NULL);
  cudacache_run_pipeline (pipeline, context);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A 10-bit stream's frames, as nvh265dec gives them, to an inference
 * tensor and to RGBA. */
GST_START_TEST (test_p010_pipeline)
{
  CudaCacheFrameCount c = { NULL, 0, 0 };
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=20 ! "
      "video/x-raw,format=P010_10LE,width=1280,height=720 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! tee name=t ! queue ! "
      "cudacacheconvert letterbox=true scale=0.00392156862745098 ! "
      "other/tensors(memory:CUDAMemory),types=float32,"
      "dimensions=640:640:3:1 ! cudacacheidentity name=id ! fakesink "
      "t. ! queue ! cudacacheconvert ! video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=321,height=181 ! fakesink", NULL);

  fail_unless (pipeline != NULL);
  c.cache = gst_cuda_cache_device_get_cache (context);
  cudacache_count_frames (pipeline, "id", &c);
  cudacache_run_pipeline (pipeline, context);
  fail_unless_equals_int (c.frames, 20);
  gst_object_unref (c.cache);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* NVDEC decodes into the pool cudacacheidentity proposes. */
GST_START_TEST (test_nvh264dec_takes_the_pool)
{
  CudaCacheFrameCount c = { NULL, 0, 0 };
  GstElement *pipeline;
  GError *err = NULL;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=30 ! "
      "video/x-raw,format=I420,width=320,height=240 ! x264enc ! h264parse ! "
      "nvh264dec ! video/x-raw(memory:CUDAMemory) ! cudacacheidentity name=id "
      "! fakesink", &err);
  /* a missing element still makes a pipeline, and says so in @err */
  fail_unless (pipeline != NULL && err == NULL,
      "x264enc or nvh264dec missing: %s", err ? err->message : "");
  c.cache = gst_cuda_cache_device_get_cache (context);
  cudacache_count_frames (pipeline, "id", &c);

  cudacache_run_pipeline (pipeline, context);
  fail_unless_equals_int (c.frames, 30);
  fail_unless_equals_int (c.from_cache, 30);

  gst_object_unref (c.cache);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* 4:2:0 input to RGB and tensors takes the direct kernel where the rows
 * are 4-byte aligned, the tiled one (reading bytes) where they are not:
 * the same frame both ways, every value within a level of each other (the
 * same fixed-point sums and weights; the vertical sums rounded in another
 * order). */
GST_START_TEST (test_direct_and_tiled_kernels_agree)
{
  static const Geometry geos[] = {
    {1920, 1080, 640, 640, TRUE, FALSE},
    {321, 241, 199, 147, FALSE, FALSE},
    {16, 9, 7, 5, FALSE, FALSE},
  };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420
  };
  /* RGBA, BGR, float32 NCHW normalised, uint8 NHWC */
  static const guint outs[] = { 0, 5, N_VIDEO_OUTPUTS, N_VIDEO_OUTPUTS + 4 };
  guint g, f, j;

  for (g = 0; g < G_N_ELEMENTS (geos); g++) {
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      GstVideoInfo info;
      GstBuffer *sys =
          cudacache_make_picture (formats[f], geos[g].in_w, geos[g].in_h,
          &info);
      GstBuffer *aligned = upload (sys, &info);
      GstBuffer *shifted = upload_shifted (sys, &info, 1);
      gchar *caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
          "format=%s,width=%d,height=%d,framerate=30/1",
          GST_VIDEO_INFO_NAME (&info), geos[g].in_w, geos[g].in_h);

      for (j = 0; j < G_N_ELEMENTS (outs); j++) {
        const Output *o = &outputs[outs[j]];
        GstBuffer *a = convert (aligned, caps, o, &geos[g], TRUE);
        GstBuffer *b = convert (shifted, caps, o, &geos[g], TRUE);
        Difference d =
            compare_outputs (a, b, o, geos[g].out_w, geos[g].out_h, TRUE);

        fail_unless (d.levels <= 1.0 + SLACK, "%dx%d %s -> %dx%d %s: the "
            "kernels differ by %.3f levels at %s", geos[g].in_w,
            geos[g].in_h, GST_VIDEO_INFO_NAME (&info), geos[g].out_w,
            geos[g].out_h, o->format ? o->format : "tensor", d.levels, d.where);
        gst_buffer_unref (a);
        gst_buffer_unref (b);
      }
      g_free (caps);
      gst_buffer_unref (shifted);
      gst_buffer_unref (aligned);
      gst_buffer_unref (sys);
    }
  }
}

GST_END_TEST;

/* Conversions of several threads at once on one context, each waiting for
 * its own frame only: a frame read back the moment its conversion returns
 * equals the same conversion waited for on a stream of the test's. */

/* Several threads convert at once on the one context, each with its own
 * converter and output size, and read each frame back the moment the
 * conversion returns, by a copy that waits for no other stream: a converter
 * that returned before its frame was written shows the pattern the output
 * was filled with before. The reference is the same conversion on a
 * caller's stream, waited for by the test. */
#define WAIT_THREADS 8
#define WAIT_FRAMES 24

typedef struct
{
  GstCudaCacheConverter *converter;
  GstBuffer *in;
  GstBuffer *out;
  CUdeviceptr out_data;
  gint out_stride;
  gint out_width;
  gint out_height;
  guint8 *reference;
  guint8 *pattern;
  guint8 *got;
  guint mismatches;
  gchar *error;
} WaitWorker;

/* Rows @first to @first + @rows - 1 of @w's output, to or from @host. */
static gboolean
copy_rgba (WaitWorker * w, guint8 * host, gint first, gint rows,
    gboolean to_device)
{
  gsize host_stride = (gsize) w->out_width * 4;

  return copy_rows (host + first * host_stride, host_stride,
      w->out_data + (gsize) first * w->out_stride, w->out_stride, host_stride,
      rows, to_device);
}

static gboolean
fill_output (WaitWorker * w, guint8 * host)
{
  return copy_rgba (w, host, 0, w->out_height, TRUE);
}

/* The last row first: the grid writes it last. */
static gboolean
read_output (WaitWorker * w, guint8 * host)
{
  return copy_rgba (w, host, w->out_height - 1, 1, FALSE) &&
      copy_rgba (w, host, 0, w->out_height - 1, FALSE);
}

static gpointer
wait_worker (gpointer data)
{
  WaitWorker *w = data;
  GError *error = NULL;
  guint i;

  for (i = 0; i < WAIT_FRAMES; i++) {
    if (!fill_output (w, w->pattern)) {
      w->error = g_strdup ("could not fill the output");
      return NULL;
    }
    if (!gst_cuda_cache_converter_convert_buffer (w->converter, w->in,
            w->out, NULL, &error)) {
      w->error = g_strdup (error->message);
      g_clear_error (&error);
      return NULL;
    }
    if (!read_output (w, w->got)) {
      w->error = g_strdup ("could not read the output back");
      return NULL;
    }
    if (memcmp (w->got, w->reference, w->out_width * 4 * w->out_height) != 0)
      w->mismatches++;
  }

  return NULL;
}

GST_START_TEST (test_threads_wait_for_their_own_frames)
{
  GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  WaitWorker workers[WAIT_THREADS];
  GThread *threads[WAIT_THREADS];
  GstVideoInfo in_info;
  GstBuffer *sys = cudacache_make_picture (GST_VIDEO_FORMAT_NV12, 1920, 1080,
      &in_info);
  GstBuffer *in = upload (sys, &in_info);
  GstCaps *in_caps = gst_video_info_to_caps (&in_info);
  guint t;

  fail_unless (allocator != NULL);
  gst_caps_set_features_simple (in_caps,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  for (t = 0; t < WAIT_THREADS; t++) {
    WaitWorker *w = &workers[t];
    GstVideoInfo out_info;
    GstCaps *out_caps;
    GstMemory *mem;
    GstMapInfo map;
    CUstream stream;
    GError *error = NULL;
    gsize size;

    memset (w, 0, sizeof (*w));
    /* a grid of its own per thread: sizes that differ, all of them odd,
     * and large enough that a conversion outlasts the start of the copy
     * that reads it back */
    w->out_width = 3841 - 64 * t;
    w->out_height = 2161 - 32 * t;
    size = (gsize) w->out_width * 4 * w->out_height;
    gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGBA,
        w->out_width, w->out_height);
    out_caps = gst_video_info_to_caps (&out_info);
    gst_caps_set_features_simple (out_caps,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    w->converter = gst_cuda_cache_converter_new (in_caps, out_caps, context,
        NULL, &error);
    fail_unless (w->converter != NULL, "%s", error ? error->message : "");
    gst_caps_unref (out_caps);

    mem = gst_cuda_cache_compat_alloc (GST_CUDA_ALLOCATOR (allocator),
        context, NULL, &out_info);
    fail_unless (mem != NULL);
    w->out = gst_buffer_new ();
    gst_buffer_append_memory (w->out, mem);
    gst_buffer_add_video_meta_full (w->out, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_RGBA, w->out_width, w->out_height, 1,
        GST_CUDA_MEMORY_CAST (mem)->info.offset,
        GST_CUDA_MEMORY_CAST (mem)->info.stride);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
    w->out_data = (CUdeviceptr) map.data;
    gst_memory_unmap (mem, &map);
    w->out_stride = GST_CUDA_MEMORY_CAST (mem)->info.stride[0];
    w->in = gst_buffer_ref (in);
    w->reference = g_malloc (size);
    w->got = g_malloc (size);
    w->pattern = g_malloc (size);
    memset (w->pattern, 0x5a, size);

    /* the reference: the same conversion on a stream the test waits for */
    fail_unless (gst_cuda_context_push (context));
    fail_unless_equals_int (CuStreamCreate (&stream, CU_STREAM_NON_BLOCKING),
        CUDA_SUCCESS);
    gst_cuda_context_pop (NULL);
    fail_unless (fill_output (w, w->pattern));
    fail_unless (gst_cuda_cache_converter_convert_buffer (w->converter, in,
            w->out, stream, &error), "%s", error ? error->message : "");
    fail_unless (gst_cuda_context_push (context));
    fail_unless_equals_int (CuStreamSynchronize (stream), CUDA_SUCCESS);
    fail_unless_equals_int (CuStreamDestroy (stream), CUDA_SUCCESS);
    gst_cuda_context_pop (NULL);
    fail_unless (read_output (w, w->reference));
    fail_unless (memcmp (w->reference, w->pattern, size) != 0);
  }

  for (t = 0; t < WAIT_THREADS; t++)
    threads[t] = g_thread_new ("convert", wait_worker, &workers[t]);
  for (t = 0; t < WAIT_THREADS; t++)
    g_thread_join (threads[t]);

  for (t = 0; t < WAIT_THREADS; t++) {
    WaitWorker *w = &workers[t];

    fail_unless (w->error == NULL, "thread %u: %s", t, w->error);
    fail_unless_equals_int (w->mismatches, 0);
    gst_object_unref (w->converter);
    gst_buffer_unref (w->in);
    gst_buffer_unref (w->out);
    g_free (w->reference);
    g_free (w->got);
    g_free (w->pattern);
  }
  gst_caps_unref (in_caps);
  gst_buffer_unref (in);
  gst_buffer_unref (sys);
  gst_object_unref (allocator);
}

GST_END_TEST;

/* Batches on CUDA memory: cudacachebatch's slots, regions, refusals of
 * frames of other memory, layouts seen before allocating nothing, each
 * request answered at once and the element reused with another context
 * (cudacache-batch.h's checks), and the converter's batches
 * (gst_cuda_cache_converter_convert_batch (), _launch_batch ()) against
 * each slot converted alone, a reconfigured converter against a new one
 * among them. */

/* cudacachebatch on CUDA memory: every slot of each batch the frame
 * converted alone by cudacacheconvert, sources of odd sizes and four
 * formats; a pad's memory follows the batch's. */
GST_START_TEST (test_batch_slots_are_solo_conversions)
{
  gchar *error;

  fail_unless_equals_int (batch_check_slots (batch_sources, batch_frames, 4,
          "cudaupload !", "letterbox=true fill-value=114 "
          "scale=0.00392156862745098 mean=\"<0.485, 0.456, 0.406>\" "
          "std=\"<0.229, 0.224, 0.225>\"",
          FLOAT_NCHW ("(memory:CUDAMemory)", 4),
          FLOAT_NCHW ("(memory:CUDAMemory)", 1)), 4);
  fail_unless_equals_int (batch_check_slots (batch_sources, batch_frames, 4,
          "cudaupload !", "method=area",
          U8_NHWC ("(memory:CUDAMemory)", 4),
          U8_NHWC ("(memory:CUDAMemory)", 1)), 4);

  /* cudaupload before a pad of system-memory batches passes frames
   * through; CUDA frames forced there are refused */
  error = batch_run_error ("cudacachebatch name=b ! " U8_NHWC ("", 2)
      " ! fakesink videotestsrc num-buffers=2 ! b.sink_0 "
      "videotestsrc num-buffers=2 ! cudaupload ! b.sink_1");
  fail_unless (error == NULL, "%s", error);
  error = batch_run_error ("cudacachebatch name=b ! " U8_NHWC ("", 2)
      " ! fakesink videotestsrc num-buffers=2 ! b.sink_0 "
      "videotestsrc num-buffers=2 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! b.sink_1");
  fail_unless (error != NULL, "CUDA frames taken into system-memory batches");
  g_free (error);
}

GST_END_TEST;

/* A buffer of @caps from a pool of the cache, which the buffer outlives */
static GstBuffer *
acquire_of (const gchar * caps_str)
{
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstCudaCacheTensorInfo tinfo;
  GstBuffer *buf = NULL;

  fail_unless (gst_cuda_cache_tensor_info_from_caps (&tinfo, caps));
  gst_buffer_pool_config_set_params (config, caps, tinfo.size, 0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_caps_unref (caps);
  return buf;
}

/* One slot of a batch: its frame in CUDA memory and its converter */
typedef struct
{
  GstVideoFormat format;
  gint width;
  gint height;
  const gchar *method;          /* NULL: linear */
  gint src[4];                  /* a source rectangle, or 0s */
  gboolean shifted;             /* rows at an odd address: no direct kernel */
} BatchSlot;

/* A frame of slot @i of batch @round: each slot's and each batch's its
 * own, so that a slot read from another, or from a batch before, shows */
static GstBuffer *
batch_slot_frame (const BatchSlot * sl, guint i, guint round)
{
  GstVideoInfo info;
  GstBuffer *sys, *dev;
  GstMapInfo map;
  gsize b;

  sys = cudacache_make_picture (sl->format, sl->width, sl->height, &info);
  fail_unless (gst_buffer_map (sys, &map, GST_MAP_WRITE));
  for (b = round; b < map.size; b += 7)
    map.data[b] ^= (guint8) (i * 29 + round * 71 + 1);
  gst_buffer_unmap (sys, &map);
  dev = upload_shifted (sys, &info, sl->shifted ? 1 : 0);
  gst_buffer_unref (sys);
  return dev;
}

/* The converter of slot @sl into one slot of @out */
static GstCudaCacheConverter *
batch_slot_converter (const BatchSlot * sl, GstCaps * out)
{
  GstStructure *config;
  GstVideoInfo info;
  GstCudaCacheConverter *conv;
  GError *error = NULL;
  GstCaps *in;

  gst_video_info_set_format (&info, sl->format, sl->width, sl->height);
  config = test_config_new (TRUE, 114,
      GST_CUDA_CACHE_CHANNEL_ORDER_RGB, 1.0 / 255.0, (const gdouble[3]) {
        0.485, 0.456, 0.406
      }, (const gdouble[3]) {
        0.229, 0.224, 0.225
      });
  if (sl->method)
    gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
        GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
        g_enum_get_value_by_nick (g_type_class_ref
            (GST_TYPE_CUDA_CACHE_RESIZE_METHOD), sl->method)->value, NULL);
  if (sl->src[2] > 0)
    gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, G_TYPE_INT,
        sl->src[0], GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, G_TYPE_INT,
        sl->src[1], GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT,
        sl->src[2], GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT,
        sl->src[3], NULL);
  in = gst_video_info_to_caps (&info);
  gst_caps_set_features_simple (in,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  conv = gst_cuda_cache_converter_new (in, out, context, config, &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");
  gst_caps_unref (in);
  return conv;
}

/* Converts @rounds batches of @n slots into tensors of @out_caps
 * (@slot_caps for one slot) with one converter per slot, and each slot's
 * frame alone; every slot equal to its single conversion, to the byte,
 * and absent slots (format UNKNOWN) zero. One batch is converted by
 * gst_cuda_cache_converter_convert_batch (); more are all launched on one
 * stream before the first is waited for, as cudacachebatch does (their
 * converters' frames, tables and signal shared). Returns the first
 * batch's launches. */
static guint
check_batch (const BatchSlot * slots, guint n, const gchar * slot_caps,
    const gchar * out_caps, gsize slot_size, guint rounds)
{
  GstCudaCacheConverter **convs = g_new0 (GstCudaCacheConverter *, n);
  GstBuffer **ins = g_new0 (GstBuffer *, n * rounds);
  GstBuffer **batches = g_new0 (GstBuffer *, rounds);
  GstCudaCacheBatchLaunch **launched = g_newa (GstCudaCacheBatchLaunch *,
      rounds);
  GstCaps *out = gst_caps_from_string (slot_caps);
  CUstream stream = NULL;
  GError *error = NULL;
  GstMapInfo map;
  guint i, r, launches = 0, first_launches = 0;
  gsize b;

  for (i = 0; i < n; i++) {
    if (slots[i].format != GST_VIDEO_FORMAT_UNKNOWN)
      convs[i] = batch_slot_converter (&slots[i], out);
  }
  for (r = 0; r < rounds; r++) {
    batches[r] = acquire_of (out_caps);
    /* not zero where a slot is absent: the batch must clear it */
    fail_unless (gst_buffer_map (batches[r], &map,
            GST_MAP_WRITE | GST_MAP_CUDA));
    {
      guint8 *ones = g_malloc (map.size);

      memset (ones, 0xa5, map.size);
      fail_unless (copy_rows ((guint8 *) ones, map.size,
              (CUdeviceptr) map.data, map.size, map.size, 1, TRUE));
      g_free (ones);
    }
    gst_buffer_unmap (batches[r], &map);
    for (i = 0; i < n; i++) {
      if (convs[i])
        ins[r * n + i] = batch_slot_frame (&slots[i], i, r);
    }
  }

  if (rounds == 1) {
    fail_unless (gst_cuda_cache_converter_convert_batch (convs, ins, n,
            batches[0], NULL, &first_launches, &error), "%s",
        error ? error->message : "");
  } else {
    fail_unless (gst_cuda_context_push (context));
    fail_unless (gst_cuda_result (CuStreamCreate (&stream,
                CU_STREAM_NON_BLOCKING)));
    gst_cuda_context_pop (NULL);
    for (r = 0; r < rounds; r++) {
      launched[r] = gst_cuda_cache_converter_launch_batch (convs,
          ins + r * n, n, batches[r], stream, &launches, &error);
      fail_unless (launched[r] != NULL, "%s", error ? error->message : "");
      if (r == 0)
        first_launches = launches;
    }
    for (r = 0; r < rounds; r++) {
      fail_unless (gst_cuda_cache_batch_launch_wait (launched[r], &error),
          "%s", error ? error->message : "");
      /* waiting again gives the same answer, at once */
      fail_unless (gst_cuda_cache_batch_launch_wait (launched[r], NULL));
      gst_cuda_cache_batch_launch_unref (launched[r]);
    }
  }

  for (r = 0; r < rounds; r++) {
    GstBuffer *host = download_tensor (batches[r]);

    fail_unless (gst_buffer_map (host, &map, GST_MAP_READ));
    for (i = 0; i < n; i++) {
      const guint8 *got = map.data + i * slot_size;
      GstBuffer *solo, *solo_host;
      GstMapInfo smap;

      if (!convs[i]) {
        for (b = 0; b < slot_size; b++)
          fail_unless (got[b] == 0, "absent slot %u of batch %u not cleared "
              "at byte %" G_GSIZE_FORMAT, i, r, b);
        continue;
      }
      solo = acquire_of (slot_caps);
      fail_unless (gst_cuda_cache_converter_convert_buffer (convs[i],
              ins[r * n + i], solo, NULL, &error), "%s",
          error ? error->message : "");
      solo_host = download_tensor (solo);
      fail_unless (gst_buffer_map (solo_host, &smap, GST_MAP_READ));
      fail_unless (smap.size >= slot_size);
      for (b = 0; b < slot_size; b++)
        fail_unless (got[b] == smap.data[b], "batch %u slot %u (%dx%d %s%s%s) "
            "differs from its conversion alone at byte %" G_GSIZE_FORMAT
            ": %u, not %u", r, i, slots[i].width, slots[i].height,
            gst_video_format_to_string (slots[i].format),
            slots[i].method ? ", " : "", slots[i].method ? slots[i].method : "",
            b, got[b], smap.data[b]);
      gst_buffer_unmap (solo_host, &smap);
      gst_buffer_unref (solo_host);
      gst_buffer_unref (solo);
    }
    gst_buffer_unmap (host, &map);
    gst_buffer_unref (host);
  }

  if (stream) {
    fail_unless (gst_cuda_context_push (context));
    gst_cuda_result (CuStreamDestroy (stream));
    gst_cuda_context_pop (NULL);
  }
  for (i = 0; i < n; i++)
    gst_clear_object (&convs[i]);
  for (i = 0; i < n * rounds; i++)
    gst_clear_buffer (&ins[i]);
  for (r = 0; r < rounds; r++)
    gst_buffer_unref (batches[r]);
  g_free (convs);
  g_free (ins);
  g_free (batches);
  gst_caps_unref (out);
  return first_launches;
}

#define F32_640(features, n) "other/tensors" features ",format=static," \
  "num_tensors=1,types=float32,layout=NCHW,dimensions=640:640:3:" #n
#define U8_77x45(features, n) "other/tensors" features ",format=static," \
  "num_tensors=1,types=uint8,layout=NHWC,dimensions=3:77:45:" #n
#define GRAY_F32_77x45(features, n) "other/tensors" features \
  ",format=static,num_tensors=1,types=float32,layout=NCHW," \
  "dimensions=77:45:1:" #n

/* The batch of gst_cuda_cache_converter_convert_batch (): each slot what
 * its converter makes of its frame alone, to the byte, in one launch where
 * the slots share a kernel and one per kernel where they do not. */
GST_START_TEST (test_batch_launches_per_kernel)
{
  static const BatchSlot same[] = {
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
  };
  /* every kind of slot: formats the kernels read, the stand-ins' (4:2:2,
   * 16-bit), a preset, a source rectangle, unaligned rows (the
   * tiled kernel instead of the direct one), odd sizes, sizes alike in
   * kernel but not in grid, absent slots */
  static const BatchSlot mixed[] = {
    {GST_VIDEO_FORMAT_NV12, 37, 23},
    {GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_I420, 128, 72},
    {GST_VIDEO_FORMAT_RGBA, 40, 40},
    {GST_VIDEO_FORMAT_RGB, 301, 199},
    {GST_VIDEO_FORMAT_YUY2, 64, 48},
    {GST_VIDEO_FORMAT_NV12, 1281, 723, NULL, {0,}, TRUE},
    {GST_VIDEO_FORMAT_NV12, 1280, 720},
    {GST_VIDEO_FORMAT_NV12, 641, 359},
    {GST_VIDEO_FORMAT_BGRx, 100, 60, "area"},
    {GST_VIDEO_FORMAT_P010_10LE, 64, 48},
    {GST_VIDEO_FORMAT_I420, 320, 240, NULL, {33, 17, 101, 75}},
    {GST_VIDEO_FORMAT_RGBA, 4000, 3, NULL},
    {GST_VIDEO_FORMAT_UNKNOWN},
  };
  /* the resampling presets: a kernel per group of kinds (nearest,
   * OpenCV's two taps, area, Pillow's: all 4 here, whatever the output's
   * size) whatever the input format and geometry (odd sizes, a source
   * rectangle, unaligned rows, a stand-in's frame, absent slots) */
  static const BatchSlot presets[] = {
    {GST_VIDEO_FORMAT_NV12, 1920, 1080, "bilinear"},
    {GST_VIDEO_FORMAT_I420, 321, 241, "area"},
    {GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_RGBA, 640, 480, "nearest"},
    {GST_VIDEO_FORMAT_RGB, 97, 55, "antialias"},
    {GST_VIDEO_FORMAT_BGRx, 154, 90, "area"},
    {GST_VIDEO_FORMAT_NV12, 1281, 723, "area", {0,}, TRUE},
    {GST_VIDEO_FORMAT_NV12, 640, 360, "bilinear", {33, 17, 301, 175}},
    {GST_VIDEO_FORMAT_YUY2, 64, 48, "antialias"},
    {GST_VIDEO_FORMAT_I420, 7, 5, "bilinear"},
  };
  /* the stand-ins and the presets, one frame per converter */
  static const BatchSlot stand_ins[] = {
    {GST_VIDEO_FORMAT_YUY2, 37, 23, "area"},
    {GST_VIDEO_FORMAT_YUY2, 37, 23, "nearest"},
    {GST_VIDEO_FORMAT_UYVY, 37, 23},
    {GST_VIDEO_FORMAT_P010_10LE, 38, 22, "bilinear"},
    {GST_VIDEO_FORMAT_I420, 37, 23, "area"},
  };
  guint launches;

  launches = check_batch (same, G_N_ELEMENTS (same),
      F32_640 ("(memory:CUDAMemory)", 1), F32_640 ("(memory:CUDAMemory)", 8),
      640 * 640 * 3 * 4, 1);
  fail_unless_equals_int (launches, 1);

  launches = check_batch (mixed, G_N_ELEMENTS (mixed),
      U8_77x45 ("(memory:CUDAMemory)", 1),
      U8_77x45 ("(memory:CUDAMemory)", 14), 77 * 45 * 3, 1);
  GST_INFO ("%u launches for the mixed batch", launches);
  /* fewer launches than frames: the slots of one kernel share theirs */
  fail_unless (launches >= 2 && launches < 12, "%u launches", launches);

  /* batches launched one after another before the first is waited for,
   * as cudacachebatch sends them: each slot still its frame's alone,
   * whatever the next batch writes into the converters' own frames */
  fail_unless (check_batch (mixed, G_N_ELEMENTS (mixed),
          U8_77x45 ("(memory:CUDAMemory)", 1),
          U8_77x45 ("(memory:CUDAMemory)", 14), 77 * 45 * 3, 3) >= 2);
  fail_unless (check_batch (stand_ins, G_N_ELEMENTS (stand_ins),
          U8_77x45 ("(memory:CUDAMemory)", 1),
          U8_77x45 ("(memory:CUDAMemory)", 5), 77 * 45 * 3, 4) >= 1);

  /* a batch of presets is a launch per group of kinds, into 3-channel
   * tensors and gray, once and launched again before the first is waited
   * for */
  fail_unless_equals_int (check_batch (presets, G_N_ELEMENTS (presets),
          U8_77x45 ("(memory:CUDAMemory)", 1),
          U8_77x45 ("(memory:CUDAMemory)", 10), 77 * 45 * 3, 1), 4);
  fail_unless_equals_int (check_batch (presets, G_N_ELEMENTS (presets),
          GRAY_F32_77x45 ("(memory:CUDAMemory)", 1),
          GRAY_F32_77x45 ("(memory:CUDAMemory)", 10), 77 * 45 * 4, 3), 4);
  fail_unless_equals_int (check_batch (presets, G_N_ELEMENTS (presets),
          F32_640 ("(memory:CUDAMemory)", 1),
          F32_640 ("(memory:CUDAMemory)", 10), 640 * 640 * 3 * 4, 1), 4);
}

GST_END_TEST;

/* A converter set up again for other caps converts as one made for them:
 * through a sequence of formats and sizes (the stand-ins', odd and 1x1
 * ones, with each resampling method), each frame converted by one
 * converter reconfigured along the sequence and by a new one, alone and
 * as the two slots of a batch, all equal to the byte. */
GST_START_TEST (test_reconfigured_converter_equals_a_new_one)
{
  static const BatchSlot steps[] = {
    {GST_VIDEO_FORMAT_NV12, 40, 40},
    {GST_VIDEO_FORMAT_UYVY, 1, 1},
    {GST_VIDEO_FORMAT_UYVY, 37, 23},
    {GST_VIDEO_FORMAT_YUY2, 37, 23},
    {GST_VIDEO_FORMAT_I420, 2, 2},
    {GST_VIDEO_FORMAT_YUY2, 1, 1},
    {GST_VIDEO_FORMAT_P010_10LE, 38, 22},
    {GST_VIDEO_FORMAT_UYVY, 1, 1},
    {GST_VIDEO_FORMAT_RGBA, 1, 1},
    {GST_VIDEO_FORMAT_YUY2, 37, 23},
  };
  static const gchar *const methods[] = { NULL, "area", "nearest",
    "bilinear"
  };
  const gchar *slot_caps = U8_77x45 ("(memory:CUDAMemory)", 1);
  const gchar *batch_caps = U8_77x45 ("(memory:CUDAMemory)", 2);
  gsize slot_size = 77 * 45 * 3;
  GstCaps *out = gst_caps_from_string (slot_caps);
  guint m, k;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    GstCudaCacheConverter *again = NULL;

    for (k = 0; k < G_N_ELEMENTS (steps); k++) {
      BatchSlot sl = steps[k];
      GstCudaCacheConverter *fresh, *convs[2];
      GstBuffer *frame, *a, *b, *batch, *ins[2], *ha, *hb, *hbatch;
      GstMapInfo ma, mb, mbatch;
      GError *error = NULL;
      gsize i;

      sl.method = methods[m];
      fresh = batch_slot_converter (&sl, out);
      if (!again) {
        again = batch_slot_converter (&sl, out);
      } else {
        GstCudaCacheConverter *model = batch_slot_converter (&sl, out);
        GstVideoInfo info;
        GstCaps *in;

        gst_video_info_set_format (&info, sl.format, sl.width, sl.height);
        in = gst_video_info_to_caps (&info);
        gst_caps_set_features_simple (in,
            gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
        fail_unless (gst_cuda_cache_converter_reconfigure (again, in, out,
                gst_cuda_cache_converter_get_config (model), &error), "%s",
            error ? error->message : "");
        gst_caps_unref (in);
        gst_object_unref (model);
      }
      frame = batch_slot_frame (&sl, k, m);
      a = acquire_of (slot_caps);
      b = acquire_of (slot_caps);
      batch = acquire_of (batch_caps);
      fail_unless (gst_cuda_cache_converter_convert_buffer (fresh, frame, a,
              NULL, &error), "%s", error ? error->message : "");
      fail_unless (gst_cuda_cache_converter_convert_buffer (again, frame, b,
              NULL, &error), "%s", error ? error->message : "");
      convs[0] = fresh;
      convs[1] = again;
      ins[0] = ins[1] = frame;
      fail_unless (gst_cuda_cache_converter_convert_batch (convs, ins, 2,
              batch, NULL, NULL, &error), "%s", error ? error->message : "");
      ha = download_tensor (a);
      hb = download_tensor (b);
      hbatch = download_tensor (batch);
      fail_unless (gst_buffer_map (ha, &ma, GST_MAP_READ));
      fail_unless (gst_buffer_map (hb, &mb, GST_MAP_READ));
      fail_unless (gst_buffer_map (hbatch, &mbatch, GST_MAP_READ));
      for (i = 0; i < slot_size; i++) {
        fail_unless (mb.data[i] == ma.data[i], "%s, step %u (%dx%d %s): "
            "reconfigured, byte %" G_GSIZE_FORMAT " is %u, new %u",
            methods[m] ? methods[m] : "linear", k, sl.width, sl.height,
            gst_video_format_to_string (sl.format), i, mb.data[i], ma.data[i]);
        fail_unless (mbatch.data[i] == ma.data[i] &&
            mbatch.data[slot_size + i] == ma.data[i], "%s, step %u (%dx%d "
            "%s): batched, byte %" G_GSIZE_FORMAT " is %u and %u, alone %u",
            methods[m] ? methods[m] : "linear", k, sl.width, sl.height,
            gst_video_format_to_string (sl.format), i, mbatch.data[i],
            mbatch.data[slot_size + i], ma.data[i]);
      }
      gst_buffer_unmap (ha, &ma);
      gst_buffer_unmap (hb, &mb);
      gst_buffer_unmap (hbatch, &mbatch);
      gst_buffer_unref (ha);
      gst_buffer_unref (hb);
      gst_buffer_unref (hbatch);
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      gst_buffer_unref (batch);
      gst_buffer_unref (frame);
      gst_object_unref (fresh);
    }
    gst_object_unref (again);
  }
  gst_caps_unref (out);
}

GST_END_TEST;

/* Runs @desc to its end with the test's context given to the pipeline */
static void
run_in_context (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  cudacache_run_pipeline (pipeline, context);
  gst_object_unref (pipeline);
}

/* Batch tensors, the slots' frames and the conversions' tables are blocks
 * of the device's cache: once a pad's sizes, the batch sizes and the
 * conversions have been seen, running them again in the context
 * allocates nothing, and nothing stays in use after the pipeline stops. Pads of three sizes, one
 * of them changing size twice, one ending early (its slot absent), into
 * batches of 3 and, in a second pipeline, of 4. */
GST_START_TEST (test_batch_seen_layouts_allocate_nothing)
{
  static const gchar *const descs[] = {
    "cudacachebatch name=b letterbox=true scale=0.00392156862745098 ! "
        F32_640 ("(memory:CUDAMemory)", 3) " ! fakesink "
        "videotestsrc num-buffers=6 ! video/x-raw,format=NV12,width=1920,"
        "height=1080 ! cudaupload ! b.sink_0 "
        "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=641,"
        "height=359 ! cudaupload ! b.sink_1 "
        "concat name=c ! cudaupload ! b.sink_2 "
        "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=1280,"
        "height=720 ! c. videotestsrc num-buffers=2 ! video/x-raw,"
        "format=NV12,width=320,height=240 ! c. videotestsrc num-buffers=2 ! "
        "video/x-raw,format=NV12,width=1280,height=720 ! c.",
    "cudacachebatch name=b batch-size=4 ! "
        U8_77x45 ("(memory:CUDAMemory)", 4) " ! fakesink "
        "videotestsrc num-buffers=4 ! video/x-raw,format=RGBA,width=99,"
        "height=51 ! cudaupload ! b.sink_0 "
        "videotestsrc num-buffers=4 ! video/x-raw,format=YUY2,width=64,"
        "height=48 ! cudaupload ! b.sink_1",
  };
  GstCudaCache *cache = gst_cuda_cache_device_get_cache (context);
  /* a context's idle blocks go with its last pool: this one stands for
   * the rest of an application that goes on using the context between
   * the pipelines */
  GstBufferPool *user = gst_cuda_cache_pool_new (context);
  GstCudaCacheStats seen, again;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++)
    run_in_context (descs[i]);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &seen);
  fail_unless (seen.misses > 0);

  for (i = 0; i < G_N_ELEMENTS (descs); i++)
    run_in_context (descs[i]);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &again);
  /* no batch, slot or table allocated again; the frames in flight at
   * once depend on timing (a batch is sent once the next is launched,
   * keeping its frames until then), so a pool may take one frame more a
   * stream: at most one block per pad, none the size of a batch */
  fail_unless (again.misses - seen.misses <= 5, "%" G_GUINT64_FORMAT
      " blocks allocated again", again.misses - seen.misses);
  fail_unless (again.current_size - seen.current_size <
      (guint64) 640 * 640 * 3 * 4 * 3, "%" G_GUINT64_FORMAT " bytes more",
      again.current_size - seen.current_size);
  fail_unless (again.hits > seen.hits);
  fail_unless_equals_uint64 (again.used_bytes, 0);

  gst_object_unref (user);
  gst_object_unref (cache);
}

GST_END_TEST;

/* cudacachebatch mode=rois on CUDA memory: every slot the region of the
 * frame the kernels convert alone (the region as the source rectangle),
 * regions clipped, skipped and spread over two batches as on the CPU */
GST_START_TEST (test_batch_rois_are_solo_conversions)
{
  static const BatchRegion regions[] = {
    {"face", 1, 50, 40, 30, 30}, {"face", 2, 1, 1, 1, 1},
    {"face", 3, 70, 10, 5, 5}, {"face", 4, 0, 0, 61, 47},
    {"face", 5, 20, 13, 9, 30},
  };
  static const BatchRegion kept[] = {
    {"face", 1}, {"face", 2}, {"face", 4}, {"face", 5},
  };
  static const GstVideoRectangle boxes[] = {
    {50, 40, 11, 7}, {1, 1, 1, 1}, {0, 0, 61, 47}, {20, 13, 9, 30},
  };
  const gchar *sys_caps = "video/x-raw,format=I420,width=61,height=47";
  const gchar *dev_caps = "video/x-raw(memory:CUDAMemory),format=I420,"
      "width=61,height=47,framerate=30/1";
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GstCaps *caps = gst_caps_from_string (sys_caps);
  GstBuffer *sys, *dev, *out;
  GstVideoInfo info;
  GstHarness *h;
  guint i;

  gst_util_set_object_arg (G_OBJECT (batch), "mode", "rois");
  g_object_set (batch, "batch-size", 3, "letterbox", TRUE, "fill-value", 114,
      NULL);
  h = gst_harness_new_with_element (batch, "sink_0", "src");
  gst_object_unref (batch);
  gst_harness_set_live (h, FALSE);
  gst_harness_set_src_caps_str (h, dev_caps);
  gst_harness_set_sink_caps_str (h, U8_NHWC ("(memory:CUDAMemory)", 3));

  fail_unless (gst_video_info_from_caps (&info, caps));
  sys = batch_region_frame (sys_caps, 0, regions, G_N_ELEMENTS (regions));
  dev = upload (sys, &info);
  GST_BUFFER_PTS (dev) = GST_BUFFER_PTS (sys);
  GST_BUFFER_DURATION (dev) = GST_BUFFER_DURATION (sys);
  for (i = 0; i < G_N_ELEMENTS (regions); i++)
    gst_buffer_add_video_region_of_interest_meta (dev, regions[i].type,
        regions[i].x, regions[i].y, regions[i].w,
        regions[i].h)->id = regions[i].id;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (dev)),
      GST_FLOW_OK);

  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
  batch_check_regions (out, dev, dev_caps, U8_NHWC ("(memory:CUDAMemory)",
          1), context, 3, kept, boxes, 3);
  gst_buffer_unref (out);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  batch_check_regions (out, dev, dev_caps, U8_NHWC ("(memory:CUDAMemory)",
          1), context, 3, kept + 3, boxes + 3, 1);
  gst_buffer_unref (out);

  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames of pad 1 (sink_4) from its third on from @bad (NULL: system
 * memory), the others' from @good, a pool of the pipeline's context */
typedef struct
{
  GstBufferPool *good, *bad;
} BatchPools;

static GstBufferPool *
batch_frame_pool (GstCudaContext * ctx)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=32,height=24");

  gst_buffer_pool_config_set_params (config, caps, BATCH_FRAME_SIZE, 0, 0);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

static GstBuffer *
make_batch_frame (GstAppSrc * src, guint pad, guint frame, gpointer user_data)
{
  BatchPools *pools = user_data;
  GstBufferPool *pool = pools->good;
  GstBuffer *buf = NULL;

  if (pad == 1 && frame >= 2) {
    if (!pools->bad)
      return gst_buffer_new_allocate (NULL, BATCH_FRAME_SIZE, NULL);
    pool = pools->bad;
  }
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  return buf;
}

/* A pad whose frames are not of the batch's memory is refused, the error
 * naming it: frames of system memory into CUDA batches (caps that say
 * CUDA memory, as a careless source might), and CUDA memory of another
 * context than the pipeline's. The other pads' batches before it went out
 * whole (batch_check_names_sink_4 () says what becomes of the rest). */
GST_START_TEST (test_batch_refuses_frames_of_other_memory)
{
  GstCudaContext *other = gst_cuda_context_new (0);
  GstContext *shared = gst_context_new_cuda_context (context);
  BatchPools pools = { batch_frame_pool (context), NULL };
  guint batches;
  gchar *error;

  error = batch_run_three_pads ("(memory:CUDAMemory)", shared,
      make_batch_frame, &pools, &batches);
  batch_check_names_sink_4 (error, batches, 2, "frames in system memory");
  g_free (error);

  fail_unless (other != NULL);
  pools.bad = batch_frame_pool (other);
  error = batch_run_three_pads ("(memory:CUDAMemory)", shared,
      make_batch_frame, &pools, &batches);
  batch_check_names_sink_4 (error, batches, 2, "another CUDA context");
  g_free (error);

  gst_buffer_pool_set_active (pools.bad, FALSE);
  gst_buffer_pool_set_active (pools.good, FALSE);
  gst_object_unref (pools.bad);
  gst_object_unref (pools.good);
  gst_context_unref (shared);
  gst_object_unref (other);
}

GST_END_TEST;

/* cudacachebatch on CUDA memory in running time, and a request (a frame
 * per pad) answered with its own batch at once, not held back for the
 * next request (cudacache-batch.h) */
GST_START_TEST (test_batch_answers_each_request)
{
  GstVideoInfo info;
  GstBuffer *sys = cudacache_make_picture (GST_VIDEO_FORMAT_NV12, 64, 48,
      &info);
  GstBuffer *dev = upload (sys, &info);
  GstContext *ctx = gst_context_new_cuda_context (context);

  batch_check_time (dev, "video/x-raw(memory:CUDAMemory),format=NV12,"
      "width=64,height=48,framerate=30/1",
      U8_NHWC ("(memory:CUDAMemory)", 2), ctx);
  gst_context_unref (ctx);
  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
}

GST_END_TEST;

/* cudacachebatch stopped lets go of its context and pools: the same
 * element runs again in another pipeline whose frames are of another
 * context, and gives the same batches */
GST_START_TEST (test_batch_reused_with_another_context)
{
  GstCudaContext *contexts[2] = { context,
    gst_cuda_cache_device_open_context (0)
  };
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GBytes *first = NULL;
  guint run;

  fail_unless (contexts[1] != NULL && contexts[1] != contexts[0]);
  gst_object_ref_sink (batch);
  for (run = 0; run < 2; run++) {
    GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 "
        "pattern=ball ! video/x-raw,format=NV12,width=64,height=48,"
        "framerate=30/1 ! cudaupload name=up ! capsfilter name=in "
        "caps=video/x-raw(memory:CUDAMemory) capsfilter name=out caps="
        "\"" U8_NHWC ("(memory:CUDAMemory)", 1) "\" ! appsink name=sink "
        "sync=false", NULL);
    GstElement *in = gst_bin_get_by_name (GST_BIN (pipeline), "in");
    GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstContext *ctx = gst_context_new_cuda_context (contexts[run]);
    GstSample *sample;
    GstMapInfo map;
    GBytes *last = NULL;

    gst_element_set_context (pipeline, ctx);
    gst_context_unref (ctx);
    gst_bin_add (GST_BIN (pipeline), gst_object_ref (batch));
    fail_unless (gst_element_link (in, batch) && gst_element_link (batch, out));
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    while (TRUE) {
      g_signal_emit_by_name (sink, "pull-sample", &sample);
      if (!sample)
        break;
      fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
              GST_MAP_READ));
      if (last)
        g_bytes_unref (last);
      last = g_bytes_new (map.data, map.size);
      gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      gst_sample_unref (sample);
    }
    {
      GstMessage *msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
          GST_MESSAGE_ERROR);
      GError *err = NULL;

      if (msg)
        gst_message_parse_error (msg, &err, NULL);
      fail_unless (msg == NULL, "run %u: %s", run, err ? err->message : "");
    }
    fail_unless (last != NULL, "run %u: no batch", run);
    if (!first)
      first = g_bytes_ref (last);
    else
      fail_unless (g_bytes_equal (first, last), "the element reused with "
          "another context gives other batches");
    g_bytes_unref (last);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_element_unlink (in, batch);
    gst_element_unlink (batch, out);
    gst_bin_remove (GST_BIN (pipeline), batch);
    gst_object_unref (in);
    gst_object_unref (out);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }
  g_bytes_unref (first);
  gst_object_unref (batch);
  gst_object_unref (contexts[1]);
}

GST_END_TEST;

/* Tensors of CUDA memory mapped on the CPU, as filesink, appsink and NumPy
 * read them: every size in bytes, dtype, layout and channel count, from
 * cudacacheconvert and cudacachebatch, read against the CPU path's tensor
 * and written back to the device. */

/* A sample of appsink @name of @pipeline */
static GstSample *
pull_from (GstElement * pipeline, const gchar * name)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstSample *sample = NULL;

  g_signal_emit_by_name (sink, "pull-sample", &sample);
  gst_object_unref (sink);
  fail_unless (sample != NULL, "no sample from %s", name);
  return sample;
}

/* Tensors of CUDA memory read and written on the CPU, as filesink, appsink
 * and NumPy consumers read them: every size in bytes (odd, 2 or 0 past a
 * multiple of 4), each dtype, layout and channel count, single frames and
 * batches. Each maps for reading at exactly the tensor's bytes, equal to
 * the CPU path's tensor within rounding; a write through the CPU map
 * reaches the device. */
GST_START_TEST (test_tensors_of_any_size_map_on_cpu)
{
  static const struct
  {
    const gchar *element;
    const gchar *types, *layout, *dims;
  } classes[] = {
    {"cudacacheconvert", "uint8", "NHWC", "3:299:299:1"},
    {"cudacacheconvert", "uint8", "NHWC", "1:299:299:1"},
    {"cudacacheconvert", "uint8", "NHWC", "3:300:299:1"},
    {"cudacacheconvert", "uint8", "NCHW", "257:129:3:1"},
    {"cudacacheconvert", "uint8", "NCHW", "5:3:1:1"},
    {"cudacacheconvert", "float16", "NCHW", "299:299:3:1"},
    {"cudacacheconvert", "float16", "NHWC", "1:3:5:1"},
    {"cudacacheconvert", "float32", "NHWC", "3:517:311:1"},
    {"cudacacheconvert", "float32", "NCHW", "7:5:1:1"},
    {"cudacachebatch", "uint8", "NHWC", "3:299:299:2"},
    {"cudacachebatch", "float16", "NCHW", "37:23:1:2"},
    {"cudacachebatch", "float32", "NHWC", "1:37:23:3"},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (classes); c++) {
    gboolean batch = g_str_equal (classes[c].element, "cudacachebatch");
    const gchar *src = "videotestsrc num-buffers=1 pattern=ball ! "
        "video/x-raw,format=NV12,width=640,height=480,framerate=30/1";
    gchar *tensor = g_strdup_printf ("format=static,num_tensors=1,types=%s,"
        "layout=%s,dimensions=%s", classes[c].types, classes[c].layout,
        classes[c].dims);
    /* the device's tensors are written in place below: without
     * GStreamer's tensor meta (1.26+), whose data would share their memory
     * and make a write map copy it (docs/elements.md) */
    gchar *desc = batch ?
        g_strdup_printf ("cudacachebatch name=g tensor-meta=false "
        "batch-size=%c ! "
        "other/tensors(memory:CUDAMemory),%s ! appsink name=gpu "
        "cudacachebatch name=c batch-size=%c ! other/tensors,%s ! "
        "appsink name=cpu %s ! tee name=t t. ! queue ! cudaupload ! g. "
        "t. ! queue ! c.", classes[c].dims[strlen (classes[c].dims) - 1],
        tensor, classes[c].dims[strlen (classes[c].dims) - 1], tensor, src) :
        g_strdup_printf ("%s ! tee name=t t. ! queue ! cudaupload ! "
        "cudacacheconvert tensor-meta=false ! "
        "other/tensors(memory:CUDAMemory),%s ! "
        "appsink name=gpu t. ! queue ! cudacacheconvert ! other/tensors,%s ! "
        "appsink name=cpu", src, tensor, tensor);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstCudaCacheTensorInfo info;
    GstSample *gpu, *cpu;
    GstBuffer *gbuf, *back;
    GstMemory *mem;
    GstMapInfo gmap, cmap, bmap;
    gdouble worst = 0, tolerance;
    gsize i, n;
    guint8 first, last;
    GstCaps *caps;

    fail_unless (pipeline != NULL, "%s", desc);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    gpu = pull_from (pipeline, "gpu");
    cpu = pull_from (pipeline, "cpu");
    caps = gst_sample_get_caps (cpu);
    fail_unless (gst_cuda_cache_tensor_info_from_caps (&info, caps));
    gbuf = gst_sample_get_buffer (gpu);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (gbuf, 0)));
    fail_unless_equals_uint64 (gst_buffer_get_size (gbuf), info.size);

    /* read on the CPU, as filesink and NumPy do */
    fail_unless (gst_buffer_map (gbuf, &gmap, GST_MAP_READ), "%s: a CUDA "
        "tensor of %" G_GSIZE_FORMAT " bytes cannot be read on the CPU", desc,
        info.size);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (cpu), &cmap,
            GST_MAP_READ));
    fail_unless_equals_uint64 (gmap.size, info.size);
    tolerance = info.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16 ? 1.0 +
        SLACK_F16 : 1.0 + SLACK;
    n = info.size / gst_cuda_cache_tensor_dtype_get_size (info.dtype);
    for (i = 0; i < n; i++) {
      gdouble a, b;

      if (info.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F32) {
        a = ((const gfloat *) gmap.data)[i];
        b = ((const gfloat *) cmap.data)[i];
      } else if (info.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16) {
        a = half_to_float (((const guint16 *) gmap.data)[i]);
        b = half_to_float (((const guint16 *) cmap.data)[i]);
      } else {
        a = gmap.data[i];
        b = cmap.data[i];
      }
      worst = MAX (worst, fabs (a - b));
    }
    gst_buffer_unmap (gst_sample_get_buffer (cpu), &cmap);
    gst_buffer_unmap (gbuf, &gmap);
    fail_unless (worst <= tolerance, "%s: %.3f levels from the CPU path's "
        "tensor", desc, worst);

    /* written on the CPU, as a system-memory element would: the device
     * sees the write */
    mem = gst_buffer_peek_memory (gbuf, 0);
    fail_unless (gst_memory_map (mem, &gmap, GST_MAP_READWRITE));
    first = gmap.data[0] ^ 0xa5;
    last = gmap.data[info.size - 1] ^ 0x5a;
    gmap.data[0] = first;
    gmap.data[info.size - 1] = last;
    gst_memory_unmap (mem, &gmap);
    back = download_tensor (gbuf);
    fail_unless (gst_buffer_map (back, &bmap, GST_MAP_READ));
    fail_unless (bmap.data[0] == first && bmap.data[info.size - 1] == last,
        "%s: a CPU write did not reach the device", desc);
    fail_unless (gst_buffer_map (gbuf, &gmap, GST_MAP_READ));
    fail_unless (memcmp (bmap.data, gmap.data, info.size) == 0, "%s: the "
        "device and the CPU map differ after a CPU write", desc);
    gst_buffer_unmap (gbuf, &gmap);
    gst_buffer_unmap (back, &bmap);
    gst_buffer_unref (back);

    g_print ("%s %s: %" G_GSIZE_FORMAT " bytes read and written on the CPU, "
        "worst %.3f levels from the CPU path\n", classes[c].element, tensor,
        info.size, worst);
    gst_sample_unref (gpu);
    gst_sample_unref (cpu);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (desc);
    g_free (tensor);
  }
}

GST_END_TEST;

static Suite *
cudaconvert_suite (void)
{
  Suite *s = suite_create ("cudaconvert");
  TCase *tc = tcase_create ("gpu");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, cudacache_gpu_setup, cudacache_gpu_teardown);
  tcase_add_test (tc, test_kernels_match_cpu_reference);
  tcase_add_test (tc, test_random_geometries_match_cpu);
  tcase_add_test (tc, test_16bit_input_matches_nv12);
  tcase_add_test (tc, test_webcam_and_gray_formats);
  tcase_add_test (tc, test_p010_pipeline);
  tcase_add_test (tc, test_direct_and_tiled_kernels_agree);
  tcase_add_test (tc, test_threads_wait_for_their_own_frames);
  tcase_add_test (tc, test_yuv_closer_to_the_picture);
  tcase_add_test (tc, test_cuda_pipeline_renegotiation);
  tcase_add_test (tc, test_presets_pipeline_renegotiation);
  tcase_add_test (tc, test_tensor_pipeline);
  tcase_add_test (tc, test_batch_slots_are_solo_conversions);
  tcase_add_test (tc, test_batch_launches_per_kernel);
  tcase_add_test (tc, test_reconfigured_converter_equals_a_new_one);
  tcase_add_test (tc, test_batch_seen_layouts_allocate_nothing);
  tcase_add_test (tc, test_batch_rois_are_solo_conversions);
  tcase_add_test (tc, test_batch_refuses_frames_of_other_memory);
  tcase_add_test (tc, test_letterbox_fill_and_position);
  tcase_add_test (tc, test_crop_meta_reads_the_region);
  tcase_add_test (tc, test_presets_match_cpu_path);
  tcase_add_test (tc, test_presets_read_crops);
  tcase_add_test (tc, test_nvh264dec_takes_the_pool);
  tcase_add_test (tc, test_tensors_of_any_size_map_on_cpu);
  tcase_add_test (tc, test_crop_matrix_on_cuda_memory);
  tcase_add_test (tc, test_batch_crop_matrix_on_cuda_memory);
  tcase_add_test (tc, test_batch_answers_each_request);
  tcase_add_test (tc, test_batch_reused_with_another_context);

  return s;
}

CUDACACHE_CHECK_GPU_MAIN (cudaconvert);
