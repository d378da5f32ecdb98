/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacacheconvert on system memory: negotiation, scaling, letterbox,
 * tensor packing and normalisation (checked numerically), renegotiation
 * from the cache, bad input. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>
#include "../cudacache-check.h"
#include "../cudacache-held.h"
#include "../cudacache-crops.h"
#include "../cudacache-pipeline-race.h"
#include "../cudacache-pipeline.h"

/* A w x h RGBA frame whose pixel (x, y) is (10x + 1, 20y + 2, 3, 255). */
static GstBuffer *
make_rgba (gint w, gint h)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, w * h * 4, NULL);
  GstMapInfo map;
  gint x, y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      guint8 *p = map.data + (y * w + x) * 4;

      p[0] = 10 * x + 1;
      p[1] = 20 * y + 2;
      p[2] = 3;
      p[3] = 255;
    }
  }
  gst_buffer_unmap (buf, &map);

  return buf;
}

static GstHarness *
harness_new (const gchar * in_caps, const gchar * out_caps)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");

  gst_harness_set_caps_str (h, in_caps, out_caps);
  return h;
}

#define RGBA_4x2 "video/x-raw,format=RGBA,width=4,height=2,framerate=30/1"

/* What webcams give: YUY2 and UYVY in, GRAY8 in and out, gray tensors,
 * in system memory; gray pixels stay gray and a YUY2 pair of one colour
 * converts to that colour (BT.601, limited range: Y 123, U 91, V 175 is
 * R 200, G 101, B 50 to the level); GRAY8 is not offered in CUDA memory
 * (GStreamer 1.22's allocator has no layout for it). */
/* Runs @description to its end; its error message, or NULL at EOS */
static gchar *
run_to_end (const gchar * description)
{
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GError *error = NULL;
  gchar *text = NULL;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", description);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: neither EOS nor an error", description);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    text = g_strdup_printf ("%s (%s)", error->message, debug);
    g_clear_error (&error);
    g_free (debug);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return text;
}

/* memory-pool=handle comes without a handle: the element fails to start
 * and says where a handle is given; the allocation methods concern CUDA
 * memory only, so without a device stream-ordered changes nothing */
GST_START_TEST (test_alloc_properties_at_start)
{
  gchar *error;

  error = run_to_end ("videotestsrc num-buffers=2 ! cudacacheconvert "
      "memory-pool=handle ! fakesink");
  fail_unless (error != NULL);
  fail_unless (strstr (error, "memory-pool=handle") != NULL, "%s", error);
  fail_unless (strstr (error, "gst_cuda_cache_set_memory_pool") != NULL, "%s",
      error);
  g_free (error);

  if (gst_cuda_cache_device_get_count () == 0) {
    error = run_to_end ("videotestsrc num-buffers=2 ! cudacacheconvert "
        "alloc-method=stream-ordered memory-pool=device-current ! "
        "video/x-raw,format=RGBA,width=32,height=16 ! fakesink");
    fail_unless (error == NULL, "%s", error);
  }
}

GST_END_TEST;

