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

/* Live, each batch covers a window of running time one frame of the
 * fastest pad long (its caps' framerate; 25 frames a second where no pad
 * has one), as GstVideoAggregator's output frames are one frame of the
 * fastest input: every pad's frames fit one a window. As it does, that
 * window is the latency the element reports (gst_aggregator_set_latency
 * ()): a batch waits for its window's frames until the window has passed,
 * plus the upstream latency and the latency property. */
void
gst_cuda_cache_batch_update_window (GstCudaCacheBatch * self)
{
  GstClockTime window = GST_CLOCK_TIME_NONE;
  gboolean changed;
  GList *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    GstCudaCacheBatchPad *pad = l->data;
    GstClockTime d;

    GST_OBJECT_LOCK (pad);
    d = pad->frame_duration;
    GST_OBJECT_UNLOCK (pad);
    if (GST_CLOCK_TIME_IS_VALID (d) && d > 0 &&
        (!GST_CLOCK_TIME_IS_VALID (window) || d < window))
      window = d;
  }
  if (!GST_CLOCK_TIME_IS_VALID (window))
    window = GST_SECOND / 25;
  changed = window != self->window;
  self->window = window;
  GST_OBJECT_UNLOCK (self);
  if (!changed)
    return;
  GST_DEBUG_OBJECT (self, "live batches of %" GST_TIME_FORMAT " each, the "
      "latency", GST_TIME_ARGS (window));
  gst_aggregator_set_latency (GST_AGGREGATOR (self), window, window);
}

/* Drops @buf of @pad, never batched, and counts it */
void
gst_cuda_cache_batch_drop (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstBuffer * buf, const gchar * why)
{
  GST_DEBUG_OBJECT (pad, "dropping the frame of %" GST_TIME_FORMAT ": %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), why);
  GST_OBJECT_LOCK (pad);
  pad->dropped++;
  GST_OBJECT_UNLOCK (pad);
  GST_OBJECT_LOCK (self);
  self->dropped++;
  GST_OBJECT_UNLOCK (self);
  gst_buffer_unref (buf);
}

/* @buf's running time on @pad, from its segment's start where it starts
 * before; 0 (due at once) where it has no time */
static GstClockTime
gst_cuda_cache_batch_frame_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), t = GST_CLOCK_TIME_NONE;

  GST_OBJECT_LOCK (pad);
  if (GST_CLOCK_TIME_IS_VALID (pts) && pad->segment.format == GST_FORMAT_TIME)
    t = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
        MAX (pts, pad->segment.start));
  GST_OBJECT_UNLOCK (pad);
  return GST_CLOCK_TIME_IS_VALID (t) ? t : 0;
}

/* Live: the frames of the next batch, the window of running time [@start,
 * @end) from the end of the batch before (gst_aggregator_simple_get_next_time
 * (), whose deadline the aggregator waits for). A pad's frame goes into
 * the window its running time falls in: frames of a later window stay
 * queued, frames of a window that has passed (they came after it went
 * out) are dropped and counted, and of two frames of one window the
 * newer is taken, the older dropped and counted. Returns
 * GST_AGGREGATOR_FLOW_NEED_DATA while a pad may still send a frame of the
 * window (it has none queued and the deadline, @timeout, has not come),
 * or where the window holds no frame (then passed). The last window,
 * within a window of the end of time, ends with it: @end NONE. */
