/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_SCRATCH_PRIVATE_H__
#define __GST_CUDA_CACHE_SCRATCH_PRIVATE_H__

#include <gst/gst.h>
#include <gst/cudacache/gstcudacache.h>

G_BEGIN_DECLS

/* The CUDA kernels' own memory (the plans' tap tables, the 8-bit copies
 * of 16-bit frames, the completion signals' counters) as blocks of the
 * device's #GstCudaCache, in the group of the kernels' context: counted in
 * its current-size, held to its limit with the pools' blocks, and freed
 * on its reaper thread, never by a cuMemFree () on a streaming thread. A
 * scratch is a user of its group for as long as it lives.
 *
 * No CUDA call of its own: @funcs say how a block is made, addressed and
 * written, so that tests run it on system memory. */
typedef struct
{
  /* A new block of @rows rows of @row_bytes bytes (a multiple of 4), on a
   * miss of the cache; NULL where the memory is out. */
  GstMemory *(*alloc) (gsize row_bytes, gsize rows, gpointer user_data);
  /* The address of @block's first byte, as the kernels read it. */
  guint64 (*address) (GstMemory * block, gpointer user_data);
  /* Copies @bytes from @src to @address and returns once they landed. */
  gboolean (*upload) (guint64 address, gconstpointer src, gsize bytes,
      gpointer user_data);
  /* Takes @block and gives it back to the cache (drops the reference)
   * once no kernel launched so far reads it: there another user may
   * write it. */
  void (*retire) (GstMemory * block, gpointer user_data);
} GstCudaCacheScratchFuncs;

typedef struct _GstCudaCacheScratch GstCudaCacheScratch;

/* Where a plan's tap table lies (see place_table ()). */
typedef struct _GstCudaCacheTapArena GstCudaCacheTapArena;

G_GNUC_INTERNAL
GstCudaCacheScratch *gst_cuda_cache_scratch_new (GstCudaCache * cache,
    const gchar * group, const GstCudaCacheScratchFuncs * funcs,
    gpointer user_data);

/* Call once every table placed is released: returns the current arena to
 * the cache (retired first) and stops using the group. */
G_GNUC_INTERNAL
void gst_cuda_cache_scratch_free (GstCudaCacheScratch * scratch);

/* A block of @rows rows of at least @row_bytes bytes: an idle one of that
 * size from the cache, else a new one. Dropping the last reference gives
 * it back to the cache: only once no kernel reads or writes it. NULL,
 * logged, where the memory is out (the cache has freed its idle blocks
 * and tried again). */
G_GNUC_INTERNAL
GstMemory *gst_cuda_cache_scratch_acquire (GstCudaCacheScratch * scratch,
    gsize row_bytes, gsize rows);

/* The plans' tap tables lie in arenas, blocks of at least
 * GST_CUDA_CACHE_TAP_ARENA_MIN_BYTES appended to and never rewritten: a
 * table a launched kernel may still read stays as it is, and a caps
 * change costs no allocation until the arena fills. A table equal to one
 * already in the current arena (caps switching back and forth) is shared.
 * A full arena is retired, and goes back to the cache with its last
 * table's release.
 *
 * Places @table (guint32 values) and returns its arena, which the caller
 * holds until gst_cuda_cache_scratch_release_table (); *address is the
 * table's. NULL, logged, where the memory is out or the upload failed. */
G_GNUC_INTERNAL
GstCudaCacheTapArena *gst_cuda_cache_scratch_place_table (GstCudaCacheScratch *
    scratch, const GArray * table, guint64 * address);

G_GNUC_INTERNAL
void gst_cuda_cache_scratch_release_table (GstCudaCacheScratch * scratch,
    GstCudaCacheTapArena * arena);

#define GST_CUDA_CACHE_TAP_ARENA_MIN_BYTES (1024 * 1024)

G_END_DECLS

#endif /* __GST_CUDA_CACHE_SCRATCH_PRIVATE_H__ */
