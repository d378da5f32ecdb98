/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* An H.264 stream that changes size (1280x720, 854x480, 1920x1080), decoded
 * by nvh264dec with init-max-width=1920 init-max-height=1080 (GStreamer
 * 1.24 and later), through the cache's elements (docs/gpu.md, "Decoders
 * that reconfigure"):
 *
 *   (a)  nvh264dec ! fakesink                  stock decode alone
 *   (a0) the same without init-max-width/height
 *   (b)  nvh264dec ! cudacacheidentity ! ...
 *   (b1) the same, the three sizes listed in warm-caps
 *   (c)  nvh264dec ! cudacacheconvert ! RGBA 640x640 ! ...
 *
 * The stream is made here: three x264enc segments, their access units one
 * after the other (h264parse takes each new SPS). It plays twice in each
 * pipeline: the second round must allocate nothing (the cache's misses,
 * read as round 2's first frame reaches the sink and at the end). Between
 * round 1's last frame and round 2's first, the decoder's allocation
 * query for the new size makes the sink copy the frame it holds
 * (GstBaseSink's last sample), a block of the cache where that frame was
 * one: the misses there may be that copy and nothing else. With the
 * ladder warmed (b1), round 1 must allocate nothing either: its misses are
 * counted from the decoder's first allocation query, which comes after the
 * caps that warm the cache.
 *
 * Pixels: (b)'s and (b1)'s frames must show what stock decode's show, every visible
 * pixel of every frame. (c)'s must equal, byte for byte, the same
 * conversion of each segment decoded in a pipeline of its own (one size,
 * no reconfiguration): the decoded frames being equal, as (b) shows, the
 * only difference left is the size change itself.
 *
 * Speed: frames per second from the first frame at the sink to the last,
 * each pipeline three times (interleaved), the median.
 *
 *   reconfigure-decode [--frames N] (frames per segment, default 60)
 *
 * Prints a table and PASS or FAIL; exits 0, 1, or 77 (skipped) where an
 * element, GStreamer 1.24 or a CUDA device is missing.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>

#include "gpu-example-common.h"

static const struct
{
  gint width, height;
} sizes[] = {
  {1280, 720}, {854, 480}, {1920, 1080},
};

#define N_SEGMENTS G_N_ELEMENTS (sizes)
#define ROUNDS 2
#define REPEATS 3
#define FRAME_DURATION (GST_SECOND / 30)
#define CONVERT_CAPS \
  "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640"
/* the stream's ladder, for (b1)'s warm-caps */
#define LADDER "\"video/x-raw,format=NV12,width=1280,height=720;" \
  "video/x-raw,format=NV12,width=854,height=480;" \
  "video/x-raw,format=NV12,width=1920,height=1080\""
#define WARM_BUFFERS 4
#define WARMED "cudacacheidentity name=el warm-buffers=" \
  G_STRINGIFY (WARM_BUFFERS) " warm-caps=" LADDER

static gint per_segment = 60;
static gboolean have_init_max = FALSE;
/* the device cache's misses when last read: it lives for the process, and
 * only pipelines with one of the cache's elements allocate from it */
static guint64 last_misses = 0;

/* what one run of a pipeline saw at its sink */
typedef struct
{
  gboolean checksums;
  guint round_frames;           /* frames per round */
  guint rounds;
  GstElement *cached;           /* the element whose cache is read */

  GArray *sums;                 /* guint64 per frame, with checksums */
  GArray *dims;                 /* guint32: width << 16 | height */
  guint frames, from_cache_pool;
  gint64 first_us, last_us;
  /* the misses at the start, at the first allocation query the cache's
   * element answers (after any warming), at round 1's last frame, at
   * round 2's first and at the end */
  guint64 misses_start, misses_query, misses_last, misses_round1, misses_end;
  /* allocation queries the sink answered between round 1's last frame and
   * round 2's first, holding a block of the cache as its last sample */
  guint sink_copies;
  gboolean queried;
  gboolean map_failed;
} Run;

static guint64
cache_misses (GstElement * element)
{
  GstCudaCache *cache = NULL;
  GstCudaCacheStats stats = { 0 };

  if (element)
    g_object_get (element, "cache", &cache, NULL);
  if (cache) {
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
    gst_object_unref (cache);
    last_misses = stats.misses;
  }
  return last_misses;
}

/* every frame at the sink: its time, where its memory came from and, for
 * the checks, what it shows */
static void
run_frame (Run * run, GstBuffer * buf, GstCaps * caps)
{
  gint64 now = g_get_monotonic_time ();

  if (run->frames == 0)
    run->first_us = now;
  run->last_us = now;
  g_atomic_int_inc ((gint *) & run->frames);
  /* round 1's last frame: the decoder makes its output as it pushes it
   * (nvh264dec copies each frame out at its turn), so every block of round
   * 1 is made and none of round 2 yet, held frames included; round 2's
   * first: the decoder has taken its first block of the new size too,
   * and the sink has copied the frame it held */
  if (run->rounds > 1 && run->frames == run->round_frames)
    run->misses_last = cache_misses (run->cached);
  if (run->rounds > 1 && run->frames == run->round_frames + 1)
    run->misses_round1 = cache_misses (run->cached);
  if (buf->pool && GST_IS_CUDA_CACHE_POOL (buf->pool))
    run->from_cache_pool++;

  if (run->checksums) {
    GstVideoInfo info;
    guint64 sum = 0;
    guint32 dim;

    if (!gst_video_info_from_caps (&info, caps) ||
        !gpu_example_frame_checksum (buf, &info, &sum))
      run->map_failed = TRUE;
    dim = (guint32) info.width << 16 | (guint32) info.height;
    g_array_append_val (run->sums, sum);
    g_array_append_val (run->dims, dim);
  }
}

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer user_data)
{
  GstSample *sample = gst_app_sink_pull_sample (sink);

  if (!sample)
    return GST_FLOW_EOS;
  run_frame (user_data, gst_sample_get_buffer (sample),
      gst_sample_get_caps (sample));
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  run_frame (user_data, GST_PAD_PROBE_INFO_BUFFER (info), NULL);
  return GST_PAD_PROBE_OK;
}

/* an allocation query reaching the sink between round 1's last frame and
 * round 2's first: GstBaseSink answers it with a deep copy of its last
 * sample, which comes from the cache where the sample's memory is the
 * cache's */
static GstPadProbeReturn
on_sink_query (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  GstElement *sink;
  GstSample *last = NULL;
  GstCudaCache *cache = NULL;

  if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) !=
      GST_QUERY_ALLOCATION || run->rounds < 2 || !run->cached ||
      g_atomic_int_get ((gint *) & run->frames) != (gint) run->round_frames)
    return GST_PAD_PROBE_OK;

  sink = gst_pad_get_parent_element (pad);
  g_object_get (sink, "last-sample", &last, NULL);
  g_object_get (run->cached, "cache", &cache, NULL);
  if (last && cache && gst_sample_get_buffer (last) &&
      gst_buffer_n_memory (gst_sample_get_buffer (last)) > 0 &&
      gst_cuda_cache_owns_memory (cache,
          gst_buffer_peek_memory (gst_sample_get_buffer (last), 0)))
    run->sink_copies++;
  if (last)
    gst_sample_unref (last);
  gst_clear_object (&cache);
  gst_object_unref (sink);
  return GST_PAD_PROBE_OK;
}

