/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacachebatch on system memory: every slot the frame converted alone,
 * sources of different sizes and formats, a caps change on one pad, the
 * end of one stream, the batch size, and refusals that say why. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstharness.h>

#include "../cudacache-batch.h"
#include "../cudacache-picture.h"
#include "../cudacache-held.h"
#include "../cudacache-crops.h"

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

/* The frames @object (the element or a sink pad) never batched */
static guint64
dropped (gpointer object)
{
  guint64 n;

  g_object_get (object, "dropped", &n, NULL);
  return n;
}

/* live: a source that stalls leaves its slot absent in every batch, and
 * batches still go out at their deadline, each with a frame of the
 * healthy source: none of its frames is dropped */
GST_START_TEST (test_live_stalled_source)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b "
      "latency=50000000 ! " U8_NHWC ("", 2) " ! appsink name=out "
      "videotestsrc is-live=true num-buffers=30 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! queue ! b.sink_0 "
      "appsrc is-live=true format=time "
      "caps=video/x-raw,format=RGBA,width=32,height=32,framerate=30/1 ! "
      "queue ! b.sink_1", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstElement *batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstSample *sample;
  guint n = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* the healthy source's 30 frames, then nothing (the stalled one never
   * ends) */
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              (n == 0 ? 10 : 2) * GST_SECOND))) {
    GstCudaCacheBatchMeta *meta =
        gst_buffer_get_cuda_cache_batch_meta (gst_sample_get_buffer (sample));

    fail_unless (meta != NULL && meta->n_slots == 2);
    fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 0)->present);
    fail_if (gst_cuda_cache_batch_meta_get_slot (meta, 1)->present);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless_equals_int (n, 30);
  fail_unless_equals_uint64 (dropped (batch), 0);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (batch);
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

static GstPadProbeReturn
count_cached_frames (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint *counts = user_data;

  counts[0]++;
  if (buf->pool && GST_IS_CUDA_CACHE_SYSTEM_POOL (buf->pool))
    counts[1]++;
  return GST_PAD_PROBE_OK;
}

/* Each sink pad offers upstream a pool over the cache, as cudacacheconvert
 * does: the frames of a source that changes size come from the cache,
 * through both sizes. */
GST_START_TEST (test_pads_offer_the_cache_pool)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b ! "
      U8_NHWC ("", 2) " ! fakesink videotestsrc num-buffers=4 ! "
      "video/x-raw,width=64,height=48 ! b.sink_0 concat name=c ! b.sink_1 "
      "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=37,"
      "height=23 ! c. videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,"
      "width=90,height=30 ! c.", NULL);
  GstElement *b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  guint counts[2][2] = { {0,}, };
  GstMessage *msg;
  guint i;

  for (i = 0; i < 2; i++) {
    gchar *name = g_strdup_printf ("sink_%u", i);
    GstPad *pad = gst_element_get_static_pad (b, name);

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_cached_frames,
        counts[i], NULL);
    gst_object_unref (pad);
    g_free (name);
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (i = 0; i < 2; i++) {
    fail_unless_equals_int (counts[i][0], 4);
    fail_unless_equals_int (counts[i][1], 4);
  }
  gst_object_unref (b);
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
  GstElement *pipeline, *b;
  GstMessage *msg;
  GError *err = NULL;
  gchar *error;

  /* downstream's batch is not the element's */
  error = batch_run_error ("cudacachebatch name=b ! " U8_NHWC ("", 3)
      " ! fakesink videotestsrc num-buffers=2 ! b. "
      "videotestsrc num-buffers=2 ! b.");
  fail_unless (error && strstr (error, "batches of 3") &&
      strstr (error, "batches of 2"), "%s", error ? error : "no error");
  g_free (error);

  /* more pads than batch-size, set after the pads were requested: the
   * batches are refused */
  pipeline = gst_parse_launch ("cudacachebatch name=b ! " U8_NHWC ("", 1)
      " ! fakesink videotestsrc num-buffers=2 ! b. videotestsrc "
      "num-buffers=2 ! b.", NULL);
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  g_object_set (b, "batch-size", 1, NULL);
  gst_object_unref (b);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "2 sink pads"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  /* no tensor downstream */
  error = batch_run_error ("cudacachebatch name=b ! video/x-raw ! fakesink "
      "videotestsrc num-buffers=2 ! b.");
  fail_unless (error != NULL);
  g_free (error);
}

GST_END_TEST;

/* A pad past batch-size is refused at its request, with a warning that
 * says why, as mode=rois refuses a second pad: granted, it would stop
 * the pipeline at its first batch */
GST_START_TEST (test_pad_past_batch_size_refused)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *b = gst_element_factory_make ("cudacachebatch", NULL);
  GstPad *pads[4];
  GstMessage *msg;
  GError *err = NULL;
  guint i;

  g_object_set (b, "batch-size", 3, NULL);
  gst_bin_add (GST_BIN (pipeline), b);
  for (i = 0; i < 4; i++)
    pads[i] = gst_element_request_pad_simple (b, "sink_%u");
  for (i = 0; i < 3; i++)
    fail_unless (pads[i] != NULL);
  fail_unless (pads[3] == NULL, "a 4th pad with batch-size=3");
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline), GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "batch-size=3"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  /* a released pad makes room */
  gst_element_release_request_pad (b, pads[0]);
  gst_object_unref (pads[0]);
  pads[0] = gst_element_request_pad_simple (b, "sink_%u");
  fail_unless (pads[0] != NULL);
  for (i = 0; i < 3; i++)
    gst_object_unref (pads[i]);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* RGBA frames of a 30 and a 10 frames-per-second source */
