/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Stream-ordered blocks (gstcudacachestreamordered-private.h): device
 * memory from a CUDA memory pool, as CuPy's MemoryAsyncPool and PyTorch's
 * cudaMallocAsync backend take it, wrapped in a GstCudaMemory laid out as
 * gst-cuda lays out its own stream-ordered images.
 *
 * A block is allocated on the stream it carries for life (the writer's,
 * whose work is ordered after the allocation with no wait), or where it
 * carries none on the stream this side keeps per context, waited for
 * before the block is handed out. Every block is freed with
 * cuMemFreeAsync on the context's stream, made to wait on the GPU for the
 * block's own stream first: the free is ordered after the block's last
 * use and no host thread waits for it. The memory goes back to the pool;
 * a pool holding more than the cache's limit is trimmed to it after a free
 * (own pools also keep the limit as their release threshold), and
 * gst_cuda_cache_clear () trims it to nothing.
 *
 * The driver's pool functions are loaded from libcuda here, as
 * gstcudacachedevice.c loads what 1.22's gst-cuda lacks: gst-cuda exports
 * only some of them, and only since 1.26. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gmodule.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacache-private.h"
#include "gstcudacachepool.h"
#include "gstcudacachestreamordered-private.h"

gboolean
gst_cuda_cache_stream_ordered_layout (const GstVideoInfo * info, gsize pitch,
    GstVideoInfo * layout)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  guint height = GST_VIDEO_INFO_HEIGHT (info);
  gboolean even = FALSE;
  gsize rows = 0, alloc_rows = 0;
  guint plane, comp;

  if (GST_VIDEO_INFO_FORMAT (info) != GST_VIDEO_FORMAT_GRAY8 &&
      !gst_cuda_cache_format_in_list (GST_VIDEO_INFO_FORMAT (info),
          GST_CUDA_CACHE_POOL_FORMATS))
    return FALSE;

  /* 4:2:0 is allocated for the even height above an odd one, so that its
   * last chroma row has luma rows to go with */
  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++)
    even |= GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp) == 1;

  *layout = *info;
  for (plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    for (comp = 0; GST_VIDEO_FORMAT_INFO_PLANE (finfo, comp) != plane; comp++);
    layout->stride[plane] = (gint) pitch;
    layout->offset[plane] = rows * pitch;
    rows += GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp, height);
    alloc_rows += GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp,
        even ? GST_ROUND_UP_2 (height) : height);
  }
  layout->size = alloc_rows * pitch;

  return TRUE;
}

#if GST_CUDA_CACHE_HAVE_STREAM

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacachestreamordered",
    "CUDA cache: stream-ordered blocks");
#define GST_CAT_DEFAULT ensure_debug_category ()

#ifndef CUDAAPI
#define CUDAAPI
#endif

typedef struct
{
  CUresult (CUDAAPI * MemAllocFromPoolAsync) (CUdeviceptr * ptr, size_t size,
      CUmemoryPool pool, CUstream stream);
  CUresult (CUDAAPI * MemFreeAsync) (CUdeviceptr ptr, CUstream stream);
  CUresult (CUDAAPI * MemPoolCreate) (CUmemoryPool * pool,
      const CUmemPoolProps * props);
  CUresult (CUDAAPI * MemPoolDestroy) (CUmemoryPool pool);
  CUresult (CUDAAPI * MemPoolTrimTo) (CUmemoryPool pool, size_t keep);
  CUresult (CUDAAPI * MemPoolSetAttribute) (CUmemoryPool pool,
      CUmemPool_attribute attr, void *value);
  CUresult (CUDAAPI * MemPoolGetAttribute) (CUmemoryPool pool,
      CUmemPool_attribute attr, void *value);
  CUresult (CUDAAPI * DeviceGetMemPool) (CUmemoryPool * pool, CUdevice dev);
  CUresult (CUDAAPI * DeviceGetAttribute) (int *value,
      CUdevice_attribute attr, CUdevice dev);
  CUresult (CUDAAPI * DeviceGet) (CUdevice * device, int ordinal);
  CUresult (CUDAAPI * StreamSynchronize) (CUstream stream);
  gboolean loaded;
} StreamOrderedDriver;

