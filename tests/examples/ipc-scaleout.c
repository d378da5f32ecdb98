/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* One decode-and-preprocess process feeding two consumer processes through
 * nvcodec's cudaipcsink and cudaipcsrc (GStreamer 1.24 and later), checked
 * pixel for pixel (docs/gpu.md, "Across processes").
 *
 * The producer (this process):
 *
 *   videotestsrc is-live=true pattern=ball ! x264enc ! h264parse !
 *   nvh264dec ! cudacacheconvert name=conv ! RGBA WxH (CUDA) ! tee
 *     ! queue ! cudaipcsink address=... ipc-mode=legacy|mmap
 *     ! queue ! appsink                 (the producer's frames)
 *     ! queue ! cudacacheconvert ! float32 tensor ! appsink
 *
 * Each consumer (a child process):
 *
 *   cudaipcsrc address=... io-mode=import ! tee
 *     ! queue ! appsink                 (frames)
 *     ! queue ! cudacacheconvert ! float32 tensor ! appsink
 *
 * The producer tags every frame with a custom meta holding its PTS, which
 * cudaipcsink serializes (1.26 does; where it does not, frames are matched
 * by checksum among the producer's). Every frame a consumer gets must be
 * CUDA memory and show the same pixels as the producer's frame of that PTS;
 * every tensor it makes from it must equal, byte for byte, the producer's
 * tensor of that PTS: tensors do not cross (cudaipcsink takes video only),
 * frames do and are made tensors on the other side.
 *
 * Mid-stream, consumer 1 keeps 4 samples, then is killed with SIGKILL: the
 * producer and consumer 0 must go on, and the producer's cache must get
 * back the blocks the dead consumer held. The cache's used bytes are
 * printed before, while it holds, and after.
 *
 * The consumers are forked before GStreamer or CUDA is initialised (CUDA
 * does not survive fork()); they wait on a pipe for the word to start and
 * report each frame back on another.
 *
 *   ipc-scaleout [--ipc-mode legacy|mmap] [--frames N] [--width W]
 *                [--height H]
 *
 * Prints its figures and PASS or FAIL; exits 0, 1, or 77 (skipped) where
 * an element, GStreamer 1.24 or a CUDA device is missing.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcuda.h>
#include <gst/cudacache/cudacache.h>

#include "gpu-example-common.h"

#define FRAME_ID_META "GstCudaCacheExampleFrameId"
#define N_CONSUMERS 2
#define VICTIM 1
#define HOLD_SAMPLES 4

typedef enum
{
  RECORD_FRAME = 1,
  RECORD_TENSOR,
  RECORD_HOLDING,
  RECORD_DONE,
  RECORD_ERROR,
} RecordKind;

#define RECORD_FLAG_CUDA 1
#define RECORD_FLAG_META 2

/* what a consumer writes back, one write () each (atomic on a pipe) */
typedef struct
{
  guint32 kind;
  guint32 flags;
  guint64 pts;
  guint64 checksum;
} Record;

typedef struct
{
  /* set before fork () */
  guint index;
  pid_t pid;
  gint cmd_fd;                  /* parent -> child: 'g'o, 'h'old, 'q'uit */
  gint report_fd;               /* child -> parent: Records */

  /* parent side, under the lock */
  GThread *reader;
  GArray *frames;               /* Record */
  GArray *tensors;              /* Record */
  gboolean holding, done, error, gone;
} Consumer;

typedef struct
{
  GMutex lock;
  GCond cond;
  Consumer consumers[N_CONSUMERS];

  /* the producer's frames and tensors: PTS -> checksum */
  GHashTable *frames, *tensors;
  guint n_frames, n_tensors;
  gsize block_size;
  gboolean map_failed;
} Producer;

static gchar *ipc_mode = NULL;
static gint n_frames = 300, width = 640, height = 360;

/* ---- consumer (child process) ---- */

typedef struct
{
  gint report_fd;
  volatile gint hold;
  GMutex lock;
  GstSample *held[HOLD_SAMPLES];
  guint n_held;
} ConsumerState;

static void
send_record (gint fd, RecordKind kind, guint32 flags, guint64 pts,
    guint64 checksum)
{
  Record r = { kind, flags, pts, checksum };
  ssize_t n;

  do {
    n = write (fd, &r, sizeof (r));
  } while (n < 0 && errno == EINTR);
}

/* the producer's PTS, carried by the custom meta, as the buffer's PTS, so
 * that both branches of the consumer's tee see it */
static GstPadProbeReturn
frame_id_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCustomMeta *meta = gst_buffer_get_custom_meta (buf, FRAME_ID_META);
  guint64 pts;

  if (!meta || !gst_structure_get_uint64 (gst_custom_meta_get_structure
          (meta), "pts", &pts))
    return GST_PAD_PROBE_OK;

  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_PTS (buf) = pts;
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static GstFlowReturn
consumer_frame (GstAppSink * sink, gpointer user_data)
{
  ConsumerState *st = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  GstVideoInfo info;
  guint64 checksum = 0;
  guint32 flags = 0;

  if (!sample)
    return GST_FLOW_EOS;
  buf = gst_sample_get_buffer (sample);
  if (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)))
    flags |= RECORD_FLAG_CUDA;
  if (gst_buffer_get_custom_meta (buf, FRAME_ID_META))
    flags |= RECORD_FLAG_META;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ||
      !gpu_example_frame_checksum (buf, &info, &checksum)) {
    send_record (st->report_fd, RECORD_ERROR, 0, 0, 0);
    gst_sample_unref (sample);
    return GST_FLOW_ERROR;
  }
  send_record (st->report_fd, RECORD_FRAME, flags, GST_BUFFER_PTS (buf),
      checksum);

  /* told to hold: the next HOLD_SAMPLES samples are kept for good */
  g_mutex_lock (&st->lock);
  if (g_atomic_int_get (&st->hold) && st->n_held < HOLD_SAMPLES) {
    st->held[st->n_held++] = sample;
    sample = NULL;
    if (st->n_held == HOLD_SAMPLES)
      send_record (st->report_fd, RECORD_HOLDING, 0, 0, 0);
  }
  g_mutex_unlock (&st->lock);

  if (sample)
    gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static GstFlowReturn