#define FAST_CAPS "video/x-raw,format=RGBA,width=16,height=8,framerate=30/1"
#define SLOW_CAPS "video/x-raw,format=RGBA,width=12,height=10,framerate=10/1"
#define FAST_FRAME (GST_SECOND / 30)
#define SLOW_FRAME (GST_SECOND / 10)

static void
push_frame (GstHarness * h, const gchar * caps, GstClockTime pts,
    GstClockTime duration)
{
  fail_unless_equals_int (gst_harness_push (h, batch_noise_frame (caps,
              (guint32) pts, pts, duration)), GST_FLOW_OK);
}

/* The next batch @h gives: its window (PTS and duration, running time
 * in the output's segment, which starts at 0) and its slots' PTS (NONE
 * for an absent slot); each present slot's frame, in running time
 * through @starts[i] (its pad's segment start), lies in the window */
static void
pull_window (GstHarness * h, GstClockTime * window, GstClockTime * pts,
    guint n, const GstClockTime * starts)
{
  GstBuffer *batch = gst_harness_pull (h);
  GstCudaCacheBatchMeta *meta;
  guint i;

  fail_unless (batch != NULL, "no batch");
  window[0] = GST_BUFFER_PTS (batch);
  window[1] = GST_BUFFER_DURATION (batch);
  meta = gst_buffer_get_cuda_cache_batch_meta (batch);
  fail_unless (meta != NULL && meta->n_slots == n);
  for (i = 0; i < n; i++) {
    const GstCudaCacheBatchSlot *slot =
        gst_cuda_cache_batch_meta_get_slot (meta, i);

    pts[i] = slot->present ? slot->pts : GST_CLOCK_TIME_NONE;
    if (!slot->present)
      continue;
    fail_unless (slot->pts - starts[i] >= window[0] &&
        slot->pts - starts[i] < window[0] + window[1], "slot %u: a frame "
        "of %" GST_TIME_FORMAT " in the batch of %" GST_TIME_FORMAT " + %"
        GST_TIME_FORMAT, i, GST_TIME_ARGS (slot->pts - starts[i]),
        GST_TIME_ARGS (window[0]), GST_TIME_ARGS (window[1]));
  }
  gst_buffer_unref (batch);
}

/* A live batcher of two pads, 30 and 10 frames a second, the first's
 * segment starting at @fast_start, on the first harness's test clock; a
 * latency that lets the frames of a few batches queue */
static GstElement *
live_pair (GstClockTime fast_start, GstHarness ** fast, GstHarness ** slow)
{
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GstSegment segment;

  g_object_set (batch, "batch-size", 2, "latency", GST_SECOND, NULL);
  *fast = gst_harness_new_with_element (batch, "sink_0", "src");
  *slow = gst_harness_new_with_element (batch, "sink_1", NULL);
  gst_harness_use_testclock (*fast);
  gst_harness_set_src_caps_str (*fast, FAST_CAPS);
  gst_harness_set_src_caps_str (*slow, SLOW_CAPS);
  gst_harness_set_sink_caps_str (*fast, U8_NHWC ("", 2));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.start = segment.time = fast_start;
  fail_unless (gst_harness_push_event (*fast,
          gst_event_new_segment (&segment)));
  return batch;
}

/* Live, sources of 30 and 10 frames per second, the faster's segment at
 * 3600 s (as a transport stream's): each batch is a window of running
 * time one frame of the faster long, and each pad's frame goes into the
 * window its running time falls in. A frame of a later window waits
 * queued; one that comes after its window went out is dropped and
 * counted. Frames are pushed before the batch they go to can be made,
 * and deadlines pass only when the test clock is moved, so what each
 * batch finds is the test's, not the machine's load. */