/* the first allocation query reaching the cache's element: the caps
 * before it have warmed the cache (warm-caps), no frame is made yet */
static GstPadProbeReturn
on_query (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;

  if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) ==
      GST_QUERY_ALLOCATION && !run->queried) {
    run->queried = TRUE;
    run->misses_query = cache_misses (run->cached);
  }
  return GST_PAD_PROBE_OK;
}

static gboolean
wait_eos (GstElement * pipeline, const gchar * what)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

  if (msg && !ok) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("%s: error from %s: %s\n%s\n", what,
        GST_OBJECT_NAME (msg->src), err->message, GST_STR_NULL (debug));
    g_clear_error (&err);
    g_free (debug);
  } else if (!msg) {
    g_printerr ("%s: no end of stream after 120 s\n", what);
  }
  gst_clear_message (&msg);
  return ok;
}

/* the access units of one size: x264enc's, one I frame per segment */
static gboolean
encode_segment (gint width, gint height, GPtrArray * aus)
{
  GstElement *pipeline, *sink;
  GstSample *sample;
  GError *err = NULL;
  gchar *desc;
  gboolean ok;

  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=30/1 ! "
      "x264enc speed-preset=ultrafast bframes=0 key-int-max=%d ! "
      "video/x-h264,stream-format=byte-stream,alignment=au ! "
      "appsink name=sink sync=false", per_segment, width, height, per_segment);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("encoder: %s\n", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    g_ptr_array_add (aus, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  ok = wait_eos (pipeline, "encoder") && aus->len == (guint) per_segment;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok;
}

/* Decodes @aus @rounds times, one after the other, through nvh264dec and
 * @tail (which ends in an appsink or a fakesink named sink, and names the
 * cache's element el if it has one). */
static gboolean
run_pipeline (const gchar * what, const gchar * tail, gboolean init_max,
    GPtrArray * aus, guint rounds, gboolean checksums, Run * run)
{
  GstElement *pipeline, *src, *sink;
  GstPad *sink_pad;
  GError *err = NULL;
  gchar *desc;
  guint r, i, n = 0;
  gboolean ok;

  memset (run, 0, sizeof (*run));
  run->checksums = checksums;
  run->round_frames = aus->len;
  run->rounds = rounds;
  run->sums = g_array_new (FALSE, FALSE, sizeof (guint64));
  run->dims = g_array_new (FALSE, FALSE, sizeof (guint32));

  desc = g_strdup_printf ("appsrc name=src format=time max-bytes=0 "
      "caps=video/x-h264,stream-format=byte-stream,alignment=au ! "
      "h264parse ! nvh264dec%s ! %s",
      init_max && have_init_max ?
      " init-max-width=1920 init-max-height=1080" : "", tail);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("%s: %s\n", what, err->message);
    g_clear_error (&err);
    return FALSE;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  run->cached = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  sink_pad = gst_element_get_static_pad (sink, "sink");
  if (GST_IS_APP_SINK (sink)) {
    GstAppSinkCallbacks callbacks = { NULL };

    callbacks.new_sample = on_sample;
    gst_app_sink_set_callbacks (GST_APP_SINK (sink), &callbacks, run, NULL);
  } else {
    gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, run,
        NULL);
  }
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PUSH, on_sink_query, run, NULL);
  gst_object_unref (sink_pad);

  /* a warmed element's misses split at its first allocation query */
  if (run->cached && strstr (tail, "warm-caps")) {
    GstPad *pad = gst_element_get_static_pad (run->cached, "sink");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, on_query, run,
        NULL);
    gst_object_unref (pad);
  }

  run->misses_start = last_misses;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (r = 0; r < rounds; r++) {
    for (i = 0; i < aus->len; i++, n++) {
      GstBuffer *buf = gst_buffer_copy (g_ptr_array_index (aus, i));

      GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = n * FRAME_DURATION;
      GST_BUFFER_DURATION (buf) = FRAME_DURATION;
      gst_app_src_push_buffer (GST_APP_SRC (src), buf);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  ok = wait_eos (pipeline, what);
  run->misses_end = cache_misses (run->cached);
  if (rounds == 1)
    run->misses_last = run->misses_round1 = run->misses_end;
  if (!run->queried)
    run->misses_query = run->misses_start;
  gst_element_set_state (pipeline, GST_STATE_NULL);

  if (ok && run->frames != n) {
    g_printerr ("%s: %u frames out of %u\n", what, run->frames, n);
    ok = FALSE;
  }
  if (run->map_failed) {
    g_printerr ("%s: a frame could not be mapped\n", what);
    ok = FALSE;
  }
  gst_clear_object (&run->cached);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  return ok;
}

static void
run_clear (Run * run)
{
  g_clear_pointer (&run->sums, g_array_unref);
  g_clear_pointer (&run->dims, g_array_unref);
}

static gdouble
run_fps (const Run * run)
{
  if (run->frames < 2 || run->last_us <= run->first_us)
    return 0;
  return (run->frames - 1) * 1e6 / (run->last_us - run->first_us);
}

/* frames of @a and @b that differ (in size or checksum); all of them if
 * the counts differ. Names the first few, by round, segment and frame,
 * as @what. */
static guint
count_differences (const gchar * what, const Run * a, GArray * sums,
    GArray * dims)
{
  guint i, bad = 0, n = (guint) per_segment;

  if (a->sums->len != sums->len)
    return MAX (a->sums->len, sums->len);
  for (i = 0; i < sums->len; i++) {
    if (g_array_index (a->sums, guint64, i) != g_array_index (sums, guint64,
            i) || (dims && g_array_index (a->dims, guint32,
                i) != g_array_index (dims, guint32, i))) {
      if (bad++ < 8)
        g_print ("%s: frame %u differs (round %u, segment %u, frame %u of "
            "it)\n", what, i, (guint) (i / (n * N_SEGMENTS)) + 1,
            (guint) (i / n % N_SEGMENTS) + 1, i % n + 1);
    }
  }
  return bad;
}

typedef struct
{
  const gchar *name;
  const gchar *tail;
  gboolean init_max;
  gdouble fps[REPEATS];
  guint frames;
} Timed;

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &per_segment,
        "Frames per segment (default 60)", "N"},
    {NULL}
  };
  static const gchar *const needed[] = { "nvh264dec", "x264enc", "h264parse",
    "videotestsrc", "cudacacheidentity", "cudacacheconvert", "appsrc",
    "appsink", "fakesink", NULL
  };
  Timed timed[] = {
    {"(a)  nvh264dec ! fakesink", "fakesink name=sink sync=false", TRUE},
    {"(a0) the same, no init-max-*", "fakesink name=sink sync=false", FALSE},
    {"(b)  ! cudacacheidentity ! fakesink",
        "cudacacheidentity name=el ! fakesink name=sink sync=false", TRUE},
    {"(b1) the same, warm-caps (the 3 sizes) warm-buffers="
          G_STRINGIFY (WARM_BUFFERS),
        WARMED " ! fakesink name=sink sync=false", TRUE},
    {"(c)  ! cudacacheconvert (640x640 RGBA) ! fakesink",
        "cudacacheconvert name=el ! " CONVERT_CAPS
          " ! fakesink name=sink sync=false", TRUE},
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GPtrArray *segments[N_SEGMENTS], *stream;
  GArray *expected_sums;
  Run stock, identity, warmed, convert, one;
  GstElement *dec;
  const gchar *missing;
  guint major, minor, micro, nano, s, i, r, bad_b, bad_b1, bad_c;
  gboolean ok = TRUE;

  ctx = g_option_context_new ("- a stream changing size through nvh264dec "
      "and the cache's elements");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (per_segment < 2) {
    g_printerr ("--frames must be at least 2\n");
    return 2;
  }

  gst_version (&major, &minor, &micro, &nano);
  if (major == 1 && minor < 24) {
    g_print ("SKIP: needs GStreamer 1.24 or later (nvh264dec's "
        "init-max-width)\n");
    return GPU_EXAMPLE_SKIP;
  }
  missing = gpu_example_missing_element (needed);
  if (missing) {
    g_print ("SKIP: element %s is not registered\n", missing);
    return GPU_EXAMPLE_SKIP;
  }
  if (gst_cuda_cache_device_get_count () == 0) {
    g_print ("SKIP: no CUDA device or driver on this machine\n");
    return GPU_EXAMPLE_SKIP;
  }
  dec = gst_element_factory_make ("nvh264dec", NULL);
  have_init_max = dec &&
      g_object_class_find_property (G_OBJECT_GET_CLASS (dec),
      "init-max-width") != NULL;
  gst_clear_object (&dec);
  g_print ("reconfigure-decode: GStreamer %u.%u.%u, %d frames per segment, "
      "%u rounds; nvh264dec %s init-max-width/height\n", major, minor, micro,
      per_segment, ROUNDS, have_init_max ? "has" : "has no");

  /* the stream */
  stream = g_ptr_array_new ();
  for (s = 0; s < N_SEGMENTS; s++) {
    segments[s] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    if (!encode_segment (sizes[s].width, sizes[s].height, segments[s])) {
      g_print ("FAIL: could not encode %dx%d\n", sizes[s].width,
          sizes[s].height);
      return 1;
    }
    for (i = 0; i < segments[s]->len; i++)
      g_ptr_array_add (stream, g_ptr_array_index (segments[s], i));
  }

  /* pixels: (b) against stock decode */
  ok &= run_pipeline ("stock", "video/x-raw(memory:CUDAMemory) ! "
      "appsink name=sink sync=false", TRUE, stream, ROUNDS, TRUE, &stock);
  ok &= run_pipeline ("identity", "cudacacheidentity name=el ! "
      "video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false", TRUE,
      stream, ROUNDS, TRUE, &identity);
  bad_b = count_differences ("(b)", &identity, stock.sums, stock.dims);
  ok &= run_pipeline ("identity, warmed", WARMED " ! "
      "video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false", TRUE,
      stream, ROUNDS, TRUE, &warmed);
  bad_b1 = count_differences ("(b1)", &warmed, stock.sums, stock.dims);

  /* pixels: (c) against the same conversion of each segment alone */
  ok &= run_pipeline ("convert", "cudacacheconvert name=el ! " CONVERT_CAPS
      " ! appsink name=sink sync=false", TRUE, stream, ROUNDS, TRUE, &convert);
  expected_sums = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (s = 0; s < N_SEGMENTS; s++) {
    gchar *what = g_strdup_printf ("convert %dx%d alone", sizes[s].width,
        sizes[s].height);

    ok &= run_pipeline (what, "cudacacheconvert name=el ! " CONVERT_CAPS
        " ! appsink name=sink sync=false", TRUE, segments[s], 1, TRUE, &one);
    g_free (what);
    g_array_append_vals (expected_sums, one.sums->data, one.sums->len);
    run_clear (&one);
  }
  for (r = 1; r < ROUNDS; r++) {
    GArray *first = g_array_copy (expected_sums);

    g_array_append_vals (expected_sums, first->data, N_SEGMENTS * per_segment);
    g_array_unref (first);
  }
  bad_c = count_differences ("(c)", &convert, expected_sums, NULL);

  /* speed */
  for (r = 0; r < REPEATS; r++) {
    for (i = 0; i < G_N_ELEMENTS (timed); i++) {
      ok &= run_pipeline (timed[i].name, timed[i].tail, timed[i].init_max,
          stream, ROUNDS, FALSE, &one);
      timed[i].fps[r] = run_fps (&one);
      timed[i].frames = one.frames;
      run_clear (&one);
    }
  }

  g_print ("\n| pipeline (nvh264dec init-max-width=1920 "
      "init-max-height=1080) | frames | fps, median of %d | against (a) "
      "| pixels | misses: warming, round 1 / round 2 | frames from the "
      "cache's pool |\n|---|---|---|---|---|---|---|\n", REPEATS);
  for (i = 0; i < G_N_ELEMENTS (timed); i++) {
    gdouble fps = gpu_example_median3 (timed[i].fps[0], timed[i].fps[1],
        timed[i].fps[2]);
    gdouble stock_fps = gpu_example_median3 (timed[0].fps[0],
        timed[0].fps[1], timed[0].fps[2]);
    gchar *pixels, *misses, *pooled;
    const Run *checked = i == 2 ? &identity : i == 3 ? &warmed :
        i == 4 ? &convert : NULL;

    if (i == 0)
      pixels = g_strdup ("reference");
    else if (i == 1)
      pixels = g_strdup ("-");
    else
      pixels = g_strdup_printf ("%u of %u frames differ (%s)",
          i == 2 ? bad_b : i == 3 ? bad_b1 : bad_c, checked->frames,
          i < 4 ? "against stock decode" :
          "against each segment converted alone");
    misses = checked ? g_strdup_printf ("%" G_GUINT64_FORMAT ", %"
        G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT,
        checked->misses_query - checked->misses_start,
        checked->misses_round1 - checked->misses_query,
        checked->misses_end - checked->misses_round1) : g_strdup ("-");
    pooled = checked ? g_strdup_printf ("%u of %u", checked->from_cache_pool,
        checked->frames) : g_strdup ("-");
    g_print ("| %s | %u | %.0f | %.2f | %s | %s | %s |\n", timed[i].name,
        timed[i].frames, fps, stock_fps > 0 ? fps / stock_fps : 0, pixels,
        misses, pooled);
    g_free (pixels);
    g_free (misses);
    g_free (pooled);
  }
  g_print ("\nfps of each repeat:");
  for (i = 0; i < G_N_ELEMENTS (timed); i++)
    g_print (" %s %.0f/%.0f/%.0f;", timed[i].name, timed[i].fps[0],
        timed[i].fps[1], timed[i].fps[2]);
  g_print ("\n");

  if (bad_b || bad_b1 || bad_c)
    ok = FALSE;
  if (identity.misses_round1 - identity.misses_last > identity.sink_copies ||
      warmed.misses_round1 - warmed.misses_last > warmed.sink_copies ||
      convert.misses_round1 - convert.misses_last > convert.sink_copies) {
    g_print ("round 2's first size allocated more than the sink's copy of "
        "round 1's last frame (%" G_GUINT64_FORMAT " for %u copies, %"
        G_GUINT64_FORMAT " for %u, %" G_GUINT64_FORMAT " for %u)\n",
        identity.misses_round1 - identity.misses_last, identity.sink_copies,
        warmed.misses_round1 - warmed.misses_last, warmed.sink_copies,
        convert.misses_round1 - convert.misses_last, convert.sink_copies);
    ok = FALSE;
  }
  if (identity.misses_end != identity.misses_round1 ||
      warmed.misses_end != warmed.misses_round1 ||
      convert.misses_end != convert.misses_round1) {
    g_print ("round 2 allocated: the cache missed what it had seen\n");
    ok = FALSE;
  }
  if (warmed.misses_query - warmed.misses_start != WARM_BUFFERS * N_SEGMENTS
      || warmed.misses_round1 != warmed.misses_query) {
    g_print ("the warmed ladder: %" G_GUINT64_FORMAT " blocks warmed (%u "
        "asked), round 1 missed %" G_GUINT64_FORMAT "\n",
        warmed.misses_query - warmed.misses_start,
        (guint) (WARM_BUFFERS * N_SEGMENTS),
        warmed.misses_round1 - warmed.misses_query);
    ok = FALSE;
  }
  g_print ("%s\n", ok ? "PASS" : "FAIL");

  run_clear (&stock);
  run_clear (&identity);
  run_clear (&warmed);
  run_clear (&convert);
  g_array_unref (expected_sums);
  g_ptr_array_unref (stream);
  for (s = 0; s < N_SEGMENTS; s++)
    g_ptr_array_unref (segments[s]);
  return ok ? 0 : 1;
}
