/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The cudacache tracer (GST_TRACERS="cudacache(interval=20)", set by
 * tests/check/meson.build for this binary): every cache's statistics as
 * cudacache-stats records, at the interval and when a pipeline changes
 * state. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/cudacache/gstcudacache.h>

static GMutex lock;
static GPtrArray *records;

static void
capture (GstDebugCategory * category, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (g_strcmp0 (gst_debug_category_get_name (category), "GST_TRACER") ||
      !g_str_has_prefix (text, "cudacache-stats, "))
    return;
  g_mutex_lock (&lock);
  g_ptr_array_add (records, g_strdup (text));
  g_mutex_unlock (&lock);
}

/* Record @i parsed where it is @cache's, else NULL; with the lock held */
static GstStructure *
record_of (guint i, const gchar * cache)
{
  GstStructure *s = gst_structure_from_string (records->pdata[i], NULL);

  if (s && g_strcmp0 (gst_structure_get_string (s, "cache"), cache) != 0)
    g_clear_pointer (&s, gst_structure_free);
  return s;
}

/* The last record of @cache's, parsed; NULL where none came */
static GstStructure *
last_record_of (const gchar * cache)
{
  GstStructure *found = NULL;
  guint i;

  g_mutex_lock (&lock);
  for (i = records->len; i > 0 && !found; i--)
    found = record_of (i - 1, cache);
  g_mutex_unlock (&lock);
  return found;
}

/* The second record of @cache's logged at or after index @since (the
 * tracer's thread makes one record after another, so the second began
 * after the first was in, and so after @since was read), parsed; NULL
 * where none came yet */
static GstStructure *
second_record_since (const gchar * cache, guint since)
{
  GstStructure *found = NULL;
  guint i, seen = 0;

  g_mutex_lock (&lock);
  for (i = since; i < records->len && !found; i++) {
    GstStructure *s = record_of (i, cache);

    if (s && ++seen == 2)
      found = s;
    else if (s)
      gst_structure_free (s);
  }
  g_mutex_unlock (&lock);
  return found;
}

static GstMemory *
alloc_block (gpointer data)
{
  return gst_allocator_alloc (NULL, GPOINTER_TO_UINT (data), NULL);
}

/* A cache an application made is logged at the interval, with what it
 * holds; a pipeline's state change logs at once, in the changing thread */
GST_START_TEST (test_caches_logged_at_interval_and_state_changes)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstElement *pipeline;
  GstStructure *s = NULL;
  guint64 v = 0;
  guint count, i;

  fail_unless (gst_object_set_name (GST_OBJECT (cache), "tracer-test"));
  gst_memory_unref (gst_cuda_cache_acquire (cache, "A", alloc_block,
          GUINT_TO_POINTER (4096)));
  g_mutex_lock (&lock);
  count = records->len;
  g_mutex_unlock (&lock);
  /* the interval is 20 ms: a record made after the block went back within
   * 4 s, under any load (valgrind's included); one logged just after it
   * may have been made before */
  for (i = 0; i < 400 && !s; i++) {
    g_usleep (10 * 1000);
    s = second_record_since ("tracer-test", count);
  }
  fail_unless (s != NULL, "no record of the cache");
  fail_unless (gst_structure_get_uint64 (s, "misses", &v));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (gst_structure_get_uint64 (s, "idle-bytes", &v));
  fail_unless (v >= 4096);
  fail_unless (gst_structure_has_field (s, "alloc-time-max"));
  fail_unless (gst_structure_has_field (s, "free-time"));
  /* the last fields: a system-memory cache has no CUDA memory pool */
  fail_unless (gst_structure_get_uint64 (s, "pool-reserved", &v));
  fail_unless_equals_uint64 (v, 0);
  fail_unless (gst_structure_get_uint64 (s, "pool-used", &v));
  fail_unless_equals_uint64 (v, 0);
  gst_structure_free (s);

  g_mutex_lock (&lock);
  count = records->len;
  g_mutex_unlock (&lock);
  pipeline = gst_parse_launch ("fakesrc num-buffers=1 ! fakesink", NULL);
  fail_unless (pipeline != NULL);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_mutex_lock (&lock);
  fail_unless (records->len > count, "no record at a pipeline's change");
  g_mutex_unlock (&lock);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  /* a cache gone is logged no more */
  gst_object_unref (cache);
  g_mutex_lock (&lock);
  g_ptr_array_set_size (records, 0);
  g_mutex_unlock (&lock);
  g_usleep (100 * 1000);
  s = last_record_of ("tracer-test");
  fail_unless (s == NULL);
}

GST_END_TEST;

static Suite *
cudacachetracer_suite (void)
{
  Suite *s = suite_create ("cudacachetracer");
  TCase *tc = tcase_create ("general");

  records = g_ptr_array_new_with_free_func (g_free);
  gst_debug_set_threshold_for_name ("GST_TRACER", GST_LEVEL_TRACE);
  gst_debug_add_log_function (capture, NULL, NULL);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_caches_logged_at_interval_and_state_changes);
  return s;
}

GST_CHECK_MAIN (cudacachetracer);
