/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_THREAD_COUNTERS_PRIVATE_H__
#define __GST_CUDA_CACHE_THREAD_COUNTERS_PRIVATE_H__

#include <gst/cudacache/gstcudacache.h>

G_BEGIN_DECLS

/* Time spent in one kind of driver call, in nanoseconds: the sum and the
 * longest call */
typedef struct
{
  guint64 total;
  guint64 max;
} GstCudaCacheTime;

static inline void
gst_cuda_cache_time_add (GstCudaCacheTime * time, guint64 ns)
{
  time->total += ns;
  time->max = MAX (time->max, ns);
}

/* A cache's figures: its totals, or one thread's share of them. */
typedef struct
{
  guint64 used_bytes;
  guint64 idle_bytes;
  guint used_blocks;
  guint idle_blocks;
  guint64 hits;
  guint64 misses;
  guint64 evictions;
  guint64 peak_size;
  guint64 peak_used_bytes;
  guint64 alloc_retries;
  guint64 alloc_failures;
  /* in the allocation function of misses (and of their retries) */
  GstCudaCacheTime alloc_time;
  /* its thread ended: the counters live on only for the blocks they count
   * (used_blocks + idle_blocks), and go with the last of them */
  gboolean orphaned;
} GstCudaCacheCounters;

/* The counters of each thread that used one cache, guarded by the cache's
 * lock (@lock). A thread's counters leave the cache when the thread ends. */
typedef struct
{
  GMutex *lock;
  GHashTable *threads;          /* a thread's record -> GstCudaCacheCounters */
  guint orphans;                /* counters of ended threads, still counting */
} GstCudaCacheThreadCounters;

G_GNUC_INTERNAL
void gst_cuda_cache_thread_counters_init (GstCudaCacheThreadCounters * tc,
    GMutex * lock);

G_GNUC_INTERNAL
void gst_cuda_cache_thread_counters_clear (GstCudaCacheThreadCounters * tc);

/* The calling thread's counters in @cache, made on its first call, with
 * tc->lock held. May release the lock meanwhile; the counters it returns
 * stay: only their thread's end or the cache's finalize takes them. */
G_GNUC_INTERNAL
GstCudaCacheCounters *gst_cuda_cache_thread_counters_get_locked (
    GstCudaCacheThreadCounters * tc, GstCudaCache * cache);

/* The calling thread's counters, or NULL if it has none; tc->lock held. */
G_GNUC_INTERNAL
GstCudaCacheCounters *gst_cuda_cache_thread_counters_lookup_locked (
    GstCudaCacheThreadCounters * tc);

/* @counters count one block fewer: those of an ended thread go with their
 * last block. tc->lock held. */
G_GNUC_INTERNAL
void gst_cuda_cache_thread_counters_block_gone_locked (
    GstCudaCacheThreadCounters * tc, GstCudaCacheCounters * counters);

/* The cache's per-thread counters, for the thread records. */
G_GNUC_INTERNAL
GstCudaCacheThreadCounters *gst_cuda_cache_get_thread_counters (
    GstCudaCache * cache);

/* For the tests: how many sets of per-thread counters @cache holds, those
 * of living threads and those kept for blocks whose thread has ended. */
G_GNUC_INTERNAL
guint gst_cuda_cache_count_thread_counters (GstCudaCache * cache);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_THREAD_COUNTERS_PRIVATE_H__ */
