/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The per-thread share of a cache's figures (GST_CUDA_CACHE_SCOPE_THREAD).
 * Each thread that used a cache has a record, in a GPrivate; the caches
 * key its counters by that record, and the record holds a weak reference
 * to each cache. When the thread ends, the record takes its counters out
 * of every cache still alive. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacache-private.h"
#include "gstcudacachethreadcounters-private.h"

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacache",
    "CUDA cache: keyed store of idle memory");
#define GST_CAT_DEFAULT ensure_debug_category ()

/* A thread's record: only its own thread touches it. */
typedef struct
{
  GSList *caches;               /* GWeakRef * to a GstCudaCache */
} GstCudaCacheThread;

static void gst_cuda_cache_thread_free (GstCudaCacheThread * thread);

static GPrivate thread_private =
G_PRIVATE_INIT ((GDestroyNotify) gst_cuda_cache_thread_free);

void
gst_cuda_cache_thread_counters_init (GstCudaCacheThreadCounters * tc,
    GMutex * lock)
{
  tc->lock = lock;
  tc->threads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  tc->orphans = 0;
}

void
gst_cuda_cache_thread_counters_clear (GstCudaCacheThreadCounters * tc)
{
  g_clear_pointer (&tc->threads, g_hash_table_unref);
}

/* The calling thread's record; NULL if it has none and @create is FALSE. */
static GstCudaCacheThread *
gst_cuda_cache_thread_self (gboolean create)
{
  GstCudaCacheThread *thread = g_private_get (&thread_private);

  if (!thread && create) {
    thread = g_new0 (GstCudaCacheThread, 1);
    g_private_set (&thread_private, thread);
  }
  return thread;
}

/* Notes that @thread has counters in @cache. Forgets the caches finalized
 * since, so that a thread that outlives many caches does not grow either. */
static void
gst_cuda_cache_thread_add_cache (GstCudaCacheThread * thread,
    GstCudaCache * cache)
{
  GSList *l = thread->caches;
  GWeakRef *ref;

  while (l) {
    GSList *next = l->next;
    GstCudaCache *other;

    ref = l->data;
    other = g_weak_ref_get (ref);
    if (other) {
      gst_object_unref (other);
    } else {
      g_weak_ref_clear (ref);
      g_free (ref);
      thread->caches = g_slist_delete_link (thread->caches, l);
    }
    l = next;
  }

  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, cache);
  thread->caches = g_slist_prepend (thread->caches, ref);
}

/* The thread's counters leave @cache; those that still count blocks stay
 * until the last of them is freed. */
static void
gst_cuda_cache_forget_thread (GstCudaCache * cache, GstCudaCacheThread * thread)
{
  GstCudaCacheThreadCounters *tc = gst_cuda_cache_get_thread_counters (cache);
  GstCudaCacheCounters *counters;

  g_mutex_lock (tc->lock);
  counters = g_hash_table_lookup (tc->threads, thread);
  if (counters) {
    g_hash_table_steal (tc->threads, thread);
    if (counters->used_blocks + counters->idle_blocks > 0) {
      counters->orphaned = TRUE;
      tc->orphans++;
    } else {
      g_free (counters);
    }
    GST_LOG_OBJECT (cache, "a thread ended: %u thread(s) and %u ended "
        "thread(s) with blocks left", g_hash_table_size (tc->threads),
        tc->orphans);
  }
  g_mutex_unlock (tc->lock);
}

/* The GPrivate's destroy notify: runs on the ending thread, with no lock
 * held. A cache finalized first has cleared its weak reference. */
static void
gst_cuda_cache_thread_free (GstCudaCacheThread * thread)
{
  GSList *l;

  for (l = thread->caches; l; l = l->next) {
    GWeakRef *ref = l->data;
    GstCudaCache *cache = g_weak_ref_get (ref);

    if (cache) {
      gst_cuda_cache_forget_thread (cache, thread);
      gst_object_unref (cache);
    }
    g_weak_ref_clear (ref);
    g_free (ref);
  }
  g_slist_free (thread->caches);
  g_free (thread);
}

GstCudaCacheCounters *
gst_cuda_cache_thread_counters_get_locked (GstCudaCacheThreadCounters * tc,
    GstCudaCache * cache)
{
  GstCudaCacheThread *thread = gst_cuda_cache_thread_self (TRUE);
  GstCudaCacheCounters *counters = g_hash_table_lookup (tc->threads, thread);

  if (!counters) {
    /* GObject's weak references have a lock of their own */
    g_mutex_unlock (tc->lock);
    gst_cuda_cache_thread_add_cache (thread, cache);
    g_mutex_lock (tc->lock);

    counters = g_new0 (GstCudaCacheCounters, 1);
    g_hash_table_insert (tc->threads, thread, counters);
  }
  return counters;
}

GstCudaCacheCounters *
gst_cuda_cache_thread_counters_lookup_locked (GstCudaCacheThreadCounters * tc)
{
  GstCudaCacheThread *thread = gst_cuda_cache_thread_self (FALSE);

  return thread ? g_hash_table_lookup (tc->threads, thread) : NULL;
}

void
gst_cuda_cache_thread_counters_block_gone_locked (GstCudaCacheThreadCounters *
    tc, GstCudaCacheCounters * counters)
{
  if (counters->orphaned && counters->used_blocks + counters->idle_blocks == 0) {
    g_free (counters);
    tc->orphans--;
  }
}

guint
gst_cuda_cache_count_thread_counters (GstCudaCache * cache)
{
  GstCudaCacheThreadCounters *tc;
  guint n;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), 0);

  tc = gst_cuda_cache_get_thread_counters (cache);
  g_mutex_lock (tc->lock);
  n = g_hash_table_size (tc->threads) + tc->orphans;
  g_mutex_unlock (tc->lock);

  return n;
}
