/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The cache's contract, on system memory. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cudacache-check.h"
#include <gst/cudacache/cudacache.h>
#include <gst/cudacache/gstcudacache-private.h>
#include <gst/cudacache/gstcudacachethreadcounters-private.h>
#include <string.h>
#include <gst/cudacache/gstcudacachestreamordered-private.h>
#include <gst/cudacache/gstcudacachepool.h>

/* A fake device: counts allocations and frees, and refuses allocations
 * beyond its capacity, as a device out of memory would; each allocation
 * and free takes the time asked of it, as a driver's does. */
typedef struct
{
  gsize size;
  gint allocs;
  gint frees;
  gint64 outstanding;
  gint64 capacity;              /* 0: unlimited */
  gulong alloc_us, free_us;     /* how long an allocation, a free takes */
  GThread *last_free_thread;
  GMutex lock;
} Device;

static void
device_init (Device * dev, gsize size)
{
  memset (dev, 0, sizeof (*dev));
  dev->size = size;
  g_mutex_init (&dev->lock);
}

static void
device_clear (Device * dev)
{
  g_mutex_clear (&dev->lock);
}

static void
device_on_free (gpointer data, GstMiniObject * obj)
{
  Device *dev = data;

  g_usleep (dev->free_us);
  g_mutex_lock (&dev->lock);
  dev->frees++;
  dev->outstanding -= GST_MEMORY_CAST (obj)->maxsize;
  dev->last_free_thread = g_thread_self ();
  g_mutex_unlock (&dev->lock);
}

static GstMemory *
device_alloc (gpointer data)
{
  Device *dev = data;
  GstMemory *mem;

  g_mutex_lock (&dev->lock);
  if (dev->capacity && dev->outstanding + (gint64) dev->size > dev->capacity) {
    g_mutex_unlock (&dev->lock);
    return NULL;
  }
  dev->allocs++;
  dev->outstanding += dev->size;
  g_mutex_unlock (&dev->lock);
  g_usleep (dev->alloc_us);

  /* wrapped, so that maxsize is exactly what the device handed out */
  data = g_malloc (dev->size);
  mem = gst_memory_new_wrapped (0, data, dev->size, 0, dev->size, data, g_free);
  gst_mini_object_weak_ref (GST_MINI_OBJECT_CAST (mem), device_on_free, dev);
  return mem;
}

static GstCudaCacheStats
stats_of (GstCudaCache * cache, GstCudaCacheScope scope)
{
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, scope, &stats);
  fail_unless_equals_uint64 (stats.current_size,
      stats.used_bytes + stats.idle_bytes);
  return stats;
}

GST_START_TEST (test_identical_keys_reuse)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstCudaCacheStats stats;
  GstMemory *a, *again, *b;
  Device dev;

  device_init (&dev, 1000);

  a = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_unless (a != NULL);
  fail_unless (gst_cuda_cache_owns_memory (cache, a));
  gst_memory_unref (a);
  fail_unless_equals_int (dev.frees, 0);

  again = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_unless (again == a);
  b = gst_cuda_cache_acquire (cache, "B", device_alloc, &dev);
  fail_unless (b != a);
  fail_unless_equals_int (dev.allocs, 2);

  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.hits, 1);
  fail_unless_equals_uint64 (stats.misses, 2);
  fail_unless_equals_uint64 (stats.used_bytes, 2000);
  fail_unless_equals_int (stats.used_blocks, 2);
  fail_unless_equals_uint64 (stats.idle_bytes, 0);

  gst_memory_unref (again);
  gst_memory_unref (b);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.idle_bytes, 2000);
  fail_unless_equals_int (stats.idle_blocks, 2);
  fail_unless_equals_uint64 (stats.current_size, 2000);
  fail_unless_equals_uint64 (stats.evictions, 0);

  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, 2);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_released_memory_is_reset)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *mem;
  Device dev;

  device_init (&dev, 1000);
  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  gst_memory_resize (mem, 10, 100);
  gst_memory_unref (mem);

  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_unless_equals_int (mem->offset, 0);
  fail_unless_equals_int (mem->size, 1000);
  gst_memory_unref (mem);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_lru_trim_above_limit)
{
  GstCudaCache *cache = gst_cuda_cache_new (0, 0);
  GstMemory *mems[4], *mem;
  GstCudaCacheStats stats;
  const gchar *keys[] = { "A", "B", "C", "D" };
  Device dev;
  guint i;

  device_init (&dev, 1000);
  gst_cuda_cache_set_limit (cache, 3000);

  for (i = 0; i < 3; i++)
    mems[i] = gst_cuda_cache_acquire (cache, keys[i], device_alloc, &dev);
  /* released in order: A is the least recently used */
  for (i = 0; i < 3; i++)
    gst_memory_unref (mems[i]);
  fail_unless_equals_int (dev.frees, 0);

  /* a fourth block puts the cache above its limit: A goes */
  mems[3] = gst_cuda_cache_acquire (cache, "D", device_alloc, &dev);
  fail_unless_equals_int (dev.frees, 1);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.evictions, 1);
  fail_unless_equals_uint64 (stats.current_size, 3000);

  mem = gst_cuda_cache_acquire (cache, "B", device_alloc, &dev);
  fail_unless (mem == mems[1]);
  gst_memory_unref (mem);
  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_unless_equals_int (dev.allocs, 5);
  /* C was the least recently used idle block */
  fail_unless_equals_int (dev.frees, 2);
  gst_memory_unref (mem);
  gst_memory_unref (mems[3]);

  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless (stats.current_size <= 3000);
  fail_unless_equals_int (stats.idle_blocks, 3);

  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, dev.allocs);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_block_larger_than_limit_not_kept)
{
  GstCudaCache *cache = gst_cuda_cache_new (0, 0);
  GstCudaCacheStats stats;
  GstMemory *mem;
  Device dev;

  device_init (&dev, 1000);
  gst_cuda_cache_set_limit (cache, 999);

  /* the limit never refuses an allocation */
  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_unless (mem != NULL);
  gst_memory_unref (mem);
  fail_unless_equals_int (dev.frees, 1);

  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.current_size, 0);
  fail_unless_equals_uint64 (stats.evictions, 1);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_limit_zero_disables_caching)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *mem;
  Device dev;
  guint i;

  device_init (&dev, 64);
  gst_cuda_cache_set_limit (cache, 0);
  for (i = 0; i < 5; i++) {
    mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
    gst_memory_unref (mem);
  }
  fail_unless_equals_int (dev.allocs, 5);
  fail_unless_equals_int (dev.frees, 5);
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).hits, 0);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_lowering_limit_trims_at_once)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstCudaCacheStats stats;
  GstMemory *mems[4];
  gchar key[8];
  Device dev;
  guint i;

  device_init (&dev, 1000);
  for (i = 0; i < 4; i++) {
    g_snprintf (key, sizeof (key), "k%u", i);
    mems[i] = gst_cuda_cache_acquire (cache, key, device_alloc, &dev);
  }
  /* one stays in use: it is never taken away */
  for (i = 1; i < 4; i++)
    gst_memory_unref (mems[i]);

  gst_cuda_cache_set_limit (cache, 2500);
  fail_unless_equals_int (dev.frees, 2);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.current_size, 2000);
  fail_unless_equals_uint64 (stats.used_bytes, 1000);
  fail_unless_equals_uint64 (stats.cache_limit, 2500);

  gst_cuda_cache_set_limit (cache, 0);
  fail_unless_equals_int (dev.frees, 3);
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).current_size, 1000);

  gst_memory_unref (mems[0]);
  fail_unless_equals_int (dev.frees, 4);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_limit_property)
{
  GstCudaCache *cache = gst_cuda_cache_new (4000, 0);
  guint64 limit = 0;

  g_object_get (cache, "limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 2000);
  g_object_set (cache, "limit", (guint64) 123, NULL);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 123);
  fail_unless_equals_uint64 (gst_cuda_cache_get_device_memory (cache), 4000);

  gst_object_unref (cache);
}

