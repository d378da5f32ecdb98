/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Fuzz target: cudacachebatch driven as a pipeline drives it, its pads,
 * caps, segments, frames and regions of interest from untrusted input.
 * The input is lines. The first is the caps asked downstream (a GstHarness
 * on the source pad). Then one operation a line (a line of none is
 * skipped):
 *
 *   name=value            an element property, set with
 *                         gst_util_set_object_arg as gst-launch-1.0 sets
 *                         it; once the element plays, only the properties
 *                         mutable while PLAYING
 *   live LATENCY          the pads' upstream answers latency queries as
 *                         live, with that minimum latency (ns)
 *   play                  the element to PLAYING (the first operation of
 *                         those below does it too; pads requested before
 *                         are requested on a stopped element)
 *   request               a sink pad (sink_%u), a GstPad linked to it,
 *                         stream-start pushed once the element plays
 *   release N             releases sink pad N (pads are numbered 0 to 7 in
 *                         the order requested; a released number is
 *                         taken by the next request)
 *   caps N CAPS           a caps event on pad N (fixed caps only)
 *   segment N START [RATE [FORMAT [STOP [BASE]]]]
 *                         a segment on pad N (FORMAT a GstFormat nick:
 *                         time, bytes, buffers, default, percent)
 *   push N PTS DUR [short] [roi X Y W H [TYPE]]...
 *                         a frame of pad N's caps (a default segment first
 *                         where it has none), `none` for no PTS or
 *                         duration, `short` half as long as its caps say,
 *                         each `roi` a GstVideoRegionOfInterestMeta
 *   eos N                 EOS on pad N
 *   flush [N]             flush-start and flush-stop on pad N, or on every
 *                         pad with one seqnum as a seek does
 *   downstream CAPS       new caps asked downstream, and a reconfigure
 *   tick                  live: the test clock moved to the wait the
 *                         element is in, if any (its deadline passes)
 *
 * An operation the upstream of a real pipeline would not do is skipped:
 * events after EOS, caps after a segment on a pad that had no caps (GStreamer
 * warns of the misordering). A pad's frame is not pushed while its
 * previous one is still queued: in a pipeline that is not live the chain
 * call would block until the element takes it, which it does only once
 * every pad has a frame. Where every pad has a frame or its EOS queued and
 * the element's task runs, the element must take one within 2 s; where it
 * takes none, it stalled, which is a failure. At the end every pad gets
 * EOS, what the element can still take is waited for, and the element is
 * stopped, its pads released.
 *
 * A refusal is a refused caps event, a flow return or an error message
 * with a GError that says why; never a GLib critical or warning, a crash,
 * a sanitizer report, a leak or a stall. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include <gst/base/gstaggregator.h>
#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>
#include <gst/cudacache/cudacache.h>

#include "fuzz-common.h"

/* At most this many sink pads at once, operations and frames an input */
#define MAX_PADS 8
#define MAX_OPS 160
#define MAX_FRAMES 64
#define MAX_TICKS 8
/* batch-size above this is not tried: its batches' memory would take the
 * fuzzer's time (the tensor's slots come from the caps, up to MAX_PIXELS
 * values) */
#define MAX_BATCH_SIZE 16
/* the time an element that has a frame or EOS on every pad has to take
 * one, before it counts as stalled */
#define STALL_TIME (2 * G_TIME_SPAN_SECOND)

typedef struct
{
  GstPad *sinkpad;              /* the element's, NULL: the slot is free */
  GstPad *srcpad;               /* ours, linked to it */
  GstCaps *caps;                /* the last caps pushed */
  gboolean has_caps, has_segment, eos;
  /* the frame pushed last, while the element has not taken it (a pointer
   * only: cleared by on_buffer_consumed or on_buffer_freed) */
  GstBuffer *queued;
} FuzzPad;

typedef struct
{
  /* guards pads[].queued and taken, written from the element's thread */
  GMutex lock;
  GCond cond;
  guint64 taken;                /* frames taken or dropped so far */
  FuzzPad pads[MAX_PADS];

  GstElement *element;
  GstHarness *h;
  gboolean live;
  GstClockTime live_latency;
  guint frames, ticks;
  guint8 fill;
} FuzzRun;

/* One run at a time; static (its lock and cond need no init), so that a
 * frame the element frees after the run (a leak, then reported as one)
 * never writes freed memory */