consumer_tensor (GstAppSink * sink, gpointer user_data)
{
  ConsumerState *st = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  guint64 checksum = 0;
  guint32 flags = 0;

  if (!sample)
    return GST_FLOW_EOS;
  buf = gst_sample_get_buffer (sample);
  if (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)))
    flags |= RECORD_FLAG_CUDA;
  if (!gpu_example_buffer_checksum (buf, &checksum)) {
    send_record (st->report_fd, RECORD_ERROR, 0, 0, 0);
    gst_sample_unref (sample);
    return GST_FLOW_ERROR;
  }
  send_record (st->report_fd, RECORD_TENSOR, flags, GST_BUFFER_PTS (buf),
      checksum);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

typedef struct
{
  ConsumerState *state;
  gint cmd_fd;
} CommandReader;

static gpointer
consumer_read_commands (gpointer user_data)
{
  CommandReader *r = user_data;
  gchar c;

  while (read (r->cmd_fd, &c, 1) == 1) {
    if (c == 'h')
      g_atomic_int_set (&r->state->hold, 1);
  }
  return NULL;
}

static void
set_sink_callback (GstElement * pipeline, const gchar * name,
    GstFlowReturn (*func) (GstAppSink *, gpointer), gpointer user_data)
{
  GstAppSinkCallbacks callbacks = { NULL };
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);

  callbacks.new_sample = func;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &callbacks, user_data, NULL);
  gst_object_unref (sink);
}

static gchar *
tensor_caps_string (void)
{
  return g_strdup_printf ("other/tensors(memory:CUDAMemory),format=static,"
      "num_tensors=1,types=float32,layout=NCHW,dimensions=(string)%d:%d:3:1",
      width, height);
}

