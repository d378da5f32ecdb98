/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

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

#include <stdlib.h>
#include <string.h>

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
  /* the allocator is GStreamer's system memory: allocate without aborting */
  gboolean try_sysmem;
  gsize size;
  gboolean add_videometa;
  gboolean need_alignment;
  GstVideoAlignment video_align;
  gchar *key;

  GstCudaCacheKnownLayouts known;
  /* start () calls in progress (gst_cuda_cache_pool_release ()) */
  gint starting;
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
static gboolean gst_cuda_cache_system_pool_start (GstBufferPool * pool);
static void gst_cuda_cache_system_pool_flush_start (GstBufferPool * pool);
static void gst_cuda_cache_system_pool_release_buffer (GstBufferPool * pool,
    GstBuffer * buffer);

static void
gst_cuda_cache_system_pool_class_init (GstCudaCacheSystemPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->dispose = gst_cuda_cache_system_pool_dispose;
  gobject_class->finalize = gst_cuda_cache_system_pool_finalize;

  pool_class->set_config = gst_cuda_cache_system_pool_set_config;
  pool_class->alloc_buffer = gst_cuda_cache_system_pool_alloc_buffer;
  pool_class->start = gst_cuda_cache_system_pool_start;
  pool_class->flush_start = gst_cuda_cache_system_pool_flush_start;
  pool_class->release_buffer = gst_cuda_cache_system_pool_release_buffer;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_system_pool_debug,
      "cudacachesystempool", 0, "CUDA cache: system-memory buffer pool");
}

static void
gst_cuda_cache_system_pool_init (GstCudaCacheSystemPool * self)
{
}

/* Every size that comes from caps is checked here, before anything is
 * allocated: a buffer pool's size is a guint, and a block larger than the
 * memory the cache allocates from can never be made. */
static gboolean
gst_cuda_cache_system_pool_check_size (GstCudaCacheSystemPool * self,
    gsize bytes)
{
  guint64 memory = gst_cuda_cache_get_device_memory (self->cache);

  if (bytes > G_MAXUINT) {
    GST_WARNING_OBJECT (self, "%" G_GSIZE_FORMAT " bytes per buffer is more "
        "than a buffer pool can hold (%u)", bytes, G_MAXUINT);
    return FALSE;
  }
  if (memory > 0 && bytes > memory) {
    GST_WARNING_OBJECT (self, "%" G_GSIZE_FORMAT " bytes per buffer is more "
        "than the %" G_GUINT64_FORMAT " bytes of memory the cache allocates "
        "from", bytes, memory);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_cache_system_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstCudaCacheSystemPool *self = GST_CUDA_CACHE_SYSTEM_POOL (pool);
  GstCudaCacheLayoutSignature sig;
  const GstCudaCacheKnownLayout *known;
  GstCudaCacheLayout layout;
  GstAllocationParams params;
  GstAllocator *allocator, *sysmem, *default_allocator;
  GstVideoAlignment video_align;
  gboolean add_videometa = FALSE, need_alignment = FALSE, ret;
  GstCaps *caps;
  guint size, min_buffers, max_buffers;
  gsize bytes;
  gchar *key;

  gst_cuda_cache_pool_discard_queued (pool, GST_BUFFER_POOL_CLASS
      (parent_class));

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min_buffers,
          &max_buffers))
    goto wrong_config;
  if (!caps)
    goto no_caps;
  if (!gst_cuda_cache_layout_from_caps (&layout, caps))
    goto wrong_caps;

  bytes = layout.kind == GST_CUDA_CACHE_KIND_TENSOR ? layout.tensor.size :
      GST_VIDEO_INFO_SIZE (&layout.video);
  if (!gst_cuda_cache_system_pool_check_size (self, MAX (bytes, size)))
    return FALSE;

  /* the caps stay alive in the config while it is rewritten */
  gst_caps_ref (caps);
  if (layout.kind == GST_CUDA_CACHE_KIND_TENSOR) {
    GstCaps *stand_in = gst_caps_new_simple ("video/x-raw",
        "format", G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT, 1,
        "height", G_TYPE_INT, 1, NULL);

    /* GstVideoBufferPool only knows video caps. It allocates nothing in
     * set_config: show it a 1x1 image with the tensor's size, and it keeps
     * that size for GstBufferPool, then give the config its caps back. */
    gst_buffer_pool_config_set_params (config, stand_in,
        MAX (MAX (size, bytes), 4), min_buffers, max_buffers);
    gst_caps_unref (stand_in);
    ret = GST_BUFFER_POOL_CLASS (parent_class)->set_config (pool, config);
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_buffer_pool_config_set_params (config, caps, size, min_buffers,
        max_buffers);
  } else {
    ret = GST_BUFFER_POOL_CLASS (parent_class)->set_config (pool, config);
    /* GstVideoBufferPool may have aligned the layout and grown the size:
     * read back what it settled on */
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    add_videometa = gst_buffer_pool_config_has_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    need_alignment = add_videometa &&
        gst_buffer_pool_config_has_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    if (ret && need_alignment) {
      gst_buffer_pool_config_get_video_alignment (config, &video_align);
      gst_video_info_align (&layout.video, &video_align);
    }
    layout.video.size = size;
  }
  gst_caps_unref (caps);
  if (!ret)
    return FALSE;

  /* the parent may have raised the alignment */
  if (!gst_buffer_pool_config_get_allocator (config, &allocator, &params))
    goto wrong_config;

  gst_cuda_cache_layout_get_signature (&layout, &sig);
  sig.allocator = allocator;
  sig.align = params.align;
  sig.prefix = params.prefix;
  sig.padding = params.padding;
  sig.bytes = size;
  known = gst_cuda_cache_known_layouts_lookup (&self->known, &sig);
  if (!known) {
    /* memory of another allocator or alignment is another layout */
    gchar *prefix = g_strdup_printf ("system:%s align=%" G_GSIZE_FORMAT
        " prefix=%" G_GSIZE_FORMAT " padding=%" G_GSIZE_FORMAT " bytes=%u",
        allocator ? allocator->mem_type : GST_ALLOCATOR_SYSMEM,
        params.align, params.prefix, params.padding, size);

    key = gst_cuda_cache_layout_to_key (&layout, prefix);
    g_free (prefix);
    known = gst_cuda_cache_known_layouts_add (&self->known, &sig, key, size);
    g_free (key);
  }

  /* commit */
  sysmem = gst_allocator_find (GST_ALLOCATOR_SYSMEM);
  default_allocator = allocator ? NULL : gst_allocator_find (NULL);
  self->try_sysmem = (allocator ? allocator : default_allocator) == sysmem;
  gst_clear_object (&default_allocator);
  gst_clear_object (&sysmem);
  gst_object_replace ((GstObject **) & self->allocator,
      (GstObject *) allocator);
  self->params = params;
  self->layout = layout;
  self->size = size;
  self->add_videometa = add_videometa;
  self->need_alignment = need_alignment;
  if (need_alignment)
    self->video_align = video_align;
  g_free (self->key);
  self->key = g_strdup (known->key);

  GST_DEBUG_OBJECT (self, "configured for \"%s\"", self->key);

  return TRUE;

  /* ERRORS */
