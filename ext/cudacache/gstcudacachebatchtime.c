/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacachebatch's time (gstcudacachebatch.c): frames in running time
 * through their pads' segments, batches in the output's, the live
 * deadline, the latency reported, and the samples a batch selected. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachebatch-private.h"

/* Frames before or after their pad's segment are not batched, as
 * videoaggregator clips them */
GstBuffer *
gst_cuda_cache_batch_clip (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstBuffer * buf)
{
  GstClockTime start = GST_BUFFER_PTS (buf), stop = GST_CLOCK_TIME_NONE;
  gboolean inside;

  GST_OBJECT_LOCK (aggpad);
  if (!GST_CLOCK_TIME_IS_VALID (start) ||
      aggpad->segment.format != GST_FORMAT_TIME) {
    GST_OBJECT_UNLOCK (aggpad);
    return buf;
  }
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    stop = start + GST_BUFFER_DURATION (buf);
  inside = gst_segment_clip (&aggpad->segment, GST_FORMAT_TIME, start, stop,
      NULL, NULL);
  GST_OBJECT_UNLOCK (aggpad);
  if (inside)
    return buf;
  GST_DEBUG_OBJECT (aggpad, "frame of %" GST_TIME_FORMAT " outside the "
      "segment: not batched", GST_TIME_ARGS (start));
  gst_buffer_unref (buf);
  return NULL;
}

/* The sink pads, each with a reference, for a walk outside the lock */
static GList *
gst_cuda_cache_batch_ref_sink_pads (GstElement * element)
{
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (element);
  for (l = element->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (element);
  return pads;
}

/* The element's latency: what a batch's conversion takes, from its
 * deadline to its push, so that a syncing sink downstream receives it in
 * time. Measured: each batch that takes longer than the latency reported
 * raises it to twice that time (rounded up to a millisecond, at most a
 * second), and gst_aggregator_set_latency () tells the pipeline. Live
 * pipelines add it to the upstream latency; the latency property adds to
 * it (and sets how long a batch waits for slower pads). */
void
gst_cuda_cache_batch_update_latency (GstCudaCacheBatch * self,
    GstClockTime took)
{
  GstClockTime latency;

  if (took <= self->latency)
    return;
  latency = MIN (GST_SECOND, gst_util_uint64_scale_ceil (2 * took, 1,
          GST_MSECOND) * GST_MSECOND);
  GST_DEBUG_OBJECT (self, "a batch took %" GST_TIME_FORMAT ": latency %"
      GST_TIME_FORMAT, GST_TIME_ARGS (took), GST_TIME_ARGS (latency));
  self->latency = latency;
  gst_aggregator_set_latency (GST_AGGREGATOR (self), latency, latency);
}

/* @pts and @end, running times, in the output's segment, never before the
 * end of what went out before; moves the output's position to the end
 * where @advance (gst_cuda_cache_batch_output_times ()).
 * As videoaggregator's, the output's time is running time: frames of
 * pads whose segments differ are compared on one clock. */
void
gst_cuda_cache_batch_to_output (GstCudaCacheBatch * self, GstClockTime * pts,
    GstClockTime * end, gboolean advance)
{
  GstSegment *segment =
      &GST_AGGREGATOR_PAD (GST_AGGREGATOR (self)->srcpad)->segment;

  if (!GST_CLOCK_TIME_IS_VALID (*pts))
    return;
  GST_OBJECT_LOCK (self);
  *pts = gst_segment_position_from_running_time (segment, GST_FORMAT_TIME,
      *pts);
  if (GST_CLOCK_TIME_IS_VALID (*end))
    *end = gst_segment_position_from_running_time (segment, GST_FORMAT_TIME,
        *end);
  if (GST_CLOCK_TIME_IS_VALID (segment->position) &&
      (!GST_CLOCK_TIME_IS_VALID (*pts) || *pts < segment->position))
    *pts = segment->position;
  if (GST_CLOCK_TIME_IS_VALID (*end) && GST_CLOCK_TIME_IS_VALID (*pts) &&
      *end < *pts)
    *end = *pts;
  if (advance && GST_CLOCK_TIME_IS_VALID (*pts))
    segment->position = GST_CLOCK_TIME_IS_VALID (*end) ? *end : *pts;
  GST_OBJECT_UNLOCK (self);
}

/* Sends @outbuf, of output times @pts to @end */
GstFlowReturn
gst_cuda_cache_batch_send (GstCudaCacheBatch * self, GstBuffer * outbuf,
    GstClockTime pts, GstClockTime end)
{
  GST_BUFFER_PTS (outbuf) = pts;
  GST_BUFFER_DURATION (outbuf) = GST_CLOCK_TIME_IS_VALID (end) &&
      GST_CLOCK_TIME_IS_VALID (pts) ? end - pts : GST_CLOCK_TIME_NONE;
  /* GStreamer's own description of the batch (1.26+), once it is written */
  if (g_atomic_int_get (&self->tensor_meta))
    gst_buffer_add_cuda_cache_analytics_tensor_meta (outbuf, &self->out_info);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), outbuf);
}