static int
run_consumer (Consumer * c, const gchar * address)
{
  ConsumerState st = { 0 };
  CommandReader reader;
  GstElement *pipeline, *src;
  GstMessage *msg;
  GstPad *pad;
  GError *err = NULL;
  gchar *desc, *tensor_caps, cmd;
  int ret = 0;
  guint i;

  if (read (c->cmd_fd, &cmd, 1) != 1 || cmd != 'g')
    return 0;
  alarm (n_frames / 30 + 120);

  gst_init (NULL, NULL);
  gst_meta_register_custom_simple (FRAME_ID_META);
  g_mutex_init (&st.lock);
  st.report_fd = c->report_fd;
  reader.state = &st;
  reader.cmd_fd = c->cmd_fd;
  g_thread_unref (g_thread_new ("commands", consumer_read_commands, &reader));

  tensor_caps = tensor_caps_string ();
  desc = g_strdup_printf ("cudaipcsrc name=src address=%s io-mode=import "
      "connection-timeout=20 ! tee name=t "
      "t. ! queue ! appsink name=frames sync=false enable-last-sample=false "
      "t. ! queue ! cudacacheconvert ! %s ! "
      "appsink name=tensors sync=false enable-last-sample=false",
      address, tensor_caps);
  g_free (tensor_caps);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("consumer %u: %s\n", c->index, err->message);
    send_record (c->report_fd, RECORD_ERROR, 0, 0, 0);
    return 1;
  }

  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, frame_id_probe, NULL,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  set_sink_callback (pipeline, "frames", consumer_frame, &st);
  set_sink_callback (pipeline, "tensors", consumer_tensor, &st);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("consumer %u: error from %s: %s\n%s\n", c->index,
        GST_OBJECT_NAME (msg->src), err->message, GST_STR_NULL (debug));
    g_clear_error (&err);
    g_free (debug);
    ret = 1;
  }
  gst_message_unref (msg);

  /* what it held goes back before the producer is told it is done */
  g_mutex_lock (&st.lock);
  for (i = 0; i < st.n_held; i++)
    gst_sample_unref (st.held[i]);
  st.n_held = 0;
  g_mutex_unlock (&st.lock);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  send_record (c->report_fd, ret ? RECORD_ERROR : RECORD_DONE, 0, 0, 0);
  return ret;
}

/* ---- producer (this process) ---- */

static GstPadProbeReturn
tag_frame_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GstCustomMeta *meta = gst_buffer_add_custom_meta (buf, FRAME_ID_META);

  gst_structure_set (gst_custom_meta_get_structure (meta), "pts",
      G_TYPE_UINT64, (guint64) GST_BUFFER_PTS (buf), NULL);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static GstFlowReturn
producer_frame (GstAppSink * sink, gpointer user_data)
{
  Producer *p = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  GstVideoInfo info;
  guint64 checksum;
  gboolean ok;

  if (!sample)
    return GST_FLOW_EOS;
  buf = gst_sample_get_buffer (sample);
  ok = gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) &&
      gpu_example_frame_checksum (buf, &info, &checksum);

  g_mutex_lock (&p->lock);
  if (ok) {
    g_hash_table_insert (p->frames,
        g_memdup2 (&GST_BUFFER_PTS (buf), sizeof (guint64)),
        g_memdup2 (&checksum, sizeof (checksum)));
    p->n_frames++;
  } else {
    p->map_failed = TRUE;
  }
  if (!p->block_size)
    p->block_size = gst_buffer_peek_memory (buf, 0)->maxsize;
  g_mutex_unlock (&p->lock);

  gst_sample_unref (sample);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