GST_START_TEST (test_webcam_and_gray_formats)
{
  static const struct
  {
    const gchar *format;
    guint8 pair[4];
  } inputs[] = {
    {"YUY2", {123, 91, 123, 175}},
    {"UYVY", {91, 123, 175, 123}},
  };
  GstElement *e = gst_element_factory_make ("cudacacheconvert", NULL);
  GstPadTemplate *templ;
  GstCaps *caps, *cuda;
  GstHarness *h;
  GstBuffer *in, *out;
  GstMapInfo map;
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (inputs); i++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=4,"
        "height=2,framerate=30/1", inputs[i].format);

    h = harness_new (in_caps, "video/x-raw,format=RGBx,width=4,height=2,"
        "framerate=30/1");
    in = gst_buffer_new_allocate (NULL, 16, NULL);
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (k = 0; k < 16; k++)
      map.data[k] = inputs[i].pair[k % 4];
    gst_buffer_unmap (in, &map);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    gst_buffer_map (out, &map, GST_MAP_READ);
    for (k = 0; k < 8; k++) {
      fail_unless (ABS (map.data[4 * k] - 200) <= 1 &&
          ABS (map.data[4 * k + 1] - 101) <= 1 &&
          ABS (map.data[4 * k + 2] - 50) <= 1, "%s pixel %u: %u %u %u",
          inputs[i].format, k, map.data[4 * k], map.data[4 * k + 1],
          map.data[4 * k + 2]);
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (in_caps);
  }

  /* GRAY8 to a gray tensor: the gray itself (full range) */
  h = harness_new ("video/x-raw,format=GRAY8,width=4,height=2,"
      "framerate=30/1", "other/tensors,format=static,num_tensors=1,"
      "types=uint8,dimensions=4:2:1:1");
  in = gst_buffer_new_allocate (NULL, 8, NULL);
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (k = 0; k < 8; k++)
    map.data[k] = 30 * k + 7;
  gst_buffer_unmap (in, &map);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_size (out), 8);
  gst_buffer_map (out, &map, GST_MAP_READ);
  for (k = 0; k < 8; k++)
    fail_unless_equals_int (map.data[k], 30 * k + 7);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* GRAY8 in system memory only */
  templ = gst_element_get_pad_template (e, "src");
  caps = gst_pad_template_get_caps (templ);
  cuda = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=GRAY8,"
      "width=4,height=2,framerate=30/1");
  fail_if (gst_caps_can_intersect (caps, cuda));
  gst_caps_unref (cuda);
  cuda = gst_caps_from_string ("video/x-raw,format=GRAY8,width=4,height=2,"
      "framerate=30/1");
  fail_unless (gst_caps_can_intersect (caps, cuda));
  gst_caps_unref (cuda);
  gst_caps_unref (caps);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_video_format_conversion)
{
  GstHarness *h = harness_new (RGBA_4x2,
      "video/x-raw,format=BGR,width=4,height=2,framerate=30/1");
  GstBuffer *out;
  GstVideoFrame frame;
  GstVideoInfo info;
  gint x, y;

  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (out != NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGR, 4, 2);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < 2; y++) {
    for (x = 0; x < 4; x++) {
      const guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + 3 * x;

      fail_unless_equals_int (p[0], 3);
      fail_unless_equals_int (p[1], 20 * y + 2);
      fail_unless_equals_int (p[2], 10 * x + 1);
    }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_scaling_negotiates_output_size)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstBuffer *in, *out;
  GstCaps *caps;
  GstVideoInfo info;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,width=32,height=24");
  in = gst_harness_create_buffer (h, 64 * 48 * 3 / 2);
  /* a picture, not uninitialised memory, for the converter to read */
  gst_buffer_memset (in, 0, 0x80, 64 * 48 * 3 / 2);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 32);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), 24);
  /* the input format is kept where downstream leaves it open */
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_FORMAT_I420);
  fail_unless_equals_uint64 (gst_buffer_get_size (out), info.size);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_letterbox)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstBuffer *in = gst_buffer_new_allocate (NULL, 8 * 4 * 4, NULL);
  GstVideoFrame frame;
  GstVideoInfo info;
  GstBuffer *out;
  gint x, y;

  g_object_set (h->element, "letterbox", TRUE, "fill-value", 114, NULL);
  gst_harness_set_caps_str (h,
      "video/x-raw,format=RGBA,width=8,height=4,framerate=30/1",
      "video/x-raw,format=RGBA,width=8,height=8,framerate=30/1");
  gst_buffer_memset (in, 0, 255, 8 * 4 * 4);
  out = gst_harness_push_and_pull (h, in);

  /* an 8x4 picture in an 8x8 frame: two rows of padding above and below */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 8, 8);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < 8; y++) {
    const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    gint expected = (y < 2 || y >= 6) ? 114 : 255;

    for (x = 0; x < 8; x++)
      fail_unless_equals_int (row[4 * x + 1], expected);
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Values, NCHW float32: (v * scale - mean) / std per RGB channel. */
GST_START_TEST (test_tensor_nchw_float32_normalised)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstCudaCacheTensorMeta *meta;
  GValue mean = G_VALUE_INIT;
  GstBuffer *out;
  GstMapInfo map;
  const gfloat *t;
  gint x, y;

  /* mean <0.5, 0.25, 0>, std <2, 4, 1>, scale 1/100 */
  gst_util_set_object_arg (G_OBJECT (h->element), "mean", "<0.5, 0.25, 0.0>");
  gst_util_set_object_arg (G_OBJECT (h->element), "std", "<2.0, 4.0, 1.0>");
  g_object_set (h->element, "scale", 0.01, NULL);
  g_value_init (&mean, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (h->element), "mean", &mean);
  fail_unless_equals_int (gst_value_array_get_size (&mean), 3);
  g_value_unset (&mean);

  gst_harness_set_caps_str (h, RGBA_4x2, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=4:2:3:1,framerate=30/1");
  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (out != NULL);
  meta = gst_buffer_get_cuda_cache_tensor_meta (out);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->info.layout, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW);

  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 3 * 2 * 4 * 4);
  t = (const gfloat *) map.data;
  for (y = 0; y < 2; y++) {
    for (x = 0; x < 4; x++) {
      gfloat r = ((10 * x + 1) * 0.01f - 0.5f) / 2.0f;
      gfloat g = ((20 * y + 2) * 0.01f - 0.25f) / 4.0f;
      gfloat b = 3 * 0.01f;

      fail_unless (fabsf (t[0 * 8 + y * 4 + x] - r) < 1e-6, "R(%d,%d) %f "
          "!= %f", x, y, t[y * 4 + x], r);
      fail_unless (fabsf (t[1 * 8 + y * 4 + x] - g) < 1e-6);
      fail_unless (fabsf (t[2 * 8 + y * 4 + x] - b) < 1e-6);
    }
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* NHWC uint8 in BGR order: the pixels themselves, channels swapped. */
GST_START_TEST (test_tensor_nhwc_uint8_bgr)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstBuffer *out;
  GstMapInfo map;
  gint x, y;

  gst_util_set_object_arg (G_OBJECT (h->element), "channel-order", "bgr");
  gst_harness_set_caps_str (h, RGBA_4x2, "other/tensors,format=static,"
      "num_tensors=1,types=uint8,dimensions=3:4:2:1,layout=NHWC,"
      "framerate=30/1");
  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 2 * 4 * 3);
  for (y = 0; y < 2; y++) {
    for (x = 0; x < 4; x++) {
      const guint8 *p = map.data + (y * 4 + x) * 3;

      fail_unless_equals_int (p[0], 3);
      fail_unless_equals_int (p[1], 20 * y + 2);
      fail_unless_equals_int (p[2], 10 * x + 1);
    }
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* float16, NCHW: half floats, rounded to nearest even. */
GST_START_TEST (test_tensor_float16)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstBuffer *in = gst_buffer_new_allocate (NULL, 4 * 2 * 4, NULL);
  GstBuffer *out;
  GstMapInfo map;
  const guint16 *t;
  guint i;

  /* 128 / 256 = 0.5 is 0x3800 in half precision; 0.5 - 1 = -0.5: 0xb800 */
  g_object_set (h->element, "scale", 1.0 / 256.0, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "mean", "<0.0, 1.0, 0.0>");
  gst_harness_set_caps_str (h, RGBA_4x2, "other/tensors,format=static,"
      "num_tensors=1,types=float16,dimensions=4:2:3:1,framerate=30/1");
  gst_buffer_memset (in, 0, 128, 4 * 2 * 4);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 3 * 8 * 2);
  t = (const guint16 *) map.data;
  for (i = 0; i < 8; i++) {
    fail_unless_equals_int (t[i], 0x3800);
    fail_unless_equals_int (t[8 + i], 0xb800);
    fail_unless_equals_int (t[16 + i], 0x3800);
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_tensor_defaults_to_input_size)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstCudaCacheTensorInfo info;
  GstBuffer *out;
  GstCaps *caps;

  gst_harness_set_src_caps_str (h, RGBA_4x2);
  gst_harness_set_sink_caps_str (h, "other/tensors");
  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_cuda_cache_tensor_info_from_caps (&info, caps));
  fail_unless_equals_int (info.dtype, GST_CUDA_CACHE_TENSOR_DTYPE_F32);
  fail_unless_equals_int (info.layout, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_width (&info), 4);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_height (&info), 2);
  fail_unless_equals_uint64 (gst_buffer_get_size (out), 4 * 2 * 3 * 4);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_output_from_cache)
{
  GstHarness *h = harness_new (RGBA_4x2,
      "video/x-raw,format=RGBA,width=16,height=16,framerate=30/1");
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  GstBuffer *out;

  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (gst_cuda_cache_owns_memory (cache,
          gst_buffer_peek_memory (out, 0)));
  gst_buffer_unref (out);
  gst_object_unref (cache);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation_reuses_memory)
{
  GstCudaCacheStats first_pass, again;

  run_switching_pipeline ("cudacacheconvert ! video/x-raw,format=RGBA", 1,
      NULL, &first_pass);
  fail_unless (first_pass.misses > 0);
  run_switching_pipeline ("cudacacheconvert ! video/x-raw,format=RGBA", 3,
      NULL, &again);
  fail_unless_equals_uint64 (again.misses, first_pass.misses);
  fail_unless (again.hits > first_pass.hits);
}

GST_END_TEST;

