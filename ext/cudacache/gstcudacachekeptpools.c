/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The pools an element keeps across renegotiations
 * (gstcudacachekeptpools.h), for GstCudaCacheBaseTransform and
 * cudacachebatch: which one to reconfigure for new caps, and when to make
 * another. A pool nobody holds active is reconfigured. One given out
 * (proposed upstream, or taken for the element's output) belongs to its
 * taker while it may use it, and is never deactivated or reconfigured
 * under it: the list records which pool it gave out last on each side, and
 * a pool given out before that one is let go once the later one has been
 * activated, its taker having moved on to it. One let go still active
 * (nvcodec's decoders drop a pool that way at a new resolution) is then
 * deactivated and reused. GstBufferPool itself refuses to reconfigure a
 * pool whose buffers are still out, and the cache's pools discard what a
 * deferred stop left queued (docs/design.md, "Renegotiation").
 *
 * Configuring a pool allocates (a CUDA pool probes a block for a layout it
 * has not seen) and deactivating one frees its buffers: both happen with
 * the list's lock released, on pools marked as being worked on, which no
 * other call takes meanwhile. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>

#include "gstcudacachekeptpools.h"

/* its own category: cudacachebatch keeps pools too, without the base
 * transform's class (which sets that category up) ever being made */
GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_kept_pools_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_kept_pools_debug

/* per side and memory kind: a pool whose buffers are still downstream
 * cannot be reconfigured, the next one usually can */
#define MAX_KEPT_POOLS 4

typedef struct
{
  GstBufferPool *pool;
  /* given out at this count of the side's gifts; 0: never, or let go */
  guint64 given_at;
  /* a get () configures or deactivates it with the lock released */
  gboolean busy;
} KeptPool;

typedef struct
{
  KeptPool pools[MAX_KEPT_POOLS];       /* most recently used first */
  guint n_pools;
  guint64 gifts;                /* pools given out on this side so far */
} KeptPools;

struct _GstCudaCacheKeptPools
{
  GstObject *owner;             /* for the log; not a reference */
  GMutex lock;                  /* guards pools */
  KeptPools pools[2][2];        /* [side][cuda_memory] */
};

GstCudaCacheKeptPools *
gst_cuda_cache_kept_pools_new (GstObject * owner)
{
  static gsize once = 0;
  GstCudaCacheKeptPools *kept = g_new0 (GstCudaCacheKeptPools, 1);

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_kept_pools_debug,
        "cudacachekeptpools", 0, "CUDA cache: the pools elements keep");
    g_once_init_leave (&once, 1);
  }

  kept->owner = owner;
  g_mutex_init (&kept->lock);
  return kept;
}

/* Takes @kept's pools into @dropped, to be unreffed without the lock. */
static void
kept_pools_take_all (KeptPools * kept, GPtrArray * dropped)
{
  guint i;

  for (i = 0; i < kept->n_pools; i++)
    g_ptr_array_add (dropped, kept->pools[i].pool);
  kept->n_pools = 0;
}

/* Lets go of every pool. A get () in progress gives out the pool it
 * reconfigured all the same, but no longer keeps it. */
void
gst_cuda_cache_kept_pools_clear (GstCudaCacheKeptPools * kept)
{
  GPtrArray *dropped = g_ptr_array_new_with_free_func (gst_object_unref);
  guint side;

  g_mutex_lock (&kept->lock);
  for (side = 0; side < 2; side++) {
    kept_pools_take_all (&kept->pools[side][FALSE], dropped);
    kept_pools_take_all (&kept->pools[side][TRUE], dropped);
  }
  g_mutex_unlock (&kept->lock);

  g_ptr_array_unref (dropped);
}

void
gst_cuda_cache_kept_pools_free (GstCudaCacheKeptPools * kept)
{
  gst_cuda_cache_kept_pools_clear (kept);
  g_mutex_clear (&kept->lock);
  g_free (kept);
}