wrong_config:
  {
    GST_WARNING_OBJECT (self, "invalid config");
    return FALSE;
  }
no_caps:
  {
    GST_WARNING_OBJECT (self, "config without caps");
    return FALSE;
  }
wrong_caps:
  {
    GST_WARNING_OBJECT (self, "caps are neither video nor a tensor: %"
        GST_PTR_FORMAT, caps);
    return FALSE;
  }
}

/* GStreamer's system allocator aborts when malloc fails; this returns NULL,
 * so that the cache can free its idle blocks and retry, and the pool can
 * fail with an error instead of taking the process down. */
static GstMemory *
gst_cuda_cache_system_pool_try_alloc_sysmem (gsize size,
    const GstAllocationParams * params)
{
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize;
  guint8 *data;

  if (size > G_MAXSIZE - params->prefix - params->padding)
    return NULL;
  maxsize = params->prefix + size + params->padding;

  if (posix_memalign ((gpointer *) & data, MAX (align + 1, sizeof (gpointer)),
          maxsize) != 0)
    return NULL;

  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (data + params->prefix + size, 0, params->padding);

  return gst_memory_new_wrapped (params->flags, data, maxsize, params->prefix,
      size, data, free);
}

static GstMemory *
gst_cuda_cache_system_pool_alloc_memory (gpointer user_data)
{
  GstCudaCacheSystemPool *self = user_data;

  if (self->try_sysmem)
    return gst_cuda_cache_system_pool_try_alloc_sysmem (self->size,
        &self->params);

  return gst_allocator_alloc (self->allocator, self->size, &self->params);
}

static gboolean
gst_cuda_cache_system_pool_start (GstBufferPool * pool)
{
  return gst_cuda_cache_pool_start_counted (pool,
      &GST_CUDA_CACHE_SYSTEM_POOL (pool)->starting,
      GST_BUFFER_POOL_CLASS (parent_class));
}

/* A flushing pool hands out nothing until flush_stop: its idle buffers
 * go back to the cache, idle there. GstBufferPool flushes a pool it
 * deactivates with buffers still out and stops it only when the last one
 * comes back, which a sink's last sample puts off for as long as the
 * pipeline lives: until then every idle buffer of the pool would stay in
 * use. After a flush_stop the pool takes blocks from the cache again. */
static void
gst_cuda_cache_system_pool_flush_start (GstBufferPool * pool)
{
  gst_cuda_cache_pool_discard_queued (pool, GST_BUFFER_POOL_CLASS
      (parent_class));
}

static void
gst_cuda_cache_system_pool_release_buffer (GstBufferPool * pool,
    GstBuffer * buffer)
{
  gst_cuda_cache_pool_release (pool, buffer,
      &GST_CUDA_CACHE_SYSTEM_POOL (pool)->starting,
      GST_BUFFER_POOL_CLASS (parent_class));
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
    gchar *why = gst_cuda_cache_describe_out_of_memory (self->cache,
        self->size, self->key);

    GST_ERROR_OBJECT (self, "out of system memory: %s", why);
    g_free (why);
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
  gst_cuda_cache_known_layouts_clear (&self->known);
  gst_clear_object (&self->cache);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/**
 * gst_cuda_cache_system_pool_new:
 * @cache: (nullable): the cache to take memory from; %NULL for the process's
 *     system-memory cache (gst_cuda_cache_get_system())
 *
 * Makes a buffer pool of system memory over a cache: an application that
 * allocates frames or tensors itself (for appsrc, say) uses it so that their
 * memory is kept across caps changes as the elements' is.
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
 * Gives an application the cache a #GstCudaCacheSystemPool takes its memory
 * from, to read its statistics or set its limit.
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
