/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The elements on CUDA memory: every conversion path of cudacacheconvert's
 * kernels against its CPU path (GstVideoConverter and the packing loop),
 * renegotiation in a CUDA pipeline, and NVDEC output through
 * cudacacheidentity. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include "../cudacache-check-gpu.h"
#include "../cudacache-pipeline.h"

#define IN_W 320
#define IN_H 240

/* The picture every case starts from: gradients, so that two correct
 * bilinear scalers differ only by rounding. */
static void
fill_picture (GstVideoFrame * frame)
{
  gint x, y;

  for (y = 0; y < IN_H; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);

    for (x = 0; x < IN_W; x++) {
      row[4 * x] = 20 + 200 * x / (IN_W - 1);
      row[4 * x + 1] = 30 + 180 * y / (IN_H - 1);
      row[4 * x + 2] = 40 + 100 * (x + y) / (IN_W + IN_H);
      row[4 * x + 3] = 255;
    }
  }
}

/* The picture in @format. */
static GstBuffer *
make_input (GstVideoFormat format, GstVideoInfo * info)
{
  GstVideoInfo rgba_info;
  GstVideoFrame src, dst;
  GstVideoConverter *conv;
  GstBuffer *rgba, *buf;

  gst_video_info_set_format (&rgba_info, GST_VIDEO_FORMAT_RGBA, IN_W, IN_H);
  rgba = gst_buffer_new_allocate (NULL, rgba_info.size, NULL);
  fail_unless (gst_video_frame_map (&src, &rgba_info, rgba, GST_MAP_WRITE));
  fill_picture (&src);

  gst_video_info_set_format (info, format, IN_W, IN_H);
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_video_frame_map (&dst, info, buf, GST_MAP_WRITE));
  conv = gst_video_converter_new (&rgba_info, info, NULL);
  gst_video_converter_frame (conv, &src, &dst);
  gst_video_converter_free (conv);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  gst_buffer_unref (rgba);

  return buf;
}

/* The same frame in CUDA memory of the test's context. */
static GstBuffer *
upload (GstBuffer * sys, const GstVideoInfo * info)
{
  GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  GstMemory *mem;
  GstCudaMemory *cmem;
  GstBuffer *buf = gst_buffer_new ();
  GstVideoFrame src, dst;

  fail_unless (allocator != NULL);
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (allocator), context,
      info);
  fail_unless (mem != NULL);
  gst_object_unref (allocator);
  cmem = GST_CUDA_MEMORY_CAST (mem);

  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      cmem->info.offset, cmem->info.stride);
  fail_unless (gst_video_frame_map (&src, info, sys, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, &cmem->info, buf, GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&dst, &src));
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);

  return buf;
}

typedef struct
{
  const gchar *out;             /* output caps without the feature */
  gboolean letterbox;
  const gchar *order;
  gdouble scale;
} Path;

static const Path paths[] = {
  {"video/x-raw,format=RGBA,width=320,height=240", FALSE, "rgb", 1.0},
  {"video/x-raw,format=BGR,width=200,height=150", FALSE, "rgb", 1.0},
  {"video/x-raw,format=BGRx,width=480,height=360", FALSE, "rgb", 1.0},
  {"video/x-raw,format=NV12,width=200,height=150", FALSE, "rgb", 1.0},
  {"video/x-raw,format=I420,width=320,height=240", FALSE, "rgb", 1.0},
  {"video/x-raw,format=RGB,width=160,height=160", TRUE, "rgb", 1.0},
  {"other/tensors,format=static,num_tensors=1,types=float32,"
        "dimensions=160:160:3:1,layout=NCHW", TRUE, "rgb", 1.0 / 255.0},
  {"other/tensors,format=static,num_tensors=1,types=uint8,"
        "dimensions=3:320:240:1,layout=NHWC", FALSE, "bgr", 1.0},
  {"other/tensors,format=static,num_tensors=1,types=float16,"
        "dimensions=200:150:3:1,layout=NCHW", FALSE, "bgr", 1.0 / 255.0},
};

