/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The benchmark's batch scenario (see cudacache-bench.c and
 * docs/performance.md, "Batches"): cudacachebatch against cudacacheconvert
 * pipelines whose tensors the application stacks itself. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudacache-bench.h"

/* ------------------------------------------------------------------------
 * 7. Batches: 8 sources into one float32 NCHW tensor of 8 slots, by
 * cudacachebatch, or by 8 cudacacheconvert pipelines whose tensors the
 * application stacks into a batch of its own
 * ------------------------------------------------------------------------ */

#define BATCH_SOURCES 8
#define BATCH_OPTIONS "letterbox=true fill-value=114 scale=0.00392156862745098"

typedef enum
{
  BATCH_BATCHED,
  BATCH_SEPARATE,
} BatchVariant;

static const gchar *batch_variant_names[] = { "batched", "separate" };

/* The tensor of @n slots of 640x640 (64x64 on system memory), 3 float32
 * planes each. */
static gchar *
batch_tensor_caps (Bench * b, guint n)
{
  gint side = b->cuda ? 640 : 64;

  return g_strdup_printf ("other/tensors%s,format=static,num_tensors=1,"
      "types=float32,dimensions=%d:%d:3:%u",
      b->cuda ? "(memory:CUDAMemory)" : "", side, side, n);
}

typedef struct
{
  GstElement *src;
  GstSample *sample;
  guint count;
  GThread *thread;
} BatchFeeder;

/* Pushes the frame @count times, then the end of the stream. */
static gpointer
batch_feed (gpointer data)
{
  BatchFeeder *f = data;
  guint i;

  for (i = 0; i < f->count; i++)
    if (gst_app_src_push_sample (GST_APP_SRC (f->src), f->sample) !=
        GST_FLOW_OK)
      g_error ("push failed");
  gst_app_src_end_of_stream (GST_APP_SRC (f->src));

  return NULL;
}

static void
batch_feeders_start (BatchFeeder * feeders, GstElement ** srcs,
    GstSample * sample, guint count)
{
  guint i;

  for (i = 0; i < BATCH_SOURCES; i++) {
    feeders[i].src = srcs[i];
    feeders[i].sample = sample;
    feeders[i].count = count;
    feeders[i].thread = g_thread_new ("bench-feeder", batch_feed, &feeders[i]);
  }
}

static GstSample *
batch_pull (GstElement * sink)
{
  GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));

  if (!sample)
    g_error ("an appsink ended before its last tensor");
  return sample;
}

/* One pipeline: 8 appsrc into cudacachebatch batch-size=8, the batches
 * pulled from its appsink. Returns the last batch; @times gets the time
 * each batch was pulled, @frames the slots present in batches
 * warm..total-1. */
static GstBuffer *
batch_batched (Bench * b, GstSample * frame, guint total, guint warm,
    gint64 * times, guint * frames)
{
  gchar *caps = batch_tensor_caps (b, BATCH_SOURCES);
  GString *desc = g_string_new (NULL);
  GstElement *pipeline, *sink, *srcs[BATCH_SOURCES];
  BatchFeeder feeders[BATCH_SOURCES];
  GstBuffer *last = NULL;
  guint i, s;

  g_string_append_printf (desc, "cudacachebatch name=b batch-size=%u "
      BATCH_OPTIONS " ! %s ! appsink name=sink sync=false max-buffers=2",
      BATCH_SOURCES, caps);
  for (i = 0; i < BATCH_SOURCES; i++)
    g_string_append_printf (desc, " appsrc name=src%u format=time "
        "block=true max-buffers=2 ! b.sink_%u", i, i);
  pipeline = pipeline_new (b, desc->str);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  for (i = 0; i < BATCH_SOURCES; i++) {
    gchar name[16];

    g_snprintf (name, sizeof (name), "src%u", i);
    srcs[i] = gst_bin_get_by_name (GST_BIN (pipeline), name);
  }
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_error ("could not start %s", desc->str);
  batch_feeders_start (feeders, srcs, frame, total);

  *frames = 0;
  for (i = 0; i < total; i++) {
    GstSample *sample = batch_pull (sink);
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstCudaCacheBatchMeta *meta = gst_buffer_get_cuda_cache_batch_meta (buf);

    times[i] = now_ns ();
    if (!meta || meta->n_slots != BATCH_SOURCES)
      g_error ("a batch without its meta of %u slots", BATCH_SOURCES);
    for (s = 0; i >= warm && s < meta->n_slots; s++)
      *frames += meta->slots[s].present;
    if (i == total - 1)
      last = gst_buffer_ref (buf);
    gst_sample_unref (sample);
  }

  for (i = 0; i < BATCH_SOURCES; i++) {
    g_thread_join (feeders[i].thread);
    gst_object_unref (srcs[i]);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_string_free (desc, TRUE);
  g_free (caps);
  return last;
}

/* The batch buffers of the separate variant: the application's pool, in
 * the memory the tensors are in. */
static GstBufferPool *
batch_pool_new (Bench * b, gsize * slot_size)
{
  gchar *desc = batch_tensor_caps (b, BATCH_SOURCES);
  GstCaps *caps = gst_caps_from_string (desc);
  GstBufferPool *pool = new_our_pool (b);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCudaCacheTensorInfo info;

  if (!gst_cuda_cache_tensor_info_from_caps (&info, caps))
    g_error ("not a tensor: %s", desc);
  *slot_size = info.strides[0];
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE))
    g_error ("could not start a pool of %s", desc);
  gst_caps_unref (caps);
  g_free (desc);
  return pool;
}