GST_END_TEST;

static gpointer
acquire_release_thread (gpointer data)
{
  GstCudaCache *cache = ((gpointer *) data)[0];
  Device *dev = ((gpointer *) data)[1];

  gst_memory_unref (gst_cuda_cache_acquire (cache, "T1", device_alloc, dev));
  gst_memory_unref (gst_cuda_cache_acquire (cache, "T2", device_alloc, dev));
  gst_memory_unref (gst_cuda_cache_acquire (cache, "T1", device_alloc, dev));

  return NULL;
}

GST_START_TEST (test_thread_scope)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  gpointer args[2];
  GstCudaCacheStats stats;
  GstMemory *mine;
  Device dev;
  GThread *thread;

  device_init (&dev, 100);
  args[0] = cache;
  args[1] = &dev;
  thread = g_thread_new ("other", acquire_release_thread, args);
  g_thread_join (thread);

  mine = gst_cuda_cache_acquire (cache, "M", device_alloc, &dev);
  gst_memory_unref (mine);

  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
  fail_unless_equals_uint64 (stats.idle_bytes, 100);
  fail_unless_equals_uint64 (stats.misses, 1);
  fail_unless_equals_uint64 (stats.hits, 0);

  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.idle_bytes, 300);
  fail_unless_equals_uint64 (stats.misses, 3);
  fail_unless_equals_uint64 (stats.hits, 1);

  /* clearing this thread's share leaves the other thread's blocks */
  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_THREAD), 100);
  fail_unless_equals_int (dev.frees, 1);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.idle_bytes, 200);
  fail_unless_equals_uint64 (stats.evictions, 1);

  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL), 200);
  fail_unless_equals_int (dev.frees, 3);
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).current_size, 0);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

static gpointer
unref_memory_thread (gpointer mem)
{
  gst_memory_unref (mem);
  return NULL;
}

GST_START_TEST (test_cross_thread_release_reused)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *mem, *again;
  GThread *thread;
  Device dev;

  device_init (&dev, 100);
  mem = gst_cuda_cache_acquire (cache, "X", device_alloc, &dev);
  /* the sink's thread drops the frame */
  thread = g_thread_new ("sink", unref_memory_thread, mem);
  g_thread_join (thread);

  again = gst_cuda_cache_acquire (cache, "X", device_alloc, &dev);
  fail_unless (again == mem);
  fail_unless_equals_int (dev.allocs, 1);
  gst_memory_unref (again);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

static void
set_flag (gpointer data, GObject * obj)
{
  *(gboolean *) data = TRUE;
}

GST_START_TEST (test_memory_outlives_cache)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  gboolean finalized = FALSE;
  GstMemory *idle, *used;
  Device dev;

  device_init (&dev, 100);
  g_object_weak_ref (G_OBJECT (cache), set_flag, &finalized);
  idle = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  used = gst_cuda_cache_acquire (cache, "B", device_alloc, &dev);
  gst_memory_unref (idle);

  gst_object_unref (cache);
  fail_if (finalized);
  fail_unless_equals_int (dev.frees, 0);

  /* the last block in use returns to a cache nobody else holds: both go */
  gst_memory_unref (used);
  fail_unless (finalized);
  fail_unless_equals_int (dev.frees, 2);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_async_free_off_releasing_thread)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstMemory *mem;
  Device dev;

  device_init (&dev, 100);
  gst_cuda_cache_set_limit (cache, 150);

  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  gst_memory_unref (mem);
  mem = gst_cuda_cache_acquire (cache, "B", device_alloc, &dev);
  /* A is trimmed, on the reaper thread */
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 1);
  fail_unless (dev.last_free_thread != NULL);
  fail_unless (dev.last_free_thread != g_thread_self ());

  gst_memory_unref (mem);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 2);
  fail_unless (dev.last_free_thread != g_thread_self ());

  /* finalize frees what is idle and joins the reaper */
  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  gst_memory_unref (mem);
  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, 3);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_out_of_memory_frees_idle_and_retries)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstMemory *a, *b, *c, *d;
  Device dev;

  device_init (&dev, 100);
  dev.capacity = 200;

  a = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  b = gst_cuda_cache_acquire (cache, "B", device_alloc, &dev);
  gst_memory_unref (a);
  /* the device is full, but A is idle: freed, then the retry succeeds */
  c = gst_cuda_cache_acquire (cache, "C", device_alloc, &dev);
  fail_unless (c != NULL);
  fail_unless_equals_int (dev.frees, 1);
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).evictions, 1);

  /* nothing idle to give back: the acquisition fails */
  d = gst_cuda_cache_acquire (cache, "D", device_alloc, &dev);
  fail_unless (d == NULL);
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).used_bytes, 200);

  gst_memory_unref (b);
  gst_memory_unref (c);
  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, 3);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_parse_limit)
{
  static const struct
  {
    const gchar *str;
    guint64 expected;
  } good[] = {
    {"0", 0}, {"1024", 1024}, {"512B", 512}, {"4K", 4096}, {"4k", 4096},
    {"3M", 3 << 20}, {"2G", G_GUINT64_CONSTANT (2) << 30},
    {"1T", G_GUINT64_CONSTANT (1) << 40}, {"512MiB", 512 << 20},
    {"512MB", 512 << 20}, {" 8K ", 8192}, {"25%", 250}, {"100%", 1000},
    {"0%", 0}, {"12.5%", 125},
  };
  static const gchar *bad[] = {
    "banana", "", " ", "-5", "10X", "5%%", "101%", "-1%", "1.5G", "K",
    "4KK", "4 K", "18446744073709551616", "16777216T", "%", "0x10",
  };
  guint64 limit;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (good); i++) {
    limit = G_MAXUINT64;
    fail_unless (gst_cuda_cache_parse_limit (good[i].str, 1000, &limit),
        "\"%s\" refused", good[i].str);
    fail_unless_equals_uint64 (limit, good[i].expected);
  }
  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    fail_if (gst_cuda_cache_parse_limit (bad[i], 1000, &limit),
        "\"%s\" accepted", bad[i]);
}

GST_END_TEST;

static GString *printed;
static GString *logged;

static void
collect_printerr (const gchar * str)
{
  g_string_append (printed, str);
}