GST_START_TEST (test_unsupported_caps_refused)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstMessage *msg;
  GError *err = NULL;
  GstBus *bus;

  /* v210 is not an input format */
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=v210,width=4,height=2,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, gst_harness_create_buffer (h,
              16)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  /* tensors have three channels or one */
  h = gst_harness_new ("cudacacheconvert");
  gst_harness_set_src_caps_str (h, RGBA_4x2);
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=4:2:4:1");
  fail_unless_equals_int (gst_harness_push (h, make_rgba (4, 2)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  /* a pixel aspect ratio of 0, pushed without asking: refused, saying so */
  h = gst_harness_new ("cudacacheconvert");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=4,"
      "height=2,framerate=30/1,pixel-aspect-ratio=0/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA,width=8,"
      "height=4");
  fail_unless_equals_int (gst_harness_push (h, make_rgba (4, 2)),
      GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "a pixel-aspect-ratio of 0/1 was taken");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "pixel-aspect-ratio of 0/1") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 16-bit 4:2:0 (a 10-bit decoder's P010_10LE) comes in, and goes out as
 * its 8-bit counterpart NV12 where downstream leaves the format open; it
 * is never made. */
GST_START_TEST (test_p010_in_nv12_out)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstBuffer *in, *out;
  GstCaps *caps;
  GstVideoInfo info;
  GstMapInfo map;
  gsize i;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=P010_10LE,width=64,height=48,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,width=32,height=24");
  /* grey: Y, U and V of 512 in 10 bits, 128 in 8 */
  in = gst_harness_create_buffer (h, 64 * 48 * 3);
  fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size / 2; i++)
    GST_WRITE_UINT16_LE (map.data + 2 * i, 512 << 6);
  gst_buffer_unmap (in, &map);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_FORMAT_NV12);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 32);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, info.size);
  for (i = 0; i < map.size; i++)
    fail_unless_equals_int (map.data[i], 128);
  gst_buffer_unmap (out, &map);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* not an output format */
  h = gst_harness_new ("cudacacheconvert");
  gst_harness_set_src_caps_str (h, RGBA_4x2);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=P010_10LE");
  fail_unless_equals_int (gst_harness_push (h, make_rgba (4, 2)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_bad_properties_refused)
{
  GstElement *e = gst_element_factory_make ("cudacacheconvert", NULL);
  GstBus *bus = gst_bus_new ();
  GValue std = G_VALUE_INIT;
  GstMessage *msg;
  GError *err = NULL;
  guint fill = 0;

  ASSERT_PROPERTY_REFUSED (g_object_set (e, "fill-value", 300, NULL));
  g_object_get (e, "fill-value", &fill, NULL);
  fail_unless_equals_int (fill, 0);

  /* three values, each above 0: two are refused with a warning on the
   * bus, not a GLib warning (G_DEBUG=fatal-warnings would abort) */
  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "std", "<1.0, 2.0>");
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning on the bus");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless_equals_string (err->message, "std=(GstValueArray)< (double)1, "
      "(double)2 > is not valid: it takes a GstValueArray of three numbers "
      "from 1e-12 to 3.40282e+38, one per channel, such as \"<0.229, 0.224, "
      "0.225>\"; keeping the previous value");
  g_clear_error (&err);
  gst_message_unref (msg);
  /* integers are numbers too */
  gst_util_set_object_arg (G_OBJECT (e), "mean", "<1, 2, 3>");
  fail_if (gst_bus_have_pending (bus), "integers refused");
  g_value_init (&std, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "mean", &std);
  fail_unless (g_value_get_double (gst_value_array_get_value (&std, 2)) == 3.0);
  g_value_unset (&std);
  gst_util_set_object_arg (G_OBJECT (e), "mean", "<0.0, 0.0, 0.0>");

  /* refused before the element has a bus (gst_parse_launch () sets
   * properties first): posted when it leaves NULL */
  gst_element_set_bus (e, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "mean", "<1.0>");
  gst_element_set_bus (e, bus);
  fail_if (gst_bus_have_pending (bus));
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "the refusal was not posted");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_str_has_prefix (err->message, "mean=(GstValueArray)< "
          "(double)1 > is not valid: it takes a GstValueArray of three "
          "numbers"), "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  /* std above 0: refused on the bus too (the param spec has no element
   * spec, which would turn Python's ints into a GLib warning) */
  gst_util_set_object_arg (G_OBJECT (e), "std", "<1.0, 0.0, 1.0>");
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "std 0 was not refused");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless_equals_string (err->message, "std=(GstValueArray)< (double)1, "
      "(double)0, (double)1 > is not valid: it takes a GstValueArray of three "
      "numbers from 1e-12 to 3.40282e+38, one per channel, such as "
      "\"<0.229, 0.224, 0.225>\"; keeping the previous value");
  g_clear_error (&err);
  gst_message_unref (msg);
  g_value_init (&std, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "std", &std);
  fail_unless_equals_int (gst_value_array_get_size (&std), 3);
  fail_unless (g_value_get_double (gst_value_array_get_value (&std, 1)) == 1.0);
  g_value_unset (&std);

  /* fill-rgb: whole numbers from 0 to 255; fill-value sets all three */
  gst_util_set_object_arg (G_OBJECT (e), "fill-rgb", "<10, 20, 256>");
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "fill-rgb 256 was not refused");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_str_has_prefix (err->message, "fill-rgb=(GstValueArray)< "),
      "%s", err->message);
  fail_unless (g_str_has_suffix (err->message, "256 > is not valid: it takes "
          "a GstValueArray of three whole numbers from 0 to 255 (red, green, "
          "blue), such as \"<114, 114, 114>\" (fill-value sets all three to "
          "one number); keeping the previous value"), "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  /* one number is fill-value's, and the message says so, not that
   * fill-rgb takes it */
  gst_util_set_object_arg (G_OBJECT (e), "fill-rgb", "<5>");
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "fill-rgb <5> was not refused");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless_equals_string (err->message, "fill-rgb=(GstValueArray)< "
      "(int)5 > is not valid: it takes a GstValueArray of three whole "
      "numbers from 0 to 255 (red, green, blue), such as \"<114, 114, 114>\" "
      "(fill-value sets all three to one number); keeping the previous "
      "value");
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_util_set_object_arg (G_OBJECT (e), "fill-rgb", "<10, 20, 30>");
  fail_if (gst_bus_have_pending (bus), "fill-rgb refused");
  g_value_init (&std, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "fill-rgb", &std);
  fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value (&std,
              2)), 30);
  g_value_unset (&std);
  g_object_set (e, "fill-value", 114, NULL);
  g_value_init (&std, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "fill-rgb", &std);
  fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value (&std,
              1)), 114);
  g_value_unset (&std);

  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* gst-inspect shows what tensors are made: the layouts in the template,
 * the order of the dimensions (a string caps cannot constrain) in the
 * description */
GST_START_TEST (test_template_and_description_say_tensor_shape)
{
  GstElementFactory *factory = gst_element_factory_find ("cudacacheconvert");
  GstElement *e = gst_element_factory_create (factory, NULL);
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstCaps *templ = gst_pad_get_pad_template_caps (src);
  GstCaps *layouts = gst_caps_from_string ("other/tensors,"
      "layout={ NCHW, NHWC }");
  const gchar *description = gst_element_factory_get_metadata (factory,
      GST_ELEMENT_METADATA_DESCRIPTION);
  guint i, tensors = 0;

  for (i = 0; i < gst_caps_get_size (templ); i++) {
    GstStructure *s = gst_caps_get_structure (templ, i);

    if (!gst_structure_has_name (s, "other/tensors"))
      continue;
    tensors++;
    fail_unless (gst_value_compare (gst_structure_get_value (s, "layout"),
            gst_structure_get_value (gst_caps_get_structure (layouts, 0),
                "layout")) == GST_VALUE_EQUAL);
  }
  fail_unless_equals_int (tensors, 2);
  fail_unless (strstr (description, "W:H:3:1 for NCHW, 3:W:H:1 for NHWC") &&
      strstr (description, "dimensions=(string)640:640:3:1"), "%s",
      description);

  gst_caps_unref (layouts);
  gst_caps_unref (templ);
  gst_object_unref (src);
  gst_object_unref (e);
  gst_object_unref (factory);
}

GST_END_TEST;

GST_START_TEST (test_tensor_nhwc_open_dimensions)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstCudaCacheTensorInfo info;
  GstBuffer *out;
  GstCaps *caps;

  /* downstream names the layout and leaves the shape open: the fixated
   * dimensions are in NHWC's order, C:W:H:N innermost first */
  gst_harness_set_src_caps_str (h, RGBA_4x2);
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=uint8,layout=NHWC");
  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "dimensions"), "3:4:2:1");
  fail_unless (gst_cuda_cache_tensor_info_from_caps (&info, caps));
  fail_unless_equals_int (info.layout, GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_width (&info), 4);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_height (&info), 2);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstBusSyncReply
count_errors (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  GPtrArray *errors = user_data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR &&
      g_str_has_prefix (GST_OBJECT_NAME (msg->src), "convert")) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    g_ptr_array_add (errors, g_strdup (err->message));
    g_error_free (err);
  }
  return GST_BUS_PASS;
}

/* The errors the converter, with @properties, posts for a shape it cannot
 * make. */
static GPtrArray *
refused_shape_errors_with (const gchar * properties, const gchar * tensor_caps)
{
  GPtrArray *errors = g_ptr_array_new_with_free_func (g_free);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=30 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudacacheconvert "
      "name=convert %s ! %s ! fakesink", properties, tensor_caps);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_bus_set_sync_handler (bus, count_errors, errors, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gst_clear_message (&msg);
  /* let base transform retry as it would */
  g_usleep (200 * 1000);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);

  return errors;
}

static GPtrArray *
refused_shape_errors (const gchar * tensor_caps)
{
  return refused_shape_errors_with ("", tensor_caps);
}

/* @tensor_caps downstream are refused with one error, which says @says */
static void
assert_one_refusal (const gchar * tensor_caps, const gchar * says)
{
  GPtrArray *errors = refused_shape_errors (tensor_caps);

  fail_unless_equals_int (errors->len, 1);
  fail_unless (strstr (g_ptr_array_index (errors, 0), says), "\"%s\" does "
      "not say \"%s\"", (gchar *) g_ptr_array_index (errors, 0), says);
  g_ptr_array_unref (errors);
}