static FuzzRun run;

/* A time or a count: a number, or `none` (also -1) for NONE */
static guint64
parse_time (const gchar * token)
{
  if (token == NULL || g_str_equal (token, "none") || g_str_equal (token, "-1"))
    return GST_CLOCK_TIME_NONE;
  return g_ascii_strtoull (token, NULL, 10);
}

/* The pad numbered by @token, or NULL where there is none */
static FuzzPad *
parse_pad (const gchar * token)
{
  guint64 i;

  if (token == NULL)
    return NULL;
  i = g_ascii_strtoull (token, NULL, 10);
  if (i >= MAX_PADS || run.pads[i].sinkpad == NULL)
    return NULL;
  return &run.pads[i];
}

/* The element took @buf off its pad (GstAggregatorPad::buffer-consumed) */
static void
on_buffer_consumed (GstAggregatorPad * aggpad, GstBuffer * buf,
    gpointer user_data)
{
  guint i;

  g_mutex_lock (&run.lock);
  for (i = 0; i < MAX_PADS; i++) {
    if (run.pads[i].queued == buf) {
      run.pads[i].queued = NULL;
      run.taken++;
    }
  }
  g_cond_broadcast (&run.cond);
  g_mutex_unlock (&run.lock);
}

/* @obj was freed: taken, dropped by a flush or clipped away */
static void
on_buffer_freed (gpointer user_data, GstMiniObject * obj)
{
  on_buffer_consumed (NULL, (GstBuffer *) obj, NULL);
}

/* Whether the element, as it stands, must take a frame: its task runs,
 * and every pad has a frame or EOS queued (a pad whose caps were refused
 * gets neither, and the element rightly waits for it) */
static gboolean
must_take (void)
{
  gboolean all = TRUE;
  guint i;

  if (gst_pad_get_task_state (GST_AGGREGATOR_SRC_PAD (run.element)) !=
      GST_TASK_STARTED)
    return FALSE;
  g_mutex_lock (&run.lock);
  for (i = 0; i < MAX_PADS; i++) {
    if (run.pads[i].sinkpad && !run.pads[i].queued && !run.pads[i].eos)
      all = FALSE;
  }
  g_mutex_unlock (&run.lock);
  return all;
}

/* Waits until @pad (NULL: every pad) has no frame queued; FALSE where it
 * still has one and the element need not take it. A stall is an error. */
static gboolean
wait_taken (FuzzPad * pad)
{
  for (;;) {
    gboolean queued = FALSE;
    guint64 taken;
    gint64 deadline;
    guint i;

    g_mutex_lock (&run.lock);
    for (i = 0; i < MAX_PADS; i++) {
      if ((pad == NULL || pad == &run.pads[i]) && run.pads[i].queued)
        queued = TRUE;
    }
    taken = run.taken;
    g_mutex_unlock (&run.lock);
    if (!queued)
      return TRUE;
    if (!must_take ())
      return FALSE;

    deadline = g_get_monotonic_time () + STALL_TIME;
    g_mutex_lock (&run.lock);
    while (run.taken == taken &&
        g_cond_wait_until (&run.cond, &run.lock, deadline));
    taken = run.taken - taken;
    g_mutex_unlock (&run.lock);
    /* its task may have stopped meanwhile (an error) */
    if (taken == 0 && must_take ())
      g_error ("cudacachebatch stalled: every sink pad has a frame or EOS "
          "queued and none was taken in %d s",
          (gint) (STALL_TIME / G_TIME_SPAN_SECOND));
  }
}

/* Once every pad has its EOS queued, the element sends the batches it
 * still holds and EOS, or stops (an error); a stall otherwise */
static void
wait_eos (void)
{
  GstPad *srcpad = GST_AGGREGATOR_SRC_PAD (run.element);
  gint64 deadline = g_get_monotonic_time () + STALL_TIME;
  gboolean any = FALSE;
  guint i;

  for (i = 0; i < MAX_PADS; i++) {
    if (run.pads[i].sinkpad && !run.pads[i].eos)
      return;
    any |= run.pads[i].sinkpad != NULL;
  }
  /* without a sink pad an aggregator waits for one */
  if (!any)
    return;
  for (;;) {
    GstEvent *eos = gst_pad_get_sticky_event (run.h->sinkpad, GST_EVENT_EOS,
        0);

    if (eos) {
      gst_event_unref (eos);
      return;
    }
    if (gst_pad_get_task_state (srcpad) != GST_TASK_STARTED)
      return;
    if (g_get_monotonic_time () > deadline)
      g_error ("cudacachebatch stalled: every sink pad had EOS, and no EOS "
          "came out in %d s", (gint) (STALL_TIME / G_TIME_SPAN_SECOND));
    g_usleep (1000);
  }
}