producer_tensor (GstAppSink * sink, gpointer user_data)
{
  Producer *p = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  guint64 checksum;
  gboolean ok;

  if (!sample)
    return GST_FLOW_EOS;
  buf = gst_sample_get_buffer (sample);
  ok = gpu_example_buffer_checksum (buf, &checksum);

  g_mutex_lock (&p->lock);
  if (ok) {
    g_hash_table_insert (p->tensors,
        g_memdup2 (&GST_BUFFER_PTS (buf), sizeof (guint64)),
        g_memdup2 (&checksum, sizeof (checksum)));
    p->n_tensors++;
  } else {
    p->map_failed = TRUE;
  }
  g_mutex_unlock (&p->lock);

  gst_sample_unref (sample);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

typedef struct
{
  Producer *producer;
  Consumer *consumer;
} ReaderArgs;

static gpointer
read_reports (gpointer user_data)
{
  ReaderArgs *a = user_data;
  Producer *p = a->producer;
  Consumer *c = a->consumer;
  Record r;

  g_free (a);
  for (;;) {
    ssize_t n = read (c->report_fd, &r, sizeof (r));

    if (n < 0 && errno == EINTR)
      continue;
    if (n != sizeof (r))
      break;
    g_mutex_lock (&p->lock);
    switch (r.kind) {
      case RECORD_FRAME:
        g_array_append_val (c->frames, r);
        break;
      case RECORD_TENSOR:
        g_array_append_val (c->tensors, r);
        break;
      case RECORD_HOLDING:
        c->holding = TRUE;
        break;
      case RECORD_DONE:
        c->done = TRUE;
        break;
      default:
        c->error = TRUE;
        break;
    }
    g_cond_broadcast (&p->cond);
    g_mutex_unlock (&p->lock);
  }

  g_mutex_lock (&p->lock);
  c->gone = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return NULL;
}

static void
send_command (Consumer * c, gchar cmd)
{
  /* EPIPE: the consumer is gone already, which the reports say */
  if (c->cmd_fd >= 0 && write (c->cmd_fd, &cmd, 1) != 1 && errno != EPIPE)
    g_printerr ("could not tell consumer %u '%c': %s\n", c->index, cmd,
        g_strerror (errno));
}

/* cudaipcsink warns, at start, where it falls back from mmap to legacy:
 * seen here whoever pops the bus, and printed */
static GstBusSyncReply
watch_warnings (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  gboolean *ipcsink_warned = user_data;
  GError *err = NULL;
  gchar *debug = NULL;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_WARNING)
    return GST_BUS_PASS;
  gst_message_parse_warning (msg, &err, &debug);
  g_printerr ("producer: warning from %s: %s (%s)\n",
      GST_OBJECT_NAME (msg->src), err->message, GST_STR_NULL (debug));
  if (GST_IS_ELEMENT (msg->src) &&
      g_str_has_prefix (GST_OBJECT_NAME (msg->src), "ipcsink"))
    *ipcsink_warned = TRUE;
  g_clear_error (&err);
  g_free (debug);
  return GST_BUS_PASS;
}

static void
cache_stats (GstElement * conv, GstCudaCacheStats * stats)
{
  GstCudaCache *cache = NULL;

  memset (stats, 0, sizeof (*stats));
  g_object_get (conv, "cache", &cache, NULL);
  if (!cache)
    return;
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, stats);
  gst_object_unref (cache);
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* what the producer's cache says over a phase of the run */
typedef struct
{
  guint64 used_median;          /* used bytes, read every 10 ms */
  guint64 misses;               /* at the phase's end */
} Phase;

/* @ms milliseconds of reading the cache, while the bus is watched for
 * errors */
static gboolean
measure_phase (GstElement * pipeline, GstElement * conv, guint ms,
    Phase * phase)
{
  GArray *values = g_array_new (FALSE, FALSE, sizeof (guint64));
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;
  GstCudaCacheStats stats;
  gboolean ok = TRUE;

  while (g_get_monotonic_time () < end) {
    GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        10 * GST_MSECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    cache_stats (conv, &stats);
    g_array_append_val (values, stats.used_bytes);
    if (msg) {
      g_printerr ("producer: %s before the measures were done\n",
          GST_MESSAGE_TYPE_NAME (msg));
      gst_message_unref (msg);
      ok = FALSE;
      break;
    }
  }
  g_array_sort (values, compare_u64);
  phase->used_median =
      values->len ? g_array_index (values, guint64, values->len / 2) : 0;
  cache_stats (conv, &stats);
  phase->misses = stats.misses;
  g_array_free (values, TRUE);
  return ok;
}

/* waits, watching the bus, until @done (under the lock) or @ms pass */
static gboolean
wait_for (Producer * p, GstElement * pipeline, gboolean * done, guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  for (;;) {
    GstMessage *msg;
    gboolean d;

    g_mutex_lock (&p->lock);
    d = *done;
    g_mutex_unlock (&p->lock);
    if (d)
      return TRUE;
    if (g_get_monotonic_time () >= end)
      return FALSE;
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        10 * GST_MSECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg) {
      g_printerr ("producer: %s while waiting\n", GST_MESSAGE_TYPE_NAME (msg));
      gst_message_unref (msg);
      return FALSE;
    }
  }
}

static guint
consumer_count (Producer * p, Consumer * c)
{
  guint n;

  g_mutex_lock (&p->lock);
  n = c->frames->len;
  g_mutex_unlock (&p->lock);
  return n;
}

/* every record must be CUDA memory (frames) and match the producer's
 * checksum of its PTS; returns the number that do not */