static StreamOrderedDriver driver;

static gboolean
driver_load (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GModule *module = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);

    if (!module) {
      GST_INFO ("no CUDA driver: %s", g_module_error ());
    } else {
      g_module_make_resident (module);
      driver.loaded =
          g_module_symbol (module, "cuMemAllocFromPoolAsync",
          (gpointer *) & driver.MemAllocFromPoolAsync) &&
          g_module_symbol (module, "cuMemFreeAsync",
          (gpointer *) & driver.MemFreeAsync) &&
          g_module_symbol (module, "cuMemPoolCreate",
          (gpointer *) & driver.MemPoolCreate) &&
          g_module_symbol (module, "cuMemPoolDestroy",
          (gpointer *) & driver.MemPoolDestroy) &&
          g_module_symbol (module, "cuMemPoolTrimTo",
          (gpointer *) & driver.MemPoolTrimTo) &&
          g_module_symbol (module, "cuMemPoolSetAttribute",
          (gpointer *) & driver.MemPoolSetAttribute) &&
          g_module_symbol (module, "cuMemPoolGetAttribute",
          (gpointer *) & driver.MemPoolGetAttribute) &&
          g_module_symbol (module, "cuDeviceGetMemPool",
          (gpointer *) & driver.DeviceGetMemPool) &&
          g_module_symbol (module, "cuDeviceGetAttribute",
          (gpointer *) & driver.DeviceGetAttribute) &&
          g_module_symbol (module, "cuDeviceGet",
          (gpointer *) & driver.DeviceGet) &&
          g_module_symbol (module, "cuStreamSynchronize",
          (gpointer *) & driver.StreamSynchronize);
      if (!driver.loaded)
        GST_WARNING ("the CUDA driver has no memory pools (CUDA 11.2+): %s",
            g_module_error ());
    }
    g_once_init_leave (&once, 1);
  }

  return driver.loaded;
}

gboolean
gst_cuda_cache_stream_ordered_supported (GError ** error)
{
  if (!driver_load ()) {
    g_set_error_literal (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
        "stream-ordered blocks need a CUDA driver with memory pools "
        "(CUDA 11.2 or later)");
    return FALSE;
  }
  return TRUE;
}

/* A device this side allocated on */
typedef struct
{
  guint device_id;
  CUdevice device;
  CUmemoryPool own;             /* GST_CUDA_CACHE_MEMORY_POOL_OWN's, or NULL */
} SoDevice;

/* A context this side allocated in: its stream */
typedef struct
{
  GstCudaContext *context;
  GstCudaStream *stream;
} SoContext;

/* A pool a block came from, and a context to talk to it in */
typedef struct
{
  CUmemoryPool pool;
  SoContext *ctx;
} SoPool;

struct _GstCudaCacheStreamOrdered
{
  GMutex lock;
  GstCudaCacheMemoryPool choice;
  CUmemoryPool handle;          /* GST_CUDA_CACHE_MEMORY_POOL_HANDLE's */
  guint64 limit;
  guint64 reserve;              /* what own pools hold from their start */
  GArray *devices;              /* SoDevice */
  GPtrArray *contexts;          /* SoContext, freed with this */
  GArray *pools;                /* SoPool */
};

/* What a block's GstCudaMemory frees it with */
typedef struct
{
  GstCudaCacheStreamOrdered *so;        /* a reference */
  SoContext *ctx;
  GstCudaStream *stream;        /* the block's own, or NULL */
  CUmemoryPool pool;
  CUdeviceptr ptr;
} SoBlock;

static void
so_context_free (SoContext * ctx)
{
  gst_clear_cuda_stream (&ctx->stream);
  gst_object_unref (ctx->context);
  g_free (ctx);
}

static void
so_clear (GstCudaCacheStreamOrdered * so)
{
  guint i;

  /* blocks hold this alive: none is left, and the pools' frees were
   * queued; a pool destroyed with frees in flight goes once they end */
  for (i = 0; i < so->devices->len; i++) {
    SoDevice *dev = &g_array_index (so->devices, SoDevice, i);

    if (dev->own)
      gst_cuda_result (driver.MemPoolDestroy (dev->own));
  }
  g_array_unref (so->devices);
  g_array_unref (so->pools);
  g_ptr_array_unref (so->contexts);
  g_mutex_clear (&so->lock);
}

