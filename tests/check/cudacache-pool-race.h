/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* A pool reconfigured while its last buffer comes back: shared by the
 * system-memory and CUDA pool suites. */

#ifndef __CUDACACHE_POOL_RACE_H__
#define __CUDACACHE_POOL_RACE_H__

#include "cudacache-check.h"

static gboolean
cudacache_race_configure (GstBufferPool * pool, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;
  gboolean ret;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_set_params (config, caps, info.size, 2, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  ret = gst_buffer_pool_set_config (pool, config);
  gst_caps_unref (caps);

  return ret;
}

static gpointer
cudacache_race_release (gpointer buffer)
{
  gst_buffer_unref (buffer);
  return NULL;
}

/* A pool deactivated with a buffer out frees its buffers when that buffer
 * comes back, on the thread that returns it, and GstBufferPool lets a new
 * configuration in as soon as nothing is out, before that thread got to
 * the freeing. A configuration that wins that race must still never hand
 * out a buffer of the old one: each of @rounds returns a buffer on another
 * thread while this one reconfigures @pool at once (alternating between
 * @caps_a and @caps_b), then checks the format, size and video meta of
 * what it acquires against the new caps. */
static void
cudacache_check_reconfigure_race (GstBufferPool * pool, const gchar * caps_a,
    const gchar * caps_b, guint rounds)
{
  const gchar *caps_str[2] = { caps_a, caps_b };
  guint i, mismatches = 0;

  for (i = 0; i < rounds; i++) {
    const gchar *next = caps_str[(i + 1) % 2];
    GstBuffer *out, *buf;
    GstVideoMeta *meta;
    GstVideoInfo info;
    GstCaps *caps;
    GThread *thread;

    fail_unless (cudacache_race_configure (pool, caps_str[i % 2]));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &out,
            NULL), GST_FLOW_OK);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));

    thread = g_thread_new ("release", cudacache_race_release, out);
    while (!cudacache_race_configure (pool, next))
      g_thread_yield ();
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
            NULL), GST_FLOW_OK);
    g_thread_join (thread);

    caps = gst_caps_from_string (next);
    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_caps_unref (caps);
    meta = gst_buffer_get_video_meta (buf);
    fail_unless (meta != NULL);
    if (!cudacache_meta_matches (meta, &info) ||
        gst_buffer_get_size (buf) < GST_VIDEO_INFO_SIZE (&info))
      mismatches++;
    gst_buffer_unref (buf);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  }
  fail_unless_equals_int (mismatches, 0);
}

#endif /* __CUDACACHE_POOL_RACE_H__ */