static guint
check_records (GArray * records, GHashTable * producer, GHashTable * by_sum,
    gboolean frames, guint * with_meta)
{
  guint i, bad = 0;

  for (i = 0; i < records->len; i++) {
    const Record *r = &g_array_index (records, Record, i);
    const guint64 *sum;

    if (frames && !(r->flags & RECORD_FLAG_CUDA)) {
      bad++;
      continue;
    }
    if (frames && (r->flags & RECORD_FLAG_META))
      (*with_meta)++;
    /* without the meta the PTS is the consumer's own: match by checksum */
    if (frames && !(r->flags & RECORD_FLAG_META)) {
      if (!g_hash_table_contains (by_sum, &r->checksum))
        bad++;
      continue;
    }
    sum = g_hash_table_lookup (producer, &r->pts);
    if (!sum) {
      if (!g_hash_table_contains (by_sum, &r->checksum))
        bad++;
    } else if (*sum != r->checksum) {
      bad++;
    }
  }
  return bad;
}

static GHashTable *
checksums_of (GHashTable * by_pts)
{
  GHashTable *set = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, by_pts);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_hash_table_add (set, v);
  return set;
}

/* tells consumers that never started to go; any still running after 5 s
 * is killed */
static void
stop_consumers (Producer * p)
{
  guint i, tries;

  for (i = 0; i < N_CONSUMERS; i++) {
    Consumer *c = &p->consumers[i];

    if (c->pid <= 0)
      continue;
    send_command (c, 'q');
    close (c->cmd_fd);
    c->cmd_fd = -1;
    for (tries = 0; tries < 500; tries++) {
      if (waitpid (c->pid, NULL, WNOHANG) == c->pid)
        break;
      g_usleep (10 * G_TIME_SPAN_MILLISECOND);
    }
    if (tries == 500) {
      g_printerr ("consumer %u still running: killed\n", i);
      kill (c->pid, SIGKILL);
      waitpid (c->pid, NULL, 0);
    }
    c->pid = 0;
  }
}

static int
skip (Producer * p, const gchar * why)
{
  g_print ("SKIP: %s\n", why);
  stop_consumers (p);
  return GPU_EXAMPLE_SKIP;
}

