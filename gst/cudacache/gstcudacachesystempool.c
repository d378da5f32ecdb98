/* SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:gstcudacachesystempool
 * @title: GstCudaCacheSystemPool
 * @short_description: a system-memory video buffer pool over a #GstCudaCache
 *
 * A #GstVideoBufferPool whose memory comes from a #GstCudaCache, keyed by the
 * layout its caps define. When the pool is reconfigured, its buffers go back
 * to the cache; a later configuration with caps seen before gets them back
 * without allocating. Besides `video/x-raw` it takes tensor caps
 * (`other/tensors`, see #GstCudaCacheTensorInfo): one packed block per buffer,
 * described by a #GstCudaCacheTensorMeta.
 *
 * It is what pipelines without CUDA memory use, through the same cache
 * machinery as #GstCudaCachePool.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachesystempool.h"
#include "gstcudacache-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_system_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_system_pool_debug

struct _GstCudaCacheSystemPool
{
  GstVideoBufferPool parent;

  GstCudaCache *cache;

  /* set by set_config, read by alloc_buffer: GstBufferPool serialises them */
  GstCudaCacheLayout layout;
  GstAllocator *allocator;
  GstAllocationParams params;
  gsize size;
  gboolean add_videometa;
  gboolean need_alignment;
  GstVideoAlignment video_align;
  gchar *key;
};

#define gst_cuda_cache_system_pool_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheSystemPool, gst_cuda_cache_system_pool,
    GST_TYPE_VIDEO_BUFFER_POOL);

static void gst_cuda_cache_system_pool_dispose (GObject * object);
static void gst_cuda_cache_system_pool_finalize (GObject * object);
static gboolean gst_cuda_cache_system_pool_set_config (GstBufferPool * pool,
    GstStructure * config);
static GstFlowReturn gst_cuda_cache_system_pool_alloc_buffer (GstBufferPool *
    pool, GstBuffer ** buffer, GstBufferPoolAcquireParams * params);

static void
gst_cuda_cache_system_pool_class_init (GstCudaCacheSystemPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->dispose = gst_cuda_cache_system_pool_dispose;
  gobject_class->finalize = gst_cuda_cache_system_pool_finalize;

  pool_class->set_config = gst_cuda_cache_system_pool_set_config;
  pool_class->alloc_buffer = gst_cuda_cache_system_pool_alloc_buffer;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_system_pool_debug,
      "cudacachesystempool", 0, "CUDA cache: system-memory buffer pool");
}

static void
gst_cuda_cache_system_pool_init (GstCudaCacheSystemPool * self)
{
}

static gboolean
gst_cuda_cache_system_pool_set_tensor_config (GstCudaCacheSystemPool * self,
    GstStructure * config, GstCaps * caps, guint size, guint min_buffers,
    guint max_buffers)
{
  GstBufferPoolClass *base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);

  self->size = MAX (size, self->layout.tensor.size);
  self->add_videometa = FALSE;
  self->need_alignment = FALSE;
  gst_buffer_pool_config_set_params (config, caps, self->size, min_buffers,
      max_buffers);

  /* GstVideoBufferPool only knows video caps: skip it */
  return base_class->set_config (GST_BUFFER_POOL (self), config);
}

static gboolean
gst_cuda_cache_system_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstCudaCacheSystemPool *self = GST_CUDA_CACHE_SYSTEM_POOL (pool);
  GstVideoInfo *info = &self->layout.video;
  GstAllocator *allocator;
  GstCaps *caps;
  guint size, min_buffers, max_buffers;
  gboolean ret;
  gchar *prefix;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min_buffers,
          &max_buffers) || !caps) {
    GST_WARNING_OBJECT (self, "config without caps");
    return FALSE;
  }

  if (!gst_cuda_cache_layout_from_caps (&self->layout, caps)) {
    GST_WARNING_OBJECT (self, "caps are neither video nor a tensor: %"
        GST_PTR_FORMAT, caps);
    return FALSE;
  }

  if (self->layout.kind == GST_CUDA_CACHE_KIND_TENSOR) {
    ret = gst_cuda_cache_system_pool_set_tensor_config (self, config, caps,
        size, min_buffers, max_buffers);
  } else {
    ret = GST_BUFFER_POOL_CLASS (parent_class)->set_config (pool, config);
    /* GstVideoBufferPool may have aligned the layout and grown the size:
     * read back what it settled on */
    if (ret) {
      gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
      self->add_videometa = gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
      self->need_alignment = self->add_videometa &&
          gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
      if (self->need_alignment) {
        gst_buffer_pool_config_get_video_alignment (config, &self->video_align);
        gst_video_info_align (info, &self->video_align);
      }
      info->size = size;
      self->size = size;
    }
  }
  if (!ret)
    return FALSE;

  if (!gst_buffer_pool_config_get_allocator (config, &allocator, &self->params))
    return FALSE;
  gst_clear_object (&self->allocator);
  self->allocator = allocator ? gst_object_ref (allocator) : NULL;

  /* memory of another allocator or alignment is another layout */
  prefix = g_strdup_printf ("system:%s align=%" G_GSIZE_FORMAT " prefix=%"
      G_GSIZE_FORMAT " padding=%" G_GSIZE_FORMAT " bytes=%" G_GSIZE_FORMAT,
      allocator ? allocator->mem_type : GST_ALLOCATOR_SYSMEM,
      self->params.align, self->params.prefix, self->params.padding,
      self->size);
  g_free (self->key);
  self->key = gst_cuda_cache_layout_to_key (&self->layout, prefix);
  g_free (prefix);

  GST_DEBUG_OBJECT (self, "configured for \"%s\"", self->key);

  return TRUE;
}

