/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The LINEAR method on the CPU (gstcudacachelinear.c): the definition
 * (gstcudacachekernels-private.h) with the kernels' own taps, worked out
 * by their plan (gstcudacacheplan.c), and their arithmetic, separably on
 * all cores. The CPU path and the kernels give the same values within one
 * rounding.
 */

#ifndef __GST_CUDA_CACHE_LINEAR_PRIVATE_H__
#define __GST_CUDA_CACHE_LINEAR_PRIVATE_H__

#include <gst/gst.h>
#include "gstcudacachekernels-private.h"

G_BEGIN_DECLS

/* A function built for AVX2 and SSE4.1 too, the one the CPU runs chosen
 * when the library loads (GCC's function multiversioning). The same
 * operations on each value in every version (no fused multiply-add: the
 * CPU path's loops are built without contraction, and neither target
 * enables FMA), so the values do not change. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__ELF__) && defined(__linux__)
#define GST_CUDA_CACHE_CLONES __attribute__ ((target_clones ("avx2", \
            "sse4.1", "default")))
#else
#define GST_CUDA_CACHE_CLONES
#endif

/* Work on rows [@y0, @y1) of something, from one thread of
 * gst_cuda_cache_parallel_rows () */
typedef void (*GstCudaCacheRowsFunc) (gpointer data, gint y0, gint y1);

/* The threads the CPU path's rows are split over: the machine's
 * processors, at most 8, counted once (the count reads sysfs each time) */
G_GNUC_INTERNAL
guint gst_cuda_cache_cpu_threads (void);

/* @func over rows 0..@rows in slices of a multiple of @align rows (but
 * the last), on up to @threads threads, the calling one included; returns
 * once every slice is done. */
G_GNUC_INTERNAL
void gst_cuda_cache_parallel_rows (GstCudaCacheRowsFunc func, gpointer data,
    gint rows, gint align, guint threads);

/* Chroma upsampled across as sited (the definition's, 3.; cosited or
 * between the samples around it), @width values into @out, from a row of
 * @cw samples @a blended down towards the next, @b, by @fv (the blend is
 * left in @a). Every blend is exact: any order of them gives these
 * values. */
G_GNUC_INTERNAL
void gst_cuda_cache_chroma_up (gfloat * a, const gfloat * b, gfloat fv,
    gint cw, gboolean cosited, gint width, gfloat * out);

/* gst_cuda_cache_chroma_up () of 8-bit samples @a and @b (@ps bytes
 * apart), @quarters quarters down (@fv, 0 to 3: @b unread at 0), in
 * integers: every blend of bytes by quarters and halves is exact, so the
 * sums in sixteenths, each then scaled by 1/16 (exact too), are its
 * values, bit for bit. @s: scratch of @cw values. */
G_GNUC_INTERNAL
void gst_cuda_cache_chroma_up_u8 (const guint8 * a, const guint8 * b,
    gint ps, gint quarters, gint cw, gboolean cosited, gint width,
    gint32 * s, gfloat * out);

/* @n bytes at @src, @ps apart, as floats into @dst, each q * @mul +
 * @add: a float multiply, then a float add (1 and 0 give the bytes'
 * values, exactly) */
G_GNUC_INTERNAL
void gst_cuda_cache_u8_to_float (const guint8 * src, gint ps, gint n,
    gfloat mul, gfloat add, gfloat * dst);

/* @width pixels of Y, U and V through the matrix @m (yuv_to_rgb's
 * layout), each channel rounded half up and clamped, into RGBx (4 bytes a
 * pixel, x 255): the stand-ins' and the convert-first step's arithmetic,
 * m[0] * Y + m[1] * U + m[2] * V + m[3] in that order. */
G_GNUC_INTERNAL
void gst_cuda_cache_yuv_to_rgbx (const gfloat m[12], const gfloat * y,
    const gfloat * u, const gfloat * v, gint width, guint8 * dst);

/* The kernels' to_u8 (): rounded half up, clamped. floorf () is a call
 * into libm where SSE4.1 is not given; clamped first, the truncation of
 * the non-negative value is its floor, in one instruction. */
static inline guint8
gst_cuda_cache_to_u8 (gfloat v)
{
  v = v + 0.5f;
  return (guint8) (v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
}

/* One 2x2 block of 4:2:0 output, as the kernels' store_yuv420_block ()
 * makes it (4. in gstcudacachekernels-private.h): the RGB of its @n
 * pixels (@rgb, in row order), @inside saying which lie in the picture;
 * each pixel's Y into @y, in the same order, and the block's U and V, of
 * the mean RGB of its picture pixels where it straddles the picture's
 * edge, else of all, into @u and @v; @m is rgb_to_yuv. */
G_GNUC_INTERNAL
void gst_cuda_cache_yuv420_block (const gfloat m[12], const gfloat rgb[4][3],
    const gboolean inside[4], gint n, guint8 y[4], guint8 * u, guint8 * v);

typedef struct _GstCudaCacheLinear GstCudaCacheLinear;

/* Called from the threads of gst_cuda_cache_linear_run () with 8-bit RGB
 * rows @y0..@y1 of the output (@rgb holds row @y0, rows @stride bytes
 * apart, 3 bytes a pixel, the fill included), for outputs packed from
 * them (tensors, GRAY8). */
typedef void (*GstCudaCacheLinearRows) (gpointer data, const guint8 * rgb,
    gsize stride, gint y0, gint y1);

/* The floats of scratch a GstCudaCacheLinearSource is given for rows of
 * @width pixels: Y, U and V of a row and two rows of chroma */
#define GST_CUDA_CACHE_LINEAR_SOURCE_SCRATCH(width) \
    ((gsize) 3 * (width) + 2 * (((width) + 1) / 2))

/* Where input rows come from when not from the input's planes: row @row
 * as RGBx (4 bytes a pixel, R, G, B, then unused), in_width pixels, into
 * @rgbx; called from the threads of gst_cuda_cache_linear_run (), each
 * with its own @scratch of GST_CUDA_CACHE_LINEAR_SOURCE_SCRATCH (in_width)
 * floats. */
typedef void (*GstCudaCacheLinearSource) (gpointer data, gint row,
    guint8 * rgbx, gfloat * scratch);

/* The LINEAR conversion of @params, whose in_format (NV12, I420 or packed
 * RGB) is the frame it reads and whose out_format is packed RGB, NV12 or
 * I420 (written to the output's planes), or GST_VIDEO_FORMAT_UNKNOWN for
 * 8-bit RGB rows handed to a GstCudaCacheLinearRows. NULL, with @error
 * set, for a conversion the kernels' plan refuses. */
G_GNUC_INTERNAL
GstCudaCacheLinear *gst_cuda_cache_linear_new (const GstCudaCacheConvertParams
    * params, GError ** error);

/* Converts one frame: the input's planes at @in_data with @in_stride
 * (bytes), or, where @source is not NULL, RGBx rows from it (with
 * @source_data; @params' in_format RGBx), into the output's at
 * @out_data/@out_stride, or through @rows with @data; the output's rows
 * split over up to @threads threads. */
G_GNUC_INTERNAL
void gst_cuda_cache_linear_run (const GstCudaCacheLinear * l,
    const guint8 * const in_data[3], const gint in_stride[3],
    GstCudaCacheLinearSource source, gpointer source_data,
    guint8 * const out_data[3], const gint out_stride[3],
    GstCudaCacheLinearRows rows, gpointer data, guint threads);

G_GNUC_INTERNAL
void gst_cuda_cache_linear_free (GstCudaCacheLinear * l);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_LINEAR_PRIVATE_H__ */
