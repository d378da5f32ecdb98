/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The cache across threads and lifetimes, on system memory: many threads
 * acquiring, handing off and setting limits at once; per-thread counters
 * that go with their thread, or stay with a block that outlives it, or
 * are left alone by a thread that outlives the cache; a memory's own
 * dispose chained behind the cache's hook; the cache's last reference
 * dropped on the reaper thread; the newest limit winning, with blocks
 * freed outside the lock. Included by libs/cache.c after its fake device
 * (Device, device_init (), device_alloc (), device_clear ()) and
 * stats_of (), which the cases use. */

#ifndef __CUDACACHE_CACHE_THREADS_H__
#define __CUDACACHE_CACHE_THREADS_H__

#include <gst/cudacache/cudacache.h>
#include <gst/cudacache/gstcudacachethreadcounters-private.h>
#include "cudacache-check.h"

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

#endif /* __CUDACACHE_CACHE_THREADS_H__ */