/* The element's batches and events so far, each batch with its meta */
static void
drain_output (void)
{
  GstBuffer *buf;
  GstEvent *event;

  while ((buf = gst_harness_try_pull (run.h))) {
    if (gst_buffer_get_cuda_cache_batch_meta (buf) == NULL)
      g_error ("a batch without its GstCudaCacheBatchMeta");
    gst_buffer_unref (buf);
  }
  while ((event = gst_harness_try_pull_event (run.h)))
    gst_event_unref (event);
}

static gboolean
src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gst_query_set_latency (query, run.live, run.live_latency,
        GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static void
push_stream_start (FuzzPad * pad)
{
  gchar *stream_id = g_strdup_printf ("fuzz-%s", GST_PAD_NAME (pad->sinkpad));

  gst_pad_push_event (pad->srcpad, gst_event_new_stream_start (stream_id));
  g_free (stream_id);
}

/* A handler of samples-selected reads each pad's frame of the batch, as
 * docs/elements.md says an application may */
static gboolean
peek_sample (GstElement * element, GstPad * pad, gpointer user_data)
{
  GstSample *sample = gst_aggregator_peek_next_sample (GST_AGGREGATOR
      (element), GST_AGGREGATOR_PAD (pad));

  if (sample)
    gst_sample_unref (sample);
  return TRUE;
}

static void
on_samples_selected (GstAggregator * agg, GstSegment * segment,
    GstClockTime pts, GstClockTime dts, GstClockTime duration,
    GstStructure * info, gpointer user_data)
{
  gst_element_foreach_sink_pad (GST_ELEMENT (agg), peek_sample, NULL);
}

static void
play (GstCaps * downstream)
{
  guint i;

  if (run.h)
    return;
  run.h = gst_harness_new_with_element (run.element, NULL, "src");
  gst_harness_set_sink_caps (run.h, gst_caps_ref (downstream));
  for (i = 0; i < MAX_PADS; i++) {
    if (run.pads[i].sinkpad)
      push_stream_start (&run.pads[i]);
  }
}

static void release_pad (FuzzPad * pad);

static void
request_pad (void)
{
  FuzzPad *pad = NULL;
  guint i;

  for (i = 0; i < MAX_PADS && pad == NULL; i++) {
    if (run.pads[i].sinkpad == NULL)
      pad = &run.pads[i];
  }
  if (pad == NULL)
    return;
  /* mode=rois's second pad and one past batch-size are refused */
  pad->sinkpad = gst_element_request_pad_simple (run.element, "sink_%u");
  if (pad->sinkpad == NULL)
    return;
  g_object_set (pad->sinkpad, "emit-signals", TRUE, NULL);
  g_signal_connect (pad->sinkpad, "buffer-consumed",
      G_CALLBACK (on_buffer_consumed), NULL);
  pad->srcpad = gst_pad_new ("src", GST_PAD_SRC);
  gst_pad_set_query_function (pad->srcpad, src_query);
  gst_pad_set_active (pad->srcpad, TRUE);
  /* a pad that takes no caps (downstream takes none) does not link: it
   * goes back, as gst-launch-1.0 gives it back */
  if (gst_pad_link (pad->srcpad, pad->sinkpad) != GST_PAD_LINK_OK) {
    release_pad (pad);
    return;
  }
  if (run.h)
    push_stream_start (pad);
}

static void
release_pad (FuzzPad * pad)
{
  gst_element_release_request_pad (run.element, pad->sinkpad);
  g_signal_handlers_disconnect_by_func (pad->sinkpad, on_buffer_consumed, NULL);
  gst_pad_set_active (pad->srcpad, FALSE);
  gst_clear_object (&pad->sinkpad);
  gst_clear_object (&pad->srcpad);
  gst_clear_caps (&pad->caps);
  g_mutex_lock (&run.lock);
  pad->queued = NULL;
  g_mutex_unlock (&run.lock);
  pad->has_caps = pad->has_segment = pad->eos = FALSE;
}

static void
push_caps (FuzzPad * pad, const gchar * text)
{
  GstCaps *caps = fuzz_caps_from_string (text);

  /* caps an upstream could send, of frames the fuzzer can make; GStreamer
   * warns of caps stored after a segment */
  if (caps == NULL || !gst_caps_is_fixed (caps) ||
      !fuzz_caps_small_enough (caps) || pad->eos ||
      (pad->has_segment && !pad->has_caps)) {
    gst_clear_caps (&caps);
    return;
  }
  gst_caps_replace (&pad->caps, caps);
  pad->has_caps = TRUE;
  gst_pad_push_event (pad->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
}

static void
push_segment (FuzzPad * pad, gchar ** args)
{
  GstSegment segment;
  GstFormat format = GST_FORMAT_TIME;
  gdouble rate = 1.0;

  if (args[0] && args[1]) {
    rate = g_ascii_strtod (args[1], NULL);
    if (args[2])
      format = gst_format_get_by_nick (args[2]);
  }
  /* GStreamer makes no segment of these */
  if (!isfinite (rate) || rate == 0.0 || format == GST_FORMAT_UNDEFINED ||
      pad->eos)
    return;
  gst_segment_init (&segment, format);
  if (args[0]) {
    segment.start = segment.time = segment.position = parse_time (args[0]);
    if (args[1] && args[2] && args[3]) {
      segment.stop = parse_time (args[3]);
      if (args[4])
        segment.base = parse_time (args[4]);
    }
  }
  segment.rate = rate;
  /* nor of this: reverse playback runs from a stop, and GstAggregator's
   * running time of such a segment is a critical of GStreamer's own */
  if (rate < 0 && segment.stop == GST_CLOCK_TIME_NONE)
    return;
  pad->has_segment = TRUE;
  gst_pad_push_event (pad->srcpad, gst_event_new_segment (&segment));
}

/* A frame of @pad's caps (a small buffer where it has none), its bytes
 * one value, with the regions of interest @args give */
static GstBuffer *
make_frame (FuzzPad * pad, gchar ** args)
{
  gsize size = pad->caps ? fuzz_caps_buffer_size (pad->caps) : 0;
  GstBuffer *buf;
  guint i;

  if (size == 0 || size > 16 * MAX_PIXELS)
    size = 64;
  for (i = 2; args[i]; i++) {
    if (g_str_equal (args[i], "short"))
      size /= 2;
  }
  buf = gst_buffer_new_allocate (NULL, size, NULL);
  gst_buffer_memset (buf, 0, run.fill++, size);
  GST_BUFFER_PTS (buf) = parse_time (args[0]);
  GST_BUFFER_DURATION (buf) = parse_time (args[1]);

  for (i = 2; args[i]; i++) {
    GstVideoRegionOfInterestMeta *meta;
    guint32 box[4] = { 0, 0, 0, 0 };
    guint j;

    if (!g_str_equal (args[i], "roi"))
      continue;
    for (j = 0; j < 4 && args[i + 1] && g_ascii_isdigit (args[i + 1][0]); j++)
      box[j] = (guint32) g_ascii_strtoull (args[++i], NULL, 10);
    meta = gst_buffer_add_video_region_of_interest_meta (buf,
        args[i + 1] && g_ascii_isalpha (args[i + 1][0]) ? args[++i] : "",
        box[0], box[1], box[2], box[3]);
    meta->id = (gint) i;
  }
  return buf;
}

static void
push_frame (FuzzPad * pad, gchar ** args)
{
  GstBuffer *buf;

  if (args[0] == NULL || args[1] == NULL || pad->eos ||
      run.frames >= MAX_FRAMES)
    return;
  /* a frame on a pad still holding one would block this thread */
  if (!wait_taken (pad))
    return;
  if (!pad->has_segment) {
    GstSegment segment;

    gst_segment_init (&segment, GST_FORMAT_TIME);
    pad->has_segment = TRUE;
    gst_pad_push_event (pad->srcpad, gst_event_new_segment (&segment));
  }
  run.frames++;
  buf = make_frame (pad, args);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), on_buffer_freed, NULL);
  g_mutex_lock (&run.lock);
  pad->queued = buf;
  g_mutex_unlock (&run.lock);
  gst_pad_push (pad->srcpad, buf);
}