/* "name: message" lines of the cache's warnings, while watched */
static void
collect_cache_warnings (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (!logged || level != GST_LEVEL_WARNING ||
      g_strcmp0 (gst_debug_category_get_name (category), "cudacache") != 0)
    return;

  g_string_append_printf (logged, "%s: %s\n",
      GST_IS_OBJECT (object) ? GST_OBJECT_NAME (object) : "",
      gst_debug_message_get (message));
}

static void
watch_output (gboolean on)
{
  static GPrintFunc old_print, old_printerr;
  static gboolean added;

  if (on) {
    printed = g_string_new (NULL);
    logged = g_string_new (NULL);
    gst_debug_set_threshold_for_name ("cudacache", GST_LEVEL_WARNING);
    /* added once and left: GStreamer keeps a removed function's list alive
     * on purpose, which valgrind sees as lost */
    if (!added)
      gst_debug_add_log_function (collect_cache_warnings, NULL, NULL);
    added = TRUE;
    old_print = g_set_print_handler (collect_printerr);
    old_printerr = g_set_printerr_handler (collect_printerr);
  } else {
    g_set_print_handler (old_print);
    g_set_printerr_handler (old_printerr);
    gst_debug_unset_threshold_for_name ("cudacache");
  }
}

static void
unwatch_output (void)
{
  g_string_free (printed, TRUE);
  printed = NULL;
  g_string_free (logged, TRUE);
  logged = NULL;
}

GST_START_TEST (test_limit_from_environment)
{
  GstCudaCache *cache;
  gchar *expected;
  guint64 machine;

  g_setenv (GST_CUDA_CACHE_LIMIT_ENV, "64M", TRUE);
  cache = gst_cuda_cache_new (1000, 0);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 64 << 20);
  gst_object_unref (cache);

  g_setenv (GST_CUDA_CACHE_LIMIT_ENV, "10%", TRUE);
  cache = gst_cuda_cache_new (1000, 0);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 100);
  gst_object_unref (cache);

  /* a bad value keeps the default (half the device) and says why in one
   * warning on the cudacache debug category that names the variable and
   * the value; nothing is printed (a library does not print), and never
   * g_warning: gst-check makes warnings fatal, as G_DEBUG=fatal-warnings
   * does in apps */
  g_setenv (GST_CUDA_CACHE_LIMIT_ENV, "banana", TRUE);
  watch_output (TRUE);
  cache = gst_cuda_cache_new (1000, 0);
  watch_output (FALSE);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 500);
  fail_unless_equals_string (printed->str, "");
  fail_unless (strstr (logged->str, "GST_CUDA_CACHE_LIMIT=\"banana\": not a "
          "number") != NULL, "no warning about the bad value: \"%s\"",
      logged->str);
  fail_unless (strstr (logged->str, "a percentage (e.g. 25%) of the 1000 "
          "bytes of memory this cache allocates from") != NULL,
      "the warning does not say what a percentage is of: \"%s\"", logged->str);
  fail_unless (strchr (logged->str, '\n') == logged->str + logged->len - 1,
      "expected one warning: \"%s\"", logged->str);
  unwatch_output ();
  gst_object_unref (cache);

  /* the system cache's percentages are of the machine's memory: its
   * warning names it and says "system memory", not "device memory" */
  g_setenv (GST_CUDA_CACHE_LIMIT_ENV, "101%", TRUE);
  watch_output (TRUE);
  cache = gst_cuda_cache_get_system ();
  watch_output (FALSE);
  machine = gst_cuda_cache_get_device_memory (cache);
  fail_unless (machine > 0);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), machine / 2);
  fail_unless_equals_string (printed->str, "");
  expected = g_strdup_printf ("cudacache-system: ignoring "
      "GST_CUDA_CACHE_LIMIT=\"101%%\": a percentage is a number from 0 to 100 "
      "followed by one %%; expected bytes with an optional K, M, G or T "
      "suffix (e.g. 512M) or a percentage (e.g. 25%%) of the %"
      G_GUINT64_FORMAT " bytes of system memory; keeping the default limit "
      "of %" G_GUINT64_FORMAT " bytes\n", machine, machine / 2);
  fail_unless_equals_string (logged->str, expected);
  g_free (expected);
  unwatch_output ();
  gst_object_unref (cache);

  g_unsetenv (GST_CUDA_CACHE_LIMIT_ENV);
  cache = gst_cuda_cache_new (1000, 0);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 500);
  gst_object_unref (cache);
}

GST_END_TEST;

static guint
count_reaper_threads (void)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;
  guint n = 0;

  if (!dir)
    return 0;
  while ((tid = g_dir_read_name (dir))) {
    gchar *path = g_build_filename ("/proc/self/task", tid, "comm", NULL);
    gchar *comm = NULL;

    /* Linux thread names have at most 15 bytes */
    if (g_file_get_contents (path, &comm, NULL, NULL) &&
        g_str_has_prefix (comm, "cudacache-reap\n"))
      n++;
    g_free (comm);
    g_free (path);
  }
  g_dir_close (dir);
  return n;
}

/* The first eviction must not start a thread under the cache's lock on a
 * streaming thread: the reaper of an async cache exists from the start. */
GST_START_TEST (test_reaper_exists_before_first_eviction)
{
  GstCudaCache *cache;
  guint before, i;

  if (!g_file_test ("/proc/self/task", G_FILE_TEST_IS_DIR))
    return;

  before = count_reaper_threads ();
  cache = gst_cuda_cache_new (0, GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  /* a new thread names itself once it runs */
  for (i = 0; i < 1000 && count_reaper_threads () == before; i++)
    g_usleep (1000);
  fail_unless_equals_int (count_reaper_threads (), before + 1);
  gst_object_unref (cache);
  fail_unless_equals_int (count_reaper_threads (), before);

  /* a cache that frees inline has none */
  cache = gst_cuda_cache_new (0, GST_CUDA_CACHE_FLAG_NONE);
  fail_unless_equals_int (count_reaper_threads (), before);
  gst_object_unref (cache);
}

GST_END_TEST;

GST_START_TEST (test_foreign_memory_not_counted)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *foreign = gst_allocator_alloc (NULL, 100, NULL);
  Device dev;
  GstMemory *mem;

  device_init (&dev, 100);
  mem = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_if (gst_cuda_cache_owns_memory (cache, foreign));
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).current_size, 100);
  gst_memory_unref (foreign);
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).current_size, 100);
  gst_memory_unref (mem);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

GST_START_TEST (test_stats_structure)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstCudaCacheStats stats;
  GstStructure *s;
  guint64 v = 0;
  Device dev;

  device_init (&dev, 100);
  gst_memory_unref (gst_cuda_cache_acquire (cache, "A", device_alloc, &dev));
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  s = gst_cuda_cache_stats_to_structure (&stats, "cudacache-stats");
  fail_unless (gst_structure_has_name (s, "cudacache-stats"));
  fail_unless (gst_structure_get_uint64 (s, "idle-bytes", &v));
  fail_unless_equals_uint64 (v, 100);
  fail_unless (gst_structure_get_uint64 (s, "misses", &v));
  fail_unless_equals_uint64 (v, 1);
  gst_structure_free (s);

  g_object_get (cache, "idle-bytes", &v, NULL);
  fail_unless_equals_uint64 (v, 100);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

