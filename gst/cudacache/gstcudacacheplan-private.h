/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_PLAN_PRIVATE_H__
#define __GST_CUDA_CACHE_PLAN_PRIVATE_H__

#include <gst/gst.h>

#include "gstcudacachekernels-private.h"
#include "kernels/convert-params.h"
#include "kernels/kernel-list.h"

G_BEGIN_DECLS

/* The planning of one conversion for the CUDA kernels, worked out on the
 * host once per pair of caps: the kernels' parameters (ConvertParams) from
 * the conversion's (GstCudaCacheConvertParams), each axis's taps into one
 * table (kernels/convert-params.h says its layout), the tiled kernel's
 * tiles, the direct kernel's windows and groups of rows, and which kernel
 * of kernels/kernel-list.h runs on which grid. Plain C: no CUDA driver
 * call, so that tests check every table without a device
 * (tests/check/libs/taps.c). */

/* The debug category of the kernels' host files (cudacachekernels),
 * defined here, in the unit every build links: log on it once
 * gst_cuda_cache_kernels_init_debug () was called. */
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_cache_kernels_debug);

G_GNUC_INTERNAL
void gst_cuda_cache_kernels_init_debug (void);

/* GstVideoResampler's limit on the taps of one output pixel, per axis */
#define GST_CUDA_CACHE_PLAN_MAX_TAPS 128

/* shared memory a block may use without asking the driver for more */
#define GST_CUDA_CACHE_PLAN_MAX_SHARED_BYTES (48 * 1024)

/* The kernels of kernels/kernel-list.h, by id:
 * GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_narrow_16) is the narrowing
 * pass's. */
#define GST_CUDA_CACHE_KERNEL_ID(name) GST_CUDA_CACHE_KERNEL_ID_ ## name

typedef enum
{
#define GST_CUDA_CACHE_KERNEL_ENUM(family, name, in, out, taps) \
  GST_CUDA_CACHE_KERNEL_ID (name),
  GST_CUDA_CACHE_KERNELS (GST_CUDA_CACHE_KERNEL_ENUM)
#undef GST_CUDA_CACHE_KERNEL_ENUM
  GST_CUDA_CACHE_N_KERNELS,
  GST_CUDA_CACHE_KERNEL_NONE = -1
} GstCudaCacheKernelId;

/* the families of kernels: a module each */
typedef enum
{
#define GST_CUDA_CACHE_KERNEL_FAMILY_ENUM(FAMILY, family) \
  GST_CUDA_CACHE_KERNEL_FAMILY_ ## FAMILY,
  GST_CUDA_CACHE_KERNEL_FAMILIES (GST_CUDA_CACHE_KERNEL_FAMILY_ENUM)
#undef GST_CUDA_CACHE_KERNEL_FAMILY_ENUM
  GST_CUDA_CACHE_N_KERNEL_FAMILIES
} GstCudaCacheKernelFamily;

/* A family's module, as kernels/embed.py embeds nvcc's fatbin of it
 * (built only with the kernels) */
typedef struct
{
  const gchar *name;
  const guint8 *data;
  gsize size;
} GstCudaCacheKernelFatbin;

G_GNUC_INTERNAL
extern const GstCudaCacheKernelFatbin
    gst_cuda_cache_kernel_fatbins[GST_CUDA_CACHE_N_KERNEL_FAMILIES];

/* One kernel of the list: its entry point's name, its family, the kinds
 * it converts (CONVERT_IN_*, CONVERT_OUT_*, -1 for none), the taps of
 * its windows (direct kernels, else 0), and whether it is a batch twin
 * (ConvertBatch: a slot per z index). */
typedef struct
{
  const gchar *name;
  GstCudaCacheKernelFamily family;
  gint in;
  gint out;
  gint taps;
  gboolean batch;
} GstCudaCacheKernelInfo;

/* indexed by GstCudaCacheKernelId */
G_GNUC_INTERNAL
extern const GstCudaCacheKernelInfo
    gst_cuda_cache_kernel_info[GST_CUDA_CACHE_N_KERNELS];

/* The kernel (not a batch twin) of @family for @in and @out kinds (and
 * @taps), or GST_CUDA_CACHE_KERNEL_NONE where the list has none. */
G_GNUC_INTERNAL
GstCudaCacheKernelId gst_cuda_cache_kernel_find (GstCudaCacheKernelFamily
    family, gint in, gint out, gint taps);

/* The batch twin of @kernel (the same kinds and taps, a slot per z
 * index), or GST_CUDA_CACHE_KERNEL_NONE where it has none (kernels of
 * video output, the stand-in passes). */
G_GNUC_INTERNAL
GstCudaCacheKernelId gst_cuda_cache_kernel_batch_twin (GstCudaCacheKernelId
    kernel);

/* One launch: a kernel and its grid */
typedef struct
{
  GstCudaCacheKernelId kernel;
  guint grid_w;
  guint grid_h;
  guint block_w;
  guint block_h;
  guint shared_bytes;
} GstCudaCacheLaunch;

/* For the kernels' host files, with the kernels' context pushed: launches
 * @launch with @args on @stream, through *@graph where @graph is not NULL
 * and the driver takes it (gst_cuda_cache_device_graph_launch ()), and
 * notes the launch (gst_cuda_cache_kernels_mark_launch ()). */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernels_launch (GstCudaCacheKernels * kernels,
    const GstCudaCacheLaunch * launch, void **args, CUstream stream,
    GstCudaCacheDeviceGraph ** graph);

/* One conversion's launch, as planned: the kernels' parameters but for
 * the planes' and the table's addresses; the taps' table to upload; the
 * tiled kernel (or the generic one, for factors whose rows do not fit a
 * tile) and its grid; and the direct kernel, where it applies, with its
 * grid (it needs rows 4-byte aligned, which only a frame tells). */