static void
push_eos (FuzzPad * pad)
{
  if (pad->eos)
    return;
  /* an EOS the element did not queue (refused caps still pending before
   * it, a pad flushing) leaves the pad waited for */
  pad->eos = gst_pad_push_event (pad->srcpad, gst_event_new_eos ());
}

static void
flush (FuzzPad * only)
{
  guint32 seqnum = gst_util_seqnum_next ();
  guint i;

  for (i = 0; i < MAX_PADS; i++) {
    FuzzPad *pad = &run.pads[i];
    GstEvent *event;

    if (pad->sinkpad == NULL || (only && pad != only))
      continue;
    event = gst_event_new_flush_start ();
    gst_event_set_seqnum (event, seqnum);
    gst_pad_push_event (pad->srcpad, event);
  }
  for (i = 0; i < MAX_PADS; i++) {
    FuzzPad *pad = &run.pads[i];
    GstEvent *event;

    if (pad->sinkpad == NULL || (only && pad != only))
      continue;
    event = gst_event_new_flush_stop (TRUE);
    gst_event_set_seqnum (event, seqnum);
    gst_pad_push_event (pad->srcpad, event);
    /* flush-stop takes the segment and the EOS off both pads */
    pad->has_segment = pad->eos = FALSE;
  }
}

static void
set_downstream (GstCaps ** downstream, const gchar * text)
{
  GstCaps *caps = fuzz_caps_from_string (text);

  if (caps == NULL || !fuzz_caps_small_enough (caps)) {
    gst_clear_caps (&caps);
    return;
  }
  gst_caps_replace (downstream, caps);
  gst_harness_set_sink_caps (run.h, caps);
  gst_pad_push_event (run.h->sinkpad, gst_event_new_reconfigure ());
}