GST_START_TEST (test_live_frames_in_their_window)
{
  const GstClockTime ts = 3600 * GST_SECOND;
  const GstClockTime starts[2] = { ts, 0 };
  GstHarness *fast, *slow;
  GstElement *batch = live_pair (ts, &fast, &slow);
  GstPad *fast_pad = gst_element_get_static_pad (batch, "sink_0");
  GstPad *slow_pad = gst_element_get_static_pad (batch, "sink_1");
  GstClockTime pts[2], window[2];

  /* the slow pad's first frame is of the fourth window: it waits */
  push_frame (fast, FAST_CAPS, ts, FAST_FRAME);
  push_frame (fast, FAST_CAPS, ts + FAST_FRAME, FAST_FRAME);
  push_frame (slow, SLOW_CAPS, SLOW_FRAME, SLOW_FRAME);
  pull_window (fast, window, pts, 2, starts);
  fail_unless_equals_uint64 (window[0], 0);
  fail_unless_equals_uint64 (window[1], FAST_FRAME);
  fail_unless_equals_uint64 (pts[0], ts);
  fail_unless_equals_uint64 (pts[1], GST_CLOCK_TIME_NONE);
  pull_window (fast, window, pts, 2, starts);
  fail_unless_equals_uint64 (window[0], FAST_FRAME);
  fail_unless_equals_uint64 (pts[0], ts + FAST_FRAME);
  fail_unless_equals_uint64 (pts[1], GST_CLOCK_TIME_NONE);

  /* the third window's deadline passes without a frame: no batch (and
   * the element waits for the fourth's) */
  fail_unless (gst_harness_crank_single_clock_wait (fast));
  fail_unless (gst_harness_wait_for_clock_id_waits (fast, 1, 10));
  push_frame (fast, FAST_CAPS, ts + 3 * FAST_FRAME, FAST_FRAME);
  pull_window (fast, window, pts, 2, starts);
  fail_unless_equals_uint64 (window[0], 3 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[0], ts + 3 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[1], SLOW_FRAME);

  /* the fifth window goes at its deadline; its frame, later, is late */
  push_frame (slow, SLOW_CAPS, 2 * SLOW_FRAME, SLOW_FRAME);
  fail_unless (gst_harness_crank_single_clock_wait (fast));
  fail_unless (gst_harness_wait_for_clock_id_waits (fast, 1, 10));
  push_frame (fast, FAST_CAPS, ts + 4 * FAST_FRAME, FAST_FRAME);
  push_frame (fast, FAST_CAPS, ts + 5 * FAST_FRAME, FAST_FRAME);
  pull_window (fast, window, pts, 2, starts);
  fail_unless_equals_uint64 (window[0], 5 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[0], ts + 5 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[1], GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (dropped (fast_pad), 1);
  fail_unless_equals_uint64 (dropped (slow_pad), 0);
  fail_unless_equals_uint64 (dropped (batch), 1);

  /* the slow frame of 0.2 s in its own window */
  push_frame (fast, FAST_CAPS, ts + 6 * FAST_FRAME, FAST_FRAME);
  pull_window (fast, window, pts, 2, starts);
  fail_unless_equals_uint64 (window[0], 6 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[0], ts + 6 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[1], 2 * SLOW_FRAME);
  fail_unless_equals_int (gst_harness_buffers_in_queue (fast), 0);

  gst_object_unref (fast_pad);
  gst_object_unref (slow_pad);
  gst_harness_teardown (slow);
  gst_harness_teardown (fast);
  gst_object_unref (batch);
}

GST_END_TEST;

/* Live, the element's latency is its window, one frame of the fastest
 * pad, as GstVideoAggregator reports one output frame */
GST_START_TEST (test_live_latency_is_the_window)
{
  GstHarness *fast, *slow;
  GstElement *batch = live_pair (0, &fast, &slow);
  GstQuery *query = gst_query_new_latency ();
  GstClockTime min = 0, max = 0;
  gboolean live = FALSE;

  /* the caps are taken with the first frames */
  push_frame (fast, FAST_CAPS, 0, FAST_FRAME);
  push_frame (slow, SLOW_CAPS, 0, SLOW_FRAME);
  gst_buffer_unref (gst_harness_pull (fast));
  fail_unless (gst_pad_peer_query (fast->sinkpad, query));
  gst_query_parse_latency (query, &live, &min, &max);
  fail_unless (live);
  /* the harness's sources report none; the latency property adds */
  fail_unless_equals_uint64 (min, FAST_FRAME + GST_SECOND);
  gst_query_unref (query);

  gst_harness_teardown (slow);
  gst_harness_teardown (fast);
  gst_object_unref (batch);
}

GST_END_TEST;

/* Live, a frame within a window of the end of time: its window ends with
 * time itself, and the frame is batched. Its end once wrapped past 0, a
 * window nothing fell in, which the element tried again without end
 * (tests/fuzz/corpus/batch/live-end-of-time) */
GST_START_TEST (test_live_frame_at_the_end_of_time)
{
  const GstClockTime pts = G_MAXUINT64 - 2 * GST_MSECOND;
  GstHarness *fast, *slow;
  GstElement *batch = live_pair (0, &fast, &slow);
  GstCudaCacheBatchMeta *meta;
  GstBuffer *out;

  fail_unless (gst_harness_push_event (slow, gst_event_new_eos ()));
  push_frame (fast, FAST_CAPS, pts, GST_MSECOND);
  out = gst_harness_pull (fast);
  fail_unless (out != NULL, "no batch");
  meta = gst_buffer_get_cuda_cache_batch_meta (out);
  fail_unless (meta != NULL && meta->n_slots == 2);
  fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 0)->present);
  fail_unless_equals_uint64 (gst_cuda_cache_batch_meta_get_slot (meta,
          0)->pts, pts);
  fail_if (gst_cuda_cache_batch_meta_get_slot (meta, 1)->present);
  gst_buffer_unref (out);

  gst_harness_teardown (slow);
  gst_harness_teardown (fast);
  gst_object_unref (batch);
}

GST_END_TEST;

/* Live, a QoS event from downstream saying batches before a running time
 * are late: the windows before it make no batch, their frames dropped and
 * counted, and a QoS message for each, as GstVideoAggregator drops its
 * late output frames */
GST_START_TEST (test_live_qos)
{
  const GstClockTime starts[2] = { 0, 0 };
  GstHarness *fast, *slow;
  GstElement *batch = live_pair (0, &fast, &slow);
  GstBus *bus = gst_bus_new ();
  GstClockTime pts[2], window[2];
  GstMessage *msg;
  guint i;

  gst_element_set_bus (batch, bus);
  push_frame (fast, FAST_CAPS, 0, FAST_FRAME);
  push_frame (slow, SLOW_CAPS, 0, SLOW_FRAME);
  pull_window (fast, window, pts, 2, starts);
  /* downstream: the batches before 3 frames are late */
  fail_unless (gst_harness_push_upstream_event (fast,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.9, 3 * FAST_FRAME, 0)));
  push_frame (fast, FAST_CAPS, FAST_FRAME, FAST_FRAME);
  push_frame (fast, FAST_CAPS, 2 * FAST_FRAME, FAST_FRAME);
  push_frame (fast, FAST_CAPS, 3 * FAST_FRAME, FAST_FRAME);
  push_frame (slow, SLOW_CAPS, SLOW_FRAME, SLOW_FRAME);
  pull_window (fast, window, pts, 2, starts);
  fail_unless_equals_uint64 (window[0], 3 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[0], 3 * FAST_FRAME);
  fail_unless_equals_uint64 (pts[1], SLOW_FRAME);
  fail_unless_equals_uint64 (dropped (batch), 2);
  for (i = 1; i <= 2; i++) {
    guint64 running_time, processed, qos_dropped;
    GstFormat format;

    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS);
    fail_unless (msg != NULL, "no QoS message for the window %u", i);
    gst_message_parse_qos (msg, NULL, &running_time, NULL, NULL, NULL);
    fail_unless_equals_uint64 (running_time, i * FAST_FRAME);
    gst_message_parse_qos_stats (msg, &format, &processed, &qos_dropped);
    fail_unless_equals_uint64 (processed, 1);
    fail_unless_equals_uint64 (qos_dropped, i);
    gst_message_unref (msg);
  }

  gst_element_set_bus (batch, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (slow);
  gst_harness_teardown (fast);
  gst_object_unref (batch);
}