typedef struct
{
  ConvertParams params;
  GArray *table;                /* guint32 values */
  gint n_planes;                /* of the input, as the kernels read it */

  GstCudaCacheLaunch tiled;
  GstCudaCacheLaunch direct;    /* kernel GST_CUDA_CACHE_KERNEL_NONE: none */
  gint direct_taps;
} GstCudaCachePlan;

/* The kernels' parameters of @params, as far as the taps' table: formats,
 * sizes, matrices, the output's layout, and each axis's scaling
 * (gst_cuda_cache_plan_axes ()), with *lq and *inc. FALSE, with the reason
 * logged, for a conversion the kernels do not do. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_plan_params (const GstCudaCacheConvertParams * params,
    ConvertParams * p, gboolean * lq, gint * inc);

/* Plans the launch of @key (from gst_cuda_cache_plan_params (), with its
 * @lq and @inc). Clear @plan with gst_cuda_cache_plan_clear (). */
G_GNUC_INTERNAL
void gst_cuda_cache_plan_init (GstCudaCachePlan * plan,
    const ConvertParams * key, gboolean lq, gint inc);

G_GNUC_INTERNAL
void gst_cuda_cache_plan_clear (GstCudaCachePlan * plan);

/* @out_data and @out_stride as @p's output planes, and whether its
 * stores may be whole pixels (out_aligned): for one frame's launch of a
 * plan or a preset */
G_GNUC_INTERNAL
void gst_cuda_cache_plan_set_output (ConvertParams * p,
    const guintptr out_data[3], const gint out_stride[3]);

/* The launch of a resampling preset's kernel (kernels/resample.cu) for
 * @p, the ConvertParams of its conversion (gst_cuda_cache_plan_params ()
 * of the picture converted at 1:1, whose output fields the kernel
 * takes), resampling as PRESET_* @kind: the kernel of @kind's group and
 * @p's output kind and its grid, a thread per output pixel (per 2x2
 * block of 4:2:0 output). */
G_GNUC_INTERNAL
void gst_cuda_cache_plan_preset (const ConvertParams * p, gint kind,
    GstCudaCacheLaunch * launch);

/* For the batches of gstcudacachekernels.c: @preset's kernel parameters
 * (gstcudacachepreset.c) for one frame's planes in *a, and its kernel and
 * grid in *launch, as a plan's are prepared */
G_GNUC_INTERNAL
void gst_cuda_cache_preset_prepare (const GstCudaCachePreset * preset,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], PresetConvert * a,
    GstCudaCacheLaunch * launch);

/* The steps of gst_cuda_cache_plan_params () and gst_cuda_cache_plan_init (),
 * each checked on its own by the tests. */

/* @format's CONVERT_FORMAT_*, or -1 where the kernels do not read it */
G_GNUC_INTERNAL
gint gst_cuda_cache_plan_format (GstVideoFormat format);

/* @site's CONVERT_CHROMA_* flags */
G_GNUC_INTERNAL
gint gst_cuda_cache_plan_chroma_site (GstVideoChromaSite site);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_plan_is_yuv (gint format);

/* Byte offsets of R, G, B in a packed RGB pixel of @format, and its size. */
G_GNUC_INTERNAL
void gst_cuda_cache_plan_packed_layout (gint format, gint * r, gint * g,
    gint * b, gint * bytes);

/* The kernels' chroma_index (): the chroma row or column below luma
 * index @i (-1 above the first, where chroma is not cosited) */
static inline gint
gst_cuda_cache_chroma_index (gint i, gboolean cosited)
{
  return cosited ? i >> 1 : (i - 1) >> 1;
}

/* The kernels' chroma_frac (): the weight of that row or column */
static inline gfloat
gst_cuda_cache_chroma_frac (gint i, gboolean cosited, gboolean interpolate)
{
  if (cosited)
    return interpolate && (i & 1) ? 0.5f : 0.0f;
  return (i & 1) ? 0.25f : 0.75f;
}

/* The scaling of @p's axes, from its formats and sizes: taps and fx per
 * axis, whether 4:2:0 input is converted before it is scaled, and in *lq
 * and *inc whether and with which step x takes GstVideoScaler's 2-tap
 * fixed-point path. */
G_GNUC_INTERNAL
void gst_cuda_cache_plan_axes (ConvertParams * p, gboolean * lq, gint * inc);

/* The whole table of @p's taps (convert-params.h), its offsets into
 * p->tab[]. */
G_GNUC_INTERNAL
GArray *gst_cuda_cache_plan_build_table (ConvertParams * p, gboolean lq,
    gint inc);

/* The tiled kernel's tiles for @p, once its taps are in @table (their
 * per-block ranges appended to it). Returns a block's shared memory, or 0
 * (the tile fields 0) where not even tiles of 2 rows fit. */
G_GNUC_INTERNAL
guint gst_cuda_cache_plan_tiles (ConvertParams * p, GArray * table);

/* Shared memory of one block of the tiled kernel for @p's tiles. */
G_GNUC_INTERNAL
guint64 gst_cuda_cache_plan_tile_shared_bytes (const ConvertParams * p);

/* The taps of the direct kernel's windows for @p. */
G_GNUC_INTERNAL
gint gst_cuda_cache_plan_direct_taps (const ConvertParams * p);

/* The direct kernel's tables for windows of @n taps, appended to @table,
 * and its fields of @p, where it applies (else FALSE). */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_plan_direct (ConvertParams * p, GArray * table,
    gint n);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_PLAN_PRIVATE_H__ */