GstCudaCacheStreamOrdered *
gst_cuda_cache_stream_ordered_new (void)
{
  GstCudaCacheStreamOrdered *so =
      g_atomic_rc_box_new0 (GstCudaCacheStreamOrdered);

  g_mutex_init (&so->lock);
  so->choice = GST_CUDA_CACHE_MEMORY_POOL_OWN;
  so->limit = G_MAXUINT64;
  so->devices = g_array_new (FALSE, TRUE, sizeof (SoDevice));
  so->pools = g_array_new (FALSE, TRUE, sizeof (SoPool));
  so->contexts = g_ptr_array_new_with_free_func ((GDestroyNotify)
      so_context_free);
  return so;
}

void
gst_cuda_cache_stream_ordered_unref (GstCudaCacheStreamOrdered * so)
{
  g_atomic_rc_box_release_full (so, (GDestroyNotify) so_clear);
}

void
gst_cuda_cache_stream_ordered_set_pool (GstCudaCacheStreamOrdered * so,
    GstCudaCacheMemoryPool pool, guintptr handle)
{
  g_mutex_lock (&so->lock);
  so->choice = pool;
  so->handle = (CUmemoryPool) handle;
  g_mutex_unlock (&so->lock);
}

static void
so_set_threshold (CUmemoryPool pool, guint64 threshold)
{
  cuuint64_t value = threshold;

  gst_cuda_result (driver.MemPoolSetAttribute (pool,
          CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &value));
}

void
gst_cuda_cache_stream_ordered_set_limit (GstCudaCacheStreamOrdered * so,
    guint64 limit)
{
  guint i;

  g_mutex_lock (&so->lock);
  so->limit = limit;
  for (i = 0; i < so->devices->len; i++) {
    SoDevice *dev = &g_array_index (so->devices, SoDevice, i);

    if (dev->own)
      so_set_threshold (dev->own, limit);
  }
  g_mutex_unlock (&so->lock);
}

static guint64 so_pool_attribute (CUmemoryPool pool, CUmemPool_attribute attr);

/* Has @pool hold MIN (reserve, limit) bytes: allocated and freed at once
 * on @ctx's stream, which is waited for, with its context pushed; the
 * release threshold (the limit) keeps them. Under the lock. */
static void
so_fill_locked (GstCudaCacheStreamOrdered * so, CUmemoryPool pool,
    SoContext * ctx)
{
  guint64 bytes = MIN (so->reserve, so->limit);
  CUstream stream = gst_cuda_stream_get_handle (ctx->stream);
  CUdeviceptr ptr = 0;

  if (bytes == 0 || so_pool_attribute (pool,
          CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) >= bytes)
    return;
  if (gst_cuda_result (driver.MemAllocFromPoolAsync (&ptr, bytes, pool,
              stream))) {
    gst_cuda_result (driver.MemFreeAsync (ptr, stream));
    gst_cuda_result (driver.StreamSynchronize (stream));
    GST_INFO ("pool %p holds a reserve of %" G_GUINT64_FORMAT " bytes", pool,
        bytes);
  } else {
    GST_WARNING ("pool %p could not reserve %" G_GUINT64_FORMAT " bytes",
        pool, bytes);
  }
}

/* @context's entry, made at first use; under the lock */
static SoContext *
so_context_locked (GstCudaCacheStreamOrdered * so, GstCudaContext * context)
{
  SoContext *ctx;
  guint i;

  for (i = 0; i < so->contexts->len; i++) {
    ctx = g_ptr_array_index (so->contexts, i);
    if (ctx->context == context)
      return ctx;
  }
  ctx = g_new0 (SoContext, 1);
  ctx->stream = gst_cuda_stream_new (context);
  if (!ctx->stream) {
    g_free (ctx);
    return NULL;
  }
  ctx->context = gst_object_ref (context);
  g_ptr_array_add (so->contexts, ctx);
  return ctx;
}