GST_START_TEST (test_refused_shape_one_accurate_error)
{
  assert_one_refusal ("other/tensors,format=static,num_tensors=1,"
      "types=float32,dimensions=64:48:4:1", "4 channel(s)");


  /* dimensions=64:48, unquoted, is a flagset to GStreamer (fixated, it
   * reads 40:ffffffff): the error says what to write instead */
  assert_one_refusal ("other/tensors,format=static,num_tensors=1,"
      "types=float32,dimensions=64:48", "dimensions=(GstFlagSet)40:ffffffff "
      "is not a string (GStreamer reads two numbers such as 64:48 as a flagset, one "
      "as an int): write it as a string of three or four numbers, e.g. "
      "dimensions=(string)640:640:3:1");
}

GST_END_TEST;

/* An output whose RGB frame the presets' CPU path refuses (2 GiB or more
 * a plane): one error that says so, and the pipeline stops cleanly. */
/* A pad of @direction whose caps queries answer @caps, filtered */
static gboolean
answer_caps_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstCaps *caps = g_object_get_data (G_OBJECT (pad), "caps");
  GstCaps *filter = NULL, *result;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return gst_pad_query_default (pad, parent, query);
  gst_query_parse_caps (query, &filter);
  result = filter ? gst_caps_intersect_full (filter, caps,
      GST_CAPS_INTERSECT_FIRST) : gst_caps_ref (caps);
  gst_query_set_caps_result (query, result);
  gst_caps_unref (result);

  return TRUE;
}

static GstPad *
answering_pad_new (GstPadDirection direction, const gchar * caps)
{
  GstPad *pad = gst_pad_new (NULL, direction);

  g_object_set_data_full (G_OBJECT (pad), "caps", gst_caps_from_string (caps),
      (GDestroyNotify) gst_caps_unref);
  gst_pad_set_query_function (pad, answer_caps_query);

  return pad;
}

/* @answer is not empty and within @pad's template */
static void
assert_answer_in_template (GstPad * pad, GstCaps * answer)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (pad);

  fail_if (gst_caps_is_empty (answer));
  if (!gst_caps_is_subset (answer, templ))
    fail ("%s is not within %s", gst_caps_to_string (answer),
        gst_caps_to_string (templ));
  gst_caps_unref (templ);
}

/* Caps queries, filtered or not, as autopluggers and links make them:
 * they answer only what the element makes and post nothing, even where
 * downstream lists a tensor the element cannot make beside a format it
 * can */
GST_START_TEST (test_caps_queries_answer_and_post_nothing)
{
  GstElement *e = gst_element_factory_make ("cudacacheconvert", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstPad *up = answering_pad_new (GST_PAD_SRC, "video/x-raw");
  GstPad *down = answering_pad_new (GST_PAD_SINK,
      "other/tensors,types=int32; video/x-raw,format=RGBA");
  GstPad *int32_only = answering_pad_new (GST_PAD_SINK,
      "other/tensors,types=int32");
  GstBus *bus = gst_bus_new ();
  GstCaps *filter, *answer;
  GstMessage *msg;
  GstHarness *h;
  GstBuffer *out;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_pad_link (up, sink), GST_PAD_LINK_OK);
  fail_unless_equals_int (gst_pad_link (src, down), GST_PAD_LINK_OK);

  /* a question with no answer: UYVP is not taken */
  filter = gst_caps_from_string ("video/x-raw,format=UYVP");
  answer = gst_pad_query_caps (sink, filter);
  fail_unless (gst_caps_is_empty (answer));
  gst_caps_unref (answer);
  gst_caps_unref (filter);

  /* one with an answer: RGBA in, for RGBA out */
  filter = gst_caps_from_string (RGBA_4x2);
  answer = gst_pad_query_caps (sink, filter);
  assert_answer_in_template (sink, answer);
  fail_unless (gst_caps_is_subset (answer, filter));
  gst_caps_unref (answer);
  gst_caps_unref (filter);

  /* the source pad: only the tensors the element makes */
  answer = gst_pad_query_caps (src, NULL);
  assert_answer_in_template (src, answer);
  gst_caps_unref (answer);
  filter = gst_caps_from_string ("other/tensors,types=int32");
  answer = gst_pad_query_caps (src, filter);
  fail_unless (gst_caps_is_empty (answer));
  gst_caps_unref (answer);
  gst_caps_unref (filter);
  filter = gst_caps_from_string ("other/tensors,types=uint8,layout=NHWC");
  answer = gst_pad_query_caps (src, filter);
  assert_answer_in_template (src, answer);
  gst_caps_unref (answer);
  gst_caps_unref (filter);

  /* a link's check */
  fail_unless (gst_pad_unlink (src, down));
  fail_if (gst_pad_can_link (src, int32_only));
  fail_unless (gst_pad_can_link (src, down));

  /* linking and unlinking post structure changes; nothing else */
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ANY &
      ~GST_MESSAGE_STRUCTURE_CHANGE);
  fail_if (msg != NULL, "a query posted a %s message",
      msg ? GST_MESSAGE_TYPE_NAME (msg) : "");
  fail_unless (gst_pad_unlink (up, sink));
  gst_element_set_bus (e, NULL);

  /* and what the answers promise links: RGBA out beside int32 tensors */
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_src_caps_str (h, RGBA_4x2);
  gst_harness_set_sink_caps_str (h, "other/tensors,types=int32; "
      "video/x-raw,format=RGBA");
  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  gst_object_unref (bus);
  gst_object_unref (int32_only);
  gst_object_unref (down);
  gst_object_unref (up);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

/* Pushes an RGBA frame into @h, expecting not-negotiated, and the error
 * on @bus that says @says (none where NULL: said before) */
static void
assert_not_negotiated_says (GstHarness * h, GstBus * bus, const gchar * says)
{
  GstMessage *msg;
  GError *err = NULL;

  fail_unless_equals_int (gst_harness_push (h, make_rgba (4, 2)),
      GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (!says) {
    fail_unless (msg == NULL, "the refusal was posted again");
    return;
  }
  fail_unless (msg != NULL, "no error for %s", says);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless_equals_string (err->message, says);
  g_clear_error (&err);
  gst_message_unref (msg);
  fail_if (gst_bus_have_pending (bus));
}

/* Tensor fields the element cannot make: a link to them fails as any
 * link does, and caps that reach the element anyway are refused in
 * negotiation with one error that names the field and what it takes */
GST_START_TEST (test_refused_tensor_field_named_in_negotiation)
{
  static const gchar *desc = "videotestsrc ! cudacacheconvert ! "
      "other/tensors,types=int8,dimensions=(string)64:48:3:1 ! fakesink";
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstBus *bus = gst_bus_new ();
  GstElement *pipeline;
  GError *err = NULL;
  GstBuffer *out;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, RGBA_4x2);
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=int8,dimensions=(string)4:2:3:1");
  assert_not_negotiated_says (h, bus, "Cannot convert to these caps: "
      "types=int8 is not supported: types must be float32, float16 or uint8");
  assert_not_negotiated_says (h, bus, NULL);

  /* downstream changing to what cannot be made */
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=(string)4:2:3:1");
  gst_harness_push_upstream_event (h, gst_event_new_reconfigure ());
  out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=float32,layout=NCWH,dimensions=(string)4:2:3:1");
  gst_harness_push_upstream_event (h, gst_event_new_reconfigure ());
  assert_not_negotiated_says (h, bus, "Cannot convert to these caps: "
      "layout=NCWH is not supported: layout must be NCHW or NHWC");
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=2,types=float32,dimensions=(string)4:2:3:1");
  gst_harness_push_upstream_event (h, gst_event_new_reconfigure ());
  assert_not_negotiated_says (h, bus, "Cannot convert to these caps: "
      "num_tensors=2 is not supported: cudacacheconvert makes one tensor "
      "(num_tensors=1)");
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);

  /* gst-launch-1.0's link */
  pipeline = gst_parse_launch (desc, &err);
  fail_unless (g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK),
      "%s", err ? err->message : "linked");
  g_clear_error (&err);
  gst_clear_object (&pipeline);
}

