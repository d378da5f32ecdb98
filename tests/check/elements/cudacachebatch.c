/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacachebatch on system memory: every slot the frame converted alone,
 * sources of different sizes and formats, a caps change on one pad, the
 * end of one stream, the batch size, and refusals that say why. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cudacache-batch.h"

GST_START_TEST (test_slots_are_solo_conversions)
{
  fail_unless_equals_int (batch_check_slots (batch_sources, batch_frames, 4, "",
          "letterbox=true fill-value=114 scale=0.00392156862745098 "
          "mean=\"<0.485, 0.456, 0.406>\" std=\"<0.229, 0.224, 0.225>\"",
          FLOAT_NCHW ("", 4), FLOAT_NCHW ("", 1)), 4);
  fail_unless_equals_int (batch_check_slots (batch_sources, batch_frames, 4, "",
          "method=bilinear channel-order=bgr", U8_NHWC ("", 4), U8_NHWC ("",
              1)), 4);
}

GST_END_TEST;

/* one pad's frames change size and format mid-stream: each slot still
 * its frame converted alone */
GST_START_TEST (test_caps_change_on_one_pad)
{
  static const gchar *const changing[] = {
    "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! "
        "concat name=c videotestsrc num-buffers=3 pattern=ball ! "
        "video/x-raw,format=NV12,width=50,height=30 ! c. c.",
    "videotestsrc num-buffers=6 pattern=colors ! "
        "video/x-raw,format=RGBx,width=32,height=32",
  };
  static const guint six[] = { 6, 6 };

  fail_unless_equals_int (batch_check_slots (changing, six, 2, "",
          "letterbox=true", U8_NHWC ("", 2), U8_NHWC ("", 1)), 6);
}

GST_END_TEST;

/* batch-size above the pads: the slots of no pad absent */
GST_START_TEST (test_batch_size_leaves_slots_absent)
{
  GArray *present = g_array_new (FALSE, FALSE, sizeof (gboolean));
  GPtrArray *batches = batch_run ("cudacachebatch name=b batch-size=3 ! "
      U8_NHWC ("", 3) " ! appsink name=out sync=false "
      "videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! b.",
      present, NULL);

  fail_unless_equals_int (batches->len, 2);
  fail_unless_equals_int (present->len, 6);
  fail_unless (g_array_index (present, gboolean, 0));
  fail_if (g_array_index (present, gboolean, 1));
  fail_if (g_array_index (present, gboolean, 2));
  g_ptr_array_unref (batches);
  g_array_unref (present);
}

GST_END_TEST;

/* live: a source that stalls leaves its slot absent in every batch, and
 * batches still go out at their deadline */
GST_START_TEST (test_live_stalled_source)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b "
      "latency=50000000 ! " U8_NHWC ("", 2) " ! appsink name=out "
      "videotestsrc is-live=true num-buffers=5 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! queue ! b.sink_0 "
      "appsrc is-live=true format=time "
      "caps=video/x-raw,format=RGBA,width=32,height=32,framerate=30/1 ! "
      "queue ! b.sink_1", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  guint i;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 5; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);
    GstCudaCacheBatchMeta *meta;

    fail_unless (sample != NULL, "batch %u did not come", i);
    meta = gst_buffer_get_cuda_cache_batch_meta (gst_sample_get_buffer
        (sample));
    fail_unless (meta != NULL && meta->n_slots == 2);
    fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 0)->present);
    fail_if (gst_cuda_cache_batch_meta_get_slot (meta, 1)->present);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A source added while PLAYING fills its slot from its first frame, each
 * of its frames batched once; released after its end, its slot goes
 * absent again */
GST_START_TEST (test_pad_added_and_released_while_playing)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b "
      "batch-size=2 ! " U8_NHWC ("", 2) " ! appsink name=out sync=false "
      "max-buffers=1 videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! b.sink_0", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstElement *batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstElement *late = NULL;
  GstPad *pad = NULL, *src;
  GstSample *sample;
  guint n = 0, with_late = 0, after_release = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstCudaCacheBatchMeta *meta =
        gst_buffer_get_cuda_cache_batch_meta (gst_sample_get_buffer (sample));
    const GstCudaCacheBatchSlot *slot;

    fail_unless (meta != NULL && meta->n_slots == 2);
    fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 0)->present);
    slot = gst_cuda_cache_batch_meta_get_slot (meta, 1);
    if (slot->present) {
      fail_unless (late != NULL, "a slot of no pad present");
      fail_unless_equals_string (slot->pad_name, GST_PAD_NAME (pad));
      with_late++;
    } else if (pad && !late) {
      after_release++;
    }
    gst_sample_unref (sample);
    n++;

    if (n == 5) {
      /* a second source, 5 frames, into a pad requested now */
      late = gst_parse_bin_from_description ("videotestsrc num-buffers=5 "
          "pattern=ball ! video/x-raw,format=NV12,width=40,height=30", TRUE,
          NULL);
      fail_unless (late != NULL);
      gst_bin_add (GST_BIN (pipeline), late);
      pad = gst_element_request_pad_simple (batch, "sink_%u");
      src = gst_element_get_static_pad (late, "src");
      fail_unless_equals_int (gst_pad_link (src, pad), GST_PAD_LINK_OK);
      gst_object_unref (src);
      fail_unless (gst_element_sync_state_with_parent (late));
    } else if (late && with_late == 5) {
      /* its end reached: released while the other pad goes on */
      gst_element_set_state (late, GST_STATE_NULL);
      gst_bin_remove (GST_BIN (pipeline), late);
      late = NULL;
      gst_element_release_request_pad (batch, pad);
    }
  }
  fail_unless_equals_int (with_late, 5);
  fail_unless_equals_int (n, 30);
  fail_unless (after_release > 0);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_clear_object (&pad);
  gst_object_unref (batch);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* An option changed while PLAYING applies to the batches after it: scale
 * 1 to 0.5 halves every value of a still picture's float32 slots */
