/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

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
 *   is the tensor's size in bytes, odd sizes included, and a CPU map reads
 *   and writes exactly those bytes.
 *
 * Configuring the pool does not allocate a throw-away block, as
 * #GstCudaBufferPool does: the block it looks at to learn the layout stays
 * in the cache for the pool's first buffer, and a layout the pool was
 * configured for before needs no block at all.
 *
 * With GStreamer 1.24 and later, a config may name the #GstCudaStream its
 * memory is allocated on (gst_buffer_pool_config_set_cuda_stream(), marked
 * as the stream of the pool's writer with
 * %GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM, as the plugin's elements do): a
 * memory keeps its stream for life, so blocks of one stream are kept apart
 * from those of another (the stream is part of their key) and a user only
 * ever gets blocks of its own stream, or of none. An unmarked stream (an
 * upstream writer's, such as nvh264dec's) is carried by the memory handed
 * out instead, over blocks of no stream.
 *
 * Its blocks are made as the cache's gst_cuda_cache_set_alloc_method()
 * says, unless the config sets #GstCudaBufferPool's
 * "cuda-stream-ordered-alloc" (GStreamer 1.26's
 * `gst_buffer_pool_config_set_cuda_stream_ordered_alloc ()`): %FALSE gets
 * `cuMemAllocPitch` blocks whatever the cache's method, as a consumer of
 * legacy CUDA IPC needs, %TRUE stream-ordered ones. A config asking for
 * MMAP memory ("cuda-alloc-method"), a stream-ordered allocation against
 * GStreamer 1.22, or an option other than
 * %GST_BUFFER_POOL_OPTION_VIDEO_META is refused, and left as the pool would
 * take it, for the caller to read back and set again.
 *
 * Blocks of different #GstCudaContext never mix, even on one device: each
 * pool is a user of its context's group in the cache
 * (gst_cuda_cache_group_add_user()) for as long as it lives. When the last
 * pool of a context is gone, the context's idle blocks are freed, and with
 * them the references they held on the context.
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
#include "gstcudacache-compat-private.h"
#include "gstcudacachestreamordered-private.h"
#include "gstcudacachesystempool.h"

#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_pool_debug

#define CONFIG_FIELD_CACHE "GstCudaCachePool.cache"

struct _GstCudaCachePoolPrivate
{
  GstCudaCache *cache;
  GstCudaAllocator *allocator;
  /* the cache group of the pool's context: the pool is one of its users
   * from creation to finalize, so that the context's idle blocks go with
   * its last pool */
  gchar *group;

  /* set by set_config, read by alloc_buffer: GstBufferPool serialises them */
  GstCudaCacheLayout layout;
  GstVideoInfo alloc_info;
  gchar *key;
  /* 1.24+: the stream the config asked for, which every block keeps */
  GstCudaCacheStream *stream;
  /* 1.24+: the stream of a writer from outside the project that the
   * config names (gst_cuda_cache_compat_config_get_foreign_stream ()):
   * the memory handed out carries it, the blocks do not */
  GstCudaCacheStream *foreign_stream;
  GstCudaCacheAllocMethod method;

  GstCudaCacheKnownLayouts known;
  /* start () calls in progress (gst_cuda_cache_pool_release ()) */
  gint starting;
};

/* What a configuration asks for, parsed before anything is committed. */
typedef struct
{
  GstCudaCacheLayout layout;
  GstVideoInfo alloc_info;
  GstCudaCacheStream *stream;
  GstCudaCacheAllocMethod method;
  /* transfer none: the cache the blocks come from */
  GstCudaCache *cache;
} GstCudaCachePoolSpec;

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
static gboolean gst_cuda_cache_pool_stop (GstBufferPool * pool);
static void gst_cuda_cache_pool_flush_start (GstBufferPool * pool);
static void gst_cuda_cache_pool_release_buffer (GstBufferPool * pool,
    GstBuffer * buffer);

static void
gst_cuda_cache_pool_class_init (GstCudaCachePoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->dispose = gst_cuda_cache_pool_dispose;
  gobject_class->finalize = gst_cuda_cache_pool_finalize;

  pool_class->set_config = gst_cuda_cache_pool_set_config;
  pool_class->start = gst_cuda_cache_pool_start;
  pool_class->stop = gst_cuda_cache_pool_stop;
  pool_class->flush_start = gst_cuda_cache_pool_flush_start;
  pool_class->release_buffer = gst_cuda_cache_pool_release_buffer;
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
  return gst_cuda_cache_format_in_list (format, GST_CUDA_CACHE_POOL_FORMATS);
}

static GstMemory *
gst_cuda_cache_pool_alloc_spec (GstCudaCachePool * self,
    const GstCudaCachePoolSpec * spec)
{
  GstCudaContext *context = GST_CUDA_BUFFER_POOL (self)->context;
  GstMemory *mem;

  if (spec->method == GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED)
    mem = gst_cuda_cache_stream_ordered_alloc
        (gst_cuda_cache_get_stream_ordered (spec->cache),
        self->priv->allocator, context, spec->stream, &spec->alloc_info);
  else
    mem = gst_cuda_cache_compat_alloc (self->priv->allocator, context,
        spec->stream, &spec->alloc_info);
  /* a tensor is one row: its size is the row, never the pitch past it */
  if (mem && spec->layout.kind == GST_CUDA_CACHE_KIND_TENSOR)
    gst_memory_resize (mem, 0, spec->layout.tensor.size);

  return mem;
}

typedef struct
{
  GstCudaCachePool *self;
  const GstCudaCachePoolSpec *spec;
} GstCudaCachePoolAllocData;

static GstMemory *
gst_cuda_cache_pool_alloc_memory (gpointer user_data)
{
  GstCudaCachePoolAllocData *data = user_data;

  return gst_cuda_cache_pool_alloc_spec (data->self, data->spec);
}

static gsize
gst_cuda_cache_pool_spec_bytes (const GstCudaCachePoolSpec * spec)
{
  return spec->layout.kind == GST_CUDA_CACHE_KIND_TENSOR ?
      spec->layout.tensor.size : GST_VIDEO_INFO_SIZE (&spec->alloc_info);
}

/* Takes a block of @key in the pool's group. */
static GstMemory *
gst_cuda_cache_pool_acquire (GstCudaCachePool * self, GstCudaCache * cache,
    const gchar * key, const GstCudaCachePoolSpec * spec)
{
  GstCudaCachePoolAllocData data = { self, spec };
  GstMemory *mem;

  mem = gst_cuda_cache_acquire_in_group (cache, self->priv->group, key,
      gst_cuda_cache_pool_alloc_memory, &data);
  if (!mem) {
    gchar *why = gst_cuda_cache_describe_out_of_memory (cache,
        gst_cuda_cache_pool_spec_bytes (spec), key);

    GST_ERROR_OBJECT (self, "out of device memory: %s", why);
    g_free (why);
  }

  return mem;
}

/* A buffer pool's size is a guint. */
static gboolean
gst_cuda_cache_pool_check_size (GstCudaCachePool * self, gsize bytes)
{
  if (bytes > G_MAXUINT) {
    GST_WARNING_OBJECT (self, "%" G_GSIZE_FORMAT " bytes per buffer is more "
        "than a buffer pool can hold (%u)", bytes, G_MAXUINT);
    return FALSE;
  }
  return TRUE;
}

/* Fills @spec from @caps; FALSE, with the reason logged, if the pool cannot
 * make such blocks. Every size is checked before anything is allocated. */
static gboolean
gst_cuda_cache_pool_parse_caps (GstCudaCachePool * self, GstCaps * caps,
    GstCudaCachePoolSpec * spec)
{
  if (!gst_cuda_cache_layout_from_caps (&spec->layout, caps)) {
    GST_WARNING_OBJECT (self, "caps are neither video nor a tensor this "
        "pool can lay out: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }

  if (spec->layout.kind == GST_CUDA_CACHE_KIND_TENSOR) {
    gsize bytes = spec->layout.tensor.size;

    /* One row of exactly the tensor's bytes. gst-cuda copies a memory to
     * and from the host as rows of the width its info's stride[0] gave
     * (a gint), into a staging block of the memory's size: a row rounded
     * up past the tensor's bytes makes every CPU map of an odd-sized
     * tensor fail. The format only has to be one gst-cuda allocates. */
    if (bytes == 0 || bytes > G_MAXINT) {
      GST_WARNING_OBJECT (self, "tensor of %" G_GSIZE_FORMAT " bytes: a "
          "CUDA tensor holds 1 to %d bytes (GStreamer describes a CUDA "
          "row's bytes as a gint)", bytes, G_MAXINT);
      return FALSE;
    }
    if (!gst_video_info_set_format (&spec->alloc_info, GST_VIDEO_FORMAT_RGBA,
            GST_ROUND_UP_4 (bytes) / 4, 1)) {
      GST_WARNING_OBJECT (self, "tensor of %" G_GSIZE_FORMAT " bytes is "
          "larger than GStreamer lays out as one row of pixels", bytes);
      return FALSE;
    }
    spec->alloc_info.stride[0] = (gint) bytes;
    spec->alloc_info.size = bytes;
  } else {
    if (!gst_cuda_cache_pool_format_supported (GST_VIDEO_INFO_FORMAT
            (&spec->layout.video))) {
      GST_WARNING_OBJECT (self, "format %s is not one the CUDA allocator "
          "supports", GST_VIDEO_INFO_NAME (&spec->layout.video));
      return FALSE;
    }
    spec->alloc_info = spec->layout.video;
  }

  return gst_cuda_cache_pool_check_size (self,
      gst_cuda_cache_pool_spec_bytes (spec));
}

/* The cache key of @spec's blocks: its layout, how they are allocated,
 * and the stream they keep for life, if any. The stream's address is
 * unique for as long as the key is anywhere: each of its blocks holds the
 * stream, and so does the pool while its config names it; the cache drops
 * the key with its last block. */
static gchar *
gst_cuda_cache_pool_key (const GstCudaCachePoolSpec * spec)
{
  GString *key = g_string_new (NULL);
  gchar *layout_key;

  layout_key = gst_cuda_cache_layout_to_key (&spec->layout, "cuda");
  g_string_append (key, layout_key);
  g_free (layout_key);
  if (spec->method == GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED)
    g_string_append (key, GST_CUDA_CACHE_KEY_STREAM_ORDERED);
  if (spec->stream)
    g_string_append_printf (key, ",stream=%p", spec->stream);
  return g_string_free (key, FALSE);
}

/*
 * GstCudaBufferPool's set_config is not chained up to, on purpose. In
 * GStreamer 1.22 it allocates a block of the caps' size with the registered
 * CUDA allocator and frees it at once (cuMemFree synchronises the device),
 * overwrites the config's size from that block, and refuses tensor caps.
 * It has no hook through which its probe could come from the cache, and
 * any other caps given to it would leave GstBufferPool a wrong buffer size.
 * Its only state besides (its allocator and the video info of its own
 * alloc_buffer, which this pool replaces) is GstBufferPool's, which this
 * pool sets through GstBufferPool's set_config with the size learned from
 * a cached block, exactly as GstCudaBufferPool would have.
 *
 * Since 1.24 GstCudaBufferPool's set_config also makes a GstCudaPoolAllocator,
 * which its start and stop (de)activate and which recycles its memory with
 * a dispose hook of its own. This pool's memory has one owner of its
 * recycling, the cache: it never comes from that allocator, and
 * GstCudaBufferPool's start and stop, which would find no allocator, are
 * passed over for GstBufferPool's too.
 */
/* 1.24's GstCudaMemoryAllocMethod, read as a number: 1.22 has no type */
#define ALLOC_METHOD_MALLOC 1

/* GstCudaBufferPool's own config fields and options, read before anything
 * else: memory made by gst-cuda's allocator or a memory pool (1.24's
 * "cuda-alloc-method" unset, UNKNOWN or MALLOC), stream-ordered only where
 * this build makes it (1.26's "cuda-stream-ordered-alloc"; TRUE refused
 * against 1.22), and no option but the video meta. A config asking
 * otherwise is refused with why, and left as this pool would take it:
 * GstBufferPool keeps a refused config for its caller to read back, check
 * and set again. 1.24's "cuda-stream" is
 * gst_cuda_cache_compat_config_get_stream ()'s to read. */
static gboolean
gst_cuda_cache_pool_check_config (GstCudaCachePool * self,
    GstStructure * config)
{
  const GValue *value = gst_structure_get_value (config, "cuda-alloc-method");
  gboolean ok = TRUE, stream_ordered = FALSE;
  GPtrArray *options;
  guint i, n;

  if (value && G_VALUE_HOLDS_ENUM (value) &&
      g_value_get_enum (value) > ALLOC_METHOD_MALLOC) {
    GValue malloc_method = G_VALUE_INIT;

    GST_WARNING_OBJECT (self, "cuda-alloc-method %d refused: the cache's "
        "blocks are made with cuMemAllocPitch (MALLOC)",
        g_value_get_enum (value));
    g_value_init (&malloc_method, G_VALUE_TYPE (value));
    g_value_set_enum (&malloc_method, ALLOC_METHOD_MALLOC);
    gst_structure_take_value (config, "cuda-alloc-method", &malloc_method);
    ok = FALSE;
  }
  if (gst_structure_get_boolean (config, "cuda-stream-ordered-alloc",
          &stream_ordered) && stream_ordered) {
    GError *error = NULL;

    if (!gst_cuda_cache_stream_ordered_supported (&error)) {
      GST_WARNING_OBJECT (self, "cuda-stream-ordered-alloc refused: %s",
          error->message);
      g_clear_error (&error);
      gst_structure_set (config, "cuda-stream-ordered-alloc", G_TYPE_BOOLEAN,
          FALSE, NULL);
      ok = FALSE;
    }
  }

  options = g_ptr_array_new_with_free_func (g_free);
  n = gst_buffer_pool_config_n_options (config);
  for (i = 0; i < n; i++) {
    const gchar *option = gst_buffer_pool_config_get_option (config, i);

    if (g_strcmp0 (option, GST_BUFFER_POOL_OPTION_VIDEO_META) == 0) {
      g_ptr_array_add (options, g_strdup (option));
    } else {
      GST_WARNING_OBJECT (self, "option %s refused: not one this pool has",
          option);
      ok = FALSE;
    }
  }
  if (!ok) {
    gst_structure_remove_field (config, "options");
    for (i = 0; i < options->len; i++)
      gst_buffer_pool_config_add_option (config, options->pdata[i]);
  }
  g_ptr_array_unref (options);

  return ok;
}

static GstBufferPoolClass *
gst_cuda_cache_pool_buffer_pool_class (void)
{
  return GST_BUFFER_POOL_CLASS (g_type_class_peek_parent (parent_class));
}

static gboolean
gst_cuda_cache_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstCudaCachePool *self = GST_CUDA_CACHE_POOL (pool);
  GstCudaCachePoolPrivate *priv = self->priv;
  GstCudaCache *cache = NULL;
  GstCudaCacheLayoutSignature sig;
  const GstCudaCacheKnownLayout *known;
  GstCudaCachePoolSpec spec;
  gboolean new_cache, new_stream, stream_ordered;
  gchar *key = NULL;
  GstCaps *caps;
  guint min_buffers, max_buffers;
  gsize size;

  gst_cuda_cache_pool_discard_queued (pool,
      gst_cuda_cache_pool_buffer_pool_class ());

  if (!gst_cuda_cache_pool_check_config (self, config))
    goto refused_fields;
  if (!gst_buffer_pool_config_get_params (config, &caps, NULL, &min_buffers,
          &max_buffers))
    goto wrong_config;
  if (!caps)
    goto no_caps;
  if (!gst_cuda_cache_pool_parse_caps (self, caps, &spec))
    return FALSE;

  if (!gst_buffer_pool_config_get_cuda_cache (config, &cache))
    cache = gst_object_ref (priv->cache);
  new_cache = cache != priv->cache;
  spec.cache = cache;
  spec.stream = gst_cuda_cache_compat_config_get_stream (config);
  /* the config's method (a consumer of one kind of memory), else the
   * cache's */
  if (gst_structure_get_boolean (config, "cuda-stream-ordered-alloc",
          &stream_ordered))
    spec.method = stream_ordered ? GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED
        : GST_CUDA_CACHE_ALLOC_METHOD_MALLOC;
  else
    spec.method = gst_cuda_cache_get_alloc_method (cache);
  /* sizes learned are per key, and the key names the stream and the
   * method */
  new_stream = spec.stream != priv->stream || spec.method != priv->method;

  gst_cuda_cache_layout_get_signature (&spec.layout, &sig);
  known = new_cache || new_stream ? NULL :
      gst_cuda_cache_known_layouts_lookup (&priv->known, &sig);
  if (known) {
    key = g_strdup (known->key);
    size = known->size;
  } else {
    GstMemory *mem;

    /* blocks of two contexts never mix: the pool's group is its context */
    key = gst_cuda_cache_pool_key (&spec);
    if (new_cache)
      gst_cuda_cache_group_add_user (cache, priv->group);

    /* learn the pitched size from a real block; it stays in the cache */
    mem = gst_cuda_cache_pool_acquire (self, cache, key, &spec);
    if (!mem) {
      if (new_cache)
        gst_cuda_cache_group_remove_user (cache, priv->group);
      goto no_memory;
    }
    size = mem->size;
    gst_memory_unref (mem);
    /* the pitch may have grown it past what a pool can say */
    if (!gst_cuda_cache_pool_check_size (self, size)) {
      if (new_cache)
        gst_cuda_cache_group_remove_user (cache, priv->group);
      goto too_large;
    }
  }

  gst_buffer_pool_config_set_params (config, caps, size, min_buffers,
      max_buffers);
  if (!gst_cuda_cache_pool_buffer_pool_class ()->set_config (pool, config)) {
    if (new_cache)
      gst_cuda_cache_group_remove_user (cache, priv->group);
    goto base_refused;
  }

  /* commit */
  if (new_cache || new_stream) {
    /* sizes learned from another cache's blocks still hold, but keep it
     * simple: start over */
    gst_cuda_cache_known_layouts_clear (&priv->known);
  }
  if (new_cache) {
    gst_cuda_cache_group_remove_user (priv->cache, priv->group);
    gst_object_replace ((GstObject **) & priv->cache, GST_OBJECT (cache));
  }
  gst_cuda_cache_compat_stream_clear (&priv->stream);
  priv->stream = spec.stream;
  gst_cuda_cache_compat_stream_clear (&priv->foreign_stream);
  priv->foreign_stream =
      gst_cuda_cache_compat_config_get_foreign_stream (config);
  if (priv->foreign_stream &&
      gst_cuda_cache_compat_stream_get_context (priv->foreign_stream) !=
      GST_CUDA_BUFFER_POOL (self)->context)
    gst_cuda_cache_compat_stream_clear (&priv->foreign_stream);
  priv->method = spec.method;
  if (!known)
    gst_cuda_cache_known_layouts_add (&priv->known, &sig, key, size);
  priv->layout = spec.layout;
  priv->alloc_info = spec.alloc_info;
  g_free (priv->key);
  priv->key = key;
  gst_object_unref (cache);

  GST_DEBUG_OBJECT (self, "configured for \"%s\" in group %s, %"
      G_GSIZE_FORMAT " bytes per buffer", priv->key, priv->group, size);

  return TRUE;

  /* ERRORS */
refused_fields:
  {
    /* a refused config is GstBufferPool's to keep, for its caller to read
     * back: gst_buffer_pool_set_config () keeps it whatever the answer */
    return FALSE;
  }
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
no_memory:
too_large:
  {
    g_free (key);
    gst_object_unref (cache);
    gst_cuda_cache_compat_stream_clear (&spec.stream);
    return FALSE;
  }
base_refused:
  {
    GST_WARNING_OBJECT (self, "GstBufferPool refused the config");
    g_free (key);
    gst_object_unref (cache);
    gst_cuda_cache_compat_stream_clear (&spec.stream);
    return FALSE;
  }
}

/* GstBufferPool keeps the buffers it preallocated when a later one fails;
 * give them back at once, so a failed activation holds no device memory.
 * GstBufferPool's, not GstCudaBufferPool's: see set_config. */
static gboolean
gst_cuda_cache_pool_start (GstBufferPool * pool)
{
  GstBufferPoolClass *buffer_pool_class =
      gst_cuda_cache_pool_buffer_pool_class ();

  if (gst_cuda_cache_pool_start_counted (pool,
          &GST_CUDA_CACHE_POOL (pool)->priv->starting, buffer_pool_class))
    return TRUE;

  GST_WARNING_OBJECT (pool, "activation failed: releasing the buffers "
      "allocated so far");
  buffer_pool_class->stop (pool);
  return FALSE;
}

static gboolean
gst_cuda_cache_pool_stop (GstBufferPool * pool)
{
  return gst_cuda_cache_pool_buffer_pool_class ()->stop (pool);
}

/* A flushing pool hands out nothing until flush_stop: its idle buffers
 * go back to the cache (gstcudacachesystempool.c says why) */
static void
gst_cuda_cache_pool_flush_start (GstBufferPool * pool)
{
  gst_cuda_cache_pool_discard_queued (pool,
      gst_cuda_cache_pool_buffer_pool_class ());
}

static void
gst_cuda_cache_pool_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  gst_cuda_cache_pool_release (pool, buffer,
      &GST_CUDA_CACHE_POOL (pool)->priv->starting,
      gst_cuda_cache_pool_buffer_pool_class ());
}

/* @block (transfer full) as memory of @stream, a writer's from outside
 * the project (transfer full; NULL, with @block given back, where it
 * cannot be wrapped). Such a writer copies into the memory on its stream
 * and flags it GST_CUDA_MEMORY_TRANSFER_NEED_SYNC without waiting (1.24's
 * nvh264dec, cudaupload); readers then wait on the memory's stream
 * (gst_cuda_memory_sync ()), so the memory must carry the writer's. The
 * block keeps its key, which names no such stream, so that the context's
 * blocks stay shared by pipelines whose writers each have a stream of
 * their own: GstCudaMemory over the block's device memory carries the
 * stream instead, and gives the block back with its last reference, once
 * gst-cuda has waited for work still flagged on that stream (its free of
 * any memory of a stream does), so that a writer of another stream never
 * takes a block still being written. Always the block itself before
 * 1.24. */
static GstMemory *
gst_cuda_cache_pool_wrap_on_stream (GstCudaCachePool * self, GstMemory * block,
    GstCudaCacheStream * stream)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (block);
  GstMemory *mem = NULL;
  GstMapInfo map;

  if (gst_memory_map (block, &map, GST_MAP_READ | GST_MAP_CUDA)) {
    /* the blocks' allocator, whose copies come from the cache too */
    mem = gst_cuda_allocator_alloc_wrapped (self->priv->allocator,
        GST_CUDA_BUFFER_POOL (self)->context, stream, &cmem->info,
        (CUdeviceptr) map.data, block, (GDestroyNotify) gst_memory_unref);
    gst_memory_unmap (block, &map);
  }
  if (!mem) {
    GST_ERROR_OBJECT (self, "could not wrap a block for its writer's stream");
    gst_memory_unref (block);
    return NULL;
  }
  /* a tensor is one row: the block's size, never the pitch past it */
  if (mem->size != block->size)
    gst_memory_resize (mem, 0, block->size);
  gst_cuda_cache_memory_set_block (mem, block);
  return mem;
#else
  return block;
#endif
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

  GstCudaCachePoolSpec spec = { priv->layout, priv->alloc_info, priv->stream,
    priv->method, priv->cache
  };

  mem = gst_cuda_cache_pool_acquire (self, priv->cache, priv->key, &spec);
  if (mem && priv->foreign_stream)
    mem = gst_cuda_cache_pool_wrap_on_stream (self, mem, priv->foreign_stream);
  if (!mem)
    return GST_FLOW_ERROR;

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
  gst_cuda_cache_known_layouts_clear (&self->priv->known);
  gst_cuda_cache_compat_stream_clear (&self->priv->stream);
  gst_cuda_cache_compat_stream_clear (&self->priv->foreign_stream);
  /* blocks still in use go back to the cache later: freed then if this
   * was the context's last pool */
  if (self->priv->cache && self->priv->group)
    gst_cuda_cache_group_remove_user (self->priv->cache, self->priv->group);
  g_free (self->priv->group);
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

  allocator = (GstAllocator *) gst_cuda_cache_device_get_allocator ();
  if (!allocator) {
    GST_ERROR ("the CUDA allocator is unavailable");
    return NULL;
  }

  self = g_object_new (GST_TYPE_CUDA_CACHE_POOL, NULL);
  gst_object_ref_sink (self);
  GST_CUDA_BUFFER_POOL (self)->context = gst_object_ref (context);
  self->priv->allocator = GST_CUDA_ALLOCATOR (gst_object_ref (allocator));
  self->priv->cache = gst_cuda_cache_device_get_cache (context);
  self->priv->group = gst_cuda_cache_context_group (context);
  gst_cuda_cache_group_add_user (self->priv->cache, self->priv->group);

  return GST_BUFFER_POOL (self);
}