GST_END_TEST;

/* A buffer whose GstVideoMeta describes a smaller frame than its caps
 * (or another format) is refused with an error that says so, not a
 * GStreamer-Video critical (gst_video_frame_map ()'s preconditions) */
GST_START_TEST (test_video_meta_smaller_than_caps_refused)
{
  static const struct
  {
    GstVideoFormat format;
    guint width, height;
    const gchar *says;
  } metas[] = {
    {GST_VIDEO_FORMAT_RGBA, 2, 2, "the input buffer's video meta describes "
          "a 2x2 RGBA frame, smaller than the caps' 4x2 RGBA"},
    {GST_VIDEO_FORMAT_RGBA, 4, 1, "4x1 RGBA"},
    {GST_VIDEO_FORMAT_BGRA, 4, 2, "4x2 BGRA frame, not the caps' 4x2 RGBA"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (metas); i++) {
    GstHarness *h = harness_new (RGBA_4x2, "video/x-raw,format=RGBA,width=8,"
        "height=4");
    GstBus *bus = gst_bus_new ();
    GstBuffer *in = make_rgba (4, 2);
    GstMessage *msg;
    GError *err = NULL;
    gchar *debug = NULL;

    gst_element_set_bus (h->element, bus);
    gst_buffer_add_video_meta (in, GST_VIDEO_FRAME_FLAG_NONE, metas[i].format,
        metas[i].width, metas[i].height);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &err, &debug);
    fail_unless (strstr (err->message, metas[i].says) != NULL,
        "\"%s\" does not say \"%s\"", err->message, metas[i].says);
    g_clear_error (&err);
    g_free (debug);
    gst_message_unref (msg);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_cpu_path_frame_past_2_gib_one_error)
{
  GPtrArray *errors = refused_shape_errors_with ("method=bilinear",
      "video/x-raw,format=GRAY8,width=30000,height=30000");

  fail_unless_equals_int (errors->len, 1);
  fail_unless (strstr (g_ptr_array_index (errors, 0), "2 GiB"), "%s",
      (gchar *) g_ptr_array_index (errors, 0));
  g_ptr_array_unref (errors);
}

GST_END_TEST;

/* A buffer of 4 GiB or more: GstBufferPool holds a buffer's size in a
 * guint, so no pool can hand one out. Video frames that large GStreamer
 * does not lay out at all; a float32 tensor of 19000x19000 (4332000000
 * bytes, packed from a 1 GB RGB frame the CPU path takes) gets as far as
 * the allocation, which says why it fails. */
GST_START_TEST (test_buffers_past_4_gib_say_why)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=8,height=8 ! cudacacheconvert ! "
      "other/tensors,format=static,num_tensors=1,types=float32,"
      "dimensions=19000:19000:3:1 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (strstr (error->message, "4332000000 bytes") &&
      strstr (error->message, "4 GiB"), "%s", error->message);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  /* once: GstBaseTransform negotiates again after a refusal, and the same
   * caps are not reported twice */
  while ((msg = gst_bus_timed_pop_filtered (bus, GST_SECOND,
              GST_MESSAGE_ERROR))) {
    gst_message_parse_error (msg, &error, NULL);
    fail_if (strstr (error->message, "4 GiB") != NULL,
        "the error was posted more than once");
    g_clear_error (&error);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The first value of the float32 NCHW tensor @h makes from a 4x2 frame. */
static gfloat
push_and_read_first (GstHarness * h)
{
  GstBuffer *out = gst_harness_push_and_pull (h, make_rgba (4, 2));
  GstMapInfo map;
  gfloat v;

  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  v = ((const gfloat *) map.data)[0];
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  return v;
}

GST_START_TEST (test_properties_apply_while_playing)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");

  gst_harness_set_caps_str (h, RGBA_4x2, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=4:2:3:1,framerate=30/1");
  /* R of pixel (0, 0) is 1 */
  fail_unless_equals_float (push_and_read_first (h), 1.0f);

  /* no caps change: the next buffer takes the new values */
  g_object_set (h->element, "scale", 2.0, NULL);
  fail_unless_equals_float (push_and_read_first (h), 2.0f);
  gst_util_set_object_arg (G_OBJECT (h->element), "mean", "<0.5, 0.0, 0.0>");
  fail_unless_equals_float (push_and_read_first (h), 1.5f);
  gst_util_set_object_arg (G_OBJECT (h->element), "std", "<3.0, 1.0, 1.0>");
  fail_unless_equals_float (push_and_read_first (h), 0.5f);

  /* letterbox moves the picture: the 4x2 frame in a 4x2 tensor stays, so
   * ask for a tall tensor; pixel (0, 0) is then padding */
  g_object_set (h->element, "scale", 1.0, "fill-value", 7, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "mean", "<0.0, 0.0, 0.0>");
  gst_util_set_object_arg (G_OBJECT (h->element), "std", "<1.0, 1.0, 1.0>");
  gst_harness_set_sink_caps_str (h, "other/tensors,format=static,"
      "num_tensors=1,types=float32,dimensions=4:4:3:1,framerate=30/1");
  fail_unless (push_and_read_first (h) != 7.0f);
  g_object_set (h->element, "letterbox", TRUE, NULL);
  fail_unless_equals_float (push_and_read_first (h), 7.0f);

  gst_harness_teardown (h);
}

GST_END_TEST;

typedef struct
{
  GstElement *element;
  const gchar *property;
  guint lost;
} SetterThread;

/* fewer under valgrind, which serialises the threads anyway */
#define SETTER_ROUNDS (RUNNING_ON_VALGRIND ? 1000 : 20000)

/* Sets its property to each of 1 .. SETTER_ROUNDS (fill-value from 0 to
 * 255), counting the values not read back */
static gpointer
set_property_rounds (gpointer data)
{
  SetterThread *t = data;
  guint i;

  for (i = 1; i <= SETTER_ROUNDS; i++) {
    if (g_str_equal (t->property, "scale")) {
      gdouble scale = 0;

      g_object_set (t->element, "scale", (gdouble) i, NULL);
      g_object_get (t->element, "scale", &scale, NULL);
      t->lost += scale != (gdouble) i;
    } else {
      guint fill = 0;

      g_object_set (t->element, "fill-value", i % 256, NULL);
      g_object_get (t->element, "fill-value", &fill, NULL);
      t->lost += fill != i % 256;
    }
  }

  return NULL;
}

/* Two threads setting different properties at once: neither update is
 * lost to the other */
GST_START_TEST (test_concurrent_properties_all_stick)
{
  GstElement *e = gst_element_factory_make ("cudacacheconvert", NULL);
  SetterThread threads[2] = { {e, "scale", 0}, {e, "fill-value", 0}
  };
  GThread *a, *b;
  gdouble scale = 0;
  guint fill = 0;

  a = g_thread_new ("scale", set_property_rounds, &threads[0]);
  b = g_thread_new ("fill", set_property_rounds, &threads[1]);
  g_thread_join (a);
  g_thread_join (b);
  fail_unless_equals_int (threads[0].lost, 0);
  fail_unless_equals_int (threads[1].lost, 0);
  g_object_get (e, "scale", &scale, "fill-value", &fill, NULL);
  fail_unless (scale == SETTER_ROUNDS, "scale %f", scale);
  fail_unless_equals_int (fill, SETTER_ROUNDS % 256);
  gst_object_unref (e);
}

GST_END_TEST;

/* The pixel aspect ratio of the output caps in @h */
static void
assert_output_par (GstHarness * h, gint par_n, gint par_d)
{
  GstBuffer *out = gst_harness_push_and_pull (h, make_rgba (64, 48));
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  gint n = 0, d = 0;

  fail_unless (out != NULL);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "pixel-aspect-ratio", &n, &d));
  fail_unless (n == par_n && d == par_d, "pixel-aspect-ratio %d/%d, not "
      "%d/%d", n, d, par_n, par_d);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
}

