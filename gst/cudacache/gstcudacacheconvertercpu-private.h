/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's CPU back end (gstcudacacheconvertercpu.c): system memory,
 * LINEAR as the kernels compute it (gstcudacachelinear.c), the presets
 * as their libraries do (gstcudacacheresample.c), and the packing loops.
 */

#ifndef __GST_CUDA_CACHE_CONVERTER_CPU_PRIVATE_H__
#define __GST_CUDA_CACHE_CONVERTER_CPU_PRIVATE_H__

#include "gstcudacacheconvertbase-private.h"
#include "gstcudacachekernels-private.h"

G_BEGIN_DECLS

typedef struct _GstCudaCacheConverterCpu GstCudaCacheConverterCpu;

/* The CPU path for @info and @params, ready for the first frame, or NULL
 * with @error set where it cannot be done (a frame GStreamer cannot lay
 * out, or the presets' GstVideoConverter cannot address). From @old, the path
 * it replaces (or NULL), it takes what still fits once nothing can fail
 * any more, so that new options or a new output cost no frame; @old is
 * freed by the caller either way. */
G_GNUC_INTERNAL
GstCudaCacheConverterCpu *gst_cuda_cache_converter_cpu_new (const
    GstCudaCacheConverterInfo * info, const GstCudaCacheConvertParams * params,
    GstCudaCacheConverterCpu * old, GError ** error);

/* Converts one frame of system memory. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_cpu_convert (GstCudaCacheConverterCpu * cpu,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error);

G_GNUC_INTERNAL
void gst_cuda_cache_converter_cpu_free (GstCudaCacheConverterCpu * cpu);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERTER_CPU_PRIVATE_H__ */