GST_END_TEST;

/* Plays @desc (a batcher "b" of two slots into an appsink "out", its
 * sources' segments starting at 0, so that a frame's PTS is its running
 * time) to its end: each present slot's frame lies within its batch's
 * window; @present counts each slot's frames, @pts0 (where given) takes
 * the first slot's PTS in order. Returns the frames the element dropped. */
static guint64
run_live (const gchar * desc, guint present[2], GArray * pts0)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstElement *batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstSample *sample;
  guint64 n;

  present[0] = present[1] = 0;
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              5 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstCudaCacheBatchMeta *meta = gst_buffer_get_cuda_cache_batch_meta (buf);
    guint i;

    fail_unless (meta != NULL && meta->n_slots == 2);
    for (i = 0; i < 2; i++) {
      const GstCudaCacheBatchSlot *slot =
          gst_cuda_cache_batch_meta_get_slot (meta, i);

      if (!slot->present)
        continue;
      present[i]++;
      if (i == 0 && pts0)
        g_array_append_val (pts0, slot->pts);
      fail_unless (slot->pts < GST_BUFFER_PTS (buf) +
          GST_BUFFER_DURATION (buf), "a frame of %" GST_TIME_FORMAT
          " in the batch of %" GST_TIME_FORMAT, GST_TIME_ARGS (slot->pts),
          GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
    }
    gst_sample_unref (sample);
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  n = dropped (batch);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (batch);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return n;
}

/* Live sources at 30 and 10 frames per second, latency 0: one batch per
 * frame of the faster, every frame of both batched, none dropped (the
 * element's own latency, its window, is what the batches wait for) */
GST_START_TEST (test_live_cameras_lose_nothing)
{
  guint present[2];

  if (RUNNING_ON_VALGRIND || RUNNING_UNDER_ASAN) {
    g_print ("SKIP test_live_cameras_lose_nothing: a real-time check, not "
        "under valgrind or AddressSanitizer\n");
    return;
  }
  fail_unless_equals_uint64 (run_live ("cudacachebatch name=b latency=0 ! "
          U8_NHWC ("", 2) " ! appsink name=out sync=false "
          "videotestsrc is-live=true num-buffers=60 ! " FAST_CAPS " ! queue ! "
          "b.sink_0 videotestsrc is-live=true num-buffers=20 ! " SLOW_CAPS
          " ! queue ! b.sink_1", present, NULL), 0);
  fail_unless_equals_int (present[0], 60);
  fail_unless_equals_int (present[1], 20);
}

GST_END_TEST;

/* elements.md's transport stream and live camera: a branch that is not
 * live (it gives its frames as fast as it is let) into a live batcher:
 * each of its frames waits for its window, none is taken early, none is
 * dropped */
GST_START_TEST (test_file_and_camera_lose_no_frame)
{
  GArray *pts0 = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  guint present[2], k;

  if (RUNNING_ON_VALGRIND || RUNNING_UNDER_ASAN) {
    g_print ("SKIP test_file_and_camera_lose_no_frame: a real-time check, "
        "not under valgrind or AddressSanitizer\n");
    g_array_unref (pts0);
    return;
  }
  fail_unless_equals_uint64 (run_live ("cudacachebatch name=b ! "
          U8_NHWC ("", 2) " ! appsink name=out sync=false "
          "videotestsrc num-buffers=30 ! " FAST_CAPS " ! queue ! b.sink_0 "
          "videotestsrc is-live=true num-buffers=30 ! " FAST_CAPS " ! queue ! "
          "b.sink_1", present, pts0), 0);
  fail_unless_equals_int (present[0], 30);
  for (k = 0; k < pts0->len; k++)
    fail_unless_equals_uint64 (g_array_index (pts0, GstClockTime, k),
        gst_util_uint64_scale (k, GST_SECOND, 30));
  g_array_unref (pts0);
}

GST_END_TEST;

/* Not live, sources of 30 and 10 frames per second: one frame of each
 * pad per batch, every frame batched once, in order, nothing dropped */
GST_START_TEST (test_not_live_batches_every_frame)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b ! "
      U8_NHWC ("", 2) " ! appsink name=out sync=false "
      "videotestsrc num-buffers=9 ! " FAST_CAPS " ! b.sink_0 "
      "videotestsrc num-buffers=3 ! " SLOW_CAPS " ! b.sink_1", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstElement *batch = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstPad *pads[2];
  GstSample *sample;
  guint n = 0, i;

  pads[0] = gst_element_get_static_pad (batch, "sink_0");
  pads[1] = gst_element_get_static_pad (batch, "sink_1");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstCudaCacheBatchMeta *meta =
        gst_buffer_get_cuda_cache_batch_meta (gst_sample_get_buffer (sample));

    fail_unless (meta != NULL && meta->n_slots == 2);
    fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 0)->present);
    fail_unless_equals_uint64 (gst_cuda_cache_batch_meta_get_slot (meta,
            0)->pts, gst_util_uint64_scale (n, GST_SECOND, 30));
    fail_unless_equals_int (gst_cuda_cache_batch_meta_get_slot (meta,
            1)->present, n < 3);
    if (n < 3)
      fail_unless_equals_uint64 (gst_cuda_cache_batch_meta_get_slot (meta,
              1)->pts, gst_util_uint64_scale (n, GST_SECOND, 10));
    gst_sample_unref (sample);
    n++;
  }
  fail_unless_equals_int (n, 9);
  for (i = 0; i < 2; i++)
    fail_unless_equals_uint64 (dropped (pads[i]), 0);
  fail_unless_equals_uint64 (dropped (batch), 0);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (i = 0; i < 2; i++)
    gst_object_unref (pads[i]);
  gst_object_unref (batch);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* an odd-sized I420 frame: regions grow to its chroma grid */