#define MIB(b) ((gdouble) (b) / (1024.0 * 1024.0))

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"ipc-mode", 'm', 0, G_OPTION_ARG_STRING, &ipc_mode,
        "cudaipcsink's ipc-mode: legacy (default) or mmap", "MODE"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames,
        "Frames the producer sends, at 30 per second (default 300)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &width, "Frame width (640)", "W"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &height, "Frame height (360)", "H"},
    {NULL}
  };
  static const gchar *const needed[] = { "cudaipcsink", "cudaipcsrc",
    "nvh264dec", "x264enc", "h264parse", "videotestsrc", "cudacacheconvert",
    "tee", "queue", "appsink", NULL
  };
  Producer prod = { 0 };
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *pipeline, *conv, *ipcsink;
  GstElementFactory *factory;
  GstPad *pad;
  GstMessage *msg;
  GHashTable *frame_sums, *tensor_sums;
  gchar *address, *desc, *tensor_caps;
  const gchar *missing;
  Phase baseline = { 0 }, holding = { 0 }, after = { 0 }, end_of_stream = { 0 };
  GstCudaCacheStats stopped;
  guint at_kill = 0, i, major, minor, micro, nano;
  gboolean ok = TRUE, tensors_carried, ipcsink_warned = FALSE;
  gint ret;

  ctx = g_option_context_new ("- one producer, two consumers, through "
      "cudaipcsink");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!ipc_mode)
    ipc_mode = g_strdup ("legacy");
  if ((strcmp (ipc_mode, "legacy") && strcmp (ipc_mode, "mmap")) ||
      n_frames < 150 || width < 16 || height < 16) {
    g_printerr ("--ipc-mode is legacy or mmap, --frames at least 150\n");
    return 2;
  }
  address = g_strdup_printf ("%s/cudacache-ipc-%d-%s", g_get_tmp_dir (),
      (gint) getpid (), ipc_mode);

  /* the consumers, before anything touches CUDA */
  fflush (stdout);
  fflush (stderr);
  for (i = 0; i < N_CONSUMERS; i++) {
    Consumer *c = &prod.consumers[i];
    gint cmd[2], report[2];
    pid_t pid;

    if (pipe (cmd) < 0 || pipe (report) < 0) {
      g_printerr ("pipe: %s\n", g_strerror (errno));
      return 1;
    }
    c->index = i;
    pid = fork ();
    if (pid < 0) {
      g_printerr ("fork: %s\n", g_strerror (errno));
      return 1;
    }
    if (pid == 0) {
      guint j;

      close (cmd[1]);
      close (report[0]);
      /* the earlier consumers' ends are not this one's */
      for (j = 0; j < i; j++) {
        close (prod.consumers[j].cmd_fd);
        close (prod.consumers[j].report_fd);
      }
      c->cmd_fd = cmd[0];
      c->report_fd = report[1];
      ret = run_consumer (c, address);
      fflush (stdout);
      fflush (stderr);
      _exit (ret);
    }
    close (cmd[0]);
    close (report[1]);
    c->pid = pid;
    c->cmd_fd = cmd[1];
    c->report_fd = report[0];
  }
  signal (SIGPIPE, SIG_IGN);
  alarm (n_frames / 30 + 120);

  gst_init (&argc, &argv);
  gst_version (&major, &minor, &micro, &nano);
  if (major == 1 && minor < 24)
    return skip (&prod, "needs GStreamer 1.24 or later (cudaipcsink)");
  missing = gpu_example_missing_element (needed);
  if (missing) {
    gchar *why = g_strdup_printf ("element %s is not registered", missing);

    return skip (&prod, why);
  }
  if (gst_cuda_cache_device_get_count () == 0)
    return skip (&prod, "no CUDA device or driver on this machine");

  /* tensors across processes: what cudaipcsink's template takes */
  tensor_caps = tensor_caps_string ();
  factory = gst_element_factory_find ("cudaipcsink");
  {
    GstCaps *tcaps = gst_caps_from_string (tensor_caps);

    tensors_carried = gst_element_factory_can_sink_any_caps (factory, tcaps);
    gst_caps_unref (tcaps);
  }
  gst_object_unref (factory);

  g_mutex_init (&prod.lock);
  g_cond_init (&prod.cond);
  prod.frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      g_free);
  prod.tensors = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      g_free);
  for (i = 0; i < N_CONSUMERS; i++) {
    Consumer *c = &prod.consumers[i];
    ReaderArgs *a = g_new0 (ReaderArgs, 1);

    c->frames = g_array_new (FALSE, FALSE, sizeof (Record));
    c->tensors = g_array_new (FALSE, FALSE, sizeof (Record));
    a->producer = &prod;
    a->consumer = c;
    c->reader = g_thread_new ("reports", read_reports, a);
  }

  gst_meta_register_custom_simple (FRAME_ID_META);
  desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball "
      "num-buffers=%d ! video/x-raw,format=I420,width=1280,height=720,"
      "framerate=30/1 ! x264enc tune=zerolatency speed-preset=ultrafast "
      "key-int-max=30 ! h264parse ! nvh264dec ! cudacacheconvert name=conv ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=%d,height=%d ! "
      "tee name=t "
      "t. ! queue ! cudaipcsink name=ipcsink address=%s ipc-mode=%s "
      "t. ! queue ! appsink name=frames sync=false enable-last-sample=false "
      "t. ! queue ! cudacacheconvert ! %s ! "
      "appsink name=tensors sync=false enable-last-sample=false",
      n_frames, width, height, address, ipc_mode, tensor_caps);
  g_free (tensor_caps);
  g_print ("ipc-scaleout: ipc-mode=%s, %d frames of %dx%d RGBA, consumers "
      "with io-mode=import\nproducer: %s\n", ipc_mode, n_frames, width,
      height, desc);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("could not build the producer: %s\n", err->message);
    stop_consumers (&prod);
    return 1;
  }
  conv = gst_bin_get_by_name (GST_BIN (pipeline), "conv");
  ipcsink = gst_bin_get_by_name (GST_BIN (pipeline), "ipcsink");
  pad = gst_element_get_static_pad (conv, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, tag_frame_probe, NULL,
      NULL);
  gst_object_unref (pad);
  set_sink_callback (pipeline, "frames", producer_frame, &prod);
  set_sink_callback (pipeline, "tensors", producer_tensor, &prod);
  gst_bus_set_sync_handler (GST_ELEMENT_BUS (pipeline), watch_warnings,
      &ipcsink_warned, NULL);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_printerr ("producer: could not start\n");
    ok = FALSE;
    goto out;
  }
  for (i = 0; i < N_CONSUMERS; i++)
    send_command (&prod.consumers[i], 'g');

  /* 1. both consumers running: the pipeline's own use of the cache */
  {
    gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;

    while (consumer_count (&prod, &prod.consumers[0]) < 30 ||
        consumer_count (&prod, &prod.consumers[VICTIM]) < 30) {
      msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
          10 * GST_MSECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      if (msg || g_get_monotonic_time () > end) {
        g_printerr ("the consumers did not get 30 frames each\n");
        gst_clear_message (&msg);
        ok = FALSE;
        goto out;
      }
    }
  }
  ok &= measure_phase (pipeline, conv, 1000, &baseline);

  /* 2. consumer 1 keeps HOLD_SAMPLES samples */
  send_command (&prod.consumers[VICTIM], 'h');
  if (!wait_for (&prod, pipeline, &prod.consumers[VICTIM].holding, 5000)) {
    g_printerr ("FAIL: consumer %u did not say it holds %d samples\n",
        VICTIM, HOLD_SAMPLES);
    ok = FALSE;
    goto out;
  }
  ok &= measure_phase (pipeline, conv, 1000, &holding);

  /* 3. killed, mid-stream, samples held */
  kill (prod.consumers[VICTIM].pid, SIGKILL);
  waitpid (prod.consumers[VICTIM].pid, NULL, 0);
  prod.consumers[VICTIM].pid = 0;
  at_kill = consumer_count (&prod, &prod.consumers[0]);
  g_usleep (500 * G_TIME_SPAN_MILLISECOND);
  ok &= measure_phase (pipeline, conv, 1000, &after);
  if (!ok)
    goto out;

  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("producer: error from %s: %s\n%s\n",
        GST_OBJECT_NAME (msg->src), err->message, GST_STR_NULL (debug));
    g_clear_error (&err);
    g_free (debug);
    ok = FALSE;
  }
  gst_message_unref (msg);
  cache_stats (conv, &stopped);
  end_of_stream.used_median = stopped.used_bytes;
  end_of_stream.misses = stopped.misses;

