/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Which CUDA context the elements use: by default the device's primary
 * context, shared by the pipelines of the process (so they share cached
 * blocks), by the nvcodec elements of each pipeline and by the CUDA
 * runtime's users (a model), released when its users are gone;
 * the application's when it gives one, on the pipeline or on
 * NEED_CONTEXT. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include "../cudacache-check-gpu.h"
#include "../cudacache-pipeline-race.h"
#include "../cudacache-pipeline.h"

#define CUDA_PIPELINE \
  "videotestsrc num-buffers=10 ! capsfilter name=res ! cudaupload name=up ! " \
  "video/x-raw(memory:CUDAMemory) ! cudacacheidentity name=c ! " \
  "cudadownload ! fakesink"

/* Plays @pipeline to EOS and leaves it PLAYING: it still uses its
 * context. */
static void
play_to_eos (GstElement * pipeline)
{
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "pipeline timed out");
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "pipeline error %" GST_PTR_FORMAT, msg);
  gst_message_unref (msg);
}

/* Returns: (transfer full) (nullable): the CUDA context element @name of
 * @pipeline was given */
static GstCudaContext *
element_cuda_context (GstElement * pipeline, const gchar * name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstContext *ctx = gst_element_get_context (element, GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *cuda_ctx = NULL;

  if (ctx) {
    gst_structure_get (gst_context_get_structure (ctx), GST_CUDA_CONTEXT_TYPE,
        GST_TYPE_CUDA_CONTEXT, &cuda_ctx, NULL);
    gst_context_unref (ctx);
  }
  gst_object_unref (element);

  return cuda_ctx;
}

typedef struct
{
  GstElement *capsfilter;
  guint frames;
} SwitchOnce;

/* After 5 frames of 320x240, 160x120: the first pool's blocks go back to
 * the cache while the pipeline still runs. */
static GstPadProbeReturn
switch_once_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SwitchOnce *sw = user_data;

  if (++sw->frames == 5) {
    GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,"
        "width=160,height=120");

    g_object_set (sw->capsfilter, "caps", caps, NULL);
    gst_caps_unref (caps);
  }

  return GST_PAD_PROBE_OK;
}

static GstElement *
make_pipeline (SwitchOnce * sw)
{
  GstElement *pipeline = gst_parse_launch (CUDA_PIPELINE, NULL);
  GstElement *src;
  GstCaps *caps;
  GstPad *pad;

  fail_unless (pipeline != NULL);
  sw->capsfilter = gst_bin_get_by_name (GST_BIN (pipeline), "res");
  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=320,"
      "height=240");
  g_object_set (sw->capsfilter, "caps", caps, NULL);
  gst_caps_unref (caps);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  pad = gst_element_get_static_pad (src, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, switch_once_probe, sw,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_object_unref (sw->capsfilter);

  return pipeline;
}

/* Two pipelines of one process, nothing said about contexts: the elements,
 * and the nvcodec elements with them, share the device's primary context,
 * and the second pipeline is served from blocks the first let go of. */
GST_START_TEST (test_pipelines_share_blocks)
{
  SwitchOnce sw1 = { NULL, 0 }, sw2 = { NULL, 0 };
  GstElement *first = make_pipeline (&sw1), *second = make_pipeline (&sw2);
  GstCudaContext *ctx1, *ctx2, *c_ctx;
  GstCudaCache *cache;
  GstCudaCacheStats after_first, after_second;
  gpointer weak_ctx;

  play_to_eos (first);
  ctx1 = element_cuda_context (first, "up");
  fail_unless (ctx1 != NULL, "cudaupload got no CUDA context");
  fail_if (ctx1 == context, "the test's own context was used");
  {
    /* the CUDA runtime's context, as a model beside the pipeline has it */
    GstCudaContext *primary = gst_cuda_cache_device_get_primary_context (0);

    fail_unless (primary != NULL);
    fail_unless (ctx1 == primary && gst_cuda_context_get_handle (ctx1) ==
        gst_cuda_context_get_handle (primary),
        "the default context is not the device's primary one");
    gst_object_unref (primary);
  }
  cache = gst_cuda_cache_device_get_cache (ctx1);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after_first);
  fail_unless (after_first.idle_blocks > 0);

  play_to_eos (second);
  ctx2 = element_cuda_context (second, "up");
  fail_unless (ctx2 == ctx1, "a second context %s besides %s",
      ctx2 ? GST_OBJECT_NAME (ctx2) : "(none)", GST_OBJECT_NAME (ctx1));
  c_ctx = element_cuda_context (second, "c");
  fail_unless (c_ctx == NULL || c_ctx == ctx1);
  gst_clear_object (&c_ctx);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after_second);
  fail_unless (after_second.hits > after_first.hits,
      "no hit in the second pipeline (%" G_GUINT64_FORMAT " misses more)",
      after_second.misses - after_first.misses);

  /* gone with its last user: the pipelines, and the blocks it made */
  weak_ctx = ctx1;
  g_object_add_weak_pointer (G_OBJECT (ctx1), &weak_ctx);
  gst_object_unref (ctx1);
  gst_object_unref (ctx2);
  gst_element_set_state (first, GST_STATE_NULL);
  gst_element_set_state (second, GST_STATE_NULL);
  gst_object_unref (first);
  gst_object_unref (second);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_cuda_cache_drain (cache);
  fail_unless (weak_ctx == NULL, "the default context outlives its users");
  gst_object_unref (cache);
}