/* The time the cache spends in the driver: each miss's allocation counted
 * (a hit's not), in the whole cache and in the thread's share; each free
 * of what the cache drops counted, inline or on its own thread; the
 * longest of each beside the sum, in the stats, their structure and the
 * properties */
/* Stream-ordered blocks are refused, with why, where they cannot be made:
 * against GStreamer 1.22 (memory carries no stream), or without a CUDA
 * driver; nothing changes then, and the pools' figures stay 0 */
GST_START_TEST (test_stream_ordered_refused_with_why)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 20, 0);
  GstCudaCacheAllocMethod method;
  GstCudaCacheStats stats;
  GError *error = NULL;
  GstStructure *s;
  guint64 reserved = 1;
  gboolean ok;

  ok = gst_cuda_cache_set_alloc_method (cache,
      GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED, &error);
  if (!GST_CUDA_CACHE_HAVE_STREAM) {
    fail_if (ok);
    fail_unless (strstr (error->message, "1.24") != NULL, "%s", error->message);
  } else if (gst_cuda_cache_device_get_count () == 0) {
    fail_if (ok);
    fail_unless (strstr (error->message, "driver") != NULL, "%s",
        error->message);
  } else {
    fail_unless (ok, "%s", error ? error->message : "");
  }
  g_clear_error (&error);
  method = ok ? GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED :
      GST_CUDA_CACHE_ALLOC_METHOD_MALLOC;
  fail_unless_equals_int (gst_cuda_cache_get_alloc_method (cache), method);

  /* the property says the same: a refused value is logged, not taken */
  g_object_set (cache, "alloc-method", GST_CUDA_CACHE_ALLOC_METHOD_MALLOC,
      NULL);
  g_object_set (cache, "alloc-method",
      GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED, NULL);
  fail_unless_equals_int (gst_cuda_cache_get_alloc_method (cache), method);
  fail_if (gst_cuda_cache_set_alloc_method (cache, 5, &error));
  g_clear_error (&error);

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.pool_reserved, 0);
  fail_unless_equals_uint64 (stats.pool_used, 0);
  s = gst_cuda_cache_stats_to_structure (&stats, "stats");
  fail_unless (gst_structure_get_uint64 (s, "pool-reserved", &reserved));
  fail_unless_equals_uint64 (reserved, 0);
  fail_unless (gst_structure_has_field (s, "pool-used"));
  gst_structure_free (s);
  gst_object_unref (cache);
}

GST_END_TEST;

/* The rows of @plane of @info at @height */
static guint
plane_rows (const GstVideoInfo * info, guint plane, guint height)
{
  guint comp;

  for (comp = 0; GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, comp) != plane;
      comp++);
  return GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, comp, height);
}

/* gst-cuda's stream-ordered layout, every pool format and odd sizes: every
 * plane at the pitch, one after the other, in a block of whole rows; 4:2:0
 * allocated for the even height (libs/streamordered compares with gst-cuda
 * itself on a device) */
GST_START_TEST (test_stream_ordered_layout)
{
  static const gint widths[] = { 1, 3, 638, 1920 };
  gchar **formats = g_strsplit_set (GST_CUDA_CACHE_POOL_FORMATS, "{ ,}", -1);
  GstVideoInfo info, layout;
  guint f, w, h, p;

  for (f = 0; formats[f]; f++) {
    GstVideoFormat format = gst_video_format_from_string (formats[f]);

    if (!*formats[f])
      continue;
    fail_if (format == GST_VIDEO_FORMAT_UNKNOWN, "%s", formats[f]);
    for (w = 0; w < G_N_ELEMENTS (widths); w++) {
      for (h = 1; h <= 7; h++) {
        gsize pitch, rows = 0, alloc_rows = 0;
        gboolean even = FALSE;
        guint c;

        fail_unless (gst_video_info_set_format (&info, format, widths[w], h));
        pitch = GST_ROUND_UP_N ((gsize) info.stride[0], 512);
        fail_unless (gst_cuda_cache_stream_ordered_layout (&info, pitch,
                &layout));
        for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
          even |= GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c) == 1;
        for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
          fail_unless_equals_int (layout.stride[p], pitch);
          fail_unless_equals_uint64 (layout.offset[p], rows * pitch);
          /* a row holds the plane's bytes */
          fail_unless (GST_VIDEO_INFO_PLANE_STRIDE (&info, p) <= (gint) pitch);
          rows += plane_rows (&info, p, h);
          alloc_rows += plane_rows (&info, p, even ? GST_ROUND_UP_2 (h) : h);
        }
        fail_unless_equals_uint64 (layout.size, alloc_rows * pitch);
        fail_unless (layout.size >= rows * pitch);
      }
    }
  }
  g_strfreev (formats);

  /* as gst-cuda has it: I420 and NV12 five rows high */
  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 5));
  fail_unless (gst_cuda_cache_stream_ordered_layout (&info, 512, &layout));
  fail_unless_equals_uint64 (layout.offset[1], 5 * 512);
  fail_unless_equals_uint64 (layout.offset[2], 8 * 512);
  fail_unless_equals_uint64 (layout.size, 12 * 512);
  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 5));
  fail_unless (gst_cuda_cache_stream_ordered_layout (&info, 512, &layout));
  fail_unless_equals_uint64 (layout.offset[1], 5 * 512);
  fail_unless_equals_uint64 (layout.size, 9 * 512);
  /* a format gst-cuda does not lay out */
  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_AYUV, 64, 5));
  fail_if (gst_cuda_cache_stream_ordered_layout (&info, 512, &layout));
}

GST_END_TEST;

GST_START_TEST (test_driver_time_in_stats)
{
  const GstCudaCacheFlags flags[] = { 0, GST_CUDA_CACHE_FLAG_ASYNC_FREE };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (flags); f++) {
    GstCudaCache *cache = gst_cuda_cache_new (1 << 30, flags[f]);
    GstCudaCacheStats stats, thread;
    GstStructure *s;
    guint64 v = 0;
    Device dev;

    device_init (&dev, 100);
    dev.alloc_us = 3000;
    dev.free_us = 2000;
    gst_memory_unref (gst_cuda_cache_acquire (cache, "A", device_alloc, &dev));
    gst_memory_unref (gst_cuda_cache_acquire (cache, "A", device_alloc, &dev));
    gst_memory_unref (gst_cuda_cache_acquire (cache, "B", device_alloc, &dev));
    fail_unless_equals_int (dev.allocs, 2);
    stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
    thread = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
    fail_unless (stats.alloc_time >= 6 * GST_MSECOND);
    fail_unless (stats.alloc_time_max >= 3 * GST_MSECOND);
    fail_unless (stats.alloc_time_max <= stats.alloc_time);
    /* two misses of about 3 ms, not three acquisitions */
    fail_unless (stats.alloc_time < 3 * stats.alloc_time_max);
    fail_unless_equals_uint64 (thread.alloc_time, stats.alloc_time);
    fail_unless_equals_uint64 (stats.free_time, 0);

    fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
            GST_CUDA_CACHE_SCOPE_GLOBAL), 200);
    gst_cuda_cache_drain (cache);
    fail_unless_equals_int (dev.frees, 2);
    stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
    fail_unless (stats.free_time >= 4 * GST_MSECOND, "flags %u", flags[f]);
    fail_unless (stats.free_time_max >= 2 * GST_MSECOND);
    fail_unless (stats.free_time_max <= stats.free_time);

    s = gst_cuda_cache_stats_to_structure (&stats, "cudacache-stats");
    fail_unless (gst_structure_get_uint64 (s, "alloc-time", &v));
    fail_unless_equals_uint64 (v, stats.alloc_time);
    fail_unless (gst_structure_get_uint64 (s, "alloc-time-max", &v));
    fail_unless_equals_uint64 (v, stats.alloc_time_max);
    fail_unless (gst_structure_get_uint64 (s, "free-time", &v));
    fail_unless_equals_uint64 (v, stats.free_time);
    fail_unless (gst_structure_get_uint64 (s, "free-time-max", &v));
    fail_unless_equals_uint64 (v, stats.free_time_max);
    gst_structure_free (s);
    g_object_get (cache, "free-time", &v, NULL);
    fail_unless_equals_uint64 (v, stats.free_time);
    g_object_get (cache, "alloc-time-max", &v, NULL);
    fail_unless_equals_uint64 (v, stats.alloc_time_max);

    gst_object_unref (cache);
    device_clear (&dev);
  }
}