static GstBuffer *
convert (GstBuffer * in, const gchar * in_caps, const Path * path,
    gboolean cuda)
{
  GstElement *e = gst_element_factory_make ("cudacacheconvert", NULL);
  gchar *out_caps = g_strdup (path->out);
  GstHarness *h;
  GstBuffer *out;

  fail_unless (e != NULL);
  g_object_set (e, "letterbox", path->letterbox, "fill-value", 114, "scale",
      path->scale, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "channel-order", path->order);
  if (cuda) {
    GstContext *ctx = gst_context_new_cuda_context (context);
    gchar *tmp = out_caps;
    const gchar *comma = strchr (tmp, ',');

    gst_element_set_context (e, ctx);
    gst_context_unref (ctx);
    out_caps = g_strdup_printf ("%.*s(memory:CUDAMemory)%s",
        (gint) (comma - tmp), tmp, comma);
    g_free (tmp);
  }

  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_caps_str (h, in_caps, out_caps);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output for %s", out_caps);
  if (cuda)
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));

  gst_harness_teardown (h);
  gst_object_unref (e);
  g_free (out_caps);

  return out;
}

static gfloat
half_to_float (guint16 h)
{
  guint32 sign = (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
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

/* Largest difference, in 8-bit levels, between the two outputs. */
static gdouble
compare (GstBuffer * cpu, GstBuffer * gpu, const Path * path)
{
  GstCaps *caps = gst_caps_from_string (path->out);
  GstCudaCacheTensorInfo tensor;
  gdouble worst = 0;

  if (gst_cuda_cache_tensor_info_from_caps (&tensor, caps)) {
    GstMapInfo a, b;
    gsize n =
        tensor.size / gst_cuda_cache_tensor_dtype_get_size (tensor.dtype), i;

    fail_unless (gst_buffer_map (cpu, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (gpu, &b, GST_MAP_READ));
    for (i = 0; i < n; i++) {
      gdouble va, vb;

      switch (tensor.dtype) {
        case GST_CUDA_CACHE_TENSOR_DTYPE_U8:
          va = a.data[i];
          vb = b.data[i];
          break;
        case GST_CUDA_CACHE_TENSOR_DTYPE_F16:
          va = half_to_float (((guint16 *) a.data)[i]) / path->scale;
          vb = half_to_float (((guint16 *) b.data)[i]) / path->scale;
          break;
        default:
          va = ((gfloat *) a.data)[i] / path->scale;
          vb = ((gfloat *) b.data)[i] / path->scale;
          break;
      }
      worst = MAX (worst, fabs (va - vb));
    }
    gst_buffer_unmap (gpu, &b);
    gst_buffer_unmap (cpu, &a);
  } else {
    GstVideoInfo info;
    GstVideoFrame a, b;
    guint p, x, y;

    fail_unless (gst_video_info_from_caps (&info, caps));
    fail_unless (gst_video_frame_map (&a, &info, cpu, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, &info, gpu, GST_MAP_READ));
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      guint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&a, p);
      guint bytes = GST_VIDEO_FRAME_COMP_WIDTH (&a, p) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&a, p);

      for (y = 0; y < rows; y++) {
        const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, p) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, p);
        const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, p) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, p);

        for (x = 0; x < bytes; x++) {
          /* the padding byte of RGBx/BGRx carries nothing */
          if (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_BGRx &&
              x % 4 == 3)
            continue;
          worst = MAX (worst, fabs ((gdouble) ra[x] - rb[x]));
        }
      }
    }
    gst_video_frame_unmap (&b);
    gst_video_frame_unmap (&a);
  }
  gst_caps_unref (caps);

  return worst;
}

/* Tolerances, in 8-bit levels (measured worst on an H100 in brackets).
 * Same-size RGB to RGB is a copy: exact. Scaled RGB input: rounding of
 * GstVideoConverter's fixed-point taps against the kernels' floats (1.0).
 * YUV input: GstVideoConverter's own 8-bit YUV to RGB arithmetic is off the
 * exact BT.601 values by several levels, which the kernels compute in
 * floats (7.1); test_yuv_closer_to_the_picture checks that the kernels are
 * the closer of the two. */
#define TOLERANCE_RGB_IN 1.0
#define TOLERANCE_YUV_IN 8.0