/* @context's device's entry, made at first use; under the lock, with
 * @context pushed */
static SoDevice *
so_device_locked (GstCudaCacheStreamOrdered * so, GstCudaContext * context,
    GError ** error)
{
  SoDevice dev = { 0, };
  int pools_supported = 0;
  guint i;

  g_object_get (context, "cuda-device-id", &dev.device_id, NULL);
  for (i = 0; i < so->devices->len; i++) {
    if (g_array_index (so->devices, SoDevice, i).device_id == dev.device_id)
      return &g_array_index (so->devices, SoDevice, i);
  }
  if (!gst_cuda_result (driver.DeviceGet (&dev.device, dev.device_id)) ||
      !gst_cuda_result (driver.DeviceGetAttribute (&pools_supported,
              CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev.device)) ||
      !pools_supported) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
        "CUDA device %u has no memory pools: stream-ordered blocks cannot "
        "be made on it", dev.device_id);
    return NULL;
  }
  g_array_append_val (so->devices, dev);
  return &g_array_index (so->devices, SoDevice, so->devices->len - 1);
}

/* The pool a block on @dev comes from now; under the lock */
static CUmemoryPool
so_pool_locked (GstCudaCacheStreamOrdered * so, SoDevice * dev,
    SoContext * ctx, GError ** error)
{
  CUmemoryPool pool = NULL;

  switch (so->choice) {
    case GST_CUDA_CACHE_MEMORY_POOL_HANDLE:
      pool = so->handle;
      break;
    case GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT:
      if (!gst_cuda_result (driver.DeviceGetMemPool (&pool, dev->device)))
        pool = NULL;
      break;
    case GST_CUDA_CACHE_MEMORY_POOL_OWN:
    default:
      if (!dev->own) {
        CUmemPoolProps props = { 0, };

        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
        props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = dev->device;
        if (gst_cuda_result (driver.MemPoolCreate (&dev->own, &props))) {
          so_set_threshold (dev->own, so->limit);
          so_fill_locked (so, dev->own, ctx);
        } else {
          dev->own = NULL;
        }
      }
      pool = dev->own;
      break;
  }
  if (!pool)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "no CUDA memory pool on device %u: the driver refused it",
        dev->device_id);
  return pool;
}

/* Whether @pool is one of this side's own; under the lock */
static gboolean
so_is_own_locked (GstCudaCacheStreamOrdered * so, CUmemoryPool pool)
{
  guint i;

  for (i = 0; i < so->devices->len; i++) {
    if (g_array_index (so->devices, SoDevice, i).own == pool)
      return TRUE;
  }
  return FALSE;
}

/* Remembers @pool for usage and trims; under the lock */
static void
so_remember_pool_locked (GstCudaCacheStreamOrdered * so, CUmemoryPool pool,
    SoContext * ctx)
{
  SoPool entry = { pool, ctx };
  guint i;

  for (i = 0; i < so->pools->len; i++) {
    if (g_array_index (so->pools, SoPool, i).pool == pool)
      return;
  }
  g_array_append_val (so->pools, entry);
}

static guint64
so_pool_attribute (CUmemoryPool pool, CUmemPool_attribute attr)
{
  cuuint64_t value = 0;

  if (!gst_cuda_result (driver.MemPoolGetAttribute (pool, attr, &value)))
    return 0;
  return value;
}

/* gst_cuda_allocator_free () calls this with the block's context pushed */
static void
so_block_free (gpointer data)
{
  SoBlock *block = data;
  GstCudaCacheStreamOrdered *so = block->so;
  CUstream own = gst_cuda_stream_get_handle (block->ctx->stream);
  guint64 limit;

  /* ordered after the block's last use on the GPU, waited for by no one */
  if (block->stream)
    gst_cuda_cache_device_stream_wait (block->ctx->context, own,
        gst_cuda_stream_get_handle (block->stream));
  gst_cuda_result (driver.MemFreeAsync (block->ptr, own));

  g_mutex_lock (&so->lock);
  limit = so->limit;
  g_mutex_unlock (&so->lock);
  /* a pool over the cache's limit gives back what it holds unused: the
   * free reached it first (a wait for this context's frees alone) */
  if (so_pool_attribute (block->pool,
          CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) > limit &&
      gst_cuda_result (driver.StreamSynchronize (own)))
    gst_cuda_result (driver.MemPoolTrimTo (block->pool, limit));

  gst_clear_cuda_stream (&block->stream);
  gst_cuda_cache_stream_ordered_unref (so);
  g_free (block);
}

