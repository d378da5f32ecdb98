/* SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:gstcudacachepool
 * @title: GstCudaCachePool
 * @short_description: a #GstCudaBufferPool over its device's #GstCudaCache
 *
 * A subclass of gst-cuda's #GstCudaBufferPool, so that nvcodec's elements
 * (`cudaupload`, `cudadownload`, the NVDEC decoders) take it when it is
 * proposed to them. It hands out real #GstCudaMemory, made by gst-cuda's
 * allocator and recycled through the device's cache: when the pool is
 * reconfigured, set inactive or freed, its memory goes back to the cache,
 * and caps seen before get it back without a device allocation.
 *
 * Caps with the `memory:CUDAMemory` feature make either
 *
 * - an *image* (`video/x-raw`): pitched planes, laid out exactly as
 *   #GstCudaBufferPool lays them out, with a #GstVideoMeta; or
 * - a *tensor* (`other/tensors`, see #GstCudaCacheTensorInfo): one packed,
 *   contiguous block, described by a #GstCudaCacheTensorMeta. Its device pointer
 *   is what gst_memory_map() with %GST_MAP_CUDA returns. The buffer's size
 *   is the tensor's size rounded up to 4 bytes.
 *
 * Configuring the pool does not allocate a throw-away block, as
 * #GstCudaBufferPool does: the block it looks at to learn the layout stays
 * in the cache for the pool's first buffer.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacachepool.h"
#include "gstcudacachedevice.h"
#include "gstcudacache-private.h"

#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_pool_debug

#define CONFIG_FIELD_CACHE "GstCudaCachePool.cache"

struct _GstCudaCachePoolPrivate
{
  GstCudaCache *cache;
  GstCudaAllocator *allocator;

  /* set by set_config, read by alloc_buffer: GstBufferPool serialises them */
  GstCudaCacheLayout layout;
  GstVideoInfo alloc_info;
  gsize tensor_bytes;
  gchar *key;

  /* layouts this pool was configured for, most recent first: their keys
   * and block sizes, so that a switch back builds no key and probes no
   * block (KnownLayout) */
  GQueue known;
};

/* Renegotiating to a layout seen before costs a memcmp per entry. */
#define MAX_KNOWN_LAYOUTS 32

typedef struct
{
  GstCudaCacheLayoutSignature sig;
  gchar *key;
  gsize mem_size;
} KnownLayout;

static void
known_layout_free (KnownLayout * known)
{
  g_free (known->key);
  g_free (known);
}

#define gst_cuda_cache_pool_parent_class parent_class
G_DEFINE_TYPE_WITH_PRIVATE (GstCudaCachePool, gst_cuda_cache_pool,
    GST_TYPE_CUDA_BUFFER_POOL);

static void gst_cuda_cache_pool_dispose (GObject * object);
static void gst_cuda_cache_pool_finalize (GObject * object);
static gboolean gst_cuda_cache_pool_set_config (GstBufferPool * pool,
    GstStructure * config);
static GstFlowReturn gst_cuda_cache_pool_alloc_buffer (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params);

static gboolean gst_cuda_cache_pool_start (GstBufferPool * pool);

static void
gst_cuda_cache_pool_class_init (GstCudaCachePoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->dispose = gst_cuda_cache_pool_dispose;
  gobject_class->finalize = gst_cuda_cache_pool_finalize;

  pool_class->set_config = gst_cuda_cache_pool_set_config;
  pool_class->start = gst_cuda_cache_pool_start;
  pool_class->alloc_buffer = gst_cuda_cache_pool_alloc_buffer;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_pool_debug, "cudacachepool", 0,
      "CUDA cache: CUDA buffer pool");
}

static void
gst_cuda_cache_pool_init (GstCudaCachePool * self)
{
  self->priv = gst_cuda_cache_pool_get_instance_private (self);
}

/* The formats GStreamer 1.22's CUDA allocator lays out; it aborts on others */
static gboolean
gst_cuda_cache_pool_format_supported (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_I422_12LE:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_Y444_16LE:
    case GST_VIDEO_FORMAT_RGBP:
    case GST_VIDEO_FORMAT_BGRP:
    case GST_VIDEO_FORMAT_GBR:
    case GST_VIDEO_FORMAT_GBRA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
    case GST_VIDEO_FORMAT_RGB10A2_LE:
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      return TRUE;
    default:
      return FALSE;
  }
}

static GstMemory *
gst_cuda_cache_pool_alloc_memory (gpointer user_data)
{
  GstCudaCachePool *self = user_data;
  GstCudaCachePoolPrivate *priv = self->priv;
  GstMemory *mem;

  mem = gst_cuda_allocator_alloc (priv->allocator,
      GST_CUDA_BUFFER_POOL (self)->context, &priv->alloc_info);
  /* a tensor is one row: its size is the row, never the pitch past it */
  if (mem && priv->layout.kind == GST_CUDA_CACHE_KIND_TENSOR)
    gst_memory_resize (mem, 0, priv->layout.tensor.size);

  return mem;
}

