/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* tests/stress/pool_race.py in C, for the suites (and for the GPU
 * machine, which has no PyGObject): caps churn through an element, with
 * samples pulled and dropped on the application thread. */

#ifndef __CUDACACHE_PIPELINE_RACE_H__
#define __CUDACACHE_PIPELINE_RACE_H__

#include <gst/app/gstappsink.h>
#include "cudacache-check.h"

/* Whether @sample's buffer is laid out for its own caps */
static gboolean
cudacache_race_sample_ok (GstSample * sample)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  if (meta)
    return cudacache_meta_matches (meta, &info);
  return gst_buffer_get_size (buf) >= GST_VIDEO_INFO_SIZE (&info);
}

/* Runs videotestsrc ! capsfilter ! [cudaupload !] @element ! appsink for
 * @seconds (CUDACACHE_RACE_SECONDS overrides it) with seed @seed, the caps
 * changed about every third frame among five formats and six sizes and
 * the last two samples held.
 * Fails on a sample laid out for other caps, or if no sample came.
 * Returns: the samples pulled */
static guint
cudacache_check_pipeline_race (const gchar * element, gboolean cuda,
    gdouble seconds, guint32 seed)
{
  static const gchar *formats[] = { "NV12", "I420", "RGBA", "BGRx", "RGB" };
  static const gint sizes[][2] = { {1, 1}, {2, 3}, {7, 5}, {33, 17},
  {64, 48}, {320, 240}
  };
  const gchar *env = g_getenv ("CUDACACHE_RACE_SECONDS");
  GRand *rand = g_rand_new_with_seed (seed);
  GstElement *pipeline, *cf, *cudacf, *sink;
  GstSample *held[2] = { NULL, NULL };
  guint samples = 0, mismatches = 0, restarts = 0;
  gint64 end;
  gchar *desc;

  if (env)
    seconds = g_ascii_strtod (env, NULL);
  desc = g_strdup_printf ("videotestsrc ! capsfilter name=cf ! %s%s ! "
      "appsink name=sink sync=false max-buffers=2", cuda ?
      "cudaupload ! capsfilter name=cudacf ! " : "", element);
  pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "could not build %s", desc);
  g_free (desc);
  cf = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
  cudacf = gst_bin_get_by_name (GST_BIN (pipeline), "cudacf");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

#define NEW_CAPS() G_STMT_START {                                          \
    const gint *wh = sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (sizes))]; \
    const gchar *f = formats[g_rand_int_range (rand, 0,                    \
            G_N_ELEMENTS (formats))];                                      \
    GstCaps *c = gst_caps_new_simple ("video/x-raw", "format",             \
        G_TYPE_STRING, f, "width", G_TYPE_INT, wh[0], "height",           \
        G_TYPE_INT, wh[1], NULL);                                          \
    g_object_set (cf, "caps", c, NULL);                                    \
    if (cudacf) {                                                          \
      GstCaps *cc = gst_caps_copy (c);                                     \
      gst_caps_set_features_simple (cc, gst_caps_features_new             \
          (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));                    \
      g_object_set (cudacf, "caps", cc, NULL);                             \
      gst_caps_unref (cc);                                                 \
    }                                                                      \
    gst_caps_unref (c);                                                    \
  } G_STMT_END

  NEW_CAPS ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  end = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
  while (g_get_monotonic_time () < end) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND);
    GstMessage *msg;

    if (sample) {
      samples++;
      if (!cudacache_race_sample_ok (sample))
        mismatches++;
      /* held a little, as an application does, so buffers come back
       * while upstream renegotiates */
      if (held[samples % 2])
        gst_sample_unref (held[samples % 2]);
      held[samples % 2] = sample;
      g_usleep (g_rand_int_range (rand, 0, 100));
    }
    if (g_rand_double (rand) < 0.3)
      NEW_CAPS ();
    /* caps changed under a running source are refused as not-negotiated
     * now and then: start again */
    msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
        GST_MESSAGE_ERROR);
    if (msg) {
      restarts++;
      gst_message_unref (msg);
      gst_element_set_state (pipeline, GST_STATE_NULL);
      NEW_CAPS ();
      gst_element_set_state (pipeline, GST_STATE_PLAYING);
    }
  }
#undef NEW_CAPS
  if (held[0])
    gst_sample_unref (held[0]);
  if (held[1])
    gst_sample_unref (held[1]);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  GST_INFO ("%s seed %u: %u samples, %u restarts, %u mismatches", element,
      seed, samples, restarts, mismatches);
  g_print ("%s%s seed %u: %u samples, %u restarts, %u layout mismatches\n",
      element, cuda ? " (CUDA memory)" : "", seed, samples, restarts,
      mismatches);

  gst_object_unref (cf);
  gst_clear_object (&cudacf);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_rand_free (rand);

  fail_unless (samples > 0, "no sample from %s", element);
  fail_unless_equals_int (mismatches, 0);
  return samples;
}

#endif /* __CUDACACHE_PIPELINE_RACE_H__ */