GstMemory *
gst_cuda_cache_stream_ordered_alloc (GstCudaCacheStreamOrdered * so,
    GstCudaAllocator * allocator, GstCudaContext * context,
    GstCudaCacheStream * stream, const GstVideoInfo * info)
{
  GError *error = NULL;
  GstVideoInfo layout, row;
  SoDevice *dev;
  SoContext *ctx;
  CUmemoryPool pool = NULL;
  CUdeviceptr ptr = 0;
  CUstream handle;
  SoBlock *block;
  GstMemory *mem;
  gsize pitch;
  gboolean ok;

  if (!driver_load ())
    return NULL;
  /* a tensor is one row of stride[0] bytes (gstcudacachepool.c): GRAY8 of
   * that width, so that gst-cuda's CPU maps copy exactly those bytes */
  if (GST_VIDEO_INFO_N_PLANES (info) == 1 && info->stride[0] <
      GST_VIDEO_INFO_COMP_WIDTH (info, 0) * GST_VIDEO_INFO_COMP_PSTRIDE (info,
          0)) {
    gst_video_info_set_format (&row, GST_VIDEO_FORMAT_GRAY8, info->stride[0],
        1);
    info = &row;
  }
  pitch = GST_ROUND_UP_N ((gsize) info->stride[0],
      (gsize) MAX (gst_cuda_context_get_texture_alignment (context), 1));
  if (!gst_cuda_cache_stream_ordered_layout (info, pitch, &layout)) {
    GST_ERROR ("no stream-ordered layout for %s", GST_VIDEO_INFO_NAME (info));
    return NULL;
  }
  if (!gst_cuda_context_push (context))
    return NULL;

  g_mutex_lock (&so->lock);
  ctx = so_context_locked (so, context);
  dev = ctx ? so_device_locked (so, context, &error) : NULL;
  if (dev)
    pool = so_pool_locked (so, dev, ctx, &error);
  if (pool)
    so_remember_pool_locked (so, pool, ctx);
  g_mutex_unlock (&so->lock);

  ok = pool != NULL;
  if (ok) {
    handle = stream ? gst_cuda_stream_get_handle (stream) :
        gst_cuda_stream_get_handle (ctx->stream);
    ok = gst_cuda_result (driver.MemAllocFromPoolAsync (&ptr, layout.size,
            pool, handle));
    /* a block no stream carries may be used on any: handed out once made */
    if (ok && !stream)
      ok = gst_cuda_result (driver.StreamSynchronize (handle));
  }
  gst_cuda_context_pop (NULL);

  if (!ok) {
    GST_ERROR ("no stream-ordered block of %" G_GSIZE_FORMAT " bytes: %s",
        layout.size, error ? error->message : "the driver refused");
    g_clear_error (&error);
    return NULL;
  }

  block = g_new0 (SoBlock, 1);
  block->so = g_atomic_rc_box_acquire (so);
  block->ctx = ctx;
  block->stream = stream ? gst_cuda_stream_ref (stream) : NULL;
  block->pool = pool;
  block->ptr = ptr;
  mem = gst_cuda_allocator_alloc_wrapped (allocator, context, stream, &layout,
      ptr, block, so_block_free);
  GST_LOG ("stream-ordered block %p of %" G_GSIZE_FORMAT " bytes, pitch %"
      G_GSIZE_FORMAT, mem, layout.size, pitch);
  return mem;
}