/* Whether @caps are of CUDA memory. */
gboolean
gst_cuda_cache_caps_are_cuda (const GstCaps * caps)
{
  GstCapsFeatures *features;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;

  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

static gsize
caps_frame_size (GstCaps * caps)
{
  GstCudaCacheTensorInfo tensor;
  GstVideoInfo video;

  if (gst_cuda_cache_tensor_info_from_caps (&tensor, caps))
    return tensor.size;
  if (gst_video_info_from_caps (&video, caps))
    return GST_VIDEO_INFO_SIZE (&video);

  return 0;
}

/* Configures @pool for @caps, its CUDA memory on @stream where it is of
 * @stream's context, and "cuda-stream-ordered-alloc" set to
 * @stream_ordered (-1: left out, the cache's method). Fails without
 * touching it if it is active or buffers of it are still out, or if it
 * refuses @caps.
 * Returns: whether @pool is now configured for @caps; @size: its buffers'
 * size, as the pool settled it */
static gboolean
configure_pool (GstBufferPool * pool, GstCudaCacheElementStream * stream,
    gint stream_ordered, GstCaps * caps, gsize frame_size, guint min_buffers,
    guint max_buffers, guint * size)
{
  GstStructure *config;

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, frame_size, min_buffers,
      max_buffers);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (stream && (!GST_IS_CUDA_CACHE_POOL (pool) ||
          gst_cuda_cache_element_stream_get_context (stream) !=
          GST_CUDA_BUFFER_POOL (pool)->context))
    stream = NULL;
  gst_cuda_cache_element_stream_config_set (config, stream);
  /* a kept pool's config keeps what an earlier consumer asked for */
  if (stream_ordered < 0 || !GST_IS_CUDA_CACHE_POOL (pool))
    gst_structure_remove_field (config, "cuda-stream-ordered-alloc");
  else
    gst_structure_set (config, "cuda-stream-ordered-alloc", G_TYPE_BOOLEAN,
        stream_ordered != 0, NULL);
  if (!gst_buffer_pool_set_config (pool, config))
    return FALSE;

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);

  return TRUE;
}

/* The index of @pool in @kept, or -1 where it is no longer kept. */
static gint
kept_pools_find (KeptPools * kept, GstBufferPool * pool)
{
  guint i;

  for (i = 0; i < kept->n_pools; i++) {
    if (kept->pools[i].pool == pool)
      return i;
  }
  return -1;
}

/* Removes the entry at @index from @kept, its reference into @dropped. */
static void
kept_pools_remove (KeptPools * kept, guint index, GPtrArray * dropped)
{
  g_ptr_array_add (dropped, kept->pools[index].pool);
  memmove (&kept->pools[index], &kept->pools[index + 1],
      (kept->n_pools - index - 1) * sizeof (KeptPool));
  kept->n_pools--;
}

/* Puts @entry first in @kept, making room by dropping the least recently
 * used pool nobody works on, into @dropped; FALSE where every kept pool is
 * being worked on (@entry's pool is then not kept). */
static gboolean
kept_pools_push_front (KeptPools * kept, const KeptPool * entry,
    GPtrArray * dropped)
{
  gint i;

  if (kept->n_pools == MAX_KEPT_POOLS) {
    i = kept->n_pools - 1;
    while (i >= 0 && kept->pools[i].busy)
      i--;
    if (i < 0)
      return FALSE;
    kept_pools_remove (kept, i, dropped);
  }
  memmove (&kept->pools[1], &kept->pools[0], kept->n_pools * sizeof (KeptPool));
  kept->pools[0] = *entry;
  kept->n_pools++;
  return TRUE;
}

/* Sets *@reason, where given, to @before, @caps and @after, for the user;
 * takes @before */
static void
set_refusal (gchar ** reason, gchar * before, GstCaps * caps,
    const gchar * after)
{
  gchar *caps_str;

  if (reason) {
    caps_str = gst_caps_to_string (caps);
    *reason = g_strconcat (before, caps_str, after, NULL);
    g_free (caps_str);
  }
  g_free (before);
}