GST_START_TEST (test_option_changed_while_playing)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b ! "
      FLOAT_NCHW ("", 1) " ! appsink name=out sync=false max-buffers=1 "
      "videotestsrc num-buffers=12 pattern=colors ! "
      "video/x-raw,width=64,height=48 ! b.",
      NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstElement *batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GBytes *first = NULL, *last = NULL;
  GstSample *sample;
  const gfloat *a, *b;
  gsize size, k;
  guint n = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstMapInfo map;

    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
            GST_MAP_READ));
    if (last)
      g_bytes_unref (last);
    last = g_bytes_new (map.data, map.size);
    if (!first)
      first = g_bytes_ref (last);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
    if (++n == 2)
      g_object_set (batch, "scale", 0.5, NULL);
  }
  fail_unless_equals_int (n, 12);
  a = g_bytes_get_data (first, &size);
  b = g_bytes_get_data (last, NULL);
  for (k = 0; k < size / sizeof (gfloat); k++)
    fail_unless (b[k] == a[k] * 0.5f, "value %" G_GSIZE_FORMAT ": %g, not "
        "half of %g", k, b[k], a[k]);

  g_bytes_unref (first);
  g_bytes_unref (last);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (batch);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* With batch-size 0 a pad requested while the element negotiates the
 * batch's size (here: as it sends its allocation query, before the batch
 * is made) waits for the next batch, negotiated for it, rather than
 * making a batch of more pads than slots */
static GstPadProbeReturn
request_pad_once (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstPad **late = user_data;

  if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) == GST_QUERY_ALLOCATION
      && !*late) {
    GstElement *batch = GST_ELEMENT (gst_object_get_parent (GST_OBJECT (pad)));

    *late = gst_element_request_pad_simple (batch, "sink_%u");
    gst_object_unref (batch);
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_pad_requested_while_negotiating)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b ! "
      "other/tensors,format=static,num_tensors=1,types=uint8,layout=NHWC,"
      "dimensions=(string){ \"3:33:21:2\", \"3:33:21:3\" } ! "
      "appsink name=out sync=false max-buffers=1 "
      "videotestsrc num-buffers=6 ! video/x-raw,width=64,height=48 ! b. "
      "videotestsrc num-buffers=6 ! video/x-raw,width=40,height=30 ! b.",
      NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstElement *batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstPad *src = gst_element_get_static_pad (batch, "src");
  GstPad *late = NULL;
  GstSample *sample;
  GstMessage *msg;
  guint n = 0;

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      request_pad_once, &late, NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstCudaCacheBatchMeta *meta;

    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);
    msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline), GST_MESSAGE_ERROR);
    if (msg) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      fail ("%s", err->message);
    }
    if (!sample && gst_app_sink_is_eos (GST_APP_SINK (sink)))
      break;
    if (!sample)
      continue;
    meta = gst_buffer_get_cuda_cache_batch_meta (gst_sample_get_buffer
        (sample));
    fail_unless (meta != NULL);
    fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 0)->present);
    fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 1)->present);
    gst_sample_unref (sample);
    /* the pad, never linked, goes: the batches go on without it */
    if (n++ == 0) {
      fail_unless (late != NULL);
      gst_element_release_request_pad (batch, late);
    }
  }
  fail_unless_equals_int (n, 6);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_clear_object (&late);
  gst_object_unref (src);
  gst_object_unref (batch);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_refusals_say_why)
{
  gchar *error;

  /* downstream's batch is not the element's */
  error = batch_run_error ("cudacachebatch name=b ! " U8_NHWC ("", 3)
      " ! fakesink videotestsrc num-buffers=2 ! b. "
      "videotestsrc num-buffers=2 ! b.");
  fail_unless (error && strstr (error, "batches of 3") &&
      strstr (error, "batches of 2"), "%s", error ? error : "no error");
  g_free (error);

  /* more pads than batch-size */
  error = batch_run_error ("cudacachebatch name=b batch-size=1 ! "
      U8_NHWC ("", 1) " ! fakesink videotestsrc num-buffers=2 ! b. "
      "videotestsrc num-buffers=2 ! b.");
  fail_unless (error && strstr (error, "2 sink pads"), "%s",
      error ? error : "no error");
  g_free (error);

  /* no tensor downstream */
  error = batch_run_error ("cudacachebatch name=b ! video/x-raw ! fakesink "
      "videotestsrc num-buffers=2 ! b.");
  fail_unless (error != NULL);
  g_free (error);
}