/* Copies @n tensors into the slots of @batch, one after the other: on the
 * device, a copy each on @stream and one wait for all of them; in system
 * memory, memcpy. */
static void
batch_stack (Bench * b, CUstream stream, GstSample ** tensors, guint n,
    GstBuffer * batch, gsize slot_size)
{
  GstMapFlags cuda = b->cuda ? GST_MAP_CUDA : 0;
  GstMapInfo out, in[BATCH_SOURCES];
  guint s;

  if (!gst_buffer_map (batch, &out, GST_MAP_WRITE | cuda))
    g_error ("could not map a batch");
  if (b->cuda && !gst_cuda_context_push (b->context))
    g_error ("could not push the CUDA context");
  for (s = 0; s < n; s++) {
    GstBuffer *buf = gst_sample_get_buffer (tensors[s]);

    /* 1.24 and later: a tensor may still be written on its own stream */
    gst_cuda_cache_compat_memory_sync (gst_buffer_peek_memory (buf, 0));
    if (!gst_buffer_map (buf, &in[s], GST_MAP_READ | cuda) ||
        in[s].size < slot_size)
      g_error ("could not map tensor %u of %" G_GSIZE_FORMAT " bytes", s,
          slot_size);
    if (b->cuda) {
      CUDA_MEMCPY2D copy = { 0, };

      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = (CUdeviceptr) in[s].data;
      copy.srcPitch = slot_size;
      copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.dstDevice = (CUdeviceptr) out.data + s * slot_size;
      copy.dstPitch = slot_size;
      copy.WidthInBytes = slot_size;
      copy.Height = 1;
      if (!gst_cuda_result (CuMemcpy2DAsync (&copy, stream)))
        g_error ("could not copy tensor %u into the batch", s);
    } else {
      memcpy (out.data + s * slot_size, in[s].data, slot_size);
    }
  }
  if (b->cuda) {
    if (!gst_cuda_result (CuStreamSynchronize (stream)))
      g_error ("could not wait for the batch's copies");
    gst_cuda_context_pop (NULL);
  }
  for (s = 0; s < n; s++)
    gst_buffer_unmap (gst_sample_get_buffer (tensors[s]), &in[s]);
  gst_buffer_unmap (batch, &out);
}

/* 8 pipelines, appsrc ! cudacacheconvert ! appsink, pulled in turn by one
 * loop that stacks their tensors into a batch from its own pool. Returns
 * the last batch, as batch_batched () does. */