static GstMemory *
gst_cuda_cache_system_pool_alloc_memory (gpointer user_data)
{
  GstCudaCacheSystemPool *self = user_data;

  return gst_allocator_alloc (self->allocator, self->size, &self->params);
}

static GstFlowReturn
gst_cuda_cache_system_pool_alloc_buffer (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  GstCudaCacheSystemPool *self = GST_CUDA_CACHE_SYSTEM_POOL (pool);
  GstVideoInfo *info = &self->layout.video;
  GstMemory *mem;
  GstBuffer *buf;

  mem = gst_cuda_cache_acquire (self->cache, self->key,
      gst_cuda_cache_system_pool_alloc_memory, self);
  if (!mem) {
    GST_ERROR_OBJECT (self, "could not allocate %" G_GSIZE_FORMAT " bytes "
        "of system memory for \"%s\" (cache limit %" G_GUINT64_FORMAT ")",
        self->size, self->key, gst_cuda_cache_get_limit (self->cache));
    return GST_FLOW_ERROR;
  }

  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);

  if (self->layout.kind == GST_CUDA_CACHE_KIND_TENSOR) {
    gst_buffer_add_cuda_cache_tensor_meta (buf, &self->layout.tensor);
  } else if (self->add_videometa) {
    GstVideoMeta *meta = gst_buffer_add_video_meta_full (buf,
        GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_N_PLANES (info), info->offset, info->stride);

    if (self->need_alignment)
      gst_video_meta_set_alignment (meta, self->video_align);
  }

  *buffer = buf;
  return GST_FLOW_OK;
}

static void
gst_cuda_cache_system_pool_dispose (GObject * object)
{
  GstCudaCacheSystemPool *self = GST_CUDA_CACHE_SYSTEM_POOL (object);

  gst_clear_object (&self->allocator);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_cuda_cache_system_pool_finalize (GObject * object)
{
  GstCudaCacheSystemPool *self = GST_CUDA_CACHE_SYSTEM_POOL (object);

  g_free (self->key);
  gst_clear_object (&self->cache);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/**
 * gst_cuda_cache_system_pool_new:
 * @cache: (nullable): the cache to take memory from; %NULL for the process's
 *     system-memory cache (gst_cuda_cache_get_system())
 *
 * Returns: (transfer full): a new #GstCudaCacheSystemPool
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cuda_cache_system_pool_new (GstCudaCache * cache)
{
  GstCudaCacheSystemPool *self;

  g_return_val_if_fail (cache == NULL || GST_IS_CUDA_CACHE (cache), NULL);

  self = g_object_new (GST_TYPE_CUDA_CACHE_SYSTEM_POOL, NULL);
  gst_object_ref_sink (self);
  self->cache = cache ? gst_object_ref (cache) : gst_cuda_cache_get_system ();

  return GST_BUFFER_POOL (self);
}

/**
 * gst_cuda_cache_system_pool_get_cache:
 * @pool: a #GstCudaCacheSystemPool
 *
 * Returns: (transfer full): the cache @pool takes its memory from
 *
 * Since: 0.1
 */
GstCudaCache *
gst_cuda_cache_system_pool_get_cache (GstCudaCacheSystemPool * pool)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE_SYSTEM_POOL (pool), NULL);

  return gst_object_ref (pool->cache);
}
