/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* Every kernel of the library, once, for both compilers: the families'
 * .cu files define their entry points from these lists (nvcc), and the
 * host takes its kernel ids and the names it looks up in the modules from
 * them too (gstcudacacheplan.c, gstcudacachekernels.c). Plain macros and
 * enums, no types of either side.
 *
 * A family is one .cu file, one fatbin and one module: its kernels share
 * their device code (kernels/convert-common.cuh for what all share).
 * GST_CUDA_CACHE_KERNEL_FAMILIES (F) calls F (FAMILY, family) for each:
 * the fatbin of family `family` is embedded as
 * gst_cuda_cache_kernel_fatbin_<family> (kernels/embed.py).
 *
 * Each family's list calls X (FAMILY, name, in, out, taps) per kernel:
 * its entry point's name, the input kind (CONVERT_IN_*) and output kind
 * (CONVERT_OUT_*) it is built for, and for the direct kernels the taps of
 * their windows (0 elsewhere); the passes of narrow.cu have no kinds
 * (-1), resample.cu's kernels no input kind (they read every format the
 * presets read). */

#ifndef __GST_CUDA_CACHE_KERNEL_LIST_H__
#define __GST_CUDA_CACHE_KERNEL_LIST_H__

#include "convert-params.h"

/* the kinds of input the kernels are built for */
enum
{
  CONVERT_IN_NV12,
  CONVERT_IN_I420,
  CONVERT_IN_RGB4,              /* RGBA, BGRA, RGBx, BGRx */
  CONVERT_IN_RGB3,              /* RGB, BGR */
  CONVERT_N_IN
};

/* and of output */
enum
{
  CONVERT_OUT_PACKED,           /* RGBA, BGRA, RGBx, BGRx, RGB, BGR */
  CONVERT_OUT_YUV420,           /* NV12, I420 */
  CONVERT_OUT_TENSOR,
  CONVERT_OUT_GRAY,             /* 1-channel tensors */
  CONVERT_N_OUT
};

#define GST_CUDA_CACHE_KERNEL_FAMILIES(F) \
  F (TILE, tile) \
  F (GENERIC, generic) \
  F (DIRECT, direct) \
  F (NARROW, narrow) \
  F (RESAMPLE, resample)

/* convert-tile.cu: a block per tile of output, its input filtered
 * across once into shared memory */
#define GST_CUDA_CACHE_TILE_KERNELS(X) \
  X (TILE, gst_cuda_cache_convert_tile_nv12_packed, CONVERT_IN_NV12, CONVERT_OUT_PACKED, 0) \
  X (TILE, gst_cuda_cache_convert_tile_nv12_yuv420, CONVERT_IN_NV12, CONVERT_OUT_YUV420, 0) \
  X (TILE, gst_cuda_cache_convert_tile_nv12_tensor, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_i420_packed, CONVERT_IN_I420, CONVERT_OUT_PACKED, 0) \
  X (TILE, gst_cuda_cache_convert_tile_i420_yuv420, CONVERT_IN_I420, CONVERT_OUT_YUV420, 0) \
  X (TILE, gst_cuda_cache_convert_tile_i420_tensor, CONVERT_IN_I420, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb4_packed, CONVERT_IN_RGB4, CONVERT_OUT_PACKED, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb4_yuv420, CONVERT_IN_RGB4, CONVERT_OUT_YUV420, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb4_tensor, CONVERT_IN_RGB4, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb3_packed, CONVERT_IN_RGB3, CONVERT_OUT_PACKED, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb3_yuv420, CONVERT_IN_RGB3, CONVERT_OUT_YUV420, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb3_tensor, CONVERT_IN_RGB3, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_nv12_gray, CONVERT_IN_NV12, CONVERT_OUT_GRAY, 0) \
  X (TILE, gst_cuda_cache_convert_tile_i420_gray, CONVERT_IN_I420, CONVERT_OUT_GRAY, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb4_gray, CONVERT_IN_RGB4, CONVERT_OUT_GRAY, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb3_gray, CONVERT_IN_RGB3, CONVERT_OUT_GRAY, 0)

/* convert-generic.cu: a block per output pixel, for factors whose rows do
 * not fit a tile */