out:
  /* the sink's server waits for the consumers to let go of its memory */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_mutex_lock (&prod.lock);
  {
    gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;

    while (!prod.consumers[0].gone &&
        g_cond_wait_until (&prod.cond, &prod.lock, end));
  }
  g_mutex_unlock (&prod.lock);
  /* every block back in the cache, none held for the dead consumer */
  for (i = 0; i < 200; i++) {
    cache_stats (conv, &stopped);
    if (stopped.used_bytes == 0)
      break;
    g_usleep (10 * G_TIME_SPAN_MILLISECOND);
  }
  if (prod.consumers[VICTIM].pid > 0) {
    kill (prod.consumers[VICTIM].pid, SIGKILL);
    waitpid (prod.consumers[VICTIM].pid, NULL, 0);
    prod.consumers[VICTIM].pid = 0;
  }
  stop_consumers (&prod);
  for (i = 0; i < N_CONSUMERS; i++)
    g_thread_join (prod.consumers[i].reader);

  /* the figures */
  frame_sums = checksums_of (prod.frames);
  tensor_sums = checksums_of (prod.tensors);
  g_print ("producer: %u frames, %u tensors%s; a frame's block %.2f MiB\n",
      prod.n_frames, prod.n_tensors,
      prod.map_failed ? " (some could not be mapped)" : "",
      MIB (prod.block_size));
  if (prod.n_frames != (guint) n_frames || prod.n_tensors != (guint) n_frames
      || prod.map_failed)
    ok = FALSE;
  for (i = 0; i < N_CONSUMERS; i++) {
    Consumer *c = &prod.consumers[i];
    guint with_meta = 0, bad_frames, bad_tensors, unused = 0;

    bad_frames = check_records (c->frames, prod.frames, frame_sums, TRUE,
        &with_meta);
    bad_tensors = check_records (c->tensors, prod.tensors, tensor_sums, FALSE,
        &unused);
    g_print ("consumer %u%s: %u frames (%u not CUDA memory or not equal to "
        "the producer's), %u with the frame-id meta; %u tensors (%u not "
        "equal)%s\n", i, i == VICTIM ? " (killed)" : "", c->frames->len,
        bad_frames, with_meta, c->tensors->len, bad_tensors,
        c->error ? "; reported an error" : "");
    if (c->frames->len == 0 || c->tensors->len == 0 || bad_frames ||
        bad_tensors || c->error)
      ok = FALSE;
    if (i != VICTIM && !c->done) {
      g_print ("consumer %u did not finish cleanly\n", i);
      ok = FALSE;
    }
  }
  g_print ("consumer 0 after the kill: %u frames\n",
      prod.consumers[0].frames->len - MIN (at_kill,
          prod.consumers[0].frames->len));
  if (prod.consumers[0].frames->len < at_kill + 30)
    ok = FALSE;

