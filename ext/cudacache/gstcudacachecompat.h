/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The plugin's glue between the gst-cuda of GStreamer 1.22 and that of
 * 1.24 and later, in one place: the stream an element writes its output
 * on. 1.24 has GstCudaStream, which a memory keeps for life, so an element
 * puts its stream in the config of the pools it writes into (marked as the
 * writer's, GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM). 1.22
 * has none: there the stream is a plain non-blocking CUstream of the
 * element's own that no memory carries, and the element waits for it
 * before pushing.
 */

#ifndef __GST_CUDA_CACHE_COMPAT_H__
#define __GST_CUDA_CACHE_COMPAT_H__

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudacache/cudacache.h>

G_BEGIN_DECLS

#if GST_CHECK_VERSION (1, 24, 0)
#include <gst/cuda/gstcudastream.h>
typedef GstCudaStream GstCudaCacheElementStream;
#else
typedef struct
{
  GstCudaContext *context;
  CUstream handle;
} GstCudaCacheElementStream;
#endif

/* A non-blocking stream of @context, or NULL if the driver refused. */
static inline GstCudaCacheElementStream *
gst_cuda_cache_element_stream_new (GstCudaContext * context)
{
#if GST_CHECK_VERSION (1, 24, 0)
  return gst_cuda_stream_new (context);
#else
  GstCudaCacheElementStream *stream;
  CUstream handle = NULL;
  gboolean ok;

  if (!gst_cuda_context_push (context))
    return NULL;
  ok = gst_cuda_result (CuStreamCreate (&handle, CU_STREAM_NON_BLOCKING));
  gst_cuda_context_pop (NULL);
  if (!ok)
    return NULL;

  stream = g_new0 (GstCudaCacheElementStream, 1);
  stream->context = gst_object_ref (context);
  stream->handle = handle;
  return stream;
#endif
}

static inline void
gst_cuda_cache_element_stream_clear (GstCudaCacheElementStream ** stream)
{
#if GST_CHECK_VERSION (1, 24, 0)
  gst_clear_cuda_stream (stream);
#else
  GstCudaCacheElementStream *s = *stream;

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
gst_cuda_cache_element_stream_get_context (GstCudaCacheElementStream * stream)
{
  return stream->context;
}

/* The driver's handle; NULL is the legacy default stream. */
static inline CUstream
gst_cuda_cache_element_stream_handle (GstCudaCacheElementStream * stream)
{
  if (!stream)
    return NULL;
#if GST_CHECK_VERSION (1, 24, 0)
  return gst_cuda_stream_get_handle (stream);
#else
  return stream->handle;
#endif
}

/* Asks the pool of @config to allocate its memory on @stream, the
 * element's, where memory carries a stream (1.24+); NULL: on none, the
 * stream of an earlier writer dropped from the config (a pool proposed
 * upstream again, whose next writer sets its own). */
static inline void
gst_cuda_cache_element_stream_config_set (GstStructure * config,
    GstCudaCacheElementStream * stream)
{
#if GST_CHECK_VERSION (1, 24, 0)
  gst_structure_set (config, GST_CUDA_CACHE_POOL_CONFIG_WRITER_STREAM,
      G_TYPE_BOOLEAN, stream != NULL, NULL);
  if (stream)
    gst_buffer_pool_config_set_cuda_stream (config, stream);
  else
    gst_structure_remove_field (config, "cuda-stream");
#endif
}

G_END_DECLS

#endif /* __GST_CUDA_CACHE_COMPAT_H__ */