GST_END_TEST;

/* Peaks and allocation failures as PyTorch's caching allocator reports
 * them: a retry is a failed allocation that freed the idle blocks and tried
 * again, a failure is one that failed after that too. */
GST_START_TEST (test_stats_peaks_retries_failures)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *a, *b, *c, *d, *e;
  GstCudaCacheStats stats;
  GstStructure *s;
  guint64 v = 0;
  Device dev;

  device_init (&dev, 100);
  dev.capacity = 200;

  a = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  b = gst_cuda_cache_acquire (cache, "B", device_alloc, &dev);
  gst_memory_unref (a);
  gst_memory_unref (b);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.peak_used_bytes, 200);
  fail_unless_equals_uint64 (stats.peak_size, 200);
  fail_unless_equals_uint64 (stats.used_bytes, 0);

  /* the device is full of idle blocks: one retry, then success */
  c = gst_cuda_cache_acquire (cache, "C", device_alloc, &dev);
  fail_unless (c != NULL);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.alloc_retries, 1);
  fail_unless_equals_uint64 (stats.alloc_failures, 0);

  /* full of blocks in use: the retry fails too */
  d = gst_cuda_cache_acquire (cache, "D", device_alloc, &dev);
  fail_unless (d != NULL);
  e = gst_cuda_cache_acquire (cache, "E", device_alloc, &dev);
  fail_unless (e == NULL);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.alloc_retries, 2);
  fail_unless_equals_uint64 (stats.alloc_failures, 1);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
  fail_unless_equals_uint64 (stats.alloc_retries, 2);
  fail_unless_equals_uint64 (stats.alloc_failures, 1);

  /* peaks stay until reset, then follow what comes next */
  gst_memory_unref (d);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.current_size, 100);
  fail_unless_equals_uint64 (stats.peak_size, 200);
  gst_cuda_cache_reset_peaks (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.peak_size, 100);
  fail_unless_equals_uint64 (stats.peak_used_bytes, 100);
  /* the thread's own peaks are reset on their own */
  fail_unless_equals_uint64 (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_THREAD).peak_size, 200);

  s = gst_cuda_cache_stats_to_structure (&stats, "cudacache-stats");
  fail_unless (gst_structure_get_uint64 (s, "peak-size", &v));
  fail_unless_equals_uint64 (v, 100);
  fail_unless (gst_structure_get_uint64 (s, "peak-used-bytes", &v));
  fail_unless_equals_uint64 (v, 100);
  fail_unless (gst_structure_get_uint64 (s, "alloc-retries", &v));
  fail_unless_equals_uint64 (v, 2);
  fail_unless (gst_structure_get_uint64 (s, "alloc-failures", &v));
  fail_unless_equals_uint64 (v, 1);
  gst_structure_free (s);

  g_object_get (cache, "alloc-failures", &v, NULL);
  fail_unless_equals_uint64 (v, 1);
  g_object_get (cache, "peak-size", &v, NULL);
  fail_unless_equals_uint64 (v, 100);

  gst_memory_unref (c);
  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

/* A group's blocks (a CUDA context's, for the pools) live while the group
 * has users; then its idle blocks go at once, and its blocks in use go when
 * released. */
GST_START_TEST (test_group_freed_with_last_user)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GstMemory *a, *held;
  GstCudaCacheStats stats;
  Device dev;

  device_init (&dev, 100);
  gst_cuda_cache_group_add_user (cache, "ctx");
  gst_cuda_cache_group_add_user (cache, "ctx");

  a = gst_cuda_cache_acquire_in_group (cache, "ctx", "A", device_alloc, &dev);
  held = gst_cuda_cache_acquire_in_group (cache, "ctx", "A", device_alloc,
      &dev);
  gst_memory_unref (a);
  fail_unless_equals_int (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).idle_blocks, 1);

  /* the same key outside the group, or in another, never shares a block */
  a = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  gst_memory_unref (a);
  gst_cuda_cache_group_add_user (cache, "other");
  a = gst_cuda_cache_acquire_in_group (cache, "other", "A", device_alloc, &dev);
  gst_memory_unref (a);
  fail_unless_equals_int (dev.allocs, 4);
  fail_unless_equals_int (stats_of (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL).idle_blocks, 3);

  /* one user left: kept */
  gst_cuda_cache_group_remove_user (cache, "ctx");
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 0);

  /* none left: its idle block goes now, the other groups' stay */
  gst_cuda_cache_group_remove_user (cache, "ctx");
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 1);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_int (stats.idle_blocks, 2);
  fail_unless_equals_int (stats.used_blocks, 1);

  /* its block in use goes when released, off the releasing thread */
  gst_memory_unref (held);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 2);
  fail_unless (dev.last_free_thread != g_thread_self ());
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_int (stats.used_blocks, 0);
  fail_unless_equals_int (stats.idle_blocks, 2);

  /* a group without users keeps nothing; with one again, it does */
  a = gst_cuda_cache_acquire_in_group (cache, "ctx", "A", device_alloc, &dev);
  gst_memory_unref (a);
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 3);
  gst_cuda_cache_group_add_user (cache, "ctx");
  a = gst_cuda_cache_acquire_in_group (cache, "ctx", "A", device_alloc, &dev);
  gst_memory_unref (a);
  a = gst_cuda_cache_acquire_in_group (cache, "ctx", "A", device_alloc, &dev);
  gst_memory_unref (a);
  fail_unless_equals_int (dev.allocs, 6);
  gst_cuda_cache_group_remove_user (cache, "ctx");
  gst_cuda_cache_group_remove_user (cache, "other");
  gst_cuda_cache_drain (cache);
  fail_unless_equals_int (dev.frees, 5);

  /* removing a user nobody added is a programming error */
  ASSERT_CRITICAL (gst_cuda_cache_group_remove_user (cache, "ctx"));

  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, dev.allocs);
  device_clear (&dev);
}

GST_END_TEST;