#define ROI_CAPS "video/x-raw,format=I420,width=61,height=47,framerate=30/1"

/* Pushes frame @index with @regions into @h; returns it */
static GstBuffer *
roi_push (GstHarness * h, guint index, const BatchRegion * regions, guint n)
{
  GstBuffer *frame = batch_region_frame (ROI_CAPS, index, regions, n);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (frame)),
      GST_FLOW_OK);
  return frame;
}

static GstHarness *
roi_harness (guint batch_size, const gchar * roi_type)
{
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GstHarness *h;

  gst_util_set_object_arg (G_OBJECT (batch), "mode", "rois");
  g_object_set (batch, "batch-size", batch_size, "letterbox", TRUE,
      "fill-value", 114, "roi-type", roi_type, NULL);
  h = gst_harness_new_with_element (batch, "sink_0", "src");
  gst_object_unref (batch);
  gst_harness_set_live (h, FALSE);
  gst_harness_set_src_caps_str (h, ROI_CAPS);
  gst_harness_set_sink_caps_str (h, batch_size == 3 ? U8_NHWC ("", 3) :
      U8_NHWC ("", 2));
  return h;
}

static void
check_roi_batch (GstHarness * h, GstBuffer * frame, guint n_slots,
    const BatchRegion * expected, const GstVideoRectangle * clipped,
    guint n_present)
{
  GstBuffer *batch = gst_harness_pull (h);

  fail_unless (batch != NULL);
  batch_check_regions (batch, frame, ROI_CAPS, U8_NHWC ("", 1), NULL,
      n_slots, expected, clipped, n_present);
  gst_buffer_unref (batch);
}

/* mode=rois: each region of a frame a slot, in the order they were
 * added; a frame of none makes no batch (a GAP event for its time), one
 * of more than batch-size several batches; regions clipped to the
 * frame, empty ones skipped */
GST_START_TEST (test_rois_fill_slots)
{
  GstHarness *h = roi_harness (3, "");
  static const BatchRegion one[] = { {"face", 7, 3, 5, 17, 11} };
  /* five regions, one outside the frame: four slots, two batches */
  static const BatchRegion five[] = {
    {"face", 1, 50, 40, 30, 30},        /* across the right and bottom edges */
    {"car", 2, 1, 1, 1, 1},     /* one pixel */
    {"face", 3, 70, 10, 5, 5},  /* outside: skipped */
    {"face", 4, 0, 0, 61, 47},  /* the whole frame */
    {"car", 5, 20, 13, 9, 30},
  };
  static const BatchRegion five_kept[] = {
    {"face", 1}, {"car", 2}, {"face", 4}, {"car", 5},
  };
  static const GstVideoRectangle one_box[] = { {3, 5, 17, 11} };
  static const GstVideoRectangle kept_boxes[] = {
    {50, 40, 11, 7}, {1, 1, 1, 1}, {0, 0, 61, 47}, {20, 13, 9, 30},
  };
  GstBuffer *frame;
  GstEvent *event;
  gboolean gap = FALSE;

  /* no region: no batch, a GAP for the frame's time */
  gst_buffer_unref (roi_push (h, 0, NULL, 0));
  frame = roi_push (h, 1, one, G_N_ELEMENTS (one));
  check_roi_batch (h, frame, 3, one, one_box, 1);
  gst_buffer_unref (frame);
  while ((event = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_GAP) {
      GstClockTime ts, duration;

      gst_event_parse_gap (event, &ts, &duration);
      fail_unless_equals_uint64 (ts, 0);
      fail_unless_equals_uint64 (duration, FAST_FRAME);
      gap = TRUE;
    }
    gst_event_unref (event);
  }
  fail_unless (gap, "no GAP event for the frame without a region");

  frame = roi_push (h, 2, five, G_N_ELEMENTS (five));
  check_roi_batch (h, frame, 3, five_kept, kept_boxes, 3);
  check_roi_batch (h, frame, 3, five_kept + 3, kept_boxes + 3, 1);
  gst_buffer_unref (frame);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* mode=rois, roi-type: only the regions of that type; a frame of none of
 * them makes no batch */
GST_START_TEST (test_rois_type_filter)
{
  GstHarness *h = roi_harness (2, "car");
  static const BatchRegion mixed[] = {
    {"face", 1, 0, 0, 10, 10},
    {"car", 2, 4, 6, 31, 17},
    {"person", 3, 2, 2, 8, 8},
    {"car", 4, 33, 21, 28, 26},
  };
  static const BatchRegion cars[] = { {"car", 2}, {"car", 4} };
  static const GstVideoRectangle car_boxes[] = {
    {4, 6, 31, 17}, {33, 21, 28, 26},
  };
  GstBuffer *frame;

  gst_buffer_unref (roi_push (h, 0, mixed, 1));
  frame = roi_push (h, 1, mixed, G_N_ELEMENTS (mixed));
  check_roi_batch (h, frame, 2, cars, car_boxes, 2);
  gst_buffer_unref (frame);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* mode=rois takes one sink pad: a second request is refused with a
 * warning that says why; batch-size 0 is refused at negotiation */
GST_START_TEST (test_rois_refusals)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GstPad *first, *second;
  GstMessage *msg;
  GError *err = NULL;
  gchar *error;

  gst_util_set_object_arg (G_OBJECT (batch), "mode", "rois");
  g_object_set (batch, "batch-size", 2, NULL);
  gst_bin_add (GST_BIN (pipeline), batch);
  first = gst_element_request_pad_simple (batch, "sink_%u");
  fail_unless (first != NULL);
  second = gst_element_request_pad_simple (batch, "sink_%u");
  fail_unless (second == NULL);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline), GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "one sink pad") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_release_request_pad (batch, first);
  gst_object_unref (first);
  gst_object_unref (pipeline);

  error = batch_run_error ("cudacachebatch name=b mode=rois ! "
      U8_NHWC ("", 1) " ! fakesink videotestsrc num-buffers=2 ! b.");
  fail_unless (error && strstr (error, "batch-size above 0"), "%s",
      error ? error : "no error");
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