/* A pool worked on by a get () with the lock released. */
typedef struct
{
  GstBufferPool *pool;          /* a reference */
  gboolean given_out;           /* given out, not let go */
  gboolean last_given;          /* the pool the side gave out last */
} Candidate;

/* Ends the work on @candidates: they are no longer busy, and those
 * deactivated as let go are no longer given out. */
static void
kept_pools_release_candidates (KeptPools * kept, Candidate * candidates,
    guint n_candidates)
{
  guint i;
  gint index;

  for (i = 0; i < n_candidates; i++) {
    index = kept_pools_find (kept, candidates[i].pool);
    if (index < 0)
      continue;
    kept->pools[index].busy = FALSE;
    if (!candidates[i].given_out)
      kept->pools[index].given_at = 0;
  }
}

/* @context: the element's, for CUDA memory caps (%NULL where it has
 * none); @stream: the element's, for the memory of its output (the caller
 * keeps it alive for the call); @stream_ordered: what the consumer's own
 * pool config asks of the memory's allocation ("cuda-stream-ordered-alloc",
 * as cudaipcsink ipc-mode=legacy asks for %FALSE), -1 where it asks
 * nothing and the cache's method holds.
 * Returns: (transfer full) (nullable): one of @kept's pools for @side,
 * configured for @caps (a new one only when every kept pool is active or
 * still has buffers out), or %NULL if @caps are not a frame or a tensor or
 * the pool refuses them, with why in *@reason where given; @size: its
 * buffers' size, as the pool settled it */