/* A long-lived process goes through thousands of layouts and streams: a
 * key's entry goes with its last block, idle or in use, in the cache's own
 * keys and in groups, so the entries stay as many as the blocks held. */
GST_START_TEST (test_entries_go_with_their_last_block)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, GST_CUDA_CACHE_FLAG_NONE);
  GstMemory *held, *mem;
  Device dev;
  guint i;

  device_init (&dev, 100);
  /* a limit of two blocks: each new key evicts the oldest idle block */
  gst_cuda_cache_set_limit (cache, 200);
  held = gst_cuda_cache_acquire (cache, "held", device_alloc, &dev);
  gst_cuda_cache_group_add_user (cache, "ctx");
  for (i = 0; i < 5000; i++) {
    gchar *key = g_strdup_printf ("layout-%u,stream=%u", i, i);

    mem = gst_cuda_cache_acquire (cache, key, device_alloc, &dev);
    gst_memory_unref (mem);
    mem = gst_cuda_cache_acquire_in_group (cache, "ctx", key, device_alloc,
        &dev);
    gst_memory_unref (mem);
    g_free (key);
    fail_unless (gst_cuda_cache_count_entries (cache) <= 3,
        "%u entries for 3 blocks after %u keys",
        gst_cuda_cache_count_entries (cache), i + 1);
  }

  /* cleared and released, nothing is left but the group's users */
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_int (gst_cuda_cache_count_entries (cache), 1);
  gst_memory_unref (held);
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_int (gst_cuda_cache_count_entries (cache), 0);

  /* a group's last user gone, its blocks in use take their entries along
   * when released */
  held = gst_cuda_cache_acquire_in_group (cache, "ctx", "A", device_alloc,
      &dev);
  gst_cuda_cache_group_remove_user (cache, "ctx");
  fail_unless_equals_int (gst_cuda_cache_count_entries (cache), 1);
  gst_memory_unref (held);
  fail_unless_equals_int (gst_cuda_cache_count_entries (cache), 0);

  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, dev.allocs);
  device_clear (&dev);
}

GST_END_TEST;

/* Idle blocks are the cache's, as a pool's free buffers are the pool's:
 * flagged so that the leaks tracer does not report them, and unflagged
 * when handed out, so that a block the application leaks still is. */
GST_START_TEST (test_idle_blocks_may_be_leaked)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *a, *again;
  Device dev;

  device_init (&dev, 100);
  a = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_if (GST_MINI_OBJECT_FLAG_IS_SET (a, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED));
  gst_memory_ref (a);
  gst_memory_unref (a);
  fail_if (GST_MINI_OBJECT_FLAG_IS_SET (a, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED));
  /* the last reference: idle now, still alive in the cache */
  gst_memory_unref (a);
  fail_unless (GST_MINI_OBJECT_FLAG_IS_SET (a,
          GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED));

  again = gst_cuda_cache_acquire (cache, "A", device_alloc, &dev);
  fail_unless (again == a);
  fail_if (GST_MINI_OBJECT_FLAG_IS_SET (again,
          GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED));
  gst_memory_unref (again);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

/* Threads and lifetimes: concurrent use, per-thread counters, the reaper
 * thread, the newest limit winning (after the fake device and stats_of (),
 * which its cases use) */
/* The cache across threads and lifetimes, on system memory: many threads
 * acquiring, handing off and setting limits at once; per-thread counters
 * that go with their thread, or stay with a block that outlives it, or
 * are left alone by a thread that outlives the cache; a memory's own
 * dispose chained behind the cache's hook; the cache's last reference
 * dropped on the reaper thread; the newest limit winning, with blocks
 * freed outside the lock. */

#define N_THREADS 6
#define N_ROUNDS 2000
#define N_KEYS 5

typedef struct
{
  GstCudaCache *cache;
  Device *dev;
  GAsyncQueue *handoff;         /* memory acquired here, released elsewhere */
  guint seed;
} Worker;

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  GRand *rand = g_rand_new_with_seed (w->seed);
  GstMemory *held[4] = { NULL, };
  gchar key[16];
  guint i, slot;

  for (i = 0; i < N_ROUNDS; i++) {
    GstMemory *other;

    slot = g_rand_int_range (rand, 0, G_N_ELEMENTS (held));
    if (held[slot])
      g_async_queue_push (w->handoff, held[slot]);
    g_snprintf (key, sizeof (key), "key%d", g_rand_int_range (rand, 0, N_KEYS));
    held[slot] = gst_cuda_cache_acquire (w->cache, key, device_alloc, w->dev);
    fail_unless (held[slot] != NULL);

    while ((other = g_async_queue_try_pop (w->handoff)))
      gst_memory_unref (other);

    if (i % 250 == 0)
      gst_cuda_cache_set_limit (w->cache, g_rand_int_range (rand, 0, 40) * 100);
  }
  for (slot = 0; slot < G_N_ELEMENTS (held); slot++)
    if (held[slot])
      gst_memory_unref (held[slot]);
  g_rand_free (rand);

  return NULL;
}

GST_START_TEST (test_concurrent_use)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  GAsyncQueue *handoff = g_async_queue_new ();
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  GstCudaCacheStats stats;
  GstMemory *left;
  Device dev;
  guint i;

  device_init (&dev, 100);
  for (i = 0; i < N_THREADS; i++) {
    workers[i].cache = cache;
    workers[i].dev = &dev;
    workers[i].handoff = handoff;
    workers[i].seed = i + 1;
    threads[i] = g_thread_new ("worker", worker_thread, &workers[i]);
  }
  for (i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  while ((left = g_async_queue_try_pop (handoff)))
    gst_memory_unref (left);
  g_async_queue_unref (handoff);

  gst_cuda_cache_set_limit (cache, 1000);
  gst_cuda_cache_drain (cache);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.hits + stats.misses, N_THREADS * N_ROUNDS);
  fail_unless_equals_uint64 (stats.misses, dev.allocs);
  fail_unless_equals_uint64 (stats.used_bytes, 0);
  fail_unless (stats.idle_bytes <= 1000);
  fail_unless_equals_int (dev.allocs - dev.frees, stats.idle_blocks);
  fail_unless_equals_uint64 (stats.evictions, dev.frees);
  fail_unless (stats.hits > 0);

  gst_object_unref (cache);
  fail_unless_equals_int (dev.allocs, dev.frees);
  device_clear (&dev);
}

GST_END_TEST;

/* A thread's counters go with the thread: a process that makes and drops
 * pipelines, and their streaming threads, for days keeps a flat cache. */
#define N_SHORT_LIVED 1000
#define N_AT_ONCE 8

typedef struct
{
  GstCudaCache *cache;
  Device *dev;
  gint right;                   /* threads whose own figures were right */
} ShortLived;

static gpointer
short_lived_thread (gpointer data)
{
  ShortLived *s = data;
  GstCudaCacheStats stats;

  gst_memory_unref (gst_cuda_cache_acquire (s->cache, "S", device_alloc,
          s->dev));
  gst_cuda_cache_get_stats (s->cache, GST_CUDA_CACHE_SCOPE_THREAD, &stats);
  if (stats.hits + stats.misses == 1)
    g_atomic_int_inc (&s->right);

  return NULL;
}