/* The cache already freed every idle block and retried once. */
static void
gst_cuda_cache_pool_log_out_of_memory (GstCudaCachePool * self)
{
  GstCudaCachePoolPrivate *priv = self->priv;
  GstCudaCacheStats stats;
  gsize bytes = priv->layout.kind == GST_CUDA_CACHE_KIND_TENSOR ?
      priv->layout.tensor.size : GST_VIDEO_INFO_SIZE (&priv->alloc_info);

  gst_cuda_cache_get_stats (priv->cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  GST_ERROR_OBJECT (self, "out of device memory: asked for %" G_GSIZE_FORMAT
      " bytes (\"%s\"); cache limit %" G_GUINT64_FORMAT " bytes, cache size %"
      G_GUINT64_FORMAT " bytes (%" G_GUINT64_FORMAT " in use)", bytes,
      priv->key, stats.limit_bytes, stats.current_size, stats.used_bytes);
}

static gboolean
gst_cuda_cache_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstCudaCachePool *self = GST_CUDA_CACHE_POOL (pool);
  GstCudaCachePoolPrivate *priv = self->priv;
  GstCudaContext *context = GST_CUDA_BUFFER_POOL (self)->context;
  GstBufferPoolClass *base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);
  GstCudaCache *cache = NULL;
  GstCudaCacheLayoutSignature sig;
  KnownLayout *known;
  GstCaps *caps;
  GstMemory *mem;
  GList *l;
  guint min_buffers, max_buffers;

  if (!gst_buffer_pool_config_get_params (config, &caps, NULL, &min_buffers,
          &max_buffers) || !caps) {
    GST_WARNING_OBJECT (self, "config without caps");
    return FALSE;
  }

  if (!gst_cuda_cache_layout_from_caps (&priv->layout, caps)) {
    GST_WARNING_OBJECT (self, "caps are neither video nor a tensor: %"
        GST_PTR_FORMAT, caps);
    return FALSE;
  }

  if (priv->layout.kind == GST_CUDA_CACHE_KIND_TENSOR) {
    gsize row = GST_ROUND_UP_4 (priv->layout.tensor.size);

    if (row / 4 > G_MAXINT / 4) {
      GST_WARNING_OBJECT (self, "tensor of %" G_GSIZE_FORMAT " bytes is "
          "larger than one CUDA allocation can be", priv->layout.tensor.size);
      return FALSE;
    }
    gst_video_info_set_format (&priv->alloc_info, GST_VIDEO_FORMAT_RGBA,
        row / 4, 1);
  } else {
    if (!gst_cuda_cache_pool_format_supported (GST_VIDEO_INFO_FORMAT
            (&priv->layout.video))) {
      GST_WARNING_OBJECT (self, "format %s is not one the CUDA allocator "
          "supports", GST_VIDEO_INFO_NAME (&priv->layout.video));
      return FALSE;
    }
    priv->alloc_info = priv->layout.video;
  }

  if (gst_buffer_pool_config_get_cuda_cache (config, &cache)) {
    if (cache != priv->cache) {
      /* sizes learned from another cache's blocks still hold, but keep it
       * simple: start over */
      g_queue_clear_full (&priv->known, (GDestroyNotify) known_layout_free);
      gst_object_replace ((GstObject **) & priv->cache, GST_OBJECT (cache));
    }
    gst_object_unref (cache);
  }

  gst_cuda_cache_layout_get_signature (&priv->layout, &sig);
  for (l = priv->known.head; l; l = l->next) {
    if (memcmp (&((KnownLayout *) l->data)->sig, &sig, sizeof (sig)) == 0)
      break;
  }

  if (l) {
    known = l->data;
    g_queue_unlink (&priv->known, l);
    g_queue_push_head_link (&priv->known, l);
  } else {
    gchar *prefix, *key;

    /* blocks of two contexts never mix, even on one device */
    prefix = g_strdup_printf ("cuda:%p", context);
    key = gst_cuda_cache_layout_to_key (&priv->layout, prefix);
    g_free (prefix);

    /* learn the pitched size from a real block; it stays in the cache */
    g_free (priv->key);
    priv->key = key;
    mem = gst_cuda_cache_acquire (priv->cache, key,
        gst_cuda_cache_pool_alloc_memory, self);
    if (!mem) {
      gst_cuda_cache_pool_log_out_of_memory (self);
      return FALSE;
    }

    known = g_new0 (KnownLayout, 1);
    known->sig = sig;
    known->key = g_strdup (key);
    known->mem_size = mem->size;
    gst_memory_unref (mem);
    g_queue_push_head (&priv->known, known);
    if (priv->known.length > MAX_KNOWN_LAYOUTS)
      known_layout_free (g_queue_pop_tail (&priv->known));
  }

  if (priv->key != known->key && g_strcmp0 (priv->key, known->key) != 0) {
    g_free (priv->key);
    priv->key = g_strdup (known->key);
  }
  gst_buffer_pool_config_set_params (config, caps, known->mem_size,
      min_buffers, max_buffers);

  GST_DEBUG_OBJECT (self, "configured for \"%s\"", priv->key);

  /* GstCudaBufferPool's set_config would allocate and free a block */
  return base_class->set_config (pool, config);
}