/* A slot from a crop by meta: the region's own conversion, exactly, for
 * every input format, edge, corner and odd region (cudacache-crops.h) */
GST_START_TEST (test_crop_matrix)
{
  crop_matrix_run ("cudacachebatch", "", NULL, 0.0);
}

GST_END_TEST;

/* Buffers the application holds while the pipeline stops go back to the
 * cache as idle, one by one as it lets them go, with the pipeline kept to
 * be restarted or already freed (cudacache-held.h) */
GST_START_TEST (test_buffers_held_past_null_come_back_idle)
{
  static const gchar *desc =
      "cudacachebatch name=e ! other/tensors,types=uint8,layout=NHWC,dimensions=3:64:64:2 ! "
      "fakesink enable-last-sample=false "
      "videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! e. "
      "videotestsrc num-buffers=5 ! video/x-raw,width=32,height=32 ! e.";
  GstCudaCache *cache = gst_cuda_cache_get_system ();

  cudacache_held_after_stop (desc, cache, FALSE);
  cudacache_held_after_stop (desc, cache, TRUE);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Batches in running time, as compositor gives it (issue: two pads with
 * segments at 3600 s and 5 s), frames before their segment not batched,
 * each request answered at once (cudacache-batch.h) */
GST_START_TEST (test_batches_in_running_time)
{
  static const gchar *caps = "video/x-raw,format=RGBA,width=32,height=24,"
      "framerate=30/1";
  GstVideoInfo info;
  GstBuffer *frame = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA, 32, 24,
      &info);

  batch_check_time (frame, caps, U8_NHWC ("", 2), NULL);
  gst_buffer_unref (frame);
}

GST_END_TEST;

/* compositor, given the same input, gives the same running times */
GST_START_TEST (test_running_time_as_compositor)
{
  static const GstClockTime start[2] = { 3600 * GST_SECOND, 5 * GST_SECOND };
  GstElement *e = gst_element_factory_make ("compositor", NULL);
  GstHarness *h[2];
  GstVideoInfo info;
  GstBuffer *frame = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA, 32, 24,
      &info);
  guint k, i;

  fail_unless (e != NULL);
  h[0] = gst_harness_new_with_element (e, "sink_0", "src");
  h[1] = gst_harness_new_with_element (e, "sink_1", NULL);
  gst_object_unref (e);
  gst_harness_set_sink_caps_str (h[0], "video/x-raw,format=RGBA,width=32,"
      "height=24,framerate=30/1");
  for (i = 0; i < 2; i++) {
    GstSegment segment;

    gst_harness_set_src_caps_str (h[i], "video/x-raw,format=RGBA,width=32,"
        "height=24,framerate=30/1");
    gst_segment_init (&segment, GST_FORMAT_TIME);
    segment.start = segment.time = start[i];
    fail_unless (gst_harness_push_event (h[i],
            gst_event_new_segment (&segment)));
  }
  for (k = 0; k < 3; k++) {
    GstClockTime at = gst_util_uint64_scale (k, GST_SECOND, 30);
    GstBuffer *out;

    for (i = 0; i < 2; i++)
      gst_harness_push (h[i], batch_frame_at (frame, start[i] + at));
    out = gst_harness_pull (h[0]);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (batch_running_time (h[0], out), at);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h[1]);
  gst_harness_teardown (h[0]);
  gst_buffer_unref (frame);
}

GST_END_TEST;

/* Live, the element reports its latency: its window, one frame of the
 * fastest pad, on top of the sources' */
GST_START_TEST (test_latency_reported)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b ! "
      U8_NHWC ("", 2) " ! fakesink sync=true "
      "videotestsrc is-live=true ! video/x-raw,width=32,height=24,"
      "framerate=30/1 ! b. videotestsrc is-live=true ! video/x-raw,width=32,"
      "height=24,framerate=15/1 ! b.", NULL);
  GstElement *b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  /* videotestsrc's frame of 1/15 s, and the window of 1/30 s */
  GstClockTime expected = gst_util_uint64_scale (GST_SECOND, 1, 15) +
      gst_util_uint64_scale (GST_SECOND, 1, 30);
  GstClockTime min = 0, max = 0;
  gboolean live = FALSE;
  guint tries;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* the window is known once both pads have their caps */
  for (tries = 0; tries < 100 && min != expected; tries++) {
    GstQuery *query = gst_query_new_latency ();

    g_usleep (G_USEC_PER_SEC / 20);
    fail_unless (gst_element_query (b, query));
    gst_query_parse_latency (query, &live, &min, &max);
    fail_unless (live);
    gst_query_unref (query);
  }
  fail_unless_equals_uint64 (min, expected);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (b);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Each sink pad offers GstVideoCropMeta, as cudacacheconvert does:
 * videocrop upstream crops by meta, the slot reads the region in place */
