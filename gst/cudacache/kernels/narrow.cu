/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The narrowing pass of 16-bit 4:2:0 input (P010_10LE, P016_LE) to the
 * 8-bit NV12 frame that the conversion kernels read, as
 * gstcudacachekernels-private.h defines it. */

#include "convert-params.h"
#include "kernel-list.h"

/* One 16-bit sample of @depth bits at the top, as 8 bits: its bits
 * repeated down to 16, as GStreamer unpacks them, then scaled by
 * 255 / 65535 and rounded, so that a sample widened from 8 bits gives its
 * 8-bit value back. */
__device__ static __forceinline__ unsigned int
narrow_sample (unsigned int v, int depth)
{
  v |= v >> depth;
  return (v * 255u + 32767u) / 65535u;
}

/* the family's one entry point, named by the list */
#define NARROW_KERNEL_NAME(family, name, in, out, taps) name

/* P010 and P016 (NV12's planes, 16-bit samples holding @depth bits at the
 * top) to an 8-bit NV12 frame, which the conversion kernels convert. A
 * thread narrows CONVERT_NARROW_SAMPLES samples of a row: one 16-byte load
 * and one 8-byte store where both are aligned, else sample by sample. Rows
 * 0 to @height - 1 are luma, the rest chroma; block row b narrows rows b,
 * b + gridDim.y, ... (a grid has at most 65535 rows of blocks). */
extern "C" __global__ void __launch_bounds__ (CONVERT_NARROW_THREADS)
GST_CUDA_CACHE_NARROW_KERNELS (NARROW_KERNEL_NAME) (const unsigned char
    *src_y, int src_y_stride, const unsigned char *src_uv, int src_uv_stride,
    unsigned char *dst_y, int dst_y_stride, unsigned char *dst_uv,
    int dst_uv_stride, int width, int height, int depth)
{
  int x = (blockIdx.x * CONVERT_NARROW_THREADS + threadIdx.x) *
      CONVERT_NARROW_SAMPLES;
  int rows = height + (height + 1) / 2;
  int row, i;

  for (row = blockIdx.y; row < rows; row += gridDim.y) {
    const unsigned short *s;
    unsigned char *d;
    int n;

    if (row < height) {
      s = (const unsigned short *) (src_y + (long long) row * src_y_stride);
      d = dst_y + (long long) row * dst_y_stride;
      n = width;
    } else {
      s = (const unsigned short *) (src_uv + (long long) (row - height) *
          src_uv_stride);
      d = dst_uv + (long long) (row - height) * dst_uv_stride;
      n = 2 * ((width + 1) / 2);
    }
    if (x >= n)
      continue;
    if (x + CONVERT_NARROW_SAMPLES <= n && ((size_t) (s + x) & 15) == 0 &&
        ((size_t) (d + x) & 7) == 0) {
      uint4 w = *(const uint4 *) (s + x);
      unsigned int words[4] = { w.x, w.y, w.z, w.w };
      unsigned long long out = 0;

      for (i = 0; i < CONVERT_NARROW_SAMPLES; i++)
        out |= (unsigned long long) narrow_sample ((words[i / 2] >>
                (16 * (i & 1))) & 0xffff, depth) << (8 * i);
      *(unsigned long long *) (d + x) = out;
    } else {
      for (i = 0; i < CONVERT_NARROW_SAMPLES && x + i < n; i++)
        d[x + i] = (unsigned char) narrow_sample (s[x + i], depth);
    }
  }
}