/* GstBufferPool keeps the buffers it preallocated when a later one fails;
 * give them back at once, so a failed activation holds no device memory. */
static gboolean
gst_cuda_cache_pool_start (GstBufferPool * pool)
{
  GstBufferPoolClass *base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);

  if (GST_BUFFER_POOL_CLASS (parent_class)->start (pool))
    return TRUE;

  GST_WARNING_OBJECT (pool, "activation failed: releasing the buffers "
      "allocated so far");
  base_class->stop (pool);
  return FALSE;
}

static GstFlowReturn
gst_cuda_cache_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCudaCachePool *self = GST_CUDA_CACHE_POOL (pool);
  GstCudaCachePoolPrivate *priv = self->priv;
  GstCudaMemory *cmem;
  GstMemory *mem;
  GstBuffer *buf;

  mem = gst_cuda_cache_acquire (priv->cache, priv->key,
      gst_cuda_cache_pool_alloc_memory, self);
  if (!mem) {
    gst_cuda_cache_pool_log_out_of_memory (self);
    return GST_FLOW_ERROR;
  }

  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);

  if (priv->layout.kind == GST_CUDA_CACHE_KIND_TENSOR) {
    gst_buffer_add_cuda_cache_tensor_meta (buf, &priv->layout.tensor);
  } else {
    const GstVideoInfo *info = &priv->layout.video;

    cmem = GST_CUDA_MEMORY_CAST (mem);
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
        cmem->info.offset, cmem->info.stride);
  }

  *buffer = buf;
  return GST_FLOW_OK;
}

static void
gst_cuda_cache_pool_dispose (GObject * object)
{
  GstCudaCachePool *self = GST_CUDA_CACHE_POOL (object);

  gst_clear_object (&self->priv->allocator);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_cuda_cache_pool_finalize (GObject * object)
{
  GstCudaCachePool *self = GST_CUDA_CACHE_POOL (object);

  g_free (self->priv->key);
  g_queue_clear_full (&self->priv->known, (GDestroyNotify) known_layout_free);
  gst_clear_object (&self->priv->cache);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/**
 * gst_cuda_cache_pool_new:
 * @context: the #GstCudaContext the memory belongs to
 *
 * Makes a pool over the cache of @context's device
 * (gst_cuda_cache_device_get_cache()), unless its config names another
 * (gst_buffer_pool_config_set_cuda_cache()).
 *
 * Returns: (transfer full) (nullable): a new #GstCudaCachePool, or %NULL if
 *     gst-cuda's allocator is unavailable
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cuda_cache_pool_new (GstCudaContext * context)
{
  GstCudaCachePool *self;
  GstAllocator *allocator;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  gst_cuda_memory_init_once ();
  allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  if (!allocator) {
    GST_ERROR ("the CUDA allocator is unavailable");
    return NULL;
  }

  self = g_object_new (GST_TYPE_CUDA_CACHE_POOL, NULL);
  gst_object_ref_sink (self);
  GST_CUDA_BUFFER_POOL (self)->context = gst_object_ref (context);
  self->priv->allocator = GST_CUDA_ALLOCATOR (allocator);
  self->priv->cache = gst_cuda_cache_device_get_cache (context);

  return GST_BUFFER_POOL (self);
}

/**
 * gst_cuda_cache_pool_get_cache:
 * @pool: a #GstCudaCachePool
 *
 * Returns: (transfer full): the cache @pool takes its memory from
 *
 * Since: 0.1
 */
GstCudaCache *
gst_cuda_cache_pool_get_cache (GstCudaCachePool * pool)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE_POOL (pool), NULL);

  return gst_object_ref (pool->priv->cache);
}

/**
 * gst_buffer_pool_config_set_cuda_cache:
 * @config: a #GstBufferPool configuration
 * @cache: the #GstCudaCache a #GstCudaCachePool should take memory from
 *
 * Chooses another cache than the device's, for instance a private one with
 * a limit of its own.
 *
 * Since: 0.1
 */
void
gst_buffer_pool_config_set_cuda_cache (GstStructure * config,
    GstCudaCache * cache)
{
  g_return_if_fail (config != NULL);
  g_return_if_fail (GST_IS_CUDA_CACHE (cache));

  gst_structure_set (config, CONFIG_FIELD_CACHE, GST_TYPE_CUDA_CACHE, cache,
      NULL);
}

/**
 * gst_buffer_pool_config_get_cuda_cache:
 * @config: a #GstBufferPool configuration
 * @cache: (out) (transfer full): the cache the config names
 *
 * Returns: %TRUE if @config names a cache
 *
 * Since: 0.1
 */
gboolean
gst_buffer_pool_config_get_cuda_cache (GstStructure * config,
    GstCudaCache ** cache)
{
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (cache != NULL, FALSE);

  *cache = NULL;
  return gst_structure_get (config, CONFIG_FIELD_CACHE, GST_TYPE_CUDA_CACHE,
      cache, NULL) && *cache != NULL;
}
