/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The reaper of GST_CUDA_CACHE_FLAG_ASYNC_FREE. Its thread holds a
 * reference on the reaper and never touches the cache, so it may outlive
 * the cache: the cache's last reference can go on the reaper thread
 * itself, in a memory it frees. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacache-private.h"
#include "gstcudacachereaper-private.h"

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacache",
    "CUDA cache: keyed store of idle memory");
#define GST_CAT_DEFAULT ensure_debug_category ()

struct _GstCudaCacheReaper
{
  GThread *thread;
  GAsyncQueue *queue;           /* memories to free; the reaper itself: stop */
  GMutex lock;                  /* guards pending */
  GCond drained;
  guint pending;                /* memories queued and not freed yet */
  GstCudaCacheTime free_time;
};

static void
gst_cuda_cache_reaper_clear (GstCudaCacheReaper * reaper)
{
  g_async_queue_unref (reaper->queue);
  g_mutex_clear (&reaper->lock);
  g_cond_clear (&reaper->drained);
}

static gpointer
gst_cuda_cache_reaper_thread (gpointer data)
{
  GstCudaCacheReaper *reaper = data;

  for (;;) {
    gpointer item = g_async_queue_pop (reaper->queue);
    GstClockTime start;
    guint64 took;

    if (item == reaper)
      break;

    GST_LOG ("reaper freeing %" G_GSIZE_FORMAT " bytes",
        GST_MEMORY_CAST (item)->maxsize);
    start = gst_util_get_timestamp ();
    gst_memory_unref (item);
    took = gst_util_get_timestamp () - start;

    g_mutex_lock (&reaper->lock);
    gst_cuda_cache_time_add (&reaper->free_time, took);
    if (--reaper->pending == 0)
      g_cond_broadcast (&reaper->drained);
    g_mutex_unlock (&reaper->lock);
  }

  g_atomic_rc_box_release_full (reaper,
      (GDestroyNotify) gst_cuda_cache_reaper_clear);
  return NULL;
}

GstCudaCacheReaper *
gst_cuda_cache_reaper_new (void)
{
  GstCudaCacheReaper *reaper = g_atomic_rc_box_new0 (GstCudaCacheReaper);

  reaper->queue = g_async_queue_new ();
  g_mutex_init (&reaper->lock);
  g_cond_init (&reaper->drained);
  reaper->thread = g_thread_new ("cudacache-reap",
      gst_cuda_cache_reaper_thread, g_atomic_rc_box_acquire (reaper));

  return reaper;
}

void
gst_cuda_cache_reaper_free (GstCudaCacheReaper * reaper, GList * mems)
{
  GList *l;

  g_mutex_lock (&reaper->lock);
  reaper->pending += g_list_length (mems);
  g_mutex_unlock (&reaper->lock);

  for (l = mems; l; l = l->next)
    g_async_queue_push (reaper->queue, l->data);
  g_list_free (mems);
}

void
gst_cuda_cache_reaper_add_free_time (GstCudaCacheReaper * reaper,
    GstCudaCacheTime * time)
{
  g_mutex_lock (&reaper->lock);
  time->total += reaper->free_time.total;
  time->max = MAX (time->max, reaper->free_time.max);
  g_mutex_unlock (&reaper->lock);
}

void
gst_cuda_cache_reaper_drain (GstCudaCacheReaper * reaper)
{
  g_mutex_lock (&reaper->lock);
  while (reaper->pending > 0)
    g_cond_wait (&reaper->drained, &reaper->lock);
  g_mutex_unlock (&reaper->lock);
}

void
gst_cuda_cache_reaper_stop (GstCudaCacheReaper * reaper)
{
  g_async_queue_push (reaper->queue, reaper);
  if (g_thread_self () == reaper->thread) {
    GST_DEBUG ("stopped on the reaper thread: detaching it");
    g_thread_unref (reaper->thread);
  } else {
    g_thread_join (reaper->thread);
  }
  g_atomic_rc_box_release_full (reaper,
      (GDestroyNotify) gst_cuda_cache_reaper_clear);
}