/* Sends @outbuf of running times @pts to @end, in the output's time */
GstFlowReturn
gst_cuda_cache_batch_finish (GstCudaCacheBatch * self, GstBuffer * outbuf,
    GstClockTime pts, GstClockTime end)
{
  gst_cuda_cache_batch_output_times (self, &pts, &end);
  return gst_cuda_cache_batch_send (self, outbuf, pts, end);
}

/* @buf's start and end in running time on @pad's segment; NONE where it
 * has none */
void
gst_cuda_cache_batch_running_times (GstAggregatorPad * pad, GstBuffer * buf,
    GstClockTime * start, GstClockTime * end)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);

  *start = *end = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  if (GST_CLOCK_TIME_IS_VALID (pts) && pad->segment.format == GST_FORMAT_TIME) {
    *start = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, pts);
    if (GST_BUFFER_DURATION_IS_VALID (buf))
      *end = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
          pts + GST_BUFFER_DURATION (buf));
  }
  GST_OBJECT_UNLOCK (pad);
}

/* The frame of @aggpad the batch being made takes (within
 * samples-selected), or the next one queued, with its caps and segment */
GstSample *
gst_cuda_cache_batch_peek_next_sample (GstAggregator * agg,
    GstAggregatorPad * aggpad)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (aggpad);
  GstBuffer *buf = pad->selected ? gst_buffer_ref (pad->selected) :
      gst_aggregator_pad_peek_buffer (aggpad);
  GstSample *sample;

  if (!buf)
    return NULL;
  GST_OBJECT_LOCK (aggpad);
  sample = gst_sample_new (buf, pad->caps, &aggpad->segment, NULL);
  GST_OBJECT_UNLOCK (aggpad);
  gst_buffer_unref (buf);
  return sample;
}

/* The aggregator's samples-selected, for the batch of @bufs (running
 * times @pts to @end): a handler reads each pad's frame with
 * gst_aggregator_peek_next_sample () */
void
gst_cuda_cache_batch_selected (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, GstBuffer ** bufs, guint n_pads,
    GstClockTime pts, GstClockTime end)
{
  guint i;

  gst_cuda_cache_batch_to_output (self, &pts, &end, FALSE);
  for (i = 0; i < n_pads; i++)
    pads[i]->selected = bufs[i];
  gst_aggregator_selected_samples (GST_AGGREGATOR (self), pts,
      GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_IS_VALID (end) &&
      GST_CLOCK_TIME_IS_VALID (pts) ? end - pts : GST_CLOCK_TIME_NONE, NULL);
  for (i = 0; i < n_pads; i++)
    pads[i]->selected = NULL;
}

/* Live, the running time a batch is due by, less the latency: its
 * oldest queued frame's. A batch goes out once every pad has a frame, or
 * at that deadline with the frames there are then; with no frame queued
 * there is no deadline. */
GstClockTime
gst_cuda_cache_batch_get_next_time (GstAggregator * agg)
{
  GstClockTime next = GST_CLOCK_TIME_NONE;
  GList *pads = gst_cuda_cache_batch_ref_sink_pads (GST_ELEMENT (agg)), *l;

  for (l = pads; l; l = l->next) {
    GstAggregatorPad *aggpad = l->data;
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (aggpad);
    GstClockTime t = GST_CLOCK_TIME_NONE;

    if (!buf)
      continue;
    GST_OBJECT_LOCK (aggpad);
    if (GST_BUFFER_PTS_IS_VALID (buf) && aggpad->segment.format ==
        GST_FORMAT_TIME)
      t = gst_segment_to_running_time (&aggpad->segment, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf));
    GST_OBJECT_UNLOCK (aggpad);
    gst_buffer_unref (buf);
    /* a frame of no time is due at once */
    if (!GST_CLOCK_TIME_IS_VALID (t))
      t = 0;
    if (!GST_CLOCK_TIME_IS_VALID (next) || t < next)
      next = t;
  }
  g_list_free_full (pads, gst_object_unref);
  return next;
}
