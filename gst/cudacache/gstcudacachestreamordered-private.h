/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_STREAM_ORDERED_PRIVATE_H__
#define __GST_CUDA_CACHE_STREAM_ORDERED_PRIVATE_H__

#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cudacache/gstcudacache.h>

#include "gstcudacache-private.h"
#include "gstcudacache-compat-private.h"

G_BEGIN_DECLS

/* The stream-ordered side of one GstCudaCache (GST_CUDA_CACHE_ALLOC_METHOD_
 * STREAM_ORDERED): the CUDA memory pool of each device it allocated on,
 * the stream of each context that allocates blocks which carry none and
 * frees every block, and the cache's limit, which bounds what a pool keeps.
 * Thread-safe, with a lock of its own that is never held across a call
 * into the cache. Its blocks hold it (refcounted), so a block freed after
 * its cache still finds its pool and stream. The type is declared in
 * gstcudacache-private.h. */

/* The marker a key of stream-ordered blocks carries: the method is part of
 * a block's key, so that a consumer that cannot take stream-ordered memory
 * is never handed one */
#define GST_CUDA_CACHE_KEY_STREAM_ORDERED ",alloc=stream-ordered"

/* Whether this build and the driver can make stream-ordered blocks; FALSE
 * with why in @error */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_stream_ordered_supported (GError ** error);

G_GNUC_INTERNAL
GstCudaCacheStreamOrdered *gst_cuda_cache_stream_ordered_new (void);

G_GNUC_INTERNAL
void gst_cuda_cache_stream_ordered_unref (GstCudaCacheStreamOrdered * so);

/* The pool new blocks come from: @handle is a CUmemoryPool for
 * GST_CUDA_CACHE_MEMORY_POOL_HANDLE, else 0 */
G_GNUC_INTERNAL
void gst_cuda_cache_stream_ordered_set_pool (GstCudaCacheStreamOrdered * so,
    GstCudaCacheMemoryPool pool, guintptr handle);

/* The cache's limit: the release threshold of its own pools, and above
 * it any pool is trimmed after a free */
G_GNUC_INTERNAL
void gst_cuda_cache_stream_ordered_set_limit (GstCudaCacheStreamOrdered * so,
    guint64 limit);

/* A block of @info as gst-cuda lays out its stream-ordered images, from
 * the pool chosen, on @stream (NULL: the context's stream of @so, waited
 * for before returning); NULL, logged, where the driver refused. */
G_GNUC_INTERNAL
GstMemory *gst_cuda_cache_stream_ordered_alloc (GstCudaCacheStreamOrdered *
    so, GstCudaAllocator * allocator, GstCudaContext * context,
    GstCudaCacheStream * stream, const GstVideoInfo * info);

/* Bytes held and allocated by the pools @so allocated from */
G_GNUC_INTERNAL
void gst_cuda_cache_stream_ordered_get_usage (GstCudaCacheStreamOrdered * so,
    guint64 * reserved, guint64 * used);

/* Bytes each own pool holds from its start (the cache's reserve, at most
 * its limit): filled now in the pools made, at their making in the others */
G_GNUC_INTERNAL
void gst_cuda_cache_stream_ordered_set_reserve (GstCudaCacheStreamOrdered *
    so, guint64 reserve);

/* Gives the device what the pools hold unused: waits for the frees queued
 * so far, then trims every pool to @keep bytes (own pools: to the reserve
 * at least) */
G_GNUC_INTERNAL
void gst_cuda_cache_stream_ordered_release (GstCudaCacheStreamOrdered * so,
    guint64 keep);

/* The layout gst-cuda gives a stream-ordered image of @info with rows of
 * @pitch bytes (GStreamer 1.24+'s gst_cuda_allocator_update_info ()):
 * every plane at the same pitch, 4:2:0 heights rounded up to even. FALSE
 * for a format gst-cuda does not lay out, but GRAY8, a tensor's one row.
 * For the tests too. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_stream_ordered_layout (const GstVideoInfo * info,
    gsize pitch, GstVideoInfo * layout);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_STREAM_ORDERED_PRIVATE_H__ */