GST_START_TEST (test_crop_meta_offered)
{
  GstHarness *h = gst_harness_new_with_padnames ("cudacachebatch", "sink_0",
      "src");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,width=32,"
      "height=24,framerate=30/1");
  GstQuery *query = gst_query_new_allocation (caps, TRUE);

  gst_harness_set_sink_caps_str (h, U8_NHWC ("", 1));
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_find_allocation_meta (query,
          GST_VIDEO_CROP_META_API_TYPE, NULL), "crop meta not offered");
  fail_unless (gst_query_find_allocation_meta (query,
          GST_VIDEO_META_API_TYPE, NULL), "video meta not offered");
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* mode=rois: pads requested from many threads at once, one is given */
static gpointer
request_sink (gpointer data)
{
  return gst_element_request_pad_simple (GST_ELEMENT (data), "sink_%u");
}

GST_START_TEST (test_rois_one_pad_under_threads)
{
  guint round;

  for (round = 0; round < 300; round++) {
    GstElement *e = gst_element_factory_make ("cudacachebatch", NULL);
    GThread *threads[8];
    GstPad *pads[8];
    guint i, given = 0;

    gst_util_set_object_arg (G_OBJECT (e), "mode", "rois");
    /* the refusals are warnings on the bus, which has none here */
    for (i = 0; i < G_N_ELEMENTS (threads); i++)
      threads[i] = g_thread_new ("request", request_sink, e);
    for (i = 0; i < G_N_ELEMENTS (threads); i++)
      pads[i] = g_thread_join (threads[i]);
    for (i = 0; i < G_N_ELEMENTS (threads); i++) {
      if (pads[i]) {
        given++;
        gst_element_release_request_pad (e, pads[i]);
        gst_object_unref (pads[i]);
      }
    }
    fail_unless_equals_int (given, 1);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* The properties every element has: stats-interval posts the batches'
 * cache's statistics while batches flow and at the end; cache-limit is
 * applied to that cache once the element knows it */
GST_START_TEST (test_shared_properties)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b "
      "stats-interval=1 cache-limit=123456789 ! " U8_NHWC ("", 2)
      " ! fakesink videotestsrc num-buffers=30 ! video/x-raw,width=64,"
      "height=48 ! b. videotestsrc num-buffers=30 ! video/x-raw,width=32,"
      "height=32 ! b.", NULL);
  GstElement *b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 before = gst_cuda_cache_get_limit (cache), limit = 0;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  guint stats = 0;
  gint device_id = 0;

  g_object_get (b, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, -1);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_ELEMENT && gst_message_has_name (msg,
            "cudacache-stats")) {
      const GstStructure *s = gst_message_get_structure (msg);

      fail_unless_equals_string (gst_structure_get_string (s, "memory"),
          "SystemMemory");
      fail_unless (gst_structure_has_field (s, "used-bytes"));
      stats++;
    }
    gst_message_unref (msg);
    if (type != GST_MESSAGE_ELEMENT) {
      fail_unless (type == GST_MESSAGE_EOS);
      break;
    }
  }
  /* one at the end at least, whatever the machine's speed */
  fail_unless (stats >= 1, "no cudacache-stats message");
  g_object_get (b, "cache-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 123456789);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 123456789);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_cuda_cache_set_limit (cache, before);
  gst_object_unref (cache);
  gst_object_unref (bus);
  gst_object_unref (b);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The cudacache-stats message of one element at the end of a stream
 * without a buffer: its fields, or NULL where none was posted; fails on
 * an error, or on a second message (the interval is far longer than the
 * stream) */
static GstStructure *
stats_at_eos (const gchar * launch)
{
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstStructure *stats = NULL;
  GstMessage *msg;

  fail_unless (pipeline != NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    fail_unless (type != GST_MESSAGE_ERROR, "error from %s", launch);
    if (type == GST_MESSAGE_ELEMENT && gst_message_has_name (msg,
            "cudacache-stats")) {
      fail_unless (stats == NULL, "two stats messages from %s", launch);
      stats = gst_structure_copy (gst_message_get_structure (msg));
    }
    gst_message_unref (msg);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return stats;
}

static gboolean
has_field_of (GQuark field, const GValue * value, gpointer other)
{
  return gst_structure_id_has_field (other, field);
}

/* stats-interval on both element bases: a stream that ends before any
 * buffer still gets its message at the end, as the property says, with
 * the same fields from cudacachebatch as from cudacacheidentity */
GST_START_TEST (test_shared_stats_at_eos)
{
  GstStructure *identity = stats_at_eos ("videotestsrc num-buffers=0 ! "
      "video/x-raw,width=64,height=48 ! cudacacheidentity "
      "stats-interval=100000 ! fakesink");
  GstStructure *batch = stats_at_eos ("cudacachebatch name=b "
      "stats-interval=100000 ! " U8_NHWC ("", 1) " ! fakesink "
      "videotestsrc num-buffers=0 ! video/x-raw,width=64,height=48 ! b.");

  fail_unless (identity != NULL, "no stats message from cudacacheidentity");
  fail_unless (batch != NULL, "no stats message from cudacachebatch");
  fail_unless_equals_int (gst_structure_n_fields (batch),
      gst_structure_n_fields (identity));
  fail_unless (gst_structure_foreach (batch, has_field_of, identity));
  fail_unless_equals_string (gst_structure_get_string (batch, "memory"),
      "SystemMemory");
  fail_unless_equals_string (gst_structure_get_string (batch, "cache"),
      gst_structure_get_string (identity, "cache"));
  gst_structure_free (identity);
  gst_structure_free (batch);
}

GST_END_TEST;

/* Runs @pipeline to its end */
static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
}

/* cache-limit on both element bases: written before negotiation, it is
 * applied to the cache once the element knows it, and only once: a limit
 * the application sets on that cache afterwards stays when the element
 * runs again */
GST_START_TEST (test_shared_limit_applied_once)
{
  const gchar *launches[] = {
    "videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! "
        "cudacacheidentity cache-limit=123456789 ! fakesink",
    "cudacachebatch name=b cache-limit=123456789 ! " U8_NHWC ("", 1)
        " ! fakesink "
        "videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! " "b.",
  };
  GstCudaCache *cache = gst_cuda_cache_get_system ();
  guint64 before = gst_cuda_cache_get_limit (cache);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (launches); i++) {
    GstElement *pipeline = gst_parse_launch (launches[i], NULL);

    fail_unless (pipeline != NULL);
    run_to_eos (pipeline);
    fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 123456789);
    gst_cuda_cache_set_limit (cache, 98765432);
    run_to_eos (pipeline);
    fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 98765432);
    gst_object_unref (pipeline);
  }
  gst_cuda_cache_set_limit (cache, before);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Live sources at different rates into a syncing sink: with the latency
 * the element reports, no batch reaches the sink late (the sink would
 * drop it and post QoS), and batches keep coming */