GST_END_TEST;

typedef struct
{
  GstCudaContext *expected;
  guint frames;
  guint in_context;
} ContextCount;

static GstPadProbeReturn
count_context_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  ContextCount *count = user_data;
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);

  count->frames++;
  if (gst_is_cuda_memory (mem) &&
      GST_CUDA_MEMORY_CAST (mem)->context == count->expected)
    count->in_context++;

  return GST_PAD_PROBE_OK;
}

static void
count_frames_in_context (GstElement * pipeline, ContextCount * count)
{
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipeline), "c");
  GstPad *pad = gst_element_get_static_pad (c, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_context_probe,
      count, NULL);
  gst_object_unref (pad);
  gst_object_unref (c);
}

/* A context set on the pipeline is the one every frame lives in. */
GST_START_TEST (test_app_context_on_pipeline)
{
  GstElement *pipeline = gst_parse_launch (CUDA_PIPELINE, NULL);
  ContextCount count = { context, 0, 0 };

  count_frames_in_context (pipeline, &count);
  cudacache_run_pipeline (pipeline, context);
  fail_unless_equals_int (count.frames, 10);
  fail_unless_equals_int (count.in_context, 10);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static GstBusSyncReply
give_context (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  const gchar *context_type;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &context_type) &&
      g_strcmp0 (context_type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *ctx = gst_context_new_cuda_context (user_data);

    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), ctx);
    gst_context_unref (ctx);
  }

  return GST_BUS_PASS;
}

/* A context given on NEED_CONTEXT beats the shared default one. */
GST_START_TEST (test_app_context_on_need_context)
{
  GstElement *pipeline = gst_parse_launch (CUDA_PIPELINE, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  ContextCount count = { context, 0, 0 };

  gst_bus_set_sync_handler (bus, give_context, context, NULL);
  count_frames_in_context (pipeline, &count);
  cudacache_run_pipeline (pipeline, NULL);
  fail_unless_equals_int (count.frames, 10);
  fail_unless_equals_int (count.in_context, 10);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* cudacache-pipeline-race.h on CUDA memory: cudaupload takes the pool each
 * element proposes, caps churn, samples are dropped on this thread;
 * CUDACACHE_RACE_SECONDS makes each run longer, CUDACACHE_RACE_SEED picks
 * another seed */
GST_START_TEST (test_caps_churn_keeps_layouts_cuda)
{
  const gchar *elements[] = { "cudacacheidentity", "cudacacheconvert",
    "identity"
  };
  const gchar *env = g_getenv ("CUDACACHE_RACE_SEED");
  guint32 seed = env ? (guint32) g_ascii_strtoull (env, NULL, 10) : 1;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++)
    cudacache_check_pipeline_race (elements[i], TRUE, 5, seed);
}

GST_END_TEST;

static Suite *
cudacachecontext_suite (void)
{
  Suite *s = suite_create ("cudacachecontext");
  TCase *tc = tcase_create ("gpu");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cudacache_gpu_setup, cudacache_gpu_teardown);
  tcase_add_test (tc, test_pipelines_share_blocks);
  tcase_add_test (tc, test_app_context_on_pipeline);
  tcase_add_test (tc, test_app_context_on_need_context);
  tcase_add_test (tc, test_caps_churn_keeps_layouts_cuda);

  return s;
}

CUDACACHE_CHECK_GPU_MAIN (cudacachecontext);