/* letterbox decides the output's pixel aspect ratio where downstream
 * fixes both sizes (the picture's shape kept by the ratio, or by bars):
 * changed while playing, the output renegotiates, as stock elements do */
GST_START_TEST (test_letterbox_while_playing_renegotiates)
{
  GstHarness *h = gst_harness_new ("cudacacheconvert");

  gst_harness_set_caps_str (h, "video/x-raw,format=RGBA,width=64,height=48,"
      "pixel-aspect-ratio=1/1,framerate=30/1",
      "video/x-raw,format=RGBA,width=32,height=32");
  assert_output_par (h, 4, 3);
  g_object_set (h->element, "letterbox", TRUE, NULL);
  assert_output_par (h, 1, 1);
  g_object_set (h->element, "letterbox", FALSE, NULL);
  assert_output_par (h, 4, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* cudacache-pipeline-race.h: buffers of earlier caps never come out of
 * the pools this element proposes or takes (tests/stress runs it longer) */
GST_START_TEST (test_caps_churn_keeps_layouts)
{
  cudacache_check_pipeline_race ("cudacacheconvert", FALSE, 3, 1);
}

GST_END_TEST;

/* Every converted buffer carries the picture meta: a white box drawn in
 * the source frame, found again in the output (letterboxed or stretched,
 * a frame or a tensor, shrunk and grown, odd sizes), maps back through
 * the meta to where it was drawn, within the blur of the taps; the
 * picture's rectangle is where the output is not the fill; passed-through
 * buffers carry the identity. */
GST_START_TEST (test_picture_meta_maps_boxes_back)
{
  static const struct
  {
    gint in_w, in_h, out_w, out_h;
    gboolean letterbox, tensor;
  } cases[] = {
    {1280, 720, 640, 640, TRUE, TRUE},
    {720, 1280, 640, 640, TRUE, FALSE},
    {333, 157, 97, 101, TRUE, FALSE},
    {97, 101, 333, 157, TRUE, TRUE},
    {640, 480, 320, 320, FALSE, TRUE},
    {641, 479, 1283, 721, FALSE, FALSE},
    {64, 48, 64, 48, FALSE, FALSE},     /* passed through */
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint in_w = cases[i].in_w, in_h = cases[i].in_h;
    gint out_w = cases[i].out_w, out_h = cases[i].out_h;
    /* the box: a fifth of the frame in from the left and top */
    gint bx0 = in_w / 5, by0 = in_h / 5, bx1 = in_w / 2, by1 = in_h * 3 / 4;
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,"
        "height=%d,framerate=30/1", in_w, in_h);
    gchar *out_caps = cases[i].tensor ?
        g_strdup_printf ("other/tensors,format=static,num_tensors=1,"
        "types=uint8,dimensions=(string)3:%d:%d:1,layout=NHWC", out_w, out_h) :
        g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
        "framerate=30/1", out_w, out_h);
    GstHarness *h = gst_harness_new ("cudacacheconvert");
    GstBuffer *in = gst_buffer_new_allocate (NULL, (gsize) in_w * in_h * 4,
        NULL), *out;
    GstCudaCachePictureMeta *meta;
    GstMapInfo map;
    gint x, y, px0 = G_MAXINT, py0 = G_MAXINT, px1 = -1, py1 = -1;
    gint wx0 = G_MAXINT, wy0 = G_MAXINT, wx1 = -1, wy1 = -1;
    gint pixel = cases[i].tensor ? 3 : 4;
    gdouble sx0, sy0, sx1, sy1, rx, ry, slack_x, slack_y;

    g_object_set (h->element, "letterbox", cases[i].letterbox,
        "fill-value", 0, NULL);
    gst_harness_set_caps_str (h, in_caps, out_caps);
    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    for (y = 0; y < in_h; y++) {
      for (x = 0; x < in_w; x++) {
        guint8 *p = map.data + ((gsize) y * in_w + x) * 4;
        guint8 v = x >= bx0 && x < bx1 && y >= by0 && y < by1 ? 255 : 64;

        p[0] = p[1] = p[2] = v;
        p[3] = 255;
      }
    }
    gst_buffer_unmap (in, &map);

    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    meta = gst_buffer_get_cuda_cache_picture_meta (out);
    fail_unless (meta != NULL, "%dx%d -> %dx%d: no picture meta", in_w, in_h,
        out_w, out_h);
    fail_unless_equals_int (meta->geometry.source_width, in_w);
    fail_unless_equals_int (meta->geometry.source_height, in_h);
    fail_unless (meta->geometry.source.x == 0 && meta->geometry.source.y == 0 &&
        meta->geometry.source.w == in_w && meta->geometry.source.h == in_h);

    /* the picture where the output is not the fill, the box where white */
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (y = 0; y < out_h; y++) {
      for (x = 0; x < out_w; x++) {
        const guint8 *p = map.data + ((gsize) y * out_w + x) * pixel;

        if (p[0] > 0) {
          px0 = MIN (px0, x);
          py0 = MIN (py0, y);
          px1 = MAX (px1, x + 1);
          py1 = MAX (py1, y + 1);
        }
        if (p[0] > 160) {
          wx0 = MIN (wx0, x);
          wy0 = MIN (wy0, y);
          wx1 = MAX (wx1, x + 1);
          wy1 = MAX (wy1, y + 1);
        }
      }
    }
    gst_buffer_unmap (out, &map);
    fail_unless (meta->geometry.picture.x == px0
        && meta->geometry.picture.y == py0
        && meta->geometry.picture.w == px1 - px0
        && meta->geometry.picture.h == py1 - py0,
        "%dx%d -> %dx%d: the meta's picture is %d,%d %dx%d, drawn at %d,%d "
        "%dx%d", in_w, in_h, out_w, out_h, meta->geometry.picture.x,
        meta->geometry.picture.y, meta->geometry.picture.w,
        meta->geometry.picture.h, px0, py0, px1 - px0, py1 - py0);
    fail_unless (cases[i].letterbox || (meta->geometry.picture.w == out_w
            && meta->geometry.picture.h == out_h));

    /* back to the source: within a source pixel and the taps' blur (an
     * output pixel each side of a threshold at the middle) */
    fail_unless (gst_cuda_cache_picture_geometry_box_to_source (&meta->geometry,
            wx0, wy0, wx1, wy1, &sx0, &sy0, &sx1, &sy1));
    slack_x = 1.0 + 1.0 / meta->geometry.scale_x;
    slack_y = 1.0 + 1.0 / meta->geometry.scale_y;
    fail_unless (fabs (sx0 - bx0) <= slack_x && fabs (sx1 - bx1) <= slack_x &&
        fabs (sy0 - by0) <= slack_y && fabs (sy1 - by1) <= slack_y,
        "%dx%d -> %dx%d: box %d,%d-%d,%d came back as %.2f,%.2f-%.2f,%.2f",
        in_w, in_h, out_w, out_h, bx0, by0, bx1, by1, sx0, sy0, sx1, sy1);

    /* the two maps are each other's inverse; the bars map outside */
    gst_cuda_cache_picture_geometry_from_source (&meta->geometry, bx0, by1, &rx,
        &ry);
    gst_cuda_cache_picture_geometry_to_source (&meta->geometry, rx, ry, &sx0,
        &sy0);
    fail_unless (fabs (sx0 - bx0) < 1e-9 && fabs (sy0 - by1) < 1e-9);
    if (meta->geometry.picture.x > 0 || meta->geometry.picture.y > 0)
      fail_if (gst_cuda_cache_picture_geometry_box_to_source (&meta->geometry,
              0, 0, MAX (meta->geometry.picture.x, 1),
              MAX (meta->geometry.picture.y, 1), &sx0, &sy0, &sx1, &sy1)
          && meta->geometry.picture.x > 0 && meta->geometry.picture.y > 0);

    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (in_caps);
    g_free (out_caps);
  }
}