GstFlowReturn
gst_cuda_cache_batch_live_take (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, guint n_pads, gboolean timeout,
    GstBuffer ** bufs, GstClockTime * start, GstClockTime * end)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstClockTime s = gst_aggregator_simple_get_next_time (agg), window;
  GstClockTime earliest = GST_CLOCK_TIME_NONE;
  gboolean complete = TRUE, any = FALSE, eos = TRUE;
  guint i;

  GST_OBJECT_LOCK (self);
  window = self->window;
  GST_OBJECT_UNLOCK (self);
  if (!GST_CLOCK_TIME_IS_VALID (s))
    s = 0;

  for (i = 0; i < n_pads; i++) {
    GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pads[i]);
    GstBuffer *buf;
    GstClockTime t = GST_CLOCK_TIME_NONE;

    while ((buf = gst_aggregator_pad_peek_buffer (aggpad))) {
      t = gst_cuda_cache_batch_frame_time (aggpad, buf);
      gst_buffer_unref (buf);
      if (t >= s)
        break;
      gst_cuda_cache_batch_drop (self, pads[i],
          gst_aggregator_pad_pop_buffer (aggpad), "late, its window has "
          "passed");
      t = GST_CLOCK_TIME_NONE;
    }
    if (GST_CLOCK_TIME_IS_VALID (t)) {
      eos = FALSE;
      if (!GST_CLOCK_TIME_IS_VALID (earliest) || t < earliest)
        earliest = t;
    } else if (!gst_aggregator_pad_is_eos (aggpad)) {
      eos = FALSE;
      complete = FALSE;
    }
  }
  if (eos)
    return GST_FLOW_EOS;
  if (!complete && !timeout)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  /* every pad's next frame is later: the windows until the earliest
   * frame's hold nothing (no frame left is before s) */
  if (complete && earliest - s >= window)
    s += (earliest - s) / window * window;
  *start = s;
  /* the last window ends with time itself: a running time within a window
   * of it would otherwise make an end before the start, a window nothing
   * falls in, tried again and again */
  *end = window < GST_CLOCK_TIME_NONE - s ? s + window : GST_CLOCK_TIME_NONE;

  for (i = 0; i < n_pads; i++) {
    GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pads[i]);
    GstBuffer *buf;

    while ((buf = gst_aggregator_pad_peek_buffer (aggpad))) {
      GstClockTime t = gst_cuda_cache_batch_frame_time (aggpad, buf);

      gst_buffer_unref (buf);
      if (t >= *end)
        break;
      if (bufs[i])
        gst_cuda_cache_batch_drop (self, pads[i], bufs[i], "a newer frame "
            "falls in the same window");
      bufs[i] = gst_aggregator_pad_pop_buffer (aggpad);
      any = TRUE;
    }
  }
  if (any)
    return GST_FLOW_OK;
  GST_LOG_OBJECT (self, "no frame in the window of %" GST_TIME_FORMAT,
      GST_TIME_ARGS (*start));
  gst_cuda_cache_batch_advance (self, *end);
  return GST_AGGREGATOR_FLOW_NEED_DATA;
}

/* Moves the output's position to @end, a running time, where it is
 * before: the next live window starts there */
void
gst_cuda_cache_batch_advance (GstCudaCacheBatch * self, GstClockTime end)
{
  GstSegment *segment =
      &GST_AGGREGATOR_PAD (GST_AGGREGATOR (self)->srcpad)->segment;
  GstClockTime position;

  GST_OBJECT_LOCK (self);
  position = gst_segment_position_from_running_time (segment,
      GST_FORMAT_TIME, end);
  if (GST_CLOCK_TIME_IS_VALID (position) &&
      (!GST_CLOCK_TIME_IS_VALID (segment->position) ||
          position > segment->position))
    segment->position = position;
  GST_OBJECT_UNLOCK (self);
}

/* QoS, as GstVideoAggregator keeps it live: downstream's last QOS event
 * says from which running time a batch is still in time */
void
gst_cuda_cache_batch_update_qos (GstCudaCacheBatch * self, GstEvent * event)
{
  GstQOSType type;
  GstClockTimeDiff diff;
  GstClockTime timestamp;
  gdouble proportion;

  gst_event_parse_qos (event, &type, &proportion, &diff, &timestamp);
  GST_OBJECT_LOCK (self);
  self->proportion = proportion;
  if (!GST_CLOCK_TIME_IS_VALID (timestamp))
    self->earliest_time = GST_CLOCK_TIME_NONE;
  else if (diff < 0 && (GstClockTime) (-diff) > timestamp)
    self->earliest_time = 0;
  else
    self->earliest_time = timestamp + diff;
  GST_OBJECT_UNLOCK (self);
}