#define GST_CUDA_CACHE_GENERIC_KERNELS(X) \
  X (GENERIC, gst_cuda_cache_convert_generic_nv12_packed, CONVERT_IN_NV12, CONVERT_OUT_PACKED, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_nv12_yuv420, CONVERT_IN_NV12, CONVERT_OUT_YUV420, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_nv12_tensor, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_i420_packed, CONVERT_IN_I420, CONVERT_OUT_PACKED, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_i420_yuv420, CONVERT_IN_I420, CONVERT_OUT_YUV420, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_i420_tensor, CONVERT_IN_I420, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb4_packed, CONVERT_IN_RGB4, CONVERT_OUT_PACKED, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb4_yuv420, CONVERT_IN_RGB4, CONVERT_OUT_YUV420, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb4_tensor, CONVERT_IN_RGB4, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb3_packed, CONVERT_IN_RGB3, CONVERT_OUT_PACKED, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb3_yuv420, CONVERT_IN_RGB3, CONVERT_OUT_YUV420, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb3_tensor, CONVERT_IN_RGB3, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_nv12_gray, CONVERT_IN_NV12, CONVERT_OUT_GRAY, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_i420_gray, CONVERT_IN_I420, CONVERT_OUT_GRAY, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb4_gray, CONVERT_IN_RGB4, CONVERT_OUT_GRAY, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb3_gray, CONVERT_IN_RGB3, CONVERT_OUT_GRAY, 0)

/* convert-direct.cu: 4:2:0 input to RGB or a tensor, a thread per
 * CONVERT_DIRECT_ROWS output pixels of a column, windows of
 * CONVERT_FIXED_TAPS (8) or CONVERT_DIRECT_NARROW_TAPS (6) taps */
#define GST_CUDA_CACHE_DIRECT_KERNELS(X) \
  X (DIRECT, gst_cuda_cache_convert_direct8_nv12_packed, CONVERT_IN_NV12, CONVERT_OUT_PACKED, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_nv12_tensor, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_i420_packed, CONVERT_IN_I420, CONVERT_OUT_PACKED, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_i420_tensor, CONVERT_IN_I420, CONVERT_OUT_TENSOR, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_nv12_packed, CONVERT_IN_NV12, CONVERT_OUT_PACKED, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_nv12_tensor, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_i420_packed, CONVERT_IN_I420, CONVERT_OUT_PACKED, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_i420_tensor, CONVERT_IN_I420, CONVERT_OUT_TENSOR, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_nv12_gray, CONVERT_IN_NV12, CONVERT_OUT_GRAY, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_i420_gray, CONVERT_IN_I420, CONVERT_OUT_GRAY, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_nv12_gray, CONVERT_IN_NV12, CONVERT_OUT_GRAY, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_i420_gray, CONVERT_IN_I420, CONVERT_OUT_GRAY, CONVERT_DIRECT_NARROW_TAPS)

/* narrow.cu: the frames the others convert in place of input they do not
 * read: 16-bit 4:2:0 narrowed to 8-bit NV12, 4:2:2 packed (YUY2, UYVY)
 * converted to RGBx */
#define GST_CUDA_CACHE_NARROW_KERNELS(X) \
  X (NARROW, gst_cuda_cache_narrow_16, -1, -1, 0) \
  X (NARROW, gst_cuda_cache_unpack_422, -1, -1, 0)

/* resample.cu: the resampling presets (PresetConvert), a kernel per
 * group of kinds (PRESET_GROUP_*, in the taps column) and output kind,
 * each reading every input format the presets read (no input kind: -1)
 * and storing the picture's pixels as the conversion kernels store them,
 * the fill around it, in one launch. A kernel per group keeps each
 * kind's registers its own: the simple kinds' kernels are not limited
 * by the largest's. */
