/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Two GPUs: with cuda-device-id left at -1, every element takes the device
 * and context of the CUDA memory that arrives, as gst-cuda's own base
 * transform does, whatever context it found when it started; uploads and
 * decoders on device 1, and both devices in one pipeline, through
 * cudacacheidentity, cudacacheconvert and cudacachebatch, each output equal
 * to device 0's. Skips, saying so, on a machine with fewer than two. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/cuda/gstcudamemory.h>
#include "../cudacache-check.h"
#include <gst/cudacache/cudacache.h>

/* what each element makes from frames on device %d (twice for the
 * batch), into appsink "out%d" */
static const gchar *const chains[] = {
  "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=1280,height=720 ! "
      "cudaupload cuda-device-id=%d ! cudacacheconvert ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640 ! "
      "cudadownload ! appsink name=out%d sync=false",
  "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=1280,height=720 ! "
      "cudaupload cuda-device-id=%d ! cudacacheconvert ! "
      "other/tensors(memory:CUDAMemory),types=uint8,layout=NHWC,"
      "dimensions=3:299:299:1 ! appsink name=out%d sync=false",
  "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=320,height=240 ! "
      "cudaupload cuda-device-id=%d ! cudacacheidentity ! "
      "cudadownload ! appsink name=out%d sync=false",
  "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=320,height=240,framerate=30/1 ! "
      "cudaupload cuda-device-id=%d ! b%d.sink_0 "
      "videotestsrc num-buffers=3 pattern=snow ! "
      "video/x-raw,format=I420,width=200,height=100,framerate=30/1 ! "
      "cudaupload cuda-device-id=%d ! b%d.sink_1 "
      "cudacachebatch name=b%d letterbox=true ! "
      "other/tensors(memory:CUDAMemory),types=float32,dimensions=64:64:3:2 ! "
      "appsink name=out%d sync=false",
};

/* @chain's description on device @device, its sink "out@device" */
static gchar *
chain_on (guint chain, gint device)
{
  if (chain == 3)
    return g_strdup_printf (chains[chain], device, device, device, device,
        device, device);
  return g_strdup_printf (chains[chain], device, device);
}

/* Every buffer of appsink @name of the running @pipeline, each read on the
 * CPU (GBytes), and the CUDA device of the first one's memory in
 * *@device */
static GPtrArray *
collect (GstElement * pipeline, const gchar * name, gint * device)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *sample;

  *device = -1;
  fail_unless (sink != NULL);
  for (;;) {
    GstBuffer *buf;
    GstMemory *mem;
    GstMapInfo map;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    buf = gst_sample_get_buffer (sample);
    mem = gst_buffer_peek_memory (buf, 0);
    if (out->len == 0 && gst_is_cuda_memory (mem))
      g_object_get (GST_CUDA_MEMORY_CAST (mem)->context, "cuda-device-id",
          device, NULL);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (out, g_bytes_new (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }
  gst_object_unref (sink);
  return out;
}

/* Runs @desc to its end, failing on an error */
static GstElement *
start (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s did not start", desc);
  return pipeline;
}

static void
finish (GstElement * pipeline, const gchar * desc)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  GError *error = NULL;

  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, NULL);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: %s",
      desc, error ? error->message : "no end in 60 s");
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

static void
assert_equal_outputs (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  guint i;

  fail_unless (a->len > 0, "%s: no output", what);
  fail_unless_equals_int (a->len, b->len);
  for (i = 0; i < a->len; i++)
    fail_unless (g_bytes_equal (a->pdata[i], b->pdata[i]), "%s: buffer %u "
        "differs from device 0's", what, i);
}

/* Each element alone, its input uploaded on device 1: it converts there,
 * as on device 0 */
GST_START_TEST (test_uploads_on_device_1)
{
  guint c;

  for (c = 0; c < G_N_ELEMENTS (chains); c++) {
    GPtrArray *outs[2];
    gint d, device;

    for (d = 0; d < 2; d++) {
      gchar *desc = chain_on (c, d);
      gchar *name = g_strdup_printf ("out%d", d);
      GstElement *pipeline = start (desc);

      outs[d] = collect (pipeline, name, &device);
      finish (pipeline, desc);
      /* the identity's and convert-to-video outputs are downloaded */
      if (device >= 0)
        fail_unless_equals_int (device, d);
      g_free (name);
      g_free (desc);
    }
    assert_equal_outputs (outs[0], outs[1], chains[c]);
    g_print ("device 1 equal to device 0: %u buffers of %s\n", outs[0]->len,
        chains[c]);
    g_ptr_array_unref (outs[0]);
    g_ptr_array_unref (outs[1]);
  }
}

