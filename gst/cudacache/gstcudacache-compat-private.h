/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * What differs between the gst-cuda of GStreamer 1.22 and that of 1.24 and
 * later, in one place. The rest of the project calls these helpers; code
 * that exists from 1.24 only (stream-ordered blocks, CUDA memory wrapped
 * by the DLPack import) tests GST_CUDA_CACHE_HAVE_STREAM, never a version.
 *
 * 1.24 added GstCudaStream: a memory is allocated with a stream it keeps
 * for life, writers leave it flagged GST_CUDA_MEMORY_TRANSFER_NEED_SYNC
 * instead of waiting for their stream, and readers of another stream wait
 * (gst_cuda_memory_sync()) before reading. 1.22 has none of it: there a
 * stream is a plain non-blocking CUstream of the project's own that no
 * memory carries, and whoever writes a memory waits for its stream before
 * handing it on.
 */

#ifndef __GST_CUDA_CACHE_COMPAT_PRIVATE_H__
#define __GST_CUDA_CACHE_COMPAT_PRIVATE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

G_BEGIN_DECLS

/* TRUE where memory carries a stream */
#define GST_CUDA_CACHE_HAVE_STREAM GST_CHECK_VERSION (1, 24, 0)

#if GST_CUDA_CACHE_HAVE_STREAM
#include <gst/cuda/gstcudastream.h>
#include <gst/cudacache/gstcudacachepool.h>
typedef GstCudaStream GstCudaCacheStream;
#else
typedef struct
{
  GstCudaContext *context;
  CUstream handle;
} GstCudaCacheStream;
#endif

/* A new GstCudaMemory of @info on @stream (ignored before 1.24). */
static inline GstMemory *
gst_cuda_cache_compat_alloc (GstCudaAllocator * allocator,
    GstCudaContext * context, GstCudaCacheStream * stream,
    const GstVideoInfo * info)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  return gst_cuda_allocator_alloc (allocator, context, stream, info);
#else
  return gst_cuda_allocator_alloc (allocator, context, info);
#endif
}

/* A non-blocking stream of @context, or NULL if the driver refused. */
static inline GstCudaCacheStream *
gst_cuda_cache_compat_stream_new (GstCudaContext * context)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  return gst_cuda_stream_new (context);
#else
  GstCudaCacheStream *stream;
  CUstream handle = NULL;
  gboolean ok;

  if (!gst_cuda_context_push (context))
    return NULL;
  ok = gst_cuda_result (CuStreamCreate (&handle, CU_STREAM_NON_BLOCKING));
  gst_cuda_context_pop (NULL);
  if (!ok)
    return NULL;

  stream = g_new0 (GstCudaCacheStream, 1);
  stream->context = gst_object_ref (context);
  stream->handle = handle;
  return stream;
#endif
}

/* A stream for memory to carry (gst_cuda_cache_compat_config_set_stream()),
 * or NULL where memory carries none (before 1.24). */
static inline GstCudaCacheStream *
gst_cuda_cache_compat_memory_stream_new (GstCudaContext * context)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  return gst_cuda_stream_new (context);
#else
  return NULL;
#endif
}

static inline void
gst_cuda_cache_compat_stream_clear (GstCudaCacheStream ** stream)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  gst_clear_cuda_stream (stream);
#else
  GstCudaCacheStream *s = *stream;

  *stream = NULL;
  if (!s)
    return;
  if (gst_cuda_context_push (s->context)) {
    gst_cuda_result (CuStreamDestroy (s->handle));
    gst_cuda_context_pop (NULL);
  }
  gst_object_unref (s->context);
  g_free (s);
#endif
}

static inline GstCudaContext *
gst_cuda_cache_compat_stream_get_context (GstCudaCacheStream * stream)
{
  return stream->context;
}

/* The driver's handle; NULL is the legacy default stream. */
static inline CUstream
gst_cuda_cache_compat_stream_handle (GstCudaCacheStream * stream)
{
  if (!stream)
    return NULL;
#if GST_CUDA_CACHE_HAVE_STREAM
  return gst_cuda_stream_get_handle (stream);
#else
  return stream->handle;
#endif
}

/* The stream @mem was allocated with (transfer none), or NULL. */
static inline GstCudaCacheStream *
gst_cuda_cache_compat_memory_get_stream (GstMemory * mem)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  return gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
#else
  return NULL;
#endif
}

/* Waits for work pending on @mem's stream, if any was left unwaited. */
static inline void
gst_cuda_cache_compat_memory_sync (GstMemory * mem)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
}

/* Whether work still queued writes @mem (1.24+: flagged
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC; never before 1.24, where writers
 * wait for their own stream), and on which stream (NULL: the memory has
 * none of its own). */
static inline gboolean
gst_cuda_cache_compat_memory_pending (GstMemory * mem, CUstream * stream)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  GstCudaStream *s;

  *stream = NULL;
  if (!GST_MINI_OBJECT_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC))
    return FALSE;
  s = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
  *stream = s ? gst_cuda_stream_get_handle (s) : NULL;
  return TRUE;
#else
  *stream = NULL;
  return FALSE;
#endif
}

/* Says whether a reader of another stream must wait for @mem's stream. */
static inline void
gst_cuda_cache_compat_memory_set_need_sync (GstMemory * mem,
    gboolean need_sync)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  if (need_sync)
    GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  else
    GST_MINI_OBJECT_FLAG_UNSET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
}

/* The stream a buffer pool config asks blocks to be allocated on
 * (transfer full), or NULL: only the stream the project's elements mark
 * as theirs (GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM). One an upstream
 * element puts in the config of a pool proposed to it would tie the
 * blocks to that element alone: the memory handed out carries it instead
 * (gst_cuda_cache_compat_config_get_foreign_stream ()) */
static inline GstCudaCacheStream *
gst_cuda_cache_compat_config_get_stream (GstStructure * config)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  gboolean writer = FALSE;

  if (!gst_structure_get_boolean (config,
          GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM, &writer) || !writer)
    return NULL;
  return gst_buffer_pool_config_get_cuda_stream (config);
#else
  return NULL;
#endif
}

/* The stream @config names where no element of this project marked it
 * as its own (transfer full), or NULL: that of an element that configures
 * a pool proposed to it and writes its buffers on that stream (nvh264dec,
 * cudaupload). Such a writer flags the memory
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC without waiting, for readers to wait
 * on the memory's own stream, so the memory it writes must carry it. */
static inline GstCudaCacheStream *
gst_cuda_cache_compat_config_get_foreign_stream (GstStructure * config)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  gboolean writer = FALSE;

  if (gst_structure_get_boolean (config,
          GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM, &writer) && writer)
    return NULL;
  return gst_buffer_pool_config_get_cuda_stream (config);
#else
  return NULL;
#endif
}

/* Asks the pool of @config to allocate on @stream, its writer's (1.24+);
 * NULL: on none, the stream of an earlier writer dropped from the config
 * (a pool proposed upstream again, whose next writer sets its own) */
static inline void
gst_cuda_cache_compat_config_set_stream (GstStructure * config,
    GstCudaCacheStream * stream)
{
#if GST_CUDA_CACHE_HAVE_STREAM
  gst_structure_set (config, GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM,
      G_TYPE_BOOLEAN, stream != NULL, NULL);
  if (stream)
    gst_buffer_pool_config_set_cuda_stream (config, stream);
  else
    gst_structure_remove_field (config, "cuda-stream");
#endif
}

G_END_DECLS

#endif /* __GST_CUDA_CACHE_COMPAT_PRIVATE_H__ */
