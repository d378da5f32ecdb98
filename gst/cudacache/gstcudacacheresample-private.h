/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The resampling methods other than GStreamer's LINEAR
 * (gstcudacacheresample.c): 8-bit RGB to 8-bit RGB, each method equal to
 * the library whose preset it is (OpenCV's cv2.resize, Pillow's
 * Image.resize), arithmetic included.
 */

#ifndef __GST_CUDA_CACHE_RESAMPLE_PRIVATE_H__
#define __GST_CUDA_CACHE_RESAMPLE_PRIVATE_H__

#include <gst/gst.h>
#include "gstcudacacheconverter.h"
#include "gstcudacachelinear-private.h"
#include "kernels/convert-params.h"

G_BEGIN_DECLS

typedef struct _GstCudaCacheResampler GstCudaCacheResampler;

/* A resampler of @in_width x @in_height to @out_width x @out_height by
 * @method (not LINEAR); NULL where the sizes are not positive. */
G_GNUC_INTERNAL
GstCudaCacheResampler *gst_cuda_cache_resampler_new (GstCudaCacheResizeMethod
    method, gint in_width, gint in_height, gint out_width, gint out_height);

G_GNUC_INTERNAL
void gst_cuda_cache_resampler_free (GstCudaCacheResampler * r);

/* Resamples the 8-bit picture at @src (rows @src_stride bytes apart,
 * pixels @src_pstride bytes apart, red, green and blue at byte offsets
 * @rgb[0..2] of a pixel), or, where @source is not NULL, its RGBx rows
 * made by @source with @source_data as the threads read them (each made
 * once a thread, in_width pixels), into @dst: out_width x out_height
 * pixels @dst_pstride bytes apart (3 or 4), red, green and blue at byte
 * offsets @dst_rgb[0..2] of a pixel, a 4-byte pixel's other byte 255,
 * rows @dst_stride bytes apart. Rows are split over up to @threads
 * threads. */
G_GNUC_INTERNAL
void gst_cuda_cache_resampler_run (GstCudaCacheResampler * r,
    const guint8 * src, gsize src_stride, gint src_pstride, const gint rgb[3],
    GstCudaCacheLinearSource source, gpointer source_data, guint8 * dst,
    gsize dst_stride, gint dst_pstride, const gint dst_rgb[3],
    guint threads);

/* The same resampling for the presets' CUDA kernels (kernels/resample.cu):
 * @p's kind and sizes, and its table's offsets into @table, to which its
 * arrays are appended (4-byte values: ints, floats' bits). */
G_GNUC_INTERNAL
void gst_cuda_cache_resampler_kernel_table (const GstCudaCacheResampler * r,
    PresetParams * p, GArray * table);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_RESAMPLE_PRIVATE_H__ */