/* Live, the element's wait on the test clock, if it is in one, ended:
 * the clock moved to it */
static void
tick (void)
{
  GstTestClock *clock;
  GList *ids = NULL;

  if (!run.live || run.ticks++ >= MAX_TICKS)
    return;
  clock = gst_harness_get_testclock (run.h);
  if (gst_test_clock_timed_wait_for_multiple_pending_ids (clock, 1, 100, &ids)) {
    GstClockTime t = gst_clock_id_get_time (ids->data);
    GstClockID processed;

    if (GST_CLOCK_TIME_IS_VALID (t) && t > gst_clock_get_time (GST_CLOCK
            (clock)))
      gst_test_clock_set_time (clock, t);
    /* not blocking: the wait may have ended meanwhile; what it processed
     * is given back with a reference */
    processed = gst_test_clock_process_next_clock_id (clock);
    if (processed)
      gst_clock_id_unref (processed);
  }
  g_list_free_full (ids, (GDestroyNotify) gst_clock_id_unref);
  gst_object_unref (clock);
}

/* The words of @line, at most 24 (the last one takes the rest) */
static gchar **
split_words (const gchar * line)
{
  gchar **parts = g_strsplit_set (line, " \t", 24);
  guint i, n = 0;

  /* runs of blanks make empty words */
  for (i = 0; parts[i]; i++) {
    if (*parts[i])
      parts[n++] = parts[i];
    else
      g_free (parts[i]);
  }
  parts[n] = NULL;
  return parts;
}

/* @line after its first @n words */
static const gchar *
skip_words (const gchar * line, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    line += strspn (line, " \t");
    line += strcspn (line, " \t");
  }
  return line + strspn (line, " \t");
}