GST_START_TEST (test_live_syncing_sink_drops_nothing)
{
  GstElement *pipeline;
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  guint qos = 0;
  guint64 rendered = 0, dropped = 0;
  GstStructure *stats;

  if (RUNNING_ON_VALGRIND || RUNNING_UNDER_ASAN) {
    g_print ("SKIP test_live_syncing_sink_drops_nothing: a real-time "
        "check, not under valgrind or AddressSanitizer\n");
    return;
  }
  pipeline = gst_parse_launch ("cudacachebatch name=b ! " U8_NHWC ("", 2)
      " ! fakesink name=sink sync=true qos=true max-lateness=50000000 "
      "videotestsrc is-live=true ! video/x-raw,width=64,height=48,"
      "framerate=30/1 ! queue ! b. videotestsrc is-live=true ! "
      "video/x-raw,width=32,height=32,framerate=15/1 ! queue ! b.", NULL);
  fail_unless (pipeline != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* two seconds of steady state */
  while ((msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND,
              GST_MESSAGE_QOS | GST_MESSAGE_ERROR))) {
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "pipeline error");
    qos++;
    gst_message_unref (msg);
  }
  g_object_get (sink, "stats", &stats, NULL);
  gst_structure_get_uint64 (stats, "rendered", &rendered);
  gst_structure_get_uint64 (stats, "dropped", &dropped);
  gst_structure_free (stats);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_uint64 (dropped, 0);
  fail_unless_equals_int (qos, 0);
  fail_unless (rendered >= 20, "%" G_GUINT64_FORMAT " batches in 2 s",
      rendered);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* samples-selected, as GstAggregator defines it: once per batch, at the
 * batch's time, each pad's frame readable with
 * gst_aggregator_peek_next_sample () from the handler */
static void
on_samples_selected (GstAggregator * agg, GstSegment * segment,
    GstClockTime pts, GstClockTime dts, GstClockTime duration,
    GstStructure * info, gpointer user_data)
{
  guint *calls = user_data;
  GList *l;

  fail_unless (GST_CLOCK_TIME_IS_VALID (pts));
  GST_OBJECT_LOCK (agg);
  for (l = GST_ELEMENT (agg)->sinkpads; l; l = l->next) {
    GstSample *sample = gst_aggregator_peek_next_sample (agg, l->data);

    fail_unless (sample != NULL && gst_sample_get_buffer (sample) != NULL,
        "no sample of %s", GST_PAD_NAME (l->data));
    fail_unless (gst_sample_get_caps (sample) != NULL);
    gst_sample_unref (sample);
  }
  GST_OBJECT_UNLOCK (agg);
  (*calls)++;
}

GST_START_TEST (test_samples_selected)
{
  GstElement *pipeline = gst_parse_launch ("cudacachebatch name=b "
      "emit-signals=true ! " U8_NHWC ("", 2) " ! fakesink "
      "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! b. "
      "videotestsrc num-buffers=3 ! video/x-raw,width=32,height=32 ! b.",
      NULL);
  GstElement *b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  GstMessage *msg;
  guint calls = 0;

  g_signal_connect (b, "samples-selected", G_CALLBACK (on_samples_selected),
      &calls);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (calls, 3);
  gst_object_unref (b);
  gst_object_unref (pipeline);
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
  tcase_add_test (tc, test_pad_past_batch_size_refused);
  tcase_add_test (tc, test_pads_offer_the_cache_pool);
  tcase_add_test (tc, test_live_frames_in_their_window);
  tcase_add_test (tc, test_live_latency_is_the_window);
  tcase_add_test (tc, test_live_qos);
  tcase_add_test (tc, test_live_frame_at_the_end_of_time);
  tcase_add_test (tc, test_live_cameras_lose_nothing);
  tcase_add_test (tc, test_file_and_camera_lose_no_frame);
  tcase_add_test (tc, test_not_live_batches_every_frame);
  tcase_add_test (tc, test_rois_fill_slots);
  tcase_add_test (tc, test_rois_type_filter);
  tcase_add_test (tc, test_rois_refusals);
  tcase_add_test (tc, test_bad_frame_names_its_pad);
  tcase_add_test (tc, test_caps_refused_names_its_pad);
  tcase_add_test (tc, test_crop_matrix);
  tcase_add_test (tc, test_batches_in_running_time);
  tcase_add_test (tc, test_running_time_as_compositor);
  tcase_add_test (tc, test_latency_reported);
  tcase_add_test (tc, test_crop_meta_offered);
  tcase_add_test (tc, test_rois_one_pad_under_threads);
  tcase_add_test (tc, test_shared_properties);
  tcase_add_test (tc, test_shared_stats_at_eos);
  tcase_add_test (tc, test_shared_limit_applied_once);
  tcase_add_test (tc, test_live_syncing_sink_drops_nothing);
  tcase_add_test (tc, test_samples_selected);
  tcase_add_test (tc, test_buffers_held_past_null_come_back_idle);

  return s;
}

GST_CHECK_MAIN (cudacachebatch);