void
gst_cuda_cache_batch_reset_qos (GstCudaCacheBatch * self)
{
  GST_OBJECT_LOCK (self);
  self->proportion = 0.5;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  self->qos_processed = self->qos_dropped = 0;
  GST_OBJECT_UNLOCK (self);
}

/* Live, whether the batch of the window [@start, @end) (running times) is
 * still in time for downstream (its last QoS event); where not, it is not
 * made (its frames dropped by the caller) and a QoS message says so, as
 * GstVideoAggregator does for its output frames */
gboolean
gst_cuda_cache_batch_do_qos (GstCudaCacheBatch * self, GstClockTime start,
    GstClockTime end)
{
  GstSegment *segment =
      &GST_AGGREGATOR_PAD (GST_AGGREGATOR (self)->srcpad)->segment;
  GstClockTime earliest, position;
  GstClockTimeDiff jitter;
  gdouble proportion;
  guint64 processed, dropped;
  GstMessage *msg;

  GST_OBJECT_LOCK (self);
  earliest = self->earliest_time;
  proportion = self->proportion;
  if (!GST_CLOCK_TIME_IS_VALID (earliest) || start >= earliest) {
    self->qos_processed++;
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }
  processed = self->qos_processed;
  dropped = ++self->qos_dropped;
  position = gst_segment_position_from_running_time (segment,
      GST_FORMAT_TIME, start);
  GST_OBJECT_UNLOCK (self);

  jitter = GST_CLOCK_DIFF (start, earliest);
  GST_DEBUG_OBJECT (self, "the batch of %" GST_TIME_FORMAT " is %"
      GST_STIME_FORMAT " late for downstream: not made",
      GST_TIME_ARGS (start), GST_STIME_ARGS (jitter));
  msg = gst_message_new_qos (GST_OBJECT (self), TRUE, start,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, position),
      position, GST_CLOCK_TIME_IS_VALID (end) ? end - start :
      GST_CLOCK_TIME_NONE);
  gst_message_set_qos_values (msg, jitter, proportion, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, processed, dropped);
  gst_element_post_message (GST_ELEMENT (self), msg);
  return FALSE;
}

/* A GAP event for the running times @pts to @end, after the events the
 * aggregator owes downstream (stream-start, caps, segment): through
 * gst_aggregator_push_src_event () where GStreamer has it (1.26); before,
 * where the aggregator has sent no segment yet (no batch went out), its
 * own segment, with the seqnum it gives it (the input's), goes first */
void
gst_cuda_cache_batch_push_gap (GstCudaCacheBatch * self, GstPad * pad,
    GstClockTime pts, GstClockTime end)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstEvent *gap;

  gst_cuda_cache_batch_output_times (self, &pts, &end);
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  gap = gst_event_new_gap (pts, GST_CLOCK_TIME_IS_VALID (end) ? end - pts :
      GST_CLOCK_TIME_NONE);
#if GST_CHECK_VERSION (1, 26, 0)
  gst_aggregator_push_src_event (agg, gap);
#else
  {
    GstEvent *segment = gst_pad_get_sticky_event (agg->srcpad,
        GST_EVENT_SEGMENT, 0);

    if (!segment) {
      GstEvent *input = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
      GstSegment copy;

      GST_OBJECT_LOCK (self);
      copy = GST_AGGREGATOR_PAD (agg->srcpad)->segment;
      GST_OBJECT_UNLOCK (self);
      segment = gst_event_new_segment (&copy);
      if (input) {
        gst_event_set_seqnum (segment, gst_event_get_seqnum (input));
        gst_event_unref (input);
      }
      gst_pad_push_event (agg->srcpad, gst_event_ref (segment));
    }
    gst_event_unref (segment);
    gst_pad_push_event (agg->srcpad, gap);
  }
#endif
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