void
gst_cuda_cache_stream_ordered_get_usage (GstCudaCacheStreamOrdered * so,
    guint64 * reserved, guint64 * used)
{
  guint i;

  *reserved = *used = 0;
  g_mutex_lock (&so->lock);
  for (i = 0; i < so->pools->len; i++) {
    CUmemoryPool pool = g_array_index (so->pools, SoPool, i).pool;

    *reserved += so_pool_attribute (pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
    *used += so_pool_attribute (pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
  }
  g_mutex_unlock (&so->lock);
}

void
gst_cuda_cache_stream_ordered_release (GstCudaCacheStreamOrdered * so,
    guint64 keep)
{
  guint i;

  g_mutex_lock (&so->lock);
  for (i = 0; i < so->contexts->len; i++) {
    SoContext *ctx = g_ptr_array_index (so->contexts, i);

    if (gst_cuda_context_push (ctx->context)) {
      gst_cuda_result (driver.StreamSynchronize (gst_cuda_stream_get_handle
              (ctx->stream)));
      gst_cuda_context_pop (NULL);
    }
  }
  for (i = 0; i < so->pools->len; i++) {
    SoPool *entry = &g_array_index (so->pools, SoPool, i);
    guint64 pool_keep = so_is_own_locked (so, entry->pool) ?
        MAX (keep, MIN (so->reserve, so->limit)) : keep;

    GST_DEBUG ("trimming pool %p to %" G_GUINT64_FORMAT " bytes",
        entry->pool, pool_keep);
    gst_cuda_result (driver.MemPoolTrimTo (entry->pool, pool_keep));
  }
  g_mutex_unlock (&so->lock);
}

void
gst_cuda_cache_stream_ordered_set_reserve (GstCudaCacheStreamOrdered * so,
    guint64 reserve)
{
  guint i;

  g_mutex_lock (&so->lock);
  so->reserve = reserve;
  /* own pools made before: filled now, in the context that made them */
  for (i = 0; i < so->pools->len; i++) {
    SoPool *entry = &g_array_index (so->pools, SoPool, i);

    if (so_is_own_locked (so, entry->pool) &&
        gst_cuda_context_push (entry->ctx->context)) {
      so_fill_locked (so, entry->pool, entry->ctx);
      gst_cuda_context_pop (NULL);
    }
  }
  g_mutex_unlock (&so->lock);
}

#else /* !GST_CUDA_CACHE_HAVE_STREAM */

/* GStreamer 1.22: memory carries no stream, and a block allocated on one
 * must be freed on one; the method is refused, and nothing is made */

gboolean
gst_cuda_cache_stream_ordered_supported (GError ** error)
{
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
      "stream-ordered blocks need GStreamer 1.24 or later, whose CUDA "
      "memory carries the stream it is allocated and freed on; this build "
      "is against GStreamer %d.%d", GST_VERSION_MAJOR, GST_VERSION_MINOR);
  return FALSE;
}

struct _GstCudaCacheStreamOrdered
{
  gint unused;
};

GstCudaCacheStreamOrdered *
gst_cuda_cache_stream_ordered_new (void)
{
  return g_new0 (GstCudaCacheStreamOrdered, 1);
}

void
gst_cuda_cache_stream_ordered_unref (GstCudaCacheStreamOrdered * so)
{
  g_free (so);
}

void
gst_cuda_cache_stream_ordered_set_pool (GstCudaCacheStreamOrdered * so,
    GstCudaCacheMemoryPool pool, guintptr handle)
{
}

void
gst_cuda_cache_stream_ordered_set_limit (GstCudaCacheStreamOrdered * so,
    guint64 limit)
{
}

GstMemory *
gst_cuda_cache_stream_ordered_alloc (GstCudaCacheStreamOrdered * so,
    GstCudaAllocator * allocator, GstCudaContext * context,
    GstCudaCacheStream * stream, const GstVideoInfo * info)
{
  return NULL;
}

void
gst_cuda_cache_stream_ordered_get_usage (GstCudaCacheStreamOrdered * so,
    guint64 * reserved, guint64 * used)
{
  *reserved = *used = 0;
}

void
gst_cuda_cache_stream_ordered_release (GstCudaCacheStreamOrdered * so,
    guint64 keep)
{
}

void
gst_cuda_cache_stream_ordered_set_reserve (GstCudaCacheStreamOrdered * so,
    guint64 reserve)
{
}

#endif /* GST_CUDA_CACHE_HAVE_STREAM */