GST_END_TEST;

/* Both devices in one pipeline: each branch on its own device, each
 * element following its own input */
GST_START_TEST (test_both_devices_in_one_pipeline)
{
  guint c;

  for (c = 0; c < G_N_ELEMENTS (chains); c++) {
    gchar *d0 = chain_on (c, 0), *d1 = chain_on (c, 1);
    gchar *desc;
    GstElement *pipeline;
    GPtrArray *a, *b;
    gint device_a, device_b;

    desc = g_strdup_printf ("%s %s", d0, d1);
    pipeline = start (desc);
    /* both sinks must be drained as they fill: alternate */
    a = collect (pipeline, "out0", &device_a);
    b = collect (pipeline, "out1", &device_b);
    finish (pipeline, desc);
    if (device_a >= 0)
      fail_unless (device_a == 0 && device_b == 1);
    assert_equal_outputs (a, b, desc);
    g_ptr_array_unref (a);
    g_ptr_array_unref (b);
    g_free (desc);
    g_free (d0);
    g_free (d1);
  }
}

GST_END_TEST;

/* Decoded on device 1 (nvh264device1dec) against device 0 (nvh264dec),
 * through each single-frame element */
GST_START_TEST (test_decoder_on_device_1)
{
  static const gchar *const tails[] = {
    "cudacacheconvert ! video/x-raw(memory:CUDAMemory),format=RGBA,"
        "width=320,height=320 ! cudadownload",
    "cudacacheconvert ! other/tensors(memory:CUDAMemory),types=float32,"
        "layout=NCHW,dimensions=299:299:3:1",
    "cudacacheidentity ! cudadownload",
  };
  static const gchar *const decoders[] = { "nvh264dec", "nvh264device1dec" };
  guint t, d;

  for (d = 0; d < 2; d++) {
    GstElementFactory *f = gst_element_factory_find (decoders[d]);

    fail_unless (f != NULL, "%s is not registered: the NVDEC decoders of "
        "both devices are needed here", decoders[d]);
    gst_object_unref (f);
  }
  {
    GstElementFactory *f = gst_element_factory_find ("x264enc");

    fail_unless (f != NULL, "x264enc is not registered "
        "(gstreamer1.0-plugins-ugly)");
    gst_object_unref (f);
  }

  for (t = 0; t < G_N_ELEMENTS (tails); t++) {
    GPtrArray *outs[2];
    gint device;

    for (d = 0; d < 2; d++) {
      gchar *desc = g_strdup_printf ("videotestsrc num-buffers=8 "
          "pattern=ball ! video/x-raw,format=I420,width=640,height=360 ! "
          "x264enc speed-preset=ultrafast key-int-max=4 ! h264parse ! %s ! "
          "%s ! appsink name=out sync=false", decoders[d], tails[t]);
      GstElement *pipeline = start (desc);

      outs[d] = collect (pipeline, "out", &device);
      finish (pipeline, desc);
      if (device >= 0)
        fail_unless_equals_int (device, (gint) d);
      g_free (desc);
    }
    assert_equal_outputs (outs[0], outs[1], tails[t]);
    g_print ("nvh264device1dec equal to nvh264dec: %u buffers through %s\n",
        outs[0]->len, tails[t]);
    g_ptr_array_unref (outs[0]);
    g_ptr_array_unref (outs[1]);
  }
}

GST_END_TEST;

static Suite *
cudacachedevices_suite (void)
{
  Suite *s = suite_create ("cudacachedevices");
  TCase *tc = tcase_create ("general");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_uploads_on_device_1);
  tcase_add_test (tc, test_both_devices_in_one_pipeline);
  tcase_add_test (tc, test_decoder_on_device_1);

  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (gst_cuda_cache_device_get_count () < 2) {
    g_print ("SKIP: %u CUDA device(s) here; the two-GPU suite runs on a "
        "machine with two or more\n", gst_cuda_cache_device_get_count ());
    return 77;
  }
  /* CUDA does not survive fork () once initialised */
  g_setenv ("CK_FORK", "no", TRUE);
  return gst_check_run_suite (cudacachedevices_suite (), "cudacachedevices",
      __FILE__);
}
