/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Buffers an application holds while the pipeline stops: each one it lets
 * go afterwards is back in the cache at once, idle (so evictable and
 * within the limit), whether or not the element that made it still
 * exists. Shared by the element suites. */

#ifndef __CUDACACHE_HELD_H__
#define __CUDACACHE_HELD_H__

#include <gst/cudacache/cudacache.h>
#include "cudacache-check.h"

static GstPadProbeReturn
cudacache_held_keep (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GPtrArray *kept = user_data;

  if (kept->len < 3)
    g_ptr_array_add (kept, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

static guint64
cudacache_held_used (GstCudaCache * cache)
{
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  return stats.used_bytes;
}

/* @desc: a pipeline whose element "e" makes buffers of @cache's, into a
 * sink that keeps none (fakesink enable-last-sample=false), ending by
 * itself; 3 of e's output buffers are held through NULL, then let go one
 * by one, the pipeline freed first where @free_first. */
static void
cudacache_held_after_stop (const gchar * desc, GstCudaCache * cache,
    gboolean free_first)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GPtrArray *kept = g_ptr_array_new ();
  guint64 before = cudacache_held_used (cache), used;
  GstElement *e;
  GstPad *src;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  e = gst_bin_get_by_name (GST_BIN (pipeline), "e");
  src = gst_element_get_static_pad (e, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, cudacache_held_keep,
      kept, NULL);
  gst_object_unref (src);
  gst_object_unref (e);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, NULL);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s did not "
      "end: %s", desc, error ? error->message : "no message in 10 s");
  gst_message_unref (msg);
  fail_unless_equals_int (kept->len, 3);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (free_first)
    gst_clear_object (&pipeline);

  used = cudacache_held_used (cache);
  fail_unless (used >= before + 3 * gst_buffer_get_size (kept->pdata[0]),
      "%s: the held buffers are not counted in use", desc);
  while (kept->len > 0) {
    GstBuffer *buf = g_ptr_array_steal_index (kept, kept->len - 1);
    gsize bytes = gst_memory_get_sizes (gst_buffer_peek_memory (buf, 0),
        NULL, NULL);

    gst_buffer_unref (buf);
    fail_unless (cudacache_held_used (cache) <= used - bytes, "%s: a buffer "
        "let go after NULL stays in use (%" G_GUINT64_FORMAT " bytes, %"
        G_GUINT64_FORMAT " before)", desc, cudacache_held_used (cache), used);
    used = cudacache_held_used (cache);
  }
  fail_unless_equals_uint64 (cudacache_held_used (cache), before);
  gst_clear_object (&pipeline);
  g_ptr_array_unref (kept);
}

#endif /* __CUDACACHE_HELD_H__ */