/**
 * gst_cuda_cache_warm:
 * @cache: a #GstCudaCache
 * @context: (nullable): the #GstCudaContext of CUDA caps, %NULL for caps
 *     of system memory
 * @caps: caps a pool will be configured for: CUDA images or tensors
 *     (`memory:CUDAMemory`) with @context, system memory without
 * @n_buffers: blocks to make
 * @error: where to say why @caps were refused, or %NULL
 *
 * Makes @n_buffers blocks of @caps in @cache before they are needed, as an
 * adaptive-streaming ladder's layouts are known before the first switch:
 * the first pool configured for @caps (without a stream of its own, as
 * pools proposed to decoders are) then takes them as hits. They are idle
 * blocks like any other: they count in the limit and in the statistics,
 * and go the way idle blocks go (the limit, a clear, and for CUDA blocks
 * their context's last user in @cache: they stay while a pool of @context
 * configured from @cache lives, or, in a device's cache, a user added with
 * gst_cuda_cache_device_add_context_user(); warming a cache where the
 * context has no user makes blocks that go at once).
 *
 * Returns: %TRUE if @n_buffers blocks were made or found
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_warm (GstCudaCache * cache, GstCudaContext * context,
    GstCaps * caps, guint n_buffers, GError ** error)
{
  GstCudaCacheTensorInfo tensor;
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  gsize size = 0;
  gchar *caps_str;
  gboolean ok;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), FALSE);
  g_return_val_if_fail (context == NULL || GST_IS_CUDA_CONTEXT (context),
      FALSE);
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  pool = context ? gst_cuda_cache_pool_new (context) :
      gst_cuda_cache_system_pool_new (cache);
  if (!pool) {
    g_set_error_literal (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "no pool could be made (gst-cuda's allocator is unavailable)");
    return FALSE;
  }
  /* the size a pool is given, as a decoder gives its caps' (the CUDA
   * pool learns the pitched one from its block) */
  if (gst_video_info_from_caps (&info, caps))
    size = GST_VIDEO_INFO_SIZE (&info);
  else if (gst_cuda_cache_tensor_info_from_caps (&tensor, caps))
    size = tensor.size;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, (guint) MIN (size,
          G_MAXUINT), n_buffers, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (context)
    gst_buffer_pool_config_set_cuda_cache (config, cache);
  ok = gst_buffer_pool_set_config (pool, config);
  caps_str = gst_caps_to_string (caps);
  if (!ok)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the cache's pool refused %s (see the cudacache* debug categories)",
        caps_str);
  /* activation makes the blocks; they are the cache's again at once */
  if (ok && (!gst_buffer_pool_set_active (pool, TRUE) ||
          !gst_buffer_pool_set_active (pool, FALSE))) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "%u blocks of %s could not be made", n_buffers, caps_str);
    ok = FALSE;
  }
  g_free (caps_str);
  gst_object_unref (pool);
  return ok;
}

/**
 * gst_cuda_cache_pool_get_cache:
 * @pool: a #GstCudaCachePool
 *
 * Gives an application the cache a #GstCudaCachePool takes its memory from, to
 * read its statistics or set its limit.
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
 * Gives an application the cache a pool configuration names
 * (gst_buffer_pool_config_set_cuda_cache()), to check which cache a pool it
 * was offered takes its memory from.
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