GST_END_TEST;

/* A frame sink_4 gives that the converter cannot read, among good ones:
 * frame @bad in @caps (NULL: its caps stay) and passed to @spoil (NULL:
 * left as it is) */
typedef struct
{
  guint bad;
  const gchar *caps;
  void (*spoil) (GstBuffer * buf);
} BadFrame;

static GstBuffer *
make_bad_frame (GstAppSrc * src, guint pad, guint frame, gpointer user_data)
{
  const BadFrame *b = user_data;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, BATCH_FRAME_SIZE, NULL);

  gst_buffer_memset (buf, 0, 10 * frame + pad, BATCH_FRAME_SIZE);
  if (pad == 1 && frame == b->bad) {
    if (b->caps) {
      GstCaps *caps = gst_caps_from_string (b->caps);

      gst_app_src_set_caps (src, caps);
      gst_caps_unref (caps);
    }
    if (b->spoil)
      b->spoil (buf);
  }
  return buf;
}

static gchar *
batch_run_bad_frame (guint bad, const gchar * caps,
    void (*spoil) (GstBuffer * buf), guint * batches)
{
  BadFrame b = { bad, caps, spoil };

  return batch_run_three_pads ("", NULL, make_bad_frame, &b, batches);
}

static void
spoil_short (GstBuffer * buf)
{
  gst_buffer_resize (buf, 0, BATCH_FRAME_SIZE / 2);
}

static void
spoil_crop (GstBuffer * buf)
{
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

  /* 8 columns past the frame's right edge */
  crop->x = BATCH_FRAME_W / 2;
  crop->y = 0;
  crop->width = BATCH_FRAME_W / 2 + 8;
  crop->height = BATCH_FRAME_H;
}

GST_START_TEST (test_bad_frame_names_its_pad)
{
  gchar *error;
  guint batches;

  /* shorter than its caps */
  error = batch_run_bad_frame (2, NULL, spoil_short, &batches);
  batch_check_names_sink_4 (error, batches, 2,
      "could not map the input buffer");
  g_free (error);

  /* a crop meta beyond the frame */
  error = batch_run_bad_frame (2, NULL, spoil_crop, &batches);
  batch_check_names_sink_4 (error, batches, 2, "GstVideoCropMeta");
  g_free (error);
}

GST_END_TEST;

/* Caps the pad takes (its template's) but the converter cannot convert:
 * refused at the pad's next frame, naming the pad */
GST_START_TEST (test_caps_refused_names_its_pad)
{
  gchar *error;
  guint batches;

  /* a frame wider than GStreamer lays out (a row of 4 GiB), mid-stream */
  error = batch_run_bad_frame (2, "video/x-raw,format=RGBA,width=1073741824,"
      "height=1,framerate=30/1", NULL, &batches);
  batch_check_names_sink_4 (error, batches, 2,
      "caps do not describe a video frame");
  g_free (error);

  /* interlaced, from the first frame */
  error =
      batch_run_bad_frame (0, BATCH_FRAME_CAPS ",interlace-mode=interleaved",
      NULL, &batches);
  batch_check_names_sink_4 (error, batches, 0, "interlaced");
  g_free (error);
}

GST_END_TEST;

static Suite *
cudacachebatch_suite (void)
{
  Suite *s = suite_create ("cudacachebatch");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_slots_are_solo_conversions);
  tcase_add_test (tc, test_caps_change_on_one_pad);
  tcase_add_test (tc, test_batch_size_leaves_slots_absent);
  tcase_add_test (tc, test_live_stalled_source);
  tcase_add_test (tc, test_pad_added_and_released_while_playing);
  tcase_add_test (tc, test_option_changed_while_playing);
  tcase_add_test (tc, test_pad_requested_while_negotiating);
  tcase_add_test (tc, test_refusals_say_why);
  tcase_add_test (tc, test_bad_frame_names_its_pad);
  tcase_add_test (tc, test_caps_refused_names_its_pad);

  return s;
}

GST_CHECK_MAIN (cudacachebatch);
