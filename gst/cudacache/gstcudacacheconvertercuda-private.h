/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's CUDA back end (gstcudacacheconvertercuda.c): CUDA memory
 * of one context, converted by the library's kernels on a stream.
 */

#ifndef __GST_CUDA_CACHE_CONVERTER_CUDA_PRIVATE_H__
#define __GST_CUDA_CACHE_CONVERTER_CUDA_PRIVATE_H__

#include "gstcudacacheconvertbase-private.h"
#include "gstcudacachekernels-private.h"

G_BEGIN_DECLS

typedef struct _GstCudaCacheConverterCuda GstCudaCacheConverterCuda;

/* Loads the kernels into @context. NULL, with @error set, where they were
 * not built or do not load on its device. */
G_GNUC_INTERNAL
GstCudaCacheConverterCuda *gst_cuda_cache_converter_cuda_new (GstCudaContext *
    context, GError ** error);

/* Plans the conversion of @info with @params, ready for the first frame.
 * On failure, @error set, @cuda converts what it did before. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_cuda_set_params (GstCudaCacheConverterCuda *
    cuda, const GstCudaCacheConverterInfo * info,
    const GstCudaCacheConvertParams * params, GError ** error);

/* Converts one frame on @stream (NULL: @cuda's own non-blocking stream),
 * as gst_cuda_cache_converter_convert_buffer() says. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_cuda_convert (GstCudaCacheConverterCuda *
    cuda, GstBuffer * inbuf, GstBuffer * outbuf, CUstream stream,
    GError ** error);

/* A batch launched and not waited for yet. @kernels is its converter's,
 * which whoever holds this keeps; NULL: nothing to wait for. */
typedef struct
{
  GstCudaCacheKernels *kernels;
  GstCudaCacheKernelDone *done;
  guint32 seq;
  CUstream stream;
  GPtrArray *memory;            /* the batch's, flagged need-sync till then */
} GstCudaCacheConverterCudaPending;

/* Converts a batch on @stream (NULL: the first present slot's own): slot
 * i of @outbuf (@slot_size bytes at i * @slot_size) from @inbufs[i] by
 * @slots[i], each a tensor of @slot_size bytes, or zeros where @slots[i]
 * is NULL; at least one is not. The slots' conversions share their
 * launches (gst_cuda_cache_kernel_batch_launch ()): *@n_launches says
 * how many. Waited for as a single conversion is, or, with @pending,
 * not: gst_cuda_cache_converter_cuda_wait_pending (@pending) waits. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_cuda_convert_batch (GstCudaCacheConverterCuda
    ** slots, GstBuffer ** inbufs, guint n, GstBuffer * outbuf,
    gsize slot_size, CUstream stream,
    GstCudaCacheConverterCudaPending * pending, guint * n_launches,
    GError ** error);

/* Waits for @pending, once (later calls return TRUE at once), and lets
 * its memory go: FALSE where the conversion failed on the device */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_cuda_wait_pending
    (GstCudaCacheConverterCudaPending * pending);

G_GNUC_INTERNAL
void gst_cuda_cache_converter_cuda_free (GstCudaCacheConverterCuda * cuda);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERTER_CUDA_PRIVATE_H__ */