GST_END_TEST;

/* The letterbox counts pixel-aspect-ratio: 720x576 at 1/1, 16/15 and 2/1
 * make pictures of 640x512, 640x480 and 640x256 in a 640x640 tensor
 * (square pixels); top-left puts the picture in the corner, the bars
 * right and below in fill-rgb's colour, in the tensor's channel order. */
GST_START_TEST (test_letterbox_aspect_position_and_fill)
{
  static const struct
  {
    gint par_n, par_d, pic_h;
  } pars[] = { {1, 1, 512}, {16, 15, 480}, {2, 1, 256} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pars); i++) {
    gint top_left;

    for (top_left = 0; top_left < 2; top_left++) {
      GstHarness *h = gst_harness_new ("cudacacheconvert");
      gchar *in_caps = g_strdup_printf ("video/x-raw,format=RGBA,width=720,"
          "height=576,pixel-aspect-ratio=%d/%d,framerate=25/1",
          pars[i].par_n, pars[i].par_d);
      GstBuffer *in = gst_buffer_new_allocate (NULL, 720 * 576 * 4, NULL);
      GstBuffer *out;
      GstCudaCachePictureMeta *meta;
      GstMapInfo map;
      gint y0 = top_left ? 0 : (640 - pars[i].pic_h) / 2;
      const guint8 *bar;

      gst_util_set_object_arg (G_OBJECT (h->element), "letterbox", "true");
      gst_util_set_object_arg (G_OBJECT (h->element), "letterbox-position",
          top_left ? "top-left" : "center");
      gst_util_set_object_arg (G_OBJECT (h->element), "fill-rgb",
          "<10, 20, 30>");
      gst_util_set_object_arg (G_OBJECT (h->element), "channel-order", "bgr");
      gst_harness_set_caps_str (h, in_caps, "other/tensors,format=static,"
          "num_tensors=1,types=uint8,dimensions=(string)3:640:640:1,"
          "layout=NHWC");
      gst_buffer_memset (in, 0, 200, 720 * 576 * 4);
      out = gst_harness_push_and_pull (h, in);
      fail_unless (out != NULL);
      meta = gst_buffer_get_cuda_cache_picture_meta (out);
      fail_unless (meta != NULL);
      fail_unless (meta->geometry.picture.x == 0
          && meta->geometry.picture.y == y0 && meta->geometry.picture.w == 640
          && meta->geometry.picture.h == pars[i].pic_h,
          "PAR %d/%d%s: picture %d,%d %dx%d", pars[i].par_n, pars[i].par_d,
          top_left ? " top-left" : "", meta->geometry.picture.x,
          meta->geometry.picture.y, meta->geometry.picture.w,
          meta->geometry.picture.h);

      fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
      /* the last row is a bar either way; the picture 200 */
      bar = map.data + (gsize) 639 *640 * 3;
      fail_unless (bar[0] == 30 && bar[1] == 20 && bar[2] == 10,
          "bar %u %u %u, fill-rgb <10, 20, 30> in BGR order", bar[0], bar[1],
          bar[2]);
      fail_unless_equals_int (map.data[((gsize) (y0 + 1) * 640 + 5) * 3], 200);
      /* the first pixel: the picture's at the top left, a bar's centred */
      fail_unless_equals_int (map.data[0], top_left ? 200 : 30);
      gst_buffer_unmap (out, &map);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
      g_free (in_caps);
    }
  }
}

GST_END_TEST;

/* Fixation keeps the display aspect ratio as videoscale does, and the
 * output caps say the pixel aspect ratio: only the width fixed, 1280x720
 * is 640x360 (not 640x720); 720x576 at 2/1 is 640x256 at 1/1 downstream;
 * both sizes fixed, the ratio makes up the shape. */
GST_START_TEST (test_fixation_keeps_display_aspect)
{
  static const struct
  {
    const gchar *in, *downstream, *want;
  } cases[] = {
    {"width=1280,height=720", "width=640",
        "width=(int)640, height=(int)360, pixel-aspect-ratio=(fraction)1/1"},
    {"width=1280,height=720", "height=180",
        "width=(int)320, height=(int)180, pixel-aspect-ratio=(fraction)1/1"},
    {"width=720,height=576,pixel-aspect-ratio=2/1",
          "width=640,pixel-aspect-ratio=1/1",
        "width=(int)640, height=(int)256, pixel-aspect-ratio=(fraction)1/1"},
    {"width=720,height=576,pixel-aspect-ratio=16/15", "format=RGBA",
        "width=(int)720, height=(int)576, "
          "pixel-aspect-ratio=(fraction)16/15"},
    {"width=1280,height=720", "width=640,height=640",
        "width=(int)640, height=(int)640, pixel-aspect-ratio=(fraction)16/9"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new ("cudacacheconvert");
    gchar *in = g_strdup_printf ("video/x-raw,format=RGBA,%s,framerate=30/1",
        cases[i].in);
    gchar *down = g_strdup_printf ("video/x-raw,format=RGBA,%s",
        cases[i].downstream);
    gchar *want_str = g_strdup_printf ("video/x-raw, format=(string)RGBA, "
        "%s, framerate=(fraction)30/1", cases[i].want);
    GstCaps *want = gst_caps_from_string (want_str), *got;
    GstBuffer *out;

    gst_harness_set_src_caps_str (h, in);
    gst_harness_set_sink_caps_str (h, down);
    /* a frame as large as any input here */
    out = gst_harness_push_and_pull (h, gst_buffer_new_allocate (NULL,
            4 * 1280 * 720, NULL));
    fail_unless (out != NULL);
    got = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_caps_is_equal (got, want), "%s to %s: %" GST_PTR_FORMAT
        ", not %" GST_PTR_FORMAT, cases[i].in, cases[i].downstream, got, want);
    gst_caps_unref (got);
    gst_caps_unref (want);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (in);
    g_free (down);
    g_free (want_str);
  }
}

GST_END_TEST;

/* Upstream may crop by meta, as videocrop and decoders do (the caps the
 * region's size, a video meta the whole frame's): the element says so in
 * the allocation query, converts the region in place, exactly as the
 * region copied into a frame of its own, and its picture meta maps into
 * the frame the crop shows. */