GstBufferPool *
gst_cuda_cache_kept_pools_get (GstCudaCacheKeptPools * self,
    GstCudaCachePoolSide side, GstCaps * caps, GstCudaContext * context,
    GstCudaCacheElementStream * stream, gint stream_ordered,
    guint min_buffers, guint max_buffers, guint * size, gchar ** reason)
{
  gboolean cuda_memory = gst_cuda_cache_caps_are_cuda (caps);
  gsize frame_size = caps_frame_size (caps);
  GstObject *owner = self->owner;
  GPtrArray *dropped = g_ptr_array_new_with_free_func (gst_object_unref);
  Candidate candidates[MAX_KEPT_POOLS];
  guint n_candidates = 0, i;
  gboolean moved_on = FALSE, made = FALSE;
  GstBufferPool *pool = NULL;
  KeptPools *kept;
  KeptPool entry;
  gint index;

  /* GstBufferPool's configuration holds a buffer's size in a guint */
  if (frame_size == 0 || frame_size > G_MAXUINT) {
    GST_WARNING_OBJECT (owner, "no pool for caps %" GST_PTR_FORMAT
        " (a frame of %" G_GSIZE_FORMAT " bytes)", caps, frame_size);
    if (frame_size == 0)
      set_refusal (reason, g_strdup (""), caps, " describe no frame or tensor");
    else
      set_refusal (reason, g_strdup_printf ("a buffer of %" G_GSIZE_FORMAT
              " bytes (", frame_size), caps, ") is beyond the 4 GiB a "
          "GstBufferPool's buffers can hold");
    g_ptr_array_unref (dropped);
    return NULL;
  }
  if (cuda_memory && !context) {
    set_refusal (reason, g_strdup ("no CUDA context for "), caps, "");
    g_ptr_array_unref (dropped);
    return NULL;
  }
  if (side != GST_CUDA_CACHE_POOL_OUTPUT)
    stream = NULL;

  g_mutex_lock (&self->lock);
  kept = &self->pools[side][cuda_memory];
  for (i = kept->n_pools; i > 0; i--) {
    KeptPool *k = &kept->pools[i - 1];

    if (k->busy)
      continue;
    /* pools of an earlier context are no use to this one */
    if (cuda_memory && GST_CUDA_BUFFER_POOL (k->pool)->context != context) {
      kept_pools_remove (kept, i - 1, dropped);
      continue;
    }
    /* least recently used first */
    k->busy = TRUE;
    candidates[n_candidates].pool = gst_object_ref (k->pool);
    candidates[n_candidates].given_out = k->given_at != 0;
    candidates[n_candidates].last_given = k->given_at != 0 &&
        k->given_at == kept->gifts;
    n_candidates++;
  }
  g_mutex_unlock (&self->lock);

  /* the taker of the pool given out last activated it: it let go of those
   * it had before */
  for (i = 0; i < n_candidates; i++) {
    if (candidates[i].last_given &&
        gst_buffer_pool_is_active (candidates[i].pool))
      moved_on = TRUE;
  }

  for (i = 0; i < n_candidates; i++) {
    Candidate *c = &candidates[i];

    if (moved_on && c->given_out && !c->last_given) {
      c->given_out = FALSE;
      /* left active by an element that let it go without deactivating
       * it (nvcodec's decoders at a new resolution): its idle buffers go
       * back to the cache instead of waiting there for nothing */
      if (gst_buffer_pool_is_active (c->pool)) {
        GST_DEBUG_OBJECT (owner, "kept %" GST_PTR_FORMAT " was left active "
            "by an element that let it go: deactivated", c->pool);
        gst_buffer_pool_set_active (c->pool, FALSE);
      }
    }
    if (pool)
      continue;
    if (gst_buffer_pool_is_active (c->pool)) {
      GST_LOG_OBJECT (owner, "kept %" GST_PTR_FORMAT " is active", c->pool);
    } else if (configure_pool (c->pool, stream, stream_ordered, caps,
            frame_size, min_buffers, max_buffers, size)) {
      pool = gst_object_ref (c->pool);
      GST_DEBUG_OBJECT (owner, "reconfigured kept %" GST_PTR_FORMAT
          " for %" GST_PTR_FORMAT, pool, caps);
    } else {
      GST_LOG_OBJECT (owner, "kept %" GST_PTR_FORMAT " still has buffers "
          "out", c->pool);
    }
  }

  if (!pool) {
    made = TRUE;
    pool = cuda_memory ? gst_cuda_cache_pool_new (context) :
        gst_cuda_cache_system_pool_new (NULL);
    if (!pool) {
      GST_WARNING_OBJECT (owner, "could not make a pool for caps %"
          GST_PTR_FORMAT, caps);
      set_refusal (reason, g_strdup ("no pool of the cache could be made "
              "for "), caps, " (see the cudacache* debug categories)");
    } else if (!configure_pool (pool, stream, stream_ordered, caps,
            frame_size, min_buffers, max_buffers, size)) {
      GST_WARNING_OBJECT (owner, "pool refused caps %" GST_PTR_FORMAT, caps);
      set_refusal (reason, g_strdup ("the cache's pool refused "), caps,
          " (see the cudacache* debug categories)");
      gst_clear_object (&pool);
    }
  }

  g_mutex_lock (&self->lock);
  kept_pools_release_candidates (kept, candidates, n_candidates);
  if (pool) {
    entry.pool = pool;
    entry.given_at = ++kept->gifts;
    entry.busy = FALSE;
    index = kept_pools_find (kept, pool);
    if (index >= 0) {
      /* the reference the list held stays the list's */
      memmove (&kept->pools[1], &kept->pools[0], index * sizeof (KeptPool));
      kept->pools[0] = entry;
    } else if (made && kept_pools_push_front (kept, &entry, dropped)) {
      gst_object_ref (pool);
      GST_DEBUG_OBJECT (owner, "new %" GST_PTR_FORMAT " for %" GST_PTR_FORMAT
          ", %u kept", pool, caps, kept->n_pools);
    }
  }
  g_mutex_unlock (&self->lock);

  for (i = 0; i < n_candidates; i++)
    gst_object_unref (candidates[i].pool);
  g_ptr_array_unref (dropped);

  return pool;
}
