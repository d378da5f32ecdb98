/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The pools an element keeps across renegotiations
 * (gstcudacachekeptpools.h), for GstCudaCacheBaseTransform: which one to
 * reconfigure for new caps, and when to make another. A pool nobody holds
 * active is reconfigured; an active one belongs to whoever activated it
 * (upstream, for the pool proposed to it) until that element lets it go,
 * and is never deactivated or reconfigured under it; one that element let
 * go still active (only the list holds it, no buffer of it out) is
 * deactivated and reused. GstBufferPool itself
 * refuses a pool whose buffers are still out, and the cache's pools
 * discard what a deferred stop left queued (docs/design.md,
 * "Renegotiation"). */

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
  GstBufferPool *pools[MAX_KEPT_POOLS]; /* most recently used first */
  guint n_pools;
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

static void
kept_pools_clear_one (KeptPools * kept)
{
  guint i;

  for (i = 0; i < kept->n_pools; i++)
    gst_clear_object (&kept->pools[i]);
  kept->n_pools = 0;
}

/* Lets go of every pool. */
void
gst_cuda_cache_kept_pools_clear (GstCudaCacheKeptPools * kept)
{
  guint side;

  g_mutex_lock (&kept->lock);
  for (side = 0; side < 2; side++) {
    kept_pools_clear_one (&kept->pools[side][FALSE]);
    kept_pools_clear_one (&kept->pools[side][TRUE]);
  }
  g_mutex_unlock (&kept->lock);
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
 * @stream's context. Fails without touching it if it is active or buffers
 * of it are still out, or if it refuses @caps.
 * Returns: whether @pool is now configured for @caps; @size: its buffers'
 * size, as the pool settled it */
static gboolean
configure_pool (GstBufferPool * pool, GstCudaCacheElementStream * stream,
    GstCaps * caps, gsize frame_size, guint min_buffers, guint max_buffers,
    guint * size)
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
  if (!gst_buffer_pool_set_config (pool, config))
    return FALSE;

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);

  return TRUE;
}

/* Moves the pool at @index to the front of @kept. */
static void
kept_pools_promote (KeptPools * kept, guint index)
{
  GstBufferPool *pool = kept->pools[index];

  memmove (&kept->pools[1], &kept->pools[0], index * sizeof (pool));
  kept->pools[0] = pool;
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

/* @context: the element's, for CUDA memory caps (%NULL where it has
 * none); @stream: the element's, for the memory of its output (the caller
 * keeps it alive for the call).
 * Returns: (transfer full) (nullable): one of @kept's pools for @side,
 * configured for @caps (a new one only when every kept pool is active or
 * still has buffers out), or %NULL if @caps are not a frame or a tensor or
 * the pool refuses them, with why in *@reason where given; @size: its
 * buffers' size, as the pool settled it */
GstBufferPool *
gst_cuda_cache_kept_pools_get (GstCudaCacheKeptPools * self,
    GstCudaCachePoolSide side, GstCaps * caps, GstCudaContext * context,
    GstCudaCacheElementStream * stream, guint min_buffers, guint max_buffers,
    guint * size, gchar ** reason)
{
  gboolean cuda_memory = gst_cuda_cache_caps_are_cuda (caps);
  gsize frame_size = caps_frame_size (caps);
  GstObject *owner = self->owner;
  GstBufferPool *pool = NULL;
  KeptPools *kept;
  guint i;

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
    return NULL;
  }
  if (cuda_memory && !context) {
    set_refusal (reason, g_strdup ("no CUDA context for "), caps, "");
    return NULL;
  }
  if (side != GST_CUDA_CACHE_POOL_OUTPUT)
    stream = NULL;

  g_mutex_lock (&self->lock);
  kept = &self->pools[side][cuda_memory];

  /* pools of an earlier context are no use to this one */
  for (i = 0; cuda_memory && i < kept->n_pools;) {
    if (GST_CUDA_BUFFER_POOL (kept->pools[i])->context != context) {
      gst_object_unref (kept->pools[i]);
      memmove (&kept->pools[i], &kept->pools[i + 1],
          (kept->n_pools - i - 1) * sizeof (pool));
      kept->n_pools--;
    } else {
      i++;
    }
  }

  /* least recently used first, and only pools nobody holds active */
  for (i = kept->n_pools; i > 0 && !pool; i--) {
    GstBufferPool *candidate = kept->pools[i - 1];

    /* left active by an element that let it go without deactivating it
     * (nvcodec's decoders on a new resolution): only this list holds it,
     * and no buffer of it is out (each holds its pool), so its idle
     * buffers go back to the cache instead of waiting there for nothing */
    if (gst_buffer_pool_is_active (candidate) &&
        GST_OBJECT_REFCOUNT_VALUE (candidate) == 1) {
      GST_DEBUG_OBJECT (owner, "kept %" GST_PTR_FORMAT " was left active "
          "by an element that let it go: deactivated", candidate);
      gst_buffer_pool_set_active (candidate, FALSE);
    }
    if (gst_buffer_pool_is_active (candidate)) {
      GST_LOG_OBJECT (owner, "kept %" GST_PTR_FORMAT " is active", candidate);
    } else if (configure_pool (candidate, stream, caps, frame_size,
            min_buffers, max_buffers, size)) {
      kept_pools_promote (kept, i - 1);
      pool = gst_object_ref (candidate);
      GST_DEBUG_OBJECT (owner, "reconfigured kept %" GST_PTR_FORMAT
          " for %" GST_PTR_FORMAT, pool, caps);
    } else {
      GST_LOG_OBJECT (owner, "kept %" GST_PTR_FORMAT " still has buffers "
          "out", candidate);
    }
  }

  if (!pool) {
    pool = cuda_memory ? gst_cuda_cache_pool_new (context) :
        gst_cuda_cache_system_pool_new (NULL);
    if (!configure_pool (pool, stream, caps, frame_size, min_buffers,
            max_buffers, size)) {
      GST_WARNING_OBJECT (owner, "pool refused caps %" GST_PTR_FORMAT, caps);
      set_refusal (reason, g_strdup ("the cache's pool refused "), caps,
          " (see the cudacache* debug categories)");
      gst_clear_object (&pool);
    } else {
      /* the least recently used pool, whose buffers are still out, goes */
      if (kept->n_pools == MAX_KEPT_POOLS)
        gst_object_unref (kept->pools[--kept->n_pools]);
      memmove (&kept->pools[1], &kept->pools[0], kept->n_pools * sizeof (pool));
      kept->pools[0] = gst_object_ref (pool);
      kept->n_pools++;
      GST_DEBUG_OBJECT (owner, "new %" GST_PTR_FORMAT " for %" GST_PTR_FORMAT
          ", %u kept", pool, caps, kept->n_pools);
    }
  }
  g_mutex_unlock (&self->lock);

  return pool;
}