GST_START_TEST (test_kernels_match_cpu_reference)
{
  static const GstVideoFormat inputs[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  };
  gdouble overall = 0;
  guint i, j, failures = 0;

  for (i = 0; i < G_N_ELEMENTS (inputs); i++) {
    GstVideoInfo info;
    GstBuffer *sys = make_input (inputs[i], &info);
    GstBuffer *dev = upload (sys, &info);
    gchar *sys_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1", GST_VIDEO_INFO_NAME (&info), IN_W, IN_H);
    gchar *dev_caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory),"
        "format=%s,width=%d,height=%d,framerate=30/1",
        GST_VIDEO_INFO_NAME (&info), IN_W, IN_H);

    for (j = 0; j < G_N_ELEMENTS (paths); j++) {
      GstBuffer *a = convert (sys, sys_caps, &paths[j], FALSE);
      GstBuffer *b = convert (dev, dev_caps, &paths[j], TRUE);
      gdouble worst = compare (a, b, &paths[j]);
      gboolean rgb_in = GST_VIDEO_INFO_IS_RGB (&info);
      gboolean exact = rgb_in && !paths[j].letterbox &&
          strstr (paths[j].out, "width=320,height=240") &&
          !strstr (paths[j].out, "NV12") && !strstr (paths[j].out, "I420");
      gdouble tolerance = exact ? 0.0 : rgb_in ? TOLERANCE_RGB_IN :
          TOLERANCE_YUV_IN;

      g_print ("%-5s -> %s%s: worst difference %.3f levels (tolerance "
          "%.0f)\n", GST_VIDEO_INFO_NAME (&info), paths[j].out,
          paths[j].letterbox ? " letterbox" : "", worst, tolerance);
      if (worst > tolerance)
        failures++;
      overall = MAX (overall, worst);
      gst_buffer_unref (a);
      gst_buffer_unref (b);
    }

    g_free (sys_caps);
    g_free (dev_caps);
    gst_buffer_unref (dev);
    gst_buffer_unref (sys);
  }

  g_print ("kernels vs CPU reference: %u paths, worst difference %.3f "
      "levels\n", (guint) (G_N_ELEMENTS (inputs) * G_N_ELEMENTS (paths)),
      overall);
  fail_unless_equals_int (failures, 0);
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
  fill_picture (&truth);
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

/* Back from NV12 to RGBA at the same size, against the original picture:
 * the kernels are at least as close as GstVideoConverter. */
GST_START_TEST (test_yuv_closer_to_the_picture)
{
  static const Path to_rgba = {
    "video/x-raw,format=RGBA,width=320,height=240", FALSE, "rgb", 1.0
  };
  GstVideoInfo info;
  GstBuffer *sys = make_input (GST_VIDEO_FORMAT_NV12, &info);
  GstBuffer *dev = upload (sys, &info);
  GstBuffer *cpu = convert (sys, "video/x-raw,format=NV12,width=320,"
      "height=240,framerate=30/1", &to_rgba, FALSE);
  GstBuffer *gpu = convert (dev, "video/x-raw(memory:CUDAMemory),"
      "format=NV12,width=320,height=240,framerate=30/1", &to_rgba, TRUE);
  gdouble cpu_error = error_against_picture (cpu);
  gdouble gpu_error = error_against_picture (gpu);

  g_print ("NV12 round trip, worst difference from the picture: "
      "GstVideoConverter %.0f levels, kernels %.0f levels\n", cpu_error,
      gpu_error);
  fail_unless (gpu_error <= cpu_error);

  gst_buffer_unref (gpu);
  gst_buffer_unref (cpu);
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
  fail_unless (pipeline != NULL, "x264enc or nvh264dec missing: %s",
      err ? err->message : "");
  c.cache = gst_cuda_cache_device_get_cache (context);
  cudacache_count_frames (pipeline, "id", &c);

  cudacache_run_pipeline (pipeline, context);
  fail_unless_equals_int (c.frames, 30);
  fail_unless_equals_int (c.from_cache, 30);

  gst_object_unref (c.cache);
  gst_object_unref (pipeline);
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
  tcase_add_test (tc, test_yuv_closer_to_the_picture);
  tcase_add_test (tc, test_cuda_pipeline_renegotiation);
  tcase_add_test (tc, test_tensor_pipeline);
  tcase_add_test (tc, test_nvh264dec_takes_the_pool);

  return s;
}

CUDACACHE_CHECK_GPU_MAIN (cudaconvert);
