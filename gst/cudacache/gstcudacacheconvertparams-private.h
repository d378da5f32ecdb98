/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The definition's parameters (gstcudacacheconvertparams.c): one
 * GstCudaCacheConvertParams from a pair of caps and options, for the CPU
 * and the CUDA back ends alike.
 */

#ifndef __GST_CUDA_CACHE_CONVERT_PARAMS_PRIVATE_H__
#define __GST_CUDA_CACHE_CONVERT_PARAMS_PRIVATE_H__

#include "gstcudacacheconvertbase-private.h"
#include "gstcudacachekernels-private.h"

G_BEGIN_DECLS

/* The bits of 16-bit 4:2:0 input's samples (P010_10LE, P016_LE), else 0:
 * such input is converted as the 8-bit NV12 frame it narrows to. */
G_GNUC_INTERNAL
gint gst_cuda_cache_convert_params_input_depth (const GstVideoInfo * info);

/* Where the frame downstream of a crop sees lies in the buffer's whole
 * frame: a GstVideoCropMeta's rectangle (the caps' size, as videocrop and
 * decoders give it) in the frame its GstVideoMeta describes. */
typedef struct
{
  gint width;                   /* the buffer's whole frame */
  gint height;
  GstVideoRectangle visible;    /* the crop meta's rectangle */
} GstCudaCacheInputCrop;

/* The region of the buffer's frame to convert, in that frame's pixels:
 * @options' source rectangle (in the visible frame: @crop's rectangle, or
 * @in's frame where @crop is NULL), else the whole visible frame; grown to
 * the chroma grid of subsampled input. FALSE with @error where a
 * rectangle does not lie inside what holds it. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_convert_params_source (const GstVideoInfo * in,
    const GstCudaCacheConverterOptions * options,
    const GstCudaCacheInputCrop * crop, GstVideoRectangle * source,
    GError ** error);

/* Fills @params (planes' pointers and strides left 0) for @info, @options
 * and the region @source of the input (gst_cuda_cache_convert_params_source
 * ()): the definition in gstcudacachekernels-private.h. */
G_GNUC_INTERNAL
void gst_cuda_cache_convert_params_fill (GstCudaCacheConvertParams * params,
    const GstCudaCacheConverterInfo * info,
    const GstCudaCacheConverterOptions * options,
    const GstVideoRectangle * source);

/* The byte offset of the source rectangle's top left (@p->src_x,
 * @p->src_y, on the chroma grid) in each plane of a @format frame whose
 * rows are @stride bytes: where the back ends read a crop in place. */
G_GNUC_INTERNAL
void gst_cuda_cache_convert_params_source_offsets (const
    GstCudaCacheConvertParams * p, GstVideoFormat format, const gint * stride,
    gsize offset[GST_VIDEO_MAX_PLANES]);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERT_PARAMS_PRIVATE_H__ */