GST_START_TEST (test_thread_counters_go_with_their_thread)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GThread *threads[N_AT_ONCE];
  GstCudaCacheStats stats;
  ShortLived args;
  GstMemory *mine;
  Device dev;
  guint i, j, start;

  device_init (&dev, 100);
  args.cache = cache;
  args.dev = &dev;
  args.right = 0;
  start = gst_cuda_cache_count_thread_counters (cache);

  /* this thread's counters, which must outlive the others' */
  mine = gst_cuda_cache_acquire (cache, "M", device_alloc, &dev);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache),
      start + 1);

  for (i = 0; i < N_SHORT_LIVED; i += N_AT_ONCE) {
    for (j = 0; j < N_AT_ONCE; j++)
      threads[j] = g_thread_new ("short-lived", short_lived_thread, &args);
    for (j = 0; j < N_AT_ONCE; j++)
      g_thread_join (threads[j]);
    /* of the ended threads, only the counters of idle blocks they made */
    stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
    fail_unless (gst_cuda_cache_count_thread_counters (cache) <=
        start + 1 + stats.idle_blocks, "%u sets of counters after %u threads",
        gst_cuda_cache_count_thread_counters (cache), i + N_AT_ONCE);
  }
  fail_unless_equals_int (g_atomic_int_get (&args.right), N_SHORT_LIVED);

  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.hits + stats.misses, N_SHORT_LIVED + 1);
  fail_unless (stats.misses <= N_AT_ONCE + 1);
  fail_unless_equals_uint64 (stats.used_bytes, 100);

  /* the last blocks of ended threads take their counters with them */
  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL), stats.idle_bytes);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache),
      start + 1);

  /* a living thread's figures are as they were */
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
  fail_unless_equals_uint64 (stats.misses, 1);
  fail_unless_equals_uint64 (stats.hits, 0);
  fail_unless_equals_uint64 (stats.used_bytes, 100);
  fail_unless_equals_int (stats.used_blocks, 1);
  gst_memory_unref (mine);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
  fail_unless_equals_uint64 (stats.used_bytes, 0);
  fail_unless_equals_uint64 (stats.idle_bytes, 100);
  fail_unless_equals_uint64 (stats.peak_size, 100);
  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_THREAD), 100);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
  fail_unless_equals_uint64 (stats.evictions, 1);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache),
      start + 1);

  gst_object_unref (cache);
  fail_unless_equals_int (dev.allocs, dev.frees);
  device_clear (&dev);
}

GST_END_TEST;

static gpointer
acquire_thread (gpointer data)
{
  GstCudaCache *cache = ((gpointer *) data)[0];
  Device *dev = ((gpointer *) data)[1];

  return gst_cuda_cache_acquire (cache, "O", device_alloc, dev);
}

/* A block may outlive the thread that made it: its counters stay with it,
 * counting, and go with it. */
GST_START_TEST (test_block_outlives_its_thread)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstCudaCacheStats stats;
  GstMemory *mem, *again;
  gpointer args[2];
  Device dev;

  device_init (&dev, 100);
  args[0] = cache;
  args[1] = &dev;
  mem = g_thread_join (g_thread_new ("made-it", acquire_thread, args));
  fail_unless (mem != NULL);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache), 1);

  gst_memory_unref (mem);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.idle_bytes, 100);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache), 1);

  /* a hit is the caller's; the block's size stays its maker's */
  again = gst_cuda_cache_acquire (cache, "O", device_alloc, &dev);
  fail_unless (again == mem);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_THREAD);
  fail_unless_equals_uint64 (stats.hits, 1);
  fail_unless_equals_uint64 (stats.current_size, 0);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache), 2);
  gst_memory_unref (again);

  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_THREAD), 0);
  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL), 100);
  fail_unless_equals_int (dev.frees, 1);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache), 1);
  stats = stats_of (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  fail_unless_equals_uint64 (stats.evictions, 1);
  fail_unless_equals_uint64 (stats.current_size, 0);

  gst_object_unref (cache);
  device_clear (&dev);
}

GST_END_TEST;

typedef struct
{
  GstCudaCache *cache;          /* the thread's reference */
  Device *dev;
  GAsyncQueue *used, *go;
} Outliving;

static gpointer
outlive_cache_thread (gpointer data)
{
  Outliving *o = data;

  gst_memory_unref (gst_cuda_cache_acquire (o->cache, "L", device_alloc,
          o->dev));
  gst_clear_object (&o->cache);
  g_async_queue_push (o->used, GINT_TO_POINTER (1));
  /* ends once the cache is gone */
  g_async_queue_pop (o->go);

  return NULL;
}

/* A thread may end after a cache it used is finalized. */
GST_START_TEST (test_thread_outlives_cache)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstCudaCache *other;
  GThread *thread;
  Outliving o;
  Device dev;

  device_init (&dev, 100);
  o.cache = gst_object_ref (cache);
  o.dev = &dev;
  o.used = g_async_queue_new ();
  o.go = g_async_queue_new ();
  thread = g_thread_new ("outliving", outlive_cache_thread, &o);
  g_async_queue_pop (o.used);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (cache), 1);
  gst_object_unref (cache);
  fail_unless_equals_int (dev.frees, 1);

  /* maybe at the same address: the ended thread must leave it alone */
  other = gst_cuda_cache_new (1 << 30, 0);
  gst_memory_unref (gst_cuda_cache_acquire (other, "L", device_alloc, &dev));
  g_async_queue_push (o.go, GINT_TO_POINTER (1));
  g_thread_join (thread);
  fail_unless_equals_int (gst_cuda_cache_count_thread_counters (other), 1);
  fail_unless_equals_uint64 (stats_of (other,
          GST_CUDA_CACHE_SCOPE_THREAD).idle_bytes, 100);

  gst_object_unref (other);
  fail_unless_equals_int (dev.frees, 2);
  g_async_queue_unref (o.used);
  g_async_queue_unref (o.go);
  device_clear (&dev);
}

GST_END_TEST;

/* Memory with a dispose of its own (an allocator's that recycles, say):
 * the cache's hook stands in for it while the cache keeps the block, and
 * hands back to it once the cache lets the block go. */
static GQuark own_dispose_quark;

static gboolean
own_dispose (GstMiniObject * obj)
{
  gint *disposes = gst_mini_object_get_qdata (obj, own_dispose_quark);

  g_atomic_int_inc (disposes);
  return TRUE;
}

typedef struct
{
  Device *dev;
  gint disposes;
} OwnDispose;

static GstMemory *
own_dispose_alloc (gpointer data)
{
  OwnDispose *o = data;
  GstMemory *mem = device_alloc (o->dev);

  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), own_dispose_quark,
      &o->disposes, NULL);
  GST_MINI_OBJECT_CAST (mem)->dispose = own_dispose;
  return mem;
}