static GstBuffer *
batch_separate (Bench * b, GstSample * frame, guint total, guint warm,
    gint64 * times, guint * frames)
{
  gchar *caps = batch_tensor_caps (b, 1);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=2 ! cudacacheconvert " BATCH_OPTIONS " ! %s ! "
      "appsink name=sink sync=false max-buffers=2", caps);
  GstElement *pipelines[BATCH_SOURCES], *srcs[BATCH_SOURCES];
  GstElement *sinks[BATCH_SOURCES];
  GstSample *tensors[BATCH_SOURCES];
  BatchFeeder feeders[BATCH_SOURCES];
  GstCudaCacheStream *stream = NULL;
  GstBufferPool *pool;
  GstBuffer *batch = NULL;
  gsize slot_size;
  guint i, s;

  pool = batch_pool_new (b, &slot_size);
  if (b->cuda && !(stream = gst_cuda_cache_compat_stream_new (b->context)))
    g_error ("could not make a CUDA stream");
  for (s = 0; s < BATCH_SOURCES; s++) {
    pipelines[s] = pipeline_new (b, desc);
    srcs[s] = gst_bin_get_by_name (GST_BIN (pipelines[s]), "src");
    sinks[s] = gst_bin_get_by_name (GST_BIN (pipelines[s]), "sink");
    if (gst_element_set_state (pipelines[s], GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE)
      g_error ("could not start %s", desc);
  }
  batch_feeders_start (feeders, srcs, frame, total);

  *frames = 0;
  for (i = 0; i < total; i++) {
    gst_clear_buffer (&batch);
    if (gst_buffer_pool_acquire_buffer (pool, &batch, NULL) != GST_FLOW_OK)
      g_error ("no batch buffer");
    for (s = 0; s < BATCH_SOURCES; s++)
      tensors[s] = batch_pull (sinks[s]);
    batch_stack (b, gst_cuda_cache_compat_stream_handle (stream), tensors,
        BATCH_SOURCES, batch, slot_size);
    for (s = 0; s < BATCH_SOURCES; s++)
      gst_sample_unref (tensors[s]);
    times[i] = now_ns ();
    if (i >= warm)
      *frames += BATCH_SOURCES;
  }

  for (s = 0; s < BATCH_SOURCES; s++) {
    g_thread_join (feeders[s].thread);
    gst_element_set_state (pipelines[s], GST_STATE_NULL);
    gst_object_unref (srcs[s]);
    gst_object_unref (sinks[s]);
    gst_object_unref (pipelines[s]);
  }
  gst_cuda_cache_compat_stream_clear (&stream);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_free (desc);
  g_free (caps);
  return batch;
}

/* The bytes of a batch, downloaded from the device with a copy of its
 * rows, as the GPU suites download tensors. */
static guint8 *
batch_bytes (Bench * b, GstBuffer * batch, gsize * size)
{
  GstMapInfo map;
  guint8 *bytes;

  if (!gst_buffer_map (batch, &map, GST_MAP_READ | (b->cuda ? GST_MAP_CUDA :
              0)))
    g_error ("could not map a batch");
  *size = map.size;
  bytes = g_malloc (map.size);
  if (b->cuda) {
    CUDA_MEMCPY2D copy = { 0, };
    gboolean ok;

    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = (CUdeviceptr) map.data;
    copy.srcPitch = map.size;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = bytes;
    copy.dstPitch = map.size;
    copy.WidthInBytes = map.size;
    copy.Height = 1;
    if (!gst_cuda_context_push (b->context))
      g_error ("could not push the CUDA context");
    ok = gst_cuda_result (CuMemcpy2D (&copy));
    gst_cuda_context_pop (NULL);
    if (!ok)
      g_error ("could not download a batch");
  } else {
    memcpy (bytes, map.data, map.size);
  }
  gst_buffer_unmap (batch, &map);
  return bytes;
}

/* Whether two batches hold the same bytes. */
static gboolean
batch_equal (Bench * b, GstBuffer * x, GstBuffer * y)
{
  gsize nx, ny;
  guint8 *bx = batch_bytes (b, x, &nx), *by = batch_bytes (b, y, &ny);
  gboolean equal = nx == ny && memcmp (bx, by, nx) == 0;

  g_free (bx);
  g_free (by);
  return equal;
}

void
bench_batch (Bench * b)
{
  /* sized for about 0.1 s a run of the separate variant on the GPU
   * machine */
  guint frames = b->smoke ? 40 : 2000, warm = 20, total = frames + warm;
  gint64 *times = g_new (gint64, total);
  GstBuffer *last[2] = { NULL, NULL };
  gchar *param = g_strdup_printf ("%u sources", BATCH_SOURCES);
  FrameSet set;
  guint rep, v;

  frame_set_init (b, &set);
  for (rep = 1; rep <= b->reps; rep++) {
    for (v = 0; v < 2; v++) {
      GstBuffer *batch;
      guint converted;
      gdouble s;

      batch = v == BATCH_BATCHED ?
          batch_batched (b, set.frames[0], total, warm, times, &converted) :
          batch_separate (b, set.frames[0], total, warm, times, &converted);
      s = (times[total - 1] - times[warm - 1]) / 1e9;
      emit_rep (b, "batch", batch_variant_names[v], param, rep, "fps",
          converted / s, "fps");
      emit_rep (b, "batch", batch_variant_names[v], param, rep, "frames",
          converted, "count");
      emit_rep (b, "batch", batch_variant_names[v], param, rep, "batches",
          frames, "count");
      if (rep == 1)
        last[v] = batch;
      else
        gst_buffer_unref (batch);
    }
  }
  /* both variants make the same batch of the same frames */
  emit (b, "batch", "check", param, "-", "batches_equal",
      batch_equal (b, last[0], last[1]), "flag");

  gst_buffer_unref (last[0]);
  gst_buffer_unref (last[1]);
  frame_set_clear (&set);
  g_free (param);
  g_free (times);
}