#define BLOCKS(bytes) (prod.block_size ? (gdouble) (bytes) / prod.block_size : 0)
  g_print ("producer's cache, used bytes (median of 1 s) and misses:\n"
      "  both consumers running      %8.2f MiB  misses %" G_GUINT64_FORMAT "\n"
      "  consumer %u holding %d      %8.2f MiB  misses %" G_GUINT64_FORMAT
      "  (%+.1f blocks, %+d misses)\n"
      "  after its SIGKILL           %8.2f MiB  misses %" G_GUINT64_FORMAT
      "  (%+.1f blocks against holding)\n"
      "  at end of stream            %8.2f MiB  misses %" G_GUINT64_FORMAT
      "  (%+d misses since holding)\n"
      "  producer stopped            %8.2f MiB used, %.2f MiB idle\n",
      MIB (baseline.used_median), baseline.misses, VICTIM, HOLD_SAMPLES,
      MIB (holding.used_median), holding.misses,
      BLOCKS ((gdouble) holding.used_median - baseline.used_median),
      (gint) (holding.misses - baseline.misses), MIB (after.used_median),
      after.misses,
      BLOCKS ((gdouble) after.used_median - holding.used_median),
      MIB (end_of_stream.used_median), end_of_stream.misses,
      (gint) (end_of_stream.misses - holding.misses),
      MIB (stopped.used_bytes), MIB (stopped.idle_bytes));
  /* legacy, import: the consumer's samples are the producer's blocks, so
   * its pool grew by what the consumer held (a copy anywhere would not) */
  if (!strcmp (ipc_mode, "legacy") && holding.used_median <
      baseline.used_median + (HOLD_SAMPLES - 1) * prod.block_size) {
    g_print ("the held samples did not hold the producer's blocks\n");
    ok = FALSE;
  }
  /* what the dead consumer held came back: its pool had enough without
   * allocating (legacy: the consumers hold the producer's own blocks; in
   * mmap mode they hold the sink's copies, and the producer's pool may
   * grow by a buffer as its queues fill), and nothing is in use once the
   * producer stopped */
  if ((!strcmp (ipc_mode, "legacy") && end_of_stream.misses != holding.misses)
      || stopped.used_bytes != 0) {
    g_print ("the killed consumer's blocks did not all come back\n");
    ok = FALSE;
  }
  if (ipcsink_warned) {
    g_print ("cudaipcsink warned (with mmap: it fell back to legacy)\n");
    ok = FALSE;
  }
  g_print ("cudaipcsink takes other/tensors: %s\n",
      tensors_carried ? "yes" : "no (video/x-raw only): frames cross, "
      "tensors are made on the consumer's side");

  {
    GstCudaCache *cache = NULL;
    GstCudaCacheStats stats = { 0 };

    g_object_get (conv, "cache", &cache, NULL);
    if (cache) {
      gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
      g_print ("producer's cache at the end: hits %" G_GUINT64_FORMAT
          ", misses %" G_GUINT64_FORMAT ", used %.2f MiB, idle %.2f MiB, "
          "peak used %.2f MiB\n", stats.hits, stats.misses,
          MIB (stats.used_bytes), MIB (stats.idle_bytes),
          MIB (stats.peak_used_bytes));
      gst_object_unref (cache);
    }
  }

  g_print ("%s\n", ok ? "PASS" : "FAIL");
  g_hash_table_unref (frame_sums);
  g_hash_table_unref (tensor_sums);
  gst_object_unref (ipcsink);
  gst_object_unref (conv);
  gst_object_unref (pipeline);
  g_unlink (address);
  g_free (address);
  return ok ? 0 : 1;
}