GST_START_TEST (test_memory_dispose_chained)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *mem, *again;
  OwnDispose o;
  Device dev;

  own_dispose_quark = g_quark_from_static_string ("own-dispose");
  device_init (&dev, 100);
  o.dev = &dev;
  o.disposes = 0;

  /* kept idle: the memory is not going away, its dispose does not run */
  mem = gst_cuda_cache_acquire (cache, "D", own_dispose_alloc, &o);
  gst_memory_unref (mem);
  again = gst_cuda_cache_acquire (cache, "D", own_dispose_alloc, &o);
  fail_unless (again == mem);
  gst_memory_unref (again);
  fail_unless_equals_int (o.disposes, 0);
  fail_unless_equals_int (dev.frees, 0);

  /* evicted: its own dispose runs, then it is freed */
  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL), 100);
  fail_unless_equals_int (o.disposes, 1);
  fail_unless_equals_int (dev.frees, 1);

  /* not kept at its release (larger than the limit): the same */
  gst_cuda_cache_set_limit (cache, 10);
  gst_memory_unref (gst_cuda_cache_acquire (cache, "D", own_dispose_alloc, &o));
  fail_unless_equals_int (o.disposes, 2);
  fail_unless_equals_int (dev.frees, 2);

  gst_object_unref (cache);
  fail_unless_equals_int (dev.allocs, dev.frees);
  device_clear (&dev);
}

GST_END_TEST;

typedef struct
{
  GstCudaCache *cache;          /* the memory's reference, the last one */
  GAsyncQueue *go, *done;
  GThread *finalized_on;
} LastReference;

static void
record_finalize_thread (gpointer data, GObject * cache)
{
  ((LastReference *) data)->finalized_on = g_thread_self ();
}

/* The memory's qdata notify, on the reaper thread that frees it. */
static void
drop_cache_when_told (gpointer data)
{
  LastReference *l = data;

  g_async_queue_pop (l->go);
  gst_object_unref (l->cache);
  g_async_queue_push (l->done, GINT_TO_POINTER (1));
}

/* A block the reaper frees may hold the cache's last reference: the cache
 * is then finalized on the reaper thread, which cannot join itself. */
GST_START_TEST (test_last_reference_on_reaper_thread)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  LastReference l;
  GstMemory *mem;
  Device dev;

  device_init (&dev, 100);
  l.go = g_async_queue_new ();
  l.done = g_async_queue_new ();
  l.finalized_on = NULL;
  g_object_weak_ref (G_OBJECT (cache), record_finalize_thread, &l);

  mem = gst_cuda_cache_acquire (cache, "R", device_alloc, &dev);
  l.cache = gst_object_ref (cache);
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem),
      g_quark_from_static_string ("last-reference"), &l, drop_cache_when_told);
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (gst_cuda_cache_clear (cache,
          GST_CUDA_CACHE_SCOPE_GLOBAL), 100);
  /* the reaper waits in the notify until this reference is gone */
  gst_object_unref (cache);
  g_async_queue_push (l.go, GINT_TO_POINTER (1));
  g_async_queue_pop (l.done);

  fail_unless (l.finalized_on != NULL);
  fail_unless (l.finalized_on != g_thread_self ());
  fail_unless_equals_int (dev.frees, 1);

  g_async_queue_unref (l.go);
  g_async_queue_unref (l.done);
  device_clear (&dev);
}

GST_END_TEST;

/* The memory's qdata notify: sets another cache's limit while freed. */
static void
set_limit_while_freed (gpointer data)
{
  gst_cuda_cache_set_limit_if_newer (data, 5, g_get_monotonic_time ());
}

/* The last limit asked for wins, whatever the order it arrives in; blocks
 * it drops are freed with no lock held, so freeing may set a limit. */
GST_START_TEST (test_set_limit_if_newer)
{
  GstCudaCache *cache = gst_cuda_cache_new (1 << 30, 0);
  GstCudaCache *other = gst_cuda_cache_new (1 << 30, 0);
  GstMemory *mem;
  Device dev;

  device_init (&dev, 100);
  fail_unless (gst_cuda_cache_set_limit_if_newer (cache, 1000, 20));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 1000);
  fail_if (gst_cuda_cache_set_limit_if_newer (cache, 2000, 10));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 1000);
  fail_unless (gst_cuda_cache_set_limit_if_newer (cache, 3000, 20));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 3000);
  /* gst_cuda_cache_set_limit() is not a write it compares with */
  gst_cuda_cache_set_limit (cache, 4000);
  fail_if (gst_cuda_cache_set_limit_if_newer (cache, 2000, 10));
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (cache), 4000);
  /* each cache has its own order */
  fail_unless (gst_cuda_cache_set_limit_if_newer (other, 2000, 10));

  mem = gst_cuda_cache_acquire (cache, "F", device_alloc, &dev);
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem),
      g_quark_from_static_string ("set-limit"), other, set_limit_while_freed);
  gst_memory_unref (mem);
  fail_unless (gst_cuda_cache_set_limit_if_newer (cache, 0,
          g_get_monotonic_time ()));
  fail_unless_equals_int (dev.frees, 1);
  fail_unless_equals_uint64 (gst_cuda_cache_get_limit (other), 5);

  gst_object_unref (cache);
  gst_object_unref (other);
  device_clear (&dev);
}

GST_END_TEST;

static Suite *
cache_suite (void)
{
  Suite *s = suite_create ("cudacache");
  TCase *tc = tcase_create ("general");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_identical_keys_reuse);
  tcase_add_test (tc, test_released_memory_is_reset);
  tcase_add_test (tc, test_lru_trim_above_limit);
  tcase_add_test (tc, test_block_larger_than_limit_not_kept);
  tcase_add_test (tc, test_limit_zero_disables_caching);
  tcase_add_test (tc, test_lowering_limit_trims_at_once);
  tcase_add_test (tc, test_limit_property);
  tcase_add_test (tc, test_thread_scope);
  tcase_add_test (tc, test_cross_thread_release_reused);
  tcase_add_test (tc, test_memory_outlives_cache);
  tcase_add_test (tc, test_async_free_off_releasing_thread);
  tcase_add_test (tc, test_out_of_memory_frees_idle_and_retries);
  tcase_add_test (tc, test_parse_limit);
  tcase_add_test (tc, test_limit_from_environment);
  tcase_add_test (tc, test_reaper_exists_before_first_eviction);
  tcase_add_test (tc, test_foreign_memory_not_counted);
  tcase_add_test (tc, test_stats_structure);
  tcase_add_test (tc, test_driver_time_in_stats);
  tcase_add_test (tc, test_stream_ordered_refused_with_why);
  tcase_add_test (tc, test_stream_ordered_layout);
  tcase_add_test (tc, test_stats_peaks_retries_failures);
  tcase_add_test (tc, test_group_freed_with_last_user);
  tcase_add_test (tc, test_entries_go_with_their_last_block);
  tcase_add_test (tc, test_idle_blocks_may_be_leaked);
  tcase_add_test (tc, test_concurrent_use);
  tcase_add_test (tc, test_thread_counters_go_with_their_thread);
  tcase_add_test (tc, test_block_outlives_its_thread);
  tcase_add_test (tc, test_thread_outlives_cache);
  tcase_add_test (tc, test_memory_dispose_chained);
  tcase_add_test (tc, test_last_reference_on_reaper_thread);
  tcase_add_test (tc, test_set_limit_if_newer);

  return s;
}

GST_CHECK_MAIN (cache);