/* Runs one operation, @words the words of @line */
static void
run_op (gchar ** words, const gchar * line, GstCaps ** downstream)
{
  const gchar *op = words[0];
  FuzzPad *pad;

  if (op == NULL)
    return;
  if (strchr (op, '=') != NULL) {
    gchar **pair = g_strsplit (line, "=", 2);

    /* batches past MAX_BATCH_SIZE slots: memory, not coverage */
    fuzz_set_property (run.element, g_strstrip (pair[0]), pair[1],
        run.h != NULL, g_str_equal (g_strstrip (pair[0]), "batch-size") ?
        MAX_BATCH_SIZE : 0);
    g_strfreev (pair);
    return;
  }
  if (g_str_equal (op, "live")) {
    run.live = TRUE;
    run.live_latency = words[1] ? parse_time (words[1]) : 0;
    if (!GST_CLOCK_TIME_IS_VALID (run.live_latency))
      run.live_latency = 0;
    return;
  }
  if (g_str_equal (op, "request")) {
    request_pad ();
    return;
  }
  if (g_str_equal (op, "release")) {
    if ((pad = parse_pad (words[1])))
      release_pad (pad);
    return;
  }
  if (!g_str_equal (op, "play") && !g_str_equal (op, "caps") &&
      !g_str_equal (op, "segment") && !g_str_equal (op, "push") &&
      !g_str_equal (op, "eos") && !g_str_equal (op, "flush") &&
      !g_str_equal (op, "downstream") && !g_str_equal (op, "tick"))
    return;

  play (*downstream);
  if (g_str_equal (op, "downstream")) {
    set_downstream (downstream, skip_words (line, 1));
  } else if (g_str_equal (op, "tick")) {
    tick ();
  } else if (g_str_equal (op, "flush")) {
    if (words[1] == NULL)
      flush (NULL);
    else if ((pad = parse_pad (words[1])))
      flush (pad);
  } else if (g_str_equal (op, "play") || !(pad = parse_pad (words[1]))) {
    /* played above; an operation on no pad does nothing */
  } else if (g_str_equal (op, "caps")) {
    push_caps (pad, skip_words (line, 2));
  } else if (g_str_equal (op, "segment")) {
    push_segment (pad, words + 2);
  } else if (g_str_equal (op, "push")) {
    push_frame (pad, words + 2);
  } else if (g_str_equal (op, "eos")) {
    push_eos (pad);
  }
  drain_output ();
}

/* Every error the element posted says why. Every message is popped, not
 * only errors: gst_bus_pop_filtered drops the others with the bus locked,
 * and under GStreamer 1.26 a structure-change message holds the last
 * reference to the harness's sink pad, still linked to the element: its
 * unlink posts to this bus, which would wait for itself. */
static void
check_errors (GstBus * bus)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    GError *error = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, NULL);
      fuzz_expect_error (&error, GST_MESSAGE_TYPE_NAME (msg));
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &error, NULL);
      fuzz_expect_error (&error, GST_MESSAGE_TYPE_NAME (msg));
    }
    gst_message_unref (msg);
  }
  gst_bus_set_flushing (bus, TRUE);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar **lines;
  GstCaps *downstream;
  GstBus *bus;
  guint i;

  fuzz_init ();
  lines = fuzz_split_lines (data, size, MAX_OPS + 1);
  downstream = fuzz_caps_from_string (fuzz_field (lines, 0));
  if (downstream == NULL || !fuzz_caps_small_enough (downstream)) {
    gst_clear_caps (&downstream);
    g_strfreev (lines);
    return 0;
  }

  run.element = gst_element_factory_make ("cudacachebatch", NULL);
  if (run.element == NULL)
    g_error ("no cudacachebatch: GST_PLUGIN_PATH_1_0 must name the "
        "plugin's build");
  bus = gst_bus_new ();
  gst_element_set_bus (run.element, bus);
  g_signal_connect (run.element, "samples-selected",
      G_CALLBACK (on_samples_selected), NULL);
  run.live = FALSE;
  run.live_latency = 0;
  run.frames = run.ticks = 0;
  run.fill = size ? data[0] : 0;

  for (i = 1; i < g_strv_length (lines); i++) {
    gchar **words = split_words (g_strstrip (lines[i]));

    run_op (words, lines[i], &downstream);
    g_strfreev (words);
    /* what the element can take now taken, so that what the next
     * operation finds does not depend on its thread's speed */
    if (run.h)
      wait_taken (NULL);
  }

  /* the end: EOS on every pad, what the element can still take taken */
  play (downstream);
  for (i = 0; i < MAX_PADS; i++) {
    if (run.pads[i].sinkpad)
      push_eos (&run.pads[i]);
  }
  wait_taken (NULL);
  wait_eos ();
  drain_output ();

  gst_element_set_state (run.element, GST_STATE_NULL);
  for (i = 0; i < MAX_PADS; i++) {
    if (run.pads[i].sinkpad)
      release_pad (&run.pads[i]);
  }
  gst_harness_teardown (run.h);
  run.h = NULL;
  check_errors (bus);
  gst_element_set_bus (run.element, NULL);
  gst_object_unref (bus);
  gst_clear_object (&run.element);
  gst_caps_unref (downstream);
  g_strfreev (lines);
  return 0;
}