GST_START_TEST (test_crop_meta_from_upstream)
{
  static const gchar *region_caps = "video/x-raw,format=RGBA,width=31,"
      "height=21,framerate=30/1";
  static const gchar *out_caps = "video/x-raw,format=RGBA,width=32,"
      "height=24,framerate=30/1";
  GstHarness *h = gst_harness_new ("cudacacheconvert");
  GstHarness *alone = gst_harness_new ("cudacacheconvert");
  GstCaps *caps = gst_caps_from_string (region_caps);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBuffer *in = make_rgba (64, 48), *region, *out, *want;
  GstVideoCropMeta *crop;
  GstCudaCachePictureMeta *meta;
  GstVideoInfo info;
  GstMapInfo map, src;
  gdouble x, y;
  gint row;

  gst_harness_set_caps_str (h, region_caps, out_caps);
  gst_harness_set_caps_str (alone, region_caps, out_caps);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_find_allocation_meta (query,
          GST_VIDEO_CROP_META_API_TYPE, NULL), "crop meta not offered");
  fail_unless (gst_query_find_allocation_meta (query,
          GST_VIDEO_META_API_TYPE, NULL), "video meta not offered");

  /* the region, copied */
  region = gst_buffer_new_allocate (NULL, 31 * 21 * 4, NULL);
  fail_unless (gst_buffer_map (in, &src, GST_MAP_READ));
  fail_unless (gst_buffer_map (region, &map, GST_MAP_WRITE));
  for (row = 0; row < 21; row++)
    memcpy (map.data + row * 31 * 4, src.data + ((5 + row) * 64 + 3) * 4,
        31 * 4);
  gst_buffer_unmap (region, &map);
  gst_buffer_unmap (in, &src);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, 64, 48, 1, info.offset, info.stride);
  crop = gst_buffer_add_video_crop_meta (in);
  crop->x = 3;
  crop->y = 5;
  crop->width = 31;
  crop->height = 21;
  out = gst_harness_push_and_pull (h, in);
  want = gst_harness_push_and_pull (alone, region);
  fail_unless (out != NULL && want != NULL);
  fail_unless (gst_buffer_map (want, &map, GST_MAP_READ));
  fail_unless (gst_buffer_memcmp (out, 0, map.data, map.size) == 0,
      "not the region's conversion");
  gst_buffer_unmap (want, &map);

  meta = gst_buffer_get_cuda_cache_picture_meta (out);
  fail_unless (meta != NULL);
  fail_unless (meta->geometry.source.x == 0 && meta->geometry.source.y == 0 &&
      meta->geometry.source.w == 31 && meta->geometry.source.h == 21);
  fail_unless (meta->geometry.source_width == 31
      && meta->geometry.source_height == 21);
  fail_if (gst_buffer_get_video_crop_meta (out) != NULL,
      "the input's crop went downstream");
  gst_cuda_cache_picture_geometry_to_source (&meta->geometry, 32, 24, &x, &y);
  fail_unless (fabs (x - 31.0) < 1e-9 && fabs (y - 21.0) < 1e-9);

  gst_buffer_unref (out);
  gst_buffer_unref (want);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  gst_harness_teardown (alone);
}

GST_END_TEST;

/* Crops by meta of every input format, each edge, corner and odd region,
 * into every kind of output, letterboxed and not: each the region's own
 * conversion, exactly (cudacache-crops.h). Runs under the sanitizer setup
 * too, where a read or write past the region's rows shows. */
/* A buffer passed through with a crop meta is the picture the crop
 * shows: its picture meta is the identity over the crop's size, the
 * source frame a conversion of the same buffer names */
GST_START_TEST (test_passed_through_picture_follows_crop_meta)
{
  GstHarness *converted = harness_new ("video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=30/1", "video/x-raw,format=RGBA,width=32,"
      "height=24,framerate=30/1");
  GstHarness *passed = harness_new ("video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=30/1,pixel-aspect-ratio=1/1",
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1,"
      "pixel-aspect-ratio=1/1");
  GstHarness *hs[2] = { converted, passed };
  const GstCudaCachePictureGeometry *g;
  GstCudaCachePictureMeta *meta;
  GstVideoCropMeta *crop;
  GstBuffer *in, *out;
  guint i;

  for (i = 0; i < 2; i++) {
    in = make_rgba (64, 48);
    crop = gst_buffer_add_video_crop_meta (in);
    crop->x = 8;
    crop->y = 4;
    crop->width = 32;
    crop->height = 24;
    out = gst_harness_push_and_pull (hs[i], in);
    fail_unless (out != NULL);
    meta = gst_buffer_get_cuda_cache_picture_meta (out);
    fail_unless (meta != NULL);
    g = &meta->geometry;
    fail_unless (g->source_width == 32 && g->source_height == 24,
        "%s: a source frame of %dx%d", i ? "passed" : "converted",
        g->source_width, g->source_height);
    fail_unless (g->source.x == 0 && g->source.y == 0 && g->source.w == 32 &&
        g->source.h == 24);
    fail_unless (g->picture.x == 0 && g->picture.y == 0 &&
        g->picture.w == 32 && g->picture.h == 24, "%s: a picture of %dx%d "
        "at %d,%d", i ? "passed" : "converted", g->picture.w, g->picture.h,
        g->picture.x, g->picture.y);
    fail_unless (g->scale_x == 1.0 && g->scale_y == 1.0);
    gst_buffer_unref (out);
  }
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (passed->element)));
  gst_harness_teardown (converted);
  gst_harness_teardown (passed);
}

GST_END_TEST;

GST_START_TEST (test_crop_matrix)
{
  crop_matrix_run ("cudacacheconvert", "", NULL, 0.0);
}

GST_END_TEST;

/* Buffers the application holds while the pipeline stops go back to the
 * cache as idle, one by one as it lets them go, with the pipeline kept to
 * be restarted or already freed (cudacache-held.h) */
GST_START_TEST (test_buffers_held_past_null_come_back_idle)
{
  static const gchar *desc =
      "videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! "
      "cudacacheconvert name=e ! video/x-raw,format=RGBA,width=64,height=64 ! "
      "fakesink enable-last-sample=false";
  GstCudaCache *cache = gst_cuda_cache_get_system ();

  cudacache_held_after_stop (desc, cache, FALSE);
  cudacache_held_after_stop (desc, cache, TRUE);
  gst_object_unref (cache);
}

GST_END_TEST;

static Suite *
cudacacheconvert_suite (void)
{
  Suite *s = suite_create ("cudacacheconvert");
  TCase *tc = tcase_create ("general");

  cudacache_check_init ();
  /* gst_video_frame_map ()'s preconditions are criticals of this domain */
  g_log_set_handler ("GStreamer-Video", G_LOG_LEVEL_CRITICAL |
      G_LOG_LEVEL_WARNING, cudacache_check_log_func, NULL);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_format_conversion);
  tcase_add_test (tc, test_alloc_properties_at_start);
  tcase_add_test (tc, test_webcam_and_gray_formats);
  tcase_add_test (tc, test_scaling_negotiates_output_size);
  tcase_add_test (tc, test_letterbox);
  tcase_add_test (tc, test_tensor_nchw_float32_normalised);
  tcase_add_test (tc, test_tensor_nhwc_uint8_bgr);
  tcase_add_test (tc, test_tensor_float16);
  tcase_add_test (tc, test_tensor_defaults_to_input_size);
  tcase_add_test (tc, test_output_from_cache);
  tcase_add_test (tc, test_renegotiation_reuses_memory);
  tcase_add_test (tc, test_unsupported_caps_refused);
  tcase_add_test (tc, test_p010_in_nv12_out);
  tcase_add_test (tc, test_bad_properties_refused);
  tcase_add_test (tc, test_tensor_nhwc_open_dimensions);
  tcase_add_test (tc, test_template_and_description_say_tensor_shape);
  tcase_add_test (tc, test_refused_shape_one_accurate_error);
  tcase_add_test (tc, test_caps_queries_answer_and_post_nothing);
  tcase_add_test (tc, test_refused_tensor_field_named_in_negotiation);
  tcase_add_test (tc, test_video_meta_smaller_than_caps_refused);
  tcase_add_test (tc, test_cpu_path_frame_past_2_gib_one_error);
  tcase_add_test (tc, test_buffers_past_4_gib_say_why);
  tcase_add_test (tc, test_properties_apply_while_playing);
  tcase_add_test (tc, test_letterbox_while_playing_renegotiates);
  tcase_add_test (tc, test_concurrent_properties_all_stick);
  tcase_add_test (tc, test_caps_churn_keeps_layouts);
  tcase_add_test (tc, test_picture_meta_maps_boxes_back);
  tcase_add_test (tc, test_letterbox_aspect_position_and_fill);
  tcase_add_test (tc, test_fixation_keeps_display_aspect);
  tcase_add_test (tc, test_crop_meta_from_upstream);
  tcase_add_test (tc, test_passed_through_picture_follows_crop_meta);
  tcase_add_test (tc, test_crop_matrix);
  tcase_add_test (tc, test_buffers_held_past_null_come_back_idle);

  return s;
}

GST_CHECK_MAIN (cudacacheconvert);
