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

#include "../cudaconvert-gpu-crops.h"
#include "../cudaconvert-gpu-presets.h"

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

#include "../cudaconvert-gpu-threads.h"
#include "../cudaconvert-gpu-batch.h"
#include "../cudaconvert-gpu-tensor-maps.h"

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