#define GST_CUDA_CACHE_RESAMPLE_GROUP_KERNELS(X, group, G) \
  X (RESAMPLE, gst_cuda_cache_resample_##group##_packed, -1, CONVERT_OUT_PACKED, G) \
  X (RESAMPLE, gst_cuda_cache_resample_##group##_yuv420, -1, CONVERT_OUT_YUV420, G) \
  X (RESAMPLE, gst_cuda_cache_resample_##group##_tensor, -1, CONVERT_OUT_TENSOR, G) \
  X (RESAMPLE, gst_cuda_cache_resample_##group##_gray, -1, CONVERT_OUT_GRAY, G)

#define GST_CUDA_CACHE_RESAMPLE_KERNELS(X) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_KERNELS (X, near, PRESET_GROUP_NEAR) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_KERNELS (X, two, PRESET_GROUP_TWO_TAPS) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_KERNELS (X, area, PRESET_GROUP_AREA) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_KERNELS (X, pil, PRESET_GROUP_PIL)

/* The batch twins (ConvertBatch, cudacachebatch) of the kernels that make
 * tensors: the same name with _batch, a slot of the batch per z index.
 * The host finds a kernel's twin by that name. */
#define GST_CUDA_CACHE_TILE_BATCH_KERNELS(X) \
  X (TILE, gst_cuda_cache_convert_tile_nv12_tensor_batch, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_nv12_gray_batch, CONVERT_IN_NV12, CONVERT_OUT_GRAY, 0) \
  X (TILE, gst_cuda_cache_convert_tile_i420_tensor_batch, CONVERT_IN_I420, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_i420_gray_batch, CONVERT_IN_I420, CONVERT_OUT_GRAY, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb4_tensor_batch, CONVERT_IN_RGB4, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb4_gray_batch, CONVERT_IN_RGB4, CONVERT_OUT_GRAY, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb3_tensor_batch, CONVERT_IN_RGB3, CONVERT_OUT_TENSOR, 0) \
  X (TILE, gst_cuda_cache_convert_tile_rgb3_gray_batch, CONVERT_IN_RGB3, CONVERT_OUT_GRAY, 0)

#define GST_CUDA_CACHE_GENERIC_BATCH_KERNELS(X) \
  X (GENERIC, gst_cuda_cache_convert_generic_nv12_tensor_batch, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_nv12_gray_batch, CONVERT_IN_NV12, CONVERT_OUT_GRAY, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_i420_tensor_batch, CONVERT_IN_I420, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_i420_gray_batch, CONVERT_IN_I420, CONVERT_OUT_GRAY, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb4_tensor_batch, CONVERT_IN_RGB4, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb4_gray_batch, CONVERT_IN_RGB4, CONVERT_OUT_GRAY, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb3_tensor_batch, CONVERT_IN_RGB3, CONVERT_OUT_TENSOR, 0) \
  X (GENERIC, gst_cuda_cache_convert_generic_rgb3_gray_batch, CONVERT_IN_RGB3, CONVERT_OUT_GRAY, 0)

#define GST_CUDA_CACHE_DIRECT_BATCH_KERNELS(X) \
  X (DIRECT, gst_cuda_cache_convert_direct8_nv12_tensor_batch, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_nv12_gray_batch, CONVERT_IN_NV12, CONVERT_OUT_GRAY, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_i420_tensor_batch, CONVERT_IN_I420, CONVERT_OUT_TENSOR, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct8_i420_gray_batch, CONVERT_IN_I420, CONVERT_OUT_GRAY, CONVERT_FIXED_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_nv12_tensor_batch, CONVERT_IN_NV12, CONVERT_OUT_TENSOR, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_nv12_gray_batch, CONVERT_IN_NV12, CONVERT_OUT_GRAY, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_i420_tensor_batch, CONVERT_IN_I420, CONVERT_OUT_TENSOR, CONVERT_DIRECT_NARROW_TAPS) \
  X (DIRECT, gst_cuda_cache_convert_direct6_i420_gray_batch, CONVERT_IN_I420, CONVERT_OUT_GRAY, CONVERT_DIRECT_NARROW_TAPS)

/* the presets' twins read a table of PresetBatchSlot */
#define GST_CUDA_CACHE_RESAMPLE_GROUP_BATCH_KERNELS(X, group, G) \
  X (RESAMPLE, gst_cuda_cache_resample_##group##_tensor_batch, -1, CONVERT_OUT_TENSOR, G) \
  X (RESAMPLE, gst_cuda_cache_resample_##group##_gray_batch, -1, CONVERT_OUT_GRAY, G)

#define GST_CUDA_CACHE_RESAMPLE_BATCH_KERNELS(X) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_BATCH_KERNELS (X, near, PRESET_GROUP_NEAR) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_BATCH_KERNELS (X, two, PRESET_GROUP_TWO_TAPS) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_BATCH_KERNELS (X, area, PRESET_GROUP_AREA) \
  GST_CUDA_CACHE_RESAMPLE_GROUP_BATCH_KERNELS (X, pil, PRESET_GROUP_PIL)

#define GST_CUDA_CACHE_SINGLE_KERNELS(X) \
  GST_CUDA_CACHE_TILE_KERNELS (X) \
  GST_CUDA_CACHE_GENERIC_KERNELS (X) \
  GST_CUDA_CACHE_DIRECT_KERNELS (X) \
  GST_CUDA_CACHE_NARROW_KERNELS (X) \
  GST_CUDA_CACHE_RESAMPLE_KERNELS (X)

#define GST_CUDA_CACHE_BATCH_KERNELS(X) \
  GST_CUDA_CACHE_TILE_BATCH_KERNELS (X) \
  GST_CUDA_CACHE_GENERIC_BATCH_KERNELS (X) \
  GST_CUDA_CACHE_DIRECT_BATCH_KERNELS (X) \
  GST_CUDA_CACHE_RESAMPLE_BATCH_KERNELS (X)

#define GST_CUDA_CACHE_KERNELS(X) \
  GST_CUDA_CACHE_SINGLE_KERNELS (X) \
  GST_CUDA_CACHE_BATCH_KERNELS (X)

#endif /* __GST_CUDA_CACHE_KERNEL_LIST_H__ */
